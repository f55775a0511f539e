"""Derivatives of reductions, scans, sorting and selection, compared with PyTorch.

Each case is a function of the library module ``m`` (``vizgrad`` or ``torch``) and one
tensor, so one lambda drives both. ``check_gradients`` runs it on the same float64 leaves
in several memory layouts, compares values, the ``grad_fn`` name, the leaf's ``.grad``,
and runs ``gradcheck``. Random uniform values have no ties, so ``max``/``sort`` pick
the same elements in both libraries. Then: double backward (``gradgradcheck``), the
``_saved_*`` attributes, ties, zeros in products, nans, non-differentiable outputs and
PyTorch's errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients, leaf_pair
from oracle import assert_same, assert_same_error

import vizgrad as vg

# Layouts a leaf can have and still be perturbed element by element by gradcheck.
LAYOUTS = ["contiguous", "transposed", "stepped", "offset"]

# name -> (function of (module, tensor), input shape)
CASES = {
    # sum: the full overload (SumBackward0) and the dim overload (SumBackward1)
    "sum": (lambda m, x: x.sum(), (3, 4)),
    "sum_dtype": (lambda m, x: m.sum(x, dtype=m.float64), (3, 4)),
    "sum_dim": (lambda m, x: x.sum(1), (3, 4)),
    "sum_neg_keepdim": (lambda m, x: x.sum(-1, keepdim=True), (3, 4)),
    "sum_tuple": (lambda m, x: x.sum((0, 2)), (2, 3, 4)),
    "sum_tuple_neg_keepdim": (lambda m, x: x.sum((-1, 0), keepdim=True), (2, 3, 4)),
    "sum_dim_none": (lambda m, x: m.sum(x, dim=None), (3, 4)),
    "sum_dim_none_keepdim": (lambda m, x: m.sum(x, dim=None, keepdim=True), (3, 4)),
    "sum_empty_list": (lambda m, x: x.sum([]), (3, 4)),
    "sum_0d": (lambda m, x: x.sum(0), ()),
    "nansum": (lambda m, x: x.nansum(), (3, 4)),
    "nansum_dim": (lambda m, x: x.nansum(-1, keepdim=True), (3, 4)),
    "mean": (lambda m, x: x.mean(), (3, 4)),
    "mean_dim": (lambda m, x: x.mean(0), (3, 4)),
    "mean_tuple_keepdim": (lambda m, x: x.mean((0, 2), keepdim=True), (2, 3, 4)),
    "mean_neg": (lambda m, x: x.mean(-2), (2, 3, 4)),
    "mean_dim_none": (lambda m, x: m.mean(x, None), (3, 4)),
    "nanmean": (lambda m, x: x.nanmean(), (3, 4)),
    "nanmean_dim": (lambda m, x: x.nanmean(1, keepdim=True), (3, 4)),
    "prod": (lambda m, x: x.prod(), (3, 4)),
    "prod_dim": (lambda m, x: x.prod(1), (3, 4)),
    "prod_neg_keepdim": (lambda m, x: x.prod(-2, keepdim=True), (2, 3, 4)),
    "prod_0d": (lambda m, x: x.prod(), ()),
    # max/min: full (MaxBackward1) and along a dim (MaxBackward0, values only)
    "max": (lambda m, x: x.max(), (3, 4)),
    "min": (lambda m, x: x.min(), (3, 4)),
    "max_dim": (lambda m, x: x.max(1).values, (3, 4)),
    "max_neg_keepdim": (lambda m, x: x.max(-1, keepdim=True)[0], (2, 3, 4)),
    "min_dim": (lambda m, x: x.min(0).values, (3, 4)),
    "min_0d": (lambda m, x: x.min(0).values, ()),
    "amax": (lambda m, x: x.amax(), (3, 4)),
    "amax_dim": (lambda m, x: x.amax(1), (3, 4)),
    "amax_tuple_keepdim": (lambda m, x: x.amax((0, 2), keepdim=True), (2, 3, 4)),
    "amin_neg": (lambda m, x: x.amin(-1), (2, 3, 4)),
    "amin_tuple": (lambda m, x: x.amin((0, 1)), (2, 3, 4)),
    "aminmax": (lambda m, x: m.aminmax(x).min * 2 + m.aminmax(x).max, (3, 4)),
    "aminmax_dim": (lambda m, x: _aminmax_both(m, x, dim=-1), (3, 4)),
    "aminmax_dim_keepdim": (lambda m, x: _aminmax_both(m, x, dim=0, keepdim=True), (3, 4)),
    "aminmax_min_only": (lambda m, x: m.aminmax(x, dim=1).min, (3, 4)),
    "aminmax_max_only": (lambda m, x: m.aminmax(x, dim=1).max, (3, 4)),
    # var/std: every signature, with Bessel's correction or not
    "var": (lambda m, x: x.var(), (3, 4)),
    "var_unbiased_false": (lambda m, x: x.var(False), (3, 4)),
    "var_dim": (lambda m, x: x.var(1), (3, 4)),
    "var_neg_keepdim": (lambda m, x: x.var(-1, keepdim=True), (2, 3, 4)),
    "var_tuple": (lambda m, x: x.var((0, 2)), (2, 3, 4)),
    "var_dim_unbiased": (lambda m, x: x.var(0, unbiased=False), (3, 4)),
    "var_correction": (lambda m, x: x.var(1, correction=2), (3, 4)),
    "var_correction_all": (lambda m, x: m.var(x, correction=0), (3, 4)),
    "var_none_keepdim": (lambda m, x: m.var(x, dim=None, keepdim=True), (3, 4)),
    "var_1d": (lambda m, x: x.var(0), (5,)),
    "std": (lambda m, x: x.std(), (3, 4)),
    "std_dim": (lambda m, x: x.std(1), (3, 4)),
    "std_neg_keepdim_correction": (lambda m, x: x.std(-1, keepdim=True, correction=0), (2, 3, 4)),
    "std_tuple": (lambda m, x: x.std((0, 1), unbiased=False), (2, 3, 4)),
    "var_mean_var": (lambda m, x: m.var_mean(x, 1)[0], (3, 4)),
    "var_mean_mean": (lambda m, x: m.var_mean(x, 1)[1], (3, 4)),
    "var_mean_both": (lambda m, x: _both(m.var_mean(x, (0, 1), keepdim=True)), (2, 3, 4)),
    "var_mean_all": (lambda m, x: _both(m.var_mean(x, correction=0)), (3, 4)),
    "std_mean_std": (lambda m, x: m.std_mean(x, -1)[0], (3, 4)),
    "std_mean_both": (lambda m, x: _both(m.std_mean(x, 0, unbiased=False)), (3, 4)),
    # vector norms: every p has its own formula
    "norm": (lambda m, x: x.norm(), (3, 4)),
    "norm_fro_dim": (lambda m, x: x.norm("fro", dim=(0, 1)), (2, 3, 4)),
    "norm_p1": (lambda m, x: x.norm(1), (3, 4)),
    "norm_p2_dim": (lambda m, x: x.norm(2, 1), (3, 4)),
    "norm_p3_neg_keepdim": (lambda m, x: x.norm(3, -1, keepdim=True), (3, 4)),
    "norm_p1_5": (lambda m, x: x.norm(1.5, 0), (3, 4)),
    "norm_p0_5": (lambda m, x: x.norm(0.5), (3, 4)),
    "norm_inf": (lambda m, x: x.norm(math.inf), (3, 4)),
    "norm_inf_dim": (lambda m, x: x.norm(math.inf, 1), (3, 4)),
    "norm_neg_inf": (lambda m, x: x.norm(-math.inf, -1, keepdim=True), (3, 4)),
    "norm_neg_p": (lambda m, x: x.norm(-2, 1), (3, 4)),
    "logsumexp": (lambda m, x: x.logsumexp(1), (3, 4)),
    "logsumexp_neg_keepdim": (lambda m, x: x.logsumexp(-1, keepdim=True), (3, 4)),
    "logsumexp_tuple": (lambda m, x: x.logsumexp((0, 2)), (2, 3, 4)),
    # scans
    "cumsum": (lambda m, x: x.cumsum(1), (3, 4)),
    "cumsum_neg": (lambda m, x: x.cumsum(-3), (2, 3, 4)),
    "cumsum_0d": (lambda m, x: x.cumsum(0), ()),
    "cumsum_dtype": (lambda m, x: m.cumsum(x, 0, dtype=m.float64), (3, 4)),
    "cumprod": (lambda m, x: x.cumprod(1), (3, 4)),
    "cumprod_neg": (lambda m, x: x.cumprod(-1), (2, 3, 4)),
    "cumprod_size_1": (lambda m, x: x.cumprod(0), (1, 4)),
    "cumsum_inplace": (lambda m, x: x.clone().cumsum_(0), (3, 4)),
    "cumprod_inplace": (lambda m, x: x.clone().cumprod_(-1), (3, 4)),
    # sorting and selection: values are differentiable through their indices
    "sort": (lambda m, x: x.sort()[0], (3, 4)),
    "sort_dim_descending": (lambda m, x: x.sort(0, descending=True).values, (3, 4)),
    "sort_stable": (lambda m, x: m.sort(x, dim=-2, stable=True).values, (2, 3, 4)),
    "sort_0d": (lambda m, x: x.sort().values, ()),
    "msort": (lambda m, x: m.msort(x), (3, 4)),
    "topk": (lambda m, x: x.topk(2).values, (3, 4)),
    "topk_dim_smallest": (lambda m, x: x.topk(2, 0, largest=False)[0], (3, 4)),
    "kthvalue": (lambda m, x: x.kthvalue(2).values, (3, 4)),
    "kthvalue_dim_keepdim": (lambda m, x: x.kthvalue(3, 0, keepdim=True).values, (3, 4)),
    "kthvalue_neg": (lambda m, x: x.kthvalue(1, -2).values, (2, 3, 4)),
    "median": (lambda m, x: x.median(), (3, 4)),
    "median_dim": (lambda m, x: x.median(1).values, (3, 4)),
    "median_neg_keepdim": (lambda m, x: x.median(-1, keepdim=True).values, (2, 3, 4)),
    "nanmedian": (lambda m, x: x.nanmedian(), (3, 4)),
    "nanmedian_dim": (lambda m, x: x.nanmedian(0).values, (3, 4)),
    "mode_distinct": (lambda m, x: x.mode(1).values, (3, 4)),
}


def _both(pair):
    """Use both results of a two-output op, so both gradients flow back."""
    first, second = pair
    return first * 2 + second


def _aminmax_both(m, x, **kwargs):
    result = m.aminmax(x, **kwargs)
    return result.min * 2 + result.max


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(CASES))
def test_gradients(name, layout):
    fn, shape = CASES[name]
    check_gradients(lambda x: fn(vg, x), lambda x: fn(torch, x), [shape], layouts=[layout])


# --- double backward --------------------------------------------------------------------

GRADGRAD_CASES = [
    "sum",
    "sum_dim",
    "sum_tuple_neg_keepdim",
    "mean",
    "mean_tuple_keepdim",
    "var",
    "var_dim",
    "var_neg_keepdim",
    "std_dim",
    "norm",
    "norm_p3_neg_keepdim",
    "norm_p1_5",
    "logsumexp",
    "logsumexp_neg_keepdim",
    "cumsum",
    "cumprod",
    "prod",
    "prod_dim",
    "max_dim",
    "amax_dim",
    "sort",
]


@pytest.mark.parametrize("name", GRADGRAD_CASES)
def test_gradgradcheck(name):
    fn, shape = CASES[name]
    x, _ = leaf_pair(shape, "transposed", seed=3)
    assert vg.autograd.gradgradcheck(lambda t: fn(vg, t), [x])


def test_gradgradcheck_cumprod_and_prod_with_a_zero():
    values = np.array([[1.5, 0.0, 2.0, -1.0], [0.5, 2.0, -1.5, 1.2]])
    x = vg.tensor(values, dtype=vg.float64).requires_grad_()
    assert vg.autograd.gradgradcheck(lambda t: t.cumprod(1), [x])
    assert vg.autograd.gradgradcheck(lambda t: t.prod(1), [x])


# --- grad_fn names and saved attributes -------------------------------------------------


def _compare_saved(v_node, t_node):
    """Every ``_saved_*`` attribute torch's node exposes, vizgrad's exposes equal."""
    names = [a for a in dir(t_node) if a.startswith("_saved_")]
    assert names, "torch saved nothing: the test is wrong"
    for name in names:
        expected = getattr(t_node, name)
        actual = getattr(v_node, name)
        if isinstance(expected, torch.Tensor):
            assert_same(actual, expected, check_stride=False)
        elif isinstance(expected, tuple):
            assert tuple(actual) == expected, f"{name}: {actual} != {expected}"
        else:
            assert actual == expected, f"{name}: {actual!r} != {expected!r}"


# Non-negative dims only: PyTorch shows a saved negative dim as 2**64 - 1 (it is saved
# as unsigned), a quirk vizgrad does not copy; vizgrad saves the wrapped dim.
SAVED_CASES = {
    "sum": lambda m, x: x.sum(),
    "sum_dim": lambda m, x: x.sum(1),
    "sum_tuple_keepdim": lambda m, x: x.sum((0, 1), keepdim=True),
    "sum_dim_none": lambda m, x: m.sum(x, dim=None),
    "sum_empty_list": lambda m, x: x.sum([]),
    "mean": lambda m, x: x.mean(),
    "mean_dim": lambda m, x: x.mean(0, keepdim=True),
    "mean_dim_none": lambda m, x: m.mean(x, None),
    "nansum": lambda m, x: x.nansum(1),
    "prod": lambda m, x: x.prod(),
    "prod_dim": lambda m, x: x.prod(1, keepdim=True),
    "max": lambda m, x: x.max(),
    "min": lambda m, x: x.min(),
    "max_dim": lambda m, x: x.max(1).values,
    "min_dim_keepdim": lambda m, x: x.min(0, keepdim=True).values,
    "amax": lambda m, x: x.amax(),
    "amin_dim": lambda m, x: x.amin(1),
    "aminmax": lambda m, x: m.aminmax(x, dim=0).max,
    "std_mean": lambda m, x: m.std_mean(x, 1)[0],
    "norm_dim": lambda m, x: x.norm(3, 1),
    "norm": lambda m, x: x.norm(),
    "logsumexp": lambda m, x: x.logsumexp(1),
    "cumsum": lambda m, x: x.cumsum(1),
    "cumprod": lambda m, x: x.cumprod(0),
    "sort": lambda m, x: x.sort(1).values,
    "topk": lambda m, x: x.topk(2, 1).values,
    "kthvalue": lambda m, x: x.kthvalue(2, 0, True).values,
    "median": lambda m, x: x.median(),
    "median_dim": lambda m, x: x.median(1).values,
    "nanmedian_dim": lambda m, x: x.nanmedian(0).values,
    "mode": lambda m, x: x.mode(1).values,
}


@pytest.mark.parametrize("name", list(SAVED_CASES))
def test_saved_attributes(name):
    fn = SAVED_CASES[name]
    v, t = leaf_pair((3, 4), "transposed", seed=5)
    v_out, t_out = fn(vg, v), fn(torch, t)
    assert v_out.grad_fn.name() == type(t_out.grad_fn).__name__
    _compare_saved(v_out.grad_fn, t_out.grad_fn)


def test_var_mean_one_node_for_both_outputs():
    v, t = leaf_pair((3, 4), seed=1)
    v_var, v_mean = vg.var_mean(v, 1)
    t_var, t_mean = torch.var_mean(t, 1)
    assert v_var.grad_fn is v_mean.grad_fn
    assert v_mean.grad_fn.name() == type(t_mean.grad_fn).__name__ == "VarMeanBackward0"
    assert (v_var.grad_fn.name(), v_mean.grad_fn.name()) == ("VarMeanBackward0",) * 2


def test_nanmean_is_composite():
    """``nanmean`` records PyTorch's nodes: a division of a ``nansum``."""
    v, t = leaf_pair((3, 4), seed=1)
    v_node, t_node = v.nanmean(1).grad_fn, t.nanmean(1).grad_fn
    assert v_node.name() == type(t_node).__name__ == "DivBackward0"
    v_next = v_node.next_functions[0][0]
    assert v_next.name() == type(t_node.next_functions[0][0]).__name__ == "NansumBackward0"


def test_max_dim_indices_do_not_require_grad():
    v, t = leaf_pair((3, 4), seed=1)
    v_result, t_result = v.max(1), t.max(1)
    assert v_result.values.requires_grad == t_result.values.requires_grad is True
    assert v_result.indices.requires_grad == t_result.indices.requires_grad is False
    assert v_result.indices.grad_fn is None


# --- ties, zeros and nans ---------------------------------------------------------------

TIES = np.array([[3.0, 1.0, 3.0, 2.0], [0.5, 0.5, -1.0, 0.5], [2.0, 2.0, 2.0, 2.0]])


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: x.max(),
        lambda m, x: x.min(),
        lambda m, x: x.amax(1),
        lambda m, x: x.amax((0, 1)),
        lambda m, x: x.amin(0, keepdim=True),
        lambda m, x: m.aminmax(x, dim=1).max,
        lambda m, x: x.norm(math.inf, 1),
        lambda m, x: x.median(),
        lambda m, x: x.nanmedian(),
        lambda m, x: x.max(1).values,
        lambda m, x: x.sort(1).values,
        lambda m, x: x.mode(1).values,
        lambda m, x: x.mode(0, keepdim=True).values,
        lambda m, x: x.median(1).values,
    ],
)
def test_ties_share_or_pick_as_torch(fn):
    """Full max/min/median and amax/amin split the gradient evenly among tied elements;
    ``max(dim)``/``sort``/``mode`` give it to the index they returned."""
    v = vg.tensor(TIES, dtype=vg.float64).requires_grad_()
    t = torch.tensor(TIES, dtype=torch.float64, requires_grad=True)
    v_out, t_out = fn(vg, v), fn(torch, t)
    assert v_out.grad_fn.name() == type(t_out.grad_fn).__name__
    upstream = np.arange(1.0, 1.0 + t_out.numel()).reshape(tuple(t_out.shape))
    v_out.backward(vg.tensor(upstream, dtype=vg.float64))
    t_out.backward(torch.tensor(upstream, dtype=torch.float64))
    assert_same(v.grad, t.grad)


ZEROS = np.array(
    [[1.5, 0.0, 2.0, -1.0, 0.0], [0.5, 2.0, -1.5, 1.2, 3.0], [0.0, 2.0, 1.0, 4.0, 0.5]]
)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.prod(),
        lambda x: x.prod(1),
        lambda x: x.prod(0, keepdim=True),
        lambda x: x.cumprod(1),
        lambda x: x.cumprod(0),
        lambda x: x.clone().cumprod_(1),
        lambda x: x.norm(0.5, 1),
        lambda x: x.norm(1),
    ],
)
def test_zeros_in_products_and_norms(fn):
    """A zero factor: the gradient is the product of the others, not ``result / x``."""
    v = vg.tensor(ZEROS, dtype=vg.float64).requires_grad_()
    t = torch.tensor(ZEROS, dtype=torch.float64, requires_grad=True)
    v_out, t_out = fn(v), fn(t)
    upstream = np.linspace(-1.0, 2.0, t_out.numel()).reshape(tuple(t_out.shape))
    v_out.backward(vg.tensor(upstream, dtype=vg.float64))
    t_out.backward(torch.tensor(upstream, dtype=torch.float64))
    assert_same(v.grad, t.grad)


def test_prod_with_zeros_gradcheck():
    x = vg.tensor(ZEROS, dtype=vg.float64).requires_grad_()
    assert vg.autograd.gradcheck(lambda t: t.cumprod(1), [x])
    assert vg.autograd.gradcheck(lambda t: t.prod(), [x])
    assert vg.autograd.gradcheck(lambda t: t.prod(0), [x])


def test_zero_norm_and_zero_std_give_zero_gradient():
    values = np.zeros((2, 3))
    for fn in (lambda x: x.norm(), lambda x: x.norm(3, 1), lambda x: x.std(1)):
        v = vg.tensor(values, dtype=vg.float64).requires_grad_()
        t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        fn(v).sum().backward()
        fn(t).sum().backward()
        assert_same(v.grad, t.grad)


NANS = np.array([[1.0, np.nan, 2.0, -1.0], [np.nan, np.nan, 0.5, 3.0], [0.25, 2.0, 1.0, 4.0]])


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.nansum(),
        lambda x: x.nansum(1),
        lambda x: x.nanmean(),
        lambda x: x.nanmean(0),
        lambda x: x.nanmedian(),
        lambda x: x.nanmedian(1).values,
        lambda x: x.max(),
        lambda x: x.median(),
        lambda x: x.norm(math.inf),
    ],
)
def test_nans(fn):
    v = vg.tensor(NANS, dtype=vg.float64).requires_grad_()
    t = torch.tensor(NANS, dtype=torch.float64, requires_grad=True)
    v_out, t_out = fn(v), fn(t)
    assert v_out.grad_fn.name() == type(t_out.grad_fn).__name__
    v_out.sum().backward()
    t_out.sum().backward()
    assert_same(v.grad, t.grad)


def test_norm_p0_has_no_gradient():
    v, t = leaf_pair((3, 4), seed=2)
    v.norm(0).backward()
    t.norm(0).backward()
    assert t.grad is None and v.grad is None


@pytest.mark.parametrize("correction", [4, 5])
def test_var_with_no_degrees_of_freedom(correction):
    """N - correction <= 0: PyTorch's gradient is inf, or nan where x equals the mean."""
    values = np.array([1.0, 2.0, 2.0, 3.0])
    v = vg.tensor(values, dtype=vg.float64).requires_grad_()
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    with pytest.warns(UserWarning):
        v_out = v.var(correction=correction)
    with pytest.warns(UserWarning):
        t_out = t.var(correction=correction)
    v_out.backward()
    t_out.backward()
    assert_same(v.grad, t.grad)


def test_unused_output_of_a_two_output_op_brings_zeros():
    v, t = leaf_pair((3, 4), seed=4)
    vg.var_mean(v, 0)[1].sum().backward()
    torch.var_mean(t, 0)[1].sum().backward()
    assert_same(v.grad, t.grad)
    v, t = leaf_pair((3, 4), seed=4)
    vg.aminmax(v).max.backward()
    torch.aminmax(t).max.backward()
    assert_same(v.grad, t.grad)


# --- non-differentiable outputs ---------------------------------------------------------

NON_DIFFERENTIABLE = {
    "argmax": lambda m, x: x.argmax(),
    "argmax_dim": lambda m, x: x.argmax(1, keepdim=True),
    "argmin": lambda m, x: x.argmin(0),
    "argsort": lambda m, x: x.argsort(1),
    "argsort_stable": lambda m, x: m.argsort(x, stable=True),
    "all": lambda m, x: x.all(),
    "any_dim": lambda m, x: x.any(1),
    "count_nonzero": lambda m, x: m.count_nonzero(x),
    "count_nonzero_dim": lambda m, x: m.count_nonzero(x, 0),
    "max_indices": lambda m, x: x.max(1).indices,
    "sort_indices": lambda m, x: x.sort().indices,
    "unique_inverse": lambda m, x: m.unique(x, return_inverse=True)[1],
}


@pytest.mark.parametrize("name", list(NON_DIFFERENTIABLE))
def test_outputs_that_do_not_require_grad(name):
    fn = NON_DIFFERENTIABLE[name]
    v, t = leaf_pair((3, 4), seed=1)
    v_out, t_out = fn(vg, v), fn(torch, t)
    assert v_out.requires_grad == t_out.requires_grad is False
    assert v_out.grad_fn is None


@pytest.mark.parametrize(
    ("fn", "node"),
    [
        (lambda m, x: m.unique(x), "Unique2Backward0"),
        (lambda m, x: m.unique(x, dim=0), "UniqueDimBackward0"),
        (lambda m, x: m.unique_consecutive(x), "UniqueConsecutiveBackward0"),
    ],
)
def test_unique_records_a_node_without_a_formula(fn, node):
    """PyTorch's ``unique`` values require grad; backward through them raises."""
    v, t = leaf_pair((3, 4), seed=1)
    v_out, t_out = fn(vg, v), fn(torch, t)
    assert v_out.requires_grad == t_out.requires_grad is True
    assert v_out.grad_fn.name() == type(t_out.grad_fn).__name__ == node
    assert_same_error(lambda: v_out.sum().backward(), lambda: t_out.sum().backward())


# --- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: m.sum(x, 1, out=m.empty(3, dtype=m.float64)),
        lambda m, x: m.mean(x, 0, out=m.empty(4, dtype=m.float64)),
        lambda m, x: m.nanmean(x, 0, out=m.empty(4, dtype=m.float64)),
        lambda m, x: m.cumsum(x, 0, out=m.empty(3, 4, dtype=m.float64)),
        lambda m, x: m.logsumexp(x, 0, out=m.empty(4, dtype=m.float64)),
    ],
)
def test_out_with_requires_grad_raises(fn):
    v, t = leaf_pair((3, 4), seed=1)
    assert_same_error(lambda: fn(vg, v), lambda: fn(torch, t))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.prod(1),
        lambda x: x.max(),
        lambda x: x.cumprod(0),
        lambda x: x.var(1),
        lambda x: x.norm(),
        lambda x: x.logsumexp(0),
    ],
)
def test_saved_input_modified_in_place(fn):
    """The formula needs the input (or result): an in-place change before backward is
    caught, with PyTorch's error."""

    def run(m):
        v, t = leaf_pair((3, 4), seed=1)
        y = (v if m is vg else t) * 1
        out = fn(y)
        y.add_(1)
        out.sum().backward()

    assert_same_error(lambda: run(vg), lambda: run(torch))


def test_sum_without_dim_takes_no_keepdim():
    v, t = leaf_pair((3, 4), seed=1)
    assert_same_error(lambda: vg.sum(v, keepdim=True), lambda: torch.sum(t, keepdim=True),
                      match_message=False)  # fmt: skip
    assert_same_error(lambda: vg.prod(v, None), lambda: torch.prod(t, None),
                      match_message=False)  # fmt: skip

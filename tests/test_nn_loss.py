"""Loss functions (``vizgrad.nn.functional``'s losses and the ATen operators under them)
against PyTorch: values, dtypes, shapes, ``grad_fn`` names, gradients of the input and
of the target, finite differences of the new derivatives, warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from oracle import _warned, assert_same, assert_same_error, assert_same_outcome

import vizgrad as vg
import vizgrad.nn.functional as F
from vizgrad import events
from vizgrad.ops import loss as loss_ops
from vizgrad.ops.registry import OPERATORS

REDUCTIONS = ["none", "mean", "sum"]


def arrays_to_both(arrays, grad=(), layouts=None):
    """The same values as vizgrad and torch tensors; those indexed in ``grad`` are leaves
    requiring grad. A ``layouts`` entry "transposed" stores that array transposed (a
    non-contiguous tensor of the same values)."""
    vs, ts = [], []
    for i, a in enumerate(arrays):
        a = np.asarray(a)
        if layouts and layouts[i] == "transposed" and a.ndim >= 2:
            v = vg.from_numpy(np.ascontiguousarray(a.swapaxes(-1, -2))).transpose(-1, -2)
            t = torch.from_numpy(np.ascontiguousarray(a.swapaxes(-1, -2))).transpose(-1, -2)
        else:
            v, t = vg.from_numpy(a.copy()), torch.from_numpy(a.copy())
        if i in grad:
            v = v.detach().requires_grad_()
            t = t.detach().requires_grad_()
        vs.append(v)
        ts.append(t)
    return vs, ts


def compare(vg_call, torch_call, arrays, grad=(0,), layouts=None, atol=None, seed=0,
            node=None):  # fmt: skip
    """Forward and backward in both libraries; values, dtype, shape, node and gradients.

    ``node`` maps torch's node name to the one vizgrad records where they knowingly
    differ: a C++ composite dividing by a number records ``DivBackward1`` (``div.Scalar``),
    an overload vizgrad does not declare, so its division by a number is ``DivBackward0``.
    """
    vs, ts = arrays_to_both(arrays, grad, layouts)
    v, t = vg_call(*vs), torch_call(*ts)
    assert_same(v, t, check_stride=False, atol=atol, rtol=atol)
    if t.grad_fn is None:
        assert v.grad_fn is None
        return v, t
    expected = (node or {}).get(t.grad_fn.name(), t.grad_fn.name())
    assert v.grad_fn is not None and v.grad_fn.name() == expected, (
        f"{v.grad_fn and v.grad_fn.name()} != {expected}"
    )
    upstream = np.random.default_rng(seed).standard_normal(tuple(t.shape))
    t.backward(torch.tensor(upstream, dtype=t.dtype))
    v.backward(vg.tensor(upstream, dtype=v.dtype))
    for i in grad:
        assert_same(vs[i].grad, ts[i].grad, check_stride=False, atol=atol, rtol=atol)
    return v, t


def rand(shape, seed=0, low=-2.0, high=2.0, dtype="float64"):
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(dtype)


def classes(shape, n_classes, seed=0):
    return np.random.default_rng(seed).integers(0, n_classes, size=shape).astype(np.int64)


def signs(shape, seed=0, dtype="float64"):
    return np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0).astype(dtype)


def gradcheck(fn, arrays, grad=(0,)):
    vs, _ = arrays_to_both(arrays, grad)
    assert vg.autograd.gradcheck(fn, tuple(vs))


# --- regression losses -------------------------------------------------------------------

PAIRWISE = [
    ("mse_loss", {}),
    ("l1_loss", {}),
    ("smooth_l1_loss", {}),
    ("smooth_l1_loss", {"beta": 0.5}),
    ("smooth_l1_loss", {"beta": 0.0}),
    ("huber_loss", {}),
    ("huber_loss", {"delta": 0.7}),
    ("soft_margin_loss", {}),
]


@pytest.mark.parametrize("shape", [(3, 4), (), (5,), (2, 3, 2), (0, 3)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("name", "options"), PAIRWISE)
def test_pairwise_losses_match_torch(name, options, reduction, shape):
    target = signs(shape, 2) if name == "soft_margin_loss" else rand(shape, 2)
    grad = (0,) if name == "soft_margin_loss" else (0, 1)
    compare(lambda a, b: getattr(F, name)(a, b, reduction=reduction, **options),
            lambda a, b: getattr(TF, name)(a, b, reduction=reduction, **options),
            [rand(shape, 1), target], grad=grad)  # fmt: skip


@pytest.mark.parametrize(("name", "options"), PAIRWISE)
def test_pairwise_losses_on_non_contiguous_float32(name, options):
    target = signs((4, 3), 2, "float32") if name == "soft_margin_loss" else rand((4, 3), 2,
                                                                                 dtype="float32")  # fmt: skip
    compare(lambda a, b: getattr(F, name)(a, b, **options),
            lambda a, b: getattr(TF, name)(a, b, **options),
            [rand((4, 3), 1, dtype="float32"), target], layouts=["transposed", "transposed"])  # fmt: skip


@pytest.mark.parametrize(
    ("name", "node"),
    [("mse_loss", "MseLossBackward0"), ("smooth_l1_loss", "SmoothL1LossBackward0"),
     ("huber_loss", "HuberLossBackward0"), ("soft_margin_loss", "SoftMarginLossBackward0"),
     ("l1_loss", "MeanBackward0")],
)  # fmt: skip
def test_pairwise_loss_nodes(name, node):
    v, _ = compare(getattr(F, name), getattr(TF, name), [rand((2, 3), 1), signs((2, 3), 2)])
    assert v.grad_fn.name() == node


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss"])
def test_pairwise_loss_derivatives_by_finite_differences(name, reduction):
    # Differences away from the kinks at ±beta / ±delta.
    a, b = rand((3, 4), 1), rand((3, 4), 2)
    gradcheck(lambda x, y: getattr(F, name)(x, y, reduction=reduction), [a, b], grad=(0, 1))
    gradcheck(lambda x, y: getattr(F, name)(x, y, reduction=reduction), [a, b], grad=(1,))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_derivative_by_finite_differences(reduction):
    gradcheck(lambda x, y: F.soft_margin_loss(x, y, reduction=reduction),
              [rand((3, 4), 1), signs((3, 4), 2)])  # fmt: skip


def test_pairwise_losses_second_derivative():
    # The formulas are written with vizgrad operators, so they differentiate again.
    vs, ts = arrays_to_both([rand((3,), 1), rand((3,), 2)], grad=(0, 1))
    for name in ("mse_loss", "smooth_l1_loss", "huber_loss"):
        (gv,) = vg.autograd.grad(getattr(F, name)(*vs, reduction="sum"), vs[0], create_graph=True)
        (gt,) = torch.autograd.grad(getattr(TF, name)(*ts, reduction="sum"), ts[0],
                                    create_graph=True)  # fmt: skip
        assert_same(vg.autograd.grad(gv.sum(), vs[1])[0], torch.autograd.grad(gt.sum(), ts[1])[0])


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_target_size_warning_and_broadcast(name):
    vs, ts = arrays_to_both([rand((3, 1), 1), rand((4,), 2)])
    got, got_warnings = _warned(lambda: getattr(F, name)(*vs, reduction="none"))
    expected, expected_warnings = _warned(lambda: getattr(TF, name)(*ts, reduction="none"))
    assert_same(got, expected, check_stride=False)
    assert got_warnings == [(c, m.replace("torch.", "vizgrad.")) for c, m in expected_warnings]
    assert "Using a target size (vizgrad.Size([4])) that is different to the input size " \
           "(vizgrad.Size([3, 1]))" in got_warnings[0][1]  # fmt: skip


@pytest.mark.parametrize(
    ("dtypes", "name"),
    [(d, n) for d in [("float32", "float64"), ("float64", "float32"), ("float32", "int64"),
                      ("float16", "float16"), ("int64", "int64"), ("bool", "bool")]
     for n in ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss"]],
)  # fmt: skip
def test_pairwise_loss_dtypes(dtypes, name):
    a = (rand((2, 3), 1) * 2).astype(dtypes[0])
    b = (rand((2, 3), 2) * 2).astype(dtypes[1])
    vs, ts = arrays_to_both([a, b])
    assert_same_outcome(lambda: getattr(F, name)(*vs), lambda: getattr(TF, name)(*ts))


@pytest.mark.parametrize(
    ("name", "options"),
    [("smooth_l1_loss", {"beta": -1.0}), ("huber_loss", {"delta": 0.0}),
     ("huber_loss", {"delta": -2.0}), ("mse_loss", {"reduction": "avg"}),
     ("l1_loss", {"reduction": "avg"})],
)  # fmt: skip
def test_pairwise_loss_option_errors(name, options):
    vs, ts = arrays_to_both([rand((3,), 1), rand((3,), 2)])
    assert_same_error(lambda: getattr(F, name)(*vs, **options),
                      lambda: getattr(TF, name)(*ts, **options))  # fmt: skip


def test_pairwise_shape_mismatch_error():
    vs, ts = arrays_to_both([rand((3,), 1), rand((4,), 2)])
    for name in ("mse_loss", "l1_loss", "huber_loss"):
        assert_same_error(lambda n=name: getattr(F, n)(*vs), lambda n=name: getattr(TF, n)(*ts))


def test_soft_margin_refuses_a_target_requiring_grad():
    vs, ts = arrays_to_both([rand((3,), 1), signs((3,), 2)], grad=(0, 1))
    assert_same_error(lambda: F.soft_margin_loss(*vs), lambda: TF.soft_margin_loss(*ts))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_weighted_regression_losses(name, reduction):
    compare(lambda a, b, w: getattr(F, name)(a, b, reduction=reduction, weight=w),
            lambda a, b, w: getattr(TF, name)(a, b, reduction=reduction, weight=w),
            [rand((3, 4), 1), rand((3, 4), 2), rand((3, 4), 3, 0.1, 1.0)], grad=(0, 1, 2))  # fmt: skip
    vs, ts = arrays_to_both([rand((3, 4), 1), rand((3, 4), 2), rand((4,), 3)])
    assert_same_error(lambda: getattr(F, name)(vs[0], vs[1], weight=vs[2]),
                      lambda: getattr(TF, name)(ts[0], ts[1], weight=ts[2]))  # fmt: skip


@pytest.mark.parametrize(
    ("size_average", "reduce"),
    [(None, False), (False, None), (True, True), (False, True), (True, False), (None, True)],
)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "soft_margin_loss"])
def test_legacy_size_average_and_reduce(name, size_average, reduce):
    vs, ts = arrays_to_both([rand((2, 3), 1), signs((2, 3), 2)])
    assert_same_outcome(
        lambda: getattr(F, name)(*vs, size_average=size_average, reduce=reduce),
        lambda: getattr(TF, name)(*ts, size_average=size_average, reduce=reduce),
        compare_warnings=True,
    )


def test_elementwise_mean_is_deprecated_mean():
    vs, ts = arrays_to_both([rand((2, 3), 1), rand((2, 3), 2)])
    assert_same_outcome(lambda: F.mse_loss(*vs, reduction="elementwise_mean"),
                        lambda: TF.mse_loss(*ts, reduction="elementwise_mean"),
                        compare_warnings=True)  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("log_input", "full"), [(True, False), (False, False), (True, True),
                                                 (False, True)])  # fmt: skip
def test_poisson_nll_loss(log_input, full, reduction):
    low = -1.0 if log_input else 0.1
    compare(lambda a, b: F.poisson_nll_loss(a, b, log_input=log_input, full=full,
                                            reduction=reduction),
            lambda a, b: TF.poisson_nll_loss(a, b, log_input=log_input, full=full,
                                             reduction=reduction),
            [rand((3, 4), 1, low, 2.0), rand((3, 4), 2, 0.0, 4.0)], grad=(0, 1))  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(4, 3), (4,), (4, 1)])
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll_loss(var_shape, full, reduction):
    compare(lambda a, b, v: F.gaussian_nll_loss(a, b, v, full=full, reduction=reduction),
            lambda a, b, v: TF.gaussian_nll_loss(a, b, v, full=full, reduction=reduction),
            [rand((4, 3), 1), rand((4, 3), 2), rand(var_shape, 3, 0.0, 2.0)], grad=(0, 1, 2))  # fmt: skip


def test_gaussian_nll_loss_errors():
    vs, ts = arrays_to_both([rand((4, 3), 1), rand((4, 3), 2), rand((2, 2), 3, 0.1, 1.0),
                             -rand((4, 3), 4, 0.1, 1.0)])  # fmt: skip
    assert_same_error(lambda: F.gaussian_nll_loss(vs[0], vs[1], vs[2]),
                      lambda: TF.gaussian_nll_loss(ts[0], ts[1], ts[2]))  # fmt: skip
    assert_same_error(lambda: F.gaussian_nll_loss(vs[0], vs[1], vs[3]),
                      lambda: TF.gaussian_nll_loss(ts[0], ts[1], ts[3]))  # fmt: skip
    assert_same_error(lambda: F.gaussian_nll_loss(vs[0], vs[1], -1.0),
                      lambda: TF.gaussian_nll_loss(ts[0], ts[1], -1.0))  # fmt: skip
    assert_same_error(lambda: F.gaussian_nll_loss(vs[0], vs[1], 1.0, reduction="x"),
                      lambda: TF.gaussian_nll_loss(ts[0], ts[1], 1.0, reduction="x"))  # fmt: skip


# --- nll_loss and cross_entropy ---------------------------------------------------------

# (input shape, target shape): 2-D, 1-D (one sample), 3-D and 4-D and 5-D (K-dim), empty.
NLL_SHAPES = [((4, 5), (4,)), ((5,), ()), ((3, 4, 2), (3, 2)), ((2, 3, 4, 2), (2, 4, 2)),
              ((2, 3, 2, 2, 3), (2, 2, 2, 3)), ((0, 4), (0,)), ((0, 3, 2), (0, 2))]  # fmt: skip
NLL_OPTIONS = [{}, {"ignore_index": 1}, {"weight": True}, {"weight": True, "ignore_index": 0}]


def _nll_call(fn, options, n_classes):
    weights = rand((n_classes,), 9, 0.2, 2.0)

    def call(x, t, lib):
        kwargs = dict(options)
        if kwargs.pop("weight", False):
            kwargs["weight"] = (vg.from_numpy if lib == "vg" else torch.from_numpy)(weights.copy())
        return fn(x, t, **kwargs)

    return call


@pytest.mark.parametrize("options", NLL_OPTIONS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("shape", "target_shape"), NLL_SHAPES)
def test_nll_loss_matches_torch(shape, target_shape, reduction, options):
    n_classes = shape[1] if len(shape) > 1 else shape[0]
    options = {**options, "reduction": reduction}
    v_call, t_call = _nll_call(F.nll_loss, options, n_classes), _nll_call(TF.nll_loss, options,
                                                                         n_classes)  # fmt: skip
    compare(lambda x, t: v_call(x, t, "vg"), lambda x, t: t_call(x, t, "torch"),
            [rand(shape, 1, -3.0, 0.0), classes(target_shape, n_classes, 2)])  # fmt: skip


@pytest.mark.parametrize("options", NLL_OPTIONS + [{"label_smoothing": 0.2},
                                                   {"label_smoothing": 0.1, "weight": True,
                                                    "ignore_index": 2}])  # fmt: skip
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("shape", "target_shape"), NLL_SHAPES)
def test_cross_entropy_with_class_indices(shape, target_shape, reduction, options):
    n_classes = shape[1] if len(shape) > 1 else shape[0]
    options = {**options, "reduction": reduction}
    v_call = _nll_call(F.cross_entropy, options, n_classes)
    t_call = _nll_call(TF.cross_entropy, options, n_classes)
    compare(lambda x, t: v_call(x, t, "vg"), lambda x, t: t_call(x, t, "torch"),
            [rand(shape, 1), classes(target_shape, n_classes, 2)])  # fmt: skip


@pytest.mark.parametrize("options", [{}, {"weight": True}, {"label_smoothing": 0.3},
                                     {"weight": True, "label_smoothing": 0.1}])  # fmt: skip
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(4, 5), (5,), (2, 3, 4), (0, 3)])
def test_cross_entropy_with_class_probabilities(shape, reduction, options):
    n_classes = shape[1] if len(shape) > 1 else shape[0]
    class_dim = 1 if len(shape) > 1 else 0
    probabilities = np.exp(rand(shape, 2))
    probabilities /= probabilities.sum(axis=class_dim, keepdims=True)
    options = {**options, "reduction": reduction}
    v_call = _nll_call(F.cross_entropy, options, n_classes)
    t_call = _nll_call(TF.cross_entropy, options, n_classes)
    compare(lambda x, t: v_call(x, t, "vg"), lambda x, t: t_call(x, t, "torch"),
            [rand(shape, 1), probabilities], grad=(0, 1),
            node={"DivBackward1": "DivBackward0"})  # fmt: skip


def test_cross_entropy_records_log_softmax_then_nll_loss():
    vs, _ = arrays_to_both([rand((3, 4), 1), classes((3,), 4, 2)], grad=(0,))
    loss = F.cross_entropy(*vs)
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"
    vs, _ = arrays_to_both([rand((2, 3, 4, 5), 1), classes((2, 4, 5), 3, 2)], grad=(0,))
    assert F.cross_entropy(*vs).grad_fn.name() == "NllLoss2DBackward0"


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_nll_loss_dtypes_and_byte_target(dtype):
    compare(lambda x, t: F.cross_entropy(x, t), lambda x, t: TF.cross_entropy(x, t),
            [rand((4, 5), 1, dtype=dtype), classes((4,), 5, 2).astype(np.uint8)],
            atol=2e-3 if dtype == "float16" else None)  # fmt: skip


def test_nll_loss_non_contiguous_input():
    compare(lambda x, t: F.nll_loss(x, t), lambda x, t: TF.nll_loss(x, t),
            [rand((4, 5), 1), classes((4,), 5, 2)], layouts=["transposed", None])  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("shape", "target_shape"), [((4, 5), (4,)), ((2, 3, 2, 2), (2, 2, 2)),
                                                     ((5,), ())])  # fmt: skip
def test_nll_loss_derivative_by_finite_differences(shape, target_shape, reduction):
    n_classes = shape[1] if len(shape) > 1 else shape[0]
    weight = vg.from_numpy(rand((n_classes,), 5, 0.2, 2.0))
    gradcheck(lambda x, t: F.nll_loss(x, t, weight=weight, ignore_index=0, reduction=reduction),
              [rand(shape, 1), classes(target_shape, n_classes, 2)])  # fmt: skip


def test_all_targets_ignored_is_nan_like_torch():
    compare(lambda x, t: F.nll_loss(x, t), lambda x, t: TF.nll_loss(x, t),
            [rand((3, 4), 1), np.full((3,), -100)])  # fmt: skip


# --- nll_loss_backward and nll_loss2d_backward: NllLossBackward0's operators --------------

# (input shape, target shape, backward operator): 2-D, 1-D with a 0-dim target, an empty
# batch, and images (nll_loss2d).
NLL_BACKWARD_SHAPES = [((4, 5), (4,), "nll_loss_backward"), ((5,), (), "nll_loss_backward"),
                       ((0, 3), (0,), "nll_loss_backward"),
                       ((2, 3, 2, 4), (2, 2, 4), "nll_loss2d_backward")]  # fmt: skip


def _nll_backward_arguments(shape, target_shape, operator, reduction, options, layout):
    """The same call of the backward operator for both libraries, its ``total_weight``
    taken from torch's forward; ``grad_output`` is the shape of the forward's loss."""
    n_classes = shape[1] if len(shape) > 1 else shape[0]
    weight = rand((n_classes,), 9, 0.2, 2.0) if options.get("weight") else None
    ignore_index = options.get("ignore_index", -100)
    x, target = rand(shape, 1, -3.0, 0.0), classes(target_shape, n_classes, 2)
    forward = getattr(torch.ops.aten, operator.replace("backward", "forward"))
    reduction = REDUCTIONS.index(reduction)
    t_weight = torch.from_numpy(weight) if weight is not None else None
    loss, total_weight = forward(torch.from_numpy(x), torch.from_numpy(target), t_weight,
                                 reduction, ignore_index)  # fmt: skip
    arrays = [rand(tuple(loss.shape), 3), x, target] + ([weight] if weight is not None else [])
    vs, ts = arrays_to_both(arrays, layouts=[layout, layout, None, None])
    tail = (reduction, ignore_index)
    v_args = (
        *vs[:3],
        vs[3] if weight is not None else None,
        *tail,
        vg.from_numpy(total_weight.numpy().copy()),
    )
    t_args = (*ts[:3], ts[3] if weight is not None else None, *tail, total_weight)
    return v_args, t_args


@pytest.mark.parametrize("layout", [None, "transposed"])
@pytest.mark.parametrize("options", NLL_OPTIONS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("shape", "target_shape", "operator"), NLL_BACKWARD_SHAPES)
def test_nll_loss_backward_is_torchs(shape, target_shape, operator, reduction, options, layout):
    v_args, t_args = _nll_backward_arguments(shape, target_shape, operator, reduction, options,
                                             layout)  # fmt: skip
    # (A transposed image batch is refused by nll_loss2d_backward: its gradient would not
    # be contiguous.)
    assert_same_outcome(lambda: getattr(loss_ops, operator)(*v_args),
                        lambda: getattr(torch.ops.aten, operator)(*t_args))  # fmt: skip


def test_nll_loss_backward_divides_the_gradient_before_weighing_it_as_torch():
    # ``-(grad / total_weight) * w`` rounds differently from ``-w / total_weight * grad``.
    v_args, t_args = _nll_backward_arguments((64, 7), (64,), "nll_loss_backward", "mean",
                                             {"weight": True}, None)  # fmt: skip
    v_args = (
        vg.tensor(0.3, dtype=vg.float32),
        v_args[1].float(),
        v_args[2],
        v_args[3].float(),
        *v_args[4:6],
        vg.tensor(3.7, dtype=vg.float32),
    )
    t_args = (
        torch.tensor(0.3),
        t_args[1].float(),
        t_args[2],
        t_args[3].float(),
        *t_args[4:6],
        torch.tensor(3.7),
    )
    vg_result = loss_ops.nll_loss_backward(*v_args)
    torch_result = torch.ops.aten.nll_loss_backward(*t_args)
    assert np.array_equal(vg_result.numpy(), torch_result.numpy())


NLL_BACKWARD_ERRORS = [
    # (case, operator, grad_output shape, input shape, target, reduction, total_weight shape)
    ("per-sample grad_output size", "nll_loss_backward", (2,), (3, 4), [0, 1, 2], 0, ()),
    ("per-sample grad_output dims", "nll_loss_backward", (3, 1), (3, 4), [0, 1, 2], 0, ()),
    ("per-sample 0-dim grad_output", "nll_loss_backward", (), (3, 4), [0, 1, 2], 0, ()),
    ("reduced grad_output", "nll_loss_backward", (2,), (3, 4), [0, 1, 2], 1, ()),
    ("total_weight", "nll_loss_backward", (), (3, 4), [0, 1, 2], 1, (2,)),
    ("3-D input", "nll_loss_backward", (), (3, 4, 2), [0, 1, 2], 1, ()),
    ("batch size", "nll_loss_backward", (), (3, 4), [0, 1], 1, ()),
    ("out of bounds", "nll_loss_backward", (), (3, 4), [0, 4, 2], 1, ()),
    ("integer input", "nll_loss_backward", (), (3, 4), [0, 1, 2], 1, ()),
    ("double grad_output", "nll_loss_backward", (), (3, 4), [0, 1, 2], 1, ()),
    ("2d grad_output dims", "nll_loss2d_backward", (2, 2), (2, 3, 2, 2), None, 0, ()),
    ("2d grad_output size", "nll_loss2d_backward", (2, 2, 3), (2, 3, 2, 2), None, 0, ()),
    ("2d total_weight", "nll_loss2d_backward", (), (2, 3, 2, 2), None, 1, (2,)),
    ("2d 2-D input", "nll_loss2d_backward", (), (2, 3), [0, 1], 1, ()),
    ("double weight", "nll_loss_backward", (3,), (3, 4), [0, 1, 2], 0, ()),
    ("2d double weight", "nll_loss2d_backward", (), (2, 3, 2, 2), None, 1, ()),
]


@pytest.mark.parametrize(("case", "operator", "grad_shape", "shape", "target", "reduction",
                          "weight_shape"), NLL_BACKWARD_ERRORS,
                         ids=[c[0] for c in NLL_BACKWARD_ERRORS])  # fmt: skip
def test_nll_loss_backward_errors_are_torchs(case, operator, grad_shape, shape, target, reduction,
                                             weight_shape):  # fmt: skip
    input_dtype = "int64" if case == "integer input" else "float32"
    grad_dtype = "float64" if case == "double grad_output" else input_dtype
    target = np.zeros((2, 2, 2), np.int64) if target is None else np.array(target)
    arrays = [rand(grad_shape, 3, dtype=grad_dtype), rand(shape, 1, dtype=input_dtype), target,
              np.ones(weight_shape, input_dtype), np.ones(shape[1], "float64")]  # fmt: skip
    vs, ts = arrays_to_both(arrays)
    # A class weight of another dtype than the input's (its kernel reads it as the input's).
    v_weight, t_weight = (vs[4], ts[4]) if "double weight" in case else (None, None)
    assert_same_error(
        lambda: getattr(loss_ops, operator)(vs[0], vs[1], vs[2], v_weight, reduction, -100,
                                            vs[3]),
        lambda: getattr(torch.ops.aten, operator)(ts[0], ts[1], ts[2], t_weight, reduction, -100,
                                                  ts[3]),
    )  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("shape", "target_shape"), [((4, 5), (4,)), ((2, 3, 2, 2), (2, 2, 2))])
def test_nll_loss_backward_runs_its_operator_and_differentiates_again(shape, target_shape,
                                                                      reduction):  # fmt: skip
    """``NllLossBackward0`` calls PyTorch's one operator; with create_graph its result
    hangs off ``NllLossBackwardBackward0``, whose gradients (the loss of the incoming
    gradient for ``grad_output``, zero for the input) are torch's."""
    n_classes = shape[1]
    weight = rand((n_classes,), 5, 0.2, 2.0)
    (x, target, w), (tx, t_target, tw) = arrays_to_both(
        [rand(shape, 1), classes(target_shape, n_classes, 2), weight], grad=(0,)
    )
    v_loss = F.nll_loss(x, target, weight=w, ignore_index=0, reduction=reduction)
    t_loss = TF.nll_loss(tx, t_target, weight=tw, ignore_index=0, reduction=reduction)
    upstream = rand(tuple(t_loss.shape), 4)
    v_up = vg.from_numpy(upstream.copy()).requires_grad_()
    t_up = torch.from_numpy(upstream.copy()).requires_grad_()
    with events.Recorder() as rec:
        (v_grad,) = vg.autograd.grad(v_loss, x, v_up, create_graph=True)
    (t_grad,) = torch.autograd.grad(t_loss, tx, t_up, create_graph=True)
    name = "aten::nll_loss_backward" if len(shape) == 2 else "aten::nll_loss2d_backward"
    called = [e.op for e in rec.events if e.kind == "op_dispatched" and e.key == "AutogradCPU"]
    assert name in called and "aten::mul.Tensor" not in called
    assert_same(v_grad, t_grad)
    assert v_grad.grad_fn.name() == t_grad.grad_fn.name()
    second = rand(shape, 6)
    v_second = vg.autograd.grad(v_grad, (x, v_up), vg.from_numpy(second.copy()), allow_unused=True)
    t_second = torch.autograd.grad(t_grad, (tx, t_up), torch.from_numpy(second.copy()),
                                   allow_unused=True)  # fmt: skip
    for v, t in zip(v_second, t_second, strict=True):
        assert (v is None) == (t is None)
        if t is not None:
            assert_same(v, t)
    assert vg.autograd.gradgradcheck(
        lambda a: F.nll_loss(a, target, weight=w, ignore_index=0, reduction=reduction), (x,)
    )


NLL_ERRORS = [
    ("out of bounds", (3, 5), np.array([1, 5, 3]), {}),
    ("out of bounds none", (3, 5), np.array([1, 5, 3]), {"reduction": "none"}),
    ("negative", (3, 5), np.array([1, -1, 3]), {}),
    ("batch size", (3, 5), np.array([1, 2]), {}),
    ("float target", (3, 5), np.array([1.0, 2.0, 3.0]), {}),
    ("int32 target", (3, 5), np.array([1, 2, 3], dtype=np.int32), {}),
    ("0-dim input", (), np.array(0), {}),
    ("1-D input, 2 targets", (5,), np.array([2, 1]), {}),
    ("2-D target", (3, 5), np.array([[1], [2], [3]]), {}),
    ("bad weight", (3, 5), np.array([1, 2, 3]), {"weight": np.ones(4, np.float32)}),
    ("double weight", (3, 5), np.array([1, 2, 3]), {"weight": np.ones(5)}),
    ("3-D target size", (2, 3, 4), np.zeros((2, 5), np.int64), {}),
    ("4-D target size", (2, 3, 4, 5), np.zeros((2, 5, 4), np.int64), {}),
    ("4-D target dims", (2, 3, 4, 5), np.zeros((2, 20), np.int64), {}),
    ("4-D out of bounds", (2, 3, 4, 5), np.full((2, 4, 5), 3), {}),
    ("integer input", (3, 5), np.array([1, 2, 3]), {"input_dtype": "int64"}),
]


@pytest.mark.parametrize("fn", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize(("case", "shape", "target", "options"), NLL_ERRORS,
                         ids=[c[0] for c in NLL_ERRORS])  # fmt: skip
def test_nll_and_cross_entropy_errors(fn, case, shape, target, options):
    options = dict(options)
    input = rand(shape, 1, dtype=options.pop("input_dtype", "float32"))
    weight = options.pop("weight", None)
    (x, t), (tx, tt) = arrays_to_both([input, target])
    if weight is not None:
        options["weight"] = vg.from_numpy(weight.copy())
    v_kwargs = dict(options)
    if weight is not None:
        options["weight"] = torch.from_numpy(weight.copy())
    assert_same_error(lambda: getattr(F, fn)(x, t, **v_kwargs),
                      lambda: getattr(TF, fn)(tx, tt, **options))  # fmt: skip


def test_the_briefs_errors_word_for_word():
    (x, t), _ = arrays_to_both([rand((3, 5), 1, dtype="float32"), np.array([1, 5, 3])])
    with pytest.raises(IndexError, match=r"^Target 5 is out of bounds\.$"):
        F.cross_entropy(x, t)
    (x, t), _ = arrays_to_both([rand((3, 5), 1), np.array([1, 2])])
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target "
                                         r"batch_size \(2\)\."):  # fmt: skip
        F.nll_loss(x, t)
    (x, t), _ = arrays_to_both([rand((3, 5), 1), np.array([1.0, 2.0, 3.0], np.float32)])
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        F.multi_margin_loss(x, t)


CE_PROBABILITY_ERRORS = [
    ({"ignore_index": 1}, "float32"),
    ({"label_smoothing": 1.5}, "float32"),
    ({"weight": 4}, "float32"),
    ({}, "int64"),
]


@pytest.mark.parametrize(("options", "target_dtype"), CE_PROBABILITY_ERRORS)
def test_cross_entropy_probability_errors(options, target_dtype):
    options = dict(options)
    (x, t), (tx, tt) = arrays_to_both([rand((3, 5), 1, dtype="float32"),
                                       rand((3, 5), 2, 0.0, 1.0).astype(target_dtype)])  # fmt: skip
    v_options, t_options = dict(options), dict(options)
    if "weight" in options:
        v_options["weight"], t_options["weight"] = vg.ones(4), torch.ones(4)
    assert_same_error(lambda: F.cross_entropy(x, t, **v_options),
                      lambda: TF.cross_entropy(tx, tt, **t_options))  # fmt: skip
    (x, t), (tx, tt) = arrays_to_both([rand((3, 5), 1, dtype="float32"), np.array([1, 2, 3])])
    assert_same_error(lambda: F.cross_entropy(x, t, label_smoothing=1.5),
                      lambda: TF.cross_entropy(tx, tt, label_smoothing=1.5))  # fmt: skip


def test_nll_loss_refuses_a_weight_requiring_grad():
    (x, t, w), (tx, tt, tw) = arrays_to_both([rand((3, 5), 1), np.array([1, 2, 3]),
                                              rand((5,), 3)], grad=(0, 2))  # fmt: skip
    assert_same_error(lambda: F.nll_loss(x, t, weight=w), lambda: TF.nll_loss(tx, tt, weight=tw))


# --- binary cross-entropy ------------------------------------------------------------------


@pytest.mark.parametrize("weight_shape", [None, (3, 4), (4,)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(3, 4), (0, 4)])
def test_binary_cross_entropy(shape, reduction, weight_shape):
    if weight_shape is not None and shape[0] == 0:
        weight_shape = weight_shape[-1:]
    arrays = [rand(shape, 1, 0.02, 0.98), rand(shape, 2, 0.0, 1.0)]
    if weight_shape is None:
        compare(lambda x, y: F.binary_cross_entropy(x, y, reduction=reduction),
                lambda x, y: TF.binary_cross_entropy(x, y, reduction=reduction),
                arrays, grad=(0, 1))  # fmt: skip
    else:
        compare(lambda x, y, w: F.binary_cross_entropy(x, y, w, reduction=reduction),
                lambda x, y, w: TF.binary_cross_entropy(x, y, w, reduction=reduction),
                [*arrays, rand(weight_shape, 3, 0.1, 2.0)], grad=(0, 1))  # fmt: skip


def test_binary_cross_entropy_clamps_the_log_at_minus_100():
    compare(lambda x, y: F.binary_cross_entropy(x, y, reduction="none"),
            lambda x, y: TF.binary_cross_entropy(x, y, reduction="none"),
            [np.array([0.0, 1.0, 0.0, 1.0, 0.5]), np.array([1.0, 0.0, 0.0, 1.0, 0.3])], grad=())  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_derivatives_by_finite_differences(reduction):
    weight = vg.from_numpy(rand((4,), 3, 0.1, 2.0))
    gradcheck(lambda x, y: F.binary_cross_entropy(x, y, weight, reduction=reduction),
              [rand((3, 4), 1, 0.05, 0.95), rand((3, 4), 2, 0.05, 0.95)], grad=(0, 1))  # fmt: skip


BCE_ERRORS = [
    ("input out of range", rand((2, 3), 1), rand((2, 3), 2, 0.0, 1.0), None),
    ("nan input", np.array([0.5, np.nan]), np.array([0.5, 0.5]), None),
    ("target out of range", rand((2, 3), 1, 0.0, 1.0), rand((2, 3), 2), None),
    ("target size", rand((2, 3), 1, 0.0, 1.0), rand((3,), 2, 0.0, 1.0), None),
    ("target dtype", rand((2, 3), 1, 0.0, 1.0, "float32"), rand((2, 3), 2, 0.0, 1.0), None),
    ("long target", rand((2, 3), 1, 0.0, 1.0, "float32"), np.ones((2, 3), np.int64), None),
    ("weight shape", rand((2, 3), 1, 0.0, 1.0), rand((2, 3), 2, 0.0, 1.0), np.ones(4)),
]


@pytest.mark.parametrize(("case", "x", "y", "w"), BCE_ERRORS, ids=[c[0] for c in BCE_ERRORS])
def test_binary_cross_entropy_errors(case, x, y, w):
    arrays = [x, y] if w is None else [x, y, w]
    vs, ts = arrays_to_both(arrays)
    assert_same_error(lambda: F.binary_cross_entropy(*vs), lambda: TF.binary_cross_entropy(*ts))


def test_binary_cross_entropy_refuses_a_weight_requiring_grad():
    vs, ts = arrays_to_both([rand((3,), 1, 0.1, 0.9), rand((3,), 2, 0.0, 1.0), rand((3,), 3)],
                            grad=(0, 2))  # fmt: skip
    assert_same_error(lambda: F.binary_cross_entropy(*vs), lambda: TF.binary_cross_entropy(*ts))


@pytest.mark.parametrize("options", [{}, {"weight": (4,)}, {"pos_weight": (4,)},
                                     {"weight": (3, 4), "pos_weight": (4,)}])  # fmt: skip
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(3, 4), (0, 4)])
def test_binary_cross_entropy_with_logits(shape, reduction, options):
    names = list(options)
    shapes = [options[n] if shape[0] else options[n][-1:] for n in names]
    arrays = [rand(shape, 1, -8.0, 8.0), rand(shape, 2, 0.0, 1.0),
              *[rand(s, 3 + i, 0.2, 2.0) for i, s in enumerate(shapes)]]  # fmt: skip

    def call(fn):
        return lambda x, y, *rest: fn(x, y, reduction=reduction, **dict(zip(names, rest,
                                                                            strict=True)))  # fmt: skip

    v, _ = compare(call(F.binary_cross_entropy_with_logits),
                   call(TF.binary_cross_entropy_with_logits), arrays, grad=(0, 1))  # fmt: skip
    assert v.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("pos_weight", [False, True])
def test_binary_cross_entropy_with_logits_by_finite_differences(reduction, pos_weight):
    weight = vg.from_numpy(rand((4,), 3, 0.1, 2.0))
    pw = vg.from_numpy(rand((4,), 4, 0.1, 2.0)) if pos_weight else None
    gradcheck(lambda x, y: F.binary_cross_entropy_with_logits(x, y, weight, reduction=reduction,
                                                              pos_weight=pw),
              [rand((3, 4), 1), rand((3, 4), 2, 0.0, 1.0)], grad=(0, 1))  # fmt: skip


def test_binary_cross_entropy_with_logits_is_torch_binding_too():
    vs, ts = arrays_to_both([rand((3,), 1), rand((3,), 2, 0.0, 1.0)])
    assert_same(
        vg.binary_cross_entropy_with_logits(*vs), torch.binary_cross_entropy_with_logits(*ts)
    )


BCEL_ERRORS = [
    ("target size", rand((2, 3), 1), rand((3,), 2), {}),
    ("long target", rand((2, 3), 1, dtype="float32"), np.ones((2, 3), np.int64), {}),
    ("long input", np.ones((2, 3), np.int64), np.ones((2, 3), np.int64), {}),
    ("pos_weight size", rand((2, 3), 1), rand((2, 3), 2), {"pos_weight": np.ones(4)}),
]


@pytest.mark.parametrize(("case", "x", "y", "options"), BCEL_ERRORS,
                         ids=[c[0] for c in BCEL_ERRORS])  # fmt: skip
def test_binary_cross_entropy_with_logits_errors(case, x, y, options):
    (vx, vy), (tx, ty) = arrays_to_both([x, y])
    v_opts = {k: vg.from_numpy(a.copy()) for k, a in options.items()}
    t_opts = {k: torch.from_numpy(a.copy()) for k, a in options.items()}
    assert_same_error(lambda: F.binary_cross_entropy_with_logits(vx, vy, **v_opts),
                      lambda: TF.binary_cross_entropy_with_logits(tx, ty, **t_opts))  # fmt: skip


# --- kl_div ----------------------------------------------------------------------------------


@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("reduction", [*REDUCTIONS, "batchmean"])
@pytest.mark.parametrize("shape", [(3, 4), (), (0, 2)])
def test_kl_div(shape, reduction, log_target):
    target = rand(shape, 2, -3.0, 0.0) if log_target else rand(shape, 2, 0.0, 1.0)
    if not log_target and shape == (3, 4):
        target[0, 0] = 0.0  # 0 log 0 is 0
    vs, ts = arrays_to_both([rand(shape, 1, -3.0, 0.0), target], grad=(0, 1))
    assert_same_outcome(lambda: F.kl_div(*vs, reduction=reduction, log_target=log_target),
                        lambda: TF.kl_div(*ts, reduction=reduction, log_target=log_target),
                        compare_warnings=True)  # fmt: skip
    compare(lambda x, y: F.kl_div(x, y, reduction=reduction, log_target=log_target),
            lambda x, y: TF.kl_div(x, y, reduction=reduction, log_target=log_target),
            [rand(shape, 1, -3.0, 0.0), target], grad=(0, 1))  # fmt: skip


def test_kl_div_errors_and_legacy_flags():
    vs, ts = arrays_to_both([np.ones((2, 2), np.int64), np.ones((2, 2), np.int64)])
    assert_same_error(lambda: F.kl_div(*vs), lambda: TF.kl_div(*ts))
    vs, ts = arrays_to_both([rand((2, 2), 1), rand((2, 2), 2, 0.0, 1.0)])
    assert_same_error(
        lambda: F.kl_div(*vs, reduction="avg"), lambda: TF.kl_div(*ts, reduction="avg")
    )
    assert_same_outcome(lambda: F.kl_div(*vs, size_average=False),
                        lambda: TF.kl_div(*ts, size_average=False), compare_warnings=True)  # fmt: skip


def test_xlogy_matches_torch():
    x = np.array([0.0, 0.0, 1.0, 2.0, 0.0, 3.0])
    y = np.array([0.0, np.nan, -1.0, 3.0, -2.0, 0.5])
    (vx, vy), (tx, ty) = arrays_to_both([x, y])
    assert_same(vg.xlogy(vx, vy), torch.xlogy(tx, ty))
    assert_same(vg.xlogy(2, vy), torch.xlogy(2, ty))
    assert_same(vg.xlogy(vx, 0), torch.xlogy(tx, 0))
    assert_same(vg.xlogy(vg.tensor([1, 2]), vg.tensor([3, 4])),
                torch.xlogy(torch.tensor([1, 2]), torch.tensor([3, 4])))  # fmt: skip
    assert_same(vx.clone().xlogy_(vy), tx.clone().xlogy_(ty))
    assert_same(vg.xlogy(vx, vy, out=vg.empty(0, dtype=vg.float64)),
                torch.xlogy(tx, ty, out=torch.empty(0, dtype=torch.float64)))  # fmt: skip
    assert_same_error(lambda: vg.xlogy(vg.ones(2, dtype=vg.complex64), vg.ones(2)),
                      lambda: torch.xlogy(torch.ones(2, dtype=torch.complex64), torch.ones(2)))  # fmt: skip


def test_xlogy_gradients():
    x, y = rand((3, 4), 1, 0.0, 2.0), rand((3, 4), 2, 0.1, 2.0)
    x[0, 0] = 0.0
    for v_fn, t_fn, arrays, grad in [
        (vg.xlogy, torch.xlogy, [x, y], (0, 1)),
        (lambda a: vg.xlogy(a, 2.5), lambda a: torch.xlogy(a, 2.5), [x], (0,)),
        (lambda b: vg.xlogy(1.5, b), lambda b: torch.xlogy(1.5, b), [y], (0,)),
    ]:
        compare(v_fn, t_fn, arrays, grad=grad)
    gradcheck(vg.xlogy, [rand((3,), 1, 0.5, 2.0), rand((3,), 2, 0.5, 2.0)], grad=(0, 1))


# --- margin and embedding losses -------------------------------------------------------------


@pytest.mark.parametrize("margin", [1.0, 0.3])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(3, 4), (), (0,)])
def test_hinge_embedding_loss(shape, reduction, margin):
    compare(lambda x, y: F.hinge_embedding_loss(x, y, margin=margin, reduction=reduction),
            lambda x, y: TF.hinge_embedding_loss(x, y, margin=margin, reduction=reduction),
            [rand(shape, 1), signs(shape, 2)])  # fmt: skip


@pytest.mark.parametrize("margin", [0.0, 0.5])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(5,), ()])
def test_margin_ranking_loss(shape, reduction, margin):
    compare(lambda a, b, y: F.margin_ranking_loss(a, b, y, margin=margin, reduction=reduction),
            lambda a, b, y: TF.margin_ranking_loss(a, b, y, margin=margin, reduction=reduction),
            [rand(shape, 1), rand(shape, 2), signs(shape, 3)], grad=(0, 1, 2))  # fmt: skip


def test_margin_ranking_loss_dimension_error():
    vs, ts = arrays_to_both([rand((3,), 1), rand((3, 1), 2), signs((3,), 3)])
    assert_same_error(lambda: F.margin_ranking_loss(*vs), lambda: TF.margin_ranking_loss(*ts))


@pytest.mark.parametrize("options", [{}, {"p": 1.0}, {"swap": True}, {"margin": 0.5, "eps": 1e-3}])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(4, 3), (3,)])
def test_triplet_margin_loss(shape, reduction, options):
    compare(lambda a, p, n: F.triplet_margin_loss(a, p, n, reduction=reduction, **options),
            lambda a, p, n: TF.triplet_margin_loss(a, p, n, reduction=reduction, **options),
            [rand(shape, 1), rand(shape, 2), rand(shape, 3)], grad=(0, 1, 2))  # fmt: skip


def test_triplet_margin_loss_errors():
    vs, ts = arrays_to_both([rand((4, 3), 1), rand((4, 3), 2), rand((3,), 3)])
    assert_same_error(lambda: F.triplet_margin_loss(*vs), lambda: TF.triplet_margin_loss(*ts))
    vs, ts = arrays_to_both([rand((4, 3), 1), rand((4, 3), 2), rand((4, 3), 3)])
    assert_same_error(lambda: F.triplet_margin_loss(*vs, margin=0.0),
                      lambda: TF.triplet_margin_loss(*ts, margin=0.0))  # fmt: skip


@pytest.mark.parametrize("margin", [0.0, 0.2])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("shape", "target_shape"), [((4, 3), (4,)), ((3,), ())])
def test_cosine_embedding_loss(shape, target_shape, reduction, margin):
    compare(lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin=margin, reduction=reduction),
            lambda a, b, y: TF.cosine_embedding_loss(a, b, y, margin=margin, reduction=reduction),
            [rand(shape, 1), rand(shape, 2), signs(target_shape, 3)], grad=(0, 1))  # fmt: skip


@pytest.mark.parametrize(("shapes"), [((4, 3), (4, 3), (4, 1)), ((4, 3), (4, 3), ()),
                                      ((3,), (3,), (3,))])  # fmt: skip
def test_cosine_embedding_loss_errors(shapes):
    vs, ts = arrays_to_both([rand(shapes[0], 1), rand(shapes[1], 2), signs(shapes[2], 3)])
    assert_same_error(lambda: F.cosine_embedding_loss(*vs), lambda: TF.cosine_embedding_loss(*ts))


@pytest.mark.parametrize("weight", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(3, 4), (4,)])
def test_multilabel_soft_margin_loss(shape, reduction, weight):
    labels = (rand(shape, 2) > 0).astype(np.float64)
    arrays = [rand(shape, 1), labels] + ([rand(shape[-1:], 3, 0.1, 2.0)] if weight else [])
    compare(lambda *a: F.multilabel_soft_margin_loss(*a, reduction=reduction),
            lambda *a: TF.multilabel_soft_margin_loss(*a, reduction=reduction),
            arrays, grad=(0, 1))  # fmt: skip


@pytest.mark.parametrize("weight", [False, True])
@pytest.mark.parametrize(("p", "margin"), [(1, 1.0), (2, 1.0), (1, 0.3), (2, 2.0)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(("shape", "target_shape"), [((4, 5), (4,)), ((5,), ()), ((5,), (1,)),
                                                     ((), ()), ((0, 5), (0,))])  # fmt: skip
def test_multi_margin_loss(shape, target_shape, reduction, p, margin, weight):
    n_classes = shape[-1] if shape else 1
    options = {"p": p, "margin": margin, "reduction": reduction}
    v_call, t_call = _nll_call(F.multi_margin_loss, {**options, "weight": weight}, n_classes), \
        _nll_call(TF.multi_margin_loss, {**options, "weight": weight}, n_classes)  # fmt: skip
    arrays = [rand(shape, 1), classes(target_shape, n_classes, 2)]
    if shape == (0, 5) and reduction != "none":
        # PyTorch's kernel returns before it writes its 0-dim output for an empty batch
        # (LossMultiMargin.cpp: ``if (input.numel() == 0) return;``), so its value is
        # whatever the memory held (a CI run saw -0.0084). vizgrad's is 0, the sum over
        # no samples; shape and dtype are torch's.
        x = vg.from_numpy(arrays[0]).requires_grad_()
        loss = v_call(x, vg.from_numpy(arrays[1]), "vg")
        t_loss = t_call(*(torch.from_numpy(a) for a in arrays), "torch")
        assert loss.shape == t_loss.shape == () and loss.dtype.name == "float64"
        assert loss.item() == 0.0
        loss.backward()
        assert x.grad.shape == (0, 5)
        return
    compare(lambda x, t: v_call(x, t, "vg"), lambda x, t: t_call(x, t, "torch"), arrays)


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multi_margin_loss_by_finite_differences(p, reduction):
    weight = vg.from_numpy(rand((5,), 3, 0.1, 2.0))
    gradcheck(lambda x, t: F.multi_margin_loss(x, t, p=p, weight=weight, reduction=reduction),
              [rand((4, 5), 1, -0.5, 0.5), classes((4,), 5, 2)])  # fmt: skip


MULTI_MARGIN_ERRORS = [
    ("target out of range", (3, 5), np.array([1, 2, 5]), {}),
    ("target size", (3, 5), np.array([1, 2]), {}),
    ("weight size", (3, 5), np.array([1, 2, 3]), {"weight": np.ones(4, np.float32)}),
    ("weight dims", (3, 5), np.array([1, 2, 3]), {"weight": np.ones((5, 1), np.float32)}),
    ("p", (3, 5), np.array([1, 2, 3]), {"p": 3}),
    ("no classes", (3, 0), np.array([0, 0, 0]), {}),
    ("3-D input", (2, 3, 4), np.array([0, 0]), {}),
    ("float target", (3, 5), np.array([1.0, 2.0, 3.0], np.float32), {}),
]


@pytest.mark.parametrize(("case", "shape", "target", "options"), MULTI_MARGIN_ERRORS,
                         ids=[c[0] for c in MULTI_MARGIN_ERRORS])  # fmt: skip
def test_multi_margin_loss_errors(case, shape, target, options):
    (x, t), (tx, tt) = arrays_to_both([rand(shape, 1, dtype="float32"), target])
    v_opts = {k: vg.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v
              for k, v in options.items()}  # fmt: skip
    t_opts = {k: torch.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v
              for k, v in options.items()}  # fmt: skip
    assert_same_error(lambda: F.multi_margin_loss(x, t, **v_opts),
                      lambda: TF.multi_margin_loss(tx, tt, **t_opts))  # fmt: skip


@pytest.mark.parametrize(
    "name", ["hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss"]
)
@pytest.mark.parametrize(("size_average", "reduce"), [(None, False), (False, None)])
def test_legacy_flags_of_margin_losses(name, size_average, reduce):
    vs, ts = arrays_to_both([rand((3, 4), 1), signs((3, 4), 2)])
    assert_same_outcome(lambda: getattr(F, name)(*vs, size_average=size_average, reduce=reduce),
                        lambda: getattr(TF, name)(*ts, size_average=size_average, reduce=reduce),
                        compare_warnings=True)  # fmt: skip


# --- the modules -----------------------------------------------------------------------------


def _module_inputs(name):
    """Inputs (arrays) a module's forward takes, and which of them require grad."""
    x, y = rand((4, 5), 1), rand((4, 5), 2)
    if name in ("CrossEntropyLoss", "NLLLoss", "MultiMarginLoss"):
        return [x, classes((4,), 5, 2)], (0,)
    if name in ("BCELoss",):
        return [rand((4, 5), 1, 0.05, 0.95), rand((4, 5), 2, 0.0, 1.0)], (0, 1)
    if name in ("HingeEmbeddingLoss", "SoftMarginLoss"):
        return [x, signs((4, 5), 2)], (0,)
    if name == "MultiLabelSoftMarginLoss":
        return [x, (y > 0).astype(np.float64)], (0, 1)
    if name in ("CosineEmbeddingLoss", "MarginRankingLoss"):
        third = signs((4,), 3) if name == "CosineEmbeddingLoss" else signs((4, 5), 3)
        return [x, y, third], (0, 1)
    if name == "TripletMarginLoss":
        return [x, y, rand((4, 5), 3)], (0, 1, 2)
    if name == "GaussianNLLLoss":
        return [x, y, rand((4, 5), 3, 0.1, 2.0)], (0, 1, 2)
    if name == "KLDivLoss":
        return [rand((4, 5), 1, -3.0, 0.0), rand((4, 5), 2, 0.0, 1.0)], (0, 1)
    if name == "PoissonNLLLoss":
        return [x, rand((4, 5), 2, 0.0, 3.0)], (0, 1)
    return [x, y], (0, 1)


WEIGHT = rand((5,), 7, 0.2, 2.0)
MODULES = [
    ("L1Loss", {}),
    ("MSELoss", {"reduction": "sum"}),
    ("SmoothL1Loss", {"beta": 0.5}),
    ("HuberLoss", {"delta": 0.5, "reduction": "none"}),
    ("GaussianNLLLoss", {"full": True}),
    ("PoissonNLLLoss", {"log_input": True, "full": True}),
    ("KLDivLoss", {"reduction": "batchmean", "log_target": False}),
    ("NLLLoss", {"weight": WEIGHT, "ignore_index": 1}),
    ("CrossEntropyLoss", {"weight": WEIGHT, "label_smoothing": 0.1}),
    ("CrossEntropyLoss", {"reduction": "none"}),
    ("BCELoss", {"weight": WEIGHT}),
    ("BCEWithLogitsLoss", {"weight": WEIGHT, "pos_weight": WEIGHT[::-1].copy()}),
    ("BCEWithLogitsLoss", {}),
    ("HingeEmbeddingLoss", {"margin": 0.5}),
    ("SoftMarginLoss", {}),
    ("MultiLabelSoftMarginLoss", {"weight": WEIGHT}),
    ("CosineEmbeddingLoss", {"margin": 0.1}),
    ("MarginRankingLoss", {"margin": 0.2}),
    ("MultiMarginLoss", {"p": 2, "margin": 0.5, "weight": WEIGHT}),
    ("TripletMarginLoss", {"margin": 0.5, "p": 1.0, "swap": True}),
]


def _module_pair(name, options):
    v_opts = {k: vg.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v
              for k, v in options.items()}  # fmt: skip
    t_opts = {k: torch.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v
              for k, v in options.items()}  # fmt: skip
    return getattr(vg.nn, name)(**v_opts), getattr(torch.nn, name)(**t_opts)


@pytest.mark.parametrize(("name", "options"), MODULES)
def test_loss_modules_match_torch(name, options):
    v_module, t_module = _module_pair(name, options)
    assert repr(v_module) == repr(t_module)
    assert list(v_module.state_dict()) == list(t_module.state_dict())
    for key, value in t_module.state_dict().items():
        assert_same(v_module.state_dict()[key], value)
    assert [n for n, _ in v_module.named_buffers()] == [n for n, _ in t_module.named_buffers()]
    assert list(v_module.parameters()) == []
    assert v_module.reduction == t_module.reduction
    arrays, grad = _module_inputs(name)
    compare(v_module, t_module, arrays, grad=grad)


@pytest.mark.parametrize(
    ("name", "size_average", "reduce"),
    [("MSELoss", False, None), ("NLLLoss", None, False), ("BCELoss", True, True),
     ("KLDivLoss", False, True)],
)  # fmt: skip
def test_loss_modules_map_the_legacy_flags(name, size_average, reduce):
    v_module, v_warnings = _warned(lambda: getattr(vg.nn, name)(size_average=size_average,
                                                                reduce=reduce))  # fmt: skip
    t_module, t_warnings = _warned(lambda: getattr(torch.nn, name)(size_average=size_average,
                                                                   reduce=reduce))  # fmt: skip
    assert v_module.reduction == t_module.reduction
    assert v_warnings == t_warnings


@pytest.mark.parametrize(
    ("name", "options"),
    [("MultiMarginLoss", {"p": 3}), ("MultiMarginLoss", {"weight": np.ones((5, 1))}),
     ("TripletMarginLoss", {"margin": 0.0}), ("HuberLoss", {"delta": "1"})],
)  # fmt: skip
def test_loss_module_constructor_errors(name, options):
    assert_same_error(lambda: _module_pair(name, options)[0],
                      lambda: _module_pair(name, {})[1].__class__(
                          **{k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v
                             for k, v in options.items()}))  # fmt: skip


def test_loss_module_weight_is_a_buffer_that_moves_with_the_module():
    module = vg.nn.CrossEntropyLoss(weight=vg.ones(3))
    module.double()
    assert module.weight.dtype == vg.float64
    assert dict(module.named_buffers())["weight"] is module.weight
    x = vg.randn(2, 3, dtype=vg.float64, requires_grad=True)
    expected = torch.nn.CrossEntropyLoss(weight=torch.ones(3, dtype=torch.float64))(
        torch.from_numpy(x.detach().numpy().copy()), torch.tensor([0, 2])
    )
    assert_same(module(x, vg.tensor([0, 2])).detach(), expected.detach())


def test_nll_loss_node_has_torchs_edges():
    # Only the input with a formula gets an edge (target and weight have none), as in torch.
    for lib, fn in ((vg, F), (torch, TF)):
        x = lib.zeros(2, 3, requires_grad=True)
        loss = fn.nll_loss(x.log_softmax(1), lib.tensor([0, 2]), weight=lib.ones(3))
        names = [n.name() if n is not None else None for n, _ in loss.grad_fn.next_functions]
        if lib is vg:
            mine = names
        else:
            assert mine == names == ["LogSoftmaxBackward0"]


# --- out= of the unreduced pointwise losses ----------------------------------------------

POINTWISE_OUTS = {"mse_loss": (), "smooth_l1_loss": (0.5,), "huber_loss": (2.0,),
                  "soft_margin_loss": ()}  # fmt: skip
LOSS_LAYOUTS = {
    "transposed": lambda lib: lib.linspace(-2, 2, 12).reshape(4, 3).t(),
    "channels-last": lambda lib: (
        lib.linspace(-2, 2, 120).reshape(2, 3, 4, 5).to(memory_format=lib.channels_last)
    ),
    "stepped": lambda lib: lib.linspace(-2, 2, 12).reshape(4, 3)[::2].t(),
    "contiguous": lambda lib: lib.linspace(-2, 2, 12).reshape(3, 4),
}


@pytest.mark.parametrize("out_kind", ["empty", "other shape", "transposed, right shape"])
@pytest.mark.parametrize("layout", list(LOSS_LAYOUTS))
@pytest.mark.parametrize("reduction", [0, 1])
@pytest.mark.parametrize("name", list(POINTWISE_OUTS))
def test_pointwise_loss_out_is_resized_like_the_inputs(name, reduction, layout, out_kind):
    """ATen writes an unreduced pointwise loss through a TensorIterator, so an ``out`` it
    resizes is laid out like the inputs; one of the right shape keeps its strides."""

    def run(lib):
        x = LOSS_LAYOUTS[layout](lib)
        target = (x * 0.5).sign()
        shape = tuple(x.shape) if reduction == 0 else ()
        reverse = tuple(reversed(range(len(shape))))
        out = {"empty": lambda: lib.empty(0), "other shape": lambda: lib.empty(3, 3),
               "transposed, right shape": lambda: lib.empty(shape[::-1]).permute(reverse)
               }[out_kind]()  # fmt: skip
        op = getattr(torch.ops.aten, name).out if lib is torch else OPERATORS[f"aten::{name}.out"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the resize warning (torch.ops prints its own)
            result = op(x, target, reduction, *POINTWISE_OUTS[name], out=out)
        assert result is out
        return out

    assert_same(run(vg), run(torch))

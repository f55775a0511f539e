"""Reductions that skip nan or return two results, against PyTorch: ``nanmean``,
``nansum``, ``nanmedian``, ``mode``, ``aminmax``, ``var_mean``, ``std_mean`` and
``unique_consecutive``.

Values (with nans, ties, infinities), dtypes, shapes and strides on every layout, with
and without ``dim``/``keepdim``, on 0-dim and empty inputs; ``out=``; errors; gradients.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients
from oracle import (
    LAYOUTS,
    assert_same_error,
    assert_same_outcome,
    error_for_pairs,
    make_pair,
    pair_of_values,
    same_for_pairs,
)

import vizgrad as vg


def same(fn, *pairs, compare_warnings=True):
    same_for_pairs(fn, *pairs, compare_warnings=compare_warnings)


error = error_for_pairs
values = pair_of_values


def with_nans(shape, dtype="float64", seed=0):
    """Small integers (ties) with nans, one row all nan and one inf."""
    rng = np.random.default_rng(seed)
    data = rng.integers(-2, 3, size=shape).astype(dtype)
    data[rng.random(shape) < 0.25] = np.nan
    if len(shape) >= 2:
        data[0] = np.nan
        data[-1, 0] = np.inf
    return values(data)


def _tuple(result):
    return tuple(result) if isinstance(result, tuple) else result


# --- the calls ---------------------------------------------------------------------------------

CALLS = {
    "nanmean": lambda m, x: m.nanmean(x),
    "nanmean dim": lambda m, x: x.nanmean(0),
    "nanmean dims keepdim": lambda m, x: m.nanmean(x, (0, -1), keepdim=True),
    "nanmean dtype": lambda m, x: m.nanmean(x, -1, dtype=m.float64),
    "nansum": lambda m, x: m.nansum(x),
    "nansum dim": lambda m, x: x.nansum(-1),
    "nansum dims keepdim": lambda m, x: m.nansum(x, [0, -1], True),
    "nansum dtype": lambda m, x: m.nansum(x, dtype=m.float64),
    "nanmedian": lambda m, x: m.nanmedian(x),
    "nanmedian dim": lambda m, x: _tuple(x.nanmedian(0)),
    "nanmedian dim keepdim": lambda m, x: _tuple(m.nanmedian(x, -1, keepdim=True)),
    "mode": lambda m, x: _tuple(m.mode(x)),
    "mode dim keepdim": lambda m, x: _tuple(x.mode(0, True)),
    "aminmax": lambda m, x: _tuple(m.aminmax(x)),
    "aminmax dim": lambda m, x: _tuple(x.aminmax(dim=0)),
    "aminmax dim keepdim": lambda m, x: _tuple(m.aminmax(x, dim=-1, keepdim=True)),
    "var_mean": lambda m, x: m.var_mean(x),
    "var_mean unbiased": lambda m, x: m.var_mean(x, False),
    "var_mean dim": lambda m, x: m.var_mean(x, 0),
    "var_mean correction keepdim": lambda m, x: m.var_mean(x, -1, correction=0, keepdim=True),
    "var_mean dims unbiased keepdim": lambda m, x: m.var_mean(x, (0, -1), False, True),
    "std_mean": lambda m, x: m.std_mean(x),
    "std_mean dim": lambda m, x: m.std_mean(x, [0]),
    "std_mean correction": lambda m, x: m.std_mean(x, dim=None, correction=2),
    "unique_consecutive": lambda m, x: m.unique_consecutive(x),
    "unique_consecutive all": lambda m, x: m.unique_consecutive(
        x, return_inverse=True, return_counts=True
    ),
    "unique_consecutive dim": lambda m, x: m.unique_consecutive(x, return_inverse=True, dim=0),
    "unique_consecutive method": lambda m, x: x.unique_consecutive(return_counts=True, dim=-1),
}
FLOAT_ONLY = ("nanmean", "var_mean", "std_mean")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_layouts(call, shape, layout):
    reduces_dim_0 = call == "nanmedian dim" or len(shape) == 1
    v, t = make_pair(shape, "float32", layout, low=-2, high=2)
    if call.startswith("nanmedian dim") and layout == "expanded" and reduces_dim_0:
        # PyTorch reads a stride-0 row as if it were contiguous (other elements, or past
        # the storage's end): the right answer is torch's on a contiguous copy.
        t = t.contiguous()
    same(CALLS[call], (v, t))


@pytest.mark.parametrize("call", sorted(CALLS))
def test_nans_ties_and_infinities(call):
    data = with_nans((4, 5))
    if call.startswith(("var_mean", "std_mean")):
        # PyTorch's Welford mean of a slice holding inf is nan or inf by where the inf is
        # in its chunks; vizgrad's mean is the plain one (inf). Only nans here.
        data = tuple(t.nan_to_num(nan=float("nan"), posinf=2.0) for t in data)
    same(CALLS[call], data)
    same(CALLS[call], values([[1.0, 1.0, 2.0, 2.0, 3.0], [3.0, 2.0, 2.0, 1.0, 1.0]]))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "complex64"])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_dtypes(call, dtype):
    """Integer inputs are refused by the floating-only reductions, complex ones by those that
    compare; the others keep (or promote) the dtype as PyTorch does."""
    same(CALLS[call], make_pair((3, 4), dtype, "transposed", low=0, high=3))


@pytest.mark.parametrize("data", [[], 2.5, [[]], np.zeros((0, 3)), np.zeros((3, 0)), [7.0]])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_empty_and_zero_dim(call, data):
    same(CALLS[call], values(data, "float32"))


# --- out= -------------------------------------------------------------------------------------

OUT_CALLS = {
    "nanmean": lambda m, x, o: m.nanmean(x, 0, out=o[0]),
    "nanmean cast": lambda m, x, o: m.nanmean(x, 0, out=o[0].to(m.float64)),
    "nanmean int out": lambda m, x, o: m.nanmean(x, 0, out=o[0].to(m.int64)),
    "nansum": lambda m, x, o: m.nansum(x, 1, True, out=o[0]),
    "nansum double out": lambda m, x, o: m.nansum(x, out=o[0].to(m.float64)),
    "nanmedian": lambda m, x, o: _tuple(m.nanmedian(x, 1, out=(o[0], o[1]))),
    "nanmedian bad indices": lambda m, x, o: m.nanmedian(x, 1, out=(o[0], o[0])),
    "mode": lambda m, x, o: _tuple(m.mode(x, 0, out=(o[0], o[1]))),
    "mode bad values": lambda m, x, o: m.mode(x, 0, out=(o[1], o[1])),
    "aminmax": lambda m, x, o: _tuple(m.aminmax(x, dim=1, out=(o[0], o[0].clone()))),
    "aminmax whole": lambda m, x, o: _tuple(m.aminmax(x, out=(o[0], o[0].clone()))),
    "aminmax bad dtype": lambda m, x, o: m.aminmax(x, out=(o[0], o[1])),
}


@pytest.mark.parametrize("call", sorted(OUT_CALLS))
def test_out(call):
    def fn(m, x):
        outs = (m.full((4,), 7.0), m.zeros(2, dtype=m.int64))
        result = OUT_CALLS[call](m, x, outs)
        return result

    same(fn, with_nans((3, 4), "float32"))


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.nanmean(x, 2),
        lambda m, x: m.nanmean(x, dtype=m.int64),
        lambda m, x: m.nansum(x, (0, 0)),
        lambda m, x: m.nansum(x, dtype=m.complex64),
        lambda m, x: m.nanmedian(x, 2),
        lambda m, x: m.nanmedian(x[:, :0], 1),
        lambda m, x: m.mode(x, 3),
        lambda m, x: m.mode(x[:, :0], 1),
        lambda m, x: m.aminmax(x, dim=(0, 1)),
        lambda m, x: m.aminmax(x[:, :0], dim=1),
        lambda m, x: m.aminmax(x[:0]),
        lambda m, x: m.var_mean(x, 2),
        lambda m, x: m.var_mean(x, correction=1, unbiased=True),
        lambda m, x: m.std_mean(x, dim=0, correction="a"),
        lambda m, x: m.unique_consecutive(x, dim=2),
        lambda m, x: m.nanmean(x, 0, out=m.empty(0, dtype=m.int64)),
    ],
)
def test_errors(call):
    error(call, make_pair((3, 4)))


# --- gradients ---------------------------------------------------------------------------------

GRAD_CALLS = {
    "nanmean": lambda m, x: m.nanmean(x),
    "nanmean dim keepdim": lambda m, x: m.nanmean(x, 1, keepdim=True),
    "nansum": lambda m, x: m.nansum(x),
    "nansum dims": lambda m, x: m.nansum(x, (0, 1)),
    "nanmedian": lambda m, x: m.nanmedian(x),
    "nanmedian dim": lambda m, x: m.nanmedian(x, 0).values,
    "mode": lambda m, x: m.mode(x, 1).values,
    "aminmax min": lambda m, x: m.aminmax(x).min,
    "aminmax both": lambda m, x: sum(m.aminmax(x, dim=0, keepdim=True)),
    "var_mean var": lambda m, x: m.var_mean(x, 1)[0],
    "var_mean both": lambda m, x: sum(m.var_mean(x, 0, correction=0, keepdim=True)),
    "std_mean std": lambda m, x: m.std_mean(x)[0],
    "std_mean both": lambda m, x: sum(m.std_mean(x, 1)),
}


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("call", sorted(GRAD_CALLS))
def test_grad(call, layout):
    """Distinct values (no ties, no nans): gradcheck's finite differences are meaningful."""
    fn = GRAD_CALLS[call]
    check_gradients(lambda x: fn(vg, x), lambda x: fn(torch, x), [(3, 4)], layouts=[layout])


@pytest.mark.parametrize("call", ["nanmean", "nansum", "nanmedian", "nanmedian dim"])
def test_grad_skips_nans(call):
    """The gradient of what skipped nan: zero where the input was nan."""
    fn = GRAD_CALLS[call]
    results = []
    for lib in (vg, torch):
        x = lib.tensor([[1.0, float("nan"), 3.0], [float("nan"), 5.0, -1.0]], requires_grad=True)
        fn(lib, x).sum().backward()
        results.append(x.grad)
    assert_same_outcome(lambda: results[0], lambda: results[1])


@pytest.mark.parametrize("call", ["nanmedian dim", "mode"])
def test_grad_node_names(call):
    """The nodes of the reductions that also return indices (only values carry gradients)."""
    for lib in (vg, torch):
        x = lib.ones(3, 4, requires_grad=True)
        node = GRAD_CALLS[call](lib, x).grad_fn
        name = node.name() if lib is vg else type(node).__name__
        assert name == {"nanmedian dim": "NanmedianBackward1", "mode": "ModeBackward0"}[call]


def test_unique_consecutive_records_not_implemented():
    results = []
    for lib in (vg, torch):
        x = lib.tensor([1.0, 1.0, 2.0], requires_grad=True)
        result = lib.unique_consecutive(x)
        assert result.requires_grad
        results.append(result)
    assert results[0].grad_fn.name() == type(results[1].grad_fn).__name__
    assert_same_error(lambda: results[0].sum().backward(), lambda: results[1].sum().backward())

"""Counting values, against PyTorch: ``histc``, ``histogram`` and ``bincount``.

Counts (and weighted sums, and densities) on every layout, 0-dim and empty inputs,
values exactly on the bin edges (where PyTorch's three ways of finding a bin differ),
nan and values outside the range; ``out=``; the errors for bad input; autograd (``histc``
records nothing, ``histogram`` and ``bincount`` a ``NotImplemented`` node that raises).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from oracle import (
    LAYOUTS,
    assert_same,
    assert_same_error,
    error_for_pairs,
    make_pair,
    pair_of_values,
    same_for_pairs,
)

import vizgrad as vg

same = same_for_pairs
error = error_for_pairs
values = pair_of_values


def on_edges(dtype="float32"):
    """Values on and next to the edges of equal bins over [-1, 1]: where dividing, searching
    and dividing-then-searching can each pick a different bin."""
    grid = np.linspace(-1, 1, 61)
    near = np.concatenate([grid, np.nextafter(grid.astype(dtype), np.inf), [-1.5, 1.5, np.nan]])
    return values(near.astype(dtype))


# --- histc -----------------------------------------------------------------------------------------

HISTC_CALLS = {
    "default": lambda m, x: m.histc(x),
    "method, 7 bins": lambda m, x: x.histc(7),
    "range": lambda m, x: m.histc(x, bins=4, min=-1, max=1),
    "int range": lambda m, x: m.histc(x, 3, -2, 5),
    "bool range": lambda m, x: m.histc(x, 3, False, True),
    "equal bounds": lambda m, x: m.histc(x, bins=5, min=2, max=2),
    "all outside": lambda m, x: m.histc(x, bins=3, min=10, max=20),
    "one bin": lambda m, x: m.histc(x, 1),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(10,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("call", sorted(HISTC_CALLS))
def test_histc(call, shape, layout):
    same(HISTC_CALLS[call], make_pair(shape, "float32", layout))


@pytest.mark.parametrize("dtype", ["float16", "float64"])
@pytest.mark.parametrize("call", sorted(HISTC_CALLS))
def test_histc_dtypes(call, dtype):
    same(HISTC_CALLS[call], make_pair((4, 5), dtype, "transposed"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bins", [3, 10, 20, 60])
def test_histc_on_edges(bins, dtype):
    same(lambda m, x: m.histc(x, bins, -1, 1), on_edges(dtype))


@pytest.mark.parametrize("data", [[], 2.5, [3.0], [1.0, 1.0], [[]]])
def test_histc_empty_zero_dim_and_constant(data):
    same(HISTC_CALLS["default"], values(data, "float32"))
    same(HISTC_CALLS["range"], values(data, "float32"))


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.histc(x.to(m.int64)),
        lambda m, x: m.histc(x.to(m.int64), 0),
        lambda m, x: m.histc(x.to(m.complex64), min=0, max=1),
        lambda m, x: m.histc(x, bins=0),
        lambda m, x: m.histc(x, bins=-3),
        lambda m, x: m.histc(x, min=3, max=1),
        lambda m, x: m.histc(x, min=float("-inf"), max=1),
        lambda m, x: m.histc(x, min=0, max=float("nan")),
        lambda m, x: m.histc(x, min=1j, max=2),
        lambda m, x: m.histc(m.tensor([float("nan"), 1.0])),
        lambda m, x: m.histc(x, out=m.empty(0, dtype=m.float64)),
        lambda m, x: m.histc(x, bins=2.5),
    ],
)
def test_histc_errors(call):
    error(call, make_pair((3, 4)))


def test_histc_out():
    def call(m, x):
        out = m.full((3,), 7.0)
        result = m.histc(x, bins=5, out=out)
        assert result is out
        return out

    same(call, make_pair((3, 4), "float32", "stepped"), compare_warnings=True)


def test_histc_records_nothing():
    """``histc`` is not differentiable: its result never requires grad (out= allowed)."""
    for lib in (vg, torch):
        x = lib.ones(3, requires_grad=True)
        assert not lib.histc(x).requires_grad
        out = lib.empty(0)
        lib.histc(x, out=out)
        assert out.grad_fn is None


# --- histogram ---------------------------------------------------------------------------------------

HISTOGRAM_CALLS = {
    "default": lambda m, x: m.histogram(x),
    "method, 5 bins": lambda m, x: x.histogram(5),
    "range": lambda m, x: m.histogram(x, 4, range=(-1.0, 1.0)),
    "equal range": lambda m, x: m.histogram(x, 4, range=[2, 2]),
    "weight": lambda m, x: m.histogram(x, 6, weight=x.abs()),
    "density": lambda m, x: m.histogram(x, 3, density=True),
    "weight, density, range": lambda m, x: m.histogram(
        x, bins=4, range=(-2.0, 3.0), weight=x * x, density=True
    ),
    "edges": lambda m, x: m.histogram(x, m.tensor([-2.0, -0.5, 0.0, 0.1, 4.0], dtype=x.dtype)),
    "edges, weight, density": lambda m, x: x.histogram(
        m.tensor([-1.0, 0.0, 3.0], dtype=x.dtype), weight=x.exp(), density=True
    ),
    "one edge pair": lambda m, x: m.histogram(x, m.tensor([0.0, 1.0], dtype=x.dtype)),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(10,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("call", sorted(HISTOGRAM_CALLS))
def test_histogram(call, shape, layout):
    same(HISTOGRAM_CALLS[call], make_pair(shape, "float32", layout))


@pytest.mark.parametrize("call", sorted(HISTOGRAM_CALLS))
def test_histogram_float64(call):
    same(HISTOGRAM_CALLS[call], make_pair((4, 5), "float64", "transposed"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bins", [3, 10, 20, 60])
def test_histogram_on_edges(bins, dtype):
    """Given edges are searched; the same edges as a bin count are found by division and a
    local search. (The edges are PyTorch's ``linspace``, given to both libraries.)"""
    edges = torch.linspace(-1, 1, bins + 1, dtype=getattr(torch, dtype)).numpy()
    same(lambda m, x, e: m.histogram(x, e), on_edges(dtype), values(edges))
    if dtype == "float32":
        same(lambda m, x: m.histogram(x, bins, range=(-1.0, 1.0)), on_edges(dtype))


@pytest.mark.xfail(
    strict=True,
    reason="vizgrad.linspace (ops/ranges.py) differs from PyTorch's "
    "vectorized CPU linspace by one ulp at some float64 points",
)
def test_histogram_float64_edges_are_torch_linspace():
    same(lambda m, x: m.histogram(x, 10, range=(-1.0, 1.0)), on_edges("float64"))


@pytest.mark.parametrize("data", [[], 2.5, [3.0], [1.0, 1.0], [[]]])
@pytest.mark.parametrize("call", ["default", "range", "density", "edges", "weight"])
def test_histogram_empty_zero_dim_and_constant(call, data):
    same(HISTOGRAM_CALLS[call], values(data, "float32"))


def test_histogram_half_needs_a_range():
    """``float16`` is counted, but its range is not computed (``aminmax`` dispatch)."""
    same(lambda m, x: m.histogram(x, 3, range=(-1.0, 1.0)), make_pair((5,), "float16"))
    error(lambda m, x: m.histogram(x, 3), make_pair((5,), "float16"))


def test_histogram_return_types():
    v, t = make_pair((6,))
    result = vg.histogram(v, 3)
    assert type(result).__name__ == type(torch.histogram(t, 3)).__name__ == "histogram"
    assert result.hist is result[0] and result.bin_edges is result[1]
    hist, edges = vg.empty(0), vg.empty(0)
    out_result = vg.histogram(v, 3, out=(hist, edges))
    t_out = torch.histogram(t, 3, out=(torch.empty(0), torch.empty(0)))
    assert type(out_result).__name__ == type(t_out).__name__
    assert out_result.hist is hist and out_result.bin_edges is edges


HISTOGRAM_OUT_CALLS = {
    "bins": lambda m, x, out: m.histogram(x, out=out),
    "range": lambda m, x, out: m.histogram(x, 4, range=(-1.0, 1.0), out=out),
    "weight, density": lambda m, x, out: m.histogram(x, 6, weight=x.abs(), density=True, out=out),
    "edges, weight": lambda m, x, out: m.histogram(
        x, m.tensor([-1.0, 0.0, 3.0]), weight=x, out=out
    ),
}


@pytest.mark.parametrize("call", sorted(HISTOGRAM_OUT_CALLS))
def test_histogram_out(call):
    def fn(m, x):
        hist, edges = m.full((2,), 5.0), m.empty(0)
        result = HISTOGRAM_OUT_CALLS[call](m, x, (hist, edges))
        assert result[0] is hist and result[1] is edges
        return hist, edges

    same(fn, make_pair((3, 4), "float32", "transposed"), compare_warnings=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.histogram(x.to(m.int64), 3),
        lambda m, x: m.histogram(x.to(m.int64), 3, range=(0.0, 1.0)),
        lambda m, x: m.histogram(x, 0),
        lambda m, x: m.histogram(x, -2, range=(0.0, 1.0)),
        lambda m, x: m.histogram(x, 3, range=(1.0,)),
        lambda m, x: m.histogram(x, 3, range=(3.0, 1.0)),
        lambda m, x: m.histogram(x, 3, range=(float("nan"), 1.0)),
        lambda m, x: m.histogram(x, 3, range=(0.0, float("inf"))),
        lambda m, x: m.histogram(m.tensor([float("nan"), 1.0]), 3),
        lambda m, x: m.histogram(x, 3, weight=m.ones(3)),
        lambda m, x: m.histogram(x, 3, weight=m.ones(12, dtype=m.float64)),
        lambda m, x: m.histogram(x, m.tensor([0.0, 1.0, 3.0], dtype=m.float64)),
        lambda m, x: m.histogram(x, m.tensor([[0.0, 1.0, 3.0]])),
        lambda m, x: m.histogram(x, m.tensor([])),
        lambda m, x: m.histogram(x, m.tensor([1.0])),
        lambda m, x: m.histogram(x, 3, out=(m.empty(0, dtype=m.float64), m.empty(0))),
        lambda m, x: m.histogram(x, 3, out=(m.empty(0), m.empty(0, dtype=m.float64))),
        lambda m, x: m.histogram(x, 3, range=(0, 1), density=1.5),
    ],
)
def test_histogram_errors(call):
    error(call, make_pair((3, 4)))


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x, w: m.histogram(x, 3),
        lambda m, x, w: m.histogram(x.detach(), 3, weight=w),
        lambda m, x, w: m.histogram(x.detach(), m.stack([w.min(), w.max()])),
    ],
)
def test_histogram_records_not_implemented(call):
    """Both results get a ``NotImplemented`` node, whose backward raises."""
    rng = np.random.default_rng(0)
    data, weight = rng.standard_normal(5), rng.random(5)
    results = []
    for lib in (vg, torch):
        x = lib.tensor(data, requires_grad=True)
        w = lib.tensor(weight, requires_grad=True)
        hist, edges = call(lib, x, w)
        results.append((hist, edges))
        for t in (hist, edges):
            assert (
                t.requires_grad
                and type(t.grad_fn).__name__ == "NotImplemented"
                or (lib is vg and t.grad_fn.name() == "NotImplemented")
            )
    assert_same(tuple(r.detach() for r in results[0]), tuple(r.detach() for r in results[1]))
    assert_same_error(lambda: results[0][0].sum().backward(),
                      lambda: results[1][0].sum().backward())  # fmt: skip
    with pytest.raises(RuntimeError, match="functions with out=... arguments"):
        vg.histogram(vg.ones(3, requires_grad=True), 3, out=(vg.empty(0), vg.empty(0)))


# --- histogramdd ---------------------------------------------------------------------------------

HISTOGRAMDD_CALLS = {
    "int bins": lambda m, x: m.histogramdd(x, 3),
    "list bins": lambda m, x: m.histogramdd(x, [2] * (x.shape[-1] - 1) + [4]),
    "range": lambda m, x: m.histogramdd(x, 2, range=[-1.0, 1.0] * x.shape[-1]),
    "weight, density": lambda m, x: m.histogramdd(x, 3, weight=x[..., 0].abs(), density=True),
    "edges": lambda m, x: m.histogramdd(x, [m.tensor([-2.0, 0.0, 0.5, 3.0])] * x.shape[-1]),
    "edges, density": lambda m, x: m.histogramdd(
        x, [m.linspace(-1, 1, 3)] * x.shape[-1], density=True, range=[0.0, 1.0]
    ),
}


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
@pytest.mark.parametrize("shape", [(7, 2), (2, 3, 3), (5, 1)])
@pytest.mark.parametrize("call", sorted(HISTOGRAMDD_CALLS))
def test_histogramdd(call, shape, layout):
    same(lambda m, x: _tuple(HISTOGRAMDD_CALLS[call](m, x)), make_pair(shape, "float32", layout))


def _tuple(result):
    return (result.hist, *result.bin_edges)


@pytest.mark.parametrize("data", [np.zeros((0, 2)), [[1.0, 2.0]], [[1.0, 2.0], [1.0, 2.0]]])
@pytest.mark.parametrize("call", ["int bins", "edges", "weight, density"])
def test_histogramdd_empty_and_single(call, data):
    same(lambda m, x: _tuple(HISTOGRAMDD_CALLS[call](m, x)), values(data, "float32"))


def test_histogramdd_return_type_and_given_edges():
    v, t = make_pair((4, 2))
    edges = [vg.tensor([0.0, 1.0]), vg.tensor([-1.0, 0.0, 1.0])]
    result = vg.histogramdd(v, edges)
    t_result = torch.histogramdd(t, [torch.tensor([0.0, 1.0]), torch.tensor([-1.0, 0.0, 1.0])])
    assert type(result).__name__ == type(t_result).__name__ == "histogramdd"
    assert isinstance(result.bin_edges, tuple) and isinstance(t_result.bin_edges, tuple)
    assert result.bin_edges[0] is edges[0]  # the edges given come back, as in PyTorch


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.histogramdd(x[:, 0], 2),
        lambda m, x: m.histogramdd(x, [2]),
        lambda m, x: m.histogramdd(x, [2, 0, 1]),
        lambda m, x: m.histogramdd(x, 2, range=[0.0, 1.0]),
        lambda m, x: m.histogramdd(x, 2, range=[0.0, 1.0, 3.0, 2.0, 0.0, 1.0]),
        lambda m, x: m.histogramdd(x, 2, weight=m.ones(3)),
        lambda m, x: m.histogramdd(x, 2, weight=m.ones(4, dtype=m.float64)),
        lambda m, x: m.histogramdd(x, [m.tensor([0.0, 1.0])]),
        lambda m, x: m.histogramdd(x, [m.tensor([0.0, 1.0])] * 2 + [m.tensor([0.0])]),
        lambda m, x: m.histogramdd(x, [m.tensor([0.0, 1.0], dtype=m.float64)] * 3),
        lambda m, x: m.histogramdd(x.to(m.int64), 2),
        lambda m, x: m.histogramdd(x.to(m.float16), 2),
    ],
)
def test_histogramdd_errors(call):
    error(call, make_pair((4, 3)))


def test_histogramdd_records_not_implemented():
    results = []
    for lib in (vg, torch):
        x = lib.tensor([[0.5, 1.0], [2.0, 3.0]], requires_grad=True)
        results.append(lib.histogramdd(x, 2).hist)
    assert results[0].grad_fn.name() == type(results[1].grad_fn).__name__ == "NotImplemented"
    assert_same_error(lambda: results[0].sum().backward(), lambda: results[1].sum().backward())


# --- bincount ---------------------------------------------------------------------------------------

BINCOUNT_CALLS = {
    "counts": lambda m, x: m.bincount(x),
    "method, minlength": lambda m, x: x.bincount(minlength=12),
    "small minlength": lambda m, x: m.bincount(x, minlength=2),
    "float weights": lambda m, x: m.bincount(x, x.to(m.float32) / 3),
    "double weights": lambda m, x: m.bincount(x, weights=x.to(m.float64).sqrt()),
    "half weights": lambda m, x: m.bincount(x, weights=(x / 3).to(m.float16)),
    "int weights": lambda m, x: m.bincount(x, weights=x.to(m.int32), minlength=9),
    "bool weights": lambda m, x: m.bincount(x, weights=x > 2),
    "complex weights": lambda m, x: m.bincount(x, weights=x.to(m.complex64) * (1 + 2j)),
}


@pytest.mark.parametrize("layout", ["contiguous", "stepped", "offset", "expanded"])
@pytest.mark.parametrize("dtype", ["int64", "uint8", "int16"])
@pytest.mark.parametrize("call", sorted(BINCOUNT_CALLS))
def test_bincount(call, dtype, layout):
    pair = make_pair((4, 3) if layout == "expanded" else (12,), dtype, layout, low=0, high=8)
    if layout == "expanded":
        pair = (pair[0][:, 0], pair[1][:, 0])  # an expanded 1-D input: stride 0
    # PyTorch warns once per process of complex weights cast to real; vizgrad every time.
    same(BINCOUNT_CALLS[call], pair, compare_warnings=call != "complex weights")


@pytest.mark.parametrize("call", ["counts", "method, minlength", "float weights"])
def test_bincount_empty(call):
    same(BINCOUNT_CALLS[call], values([], "int64"))
    same(lambda m, x: m.bincount(x, m.ones(0, dtype=m.float64)), values([], "int64"))


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.bincount(x - 3),
        lambda m, x: m.bincount(x.view(3, 4)),
        lambda m, x: m.bincount(x[0]),
        lambda m, x: m.bincount(x.view(3, 4)[:0]),
        lambda m, x: m.bincount(x.to(m.float32)),
        lambda m, x: m.bincount(x > 3),
        lambda m, x: m.bincount(x, minlength=-1),
        lambda m, x: m.bincount(x.to(m.float32), minlength=-1),
        lambda m, x: m.bincount(x[:0], minlength=-1),
        lambda m, x: m.bincount(x, weights=m.ones(5)),
        lambda m, x: m.bincount(x, weights=m.ones(12, 1)),
        lambda m, x: m.bincount(x, weights=m.ones(())),
        lambda m, x: m.bincount(x, minlength=2.5),
    ],
)
def test_bincount_errors(call):
    error(call, make_pair((12,), "int64", low=0, high=8))


def test_bincount_records_not_implemented():
    results = []
    for lib in (vg, torch):
        weights = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        result = lib.bincount(lib.tensor([0, 2, 2]), weights)
        assert result.requires_grad
        results.append(result)
    assert results[0].grad_fn.name() == type(results[1].grad_fn).__name__ == "NotImplemented"
    assert_same(results[0].detach(), results[1].detach())
    assert_same_error(lambda: results[0].sum().backward(), lambda: results[1].sum().backward())

"""Statistics over a dim, against PyTorch: ``diff``, ``quantile``, ``nanquantile``, ``cov``,
``corrcoef``, ``trapezoid``, ``trapz`` and ``cumulative_trapezoid``.

Values, dtypes, shapes and strides on every layout, 0-dim, empty and batched inputs;
``out=``; the errors PyTorch raises for bad input (class and message); gradients (the
``grad_fn`` of the composite's last step, ``.grad`` against torch's, ``gradcheck``).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients
from oracle import (
    LAYOUTS,
    assert_same_outcome,
    error_for_pairs,
    make_pair,
    pair_of_values,
    same_for_pairs,
)

import vizgrad as vg

same = same_for_pairs
error = error_for_pairs
values = pair_of_values


def _tensor(lib, data, dtype):
    return lib.tensor(data, dtype=getattr(lib, dtype))


# --- diff --------------------------------------------------------------------------------------

DIFF_CALLS = {
    "default": lambda m, x: m.diff(x),
    "method": lambda m, x: x.diff(),
    "n=2": lambda m, x: m.diff(x, n=2),
    "n=0": lambda m, x: m.diff(x, n=0),
    "n beyond length": lambda m, x: m.diff(x, n=9),
    "dim=0": lambda m, x: m.diff(x, 1, 0),
    "prepend": lambda m, x: m.diff(x, prepend=x),
    "prepend+append n=3": lambda m, x: x.diff(3, 0, x, x.narrow(0, 0, 1)),
    "prepend n=0": lambda m, x: m.diff(x, n=0, prepend=x),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(6,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("call", sorted(DIFF_CALLS))
def test_diff(call, shape, layout):
    same(DIFF_CALLS[call], make_pair(shape, "float32", layout))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float16", "complex64"])
@pytest.mark.parametrize("call", ["default", "n=2", "n=0", "prepend+append n=3"])
def test_diff_dtypes(call, dtype):
    same(DIFF_CALLS[call], make_pair((3, 4), dtype, "transposed"))


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4), (1,)])
def test_diff_empty_and_short(shape):
    same(DIFF_CALLS["default"], make_pair(shape))
    same(DIFF_CALLS["n=2"], make_pair(shape))


def test_diff_promotes_prepend():
    same(lambda m, x, p: m.diff(x, prepend=p), make_pair((3,), "int32"), make_pair((2,), "float64"))


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.diff(x[0, 0]),  # 0-dim
        lambda m, x: m.diff(x, n=-1),
        lambda m, x: m.diff(x, dim=2),
        lambda m, x: m.diff(x, prepend=x[0]),
        lambda m, x: m.diff(x, append=x[:2]),  # dim -1 is compared: sizes differ on dim 0
        lambda m, x: m.diff(x, dim=5, prepend=x),
        lambda m, x: m.diff(x, prepend=1),
        lambda m, x: m.diff(x, n=0, out=m.empty(0, dtype=m.float64)),
        lambda m, x: m.diff(x, out=m.empty(0, dtype=m.int64)),
        lambda m, x: x.diff(out=m.empty(0)),
    ],
)
def test_diff_errors(call):
    error(call, make_pair((3, 4)))


@pytest.mark.parametrize("n", [0, 1, 2])
def test_diff_out(n):
    def call(m, x):
        out = m.full((5,), 7.0)
        result = m.diff(x, n=n, dim=0, out=out)
        assert result is out
        return out

    same(call, make_pair((3, 4), "float32", "transposed"))
    same(lambda m, x: m.diff(x > 0, n=n, out=m.empty(0, dtype=m.bool)), make_pair((6,)))


def test_diff_out_refuses_grad():
    def call(m):
        x = m.ones(3, requires_grad=True)
        return m.diff(x, out=m.empty(0))

    error(call)


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: m.diff(x),
        lambda m, x: m.diff(x, n=2, dim=0),
        lambda m, x: m.diff(x, n=0),
        lambda m, x: m.diff(x, n=2, prepend=x, append=x),
    ],
)
def test_diff_grad(fn):
    t = fn(torch, torch.ones(3, 4, requires_grad=True))
    name = t.grad_fn.name().replace("torch::", "vizgrad::")  # order 0 ends with copy_
    check_gradients(lambda x: fn(vg, x), lambda x: fn(torch, x), [(3, 4)], layouts=["transposed"],
                    grad_fn_name=name)  # fmt: skip


def test_diff_grad_of_prepend():
    check_gradients(lambda x, p: vg.diff(x, prepend=p, dim=0),
                    lambda x, p: torch.diff(x, prepend=p, dim=0), [(3, 4), (2, 4)])  # fmt: skip


# --- quantile, nanquantile ----------------------------------------------------------------------

INTERPOLATIONS = ["linear", "lower", "higher", "midpoint", "nearest"]
Q_KINDS = {
    "float": lambda m, dtype: 0.3,
    "0-dim": lambda m, dtype: _tensor(m, 0.75, dtype),
    "1-D": lambda m, dtype: _tensor(m, [0.0, 0.1, 0.5, 0.62, 1.0], dtype),
}
DIMS = [(None, False), (None, True), (0, False), (-1, True), (1, False)]


def _with_nans(shape, seed=0, dtype="float64"):
    """Values with ties and a few nans (one row all nan when there are rows)."""
    rng = np.random.default_rng(seed)
    data = rng.integers(-3, 4, size=shape).astype(dtype)
    data[rng.random(shape) < 0.2] = np.nan
    if len(shape) == 2:
        data[1] = np.nan
    return values(data)


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("dim, keepdim", DIMS)
@pytest.mark.parametrize("q_kind", sorted(Q_KINDS))
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
def test_quantile_values(name, interpolation, q_kind, dim, keepdim):
    def call(m, x):
        q = Q_KINDS[q_kind](m, "float64")
        return getattr(m, name)(x, q, dim, keepdim, interpolation=interpolation)

    same(call, make_pair((3, 5), "float64", "contiguous", seed=3))
    same(call, _with_nans((4, 5)))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (0, True), (-1, False)])
def test_quantile_layouts(dim, keepdim, name, shape, layout):
    """Strides too: the result is the transposed gather of sorted rows."""
    pair = make_pair(shape, "float32", layout)
    same(lambda m, x: getattr(m, name)(x, _tensor(m, [0.2, 0.9], "float32"), dim, keepdim), pair)
    same(lambda m, x: getattr(x, name)(0.4, dim=dim, keepdim=keepdim), pair)


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (0, True), (-1, False)])
@pytest.mark.parametrize("q", [lambda m: 0.5, lambda m: m.tensor([0.25, 1.0], dtype=m.float64)])
def test_quantile_zero_dim_and_single(q, dim, keepdim, name):
    same(lambda m, x: getattr(m, name)(x, q(m), dim, keepdim), values(2.5))
    same(lambda m, x: getattr(m, name)(x, q(m), dim, keepdim), values([[2.5]]))


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_all_nan(name):
    same(lambda m, x: getattr(m, name)(x, 0.5), values(np.nan))
    same(lambda m, x: getattr(m, name)(x, 0.5, dim=0), values([np.nan, np.nan, 1.0]))


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize(
    "call",
    [
        lambda f, m, x: f(x, 1.5),
        lambda f, m, x: f(x, -0.25),
        lambda f, m, x: f(x, float("nan")),
        lambda f, m, x: f(x, 1.5, interpolation="bogus"),
        lambda f, m, x: f(x, 0.5, interpolation="bogus"),
        lambda f, m, x: f(x, m.tensor([0.5, 1.2])),
        lambda f, m, x: f(x, m.tensor([[0.5]])),
        lambda f, m, x: f(x, m.tensor([0.5], dtype=m.float64)),
        lambda f, m, x: f(x.to(m.int64), 0.5),
        lambda f, m, x: f(x.to(m.float16), 0.5),
        lambda f, m, x: f(x[:0], 0.5),
        lambda f, m, x: f(x[:0], 2.0),
        lambda f, m, x: f(x, 0.5, dim=2),
        lambda f, m, x: f(x, 0.5, out=m.empty(0, dtype=m.float64)),
        lambda f, m, x: f(x, 0.5, interpolation=3),
    ],
)
def test_quantile_errors(name, call):
    error(lambda m, x: call(getattr(m, name), m, x), make_pair((3, 4)))


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("q_kind", sorted(Q_KINDS))
def test_quantile_out(name, q_kind):
    def call(m, x):
        out = m.full((2,), 9.0)
        result = getattr(m, name)(x, Q_KINDS[q_kind](m, "float32"), 1, True, out=out)
        assert result is out
        return out

    same(call, make_pair((3, 4), "float32", "stepped"), compare_warnings=True)


def test_quantile_out_records_copy():
    """``quantile.out`` is composite: ``out`` gets the ``CopyBackwards`` of ``copy_``."""
    v = vg.tensor([1.0, 3.0, 2.0], requires_grad=True)
    out = vg.empty(0)
    vg.quantile(v, 0.5, out=out)
    t = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
    t_out = torch.empty(0)
    torch.quantile(t, 0.5, out=t_out)
    assert out.grad_fn.name() == t_out.grad_fn.name().replace("torch::", "vizgrad::")


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize("dim, keepdim", [(None, False), (0, True), (1, False)])
def test_quantile_grad(name, interpolation, dim, keepdim):
    def fn(m, x):
        q = m.tensor([0.1, 0.5, 0.8], dtype=m.float64)
        return getattr(m, name)(x, q, dim, keepdim, interpolation=interpolation)

    check_gradients(lambda x: fn(vg, x), lambda x: fn(torch, x), [(3, 4)],
                    layouts=["transposed"])  # fmt: skip
    check_gradients(lambda x: getattr(vg, name)(x, 0.3, dim, interpolation=interpolation),
                    lambda x: getattr(torch, name)(x, 0.3, dim, interpolation=interpolation),
                    [(3, 4)])  # fmt: skip


# --- cov, corrcoef --------------------------------------------------------------------------------

COV_CALLS = {
    "cov": lambda m, x: m.cov(x),
    "cov method": lambda m, x: x.cov(),
    "correction=0": lambda m, x: m.cov(x, correction=0),
    "correction=2": lambda m, x: m.cov(x, correction=2),
    "fweights": lambda m, x: m.cov(x, fweights=m.arange(1, x.shape[-1] + 1)),
    "aweights": lambda m, x: m.cov(x, aweights=m.linspace(0.5, 2, x.shape[-1])),
    "both": lambda m, x: m.cov(
        x,
        correction=3,
        fweights=m.arange(1, x.shape[-1] + 1),
        aweights=m.linspace(0.5, 2, x.shape[-1]),
    ),  # fmt: skip
    "both, correction=0": lambda m, x: m.cov(
        x,
        correction=0,
        fweights=m.ones(x.shape[-1], dtype=m.int32),
        aweights=m.linspace(0.5, 2, x.shape[-1], dtype=m.float64),
    ),  # fmt: skip
    "corrcoef": lambda m, x: m.corrcoef(x),
    "corrcoef method": lambda m, x: x.corrcoef(),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(5,), (3, 5), (1, 4), (4, 1), (2, 2)])
@pytest.mark.parametrize("call", sorted(COV_CALLS))
def test_cov_corrcoef(call, shape, layout):
    same(COV_CALLS[call], make_pair(shape, "float64", layout), compare_warnings=True)


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float32", "complex128"])
@pytest.mark.parametrize("call", sorted(COV_CALLS))
def test_cov_corrcoef_dtypes(call, dtype):
    same(COV_CALLS[call], make_pair((3, 4), dtype, "transposed"), compare_warnings=True)


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3), ()])
@pytest.mark.parametrize("call", ["cov", "correction=0", "corrcoef", "fweights", "aweights"])
def test_cov_corrcoef_empty_and_zero_dim(call, shape):
    same(COV_CALLS[call], make_pair(shape, "float64"), compare_warnings=True)


def test_cov_of_constant_rows():
    same(COV_CALLS["corrcoef"], values([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]]), compare_warnings=True)
    same(COV_CALLS["corrcoef"], values([2.0, 2.0]), compare_warnings=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.cov(x.unsqueeze(0)),
        lambda m, x: m.corrcoef(x.unsqueeze(0)),
        lambda m, x: m.cov(x > 0),
        lambda m, x: m.cov(x, fweights=m.ones(2, 4, dtype=m.int64)),
        lambda m, x: m.cov(x, fweights=m.ones(4)),
        lambda m, x: m.cov(x, fweights=m.ones(3, dtype=m.int64)),
        lambda m, x: m.cov(x, fweights=m.tensor([1, -1, 1, 1])),
        lambda m, x: m.cov(x, fweights=m.zeros(4, dtype=m.int64)),
        lambda m, x: m.cov(x, aweights=m.ones(2, 4)),
        lambda m, x: m.cov(x, aweights=m.ones(4, dtype=m.int64)),
        lambda m, x: m.cov(x, aweights=m.ones(4, dtype=m.complex64)),
        lambda m, x: m.cov(x, aweights=m.ones(5)),
        lambda m, x: m.cov(x, aweights=m.tensor([1.0, -1.0, 1.0, 1.0])),
        lambda m, x: m.cov(x, correction=1.5),
    ],
)
def test_cov_errors(call):
    error(call, make_pair((3, 4), "float32"))


def test_cov_single_weighted_observation_zeroes_input():
    """PyTorch's corner case for one observation and one kind of weights: it zeroes the
    input itself (``in.zero_()``), and an integer input's covariance is float."""
    for dtype in ("float64", "int64"):
        v, t = make_pair((3, 1), dtype)
        assert_same_outcome(lambda v=v: (vg.cov(v, fweights=vg.tensor([2])), v),
                            lambda t=t: (torch.cov(t, fweights=torch.tensor([2])), t))  # fmt: skip


@pytest.mark.parametrize("name", ["cov", "correction=0", "fweights", "aweights", "corrcoef"])
@pytest.mark.parametrize("shape", [(3, 5), (5,)])
def test_cov_corrcoef_grad(name, shape):
    fn = COV_CALLS[name]
    check_gradients(lambda x: fn(vg, x), lambda x: fn(torch, x), [shape], layouts=["transposed"])


def test_cov_grad_of_aweights():
    def fn(m, x, w):
        return m.cov(x, aweights=w.abs() + 0.5)

    check_gradients(lambda x, w: fn(vg, x, w), lambda x, w: fn(torch, x, w), [(2, 4), (4,)])


# --- trapezoid, trapz, cumulative_trapezoid ------------------------------------------------------

TRAPEZOID_NAMES = ["trapezoid", "trapz", "cumulative_trapezoid"]
TRAPEZOID_CALLS = {
    "y": lambda f, m, y: f(y),
    "dx": lambda f, m, y: f(y, dx=0.5),
    "int dx, dim 0": lambda f, m, y: f(y, dx=3, dim=0),
    "x 1-D": lambda f, m, y: f(y, m.linspace(0, 2, y.shape[-1]) ** 2),
    "x 1-D dim 0": lambda f, m, y: f(y, m.arange(y.shape[0], dtype=m.float64), dim=0),
    "x same shape": lambda f, m, y: f(y, y.cumsum(-1)),
    "x last dims": lambda f, m, y: f(y, m.ones(y.shape[1:]).cumsum(-1), dim=-1),
    "x broadcast dim 0": lambda f, m, y: f(y, y[:1].cumsum(-1), dim=0),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
@pytest.mark.parametrize("call", sorted(TRAPEZOID_CALLS))
@pytest.mark.parametrize("name", TRAPEZOID_NAMES)
def test_trapezoid(name, call, shape, layout):
    same(lambda m, y: TRAPEZOID_CALLS[call](getattr(m, name), m, y),
         make_pair(shape, "float32", layout))  # fmt: skip


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float64", "complex64"])
@pytest.mark.parametrize("call", ["y", "dx", "x 1-D", "x same shape"])
@pytest.mark.parametrize("name", TRAPEZOID_NAMES)
def test_trapezoid_dtypes(name, call, dtype):
    same(lambda m, y: TRAPEZOID_CALLS[call](getattr(m, name), m, y), make_pair((3, 4), dtype))


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4), (1,), (3, 1)])
@pytest.mark.parametrize("call", ["y", "dx", "x same shape"])
@pytest.mark.parametrize("name", TRAPEZOID_NAMES)
def test_trapezoid_empty_and_single(name, call, shape):
    same(lambda m, y: TRAPEZOID_CALLS[call](getattr(m, name), m, y), make_pair(shape))


@pytest.mark.parametrize(
    "call",
    [
        lambda f, m, y: f(y > 0),
        lambda f, m, y: f(y > 0, dx=2.0),
        lambda f, m, y: f(y, y > 0),
        lambda f, m, y: f(y, dx=True),
        lambda f, m, y: f(y, dx=1j),
        lambda f, m, y: f(y, m.ones(3)),
        lambda f, m, y: f(y, m.ones(2, 2, 4)),
        lambda f, m, y: f(y, dim=2),
        lambda f, m, y: f(y, m.ones(4), dim=-3),
        lambda f, m, y: f(y[0, 0]),
        lambda f, m, y: f(y[0, 0], dx=2),
        lambda f, m, y: f(y, dx="a"),
    ],
)
@pytest.mark.parametrize("name", TRAPEZOID_NAMES)
def test_trapezoid_errors(name, call):
    def fn(m, y):
        return call(getattr(m, name), m, y)

    try:
        fn(torch, make_pair((3, 4))[1])
    except Exception:  # noqa: BLE001 - only the calls PyTorch refuses are compared as errors
        error(fn, make_pair((3, 4)))
    else:
        same(fn, make_pair((3, 4)))


@pytest.mark.parametrize("call", ["y", "dx", "int dx, dim 0", "x same shape", "x 1-D"])
@pytest.mark.parametrize("name", TRAPEZOID_NAMES)
def test_trapezoid_grad(name, call):
    def fn(m, y):
        return TRAPEZOID_CALLS[call](getattr(m, name), m, y.double())

    check_gradients(lambda y: fn(vg, y), lambda y: fn(torch, y), [(3, 4)], layouts=["stepped"])


@pytest.mark.parametrize("name", TRAPEZOID_NAMES)
def test_trapezoid_grad_of_x(name):
    check_gradients(lambda y, x: getattr(vg, name)(y, x), lambda y, x: getattr(torch, name)(y, x),
                    [(3, 4), (4,)])  # fmt: skip


def test_no_cumtrapz():
    """PyTorch 2.13 has no ``torch.cumtrapz`` (only the ``cumulative_trapezoid`` name), and
    neither does vizgrad; ``Tensor`` has none of the trapezoid functions as methods."""
    assert not hasattr(torch, "cumtrapz") and not hasattr(vg, "cumtrapz")
    for name in TRAPEZOID_NAMES:
        assert hasattr(torch.Tensor, name) == hasattr(vg.Tensor, name)

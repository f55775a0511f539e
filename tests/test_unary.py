"""Unary math, clamp, rounding and value tests against PyTorch."""

from __future__ import annotations

import warnings

import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg

FLOATING_FUNCTIONS = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
                      "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "arcsin",
                      "arccos", "arctan", "sinh", "cosh", "tanh", "sigmoid", "erf"]  # fmt: skip
KEEPING_FUNCTIONS = ["abs", "absolute", "neg", "negative", "sign", "sgn", "square", "relu",
                     "floor", "ceil", "trunc", "fix", "round", "frac"]  # fmt: skip
VALUE_TESTS = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"]
ALL_FUNCTIONS = FLOATING_FUNCTIONS + KEEPING_FUNCTIONS + VALUE_TESTS
DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64"]
# Where float16 and complex answers differ by rounding only, compare loosely.
LOOSE = {"float16": 2e-3, "complex64": 1e-4}


def same_outcome(vg_call, torch_call, **kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = torch_call()
    except Exception:  # noqa: BLE001 - whatever torch raises, vizgrad must raise too
        assert_same_error(vg_call, torch_call)
        return None
    actual = vg_call()
    assert_same(actual, expected, **kwargs)
    return actual, expected


def pair(shape, dtype, layout="contiguous", seed=0):
    # Inside (-1, 1) for floats, so that asin and acos are defined; small integers.
    bounds = {"low": -0.9, "high": 0.9} if dtype[0] in "fc" else {"low": -2, "high": 3}
    return make_pair(shape, dtype, layout, seed, **bounds)


def tolerance(dtype):
    tol = LOOSE.get(dtype, 1e-5 if dtype != "float64" else 1e-10)
    return {"rtol": tol, "atol": tol}


@pytest.mark.parametrize("name", ALL_FUNCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_dtypes(name, dtype):
    v, t = make_pair((3, 4), dtype, "contiguous", 0, low=-2, high=2)
    same_outcome(lambda: getattr(vg, name)(v), lambda: getattr(torch, name)(t), **tolerance(dtype))
    same_outcome(lambda: getattr(v, name)(), lambda: getattr(t, name)(), **tolerance(dtype))


@pytest.mark.parametrize("name", ALL_FUNCTIONS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_unary_layouts(name, layout):
    v, t = make_pair((4, 3, 5), "float32", layout, 1, low=-0.9, high=0.9)
    same_outcome(lambda: getattr(vg, name)(v), lambda: getattr(torch, name)(t))
    v0, t0 = make_pair((), "float64", "contiguous", 2, low=-0.9, high=0.9)
    same_outcome(lambda: getattr(vg, name)(v0), lambda: getattr(torch, name)(t0))


SPECIAL = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 2.5, -2.5, 0.5, -1.0, 1e30]


@pytest.mark.parametrize("name", ALL_FUNCTIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_special_values(name, dtype):
    v = vg.tensor(SPECIAL, dtype=getattr(vg, dtype))
    t = torch.tensor(SPECIAL, dtype=getattr(torch, dtype))
    same_outcome(lambda: getattr(vg, name)(v), lambda: getattr(torch, name)(t), **tolerance(dtype))


INPLACE = [n for n in FLOATING_FUNCTIONS + KEEPING_FUNCTIONS if n not in ()]


@pytest.mark.parametrize("name", INPLACE)
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32", "complex64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
def test_unary_inplace(name, dtype, layout):
    v, t = pair((3, 4), dtype, layout, 3)
    outcome = same_outcome(lambda: getattr(v, name + "_")(), lambda: getattr(t, name + "_")(),
                           **tolerance(dtype))  # fmt: skip
    if outcome is not None:
        assert outcome[0] is v
        assert v._version == t._version
    if hasattr(torch, name + "_"):
        v, t = pair((3, 4), dtype, layout, 3)
        same_outcome(lambda: getattr(vg, name + "_")(v), lambda: getattr(torch, name + "_")(t),
                     **tolerance(dtype))  # fmt: skip


OUT_FUNCTIONS = [n for n in ALL_FUNCTIONS if n not in ("relu", "isnan", "isinf", "isfinite")]


@pytest.mark.parametrize("name", OUT_FUNCTIONS)
@pytest.mark.parametrize("in_dtype", ["int64", "float32"])
@pytest.mark.parametrize("out_dtype", ["bool", "int64", "float32", "float64"])
@pytest.mark.parametrize("out_shape", [(3, 4), (0,)])
def test_unary_out(name, in_dtype, out_dtype, out_shape):
    v, t = pair((3, 4), in_dtype, "transposed", 4)
    v_out = vg.zeros(*out_shape, dtype=getattr(vg, out_dtype))
    t_out = torch.zeros(*out_shape, dtype=getattr(torch, out_dtype))
    outcome = same_outcome(lambda: getattr(vg, name)(v, out=v_out),
                           lambda: getattr(torch, name)(t, out=t_out), rtol=1e-6)  # fmt: skip
    if outcome is not None:
        assert outcome[0] is v_out
        assert v_out._version == t_out._version


def test_functions_without_out():
    v, t = make_pair((3,), "float32")
    for name in ("relu", "isnan", "isinf", "isfinite"):
        assert_same_error(lambda name=name: getattr(vg, name)(v, out=v),
                          lambda name=name: getattr(torch, name)(t, out=t))  # fmt: skip


def test_neg_bool_message():
    v, t = make_pair((3,), "bool")
    assert_same_error(lambda: vg.neg(v), lambda: torch.neg(t))
    assert_same_error(lambda: -v, lambda: -t)


# --- round ---------------------------------------------------------------------------


@pytest.mark.parametrize("decimals", [None, 0, 1, 2, -1, -2])
@pytest.mark.parametrize("dtype", ["int64", "bool", "float16", "float32", "float64", "complex64"])
def test_round_decimals(decimals, dtype):
    v, t = make_pair((3, 4), dtype, "stepped", 5, low=-500, high=500)
    kwargs = {} if decimals is None else {"decimals": decimals}
    same_outcome(lambda: vg.round(v, **kwargs), lambda: torch.round(t, **kwargs),
                 **tolerance(dtype))  # fmt: skip
    same_outcome(lambda: v.round(**kwargs), lambda: t.round(**kwargs), **tolerance(dtype))
    vc, tc = make_pair((3, 4), dtype, "stepped", 5, low=-500, high=500)
    same_outcome(lambda: vc.round_(**kwargs), lambda: tc.round_(**kwargs), **tolerance(dtype))
    v_out, t_out = vg.zeros(0, dtype=vg.float64), torch.zeros(0, dtype=torch.float64)
    same_outcome(lambda: vg.round(v, out=v_out, **kwargs),
                 lambda: torch.round(t, out=t_out, **kwargs))  # fmt: skip


def test_round_half_to_even():
    values = [0.5, 1.5, 2.5, -0.5, -1.5, 2.675, 1.005]
    v, t = vg.tensor(values, dtype=vg.float64), torch.tensor(values, dtype=torch.float64)
    assert_same(vg.round(v), torch.round(t))
    assert_same(vg.round(v, decimals=2), torch.round(t, decimals=2))


# --- clamp ---------------------------------------------------------------------------

BOUNDS = [(0, None), (None, 1), (-1, 1), (1, -1), (0.5, None), (None, 2.5), (-1.5, 1.5),
          (True, None), ("t", None), (None, "t"), ("t", "t"), ("t0", "t0"),
          (None, None)]  # fmt: skip


def _bound(kind, seed, dtype):
    if kind == "t":
        return make_pair((4,), dtype, "contiguous", seed, low=-1, high=1)
    if kind == "t0":
        return make_pair((), "float64", "contiguous", seed, low=-1, high=1)
    return kind, kind


@pytest.mark.parametrize("bounds", BOUNDS, ids=repr)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float32",
                                   "complex64"])  # fmt: skip
@pytest.mark.parametrize("name", ["clamp", "clip"])
def test_clamp(bounds, dtype, name):
    v, t = make_pair((3, 4), dtype, "transposed", 6, low=-3, high=3)
    (vmin, tmin), (vmax, tmax) = _bound(bounds[0], 7, dtype), _bound(bounds[1], 8, dtype)
    same_outcome(lambda: getattr(vg, name)(v, vmin, vmax),
                 lambda: getattr(torch, name)(t, tmin, tmax))  # fmt: skip
    same_outcome(lambda: getattr(v, name)(min=vmin, max=vmax),
                 lambda: getattr(t, name)(min=tmin, max=tmax))  # fmt: skip
    vc, tc = make_pair((3, 4), dtype, "transposed", 6, low=-3, high=3)
    outcome = same_outcome(lambda: getattr(vc, name + "_")(vmin, vmax),
                           lambda: getattr(tc, name + "_")(tmin, tmax))  # fmt: skip
    if outcome is not None:
        assert outcome[0] is vc and vc._version == tc._version
    for out_dtype in ("float32", "int64"):
        v_out, t_out = (
            vg.zeros(0, dtype=getattr(vg, out_dtype)),
            torch.zeros(0, dtype=getattr(torch, out_dtype)),
        )
        same_outcome(
            lambda v_out=v_out: getattr(vg, name)(v, vmin, vmax, out=v_out),
            lambda t_out=t_out: getattr(torch, name)(t, tmin, tmax, out=t_out),
        )


@pytest.mark.parametrize("name", ["clamp_min", "clamp_max"])
@pytest.mark.parametrize("bound", [0, 1.5, True, "t"])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32", "complex64"])
def test_clamp_min_max(name, bound, dtype):
    v, t = make_pair((3, 4), dtype, "contiguous", 6, low=-3, high=3)
    vb, tb = _bound(bound, 7, dtype)
    same_outcome(lambda: getattr(vg, name)(v, vb), lambda: getattr(torch, name)(t, tb))
    same_outcome(lambda: getattr(v, name)(vb), lambda: getattr(t, name)(tb))
    vc, tc = make_pair((3, 4), dtype, "contiguous", 6, low=-3, high=3)
    same_outcome(lambda: getattr(vc, name + "_")(vb), lambda: getattr(tc, name + "_")(tb))


def test_clamp_errors():
    v, t = make_pair((3,), "uint8")
    assert_same_error(lambda: vg.clamp(v, -1, 300), lambda: torch.clamp(t, -1, 300))
    vi, ti = make_pair((3,), "int32")
    assert_same_error(lambda: vg.clamp(vi, max=2**40), lambda: torch.clamp(ti, max=2**40))
    assert_same_error(lambda: vg.clamp(vi, vi, 1), lambda: torch.clamp(ti, ti, 1))
    assert_same_error(lambda: vg.clamp(vi, "a"), lambda: torch.clamp(ti, "a"))
    nan = [float("nan"), 1.0, 5.0]
    assert_same(vg.clamp(vg.tensor(nan), 0, 2), torch.clamp(torch.tensor(nan), 0, 2))
    assert_same(
        vg.clamp(vg.tensor(nan), float("nan")), torch.clamp(torch.tensor(nan), float("nan"))
    )


# --- softmax and log_softmax ---------------------------------------------------------


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64", "bool", "complex64"])
def test_softmax(name, layout, dim, dtype):
    v, t = make_pair((3, 4, 5), dtype, layout, 11, low=-50, high=50)
    same_outcome(lambda: getattr(vg, name)(v, dim), lambda: getattr(torch, name)(t, dim),
                 **tolerance(dtype))  # fmt: skip
    same_outcome(lambda: getattr(v, name)(dim), lambda: getattr(t, name)(dim), **tolerance(dtype))
    same_outcome(lambda: getattr(vg, name)(v, dim, dtype=vg.float64),
                 lambda: getattr(torch, name)(t, dim, dtype=torch.float64))  # fmt: skip


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_edge_cases(name):
    big = [[1000.0, 0.0, -1000.0], [float("-inf"), 0.0, 1.0]]
    v, t = vg.tensor(big), torch.tensor(big)
    same_outcome(lambda: getattr(vg, name)(v, 1), lambda: getattr(torch, name)(t, 1))
    v0, t0 = vg.tensor(3.0), torch.tensor(3.0)
    same_outcome(lambda: getattr(vg, name)(v0, 0), lambda: getattr(torch, name)(t0, 0))
    vi, ti = vg.tensor(3), torch.tensor(3)
    same_outcome(lambda: getattr(vg, name)(vi, 0), lambda: getattr(torch, name)(ti, 0))
    ve, te = vg.zeros(0, 3), torch.zeros(0, 3)
    same_outcome(lambda: getattr(vg, name)(ve, 1), lambda: getattr(torch, name)(te, 1))
    assert_same_error(lambda: getattr(vg, name)(v, 2), lambda: getattr(torch, name)(t, 2))
    assert_same_error(lambda: getattr(vg, name)(v), lambda: getattr(torch, name)(t))
    assert_same_error(lambda: getattr(vg, name)(v, 0, dtype=vg.int64),
                      lambda: getattr(torch, name)(t, 0, dtype=torch.int64))  # fmt: skip
    v_out, t_out = vg.zeros(0), torch.zeros(0)
    same_outcome(lambda: getattr(vg, name)(v, 1, out=v_out),
                 lambda: getattr(torch, name)(t, 1, out=t_out))  # fmt: skip
    assert v_out._version == t_out._version

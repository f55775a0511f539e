"""Comparisons, closeness, logical and bitwise operators and ``where`` against PyTorch."""

from __future__ import annotations

import warnings

import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg

DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64"]
PAIRS = [(d, d) for d in DTYPES] + [("int32", "float32"), ("uint8", "int8"), ("bool", "int64"),
                                    ("float16", "complex64"), ("int64", "float64")]  # fmt: skip
COMPARISONS = ["eq", "ne", "lt", "le", "gt", "ge", "not_equal", "less", "less_equal", "greater",
               "greater_equal"]  # fmt: skip
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
           "bitwise_right_shift"]  # fmt: skip
BINARY = COMPARISONS + LOGICAL + BITWISE


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


def pairs(shape_a, shape_b, dtypes, layout="contiguous"):
    a = make_pair(shape_a, dtypes[0], layout, 0, low=-3, high=3)
    b = make_pair(shape_b, dtypes[1], "contiguous", 1, low=-3, high=3)
    return a, b


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtypes", PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
def test_binary_dtypes(name, dtypes):
    (va, ta), (vb, tb) = pairs((3, 4), (3, 4), dtypes)
    same_outcome(lambda: getattr(vg, name)(va, vb), lambda: getattr(torch, name)(ta, tb))
    same_outcome(lambda: getattr(va, name)(vb), lambda: getattr(ta, name)(tb))


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_binary_layouts(name, layout):
    (va, ta), (vb, tb) = pairs((4, 3, 5), (3, 1), ("int64", "int32"), layout)
    same_outcome(lambda: getattr(vg, name)(va, vb), lambda: getattr(torch, name)(ta, tb))
    same_outcome(lambda: getattr(vg, name)(vb, va), lambda: getattr(torch, name)(tb, ta))


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("scalar", [2, -1, 2.5, True, 1j, 70], ids=repr)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float32"])
def test_binary_scalars(name, scalar, dtype):
    va, ta = make_pair((2, 3), dtype, "transposed", 2, low=-3, high=3)
    same_outcome(lambda: getattr(vg, name)(va, scalar), lambda: getattr(torch, name)(ta, scalar))
    if name in BITWISE:  # the Scalar_Tensor overloads: a number first
        same_outcome(lambda: getattr(vg, name)(scalar, va),
                     lambda: getattr(torch, name)(scalar, ta))  # fmt: skip


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtypes", [("int32", "float64"), ("uint8", "int64"), ("bool", "int32")])
def test_binary_zero_dim(name, dtypes):
    (va, ta), (vb, tb) = pairs((2, 3), (), dtypes)
    same_outcome(lambda: getattr(vg, name)(va, vb), lambda: getattr(torch, name)(ta, tb))
    same_outcome(lambda: getattr(vg, name)(vb, va), lambda: getattr(torch, name)(tb, ta))


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtypes", [("int64", "float32"), ("float32", "int64"), ("bool", "int32"),
                                    ("int32", "int32")])  # fmt: skip
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
def test_binary_inplace(name, dtypes, layout):
    (va, ta), (vb, tb) = pairs((3, 4), (4,), dtypes, layout)
    outcome = same_outcome(lambda: getattr(va, name + "_")(vb), lambda: getattr(ta, name + "_")(tb))
    if outcome is not None:
        assert outcome[0] is va and va._version == ta._version


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("out_dtype", ["bool", "int64", "float32"])
@pytest.mark.parametrize("out_shape", [(3, 4), (0,)])
def test_binary_out(name, out_dtype, out_shape):
    (va, ta), (vb, tb) = pairs((4, 3), (3,), ("int64", "int32"), "transposed")
    v_out = vg.zeros(*out_shape, dtype=getattr(vg, out_dtype))
    t_out = torch.zeros(*out_shape, dtype=getattr(torch, out_dtype))
    outcome = same_outcome(lambda: getattr(vg, name)(va, vb, out=v_out),
                           lambda: getattr(torch, name)(ta, tb, out=t_out))  # fmt: skip
    if outcome is not None:
        assert outcome[0] is v_out and v_out._version == t_out._version


def test_shift_out_of_range():
    v, t = vg.tensor([1, -2, 7, -128]), torch.tensor([1, -2, 7, -128])
    for shift in [-1, 0, 3, 63, 64, 100]:
        assert_same(vg.bitwise_left_shift(v, shift), torch.bitwise_left_shift(t, shift))
        assert_same(vg.bitwise_right_shift(v, shift), torch.bitwise_right_shift(t, shift))
    vu, tu = vg.tensor([1, 2, 3], dtype=vg.uint8), torch.tensor([1, 2, 3], dtype=torch.uint8)
    for shift in [1, 7, 8, 9]:
        assert_same(vg.bitwise_left_shift(vu, shift), torch.bitwise_left_shift(tu, shift))
        assert_same(vg.bitwise_right_shift(vu, shift), torch.bitwise_right_shift(tu, shift))


@pytest.mark.parametrize("name", ["logical_not", "bitwise_not"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_unary_logical(name, dtype, layout):
    v, t = make_pair((3, 4), dtype, layout, 3, low=-2, high=2)
    same_outcome(lambda: getattr(vg, name)(v), lambda: getattr(torch, name)(t))
    same_outcome(lambda: getattr(v, name)(), lambda: getattr(t, name)())
    vc, tc = make_pair((3, 4), dtype, layout, 3, low=-2, high=2)
    outcome = same_outcome(lambda: getattr(vc, name + "_")(), lambda: getattr(tc, name + "_")())
    if outcome is not None:
        assert outcome[0] is vc and vc._version == tc._version
    for out_dtype in ("bool", "int16", "float32"):
        v_out = vg.zeros(0, dtype=getattr(vg, out_dtype))
        t_out = torch.zeros(0, dtype=getattr(torch, out_dtype))
        same_outcome(lambda v_out=v_out: getattr(vg, name)(v, out=v_out),
                     lambda t_out=t_out: getattr(torch, name)(t, out=t_out))  # fmt: skip


def test_tensor_only_arguments():
    v, t = make_pair((3,), "float32")
    for name in ["logical_and", "logical_or", "logical_xor", "isclose", "equal"]:
        assert_same_error(lambda name=name: getattr(vg, name)(v, 1),
                          lambda name=name: getattr(torch, name)(t, 1))  # fmt: skip


# --- isclose, allclose, equal --------------------------------------------------------

CLOSE_VALUES = [1.0, 1.0 + 1e-6, 1.1, float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e-9]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "int64", "bool"])
@pytest.mark.parametrize("kwargs", [{}, {"rtol": 0.2}, {"atol": 0.5}, {"equal_nan": True},
                                    {"rtol": 0, "atol": 0}])  # fmt: skip
def test_isclose(dtype, kwargs):
    values = CLOSE_VALUES if dtype[0] in "fc" else [0, 1, 2, 3, 4, 5, 6, 7, 100]
    ta = torch.tensor(values).to(getattr(torch, dtype))
    tb = ta.reshape(-1, 1)  # every value against every value, by broadcasting
    va, vb = vg.from_numpy(ta.numpy().copy()), vg.from_numpy(tb.numpy().copy())
    same_outcome(lambda: vg.isclose(va, vb, **kwargs), lambda: torch.isclose(ta, tb, **kwargs))
    same_outcome(lambda: va.isclose(vb, **kwargs), lambda: ta.isclose(tb, **kwargs))
    same_outcome(lambda: vg.allclose(va, vb, **kwargs), lambda: torch.allclose(ta, tb, **kwargs))
    same_outcome(lambda: vg.allclose(va, va, **kwargs), lambda: torch.allclose(ta, ta, **kwargs))


COMPLEX_CLOSE_VALUES = [3j, 3.00002j, 1 + 1j, 1 + 1.00001j, 2 - 2j, 1e-9j, 0j,
                        complex("nan+1j"), complex("inf+0j")]  # fmt: skip


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("kwargs", [{}, {"rtol": 1e-3}, {"atol": 1e-4}, {"equal_nan": True}])
def test_isclose_of_complex_numbers_measures_the_modulus(dtype, kwargs):
    """``|a - b| <= atol + rtol * |b|`` with complex moduli: 3j and 3.00002j are close
    (their imaginary parts count), as in PyTorch."""
    ta = torch.tensor(COMPLEX_CLOSE_VALUES, dtype=getattr(torch, dtype))
    tb = ta.reshape(-1, 1)
    va, vb = vg.from_numpy(ta.numpy().copy()), vg.from_numpy(tb.numpy().copy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no NumPy warning on the way
        assert_same(vg.isclose(va, vb, **kwargs), torch.isclose(ta, tb, **kwargs))


def test_isclose_errors():
    (va, ta), (vb, tb) = pairs((3,), (3,), ("int64", "float32"))
    assert_same_error(lambda: vg.isclose(va, vb), lambda: torch.isclose(ta, tb))
    v64 = vg.from_numpy(tb.double().numpy())
    assert_same_error(lambda: vg.allclose(vb, v64), lambda: torch.allclose(tb, tb.double()))
    assert_same_error(lambda: vg.isclose(vb, vb, rtol=-1), lambda: torch.isclose(tb, tb, rtol=-1))
    assert_same_error(lambda: vg.isclose(vb, vb, atol=-1), lambda: torch.isclose(tb, tb, atol=-1))
    (vc, tc), (vd, td) = pairs((3,), (2,), ("float32", "float32"))
    assert_same_error(lambda: vg.allclose(vc, vd), lambda: torch.allclose(tc, td))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_equal(layout):
    va, ta = make_pair((3, 4), "float32", layout)
    vb, tb = make_pair((3, 4), "float32", "contiguous")
    assert vg.equal(va, vb) == torch.equal(ta, tb)
    assert vg.equal(va, va) is torch.equal(ta, ta) is True
    assert va.equal(vb[:2]) == ta.equal(tb[:2])
    vi, ti = make_pair((3,), "int64")
    vf, tf = vg.from_numpy(ti.numpy().astype("float32")), ti.float()
    assert vg.equal(vi, vf) == torch.equal(ti, tf)
    nan = [float("nan")]
    assert vg.equal(vg.tensor(nan), vg.tensor(nan)) == torch.equal(torch.tensor(nan),
                                                                  torch.tensor(nan))  # fmt: skip


# --- where ---------------------------------------------------------------------------


def _source(kind, seed):
    if kind == "tensor":
        return make_pair((3, 4), "float32", "transposed", seed)
    if kind == "int_tensor":
        return make_pair((4,), "int32", "contiguous", seed)
    if kind == "zero_dim":
        return make_pair((), "float64", "contiguous", seed)
    return kind, kind


@pytest.mark.parametrize("x", ["tensor", "int_tensor", "zero_dim", 1, 2.5, True])
@pytest.mark.parametrize("y", ["tensor", "int_tensor", "zero_dim", 0, -1.5, False])
@pytest.mark.parametrize("cond_layout", ["contiguous", "expanded"])
def test_where(x, y, cond_layout):
    vc, tc = make_pair((3, 4), "bool", cond_layout, 9)
    (vx, tx), (vy, ty) = _source(x, 10), _source(y, 11)
    same_outcome(lambda: vg.where(vc, vx, vy), lambda: torch.where(tc, tx, ty))
    if isinstance(vx, vg.Tensor):
        same_outcome(lambda: vx.where(vc, vy), lambda: tx.where(tc, ty))
    for out_dtype in ("float32", "float64", "int32"):
        v_out = vg.zeros(0, dtype=getattr(vg, out_dtype))
        t_out = torch.zeros(0, dtype=getattr(torch, out_dtype))
        same_outcome(lambda v_out=v_out: vg.where(vc, vx, vy, out=v_out),
                     lambda t_out=t_out: torch.where(tc, tx, ty, out=t_out))  # fmt: skip


def test_where_errors():
    vi, ti = make_pair((3,), "int64")
    assert_same_error(lambda: vg.where(vi, vi, vi), lambda: torch.where(ti, ti, ti))
    vb, tb = make_pair((3,), "bool")
    assert_same_error(lambda: vg.where(vb, vi, "a"), lambda: torch.where(tb, ti, "a"))
    vs, ts = make_pair((2,), "int64")
    assert_same_error(lambda: vg.where(vb, vi, vs), lambda: torch.where(tb, ti, ts))


def test_where_condition_only():
    vb, tb = make_pair((3, 4), "bool", "transposed", 3)
    if not hasattr(vg, "nonzero"):
        pytest.fail("vizgrad.nonzero (indexing module) is not there yet")
    same_outcome(lambda: vg.where(vb), lambda: torch.where(tb))

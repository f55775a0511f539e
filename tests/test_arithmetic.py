"""Binary arithmetic against PyTorch: values, dtypes, strides, in-place, out= and errors."""

from __future__ import annotations

import warnings

import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg

# (name, extra keyword arguments); every op is called as fn(a, b, **kwargs).
BINARY_OPS = [
    ("add", {}),
    ("add", {"alpha": 2}),
    ("sub", {}),
    ("sub", {"alpha": 3}),
    ("mul", {}),
    ("div", {}),
    ("div", {"rounding_mode": "trunc"}),
    ("div", {"rounding_mode": "floor"}),
    ("true_divide", {}),
    ("divide", {}),
    ("floor_divide", {}),
    ("remainder", {}),
    ("fmod", {}),
    ("pow", {}),
    ("atan2", {}),
    ("arctan2", {}),
    ("maximum", {}),
    ("minimum", {}),
    ("fmax", {}),
    ("fmin", {}),
    ("rsub", {}),
    ("subtract", {}),
    ("multiply", {}),
]
OP_IDS = [f"{name}{'-' + '-'.join(map(str, kw.values())) if kw else ''}" for name, kw in BINARY_OPS]
DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64"]
DTYPE_PAIRS = [(d, d) for d in DTYPES] + [
    ("uint8", "int8"), ("int32", "float16"), ("bool", "float32"), ("int64", "float64"),
    ("float16", "float32"), ("float32", "complex64"), ("int16", "uint8"), ("bool", "int32"),
]  # fmt: skip
DIVISIONS = {"div", "true_divide", "divide", "floor_divide", "remainder", "fmod"}


def same_outcome(vg_call, torch_call, **kwargs):
    """Either both raise the same error, or both return the same tensor."""
    try:
        expected = torch_call()
    except Exception:  # noqa: BLE001 - whatever torch raises, vizgrad must raise too
        assert_same_error(vg_call, torch_call)
        return None
    actual = vg_call()
    assert_same(actual, expected, **kwargs)
    return actual, expected


def operands(name, shape_a, shape_b, dtypes, layout="contiguous", seed=0):
    # Divisors and exponents stay away from zero and negatives where torch would raise.
    low = 1 if name in DIVISIONS | {"pow"} else -5
    a = make_pair(shape_a, dtypes[0], layout, seed, low=1 if name == "pow" else -5, high=5)
    b = make_pair(shape_b, dtypes[1], "contiguous", seed + 1, low=low, high=5)
    return a, b


@pytest.mark.parametrize(("name", "kwargs"), BINARY_OPS, ids=OP_IDS)
@pytest.mark.parametrize("dtypes", DTYPE_PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
def test_binary_dtypes(name, kwargs, dtypes):
    (va, ta), (vb, tb) = operands(name, (3, 4), (3, 4), dtypes)
    same_outcome(lambda: getattr(vg, name)(va, vb, **kwargs),
                 lambda: getattr(torch, name)(ta, tb, **kwargs))  # fmt: skip


@pytest.mark.parametrize(("name", "kwargs"), BINARY_OPS, ids=OP_IDS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int64", "int32")])
def test_binary_layouts_and_broadcasting(name, kwargs, layout, dtypes):
    (va, ta), (vb, tb) = operands(name, (4, 3, 5), (3, 1), dtypes, layout)
    same_outcome(lambda: getattr(vg, name)(va, vb, **kwargs),
                 lambda: getattr(torch, name)(ta, tb, **kwargs))  # fmt: skip
    # The other way round: the broadcast operand first.
    same_outcome(lambda: getattr(vg, name)(vb, va, **kwargs),
                 lambda: getattr(torch, name)(tb, ta, **kwargs))  # fmt: skip


SCALARS = [2, -3, 2.5, True, False, 1 + 2j]
SCALAR_OPS = [op for op in BINARY_OPS if op[0] not in ("maximum", "minimum", "fmax", "fmin")]


@pytest.mark.parametrize(("name", "kwargs"), SCALAR_OPS, ids=[f"{n}{kw}" for n, kw in SCALAR_OPS])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float16", "float32", "complex64"])
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_binary_python_scalar(name, kwargs, dtype, scalar):
    if dtype == "float16" and isinstance(scalar, complex):
        return  # torch makes complex32 (ComplexHalf), a dtype vizgrad does not have
    va, ta = make_pair((2, 3), dtype, "transposed", 3, low=1, high=5)
    same_outcome(lambda: getattr(vg, name)(va, scalar, **kwargs),
                 lambda: getattr(torch, name)(ta, scalar, **kwargs))  # fmt: skip


@pytest.mark.parametrize(("name", "kwargs"), BINARY_OPS, ids=OP_IDS)
@pytest.mark.parametrize(
    "dtypes",
    [("int32", "float64"), ("float16", "float64"), ("uint8", "int64"), ("float32", "int64")],
)
def test_binary_zero_dim_operands(name, kwargs, dtypes):
    # A zero-dim tensor only changes the result dtype if it is of a higher category.
    (va, ta), (vb, tb) = operands(name, (2, 3), (), dtypes)
    same_outcome(lambda: getattr(vg, name)(va, vb, **kwargs),
                 lambda: getattr(torch, name)(ta, tb, **kwargs))  # fmt: skip
    same_outcome(lambda: getattr(vg, name)(vb, va, **kwargs),
                 lambda: getattr(torch, name)(tb, ta, **kwargs))  # fmt: skip
    same_outcome(lambda: getattr(vg, name)(vb, vb, **kwargs),
                 lambda: getattr(torch, name)(tb, tb, **kwargs))  # fmt: skip


INPLACE_OPS = [op for op in BINARY_OPS
               if op[0] not in ("maximum", "minimum", "fmax", "fmin", "rsub")]  # fmt: skip


@pytest.mark.parametrize(("name", "kwargs"), INPLACE_OPS, ids=[f"{n}{kw}" for n, kw in INPLACE_OPS])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("int64", "int32"),
                                    ("int32", "float32"), ("float64", "int64")])  # fmt: skip
def test_binary_inplace(name, kwargs, layout, dtypes):
    (va, ta), (vb, tb) = operands(name, (3, 4), (4,), dtypes, layout)
    outcome = same_outcome(lambda: getattr(va, name + "_")(vb, **kwargs),
                           lambda: getattr(ta, name + "_")(tb, **kwargs))  # fmt: skip
    if outcome is not None:
        result, _ = outcome
        assert result is va
        assert va._version == ta._version
        assert_same(va, ta)


@pytest.mark.parametrize("name", ["add", "mul", "div", "pow", "sub"])
def test_inplace_broadcast_shape_error(name):
    (va, ta), (vb, tb) = operands(name, (4,), (3, 4), ("float32", "float32"))
    assert_same_error(lambda: getattr(va, name + "_")(vb), lambda: getattr(ta, name + "_")(tb))


def test_inplace_cast_error():
    va, ta = make_pair((3,), "int64")
    assert_same_error(lambda: va.div_(2), lambda: ta.div_(2))
    assert_same_error(lambda: va.add_(1.5), lambda: ta.add_(1.5))
    assert_same_error(lambda: va.mul_(vg.tensor([1.5])), lambda: ta.mul_(torch.tensor([1.5])))


def test_broadcast_error():
    (va, ta), (vb, tb) = operands("add", (3,), (4,), ("float32", "float32"))
    assert_same_error(lambda: vg.add(va, vb), lambda: torch.add(ta, tb))
    assert_same_error(lambda: vg.atan2(va, vb), lambda: torch.atan2(ta, tb))


@pytest.mark.parametrize(("name", "kwargs"), BINARY_OPS, ids=OP_IDS)
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64", "complex64"])
def test_binary_out(name, kwargs, out_dtype):
    (va, ta), (vb, tb) = operands(name, (3, 4), (4,), ("int32", "float32"))
    if name == "rsub":
        assert_same_error(lambda: vg.rsub(va, vb, out=va), lambda: torch.rsub(ta, tb, out=ta))
        return
    for out_shape in [(3, 4), (0,), (2,)]:  # right shape, empty, wrong shape (resized, warns)
        v_out = vg.zeros(*out_shape, dtype=getattr(vg, out_dtype))
        t_out = torch.zeros(*out_shape, dtype=getattr(torch, out_dtype))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outcome = same_outcome(
                lambda v_out=v_out: getattr(vg, name)(va, vb, out=v_out, **kwargs),
                lambda t_out=t_out: getattr(torch, name)(ta, tb, out=t_out, **kwargs),
                rtol=1e-6,  # computed in float32, then written to the out dtype
            )
        if outcome is not None:
            assert outcome[0] is v_out
            assert_same(v_out, t_out, rtol=1e-6)
            assert v_out._version == t_out._version
            assert any("resized" in str(w.message) for w in caught) == (out_shape == (2,))


def test_out_overlapping_input_error():
    va, ta = make_pair((6,), "float32")
    v_in, t_in = va.as_strided((4,), (1,), 0), ta.as_strided((4,), (1,), 0)
    v_out, t_out = va.as_strided((4,), (1,), 1), ta.as_strided((4,), (1,), 1)
    assert_same_error(lambda: vg.add(v_in, 1, out=v_out), lambda: torch.add(t_in, 1, out=t_out))
    assert_same_error(lambda: v_out.mul_(v_in), lambda: t_out.mul_(t_in))


def test_writes_into_expanded_tensor_error():
    va, ta = make_pair((3, 4), "float32", "expanded")
    assert_same_error(lambda: va.add_(1), lambda: ta.add_(1))
    assert_same_error(lambda: va.mul_(va), lambda: ta.mul_(ta))


@pytest.mark.parametrize(("name", "kwargs"), [("floor_divide", {}), ("remainder", {}), ("fmod", {}),
                                              ("div", {"rounding_mode": "trunc"}),
                                              ("div", {"rounding_mode": "floor"})])  # fmt: skip
@pytest.mark.parametrize("dtype", ["int64", "uint8", "float32"])
def test_division_by_zero(name, kwargs, dtype):
    va, ta = make_pair((2, 3), dtype, "contiguous", 0)
    vz, tz = make_pair((3,), dtype, "contiguous", 1)
    vz.mul_(0), tz.mul_(0)
    same_outcome(lambda: getattr(vg, name)(va, vz, **kwargs),
                 lambda: getattr(torch, name)(ta, tz, **kwargs))  # fmt: skip
    same_outcome(lambda: getattr(vg, name)(va, 0, **kwargs),
                 lambda: getattr(torch, name)(ta, 0, **kwargs))  # fmt: skip


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float32"])
@pytest.mark.parametrize("exponent", [-1, -2, 0, 3, 2.5, -1.5, True])
def test_pow_scalar_exponent(dtype, exponent):
    va, ta = make_pair((2, 3), dtype, "stepped", 2)
    same_outcome(lambda: vg.pow(va, exponent), lambda: torch.pow(ta, exponent))
    same_outcome(lambda: va.clone().pow_(exponent), lambda: ta.clone().pow_(exponent))


@pytest.mark.parametrize("dtype", ["int64", "int8", "float64"])
def test_pow_negative_tensor_exponent(dtype):
    vb, tb = make_pair((2, 6), dtype, "contiguous", 4, low=-3, high=3)
    ve, te = make_pair((6,), dtype, "contiguous", 5, low=-3, high=3)
    same_outcome(lambda: vg.pow(vb, ve), lambda: torch.pow(tb, te))


@pytest.mark.parametrize("base", [2, -2, 1, 0, 2.5, True, 1j])
@pytest.mark.parametrize("dtype", ["bool", "int64", "uint8", "float32", "complex64"])
def test_pow_scalar_base(base, dtype):
    ve, te = make_pair((2, 3), dtype, "transposed", 6, low=-3, high=4)
    same_outcome(lambda: vg.pow(base, ve), lambda: torch.pow(base, te))
    v_out, t_out = vg.zeros(2, 3), torch.zeros(2, 3)
    same_outcome(lambda: vg.pow(base, ve, out=v_out), lambda: torch.pow(base, te, out=t_out))


@pytest.mark.parametrize("base", [5, -7, 2.5])
def test_remainder_scalar_self(base):
    ve, te = make_pair((4,), "int64", "stepped", 6, low=1, high=4)
    same_outcome(lambda: vg.remainder(base, ve), lambda: torch.remainder(base, te))


def test_div_rounding_mode_errors():
    va, ta = make_pair((3,), "float32")
    assert_same_error(lambda: vg.div(va, 2, rounding_mode="round"),
                      lambda: torch.div(ta, 2, rounding_mode="round"))  # fmt: skip
    assert_same_error(lambda: vg.div(va, "x"), lambda: torch.div(ta, "x"), match_message=False)
    assert_same_error(lambda: vg.maximum(va, 2), lambda: torch.maximum(ta, 2))


@pytest.mark.parametrize("alpha", [2, 2.5, True, -1])
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
@pytest.mark.parametrize("name", ["add", "sub", "rsub"])
def test_alpha(alpha, dtype, name):
    (va, ta), (vb, tb) = operands(name, (2, 3), (3,), (dtype, dtype))
    same_outcome(lambda: getattr(vg, name)(va, vb, alpha=alpha),
                 lambda: getattr(torch, name)(ta, tb, alpha=alpha))  # fmt: skip


# --- lerp, addcmul, addcdiv ----------------------------------------------------------

WEIGHTS = [0.25, 0.75, 1, "tensor", "tensor0d"]


@pytest.mark.parametrize("weight", WEIGHTS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64", "int64"])
def test_lerp(weight, layout, dtype):
    va, ta = make_pair((3, 4), dtype, layout, 0)
    vb, tb = make_pair((4,), dtype, "contiguous", 1)
    if weight == "tensor":
        vw, tw = make_pair((3, 1), dtype, "contiguous", 2, low=0, high=1)
    elif weight == "tensor0d":
        vw, tw = make_pair((), dtype, "contiguous", 2, low=0, high=1)
    else:
        vw = tw = weight
    same_outcome(lambda: vg.lerp(va, vb, vw), lambda: torch.lerp(ta, tb, tw))
    same_outcome(lambda: va.lerp(vb, vw), lambda: ta.lerp(tb, tw))
    v_out, t_out = vg.zeros(0, dtype=va.dtype), torch.zeros(0, dtype=ta.dtype)
    same_outcome(lambda: vg.lerp(va, vb, vw, out=v_out), lambda: torch.lerp(ta, tb, tw, out=t_out))


@pytest.mark.parametrize("end_dtype", ["float64", "float16", "int32", "uint8", "bool", "complex64"])
def test_lerp_dtype_errors(end_dtype):
    va, ta = make_pair((3,), "float32")
    vb, tb = make_pair((3,), end_dtype)
    assert_same_error(lambda: vg.lerp(va, vb, 0.5), lambda: torch.lerp(ta, tb, 0.5))
    assert_same_error(lambda: vg.lerp(va, va, vb), lambda: torch.lerp(ta, ta, tb))


@pytest.mark.parametrize("layout", ["transposed", "contiguous"])
@pytest.mark.parametrize("weight", [0.3, 0.7, -2.5])
def test_lerp_inplace(weight, layout):
    # In place, the written tensor is the start: each of the two formulas must read it
    # before it is overwritten.
    va, ta = make_pair((3, 4), "float32", layout)
    vb, tb = make_pair((3, 4), "float32", "contiguous", 1)
    assert va.lerp_(vb, weight) is va
    ta.lerp_(tb, weight)
    assert_same(va, ta)
    assert va._version == ta._version
    # The written tensor does not broadcast up to the others' shape.
    vr, tr = make_pair((4,), "float32", "contiguous", 2)
    assert_same_error(lambda: vr.lerp_(va, 0.5), lambda: tr.lerp_(ta, 0.5))


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize(
    "dtypes",
    [
        ("float32",) * 3,
        ("int64",) * 3,
        ("float64", "float32", "int32"),
        ("int64", "float32", "float32"),
        ("float32", "int64", "int32"),
        ("bool",) * 3,
        ("complex64",) * 3,
        ("float32", "bool", "bool"),
    ],
)
@pytest.mark.parametrize("value", [1, 2, -0.5, 2.5])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
def test_addcmul_addcdiv(name, dtypes, value, layout):  # fmt: skip
    vi, ti = make_pair((3, 4), dtypes[0], layout, 0)
    v1, t1 = make_pair((4,), dtypes[1], "contiguous", 1, low=1, high=5)
    v2, t2 = make_pair((3, 1), dtypes[2], "contiguous", 2, low=1, high=5)
    same_outcome(lambda: getattr(vg, name)(vi, v1, v2, value=value),
                 lambda: getattr(torch, name)(ti, t1, t2, value=value))  # fmt: skip
    same_outcome(lambda: getattr(vi, name)(v1, v2), lambda: getattr(ti, name)(t1, t2))
    vc, tc = vi.clone(), ti.clone()
    outcome = same_outcome(lambda: getattr(vc, name + "_")(v1, v2, value=value),
                           lambda: getattr(tc, name + "_")(t1, t2, value=value))  # fmt: skip
    if outcome is not None:
        assert outcome[0] is vc and vc._version == tc._version
    v_out, t_out = vg.zeros(3, 4), torch.zeros(3, 4)
    same_outcome(lambda: getattr(vg, name)(vi, v1, v2, value=value, out=v_out),
                 lambda: getattr(torch, name)(ti, t1, t2, value=value, out=t_out))  # fmt: skip


def test_addcmul_type_errors():
    va, ta = make_pair((3,), "float32")
    assert_same_error(lambda: vg.addcmul(va, va, 2), lambda: torch.addcmul(ta, ta, 2))

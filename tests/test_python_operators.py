"""Python's operators on tensors (``a + b``, ``2 / a``, ``a @ b``…) against PyTorch."""

from __future__ import annotations

import operator
import warnings

import pytest
from oracle import assert_same, assert_same_error, make_pair

BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor",
          "lshift", "rshift", "eq", "ne", "lt", "le", "gt", "ge"]  # fmt: skip
INPLACE = ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior",
           "ixor", "ilshift", "irshift"]  # fmt: skip
DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64"]
SCALARS = [3, -2, 2.5, True, 2j]


def same_outcome(vg_call, torch_call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = torch_call()
    except Exception:  # noqa: BLE001 - whatever torch raises, vizgrad must raise too
        assert_same_error(vg_call, torch_call)
        return None
    actual = vg_call()
    assert_same(actual, expected)
    return actual, expected


def operand(dtype, seed, shape=(2, 3), layout="transposed"):
    # Positive values keep integer division, powers and shifts defined.
    return make_pair(shape, dtype, layout, seed, low=1, high=4)


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("dtypes", [(d, d) for d in DTYPES] + [("int32", "float32"),
                                    ("uint8", "int64"), ("bool", "float64")])  # fmt: skip
def test_tensor_op_tensor(op, dtypes):
    (va, ta), (vb, tb) = operand(dtypes[0], 0), operand(dtypes[1], 1, (3,), "contiguous")
    fn = getattr(operator, op)
    same_outcome(lambda: fn(va, vb), lambda: fn(ta, tb))
    same_outcome(lambda: fn(vb, va), lambda: fn(tb, ta))


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_scalar_on_both_sides(op, dtype, scalar):
    if dtype == "float16" and isinstance(scalar, complex):
        return  # torch makes complex32 (ComplexHalf), a dtype vizgrad does not have
    va, ta = operand(dtype, 2)
    fn = getattr(operator, op)
    same_outcome(lambda: fn(va, scalar), lambda: fn(ta, scalar))
    same_outcome(lambda: fn(scalar, va), lambda: fn(scalar, ta))


@pytest.mark.parametrize("op", INPLACE)
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
@pytest.mark.parametrize("other", ["tensor", 2, 1.5, True])
def test_inplace_operators(op, dtype, other):
    va, ta = operand(dtype, 3, (2, 3), "contiguous")
    vb, tb = operand(dtype, 4, (3,), "contiguous") if other == "tensor" else (other, other)
    v_before = va
    fn = getattr(operator, op)
    outcome = same_outcome(lambda: fn(va, vb), lambda: fn(ta, tb))
    if outcome is not None:
        assert outcome[0] is v_before  # ``a += b`` keeps the same tensor object
        assert va._version == ta._version


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["neg", "pos", "abs", "invert"])
def test_unary_operators(dtype, op):
    va, ta = make_pair((2, 3), dtype, "stepped", 5, low=-3, high=3)
    fn = getattr(operator, op)
    outcome = same_outcome(lambda: fn(va), lambda: fn(ta))
    if outcome is not None and op == "pos":
        assert (outcome[0] is va) == (outcome[1] is ta)


def test_rtruediv_is_reciprocal_times_other():
    va, ta = make_pair((2, 3), "int64", "contiguous", 6, low=-3, high=3)
    assert_same(2 / va, 2 / ta)
    assert_same(va.__rtruediv__(va), ta.__rtruediv__(ta))
    vb, tb = make_pair((3,), "bool")
    assert_same(2 / vb, 2 / tb)


def test_matmul_operators():
    va, ta = make_pair((2, 3), "float32", "contiguous", 7)
    vb, tb = make_pair((3, 4), "float32", "contiguous", 8)
    assert_same(va @ vb, ta @ tb)
    vc, tc = make_pair((4, 2), "float32", "transposed", 9)
    assert_same(va.__rmatmul__(vc), ta.__rmatmul__(tc))


@pytest.mark.parametrize("other", ["a", None, [1, 2, 3], object()], ids=repr)
@pytest.mark.parametrize("op", BINARY + INPLACE + ["matmul"])
def test_unsupported_operands(other, op):
    va, ta = make_pair((3,), "int64")
    fn = getattr(operator, op)
    if op in ("eq", "ne"):
        assert fn(va, other) == fn(ta, other)  # falls back to identity: False / True
        return
    if isinstance(other, list) and op not in ("matmul",):
        return  # torch turns a list into a tensor here; vizgrad's operators do not
    assert_same_error(lambda: fn(va, other), lambda: fn(ta, other))
    if not (isinstance(other, str) and op in ("mod", "imod")):  # that is string formatting
        assert_same_error(lambda: fn(other, va), lambda: fn(other, ta))


def test_reflected_methods_return_not_implemented():
    va, ta = make_pair((3,), "int64")
    for name in ["__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__", "__rmod__",
                 "__rpow__", "__rand__", "__ror__", "__rxor__", "__rlshift__", "__rrshift__",
                 "__rmatmul__", "__iadd__", "__ipow__", "__eq__", "__lt__"]:  # fmt: skip
        assert getattr(va, name)("a") is getattr(ta, name)("a") is NotImplemented


def test_tensors_stay_hashable():
    va, vb = make_pair((3,), "int64")[0], make_pair((3,), "int64")[0]
    table = {va: "a", vb: "b"}
    assert table[va] == "a" and table[vb] == "b"
    assert hash(va) != hash(vb)
    assert va in {va}

"""Type promotion against PyTorch: promote_types, result_type, can_cast."""

from __future__ import annotations

import itertools

import pytest
import torch
from oracle import DTYPES, assert_same_error

import vizgrad as vg
from vizgrad import promotion

PAIRS = list(itertools.product(DTYPES, DTYPES))


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_promote_types(a, b):
    expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert vg.promote_types(getattr(vg, a), getattr(vg, b)).name == str(expected).split(".")[-1]


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_can_cast(a, b):
    assert vg.can_cast(getattr(vg, a), getattr(vg, b)) == torch.can_cast(
        getattr(torch, a), getattr(torch, b)
    )


def operand(kind: str, dtype: str):
    """The same operand in both libraries: a tensor with dims, a zero-dim tensor, a number."""
    if kind == "dim":
        return vg.zeros(2, dtype=getattr(vg, dtype)), torch.zeros(2, dtype=getattr(torch, dtype))
    if kind == "zero":
        return vg.zeros((), dtype=getattr(vg, dtype)), torch.zeros((), dtype=getattr(torch, dtype))
    value = {"bool": True, "int64": 3, "float32": 2.5, "complex64": 1j}[dtype]
    return value, value


def _name_in_vizgrad(torch_dtype) -> str:
    """float16 meeting a complex number is complex32 in torch; vizgrad has no complex32
    (NumPy has no complex half) and answers complex64, the smallest complex it has."""
    name = str(torch_dtype).split(".")[-1]
    return "complex64" if name == "complex32" else name


SCALAR_KINDS = ["bool", "int64", "float32", "complex64"]
OPERANDS = ([("dim", d) for d in DTYPES] + [("zero", d) for d in DTYPES]
            + [("scalar", d) for d in SCALAR_KINDS])  # fmt: skip


@pytest.mark.parametrize("first", OPERANDS, ids=lambda o: f"{o[0]}-{o[1]}")
@pytest.mark.parametrize("second", OPERANDS, ids=lambda o: f"{o[0]}-{o[1]}")
def test_result_type_of_two(first, second):
    (v1, t1), (v2, t2) = operand(*first), operand(*second)
    expected = torch.result_type(t1, t2)  # (two numbers too: result_type.Scalar_Scalar)
    assert vg.result_type(v1, v2).name == _name_in_vizgrad(expected)


TRIPLES = [
    (("dim", "uint8"), ("zero", "int64"), ("zero", "float32")),
    (("dim", "int32"), ("zero", "float64"), ("zero", "complex64")),
    (("dim", "bool"), ("zero", "uint8"), ("zero", "int64")),
    (("dim", "float16"), ("zero", "complex128"), ("zero", "float32")),
    (("dim", "int8"), ("dim", "uint8"), ("zero", "float32")),
    (("zero", "int8"), ("zero", "uint8"), ("dim", "int16")),
    (("dim", "float64"), ("zero", "complex64"), ("dim", "int64")),
    (("zero", "float16"), ("dim", "int32"), ("dim", "uint8")),
]


@pytest.mark.parametrize("operands", TRIPLES)
def test_result_type_of_three(operands):
    # torch.result_type takes two operands, and so does vg.result_type; a three-way
    # promotion (the engine's own, for addcmul, where, clamp…) shows in addcmul's dtype.
    pairs = [operand(*o) for o in operands]
    v_ops, t_ops = [p[0] for p in pairs], [p[1] for p in pairs]
    expected = torch.addcmul(*t_ops).dtype
    assert promotion.result_type(*v_ops).name == _name_in_vizgrad(expected)
    assert vg.addcmul(*v_ops).dtype.name == _name_in_vizgrad(expected)
    assert_same_error(lambda: vg.result_type(*v_ops), lambda: torch.result_type(*t_ops))


# What torch.result_type accepts and refuses: its four overloads of two operands, by
# position or by name; any other count, name or type is its TypeError listing them.
RESULT_TYPE_CALLS = [
    "result_type(a, z)",
    "result_type(a, other=z)",
    "result_type(tensor=a, other=z)",
    "result_type(scalar=1, tensor=a)",
    "result_type(2.5, a)",
    "result_type(a, 1j)",
    "result_type(1, 2)",
    "result_type(True, 2.0)",
    "result_type(scalar1=1, scalar2=2.0)",
    "result_type(a)",
    "result_type()",
    "result_type(a, z, b)",
    "result_type(a, z, b, 1)",
    "result_type(1, 2, 3)",
    "result_type(a, z, out=None)",
    "result_type(a, None)",
    "result_type(a, 'x')",
    "result_type(a, lib.float32)",
    "result_type(other=z)",
    "result_type(a, tensor=z)",
    "promote_types(lib.int8)",
    "promote_types(lib.int8, lib.uint8, lib.int16)",
    "promote_types(lib.int8, 1)",
    "promote_types(type1=lib.int8, type2=lib.float16)",
    "promote_types(lib.bool, type2=lib.complex128)",
]


@pytest.mark.parametrize("call", RESULT_TYPE_CALLS)
def test_result_type_and_promote_types_calls_are_torchs(call):
    def run(lib):
        names = {"a": lib.ones(2, dtype=lib.int32), "z": lib.tensor(1.5, dtype=lib.float64),
                 "b": lib.ones(2, dtype=lib.bool), "lib": lib}  # fmt: skip
        return eval(f"lib.{call}", names)  # noqa: S307 - our own cases

    try:
        expected = run(torch)
    except TypeError:
        assert_same_error(lambda: run(vg), lambda: run(torch))
        return
    assert run(vg).name == _name_in_vizgrad(expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [True, 7, 2.5, 1j, -300])
def test_result_type_of_ops_with_scalars(dtype, scalar):
    # The promoted dtype is what an operator really computes in.
    v = vg.ones(2, dtype=getattr(vg, dtype))
    t = torch.ones(2, dtype=getattr(torch, dtype))
    if dtype == "float16" and isinstance(scalar, complex):
        return  # torch makes complex32 (ComplexHalf), a dtype vizgrad does not have
    assert vg.result_type(v, scalar).name == str(torch.result_type(t, scalar)).split(".")[-1]
    assert vg.mul(v, scalar).dtype.name == str((t * scalar).dtype).split(".")[-1]

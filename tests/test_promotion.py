"""Type promotion against PyTorch: promote_types, result_type, can_cast."""

from __future__ import annotations

import itertools

import pytest
import torch
from oracle import DTYPES

import vizgrad as vg

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
    if first[0] == second[0] == "scalar":
        return  # torch.result_type needs at least one tensor
    expected = torch.result_type(t1, t2)
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
    # torch.result_type takes two operands; a three-way promotion shows in addcmul's dtype.
    pairs = [operand(*o) for o in operands]
    v_ops, t_ops = [p[0] for p in pairs], [p[1] for p in pairs]
    expected = torch.addcmul(*t_ops).dtype
    assert vg.result_type(*v_ops).name == _name_in_vizgrad(expected)
    assert vg.addcmul(*v_ops).dtype.name == _name_in_vizgrad(expected)


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

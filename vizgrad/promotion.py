"""Type promotion, as PyTorch does it (``c10/core/ScalarType.h``, ``ResultTypeState``).

Two rules make it up:

* ``promote_types(a, b)``: the smallest dtype both fit in, climbing the categories
  bool < integral < floating < complex.
* ``result_type(*operands)``: operands have *priorities*. Tensors with dimensions
  decide first; zero-dim tensors only matter if they are of a higher *category*;
  Python numbers last, and they only choose the category (``int_tensor * 2.5`` is
  float32, not float64). That is why ``uint8_tensor + 1000`` stays uint8.
"""

from __future__ import annotations

from . import dtypes as dt
from .dtypes import BOOL, COMPLEX, FLOATING, dtype

__all__ = ["promote_types", "result_type", "can_cast", "check_can_cast"]


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """``torch.promote_types``: the smallest dtype that holds both values' kinds."""
    if type1 is type2:
        return type1
    c1, c2 = type1.category, type2.category
    if c1 != c2:
        low, high = (type1, type2) if c1 < c2 else (type2, type1)
        if high.category == COMPLEX and low is dt.float64:
            return dt.complex128  # complex64 + float64 keeps double precision
        return high
    if c1 in (FLOATING, COMPLEX):
        return type1 if type1.itemsize >= type2.itemsize else type2
    # Both integral. Unsigned uint8 meets a signed type: the signed type must hold 255.
    if type1 is dt.uint8 or type2 is dt.uint8:
        signed = type2 if type1 is dt.uint8 else type1
        return dt.int16 if signed is dt.int8 else signed
    return type1 if type1.itemsize >= type2.itemsize else type2


def _combine_categories(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """Let a lower-priority operand change the result only by raising its category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == COMPLEX:
        return higher
    if lower.category == COMPLEX:
        # float64 tensor * 1j -> complex128: keep the tensor's precision.
        return higher.to_complex() if higher.category == FLOATING else lower
    if higher.category == FLOATING:
        return higher
    if higher.category == BOOL or lower.category == FLOATING:
        return promote_types(higher, lower)
    return higher


def _promote_all(types):
    result = None
    for t in types:
        result = t if result is None else promote_types(result, t)
    return result


def result_type(*operands) -> dtype:
    """``torch.result_type`` over tensors and Python numbers (any count, in order).

    Priority classes: tensors with ``dim() > 0``; zero-dim tensors; Python numbers,
    which count as the default dtype of their kind.
    """
    dimensioned, zero_dim, wrapped = [], [], []
    for op in operands:
        d = getattr(op, "_dtype", None)
        if d is not None:
            (dimensioned if op._size else zero_dim).append(d)
        else:
            wrapped.append(dt.scalar_dtype(op))
    return _combine_categories(
        _promote_all(dimensioned),
        _combine_categories(_promote_all(zero_dim), _promote_all(wrapped)),
    )


def can_cast(from_: dtype, to: dtype) -> bool:
    """``torch.can_cast``: may a result of ``from_`` be written into ``to``?

    Casting never goes down a category (complex -> float, float -> int, anything -> bool).
    """
    if from_.category == COMPLEX and to.category != COMPLEX:
        return False
    if from_.category == FLOATING and to.category < FLOATING:
        return False
    return not (from_.category != BOOL and to.category == BOOL)


def check_can_cast(result: dtype, out: dtype) -> None:
    """Raise PyTorch's error when an in-place or ``out=`` result can't be cast."""
    if not can_cast(result, out):
        raise RuntimeError(
            f"result type {result.scalar_name} can't be cast to the desired output type "
            f"{out.scalar_name}"
        )

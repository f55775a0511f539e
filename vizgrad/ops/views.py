"""View operators: new metadata over the same storage, never a copy (``TensorShape.cpp``).

A view op computes a new ``(size, stride, storage_offset)`` and returns a tensor over
its input's storage. The dispatcher's ADInplaceOrView step then links the result to
its base (``_base``) and shares the version counter, so an in-place write through
either is seen by autograd on both.
"""

from __future__ import annotations

import operator

from ..dispatcher import VIEW
from ..tensor import Tensor
from .registry import bind_method, check_tensor, declare

__all__ = ["as_strided"]


def _int_tuple(fn_name: str, arg_name: str, values) -> tuple[int, ...]:
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(
            f"{fn_name}(): argument '{arg_name}' must be tuple of ints, but found element of "
            f"type {next(type(v).__name__ for v in values if not isinstance(v, int))}"
        ) from None


def _as_strided_kernel(self: Tensor, size, stride, storage_offset=None) -> Tensor:
    offset = self._offset if storage_offset is None else storage_offset
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: {len(stride)} strides for a "
            f"{len(size)}-dimensional size"
        )
    for s in stride:
        if s < 0:
            raise RuntimeError(
                f"as_strided: Negative strides are not supported at the moment, got strides: "
                f"{list(stride)}"
            )
    for s in size:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(size)}"
            )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * st for n, st in zip(size, stride, strict=True))
    available = self._storage.numel
    if needed > available:
        itemsize = self._dtype.itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of "
            f"bounds for storage of size {available * itemsize}"
        )
    return self._alias(size, stride, offset)


_as_strided_op = declare(
    "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
    "-> Tensor(a)",
    VIEW,
    _as_strided_kernel,
)


def as_strided(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """``torch.as_strided``: any size/stride/offset over the same storage, checked to stay inside it.

    Elements may overlap (stride 0, or strides smaller than the sizes below them).
    """
    check_tensor("as_strided", input, "input", 1)
    size = _int_tuple("as_strided", "size", size)
    stride = _int_tuple("as_strided", "stride", stride)
    if storage_offset is not None:
        storage_offset = operator.index(storage_offset)
    return _as_strided_op(input, size, stride, storage_offset)


bind_method("as_strided", as_strided)

"""``resize_``: change a tensor's shape in place, growing its storage if needed.

A resized tensor gets contiguous strides for its new shape. If the storage is too
small, it grows, keeping its old contents: as PyTorch's ``resize_bytes_cpu``, a bigger
buffer is allocated, the old elements copied in, and the *storage* swaps it in
(``Storage.set_data``). Every tensor sharing the storage reads the new memory from
then on: each notices the storage's new generation and rebuilds its NumPy view.
The values of newly exposed elements are undefined, as with ``empty``.
"""

from __future__ import annotations

import operator

import numpy as np

from ..dispatcher import INPLACE
from ..shape import contiguous_strides, numel_of
from ..storage import Storage
from ..tensor import Tensor
from .registry import bind_method, declare

__all__: list[str] = []


def _grow_storage(storage: Storage, numel: int) -> None:
    bigger = np.empty(numel, dtype=storage.data.dtype)
    bigger[: storage.numel] = storage.data
    storage.set_data(bigger)


def _resize_kernel(self: Tensor, size) -> Tensor:
    stride = contiguous_strides(size)
    needed = self._offset + numel_of(size)
    if needed > self._storage.numel:
        _grow_storage(self._storage, needed)
    self._set_metadata(size, stride, self._offset)
    return self


_resize_op = declare(
    "resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)",
    INPLACE,
    _resize_kernel,
)


def resize_(self: Tensor, *sizes, memory_format=None) -> Tensor:
    """``Tensor.resize_``: new shape, contiguous strides, storage grown if too small."""
    if len(sizes) == 1 and isinstance(sizes[0], tuple | list):
        sizes = sizes[0]
    size = tuple(operator.index(s) for s in sizes)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if any(s < 0 for s in size):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(size)}: {list(size)}"
        )
    if size == self._size:
        return self  # PyTorch leaves the strides (and the version) alone
    return _resize_op(self, size)


def resize_as_(self: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    """``Tensor.resize_as_``: resize to another tensor's shape."""
    return resize_(self, the_template._size)


bind_method("resize_", resize_)
bind_method("resize_as_", resize_as_)

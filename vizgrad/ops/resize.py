"""``resize_``: change a tensor's shape in place, growing its storage if needed.

A resized tensor gets contiguous strides for its new shape. If the storage is too
small, it grows, keeping its old contents: as PyTorch's ``resize_bytes_cpu``, a bigger
buffer is allocated, the old elements copied in, and the *storage* swaps it in
(``Storage.set_data``). Every tensor sharing the storage reads the new memory from
then on: each notices the storage's new generation and rebuilds its NumPy view.
The values of newly exposed elements are undefined, as with ``empty``. Memory the
storage borrowed (``from_numpy``) is not resizable: growing it is an error, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from ..dispatcher import RESIZE
from ..meta_device import MetaStorage
from ..shape import check_numel, check_storage_nbytes, contiguous_strides, numel_of
from ..storage import Storage
from ..tensor import Tensor
from .declaration import native_function

__all__: list[str] = []


def _grow_storage(storage: Storage, nbytes: int) -> None:
    if isinstance(storage, MetaStorage):  # no bytes to copy: it only counts more
        storage.grow(nbytes)
        return
    if not storage.resizable():  # PyTorch's ``resize_bytes_cpu`` check
        raise RuntimeError("Trying to resize storage that is not resizable")
    bigger = np.empty(nbytes, dtype=np.uint8)
    bigger[: storage.nbytes()] = storage.bytes
    storage.set_data(bigger)


def _resize_kernel(self: Tensor, size, *, memory_format=None) -> Tensor:
    """``resize_impl_cpu_``: the new sizes' element count must fit in int64 (a negative
    size is a huge count, unless a 0 makes it 0), and so must the storage's bytes."""
    check_numel(size)
    check_storage_nbytes(size, self._dtype.itemsize)
    if tuple(size) == self._size:
        return self  # PyTorch leaves the strides alone
    # A storage is bytes, and grows to exactly the bytes needed (``resize_bytes_cpu``).
    needed = (self._offset + numel_of(size)) * self._dtype.itemsize
    if needed > self._storage.nbytes():
        _grow_storage(self._storage, needed)
    self._set_metadata(size, contiguous_strides(size), self._offset)
    return self


def _check_resizable(self: Tensor, *args, **kwargs) -> None:
    # PyTorch's autograd key refuses before anything is resized.
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")


# In-place only: no ``Tensor.resize`` of its own (``variants=""``). The version counter
# goes up only if the size changes (the RESIZE variant), and autograd records nothing:
# a tensor that requires grad is refused.
native_function(
    "resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)",
    kernel=_resize_kernel,
    variant_of={"resize_": RESIZE},
    check=_check_resizable,
    variants="",
    doc="``Tensor.resize_``: new shape, contiguous strides, storage grown if too small.",
)
native_function(
    "resize_as_(Tensor(a!) self, Tensor the_template, *, MemoryFormat? memory_format=None) "
    "-> Tensor(a!)",
    kernel=lambda self, the_template, *, memory_format=None: _resize_kernel(
        self, the_template._size
    ),
    variant_of={"resize_as_": RESIZE},
    check=_check_resizable,
    variants="",
    doc="``Tensor.resize_as_``: resize to another tensor's shape.",
)

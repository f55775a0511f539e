"""Storage: the flat buffer tensors read through their metadata (``c10::StorageImpl``).

A storage owns one 1-D NumPy array, its buffer. Many tensors may read the same
storage, each with its own size, stride and offset: that is what a *view* is. A
storage knows nothing of shapes.
"""

from __future__ import annotations

import itertools

import numpy as np

from . import events
from .device import device as Device
from .dtypes import dtype as DType
from .dtypes import from_numpy_dtype

__all__ = ["Storage"]

_storage_ids = itertools.count(1)
CPU = Device("cpu")


class Storage:
    """A flat buffer of ``numel`` elements of one dtype on one device.

    ``untyped_storage()`` returns this object; as PyTorch's ``UntypedStorage``,
    ``size()``/``len()``/``nbytes()`` count bytes. ``data`` is the NumPy buffer of
    elements, and ``numel`` their count.

    The buffer can be replaced (``resize_`` growing the storage) but only through
    ``set_data``, which counts the replacements in ``generation``: a tensor caches a
    NumPy view of the buffer and rebuilds it when the generation it was made at is
    not the storage's any more.
    """

    __slots__ = ("_data", "generation", "dtype", "device", "_id", "_resizable", "__weakref__")

    def __init__(self, data: np.ndarray, dtype: DType | None = None, *, resizable: bool = True):
        if data.ndim != 1:
            raise ValueError("a storage is a flat (1-D) buffer")
        self._data = data
        # Memory the storage does not own (a NumPy array's, for ``from_numpy``) cannot be
        # swapped for a bigger buffer: the array would stop seeing the tensor's writes.
        self._resizable = resizable
        self.generation = 0
        self.dtype = dtype if dtype is not None else from_numpy_dtype(data.dtype)
        self.device = CPU
        self._id = next(_storage_ids)
        if events.bus.active and "storage_created" in events.bus.wanted:
            events.bus.emit(events.StorageCreated(self._id, self.dtype.name, data.shape[0]))

    @classmethod
    def empty(cls, numel: int, dtype: DType) -> Storage:
        return cls(np.empty(numel, dtype=dtype.numpy), dtype)

    @property
    def data(self) -> np.ndarray:
        """The buffer: a flat NumPy array of ``numel`` elements."""
        return self._data

    def set_data(self, data: np.ndarray) -> None:
        """Swap in a new buffer (``StorageImpl::set_data_ptr``); every tensor over it follows.

        ``data`` must be flat and of this storage's dtype. The tensors are not found and
        updated here: each one notices the new ``generation`` the next time it reads
        its array (``Tensor._array``).
        """
        if data.ndim != 1 or data.dtype != self._data.dtype:
            raise ValueError("a storage's new buffer must be flat and of the same dtype")
        self._data = data
        self.generation += 1

    def resizable(self) -> bool:
        """``UntypedStorage.resizable()``: False for memory borrowed from elsewhere
        (``from_numpy``, ``as_tensor`` of an array), which ``resize_`` cannot grow."""
        return self._resizable

    @property
    def numel(self) -> int:
        return self._data.shape[0]

    def nbytes(self) -> int:
        return self._data.nbytes

    def size(self) -> int:
        return self._data.nbytes

    def __len__(self) -> int:
        return self._data.nbytes

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        """The address of the first byte: equal for tensors sharing this storage."""
        return self._data.__array_interface__["data"][0]

    def tolist(self) -> list:
        """The elements, in storage order (what the stride map draws as a strip)."""
        return self._data.tolist()

    def __repr__(self) -> str:
        shown = " ".join(str(v) for v in self._data[:16].tolist())
        more = " ..." if self.numel > 16 else ""
        return f"Storage #{self._id} [{self.dtype}, {self.numel} elements]: [{shown}{more}]"

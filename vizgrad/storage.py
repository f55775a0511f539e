"""Storage: the flat buffer tensors read through their metadata (``c10::StorageImpl``).

A storage is one 1-D NumPy array. Many tensors may read the same storage, each with
its own size, stride and offset: that is what a *view* is. A storage knows nothing
of shapes.
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
    """

    __slots__ = ("data", "dtype", "device", "_id", "__weakref__")

    def __init__(self, data: np.ndarray, dtype: DType | None = None):
        if data.ndim != 1:
            raise ValueError("a storage is a flat (1-D) buffer")
        self.data = data
        self.dtype = dtype if dtype is not None else from_numpy_dtype(data.dtype)
        self.device = CPU
        self._id = next(_storage_ids)
        if events.bus.active:
            events.bus.emit(events.StorageCreated(self._id, self.dtype.name, data.shape[0]))

    @classmethod
    def empty(cls, numel: int, dtype: DType) -> Storage:
        return cls(np.empty(numel, dtype=dtype.numpy), dtype)

    @property
    def numel(self) -> int:
        return self.data.shape[0]

    def nbytes(self) -> int:
        return self.data.nbytes

    def size(self) -> int:
        return self.data.nbytes

    def __len__(self) -> int:
        return self.data.nbytes

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        """The address of the first byte: equal for tensors sharing this storage."""
        return self.data.__array_interface__["data"][0]

    def tolist(self) -> list:
        """The elements, in storage order (what the stride map draws as a strip)."""
        return self.data.tolist()

    def __repr__(self) -> str:
        shown = " ".join(str(v) for v in self.data[:16].tolist())
        more = " ..." if self.numel > 16 else ""
        return f"Storage #{self._id} [{self.dtype}, {self.numel} elements]: [{shown}{more}]"

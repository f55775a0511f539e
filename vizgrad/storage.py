"""Storage: the flat bytes tensors read through their metadata (``c10::StorageImpl``).

A storage owns one flat buffer of *bytes* (a 1-D ``uint8`` NumPy array). Many tensors may
read the same storage, each with its own size, stride, offset **and dtype**: that is
what a *view* is. A storage knows nothing of shapes, and, like PyTorch's
``UntypedStorage``, nothing binds it to one element type: a tensor reads the bytes
reinterpreted as its own dtype (``bytes.view(np.float32)``, what ``Tensor._array``
builds with ``np.ndarray(..., buffer=storage.bytes)``), so ``x.view(torch.int32)`` and
``torch.view_as_real(z)`` are views over the same memory as ``x`` and ``z``.

A storage still remembers the dtype it was allocated for (``dtype``): the element type
the stride map draws its strip in, ``StorageCreated`` reports, and ``numel``/``data``
count and read. Tensors never take their dtype from it.
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
_BYTE = np.dtype(np.uint8)  # made once: ``view(np.uint8)`` looks the type up on every call


class Storage:
    """A flat buffer of bytes on one device, allocated for elements of ``dtype``.

    ``untyped_storage()`` returns this object; as PyTorch's ``UntypedStorage``,
    ``size()``/``len()``/``nbytes()`` count bytes. ``bytes`` is the buffer itself;
    ``data`` reads it as elements of the storage's own ``dtype`` and ``numel`` counts them.

    The buffer can be replaced (``resize_`` growing the storage) but only through
    ``set_data``, which counts the replacements in ``generation``: a tensor caches a
    NumPy view of the buffer and rebuilds it when the generation it was made at is
    not the storage's any more.
    """

    __slots__ = ("_bytes", "generation", "dtype", "device", "_id", "_resizable", "__weakref__")

    def __init__(self, data: np.ndarray, dtype: DType | None = None, *, resizable: bool = True):
        """Own ``data``, a flat contiguous array of elements (its memory, not a copy)."""
        if data.ndim != 1:
            raise ValueError("a storage is a flat (1-D) buffer")
        self._bytes = data.view(_BYTE)
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
    def bytes(self) -> np.ndarray:
        """The buffer: a flat ``uint8`` NumPy array of ``nbytes()`` bytes."""
        return self._bytes

    @property
    def data(self) -> np.ndarray:
        """The buffer read as elements of the storage's own dtype (a view, not a copy)."""
        return self.elements(self.dtype)

    def elements(self, dtype: DType) -> np.ndarray:
        """The buffer read as a flat array of ``dtype`` elements (a tensor of that dtype
        counts its offset and strides in them); trailing bytes that make no whole
        element are left out."""
        whole = self._bytes.shape[0] - self._bytes.shape[0] % dtype.itemsize
        return self._bytes[:whole].view(dtype.numpy)

    def set_data(self, data: np.ndarray) -> None:
        """Swap in a new buffer of bytes (``StorageImpl::set_data_ptr``); every tensor over
        it follows.

        ``data`` must be a flat ``uint8`` array. The tensors are not found and updated
        here: each one notices the new ``generation`` the next time it reads its array
        (``Tensor._array``).
        """
        if data.ndim != 1 or data.dtype != np.uint8:
            raise ValueError("a storage's new buffer must be a flat array of bytes (uint8)")
        self._bytes = data
        self.generation += 1

    def resizable(self) -> bool:
        """``UntypedStorage.resizable()``: False for memory borrowed from elsewhere
        (``from_numpy``, ``as_tensor`` of an array), which ``resize_`` cannot grow."""
        return self._resizable

    @property
    def numel(self) -> int:
        """How many elements of the storage's own dtype its bytes hold."""
        return self._bytes.shape[0] // self.dtype.itemsize

    def nbytes(self) -> int:
        return self._bytes.shape[0]

    def size(self) -> int:
        return self._bytes.shape[0]

    def __len__(self) -> int:
        return self._bytes.shape[0]

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        """The address of the first byte: equal for tensors sharing this storage."""
        return self._bytes.__array_interface__["data"][0]

    def tolist(self) -> list:
        """The elements, in storage order (what the stride map draws as a strip)."""
        return self.data.tolist()

    def __repr__(self) -> str:
        shown = " ".join(str(v) for v in self.data[:16].tolist())
        more = " ..." if self.numel > 16 else ""
        return f"Storage #{self._id} [{self.dtype}, {self.numel} elements]: [{shown}{more}]"

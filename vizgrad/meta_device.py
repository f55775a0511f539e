"""The meta device: tensors with a shape, a dtype and strides, and no data.

``torch.empty(2, 3, device="meta")`` is a tensor whose metadata is real (size, stride,
storage offset, dtype, ``requires_grad``) and whose storage holds no bytes: PyTorch's
``MetaTensorImpl`` over a storage whose data pointer is null. Running an operator on
meta tensors runs only the part of its kernel that computes the result's metadata
(PyTorch's *meta function* of a structured kernel: for an elementwise operator, the
``TensorIterator`` set-up), so one can ask what shape, dtype and strides a model's
tensors would have without computing, or allocating, any of them.

This module is the device itself, at the storage and tensor layer: the storage without
bytes (``MetaStorage``), how a meta tensor is made (``empty_meta``), the device checks of
an elementwise call with a meta argument, and PyTorch's errors for reading what is not
there. Which operators run on meta tensors, and how, is ``vizgrad.ops.meta_kernels``.

A meta tensor carries ``META_BIT`` in ``Tensor._key_set``, the field that holds what a
tensor adds to the dense CPU default of PyTorch's ``DispatchKeySet``: the dispatcher
already unions it over the arguments of every call, so a call on CPU tensors pays
nothing for the meta device, and a call with one meta argument runs the ``Meta`` backend
key (``vizgrad.dispatcher``), as PyTorch's ``Meta`` key outranks ``CPU``.
"""

from __future__ import annotations

from . import events
from .device import device as Device
from .dtypes import dtype as DType
from .shape import check_storage_nbytes, contiguous_strides, storage_extent
from .storage import Storage, _storage_ids
from .tensor import META_BIT, Tensor

__all__ = ["META", "MetaStorage", "empty_meta", "check_same_device", "check_copy_device",
           "check_out_device", "NO_DATA"]  # fmt: skip

META = Device("meta")

# What PyTorch says when something would copy a meta tensor's values out
# (``tolist()``, ``.cpu()``, ``cpu_tensor.copy_(meta_tensor)``): ``NotImplementedError``.
NO_DATA = "Cannot copy out of meta tensor; no data!"


class MetaStorage(Storage):
    """A storage on the meta device: a size in bytes, and no bytes.

    It counts its bytes as a CPU storage would (``nbytes()``, ``resize_`` growing it), so
    a meta tensor's ``untyped_storage().nbytes()`` is what the CPU tensor's would be; its
    data pointer is 0 and reading its bytes is refused, as PyTorch's ``UntypedStorage``
    on ``meta`` refuses (``Not available for 'meta' device type``). ``_bytes`` is None:
    ``vizgrad.tensor.strided_array`` then gives a meta tensor no NumPy array at all.
    """

    __slots__ = ("_nbytes",)

    def __init__(self, nbytes: int, dtype: DType):  # no buffer: nothing of Storage's to run
        self._bytes = None
        self._nbytes = nbytes
        self._resizable = True
        self.generation = 0
        self.dtype = dtype
        self.device = META
        self._id = next(_storage_ids)  # one numbering for all storages: events name them by id
        if events.bus.active and "storage_created" in events.bus.wanted:
            events.bus.emit(events.StorageCreated(self._id, dtype.name, nbytes // dtype.itemsize))

    def _no_bytes(self):
        raise NotImplementedError("Not available for 'meta' device type")

    bytes = property(_no_bytes)
    data = property(_no_bytes)

    def elements(self, dtype: DType):
        self._no_bytes()

    def tolist(self) -> list:
        self._no_bytes()

    def set_data(self, data) -> None:
        self._no_bytes()

    def grow(self, nbytes: int) -> None:
        """``resize_`` of a meta tensor: the storage counts more bytes, and still holds none."""
        self._nbytes = nbytes
        self.generation += 1

    @property
    def numel(self) -> int:
        return self._nbytes // self.dtype.itemsize

    def nbytes(self) -> int:
        return self._nbytes

    def size(self) -> int:
        return self._nbytes

    def __len__(self) -> int:
        return self._nbytes

    def data_ptr(self) -> int:
        return 0  # PyTorch's meta storages have a null data pointer

    def __repr__(self) -> str:
        return f"Storage #{self._id} [{self.dtype}, meta, {self._nbytes} bytes]: no data"


def empty_meta(size, stride, dtype: DType) -> Tensor:
    """``at::empty_strided(..., device="meta")``: a meta tensor of exactly these strides.

    Its storage counts the bytes a CPU tensor of that geometry would need (the same
    overflow check as a CPU allocation, so ``empty(2**62, device="meta")`` fails alike).
    """
    size, stride = tuple(size), tuple(stride)
    check_storage_nbytes(size, dtype.itemsize, stride)
    storage = MetaStorage(storage_extent(size, stride) * dtype.itemsize, dtype)
    result = Tensor(storage, size, stride, 0, None, None, dtype)
    result._key_set = META_BIT
    return result


def empty_contiguous_meta(size, dtype: DType) -> Tensor:
    """A contiguous meta tensor: the result a CPU kernel makes fresh (``at::empty``)."""
    size = tuple(size)
    return empty_meta(size, contiguous_strides(size), dtype)


def empty_strided_beside(t: Tensor, size, stride, dtype: DType) -> Tensor:
    """``at::empty_strided(size, stride, t.options())``: a new tensor on ``t``'s device, for
    a kernel whose output is where its input is (on the meta device, no bytes)."""
    if t._key_set & META_BIT:
        return empty_meta(size, stride, dtype)
    return Tensor._empty_strided(tuple(size), tuple(stride), dtype)


def _is_cpu_scalar(t: Tensor) -> bool:
    return not t._size and not t._key_set & META_BIT


def check_same_device(operands) -> Device:
    """The device of an elementwise call's tensor operands, which must be one.

    PyTorch 2.13 runs an elementwise operator on meta tensors through its Python
    reference (``torch/_refs``), whose ``check_same_device`` takes the first tensor's
    device as the expected one and allows a 0-dim CPU tensor beside any device (a
    wrapped number): ``Tensor on device meta is not on the expected device cpu!``.
    """
    expected = None
    for t in operands:
        if not isinstance(t, Tensor) or _is_cpu_scalar(t):
            continue
        where = t._storage.device
        if expected is None:
            expected = where
        elif where != expected:
            raise RuntimeError(
                f"Tensor on device {where} is not on the expected device {expected}!"
            )
    return expected if expected is not None else Device("cpu")


def check_out_device(expected: Device, out: Tensor) -> None:
    """An ``out=`` tensor of a C++ structured kernel must be on the result's device: its
    ``set_output`` refuses another before resizing anything."""
    where = out._storage.device
    if where != expected:
        raise RuntimeError(
            f"Expected out tensor to have device {expected}, but got {where} instead"
        )


def check_copy_device(source: Device, out: Tensor) -> None:
    """An ``out=`` tensor must be on the device the result was computed on: PyTorch's
    ``_safe_copy_out`` refuses a copy between devices before copying anything."""
    where = out._storage.device
    if where != source:
        raise RuntimeError(
            f"Attempting to copy from device {source} to device {where}, but cross-device "
            "copies are not allowed!"
        )

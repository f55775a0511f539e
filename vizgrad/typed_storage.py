"""TypedStorage: a storage's bytes read as one dtype (``torch.TypedStorage``, deprecated).

Before PyTorch 2.0 a storage had an element type: ``x.storage()`` was a
``torch.FloatStorage`` of floats, and old tutorials print it to show that a view shares
its base's memory (``x.t().storage()`` lists the same numbers as ``x.storage()``). Storages
are bytes now (``x.untyped_storage()``, vizgrad's ``Storage``), and ``TypedStorage`` is a
thin wrapper kept for old code: the untyped storage plus a ``dtype`` to read it as. It
copies nothing, so writing through it writes the tensor, and its length counts elements
of its dtype (``nbytes() // element_size()``), over the *whole* storage, not the tensor's
part of it.

Almost every public method warns that ``TypedStorage`` is deprecated, once per process
(PyTorch's ``_warn_typed_storage_removal``: a flag on the function, reset by
``_reset_warn_typed_storage_removal``, or warn always after
``_set_always_warn_typed_storage_removal(True)``). The methods call each other as
PyTorch's do, so with the flag set they warn as many times as PyTorch's.

The legacy names (``vizgrad.FloatStorage``…) are classes whose ``__new__`` returns a
plain ``TypedStorage`` of their dtype, and ``isinstance(s, vizgrad.FloatStorage)`` asks
the storage's dtype (``_LegacyStorageMeta``), as in ``torch/storage.py``.
"""

from __future__ import annotations

import collections.abc
import importlib

import numpy as np

from . import dtypes
from .device import NO_CUDA
from .device import device as Device
from .dtypes import dtype as DType
from .storage import Storage
from .tensor import Tensor
from .typename import typename
from .user_warnings import warn_at_user_code

__all__ = [
    "TypedStorage", "UntypedStorage", "DoubleStorage", "FloatStorage", "HalfStorage",
    "LongStorage", "IntStorage", "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage",
    "ComplexDoubleStorage", "ComplexFloatStorage",
]  # fmt: skip

# PyTorch's name for the byte storage is ``UntypedStorage``; vizgrad's class is ``Storage``.
UntypedStorage = Storage

# --- the deprecation warning ----------------------------------------------------------

_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and "
    "UntypedStorage will be the only storage class. This should only matter "
    "to you if you are using storages directly.  To access UntypedStorage "
    "directly, use tensor.untyped_storage() instead of tensor.storage()"
)
_always_warn = False
_has_warned = False


def _get_always_warn_typed_storage_removal() -> bool:
    return _always_warn


def _set_always_warn_typed_storage_removal(always_warn) -> None:
    global _always_warn
    if not isinstance(always_warn, bool):
        raise AssertionError(f"always_warn must be bool, got {type(always_warn).__name__}")
    _always_warn = always_warn


def _reset_warn_typed_storage_removal() -> None:
    """Forget that the warning was shown: the next use of a TypedStorage warns again."""
    global _has_warned
    _has_warned = False


def _warn_typed_storage_removal() -> None:
    """Warn once per process (always, if asked): PyTorch's ``_warn_typed_storage_removal``.

    The warning names the user's line that used the storage (PyTorch's ``stacklevel``).
    """
    global _has_warned
    if _always_warn or not _has_warned:
        warn_at_user_code(_WARNING, UserWarning)
        _has_warned = True


# --- helpers --------------------------------------------------------------------------

# The legacy storage class of each dtype (``_dtype_to_storage_type_map``): its name is the
# dtype's C++ scalar name, ``Float`` for float32.
_LEGACY_NAMES = {d: f"{d.scalar_name}Storage" for d in dtypes.ALL_DTYPES}


def _isint(x) -> bool:
    return isinstance(x, (int, np.integer))


def _reader(storage: Storage, dtype: DType, numel: int) -> Tensor:
    """A 1-D tensor over the first ``numel`` elements of ``storage`` read as ``dtype``:
    what PyTorch gets with ``torch.tensor([], dtype=...).set_(typed_storage)``."""
    return Tensor(storage, (numel,), (1,), 0, dtype=dtype)


def _new_bytes(nbytes: int, dtype: DType) -> Storage:
    """A new uninitialised storage of ``nbytes`` bytes, allocated for ``dtype``."""
    return Storage(np.empty(nbytes, dtype=np.uint8), dtype)


def _clone_bytes(storage: Storage) -> Storage:
    """``UntypedStorage.clone()``: the same bytes in new memory."""
    return Storage(storage.bytes.copy(), storage.dtype)


def _copy_bytes(dst: Storage, src) -> None:
    """``UntypedStorage.copy_``: the bytes of ``src``, whatever dtype either is read as."""
    if not isinstance(src, Storage):
        raise TypeError(
            f"copy_(): argument 'src' (position 1) must be vizgrad.Storage, not "
            f"{type(src).__name__}"
        )
    if dst.nbytes() != src.nbytes():
        raise RuntimeError(
            f"size does not match, self was {dst.nbytes()} bytes but src was {src.nbytes()} bytes"
        )
    dst.bytes[:] = src.bytes


def _import_dotted_name(name: str):
    """``torch._utils._import_dotted_name``: ``'vizgrad.FloatStorage'`` to the class."""
    components = name.split(".")
    obj = importlib.import_module(components[0])
    for component in components[1:]:
        obj = getattr(obj, component)
    return obj


def _storage_from_sequence(sequence, dtype: DType, device) -> Storage:
    from .ops.creation import tensor  # the factories sit above the storage layer

    return tensor(sequence, dtype=dtype, device=device)._storage


def _check_device(device) -> Device:
    device = Device("cpu" if device is None else device)
    if device.type == "cuda":
        raise AssertionError(NO_CUDA)
    return device


# --- TypedStorage ---------------------------------------------------------------------


class TypedStorage:
    """``torch.TypedStorage``: an untyped storage (``_untyped_storage``) read as ``dtype``.

    ``x.storage()`` wraps ``x.untyped_storage()`` with ``x.dtype``; many wrappers may
    share one storage, and each sees every write. There is no ``==`` of its own: two
    wrappers of one storage are different objects (compare ``data_ptr()``).
    """

    is_sparse = False
    dtype: DType

    @property
    def _dtype(self):
        return self.dtype

    @property
    def filename(self):
        """The file a storage was memory-mapped from: vizgrad maps none."""
        return None

    def __new__(cls, *args, wrap_storage=None, dtype=None, device=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        if cls is _LegacyStorage:
            raise RuntimeError("Only child classes of _LegacyStorage can be instantiated")
        if cls is TypedStorage:
            return super().__new__(cls)
        # ``vizgrad.FloatStorage(...)``: a plain TypedStorage of the class's dtype.
        arg_error_msg = (
            f"{cls}.__new__ received an invalid combination of arguments. Expected one of:\n"
            " * no arguments\n"
            " * (int size)\n"
            " * (Sequence data)\n"
            " * (*, UntypedStorage wrap_storage)"
        )
        if device is not None:
            raise RuntimeError(arg_error_msg + "\nKeyword argument 'device' cannot be specified")
        if dtype is not None:
            raise RuntimeError(arg_error_msg + "\nKeyword argument 'dtype' cannot be specified")
        if wrap_storage is None:
            if len(args) > 1:
                raise RuntimeError(arg_error_msg + "\nToo many positional arguments")
            if (len(args) == 1 and not _isint(args[0])
                    and not isinstance(args[0], collections.abc.Sequence)):  # fmt: skip
                raise TypeError(arg_error_msg + f"\nArgument type not recognized: {type(args[0])}")
            return TypedStorage(*args, dtype=cls.dtype, device="cpu", _internal=True)
        if len(args) != 0:
            raise RuntimeError(
                arg_error_msg
                + "\nNo positional arguments should be given when using 'wrap_storage'"
            )
        if not isinstance(wrap_storage, Storage):
            raise TypeError(
                arg_error_msg
                + f"\nArgument 'wrap_storage' must be UntypedStorage, but got {type(wrap_storage)}"
            )
        if wrap_storage.device.type != "cpu":
            raise RuntimeError(
                arg_error_msg
                + f"\nDevice of 'wrap_storage' must be cpu, but got {wrap_storage.device.type}"
            )
        return TypedStorage(wrap_storage=wrap_storage, dtype=cls.dtype, _internal=True)

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        arg_error_msg = (
            "TypedStorage.__init__ received an invalid combination of arguments. "
            "Expected one of:\n"
            " * (*, vizgrad.device device, vizgrad.dtype dtype)\n"
            " * (int size, *, vizgrad.device device, vizgrad.dtype dtype)\n"
            " * (Sequence data, *, vizgrad.device device, vizgrad.dtype dtype)\n"
            " * (*, UntypedStorage wrap_storage, vizgrad.dtype dtype)"
        )
        if wrap_storage is not None:
            if len(args) != 0:
                raise RuntimeError(
                    arg_error_msg
                    + "\nNo positional arguments should be given when using 'wrap_storage'"
                )
            if dtype is None:
                raise RuntimeError(arg_error_msg + "\nArgument 'dtype' must be specified")
            if not isinstance(dtype, DType):
                raise TypeError(
                    arg_error_msg + f"\nArgument 'dtype' must be vizgrad.dtype, not {type(dtype)}"
                )
            if device is not None:
                raise RuntimeError(
                    arg_error_msg
                    + "\nArgument 'device' should not be specified when 'wrap_storage' is given"
                )
            self.dtype = dtype
            if not isinstance(wrap_storage, Storage):
                raise TypeError(
                    arg_error_msg + "\nArgument 'wrap_storage' must be UntypedStorage, but got "
                    f"{type(wrap_storage)}"
                )
            self._untyped_storage = wrap_storage
            return
        if dtype is not None and not isinstance(dtype, DType):
            raise RuntimeError(f"expected vizgrad.dtype, but got {type(dtype)}")
        self.dtype = dtypes.get_default_dtype() if dtype is None else dtype
        device = _check_device(device)
        if len(args) == 0:
            self._untyped_storage = _new_bytes(0, self.dtype)
        elif len(args) == 1:
            if _isint(args[0]):
                self._untyped_storage = _new_bytes(int(args[0]) * self._element_size(), self.dtype)
            elif isinstance(args[0], collections.abc.Sequence):
                self._untyped_storage = _storage_from_sequence(args[0], self.dtype, device)
            else:
                raise TypeError(arg_error_msg + f"\nArgument type not recognized: {type(args[0])}")
        else:
            raise RuntimeError(arg_error_msg + "\nToo many positional arguments")

    # --- what it is -----------------------------------------------------------------

    @property
    def is_cuda(self) -> bool:
        _warn_typed_storage_removal()
        return self._untyped_storage.device.type == "cuda"

    @property
    def is_hpu(self) -> bool:
        _warn_typed_storage_removal()
        return self._untyped_storage.device.type == "hpu"

    @property
    def device(self) -> Device:
        _warn_typed_storage_removal()
        return self._untyped_storage.device

    def untyped(self) -> Storage:
        """The bytes this storage reads: the tensor's ``untyped_storage()`` itself."""
        _warn_typed_storage_removal()
        return self._untyped_storage

    def _new_wrapped_storage(self, untyped_storage: Storage) -> TypedStorage:
        return TypedStorage(wrap_storage=untyped_storage, dtype=self.dtype, _internal=True)

    def __len__(self) -> int:
        _warn_typed_storage_removal()
        return self._size()

    def size(self) -> int:
        _warn_typed_storage_removal()
        return self._size()

    def _size(self) -> int:
        # Whole elements of the dtype in the bytes: trailing bytes that make none are not
        # counted (a uint8 storage of 3 bytes read as int16 has 1 element).
        return self._untyped_storage.nbytes() // self._element_size()

    def nbytes(self) -> int:
        _warn_typed_storage_removal()
        return self._nbytes()

    def _nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        _warn_typed_storage_removal()
        return self._element_size()

    def _element_size(self) -> int:
        return self.dtype.itemsize

    def get_device(self):
        # PyTorch's ``UntypedStorage.get_device`` is an unimplemented stub: it returns None.
        _warn_typed_storage_removal()
        return None

    def data_ptr(self) -> int:
        """The address of the storage's first byte (not of a view's first element)."""
        _warn_typed_storage_removal()
        return self._data_ptr()

    def _data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def resizable(self) -> bool:
        _warn_typed_storage_removal()
        return self._untyped_storage.resizable()

    def is_shared(self) -> bool:
        """In shared memory (``share_memory_``, for other processes)? vizgrad never is."""
        _warn_typed_storage_removal()
        return self._is_shared()

    def _is_shared(self) -> bool:
        return False

    def is_pinned(self, device=None) -> bool:
        _warn_typed_storage_removal()
        return False

    def pickle_storage_type(self) -> str:
        _warn_typed_storage_removal()
        return self._pickle_storage_type()

    def _pickle_storage_type(self) -> str:
        try:
            return _LEGACY_NAMES[self.dtype]
        except KeyError as e:
            raise KeyError(f"dtype {self.dtype} is not recognized") from e

    def _get_legacy_storage_class(self):
        name = _LEGACY_NAMES.get(self.dtype)
        # PyTorch asks the device twice here (which backend's module holds the class);
        # each ask warns when warning always.
        if name is None or self.device.type != "cpu" or self.device.type != "cpu":
            return None
        return globals().get(name)

    def type(self, dtype=None, non_blocking: bool = False):
        """``'vizgrad.FloatStorage'`` for a float32 storage; given a storage type, the
        bytes copied into one (PyTorch's ``_type``, which sizes the new storage in
        bytes: only one-byte element types fit)."""
        _warn_typed_storage_removal()
        if dtype is None:
            legacy_class = self._get_legacy_storage_class()
            if legacy_class is not None:
                return legacy_class.__module__ + "." + legacy_class.__name__
            return ".".join([self.__module__, type(self).__name__])
        untyped = self._untyped_storage
        if isinstance(dtype, str):
            dtype = _import_dotted_name(dtype)
        if dtype is type(untyped):
            return untyped
        if dtype.is_sparse:
            raise RuntimeError("Cannot cast dense tensor to sparse tensor")
        return dtype(untyped.nbytes()).copy_(untyped, non_blocking)

    # --- elements -------------------------------------------------------------------

    def _maybe_wrap_index(self, idx, is_stop: bool = False) -> int:
        if idx is None:
            return self._size() if is_stop else 0
        if type(idx) is not int:
            raise TypeError(f"can't index a {type(self)} with {type(idx)}")
        if is_stop:
            if idx > self._size() or idx < -self._size():
                raise IndexError(f"index {idx} out of range for storage of size {self.size()}")
            return idx if idx > 0 else idx % self._size()
        if idx >= self._size() or idx < -self._size():
            raise IndexError(f"index {idx} out of range for storage of size {self.size()}")
        return idx % self._size()

    def __getitem__(self, idx):
        _warn_typed_storage_removal()
        return self._getitem(idx)

    def _getitem(self, idx):
        # PyTorch's ``<type>Storage`` used to return a storage view for a slice; TypedStorage
        # refuses slices rather than implement that.
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(idx, int):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        idx_wrapped = self._maybe_wrap_index(idx)
        # The element as ``tensor.item()`` gives it, read straight from the bytes.
        return self._untyped_storage.elements(self.dtype)[idx_wrapped].item()

    def __setitem__(self, idx, value):
        _warn_typed_storage_removal()
        return self._setitem(idx, value)

    def _setitem(self, idx, value):
        if not isinstance(idx, (int, slice)):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        if isinstance(value, (Storage, TypedStorage)):
            raise RuntimeError(f"cannot set item with value type {type(value)}")
        # Written as a tensor over the storage is (PyTorch's ``.set_(self)``), so the value
        # is cast, broadcast and checked as ``tensor[idx] = value``.
        _reader(self._untyped_storage, self.dtype, self._size())[idx] = value

    def fill_(self, value):
        _warn_typed_storage_removal()
        self._setitem(slice(0, self._size()), value)
        return self

    def copy_(self, source, non_blocking=None):
        """Copy ``source``'s *bytes* (PyTorch copies the untyped storages: a float32 storage
        copied from an int32 one gets the ints' bit patterns, not their values)."""
        _warn_typed_storage_removal()
        if isinstance(source, TypedStorage):
            _copy_bytes(self._untyped_storage, source._untyped_storage)
        else:
            _copy_bytes(self._untyped_storage, source)
        return self

    def __iter__(self):
        _warn_typed_storage_removal()
        return iter(self[i] for i in range(self.size()))

    def tolist(self) -> list:
        """The elements of the whole storage, as Python numbers."""
        _warn_typed_storage_removal()
        return list(self)

    # --- copies and conversions -----------------------------------------------------

    def clone(self) -> TypedStorage:
        """A copy of the storage in new memory (writes to it are not the tensor's)."""
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(_clone_bytes(self._untyped_storage))

    def __copy__(self) -> TypedStorage:
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(_clone_bytes(self._untyped_storage))

    def __deepcopy__(self, memo) -> TypedStorage:
        _warn_typed_storage_removal()
        return self._deepcopy(memo)

    def _deepcopy(self, memo) -> TypedStorage:
        key = id(self._untyped_storage)
        if key not in memo:
            memo[key] = _clone_bytes(self._untyped_storage)
        return self._new_wrapped_storage(memo[key])

    def __sizeof__(self) -> int:
        _warn_typed_storage_removal()
        return super().__sizeof__() + self.nbytes()

    def cpu(self) -> TypedStorage:
        """Already on the CPU: a new wrapper of the same bytes."""
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage)

    def to(self, *, device, non_blocking: bool = False) -> TypedStorage:
        _warn_typed_storage_removal()
        _check_device(device)
        return self._new_wrapped_storage(self._untyped_storage)

    def cuda(self, device=None, non_blocking=False):
        _warn_typed_storage_removal()
        raise AssertionError(NO_CUDA)

    def _to(self, dtype) -> TypedStorage:
        """The whole storage's elements converted to ``dtype``, in new memory."""
        if not isinstance(dtype, DType):
            raise TypeError(f"Argument 'dtype' must be vizgrad.dtype, not {type(dtype)}")
        _ = self.device  # PyTorch makes its reading tensor on ``self.device`` (a warning)
        converted = _reader(self._untyped_storage, self.dtype, self._size()).to(dtype)
        storage = TypedStorage(wrap_storage=converted._storage, dtype=dtype, _internal=True)
        if storage.data_ptr() == self.data_ptr():  # the same dtype: ``to`` returned it
            storage = storage.clone()
        return storage

    def double(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.float64)

    def float(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.float32)

    def half(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.float16)

    def long(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.int64)

    def int(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.int32)

    def short(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.int16)

    def char(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.int8)

    def byte(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.uint8)

    def bool(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.bool)

    def complex_double(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.complex128)

    def complex_float(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.complex64)

    def resize_(self, size) -> None:
        _warn_typed_storage_removal()
        self._resize_(size)

    def _resize_(self, size) -> None:
        """Grow the bytes to ``size`` elements; every tensor over them follows."""
        storage = self._untyped_storage
        nbytes = size * self._element_size()
        if nbytes < storage.nbytes():
            # PyTorch frees the tail and lets tensors that read it read freed memory;
            # vizgrad's tensors keep NumPy views that could not.
            raise RuntimeError(
                f"vizgrad cannot shrink a storage ({storage.nbytes()} bytes to {nbytes}): "
                "tensors reading its end would read memory that is gone"
            )
        if nbytes > storage.nbytes():
            if not storage.resizable():
                raise RuntimeError("Trying to resize storage that is not resizable")
            bigger = np.empty(nbytes, dtype=np.uint8)
            bigger[: storage.nbytes()] = storage.bytes
            storage.set_data(bigger)

    # --- printing -------------------------------------------------------------------

    def __str__(self) -> str:
        _warn_typed_storage_removal()
        info_str = (
            f"[{typename(self)}(dtype={self.dtype}, device={self.device}) of size {len(self)}]"
        )
        if self.device.type == "meta":  # (PyTorch's check, which asks the device again)
            return "...\n" + info_str
        data_str = " " + "\n ".join(str(self[i]) for i in range(self.size()))
        return data_str + "\n" + info_str

    def __repr__(self) -> str:
        _warn_typed_storage_removal()
        return str(self)


def tensor_storage(tensor: Tensor) -> TypedStorage:
    """``Tensor.storage()``: the tensor's untyped storage read as its dtype, with the
    deprecation warning (``Tensor._typed_storage`` without it)."""
    _warn_typed_storage_removal()
    return typed_storage(tensor)


def typed_storage(tensor: Tensor) -> TypedStorage:
    """``Tensor._typed_storage()``: no warning, for vizgrad's own use."""
    return TypedStorage(wrap_storage=tensor._storage, dtype=tensor.dtype, _internal=True)


# --- the legacy storage classes -------------------------------------------------------


class _LegacyStorageMeta(type):
    """``isinstance(s, vizgrad.FloatStorage)``: is ``s`` a CPU TypedStorage of float32?"""

    dtype: DType

    def __instancecheck__(cls, instance) -> bool:
        if type(instance) is TypedStorage:
            return instance._untyped_storage.device.type == "cpu" and cls.dtype == instance.dtype
        return False


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    pass


def _legacy_class(dtype: DType) -> type:
    name = _LEGACY_NAMES[dtype]
    doc = f"``torch.{name}``: the legacy name of a CPU TypedStorage of {dtype}."
    # Named where users reach it, as ``torch.FloatStorage`` is.
    return _LegacyStorageMeta(
        name, (_LegacyStorage,), {"dtype": dtype, "__module__": "vizgrad", "__doc__": doc}
    )


DoubleStorage = _legacy_class(dtypes.float64)
FloatStorage = _legacy_class(dtypes.float32)
HalfStorage = _legacy_class(dtypes.float16)
LongStorage = _legacy_class(dtypes.int64)
IntStorage = _legacy_class(dtypes.int32)
ShortStorage = _legacy_class(dtypes.int16)
CharStorage = _legacy_class(dtypes.int8)
ByteStorage = _legacy_class(dtypes.uint8)
BoolStorage = _legacy_class(dtypes.bool)
ComplexDoubleStorage = _legacy_class(dtypes.complex128)
ComplexFloatStorage = _legacy_class(dtypes.complex64)

"""Checkpoints: ``vizgrad.save`` and ``vizgrad.load`` in PyTorch's own file format.

A file ``torch.save`` writes is a zip archive (``torch/serialization.py`` and
``caffe2/serialize/inline_container.cc``), every record under one folder named after the
file (``archive/`` for a buffer):

* ``data.pkl``: the object, pickled with protocol 2. A tensor is the call
  ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
  backward_hooks)``; its storage is not in the pickle but a *persistent id*
  ``('storage', torch.FloatStorage, key, 'cpu', numel)`` naming a record;
* ``data/<key>``: one record per storage, its raw little-endian bytes. Two views of one
  storage name the same key, so they still share after loading;
* ``.format_version``, ``.storage_alignment``, ``byteorder``, ``version`` and
  ``.data/serialization_id``: small text records.

Records are stored uncompressed, each one's bytes starting at a multiple of 64 in the
file (PyTorch pads the zip header's extra field to get there), so that a loader could
map the file into memory and read tensors in place.

``save`` writes this without importing PyTorch: its pickler writes the ``GLOBAL``
instruction for ``torch._utils._rebuild_tensor_v2`` itself, and its zip writer lays the
records out as PyTorch's (miniz) does. ``load`` reads files from ``torch.save`` too, with
the weights-only interpreter of ``vizgrad._weights_only_unpickler``: it never runs code a
file names.
"""

from __future__ import annotations

import bisect
import codecs
import io
import os
import pickle
import struct
import zipfile
import zlib
from collections import Counter, OrderedDict
from types import FunctionType

import numpy as np

from . import _weights_only_unpickler
from .device import device as Device
from .device import layout as Layout
from .device import sparse_coo, strided
from .dtypes import ALL_DTYPES, uint8
from .dtypes import dtype as DType
from .nn.parameter import Buffer, Parameter
from .ops.sparse_coo import sparse_coo_tensor
from .shape import Size, storage_extent
from .sparse_tensor import SparseCooTensor
from .storage import Storage
from .tensor import Tensor

__all__ = ["save", "load"]


# --- the names the pickle uses --------------------------------------------------------


class StorageType:
    """What ``torch.FloatStorage`` stands for in a checkpoint: the dtype of a storage record.

    (``torch.serialization.StorageType`` plays this part when PyTorch loads.)
    """

    __slots__ = ("dtype", "name")

    def __init__(self, dtype: DType, name: str):
        self.dtype = dtype
        self.name = name

    def __repr__(self) -> str:
        return f"StorageType(dtype={self.dtype}, torch.{self.name})"


_STORAGE_NAMES = {
    "float64": "DoubleStorage", "float32": "FloatStorage", "float16": "HalfStorage",
    "int64": "LongStorage", "int32": "IntStorage", "int16": "ShortStorage",
    "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
    "complex128": "ComplexDoubleStorage", "complex64": "ComplexFloatStorage",
}  # fmt: skip
STORAGE_TYPES = {d: StorageType(d, _STORAGE_NAMES[d.name]) for d in ALL_DTYPES}


def _rebuild_tensor(storage, storage_offset, size, stride):
    """``torch._utils._rebuild_tensor``: a tensor over a loaded storage (``set_``).

    Every argument comes from the file, so each is checked before the tensor exists: the
    geometry must be whole numbers and fit inside the storage, as ``set_`` checks.
    """
    if not isinstance(storage, Storage):
        raise _refuse(f"a tensor is rebuilt over {type(storage).__name__}, not a storage")
    if not _is_int(storage_offset) or storage_offset < 0:
        raise _refuse(f"a tensor's storage offset is {storage_offset!r}")
    for name, value in (("size", size), ("stride", stride)):
        if type(value) not in (tuple, Size) or not all(_is_int(v) and v >= 0 for v in value):
            raise _refuse(f"a tensor's {name} is {value!r}, not a tuple of whole numbers")
    if len(size) != len(stride):
        raise _refuse(f"a tensor has size {tuple(size)} but stride {tuple(stride)}")
    itemsize = storage.dtype.itemsize
    extent = storage_extent(size, stride, storage_offset) * itemsize
    if extent > storage.nbytes():
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
            f"{storage_offset}, and itemsize {itemsize} requiring a storage size of "
            f"{extent} are out of bounds for storage of size {storage.nbytes()}"
        )
    return Tensor(storage, size, stride, storage_offset)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):  # fmt: skip
    """``torch._utils._rebuild_tensor_v2``: the call a checkpoint makes for each tensor."""
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    if type(requires_grad) is not bool:
        raise _refuse(f"a tensor's requires_grad is {requires_grad!r}")
    if type(backward_hooks) not in (OrderedDict, dict) or backward_hooks:
        # PyTorch never saves hooks (they are code); a file that carries some is not its own.
        raise _refuse("a tensor comes with backward hooks; checkpoints never hold hooks")
    if metadata:
        tensor = _apply_metadata(tensor, metadata)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def _apply_metadata(tensor: Tensor, metadata) -> Tensor:
    """``torch._utils._set_tensor_metadata``: the lazy conjugate and negative bits
    (``conj()``, ``conj().imag``), which a checkpoint keeps as they are."""
    if type(metadata) is not dict or not set(metadata) <= {"conj", "neg"}:
        raise _refuse(f"a tensor carries metadata {metadata!r}")
    if any(type(bit) is not bool for bit in metadata.values()):
        raise _refuse(f"a tensor carries metadata {metadata!r}")
    if metadata.get("conj") and not tensor.is_complex():
        raise _refuse("a real tensor carries the conjugate bit")
    tensor._set_conj(metadata.get("conj", False))
    tensor._set_neg(metadata.get("neg", False))
    return tensor


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """``torch._utils._rebuild_parameter``: ``nn.Parameter(data, requires_grad)``."""
    if not isinstance(data, Tensor) or type(requires_grad) is not bool:
        raise _refuse("a parameter is rebuilt from something other than a tensor and a bool")
    if type(backward_hooks) not in (OrderedDict, dict) or backward_hooks:
        raise _refuse("a parameter comes with backward hooks; checkpoints never hold hooks")
    return Parameter(data, requires_grad)


_LAYOUTS = {"torch.strided": strided, "torch.sparse_coo": sparse_coo}


def _get_layout(name):
    """``torch.serialization._get_layout``: a layout by the name it prints as."""
    if name not in _LAYOUTS:
        raise _refuse(f"a tensor of layout {name}, which vizgrad does not have")
    return _LAYOUTS[name]


def _rebuild_sparse_tensor(layout, data):
    """``torch._utils._rebuild_sparse_tensor``: a sparse COO tensor from ``(indices, values,
    size[, is_coalesced])``. Its shapes are checked; its coordinates are not, as PyTorch
    checks them (``_validate_loaded_sparse_tensors``) only when told to: ``to_dense()``
    refuses one out of bounds."""
    if layout is not sparse_coo or type(data) is not tuple or len(data) not in (3, 4):
        raise _refuse("a sparse tensor that is not a COO tensor of (indices, values, size)")
    indices, values, size, *flag = data
    if not isinstance(indices, Tensor) or not isinstance(values, Tensor):
        raise _refuse("a sparse tensor whose indices or values are not tensors")
    return sparse_coo_tensor(indices, values, size, check_invariants=False,
                             is_coalesced=flag[0] if flag else None)  # fmt: skip


def _size(dims):
    """``torch.Size(dims)``."""
    if type(dims) is not tuple or not all(_is_int(d) for d in dims):
        raise _refuse(f"torch.Size is built from {dims!r}")
    return Size(dims)


def _device(type, index=None):  # noqa: A002 - torch.device's argument name
    """``torch.device('cpu')``; vizgrad has no other device and says so."""
    if not isinstance(type, str) or not (index is None or _is_int(index)):
        raise _refuse(f"torch.device is built from {(type, index)!r}")
    return Device(type, index)


def _ordered_dict(items=()):
    """``collections.OrderedDict()``, as a pickle calls it (empty, filled by SETITEMS)."""
    if type(items) not in (list, tuple, dict):
        raise _refuse(f"an OrderedDict is built from a {items.__class__.__name__}")
    return OrderedDict(items)


def _counter(items=()):
    if type(items) is not dict:
        raise _refuse(f"a Counter is built from a {items.__class__.__name__}")
    return Counter(items)


def _set(items=()):
    if type(items) is not list:
        raise _refuse(f"a set is built from a {items.__class__.__name__}")
    return set(items)


def _complex(real=0.0, imag=0.0):
    if type(real) not in (int, float) or type(imag) not in (int, float):
        raise _refuse(f"a complex number is built from {(real, imag)!r}")
    return complex(real, imag)


def _bytearray(data=b""):
    if type(data) is not bytes:
        raise _refuse(f"a bytearray is built from a {data.__class__.__name__}")
    return bytearray(data)


def _encode(text, encoding="latin1"):
    """``_codecs.encode(text, 'latin1')``: how protocol 2 writes a ``bytes`` object."""
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise _refuse(f"bytes are built with _codecs.encode({text!r:.40}, {encoding!r})")
    return text.encode("latin1")


def _is_int(value) -> bool:
    return type(value) is int


def _refuse(what: str) -> pickle.UnpicklingError:
    return _weights_only_unpickler.refusal(what)


# One table, read both ways: ``load`` looks a name up (what the file may name), ``save``
# looks an object up (which torch name to write for it).
_TORCH_GLOBALS: dict[str, object] = {
    "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
    "torch._utils._rebuild_parameter": _rebuild_parameter,
    "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
    "torch.serialization._get_layout": _get_layout,
    "torch.Size": _size,
    "torch.device": _device,
    **{f"torch.{d.name}": d for d in ALL_DTYPES},
    **{f"torch.{st.name}": st for st in STORAGE_TYPES.values()},
}
_TORCH_NAME_OF = {id(obj): tuple(name.rsplit(".", 1)) for name, obj in _TORCH_GLOBALS.items()}

_LOAD_GLOBALS: dict[str, object] = {
    **_TORCH_GLOBALS,
    "torch._utils._rebuild_tensor": _rebuild_tensor,
    "torch.storage.UntypedStorage": StorageType(uint8, "UntypedStorage"),  # bytes
    "collections.OrderedDict": _ordered_dict,
    "collections.Counter": _counter,
    "builtins.set": _set,
    "builtins.complex": _complex,
    "builtins.bytearray": _bytearray,
    "_codecs.encode": _encode,
}
_LOAD_CALLABLES = frozenset(obj for obj in _LOAD_GLOBALS.values() if isinstance(obj, FunctionType))

# Names PyTorch's weights-only load accepts that vizgrad cannot rebuild, and why.
_NO_SUCH_DTYPE = "a dtype vizgrad does not have (it has " + ", ".join(
    d.name for d in ALL_DTYPES) + ")"  # fmt: skip
_MISSING_DTYPES = ("bfloat16", "uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2",
                   "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "complex32",
                   "qint8", "quint8", "qint32", "quint4x2", "quint2x4", "BFloat16Storage",
                   "QInt8Storage", "QUInt8Storage", "QInt32Storage", "QUInt4x2Storage",
                   "QUInt2x4Storage")  # fmt: skip
_KNOWN_TO_TORCH: dict[str, str] = {
    **{f"torch.{name}": _NO_SUCH_DTYPE for name in _MISSING_DTYPES},
    "torch._utils._rebuild_tensor_v3": "tensors of a dtype vizgrad does not have (torch "
    "writes _rebuild_tensor_v3 only for dtypes without a legacy storage type)",
    "torch._utils._rebuild_parameter_with_state": "a Parameter with Python attributes of its "
    "own; save the state_dict (plain tensors) instead",
    "torch._tensor._rebuild_from_type_v2": "a tensor subclass or a tensor with Python "
    "attributes; vizgrad rebuilds plain tensors and parameters",
    "torch._utils._rebuild_qtensor": "a quantized tensor, which vizgrad does not have",
    "torch._utils._rebuild_nested_tensor": "a nested tensor, which vizgrad does not have",
    "torch._utils._rebuild_meta_tensor_no_storage": "a tensor on the meta device",
    "torch._utils._rebuild_wrapper_subclass": "a tensor subclass vizgrad does not have",
    "torch._utils._rebuild_device_tensor_from_numpy": "a tensor of another device",
    "torch._utils._rebuild_device_tensor_from_cpu_tensor": "a tensor of another device",
}


# --- save: the pickle -----------------------------------------------------------------


class _StorageRef:
    """A storage as the pickle refers to it: by persistent id, never by value, as the
    elements of ``dtype`` (``TypedStorage``: the saved tensor's dtype)."""

    __slots__ = ("storage", "dtype")

    def __init__(self, storage: Storage, dtype: DType):
        self.storage = storage
        self.dtype = dtype


class _PlainTensor:
    """A parameter's data as a plain tensor (``Parameter.data`` in ``__reduce_ex__``)."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Tensor):
        self.tensor = tensor


# The values a weights-only load can rebuild, which ``save`` writes as pickle always does.
_PLAIN_TYPES = frozenset({type(None), bool, int, float, complex, str, bytes, bytearray,
                          list, tuple, dict, set, OrderedDict, Counter})  # fmt: skip

# The globals Python's pickle itself writes for plain values (an OrderedDict is rebuilt by
# calling ``collections.OrderedDict``, bytes by ``_codecs.encode``), all on load's list.
_PLAIN_GLOBALS = frozenset(map(id, (OrderedDict, Counter, set, complex, bytearray,
                                    codecs.encode)))  # fmt: skip

# The strings and the location every storage record repeats: one object each, so the
# pickle's memo writes them once and refers back, as torch's pickle does.
_STORAGE_TAG = "storage"
_CPU = "cpu"


class _CheckpointPickler(pickle._Pickler):
    """The pickler of ``torch.save`` (``PyTorchPickler``), writing torch's names itself.

    Python's C pickler checks that every global it writes can be imported, which
    ``torch._utils`` cannot be here; its Python twin ``pickle._Pickler`` (the same
    protocol, byte for byte) lets a subclass write the ``GLOBAL`` instruction, through
    ``save_global`` and the ``dispatch`` table.
    """

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storage_keys: dict[Storage, str] = {}
        self.storage_dtypes: dict[Storage, DType] = {}  # what each storage is saved as

    def save_global(self, obj, name=None):
        torch_name = _TORCH_NAME_OF.get(id(obj))
        if torch_name is None:
            return super().save_global(obj, name)
        module, qualname = torch_name
        self.write(pickle.GLOBAL + f"{module}\n{qualname}\n".encode())
        self.memoize(obj)

    dispatch[FunctionType] = save_global
    dispatch[DType] = save_global
    dispatch[StorageType] = save_global

    def persistent_id(self, obj):
        if type(obj) is not _StorageRef:
            return None
        storage, dtype = obj.storage, obj.dtype
        # A storage record has one element type: that of the tensor that saves it (a
        # ``view(dtype)`` is saved as its own dtype), the same for every tensor over it.
        if self.storage_dtypes.setdefault(storage, dtype) is not dtype:
            raise RuntimeError(
                "Cannot save multiple tensors or storages that view the same data as "
                "different types"
            )
        # ``id_map.setdefault``: one key per storage, the same string object each time.
        key = self.storage_keys.setdefault(storage, str(len(self.storage_keys)))
        numel = storage.nbytes() // dtype.itemsize
        return (_STORAGE_TAG, STORAGE_TYPES[dtype], key, _CPU, numel)

    def reducer_override(self, obj):
        kind = type(obj)
        if kind is bytes and not obj:
            # Protocol 2 writes b"" as ``builtins.bytes()``, a name no weights-only load
            # allows; as ``_codecs.encode("", "latin1")`` it reads back everywhere.
            return (codecs.encode, ("", "latin1"))
        if kind in _PLAIN_TYPES or id(obj) in _TORCH_NAME_OF or id(obj) in _PLAIN_GLOBALS:
            return NotImplemented
        if kind is Tensor or kind is Buffer:
            return _reduce_tensor(obj, obj.requires_grad)
        if kind is Parameter:
            # ``Parameter.__reduce_ex__``: the data as a plain tensor, then requires_grad.
            return (_rebuild_parameter, (_PlainTensor(obj), obj.requires_grad, OrderedDict()))
        if kind is _PlainTensor:
            return _reduce_tensor(obj.tensor, False)
        if kind is SparseCooTensor:
            # ``Tensor._reduce_ex_internal``: its parts, size and flag (not requires_grad).
            parts = (obj._indices(), obj._values(), Size(obj._size), obj.is_coalesced())
            return (_rebuild_sparse_tensor, (obj.layout, parts))
        if kind is Layout:
            return (_get_layout, (f"torch.{obj.name}",))
        if kind is Size:
            return (_size, (tuple(obj),))
        if kind is Device:
            # torch.device's reduction makes its type name afresh, so the pickle writes
            # "cpu" again instead of referring back to the storages' "cpu": a new string.
            name = obj.type.encode().decode()
            return (_device, (name,) if obj.index is None else (name, obj.index))
        raise pickle.PicklingError(
            f"vizgrad.save cannot write a {kind.__module__}.{kind.__qualname__}: a checkpoint "
            "holds tensors, parameters, dtypes, devices, sizes and plain containers (dict, "
            "OrderedDict, list, tuple, set, str, bytes, numbers, None), which a weights-only "
            "load can read back without running code. Save a model's or an optimizer's "
            "state_dict() rather than the object itself."
        )


def _reduce_tensor(tensor: Tensor, requires_grad: bool):
    # ``Tensor._reduce_ex_internal``: backward hooks are never saved, an empty OrderedDict
    # stands in their place; the lazy conjugate and negative bits follow as ``metadata``
    # (``torch._utils.get_tensor_metadata``), only when one is set.
    # Size and stride as new tuples, as torch's ``self.size()`` and ``self.stride()`` make
    # them: the pickler writes a tuple it has seen (vizgrad's shared ``(1,)`` strides) as a
    # reference back, which would change the bytes.
    args = (_StorageRef(tensor._storage, tensor._dtype), tensor._offset, tuple([*tensor._size]),
            tuple([*tensor._stride]), requires_grad, OrderedDict())  # fmt: skip
    metadata = {name: True for name, bit in (("conj", tensor.is_conj()), ("neg", tensor.is_neg()))
                if bit}  # fmt: skip
    return (_rebuild_tensor_v2, (*args, metadata) if metadata else args)


# --- save: the zip archive ------------------------------------------------------------

_ALIGNMENT = 64  # ``kFieldAlignment``: every record's bytes start at a multiple of 64
_VERSION = b"3\n"  # ``kProducedFileFormatVersion`` for a checkpoint without TorchScript
_SERIALIZATION_ID = ".data/serialization_id"
_U32_MAX = 0xFFFFFFFF


class _ZipWriter:
    """``PyTorchStreamWriter`` over miniz: stored records, 64-byte aligned, ZIP64 trailer.

    Each record is a local header (sizes and CRC zero, "a data descriptor follows" flag),
    the name, an extra field ``FB`` padded with ``Z`` up to the next multiple of 64, the
    bytes, then the data descriptor with the CRC-32 and sizes. The central directory and
    the ZIP64 end records close the archive.
    """

    def __init__(self, archive_name: str):
        self.prefix = archive_name + "/"
        self.chunks: list[bytes] = []
        self.offset = 0
        self.central: list[bytes] = []
        self.names: list[str] = []
        self.crc_hash = 0  # ``combined_uncomp_crc32_``

    def _emit(self, data: bytes) -> None:
        self.chunks.append(data)
        self.offset += len(data)

    def write_record(self, name: str, data: bytes) -> None:
        full = (self.prefix + name).encode()
        size = len(data)
        if size >= _U32_MAX or self.offset >= _U32_MAX:
            raise RuntimeError("vizgrad.save writes checkpoints smaller than 4 GiB")
        start = self.offset + 30 + len(full) + 4  # where the bytes would start unpadded
        padding = -start % _ALIGNMENT
        extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
        crc = zlib.crc32(data)
        # An empty record has nothing to describe afterwards: no data descriptor.
        flags = 0x0808 if size else 0x0800  # bit 3: data descriptor; bit 11: UTF-8 names
        header_offset = self.offset
        self._emit(struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, flags, 0, 0, 0, 0, 0, 0,
                               len(full), len(extra)) + full + extra)  # fmt: skip
        self._emit(data)
        if size:
            self._emit(struct.pack("<IIII", 0x08074B50, crc, size, size))
            self.crc_hash = _hash_combine(self.crc_hash, crc)
        self.central.append(
            struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0, 0, flags, 0, 0, 0, crc, size,
                        size, len(full), 0, 0, 0, 0, 0, header_offset) + full
        )  # fmt: skip
        self.names.append(name)

    def finish(self) -> bytes:
        """``writeEndOfFile``: version, serialization id, central directory, end records."""
        self.write_record("version", _VERSION)
        record_hash = 0
        for name_hash in _unordered_set_order([_std_hash(n.encode()) for n in self.names]):
            record_hash = _hash_combine(record_hash, name_hash)
        self.write_record(_SERIALIZATION_ID, b"%020d%020d" % (record_hash, self.crc_hash))
        directory = b"".join(self.central)
        start, count = self.offset, len(self.central)
        self._emit(directory)
        zip64_end = self.offset
        self._emit(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, count, count,
                               len(directory), start))  # fmt: skip
        self._emit(struct.pack("<IIQI", 0x07064B50, 0, zip64_end, 1))
        self._emit(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(directory),
                               start, 0))  # fmt: skip
        return b"".join(self.chunks)


# ``.data/serialization_id`` is 20 digits hashing the record names, then 20 digits
# combining the records' CRC-32s. PyTorch hashes the names with libstdc++'s
# ``std::hash<std::string>`` (64-bit MurmurHash2, ``_Hash_bytes``) and combines them in
# the order its ``std::unordered_set`` iterates, which the functions below reproduce, so
# that a vizgrad checkpoint is byte for byte the file PyTorch writes for the same tensors.
_M64 = (1 << 64) - 1
_MURMUR_MUL = 0xC6A4A7935BD1E995
_STD_HASH_SEED = 0xC70F6907


def _hash_combine(seed: int, value: int) -> int:
    """``c10::hash_combine`` in 64-bit arithmetic."""
    return seed ^ ((value + 0x9E3779B9 + (seed << 6) + (seed >> 2)) & _M64)


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _std_hash(data: bytes) -> int:
    """libstdc++'s ``std::_Hash_bytes(data, len, 0xc70f6907)`` for a 64-bit ``size_t``."""
    n = len(data)
    h = _STD_HASH_SEED ^ ((n * _MURMUR_MUL) & _M64)
    whole = n & ~7
    for i in range(0, whole, 8):
        word = int.from_bytes(data[i : i + 8], "little")
        h = ((h ^ ((_shift_mix((word * _MURMUR_MUL) & _M64) * _MURMUR_MUL) & _M64))
             * _MURMUR_MUL) & _M64  # fmt: skip
    if n & 7:
        h = ((h ^ int.from_bytes(data[whole:], "little")) * _MURMUR_MUL) & _M64
    return _shift_mix((_shift_mix(h) * _MURMUR_MUL) & _M64)


# libstdc++'s ``_Prime_rehash_policy``: bucket counts for small tables, then its primes.
_FAST_BUCKETS = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73,
           79, 83, 89, 97, 103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211,
           227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467, 503, 541, 577, 619,
           661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741,
           1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703,
           5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011,
           12983, 14033, 15173, 16411, 17749, 19183, 20753, 22447, 24281, 26267, 28411,
           30727, 33223, 35933, 38873, 42043, 45481, 49201, 53201, 57557, 62233, 67307,
           72817, 78779, 85229, 92203, 99733)  # fmt: skip


def _next_bucket_count(n: int) -> int:
    if n < len(_FAST_BUCKETS):
        return _FAST_BUCKETS[n] if n else 1
    return _PRIMES[min(bisect.bisect_left(_PRIMES, n, 6), len(_PRIMES) - 1)]


def _unordered_set_order(hashes: list[int]) -> list[int]:
    """The order a ``std::unordered_set`` filled with ``hashes`` (in this order) iterates.

    libstdc++ keeps one singly linked list; a bucket remembers the node *before* its
    first node. A node joins the front of its bucket's run, or the front of the whole
    list if its bucket is empty; growing the table (to 13 buckets at the first insert,
    then past the load factor 1.0) relinks the nodes the same way, in list order.
    """
    nxt: dict[int, int | None] = {-1: None}  # node -> next node; -1 is ``_M_before_begin``
    buckets: dict[int, int] = {}
    count, resize_at = 1, 0
    for node, h in enumerate(hashes):
        if node + 1 > resize_at:
            wanted = max(node + 1, 0 if resize_at else 11)
            if wanted >= count:
                count = _next_bucket_count(max(wanted + 1, count * 2))
                buckets, first, previous_bucket = {}, nxt[-1], 0
                nxt[-1] = None
                while first is not None:
                    following, b = nxt[first], hashes[first] % count
                    if b not in buckets:
                        nxt[first], nxt[-1] = nxt[-1], first
                        buckets[b] = -1
                        if nxt[first] is not None:
                            buckets[previous_bucket] = first
                        previous_bucket = b
                    else:
                        nxt[first], nxt[buckets[b]] = nxt[buckets[b]], first
                    first = following
            resize_at = count
        b = h % count
        if b in buckets:
            nxt[node], nxt[buckets[b]] = nxt[buckets[b]], node
        else:
            nxt[node], nxt[-1] = nxt[-1], node
            if nxt[node] is not None:
                buckets[hashes[nxt[node]] % count] = node
            buckets[b] = -1
    order, node = [], nxt[-1]
    while node is not None:
        order.append(hashes[node])
        node = nxt[node]
    return order


def _archive_name(f) -> str:
    """``PyTorchStreamWriter``'s folder name: the file's name without directory and
    extension (``"ckpt"`` for ``runs/ckpt.pt``), ``"archive"`` for a buffer."""
    if not isinstance(f, str | os.PathLike):
        return "archive"
    name = os.path.basename(os.fspath(f))
    stem = name.rpartition(".")[0] if "." in name else name
    if not stem:
        raise RuntimeError(f"invalid file name: {os.fspath(f)}")
    return stem


def save(obj, f) -> None:
    """Write ``obj`` to ``f`` as ``torch.save`` does (``torch.save(obj, f)``).

    ``f`` is a path (``str`` or ``os.PathLike``) or a binary file object with ``write``.
    ``obj`` may hold tensors, parameters, dtypes, devices, sizes and plain containers:
    what ``torch.load(f, weights_only=True)`` and ``vizgrad.load`` read back. Tensors
    keep their dtype, shape, strides and storage offset; views of one storage stay views
    of one storage. Anything else (a whole ``nn.Module``, a function) is refused: save a
    ``state_dict()`` instead, as PyTorch recommends.
    """
    if not isinstance(f, str | os.PathLike) and not hasattr(f, "write"):
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with a 'write' attribute"
        )
    if isinstance(f, str | os.PathLike):
        parent = os.path.dirname(os.fspath(f))
        if parent and not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
    buffer = io.BytesIO()
    pickler = _CheckpointPickler(buffer)
    pickler.dump(obj)
    writer = _ZipWriter(_archive_name(f))
    writer.write_record("data.pkl", buffer.getvalue())
    writer.write_record(".format_version", b"1")
    writer.write_record(".storage_alignment", str(_ALIGNMENT).encode())
    writer.write_record("byteorder", b"little")
    for storage, key in pickler.storage_keys.items():
        writer.write_record(f"data/{key}", _storage_bytes(storage, pickler.storage_dtypes[storage]))
    archive = writer.finish()
    if isinstance(f, str | os.PathLike):
        with open(f, "wb") as file:
            file.write(archive)
    else:
        f.write(archive)


def _storage_bytes(storage: Storage, dtype: DType) -> bytes:
    data = storage.elements(dtype)
    return data.astype(data.dtype.newbyteorder("<"), copy=False).tobytes()


# --- load ----------------------------------------------------------------------------

_LEGACY_MAGIC = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19."  # pickled 0x1950a86a20f9469cfc6c
_MIN_VERSION, _MAX_VERSION = 1, 10  # ``kMin/kMaxSupportedFileFormatVersion``


def _corrupt(what: str) -> RuntimeError:
    return RuntimeError(
        f"{what}. The checkpoint file is damaged: it was not saved completely, was "
        "truncated or altered in transfer, or is not a checkpoint."
    )


class _Archive:
    """``PyTorchStreamReader``: the records of a checkpoint's zip archive, checked."""

    def __init__(self, data: bytes):
        if not data.startswith(b"PK\x03\x04"):
            if data.startswith(_LEGACY_MAGIC):
                raise RuntimeError(
                    "this checkpoint was written in PyTorch's legacy format "
                    "(torch.save(..., _use_new_zipfile_serialization=False)), which is a bare "
                    "pickle stream that vizgrad does not read. Load it in PyTorch and save it "
                    "again with torch.save(obj, f) (the zip format, the default since 1.6)."
                )
            raise _corrupt(
                f"not a checkpoint: a checkpoint is a zip archive starting with b'PK\\x03\\x04', "
                f"this file starts with {data[:8]!r}"
            )
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, struct.error) as e:
            raise _corrupt(f"failed reading the zip archive ({e})") from None
        names = self.zip.namelist()
        if not names or "/" not in names[0]:
            raise _corrupt("the zip archive has no folder of records")
        self.prefix = names[0].split("/")[0] + "/"

    def has(self, name: str) -> bool:
        try:
            self.zip.getinfo(self.prefix + name)
        except KeyError:
            return False
        return True

    def get(self, name: str) -> bytes:
        try:
            info = self.zip.getinfo(self.prefix + name)
        except KeyError:
            raise _corrupt(f"the record {name} is missing") from None
        if info.compress_type != zipfile.ZIP_STORED:
            # torch.save never compresses; a compressed record could inflate to any size.
            raise _corrupt(f"the record {name} is compressed, which torch.save never does")
        try:
            return self.zip.read(info)
        except (zipfile.BadZipFile, EOFError, OSError) as e:
            raise _corrupt(f"the record {name} cannot be read ({e})") from None


def _restore_location(map_location, location: str) -> str:
    """Where ``map_location`` sends a storage saved at ``location`` (a name)."""
    if map_location is None:
        return location
    if isinstance(map_location, dict):
        return map_location.get(location, location)
    return str(Device(str(map_location)))  # "cpu", vizgrad.device("cpu")


def load(f, map_location=None, *, weights_only=True):
    """Read a checkpoint written by ``torch.save`` or ``vizgrad.save`` (``torch.load``).

    ``f`` is a path or a binary file object with ``read``. Tensors come back as vizgrad
    tensors with their dtype, shape, strides and storage offset, over vizgrad storages
    shared as they were in the file; ``nn.Parameter`` becomes ``vizgrad.nn.Parameter``.
    ``map_location`` is PyTorch's: ``None``, ``"cpu"``, a ``vizgrad.device``, a dict from
    saved to new location, or ``fn(storage, location)`` returning a storage or ``None``.

    The file's pickle is read by a weights-only interpreter: it rebuilds tensors, dtypes,
    devices, sizes and plain containers, and refuses any other name the file mentions
    with a ``pickle.UnpicklingError`` before calling anything. There is no
    ``weights_only=False``: in PyTorch it hands the file to Python's ``pickle``, which
    calls whatever functions the file names (``os.system`` included), so loading a file
    means running it; a student should never need that to read weights. Passing it is
    refused.
    """
    if weights_only is False:
        raise RuntimeError(
            "vizgrad.load has no weights_only=False: that mode hands the file to Python's "
            "pickle, which calls any function the file names (os.system included), so "
            "loading would run the file's code. vizgrad.load reads weights only; save "
            "state_dicts rather than whole objects."
        )
    if weights_only is not True and weights_only is not None:
        raise TypeError(f"weights_only must be a bool, not {type(weights_only).__name__}")
    if isinstance(f, str | os.PathLike):
        with open(f, "rb") as file:
            data = file.read()
    elif hasattr(f, "read"):
        data = f.read()
    else:
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with a 'read' attribute"
        )
    return _load(_Archive(data), map_location)


def _load(archive: _Archive, map_location):
    version_name = ".data/version" if archive.has(".data/version") else "version"
    version = archive.get(version_name).strip()
    if not version.isdigit() or not _MIN_VERSION <= int(version) <= _MAX_VERSION:
        raise RuntimeError(
            f"Attempted to read a PyTorch file with version {version.decode(errors='replace')}, "
            f"but vizgrad reads versions {_MIN_VERSION} to {_MAX_VERSION}, as PyTorch 2.13 does."
        )
    byteorder = archive.get("byteorder") if archive.has("byteorder") else b"little"
    if byteorder not in (b"little", b"big"):
        raise ValueError("Unknown endianness type: " + byteorder.decode(errors="replace"))
    loaded: dict[str, Storage] = {}

    def persistent_load(pid):
        if len(pid) != 5:
            raise _refuse(f"a storage record {pid!r} is not (tag, type, key, location, numel)")
        _, storage_type, key, location, numel = pid
        if not isinstance(storage_type, StorageType):
            raise _refuse(f"a storage's type is {storage_type!r}, not a storage type")
        if type(key) is not str or type(location) is not str or not _is_int(numel) or numel < 0:
            raise _refuse(f"a storage record {pid!r} is malformed")
        if key in loaded:
            storage = loaded[key]
            if storage.dtype is not storage_type.dtype:
                raise _refuse(
                    f"storage {key} is read as both {storage.dtype} and {storage_type.dtype}"
                )
            return storage
        storage = _read_storage(archive, key, storage_type.dtype, numel, byteorder)
        storage = _place(storage, location, map_location)
        loaded[key] = storage
        return storage

    unpickler = _weights_only_unpickler.Unpickler(
        io.BytesIO(archive.get("data.pkl")),
        allowed=_LOAD_GLOBALS,
        callables=_LOAD_CALLABLES,
        known=_KNOWN_TO_TORCH,
        persistent_load=persistent_load,
    )
    return unpickler.load()


def _read_storage(archive: _Archive, key: str, dtype: DType, numel: int, byteorder: bytes):
    raw = archive.get(f"data/{key}")
    if len(raw) != numel * dtype.itemsize:
        raise RuntimeError(
            f"record size ({len(raw)} bytes) does not match expected size "
            f"({numel * dtype.itemsize} bytes = {numel} elements * {dtype.itemsize} "
            f"bytes/element) for dtype {dtype.scalar_name}"
        )
    if dtype.name == "bool":
        # Any nonzero byte is True; NumPy would keep a 2 as a malformed bool.
        return Storage(np.frombuffer(raw, np.uint8) != 0, dtype)
    order = "<" if byteorder == b"little" else ">"
    array = np.frombuffer(raw, dtype.numpy.newbyteorder(order)).astype(dtype.numpy)
    return Storage(array, dtype)


def _place(storage: Storage, location: str, map_location) -> Storage:
    """``restore_location``: vizgrad keeps every storage on the CPU, and says so when the
    file puts one elsewhere and ``map_location`` does not bring it back."""
    if callable(map_location):
        moved = map_location(storage, location)
        if moved is None:
            return _place(storage, location, None)
        if not isinstance(moved, Storage):
            raise TypeError(f"map_location returned a {type(moved).__name__}, not a storage")
        return moved
    target = _restore_location(map_location, location)
    if target.split(":")[0] == "cuda":  # torch.serialization's words on a CPU-only machine
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but vizgrad.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use vizgrad.load with "
            "map_location=vizgrad.device('cpu') to map your storages to the CPU."
        )
    if target.split(":")[0] != "cpu":
        raise RuntimeError(
            f"the checkpoint puts a storage on '{target}', but vizgrad has only the CPU "
            "backend. Load it with map_location='cpu' to bring every storage to the CPU."
        )
    return storage

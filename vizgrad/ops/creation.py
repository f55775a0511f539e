"""Creating tensors: from Python data and NumPy (``torch.tensor``…), and by filling (``zeros``…).

Two families live here, as in PyTorch:

* **Constructors from data** (``tensor``, ``as_tensor``, ``from_numpy``,
  ``Tensor.new_tensor``) are not ATen operators: PyTorch writes them by hand in its
  Python bindings (``torch/csrc/utils/tensor_new.cpp``), so here they are plain Python
  functions that parse their arguments with the binding's own signatures
  (``arg_parser.PythonArgParser.from_signatures``). ``tensor(data)`` first measures the shape by
  following first elements, then infers a dtype (each number has one: a Python
  ``int`` is int64, a ``float`` the default dtype, a NumPy scalar its own) and
  promotes them all, so ``[1, 2.5]`` is float32; then it stores every element,
  checking lengths and overflow as it goes.
* **Factories** (``zeros``, ``ones``, ``empty``, ``full``, ``*_like``, ``Tensor.new_*``…)
  are operators declared from their schemas (``aten::zeros``…) and go through the
  dispatcher like any other. Their TensorOptions (``dtype``, ``layout``, ``device``,
  ``pin_memory``) reach the kernel, which picks the default dtype; ``requires_grad=``
  and ``out=`` are the declaration's business.
"""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from .. import device as _formats
from ..arg_parser import PythonArgParser
from ..device import channels_last, check_backend, contiguous_format, memory_format, preserve_format
from ..dispatcher import NONDIFFERENTIABLE
from ..dtypes import (
    ALL_DTYPES,
    BOOL,
    C_TYPE_NAMES,
    COMPLEX,
    FLOATING,
    INTEGRAL,
    default_complex_dtype,
    from_numpy_dtype,
    get_default_dtype,
    int64,
    scalar_dtype,
)
from ..dtypes import bool as bool_dtype
from ..dtypes import dtype as DType
from ..meta_device import empty_meta
from ..promotion import promote_types
from ..shape import (
    channels_last_strides,
    check_storage_nbytes,
    contiguous_strides,
    is_channels_last_strides,
    is_non_overlapping_and_dense,
)
from ..storage import Storage
from ..tensor import Tensor, define_method
from ..user_warnings import warn_at_user_code
from .declaration import native_function
from .iterator import output_strides, resize_output

__all__ = [
    "tensor",
    "as_tensor",
    "from_numpy",
    "zeros",
    "ones",
    "empty",
    "full",
    "empty_strided",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "scalar_tensor",
]

MAX_DIMS = 64  # PyTorch's limit on the number of dimensions of nested data


# --- value checks shared by every creation function ---------------------------------------


def check_device(device, *, meta: bool = False):
    """``device=`` (or, when None, ``get_default_device()``): only the CPU backend exists,
    and the meta device for the factories that make meta tensors (``meta=True``); anything
    else raises as PyTorch built without that backend does (``check_backend``). Returns
    the device."""
    return check_backend(device, meta=meta)


def check_nonnegative(shape) -> None:
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )


# --- scalars: PyTorch's Scalar and its checked conversion ---------------------------------


def python_scalar(value):
    """A ``c10::Scalar``: a bool, int, float or complex (tensors give their one item)."""
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    return value


def scalar_type_of(value) -> DType:
    """The dtype a Scalar gives a new tensor: bool, int64, the default float, or complex."""
    return scalar_dtype(python_scalar(value))


def _overflow(dtype: DType):
    return RuntimeError(
        f"value cannot be converted to type {C_TYPE_NAMES[dtype.name]} without overflow"
    )


def checked_scalar(value, dtype: DType):
    """``c10::checked_convert``: a Scalar as a NumPy scalar of ``dtype``, or the overflow error.

    Integers may wrap into unsigned types (``-1`` is 255 as uint8, as in C); floats must
    fit in the target's range (``inf`` and ``nan`` may go to floating types only);
    a complex number with an imaginary part does not fit in a real type.
    """
    value = python_scalar(value)
    if type(value) is float and dtype.category == FLOATING:  # the common case, checked quickly
        if abs(value) > _FLOAT_MAX[dtype.name] and math.isfinite(value):
            raise _overflow(dtype)
        return dtype.numpy.type(value)
    if dtype.category == BOOL:
        return np.bool_(value != 0)
    if isinstance(value, complex):
        if dtype.category != COMPLEX and value.imag != 0:
            raise _overflow(dtype)
        if dtype.category != COMPLEX:
            value = value.real
    if dtype.category == INTEGRAL:
        return dtype.numpy.type(_checked_integer(value, dtype))
    if dtype.category == FLOATING:
        _check_float_range(value, dtype, dtype)
        return dtype.numpy.type(value)
    _check_float_range(complex(value).real, dtype.to_real(), dtype)
    _check_float_range(complex(value).imag, dtype.to_real(), dtype)
    return dtype.numpy.type(value)


# Each dtype's range, looked up once: (lowest, highest) for integers, the largest finite
# value for floating types.
_INTEGER_RANGE = {d.name: (int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max))
                  for d in ALL_DTYPES if d.category == INTEGRAL}  # fmt: skip
_FLOAT_MAX = {d.name: float(np.finfo(d.numpy).max) for d in ALL_DTYPES
              if d.category == FLOATING}  # fmt: skip


def _checked_integer(value, dtype: DType) -> int:
    low, high = _INTEGER_RANGE[dtype.name]
    if isinstance(value, float):
        if math.isnan(value) or not low <= value <= high:
            raise _overflow(dtype)
        return int(value)  # C truncates toward zero
    value = int(value)
    if low == 0:  # unsigned: negatives down to -max wrap around (two's complement)
        if not -high <= value <= high:
            raise _overflow(dtype)
        return value % (high + 1)
    if not low <= value <= high:
        raise _overflow(dtype)
    return value


def _check_float_range(value, real_dtype: DType, dtype: DType) -> None:
    if isinstance(value, int) and abs(value) >= 2**1024:
        raise _overflow(dtype)
    value = float(value)
    if math.isfinite(value) and abs(value) > _FLOAT_MAX[real_dtype.name]:
        raise _overflow(dtype)


# --- tensor(data): measure, infer, store (tensor_new.cpp) ---------------------------------


def _is_sequence(obj) -> bool:
    """``PySequence_Check``: lists, tuples, ranges, strings, arrays… but not tensors or dicts."""
    if isinstance(obj, Tensor | np.generic | dict):
        return False
    return hasattr(type(obj), "__getitem__") and hasattr(type(obj), "__len__")


def _compute_sizes(data) -> tuple[int, ...]:
    """The shape of nested data, measured along first elements only (``compute_sizes``)."""
    sizes = []
    obj = data
    while _is_sequence(obj):
        length = len(obj)
        sizes.append(length)
        if len(sizes) > MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(obj).__name__}'")
        if length == 0:
            break
        obj = obj[0]
    return tuple(sizes)


def _infer_scalar_type(obj) -> DType:
    """The dtype of nested data: every element's dtype, promoted (``infer_scalar_type``)."""
    if isinstance(obj, np.ndarray):
        return from_numpy_dtype(obj.dtype)
    if isinstance(obj, np.generic):
        return from_numpy_dtype(obj.dtype)
    if isinstance(obj, float):
        return get_default_dtype()
    if isinstance(obj, bool):
        return bool_dtype
    if isinstance(obj, int):
        return int64
    if isinstance(obj, complex):
        return default_complex_dtype()
    if isinstance(obj, Tensor):
        return obj._dtype
    if isinstance(obj, str | bytes):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    if _is_sequence(obj):
        if len(obj) == 0:
            return get_default_dtype()  # NumPy's rule, with the default dtype for double
        result = None
        for item in obj:
            item_type = _infer_scalar_type(item)
            result = item_type if result is None else promote_types(result, item_type)
            if result.name == "complex128":
                break  # nothing promotes higher
        return result
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


def _store_nested(data, sizes, store) -> list:
    """Every leaf of ``data`` converted by ``store``, in row-major order (``recursive_store``).

    Each sequence must have the length the first elements announced.
    """
    flat = []

    def visit(obj, dim):
        if dim == len(sizes):
            flat.append(store(obj))
            return
        if not _is_sequence(obj):
            raise TypeError("not a sequence")
        if len(obj) != sizes[dim]:
            raise ValueError(
                f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(obj)})"
            )
        for item in obj:
            visit(item, dim + 1)

    visit(data, 0)
    return flat


def _unpack_long(obj) -> int:
    """``THPUtils_unpackLong``: anything with ``__index__``, within int64."""
    value = operator.index(obj)
    if not -(2**63) <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return value


def _unpack_double(obj) -> float:
    """``THPUtils_unpackDouble``: a real number (``__float__`` or ``__index__``)."""
    if isinstance(obj, float):
        return obj
    if isinstance(obj, complex) or not (
        hasattr(type(obj), "__float__") or hasattr(type(obj), "__index__")
    ):
        raise TypeError(f"must be real number, not {type(obj).__name__}")
    return float(obj)


def _leaf_converter(dtype: DType):
    """How one element is stored as ``dtype`` (``store_scalar`` in ``python_scalars.h``)."""
    if dtype.category == BOOL:

        def store_bool(obj):
            if isinstance(obj, float | complex | np.bool_):
                return obj != 0
            return _unpack_long(obj) != 0

        return store_bool
    if dtype.category == INTEGRAL:
        info = np.iinfo(dtype.numpy)

        def store_integer(obj):
            # Floats truncate but must fit; integers may wrap into unsigned types.
            if isinstance(obj, float):
                if math.isnan(obj) or not info.min <= obj <= info.max:
                    raise RuntimeError(
                        f"value cannot be converted to type {dtype.name} without overflow"
                    )
                return int(obj)
            value = _unpack_long(obj)
            low = -info.max if info.min == 0 else info.min
            if not low <= value <= info.max:
                raise RuntimeError(
                    f"value cannot be converted to type {dtype.name} without overflow"
                )
            return value % (info.max + 1) if info.min == 0 else value

        return store_integer
    if dtype.category == FLOATING:
        return _unpack_double  # out-of-range values become inf, as a C cast does

    def store_complex(obj):
        if isinstance(obj, complex) or hasattr(type(obj), "__complex__"):
            return complex(obj)
        return _unpack_double(obj)

    return store_complex


def _array_from_nested(data, dtype: DType | None) -> np.ndarray:
    sizes = _compute_sizes(data)
    target = dtype or _infer_scalar_type(data)
    flat = _store_nested(data, sizes, _leaf_converter(target))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # float32(1e300) is inf, silently, as in C++
        return np.array(flat, dtype=target.numpy).reshape(sizes)


def _copy_preserving_layout(source: Tensor, dtype: DType) -> Tensor:
    """A copy of ``source`` as a new ``dtype`` tensor, keeping a dense layout (preserve_format)."""
    if source.numel() == 0:  # nothing to copy; keep the (degenerate) strides as they are
        return Tensor(Storage.empty(0, dtype), source._size, source._stride, 0)
    result = Tensor._empty_strided(source._size, strides_like(source), dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unchecked C casts: nan -> int is INT_MIN, etc.
        np.copyto(result._array, source._array, casting="unsafe")
    return result


def _require_grad(result: Tensor, requires_grad: bool) -> Tensor:
    """``requires_grad=True`` on a new tensor: only floating and complex tensors may."""
    if requires_grad:
        if result._dtype.category < FLOATING:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        result._requires_grad = True
    return result


def _tensor_from_data(data, dtype, device, requires_grad: bool) -> Tensor:
    """``internal_new_from_data``: a new tensor holding a copy of ``data``.

    On the meta device nested data is only measured (along first elements) and its dtype
    inferred: nothing is stored, so nothing else is checked, as in PyTorch.
    """
    where = check_device(device, meta=True)
    if isinstance(data, str | bytes):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, Tensor):
        warn_at_user_code(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "vizgrad.tensor(sourceTensor).",
            UserWarning,
        )
        result = _copy_preserving_layout(data, dtype or data._dtype)
    elif isinstance(data, np.ndarray):
        source = from_numpy(data)  # checks dtype and strides as PyTorch does
        result = _copy_preserving_layout(source, dtype or source._dtype)
    elif where.type == "meta":
        sizes = _compute_sizes(data)
        result = empty_meta(sizes, contiguous_strides(sizes), dtype or _infer_scalar_type(data))
    else:
        result = Tensor._from_array(_array_from_nested(data, dtype), dtype)
    if where.type == "meta" and not result.is_meta:
        result = empty_meta(result._size, result._stride, result._dtype)
    return _require_grad(result, requires_grad)


_TENSOR_SIGNATURE = PythonArgParser.from_signatures(
    "tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None, "
    "bool pin_memory=False, bool requires_grad=False)"
)


def tensor(*args, **kwargs) -> Tensor:
    """``torch.tensor(data, *, dtype=None, device=None, pin_memory=False, requires_grad=False)``.

    Always copies ``data`` into a new storage. ``data`` may be a number, nested
    sequences of numbers (and of one-element tensors), a NumPy array, or a tensor
    (copied with a warning, as PyTorch recommends ``clone``). Python binding code in
    PyTorch (``tensor_new.cpp``), not an ATen operator.
    """
    _, (data,), options = _TENSOR_SIGNATURE.parse(args, kwargs)
    # A call without keywords gets the parser's shared defaults, which leave out
    # requires_grad (False): the binding applies it, as the factories' bindings do.
    requires_grad = options.get("requires_grad", False)
    return _tensor_from_data(data, options["dtype"], options["device"], requires_grad)


_AS_TENSOR_SIGNATURE = PythonArgParser.from_signatures(
    "as_tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None)"
)


def as_tensor(*args, **kwargs) -> Tensor:
    """``torch.as_tensor(data, *, dtype=None, device=None)``: share memory when it can.

    A tensor of the requested dtype is returned as it is (the same object); a NumPy
    array of a matching dtype becomes a tensor over its memory; anything else is
    copied. Python binding code in PyTorch (``tensor_new.cpp``).
    """
    _, (data,), options = _AS_TENSOR_SIGNATURE.parse(args, kwargs)
    dtype = options["dtype"]
    where = check_device(options["device"], meta=True)
    if where.type == "meta":  # no memory to share there: a meta tensor of data's geometry
        if isinstance(data, Tensor):
            return data.to(device=where, dtype=dtype)
        return _tensor_from_data(data, dtype, where, False)
    if isinstance(data, np.ndarray):
        data = from_numpy(data)
    if isinstance(data, Tensor):
        if dtype is None or dtype is data._dtype:
            return data
        return _copy_preserving_layout(data, dtype)
    return _tensor_from_data(data, dtype, options["device"], False)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """``torch.from_numpy``: a tensor over the array's own memory (writes show on both sides).

    The tensor keeps the array's strides (NumPy counts them in bytes, PyTorch in
    elements). Negative strides have no PyTorch equivalent and are refused.
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    dtype = from_numpy_dtype(ndarray.dtype)
    itemsize = ndarray.itemsize
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with "
            "negative strides are not currently supported. (You can probably work around "
            "this by making a copy of your array  with array.copy().) "
        )
    if any(s % itemsize for s in ndarray.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the "
            "numpy array to reallocate the memory."
        )
    stride = tuple(s // itemsize for s in ndarray.strides)
    if ndarray.size == 0:
        empty = Storage(np.empty(0, dtype=ndarray.dtype), dtype, resizable=False)
        return Tensor(empty, ndarray.shape, stride, 0)
    span = 1 + sum((n - 1) * s for n, s in zip(ndarray.shape, stride, strict=True))
    # A flat view of exactly the memory the array spans, starting at its first element.
    flat = np.lib.stride_tricks.as_strided(ndarray, shape=(span,), strides=(itemsize,))
    return Tensor(Storage(flat, dtype, resizable=False), ndarray.shape, stride, 0, ndarray)


_NEW_TENSOR_SIGNATURE = PythonArgParser.from_signatures(
    "new_tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None, "
    "bool requires_grad=False)"
)


def _new_tensor(self, *args, **kwargs) -> Tensor:
    """``Tensor.new_tensor(data, *, dtype=None, device=None, requires_grad=False)``:
    ``tensor(data)`` in this tensor's dtype unless told (``tensor_new.cpp``)."""
    _, (data,), options = _NEW_TENSOR_SIGNATURE.parse(args, kwargs)
    dtype = options["dtype"] or self._dtype
    requires_grad = options.get("requires_grad", False)  # left out of the shared defaults
    # ``new_*`` tensors go where ``self`` is, not to the default device.
    return _tensor_from_data(data, dtype, options["device"] or self.device, requires_grad)


define_method("new_tensor", _new_tensor)


# --- factories: zeros, ones, empty, full (aten::zeros …) ----------------------------------


def _filled(size, dtype: DType, fill) -> Tensor:
    """A new contiguous tensor of ``size``, every element ``fill`` (uninitialised if None).

    ``at::detail::empty_generic``: the storage's bytes are counted, refused if they
    overflow int64, before any memory is asked for.
    """
    check_storage_nbytes(size, dtype.itemsize)
    array = np.empty(size, dtype=dtype.numpy)
    if fill is not None:
        array.fill(fill)
    return Tensor._from_array(array, dtype)


def _check_zeros_size(size) -> None:
    # ``zeros`` checks its sizes itself, in its own words, before ``empty`` would.
    if any(s < 0 for s in size):
        raise RuntimeError("zeros: Dimension size must be non-negative.")


def _factory_kernels(fill, check_size=check_nonnegative):
    """The kernels of ``zeros``/``ones``/``empty``: allocate, or resize ``out``, then fill.

    ``out=`` keeps its own dtype (and its strides, when the size already fits). Only
    ``empty.out`` checks ``size`` itself; ``zeros.out`` and ``ones.out`` leave it to
    ``out.resize_``, whose checks are another's (a negative size overflows the count).
    """

    def kernel(size, *, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):  # fmt: skip
        where = check_device(device, meta=True)
        check_size(size)
        if where.type == "meta":  # shape, dtype and strides only: there is nothing to fill
            stride = _strides_for_new(size, memory_format or contiguous_format)
            return empty_meta(size, stride, dtype or get_default_dtype())
        if memory_format is None:
            return _filled(size, dtype or get_default_dtype(), fill)
        stride = _strides_for_new(size, memory_format)
        check_storage_nbytes(size, (dtype or get_default_dtype()).itemsize)
        return Tensor._empty_strided(size, stride, dtype or get_default_dtype())

    def out_kernel(size, *, memory_format=None, out):
        if fill is None:
            if memory_format is not None:
                raise RuntimeError(
                    "'memory_format' argument is incompatible with 'out' tensor argument"
                )
            check_nonnegative(size)
        resize_output(out, size)
        if fill is not None and not out.is_meta:  # a meta ``out`` has no values to fill
            out._array[...] = fill
        return out

    return kernel, out_kernel


_zeros_kernel, _zeros_out_kernel = _factory_kernels(0, _check_zeros_size)
_ones_kernel, _ones_out_kernel = _factory_kernels(1)
_empty_kernel, _empty_out_kernel = _factory_kernels(None)

zeros = native_function(
    "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor",
    "zeros.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_zeros_kernel,
    kernels={"zeros.out": _zeros_out_kernel},
    variants="function",
    doc="``torch.zeros(*size)``: a new tensor filled with 0 (``zeros(2, 3)`` or "
    "``zeros((2, 3))``), of the default dtype unless told.",
)
ones = native_function(
    "ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor",
    "ones.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_ones_kernel,
    kernels={"ones.out": _ones_out_kernel},
    variants="function",
    doc="``torch.ones(*size)``: a new tensor filled with 1.",
)
empty = native_function(
    "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)",
    kernel=_empty_kernel,
    kernels={"empty.out": _empty_out_kernel},
    variants="function",
    doc="``torch.empty(*size)``: uninitialised memory, as in PyTorch (expect any values).",
)


def _full_kernel(size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None):
    """Without a dtype, the value's kind decides (``infer_full_options``): ``full((2,), 3)``
    is int64, ``full((2,), 3.)`` the default float dtype, ``full((2,), True)`` bool."""
    where = check_device(device, meta=True)
    check_nonnegative(size)
    dtype = dtype or scalar_type_of(fill_value)
    value = checked_scalar(fill_value, dtype)
    if where.type == "meta":
        return empty_meta(size, contiguous_strides(size), dtype)
    return _filled(size, dtype, value)


def _full_out_kernel(size, fill_value, *, out):
    value = checked_scalar(fill_value, out._dtype)  # check before touching out
    resize_output(out, size)
    if not out.is_meta:  # a meta ``out`` has no values to fill
        out._array[...] = value
    return out


full = native_function(
    "full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_full_kernel,
    kernels={"full.out": _full_out_kernel},
    variants="function",
    doc="``torch.full(size, fill_value)``: every element ``fill_value``; the dtype follows "
    "the value's kind unless told.",
)


def _scalar_tensor_kernel(s, *, dtype=None, layout=None, device=None, pin_memory=None):
    check_device(device)
    dtype = dtype or get_default_dtype()
    return Tensor._from_array(np.array(checked_scalar(s, dtype), dtype=dtype.numpy), dtype)


scalar_tensor = native_function(
    "scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    kernel=_scalar_tensor_kernel,
    variants="function",
    doc="``torch.scalar_tensor``: a 0-dim tensor; of the default dtype whatever ``s`` is.",
)


def _empty_strided_kernel(size, stride, *, dtype=None, layout=None, device=None,
                          pin_memory=None):  # fmt: skip
    where = check_device(device, meta=True)
    check_nonnegative(size)
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
            f"({len(stride)})"
        )
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(stride)}"
        )
    allocate = empty_meta if where.type == "meta" else Tensor._empty_strided
    return allocate(size, stride, dtype or get_default_dtype())


empty_strided = native_function(
    "empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    kernel=_empty_strided_kernel,
    variants="function",
    doc="``torch.empty_strided``: memory laid out with exactly the given strides.",
)


# --- *_like: the shape (and layout) of another tensor -----------------------------------


def _memory_format(value) -> memory_format | None:
    """A ``memory_format=`` argument as the object (vizgrad also accepts its name)."""
    return getattr(_formats, value) if isinstance(value, str) else value


def _channels_last_strides(size) -> tuple[int, ...]:
    if len(size) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    return channels_last_strides(size)


def suggested_format(t: Tensor) -> memory_format:
    """``suggest_memory_format``: channels_last for a 4-D tensor whose strides are ordered
    that way (``is_channels_last_strides_2d``), else contiguous."""
    if len(t._size) == 4 and is_channels_last_strides(t._size, t._stride):
        return channels_last
    return contiguous_format


def strides_like(source: Tensor, fmt=None) -> tuple[int, ...]:
    """The strides ``empty_like(source, memory_format=fmt)`` gives: the rule every new
    tensor shaped after another follows (``*_like``, ``clone``, ``_to_copy``).

    Preserving (the default) keeps a dense tensor's exact strides (a transposed tensor
    clones transposed); for a tensor with gaps or overlaps (a step slice, an
    ``expand``) it keeps only the dims' order, packed densely, as TensorIterator lays
    out outputs. ``channels_last`` asks for a 4-D tensor's channels innermost.
    """
    fmt = _memory_format(fmt)
    if fmt is None or fmt is preserve_format:
        if source._contiguous or is_non_overlapping_and_dense(source._size, source._stride):
            return source._stride
        return output_strides(source._size, [source])
    if fmt is channels_last:
        return _channels_last_strides(source._size)
    return contiguous_strides(source._size)


def _strides_for_new(size, fmt) -> tuple[int, ...]:
    """The strides ``empty(size, memory_format=fmt)`` gives: there is nothing to preserve."""
    fmt = _memory_format(fmt)
    if fmt is channels_last:
        return _channels_last_strides(size)
    if fmt is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    return contiguous_strides(size)


def _like_kernel(fill):
    """The kernel of ``empty_like``, ``zeros_like``, ``ones_like``: ``self``'s shape, dtype
    and layout, filled with ``fill`` (0 and 1 fit every dtype)."""

    def kernel(self, *, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):  # fmt: skip
        # Where ``self`` is, unless told: ``zeros_like(cpu_tensor, device="meta")`` and
        # ``zeros_like(meta_tensor, device="cpu")`` read only ``self``'s metadata.
        where = self.device if device is None else check_device(device, meta=True)
        stride = strides_like(self, memory_format)
        if where.type == "meta":
            return empty_meta(self._size, stride, dtype or self._dtype)
        result = Tensor._empty_strided(self._size, stride, dtype or self._dtype)
        if fill is not None:
            result._array[...] = fill
        return result

    return kernel


def _full_like_kernel(self, fill_value, *, dtype=None, **options):
    dtype = dtype or self._dtype
    return _like_kernel(checked_scalar(fill_value, dtype))(self, dtype=dtype, **options)


# The ``*_like`` factories read only the shape, dtype and layout of ``self``: their
# results never require grad (a new leaf, unless ``requires_grad=True`` is asked for).
empty_like = native_function(
    "empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    kernel=_like_kernel(None),
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.empty_like``: uninitialised, with ``input``'s shape and (dense) layout.",
)
zeros_like = native_function(
    "zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    kernel=_like_kernel(0),
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.zeros_like``: zeros with ``input``'s shape, dtype and (dense) layout.",
)
ones_like = native_function(
    "ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    kernel=_like_kernel(1),
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.ones_like``: ones with ``input``'s shape, dtype and (dense) layout.",
)
full_like = native_function(
    "full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    kernel=_full_like_kernel,
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.full_like``: ``fill_value`` everywhere, in ``input``'s dtype unless told.",
)


# --- Tensor.new_*: factories that default to the tensor's dtype --------------------------


def _new_factory_kernel(fill):
    """``Tensor.new_zeros``…: like the factory, but in ``self``'s dtype unless told."""

    def kernel(self, size, *, dtype=None, layout=None, device=None, pin_memory=None):
        # Where ``self`` is (not the default device), unless told.
        where = check_device(device or self.device, meta=True)
        check_nonnegative(size)
        if where.type == "meta":
            return empty_meta(size, contiguous_strides(size), dtype or self._dtype)
        return _filled(size, dtype or self._dtype, fill)

    return kernel


def _new_full_kernel(self, size, fill_value, *, dtype=None, **options):
    dtype = dtype or self._dtype
    return _new_factory_kernel(checked_scalar(fill_value, dtype))(
        self, size, dtype=dtype, **options
    )


new_zeros = native_function(
    "new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    kernel=_new_factory_kernel(0),
    kind=NONDIFFERENTIABLE,
    variants="method",
)
new_ones = native_function(
    "new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    kernel=_new_factory_kernel(1),
    kind=NONDIFFERENTIABLE,
    variants="method",
)
new_empty = native_function(
    "new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    kernel=_new_factory_kernel(None),
    kind=NONDIFFERENTIABLE,
    variants="method",
)
new_full = native_function(
    "new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    kernel=_new_full_kernel,
    kind=NONDIFFERENTIABLE,
    variants="method",
)

"""Creating tensors: from Python data, from NumPy, and by filling (``torch.tensor``, ``zeros``…).

Two families live here, as in PyTorch:

* **Constructors from data** (``tensor``, ``as_tensor``, ``from_numpy``) are not
  ATen operators: PyTorch writes them in its Python bindings
  (``torch/csrc/utils/tensor_new.cpp``). ``tensor(data)`` first measures the shape by
  following first elements, then infers a dtype (each number has one: a Python
  ``int`` is int64, a ``float`` the default dtype, a NumPy scalar its own) and
  promotes them all, so ``[1, 2.5]`` is float32; then it stores every element,
  checking lengths and overflow as it goes.
* **Factories** (``zeros``, ``ones``, ``empty``, ``full``, ``*_like``…) are operators
  (``aten::zeros``…) and go through the dispatcher like any other.
"""

from __future__ import annotations

import math
import numbers
import operator
import warnings

import numpy as np

from ..derivatives import NON_DIFFERENTIABLE
from ..dispatcher import FUNCTIONAL, OUT
from ..dtypes import (
    BOOL,
    C_TYPE_NAMES,
    COMPLEX,
    FLOATING,
    INTEGRAL,
    default_complex_dtype,
    from_numpy_dtype,
    get_default_dtype,
)
from ..dtypes import dtype as DType
from ..promotion import promote_types
from ..shape import contiguous_strides, is_non_overlapping_and_dense
from ..storage import Storage
from ..tensor import Tensor
from .iterator import output_strides, resize_output
from .registry import bind_method, check_tensor, declare

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


# --- argument checks shared by every creation function ---------------------------------


def check_device(device) -> None:
    """``device=``: only the CPU exists; anything else raises (see ``vizgrad.device``)."""
    if device is not None:
        from ..device import device as Device

        Device(device)


def check_dtype(fn_name: str, dtype) -> None:
    """PyTorch's argument-parser TypeError for a ``dtype=`` that is not a dtype."""
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(
            f"{fn_name}(): argument 'dtype' must be vizgrad.dtype, not {type(dtype).__name__}"
        )


def set_requires_grad(result: Tensor, requires_grad: bool) -> Tensor:
    """``requires_grad=True`` on a factory: only floating and complex tensors may."""
    if requires_grad:
        if result._dtype.category < FLOATING:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        result._requires_grad = True
    return result


def parse_size(fn_name: str, args: tuple, size_keyword=None) -> tuple[int, ...]:
    """The ``*size`` argument: ``zeros(2, 3)``, ``zeros((2, 3))``, ``zeros([2, 3])``, ``size=``.

    Reproduces PyTorch's argument parser: one integer, one sequence of integers, or
    several integers; each with its own TypeError. Negative sizes are a RuntimeError.
    """
    if size_keyword is not None:
        args = (size_keyword,)
    if not args:
        raise TypeError(f'{fn_name}() missing 1 required positional arguments: "size"')
    if len(args) == 1 and not _is_int_like(args[0]):
        sequence = args[0]
        if not isinstance(sequence, tuple | list):
            raise TypeError(
                f"{fn_name}(): argument 'size' (position 1) must be tuple of ints, "
                f"not {type(sequence).__name__}"
            )
        for position, item in enumerate(sequence):
            if isinstance(item, bool):
                raise TypeError(
                    f"{fn_name}(): argument 'size' (position 1) must be tuple of ints, but "
                    f"found element of type bool at pos {position}"
                )
        args = tuple(sequence)
    shape = []
    for position, item in enumerate(args):
        if not _is_int_like(item):
            raise TypeError(
                f"{fn_name}(): argument 'size' failed to unpack the object at pos "
                f'{position + 1} with error "type must be tuple of ints,but got '
                f'{type(item).__name__}"'
            )
        shape.append(operator.index(item))
    check_nonnegative(shape)
    return tuple(shape)


def _is_int_like(value) -> bool:
    # Python/NumPy integers and one-element integer tensors count; bools do not.
    if isinstance(value, bool | np.bool_):
        return False
    if isinstance(value, Tensor):
        return value._dtype.category == INTEGRAL and value.numel() == 1
    return isinstance(value, numbers.Integral)


def check_nonnegative(shape) -> None:
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )


def check_number(fn_name: str, value, name: str, position: int) -> None:
    """A ``Scalar`` argument: a Python/NumPy number or a one-element tensor."""
    if isinstance(value, Tensor) and value.numel() == 1:
        return
    if not isinstance(value, numbers.Number):
        raise TypeError(
            f"{fn_name}(): argument '{name}' (position {position}) must be Number, "
            f"not {type(value).__name__}"
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
    from ..dtypes import scalar_dtype

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


def _checked_integer(value, dtype: DType) -> int:
    info = np.iinfo(dtype.numpy)
    if isinstance(value, float):
        if math.isnan(value) or not info.min <= value <= info.max:
            raise _overflow(dtype)
        return int(value)  # C truncates toward zero
    value = int(value)
    if info.min == 0:  # unsigned: negatives down to -max wrap around (two's complement)
        if not -info.max <= value <= info.max:
            raise _overflow(dtype)
        return value % (info.max + 1)
    if not info.min <= value <= info.max:
        raise _overflow(dtype)
    return value


def _check_float_range(value, real_dtype: DType, dtype: DType) -> None:
    if isinstance(value, int) and abs(value) >= 2**1024:
        raise _overflow(dtype)
    value = float(value)
    if math.isfinite(value) and abs(value) > float(np.finfo(real_dtype.numpy).max):
        raise _overflow(dtype)


# --- tensor(data): measure, infer, store (tensor_new.cpp) ------------------------------


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
        from ..dtypes import bool as bool_dtype

        return bool_dtype
    if isinstance(obj, int):
        from ..dtypes import int64

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
    result = Tensor._empty_strided(source._size, preserve_format_strides(source), dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unchecked C casts: nan -> int is INT_MIN, etc.
        np.copyto(result._array, source._array, casting="unsafe")
    return result


def preserve_format_strides(source: Tensor) -> tuple[int, ...]:
    """``preserve_format``: keep dense strides; otherwise sort dims by stride, densely."""
    if is_non_overlapping_and_dense(source._size, source._stride):
        return source._stride
    return output_strides(source._size, [source])


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:  # fmt: skip
    """``torch.tensor``: always copies ``data`` into a new storage.

    ``data`` may be a number, nested sequences of numbers (and of one-element tensors),
    a NumPy array, or a tensor (copied with a warning, as PyTorch recommends ``clone``).
    """
    check_dtype("tensor", dtype)
    check_device(device)
    if isinstance(data, str | bytes):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "vizgrad.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        result = _copy_preserving_layout(data, dtype or data._dtype)
    elif isinstance(data, np.ndarray):
        source = from_numpy(data)  # checks dtype and strides as PyTorch does
        result = _copy_preserving_layout(source, dtype or source._dtype)
    else:
        result = Tensor._from_array(_array_from_nested(data, dtype), dtype)
    return set_requires_grad(result, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """``torch.as_tensor``: share memory with a tensor or NumPy array when no conversion is needed.

    A tensor of the requested dtype is returned as it is (the same object); a NumPy
    array of a matching dtype becomes a tensor over its memory; anything else is copied.
    """
    check_dtype("as_tensor", dtype)
    check_device(device)
    if isinstance(data, Tensor):
        if dtype is None or dtype is data._dtype:
            return data
        return _copy_preserving_layout(data, dtype)
    if isinstance(data, np.ndarray):
        shared = from_numpy(data)
        if dtype is None or dtype is shared._dtype:
            return shared
        return _copy_preserving_layout(shared, dtype)
    return tensor(data, dtype=dtype)


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
        return Tensor(Storage(np.empty(0, dtype=ndarray.dtype), dtype), ndarray.shape, stride, 0)
    span = 1 + sum((n - 1) * s for n, s in zip(ndarray.shape, stride, strict=True))
    # A flat view of exactly the memory the array spans, starting at its first element.
    flat = np.lib.stride_tricks.as_strided(ndarray, shape=(span,), strides=(itemsize,))
    return Tensor(Storage(flat, dtype), ndarray.shape, stride, 0, ndarray)


# --- factories: zeros, ones, empty, full (aten::zeros …) --------------------------------


def _filled_kernel(fill):
    """The CPU kernel of a factory: allocate a contiguous tensor and fill it."""

    def kernel(size, *, dtype):
        array = np.empty(size, dtype=dtype.numpy)
        if fill is not None:
            array.fill(fill)
        return Tensor._from_array(array, dtype)

    return kernel


def _filled_out_kernel(fill):
    """The ``out=`` kernel of a factory: resize ``out``, then fill it (its dtype stays)."""

    def kernel(size, *, out):
        resize_output(out, size)
        if fill is not None:
            out._array[...] = fill
        return out

    return kernel


_FACTORY_OPTIONS = ("ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                    "bool? pin_memory=None")  # fmt: skip

_zeros_op = declare(f"zeros(SymInt[] size, *, {_FACTORY_OPTIONS}) -> Tensor", FUNCTIONAL,
                    _filled_kernel(0))  # fmt: skip
_zeros_out_op = declare("zeros.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)", OUT,
                        _filled_out_kernel(0))  # fmt: skip
_ones_op = declare(f"ones(SymInt[] size, *, {_FACTORY_OPTIONS}) -> Tensor", FUNCTIONAL,
                   _filled_kernel(1))  # fmt: skip
_ones_out_op = declare("ones.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)", OUT,
                       _filled_out_kernel(1))  # fmt: skip
_empty_op = declare(
    f"empty.memory_format(SymInt[] size, *, {_FACTORY_OPTIONS}, "
    "MemoryFormat? memory_format=None) -> Tensor",
    FUNCTIONAL,
    _filled_kernel(None),
)
_empty_out_op = declare(
    "empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)",
    OUT,
    _filled_out_kernel(None),
)


def _full_kernel(size, fill_value, *, dtype):
    array = np.empty(size, dtype=dtype.numpy)
    array.fill(checked_scalar(fill_value, dtype))
    return Tensor._from_array(array, dtype)


def _full_out_kernel(size, fill_value, *, out):
    value = checked_scalar(fill_value, out._dtype)  # check before touching out
    resize_output(out, size)
    out._array[...] = value
    return out


_full_op = declare(f"full(SymInt[] size, Scalar fill_value, *, {_FACTORY_OPTIONS}) -> Tensor",
                   FUNCTIONAL, _full_kernel)  # fmt: skip
_full_out_op = declare(
    "full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> Tensor(a!)",
    OUT,
    _full_out_kernel,
)


def check_out_dtype(out: Tensor, dtype) -> None:
    """A factory given both ``dtype=`` and ``out=``: they must agree."""
    if dtype is not None and dtype is not out._dtype:
        raise RuntimeError(
            f"dtype {dtype.scalar_name} does not match dtype of out parameter "
            f"({out._dtype.scalar_name})"
        )


def _factory(fn_name, op, out_op, size, dtype, device, requires_grad, out):
    check_dtype(fn_name, dtype)
    check_device(device)
    if out is not None:
        check_tensor(fn_name, out, "out", 2)
        check_out_dtype(out, dtype)
        return out_op(size, out=out)
    return set_requires_grad(op(size, dtype=dtype or get_default_dtype()), requires_grad)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, **kwargs) -> Tensor:  # fmt: skip
    """``torch.zeros``: a new tensor filled with 0 (``zeros(2, 3)`` or ``zeros((2, 3))``)."""
    shape = parse_size("zeros", size, _size_keyword("zeros", kwargs))
    return _factory("zeros", _zeros_op, _zeros_out_op, shape, dtype, device, requires_grad, out)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, **kwargs) -> Tensor:  # fmt: skip
    """``torch.ones``: a new tensor filled with 1."""
    shape = parse_size("ones", size, _size_keyword("ones", kwargs))
    return _factory("ones", _ones_op, _ones_out_op, shape, dtype, device, requires_grad, out)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kwargs) -> Tensor:  # fmt: skip
    """``torch.empty``: uninitialised memory, as in PyTorch (expect any values)."""
    shape = parse_size("empty", size, _size_keyword("empty", kwargs))
    return _factory("empty", _empty_op, _empty_out_op, shape, dtype, device, requires_grad, out)


def _size_keyword(fn_name: str, kwargs: dict):
    unknown = set(kwargs) - {"size"}
    if unknown:
        raise TypeError(f"{fn_name}() got an unexpected keyword argument '{unknown.pop()}'")
    return kwargs.get("size")


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.full``: every element ``fill_value``; the dtype follows the value's kind.

    ``full((2,), 3)`` is int64, ``full((2,), 3.)`` the default float dtype,
    ``full((2,), True)`` bool: the same rule as for a Python number in ``tensor``.
    """
    if not isinstance(size, tuple | list):
        raise TypeError(
            f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
        )
    shape = parse_size("full", (size,))
    check_number("full", fill_value, "fill_value", 2)
    check_dtype("full", dtype)
    check_device(device)
    if out is not None:
        check_tensor("full", out, "out", 3)
        check_out_dtype(out, dtype)
        return _full_out_op(shape, fill_value, out=out)
    dtype = dtype or scalar_type_of(fill_value)
    return set_requires_grad(_full_op(shape, fill_value, dtype=dtype), requires_grad)


def _scalar_tensor_kernel(s, *, dtype):
    return Tensor._from_array(np.array(checked_scalar(s, dtype), dtype=dtype.numpy), dtype)


_scalar_tensor_op = declare(f"scalar_tensor(Scalar s, *, {_FACTORY_OPTIONS}) -> Tensor",
                            FUNCTIONAL, _scalar_tensor_kernel)  # fmt: skip


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.scalar_tensor``: a zero-dim tensor; of the default dtype whatever ``s`` is."""
    check_number("scalar_tensor", s, "s", 1)
    check_dtype("scalar_tensor", dtype)
    check_device(device)
    result = _scalar_tensor_op(s, dtype=dtype or get_default_dtype())
    return set_requires_grad(result, requires_grad)


def _empty_strided_kernel(size, stride, *, dtype):
    return Tensor._empty_strided(size, stride, dtype)


_empty_strided_op = declare(
    f"empty_strided(SymInt[] size, SymInt[] stride, *, {_FACTORY_OPTIONS}) -> Tensor",
    FUNCTIONAL,
    _empty_strided_kernel,
)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.empty_strided``: memory laid out with exactly the given strides."""
    shape = parse_size("empty_strided", (size,))
    strides = tuple(operator.index(s) for s in stride)
    check_dtype("empty_strided", dtype)
    check_device(device)
    if len(shape) != len(strides):
        raise RuntimeError(
            f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides "
            f"({len(strides)})"
        )
    if any(s < 0 for s in strides):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(shape)} and "
            f"strides={list(strides)}"
        )
    result = _empty_strided_op(shape, strides, dtype=dtype or get_default_dtype())
    return set_requires_grad(result, requires_grad)


# --- *_like: the shape (and layout) of another tensor ----------------------------------


def _like_kernel(fill):
    """``empty_like`` and its fills: ``preserve_format`` keeps a dense input's strides.

    A non-dense input (stepped, expanded) gets a dense layout with its dimensions in
    the same stride order, the rule TensorIterator uses for outputs.
    """

    def kernel(self, *, dtype, contiguous):
        stride = contiguous_strides(self._size) if contiguous else preserve_format_strides(self)
        result = Tensor._empty_strided(self._size, stride, dtype)
        if fill is not None:
            result._array[...] = fill
        return result

    return kernel


def _full_like_kernel(self, fill_value, *, dtype, contiguous):
    result = _like_kernel(None)(self, dtype=dtype, contiguous=contiguous)
    result._array[...] = checked_scalar(fill_value, dtype)
    return result


_LIKE_OPTIONS = f"{_FACTORY_OPTIONS}, MemoryFormat? memory_format=None"
# The ``*_like`` factories read only the shape, dtype and layout of ``self``: their
# results never require grad (a new leaf, unless ``requires_grad=True`` is asked for).
_empty_like_op = declare(f"empty_like(Tensor self, *, {_LIKE_OPTIONS}) -> Tensor", FUNCTIONAL,
                         _like_kernel(None), NON_DIFFERENTIABLE)  # fmt: skip
_zeros_like_op = declare(f"zeros_like(Tensor self, *, {_LIKE_OPTIONS}) -> Tensor", FUNCTIONAL,
                         _like_kernel(0), NON_DIFFERENTIABLE)  # fmt: skip
_ones_like_op = declare(f"ones_like(Tensor self, *, {_LIKE_OPTIONS}) -> Tensor", FUNCTIONAL,
                        _like_kernel(1), NON_DIFFERENTIABLE)  # fmt: skip
_full_like_op = declare(
    f"full_like(Tensor self, Scalar fill_value, *, {_LIKE_OPTIONS}) -> Tensor",
    FUNCTIONAL,
    _full_like_kernel,
    NON_DIFFERENTIABLE,
)


def wants_contiguous(memory_format) -> bool:
    """``memory_format=``: ``None``/``"preserve_format"`` keep the layout; ``"contiguous_format"``
    (or PyTorch's ``torch.contiguous_format``) asks for row-major strides."""
    return memory_format is not None and "contiguous" in str(memory_format)


def like_options(fn_name, input, dtype, device):
    check_tensor(fn_name, input, "input", 1)
    check_dtype(fn_name, dtype)
    check_device(device)
    return dtype or input._dtype


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None, pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.empty_like``: uninitialised, with ``input``'s shape and (dense) layout."""
    dtype = like_options("empty_like", input, dtype, device)
    result = _empty_like_op(input, dtype=dtype, contiguous=wants_contiguous(memory_format))
    return set_requires_grad(result, requires_grad)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None, pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.zeros_like``: zeros with ``input``'s shape, dtype and (dense) layout."""
    dtype = like_options("zeros_like", input, dtype, device)
    result = _zeros_like_op(input, dtype=dtype, contiguous=wants_contiguous(memory_format))
    return set_requires_grad(result, requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None, pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.ones_like``: ones with ``input``'s shape, dtype and (dense) layout."""
    dtype = like_options("ones_like", input, dtype, device)
    result = _ones_like_op(input, dtype=dtype, contiguous=wants_contiguous(memory_format))
    return set_requires_grad(result, requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None, pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.full_like``: ``fill_value`` everywhere, in ``input``'s dtype unless told."""
    dtype = like_options("full_like", input, dtype, device)
    check_number("full_like", fill_value, "fill_value", 2)
    result = _full_like_op(input, fill_value, dtype=dtype,
                           contiguous=wants_contiguous(memory_format))  # fmt: skip
    return set_requires_grad(result, requires_grad)


# --- Tensor.new_*: factories that default to the tensor's dtype ------------------------


def _new_factory(fn_name: str, factory):
    def method(self, *size, dtype=None, device=None, requires_grad=False, **kwargs):
        return factory(*size, dtype=dtype or self._dtype, device=device,
                       requires_grad=requires_grad, **kwargs)  # fmt: skip

    method.__doc__ = f"``Tensor.{fn_name}``: ``{factory.__name__}`` in this tensor's dtype."
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``Tensor.new_full``: ``full`` in this tensor's dtype."""
    return full(size, fill_value, dtype=dtype or self._dtype, device=device,
                requires_grad=requires_grad)  # fmt: skip


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """``Tensor.new_tensor``: ``tensor(data)`` in this tensor's dtype (unless told)."""
    return tensor(data, dtype=dtype or self._dtype, device=device, requires_grad=requires_grad)


bind_method("new_zeros", _new_factory("new_zeros", zeros))
bind_method("new_ones", _new_factory("new_ones", ones))
bind_method("new_empty", _new_factory("new_empty", empty))
bind_method("new_full", _new_full)
bind_method("new_tensor", _new_tensor)

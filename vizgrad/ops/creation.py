"""Creating tensors: from Python data, from NumPy, and by filling (``torch.tensor``, ``zeros``…).

``tensor(data)`` infers a dtype the way PyTorch does: each number has a dtype (a
Python ``int`` is int64, a ``float`` the default dtype, a NumPy scalar its own) and
the dtypes of all elements are promoted together, so ``[1, 2.5]`` is float32.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from ..dtypes import dtype as DType
from ..dtypes import from_numpy_dtype, get_default_dtype, scalar_dtype
from ..promotion import promote_types
from ..storage import Storage
from ..tensor import Tensor

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


def _check_device(device) -> None:
    if device is not None:
        from ..device import device as Device

        Device(device)  # raises for anything but the CPU


def _check_dtype(fn_name: str, dtype) -> None:
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(
            f"{fn_name}(): argument 'dtype' must be vizgrad.dtype, not {type(dtype).__name__}"
        )


def _infer_shape_and_dtype(data, dim: int = 0):
    """Walk nested sequences: their shape, and the promoted dtype of their scalars."""
    if isinstance(data, Tensor):
        return data._size, data._dtype
    if isinstance(data, np.ndarray):
        return data.shape, from_numpy_dtype(data.dtype)
    if isinstance(data, np.generic):
        return (), from_numpy_dtype(data.dtype)
    if isinstance(data, numbers.Number):
        return (), scalar_dtype(data)
    if isinstance(data, str | bytes) or not hasattr(data, "__len__"):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    items = list(data)
    if not items:
        return (0,), None
    first_shape, result = _infer_shape_and_dtype(items[0], dim + 1)
    for item in items[1:]:
        shape, item_dtype = _infer_shape_and_dtype(item, dim + 1)
        if shape != first_shape:
            expected = first_shape[0] if first_shape else 0
            got = shape[0] if shape else 0
            raise ValueError(f"expected sequence of length {expected} at dim {dim + 1} (got {got})")
        if item_dtype is not None:
            result = item_dtype if result is None else promote_types(result, item_dtype)
    return (len(items), *first_shape), result


def _to_python(data):
    """Nested data with tensors and NumPy scalars replaced by lists and Python numbers."""
    if isinstance(data, Tensor):
        return data._array.tolist()
    if isinstance(data, np.ndarray | np.generic):
        return data.tolist()
    if isinstance(data, numbers.Number):
        return data
    return [_to_python(item) for item in data]


def _array_from_data(data, dtype: DType | None) -> np.ndarray:
    shape, inferred = _infer_shape_and_dtype(data)
    target = dtype or inferred or get_default_dtype()
    if isinstance(data, np.ndarray):
        return np.array(data, dtype=target.numpy, copy=True, order="C")
    try:
        array = np.array(_to_python(data), dtype=target.numpy)
    except OverflowError:
        raise RuntimeError(
            f"value cannot be converted to type {target.name} without overflow"
        ) from None
    except TypeError as error:  # e.g. complex data into a real dtype
        raise TypeError(f"can't convert {inferred} data to {target}: {error}") from None
    return array.reshape(shape)


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``torch.tensor``: always copies ``data`` into a new storage."""
    _check_dtype("tensor", dtype)
    _check_device(device)
    result = Tensor._from_array(_array_from_data(data, dtype))
    if requires_grad:
        result.requires_grad_(True)
    return result


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """``torch.as_tensor``: shares memory with a tensor or NumPy array when no conversion is needed."""
    _check_dtype("as_tensor", dtype)
    _check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data._dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or dtype.numpy == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """``torch.from_numpy``: a tensor over the array's own memory (writes show on both sides)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtype = from_numpy_dtype(array.dtype)
    itemsize = array.itemsize
    if any(s < 0 for s in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with "
            "negative strides are not currently supported. (You can probably work around "
            "this by making a copy of your array with array.copy().) "
        )
    if any(s % itemsize for s in array.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the "
            "numpy array to reallocate the memory."
        )
    stride = tuple(s // itemsize for s in array.strides)
    if array.size == 0:
        return Tensor(Storage(np.empty(0, dtype=array.dtype), dtype), array.shape, stride, 0)
    span = 1 + sum((n - 1) * s for n, s in zip(array.shape, stride, strict=True))
    # A flat view of exactly the memory the array spans, starting at its first element.
    flat = np.lib.stride_tricks.as_strided(array, shape=(span,), strides=(itemsize,))
    return Tensor(Storage(flat, dtype), array.shape, stride, 0, array)


def _size_from_args(fn_name: str, size) -> tuple[int, ...]:
    """``zeros(2, 3)``, ``zeros((2, 3))`` and ``zeros([2, 3])`` all mean shape (2, 3)."""
    if len(size) == 1 and not isinstance(size[0], numbers.Integral | Tensor):
        size = size[0]
    try:
        shape = tuple(operator.index(s) for s in size)
    except TypeError:
        raise TypeError(
            f"{fn_name}(): argument 'size' must be tuple of ints, but found element of type "
            f"{next(type(s).__name__ for s in size if not isinstance(s, numbers.Integral))}"
        ) from None
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )
    return shape


def _filled(fn_name, size, fill, dtype, device, requires_grad) -> Tensor:
    _check_dtype(fn_name, dtype)
    _check_device(device)
    shape = _size_from_args(fn_name, size)
    dtype = dtype or get_default_dtype()
    if fill is None:
        array = np.empty(shape, dtype=dtype.numpy)
    else:
        array = np.full(shape, fill, dtype=dtype.numpy)
    result = Tensor._from_array(array, dtype)
    if requires_grad:
        result.requires_grad_(True)
    return result


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    return _maybe_out(_filled("zeros", size, 0, dtype, device, requires_grad), out)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    return _maybe_out(_filled("ones", size, 1, dtype, device, requires_grad), out)


def empty(*size, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    """``torch.empty``: uninitialised memory, as in PyTorch (expect garbage values)."""
    return _maybe_out(_filled("empty", size, None, dtype, device, requires_grad), out)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    """``torch.full``: the dtype is inferred from ``fill_value`` when not given."""
    if dtype is None:
        dtype = scalar_dtype(fill_value)
    return _maybe_out(_filled("full", (size,), fill_value, dtype, device, requires_grad), out)


def scalar_tensor(value, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    return _filled("scalar_tensor", ((),), value, dtype, device, requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``torch.empty_strided``: memory laid out with exactly the given strides."""
    _check_dtype("empty_strided", dtype)
    _check_device(device)
    shape, stride = tuple(size), tuple(stride)
    if len(shape) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: {len(stride)} strides for a "
            f"{len(shape)}-dimensional size"
        )
    result = Tensor._empty_strided(shape, stride, dtype or get_default_dtype())
    if requires_grad:
        result.requires_grad_(True)
    return result


def _like(fn_name, input, fill, dtype, requires_grad, memory_format=None) -> Tensor:
    """``*_like``: same shape; the layout follows ``input`` when it is dense, as PyTorch's preserve_format."""
    from ..shape import is_non_overlapping_and_dense

    if not isinstance(input, Tensor):
        raise TypeError(
            f"{fn_name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    dtype = dtype or input._dtype
    if is_non_overlapping_and_dense(input._size, input._stride):
        stride = input._stride
    else:
        from .iterator import output_strides

        stride = output_strides(input._size, [input])
    result = Tensor._empty_strided(input._size, stride, dtype)
    if fill is not None:
        result._array[...] = fill
    if requires_grad:
        result.requires_grad_(True)
    return result


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    _check_device(device)
    return _like("zeros_like", input, 0, dtype, requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    _check_device(device)
    return _like("ones_like", input, 1, dtype, requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    _check_device(device)
    return _like("empty_like", input, None, dtype, requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=None):  # fmt: skip
    _check_device(device)
    return _like("full_like", input, fill_value, dtype, requires_grad)


def _maybe_out(result: Tensor, out) -> Tensor:
    if out is None:
        return result
    from .iterator import resize_output

    resize_output(out, result._size)
    out._array[...] = result._array
    out._bump_version()
    return out


def contiguous_tensor(array: np.ndarray, dtype: DType) -> Tensor:
    """Wrap an array as a new contiguous tensor of ``dtype`` (casting if needed)."""
    if array.dtype != dtype.numpy:
        array = array.astype(dtype.numpy)
    return Tensor._from_array(np.ascontiguousarray(array), dtype)


"""Copies and conversions: ``copy_``, ``clone``, ``contiguous``, ``to`` (``Copy.cpp``).

Views share memory; these operators are how you get *new* memory:

* ``copy_`` writes another tensor's values into an existing tensor (broadcast and
  cast), through whatever strides it has, so a write into a view changes its base;
* ``clone`` makes a new tensor with the same values, keeping the layout when it can
  (``memory_format=preserve_format``);
* ``contiguous`` returns the tensor itself when it already is row-major, else a
  row-major clone;
* ``to`` / ``type`` / ``float()``… convert the dtype through ``_to_copy``, and return
  the tensor itself when nothing would change.

Their derivatives are the simplest there are: a copy passes the gradient through
unchanged (the engine casts it back to the input's dtype and sums it back to the
input's shape). ``copy_`` also *overwrites* its target, so the target's old values
get a zero gradient: they no longer influence anything.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from ..derivatives import Derivative
from ..device import channels_last, contiguous_format, memory_format, preserve_format
from ..device import device as Device
from ..dispatcher import COMPOSITE, FUNCTIONAL, INPLACE
from ..dtypes import ALIASES, ALL_DTYPES, BOOL, int8, scalar_dtype, uint8
from ..dtypes import bool as bool_
from ..dtypes import dtype as DType
from ..shape import broadcast_shapes, contiguous_strides, is_non_overlapping_and_dense
from ..tensor import Tensor
from .iterator import check_inplace_target, output_strides
from .registry import bind_method, check_tensor, declare

__all__ = ["memory_format", "contiguous_format", "preserve_format", "channels_last", "clone"]


# --- strides of a new tensor -------------------------------------------------------------


def _channels_last_strides(size) -> tuple[int, ...]:
    if len(size) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    n, c, h, w = (max(s, 1) for s in size)
    return (c * h * w, 1, w * c, c)


def _suggested_format(t: Tensor) -> memory_format:
    """``suggest_memory_format``: channels_last only for a 4-D tensor laid out that way."""
    if t.dim() == 4 and not t._contiguous and t._stride == _channels_last_strides(t._size):
        return channels_last
    return contiguous_format


def strides_for_copy(t: Tensor, fmt: memory_format | None) -> tuple[int, ...]:
    """The strides ``clone``/``_to_copy`` give their result (``empty_like`` with a format).

    Preserving keeps a dense tensor's exact strides (a transposed tensor clones
    transposed); for a tensor with gaps or overlaps (a step slice, an ``expand``) it
    keeps only the dims' order, packed densely, as TensorIterator lays out outputs.
    """
    if fmt is None or fmt is preserve_format:
        if is_non_overlapping_and_dense(t._size, t._stride):
            return t._stride
        return output_strides(t._size, [t])
    if fmt is channels_last:
        return _channels_last_strides(t._size)
    return contiguous_strides(t._size)


def _check_memory_format(fn_name: str, fmt) -> None:
    if fmt is not None and not isinstance(fmt, memory_format):
        raise TypeError(
            f"{fn_name}(): argument 'memory_format' must be vizgrad.memory_format, not "
            f"{type(fmt).__name__}"
        )


# --- the one casting write everything here uses -----------------------------------------


def cast_into(destination: np.ndarray, source: np.ndarray, source_dtype: DType,
              destination_dtype: DType) -> None:  # fmt: skip
    """Write ``source`` into ``destination`` converting as PyTorch's copy kernel does.

    Any dtype converts to any other ("unsafe" casting, as C++ ``static_cast``). Complex
    to real keeps the real part, with PyTorch's warning; to bool, a number is True when
    it is non-zero (for complex, either part).
    """
    if source_dtype.is_complex and not destination_dtype.is_complex:
        if destination_dtype.category == BOOL:
            source = source != 0
        else:
            warnings.warn(
                "Casting complex values to real discards the imaginary part",
                UserWarning,
                stacklevel=4,
            )
            source = source.real
    # Out-of-range float -> int casts are undefined in C++ as in NumPy; NumPy would warn.
    with np.errstate(invalid="ignore", over="ignore"):
        np.copyto(destination, source, casting="unsafe")


# --- copy_ ---------------------------------------------------------------------------------


def _copy_kernel(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    if src is self:
        return self  # ``is_same``: nothing to move (the version still counts the write)
    shape = broadcast_shapes(self._size, src._size)
    # The written tensor must have the broadcast shape, must not repeat an element
    # (an expanded self), and must not partly overlap the source.
    check_inplace_target("copy_", self, shape, [src])
    source = src._array if src._size == self._size else np.broadcast_to(src._array, self._size)
    cast_into(self._array, source, src._dtype, self._dtype)
    return self


def _pass_through(grad: Tensor, saved) -> Tensor:
    return grad


_copy_op = declare(
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    INPLACE,
    _copy_kernel,
    # PyTorch writes this node by hand in C++, hence its qualified name.
    Derivative(
        "vizgrad::autograd::CopyBackwards",
        grads={"self": lambda grad, saved: grad.new_zeros(grad._size), "src": _pass_through},
    ),
)


def _copy_(self: Tensor, src, non_blocking: bool = False) -> Tensor:
    """``Tensor.copy_``: write ``src``'s values (broadcast, converted) into this tensor's memory."""
    if isinstance(src, numbers.Number) and not isinstance(src, Tensor):
        dtype = scalar_dtype(src)
        src = Tensor._from_array(np.asarray(src, dtype=dtype.numpy), dtype)
    check_tensor("copy_", src, "other", 1)
    return _copy_op(self, src, bool(non_blocking))


bind_method("copy_", _copy_)


# --- clone, contiguous ----------------------------------------------------------------------


def _copy_to_new(self: Tensor, dtype: DType, fmt) -> Tensor:
    result = Tensor._empty_strided(self._size, strides_for_copy(self, fmt), dtype)
    cast_into(result._array, self._array, self._dtype, dtype)
    return result


_clone_op = declare(
    "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
    FUNCTIONAL,
    lambda self, memory_format=None: _copy_to_new(self, self._dtype, memory_format),
    Derivative("CloneBackward0", grads={"self": _pass_through}),
)


def clone(input: Tensor, *, memory_format: memory_format = preserve_format) -> Tensor:
    """``torch.clone``: the same values in new memory; the result is never a view."""
    check_tensor("clone", input, "input", 1)
    _check_memory_format("clone", memory_format)
    return _clone_op(input, memory_format=memory_format)


def _contiguous(self: Tensor, *args, memory_format: memory_format = contiguous_format) -> Tensor:
    """``Tensor.contiguous``: this tensor if already row-major, else a row-major clone."""
    if args:
        raise TypeError(f"contiguous() takes 0 positional arguments but {len(args)} was given")
    _check_memory_format("contiguous", memory_format)
    return _contiguous_op(self, memory_format=memory_format)


def _contiguous_kernel(self: Tensor, *, memory_format: memory_format = contiguous_format):
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if memory_format is contiguous_format and self._contiguous:
        return self
    if memory_format is channels_last and self._stride == _channels_last_strides(self._size):
        return self
    return _clone_op(self, memory_format=memory_format)


# CompositeImplicitAutograd: either the tensor itself, or a ``clone``.
_contiguous_op = declare(
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    FUNCTIONAL,
    _contiguous_kernel,
    COMPOSITE,
)

bind_method("clone", clone)
bind_method("contiguous", _contiguous)


# --- to, type, float()… ----------------------------------------------------------------------


def _to_copy_kernel(self: Tensor, *, dtype=None, layout=None, device=None, pin_memory=None,
                    non_blocking=False, memory_format=None) -> Tensor:  # fmt: skip
    return _copy_to_new(self, dtype or self._dtype, memory_format)


_to_copy_op = declare(
    "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
    FUNCTIONAL,
    _to_copy_kernel,
    # The engine casts the gradient back to the input's dtype (``_to_copy_backward``).
    Derivative("ToCopyBackward0", grads={"self": _pass_through}),
)


def _to_will_alias(self: Tensor, dtype, copy: bool, fmt) -> bool:
    """``to_will_alias``: nothing to change, so ``to`` returns the tensor itself."""
    return (
        not copy
        and (dtype is None or dtype is self._dtype)
        and (fmt is None or fmt is preserve_format or fmt is _suggested_format(self))
    )


def _convert(self: Tensor, dtype, copy: bool = False, fmt=None) -> Tensor:
    if _to_will_alias(self, dtype, copy, fmt):
        return self
    return _to_copy_op(self, dtype=dtype, memory_format=fmt)


def _parse_to(args, kwargs):
    """Sort ``to``'s three overloads: ``to(dtype…)``, ``to(device, dtype…)``, ``to(other…)``."""
    args = list(args)
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    if args and isinstance(args[0], Tensor):
        other = args.pop(0)
        device, dtype = other.device, other._dtype
    elif args and isinstance(args[0], DType):
        dtype = args.pop(0)
    elif args and isinstance(args[0], str | Device | int) and not isinstance(args[0], bool):
        device = args.pop(0)
        if args and isinstance(args[0], DType):
            dtype = args.pop(0)
    if args and not isinstance(args[0], bool):
        raise TypeError(
            f"to() received an invalid combination of arguments - got "
            f"({type(args[0]).__name__}), but expected one of:\n"
            " * (vizgrad.device device = None, vizgrad.dtype dtype = None, bool non_blocking = "
            "False, bool copy = False, *, vizgrad.memory_format memory_format = None)\n"
            " * (vizgrad.dtype dtype, bool non_blocking = False, bool copy = False, *, "
            "vizgrad.memory_format memory_format = None)\n"
            " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
            "vizgrad.memory_format memory_format = None)"
        )
    non_blocking = args.pop(0) if args else kwargs.pop("non_blocking", False)
    copy = args.pop(0) if args else kwargs.pop("copy", False)
    fmt = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if device is not None:
        Device(device if not isinstance(device, int) else f"cuda:{device}")  # only the CPU exists
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(f"to(): argument 'dtype' must be vizgrad.dtype, not {type(dtype).__name__}")
    _check_memory_format("to", fmt)
    return dtype, bool(non_blocking), bool(copy), fmt


def _to(self: Tensor, *args, **kwargs) -> Tensor:
    """``Tensor.to``: convert dtype (or "move" to the CPU); the tensor itself if nothing changes."""
    dtype, _non_blocking, copy, fmt = _parse_to(args, kwargs)
    return _convert(self, dtype, copy, fmt)


_TENSOR_TYPE_NAMES = {f"{d.scalar_name}Tensor": d for d in ALL_DTYPES}


def _type(self: Tensor, dtype=None, non_blocking: bool = False, **kwargs):
    """``Tensor.type``: the type name (``'vizgrad.FloatTensor'``), or a conversion to ``dtype``."""
    if dtype is None:
        return f"vizgrad.{self._dtype.scalar_name}Tensor"
    if isinstance(dtype, str):
        prefix, _, name = dtype.rpartition(".")
        if prefix not in ("torch", "vizgrad") or name not in _TENSOR_TYPE_NAMES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _TENSOR_TYPE_NAMES[name]
    if not isinstance(dtype, DType):
        raise TypeError(
            f"type(): argument 'dtype' must be vizgrad.dtype, not {type(dtype).__name__}"
        )
    return _convert(self, dtype)


bind_method("to", _to)
bind_method("type", _type)


def _conversion_method(name: str, dtype: DType):
    def convert(self: Tensor, memory_format: memory_format = preserve_format) -> Tensor:
        _check_memory_format(name, memory_format)
        return _convert(self, dtype, fmt=memory_format)

    convert.__doc__ = f"``Tensor.{name}()``: ``self.to(vizgrad.{dtype.name})``."
    bind_method(name, convert)


for _name, _dtype in {**ALIASES, "char": int8, "byte": uint8, "bool": bool_}.items():
    _conversion_method(_name, _dtype)

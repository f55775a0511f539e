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

``Tensor.copy_``, ``Tensor.contiguous``, ``Tensor.to``, ``Tensor.type`` and the
conversions ``float()``, ``double()``… are Python bindings that PyTorch writes by hand
(``python_variable_methods.cpp``, torchgen's ``SKIP_PYTHON_BINDINGS``); so are they
here, each with its binding's own signatures, calling the declared operators.

Their derivatives are the simplest there are: a copy passes the gradient through
unchanged (the engine casts it back to the input's dtype and sums it back to the
input's shape). ``copy_`` also *overwrites* its target, so the target's old values
get a zero gradient: they no longer influence anything.
"""

from __future__ import annotations

import numpy as np

from ..arg_parser import PythonArgParser
from ..derivatives import Derivative
from ..device import channels_last, contiguous_format, memory_format, preserve_format
from ..device import device as Device
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import ALIASES, ALL_DTYPES, BOOL, from_numpy_dtype, int8, uint8
from ..dtypes import bool as bool_
from ..dtypes import dtype as DType
from ..meta_device import empty_meta
from ..shape import (
    broadcast_shapes,
    is_channels_last_contiguous,
)
from ..tensor import Tensor, apply_math_bits, define_method
from ..user_warnings import warn_at_user_code
from .creation import check_device, strides_like, suggested_format
from .declaration import native_function
from .float_errors import ignoring_float_errors
from .iterator import check_inplace_target

__all__ = ["memory_format", "contiguous_format", "preserve_format", "channels_last", "clone"]


# --- strides of a new tensor -------------------------------------------------------------


# --- the one casting write everything here uses -----------------------------------------


def cast_into(destination: np.ndarray, source: np.ndarray, source_dtype: DType,
              destination_dtype: DType) -> None:  # fmt: skip
    """Write ``source`` into ``destination`` converting as PyTorch's copy kernel does.

    Any dtype converts to any other ("unsafe" casting, as C++ ``static_cast``). Complex
    to real keeps the real part, with PyTorch's warning; to bool, a number is True when
    it is non-zero (for complex, either part).
    """
    if source_dtype is destination_dtype:  # no conversion, so nothing to warn about
        np.copyto(destination, source)
        return
    if source_dtype.is_complex and not destination_dtype.is_complex:
        source = complex_as_real(source, to_bool=destination_dtype.category == BOOL)
    _copy_unchecked(destination, source)


def complex_as_real(source: np.ndarray, *, to_bool: bool) -> np.ndarray:
    """A complex array as PyTorch's cast to a real dtype reads it: to bool, whether either
    part is non-zero; else the real part, with PyTorch's warning (not NumPy's
    ``ComplexWarning``)."""
    if to_bool:
        return source != 0
    warn_at_user_code("Casting complex values to real discards the imaginary part", UserWarning)
    return source.real


# Out-of-range float -> int casts are undefined in C++ as in NumPy; NumPy would warn.
@ignoring_float_errors(invalid="ignore", over="ignore")
def _copy_unchecked(destination: np.ndarray, source: np.ndarray) -> None:
    np.copyto(destination, source, casting="unsafe")


# --- copy_ ---------------------------------------------------------------------------------


def _copy_kernel(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    if src is self:
        return self  # ``is_same``: nothing to move (the version still counts the write)
    shape = self._size if src._size == self._size else broadcast_shapes(self._size, src._size)
    # The written tensor must have the broadcast shape, must not repeat an element
    # (an expanded self), and must not partly overlap the source.
    check_inplace_target("copy_", self, shape, [src])
    # ``copy_`` handles the math bits itself (the Conjugate and Negative keys fall through
    # to it): the bytes written are ``src``'s values read through ``self``'s bits.
    source = src._array
    if src._key_set != self._key_set:
        source = apply_math_bits(source, src._key_set ^ self._key_set)
    if src._size != self._size:
        source = np.broadcast_to(source, self._size)
    cast_into(self._array, source, src._dtype, self._dtype)
    return self


def _pass_through(grad: Tensor, saved) -> Tensor:
    return grad


_copy_ = native_function(
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    kernel=_copy_kernel,
    # PyTorch writes this node by hand in C++, hence its qualified name.
    derivative=Derivative(
        "vizgrad::autograd::CopyBackwards",
        grads={"self": lambda grad, saved: grad.new_zeros(grad._size), "src": _pass_through},
        complex=True,
    ),
    python_bindings=False,
).overloads["copy_"]

_COPY_SIGNATURE = PythonArgParser.from_signatures("copy_(Tensor other, bool non_blocking=False)",
                                 numbers_as_tensors=True)  # fmt: skip


def _wrapped_number(value) -> Tensor:
    """A Python number as the 0-dim tensor PyTorch's parser makes of it (int64, double,
    complex double or bool: the number's own precision)."""
    array = np.asarray(value)
    return Tensor._from_array(array, from_numpy_dtype(array.dtype))


def _copy_method(self: Tensor, *args, **kwargs) -> Tensor:
    """``Tensor.copy_(other, non_blocking=False)``: write ``other``'s values (broadcast,
    converted) into this tensor's memory. A Python binding in PyTorch
    (``THPVariable_copy_``), which takes a number for ``other`` too."""
    _, (other, non_blocking), _ = _COPY_SIGNATURE.parse(args, kwargs)
    if not isinstance(other, Tensor):
        other = _wrapped_number(other)
    return _copy_(self, other, non_blocking)


define_method("copy_", _copy_method)


# --- clone, contiguous ----------------------------------------------------------------------


def _copy_to_new(self: Tensor, dtype: DType, fmt) -> Tensor:
    # ``clone`` resolves the math bits (the Conjugate and Negative keys fall through to it).
    result = Tensor._empty_strided(self._size, strides_like(self, fmt), dtype)
    cast_into(result._array, self._resolved_array(), self._dtype, dtype)
    return result


def _clone_kernel(self: Tensor, *, memory_format=None) -> Tensor:
    return _copy_to_new(self, self._dtype, memory_format)


clone = native_function(
    "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
    kernel=_clone_kernel,
    derivative=Derivative("CloneBackward0", grads={"self": _pass_through}, complex=True),
    doc="``torch.clone``: the same values in new memory; the result is never a view.",
)


def _is_laid_out_as(self: Tensor, fmt) -> bool:
    """``is_contiguous(memory_format)``: already in that format, so no copy is needed."""
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if fmt is channels_last:
        return is_channels_last_contiguous(self._size, self._stride)
    return self._contiguous


def _contiguous_kernel(self: Tensor, *, memory_format=contiguous_format) -> Tensor:
    if _is_laid_out_as(self, memory_format):
        return self
    return clone(self, memory_format=memory_format)


# CompositeImplicitAutograd: either the tensor itself, or a ``clone``.
_contiguous = native_function(
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    kernel=_contiguous_kernel,
    kind=COMPOSITE_IMPLICIT,
    python_bindings=False,
).overloads["contiguous"]

_CONTIGUOUS_SIGNATURE = PythonArgParser.from_signatures(
    "contiguous(*, MemoryFormat memory_format=contiguous_format)"
)


def _contiguous_method(self: Tensor, *args, **kwargs) -> Tensor:
    """``Tensor.contiguous()``: this tensor if already laid out so, else a row-major clone.

    A Python binding in PyTorch (``THPVariable_contiguous``), which returns the tensor
    itself without calling the operator when it already is contiguous.
    """
    _, _, options = _CONTIGUOUS_SIGNATURE.parse(args, kwargs)
    fmt = options["memory_format"]
    if _is_laid_out_as(self, fmt):
        return self
    return _contiguous(self, memory_format=fmt)


define_method("contiguous", _contiguous_method)


# --- to, type, float()… ----------------------------------------------------------------------


def _to_copy_kernel(self: Tensor, *, dtype=None, layout=None, device=None, pin_memory=None,
                    non_blocking=False, memory_format=None) -> Tensor:  # fmt: skip
    if device is not None and Device(device).type == "meta":  # ``cpu_tensor.to("meta")``
        return empty_meta(self._size, strides_like(self, memory_format), dtype or self._dtype)
    return _copy_to_new(self, dtype or self._dtype, memory_format)


_to_copy = native_function(
    "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
    kernel=_to_copy_kernel,
    # The engine casts the gradient back to the input's dtype (``_to_copy_backward``).
    derivative=Derivative("ToCopyBackward0", grads={"self": _pass_through}, complex=True),
    python_bindings=False,
).overloads["_to_copy"]


def _to_dtype_kernel(self: Tensor, dtype, non_blocking=False, copy=False, memory_format=None):
    """``to_impl``: the tensor itself when nothing would change (``to_will_alias``),
    else a ``_to_copy``. The other overloads come here with the dtype they mean."""
    will_alias = (
        not copy
        and (dtype is None or dtype is self._dtype)
        and (memory_format is None or memory_format is preserve_format
             or memory_format is suggested_format(self))
    )  # fmt: skip
    if will_alias:
        return self
    return _to_copy(self, dtype=dtype, memory_format=memory_format)


def _to_dtype_layout_kernel(self, *, dtype=None, layout=None, device=None, pin_memory=None,
                            non_blocking=False, copy=False, memory_format=None):  # fmt: skip
    return _to_device_kernel(self, device, dtype, non_blocking, copy, memory_format)


def _to_device_kernel(self, device, dtype, non_blocking=False, copy=False, memory_format=None):
    """To another device (the CPU or the meta device), ``to`` always copies."""
    if device is not None and Device(device) != self.device:
        return _to_copy(self, dtype=dtype, device=device, memory_format=memory_format)
    return _to_dtype_kernel(self, dtype, non_blocking, copy, memory_format)


def _to_other_kernel(self, other, non_blocking=False, copy=False, memory_format=None):
    return _to_dtype_kernel(self, other._dtype, non_blocking, copy, memory_format)


# CompositeImplicitAutograd: the tensor itself, or a ``_to_copy`` (which records the node).
_to_overloads = native_function(
    "to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    "to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, "
    "bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
    "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    "to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    kernels={
        "to.dtype_layout": _to_dtype_layout_kernel,
        "to.device": _to_device_kernel,
        "to.dtype": _to_dtype_kernel,
        "to.other": _to_other_kernel,
    },
    kind=COMPOSITE_IMPLICIT,
    python_bindings=False,
).overloads
_to_dtype_layout = _to_overloads["to.dtype_layout"]
_to_device = _to_overloads["to.device"]
_to_dtype = _to_overloads["to.dtype"]


def _to_device_and_dtype(self: Tensor, device, dtype, non_blocking: bool, copy: bool, fmt):
    """``dispatch_to``: the ``aten::to`` overload that says what was given."""
    if device is None and dtype is None:
        return _to_dtype_layout(self, dtype=self._dtype, device=self.device,
                                non_blocking=non_blocking, copy=copy, memory_format=fmt)  # fmt: skip
    if device is None:
        return _to_dtype(self, dtype, non_blocking, copy, fmt)
    check_device(device, meta=True)
    if dtype is None:
        return _to_dtype_layout(self, dtype=self._dtype, device=device,
                                non_blocking=non_blocking, copy=copy, memory_format=fmt)  # fmt: skip
    return _to_device(self, device, dtype, non_blocking, copy, fmt)


_TO_SIGNATURES = PythonArgParser.from_signatures(
    "to(Device device=None, ScalarType dtype=None, bool non_blocking=False, bool copy=False, *, "
    "MemoryFormat? memory_format=None)",
    "to(ScalarType dtype, bool non_blocking=False, bool copy=False, *, "
    "MemoryFormat? memory_format=None)",
    "to(Tensor tensor, bool non_blocking=False, bool copy=False, *, "
    "MemoryFormat? memory_format=None)",
    numbers_as_tensors=True,
)


def _to_method(self: Tensor, *args, **kwargs) -> Tensor:
    """``Tensor.to``: convert the dtype (or "move" to the CPU), as ``to(dtype)``,
    ``to(device, dtype)`` or ``to(other)``; the tensor itself if nothing changes.

    A Python binding in PyTorch (``THPVariable_to``): it reads which form was called
    and dispatches the ``aten::to`` overload for what was given.
    """
    signature, args, options = _TO_SIGNATURES.parse(args, kwargs)
    fmt = options["memory_format"]
    if signature.overload == 1:  # to(dtype, ...): the common call
        dtype, non_blocking, copy = args
        return _to_dtype(self, dtype, non_blocking, copy, fmt)
    if signature.overload == 0:  # to(device=None, dtype=None, ...)
        device, dtype, non_blocking, copy = args
    else:  # to(other, ...): its device and dtype
        other, non_blocking, copy = args
        if not isinstance(other, Tensor):
            other = _wrapped_number(other)
        device, dtype = other.device, other._dtype
    if device is None and dtype is None and not copy and fmt is None:
        return self
    return _to_device_and_dtype(self, device, dtype, non_blocking, copy, fmt)


define_method("to", _to_method)

_TENSOR_TYPE_NAMES = {f"{d.scalar_name}Tensor": d for d in ALL_DTYPES}
# A CPU-only PyTorch's first words when asked for a CUDA tensor type (``THPVariable_type``;
# the rest of its message is about C++ linking), and what to do instead.
_NO_CUDA_LIBRARY = (
    "Cannot initialize CUDA without ATen_cuda library: vizgrad, like a PyTorch built without "
    "CUDA, has only the CPU backend. Use a CPU type (vizgrad.FloatTensor) instead."
)
_TYPE_SIGNATURE = PythonArgParser.from_signatures(
    "type(PyObject* dtype=None, bool non_blocking=False, *, MemoryFormat? memory_format=None)"
)


def _type_method(self: Tensor, *args, **kwargs):
    """``Tensor.type``: the type name (``'vizgrad.FloatTensor'``), or a conversion to a
    dtype or a type name. A Python binding in PyTorch (``THPVariable_type``)."""
    _, (dtype, non_blocking), options = _TYPE_SIGNATURE.parse(args, kwargs)
    fmt = options["memory_format"]
    if dtype is None:
        return f"vizgrad.{self._dtype.scalar_name}Tensor"
    if isinstance(dtype, DType):
        return _to_dtype(self, dtype, non_blocking, False, fmt)
    if isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), DType):
        # A legacy tensor type (``vizgrad.DoubleTensor``), which also names a device.
        if dtype.device_type != "cpu":
            raise RuntimeError(_NO_CUDA_LIBRARY)
        return _to_dtype(self, dtype.dtype, non_blocking, False, fmt)
    if not isinstance(dtype, str):
        raise TypeError("dtype must be a type, str, or dtype object")
    prefix, _, name = dtype.rpartition(".")
    if prefix in ("torch.cuda", "vizgrad.cuda") and name in _TENSOR_TYPE_NAMES:
        raise RuntimeError(_NO_CUDA_LIBRARY)
    if prefix not in ("torch", "vizgrad") or name not in _TENSOR_TYPE_NAMES:
        raise ValueError(f"invalid type: '{dtype}'")
    return _to_device(self, self.device, _TENSOR_TYPE_NAMES[name], non_blocking, False, fmt)


define_method("type", _type_method)

_CPU_SIGNATURE = PythonArgParser.from_signatures("cpu(*, MemoryFormat? memory_format=None)")
_CUDA_SIGNATURE = PythonArgParser.from_signatures(
    "cuda(Device? device=None, bool non_blocking=False, *, MemoryFormat? memory_format=None)"
)


def _cpu_method(self: Tensor, *args, **kwargs) -> Tensor:
    """``Tensor.cpu()``: ``self.to('cpu')``, which is ``self`` itself, since every vizgrad
    tensor is on the CPU (``THPVariable_cpu``)."""
    _, _, options = _CPU_SIGNATURE.parse(args, kwargs)
    return _to_method(self, "cpu", memory_format=options["memory_format"])


def _cuda_method(self: Tensor, *args, **kwargs) -> Tensor:
    """``Tensor.cuda()``: a copy on a CUDA device, which vizgrad (as a PyTorch built
    without CUDA) does not have: ``AssertionError: Torch not compiled with CUDA enabled``."""
    _, (device, _), _ = _CUDA_SIGNATURE.parse(args, kwargs)
    device = Device("cuda" if device is None else device)  # an int asks for an accelerator
    if device.type != "cuda":
        raise RuntimeError("Invalid device, must be cuda device")
    check_device(device)  # raises: there is no CUDA
    return self


define_method("cpu", _cpu_method)
define_method("cuda", _cuda_method)


def _conversion_method(name: str, dtype: DType):
    """``Tensor.float()``, ``.long()``…: ``to(dtype)`` (``THPVariable_to_type``)."""
    signature = PythonArgParser.from_signatures(f"{name}(*, MemoryFormat? memory_format=None)")

    def convert(self: Tensor, *args, **kwargs) -> Tensor:
        _, _, options = signature.parse(args, kwargs)
        return _to_dtype(self, dtype, False, False, options["memory_format"])

    convert.__doc__ = f"``Tensor.{name}()``: ``self.to(vizgrad.{dtype.name})``."
    define_method(name, convert)


for _name, _dtype in {**ALIASES, "char": int8, "byte": uint8, "bool": bool_}.items():
    _conversion_method(_name, _dtype)

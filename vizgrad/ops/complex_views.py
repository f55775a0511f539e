"""Complex numbers as views: ``view_as_real``, ``view_as_complex``, ``real``, ``imag``, the
conjugate bit, ``complex``, ``polar``, ``angle`` (``TensorConversions.cpp``, ``UnaryOps.cpp``,
``TensorFactories.cpp``).

A complex64 element is two float32 numbers side by side, the real part first. A storage
is bytes (``vizgrad.storage``), so the same bytes can be read both ways:
``view_as_real(z)`` reads a complex tensor as floats with one more dim of size 2 (every
stride and the offset doubled, the new last dim of stride 1); ``view_as_complex`` is
its inverse, and needs a last dim of 2 floats side by side (stride 1), every other
stride and the offset even. ``z.real`` and ``z.imag`` select index 0 and 1 of that last
dim: views, which can be written (``z.imag.zero_()``, ``z.real = ...``).

``z.conj()`` copies nothing either: it returns a view with the *conjugate bit* set
(``_conj``), which says "these bytes stand for their conjugates". ``is_conj()`` reads
it; ``resolve_conj()`` makes a plain copy; ``conj_physical()`` computes the conjugate
into new memory. Views keep the bit (``z.conj().t().is_conj()``); every other operator
sees the bit resolved by the dispatcher's Conjugate key (``vizgrad.ops.math_bits``), so
its result is plain. ``z.conj().imag`` is the imaginary part negated: a view with the
*negative bit* (``_neg_view``, ``is_neg()``, ``resolve_neg()``).
"""

from __future__ import annotations

import math

import numpy as np

from ..arg_parser import PythonArgParser
from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT, INPLACE
from ..dtypes import complex64, complex128, float32, float64
from ..promotion import check_can_cast
from ..tensor import CONJ_BIT, NEG_BIT, Tensor, define_method
from . import math_bits  # noqa: F401 - installs the Conjugate and Negative keys' fallback
from .advanced_indexing import _value_as_tensor
from .copy import _copy_, clone
from .creation import zeros, zeros_like
from .declaration import native_function
from .elementwise import elementwise, structured
from .float_errors import ignoring_float_errors
from .iterator import (
    ALL_TYPES_AND_COMPLEX,
    COMPLEX_TYPES,
    FLOATING_TYPES,
    TensorIterator,
    dispatch_dtypes,
)
from .logical import where
from .parts import _select_op
from .registry import write_to_out
from .tensor_queries import _query

__all__ = [
    "view_as_real",
    "view_as_complex",
    "real",
    "imag",
    "conj",
    "_conj",
    "conj_physical",
    "conj_physical_",
    "_conj_physical",
    "resolve_conj",
    "resolve_neg",
    "_neg_view",
    "is_complex",
    "is_conj",
    "is_neg",
    "complex",
    "polar",
    "angle",
]

_COMPLEX_OF = {float32: complex64, float64: complex128}
_NO_COMPLEX32 = "would be ComplexHalf (torch.complex32), a dtype vizgrad does not have"


# --- view_as_real, view_as_complex: the same bytes as floats or as complex numbers ------


def _view_as_real_kernel(self: Tensor) -> Tensor:
    if self.is_conj():
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
            "conjugate tensor so you can view it as real, use self.resolve_conj(); however, "
            "be warned that the resulting tensor will NOT alias the original."
        )
    if not self.is_complex():
        raise RuntimeError("view_as_real is only supported for complex tensors")
    # Each complex element is two floats: every stride and the offset double.
    return self._alias((*self._size, 2), (*(2 * s for s in self._stride), 1), 2 * self._offset,
                       self._dtype.to_real())  # fmt: skip


view_as_real = native_function(
    "view_as_real(Tensor(a) self) -> Tensor(a)",
    kernel=_view_as_real_kernel,
    derivative=Derivative(
        "ViewAsRealBackward0",
        grads={"self": lambda grad, saved: view_as_complex(grad.contiguous())},
        complex=True,
    ),
    variants="function",
    doc="``torch.view_as_real``: a complex tensor's bytes as floats, ``[..., 2]`` (real, "
    "imaginary); a view.",
)


def _view_as_complex_kernel(self: Tensor) -> Tensor:
    complex_dtype = _COMPLEX_OF.get(self._dtype)
    if complex_dtype is None:
        if self._dtype.name == "float16":
            raise RuntimeError(f"view_as_complex of a Half tensor {_NO_COMPLEX32}")
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {self._dtype.scalar_name}"
        )
    if not self._size:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if self._size[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if self._stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in self._stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    stride = tuple(s // 2 for s in self._stride[:-1])
    return self._alias(self._size[:-1], stride, self._offset // 2, complex_dtype)


view_as_complex = native_function(
    "view_as_complex(Tensor(a) self) -> Tensor(a)",
    kernel=_view_as_complex_kernel,
    derivative=Derivative(
        "ViewAsComplexBackward0",
        grads={"self": lambda grad, saved: view_as_real(grad.contiguous().resolve_conj())},
        complex=True,
    ),
    variants="function",
    doc="``torch.view_as_complex``: floats ``[..., 2]`` read as complex numbers; a view.",
)


# --- the conjugate and negative bits ------------------------------------------------------


def _flipped(bit: int):
    """A view op's kernel: an alias of ``self`` with ``bit`` flipped (``_conj``, ``_neg_view``)."""

    def kernel(self: Tensor) -> Tensor:
        view = self._alias(self._size, self._stride, self._offset)
        view._key_set = self._key_set ^ bit
        return view

    return kernel


_conj = native_function(
    "_conj(Tensor(a) self) -> Tensor(a)",
    kernel=_flipped(CONJ_BIT),
    derivative=Derivative(
        "ConjBackward0", grads={"self": lambda grad, saved: grad.conj()}, complex=True
    ),
    doc="``torch._conj``: a view with the conjugate bit flipped.",
)
_conj_op = _conj.overloads["_conj"]


def _conj_kernel(self: Tensor) -> Tensor:
    """``Tensor::conj``: ``_conj`` of a complex tensor; a real tensor is its own conjugate."""
    return _conj_op(self) if self._dtype.is_complex else self


# ``conj`` has a ``manual_cpp_binding``: its bindings call ``Tensor::conj`` in C++, which
# never dispatches ``aten::conj``, only ``aten::_conj`` for a complex tensor. So do
# vizgrad's, and the formulas' ``grad.conj()`` of a real gradient costs nothing.
native_function(
    "conj(Tensor(a) self) -> Tensor(a)",
    kernel=_conj_kernel,
    kind=COMPOSITE_IMPLICIT,
    python_bindings=False,
)
_CONJ_FUNCTION = PythonArgParser.from_signatures("conj(Tensor input)")
_CONJ_METHOD = PythonArgParser.from_signatures("conj()")


def conj(*args, **kwargs) -> Tensor:
    """``torch.conj``: the complex conjugate as a lazy view (``is_conj()``); a real tensor
    is its own conjugate."""
    _, (input,), _ = _CONJ_FUNCTION.parse(args, kwargs)
    return _conj_kernel(input)


def _conj_method(self: Tensor, *args, **kwargs) -> Tensor:
    _CONJ_METHOD.parse(args, kwargs)
    return _conj_kernel(self)


_conj_method.__doc__ = conj.__doc__
define_method("conj", _conj_method)

_neg_view = native_function(
    "_neg_view(Tensor(a) self) -> Tensor(a)",
    kernel=_flipped(NEG_BIT),
    derivative=Derivative(
        "NegViewBackward0", grads={"self": lambda grad, saved: grad.neg()}, complex=True
    ),
    doc="``torch._neg_view``: a view with the negative bit flipped.",
)
_neg_view_op = _neg_view.overloads["_neg_view"]


def _resolving(bit: int):
    """``resolve_conj``/``resolve_neg``: ``self``, or a plain ``clone`` if ``bit`` is set
    (``clone`` applies the bits as it copies)."""
    return lambda self: clone(self) if self._key_set & bit else self


resolve_conj = native_function(
    "resolve_conj(Tensor(a) self) -> Tensor(a)",
    kernel=_resolving(CONJ_BIT),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.resolve_conj``: ``input`` itself, or, with the conjugate bit set, a copy "
    "holding the conjugated values.",
)
resolve_neg = native_function(
    "resolve_neg(Tensor(a) self) -> Tensor(a)",
    kernel=_resolving(NEG_BIT),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.resolve_neg``: ``input`` itself, or, with the negative bit set, a copy "
    "holding the negated values.",
)


@dispatch_dtypes("conj_cpu", ALL_TYPES_AND_COMPLEX | {"bool"})
def _conj_loop(out, x):
    if x.dtype.kind == "c":
        np.conjugate(x, out=out)
    else:  # a real number is its own conjugate (NumPy's ``conjugate`` refuses bool)
        np.copyto(out, x)


# ``TensorIterator::unary_op``: an out= of another dtype is an error, not a cast.
_conj_elementwise = elementwise(_conj_loop, check_all_same_dtype=True)


def _conj_physical_kernel(self: Tensor) -> Tensor:
    """``_conj_physical``: the conjugated values in new memory. The Conjugate key falls
    through to it: a conjugate view's values are its bytes, copied (``conj().clone()``)."""
    if self.is_conj():
        return clone(_conj_op(self))
    # ``unary_op_impl``: an empty output where ``self`` is (a meta one on the meta device),
    # which the iterator lays out like ``self``.
    return _conj_physical_out(self, out=self.new_empty((0,)))


_conj_physical = native_function(
    "_conj_physical(Tensor self) -> Tensor",
    kernel=_conj_physical_kernel,
    derivative=Derivative(
        "ConjPhysicalBackward0",
        grads={"self": lambda grad, saved: grad.conj_physical()},
        complex=True,
    ),
    doc="``torch._conj_physical``: the complex conjugate, computed into new memory.",
)
_conj_physical_op = _conj_physical.overloads["_conj_physical"]


def _conj_physical_inplace_kernel(self: Tensor) -> Tensor:
    """``conj_physical_``: a real tensor is left as it is; a complex one's bytes are
    conjugated in place (with the conjugate bit set, so are the values it stands for)."""
    if not self.is_complex():
        return self
    return _conj_in_place(self)


conj_physical = native_function(
    "conj_physical(Tensor self) -> Tensor",
    "conj_physical.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "conj_physical_(Tensor(a!) self) -> Tensor(a!)",
    kernels={
        "conj_physical": lambda self: _conj_physical_op(self) if self.is_complex() else self,
        "conj_physical.out": _conj_elementwise,
        "conj_physical_": _conj_physical_inplace_kernel,
    },
    kinds={"conj_physical": COMPOSITE_IMPLICIT},
    derivatives={
        "conj_physical_": Derivative(
            "ConjPhysicalBackward1",
            grads={"self": lambda grad, saved: grad.conj_physical()},
            complex=True,
        )
    },
    inplace_variants="function, method",
    doc="``torch.conj_physical``: the complex conjugate computed into new memory (a real "
    "tensor is returned as it is).",
)
conj_physical_ = conj_physical.inplace
_conj_physical_out = conj_physical.overloads["conj_physical.out"]
_conj_in_place = _conj_elementwise.for_overload(
    conj_physical.overloads["conj_physical_"].function_schema, INPLACE
)

# Questions about the bits, asked as functions (``torch.is_conj(x)``); ``Tensor`` has the
# methods. The math bits' keys fall through to them: they read the bits themselves.
is_complex = _query(
    "is_complex(Tensor self) -> bool",
    Tensor.is_complex,
    "``torch.is_complex``: is the dtype a complex one?",
)
is_conj = _query(
    "is_conj(Tensor self) -> bool",
    Tensor.is_conj,
    "``torch.is_conj``: is the conjugate bit set (a lazy ``conj()`` view)?",
)
is_neg = _query(
    "is_neg(Tensor self) -> bool",
    Tensor.is_neg,
    "``torch.is_neg``: is the negative bit set (a lazy negation, ``conj().imag``)?",
)


# --- real and imag: views of view_as_real -----------------------------------------------


def _real_kernel(self: Tensor) -> Tensor:
    if not self.is_complex():
        return self
    floats = view_as_real(_conj_op(self)) if self.is_conj() else view_as_real(self)
    return _select_op(floats, floats.dim() - 1, 0)


def _imag_kernel(self: Tensor) -> Tensor:
    if not self.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    if not self.is_conj():
        floats = view_as_real(self)
        return _select_op(floats, floats.dim() - 1, 1)
    # The imaginary part of a conjugate is the bytes' imaginary part negated.
    floats = _neg_view_op(view_as_real(_conj_op(self)))
    return _select_op(floats, floats.dim() - 1, 1)


real = native_function(
    "real(Tensor(a) self) -> Tensor(a)",
    kernel=_real_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.real``: the real parts of a complex tensor, as a view (a real tensor is "
    "returned as it is).",
)
imag = native_function(
    "imag(Tensor(a) self) -> Tensor(a)",
    kernel=_imag_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.imag``: the imaginary parts of a complex tensor, as a view.",
)


def _part_property(part):
    """``Tensor.real``/``Tensor.imag``: the view; assigning copies into it
    (``THPVariable_set_real``: a number or a tensor, broadcast and converted)."""

    def get(self: Tensor) -> Tensor:
        return part(self)

    def set_(self: Tensor, value) -> None:
        view = part(self)
        _copy_(view, _value_as_tensor(view, value))

    return property(get, set_, doc=part.__doc__)


define_method("real", _part_property(real))
define_method("imag", _part_property(imag))


# --- complex and polar: complex numbers from two real tensors ---------------------------


def _check_parts(first: Tensor, second: Tensor, out=None) -> None:
    """``complex_check_dtype``: two float or double tensors of one dtype (and ``out=`` of
    the complex dtype they make)."""
    names = ("float16", "float32", "float64")
    if first._dtype.name not in names or second._dtype.name not in names:
        raise RuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{first._dtype.scalar_name} and {second._dtype.scalar_name}"
        )
    if first._dtype is not second._dtype:
        raise RuntimeError(
            f"Expected object of scalar type {first._dtype.scalar_name} but got scalar type "
            f"{second._dtype.scalar_name} for second argument"
        )
    if first._dtype not in _COMPLEX_OF:
        raise RuntimeError(f"complex numbers of Half parts {_NO_COMPLEX32}")
    expected = _COMPLEX_OF[first._dtype]
    if out is not None and out._dtype is not expected:
        raise RuntimeError(
            f"Expected object of scalar type {expected.scalar_name} but got scalar type "
            f"{out._dtype.scalar_name} for argument 'out'"
        )


def _from_parts(name: str, loop):
    """``complex_out``/``polar_out``: a TensorIterator over two real tensors writing
    complex numbers (broadcast, laid out like the inputs)."""

    def impl(operands, out, inplace):
        first, second = operands
        _check_parts(first, second, out)
        result_dtype = _COMPLEX_OF[first._dtype]
        it = TensorIterator(name, operands, out=out, result_dtype=result_dtype)
        return it.run(loop)

    return structured(impl)


def _complex_loop(out, real_part, imag_part):
    # The parts written as they are (``real + 1j * imag`` would turn ``inf * 0`` into nan).
    np.copyto(out.real, real_part)
    np.copyto(out.imag, imag_part)


@ignoring_float_errors(all="ignore")
def _polar_loop(out, magnitude, angle):
    np.multiply(magnitude, np.cos(angle), out=out.real)
    np.multiply(magnitude, np.sin(angle), out=out.imag)


complex = native_function(  # noqa: A001 - PyTorch's name
    "complex(Tensor real, Tensor imag) -> Tensor",
    "complex.out(Tensor real, Tensor imag, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_from_parts("complex", _complex_loop),
    derivative=Derivative(
        "ComplexBackward0",
        grads={
            "real": lambda grad, saved: real(grad),
            "imag": lambda grad, saved: imag(grad),
        },
        complex=True,
    ),
    variants="function",
    doc="``torch.complex``: ``real + imag * 1j`` from two float (or two double) tensors, "
    "broadcast.",
)


def _polar_backward(grad: Tensor, saved) -> tuple:
    """``polar_backward``: ``result = abs * e^(i angle)``; ``grad`` conjugated times the
    result's direction gives ``abs``'s gradient, times ``i * result`` ``angle``'s."""
    grad_conj = grad.conj()
    grad_abs = real(grad_conj * saved.result.sgn())
    grad_angle = real(grad_conj * (saved.result * 1j))
    return grad_abs, grad_angle


polar = native_function(
    "polar(Tensor abs, Tensor angle) -> Tensor",
    "polar.out(Tensor abs, Tensor angle, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_from_parts("polar", _polar_loop),
    derivative=Derivative(
        "PolarBackward0",
        save=("result",),
        grads={
            "abs": lambda grad, saved: _polar_backward(grad, saved)[0],
            "angle": lambda grad, saved: _polar_backward(grad, saved)[1],
        },
        complex=True,
    ),
    variants="function",
    doc="``torch.polar``: ``abs * (cos(angle) + 1j * sin(angle))``, broadcast.",
)


# --- angle --------------------------------------------------------------------------------


@dispatch_dtypes("angle_cpu", FLOATING_TYPES | COMPLEX_TYPES)
@ignoring_float_errors(invalid="ignore")
def _angle_loop(out, x):
    if x.dtype.kind == "c":
        np.copyto(out, np.angle(x), casting="unsafe")
    else:  # pi for negative numbers, 0 otherwise, NaN kept (``angle_impl``)
        np.copyto(out, np.where(np.isnan(x), x, np.where(x < 0, math.pi, 0)), casting="unsafe")


def _angle(operands, out, inplace):
    """``angle_out``: a complex input's angle is real (complex64 -> float32), cast into a
    real ``out=`` if that float can be; an integer input computes in the default float."""
    (self,) = operands
    if self.is_complex() and (out is None or not out.is_complex()):
        # ``unary_op_impl_with_complex_to_float_out``: the angles computed apart, then
        # copied into the output (resized from empty: row-major), as their real part.
        real_dtype = self._dtype.to_real()
        if out is not None:
            check_can_cast(real_dtype, out._dtype)
        angles = TensorIterator("angle", (self,), result_dtype=real_dtype).run(_angle_loop)
        target = angles.new_empty((0,)) if out is None else out  # (where ``angles`` is)
        return write_to_out(angles, target, check_cast=False)
    it = TensorIterator("angle", (self,), out=out, promote_integer_inputs_to_float=True)
    return it.run(_angle_loop)


def _angle_backward(grad: Tensor, saved) -> Tensor:
    """``angle_backward``: ``d angle(z) = Im(dz / z)``; a real input's angle is a step."""
    self = saved.self
    if not self.is_complex():
        return zeros_like(self)
    safe = grad * self / self.abs().pow(2) * 1j
    return where(self == 0.0, zeros((), dtype=self._dtype), safe)


angle = native_function(
    "angle(Tensor self) -> Tensor",
    "angle.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=structured(_angle),
    derivative=Derivative(
        "AngleBackward0", save=("self",), grads={"self": _angle_backward}, complex=True
    ),
    doc="``torch.angle``: the argument of each complex number, in radians (a real number's "
    "is 0, or pi if negative; NaN stays NaN); the result is real.",
)

"""Arithmetic: ``add``, ``sub``, ``mul``, ``div``, ``pow``… (PyTorch's ``BinaryOps.cpp``).

Each operator is one ``native_function`` declaration holding every overload's schema
as ``native_functions.yaml`` writes it, its NumPy kernel (which writes into the
output the TensorIterator prepared), its derivative and the checks PyTorch makes.
Broadcasting, promotion, output allocation and the in-place/``out=`` variants come
from the shared machinery (``elementwise``), never from here. The aliases PyTorch
declares as operators of their own (``subtract``, ``divide``, ``arctan2``…) are
CompositeImplicitAutograd: their kernels call the main operator's overloads, which
record the nodes.

Only the functions of Python's arithmetic (``add``, ``sub``, ``mul``, ``div`` and
their aliases, ``floor_divide``) take a Python number where the schema says
``Tensor`` (``numbers_as_tensors``); the others reach a number through a ``Scalar``
overload (``pow.Tensor_Scalar``) or refuse it (``atan2(x, 2)``), as PyTorch does.

Kernels that PyTorch compiles only for some dtypes are wrapped in
``dispatch_dtypes``: called with another dtype they raise PyTorch's
``"div_floor_cpu" not implemented for 'Bool'``.
"""

from __future__ import annotations

import cmath
import math

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import (
    BOOL,
    C_TYPE_NAMES,
    COMPLEX,
    CPP_TYPE_NAMES,
    FLOATING,
    INTEGRAL,
    complex128,
    float64,
)
from ..meta_device import empty_strided_beside
from ..promotion import result_type
from ..shape import contiguous_strides
from ..tensor import Tensor
from .creation import zeros_like
from .declaration import native_function
from .elementwise import elementwise, structured
from .float_errors import ignoring_float_errors
from .iterator import (
    ALL_TYPES,
    ALL_TYPES_AND_COMPLEX,
    COMPLEX_TYPES,
    FLOATING_TYPES,
    TensorIterator,
    dispatch_dtypes,
    resize_output,
)
from .logical import where

__all__ = [
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
    "floor_divide", "remainder", "fmod", "pow", "rsub", "atan2", "arctan2",
    "maximum", "minimum", "fmax", "fmin", "lerp", "addcmul", "addcdiv", "hypot",
    "xlogy", "xlogy_", "float_power", "heaviside", "logaddexp", "logaddexp2",
]  # fmt: skip


def opmath(x: np.ndarray) -> np.ndarray:
    """The array a kernel computes with: float16 in float32 (PyTorch's ``opmath_type``),
    other dtypes in their own."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def composite_outs(*names: str) -> dict:
    """``kinds=`` for an alias's out= overloads (``subtract.out``): made of the main
    operator's, whose out= overload then refuses autograd in its own name (``sub():
    functions with out=... arguments don't support automatic differentiation``)."""
    return dict.fromkeys(names, COMPOSITE_IMPLICIT)


def _is_tensor_of(x, *categories) -> bool:
    return isinstance(x, Tensor) and x._dtype.category in categories


def _is_bool_operand(x) -> bool:
    """A bool tensor or a Python bool: what ``-`` refuses to subtract."""
    return _is_tensor_of(x, BOOL) or isinstance(x, bool)


def raise_if_integer_division_by_zero(divisor: np.ndarray) -> None:
    """Integer division by zero has no answer; PyTorch raises instead of returning garbage."""
    if divisor.dtype.kind in "iub" and not np.all(divisor):
        raise RuntimeError("ZeroDivisionError")


# --- add, sub, mul -------------------------------------------------------------------


def _check_alpha(input, other, alpha=1, out=None):
    """``alpha_check``: ``alpha`` must fit the result's kind (no 2.5 * an int tensor)."""
    if alpha == 1 and type(alpha) is int:
        return
    result = result_type(input, other)
    if isinstance(alpha, bool) and result.category != BOOL:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float | complex) and result.category < FLOATING:
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if isinstance(alpha, complex) and result.category != COMPLEX:
        raise RuntimeError(
            "For non-complex input tensors, argument alpha must not be a complex number."
        )


# Floats that overflow become inf (and inf * 0 nan): answers, not errors, as in PyTorch.
# (A decorator, not a ``with np.errstate`` block, which builds and enters a new context
# manager each time: these loops run on every add and mul.)
_FLOAT_OVERFLOW_IS_AN_ANSWER = {"over": "ignore", "invalid": "ignore"}


def _other_times_alpha(out, b, alpha):
    """``alpha * other`` as ATen's add kernel computes it (``fmadd(b, alpha, a)``).

    The kernels below skip it for real results and ``alpha = 1``, where it changes
    nothing; never for complex ones, where even ``alpha = 1`` is a complex product
    (``(inf+0j) * (1+0j)`` is ``inf+nanj``, so ``1 + (inf+0j)`` is ``inf+nanj`` in PyTorch).
    """
    return np.multiply(b, np.asarray(alpha, dtype=out.dtype), dtype=out.dtype)


@ignoring_float_errors(**_FLOAT_OVERFLOW_IS_AN_ANSWER)
def _add_kernel(out, a, b, alpha=1):
    if alpha != 1 or out.dtype.kind == "c":
        b = _other_times_alpha(out, b, alpha)
    np.add(a, b, out=out)


@ignoring_float_errors(**_FLOAT_OVERFLOW_IS_AN_ANSWER)
def _sub_kernel(out, a, b, alpha=1):
    if alpha != 1 or out.dtype.kind == "c":
        b = _other_times_alpha(out, b, alpha)
    np.subtract(a, b, out=out)


@ignoring_float_errors(**_FLOAT_OVERFLOW_IS_AN_ANSWER)
def _mul_kernel(out, a, b):
    np.multiply(a, b, out=out)


def _check_sub(input, other, alpha=1, out=None):
    """Subtracting booleans has no meaning: PyTorch points to ``^`` and ``~`` instead.

    A Python ``True`` counts as a bool tensor here (it is wrapped into one).
    """
    bool_count = _is_bool_operand(input) + _is_bool_operand(other)
    if bool_count == 2:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        )
    if bool_count == 1:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    _check_alpha(input, other, alpha)


def _conjugate(value):
    """``value.conj()`` of a tensor or of a Python number (``Scalar::conj``)."""
    return value.conj() if isinstance(value, Tensor) else value.conjugate()


def _times_alpha(grad, saved):
    # ``maybe_multiply(grad, alpha.conj())``: a complex alpha is conjugated.
    return grad if saved.alpha == 1 else grad * saved.alpha.conjugate()


def _zeros_like(grad, saved):
    """The gradient of a step function (``floor``, ``div(..., rounding_mode='floor')``):
    zero almost everywhere, and PyTorch takes it to be zero everywhere."""
    return zeros_like(grad)


add = native_function(
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_add_kernel),
    check=_check_alpha,
    # d(self + alpha*other) = grad for self, alpha*grad for other. Broadcast inputs get
    # the gradient summed back to their shape by the engine.
    derivative=Derivative(
        "AddBackward0",
        save=("alpha",),
        grads={"self": lambda grad, saved: grad, "other": _times_alpha},
        complex=True,
    ),
    numbers_as_tensors=True,
    doc="``torch.add``: ``input + alpha * other``, broadcast and promoted.",
)

sub = native_function(
    "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_sub_kernel),
    check=_check_sub,
    derivative=Derivative(
        "SubBackward0",
        save=("alpha",),
        grads={
            "self": lambda grad, saved: grad,
            "other": lambda grad, saved: -_times_alpha(grad, saved),
        },
        complex=True,
    ),
    numbers_as_tensors=True,
    doc="``torch.sub``: ``input - alpha * other``, broadcast and promoted.",
)
_sub, _sub_ = sub.overloads["sub.Tensor"], sub.overloads["sub_.Tensor"]

# The Scalar overloads take ``alpha`` by position; PyTorch's reach sub.Scalar, which
# wraps the number into a tensor: sub.Tensor with the number is the same call.
subtract = native_function(
    "subtract.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "subtract_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "subtract.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "subtract.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "subtract_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
    kernels={
        "subtract.Tensor": _sub,
        "subtract_.Tensor": _sub_,
        "subtract.out": sub.overloads["sub.out"],
        "subtract.Scalar": lambda self, other, alpha=1: _sub(self, other, alpha=alpha),
        "subtract_.Scalar": lambda self, other, alpha=1: _sub_(self, other, alpha=alpha),
    },
    check=_check_sub,
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("subtract.out"),
    numbers_as_tensors=True,
    doc="``torch.subtract``: an alias of ``sub``.",
)

mul = native_function(
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_mul_kernel),
    # The product rule: each factor's gradient is grad times the other factor (conjugated:
    # ``mul_tensor_backward``).
    derivative=Derivative(
        "MulBackward0",
        save=("self", "other"),
        reads={"self": ("other",), "other": ("self",)},
        grads={
            "self": lambda grad, saved: grad * _conjugate(saved.other),
            "other": lambda grad, saved: grad * _conjugate(saved.self),
        },
        complex=True,
    ),
    numbers_as_tensors=True,
    doc="``torch.mul``: elementwise product, broadcast and promoted.",
)

# ``tensor * 0.5`` and ``1 + tensor`` written in ATen's C++ (``special_ndtr``) call the
# Scalar overloads, which record nodes of their own (MulBackward1, AddBackward1). Python
# never reaches them: its ``x * 0.5`` wraps the number into a tensor and calls mul.Tensor.
# So they are declared without Python bindings, for the C++ composites' vizgrad twins.
mul_scalar = native_function(
    "mul.Scalar(Tensor self, Scalar other) -> Tensor",
    kernel=elementwise(_mul_kernel),
    derivative=Derivative(
        "MulBackward1",
        save=("other",),
        complex=True,
        grads={"self": lambda grad, saved: grad * saved.other.conjugate()},
    ),
    python_bindings=False,
).overloads["mul.Scalar"]
add_scalar = native_function(
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    kernel=elementwise(_add_kernel),
    derivative=Derivative("AddBackward1", grads={"self": lambda grad, saved: grad}, complex=True),
    python_bindings=False,
).overloads["add.Scalar"]
multiply = native_function(
    "multiply.Tensor(Tensor self, Tensor other) -> Tensor",
    "multiply_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "multiply.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "multiply.Scalar(Tensor self, Scalar other) -> Tensor",
    "multiply_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    kernels={
        "multiply.Tensor": mul.overloads["mul.Tensor"],
        "multiply_.Tensor": mul.overloads["mul_.Tensor"],
        "multiply.out": mul.overloads["mul.out"],
        "multiply.Scalar": mul.overloads["mul.Tensor"],
        "multiply_.Scalar": mul.overloads["mul_.Tensor"],
    },
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("multiply.out"),
    numbers_as_tensors=True,
    doc="``torch.multiply``: an alias of ``mul``.",
)


def _rsub_kernel(out, a, b, alpha=1):
    _sub_kernel(out, b, a, alpha)


# d(other - alpha*self) = -alpha*grad for self, grad for other.
_RSUB_SELF_GRAD = {"self": lambda grad, saved: -_times_alpha(grad, saved)}
rsub = native_function(
    "rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    kernel=elementwise(_rsub_kernel),
    check=_check_sub,
    # ``2 - t`` reaches the Scalar overload: its own node, RsubBackward1.
    derivatives={
        "rsub.Tensor": Derivative(
            "RsubBackward0",
            save=("alpha",),
            grads={**_RSUB_SELF_GRAD, "other": lambda grad, saved: grad},
            complex=True,
        ),
        "rsub.Scalar": Derivative(
            "RsubBackward1", save=("alpha",), grads=_RSUB_SELF_GRAD, complex=True
        ),
    },
    variants="function",
    doc="``torch.rsub``: ``other - alpha * input`` (subtraction with the operands reversed).",
)


# --- division ------------------------------------------------------------------------


@ignoring_float_errors(divide="ignore", invalid="ignore", over="ignore")
def _true_divide_kernel(out, a, b):
    np.true_divide(a, b, out=out)


@dispatch_dtypes("div_trunc_cpu", ALL_TYPES)
def _div_trunc_kernel(out, a, b):
    raise_if_integer_division_by_zero(b)
    if out.dtype.kind in "iu":
        # NumPy floors integer quotients; truncation rounds toward zero instead.
        quotient = np.floor_divide(a, b)
        inexact_and_negative = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
        np.add(quotient, inexact_and_negative, out=out, casting="unsafe")
        return
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        np.trunc(np.true_divide(a, b), out=out)


@dispatch_dtypes("div_floor_cpu", ALL_TYPES)
def _div_floor_kernel(out, a, b):
    raise_if_integer_division_by_zero(b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # NumPy's floor_divide for floats is PyTorch's div_floor: computed through fmod,
        # so that ``a == b * (a // b) + a % b`` holds as closely as floats allow.
        np.floor_divide(a, b, out=out)


def _is_true_division(rounding_mode=None) -> bool:
    """How div.Tensor_mode's meta function builds its iterator: true division (no
    rounding mode) makes floats of integers, the rounded modes keep the promoted dtype;
    any other mode is an error, raised before any work."""
    if rounding_mode is None:
        return True
    if rounding_mode in ("trunc", "floor"):
        return False
    raise RuntimeError(
        "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
        f"'{rounding_mode}'"
    )


def _div_mode_kernel(out, a, b, rounding_mode=None):
    if rounding_mode is None:
        _true_divide_kernel(out, a, b)
        return
    kernel = _div_trunc_kernel if rounding_mode == "trunc" else _div_floor_kernel
    kernel(out, a, b)


# d(a/b)/da = 1/b; d(a/b)/db = -a/b**2, conjugated (``div_tensor_self_backward``,
# ``div_tensor_other_backward``).
_TRUE_DIVISION_GRADS = {
    "self": lambda grad, saved: grad / _conjugate(saved.other),
    "other": lambda grad, saved: -grad * ((saved.self / saved.other) / saved.other).conj(),
}


def _rounded_division_grad(param: str):
    # A rounded quotient is a step function of both operands: zero gradients.
    def grad_of(grad, saved):
        if saved.rounding_mode is None:
            return _TRUE_DIVISION_GRADS[param](grad, saved)
        return _zeros_like(grad, saved)

    return grad_of


_division_with_mode = elementwise(
    _div_mode_kernel, promote_integer_inputs_to_float=_is_true_division
)

# PyTorch's argument parser tells a missing ``rounding_mode`` from an explicit None:
# ``div(a, b)`` calls div.Tensor, ``div(a, b, rounding_mode=None)`` div.Tensor_mode
# (the same quotient, recorded as DivBackward2 instead of DivBackward0). div.Scalar
# has no Python binding (a number goes to div.Tensor), but div.Scalar_mode has.
div = native_function(
    "div.Tensor(Tensor self, Tensor other) -> Tensor",
    "div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)",
    "div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)",
    "div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
    "div_.Scalar_mode(Tensor(a!) self, Scalar other, *, str? rounding_mode) -> Tensor(a!)",
    kernels={
        # True division always produces floating point: ``int / int`` is float32.
        "div.Tensor": elementwise(_true_divide_kernel, promote_integer_inputs_to_float=True),
        "div.Tensor_mode": _division_with_mode,
        "div.Scalar_mode": _division_with_mode,
    },
    derivatives={
        "div.Tensor": Derivative(
            "DivBackward0",
            save=("self", "other"),
            grads=_TRUE_DIVISION_GRADS,
            reads={"self": ("other",), "other": ("self", "other")},
            complex=True,
        ),
        "div.Tensor_mode": Derivative(
            "DivBackward2",
            save=("self", "other", "rounding_mode"),
            grads={
                "self": _rounded_division_grad("self"),
                "other": _rounded_division_grad("other"),
            },
            complex=True,
        ),  # fmt: skip
        "div.Scalar_mode": Derivative(
            "DivBackward3",
            save=("other", "rounding_mode"),
            grads={"self": _rounded_division_grad("self")},
            complex=True,
        ),
    },
    numbers_as_tensors=True,
    doc="""``torch.div``: true division, or rounded with ``rounding_mode='trunc'``/``'floor'``.

    True division promotes integers to the default float dtype; the rounded modes keep
    the promoted input dtype (``int // int`` stays an integer).
    """,
)
_div, _div_ = div.overloads["div.Tensor"], div.overloads["div_.Tensor"]
# ``tensor / 2.`` written in ATen's C++ (``trapezoid``) calls div.Scalar, recorded as
# DivBackward1; like mul.Scalar above, Python never reaches it (no binding).
div_scalar = native_function(
    "div.Scalar(Tensor self, Scalar other) -> Tensor",
    kernel=elementwise(_true_divide_kernel, promote_integer_inputs_to_float=True),
    derivative=Derivative(
        "DivBackward1",
        save=("other",),
        complex=True,
        grads={"self": lambda grad, saved: grad / saved.other.conjugate()},
    ),
    python_bindings=False,
).overloads["div.Scalar"]
_div_mode, _div_mode_ = div.overloads["div.Tensor_mode"], div.overloads["div_.Tensor_mode"]

divide = native_function(
    "divide.Tensor(Tensor self, Tensor other) -> Tensor",
    "divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "divide.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "divide_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)",
    "divide.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) "
    "-> Tensor(a!)",
    "divide.Scalar(Tensor self, Scalar other) -> Tensor",
    "divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "divide.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
    "divide_.Scalar_mode(Tensor(a!) self, Scalar other, *, str? rounding_mode) -> Tensor(a!)",
    kernels={
        "divide.Tensor": _div,
        "divide_.Tensor": _div_,
        "divide.out": div.overloads["div.out"],
        "divide.Scalar": _div,
        "divide_.Scalar": _div_,
        "divide.Tensor_mode": _div_mode,
        "divide_.Tensor_mode": _div_mode_,
        "divide.out_mode": div.overloads["div.out_mode"],
        "divide.Scalar_mode": div.overloads["div.Scalar_mode"],
        "divide_.Scalar_mode": div.overloads["div_.Scalar_mode"],
    },
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("divide.out", "divide.out_mode"),
    numbers_as_tensors=True,
    doc="``torch.divide``: an alias of ``div``.",
)

true_divide = native_function(
    "true_divide.Tensor(Tensor self, Tensor other) -> Tensor",
    "true_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "true_divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "true_divide.Scalar(Tensor self, Scalar other) -> Tensor",
    "true_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    kernels={
        "true_divide.Tensor": _div,
        "true_divide_.Tensor": _div_,
        "true_divide.out": div.overloads["div.out"],
        "true_divide.Scalar": _div,
        "true_divide_.Scalar": _div_,
    },
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("true_divide.out"),
    numbers_as_tensors=True,
    doc="``torch.true_divide``: ``div`` without a rounding mode.",
)

# PyTorch has no derivative for floor_divide: the node it records raises in backward.
floor_divide = native_function(
    "floor_divide(Tensor self, Tensor other) -> Tensor",
    "floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "floor_divide.Scalar(Tensor self, Scalar other) -> Tensor",
    "floor_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    kernel=elementwise(_div_floor_kernel),
    numbers_as_tensors=True,
    doc="``torch.floor_divide``: division rounded toward minus infinity (Python's ``//``).",
)


@dispatch_dtypes("remainder_cpu", ALL_TYPES)
def _remainder_kernel(out, a, b):
    raise_if_integer_division_by_zero(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.remainder(a, b, out=out)  # the sign of the divisor, as Python's ``%``


@dispatch_dtypes("fmod_cpu", ALL_TYPES)
def _fmod_kernel(out, a, b):
    raise_if_integer_division_by_zero(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.fmod(a, b, out=out)  # the sign of the dividend, as C's ``fmod``


def _remainder_derivatives(fn_name: str, rounding_mode: str) -> dict:
    """``op.Tensor`` and ``op.Scalar`` (``t % 2``) record nodes of their own.

    ``a - b * q`` with ``q = div(a, b, rounding_mode)`` piecewise constant: the gradient
    is ``grad`` for ``a`` and ``-grad * q`` for ``b``.
    """
    self_grad = {"self": lambda grad, saved: grad}
    name = fn_name.capitalize()
    tensor_derivative = Derivative(
        f"{name}Backward1",
        save=("self", "other"),
        reads={"self": (), "other": ("self", "other")},
        grads={
            **self_grad,
            "other": lambda grad, saved: (
                -grad * div(saved.self, saved.other, rounding_mode=rounding_mode)
            ),
        },
    )
    return {
        f"{fn_name}.Tensor": tensor_derivative,
        f"{fn_name}.Scalar": Derivative(f"{name}Backward0", grads=self_grad),
    }


# ``5 % t`` is remainder.Scalar_Tensor, to which PyTorch gives no derivative: its node
# raises in backward.
remainder = native_function(
    "remainder.Tensor(Tensor self, Tensor other) -> Tensor",
    "remainder_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    "remainder.Scalar(Tensor self, Scalar other) -> Tensor",
    "remainder_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_remainder_kernel),
    derivatives=_remainder_derivatives("remainder", "floor"),
    doc="``torch.remainder``: the modulus with the sign of the divisor (Python's ``%``).",
)
fmod = native_function(
    "fmod.Tensor(Tensor self, Tensor other) -> Tensor",
    "fmod_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "fmod.Scalar(Tensor self, Scalar other) -> Tensor",
    "fmod_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_fmod_kernel),
    derivatives=_remainder_derivatives("fmod", "trunc"),
    doc="``torch.fmod``: the C remainder, with the sign of the dividend.",
)


# --- pow -----------------------------------------------------------------------------

_NEGATIVE_POWER_MESSAGE = "Integers to negative integer powers are not allowed."


def _integer_power(out, base, exponent):
    """Integer powers as PyTorch computes them: a negative exponent gives ``1/base**n``
    truncated, which is 0 except for bases 1 and -1 (NumPy would raise instead)."""
    negative = exponent < 0
    if not np.any(negative):
        np.power(base, exponent, out=out)
        return
    np.power(base, np.where(negative, 0, exponent), out=out)
    odd = (exponent % 2) != 0
    reciprocal = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1), 0))
    where_negative = np.broadcast_to(negative, out.shape)
    np.copyto(out, np.broadcast_to(reciprocal, out.shape), where=where_negative)


@dispatch_dtypes("pow", ALL_TYPES_AND_COMPLEX)
def _pow_kernel(out, base, exponent):
    if out.dtype.kind in "iu":
        _integer_power(out, base, exponent)
        return
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        np.power(base, exponent, out=out)


def check_scalar_fits(fn_name: str, value, dtype) -> None:
    """``Scalar.to<T>()``: a Python int that the integer dtype cannot hold is an error.

    (Wrapped numbers in ``uint8_tensor + 300`` wrap around instead; scalars that a
    kernel converts itself, as ``pow``'s exponent or ``clamp``'s bounds, do not.)
    """
    if dtype.category == INTEGRAL and isinstance(value, int) and not isinstance(value, bool):
        info = np.iinfo(dtype.numpy)
        # c10::overflows lets an unsigned type take -max..-1 (they wrap: -1 is 255).
        low = -int(info.max) if info.min == 0 else info.min
        if not low <= value <= info.max:
            raise RuntimeError(
                f"value cannot be converted to type {C_TYPE_NAMES[dtype.name]} without overflow"
            )


@dispatch_dtypes("pow", ALL_TYPES_AND_COMPLEX | {"bool"})
def _pow_tensor_scalar_kernel(out, base, exponent):
    # pow_Tensor_Scalar_out: x ** 0 is 1 and x ** 1 is x for every dtype, bool included.
    if exponent == 0:
        out.fill(1)
    elif exponent == 1:
        np.copyto(out, base, casting="unsafe")
    else:
        _pow_kernel(out, base, exponent)


def _pow_tensor_scalar(operands, out, inplace):
    """pow.Tensor_Scalar: an integer tensor takes no negative or oversized exponent."""
    base, exponent = operands
    if base._dtype.category <= INTEGRAL:
        if isinstance(exponent, int) and not isinstance(exponent, bool) and exponent < 0:
            raise RuntimeError(_NEGATIVE_POWER_MESSAGE)
        check_scalar_fits("pow", exponent, result_type(base, exponent))
    iterator = TensorIterator("pow", operands, out=out, inplace=inplace, scalar_parameters=True)
    return iterator.run(_pow_tensor_scalar_kernel)


def _pow_scalar_base(operands, out, inplace):
    """pow.Scalar's output is laid out contiguously, whatever the exponent's strides."""
    base, exponent = operands
    if out is None:
        out = empty_strided_beside(exponent, exponent._size, contiguous_strides(exponent._size),
                                   result_type(base, exponent))  # fmt: skip
    if base == 1 and not isinstance(base, bool):
        # 1 ** x is 1 for every x: PyTorch fills without computing (or checking).
        resize_output(out, exponent._size)
        if not out.is_meta:
            out._array.fill(1)
        return out
    return TensorIterator("pow", operands, out=out).run(_pow_kernel)


# --- pow's derivatives (``pow_backward``, ``pow_backward_self``, ``pow_backward_exponent``)
# d(x ** p)/dx = p * x ** (p - 1);  d(b ** y)/dy = b ** y * log(b).


# The slopes are conjugated for complex numbers (conjugate Wirtinger calculus).


def _pow_scalar_exponent_grad(grad, saved):
    exponent = saved.exponent
    if exponent == 0:  # x ** 0 is the constant 1, whatever x (even 0 ** 0)
        return zeros_like(saved.self)
    exponent = complex(exponent) if isinstance(exponent, complex) else float(exponent)
    return grad * (exponent * saved.self.pow(exponent - 1)).conj()


def _pow_tensor_self_grad(grad, saved):
    exponent = saved.exponent
    # Where the exponent is 0 the result is constantly 1: no gradient, even at x = 0
    # (where exponent * x ** -1 would be 0 * inf = nan).
    return where(exponent == 0, 0.0, grad * (exponent * saved.self.pow(exponent - 1)).conj())


def _flat_at_zero_base(exponent):
    """Where ``0 ** exponent`` is flat: a real exponent >= 0 (0 for y > 0, 1 at y = 0), a
    complex one only when it is real, as PyTorch calls the slope 0 there rather than
    ``0 * log(0) = nan``."""
    if isinstance(exponent, Tensor) and exponent.is_complex():
        return (exponent.imag == 0).logical_and(exponent.real >= 0)
    return exponent >= 0


def _pow_tensor_exponent_grad(grad, saved):
    base, result = saved.self, saved.result
    if base._dtype is not result._dtype:  # an integer base: take its log in the result's dtype
        base = base.to(result._dtype)
    at_zero = (base == 0).logical_and(_flat_at_zero_base(saved.exponent))
    return grad * where(at_zero, 0.0, (result * base.log()).conj())


def _log_of_number(value) -> float | complex:
    """``Scalar.log()``: log(0) is -inf and the log of a negative real number is nan;
    a complex number has its complex logarithm."""
    if isinstance(value, complex):
        return cmath.log(value) if value != 0 else -math.inf
    if value > 0:
        return math.log(value)
    return -math.inf if value == 0 else math.nan


def _pow_scalar_base_grad(grad, saved):
    base, exponent, result = saved.self, saved.exponent, saved.result
    if exponent.is_complex() and not isinstance(base, complex):
        base = complex(base)  # a complex exponent takes the complex log of a real base
    slope = (result * _log_of_number(base)).conj()
    if base == 0:  # 0 ** y: flat for y >= 0, as for a tensor base
        slope = where(_flat_at_zero_base(exponent), 0.0, slope)
    return grad * slope


pow = native_function(  # noqa: A001 - PyTorch's name
    "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    "pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)",
    "pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)",
    "pow.Scalar(Scalar self, Tensor exponent) -> Tensor",
    "pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)",
    "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    "pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)",
    "pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "pow.Tensor_Tensor": elementwise(_pow_kernel),
        "pow.Scalar": structured(_pow_scalar_base),
        "pow.Tensor_Scalar": structured(_pow_tensor_scalar),
    },
    derivatives={
        "pow.Tensor_Tensor": Derivative(
            "PowBackward1",
            save=("self", "exponent", "result"),
            grads={"self": _pow_tensor_self_grad, "exponent": _pow_tensor_exponent_grad},
            complex=True,
        ),
        "pow.Scalar": Derivative(
            "PowBackward2",
            save=("self", "exponent", "result"),
            grads={"exponent": _pow_scalar_base_grad},
            complex=True,
        ),
        "pow.Tensor_Scalar": Derivative(
            "PowBackward0",
            save=("self", "exponent"),
            grads={"self": _pow_scalar_exponent_grad},
            complex=True,
        ),
    },
    doc="``torch.pow``: tensor ** tensor, tensor ** number, or number ** tensor.",
)


# --- float_power: pow in double precision --------------------------------------------
# CompositeImplicitAutograd: both operands converted to float64 (complex128 if either is
# complex), then ``pow`` (whose node, PowBackward0/1/2, is what autograd records).


def _double_dtype(*operands):
    """complex128 if an operand is complex (a tensor or a Python number), else float64."""
    for x in operands:
        if (isinstance(x, Tensor) and x._dtype.category == COMPLEX) or isinstance(x, complex):
            return complex128
    return float64


def _in_double(x, dtype):
    """A tensor converted to ``dtype``; a number to a Python float or complex
    (``Scalar::toDouble``, ``toComplexDouble``)."""
    if isinstance(x, Tensor):
        return x.to(dtype)
    return complex(x) if dtype is complex128 else float(x)


def _check_double(written: str, tensor, dtype) -> None:
    """The tensor written (``out=``, or ``self`` in place) must already be of ``dtype``."""
    if tensor._dtype is not dtype:
        raise RuntimeError(
            f"{written} has dtype {tensor._dtype.scalar_name} but the operation's result "
            f"requires dtype {dtype.scalar_name}"
        )


def _float_power(self, exponent):
    dtype = _double_dtype(self, exponent)
    return pow(_in_double(self, dtype), _in_double(exponent, dtype))


def _float_power_out(self, exponent, *, out):
    dtype = _double_dtype(self, exponent)
    _check_double("the output given to float_power", out, dtype)
    return pow(_in_double(self, dtype), _in_double(exponent, dtype), out=out)


def _float_power_inplace(self, exponent):
    dtype = _double_dtype(self, exponent)
    _check_double("the base given to float_power_", self, dtype)
    return self.pow_(_in_double(exponent, dtype))


_FLOAT_POWER_OUTS = ("float_power.Tensor_Tensor_out", "float_power.Scalar_out",
                     "float_power.Tensor_Scalar_out")  # fmt: skip
float_power = native_function(
    "float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    "float_power.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)",
    "float_power.Scalar(Scalar self, Tensor exponent) -> Tensor",
    "float_power.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)",
    "float_power.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    "float_power.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out) -> Tensor(a!)",
    "float_power_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)",
    "float_power_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)",
    kernels={
        "float_power.Tensor_Tensor": _float_power,
        "float_power.Scalar": _float_power,
        "float_power.Tensor_Scalar": _float_power,
        **dict.fromkeys(_FLOAT_POWER_OUTS, _float_power_out),
        "float_power_.Scalar": _float_power_inplace,
        "float_power_.Tensor": _float_power_inplace,
    },
    kind=COMPOSITE_IMPLICIT,
    kinds=dict.fromkeys(_FLOAT_POWER_OUTS, COMPOSITE_IMPLICIT),
    doc="``torch.float_power``: ``pow`` computed in double precision: the result is float64 "
    "(complex128 if an operand is complex), whatever the inputs' dtypes.",
)


# --- atan2, maximum, minimum ---------------------------------------------------------


@dispatch_dtypes("atan2_cpu", FLOATING_TYPES)
def _atan2_kernel(out, a, b):
    np.arctan2(a, b, out=out)


def _atan2_grads(sign: int):
    # d atan2(y, x) = (x dy - y dx) / (x**2 + y**2): self is y, other is x.
    def grad_of(grad, saved):
        y, x = saved.self, saved.other
        numerator = x if sign > 0 else -y
        return grad * numerator * (y * y + x * x).reciprocal()

    return grad_of


atan2 = native_function(
    "atan2(Tensor self, Tensor other) -> Tensor",
    "atan2_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_atan2_kernel, promote_integer_inputs_to_float=True),
    derivative=Derivative(
        "Atan2Backward0",
        save=("self", "other"),
        grads={"self": _atan2_grads(+1), "other": _atan2_grads(-1)},
    ),
    doc="``torch.atan2``: the angle of the point ``(other, input)``, quadrant-aware.",
)
arctan2 = native_function(
    "arctan2(Tensor self, Tensor other) -> Tensor",
    "arctan2_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "arctan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "arctan2": atan2.overloads["atan2"],
        "arctan2_": atan2.overloads["atan2_"],
        "arctan2.out": atan2.overloads["atan2.out"],
    },
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("arctan2.out"),
    doc="``torch.arctan2``: NumPy's name for ``atan2``.",
)


def _real_only(fn_name: str):
    def check(input, other, out=None):
        if input._dtype.category == COMPLEX or other._dtype.category == COMPLEX:
            raise RuntimeError(f"{fn_name} not implemented for complex tensors.")

    return check


def _selected_grads(loses_self, loses_other):
    """The gradient goes to the selected operand; a tie splits it in half.

    ``loses_self(self, other)`` is where ``self`` was not selected.
    """

    def grad_for(loses):
        def grad_of(grad, saved):
            a, b = saved.self, saved.other
            shared = where(a == b, grad / 2, grad)
            return where(loses(a, b), 0.0, shared)

        return grad_of

    return {"self": grad_for(loses_self), "other": grad_for(loses_other)}


def _nan_avoiding_grads(self_selected):
    """fmax/fmin pick the number over a NaN: all the gradient goes to the one picked
    (``self`` on ties), nothing is split."""

    def picked(a, b):
        return self_selected(a, b).logical_or(b.isnan())

    return {
        "self": lambda grad, saved: where(picked(saved.self, saved.other), grad, 0.0),
        "other": lambda grad, saved: where(picked(saved.self, saved.other), 0.0, grad),
    }


def _binary(numpy_function):
    """The elementwise kernel of a NumPy function of two arrays."""
    return elementwise(lambda out, a, b: numpy_function(a, b, out=out))


maximum = native_function(
    "maximum(Tensor self, Tensor other) -> Tensor",
    "maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_binary(np.maximum),
    check=_real_only("maximum"),
    derivative=Derivative("MaximumBackward0", save=("self", "other"),
                          grads=_selected_grads(lambda a, b: a < b, lambda a, b: a > b)),
    doc="``torch.maximum``: the larger element; NaN wins.",
)  # fmt: skip
minimum = native_function(
    "minimum(Tensor self, Tensor other) -> Tensor",
    "minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_binary(np.minimum),
    check=_real_only("minimum"),
    derivative=Derivative("MinimumBackward0", save=("self", "other"),
                          grads=_selected_grads(lambda a, b: a > b, lambda a, b: a < b)),
    doc="``torch.minimum``: the smaller element; NaN wins.",
)  # fmt: skip
fmax = native_function(
    "fmax(Tensor self, Tensor other) -> Tensor",
    "fmax.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_binary(np.fmax),
    check=_real_only("fmax"),
    derivative=Derivative("FmaxBackward0", save=("self", "other"),
                          grads=_nan_avoiding_grads(lambda a, b: a >= b)),
    doc="``torch.fmax``: the larger element; NaN loses to a number.",
)  # fmt: skip
fmin = native_function(
    "fmin(Tensor self, Tensor other) -> Tensor",
    "fmin.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_binary(np.fmin),
    check=_real_only("fmin"),
    derivative=Derivative("FminBackward0", save=("self", "other"),
                          grads=_nan_avoiding_grads(lambda a, b: a <= b)),
    doc="``torch.fmin``: the smaller element; NaN loses to a number.",
)  # fmt: skip


# --- heaviside: the unit step ----------------------------------------------------------


def _check_heaviside(input, values, out=None):
    """heaviside's meta function: no complex tensor, and one dtype for all (``out=`` too)."""
    tensors = (input, values) if out is None else (input, values, out)
    if any(t._dtype.category == COMPLEX for t in tensors):
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if any(t._dtype is not input._dtype for t in tensors):
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")


@dispatch_dtypes("heaviside_cpu", ALL_TYPES | {"bool"})
def _heaviside_loop(out, x, values):
    # ``x == 0 ? values : x > 0``: NaN is not above 0, so its step is 0 (NumPy's is NaN).
    np.copyto(out, np.where(x == 0, values, x > 0), casting="unsafe")


# derivatives.yaml has no formula: the node PyTorch records (NotImplemented) refuses.
heaviside = native_function(
    "heaviside(Tensor self, Tensor values) -> Tensor",
    "heaviside_(Tensor(a!) self, Tensor values) -> Tensor(a!)",
    "heaviside.out(Tensor self, Tensor values, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_heaviside_loop),
    check=_check_heaviside,
    doc="``torch.heaviside``: 0 where ``input < 0``, 1 where ``input > 0``, and ``values`` "
    "where ``input == 0``.",
)


# --- hypot: the worked example of docs/adding-an-operator.md ----------------------------


@dispatch_dtypes("hypot_cpu", FLOATING_TYPES)
def _hypot_kernel(out, a, b):
    np.hypot(a, b, out=out)


hypot = native_function(
    "hypot(Tensor self, Tensor other) -> Tensor",
    "hypot_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "hypot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_hypot_kernel),
    # d sqrt(a² + b²) / da = a / sqrt(a² + b²): the result is the denominator.
    derivative=Derivative(
        "HypotBackward0",
        save=("self", "other", "result"),
        grads={
            "self": lambda grad, saved: grad * saved.self / saved.result,
            "other": lambda grad, saved: grad * saved.other / saved.result,
        },
    ),
    doc="``torch.hypot``: ``sqrt(input**2 + other**2)`` elementwise, broadcast and promoted.",
)


# --- xlogy: x * log(y), with 0 * log(0) taken as 0 -----------------------------------


@dispatch_dtypes("xlogy_cpu", FLOATING_TYPES)
def _xlogy_kernel(out, x, y):
    # ``x * log(y)`` but 0 where x is 0 (even for y = 0, whose log is -inf), unless y is
    # nan: the convention that makes entropies and KL divergences finite.
    zero = (x == 0) & ~np.isnan(y)  # before ``out``, which may be ``x`` itself, is written
    with np.errstate(divide="ignore", invalid="ignore"):
        np.multiply(x, np.log(y), out=out)
    np.copyto(out, 0, where=zero)


def _xlogy_structured(operands, out, inplace):
    # Integers and bools compute in the default float dtype (``promote_integer_inputs_to_float``).
    return TensorIterator("xlogy", operands, out=out, inplace=inplace,
                          promote_integer_inputs_to_float=True).run(_xlogy_kernel)  # fmt: skip


def _xlogy_self_grad(grad, saved):
    """d(x log y)/dx = log y, except where x = 0 and y <= 0 (the 0 the forward chose)."""
    return xlogy(grad, saved.other).masked_fill((saved.self == 0.0) & (saved.other <= 0.0), 0.0)


def _xlogy_scalar_other_grad(grad, saved):
    slope = xlogy(grad, saved.other)
    return slope if saved.other > 0 else slope.masked_fill(saved.self == 0.0, 0.0)


xlogy = native_function(
    "xlogy.Tensor(Tensor self, Tensor other) -> Tensor",
    "xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor",
    "xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor",
    "xlogy_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "xlogy_.Scalar_Other(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "xlogy.OutTensor(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "xlogy.OutScalar_Self(Scalar self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "xlogy.OutScalar_Other(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=structured(_xlogy_structured),
    derivatives={
        "xlogy.Tensor": Derivative(
            "XlogyBackward0",
            save=("self", "other"),
            grads={
                "self": _xlogy_self_grad,
                "other": lambda grad, saved: grad * saved.self / saved.other,
            },
        ),
        "xlogy.Scalar_Self": Derivative(
            "XlogyBackward1",
            save=("self", "other"),
            grads={"other": lambda grad, saved: grad * saved.self / saved.other},
        ),
        "xlogy.Scalar_Other": Derivative(
            "XlogyBackward2", save=("self", "other"), grads={"self": _xlogy_scalar_other_grad}
        ),
    },
    inplace_variants="function, method",
    doc="``torch.xlogy``: ``input * log(other)``, 0 where ``input`` is 0 (unless "
    "``other`` is nan).",
)
xlogy_ = xlogy.inplace


# --- logaddexp, logaddexp2: log(e^a + e^b) without overflow -----------------------------


def _logaddexp_real(a, b, exp, log_scale=1.0):
    """``max(a, b) + log1p(exp(-|a - b|)) * log_scale``; equal infinities are their own
    answer (inf - inf would be NaN)."""
    larger = np.maximum(a, b)
    value = larger + np.log1p(exp(-np.abs(a - b))) * log_scale
    return np.where(np.isinf(a) & (a == b), a, value)


def _logaddexp_complex(a, b):
    """ATen's ``_log_add_exp_helper``: taken from the operand of larger real part, NaN if
    either is NaN, and infinite real parts of one sign handled apart."""
    a_first = a.real < b.real
    low, high = np.where(a_first, a, b), np.where(a_first, b, a)
    value = np.log1p(np.exp(low - high)) + high
    both_infinite = ~np.isfinite(low.real) & (low.real == high.real)
    value = np.where(both_infinite & (low.real < 0), low, value)
    value = np.where(both_infinite & (low.real > 0), np.log(np.exp(low) + np.exp(high)), value)
    either_nan = np.isnan(a) | np.isnan(b)
    return np.where(either_nan, complex(math.nan, math.nan), value)


@dispatch_dtypes("logaddexp_cpu", FLOATING_TYPES | COMPLEX_TYPES)
@ignoring_float_errors(all="ignore")
def _logaddexp_loop(out, a, b):
    if out.dtype.kind == "c":
        np.copyto(out, _logaddexp_complex(a, b))
    else:
        np.copyto(out, _logaddexp_real(opmath(a), opmath(b), np.exp), casting="unsafe")


@dispatch_dtypes("logaddexp2_cpu", FLOATING_TYPES)
@ignoring_float_errors(all="ignore")
def _logaddexp2_loop(out, a, b):
    a, b = opmath(a), opmath(b)
    inverse_ln2 = a.dtype.type(1 / math.log(2.0))
    np.copyto(out, _logaddexp_real(a, b, np.exp2, inverse_ln2), casting="unsafe")


# d log(e^a + e^b) / da = e^a / (e^a + e^b) = 1 / (1 + e^(b - a)); likewise in base 2.
logaddexp = native_function(
    "logaddexp(Tensor self, Tensor other) -> Tensor",
    "logaddexp.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_logaddexp_loop),
    derivative=Derivative(
        "LogaddexpBackward0",
        save=("self", "other"),
        grads={
            "self": lambda grad, saved: grad / (1 + (saved.other - saved.self).exp()).conj(),
            "other": lambda grad, saved: grad / (1 + (saved.self - saved.other).exp()).conj(),
        },
        complex=True,
    ),
    doc="``torch.logaddexp``: ``log(exp(input) + exp(other))``, computed without overflow.",
)
logaddexp2 = native_function(
    "logaddexp2(Tensor self, Tensor other) -> Tensor",
    "logaddexp2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_logaddexp2_loop),
    derivative=Derivative(
        "Logaddexp2Backward0",
        save=("self", "other"),
        grads={
            "self": lambda grad, saved: grad / (1 + pow(2, saved.other - saved.self)),
            "other": lambda grad, saved: grad / (1 + pow(2, saved.self - saved.other)),
        },
    ),
    doc="``torch.logaddexp2``: ``log2(2**input + 2**other)``, computed without overflow.",
)


# --- lerp, addcmul, addcdiv ----------------------------------------------------------


def _check_lerp(input, end, weight, out=None):
    """lerp's meta function: one floating dtype for all, a weight the dtype can hold."""
    expected = input._dtype.name
    named = [("end", end)] + ([("weight", weight)] if isinstance(weight, Tensor) else [])
    for arg_name, tensor in named:
        if tensor._dtype is not input._dtype:
            raise RuntimeError(
                f"expected dtype {CPP_TYPE_NAMES[expected]} for `{arg_name}` but got dtype "
                f"{CPP_TYPE_NAMES[tensor._dtype.name]}"
            )
    if input._dtype.category < FLOATING:
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input._dtype.scalar_name}'")
    if isinstance(weight, complex) and not input.is_complex():
        # The weight is converted to the input's dtype, not promoted with it.
        raise RuntimeError(
            f"value cannot be converted to type {CPP_TYPE_NAMES[expected]} without overflow"
        )


@ignoring_float_errors(invalid="ignore", over="ignore")
def _lerp_kernel(out, start, end, weight):
    # PyTorch's formula, stable at both ends: from ``start`` when |weight| < 0.5,
    # from ``end`` otherwise, so lerp(a, b, 1) is exactly b.
    difference = np.asarray(end - start)  # (0-dim inputs give a NumPy scalar)
    if weight.ndim == 0:
        # One weight (the optimizers' ``exp_avg.lerp_(grad, 0.1)``): one formula for every
        # element, computed in ``difference`` and written once; ``out`` may be ``start``.
        if abs(weight) < 0.5:
            np.multiply(difference, weight, out=difference)
            np.add(start, difference, out=out, casting="unsafe")
        else:
            np.multiply(difference, 1 - weight, out=difference)
            np.subtract(end, difference, out=out, casting="unsafe")
        return
    from_start = start + weight * difference
    from_end = end - difference * (1 - weight)
    np.copyto(out, np.where(np.abs(weight) < 0.5, from_start, from_end), casting="unsafe")


_FLOATING_AND_COMPLEX = FLOATING_TYPES | COMPLEX_TYPES

# lerp = self + weight * (end - self): linear in self and end, and in weight.
_LERP_GRADS = {
    "self": lambda grad, saved: grad * (1 - saved.weight),
    "end": lambda grad, saved: grad * saved.weight,
}
lerp = native_function(
    "lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor",
    "lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)",
    "lerp.Tensor_out(Tensor self, Tensor end, Tensor weight, *, Tensor(a!) out) -> Tensor(a!)",
    "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
    "lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)",
    "lerp.Scalar_out(Tensor self, Tensor end, Scalar weight, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "lerp.Tensor": elementwise(
            dispatch_dtypes("lerp_kernel_tensor", _FLOATING_AND_COMPLEX)(_lerp_kernel)
        ),
        "lerp.Scalar": elementwise(
            dispatch_dtypes("lerp_kernel_scalar", _FLOATING_AND_COMPLEX)(_lerp_kernel),
            scalar_parameters=True,
        ),
    },
    check=_check_lerp,
    derivatives={
        "lerp.Tensor": Derivative(
            "LerpBackward1",
            save=("self", "end", "weight"),
            reads={"weight": ("self", "end")},  # weight is kept either way, as in torch
            grads={**_LERP_GRADS, "weight": lambda grad, saved: grad * (saved.end - saved.self)},
        ),
        "lerp.Scalar": Derivative("LerpBackward0", save=("weight",), grads=_LERP_GRADS),
    },
    doc="``torch.lerp``: ``input + weight * (end - input)``; all of one floating dtype.",
)


def _check_addcdiv(input, tensor1, tensor2, value=1, out=None):
    if all(t._dtype.category <= INTEGRAL for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  "
            "release addcdiv will perform a true division of tensor1 and tensor2. The "
            "historic addcdiv behavior can be implemented as (input + value * "
            "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
            "behavior is just the latter implementation: (input + value * tensor1 / "
            "tensor2), for all dtypes."
        )


def _scalar_in(dtype: np.dtype, value) -> np.ndarray:
    """``value`` converted to the compute dtype first, as ``Scalar.to<scalar_t>()`` does."""
    if dtype.kind in "iu" and isinstance(value, float | complex):
        value = int(value.real)
    return np.asarray(value).astype(dtype)


@dispatch_dtypes("addcmul_cpu_out", ALL_TYPES_AND_COMPLEX)
@ignoring_float_errors(over="ignore", invalid="ignore")
def _addcmul_kernel(out, input, tensor1, tensor2, value=1):
    product = np.multiply(tensor1, tensor2, dtype=out.dtype)
    product *= _scalar_in(out.dtype, value)  # (in place, unless 0-dim inputs made a scalar)
    np.add(input, product, out=out, casting="unsafe")


@dispatch_dtypes("addcdiv_cpu_out", FLOATING_TYPES | COMPLEX_TYPES)
@ignoring_float_errors(divide="ignore", over="ignore", invalid="ignore")
def _addcdiv_kernel(out, input, tensor1, tensor2, value=1):
    quotient = np.true_divide(tensor1, tensor2, dtype=out.dtype)
    quotient *= _scalar_in(out.dtype, value)  # (in place, unless 0-dim inputs made a scalar)
    np.add(input, quotient, out=out, casting="unsafe")


addcmul = native_function(
    "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    "addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)",
    "addcmul.out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_addcmul_kernel),
    derivative=Derivative(
        "AddcmulBackward0",
        save=("tensor1", "tensor2", "value"),
        reads={"tensor1": ("tensor2",), "tensor2": ("tensor1",)},
        grads={
            "self": lambda grad, saved: grad,
            "tensor1": lambda grad, saved: grad * (saved.tensor2 * saved.value),
            "tensor2": lambda grad, saved: grad * (saved.tensor1 * saved.value),
        },
    ),
    doc="``torch.addcmul``: ``input + value * tensor1 * tensor2``.",
)
addcdiv = native_function(
    "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    "addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)",
    "addcdiv.out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_addcdiv_kernel),
    check=_check_addcdiv,
    derivative=Derivative(
        "AddcdivBackward0",
        save=("tensor1", "tensor2", "value"),
        reads={"tensor2": ("tensor1",)},  # tensor2 is kept either way, as in torch
        grads={
            "self": lambda grad, saved: grad,
            "tensor1": lambda grad, saved: grad * (saved.value / saved.tensor2),
            "tensor2": lambda grad, saved: (
                -grad * (saved.value * saved.tensor1 / (saved.tensor2 * saved.tensor2))
            ),
        },
    ),
    doc="``torch.addcdiv``: ``input + value * tensor1 / tensor2``.",
)

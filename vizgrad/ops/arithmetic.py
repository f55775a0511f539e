"""Arithmetic: ``add``, ``sub``, ``mul``, ``div``, ``pow``… (PyTorch's ``BinaryOps.cpp``).

Each operator is one ``pointwise`` declaration: its schema, its NumPy kernel (which
writes into the output the TensorIterator prepared), and the checks PyTorch makes.
Broadcasting, promotion, output allocation and the in-place/``out=`` variants come
from the shared machinery, never from here.

Kernels that PyTorch compiles only for some dtypes are wrapped in
``dispatch_dtypes``: called with another dtype they raise PyTorch's
``"div_floor_cpu" not implemented for 'Bool'``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import FUNCTIONAL, OUT
from ..dtypes import BOOL, C_TYPE_NAMES, COMPLEX, CPP_TYPE_NAMES, FLOATING, INTEGRAL
from ..promotion import result_type
from ..shape import contiguous_strides
from ..tensor import Tensor
from .declaration import native_function
from .elementwise import elementwise
from .iterator import (
    ALL_TYPES,
    ALL_TYPES_AND_COMPLEX,
    COMPLEX_TYPES,
    FLOATING_TYPES,
    TensorIterator,
    dispatch_dtypes,
    resize_output,
)
from .registry import bind_method, check_tensor, declare, pointwise

__all__ = [
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
    "floor_divide", "remainder", "fmod", "pow", "rsub", "atan2", "arctan2",
    "maximum", "minimum", "fmax", "fmin", "lerp", "addcmul", "addcdiv", "hypot",
]  # fmt: skip


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


def _check_alpha(input, other, *, alpha=1, out=None):
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
_FLOAT_OVERFLOW_IS_AN_ANSWER = {"over": "ignore", "invalid": "ignore"}


def _add_kernel(out, a, b, alpha=1):
    with np.errstate(**_FLOAT_OVERFLOW_IS_AN_ANSWER):
        if alpha != 1:
            b = np.multiply(b, np.asarray(alpha, dtype=out.dtype), dtype=out.dtype)
        np.add(a, b, out=out)


def _sub_kernel(out, a, b, alpha=1):
    with np.errstate(**_FLOAT_OVERFLOW_IS_AN_ANSWER):
        if alpha != 1:
            b = np.multiply(b, np.asarray(alpha, dtype=out.dtype), dtype=out.dtype)
        np.subtract(a, b, out=out)


def _mul_kernel(out, a, b):
    with np.errstate(**_FLOAT_OVERFLOW_IS_AN_ANSWER):
        np.multiply(a, b, out=out)


def _check_sub(input, other, *, alpha=1, out=None):
    """Subtracting booleans has no meaning: PyTorch points to ``^`` and ``~`` instead.

    A Python ``True`` counts as a bool tensor here (it is wrapped into one).
    """
    bool_count = sum(_is_bool_operand(x) for x in (input, other))
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
    _check_alpha(input, other, alpha=alpha)


def _times_alpha(grad, saved):
    return grad if saved.alpha == 1 else grad * saved.alpha


def _where(condition, input, other):
    """``torch.where`` for the formulas below (looked up when a backward runs, because
    ``logical.py``, where it lives, imports this module)."""
    from .logical import where

    return where(condition, input, other)


def _zeros_like(grad, saved):
    """The gradient of a step function (``floor``, ``div(..., rounding_mode='floor')``):
    zero almost everywhere, and PyTorch takes it to be zero everywhere."""
    from .creation import zeros_like

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
    ),
    numbers_as_tensors=True,
    doc="``torch.sub``: ``input - alpha * other``, broadcast and promoted.",
)
subtract = sub
bind_method("subtract", Tensor.sub)
bind_method("subtract_", Tensor.sub_)

mul = native_function(
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_mul_kernel),
    # The product rule: each factor's gradient is grad times the other factor.
    derivative=Derivative(
        "MulBackward0",
        save=("self", "other"),
        reads={"self": ("other",), "other": ("self",)},
        grads={
            "self": lambda grad, saved: grad * saved.other,
            "other": lambda grad, saved: grad * saved.self,
        },
    ),
    numbers_as_tensors=True,
    doc="``torch.mul``: elementwise product, broadcast and promoted.",
)
multiply = mul
bind_method("multiply", Tensor.mul)
bind_method("multiply_", Tensor.mul_)


def _rsub_kernel(out, a, b, alpha=1):
    _sub_kernel(out, b, a, alpha)


# d(other - alpha*self) = -alpha*grad for self, grad for other.
_RSUB_SELF_GRAD = {"self": lambda grad, saved: -_times_alpha(grad, saved)}
_rsub = pointwise(
    "rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    _rsub_kernel,
    options={"alpha": 1},
    check=_check_sub,
    inplace=False,
    out=False,
    method=False,
    derivative=Derivative(
        "RsubBackward0",
        save=("alpha",),
        grads={**_RSUB_SELF_GRAD, "other": lambda grad, saved: grad},
    ),
    doc="``torch.rsub``: ``other - alpha * input`` (subtraction with the operands reversed).",
)
# ``2 - t`` reaches the Scalar overload (its own node, RsubBackward1). PyTorch's schema
# takes ``alpha`` by position too; ``pointwise`` wants options keyword-only.
_rsub_scalar = pointwise(
    "rsub.Scalar(Tensor self, Scalar other, *, Scalar alpha=1) -> Tensor",
    _rsub_kernel,
    options={"alpha": 1},
    check=_check_sub,
    inplace=False,
    out=False,
    method=False,
    derivative=Derivative("RsubBackward1", save=("alpha",), grads=_RSUB_SELF_GRAD),
)


def rsub(input, other, *, alpha=1, **unexpected) -> Tensor:
    """``torch.rsub``: ``other - alpha * input``; it has no ``out=`` form."""
    if unexpected:
        kinds = ", ".join(type(x).__name__ for x in (input, other))
        keywords = ", ".join(f"{k}={type(v).__name__}" for k, v in unexpected.items())
        raise TypeError(
            f"rsub() received an invalid combination of arguments - got ({kinds}, {keywords}), "
            "but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n"
            " * (Tensor input, Number other, Number alpha = 1)"
        )
    overload = _rsub_scalar if _is_python_number(other) else _rsub
    return overload(input, other, alpha=alpha)


# --- division ------------------------------------------------------------------------


def _true_divide_kernel(out, a, b):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
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


_ROUNDING_MODES = (None, "trunc", "floor")


def _check_rounding_mode(input, other, rounding_mode=None):
    if rounding_mode not in _ROUNDING_MODES:
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


# d(a/b)/da = 1/b; d(a/b)/db = -a/b**2.
_TRUE_DIVISION_GRADS = {
    "self": lambda grad, saved: grad / saved.other,
    "other": lambda grad, saved: -grad * saved.self / (saved.other * saved.other),
}


def _rounded_division_grad(param: str):
    # A rounded quotient is a step function of both operands: zero gradients.
    def grad_of(grad, saved):
        if saved.rounding_mode is None:
            return _TRUE_DIVISION_GRADS[param](grad, saved)
        return _zeros_like(grad, saved)

    return grad_of


# True division always produces floating point: ``int / int`` is float32.
_true_divide = pointwise(
    "div.Tensor(Tensor self, Tensor other) -> Tensor",
    _true_divide_kernel,
    promote_integer_inputs_to_float=True,
    method=False,
    derivative=Derivative(
        "DivBackward0",
        save=("self", "other"),
        grads=_TRUE_DIVISION_GRADS,
        reads={"self": ("other",), "other": ("self", "other")},
    ),
)
_divide_rounding = pointwise(
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    _div_mode_kernel,
    options={"rounding_mode": None},
    # An explicit ``rounding_mode=None`` is true division, which makes floats of integers.
    promote_integer_inputs_to_float=lambda rounding_mode=None: rounding_mode is None,
    check=_check_rounding_mode,
    method=False,
    derivative=Derivative(
        "DivBackward2",
        save=("self", "other", "rounding_mode"),
        grads={"self": _rounded_division_grad("self"), "other": _rounded_division_grad("other")},
    ),
)

# PyTorch's argument parser tells a missing ``rounding_mode`` from an explicit None:
# ``div(a, b)`` calls div.Tensor, ``div(a, b, rounding_mode=None)`` div.Tensor_mode
# (the same quotient, recorded as DivBackward2 instead of DivBackward0).
_NOT_GIVEN = object()


def _division_overload(rounding_mode):
    if rounding_mode is _NOT_GIVEN:
        return _true_divide, {}
    return _divide_rounding, {"rounding_mode": rounding_mode}


def div(input, other, *, rounding_mode=_NOT_GIVEN, out=None) -> Tensor:
    """``torch.div``: true division, or rounded with ``rounding_mode='trunc'``/``'floor'``.

    True division promotes integers to the default float dtype; the rounded modes keep
    the promoted input dtype (``int // int`` stays an integer).
    """
    overload, options = _division_overload(rounding_mode)
    return overload(input, other, out=out, **options)


def _div_method(self, other, *, rounding_mode=_NOT_GIVEN):
    return div(self, other, rounding_mode=rounding_mode)


def _div_inplace_method(self, other, *, rounding_mode=_NOT_GIVEN):
    overload, options = _division_overload(rounding_mode)
    return overload.inplace(self, other, **options)


def true_divide(input, other, *, out=None) -> Tensor:
    """``torch.true_divide``: ``div`` with ``rounding_mode=None``."""
    return _true_divide(input, other, out=out)


def _true_divide_method(self, other):
    return _true_divide(self, other)


divide = div
for _name in ("div", "divide"):
    bind_method(_name, _div_method)
    bind_method(_name + "_", _div_inplace_method)
bind_method("true_divide", _true_divide_method)
bind_method("true_divide_", _true_divide.inplace)


floor_divide = pointwise(
    "floor_divide(Tensor self, Tensor other) -> Tensor",
    _div_floor_kernel,
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


def _remainder_family(fn_name: str, kernel, rounding_mode: str, doc: str):
    """``op.Tensor`` and ``op.Scalar`` (``t % 2``: its own overload and node).

    ``a - b * q`` with ``q = div(a, b, rounding_mode)`` piecewise constant: the gradient
    is ``grad`` for ``a`` and ``-grad * q`` for ``b``.
    """
    self_grad = {"self": lambda grad, saved: grad}
    name = fn_name.capitalize()
    tensor_version = pointwise(
        f"{fn_name}.Tensor(Tensor self, Tensor other) -> Tensor",
        kernel,
        method=False,
        derivative=Derivative(
            f"{name}Backward1",
            save=("self", "other"),
            reads={"self": (), "other": ("self", "other")},
            grads={
                **self_grad,
                "other": lambda grad, saved: (
                    -grad * div(saved.self, saved.other, rounding_mode=rounding_mode)
                ),
            },
        ),
        doc=doc,
    )
    scalar_version = pointwise(
        f"{fn_name}.Scalar(Tensor self, Scalar other) -> Tensor",
        kernel,
        method=False,
        derivative=Derivative(f"{name}Backward0", grads=self_grad),
    )

    def pick(other):
        return scalar_version if _is_python_number(other) else tensor_version

    bind_method(fn_name, lambda self, other: pick(other)(self, other))
    bind_method(fn_name + "_", lambda self, other: pick(other).inplace(self, other))
    return pick


_remainder_overload = _remainder_family(
    "remainder", _remainder_kernel, "floor",
    "``torch.remainder``: the modulus with the sign of the divisor (Python's ``%``).",
)  # fmt: skip
_fmod_overload = _remainder_family(
    "fmod", _fmod_kernel, "trunc",
    "``torch.fmod``: the C remainder, with the sign of the dividend.",
)  # fmt: skip


def fmod(input, other, *, out=None) -> Tensor:
    """``torch.fmod``: the C remainder, with the sign of the dividend."""
    return _fmod_overload(other)(input, other, out=out)


# --- overloads whose first operand is a Python number ------------------------------


def scalar_self_overload(schema: str, kernel, derivative=None, **iterator_options):
    """Declare ``op.Scalar(Scalar self, Tensor other)`` and its ``out=`` twin.

    ``pow(2, t)`` and ``remainder(5, t)`` take a Python number first; the same
    TensorIterator lines it up with the tensor (it counts as a wrapped number).
    """
    fn_name = schema.split("(", 1)[0].split(".")[0]

    def functional_kernel(self, other):
        return TensorIterator(fn_name, (self, other), **iterator_options).run(kernel)

    def out_kernel(self, other, *, out):
        it = TensorIterator(fn_name, (self, other), out=out, **iterator_options)
        return it.run(kernel)

    out_schema = schema.replace("(", "_out(", 1).replace(") ->", ", *, Tensor(a!) out) ->")
    functional_op = declare(schema, FUNCTIONAL, functional_kernel, derivative)
    out_op = declare(out_schema, OUT, out_kernel)

    def call(self, other, out=None):
        check_tensor(fn_name, other, "other", 2)
        if out is None:
            return functional_op(self, other)
        check_tensor(fn_name, out, "out", 3)
        return out_op(self, other, out=out)

    return call


# PyTorch gives this overload no derivative: ``(5 % t).backward()`` raises.
_remainder_scalar_self = scalar_self_overload(
    "remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", _remainder_kernel
)


def remainder(input, other, *, out=None) -> Tensor:
    """``torch.remainder``: also accepts a Python number as ``input`` (what ``5 % t`` calls)."""
    if isinstance(input, numbers.Number) and not isinstance(input, Tensor):
        return _remainder_scalar_self(input, other, out=out)
    return _remainder_overload(other)(input, other, out=out)


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


def _check_pow_scalar(input, exponent):
    if input._dtype.category <= INTEGRAL:
        if isinstance(exponent, int) and not isinstance(exponent, bool) and exponent < 0:
            raise RuntimeError(_NEGATIVE_POWER_MESSAGE)
        check_scalar_fits("pow", exponent, result_type(input, exponent))


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


# --- pow's derivatives (``pow_backward``, ``pow_backward_self``, ``pow_backward_exponent``)
# d(x ** p)/dx = p * x ** (p - 1);  d(b ** y)/dy = b ** y * log(b).


def _pow_scalar_exponent_grad(grad, saved):
    exponent = saved.exponent
    if exponent == 0:  # x ** 0 is the constant 1, whatever x (even 0 ** 0)
        from .creation import zeros_like

        return zeros_like(saved.self)
    exponent = complex(exponent) if isinstance(exponent, complex) else float(exponent)
    return grad * (exponent * saved.self.pow(exponent - 1))


def _pow_tensor_self_grad(grad, saved):
    exponent = saved.exponent
    # Where the exponent is 0 the result is constantly 1: no gradient, even at x = 0
    # (where exponent * x ** -1 would be 0 * inf = nan).
    return _where(exponent == 0, 0.0, grad * (exponent * saved.self.pow(exponent - 1)))


def _pow_tensor_exponent_grad(grad, saved):
    base, result = saved.self, saved.result
    if base._dtype is not result._dtype:  # an integer base: take its log in the result's dtype
        base = base.to(result._dtype)
    # 0 ** y is 0 for every y > 0 (and 1 at y = 0): PyTorch calls the slope 0 there
    # rather than 0 * log(0) = nan.
    at_zero = (base == 0).logical_and(saved.exponent >= 0)
    return grad * _where(at_zero, 0.0, result * base.log())


def _log_of_number(value) -> float:
    """``Scalar.log()``: log(0) is -inf and the log of a negative number is nan."""
    if value > 0:
        return math.log(value)
    return -math.inf if value == 0 else math.nan


def _pow_scalar_base_grad(grad, saved):
    base, exponent, result = saved.self, saved.exponent, saved.result
    slope = result * _log_of_number(base)
    if base == 0:  # 0 ** y: flat for y >= 0, as for a tensor base
        slope = _where(exponent >= 0, 0.0, slope)
    return grad * slope


_pow = pointwise(
    "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    _pow_kernel,
    method=False,
    derivative=Derivative(
        "PowBackward1",
        save=("self", "exponent", "result"),
        grads={"self": _pow_tensor_self_grad, "exponent": _pow_tensor_exponent_grad},
    ),
    doc="``torch.pow``: ``input ** exponent``, broadcast and promoted.",
)
_pow_tensor_scalar = pointwise(
    "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    _pow_tensor_scalar_kernel,
    check=_check_pow_scalar,
    method=False,
    derivative=Derivative(
        "PowBackward0", save=("self", "exponent"), grads={"self": _pow_scalar_exponent_grad}
    ),
)


def _pow_scalar_kernel(self, exponent, out=None):
    """pow.Scalar's output is laid out contiguously, whatever the exponent's strides."""
    dtype = out._dtype if out is not None else result_type(self, exponent)
    if out is None:
        out = Tensor._empty_strided(exponent._size, contiguous_strides(exponent._size), dtype)
    if self == 1 and not isinstance(
        self, bool
    ):  # 1 ** x is 1 for every x: PyTorch fills without computing (or checking)
        resize_output(out, exponent._size)
        out._array.fill(1)
        return out
    return TensorIterator("pow", (self, exponent), out=out).run(_pow_kernel)


_pow_scalar = declare(
    "pow.Scalar(Scalar self, Tensor exponent) -> Tensor",
    FUNCTIONAL,
    _pow_scalar_kernel,
    Derivative(
        "PowBackward2",
        save=("self", "exponent", "result"),
        grads={"exponent": _pow_scalar_base_grad},
    ),
)
_pow_scalar_out = declare(
    "pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)",
    OUT,
    _pow_scalar_kernel,
)


def _is_python_number(x) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


def pow(input, exponent, *, out=None) -> Tensor:  # noqa: A001 - PyTorch's name
    """``torch.pow``: tensor ** tensor, tensor ** number, or number ** tensor."""
    if _is_python_number(input):
        check_tensor("pow", exponent, "exponent", 2)
        if out is None:
            return _pow_scalar(input, exponent)
        return _pow_scalar_out(input, exponent, out=out)
    overload = _pow_tensor_scalar if _is_python_number(exponent) else _pow
    return overload(input, exponent, out=out)


def _pow_inplace_method(self, exponent):
    overload = _pow_tensor_scalar if _is_python_number(exponent) else _pow
    return overload.inplace(self, exponent)


bind_method("pow", lambda self, exponent: pow(self, exponent))
bind_method("pow_", _pow_inplace_method)


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


atan2 = pointwise(
    "atan2(Tensor self, Tensor other) -> Tensor",
    _atan2_kernel,
    promote_integer_inputs_to_float=True,
    check=lambda input, other: check_tensor("atan2", other, "other", 2),
    derivative=Derivative(
        "Atan2Backward0",
        save=("self", "other"),
        grads={"self": _atan2_grads(+1), "other": _atan2_grads(-1)},
    ),
    doc="``torch.atan2``: the angle of the point ``(other, input)``, quadrant-aware.",
)


def arctan2(input, other, *, out=None) -> Tensor:
    """``torch.arctan2``: NumPy's name for ``atan2``."""
    check_tensor("arctan2", other, "other", 2)
    return atan2(input, other, out=out)


bind_method("arctan2", lambda self, other: arctan2(self, other))
bind_method("arctan2_", Tensor.atan2_)


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


def _tensor_only_and_real(fn_name: str):
    def check(input, other):
        check_tensor(fn_name, other, "other", 2)
        if input._dtype.category == COMPLEX or other._dtype.category == COMPLEX:
            raise RuntimeError(f"{fn_name} not implemented for complex tensors.")

    return check


def _extremum(fn_name: str, numpy_function, doc: str, grads):
    return pointwise(
        f"{fn_name}(Tensor self, Tensor other) -> Tensor",
        lambda out, a, b: numpy_function(a, b, out=out),
        inplace=False,
        check=_tensor_only_and_real(fn_name),
        derivative=Derivative(
            f"{fn_name.capitalize()}Backward0", save=("self", "other"), grads=grads
        ),  # fmt: skip
        doc=doc,
    )


def _selected_grads(loses_self, loses_other):
    """The gradient goes to the selected operand; a tie splits it in half.

    ``loses_self(self, other)`` is where ``self`` was not selected.
    """

    def grad_for(loses):
        def grad_of(grad, saved):
            a, b = saved.self, saved.other
            shared = _where(a == b, grad / 2, grad)
            return _where(loses(a, b), 0.0, shared)

        return grad_of

    return {"self": grad_for(loses_self), "other": grad_for(loses_other)}


def _nan_avoiding_grads(self_selected):
    """fmax/fmin pick the number over a NaN: all the gradient goes to the one picked
    (``self`` on ties), nothing is split."""

    def picked(a, b):
        return self_selected(a, b).logical_or(b.isnan())

    return {
        "self": lambda grad, saved: _where(picked(saved.self, saved.other), grad, 0.0),
        "other": lambda grad, saved: _where(picked(saved.self, saved.other), 0.0, grad),
    }


maximum = _extremum(
    "maximum", np.maximum, "``torch.maximum``: the larger element; NaN wins.",
    _selected_grads(lambda a, b: a < b, lambda a, b: a > b),
)  # fmt: skip
minimum = _extremum(
    "minimum", np.minimum, "``torch.minimum``: the smaller element; NaN wins.",
    _selected_grads(lambda a, b: a > b, lambda a, b: a < b),
)  # fmt: skip
fmax = _extremum(
    "fmax", np.fmax, "``torch.fmax``: the larger element; NaN loses to a number.",
    _nan_avoiding_grads(lambda a, b: a >= b),
)  # fmt: skip
fmin = _extremum(
    "fmin", np.fmin, "``torch.fmin``: the smaller element; NaN loses to a number.",
    _nan_avoiding_grads(lambda a, b: a <= b),
)  # fmt: skip


# --- lerp, addcmul, addcdiv ----------------------------------------------------------


def _check_lerp(input, end, weight):
    check_tensor("lerp", end, "end", 2)
    expected = input._dtype.name
    named = [("end", end)] + ([("weight", weight)] if isinstance(weight, Tensor) else [])
    for arg_name, tensor in named:
        if tensor._dtype is not input._dtype:
            raise RuntimeError(
                f"expected dtype {CPP_TYPE_NAMES[expected]} for `{arg_name}` but got dtype "
                f"{CPP_TYPE_NAMES[tensor._dtype.name]}"
            )
    if not isinstance(weight, Tensor | numbers.Number):
        raise TypeError(
            f"lerp(): argument 'weight' (position 3) must be Number or Tensor, not "
            f"{type(weight).__name__}"
        )
    if input._dtype.category < FLOATING:
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input._dtype.scalar_name}'")
    if isinstance(weight, complex) and not input.is_complex():
        # The weight is converted to the input's dtype, not promoted with it.
        raise RuntimeError(
            f"value cannot be converted to type {CPP_TYPE_NAMES[expected]} without overflow"
        )


def _lerp_kernel(out, start, end, weight):
    # PyTorch's formula, stable at both ends: from ``start`` when weight < 0.5,
    # from ``end`` otherwise, so lerp(a, b, 1) is exactly b.
    with np.errstate(invalid="ignore", over="ignore"):
        difference = end - start
        from_start = start + weight * difference
        from_end = end - difference * (1 - weight)
        np.copyto(out, np.where(np.abs(weight) < 0.5, from_start, from_end), casting="unsafe")


_lerp_scalar = dispatch_dtypes("lerp_kernel_scalar", FLOATING_TYPES | COMPLEX_TYPES)
_lerp_tensor = dispatch_dtypes("lerp_kernel_tensor", FLOATING_TYPES | COMPLEX_TYPES)

# lerp = self + weight * (end - self): linear in self and end, and in weight.
_LERP_GRADS = {
    "self": lambda grad, saved: grad * (1 - saved.weight),
    "end": lambda grad, saved: grad * saved.weight,
}
_lerp = pointwise(
    "lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor",
    _lerp_tensor(_lerp_kernel),
    check=_check_lerp,
    method=False,
    derivative=Derivative(
        "LerpBackward1",
        save=("self", "end", "weight"),
        reads={"weight": ("self", "end")},  # weight is kept either way, as in torch
        grads={**_LERP_GRADS, "weight": lambda grad, saved: grad * (saved.end - saved.self)},
    ),
)
_lerp_scalar_weight = pointwise(
    "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
    _lerp_scalar(_lerp_kernel),
    check=_check_lerp,
    method=False,
    derivative=Derivative("LerpBackward0", save=("weight",), grads=_LERP_GRADS),
)


def lerp(input, end, weight, *, out=None) -> Tensor:
    """``torch.lerp``: ``input + weight * (end - input)``; all of one floating dtype."""
    overload = _lerp if isinstance(weight, Tensor) else _lerp_scalar_weight
    return overload(input, end, weight, out=out)


def _lerp_method(self, end, weight):
    return lerp(self, end, weight)


def _lerp_inplace_method(self, end, weight):
    overload = _lerp if isinstance(weight, Tensor) else _lerp_scalar_weight
    return overload.inplace(self, end, weight)


bind_method("lerp", _lerp_method)
bind_method("lerp_", _lerp_inplace_method)


def _check_pointwise_triple(fn_name: str):
    def check(input, tensor1, tensor2, value=1):
        check_tensor(fn_name, tensor1, "tensor1", 2)
        check_tensor(fn_name, tensor2, "tensor2", 3)
        if fn_name == "addcdiv" and all(t._dtype.category <= INTEGRAL for t in (tensor1, tensor2)):
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  "
                "release addcdiv will perform a true division of tensor1 and tensor2. The "
                "historic addcdiv behavior can be implemented as (input + value * "
                "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                "behavior is just the latter implementation: (input + value * tensor1 / "
                "tensor2), for all dtypes."
            )

    return check


def _scalar_in(dtype: np.dtype, value) -> np.ndarray:
    """``value`` converted to the compute dtype first, as ``Scalar.to<scalar_t>()`` does."""
    if dtype.kind in "iu" and isinstance(value, float | complex):
        value = int(value.real)
    return np.asarray(value).astype(dtype)


@dispatch_dtypes("addcmul_cpu_out", ALL_TYPES_AND_COMPLEX)
def _addcmul_kernel(out, input, tensor1, tensor2, value=1):
    with np.errstate(over="ignore", invalid="ignore"):
        product = np.multiply(tensor1, tensor2, dtype=out.dtype)
        np.add(input, _scalar_in(out.dtype, value) * product, out=out, casting="unsafe")


@dispatch_dtypes("addcdiv_cpu_out", FLOATING_TYPES | COMPLEX_TYPES)
def _addcdiv_kernel(out, input, tensor1, tensor2, value=1):
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        quotient = np.true_divide(tensor1, tensor2, dtype=out.dtype)
        np.add(input, _scalar_in(out.dtype, value) * quotient, out=out, casting="unsafe")


addcmul = pointwise(
    "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    _addcmul_kernel,
    options={"value": 1},
    check=_check_pointwise_triple("addcmul"),
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
addcdiv = pointwise(
    "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    _addcdiv_kernel,
    options={"value": 1},
    check=_check_pointwise_triple("addcdiv"),
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

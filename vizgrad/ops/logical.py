"""Logical and bitwise operators, and ``where`` (``BinaryOps.cpp``, ``TensorCompare.cpp``).

*Logical* ops read any dtype as true/false (non-zero is true) and write bool.
*Bitwise* ops work on the bits of integers and bools only: a float operand reaches a
kernel that was never compiled for it, hence ``"bitwise_and_cpu" not implemented for
'Float'``. ``where`` picks from two operands by a bool mask.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..derivatives import NON_DIFFERENTIABLE, Derivative
from ..dispatcher import FUNCTIONAL, OUT
from ..dtypes import bool as bool_dtype
from ..promotion import result_type
from ..tensor import Tensor
from .arithmetic import scalar_self_overload
from .iterator import INTEGRAL_TYPES, TensorIterator, dispatch_dtypes
from .registry import bind_method, check_tensor, declare, pointwise

__all__ = [
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "bitwise_left_shift", "bitwise_right_shift", "where",
]  # fmt: skip

_INTEGRAL_AND_BOOL = INTEGRAL_TYPES | {"bool"}


def _is_python_number(x) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


# --- logical -------------------------------------------------------------------------


def _other_must_be_tensor(fn_name: str):
    def check(input, other):
        check_tensor(fn_name, other, "other", 2)

    return check


def _logical(name: str, numpy_function):
    return pointwise(
        f"{name}(Tensor self, Tensor other) -> Tensor",
        lambda out, a, b: numpy_function(a, b, out=out),
        result_dtype=bool_dtype,
        check=_other_must_be_tensor(name),
        # Truth values have no gradient; in place (``x.logical_and_(y)``) PyTorch records
        # nothing either: ``x`` keeps its history.
        derivative=NON_DIFFERENTIABLE,
        doc=f"``torch.{name}``: non-zero is true; the result is bool (in place: 0/1 in "
        "the input's dtype).",
    )


logical_and = _logical("logical_and", np.logical_and)
logical_or = _logical("logical_or", np.logical_or)
logical_xor = _logical("logical_xor", np.logical_xor)
logical_not = pointwise(
    "logical_not(Tensor self) -> Tensor",
    lambda out, x: np.logical_not(x, out=out),
    result_dtype=bool_dtype,
    derivative=NON_DIFFERENTIABLE,
    doc="``torch.logical_not``: true where the input is zero.",
)


# --- bitwise -------------------------------------------------------------------------


def _bitwise(name: str, kernel_name: str, numpy_function):
    @dispatch_dtypes(kernel_name, _INTEGRAL_AND_BOOL)
    def kernel(out, a, b):
        numpy_function(a, b, out=out)

    tensor_version = pointwise(
        f"{name}.Tensor(Tensor self, Tensor other) -> Tensor",
        kernel,
        method=False,
        derivative=NON_DIFFERENTIABLE,  # bits of integers: nothing to differentiate
        doc=f"``torch.{name}``: on the bits of integers (and bools).",
    )
    scalar_self_version = scalar_self_overload(
        f"{name}.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", kernel, NON_DIFFERENTIABLE
    )

    def function(input, other, *, out=None) -> Tensor:
        if _is_python_number(input):
            return scalar_self_version(input, other, out=out)
        return tensor_version(input, other, out=out)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = tensor_version.__doc__
    bind_method(name, lambda self, other: tensor_version(self, other))
    return function


bitwise_and = _bitwise("bitwise_and", "bitwise_and_cpu", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", "bitwise_or_cpu", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", "bitwise_xor_cpu", np.bitwise_xor)


def _shift_in_range(b: np.ndarray, bits: int) -> np.ndarray:
    return (b >= 0) & (b < bits)


@dispatch_dtypes("lshift_cpu", INTEGRAL_TYPES)
def _left_shift_kernel(out, a, b):
    # C++ leaves shifts by a negative or too-large amount undefined; PyTorch defines them
    # as 0, and NumPy must be kept from seeing them at all.
    bits = a.dtype.itemsize * 8
    in_range = _shift_in_range(b, bits)
    shifted = np.left_shift(a, np.where(in_range, b, 0).astype(a.dtype))
    np.copyto(out, np.where(in_range, shifted, 0), casting="unsafe")


@dispatch_dtypes("rshift_cpu", INTEGRAL_TYPES)
def _right_shift_kernel(out, a, b):
    # Shifting right by too much leaves only the sign: 0, or -1 for a negative number.
    bits = a.dtype.itemsize * 8
    in_range = _shift_in_range(b, bits)
    shifted = np.right_shift(a, np.where(in_range, b, bits - 1).astype(a.dtype))
    if a.dtype.kind == "u":  # no sign to keep: everything is shifted out
        shifted = np.where(in_range, shifted, 0)
    np.copyto(out, shifted, casting="unsafe")


def _shift(name: str, kernel):
    tensor_version = pointwise(
        f"{name}.Tensor(Tensor self, Tensor other) -> Tensor",
        kernel,
        method=False,
        derivative=NON_DIFFERENTIABLE,
        doc=f"``torch.{name}``: shift the bits of integers; out-of-range shifts saturate.",
    )
    scalar_self_version = scalar_self_overload(
        f"{name}.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", kernel, NON_DIFFERENTIABLE
    )

    def function(input, other, *, out=None) -> Tensor:
        if _is_python_number(input):
            return scalar_self_version(input, other, out=out)
        return tensor_version(input, other, out=out)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = tensor_version.__doc__
    bind_method(name, lambda self, other: tensor_version(self, other))
    return function


bitwise_left_shift = _shift("bitwise_left_shift", _left_shift_kernel)
bitwise_right_shift = _shift("bitwise_right_shift", _right_shift_kernel)


@dispatch_dtypes("bitwise_not_cpu", _INTEGRAL_AND_BOOL)
def _bitwise_not_kernel(out, x):
    # ~True is False: on bools, NumPy's invert is already the logical not.
    np.invert(x, out=out)


def _check_exact_out_dtype(input, out) -> None:
    if isinstance(out, Tensor) and out._dtype is not input._dtype:
        raise RuntimeError(
            f"Found dtype {out._dtype.scalar_name} but expected {input._dtype.scalar_name}"
        )


_bitwise_not = pointwise(
    "bitwise_not(Tensor self) -> Tensor",
    _bitwise_not_kernel,
    derivative=NON_DIFFERENTIABLE,
    doc="``torch.bitwise_not``: flip every bit (``~``); logical not for bools.",
)


def bitwise_not(input, *, out=None) -> Tensor:
    """``torch.bitwise_not``: flip every bit; the ``out=`` tensor must have the input's dtype."""
    check_tensor("bitwise_not", input, "input", 1)
    if out is not None:
        _check_exact_out_dtype(input, out)
    return _bitwise_not(input, out=out)


# --- where ---------------------------------------------------------------------------


def _where_kernel(out, condition, input, other):
    np.copyto(out, np.where(condition, input, other), casting="unsafe")


def _iterate_where(condition, input, other, out=None):
    if condition._dtype is not bool_dtype:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition._dtype.scalar_name}"
        )
    # The condition does not take part in promotion: only the two sources do.
    dtype = result_type(input, other)
    if out is not None and out._dtype is not dtype:
        raise RuntimeError(
            f"Expected out type to be {dtype.scalar_name} but got {out._dtype.scalar_name}"
        )
    it = TensorIterator(
        "where", (condition, input, other), out=out, result_dtype=dtype, compute_dtype=dtype
    )
    return it.run(_where_kernel)


_where = declare(
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    FUNCTIONAL,
    _iterate_where,
    # Each element comes from one source: the gradient goes back to that source only.
    # (The bool condition has no gradient.)
    Derivative(
        "WhereBackward0",
        save=("condition",),
        grads={
            "self": lambda grad, saved: where(saved.condition, grad, 0.0),
            "other": lambda grad, saved: where(saved.condition, 0.0, grad),
        },
    ),
)
_where_out = declare(
    "where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    OUT,
    _iterate_where,
)


def where(condition, input=None, other=None, *, out=None):
    """``torch.where``: ``input`` where ``condition`` is true, else ``other``.

    ``input``/``other`` may be Python numbers; they are promoted together (the bool
    condition is not). ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.
    """
    check_tensor("where", condition, "condition", 1)
    if input is None and other is None:
        from .nonzero import nonzero  # written beside this module; imported when needed

        return nonzero(condition, as_tuple=True)
    sources = (input, other)
    if any(not isinstance(x, Tensor) and not _is_python_number(x) for x in sources):
        kinds = ", ".join(type(x).__name__ for x in (condition, *sources))
        raise TypeError(
            f"where() received an invalid combination of arguments - got ({kinds}), but "
            "expected one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, "
            "Tensor other, *, Tensor out = None)\n * (Tensor condition, Number self, Tensor "
            "other)\n * (Tensor condition, Tensor input, Number other)\n * (Tensor "
            "condition, Number self, Number other)"
        )
    for position, (name, value) in enumerate((("input", input), ("other", other)), start=2):
        if out is not None:  # only the all-tensor overload has an out= form
            check_tensor("where", value, name, position)
    if out is None:
        return _where(condition, input, other)
    check_tensor("where", out, "out", 4)
    return _where_out(condition, input, other, out=out)


bind_method("where", lambda self, condition, other: where(condition, self, other))

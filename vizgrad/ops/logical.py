"""Logical and bitwise operators, and ``where`` (``BinaryOps.cpp``, ``TensorCompare.cpp``).

*Logical* ops read any dtype as true/false (non-zero is true) and write bool.
*Bitwise* ops work on the bits of integers and bools only: a float operand reaches a
kernel that was never compiled for it, hence ``"bitwise_and_cpu" not implemented for
'Float'``. ``where`` picks from two operands by a bool mask.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT, NONDIFFERENTIABLE
from ..dtypes import bool as bool_dtype
from ..promotion import result_type
from .declaration import native_function
from .elementwise import elementwise, structured
from .iterator import INTEGRAL_TYPES, TensorIterator, dispatch_dtypes
from .nonzero import nonzero

__all__ = [
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "bitwise_left_shift", "bitwise_right_shift", "where",
]  # fmt: skip

_INTEGRAL_AND_BOOL = INTEGRAL_TYPES | {"bool"}


# --- logical -------------------------------------------------------------------------


def _truth(numpy_function) -> elementwise:
    """A NumPy logical function as a loop writing bool."""
    return elementwise(lambda out, *xs: numpy_function(*xs, out=out), result_dtype=bool_dtype)


# Truth values have no gradient; in place (``x.logical_and_(y)``) PyTorch records nothing
# either: ``x`` keeps its history.
_TRUTH_DOC = "non-zero is true; the result is bool (in place: 0/1 in the input's dtype)."

logical_and = native_function(
    "logical_and(Tensor self, Tensor other) -> Tensor",
    "logical_and_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "logical_and.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_truth(np.logical_and),
    kind=NONDIFFERENTIABLE,
    doc=f"``torch.logical_and``: {_TRUTH_DOC}",
)
logical_or = native_function(
    "logical_or(Tensor self, Tensor other) -> Tensor",
    "logical_or_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "logical_or.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_truth(np.logical_or),
    kind=NONDIFFERENTIABLE,
    doc=f"``torch.logical_or``: {_TRUTH_DOC}",
)
logical_xor = native_function(
    "logical_xor(Tensor self, Tensor other) -> Tensor",
    "logical_xor_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "logical_xor.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_truth(np.logical_xor),
    kind=NONDIFFERENTIABLE,
    doc=f"``torch.logical_xor``: {_TRUTH_DOC}",
)
logical_not = native_function(
    "logical_not(Tensor self) -> Tensor",
    "logical_not_(Tensor(a!) self) -> Tensor(a!)",
    "logical_not.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_truth(np.logical_not),
    kind=NONDIFFERENTIABLE,
    doc="``torch.logical_not``: true where the input is zero.",
)


# --- bitwise -------------------------------------------------------------------------
# Bits of integers: nothing to differentiate. A number on either side reaches an
# overload of its own (``bitwise_and.Scalar``, ``bitwise_and.Scalar_Tensor`` for
# ``5 & t``), whose kernel is the same loop: TensorIterator wraps the number.


def _bits(kernel_name: str, numpy_function) -> elementwise:
    @dispatch_dtypes(kernel_name, _INTEGRAL_AND_BOOL)
    def kernel(out, a, b):
        numpy_function(a, b, out=out)

    return elementwise(kernel)


bitwise_and = native_function(
    "bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_and_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "bitwise_and.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "bitwise_and.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    "bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_and_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "bitwise_and.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_bits("bitwise_and_cpu", np.bitwise_and),
    kind=NONDIFFERENTIABLE,
    doc="``torch.bitwise_and``: ``&`` on the bits of integers (and bools).",
)
bitwise_or = native_function(
    "bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_or_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "bitwise_or.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "bitwise_or.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    "bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_or_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "bitwise_or.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_bits("bitwise_or_cpu", np.bitwise_or),
    kind=NONDIFFERENTIABLE,
    doc="``torch.bitwise_or``: ``|`` on the bits of integers (and bools).",
)
bitwise_xor = native_function(
    "bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_xor_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "bitwise_xor.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "bitwise_xor.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    "bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_xor_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "bitwise_xor.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_bits("bitwise_xor_cpu", np.bitwise_xor),
    kind=NONDIFFERENTIABLE,
    doc="``torch.bitwise_xor``: ``^`` on the bits of integers (and bools).",
)


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


bitwise_left_shift = native_function(
    "bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_left_shift_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "bitwise_left_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "bitwise_left_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    "bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_left_shift_.Tensor_Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "bitwise_left_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=elementwise(_left_shift_kernel),
    kind=NONDIFFERENTIABLE,
    doc="``torch.bitwise_left_shift``: ``<<`` on integers; out-of-range shifts give 0.",
)
bitwise_right_shift = native_function(
    "bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_right_shift_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "bitwise_right_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "bitwise_right_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
    "bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_right_shift_.Tensor_Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "bitwise_right_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=elementwise(_right_shift_kernel),
    kind=NONDIFFERENTIABLE,
    doc="``torch.bitwise_right_shift``: ``>>`` on integers; out-of-range shifts keep the sign.",
)


@dispatch_dtypes("bitwise_not_cpu", _INTEGRAL_AND_BOOL)
def _bitwise_not_kernel(out, x):
    # ~True is False: on bools, NumPy's invert is already the logical not.
    np.invert(x, out=out)


bitwise_not = native_function(
    "bitwise_not(Tensor self) -> Tensor",
    "bitwise_not_(Tensor(a!) self) -> Tensor(a!)",
    "bitwise_not.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_bitwise_not_kernel, check_all_same_dtype=True),
    kind=NONDIFFERENTIABLE,
    doc="``torch.bitwise_not``: flip every bit (``~``); logical not for bools.",
)


# --- where ---------------------------------------------------------------------------


def _where_kernel(out, condition, input, other):
    np.copyto(out, np.where(condition, input, other), casting="unsafe")


def _where_self(operands, out, inplace):
    """where.self: the condition does not take part in promotion, only the two sources."""
    condition, input, other = operands
    if condition._dtype is not bool_dtype:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition._dtype.scalar_name}"
        )
    dtype = result_type(input, other)
    if out is not None and out._dtype is not dtype:
        raise RuntimeError(
            f"Expected out type to be {dtype.scalar_name} but got {out._dtype.scalar_name}"
        )
    it = TensorIterator("where", operands, out=out, result_dtype=dtype, compute_dtype=dtype)
    return it.run(_where_kernel)


def _nonzero_as_tuple(condition):
    """``where(condition)`` is ``nonzero(condition, as_tuple=True)`` (``nonzero_numpy``)."""
    return nonzero(condition, as_tuple=True)


def _where_number_kernel(condition, self, other):
    """The overloads with a number: ``where.self`` with the number wrapped."""
    return where.overloads["where.self"](condition, self, other)


where = native_function(
    "where(Tensor condition) -> Tensor[]",
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
    "where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
    "where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor",
    kernels={
        "where": _nonzero_as_tuple,
        "where.self": structured(_where_self),
        "where.ScalarSelf": _where_number_kernel,
        "where.ScalarOther": _where_number_kernel,
        "where.Scalar": _where_number_kernel,
    },
    # Each element comes from one source: the gradient goes back to that source only.
    # (The bool condition has no gradient.)
    kind=COMPOSITE_IMPLICIT,
    derivatives={
        "where.self": Derivative(
            "WhereBackward0",
            save=("condition",),
            grads={
                "self": lambda grad, saved: where(saved.condition, grad, 0.0),
                "other": lambda grad, saved: where(saved.condition, 0.0, grad),
            },
        ),
    },
    doc="""``torch.where``: ``input`` where ``condition`` is true, else ``other``.

    ``input``/``other`` may be Python numbers; they are promoted together (the bool
    condition is not). ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.
    """,
)

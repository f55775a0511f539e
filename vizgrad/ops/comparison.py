"""Comparisons: ``eq``, ``lt``, ``isclose``, ``equal``… (``BinaryOps.cpp``, ``TensorCompare.cpp``).

A comparison promotes its operands to a common dtype, compares there, and writes
``bool``. In place (``a.lt_(b)``) the booleans are written into ``a``'s own dtype as
0 and 1, which is why the in-place forms have no cast check.

A bool result never requires grad. The in-place forms are another matter: ``lt_``
writes 0/1 into a float tensor that may require grad, so PyTorch records a node for
them (``LtBackward1``; ``LtBackward0`` with a number), with zero gradients. The
aliases (``less`` for ``lt``…) are CompositeImplicitAutograd: they call the main
operator, which records.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT, NONDIFFERENTIABLE
from ..dtypes import bool as bool_dtype
from ..tensor import Tensor
from .creation import zeros_like
from .declaration import alias_kernels, native_function
from .elementwise import elementwise
from .iterator import ALL_TYPES, ALL_TYPES_AND_COMPLEX, dispatch_dtypes

__all__ = [
    "eq", "ne", "lt", "le", "gt", "ge",
    "not_equal", "less", "less_equal", "greater", "greater_equal",
    "isclose", "allclose", "equal",
]  # fmt: skip


def _zero_gradient(grad, saved):
    # The engine sums it to each input's shape and casts it to its dtype.

    return zeros_like(grad)


def _comparison_kernel(name: str, numpy_function, *, ordered: bool) -> elementwise:
    """``name_cpu``, writing bool. Complex numbers have no order: lt/le/gt/ge exist for
    real dtypes only."""
    supported = (ALL_TYPES if ordered else ALL_TYPES_AND_COMPLEX) | {"bool"}

    @dispatch_dtypes(f"{name}_cpu", supported)
    def kernel(out, a, b):
        numpy_function(a, b, out=out)

    return elementwise(kernel, result_dtype=bool_dtype)


def _recorded_in_place(node: str, tensor_overload: str, scalar_overload: str) -> dict:
    """derivatives.yaml's entries for the in-place overloads: zero gradients, under
    ``<node>1`` for a tensor ``other`` and ``<node>0`` for a number."""
    return {
        tensor_overload: Derivative(f"{node}1", grads={"self": _zero_gradient,
                                                       "other": _zero_gradient}),
        scalar_overload: Derivative(f"{node}0", grads={"self": _zero_gradient}),
    }  # fmt: skip


eq = native_function(
    "eq.Tensor(Tensor self, Tensor other) -> Tensor",
    "eq_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "eq.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "eq.Scalar(Tensor self, Scalar other) -> Tensor",
    "eq_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_comparison_kernel("eq", np.equal, ordered=False),
    kind=NONDIFFERENTIABLE,
    derivatives=_recorded_in_place("EqBackward", "eq_.Tensor", "eq_.Scalar"),
    doc="``torch.eq``: ``input == other`` elementwise, as a bool tensor.",
)
ne = native_function(
    "ne.Tensor(Tensor self, Tensor other) -> Tensor",
    "ne_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "ne.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "ne.Scalar(Tensor self, Scalar other) -> Tensor",
    "ne_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "ne.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_comparison_kernel("ne", np.not_equal, ordered=False),
    kind=NONDIFFERENTIABLE,
    derivatives=_recorded_in_place("NeBackward", "ne_.Tensor", "ne_.Scalar"),
    doc="``torch.ne``: ``input != other`` elementwise, as a bool tensor.",
)
lt = native_function(
    "lt.Tensor(Tensor self, Tensor other) -> Tensor",
    "lt_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "lt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "lt.Scalar(Tensor self, Scalar other) -> Tensor",
    "lt_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "lt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_comparison_kernel("lt", np.less, ordered=True),
    kind=NONDIFFERENTIABLE,
    derivatives=_recorded_in_place("LtBackward", "lt_.Tensor", "lt_.Scalar"),
    doc="``torch.lt``: ``input < other`` elementwise, as a bool tensor.",
)
le = native_function(
    "le.Tensor(Tensor self, Tensor other) -> Tensor",
    "le_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "le.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "le.Scalar(Tensor self, Scalar other) -> Tensor",
    "le_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "le.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_comparison_kernel("le", np.less_equal, ordered=True),
    kind=NONDIFFERENTIABLE,
    derivatives=_recorded_in_place("LeBackward", "le_.Tensor", "le_.Scalar"),
    doc="``torch.le``: ``input <= other`` elementwise, as a bool tensor.",
)
gt = native_function(
    "gt.Tensor(Tensor self, Tensor other) -> Tensor",
    "gt_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "gt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "gt.Scalar(Tensor self, Scalar other) -> Tensor",
    "gt_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "gt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_comparison_kernel("gt", np.greater, ordered=True),
    kind=NONDIFFERENTIABLE,
    derivatives=_recorded_in_place("GtBackward", "gt_.Tensor", "gt_.Scalar"),
    doc="``torch.gt``: ``input > other`` elementwise, as a bool tensor.",
)
ge = native_function(
    "ge.Tensor(Tensor self, Tensor other) -> Tensor",
    "ge_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "ge.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "ge.Scalar(Tensor self, Scalar other) -> Tensor",
    "ge_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "ge.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_comparison_kernel("ge", np.greater_equal, ordered=True),
    kind=NONDIFFERENTIABLE,
    derivatives=_recorded_in_place("GeBackward", "ge_.Tensor", "ge_.Scalar"),
    doc="``torch.ge``: ``input >= other`` elementwise, as a bool tensor.",
)

# The aliases, operators of their own in PyTorch (CompositeImplicitAutograd).
not_equal = native_function(
    "not_equal.Tensor(Tensor self, Tensor other) -> Tensor",
    "not_equal_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "not_equal.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "not_equal.Scalar(Tensor self, Scalar other) -> Tensor",
    "not_equal_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "not_equal.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(ne, "not_equal"),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.not_equal``: an alias of ``ne``.",
)
less = native_function(
    "less.Tensor(Tensor self, Tensor other) -> Tensor",
    "less_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "less.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "less.Scalar(Tensor self, Scalar other) -> Tensor",
    "less_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "less.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(lt, "less"),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.less``: an alias of ``lt``.",
)
less_equal = native_function(
    "less_equal.Tensor(Tensor self, Tensor other) -> Tensor",
    "less_equal_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "less_equal.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "less_equal.Scalar(Tensor self, Scalar other) -> Tensor",
    "less_equal_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "less_equal.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(le, "less_equal"),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.less_equal``: an alias of ``le``.",
)
greater = native_function(
    "greater.Tensor(Tensor self, Tensor other) -> Tensor",
    "greater_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "greater.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "greater.Scalar(Tensor self, Scalar other) -> Tensor",
    "greater_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "greater.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(gt, "greater"),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.greater``: an alias of ``gt``.",
)
greater_equal = native_function(
    "greater_equal.Tensor(Tensor self, Tensor other) -> Tensor",
    "greater_equal_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "greater_equal.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "greater_equal.Scalar(Tensor self, Scalar other) -> Tensor",
    "greater_equal_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "greater_equal.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(ge, "greater_equal"),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.greater_equal``: an alias of ``ge``.",
)


# --- closeness -----------------------------------------------------------------------


def _check_isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if input._dtype is not other._dtype:
        raise RuntimeError(f"{input._dtype.scalar_name} did not match {other._dtype.scalar_name}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")


def _isclose_kernel(out, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """PyTorch's rule: equal, or (optionally) both NaN, or ``|a - b| <= atol + rtol * |b|``."""
    close = a == b
    if equal_nan and a.dtype.kind in "fc":
        close |= np.isnan(a) & np.isnan(b)
    if a.dtype.kind != "b":
        # ``atol + (rtol * other).abs()``: the product in other's dtype (integers in the
        # default float dtype, as ``rtol * other`` promotes them), so a complex ``other``
        # contributes its modulus.
        dtype = np.float32 if a.dtype.kind in "iu" else a.dtype
        with np.errstate(all="ignore"):
            allowed = atol + np.abs(np.asarray(rtol, dtype) * b.astype(dtype))
            actual = np.abs(a - b)
            close |= np.isfinite(actual) & (actual <= allowed)
    np.copyto(out, close)


# PyTorch composes isclose of other operators; one kernel computes the same answer.
isclose = native_function(
    "isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) "
    "-> Tensor",
    kernel=elementwise(_isclose_kernel, result_dtype=bool_dtype),
    check=_check_isclose,
    kind=NONDIFFERENTIABLE,
    doc="``torch.isclose``: elementwise ``|input - other| <= atol + rtol * |other|``.",
)


def _allclose_kernel(self, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    close = isclose.overloads["isclose"](self, other, rtol, atol, equal_nan)
    return bool(np.all(close._array))


allclose = native_function(
    "allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, "
    "bool equal_nan=False) -> bool",
    kernel=_allclose_kernel,
    check=_check_isclose,
    kind=NONDIFFERENTIABLE,
    doc="``torch.allclose``: are all elements ``isclose`` (after broadcasting)? A Python bool.",
)


def _equal_kernel(self: Tensor, other: Tensor) -> bool:
    if self._size != other._size:
        return False
    # Values are compared after promotion, so ``equal(int_tensor, float_tensor)`` may be True.
    return bool(np.array_equal(self._array, other._array))


equal = native_function(
    "equal(Tensor self, Tensor other) -> bool",
    kernel=_equal_kernel,
    kind=NONDIFFERENTIABLE,
    doc="``torch.equal``: same shape and same values (NaN is never equal); a Python bool.",
)

"""Comparisons: ``eq``, ``lt``, ``isclose``, ``equal``… (``BinaryOps.cpp``, ``TensorCompare.cpp``).

A comparison promotes its operands to a common dtype, compares there, and writes
``bool``. In place (``a.lt_(b)``) the booleans are written into ``a``'s own dtype as
0 and 1, which is why the in-place forms have no cast check.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..derivatives import NON_DIFFERENTIABLE, Derivative
from ..dispatcher import FUNCTIONAL
from ..dtypes import bool as bool_dtype
from ..tensor import Tensor
from .iterator import ALL_TYPES, ALL_TYPES_AND_COMPLEX, dispatch_dtypes
from .registry import bind_method, check_tensor, declare, pointwise

__all__ = [
    "eq", "ne", "lt", "le", "gt", "ge",
    "not_equal", "less", "less_equal", "greater", "greater_equal",
    "isclose", "allclose", "equal",
]  # fmt: skip


def _zero_gradient(grad, saved):
    # The engine sums it to each input's shape and casts it to its dtype.
    from .creation import zeros_like

    return zeros_like(grad)


def _comparison(name: str, numpy_function, doc: str, *, ordered: bool):
    """``name.Tensor`` and ``name.Scalar`` (``t < 2``), and the function picking one.

    A bool result never requires grad. The in-place forms are another matter: ``lt_``
    writes 0/1 into a float tensor that may require grad, so PyTorch records a node
    for them (``LtBackward1``; ``LtBackward0`` with a number), with zero gradients.
    """
    # Complex numbers have no order: lt/le/gt/ge exist for real dtypes only.
    supported = (ALL_TYPES if ordered else ALL_TYPES_AND_COMPLEX) | {"bool"}

    @dispatch_dtypes(f"{name}_cpu", supported)
    def kernel(out, a, b):
        numpy_function(a, b, out=out)

    full_doc = f"``torch.{name}``: ``input {doc} other`` elementwise, as a bool tensor."
    node = f"{name.capitalize()}Backward"
    overloads = {}
    for overload, other_type, number in (("Tensor", "Tensor", 1), ("Scalar", "Scalar", 0)):
        grads = {"self": _zero_gradient, "other": _zero_gradient}
        function = pointwise(
            f"{name}.{overload}(Tensor self, {other_type} other) -> Tensor",
            kernel,
            result_dtype=bool_dtype,
            method=False,
            derivative=NON_DIFFERENTIABLE,
            # derivatives.yaml has an entry of its own for the in-place overload.
            derivatives={f"{name}_.{overload}": Derivative(f"{node}{number}", grads=grads)},
            doc=full_doc,
        )
        overloads[overload] = function

    def pick(other):
        is_number = isinstance(other, numbers.Number) and not isinstance(other, Tensor)
        return overloads["Scalar" if is_number else "Tensor"]

    def compare(input, other, *, out=None) -> Tensor:
        return pick(other)(input, other, out=out)

    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = full_doc
    bind_method(name, lambda self, other: pick(other)(self, other))
    bind_method(name + "_", lambda self, other: pick(other).inplace(self, other))
    return compare


eq = _comparison("eq", np.equal, "==", ordered=False)
ne = _comparison("ne", np.not_equal, "!=", ordered=False)
lt = _comparison("lt", np.less, "<", ordered=True)
le = _comparison("le", np.less_equal, "<=", ordered=True)
gt = _comparison("gt", np.greater, ">", ordered=True)
ge = _comparison("ge", np.greater_equal, ">=", ordered=True)

not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge
for _alias, _name in (("not_equal", "ne"), ("less", "lt"), ("less_equal", "le"),
                      ("greater", "gt"), ("greater_equal", "ge")):  # fmt: skip
    bind_method(_alias, getattr(Tensor, _name))
    bind_method(_alias + "_", getattr(Tensor, _name + "_"))


# --- closeness -----------------------------------------------------------------------


def _check_isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    check_tensor("isclose", other, "other", 2)
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
        # Integers meet the tolerances in the default float dtype, as ``rtol * other`` does.
        real_dtype = np.float32 if a.dtype.kind in "iu" else np.abs(a[:0]).dtype
        with np.errstate(all="ignore"):
            allowed = atol + np.abs(np.asarray(rtol, real_dtype) * b.astype(real_dtype))
            actual = np.abs(a - b)
            close |= np.isfinite(actual) & (actual <= allowed)
    np.copyto(out, close)


_isclose = pointwise(
    # The schema has no ``*``; ours marks the tolerances keyword-only for ``pointwise``,
    # and ``isclose`` below accepts them by position too, as PyTorch does.
    "isclose(Tensor self, Tensor other, *, float rtol=1e-05, float atol=1e-08, "
    "bool equal_nan=False) -> Tensor",
    _isclose_kernel,
    options={"rtol": 1e-05, "atol": 1e-08, "equal_nan": False},
    result_dtype=bool_dtype,
    inplace=False,
    out=False,
    method=False,
    check=_check_isclose,
    derivative=NON_DIFFERENTIABLE,
)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:
    """``torch.isclose``: elementwise ``|input - other| <= atol + rtol * |other|``."""
    return _isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


bind_method("isclose", isclose)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """``torch.allclose``: are all elements ``isclose`` (after broadcasting)?"""
    close = isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return bool(np.all(close._array))


bind_method("allclose", allclose)


def _equal_kernel(self: Tensor, other: Tensor) -> bool:
    if self._size != other._size:
        return False
    # Values are compared after promotion, so ``equal(int_tensor, float_tensor)`` may be True.
    return bool(np.array_equal(self._array, other._array))


_equal = declare("equal(Tensor self, Tensor other) -> bool", FUNCTIONAL, _equal_kernel,
                 NON_DIFFERENTIABLE)  # fmt: skip


def equal(input, other) -> bool:
    """``torch.equal``: same shape and same values (NaN is never equal); a Python bool."""
    check_tensor("equal", input, "input", 1)
    check_tensor("equal", other, "other", 2)
    return _equal(input, other)


bind_method("equal", equal)

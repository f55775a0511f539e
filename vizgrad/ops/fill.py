"""Filling: ``fill_``, ``zero_`` and ``fill`` (``Fill.cpp``).

``fill_`` writes one value into every element the tensor reads, through its strides:
filling a view fills that part of the base. Unlike other in-place ops, filling an
expanded tensor (several indices on one memory cell) is allowed: every index writes
the same value, so the result is well defined.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import FUNCTIONAL, INPLACE
from ..dtypes import COMPLEX
from ..tensor import Tensor
from .registry import bind_method, check_tensor, declare

__all__ = ["fill", "zero_"]


def _scalar_value(fn_name: str, value):
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                f"{fn_name} only supports 0-dimension value tensor but got tensor with "
                f"{value.dim()} dimensions."
            )
        return value.item()
    if not isinstance(value, numbers.Number):
        raise TypeError(
            f"{fn_name}(): argument 'value' (position 1) must be Number, not {type(value).__name__}"
        )
    return value


def _fill_kernel(self: Tensor, value) -> Tensor:
    if self._dtype.category < COMPLEX and isinstance(value, complex):
        raise RuntimeError(f"value cannot be converted to type {self._dtype.name} without overflow")
    with np.errstate(all="ignore"):
        self._array[...] = value
    return self


def _zero_kernel(self: Tensor) -> Tensor:
    self._array[...] = 0
    return self


# --- derivatives: the old values are forgotten (gradient 0); a tensor ``value`` went
# into every element, so it collects the sum of their gradients.


def _forgotten(grad, saved):
    from .creation import zeros_like

    return zeros_like(grad)


def _fill_derivative(node_name: str, value_is_tensor: bool) -> Derivative:
    grads = {"self": _forgotten}
    if value_is_tensor:
        grads["value"] = lambda grad, saved: grad.sum()
    return Derivative(node_name, grads=grads)


_fill_scalar = declare(
    "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    INPLACE,
    _fill_kernel,
    _fill_derivative("FillBackward2", value_is_tensor=False),
)
_fill_tensor = declare(
    "fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)",
    INPLACE,
    lambda self, value: _fill_kernel(self, value.item()),
    _fill_derivative("FillBackward3", value_is_tensor=True),
)
_zero = declare(
    "zero_(Tensor(a!) self) -> Tensor(a!)",
    INPLACE,
    _zero_kernel,
    Derivative("ZeroBackward0", grads={"self": _forgotten}),
)


def _fill_functional_kernel(self: Tensor, value) -> Tensor:
    result = Tensor._empty_strided(self._size, self._stride if self._contiguous else
                                   _dense_strides(self), self._dtype)  # fmt: skip
    result._array[...] = value
    return result


def _dense_strides(t: Tensor):
    from .iterator import output_strides

    return output_strides(t._size, [t])


_fill_functional = declare(
    "fill.Scalar(Tensor self, Scalar value) -> Tensor",
    FUNCTIONAL,
    _fill_functional_kernel,
    _fill_derivative("FillBackward0", value_is_tensor=False),
)
_fill_functional_tensor = declare(
    "fill.Tensor(Tensor self, Tensor value) -> Tensor",
    FUNCTIONAL,
    lambda self, value: _fill_functional_kernel(self, value.item()),
    _fill_derivative("FillBackward1", value_is_tensor=True),
)


def fill_(self: Tensor, value) -> Tensor:
    """``Tensor.fill_``: every element becomes ``value`` (a number or a 0-dim tensor)."""
    if isinstance(value, Tensor):
        _scalar_value("fill_", value)
        return _fill_tensor(self, value)
    return _fill_scalar(self, _scalar_value("fill_", value))


def zero_(self: Tensor) -> Tensor:
    """``Tensor.zero_``: every element becomes 0."""
    check_tensor("zero_", self, "input", 1)
    return _zero(self)


def fill(input: Tensor, value) -> Tensor:
    """``torch.fill``: a new tensor like ``input`` full of ``value``."""
    check_tensor("fill", input, "input", 1)
    scalar = _scalar_value("fill", value)
    if isinstance(value, Tensor):
        return _fill_functional_tensor(input, value)
    return _fill_functional(input, scalar)


bind_method("fill_", fill_)
bind_method("zero_", zero_)

"""``Tensor.apply_``, ``map_`` and ``map2_``: a Python function called on every element.

These are not operators in PyTorch either: they are Python bindings
(``THPVariable_apply_``, ``map_``, ``map2_`` in ``python_variable_methods.cpp``) that loop
over the elements in the CPU, calling back into Python for each. They are slow on purpose
(one Python call per element), and outside autograd: a tensor that requires grad is
refused, and the version counter is not bumped. Elements are visited in row-major order
and each is read just before it is written, so on an expanded tensor (several elements
in one memory cell) later elements see earlier results, as in PyTorch.
"""

from __future__ import annotations

import itertools
import numbers

import numpy as np

from ..dtypes import BOOL, COMPLEX, FLOATING
from ..tensor import Tensor, define_method

__all__: list[str] = []


def _refuse_grad(name: str, *tensors: Tensor) -> None:
    if any(t.requires_grad for t in tensors):
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
            "instead."
        )


def _check_callable(function) -> None:
    if not callable(function):
        raise TypeError(f"'{type(function).__name__}' object is not callable")


def _as_element(value, dtype):
    """The callback's result as an element of ``dtype``, converted as PyTorch's
    ``THPUtils_unpack*`` does (a float into an int tensor is truncated)."""
    if dtype.category == BOOL:
        return bool(value)
    if dtype.category == COMPLEX:
        if not isinstance(value, numbers.Number | np.number):
            raise TypeError(f"must be complex number, not {type(value).__name__}")
        return complex(value)
    if not isinstance(value, numbers.Real | np.integer | np.floating):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    return value if dtype.category == FLOATING else int(value)


def _apply_elementwise(self: Tensor, function, others: tuple[Tensor, ...]) -> Tensor:
    array = self._array
    other_arrays = [other._array for other in others]
    for index in itertools.product(*map(range, array.shape)):
        arguments = [array[index].item(), *(o[index].item() for o in other_arrays)]
        array[index] = _as_element(function(*arguments), self._dtype)
    return self


def _apply_(self: Tensor, callable) -> Tensor:  # noqa: A002 - PyTorch's argument name
    """``Tensor.apply_(callable)``: replace each element ``x`` with ``callable(x)``."""
    _refuse_grad("apply_", self)
    _check_callable(callable)
    return _apply_elementwise(self, callable, ())


def _check_operand(name: str, argument: str, position: int, label: str, self: Tensor,
                   other) -> None:  # fmt: skip
    """``other`` is a tensor of ``self``'s dtype (``label``: how PyTorch's message names it)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be Tensor, "
                        f"not {type(other).__name__}")  # fmt: skip
    if other._dtype is not self._dtype:
        raise TypeError(
            f"{name}: expected vizgrad.{self._dtype.scalar_name}Tensor for {label} (got "
            f"vizgrad.{other._dtype.scalar_name}Tensor)"
        )


def _map_(self: Tensor, tensor: Tensor, callable) -> Tensor:  # noqa: A002
    """``Tensor.map_(tensor, callable)``: ``self[i] = callable(self[i], tensor[i])``, with
    ``tensor`` broadcast to ``self``'s shape; both of one dtype."""
    _check_operand("map_", "other", 1, "'other'", self, tensor)
    _refuse_grad("map_", self, tensor)
    _check_callable(callable)
    return _apply_elementwise(self, callable, (tensor.expand_as(self),))


def _map2_(self: Tensor, x: Tensor, y: Tensor, callable) -> Tensor:  # noqa: A002
    """``Tensor.map2_(x, y, callable)``: ``self[i] = callable(self[i], x[i], y[i])``."""
    _check_operand("map2_", "x", 1, "argument 'x'", self, x)
    _check_operand("map2_", "y", 2, "argument 'y'", self, y)
    _refuse_grad("map2_", self, x, y)
    _check_callable(callable)
    return _apply_elementwise(self, callable, (x.expand_as(self), y.expand_as(self)))


define_method("apply_", _apply_)
define_method("map_", _map_)
define_method("map2_", _map2_)

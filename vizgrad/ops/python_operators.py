"""Python's operators on tensors: ``a + b``, ``a @ b``, ``a < b``… (``torch/_tensor.py``).

Each operator is a thin alias of a named operator, bound exactly as PyTorch binds it:
``a + b`` is ``a.add(b)``, ``2 - a`` is ``rsub(a, 2)``, ``2 / a`` is
``a.reciprocal() * 2``, ``a += b`` is ``a.add_(b)``. An operand that is neither a
tensor nor a Python number makes the method return ``NotImplemented``, so Python
tries the other operand and finally raises its own ``TypeError`` (``t + "a"``), and
``t == "a"`` is simply ``False``.
"""

from __future__ import annotations

import numbers

from ..dtypes import INTEGRAL
from ..tensor import Tensor, define_method
from . import arithmetic, comparison, logical, unary
from .linalg import matmul

__all__: list[str] = []


# The common operands, by exact type: cheaper than ``numbers.Number``'s abstract check.
_PLAIN_OPERANDS = frozenset({Tensor, int, float, bool, complex})
_OPERANDS = (Tensor, numbers.Number)  # made once: ``Tensor | numbers.Number`` per call builds one


def _accepts(other) -> bool:
    return type(other) in _PLAIN_OPERANDS or isinstance(other, _OPERANDS)


def _operator(name: str, call):
    """``Tensor.<name>(self, other)``: ``call(self, other)``, or ``NotImplemented``."""

    def method(self, other):
        if not _accepts(other):
            return NotImplemented
        return call(self, other)

    method.__doc__ = f"``{name}``: see ``torch/_tensor.py``."
    define_method(name, method)


def _matmul(a, b):

    return matmul(a, b)


def _rtruediv(self, other):
    # PyTorch's own definition: the reciprocal first, so ``2 / int_tensor`` is float.
    return self.reciprocal() * other


def _invert(self):
    """``~t``: ``bitwise_not``, for integer and bool tensors only."""
    if self._dtype.category > INTEGRAL:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return logical.bitwise_not(self)


_BINARY = {
    "__add__": arithmetic.add,
    "__radd__": arithmetic.add,
    "__iadd__": lambda a, b: a.add_(b),
    "__sub__": arithmetic.sub,
    "__rsub__": arithmetic.rsub,
    "__isub__": lambda a, b: a.sub_(b),
    "__mul__": arithmetic.mul,
    "__rmul__": arithmetic.mul,
    "__imul__": lambda a, b: a.mul_(b),
    "__truediv__": arithmetic.div,
    "__rtruediv__": _rtruediv,
    "__itruediv__": lambda a, b: a.div_(b),
    "__floordiv__": arithmetic.floor_divide,
    # ``2 // t``: floor_divide takes the number as its tensor ``input`` (a wrapped number).
    "__rfloordiv__": lambda a, b: arithmetic.floor_divide(b, a),
    "__ifloordiv__": lambda a, b: a.floor_divide_(b),
    "__mod__": arithmetic.remainder,
    "__rmod__": lambda a, b: arithmetic.remainder(b, a),
    "__imod__": lambda a, b: a.remainder_(b),
    "__pow__": arithmetic.pow,
    "__rpow__": lambda a, b: arithmetic.pow(b, a),
    "__ipow__": lambda a, b: a.pow_(b),
    "__and__": logical.bitwise_and,
    "__rand__": logical.bitwise_and,
    "__iand__": lambda a, b: a.bitwise_and_(b),
    "__or__": logical.bitwise_or,
    "__ror__": logical.bitwise_or,
    "__ior__": lambda a, b: a.bitwise_or_(b),
    "__xor__": logical.bitwise_xor,
    "__rxor__": logical.bitwise_xor,
    "__ixor__": lambda a, b: a.bitwise_xor_(b),
    "__lshift__": logical.bitwise_left_shift,
    "__rlshift__": lambda a, b: logical.bitwise_left_shift(b, a),
    "__ilshift__": lambda a, b: a.bitwise_left_shift_(b),
    "__rshift__": logical.bitwise_right_shift,
    "__rrshift__": lambda a, b: logical.bitwise_right_shift(b, a),
    "__irshift__": lambda a, b: a.bitwise_right_shift_(b),
    "__eq__": comparison.eq,
    "__ne__": comparison.ne,
    "__lt__": comparison.lt,
    "__le__": comparison.le,
    "__gt__": comparison.gt,
    "__ge__": comparison.ge,
}

for _name, _call in _BINARY.items():
    _operator(_name, _call)


def _matmul_method(self, other):
    return _matmul(self, other) if isinstance(other, Tensor) else NotImplemented


def _rmatmul_method(self, other):
    return _matmul(other, self) if isinstance(other, Tensor) else NotImplemented


def _neg(self):
    return unary.neg(self)


def _abs(self):
    return unary.abs(self)


for _name, _method in {"__matmul__": _matmul_method, "__rmatmul__": _rmatmul_method,
                       "__neg__": _neg, "__pos__": unary.positive, "__abs__": _abs,
                       "__invert__": _invert}.items():  # fmt: skip
    define_method(_name, _method)

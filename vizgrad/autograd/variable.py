"""``torch.autograd.Variable``: the pre-0.4 wrapper, kept by PyTorch for old code.

Since PyTorch 0.4 every tensor records autograd history itself, and ``Variable`` only
remains as a name: ``Variable(t, requires_grad=...)`` returns a plain tensor sharing
``t``'s storage (PyTorch detaches ``t`` and sets ``requires_grad``), and
``isinstance(x, Variable)`` is ``isinstance(x, Tensor)``. ``volatile`` is accepted with
PyTorch's warning and no effect.
"""

from __future__ import annotations

import warnings

from ..ops import creation
from ..tensor import Tensor

__all__ = ["Variable"]


class VariableMeta(type):
    """Makes every tensor an instance of ``Variable``, as PyTorch's metaclass does."""

    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``Variable(data=None, requires_grad=False, volatile=False)``: ``data`` detached."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if data is None:
            data = creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        return data.detach().requires_grad_(requires_grad)

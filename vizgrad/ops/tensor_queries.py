"""Questions about a tensor, asked as functions: ``torch.numel(x)``, ``torch.is_floating_point(x)``,
``torch.is_nonzero(x)``… (``TensorProperties.cpp``), and ``torch.is_tensor``/``is_storage``.

The tensor methods of the same names read the tensor's metadata (``tensor.py``); these are
the operators PyTorch declares for the function forms, so a wrong argument is the parser's
``TypeError`` (``numel(): argument 'input' (position 1) must be Tensor, not int``). They
compute nothing that autograd could differentiate.
"""

from __future__ import annotations

from ..dispatcher import NONDIFFERENTIABLE
from ..storage import Storage
from ..tensor import Tensor
from ..typed_storage import TypedStorage
from .declaration import native_function

__all__ = ["is_tensor", "is_storage", "numel", "is_floating_point", "is_signed", "is_nonzero",
           "is_same_size", "is_inference"]  # fmt: skip


def is_tensor(obj) -> bool:
    """``torch.is_tensor``: is ``obj`` a tensor (a ``Parameter`` is one)?"""
    return isinstance(obj, Tensor)


def is_storage(obj) -> bool:
    """``torch.is_storage``: is ``obj`` a storage (``x.untyped_storage()``, ``x.storage()``)?"""
    return isinstance(obj, (Storage, TypedStorage))


def _is_nonzero(self: Tensor) -> bool:
    """``is_nonzero``: the truth of a one-element tensor (``bool(x)`` asks the same)."""
    if self.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if self.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def _query(schema: str, kernel, doc: str, variants: str = "function"):
    """An operator of the function form only: ``Tensor`` has these methods of its own."""
    return native_function(schema, kernel=kernel, kind=NONDIFFERENTIABLE, variants=variants,
                           doc=doc)  # fmt: skip


numel = _query(
    "numel(Tensor self) -> int",
    Tensor.numel,
    "``torch.numel``: the number of elements, the product of the sizes.",
)
is_floating_point = _query(
    "is_floating_point(Tensor self) -> bool",
    Tensor.is_floating_point,
    "``torch.is_floating_point``: is the dtype a floating one?",
)
is_signed = _query(
    "is_signed(Tensor self) -> bool",
    Tensor.is_signed,
    "``torch.is_signed``: can the dtype hold negative values?",
)
is_inference = _query(
    "is_inference(Tensor self) -> bool",
    Tensor.is_inference,
    "``torch.is_inference``: was the tensor made in ``inference_mode``?",
)
is_nonzero = _query("is_nonzero(Tensor self) -> bool", _is_nonzero,
                    "``torch.is_nonzero``: is the one element of ``input`` not zero?",
                    variants="function, method")  # fmt: skip
is_same_size = _query(
    "is_same_size(Tensor self, Tensor other) -> bool",
    lambda self, other: self._size == other._size,
    "``torch.is_same_size``: do the two tensors have the same shape?",
    variants="function, method",
)

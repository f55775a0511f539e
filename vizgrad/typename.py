"""``torch.typename``: how PyTorch's messages name the type of a value."""

from __future__ import annotations

from .tensor import Tensor

__all__ = ["typename"]


def typename(obj) -> str:
    """``vizgrad.FloatTensor`` for a tensor, ``int``, ``numpy.ndarray``… for the rest."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in {"", "builtins"} else f"{module}.{qualname}"

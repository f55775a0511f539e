"""Lookup tables: ``embedding`` and ``one_hot``.

``F.embedding`` is PyTorch's Python function: it resolves a negative ``padding_idx``,
renormalises the rows it is about to read when ``max_norm`` is given (in place, on the
detached weight, under no_grad), and calls the ``embedding`` operator, whose node is
``EmbeddingBackward0``. ``F.one_hot`` is the ``one_hot`` operator itself.
"""

from __future__ import annotations

from ... import grad_mode
from ...ops import embedding as _embedding
from ...ops import one_hot as _one_hot
from ...tensor import Tensor

__all__ = ["embedding", "one_hot"]

one_hot = _one_hot.one_hot


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:  # fmt: skip
    """``F.embedding``: the rows of ``weight`` that ``input`` names."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        # embedding_renorm_ reads the indices contiguously anyway; so will embedding.
        input = input.contiguous()
        with grad_mode.no_grad():
            _embedding.embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    return _embedding.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)

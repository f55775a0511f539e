"""Distances and normalisation: ``normalize``, ``cosine_similarity``, ``pairwise_distance``.

``cosine_similarity`` and ``pairwise_distance`` are the engine's composite operators
(``torch.cosine_similarity``…); ``normalize`` is PyTorch's Python function: the input
divided by its ``p``-norm along ``dim``, the norm clamped to ``eps`` first.
"""

from __future__ import annotations

from ...ops import arithmetic as _arithmetic
from ...ops import distance as _distance
from ...tensor import Tensor

__all__ = ["normalize", "cosine_similarity", "pairwise_distance"]

cosine_similarity = _distance.cosine_similarity
pairwise_distance = _distance.pairwise_distance


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:  # fmt: skip
    """``F.normalize``: ``input / max(||input||_p, eps)`` along ``dim``."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _arithmetic.div(input, denom, out=out)

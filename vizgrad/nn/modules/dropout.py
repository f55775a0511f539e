"""Dropout modules: Dropout, Dropout1d, Dropout2d, AlphaDropout.

They drop only in training mode (``module.train()``, the default); after
``module.eval()`` they return their input unchanged.
"""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "AlphaDropout"]


class _DropoutNd(Module):
    """The options every dropout module shares: ``p`` (checked here) and ``inplace``."""

    __constants__ = ["p", "inplace"]

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """``torch.nn.Dropout``: elements zeroed with probability ``p``, the rest scaled."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """``torch.nn.Dropout1d``: whole channels of ``(N, C, L)`` zeroed."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """``torch.nn.Dropout2d``: whole channels of ``(N, C, H, W)`` zeroed."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """``torch.nn.AlphaDropout``: dropout that keeps SELU's mean and variance."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)

"""Dropout: ``dropout``, ``feature_dropout``, ``alpha_dropout`` and ``feature_alpha_dropout``
(``Dropout.cpp``).

During training, dropout zeroes each element with probability ``p`` and scales the
survivors by ``1 / (1 - p)``, so the expected value of every element is unchanged. On
the CPU PyTorch builds it from other operators (CompositeImplicitAutograd): a noise
tensor is drawn with ``bernoulli_(1 - p)``, divided by ``1 - p``, and multiplied into
the input, so the graph shows ``MulBackward0`` (the fused ``native_dropout`` is for
accelerators). Out of training, with ``p == 0`` or an empty input, the input itself is
returned: the very same tensor, with no node at all.

*Feature* dropout draws one noise value per channel (shape ``(N, C, 1, 1…)``), dropping
whole feature maps. *Alpha* dropout keeps a SELU network's mean and variance: dropped
elements become the negative saturation value instead of 0, followed by an affine
correction ``a * x + b``.
"""

from __future__ import annotations

import math

from ..dispatcher import COMPOSITE_IMPLICIT
from ..tensor import Tensor
from .creation import empty, empty_like, zeros
from .declaration import native_function

__all__ = [
    "dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout",
    "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
]  # fmt: skip

# SELU's negative saturation value, -scale * alpha, which alpha dropout drops to.
_ALPHA = 1.7580993408473766


def _feature_noise(input: Tensor) -> Tensor:
    """``make_feature_noise``: one value per (sample, channel), broadcast over the rest."""
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    size = (input._size[0], input._size[1], *([1] * (input.dim() - 2)))
    return empty(size, dtype=input.dtype)


def _dropout_impl(input: Tensor, p: float, train: bool, *, feature: bool, alpha: bool,
                  inplace: bool) -> Tensor:  # fmt: skip
    """``_dropout_impl``: every dropout variant, as PyTorch's one template."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:  # everything dropped: still a product, so the gradient is 0, not None
        zero = zeros((), dtype=input.dtype)
        return input.mul_(zero) if inplace else input * zero
    noise = _feature_noise(input) if feature else empty_like(input)
    noise.bernoulli_(1 - p)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        shift = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
        noise.mul_(a)
        return (input.mul_(noise) if inplace else input * noise).add_(shift)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def _variant(feature: bool, alpha: bool, inplace: bool):
    def kernel(input, p, train):
        return _dropout_impl(input, p, train, feature=feature, alpha=alpha, inplace=inplace)

    return kernel


def _declare(name: str, *, feature: bool, alpha: bool):
    """The functional and in-place operators of one dropout variant."""
    functional = native_function(
        f"{name}(Tensor input, float p, bool train) -> Tensor",
        kernel=_variant(feature, alpha, inplace=False),
        kind=COMPOSITE_IMPLICIT,
        variants="function",
        doc=f"``torch.{name}``: {'feature-wise ' if feature else ''}"
        f"{'alpha ' if alpha else ''}dropout with probability ``p`` when ``train``.",
    )
    inplace = native_function(
        f"{name}_(Tensor(a!) self, float p, bool train) -> Tensor(a!)",
        kernel=_variant(feature, alpha, inplace=True),
        kind=COMPOSITE_IMPLICIT,
        python_bindings=False,
        doc=f"``torch.{name}_``: ``{name}`` in place.",
    )
    return functional, inplace


dropout, dropout_ = _declare("dropout", feature=False, alpha=False)
feature_dropout, feature_dropout_ = _declare("feature_dropout", feature=True, alpha=False)
alpha_dropout, alpha_dropout_ = _declare("alpha_dropout", feature=False, alpha=True)
feature_alpha_dropout, feature_alpha_dropout_ = _declare(
    "feature_alpha_dropout", feature=True, alpha=True
)

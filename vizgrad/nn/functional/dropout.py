"""Dropout: zeroing elements at random during training, scaling the rest by ``1 / (1 - p)``.

The Python layer of PyTorch's ``torch.nn.functional``: it checks ``p`` (a
``ValueError``), reshapes for the 1-D feature form, and calls the engine's dropout
operators (``vizgrad.ops.dropout``), which draw from the default generator.
"""

from __future__ import annotations

import warnings

from ...ops import dropout as _dropout
from ...tensor import Tensor

__all__ = ["dropout", "dropout1d", "dropout2d", "alpha_dropout", "feature_alpha_dropout"]


def _check_probability(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:  # fmt: skip
    """``F.dropout``: each element zeroed with probability ``p``, the rest scaled by
    ``1 / (1 - p)``, while ``training``; otherwise ``input`` itself."""
    _check_probability(p)
    if inplace:
        return _dropout.dropout_(input, p, training)
    return _dropout.dropout(input, p, training)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:  # fmt: skip
    """``F.dropout1d``: whole channels of an ``(N, C, L)`` or ``(C, L)`` input dropped."""
    _check_probability(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs)."
        )
    is_batched = inp_dim == 3
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    if inplace:
        result = _dropout.feature_dropout_(input, p, training)
    else:
        result = _dropout.feature_dropout(input, p, training)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:  # fmt: skip
    """``F.dropout2d``: whole channels of an ``(N, C, H, W)`` input dropped."""
    _check_probability(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if inp_dim == 3:
        # PyTorch still reads a 3-D input as (N, C, L), and says it will change.
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    if inplace:
        return _dropout.feature_dropout_(input, p, training)
    return _dropout.feature_dropout(input, p, training)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:  # fmt: skip
    """``F.alpha_dropout``: dropout that keeps a SELU network's mean and variance."""
    _check_probability(p)
    if inplace:
        return _dropout.alpha_dropout_(input, p, training)
    return _dropout.alpha_dropout(input, p, training)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:  # fmt: skip
    """``F.feature_alpha_dropout``: alpha dropout of whole channels."""
    _check_probability(p)
    if inplace:
        return _dropout.feature_alpha_dropout_(input, p, training)
    return _dropout.feature_alpha_dropout(input, p, training)

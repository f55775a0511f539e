"""Loss functions with PyTorch's reductions and options (``torch.nn.functional``'s losses).

Each function checks and reshapes its arguments as ``torch/nn/functional.py`` does
(the target-size warnings, the broadcast of input and target, the legacy
``size_average``/``reduce`` flags), turns ``reduction`` into ``at::Reduction``'s
number, and calls the ATen operator (``vizgrad.ops.loss``), which records the node
PyTorch records: ``MseLossBackward0``, ``NllLossBackward0`` after
``LogSoftmaxBackward0`` for ``cross_entropy``…
"""

from __future__ import annotations

import math
import warnings

from ... import ops
from ... import shape as _shape
from ...functional import broadcast_shapes
from ...grad_mode import no_grad
from ...ops import loss as _loss
from ...tensor import Tensor

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cross_entropy",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
]


# --- ``torch.nn._reduction``: the reduction's name as ``at::Reduction``'s number ----------


def get_enum(reduction: str) -> int:
    """``'none'`` 0, ``'mean'`` 1, ``'sum'`` 2 (``'elementwise_mean'``, deprecated, is 1)."""
    if reduction == "none":
        return _loss.NONE
    if reduction == "mean":
        return _loss.MEAN
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            stacklevel=2,
        )
        return _loss.MEAN
    if reduction == "sum":
        return _loss.SUM
    raise ValueError(f"{reduction} is not a valid value for reduction")


def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
    """The reduction the deprecated ``size_average``/``reduce`` flags meant (each None
    counts as True): both true is ``'mean'``, ``reduce`` alone ``'sum'``, else ``'none'``."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        result = "mean"
    elif reduce:
        result = "sum"
    else:
        result = "none"
    if emit_warning:
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{result}' "
            "instead.",
            stacklevel=2,
        )
    return result


def legacy_get_enum(size_average, reduce, emit_warning: bool = True) -> int:
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))


def _reduction_enum(size_average, reduce, reduction: str) -> int:
    if size_average is not None or reduce is not None:
        return legacy_get_enum(size_average, reduce)
    return get_enum(reduction)


def _reduction_string(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    return reduction


def _warn_if_sizes_differ(input: Tensor, target: Tensor) -> None:
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def _broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """``torch.broadcast_tensors(input, target)``: views of both at their common shape."""
    shape = _shape.broadcast_shapes(tuple(input.shape), tuple(target.shape))
    return input.expand(shape), target.expand(shape)


def _weighted_reduction(loss: Tensor, weight: Tensor, reduction: str, *, mean_by_weight: bool):
    """The ``weight=`` form of l1/mse/huber: per-element weights, then the reduction (a
    weighted mean for l1 and mse, a plain one for huber)."""
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return ops.reductions.sum(weighted)
    if reduction == "mean":
        return ops.reductions.sum(weighted) / ops.reductions.sum(weight) if mean_by_weight \
            else weighted.mean()  # fmt: skip
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _check_same_size_weight(weight: Tensor, input: Tensor) -> None:
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")


# --- regression losses ---------------------------------------------------------------------


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """``F.l1_loss``: the mean (or sum) absolute error ``|input - target|``."""
    _warn_if_sizes_differ(input, target)
    reduction = _reduction_string(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if weight is not None:
        _check_same_size_weight(weight, input)
        absolute = (expanded_input - expanded_target).abs()
        return _weighted_reduction(absolute, weight, reduction, mean_by_weight=True)
    return _loss.l1_loss(expanded_input, expanded_target, get_enum(reduction))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """``F.mse_loss``: the mean (or sum) squared error ``(input - target)²``."""
    _warn_if_sizes_differ(input, target)
    reduction = _reduction_string(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if weight is not None:
        _check_same_size_weight(weight, input)
        squared = (expanded_input - expanded_target).pow(2)
        return _weighted_reduction(squared, weight, reduction, mean_by_weight=True)
    return _loss.mse_loss(expanded_input, expanded_target, get_enum(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """``F.smooth_l1_loss``: squared (over ``2 beta``) within ``beta``, absolute beyond;
    ``beta=0`` is ``l1_loss``."""
    _warn_if_sizes_differ(input, target)
    reduction = _reduction_string(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if beta == 0.0:
        return _loss.l1_loss(expanded_input, expanded_target, get_enum(reduction))
    return _loss.smooth_l1_loss(expanded_input, expanded_target, get_enum(reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``F.huber_loss``: squared within ``delta``, then linear with slope ``delta``."""
    _warn_if_sizes_differ(input, target)
    expanded_input, expanded_target = _broadcast_pair(input, target)
    if weight is None:
        return _loss.huber_loss(expanded_input, expanded_target, get_enum(reduction), delta)
    _check_same_size_weight(weight, input)
    unweighted = _loss.huber_loss(expanded_input, expanded_target, get_enum("none"), delta)
    return _weighted_reduction(unweighted, weight, reduction, mean_by_weight=False)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``F.gaussian_nll_loss``: ``0.5 (log var + (input - target)² / var)``, with ``var``
    per element or shared along dims of size 1, clamped to at least ``eps``."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ops.creation.ones_like(input)
    elif ops.logical_reductions.any(var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            # One dim short: one variance shared by the last dim (homoscedastic).
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim()
                  and sum(y for x, y in zip(input.size(), var.size(), strict=True) if x != y)
                  == 1):  # fmt: skip
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):  # fmt: skip
    """``F.poisson_nll_loss``: ``exp(input) - target * input`` (log rates), or
    ``input - target * log(input + eps)``; ``full`` adds Stirling's term."""
    reduction = _reduction_string(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return _loss.poisson_nll_loss(input, target, log_input, full, eps, get_enum(reduction))


# --- classification losses -----------------------------------------------------------------


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):  # fmt: skip
    """``F.nll_loss``: ``-weight[t] * input[t]`` for log-probabilities ``input``
    of shape ``(N, C)`` or ``(N, C, d1, ...)`` and class indices ``target``."""
    reduction = _reduction_string(size_average, reduce, reduction)
    return _loss.nll_loss_nd(input, target, weight, get_enum(reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):  # fmt: skip
    """``F.cross_entropy``: ``nll_loss(log_softmax(input, 1), target)``, or, for a target of
    the input's shape, the cross-entropy with class probabilities."""
    reduction = _reduction_string(size_average, reduce, reduction)
    return _loss.cross_entropy_loss(input, target, weight, get_enum(reduction), ignore_index,
                                    label_smoothing)  # fmt: skip


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):  # fmt: skip
    """``F.binary_cross_entropy``: ``-w (y log x + (1 - y) log(1 - x))`` for probabilities."""
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        weight = weight.expand(broadcast_shapes(target.size(), weight.size()))
    return _loss.binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):  # fmt: skip
    """``F.binary_cross_entropy_with_logits``: BCE of ``sigmoid(input)``, from the logits."""
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    return _loss.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                  reduction_enum)  # fmt: skip


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """``F.kl_div``: ``target * (log(target) - input)`` for log-probabilities ``input``;
    ``'batchmean'`` divides the sum by the batch size (the divergence's definition)."""
    if size_average is not None or reduce is not None:
        reduction_enum = legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the "
                "support size.'batchmean' divides only by the batch size, and aligns with the "
                "KL div math definition.'mean' will be changed to behave the same as "
                "'batchmean' in the next major release.",
                stacklevel=2,
            )
        reduction_enum = get_enum("sum" if reduction == "batchmean" else reduction)
    reduced = _loss.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):  # fmt: skip
    """``F.multi_margin_loss``: ``sum_{d != y} max(0, margin - x[y] + x[d]) ** p / C``."""
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _loss.multi_margin_loss(input, target, p, margin, weight, reduction_enum)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):  # fmt: skip
    """``F.multilabel_soft_margin_loss``: the binary logistic loss of every class, averaged
    over the classes: ``-(y log σ(x) + (1 - y) log σ(-x))``."""
    reduction = _reduction_string(size_average, reduce, reduction)
    loss = -(target * _loss.log_sigmoid(input) + (1 - target) * _loss.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``F.soft_margin_loss``: the two-class logistic loss ``log(1 + exp(-y x))``."""
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    return _loss.soft_margin_loss(input, target, reduction_enum)


# --- embedding and ranking losses ----------------------------------------------------------


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):  # fmt: skip
    """``F.hinge_embedding_loss``: ``x`` for ``y = 1``, ``max(0, margin - x)`` for ``y = -1``."""
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    return _loss.hinge_embedding_loss(input, target, margin, reduction_enum)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):  # fmt: skip
    """``F.margin_ranking_loss``: ``max(0, -y (x1 - x2) + margin)``: rank x1 above x2 when
    ``y = 1``."""
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return _loss.margin_ranking_loss(input1, input2, target, margin, reduction_enum)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):  # fmt: skip
    """``F.cosine_embedding_loss``: ``1 - cos(x1, x2)`` for ``y = 1``,
    ``max(0, cos(x1, x2) - margin)`` for ``y = -1``."""
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    return _loss.cosine_embedding_loss(input1, input2, target, margin, reduction_enum)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):  # fmt: skip
    """``F.triplet_margin_loss``: ``max(0, margin + d(anchor, positive) - d(anchor, negative))``
    with the p-norm distance."""
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _loss.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                     reduction_enum)  # fmt: skip

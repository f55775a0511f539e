"""Loss modules (``torch.nn.modules.loss``): a loss function with its options fixed.

Each module keeps its options (``reduction``, ``margin``, ``ignore_index``…) as plain
attributes and its class weights as buffers (``weight``, ``pos_weight``: saved in the
state dict and moved by ``.to()``, but never trained), and its ``forward`` calls the
function of ``vizgrad.nn.functional``. As in PyTorch they print with no options
(``CrossEntropyLoss()``): a loss has no ``extra_repr``.
"""

from __future__ import annotations

from ..functional import loss as F
from .module import Module

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CosineEmbeddingLoss",
    "CrossEntropyLoss",
    "GaussianNLLLoss",
    "HingeEmbeddingLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MSELoss",
    "MarginRankingLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "NLLLoss",
    "PoissonNLLLoss",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "TripletMarginLoss",
]


class _Loss(Module):
    """A loss's reduction, given by name or by the deprecated ``size_average``/``reduce``."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = F.legacy_get_string(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with per-class weights, kept as the buffer ``weight`` (None allowed)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """``nn.L1Loss``: the mean absolute error."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """``nn.MSELoss``: the mean squared error."""

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """``nn.SmoothL1Loss``: squared below ``beta``, absolute above."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """``nn.HuberLoss``: squared below ``delta``, then linear with slope ``delta``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        if not isinstance(delta, float | int):
            raise TypeError(f"delta must be a float or int, got: {type(delta)}")
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class GaussianNLLLoss(_Loss):
    """``nn.GaussianNLLLoss``: the negative log-likelihood of a Gaussian target."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)  # fmt: skip


class PoissonNLLLoss(_Loss):
    """``nn.PoissonNLLLoss``: the negative log-likelihood of a Poisson target."""

    def __init__(self, log_input: bool = True, full: bool = False, size_average=None,
                 eps: float = 1e-8, reduce=None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)  # fmt: skip


class KLDivLoss(_Loss):
    """``nn.KLDivLoss``: the Kullback-Leibler divergence of log-probabilities."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean",
                 log_target: bool = False) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class NLLLoss(_WeightedLoss):
    """``nn.NLLLoss``: the negative log-likelihood of class indices."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)  # fmt: skip


class CrossEntropyLoss(_WeightedLoss):
    """``nn.CrossEntropyLoss``: ``log_softmax`` then ``NLLLoss``, or class probabilities."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)  # fmt: skip


class BCELoss(_WeightedLoss):
    """``nn.BCELoss``: binary cross-entropy of probabilities."""

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """``nn.BCEWithLogitsLoss``: binary cross-entropy of ``sigmoid(input)``, from logits;
    ``weight`` and ``pos_weight`` are buffers."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight=None) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)  # fmt: skip


class HingeEmbeddingLoss(_Loss):
    """``nn.HingeEmbeddingLoss``: ``x`` for similar pairs, ``max(0, margin - x)`` otherwise."""

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """``nn.SoftMarginLoss``: the two-class logistic loss."""

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """``nn.MultiLabelSoftMarginLoss``: one logistic loss per class, averaged."""

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)  # fmt: skip


class CosineEmbeddingLoss(_Loss):
    """``nn.CosineEmbeddingLoss``: ``1 - cos`` for similar pairs, ``max(0, cos - margin)``
    for dissimilar ones."""

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)  # fmt: skip


class MarginRankingLoss(_Loss):
    """``nn.MarginRankingLoss``: ``max(0, -y (x1 - x2) + margin)``."""

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)  # fmt: skip


class MultiMarginLoss(_WeightedLoss):
    """``nn.MultiMarginLoss``: the multi-class hinge loss."""

    def __init__(self, p: int = 1, margin: float = 1.0, weight=None, size_average=None,
                 reduce=None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                "MultiMarginLoss: expected weight to be None or 1D tensor, got "
                f"{weight.dim()}D instead"
            )
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)  # fmt: skip


class TripletMarginLoss(_Loss):
    """``nn.TripletMarginLoss``: ``max(0, margin + d(a, p) - d(a, n))``."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap=False,
                 size_average=None, reduce=None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)  # fmt: skip

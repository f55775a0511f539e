"""Loss functions as ATen operators (``Loss.cpp``, ``LossNLL.cpp``, ``LossNLL2d.cpp``,
``LossMultiMargin.cpp``).

A loss compares a prediction with a target and, by its ``reduction`` (an ``int`` in the
schema, ``at::Reduction``: 0 none, 1 mean, 2 sum), keeps one loss per element or sums
or averages them to one number. PyTorch builds its losses two ways, and vizgrad mirrors
which is which, so ``loss.grad_fn`` names the same node:

* operators with a kernel and a backward of their own: ``mse_loss`` (``MseLossBackward0``),
  ``smooth_l1_loss``, ``huber_loss``, ``soft_margin_loss``, ``binary_cross_entropy``,
  ``binary_cross_entropy_with_logits``, ``multi_margin_loss``, and ``nll_loss_forward`` /
  ``nll_loss2d_forward``, which also return the total weight the mean divides by;
* CompositeImplicitAutograd operators made of others, whose inner calls record their
  own nodes: ``l1_loss`` (``abs(input - target)``, then ``mean``), ``cross_entropy_loss``
  (``log_softmax`` then ``nll_loss_nd``), ``nll_loss_nd`` / ``nll_loss`` / ``nll_loss2d``,
  ``kl_div``, ``hinge_embedding_loss``, ``margin_ranking_loss``, ``triplet_margin_loss``,
  ``cosine_embedding_loss`` and ``poisson_nll_loss``.

The derivative formulas are written with vizgrad operators (``derivatives.yaml``'s
``mse_loss_backward(grad, self, target, reduction)`` is ``2 (self - target) grad``,
divided by ``numel`` for a mean), so a backward can itself be differentiated.
Only the operators PyTorch binds as ``torch.<name>`` are exported here; the others
live in ``torch._C._nn`` and are reached through ``vizgrad.nn.functional``.
"""

from __future__ import annotations

import math

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT, meta_missing_named
from ..dtypes import FLOATING, INTEGRAL
from ..meta_device import check_same_device
from ..promotion import can_cast
from ..shape import contiguous_strides
from ..tensor import Tensor
from .activation import log_softmax
from .arithmetic import minimum, xlogy
from .creation import empty_like, strides_like, zeros_like
from .declaration import native_function
from .iterator import FLOATING_TYPES, TensorIterator, dispatch_dtypes
from .logical import where
from .norms import linalg_vector_norm
from .overload_kernels import meta_then_impl, out_wrapper
from .unary import exp, log

__all__ = [
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "hinge_embedding_loss",
    "kl_div",
    "margin_ranking_loss",
    "poisson_nll_loss",
    "triplet_margin_loss",
]

# ``at::Reduction``: the values of the schemas' ``int reduction=Mean``.
NONE, MEAN, SUM = 0, 1, 2
# ``Loss.cpp``'s EPSILON: keeps BCE's slope and the cosine's magnitudes away from 0.
EPSILON = 1e-12


def apply_loss_reduction(unreduced: Tensor, reduction: int) -> Tensor:
    """``apply_loss_reduction``: the mean or the sum of every loss, or all of them."""
    if reduction == MEAN:
        return unreduced.mean()
    if reduction == SUM:
        return unreduced.sum()
    return unreduced


def _mean_scale(reduction: int, numel: int) -> float:
    """What a backward multiplies by: ``1 / numel`` for a mean, 1 otherwise (an empty
    mean's gradient has no elements, so its scale never matters)."""
    return 1.0 / max(numel, 1) if reduction == MEAN else 1.0


# --- mse_loss, smooth_l1_loss, huber_loss: a TensorIterator loop, then the reduction ----


@dispatch_dtypes("mse_cpu", FLOATING_TYPES)
def _mse_loop(out, a, b):
    np.subtract(a, b, out=out)
    np.multiply(out, out, out=out)


@dispatch_dtypes("smooth_l1_cpu", FLOATING_TYPES)
def _smooth_l1_loop(out, a, b, beta):
    # Quadratic within ``beta`` of the target (``0.5 z² / beta``), linear beyond.
    z = np.abs(a - b)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.copyto(out, np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), casting="unsafe")


@dispatch_dtypes("huber_cpu", FLOATING_TYPES)
def _huber_loop(out, a, b, delta):
    # smooth_l1 scaled by ``delta``: quadratic ``0.5 z²`` within delta, then ``delta (z - delta/2)``.
    z = np.abs(a - b)
    np.copyto(out, np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), casting="unsafe")


def _mse_loss_kernel(self: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    loss = TensorIterator("mse_loss", (self, target)).run(_mse_loop)
    return apply_loss_reduction(loss, reduction)


def _smooth_l1_loss_kernel(self: Tensor, target: Tensor, reduction: int = MEAN,
                           beta: float = 1.0) -> Tensor:  # fmt: skip
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    loss = TensorIterator("smooth_l1_loss", (self, target)).run(_smooth_l1_loop, beta)
    return apply_loss_reduction(loss, reduction)


def _huber_loss_kernel(self: Tensor, target: Tensor, reduction: int = MEAN,
                       delta: float = 1.0) -> Tensor:  # fmt: skip
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    # Written into ``empty_like(input)``: the loss keeps the input's dtype.
    check_same_device((self, target))
    loss = TensorIterator("huber_loss", (self, target), out=empty_like(self), inplace=True)
    return apply_loss_reduction(loss.run(_huber_loop, delta), reduction)


def _mse_grad(first: str, second: str):
    """``mse_loss_backward(grad, first, second, reduction)``: ``2 (first - second) grad``."""

    def formula(grad, saved):
        x = getattr(saved, first)
        scale = 2.0 * _mean_scale(saved.reduction, x.numel())
        return (x - getattr(saved, second)) * scale * grad

    return formula


def _clamped_grad(first: str, second: str, width: str, per_width: bool):
    """smooth_l1's and huber's slope: the difference clamped to ``±width`` (divided by
    the width for smooth_l1), as ``smooth_l1_loss_backward``/``huber_loss_backward``."""

    def formula(grad, saved):
        x = getattr(saved, first)
        limit = getattr(saved, width)
        slope = (x - getattr(saved, second)).clamp(-limit, limit)
        scale = _mean_scale(saved.reduction, x.numel()) / (limit if per_width else 1.0)
        return slope * scale * grad

    return formula


mse_loss = native_function(
    "mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
    "mse_loss.out(Tensor self, Tensor target, int reduction=Mean, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_mse_loss_kernel,
    # Unreduced, ATen writes the loss through a TensorIterator: like the inputs.
    kernels={"mse_loss.out": out_wrapper(_mse_loss_kernel, resized_like_result=True)},
    derivative=Derivative(
        "MseLossBackward0",
        save=("self", "target", "reduction"),
        grads={"self": _mse_grad("self", "target"), "target": _mse_grad("target", "self")},
    ),
    variants="function",
    doc="``torch._C._nn.mse_loss``: the squared differences, reduced.",
)
smooth_l1_loss = native_function(
    "smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0) -> Tensor",
    "smooth_l1_loss.out(Tensor self, Tensor target, int reduction=Mean, float beta=1.0, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_smooth_l1_loss_kernel,
    # Unreduced, ATen writes the loss through a TensorIterator: like the inputs.
    kernels={"smooth_l1_loss.out": out_wrapper(_smooth_l1_loss_kernel, resized_like_result=True)},
    derivative=Derivative(
        "SmoothL1LossBackward0",
        save=("self", "target", "reduction", "beta"),
        grads={
            "self": _clamped_grad("self", "target", "beta", per_width=True),
            "target": _clamped_grad("target", "self", "beta", per_width=True),
        },
    ),
    variants="function",
    doc="``torch._C._nn.smooth_l1_loss``: squared near the target, absolute beyond ``beta``.",
)
huber_loss = native_function(
    "huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) -> Tensor",
    "huber_loss.out(Tensor self, Tensor target, int reduction=Mean, float delta=1.0, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_huber_loss_kernel,
    # Unreduced, ATen writes the loss through a TensorIterator: like the inputs.
    kernels={"huber_loss.out": out_wrapper(_huber_loss_kernel, resized_like_result=True)},
    derivative=Derivative(
        "HuberLossBackward0",
        save=("self", "target", "reduction", "delta"),
        grads={
            "self": _clamped_grad("self", "target", "delta", per_width=False),
            "target": _clamped_grad("target", "self", "delta", per_width=False),
        },
    ),
    variants="function",
    doc="``torch._C._nn.huber_loss``: squared within ``delta``, then linear with slope delta.",
)


def _l1_loss(self: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    return apply_loss_reduction((self - target).abs(), reduction)


l1_loss = native_function(
    "l1_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
    kernel=_l1_loss,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._C._nn.l1_loss``: ``abs(input - target)``, reduced.",
)


# --- soft_margin_loss: log(1 + exp(-y x)) ------------------------------------------------


def _soft_margin_loss_kernel(self: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    # ``at::neg_out(output, input).mul_(target).exp_().log1p_()``: in the input's dtype.
    output = (-self).mul_(target).exp_().log1p_()
    return apply_loss_reduction(output, reduction)


def check_loss_out_cast(dtypes, out: Tensor) -> None:
    """``soft_margin_loss_out`` (``binary_cross_entropy_out``) writes into ``out`` through
    a TensorIterator: an ``out`` the loss cannot be cast to is refused in its words."""
    if not can_cast(dtypes[0], out._dtype):
        raise RuntimeError(
            f"Found dtype {out._dtype.scalar_name} but expected {dtypes[0].scalar_name}"
        )


def _soft_margin_grad(grad, saved):
    """``soft_margin_loss_backward``: ``-y z / (1 + z)`` with ``z = exp(-y x)``."""
    x, y = saved.self, saved.target
    z = exp(-y * x)
    return -_mean_scale(saved.reduction, x.numel()) * y * z / (z + 1.0) * grad


soft_margin_loss = native_function(
    "soft_margin_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
    "soft_margin_loss.out(Tensor self, Tensor target, int reduction=Mean, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=_soft_margin_loss_kernel,
    kernels={
        "soft_margin_loss.out": out_wrapper(
            _soft_margin_loss_kernel, check_dtypes=check_loss_out_cast, resized_like_result=True
        )
    },  # fmt: skip
    derivative=Derivative(
        "SoftMarginLossBackward0",
        save=("self", "target", "reduction"),
        grads={"self": _soft_margin_grad},
    ),
    variants="function",
    doc="``torch._C._nn.soft_margin_loss``: the logistic loss ``log(1 + exp(-target * input))``.",
)


# --- binary_cross_entropy ----------------------------------------------------------------


def check_bce(self: Tensor, target: Tensor) -> None:
    """One TensorIterator over (loss, input, target), all of one dtype (the config's
    default ``check_all_same_dtype``), compiled for floating types only."""
    for other in (target,):
        if other._dtype is not self._dtype:
            raise RuntimeError(
                f"Found dtype {other._dtype.scalar_name} but expected {self._dtype.scalar_name}"
            )
    if self._dtype.name not in FLOATING_TYPES:
        raise NotImplementedError(
            f"\"binary_cross_entropy\" not implemented for '{self._dtype.scalar_name}'"
        )


@dispatch_dtypes("binary_cross_entropy", FLOATING_TYPES)
def _bce_loop(out, x, y):
    if not np.all((x >= 0) & (x <= 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if not np.all((y >= 0) & (y <= 1)):
        raise RuntimeError("all elements of target should be between 0 and 1")
    # L = -(y log x + (1 - y) log(1 - x)), each log clamped at -100 so that a confident
    # wrong answer costs 100, not infinity.
    with np.errstate(divide="ignore"):
        values = (y - 1) * np.maximum(np.log1p(-x), -100) - y * np.maximum(np.log(x), -100)
    np.copyto(out, values, casting="unsafe")


def _bce_kernel(self: Tensor, target: Tensor, weight: Tensor | None = None,
                reduction: int = MEAN) -> Tensor:  # fmt: skip
    # A TensorIterator's loop: the loss is laid out as the inputs are (on the meta
    # device, the set-up alone runs).
    check_bce(self, target)
    check_same_device((target, self))  # (PyTorch meets ``target`` first)
    loss = TensorIterator("binary_cross_entropy", (self, target)).run(_bce_loop)
    if weight is not None:
        loss.mul_(weight)
    return apply_loss_reduction(loss, reduction)


def _weighted_mean(value: Tensor, weight, reduction: int, numel: int) -> Tensor:
    if weight is not None:
        value = value * weight
    return value / max(numel, 1) if reduction == MEAN else value


def _bce_self_grad(grad, saved):
    """``binary_cross_entropy_backward``: ``(x - y) / (x (1 - x))``, its denominator kept
    at least EPSILON."""
    x = saved.self
    slope = (x - saved.target) / ((1.0 - x) * x).clamp_min(EPSILON)
    return _weighted_mean(slope * grad, saved.weight, saved.reduction, x.numel())


def _bce_target_grad(grad, saved):
    """``binary_cross_entropy_target_backward``: ``-logit(x) = log(1 - x) - log(x)``."""
    x = saved.self
    return _weighted_mean(-(x / (1.0 - x)).log() * grad, saved.weight, saved.reduction,
                          saved.target.numel())  # fmt: skip


binary_cross_entropy = native_function(
    "binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean) "
    "-> Tensor",
    "binary_cross_entropy.out(Tensor self, Tensor target, Tensor? weight=None, "
    "int reduction=Mean, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_bce_kernel,
    kernels={
        "binary_cross_entropy.out": out_wrapper(_bce_kernel, check_dtypes=check_loss_out_cast)
    },  # fmt: skip
    derivative=Derivative(
        "BinaryCrossEntropyBackward0",
        save=("self", "target", "weight", "reduction"),
        grads={"self": _bce_self_grad, "target": _bce_target_grad},
    ),
    variants="function",
    doc="``torch._C._nn.binary_cross_entropy``: ``-(y log x + (1 - y) log(1 - x))``.",
)


# --- binary_cross_entropy_with_logits --------------------------------------------------


def log_sigmoid(x: Tensor) -> Tensor:
    """``log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))``, which never overflows: the
    formula the backward of ``binary_cross_entropy_with_logits`` writes with it."""
    return x.clamp_max(0) - (-x.abs()).exp().log1p()


def check_log_sigmoid(input: Tensor) -> None:
    """``at::log_sigmoid``'s kernel is compiled for floating types."""
    if input._dtype.name not in FLOATING_TYPES:
        raise NotImplementedError(
            f"\"log_sigmoid_cpu\" not implemented for '{input._dtype.scalar_name}'"
        )


def _log_sigmoid_values(input: Tensor) -> Tensor:
    """``at::log_sigmoid(input)`` inside the kernel (compiled for floating types)."""
    check_log_sigmoid(input)
    x = input._array
    values = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    return Tensor._from_array(np.asarray(values, input._dtype.numpy), input._dtype)


def _bce_with_logits_kernel(self: Tensor, target: Tensor, weight: Tensor | None = None,
                            pos_weight: Tensor | None = None, reduction: int = MEAN) -> Tensor:  # fmt: skip
    return bce_with_logits(self, target, weight, pos_weight, reduction,
                           _log_sigmoid_values(self))  # fmt: skip


def bce_with_logits(self: Tensor, target: Tensor, weight, pos_weight, reduction: int,
                    log_sigmoid_input: Tensor) -> Tensor:  # fmt: skip
    """The body of ATen's ``binary_cross_entropy_with_logits``, given ``log_sigmoid(x)``
    (computed, or on the meta device an empty tensor of its metadata):
    ``(1 - y) x - log_sigmoid(x) * (1 + (pos_weight - 1) y)``, weighted, reduced."""
    if pos_weight is not None:
        log_weight = (pos_weight - 1).mul(target).add_(1)
        log_sigmoid_input.mul_(log_weight)
    loss = (1 - target).mul_(self).sub_(log_sigmoid_input)
    if weight is not None:
        loss.mul_(weight)
    return apply_loss_reduction(loss, reduction)


def _bce_with_logits_self_grad(grad, saved):
    """``binary_cross_entropy_with_logits_backward``: ``sigmoid(x) - y``, or with
    ``pos_weight`` (``t = pos_weight * y``): ``(t + 1 - y) sigmoid(x) - t``."""
    x, y, pos_weight = saved.self, saved.target, saved.pos_weight
    if pos_weight is not None:
        t = pos_weight * y
        slope = (t + 1 - y) * x.sigmoid() - t
    else:
        slope = x.sigmoid() - y
    return _weighted_mean(slope * grad, saved.weight, saved.reduction, x.numel())


def _bce_with_logits_target_grad(grad, saved):
    """``binary_cross_entropy_with_logits_target_backward``: ``-x``, or with pos_weight
    ``log_sigmoid(-x) - pos_weight * log_sigmoid(x)``."""
    x, pos_weight = saved.self, saved.pos_weight
    slope = log_sigmoid(-x) - log_sigmoid(x) * pos_weight if pos_weight is not None else -x
    return _weighted_mean(slope * grad, saved.weight, saved.reduction, saved.target.numel())


binary_cross_entropy_with_logits = native_function(
    "binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, "
    "Tensor? pos_weight=None, int reduction=Mean) -> Tensor",
    kernel=_bce_with_logits_kernel,
    derivative=Derivative(
        "BinaryCrossEntropyWithLogitsBackward0",
        save=("self", "target", "weight", "pos_weight", "reduction"),
        grads={"self": _bce_with_logits_self_grad, "target": _bce_with_logits_target_grad},
    ),
    variants="function",
    doc="``torch.binary_cross_entropy_with_logits``: binary cross-entropy of "
    "``sigmoid(input)``, computed from the logits without overflow.",
)


# --- nll_loss_forward, nll_loss2d_forward -------------------------------------------------


def _check_nll_dtypes(self: Tensor, target: Tensor, weight: Tensor | None,
                      kernel_name: str = "nll_loss_out_frame") -> None:  # fmt: skip
    """The kernel is compiled for floating inputs, and reads ``weight`` as their type."""
    if self._dtype.name not in FLOATING_TYPES:
        raise NotImplementedError(
            f"\"{kernel_name}\" not implemented for '{self._dtype.scalar_name}'"
        )
    if weight is not None and weight._dtype is not self._dtype:
        raise RuntimeError(
            f"expected scalar type {self._dtype.scalar_name} but found {weight._dtype.scalar_name}"
        )


def _picked(rows: np.ndarray, target: np.ndarray, weight, ignore_index: int):
    """Where each row's target class is not ignored, that class's score and weight.

    ``rows`` is (samples, classes); a target neither ignored nor a class is PyTorch's
    ``IndexError`` (the first one in order, as its loop meets them).
    """
    kept = target != ignore_index
    classes = target[kept]
    bad = (classes < 0) | (classes >= rows.shape[1])
    if bad.any():
        raise IndexError(f"Target {int(classes[bad][0])} is out of bounds.")
    scores = rows[np.flatnonzero(kept), classes]
    weights = weight._array[classes] if weight is not None else None
    return kept, classes, scores, weights


def _nll_values(self, rows, target, weight, reduction, ignore_index, per_sample_shape):
    """``nll_loss_out_frame``: ``-weight[t] * input[t]`` per sample, or their sum (the
    mean divides it by the total weight of the samples not ignored)."""
    dtype = self._dtype
    kept, _, scores, weights = _picked(rows, target, weight, ignore_index)
    losses = -scores if weights is None else -scores * weights
    if per_sample_shape is not None:  # reduction none, with a batch
        values = np.zeros(target.shape, dtype.numpy)
        values[kept] = losses
        return values.reshape(per_sample_shape), np.zeros((), dtype.numpy)
    if target.size == 0:
        # An empty batch: the mean of nothing is nan, the sum is 0.
        return np.asarray(math.nan if reduction == MEAN else 0.0, dtype.numpy), np.zeros(
            (), dtype.numpy
        )
    accumulate = np.float32 if dtype.numpy == np.float16 else dtype.numpy
    total_weight = weights.sum(dtype=accumulate) if weights is not None else kept.sum()
    output = losses.sum(dtype=accumulate)
    if reduction == MEAN:
        with np.errstate(divide="ignore", invalid="ignore"):
            output = np.divide(output, np.asarray(total_weight, accumulate))
    return np.asarray(output, dtype.numpy), np.asarray(total_weight, dtype.numpy)


def _as_pair(values: tuple, dtype) -> tuple:
    return tuple(Tensor._from_array(np.array(v, dtype.numpy), dtype) for v in values)


def check_nll_loss_forward(self, target, weight) -> None:
    """The checks of ``TORCH_META_FUNC(nll_loss_forward)``, in its order."""
    if not 0 < self.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target._dtype.name not in ("int64", "uint8"):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target._dtype.scalar_name}"
        )
    if self.dim() == 1 and target.dim() == 1 and target.shape[0] != 1:
        raise ValueError(
            f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}"
        )
    if self.dim() != 1 and self.shape[0] != target.shape[0]:
        raise RuntimeError(
            f"size mismatch (got input: {list(self.shape)}, target: {list(target.shape)})"
        )
    classes = self.shape[-1]
    if weight is not None and not (weight.dim() == 1 and weight.numel() == classes):
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight.shape)}"
        )


def _nll_loss_forward_meta(self, target, weight, reduction, ignore_index, **_outs):
    """``TORCH_META_FUNC(nll_loss_forward)``: its checks, then the outputs: one loss per
    sample (unreduced, with a batch) or one, and the total weight. (With the kernel's
    dtype dispatch: PyTorch's meta path would promote a ``weight`` its CPU kernel refuses.)"""
    check_nll_loss_forward(self, target, weight)
    _check_nll_dtypes(self, target, weight)
    shape = (self.shape[0],) if reduction == NONE and self.dim() == 2 else ()
    return [(shape, self._dtype), ((), self._dtype)]


def _nll_loss_forward_impl(self, target, weight, reduction, ignore_index):
    check_nll_loss_forward(self, target, weight)
    _check_nll_dtypes(self, target, weight)
    classes = self.shape[-1]
    rows = self._array.reshape(-1, classes)
    per_sample = (self.shape[0],) if reduction == NONE and self.dim() == 2 else None
    values = _nll_values(self, rows, target._array.reshape(-1).astype(np.int64), weight,
                         reduction, ignore_index, per_sample)  # fmt: skip
    return _as_pair(values, self._dtype)


def check_nll2d_out(dtypes, output: Tensor, total_weight: Tensor) -> None:
    """``nll_loss2d_forward_out_cpu``: both outputs of the input's dtype exactly."""
    for out in (output, total_weight):
        check_margin_out(dtypes, out)


def _nll_loss2d_forward_kernel(self, target, weight, reduction, ignore_index):
    _check_nll_loss2d_inputs(self, target, weight)
    _check_nll_dtypes(self, target, weight)
    n, _, h, w = self.shape
    rows = np.moveaxis(self._array, 1, -1).reshape(-1, self.shape[1])
    per_sample = (n, h, w) if reduction == NONE else None
    values = _nll_values(self, rows, target._array.reshape(-1).astype(np.int64), weight,
                         reduction, ignore_index, per_sample)  # fmt: skip
    return _as_pair(values, self._dtype)


def _check_nll_loss2d_inputs(self, target, weight) -> None:
    """``check_inputs_nll_loss2d``: batches of images, one class index per pixel."""
    if target.dim() != 3:
        raise RuntimeError(
            "only batches of spatial targets supported (3D tensors) but got targets of "
            f"dimension: {target.dim()}"
        )
    if self.dim() != 4:
        raise RuntimeError(
            "only batches of spatial inputs supported (4D tensors), but got input of "
            f"dimension: {self.dim()}"
        )
    if weight is not None and weight.numel() != self.shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    n, _, h, w = self.shape
    if (n, h, w) != tuple(target.shape):
        raise RuntimeError(
            f"size mismatch (got input: {list(self.shape)} , target: {list(target.shape)}"
        )


# --- nll_loss_backward, nll_loss2d_backward: their derivatives as operators of their own ---


def _nll_backward_rows(grad_output, self, rows_shape, target, weight, reduction, ignore_index,
                       total_weight, per_sample: bool) -> np.ndarray:  # fmt: skip
    """``nll_loss_backward_out_frame``: one row of class gradients per sample.

    Zero, but at the sample's target class (unless ignored): ``weight[t] * grad``, where
    ``grad`` is ``-grad_output`` (divided by the total weight for a mean), or, with one
    loss per sample, ``-weight[t] * grad_output[i]``. PyTorch's order of operations, so
    the rounding is its own.
    """
    dtype = self._dtype  # (``grad_output`` has it: ``check_nll_grad_output_dtype``)
    rows = np.zeros(rows_shape, dtype.numpy)
    kept = target != ignore_index
    samples, classes = np.flatnonzero(kept), target[kept]
    bad = (classes < 0) | (classes >= rows_shape[1])
    if bad.any():
        raise IndexError(f"Target {int(classes[bad][0])} is out of bounds.")
    weights = weight._array[classes] if weight is not None else None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if per_sample:
            grad = -grad_output._array.reshape(-1)[samples]
        elif reduction == MEAN:
            grad = -(grad_output._array.reshape(()) / total_weight._array.reshape(()))
        else:
            grad = -grad_output._array.reshape(())
        rows[samples, classes] = grad if weights is None else weights * grad
    return rows


def _check_nll_backward_grad_output(grad_output) -> None:
    if not (grad_output.dim() <= 1 and grad_output.numel() == 1):
        raise RuntimeError(
            f"Expected a single element grad_output tensor, but got: {list(grad_output.shape)}"
        )


def _check_total_weight(total_weight, spaces: str = " ") -> None:
    if total_weight.numel() != 1:
        raise RuntimeError(
            f"expected total_weight to be a{spaces}single element tensor, got: "
            f"{list(total_weight.shape)} ({total_weight.numel()} elements)"
        )


def check_nll_loss_backward(grad_output, self, target, weight, reduction, total_weight):
    """The checks of ``TORCH_META_FUNC(nll_loss_backward)``, in its order, then the
    kernel's dtype dispatch and its reading of ``grad_output`` as ``self``'s type."""
    if not 0 < self.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if not (self.dim() == 1 and target.dim() == 0) and self.shape[0] != target.shape[0]:
        raise RuntimeError(
            f"size mismatch (got input: {list(self.shape)}, target: {list(target.shape)})"
        )
    _check_total_weight(total_weight, "  ")  # (PyTorch's message has two spaces)
    if weight is not None and weight.numel() != self.shape[-1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    per_sample = reduction == NONE and self.dim() == 2
    if per_sample:  # ``check_dim_size(grad_output, 1, 0, batch_size)``
        if grad_output.dim() == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if grad_output.dim() != 1 or grad_output.shape[0] != self.shape[0]:
            raise RuntimeError(
                f"Expected a tensor of dimension 1 and tensor.size[0] == {self.shape[0]} but "
                f"got: dimension {grad_output.dim()} and tensor.size[0] = {grad_output.shape[0]}"
            )
    else:
        _check_nll_backward_grad_output(grad_output)
    _check_nll_dtypes(self, target, weight, "nll_loss_backward_out_frame")
    check_nll_grad_output_dtype(grad_output, self, target)


def check_nll_grad_output_dtype(grad_output, self, target) -> None:
    """What the backward kernel reads: ``grad_output`` as ``self``'s type, class indices
    as Long (or Byte)."""
    if target._dtype.name not in ("int64", "uint8"):
        raise RuntimeError(f"expected scalar type Long but found {target._dtype.scalar_name}")
    if grad_output._dtype is not self._dtype:  # its kernel reads grad_output as self's type
        raise RuntimeError(
            f"expected scalar type {self._dtype.scalar_name} but found "
            f"{grad_output._dtype.scalar_name}"
        )


def _nll_loss_backward_kernel(grad_output, self, target, weight, reduction, ignore_index,
                              total_weight):  # fmt: skip
    check_nll_loss_backward(grad_output, self, target, weight, reduction, total_weight)
    per_sample = reduction == NONE and self.dim() == 2
    classes = self.shape[-1]
    rows = _nll_backward_rows(grad_output, self, (max(self.numel() // max(classes, 1), 1)
                              if self.numel() else 0, classes),
                              target._array.reshape(-1).astype(np.int64), weight, reduction,
                              ignore_index, total_weight, per_sample)  # fmt: skip
    return Tensor._from_array(rows.reshape(self.shape), self._dtype)


def check_nll_loss2d_backward(grad_output, self, target, weight, reduction, total_weight):
    """``nll_loss2d_backward_out_cpu_template``'s checks, in its order."""
    _check_nll_loss2d_inputs(self, target, weight)
    if strides_like(self) != contiguous_strides(self._size):
        # Its ``grad_input`` is ``empty_like(self)``, so a transposed or channels-last
        # input's gradient is not contiguous, which its kernel refuses (torch does too).
        raise RuntimeError("grad_input must be contiguous")
    _check_total_weight(total_weight)
    n, c, h, w = self.shape
    per_sample = reduction == NONE
    if per_sample:  # ``check_gradout_shape_nll_loss2d``
        if grad_output.dim() != 3:
            raise RuntimeError(
                "grad_output must have same dimension as target (3) but got dimension: "
                f"{list(grad_output.shape)}"
            )
        if tuple(grad_output.shape) != tuple(target.shape):
            raise RuntimeError(
                f"size mismatch (got grad_output: {list(grad_output.shape)} target: "
                f"{list(target.shape)}"
            )
    else:
        _check_nll_backward_grad_output(grad_output)
    _check_nll_dtypes(self, target, weight, "nll_loss2d_backward_out_frame")
    check_nll_grad_output_dtype(grad_output, self, target)


def _nll_loss2d_backward_kernel(grad_output, self, target, weight, reduction, ignore_index,
                                total_weight):  # fmt: skip
    check_nll_loss2d_backward(grad_output, self, target, weight, reduction, total_weight)
    n, c, h, w = self.shape
    per_sample = reduction == NONE
    rows = _nll_backward_rows(grad_output, self, (n * h * w, c),
                              target._array.reshape(-1).astype(np.int64), weight, reduction,
                              ignore_index, total_weight, per_sample)  # fmt: skip
    # Rows are (n, h, w) pixels: the classes go back to dim 1, in a contiguous result.
    pixels_last = rows.reshape(n, h, w, c)
    return Tensor._from_array(np.ascontiguousarray(np.moveaxis(pixels_last, -1, 1)), self._dtype)


def _nll_backward_derivative(name: str, loss) -> Derivative:
    # ``derivatives.yaml``: the gradient is linear in ``grad_output`` (its own gradient is
    # the loss of the incoming gradient), and constant in ``self``.
    return Derivative(
        name,
        save=("target", "weight", "reduction", "ignore_index"),
        grads={
            "grad_output": lambda grad, saved: loss(grad, saved.target, saved.weight,
                                                    saved.reduction, saved.ignore_index),
            "self": lambda grad, saved: zeros_like(grad),
        },
    )  # fmt: skip


_NLL_BACKWARD_ARGUMENTS = (
    "(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index, Tensor total_weight) -> Tensor"
)
nll_loss_backward = native_function(
    "nll_loss_backward" + _NLL_BACKWARD_ARGUMENTS,
    kernel=_nll_loss_backward_kernel,
    # (``nll_loss`` is declared below, from ``nll_loss_forward``, whose derivative this is.)
    derivative=_nll_backward_derivative("NllLossBackwardBackward0", lambda *args: nll_loss(*args)),
    variants="function",
    doc="``torch._C._nn.nll_loss_backward``: the gradient of ``nll_loss_forward`` for its input.",
)
nll_loss2d_backward = native_function(
    "nll_loss2d_backward" + _NLL_BACKWARD_ARGUMENTS,
    kernel=_nll_loss2d_backward_kernel,
    derivative=_nll_backward_derivative(
        "NllLoss2DBackwardBackward0", lambda *args: nll_loss2d(*args)
    ),
    variants="function",
    doc="``torch._C._nn.nll_loss2d_backward``: the gradient of ``nll_loss2d_forward`` for "
    "its input.",
)


def _nll_derivative(name: str, backward) -> Derivative:
    return Derivative(
        name,
        save=("self", "target", "weight", "reduction", "ignore_index", "total_weight"),
        grads={
            "self": lambda grad, saved: backward(grad, saved.self, saved.target, saved.weight,
                                                 saved.reduction, saved.ignore_index,
                                                 saved.total_weight),
        },
        differentiable_outputs=(0,),
    )  # fmt: skip


nll_loss_forward = native_function(
    "nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index) -> (Tensor output, Tensor total_weight)",
    "nll_loss_forward.output(Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index, *, Tensor(a!) output, Tensor(b!) total_weight) "
    "-> (Tensor(a!), Tensor(b!))",
    kernel=meta_then_impl(_nll_loss_forward_meta, _nll_loss_forward_impl),
    kernels={
        "nll_loss_forward.output": out_wrapper(
            _nll_loss_forward_impl, exact_dtype=True, meta=_nll_loss_forward_meta
        )
    },
    derivative=_nll_derivative("NllLossBackward0", nll_loss_backward),
    variants="function",
    doc="``nll_loss_forward``: the negative score of each sample's target class, and "
    "the total weight.",
)
nll_loss2d_forward = native_function(
    "nll_loss2d_forward(Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index) -> (Tensor output, Tensor total_weight)",
    "nll_loss2d_forward.output(Tensor self, Tensor target, Tensor? weight, int reduction, "
    "SymInt ignore_index, *, Tensor(a!) output, Tensor(b!) total_weight) "
    "-> (Tensor(a!), Tensor(b!))",
    kernel=_nll_loss2d_forward_kernel,
    kernels={
        "nll_loss2d_forward.output": out_wrapper(
            _nll_loss2d_forward_kernel, check_dtypes=check_nll2d_out
        )
    },  # fmt: skip
    derivative=_nll_derivative("NllLoss2DBackward0", nll_loss2d_backward),
    variants="function",
    doc="``nll_loss2d_forward``: ``nll_loss_forward`` for every pixel of a batch of images.",
)


def _nll_loss(self, target, weight=None, reduction=MEAN, ignore_index=-100):
    # Through the Python function, whose check refuses a weight that requires grad.
    return nll_loss_forward(self, target, weight, reduction, ignore_index)[0]


def _nll_loss2d(self, target, weight=None, reduction=MEAN, ignore_index=-100):
    return nll_loss2d_forward(self, target, weight, reduction, ignore_index)[0]


nll_loss = native_function(
    "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
    "SymInt ignore_index=-100) -> Tensor",
    kernel=_nll_loss,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._C._nn.nll_loss``: ``nll_loss_forward``'s loss.",
)
nll_loss2d = native_function(
    "nll_loss2d(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
    "SymInt ignore_index=-100) -> Tensor",
    kernel=_nll_loss2d,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._C._nn.nll_loss2d``: ``nll_loss2d_forward``'s loss.",
)


def _nll_loss_nd(self, target, weight=None, reduction=MEAN, ignore_index=-100):
    """``nll_loss_nd``: 1-D and 2-D inputs go to ``nll_loss``, 4-D to ``nll_loss2d``, and
    any other ``(N, C, d1, ...)`` is viewed as ``(N, C, 1, d1*...)`` for ``nll_loss2d``."""
    if self.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {self.dim()})")
    if self.dim() != 1 and self.shape[0] != target.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({self.shape[0]}) to match target batch_size "
            f"({target.shape[0]})."
        )
    if self.dim() in (1, 2):
        return _nll_loss(self, target, weight, reduction, ignore_index)
    if self.dim() == 4:
        return _nll_loss2d(self, target, weight, reduction, ignore_index)
    n, c = self.shape[0], self.shape[1]
    out_size = [n, *self.shape[2:]]
    if list(target.shape[1:]) != list(self.shape[2:]):
        raise RuntimeError(f"Expected target size {out_size}, got {list(target.shape)}")
    input_, target_ = self.contiguous(), target.contiguous()
    input_ = input_.view(n, c, 1, -1) if input_.numel() > 0 else input_.view(n, c, 0, 0)
    target_ = target_.view(n, 1, -1) if target_.numel() > 0 else target_.view(n, 0, 0)
    out = _nll_loss2d(input_, target_, weight, reduction, ignore_index)
    return out if reduction != NONE else out.view(out_size)


nll_loss_nd = native_function(
    "nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
    "SymInt ignore_index=-100) -> Tensor",
    kernel=_nll_loss_nd,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._C._nn.nll_loss_nd``: ``nll_loss`` for inputs of any ``(N, C, d1, ...)`` shape.",
)


# --- cross_entropy_loss: log_softmax, then nll_loss_nd (or its soft-target form) -------


def _class_weight_view(weight: Tensor, input: Tensor, class_dim: int) -> Tensor:
    """The class weights viewed to broadcast along ``class_dim`` of ``input``."""
    if input.dim() <= 1:
        return weight
    shape = [1] * input.dim()
    shape[class_dim] = weight.shape[0]
    return weight.view(shape)


def _cross_entropy_probabilities(self, target, weight, reduction, label_smoothing):
    """``cross_entropy_loss_prob_target``: ``-sum_c w_c p_c log_softmax(x)_c`` per sample."""
    class_dim = 0 if self.dim() == 1 else 1
    classes = self.shape[class_dim]
    if weight is not None and not (weight.dim() == 1 and weight.numel() == classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {classes} classes "
            f"or no classes but got weight tensor of shape: {list(weight.shape)}"
        )
    input = log_softmax(self, class_dim, self.dtype)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(
                f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        target = target * (1 - label_smoothing) + label_smoothing / classes
    products = input * target
    if weight is not None:
        products = products * _class_weight_view(weight, input, class_dim)
    if reduction == MEAN:
        if input.numel() == 0:
            return -products.sum().fill_(math.nan)
        return -products.sum() / (input.numel() // classes)
    if reduction == SUM:
        return -products.sum()
    return -products.sum(class_dim)


def _cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index,
                                   label_smoothing):  # fmt: skip
    """Hard targets smoothed: ``(1 - s) nll + s / C * sum_c (-log_softmax(x)_c)``."""
    class_dim = 0 if self.dim() == 1 else 1
    input = log_softmax(self, class_dim, self.dtype)
    nll = nll_loss_nd(input, target, weight, reduction, ignore_index)
    classes = input.shape[class_dim]
    if weight is not None:
        smooth_loss = -(input * _class_weight_view(weight, input, class_dim)).sum(class_dim)
    else:
        smooth_loss = -input.sum(class_dim)
    ignore_mask = target == ignore_index
    smooth_loss.masked_fill_(ignore_mask, 0.0)
    if reduction == MEAN:
        if weight is not None:
            # Normalised by the weights of the kept targets, as nll_loss_nd's mean is.
            kept = target.masked_select(ignore_mask.logical_not()).flatten()
            smoothed = smooth_loss.sum() / weight.gather(0, kept).sum()
        else:
            smoothed = smooth_loss.sum() / ignore_mask.logical_not().sum()
    elif reduction == SUM:
        smoothed = smooth_loss.sum()
    else:
        smoothed = smooth_loss
    return (1 - label_smoothing) * nll + smoothed * (label_smoothing / classes)


def _cross_entropy_loss(self, target, weight=None, reduction=MEAN, ignore_index=-100,
                        label_smoothing=0.0):  # fmt: skip
    if tuple(self.shape) == tuple(target.shape):
        # The same shape as the input: class probabilities, not class indices.
        if target._dtype.category != FLOATING:
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{target._dtype.scalar_name}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(
                f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        return _cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index,
                                              label_smoothing)  # fmt: skip
    class_dim = 0 if self.dim() == 1 else 1
    return nll_loss_nd(log_softmax(self, class_dim, self.dtype), target, weight, reduction,
                       ignore_index)  # fmt: skip


cross_entropy_loss = native_function(
    "cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
    "SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor",
    kernel=_cross_entropy_loss,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._C._nn.cross_entropy_loss``: ``nll_loss_nd(log_softmax(input, 1), target)``, "
    "or the cross-entropy with class probabilities.",
)


# --- multi_margin_loss -------------------------------------------------------------------


def _multi_margin_frames(self: Tensor, target: Tensor, weight: Tensor | None):
    """``multi_margin_loss_shape_check``: the number of samples and of classes."""
    ndims = self.dim()
    nframe = 1 if ndims <= 1 else self.shape[0]
    dim = 1 if ndims == 0 else self.shape[ndims - 1]
    if not ((ndims == 2 and self.shape[1] != 0) or (ndims == 1 and self.shape[0] != 0)
            or ndims == 0):  # fmt: skip
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(self.shape)}"
        )
    if not (target.dim() <= 1 and target.numel() == nframe):
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{nframe}], but got "
            f"{list(target.shape)}. Input has shape {list(self.shape)}."
        )
    if weight is not None and not (weight.dim() <= 1 and weight.numel() == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    return nframe, dim


def _multi_margin_targets(target: Tensor, dim: int) -> np.ndarray:
    if target._dtype.name != "int64":
        raise RuntimeError(f"expected scalar type Long but found {target._dtype.scalar_name}")
    classes = target._array.reshape(-1)
    if np.any((classes < 0) | (classes >= dim)):
        raise RuntimeError("target out of range")
    return classes


def multi_margin_loss_checks(self, target, p, weight, reduction):
    """``multi_margin_loss_cpu``'s checks before it reads anything; the number of samples
    and classes, and the shape of the result."""
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    nframe, dim = _multi_margin_frames(self, target, weight)
    shape = (nframe,) if reduction == NONE and target.dim() > 0 else ()
    return nframe, dim, shape


def check_multi_margin_dtypes(self, target) -> None:
    """The kernel's dtype dispatch (no half), then the targets' dtype (class indices)."""
    dtype = self._dtype
    if dtype.name not in FLOATING_TYPES or dtype.name == "float16":
        raise NotImplementedError(
            f"\"multi_margin_loss_cpu_kernel\" not implemented for '{dtype.scalar_name}'"
        )
    if target._dtype.name != "int64":
        raise RuntimeError(f"expected scalar type Long but found {target._dtype.scalar_name}")


def check_margin_out(dtypes, out: Tensor) -> None:
    """``multi_margin_loss_cpu_out``: ``out`` of the input's dtype exactly."""
    if out._dtype is not dtypes[0]:
        raise RuntimeError(
            f"expected scalar type {dtypes[0].scalar_name} but found {out._dtype.scalar_name}"
        )


def _multi_margin_loss_kernel(self, target, p=1, margin=1, weight=None, reduction=MEAN):
    nframe, dim, shape = multi_margin_loss_checks(self, target, p, weight, reduction)
    dtype = self._dtype
    if self.numel() == 0:
        return Tensor._from_array(np.zeros(shape, dtype.numpy), dtype)
    check_multi_margin_dtypes(self, target)
    classes = _multi_margin_targets(target, dim)
    x = self._array.reshape(nframe, dim)
    rows = np.arange(nframe)
    # For every other class d: max(0, margin - x[t] + x[d]) ** p, times weight[t].
    z = margin - x[rows, classes][:, None] + x
    hinge = np.maximum(z, 0) if p == 1 else np.maximum(z, 0) ** 2
    hinge[rows, classes] = 0
    if weight is not None:
        hinge = hinge * weight._array[classes][:, None]
    per_sample = hinge.sum(axis=1) / dim
    if reduction == MEAN:
        values = per_sample.sum() / nframe
    elif reduction == SUM:
        values = per_sample.sum()
    else:
        values = per_sample.reshape(shape)
    return Tensor._from_array(np.asarray(values, dtype.numpy), dtype)


def _multi_margin_grad(grad, saved):
    """``multi_margin_loss_backward``: each violating class d gets ``+h``, the target
    class ``-sum(h)``, with ``h = 1`` (p = 1) or ``2 z`` (p = 2), over ``dim`` (and
    ``nframe`` for a mean), times ``weight[t]``."""
    self, target, weight = saved.self, saved.target, saved.weight
    if self.is_meta:  # the formula reads the targets; PyTorch has no Meta kernel for it either
        raise meta_missing_named("aten::multi_margin_loss_backward")
    nframe, dim = _multi_margin_frames(self, target, weight)
    classes = _multi_margin_targets(target, dim)
    x = self.reshape(nframe, dim)
    rows = np.arange(nframe)
    z = (saved.margin - x.gather(1, Tensor._from_array(classes.reshape(-1, 1)))) + x
    violating = z._array > 0
    violating[rows, classes] = False
    scale = 1.0 / max(nframe * dim if saved.reduction == MEAN else dim, 1)
    factors = violating * scale
    if weight is not None:
        factors = factors * weight._array[classes][:, None]
    factor = Tensor._from_array(np.asarray(factors, self._dtype.numpy), self._dtype)
    h = factor if saved.p == 1 else factor * z * 2
    one_hot = np.zeros((nframe, dim), self._dtype.numpy)
    one_hot[rows, classes] = 1
    grad_input = h - Tensor._from_array(one_hot, self._dtype) * h.sum(1, keepdim=True)
    if saved.reduction == NONE and target.dim() > 0:
        grad = grad.unsqueeze(1)
    return (grad_input * grad).reshape(self.shape)


multi_margin_loss = native_function(
    "multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, "
    "Tensor? weight=None, int reduction=Mean) -> Tensor",
    "multi_margin_loss.out(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, "
    "Tensor? weight=None, int reduction=Mean, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_multi_margin_loss_kernel,
    kernels={
        "multi_margin_loss.out": out_wrapper(
            _multi_margin_loss_kernel, check_dtypes=check_margin_out
        )
    },  # fmt: skip
    derivative=Derivative(
        "MultiMarginLossBackward0",
        save=("self", "target", "p", "margin", "weight", "reduction"),
        grads={"self": _multi_margin_grad},
    ),
    variants="function",
    doc="``torch._C._nn.multi_margin_loss``: the multi-class hinge loss "
    "``sum_{d != y} max(0, margin - x[y] + x[d]) ** p / C``.",
)


# --- the composites of Loss.cpp ---------------------------------------------------------


def _kl_div(self, target, reduction=MEAN, *, log_target=False):
    if self._dtype.is_complex or target._dtype.is_complex:
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if self._dtype.category <= INTEGRAL or target._dtype.category <= INTEGRAL:
        raise RuntimeError("kl_div: Integral inputs not supported.")
    # ``target * (log(target) - input)``, with 0 log 0 = 0 (xlogy); or, for log-targets,
    # ``exp(target) * (target - input)``.
    output = exp(target) * (target - self) if log_target else xlogy(target, target) - target * self
    return apply_loss_reduction(output, reduction)


kl_div = native_function(
    "kl_div(Tensor self, Tensor target, int reduction=Mean, *, bool log_target=False) -> Tensor",
    kernel=_kl_div,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.kl_div``: the pointwise Kullback-Leibler divergence "
    "``target * (log(target) - input)`` of log-probabilities ``input``.",
)


def _hinge_embedding_loss(self, target, margin=1.0, reduction=MEAN):
    zeros = zeros_like(self)
    # ATen's ``margin - self`` is ``empty_like(self).fill_(margin).sub_(self)``: in
    # ``self``'s dtype (an integer input truncates the margin; a bool one is refused).
    margin_clamp = empty_like(self).fill_(margin).sub_(self).clamp_min_(0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, self, zeros)
    return apply_loss_reduction(output_margin + output_self, reduction)


hinge_embedding_loss = native_function(
    "hinge_embedding_loss(Tensor self, Tensor target, float margin=1.0, int reduction=Mean) "
    "-> Tensor",
    kernel=_hinge_embedding_loss,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.hinge_embedding_loss``: ``x`` where the target is 1, "
    "``max(0, margin - x)`` where it is -1.",
)


def _margin_ranking_loss(input1, input2, target, margin=0.0, reduction=MEAN):
    difference = input1 - input2  # first, as PyTorch's compiled expression (bool errors)
    output = (-target * difference + margin).clamp_min_(0)
    return apply_loss_reduction(output, reduction)


margin_ranking_loss = native_function(
    "margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, "
    "int reduction=Mean) -> Tensor",
    kernel=_margin_ranking_loss,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.margin_ranking_loss``: ``max(0, -y (x1 - x2) + margin)``.",
)


def _pairwise_distance(x1: Tensor, x2: Tensor, p: float, eps: float) -> Tensor:
    """``at::pairwise_distance``: the p-norm of ``x1 - x2 + eps`` over the last dim."""
    return linalg_vector_norm(x1 - x2 + eps, p, max(x1.dim(), x2.dim()) - 1, False)


def _triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                         reduction=MEAN):  # fmt: skip
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not a_dim == p_dim == n_dim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative "
            f"{n_dim}D inputs"
        )
    dist_pos = _pairwise_distance(anchor, positive, p, eps)
    dist_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        # Balntas et al.: if the positive is closer to the negative than the anchor is,
        # use that distance instead.
        dist_neg = minimum(dist_neg, _pairwise_distance(positive, negative, p, eps))
    output = (margin + dist_pos - dist_neg).clamp_min(0)
    return apply_loss_reduction(output, reduction)


triplet_margin_loss = native_function(
    "triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, "
    "float p=2, float eps=1e-06, bool swap=False, int reduction=Mean) -> Tensor",
    kernel=_triplet_margin_loss,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.triplet_margin_loss``: ``max(0, margin + d(a, p) - d(a, n))``.",
)


def _cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=MEAN):
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError(
            "1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    if targ_dim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(
            "0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    prod_sum = (input1 * input2).sum(targ_dim)
    mag_square1 = (input1 * input1).sum(targ_dim) + EPSILON
    mag_square2 = (input2 * input2).sum(targ_dim) + EPSILON
    denom = (mag_square1 * mag_square2).sqrt_()
    cos = prod_sum / denom
    zeros = zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min_(0)
    output_pos = where(target == 1, pos, zeros)
    output_neg = where(target == -1, neg, zeros)
    return apply_loss_reduction(output_pos + output_neg, reduction)


cosine_embedding_loss = native_function(
    "cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, "
    "int reduction=Mean) -> Tensor",
    kernel=_cosine_embedding_loss,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.cosine_embedding_loss``: ``1 - cos(x1, x2)`` for similar pairs, "
    "``max(0, cos - margin)`` for dissimilar ones.",
)


def _poisson_nll_loss(input, target, log_input, full, eps, reduction):
    loss = exp(input) - target * input if log_input else input - target * log(input + eps)
    if full:
        # Stirling's approximation of log(target!), counted only where target > 1.
        stirling_term = target * log(target) - target + 0.5 * log(2 * math.pi * target)
        loss += stirling_term.masked_fill(target <= 1, 0)
    return apply_loss_reduction(loss, reduction)


poisson_nll_loss = native_function(
    "poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, "
    "int reduction) -> Tensor",
    kernel=_poisson_nll_loss,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.poisson_nll_loss``: the negative log-likelihood of a Poisson target.",
)

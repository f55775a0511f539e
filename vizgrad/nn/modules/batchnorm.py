"""Batch normalisation with running statistics: BatchNorm1d, BatchNorm2d, BatchNorm3d
(``torch/nn/modules/batchnorm.py``).

In training, each channel is normalised with the batch's mean and (biased) variance,
and the module keeps running averages of the mean and of the *unbiased* variance in
its buffers ``running_mean`` and ``running_var``::

    running = (1 - momentum) * running + momentum * batch_statistic

(``momentum=None``: a cumulative average, ``momentum = 1 / num_batches_tracked``). In
evaluation mode the running statistics normalise instead, so one sample's output no
longer depends on the others in its batch.
"""

from __future__ import annotations

from ...dtypes import int64
from ...ops.creation import empty, ones, tensor, zeros
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


class _NormBase(Module):
    """What batch (and instance) norm share: the affine parameters, the running
    statistics and their reset."""

    _version = 2  # version 2 added ``num_batches_tracked``

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:  # fmt: skip
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(empty(num_features, **factory_kwargs))
            if bias:
                self.bias = Parameter(empty(num_features, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **factory_kwargs))
            self.register_buffer("running_var", ones(num_features, **factory_kwargs))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Forget the running statistics: mean 0, variance 1, no batch seen."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """The running statistics reset, and the identity affine map (weight 1, bias 0)."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (
            "{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
            "bias={use_bias}, track_running_stats={track_running_stats}".format(
                **self.__dict__, use_bias=self.bias is not None
            )
        )

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:  # fmt: skip
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # A state saved before version 2 has no ``num_batches_tracked``: keep ours.
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked
                                   is not None else tensor(0, dtype=int64))  # fmt: skip
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)  # fmt: skip


class _BatchNorm(_NormBase):
    """Batch norm's forward: count the batch, pick the averaging factor, and normalise."""

    def forward(self, input):
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                exponential_average_factor = 1.0 / float(self.num_batches_tracked)
            else:  # an exponential moving average
                exponential_average_factor = self.momentum
        # Without running statistics, evaluation mode normalises with the batch's too.
        if self.training:
            bn_training = True
        else:
            bn_training = self.running_mean is None and self.running_var is None
        # Buffers that are not tracked must not be updated.
        use_buffers = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if use_buffers else None,
            self.running_var if use_buffers else None,
            self.weight,
            self.bias,
            bn_training,
            exponential_average_factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """``torch.nn.BatchNorm1d``: batch norm over ``(N, C)`` or ``(N, C, L)`` input."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """``torch.nn.BatchNorm2d``: batch norm over ``(N, C, H, W)`` input."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """``torch.nn.BatchNorm3d``: batch norm over ``(N, C, D, H, W)`` input."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")

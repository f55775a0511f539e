"""Normalisation layers' functions: ``batch_norm``, ``instance_norm``, ``layer_norm``,
``group_norm`` (``torch/nn/functional.py``).

Python in PyTorch too: each checks what only Python checks (enough values per channel
to estimate a variance in training, a positive ``eps``), then calls the operator
(``vizgrad.ops.normalization``), which checks the rest.
"""

from __future__ import annotations

from ...ops import normalization as _ops

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm"]

# ``torch.backends.cudnn.enabled``, which F.* passes on; the CPU kernels ignore it.
_CUDNN_ENABLED = True


def _verify_batch_size(size) -> None:
    """In training, each channel needs more than one value to have a batch variance."""
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def _verify_spatial_size(size) -> None:
    """Instance norm's statistics are per sample: it needs more than one spatial element."""
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {size}"
        )


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):  # fmt: skip
    """``torch.nn.functional.batch_norm``: normalise each channel over the batch (and the
    spatial dims); in training with the batch's statistics, updating ``running_mean``
    and ``running_var`` in place, in evaluation with them."""
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _ops.batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                           eps, _CUDNN_ENABLED)  # fmt: skip


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):  # fmt: skip
    """``torch.nn.functional.instance_norm``: normalise each channel of each sample."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _ops.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                              momentum, eps, _CUDNN_ENABLED)  # fmt: skip


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """``torch.nn.functional.layer_norm``: normalise the last ``len(normalized_shape)``
    dims of each sample."""
    return _ops.layer_norm(input, normalized_shape, weight, bias, eps, _CUDNN_ENABLED)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """``torch.nn.functional.group_norm``: normalise each group of channels of each sample."""
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups]
                       + list(input.size()[2:]))  # fmt: skip
    return _ops.group_norm(input, num_groups, weight, bias, eps, _CUDNN_ENABLED)

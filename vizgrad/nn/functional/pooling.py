"""Pooling: ``max_pool1d/2d`` (with indices), ``avg_pool1d/2d``, ``adaptive_avg_pool1d/2d``.

The operators are in ``vizgrad.ops.pooling``; these are ``torch.nn.functional``'s
Python entry points, with its defaults (``stride=None`` means the kernel size) and
its ``return_indices`` switch between ``max_pool2d`` and ``max_pool2d_with_indices``.
"""

from __future__ import annotations

from ...ops import pooling as _pooling

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
]


def _stride(stride):
    # ``stride=None`` is the empty list the operators read as "the kernel size".
    return [] if stride is None else stride


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):  # fmt: skip
    """``F.max_pool1d_with_indices``: the maxima of 1-d windows and their indices."""
    return _pooling.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding,
                                            dilation, ceil_mode)  # fmt: skip


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):  # fmt: skip
    """``F.max_pool1d``: the maxima of 1-d windows (and their indices if ``return_indices``)."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _pooling.max_pool1d(input, kernel_size, _stride(stride), padding, dilation,
                               ceil_mode)  # fmt: skip


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):  # fmt: skip
    """``F.max_pool2d_with_indices``: the maxima of 2-d windows and their flat indices."""
    return _pooling.max_pool2d_with_indices(input, kernel_size, _stride(stride), padding,
                                            dilation, ceil_mode)  # fmt: skip


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):  # fmt: skip
    """``F.max_pool2d``: the maxima of 2-d windows (and their indices if ``return_indices``)."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _pooling.max_pool2d(input, kernel_size, _stride(stride), padding, dilation,
                               ceil_mode)  # fmt: skip


avg_pool1d = _pooling.avg_pool1d
avg_pool2d = _pooling.avg_pool2d
adaptive_avg_pool1d = _pooling.adaptive_avg_pool1d


def _list_with_default(out_size, defaults):
    """``torch.nn.modules.utils._list_with_default``: ``None`` entries keep the input's size."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d
            for v, d in zip(out_size, defaults[-len(out_size):], strict=False)]  # fmt: skip


def adaptive_avg_pool2d(input, output_size):
    """``F.adaptive_avg_pool2d``: average pooling to ``output_size`` (``None`` keeps a dim)."""
    return _pooling.adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))

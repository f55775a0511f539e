"""Convolutions: ``conv1d``, ``conv2d``, ``conv_transpose1d``, ``conv_transpose2d``.

As in ``torch.nn.functional``, these are the operators themselves (``torch.conv2d``…):
CompositeImplicitAutograd functions over ``convolution`` (``vizgrad.ops.convolution``),
which computes an ``as_strided`` window view of the padded input times the weight.
"""

from ...ops.convolution import conv1d, conv2d, conv_transpose1d, conv_transpose2d

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"]

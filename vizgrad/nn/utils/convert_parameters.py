"""``parameters_to_vector`` and ``vector_to_parameters``: all parameters as one flat
vector and back (``torch.nn.utils.convert_parameters``)."""

from __future__ import annotations

from ...ops.joining import cat
from ...tensor import Tensor
from ..modules.module import typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters) -> Tensor:
    """The parameters flattened (``view(-1)``) and concatenated into one vector."""
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Make each parameter read its slice of ``vec``, in order: each parameter's ``.data``
    becomes a view of ``vec`` (no copy, as in PyTorch)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected vizgrad.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer : pointer + num_param].view_as(param).data
        pointer += num_param

"""Filling: ``fill_``, ``zero_`` and ``fill`` (``Fill.cpp``).

``fill_`` writes one value into every element the tensor reads, through its strides:
filling a view fills that part of the base. Unlike other in-place ops, filling an
expanded tensor (several indices on one memory cell) is allowed: every index writes
the same value, so the result is well defined. The value is converted as PyTorch's
``c10::checked_convert`` does: a value the dtype cannot hold is an error.
"""

from __future__ import annotations

from ..derivatives import Derivative
from ..tensor import Tensor
from .creation import checked_scalar, strides_like, zeros_like
from .declaration import native_function

__all__ = ["fill", "zero_"]


def _scalar_of(value: Tensor):
    """The one value of a ``Tensor value`` argument, which must be 0-dim."""
    if value.dim() != 0:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
            "dimensions."
        )
    return value.item()


def _fill_inplace_kernel(self: Tensor, value) -> Tensor:
    self._array[...] = checked_scalar(value, self._dtype)
    return self


def _fill_inplace_tensor_kernel(self: Tensor, value: Tensor) -> Tensor:
    return _fill_inplace_kernel(self, _scalar_of(value))


def _fill_kernel(self: Tensor, value) -> Tensor:
    """``fill``: ``empty_like(self).fill_(value)``, a new tensor in ``self``'s layout."""
    result = Tensor._empty_strided(self._size, strides_like(self), self._dtype)
    return _fill_inplace_kernel(result, value)


def _fill_tensor_kernel(self: Tensor, value: Tensor) -> Tensor:
    return _fill_kernel(self, _scalar_of(value))


# The derivatives: the old values are forgotten (gradient 0); a tensor ``value`` went
# into every element, so it collects the sum of their gradients.


def _forgotten(grad, saved):
    return zeros_like(grad)


def _fill_derivative(node_name: str, value_is_tensor: bool) -> Derivative:
    grads = {"self": _forgotten}
    if value_is_tensor:
        grads["value"] = lambda grad, saved: grad.sum()
    return Derivative(node_name, grads=grads)


fill = native_function(
    "fill.Scalar(Tensor self, Scalar value) -> Tensor",
    "fill.Tensor(Tensor self, Tensor value) -> Tensor",
    "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    "fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)",
    kernels={
        "fill.Scalar": _fill_kernel,
        "fill.Tensor": _fill_tensor_kernel,
        "fill_.Scalar": _fill_inplace_kernel,
        "fill_.Tensor": _fill_inplace_tensor_kernel,
    },
    derivatives={
        "fill.Scalar": _fill_derivative("FillBackward0", value_is_tensor=False),
        "fill.Tensor": _fill_derivative("FillBackward1", value_is_tensor=True),
        "fill_.Scalar": _fill_derivative("FillBackward2", value_is_tensor=False),
        "fill_.Tensor": _fill_derivative("FillBackward3", value_is_tensor=True),
    },
    variants="function",
    doc="``torch.fill``: a new tensor like ``input`` full of ``value``; ``Tensor.fill_`` "
    "writes ``value`` (a number or a 0-dim tensor) into every element.",
)


def _zero_kernel(self: Tensor) -> Tensor:
    self._array[...] = 0
    return self


zero_ = native_function(
    "zero_(Tensor(a!) self) -> Tensor(a!)",
    kernel=_zero_kernel,
    derivative=Derivative("ZeroBackward0", grads={"self": _forgotten}),
    doc="``torch.zero_``: every element becomes 0.",
)

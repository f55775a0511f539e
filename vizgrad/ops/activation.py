"""Softmax and log-softmax (``SoftMax.cpp``).

``softmax(x)[i] = exp(x[i]) / sum_j exp(x[j])`` along one dimension. Computed as
written it overflows for large inputs, so the kernel subtracts the maximum first
(``exp(x - max)``), which changes nothing mathematically and keeps every ``exp`` at
most 1. ``log_softmax`` is ``x - max - log(sum(exp(x - max)))``, never the log of a
softmax that may have underflowed to 0.

As in PyTorch, ``softmax`` is CompositeImplicitAutograd: it wraps ``dim``, converts
the input to ``dtype`` if one is given (a recorded copy, so gradients flow back
through the cast) and calls ``_softmax``, the operator with the kernel and the
derivative (``SoftmaxBackward0``). Likewise ``log_softmax`` and ``_log_softmax``.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..shape import contiguous_strides, wrap_dim
from ..tensor import Tensor
from .declaration import native_function
from .iterator import FLOATING_TYPES

__all__ = ["softmax", "log_softmax"]


def _not_implemented(kernel: str, input: Tensor, dim: int) -> None:
    # PyTorch compiles two kernels, one for the innermost dimension, one for the others.
    last = dim == input.dim() - 1 or input.dim() == 0
    name = f"{kernel}_lastdim_kernel_impl" if last else f"{kernel}_kernel_impl"
    raise NotImplementedError(f"\"{name}\" not implemented for '{input._dtype.scalar_name}'")


def _softmax_family_kernel(kernel: str, log: bool):
    def compute(input: Tensor, dim: int, half_to_float: bool) -> Tensor:
        if half_to_float:
            raise RuntimeError(f"{kernel} with half to float conversion is not supported on CPU")
        if input._dtype.numpy.name not in FLOATING_TYPES:
            _not_implemented(kernel, input, dim)
        # host_softmax works on ``input.contiguous()``: the result is contiguous too.
        size = input._size
        result = Tensor._empty_strided(size, contiguous_strides(size), input._dtype)
        if input.numel() == 0:
            return result
        x = input._array.reshape(1) if input.dim() == 0 else input._array
        axis = 0 if input.dim() == 0 else dim
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            shifted = x - np.max(x, axis=axis, keepdims=True)
            exps = np.exp(shifted)
            total = np.sum(exps, axis=axis, keepdims=True)
            values = shifted - np.log(total) if log else exps / total
        np.copyto(result._array, values.reshape(input._size), casting="unsafe")
        return result

    return compute


def _softmax_grad(grad, saved):
    """``_softmax_backward_data``: with ``s = softmax(x)``, ``ds_i/dx_j = s_i (δij - s_j)``,
    so the vector-Jacobian product is ``s * (grad - sum(grad * s))`` along ``dim``."""
    s = saved.result
    return s * (grad - (grad * s).sum(saved.dim, keepdim=True))


def _log_softmax_grad(grad, saved):
    """``_log_softmax_backward_data``: ``d log s_i/dx_j = δij - s_j``, so the product is
    ``grad - softmax * sum(grad)``, with ``softmax = exp(result)``."""
    return grad - saved.result.exp() * grad.sum(saved.dim, keepdim=True)


# Both derivatives are written with the output, which the forward has anyway.
_softmax = native_function(
    "_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
    "_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_softmax_family_kernel("softmax", log=False),
    derivative=Derivative(
        "SoftmaxBackward0", save=("dim", "result"), grads={"self": _softmax_grad}
    ),
    variants="function",
)
_log_softmax = native_function(
    "_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
    "_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_softmax_family_kernel("log_softmax", log=True),
    derivative=Derivative(
        "LogSoftmaxBackward0", save=("dim", "result"), grads={"self": _log_softmax_grad}
    ),
    variants="function",
)


def _converted_then(operator):
    """softmax.int's body: wrap ``dim``, convert to ``dtype``, call ``_softmax``."""

    def composite(self, dim, dtype=None):
        dim = wrap_dim(dim, self.dim())
        if dtype is not None and dtype is not self._dtype:
            self = self.to(dtype)
        return operator(self, dim, False)

    return composite


softmax = native_function(
    "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=_converted_then(_softmax.overloads["_softmax"]),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.softmax``: exponentials normalised to sum to 1 along ``dim``.",
)
log_softmax = native_function(
    "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "log_softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=_converted_then(_log_softmax.overloads["_log_softmax"]),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.log_softmax``: the logarithm of ``softmax``, computed without underflow.",
)

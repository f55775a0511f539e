"""Softmax and log-softmax (``SoftMax.cpp``).

``softmax(x)[i] = exp(x[i]) / sum_j exp(x[j])`` along one dimension. Computed as
written it overflows for large inputs, so the kernel subtracts the maximum first
(``exp(x - max)``), which changes nothing mathematically and keeps every ``exp`` at
most 1. ``log_softmax`` is ``x - max - log(sum(exp(x - max)))``, never the log of a
softmax that may have underflowed to 0.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dtypes import dtype as DType
from ..shape import contiguous_strides, wrap_dim
from ..tensor import Tensor
from .iterator import FLOATING_TYPES
from .registry import bind_method, check_tensor, declare_with_out

__all__ = ["softmax", "log_softmax"]


def _not_implemented(kernel: str, input: Tensor, dim: int) -> None:
    # PyTorch compiles two kernels, one for the innermost dimension, one for the others.
    last = dim == input.dim() - 1 or input.dim() == 0
    name = f"{kernel}_lastdim_kernel_impl" if last else f"{kernel}_kernel_impl"
    raise NotImplementedError(f"\"{name}\" not implemented for '{input._dtype.scalar_name}'")


def _softmax_family_kernel(kernel: str, log: bool):
    def compute(input: Tensor, dim: int) -> Tensor:
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
_softmax, _softmax_out = declare_with_out(
    "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    _softmax_family_kernel("softmax", log=False),
    Derivative("SoftmaxBackward0", save=("dim", "result"), grads={"self": _softmax_grad}),
)
_log_softmax, _log_softmax_out = declare_with_out(
    "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    _softmax_family_kernel("log_softmax", log=True),
    Derivative("LogSoftmaxBackward0", save=("dim", "result"), grads={"self": _log_softmax_grad}),
)


def _call(fn_name: str, functional, out_op, input, dim, dtype, out):
    check_tensor(fn_name, input, "input", 1)
    if dim is None:
        raise TypeError(f'{fn_name}() missing 1 required positional arguments: "dim"')
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(
            f"{fn_name}(): argument 'dtype' must be vizgrad.dtype, not {type(dtype).__name__}"
        )
    dim = wrap_dim(dim, input.dim())
    if dtype is not None and dtype is not input._dtype:
        # ``dtype=`` converts the input first (a recorded ``_to_copy``, so gradients
        # flow back through the cast): softmax of int64 with dtype=float64 works.
        input = input.to(dtype)
    if out is None:
        return functional(input, dim)
    return out_op(input, dim, out=out)


def softmax(input, dim=None, dtype=None, *, out=None) -> Tensor:
    """``torch.softmax``: exponentials normalised to sum to 1 along ``dim``."""
    return _call("softmax", _softmax, _softmax_out, input, dim, dtype, out)


def log_softmax(input, dim=None, dtype=None, *, out=None) -> Tensor:
    """``torch.log_softmax``: the logarithm of ``softmax``, computed without underflow."""
    return _call("log_softmax", _log_softmax, _log_softmax_out, input, dim, dtype, out)


bind_method("softmax", lambda self, dim=None, dtype=None: softmax(self, dim, dtype))
bind_method("log_softmax", lambda self, dim=None, dtype=None: log_softmax(self, dim, dtype))

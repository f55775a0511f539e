"""``var``, ``std``, ``var_mean``, ``std_mean``: spread around the mean (``ReduceOps.cpp``).

``correction`` is subtracted from the count of reduced elements (Bessel's correction
by default: ``correction=1``); ``std`` is the square root of ``var``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import dtypes as dt
from ..derivatives import Derivative
from ..dispatcher import FUNCTIONAL, OUT
from ..tensor import Tensor
from .logical import where
from .reduction_args import (
    invalid_arguments,
    numpy_axes,
    parse_dims,
    reduction_dims,
    reduction_factor,
)
from .reduction_backward import mean_backward, reduced_count, unsqueeze_reduced
from .reduction_dtypes import accumulate_dtype, computed_in_out_dtype
from .reduction_machinery import bind_methods, call, wrap_result
from .reductions import _mean_kernel
from .registry import check_tensor, declare

__all__ = [
    "var",
    "std",
    "var_mean",
    "std_mean",
]


# --- variance and standard deviation ---------------------------------------------------


def _var_kernel(self: Tensor, dim, *, correction=1, keepdim=False, take_sqrt=False,
                result_dtype=None) -> Tensor:  # fmt: skip
    """Bessel-corrected variance: squared deviations from the mean over ``N - correction``.

    A divisor of zero or less gives inf or nan, with PyTorch's warning. ``result_dtype``
    is the ``out=`` tensor's dtype, which PyTorch computes in.
    """
    dim = reduction_dims(dim, self.dim())
    result_dtype = result_dtype or self._dtype.to_real()
    acc = accumulate_dtype(result_dtype).numpy
    np_reduce = np.std if take_sqrt else np.var
    axes = numpy_axes(self, dim)
    compute = acc if self._dtype.category != dt.COMPLEX else self._array.dtype
    array = self._array if self._array.dtype == compute else self._array.astype(compute)
    if reduction_factor(self, dim) - correction > 0:
        result = np_reduce(array, axis=axes, ddof=correction, keepdims=keepdim)
    else:
        name = "std" if take_sqrt else "var"
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=5,
        )
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            result = np_reduce(array, axis=axes, ddof=correction, keepdims=keepdim)
    return wrap_result(result, result_dtype)


def _std_kernel(self: Tensor, dim, *, correction=1, keepdim=False, result_dtype=None):
    return _var_kernel(self, dim, correction=correction, keepdim=keepdim, take_sqrt=True,
                       result_dtype=result_dtype)  # fmt: skip


def _var_mean_kernel(self: Tensor, dim, *, correction=1, keepdim=False):
    variance = _var_kernel(self, dim, correction=correction, keepdim=keepdim)
    return variance, _mean_kernel(self, dim, keepdim)


def _std_mean_kernel(self: Tensor, dim, *, correction=1, keepdim=False):
    deviation = _std_kernel(self, dim, correction=correction, keepdim=keepdim)
    return deviation, _mean_kernel(self, dim, keepdim)


def var_backward(grad: Tensor, self: Tensor, dim, correction, keepdim: bool) -> Tensor:
    """``var_backward``: ``d/dx_i  sum_j (x_j - mean)^2 / (N - correction)`` is
    ``2 (x_i - mean) / (N - correction)`` (the mean's own dependence on ``x_i`` cancels,
    because the deviations sum to zero)."""
    correction = 1 if correction is None else correction
    if self.dim() == 0 or dim is None:
        degrees_of_freedom = self.numel() - correction
        if degrees_of_freedom <= 0:
            # 2 / 0 is infinite: PyTorch answers nan where x equals the mean (inf * 0),
            # inf elsewhere.
            return grad * where(self == self.mean(), math.nan, math.inf)
        return (2.0 / degrees_of_freedom) * grad * (self - self.mean())
    dims = reduction_dims(dim, self.dim())
    grad = unsqueeze_reduced(grad, dims, self.dim(), keepdim)
    degrees_of_freedom = reduced_count(self.shape, dims) - correction
    scale = 2.0 / degrees_of_freedom if degrees_of_freedom != 0 else math.inf
    return scale * grad * (self - self.mean(dims, keepdim=True))


def std_backward(result: Tensor, grad: Tensor, self: Tensor, dim, correction, keepdim):
    """``std = sqrt(var)``, so ``d std = d var / (2 std)``; a zero std gives zero, not
    0/0, as PyTorch's ``std_backward`` masks it."""
    grad_var = (grad / (result * 2)).masked_fill(result == 0, 0)
    return var_backward(grad_var, self, dim, correction, keepdim)


def _var_mean_backward(grads, saved) -> Tensor:
    """``var_mean``: the gradients of both results, added (an unused one brings zeros)."""
    grad_var, grad_mean = grads
    from_var = var_backward(grad_var, saved.self, saved.dim, saved.correction, saved.keepdim)
    return from_var + mean_backward(grad_mean, saved.self.shape, saved.dim, saved.keepdim)


def _std_mean_backward(grads, saved) -> Tensor:
    grad_std, grad_mean = grads
    from_std = std_backward(saved.result0, grad_std, saved.self, saved.dim, saved.correction,
                            saved.keepdim)  # fmt: skip
    return from_std + mean_backward(grad_mean, saved.self.shape, saved.dim, saved.keepdim)


_VAR_SAVES = ("self", "dim", "correction", "keepdim")
_VAR_SCHEMA = "(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False"
_var_op = declare(f"var.correction{_VAR_SCHEMA}) -> Tensor", FUNCTIONAL, _var_kernel, Derivative(
    "VarBackward0", save=_VAR_SAVES, grads={
        "self": lambda grad, saved: var_backward(grad, saved.self, saved.dim, saved.correction,
                                                 saved.keepdim)}))  # fmt: skip
_var_out_op = declare(
    f"var.correction_out{_VAR_SCHEMA}, Tensor(a!) out) -> Tensor(a!)", OUT,
    computed_in_out_dtype(_var_kernel, lambda t: t._dtype.to_real()),
)  # fmt: skip
_std_op = declare(f"std.correction{_VAR_SCHEMA}) -> Tensor", FUNCTIONAL, _std_kernel, Derivative(
    "StdBackward0", save=(*_VAR_SAVES, "result"), grads={
        "self": lambda grad, saved: std_backward(saved.result, grad, saved.self, saved.dim,
                                                 saved.correction, saved.keepdim)}))  # fmt: skip
_std_out_op = declare(
    f"std.correction_out{_VAR_SCHEMA}, Tensor(a!) out) -> Tensor(a!)", OUT,
    computed_in_out_dtype(_std_kernel, lambda t: t._dtype.to_real()),
)  # fmt: skip
_var_mean_op = declare(f"var_mean.correction{_VAR_SCHEMA}) -> (Tensor, Tensor)", FUNCTIONAL,
                       _var_mean_kernel, Derivative(
    "VarMeanBackward0", save=_VAR_SAVES, grads={"self": _var_mean_backward},
    multi_output=True))  # fmt: skip
_std_mean_op = declare(f"std_mean.correction{_VAR_SCHEMA}) -> (Tensor, Tensor)", FUNCTIONAL,
                       _std_mean_kernel, Derivative(
    "StdMeanBackward0", save=(*_VAR_SAVES, "result0"), grads={"self": _std_mean_backward},
    multi_output=True))  # fmt: skip


def _parse_var_arguments(fn_name, input, dim, unbiased, keepdim, correction):
    """``var`` has three Python signatures; resolve them to ``(dims, correction)``.

    ``var(t, False)`` passes ``unbiased`` first; ``unbiased`` and ``correction`` are two
    spellings of one thing, so giving both is an error.
    """
    check_tensor(fn_name, input, "input", 1)
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    signatures = [
        "Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, "
        "Tensor out = None",
        "Tensor input, tuple of ints dim = None, *, Number correction = None, "
        "bool keepdim = False, Tensor out = None",
        "Tensor input, bool unbiased = True",
    ]
    if unbiased is not None and correction is not None:
        kwargs = {"correction": correction}
        raise invalid_arguments(fn_name, (input, dim, unbiased), kwargs, signatures)
    if input._dtype.category < dt.FLOATING:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = parse_dims(fn_name, input, dim, keepdim, signatures)
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dims, correction


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """``torch.var``: the spread around the mean, divided by ``N - correction``
    (``correction=1``, "unbiased", by default)."""
    dims, correction = _parse_var_arguments("var", input, dim, unbiased, keepdim, correction)
    return call(_var_op, _var_out_op, (input, dims), out, correction=correction, keepdim=keepdim)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """``torch.std``: the square root of ``var``."""
    dims, correction = _parse_var_arguments("std", input, dim, unbiased, keepdim, correction)
    return call(_std_op, _std_out_op, (input, dims), out, correction=correction, keepdim=keepdim)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``torch.var_mean``: ``(var, mean)`` in one call (a plain tuple)."""
    dims, correction = _parse_var_arguments("var_mean", input, dim, unbiased, keepdim, correction)
    return _var_mean_op(input, dims, correction=correction, keepdim=keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``torch.std_mean``: ``(std, mean)`` in one call (a plain tuple)."""
    dims, correction = _parse_var_arguments("std_mean", input, dim, unbiased, keepdim, correction)
    return _std_mean_op(input, dims, correction=correction, keepdim=keepdim)


bind_methods(var, std)

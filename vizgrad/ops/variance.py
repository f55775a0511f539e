"""``var``, ``std``, ``var_mean``, ``std_mean``: spread around the mean (``ReduceOps.cpp``).

``correction`` is subtracted from the count of reduced elements (Bessel's correction
by default: ``correction=1``); ``std`` is the square root of ``var``.

Each has three overloads: ``var.correction`` computes, and the two older spellings,
``var(t, unbiased)`` and ``var.dim(t, dim, unbiased, keepdim)``, are
CompositeImplicitAutograd calls of it, ``unbiased=True`` meaning ``correction=1``.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from .. import dtypes as dt
from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import dtype as DType
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .declaration import native_function
from .float_errors import ignoring_float_errors
from .logical import where
from .reduction_args import numpy_axes, reduction_dims, reduction_factor
from .reduction_backward import mean_backward, reduced_count, unsqueeze_reduced
from .reduction_dtypes import accumulate_dtype, computed_in_out_dtype
from .reduction_machinery import ReduceOps, interruptible, wrap_result
from .reductions import _mean_kernel
from .registry import OPERATORS

__all__ = [
    "var",
    "std",
    "var_mean",
    "std_mean",
]


# --- the kernels ------------------------------------------------------------------------


def _var_dtype(self: Tensor, dtype=None, name=None) -> DType:
    """What ``var`` returns: the input's real dtype (a complex variance is real). The
    refusal names ``var_mean``/``std_mean`` when they ask."""
    if self._dtype.category < dt.FLOATING:
        raise RuntimeError(
            f"{name or 'std and var'} only support floating point and complex dtypes"
        )
    return self._dtype.to_real()


def _var_kernel(self: Tensor, dim=None, *, correction=None, keepdim=False, take_sqrt=False,
                dtype=None, name=None) -> Tensor:  # fmt: skip
    """Bessel-corrected variance: squared deviations from the mean over ``N - correction``
    (``correction=None`` is Bessel's 1).

    A divisor of zero or less gives inf or nan, with PyTorch's warning, which names the
    operator (``name``: ``std_mean`` too). ``dtype`` is the ``out=`` tensor's dtype, which
    PyTorch computes in.
    """
    result_dtype = dtype or _var_dtype(
        self, name=name if name in ("var_mean", "std_mean") else None
    )
    correction = 1 if correction is None else correction
    dims = reduction_dims(dim, self.dim())
    acc = accumulate_dtype(result_dtype).numpy
    axes = numpy_axes(self, dims)
    compute = acc if self._dtype.category != dt.COMPLEX else self._array.dtype
    spread = functools.partial(_variance, self._array, axes, keepdim, correction, take_sqrt,
                               compute, result_dtype.numpy)  # fmt: skip
    # ``warn_invalid_degrees_of_freedom``: the factor is numel / output numel, 0 for an
    # empty output (whatever the reduced dims' sizes).
    kept = [n for d, n in enumerate(self._size) if d not in dims]
    factor = reduction_factor(self, dims) if math.prod(kept) else 0
    if factor - correction > 0:
        result = spread()
    else:
        name = name or ("std" if take_sqrt else "var")
        warn_at_user_code(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = spread()
    return wrap_result(result, result_dtype)


@ignoring_float_errors(all="ignore")  # inf - inf is a nan variance, silently, as in PyTorch
def _variance(array, axes, keepdim, correction, take_sqrt, compute, result):
    """``np.var``/``np.std`` of ``array`` cast to ``compute``, in slices if long
    (``interruptible``), each cast as it is read: PyTorch reads a half input in place.

    The slices' moments are computed in double, as PyTorch's CPU ``WelfordOps`` keeps
    them: a ``float32`` mean of values near 10**4 is off by 10**-3, which the merge
    would square into the spread."""
    np_reduce = np.std if take_sqrt else np.var
    whole = functools.partial(_cast_then, np_reduce, compute, ddof=correction)
    wide = np.complex128 if np.issubdtype(compute, np.complexfloating) else np.float64
    parts = ReduceOps(
        functools.partial(_cast_then, _moments, wide),
        _merge_moments,
        functools.partial(_spread, correction=correction, take_sqrt=take_sqrt),
    )
    return interruptible(whole, array, axes, keepdim, parts=parts, result=result)


def _cast_then(np_reduce, compute, array, **options):
    return np_reduce(array if array.dtype == compute else array.astype(compute), **options)


# --- in slices: Chan's parallel combination -----------------------------------------------
# A variance is not a sum of partial variances. Each slice gives its count, mean and sum
# of squared deviations from its mean (``M2``); two slices' merge exactly, without going
# back to the elements (Chan, Golub & LeVeque, 1979), as PyTorch's ``WelfordOps::combine``
# merges its threads' partial results. A naive ``sum(x²) - n mean²`` would lose every
# digit when the mean is large beside the spread.


def _squared_magnitude(z):
    return z.real * z.real + z.imag * z.imag if np.iscomplexobj(z) else z * z


def _moments(block, axis, keepdims):
    """``(count, mean, M2)`` of a slice, each step as ``np.var`` takes it."""
    total = np.add.reduce(block, axis=axis, keepdims=True)
    count = block.size // total.size
    mean = total / count
    m2 = np.add.reduce(_squared_magnitude(block - mean), axis=axis, keepdims=keepdims)
    if not keepdims:
        mean = mean.reshape(m2.shape)
    return np.full(m2.shape, count, dtype=np.float64), mean, m2


def _merge_moments(partials, axis, keepdims):
    """Slices' ``(count, mean, M2)`` laid side by side along ``axis``, merged:
    ``M2 = sum M2_i + sum n_i |mean_i - mean|²``, ``mean = sum n_i mean_i / n``."""
    counts, means, m2s = partials
    count = np.add.reduce(counts, axis=axis, keepdims=True)
    mean = np.add.reduce(counts * means, axis=axis, keepdims=True) / count
    spread = m2s + counts * _squared_magnitude(means - mean)
    m2 = np.add.reduce(spread, axis=axis, keepdims=keepdims)
    return count.reshape(m2.shape), mean.reshape(m2.shape), m2


def _spread(partial, correction, take_sqrt):
    """``M2 / max(N - correction, 0)``, as ``np.var`` divides (inf or nan at zero)."""
    count, _, m2 = partial
    variance = m2 / np.maximum(count - correction, 0)
    return np.sqrt(variance) if take_sqrt else variance


def _std_kernel(self: Tensor, dim=None, *, correction=None, keepdim=False, dtype=None,
                name=None):  # fmt: skip
    return _var_kernel(self, dim, correction=correction, keepdim=keepdim, take_sqrt=True,
                       dtype=dtype, name=name)  # fmt: skip


def _var_mean_kernel(self: Tensor, dim=None, *, correction=None, keepdim=False):
    variance = _var_kernel(self, dim, correction=correction, keepdim=keepdim, name="var_mean")
    return variance, _mean_kernel(self, dim, keepdim)


def _std_mean_kernel(self: Tensor, dim=None, *, correction=None, keepdim=False):
    deviation = _std_kernel(self, dim, correction=correction, keepdim=keepdim, name="std_mean")
    return deviation, _mean_kernel(self, dim, keepdim)


def _unbiased_overloads(name: str, *, with_out: bool) -> dict:
    """The kernels of the overloads that say ``unbiased`` where newer code says
    ``correction`` (``var``, ``var.dim``, ``var.out``). Each calls the ``correction``
    overload (``unbiased=True`` is Bessel's ``correction=1``), as PyTorch's
    CompositeImplicitAutograd kernels do, so autograd records that overload's node."""

    def correction_overload(suffix: str = ""):  # declared below: looked up when called
        return OPERATORS[f"aten::{name}.correction{suffix}"]

    def whole(self: Tensor, unbiased=True):
        return correction_overload()(self, None, correction=int(unbiased))

    def along(self: Tensor, dim, unbiased=True, keepdim=False):
        return correction_overload()(self, dim, correction=int(unbiased), keepdim=keepdim)

    def along_out(self: Tensor, dim, unbiased=True, keepdim=False, *, out: Tensor):
        return correction_overload("_out")(self, dim, correction=int(unbiased), keepdim=keepdim,
                                           out=out)  # fmt: skip

    return {name: whole, f"{name}.dim": along, **({f"{name}.out": along_out} if with_out else {})}


# --- backward ---------------------------------------------------------------------------


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


# --- the declarations ---------------------------------------------------------------------
# The overloads are declared in the order PyTorch's parser tries them: ``x.var()`` fits
# ``var.correction`` (``correction=None``) before the older ``var(t, unbiased)``.

_VAR_SAVES = ("self", "dim", "correction", "keepdim")

var = native_function(
    "var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
    "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> Tensor",
    "var(Tensor self, bool unbiased=True) -> Tensor",
    "var.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    "var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "var.correction": _var_kernel,
        "var.correction_out": computed_in_out_dtype(_var_kernel, _var_dtype),
        **_unbiased_overloads("var", with_out=True),
    },
    derivatives={
        "var.correction": Derivative(
            "VarBackward0",
            save=_VAR_SAVES,
            grads={
                "self": lambda grad, saved: var_backward(
                    grad, saved.self, saved.dim, saved.correction, saved.keepdim
                )
            },
        )
    },
    kinds={"var": COMPOSITE_IMPLICIT, "var.dim": COMPOSITE_IMPLICIT, "var.out": COMPOSITE_IMPLICIT},
    doc="``torch.var``: the spread around the mean, divided by ``N - correction`` "
    '(``correction=1``, "unbiased", by default).',
)
std = native_function(
    "std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
    "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> Tensor",
    "std(Tensor self, bool unbiased=True) -> Tensor",
    "std.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    "std.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "std.correction": _std_kernel,
        "std.correction_out": computed_in_out_dtype(_std_kernel, _var_dtype),
        **_unbiased_overloads("std", with_out=True),
    },
    derivatives={
        "std.correction": Derivative(
            "StdBackward0",
            save=(*_VAR_SAVES, "result"),
            grads={
                "self": lambda grad, saved: std_backward(
                    saved.result, grad, saved.self, saved.dim, saved.correction, saved.keepdim
                )
            },
        )
    },
    kinds={"std": COMPOSITE_IMPLICIT, "std.dim": COMPOSITE_IMPLICIT, "std.out": COMPOSITE_IMPLICIT},
    doc="``torch.std``: the square root of ``var``.",
)
var_mean = native_function(
    "var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) "
    "-> (Tensor, Tensor)",
    "var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> (Tensor, Tensor)",
    "var_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)",
    kernels={
        "var_mean.correction": _var_mean_kernel,
        **_unbiased_overloads("var_mean", with_out=False),
    },
    derivatives={
        "var_mean.correction": Derivative(
            "VarMeanBackward0",
            save=_VAR_SAVES,
            grads={"self": _var_mean_backward},
            multi_output=True,
        )
    },
    kinds={"var_mean": COMPOSITE_IMPLICIT, "var_mean.dim": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.var_mean``: ``(var, mean)`` in one call (a plain tuple).",
)
std_mean = native_function(
    "std_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) "
    "-> (Tensor, Tensor)",
    "std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False) -> (Tensor, Tensor)",
    "std_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)",
    kernels={
        "std_mean.correction": _std_mean_kernel,
        **_unbiased_overloads("std_mean", with_out=False),
    },
    derivatives={
        "std_mean.correction": Derivative(
            "StdMeanBackward0",
            save=(*_VAR_SAVES, "result0"),
            grads={"self": _std_mean_backward},
            multi_output=True,
        )
    },
    kinds={"std_mean": COMPOSITE_IMPLICIT, "std_mean.dim": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.std_mean``: ``(std, mean)`` in one call (a plain tuple).",
)

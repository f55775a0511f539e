"""Sum-like reductions: ``sum``, ``mean``, ``prod``, nan forms, ``logsumexp`` (``ReduceOps.cpp``).

Each folds the elements along ``dim`` by adding (or multiplying) them. The steps every
reduction shares live beside it: which dims (``reduction_args``), which dtype
(``reduction_dtypes``), one NumPy reduction over the strided input
(``reduction_machinery``), and the shapes of their gradients (``reduction_backward``).
The other families are ``min_max`` (``max``, ``argmax``…), ``variance`` (``var``,
``std``…), ``norms`` and ``logical_reductions`` (``all``, ``any``, ``count_nonzero``).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..derivatives import COMPOSITE, Derivative
from ..dispatcher import FUNCTIONAL, OUT
from ..dtypes import dtype as DType
from ..promotion import check_can_cast
from ..shape import wrap_dim
from ..tensor import Tensor
from .creation import ones
from .joining import cat
from .reduction_args import (
    check_dtype_argument,
    invalid_arguments,
    is_int,
    numpy_axes,
    parse_dims,
    reduction_dims,
    reduction_factor,
)
from .reduction_backward import mean_backward, sum_backward, unsqueeze_reduced
from .reduction_dtypes import accumulate_dtype, check_out_dtype, computed_in_out_dtype, input_as
from .reduction_machinery import bind_methods, call, declare_pair, reduce_with, wrap_result
from .registry import check_tensor, declare

__all__ = [
    "sum",
    "mean",
    "nansum",
    "nanmean",
    "prod",
    "logsumexp",
]


# --- sum, mean, prod and their nan-ignoring forms ---------------------------------------


def sum_dtype(input_dtype: DType) -> DType:
    """Integers and bools sum to int64 (so ``uint8`` sums don't wrap around at 256)."""
    return dt.int64 if input_dtype.category <= dt.INTEGRAL else input_dtype


def _sum_kernel(self: Tensor, dim, keepdim=False, *, dtype=None) -> Tensor:
    return reduce_with(np.sum, self, dim, keepdim, dtype or sum_dtype(self._dtype))


def _nansum_kernel(self: Tensor, dim, keepdim=False, *, dtype=None) -> Tensor:
    return reduce_with(np.nansum, self, dim, keepdim, dtype or sum_dtype(self._dtype))


def _prod_kernel(self: Tensor, dim, keepdim=False, *, dtype=None) -> Tensor:
    return reduce_with(np.prod, self, dim, keepdim, dtype or sum_dtype(self._dtype))


def _mean_kernel(self: Tensor, dim, keepdim=False, *, dtype=None) -> Tensor:
    """The sum divided by how many elements went into it (0/0 is nan for empty input)."""
    dim = reduction_dims(dim, self.dim())
    result_dtype = dtype or self._dtype
    acc = accumulate_dtype(result_dtype).numpy
    with np.errstate(all="ignore"):
        total = np.sum(input_as(self, acc), axis=numpy_axes(self, dim), dtype=acc,
                       keepdims=keepdim)  # fmt: skip
        result = np.true_divide(total, reduction_factor(self, dim), dtype=acc)
    return wrap_result(result, result_dtype)


def _sum_all_kernel(self: Tensor, *, dtype=None) -> Tensor:
    return _sum_kernel(self, None, dtype=dtype)


def _mean_all_kernel(self: Tensor, *, dtype=None) -> Tensor:
    return _mean_kernel(self, None, dtype=dtype)


def _prod_all_kernel(self: Tensor, *, dtype=None) -> Tensor:
    return _prod_kernel(self, None, dtype=dtype)


def _nanmean_composite(self: Tensor, dim, keepdim=False, *, dtype=None) -> Tensor:
    """``nanmean`` is built from other operators (CompositeImplicitAutograd), as in
    PyTorch: the ``nansum`` divided by how many elements are not nan. Its backward is
    theirs: a ``DivBackward0`` node, then a ``NansumBackward0``."""
    not_nan = self.isnan().logical_not().sum(dim, keepdim)
    return nansum(self, dim, keepdim, dtype=dtype).div(not_nan)


def _nanmean_out_composite(self: Tensor, dim, keepdim=False, *, dtype=None, out) -> Tensor:
    not_nan = self.isnan().logical_not().sum(dim, keepdim)
    return nansum(self, dim, keepdim, dtype=dtype, out=out).div_(not_nan)


def prod_safe_zeros_backward(grad: Tensor, input: Tensor, dim: int) -> Tensor:
    """The gradient of a product for each element is the product of all the *others*:
    the product of those before it times the product of those after it (two exclusive
    running products). No division, so it is right where elements are zero."""
    if input.numel() == 0:
        return grad.expand(input.shape)
    n = input.shape[dim]
    one = ones([1 if d == dim else s for d, s in enumerate(input.shape)], dtype=grad.dtype)
    before = cat([one, input.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    after = cat([one, input.narrow(dim, 1, n - 1).flip(dim)], dim).cumprod(dim).flip(dim)
    return grad * (before * after)


def prod_backward(grad: Tensor, input: Tensor, result: Tensor, dim=None, keepdim=False):
    """``prod_backward``: ``d(x0 * x1 * ...)/dx_i`` is the product of the other elements,
    which is ``result / x_i`` as long as no element is zero. With a zero, that division
    is 0/0: the safe (division-free) formula runs instead."""
    if input.dim() == 0:
        return grad
    has_zero = (input == 0).any().item()
    if dim is None:  # the full product: the flattened input is one slice
        if not has_zero:
            return grad * (result / input)
        return prod_safe_zeros_backward(grad, input.reshape(-1), 0).reshape(input.shape)
    grad = unsqueeze_reduced(grad, (dim,), input.dim(), keepdim)
    if not has_zero:
        return grad * (unsqueeze_reduced(result, (dim,), input.dim(), keepdim) / input)
    return prod_safe_zeros_backward(grad, input, dim)


_SUM_SCHEMA = "(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"
_FULL_SCHEMA = "(Tensor self, *, ScalarType? dtype=None) -> Tensor"
# ``x.sum()`` and ``x.sum(dim)`` are two overloads, with two nodes: SumBackward0/1.
_sum_all_op = declare(f"sum{_FULL_SCHEMA}", FUNCTIONAL, _sum_all_kernel, Derivative(
    "SumBackward0", save=("self_sym_sizes",),
    grads={"self": lambda grad, saved: grad.expand(saved.self_sym_sizes)},
))  # fmt: skip
_sum_op, _sum_out_op = declare_pair(
    f"sum.dim_IntList{_SUM_SCHEMA} -> Tensor",
    f"sum.IntList_out{_SUM_SCHEMA[:-1]}, Tensor(a!) out) -> Tensor(a!)",
    _sum_kernel,
    derivative=Derivative(
        "SumBackward1",
        save=("self_sym_sizes", "dim", "keepdim"),
        grads={
            "self": lambda grad, saved: sum_backward(
                grad, saved.self_sym_sizes, saved.dim, saved.keepdim
            )
        },
    ),
)
_nansum_op, _nansum_out_op = declare_pair(
    f"nansum{_SUM_SCHEMA} -> Tensor",
    f"nansum.out{_SUM_SCHEMA[:-1]}, Tensor(a!) out) -> Tensor(a!)",
    _nansum_kernel,
    # A nan added nothing, so it gets no gradient.
    derivative=Derivative(
        "NansumBackward0",
        save=("self", "dim", "keepdim"),
        grads={
            "self": lambda grad, saved: (
                sum_backward(grad, saved.self.shape, saved.dim, saved.keepdim)
                * saved.self.isnan().logical_not()
            )
        },
    ),
)
_mean_all_op = declare(f"mean{_FULL_SCHEMA}", FUNCTIONAL, _mean_all_kernel, Derivative(
    "MeanBackward0", save=("self_sym_sizes", "self_sym_numel"),
    grads={"self": lambda grad, saved: grad.expand(saved.self_sym_sizes) / saved.self_sym_numel},
))  # fmt: skip
_mean_op, _mean_out_op = declare_pair(
    f"mean.dim{_SUM_SCHEMA} -> Tensor",
    f"mean.out{_SUM_SCHEMA[:-1]}, Tensor(a!) out) -> Tensor(a!)",
    _mean_kernel,
    derivative=Derivative(
        "MeanBackward1",
        save=("self_sym_sizes", "self_sym_numel", "dim", "keepdim"),
        grads={
            "self": lambda grad, saved: mean_backward(
                grad, saved.self_sym_sizes, saved.dim, saved.keepdim
            )
        },
    ),
)
_nanmean_op = declare(f"nanmean{_SUM_SCHEMA} -> Tensor", FUNCTIONAL, _nanmean_composite,
                      COMPOSITE)  # fmt: skip
_nanmean_out_op = declare(f"nanmean.out{_SUM_SCHEMA[:-1]}, Tensor(a!) out) -> Tensor(a!)", OUT,
                          _nanmean_out_composite, COMPOSITE)  # fmt: skip
_prod_all_op = declare(f"prod{_FULL_SCHEMA}", FUNCTIONAL, _prod_all_kernel, Derivative(
    "ProdBackward0", save=("self", "result"),
    grads={"self": lambda grad, saved: prod_backward(grad, saved.self, saved.result)},
))  # fmt: skip
_PROD_SCHEMA = "(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None)"
_prod_op, _prod_out_op = declare_pair(
    f"prod.dim_int{_PROD_SCHEMA} -> Tensor",
    f"prod.int_out{_PROD_SCHEMA[:-1]}, Tensor(a!) out) -> Tensor(a!)",
    _prod_kernel,
    derivative=Derivative(
        "ProdBackward1",
        save=("self", "result", "dim", "keepdim"),
        grads={
            "self": lambda grad, saved: prod_backward(
                grad, saved.self, saved.result, saved.dim, saved.keepdim
            )
        },
    ),
)


class _Omitted:
    """The default of ``dim`` in ``sum``, ``mean`` and ``prod``. PyTorch's argument parser
    tells an omitted ``dim`` from ``dim=None``: ``x.sum()`` calls the full-reduction
    overload ``sum`` (node ``SumBackward0``), ``x.sum(dim=None)`` calls
    ``sum.dim_IntList`` (node ``SumBackward1``), although both add up every element."""

    def __repr__(self) -> str:
        return "<omitted>"


OMITTED = _Omitted()

_SUM_SIGNATURES = [
    "*, vizgrad.dtype dtype = None",
    "tuple of ints dim, bool keepdim = False, *, vizgrad.dtype dtype = None",
]


def _sum_like_result_dtype(fn_name, input, dtype, out, *, float_only=False) -> DType | None:
    """The dtype a sum-like reduction computes in: ``dtype=``, else ``out``'s, else the
    input's (widened to int64 for integers). ``mean`` can't infer one from integers."""
    if dtype is not None and out is not None:
        check_out_dtype(out, dtype)
    if float_only:
        result = dtype or input._dtype
        if result.category < dt.FLOATING:
            which = "Optional" if dtype is not None else "Input"
            raise RuntimeError(
                f"{fn_name}(): could not infer output dtype. {which} dtype must be either a "
                f"floating point or complex dtype. Got: {result.scalar_name}"
            )
        if dtype is None and out is not None:
            # An ``out=`` tensor of a wider type is the dtype the mean is computed in.
            check_can_cast(result, out._dtype)
            return out._dtype
        return dtype
    if dtype is None and out is not None:
        return out._dtype
    return dtype


def _sum_like(fn_name, ops, input, dim, keepdim, dtype, out, *, float_only=False):
    """``sum``-like reductions: ``ops`` is ``(full_op, dim_op, dim_out_op)``; the full
    overload, when there is one, is what a call without ``dim`` selects."""
    full_op, dim_op, dim_out_op = ops
    check_tensor(fn_name, input, "input", 1)
    check_dtype_argument(fn_name, dtype)
    if dim is OMITTED:
        if full_op is None:
            dim = None
        elif keepdim is not False or out is not None:
            # Only the overload with ``dim`` takes ``keepdim`` and ``out``.
            given = {"keepdim": keepdim} if keepdim is not False else {"out": out}
            raise invalid_arguments(fn_name, (input,), given, _SUM_SIGNATURES)
        else:
            _sum_like_result_dtype(fn_name, input, dtype, None, float_only=float_only)
            return full_op(input, dtype=dtype)
    dims = parse_dims(fn_name, input, dim, keepdim, _SUM_SIGNATURES)
    dtype = _sum_like_result_dtype(fn_name, input, dtype, out, float_only=float_only)
    return call(dim_op, dim_out_op, (input, dims, keepdim), out, dtype=dtype)


def sum(input, dim=OMITTED, keepdim=False, *, dtype=None, out=None):  # noqa: A001
    """``torch.sum``: add up the elements over ``dim`` (all of them by default).

    Integers and bools sum to int64; ``dtype=`` casts the input before adding.
    """
    ops = (_sum_all_op, _sum_op, _sum_out_op)
    return _sum_like("sum", ops, input, dim, keepdim, dtype, out)


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """``torch.nansum``: ``sum`` that treats nan as zero."""
    ops = (None, _nansum_op, _nansum_out_op)
    return _sum_like("nansum", ops, input, dim, keepdim, dtype, out)


def mean(input, dim=OMITTED, keepdim=False, *, dtype=None, out=None):
    """``torch.mean``: the average over ``dim``; only floating and complex inputs (or
    an integer input with a floating ``dtype=``)."""
    ops = (_mean_all_op, _mean_op, _mean_out_op)
    return _sum_like("mean", ops, input, dim, keepdim, dtype, out, float_only=True)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """``torch.nanmean``: the average of the elements that are not nan."""
    check_tensor("nanmean", input, "input", 1)
    if input._dtype.category < dt.FLOATING:
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{input._dtype.scalar_name}"
        )
    ops = (None, _nanmean_op, _nanmean_out_op)
    return _sum_like("nanmean", ops, input, dim, keepdim, dtype, out, float_only=True)


def prod(input, dim=OMITTED, keepdim=False, *, dtype=None, out=None):
    """``torch.prod``: multiply the elements over one ``dim`` (or all of them)."""
    check_tensor("prod", input, "input", 1)
    check_dtype_argument("prod", dtype)
    full_call = dim is OMITTED and keepdim is False and out is None
    if not (full_call or is_int(dim)) or not isinstance(keepdim, bool):
        signatures = [
            "*, vizgrad.dtype dtype = None",
            "int dim, bool keepdim = False, *, vizgrad.dtype dtype = None",
        ]
        given = (input,) if dim is OMITTED else (input, dim)
        raise invalid_arguments("prod", given, {"keepdim": keepdim}, signatures)
    if full_call:
        return _prod_all_op(input, dtype=dtype)
    dtype = _sum_like_result_dtype("prod", input, dtype, out)
    return call(_prod_op, _prod_out_op, (input, wrap_dim(dim, input.dim()), keepdim), out,
                dtype=dtype)  # fmt: skip


def _logsumexp_input_dtype(t: Tensor) -> DType:
    """Integers and bools become the default float dtype first."""
    return t._dtype if t._dtype.category >= dt.FLOATING else dt.get_default_dtype()


def _logsumexp_kernel(self: Tensor, dim, keepdim=False, *, result_dtype=None) -> Tensor:
    """``log(sum(exp(x - max))) + max``: subtracting the largest element first keeps
    ``exp`` from overflowing. An infinite maximum is replaced by 0 so that
    ``inf - inf`` never makes a nan. The sum runs in ``result_dtype`` (an ``out=``
    tensor's), the exponentials in the input's float type, as PyTorch does.
    """
    dim = reduction_dims(dim, self.dim())
    input_dtype = _logsumexp_input_dtype(self)
    result_dtype = result_dtype or input_dtype
    compute = accumulate_dtype(input_dtype).numpy
    acc = accumulate_dtype(result_dtype).numpy
    axes = numpy_axes(self, dim)
    array = self._array if self._array.dtype == compute else self._array.astype(compute)
    with np.errstate(all="ignore"):
        if array.size == 0:
            total = np.sum(np.exp(array), axis=axes, dtype=acc, keepdims=keepdim)
            return wrap_result(np.log(total), result_dtype)
        largest = np.max(array, axis=axes, keepdims=True)
        largest = np.where(np.isinf(largest), 0, largest)
        total = np.sum(np.exp(array - largest), axis=axes, dtype=acc, keepdims=keepdim)
        if not keepdim:
            largest = largest.reshape(total.shape)
        result = np.log(total) + largest.astype(acc)
    return wrap_result(result, result_dtype)


def _check_logsumexp_out(out: Tensor) -> None:
    if out._dtype.category < dt.FLOATING:
        raise RuntimeError(
            "logsumexp(): Expected floating point type for result tensor, but got: "
            f"{out._dtype.scalar_name}"
        )


def logsumexp_backward(grad: Tensor, self: Tensor, result: Tensor, dim, keepdim: bool):
    """``d/dx_i log(sum_j exp(x_j)) = exp(x_i) / sum_j exp(x_j) = exp(x_i - result)``:
    the softmax of the slice."""
    grad = unsqueeze_reduced(grad, dim, self.dim(), keepdim)
    result = unsqueeze_reduced(result, dim, self.dim(), keepdim)
    return grad * (self - result).exp()


_LOGSUMEXP_SCHEMA = "(Tensor self, int[1] dim, bool keepdim=False"
_logsumexp_op = declare(
    f"logsumexp{_LOGSUMEXP_SCHEMA}) -> Tensor", FUNCTIONAL, _logsumexp_kernel, Derivative(
        "LogsumexpBackward0", save=("self", "result", "dim", "keepdim"), grads={
            "self": lambda grad, saved: logsumexp_backward(grad, saved.self, saved.result,
                                                           saved.dim, saved.keepdim)}))  # fmt: skip
_logsumexp_out_op = declare(
    f"logsumexp.out{_LOGSUMEXP_SCHEMA}, *, Tensor(a!) out) -> Tensor(a!)", OUT,
    computed_in_out_dtype(_logsumexp_kernel, _logsumexp_input_dtype, _check_logsumexp_out),
)  # fmt: skip


def logsumexp(input, dim, keepdim=False, *, out=None):
    """``torch.logsumexp``: ``log(sum(exp(input)))`` over ``dim``, computed stably."""
    check_tensor("logsumexp", input, "input", 1)
    signature = "Tensor input, tuple of ints dim, bool keepdim = False, *, Tensor out = None"
    dims = parse_dims("logsumexp", input, dim, keepdim, [signature])
    return call(_logsumexp_op, _logsumexp_out_op, (input, dims, keepdim), out)


bind_methods(sum, mean, nansum, nanmean, prod, logsumexp)

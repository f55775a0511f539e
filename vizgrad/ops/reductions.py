"""Sum-like reductions: ``sum``, ``mean``, ``prod``, nan forms, ``logsumexp`` (``ReduceOps.cpp``).

Each folds the elements along ``dim`` by adding (or multiplying) them. The steps every
reduction shares live beside it: which dims (``reduction_args``), which dtype
(``reduction_dtypes``), one NumPy reduction over the strided input
(``reduction_machinery``), and the shapes of their gradients (``reduction_backward``).
The other families are ``min_max`` (``max``, ``argmax``…), ``variance`` (``var``,
``std``…), ``norms`` and ``logical_reductions`` (``all``, ``any``, ``count_nonzero``).

``x.sum()`` and ``x.sum(dim)`` are two overloads with two nodes (``SumBackward0`` and
``SumBackward1``): the argument parser tells an omitted ``dim`` (``sum``) from
``dim=None`` (``sum.dim_IntList``), although both add up every element.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import dtype as DType
from ..promotion import can_cast, check_can_cast
from ..shape import wrap_dim
from ..tensor import Tensor
from .declaration import native_function
from .joining import cat
from .reduction_args import numpy_axes, reduction_dims, reduction_factor
from .reduction_backward import mean_backward, sum_backward, unsqueeze_reduced
from .reduction_dtypes import accumulate_dtype, computed_in_out_dtype, input_as, sum_dtype
from .reduction_machinery import interruptible, interruptible_into, reduce_with, wrap_result
from .registry import write_to_out

__all__ = [
    "sum",
    "mean",
    "nansum",
    "nanmean",
    "prod",
    "logsumexp",
]


# --- sum and nansum -----------------------------------------------------------------------


def _sum_kernel(self: Tensor, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    # ``np.add.reduce`` is what ``np.sum`` calls for an array, without its Python wrapper.
    return reduce_with(np.add.reduce, self, dim, keepdim, dtype or sum_dtype(self._dtype))


def nansum_dtype(self: Tensor, dtype=None) -> DType:
    """``nansum``'s checks and the dtype it sums in (and returns): complex inputs are
    refused, and a floating input summed as complex is not a kernel compiled."""
    if self._dtype.category == dt.COMPLEX:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    compute = dtype or sum_dtype(self._dtype)
    floating_input = self._dtype.category >= dt.FLOATING
    if floating_input and compute.category == dt.COMPLEX and self.numel():
        raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{compute.scalar_name}'")
    return compute


def _nansum_kernel(self: Tensor, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    """``nansum``: integers have no nan, so they are plainly summed; complex is refused. A
    floating input skips its nans, then each element is cast to ``dtype`` (an integer
    ``dtype`` truncates each one, as ``sum`` does); a complex ``dtype`` is not one the CPU
    kernel is compiled for."""
    compute = nansum_dtype(self, dtype)
    if self._dtype.category < dt.FLOATING:
        return _sum_kernel(self, dim, keepdim, dtype=dtype)
    if compute.category < dt.FLOATING:
        zeroed = Tensor._from_array(np.where(np.isnan(self._array), 0, self._array), self._dtype)
        return _sum_kernel(zeroed, dim, keepdim, dtype=compute)
    return reduce_with(np.nansum, self, dim, keepdim, compute, combine=np.add.reduce)


def nansum_out(kernel):
    """``nansum.out`` of ``kernel`` (the CPU one, or the meta one): without ``dtype=``, a
    floating input is summed in ``out``'s dtype, which must be floating (``nansum_cpu``'s
    dispatch)."""
    in_out_dtype = computed_in_out_dtype(kernel)

    def out_kernel(self: Tensor, dim=None, keepdim=False, *, dtype=None, out: Tensor):
        if self._dtype.category == dt.COMPLEX:
            raise RuntimeError("nansum on CPU does not support complex inputs")
        floating_input = self._dtype.category == dt.FLOATING
        if (dtype is None and floating_input and out._dtype.category != dt.FLOATING
                and self.numel()):  # fmt: skip
            raise NotImplementedError(
                f"\"nansum_cpu\" not implemented for '{out._dtype.scalar_name}'"
            )
        return in_out_dtype(self, dim, keepdim, dtype=dtype, out=out)

    return out_kernel


_nansum_out_kernel = nansum_out(_nansum_kernel)


sum = native_function(  # noqa: A001 - PyTorch's name
    "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
    "-> Tensor",
    "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_sum_kernel,
    kernels={"sum.IntList_out": computed_in_out_dtype(_sum_kernel)},
    # Every element added into a result element gets that element's gradient.
    derivatives={
        "sum": Derivative(
            "SumBackward0",
            save=("self_sym_sizes",),
            grads={"self": lambda grad, saved: grad.expand(saved.self_sym_sizes)},
            complex=True,
        ),
        "sum.dim_IntList": Derivative(
            "SumBackward1",
            save=("self_sym_sizes", "dim", "keepdim"),
            grads={
                "self": lambda grad, saved: sum_backward(
                    grad, saved.self_sym_sizes, saved.dim, saved.keepdim
                )
            },
            complex=True,
        ),
    },
    doc="""``torch.sum``: add up the elements over ``dim`` (all of them by default).

    Integers and bools sum to int64; ``dtype=`` casts the input before adding.
    """,
)

nansum = native_function(
    "nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) "
    "-> Tensor",
    "nansum.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_nansum_kernel,
    kernels={"nansum.out": _nansum_out_kernel},
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
    doc="``torch.nansum``: ``sum`` that treats nan as zero.",
)


# --- mean and nanmean ---------------------------------------------------------------------


def _mean_dtype(self: Tensor, dtype: DType | None, fn_name: str = "mean") -> DType:
    """What a mean returns: ``dtype=``, else the input's dtype, which must be floating or
    complex (the mean of integers is not an integer, and PyTorch won't guess a float)."""
    result = dtype or self._dtype
    if result.category < dt.FLOATING:
        which = "Optional" if dtype is not None else "Input"
        raise RuntimeError(
            f"{fn_name}(): could not infer output dtype. {which} dtype must be either a "
            f"floating point or complex dtype. Got: {result.scalar_name}"
        )
    return result


def _mean_kernel(self: Tensor, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    """The sum divided by how many elements went into it (0/0 is nan for empty input)."""
    result_dtype = _mean_dtype(self, dtype)
    dims = reduction_dims(dim, self.dim())
    acc = accumulate_dtype(result_dtype).numpy
    with np.errstate(all="ignore"):
        total = interruptible(np.add.reduce, input_as(self, acc), numpy_axes(self, dims),
                              keepdim, result=result_dtype.numpy, dtype=acc)  # fmt: skip
        result = np.true_divide(total, reduction_factor(self, dims), dtype=acc)
    return wrap_result(result, result_dtype)


def mean_dtype_out(kernel):
    """``mean.dtype_out`` of ``kernel`` (the CPU one, or the meta one): ``out`` must hold
    the mean's dtype, in its own words; then computed in ``out``'s dtype."""
    in_out_dtype = computed_in_out_dtype(kernel, _mean_dtype)

    def out_kernel(self: Tensor, *, dtype=None, out: Tensor) -> Tensor:
        if not can_cast(_mean_dtype(self, dtype), out._dtype):
            raise RuntimeError(
                "mean.dtype_out(): input types can't be cast to the desired output type "
                f"{out._dtype.scalar_name}"
            )
        return in_out_dtype(self, dtype=dtype, out=out)

    return out_kernel


mean = native_function(
    "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_mean_kernel,
    kernels={
        "mean.dtype_out": mean_dtype_out(_mean_kernel),
        "mean.out": computed_in_out_dtype(_mean_kernel, _mean_dtype),
    },
    # A mean is a sum divided by the count: its gradient is the sum's, divided too.
    derivatives={
        "mean": Derivative(
            "MeanBackward0",
            save=("self_sym_sizes", "self_sym_numel"),
            grads={
                "self": lambda grad, saved: grad.expand(saved.self_sym_sizes) / saved.self_sym_numel
            },
            complex=True,
        ),
        "mean.dim": Derivative(
            "MeanBackward1",
            save=("self_sym_sizes", "self_sym_numel", "dim", "keepdim"),
            grads={
                "self": lambda grad, saved: mean_backward(
                    grad, saved.self_sym_sizes, saved.dim, saved.keepdim
                )
            },
            complex=True,
        ),
    },
    doc="``torch.mean``: the average over ``dim``; only floating and complex inputs (or an "
    "integer input with a floating ``dtype=``).",
)


def _check_nanmean_input(self: Tensor) -> None:
    if self._dtype.category < dt.FLOATING:
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{self._dtype.scalar_name}"
        )


def _nanmean_composite(self: Tensor, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    """``nanmean`` is built from other operators (CompositeImplicitAutograd), as in
    PyTorch: the ``nansum`` divided by how many elements are not nan. Its backward is
    theirs: a ``DivBackward0`` node, then a ``NansumBackward0``."""
    _check_nanmean_input(self)
    _mean_dtype(self, dtype, "nanmean")
    not_nan = self.isnan().logical_not().sum(dim, keepdim)
    return nansum(self, dim, keepdim, dtype=dtype).div(not_nan)


def _nanmean_out_composite(self: Tensor, dim=None, keepdim=False, *, dtype=None, out) -> Tensor:
    """``nansum`` into ``out`` (computed in its dtype), then divided there in place: two
    writes of ``out``, as in PyTorch."""
    if self._dtype.category < dt.FLOATING:  # (``nanmean.out`` words it its own way)
        raise RuntimeError(
            "nanmean(): integral types and 'Bool' are not supported for nanmean, even for "
            "empty tensors."
        )
    # (No cast check of ``out``: ``nansum.out`` computes in its dtype, or refuses it.)
    not_nan = self.isnan().logical_not().sum(dim, keepdim)
    return nansum(self, dim, keepdim, dtype=dtype, out=out).div_(not_nan)


nanmean = native_function(
    "nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) "
    "-> Tensor",
    "nanmean.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernels={"nanmean": _nanmean_composite, "nanmean.out": _nanmean_out_composite},
    kinds={"nanmean": COMPOSITE_IMPLICIT, "nanmean.out": COMPOSITE_IMPLICIT},
    doc="``torch.nanmean``: the average of the elements that are not nan.",
)


# --- prod -------------------------------------------------------------------------------


def _prod_kernel(self: Tensor, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    return reduce_with(np.prod, self, dim, keepdim, dtype or sum_dtype(self._dtype))


def prod_safe_zeros_backward(grad: Tensor, input: Tensor, dim: int) -> Tensor:
    """The gradient of a product for each element is the product of all the *others*:
    the product of those before it times the product of those after it (two exclusive
    running products). No division, so it is right where elements are zero."""
    if input.numel() == 0:
        return grad.expand(input.shape)
    n = input.shape[dim]
    one = grad.new_ones([1 if d == dim else s for d, s in enumerate(input.shape)])
    before = cat([one, input.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    after = cat([one, input.narrow(dim, 1, n - 1).flip(dim)], dim).cumprod(dim).flip(dim)
    return grad * (before * after)


def prod_backward(grad: Tensor, input: Tensor, result: Tensor, dim=None, keepdim=False):
    """``prod_backward``: ``d(x0 * x1 * ...)/dx_i`` is the product of the other elements,
    which is ``result / x_i`` as long as no element is zero. With a zero, that division
    is 0/0: the safe (division-free) formula runs instead."""
    if input.dim() == 0:
        return grad
    # On the meta device there is no value to branch on: PyTorch takes the safe formula.
    has_zero = input.is_meta or (input == 0).any().item()
    if dim is None:  # the full product: the flattened input is one slice
        if not has_zero:
            return grad * (result / input)
        return prod_safe_zeros_backward(grad, input.reshape(-1), 0).reshape(input.shape)
    dim = wrap_dim(dim, input.dim())  # saved as the caller gave it
    grad = unsqueeze_reduced(grad, (dim,), input.dim(), keepdim)
    if not has_zero:
        return grad * (unsqueeze_reduced(result, (dim,), input.dim(), keepdim) / input)
    return prod_safe_zeros_backward(grad, input, dim)


prod = native_function(
    "prod(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_prod_kernel,
    kernels={"prod.int_out": computed_in_out_dtype(_prod_kernel)},
    derivatives={
        "prod": Derivative(
            "ProdBackward0",
            save=("self", "result"),
            grads={"self": lambda grad, saved: prod_backward(grad, saved.self, saved.result)},
        ),
        "prod.dim_int": Derivative(
            "ProdBackward1",
            save=("self", "result", "dim", "keepdim"),
            grads={
                "self": lambda grad, saved: prod_backward(
                    grad, saved.self, saved.result, saved.dim, saved.keepdim
                )
            },
        ),
    },
    doc="``torch.prod``: multiply the elements over one ``dim`` (or all of them).",
)


# --- logsumexp ----------------------------------------------------------------------------


def _logsumexp_input_dtype(t: Tensor) -> DType:
    """Integers and bools become the default float dtype first."""
    return t._dtype if t._dtype.category >= dt.FLOATING else dt.get_default_dtype()


def _logsumexp_kernel(self: Tensor, dim, keepdim=False, *, dtype=None) -> Tensor:
    """``log(sum(exp(x - max))) + max``: subtracting the largest element first keeps
    ``exp`` from overflowing. An infinite maximum is replaced by 0 so that
    ``inf - inf`` never makes a nan. The sum runs in ``dtype`` (an ``out=`` tensor's),
    the exponentials in the input's float type, as PyTorch does.
    """
    dims = reduction_dims(dim, self.dim())
    input_dtype = _logsumexp_input_dtype(self)
    result_dtype = dtype or input_dtype
    compute = accumulate_dtype(input_dtype).numpy
    acc = accumulate_dtype(result_dtype).numpy
    axes = numpy_axes(self, dims)
    array = self._array if self._array.dtype == compute else self._array.astype(compute)
    with np.errstate(all="ignore"):
        if array.size == 0:
            total = np.sum(np.exp(array), axis=axes, dtype=acc, keepdims=keepdim)
            return wrap_result(np.log(total), result_dtype)
        # Each step in slices (``interruptible``), so Ctrl-C stops a long one, and with
        # PyTorch's allocations: ``amax`` reads the input in place (hours, for a huge
        # ``expand``), then ``self - maxes`` is a full copy (which, too big, fails as
        # PyTorch's does), exponentiated in place and summed.
        largest = interruptible(np.max, array, axes, True)
        largest = np.where(np.isinf(largest), 0, largest)
        shifted = interruptible_into(np.subtract, np.empty(array.shape, compute), array, largest)
        interruptible_into(np.exp, shifted, shifted)
        total = interruptible(np.add.reduce, shifted, axes, keepdim, result=acc, dtype=acc)
        if not keepdim:
            largest = largest.reshape(total.shape)
        result = np.log(total) + largest.astype(acc)
    return wrap_result(result, result_dtype)


def logsumexp_out(kernel):
    """``logsumexp.out`` of ``kernel`` (the CPU one, or the meta one): computed in
    ``out``'s dtype, which must be a floating one."""

    def out_kernel(self: Tensor, dim, keepdim=False, *, out: Tensor) -> Tensor:
        if out._dtype.category < dt.FLOATING:
            raise RuntimeError(
                "logsumexp(): Expected floating point type for result tensor, but got: "
                f"{out._dtype.scalar_name}"
            )
        check_can_cast(_logsumexp_input_dtype(self), out._dtype)
        return write_to_out(kernel(self, dim, keepdim, dtype=out._dtype), out)

    return out_kernel


_logsumexp_out_kernel = logsumexp_out(_logsumexp_kernel)


def logsumexp_backward(grad: Tensor, self: Tensor, result: Tensor, dim, keepdim: bool):
    """``d/dx_i log(sum_j exp(x_j)) = exp(x_i) / sum_j exp(x_j) = exp(x_i - result)``:
    the softmax of the slice."""
    grad = unsqueeze_reduced(grad, dim, self.dim(), keepdim)
    result = unsqueeze_reduced(result, dim, self.dim(), keepdim)
    return grad * (self - result).exp()


logsumexp = native_function(
    "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
    "logsumexp.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_logsumexp_kernel,
    kernels={"logsumexp.out": _logsumexp_out_kernel},
    derivative=Derivative(
        "LogsumexpBackward0",
        save=("self", "result", "dim", "keepdim"),
        grads={
            "self": lambda grad, saved: logsumexp_backward(
                grad, saved.self, saved.result, saved.dim, saved.keepdim
            )
        },
    ),
    doc="``torch.logsumexp``: ``log(sum(exp(input)))`` over ``dim``, computed stably.",
)

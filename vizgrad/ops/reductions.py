"""Reductions: ``sum``, ``mean``, ``max``, ``var``… over ``dim`` (PyTorch's ``ReduceOps.cpp``).

A reduction folds the elements along some dimensions into one value each. Every
reduction here follows the same three steps, as PyTorch's ``make_reduction`` does:

1. **Which dimensions.** ``dim`` may be ``None`` (all of them), an int, or a tuple of
   ints; negative dims count from the end; naming a dim twice is an error.
2. **Which dtype.** Integer sums widen to ``int64`` so they do not overflow, ``mean``
   refuses integers, ``dtype=`` casts the input before reducing, and half-precision
   inputs accumulate in ``float32`` (PyTorch's ``acc_type``).
3. **One NumPy reduction** over the strided view of the input (``t._array``) with
   ``axis=dims``: non-contiguous inputs are read in place, never copied first. The
   result is a fresh contiguous tensor, as PyTorch's reductions allocate.

``keepdim=True`` keeps each reduced dimension with size 1, so the result broadcasts
back against the input.
"""

from __future__ import annotations

import builtins
import math
import numbers
import operator
import warnings

import numpy as np

from .. import dtypes as dt
from .. import return_types
from ..autograd.formula import COMPOSITE, NON_DIFFERENTIABLE, Derivative
from ..dispatcher import FUNCTIONAL, OUT
from ..dtypes import dtype as DType
from ..promotion import check_can_cast
from ..shape import contiguous_strides, wrap_dim, wrap_dims
from ..tensor import Tensor
from .creation import ones, zeros
from .joining import cat
from .logical import where
from .registry import bind_method, check_tensor, declare, write_to_out

__all__ = [
    "sum",
    "mean",
    "nansum",
    "nanmean",
    "prod",
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "aminmax",
    "var",
    "std",
    "var_mean",
    "std_mean",
    "norm",
    "logsumexp",
    "all",
    "any",
    "count_nonzero",
]

# --- arguments -------------------------------------------------------------------------

# The C++ type names PyTorch's "Expected out tensor to have dtype ..." messages use.
CPP_TYPE_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "float16": "c10::Half", "float32": "float",
    "float64": "double", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}  # fmt: skip


def _python_type_name(value) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def invalid_arguments(fn_name: str, args: tuple, kwargs: dict, signatures: list[str]) -> TypeError:
    """PyTorch's argument parser error when no overload of ``fn_name`` fits the call."""
    got = [_python_type_name(a) for a in args]
    got += [f"{k}={_python_type_name(v)}" for k, v in kwargs.items()]
    options = "\n".join(f" * ({s})" for s in signatures)
    return TypeError(
        f"{fn_name}() received an invalid combination of arguments - got ({', '.join(got)}), "
        f"but expected one of:\n{options}\n"
    )


def is_int(value) -> bool:
    """An int for a ``dim`` argument (Python bools are ints to PyTorch's parser too)."""
    return isinstance(value, numbers.Integral) or (
        isinstance(value, Tensor) and value._dtype.category == dt.INTEGRAL and not value._size
    )


def is_int_sequence(value) -> bool:
    return isinstance(value, tuple | list) and builtins.all(is_int(v) for v in value)


def check_dtype_argument(fn_name: str, dtype) -> None:
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(
            f"{fn_name}(): argument 'dtype' must be vizgrad.dtype, not {type(dtype).__name__}"
        )


def check_int_dim(fn_name: str, dim, position: int = 2) -> None:
    """Ops whose ``dim`` is one int (``argmax``, ``sort``…) reject tuples, as PyTorch does."""
    if not is_int(dim):
        raise TypeError(
            f"{fn_name}(): argument 'dim' (position {position}) must be int, not "
            f"{type(dim).__name__}"
        )


def reduction_dims(dim, ndim: int, *, empty_means_all: bool = True) -> tuple[int, ...]:
    """``dim`` (None, an int, or a sequence of ints) as a tuple of wrapped dimensions.

    ``None`` reduces every dimension. An empty list also means every dimension for the
    ``sum`` family (PyTorch's historic ``dim=[]``), but no dimension for ``all``/``any``.
    A zero-dim tensor accepts dim ``0`` and ``-1``, as PyTorch does.
    """
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, tuple | list):
        dims = wrap_dims([operator.index(d) for d in dim], ndim)
        return tuple(range(ndim)) if not dims and empty_means_all else dims
    return (wrap_dim(dim, ndim),)


def given_dims(dim, ndim: int) -> tuple[int, ...] | None:
    """``dim`` as an operator receives it: ints wrapped into a tuple, but ``None`` and an
    empty list kept as they are (both mean every dimension, resolved by ``reduction_dims``
    in the kernel and the formula). Keeping the caller's form lets ``grad_fn._saved_dim``
    show what PyTorch's shows."""
    if dim is None:
        return None
    if isinstance(dim, tuple | list):
        return tuple(wrap_dims([operator.index(d) for d in dim], ndim))
    return (wrap_dim(dim, ndim),)


def numpy_axes(t: Tensor, dims: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy's ``axis=``: a zero-dim tensor's "dim 0" is no axis at all to NumPy."""
    return dims if t._size else ()


def reduced_shape(size: tuple, dims: tuple[int, ...], keepdim: bool) -> tuple[int, ...]:
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(size))
    return tuple(s for i, s in enumerate(size) if i not in dims)


def reduction_factor(t: Tensor, dims: tuple[int, ...]) -> int:
    """How many input elements fold into each output element."""
    return math.prod(t._size[d] for d in dims) if t._size else 1


def check_out_dtype(out: Tensor, expected: DType) -> None:
    """The ``out=`` tensor of most reductions must already have the result's dtype."""
    if out._dtype is not expected:
        raise RuntimeError(
            f"Expected out tensor to have dtype {CPP_TYPE_NAMES[expected.name]}, but got "
            f"{CPP_TYPE_NAMES[out._dtype.name]} instead"
        )


def check_out_tensors(fn_name: str, out, count: int) -> None:
    """``out=`` of an op with ``count`` results must be a tuple of that many tensors."""
    if count == 1:
        check_tensor(fn_name, out, "out", 2)
        return
    if not (isinstance(out, tuple | list) and len(out) == count):
        raise TypeError(
            f"{fn_name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
        )
    for t in out:
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{fn_name}(): argument 'out' must be tuple of Tensors, not {type(t).__name__}"
            )


# --- the shared kernel machinery -------------------------------------------------------


def accumulate_dtype(result_dtype: DType) -> DType:
    """``at::acc_type``: half precision adds up in float32, then rounds once at the end."""
    return dt.float32 if result_dtype is dt.float16 else result_dtype


def input_as(t: Tensor, np_dtype) -> np.ndarray:
    """The input's strided view, cast to ``np_dtype`` first only when NumPy can't cast
    while reducing (a float input summed as int64 is truncated element by element)."""
    array = t._array
    if np.can_cast(array.dtype, np_dtype, "same_kind"):
        return array
    return array.astype(np_dtype)


def wrap_result(array, dtype: DType) -> Tensor:
    """A NumPy result (maybe a NumPy scalar) as a new contiguous tensor of ``dtype``.

    NumPy may give a size-1 dimension any stride (``keepdims=True`` does); PyTorch's
    contiguous strides are canonical, so the array is re-viewed with those.
    """
    with np.errstate(all="ignore"):  # a float16 product may round to inf, as in PyTorch
        array = np.asarray(array, dtype=dtype.numpy)
    if not array.flags.c_contiguous:
        array = array.copy(order="C")
    canonical = tuple(s * array.itemsize for s in contiguous_strides(array.shape))
    if array.strides != canonical:
        array = np.lib.stride_tricks.as_strided(array, array.shape, canonical)
    return Tensor._from_array(array, dtype)


def reduce_with(np_reduce, t: Tensor, dims, keepdim: bool, result_dtype: DType) -> Tensor:
    """Run one NumPy reduction (``np.sum``, ``np.prod``…) over ``dims`` of ``t``."""
    dims = reduction_dims(dims, t.dim())
    acc = accumulate_dtype(result_dtype).numpy
    with np.errstate(all="ignore"):
        result = np_reduce(input_as(t, acc), axis=numpy_axes(t, dims), dtype=acc, keepdims=keepdim)
    return wrap_result(result, result_dtype)


def call(functional_op, out_op, args: tuple, out, **kwargs):
    """Call the functional overload, or the ``out=`` one when ``out`` was given."""
    if out is None:
        return functional_op(*args, **kwargs)
    return out_op(*args, out=out, **kwargs)


def parse_dims(fn_name: str, input, dim, keepdim, signatures, **kwargs):
    """Validate ``dim``/``keepdim`` of a sum-like reduction; return the wrapped dims."""
    if not (dim is None or is_int(dim) or is_int_sequence(dim)) or not isinstance(keepdim, bool):
        raise invalid_arguments(fn_name, (input, dim), {"keepdim": keepdim, **kwargs}, signatures)
    return given_dims(dim, input.dim())


def bind_methods(*functions) -> None:
    """``Tensor.sum`` and friends: the function with ``self`` as its input."""
    for function in functions:

        def method(self, *args, _function=function, **kwargs):
            return _function(self, *args, **kwargs)

        method.__doc__ = function.__doc__
        bind_method(function.__name__, method)


# --- backward of a reduction (PyTorch's FunctionsManual.cpp) -----------------------------
#
# A reduction's gradient flows from each output element back to the input elements that
# were folded into it. Every formula below is written with vizgrad operators, so that with
# ``create_graph=True`` the backward is itself recorded and can be differentiated again.


def unsqueeze_reduced(grad: Tensor, dims, ndim: int, keepdim: bool) -> Tensor:
    """``unsqueeze_multiple``: put back the reduced dims (size 1) that ``keepdim=False``
    dropped, so the gradient broadcasts against the input again."""
    if keepdim or ndim == 0:
        return grad
    for d in sorted(reduction_dims(dims, ndim)):
        grad = grad.unsqueeze(d)
    return grad


def sum_backward(grad: Tensor, sizes, dims, keepdim: bool) -> Tensor:
    """Every input element added into an output element gets that element's gradient:
    the gradient is *expanded* (a stride-0 view, nothing copied) back to the input."""
    return unsqueeze_reduced(grad, dims, len(sizes), keepdim).expand(sizes)


def reduced_count(sizes, dims) -> int:
    """How many input elements each output element of a reduction over ``dims`` folds."""
    return math.prod(sizes[d] for d in reduction_dims(dims, len(sizes))) if sizes else 1


def mean_backward(grad: Tensor, sizes, dims, keepdim: bool) -> Tensor:
    """A mean is a sum divided by the count: its gradient is the sum's, divided too."""
    return sum_backward(grad, sizes, dims, keepdim) / reduced_count(sizes, dims)


def evenly_distribute_backward(grad: Tensor, input: Tensor, value: Tensor) -> Tensor:
    """Full ``max``/``min``/``median``: the gradient goes to the elements equal to the
    answer, split evenly when several are (ties), as PyTorch's formula does. A nan
    answer came from the nans, so they share the gradient."""
    mask = input.isnan() if value.isnan().item() else input == value
    return mask * (grad / mask.sum())


def scale_grad_by_count(grad: Tensor, mask: Tensor, dims) -> Tensor:
    """``amax``/``amin``: each reduced slice's gradient is shared by its tied extremes."""
    return (grad / mask.sum(dims, keepdim=True)) * mask


def extreme_backward(grad: Tensor, input: Tensor, result: Tensor, dims, keepdim: bool):
    """The backward of ``amax``/``amin`` over ``dims``: the elements that equal the result
    of their slice share its gradient."""
    dims = reduction_dims(dims, input.dim())
    grad = unsqueeze_reduced(grad, dims, input.dim(), keepdim)
    result = unsqueeze_reduced(result, dims, input.dim(), keepdim)
    return scale_grad_by_count(grad, result == input, dims)


def value_selecting_reduction_backward(grad: Tensor, dim: int, indices: Tensor, sizes,
                                       keepdim: bool) -> Tensor:  # fmt: skip
    """``max(dim)``, ``sort``, ``topk``, ``median(dim)``…: each output value was *picked*
    from one input position, recorded in ``indices``; its gradient goes back there and
    every other position gets zero (a ``scatter`` into zeros)."""
    if not keepdim and sizes:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    return zeros(sizes, dtype=grad.dtype).scatter(dim, indices, grad)


def _selected_values_backward(keepdim: bool | None = None):
    """The formula of a ``(values, indices)`` op: ``keepdim=None`` reads the call's own
    ``keepdim``; ``sort`` and ``topk`` keep every dim (``True``)."""

    def formula(grad, saved):
        keep = saved.keepdim if keepdim is None else keepdim
        return value_selecting_reduction_backward(grad, saved.dim, saved.indices,
                                                  saved.self_sym_sizes, keep)  # fmt: skip

    return formula


def selecting_derivative(name: str, *, keepdim: bool | None = None) -> Derivative:
    """The derivative of an op returning ``(values, indices)``: only values carry grads."""
    save = ("self_sym_sizes", "dim", "indices") + (("keepdim",) if keepdim is None else ())
    return Derivative(name, save=save, differentiable_outputs=(0,),
                      grads={"self": _selected_values_backward(keepdim)})  # fmt: skip


def evenly_distributed_derivative(name: str) -> Derivative:
    """Full ``max``/``min``/``median``/``nanmedian``: one value, shared by its ties."""
    return Derivative(name, save=("self", "result"), grads={
        "self": lambda grad, saved: evenly_distribute_backward(grad, saved.self, saved.result)})  # fmt: skip


def declare_pair(schema: str, out_schema: str, kernel, write_out=None, derivative=None):
    """Declare a functional overload and its ``out=`` overload around one kernel.

    ``write_out(result, out)`` checks and fills the ``out=`` tensor(s); by default it
    is the registry's ``write_to_out`` (cast check, resize, copy). ``derivative`` is the
    functional overload's (``out=`` overloads are never differentiable).
    """
    write_out = write_out or write_to_out
    functional_op = declare(schema, FUNCTIONAL, kernel, derivative)

    def out_kernel(*args, out, **kwargs):
        return write_out(kernel(*args, **kwargs), out)

    return functional_op, declare(out_schema, OUT, out_kernel)


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


# --- max, min and where they are -------------------------------------------------------


def check_reducible(fn_name: str, input: Tensor, dims, *, full: bool, index_error=False,
                    separator="(): ") -> None:  # fmt: skip
    """Max and min have no identity: reducing no elements is an error, not a value."""
    if input.numel() != 0:
        return
    if full:
        message = (f"{fn_name}(): Expected reduction dim to be specified for input.numel() == 0."
                   + ("" if index_error else
                      " Specify the reduction dim with the 'dim' argument."))  # fmt: skip
        raise (IndexError if index_error else RuntimeError)(message)
    for d in dims:
        if input._size and input._size[d] == 0:
            raise IndexError(
                f"{fn_name}{separator}Expected reduction dim {d} to have non-zero size."
            )


def check_not_complex(kernel_name: str, input: Tensor) -> None:
    """Ordering ops are not compiled for complex numbers (they have no order)."""
    if input._dtype.category == dt.COMPLEX:
        raise NotImplementedError(
            f"\"{kernel_name}\" not implemented for '{input._dtype.scalar_name}'"
        )


def _amax_kernel(self: Tensor, dim, keepdim=False) -> Tensor:
    dim = reduction_dims(dim, self.dim())
    with np.errstate(all="ignore"):
        result = np.max(self._array, axis=numpy_axes(self, dim), keepdims=keepdim)
    return wrap_result(result, self._dtype)


def _amin_kernel(self: Tensor, dim, keepdim=False) -> Tensor:
    dim = reduction_dims(dim, self.dim())
    with np.errstate(all="ignore"):
        result = np.min(self._array, axis=numpy_axes(self, dim), keepdims=keepdim)
    return wrap_result(result, self._dtype)


def _arg_reduce(np_arg, self: Tensor, dim, keepdim: bool) -> np.ndarray:
    """``np.argmax``/``np.argmin`` over one dim (or the flattened input when ``dim`` is
    None). Both return the first index of a tie, and of a nan, as PyTorch's CPU does."""
    if dim is None:
        index = np_arg(self._array.reshape(-1)) if self._size else np.int64(0)
        return np.asarray(index, dtype=np.int64).reshape((1,) * self.dim() if keepdim else ())
    if not self._size:
        return np.zeros((), dtype=np.int64)
    return np.asarray(np_arg(self._array, axis=dim, keepdims=keepdim), dtype=np.int64)


def _values_and_indices(np_arg, self: Tensor, dim: int, keepdim: bool):
    """Find the indices in one pass, then gather their values (no second reduction)."""
    indices = _arg_reduce(np_arg, self, dim, True)
    if self._size:
        values = np.take_along_axis(self._array, indices, axis=dim)
    else:
        values = self._array.copy()
    if not keepdim and self._size:
        indices, values = indices.squeeze(dim), values.squeeze(dim)
    return wrap_result(values, self._dtype), wrap_result(indices, dt.int64)


def _max_dim_kernel(self: Tensor, dim: int, keepdim=False):
    return return_types.max(_values_and_indices(np.argmax, self, dim, keepdim))


def _min_dim_kernel(self: Tensor, dim: int, keepdim=False):
    return return_types.min(_values_and_indices(np.argmin, self, dim, keepdim))


def _argmax_kernel(self: Tensor, dim=None, keepdim=False) -> Tensor:
    return wrap_result(_arg_reduce(np.argmax, self, dim, keepdim), dt.int64)


def _argmin_kernel(self: Tensor, dim=None, keepdim=False) -> Tensor:
    return wrap_result(_arg_reduce(np.argmin, self, dim, keepdim), dt.int64)


def _aminmax_kernel(self: Tensor, *, dim=None, keepdim=False):
    dims = reduction_dims(dim, self.dim())
    return return_types.aminmax((_amin_kernel(self, dims, keepdim),
                                 _amax_kernel(self, dims, keepdim)))  # fmt: skip


def write_same_dtype_out(result: Tensor, out: Tensor) -> Tensor:
    check_out_dtype(out, result._dtype)
    return write_to_out(result, out)


def write_pair_out(result_type):
    """``out=(values, indices)``: values keep the input's dtype, indices are int64."""

    def write(result, out):
        values, indices = result
        check_out_dtype(out[0], values._dtype)
        check_out_dtype(out[1], indices._dtype)
        return result_type((write_to_out(values, out[0]), write_to_out(indices, out[1])))

    return write


def _write_amax_out(result: Tensor, out: Tensor) -> Tensor:
    if out._dtype is not result._dtype:
        raise RuntimeError(
            f"Expected the dtype for input and out to match, but got {result._dtype.scalar_name} "
            f"for input's dtype and {out._dtype.scalar_name} for out's dtype."
        )
    return write_to_out(result, out)


def _full_max_kernel(self: Tensor) -> Tensor:
    return _amax_kernel(self, tuple(range(self.dim())))


def _full_min_kernel(self: Tensor) -> Tensor:
    return _amin_kernel(self, tuple(range(self.dim())))


def _extreme_derivative(name: str) -> Derivative:
    """``amax``/``amin``: the gradient goes to the elements equal to their slice's result."""
    return Derivative(name, save=("self", "result", "dim", "keepdim"), grads={
        "self": lambda grad, saved: extreme_backward(grad, saved.self, saved.result, saved.dim,
                                                     saved.keepdim)})  # fmt: skip


def _aminmax_backward(grads, saved) -> Tensor:
    """Both results send their gradient back: the min's to the minima, the max's to the
    maxima (an output that was not used brings zeros)."""
    grad_min, grad_max = grads
    dims = None if saved.dim is None else (saved.dim,)
    return (extreme_backward(grad_min, saved.self, saved.min, dims, saved.keepdim)
            + extreme_backward(grad_max, saved.self, saved.max, dims, saved.keepdim))  # fmt: skip


_max_op, _max_out_op = declare_pair(
    "max(Tensor self) -> Tensor",
    "max.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    _full_max_kernel,
    derivative=evenly_distributed_derivative("MaxBackward1"),
)
_min_op, _min_out_op = declare_pair(
    "min(Tensor self) -> Tensor",
    "min.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    _full_min_kernel,
    derivative=evenly_distributed_derivative("MinBackward1"),
)
_max_dim_op, _max_dim_out_op = declare_pair(
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
    "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    _max_dim_kernel,
    write_pair_out(return_types.max_out),
    selecting_derivative("MaxBackward0"),
)
_min_dim_op, _min_dim_out_op = declare_pair(
    "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min, "
    "Tensor(b!) min_indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    _min_dim_kernel,
    write_pair_out(return_types.min_out),
    selecting_derivative("MinBackward0"),
)
_amax_op, _amax_out_op = declare_pair(
    "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    _amax_kernel,
    _write_amax_out,
    _extreme_derivative("AmaxBackward0"),
)
_amin_op, _amin_out_op = declare_pair(
    "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    _amin_kernel,
    _write_amax_out,
    _extreme_derivative("AminBackward0"),
)
_argmax_op, _argmax_out_op = declare_pair(
    "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    "argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    _argmax_kernel,
    write_same_dtype_out,
    NON_DIFFERENTIABLE,  # an index is an integer: nothing to differentiate
)
_argmin_op, _argmin_out_op = declare_pair(
    "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    "argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    _argmin_kernel,
    write_same_dtype_out,
    NON_DIFFERENTIABLE,
)
_aminmax_op, _aminmax_out_op = declare_pair(
    "aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
    "aminmax.out(Tensor self, *, int? dim=None, bool keepdim=False, Tensor(a!) min, "
    "Tensor(b!) max) -> (Tensor(a!) min, Tensor(b!) max)",
    _aminmax_kernel,
    write_pair_out(return_types.aminmax_out),
    Derivative(
        "AminmaxBackward0",
        save=("self", "dim", "keepdim", "min", "max"),
        grads={"self": _aminmax_backward},
        multi_output=True,
    ),
)


def _max_or_min(fn_name, ops, input, dim, keepdim, other, out):
    full_op, full_out_op, dim_op, dim_out_op = ops
    check_tensor(fn_name, input, "input", 1)
    if isinstance(dim, Tensor) or other is not None:
        # ``max(a, b)`` is the elementwise ``maximum``, another operator altogether.
        import vizgrad

        binary = vizgrad.maximum if fn_name == "max" else vizgrad.minimum
        other = dim if other is None else other
        return binary(input, other) if out is None else binary(input, other, out=out)
    check_not_complex(f"{fn_name}_all", input)
    if dim is None:
        if keepdim:
            raise invalid_arguments(fn_name, (input,), {"keepdim": keepdim}, [
                "Tensor input, *, Tensor out = None",
                "Tensor input, Tensor other, *, Tensor out = None",
                "Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None",
            ])  # fmt: skip
        check_reducible(fn_name, input, (), full=True)
        if out is not None:
            check_tensor(fn_name, out, "out", 2)
        return call(full_op, full_out_op, (input,), out)
    check_int_dim(fn_name, dim)
    dim = wrap_dim(dim, input.dim())
    check_reducible(fn_name, input, (dim,), full=False)
    if out is not None:
        check_out_tensors(fn_name, out, 2)
    return call(dim_op, dim_out_op, (input, dim, keepdim), out)


def max(input, dim=None, keepdim=False, *, other=None, out=None):  # noqa: A001
    """``torch.max``: three operators under one name.

    ``max(t)`` is the largest element; ``max(t, dim)`` returns ``(values, indices)``
    along ``dim`` (the first index of a tie; nan wins); ``max(a, b)`` is ``maximum``.
    """
    ops = (_max_op, _max_out_op, _max_dim_op, _max_dim_out_op)
    return _max_or_min("max", ops, input, dim, keepdim, other, out)


def min(input, dim=None, keepdim=False, *, other=None, out=None):  # noqa: A001
    """``torch.min``: the smallest element, ``(values, indices)`` along ``dim``, or
    ``minimum(a, b)``."""
    ops = (_min_op, _min_out_op, _min_dim_op, _min_dim_out_op)
    return _max_or_min("min", ops, input, dim, keepdim, other, out)


def _amax_or_amin(fn_name, ops, input, dim, keepdim, out):
    check_tensor(fn_name, input, "input", 1)
    check_not_complex(fn_name, input)
    signature = "Tensor input, tuple of ints dim = (), bool keepdim = False, *, Tensor out = None"
    dims = parse_dims(fn_name, input, () if dim is None else dim, keepdim, [signature])
    every_dim = reduction_dims(dims, input.dim())
    check_reducible(fn_name, input, every_dim, full=len(every_dim) == input.dim())
    return call(*ops, (input, dims, keepdim), out)


def amax(input, dim=(), keepdim=False, *, out=None):
    """``torch.amax``: the largest values over one or more dims (no indices)."""
    return _amax_or_amin("amax", (_amax_op, _amax_out_op), input, dim, keepdim, out)


def amin(input, dim=(), keepdim=False, *, out=None):
    """``torch.amin``: the smallest values over one or more dims (no indices)."""
    return _amax_or_amin("amin", (_amin_op, _amin_out_op), input, dim, keepdim, out)


def _argmax_or_argmin(fn_name, ops, input, dim, keepdim, out):
    check_tensor(fn_name, input, "input", 1)
    check_not_complex(fn_name, input)
    if input._dtype is dt.bool:
        raise RuntimeError(f"{fn_name}(): does not support bool input")
    if dim is not None:
        check_int_dim(fn_name, dim)
        dim = wrap_dim(dim, input.dim())
        check_reducible(fn_name, input, (dim,), full=False)
    else:
        check_reducible(fn_name, input, (), full=True, index_error=True)
    return call(*ops, (input, dim, keepdim), out)


def argmax(input, dim=None, keepdim=False, *, out=None):
    """``torch.argmax``: where the largest element is (in the flattened input when
    ``dim`` is None)."""
    return _argmax_or_argmin("argmax", (_argmax_op, _argmax_out_op), input, dim, keepdim, out)


def argmin(input, dim=None, keepdim=False, *, out=None):
    """``torch.argmin``: where the smallest element is."""
    return _argmax_or_argmin("argmin", (_argmin_op, _argmin_out_op), input, dim, keepdim, out)


def aminmax(input, *, dim=None, keepdim=False, out=None):
    """``torch.aminmax``: ``(min, max)`` in one call, over one dim or all of them."""
    check_tensor("aminmax", input, "input", 1)
    check_not_complex("aminmax_cpu", input)
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity."
            )
    else:
        check_int_dim("aminmax", dim)
        dim = wrap_dim(dim, input.dim())
        check_reducible("aminmax", input, (dim,), full=False, separator=": ")
    if out is not None:
        check_out_tensors("aminmax", out, 2)
    return call(_aminmax_op, _aminmax_out_op, (input,), out, dim=dim, keepdim=keepdim)


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


def computed_in_out_dtype(kernel, natural_dtype, check_out=None):
    """An ``out=`` kernel for reductions that PyTorch computes in the out tensor's dtype
    (``var``, ``logsumexp``): the input is read at that precision, not rounded after."""

    def out_kernel(self: Tensor, *args, out, **kwargs):
        if check_out is not None:
            check_out(out)
        check_can_cast(natural_dtype(self), out._dtype)
        return write_to_out(kernel(self, *args, result_dtype=out._dtype, **kwargs), out)

    return out_kernel


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


# --- norms -----------------------------------------------------------------------------


def _vector_norm_kernel(self: Tensor, ord=2, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    """``linalg.vector_norm``: ``(sum |x|^p)^(1/p)``, with the limits p = inf (largest
    ``|x|``), -inf (smallest) and 0 (how many are non-zero)."""
    dim = reduction_dims(dim, self.dim())
    result_dtype = (dtype or self._dtype).to_real()
    compute = accumulate_dtype(dtype or self._dtype).numpy
    axes = numpy_axes(self, dim)
    array = self._array if self._array.dtype == compute else self._array.astype(compute)
    with np.errstate(all="ignore"):
        magnitude = np.abs(array)
        if ord == math.inf:
            result = np.max(magnitude, axis=axes, keepdims=keepdim, initial=0)
        elif ord == -math.inf:
            result = np.min(magnitude, axis=axes, keepdims=keepdim)
        elif ord == 0:
            result = np.count_nonzero(magnitude, axis=axes, keepdims=keepdim)
        elif ord == 1:
            result = np.sum(magnitude, axis=axes, keepdims=keepdim)
        elif ord == 2:
            result = np.sqrt(np.sum(magnitude * magnitude, axis=axes, keepdims=keepdim))
        else:
            result = np.sum(magnitude**ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)
    return wrap_result(result, result_dtype)


def _nuclear_norm_kernel(self: Tensor, dim, keepdim=False, *, dtype=None) -> Tensor:
    """The sum of the singular values of the matrices in ``dim`` (two dims)."""
    result_dtype = (dtype or self._dtype).to_real()
    compute = accumulate_dtype(dtype or self._dtype).numpy
    matrices = np.moveaxis(self._array.astype(compute), dim, (-2, -1))
    result = np.linalg.svd(matrices, compute_uv=False).sum(axis=-1)
    if keepdim:
        result = np.expand_dims(result, tuple(sorted(dim)))
    return wrap_result(result, result_dtype)


def norm_backward(grad: Tensor, self: Tensor, ord, norm: Tensor, dim, keepdim: bool):
    """``linalg_vector_norm_backward``: the gradient of ``(sum |x|^p)^(1/p)``, which is
    ``sgn(x) |x|^(p-1) / norm^(p-1)``, with the limits PyTorch takes: p = 1 is ``sgn``,
    p = 2 is ``x / norm``, p = inf shares the gradient among the largest ``|x|`` (as
    ``amax``), p = 0 counts and has no gradient. A zero norm gives zero, not 0/0."""
    dims = reduction_dims(dim, self.dim())
    grad = unsqueeze_reduced(grad, dims, self.dim(), keepdim)
    norm = unsqueeze_reduced(norm, dims, self.dim(), keepdim)
    if ord == 0:
        return None  # no gradient at all: ``x.grad`` stays None, as in PyTorch
    if ord == 1:
        return self.sgn() * grad
    if ord == 2:
        return grad * (self / norm).masked_fill(norm == 0, 0)
    if math.isinf(ord):
        magnitude = self.abs()
        mask = (magnitude == norm).logical_or(magnitude.isnan())
        return self.sgn() * scale_grad_by_count(grad, mask, dims)
    if ord < 1:
        scaled = self.sgn() * self.abs().pow(ord - 1).masked_fill(self == 0, 0)
        return scaled * grad * norm.pow(1 - ord)
    scaled = self.sgn() * self.abs().pow(ord - 1) if ord < 2 else self * self.abs().pow(ord - 2)
    return scaled * (grad / norm.pow(ord - 1)).masked_fill(norm == 0, 0)


_NORM_SCHEMA = "(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, " \
               "ScalarType? dtype=None"  # fmt: skip
_vector_norm_op, _vector_norm_out_op = declare_pair(
    f"linalg_vector_norm{_NORM_SCHEMA}) -> Tensor",
    f"linalg_vector_norm.out{_NORM_SCHEMA}, Tensor(a!) out) -> Tensor(a!)",
    _vector_norm_kernel,
    write_same_dtype_out,
    Derivative(
        "LinalgVectorNormBackward0",
        save=("self", "ord", "dim", "keepdim", "result"),
        grads={
            "self": lambda grad, saved: norm_backward(
                grad, saved.self, saved.ord, saved.result, saved.dim, saved.keepdim
            )
        },
    ),
)
_NUC_SCHEMA = "(Tensor self, int[2] dim, bool keepdim=False, *, ScalarType? dtype=None"
_nuclear_norm_op, _nuclear_norm_out_op = declare_pair(
    f"nuclear_norm.dim{_NUC_SCHEMA}) -> Tensor",
    f"nuclear_norm.dim_out{_NUC_SCHEMA}, Tensor(a!) out) -> Tensor(a!)",
    _nuclear_norm_kernel,
    write_same_dtype_out,
    # No derivative yet: PyTorch builds the nuclear norm from ``linalg_svdvals`` (its
    # graph is SumBackward1 -> LinalgSvdBackward0), and vizgrad has no SVD operator.
)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm``: a vector norm over ``dim`` (``p`` a number, or ``'fro'``, the
    2-norm of all the elements), or the nuclear norm ``'nuc'`` of a matrix."""
    check_tensor("norm", input, "input", 1)
    check_dtype_argument("norm", dtype)
    if p is None:
        p = "fro"
    if isinstance(p, str) and p not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    category = (dtype or input._dtype).category
    if input._dtype.category < dt.FLOATING or category < dt.FLOATING:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{input._dtype.scalar_name}"
        )
    if dtype is not None and out is not None:
        check_out_dtype(out, dtype)
    if p == "nuc":
        dims = reduction_dims(dim if dim is not None else (-2, -1), input.dim())
        if input.dim() < 2:
            raise RuntimeError(
                "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
            )
        if len(dims) != 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {list(dims)}")
        return call(_nuclear_norm_op, _nuclear_norm_out_op, (input, dims, keepdim), out,
                    dtype=dtype)  # fmt: skip
    ord = 2 if p == "fro" else p
    given = given_dims(dim, input.dim())
    dims = reduction_dims(given, input.dim())
    # Norms built from a max or a negative power have no value for no elements.
    empty_reduction = input.numel() == 0 and (
        not dims or builtins.any(input._size[d] == 0 for d in dims)
    )
    if empty_reduction and (ord < 0 or ord == math.inf):
        name = {math.inf: "inf", -math.inf: "-inf"}.get(ord, f"{ord}")
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {name} norm on an empty tensor because "
            "the operation does not have an identity"
        )
    return call(_vector_norm_op, _vector_norm_out_op, (input, ord, given, keepdim), out,
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


# --- logical reductions and counting ---------------------------------------------------


def _logical_kernel(np_reduce):
    def kernel(self: Tensor, dim=None, keepdim=False) -> Tensor:
        # uint8 in, uint8 out: PyTorch kept this for code written before torch.bool.
        result_dtype = dt.uint8 if self._dtype is dt.uint8 else dt.bool
        axes = numpy_axes(self, dim)
        return wrap_result(np_reduce(self._array, axis=axes, keepdims=keepdim), result_dtype)

    return kernel


def _write_logical_out(fn_name):
    def write(result: Tensor, out: Tensor) -> Tensor:
        if out._dtype not in (dt.bool, dt.uint8):
            raise RuntimeError(
                f"{fn_name} only supports bool tensor for result, got: {out._dtype.scalar_name}"
            )
        return write_to_out(result, out, check_cast=False)

    return write


_all_op, _all_out_op = declare_pair(
    "all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
    "all.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    _logical_kernel(np.all),
    _write_logical_out("all"),
    NON_DIFFERENTIABLE,  # a bool answer
)
_any_op, _any_out_op = declare_pair(
    "any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
    "any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    _logical_kernel(np.any),
    _write_logical_out("any"),
    NON_DIFFERENTIABLE,
)


def _all_or_any(fn_name, ops, input, dim, keepdim, out):
    check_tensor(fn_name, input, "input", 1)
    if not (dim is None or is_int(dim) or is_int_sequence(dim)) or not isinstance(keepdim, bool):
        signature = "Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out"
        raise invalid_arguments(fn_name, (input, dim), {"keepdim": keepdim}, [signature])
    # Here an empty dim list reduces nothing: each element is tested on its own.
    dims = reduction_dims(dim, input.dim(), empty_means_all=False)
    return call(*ops, (input, dims, keepdim), out)


def all(input, dim=None, keepdim=False, *, out=None):  # noqa: A001
    """``torch.all``: are all elements non-zero? (bool; uint8 for a uint8 input)."""
    return _all_or_any("all", (_all_op, _all_out_op), input, dim, keepdim, out)


def any(input, dim=None, keepdim=False, *, out=None):  # noqa: A001
    """``torch.any``: is any element non-zero?"""
    return _all_or_any("any", (_any_op, _any_out_op), input, dim, keepdim, out)


def _count_nonzero_kernel(self: Tensor, dim) -> Tensor:
    axes = numpy_axes(self, dim)
    return wrap_result(np.count_nonzero(self._array, axis=axes), dt.int64)


_count_nonzero_op = declare(
    "count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor",
    FUNCTIONAL,
    _count_nonzero_kernel,
    NON_DIFFERENTIABLE,  # a count
)


def count_nonzero(input, dim=None):
    """``torch.count_nonzero``: how many elements are not zero, over ``dim``."""
    check_tensor("count_nonzero", input, "input", 1)
    if not (dim is None or is_int(dim) or is_int_sequence(dim)):
        raise invalid_arguments("count_nonzero", (input, dim), {}, [
            "Tensor input, int dim = None", "Tensor input, tuple of ints dim"])  # fmt: skip
    return _count_nonzero_op(input, reduction_dims(dim, input.dim()))


bind_methods(sum, mean, nansum, nanmean, prod, max, min, amax, amin, argmax, argmin, aminmax,
             var, std, norm, logsumexp, all, any, count_nonzero)  # fmt: skip

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

import numpy as np

from .. import dtypes as dt
from ..derivatives import Derivative
from ..dispatcher import FUNCTIONAL, OUT
from ..dtypes import CPP_TYPE_NAMES
from ..dtypes import dtype as DType
from ..promotion import check_can_cast
from ..shape import contiguous_strides, wrap_dim, wrap_dims
from ..tensor import Tensor
from .creation import zeros
from .registry import bind_method, check_tensor, declare, write_to_out

__all__: list[str] = []


# --- arguments -------------------------------------------------------------------------


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


# --- writing out= results -------------------------------------------------------------


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


def computed_in_out_dtype(kernel, natural_dtype, check_out=None):
    """An ``out=`` kernel for reductions that PyTorch computes in the out tensor's dtype
    (``var``, ``logsumexp``): the input is read at that precision, not rounded after."""

    def out_kernel(self: Tensor, *args, out, **kwargs):
        if check_out is not None:
            check_out(out)
        check_can_cast(natural_dtype(self), out._dtype)
        return write_to_out(kernel(self, *args, result_dtype=out._dtype, **kwargs), out)

    return out_kernel

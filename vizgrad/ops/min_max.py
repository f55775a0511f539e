"""The extremes and where they are: ``max``, ``argmax``… (``ReduceOps.cpp``, ``TensorCompare.cpp``).

``max``, ``min``, ``amax``, ``amin``, ``argmax``, ``argmin`` and ``aminmax`` live here.

``max(dim)`` returns the values *and* their indices (``torch.return_types.max``);
``amax`` only the values, ``argmax`` only the indices. Their gradients flow only to
the selected elements (a full ``max()`` shares it evenly among ties).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from .. import return_types
from ..derivatives import NON_DIFFERENTIABLE, Derivative
from ..shape import wrap_dim
from ..tensor import Tensor
from .reduction_args import (
    check_int_dim,
    check_out_tensors,
    invalid_arguments,
    numpy_axes,
    parse_dims,
    reduction_dims,
)
from .reduction_backward import (
    evenly_distributed_derivative,
    extreme_backward,
    selecting_derivative,
)
from .reduction_dtypes import write_pair_out, write_same_dtype_out
from .reduction_machinery import bind_methods, call, declare_pair, wrap_result
from .registry import check_tensor, write_to_out

__all__ = [
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "aminmax",
]


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


bind_methods(max, min, amax, amin, argmax, argmin, aminmax)

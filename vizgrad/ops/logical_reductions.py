"""``all``, ``any``, ``count_nonzero``: reductions asking "is it non-zero?" (``ReduceOps.cpp``).

``all`` and ``any`` return ``bool`` (``uint8`` for ``uint8`` inputs, as in PyTorch);
``count_nonzero`` returns ``int64``. None of them is differentiable.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..derivatives import NON_DIFFERENTIABLE
from ..dispatcher import FUNCTIONAL
from ..tensor import Tensor
from .reduction_args import invalid_arguments, is_int, is_int_sequence, numpy_axes, reduction_dims
from .reduction_machinery import bind_methods, call, declare_pair, wrap_result
from .registry import check_tensor, declare, write_to_out

__all__ = [
    "all",
    "any",
    "count_nonzero",
]


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


bind_methods(all, any, count_nonzero)

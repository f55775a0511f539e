"""Sorting and selection: ``sort``, ``topk``, ``median``, ``kthvalue``, ``mode``, ``unique``
(PyTorch's ``Sorting.cpp``, ``TensorCompare.cpp``, ``Unique.cpp``).

Every op here rests on one idea: a **stable sort** along ``dim`` that puts nan after
every number (PyTorch treats nan as the largest value). ``sort`` returns the sorted
values and the *indices* they came from; ``topk`` keeps the first ``k`` of them;
``kthvalue`` and ``median`` pick one position. Selections return a named tuple
``(values, indices)`` (``vizgrad.return_types``).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from .. import return_types
from ..derivatives import Derivative
from ..dispatcher import FUNCTIONAL
from ..shape import is_contiguous, is_non_overlapping_and_dense, wrap_dim
from ..tensor import Tensor
from .min_max import check_reducible
from .reduction_args import check_int_dim, check_out_tensors
from .reduction_backward import evenly_distributed_derivative, selecting_derivative
from .reduction_dtypes import write_pair_out
from .reduction_machinery import call, declare_pair, wrap_result
from .registry import bind_method, check_tensor, declare, write_to_out

__all__ = [
    "sort",
    "argsort",
    "msort",
    "topk",
    "kthvalue",
    "median",
    "nanmedian",
    "mode",
    "unique",
    "unique_consecutive",
]

# --- the shared sort -------------------------------------------------------------------


def stable_order(array: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices that sort ``array`` along ``axis``; equal elements keep their order.

    NumPy sorts nan last, as PyTorch does. For descending order we sort the *reversed*
    array ascending and reverse the answer: that keeps ties in their original order
    (negating the values would not, and doesn't work for unsigned or bool).
    """
    if not descending:
        return np.argsort(array, axis=axis, kind="stable")
    reversed_order = np.argsort(np.flip(array, axis), axis=axis, kind="stable")
    return np.flip(array.shape[axis] - 1 - reversed_order, axis)


def _as_rows(t: Tensor) -> np.ndarray:
    """A zero-dim tensor sorts as one element; its results keep zero dims."""
    return t._array.reshape(1) if not t._size else t._array


def _in_input_layout(array: np.ndarray, t: Tensor, dtype) -> Tensor:
    """``empty_like``: a dense input's layout (a transposed input gives a transposed
    result); anything else (stepped, expanded) gives a contiguous result."""
    array = array.reshape(t._size)
    if is_contiguous(t._size, t._stride) or not is_non_overlapping_and_dense(t._size, t._stride):
        return wrap_result(array, dtype)
    result = Tensor._empty_strided(t._size, t._stride, dtype)
    np.copyto(result._array, array, casting="unsafe")
    return result


def _check_sortable(fn_name: str, input: Tensor) -> None:
    if input._dtype.category == dt.COMPLEX:
        raise RuntimeError(f"{fn_name} does not support complex dtypes on CPU")


def _sort_kernel(self: Tensor, dim: int = -1, descending: bool = False, *, stable=False):
    array = _as_rows(self)
    axis = dim if self._size else 0
    order = stable_order(array, axis, descending)
    values = np.take_along_axis(array, order, axis=axis)
    return return_types.sort((_in_input_layout(values, self, self._dtype),
                              _in_input_layout(order, self, dt.int64)))  # fmt: skip


def _unstable_sort_kernel(self: Tensor, dim: int = -1, descending: bool = False):
    return _sort_kernel(self, dim, descending)


# ``sort(t)`` and ``sort(t, stable=...)`` are two overloads (SortBackward0 and 1). The
# values were picked from ``indices``: their gradient is scattered back there.
_sort_op, _sort_out_op = declare_pair(
    "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
    "sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    _unstable_sort_kernel,
    write_pair_out(return_types.sort_out),
    selecting_derivative("SortBackward0", keepdim=True),
)
_stable_sort_op, _stable_sort_out_op = declare_pair(
    "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) "
    "-> (Tensor values, Tensor indices)",
    "sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    _sort_kernel,
    write_pair_out(return_types.sort_out),
    selecting_derivative("SortBackward1", keepdim=True),
)


def _prepare_dim(fn_name: str, input: Tensor, dim, position: int = 2) -> int:
    check_tensor(fn_name, input, "input", 1)
    check_int_dim(fn_name, dim, position)
    return wrap_dim(dim, input.dim())


def _sort(input, dim: int, descending: bool, stable, out=None):
    """``stable=None`` means it was not given: PyTorch then calls the ``sort`` overload,
    and ``sort.stable`` when it was (even ``stable=False``)."""
    if stable is None:
        return call(_sort_op, _sort_out_op, (input, dim, descending), out)
    return call(_stable_sort_op, _stable_sort_out_op, (input,), out, stable=stable, dim=dim,
                descending=descending)  # fmt: skip


def sort(input, dim=-1, descending=False, *, stable=None, out=None):
    """``torch.sort``: ``(values, indices)`` sorted along ``dim``.

    The CPU sort is always stable here (ties keep their order), which is one of the
    orders PyTorch may return when ``stable=False``; nan sorts as the largest value.
    """
    dim = _prepare_dim("sort", input, dim)
    _check_sortable(" Sort", input)
    if out is not None:
        check_out_tensors("sort", out, 2)
    return _sort(input, dim, descending, stable, out)


def argsort(input, dim=-1, descending=False, *, stable=None, out=None):
    """``torch.argsort``: only the indices of ``sort``."""
    dim = _prepare_dim("argsort", input, dim)
    _check_sortable(" Sort", input)
    indices = _sort(input, dim, descending, stable).indices
    return indices if out is None else write_to_out(indices, out)


def msort(input, *, out=None):
    """``torch.msort``: the values of ``sort`` along dim 0."""
    check_tensor("msort", input, "input", 1)
    _check_sortable(" Sort", input)
    values = _sort(input, 0, False, None).values
    return values if out is None else write_to_out(values, out)


# --- picking positions from the sorted order --------------------------------------------


def _take_positions(self: Tensor, dim: int, order: np.ndarray, positions: np.ndarray,
                    keepdim: bool):  # fmt: skip
    """Values and original indices at ``positions`` (same rank as ``order``) of the
    sorted ``order`` along ``dim``: contiguous results, as PyTorch allocates them."""
    array = _as_rows(self)
    axis = dim if self._size else 0
    indices = np.take_along_axis(order, positions, axis=axis)
    values = np.take_along_axis(array, indices, axis=axis)
    if not self._size:
        indices, values = indices.reshape(()), values.reshape(())
    elif not keepdim and positions.shape[axis] == 1:
        indices, values = indices.squeeze(axis), values.squeeze(axis)
    values = wrap_result(values, self._dtype)
    return values, wrap_result(indices, dt.int64)


def _topk_kernel(self: Tensor, k: int, dim: int = -1, largest=True, sorted=True):
    axis = dim if self._size else 0
    order = stable_order(_as_rows(self), axis, descending=largest)
    shape = list(order.shape)
    shape[axis] = k
    along_axis = [k if i == axis else 1 for i in range(order.ndim)]
    positions = np.broadcast_to(np.arange(k).reshape(along_axis), shape)
    return return_types.topk(_take_positions(self, dim, order, positions, keepdim=True))


def _kthvalue_kernel(self: Tensor, k: int, dim: int = -1, keepdim=False):
    axis = dim if self._size else 0
    order = stable_order(_as_rows(self), axis, descending=False)
    positions = np.full([1 if i == axis else s for i, s in enumerate(order.shape)], k - 1)
    return return_types.kthvalue(_take_positions(self, dim, order, positions, keepdim))


def _median_positions(array: np.ndarray, axis: int, ignore_nan: bool) -> np.ndarray:
    """Where the lower median sits in the sorted order: ``(n - 1) // 2``.

    Nans sort last. ``median`` answers nan for a row holding one (the first nan's
    position is ``n - nan_count``); ``nanmedian`` takes the median of the numbers only.
    """
    n = array.shape[axis]
    if array.dtype.kind != "f":
        return np.full([1 if i == axis else s for i, s in enumerate(array.shape)], (n - 1) // 2)
    nan_count = np.sum(np.isnan(array), axis=axis, keepdims=True)
    if ignore_nan:
        return np.maximum((n - nan_count - 1) // 2, 0)
    return np.where(nan_count > 0, n - nan_count, (n - 1) // 2)


def _median_dim_kernel(result_type, ignore_nan: bool):
    def kernel(self: Tensor, dim: int, keepdim=False):
        array = _as_rows(self)
        axis = dim if self._size else 0
        order = stable_order(array, axis, descending=False)
        positions = _median_positions(array, axis, ignore_nan)
        return result_type(_take_positions(self, dim, order, positions, keepdim))

    return kernel


def _median_all_kernel(ignore_nan: bool):
    def kernel(self: Tensor) -> Tensor:
        values = self._array.reshape(-1)
        if values.dtype.kind == "f":
            nans = np.isnan(values)
            if ignore_nan:
                values = values[~nans]
            elif nans.any():
                values = values[:0]  # the median of anything with a nan is nan
        if values.size == 0:
            result = np.array(np.nan, dtype=self._dtype.numpy)
        else:
            k = (values.size - 1) // 2
            result = np.partition(values, k)[k]
        return wrap_result(result, self._dtype)

    return kernel


def _mode_kernel(self: Tensor, dim: int = -1, keepdim=False):
    """The most frequent value of each row (the smallest, if several are), and the
    index of its last occurrence, as PyTorch's CPU kernel returns."""
    array = np.moveaxis(_as_rows(self), dim if self._size else 0, -1)
    rows = array.reshape(-1, array.shape[-1])
    values = np.empty(rows.shape[0], dtype=rows.dtype)
    indices = np.empty(rows.shape[0], dtype=np.int64)
    for r, row in enumerate(rows):  # one row at a time: mode has no NumPy reduction
        uniques, counts = np.unique(row, return_counts=True)
        values[r] = uniques[np.argmax(counts)]
        indices[r] = np.flatnonzero(row == values[r])[-1]
    shape = array.shape[:-1]
    values, indices = values.reshape(shape), indices.reshape(shape)
    if keepdim and self._size:
        values, indices = np.expand_dims(values, dim), np.expand_dims(indices, dim)
    return return_types.mode((wrap_result(values, self._dtype),
                              wrap_result(indices, dt.int64)))  # fmt: skip


def _write_checked_pair(result_type, check):
    def write(result, out):
        check(result, out)
        values, indices = result
        return result_type((write_to_out(values, out[0]), write_to_out(indices, out[1])))

    return write


def _tensor_type(dtype) -> str:
    return f"vizgrad.{dtype.scalar_name}Tensor"


def _check_median_out(result, out) -> None:
    values, indices = result
    if out[0]._dtype is not values._dtype:
        raise RuntimeError(
            f"Expected tensor for 'values' to have the same type as tensor for argument #2 "
            f"'self'; but type {_tensor_type(out[0]._dtype)} does not equal "
            f"{_tensor_type(values._dtype)} (while checking arguments for median)"
        )
    if out[1]._dtype is not dt.int64:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have scalar type Long; but got "
            f"{_tensor_type(out[1]._dtype)} instead (while checking arguments for median)"
        )


def _check_kthvalue_out(result, out) -> None:
    if out[0]._dtype is not result[0]._dtype:
        raise RuntimeError("output values must be of same type as input")
    if out[1]._dtype is not dt.int64:
        raise RuntimeError("output indices must be of scalar type Long")


def _check_mode_out(result, out) -> None:
    for tensor, expected, name in zip(out, (result[0]._dtype, dt.int64), ("values", "indices"),
                                      strict=True):  # fmt: skip
        if tensor._dtype is not expected:
            raise RuntimeError(
                f"expected scalar type '{expected.scalar_name}' but got "
                f"'{tensor._dtype.scalar_name}' for {name} output"
            )


_topk_op, _topk_out_op = declare_pair(
    "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) "
    "-> (Tensor values, Tensor indices)",
    "topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    _topk_kernel,
    write_pair_out(return_types.topk_out),
    selecting_derivative("TopkBackward0", keepdim=True),
)
_kthvalue_op, _kthvalue_out_op = declare_pair(
    "kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) "
    "-> (Tensor values, Tensor indices)",
    "kthvalue.values(Tensor self, int k, int dim=-1, bool keepdim=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    _kthvalue_kernel,
    _write_checked_pair(return_types.kthvalue_out, _check_kthvalue_out),
    selecting_derivative("KthvalueBackward0"),
)
_median_dim_op, _median_dim_out_op = declare_pair(
    "median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "median.dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    _median_dim_kernel(return_types.median, ignore_nan=False),
    _write_checked_pair(return_types.median_out, _check_median_out),
    selecting_derivative("MedianBackward1"),
)
_nanmedian_dim_op, _nanmedian_dim_out_op = declare_pair(
    "nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "nanmedian.dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    _median_dim_kernel(return_types.nanmedian, ignore_nan=True),
    _write_checked_pair(return_types.nanmedian_out, _check_median_out),
    selecting_derivative("NanmedianBackward1"),
)
_median_op = declare("median(Tensor self) -> Tensor", FUNCTIONAL, _median_all_kernel(False),
                     evenly_distributed_derivative("MedianBackward0"))  # fmt: skip
_nanmedian_op = declare("nanmedian(Tensor self) -> Tensor", FUNCTIONAL, _median_all_kernel(True),
                        evenly_distributed_derivative("NanmedianBackward0"))  # fmt: skip
_mode_op, _mode_out_op = declare_pair(
    "mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "mode.values(Tensor self, int dim=-1, bool keepdim=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    _mode_kernel,
    _write_checked_pair(return_types.mode_out, _check_mode_out),
    selecting_derivative("ModeBackward0"),
)


def _dim_size(input: Tensor, dim: int) -> int:
    return input._size[dim] if input._size else 1


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """``torch.topk``: the ``k`` largest (or smallest) values along ``dim`` and their
    indices, largest first. Which of equal values is returned is not specified."""
    dim = _prepare_dim("topk", input, dim, position=3)
    if input._dtype is dt.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    _check_sortable("topk", input)
    if not 0 <= k <= _dim_size(input, dim):
        raise RuntimeError("selected index k out of range")
    if out is not None:
        check_out_tensors("topk", out, 2)
    return call(_topk_op, _topk_out_op, (input, k, dim, largest, sorted), out)


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """``torch.kthvalue``: the ``k``-th smallest value along ``dim`` (``k`` counts from 1)
    and its index."""
    dim = _prepare_dim("kthvalue", input, dim, position=3)
    _check_sortable("kthvalue", input)
    check_reducible("kthvalue", input, (dim,), full=False)
    if not 1 <= k <= _dim_size(input, dim):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    if out is not None:
        check_out_tensors("kthvalue", out, 2)
    return call(_kthvalue_op, _kthvalue_out_op, (input, k, dim, keepdim), out)


def _median(fn_name, ops, input, dim, keepdim, out):
    all_op, dim_op, dim_out_op = ops
    check_tensor(fn_name, input, "input", 1)
    if input._dtype is dt.bool:
        raise NotImplementedError(f"\"{fn_name}_cpu\" not implemented for 'Bool'")
    _check_sortable(fn_name, input)
    if dim is None:
        if out is not None:
            raise TypeError(f'{fn_name}() missing 1 required positional arguments: "dim"')
        return all_op(input)
    dim = _prepare_dim(fn_name, input, dim)
    check_reducible(fn_name, input, (dim,), full=False)
    if out is not None:
        check_out_tensors(fn_name, out, 2)
    return call(dim_op, dim_out_op, (input, dim, keepdim), out)


def median(input, dim=None, keepdim=False, *, out=None):
    """``torch.median``: the lower median (the ``(n - 1) // 2``-th smallest), of all the
    elements or along ``dim`` with its index; nan if there is a nan."""
    ops = (_median_op, _median_dim_op, _median_dim_out_op)
    return _median("median", ops, input, dim, keepdim, out)


def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """``torch.nanmedian``: ``median`` of the elements that are not nan."""
    ops = (_nanmedian_op, _nanmedian_dim_op, _nanmedian_dim_out_op)
    return _median("nanmedian", ops, input, dim, keepdim, out)


def mode(input, dim=-1, keepdim=False, *, out=None):
    """``torch.mode``: the most frequent value along ``dim`` and an index of it."""
    dim = _prepare_dim("mode", input, dim)
    _check_sortable("mode", input)
    check_reducible("mode", input, (dim,), full=False)
    if out is not None:
        check_out_tensors("mode", out, 2)
    return call(_mode_op, _mode_out_op, (input, dim, keepdim), out)


# --- unique ----------------------------------------------------------------------------


def _in_moved_layout(values: np.ndarray, dim: int, dtype) -> Tensor:
    """PyTorch finds unique slices along ``dim`` by moving ``dim`` to the front; the result
    keeps that memory order (``dim`` outermost) and is moved back as a view."""
    front = wrap_result(np.moveaxis(values, dim, 0), dtype)
    back = list(range(1, values.ndim))
    back.insert(dim, 0)
    return front._alias(tuple(front._size[i] for i in back),
                        tuple(front._stride[i] for i in back), 0)  # fmt: skip


def _unique_kernel(self: Tensor, sorted=True, return_inverse=False, return_counts=False):
    """``_unique2``: distinct values of the flattened input, sorted (nans stay distinct),
    with the inverse (where each input element went) and the counts."""
    values, inverse, counts = np.unique(self._array.reshape(-1), return_inverse=True,
                                        return_counts=True, equal_nan=False)  # fmt: skip
    inverse = inverse.reshape(self._size) if return_inverse else np.empty(0, np.int64)
    counts = counts if return_counts else np.empty(0, np.int64)
    return (wrap_result(values, self._dtype),
            wrap_result(inverse, dt.int64),
            wrap_result(counts, dt.int64))  # fmt: skip


def _unique_dim_kernel(self: Tensor, dim: int, sorted=True, return_inverse=False,
                       return_counts=False):  # fmt: skip
    """``unique_dim``: distinct slices along ``dim``, in lexicographic order."""
    values, inverse, counts = np.unique(self._array, axis=dim, return_inverse=True,
                                        return_counts=True)  # fmt: skip
    inverse = inverse.reshape(-1) if return_inverse else np.empty(0, np.int64)
    counts = counts if return_counts else np.empty(0, np.int64)
    return (_in_moved_layout(values, dim, self._dtype),
            wrap_result(inverse, dt.int64),
            wrap_result(counts, dt.int64))  # fmt: skip


def _unique_consecutive_kernel(self: Tensor, return_inverse=False, return_counts=False,
                               dim=None):  # fmt: skip
    """Collapse runs of equal neighbours (no sorting): a run starts where a value differs
    from the one before it."""
    if dim is None:
        slices = self._array.reshape(-1, 1)
    else:
        moved = np.moveaxis(self._array, dim, 0)
        slices = moved.reshape(moved.shape[0], -1)
    starts = np.ones(slices.shape[0], dtype=bool)
    starts[1:] = np.any(slices[1:] != slices[:-1], axis=1)
    if dim is None:
        values = wrap_result(self._array.reshape(-1)[starts], self._dtype)
    else:
        moved_values = np.moveaxis(np.moveaxis(self._array, dim, 0)[starts], 0, dim)
        values = _in_moved_layout(moved_values, dim, self._dtype)
    inverse = np.cumsum(starts) - 1
    if dim is None:
        inverse = inverse.reshape(self._size)
    counts = np.diff(np.append(np.flatnonzero(starts), slices.shape[0]))
    inverse = inverse if return_inverse else np.empty(0, np.int64)
    counts = counts if return_counts else np.empty(0, np.int64)
    return (values,
            wrap_result(inverse, dt.int64),
            wrap_result(counts, dt.int64))  # fmt: skip


def _not_implemented_derivative(node_name: str, op_name: str) -> Derivative:
    """PyTorch records a node for ``unique`` (its values require grad) whose backward is
    ``not_implemented``: the error comes at ``backward()``, not at the call."""

    def formula(grad, saved):
        raise NotImplementedError(f"the derivative for '{op_name}' is not implemented.")

    return Derivative(node_name, grads={"self": formula}, differentiable_outputs=(0,))


_unique_op = declare(
    "_unique2(Tensor self, bool sorted=True, bool return_inverse=False, "
    "bool return_counts=False) -> (Tensor, Tensor, Tensor)", FUNCTIONAL, _unique_kernel,
    _not_implemented_derivative("Unique2Backward0", "_unique2"),
)  # fmt: skip
_unique_dim_op = declare(
    "unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, "
    "bool return_counts=False) -> (Tensor, Tensor, Tensor)", FUNCTIONAL, _unique_dim_kernel,
    _not_implemented_derivative("UniqueDimBackward0", "unique_dim"),
)  # fmt: skip
_unique_consecutive_op = declare(
    "unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, "
    "int? dim=None) -> (Tensor, Tensor, Tensor)", FUNCTIONAL, _unique_consecutive_kernel,
    _not_implemented_derivative("UniqueConsecutiveBackward0", "unique_consecutive"),
)  # fmt: skip


def _unique_result(results, return_inverse: bool, return_counts: bool):
    """``torch.unique`` returns the values alone, or a plain tuple with what was asked."""
    values, inverse, counts = results
    extras = ([inverse] if return_inverse else []) + ([counts] if return_counts else [])
    return (values, *extras) if extras else values


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """``torch.unique``: the distinct elements (or slices along ``dim``), sorted.

    The CPU implementation sorts even when ``sorted=False``, and so do we.
    """
    check_tensor("unique", input, "input", 1)
    if dim is None:
        results = _unique_op(input, sorted, return_inverse, return_counts)
    else:
        dim = _prepare_dim("unique", input, dim)
        results = _unique_dim_op(input, dim, sorted, return_inverse, return_counts)
    return _unique_result(results, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """``torch.unique_consecutive``: collapse each run of equal consecutive elements."""
    check_tensor("unique_consecutive", input, "input", 1)
    if dim is not None:
        dim = _prepare_dim("unique_consecutive", input, dim)
    results = _unique_consecutive_op(input, return_inverse, return_counts, dim)
    return _unique_result(results, return_inverse, return_counts)


def _bind(function) -> None:
    def method(self, *args, **kwargs):
        return function(self, *args, **kwargs)

    method.__doc__ = function.__doc__
    bind_method(function.__name__, method)


for _function in (sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, unique,
                  unique_consecutive):  # fmt: skip
    _bind(_function)

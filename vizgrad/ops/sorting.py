"""Sorting and selection: ``sort``, ``topk``, ``median``, ``kthvalue``, ``mode``, ``unique``
(PyTorch's ``Sorting.cpp``, ``TensorCompare.cpp``, ``Unique.cpp``).

Every op here rests on one idea: a **stable sort** along ``dim`` that puts nan after
every number (PyTorch treats nan as the largest value). ``sort`` returns the sorted
values and the *indices* they came from; ``topk`` keeps the first ``k`` of them;
``kthvalue`` and ``median`` pick one position. Selections return a named tuple
``(values, indices)`` (``vizgrad.return_types``).
"""

from __future__ import annotations

import functools

import numpy as np

from .. import dtypes as dt
from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..memory_overlap import assert_no_internal_overlap, assert_no_partial_overlap
from ..shape import contiguous_strides, is_contiguous, is_non_overlapping_and_dense, wrap_dim
from ..tensor import Tensor, define_method
from .creation import empty
from .declaration import native_function
from .iterator import resize_output
from .overload_kernels import (
    Overlap,
    OverloadKernel,
    Precomputed,
    meta_then_impl,
    out_wrapper,
)
from .reduction_args import check_reducible, reduced_shape
from .reduction_backward import evenly_distributed_derivative, selecting_derivative
from .reduction_machinery import wrap_result

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
    """The CPU sort is always stable here (ties keep their order), which is one of the
    orders PyTorch may return when ``stable=False``; nan sorts as the largest value."""
    dim = wrap_dim(dim, self.dim())
    _check_sortable(" Sort", self)
    array = _as_rows(self)
    axis = dim if self._size else 0
    order = stable_order(array, axis, descending)
    values = np.take_along_axis(array, order, axis=axis)
    return _in_input_layout(values, self, self._dtype), _in_input_layout(order, self, dt.int64)


def _sort_meta(self: Tensor, *, stable=None, dim: int = -1, descending=False, **_outs):
    """``TORCH_META_FUNC2(sort, stable)``: outputs of ``self``'s shape, laid out as
    ``self`` when it is dense (as the functional's results are): an output that is
    resized takes that layout."""
    wrap_dim(dim, self.dim())
    dense = is_non_overlapping_and_dense(self._size, self._stride)
    strides = self._stride if dense else contiguous_strides(self._size)
    return [(self._size, self._dtype, strides), (self._size, dt.int64, strides)]


def _sort_values_meta(self: Tensor, dim: int = -1, descending=False, **outs):
    """``sort.values`` is ``sort.values_stable`` with ``stable=False``."""
    return _sort_meta(self, dim=dim, descending=descending, **outs)


# ``sort_stable_out`` copies ``self`` into ``values`` (a copy: ``values`` may be ``self``,
# not part of it) and sorts it in place with ``indices``, which ``self`` never meets.
_SORT_OVERLAP = (
    Overlap(internal=True, partial=("self",), outs=("values",)),
    Overlap(internal=True, outs=("indices",)),
)
# ``topk`` and ``mode`` write both outputs through a TensorIterator that reads ``self``:
# neither may overlap itself nor be part of ``self`` (it may be ``self``).
SELECTION_OVERLAP = Overlap(internal=True, partial=("self",))

# ``sort(t)`` and ``sort(t, stable=...)`` are two overloads (SortBackward0 and 1; even
# ``stable=False`` picks ``sort.stable``). The values were picked from ``indices``:
# their gradient is scattered back there.
sort = native_function(
    "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) "
    "-> (Tensor values, Tensor indices)",
    "sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
    "sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    kernels={
        "sort": meta_then_impl(_sort_values_meta, _sort_kernel),
        "sort.stable": meta_then_impl(_sort_meta, _sort_kernel),
        **{
            name: out_wrapper(
                _sort_kernel,
                "values",
                "indices",
                exact_dtype=True,
                meta=meta,
                resized_checks=_SORT_OVERLAP,
            )
            for name, meta in (
                ("sort.values", _sort_values_meta),
                ("sort.values_stable", _sort_meta),
            )
        },
    },  # fmt: skip
    derivatives={
        "sort": selecting_derivative("SortBackward0", keepdim=True),
        "sort.stable": selecting_derivative("SortBackward1", keepdim=True),
    },
    doc="``torch.sort``: ``(values, indices)`` sorted along ``dim``; ties keep their order, "
    "nan sorts as the largest value.",
)


def _argsort_kernel(self: Tensor, dim: int = -1, descending: bool = False, *, stable=None):
    """``argsort`` is the indices of ``sort`` (CompositeImplicitAutograd, as in PyTorch)."""
    if stable is None:
        return sort.overloads["sort"](self, dim, descending).indices
    return sort.overloads["sort.stable"](self, stable=stable, dim=dim,
                                         descending=descending).indices  # fmt: skip


def _argsort_out_kernel(self: Tensor, *, stable, dim=-1, descending=False, out: Tensor):
    """``sort`` into ``out`` (the indices) and a scratch tensor for the values."""
    values = empty(0, dtype=self.dtype)
    sort.overloads["sort.values_stable"](self, stable=stable, dim=dim, descending=descending,
                                         values=values, indices=out)  # fmt: skip
    return out


argsort = native_function(
    "argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor",
    "argsort.stable_out(Tensor self, *, bool stable, int dim=-1, bool descending=False, "
    "Tensor(a!) out) -> Tensor(a!)",
    "argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor",
    kernel=_argsort_kernel,
    kernels={"argsort.stable_out": _argsort_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"argsort.stable_out": COMPOSITE_IMPLICIT},
    doc="``torch.argsort``: only the indices of ``sort``.",
)


def _msort_kernel(self: Tensor) -> Tensor:
    """``msort`` is the values of ``sort`` along dim 0 (CompositeImplicitAutograd)."""
    return sort.overloads["sort"](self, 0, False).values


def _msort_out_kernel(self: Tensor, *, out: Tensor) -> Tensor:
    indices = empty(0, dtype=dt.int64, device=self.device)  # where ``sort`` runs
    sort.overloads["sort.values"](self, 0, False, values=out, indices=indices)
    return out


msort = native_function(
    "msort(Tensor self) -> Tensor",
    "msort.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_msort_kernel,
    kernels={"msort.out": _msort_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"msort.out": COMPOSITE_IMPLICIT},
    doc="``torch.msort``: the values of ``sort`` along dim 0.",
)


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


def _dim_size(input: Tensor, dim: int) -> int:
    return input._size[dim] if input._size else 1


def _topk_meta(self: Tensor, k: int, dim: int = -1, largest=True, sorted=True, **_outs):
    """``TORCH_META_FUNC(topk)``: the checks and both outputs' shape (``k`` along
    ``dim``), before the kernel reads ``self``."""
    dim = wrap_dim(dim, self.dim())
    if self._dtype is dt.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    _check_sortable("topk", self)
    if not 0 <= k <= _dim_size(self, dim):
        raise RuntimeError("selected index k out of range")
    shape = tuple(k if d == dim else n for d, n in enumerate(self._size))
    return [(shape, self._dtype), (shape, dt.int64)]


def _topk_impl(self: Tensor, k: int, dim: int = -1, largest=True, sorted=True):
    """``topk_out_cpu``: the ``k`` largest (or smallest) values along ``dim`` and their
    indices, largest first, from ``self`` as it is after the meta step (an output that
    is ``self`` was resized, ``self`` with it). Which of equal values is returned is
    not specified."""
    dim = wrap_dim(dim, self.dim())
    if not 0 <= k <= _dim_size(self, dim):
        raise RuntimeError("selected index k out of range")
    if not self._size:
        # ``topk_out_cpu``: a 0-dim tensor is its own top element, whatever k (0 or 1).
        return self.clone(), self.new_zeros((), dtype=dt.int64)
    axis = dim
    order = stable_order(_as_rows(self), axis, descending=largest)
    shape = list(order.shape)
    shape[axis] = k
    along_axis = [k if i == axis else 1 for i in range(order.ndim)]
    positions = np.broadcast_to(np.arange(k).reshape(along_axis), shape)
    return _take_positions(self, dim, order, positions, keepdim=True)


_topk_kernel = meta_then_impl(_topk_meta, _topk_impl)


def _check_kthvalue(self: Tensor, k: int, dim: int = -1, keepdim=False, **_outs) -> int:
    """``kthvalue_out_impl_cpu``'s argument checks; returns the wrapped dim."""
    dim = wrap_dim(dim, self.dim())
    check_reducible("kthvalue", self, (dim,), full=False)
    if not 1 <= k <= _dim_size(self, dim):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return dim


def _kthvalue_meta(self: Tensor, k: int, dim: int = -1, keepdim=False, **_outs):
    """``kthvalue``'s checks and both outputs' shape (``dim`` reduced), before it reads
    ``self``."""
    dim = _check_kthvalue(self, k, dim, keepdim)
    shape = reduced_shape(self._size, (dim,), keepdim)
    return [(shape, self._dtype), (shape, dt.int64)]


def _kthvalue_impl(self: Tensor, k: int, dim: int = -1, keepdim=False):
    """The ``k``-th smallest value along ``dim`` (``k`` counts from 1) and its index."""
    dim = _check_kthvalue(self, k, dim, keepdim)
    # The dtype dispatch of its loop (after the outputs are set), which a 0-dim ``self``,
    # copied as it is, never meets.
    if self._size and (self._dtype is dt.bool or self._dtype.category == dt.COMPLEX):
        raise NotImplementedError(
            f"\"kthvalue_cpu\" not implemented for '{self._dtype.scalar_name}'"
        )
    axis = dim if self._size else 0
    order = stable_order(_as_rows(self), axis, descending=False)
    positions = np.full([1 if i == axis else s for i, s in enumerate(order.shape)], k - 1)
    return _take_positions(self, dim, order, positions, keepdim)


_kthvalue_kernel = meta_then_impl(_kthvalue_meta, _kthvalue_impl)


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


def _index_all_nan_rows(array: np.ndarray, axis: int, order: np.ndarray) -> None:
    """``nanmedian`` of a row of nans only: all its elements are equivalent to the
    comparison, so the index is the one ``std::nth_element`` (libstdc++'s introselect)
    leaves in front, which depends on the length only. Written into ``order``'s first
    place, where the median of such a row is read."""
    n = array.shape[axis]
    all_nan = np.all(np.isnan(array), axis=axis, keepdims=True)
    if n > 3 and all_nan.any():
        front = np.take(order, [0], axis=axis)
        chosen = np.where(all_nan, equivalent_nth_element(n, 0), front)
        np.put_along_axis(order, np.zeros_like(front), chosen, axis=axis)


def check_median_input(kernel_name: str, input: Tensor) -> None:
    """The CPU kernels' dtype dispatch (``median_cpu`` for all the elements, ``median_out``
    along a dim, ``nanmedian``'s too): no bool, no complex."""
    if input._dtype is dt.bool or input._dtype.category == dt.COMPLEX:
        raise NotImplementedError(
            f"\"{kernel_name}\" not implemented for '{input._dtype.scalar_name}'"
        )


def _median_dim_meta(fn_name: str):
    """``median_with_indices_impl``'s checks and the outputs' shape, which it sets
    (``resize_output``) before it reads ``self``; ``dim`` is wrapped once, against
    ``self`` as the caller gave it."""

    def meta(self: Tensor, dim: int, keepdim=False, **_outs) -> Precomputed:
        check_median_input("median_out", self)
        dim = wrap_dim(dim, self.dim())
        # One impl serves both: its check says ``median()`` for ``nanmedian`` too.
        check_reducible("median", self, (dim,), full=False)
        shape = self._size
        if self._size:
            shape = tuple(
                1 if d == dim else n for d, n in enumerate(self._size) if keepdim or d != dim
            )
        return Precomputed([(shape, self._dtype), (shape, dt.int64)], dim=dim)

    return meta


def _check_median_iterator(self: Tensor, dim: int, keepdim=False, *, values: Tensor,
                           indices: Tensor) -> None:  # fmt: skip
    """The TensorIterator ``median_with_indices_impl`` writes through, made after it
    resized the outputs (``self`` with them, if one is ``self``): it reads ``in``,
    ``self`` (or, when ``dim`` is not its innermost, a contiguous copy), and writes the
    outputs seen with ``self``'s rank. Each may not overlap itself, nor be part of
    ``in``; a ``dim`` the resized ``self`` no longer has is an ``IndexError`` first."""
    source = self if self._size else self.unsqueeze(0)
    dim = wrap_dim(dim, source.dim())
    if source._stride[dim] > 1:
        source = None  # a copy: no memory shared with the outputs
    for out in (values, indices):
        seen = out if keepdim and self._size else out.unsqueeze(dim)
        assert_no_internal_overlap(seen)
        if source is not None:
            assert_no_partial_overlap(seen, source)


def _median_dim_impl(ignore_nan: bool):
    def impl(self: Tensor, dim: int, keepdim=False):
        dim = wrap_dim(dim, self.dim() or 1)
        if not self.numel():
            return None  # (only a resized ``self`` is empty here: nothing to read)
        array = _as_rows(self)
        axis = dim if self._size else 0
        order = stable_order(array, axis, descending=False)
        positions = _median_positions(array, axis, ignore_nan)
        if ignore_nan and array.dtype.kind == "f":
            _index_all_nan_rows(array, axis, order)
        return _take_positions(self, dim, order, positions, keepdim)

    return impl


def _median_dim_kernel(fn_name: str, ignore_nan: bool):
    return meta_then_impl(_median_dim_meta(fn_name), _median_dim_impl(ignore_nan))


def _median_dim_out(fn_name: str, ignore_nan: bool):
    """``median.dim_values``: not a structured kernel, but it too sets its outputs before
    it reads ``self``."""
    return out_wrapper(_median_dim_kernel(fn_name, ignore_nan), meta=_median_dim_meta(fn_name),
                       impl=_median_dim_impl(ignore_nan), check_dtypes=_check_median_out,
                       resized_checks=_check_median_iterator)  # fmt: skip


def _median_all_kernel(fn_name: str, ignore_nan: bool):
    def kernel(self: Tensor) -> Tensor:
        if self.numel():  # (an empty ``self`` is nan before the dtype dispatch)
            check_median_input("median_cpu", self)
        values = self._array.reshape(-1)
        if values.dtype.kind == "f":
            nans = np.isnan(values)
            if ignore_nan:
                values = values[~nans]
            elif nans.any():
                values = values[:0]  # the median of anything with a nan is nan
        if values.size == 0:
            with np.errstate(invalid="ignore"):  # an integer nan is what C++'s cast makes
                result = np.array(np.nan).astype(self._dtype.numpy)
        else:
            k = (values.size - 1) // 2
            result = np.partition(values, k)[k]
        return wrap_result(result, self._dtype)

    return kernel


def mode_dim(self: Tensor, dim: int) -> int:
    """``mode``'s checks; ``dim`` wrapped."""
    dim = wrap_dim(dim, self.dim())
    if self.numel() and self._size and self._dtype.category == dt.COMPLEX:
        raise NotImplementedError(f"\"mode_cpu\" not implemented for '{self._dtype.scalar_name}'")
    check_reducible("mode", self, (dim,), full=False)
    return dim


def _mode_kernel(self: Tensor, dim: int = -1, keepdim=False):
    """The most frequent value of each row (the smallest, if several are) and an index of
    it, as PyTorch's CPU kernel finds them: ``std::sort`` of (value, index) pairs by value,
    then the longest run of equal values; the index is the last of that run."""
    dim = mode_dim(self, dim)
    array = np.moveaxis(_as_rows(self), dim if self._size else 0, -1)
    rows = array.reshape(-1, array.shape[-1])
    values = np.empty(rows.shape[0], dtype=rows.dtype)
    indices = np.empty(rows.shape[0], dtype=np.int64)
    for r, row in enumerate(rows):  # one row at a time: mode has no NumPy reduction
        values[r], indices[r] = _mode_of_row(row)
    shape = array.shape[:-1]
    values, indices = values.reshape(shape), indices.reshape(shape)
    if keepdim and self._size:
        values, indices = np.expand_dims(values, dim), np.expand_dims(indices, dim)
    return wrap_result(values, self._dtype), wrap_result(indices, dt.int64)


# Rows longer than this are not sorted in Python: the index of a tied mode is then the
# last occurrence (one PyTorch may give), not the one libstdc++'s unstable sort leaves.
_MODE_EMULATED_LENGTH = 4096


def _mode_of_row(row: np.ndarray):
    n = row.size
    has_nan = row.dtype.kind == "f" and np.isnan(row).any()
    if not has_nan and (n <= 16 or n > _MODE_EMULATED_LENGTH):
        # libstdc++ sorts 16 elements or fewer by insertion, which is stable: the run of the
        # mode ends at its last occurrence.
        uniques, counts = np.unique(row, return_counts=True)
        value = uniques[np.argmax(counts)]
        return value, np.flatnonzero(row == value)[-1]
    # nan compares false with everything: where it lands, and so the runs, are what the
    # C++ sort makes of it, step by step.
    pairs = list(zip(row.tolist(), range(n), strict=True))
    std_sort(pairs, lambda a, b: a[0] < b[0])
    mode, mode_index, run, longest = 0, 0, 0, 0
    for i in range(n):
        run += 1
        if i == n - 1 or pairs[i][0] != pairs[i + 1][0]:
            if run > longest:
                mode, mode_index, longest = pairs[i][0], pairs[i][1], run
            run = 0
    return mode, mode_index


# --- libstdc++'s std::sort and std::nth_element ---------------------------------------------
# Neither is stable, so where equivalent elements end up (the index of a tied mode, of an
# all-nan median) is what these algorithms do with them, step by step: introsort /
# introselect with a median-of-three pivot, then insertion sort on short ranges
# (``bits/stl_algo.h``).

_SORT_THRESHOLD = 16


def std_sort(a: list, less) -> None:
    """``std::sort(a.begin(), a.end(), less)`` in place."""
    n = len(a)
    if n > 1:
        _introsort_loop(a, 0, n, 2 * (n.bit_length() - 1), less)
        _final_insertion_sort(a, 0, n, less)


def equivalent_nth_element(n: int, nth: int) -> int:
    """Which of ``n`` mutually equivalent elements (by original position) ``std::nth_element``
    leaves at ``nth``."""
    a = list(range(n))
    first, last = 0, n
    depth = 2 * (n.bit_length() - 1)
    while last - first > 3:
        if depth == 0:  # heap select: with all elements equivalent it moves none
            break
        depth -= 1
        cut = _partition_pivot(a, first, last, lambda x, y: False)
        if cut <= nth:
            first = cut
        else:
            last = cut
    return a[nth]


def _introsort_loop(a: list, first: int, last: int, depth: int, less) -> None:
    while last - first > _SORT_THRESHOLD:
        if depth == 0:
            # Heap sort of the rest (``std::__partial_sort``); rare: a stable sort stands in.
            a[first:last] = sorted(a[first:last], key=_key(less))
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def _key(less):
    return functools.cmp_to_key(lambda x, y: -1 if less(x, y) else (1 if less(y, x) else 0))


def _partition_pivot(a: list, first: int, last: int, less) -> int:
    """``__unguarded_partition_pivot``: the median of three moved to ``first``, then
    Hoare's partition of the rest around it."""
    mid = first + (last - first) // 2
    x, y, z = first + 1, mid, last - 1
    if less(a[x], a[y]):
        pick = y if less(a[y], a[z]) else (z if less(a[x], a[z]) else x)
    elif less(a[x], a[z]):
        pick = x
    else:
        pick = z if less(a[y], a[z]) else y
    a[first], a[pick] = a[pick], a[first]
    lo, hi = first + 1, last
    while True:
        # (C++ relies on the pivot to stop these scans; nan may not, so they are bounded.)
        while lo < last - 1 and less(a[lo], a[first]):
            lo += 1
        hi -= 1
        while hi > first and less(a[first], a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _final_insertion_sort(a: list, first: int, last: int, less) -> None:
    if last - first > _SORT_THRESHOLD:
        _insertion_sort(a, first, first + _SORT_THRESHOLD, less)
        for i in range(first + _SORT_THRESHOLD, last):
            _linear_insert(a, i, less, first)
    else:
        _insertion_sort(a, first, last, less)


def _insertion_sort(a: list, first: int, last: int, less) -> None:
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            value = a[i]
            a[first + 1 : i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, i, less, first)


def _linear_insert(a: list, i: int, less, first: int) -> None:
    value = a[i]
    while i > first and less(value, a[i - 1]):
        a[i] = a[i - 1]
        i -= 1
    a[i] = value


# --- their out= overloads: each checks the out tensors' dtypes in its own words ------------
# ``median`` and ``nanmedian`` sort a copy of ``self``: their outputs may overlap ``self``,
# not themselves (the TensorIterator that writes them refuses it).


def _tensor_type(dtype) -> str:
    return f"vizgrad.{dtype.scalar_name}Tensor"


def _check_median_out(dtypes, values: Tensor, indices: Tensor) -> None:
    if values._dtype is not dtypes[0]:
        raise RuntimeError(
            f"Expected tensor for 'values' to have the same type as tensor for argument #2 "
            f"'self'; but type {_tensor_type(values._dtype)} does not equal "
            f"{_tensor_type(dtypes[0])} (while checking arguments for median)"
        )
    if indices._dtype is not dt.int64:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have scalar type Long; but got "
            f"{_tensor_type(indices._dtype)} instead (while checking arguments for median)"
        )


def _check_kthvalue_out(dtypes, values: Tensor, indices: Tensor) -> None:
    if values._dtype is not dtypes[0]:
        raise RuntimeError("output values must be of same type as input")
    if indices._dtype is not dt.int64:
        raise RuntimeError("output indices must be of scalar type Long")


def _check_mode_out(dtypes, values: Tensor, indices: Tensor) -> None:
    for tensor, expected, name in ((values, dtypes[0], "values"),
                                   (indices, dt.int64, "indices")):  # fmt: skip
        if tensor._dtype is not expected:
            raise RuntimeError(
                f"expected scalar type '{expected.scalar_name}' but got "
                f"'{tensor._dtype.scalar_name}' for {name} output"
            )


topk = native_function(
    "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) "
    "-> (Tensor values, Tensor indices)",
    "topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    kernel=_topk_kernel,
    kernels={
        "topk.values": out_wrapper(
            _topk_kernel,
            "values",
            "indices",
            exact_dtype=True,
            meta=_topk_meta,
            impl=_topk_impl,
            impl_checks=SELECTION_OVERLAP,
        )
    },  # fmt: skip
    derivative=selecting_derivative("TopkBackward0", keepdim=True),
    doc="``torch.topk``: the ``k`` largest (or smallest) values along ``dim`` and their indices.",
)
kthvalue = native_function(
    "kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) "
    "-> (Tensor values, Tensor indices)",
    "kthvalue.values(Tensor self, SymInt k, int dim=-1, bool keepdim=False, *, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    kernel=_kthvalue_kernel,
    # After its argument checks, ``values`` may share no memory with ``self`` (its
    # ``indices`` may); the TensorIterator it writes through refuses outputs whose
    # elements overlap, once they are resized.
    kernels={
        "kthvalue.values": out_wrapper(
            _kthvalue_kernel,
            "values",
            "indices",
            meta=_kthvalue_meta,
            check_dtypes=_check_kthvalue_out,
            checks=(_check_kthvalue, Overlap(full=("self",), outs=("values",))),
            resized_checks=Overlap(internal=True),
        )
    },
    derivative=selecting_derivative("KthvalueBackward0"),
    doc="``torch.kthvalue``: the ``k``-th smallest value along ``dim`` and its index.",
)
median = native_function(
    "median(Tensor self) -> Tensor",
    "median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "median.dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    kernels={
        "median": _median_all_kernel("median", ignore_nan=False),
        "median.dim": _median_dim_kernel("median", ignore_nan=False),
        "median.dim_values": _median_dim_out("median", ignore_nan=False),
    },
    derivatives={
        "median": evenly_distributed_derivative("MedianBackward0"),
        "median.dim": selecting_derivative("MedianBackward1"),
    },
    doc="``torch.median``: the lower median (the ``(n - 1) // 2``-th smallest), of all the "
    "elements or along ``dim`` with its index; nan if there is a nan.",
)
nanmedian = native_function(
    "nanmedian(Tensor self) -> Tensor",
    "nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "nanmedian.dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    kernels={
        "nanmedian": _median_all_kernel("nanmedian", ignore_nan=True),
        "nanmedian.dim": _median_dim_kernel("nanmedian", ignore_nan=True),
        "nanmedian.dim_values": _median_dim_out("nanmedian", ignore_nan=True),
    },
    derivatives={
        "nanmedian": evenly_distributed_derivative("NanmedianBackward0"),
        "nanmedian.dim": selecting_derivative("NanmedianBackward1"),
    },
    doc="``torch.nanmedian``: ``median`` of the elements that are not nan.",
)


def _resize_as_compare_base(self: Tensor, dim: int, keepdim: bool, outs) -> None:
    """``compare_base_kernel_core``'s resize of the outputs: seen with ``self``'s rank (the
    reduced dim inserted in place, so a resize warns of that shape), resized to ``self``'s
    shape with 1 at ``dim``, then the dim squeezed again."""
    dim = wrap_dim(dim, self.dim())
    sizes = list(self._size)
    sizes[dim] = 1
    for out in outs:
        if not keepdim and out.dim() >= dim:
            out.unsqueeze_(dim)
    for out in outs:
        resize_output(out, sizes)
    if not keepdim:
        for out in outs:
            out.squeeze_(dim)


class mode_out(OverloadKernel):  # noqa: N801 - reads as a wrapper in declarations
    """``mode_out``: the outputs' dtypes checked, then a 0-dim ``self`` is copied into
    them (``_dimreduce_return_trivial_no_ident``: a plain ``resize_`` to 0-dim, without
    the warning or the overlap checks); any other ``self`` goes through ``out_wrapper``."""

    def __init__(self, kernel):
        self.wrapper = out_wrapper(kernel, check_dtypes=_check_mode_out,
                                   resized_checks=SELECTION_OVERLAP)  # fmt: skip

    def for_overload(self, schema, variant):
        general = self.wrapper.for_overload(schema, variant)

        def out_kernel(self: Tensor, dim: int = -1, keepdim=False, *, values: Tensor,
                       indices: Tensor):  # fmt: skip
            if self._size:
                _check_mode_out([self._dtype], values, indices)
                if all(out._storage is not self._storage for out in (values, indices)):
                    # (An output that is ``self`` is resized by the wrapper, in order.)
                    _resize_as_compare_base(self, dim, keepdim, (values, indices))
                return general(self, dim, keepdim, values=values, indices=indices)
            _check_mode_out([self._dtype], values, indices)
            wrap_dim(dim, self.dim())
            for out in (values, indices):
                resize_output(out, (), warn=False)
            if not (self.is_meta or values.is_meta or indices.is_meta):  # data to copy
                for out, value in ((values, self._array), (indices, 0)):
                    np.copyto(out._array, value, casting="unsafe")
            return values, indices

        return out_kernel


mode = native_function(
    "mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "mode.values(Tensor self, int dim=-1, bool keepdim=False, *, Tensor(a!) values, "
    "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    kernel=_mode_kernel,
    kernels={"mode.values": mode_out(_mode_kernel)},  # fmt: skip
    derivative=selecting_derivative("ModeBackward0"),
    doc="``torch.mode``: the most frequent value along ``dim`` and an index of it.",
)


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
    dim = wrap_dim(dim, self.dim())
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
    # PyTorch's kernel takes the flat path for no dim, or dim 0 of a 1-D tensor (as given).
    flat = dim is None or (dim == 0 and self.dim() == 1)
    if self._dtype.category == dt.COMPLEX:
        kernel = "unique" if flat else "unique_dim"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.scalar_name}'")
    if flat:
        dim = None
    else:
        empty = _unique_dim_empty(self, dim)
        if empty is not None:
            return empty
    if dim is None:
        slices = self._array.reshape(-1, 1)
    else:
        dim = wrap_dim(dim, self.dim())
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


def _unique_dim_empty(self: Tensor, dim: int):
    """``_unique_dim_cpu_template``'s checks of sizes: a 0-dim tensor has no ``dim``; an
    empty ``dim`` gives empty results (if no other dim is empty); another empty dim is
    refused."""
    if self.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = wrap_dim(dim, self.dim())
    zero_dims = self._size.count(0)
    if self._size[dim] == 0:
        if zero_dims != 1:
            raise RuntimeError(
                "Number of zero sized dimensions is more than one, so unique cannot be applied "
            )
        nothing = wrap_result(np.empty(0, np.int64), dt.int64)
        return (wrap_result(np.empty(self._size, self._dtype.numpy), self._dtype), nothing,
                wrap_result(np.empty(0, np.int64), dt.int64))  # fmt: skip
    if zero_dims:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )
    return None


def _not_implemented_derivative(node_name: str, op_name: str) -> Derivative:
    """PyTorch records a node for ``unique`` (its values require grad) whose backward is
    ``not_implemented``: the error comes at ``backward()``, not at the call."""

    def formula(grad, saved):
        raise NotImplementedError(f"the derivative for '{op_name}' is not implemented.")

    return Derivative(node_name, grads={"self": formula}, differentiable_outputs=(0,))


# The operators ``torch.unique`` and ``torch.unique_consecutive`` call; they are not
# part of the public namespace.
_unique2 = native_function(
    "_unique2(Tensor self, bool sorted=True, bool return_inverse=False, "
    "bool return_counts=False) -> (Tensor, Tensor, Tensor)",
    kernel=_unique_kernel,
    derivative=_not_implemented_derivative("Unique2Backward0", "_unique2"),
    variants="function",
)
_unique_dim = native_function(
    "unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, "
    "bool return_counts=False) -> (Tensor, Tensor, Tensor)",
    kernel=_unique_dim_kernel,
    derivative=_not_implemented_derivative("UniqueDimBackward0", "unique_dim"),
    variants="function",
)
_unique_consecutive = native_function(
    "unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, "
    "int? dim=None) -> (Tensor, Tensor, Tensor)",
    kernel=_unique_consecutive_kernel,
    derivative=_not_implemented_derivative("UniqueConsecutiveBackward0", "unique_consecutive"),
    variants="function",
)


def _unique_result(results, return_inverse: bool, return_counts: bool):
    """``torch.unique`` returns the values alone, or a plain tuple with what was asked."""
    values, inverse, counts = results
    extras = ([inverse] if return_inverse else []) + ([counts] if return_counts else [])
    return (values, *extras) if extras else values


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """``torch.unique``: the distinct elements (or slices along ``dim``), sorted.

    The CPU implementation sorts even when ``sorted=False``, and so do we. A Python
    function in PyTorch too (``torch/functional.py``): it calls ``_unique2``, or
    ``unique_dim`` for slices, and returns what was asked for.
    """
    options = {"sorted": sorted, "return_inverse": return_inverse, "return_counts": return_counts}
    results = _unique2(input, **options) if dim is None else _unique_dim(input, dim, **options)
    return _unique_result(results, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """``torch.unique_consecutive``: collapse each run of equal consecutive elements.

    A Python function in PyTorch too (``torch/functional.py``) over the operator
    ``unique_consecutive``.
    """
    results = _unique_consecutive(input, return_inverse=return_inverse,
                                  return_counts=return_counts, dim=dim)  # fmt: skip
    return _unique_result(results, return_inverse, return_counts)


def _tensor_unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """``Tensor.unique``: ``torch.unique`` of this tensor (``torch/_tensor.py``)."""
    return unique(self, sorted, return_inverse, return_counts, dim)


def _tensor_unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    """``Tensor.unique_consecutive``: ``torch.unique_consecutive`` of this tensor
    (``torch/_tensor.py``)."""
    return unique_consecutive(self, return_inverse, return_counts, dim)


define_method("unique", _tensor_unique)
define_method("unique_consecutive", _tensor_unique_consecutive)

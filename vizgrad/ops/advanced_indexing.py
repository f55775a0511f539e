"""Advanced indexing and ``x[i] = v`` (``index``, ``index_put_``; ``TensorAdvancedIndexing.cpp``).

Basic indexing (ints, slices, ``None``, ``...``) makes a *view*; it lives in
``vizgrad.ops.basic_indexing``. Advanced indexing *copies* (or writes), because an
index tensor can pick any elements in any order, which no ``(size, stride, offset)``
can describe.

The heart of the module is ``AdvancedIndex``, PyTorch's plan for ``x[i, :, j]``:
boolean masks become the integer positions of their ``True`` elements, the index
tensors are broadcast together, and the broadcast index dimensions go where the
indexed dimensions were if those were adjacent, or to the front if not (NumPy's rule).
The same plan drives reading (``index.Tensor``) and writing (``index_put_``).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..derivatives import Derivative
from ..dtypes import BOOL, INTEGRAL, int32, int64, uint8
from ..memory_overlap import assert_no_overlap, assert_no_partial_overlap
from ..shape import broadcast_shapes, contiguous_strides, is_non_overlapping_and_dense
from ..tensor import Tensor, define_method
from ..user_warnings import warn_at_user_code
from .basic_indexing import basic_index
from .creation import tensor
from .declaration import native_function
from .indexing_common import (
    NONZERO_ON_META,
    _clone_keeping_layout,
    _fresh,
    fill_value,
    from_inplace,
)
from .iterator import output_strides
from .overload_kernels import Overlap, Precomputed, out_wrapper

__all__ = [
    "advanced_index",
    "index_put",
]


class _Layout:
    """Only the metadata TensorIterator's output-stride rule reads: no storage behind it."""

    __slots__ = ("_size", "_stride", "_dtype")

    def __init__(self, size, stride, dtype):
        self._size, self._stride, self._dtype = tuple(size), tuple(stride), dtype


def _view_strides(old_shape, old_stride, new_shape) -> tuple[int, ...]:
    """``computeStride``: the strides ``view`` gives when only size-1 dims are added.

    Needed to reproduce the strides PyTorch's ``reshape`` gives an index tensor, which
    decide (through TensorIterator) the layout of an advanced-indexing result.
    """
    if not old_shape:
        return (1,) * len(new_shape)
    if 0 in old_shape:
        return contiguous_strides(new_shape)
    new_stride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (
            old_shape[tensor_d - 1] != 1
            and old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = view_numel = 1
    return tuple(new_stride)


# --- the plan of an advanced index (at::native::AdvancedIndex) ------------------------


def _mask_to_indices(self: Tensor, mask: Tensor, first_dim: int) -> list[Tensor]:
    """``expandTensors``: a k-dim boolean mask becomes k integer index tensors.

    The mask covers ``k`` dims of ``self`` starting at ``first_dim`` and must have
    their sizes; its ``True`` positions (``nonzero``) are the elements picked.
    """
    if mask._dtype is uint8:
        warn_at_user_code(
            "indexing with dtype vizgrad.uint8 is now deprecated, please use a dtype "
            "vizgrad.bool instead.",
            UserWarning,
        )
    for j, size in enumerate(mask._size):
        dim = first_dim + j
        if dim >= len(self._size):
            raise IndexError(
                f"too many indices for tensor of dimension {len(self._size)} "
                f"(got {first_dim + len(mask._size)})"
            )
        if size != self._size[dim]:
            raise IndexError(
                f"The shape of the mask {list(mask._size)} at index {j} does not match the "
                f"shape of the indexed tensor {list(self._size)} at index {dim}"
            )
    if mask.is_meta:  # how many elements it picks is in its values
        raise NotImplementedError(NONZERO_ON_META)
    return [_fresh(c, int64) for c in np.nonzero(mask._array)]


class AdvancedIndex:
    """PyTorch's ``AdvancedIndex``: what ``x[indices]`` reads or ``x[indices] = v`` writes.

    ``indices`` has one entry per leading dim of ``self``: an index tensor, or ``None``
    for a dim taken whole. After construction:

    * ``positions`` — the dims of ``self`` that are indexed;
    * ``index_shape`` — the broadcast shape of the index tensors;
    * ``result_shape`` — the index dims replace the indexed dims where those were
      adjacent (``x[:, i, j]``), or go to the front when separated (``x[i, :, j]``);
    * ``numpy_index`` — the same selection for NumPy, which follows the same rule.
    """

    def __init__(self, self_tensor: Tensor, indices):
        ndim = len(self_tensor._size)
        expanded = []
        for index in indices:
            if index is not None and (index._dtype.category == BOOL or index._dtype is uint8):
                expanded.extend(_mask_to_indices(self_tensor, index, len(expanded)))
            else:
                expanded.append(index)
        for index in expanded:
            if index is not None and index._dtype not in (int64, int32):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if len(expanded) > ndim:
            raise IndexError(
                f"too many indices for tensor of dimension {ndim} (got {len(expanded)})"
            )
        expanded += [None] * (ndim - len(expanded))
        self.src = self_tensor
        self.indices = expanded
        self.positions = [d for d, index in enumerate(expanded) if index is not None]
        tensors = [expanded[d] for d in self.positions]
        try:
            self.index_shape = broadcast_shapes(*(t._size for t in tensors))
        except RuntimeError:
            shapes = ", ".join(str(list(t._size)) for t in tensors)
            raise IndexError(
                f"shape mismatch: indexing tensors could not be broadcast together with "
                f"shapes {shapes}"
            ) from None
        first, last = self.positions[0], self.positions[-1]
        # hasContiguousSubspace: adjacent indexed dims keep their place; else transposeToFront.
        self.adjacent = last - first + 1 == len(self.positions)
        self.dims_before = first if self.adjacent else 0
        if self.adjacent:
            self.order = list(range(ndim))
        else:
            self.order = self.positions + [d for d in range(ndim) if expanded[d] is None]
        sizes = [self_tensor._size[d] for d in self.order]
        k = len(self.positions)
        before = sizes[: self.dims_before]
        after = sizes[self.dims_before + k :]
        self.result_shape = (*before, *self.index_shape, *after)

    @property
    def numpy_index(self) -> tuple:
        """The same selection for NumPy (it reads the index tensors' values)."""
        return tuple(slice(None) if index is None else index._array for index in self.indices)

    def check_bounds(self) -> None:
        """Every index ``i`` must satisfy ``-size <= i < size`` for its dimension.

        PyTorch's kernel checks while it walks the result; the first bad element
        (and, at it, the first bad index tensor ``j``) names the error.
        """
        if 0 in self.index_shape:
            return
        bad_masks = []
        for d in self.positions:
            size = self.src._size[d]
            values = self.indices[d]._array
            bad = (values < -size) | (values >= size)
            bad_masks.append(np.broadcast_to(bad, self.index_shape))
        any_bad = np.logical_or.reduce(bad_masks)
        if not any_bad.any():
            return
        first = np.unravel_index(int(np.argmax(any_bad)), self.index_shape)
        for j, d in enumerate(self.positions):
            if bad_masks[j][first]:
                value = np.broadcast_to(self.indices[d]._array, self.index_shape)[first]
                raise IndexError(
                    f"index {int(value)} is out of bounds for dimension {j} with size "
                    f"{self.src._size[d]}"
                )

    def result_strides(self) -> tuple[int, ...]:
        """The strides TensorIterator gives the result (``index`` is a TensorIterator op).

        Its operands are the source *restrided* (stride 0 along the index dims) and each
        index tensor broadcast and reshaped with size-1 dims around it; the output
        follows their common memory order (``output_strides``).
        """
        src = self.src
        k = len(self.positions)
        strides = [src._stride[d] for d in self.order]
        src_strides = (
            *strides[: self.dims_before],
            *(0,) * len(self.index_shape),
            *strides[self.dims_before + k :],
        )
        operands = [_Layout(self.result_shape, src_strides, src._dtype)]
        dims_after = len(self.result_shape) - self.dims_before - len(self.index_shape)
        for d in self.positions:
            index = self.indices[d]
            stride = _expanded_strides(index._size, index._stride, self.index_shape)
            if index._dtype is int32 and not is_non_overlapping_and_dense(self.index_shape, stride):
                stride = contiguous_strides(self.index_shape)  # .to(kLong) copies densely
            shape = (1,) * self.dims_before + self.index_shape + (1,) * dims_after
            operands.append(_Layout(shape, _view_strides(self.index_shape, stride, shape), int64))
        return output_strides(self.result_shape, operands)


def _expanded_strides(size, stride, target) -> tuple[int, ...]:
    """The strides of ``expand(target)``: broadcast dims read one element (stride 0)."""
    lead = len(target) - len(size)
    result = [0] * lead
    for i, (s, st) in enumerate(zip(size, stride, strict=True)):
        result.append(st if s == target[lead + i] else 0)
    return tuple(result)


# --- reading: index.Tensor -----------------------------------------------------------


def _index_meta(self: Tensor, indices) -> Precomputed:
    """``index``'s meta function: the plan's result shape and TensorIterator's strides.
    Its masks became long indices: the kernel is given those (``TORCH_PRECOMPUTE``)."""
    plan = AdvancedIndex(self, indices)
    return Precomputed((plan.result_shape, self._dtype, plan.result_strides()),
                       indices=plan.indices)  # fmt: skip


def _check_index_out(self: Tensor, indices, *, out: Tensor) -> None:
    if out._dtype is not self._dtype:
        raise RuntimeError(
            f"index_out: self ({self._dtype.scalar_name}) and result ({out._dtype.scalar_name}) "
            "must have the same scalar type"
        )


def _index_kernel(self: Tensor, indices) -> Tensor:
    plan = AdvancedIndex(self, indices)
    plan.check_bounds()
    result = Tensor._empty_strided(plan.result_shape, plan.result_strides(), self._dtype)
    if result.numel():
        result._array[...] = self._array[plan.numpy_index]
    return result


def _index_backward(grad: Tensor, saved) -> Tensor:
    """``index_backward``: each picked element's gradient goes back where it was read.

    ``index_put`` with ``accumulate=True`` into zeros, so an element picked twice
    (``x[[0, 0]]``) gets the sum of both gradients, not just the last one.
    """
    zeros = grad.new_zeros(saved.self_sym_sizes)
    return _INDEX_PUT(zeros, saved.indices, grad, True)


# PyTorch binds no Python function or method for index.Tensor: Python reaches it only
# through ``x[...]``, whose glue calls the operator with ``None`` for the dims taken
# whole (which a Python call could not pass: see ``advanced_index``).
_index = native_function(
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "index.Tensor": _index_kernel,
        # ``index_out``: the meta function sets ``out`` (resized, it takes the strides).
        "index.Tensor_out": out_wrapper(_index_kernel, meta=_index_meta, check_cast=False,
                                        resized_checks=_check_index_out),
    },
    derivative=Derivative("IndexBackward0", save=("self_sym_sizes", "indices"),
                          grads={"self": _index_backward}, complex=True),
    variants="function",
)  # fmt: skip
_INDEX = _index.overloads["index.Tensor"]


# --- Python's x[...]: split an index into a view part and an advanced part -------------

_INDEX_TYPE_ERROR = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
    "valid indices (got {})"
)


def _as_index_tuple(index) -> tuple:
    """``treatSequenceAsTuple``: ``x[[0, slice(1)]]`` is read as ``x[0, slice(1)]``.

    A list that holds tensors, lists, slices, ``...`` or ``None`` counts as a tuple
    (deprecated in PyTorch, with a warning); any other list is one index tensor.
    """
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and len(index) < 32:
        for item in index:
            if isinstance(item, Tensor | list | tuple | slice) or item is None or item is Ellipsis:
                warn_at_user_code(
                    "Using a non-tuple sequence for multidimensional indexing is deprecated and "
                    "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                    "pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
                    "which will result either in an error or a different result",
                    UserWarning,
                )
                return tuple(index)
    return (index,)


def _to_index_tensor(item) -> Tensor:
    """A list or NumPy array used as an index becomes a tensor (an empty list: int64)."""

    result = tensor(item)
    if result.numel() == 0 and result._dtype.category > INTEGRAL:
        return _fresh(np.empty(result._size, np.int64), int64)
    return result


def _mask_dims(item: Tensor) -> int:
    return len(item._size) if item._dtype.category == BOOL or item._dtype is uint8 else 1


def split_index(tensor: Tensor, index):
    """``applySlicing``: the view part of an index, and the tensors left for ``index``.

    Ints, slices, ``None`` and ``...`` go into a basic index (a view, computed by
    ``basic_index``); each tensor, list or bool takes a dim of that view and is recorded
    for advanced indexing. A Python ``True``/``False`` adds a size-1 dim and indexes it
    with ``[0]`` or ``[]`` (keep it once, or not at all). Returns ``(basic, advanced)``:
    the basic index tuple and the list (one entry per view dim, ``None`` where whole).
    """
    items = []
    for item in _as_index_tuple(index):
        # Any Python sequence indexes as a tensor of its values (torch's
        # ``sequenceToVariable``): lists, and ``range`` (``x[range(n), labels]``).
        if isinstance(item, list | range | np.ndarray | str):
            item = _to_index_tensor(item)
        items.append(item)

    specified = 0
    for item in items:
        if isinstance(item, Tensor):
            specified += _mask_dims(item)
        elif isinstance(item, slice) or (
            isinstance(item, numbers.Integral) and not isinstance(item, bool)
        ):
            specified += 1
    if specified > len(tensor._size):
        raise IndexError(f"too many indices for tensor of dimension {len(tensor._size)}")

    basic, advanced = [], []
    dim = 0  # the dim of the view the next item applies to

    def record(index_tensor):
        advanced.extend([None] * (dim - len(advanced)))
        advanced.append(index_tensor)

    for item in items:
        if item is None:
            basic.append(None)
            dim += 1
        elif item is Ellipsis:
            basic.append(Ellipsis)
            dim += len(tensor._size) - specified
        elif isinstance(item, bool | np.bool_):
            basic.append(None)
            record(_fresh(np.zeros(1 if item else 0, np.int64), int64))
            dim += 1
        elif isinstance(item, numbers.Integral):
            basic.append(int(item))
        elif isinstance(item, slice):
            basic.append(item)
            dim += 1
        elif isinstance(item, Tensor):
            if not item._size and item._dtype.category == INTEGRAL and item._dtype is not uint8:
                basic.append(int(item.item()))  # a 0-dim integer tensor selects, like an int
            elif not item._size and (item._dtype.category == BOOL or item._dtype is uint8):
                basic.append(None)
                record(_fresh(np.zeros(1 if item.item() else 0, np.int64), int64))
                dim += 1
            else:
                record(item)
                ndim = _mask_dims(item)
                basic.extend([slice(None)] * ndim)
                dim += ndim
        else:
            raise IndexError(_INDEX_TYPE_ERROR.format(type(item).__name__))
    return tuple(basic), advanced


def _basic_view(tensor: Tensor, basic: tuple) -> Tensor:

    if all(isinstance(b, slice) and b == slice(None) for b in basic):
        return tensor
    return basic_index(tensor, basic)


def advanced_index(tensor: Tensor, index) -> Tensor:
    """``x[index]`` when ``index`` holds tensors, lists, bools or arrays: always a copy.

    The ints, slices, ``None`` and ``...`` are applied first as a view; the index
    tensors then pick elements of that view (the ``index.Tensor`` operator).
    """
    basic, advanced = split_index(tensor, index)
    view = _basic_view(tensor, basic)
    if not any(a is not None for a in advanced):
        return view
    return _INDEX(view, advanced)


# --- writing: index_put_ and __setitem__ ------------------------------------------------


def _check_values_shape(values: Tensor, result_shape) -> None:
    """``values`` must broadcast to the indexing result (extra leading 1s allowed)."""
    shape = values._size
    while len(shape) > len(result_shape) and shape[0] == 1:
        shape = shape[1:]
    ok = len(shape) <= len(result_shape) and all(
        s in (1, r) for s, r in zip(reversed(shape), reversed(result_shape), strict=False)
    )
    if not ok:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values._size)} cannot be broadcast "
            f"to indexing result of shape {list(result_shape)}"
        )


def _index_put_into(self: Tensor, indices, values: Tensor, accumulate: bool) -> None:
    """Write ``values`` at ``self[indices]``; with ``accumulate``, duplicates add up."""
    if values._dtype is not self._dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got "
            f"{self._dtype.scalar_name} for the destination and {values._dtype.scalar_name} "
            f"for the source."
        )
    plan = AdvancedIndex(self, indices)
    _check_values_shape(values, plan.result_shape)
    plan.check_bounds()
    source = values._array
    while source.ndim > len(plan.result_shape):
        source = source[0]  # drop the extra leading size-1 dims
    if accumulate:
        # np.add.at adds once per occurrence; plain assignment would keep only the last.
        np.add.at(self._array, plan.numpy_index, np.broadcast_to(source, plan.result_shape))
    else:
        self._array[plan.numpy_index] = source


def _index_put_self_grad(grad: Tensor, saved) -> Tensor:
    # Overwritten elements no longer depend on ``self``; accumulated ones still do, fully.
    if saved.accumulate:
        return grad
    return _INDEX_PUT(grad, saved.indices, grad.new_zeros(()), False)


def _index_put_values_grad(grad: Tensor, saved) -> Tensor:
    """``grad[indices]``: each value's gradient is read where it was written.

    (With repeated indices and no accumulation PyTorch still gives every copy the
    gradient of the one place, though only the last write survived: so do we.)
    """
    picked = _INDEX(grad, saved.indices)
    extra = len(saved.values_sym_sizes) - len(picked._size)
    if extra > 0:  # values may carry extra leading size-1 dims
        picked = picked.reshape((1,) * extra + picked._size)
    return picked


def _dispatches_to_masked_fill(indices, values: Tensor, accumulate: bool) -> bool:
    """Whether ``index_put_`` is ``masked_fill_`` (``canDispatchToMaskedFill``): one
    value written, without accumulating, where one bool (or uint8) mask says."""
    masks = [t for t in indices if t is not None]
    return (not accumulate and values.numel() == 1 and len(masks) == 1
            and (masks[0]._dtype.category is BOOL or masks[0]._dtype is uint8))  # fmt: skip


def _check_index_put_overlap(self, indices, values, accumulate=False) -> None:
    """``_index_put_impl_``'s memory checks: ``values`` and every index may share no
    memory with ``self``; written as ``masked_fill_``, the mask may be ``self`` itself."""
    if _dispatches_to_masked_fill(indices, values, accumulate):
        for mask in indices:
            if mask is not None:
                assert_no_partial_overlap(self, mask)
        return
    assert_no_overlap(self, values)
    for index in indices:
        if index is not None:
            assert_no_overlap(self, index)


def _no_meta_checks(self, indices, values, accumulate=False) -> None:
    """PyTorch 2.13's meta ``index_put_`` checks neither the indices nor the values (it
    expands no mask either: a meta bool mask is fine), so on the meta device none is."""


# index_put is ``self.clone().index_put_(...)``: a dense input keeps its layout.
index_put = native_function(
    "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
    "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) "
    "-> Tensor(a!)",
    # ``index_put_``: an expanded ``self`` is only deprecated; then what it reads may not
    # share memory with it, before the dtypes are compared.
    kernel=from_inplace(
        _index_put_into,
        start=_clone_keeping_layout,
        meta_checks=_no_meta_checks,
        inplace_checks=(Overlap(deprecated_expanded="index_put_"), _check_index_put_overlap),
    ),
    derivative=Derivative(
        "IndexPutBackward0",
        save=("indices", "accumulate", "values_sym_sizes"),
        grads={"self": _index_put_self_grad, "values": _index_put_values_grad},
    ),
    doc="``torch.index_put``: a copy of ``input`` with ``values`` put at ``input[indices]`` "
    "(added, with ``accumulate=True``).",
)
# The glue of ``x[...]`` and the formulas call the operators with None in ``indices``.
_INDEX_PUT = index_put.overloads["index_put"]
_INDEX_PUT_ = index_put.overloads["index_put_"]


def _value_as_tensor(self: Tensor, value) -> Tensor:
    """``valueToTensor``: a Python number becomes a 0-dim tensor of ``self``'s dtype."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, numbers.Number):
        return Tensor._from_array(fill_value(value, self._dtype), self._dtype)
    raise TypeError(
        f"can't assign a {type(value).__module__ + '.' if isinstance(value, np.ndarray) else ''}"
        f"{type(value).__name__} to a vizgrad.{self._dtype.scalar_name}Tensor"
    )


def _setitem(self: Tensor, index, value) -> None:
    """``Tensor.__setitem__``: copy into a view for basic indices, ``index_put_`` otherwise.

    Either way the write lands in ``x``'s storage (and its base's, if ``x`` is a view)
    and bumps the shared version counter once. Python glue in PyTorch too
    (``python_variable_indexing.cpp``): it calls the declared operators.
    """
    if index is False:  # x[False] = v writes nothing, and PyTorch returns early
        return
    value = _value_as_tensor(self, value)
    basic, advanced = split_index(self, index)
    view = _basic_view(self, basic)
    if any(a is not None for a in advanced):
        _INDEX_PUT_(view, advanced, value, False)
    else:
        view.copy_(value)


define_method("__setitem__", _setitem)

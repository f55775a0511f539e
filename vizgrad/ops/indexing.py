"""Indexing: advanced indexing, ``x[i] = v``, gather/scatter, masks (TensorAdvancedIndexing.cpp).

Basic indexing (ints, slices, ``None``, ``...``) makes a *view*; it lives in
``vizgrad.ops.views``. Everything here *copies* (or writes), because an index tensor
can pick any elements in any order, which no ``(size, stride, offset)`` can describe.

The heart of the module is ``AdvancedIndex``, PyTorch's plan for ``x[i, :, j]``:
boolean masks become the integer positions of their ``True`` elements, the index
tensors are broadcast together, and the broadcast index dimensions go where the
indexed dimensions were if those were adjacent, or to the front if not (NumPy's rule).
The same plan drives reading (``index.Tensor``) and writing (``index_put_``).
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ..autograd.formula import NON_DIFFERENTIABLE, Derivative
from ..dispatcher import FUNCTIONAL, INPLACE
from ..dtypes import BOOL, COMPLEX, INTEGRAL, int32, int64, uint8
from ..shape import (
    broadcast_shapes,
    contiguous_strides,
    has_internal_overlap,
    is_non_overlapping_and_dense,
    numel_of,
    wrap_dim,
)
from ..tensor import Tensor
from .iterator import _C_TYPE, output_strides, resize_output
from .registry import _inplace_schema, bind_method, check_tensor, declare, declare_with_out

__all__ = [
    "advanced_index",
    "index_put",
    "index_select",
    "gather",
    "scatter",
    "scatter_add",
    "index_add",
    "index_copy",
    "index_fill",
    "masked_fill",
    "masked_select",
    "masked_scatter",
    "take",
    "put",
    "nonzero",
    "argwhere",
]


# --- small shared pieces ---------------------------------------------------------------


def _fresh(array: np.ndarray, dtype) -> Tensor:
    """A new row-major tensor holding ``array`` (cast to ``dtype``).

    The array becomes the storage as it is only if it owns its memory; a view (of an
    input, or a read-only broadcast) is copied, so the result never aliases anything.
    """
    if array.dtype != dtype.numpy:
        array = array.astype(dtype.numpy)
    if not (array.flags.owndata and array.flags.c_contiguous and array.flags.writeable):
        array = np.array(array, order="C")
    return Tensor._from_array(array, dtype)


def _copy_of(t: Tensor, *, preserve_layout: bool) -> Tensor:
    """``clone``: keep a dense input's strides (``MemoryFormat::Preserve``), else row-major.

    Functional forms of in-place ops (``index_fill``, ``put``) start from such a clone;
    structured kernels (``scatter``, ``index_add``) allocate row-major outputs instead.
    """
    if preserve_layout and is_non_overlapping_and_dense(t._size, t._stride):
        result = Tensor._empty_strided(t._size, t._stride, t._dtype)
    else:
        result = Tensor._empty_strided(t._size, contiguous_strides(t._size), t._dtype)
    result._array[...] = t._array
    return result


def fill_value(value, dtype) -> np.ndarray:
    """A Python number as a 0-dim array of ``dtype``: c10's ``checked_convert``.

    A value the dtype cannot hold is an error (``300`` into uint8, ``nan`` into int64,
    ``2j`` into float32); floats are truncated towards zero into integer dtypes, and
    negative ints wrap into uint8, as in PyTorch.
    """
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    category = dtype.category
    overflow = False
    if isinstance(value, complex) and category != COMPLEX:
        overflow = value.imag != 0
        value = value.real
    if category == INTEGRAL and not isinstance(value, bool):
        info = np.iinfo(dtype.numpy)
        if isinstance(value, float):
            overflow = overflow or not math.isfinite(value) or not info.min <= value <= info.max
        elif dtype is uint8:
            overflow = value > info.max or -value > info.max  # -1 wraps to 255, as in C
        else:
            overflow = not info.min <= value <= info.max
    if overflow:
        raise RuntimeError(
            f"value cannot be converted to type {_C_TYPE[dtype.name]} without overflow"
        )
    with np.errstate(over="ignore", invalid="ignore"):  # 1e10 into float16 is inf
        return np.array(value).astype(dtype.numpy)


def _check_scalar(fn_name: str, value, name: str, position: int) -> None:
    if not isinstance(value, numbers.Number) or isinstance(value, Tensor):
        raise TypeError(
            f"{fn_name}(): argument '{name}' (position {position}) must be Number, "
            f"not {type(value).__name__}"
        )


def _index_tensor_list(fn_name: str, indices) -> list:
    """``Tensor?[] indices`` from Python: a tuple or list whose elements are tensors."""
    if isinstance(indices, Tensor) or not isinstance(indices, tuple | list):
        raise TypeError(
            f"{fn_name}(): argument 'indices' (position 1) must be tuple of Tensors, "
            f"not {type(indices).__name__}"
        )
    for i, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(index).__name__}"
            )
    return list(indices)


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
        warnings.warn(
            "indexing with dtype vizgrad.uint8 is now deprecated, please use a dtype "
            "vizgrad.bool instead.",
            UserWarning,
            stacklevel=5,
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
        self.numpy_index = tuple(
            slice(None) if index is None else index._array for index in expanded
        )

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
    return _index_put_functional_op(zeros, saved.indices, grad, True)


_index_op = declare(
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    FUNCTIONAL,
    _index_kernel,
    Derivative("IndexBackward0", save=("self_sym_sizes", "indices"),
               grads={"self": _index_backward}),
)  # fmt: skip


# --- Python's x[...]: split an index into a view part and an advanced part -------------

_INDEX_TYPE_ERROR = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
    "valid indices (got {})"
)


def _as_index_tuple(index, stacklevel: int) -> tuple:
    """``treatSequenceAsTuple``: ``x[[0, slice(1)]]`` is read as ``x[0, slice(1)]``.

    A list that holds tensors, lists, slices, ``...`` or ``None`` counts as a tuple
    (deprecated in PyTorch, with a warning); any other list is one index tensor.
    """
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and len(index) < 32:
        for item in index:
            if isinstance(item, Tensor | list | tuple | slice) or item is None or item is Ellipsis:
                warnings.warn(
                    "Using a non-tuple sequence for multidimensional indexing is deprecated and "
                    "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                    "pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
                    "which will result either in an error or a different result",
                    UserWarning,
                    stacklevel=stacklevel,
                )
                return tuple(index)
    return (index,)


def _to_index_tensor(item) -> Tensor:
    """A list or NumPy array used as an index becomes a tensor (an empty list: int64)."""
    from .creation import tensor

    result = tensor(item)
    if result.numel() == 0 and result._dtype.category > INTEGRAL:
        return _fresh(np.empty(result._size, np.int64), int64)
    return result


def _mask_dims(item: Tensor) -> int:
    return len(item._size) if item._dtype.category == BOOL or item._dtype is uint8 else 1


def split_index(tensor: Tensor, index, *, stacklevel: int = 4):
    """``applySlicing``: the view part of an index, and the tensors left for ``index``.

    Ints, slices, ``None`` and ``...`` go into a basic index (a view, computed by
    ``basic_index``); each tensor, list or bool takes a dim of that view and is recorded
    for advanced indexing. A Python ``True``/``False`` adds a size-1 dim and indexes it
    with ``[0]`` or ``[]`` (keep it once, or not at all). Returns ``(basic, advanced)``:
    the basic index tuple and the list (one entry per view dim, ``None`` where whole).
    """
    items = []
    for item in _as_index_tuple(index, stacklevel + 1):
        if isinstance(item, list | np.ndarray | str):
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
    from .basic_indexing import basic_index

    if all(isinstance(b, slice) and b == slice(None) for b in basic):
        return tensor
    return basic_index(tensor, basic)


def advanced_index(tensor: Tensor, index) -> Tensor:
    """``x[index]`` when ``index`` holds tensors, lists, bools or arrays: always a copy.

    The ints, slices, ``None`` and ``...`` are applied first as a view; the index
    tensors then pick elements of that view (the ``index.Tensor`` operator).
    """
    basic, advanced = split_index(tensor, index, stacklevel=5)  # user -> __getitem__ -> here
    view = _basic_view(tensor, basic)
    if not any(a is not None for a in advanced):
        return view
    return _index_op(view, advanced)


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
    if has_internal_overlap(self._size, self._stride):
        warnings.warn(
            "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor "
            "before performing this operation. This also applies to advanced indexing e.g. "
            "tensor[indices] = tensor",
            UserWarning,
            stacklevel=6,
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


def _index_put_kernel(self, indices, values, accumulate=False):
    _index_put_into(self, indices, values, accumulate)
    return self


def _index_put_functional_kernel(self, indices, values, accumulate=False):
    result = _copy_of(self, preserve_layout=True)
    _index_put_into(result, indices, values, accumulate)
    return result


def _index_put_self_grad(grad: Tensor, saved) -> Tensor:
    # Overwritten elements no longer depend on ``self``; accumulated ones still do, fully.
    if saved.accumulate:
        return grad
    return _index_put_functional_op(grad, saved.indices, grad.new_zeros(()), False)


def _index_put_values_grad(grad: Tensor, saved) -> Tensor:
    """``grad[indices]``: each value's gradient is read where it was written.

    (With repeated indices and no accumulation PyTorch still gives every copy the
    gradient of the one place, though only the last write survived: so do we.)
    """
    picked = _index_op(grad, saved.indices)
    extra = len(saved.values_sym_sizes) - len(picked._size)
    if extra > 0:  # values may carry extra leading size-1 dims
        picked = picked.reshape((1,) * extra + picked._size)
    return picked


_INDEX_PUT_DERIVATIVE = Derivative(
    "IndexPutBackward0",
    save=("indices", "accumulate", "values_sym_sizes"),
    grads={"self": _index_put_self_grad, "values": _index_put_values_grad},
)
_index_put_op = declare(
    "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) "
    "-> Tensor(a!)",
    INPLACE,
    _index_put_kernel,
    _INDEX_PUT_DERIVATIVE,
)
_index_put_functional_op = declare(
    "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
    FUNCTIONAL,
    _index_put_functional_kernel,
    _INDEX_PUT_DERIVATIVE,
)


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """``torch.index_put``: a copy of ``input`` with ``values`` put at ``input[indices]``."""
    check_tensor("index_put", input, "input", 1)
    indices = _index_tensor_list("index_put", indices)
    check_tensor("index_put", values, "values", 3)
    return _index_put_functional_op(input, indices, values, bool(accumulate))


def _index_put_(self: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """``Tensor.index_put_``: ``self[indices] = values``, or ``+=`` with ``accumulate=True``."""
    indices = _index_tensor_list("index_put_", indices)
    check_tensor("index_put_", values, "values", 2)
    return _index_put_op(self, indices, values, bool(accumulate))


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
    """``x[index] = value``: copy into a view for basic indices, ``index_put_`` otherwise.

    Either way the write lands in ``x``'s storage (and its base's, if ``x`` is a view)
    and bumps the shared version counter once.
    """
    if index is False:  # x[False] = v writes nothing, and PyTorch returns early
        return
    value = _value_as_tensor(self, value)
    basic, advanced = split_index(self, index)
    view = _basic_view(self, basic)
    if any(a is not None for a in advanced):
        _index_put_op(view, advanced, value, False)
    else:
        view.copy_(value)


bind_method("index_put", lambda self, indices, values, accumulate=False: index_put(
    self, indices, values, accumulate))  # fmt: skip
bind_method("index_put_", _index_put_)
bind_method("__setitem__", _setitem)


# --- index_select --------------------------------------------------------------------


def _index_select_kernel(self: Tensor, dim: int, index: Tensor) -> Tensor:
    if len(index._size) > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._dtype not in (int32, int64):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    dim = wrap_dim(dim, len(self._size))
    positions = index._array.reshape(-1)
    size = self._size[dim] if self._size else 1
    if positions.size and (positions.min() < 0 or positions.max() >= size):
        raise IndexError("index out of range in self")
    if not self._size:  # a 0-dim tensor stays 0-dim
        return _fresh(self._array.copy(), self._dtype)
    return _fresh(np.take(self._array, positions, axis=dim), self._dtype)


def _index_select_backward(grad: Tensor, saved) -> Tensor:
    """``index_select_backward``: slices picked several times get their gradients summed."""
    zeros = grad.new_zeros(saved.self_sym_sizes)
    if not zeros._size:  # a 0-dim self: its one element was picked (once per index)
        return grad.sum() if grad._size else grad
    return zeros.index_add(saved.dim, saved.index.reshape(-1), grad)


_index_select_op, _index_select_out_op = declare_with_out(
    "index_select(Tensor self, int dim, Tensor index) -> Tensor",
    _index_select_kernel,
    Derivative("IndexSelectBackward0", save=("self_sym_sizes", "dim", "index"),
               grads={"self": _index_select_backward}),
)  # fmt: skip


def index_select(input: Tensor, dim: int, index: Tensor, *, out=None) -> Tensor:
    """``torch.index_select``: the slices ``index`` names along ``dim``, in that order."""
    check_tensor("index_select", input, "input", 1)
    check_tensor("index_select", index, "index", 3)
    if out is None:
        return _index_select_op(input, dim, index)
    return _index_select_out_op(input, dim, index, out=out)


# --- gather and scatter ------------------------------------------------------------------


def _nonempty_size(t: Tensor, dim: int) -> int:
    return t._size[dim] if t._size else 1


def _along_dim(t: Tensor, dim: int, index: Tensor) -> tuple:
    """NumPy coordinates reaching, for each element of ``index``, ``t[..., index, ...]``.

    Every dim but ``dim`` is walked with the index's own coordinates (an open grid);
    along ``dim`` the coordinate is the index value. This is what gather reads and
    scatter writes.
    """
    grid = list(np.ogrid[tuple(slice(0, s) for s in index._size)])
    grid[dim] = index._array
    return tuple(grid)


def _check_index_in_range(index: Tensor, size: int, dim: int) -> None:
    values = index._array
    if values.size == 0:
        return
    bad = (values < 0) | (values >= size)
    if bad.any():
        value = values[np.unravel_index(int(np.argmax(bad)), values.shape)]
        raise RuntimeError(
            f"index {int(value)} is out of bounds for dimension {dim} with size {size}"
        )


def _gather_kernel(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> Tensor:
    dim = wrap_dim(dim, len(self._size))
    if index._dtype not in (int32, int64):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    result = Tensor._empty_strided(index._size, contiguous_strides(index._size), self._dtype)
    if index.numel() == 0:
        return result
    if max(len(self._size), 1) != max(len(index._size), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(len(index._size)):
        if d != dim and index._size[d] > self._size[d]:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(index._size)} to be "
                f"no larger than self {list(self._size)} apart from dimension {dim}"
            )
    _check_index_in_range(index, _nonempty_size(self, dim), dim)
    if not self._size:
        result._array[...] = self._array
        return result
    result._array[...] = self._array[_along_dim(self, dim, index)]
    return result


def _gather_backward(grad: Tensor, saved) -> Tensor:
    """``gather_backward``: scatter-*add* the gradient back, so repeated reads sum."""
    return saved.self.new_zeros(saved.self._size, dtype=grad.dtype).scatter_add(
        saved.dim, saved.index, grad
    )


_gather_op, _gather_out_op = declare_with_out(
    "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
    _gather_kernel,
    Derivative("GatherBackward0", save=("self", "dim", "index", "sparse_grad"),
               grads={"self": _gather_backward}),
)  # fmt: skip


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out=None):
    """``torch.gather``: ``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and so on)."""
    check_tensor("gather", input, "input", 1)
    check_tensor("gather", index, "index", 3)
    if out is None:
        return _gather_op(input, dim, index, sparse_grad=sparse_grad)
    return _gather_out_op(input, dim, index, sparse_grad=sparse_grad, out=out)


_SCATTER_REDUCTIONS = {None: None, "add": np.add, "multiply": np.multiply}


def _scatter_checks(fn_name: str, self: Tensor, dim: int, index: Tensor, src) -> int:
    """``scatter_gather_dtype_check`` and ``scatter_shape_check``; returns the wrapped dim."""
    dim = wrap_dim(dim, len(self._size))
    if index._dtype not in (int32, int64):
        raise RuntimeError(f"{fn_name}(): Expected dtype int32/int64 for index")
    if isinstance(src, Tensor) and src._dtype is not self._dtype:
        raise RuntimeError(f"{fn_name}(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return dim
    ndim = max(len(self._size), 1)
    if max(len(index._size), 1) != ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if isinstance(src, Tensor):
        if max(len(src._size), 1) != ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        too_big = any(
            _nonempty_size(index, d) > _nonempty_size(src, d)
            or (d != dim and _nonempty_size(index, d) > _nonempty_size(self, d))
            for d in range(ndim)
        )
        if too_big:
            raise RuntimeError(
                f"Expected index {list(index._size)} to be no larger than self "
                f"{list(self._size)} apart from dimension {dim} and to be no larger size than "
                f"src {list(src._size)}"
            )
    else:
        for d in range(ndim):
            if d != dim and _nonempty_size(index, d) > _nonempty_size(self, d):
                raise RuntimeError(
                    f"Expected index {list(index._size)} to be no larger than self "
                    f"{list(self._size)} apart from dimension {dim}"
                )
    _check_index_in_range(index, _nonempty_size(self, dim), dim)
    return dim


def _scatter_into(self: Tensor, dim: int, index: Tensor, src, reduce=None) -> None:
    """Write ``src`` (a tensor, or one value) into ``self`` at ``_along_dim`` positions.

    Without ``reduce`` a position written twice keeps one of the values (PyTorch
    leaves which one unspecified); ``add``/``multiply`` combine all of them.
    """
    if index.numel() == 0:
        return
    if not self._size:  # a 0-dim tensor: its only element
        target, where = self._array.reshape(1), (np.zeros(1, np.intp),)
        values = src._array.reshape(1) if isinstance(src, Tensor) else src
    else:
        target, where = self._array, _along_dim(self, dim, index)
        if isinstance(src, Tensor):
            values = src._array[tuple(slice(0, s) for s in index._size)]
        else:
            values = src
    ufunc = _SCATTER_REDUCTIONS[reduce]
    if ufunc is None:
        target[where] = values
    else:
        ufunc.at(target, where, np.broadcast_to(values, index._size or (1,)))


def _check_reduce(reduce, tensor_src: bool) -> None:
    if reduce is None:
        return
    if tensor_src:
        warnings.warn(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options.",
            UserWarning,
            stacklevel=5,
        )
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")


def _declare_inplace_family(schema: str, write, *, preserve_layout: bool, derivative=None):
    """Declare ``op``, ``op_`` and ``op.out`` around one routine that writes into ``self``.

    ``write(self, *args)`` checks its arguments and writes; the functional form runs it
    on a fresh copy of ``self``, the in-place form on ``self`` itself.
    """

    def functional_kernel(self, *args, **kwargs):
        result = _copy_of(self, preserve_layout=preserve_layout)
        write(result, *args, **kwargs)
        return result

    def inplace_kernel(self, *args, **kwargs):
        write(self, *args, **kwargs)
        return self

    functional_op, out_op = declare_with_out(schema, functional_kernel, derivative)
    inplace_op = declare(_inplace_schema(schema), INPLACE, inplace_kernel, derivative)
    return functional_op, inplace_op, out_op


def _check_writable(self: Tensor) -> None:
    if has_internal_overlap(self._size, self._stride):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


def _write_scatter(self, dim, index, src, reduce=None):
    _check_writable(self)
    dim = _scatter_checks("scatter", self, dim, index, src)
    if not isinstance(src, Tensor):
        src = fill_value(src, self._dtype)
    _scatter_into(self, dim, index, src, reduce)


def _write_scatter_add(self, dim, index, src):
    _check_writable(self)
    dim = _scatter_checks("scatter", self, dim, index, src)
    _scatter_into(self, dim, index, src, "add")


def _not_implemented(op_name: str) -> Derivative:
    """PyTorch's ``not_implemented(...)`` formula: recorded, but backward raises."""

    def raise_error(grad, saved):
        raise RuntimeError(f"derivative for {op_name} is not implemented")

    return Derivative("NotImplemented", grads={"self": raise_error, "src": raise_error})


def _zero_where_written(grad: Tensor, saved) -> Tensor:
    # Positions scatter overwrote no longer depend on ``self``.
    return grad.scatter(saved.dim, saved.index, 0)


def _gather_where_written(grad: Tensor, saved) -> Tensor:
    # Each ``src`` element landed at one position: its gradient is read from there.
    return grad.gather(saved.dim, saved.index)


_SCATTER_OPS = {
    "src": _declare_inplace_family(
        "scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
        _write_scatter, preserve_layout=False,
        derivative=Derivative("ScatterBackward0", save=("dim", "index"),
                              grads={"self": _zero_where_written, "src": _gather_where_written})),
    "value": _declare_inplace_family(
        "scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
        _write_scatter, preserve_layout=False,
        derivative=Derivative("ScatterBackward1", save=("dim", "index"),
                              grads={"self": _zero_where_written})),
    # PyTorch has no formula for the deprecated ``reduce=`` forms (use scatter_reduce).
    "reduce": _declare_inplace_family(
        "scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor",
        _write_scatter, preserve_layout=False, derivative=_not_implemented("aten::scatter")),
    "value_reduce": _declare_inplace_family(
        "scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) "
        "-> Tensor",
        _write_scatter, preserve_layout=False, derivative=_not_implemented("aten::scatter")),
}  # fmt: skip
_SCATTER_ADD_OPS = _declare_inplace_family(
    "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    _write_scatter_add,
    preserve_layout=False,
    # Adding does not overwrite: ``self`` passes its gradient through untouched.
    derivative=Derivative(
        "ScatterAddBackward0",
        save=("dim", "index"),
        grads={"self": lambda grad, saved: grad, "src": _gather_where_written},
    ),
)

_FUNCTIONAL, _INPLACE, _OUT = 0, 1, 2


def _scatter_call(variant: int, fn_name: str, input, dim, index, src, value, reduce, out):
    check_tensor(fn_name, input, "input", 1)
    check_tensor(fn_name, index, "index", 3)
    if src is None and value is None:
        raise TypeError(f"{fn_name}() missing required argument 'src' or 'value'")
    source = src if src is not None else value
    if isinstance(source, Tensor):
        overload = "src" if reduce is None else "reduce"
    else:
        _check_scalar(fn_name, source, "value", 4)
        overload = "value" if reduce is None else "value_reduce"
    _check_reduce(reduce, isinstance(source, Tensor))
    op = _SCATTER_OPS[overload][variant]
    args = (input, dim, index, source) + (() if reduce is None else (reduce,))
    if variant == _OUT:
        check_tensor(fn_name, out, "out", 5)
        return op(*args, out=out)
    return op(*args)


def scatter(input: Tensor, dim: int, index: Tensor, src=None, value=None, *, reduce=None,
            out=None) -> Tensor:  # fmt: skip
    """``torch.scatter``: a copy of ``input`` with ``src`` written where ``index`` says.

    ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``; ``src`` may be one number.
    """
    variant = _FUNCTIONAL if out is None else _OUT
    return _scatter_call(variant, "scatter", input, dim, index, src, value, reduce, out)


def _scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    """``Tensor.scatter_``: ``scatter`` written into ``self``."""
    return _scatter_call(_INPLACE, "scatter_", self, dim, index, src, value, reduce, None)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor, *, out=None) -> Tensor:
    """``torch.scatter_add``: like ``scatter``, but values sent to one place add up."""
    check_tensor("scatter_add", input, "input", 1)
    check_tensor("scatter_add", index, "index", 3)
    check_tensor("scatter_add", src, "src", 4)
    if out is None:
        return _SCATTER_ADD_OPS[_FUNCTIONAL](input, dim, index, src)
    return _SCATTER_ADD_OPS[_OUT](input, dim, index, src, out=out)


def _scatter_add_(self, dim, index, src):
    """``Tensor.scatter_add_``."""
    check_tensor("scatter_add_", index, "index", 2)
    check_tensor("scatter_add_", src, "src", 3)
    return _SCATTER_ADD_OPS[_INPLACE](self, dim, index, src)


bind_method("gather", lambda self, dim, index, *, sparse_grad=False, out=None: gather(
    self, dim, index, sparse_grad=sparse_grad, out=out))  # fmt: skip
bind_method("index_select", lambda self, dim, index, *, out=None: index_select(
    self, dim, index, out=out))  # fmt: skip
bind_method("scatter", lambda self, dim, index, src=None, value=None, *, reduce=None: scatter(
    self, dim, index, src, value, reduce=reduce))  # fmt: skip
bind_method("scatter_", _scatter_)
bind_method("scatter_add", lambda self, dim, index, src: scatter_add(self, dim, index, src))
bind_method("scatter_add_", _scatter_add_)


# --- index_add, index_copy, index_fill ------------------------------------------------


def _slices_along(t: Tensor, dim: int) -> np.ndarray:
    """``t`` with ``dim`` moved to the front: ``result[k]`` is slice ``k`` along ``dim``."""
    if not t._size:
        return t._array.reshape(1)
    return np.moveaxis(t._array, dim, 0)


def _write_index_add(self, dim, index, source, *, alpha=1):
    _check_writable(self)
    dim = wrap_dim(dim, len(self._size))
    if len(index._size) > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {len(index._size)} "
            f"with type: {index._dtype.scalar_name} and size: {list(index._size)}"
        )
    if index._dtype not in (int32, int64):
        raise RuntimeError(
            "index_add_(): Expected dtype int32/int64 for index but got: "
            f"{index._dtype.scalar_name}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"index_add_(): self ({self._dtype.scalar_name}) and source "
            f"({source._dtype.scalar_name}) must have the same scalar type"
        )
    count = index.numel()
    if count != _nonempty_size(source, dim):
        raise RuntimeError(
            f"index_add_(): Number of indices ({count}) should be equal to source.size(dim): "
            f"({_nonempty_size(source, dim)}), for dim: {dim}"
        )
    same_rest = max(len(source._size), 1) == max(len(self._size), 1) and all(
        d == dim or source._size[d] == self._size[d] for d in range(len(self._size))
    )
    if not same_rest:
        raise RuntimeError(
            f"source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(self._size)} source.shape = {list(source._size)}"
        )
    positions = index._array.reshape(-1)
    _check_index_in_range(_fresh(positions, int64), _nonempty_size(self, dim), dim)
    values = _slices_along(source, dim)
    if alpha != 1:
        values = values * fill_value(alpha, self._dtype)
    np.add.at(_slices_along(self, dim), positions, values)


def _write_index_copy(self, dim, index, source):
    _check_writable(self)
    dim = wrap_dim(dim, len(self._size))
    if len(index._size) > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got 2)")
    if index._dtype is not int64:
        raise RuntimeError(
            f"index_copy_(): Expected a long tensor for index, but got {index._dtype.scalar_name}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{self._dtype.scalar_name} and (source) {source._dtype.scalar_name}"
        )
    count = index.numel()
    if count != _nonempty_size(source, dim):
        raise IndexError(
            f"index_copy_(): Number of indices ({count}) should be equal to source.size(dim) "
            f"({_nonempty_size(source, dim)})"
        )
    for d in range(len(self._size)):
        if d != dim and (d >= len(source._size) or source._size[d] != self._size[d]):
            got = source._size[d] if d < len(source._size) else 1
            raise RuntimeError(
                f"index_copy_(): Source/destination tensor must have same slice shapes. "
                f"Destination slice shape: {self._size[d]} at dimension {d} and source slice "
                f"shape: {got} at dimension {d}."
            )
    positions = index._array.reshape(-1)
    size = _nonempty_size(self, dim)
    bad = (positions < 0) | (positions >= size)
    if bad.any():
        raise IndexError(
            f"index_copy_(): index {int(positions[np.argmax(bad)])} is out of bounds for "
            f"dimension {dim} with size {size}"
        )
    _slices_along(self, dim)[positions] = _slices_along(source, dim)


def _write_index_fill(self, dim, index, value):
    _check_writable(self)
    dim = wrap_dim(dim, len(self._size))
    if index._dtype is not int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, Tensor) and value._size:
        raise RuntimeError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{len(value._size)} dimension(s)."
        )
    positions = index._array.reshape(-1)
    size = _nonempty_size(self, dim)
    bad = (positions < -size) | (positions >= size)
    if bad.any():
        raise IndexError(
            f"index {int(positions[np.argmax(bad)])} is out of bounds for dimension {dim} "
            f"with size {size}"
        )
    _slices_along(self, dim)[positions] = fill_value(value, self._dtype)


def _source_slices_grad(grad: Tensor, saved) -> Tensor:
    """The gradient of ``source`` in ``index_add``/``index_copy``: the slices it went to."""
    if not saved.source_sym_sizes:  # a 0-dim source went to one position
        return grad.index_select(saved.dim, saved.index.reshape(-1)).reshape(())
    return grad.index_select(saved.dim, saved.index.reshape(-1)).expand(saved.source_sym_sizes)


def _index_add_source_grad(grad: Tensor, saved) -> Tensor:
    picked = _source_slices_grad(grad, saved)
    return picked if saved.alpha == 1 else picked * saved.alpha


def _zero_filled_slices(grad: Tensor, saved) -> Tensor:
    # Slices that were overwritten (index_copy, index_fill) no longer depend on ``self``.
    return grad.index_fill(saved.dim, saved.index, 0)


def _index_fill_value_grad(grad: Tensor, saved) -> Tensor:
    """The filled value reached every filled slice once (repeated indices count once)."""
    from .sorting import unique

    return grad.index_select(saved.dim, unique(saved.index.reshape(-1), sorted=False)).sum()


_INDEX_ADD_OPS = _declare_inplace_family(
    "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor",
    _write_index_add,
    preserve_layout=False,
    derivative=Derivative(
        "IndexAddBackward0",
        save=("dim", "index", "source_sym_sizes", "alpha"),
        grads={"self": lambda grad, saved: grad, "source": _index_add_source_grad},
    ),
)
_INDEX_COPY_OPS = _declare_inplace_family(
    "index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
    _write_index_copy,
    preserve_layout=False,
    derivative=Derivative(
        "IndexCopyBackward0",
        save=("dim", "index", "source_sym_sizes"),
        grads={"self": _zero_filled_slices, "source": _source_slices_grad},
    ),
)
_INDEX_FILL_OPS = {
    "int_Scalar": _declare_inplace_family(
        "index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
        _write_index_fill, preserve_layout=True,
        derivative=Derivative("IndexFillBackward0", save=("dim", "index"),
                              grads={"self": _zero_filled_slices})),
    "int_Tensor": _declare_inplace_family(
        "index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor",
        _write_index_fill, preserve_layout=True,
        derivative=Derivative("IndexFillBackward1", save=("dim", "index"),
                              grads={"self": _zero_filled_slices,
                                     "value": _index_fill_value_grad})),
}  # fmt: skip


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1, out=None):
    """``torch.index_add``: ``out[index[k]] += alpha * source[k]`` along ``dim``; repeats add up."""
    check_tensor("index_add", input, "input", 1)
    check_tensor("index_add", index, "index", 3)
    check_tensor("index_add", source, "source", 4)
    if out is None:
        return _INDEX_ADD_OPS[_FUNCTIONAL](input, dim, index, source, alpha=alpha)
    return _INDEX_ADD_OPS[_OUT](input, dim, index, source, alpha=alpha, out=out)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor, *, out=None) -> Tensor:
    """``torch.index_copy``: ``out[index[k]] = source[k]`` along ``dim``."""
    check_tensor("index_copy", input, "input", 1)
    check_tensor("index_copy", index, "index", 3)
    check_tensor("index_copy", source, "source", 4)
    if out is None:
        return _INDEX_COPY_OPS[_FUNCTIONAL](input, dim, index, source)
    return _INDEX_COPY_OPS[_OUT](input, dim, index, source, out=out)


def _index_fill_call(variant: int, fn_name: str, input, dim, index, value):
    check_tensor(fn_name, index, "index", 3 if variant == _FUNCTIONAL else 2)
    if isinstance(value, Tensor):
        overload = "int_Tensor"
    else:
        _check_scalar(fn_name, value, "value", 4 if variant == _FUNCTIONAL else 3)
        overload = "int_Scalar"
    return _INDEX_FILL_OPS[overload][variant](input, dim, index, value)


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """``torch.index_fill``: a copy of ``input``, the slices ``index`` names set to ``value``."""
    check_tensor("index_fill", input, "input", 1)
    return _index_fill_call(_FUNCTIONAL, "index_fill", input, dim, index, value)


bind_method("index_add", lambda self, dim, index, source, *, alpha=1: index_add(
    self, dim, index, source, alpha=alpha))  # fmt: skip
bind_method("index_add_", lambda self, dim, index, source, *, alpha=1: _INDEX_ADD_OPS[_INPLACE](
    self, dim, index, source, alpha=alpha))  # fmt: skip
bind_method("index_copy", lambda self, dim, index, source: index_copy(self, dim, index, source))
bind_method("index_copy_", lambda self, dim, index, source: _INDEX_COPY_OPS[_INPLACE](
    self, dim, index, source))  # fmt: skip
bind_method("index_fill", lambda self, dim, index, value: index_fill(self, dim, index, value))
bind_method("index_fill_", lambda self, dim, index, value: _index_fill_call(
    _INPLACE, "index_fill_", self, dim, index, value))  # fmt: skip


# --- masks: masked_fill, masked_select, masked_scatter ---------------------------------


# How PyTorch's ``caffe2::TypeMeta`` prints a dtype in some messages (C++ type names).
_TYPEMETA_NAME = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short",
    "int32": "int", "int64": "long int", "float16": "c10::Half", "float32": "float",
    "float64": "double", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}  # fmt: skip


def _write_masked_fill(self, mask, value):
    if mask._dtype.category != BOOL:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{_TYPEMETA_NAME[mask._dtype.name]}"
        )
    if isinstance(value, Tensor) and value._size:
        raise RuntimeError(
            f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{len(value._size)} dimension(s)."
        )
    shape = broadcast_shapes(self._size, mask._size)
    if shape != self._size:
        raise RuntimeError(
            f"output with shape {list(self._size)} doesn't match the broadcast shape {list(shape)}"
        )
    _check_writable(self)
    where = np.broadcast_to(mask._array, self._size)
    np.copyto(self._array, fill_value(value, self._dtype), where=where)


def _masked_fill_functional(self, mask, value):
    shape = broadcast_shapes(self._size, mask._size)
    result = _fresh(np.broadcast_to(self._array, shape), self._dtype)
    _write_masked_fill(result, mask, value)
    return result


def _masked_fill_inplace(self, mask, value):
    _write_masked_fill(self, mask, value)
    return self


def _zero_where_masked(grad: Tensor, saved) -> Tensor:
    # Filled positions no longer depend on ``self``.
    return grad.masked_fill(saved.mask, 0)


def _masked_fill_value_grad(grad: Tensor, saved) -> Tensor:
    # ``masked_fill_backward``: the one value reached every filled position.
    return grad.masked_select(saved.mask).sum()


_MASKED_FILL_DERIVATIVES = {
    "Scalar": Derivative("MaskedFillBackward0", save=("mask",),
                         grads={"self": _zero_where_masked}),
    "Tensor": Derivative("MaskedFillBackward1", save=("mask",),
                         grads={"self": _zero_where_masked, "value": _masked_fill_value_grad}),
}  # fmt: skip
_MASKED_FILL_OPS = {
    overload: (
        declare(f"masked_fill.{overload}(Tensor self, Tensor mask, {kind} value) -> Tensor",
                FUNCTIONAL, _masked_fill_functional, _MASKED_FILL_DERIVATIVES[overload]),
        declare(f"masked_fill_.{overload}(Tensor(a!) self, Tensor mask, {kind} value) "
                "-> Tensor(a!)", INPLACE, _masked_fill_inplace,
                _MASKED_FILL_DERIVATIVES[overload]),
    )
    for overload, kind in (("Scalar", "Scalar"), ("Tensor", "Tensor"))
}  # fmt: skip


def _masked_fill_call(variant: int, fn_name: str, input, mask, value):
    check_tensor(fn_name, mask, "mask", 2)
    if isinstance(value, Tensor):
        overload = "Tensor"
    else:
        _check_scalar(fn_name, value, "value", 3)
        overload = "Scalar"
    return _MASKED_FILL_OPS[overload][variant](input, mask, value)


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``torch.masked_fill``: ``value`` where ``mask`` (broadcast) is True, ``input`` elsewhere."""
    check_tensor("masked_fill", input, "input", 1)
    return _masked_fill_call(_FUNCTIONAL, "masked_fill", input, mask, value)


def _masked_select_kernel(self: Tensor, mask: Tensor) -> Tensor:
    if mask._dtype.category != BOOL:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask._size, self._size)
    values = np.broadcast_to(self._array, shape)[np.broadcast_to(mask._array, shape)]
    return _fresh(values, self._dtype)


def _masked_select_backward(grad: Tensor, saved) -> Tensor:
    """``masked_select_backward``: the gradients go back to the selected positions.

    Written into zeros of the broadcast shape; the engine sums it down to ``self``.
    """
    shape = broadcast_shapes(saved.self._size, saved.mask._size)
    return _masked_scatter_op(grad.new_zeros(shape), saved.mask, grad)


_masked_select_op, _masked_select_out_op = declare_with_out(
    "masked_select(Tensor self, Tensor mask) -> Tensor",
    _masked_select_kernel,
    Derivative("MaskedSelectBackward0", save=("self", "mask"),
               grads={"self": _masked_select_backward}),
)  # fmt: skip


def masked_select(input: Tensor, mask: Tensor, *, out=None) -> Tensor:
    """``torch.masked_select``: the elements where ``mask`` is True, as a 1-D tensor."""
    check_tensor("masked_select", input, "input", 1)
    check_tensor("masked_select", mask, "mask", 2)
    if out is None:
        return _masked_select_op(input, mask)
    return _masked_select_out_op(input, mask, out=out)


def _write_masked_scatter(self, mask, source):
    if mask._dtype.category != BOOL:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{mask._dtype.scalar_name}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but got"
            f"{self._dtype.scalar_name} and {source._dtype.scalar_name}"
        )
    shape = broadcast_shapes(self._size, mask._size)
    if shape != self._size:
        raise RuntimeError(
            f"output with shape {list(self._size)} doesn't match the broadcast shape {list(shape)}"
        )
    _check_writable(self)
    where = np.broadcast_to(mask._array, self._size)
    count = int(np.count_nonzero(where))
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    # Source elements are consumed in row-major order of self, whatever self's layout.
    self._array[where] = source._array.reshape(-1)[:count]


def _masked_scatter_functional(self, mask, source):
    shape = broadcast_shapes(self._size, mask._size)
    result = _fresh(np.broadcast_to(self._array, shape), self._dtype)
    _write_masked_scatter(result, mask, source)
    return result


def _masked_scatter_inplace(self, mask, source):
    _write_masked_scatter(self, mask, source)
    return self


def _masked_scatter_source_grad(grad: Tensor, saved) -> Tensor:
    """``masked_scatter_backward``: source elements used, in order, then zeros for the rest."""
    from .joining import cat

    used = _masked_select_op(grad, saved.mask)
    unused = numel_of(saved.source_sym_sizes) - used.numel()
    if unused > 0:
        used = cat([used, grad.new_zeros(unused)])
    return used.view(saved.source_sym_sizes)


_MASKED_SCATTER_DERIVATIVE = Derivative(
    "MaskedScatterBackward0",
    save=("mask", "source_sym_sizes"),
    grads={"self": _zero_where_masked, "source": _masked_scatter_source_grad},
)
_masked_scatter_op = declare("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor",
                             FUNCTIONAL, _masked_scatter_functional,
                             _MASKED_SCATTER_DERIVATIVE)  # fmt: skip
_masked_scatter_inplace_op = declare(
    "masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)",
    INPLACE,
    _masked_scatter_inplace,
    _MASKED_SCATTER_DERIVATIVE,
)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``torch.masked_scatter``: where ``mask`` is True, the next element of ``source``."""
    check_tensor("masked_scatter", input, "input", 1)
    check_tensor("masked_scatter", mask, "mask", 2)
    check_tensor("masked_scatter", source, "source", 3)
    return _masked_scatter_op(input, mask, source)


bind_method("masked_fill", lambda self, mask, value: masked_fill(self, mask, value))
bind_method("masked_fill_", lambda self, mask, value: _masked_fill_call(
    _INPLACE, "masked_fill_", self, mask, value))  # fmt: skip
bind_method("masked_select", lambda self, mask, *, out=None: masked_select(self, mask, out=out))
bind_method("masked_scatter", lambda self, mask, source: masked_scatter(self, mask, source))


def _masked_scatter_(self, mask, source):
    check_tensor("masked_scatter_", mask, "mask", 1)
    check_tensor("masked_scatter_", source, "source", 2)
    return _masked_scatter_inplace_op(self, mask, source)


bind_method("masked_scatter_", _masked_scatter_)


# --- take and put: indexing the tensor as if it were flat -------------------------------


def _flat_positions(fn_name: str, t: Tensor, index: Tensor) -> np.ndarray:
    """``index`` as positions into ``t`` read in row-major order (negative from the end)."""
    if index._dtype is not int64:
        raise RuntimeError(
            f"{fn_name}(): Expected a long tensor for index, but got {index._dtype.scalar_name}"
        )
    positions = index._array.reshape(-1)
    numel = t.numel()
    bad = (positions < -numel) | (positions >= numel)
    if bad.any():
        raise IndexError(
            f"out of range: tried to access index {int(positions[np.argmax(bad)])} on a tensor "
            f"of {numel} elements."
        )
    return np.where(positions < 0, positions + numel, positions)


def _take_kernel(self: Tensor, index: Tensor) -> Tensor:
    positions = _flat_positions("take", self, index)
    if self.numel() == 0 and positions.size:
        raise IndexError("take(): tried to take from an empty tensor")
    if not positions.size:
        return _fresh(np.empty(index._size, self._dtype.numpy), self._dtype)
    return _fresh(self._array.reshape(-1)[positions].reshape(index._size), self._dtype)


def _take_backward(grad: Tensor, saved) -> Tensor:
    # ``take_backward``: put-*accumulate* into zeros, so a position taken twice sums.
    zeros = saved.self.new_zeros(saved.self._size, dtype=grad.dtype)
    return _put_op(zeros, saved.index, grad, True)


_take_op, _take_out_op = declare_with_out(
    "take(Tensor self, Tensor index) -> Tensor",
    _take_kernel,
    Derivative("TakeBackward0", save=("self", "index"), grads={"self": _take_backward}),
)


def take(input: Tensor, index: Tensor, *, out=None) -> Tensor:
    """``torch.take``: ``input`` read as 1-D (row-major), at the positions in ``index``."""
    check_tensor("take", input, "input", 1)
    check_tensor("take", index, "index", 2)
    if out is None:
        return _take_op(input, index)
    return _take_out_op(input, index, out=out)


def _write_put(self, index, source, accumulate=False):
    _check_writable(self)
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{self._dtype.scalar_name} and source.dtype = {source._dtype.scalar_name}"
        )
    if source.numel() != index.numel():
        raise IndexError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    positions = _flat_positions("put_", self, index)
    # Unravel to coordinates so the write reaches a non-contiguous self in place.
    where = np.unravel_index(positions, self._size) if self._size else ()
    values = source._array.reshape(-1)
    if accumulate:
        np.add.at(self._array, where, values)
    elif self._size:
        self._array[where] = values
    elif values.size:
        self._array[...] = values[-1]


def _put_functional(self, index, source, accumulate=False):
    result = _copy_of(self, preserve_layout=True)
    _write_put(result, index, source, accumulate)
    return result


def _put_inplace(self, index, source, accumulate=False):
    _write_put(self, index, source, accumulate)
    return self


def _put_self_grad(grad: Tensor, saved) -> Tensor:
    if saved.accumulate:
        return grad
    return _put_op(grad, saved.index, grad.new_zeros(saved.source._size), False)


_PUT_DERIVATIVE = Derivative(
    "PutBackward0",
    save=("index", "source", "accumulate"),
    grads={
        "self": _put_self_grad,
        "source": lambda grad, saved: _take_op(grad, saved.index).reshape(saved.source._size),
    },
)
_put_op = declare("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor",
                  FUNCTIONAL, _put_functional, _PUT_DERIVATIVE)  # fmt: skip
_put_inplace_op = declare(
    "put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> Tensor(a!)",
    INPLACE,
    _put_inplace,
    _PUT_DERIVATIVE,
)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``torch.put``: a copy of ``input`` with ``source`` written at flat positions ``index``."""
    check_tensor("put", input, "input", 1)
    check_tensor("put", index, "index", 2)
    check_tensor("put", source, "source", 3)
    return _put_op(input, index, source, bool(accumulate))


def _put_(self, index, source, accumulate=False):
    check_tensor("put_", index, "index", 1)
    check_tensor("put_", source, "source", 2)
    return _put_inplace_op(self, index, source, bool(accumulate))


bind_method("take", lambda self, index: take(self, index))
bind_method("put", lambda self, index, source, accumulate=False: put(self, index, source,
                                                                     accumulate))  # fmt: skip
bind_method("put_", _put_)


# --- nonzero and argwhere ----------------------------------------------------------------


def _nonzero_array(self: Tensor) -> np.ndarray:
    """The coordinates of the non-zero elements, one row each, in row-major order."""
    if not self._size:
        return np.zeros((1 if self._array.item() else 0, 0), np.int64)
    return np.stack(np.nonzero(self._array), axis=1).astype(np.int64)


def _column_major(coords: np.ndarray) -> Tensor:
    """PyTorch's CPU ``nonzero`` fills its ``(n, ndim)`` result column by column.

    So the result has strides ``(1, n)``: each column (one dim's coordinates) is
    contiguous, which makes ``nonzero(as_tuple=True)`` cheap views.
    """
    n, ndim = coords.shape
    result = Tensor._empty_strided((n, ndim), (1, n), int64)
    result._array[...] = coords
    return result


def _nonzero_kernel(self: Tensor) -> Tensor:
    return _column_major(_nonzero_array(self))


def _nonzero_out_kernel(self: Tensor, *, out: Tensor) -> Tensor:
    if out._dtype is not int64:
        raise RuntimeError(
            f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
            f"{out._dtype.scalar_name}"
        )
    coords = _nonzero_array(self)
    n, ndim = coords.shape
    if out._size != (n, ndim):
        # As PyTorch: a resized output gets the column-major strides of ``nonzero``.
        resize_output(out, (n, ndim))
        out._set_metadata((n, ndim), (1, n), out._offset)
    out._array[...] = coords
    return out


# Coordinates are integers: no gradient flows through them.
_nonzero_op = declare("nonzero(Tensor self) -> Tensor", FUNCTIONAL, _nonzero_kernel,
                      NON_DIFFERENTIABLE)  # fmt: skip
_nonzero_out_op = declare(
    "nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "out",
    _nonzero_out_kernel,
    NON_DIFFERENTIABLE,
)


def nonzero(input: Tensor, *, out=None, as_tuple: bool = False):
    """``torch.nonzero``: the coordinates of non-zero elements, one row per element.

    With ``as_tuple=True``: one 1-D tensor per dim (what ``x[mask]`` indexes with).
    """
    check_tensor("nonzero", input, "input", 1)
    if as_tuple:
        from .splitting import unbind
        from .views import unsqueeze

        # A 0-dim input counts as 1-D here; each column of the result is one dim's indices.
        return unbind(_nonzero_op(input if input._size else unsqueeze(input, 0)), 1)
    if out is None:
        return _nonzero_op(input)
    check_tensor("nonzero", out, "out", 2)
    return _nonzero_out_op(input, out=out)


def argwhere(input: Tensor) -> Tensor:
    """``torch.argwhere``: ``nonzero(input)``, under NumPy's name."""
    check_tensor("argwhere", input, "input", 1)
    return _nonzero_op(input)


bind_method("nonzero", lambda self, *, out=None, as_tuple=False: nonzero(
    self, out=out, as_tuple=as_tuple))  # fmt: skip
bind_method("argwhere", lambda self: argwhere(self))

"""Joining and repeating: ``cat``, ``stack``, ``repeat``, ``flip``, ``roll``… (``TensorShape.cpp``).

Every operator here makes a new tensor: gluing tensors together, repeating one, or
reordering its elements (``flip``, ``roll``). None of them can be a view, because the
elements of the result do not sit in memory with one stride per dimension. That is
also why ``flip`` copies: PyTorch, unlike NumPy, never makes negative strides.

``cat`` is the workhorse: ``stack`` is ``cat`` of unsqueezed tensors, and ``hstack``,
``vstack``, ``dstack``, ``column_stack`` are ``cat`` after making every tensor at
least 1-, 2- or 3-dimensional.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..meta_device import empty_meta
from ..promotion import can_cast, result_type
from ..shape import (
    channels_last_strides,
    check_storage_nbytes,
    contiguous_strides,
    is_channels_last_strides,
    wrap_dim,
    wrap_dims,
)
from ..tensor import Tensor
from .copy import clone, contiguous_format, preserve_format
from .creation import check_nonnegative, strides_like
from .declaration import native_function
from .index_ops import index_select
from .indexing_common import _fresh
from .overload_kernels import Overlap, meta_then_impl, out_wrapper
from .shape_views import _reshape_op, flatten
from .size_one_dims import _unsqueeze_op
from .view_geometry import view_copy_free_stride

__all__ = [
    "cat",
    "concat",
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "row_stack",
    "dstack",
    "column_stack",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "tile",
    "repeat_interleave",
    "flip",
    "fliplr",
    "flipud",
    "roll",
    "rot90",
]


# --- cat ---------------------------------------------------------------------------------


def _is_skipped_in_cat(t: Tensor) -> bool:
    # Legacy behaviour PyTorch keeps: 1-D empty tensors are ignored by cat, whatever
    # the other shapes (but their dtype still takes part in promotion).
    return t._size == (0,)


def _cat_dtype(tensors) -> object:
    return result_type(*tensors)


def _check_cat_inputs(tensors, dim: int, out: Tensor | None = None) -> tuple[list[Tensor], int]:
    """``cat``'s checks, in ``cat``'s meta function's order (with ``out``, whether the
    result's dtype can be cast to it, before the sizes); returns the tensors that take
    part and the wrapped dim."""
    if not tensors:
        raise ValueError("vizgrad.cat(): expected a non-empty list of Tensors")
    first = tensors[0]._size
    if first and first != (0,) and all(t._size == first for t in tensors):
        # The common call, tensors of one shape: every check below would pass.
        dim = wrap_dim(dim, len(first))
        if out is not None:
            _check_cat_cast(tensors, out)
        return list(tensors), dim
    for i, t in enumerate(tensors):
        if not t._size:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    kept = [(i, t) for i, t in enumerate(tensors) if not _is_skipped_in_cat(t)]
    dim = wrap_dim(dim, len(kept[0][1]._size)) if kept else 0
    if out is not None:
        _check_cat_cast(tensors, out)
    if not kept:
        return [], 0
    first_index, first = kept[0]
    for i, t in kept:
        if len(t._size) != len(first._size):
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {len(first._size)} and "
                f"{len(t._size)}"
            )
        for d, (expected, got) in enumerate(zip(first._size, t._size, strict=True)):
            if d != dim and expected != got:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size "
                    f"{expected} but got size {got} for tensor number {i} in the list."
                )
    return [t for _, t in kept], dim


def _cat_output_is_channels_last(tensors) -> bool:
    """``cat_compute_output_memory_format``: the inputs' suggested memory format if they
    all agree, else contiguous. Every input votes, the skipped 1-D empty ones too (and
    they, like any tensor with no elements, suggest contiguous)."""
    return all(is_channels_last_strides(t._size, t._stride) for t in tensors)


def _cat_kernel(tensors, dim: int = 0) -> Tensor:
    dtype = _cat_dtype(tensors)
    kept, dim = _check_cat_inputs(tensors, dim)
    if not kept:
        return _fresh(np.empty((0,), dtype.numpy), dtype)
    arrays = [t._array for t in kept]
    if not _cat_output_is_channels_last(tensors):
        # The result is row-major; NumPy reads each (possibly strided) input directly.
        return _fresh(np.concatenate(arrays, axis=dim, dtype=dtype.numpy, casting="unsafe"), dtype)
    size = list(kept[0]._size)
    size[dim] = sum(t._size[dim] for t in kept)
    result = Tensor._empty_strided(size, channels_last_strides(size), dtype)
    np.concatenate(arrays, axis=dim, out=result._array, casting="unsafe")
    return result


def _cat_meta(tensors, dim: int = 0):
    """``cat``'s meta function: the result's shape, dtype and layout (a resized ``out``
    takes the layout: channels-last when every input is)."""
    dtype = _cat_dtype(tensors)
    kept, dim = _check_cat_inputs(tensors, dim)
    if not kept:
        return ((0,), dtype, (1,))
    size = list(kept[0]._size)
    size[dim] = sum(t._size[dim] for t in kept)
    channels_last = _cat_output_is_channels_last(tensors)
    return (
        tuple(size),
        dtype,
        channels_last_strides(size) if channels_last else contiguous_strides(size),
    )


def _check_cat_cast(tensors, out: Tensor) -> None:
    if not can_cast(_cat_dtype(tensors), out._dtype):
        raise TypeError(
            f"vizgrad.cat(): input types can't be cast to the desired output type "
            f"{out._dtype.scalar_name}"
        )


# ``cat`` writes ``out`` after its meta function resized it, reading every input in
# another order than it writes: no input may share memory with ``out``.
_CAT_OVERLAP = Overlap(internal=True, full=("tensors",))


def _cat_backward(grad: Tensor, saved) -> list:
    """``cat_tensors_backward``: each input gets its own stretch of ``grad`` along ``dim``.

    Skipped 1-D empty inputs get an empty gradient.
    """
    grads, start = [], 0
    for size in saved.tensors_args_sizes:
        if size == (0,):
            grads.append(grad.new_zeros(0))
            continue
        length = size[saved.dim] if saved.dim >= 0 else size[saved.dim + len(size)]
        grads.append(grad.narrow(saved.dim, start, length))
        start += length
    return grads


cat = native_function(
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "cat": meta_then_impl(_cat_meta, _cat_kernel),
        "cat.out": out_wrapper(
            _cat_kernel,
            check_cast=False,
            checks=_check_cat_inputs,
            meta=_cat_meta,
            resized_checks=_CAT_OVERLAP,
        ),
    },
    derivative=Derivative(
        "CatBackward0",
        save=("dim", "tensors_args_sizes"),
        grads={"tensors": _cat_backward},
        complex=True,
    ),
    variants="function",
    doc="""``torch.cat``: join tensors along an existing dim; dtypes promote together.

    All sizes must match except along ``dim``. The result is a new row-major tensor.
    """,
)
_cat_op, _cat_out_op = cat.overloads["cat"], cat.overloads["cat.out"]

# Other names for ``cat``, each its own native function in PyTorch, made of ``cat``
# (whose node they record and whose out= overload refuses autograd).
concat = native_function(
    "concat(Tensor[] tensors, int dim=0) -> Tensor",
    "concat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={"concat": _cat_op, "concat.out": _cat_out_op},
    kinds={"concat": COMPOSITE_IMPLICIT, "concat.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.concat``: another name for ``cat``.",
)
concatenate = native_function(
    "concatenate(Tensor[] tensors, int dim=0) -> Tensor",
    "concatenate.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={"concatenate": _cat_op, "concatenate.out": _cat_out_op},
    kinds={"concatenate": COMPOSITE_IMPLICIT, "concatenate.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.concatenate``: ``cat`` by NumPy's name (which also takes ``axis=``).",
)


# --- stack and its relatives ----------------------------------------------------------------


def _unsqueezed(t: Tensor, dim: int) -> Tensor:
    """``t`` with a size-1 dim inserted at ``dim`` (an internal alias, never returned)."""
    size = list(t._size)
    stride = list(t._stride)
    inner = size[dim] * stride[dim] if dim < len(size) else 1
    size.insert(dim, 1)
    stride.insert(dim, inner)
    return t._alias(tuple(size), tuple(stride), t._offset)


def _check_stack_inputs(tensors, dim: int) -> int:
    """``stack``'s checks; returns the wrapped dim (of the result)."""
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ndim = len(tensors[0]._size)
    dim = wrap_dim(dim, ndim + 1)
    for i, t in enumerate(tensors[1:], start=1):
        if t._size != tensors[0]._size:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0]._size)} "
                f"at entry 0 and {list(t._size)} at entry {i}"
            )
    return dim


def _stack_kernel(tensors, dim: int = 0) -> Tensor:
    """``stack``: ``cat`` along ``dim`` then a view that splits it, when ``dim`` is an
    existing dim (so the result is laid out as ``cat`` lays out its inputs: channels-last
    stays so); ``cat`` of the tensors unsqueezed at ``dim`` when it is a new last dim."""
    dim = _check_stack_inputs(tensors, dim)
    if dim == len(tensors[0]._size):
        return _cat_op([_unsqueezed(t, dim) for t in tensors], dim)
    joined = _cat_op(tensors, dim)
    size = list(tensors[0]._size)
    size.insert(dim, len(tensors))
    # One dim split in two: a view always exists.
    return joined._alias(tuple(size), view_copy_free_stride(joined._size, joined._stride, size),
                         joined._offset)  # fmt: skip


def _stack_out_meta(tensors, dim: int = 0) -> tuple:
    """What ``stack_out`` resizes ``out`` to: the inputs' shape with ``len(tensors)`` at
    ``dim``, row-major (its dtype is checked as ``cat``'s cast, before)."""
    dim = _check_stack_inputs(tensors, dim)
    size = list(tensors[0]._size)
    size.insert(dim, len(tensors))
    return tuple(size), None


def _check_stack_out(tensors, dim: int = 0, *, out: Tensor) -> None:
    """``stack_out``'s own checks, then those of the ``cat_out`` it ends in."""
    _check_stack_inputs(tensors, dim)
    _check_cat_cast(tensors, out)


# Stacking added one dim: taking it apart again (``unbind``) gives each input its gradient.
stack = native_function(
    "stack(Tensor[] tensors, int dim=0) -> Tensor",
    "stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "stack": _stack_kernel,
        "stack.out": out_wrapper(_stack_kernel, check_cast=False, checks=_check_stack_out,
                                 meta=_stack_out_meta, resized_checks=_CAT_OVERLAP),
    },
    derivative=Derivative("StackBackward0", save=("dim",),
                          grads={"tensors": lambda grad, saved: list(grad.unbind(saved.dim))},
                          complex=True),
    variants="function",
    doc="``torch.stack``: join equal-shaped tensors along a *new* dim ``dim``.",
)  # fmt: skip


# --- atleast_1d, atleast_2d, atleast_3d: at least so many dims ----------------------------
# Views that PyTorch makes with ``reshape`` for a 0-d tensor and ``unsqueeze`` otherwise,
# so the recorded nodes are theirs (``ViewBackward0``, ``UnsqueezeBackward0``…). A tensor
# that has the dims already is returned as it is.


def _atleast_1d_kernel(self: Tensor) -> Tensor:
    """A 0-d tensor becomes ``(1,)``."""
    return _reshape_op(self, (1,)) if not self._size else self


def _atleast_2d_kernel(self: Tensor) -> Tensor:
    """0-d becomes ``(1, 1)``, 1-D ``(n,)`` becomes ``(1, n)``."""
    if not self._size:
        return _reshape_op(self, (1, 1))
    return _unsqueeze_op(self, 0) if len(self._size) == 1 else self


def _atleast_3d_kernel(self: Tensor) -> Tensor:
    """0-d becomes ``(1, 1, 1)``, 1-D ``(n,)`` becomes ``(1, n, 1)``, 2-D gains a last dim."""
    if not self._size:
        return _reshape_op(self, (1, 1, 1))
    if len(self._size) == 1:
        return _unsqueeze_op(_unsqueeze_op(self, 0), -1)
    return _unsqueeze_op(self, -1) if len(self._size) == 2 else self


def _atleast(ndim: int, kernel, doc: str):
    """``atleast_<ndim>d``: the operator (one tensor, or a list of them, each made at
    least ``ndim``-dimensional by the one-tensor overload) and PyTorch's Python function
    around it (``torch/functional.py``), which takes the tensors one by one."""
    name = f"atleast_{ndim}d"
    operator = native_function(
        f"{name}(Tensor self) -> Tensor",
        f"{name}.Sequence(Tensor[] tensors) -> Tensor[]",
        kernels={name: kernel,
                 f"{name}.Sequence": lambda tensors: tuple(map(one_tensor, tensors))},
        kind=COMPOSITE_IMPLICIT,
        variants="function",
    )  # fmt: skip
    one_tensor = operator.overloads[name]

    def function(*tensors):
        # One argument is passed as it is: a tensor, or a list or tuple of tensors.
        return operator(tensors[0] if len(tensors) == 1 else tensors)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function, operator.overloads[f"{name}.Sequence"]


_ONE_OR_MORE = "One tensor gives a tensor; several, or one sequence of them, a tuple."
_ATLEAST_1D_DOC = f"""``torch.atleast_1d``: a 0-d tensor as a ``(1,)`` view; other tensors as
    they are. {_ONE_OR_MORE}"""
_ATLEAST_2D_DOC = f"""``torch.atleast_2d``: 0-d and 1-D tensors as views with 2 dims (a vector
    becomes one row). {_ONE_OR_MORE}"""
_ATLEAST_3D_DOC = f"""``torch.atleast_3d``: tensors with fewer than 3 dims as 3-D views (a
    vector ``(n,)`` becomes ``(1, n, 1)``, a matrix ``(m, n)`` becomes ``(m, n, 1)``).
    {_ONE_OR_MORE}"""
atleast_1d, _atleast_1d_each = _atleast(1, _atleast_1d_kernel, _ATLEAST_1D_DOC)
atleast_2d, _atleast_2d_each = _atleast(2, _atleast_2d_kernel, _ATLEAST_2D_DOC)
atleast_3d, _atleast_3d_each = _atleast(3, _atleast_3d_kernel, _ATLEAST_3D_DOC)


# --- hstack, vstack, dstack, column_stack: cat after reshaping -------------------------------


def _after_check(name: str, prepare, join) -> dict:
    """The kernels of a ``*stack`` composite and its out= overload: refuse an empty list,
    ``prepare`` the tensors, ``join`` them (its out= overload given ``out=``).

    They are CompositeImplicitAutograd in PyTorch: no kernel of their own, just other
    operators (views, then ``cat``), each dispatched and differentiated itself.
    """

    def prepared(tensors):
        if not tensors:
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        return prepare(tensors)

    def kernel(tensors):
        return join(prepared(tensors))

    def out_kernel(tensors, *, out):
        return join(prepared(tensors), out=out)

    return {name: kernel, f"{name}.out": out_kernel}


def _cat_along(dim_for):
    """``cat`` (or ``cat.out``) along the dim ``dim_for`` picks for the tensors."""

    def join(tensors, out=None):
        if out is None:
            return _cat_op(tensors, dim_for(tensors))
        return _cat_out_op(tensors, dim_for(tensors), out=out)

    return join


hstack = native_function(
    "hstack(Tensor[] tensors) -> Tensor",
    "hstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=_after_check("hstack", _atleast_1d_each,
                         _cat_along(lambda tensors: 0 if len(tensors[0]._size) == 1 else 1)),
    kinds={"hstack": COMPOSITE_IMPLICIT, "hstack.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.hstack``: join along dim 1 (dim 0 for 1-D tensors); 0-d tensors become 1-D.",
)  # fmt: skip
vstack = native_function(
    "vstack(Tensor[] tensors) -> Tensor",
    "vstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=_after_check("vstack", _atleast_2d_each, _cat_along(lambda tensors: 0)),
    kinds={"vstack": COMPOSITE_IMPLICIT, "vstack.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.vstack``: join along dim 0 after making every tensor at least 2-D.",
)
row_stack = native_function(
    "row_stack(Tensor[] tensors) -> Tensor",
    "row_stack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={"row_stack": vstack.overloads["vstack"],
             "row_stack.out": vstack.overloads["vstack.out"]},
    kinds={"row_stack": COMPOSITE_IMPLICIT, "row_stack.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.row_stack``: another name for ``vstack``.",
)  # fmt: skip
dstack = native_function(
    "dstack(Tensor[] tensors) -> Tensor",
    "dstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=_after_check("dstack", _atleast_3d_each, _cat_along(lambda tensors: 2)),
    kinds={"dstack": COMPOSITE_IMPLICIT, "dstack.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.dstack``: join along dim 2 after making every tensor at least 3-D.",
)


def _as_columns(tensors) -> list[Tensor]:
    """``column_stack``'s reshaping: 0-d and 1-D tensors become one column each."""
    return [_reshape_op(t, (t.numel(), 1)) if len(t._size) <= 1 else t for t in tensors]


def _hstack(tensors, out=None) -> Tensor:
    if out is None:
        return hstack.overloads["hstack"](tensors)
    return hstack.overloads["hstack.out"](tensors, out=out)


column_stack = native_function(
    "column_stack(Tensor[] tensors) -> Tensor",
    "column_stack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=_after_check("column_stack", _as_columns, _hstack),
    kinds={"column_stack": COMPOSITE_IMPLICIT, "column_stack.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.column_stack``: 0-d and 1-D tensors become columns, then ``hstack``.",
)


# --- repeat, tile, repeat_interleave ---------------------------------------------------------


def _repeat_meta(self: Tensor, repeats) -> tuple:
    """``repeat``'s result: ``self`` (padded with leading 1s) times ``repeats`` per dim,
    row-major (``at::empty(target)``: no negative size, storage bytes that fit in int64)."""
    if len(repeats) < len(self._size):
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    padded = (1,) * (len(repeats) - len(self._size)) + self._size
    target = tuple(s * r for s, r in zip(padded, repeats, strict=True))
    check_nonnegative(target)
    check_storage_nbytes(target, self._dtype.itemsize)
    return target, self._dtype


def _repeat_impl(self: Tensor, repeats) -> Tensor:
    padded = (1,) * (len(repeats) - len(self._size)) + self._size
    # np.tile is exactly repeat: the whole (padded) tensor, copied ``repeats[d]`` times along d.
    return _fresh(np.tile(self._array.reshape(padded), repeats), self._dtype)


def _repeat_backward(grad: Tensor, saved) -> Tensor:
    """``repeat_backward``: every copy of an element adds its gradient to it.

    Leading dims that ``repeat`` added are summed away; then each dim of size
    ``r * n`` is split into ``(r, n)`` and the ``r`` copies are summed.
    """
    sizes, repeats = saved.self_sym_sizes, saved.repeats
    if 0 in repeats:
        return grad.new_zeros(sizes)
    added = len(repeats) - len(sizes)
    if added:
        grad = grad.sum(tuple(range(added)))
    split_shape, copy_dims = [], []
    for repeat, size in zip(repeats[added:], sizes, strict=True):
        copy_dims.append(len(split_shape))
        split_shape += [repeat, size]
    if not split_shape:
        return grad
    return grad.reshape(split_shape).sum(tuple(copy_dims))


_repeat_op = native_function(
    "repeat(Tensor self, SymInt[] repeats) -> Tensor",
    kernel=meta_then_impl(_repeat_meta, _repeat_impl),
    derivative=Derivative("RepeatBackward0", save=("self_sym_sizes", "repeats"),
                          grads={"self": _repeat_backward}),
    variants="method",
    doc="""``Tensor.repeat``: tile the whole tensor ``repeats[d]`` times along each dim d.

    More sizes than dims add leading dims; fewer is an error.
    """,
).overloads["repeat"]  # fmt: skip


def _tile_kernel(self: Tensor, dims) -> Tensor:
    # As NumPy's tile: fewer ``dims`` than dims are padded with leading 1s.
    return _repeat_op(self, (1,) * (len(self._size) - len(dims)) + tuple(dims))


tile = native_function(
    "tile(Tensor self, SymInt[] dims) -> Tensor",
    kernel=_tile_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.tile``: ``repeat``, except that fewer ``dims`` than dims means leading 1s.",
)


def _check_repeats_tensor(repeats: Tensor) -> np.ndarray:
    """Counts must be a 1-D integer tensor of non-negative values."""
    if repeats._dtype.name not in ("int32", "int64"):
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{repeats._dtype.scalar_name}'"
        )
    if len(repeats._size) > 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    counts = repeats._array.reshape(-1)
    if counts.size and counts.min() < 0:
        raise RuntimeError("repeats can not be negative")
    return counts


def _check_output_size(output_size, total: int) -> None:
    if output_size is not None and output_size != total:
        raise RuntimeError(
            f"repeat_interleave: Invalid output_size, expected {total} but got {output_size}"
        )


def _size_along(t: Tensor, dim: int) -> int:
    """``t.size(dim)``, with its errors (a 0-d tensor has no dims to ask about)."""
    return t._size[wrap_dim(dim, len(t._size), wrap_scalar=False)]


def _repeat_interleave_int(self: Tensor, repeats: int, dim=None, *, output_size=None) -> Tensor:
    """Each slice along ``dim`` repeated ``repeats`` times, as PyTorch builds it.

    A size-``repeats`` dim is inserted after ``dim`` and expanded (a free view), copied
    into place by ``clone``, then merged with ``dim``: so autograd sees
    unsqueeze → expand → clone → view, and the gradient sums the copies back.
    """
    input = self if dim is not None else flatten(self)  # dim=None: flatten first
    dim = wrap_dim(0 if dim is None else dim, len(self._size))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    spread = _unsqueeze_op(input, dim + 1)
    sizes = list(spread._size)
    sizes[dim + 1] = repeats
    _check_output_size(output_size, input._size[dim] * repeats)
    return flatten(clone(spread.expand(sizes), memory_format=contiguous_format), dim, dim + 1)


def _repeat_interleave_tensor(self: Tensor, repeats: Tensor, dim=None, *, output_size=None):
    """Slice ``k`` along ``dim`` repeated ``repeats[k]`` times: an ``index_select``.

    The counts become indices (``repeat_interleave(repeats)``: ``[0, 0, 1, 2, 2]``),
    and the slices are picked with them.
    """
    input = self
    if dim is None:
        input, dim = flatten(self), 0
    length = _size_along(input, dim)
    if len(repeats._size) == 0 or repeats._size == (1,):
        repeats = _reshape_op(repeats, (1,)).expand(length)
    elif len(repeats._size) == 1:
        if repeats._size[0] != length:
            raise RuntimeError(
                f"repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {repeats._size[0]} and input.size({dim}) = {length}"
            )
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    indices = repeat_interleave.overloads["repeat_interleave.Tensor"](
        repeats, output_size=output_size
    )
    return index_select(input, dim, indices)


def _repeat_interleave_counts_meta(repeats: Tensor, *, output_size=None) -> Tensor:
    """On the meta device the counts are not there to sum: PyTorch 2.13's meta function
    needs ``output_size`` and checks nothing else."""
    if output_size is None:
        raise RuntimeError("cannot repeat_interleave a meta tensor without output_size")
    check_nonnegative((output_size,))
    return empty_meta((output_size,), (1,), repeats._dtype)


def _repeat_interleave_counts(repeats: Tensor, *, output_size=None) -> Tensor:
    """``repeat_interleave(repeats)``: ``k`` repeated ``repeats[k]`` times (indices for gather)."""
    counts = _check_repeats_tensor(repeats)
    _check_output_size(output_size, int(counts.sum()))
    return _fresh(np.repeat(np.arange(counts.size), counts), repeats._dtype)


_repeat_interleave_counts.meta_kernel = _repeat_interleave_counts_meta  # for ``meta_kernels``


# The function takes all three overloads; the method only those with ``self`` (the
# counts-only ``repeat_interleave.Tensor`` is a function in PyTorch).
repeat_interleave = native_function(
    "repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor",
    "repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, "
    "SymInt? output_size=None) -> Tensor",
    "repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, "
    "SymInt? output_size=None) -> Tensor",
    kernels={
        "repeat_interleave.Tensor": _repeat_interleave_counts,
        "repeat_interleave.self_Tensor": _repeat_interleave_tensor,
        "repeat_interleave.self_int": _repeat_interleave_int,
    },
    # CompositeImplicitAutograd in PyTorch but for the counts: built from other ops,
    # which record the nodes.
    kinds={
        "repeat_interleave.self_Tensor": COMPOSITE_IMPLICIT,
        "repeat_interleave.self_int": COMPOSITE_IMPLICIT,
    },
    doc="""``torch.repeat_interleave``: repeat each element (or slice along ``dim``) in place.

    ``[a, b]`` with ``repeats=2`` gives ``[a, a, b, b]`` (``repeat`` would give
    ``[a, b, a, b]``). ``repeats`` is an int or one count per slice. Called with only a
    tensor of counts, it returns the index ``k`` repeated ``counts[k]`` times.
    """,
)


# --- flip and roll: the same elements in another order --------------------------------------


def _flip_meta(self: Tensor, dims) -> tuple:
    """``flip``'s result: ``empty_like(self, preserve_format)`` (a dense input lends its
    strides, an empty one too; any other keeps its dims' order, packed densely)."""
    wrap_dims(dims, len(self._size))
    return self._size, self._dtype, strides_like(self)


def _flip_kernel(self: Tensor, dims) -> Tensor:
    size, dtype, strides = _flip_meta(self, dims)
    dims = wrap_dims(dims, len(self._size))
    result = Tensor._empty_strided(size, strides, dtype)
    # np.flip is a view with negative strides; assigning it copies into our layout.
    result._array[...] = np.flip(self._array, dims) if self._size else self._array
    return result


# Flipping is its own inverse: the gradient is flipped back.
flip = native_function(
    "flip(Tensor self, int[] dims) -> Tensor",
    kernel=meta_then_impl(_flip_meta, _flip_kernel),
    derivative=Derivative("FlipBackward0", save=("dims",),
                          grads={"self": lambda grad, saved: grad.flip(saved.dims)}),
    doc="``torch.flip``: reverse the order along ``dims``. A copy: strides never go negative.",
)  # fmt: skip
_flip_op = flip.overloads["flip"]


def _fliplr_kernel(self: Tensor) -> Tensor:
    if len(self._size) < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip_op(self, (1,))


def _flipud_kernel(self: Tensor) -> Tensor:
    if len(self._size) < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip_op(self, (0,))


# Composites in PyTorch: a check, then ``flip`` (dispatched on its own).
fliplr = native_function(
    "fliplr(Tensor self) -> Tensor",
    kernel=_fliplr_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.fliplr``: reverse the columns (dim 1).",
)
flipud = native_function(
    "flipud(Tensor self) -> Tensor",
    kernel=_flipud_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.flipud``: reverse the rows (dim 0).",
)


def _check_roll(self: Tensor, shifts, dims=()) -> bool:
    """``roll``'s checks; whether it rolls the flattened tensor (no dims, one shift)."""
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        return True
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    return False


def _roll_meta(self: Tensor, shifts, dims=()) -> tuple:
    """``roll``'s result: row-major when it rolls the flattened tensor, else laid out as
    the last of ``_roll_one_dim``'s steps lays it out (a ``clone`` or a ``cat``), each
    step followed on a meta tensor of the previous one's geometry."""
    if _check_roll(self, shifts, dims):
        return self._size, self._dtype, contiguous_strides(self._size)
    result = self
    for shift, dim in zip(shifts, dims, strict=True):
        if result.numel() == 0:
            strides = strides_like(result, preserve_format)
            size, dtype = result._size, result._dtype
        else:
            length = result.size(dim)
            dim = wrap_dim(dim, len(result._size))
            start = (length - shift) % length
            pieces = [
                _narrowed(result, dim, start, length - start),
                _narrowed(result, dim, 0, start),
            ]
            size, dtype, strides = _cat_meta(pieces, dim)
        result = empty_meta(size, strides, dtype)
    return result._size, result._dtype, result._stride


def _roll_kernel(self: Tensor, shifts, dims=()) -> Tensor:
    """``roll``: no dims rolls the flattened tensor; several roll one dim after another."""
    if _check_roll(self, shifts, dims):
        # No dims: roll the flattened tensor, then give it its shape back.
        rolled = np.roll(self._array.reshape(-1), shifts[0]).reshape(self._size)
        return _fresh(rolled, self._dtype)
    result = self
    for shift, dim in zip(shifts, dims, strict=True):
        result = _roll_one_dim(result, shift, dim)
    return result


def _roll_one_dim(self: Tensor, shift: int, dim: int) -> Tensor:
    """``roll_cpu`` along one dim: ``cat`` of the two pieces ``narrow`` cuts, so the result
    is laid out as ``cat`` lays out (channels-last stays so). A tensor with no elements is
    cloned as it is, its dims never looked at; a 0-d tensor has no ``size(dim)``."""
    if self.numel() == 0:
        return clone(self, memory_format=preserve_format)
    size = self.size(dim)
    dim = wrap_dim(dim, len(self._size))
    start = (size - shift) % size
    return _cat_kernel([_narrowed(self, dim, start, size - start), _narrowed(self, dim, 0, start)],
                       dim)  # fmt: skip


def _narrowed(t: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``t.narrow(dim, start, length)`` as an internal alias (never returned)."""
    size = list(t._size)
    size[dim] = length
    return t._alias(tuple(size), t._stride, t._offset + start * t._stride[dim])


def _roll_backward(grad: Tensor, saved) -> Tensor:
    # Rolling back by the same amounts undoes the roll.
    return _roll_op(grad, tuple(-s for s in saved.shifts), saved.dims)


roll = native_function(
    "roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor",
    kernel=meta_then_impl(_roll_meta, _roll_kernel),
    derivative=Derivative("RollBackward0", save=("shifts", "dims"), complex=True,
                          grads={"self": _roll_backward}),
    doc="``torch.roll``: shift elements along ``dims``; what falls off one end comes back in.",
)  # fmt: skip
_roll_op = roll.overloads["roll"]


def _check_rot90(self: Tensor, k: int = 1, dims=(0, 1)) -> tuple:
    """``rot90``'s checks; the two wrapped dims."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    ndim = len(self._size)
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    first, second = wrap_dim(dims[0], ndim), wrap_dim(dims[1], ndim)
    if first == second:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    return first, second


def _rot90_meta(self: Tensor, k: int = 1, dims=(0, 1)) -> tuple:
    """``rot90``'s result: a contiguous clone for no turn, else ``flip``'s layout, with
    the two dims swapped for an odd number of quarter turns."""
    first, second = _check_rot90(self, k, dims)
    if k % 4 == 0:
        return self._size, self._dtype, contiguous_strides(self._size)
    size, stride = list(self._size), list(strides_like(self))
    if k % 2:
        size[first], size[second] = size[second], size[first]
        stride[first], stride[second] = stride[second], stride[first]
    return tuple(size), self._dtype, tuple(stride)


def _rot90_kernel(self: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """Turn the plane of ``dims`` by ``k`` quarter turns, from ``dims[0]`` towards
    ``dims[1]``: a ``flip`` of one of the dims, then a transpose of the two (for a half
    turn a ``flip`` of both, for none a contiguous copy)."""
    first, second = _check_rot90(self, k, dims)
    k %= 4
    if k == 0:
        return clone(self, memory_format=contiguous_format)
    if k == 2:
        return _flip_kernel(self, (first, second))
    result = _flip_kernel(self, (second if k == 1 else first,))
    # ``transpose_`` of the fresh result, below autograd: its version stays 0.
    size, stride = list(result._size), list(result._stride)
    size[first], size[second] = size[second], size[first]
    stride[first], stride[second] = stride[second], stride[first]
    result._set_metadata(size, stride, result._offset)
    return result


# Turning back by as many quarter turns undoes the rotation.
rot90 = native_function(
    "rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor",
    kernel=meta_then_impl(_rot90_meta, _rot90_kernel),
    derivative=Derivative("Rot90Backward0", save=("k", "dims"), complex=True,
                          grads={"self": lambda grad, saved: grad.rot90(-saved.k, saved.dims)}),
    doc="""``torch.rot90``: rotate by 90 degrees ``k`` times in the plane of ``dims``.

    A copy (``flip`` and a transpose): the result's strides are the flip's, transposed.
    """,
)  # fmt: skip

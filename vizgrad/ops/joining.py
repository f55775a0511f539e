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

import operator

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE, FUNCTIONAL, OUT
from ..promotion import can_cast, result_type
from ..shape import contiguous_strides, is_non_overlapping_and_dense, wrap_dim, wrap_dims
from ..tensor import Tensor
from .copy import clone, contiguous_format
from .index_ops import index_select
from .indexing_common import _fresh
from .iterator import check_no_overlap
from .registry import bind_method, check_tensor, declare, write_to_out
from .shape_views import flatten, reshape
from .size_one_dims import unsqueeze

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
    "tile",
    "repeat_interleave",
    "flip",
    "fliplr",
    "flipud",
    "roll",
]


def _tensor_list(fn_name: str, tensors) -> list[Tensor]:
    """``Tensor[] tensors`` from Python: a list or tuple of tensors, nothing else."""
    if not isinstance(tensors, list | tuple):
        raise TypeError(
            f"{fn_name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
            f"not {type(tensors).__name__}"
        )
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    return list(tensors)


def _int_tuple(fn_name: str, arg_name: str, position: int, values) -> tuple[int, ...]:
    """An ``int[]`` argument: a tuple or list of ints (PyTorch's parser rejects a float)."""
    if isinstance(values, int):
        return (values,)
    try:
        if not isinstance(values, tuple | list):
            raise TypeError
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(
            f"{fn_name}(): argument '{arg_name}' (position {position}) must be tuple of ints, "
            f"not {type(values).__name__}"
        ) from None


# --- cat ---------------------------------------------------------------------------------


def _is_skipped_in_cat(t: Tensor) -> bool:
    # Legacy behaviour PyTorch keeps: 1-D empty tensors are ignored by cat, whatever
    # the other shapes (but their dtype still takes part in promotion).
    return t._size == (0,)


def _cat_dtype(tensors) -> object:
    return result_type(*tensors)


def _check_cat_inputs(tensors, dim: int) -> tuple[list[Tensor], int]:
    """``cat``'s checks; returns the tensors that take part and the wrapped dim."""
    if not tensors:
        raise ValueError("vizgrad.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not t._size:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    kept = [(i, t) for i, t in enumerate(tensors) if not _is_skipped_in_cat(t)]
    if not kept:
        return [], 0
    first_index, first = kept[0]
    dim = wrap_dim(dim, len(first._size))
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


def _cat_kernel(tensors, dim: int = 0) -> Tensor:
    dtype = _cat_dtype(tensors)
    kept, dim = _check_cat_inputs(tensors, dim)
    if not kept:
        return _fresh(np.empty((0,), dtype.numpy), dtype)
    # The result is row-major; NumPy reads each (possibly strided) input directly.
    array = np.concatenate([t._array for t in kept], axis=dim, dtype=dtype.numpy, casting="unsafe")
    return _fresh(array, dtype)


def _cat_out_kernel(tensors, dim: int = 0, *, out: Tensor) -> Tensor:
    dtype = _cat_dtype(tensors)
    if not can_cast(dtype, out._dtype):
        raise TypeError(
            f"vizgrad.cat(): input types can't be cast to the desired output type "
            f"{out._dtype.scalar_name}"
        )
    result = _cat_kernel(tensors, dim)
    check_no_overlap(out, tensors)
    return write_to_out(result, out, check_cast=False)


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


_cat_op = declare(
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    FUNCTIONAL,
    _cat_kernel,
    Derivative(
        "CatBackward0", save=("dim", "tensors_args_sizes"), grads={"tensors": _cat_backward}
    ),
)
_cat_out_op = declare(
    "cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)", OUT, _cat_out_kernel
)


def cat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """``torch.cat``: join tensors along an existing dim; dtypes promote together.

    All sizes must match except along ``dim``. The result is a new row-major tensor.
    """
    tensors = _tensor_list("cat", tensors)
    if out is None:
        return _cat_op(tensors, dim)
    check_tensor("cat", out, "out", 3)
    return _cat_out_op(tensors, dim, out=out)


def concat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """``torch.concat``: another name for ``cat``."""
    return cat(tensors, dim, out=out)


def concatenate(tensors, axis: int = 0, *, out=None) -> Tensor:
    """``torch.concatenate``: ``cat`` with NumPy's argument name ``axis``."""
    return cat(tensors, axis, out=out)


# --- stack and its relatives ----------------------------------------------------------------


def _unsqueezed(t: Tensor, dim: int) -> Tensor:
    """``t`` with a size-1 dim inserted at ``dim`` (an internal alias, never returned)."""
    size = list(t._size)
    stride = list(t._stride)
    inner = size[dim] * stride[dim] if dim < len(size) else 1
    size.insert(dim, 1)
    stride.insert(dim, inner)
    return t._alias(tuple(size), tuple(stride), t._offset)


def _stack_kernel(tensors, dim: int = 0) -> Tensor:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    dim = wrap_dim(dim, len(tensors[0]._size) + 1)
    for i, t in enumerate(tensors[1:], start=1):
        if t._size != tensors[0]._size:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0]._size)} "
                f"at entry 0 and {list(t._size)} at entry {i}"
            )
    return _cat_op([_unsqueezed(t, dim) for t in tensors], dim)


def _stack_out_kernel(tensors, dim: int = 0, *, out: Tensor) -> Tensor:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    dim = wrap_dim(dim, len(tensors[0]._size) + 1)
    _stack_kernel(tensors, dim)  # the same checks, in the same order
    return _cat_out_kernel([_unsqueezed(t, dim) for t in tensors], dim, out=out)


# Stacking added one dim: taking it apart again (``unbind``) gives each input its gradient.
_stack_op = declare(
    "stack(Tensor[] tensors, int dim=0) -> Tensor",
    FUNCTIONAL,
    _stack_kernel,
    Derivative("StackBackward0", save=("dim",),
               grads={"tensors": lambda grad, saved: list(grad.unbind(saved.dim))}),
)  # fmt: skip
_stack_out_op = declare(
    "stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    OUT,
    _stack_out_kernel,
)


def stack(tensors, dim: int = 0, *, out=None) -> Tensor:
    """``torch.stack``: join equal-shaped tensors along a *new* dim ``dim``."""
    tensors = _tensor_list("stack", tensors)
    if out is None:
        return _stack_op(tensors, dim)
    check_tensor("stack", out, "out", 3)
    return _stack_out_op(tensors, dim, out=out)


# The ``atleast_*d`` helpers use the ops PyTorch's do (``reshape`` for 0-d tensors,
# ``unsqueeze`` otherwise), so the recorded nodes are the same (UnsqueezeBackward0…).


def _atleast_1d(t: Tensor) -> Tensor:
    """``atleast_1d``: a 0-d tensor becomes ``(1,)``."""
    return reshape(t, (1,)) if not t._size else t


def _atleast_2d(t: Tensor) -> Tensor:
    """``atleast_2d``: 0-d becomes ``(1, 1)``, 1-D ``(n,)`` becomes ``(1, n)``."""
    if not t._size:
        return reshape(t, (1, 1))
    return unsqueeze(t, 0) if len(t._size) == 1 else t


def _atleast_3d(t: Tensor) -> Tensor:
    """``atleast_3d``: a 1-D ``(n,)`` becomes ``(1, n, 1)``, a 2-D one gains a last dim."""
    if not t._size:
        return reshape(t, (1, 1, 1))
    if len(t._size) == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if len(t._size) == 2 else t


def _as_column(t: Tensor) -> Tensor:
    """``column_stack``'s reshaping: 0-d and 1-D tensors become one column."""
    return reshape(t, (t.numel(), 1)) if len(t._size) <= 1 else t


def _stacker(name: str, doc: str, prepare, dim_for):
    """Declare one of the ``*stack`` composites: reshape every tensor, then ``cat``.

    They are ``CompositeImplicitAutograd`` in PyTorch: no kernel of their own, just
    other operators (views, then ``cat``), each dispatched and differentiated itself.
    """

    def kernel(tensors):
        if not tensors:
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        prepared = [prepare(t) for t in tensors]
        return _cat_op(prepared, dim_for(prepared))

    def out_kernel(tensors, *, out):
        if not tensors:
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        prepared = [prepare(t) for t in tensors]
        return _cat_out_op(prepared, dim_for(prepared), out=out)

    functional_op = declare(f"{name}(Tensor[] tensors) -> Tensor", FUNCTIONAL, kernel, COMPOSITE)
    out_op = declare(f"{name}.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)", OUT,
                     out_kernel, COMPOSITE)  # fmt: skip

    def function(tensors, *, out=None):
        tensors = _tensor_list(name, tensors)
        if out is None:
            return functional_op(tensors)
        check_tensor(name, out, "out", 2)
        return out_op(tensors, out=out)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


hstack = _stacker(
    "hstack",
    "``torch.hstack``: join along dim 1 (dim 0 for 1-D tensors); 0-d tensors become 1-D.",
    _atleast_1d,
    lambda prepared: 0 if len(prepared[0]._size) == 1 else 1,
)
vstack = _stacker(
    "vstack",
    "``torch.vstack``: join along dim 0 after making every tensor at least 2-D.",
    _atleast_2d,
    lambda prepared: 0,
)
row_stack = vstack
dstack = _stacker(
    "dstack",
    "``torch.dstack``: join along dim 2 after making every tensor at least 3-D.",
    _atleast_3d,
    lambda prepared: 2,
)
column_stack = _stacker(
    "column_stack",
    "``torch.column_stack``: 0-d and 1-D tensors become columns, then join along dim 1.",
    _as_column,
    lambda prepared: 1,
)


# --- repeat, tile, repeat_interleave ---------------------------------------------------------


def _repeat_kernel(self: Tensor, repeats) -> Tensor:
    if len(repeats) < len(self._size):
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    padded = (1,) * (len(repeats) - len(self._size)) + self._size
    target = [s * r for s, r in zip(padded, repeats, strict=True)]
    for size in target:
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {target}")
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


_repeat_op = declare(
    "repeat(Tensor self, SymInt[] repeats) -> Tensor",
    FUNCTIONAL,
    _repeat_kernel,
    Derivative("RepeatBackward0", save=("self_sym_sizes", "repeats"),
               grads={"self": _repeat_backward}),
)  # fmt: skip


def _repeat(self: Tensor, *sizes) -> Tensor:
    """``Tensor.repeat``: tile the whole tensor ``sizes[d]`` times along each dim d.

    More sizes than dims add leading dims; fewer is an error.
    """
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    if len(sizes) == 1 and isinstance(sizes[0], tuple | list):
        sizes = sizes[0]
    return _repeat_op(self, _int_tuple("repeat", "repeats", 1, sizes))


bind_method("repeat", _repeat)


def tile(input: Tensor, dims) -> Tensor:
    """``torch.tile``: ``repeat``, except that fewer ``dims`` than dims means leading 1s."""
    check_tensor("tile", input, "input", 1)
    dims = _int_tuple("tile", "dims", 2, dims)
    dims = (1,) * (len(input._size) - len(dims)) + dims
    return _repeat_op(input, dims)


def _varargs(values: tuple):
    """``t.flip(0, 1)`` and ``t.flip((0, 1))`` mean the same: unwrap one sequence."""
    return values[0] if len(values) == 1 and isinstance(values[0], tuple | list) else values


bind_method("tile", lambda self, *dims: tile(self, _varargs(dims)))


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
    if not t._size:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return t._size[wrap_dim(dim, len(t._size))]


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
    spread = unsqueeze(input, dim + 1)
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
        repeats = reshape(repeats, (1,)).expand(length)
    elif len(repeats._size) == 1:
        if repeats._size[0] != length:
            raise RuntimeError(
                f"repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {repeats._size[0]} and input.size({dim}) = {length}"
            )
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    indices = _repeat_interleave_ops["Tensor"](repeats, output_size=output_size)
    return index_select(input, dim, indices)


def _repeat_interleave_counts(repeats: Tensor, *, output_size=None) -> Tensor:
    """``repeat_interleave(repeats)``: ``k`` repeated ``repeats[k]`` times (indices for gather)."""
    counts = _check_repeats_tensor(repeats)
    _check_output_size(output_size, int(counts.sum()))
    return _fresh(np.repeat(np.arange(counts.size), counts), repeats._dtype)


_repeat_interleave_ops = {
    # CompositeImplicitAutograd in PyTorch: built from other ops, which record the nodes.
    "self_int": declare(
        "repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, "
        "SymInt? output_size=None) -> Tensor",
        FUNCTIONAL,
        _repeat_interleave_int,
        COMPOSITE,
    ),
    "self_Tensor": declare(
        "repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, "
        "SymInt? output_size=None) -> Tensor",
        FUNCTIONAL,
        _repeat_interleave_tensor,
        COMPOSITE,
    ),
    "Tensor": declare(
        "repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor",
        FUNCTIONAL,
        _repeat_interleave_counts,
    ),
}


def repeat_interleave(input: Tensor, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """``torch.repeat_interleave``: repeat each element (or slice along ``dim``) in place.

    ``[a, b]`` with ``repeats=2`` gives ``[a, a, b, b]`` (``repeat`` would give
    ``[a, b, a, b]``). ``repeats`` is an int or one count per slice. Called with only a
    tensor of counts, it returns the index ``k`` repeated ``counts[k]`` times.
    """
    check_tensor("repeat_interleave", input, "input", 1)
    if repeats is None:
        return _repeat_interleave_ops["Tensor"](input, output_size=output_size)
    if isinstance(repeats, Tensor):
        return _repeat_interleave_ops["self_Tensor"](input, repeats, dim, output_size=output_size)
    repeats = operator.index(repeats)
    return _repeat_interleave_ops["self_int"](input, repeats, dim, output_size=output_size)


bind_method("repeat_interleave", lambda self, repeats=None, dim=None, *, output_size=None:
            repeat_interleave(self, repeats, dim, output_size=output_size))  # fmt: skip


# --- flip and roll: the same elements in another order --------------------------------------


def _like_layout(t: Tensor) -> tuple[int, ...]:
    """``empty_like(t, preserve_format)``: a dense ``t`` lends its strides, else row-major."""
    if is_non_overlapping_and_dense(t._size, t._stride):
        return t._stride
    return contiguous_strides(t._size)


def _flip_kernel(self: Tensor, dims) -> Tensor:
    dims = wrap_dims(dims, len(self._size))
    result = Tensor._empty_strided(self._size, _like_layout(self), self._dtype)
    # np.flip is a view with negative strides; assigning it copies into our layout.
    result._array[...] = np.flip(self._array, dims) if self._size else self._array
    return result


# Flipping is its own inverse: the gradient is flipped back.
_flip_op = declare(
    "flip(Tensor self, int[] dims) -> Tensor",
    FUNCTIONAL,
    _flip_kernel,
    Derivative("FlipBackward0", save=("dims",),
               grads={"self": lambda grad, saved: grad.flip(saved.dims)}),
)  # fmt: skip


def flip(input: Tensor, dims) -> Tensor:
    """``torch.flip``: reverse the order along ``dims``. A copy: strides never go negative."""
    check_tensor("flip", input, "input", 1)
    if not isinstance(dims, tuple | list):
        raise TypeError(
            f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}"
        )
    return _flip_op(input, _int_tuple("flip", "dims", 2, dims))


def _fliplr_kernel(self: Tensor) -> Tensor:
    if len(self._size) < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip_op(self, (1,))


def _flipud_kernel(self: Tensor) -> Tensor:
    if len(self._size) < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip_op(self, (0,))


# Composites in PyTorch: a check, then ``flip`` (dispatched on its own).
_fliplr_op = declare("fliplr(Tensor self) -> Tensor", FUNCTIONAL, _fliplr_kernel, COMPOSITE)
_flipud_op = declare("flipud(Tensor self) -> Tensor", FUNCTIONAL, _flipud_kernel, COMPOSITE)


def fliplr(input: Tensor) -> Tensor:
    """``torch.fliplr``: reverse the columns (dim 1)."""
    check_tensor("fliplr", input, "input", 1)
    return _fliplr_op(input)


def flipud(input: Tensor) -> Tensor:
    """``torch.flipud``: reverse the rows (dim 0)."""
    check_tensor("flipud", input, "input", 1)
    return _flipud_op(input)


def _roll_kernel(self: Tensor, shifts, dims=()) -> Tensor:
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        # No dims: roll the flattened tensor, then give it its shape back.
        rolled = np.roll(self._array.reshape(-1), shifts[0]).reshape(self._size)
        return _fresh(rolled, self._dtype)
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    dims = tuple(wrap_dim(d, len(self._size)) for d in dims)
    array = self._array if self._size else self._array.reshape(1)
    return _fresh(np.roll(array, shifts, dims).reshape(self._size), self._dtype)


def _roll_backward(grad: Tensor, saved) -> Tensor:
    # Rolling back by the same amounts undoes the roll.
    return _roll_op(grad, tuple(-s for s in saved.shifts), saved.dims)


_roll_op = declare("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor", FUNCTIONAL,
                   _roll_kernel, Derivative("RollBackward0", save=("shifts", "dims"),
                                            grads={"self": _roll_backward}))  # fmt: skip


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """``torch.roll``: shift elements along ``dims``; what falls off one end comes back in."""
    check_tensor("roll", input, "input", 1)
    shifts = _int_tuple("roll", "shifts", 2, shifts)
    dims = () if dims is None else _int_tuple("roll", "dims", 3, dims)
    return _roll_op(input, shifts, dims)


bind_method("flip", lambda self, *dims: flip(self, _varargs(dims)))
bind_method("fliplr", fliplr)
bind_method("flipud", flipud)
bind_method("roll", lambda self, shifts, dims=None: roll(self, shifts, dims))

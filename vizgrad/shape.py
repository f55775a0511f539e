"""Shapes, strides and dimensions: the small arithmetic every view and kernel shares.

``Size`` is ``torch.Size``; ``wrap_dim`` turns ``-1`` into the last dimension with
PyTorch's error when out of range; ``broadcast_shapes`` lines shapes up from the right.
"""

from __future__ import annotations

import math
import operator

__all__ = [
    "Size",
    "wrap_dim",
    "wrap_dims",
    "broadcast_shapes",
    "contiguous_strides",
    "is_contiguous",
    "is_non_overlapping_and_dense",
    "channels_last_strides",
    "is_channels_last_strides",
    "is_channels_last_contiguous",
    "storage_extent",
    "numel_of",
    "check_numel",
    "check_storage_nbytes",
]

_INT64_MAX = 2**63 - 1
_UINT64 = 2**64


class Size(tuple):
    """``torch.Size``: a tuple of dimension lengths."""

    __slots__ = ()

    def numel(self) -> int:
        return numel_of(self)

    def __repr__(self) -> str:
        return f"vizgrad.Size([{', '.join(str(s) for s in self)}])"

    def __getitem__(self, item):
        result = tuple.__getitem__(self, item)
        return Size(result) if isinstance(item, slice) else result

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))


def numel_of(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _overflowing_product(factors, start: int = 1) -> tuple[int, bool]:
    """``c10::safe_multiply_u64``: the product in uint64 arithmetic (a negative size is a
    huge unsigned number), and whether any step overflowed (once overflowed, always)."""
    product, overflowed = start, False
    for factor in factors:
        product *= factor % _UINT64
        if product >= _UINT64:
            product %= _UINT64
            overflowed = True
    return product, overflowed


def check_numel(shape) -> None:
    """``TensorImpl::safe_compute_numel``: the element count must fit in int64.

    PyTorch counts in unsigned 64-bit arithmetic, so a negative size (which ``expand`` of
    a new dim or ``resize_`` lets through) is a huge count, and the multiplication
    overflows, unless a 0 comes first: ``(-2, 0)`` has no elements and is allowed.
    """
    product, overflowed = _overflowing_product(shape)
    if overflowed or product > _INT64_MAX:
        raise RuntimeError("numel: integer multiplication overflow")


def check_storage_nbytes(shape, itemsize: int, stride=None) -> None:
    """``computeStorageNbytesContiguous`` (``computeStorageNbytes`` given strides): the bytes
    a new tensor's storage needs must fit in int64, or allocating is refused before any
    memory is asked for (``zeros(2**62)`` overflows; ``zeros(10**12)`` only fails to get
    its 4 TB)."""
    if stride is None:
        if min(shape, default=0) >= 0 and math.prod(shape) * itemsize <= _INT64_MAX:
            return  # the common case, counted in C
        nbytes, overflowed = _overflowing_product(shape)
        overflowed |= nbytes * itemsize > _INT64_MAX
        if overflowed:
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
        return
    if 0 in shape:
        return
    extent = 1 + sum((size - 1) * st for size, st in zip(shape, stride, strict=True))
    if extent * itemsize > _INT64_MAX:
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(shape)} and "
            f"strides={list(stride)}"
        )


def wrap_dim(dim, ndim: int, wrap_scalar: bool = True) -> int:
    """``maybe_wrap_dim``: ``-1`` is the last dimension; out of range is an IndexError.

    A zero-dim tensor accepts dim 0 and -1 as if it had one dimension, unless
    ``wrap_scalar`` is False: ``size(dim)``, ``stride(dim)`` and the operators that ask
    for them (``roll``, ``unflatten``, ``unbind``) have no dimension to give there.
    """
    try:
        dim = operator.index(dim)
    except TypeError:
        raise TypeError(f"dim must be an int, not {type(dim).__name__}") from None
    if ndim == 0 and not wrap_scalar:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    rank = max(ndim, 1)  # a zero-dim tensor accepts dim 0 and -1, as PyTorch does
    if not -rank <= dim < rank:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
            f"but got {dim})"
        )
    return dim % rank


def wrap_dims(dims, ndim: int) -> tuple[int, ...]:
    """Wrap a tuple of dims; a dim named twice is PyTorch's RuntimeError."""
    wrapped = tuple(wrap_dim(d, ndim) for d in dims)
    seen = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return wrapped


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """Line shapes up from the right; each pair of sizes must be equal or one of them 1.

    ``at::infer_size`` applied pairwise, as TensorIterator does: the shape so far is
    tensor a, the next shape tensor b, and a mismatch is reported at the rightmost dim
    where they disagree, numbered in the pair's broadcast shape.
    """
    result = tuple(shapes[0]) if shapes else ()
    for shape in shapes[1:]:
        if shape != result:
            result = _infer_size(result, tuple(shape))
    return result


def _infer_size(a: tuple, b: tuple) -> tuple[int, ...]:
    ndim = max(len(a), len(b))
    expanded = [1] * ndim
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        size_a = a[len(a) - 1 - offset] if offset < len(a) else 1
        size_b = b[len(b) - 1 - offset] if offset < len(b) else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) "
                f"at non-singleton dimension {i}"
            )
        expanded[i] = size_b if size_a == 1 else size_a
    return tuple(expanded)


def contiguous_strides(shape) -> tuple[int, ...]:
    """Row-major strides: the last dimension moves fastest (size-0 dims count as 1)."""
    ndim = len(shape)
    # Every new tensor asks, most often for a matrix: answered without the loop.
    if ndim == 2:
        last = shape[1]
        return (last if last > 1 else 1, 1)
    if ndim < 2:
        return (1,) if ndim else ()
    strides = [1] * ndim
    step = 1
    for i in range(ndim - 1, 0, -1):
        size = shape[i]
        if size > 1:  # a size of 0 (or 1) steps as 1
            step *= size
        strides[i - 1] = step
    return tuple(strides)


def is_contiguous(shape, stride) -> bool:
    """PyTorch's rule: row-major order, ignoring size-1 dims; empty tensors are contiguous."""
    if 0 in shape:
        return True
    ndim = len(shape)
    if len(stride) != ndim:
        raise ValueError("a shape and its strides must have the same length")
    if ndim == 2:  # every view asks, most often of a matrix: answered without the loop
        rows, columns = shape
        if columns != 1 and stride[1] != 1:
            return False
        return rows == 1 or stride[0] == columns
    expected = 1
    for i in range(ndim - 1, -1, -1):
        size = shape[i]
        if size != 1:
            if stride[i] != expected:
                return False
            expected *= size
    return True


def is_non_overlapping_and_dense(shape, stride) -> bool:
    """Every element of a dense block is reached exactly once, in some dimension order."""
    if is_contiguous(shape, stride):
        return True
    # Dims of size < 2 don't matter; order the rest by stride and check they tile densely.
    dims = sorted(range(len(shape)), key=lambda i: (shape[i] < 2, stride[i]))
    expected = 1
    for i in dims:
        if shape[i] < 2:
            return True
        if stride[i] != expected:
            return False
        expected *= shape[i]
    return True


def storage_extent(shape, stride, offset: int = 0) -> int:
    """How many storage elements a geometry needs: one past the farthest position it reads.

    An empty tensor reads nothing and needs none (PyTorch's ``computeStorageNbytes``).
    """
    if 0 in shape:
        return 0
    return offset + 1 + sum((size - 1) * st for size, st in zip(shape, stride, strict=True))


def _channels_last_order(ndim: int) -> tuple[int, ...]:
    # From the fastest-moving dim: channels, then width, height (and depth), then batch.
    return (1, *range(ndim - 1, 1, -1), 0)


def channels_last_strides(shape) -> tuple[int, ...]:
    """``get_channels_last_strides_2d``/``_3d``: the strides of a 4-D (5-D) channels-last
    tensor. Sizes count as they are: a size-0 dim zeroes the strides of the dims above it."""
    strides = [0] * len(shape)
    step = 1
    for d in _channels_last_order(len(shape)):
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def is_channels_last_strides(shape, stride) -> bool:
    """``is_channels_last_strides_2d_s4``/``_3d_s5``: is a 4-D (5-D) tensor laid out
    channels-last? What ``suggest_memory_format`` asks.

    A tensor with no elements, or whose channel stride is 0, is not; ambiguous layouts
    (``N111`` with equal strides) count as contiguous, PyTorch's default.
    """
    if len(shape) not in (4, 5) or stride[1] == 0:
        return False
    minimum = 0
    for d in _channels_last_order(len(shape)):
        if shape[d] == 0 or stride[d] < minimum:
            return False
        if d == 0 and minimum == stride[1]:
            return False
        minimum = stride[d] * shape[d] if shape[d] > 1 else stride[d]
    return True


def is_channels_last_contiguous(shape, stride) -> bool:
    """``compute_channels_last_contiguous_2d``: a 4-D tensor whose strides are dense in
    channels-last order, size-1 dims not counting (``(2, 3, 1, 1)`` row-major is both)."""
    if len(shape) != 4:
        return False
    expected = 1
    for d in _channels_last_order(4):
        if shape[d] != 1:
            if stride[d] != expected:
                return False
            expected *= shape[d]
    return True

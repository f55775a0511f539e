"""Cache blocking: run one elementwise loop tile by tile when its operands' layouts disagree.

PyTorch's TensorIterator walks the output in its own memory order. When an input is
laid out the other way (``a.t() + b``), every step along the output's fastest
dimension jumps a whole row of that input. ATen's inner loop copes with that stride
in about 1 ns an element; NumPy's strided loop takes 3 to 4 ns, and NumPy's own choice
of iteration order for such a mix is worse still (``a.t() + b`` into a transposed
output: 12 ms for 1M float32 against PyTorch's 3.3 ms).

The cure is the one ATen uses for a transposed copy (``copy_transpose_valid``): walk
the two conflicting dimensions in small square tiles. Within a 16 x 16 tile both
operands touch only 16 cache lines, so the jumps hit memory already cached. NumPy
walks tiles when it is handed the operands as 4-dimensional views
``(..., tiles along d, tiles along o, 16 of d, 16 of o)``: it keeps that order because,
when operands disagree on which axis is faster, C order wins in its iterator. The
same loop then takes about 2.2 ms, under PyTorch's time.

``blocked_calls`` says how to call a kernel that way, or ``None`` when it is not worth
it (small, 1-D, or the layouts agree): then the kernel runs once, as it always did.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = ["blocked_calls"]

# Tiles are TILE x TILE elements. 8 and 16 measured the same; 32 and up lose the gain.
TILE = 16
# Below this many elements a loop is too short for the tiles' own cost to pay off.
MIN_ELEMENTS = 1 << 16
# A stride below a cache line's bytes along the output's fastest dim is no jump.
CACHE_LINE_BYTES = 64


def _fastest_dim(array: np.ndarray) -> int | None:
    """The dimension with the smallest non-zero stride among those of size > 1."""
    best, best_stride = None, None
    for dim, (size, stride) in enumerate(zip(array.shape, array.strides, strict=True)):
        if size > 1 and stride != 0 and (best_stride is None or abs(stride) < best_stride):
            best, best_stride = dim, abs(stride)
    return best


def _conflicting_dim(out: np.ndarray, inputs) -> tuple[int, int] | None:
    """``(o, d)``: the output's fastest dim, and an input's fastest dim that is another,
    along which that input jumps more than a cache line; None if every input agrees."""
    o = _fastest_dim(out)
    if o is None:
        return None
    for array in inputs:
        along_o = o - (out.ndim - array.ndim)
        if along_o < 0 or array.shape[along_o] == 1:  # broadcast along ``o``: no jump
            continue
        if abs(array.strides[along_o]) < CACHE_LINE_BYTES:
            continue
        d = _fastest_dim(array)
        if d is not None:
            d += out.ndim - array.ndim
            if d != o:
                return o, d
    return None


def _tiled(array: np.ndarray, order, o: int, d: int, writeable: bool) -> np.ndarray:
    """``array`` (of the full shape, sizes along ``o`` and ``d`` multiples of TILE) seen
    as ``(other dims in order..., d tiles, o tiles, TILE of d, TILE of o)``."""
    shape, strides = array.shape, array.strides
    sizes = [shape[k] for k in order]
    steps = [strides[k] for k in order]
    sizes += [shape[d] // TILE, shape[o] // TILE, TILE, TILE]
    steps += [strides[d] * TILE, strides[o] * TILE, strides[d], strides[o]]
    return as_strided(array, sizes, steps, writeable=writeable)


def blocked_calls(out: np.ndarray, inputs) -> list[tuple] | None:
    """The argument lists that together compute ``kernel(out, *inputs)`` tile by tile:
    the tiled bulk first, then the strips the tiles leave along each of the two dims.

    ``inputs`` are NumPy arrays that broadcast to ``out``'s shape. Returns None when the
    plain single call is the right one.
    """
    if out.ndim < 2 or out.size < MIN_ELEMENTS:
        return None
    dims = _conflicting_dim(out, inputs)
    if dims is None:
        return None
    o, d = dims
    bulk_o = out.shape[o] // TILE * TILE
    bulk_d = out.shape[d] // TILE * TILE
    if bulk_o < 2 * TILE or bulk_d < 2 * TILE:
        return None

    shape = out.shape
    full = [a if a.ndim == 0 else np.broadcast_to(a, shape) for a in inputs]
    # The other dims, outermost first, in the output's memory order.
    order = sorted((k for k in range(out.ndim) if k not in (o, d)),
                   key=lambda k: -abs(out.strides[k]))  # fmt: skip

    def region(array, o_slice, d_slice):
        index = [slice(None)] * array.ndim
        index[o], index[d] = o_slice, d_slice
        return array[tuple(index)]

    def call(o_slice, d_slice, tile):
        arrays = [out] + full
        parts = [a if a.ndim == 0 else region(a, o_slice, d_slice) for a in arrays]
        if tile:
            parts = [p if p.ndim == 0 else _tiled(p, order, o, d, i == 0)
                     for i, p in enumerate(parts)]  # fmt: skip
        return tuple(parts)

    calls = [call(slice(0, bulk_o), slice(0, bulk_d), True)]
    if bulk_d < shape[d]:
        calls.append(call(slice(0, bulk_o), slice(bulk_d, None), False))
    if bulk_o < shape[o]:
        calls.append(call(slice(bulk_o, None), slice(None), False))
    return calls

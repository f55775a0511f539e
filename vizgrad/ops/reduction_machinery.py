"""Reductions: ``sum``, ``mean``, ``max``, ``var``… over ``dim`` (PyTorch's ``ReduceOps.cpp``).

A reduction folds the elements along some dimensions into one value each. Every
reduction here follows the same three steps, as PyTorch's ``make_reduction`` does:

1. **Which dimensions.** ``dim`` may be ``None`` (all of them), an int, or a tuple of
   ints; negative dims count from the end; naming a dim twice is an error
   (``reduction_args``).
2. **Which dtype.** Integer sums widen to ``int64`` so they do not overflow, ``mean``
   refuses integers, ``dtype=`` casts the input before reducing, and half-precision
   inputs accumulate in ``float32`` (PyTorch's ``acc_type``; ``reduction_dtypes``).
3. **One NumPy reduction** over the strided view of the input (``t._array``) with
   ``axis=dims``: non-contiguous inputs are read in place, never copied first. The
   result is a fresh contiguous tensor, as PyTorch's reductions allocate. (Above
   ``CHUNK_ELEMENTS`` elements, one call per slice, so that Ctrl-C can stop it:
   ``interruptible``.)

``keepdim=True`` keeps each reduced dimension with size 1, so the result broadcasts
back against the input. Their gradients are in ``reduction_backward``.

This module holds step 3: ``reduce_with`` runs the NumPy reduction, ``interruptible``
cuts a long one into slices (``interruptible_scan`` a long scan, ``interruptible_into``
a long elementwise step), ``wrap_result`` makes its answer a tensor. Each operator is
declared, with all its overloads, in its family's module (``reductions``, ``min_max``, ``variance``, ``norms``,
``logical_reductions``, ``scan``, ``sorting``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..dtypes import dtype as DType
from ..shape import contiguous_strides
from ..tensor import Tensor
from .float_errors import ignoring_float_errors
from .reduction_args import numpy_axes, reduction_dims
from .reduction_dtypes import accumulate_dtype, input_as

__all__: list[str] = []


def wrap_result(array, dtype: DType) -> Tensor:
    """A NumPy result (maybe a NumPy scalar) as a new contiguous tensor of ``dtype``.

    NumPy may give a size-1 dimension any stride (``keepdims=True`` does); PyTorch's
    contiguous strides are canonical, so the array is re-viewed with those.
    """
    if type(array) is not np.ndarray or array.dtype != dtype.numpy:
        array = _as_dtype(array, dtype.numpy)
    if not array.flags.c_contiguous:
        array = array.copy(order="C")
    # (A row-major array's strides are canonical but for its size-1 dims'.)
    if 1 in array.shape:
        canonical = tuple(s * array.itemsize for s in contiguous_strides(array.shape))
        if array.strides != canonical:
            array = np.lib.stride_tricks.as_strided(array, array.shape, canonical)
    return Tensor._from_array(array, dtype)


@ignoring_float_errors(all="ignore")  # a float16 product may round to inf, as in PyTorch
def _as_dtype(array, numpy_dtype) -> np.ndarray:
    return np.asarray(array, dtype=numpy_dtype)


def reduce_with(np_reduce, t: Tensor, dims, keepdim: bool, result_dtype: DType,
                combine=None) -> Tensor:  # fmt: skip
    """Run one NumPy reduction (``np.sum``, ``np.prod``…) over ``dims`` of ``t``.

    ``combine`` reduces partial results, if not ``np_reduce`` itself (see ``interruptible``).
    """
    dims = reduction_dims(dims, t.dim())
    acc = accumulate_dtype(result_dtype).numpy
    result = _reduce(np_reduce, input_as(t, acc), numpy_axes(t, dims), acc, keepdim, combine,
                     result_dtype.numpy)  # fmt: skip
    return wrap_result(result, result_dtype)


@ignoring_float_errors(all="ignore")
def _reduce(np_reduce, array, axes, acc, keepdim: bool, combine, result):
    return interruptible(np_reduce, array, axes, keepdim, combine, result=result, dtype=acc)


# The most elements one NumPy call reads. NumPy's loops never look for Ctrl-C; Python
# looks between calls. So a bigger reduction (``expand`` can make six values look like
# 6 * 10**12) runs as one call per slice of its largest dimension, and the student who
# interrupts it gets a KeyboardInterrupt at once, not after hours.
CHUNK_ELEMENTS = 1 << 24


class ReduceOps(NamedTuple):
    """A reduction cut into parts, as PyTorch writes its CPU reductions (``ReduceOps``
    in ``SharedReduceOps.h``: ``reduce``, ``combine``, ``project``).

    ``reduce(block, axis=, keepdims=)`` is a slice's partial result: an array, or a
    tuple of arrays (``var`` keeps a mean, a sum of squared deviations and a count).
    ``combine(partials, axis=, keepdims=)`` merges partial results laid side by side
    along reduced dims. ``project`` makes the merged one the answer (``sqrt`` for a
    2-norm).
    """

    reduce: Callable
    combine: Callable
    project: Callable = lambda partial: partial  # noqa: E731 - the identity


def interruptible(np_reduce, array, axes, keepdims: bool, combine=None, *,
                  parts: ReduceOps | None = None, result=None, **options):  # fmt: skip
    """``np_reduce(array, axis=axes, keepdims=keepdims, **options)``, in calls of at most
    ``CHUNK_ELEMENTS`` elements.

    Below the limit it is that one call. Above it, the input is cut into slices
    (``in_slices``): slices along a reduced dimension give partial results, slices along
    a kept dimension give the result's own slices. ``parts`` says how to reduce a slice
    and merge partial results; by default, for a reduction whose partial results reduce
    to the whole's (a sum, a product, a max, ``any``), each slice is reduced by
    ``np_reduce`` and the partial results by ``combine`` (``np_reduce`` unless given: a
    ``nansum``'s partial sums are added with ``np.add.reduce``, keeping a nan its slice
    made). So only reductions of more than 16M elements add up in another order.

    ``np_reduce=None`` makes the one call ``parts.project(parts.reduce(...))``.
    ``result`` is the NumPy dtype of the tensor returned (the input's if not given).
    """
    if array.size <= CHUNK_ELEMENTS:
        if np_reduce is None:
            return parts.project(parts.reduce(array, axis=axes, keepdims=keepdims, **options))
        return np_reduce(array, axis=axes, keepdims=keepdims, **options)
    if parts is None:
        reduce = functools.partial(np_reduce, **options)
        parts = ReduceOps(reduce, functools.partial(combine, **options) if combine else reduce)
    return in_slices(parts, array, axes, keepdims, result or array.dtype)


def in_slices(parts: ReduceOps, array, axes, keepdims: bool, result) -> np.ndarray:
    """The reduction ``parts`` of ``array`` over ``axes``, one NumPy call per slice.

    PyTorch allocates a reduction's output (of dtype ``result``) before it reads the
    input, so an output too big to hold (a huge ``expand`` reduced over its small
    dims) fails at once, naming its size, instead of after hours of slices: so here.
    """
    reduced = _reduced_axes(array.ndim, axes)
    shape = [
        1 if a in reduced else n for a, n in enumerate(array.shape) if keepdims or a not in reduced
    ]
    np.empty(shape, result)  # only to fail as PyTorch's allocation does
    return parts.project(_fold(parts, array, axes, keepdims))


def _reduced_axes(ndim: int, axes) -> list[int]:
    return list(range(ndim)) if axes is None else [a % ndim for a in np.atleast_1d(axes)]


def _fold(parts: ReduceOps, array, axes, keepdims: bool):
    """The partial result of ``array``: one call if small enough, else its largest
    dimension cut into slices of at most ``CHUNK_ELEMENTS`` elements (a slice still too
    big, when one index of that dimension holds more, is cut again along another)."""
    if array.size <= CHUNK_ELEMENTS:
        return parts.reduce(array, axis=axes, keepdims=keepdims)
    reduced = _reduced_axes(array.ndim, axes)
    axis = max(range(array.ndim), key=lambda a: array.shape[a])
    length = array.shape[axis]
    step = max(1, CHUNK_ELEMENTS // (array.size // length))
    before = (slice(None),) * axis
    pieces = [_fold(parts, array[(*before, slice(start, start + step))], axes, True)
              for start in range(0, length, step)]  # fmt: skip
    joined = _each(lambda *arrays: np.concatenate(arrays, axis=axis), *pieces)
    if axis in reduced:
        return parts.combine(joined, axis=axes, keepdims=keepdims)
    return joined if keepdims else _each(lambda a: a.squeeze(axis=tuple(reduced)), joined)


def _each(function, *partials):
    """``function`` of the partial results, or of each of their arrays, if tuples."""
    if isinstance(partials[0], tuple):
        return tuple(function(*arrays) for arrays in zip(*partials, strict=True))
    return function(*partials)


def interruptible_into(function, out, *arrays) -> np.ndarray:
    """``function(*arrays, out=out)``, an elementwise NumPy function of arrays that
    broadcast to ``out``'s shape, in calls of at most ``CHUNK_ELEMENTS`` elements."""
    if out.size <= CHUNK_ELEMENTS:
        function(*arrays, out=out)
        return out
    arrays = [np.broadcast_to(array, out.shape) for array in arrays]
    axis = max(range(out.ndim), key=lambda a: out.shape[a])
    length = out.shape[axis]
    step = max(1, CHUNK_ELEMENTS // (out.size // length))
    for start in range(0, length, step):
        piece = (slice(None),) * axis + (slice(start, start + step),)
        interruptible_into(function, out[piece], *(array[piece] for array in arrays))
    return out


def interruptible_scan(ufunc, array, axis: int, dtype, result=None) -> np.ndarray:
    """``ufunc.accumulate(array, axis=axis, dtype=dtype)`` (``np.add``'s is ``cumsum``),
    in calls of at most ``CHUNK_ELEMENTS`` elements, written into a ``result``-dtype
    array (``dtype``'s if not given).

    Slices along another dimension are independent scans. Along the scanned dimension,
    each slice starts from the running value the previous one ended with (kept in
    ``dtype``, as PyTorch's loop keeps it), folded into its first element, so the
    running values are those of one sequential call. The output is allocated first, as
    PyTorch's is: one too big to hold fails at once.
    """
    if array.size <= CHUNK_ELEMENTS:
        return ufunc.accumulate(array, axis=axis, dtype=dtype)
    out = np.empty(array.shape, result or dtype)
    _scan_into(ufunc, array, axis, dtype, out, None)
    return out


def _scan_into(ufunc, array, axis: int, dtype, out, carry):
    """Scan ``array`` into ``out``, starting from ``carry`` (``None``: from the start);
    return the running values at its end (size 1 along ``axis``), the next slice's carry."""
    first = (slice(None),) * axis + (slice(0, 1),)
    if array.size <= CHUNK_ELEMENTS:
        running = array.astype(dtype)
        if carry is not None:
            ufunc(carry, running[first], out=running[first])
        ufunc.accumulate(running, axis=axis, out=running)
        out[...] = running
        return running[(slice(None),) * axis + (slice(-1, None),)].copy()
    cut = max(range(array.ndim), key=lambda a: array.shape[a])
    length = array.shape[cut]
    step = max(1, CHUNK_ELEMENTS // (array.size // length))
    before = (slice(None),) * cut
    ends = []
    for start in range(0, length, step):
        piece = (*before, slice(start, start + step))
        if cut == axis:  # one after another: each carries on from the last
            carry = _scan_into(ufunc, array[piece], axis, dtype, out[piece], carry)
        else:  # side by side: each carries on from its own part of the carry
            part = None if carry is None else carry[piece]
            ends.append(_scan_into(ufunc, array[piece], axis, dtype, out[piece], part))
    return carry if cut == axis else np.concatenate(ends, axis=cut)

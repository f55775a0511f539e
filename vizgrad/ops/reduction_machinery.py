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
   result is a fresh contiguous tensor, as PyTorch's reductions allocate.

``keepdim=True`` keeps each reduced dimension with size 1, so the result broadcasts
back against the input. Their gradients are in ``reduction_backward``.

This module holds step 3: ``reduce_with`` runs the NumPy reduction, ``wrap_result``
makes its answer a tensor. Each operator is declared, with all its overloads, in its
family's module (``reductions``, ``min_max``, ``variance``, ``norms``,
``logical_reductions``, ``scan``, ``sorting``).
"""

from __future__ import annotations

import numpy as np

from ..dtypes import dtype as DType
from ..shape import contiguous_strides
from ..tensor import Tensor
from .reduction_args import numpy_axes, reduction_dims
from .reduction_dtypes import accumulate_dtype, input_as

__all__: list[str] = []


def wrap_result(array, dtype: DType) -> Tensor:
    """A NumPy result (maybe a NumPy scalar) as a new contiguous tensor of ``dtype``.

    NumPy may give a size-1 dimension any stride (``keepdims=True`` does); PyTorch's
    contiguous strides are canonical, so the array is re-viewed with those.
    """
    array = _as_dtype(array, dtype.numpy)
    if not array.flags.c_contiguous:
        array = array.copy(order="C")
    canonical = tuple(s * array.itemsize for s in contiguous_strides(array.shape))
    if array.strides != canonical:
        array = np.lib.stride_tricks.as_strided(array, array.shape, canonical)
    return Tensor._from_array(array, dtype)


@np.errstate(all="ignore")  # a float16 product may round to inf, as in PyTorch
def _as_dtype(array, numpy_dtype) -> np.ndarray:
    return np.asarray(array, dtype=numpy_dtype)


def reduce_with(np_reduce, t: Tensor, dims, keepdim: bool, result_dtype: DType,
                combine=None) -> Tensor:  # fmt: skip
    """Run one NumPy reduction (``np.sum``, ``np.prod``…) over ``dims`` of ``t``.

    ``combine`` reduces partial results, if not ``np_reduce`` itself (see ``interruptible``).
    """
    dims = reduction_dims(dims, t.dim())
    acc = accumulate_dtype(result_dtype).numpy
    result = _reduce(np_reduce, input_as(t, acc), numpy_axes(t, dims), acc, keepdim, combine)
    return wrap_result(result, result_dtype)


@np.errstate(all="ignore")
def _reduce(np_reduce, array, axes, acc, keepdim: bool, combine):
    return interruptible(np_reduce, array, axes, keepdim, combine, dtype=acc)


# The most elements one NumPy reduction call reads. NumPy's loops never look for Ctrl-C;
# Python looks between calls. So a bigger reduction (``expand`` can make six values look
# like 6 * 10**12) runs as one call per slice of its largest dimension, and the student
# who interrupts it gets a KeyboardInterrupt at once, not after hours.
CHUNK_ELEMENTS = 1 << 24


def interruptible(np_reduce, array, axes, keepdims: bool, combine=None, **options):
    """``np_reduce(array, axis=axes, keepdims=keepdims, **options)``, in calls of at most
    ``CHUNK_ELEMENTS`` elements.

    For a reduction whose partial results reduce to the whole's (a sum, a product, a max,
    ``any``): slices along a reduced dimension give partial results, which ``combine``
    (``np_reduce`` unless given: a ``nansum``'s partial sums are added with
    ``np.add.reduce``, keeping a nan its slice made) reduces once more; slices along a
    dimension that is kept give the result's own slices. Below the limit it is one call,
    so only reductions of more than 16M elements add up in another order.
    """
    if array.size <= CHUNK_ELEMENTS:
        return np_reduce(array, axis=axes, keepdims=keepdims, **options)
    ndim = array.ndim
    reduced = range(ndim) if axes is None else [a % ndim for a in np.atleast_1d(axes)]
    axis = max(range(ndim), key=lambda a: array.shape[a])
    length = array.shape[axis]
    step = max(1, CHUNK_ELEMENTS // (array.size // length))
    before = (slice(None),) * axis
    pieces = [interruptible(np_reduce, array[(*before, slice(start, start + step))], axes, True,
                            combine, **options) for start in range(0, length, step)]  # fmt: skip
    joined = np.concatenate(pieces, axis=axis)
    if axis in reduced:
        return (combine or np_reduce)(joined, axis=axes, keepdims=keepdims, **options)
    return joined if keepdims else joined.squeeze(axis=tuple(reduced))

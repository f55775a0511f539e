"""Reduction dtypes: what a reduction accumulates in and writes out (``acc_type``).

Step 2 of every reduction (see ``reduction_machinery``): integer sums widen to
``int64`` so they do not overflow, ``mean`` refuses integers, ``dtype=`` casts the
input before reducing, and half-precision inputs accumulate in ``float32`` (PyTorch's
``acc_type``). Given ``out=``, most reductions compute in the ``out`` tensor's dtype
(``computed_in_out_dtype``); the rest write a result of their own dtype, which ``out``
must already have (``out_wrapper(..., exact_dtype=True)``).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..dtypes import dtype as DType
from ..promotion import check_can_cast
from ..tensor import Tensor
from .copy import complex_as_real
from .registry import check_out_dtype, write_to_out

__all__: list[str] = []


def sum_dtype(input_dtype: DType) -> DType:
    """Integers and bools sum to int64 (so ``uint8`` sums don't wrap around at 256)."""
    return dt.int64 if input_dtype.category <= dt.INTEGRAL else input_dtype


def accumulate_dtype(result_dtype: DType) -> DType:
    """``at::acc_type``: half precision adds up in float32, then rounds once at the end."""
    return dt.float32 if result_dtype is dt.float16 else result_dtype


def input_as(t: Tensor, np_dtype) -> np.ndarray:
    """The input's strided view, cast to ``np_dtype`` first only when NumPy can't cast
    while reducing (a float input summed as int64 is truncated element by element)."""
    array = t._array
    if np.can_cast(array.dtype, np_dtype, "same_kind"):
        return array
    if array.dtype.kind == "c":  # to a real ``dtype=``: PyTorch's cast, and its warning
        array = complex_as_real(array, to_bool=np.dtype(np_dtype).kind == "b")
    return array.astype(np_dtype)


def computed_in_out_dtype(kernel, result_dtype=None):
    """The ``out=`` overload of a reduction that computes in the ``out`` tensor's dtype.

    PyTorch's reductions take the dtype they compute in from ``out=`` when no
    ``dtype=`` is given (``infer_dtype_from_optional``): a float input summed into an
    int64 ``out`` is summed as int64, a float32 variance written to a float64 ``out``
    reads the input at float64. A ``dtype=`` given as well must be ``out``'s.

    ``result_dtype(self, dtype)``, for the reductions that check it (``mean``, ``var``),
    is the dtype the functional overload returns (raising for inputs it refuses);
    ``out``'s must be one it can be cast to. ``kernel`` takes the dtype to compute in
    as ``dtype=``.
    """

    def out_kernel(self: Tensor, *args, out: Tensor, dtype=None, **options) -> Tensor:
        natural = result_dtype(self, dtype) if result_dtype is not None else None
        if dtype is not None:
            check_out_dtype(out, dtype)
        elif natural is not None:
            check_can_cast(natural, out._dtype)
        return write_to_out(kernel(self, *args, dtype=out._dtype, **options), out)

    out_kernel.__name__ = f"{kernel.__name__}_out"
    return out_kernel

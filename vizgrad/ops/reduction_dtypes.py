"""Reduction dtypes: what a reduction accumulates in and writes out (``acc_type``).

Step 2 of every reduction (see ``reduction_machinery``): integer sums widen to
``int64`` so they do not overflow, ``mean`` refuses integers, ``dtype=`` casts the
input before reducing, and half-precision inputs accumulate in ``float32`` (PyTorch's
``acc_type``). An ``out=`` tensor must already have the result's dtype for most
reductions (``check_out_dtype``); ``var`` and ``logsumexp`` instead compute in the
``out=`` tensor's dtype (``computed_in_out_dtype``).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..dtypes import CPP_TYPE_NAMES
from ..dtypes import dtype as DType
from ..promotion import check_can_cast
from ..tensor import Tensor
from .registry import write_to_out

__all__: list[str] = []


def accumulate_dtype(result_dtype: DType) -> DType:
    """``at::acc_type``: half precision adds up in float32, then rounds once at the end."""
    return dt.float32 if result_dtype is dt.float16 else result_dtype


def input_as(t: Tensor, np_dtype) -> np.ndarray:
    """The input's strided view, cast to ``np_dtype`` first only when NumPy can't cast
    while reducing (a float input summed as int64 is truncated element by element)."""
    array = t._array
    if np.can_cast(array.dtype, np_dtype, "same_kind"):
        return array
    return array.astype(np_dtype)


# --- writing out= results -------------------------------------------------------------


def check_out_dtype(out: Tensor, expected: DType) -> None:
    """The ``out=`` tensor of most reductions must already have the result's dtype."""
    if out._dtype is not expected:
        raise RuntimeError(
            f"Expected out tensor to have dtype {CPP_TYPE_NAMES[expected.name]}, but got "
            f"{CPP_TYPE_NAMES[out._dtype.name]} instead"
        )


def write_same_dtype_out(result: Tensor, out: Tensor) -> Tensor:
    check_out_dtype(out, result._dtype)
    return write_to_out(result, out)


def write_pair_out(result_type):
    """``out=(values, indices)``: values keep the input's dtype, indices are int64."""

    def write(result, out):
        values, indices = result
        check_out_dtype(out[0], values._dtype)
        check_out_dtype(out[1], indices._dtype)
        return result_type((write_to_out(values, out[0]), write_to_out(indices, out[1])))

    return write


def computed_in_out_dtype(kernel, natural_dtype, check_out=None):
    """An ``out=`` kernel for reductions that PyTorch computes in the out tensor's dtype
    (``var``, ``logsumexp``): the input is read at that precision, not rounded after."""

    def out_kernel(self: Tensor, *args, out, **kwargs):
        if check_out is not None:
            check_out(out)
        check_can_cast(natural_dtype(self), out._dtype)
        return write_to_out(kernel(self, *args, result_dtype=out._dtype, **kwargs), out)

    return out_kernel

"""``all``, ``any``, ``count_nonzero``: reductions asking "is it non-zero?" (``ReduceOps.cpp``).

``all`` and ``any`` return ``bool`` (``uint8`` for ``uint8`` inputs, as in PyTorch);
``count_nonzero`` returns ``int64``. None of them is differentiable.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..dispatcher import NONDIFFERENTIABLE
from ..tensor import Tensor
from .declaration import native_function
from .reduction_args import numpy_axes, reduction_dims
from .reduction_machinery import interruptible, wrap_result
from .registry import write_to_out

__all__ = [
    "all",
    "any",
    "count_nonzero",
]


# --- all and any ------------------------------------------------------------------------


def logical_dims(self: Tensor, dim) -> tuple[int, ...]:
    """The dims ``all``/``any`` reduce: here an empty dim list reduces nothing, each
    element is tested on its own."""
    return reduction_dims(dim, self.dim(), empty_means_all=False)


def logical_dtype(self: Tensor):
    """uint8 in, uint8 out: PyTorch kept this for code written before torch.bool."""
    return dt.uint8 if self._dtype is dt.uint8 else dt.bool


def _logical_kernel(np_reduce):
    def kernel(self: Tensor, dim=None, keepdim=False) -> Tensor:
        dims = logical_dims(self, dim)
        result_dtype = logical_dtype(self)
        # PyTorch's reduction reads the input in the result's dtype: any other is copied
        # to it first (of an ``expand`` to 10**12 rows, too big a copy: an error at once).
        array = self._array
        if self._dtype is not result_dtype:
            array = array.astype(result_dtype.numpy)
        axes = numpy_axes(self, dims)
        result = interruptible(np_reduce, array, axes, keepdim, result=result_dtype.numpy)
        return wrap_result(result, result_dtype)

    return kernel


def logical_out(fn_name: str, kernel):
    """``out=`` takes the answer as ``bool`` or ``uint8``, whatever the input's dtype
    (``kernel``: the CPU one, or the meta one)."""

    def out_kernel(self: Tensor, dim=None, keepdim=False, *, out: Tensor) -> Tensor:
        if out._dtype not in (dt.bool, dt.uint8):
            raise RuntimeError(
                f"{fn_name} only supports bool tensor for result, got: {out._dtype.scalar_name}"
            )
        return write_to_out(kernel(self, dim, keepdim), out, check_cast=False)

    return out_kernel


def _logical_reduction(fn_name: str, np_reduce, doc: str):
    """``all``/``any``: of everything, over a list of dims, or over one dim."""
    kernel = _logical_kernel(np_reduce)
    out_kernel = logical_out(fn_name, kernel)
    return native_function(
        f"{fn_name}(Tensor self) -> Tensor",
        f"{fn_name}.all_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        f"{fn_name}.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
        f"{fn_name}.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, "
        "Tensor(a!) out) -> Tensor(a!)",
        f"{fn_name}.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
        f"{fn_name}.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
        kernel=kernel,
        kernels={f"{fn_name}.{name}": out_kernel for name in ("all_out", "dims_out", "out")},
        kind=NONDIFFERENTIABLE,  # a bool answer
        doc=doc,
    )


all = _logical_reduction(  # noqa: A001 - PyTorch's name
    "all", np.all, "``torch.all``: are all elements non-zero? (bool; uint8 for a uint8 input)."
)
any = _logical_reduction(  # noqa: A001 - PyTorch's name
    "any", np.any, "``torch.any``: is any element non-zero?"
)


# --- count_nonzero ----------------------------------------------------------------------


def _count_nonzero_kernel(self: Tensor, dim=None) -> Tensor:
    """Over every element, PyTorch counts in one loop over the input, read in place (an
    hour for a huge ``expand``: here in slices, so Ctrl-C stops it). Over some dims it
    computes ``(self != 0).sum(dim)``: a ``bool`` copy of the input first, which for a
    huge ``expand`` cannot be allocated, an error at once in both libraries."""
    axes = numpy_axes(self, reduction_dims(dim, self.dim()))
    if dim is None or (not isinstance(dim, int) and not dim):
        counts = interruptible(np.count_nonzero, self._array, None, False,
                               combine=np.add.reduce, result=np.int64)  # fmt: skip
        return wrap_result(counts, dt.int64)
    not_zero = np.not_equal(self._array, 0)
    counts = interruptible(np.add.reduce, not_zero, axes, False, result=np.int64, dtype=np.int64)
    return wrap_result(counts, dt.int64)


count_nonzero = native_function(
    "count_nonzero(Tensor self, int? dim=None) -> Tensor",
    "count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor",
    kernel=_count_nonzero_kernel,
    kind=NONDIFFERENTIABLE,  # a count
    doc="``torch.count_nonzero``: how many elements are not zero, over ``dim``.",
)

r"""``take`` and ``put``: indexing a tensor as if it were flat (``TensorAdvancedIndexing.cpp``).

Each index is a position in the row-major order of ``self``'s elements, whatever its
strides, as if ``self`` were first ``reshape``\d to 1-D.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dtypes import int64
from ..tensor import Tensor
from .declaration import native_function
from .indexing_common import _clone_keeping_layout, _fresh, from_inplace
from .overload_kernels import Overlap, meta_then_impl, out_wrapper

__all__ = [
    "take",
    "put",
]


# --- take and put: indexing the tensor as if it were flat -------------------------------


def _check_long_index(fn_name: str, index: Tensor) -> None:
    if index._dtype is not int64:
        raise RuntimeError(
            f"{fn_name}(): Expected a long tensor for index, but got {index._dtype.scalar_name}"
        )


def _flat_positions(t: Tensor, index: Tensor) -> np.ndarray:
    """``index`` as positions into ``t`` read in row-major order (negative from the end)."""
    positions = index._array.reshape(-1)
    numel = t.numel()
    bad = (positions < -numel) | (positions >= numel)
    if bad.any():
        raise IndexError(
            f"out of range: tried to access index {int(positions[np.argmax(bad)])} on a tensor "
            f"of {numel} elements."
        )
    return np.where(positions < 0, positions + numel, positions)


def _flat_view(t: Tensor) -> np.ndarray:
    # A 0-d tensor is one element at position 0: a (1,) view of it takes the positions.
    return t._array if t._size else t._array.reshape(1)


def _check_take(self: Tensor, index: Tensor, *, out: Tensor | None = None) -> None:
    """``take_out``'s checks before it reads anything (with ``out``, its dtype too)."""
    _check_long_index("take", index)
    if out is not None and out._dtype is not self._dtype:
        raise RuntimeError(
            f"take(): self and out expected to have the same dtype, but got self.dtype = "
            f"{self._dtype.scalar_name} and out.dtype = {out._dtype.scalar_name}"
        )
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("take(): tried to take from an empty tensor")


def _take_meta(self: Tensor, index: Tensor) -> tuple:
    """``take``'s result: ``index``'s shape and ``self``'s dtype, row-major."""
    _check_take(self, index)
    return index._size, self._dtype


def _take_kernel(self: Tensor, index: Tensor) -> Tensor:
    _check_take(self, index)
    positions = _flat_positions(self, index)
    if not positions.size:
        return _fresh(np.empty(index._size, self._dtype.numpy), self._dtype)
    return _fresh(self._array.reshape(-1)[positions].reshape(index._size), self._dtype)


def _take_backward(grad: Tensor, saved) -> Tensor:
    # ``take_backward``: put-*accumulate* into zeros, so a position taken twice sums.
    zeros = saved.self.new_zeros(saved.self._size, dtype=grad.dtype)
    return put(zeros, saved.index, grad, True)


take = native_function(
    "take(Tensor self, Tensor index) -> Tensor",
    "take.out(Tensor self, Tensor index, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=meta_then_impl(_take_meta, _take_kernel),
    # ``out`` is written in index order from anywhere in ``self``: it may share memory
    # with neither ``index`` nor ``self``.
    kernels={
        "take.out": out_wrapper(
            _take_kernel,
            check_cast=False,
            checks=(_check_take, Overlap(internal=True, full=("index", "self"))),
            meta=_take_meta,
        )
    },
    derivative=Derivative("TakeBackward0", save=("self", "index"), grads={"self": _take_backward}),
    doc="``torch.take``: ``input`` read as 1-D (row-major), at the positions in ``index``.",
)


def _check_put(self, index, source, accumulate=False):
    """``put_``'s argument checks, in its order (types, counts, an empty ``self``)."""
    _check_long_index("put_", index)
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
    if self.numel() == 0 and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor")


def _write_put(self, index, source, accumulate=False):
    """``put_``: its checks, then the writes at flat positions."""
    _check_put(self, index, source, accumulate)
    positions = _flat_positions(self, index)
    # Unravel to coordinates so the write reaches a non-contiguous self in place.
    target = _flat_view(self)
    where = np.unravel_index(positions, target.shape)
    values = source._array.reshape(-1)
    if accumulate:
        np.add.at(target, where, values)
    else:
        target[where] = values  # a position named twice keeps the last value


def _put_self_grad(grad: Tensor, saved) -> Tensor:
    if saved.accumulate:
        return grad
    return put(grad, saved.index, grad.new_zeros(saved.source._size), False)


# put is ``self.clone().put_(...)``: a dense input keeps its layout.
put = native_function(
    "put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor",
    "put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> Tensor(a!)",
    # ``put_``: its argument checks, then whether ``self`` may be written and may share
    # memory with what it reads.
    kernel=from_inplace(
        _write_put,
        start=_clone_keeping_layout,
        meta_checks=_check_put,
        inplace_checks=(_check_put, Overlap(internal=True, full=("index", "source"))),
    ),
    derivative=Derivative(
        "PutBackward0",
        save=("index", "source", "accumulate"),
        grads={
            "self": _put_self_grad,
            "source": lambda grad, saved: take(grad, saved.index).reshape(saved.source._size),
        },
    ),
    doc="``torch.put``: a copy of ``input`` with ``source`` written at flat positions ``index``.",
)

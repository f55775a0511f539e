"""Masks: ``masked_fill``, ``masked_select``, ``masked_scatter`` (``TensorAdvancedIndexing.cpp``).

The mask broadcasts against ``self``; ``True`` positions are filled with a value, read
out into a 1-D result, or written from ``source`` in row-major order.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dtypes import BOOL, TYPEMETA_NAMES, uint8
from ..meta_device import check_same_device, empty_meta
from ..shape import broadcast_shapes, contiguous_strides, numel_of
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .creation import checked_scalar
from .declaration import native_function
from .indexing_common import _fresh, from_inplace
from .joining import cat
from .overload_kernels import Overlap, out_wrapper
from .shape_views import _expand_op

__all__ = [
    "masked_fill",
    "masked_select",
    "masked_scatter",
]


# --- masks: masked_fill, masked_select, masked_scatter ---------------------------------


def _check_masked_fill(self, mask, value):
    """``masked_fill__cpu``'s checks, in its order: a Tensor ``value`` must be 0-dim
    (checked before it is read as a number), then ``masked_fill_impl_cpu`` refuses a
    mask that is not bool."""
    if isinstance(value, Tensor) and value._size:
        raise RuntimeError(
            f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{len(value._size)} dimension(s)."
        )
    if mask._dtype.category != BOOL:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{TYPEMETA_NAMES[mask._dtype.name]}"
        )


def _check_masked_fill_shape(self, mask, value) -> None:
    """``masked_fill_``'s checks, then its iterator's: ``mask`` broadcasts to ``self``."""
    _check_masked_fill(self, mask, value)
    shape = broadcast_shapes(self._size, mask._size)
    if shape != self._size:
        raise RuntimeError(
            f"output with shape {list(self._size)} doesn't match the broadcast shape {list(shape)}"
        )


def _write_masked_fill(self, mask, value):
    _check_masked_fill_shape(self, mask, value)
    where = np.broadcast_to(mask._array, self._size)
    np.copyto(self._array, checked_scalar(value, self._dtype), where=where)


def _broadcast_with_mask(self: Tensor, mask: Tensor, *_value) -> Tensor:
    """What the functional form of a masked write starts from: a row-major copy of
    ``self`` broadcast against the mask (``expand_outplace(mask, self)`` then ``clone``:
    the mask is tensor "a" of a broadcast error)."""
    shape = broadcast_shapes(mask._size, self._size)
    if self.is_meta:
        return empty_meta(shape, contiguous_strides(shape), self._dtype)
    return _fresh(np.broadcast_to(self._array, shape), self._dtype)


def _masked_fill_start(self: Tensor, mask: Tensor, *_value) -> Tensor:
    """``masked_fill``'s copy of ``self``; with a meta tensor beside a CPU one, PyTorch's
    reference refuses the devices first (the mask's is the expected one)."""
    if self.is_meta or mask.is_meta:
        check_same_device((mask, self))
    return _broadcast_with_mask(self, mask)


def _zero_where_masked(grad: Tensor, saved) -> Tensor:
    # Filled positions no longer depend on ``self``.
    return grad.masked_fill(saved.mask, 0)


def _masked_fill_value_grad(grad: Tensor, saved) -> Tensor:
    # ``masked_fill_backward``: the one value reached every filled position.
    return grad.masked_select(saved.mask).sum()


masked_fill = native_function(
    "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
    "masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
    "masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
    "masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)",
    # ``masked_fill_``: the mask's dtype, then an expanded ``self`` is only deprecated and
    # the mask may be ``self``, not part of it; its iterator checks no overlap.
    kernel=from_inplace(
        _write_masked_fill,
        start=_masked_fill_start,
        meta_checks=_check_masked_fill_shape,
        inplace_checks=(
            _check_masked_fill,
            Overlap(partial=("mask",), deprecated_expanded="masked_fill_"),
        ),
    ),
    derivatives={
        "masked_fill.Scalar": Derivative("MaskedFillBackward0", complex=True, save=("mask",),
                                         grads={"self": _zero_where_masked}),
        "masked_fill.Tensor": Derivative("MaskedFillBackward1", complex=True, save=("mask",),
                                         grads={"self": _zero_where_masked,
                                                "value": _masked_fill_value_grad}),
    },
    doc="``torch.masked_fill``: ``value`` where ``mask`` (broadcast) is True, ``input`` "
    "elsewhere.",
)  # fmt: skip


def _check_masked_select(self: Tensor, mask: Tensor, *, out: Tensor | None = None) -> None:
    """``masked_select_out_impl_cpu``'s checks before it reads anything (with ``out``,
    its dtype too)."""
    if mask._dtype.category != BOOL:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if out is not None and out._dtype is not self._dtype:
        raise RuntimeError("masked_select(): self and result must have the same scalar type")


def _masked_select_kernel(self: Tensor, mask: Tensor) -> Tensor:
    _check_masked_select(self, mask)
    shape = broadcast_shapes(mask._size, self._size)
    values = np.broadcast_to(self._array, shape)[np.broadcast_to(mask._array, shape)]
    return _fresh(values, self._dtype)


def _masked_select_backward(grad: Tensor, saved) -> Tensor:
    """``masked_select_backward``: the gradients go back to the selected positions.

    Written into zeros of the broadcast shape; the engine sums it down to ``self``.
    """
    shape = broadcast_shapes(saved.self._size, saved.mask._size)
    return masked_scatter(grad.new_zeros(shape), saved.mask, grad)


masked_select = native_function(
    "masked_select(Tensor self, Tensor mask) -> Tensor",
    "masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_masked_select_kernel,
    kernels={"masked_select.out": out_wrapper(
        _masked_select_kernel, check_cast=False,
        checks=(_check_masked_select, Overlap(internal=True, full=("self", "mask"))),
    )},
    derivative=Derivative("MaskedSelectBackward0", complex=True, save=("self", "mask"),
                          grads={"self": _masked_select_backward}),
    doc="``torch.masked_select``: the elements where ``mask`` is True, as a 1-D tensor.",
)  # fmt: skip


def _check_masked_scatter(self, mask, source) -> Tensor:
    """``masked_scatter__cpu``'s checks in its order: the dtypes, the mask broadcast to
    ``self`` (``expand_inplace``: ``expand``'s errors), then the mask's dtype, which
    its kernel checks (after warning that a uint8 mask is deprecated); returns the
    broadcast mask. (Whether ``source`` has enough elements depends on the mask's values.)"""
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but got"
            f"{self._dtype.scalar_name} and {source._dtype.scalar_name}"
        )
    mask = _expand_op(mask, self._size)
    if mask._dtype is uint8:
        warn_at_user_code(
            "masked_scatter_ received a mask with dtype torch.uint8, this behavior is now "
            "deprecated,please use a mask with dtype torch.bool instead."
        )
    if mask._dtype.category != BOOL:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{mask._dtype.scalar_name}"
        )
    return mask


def _write_masked_scatter(self, mask, source):
    mask = _check_masked_scatter(self, mask, source)
    where = mask._array
    count = int(np.count_nonzero(where))
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    # Source elements are consumed in row-major order of self, whatever self's layout.
    self._array[where] = source._array.reshape(-1)[:count]


def _masked_scatter_source_grad(grad: Tensor, saved) -> Tensor:
    """``masked_scatter_backward``: source elements used, in order, then zeros for the rest."""

    used = masked_select(grad, saved.mask)
    unused = numel_of(saved.source_sym_sizes) - used.numel()
    if unused > 0:
        used = cat([used, grad.new_zeros(unused)])
    return used.view(saved.source_sym_sizes)


masked_scatter = native_function(
    "masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor",
    "masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)",
    # ``masked_scatter_`` refuses an expanded ``self`` before any other check; it lets
    # ``mask`` and ``source`` share memory with ``self``.
    kernel=from_inplace(
        _write_masked_scatter,
        start=_broadcast_with_mask,
        inplace_checks=Overlap(internal=True),
        meta_checks=_check_masked_scatter,
    ),
    derivative=Derivative(
        "MaskedScatterBackward0",
        complex=True,
        save=("mask", "source_sym_sizes"),
        grads={"self": _zero_where_masked, "source": _masked_scatter_source_grad},
    ),
    doc="``torch.masked_scatter``: where ``mask`` is True, the next element of ``source``.",
)

"""Masks: ``masked_fill``, ``masked_select``, ``masked_scatter`` (``TensorAdvancedIndexing.cpp``).

The mask broadcasts against ``self``; ``True`` positions are filled with a value, read
out into a 1-D result, or written from ``source`` in row-major order.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import FUNCTIONAL, INPLACE
from ..dtypes import BOOL, TYPEMETA_NAMES
from ..shape import broadcast_shapes, numel_of
from ..tensor import Tensor
from .indexing_common import (
    _FUNCTIONAL,
    _INPLACE,
    _check_scalar,
    _check_writable,
    _fresh,
    fill_value,
)
from .registry import bind_method, check_tensor, declare, declare_with_out

__all__ = [
    "masked_fill",
    "masked_select",
    "masked_scatter",
]


# --- masks: masked_fill, masked_select, masked_scatter ---------------------------------


def _write_masked_fill(self, mask, value):
    if mask._dtype.category != BOOL:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{TYPEMETA_NAMES[mask._dtype.name]}"
        )
    if isinstance(value, Tensor) and value._size:
        raise RuntimeError(
            f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{len(value._size)} dimension(s)."
        )
    shape = broadcast_shapes(self._size, mask._size)
    if shape != self._size:
        raise RuntimeError(
            f"output with shape {list(self._size)} doesn't match the broadcast shape {list(shape)}"
        )
    _check_writable(self)
    where = np.broadcast_to(mask._array, self._size)
    np.copyto(self._array, fill_value(value, self._dtype), where=where)


def _functional(write):
    """The out-of-place form of a masked write: a copy of ``self`` broadcast with the mask."""

    def kernel(self, mask, value):
        shape = broadcast_shapes(self._size, mask._size)
        result = _fresh(np.broadcast_to(self._array, shape), self._dtype)
        write(result, mask, value)
        return result

    return kernel


def _inplace(write):
    """The in-place form of a masked write: ``self`` itself, written."""

    def kernel(self, mask, value):
        write(self, mask, value)
        return self

    return kernel


_masked_fill_functional = _functional(_write_masked_fill)
_masked_fill_inplace = _inplace(_write_masked_fill)


def _zero_where_masked(grad: Tensor, saved) -> Tensor:
    # Filled positions no longer depend on ``self``.
    return grad.masked_fill(saved.mask, 0)


def _masked_fill_value_grad(grad: Tensor, saved) -> Tensor:
    # ``masked_fill_backward``: the one value reached every filled position.
    return grad.masked_select(saved.mask).sum()


_MASKED_FILL_DERIVATIVES = {
    "Scalar": Derivative("MaskedFillBackward0", save=("mask",),
                         grads={"self": _zero_where_masked}),
    "Tensor": Derivative("MaskedFillBackward1", save=("mask",),
                         grads={"self": _zero_where_masked, "value": _masked_fill_value_grad}),
}  # fmt: skip
_MASKED_FILL_OPS = {
    overload: (
        declare(f"masked_fill.{overload}(Tensor self, Tensor mask, {kind} value) -> Tensor",
                FUNCTIONAL, _masked_fill_functional, _MASKED_FILL_DERIVATIVES[overload]),
        declare(f"masked_fill_.{overload}(Tensor(a!) self, Tensor mask, {kind} value) "
                "-> Tensor(a!)", INPLACE, _masked_fill_inplace,
                _MASKED_FILL_DERIVATIVES[overload]),
    )
    for overload, kind in (("Scalar", "Scalar"), ("Tensor", "Tensor"))
}  # fmt: skip


def _masked_fill_call(variant: int, fn_name: str, input, mask, value):
    check_tensor(fn_name, mask, "mask", 2)
    if isinstance(value, Tensor):
        overload = "Tensor"
    else:
        _check_scalar(fn_name, value, "value", 3)
        overload = "Scalar"
    return _MASKED_FILL_OPS[overload][variant](input, mask, value)


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``torch.masked_fill``: ``value`` where ``mask`` (broadcast) is True, ``input`` elsewhere."""
    check_tensor("masked_fill", input, "input", 1)
    return _masked_fill_call(_FUNCTIONAL, "masked_fill", input, mask, value)


def _masked_select_kernel(self: Tensor, mask: Tensor) -> Tensor:
    if mask._dtype.category != BOOL:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask._size, self._size)
    values = np.broadcast_to(self._array, shape)[np.broadcast_to(mask._array, shape)]
    return _fresh(values, self._dtype)


def _masked_select_backward(grad: Tensor, saved) -> Tensor:
    """``masked_select_backward``: the gradients go back to the selected positions.

    Written into zeros of the broadcast shape; the engine sums it down to ``self``.
    """
    shape = broadcast_shapes(saved.self._size, saved.mask._size)
    return _masked_scatter_op(grad.new_zeros(shape), saved.mask, grad)


_masked_select_op, _masked_select_out_op = declare_with_out(
    "masked_select(Tensor self, Tensor mask) -> Tensor",
    _masked_select_kernel,
    Derivative("MaskedSelectBackward0", save=("self", "mask"),
               grads={"self": _masked_select_backward}),
)  # fmt: skip


def masked_select(input: Tensor, mask: Tensor, *, out=None) -> Tensor:
    """``torch.masked_select``: the elements where ``mask`` is True, as a 1-D tensor."""
    check_tensor("masked_select", input, "input", 1)
    check_tensor("masked_select", mask, "mask", 2)
    if out is None:
        return _masked_select_op(input, mask)
    return _masked_select_out_op(input, mask, out=out)


def _write_masked_scatter(self, mask, source):
    if mask._dtype.category != BOOL:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{mask._dtype.scalar_name}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but got"
            f"{self._dtype.scalar_name} and {source._dtype.scalar_name}"
        )
    shape = broadcast_shapes(self._size, mask._size)
    if shape != self._size:
        raise RuntimeError(
            f"output with shape {list(self._size)} doesn't match the broadcast shape {list(shape)}"
        )
    _check_writable(self)
    where = np.broadcast_to(mask._array, self._size)
    count = int(np.count_nonzero(where))
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    # Source elements are consumed in row-major order of self, whatever self's layout.
    self._array[where] = source._array.reshape(-1)[:count]


_masked_scatter_functional = _functional(_write_masked_scatter)
_masked_scatter_inplace = _inplace(_write_masked_scatter)


def _masked_scatter_source_grad(grad: Tensor, saved) -> Tensor:
    """``masked_scatter_backward``: source elements used, in order, then zeros for the rest."""
    from .joining import cat

    used = _masked_select_op(grad, saved.mask)
    unused = numel_of(saved.source_sym_sizes) - used.numel()
    if unused > 0:
        used = cat([used, grad.new_zeros(unused)])
    return used.view(saved.source_sym_sizes)


_MASKED_SCATTER_DERIVATIVE = Derivative(
    "MaskedScatterBackward0",
    save=("mask", "source_sym_sizes"),
    grads={"self": _zero_where_masked, "source": _masked_scatter_source_grad},
)
_masked_scatter_op = declare("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor",
                             FUNCTIONAL, _masked_scatter_functional,
                             _MASKED_SCATTER_DERIVATIVE)  # fmt: skip
_masked_scatter_inplace_op = declare(
    "masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)",
    INPLACE,
    _masked_scatter_inplace,
    _MASKED_SCATTER_DERIVATIVE,
)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``torch.masked_scatter``: where ``mask`` is True, the next element of ``source``."""
    check_tensor("masked_scatter", input, "input", 1)
    check_tensor("masked_scatter", mask, "mask", 2)
    check_tensor("masked_scatter", source, "source", 3)
    return _masked_scatter_op(input, mask, source)


bind_method("masked_fill", lambda self, mask, value: masked_fill(self, mask, value))
bind_method("masked_fill_", lambda self, mask, value: _masked_fill_call(
    _INPLACE, "masked_fill_", self, mask, value))  # fmt: skip
bind_method("masked_select", lambda self, mask, *, out=None: masked_select(self, mask, out=out))
bind_method("masked_scatter", lambda self, mask, source: masked_scatter(self, mask, source))


def _masked_scatter_(self, mask, source):
    check_tensor("masked_scatter_", mask, "mask", 1)
    check_tensor("masked_scatter_", source, "source", 2)
    return _masked_scatter_inplace_op(self, mask, source)


bind_method("masked_scatter_", _masked_scatter_)

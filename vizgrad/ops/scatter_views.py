"""The ``*_scatter`` operators: a copy of ``self`` with one view of it replaced (``TensorShape.cpp``).

``select_scatter``, ``slice_scatter``, ``diagonal_scatter`` and ``as_strided_scatter``
are the functional inverses of the views ``select``, ``slice`` (``x[a:b:c]``),
``diagonal`` and ``as_strided``: where ``x.select(0, 1).copy_(src)`` writes into
``x``, ``x.select_scatter(src, 0, 1)`` returns a new tensor that is ``x`` with that
part replaced by ``src``, and leaves ``x`` alone. They are how PyTorch's
functionalization (``torch.compile``) rewrites writes through views into ops without
mutation, and a view's backward is exactly one of them: ``select``'s gradient is
``select_scatter`` of the gradient into zeros.

Each is three steps, as in PyTorch: copy ``self`` keeping its strides and offset
(``clone_preserve_strides``), take the view of the copy, and copy ``src`` into it
(``src`` must have the view's shape; its dtype is converted as ``copy_`` does).
"""

from __future__ import annotations

from ..derivatives import Derivative
from ..memory_overlap import MemOverlap, has_internal_overlap
from ..meta_device import empty_meta
from ..tensor import Tensor
from .copy import _copy_, clone
from .declaration import native_function
from .overload_kernels import out_wrapper
from .parts import (
    _diagonal_geometry,
    _diagonal_op,
    _select_geometry,
    _select_op,
    _slice_geometry,
    _slice_op,
)
from .shape_views import as_strided

__all__ = [
    "select_scatter",
    "slice_scatter",
    "diagonal_scatter",
    "as_strided_scatter",
]


def clone_preserving_strides(self: Tensor) -> Tensor:
    """``clone_preserve_strides``: a copy with ``self``'s strides and storage offset.

    The whole storage is copied and the copy viewed as ``self`` is, so that any view
    of ``self`` (an ``as_strided`` reaching outside it too) has its twin in the copy.
    A tensor whose elements share memory (expanded) cannot be written element by
    element; it gets a plain ``clone`` instead.
    """
    if has_internal_overlap(self) is MemOverlap.YES:
        return clone(self)
    if self.is_meta:  # a meta storage as big, viewed alike
        storage = empty_meta((self._storage.nbytes() // self._dtype.itemsize,), (1,), self._dtype)
        return storage._alias(self._size, self._stride, self._offset)
    storage_copy = Tensor._from_array(self._storage.data.copy(), self._dtype)
    return storage_copy._alias(self._size, self._stride, self._offset)


def _check_src_size(src: Tensor, view_size) -> None:
    if src._size != tuple(view_size):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src._size)}, slice size = {list(view_size)}"
        )


def _scatter_into_view(self: Tensor, src: Tensor, take_view) -> Tensor:
    """A copy of ``self`` (strides kept) whose part ``take_view`` reads holds ``src``."""
    output = clone_preserving_strides(self)
    part = take_view(output)
    _check_src_size(src, part._size)
    if output.is_meta:  # nothing to copy
        return output
    _copy_(part, src)
    return output


# --- select_scatter, slice_scatter, diagonal_scatter --------------------------------------


def _select_scatter_kernel(self: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    return _scatter_into_view(self, src, lambda t: _select_op(t, dim, index))


def _without_the_view(grad: Tensor, view_size, scatter, *args) -> Tensor:
    """The gradient of ``self`` in a ``*_scatter``: ``grad`` with the replaced part zeroed
    (``scatter(grad, zeros_like(src), ...)``: ``src`` has the view's shape)."""
    return scatter(grad, grad.new_zeros(view_size), *args)


select_scatter = native_function(
    "select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor",
    kernel=_select_scatter_kernel,
    derivative=Derivative(
        "SelectScatterBackward0",
        save=("dim", "index"),
        grads={
            "self": lambda grad, s: _without_the_view(
                grad, _select_geometry(grad, s.dim, s.index)[0], select_scatter, s.dim, s.index
            ),
            "src": lambda grad, s: _select_op(grad, s.dim, s.index),
        },
    ),
    doc="""``torch.select_scatter``: a copy of ``input`` with ``input.select(dim, index)``
    replaced by ``src`` (which has that view's shape).""",
)


def _slice_scatter_kernel(self: Tensor, src: Tensor, dim: int = 0, start=None, end=None,
                          step: int = 1) -> Tensor:  # fmt: skip
    return _scatter_into_view(self, src, lambda t: _slice_op(t, dim, start, end, step))


def _slice_scatter_meta(self: Tensor, src: Tensor, dim: int = 0, start=None, end=None,
                        step: int = 1) -> tuple:  # fmt: skip
    """What the ``out=`` overload resizes ``out`` to: ``self``'s shape, once ``src`` was
    checked against the slice."""
    _check_src_size(src, _slice_geometry(self, dim, start, end, step)[0])
    return self._size, self._dtype


def _slice_scatter_self_grad(grad: Tensor, s) -> Tensor:
    view_size = _slice_geometry(grad, s.dim, s.start, s.end, s.step)[0]
    return _without_the_view(grad, view_size, slice_scatter, s.dim, s.start, s.end, s.step)


# PyTorch's Python binding has an out= form for this one (not for the other three).
slice_scatter = native_function(
    "slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, "
    "SymInt step=1) -> Tensor",
    "slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, "
    "SymInt step=1, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_slice_scatter_kernel,
    # Its out= kernel is generated: the result, then ``out`` resized, then copied into
    # it if it has the result's dtype.
    kernels={
        "slice_scatter.out": out_wrapper(
            _slice_scatter_kernel, exact_dtype=True, meta=_slice_scatter_meta
        )
    },  # fmt: skip
    derivative=Derivative(
        "SliceScatterBackward0",
        save=("dim", "start", "end", "step"),
        grads={
            "self": _slice_scatter_self_grad,
            "src": lambda grad, s: _slice_op(grad, s.dim, s.start, s.end, s.step),
        },
    ),
    doc="""``torch.slice_scatter``: a copy of ``input`` with ``input[..., start:end:step, ...]``
    (along ``dim``) replaced by ``src``.""",
)


def _diagonal_scatter_kernel(self: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,
                             dim2: int = 1) -> Tensor:  # fmt: skip
    return _scatter_into_view(self, src, lambda t: _diagonal_op(t, offset, dim1, dim2))


def _diagonal_scatter_self_grad(grad: Tensor, s) -> Tensor:
    view_size = _diagonal_geometry(grad, s.offset, s.dim1, s.dim2)[0]
    return _without_the_view(grad, view_size, diagonal_scatter, s.offset, s.dim1, s.dim2)


diagonal_scatter = native_function(
    "diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor",
    kernel=_diagonal_scatter_kernel,
    derivative=Derivative(
        "DiagonalScatterBackward0",
        complex=True,
        save=("offset", "dim1", "dim2"),
        grads={
            "self": _diagonal_scatter_self_grad,
            "src": lambda grad, s: _diagonal_op(grad, s.offset, s.dim1, s.dim2),
        },
    ),
    doc="""``torch.diagonal_scatter``: a copy of ``input`` with its ``diagonal(offset, dim1,
    dim2)`` replaced by ``src``.""",
)


# --- as_strided_scatter ---------------------------------------------------------------------


def _as_strided_scatter_kernel(self: Tensor, src: Tensor, size, stride,
                               storage_offset=None) -> Tensor:  # fmt: skip
    # PyTorch's backward (below) assumes a contiguous ``self``, and asserts it.
    if self.requires_grad and not self.is_contiguous():
        raise RuntimeError(
            "!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at "
            '"aten/src/ATen/native/TensorShape.cpp", please report a bug to PyTorch. '
            "as_strided_scatter is currently only supported for contiguous inputs"
        )
    return _scatter_into_view(self, src, lambda t: as_strided(t, size, stride, storage_offset))


def _as_strided_scatter_self_grad(grad: Tensor, s) -> Tensor:
    """PyTorch's ``as_strided_scatter_backward``, as it is: the gradient *inside* the
    scattered part, zeros elsewhere.

    The true gradient is the opposite (the part was overwritten, so it is the rest of
    ``self`` that reaches the result): PyTorch's formula is wrong, and its own gradient
    tests expect this one to fail. vizgrad gives PyTorch's values, so the two agree.
    """
    grad = grad.contiguous()
    result = grad.new_zeros(s.self_sym_sizes)
    part = as_strided(result, s.size, s.stride, s.storage_offset)
    part.copy_(as_strided(grad, s.size, s.stride, s.storage_offset))
    return result


as_strided_scatter = native_function(
    "as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, "
    "SymInt? storage_offset=None) -> Tensor",
    kernel=_as_strided_scatter_kernel,
    derivative=Derivative(
        "AsStridedScatterBackward0",
        complex=True,
        save=("self_sym_sizes", "size", "stride", "storage_offset"),
        grads={
            "self": _as_strided_scatter_self_grad,
            "src": lambda grad, s: as_strided(grad.contiguous(), s.size, s.stride,
                                              s.storage_offset),
        },
    ),
    doc="""``torch.as_strided_scatter``: a copy of ``input`` with ``input.as_strided(size,
    stride, storage_offset)`` replaced by ``src``.""",
)  # fmt: skip

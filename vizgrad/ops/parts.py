"""Views of a part: ``select``, ``slice``, ``narrow``, ``diagonal``… (``TensorShape.cpp``).

Each picks some of its input's elements and reads them in place: the offset moves to
the first one, the strides step over the rest. ``select`` takes one index of a dim,
``slice`` (``x[a:b:c]``) and ``narrow`` a range of it, ``diagonal`` the elements
``[i, i + offset]`` of two dims, ``unfold`` sliding windows (which may overlap).

The backward of a part is zeros of the input's shape with the gradient written into
the part the view read (``zeros_with_grad_in_view``); ``unfold``'s overlapping windows
add their gradients up instead (``as_strided_backward``). ``splitting`` builds
``unbind``, ``split`` and ``chunk`` on these.
"""

from __future__ import annotations

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import INTEGRAL
from ..shape import contiguous_strides, wrap_dim
from ..tensor import Tensor
from .declaration import native_function
from .shape_views import as_strided_backward
from .view_common import metadata_view

__all__ = [
    "narrow",
    "select",
    "diagonal",
]


INT64_MAX = 2**63 - 1  # what PyTorch passes to ``slice`` for an open end (``x[1:]``)


# --- slice, narrow, select: picking parts of one dim ------------------------------------


def _slice_geometry(self: Tensor, dim: int = 0, start=None, end=None, step: int = 1):
    """``slice.Tensor``: Python-style clamped bounds; the offset moves to ``start``."""
    n = len(self._size)
    if n == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if not 0 <= dim < n:  # a dim in range, the common case, needs no wrapping
        dim = wrap_dim(dim, n)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    length = self._size[dim]
    start = 0 if start is None else start
    end = INT64_MAX if end is None else end
    if start < 0:
        start += length
    if end < 0:
        end += length
    start = min(max(start, 0), length)
    end = min(max(end, start), length)
    size, stride = list(self._size), list(self._stride)
    size[dim] = (end - start + step - 1) // step
    stride[dim] *= step
    return size, stride, self._offset + start * self._stride[dim]


def zeros_with_grad_in_view(grad: Tensor, input_sizes, take_view) -> Tensor:
    """The backward of a view that reads each input element at most once.

    Zeros of the input's shape, with ``grad`` written into the part the view read:
    PyTorch's ``select_backward``, ``slice_backward`` and ``diagonal_backward`` are
    exactly this (``zeros``, the same view, ``copy_``). Elements the view skipped get
    no gradient.
    """
    grad_input = grad.new_zeros(input_sizes)
    take_view(grad_input).copy_(grad)
    return grad_input


# ``x[a:b:c]`` (PyTorch gives ``slice`` no Python binding: indexing and ``narrow`` call it).
_slice_op = native_function(
    "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
    "SymInt step=1) -> Tensor(a)",
    kernel=metadata_view(_slice_geometry),
    derivative=Derivative(
        "SliceBackward0",
        save=("self_sym_sizes", "dim", "start", "end", "step"),
        grads={
            "self": lambda grad, s: zeros_with_grad_in_view(
                grad, s.self_sym_sizes, lambda t: _slice_op(t, s.dim, s.start, s.end, s.step)
            )
        },
        complex=True,
    ),
    variants="function",
).overloads["slice.Tensor"]


def _select_geometry(self: Tensor, dim: int, index: int):
    """``select.int``: drop ``dim``; the offset moves to element ``index`` along it."""
    sizes, strides = self._size, self._stride
    if not sizes:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    if not 0 <= dim < len(sizes):  # a dim in range, the common case, needs no wrapping
        dim = wrap_dim(dim, len(sizes))
    size = sizes[dim]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(sizes)} at "
            f"dimension {dim}"
        )
    if index < 0:
        index += size
    offset = self._offset + index * strides[dim]
    return sizes[:dim] + sizes[dim + 1 :], strides[:dim] + strides[dim + 1 :], offset


select = native_function(
    "select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)",
    kernel=metadata_view(_select_geometry),
    derivative=Derivative(
        "SelectBackward0",
        save=("self_sym_sizes", "dim", "index"),
        grads={
            "self": lambda grad, s: zeros_with_grad_in_view(
                grad, s.self_sym_sizes, lambda t: _select_op(t, s.dim, s.index)
            )
        },
        complex=True,
    ),
    doc="``torch.select``: one index along ``dim``; the result has one dim fewer.",
)
_select_op = select.overloads["select.int"]


def _narrow_kernel(input: Tensor, dim: int, start, length: int) -> Tensor:
    if len(input._size) == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    n = len(input._size)
    size = input._size[dim if 0 <= dim < n else wrap_dim(dim, n)]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice_op(input, dim, start, start + length, 1)


def _narrow_tensor_kernel(input: Tensor, dim: int, start: Tensor, length: int) -> Tensor:
    """``narrow.Tensor``: ``start`` given as a 0-dim integer tensor; its value is used."""
    if start.dim() != 0 or start._dtype.category != INTEGRAL:
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    return _narrow_op(input, dim, int(start.item()), length)


# The parser tries ``narrow.Tensor`` first, as PyTorch's does: a 0-dim integer tensor
# would pass for an ``int`` too.
narrow = native_function(
    "narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
    "narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length) -> Tensor(a)",
    kernels={"narrow": _narrow_kernel, "narrow.Tensor": _narrow_tensor_kernel},
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.narrow``: ``length`` elements from ``start`` along ``dim`` (a ``slice``).",
)
_narrow_op = narrow.overloads["narrow"]


def _diagonal_geometry(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1):
    n = len(self._size)
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size1, size2 = self._size[d1], self._size[d2]
    if offset >= 0:
        diag_size = max(min(size1, size2 - offset), 0)
    else:
        diag_size = max(min(size1 + offset, size2), 0)
    storage_offset = self._offset
    if diag_size > 0:  # an empty diagonal "off the end" keeps the offset sane
        if offset >= 0:
            storage_offset += offset * self._stride[d2]
        else:
            storage_offset -= offset * self._stride[d1]
    keep = [d for d in range(n) if d not in (d1, d2)]
    sizes = [self._size[d] for d in keep] + [diag_size]
    strides = [self._stride[d] for d in keep] + [self._stride[d1] + self._stride[d2]]
    return sizes, strides, storage_offset


diagonal = native_function(
    "diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
    kernel=metadata_view(_diagonal_geometry),
    derivative=Derivative(
        "DiagonalBackward0",
        save=("self_sym_sizes", "offset", "dim1", "dim2"),
        grads={
            "self": lambda grad, s: zeros_with_grad_in_view(
                grad, s.self_sym_sizes, lambda t: _diagonal_op(t, s.offset, s.dim1, s.dim2)
            )
        },
        complex=True,
    ),
    doc="""``torch.diagonal``: the elements ``[i, i + offset]`` of two dims, as one new last dim.

    Its stride is ``stride[dim1] + stride[dim2]``: one step down and one step right.
    """,
)
_diagonal_op = diagonal.overloads["diagonal"]


def _unfold_geometry(self: Tensor, dimension: int, size: int, step: int):
    """``unfold``: windows of ``size`` every ``step`` along a dim, as a new last dim."""
    return unfold_geometry(self._size, self._stride, self._offset, dimension, size, step)


def unfold_geometry(in_size, in_stride, in_offset, dimension: int, size: int, step: int):
    """``unfold``'s size, stride and offset, from the input's (pure arithmetic)."""
    n = len(in_size)
    dim = wrap_dim(dimension, n)
    max_size = in_size[dim] if n else 1
    if size > max_size:
        raise RuntimeError(
            f"maximum size for tensor at dimension {dim} is {max_size} but size is {size}"
        )
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    sizes, strides = list(in_size), list(in_stride)
    if n:
        sizes[dim] = (in_size[dim] - size) // step + 1
        strides[dim] = step * in_stride[dim]
    sizes.append(size)
    strides.append(in_stride[dim] if n else 1)
    return sizes, strides, in_offset


def _unfold_grad(grad: Tensor, s) -> Tensor:
    """Windows may overlap (``step < size``): an element read by several gets their sum.

    The windows' geometry over a contiguous input says which input element each
    window element read; ``as_strided_backward`` adds the gradients back there.
    """
    sizes = tuple(s.self_sym_sizes)
    geometry = (sizes, contiguous_strides(sizes), 0)
    windows = unfold_geometry(*geometry, s.dimension, s.size, s.step)
    return as_strided_backward(grad, geometry, windows)


native_function(
    "unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)",
    kernel=metadata_view(_unfold_geometry),
    derivative=Derivative(
        "UnfoldBackward0",
        save=("self_sym_sizes", "dimension", "size", "step"),
        grads={"self": _unfold_grad},
    ),
    variants="method",
    doc="``Tensor.unfold``: sliding windows as a view (windows overlap when ``step < size``).",
)

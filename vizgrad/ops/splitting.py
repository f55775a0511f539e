"""Several views at once: ``unbind``, ``split``, ``chunk``, ``tensor_split`` (``TensorShape.cpp``).

Each returns a tuple of views of its input, cut along one dimension: ``unbind``
``select``s every index, the ``split`` family and ``chunk`` ``narrow`` into pieces.
The pieces share their input's storage, so the gradient of each piece flows back into
its part of the input.
"""

from __future__ import annotations

import operator

from ..derivatives import Derivative
from ..dispatcher import VIEW
from ..shape import wrap_dim
from ..tensor import Tensor
from .parts import _select_geometry, _slice_geometry, _slice_op
from .registry import bind_method, check_tensor, declare
from .view_common import _int_tuple, _is_int, composite

__all__ = [
    "unbind",
    "split",
    "split_with_sizes",
    "chunk",
    "tensor_split",
]


# --- unbind, split, chunk: several views at once ----------------------------------------


def _unbind_kernel(self: Tensor, dim: int = 0):
    if self.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(dim, self.dim())
    return tuple(self._alias(*_select_geometry(self, dim, i)) for i in range(self._size[dim]))


def _check_splittable(self: Tensor) -> None:
    if self.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")


def _split_kernel(self: Tensor, split_size: int, dim: int = 0):
    _check_splittable(self)
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}"
        )
    dim = wrap_dim(dim, self.dim())
    dim_size = self._size[dim]
    if split_size == 0 and dim_size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}"
        )
    count = max(-(-dim_size // split_size), 1) if split_size else 1
    return tuple(
        self._alias(
            *_slice_geometry(self, dim, i * split_size, min((i + 1) * split_size, dim_size))
        )
        for i in range(count)
    )


def _split_with_sizes_kernel(self: Tensor, split_sizes, dim: int = 0):
    _check_splittable(self)
    dim = wrap_dim(dim, self.dim())
    if any(s < 0 for s in split_sizes):
        raise RuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={list(split_sizes)}"
        )
    dim_size = self._size[dim]
    if sum(split_sizes) != dim_size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {dim_size} (input tensor's "
            f"size at dimension {dim}), but got split_sizes={list(split_sizes)}"
        )
    pieces, start = [], 0
    for length in split_sizes:
        pieces.append(self._alias(*_slice_geometry(self, dim, start, start + length)))
        start += length
    return tuple(pieces)


def _join_grads(joiner):
    """Backward of an op returning several views: join the pieces' gradients again.

    Pieces that got no gradient arrive as zeros (``multi_output``), as in PyTorch's
    ``unbind_backward``/``split_backward``.
    """
    import vizgrad as vg

    return lambda grads, saved: getattr(vg, joiner)(list(grads), saved.dim)


_unbind_op = declare(
    "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    VIEW,
    _unbind_kernel,
    Derivative(
        "UnbindBackward0", save=("dim",), grads={"self": _join_grads("stack")}, multi_output=True
    ),  # fmt: skip
)
_split_op = declare(
    "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    VIEW,
    _split_kernel,
    Derivative(
        "SplitBackward0",
        save=("self_sym_sizes", "split_size", "dim"),
        grads={"self": _join_grads("cat")},
        multi_output=True,
    ),
)
_split_with_sizes_op = declare(
    "split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]",
    VIEW,
    _split_with_sizes_kernel,
    Derivative(
        "SplitWithSizesBackward0",
        save=("self_sym_sizes", "split_sizes", "dim"),
        grads={"self": _join_grads("cat")},
        multi_output=True,
    ),
)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """``torch.unbind``: every index along ``dim``, as a tuple of ``select`` views."""
    check_tensor("unbind", input, "input", 1)
    return _unbind_op(input, operator.index(dim))


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple[Tensor, ...]:
    """``torch.split``: pieces of ``split_size`` (the last may be smaller), or of listed sizes."""
    check_tensor("split", tensor, "tensor", 1)
    if _is_int(split_size_or_sections):
        return _split_op(tensor, operator.index(split_size_or_sections), operator.index(dim))
    sizes = _int_tuple("split_with_sizes", "split_sizes", split_size_or_sections)
    return _split_with_sizes_op(tensor, sizes, operator.index(dim))


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple[Tensor, ...]:
    check_tensor("split_with_sizes", input, "input", 1)
    sizes = _int_tuple("split_with_sizes", "split_sizes", split_sizes)
    return _split_with_sizes_op(input, sizes, operator.index(dim))


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``torch.chunk``: about ``chunks`` equal pieces, all of ``ceil(size / chunks)`` but the last.

    May return fewer than ``chunks`` pieces (6 elements in 4 chunks are 3 pieces of 2).
    """
    check_tensor("chunk", input, "input", 1)
    return _chunk_op(input, operator.index(chunks), operator.index(dim))


def _chunk_kernel(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if input.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim_size = input.size(dim)
    split_size = -(-dim_size // chunks)
    if split_size == 0 and dim_size == 0:
        # ``split`` would lose the number of chunks: ask for that many empty pieces.
        return _split_with_sizes_op(input, (0,) * chunks, dim)
    return _split_op(input, split_size, dim)


_chunk_op = composite("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
                      _chunk_kernel)  # fmt: skip


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple[Tensor, ...]:
    """``torch.tensor_split``: ``n`` nearly equal sections, or cuts before the given indices."""
    check_tensor("tensor_split", input, "input", 1)
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = (
            indices_or_sections.item() if indices_or_sections.dim() == 0
            else indices_or_sections.tolist()
        )  # fmt: skip
    dim = operator.index(dim)
    if _is_int(indices_or_sections):
        return _tensor_split_sections_op(input, operator.index(indices_or_sections), dim)
    indices = _int_tuple("tensor_split", "indices", indices_or_sections)
    return _tensor_split_indices_op(input, indices, dim)


def _check_tensor_split(input: Tensor, dim: int) -> int:
    if input.dim() == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    return wrap_dim(dim, input.dim())


def _tensor_split_sections_kernel(input: Tensor, sections: int, dim: int = 0):
    dim = _check_tensor_split(input, dim)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    # The first ``size % sections`` pieces get one element more.
    smallest, extra = divmod(input._size[dim], sections)
    pieces, start = [], 0
    for i in range(sections):
        size = smallest + (1 if i < extra else 0)
        pieces.append(_slice_op(input, dim, start, start + size, 1))
        start += size
    return tuple(pieces)


def _tensor_split_indices_kernel(input: Tensor, indices, dim: int = 0):
    dim = _check_tensor_split(input, dim)
    bounds = zip((0, *indices), (*indices, input._size[dim]), strict=True)
    return tuple(_slice_op(input, dim, start, end, 1) for start, end in bounds)


_tensor_split_sections_op = composite(
    "tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]",
    _tensor_split_sections_kernel,
)
_tensor_split_indices_op = composite(
    "tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]",
    _tensor_split_indices_kernel,
)


bind_method("unbind", unbind)
bind_method("split", split)
bind_method("split_with_sizes", split_with_sizes)
bind_method("chunk", chunk)
bind_method("tensor_split", tensor_split)

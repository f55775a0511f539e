"""Several views at once: ``unbind``, ``split``, ``chunk``, ``tensor_split``… (``TensorShape.cpp``).

Each returns a tuple of views of its input, cut along one dimension: ``unbind``
``select``s every index, the ``split`` family and ``chunk`` ``narrow`` into pieces,
``tensor_split`` (and NumPy's ``hsplit``, ``vsplit``, ``dsplit``, made of it) ``slice``s.
The pieces share their input's storage, so the gradient of each piece flows back into
its part of the input.

The ``unsafe_`` twins (``unsafe_split``, ``unsafe_chunk``) cut the same pieces, but
autograd does not know them as views: each has a version counter of its own, so it
may be written in place without touching its input's graph. The recurrent cells use
them to squash each gate in place (``RNN.cpp``); writing one piece changes the input
too, which is why they are "unsafe".
"""

from __future__ import annotations

import contextlib

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import int64
from ..shape import wrap_dim
from ..tensor import Tensor, define_method
from .declaration import native_function
from .joining import cat, stack
from .parts import _select_geometry, _slice_geometry, _slice_op

__all__ = [
    "unbind",
    "split",
    "split_with_sizes",
    "chunk",
    "tensor_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "unsafe_split",
    "unsafe_split_with_sizes",
    "unsafe_chunk",
]


# --- unbind, split, chunk: several views at once ----------------------------------------


def _unbind_kernel(self: Tensor, dim: int = 0):
    dim = wrap_dim(dim, len(self._size))
    # ``self.size(dim)``: a 0-d tensor has no dim to take apart.
    return tuple(self._alias(*_select_geometry(self, dim, i)) for i in range(self.size(dim)))


def _check_splittable(self: Tensor) -> None:
    if len(self._size) == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")


def _split_kernel(self: Tensor, split_size: int, dim: int = 0):
    _check_splittable(self)
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}"
        )
    dim = wrap_dim(dim, len(self._size))
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
    dim = wrap_dim(dim, len(self._size))
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
    return lambda grads, saved: joiner(list(grads), saved.dim)


unbind = native_function(
    "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    kernel=_unbind_kernel,
    derivative=Derivative(
        "UnbindBackward0",
        save=("dim",),
        grads={"self": _join_grads(stack)},
        multi_output=True,
        complex=True,
    ),
    doc="``torch.unbind``: every index along ``dim``, as a tuple of ``select`` views.",
)

split_with_sizes = native_function(
    "split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]",
    kernel=_split_with_sizes_kernel,
    derivative=Derivative(
        "SplitWithSizesBackward0",
        save=("self_sym_sizes", "split_sizes", "dim"),
        grads={"self": _join_grads(cat)},
        multi_output=True,
        complex=True,
    ),
    doc="``torch.split_with_sizes``: pieces of the listed sizes along ``dim``.",
)
_split_with_sizes_op = split_with_sizes.overloads["split_with_sizes"]

# ``torch._VF.split``: ``Tensor.split`` and ``torch.split`` (below) call it for an int
# size; the ``split.sizes`` overload is ``split_with_sizes`` under this name.
_split = native_function(
    "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]",
    kernels={"split.Tensor": _split_kernel, "split.sizes": _split_with_sizes_op},
    derivatives={
        "split.Tensor": Derivative(
            "SplitBackward0",
            save=("self_sym_sizes", "split_size", "dim"),
            grads={"self": _join_grads(cat)},
            multi_output=True,
            complex=True,
        )
    },
    kinds={"split.sizes": COMPOSITE_IMPLICIT},
    variants="function",
)
_split_op = _split.overloads["split.Tensor"]


def _split_method(self: Tensor, split_size, dim=0) -> tuple[Tensor, ...]:
    """``Tensor.split``: pieces of ``split_size`` (the last may be smaller), or of listed sizes.

    PyTorch writes this method in Python (``torch/_tensor.py``): an int (or a
    one-element tensor) goes to ``split``, anything else to ``split_with_sizes``.
    """
    if isinstance(split_size, Tensor):
        with contextlib.suppress(ValueError):
            split_size = int(split_size)
    if isinstance(split_size, int):
        return _split(self, split_size, dim)
    return split_with_sizes(self, split_size, dim)


def split(tensor: Tensor, split_size_or_sections, dim=0) -> tuple[Tensor, ...]:
    """``torch.split``: ``tensor.split(split_size_or_sections, dim)``.

    Written in Python by PyTorch too (``torch/functional.py``).
    """
    return tensor.split(split_size_or_sections, dim)


define_method("split", _split_method)


def _chunk_kernel(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if len(input._size) == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim_size = input._size[wrap_dim(dim, len(input._size))]
    split_size = -(-dim_size // chunks)
    if split_size == 0 and dim_size == 0:
        # ``split`` would lose the number of chunks: ask for that many empty pieces.
        return _split_with_sizes_op(input, (0,) * chunks, dim)
    return _split_op(input, split_size, dim)


chunk = native_function(
    "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
    kernel=_chunk_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="""``torch.chunk``: about ``chunks`` equal pieces, all of ``ceil(size / chunks)`` but the last.

    May return fewer than ``chunks`` pieces (6 elements in 4 chunks are 3 pieces of 2).
    """,
)


def _check_tensor_split(input: Tensor) -> None:
    if len(input._size) == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )


def _tensor_split_sections_kernel(input: Tensor, sections: int, dim: int = 0):
    _check_tensor_split(input)
    dim = wrap_dim(dim, len(input._size))
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
    _check_tensor_split(input)
    dim = wrap_dim(dim, len(input._size))
    bounds = zip((0, *indices), (*indices, input._size[dim]), strict=True)
    return tuple(_slice_op(input, dim, start, end, 1) for start, end in bounds)


def _tensor_split_tensor_kernel(input: Tensor, tensor_indices_or_sections: Tensor, dim: int = 0):
    """A 0-dim long tensor is a number of sections, a 1-D one the indices to cut before
    (``dim`` is checked by the overload that gets them)."""
    _check_tensor_split(input)
    given = tensor_indices_or_sections
    if given._dtype is not int64:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
            f"{given._dtype.scalar_name}"
        )
    if given.dim() > 1:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
            f"one-dimensional tensor, but got a tensor with {given.dim()} dims"
        )
    if given.dim() == 0:
        return _tensor_split_sections_op(input, int(given.item()), dim)
    return _tensor_split_indices_op(input, tuple(given.tolist()), dim)


tensor_split = native_function(
    "tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]",
    "tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]",
    "tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, Tensor "
    "tensor_indices_or_sections, int dim=0) -> Tensor(a)[]",
    kernels={
        "tensor_split.sections": _tensor_split_sections_kernel,
        "tensor_split.indices": _tensor_split_indices_kernel,
        "tensor_split.tensor_indices_or_sections": _tensor_split_tensor_kernel,
    },
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.tensor_split``: ``n`` nearly equal sections, or cuts before the given indices.",
)
_tensor_split_sections_op = tensor_split.overloads["tensor_split.sections"]
_tensor_split_indices_op = tensor_split.overloads["tensor_split.indices"]


def _split_along(name: str, min_dims: int, dim_of) -> dict:
    """The kernels of ``hsplit``/``vsplit``/``dsplit``: ``tensor_split`` along the dim
    ``dim_of`` names, into ``sections`` equal pieces (which must divide it exactly) or
    cut before ``indices``."""

    def checked_dim(self: Tensor) -> int:
        if self.dim() < min_dims:
            raise RuntimeError(
                f"vizgrad.{name} requires a tensor with at least {min_dims} dimension, but got "
                f"a tensor with {self.dim()} dimensions!"
            )
        return dim_of(self)

    def into_sections(self: Tensor, sections: int):
        dim = checked_dim(self)
        size = self._size[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(
                f"vizgrad.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {sections}!"
            )
        return _tensor_split_sections_op(self, sections, dim)

    def before_indices(self: Tensor, indices):
        return _tensor_split_indices_op(self, indices, checked_dim(self))

    return {f"{name}.int": into_sections, f"{name}.array": before_indices}


hsplit = native_function(
    "hsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]",
    "hsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]",
    kernels=_split_along("hsplit", 1, lambda self: 0 if self.dim() == 1 else 1),
    kind=COMPOSITE_IMPLICIT,
    doc="""``torch.hsplit``: ``tensor_split`` along dim 1 (dim 0 of a 1-D tensor), NumPy's
    ``hsplit``: equal sections, or cuts before the given indices.""",
)
vsplit = native_function(
    "vsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]",
    "vsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]",
    kernels=_split_along("vsplit", 2, lambda self: 0),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.vsplit``: ``tensor_split`` along dim 0 of a tensor of 2 or more dims.",
)
dsplit = native_function(
    "dsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]",
    "dsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]",
    kernels=_split_along("dsplit", 3, lambda self: 2),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.dsplit``: ``tensor_split`` along dim 2 of a tensor of 3 or more dims.",
)


# --- the unsafe twins: the same pieces, not autograd views -------------------------------


# The kernels are ``split``'s: the schemas have no alias annotation, so the dispatcher
# makes no views of the pieces, and each keeps the version counter it was made with
# (``unsafe_split`` resets it in ``TensorShape.cpp``).
unsafe_split = native_function(
    "unsafe_split.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]",
    kernel=_split_kernel,
    derivative=Derivative(
        "UnsafeSplitBackward0",
        save=("self_sym_sizes", "split_size", "dim"),
        grads={"self": _join_grads(cat)},
        multi_output=True,
    ),
    doc="``torch.unsafe_split``: ``split``'s pieces, which autograd does not treat as views.",
)
_unsafe_split_op = unsafe_split.overloads["unsafe_split.Tensor"]

unsafe_split_with_sizes = native_function(
    "unsafe_split_with_sizes(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]",
    kernel=_split_with_sizes_kernel,
    derivative=Derivative(
        "UnsafeSplitWithSizesBackward0",
        save=("self_sym_sizes", "split_sizes", "dim"),
        grads={"self": _join_grads(cat)},
        multi_output=True,
    ),
    doc="``torch.unsafe_split_with_sizes``: ``split_with_sizes``' pieces, not autograd views.",
)
_unsafe_split_with_sizes_op = unsafe_split_with_sizes.overloads["unsafe_split_with_sizes"]


def _unsafe_chunk_kernel(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if len(self._size) == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim_size = self._size[wrap_dim(dim, len(self._size))]
    split_size = -(-dim_size // chunks)
    if split_size == 0 and dim_size == 0:
        return _unsafe_split_with_sizes_op(self, (0,) * chunks, dim)
    return _unsafe_split_op(self, split_size, dim)


unsafe_chunk = native_function(
    "unsafe_chunk(Tensor self, int chunks, int dim=0) -> Tensor[]",
    kernel=_unsafe_chunk_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.unsafe_chunk``: ``chunk``'s pieces, which autograd does not treat as views.",
)

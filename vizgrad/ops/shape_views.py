"""Shape views: ``as_strided``, ``view``, ``reshape``, ``expand``… (``TensorShape.cpp``).

The same elements read with another shape, over the same storage. ``as_strided`` is
the most general view: any size, stride and offset that stay inside the storage.
``view`` keeps the elements' order and succeeds only when strides can express the new
shape (``view_geometry.view_copy_free_stride``); ``reshape`` is a ``view`` when it
can and a contiguous copy when it cannot; ``flatten`` and ``unflatten`` merge and
split dims through them. ``expand`` broadcasts without copying: a grown dim gets
stride 0. ``alias`` is the same metadata in a new tensor (what ``x[...]`` returns).

The backward of a shape view puts the gradient back into the input's shape: a
``reshape`` back for ``view`` and ``reshape``, a sum over the copies for ``expand``
(``sum_to``), and for ``as_strided`` an add into the storage positions each element
read (``as_strided_backward``, which the autograd view history also uses).
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT, NON_DIFFERENTIABLE_VIEW, NONDIFFERENTIABLE
from ..dtypes import BOOL, COMPLEX
from ..shape import check_numel, numel_of, storage_extent, wrap_dim
from ..tensor import Tensor
from .copy import clone, contiguous_format
from .creation import from_numpy, zeros
from .declaration import native_function
from .view_common import inplace_twin, metadata_view
from .view_geometry import infer_size, view_copy_free_stride

__all__ = [
    "as_strided",
    "reshape",
    "flatten",
    "unflatten",
]


# --- as_strided: the most general view -------------------------------------------------


def as_strided_backward(grad, input_geometry, view_geometry):
    """Gradient of ``input.as_strided(*view_geometry)`` w.r.t. ``input``.

    Each element of the view read one storage position; its gradient is added back
    there (positions read twice, by overlapping views, get both gradients).
    """
    in_size, in_stride, in_offset = input_geometry
    size, stride, offset = view_geometry
    positions = np.full(size, offset, dtype=np.int64)
    for dim, (n, st) in enumerate(zip(size, stride, strict=True)):
        shape = [1] * len(size)
        shape[dim] = n
        positions = positions + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    extent = max(storage_extent(in_size, in_stride, in_offset), int(positions.max(initial=0)) + 1)
    flat = zeros(extent, dtype=grad.dtype)
    flat = flat.index_add(0, from_numpy(positions.reshape(-1).copy()), grad.reshape(-1))
    return flat.as_strided(in_size, in_stride, in_offset)


def _as_strided_geometry(self: Tensor, size, stride, storage_offset=None):
    """Check ``as_strided``'s arguments against the storage; ``None`` keeps the offset."""
    offset = self._offset if storage_offset is None else storage_offset
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: {len(stride)} strides for a "
            f"{len(size)}-dimensional size"
        )
    for s in stride:
        if s < 0:
            raise RuntimeError(
                f"as_strided: Negative strides are not supported at the moment, got strides: "
                f"{list(stride)}"
            )
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    # The storage is bytes: the view must fit in them, counted in this tensor's dtype.
    itemsize = self._dtype.itemsize
    needed = storage_extent(size, stride, offset) * itemsize
    available = self._storage.nbytes()
    if needed > available:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed} are out of "
            f"bounds for storage of size {available}"
        )
    return size, stride, offset


def _as_strided_grad(grad: Tensor, saved) -> Tensor:
    """Each element of the view read one storage position: its gradient goes back there.

    ``storage_offset=None`` meant "the input's own offset" in the forward.
    """
    offset = saved.self_geometry[2] if saved.storage_offset is None else saved.storage_offset
    return as_strided_backward(grad, saved.self_geometry, (saved.size, saved.stride, offset))


_AS_STRIDED_BACKWARD = Derivative(
    "AsStridedBackward0",
    save=("self_geometry", "size", "stride", "storage_offset"),
    grads={"self": _as_strided_grad},
    complex=True,
)

as_strided = native_function(
    "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
    "-> Tensor(a)",
    "as_strided_(Tensor(a!) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
    "-> Tensor(a!)",
    kernel=metadata_view(_as_strided_geometry),
    derivatives={
        "as_strided": _AS_STRIDED_BACKWARD,
        "as_strided_": inplace_twin(_AS_STRIDED_BACKWARD, "AsStridedBackward1"),
    },
    doc="""``torch.as_strided``: any size/stride/offset over the same storage, kept inside it.

    Elements may overlap (stride 0, or strides smaller than the sizes below them).
    ``Tensor.as_strided_`` gives the tensor itself that metadata (an in-place write).
    """,
)


# --- view: same elements, new shape, when strides allow it ------------------------------


VIEW_INCOMPATIBLE = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead."
)


def _view_kernel(self: Tensor, size) -> Tensor:
    size = infer_size(size, self.numel())
    stride = view_copy_free_stride(self._size, self._stride, size)
    if stride is None:
        raise RuntimeError(VIEW_INCOMPATIBLE)
    return self._alias(size, stride, self._offset)


def _view_dtype_kernel(self: Tensor, dtype) -> Tensor:
    """``view_dtype`` (``TensorConversions.cpp``): the same bytes read as ``dtype``.

    The storage is bytes, so only the metadata changes. Elements of another size change
    the last dim: ``n`` float32 read as int8 are ``4 * n`` elements (the other strides and
    the offset scale alike); read as float64, ``n / 2``, which must be whole for the last
    dim's size, the offset and every other stride. Either way the last dim must be dense
    (stride 1), and a 0-dim tensor has no last dim to change.
    """
    if self.is_conj():
        raise RuntimeError(
            "vizgrad.Tensor.view is not supported for conjugate view tensors when converting "
            "to a different dtype."
        )
    if self.is_neg():
        raise RuntimeError(
            "vizgrad.Tensor.view is not supported for tensors with negative bit set when "
            "converting to a different dtype."
        )
    old_size, new_size = self._dtype.itemsize, dtype.itemsize
    if old_size == new_size:
        return self._alias(self._size, self._stride, self._offset, dtype)
    what = f"to view {self._dtype.scalar_name} as {dtype.scalar_name} (different element sizes)"
    if not self._size:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    size, stride = list(self._size), list(self._stride)
    if old_size > new_size:  # each element becomes ``ratio`` smaller ones
        ratio = old_size // new_size
        if stride[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
        stride = [s * ratio for s in stride[:-1]] + [1]
        size[-1] *= ratio
        return self._alias(tuple(size), tuple(stride), self._offset * ratio, dtype)
    ratio = new_size // old_size  # every ``ratio`` elements become one
    if size[-1] % ratio:
        raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {size[-1]}")
    if self._offset % ratio:
        raise RuntimeError(
            f"self.storage_offset() must be divisible by {ratio} {what}, but got {self._offset}"
        )
    if stride[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
    for d, s in enumerate(stride[:-1]):
        if s % ratio:
            raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} {what}, but got {s}")
    stride = [s // ratio for s in stride[:-1]] + [1]
    size[-1] //= ratio
    return self._alias(tuple(size), tuple(stride), self._offset // ratio, dtype)


def _unsafe_view_kernel(self: Tensor, size) -> Tensor:
    # ``view``'s geometry and error (``kron`` merges dims of a product that may not allow
    # it); only autograd's view tracking is left out.
    size = infer_size(size, self.numel())
    stride = view_copy_free_stride(self._size, self._stride, size)
    if stride is None:
        raise RuntimeError(VIEW_INCOMPATIBLE)
    return self._alias(size, stride, self._offset)


def _reshape_back(name: str) -> Derivative:
    """Same elements, new shape: the gradient is reshaped back to the input's shape."""
    return Derivative(
        name,
        save=("self_sym_sizes",),
        grads={"self": lambda grad, saved: grad.reshape(saved.self_sym_sizes)},
        complex=True,
    )


_view = native_function(
    "view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    "view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)",
    kernels={"view": _view_kernel, "view.dtype": _view_dtype_kernel},
    derivatives={"view": _reshape_back("ViewBackward0")},
    kinds={"view.dtype": NONDIFFERENTIABLE},
    # ``output_differentiability: [False]``: the result shares memory and version
    # counter, but autograd sees no view (``_base`` is None), as ``detach``'s.
    variant_of={"view.dtype": NON_DIFFERENTIABLE_VIEW},
    variants="method",
    doc="""``Tensor.view``: the same elements read with a new shape; never copies.

    One size may be ``-1`` (inferred). Fails when the strides cannot express the new
    shape (see ``view_copy_free_stride``). ``view(dtype)`` reads the same bytes as
    another dtype (``view_dtype``).
    """,
)
_view_op = _view.overloads["view"]

# ``reshape``'s copy path: the result is new memory, so autograd must not treat it as a
# view of the copy (no ``Tensor(a)`` in its schema: no ``_base``). PyTorch gives it no
# Python binding; linear algebra's folding uses it too.
_unsafe_view_op = native_function(
    "_unsafe_view(Tensor self, SymInt[] size) -> Tensor",
    kernel=_unsafe_view_kernel,
    derivative=_reshape_back("UnsafeViewBackward0"),
    variants="function",
).overloads["_unsafe_view"]

native_function(
    "view_as(Tensor(a) self, Tensor other) -> Tensor(a)",
    kernel=lambda self, other: _view_op(self, other._size),
    kind=COMPOSITE_IMPLICIT,
    variants="method",
    doc="``Tensor.view_as``: ``self.view(other.size())``.",
)

# A view of a non-contiguous tensor: ``reshape`` passes the strides it has already
# computed (its autograd node is ``ReshapeAliasBackward0``). No Python binding.
_reshape_alias_op = native_function(
    "_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)",
    kernel=lambda self, size, stride: self._alias(size, stride, self._offset),
    derivative=_reshape_back("ReshapeAliasBackward0"),
    variants="function",
).overloads["_reshape_alias"]


def _reshape_kernel(self: Tensor, shape) -> Tensor:
    shape = infer_size(shape, self.numel())
    stride = view_copy_free_stride(self._size, self._stride, shape)
    if stride is not None:
        if self._contiguous:
            return _view_op(self, shape)
        return _reshape_alias_op(self, shape, stride)

    return _unsafe_view_op(clone(self, memory_format=contiguous_format), shape)


reshape = native_function(
    "reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)",
    kernel=_reshape_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="""``torch.reshape``: a view when the strides allow it, else a contiguous copy.

    Which one you get depends on the layout, not on the shapes: ``x.reshape(-1)`` is a
    view of a contiguous ``x`` and a copy of ``x.t()``. Check ``_base`` to know.
    """,
)
_reshape_op = reshape.overloads["reshape"]

native_function(
    "reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)",
    kernel=lambda self, other: _reshape_op(self, other._size),
    kind=COMPOSITE_IMPLICIT,
    variants="method",
    doc="``Tensor.reshape_as``: ``self.reshape(other.size())``.",
)


def _flatten_kernel(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    n = len(input._size)
    start, end = wrap_dim(start_dim, n), wrap_dim(end_dim, n)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if n == 0:
        return _reshape_op(input, (1,))
    if start == end:
        return input  # nothing to merge: PyTorch returns the tensor itself
    size = input._size
    return _reshape_op(input, (*size[:start], numel_of(size[start : end + 1]), *size[end + 1 :]))


flatten = native_function(
    "flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
    kernel=_flatten_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.flatten``: merge dims ``start_dim..end_dim`` into one, through ``reshape``.",
)


def _unflatten_kernel(input: Tensor, dim: int, sizes) -> Tensor:
    """``unflatten``: ``infer_size`` of ``sizes`` against ``input.size(dim)``, then a view.

    Any error on the way but a count that does not multiply out (a 0-d input has no
    size to ask for, a ``-1`` twice, a negative size) is "unexpected", as PyTorch says.
    """
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    dim = wrap_dim(dim, len(input._size))
    try:
        dim_size = input.size(dim)
        inferred = infer_size(sizes, dim_size)
    except (RuntimeError, IndexError) as error:
        if "is invalid for input of size" in str(error):
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                f"{dim} ({dim_size}) in the input tensor"
            ) from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{error}") from None
    return _view_op(input, (*input._size[:dim], *inferred, *input._size[dim + 1 :]))


# PyTorch's ``Tensor.unflatten`` is a Python method (``torch/_tensor.py``) only to accept
# named dims, which vizgrad has not: here the generated method serves.
unflatten = native_function(
    "unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)",
    kernel=_unflatten_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.unflatten``: split one dim into ``sizes`` (one may be ``-1``); a ``view``.",
)


# --- alias: the same metadata, a new tensor ----------------------------------------------

# What ``x[...]`` returns. PyTorch gives ``alias`` no Python binding.
_alias_op = native_function(
    "alias(Tensor(a) self) -> Tensor(a)",
    kernel=lambda self: self._alias(self._size, self._stride, self._offset),
    derivative=Derivative(
        "AliasBackward0", grads={"self": lambda grad, saved: grad}, complex=True
    ),  # fmt: skip
    variants="function",
).overloads["alias"]


# --- expand: broadcasting as a view (stride 0) ------------------------------------------


def _dtype_tensor_name(self: Tensor) -> str:
    """How ATen's ``operator<<`` names a tensor's type: a legacy tensor-type name, or
    ``CPU<Scalar>Type`` for the dtypes that have none (bool, complex)."""
    if self._dtype.category in (BOOL, COMPLEX):
        return f"CPU{self._dtype.scalar_name}Type"
    return f"vizgrad.{self._dtype.scalar_name}Tensor"


def _expand_geometry(self: Tensor, sizes):
    """``inferExpandGeometry``: existing dims keep their stride unless size 1 grows (stride 0)."""
    ndim, tensor_dim = len(sizes), len(self._size)
    if ndim < tensor_dim:
        raise RuntimeError(
            f"expand({_dtype_tensor_name(self)}{{{list(self._size)}}}, size={list(sizes)}): the "
            f"number of sizes provided ({ndim}) must be greater or equal to the number of "
            f"dimensions in the tensor ({tensor_dim})"
        )
    if tensor_dim == 0:
        # Every dim is new, every stride 0, and PyTorch checks no size here: a negative
        # one is caught by the count of elements when the view is made (or, beside a 0,
        # kept: ``tensor(1.).expand(-1, 0)`` has shape (-1, 0)).
        return _counted(list(sizes)), [0] * ndim, self._offset
    new_size, new_stride = [0] * ndim, [0] * ndim
    for i in range(ndim - 1, -1, -1):
        dim = tensor_dim - 1 - (ndim - 1 - i)
        if dim >= 0:
            size, stride = self._size[dim], self._stride[dim]
        else:  # a new leading dim: stride as if the tensor were contiguous above
            size, stride = 1, new_size[i + 1] * new_stride[i + 1]
        target = sizes[i]
        if target == -1:
            if dim < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size "
                    f"({size}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                    f"Tensor sizes: {list(self._size)}"
                )
            size, stride = target, 0
        new_size[i], new_stride[i] = size, stride
    return _counted(new_size), new_stride, self._offset


def _counted(size: list) -> list:
    """The view's sizes, once its element count is known to fit in int64, as the
    ``TensorImpl`` of the view counts them (a negative new dim is a huge count)."""
    if min(size, default=0) < 0:
        check_numel(size)
    return size


def sum_to(grad: Tensor, size) -> Tensor:
    """``at::sum_to``: sum a broadcast gradient back down to ``size``.

    An expanded element was read once per copy, so its gradient is the sum over them.
    """
    return grad.sum_to_size(size) if size else grad.sum()


_expand = native_function(
    "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
    kernel=lambda self, size, implicit=False: self._alias(*_expand_geometry(self, size)),
    derivative=Derivative(
        "ExpandBackward0",
        save=("self_sym_sizes",),
        grads={"self": lambda grad, saved: sum_to(grad, saved.self_sym_sizes)},
        complex=True,
    ),
    variants="method",
    doc="""``Tensor.expand``: broadcast to ``sizes`` without copying (``-1`` keeps a size).

    A grown dim gets stride 0: every index along it reads the same elements, which is
    why writing into an expanded tensor is refused.
    """,
)
_expand_op = _expand.overloads["expand"]

native_function(
    "expand_as(Tensor(a) self, Tensor other) -> Tensor(a)",
    kernel=lambda self, other: _expand_op(self, other._size),
    kind=COMPOSITE_IMPLICIT,
    variants="method",
    doc="``Tensor.expand_as``: ``self.expand(other.size())``.",
)

"""View operators: new metadata over the same storage, never a copy (``TensorShape.cpp``).

A view op computes a new ``(size, stride, storage_offset)`` and returns a tensor over
its input's storage. The dispatcher's ADInplaceOrView step then links the result to
its base (``_base``) and shares the version counter, so an in-place write through
either is seen by autograd on both.

Each op here comes in three layers, as in PyTorch:

* a *geometry* function: pure arithmetic on sizes and strides (``_transpose_geometry``);
* a *kernel*: the CPU implementation of the declared overload, which only wraps the
  geometry in ``self._alias(...)`` (or, for in-place view ops like ``t_``, changes
  ``self``'s own metadata);
* the *public function*: PyTorch's Python signature, argument checks, and the choice
  of overload.

Ops that PyTorch writes in terms of others (``reshape``, ``flatten``, ``narrow``,
``chunk``, ``movedim``, ``T``…) are "composite": they call the declared ops, so a
dispatch trace shows the same primitive steps as PyTorch's, and autograd records the
primitives' nodes (``x.narrow(...)`` has a ``SliceBackward0``).

Every primitive declares its derivative beside it (PyTorch's ``derivatives.yaml``).
The backward of a view op puts the gradient back where the view read it: an
*inverse view* for ops that only rearrange (``t``, ``permute``, ``view``), and
"zeros of the input's shape, with the gradient written into the viewed part" for ops
that pick a part (``select``, ``slice``, ``diagonal``).
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE, FUNCTIONAL, INPLACE, VIEW
from ..shape import contiguous_strides, numel_of, storage_extent, wrap_dim, wrap_dims
from ..tensor import Tensor
from .creation import from_numpy, zeros
from .registry import bind_method, check_tensor, declare
from .view_geometry import infer_size, view_copy_free_stride

__all__ = [
    "as_strided",
    "reshape",
    "flatten",
    "unflatten",
    "t",
    "transpose",
    "swapaxes",
    "swapdims",
    "adjoint",
    "permute",
    "movedim",
    "moveaxis",
    "squeeze",
    "unsqueeze",
    "narrow",
    "select",
    "diagonal",
]


INT64_MAX = 2**63 - 1  # what PyTorch passes to ``slice`` for an open end (``x[1:]``)


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


# --- arguments ---------------------------------------------------------------------------


def _int_tuple(fn_name: str, arg_name: str, values) -> tuple[int, ...]:
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(
            f"{fn_name}(): argument '{arg_name}' must be tuple of ints, but found element of "
            f"type {next(type(v).__name__ for v in values if not _is_int(v))}"
        ) from None


def _is_int(value) -> bool:
    if isinstance(value, bool):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def _sizes_from_varargs(fn_name: str, args, arg_name: str = "size") -> tuple[int, ...]:
    """PyTorch's ``*size`` convention: ``view(2, 3)``, ``view((2, 3))`` and ``view([2, 3])``."""
    if len(args) == 1 and isinstance(args[0], tuple | list):
        args = tuple(args[0])
    elif not args:
        raise TypeError(f'{fn_name}() missing 1 required positional arguments: "{arg_name}"')
    sizes = []
    for position, value in enumerate(args, start=1):
        if not _is_int(value):
            if isinstance(value, tuple | list):
                got = ", ".join(type(a).__name__ for a in args)
                raise TypeError(
                    f"{fn_name}() received an invalid combination of arguments - got ({got}), "
                    f"but expected one of:\n * (tuple of ints {arg_name})"
                )
            raise TypeError(
                f"{fn_name}(): argument '{arg_name}' failed to unpack the object at pos "
                f'{position} with error "type must be tuple of ints,but got '
                f'{type(value).__name__}"'
            )
        sizes.append(operator.index(value))
    return tuple(sizes)


def composite(schema: str, kernel):
    """Declare a CompositeImplicitAutograd op: its kernel is made of other ops.

    ``reshape`` is one: the dispatcher enters ``aten::reshape`` and its kernel calls
    ``aten::view`` (or ``aten::clone`` and ``aten::_unsafe_view``), each of which is
    dispatched, traced and differentiated on its own.
    """
    return declare(schema, FUNCTIONAL, kernel, COMPOSITE)


def _bind_property(name: str, getter, setter=None, doc: str = "") -> None:
    getter.__name__ = name
    setattr(Tensor, name, property(getter, setter, doc=doc or getter.__doc__))


# --- as_strided: the most general view -------------------------------------------------


def _check_as_strided(self: Tensor, size, stride, storage_offset) -> int:
    """Validate ``as_strided`` arguments; return the storage offset to use."""
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
    needed = storage_extent(size, stride, offset)
    available = self._storage.numel
    if needed > available:
        itemsize = self._dtype.itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of "
            f"bounds for storage of size {available * itemsize}"
        )
    return offset


def _as_strided_kernel(self: Tensor, size, stride, storage_offset=None) -> Tensor:
    offset = _check_as_strided(self, size, stride, storage_offset)
    return self._alias(size, stride, offset)


def _as_strided_inplace_kernel(self: Tensor, size, stride, storage_offset=None) -> Tensor:
    offset = _check_as_strided(self, size, stride, storage_offset)
    self._set_metadata(size, stride, offset)
    return self


def _as_strided_grad(grad: Tensor, saved) -> Tensor:
    """Each element of the view read one storage position: its gradient goes back there.

    ``storage_offset=None`` meant "the input's own offset" in the forward.
    """
    offset = saved.self_geometry[2] if saved.storage_offset is None else saved.storage_offset
    return as_strided_backward(grad, saved.self_geometry, (saved.size, saved.stride, offset))


def _as_strided_derivative(name: str, inplace_view: bool = False) -> Derivative:
    return Derivative(
        name,
        save=("self_geometry", "size", "stride", "storage_offset"),
        grads={"self": _as_strided_grad},
        inplace_view=inplace_view,
    )


_as_strided_op = declare(
    "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
    "-> Tensor(a)",
    VIEW,
    _as_strided_kernel,
    _as_strided_derivative("AsStridedBackward0"),
)
_as_strided_inplace_op = declare(
    "as_strided_(Tensor(a!) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
    "-> Tensor(a!)",
    INPLACE,
    _as_strided_inplace_kernel,
    _as_strided_derivative("AsStridedBackward1", inplace_view=True),
)


def _as_strided_args(fn_name, size, stride, storage_offset):
    size = _int_tuple(fn_name, "size", size)
    stride = _int_tuple(fn_name, "stride", stride)
    if storage_offset is not None:
        storage_offset = operator.index(storage_offset)
    return size, stride, storage_offset


def as_strided(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """``torch.as_strided``: any size/stride/offset over the same storage, kept inside it.

    Elements may overlap (stride 0, or strides smaller than the sizes below them).
    """
    check_tensor("as_strided", input, "input", 1)
    return _as_strided_op(input, *_as_strided_args("as_strided", size, stride, storage_offset))


def _as_strided_(self: Tensor, size, stride, storage_offset=None) -> Tensor:
    """``Tensor.as_strided_``: change this tensor's own metadata (an in-place write: version +1)."""
    return _as_strided_inplace_op(
        self, *_as_strided_args("as_strided_", size, stride, storage_offset)
    )


bind_method("as_strided", as_strided)
bind_method("as_strided_", _as_strided_)


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


def _unsafe_view_kernel(self: Tensor, size) -> Tensor:
    # Only ever called on a fresh contiguous copy, so the contiguous strides are right.
    size = infer_size(size, self.numel())
    return self._alias(size, view_copy_free_stride(self._size, self._stride, size), self._offset)


def _reshape_back(name: str) -> Derivative:
    """Same elements, new shape: the gradient is reshaped back to the input's shape."""
    return Derivative(
        name,
        save=("self_sym_sizes",),
        grads={"self": lambda grad, saved: grad.reshape(saved.self_sym_sizes)},
    )


_view_op = declare("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", VIEW, _view_kernel,
                   _reshape_back("ViewBackward0"))  # fmt: skip
# ``reshape``'s copy path: the result is new memory, so autograd must not treat it as
# a view of the copy (a FUNCTIONAL overload: no ``_base``).
_unsafe_view_op = declare(
    "_unsafe_view(Tensor self, SymInt[] size) -> Tensor",
    FUNCTIONAL,
    _unsafe_view_kernel,
    _reshape_back("UnsafeViewBackward0"),
)


def _view(self: Tensor, *shape) -> Tensor:
    """``Tensor.view``: the same elements read with a new shape; never copies.

    One size may be ``-1`` (inferred). Fails when the strides cannot express the new
    shape (see ``view_copy_free_stride``).
    """
    if len(shape) == 1 and not isinstance(shape[0], tuple | list) and not _is_int(shape[0]):
        raise TypeError(
            "view() received an invalid combination of arguments - got "
            f"({type(shape[0]).__name__}), but expected one of:\n * (vizgrad.dtype dtype)\n"
            " * (tuple of ints size)"
        )
    if not shape:
        raise TypeError(
            "view() received an invalid combination of arguments - got (), but expected one of:"
            "\n * (vizgrad.dtype dtype)\n * (tuple of ints size)"
        )
    return _view_op(self, _sizes_from_varargs("view", shape))


_view_as_op = composite(
    "view_as(Tensor(a) self, Tensor other) -> Tensor(a)",
    lambda self, other: _view_op(self, other._size),
)


def _view_as(self: Tensor, other: Tensor) -> Tensor:
    """``Tensor.view_as``: ``self.view(other.size())``."""
    check_tensor("view_as", other, "other", 1)
    return _view_as_op(self, other)


_reshape_alias_op = declare(
    "_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)",
    VIEW,
    lambda self, size, stride: self._alias(size, stride, self._offset),
    _reshape_back("ReshapeAliasBackward0"),
)


def _reshape_kernel(self: Tensor, shape) -> Tensor:
    shape = infer_size(shape, self.numel())
    stride = view_copy_free_stride(self._size, self._stride, shape)
    if stride is not None:
        if self._contiguous:
            return _view_op(self, shape)
        # A view of a non-contiguous tensor: PyTorch passes the strides it has already
        # computed to ``_reshape_alias`` (its autograd node is ``ReshapeAliasBackward0``).
        return _reshape_alias_op(self, shape, stride)
    from .copy import clone, contiguous_format

    return _unsafe_view_op(clone(self, memory_format=contiguous_format), shape)


_reshape_op = composite("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", _reshape_kernel)
_reshape_as_op = composite(
    "reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)",
    lambda self, other: _reshape_op(self, other._size),
)


def reshape(input: Tensor, *shape) -> Tensor:
    """``torch.reshape``: a view when the strides allow it, else a contiguous copy.

    Which one you get depends on the layout, not on the shapes: ``x.reshape(-1)`` is a
    view of a contiguous ``x`` and a copy of ``x.t()``. Check ``_base`` to know.
    """
    check_tensor("reshape", input, "input", 1)
    return _reshape_op(input, _sizes_from_varargs("reshape", shape, "shape"))


def _reshape_as(self: Tensor, other: Tensor) -> Tensor:
    check_tensor("reshape_as", other, "other", 1)
    return _reshape_as_op(self, other)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """``torch.flatten``: merge dims ``start_dim..end_dim`` into one, through ``reshape``."""
    check_tensor("flatten", input, "input", 1)
    return _flatten_op(input, operator.index(start_dim), operator.index(end_dim))


def _flatten_kernel(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    n = input.dim()
    start, end = wrap_dim(start_dim, n), wrap_dim(end_dim, n)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if n == 0:
        return _reshape_op(input, (1,))
    if start == end:
        return input  # nothing to merge: PyTorch returns the tensor itself
    size = input._size
    return _reshape_op(input, (*size[:start], numel_of(size[start : end + 1]), *size[end + 1 :]))


_flatten_op = composite(
    "flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
    _flatten_kernel,
)


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """``torch.unflatten``: split one dim into ``sizes`` (one may be ``-1``); a ``view``."""
    check_tensor("unflatten", input, "input", 1)
    return _unflatten_op(input, operator.index(dim), _int_tuple("unflatten", "sizes", sizes))


def _unflatten_kernel(input: Tensor, dim: int, sizes) -> Tensor:
    dim = wrap_dim(dim, input.dim())
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    dim_size = input._size[dim] if input._size else 1
    try:
        inferred = infer_size(sizes, dim_size)
    except RuntimeError as error:
        if "is invalid for input of size" in str(error):
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                f"{dim} ({dim_size}) in the input tensor"
            ) from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{error}") from None
    return _view_op(input, (*input._size[:dim], *inferred, *input._size[dim + 1 :]))


_unflatten_op = composite(
    "unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)", _unflatten_kernel
)


bind_method("view", _view)
bind_method("view_as", _view_as)
bind_method("reshape", reshape)
bind_method("reshape_as", _reshape_as)
bind_method("flatten", flatten)
bind_method("unflatten", unflatten)


# --- alias, transpose, permute ------------------------------------------------------------


def _alias_kernel(self: Tensor) -> Tensor:
    return self._alias(self._size, self._stride, self._offset)


_alias_op = declare(
    "alias(Tensor(a) self) -> Tensor(a)",
    VIEW,
    _alias_kernel,
    Derivative("AliasBackward0", grads={"self": lambda grad, saved: grad}),
)


def alias(input: Tensor) -> Tensor:
    """``torch.alias``: a new tensor object with the same metadata (what ``x[...]`` returns)."""
    check_tensor("alias", input, "input", 1)
    return _alias_op(input)


def _transpose_geometry(self: Tensor, dim0: int, dim1: int):
    n = self.dim()
    d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
    size, stride = list(self._size), list(self._stride)
    if n:
        size[d0], size[d1] = size[d1], size[d0]
        stride[d0], stride[d1] = stride[d1], stride[d0]
    return size, stride, self._offset


def _check_t(self: Tensor, fn_name: str) -> None:
    if self.dim() > 2:
        raise RuntimeError(
            f"{fn_name} expects a tensor with <= 2 dimensions, but self is {self.dim()}D"
        )


def _t_geometry(self: Tensor, fn_name: str):
    _check_t(self, fn_name)
    return _transpose_geometry(self, 0, 0 if self.dim() < 2 else 1)


def _permute_geometry(self: Tensor, dims):
    n = self.dim()
    if len(dims) != n:
        # PyTorch's message really says "sparse_coo", even for strided tensors.
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{n} is not equal to len(dims) = {len(dims)}"
        )
    seen = set()
    for d in dims:
        d = wrap_dim(d, n)
        if d in seen:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        seen.add(d)
    order = [wrap_dim(d, n) for d in dims]
    return [self._size[d] for d in order], [self._stride[d] for d in order], self._offset


def _declare_view_pair(schema: str, inplace_schema: str, geometry, inplace_geometry=None, *,
                       names: tuple[str, str], grad, save=()):  # fmt: skip
    """Declare a view op and its in-place twin (``t``/``t_``) around one geometry.

    The in-place twin changes ``self``'s own metadata; PyTorch counts that as a write
    (the version counter goes up), so it is an INPLACE overload. Both share one
    gradient formula ``grad(grad, saved)``; PyTorch names their nodes apart
    (``TBackward0`` for ``t``, ``TBackward1`` for ``t_``).
    """
    inplace_geometry = inplace_geometry or geometry

    def view_kernel(self, *args):
        return self._alias(*geometry(self, *args))

    def inplace_kernel(self, *args):
        self._set_metadata(*inplace_geometry(self, *args))
        return self

    view_name, inplace_name = names
    view_derivative = Derivative(view_name, save=save, grads={"self": grad})
    inplace_derivative = Derivative(inplace_name, save=save, grads={"self": grad},
                                    inplace_view=True)  # fmt: skip
    return (
        declare(schema, VIEW, view_kernel, view_derivative),
        declare(inplace_schema, INPLACE, inplace_kernel, inplace_derivative),
    )


def _inverse_permutation(dims) -> list[int]:
    """The order that undoes ``permute(dims)``: input dim ``dims[i]`` came to place ``i``."""
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[wrap_dim(d, len(dims))] = i
    return inverse


_t_op, _t_inplace_op = _declare_view_pair(
    "t(Tensor(a) self) -> Tensor(a)",
    "t_(Tensor(a!) self) -> Tensor(a!)",
    lambda self: _t_geometry(self, "t()"),
    lambda self: _t_geometry(self, "t_()"),
    names=("TBackward0", "TBackward1"),
    grad=lambda grad, saved: grad.t(),  # a transpose is its own inverse
)
_transpose_op, _transpose_inplace_op = _declare_view_pair(
    "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)",
    _transpose_geometry,
    names=("TransposeBackward0", "TransposeBackward1"),
    save=("dim0", "dim1"),
    grad=lambda grad, saved: grad.transpose(saved.dim0, saved.dim1),
)
_permute_op = declare(
    "permute(Tensor(a) self, int[] dims) -> Tensor(a)",
    VIEW,
    lambda self, dims: self._alias(*_permute_geometry(self, dims)),
    Derivative(
        "PermuteBackward0",
        save=("dims",),
        grads={"self": lambda grad, saved: grad.permute(_inverse_permutation(saved.dims))},
    ),
)


def t(input: Tensor) -> Tensor:
    """``torch.t``: transpose a matrix (0-D and 1-D tensors come back as they are)."""
    check_tensor("t", input, "input", 1)
    return _t_op(input)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``torch.transpose``: swap two dims by swapping their sizes and strides; no data moves."""
    check_tensor("transpose", input, "input", 1)
    return _transpose_op(input, operator.index(dim0), operator.index(dim1))


_swapaxes_op = composite(
    "swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)",
    lambda self, axis0, axis1: _transpose_op(self, axis0, axis1),
)
_swapdims_op = composite(
    "swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    lambda self, dim0, dim1: _transpose_op(self, dim0, dim1),
)


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """``torch.swapaxes``: NumPy's name for ``transpose``."""
    check_tensor("swapaxes", input, "input", 1)
    return _swapaxes_op(input, operator.index(axis0), operator.index(axis1))


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``torch.swapdims``: another name for ``transpose``."""
    check_tensor("swapdims", input, "input", 1)
    return _swapdims_op(input, operator.index(dim0), operator.index(dim1))


def permute(input: Tensor, *dims) -> Tensor:
    """``torch.permute``: reorder all dims; result dim ``i`` is input dim ``dims[i]``."""
    check_tensor("permute", input, "input", 1)
    return _permute_op(input, _sizes_from_varargs("permute", dims, "dims"))


_ZERO_DIM_ADVICE = {
    "mT": "This function is the identity in these cases.",
    "mH": "Consider using x.conj().",
    "H": "Consider using x.conj().",
}


def _zero_dim_identity(self: Tensor, attribute: str) -> Tensor:
    # Deprecated but still allowed by PyTorch: the tensor itself, not a view.
    warnings.warn(
        f"Tensor.{attribute} is deprecated on 0-D tensors. {_ZERO_DIM_ADVICE[attribute]}",
        UserWarning,
        stacklevel=3,
    )
    return self


def _matrix_transpose_kernel(self: Tensor, attribute: str) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError(
            f"tensor.{attribute} is only supported on matrices or batches of matrices. "
            f"Got {self.dim()}-D tensor."
        )
    if attribute != "mT" and self._dtype.is_complex:
        raise NotImplementedError(
            "vizgrad has no conjugate bit yet, so mH/H of a complex tensor (a transposed "
            "*conjugated* view in PyTorch) is not available"
        )
    return _transpose_op(self, -2, -1)


def _check_H(self: Tensor) -> None:
    if self.dim() != 2:
        raise RuntimeError(
            "tensor.H is only supported on matrices (2-D tensors). Got "
            f"{self.dim()}-D tensor. For batches of matrices, consider using tensor.mH"
        )


def _matrix_H_kernel(self: Tensor) -> Tensor:
    _check_H(self)
    return _matrix_transpose_kernel(self, "H")


_numpy_T_op = composite(
    "numpy_T(Tensor(a) self) -> Tensor(a)",
    lambda self: _permute_op(self, tuple(range(self.dim() - 1, -1, -1))),
)
_mT_op = composite(
    "mT(Tensor(a) self) -> Tensor(a)", lambda self: _matrix_transpose_kernel(self, "mT")
)
_mH_op = composite(
    "mH(Tensor(a) self) -> Tensor(a)", lambda self: _matrix_transpose_kernel(self, "mH")
)
_matrix_H_op = composite("matrix_H(Tensor(a) self) -> Tensor(a)", _matrix_H_kernel)
_adjoint_op = composite(
    "adjoint(Tensor(a) self) -> Tensor(a)", lambda self: _matrix_transpose_kernel(self, "mH")
)


def _T(self: Tensor) -> Tensor:
    """``Tensor.T``: all dims reversed (a ``permute``); meant for matrices."""
    n = self.dim()
    if n == 0:
        warnings.warn(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
            UserWarning,
            stacklevel=2,
        )
    elif n != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*vizgrad.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.",
            UserWarning,
            stacklevel=2,
        )
    return _numpy_T_op(self)


def _mT(self: Tensor) -> Tensor:
    """``Tensor.mT``: transpose the last two dims (a batch of matrices)."""
    return _zero_dim_identity(self, "mT") if self.dim() == 0 else _mT_op(self)


def _mH(self: Tensor) -> Tensor:
    """``Tensor.mH``: conjugate transpose of the last two dims (real dtypes: ``mT``)."""
    return _zero_dim_identity(self, "mH") if self.dim() == 0 else _mH_op(self)


def _H(self: Tensor) -> Tensor:
    """``Tensor.H``: conjugate transpose of a matrix (real dtypes: ``t()``)."""
    return _zero_dim_identity(self, "H") if self.dim() == 0 else _matrix_H_op(self)


def adjoint(input: Tensor) -> Tensor:
    """``torch.adjoint``: ``input.mH``."""
    check_tensor("adjoint", input, "input", 1)
    return _adjoint_op(input)


def _as_dims(value) -> tuple[int, ...]:
    return (operator.index(value),) if _is_int(value) else _int_tuple("movedim", "dims", value)


def movedim(input: Tensor, source, destination) -> Tensor:
    """``torch.movedim``: move dims to new places; the others keep their order (a ``permute``)."""
    check_tensor("movedim", input, "input", 1)
    if _is_int(source) and _is_int(destination):
        return _movedim_int_op(input, operator.index(source), operator.index(destination))
    return _movedim_op(input, _as_dims(source), _as_dims(destination))


def moveaxis(input: Tensor, source, destination) -> Tensor:
    """``torch.moveaxis``: NumPy's name for ``movedim``."""
    check_tensor("moveaxis", input, "input", 1)
    if _is_int(source) and _is_int(destination):
        return _moveaxis_int_op(input, operator.index(source), operator.index(destination))
    return _moveaxis_op(input, _as_dims(source), _as_dims(destination))


def _movedim_kernel(input: Tensor, src, dst) -> Tensor:
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    n = input.dim()
    wrapped_src = [wrap_dim(d, n) for d in src]
    wrapped_dst = [wrap_dim(d, n) for d in dst]
    if len(set(wrapped_src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(src)})")
    if len(set(wrapped_dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(dst)})")
    if n == 0:
        return _alias_op(input)
    order = [-1] * n
    for s, d in zip(wrapped_src, wrapped_dst, strict=True):
        order[d] = s
    rest_src = (d for d in range(n) if d not in wrapped_src)
    for i in range(n):
        if order[i] == -1:
            order[i] = next(rest_src)
    return _permute_op(input, tuple(order))


_movedim_op = composite(
    "movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
    _movedim_kernel,
)
_movedim_int_op = composite(
    "movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
    lambda self, source, destination: _movedim_kernel(self, (source,), (destination,)),
)
_moveaxis_op = composite(
    "moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
    lambda self, source, destination: _movedim_op(self, source, destination),
)
_moveaxis_int_op = composite(
    "moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
    lambda self, source, destination: _movedim_int_op(self, source, destination),
)


def _t_(self: Tensor) -> Tensor:
    """``Tensor.t_``: transpose this tensor's own metadata (counts as an in-place write)."""
    return _t_inplace_op(self)


def _transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _transpose_inplace_op(self, operator.index(dim0), operator.index(dim1))


bind_method("t", t)
bind_method("t_", _t_)
bind_method("transpose", transpose)
bind_method("transpose_", _transpose_)
bind_method("swapaxes", swapaxes)
bind_method("swapdims", swapdims)
bind_method("permute", permute)
bind_method("movedim", movedim)
bind_method("moveaxis", moveaxis)
bind_method("adjoint", adjoint)
_bind_property("T", _T)
_bind_property("mT", _mT)
_bind_property("mH", _mH)
_bind_property("H", _H)


# --- expand: broadcasting as a view (stride 0) ------------------------------------------


def _dtype_tensor_name(self: Tensor) -> str:
    return f"vizgrad.{self._dtype.scalar_name}Tensor"


def _expand_geometry(self: Tensor, sizes):
    """``inferExpandGeometry``: existing dims keep their stride unless size 1 grows (stride 0)."""
    ndim, tensor_dim = len(sizes), self.dim()
    if ndim < tensor_dim:
        raise RuntimeError(
            f"expand({_dtype_tensor_name(self)}{{{list(self._size)}}}, size={list(sizes)}): the "
            f"number of sizes provided ({ndim}) must be greater or equal to the number of "
            f"dimensions in the tensor ({tensor_dim})"
        )
    if tensor_dim == 0:
        if any(s < 0 for s in sizes):
            raise RuntimeError(
                f"The expanded size of the tensor ({min(sizes)}) isn't allowed in a leading, "
                f"non-existing dimension {next(i for i, s in enumerate(sizes) if s < 0)}"
            )
        return list(sizes), [0] * ndim, self._offset
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
    return new_size, new_stride, self._offset


def sum_to(grad: Tensor, size) -> Tensor:
    """``at::sum_to``: sum a broadcast gradient back down to ``size``.

    An expanded element was read once per copy, so its gradient is the sum over them.
    """
    return grad.sum_to_size(size) if size else grad.sum()


_expand_op = declare(
    "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
    VIEW,
    lambda self, size, implicit=False: self._alias(*_expand_geometry(self, size)),
    Derivative(
        "ExpandBackward0",
        save=("self_sym_sizes",),
        grads={"self": lambda grad, saved: sum_to(grad, saved.self_sym_sizes)},
    ),
)


def _expand(self: Tensor, *sizes) -> Tensor:
    """``Tensor.expand``: broadcast to ``sizes`` without copying (``-1`` keeps a size).

    A grown dim gets stride 0: every index along it reads the same elements, which is
    why writing into an expanded tensor is refused.
    """
    return _expand_op(self, _sizes_from_varargs("expand", sizes))


_expand_as_op = composite(
    "expand_as(Tensor(a) self, Tensor other) -> Tensor(a)",
    lambda self, other: _expand_op(self, other._size),
)


def _expand_as(self: Tensor, other: Tensor) -> Tensor:
    check_tensor("expand_as", other, "other", 1)
    return _expand_as_op(self, other)


bind_method("expand", _expand)
bind_method("expand_as", _expand_as)


# --- squeeze / unsqueeze ---------------------------------------------------------------


def _squeeze_geometry(self: Tensor, dims=None):
    if dims is None:
        dropped = {d for d, s in enumerate(self._size) if s == 1}
    else:
        dropped = {d for d in wrap_dims(dims, self.dim()) if self._size and self._size[d] == 1}
    keep = [d for d in range(self.dim()) if d not in dropped]
    return [self._size[d] for d in keep], [self._stride[d] for d in keep], self._offset


def _unsqueeze_geometry(self: Tensor, dim: int):
    n = self.dim()
    dim = wrap_dim(dim, n + 1)
    # The new dim's stride makes it "contiguous" with the dim it lands before.
    stride = 1 if dim >= n else self._size[dim] * self._stride[dim]
    size, strides = list(self._size), list(self._stride)
    size.insert(dim, 1)
    strides.insert(dim, stride)
    return size, strides, self._offset


def unsqueeze_to(grad: Tensor, sizes, dims=None) -> Tensor:
    """``unsqueeze_to``: put back the size-1 dims (all, or those in ``dims``) squeeze removed."""
    candidates = range(len(sizes)) if dims is None else sorted(wrap_dims(dims, len(sizes)))
    for d in candidates:
        if sizes[d] == 1:
            grad = grad.unsqueeze(d)
    return grad


_squeeze_ops = _declare_view_pair(
    "squeeze(Tensor(a) self) -> Tensor(a)", "squeeze_(Tensor(a!) self) -> Tensor(a!)",
    _squeeze_geometry,
    names=("SqueezeBackward0", "SqueezeBackward3"),
    save=("self_sym_sizes",),
    grad=lambda grad, saved: unsqueeze_to(grad, saved.self_sym_sizes),
)  # fmt: skip
_squeeze_dim_ops = _declare_view_pair(
    "squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)",
    "squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)",
    lambda self, dim: _squeeze_geometry(self, (dim,)),
    names=("SqueezeBackward1", "SqueezeBackward4"),
    save=("self_sym_sizes", "dim"),
    grad=lambda grad, saved: unsqueeze_to(grad, saved.self_sym_sizes, (saved.dim,)),
)
_squeeze_dims_ops = _declare_view_pair(
    "squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)",
    "squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)",
    _squeeze_geometry,
    names=("SqueezeBackward2", "SqueezeBackward5"),
    save=("self_sym_sizes", "dim"),
    grad=lambda grad, saved: unsqueeze_to(grad, saved.self_sym_sizes, saved.dim),
)
_unsqueeze_op, _unsqueeze_inplace_op = _declare_view_pair(
    "unsqueeze(Tensor(a) self, int dim) -> Tensor(a)",
    "unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)",
    _unsqueeze_geometry,
    names=("UnsqueezeBackward0", "UnsqueezeBackward1"),
    save=("dim",),
    grad=lambda grad, saved: grad.squeeze(saved.dim),
)


def _squeeze_call(input: Tensor, dim, which: int):
    if dim is None:
        return _squeeze_ops[which](input)
    if _is_int(dim):
        return _squeeze_dim_ops[which](input, operator.index(dim))
    return _squeeze_dims_ops[which](input, _int_tuple("squeeze", "dim", dim))


def squeeze(input: Tensor, dim=None) -> Tensor:
    """``torch.squeeze``: drop size-1 dims (all, or those named by ``dim``)."""
    check_tensor("squeeze", input, "input", 1)
    return _squeeze_call(input, dim, 0)


def _squeeze_(self: Tensor, dim=None) -> Tensor:
    return _squeeze_call(self, dim, 1)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """``torch.unsqueeze``: insert a size-1 dim at ``dim``."""
    check_tensor("unsqueeze", input, "input", 1)
    return _unsqueeze_op(input, operator.index(dim))


def _unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _unsqueeze_inplace_op(self, operator.index(dim))


bind_method("squeeze", squeeze)
bind_method("squeeze_", _squeeze_)
bind_method("unsqueeze", unsqueeze)
bind_method("unsqueeze_", _unsqueeze_)


# --- slice, narrow, select: picking parts of one dim ------------------------------------


def _slice_geometry(self: Tensor, dim: int = 0, start=None, end=None, step: int = 1):
    """``slice.Tensor``: Python-style clamped bounds; the offset moves to ``start``."""
    if self.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, self.dim())
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


_slice_op = declare(
    "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
    "SymInt step=1) -> Tensor(a)",
    VIEW,
    lambda self, *args: self._alias(*_slice_geometry(self, *args)),
    Derivative(
        "SliceBackward0",
        save=("self_sym_sizes", "dim", "start", "end", "step"),
        grads={
            "self": lambda grad, s: zeros_with_grad_in_view(
                grad, s.self_sym_sizes, lambda t: _slice_op(t, s.dim, s.start, s.end, s.step)
            )
        },
    ),
)


def slice_tensor(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    """``aten::slice``: ``input[..., start:end:step]`` along ``dim`` (``torch.ops.aten.slice``)."""
    check_tensor("slice", input, "input", 1)
    return _slice_op(input, dim, start, end, step)


def _select_geometry(self: Tensor, dim: int, index: int):
    """``select.int``: drop ``dim``; the offset moves to element ``index`` along it."""
    if self.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, self.dim())
    size = self._size[dim]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(self._size)} at "
            f"dimension {dim}"
        )
    if index < 0:
        index += size
    sizes, strides = list(self._size), list(self._stride)
    del sizes[dim], strides[dim]
    return sizes, strides, self._offset + index * self._stride[dim]


_select_op = declare(
    "select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)",
    VIEW,
    lambda self, dim, index: self._alias(*_select_geometry(self, dim, index)),
    Derivative(
        "SelectBackward0",
        save=("self_sym_sizes", "dim", "index"),
        grads={
            "self": lambda grad, s: zeros_with_grad_in_view(
                grad, s.self_sym_sizes, lambda t: _select_op(t, s.dim, s.index)
            )
        },
    ),
)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """``torch.select``: one index along ``dim``; the result has one dim fewer."""
    check_tensor("select", input, "input", 1)
    return _select_op(input, operator.index(dim), operator.index(index))


def _scalar_int(fn_name: str, value) -> int:
    # ``narrow``'s start may be a 0-dim integer tensor (``narrow.Tensor``).
    if isinstance(value, Tensor):
        if value.dim() != 0 or value._dtype.category != 1:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        return int(value.item())
    return operator.index(value)


def narrow(input: Tensor, dim: int, start, length: int) -> Tensor:
    """``torch.narrow``: ``length`` elements from ``start`` along ``dim`` (a ``slice``)."""
    check_tensor("narrow", input, "input", 1)
    dim, length = operator.index(dim), operator.index(length)
    if isinstance(start, Tensor):
        return _narrow_tensor_op(input, dim, start, length)
    return _narrow_op(input, dim, operator.index(start), length)


def _narrow_kernel(input: Tensor, dim: int, start, length: int) -> Tensor:
    if input.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    start = _scalar_int("narrow", start)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    size = input.size(dim)
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice_op(input, dim, start, start + length, 1)


_narrow_op = composite(
    "narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)", _narrow_kernel
)
_narrow_tensor_op = composite(
    "narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length) -> Tensor(a)",
    _narrow_kernel,
)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """``torch.diagonal``: the elements ``[i, i + offset]`` of two dims, as one new last dim.

    Its stride is ``stride[dim1] + stride[dim2]``: one step down and one step right.
    """
    check_tensor("diagonal", input, "input", 1)
    return _diagonal_op(input, offset, dim1, dim2)


def _diagonal_geometry(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1):
    n = self.dim()
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


_diagonal_op = declare(
    "diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
    VIEW,
    lambda self, *args: self._alias(*_diagonal_geometry(self, *args)),
    Derivative(
        "DiagonalBackward0",
        save=("self_sym_sizes", "offset", "dim1", "dim2"),
        grads={
            "self": lambda grad, s: zeros_with_grad_in_view(
                grad, s.self_sym_sizes, lambda t: _diagonal_op(t, s.offset, s.dim1, s.dim2)
            )
        },
    ),
)


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


_unfold_op = declare(
    "unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)",
    VIEW,
    lambda self, dimension, size, step: self._alias(*_unfold_geometry(self, dimension, size, step)),
    Derivative(
        "UnfoldBackward0",
        save=("self_sym_sizes", "dimension", "size", "step"),
        grads={"self": _unfold_grad},
    ),
)


def _unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``Tensor.unfold``: sliding windows as a view (windows overlap when ``step < size``)."""
    return _unfold_op(self, operator.index(dimension), operator.index(size), operator.index(step))


bind_method("narrow", narrow)
bind_method("select", select)
bind_method("diagonal", diagonal)
bind_method("unfold", _unfold)

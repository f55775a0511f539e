"""Axis permutations: ``t``, ``transpose``, ``permute``, ``movedim``… (``TensorShape.cpp``).

These views reorder a tensor's dims by reordering its sizes and strides: no element
moves, so ``x.t()`` reads the same storage column by column. ``transpose`` swaps two
dims (``swapaxes`` and ``swapdims`` are its other names), ``permute`` reorders all of
them, ``movedim`` moves some and keeps the others in order; the properties ``T``,
``mT``, ``mH`` and ``H`` (and ``adjoint``) are ``permute``s and ``transpose``s of
matrices. A permutation's backward is the inverse permutation of the gradient.
"""

from __future__ import annotations

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..shape import wrap_dim
from ..tensor import Tensor, define_method
from ..user_warnings import warn_at_user_code
from .declaration import native_function
from .shape_views import _alias_op
from .view_common import inplace_twin, metadata_view

__all__ = [
    "t",
    "transpose",
    "swapaxes",
    "swapdims",
    "adjoint",
    "permute",
    "movedim",
    "moveaxis",
]


# --- transpose, permute ------------------------------------------------------------------


def _transpose_geometry(self: Tensor, dim0: int, dim1: int):
    n = len(self._size)
    # A dim in range, the common case, needs no wrapping.
    d0 = dim0 if 0 <= dim0 < n else wrap_dim(dim0, n)
    d1 = dim1 if 0 <= dim1 < n else wrap_dim(dim1, n)
    size, stride = list(self._size), list(self._stride)
    if n:
        size[d0], size[d1] = size[d1], size[d0]
        stride[d0], stride[d1] = stride[d1], stride[d0]
    return size, stride, self._offset


def _check_t(self: Tensor, fn_name: str) -> None:
    if len(self._size) > 2:
        raise RuntimeError(
            f"{fn_name} expects a tensor with <= 2 dimensions, but self is {len(self._size)}D"
        )


def _t_geometry(self: Tensor, fn_name: str):
    _check_t(self, fn_name)
    return _transpose_geometry(self, 0, 0 if len(self._size) < 2 else 1)


def _permute_geometry(self: Tensor, dims):
    n = len(self._size)
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


def _inverse_permutation(dims) -> list[int]:
    """The order that undoes ``permute(dims)``: input dim ``dims[i]`` came to place ``i``."""
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[wrap_dim(d, len(dims))] = i
    return inverse


def _t_kernel(self: Tensor) -> Tensor:
    return self._alias(*_t_geometry(self, "t()"))


def _t_inplace_kernel(self: Tensor) -> Tensor:
    self._set_metadata(*_t_geometry(self, "t_()"))
    return self


_T_BACKWARD = Derivative("TBackward0", grads={"self": lambda grad, saved: grad.t()},
                         complex=True)  # fmt: skip
t = native_function(
    "t(Tensor(a) self) -> Tensor(a)",
    "t_(Tensor(a!) self) -> Tensor(a!)",
    kernels={"t": _t_kernel, "t_": _t_inplace_kernel},
    # A transpose is its own inverse.
    derivatives={"t": _T_BACKWARD, "t_": inplace_twin(_T_BACKWARD, "TBackward1")},
    doc="``torch.t``: transpose a matrix (0-D and 1-D tensors come back as they are).",
)

_TRANSPOSE_BACKWARD = Derivative(
    "TransposeBackward0",
    save=("dim0", "dim1"),
    grads={"self": lambda grad, saved: grad.transpose(saved.dim0, saved.dim1)},
    complex=True,
)
transpose = native_function(
    "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)",
    kernel=metadata_view(_transpose_geometry),
    derivatives={
        "transpose.int": _TRANSPOSE_BACKWARD,
        "transpose_": inplace_twin(_TRANSPOSE_BACKWARD, "TransposeBackward1"),
    },
    doc="``torch.transpose``: swap two dims by swapping their sizes and strides; no data moves.",
)
_transpose_op = transpose.overloads["transpose.int"]
_transpose_inplace_op = transpose.overloads["transpose_"]

permute = native_function(
    "permute(Tensor(a) self, int[] dims) -> Tensor(a)",
    kernel=metadata_view(_permute_geometry),
    derivative=Derivative(
        "PermuteBackward0",
        save=("dims",),
        grads={"self": lambda grad, saved: grad.permute(_inverse_permutation(saved.dims))},
        complex=True,
    ),
    doc="``torch.permute``: reorder all dims; result dim ``i`` is input dim ``dims[i]``.",
)
_permute_op = permute.overloads["permute"]

# NumPy's and another name for ``transpose``: their own native functions in PyTorch,
# made of ``transpose`` (whose node they record).
swapaxes = native_function(
    "swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)",
    "swapaxes_(Tensor(a!) self, int axis0, int axis1) -> Tensor(a!)",
    kernels={"swapaxes": _transpose_op, "swapaxes_": _transpose_inplace_op},
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.swapaxes``: NumPy's name for ``transpose``.",
)
swapdims = native_function(
    "swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "swapdims_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)",
    kernels={"swapdims": _transpose_op, "swapdims_": _transpose_inplace_op},
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.swapdims``: another name for ``transpose``.",
)


# --- the matrix attributes: T, mT, mH, H and adjoint ---------------------------------------


_ZERO_DIM_ADVICE = {
    "mT": "This function is the identity in these cases.",
    "mH": "Consider using x.conj().",
    "H": "Consider using x.conj().",
}


def _zero_dim_identity(self: Tensor, attribute: str) -> Tensor:
    # Deprecated but still allowed by PyTorch: the tensor itself, not a view.
    warn_at_user_code(
        f"Tensor.{attribute} is deprecated on 0-D tensors. {_ZERO_DIM_ADVICE[attribute]}",
        UserWarning,
    )
    return self


def _matrix_transpose_kernel(self: Tensor, attribute: str) -> Tensor:
    if len(self._size) < 2:
        raise RuntimeError(
            f"tensor.{attribute} is only supported on matrices or batches of matrices. "
            f"Got {len(self._size)}-D tensor."
        )
    transposed = _transpose_op(self, -2, -1)
    # mH, H, adjoint: the conjugate transpose, a lazy conjugate view (``conj()``).
    return transposed if attribute == "mT" else transposed.conj()


def _check_H(self: Tensor) -> None:
    if len(self._size) != 2:
        raise RuntimeError(
            "tensor.H is only supported on matrices (2-D tensors). Got "
            f"{len(self._size)}-D tensor. For batches of matrices, consider using tensor.mH"
        )


def _matrix_H_kernel(self: Tensor) -> Tensor:
    _check_H(self)
    return _matrix_transpose_kernel(self, "H")


# The operators behind the matrix attributes (``x.T`` is ``aten::numpy_T``): PyTorch gives
# them no Python binding, so neither function nor method is exported; the properties
# below call them.
_numpy_T_op = native_function(
    "numpy_T(Tensor(a) self) -> Tensor(a)",
    kernel=lambda self: _permute_op(self, tuple(range(len(self._size) - 1, -1, -1))),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
).overloads["numpy_T"]
_mT_op = native_function(
    "mT(Tensor(a) self) -> Tensor(a)",
    kernel=lambda self: _matrix_transpose_kernel(self, "mT"),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
).overloads["mT"]
_mH_op = native_function(
    "mH(Tensor(a) self) -> Tensor(a)",
    kernel=lambda self: _matrix_transpose_kernel(self, "mH"),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
).overloads["mH"]
_matrix_H_op = native_function(
    "matrix_H(Tensor(a) self) -> Tensor(a)",
    kernel=_matrix_H_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
).overloads["matrix_H"]
adjoint = native_function(
    "adjoint(Tensor(a) self) -> Tensor(a)",
    kernel=lambda self: _matrix_transpose_kernel(self, "mH"),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.adjoint``: ``input.mH``.",
)


# The attributes are properties of PyTorch's Tensor (``python_variable.cpp`` getters),
# each calling its operator.


def _T(self: Tensor) -> Tensor:
    """``Tensor.T``: all dims reversed (a ``permute``); meant for matrices."""
    n = len(self._size)
    if n == 0:
        warn_at_user_code(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
            UserWarning,
        )
    elif n != 2:
        warn_at_user_code(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*vizgrad.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.",
            UserWarning,
        )
    return _numpy_T_op(self)


def _mT(self: Tensor) -> Tensor:
    """``Tensor.mT``: transpose the last two dims (a batch of matrices)."""
    return _zero_dim_identity(self, "mT") if len(self._size) == 0 else _mT_op(self)


def _mH(self: Tensor) -> Tensor:
    """``Tensor.mH``: conjugate transpose of the last two dims (real dtypes: ``mT``)."""
    return _zero_dim_identity(self, "mH") if len(self._size) == 0 else _mH_op(self)


def _H(self: Tensor) -> Tensor:
    """``Tensor.H``: conjugate transpose of a matrix (real dtypes: ``t()``)."""
    return _zero_dim_identity(self, "H") if len(self._size) == 0 else _matrix_H_op(self)


# --- movedim: some dims to new places ---------------------------------------------------------


def _movedim_kernel(input: Tensor, src, dst) -> Tensor:
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    n = len(input._size)
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


# ``movedim.int`` is tried first: ``x.movedim(0, 1)`` is the common call.
movedim = native_function(
    "movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
    "movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
    kernels={
        "movedim.intlist": _movedim_kernel,
        "movedim.int": lambda self, source, destination: _movedim_kernel(
            self, (source,), (destination,)
        ),
    },
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.movedim``: move dims to new places; the others keep their order (a ``permute``).",
)
moveaxis = native_function(
    "moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
    "moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
    kernels={
        "moveaxis.intlist": movedim.overloads["movedim.intlist"],
        "moveaxis.int": movedim.overloads["movedim.int"],
    },
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.moveaxis``: NumPy's name for ``movedim``.",
)

define_method("T", property(_T))
define_method("mT", property(_mT))
define_method("mH", property(_mH))
define_method("H", property(_H))

"""Axis permutations: ``t``, ``transpose``, ``permute``, ``movedim``… (``TensorShape.cpp``).

These views reorder a tensor's dims by reordering its sizes and strides: no element
moves, so ``x.t()`` reads the same storage column by column. ``transpose`` swaps two
dims (``swapaxes`` and ``swapdims`` are its other names), ``permute`` reorders all of
them, ``movedim`` moves some and keeps the others in order; the properties ``T``,
``mT``, ``mH`` and ``H`` (and ``adjoint``) are ``permute``s and ``transpose``s of
matrices. A permutation's backward is the inverse permutation of the gradient.
"""

from __future__ import annotations

import operator
import warnings

from ..derivatives import Derivative
from ..dispatcher import VIEW
from ..shape import wrap_dim
from ..tensor import Tensor
from .registry import bind_method, check_tensor, declare
from .shape_views import _alias_op
from .view_common import (
    _bind_property,
    _declare_view_pair,
    _int_tuple,
    _is_int,
    _sizes_from_varargs,
    composite,
)

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

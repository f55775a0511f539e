"""Size-1 dims: ``squeeze`` and ``unsqueeze`` (``TensorShape.cpp``).

A dim of size 1 holds no layout information: ``squeeze`` drops such dims (all of them,
or the ones named) and ``unsqueeze`` inserts one, each as a view with the other sizes
and strides unchanged. Their backwards are each other: a gradient gets its size-1 dims
back (``unsqueeze_to``) or loses the one inserted.
"""

from __future__ import annotations

import operator

from ..shape import wrap_dim, wrap_dims
from ..tensor import Tensor
from .registry import bind_method, check_tensor
from .view_common import _declare_view_pair, _int_tuple, _is_int

__all__ = [
    "squeeze",
    "unsqueeze",
]


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

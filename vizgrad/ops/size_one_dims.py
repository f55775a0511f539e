"""Size-1 dims: ``squeeze`` and ``unsqueeze`` (``TensorShape.cpp``).

A dim of size 1 holds no layout information: ``squeeze`` drops such dims (all of them,
or the ones named) and ``unsqueeze`` inserts one, each as a view with the other sizes
and strides unchanged. Their backwards are each other: a gradient gets its size-1 dims
back (``unsqueeze_to``) or loses the one inserted.
"""

from __future__ import annotations

from ..derivatives import Derivative
from ..shape import wrap_dim, wrap_dims
from ..tensor import Tensor
from .declaration import native_function
from .view_common import inplace_twin, metadata_view

__all__ = [
    "squeeze",
    "unsqueeze",
]


# --- squeeze / unsqueeze ---------------------------------------------------------------


def _squeeze_geometry(self: Tensor, dims=None):
    if dims is None:
        dropped = {d for d, s in enumerate(self._size) if s == 1}
    else:
        dropped = {d for d in wrap_dims(dims, len(self._size)) if self._size and self._size[d] == 1}
    keep = [d for d in range(len(self._size)) if d not in dropped]
    return [self._size[d] for d in keep], [self._stride[d] for d in keep], self._offset


def _unsqueeze_geometry(self: Tensor, dim: int):
    n = len(self._size)
    if not 0 <= dim <= n:  # a dim in range, the common case, needs no wrapping
        dim = wrap_dim(dim, n + 1)
    # The new dim's stride makes it "contiguous" with the dim it lands before.
    stride = 1 if dim >= n else self._size[dim] * self._stride[dim]
    size, strides = list(self._size), list(self._stride)
    size.insert(dim, 1)
    strides.insert(dim, stride)
    return size, strides, self._offset


def unsqueeze_to(grad: Tensor, sizes, dims=None) -> Tensor:
    """``unsqueeze_to``: put back the size-1 dims (all, or those in ``dims``) squeeze removed.

    A 0-d input had no dim to remove (``squeeze(0)`` of it is itself), so nothing comes
    back, though its dim 0 wraps.
    """
    named = range(len(sizes)) if dims is None else set(wrap_dims(dims, len(sizes)))
    for d in range(len(sizes)):
        if d in named and sizes[d] == 1:
            grad = grad.unsqueeze(d)
    return grad


_SQUEEZE_BACKWARD = Derivative(
    "SqueezeBackward0",
    save=("self_sym_sizes",),
    grads={"self": lambda grad, saved: unsqueeze_to(grad, saved.self_sym_sizes)},
    complex=True,
)
_SQUEEZE_DIM_BACKWARD = Derivative(
    "SqueezeBackward1",
    save=("self_sym_sizes", "dim"),
    grads={"self": lambda grad, saved: unsqueeze_to(grad, saved.self_sym_sizes, (saved.dim,))},
    complex=True,
)
_SQUEEZE_DIMS_BACKWARD = Derivative(
    "SqueezeBackward2",
    save=("self_sym_sizes", "dim"),
    grads={"self": lambda grad, saved: unsqueeze_to(grad, saved.self_sym_sizes, saved.dim)},
    complex=True,
)
squeeze = native_function(
    "squeeze(Tensor(a) self) -> Tensor(a)",
    "squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)",
    "squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)",
    "squeeze_(Tensor(a!) self) -> Tensor(a!)",
    "squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)",
    "squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)",
    kernels={
        "squeeze": metadata_view(_squeeze_geometry),
        "squeeze.dim": metadata_view(lambda self, dim: _squeeze_geometry(self, (dim,))),
        "squeeze.dims": metadata_view(_squeeze_geometry),
    },
    derivatives={
        "squeeze": _SQUEEZE_BACKWARD,
        "squeeze.dim": _SQUEEZE_DIM_BACKWARD,
        "squeeze.dims": _SQUEEZE_DIMS_BACKWARD,
        "squeeze_": inplace_twin(_SQUEEZE_BACKWARD, "SqueezeBackward3"),
        "squeeze_.dim": inplace_twin(_SQUEEZE_DIM_BACKWARD, "SqueezeBackward4"),
        "squeeze_.dims": inplace_twin(_SQUEEZE_DIMS_BACKWARD, "SqueezeBackward5"),
    },
    doc="``torch.squeeze``: drop size-1 dims (all, or those named by ``dim``).",
)

_UNSQUEEZE_BACKWARD = Derivative(
    "UnsqueezeBackward0",
    save=("dim",),
    grads={"self": lambda grad, saved: grad.squeeze(saved.dim)},
    complex=True,
)
unsqueeze = native_function(
    "unsqueeze(Tensor(a) self, int dim) -> Tensor(a)",
    "unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)",
    kernel=metadata_view(_unsqueeze_geometry),
    derivatives={
        "unsqueeze": _UNSQUEEZE_BACKWARD,
        "unsqueeze_": inplace_twin(_UNSQUEEZE_BACKWARD, "UnsqueezeBackward1"),
    },
    doc="``torch.unsqueeze``: insert a size-1 dim at ``dim``.",
)
_unsqueeze_op = unsqueeze.overloads["unsqueeze"]

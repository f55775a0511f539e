"""``nonzero`` and ``argwhere``: where the non-zero elements are (``TensorAdvancedIndexing.cpp``).

The result has one row per non-zero element, in row-major order, and one column per
dim of the input; its size depends on the values, which is why ``nonzero`` cannot be
a view nor know its output shape in advance.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import NON_DIFFERENTIABLE
from ..dispatcher import FUNCTIONAL
from ..dtypes import int64
from ..tensor import Tensor
from .iterator import resize_output
from .registry import bind_method, check_tensor, declare

__all__ = [
    "nonzero",
    "argwhere",
]


# --- nonzero and argwhere ----------------------------------------------------------------


def _nonzero_array(self: Tensor) -> np.ndarray:
    """The coordinates of the non-zero elements, one row each, in row-major order."""
    if not self._size:
        return np.zeros((1 if self._array.item() else 0, 0), np.int64)
    return np.stack(np.nonzero(self._array), axis=1).astype(np.int64)


def _column_major(coords: np.ndarray) -> Tensor:
    """PyTorch's CPU ``nonzero`` fills its ``(n, ndim)`` result column by column.

    So the result has strides ``(1, n)``: each column (one dim's coordinates) is
    contiguous, which makes ``nonzero(as_tuple=True)`` cheap views.
    """
    n, ndim = coords.shape
    result = Tensor._empty_strided((n, ndim), (1, n), int64)
    result._array[...] = coords
    return result


def _nonzero_kernel(self: Tensor) -> Tensor:
    return _column_major(_nonzero_array(self))


def _nonzero_out_kernel(self: Tensor, *, out: Tensor) -> Tensor:
    if out._dtype is not int64:
        raise RuntimeError(
            f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
            f"{out._dtype.scalar_name}"
        )
    coords = _nonzero_array(self)
    n, ndim = coords.shape
    if out._size != (n, ndim):
        # As PyTorch: a resized output gets the column-major strides of ``nonzero``.
        resize_output(out, (n, ndim))
        out._set_metadata((n, ndim), (1, n), out._offset)
    out._array[...] = coords
    return out


# Coordinates are integers: no gradient flows through them.
_nonzero_op = declare("nonzero(Tensor self) -> Tensor", FUNCTIONAL, _nonzero_kernel,
                      NON_DIFFERENTIABLE)  # fmt: skip
_nonzero_out_op = declare(
    "nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "out",
    _nonzero_out_kernel,
    NON_DIFFERENTIABLE,
)


def nonzero(input: Tensor, *, out=None, as_tuple: bool = False):
    """``torch.nonzero``: the coordinates of non-zero elements, one row per element.

    With ``as_tuple=True``: one 1-D tensor per dim (what ``x[mask]`` indexes with).
    """
    check_tensor("nonzero", input, "input", 1)
    if as_tuple:
        from .size_one_dims import unsqueeze
        from .splitting import unbind

        # A 0-dim input counts as 1-D here; each column of the result is one dim's indices.
        return unbind(_nonzero_op(input if input._size else unsqueeze(input, 0)), 1)
    if out is None:
        return _nonzero_op(input)
    check_tensor("nonzero", out, "out", 2)
    return _nonzero_out_op(input, out=out)


def argwhere(input: Tensor) -> Tensor:
    """``torch.argwhere``: ``nonzero(input)``, under NumPy's name."""
    check_tensor("argwhere", input, "input", 1)
    return _nonzero_op(input)


bind_method("nonzero", lambda self, *, out=None, as_tuple=False: nonzero(
    self, out=out, as_tuple=as_tuple))  # fmt: skip
bind_method("argwhere", lambda self: argwhere(self))

"""``nonzero`` and ``argwhere``: where the non-zero elements are (``TensorAdvancedIndexing.cpp``).

The result has one row per non-zero element, in row-major order, and one column per
dim of the input; its size depends on the values, which is why ``nonzero`` cannot be
a view nor know its output shape in advance.
"""

from __future__ import annotations

import numpy as np

from ..arg_parser import PythonArgParser
from ..dispatcher import COMPOSITE_IMPLICIT, NONDIFFERENTIABLE
from ..dtypes import int64
from ..tensor import Tensor, define_method
from .declaration import native_function
from .indexing_common import NONZERO_ON_META
from .iterator import resize_output
from .size_one_dims import unsqueeze
from .splitting import unbind

__all__ = [
    "nonzero",
    "argwhere",
]


# --- the operators: nonzero, nonzero_numpy, argwhere ----------------------------------------


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


def _nonzero_meta(self: Tensor, *, out: Tensor | None = None) -> Tensor:
    """How many rows: the values would say. PyTorch 2.13's meta ``nonzero`` refuses (after
    ``out``'s dtype, which the CPU kernel checks before reading anything)."""
    if out is not None:
        _check_nonzero_out(out)
    raise NotImplementedError(NONZERO_ON_META)


def _check_nonzero_out(out: Tensor) -> None:
    if out._dtype is not int64:
        raise RuntimeError(
            f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
            f"{out._dtype.scalar_name}"
        )


def _nonzero_out_kernel(self: Tensor, *, out: Tensor) -> Tensor:
    _check_nonzero_out(out)
    coords = _nonzero_array(self)
    n, ndim = coords.shape
    if out._size != (n, ndim):
        # As PyTorch: a resized output gets the column-major strides of ``nonzero``.
        resize_output(out, (n, ndim))
        out._set_metadata((n, ndim), (1, n), out._offset)
    out._array[...] = coords
    return out


# ``vizgrad.ops.meta_kernels`` registers them.
_nonzero_kernel.meta_kernel = _nonzero_out_kernel.meta_kernel = _nonzero_meta

# PyTorch binds nonzero to Python by hand (below), so the declaration's own function
# stays private: the operator those bindings call.
_nonzero = native_function(
    "nonzero(Tensor self) -> Tensor",
    "nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={"nonzero": _nonzero_kernel, "nonzero.out": _nonzero_out_kernel},
    # Coordinates are integers: no gradient flows through them.
    kind=NONDIFFERENTIABLE,
    variants="function",
)


def _nonzero_numpy_composite(self: Tensor) -> tuple[Tensor, ...]:
    """One 1-D tensor of indices per dim (a 0-dim input counts as 1-D): the columns of
    ``nonzero``, as views of it."""
    return unbind(_nonzero(self if self._size else unsqueeze(self, 0)), 1)


# ``nonzero(as_tuple=True)`` and ``where(condition)``; not bound to Python by itself.
_nonzero_numpy = native_function(
    "nonzero_numpy(Tensor self) -> Tensor[]",
    kernel=_nonzero_numpy_composite,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
)


def _argwhere_composite(self: Tensor) -> Tensor:
    """``argwhere`` is ``self.nonzero()``, under NumPy's name (CompositeImplicitAutograd)."""
    return _nonzero(self)


argwhere = native_function(
    "argwhere(Tensor self) -> Tensor",
    kernel=_argwhere_composite,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.argwhere``: ``nonzero(input)``, under NumPy's name.",
)


# --- the Python bindings PyTorch writes by hand -------------------------------------------

_NONZERO_PARSER = PythonArgParser.from_signatures(
    "nonzero(Tensor input, *, bool as_tuple=False, Tensor out=None)"
)
_NONZERO_METHOD_PARSER = PythonArgParser.from_signatures("nonzero()", "nonzero(*, bool as_tuple)")


def nonzero(*args, **kwargs):
    """``torch.nonzero``: the coordinates of non-zero elements, one row per element.

    With ``as_tuple=True``: one 1-D tensor per dim (what ``x[mask]`` indexes with).
    PyTorch binds this function by hand (``python_torch_functions_manual.cpp``):
    ``as_tuple`` chooses between two operators, ``nonzero`` and ``nonzero_numpy``.
    """
    _, (input,), options = _NONZERO_PARSER.parse(args, kwargs)
    out = options.get("out")
    if options["as_tuple"]:
        if out is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        return _nonzero_numpy(input)
    return _nonzero(input) if out is None else _nonzero(input, out=out)


def _nonzero_method(self: Tensor, *args, **kwargs):
    """``Tensor.nonzero``: PyTorch's hand-written method (``python_variable_methods.cpp``)."""
    signature, _, options = _NONZERO_METHOD_PARSER.parse(args, kwargs)
    if signature.overload == 1 and options["as_tuple"]:
        return _nonzero_numpy(self)
    return _nonzero(self)


define_method("nonzero", _nonzero_method)

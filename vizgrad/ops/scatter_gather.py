"""``gather``, ``scatter``, ``scatter_add``: one index per element (``ScatterGatherKernel.cpp``).

``index`` has as many dims as ``self``; each of its elements names the position along
``dim`` to read from (``gather``) or write to (``scatter``), while its own position
gives the other coordinates.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..derivatives import Derivative
from ..dtypes import int32, int64
from ..shape import contiguous_strides, wrap_dim
from ..tensor import Tensor
from .indexing_common import (
    _FUNCTIONAL,
    _INPLACE,
    _OUT,
    _check_index_in_range,
    _check_scalar,
    _check_writable,
    _declare_inplace_family,
    _nonempty_size,
    fill_value,
)
from .registry import bind_method, check_tensor, declare_with_out

__all__ = [
    "gather",
    "scatter",
    "scatter_add",
]


# --- gather and scatter ------------------------------------------------------------------


def _along_dim(t: Tensor, dim: int, index: Tensor) -> tuple:
    """NumPy coordinates reaching, for each element of ``index``, ``t[..., index, ...]``.

    Every dim but ``dim`` is walked with the index's own coordinates (an open grid);
    along ``dim`` the coordinate is the index value. This is what gather reads and
    scatter writes.
    """
    grid = list(np.ogrid[tuple(slice(0, s) for s in index._size)])
    grid[dim] = index._array
    return tuple(grid)


def _gather_kernel(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> Tensor:
    dim = wrap_dim(dim, len(self._size))
    if index._dtype not in (int32, int64):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    result = Tensor._empty_strided(index._size, contiguous_strides(index._size), self._dtype)
    if index.numel() == 0:
        return result
    if max(len(self._size), 1) != max(len(index._size), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(len(index._size)):
        if d != dim and index._size[d] > self._size[d]:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(index._size)} to be "
                f"no larger than self {list(self._size)} apart from dimension {dim}"
            )
    _check_index_in_range(index, _nonempty_size(self, dim), dim)
    if not self._size:
        result._array[...] = self._array
        return result
    result._array[...] = self._array[_along_dim(self, dim, index)]
    return result


def _gather_backward(grad: Tensor, saved) -> Tensor:
    """``gather_backward``: scatter-*add* the gradient back, so repeated reads sum."""
    return saved.self.new_zeros(saved.self._size, dtype=grad.dtype).scatter_add(
        saved.dim, saved.index, grad
    )


_gather_op, _gather_out_op = declare_with_out(
    "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
    _gather_kernel,
    Derivative("GatherBackward0", save=("self", "dim", "index", "sparse_grad"),
               grads={"self": _gather_backward}),
)  # fmt: skip


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out=None):
    """``torch.gather``: ``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and so on)."""
    check_tensor("gather", input, "input", 1)
    check_tensor("gather", index, "index", 3)
    if out is None:
        return _gather_op(input, dim, index, sparse_grad=sparse_grad)
    return _gather_out_op(input, dim, index, sparse_grad=sparse_grad, out=out)


_SCATTER_REDUCTIONS = {None: None, "add": np.add, "multiply": np.multiply}


def _scatter_checks(fn_name: str, self: Tensor, dim: int, index: Tensor, src) -> int:
    """``scatter_gather_dtype_check`` and ``scatter_shape_check``; returns the wrapped dim."""
    dim = wrap_dim(dim, len(self._size))
    if index._dtype not in (int32, int64):
        raise RuntimeError(f"{fn_name}(): Expected dtype int32/int64 for index")
    if isinstance(src, Tensor) and src._dtype is not self._dtype:
        raise RuntimeError(f"{fn_name}(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return dim
    ndim = max(len(self._size), 1)
    if max(len(index._size), 1) != ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if isinstance(src, Tensor):
        if max(len(src._size), 1) != ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        too_big = any(
            _nonempty_size(index, d) > _nonempty_size(src, d)
            or (d != dim and _nonempty_size(index, d) > _nonempty_size(self, d))
            for d in range(ndim)
        )
        if too_big:
            raise RuntimeError(
                f"Expected index {list(index._size)} to be no larger than self "
                f"{list(self._size)} apart from dimension {dim} and to be no larger size than "
                f"src {list(src._size)}"
            )
    else:
        for d in range(ndim):
            if d != dim and _nonempty_size(index, d) > _nonempty_size(self, d):
                raise RuntimeError(
                    f"Expected index {list(index._size)} to be no larger than self "
                    f"{list(self._size)} apart from dimension {dim}"
                )
    _check_index_in_range(index, _nonempty_size(self, dim), dim)
    return dim


def _scatter_into(self: Tensor, dim: int, index: Tensor, src, reduce=None) -> None:
    """Write ``src`` (a tensor, or one value) into ``self`` at ``_along_dim`` positions.

    Without ``reduce`` a position written twice keeps one of the values (PyTorch
    leaves which one unspecified); ``add``/``multiply`` combine all of them.
    """
    if index.numel() == 0:
        return
    if not self._size:  # a 0-dim tensor: its only element
        target, where = self._array.reshape(1), (np.zeros(1, np.intp),)
        values = src._array.reshape(1) if isinstance(src, Tensor) else src
    else:
        target, where = self._array, _along_dim(self, dim, index)
        if isinstance(src, Tensor):
            values = src._array[tuple(slice(0, s) for s in index._size)]
        else:
            values = src
    ufunc = _SCATTER_REDUCTIONS[reduce]
    if ufunc is None:
        target[where] = values
    else:
        ufunc.at(target, where, np.broadcast_to(values, index._size or (1,)))


def _check_reduce(reduce, tensor_src: bool) -> None:
    if reduce is None:
        return
    if tensor_src:
        warnings.warn(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options.",
            UserWarning,
            stacklevel=5,
        )
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")


def _write_scatter(self, dim, index, src, reduce=None):
    _check_writable(self)
    dim = _scatter_checks("scatter", self, dim, index, src)
    if not isinstance(src, Tensor):
        src = fill_value(src, self._dtype)
    _scatter_into(self, dim, index, src, reduce)


def _write_scatter_add(self, dim, index, src):
    _check_writable(self)
    dim = _scatter_checks("scatter", self, dim, index, src)
    _scatter_into(self, dim, index, src, "add")


def _not_implemented(op_name: str) -> Derivative:
    """PyTorch's ``not_implemented(...)`` formula: recorded, but backward raises."""

    def raise_error(grad, saved):
        raise RuntimeError(f"derivative for {op_name} is not implemented")

    return Derivative("NotImplemented", grads={"self": raise_error, "src": raise_error})


def _zero_where_written(grad: Tensor, saved) -> Tensor:
    # Positions scatter overwrote no longer depend on ``self``.
    return grad.scatter(saved.dim, saved.index, 0)


def _gather_where_written(grad: Tensor, saved) -> Tensor:
    # Each ``src`` element landed at one position: its gradient is read from there.
    return grad.gather(saved.dim, saved.index)


_SCATTER_OPS = {
    "src": _declare_inplace_family(
        "scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
        _write_scatter, preserve_layout=False,
        derivative=Derivative("ScatterBackward0", save=("dim", "index"),
                              grads={"self": _zero_where_written, "src": _gather_where_written})),
    "value": _declare_inplace_family(
        "scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
        _write_scatter, preserve_layout=False,
        derivative=Derivative("ScatterBackward1", save=("dim", "index"),
                              grads={"self": _zero_where_written})),
    # PyTorch has no formula for the deprecated ``reduce=`` forms (use scatter_reduce).
    "reduce": _declare_inplace_family(
        "scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor",
        _write_scatter, preserve_layout=False, derivative=_not_implemented("aten::scatter")),
    "value_reduce": _declare_inplace_family(
        "scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) "
        "-> Tensor",
        _write_scatter, preserve_layout=False, derivative=_not_implemented("aten::scatter")),
}  # fmt: skip
_SCATTER_ADD_OPS = _declare_inplace_family(
    "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    _write_scatter_add,
    preserve_layout=False,
    # Adding does not overwrite: ``self`` passes its gradient through untouched.
    derivative=Derivative(
        "ScatterAddBackward0",
        save=("dim", "index"),
        grads={"self": lambda grad, saved: grad, "src": _gather_where_written},
    ),
)


def _scatter_call(variant: int, fn_name: str, input, dim, index, src, value, reduce, out):
    check_tensor(fn_name, input, "input", 1)
    check_tensor(fn_name, index, "index", 3)
    if src is None and value is None:
        raise TypeError(f"{fn_name}() missing required argument 'src' or 'value'")
    source = src if src is not None else value
    if isinstance(source, Tensor):
        overload = "src" if reduce is None else "reduce"
    else:
        _check_scalar(fn_name, source, "value", 4)
        overload = "value" if reduce is None else "value_reduce"
    _check_reduce(reduce, isinstance(source, Tensor))
    op = _SCATTER_OPS[overload][variant]
    args = (input, dim, index, source) + (() if reduce is None else (reduce,))
    if variant == _OUT:
        check_tensor(fn_name, out, "out", 5)
        return op(*args, out=out)
    return op(*args)


def scatter(input: Tensor, dim: int, index: Tensor, src=None, value=None, *, reduce=None,
            out=None) -> Tensor:  # fmt: skip
    """``torch.scatter``: a copy of ``input`` with ``src`` written where ``index`` says.

    ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``; ``src`` may be one number.
    """
    variant = _FUNCTIONAL if out is None else _OUT
    return _scatter_call(variant, "scatter", input, dim, index, src, value, reduce, out)


def _scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    """``Tensor.scatter_``: ``scatter`` written into ``self``."""
    return _scatter_call(_INPLACE, "scatter_", self, dim, index, src, value, reduce, None)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor, *, out=None) -> Tensor:
    """``torch.scatter_add``: like ``scatter``, but values sent to one place add up."""
    check_tensor("scatter_add", input, "input", 1)
    check_tensor("scatter_add", index, "index", 3)
    check_tensor("scatter_add", src, "src", 4)
    if out is None:
        return _SCATTER_ADD_OPS[_FUNCTIONAL](input, dim, index, src)
    return _SCATTER_ADD_OPS[_OUT](input, dim, index, src, out=out)


def _scatter_add_(self, dim, index, src):
    """``Tensor.scatter_add_``."""
    check_tensor("scatter_add_", index, "index", 2)
    check_tensor("scatter_add_", src, "src", 3)
    return _SCATTER_ADD_OPS[_INPLACE](self, dim, index, src)


bind_method("gather", lambda self, dim, index, *, sparse_grad=False, out=None: gather(
    self, dim, index, sparse_grad=sparse_grad, out=out))  # fmt: skip


bind_method("scatter", lambda self, dim, index, src=None, value=None, *, reduce=None: scatter(
    self, dim, index, src, value, reduce=reduce))  # fmt: skip
bind_method("scatter_", _scatter_)
bind_method("scatter_add", lambda self, dim, index, src: scatter_add(self, dim, index, src))
bind_method("scatter_add_", _scatter_add_)

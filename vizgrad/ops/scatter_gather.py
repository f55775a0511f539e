"""``gather``, ``scatter``, ``scatter_add``: one index per element (``ScatterGatherKernel.cpp``).

``index`` has as many dims as ``self``; each of its elements names the position along
``dim`` to read from (``gather``) or write to (``scatter``), while its own position
gives the other coordinates.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dtypes import int32, int64
from ..shape import contiguous_strides, wrap_dim
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .declaration import native_function
from .indexing_common import (
    _check_index_in_range,
    _clone_row_major,
    _fresh,
    _like_self,
    _nonempty_size,
    fill_value,
    from_inplace,
)
from .overload_kernels import Overlap, out_wrapper

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


def _gather_meta(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> tuple:
    """``gather``'s meta function up to ``set_output``: the result has ``index``'s shape
    and ``self``'s dtype (only ``dim`` is checked before)."""
    wrap_dim(dim, len(self._size))
    return index._size, self._dtype


def _gather_kernel(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> Tensor:
    dim = wrap_dim(dim, len(self._size))
    if index.numel() == 0:  # an empty index of any dtype gathers nothing
        return Tensor._empty_strided(index._size, contiguous_strides(index._size), self._dtype)
    if index._dtype not in (int32, int64):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
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
        return _fresh(np.broadcast_to(self._array, index._size), self._dtype)
    # Fancy indexing makes a new row-major array of the index's shape: the result.
    return _fresh(self._array[_along_dim(self, dim, index)], self._dtype)


def _gather_backward(grad: Tensor, saved) -> Tensor:
    """``gather_backward``: scatter-*add* the gradient back, so repeated reads sum."""
    return saved.self.new_zeros(saved.self._size, dtype=grad.dtype).scatter_add(
        saved.dim, saved.index, grad
    )


gather = native_function(
    "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
    "gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=_gather_kernel,
    # gather reads ``self`` in another order than it writes: ``out`` may not touch it.
    kernels={"gather.out": out_wrapper(
        _gather_kernel, exact_dtype=True, meta=_gather_meta,
        resized_checks=Overlap(internal=True, full=("self",), partial=("index",)),
    )},
    derivative=Derivative("GatherBackward0", save=("self", "dim", "index", "sparse_grad"),
                          grads={"self": _gather_backward}),
    doc="``torch.gather``: ``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and so on).",
)  # fmt: skip


_SCATTER_REDUCTIONS = {None: None, "add": np.add, "multiply": np.multiply}


def _scatter_checks(fn_name: str, self: Tensor, dim: int, index: Tensor, src) -> int:
    """``scatter_gather_dtype_check`` and ``scatter_shape_check``; returns the wrapped dim.

    An empty index writes nothing, whatever its dtype.
    """
    dim = wrap_dim(dim, len(self._size))
    if index.numel() and index._dtype not in (int32, int64):
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


def _check_reduce(self, dim, index, source, *, reduce=None, out=None) -> None:
    """The deprecated ``reduce=`` of ``scatter``: only ``add`` and ``multiply`` (checked
    before any work, as in ``scatter_meta_impl``); with a Tensor ``src`` it warns."""
    if reduce is None:
        return
    if isinstance(source, Tensor):
        warn_at_user_code(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options.",
            UserWarning,
        )
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")


def _write_scatter(self, dim, index, src, reduce=None):
    dim = _scatter_checks("scatter", self, dim, index, src)
    _check_index_in_range(index, _nonempty_size(self, dim), dim)
    if not isinstance(src, Tensor):
        src = fill_value(src, self._dtype)
    _scatter_into(self, dim, index, src, reduce)


def _write_scatter_add(self, dim, index, src):
    dim = _scatter_checks("scatter", self, dim, index, src)
    _check_index_in_range(index, _nonempty_size(self, dim), dim)
    _scatter_into(self, dim, index, src, "add")


def _scatter_out_checks(self, dim, index, src, **_options) -> None:
    _scatter_checks("scatter", self, dim, index, src)


# ``scatter_meta_impl``: after its argument checks, ``out`` (as given) may not share memory
# with ``index`` or ``src``; ``set_output`` then checks and resizes it, and the kernel
# starts with ``out.copy_(self)``, which ``out`` may be, but not part of.
# In place, ``self`` is that output.
_SCATTER_CHECKS = (_scatter_out_checks, Overlap(internal=True, full=("index", "src")))
_SCATTER_OUT = {
    "checks": _SCATTER_CHECKS,
    "inplace_checks": _SCATTER_CHECKS,
    "exact_dtype": True,
    "meta": _like_self,
    "resized_checks": Overlap(partial=("self",)),
}


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


# PyTorch's scatter is a structured kernel writing into a row-major output. The
# overloads are declared in the order PyTorch's bindings try them (torchgen sorts them
# by signature, then puts a Scalar overload after its Tensor twin).
scatter = native_function(
    "scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
    "scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    "scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor",
    "scatter_.reduce(Tensor(a!) self, int dim, Tensor index, Tensor src, *, str reduce) "
    "-> Tensor(a!)",
    "scatter.reduce_out(Tensor self, int dim, Tensor index, Tensor src, *, str reduce, "
    "Tensor(a!) out) -> Tensor(a!)",
    "scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
    "scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)",
    "scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    "scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) "
    "-> Tensor",
    "scatter_.value_reduce(Tensor(a!) self, int dim, Tensor index, Scalar value, *, "
    "str reduce) -> Tensor(a!)",
    "scatter.value_reduce_out(Tensor self, int dim, Tensor index, Scalar value, *, "
    "str reduce, Tensor(a!) out) -> Tensor(a!)",
    kernel=from_inplace(_write_scatter, start=_clone_row_major, **_SCATTER_OUT),
    derivatives={
        "scatter.src": Derivative("ScatterBackward0", save=("dim", "index"),
                                  grads={"self": _zero_where_written,
                                         "src": _gather_where_written}),
        "scatter.value": Derivative("ScatterBackward1", save=("dim", "index"),
                                    grads={"self": _zero_where_written}),
        # PyTorch has no formula for the deprecated ``reduce=`` forms (use scatter_reduce).
        "scatter.reduce": _not_implemented("aten::scatter"),
        "scatter.value_reduce": _not_implemented("aten::scatter"),
    },
    check=_check_reduce,
    doc="""``torch.scatter``: a copy of ``input`` with ``src`` written where ``index`` says.

    ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``; ``value`` writes one number.
    """,
)  # fmt: skip

scatter_add = native_function(
    "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
    "scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=from_inplace(_write_scatter_add, start=_clone_row_major, **_SCATTER_OUT),
    # Adding does not overwrite: ``self`` passes its gradient through untouched.
    derivative=Derivative(
        "ScatterAddBackward0",
        save=("dim", "index"),
        grads={"self": lambda grad, saved: grad, "src": _gather_where_written},
    ),
    doc="``torch.scatter_add``: like ``scatter``, but values sent to one place add up.",
)

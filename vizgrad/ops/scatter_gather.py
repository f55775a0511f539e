"""``gather``, ``scatter``, ``scatter_add``, ``scatter_reduce``, ``take_along_dim``: one
index per element (``ScatterGatherKernel.cpp``).

``index`` has as many dims as ``self``; each of its elements names the position along
``dim`` to read from (``gather``) or write to (``scatter``), while its own position
gives the other coordinates. ``scatter_add`` and ``scatter_reduce`` combine the values
sent to one position (a sum, product, mean, maximum or minimum); ``take_along_dim`` is
``gather`` after broadcasting ``index`` against ``self`` (NumPy's ``take_along_axis``).
"""

from __future__ import annotations

import math

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import BOOL, COMPLEX, FLOATING, int32, int64
from ..shape import broadcast_shapes, contiguous_strides, wrap_dim
from ..sparse_tensor import SparseCooTensor
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .creation import checked_scalar
from .declaration import native_function
from .indexing_common import (
    _check_index_in_range,
    _clone_row_major,
    _fresh,
    _like_self,
    _nonempty_size,
    from_inplace,
)
from .overload_kernels import Overlap, meta_then_impl, out_wrapper
from .shape_views import _expand_op, _view_op

__all__ = [
    "gather",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "take_along_dim",
]


# --- gather and scatter ------------------------------------------------------------------


def _at_least_1d(array: np.ndarray) -> np.ndarray:
    """A 0-dim array as one element: scatter and gather treat a 0-dim tensor as 1-D."""
    return array.reshape(1) if array.ndim == 0 else array


def _along_dim(dim: int, index: np.ndarray) -> tuple:
    """NumPy coordinates reaching, for each element of ``index``, ``t[..., index, ...]``.

    Every dim but ``dim`` is walked with the index's own coordinates (an open grid);
    along ``dim`` the coordinate is the index value. This is what gather reads and
    scatter writes.
    """
    index = _at_least_1d(index)
    grid = list(np.ogrid[tuple(slice(0, s) for s in index.shape)])
    grid[dim] = index
    return tuple(grid)


def _gather_meta(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> tuple:
    """``gather``'s meta function up to ``set_output``: the result has ``index``'s shape
    and ``self``'s dtype (only ``dim`` is checked before)."""
    wrap_dim(dim, len(self._size))
    return index._size, self._dtype


def _check_gather(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False,
                  **_out) -> None:  # fmt: skip
    """``gather``'s meta function after ``set_output``: an empty index gathers nothing,
    whatever its dtype; else its dtype, then ``gather_shape_check``."""
    dim = wrap_dim(dim, len(self._size))
    if index.numel() == 0:
        return
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


def _gather_meta_checked(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False):
    """``gather``'s whole meta function (the functional overload's Meta kernel)."""
    spec = _gather_meta(self, dim, index)
    _check_gather(self, dim, index)
    return spec


def _gather_kernel(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> Tensor:
    dim = wrap_dim(dim, len(self._size))
    if index.numel() == 0:  # an empty index of any dtype gathers nothing
        return Tensor._empty_strided(index._size, contiguous_strides(index._size), self._dtype)
    _check_gather(self, dim, index)
    _check_index_in_range(index, _nonempty_size(self, dim), dim)
    # Fancy indexing makes a new row-major array of the index's shape: the result.
    values = _at_least_1d(self._array)[_along_dim(dim, index._array)]
    return _fresh(values.reshape(index._size), self._dtype)


def _gather_sparse_backward(self: Tensor, dim: int, index: Tensor, grad: Tensor) -> Tensor:
    """``_gather_sparse_backward``: a sparse COO gradient storing each element of ``grad``
    at the coordinate it was read from (``index`` along ``dim``, its own position along
    the others); repeated reads are repeated coordinates, which add up."""
    values = grad.detach()._resolved_array().reshape(-1)
    if not self._size:  # a 0-dim input: values without coordinates
        coordinates = np.zeros((0, values.size), dtype=np.int64)
    else:
        coordinates = np.indices(grad._size).reshape(len(self._size), -1).astype(np.int64)
        coordinates[wrap_dim(dim, len(self._size))] = index._array.reshape(-1)
    return SparseCooTensor(Tensor._from_array(coordinates, int64),
                           Tensor._from_array(np.ascontiguousarray(values), grad._dtype),
                           self._size)  # fmt: skip


def _gather_backward(grad: Tensor, saved) -> Tensor:
    """``gather_backward``: scatter-*add* the gradient back, so repeated reads sum (or,
    with ``sparse_grad=True``, a sparse gradient of the elements read)."""
    if saved.sparse_grad:
        return _gather_sparse_backward(saved.self, saved.dim, saved.index, grad)
    return saved.self.new_zeros(saved.self._size, dtype=grad.dtype).scatter_add(
        saved.dim, saved.index, grad
    )


gather = native_function(
    "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
    "gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=meta_then_impl(_gather_meta_checked, _gather_kernel),
    # gather reads ``self`` in another order than it writes: ``out`` may not touch it.
    kernels={"gather.out": out_wrapper(
        _gather_kernel, exact_dtype=True, meta=_gather_meta, structured_device=True,
        resized_checks=(Overlap(internal=True, full=("self",), partial=("index",)),
                        _check_gather),
    )},
    derivative=Derivative("GatherBackward0", complex=True, save=("self", "dim", "index", "sparse_grad"),
                          grads={"self": _gather_backward}),
    doc="``torch.gather``: ``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and so on).",
)  # fmt: skip


def _take_along_dim_inputs(self: Tensor, indices: Tensor, dim: int) -> tuple:
    """``_take_along_dim_helper``: ``self`` and ``indices`` broadcast against each other
    in every dim but ``dim`` (``broadcast_to``, an ``expand``), and ``dim`` wrapped."""
    if len(self._size) != len(indices._size):
        raise RuntimeError(
            f"vizgrad.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {len(self._size)} dimensions for input, and "
            f"{len(indices._size)} dimensions for indices"
        )
    if indices._dtype is not int64:
        raise RuntimeError(
            f"vizgrad.take_along_dim(): dtype of indices should be Long but got "
            f"{indices._dtype.scalar_name}"
        )
    dim = wrap_dim(dim, len(self._size))
    self_sizes, indices_sizes = list(self._size), list(indices._size)
    self_sizes[dim] = indices.size(dim)
    indices_sizes[dim] = self._size[dim]
    indices_broadcast = _expand_op(indices, broadcast_shapes(self_sizes, indices._size))
    return _expand_op(self, broadcast_shapes(indices_sizes, self._size)), indices_broadcast, dim


def _take_along_dim_kernel(self: Tensor, indices: Tensor, dim=None, *, out=None) -> Tensor:
    """``gather`` after broadcasting; without ``dim``, of the flattened ``self`` (a
    ``view``, so a non-contiguous ``self`` cannot be flattened: PyTorch's error)."""
    if dim is None:
        self, indices, dim = _view_op(self, (-1,)), _view_op(indices, (-1,)), 0
    else:
        self, indices, dim = _take_along_dim_inputs(self, indices, dim)
    return gather(self, dim, indices, out=out)


take_along_dim = native_function(
    "take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor",
    "take_along_dim.out(Tensor self, Tensor indices, int? dim=None, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    # Both are made of ``gather`` (the out= one of ``gather.out``).
    kernels={
        "take_along_dim": _take_along_dim_kernel,
        "take_along_dim.out": _take_along_dim_kernel,
    },
    kinds={"take_along_dim": COMPOSITE_IMPLICIT, "take_along_dim.out": COMPOSITE_IMPLICIT},
    doc="""``torch.take_along_dim``: the values of ``input`` at ``indices`` along ``dim``.

    NumPy's ``take_along_axis``: ``indices`` broadcasts against ``input`` in the other
    dims, then ``gather``; without ``dim``, both are flattened first.
    """,
)


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


def _scatter_into(self: Tensor, dim: int, index: Tensor, src, ufunc=None) -> None:
    """Write ``src`` (a tensor, or one value) into ``self`` at ``_along_dim`` positions.

    Without ``ufunc`` a position written twice keeps one of the values (PyTorch
    leaves which one unspecified); with one (``np.add``, ``np.maximum``…) every value
    sent to a position is combined into it, in place.
    """
    if index.numel() == 0:
        return
    where = _along_dim(dim, index._array)
    values = src
    if isinstance(src, Tensor):  # src may be bigger than index: its corner is read
        values = _at_least_1d(src._array)[tuple(slice(0, s) for s in where[dim].shape)]
    target = _at_least_1d(self._array)
    if ufunc is None:
        target[where] = values
        return
    with np.errstate(all="ignore"):  # overflow to inf, inf * 0: as C++ computes them
        ufunc.at(target, where, np.broadcast_to(values, where[dim].shape))


# The deprecated ``reduce=`` of ``scatter`` (``scatter_reduce`` has more, named otherwise).
_SCATTER_REDUCTIONS = {"add": np.add, "multiply": np.multiply}


def _warn_scatter_reduce_deprecated(self, dim, index, source, *, reduce=None, out=None) -> None:
    """``scatter.reduce``'s meta function starts by warning that ``reduce=`` with a
    Tensor ``src`` is deprecated (``scatter_reduce`` replaces it)."""
    if reduce is not None and isinstance(source, Tensor):
        warn_at_user_code(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options.",
            UserWarning,
        )


def _check_scatter(self, dim, index, src, reduce=None) -> int:
    """``scatter``'s argument checks, then (only after them) ``check_reduce_op``;
    returns the wrapped dim."""
    dim = _scatter_checks("scatter", self, dim, index, src)
    if reduce is not None and reduce not in _SCATTER_REDUCTIONS:
        raise RuntimeError("reduce argument must be either add or multiply.")
    return dim


def _write_scatter(self, dim, index, src, reduce=None):
    dim = _check_scatter(self, dim, index, src, reduce)
    _check_index_in_range(index, _nonempty_size(self, dim), dim)
    if not isinstance(src, Tensor):
        src = checked_scalar(src, self._dtype)
    _scatter_into(self, dim, index, src, _SCATTER_REDUCTIONS.get(reduce))


def _check_scatter_add(self, dim, index, src) -> int:
    return _scatter_checks("scatter", self, dim, index, src)


def _write_scatter_add(self, dim, index, src):
    dim = _check_scatter_add(self, dim, index, src)
    _check_index_in_range(index, _nonempty_size(self, dim), dim)
    _scatter_into(self, dim, index, src, np.add)


def _scatter_out_checks(self, dim, index, src, *_reduce, **_options) -> None:
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
    "structured_device": True,
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
    kernel=from_inplace(_write_scatter, start=_clone_row_major, meta_checks=_check_scatter,
                        **_SCATTER_OUT),  # fmt: skip
    derivatives={
        "scatter.src": Derivative("ScatterBackward0", complex=True, save=("dim", "index"),
                                  grads={"self": _zero_where_written,
                                         "src": _gather_where_written}),
        "scatter.value": Derivative("ScatterBackward1", complex=True, save=("dim", "index"),
                                    grads={"self": _zero_where_written}),
        # PyTorch has no formula for the deprecated ``reduce=`` forms (use scatter_reduce).
        "scatter.reduce": _not_implemented("aten::scatter"),
        "scatter.value_reduce": _not_implemented("aten::scatter"),
    },
    check=_warn_scatter_reduce_deprecated,
    doc="""``torch.scatter``: a copy of ``input`` with ``src`` written where ``index`` says.

    ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``; ``value`` writes one number.
    """,
)  # fmt: skip

scatter_add = native_function(
    "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
    "scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=from_inplace(
        _write_scatter_add, start=_clone_row_major, meta_checks=_check_scatter_add, **_SCATTER_OUT
    ),  # fmt: skip
    # Adding does not overwrite: ``self`` passes its gradient through untouched.
    derivative=Derivative(
        "ScatterAddBackward0",
        complex=True,
        save=("dim", "index"),
        grads={"self": lambda grad, saved: grad, "src": _gather_where_written},
    ),
    doc="``torch.scatter_add``: like ``scatter``, but values sent to one place add up.",
)


# --- scatter_reduce -----------------------------------------------------------------------

# ``get_reduction_enum``: each reduction's NumPy ufunc (``mean`` adds, then divides);
# ``max`` and ``min`` are accepted for ``amax`` and ``amin``.
REDUCTIONS = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum,
               "amin": np.minimum}  # fmt: skip
_REDUCTION_ALIASES = {"max": "amax", "min": "amin"}


def _reduction_name(reduce: str) -> str:
    """``scatter_reduce``'s ``reduce`` as one of ``REDUCTIONS`` (``check_reduce_op``)."""
    name = _REDUCTION_ALIASES.get(reduce, reduce)
    if name not in REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    return name


def reduction_identity(name: str, dtype):
    """What a position starts from when ``include_self=False``: the reduction's identity
    (0 to add, 1 to multiply, the lowest value for a maximum, the highest for a minimum)."""
    if name == "prod":
        return 1
    if name not in ("amax", "amin") or dtype.category == COMPLEX:
        return 0  # (complex numbers have no order: a maximum of them fails afterwards)
    if dtype.category == FLOATING:
        return -math.inf if name == "amax" else math.inf
    if dtype.category == BOOL:
        return name == "amin"
    info = np.iinfo(dtype.numpy)
    return int(info.min) if name == "amax" else int(info.max)


def not_implemented_for(kernel: str, dtype) -> NotImplementedError:
    """What a C++ kernel's dtype dispatch raises for a dtype it was not compiled for."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.scalar_name}'")


def _check_reduction_dtype(name: str, dtype) -> None:
    """The scatter kernel's dtype dispatch: a mean cannot divide booleans, and complex
    numbers have no order for a maximum or a minimum."""
    if (name == "mean" and dtype.category == BOOL) or (
        name in ("amax", "amin") and dtype.category == COMPLEX
    ):
        raise not_implemented_for(f"scatter_gather_tensor_cpu_reduce_{name}", dtype)


def divide_by_counts(target: np.ndarray, counts: np.ndarray, dtype) -> None:
    """A mean's last step: each position's sum divided by how many values it got (at
    least 1), floored for integers (``div_(count, "floor")``)."""
    counts[counts == 0] = 1
    if dtype.category in (FLOATING, COMPLEX):
        np.true_divide(target, counts, out=target)
    else:
        np.floor_divide(target, counts, out=target)


def _check_scatter_reduce(self, dim, index, src, reduce, *, include_self=True) -> None:
    """``scatter_reduce``'s checks that read no data: the arguments, the reduction's
    name, and (with an index that writes anything) whether the dtype has it."""
    _scatter_checks("scatter", self, dim, index, src)
    name = _reduction_name(reduce)
    if index.numel():
        _check_reduction_dtype(name, self._dtype)


def _write_scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
    dim = _scatter_checks("scatter", self, dim, index, src)
    name = _reduction_name(reduce)
    if index.numel() == 0:
        return
    if not include_self:  # the positions written start from the identity instead
        _write_scatter(self, dim, index, reduction_identity(name, self._dtype))
    _check_reduction_dtype(name, self._dtype)
    _check_index_in_range(index, _nonempty_size(self, dim), dim)
    _scatter_into(self, dim, index, src, REDUCTIONS[name])
    if name == "mean":
        counts = np.full(_at_least_1d(self._array).shape, int(include_self), self._dtype.numpy)
        np.add.at(counts, _along_dim(dim, index._array), 1)
        divide_by_counts(_at_least_1d(self._array), counts, self._dtype)


def _check_scatter_reduce_op(self, dim, index, src, reduce, **_options) -> None:
    _reduction_name(reduce)


class Scattering:
    """How a reduction sent ``src``'s values to positions of ``self``, for its backward.

    ``scatter_reduce`` sends each element to a position (``gather`` reads them back),
    ``index_reduce`` each slice to a slice (``index_select``): PyTorch's
    ``scatter_reduce_backward`` and ``index_reduce_backward`` are one formula written
    with either set of operators, so here it is written once with these four.
    """

    def __init__(self, reduce_into, add_into, pick, clear):
        self.reduce_into = reduce_into  # (base, values) -> base.<op>_reduce(values, "prod")
        self.add_into = add_into  # (base, values) -> base.<op>_add(values)
        self.pick = pick  # t -> t at the position each value went to
        self.clear = clear  # t -> t with those positions set to 0


def reduction_self_grad(grad: Tensor, s, src: Tensor, how: Scattering) -> Tensor:
    """The gradient of ``self`` in a scatter-style reduction; the positions written get
    none when ``include_self=False`` (their value was not read)."""
    if s.reduce == "sum":
        grad_self = grad
    elif s.reduce == "prod":
        # ``result / self`` is the product of the others, but not where ``self`` is 0:
        # the product without ``self`` is recomputed with its zeros made ones.
        masked_self = s.self.masked_fill(s.self == 0, 1)
        grad_self = grad * how.reduce_into(masked_self, src) / masked_self
    elif s.reduce == "mean":
        grad_self = grad / _mean_counts(grad, s, src, how)
    elif s.reduce in ("amax", "amin"):
        # The gradient is shared evenly among the values equal to the result.
        grad_self = (s.self == s.result) * (grad / _extremum_counts(s, src, how))
    else:
        _unknown_reduction(s.reduce)
    return grad_self if s.include_self else how.clear(grad_self)


def reduction_src_grad(grad: Tensor, s, src: Tensor, how: Scattering) -> Tensor:
    """The gradient of ``src`` in a scatter-style reduction: each value's share of the
    gradient of the position it went to."""
    if s.reduce == "sum":
        return how.pick(grad)
    if s.reduce == "prod":
        # ``result / src`` is the product of the others, unless ``src`` is 0: a lone zero
        # at its position gets the product of the others, recomputed with it made 1 (two
        # zeros there: the others' product is 0 anyway).
        src_zero = src == 0
        zeros_there = how.pick(how.add_into(s.self.new_zeros(s.self._size),
                                            src_zero.to(s.self.dtype)))  # fmt: skip
        lone_zero = src_zero & (zeros_there == 1)
        others = how.reduce_into(s.self, src.masked_fill(lone_zero, 1))
        divided = how.pick(grad * s.result) / src.masked_fill(src_zero, 1)
        return how.pick(grad * others).where(lone_zero, divided)
    if s.reduce == "mean":
        return how.pick(grad) / how.pick(_mean_counts(grad, s, src, how))
    if s.reduce in ("amax", "amin"):
        src_is_result = src == how.pick(s.result)
        return src_is_result * how.pick(grad / _extremum_counts(s, src, how))
    _unknown_reduction(s.reduce)


def _mean_counts(grad: Tensor, s, src: Tensor, how: Scattering) -> Tensor:
    """How many values each position's mean averaged (at least 1)."""
    start = grad.new_ones(grad._size) if s.include_self else grad.new_zeros(grad._size)
    counts = how.add_into(start, src.new_ones(src._size))
    return counts.masked_fill(counts == 0, 1)


def _extremum_counts(s, src: Tensor, how: Scattering) -> Tensor:
    """How many values (of ``self`` and ``src``) equal each position's maximum or minimum."""
    dtype = s.self.dtype
    self_is_result = (s.self == s.result).to(dtype)
    return how.add_into(self_is_result, (src == how.pick(s.result)).to(dtype))


def _unknown_reduction(reduce: str):
    # The forward accepts ``max`` and ``min``; PyTorch's backward does not.
    raise RuntimeError(
        f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {reduce}."
    )


def _scattered(s) -> Scattering:
    return Scattering(
        lambda base, values: base.scatter_reduce(s.dim, s.index, values, "prod",
                                                 include_self=s.include_self),
        lambda base, values: base.scatter_add(s.dim, s.index, values),
        lambda t: t.gather(s.dim, s.index),
        lambda t: t.scatter(s.dim, s.index, 0),
    )  # fmt: skip


# ``scatter_meta_impl`` with the new reductions: the argument checks, ``out``'s overlap,
# ``set_output``, then the reduction's name; the kernel then starts with ``out.copy_(self)``.
scatter_reduce = native_function(
    "scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
    "bool include_self=True) -> Tensor",
    "scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, str reduce, *, "
    "bool include_self=True) -> Tensor(a!)",
    "scatter_reduce.two_out(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
    "bool include_self=True, Tensor(a!) out) -> Tensor(a!)",
    kernel=from_inplace(
        _write_scatter_reduce,
        start=_clone_row_major,
        meta_checks=_check_scatter_reduce,
        checks=_SCATTER_CHECKS,
        inplace_checks=(*_SCATTER_CHECKS, _check_scatter_reduce_op),
        exact_dtype=True,
        meta=_like_self,
        resized_checks=(_check_scatter_reduce_op, Overlap(partial=("self",))),
    ),
    derivative=Derivative(
        "ScatterReduceBackward0",
        save=("self", "dim", "index", "src", "reduce", "include_self", "result"),
        grads={
            "self": lambda grad, s: reduction_self_grad(grad, s, s.src, _scattered(s)),
            "src": lambda grad, s: reduction_src_grad(grad, s, s.src, _scattered(s)),
        },
    ),
    doc="""``torch.scatter_reduce``: ``src`` reduced into a copy of ``input`` where ``index`` says.

    ``reduce`` is ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``: every value
    sent to a position is combined with it (``include_self=True``) or only with each
    other (``include_self=False``: positions nothing is sent to keep their value).
    """,
)

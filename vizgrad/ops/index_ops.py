"""``index_select``, ``index_add``, ``index_copy``, ``index_fill``, ``index_reduce`` (``TensorAdvancedIndexing.cpp``).

Whole slices picked by an index along one dim: ``index`` is a 1-D tensor of positions
along ``dim``; each position names a whole slice of ``self`` (all the other dims),
which is read (``index_select``), added to, copied into, filled, or reduced into
(a product, mean, maximum or minimum of the slices sent there).
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dtypes import BOOL, COMPLEX, int32, int64
from ..shape import wrap_dim
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .creation import checked_scalar
from .declaration import native_function
from .indexing_common import (
    _check_index_in_range,
    _clone_keeping_layout,
    _clone_row_major,
    _fresh,
    _like_self,
    _nonempty_size,
    fill_value,
    from_inplace,
)
from .overload_kernels import Overlap, meta_then_impl, out_wrapper
from .parts import _select_geometry
from .scatter_gather import (
    REDUCTIONS,
    Scattering,
    divide_by_counts,
    not_implemented_for,
    reduction_identity,
    reduction_self_grad,
    reduction_src_grad,
)
from .sorting import unique

__all__ = [
    "index_select",
    "index_add",
    "index_copy",
    "index_fill",
    "index_reduce",
]


# --- index_select --------------------------------------------------------------------


def _check_index_select(self: Tensor, dim: int, index: Tensor) -> int:
    """``index_select_out_cpu_``'s argument checks, in its order; returns the wrapped dim."""
    dim = wrap_dim(dim, len(self._size))
    if len(index._size) > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not self._size and index.numel() != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)"
        )
    if index._dtype not in (int32, int64):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    return dim


def _check_index_select_out(self: Tensor, dim: int, index: Tensor, *, out: Tensor) -> None:
    _check_index_select(self, dim, index)
    if out._dtype is not self._dtype:
        raise RuntimeError("index_select(): self and result must have the same scalar type")


def _index_select_meta(self: Tensor, dim: int, index: Tensor) -> tuple:
    """``index_select``'s result: ``self``'s shape with ``index.numel()`` slices along
    ``dim`` (a 0-dim ``self`` stays 0-dim), row-major."""
    dim = _check_index_select(self, dim, index)
    if not self._size:
        return (), self._dtype
    size = list(self._size)
    size[dim] = index.numel()
    return tuple(size), self._dtype


def _index_select_kernel(self: Tensor, dim: int, index: Tensor) -> Tensor:
    dim = _check_index_select(self, dim, index)
    positions = index._array.reshape(-1)
    size = self._size[dim] if self._size else 1
    if positions.size and (positions.min() < 0 or positions.max() >= size):
        raise IndexError("index out of range in self")
    if not self._size:  # a 0-dim tensor stays 0-dim
        return _fresh(self._array.copy(), self._dtype)
    return _fresh(np.take(self._array, positions, axis=dim), self._dtype)


def _index_select_backward(grad: Tensor, saved) -> Tensor:
    """``index_select_backward``: slices picked several times get their gradients summed."""
    zeros = grad.new_zeros(saved.self_sym_sizes)
    if not zeros._size:  # a 0-dim self: its one element was picked (once per index)
        return grad.sum() if grad._size else grad
    return zeros.index_add(saved.dim, saved.index.reshape(-1), grad)


index_select = native_function(
    "index_select(Tensor self, int dim, Tensor index) -> Tensor",
    "index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=meta_then_impl(_index_select_meta, _index_select_kernel),
    # It reads ``self`` and ``index`` in another order than it writes: ``out`` may
    # share no memory with either.
    kernels={"index_select.out": out_wrapper(
        _index_select_kernel, check_cast=False, meta=_index_select_meta,
        checks=(_check_index_select_out, Overlap(internal=True, full=("self", "index"))),
    )},
    derivative=Derivative("IndexSelectBackward0", complex=True, save=("self_sym_sizes", "dim", "index"),
                          grads={"self": _index_select_backward}),
    doc="``torch.index_select``: the slices ``index`` names along ``dim``, in that order.",
)  # fmt: skip


# --- index_add, index_copy, index_fill ------------------------------------------------


def _slices_along(t: Tensor, dim: int) -> np.ndarray:
    """``t`` with ``dim`` moved to the front: ``result[k]`` is slice ``k`` along ``dim``."""
    if not t._size:
        return t._array.reshape(1)
    return np.moveaxis(t._array, dim, 0)


def _check_index_func(func: str, self: Tensor, dim: int, index: Tensor, source: Tensor) -> None:
    """``index_func_meta_impl``: the argument checks ``index_add`` and ``index_reduce``
    share, in its order (``dim`` already wrapped)."""
    if len(index._size) > 1:
        raise IndexError(
            f"{func}_(): Index is supposed to be a vector, but got dim: {len(index._size)} "
            f"with type: {index._dtype.scalar_name} and size: {list(index._size)}"
        )
    if index._dtype not in (int32, int64):
        raise RuntimeError(
            f"{func}_(): Expected dtype int32/int64 for index but got: {index._dtype.scalar_name}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"{func}_(): self ({self._dtype.scalar_name}) and source "
            f"({source._dtype.scalar_name}) must have the same scalar type"
        )
    if dim != 0 and dim >= len(source._size):
        raise RuntimeError(
            f"{func}_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
            f"{len(source._size)}"
        )
    count = index.numel()
    if count != (source._size[dim] if source._size else 1):
        # (PyTorch's message reads ``source.size(dim)``: an error of its own for a 0-dim source.)
        raise RuntimeError(
            f"{func}_(): Number of indices ({count}) should be equal to source.size(dim): "
            f"({source.size(dim)}), for dim: {dim}"
        )
    self_rest, source_rest = list(self._size), list(source._size)
    if self_rest and source_rest:
        del self_rest[dim], source_rest[dim]
    if self_rest != source_rest:
        raise RuntimeError(
            f"source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(self._size)} source.shape = {list(source._size)}"
        )


def _index_func_kernels(write, check, *, structured_device: bool = False) -> from_inplace:
    """The kernels of a structured ``index_*`` operator (``index_add``, ``index_reduce``).

    ``index_func_meta_impl``: the argument checks (``check``), ``set_output``, then ``out``
    may share no memory with ``index`` or ``source``; the kernel starts with
    ``out.copy_(self)``, a row-major copy. In place, the same meta function checks
    ``self``, its output.
    """
    return from_inplace(
        write,
        start=_clone_row_major,
        meta_checks=check,
        checks=check,
        exact_dtype=True,
        meta=_like_self,
        resized_checks=Overlap(internal=True, full=("index", "source"), partial=("self",)),
        inplace_checks=(check, Overlap(internal=True, full=("index", "source"))),
        structured_device=structured_device,
    )


def _check_index_add(self, dim, index, source, *, alpha=1, out=None) -> int:
    """``index_add``'s meta function's argument checks; returns the wrapped dim."""
    devices = [t._storage.device for t in (self, index, source)]
    if len(set(devices)) > 1:  # a meta tensor beside a CPU one
        raise RuntimeError(
            f"index_add(): self, index and source expected to be in the same device, but got "
            f"(self) {devices[0]}, (index) {devices[1]}, and (source) {devices[2]}"
        )
    dim = wrap_dim(dim, len(self._size))
    _check_index_func("index_add", self, dim, index, source)
    return dim


def _write_index_add(self, dim, index, source, *, alpha=1):
    dim = _check_index_add(self, dim, index, source, alpha=alpha)
    positions = index._array.reshape(-1)
    if len(self._size) > 1:
        if not positions.size or not self.numel():
            return  # nothing to add, and no index is checked
        _check_index_in_range(_fresh(positions, int64), self._size[dim], dim)
    elif positions.size and (positions.min() < 0 or positions.max() >= self.numel()):
        # The kernel's loop for a vector (or a scalar) checks each index itself.
        raise IndexError("index out of range in self")
    values = _slices_along(source, dim)
    if alpha != 1:
        values = values * fill_value(alpha, self._dtype)
    np.add.at(_slices_along(self, dim), positions, values)


def _sliced_sizes(t: Tensor, dim: int) -> str:
    """``t``'s sizes without ``dim``, as C++ streams a ``std::vector`` (``3 4``)."""
    sizes = list(t._size)
    if sizes:
        del sizes[dim]
    return " ".join(str(size) for size in sizes)


def _check_index_copy(self, dim, index, source, *, out=None) -> int:
    """``index_copy``'s meta function's argument checks, in its order; returns the
    wrapped dim."""
    dim = wrap_dim(dim, len(self._size))
    if len(index._size) > 1:
        raise IndexError(
            f"index_copy_(): Index should have dimension 1 or 0 (got {len(index._size)})"
        )
    count = index.numel()
    if not source._size and count != 1:
        raise IndexError(
            f"index_copy_(): When source is scalar, index should have one element (got {count})"
        )
    if len(source._size) != len(self._size) and source._size and self._size:
        raise IndexError(
            f"index_copy_(): When source and destination are not scalars, their dimensionality "
            f"must match. Source dimensionality ({len(source._size)}), destination "
            f"dimensionality ({len(self._size)})"
        )
    if index._dtype is not int64:
        raise RuntimeError(
            f"index_copy_(): Expected a long tensor for index, but got {index._dtype.scalar_name}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{self._dtype.scalar_name} and (source) {source._dtype.scalar_name}"
        )
    if _sliced_sizes(self, dim) != _sliced_sizes(source, dim):
        raise RuntimeError(
            f"index_copy_(): Source/destination tensor must have same slice shapes. "
            f"Destination slice shape: {_sliced_sizes(self, dim)} at dimension {dim} and "
            f"source slice shape: {_sliced_sizes(source, dim)} at dimension 0."
        )
    if source._size and count != source._size[dim]:
        raise IndexError(
            f"index_copy_(): Number of indices ({count}) should be equal to source.size(dim) "
            f"({source._size[dim]})"
        )
    return dim


def _slices_are_empty(t: Tensor, dim: int) -> bool:
    """Another dim has size 0: the kernel iterates over no element, so it checks no index."""
    return any(size == 0 for d, size in enumerate(t._size) if d != dim)


def _write_index_copy(self, dim, index, source):
    dim = _check_index_copy(self, dim, index, source)
    if _slices_are_empty(self, dim):
        return
    positions = index._array.reshape(-1)
    size = _nonempty_size(self, dim)
    bad = (positions < 0) | (positions >= size)
    if bad.any():
        raise IndexError(
            f"index_copy_(): index {int(positions[np.argmax(bad)])} is out of bounds for "
            f"dimension {dim} with size {size}"
        )
    _slices_along(self, dim)[positions] = _slices_along(source, dim)


def _check_index_fill_index(self, dim, index, value) -> None:
    """``index_fill_``'s first checks: a Tensor ``value`` must be 0-dim (checked before it
    is read as a number), then the index must be int64."""
    if isinstance(value, Tensor) and value._size:
        raise RuntimeError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{len(value._size)} dimension(s)."
        )
    if index._dtype is not int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")


def _check_index_fill(self, dim, index, value) -> int:
    """``index_fill_``'s checks in its order: the value's dims and the index's dtype, a
    complex value for a real tensor (a Tensor value is read: not on the meta device),
    the dim, and then the index's dims; returns the wrapped dim."""
    _check_index_fill_index(self, dim, index, value)
    if not isinstance(value, Tensor) or not value.is_meta:
        scalar = value.item() if isinstance(value, Tensor) else value
        if isinstance(scalar, complex) and not self._dtype.is_complex:
            raise RuntimeError(
                "index_fill_(): Converting complex Scalar to non-complex type is not supported"
            )
    dim = wrap_dim(dim, len(self._size))
    if len(index._size) > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    return dim


def _write_index_fill(self, dim, index, value):
    dim = _check_index_fill(self, dim, index, value)
    scalar = value.item() if isinstance(value, Tensor) else value
    if _slices_are_empty(self, dim):
        return
    positions = index._array.reshape(-1)
    size = _nonempty_size(self, dim)
    bad = (positions < -size) | (positions >= size)
    if bad.any():
        raise IndexError(
            f"index {int(positions[np.argmax(bad)])} is out of bounds for dimension {dim} "
            f"with size {size}"
        )
    _slices_along(self, dim)[positions] = checked_scalar(scalar, self._dtype)


def _source_slices_grad(grad: Tensor, saved) -> Tensor:
    """The gradient of ``source`` in ``index_add``/``index_copy``: the slices it went to.

    PyTorch saves ``source`` itself for this (``expand_as(source)``), so changing it in
    place before the backward is an error, as there.
    """
    picked = grad.index_select(saved.dim, saved.index.reshape(-1))
    if not saved.source._size:  # a 0-dim source went to one position
        return picked.reshape(())
    return picked.expand_as(saved.source)


def _index_add_source_grad(grad: Tensor, saved) -> Tensor:
    picked = _source_slices_grad(grad, saved)
    return picked if saved.alpha == 1 else picked * saved.alpha


def _zero_filled_slices(grad: Tensor, saved) -> Tensor:
    # Slices that were overwritten (index_copy, index_fill) no longer depend on ``self``.
    return grad.index_fill(saved.dim, saved.index, 0)


def _index_fill_value_grad(grad: Tensor, saved) -> Tensor:
    """The filled value reached every filled slice once (repeated indices count once)."""
    return grad.index_select(saved.dim, unique(saved.index.reshape(-1), sorted=False)).sum()


def _index_copy_meta(self: Tensor, dim: int, *_args) -> tuple:
    wrap_dim(dim, len(self._size))
    return _like_self(self)


# PyTorch's index_add and index_copy are structured kernels writing into a row-major
# output; index_fill is ``self.clone().index_fill_(...)``, keeping a dense layout.
index_add = native_function(
    "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor",
    "index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) "
    "-> Tensor(a!)",
    "index_add.out(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_index_func_kernels(_write_index_add, _check_index_add),
    derivative=Derivative(
        "IndexAddBackward0",
        complex=True,
        save=("dim", "index", "source", "alpha"),
        grads={"self": lambda grad, saved: grad, "source": _index_add_source_grad},
        reads={"source": ("source",)},
    ),
    doc="``torch.index_add``: ``out[index[k]] += alpha * source[k]`` along ``dim``; repeats "
    "add up.",
)

index_copy = native_function(
    "index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
    "index_copy_(Tensor(a!) self, int dim, Tensor index, Tensor source) -> Tensor(a!)",
    "index_copy.out(Tensor self, int dim, Tensor index, Tensor source, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    # Its meta function sets ``out`` and checks its memory before the arguments.
    kernel=from_inplace(
        _write_index_copy,
        start=_clone_row_major,
        meta_checks=_check_index_copy,
        exact_dtype=True,
        meta=_index_copy_meta,
        resized_checks=(
            Overlap(internal=True, full=("index", "source")),
            _check_index_copy,
            Overlap(partial=("self",)),
        ),
        inplace_checks=Overlap(internal=True, full=("index", "source")),
    ),
    derivative=Derivative(
        "IndexCopyBackward0",
        complex=True,
        save=("dim", "index", "source"),
        grads={"self": _zero_filled_slices, "source": _source_slices_grad},
        reads={"source": ("source",)},
    ),
    doc="``torch.index_copy``: ``out[index[k]] = source[k]`` along ``dim``.",
)

index_fill = native_function(
    "index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
    "index_fill_.int_Scalar(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)",
    "index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor",
    "index_fill_.int_Tensor(Tensor(a!) self, int dim, Tensor index, Tensor value) -> Tensor(a!)",
    # ``index_fill_``: the index's dtype, then it may not be ``self``; an expanded ``self``
    # is only deprecated.
    kernel=from_inplace(
        _write_index_fill,
        start=_clone_keeping_layout,
        meta_checks=_check_index_fill,
        inplace_checks=(
            _check_index_fill_index,
            Overlap(full=("index",), deprecated_expanded="index_fill_"),
        ),
    ),
    derivatives={
        "index_fill.int_Scalar": Derivative("IndexFillBackward0", complex=True, save=("dim", "index"),
                                            grads={"self": _zero_filled_slices}),
        "index_fill.int_Tensor": Derivative("IndexFillBackward1", complex=True, save=("dim", "index"),
                                            grads={"self": _zero_filled_slices,
                                                   "value": _index_fill_value_grad}),
    },
    doc="``torch.index_fill``: a copy of ``input``, the slices ``index`` names set to ``value``.",
)  # fmt: skip


# --- index_reduce ----------------------------------------------------------------------


def _check_index_reduce(self, dim, index, source, reduce, *, include_self=True, out=None) -> int:
    """``index_reduce``'s meta function: the reduction's name, then ``index_add``'s checks;
    returns the wrapped dim."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    dim = wrap_dim(dim, len(self._size))
    _check_index_func("index_reduce", self, dim, index, source)
    return dim


def _write_index_reduce(self, dim, index, source, reduce, *, include_self=True):
    """``index_reduce_func_impl``: each slice of ``source`` reduced into the slice of
    ``self`` its index names (with ``include_self=False``, those slices start from the
    reduction's identity instead of ``self``'s values)."""
    dim = _check_index_reduce(self, dim, index, source, reduce)
    warn_at_user_code("index_reduce() is in beta and the API may change at any time.")
    dtype = self._dtype
    if not include_self:  # compiled for real numbers only
        if dtype.category in (BOOL, COMPLEX):
            raise not_implemented_for("index_reduce_func_exclude_input_init", dtype)
        _write_index_fill(self, dim, index.to(int64), reduction_identity(reduce, dtype))
    positions = index._array.reshape(-1)
    if len(self._size) > 1:
        # Slice by slice, through the binary ops' kernels (``mul``, ``maximum``…).
        if not positions.size:
            return
        _select_geometry(self, dim, 0)  # the slices are walked from the first one
        bad = (positions < 0) | (positions >= self._size[dim])
        # The first slice's index is checked, then its kernel runs.
        if reduce in ("amax", "amin") and dtype.category == COMPLEX and not bad[0]:
            raise not_implemented_for("maximum_cpu" if reduce == "amax" else "minimum_cpu", dtype)
    else:
        # Element by element, in a loop compiled for real numbers only.
        if dtype.category in (BOOL, COMPLEX):
            raise not_implemented_for("index_func_", dtype)
        bad = (positions < 0) | (positions >= self.numel())
    if bad.any():
        raise IndexError("index out of range in self")
    slices = _slices_along(self, dim)
    with np.errstate(all="ignore"):  # overflow to inf, inf * 0: as C++ computes them
        REDUCTIONS[reduce].at(slices, positions, _slices_along(source, dim))
    if reduce == "mean":  # the sums, divided by how many slices each got
        if dtype.category == BOOL:
            raise not_implemented_for("div_floor_cpu", dtype)
        counts = np.full(len(slices), int(include_self), dtype.numpy)
        np.add.at(counts, positions, 1)
        divide_by_counts(slices, counts.reshape(-1, *(1,) * (slices.ndim - 1)), dtype)


def _indexed(s) -> Scattering:
    return Scattering(
        lambda base, values: base.index_reduce(s.dim, s.index, values, "prod",
                                               include_self=s.include_self),
        lambda base, values: base.index_add(s.dim, s.index, values),
        lambda t: t.index_select(s.dim, s.index),
        lambda t: t.index_fill(s.dim, s.index, 0),
    )  # fmt: skip


index_reduce = native_function(
    "index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, "
    "bool include_self=True) -> Tensor",
    "index_reduce_(Tensor(a!) self, int dim, Tensor index, Tensor source, str reduce, *, "
    "bool include_self=True) -> Tensor(a!)",
    "index_reduce.out(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, "
    "bool include_self=True, Tensor(a!) out) -> Tensor(a!)",
    # PyTorch 2.13 runs index_reduce's C++ meta function on meta tensors (index_add's
    # goes through Python): an ``out`` elsewhere is refused as structured kernels refuse it.
    kernel=_index_func_kernels(_write_index_reduce, _check_index_reduce, structured_device=True),
    derivative=Derivative(
        "IndexReduceBackward0",
        save=("self", "dim", "index", "source", "reduce", "include_self", "result"),
        grads={
            "self": lambda grad, s: reduction_self_grad(grad, s, s.source, _indexed(s)),
            "source": lambda grad, s: reduction_src_grad(grad, s, s.source, _indexed(s)),
        },
    ),
    doc="""``torch.index_reduce``: each slice of ``source`` reduced into the slice of
    ``input`` that ``index`` names along ``dim``.

    ``reduce`` is ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``; with
    ``include_self=False`` the slices written start from the values sent there only.
    """,
)

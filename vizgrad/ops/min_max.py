"""The extremes and where they are: ``max``, ``argmax``… (``ReduceOps.cpp``, ``TensorCompare.cpp``).

``max``, ``min``, ``amax``, ``amin``, ``argmax``, ``argmin`` and ``aminmax`` live here.

``max`` is three operators under one name, told apart by the argument parser: ``max(t)``
is the largest element, ``max(t, dim)`` returns the values *and* their indices
(``vizgrad.return_types.max``), and ``max(a, b)`` is ``maximum``. ``amax`` returns only
the values, ``argmax`` only the indices. Their gradients flow only to the selected
elements (a full ``max()`` shares it evenly among ties).
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes as dt
from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT, NONDIFFERENTIABLE
from ..promotion import can_cast
from ..shape import wrap_dim
from ..tensor import Tensor
from . import reduction_machinery
from .arithmetic import maximum, minimum
from .declaration import native_function
from .overload_kernels import Overlap, Precomputed, meta_then_impl, out_wrapper
from .reduction_args import check_reducible, numpy_axes, reduced_shape, reduction_dims
from .reduction_backward import (
    evenly_distributed_derivative,
    extreme_backward,
    selecting_derivative,
)
from .reduction_machinery import interruptible, wrap_result
from .registry import write_to_out

__all__ = [
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "aminmax",
]


def _check_not_complex(kernel_name: str, input: Tensor) -> None:
    """Ordering ops are not compiled for complex numbers (they have no order)."""
    if input._dtype.category == dt.COMPLEX:
        raise NotImplementedError(
            f"\"{kernel_name}\" not implemented for '{input._dtype.scalar_name}'"
        )


# --- the values: amax, amin ---------------------------------------------------------------


def extreme_dims(fn_name: str, self: Tensor, dim) -> tuple[int, ...]:
    """``amax``/``amin``'s checks (the dims, no empty reduced dim, then the dtype dispatch
    of ``max_values_cpu``, which an input without elements never reaches) and the dims
    reduced."""
    dims = reduction_dims(dim, self.dim())
    check_reducible(fn_name, self, dims, full=len(dims) == self.dim())
    if self.numel():
        _check_not_complex(f"{fn_name[1:]}_values_cpu", self)
    return dims


def _extreme(np_extreme, fn_name: str, self: Tensor, dim, keepdim: bool) -> Tensor:
    """``np.max``/``np.min`` over ``dim`` (every dim for an empty list), as PyTorch's
    ``amax``/``amin``: there is no identity, so an empty reduced dim is an error."""
    dims = extreme_dims(fn_name, self, dim)
    with np.errstate(all="ignore"):
        result = interruptible(np_extreme, self._array, numpy_axes(self, dims), keepdim)
    return wrap_result(result, self._dtype)


def _amax_kernel(self: Tensor, dim=(), keepdim=False) -> Tensor:
    return _extreme(np.max, "amax", self, dim, keepdim)


def _amin_kernel(self: Tensor, dim=(), keepdim=False) -> Tensor:
    return _extreme(np.min, "amin", self, dim, keepdim)


def same_dtype_out(kernel):
    """``amax``/``amin`` write only into an ``out`` of the input's dtype (``kernel``: the
    CPU one, or the meta one)."""

    def out_kernel(self: Tensor, dim=(), keepdim=False, *, out: Tensor) -> Tensor:
        if out._dtype is not self._dtype:  # checked first, as ``amax_out``'s meta does
            raise RuntimeError(
                f"Expected the dtype for input and out to match, but got "
                f"{self._dtype.scalar_name} for input's dtype and {out._dtype.scalar_name} "
                "for out's dtype."
            )
        return write_to_out(kernel(self, dim, keepdim), out)

    return out_kernel


def _extreme_derivative(name: str) -> Derivative:
    """``amax``/``amin``: the gradient goes to the elements equal to their slice's result."""
    return Derivative(name, save=("self", "result", "dim", "keepdim"), grads={
        "self": lambda grad, saved: extreme_backward(grad, saved.self, saved.result, saved.dim,
                                                     saved.keepdim)})  # fmt: skip


amax = native_function(
    "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_amax_kernel,
    kernels={"amax.out": same_dtype_out(_amax_kernel)},
    derivative=_extreme_derivative("AmaxBackward0"),
    doc="``torch.amax``: the largest values over one or more dims (no indices).",
)
amin = native_function(
    "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_amin_kernel,
    kernels={"amin.out": same_dtype_out(_amin_kernel)},
    derivative=_extreme_derivative("AminBackward0"),
    doc="``torch.amin``: the smallest values over one or more dims (no indices).",
)


# --- where they are: argmax, argmin -------------------------------------------------------


def _arg_reduce(np_arg, self: Tensor, dim, keepdim: bool) -> np.ndarray:
    """``np.argmax``/``np.argmin`` over one (wrapped) dim, or the flattened input when
    ``dim`` is None. Both return the first index of a tie, and of a nan, as PyTorch's
    CPU does."""
    if dim is None:
        index = np_arg(self._array.reshape(-1)) if self._size else np.int64(0)
        return np.asarray(index, dtype=np.int64).reshape((1,) * self.dim() if keepdim else ())
    if not self._size:
        return np.zeros((), dtype=np.int64)
    indices, _ = _sliced_arg(np_arg, self._array, dim, values_first=False)
    return indices if keepdim else indices.squeeze(dim)


def _sliced_arg(np_arg, array: np.ndarray, axis: int, *, values_first: bool = True):
    """Indices (int64) and values of ``np_arg`` along ``axis`` (kept, size 1), in calls
    of at most ``reduction_machinery.CHUNK_ELEMENTS`` elements, as ``interruptible``
    reduces: PyTorch reads an ``expand``ed input in place for hours, and so do we, a
    slice at a time, so Ctrl-C stops it. Both results are allocated first (what PyTorch's
    meta step allocates, ``max.dim``'s values first, ``argmax``'s only output its indices:
    too big, the same error at once). A later slice wins only with
    a better value, or a nan where there was none: the first of a tie, the first nan."""
    shape = tuple(1 if d == axis else n for d, n in enumerate(array.shape))
    if values_first:
        values = np.empty(shape, dtype=array.dtype)
        indices = np.empty(shape, dtype=np.int64)
    else:
        indices = np.empty(shape, dtype=np.int64)
        values = np.empty(shape, dtype=array.dtype)
    _fill_arg(np_arg, array, axis, indices, values, 0)
    return indices, values


def _fill_arg(np_arg, array, axis: int, indices, values, start: int) -> None:
    if array.size <= reduction_machinery.CHUNK_ELEMENTS:
        found = np.asarray(np_arg(array, axis=axis, keepdims=True), dtype=np.int64)
        np.copyto(values, np.take_along_axis(array, found, axis=axis))
        np.copyto(indices, found + start)
        return
    cut = builtins.max(range(array.ndim), key=lambda d: array.shape[d])
    length = array.shape[cut]
    step = builtins.max(1, reduction_machinery.CHUNK_ELEMENTS // (array.size // length))
    before = (slice(None),) * cut
    for begin in range(0, length, step):
        part = (*before, slice(begin, begin + step))
        if cut != axis:  # a kept dim: each slice fills its own part of the results
            _fill_arg(np_arg, array[part], axis, indices[part], values[part], start)
            continue
        found = np.empty_like(indices)
        best = np.empty_like(values)
        _fill_arg(np_arg, array[part], axis, found, best, start + begin)
        if begin == 0:
            np.copyto(indices, found)
            np.copyto(values, best)
            continue
        with np.errstate(invalid="ignore"):
            better = best > values if np_arg is np.argmax else best < values
        if values.dtype.kind in "fc":
            better = (better & ~np.isnan(values)) | (np.isnan(best) & ~np.isnan(values))
        np.copyto(indices, found, where=better)
        np.copyto(values, best, where=better)


def check_arg_reduction(fn_name: str, self: Tensor, dim):
    """``argmax``/``argmin``'s checks; ``dim`` wrapped (None: the flattened input)."""
    if self._dtype.category == dt.COMPLEX:
        raise RuntimeError(f"{fn_name}(): does not support complex input")
    if self._dtype is dt.bool:
        raise RuntimeError(f"{fn_name}(): does not support bool input")
    if dim is None:
        check_reducible(fn_name, self, (), full=True, index_error=True)
        return None
    dim = wrap_dim(dim, self.dim())
    check_reducible(fn_name, self, (dim,), full=False)
    return dim


def _index_kernel(np_arg, fn_name: str):
    def kernel(self: Tensor, dim=None, keepdim=False) -> Tensor:
        dim = check_arg_reduction(fn_name, self, dim)
        return wrap_result(_arg_reduce(np_arg, self, dim, keepdim), dt.int64)

    return kernel


def arg_reduction_meta(fn_name: str):
    """``TORCH_META_FUNC(argmax)``: the checks, then the indices' shape (``dim`` reduced,
    or every dim when it is None)."""

    def meta(self: Tensor, dim=None, keepdim=False, **_outs):
        dim = check_arg_reduction(fn_name, self, dim)
        dims = tuple(range(self.dim())) if dim is None else (dim,)
        return (reduced_shape(self._size, dims, keepdim), dt.int64)

    return meta


_argmax_meta, _argmin_meta = arg_reduction_meta("argmax"), arg_reduction_meta("argmin")
_argmax_impl = _index_kernel(np.argmax, "argmax")
_argmin_impl = _index_kernel(np.argmin, "argmin")
_argmax_kernel = meta_then_impl(_argmax_meta, _argmax_impl)
_argmin_kernel = meta_then_impl(_argmin_meta, _argmin_impl)

# An index is an integer: nothing to differentiate.
argmax = native_function(
    "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    "argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_argmax_kernel,
    kernels={
        "argmax.out": out_wrapper(
            _argmax_kernel, exact_dtype=True, meta=_argmax_meta, impl=_argmax_impl
        )
    },  # fmt: skip
    kind=NONDIFFERENTIABLE,
    doc="``torch.argmax``: where the largest element is (in the flattened input when "
    "``dim`` is None).",
)
argmin = native_function(
    "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    "argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_argmin_kernel,
    kernels={
        "argmin.out": out_wrapper(
            _argmin_kernel, exact_dtype=True, meta=_argmin_meta, impl=_argmin_impl
        )
    },  # fmt: skip
    kind=NONDIFFERENTIABLE,
    doc="``torch.argmin``: where the smallest element is.",
)


# --- max and min: of everything, along a dim, of two tensors --------------------------------


def _reduced_shape(self: Tensor, dim: int, keepdim: bool) -> tuple:
    """``self``'s shape without ``dim`` (size 1 with ``keepdim``); a 0-dim ``self``'s is ()."""
    if not self._size:
        return ()
    if keepdim:
        return tuple(1 if d == dim else s for d, s in enumerate(self._size))
    return tuple(s for d, s in enumerate(self._size) if d != dim)


def _with_indices_meta(fn_name: str):
    """``TORCH_PRECOMPUTE_META_FUNC2(max, dim)``: the checks, then both outputs' shapes
    (``resize_reduction_with_indices``), before the kernel reads ``self``; ``dim``
    wrapped once, against ``self`` as the caller gave it."""

    def meta(self: Tensor, dim: int, keepdim=False, **_outs) -> Precomputed:
        _check_not_complex(f"{fn_name}_all", self)
        dim = wrap_dim(dim, self.dim())
        check_reducible(fn_name, self, (dim,), full=False)
        shape = _reduced_shape(self, dim, keepdim)
        return Precomputed([(shape, self._dtype), (shape, dt.int64)], dim=dim)

    return meta


def _with_indices_impl(np_arg):
    """``minmax_out_impl``: reads ``self`` as it is after the meta step (an output that
    is ``self`` was resized, ``self`` with it), with the ``dim`` the meta step wrapped;
    an empty ``self`` is not read, and its outputs stay as the meta step made them."""

    def impl(self: Tensor, dim: int, keepdim=False):
        dim = wrap_dim(dim, self.dim())
        if not self._size:  # a 0-dim ``self`` is its own extreme, at index 0
            return self.clone(), self.new_zeros((), dtype=dt.int64)
        if not self.numel():
            return None
        indices, values = _sliced_arg(np_arg, self._array, dim)
        if not keepdim:
            indices, values = indices.squeeze(dim), values.squeeze(dim)
        return wrap_result(values, self._dtype), wrap_result(indices, dt.int64)

    return impl


_max_dim_meta, _min_dim_meta = _with_indices_meta("max"), _with_indices_meta("min")
_max_dim_impl, _min_dim_impl = _with_indices_impl(np.argmax), _with_indices_impl(np.argmin)
_max_dim_kernel = meta_then_impl(_max_dim_meta, _max_dim_impl)
_min_dim_kernel = meta_then_impl(_min_dim_meta, _min_dim_impl)


def check_whole(fn_name: str, self: Tensor) -> None:
    """``max(t)``/``min(t)``'s checks: no complex, and some element to pick."""
    check_reducible(fn_name, self, (), full=True)
    _check_not_complex(f"{fn_name}_all", self)


def check_whole_unary_out(fn_name: str, self: Tensor) -> None:
    """``max(t, out=)``'s checks (``max_unary_out``): no complex, and nothing else. Of an
    empty input PyTorch's ``max_all`` gives the reduction's identity (``empty_extreme``)."""
    _check_not_complex(f"{fn_name}_all", self)


def empty_extreme(fn_name: str, dtype: dt.dtype) -> np.ndarray:
    """What ``max_all``/``min_all`` give of no element: where they start, the lowest value
    of ``dtype`` for ``max`` (``-inf``, ``False``), the highest for ``min``."""
    np_dtype = dtype.numpy
    largest = fn_name == "min"
    if np_dtype.kind == "b":
        value = largest
    elif np_dtype.kind == "f":
        value = np.inf if largest else -np.inf
    else:
        info = np.iinfo(np_dtype)
        value = info.max if largest else info.min
    return np.array(value, np_dtype)


def _whole(np_extreme, fn_name: str, *, unary_out: bool = False):
    """``max(t)``: the largest of all the elements (an empty input has none). For
    ``max.unary_out`` an empty input is no error (see ``check_whole_unary_out``)."""

    def kernel(self: Tensor) -> Tensor:
        if unary_out:
            check_whole_unary_out(fn_name, self)
            if not self.numel():
                return wrap_result(empty_extreme(fn_name, self._dtype), self._dtype)
        else:
            check_whole(fn_name, self)
        with np.errstate(all="ignore"):
            return wrap_result(interruptible(np_extreme, _contiguous(self), None, False),
                               self._dtype)  # fmt: skip

    return kernel


def check_unary_out(dtypes, out: Tensor) -> None:
    """``max.unary_out``: the result's dtype must cast to ``out``'s, in ``TORCH_CHECK``'s
    words (its own check, not ``set_output``'s)."""
    if not can_cast(dtypes[0], out._dtype):
        raise RuntimeError(
            "Expected canCast( typeMetaToScalarType(self.dtype()), "
            "typeMetaToScalarType(out.dtype())) to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )


def _contiguous(self: Tensor) -> np.ndarray:
    """What PyTorch's full ``max``, ``min`` and ``aminmax`` read: ``self.contiguous()``. (Of
    an ``expand`` to 10**12 rows, that is a copy too big to allocate: the same error at once.)"""
    return self._array if self._contiguous else np.ascontiguousarray(self._array)


def _elementwise(binary):
    """``max(a, b)`` is ``maximum(a, b)``: CompositeImplicitAutograd, so autograd records
    ``MaximumBackward0``, as in PyTorch."""

    def kernel(self: Tensor, other: Tensor) -> Tensor:
        return binary(self, other)

    def out_kernel(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
        return binary(self, other, out=out)

    return kernel, out_kernel


_max_other, _max_other_out = _elementwise(maximum)
_min_other, _min_other_out = _elementwise(minimum)

# ``max.dim``, ``min.dim`` and ``aminmax`` write both outputs through a TensorIterator that
# reads ``self``: neither may overlap itself nor be part of ``self`` (it may be ``self``).
SELECTION_OVERLAP = Overlap(internal=True, partial=("self",))

max = native_function(  # noqa: A001 - PyTorch's name
    "max(Tensor self) -> Tensor",
    "max.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "max.other(Tensor self, Tensor other) -> Tensor",
    "max.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
    "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    kernels={
        "max": _whole(np.max, "max"),
        "max.other": _max_other,
        "max.out": _max_other_out,
        "max.unary_out": out_wrapper(
            _whole(np.max, "max", unary_out=True), check_dtypes=check_unary_out
        ),
        "max.dim": _max_dim_kernel,
        "max.dim_max": out_wrapper(
            _max_dim_kernel,
            "max",
            "max_values",
            exact_dtype=True,
            meta=_max_dim_meta,
            impl=_max_dim_impl,
            impl_checks=SELECTION_OVERLAP,
        ),  # fmt: skip
    },
    derivatives={
        "max": evenly_distributed_derivative("MaxBackward1"),
        "max.dim": selecting_derivative("MaxBackward0"),
    },
    kinds={"max.other": COMPOSITE_IMPLICIT, "max.out": COMPOSITE_IMPLICIT},
    doc="""``torch.max``: three operators under one name.

    ``max(t)`` is the largest element; ``max(t, dim)`` returns ``(values, indices)``
    along ``dim`` (the first index of a tie; nan wins); ``max(a, b)`` is ``maximum``.
    """,
)
min = native_function(  # noqa: A001 - PyTorch's name
    "min(Tensor self) -> Tensor",
    "min.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "min.other(Tensor self, Tensor other) -> Tensor",
    "min.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min, "
    "Tensor(b!) min_indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    kernels={
        "min": _whole(np.min, "min"),
        "min.other": _min_other,
        "min.out": _min_other_out,
        "min.unary_out": out_wrapper(
            _whole(np.min, "min", unary_out=True), check_dtypes=check_unary_out
        ),
        "min.dim": _min_dim_kernel,
        "min.dim_min": out_wrapper(
            _min_dim_kernel,
            "min",
            "min_indices",
            exact_dtype=True,
            meta=_min_dim_meta,
            impl=_min_dim_impl,
            impl_checks=SELECTION_OVERLAP,
        ),  # fmt: skip
    },
    derivatives={
        "min": evenly_distributed_derivative("MinBackward1"),
        "min.dim": selecting_derivative("MinBackward0"),
    },
    kinds={"min.other": COMPOSITE_IMPLICIT, "min.out": COMPOSITE_IMPLICIT},
    doc="``torch.min``: the smallest element, ``(values, indices)`` along ``dim``, or "
    "``minimum(a, b)``.",
)


# --- both at once: aminmax ----------------------------------------------------------------


def _aminmax_meta(self: Tensor, *, dim=None, keepdim=False, **_outs):
    """``TORCH_META_FUNC(aminmax)``: the checks and both outputs' shape, before the
    kernel reads ``self``. (``dim`` is not precomputed: the impl wraps it again.)"""
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity."
            )
        shape = (1,) * self.dim() if keepdim else ()
    else:
        wrapped = wrap_dim(dim, self.dim())
        check_reducible("aminmax", self, (wrapped,), full=False, separator=": ")
        shape = _reduced_shape(self, wrapped, keepdim)
    return [(shape, self._dtype), (shape, self._dtype)]


def _aminmax_impl(self: Tensor, *, dim=None, keepdim=False):
    """``aminmax_out``: reads ``self`` as it is after the meta step (an output that is
    ``self`` was resized, ``self`` with it), wrapping ``dim`` against it."""
    _check_not_complex("aminmax_cpu", self)
    if dim is None:
        array, axes = _contiguous(self), None
    else:
        dim = wrap_dim(dim, self.dim())
        if self._size and not self._size[dim]:
            # Only a resized ``self`` gets here (the meta step refuses an empty dim): the
            # CPU loop starts from each row's first element before looking at the row.
            first = _row_starts(self, dim, keepdim)
            return wrap_result(first, self._dtype), wrap_result(first, self._dtype)
        array, axes = self._array, numpy_axes(self, (dim,))
    with np.errstate(all="ignore"):
        smallest = interruptible(np.min, array, axes, keepdim)
        largest = interruptible(np.max, array, axes, keepdim)
    return wrap_result(smallest, self._dtype), wrap_result(largest, self._dtype)


def _row_starts(self: Tensor, dim: int, keepdim: bool) -> np.ndarray:
    """The storage elements where the rows of ``self`` along an empty ``dim`` would
    start: what ``compare_base_kernel``'s loop reads first (zeros past the storage's end,
    where PyTorch would read whatever memory follows)."""
    shape = _reduced_shape(self, dim, keepdim)
    strides = [st for d, st in enumerate(self._stride) if keepdim or d != dim]
    flat = self._storage.elements(self._dtype)
    positions = np.full(shape, self._offset, dtype=np.int64)
    for d, (n, st) in enumerate(zip(shape, strides, strict=True)):
        along = [1] * len(shape)
        along[d] = n
        positions = positions + (np.arange(n) * st).reshape(along)
    values = np.zeros(shape, dtype=self._dtype.numpy)
    inside = positions < flat.size
    values[inside] = flat[positions[inside]]
    return values


_aminmax_kernel = meta_then_impl(_aminmax_meta, _aminmax_impl)


def _aminmax_backward(grads, saved) -> Tensor:
    """Both results send their gradient back: the min's to the minima, the max's to the
    maxima (an output that was not used brings zeros)."""
    grad_min, grad_max = grads
    dims = None if saved.dim is None else (saved.dim,)
    return (extreme_backward(grad_min, saved.self, saved.min, dims, saved.keepdim)
            + extreme_backward(grad_max, saved.self, saved.max, dims, saved.keepdim))  # fmt: skip


aminmax = native_function(
    "aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
    "aminmax.out(Tensor self, *, int? dim=None, bool keepdim=False, Tensor(a!) min, "
    "Tensor(b!) max) -> (Tensor(a!) min, Tensor(b!) max)",
    kernel=_aminmax_kernel,
    kernels={
        "aminmax.out": out_wrapper(
            _aminmax_kernel,
            "min",
            "max",
            exact_dtype=True,
            meta=_aminmax_meta,
            impl=_aminmax_impl,
            impl_checks=SELECTION_OVERLAP,
        )
    },  # fmt: skip
    derivative=Derivative(
        "AminmaxBackward0",
        save=("self", "dim", "keepdim", "min", "max"),
        grads={"self": _aminmax_backward},
        multi_output=True,
    ),
    doc="``torch.aminmax``: ``(min, max)`` in one call, over one dim or all of them.",
)

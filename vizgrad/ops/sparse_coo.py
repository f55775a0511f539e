"""The sparse COO layout's operators and SparseCPU kernels (``SparseTensor.cpp``,
``SparseTensorMath.cpp``).

Two kinds of declarations live here:

* the operators that only make sense for a sparse tensor (``_nnz``, ``_indices``,
  ``coalesce``, ``to_dense``…) and the conversions (``to_sparse``), declared like any
  other, each with a CPU kernel for a strided argument (PyTorch's answer for one: a
  value, an error, or "no kernel for the CPU backend") and a SparseCPU kernel;
* the SparseCPU kernels of operators declared elsewhere (``add``, ``mul``, ``sum``, ``mm``,
  ``neg``, ``clone``, ``t``), given to them with ``register_kernel``, as PyTorch's
  ``native_functions.yaml`` lists a ``SparseCPU:`` kernel beside the ``CPU:`` one.

The dispatcher runs a SparseCPU kernel whenever an argument is sparse (see
``vizgrad.dispatcher``). Every kernel works on the two dense parts of a sparse tensor,
its indices ``(sparse_dim, nnz)`` and values ``(nnz, *dense_sizes)``, with NumPy, and
returns a new ``SparseCooTensor`` (or a dense tensor, when the result is dense).

``is_coalesced()`` is a promise the kernels keep as PyTorch's do: ``coalesce`` makes
it true, an operation that keeps the coordinates (``neg``, ``mul`` by a number,
``clone``) keeps it, and one that may reorder or repeat them (``t``, concatenating
``add``) drops it.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..device import check_backend, sparse_coo, strided
from ..dispatcher import (
    COMPOSITE_IMPLICIT,
    FUNCTIONAL,
    NONDIFFERENTIABLE,
    SPARSE_BACKEND_KEY,
    backend_missing,
    register_kernel,
)
from ..dtypes import BOOL, INTEGRAL, int64
from ..grad_mode import state as grad_state
from ..promotion import promote_types, result_type
from ..shape import wrap_dim
from ..sparse_tensor import SparseCooTensor
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .arithmetic import add, mul
from .copy import clone
from .creation import as_tensor
from .declaration import make_leaf_require_grad, native_function
from .detach import detach
from .linalg import addmm, mm
from .permutations import t
from .reduction_args import reduction_dims
from .reductions import sum as sum_
from .registry import OPERATORS
from .shape_composites import narrow_copy
from .size_one_dims import unsqueeze
from .unary import neg

# What ``torch`` itself has; the rest are ``Tensor`` methods only, as in PyTorch.
__all__ = ["sparse_coo_tensor", "_coalesce"]


# --- building a sparse tensor from its parts ------------------------------------------


def _sparse(indices: np.ndarray, values: np.ndarray, size, coalesced: bool | None, dtype=None):
    """A ``SparseCooTensor`` of fresh NumPy parts (``_sparse_coo_tensor_unsafe``), flagged
    coalesced as told (``_coalesced_``), or, if ``None``, when it holds fewer than two."""
    indices_tensor = Tensor._from_array(np.ascontiguousarray(indices, dtype=np.int64), int64)
    values_tensor = Tensor._from_array(np.ascontiguousarray(values), dtype)
    return SparseCooTensor(indices_tensor, values_tensor, size, coalesced)


def _parts(t: SparseCooTensor):
    """The indices and values of ``t`` as NumPy arrays (read-only use)."""
    return t._sparse_indices._array, t._sparse_values._resolved_array()


def _flat_positions(indices: np.ndarray, sparse_sizes) -> np.ndarray:
    """Each coordinate's row-major position among the sparse dims: what sorts and
    matches coordinates (``flatten_indices``)."""
    if not sparse_sizes:
        return np.zeros(indices.shape[1], dtype=np.int64)
    return np.ravel_multi_index(_coordinates(indices, sparse_sizes), sparse_sizes)


def _coordinates(indices: np.ndarray, size) -> tuple:
    """The coordinates as NumPy indexes them, checked against ``size`` first: PyTorch
    accepts a tensor with coordinates out of bounds unless asked to check, and then reads
    past its memory; vizgrad refuses, with the message of PyTorch's check."""
    _check_in_bounds(indices, size)
    return tuple(indices)


def _coalesced_parts(indices: np.ndarray, values: np.ndarray, sparse_sizes):
    """Unique coordinates in row-major order, the values of repeated ones summed."""
    positions = _flat_positions(indices, sparse_sizes)
    unique, inverse = np.unique(positions, return_inverse=True)
    summed = np.zeros((len(unique), *values.shape[1:]), dtype=values.dtype)
    np.add.at(summed, inverse, values)
    if sparse_sizes:
        new_indices = np.stack(np.unravel_index(unique, sparse_sizes)).reshape(
            len(sparse_sizes), -1
        )
    else:
        new_indices = np.zeros((0, len(unique)), dtype=np.int64)
    return new_indices, summed


def _dense_array(t: SparseCooTensor) -> np.ndarray:
    """The dense form of ``t``: zeros, plus each stored value at its coordinate."""
    indices, values = _parts(t)
    if not t._sparse_dim:  # no coordinates: every stored value is the whole tensor
        return values.sum(axis=0)
    dense = np.zeros(t._size, dtype=values.dtype)
    np.add.at(dense, _coordinates(indices, t._size), values)  # repeated coordinates add up
    return dense


def _check_in_bounds(indices: np.ndarray, size) -> None:
    """``_validate_sparse_coo_tensor_args``' check of the coordinates against the size."""
    for d in range(indices.shape[0]):
        if indices.shape[1] == 0:
            break
        low, high = int(indices[d].min()), int(indices[d].max())
        if low < 0:
            raise RuntimeError(f"found negative index {low} for dim {d}")
        if high >= size[d]:
            raise RuntimeError(
                f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found "
                f"index {high}"
            )


def _layout_name(t: Tensor) -> str:
    return "Sparse" if t.is_sparse else "Strided"


def _expect_sparse(what: str, t: Tensor, layouts="sparse coordinate tensor layout") -> None:
    """``TORCH_CHECK(self.layout() == kSparse, ...)`` of the CompositeExplicitAutograd kernels."""
    if not t.is_sparse:
        raise RuntimeError(f"{what} expected {layouts} but got {_layout_name(t)}")


def _no_cpu_kernel(qualname: str):
    """The CPU kernel of an operator PyTorch gives only a SparseCPU one: no kernel at all."""

    def kernel(*args, **kwargs):
        raise backend_missing(OPERATORS[qualname], "CPU")

    return kernel


# --- torch.sparse_coo_tensor ----------------------------------------------------------------

_INVARIANTS_WARNING = (
    "Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur "
    "when operating on a sparse tensor which violates the invariants, but checks incur "
    "performance overhead. To silence this warning, explicitly opt in or out. See "
    "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance. "
)
_warned_invariants = [False]  # PyTorch's TORCH_WARN_ONCE: once per process


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):  # fmt: skip
    """``torch.sparse_coo_tensor``: a sparse COO tensor from coordinates and values.

    ``indices`` (anything ``tensor()`` takes; made int64) holds one column per stored
    element, ``values`` one entry (a number, or a dense block) per column. Without
    ``size`` it is the smallest that holds every coordinate. PyTorch checks only the
    shapes unless ``check_invariants=True``: then coordinates must also be in bounds,
    and ``is_coalesced=True`` must be true. Written by hand in PyTorch's Python bindings
    (``sparse_coo_tensor_ctor`` in ``tensor_new.cpp``).
    """
    if check_invariants is None and not _warned_invariants[0]:
        _warned_invariants[0] = True
        warn_at_user_code(_INVARIANTS_WARNING, UserWarning)
    check_backend(device)
    indices = as_tensor(indices, dtype=int64)
    values = as_tensor(values, dtype=dtype)
    if values._requires_grad and grad_state.enabled:
        # PyTorch records SparseCooTensorWithDimsAndTensorsBackward0 here; vizgrad has no
        # such node, and a result silently cut from the values' graph would be wrong.
        raise NotImplementedError(
            "vizgrad: sparse_coo_tensor from values that require grad is not supported; "
            "detach() them, or build a dense tensor and call to_sparse()"
        )
    if values.dim() == 0:  # ``expand_values_if_needed``: one value, one stored element
        values = values.reshape(1)
    # PyTorch checks the number of dims first when given a size, the indices' shape first
    # when it must infer the size from them.
    if size is None and indices.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices._size)}")
    sparse_dims, dense_dims = indices._size[0], values.dim() - 1
    index_array = indices._array
    if size is None:
        if index_array.size:
            for d in range(sparse_dims):
                low = int(index_array[d].min())
                if low < 0:
                    raise RuntimeError(f"found negative index {low} for dim {d}")
            sparse_sizes = [int(m) + 1 for m in index_array.max(axis=1)]
        else:
            sparse_sizes = [0] * sparse_dims
        size = (*sparse_sizes, *values._size[1:])
    size = tuple(size)
    if len(size) != sparse_dims + dense_dims:
        raise RuntimeError(
            f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
            f"sparse_dim = {sparse_dims}, dense_dim = {dense_dims}"
        )
    if indices.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices._size)}")
    if indices._size[1] != values._size[0]:
        raise RuntimeError(
            f"indices and values must have same nnz, but got nnz from indices: "
            f"{indices._size[1]}, nnz from values: {values._size[0]}"
        )
    expected = [values._size[0], *size[sparse_dims:]]
    if list(values._size) != expected:
        raise RuntimeError(
            f"values has incorrect size, expected {expected}, got {list(values._size)}"
        )
    if check_invariants:
        _check_in_bounds(index_array, size)
        if is_coalesced:
            positions = _flat_positions(index_array, size[:sparse_dims])
            if not np.all(np.diff(positions) > 0):
                raise RuntimeError(
                    "cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor"
                )
    result = _sparse(index_array.copy(), values._resolved_array().copy(), size,
                     is_coalesced, values._dtype)  # fmt: skip
    if requires_grad:
        make_leaf_require_grad(result)
    return result


# --- what a sparse tensor is made of ------------------------------------------------------


def _alias_of(part: Tensor) -> Tensor:
    """The part itself, as a new tensor over its memory (``_indices()`` is an alias)."""
    return part._alias(part._size, part._stride, part._offset)


def _check_coalesced_for(what: str, t: SparseCooTensor) -> None:
    if not t._coalesced:
        raise RuntimeError(
            f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first"
        )


def _sparse_indices_kernel(self):
    _check_coalesced_for("indices", self)
    return _alias_of(self._sparse_indices)


def _sparse_values_kernel(self):
    _check_coalesced_for("values", self)
    return _alias_of(self._sparse_values)


def _values_backward(grad, saved):
    """``values_backward``: the gradient of the values, placed back at their coordinates."""
    return SparseCooTensor(saved.self._sparse_indices, grad, saved.self._size,
                           saved.self._coalesced)  # fmt: skip


def _declare_part(schema: str, cpu_kernel, sparse_kernel, **options):
    """An accessor of a sparse tensor's parts: not a view for autograd (PyTorch's results
    have no ``_base``), and only ``values`` differentiable."""
    function = native_function(schema, kernel=cpu_kernel, variant_of={schema.split("(")[0]: FUNCTIONAL},
                               **options)  # fmt: skip
    for op in function.overloads.values():
        register_kernel(op, SPARSE_BACKEND_KEY, sparse_kernel)
    return function


def _refuse_strided(message: str):
    def kernel(self):
        raise RuntimeError(message)

    return kernel


_nnz = _declare_part("_nnz(Tensor self) -> int", _no_cpu_kernel("aten::_nnz"),
                     lambda self: self._sparse_values._size[0], kind=NONDIFFERENTIABLE,
                     doc="``Tensor._nnz``: how many elements are stored (repeats counted).")  # fmt: skip
sparse_dim = _declare_part("sparse_dim(Tensor self) -> int", lambda self: 0,
                           lambda self: self._sparse_dim, kind=NONDIFFERENTIABLE,
                           doc="``Tensor.sparse_dim``: the leading dims that are sparse (0 if strided).")  # fmt: skip
dense_dim = _declare_part("dense_dim(Tensor self) -> int", lambda self: self.dim(),
                          lambda self: self._dense_dim, kind=NONDIFFERENTIABLE,
                          doc="``Tensor.dense_dim``: the trailing dims each value has.")  # fmt: skip
is_coalesced = _declare_part(
    "is_coalesced(Tensor self) -> bool",
    _refuse_strided("is_coalesced expected sparse coordinate tensor layout but got Strided"),
    lambda self: self._coalesced,
    kind=NONDIFFERENTIABLE,
    doc="``Tensor.is_coalesced``: the coordinates are known to be unique and sorted.",
)
_indices = _declare_part("_indices(Tensor(a) self) -> Tensor(a)", _no_cpu_kernel("aten::_indices"),
                         lambda self: _alias_of(self._sparse_indices), kind=NONDIFFERENTIABLE,
                         doc="``Tensor._indices``: the coordinates, coalesced or not.")  # fmt: skip
_values = _declare_part("_values(Tensor(a) self) -> Tensor(a)", _no_cpu_kernel("aten::_values"),
                        lambda self: _alias_of(self._sparse_values), kind=NONDIFFERENTIABLE,
                        doc="``Tensor._values``: the stored values, coalesced or not.")  # fmt: skip
indices = _declare_part(
    "indices(Tensor(a) self) -> Tensor(a)",
    _refuse_strided("indices expected sparse coordinate tensor layout but got Strided"),
    _sparse_indices_kernel,
    kind=NONDIFFERENTIABLE,
    doc="``Tensor.indices``: the coordinates of a coalesced tensor (one column per element).",
)
values = _declare_part(
    "values(Tensor(a) self) -> Tensor(a)",
    _refuse_strided("values expected sparse tensor layout but got Strided"),
    _sparse_values_kernel,
    derivative=Derivative("ValuesBackward0", save=("self",), grads={"self": _values_backward}),
    doc="``Tensor.values``: the stored values of a coalesced tensor.",
)


# --- coalescing -------------------------------------------------------------------------------


def _coalesce_kernel(self):
    indices, values = _coalesced_parts(*_parts(self), self._size[: self._sparse_dim])
    return _sparse(indices, values, self._size, True, self._dtype)


_coalesce = native_function(
    "_coalesce(Tensor self) -> Tensor",
    kernel=_no_cpu_kernel("aten::_coalesce"),
    # A tensor and its coalesced form are the same tensor: the gradient passes through.
    derivative=Derivative("CoalesceBackward0", grads={"self": lambda grad, saved: grad}),
    variants="function",
    doc="``torch._coalesce``: sum repeated coordinates and sort them.",
)
register_kernel(_coalesce.overloads["_coalesce"], SPARSE_BACKEND_KEY, _coalesce_kernel)
_coalesce_op = _coalesce.overloads["_coalesce"]


def _coalesce_composite(self):
    """``coalesce``: the tensor itself if already coalesced, else ``_coalesce`` of it."""
    _expect_sparse("coalesce", self)
    return self if self._coalesced else _coalesce_op(self)


coalesce = native_function(
    "coalesce(Tensor(a) self) -> Tensor(a)",
    kernel=_coalesce_composite,
    kind=COMPOSITE_IMPLICIT,
    variants="method",
    doc="``Tensor.coalesce``: unique, sorted coordinates, repeated ones' values summed.",
)


# --- sparse <-> dense -----------------------------------------------------------------------------


def _to_dense_kernel(self, dtype=None, masked_grad=None):
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_to_dense")
    return Tensor._from_array(_dense_array(self), self._dtype)


def _to_dense_backward(grad, saved):
    """``to_dense_backward``: only the stored coordinates have a gradient (masked)."""
    return sparse_mask(grad, coalesce(saved.self))


_to_dense = native_function(
    "_to_dense(Tensor self, ScalarType? dtype=None, bool? masked_grad=None) -> Tensor",
    kernel=_no_cpu_kernel("aten::_to_dense"),
    derivative=Derivative("ToDenseBackward0", save=("self",), grads={"self": _to_dense_backward}),
    variants="method",
    doc="``Tensor._to_dense``: the strided tensor with the same values.",
)
register_kernel(_to_dense.overloads["_to_dense"], SPARSE_BACKEND_KEY, _to_dense_kernel)
_to_dense_op = _to_dense.overloads["_to_dense"]


def _to_dense_composite(self, dtype=None, *, masked_grad=None):
    """``to_dense``: a strided tensor is its own dense form; a sparse one is ``_to_dense``."""
    if not self.is_sparse:
        return self
    return _to_dense_op(self, dtype, masked_grad)


to_dense = native_function(
    "to_dense(Tensor self, ScalarType? dtype=None, *, bool? masked_grad=None) -> Tensor",
    kernel=_to_dense_composite,
    kind=COMPOSITE_IMPLICIT,
    variants="method",
    doc="``Tensor.to_dense``: the strided tensor with the same values (zeros where nothing is stored).",
)


def _dense_to_sparse_kernel(self, sparse_dim=None):
    """``dense_to_sparse``: store every block (a value, or a dense slice when
    ``sparse_dim < dim``) that is not all zeros, in row-major order: coalesced."""
    ndim = self.dim()
    if sparse_dim is None:
        sparse_dim = ndim
    elif not 0 <= sparse_dim <= ndim:
        raise RuntimeError(
            f"dense_to_sparse: sparse_dim argument must be in [0,{ndim}] range, but {sparse_dim} "
            "is given"
        )
    elif sparse_dim == 0 and ndim > 0:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    dense = self._resolved_array()
    if sparse_dim == 0:  # a 0-dim tensor: one stored value, with no coordinates
        return _sparse(np.zeros((0, 1)), dense.reshape(1), (), True, self._dtype)
    blocks = dense.reshape(*self._size[:sparse_dim], -1) if sparse_dim < ndim else dense
    stored = (blocks != 0).any(axis=-1) if sparse_dim < ndim else blocks != 0
    coordinates = np.stack(np.nonzero(stored)).reshape(sparse_dim, -1)
    return _sparse(coordinates, dense[tuple(coordinates)], self._size, True, self._dtype)


def _sparse_to_sparse_kernel(self, sparse_dim=None):
    if sparse_dim is not None and sparse_dim != self._sparse_dim:
        raise RuntimeError(
            "to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
            "!=self.sparse_dim() is not supported"
        )
    return self


def _to_sparse_backward(grad, saved):
    """``to_sparse_backward``: a strided input's gradient is the dense form of ``grad``."""
    return grad if saved.self.is_sparse else to_dense(grad)


_to_sparse = native_function(
    "_to_sparse.sparse_dim(Tensor self, int sparse_dim) -> Tensor",
    "_to_sparse(Tensor self, *, Layout? layout=None, int[2]? blocksize=None, int? dense_dim=None) "
    "-> Tensor",
    kernels={
        "_to_sparse.sparse_dim": _dense_to_sparse_kernel,
        "_to_sparse": lambda self, *, layout=None, blocksize=None, dense_dim=None: (
            _dense_to_sparse_kernel(self, None if dense_dim is None else self.dim() - dense_dim)
        ),
    },
    derivatives={
        "_to_sparse.sparse_dim": Derivative(
            "ToSparseBackward0", save=("self",), grads={"self": _to_sparse_backward}
        ),
        "_to_sparse": Derivative(
            "ToSparseBackward1", save=("self",), grads={"self": _to_sparse_backward}
        ),
    },  # fmt: skip
    variants="method",
    doc="``Tensor._to_sparse``: the sparse COO form.",
)
register_kernel(_to_sparse.overloads["_to_sparse.sparse_dim"], SPARSE_BACKEND_KEY,
                _sparse_to_sparse_kernel)  # fmt: skip
register_kernel(
    _to_sparse.overloads["_to_sparse"],
    SPARSE_BACKEND_KEY,
    lambda self, *, layout=None, blocksize=None, dense_dim=None: _sparse_to_sparse_kernel(
        self, None if dense_dim is None else self.dim() - dense_dim
    ),
)


def _to_sparse_composite(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """``to_sparse``: ``_to_sparse``, after refusing the layouts vizgrad does not have."""
    if sparse_dim is not None:
        return _to_sparse.overloads["_to_sparse.sparse_dim"](self, sparse_dim)
    if layout is strided:
        # ``to_sparse(layout=torch.strided)`` of a strided tensor: nothing to convert.
        return self if not self.is_sparse else to_dense(self)
    if layout not in (None, sparse_coo) or blocksize is not None:
        raise NotImplementedError(
            f"vizgrad has only the sparse_coo sparse layout, not {layout!r} or blocksizes"
        )
    return _to_sparse.overloads["_to_sparse"](self, dense_dim=dense_dim)


to_sparse = native_function(
    "to_sparse.sparse_dim(Tensor self, int sparse_dim) -> Tensor",
    "to_sparse(Tensor self, *, Layout? layout=None, int[2]? blocksize=None, int? dense_dim=None) "
    "-> Tensor",
    kernels={
        "to_sparse.sparse_dim": lambda self, sparse_dim: _to_sparse_composite(self, sparse_dim),
        "to_sparse": lambda self, **options: _to_sparse_composite(self, **options),
    },
    kind=COMPOSITE_IMPLICIT,
    variants="method",
    doc="``Tensor.to_sparse``: the sparse COO form (the first ``sparse_dim`` dims sparse).",
)


def _sparse_mask_kernel(self, mask):
    """``sparse_mask``: ``self``'s values (dense or sparse) at ``mask``'s coordinates."""
    _expect_sparse("sparse_mask", mask, "mask to be sparse coordinate tensor layout")
    if self._size != mask._size:
        raise RuntimeError(
            f"sparse_mask(): operands have incompatible sizes; self has size {list(self._size)} "
            f"but mask has size {list(mask._size)}"
        )
    dense = _dense_array(self) if self.is_sparse else self._resolved_array()
    mask_indices = mask._sparse_indices._array
    return _sparse(mask_indices.copy(), dense[_coordinates(mask_indices, mask._size)], mask._size, mask._coalesced,
                   self._dtype)  # fmt: skip


_sparse_mask = native_function(
    "sparse_mask(Tensor self, Tensor mask) -> Tensor",
    kernel=_no_cpu_kernel("aten::sparse_mask"),
    # Only the kept coordinates pass their gradient back.
    derivative=Derivative(
        "SparseMaskBackward0",
        save=("mask",),
        grads={"self": lambda grad, saved: sparse_mask(grad, saved.mask)},
    ),  # fmt: skip
    variants="method",
    doc="``Tensor.sparse_mask``: the values of ``self`` where ``mask`` stores something.",
)
register_kernel(_sparse_mask.overloads["sparse_mask"], SPARSE_BACKEND_KEY, _sparse_mask_kernel)
sparse_mask = _sparse_mask


# --- SparseCPU kernels of operators declared elsewhere ---------------------------------------


def _like(t: SparseCooTensor, values: np.ndarray, dtype, coalesced=None) -> SparseCooTensor:
    """``t``'s coordinates (copied) with new values."""
    coalesced = t._coalesced if coalesced is None else coalesced
    return _sparse(t._sparse_indices._array.copy(), values, t._size, coalesced, dtype)


def _sparse_add(self, other, alpha):
    """``add_out_sparse_cpu``: merge two coordinate lists walked in step, as if sorted.

    Where the two lists hold the same coordinate, the values are added into one entry;
    anything else is copied in order. For coalesced inputs that is the coalesced sum;
    for others it is a correct sum whose coordinates may repeat (flagged uncoalesced).
    """
    if self.dim() != other.dim() or self._size != other._size:
        raise RuntimeError(
            f"add: expected sizes of 'self' and 'other' to match, but {list(self._size)} != "
            f"{list(other._size)}"
        )
    if self._sparse_dim != other._sparse_dim:
        raise RuntimeError(
            f"add: expected 'self' and 'other' to have same density, but 'self' has "
            f"{self._sparse_dim} sparse dimensions while 'other' has {other._sparse_dim} "
            "sparse dimensions"
        )
    dtype = promote_types(self._dtype, other._dtype)
    (t_indices, t_values), (s_indices, s_values) = _parts(self), _parts(other)
    t_values, s_values = t_values.astype(dtype.numpy), s_values.astype(dtype.numpy) * alpha
    if s_indices.shape[1] == 0:
        return _sparse(t_indices.copy(), t_values, self._size, self._coalesced, dtype)
    if t_indices.shape[1] == 0:
        return _sparse(s_indices.copy(), s_values, self._size, other._coalesced, dtype)
    t_keys, s_keys = [tuple(c) for c in t_indices.T], [tuple(c) for c in s_indices.T]
    out_indices, out_values, ti, si = [], [], 0, 0
    while ti < len(t_keys) or si < len(s_keys):
        if ti >= len(t_keys):
            take_t, take_s = False, True
        elif si >= len(s_keys):
            take_t, take_s = True, False
        else:
            take_t, take_s = t_keys[ti] <= s_keys[si], s_keys[si] <= t_keys[ti]
        value = 0
        if take_t:
            key, value, ti = t_keys[ti], t_values[ti], ti + 1
        if take_s:
            key, value, si = s_keys[si], value + s_values[si], si + 1
        out_indices.append(key)
        out_values.append(value)
    merged_indices = np.array(out_indices, dtype=np.int64).T.reshape(self._sparse_dim, -1)
    merged_values = np.array(out_values, dtype=dtype.numpy).reshape(-1, *t_values.shape[1:])
    return _sparse(merged_indices, merged_values, self._size,
                   self._coalesced and other._coalesced, dtype)  # fmt: skip


def _dense_add_sparse(self, other, alpha):
    """``add_out_dense_sparse_cpu``: a copy of the dense tensor, each stored value added at
    its coordinate (repeated ones each add). No broadcasting, as in PyTorch."""
    if self._size != other._size:
        raise RuntimeError(
            f"add: expected 'self' and 'other' to have same size, but self has size "
            f"{list(self._size)} while other has size {list(other._size)} (FYI: dense-sparse "
            "addition does not currently support broadcasting)"
        )
    dtype = result_type(self, other)
    out = self._resolved_array().astype(dtype.numpy, copy=True)
    other_indices, other_values = _parts(other)
    np.add.at(out, _coordinates(other_indices, other._size),
              other_values.astype(dtype.numpy) * alpha)  # fmt: skip
    return Tensor._from_array(out, dtype)


def _add_kernel(self, other, *, alpha=1):
    if not self.is_sparse:
        return _dense_add_sparse(self, other, alpha)
    if not other.is_sparse:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    return _sparse_add(self, other, alpha)


def _add_inplace_kernel(self, other, *, alpha=1):
    """``add_`` with a sparse argument: a dense ``self`` gets each stored value added at its
    coordinate (what an optimizer step with a sparse gradient does); a sparse ``self``
    takes the parts of the sum. The result keeps ``self``'s dtype."""
    if not self.is_sparse:
        if self._size != other._size:
            raise RuntimeError(
                f"add: expected 'self' and 'other' to have same size, but self has size "
                f"{list(self._size)} while other has size {list(other._size)} (FYI: "
                "dense-sparse addition does not currently support broadcasting)"
            )
        other_indices, other_values = _parts(other)
        np.add.at(
            self._array,
            _coordinates(other_indices, other._size),
            (other_values * alpha).astype(self._array.dtype),
        )
        return self
    if not other.is_sparse:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    total = _sparse_add(self, other, alpha)
    self._sparse_indices = total._sparse_indices
    self._sparse_values = total._sparse_values.to(self._dtype)
    self._coalesced = total._coalesced
    return self


def _mul_kernel(self, other):
    """``mul_sparse``: by a zero-dim tensor (or a number), every value is scaled; by a dense
    tensor, each value meets the dense element at its coordinate; by a sparse tensor,
    only coordinates both store survive (computed on the coalesced forms)."""
    if not (isinstance(self, Tensor) and self.is_sparse):
        self, other = other, self  # the product commutes: the sparse one first
    dtype = result_type(self, other)
    values = _parts(self)[1].astype(dtype.numpy)
    if not isinstance(other, Tensor):  # a Python number
        return _like(self, values * np.asarray(other).astype(dtype.numpy), dtype)
    if not other.is_sparse:
        if other.dim() == 0:
            return _like(self, values * other._resolved_array().astype(dtype.numpy), dtype)
        dense = np.broadcast_to(other._resolved_array(), self._size)
        return _like(
            self, values * dense[_coordinates(self._sparse_indices._array, self._size)], dtype
        )
    if self._size != other._size:
        raise RuntimeError(
            f"mul(sparse, sparse): expected sizes to match, but {list(self._size)} != "
            f"{list(other._size)}"
        )
    sparse_sizes = self._size[: self._sparse_dim]
    a_indices, a_values = _coalesced_parts(*_parts(self), sparse_sizes)
    b_indices, b_values = _coalesced_parts(*_parts(other), sparse_sizes)
    a_keys, b_keys = (
        _flat_positions(a_indices, sparse_sizes),
        _flat_positions(b_indices, sparse_sizes),
    )
    _, a_at, b_at = np.intersect1d(a_keys, b_keys, assume_unique=True, return_indices=True)
    product = a_values[a_at].astype(dtype.numpy) * b_values[b_at].astype(dtype.numpy)
    return _sparse(a_indices[:, a_at], product, self._size, True, dtype)


def _sum_dtype(self, dtype):
    """``sum``'s result dtype: integers and bools add up in int64 unless told otherwise."""
    if dtype is not None:
        return dtype
    return int64 if self._dtype.category in (BOOL, INTEGRAL) else self._dtype


def _sum_kernel(self, *, dtype=None):
    """``sum_coo``: the sum of a sparse tensor is the sum of what it stores."""
    dtype = _sum_dtype(self, dtype)
    total = _parts(self)[1].astype(dtype.numpy).sum(dtype=dtype.numpy)
    return Tensor._from_array(np.asarray(total), dtype)


def _sum_dim_kernel(self, dim, keepdim=False, *, dtype=None):
    """``_sparse_sum``: summing over every sparse dim leaves a dense tensor; otherwise the
    kept sparse dims' coordinates are coalesced (values of the summed dense dims added)."""
    dims = reduction_dims(dim, self.dim())
    dtype = _sum_dtype(self, dtype)
    indices_array, values_array = _parts(self)
    values_array = values_array.astype(dtype.numpy)
    sparse_summed = [d for d in dims if d < self._sparse_dim]
    dense_axes = tuple(d - self._sparse_dim + 1 for d in dims if d >= self._sparse_dim)
    if dense_axes:
        values_array = values_array.sum(axis=dense_axes)
    if len(sparse_summed) == self._sparse_dim:  # no coordinate is left: a dense result
        total = values_array.sum(axis=0)
        if keepdim:
            total = total.reshape([1 if d in dims else n for d, n in enumerate(self._size)])
        return Tensor._from_array(np.asarray(total), dtype)
    kept = [d for d in range(self._sparse_dim) if d not in sparse_summed]
    coalesced_indices, summed = _coalesced_parts(
        indices_array[kept], values_array, tuple(self._size[d] for d in kept)
    )
    size = [n for d, n in enumerate(self._size) if d not in dims]
    result = _sparse(coalesced_indices, summed, size, True, dtype)
    if keepdim:  # ``sum_sparse_coo`` puts the summed dims back with ``unsqueeze``
        for d in sorted(dims):
            result = _unsqueeze_kernel(result, d)
    return result


def _check_matrix_product(self, mat2):
    for name, m in (("self", self), ("mat2", mat2)):
        if m.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix")
        if m.is_sparse and m._dense_dim:
            raise RuntimeError("mm: a hybrid sparse tensor (dense_dim > 0) is not supported")
    if self._dtype is not mat2._dtype:
        raise RuntimeError(
            f"expected scalar type {self._dtype.scalar_name} but found {mat2._dtype.scalar_name}"
        )
    if self._size[1] != mat2._size[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({self._size[0]}x{self._size[1]} and "
            f"{mat2._size[0]}x{mat2._size[1]})"
        )


def _mm_kernel(self, mat2):
    """``_sparse_mm``: a sparse operand times a dense one is dense; two sparse ones give a
    sparse product that stores every coordinate some pair of stored elements reaches."""
    _check_matrix_product(self, mat2)
    left = _dense_array(self) if self.is_sparse else self._resolved_array()
    right = _dense_array(mat2) if mat2.is_sparse else mat2._resolved_array()
    product = left @ right
    if not mat2.is_sparse:
        return Tensor._from_array(product, self._dtype)
    if not self.is_sparse:
        # PyTorch computes ``dense @ sparse`` as ``(sparseᵀ @ denseᵀ)ᵀ``: column-major.
        return Tensor._from_array(np.ascontiguousarray(product.T), self._dtype).t()
    reached = (_pattern(self) @ _pattern(mat2)) > 0
    coordinates = np.stack(np.nonzero(reached)).reshape(2, -1)
    return _sparse(coordinates, product[tuple(coordinates)], product.shape, True, self._dtype)


def _pattern(t: SparseCooTensor) -> np.ndarray:
    """Where ``t`` stores something (a stored zero counts): 1, else 0."""
    pattern = np.zeros(t._size, dtype=np.int64)
    pattern[_coordinates(t._sparse_indices._array, t._size)] = 1
    return pattern


def _unsqueeze_kernel(self, dim):
    """``unsqueeze_sparse``: a new size-1 dim is sparse (a row of zero coordinates) when
    it comes among or right after the sparse dims, else dense (an axis of the values)."""
    dim = wrap_dim(dim, self.dim() + 1)
    indices_array, values_array = _parts(self)
    size = (*self._size[:dim], 1, *self._size[dim:])
    if dim <= self._sparse_dim:
        zeros = np.zeros((1, indices_array.shape[1]), dtype=np.int64)
        new_indices = np.concatenate((indices_array[:dim], zeros, indices_array[dim:]))
        return _sparse(new_indices, values_array.copy(), size, None, self._dtype)
    new_values = np.expand_dims(values_array, dim - self._sparse_dim + 1)
    return _sparse(indices_array.copy(), new_values, size, None, self._dtype)


def _neg_kernel(self):
    return _like(self, -_parts(self)[1], self._dtype)


def _clone_kernel(self, *, memory_format=None):
    if memory_format is not None:
        raise RuntimeError(f"unsupported memory format option {_FORMAT_NAMES[memory_format.name]}")
    return _like(self, _parts(self)[1].copy(), self._dtype)


_FORMAT_NAMES = {"contiguous_format": "Contiguous", "preserve_format": "Preserve",
                 "channels_last": "ChannelsLast"}  # fmt: skip


def _t_kernel(self):
    """``sparse_transpose``: swap the two rows of coordinates (now in column-major order,
    so no longer known to be coalesced)."""
    if self._sparse_dim > 2 or self._dense_dim:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
            f"{self._sparse_dim} sparse and {self._dense_dim} dense dimensions"
        )
    if self.dim() < 2:
        return _like(self, _parts(self)[1].copy(), self._dtype)
    indices_array = self._sparse_indices._array[::-1].copy()
    coalesced = False if indices_array.shape[1] else None  # (an empty one stays coalesced)
    return _sparse(indices_array, _parts(self)[1].copy(), self._size[::-1], coalesced,
                   self._dtype)  # fmt: skip


def _detach_kernel(self):
    """``detach``: the same parts, without the history (they are shared, not copied)."""
    return SparseCooTensor(self._sparse_indices, self._sparse_values, self._size, self._coalesced)


def _narrow_copy_kernel(self, dim, start, length):
    """``narrow_copy_sparse``: along a sparse dim, keep the elements whose coordinate is in
    ``[start, start + length)`` (shifted to start at 0); along a dense dim, narrow every
    value. Unlike the strided kernel, neither ``dim`` nor ``start`` may be negative."""
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not 0 <= dim < self.dim():
        raise RuntimeError(f"Dimension {dim} out of range. Expecting 0 <= dim < {self.dim()}.")
    end = start + length
    if start < 0 or end > self._size[dim]:
        raise RuntimeError(
            "Invalid range to narrow. range(start, start+length) must be a subset of "
            f"range(0, {self._size[dim]})."
        )
    indices_array, values_array = _parts(self)
    size = list(self._size)
    size[dim] = length
    if dim < self._sparse_dim:
        kept = (indices_array[dim] >= start) & (indices_array[dim] < end)
        new_indices = indices_array[:, kept].copy()
        new_indices[dim] -= start
        new_values = values_array[kept]
    else:
        new_indices = indices_array.copy()
        axis = dim - self._sparse_dim + 1
        new_values = values_array[(slice(None),) * axis + (slice(start, end),)]
    return _sparse(new_indices, new_values, size, self._coalesced, self._dtype)


for _op, _kernel in (
    (add.overloads["add.Tensor"], _add_kernel),
    (add.overloads["add_.Tensor"], _add_inplace_kernel),
    (mul.overloads["mul.Tensor"], _mul_kernel),
    (sum_.overloads["sum"], _sum_kernel),
    (sum_.overloads["sum.dim_IntList"], _sum_dim_kernel),
    (mm.overloads["mm"], _mm_kernel),
    (neg.overloads["neg"], _neg_kernel),
    (clone.overloads["clone"], _clone_kernel),
    (t.overloads["t"], _t_kernel),
    (detach.overloads["detach"], _detach_kernel),
    (narrow_copy.overloads["narrow_copy"], _narrow_copy_kernel),
    (unsqueeze.overloads["unsqueeze"], _unsqueeze_kernel),
):
    register_kernel(_op, SPARSE_BACKEND_KEY, _kernel)


# --- torch.sparse.mm: a product whose sparse gradient keeps the sparsity ---------------------


def _sparse_addmm_dense(self, mat1, mat2, *, beta=1, alpha=1):
    """``_sparse_addmm`` of dense tensors (the CPU and Meta kernels): ``addmm``, as in
    PyTorch, where the two differ only in their gradients."""
    return addmm(self, mat1, mat2, beta=beta, alpha=alpha)


def _sparse_addmm_kernel(self, mat1, mat2, *, beta=1, alpha=1):
    """``s_addmm_sparse_dense``: ``beta * self + alpha * (mat1 @ mat2)``, ``mat1`` sparse."""
    product = _mm_kernel(mat1, mat2)
    if mat2.is_sparse:
        raise RuntimeError("_sparse_addmm: mat2 must be dense")
    result = product._array * alpha
    if beta != 0:
        result = result + beta * (_dense_array(self) if self.is_sparse else self._array)
    return Tensor._from_array(np.asarray(result, dtype=product._dtype.numpy), product._dtype)


def _mat1_sparse_backward(grad, saved):
    """``mm_mat1_sparse_backward``: ``grad @ mat2ᵀ`` only where ``mat1`` stores something
    (the gradient keeps ``mat1``'s sparsity), times ``alpha``."""
    return sparse_mask(mm(grad, saved.mat2.t()), coalesce(saved.mat1)) * saved.alpha


_sparse_addmm = native_function(
    "_sparse_addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor",
    kernel=_sparse_addmm_dense,
    derivative=Derivative(
        "SparseAddmmBackward0",
        save=("mat1", "mat2", "alpha", "beta"),
        grads={
            "self": lambda grad, saved: grad * saved.beta,
            "mat1": _mat1_sparse_backward,
            "mat2": lambda grad, saved: mm(saved.mat1.t(), grad) * saved.alpha,
        },
    ),
    variants="function",
    doc="``torch._sparse_addmm``: ``beta * self + alpha * (mat1 @ mat2)`` with ``mat1`` sparse.",
)
register_kernel(_sparse_addmm.overloads["_sparse_addmm"], SPARSE_BACKEND_KEY, _sparse_addmm_kernel)
_sparse_addmm_op = _sparse_addmm.overloads["_sparse_addmm"]


def _sparse_mm_composite(sparse, dense):
    """``_sparse_mm``: ``_sparse_addmm`` of a zero matrix, with ``beta = 0``."""
    zeros = Tensor._from_array(np.zeros((sparse._size[0], dense._size[1]), dense._dtype.numpy),
                               dense._dtype)  # fmt: skip
    return _sparse_addmm_op(zeros, sparse, dense, beta=0, alpha=1)


_sparse_mm = native_function(
    "_sparse_mm(Tensor sparse, Tensor dense) -> Tensor",
    kernel=_sparse_mm_composite,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._sparse_mm``: what ``torch.sparse.mm`` calls for a sparse COO matrix.",
)

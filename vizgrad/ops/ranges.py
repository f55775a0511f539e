"""Ranges and matrices: ``arange``, ``linspace``, ``eye``, ``tril``/``triu``, ``diag``…

PyTorch's ``RangeFactories.cpp`` and ``TriangularOps.cpp``.

``arange`` decides its length before computing anything: for integers
``ceil((end - start) / step)`` in integer arithmetic, for floats the same formula in
double precision. That is why ``arange(1, 2, 0.3)`` has 4 elements and why a float
step can give one element more than expected ("rounding error", PyTorch warns).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import (
    BOOL,
    COMPLEX,
    INTEGRAL,
    default_complex_dtype,
    float64,
    get_default_dtype,
    int32,
)
from ..dtypes import int64 as INT64
from ..shape import check_numel, check_storage_nbytes, wrap_dim
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .creation import check_device, python_scalar
from .declaration import native_function
from .iterator import resize_output
from .overload_kernels import meta_then_impl, out_wrapper
from .parts import _diagonal_geometry
from .shape_views import _view_op

__all__ = ["arange", "linspace", "logspace", "eye", "tril", "triu", "tril_indices",
           "triu_indices", "diag", "diag_embed", "diagflat", "diagonal_copy"]  # fmt: skip


def _not_implemented(kernel_name: str, dtype) -> NotImplementedError:
    """``AT_DISPATCH``'s error when a kernel has no loop for a dtype."""
    return NotImplementedError(f"\"{kernel_name}\" not implemented for '{dtype.scalar_name}'")


def _resize_1d_out(out: Tensor, size: int) -> None:
    """Range factories resize ``out`` only when its element count is wrong (any shape is kept)."""
    if out.numel() != size:
        if out.numel() > 0:
            warn_at_user_code(
                f"The number of elements in the out tensor of shape {list(out._size)} is "
                f"{out.numel()} which does not match the computed number of elements {size}. "
                "Note that this may occur as a result of rounding error. The out tensor will "
                f"be resized to a tensor of shape ({size},).",
                UserWarning,
            )
        out.resize_((size,))


def _write_values(out: Tensor, values: np.ndarray) -> Tensor:
    """Write 1-D ``values`` into ``out`` in its logical (row-major) element order."""
    with np.errstate(all="ignore"):
        out._array[...] = values.reshape(out._size).astype(out._dtype.numpy, copy=False)
    return out


def _new_1d(values: np.ndarray, dtype) -> Tensor:
    with np.errstate(all="ignore"):
        return Tensor._from_array(np.ascontiguousarray(values.astype(dtype.numpy)), dtype)


# --- arange -------------------------------------------------------------------------


def _range_bound(value):
    """A bound of a range as the kernel reads its ``Scalar``: a real Python number."""
    value = python_scalar(value)
    if isinstance(value, complex):
        raise RuntimeError("value cannot be converted to type double without overflow")
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        raise OverflowError("int too big to convert")  # a Scalar holds an int64
    return value


def _arange_length(start, end, step) -> int:
    """How many elements: checks the bounds and computes PyTorch's size formula."""
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_c_number(start)} -> {_c_number(end)}")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if isinstance(step, int):
        sign = (step > 0) - (step < 0)
        size = (end - start + step - sign) // step  # exact integer ceil division
    else:
        size = math.ceil((float(end) - float(start)) / float(step))
    if not 0 <= size <= 2**63 - 1:
        raise RuntimeError("invalid size, possible overflow?")
    return int(size)


def _c_number(value) -> str:
    # C++ streams print a double without a trailing ".0": "0 -> inf".
    text = str(value)
    return text[:-2] if text.endswith(".0") else text


def _arange_values(start, end, step, dtype) -> np.ndarray:
    """The elements ``start + i * step``, computed as PyTorch does for ``dtype``."""
    if dtype.category in (BOOL, COMPLEX):
        raise _not_implemented("arange_cpu", dtype)
    if dtype.category == INTEGRAL:
        # Integer ranges convert every bound to an integer first (truncating floats).
        start, end, step = int(start), int(end), int(step)
        return start + step * np.arange(
            _allocatable_length(start, end, step, dtype), dtype=np.int64
        )
    start, end, step = float(start), float(end), float(step)
    # Other dtypes accumulate in double, then round once to the element type.
    return start + step * np.arange(_allocatable_length(start, end, step, dtype), dtype=np.float64)


def _allocatable_length(start, end, step, dtype) -> int:
    # The result is ``out.resize_((length,))``: its storage's bytes must fit in int64.
    length = _arange_length(start, end, step)
    check_storage_nbytes((length,), dtype.itemsize)
    return length


def _arange_kernel(start, end, step=1, *, dtype=None, layout=None, device=None,
                   pin_memory=None):  # fmt: skip
    """Without a dtype, int64 when every bound is an integer, else the default float dtype."""
    check_device(device)
    start, end, step = _range_bound(start), _range_bound(end), _range_bound(step)
    dtype = _arange_dtype(start, end, step, dtype)
    return _new_1d(_arange_values(start, end, step, dtype), dtype)


def _arange_dtype(start, end, step, dtype):
    """``dtype``, or int64 when every bound is an integer, else the default float dtype."""
    if dtype is not None:
        return dtype
    all_integers = all(isinstance(v, int) for v in (start, end, step))
    return INT64 if all_integers else get_default_dtype()


def _arange_end_kernel(end, **options):
    return _arange_kernel(0, end, **options)


def _arange_out_kernel(start, end, step=1, *, out):
    start, end, step = _range_bound(start), _range_bound(end), _range_bound(step)
    values = _arange_values(start, end, step, out._dtype)
    _resize_1d_out(out, len(values))
    return _write_values(out, values)


def _arange_end_out_kernel(end, *, out):
    return _arange_out_kernel(0, end, out=out)


arange = native_function(
    "arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor",
    "arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "arange.out(Scalar end, *, Tensor(a!) out) -> Tensor(a!)",
    "arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_arange_kernel,
    kernels={
        "arange": _arange_end_kernel,
        "arange.out": _arange_end_out_kernel,
        "arange.start_out": _arange_out_kernel,
    },
    variants="function",
    doc="``torch.arange``: ``[start, end)`` in steps of ``step``; ``arange(end)`` starts at "
    "0. The dtype is int64 when every bound is an integer, else the default float dtype.",
)


# --- linspace and logspace ----------------------------------------------------------


def _check_space_arguments(fn_name: str, start, end, steps) -> int:
    """A tensor bound must be 0-dim, and ``steps`` non-negative: the checks made before any
    value is read (the meta kernels make them too). Returns ``steps``."""
    for value, name in ((start, "start"), (end, "end")):
        if isinstance(value, Tensor) and value.dim() != 0:
            raise RuntimeError(
                f"{fn_name} only supports 0-dimensional start and end tensors, but got {name} "
                f"with {value.dim()} dimension(s)."
            )
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return operator.index(steps)


def _space_bounds(fn_name: str, start, end, steps):
    """The bounds as numbers (a tensor bound must be 0-dim) and the default dtype."""
    steps = _check_space_arguments(fn_name, start, end, steps)
    start, end = python_scalar(start), python_scalar(end)
    any_complex = isinstance(start, complex) or isinstance(end, complex)
    default = default_complex_dtype() if any_complex else get_default_dtype()
    return start, end, steps, default


def _linspace_values(start, end, steps: int, dtype) -> np.ndarray:
    """PyTorch's symmetric formula: the first half counts up from ``start``, the second
    half down from ``end``, so both ends are exact."""
    check_storage_nbytes((steps,), dtype.itemsize)  # ``empty({steps})`` comes first
    if dtype.category == BOOL:
        raise _not_implemented("linspace_cpu", dtype)
    if steps == 0:
        return np.empty(0, dtype=dtype.numpy)
    if steps == 1:
        return np.array([start]).astype(dtype.numpy)
    # Integers compute the step in double; floating types in their own precision.
    # The bounds are first converted to the element type (so -5 is 251 as uint8).
    work = np.float64 if dtype.category == INTEGRAL else dtype.numpy
    with np.errstate(all="ignore"):
        start_w = np.asarray(start).astype(dtype.numpy).astype(work)
        end_w = np.asarray(end).astype(dtype.numpy).astype(work)
    step = (end_w - start_w) / np.asarray(steps - 1, dtype=work)
    index = np.arange(steps)
    halfway = steps // 2
    with np.errstate(all="ignore"):
        values = np.where(index < halfway, start_w + step * index,
                          end_w - step * (steps - index - 1))  # fmt: skip
        return values.astype(dtype.numpy)


def _linspace_kernel(start, end, steps, *, dtype=None, layout=None, device=None,
                     pin_memory=None):  # fmt: skip
    check_device(device)
    start, end, steps, default = _space_bounds("linspace", start, end, steps)
    dtype = dtype or default
    return _new_1d(_linspace_values(start, end, steps, dtype), dtype)


def _linspace_out_kernel(start, end, steps, *, out):
    start, end, steps, _ = _space_bounds("linspace", start, end, steps)
    values = _linspace_values(start, end, steps, out._dtype)
    if out.numel() != steps:
        out.resize_((steps,))
    return _write_values(out, values)


linspace = native_function(
    "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "linspace.Tensor_Scalar(Tensor start, Scalar end, int steps, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "linspace.Scalar_Tensor(Scalar start, Tensor end, int steps, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "linspace.out(Scalar start, Scalar end, int steps, *, Tensor(a!) out) -> Tensor(a!)",
    "linspace.Tensor_Tensor_out(Tensor start, Tensor end, int steps, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    "linspace.Tensor_Scalar_out(Tensor start, Scalar end, int steps, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    "linspace.Scalar_Tensor_out(Scalar start, Tensor end, int steps, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=_linspace_kernel,
    kernels={
        "linspace.out": _linspace_out_kernel,
        "linspace.Tensor_Tensor_out": _linspace_out_kernel,
        "linspace.Tensor_Scalar_out": _linspace_out_kernel,
        "linspace.Scalar_Tensor_out": _linspace_out_kernel,
    },
    variants="function",
    doc="``torch.linspace``: ``steps`` evenly spaced values from ``start`` to ``end`` "
    "inclusive (either bound may be a 0-dim tensor).",
)


def _logspace_values(start, end, steps: int, base: float, dtype) -> np.ndarray:
    if dtype.category == BOOL:
        raise _not_implemented("logspace_cpu", dtype)
    # The exponents are computed in double for integer results, else in the result's dtype.
    exponent_dtype = float64 if dtype.category == INTEGRAL else dtype
    exponents = _linspace_values(start, end, steps, exponent_dtype)
    with np.errstate(all="ignore"):
        return np.power(np.asarray(base, dtype=exponents.dtype), exponents).astype(dtype.numpy)


def _logspace_kernel(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None,
                     pin_memory=None):  # fmt: skip
    check_device(device)
    start, end, steps, default = _space_bounds("logspace", start, end, steps)
    dtype = dtype or default
    return _new_1d(_logspace_values(start, end, steps, float(base), dtype), dtype)


def _logspace_out_kernel(start, end, steps, base=10.0, *, out):
    start, end, steps, _ = _space_bounds("logspace", start, end, steps)
    values = _logspace_values(start, end, steps, float(base), out._dtype)
    if out.numel() != steps:
        out.resize_((steps,))
    return _write_values(out, values)


logspace = native_function(
    "logspace(Scalar start, Scalar end, int steps, float base=10.0, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "logspace.Tensor_Tensor(Tensor start, Tensor end, int steps, float base=10.0, *, "
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
    "-> Tensor",
    "logspace.Tensor_Scalar(Tensor start, Scalar end, int steps, float base=10.0, *, "
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
    "-> Tensor",
    "logspace.Scalar_Tensor(Scalar start, Tensor end, int steps, float base=10.0, *, "
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
    "-> Tensor",
    "logspace.out(Scalar start, Scalar end, int steps, float base=10.0, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    "logspace.Tensor_Tensor_out(Tensor start, Tensor end, int steps, float base=10.0, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    "logspace.Tensor_Scalar_out(Tensor start, Scalar end, int steps, float base=10.0, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    "logspace.Scalar_Tensor_out(Scalar start, Tensor end, int steps, float base=10.0, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_logspace_kernel,
    kernels={
        "logspace.out": _logspace_out_kernel,
        "logspace.Tensor_Tensor_out": _logspace_out_kernel,
        "logspace.Tensor_Scalar_out": _logspace_out_kernel,
        "logspace.Scalar_Tensor_out": _logspace_out_kernel,
    },
    variants="function",
    doc="``torch.logspace``: ``base ** linspace(start, end, steps)``.",
)


# --- eye ----------------------------------------------------------------------------


def _check_eye_size(n: int, m: int) -> None:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")


def _eye_kernel(n, m, *, dtype=None, layout=None, device=None, pin_memory=None):
    check_device(device)
    _check_eye_size(n, m)
    dtype = dtype or get_default_dtype()
    # ``empty({0}).resize_({n, m})``: the count, then the bytes, must fit in int64.
    check_numel((n, m))
    check_storage_nbytes((n, m), dtype.itemsize)
    return Tensor._from_array(np.eye(n, m, dtype=dtype.numpy), dtype)


def _eye_out_kernel(n, m, *, out):
    _check_eye_size(n, m)
    resize_output(out, (n, m))
    out._array[...] = np.eye(n, m, dtype=out._dtype.numpy)
    return out


eye = native_function(
    "eye(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None) -> Tensor",
    "eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "eye.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!)",
    "eye.m_out(SymInt n, SymInt m, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "eye": lambda n, **options: _eye_kernel(n, n, **options),
        "eye.m": _eye_kernel,
        "eye.out": lambda n, *, out: _eye_out_kernel(n, n, out=out),
        "eye.m_out": _eye_out_kernel,
    },
    variants="function",
    doc="``torch.eye``: an ``n × m`` matrix with ones on the diagonal (``m`` defaults to ``n``).",
)


# --- tril / triu --------------------------------------------------------------------


def _triangle_mask(size, diagonal: int, lower: bool) -> np.ndarray:
    """True where an element is kept: ``col - row <= diagonal`` (tril) or ``>=`` (triu)."""
    rows, cols = size[-2], size[-1]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    return offset <= diagonal if lower else offset >= diagonal


def _triangle_kernels(fn_name: str, lower: bool) -> dict:
    """The kernels of ``tril``/``triu``: a contiguous result, in place, or into ``out``."""

    def check_matrix(self: Tensor) -> None:
        if self.dim() < 2:
            raise RuntimeError(f"{fn_name}: input tensor must have at least 2 dimensions")

    def meta(self, diagonal=0) -> tuple:
        """The meta function: a matrix (or a batch of them), the result row-major."""
        check_matrix(self)
        return self._size, self._dtype

    def inplace_meta(self, diagonal=0) -> Tensor:
        check_matrix(self)
        return self

    def functional_kernel(self, diagonal=0):
        check_matrix(self)
        mask = _triangle_mask(self._size, diagonal, lower)
        values = np.where(mask, self._array, np.zeros((), dtype=self._dtype.numpy))
        return Tensor._from_array(np.ascontiguousarray(values), self._dtype)

    def inplace_kernel(self, diagonal=0):
        check_matrix(self)
        mask = _triangle_mask(self._size, diagonal, lower)
        self._array[..., ~mask] = 0
        return self

    inplace_kernel.meta_kernel = inplace_meta  # ``vizgrad.ops.meta_kernels`` registers it
    # Structured: the meta function's check, then ``set_output`` (the exact dtype, resized).
    return {
        fn_name: meta_then_impl(meta, functional_kernel),
        f"{fn_name}_": inplace_kernel,
        f"{fn_name}.out": out_wrapper(functional_kernel, exact_dtype=True, meta=meta),
    }


# The kept triangle passes its gradient through; the zeroed part gets none.
tril = native_function(
    "tril(Tensor self, SymInt diagonal=0) -> Tensor",
    "tril_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)",
    "tril.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=_triangle_kernels("tril", lower=True),
    derivative=Derivative("TrilBackward0", save=("diagonal",),
                          grads={"self": lambda grad, saved: grad.tril(saved.diagonal)}),
    doc="``torch.tril``: the lower triangle of the last two dims; the rest is zero. "
    "``diagonal`` shifts the boundary (positive: above the main diagonal).",
)  # fmt: skip
triu = native_function(
    "triu(Tensor self, SymInt diagonal=0) -> Tensor",
    "triu_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)",
    "triu.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=_triangle_kernels("triu", lower=False),
    derivative=Derivative("TriuBackward0", save=("diagonal",),
                          grads={"self": lambda grad, saved: grad.triu(saved.diagonal)}),
    doc="``torch.triu``: the upper triangle of the last two dims; the rest is zero. "
    "``diagonal`` shifts the boundary (positive: above the main diagonal).",
)  # fmt: skip


# --- tril_indices / triu_indices -----------------------------------------------------


def _triangle_indices_kernel(fn_name: str, lower: bool):
    """The kernel of ``tril_indices``/``triu_indices``: the row and column indices of the
    kept triangle of a ``row × col`` matrix, row by row (an integer factory)."""

    def kernel(row, col, offset=0, *, dtype=None, layout=None, device=None, pin_memory=None):
        check_device(device)
        if row < 0:
            raise RuntimeError(f"row must be non-negative, got{row}")  # (sic: no space)
        if col < 0:
            raise RuntimeError(f"col must be non-negative, got{col}")
        dtype = INT64 if dtype is None else dtype
        if dtype not in (int32, INT64):  # ``AT_DISPATCH_INDEX_TYPES``
            raise _not_implemented(fn_name, dtype)
        rows, cols = np.nonzero(_triangle_mask((row, col), offset, lower))
        return Tensor._from_array(np.stack((rows, cols)).astype(dtype.numpy), dtype)

    return kernel


tril_indices = native_function(
    "tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=long, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    kernel=_triangle_indices_kernel("tril_indices", lower=True),
    variants="function",
    doc="``torch.tril_indices``: the indices of ``tril``'s triangle of a ``row × col`` matrix, "
    "as a ``(2, N)`` tensor of rows then columns (``offset`` shifts the diagonal).",
)
triu_indices = native_function(
    "triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=long, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    kernel=_triangle_indices_kernel("triu_indices", lower=False),
    variants="function",
    doc="``torch.triu_indices``: the indices of ``triu``'s triangle of a ``row × col`` matrix, "
    "as a ``(2, N)`` tensor of rows then columns (``offset`` shifts the diagonal).",
)


# --- diag, diag_embed and diagonal_copy ----------------------------------------------


def _diag_embed_dims(self, dim1, dim2) -> tuple:
    """``diag_embed``'s two dims, wrapped against the result's dims (one more)."""
    ndim = self.dim() + 1
    given = dim1, dim2
    dim1, dim2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if dim1 == dim2:  # (named as the caller gave them)
        raise RuntimeError(f"diagonal dimensions cannot be identical {given[0]}, {given[1]}")
    return dim1, dim2


def _diag_embed_meta(self, offset=0, dim1=-2, dim2=-1) -> tuple:
    """``diag_embed``'s result: the last dim becomes two of size ``n + |offset|`` at
    ``dim1`` and ``dim2``, the other dims in order around them; row-major."""
    dim1, dim2 = _diag_embed_dims(self, dim1, dim2)
    n = self._size[-1] + abs(offset)
    batch = iter(self._size[:-1])
    size = tuple(n if d in (dim1, dim2) else next(batch) for d in range(self.dim() + 1))
    return size, self._dtype


def _diag_embed_kernel(self, offset=0, dim1=-2, dim2=-1):
    ndim = self.dim() + 1
    dim1, dim2 = _diag_embed_dims(self, dim1, dim2)
    n = self._size[-1] + abs(offset)
    batch = self._size[:-1]
    # Build with the two new dims last, then move them where they were asked for.
    result = np.zeros((*batch, n, n), dtype=self._dtype.numpy)
    index = np.arange(self._size[-1])
    row, col = (index, index + offset) if offset >= 0 else (index - offset, index)
    result[..., row, col] = self._array
    order = [d for d in range(ndim) if d not in (dim1, dim2)]
    placed = np.empty(ndim, dtype=int)
    placed[order] = np.arange(ndim - 2)
    placed[dim1], placed[dim2] = ndim - 2, ndim - 1
    moved = np.transpose(result, placed)
    return Tensor._from_array(np.ascontiguousarray(moved), self._dtype)


# Each input element sits on the diagonal: its gradient is read from there.
diag_embed = native_function(
    "diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
    kernel=meta_then_impl(_diag_embed_meta, _diag_embed_kernel),
    derivative=Derivative(
        "DiagEmbedBackward0",
        save=("offset", "dim1", "dim2"),
        grads={"self": lambda grad, s: grad.diagonal(s.offset, s.dim1, s.dim2)},
        complex=True,
    ),
    doc="``torch.diag_embed``: each last-dim vector becomes a diagonal of a new matrix "
    "spanning ``dim1`` and ``dim2``.",
)


def _diagonal_copy_meta(self, offset=0, dim1=0, dim2=1) -> tuple:
    """``diagonal_copy``'s result: ``diagonal``'s view geometry (its checks), row-major."""
    return tuple(_diagonal_geometry(self, offset, dim1, dim2)[0]), self._dtype


def _diagonal_copy_kernel(self, offset=0, dim1=0, dim2=1):
    _diagonal_copy_meta(self, offset, dim1, dim2)
    values = np.diagonal(self._array, offset=offset, axis1=dim1, axis2=dim2)
    return Tensor._from_array(np.ascontiguousarray(values), self._dtype)


def _diagonal_backward(grad: Tensor, saved) -> Tensor:
    """``diagonal_backward``: the gradient goes back onto the diagonal; zeros elsewhere.

    (Written for the matrices ``diag`` passes: rows and columns of the diagonal's
    elements index an ``index_put`` into zeros.)
    """
    offset = saved.offset
    positions = arange(grad._size[-1])
    rows, cols = positions + max(-offset, 0), positions + max(offset, 0)
    return grad.new_zeros(saved.self_sym_sizes).index_put((rows, cols), grad)


diagonal_copy = native_function(
    "diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor",
    "diagonal_copy.out(Tensor self, int offset=0, int dim1=0, int dim2=1, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernels={
        "diagonal_copy": meta_then_impl(_diagonal_copy_meta, _diagonal_copy_kernel),
        # Generated: the result, then ``out`` (of its dtype) resized, then written.
        "diagonal_copy.out": out_wrapper(_diagonal_copy_kernel, exact_dtype=True,
                                         meta=_diagonal_copy_meta),
    },
    derivative=Derivative("DiagonalBackward0_copy",
                          save=("self_sym_sizes", "offset", "dim1", "dim2"),
                          grads={"self": _diagonal_backward}),
    variants="function",
    doc="``torch.diagonal_copy``: a copy of one diagonal (of a matrix, for ``diag``).",
)  # fmt: skip


def _check_diag_input(self, diagonal=0, *, out=None) -> None:
    if self.dim() not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")


def _diag_composite(self, diagonal=0):
    """``diag`` is CompositeImplicitAutograd: ``diag_embed`` of a vector, or a copy of
    one diagonal of a matrix (``diagonal_copy``); their nodes are what autograd records."""
    if self.dim() == 1:
        return diag_embed(self, diagonal, 0, 1)
    return diagonal_copy(self, diagonal, 0, 1)


def _diag_meta(self, diagonal=0) -> tuple:
    """``diag``'s result, for its ``out=`` overload: ``diag_embed``'s or ``diagonal_copy``'s."""
    if self.dim() == 1:
        return _diag_embed_meta(self, diagonal, 0, 1)
    return _diagonal_copy_meta(self, diagonal, 0, 1)


def _diag_values(self, diagonal=0):
    """What ``diag`` computes, for its ``out=`` overload (which records no history)."""
    if self.dim() == 1:
        return _diag_embed_kernel(self, diagonal, 0, 1)
    return _diagonal_copy_kernel(self, diagonal, 0, 1)


diag = native_function(
    "diag(Tensor self, int diagonal=0) -> Tensor",
    "diag.out(Tensor self, int diagonal=0, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_diag_composite,
    kernels={"diag.out": out_wrapper(_diag_values, exact_dtype=True, meta=_diag_meta)},
    kind=COMPOSITE_IMPLICIT,
    check=_check_diag_input,
    doc="``torch.diag``: a vector becomes a square matrix with it on a diagonal; a matrix "
    "gives a copy of its ``diagonal``-th diagonal.",
)


diagflat = native_function(
    "diagflat(Tensor self, int offset=0) -> Tensor",
    # ``input.contiguous().view(-1).diag(offset)``: the nodes are ``diag``'s.
    kernel=lambda self, offset=0: diag.overloads["diag"](
        _view_op(self.contiguous(), (-1,)), offset
    ),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.diagflat``: the elements of ``input``, flattened, on the ``offset``-th "
    "diagonal of a square matrix of zeros.",
)

"""Ranges and matrices: ``arange``, ``linspace``, ``eye``, ``tril``/``triu``.

PyTorch's ``RangeFactories.cpp`` and ``TriangularOps.cpp``.

``arange`` decides its length before computing anything: for integers
``ceil((end - start) / step)`` in integer arithmetic, for floats the same formula in
double precision. That is why ``arange(1, 2, 0.3)`` has 4 elements and why a float
step can give one element more than expected ("rounding error", PyTorch warns).
"""

from __future__ import annotations

import math
import numbers
import operator
import warnings

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE, FUNCTIONAL, INPLACE, OUT
from ..dtypes import BOOL, COMPLEX, INTEGRAL, default_complex_dtype, get_default_dtype
from ..dtypes import int64 as INT64
from ..shape import wrap_dim
from ..tensor import Tensor
from .creation import (
    check_device,
    check_dtype,
    check_number,
    check_out_dtype,
    python_scalar,
    set_requires_grad,
)
from .iterator import resize_output
from .registry import bind_method, check_tensor, declare, write_to_out

__all__ = ["arange", "linspace", "logspace", "eye", "tril", "triu", "diag", "diag_embed"]

# Demangled C++ type names, as PyTorch's "Expected out tensor to have dtype …" prints them.
_CPP_TYPE_NAME = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "float16": "c10::Half", "float32": "float",
    "float64": "double", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}  # fmt: skip


def _not_implemented(kernel_name: str, dtype) -> NotImplementedError:
    """``AT_DISPATCH``'s error when a kernel has no loop for a dtype."""
    return NotImplementedError(f"\"{kernel_name}\" not implemented for '{dtype.scalar_name}'")


def _resize_1d_out(out: Tensor, size: int) -> None:
    """Range factories resize ``out`` only when its element count is wrong (any shape is kept)."""
    if out.numel() != size:
        if out.numel() > 0:
            warnings.warn(
                f"The number of elements in the out tensor of shape {list(out._size)} is "
                f"{out.numel()} which does not match the computed number of elements {size}. "
                "Note that this may occur as a result of rounding error. The out tensor will "
                f"be resized to a tensor of shape ({size},).",
                UserWarning,
                stacklevel=4,
            )
        out.resize_((size,))


def _write_values(out: Tensor, values: np.ndarray) -> Tensor:
    """Write 1-D ``values`` into ``out`` in its logical (row-major) element order."""
    with np.errstate(all="ignore"):
        out._array[...] = values.reshape(out._size).astype(out._dtype.numpy, copy=False)
    return out


# --- arange -------------------------------------------------------------------------


def _arange_length(start, end, step, dtype) -> int:
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


def _arange_values(start, end, step, dtype) -> tuple[int, np.ndarray]:
    """The elements ``start + i * step``, computed as PyTorch does for ``dtype``."""
    if dtype.category in (BOOL, COMPLEX):
        raise _not_implemented("arange_cpu", dtype)
    if dtype.category == INTEGRAL:
        # Integer ranges convert every bound to an integer first (truncating floats).
        start, end, step = int(start), int(end), int(step)
        size = _arange_length(start, end, step, dtype)
        return size, start + step * np.arange(size, dtype=np.int64)
    start, end, step = float(start), float(end), float(step)
    size = _arange_length(start, end, step, dtype)
    # Other dtypes accumulate in double, then round once to the element type.
    return size, start + step * np.arange(size, dtype=np.float64)


def _arange_kernel(start, end, step, *, dtype):
    size, values = _arange_values(start, end, step, dtype)
    with np.errstate(all="ignore"):
        return Tensor._from_array(values.astype(dtype.numpy), dtype)


def _arange_out_kernel(start, end, step, *, out):
    size, values = _arange_values(start, end, step, out._dtype)
    _resize_1d_out(out, size)
    return _write_values(out, values)


_arange_op = declare(
    "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    FUNCTIONAL,
    _arange_kernel,
)
_arange_out_op = declare(
    "arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)",
    OUT,
    _arange_out_kernel,
)


def _range_bound(fn_name: str, value, name: str, position: int):
    check_number(fn_name, value, name, position)
    value = python_scalar(value)
    if isinstance(value, complex):
        raise RuntimeError("value cannot be converted to type double without overflow")
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        raise OverflowError("int too big to convert")  # a Scalar argument holds an int64
    return value


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.arange``: ``[start, end)`` in steps of ``step``; ``arange(end)`` starts at 0.

    The dtype is int64 when every bound is an integer, else the default float dtype.
    """
    if end is None:  # arange(end): the one argument is the end, at position 1
        end = _range_bound("arange", start, "end", 1)
        start = 0
    start = _range_bound("arange", start, "start", 1)
    end = _range_bound("arange", end, "end", 2)
    step = _range_bound("arange", step, "step", 3)
    check_dtype("arange", dtype)
    check_device(device)
    if out is not None:
        check_tensor("arange", out, "out", 4)
        check_out_dtype(out, dtype)
        return _arange_out_op(start, end, step, out=out)
    if dtype is None:
        all_integers = all(isinstance(v, int) for v in (start, end, step))
        dtype = INT64 if all_integers else get_default_dtype()
    return set_requires_grad(_arange_op(start, end, step, dtype=dtype), requires_grad)


# --- linspace and logspace ----------------------------------------------------------


def _linspace_values(start, end, steps: int, dtype) -> np.ndarray:
    """PyTorch's symmetric formula: the first half counts up from ``start``, the second
    half down from ``end``, so both ends are exact."""
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


def _linspace_kernel(start, end, steps, *, dtype):
    return Tensor._from_array(
        np.ascontiguousarray(_linspace_values(start, end, steps, dtype)), dtype
    )


def _linspace_out_kernel(start, end, steps, *, out):
    values = _linspace_values(start, end, steps, out._dtype)
    if out.numel() != steps:
        out.resize_((steps,))
    return _write_values(out, values)


def _logspace_values(start, end, steps: int, base: float, dtype) -> np.ndarray:
    if dtype.category == BOOL:
        raise _not_implemented("logspace_cpu", dtype)
    exponents = _linspace_values(start, end, steps, _work_dtype(dtype))
    with np.errstate(all="ignore"):
        return np.power(np.asarray(base, dtype=exponents.dtype), exponents).astype(dtype.numpy)


def _work_dtype(dtype):
    from ..dtypes import float64

    return float64 if dtype.category == INTEGRAL else dtype


def _logspace_kernel(start, end, steps, base, *, dtype):
    values = _logspace_values(start, end, steps, base, dtype)
    return Tensor._from_array(np.ascontiguousarray(values), dtype)


def _logspace_out_kernel(start, end, steps, base, *, out):
    values = _logspace_values(start, end, steps, base, out._dtype)
    if out.numel() != steps:
        out.resize_((steps,))
    return _write_values(out, values)


_SPACE_OPTIONS = ("ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                  "bool? pin_memory=None")  # fmt: skip
_linspace_op = declare(f"linspace(Scalar start, Scalar end, int steps, *, {_SPACE_OPTIONS}) "
                       "-> Tensor", FUNCTIONAL, _linspace_kernel)  # fmt: skip
_linspace_out_op = declare("linspace.out(Scalar start, Scalar end, int steps, *, Tensor(a!) out) "
                           "-> Tensor(a!)", OUT, _linspace_out_kernel)  # fmt: skip
_logspace_op = declare(f"logspace(Scalar start, Scalar end, int steps, float base=10.0, *, "
                       f"{_SPACE_OPTIONS}) -> Tensor", FUNCTIONAL, _logspace_kernel)  # fmt: skip
_logspace_out_op = declare("logspace.out(Scalar start, Scalar end, int steps, float base=10.0, *, "
                           "Tensor(a!) out) -> Tensor(a!)", OUT, _logspace_out_kernel)  # fmt: skip


def _space_arguments(fn_name, start, end, steps):
    for value, name in ((start, "start"), (end, "end")):
        if isinstance(value, Tensor) and value.dim() != 0:
            raise RuntimeError(
                f"{fn_name} only supports 0-dimensional start and end tensors, but got {name} "
                f"with {value.dim()} dimension(s)."
            )
        check_number(fn_name, value, name, 1 if name == "start" else 2)
    if not isinstance(steps, numbers.Integral) or isinstance(steps, bool):
        raise TypeError(
            f"{fn_name}(): argument 'steps' (position 3) must be int, not {type(steps).__name__}"
        )
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = python_scalar(start), python_scalar(end)
    any_complex = isinstance(start, complex) or isinstance(end, complex)
    default = default_complex_dtype() if any_complex else get_default_dtype()
    return start, end, operator.index(steps), default


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:  # fmt: skip
    """``torch.linspace``: ``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    start, end, steps, default = _space_arguments("linspace", start, end, steps)
    check_dtype("linspace", dtype)
    check_device(device)
    if out is not None:
        check_tensor("linspace", out, "out", 4)
        check_out_dtype(out, dtype)
        return _linspace_out_op(start, end, steps, out=out)
    return set_requires_grad(_linspace_op(start, end, steps, dtype=dtype or default),
                             requires_grad)  # fmt: skip


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:  # fmt: skip
    """``torch.logspace``: ``base ** linspace(start, end, steps)``."""
    start, end, steps, default = _space_arguments("logspace", start, end, steps)
    check_dtype("logspace", dtype)
    check_device(device)
    base = float(base)
    if out is not None:
        check_tensor("logspace", out, "out", 5)
        check_out_dtype(out, dtype)
        return _logspace_out_op(start, end, steps, base, out=out)
    return set_requires_grad(_logspace_op(start, end, steps, base, dtype=dtype or default),
                             requires_grad)  # fmt: skip


# --- eye ----------------------------------------------------------------------------


def _eye_values(n: int, m: int, dtype) -> np.ndarray:
    return np.eye(n, m, dtype=dtype.numpy)


def _eye_kernel(n, m, *, dtype):
    return Tensor._from_array(_eye_values(n, m, dtype), dtype)


def _eye_out_kernel(n, m, *, out):
    resize_output(out, (n, m))
    out._array[...] = _eye_values(n, m, out._dtype)
    return out


_eye_op = declare(f"eye.m(SymInt n, SymInt m, *, {_SPACE_OPTIONS}) -> Tensor", FUNCTIONAL,
                  _eye_kernel)  # fmt: skip
_eye_out_op = declare("eye.m_out(SymInt n, SymInt m, *, Tensor(a!) out) -> Tensor(a!)", OUT,
                      _eye_out_kernel)  # fmt: skip


def _check_int(fn_name: str, value, name: str, position: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{fn_name}(): argument '{name}' (position {position}) must be int, "
            f"not {type(value).__name__}"
        )
    return operator.index(value)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False) -> Tensor:  # fmt: skip
    """``torch.eye``: an ``n × m`` matrix with ones on the diagonal (``m`` defaults to ``n``)."""
    n = _check_int("eye", n, "n", 1)
    m = n if m is None else _check_int("eye", m, "m", 2)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    check_dtype("eye", dtype)
    check_device(device)
    if out is not None:
        check_tensor("eye", out, "out", 3)
        check_out_dtype(out, dtype)
        return _eye_out_op(n, m, out=out)
    return set_requires_grad(_eye_op(n, m, dtype=dtype or get_default_dtype()), requires_grad)


# --- tril / triu --------------------------------------------------------------------


def _triangle_mask(size, diagonal: int, lower: bool) -> np.ndarray:
    """True where an element is kept: ``col - row <= diagonal`` (tril) or ``>=`` (triu)."""
    rows, cols = size[-2], size[-1]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    return offset <= diagonal if lower else offset >= diagonal


def _check_matrix(fn_name: str, t: Tensor) -> None:
    if t.dim() < 2:
        raise RuntimeError(f"{fn_name}: input tensor must have at least 2 dimensions")


def _triangle_ops(fn_name: str, lower: bool):
    """Declare ``tril``/``triu``: functional (contiguous result), in-place, and ``out=``."""

    def functional_kernel(self, diagonal=0):
        _check_matrix(fn_name, self)
        mask = _triangle_mask(self._size, diagonal, lower)
        values = np.where(mask, self._array, np.zeros((), dtype=self._dtype.numpy))
        return Tensor._from_array(np.ascontiguousarray(values), self._dtype)

    def inplace_kernel(self, diagonal=0):
        _check_matrix(fn_name, self)
        mask = _triangle_mask(self._size, diagonal, lower)
        self._array[..., ~mask] = 0
        return self

    def out_kernel(self, diagonal=0, *, out):
        if out._dtype is not self._dtype:
            raise RuntimeError(
                f"Expected out tensor to have dtype {_CPP_TYPE_NAME[self._dtype.name]}, but got "
                f"{_CPP_TYPE_NAME[out._dtype.name]} instead"
            )
        return write_to_out(functional_kernel(self, diagonal), out)

    # The kept triangle passes its gradient through; the zeroed part gets none.
    derivative = Derivative(
        f"{fn_name.capitalize()}Backward0",
        save=("diagonal",),
        grads={"self": lambda grad, saved: getattr(grad, fn_name)(saved.diagonal)},
    )
    schema = f"{fn_name}(Tensor self, SymInt diagonal=0) -> Tensor"
    functional_op = declare(schema, FUNCTIONAL, functional_kernel, derivative)
    inplace_op = declare(f"{fn_name}_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)",
                         INPLACE, inplace_kernel, derivative)  # fmt: skip
    out_op = declare(f"{fn_name}.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) "
                     "-> Tensor(a!)", OUT, out_kernel)  # fmt: skip

    def function(input, diagonal=0, *, out=None):
        check_tensor(fn_name, input, "input", 1)
        diagonal = _check_int(fn_name, diagonal, "diagonal", 2)
        if out is None:
            return functional_op(input, diagonal)
        check_tensor(fn_name, out, "out", 3)
        return out_op(input, diagonal, out=out)

    def method_inplace(self, diagonal=0):
        diagonal = _check_int(fn_name + "_", diagonal, "diagonal", 1)
        return inplace_op(self, diagonal)

    function.__name__ = function.__qualname__ = fn_name
    side = "lower" if lower else "upper"
    function.__doc__ = (
        f"``torch.{fn_name}``: the {side} triangle of the last two dims; the rest is zero. "
        f"``diagonal`` shifts the boundary (positive: above the main diagonal)."
    )
    bind_method(fn_name, lambda self, diagonal=0: function(self, diagonal))
    bind_method(fn_name + "_", method_inplace)
    return function


tril = _triangle_ops("tril", lower=True)
triu = _triangle_ops("triu", lower=False)


# --- diag and diag_embed --------------------------------------------------------------


def _diag_kernel(self, diagonal=0):
    if self.dim() == 1:
        n = self._size[0] + abs(diagonal)
        result = np.zeros((n, n), dtype=self._dtype.numpy)
        row, col = (0, diagonal) if diagonal >= 0 else (-diagonal, 0)
        index = np.arange(self._size[0])
        result[row + index, col + index] = self._array
        return Tensor._from_array(result, self._dtype)
    values = np.diagonal(self._array, offset=diagonal)
    return Tensor._from_array(np.ascontiguousarray(values), self._dtype)


def _diag_composite(self, diagonal=0):
    """``diag`` is CompositeImplicitAutograd: ``diag_embed`` of a vector, or a copy of
    one diagonal of a matrix (``diagonal_copy``); their nodes are what autograd records."""
    if self.dim() == 1:
        return _diag_embed_op(self, diagonal, 0, 1)
    return _diagonal_copy_op(self, diagonal, 0, 1)


def _diagonal_copy_kernel(self, offset=0, dim1=0, dim2=1):
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


_diagonal_copy_op = declare(
    "diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor",
    FUNCTIONAL,
    _diagonal_copy_kernel,
    Derivative("DiagonalBackward0_copy", save=("self_sym_sizes", "offset", "dim1", "dim2"),
               grads={"self": _diagonal_backward}),
)  # fmt: skip
_diag_op, _diag_out_op = (
    declare("diag(Tensor self, int diagonal=0) -> Tensor", FUNCTIONAL, _diag_composite, COMPOSITE),
    declare("diag.out(Tensor self, int diagonal=0, *, Tensor(a!) out) -> Tensor(a!)", OUT,
            lambda self, diagonal=0, *, out: write_to_out(_diag_kernel(self, diagonal), out)),
)  # fmt: skip


def diag(input, diagonal=0, *, out=None) -> Tensor:
    """``torch.diag``: a vector becomes a square matrix with it on a diagonal; a matrix
    gives a copy of its ``diagonal``-th diagonal."""
    check_tensor("diag", input, "input", 1)
    diagonal = _check_int("diag", diagonal, "diagonal", 2)
    if input.dim() not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    if out is None:
        return _diag_op(input, diagonal)
    check_tensor("diag", out, "out", 3)
    return _diag_out_op(input, diagonal, out=out)


def _diag_embed_kernel(self, offset=0, dim1=-2, dim2=-1):
    ndim = self.dim() + 1
    dim1, dim2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
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
    array = np.ascontiguousarray(moved)
    return Tensor._from_array(array, self._dtype)


# Each input element sits on the diagonal: its gradient is read from there.
_diag_embed_op = declare(
    "diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
    FUNCTIONAL,
    _diag_embed_kernel,
    Derivative(
        "DiagEmbedBackward0",
        save=("offset", "dim1", "dim2"),
        grads={"self": lambda grad, s: grad.diagonal(s.offset, s.dim1, s.dim2)},
    ),
)


def diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor:
    """``torch.diag_embed``: each last-dim vector becomes a diagonal of a new matrix
    spanning ``dim1`` and ``dim2``."""
    check_tensor("diag_embed", input, "input", 1)
    return _diag_embed_op(input, offset, dim1, dim2)


bind_method("diag", lambda self, diagonal=0: diag(self, diagonal))
bind_method("diag_embed", lambda self, offset=0, dim1=-2, dim2=-1: diag_embed(self, offset, dim1,
                                                                               dim2))  # fmt: skip

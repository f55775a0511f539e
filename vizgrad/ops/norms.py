"""Norms: ``linalg.vector_norm``, ``linalg.matrix_norm``, ``linalg.norm``, ``linalg.cond`` and ``torch.norm``.

One operator computes: ``linalg_vector_norm`` (``(sum |x|^p)^(1/p)`` over ``dim``). The
others are made of operators, as PyTorch makes them (``LinearAlgebra.cpp``, all
``CompositeImplicitAutograd``), so their backward graphs have PyTorch's nodes:

* ``linalg.matrix_norm``: ``'fro'`` is the vector 2-norm of the elements; ``1``/``inf``
  (``-1``/``-inf``) the largest (smallest) column/row sum of ``|a_ij|``, a vector norm
  then an ``amax``; ``2``/``-2`` the largest/smallest singular value and ``'nuc'`` their
  sum (``linalg.svdvals``);
* ``linalg.norm``: a vector norm or a matrix norm, chosen by ``ord`` and ``dim``;
* ``linalg.cond``: ``norm(A) * norm(A⁻¹)`` (for ``2``/``-2``, a ratio of singular values).

``torch.norm`` is a Python function in PyTorch too (``torch/functional.py``) that picks
``linalg.vector_norm`` or ``linalg.matrix_norm`` by ``p``, and ``Tensor.norm`` calls it
(``torch/_tensor.py``).
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes as dt
from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..promotion import can_cast, promote_types
from ..shape import wrap_dim
from ..tensor import Tensor, define_method
from .declaration import native_function
from .decompositions import linalg_svdvals
from .factorizations import _square_check_inputs, linalg_inv_ex
from .overload_kernels import meta_then_impl, out_wrapper
from .reduction_args import numpy_axes, reduced_shape, reduction_dims
from .reduction_backward import scale_grad_by_count, unsqueeze_reduced
from .reduction_dtypes import accumulate_dtype
from .reduction_machinery import ReduceOps, interruptible, wrap_result
from .registry import write_to_out

__all__ = [
    "norm",
]


# --- vector norms ---------------------------------------------------------------------------


def _check_floating(fn_name: str, input: Tensor, low_precision: bool = True) -> None:
    """``checkFloatingOrComplex``: norms are of floating or complex numbers (and the
    ones computed by LAPACK, of no ``float16``)."""
    if input._dtype.category < dt.FLOATING:
        raise RuntimeError(
            f"{fn_name}: Expected a floating point or complex tensor as input. Got "
            f"{input._dtype.scalar_name}"
        )
    if not low_precision and input._dtype not in (dt.float32, dt.float64, dt.complex64,
                                                  dt.complex128):  # fmt: skip
        raise RuntimeError(
            f"{fn_name}: Low precision dtypes not supported. Got {input._dtype.scalar_name}"
        )


def _check_norm_dtype(dtype, self_dtype, fn_name: str) -> None:
    """``check_linalg_norm_dtype``: ``dtype=`` must be floating (complex for a complex
    input) and hold the input's values without narrowing them."""
    if dtype is None:
        return
    if dtype.category < dt.FLOATING:
        raise RuntimeError(
            f"{fn_name}: dtype should be floating point or complex, but got {dtype.scalar_name}"
        )
    if self_dtype.is_complex != dtype.is_complex:
        kind = "complex" if self_dtype.is_complex else "real"
        raise RuntimeError(
            f"{fn_name}: dtype should be {kind} for {kind} inputs, but got {dtype.scalar_name}"
        )
    if promote_types(self_dtype, dtype) is not dtype:
        raise RuntimeError(
            f"{fn_name}: the dtype of the input ({self_dtype.scalar_name}) should be "
            f"convertible without narrowing to the specified dtype ({dtype.scalar_name})"
        )


def vector_norm_checks(self: Tensor, ord, dim, dtype):
    """``linalg.vector_norm``'s checks, in its order; the dims it reduces and the
    (real) dtype it returns."""
    _check_floating("linalg.vector_norm", self)
    dims = reduction_dims(dim, self.dim())
    # Norms built from a max or a negative power have no value for no elements.
    if self.numel() == 0 and (ord < 0 or ord == math.inf):
        name = {math.inf: "inf", -math.inf: "-inf"}.get(ord, f"{ord}")
        every_dim = dim is None or (not isinstance(dim, int) and not dim)
        if every_dim:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {name} norm on an empty tensor "
                "because the operation does not have an identity"
            )
        for d in dims:
            if self._size and self._size[d] == 0:
                raise RuntimeError(  # (PyTorch's message lacks a space after the dim)
                    f"linalg.vector_norm cannot compute the {name} norm on the dimension "
                    f"{d}because this dimension is empty and the operation does not have an "
                    "identity"
                )
    _check_norm_dtype(dtype, self._dtype, "linalg.vector_norm")
    return dims, (dtype or self._dtype).to_real()


def _vector_norm_meta(self: Tensor, ord=2, dim=None, keepdim=False, *, dtype=None, **_outs):
    """``TORCH_META_FUNC(linalg_vector_norm)``: the checks, then the reduced shape and
    the (real) dtype."""
    dims, result_dtype = vector_norm_checks(self, ord, dim, dtype)
    return (reduced_shape(self._size, dims, keepdim), result_dtype)


def _vector_norm_kernel(self: Tensor, ord=2, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    """``linalg.vector_norm``: ``(sum |x|^p)^(1/p)``, with the limits p = inf (largest
    ``|x|``), -inf (smallest) and 0 (how many are non-zero)."""
    dims, result_dtype = vector_norm_checks(self, ord, dim, dtype)
    compute = accumulate_dtype(dtype or self._dtype).numpy
    with np.errstate(all="ignore"):
        # PyTorch reads the input in place, casting as it goes: so a slice at a time here
        # (a huge ``expand`` takes hours in both; here Ctrl-C stops it).
        parts = _norm_parts(ord, compute)
        axes = numpy_axes(self, dims)
        result = interruptible(
            None, self._array, axes, keepdim, parts=parts, result=result_dtype.numpy
        )
    return wrap_result(result, result_dtype)


def _norm_parts(ord, compute) -> ReduceOps:
    """A vector norm as ``(reduce, combine, project)`` (see ``ReduceOps``): each slice
    gives its largest or smallest ``|x|``, its count of non-zeros or its sum of
    ``|x|^ord``; those merge by the same max, min or sum; the ``ord``-th root is taken
    once, at the end."""

    def reduce(array, axis, keepdims):
        size = np.abs(array if array.dtype == compute else array.astype(compute))
        if ord == math.inf:
            return np.max(size, axis=axis, keepdims=keepdims, initial=0)
        if ord == -math.inf:
            return np.min(size, axis=axis, keepdims=keepdims)
        if ord == 0:
            return np.count_nonzero(size, axis=axis, keepdims=keepdims)
        if ord == 1:
            return np.sum(size, axis=axis, keepdims=keepdims)
        if ord == 2:
            return np.sum(size * size, axis=axis, keepdims=keepdims)
        return np.sum(size**ord, axis=axis, keepdims=keepdims)

    if ord in (math.inf, -math.inf):
        return ReduceOps(reduce, np.max if ord > 0 else np.min)
    if ord in (0, 1):
        return ReduceOps(reduce, np.add.reduce)
    return ReduceOps(
        reduce, np.add.reduce, np.sqrt if ord == 2 else lambda total: total ** (1.0 / ord)
    )


def norm_backward(grad: Tensor, self: Tensor, ord, norm: Tensor, dim, keepdim: bool):
    """``linalg_vector_norm_backward``: the gradient of ``(sum |x|^p)^(1/p)``, which is
    ``sgn(x) |x|^(p-1) / norm^(p-1)``, with the limits PyTorch takes: p = 1 is ``sgn``,
    p = 2 is ``x / norm``, p = inf shares the gradient among the largest ``|x|`` (as
    ``amax``), p = 0 counts and has no gradient. A zero norm gives zero, not 0/0."""
    dims = reduction_dims(dim, self.dim())
    grad = unsqueeze_reduced(grad, dims, self.dim(), keepdim)
    norm = unsqueeze_reduced(norm, dims, self.dim(), keepdim)
    if ord == 0:
        return None  # no gradient at all: ``x.grad`` stays None, as in PyTorch
    if ord == 1:
        return self.sgn() * grad
    if ord == 2:
        return grad * (self / norm).masked_fill(norm == 0, 0)
    if math.isinf(ord):
        magnitude = self.abs()
        mask = (magnitude == norm).logical_or(magnitude.isnan())
        return self.sgn() * scale_grad_by_count(grad, mask, dims)
    if ord < 1:
        scaled = self.sgn() * self.abs().pow(ord - 1).masked_fill(self == 0, 0)
        return scaled * grad * norm.pow(1 - ord)
    scaled = self.sgn() * self.abs().pow(ord - 1) if ord < 2 else self * self.abs().pow(ord - 2)
    return scaled * (grad / norm.pow(ord - 1)).masked_fill(norm == 0, 0)


# ``torch.linalg.vector_norm``.
linalg_vector_norm = native_function(
    "linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    "linalg_vector_norm.out(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    kernel=meta_then_impl(_vector_norm_meta, _vector_norm_kernel),
    kernels={
        "linalg_vector_norm.out": out_wrapper(
            _vector_norm_kernel, exact_dtype=True, meta=_vector_norm_meta
        )
    },  # fmt: skip
    derivative=Derivative(
        "LinalgVectorNormBackward0",
        complex=True,
        save=("self", "ord", "dim", "keepdim", "result"),
        grads={
            "self": lambda grad, saved: norm_backward(
                grad, saved.self, saved.ord, saved.result, saved.dim, saved.keepdim
            )
        },
    ),
    variants="function",
    doc="``torch.linalg.vector_norm``: ``(sum |x|^ord)^(1/ord)`` over ``dim``.",
)


# --- matrix norms ---------------------------------------------------------------------------


def _format_order(ord) -> str:
    """An order as PyTorch's C++ prints a double: ``3``, ``0.5``, ``1e+20``, ``inf``."""
    return f"{float(ord):g}"


def _matrix_norm_checks(A: Tensor, dim, dtype, low_precision: bool) -> list[int]:
    """``_linalg_matrix_norm_checks``: a (batch of) matrix of floating numbers, two
    different dims, a ``dtype`` that can hold it. Returns the two dims, wrapped."""
    if A.dim() < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    _check_floating("linalg.matrix_norm", A, low_precision)
    dim = list(dim)
    if len(dim) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"
        )
    dims = [wrap_dim(d, A.dim()) for d in dim]
    if dims[0] == dims[1]:
        raise RuntimeError(
            f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})"
        )
    _check_norm_dtype(dtype, A._dtype, "linalg.matrix_norm")
    return dims


def _backshift_permutation(dim0: int, dim1: int, ndim: int) -> list[int]:
    """``create_dim_backshift_permutation``: the other dims in order, then ``dim0, dim1``."""
    return [d for d in range(ndim) if d not in (dim0, dim1)] + [dim0, dim1]


def _inverse_permutation(permutation: list[int]) -> list[int]:
    inverse = [0] * len(permutation)
    for position, d in enumerate(permutation):
        inverse[d] = position
    return inverse


def _max_min(A: Tensor, dim: int, ord: float, keepdim: bool) -> Tensor:
    """The largest (``ord > 0``) or smallest value along ``dim``. All norms are ``≥ 0``,
    so the largest of none is 0; the smallest of none stays an error (``amin``'s)."""
    if ord > 0 and A._size[dim] == 0:
        size = list(A._size)
        if keepdim:
            size[dim] = 1
        else:
            del size[dim]
        return A.new_zeros(size)
    if ord < 0 and A._size[dim] == 0:
        raise IndexError(f"amin(): Expected reduction dim {dim} to have non-zero size.")
    return A.amax(dim, keepdim) if ord > 0 else A.amin(dim, keepdim)


def _singular_value_norm(A: Tensor, dims, keepdim: bool, dtype, reduce) -> Tensor:
    """``reduce`` (a sum, a max or a min) of the singular values of the matrices in
    ``dims``: they are moved last for ``linalg.svdvals``, and moved back with
    ``keepdim``."""
    A = A.to(dtype) if dtype is not None else A
    permutation = _backshift_permutation(dims[0], dims[1], A.dim())
    result = reduce(linalg_svdvals(A.permute(permutation)))
    if keepdim:
        result = result.unsqueeze(-1).permute(_inverse_permutation(permutation))
    return result


def _matrix_norm_kernel(self: Tensor, ord, dim=(-2, -1), keepdim=False, *,
                        dtype=None) -> Tensor:  # fmt: skip
    """``linalg.matrix_norm`` with a numeric order: ``1`` (``-1``) is the largest
    (smallest) sum of ``|a_ij|`` down a column, ``inf`` (``-inf``) along a row, ``2``
    (``-2``) the largest (smallest) singular value."""
    ord = float(ord)
    abs_ord = abs(ord)
    if abs_ord not in (1.0, 2.0, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {_format_order(ord)} not supported.")
    dims = _matrix_norm_checks(self, dim, dtype, low_precision=abs_ord != 2.0)
    if abs_ord == 2.0:
        return _singular_value_norm(self, dims, keepdim, dtype,
                                    lambda S: _max_min(S, -1, ord, keepdim))  # fmt: skip
    # The inf-norm is the 1-norm of the transpose: sum along the rows instead.
    first, second = dims if abs_ord == 1.0 else dims[::-1]
    if not keepdim and first < second:
        second -= 1  # the first reduction removed a dim before it
    sums = linalg_vector_norm(self, 1.0, [first], keepdim, dtype=dtype)
    return _max_min(sums, second, ord, keepdim)


def _matrix_norm_str_kernel(self: Tensor, ord="fro", dim=(-2, -1), keepdim=False, *,
                            dtype=None) -> Tensor:  # fmt: skip
    """``linalg.matrix_norm`` with a named order: ``'fro'`` is the vector 2-norm of the
    matrix's elements, ``'nuc'`` the sum of its singular values."""
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    dims = _matrix_norm_checks(self, dim, dtype, low_precision=ord != "nuc")
    if ord == "fro":
        return linalg_vector_norm(self, 2, dims, keepdim, dtype=dtype)
    return _singular_value_norm(self, dims, keepdim, dtype, lambda S: S.sum(-1, keepdim))


def _checked_out(fn_name: str, kernel):
    """``linalg_*_norm_out``: compute, then ``out`` must have the result's dtype exactly
    (norms are never cast into ``out``), then resize and copy."""

    def out_kernel(*args, out: Tensor, **options) -> Tensor:
        result = kernel(*args, **options)
        if out._dtype is not result._dtype:
            raise RuntimeError(
                f"{fn_name} expected out tensor dtype {result._dtype.scalar_name} but got: "
                f"{out._dtype.scalar_name}"
            )
        return write_to_out(result, out)

    return out_kernel


linalg_matrix_norm = native_function(
    "linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    "linalg_matrix_norm.out(Tensor self, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    "linalg_matrix_norm.str_ord(Tensor self, str ord='fro', int[] dim=[-2,-1], "
    "bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "linalg_matrix_norm.str_ord_out(Tensor self, str ord='fro', int[] dim=[-2,-1], "
    "bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "linalg_matrix_norm": _matrix_norm_kernel,
        "linalg_matrix_norm.out": _checked_out("linalg.matrix_norm", _matrix_norm_kernel),
        "linalg_matrix_norm.str_ord": _matrix_norm_str_kernel,
        "linalg_matrix_norm.str_ord_out": _checked_out(
            "linalg.matrix_norm", _matrix_norm_str_kernel
        ),
    },  # fmt: skip
    kind=COMPOSITE_IMPLICIT,
    kinds={
        "linalg_matrix_norm.out": COMPOSITE_IMPLICIT,
        "linalg_matrix_norm.str_ord_out": COMPOSITE_IMPLICIT,
    },
    variants="function",
    doc="""``torch.linalg.matrix_norm``: the Frobenius (``'fro'``), nuclear (``'nuc'``),
    ``1``, ``-1``, ``inf``, ``-inf``, ``2`` or ``-2`` norm of the matrices in ``dim``.""",
)


# --- linalg.norm ----------------------------------------------------------------------------


def _linalg_norm_kernel(self: Tensor, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``linalg.norm`` with a numeric order (or none): a matrix norm when ``dim`` has two
    dims (or is omitted for a matrix) and ``ord`` is given, else a vector norm (the
    2-norm when ``ord`` is None: for a matrix, the Frobenius norm is the same)."""
    if dim is not None:
        if len(dim) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}"
            )
    elif ord is not None and self.dim() not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {self.dim()}D."
        )
    if ord is not None and ((dim is not None and len(dim) == 2) or
                            (dim is None and self.dim() == 2)):  # fmt: skip
        dims = list(dim) if dim is not None else [0, 1]
        return linalg_matrix_norm(self, ord, dims, keepdim, dtype=dtype)
    return linalg_vector_norm(self, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)


def _linalg_norm_str_kernel(self: Tensor, ord, dim=None, keepdim=False, *, dtype=None):
    """``linalg.norm`` with ``'fro'`` or ``'nuc'``: always a matrix norm."""
    if dim is not None:
        if len(dim) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}"
            )
    elif self.dim() not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {self.dim()}D."
        )
    dims = list(dim) if dim is not None else [0, 1]
    return linalg_matrix_norm(self, ord, dims, keepdim, dtype=dtype)


linalg_norm = native_function(
    "linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    "linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    "linalg_norm.out(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    "linalg_norm.ord_str_out(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "linalg_norm": _linalg_norm_kernel,
        "linalg_norm.out": _checked_out("linalg.norm", _linalg_norm_kernel),
        "linalg_norm.ord_str": _linalg_norm_str_kernel,
        "linalg_norm.ord_str_out": _checked_out("linalg.norm", _linalg_norm_str_kernel),
    },
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_norm.out": COMPOSITE_IMPLICIT, "linalg_norm.ord_str_out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.norm``: ``linalg.vector_norm`` or ``linalg.matrix_norm``, as
    ``ord`` and ``dim`` say (NumPy's ``linalg.norm``).""",
)


# --- linalg.cond ----------------------------------------------------------------------------


def _cond_check_ord(ord) -> None:
    """``_linalg_cond_check_ord``: the orders of ``matrix_norm``."""
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {ord}")
    elif abs(float(ord)) not in (1.0, 2.0, math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {_format_order(ord)}")


def _cond_empty(A: Tensor) -> Tensor:
    """NumPy has no condition number for an empty matrix: PyTorch gives 0 (each matrix)."""
    return A.new_zeros(A._size[:-2], dtype=A._dtype.to_real())


def _cond_from_inverse(A: Tensor, ord) -> Tensor:
    """``_linalg_cond_helper``: ``norm(A) * norm(A⁻¹)``, with a singular matrix's inverse
    taken as all ``inf`` (its condition number is infinite)."""
    inverse, info = linalg_inv_ex(A)
    info = info.unsqueeze(-1).unsqueeze(-1)
    inverse.masked_fill_(info > 0, math.inf)
    result = linalg_matrix_norm(A, ord) * linalg_matrix_norm(inverse, ord)
    # 0 * inf is nan: NumPy says inf.
    return result.nan_to_num_(math.inf, math.inf, -math.inf)


def _cond_kernel(self: Tensor, p=None) -> Tensor:
    """``linalg.cond`` with a numeric order (2 when None): for ``±2``, the ratio of the
    largest and smallest singular values (any shape); else ``norm(A) * norm(A⁻¹)``."""
    if self.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord = 2 if p is None else p
    _cond_check_ord(ord)
    if self.numel() == 0:
        return _cond_empty(self)
    if abs(float(ord)) == 2.0:
        S = linalg_svdvals(self)
        # The singular values are sorted in decreasing order.
        s_max, s_min = S.narrow(-1, 0, 1), S.narrow(-1, S._size[-1] - 1, 1)
        result = s_min / s_max if float(ord) == -2.0 else s_max / s_min
        return result.squeeze(-1)
    # (PyTorch names a float order as C++'s ``std::to_string`` writes it: ``1.000000``.)
    name = f"{ord:f}" if isinstance(ord, float) else f"{int(ord)}"
    _square_check_inputs(self, f"linalg.cond(ord={name})")
    return _cond_from_inverse(self, ord)


def _cond_str_kernel(self: Tensor, p: str) -> Tensor:
    """``linalg.cond`` with ``'fro'`` or ``'nuc'``: square matrices only."""
    _square_check_inputs(self, f"linalg.cond(ord={p})")
    _cond_check_ord(p)
    if self.numel() == 0:
        return _cond_empty(self)
    if p == "nuc":
        # matrix_norm('nuc') of an inverse full of inf would fail in the SVD: use the
        # singular values of A, whose reciprocals are those of A⁻¹.
        S = linalg_svdvals(self)
        return S.sum(-1) * S.reciprocal().sum(-1)
    return _cond_from_inverse(self, p)


def _cond_out(kernel):
    """``linalg_cond_out``: ``out`` takes any dtype the real result casts to."""

    def out_kernel(self: Tensor, *args, out: Tensor) -> Tensor:
        real = self._dtype.to_real()
        if not can_cast(real, out._dtype):
            raise RuntimeError(
                f"linalg.cond: Expected result to be safely castable from {real.scalar_name} "
                f"dtype, but got result with dtype {out._dtype.scalar_name}"
            )
        return write_to_out(kernel(self, *args), out)

    return out_kernel


linalg_cond = native_function(
    "linalg_cond(Tensor self, Scalar? p=None) -> Tensor",
    "linalg_cond.out(Tensor self, Scalar? p=None, *, Tensor(a!) out) -> Tensor(a!)",
    "linalg_cond.p_str(Tensor self, str p) -> Tensor",
    "linalg_cond.p_str_out(Tensor self, str p, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "linalg_cond": _cond_kernel,
        "linalg_cond.out": _cond_out(_cond_kernel),
        "linalg_cond.p_str": _cond_str_kernel,
        "linalg_cond.p_str_out": _cond_out(_cond_str_kernel),
    },
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_cond.out": COMPOSITE_IMPLICIT, "linalg_cond.p_str_out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.cond``: the condition number ``norm(A) * norm(A⁻¹)`` in the
    norm ``p`` (the 2-norm by default: the largest over the smallest singular value).""",
)


# --- torch.norm -----------------------------------------------------------------------------


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm``: a vector norm over ``dim`` (``p`` a number, or ``'fro'``, the
    2-norm of all the elements), or the nuclear norm ``'nuc'`` of a matrix.

    A Python function in PyTorch too (``torch/functional.py``): it only chooses between
    ``linalg.vector_norm`` and ``linalg.matrix_norm``, which check everything else.
    """
    dims = None if dim is None else [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return linalg_vector_norm(input, 2, dims, keepdim, dtype=dtype, out=out)
        # The nuclear norm, or matrix_norm's error for anything else.
        if dims is None:
            dims = list(range(input.ndim))
        return linalg_matrix_norm(input, p, dims, keepdim, dtype=dtype, out=out)
    return linalg_vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype, out=out)


def _tensor_norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    """``Tensor.norm``: ``torch.norm`` of this tensor (``torch/_tensor.py``)."""
    return norm(self, p, dim, keepdim, dtype=dtype)


define_method("norm", _tensor_norm)

"""``norm``: vector norms and the nuclear norm (``linalg_vector_norm``, ``linalg_matrix_norm``).

Two operators compute: ``linalg_vector_norm`` (``(sum |x|^p)^(1/p)`` over ``dim``) and
``linalg_matrix_norm`` (here the nuclear norm, the sum of a matrix's singular values).
``torch.norm`` is a Python function in PyTorch too (``torch/functional.py``) that picks
one of them by ``p``, and ``Tensor.norm`` calls it (``torch/_tensor.py``).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import dtypes as dt
from ..derivatives import Derivative
from ..tensor import Tensor, define_method
from .declaration import native_function
from .overload_kernels import out_wrapper
from .reduction_args import numpy_axes, reduction_dims
from .reduction_backward import scale_grad_by_count, unsqueeze_reduced
from .reduction_dtypes import accumulate_dtype
from .reduction_machinery import ReduceOps, interruptible, wrap_result
from .registry import write_to_out

__all__ = [
    "norm",
]


# --- vector norms ---------------------------------------------------------------------------


def _check_floating(fn_name: str, input: Tensor, dtype) -> None:
    if input._dtype.category < dt.FLOATING or (dtype or input._dtype).category < dt.FLOATING:
        raise RuntimeError(
            f"{fn_name}: Expected a floating point or complex tensor as input. Got "
            f"{input._dtype.scalar_name}"
        )


def _vector_norm_kernel(self: Tensor, ord=2, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    """``linalg.vector_norm``: ``(sum |x|^p)^(1/p)``, with the limits p = inf (largest
    ``|x|``), -inf (smallest) and 0 (how many are non-zero)."""
    _check_floating("linalg.vector_norm", self, dtype)
    dims = reduction_dims(dim, self.dim())
    # Norms built from a max or a negative power have no value for no elements.
    empty_reduction = self.numel() == 0 and (
        not dims or builtins.any(self._size[d] == 0 for d in dims)
    )
    if empty_reduction and (ord < 0 or ord == math.inf):
        name = {math.inf: "inf", -math.inf: "-inf"}.get(ord, f"{ord}")
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {name} norm on an empty tensor because "
            "the operation does not have an identity"
        )
    result_dtype = (dtype or self._dtype).to_real()
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


# ``torch.linalg.vector_norm``; vizgrad has no ``linalg`` namespace, so only ``norm`` calls it.
linalg_vector_norm = native_function(
    "linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    "linalg_vector_norm.out(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    kernel=_vector_norm_kernel,
    kernels={"linalg_vector_norm.out": out_wrapper(_vector_norm_kernel, exact_dtype=True)},
    derivative=Derivative(
        "LinalgVectorNormBackward0",
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


def _matrix_norm_kernel(self: Tensor, ord="fro", dim=(-2, -1), keepdim=False, *,
                        dtype=None) -> Tensor:  # fmt: skip
    """``linalg.matrix_norm`` with a named order: ``'fro'`` is the vector 2-norm of the
    matrix's elements, ``'nuc'`` the sum of its singular values."""
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if self.dim() < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    _check_floating("linalg.matrix_norm", self, dtype)
    if len(dim) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"
        )
    dims = reduction_dims(dim, self.dim())
    if ord == "fro":
        return _vector_norm_kernel(self, 2, dims, keepdim, dtype=dtype)
    result_dtype = (dtype or self._dtype).to_real()
    compute = accumulate_dtype(dtype or self._dtype).numpy
    # PyTorch's ``linalg_svdvals`` allocates the singular values before it copies the
    # matrices: for a huge ``expand``, that is the allocation that fails, so here too.
    batch = [n for d, n in enumerate(self._size) if d not in dims]
    np.empty([*batch, min(self._size[d] for d in dims)], result_dtype.numpy)
    matrices = np.moveaxis(self._array.astype(compute), dims, (-2, -1))
    result = np.linalg.svd(matrices, compute_uv=False).sum(axis=-1)
    if keepdim:
        result = np.expand_dims(result, tuple(sorted(dims)))
    return wrap_result(result, result_dtype)


def _matrix_norm_out_kernel(self: Tensor, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None,
                            out: Tensor) -> Tensor:  # fmt: skip
    result = _matrix_norm_kernel(self, ord, dim, keepdim, dtype=dtype)
    if out._dtype is not result._dtype:
        raise RuntimeError(
            f"linalg.matrix_norm expected out tensor dtype {result._dtype.scalar_name} but got: "
            f"{out._dtype.scalar_name}"
        )
    return write_to_out(result, out)


# ``torch.linalg.matrix_norm`` with ``ord`` a string. No derivative yet: PyTorch builds
# the nuclear norm from ``linalg_svdvals`` (its graph is SumBackward1 ->
# LinalgSvdBackward0), and vizgrad has no SVD operator.
linalg_matrix_norm = native_function(
    "linalg_matrix_norm.str_ord(Tensor self, str ord='fro', int[] dim=[-2,-1], "
    "bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "linalg_matrix_norm.str_ord_out(Tensor self, str ord='fro', int[] dim=[-2,-1], "
    "bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    kernel=_matrix_norm_kernel,
    kernels={"linalg_matrix_norm.str_ord_out": _matrix_norm_out_kernel},
    variants="function",
    doc="``torch.linalg.matrix_norm``: the Frobenius (``'fro'``) or nuclear (``'nuc'``) norm "
    "of the matrices in ``dim``.",
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

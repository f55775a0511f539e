"""``norm``: vector norms and the nuclear norm (``linalg_vector_norm``, ``nuclear_norm``).

``torch.norm`` picks the kernel from ``p``: a number (or ``inf``) is a vector norm
over ``dim`` (``linalg.vector_norm``), ``"fro"`` the 2-norm, ``"nuc"`` the sum of the
singular values of a matrix.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import dtypes as dt
from ..derivatives import Derivative
from ..tensor import Tensor
from .reduction_args import check_dtype_argument, given_dims, numpy_axes, reduction_dims
from .reduction_backward import scale_grad_by_count, unsqueeze_reduced
from .reduction_dtypes import accumulate_dtype, check_out_dtype, write_same_dtype_out
from .reduction_machinery import bind_methods, call, declare_pair, wrap_result
from .registry import check_tensor

__all__ = [
    "norm",
]


# --- norms -----------------------------------------------------------------------------


def _vector_norm_kernel(self: Tensor, ord=2, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    """``linalg.vector_norm``: ``(sum |x|^p)^(1/p)``, with the limits p = inf (largest
    ``|x|``), -inf (smallest) and 0 (how many are non-zero)."""
    dim = reduction_dims(dim, self.dim())
    result_dtype = (dtype or self._dtype).to_real()
    compute = accumulate_dtype(dtype or self._dtype).numpy
    axes = numpy_axes(self, dim)
    array = self._array if self._array.dtype == compute else self._array.astype(compute)
    with np.errstate(all="ignore"):
        magnitude = np.abs(array)
        if ord == math.inf:
            result = np.max(magnitude, axis=axes, keepdims=keepdim, initial=0)
        elif ord == -math.inf:
            result = np.min(magnitude, axis=axes, keepdims=keepdim)
        elif ord == 0:
            result = np.count_nonzero(magnitude, axis=axes, keepdims=keepdim)
        elif ord == 1:
            result = np.sum(magnitude, axis=axes, keepdims=keepdim)
        elif ord == 2:
            result = np.sqrt(np.sum(magnitude * magnitude, axis=axes, keepdims=keepdim))
        else:
            result = np.sum(magnitude**ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)
    return wrap_result(result, result_dtype)


def _nuclear_norm_kernel(self: Tensor, dim, keepdim=False, *, dtype=None) -> Tensor:
    """The sum of the singular values of the matrices in ``dim`` (two dims)."""
    result_dtype = (dtype or self._dtype).to_real()
    compute = accumulate_dtype(dtype or self._dtype).numpy
    matrices = np.moveaxis(self._array.astype(compute), dim, (-2, -1))
    result = np.linalg.svd(matrices, compute_uv=False).sum(axis=-1)
    if keepdim:
        result = np.expand_dims(result, tuple(sorted(dim)))
    return wrap_result(result, result_dtype)


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


_NORM_SCHEMA = "(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, " \
               "ScalarType? dtype=None"  # fmt: skip
_vector_norm_op, _vector_norm_out_op = declare_pair(
    f"linalg_vector_norm{_NORM_SCHEMA}) -> Tensor",
    f"linalg_vector_norm.out{_NORM_SCHEMA}, Tensor(a!) out) -> Tensor(a!)",
    _vector_norm_kernel,
    write_same_dtype_out,
    Derivative(
        "LinalgVectorNormBackward0",
        save=("self", "ord", "dim", "keepdim", "result"),
        grads={
            "self": lambda grad, saved: norm_backward(
                grad, saved.self, saved.ord, saved.result, saved.dim, saved.keepdim
            )
        },
    ),
)
_NUC_SCHEMA = "(Tensor self, int[2] dim, bool keepdim=False, *, ScalarType? dtype=None"
_nuclear_norm_op, _nuclear_norm_out_op = declare_pair(
    f"nuclear_norm.dim{_NUC_SCHEMA}) -> Tensor",
    f"nuclear_norm.dim_out{_NUC_SCHEMA}, Tensor(a!) out) -> Tensor(a!)",
    _nuclear_norm_kernel,
    write_same_dtype_out,
    # No derivative yet: PyTorch builds the nuclear norm from ``linalg_svdvals`` (its
    # graph is SumBackward1 -> LinalgSvdBackward0), and vizgrad has no SVD operator.
)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm``: a vector norm over ``dim`` (``p`` a number, or ``'fro'``, the
    2-norm of all the elements), or the nuclear norm ``'nuc'`` of a matrix."""
    check_tensor("norm", input, "input", 1)
    check_dtype_argument("norm", dtype)
    if p is None:
        p = "fro"
    if isinstance(p, str) and p not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    category = (dtype or input._dtype).category
    if input._dtype.category < dt.FLOATING or category < dt.FLOATING:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{input._dtype.scalar_name}"
        )
    if dtype is not None and out is not None:
        check_out_dtype(out, dtype)
    if p == "nuc":
        dims = reduction_dims(dim if dim is not None else (-2, -1), input.dim())
        if input.dim() < 2:
            raise RuntimeError(
                "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
            )
        if len(dims) != 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {list(dims)}")
        return call(_nuclear_norm_op, _nuclear_norm_out_op, (input, dims, keepdim), out,
                    dtype=dtype)  # fmt: skip
    ord = 2 if p == "fro" else p
    given = given_dims(dim, input.dim())
    dims = reduction_dims(given, input.dim())
    # Norms built from a max or a negative power have no value for no elements.
    empty_reduction = input.numel() == 0 and (
        not dims or builtins.any(input._size[d] == 0 for d in dims)
    )
    if empty_reduction and (ord < 0 or ord == math.inf):
        name = {math.inf: "inf", -math.inf: "-inf"}.get(ord, f"{ord}")
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {name} norm on an empty tensor because "
            "the operation does not have an identity"
        )
    return call(_vector_norm_op, _vector_norm_out_op, (input, ord, given, keepdim), out,
                dtype=dtype)  # fmt: skip


bind_methods(norm)

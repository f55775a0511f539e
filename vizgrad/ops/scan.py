"""Scans: ``cumsum`` and ``cumprod`` (PyTorch's ``ReduceOps.cpp``, "cumulative" ops).

A scan is a reduction that keeps every partial result: element ``i`` of
``cumsum(t, dim)`` is the sum of elements ``0..i`` along ``dim``, so the output has the
input's shape. Its dtype follows the ``sum`` rules (integers and bools widen to int64;
``dtype=`` casts the input first); the in-place ``cumsum_`` keeps the tensor's dtype.
The running value itself is kept wider on the CPU (``double`` for ``float``), and each
element rounded from it.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..derivatives import Derivative
from ..dtypes import CPP_TYPE_NAMES
from ..dtypes import dtype as DType
from ..grad_mode import is_grad_enabled
from ..memory_overlap import assert_no_internal_overlap
from ..shape import wrap_dim
from ..tensor import Tensor
from .creation import ones
from .declaration import native_function
from .joining import cat
from .logical import where
from .reduction_dtypes import accumulate_dtype, computed_in_out_dtype, input_as, sum_dtype
from .reduction_machinery import interruptible_scan, wrap_result

__all__ = ["cumsum", "cumprod"]


def _running_dtype(result_dtype: DType) -> DType:
    """``at::acc_type<T, /*is_cuda=*/false>``, what PyTorch's CPU scan keeps its running
    value in: ``double`` for ``float`` (and complex), ``float`` for ``half``. A ``float32``
    running sum would stop growing at 2**24 (adding 1 no longer changes it)."""
    return _CPU_RUNNING_DTYPES.get(result_dtype) or accumulate_dtype(result_dtype)


_CPU_RUNNING_DTYPES = {dt.float32: dt.float64, dt.complex64: dt.complex128}


def _scan(ufunc, self: Tensor, dim: int, result_dtype) -> np.ndarray:
    """One NumPy scan (``ufunc.accumulate``) over the strided view, in slices if long
    (``interruptible_scan``); a zero-dim tensor scans as one element."""
    dim = wrap_dim(dim, self.dim())
    running = _running_dtype(result_dtype).numpy
    array = input_as(self, running)
    with np.errstate(all="ignore"):
        if not self._size:
            return ufunc.accumulate(array.reshape(1), dtype=running).reshape(())
        return interruptible_scan(ufunc, array, dim, running, result_dtype.numpy)


def _cumsum_kernel(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    result_dtype = dtype or sum_dtype(self._dtype)
    return wrap_result(_scan(np.add, self, dim, result_dtype), result_dtype)


def _cumprod_kernel(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    result_dtype = dtype or sum_dtype(self._dtype)
    return wrap_result(_scan(np.multiply, self, dim, result_dtype), result_dtype)


def _inplace_kernel(ufunc, fn_name: str):
    """``cumsum_``: the running result replaces ``self``, which keeps its dtype."""

    def kernel(self: Tensor, dim: int, *, dtype=None) -> Tensor:
        wrap_dim(dim, self.dim())  # a bad dim is reported before a bad dtype
        if dtype is not None and dtype is not self._dtype:
            raise RuntimeError(
                f"Bad in-place call: input tensor dtype {CPP_TYPE_NAMES[self._dtype.name]} and "
                f"output tensor dtype {CPP_TYPE_NAMES[dtype.name]} should match"
            )
        if self._dtype is dt.bool:
            raise NotImplementedError(f"\"{fn_name}_out_cpu\" not implemented for 'Bool'")
        # An ``expand``ed tensor has one element at many places: no place to put each sum.
        assert_no_internal_overlap(self)
        # The running total is computed wide (int64 for ints), then stored back narrow.
        result = _scan(ufunc, self, dim, sum_dtype(self._dtype))
        np.copyto(self._array, result, casting="unsafe")
        return self

    return kernel


# --- backward -------------------------------------------------------------------------


def reversed_cumsum(t: Tensor, dim: int) -> Tensor:
    """Running sums from the end: element ``i`` is the sum of elements ``i..n-1``."""
    return t.flip(dim).cumsum(dim).flip(dim)


def _is_trivial_scan(t: Tensor, dim: int) -> bool:
    """One element per slice: the scan is the identity, and so is its backward."""
    return t.numel() <= 1 or t.shape[dim] == 1


def cumsum_backward(grad: Tensor, dim: int) -> Tensor:
    """Input ``i`` was added into outputs ``i, i+1, ...``: its gradient is the sum of
    their gradients, a cumulative sum run backwards."""
    if _is_trivial_scan(grad, dim):
        return grad
    return reversed_cumsum(grad, dim)


def cumprod_backward(grad: Tensor, input: Tensor, dim: int, output: Tensor) -> Tensor:
    """``cumprod_backward``: output ``k`` is ``x_0 ... x_k``, so for ``i <= k``,
    ``d out_k / d x_i`` is ``out_k / x_i`` and the gradient of ``x_i`` is
    ``sum_{k >= i} grad_k out_k / x_i``.

    Dividing by ``x_i`` fails where it is zero, so the formula splits each slice at its
    first zero ``z``:

    * before ``z``: the division is safe (outputs from ``z`` on are zero and add nothing);
    * at ``z``: ``d out_k / d x_z`` is the product of the *other* factors, which is the
      cumulative product of the input with ``x_z`` replaced by 1;
    * after ``z``: every output depending on them already holds the factor 0: gradient 0.

    That last 0 is a value, not a formula: its derivative with respect to ``x_z`` is not
    0. So when the backward is itself recorded (``create_graph=True``), PyTorch uses a
    slower formula built from products only, which can be differentiated again.
    """
    if _is_trivial_scan(input, dim):
        return grad
    zeros_so_far = (input == 0).cumsum(dim)
    before_first_zero = zeros_so_far == 0
    if before_first_zero.all().item():  # no zeros: the plain formula
        return reversed_cumsum(grad * output, dim) / input
    if is_grad_enabled():
        return _cumprod_backward_by_products(grad, input, dim)
    first_zero = (input == 0).logical_and(zeros_so_far == 1)
    safe_input = where(before_first_zero, input, 1)
    before = where(before_first_zero, reversed_cumsum(grad * output, dim) / safe_input, 0)
    others = where(first_zero, 1, input).cumprod(dim)
    at_zero = where(first_zero, reversed_cumsum(grad * others, dim), 0)
    return before + at_zero


def _cumprod_backward_by_products(grad: Tensor, input: Tensor, dim: int) -> Tensor:
    """``g_k = sum_{m >= k} grad_m * prod_{j <= m, j != k} x_j``, one position ``k`` at a
    time: the product of the elements before ``k`` times the running products after it.
    Quadratic in the length of ``dim``, but differentiable everywhere."""
    dim = wrap_dim(dim, input.dim())  # saved as the caller gave it
    n = input.shape[dim]
    one = ones([1 if d == dim else s for d, s in enumerate(input.shape)], dtype=grad.dtype)
    pieces = []
    for k in range(n):
        after = input.narrow(dim, k + 1, n - k - 1).cumprod(dim)
        omitted = cat([one, after], dim)
        if k > 0:
            omitted = input.narrow(dim, 0, k).prod(dim, keepdim=True) * omitted
        pieces.append((grad.narrow(dim, k, n - k) * omitted).sum(dim, keepdim=True))
    return cat(pieces, dim)


cumsum = native_function(
    "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    "cumsum_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)",
    "cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    kernel=_cumsum_kernel,
    kernels={
        "cumsum_": _inplace_kernel(np.add, "cumsum"),
        "cumsum.out": computed_in_out_dtype(_cumsum_kernel),
    },
    derivative=Derivative(
        "CumsumBackward0",
        save=("dim",),
        grads={"self": lambda grad, saved: cumsum_backward(grad, saved.dim)},
    ),
    doc="``torch.cumsum``: running sums along ``dim``.",
)
cumprod = native_function(
    "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    "cumprod_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)",
    "cumprod.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    kernel=_cumprod_kernel,
    kernels={
        "cumprod_": _inplace_kernel(np.multiply, "cumprod"),
        "cumprod.out": computed_in_out_dtype(_cumprod_kernel),
    },
    derivative=Derivative(
        "CumprodBackward0",
        save=("self", "dim", "result"),
        grads={
            "self": lambda grad, saved: cumprod_backward(grad, saved.self, saved.dim, saved.result)
        },
    ),
    doc="``torch.cumprod``: running products along ``dim``.",
)

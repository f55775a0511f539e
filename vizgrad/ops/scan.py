"""Scans: ``cumsum``, ``cumprod``, ``cummax``, ``cummin``, ``logcumsumexp`` (PyTorch's
``ReduceOps.cpp``, "cumulative" ops).

A scan is a reduction that keeps every partial result: element ``i`` of
``cumsum(t, dim)`` is the sum of elements ``0..i`` along ``dim``, so the output has the
input's shape. Its dtype follows the ``sum`` rules (integers and bools widen to int64;
``dtype=`` casts the input first); the in-place ``cumsum_`` keeps the tensor's dtype.
The running value itself is kept wider on the CPU (``double`` for ``float``), and each
element rounded from it.

``cummax``/``cummin`` keep the running extreme and *where* it was found (``(values,
indices)``); ``logcumsumexp`` keeps ``log(exp(x_0) + ... + exp(x_i))`` without ever
forming the exponentials, so it neither overflows nor underflows. Every scan runs as
NumPy ``accumulate`` calls in slices (``interruptible_scan``): linear in the input, and
stopped by Ctrl-C between slices.
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
from .declaration import native_function
from .iterator import (
    ALL_TYPES,
    COMPLEX_TYPES,
    FLOATING_TYPES,
    _check_compiled_for,
    dispatch_dtypes,
)
from .joining import cat
from .logical import where
from .overload_kernels import meta_then_impl, out_wrapper
from .reduction_dtypes import accumulate_dtype, computed_in_out_dtype, input_as, sum_dtype
from .reduction_machinery import interruptible_into, interruptible_scan, wrap_result

__all__ = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"]


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


def check_inplace_scan(fn_name: str, self: Tensor, dim: int, dtype) -> None:
    """``cumsum_``'s checks: ``self`` keeps its dtype, and each sum needs a place."""
    wrap_dim(dim, self.dim())  # a bad dim is reported before a bad dtype
    if dtype is not None and dtype is not self._dtype:
        raise RuntimeError(
            f"Bad in-place call: input tensor dtype {CPP_TYPE_NAMES[self._dtype.name]} and "
            f"output tensor dtype {CPP_TYPE_NAMES[dtype.name]} should match"
        )
    if self._dtype is dt.bool and self.dim() and self.numel():  # (else no loop to dispatch)
        raise NotImplementedError(f"\"{fn_name}_out_cpu\" not implemented for 'Bool'")
    # An ``expand``ed tensor has one element at many places: no place to put each sum.
    assert_no_internal_overlap(self)


def _inplace_kernel(ufunc, fn_name: str):
    """``cumsum_``: the running result replaces ``self``, which keeps its dtype."""

    def kernel(self: Tensor, dim: int, *, dtype=None) -> Tensor:
        check_inplace_scan(fn_name, self, dim, dtype)
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
    # No zeros: the plain formula. (A meta input has no values: the general one.)
    if not input.is_meta and before_first_zero.all().item():
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
    one = grad.new_ones([1 if d == dim else s for d, s in enumerate(input.shape)])
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


# --- cummax, cummin: the running extreme and where it was found -------------------------


def _check_extreme_scan_dim(fn_name: str, self: Tensor, dim: int) -> None:
    """``cummax_out``'s dim rules: a zero-dim ``self`` takes dim -1 or 0 only; an empty
    one is never read, so its dim is never checked (any dim passes, as in PyTorch)."""
    if not self._size:
        if dim not in (-1, 0):
            raise IndexError(
                f"{fn_name}(): Expected reduction dim -1 or 0 for scalar but got {dim}"
            )
    elif self.numel():
        wrap_dim(dim, self.dim())


def _positions_where_extreme(array, running, positions, out) -> None:
    """``positions`` where the running extreme was (re)taken, 0 elsewhere.

    PyTorch's loop moves the index to ``i`` when ``x_i >= extreme`` (``<=`` for cummin),
    so of equal values the *last* one is the index; and when ``x_i`` is nan, which is
    then the extreme for good. After the first nan, the running extreme is nan, and
    only nans equal it in this test."""
    taken = array == running
    if array.dtype.kind == "f":
        taken |= np.isnan(array)
    np.multiply(taken, positions, out=out)


def _extreme_scan(ufunc, kernel_name: str):
    """The scan of ``cummax`` (``np.maximum``) or ``cummin`` (``np.minimum``) along
    ``axis``: running extremes (NumPy's propagate nan, as PyTorch's loop does), then
    the index of each, the running maximum of the positions where it was taken."""

    @dispatch_dtypes(kernel_name, ALL_TYPES | {"bool"})
    def scan(_no_out, array, axis: int):
        values = interruptible_scan(ufunc, array, axis, array.dtype)
        along = [-1 if a == axis else 1 for a in range(array.ndim)]
        positions = np.arange(array.shape[axis]).reshape(along)
        taken_at = interruptible_into(_positions_where_extreme, np.empty(array.shape, np.int64),
                                      array, values, positions)  # fmt: skip
        return values, interruptible_scan(np.maximum, taken_at, axis, np.int64)

    return scan


def _extreme_scan_kernel(ufunc, fn_name: str):
    """``cummax``/``cummin``: ``(values, indices)`` of ``self``'s shape, contiguous."""
    scan = _extreme_scan(ufunc, f"{fn_name}_cpu")

    def kernel(self: Tensor, dim: int):
        _check_extreme_scan_dim(fn_name, self, dim)
        if not self._size:  # a zero-dim tensor is its own extreme, at index 0
            values, indices = self._array, np.zeros((), np.int64)
        elif not self.numel():
            values, indices = self._array, np.empty(self._size, np.int64)
        else:
            values, indices = scan(None, self._array, wrap_dim(dim, self.dim()))
        return wrap_result(values, self._dtype), wrap_result(indices, dt.int64)

    kernel.__name__ = f"_{fn_name}_kernel"
    return kernel


def check_same_scalar_type(out: Tensor, expected: DType) -> None:
    """``check_scalar_type_device_layout_equal``: an ``out=`` tensor of ``expected``'s
    dtype exactly, in those words."""
    if out._dtype is not expected:
        raise RuntimeError(
            f"expected scalar_type {expected.scalar_name} but found {out._dtype.scalar_name}"
        )


def _check_extreme_scan_out(self: Tensor, dim: int, *, values: Tensor, indices: Tensor):
    """``cummax_out`` checks both outputs' dtypes before anything else."""
    check_same_scalar_type(values, self._dtype)
    check_same_scalar_type(indices, dt.int64)


def cummaxmin_backward(grad: Tensor, input: Tensor, indices: Tensor, dim: int) -> Tensor:
    """``cummaxmin_backward``: output ``i`` is a copy of input ``indices[i]``, so each
    input element gets the sum of the gradients of the outputs that copied it."""
    if not input.numel():
        return input
    return input.new_zeros(input.shape).scatter_add_(dim, indices, grad)


def _extreme_scan_meta(fn_name: str):
    """``cummax``/``cummin``'s checks (the dim, and the dtype dispatch of the scan, which
    only a tensor with elements meets), then both outputs: ``self``'s shape."""
    scan = _extreme_scan(None, f"{fn_name}_cpu")

    def meta(self: Tensor, dim: int, **_outs):
        _check_extreme_scan_dim(fn_name, self, dim)
        if self._size and self.numel():
            _check_compiled_for(scan, self._dtype)
        return [(self._size, self._dtype), (self._size, dt.int64)]

    return meta


def _extreme_scan_declaration(fn_name: str, ufunc, node_name: str):
    meta = _extreme_scan_meta(fn_name)
    impl = _extreme_scan_kernel(ufunc, fn_name)
    kernel = meta_then_impl(meta, impl)
    return native_function(
        f"{fn_name}(Tensor self, int dim) -> (Tensor values, Tensor indices)",
        f"{fn_name}.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) "
        "-> (Tensor(a!) values, Tensor(b!) indices)",
        kernel=kernel,
        kernels={
            f"{fn_name}.out": out_wrapper(
                kernel, checks=_check_extreme_scan_out, check_cast=False, meta=meta, impl=impl
            )  # fmt: skip
        },
        derivative=Derivative(
            node_name,
            save=("self", "indices", "dim"),
            differentiable_outputs=(0,),
            grads={
                "self": lambda grad, saved: cummaxmin_backward(
                    grad, saved.self, saved.indices, saved.dim
                )
            },
        ),
        doc=f"``torch.{fn_name}``: the running {fn_name[3:]}imum along ``dim`` and the index "
        "where each was found (the last of equal values; nan, once met, stays).",
    )


cummax = _extreme_scan_declaration("cummax", np.maximum, "CummaxBackward0")
cummin = _extreme_scan_declaration("cummin", np.minimum, "CumminBackward0")


# --- logcumsumexp: running log-sum-exp, stable ------------------------------------------


class _ComplexLogAddExp:
    """``np.logaddexp`` for complex numbers, which NumPy has not: PyTorch's complex
    ``_log_add_exp_helper``, as a ufunc-like object (a call and ``accumulate``) that
    ``interruptible_scan`` can run.

    ``log(exp(a) + exp(b))`` is ``hi + log1p(exp(lo - hi))``, ``hi`` the operand of the
    larger real part: ``exp`` never overflows. A nan anywhere is nan; two infinite real
    parts of one sign are handled apart: ``+inf`` is computed plainly, and ``-inf`` (a
    sum of zeros) is ``-inf + 0j``, whatever the angles (PyTorch's loop starts from
    ``-inf + 0j`` and keeps it). Its ``accumulate`` combines ranges of doubling length
    (Hillis-Steele): ``log2(n)`` vectorized passes, O(n log n), where a loop would be
    Python per element.
    """

    START = complex(-np.inf, 0)  # the log of an empty sum

    def __call__(self, a, b, out=None):
        with np.errstate(all="ignore"):
            a_lower = a.real < b.real
            lo, hi = np.where(a_lower, a, b), np.where(a_lower, b, a)
            result = np.log1p(np.exp(lo - hi)) + hi
            both_infinite = ~np.isfinite(lo.real) & (lo.real == hi.real)
            infinite = np.where(lo.real < 0, self.START, np.log(np.exp(lo) + np.exp(hi)))
            result = np.where(both_infinite, infinite, result)
            result = np.where(np.isnan(a) | np.isnan(b), complex(np.nan, np.nan), result)
        if out is None:
            return result
        out[...] = result
        return out

    def accumulate(self, array, axis: int = 0, dtype=None, out=None):
        running = np.array(array, dtype=dtype or array.dtype) if out is None else out
        if out is not None and out is not array:
            running[...] = array
        n, step = running.shape[axis], 1
        before = (slice(None),) * axis
        # The first term is added to the empty sum too (a nan angle makes it nan); a
        # slice's first term already holding the sum so far is unchanged by it.
        first = (*before, slice(0, 1))
        running[first] = self(np.array(self.START), running[first])
        while step < n:
            later, earlier = (*before, slice(step, None)), (*before, slice(0, n - step))
            running[later] = self(running[later], running[earlier])
            step *= 2
        return running


_COMPLEX_LOGADDEXP = _ComplexLogAddExp()


def _logcumsumexp_kernel(self: Tensor, dim: int) -> Tensor:
    """``_logcumsumexp_cpu``: ``log(exp(x_0) + ... + exp(x_i))`` along ``dim``, the running
    value kept in ``acc_type`` (double for float) and combined by ``logaddexp``, whose
    larger operand is factored out, as PyTorch's loop does."""
    dim = wrap_dim(dim, self.dim())
    _logcumsumexp_dtypes(None, self._array)
    ufunc = _COMPLEX_LOGADDEXP if self._dtype.category == dt.COMPLEX else np.logaddexp
    if not self.numel():
        return wrap_result(self._array, self._dtype)
    return wrap_result(_scan(ufunc, self, dim, self._dtype), self._dtype)


@dispatch_dtypes("logcumsumexp_out_cpu", FLOATING_TYPES | COMPLEX_TYPES)
def _logcumsumexp_dtypes(_no_out, array) -> None:
    """(Only the dtype dispatch: ``logcumsumexp`` is compiled for floating and complex.)"""


def _logcumsumexp_meta(self: Tensor, dim: int, **_outs):
    """``logcumsumexp``'s checks (the dim, the dtype dispatch), then ``self``'s shape."""
    wrap_dim(dim, self.dim())
    _check_compiled_for(_logcumsumexp_dtypes, self._dtype)
    return (self._size, self._dtype)


def _check_logcumsumexp_out(self: Tensor, dim: int, *, out: Tensor) -> None:
    """``logcumsumexp_out``: ``out`` must have ``self``'s dtype exactly, before anything."""
    check_same_scalar_type(out, self._dtype)


def logcumsumexp_backward(grad: Tensor, self: Tensor, result: Tensor, dim: int) -> Tensor:
    """``logcumsumexp_backward``: ``d out_k / d x_i = exp(x_i - out_k)`` for ``i <= k``, so
    the gradient of ``x_i`` is ``sum_{k >= i} grad_k exp(x_i - out_k)``: a reversed
    running sum, taken in log space (a reversed ``logcumsumexp`` of ``log grad_k -
    out_k``) so that nothing overflows. A log needs positive numbers: the positive and
    the negative gradients are summed apart (``lowest`` standing for ``log 0``)."""
    if grad.dim() == 0 or not grad.numel():
        return grad

    def reversed_logcumsumexp(t: Tensor) -> Tensor:
        return t.flip(dim).logcumsumexp(dim).flip(dim)

    if grad.is_complex():  # the complex log needs no split by sign
        log_grad = grad.conj().log()
        return (reversed_logcumsumexp(log_grad - result) + self).exp().conj()
    lowest = float(np.finfo(grad.dtype.numpy).min)
    log_abs_grad = grad.abs().log()
    log_grad_positive = where(grad > 0, log_abs_grad, lowest)
    log_grad_negative = where(grad < 0, log_abs_grad, lowest)
    output_positive = (reversed_logcumsumexp(log_grad_positive - result) + self).exp()
    output_negative = (reversed_logcumsumexp(log_grad_negative - result) + self).exp()
    return output_positive - output_negative


logcumsumexp = native_function(
    "logcumsumexp(Tensor self, int dim) -> Tensor",
    "logcumsumexp.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=meta_then_impl(_logcumsumexp_meta, _logcumsumexp_kernel),
    kernels={
        "logcumsumexp.out": out_wrapper(
            _logcumsumexp_kernel,
            checks=_check_logcumsumexp_out,
            check_cast=False,
            meta=_logcumsumexp_meta,
        )  # fmt: skip
    },
    derivative=Derivative(
        "LogcumsumexpBackward0",
        save=("self", "result", "dim"),
        grads={
            "self": lambda grad, saved: logcumsumexp_backward(
                grad, saved.self, saved.result, saved.dim
            )
        },
    ),
    doc="``torch.logcumsumexp``: ``log(cumsum(exp(input)))`` along ``dim``, computed without "
    "overflow.",
)

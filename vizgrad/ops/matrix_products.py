"""Matrix products and the matrix functions built on them (``LinearAlgebra.cpp``,
``Blas.cpp``, ``Cross.cpp``, ``Distance.cpp``).

* ``addmv``, ``addr``, ``addbmm``, ``baddbmm``: ``beta * input + alpha * product``, as
  BLAS computes it. The scalars are converted to the result's dtype first (``alpha=2.5``
  is ``2`` for integers), and ``beta == 0`` ignores ``input`` entirely, even its nan and
  inf. Like the other products (``mm``, ``bmm``) they do not promote types, but for
  ``addr``, which PyTorch writes as an elementwise loop (``TensorIterator``).
* ``trace``: the sum of a matrix's diagonal.
* ``linalg.multi_dot`` (and the deprecated ``chain_matmul``): a chain of ``mm``s in the
  cheapest order, found by dynamic programming (Cormen et al., *Introduction to
  Algorithms*, 15.2).
* ``cross``, ``linalg.cross``: the vector product of 3-vectors along a dimension.
* ``linalg.vecdot``: ``sum(x.conj() * y, dim)``.
* ``matrix_power``: ``n`` a power of two costs ``log2(n)`` products (repeated squaring);
  a negative ``n`` inverts first.
* ``matrix_exp``: a Taylor polynomial of degree at most 18, evaluated in a few products
  (Bader, Blanes, Casas, *Computing the Matrix Exponential with an Optimized Taylor
  Polynomial Approximation*, 2019), after scaling the matrix down by a power of two that
  repeated squaring then undoes.
* ``cdist``: the ``p``-norm distance between every row of ``x1`` and every row of
  ``x2``; for ``p=2`` on larger inputs, from one matrix product
  (``|a - b|² = |a|² - 2 a·b + |b|²``).

Most are CompositeImplicitAutograd in PyTorch: built here from other operators, their
graphs have PyTorch's nodes (``matrix_power(A, 3)`` records two ``MmBackward0``).
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..device import contiguous_format
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import BOOL, CPP_TYPE_NAMES, FLOATING, float16, float32, float64, int64
from ..meta_device import check_same_device
from ..shape import broadcast_shapes, numel_of, wrap_dim
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .creation import checked_scalar, ones_like, python_scalar
from .declaration import native_function
from .elementwise import structured
from .factorizations import (
    _check_floating_or_complex,
    _compatible_out,
    _square_check_inputs,
    linalg_inv,
)
from .float_errors import ignoring_float_errors
from .iterator import TensorIterator, resize_output
from .joining import cat
from .linalg import (
    _not_implemented,
    check_1d,
    check_bmm_shapes,
    matmul,
    mm,
    structured_product,
    vdot,
)
from .ranges import arange, eye
from .reduction_dtypes import accumulate_dtype, sum_dtype
from .reduction_machinery import wrap_result
from .reductions import sum as _sum

__all__ = [
    "trace",
    "addmv",
    "addmv_",
    "addr",
    "addbmm",
    "baddbmm",
    "chain_matmul",
    "cross",
    "cdist",
    "matrix_power",
    "matrix_exp",
    "_euclidean_dist",
]


# --- shared steps ----------------------------------------------------------------------------


def _cpp(dtype) -> str:
    """A dtype as PyTorch's messages print a ``TypeMeta`` (``float``, ``long int``)."""
    return CPP_TYPE_NAMES[dtype.name]


def _expand_size(self: Tensor, shape: tuple) -> Tensor:
    """``expand_size``: ``self`` broadcast to ``shape`` (``expand``'s errors if it can't)."""
    return self if self._size == shape else self.expand(shape)


def _maybe_multiply(t: Tensor, scalar) -> Tensor:
    """``maybe_multiply``: ``t * scalar``, without the multiplication by a real 1."""
    scalar = python_scalar(scalar)
    return t if not isinstance(scalar, complex) and scalar == 1 else t * scalar


def _conj(scalar):
    """``scalar.conj()`` of a Scalar (a 0-dim tensor given for one gives its item)."""
    return python_scalar(scalar).conjugate()


@ignoring_float_errors(all="ignore")
def _beta_input_plus_alpha_product(input: np.ndarray, product: np.ndarray, beta, alpha,
                                   dtype) -> np.ndarray:  # fmt: skip
    """``beta * input + alpha * product`` as BLAS's ``gemm`` computes it: the scalars in
    the result's dtype, and ``beta == 0`` ignores ``input`` entirely (its nan and inf
    too), where ``0 * nan`` would be nan."""
    if python_scalar(alpha) != 1:
        product = product * checked_scalar(alpha, dtype)
    beta_value = python_scalar(beta)
    if beta_value == 0:
        return product
    return product + (input if beta_value == 1 else input * checked_scalar(beta, dtype))


def _scaled_input(input: Tensor, beta, shape: tuple, dtype) -> Tensor:
    """The result of a product over an empty dimension: ``beta * input``, or zeros for
    ``beta == 0``. PyTorch scales a copy of ``input`` with ``mul_``, and so gets its
    errors (``bool`` results refuse an integer ``beta``)."""
    result = Tensor._new_contiguous(shape, dtype)
    if python_scalar(beta) == 0:
        return result.zero_()
    return result.copy_(input).mul_(beta)


# --- trace --------------------------------------------------------------------------------------


def _trace_kernel(self: Tensor) -> Tensor:
    if self._dtype.category == BOOL:
        raise _not_implemented("trace", self._dtype)
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    dtype = sum_dtype(self._dtype)  # integers add up in int64
    return wrap_result(np.trace(self._array, dtype=accumulate_dtype(dtype).numpy), dtype)


def _trace_backward_kernel(grad: Tensor, sizes) -> Tensor:
    """``trace_backward``: ``grad`` on the diagonal, zeros elsewhere: filled into the
    flattened matrix every ``cols + 1`` elements (only ``min(rows, cols)`` of them)."""
    if len(sizes) != 2:
        raise RuntimeError("expected matrix input")
    rows, cols = sizes
    grad_input = grad.new_zeros(rows * cols)  # ``grad.options()``: on grad's device
    step = cols + 1
    indices = arange(0, min(rows, cols) * step, step, dtype=int64, device=grad.device)
    return grad_input.index_fill_(0, indices, grad).view(tuple(sizes))


_trace_backward = native_function(
    "trace_backward(Tensor grad, SymInt[] sizes) -> Tensor",
    kernel=_trace_backward_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
)

trace = native_function(
    "trace(Tensor self) -> Tensor",
    kernel=_trace_kernel,
    derivative=Derivative(
        "TraceBackward0",
        save=("self_sym_sizes",),
        grads={"self": lambda grad, saved: _trace_backward(grad, saved.self_sym_sizes)},
        complex=True,
    ),
    doc="``torch.trace``: the sum of the diagonal of a 2-D tensor (integers sum to int64).",
)


# --- addmv: beta * input + alpha * (mat @ vec) ------------------------------------------------


def _addmv_meta(self: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1):
    # PyTorch's meta path: ``self`` and ``vec`` where ``mat`` is, first.
    check_same_device((mat, self, vec))
    if not (mat.dim() == 2 and vec.dim() == 1 and self.dim() <= 1):
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {self.dim()}, {mat.dim()}, {vec.dim()}"
        )
    rows, cols = mat._size
    if cols != vec._size[0] or (rows != self.numel() and self.numel() != 1):
        raise RuntimeError(
            f"size mismatch, got input ({self.size(0)}), mat ({rows}x{cols}), vec ({vec._size[0]})"
        )
    if not self._dtype is mat._dtype is vec._dtype:
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{self._dtype.scalar_name}, {mat._dtype.scalar_name}, and {vec._dtype.scalar_name}"
        )
    return (rows,), vec._dtype


def _addmv_impl(self: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    dtype = vec._dtype
    if mat.numel() == 0:
        if python_scalar(beta) == 0:
            return wrap_result(np.zeros(mat._size[:1], dtype.numpy), dtype)
        # PyTorch's shortcut writes ``mul(input, beta)``: of ``input``'s own shape.
        return wrap_result(self._array * checked_scalar(beta, dtype), dtype)
    if dtype.category == BOOL:
        raise _not_implemented("addmv_impl_cpu", dtype)
    product = np.matmul(mat._array, vec._array)
    return wrap_result(_beta_input_plus_alpha_product(self._array, product, beta, alpha, dtype),
                       dtype)  # fmt: skip


# The gradient of ``self`` is summed back to its shape (a broadcast 1 or 0-dim ``self``)
# by the engine; ``mat``'s is an outer product, ``vec``'s a product with ``matᴴ``.
addmv = native_function(
    "addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "addmv_(Tensor(a!) self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor(a!)",
    "addmv.out(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=structured_product(_addmv_meta, _addmv_impl),
    derivative=Derivative(
        "AddmvBackward0",
        save=("mat", "vec", "alpha", "beta"),
        reads={"mat": ("vec",), "vec": ("mat",)},
        grads={
            "self": lambda grad, saved: _maybe_multiply(grad, _conj(saved.beta)),
            "mat": lambda grad, saved: _maybe_multiply(grad.ger(saved.vec.conj()),
                                                       _conj(saved.alpha)),
            "vec": lambda grad, saved: _maybe_multiply(saved.mat.t().conj().mv(grad),
                                                       _conj(saved.alpha)),
        },
        complex=True,
    ),
    inplace_variants="function, method",
    doc="``torch.addmv``: ``beta * input + alpha * (mat @ vec)``; ``input`` broadcasts.",
)  # fmt: skip
addmv_ = addmv.inplace


# --- addr: beta * input + alpha * outer(vec1, vec2), elementwise ------------------------------


def _check_addr_scalar(dtype, scalar, name: str) -> None:
    """``check_addr_scalar``: a bool scalar for bool results only, a whole number for
    integer results."""
    value = python_scalar(scalar)
    if isinstance(value, bool) and dtype.category != BOOL:
        raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
    if dtype.category < FLOATING and not isinstance(value, int):
        raise RuntimeError(
            f"For integral input tensors, argument {name} must not be a floating point number."
        )


@ignoring_float_errors(all="ignore")
def _addr_loop(out, input, vec1, vec2, *, beta, alpha):
    """``addr_kernel``: ``vec1`` is a column, so ``vec1 * vec2`` is their outer product."""
    if out.dtype == np.bool_:  # and/or in place of times/plus
        product = alpha & vec1 & vec2
        np.copyto(out, product | (beta & input) if beta else product)
    elif beta == 0:
        np.multiply(alpha * vec1, vec2, out=out)
    else:
        np.add(beta * input, alpha * vec1 * vec2, out=out)


def _addr_impl(operands, out, inplace, *, beta=1, alpha=1) -> Tensor:
    """``build_addr_iter``: ``input`` broadcast to the outer product's shape (in place,
    ``self`` must have it), then one elementwise loop that promotes its operands."""
    self, vec1, vec2 = operands
    check_1d(vec1, "vec1", "addr")
    check_1d(vec2, "vec2", "addr")
    shape = (vec1._size[0], vec2._size[0])
    input = self if inplace else _expand_size(self, shape)
    if input.dim() != 2:
        raise RuntimeError(f"2D tensor expected, got {input.dim()}D tensor for input")
    if input._size != shape:
        raise RuntimeError(
            f"size mismatch, input: {list(input._size)}, v1: {list(vec1._size)}, "
            f"v2: {list(vec2._size)}"
        )
    column = vec1.reshape((shape[0], 1))
    iterator = TensorIterator("addr", (input, column, vec2), out=out, inplace=inplace)
    _check_addr_scalar(iterator.output._dtype, beta, "beta")
    _check_addr_scalar(iterator.output._dtype, alpha, "alpha")
    compute = iterator.compute_dtype
    return iterator.run(_addr_loop, beta=checked_scalar(beta, compute),
                        alpha=checked_scalar(alpha, compute))  # fmt: skip


addr = native_function(
    "addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "addr_(Tensor(a!) self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor(a!)",
    "addr.out(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=structured(_addr_impl),
    # d(vec1 ⊗ vec2)/d vec1 applied to grad is grad @ vec2, and the mirror for vec2.
    derivative=Derivative(
        "AddrBackward0",
        save=("vec1", "vec2", "alpha", "beta"),
        reads={"vec1": ("vec2",), "vec2": ("vec1",)},
        grads={
            "self": lambda grad, saved: _maybe_multiply(grad, _conj(saved.beta)),
            "vec1": lambda grad, saved: _maybe_multiply(grad.mv(saved.vec2.conj()),
                                                        _conj(saved.alpha)),
            "vec2": lambda grad, saved: _maybe_multiply(grad.t().mv(saved.vec1.conj()),
                                                        _conj(saved.alpha)),
        },
        complex=True,
    ),
    doc="``torch.addr``: ``beta * input + alpha * outer(vec1, vec2)``; promotes like ``mul``.",
)  # fmt: skip


# --- baddbmm and addbmm: batches of matrix products ----------------------------------------


def _baddbmm_meta(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1):
    shape = (batch1.size(0), batch1.size(1), batch2.size(2))
    _expand_size(self, shape)
    if self._dtype is not batch1._dtype:
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {_cpp(self._dtype)}, batch1: "
            f"{_cpp(batch1._dtype)}, batch2: {_cpp(batch2._dtype)}"
        )
    check_bmm_shapes(batch1, batch2)
    return shape, batch2._dtype


# Below this many multiply-adds per matrix PyTorch runs its own loop, named "baddbmm";
# above, BLAS through ``addmm`` ("addmm_impl_cpu_"): the name its errors give.
_SMALL_BMM = 400


def _baddbmm_impl(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    batches, rows, inner = batch1._size
    shape = (batches, rows, batch2._size[2])
    dtype = batch2._dtype
    if numel_of(shape) == 0:
        return Tensor._new_contiguous(shape, dtype)
    if inner == 0:
        return _scaled_input(_expand_size(self, shape), beta, shape, dtype)
    small = rows * inner * shape[2] < _SMALL_BMM
    if batch1._dtype.category == BOOL:
        raise _not_implemented("baddbmm" if small else "addmm_impl_cpu_", batch1._dtype)
    if batch1._dtype is not dtype:  # the loop reads both as the first one's type
        expected, found = (batch1._dtype, dtype) if small else (dtype, batch1._dtype)
        raise RuntimeError(
            f"expected scalar type {expected.scalar_name} but found {found.scalar_name}"
        )
    product = np.matmul(batch1._array, batch2._array)
    return wrap_result(_beta_input_plus_alpha_product(self._array, product, beta, alpha, dtype),
                       dtype)  # fmt: skip


baddbmm = native_function(
    "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor",
    "baddbmm_(Tensor(a!) self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor(a!)",
    "baddbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=structured_product(_baddbmm_meta, _baddbmm_impl),
    # bmm's rules, scaled by alpha; self's by beta.
    derivative=Derivative(
        "BaddbmmBackward0",
        save=("batch1", "batch2", "alpha", "beta"),
        reads={"batch1": ("batch2",), "batch2": ("batch1",)},
        grads={
            "self": lambda grad, saved: _maybe_multiply(grad, _conj(saved.beta)),
            "batch1": lambda grad, saved: _maybe_multiply(
                grad.bmm(saved.batch2.transpose(1, 2).conj()), _conj(saved.alpha)),
            "batch2": lambda grad, saved: _maybe_multiply(
                saved.batch1.transpose(1, 2).conj().bmm(grad), _conj(saved.alpha)),
        },
        complex=True,
    ),
    doc="``torch.baddbmm``: ``beta * input + alpha * (batch1 @ batch2)``, batch by batch.",
)  # fmt: skip


def _addbmm_values(result_dtype, input: Tensor, batch1: Tensor, batch2: Tensor, beta,
                   alpha) -> np.ndarray:  # fmt: skip
    """``addbmm_impl_``: ``input`` (scaled by ``beta``) plus each batch's product, added
    with ``addmm_`` into the result (whose dtype the checks compare)."""
    batches, rows, inner = batch1._size
    shape = (rows, batch2._size[2])
    if batches == 0:
        return _scaled_input(input, beta, shape, result_dtype)._array
    if numel_of(shape) == 0:
        return np.empty(shape, result_dtype.numpy)
    if inner == 0:  # each batch's ``addmm_`` only scales: by ``beta``, then the others by 1
        result = _scaled_input(input, beta, shape, result_dtype)
        return (result.mul_(1) if batches > 1 else result)._array
    if result_dtype.category == BOOL:
        raise _not_implemented("addmm_impl_cpu_", result_dtype)
    # The sum over batches of batch1[b] @ batch2[b] is one contraction over (b, k).
    product = np.tensordot(batch1._array, batch2._array, axes=([0, 2], [0, 1]))
    return _beta_input_plus_alpha_product(input._array, product, beta, alpha, result_dtype)


def check_addbmm(self: Tensor, batch1: Tensor, batch2: Tensor, result_dtype) -> Tensor:
    """``addbmm_out``'s checks, before any value is computed: ``self`` broadcast to the
    product's shape (returned), two batches of matrices that can be multiplied, and, with
    at least one batch (each ``addmm_`` checks them), one dtype for the result and both
    batches."""
    shape = (batch1.size(1), batch2.size(2))
    input = _expand_size(self, shape)
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if batch1._size[0] != batch2._size[0]:
        raise RuntimeError(
            "batch1 and batch2 must have same number of batches, got "
            f"{batch1._size[0]} and {batch2._size[0]}"
        )
    if batch1._size[2] != batch2._size[1]:
        (_, n, m), (_, k, p) = batch1._size, batch2._size
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{m} and {k}x{p})")
    if batch1._size[0] != 0:
        if result_dtype is not batch2._dtype:
            raise RuntimeError(
                "self and mat2 must have the same dtype, but got "
                f"{result_dtype.scalar_name} and {batch2._dtype.scalar_name}"
            )
        if batch1._dtype is not batch2._dtype:
            raise RuntimeError(
                "mat1 and mat2 must have the same dtype, but got "
                f"{batch1._dtype.scalar_name} and {batch2._dtype.scalar_name}"
            )
    return input


def _addbmm_out(self: Tensor, batch1: Tensor, batch2: Tensor, beta, alpha,
                result: Tensor) -> Tensor:  # fmt: skip
    """``addbmm_out``: ``result`` takes the shape of ``self`` broadcast to the product's
    (``resize_as_``, without a warning: ``x.addbmm_(...)`` of a broadcastable ``x``
    grows ``x``, as in PyTorch)."""
    input = check_addbmm(self, batch1, batch2, result._dtype)
    shape = input._size
    values = _addbmm_values(result._dtype, input, batch1, batch2, beta, alpha)
    resize_output(result, shape, warn=False)
    np.copyto(result._array, values, casting="unsafe")
    return result


def _addbmm_kernel(self, batch1, batch2, *, beta=1, alpha=1) -> Tensor:
    result = Tensor._new_contiguous((0,), self._dtype)
    return _addbmm_out(self, batch1, batch2, beta, alpha, result)


addbmm = native_function(
    "addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor",
    "addbmm_(Tensor(a!) self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor(a!)",
    "addbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_addbmm_kernel,
    kernels={
        "addbmm_": lambda self, batch1, batch2, *, beta=1, alpha=1: _addbmm_out(
            self, batch1, batch2, beta, alpha, self),
        "addbmm.out": lambda self, batch1, batch2, *, beta=1, alpha=1, out: _addbmm_out(
            self, batch1, batch2, beta, alpha, out),
    },
    # Every batch's product added into one matrix: each batch gets the whole gradient.
    derivative=Derivative(
        "AddbmmBackward0",
        save=("batch1", "batch2", "alpha", "beta"),
        reads={"batch1": ("batch2",), "batch2": ("batch1",)},
        grads={
            "self": lambda grad, saved: _maybe_multiply(grad, _conj(saved.beta)),
            "batch1": lambda grad, saved: _maybe_multiply(
                _per_batch(grad, saved).bmm(saved.batch2.transpose(1, 2).conj()),
                _conj(saved.alpha)),
            "batch2": lambda grad, saved: _maybe_multiply(
                saved.batch1.transpose(1, 2).conj().bmm(_per_batch(grad, saved)),
                _conj(saved.alpha)),
        },
        complex=True,
    ),
    doc="``torch.addbmm``: ``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``.",
)  # fmt: skip


def _per_batch(grad: Tensor, saved) -> Tensor:
    """The gradient of the summed product, repeated for every batch (an ``expand``)."""
    batch1, batch2 = saved.batch1, saved.batch2
    return grad.unsqueeze(0).expand((batch1._size[0], batch1._size[1], batch2._size[2]))


# --- linalg.multi_dot and chain_matmul ----------------------------------------------------


def _matrix_chain_order(matrices: list) -> list:
    """``matrix_chain_order``: ``split[i][j]`` is where the cheapest product of matrices
    ``i..j`` splits (Cormen et al. 15.2), a ``p × q`` by ``q × r`` product costing ``pqr``."""
    n = len(matrices)
    dims = [m._size[0] for m in matrices] + [matrices[-1]._size[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain_product(matrices: list, split: list, i: int, j: int) -> Tensor:
    if i == j:
        return matrices[i]
    k = split[i][j]
    return mm(_chain_product(matrices, split, i, k), _chain_product(matrices, split, k + 1, j))


def _multi_dot_matrices(tensors) -> tuple[list, list]:
    """``multi_dot``'s checks: the matrices to multiply (a 1-D first tensor as a row, a
    1-D last one as a column) and the result's shape."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    matrices, out_shape = list(tensors), []
    first, last = tensors[0], tensors[-1]
    if first.dim() == 1:
        matrices[0] = first.unsqueeze(0)
    elif first.dim() == 2:
        out_shape.append(first._size[0])
    else:
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.dim()}D")
    if last.dim() == 1:
        matrices[-1] = last.unsqueeze(-1)
    elif last.dim() == 2:
        out_shape.append(last._size[1])
    else:
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.dim()}D")
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].dim()}D")
    dtype = first._dtype
    for i in range(1, n):
        if matrices[i]._dtype is not dtype:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_cpp(dtype)} and tensor {i} {_cpp(matrices[i]._dtype)}"
            )
        if matrices[i - 1]._size[-1] != matrices[i]._size[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i - 1} and {i} with shapes {list(tensors[i - 1]._size)} "
                f"and {list(tensors[i]._size)} cannot be multiplied"
            )
    return matrices, out_shape


def _multi_dot(tensors, out: Tensor | None = None) -> Tensor:
    """``multi_dot_impl``: two matrices are one ``mm``; for three, the cheaper of the two
    orders; for more, the order ``_matrix_chain_order`` finds. With ``out``, the last
    product is written into it, viewed as a matrix."""
    matrices, out_shape = _multi_dot_matrices(tensors)
    result = None
    if out is not None:
        if out._dtype is not matrices[0]._dtype:
            raise RuntimeError(
                f"multi_dot(): expected out tensor to have dtype {_cpp(matrices[0]._dtype)} "
                f"but got {_cpp(out._dtype)}"
            )
        resize_output(out, out_shape)
        result = out.view((matrices[0]._size[0], matrices[-1]._size[-1]))
    if len(matrices) == 2:
        left, right = matrices
    elif len(matrices) == 3:
        a, b = matrices[0]._size
        c, d = matrices[2]._size
        # (AB)C costs a·b·c + a·c·d, A(BC) costs b·c·d + a·b·d.
        if a * c * (b + d) > b * d * (a + c):
            left, right = matrices[0], mm(matrices[1], matrices[2])
        else:
            left, right = mm(matrices[0], matrices[1]), matrices[2]
    else:
        split = _matrix_chain_order(matrices)
        k = split[0][-1]
        left = _chain_product(matrices, split, 0, k)
        right = _chain_product(matrices, split, k + 1, len(matrices) - 1)
    if out is None:
        return mm(left, right).view(tuple(out_shape))
    mm(left, right, out=result)
    return out


linalg_multi_dot = native_function(
    "linalg_multi_dot(Tensor[] tensors) -> Tensor",
    "linalg_multi_dot.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_multi_dot,
    kernels={"linalg_multi_dot.out": lambda tensors, *, out: _multi_dot(tensors, out)},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_multi_dot.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.multi_dot``: the product of a chain of matrices, multiplied in
    the order that costs fewest multiplications. The first tensor may be a vector (a row)
    and the last one too (a column): their dimension is dropped from the result.""",
)


def _chain_matmul_kernel(matrices, out: Tensor | None = None) -> Tensor:
    # PyTorch warns once per process (``TORCH_WARN_ONCE``); Python's warning filters
    # show this once per calling line, with no state kept here.
    warn_at_user_code(
        "vizgrad.chain_matmul is deprecated and will be removed in a future PyTorch release. "
        "Use vizgrad.linalg.multi_dot instead, which accepts a list of two or more tensors "
        "rather than multiple parameters."
    )
    for matrix in matrices:  # ``checkAllSameDim``
        if matrix.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {matrix.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        if out is None:
            return matrices[0].clone()
        resize_output(out, matrices[0]._size)
        return out.copy_(matrices[0])
    return _multi_dot(matrices, out)


_chain_matmul = native_function(
    "chain_matmul(Tensor[] matrices) -> Tensor",
    "chain_matmul.out(Tensor[] matrices, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_chain_matmul_kernel,
    kernels={"chain_matmul.out": lambda matrices, *, out: _chain_matmul_kernel(matrices, out)},
    kind=COMPOSITE_IMPLICIT,
    kinds={"chain_matmul.out": COMPOSITE_IMPLICIT},
    variants="function",
)


def chain_matmul(*matrices, out=None) -> Tensor:
    """``torch.chain_matmul`` (deprecated: use ``linalg.multi_dot``): the product of
    the 2-D tensors given, as ``multi_dot`` computes it; one matrix is copied."""
    if out is None:
        return _chain_matmul(matrices)
    return _chain_matmul(matrices, out=out)


# --- cross and linalg.cross ---------------------------------------------------------------


def _linalg_cross_meta(self: Tensor, other: Tensor, *, dim=-1):
    if self.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if self.size(dim) != 3 or other.size(dim) != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {self.size(dim)} "
            f"and {other.size(dim)}"
        )
    return broadcast_shapes(self._size, other._size), self._dtype


def _linalg_cross_impl(self: Tensor, other: Tensor, *, dim=-1) -> Tensor:
    shape = broadcast_shapes(self._size, other._size)
    dtype = self._dtype
    if dtype.category == BOOL:
        raise _not_implemented("cross", dtype)
    if other._dtype is not dtype:
        raise RuntimeError(
            f"expected scalar type {dtype.scalar_name} but found {other._dtype.scalar_name}"
        )
    a = np.broadcast_to(self._array, shape)
    b = np.broadcast_to(other._array, shape)
    return wrap_result(np.cross(a, b, axis=wrap_dim(dim, len(shape))), dtype)


linalg_cross = native_function(
    "linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor",
    "linalg_cross.out(Tensor self, Tensor other, *, int dim=-1, Tensor(a!) out) -> Tensor(a!)",
    kernel=structured_product(_linalg_cross_meta, _linalg_cross_impl),
    # a × b is linear in each: d(a × b) = da × b + a × db, and ⟨g, da × b⟩ = ⟨b × g, da⟩.
    derivative=Derivative(
        "LinalgCrossBackward0",
        save=("self", "other", "dim"),
        reads={"self": ("other",), "other": ("self",)},
        grads={
            "self": lambda grad, saved: linalg_cross(saved.other.conj(), grad, dim=saved.dim),
            "other": lambda grad, saved: linalg_cross(grad, saved.self.conj(), dim=saved.dim),
        },
        complex=True,
    ),
    variants="function",
    doc="""``torch.linalg.cross``: the cross product of 3-vectors along ``dim`` (the last by
    default); the other dimensions broadcast.""",
)
_linalg_cross_op = linalg_cross.overloads["linalg_cross"]
_linalg_cross_out_op = linalg_cross.overloads["linalg_cross.out"]


def _default_cross_dim(self: Tensor, dim) -> int:
    """``torch.cross`` without ``dim`` takes the first dimension of size 3 (not the last,
    as ``linalg.cross`` does), and says that this is deprecated."""
    if dim is not None:
        return dim
    warn_at_user_code(
        "Using vizgrad.cross without specifying the dim arg is deprecated.\n"
        "Please either pass the dim explicitly or simply use vizgrad.linalg.cross.\n"
        "The default value of dim will change to agree with that of linalg.cross in a future "
        "release."
    )
    for i, size in enumerate(self._size):
        if size == 3:
            return i
    raise RuntimeError("no dimension of size 3 in input")


cross = native_function(
    "cross(Tensor self, Tensor other, int? dim=None) -> Tensor",
    "cross.out(Tensor self, Tensor other, int? dim=None, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=lambda self, other, dim=None: _linalg_cross_op(
        self, other, dim=_default_cross_dim(self, dim)),
    kernels={"cross.out": lambda self, other, dim=None, *, out: _linalg_cross_out_op(
        self, other, dim=_default_cross_dim(self, dim), out=out)},
    kind=COMPOSITE_IMPLICIT,
    kinds={"cross.out": COMPOSITE_IMPLICIT},
    doc="``torch.cross``: ``linalg.cross`` along ``dim`` (by default the first dim of size 3).",
)  # fmt: skip


# --- linalg.vecdot ----------------------------------------------------------------------------


def _check_vecdot(x: Tensor, y: Tensor) -> None:
    _check_floating_or_complex(x, "linalg.vecdot")
    if x._dtype is not y._dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{x._dtype.scalar_name} and y of type {y._dtype.scalar_name} instead"
        )


def _vecdot(x: Tensor, y: Tensor, *, dim=-1) -> Tensor:
    """Two vectors are one ``vdot``; otherwise ``x.conj() * y`` (broadcast), summed."""
    _check_vecdot(x, y)
    if x.dim() == 1 and y.dim() == 1:
        return vdot(x, y)
    return x.conj().mul(y).sum(dim)


def _vecdot_out(x: Tensor, y: Tensor, *, dim=-1, out: Tensor) -> Tensor:
    _check_vecdot(x, y)
    if out._dtype is not x._dtype:  # (sic: PyTorch's message has no space after "dtype")
        raise RuntimeError(
            f"linalg.vecdot: Expected out of dtype{x._dtype.scalar_name} but found "
            f"{out._dtype.scalar_name}"
        )
    return _sum(x.conj().mul(y), dim, out=out)


linalg_vecdot = native_function(
    "linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor",
    "linalg_vecdot.out(Tensor x, Tensor y, *, int dim=-1, Tensor(a!) out) -> Tensor(a!)",
    kernel=_vecdot,
    kernels={"linalg_vecdot.out": _vecdot_out},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_vecdot.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.linalg.vecdot``: ``sum(x.conj() * y, dim)``, the vectors broadcast.",
)


# --- matrix_power ------------------------------------------------------------------------------


def _matrix_power(self: Tensor, n: int, out: Tensor | None = None) -> Tensor:
    """``linalg_matrix_power_impl``: ``self`` multiplied by itself ``n`` times, by repeated
    squaring: ``z`` runs through ``A, A², A⁴…`` and the result collects those whose bit
    is set in ``n`` (about ``2·log2(n)`` products instead of ``n - 1``)."""
    _square_check_inputs(self, "linalg.matrix_power")
    if out is not None:
        _compatible_out("matrix_power")(self, n, out=out)
        resize_output(out, self._size)
    if n == 0:  # the identity, as a copy of ``self`` so that it is in the graph
        result = self.clone(memory_format=contiguous_format) if out is None else out
        return result.copy_(eye(self._size[-2], dtype=self._dtype))
    if n == 1:
        return self.clone(memory_format=contiguous_format) if out is None else out.copy_(self)
    if n == -1:
        return linalg_inv(self) if out is None else linalg_inv(self, out=out)
    a = linalg_inv(self) if n < 0 else self
    n = abs(n)
    last = {} if out is None else {"out": out}
    if n == 2:
        return matmul(a, a, **last)
    if n == 3:
        return matmul(matmul(a, a), a, **last)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else matmul(z, z)
        if bit:
            if out is not None and n == 0:  # the last product goes into ``out``
                return out.copy_(z) if result is None else matmul(result, z, out=out)
            result = z if result is None else matmul(result, z)
    return result


linalg_matrix_power = native_function(
    "linalg_matrix_power(Tensor self, int n) -> Tensor",
    "linalg_matrix_power.out(Tensor self, int n, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_matrix_power,
    kernels={"linalg_matrix_power.out": lambda self, n, *, out: _matrix_power(self, n, out)},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_matrix_power.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.matrix_power``: the ``n``-th power of a square matrix (or a batch
    of them); ``n = 0`` gives the identity, a negative ``n`` the power of the inverse.""",
)
# ``torch.matrix_power`` is the same function (PyTorch calls it directly, undispatched).
matrix_power = native_function(
    "matrix_power(Tensor self, int n) -> Tensor",
    "matrix_power.out(Tensor self, int n, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_matrix_power,
    kernels={"matrix_power.out": lambda self, n, *, out: _matrix_power(self, n, out)},
    kind=COMPOSITE_IMPLICIT,
    kinds={"matrix_power.out": COMPOSITE_IMPLICIT},
    doc="``torch.matrix_power``: ``linalg.matrix_power``.",
)


# --- matrix_exp ---------------------------------------------------------------------------------

# For each Taylor degree (1, 2, 4, 8, 12, 18), the largest 1-norm of a matrix whose
# exponential it approximates to the dtype's precision (Bader, Blanes, Casas 2019).
_THETAS_SINGLE = (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                  5.800524627688768e-01, 1.461661507209034e00, 3.010066362817634e00)  # fmt: skip
_THETAS_DOUBLE = (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                  4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e00)  # fmt: skip

# The coefficients that evaluate the degree-12 and degree-18 polynomials from
# I, A, A², A³ (and A⁶) with few products.
_T12_COEFFICIENTS = np.array([
    [9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740],
    [5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
     0.01108844528519167989],
    [0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
     0.00610700528898058230],
    [-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079,
     -0.00675951846863086359],
])  # fmt: skip
_T18_COEFFICIENTS = np.array([
    [0.0, -1.00365581030144618291e-01, -8.02924648241156932449e-03,
     -8.92138498045729985177e-04, 0.0],
    [0.0, 3.97849749499645077844e-01, 1.36783778460411720168e00, 4.98289622525382669416e-01,
     -6.37898194594723280150e-04],
    [-1.09676396052962061844e01, 1.68015813878906206114e00, 5.71779846478865511061e-02,
     -6.98210122488052056106e-03, 3.34975017086070470649e-05],
    [-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
     2.95552570429315521194e-02, -1.39180257516060693404e-05],
    [0.0, 0.0, -9.23364619367118555360e-02, -1.69364939002081722752e-02,
     -1.40086798182036094347e-05],
])  # fmt: skip


def _matrix_powers(a: np.ndarray, count: int) -> list:
    """``I, A, A², A³, A⁶``: the first ``count`` of them."""
    powers = [np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape), a]
    if count > 2:
        powers.append(a @ a)
    if count > 3:
        powers.append(a @ powers[2])
    if count > 4:
        powers.append(powers[3] @ powers[3])
    return powers


def _linear_combinations(coefficients: np.ndarray, powers: list) -> list:
    """``_compute_linear_combination``: row ``i`` of ``coefficients`` weighs the powers."""
    real = np.empty(0, powers[1].dtype).real.dtype
    return list(np.tensordot(coefficients.astype(real), np.stack(powers), axes=1))


def _taylor_1(a):
    eye, a = _matrix_powers(a, 2)
    return eye + a


def _taylor_2(a):
    eye, a, a2 = _matrix_powers(a, 3)
    return eye + a + a2 / 2


def _taylor_4(a):
    eye, a, a2 = _matrix_powers(a, 3)
    return eye + a + a2 @ (eye / 2 + a / 6 + a2 / 24)


def _taylor_8(a):
    sqrt_177 = 0.1330413469565007072504e2
    x3 = 2.0 / 3.0
    x1 = x3 * ((1.0 + sqrt_177) / 88.0)
    x2 = x3 * ((1.0 + sqrt_177) / 352.0)
    x4 = (-271.0 + 29.0 * sqrt_177) / (315.0 * x3)
    x5 = (-11.0 + 11.0 * sqrt_177) / (1260.0 * x3)
    x6 = (-99.0 + 11.0 * sqrt_177) / (5040.0 * x3)
    x7 = (89.0 - sqrt_177) / (5040.0 * x3)
    y2 = (857.0 - 58.0 * sqrt_177) / 630.0
    eye, a, a2 = _matrix_powers(a, 3)
    a4 = a2 @ (x1 * a + x2 * a2)
    a8 = (x3 * a2 + a4) @ (x4 * eye + x5 * a + x6 * a2 + x7 * a4)
    return eye + a + y2 * a2 + a8


def _taylor_12(a):
    b0, b1, b2, b3 = _linear_combinations(_T12_COEFFICIENTS, _matrix_powers(a, 4))
    b2 = b2 + b3 @ b3  # holds A⁶ terms
    return b0 + (b1 + b2) @ b2


def _taylor_18(a):
    b0, b1, b2, b3, b4 = _linear_combinations(_T18_COEFFICIENTS, _matrix_powers(a, 5))
    b3 = b3 + b0 @ b4  # holds A⁹ terms
    return b1 + (b2 + b3) @ b3


def _taylor_18_scaled(a: np.ndarray, norm: np.ndarray, theta: float) -> np.ndarray:
    """``compute_T18_scale_square``: ``exp(A) = exp(A / 2^s)^(2^s)``, with ``s`` just big
    enough that ``A / 2^s`` has a norm the degree-18 polynomial is accurate for."""
    real = np.empty(0, a.dtype).real.dtype
    squarings = np.maximum(np.ceil(np.log2(norm / theta)), 0)
    finite = np.isfinite(squarings)
    squarings[~finite] = 0
    result = _taylor_18(a * (2.0**-squarings).astype(real)[:, None, None])
    for k in range(int(squarings.max(initial=0))):
        more = squarings > k
        result[more] = result[more] @ result[more]
    result[~finite] = np.nan  # an infinite or nan norm has no approximation
    return result


_TAYLOR = (_taylor_1, _taylor_2, _taylor_4, _taylor_8, _taylor_12)


@ignoring_float_errors(all="ignore")
def _matrix_exp_array(a: np.ndarray, thetas: tuple) -> np.ndarray:
    """``mexp_impl`` on a batch of matrices ``(b, n, n)``: for one matrix, the lowest
    degree accurate for its 1-norm; for several, degree 18 with scaling for all."""
    norm = np.abs(a).sum(-2).max(-1)  # the operator 1-norm: the largest column sum
    if a.shape[0] > 1:
        return _taylor_18_scaled(a, norm, thetas[-1])
    result = np.full_like(a, np.nan)  # a nan norm falls in no interval: the result is nan
    lower = -1.0
    for taylor, theta in zip(_TAYLOR, thetas, strict=False):
        chosen = (lower < norm) & (norm <= theta)
        if chosen.any():
            result[chosen] = taylor(a[chosen])
        lower = theta
    large = norm >= thetas[-2]
    if large.any():
        result[large] = _taylor_18_scaled(a[large], norm[large], thetas[-1])
    return result


def _matrix_exp_kernel(self: Tensor) -> Tensor:
    _square_check_inputs(self, "linalg.matrix_exp")
    _check_floating_or_complex(self, "linalg.matrix_exp")
    n = self._size[-1]
    if n == 0:
        return self.clone()
    if n == 1:
        return self.exp()
    if self.numel() == 0:
        return Tensor._new_contiguous(self._size, self._dtype)
    single = self._dtype.numpy.itemsize == (8 if self._dtype.is_complex else 4)
    # One batch dimension, as a view (PyTorch's ``view``: its error for a batch that
    # cannot be flattened without a copy).
    array = self.view((-1, n, n))._array
    if self._dtype is float16:  # computed in float32, with the double-precision bounds
        array = array.astype(float32.numpy)
    values = _matrix_exp_array(array, _THETAS_SINGLE if single else _THETAS_DOUBLE)
    return wrap_result(values.reshape(self._size), self._dtype)


def linalg_matrix_exp_differential(self: Tensor, grad: Tensor, adjoint: bool) -> Tensor:
    """``differential_analytic_matrix_function``: the derivative of ``exp`` at ``A`` in the
    direction ``E`` is the top-right block of ``exp([[A, E], [0, A]])`` (Mathias 1996);
    with ``adjoint``, ``A`` is ``selfᴴ``, which gives the gradient of ``self``."""
    a = self.mH if adjoint else self
    n = a._size[-1]
    sizes = (*a._size[:-2], 2 * n, 2 * n)
    blocks = grad.new_zeros(sizes)
    blocks.narrow(-2, 0, n).narrow(-1, 0, n).copy_(a)
    blocks.narrow(-2, n, n).narrow(-1, n, n).copy_(a)
    blocks.narrow(-2, 0, n).narrow(-1, n, n).copy_(grad)
    return linalg_matrix_exp(blocks).narrow(-2, 0, n).narrow(-1, n, n)


linalg_matrix_exp = native_function(
    "linalg_matrix_exp(Tensor self) -> Tensor",
    kernel=_matrix_exp_kernel,
    derivative=Derivative(
        "LinalgMatrixExpBackward0",
        save=("self",),
        grads={"self": lambda grad, saved: linalg_matrix_exp_differential(saved.self, grad, True)},
        complex=True,
    ),
    variants="function",
    doc="``torch.linalg.matrix_exp``: ``exp(A) = I + A + A²/2! + …`` of square matrices.",
)
matrix_exp = native_function(
    "matrix_exp(Tensor self) -> Tensor",
    kernel=lambda self: linalg_matrix_exp(self),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.matrix_exp``: ``linalg.matrix_exp``.",
)


# --- cdist --------------------------------------------------------------------------------------


def _check_cdist_shapes(x1: Tensor, x2: Tensor) -> None:
    for t, name in ((x1, "X1"), (x2, "X2")):
        if t.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.dim()}D")
    if x1._size[-1] != x2._size[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1._size[-1]} X2: {x2._size[-1]}"
        )


def _euclid_by_mm(p: float, mode: int, rows1: int, rows2: int) -> bool:
    """Whether ``p=2`` distances come from a matrix product: forced (mode 1), or by
    default (mode 0) when either input has more than 25 rows, where it is faster."""
    return p == 2 and (mode == 1 or (mode == 0 and (rows1 > 25 or rows2 > 25)))


def _cdist_composite(x1: Tensor, x2: Tensor, p=2.0, compute_mode=None) -> Tensor:
    """``cdist``: ``_cdist_forward`` (one ``CdistBackward0`` node), or, for the matrix
    product, ``cdist_impl`` run here so that autograd records its steps
    (``EuclideanDistBackward0``), as PyTorch does."""
    _check_cdist_shapes(x1, x2)
    mode = 0 if compute_mode is None else compute_mode
    if x1.numel() and x2.numel() and _euclid_by_mm(p, mode, x1._size[-2], x2._size[-2]):
        return _cdist_impl(x1, x2, p, compute_mode)
    return _cdist_forward_op(x1, x2, p, compute_mode)


def cdist_shape(x1: Tensor, x2: Tensor, p, compute_mode) -> tuple:
    """``cdist_impl``'s checks, and its result's shape: the broadcast batch, ``x1``'s
    rows by ``x2``'s."""
    for t, name in ((x1, "X1"), (x2, "X2")):
        if t._dtype.category != FLOATING:
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {t._dtype.scalar_name}"
            )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    mode = 0 if compute_mode is None else compute_mode
    if not 0 <= mode <= 2:
        raise RuntimeError(f"possible modes: 0, 1, 2, but was: {mode}")
    batch = broadcast_shapes(x1._size[:-2], x2._size[:-2])
    return (*batch, x1._size[-2], x2._size[-2])


def _cdist_impl(x1: Tensor, x2: Tensor, p, compute_mode) -> Tensor:
    """``cdist_impl``: the batch dimensions broadcast and flattened into one."""
    shape = cdist_shape(x1, x2, p, compute_mode)
    mode = 0 if compute_mode is None else compute_mode
    (rows1, columns), rows2 = x1._size[-2:], x2._size[-2]
    batch = shape[:-2]
    count = numel_of(batch)
    flat1 = x1.expand((*batch, rows1, columns)).contiguous().view((count, rows1, columns))
    flat2 = x2.expand((*batch, rows2, columns)).contiguous().view((count, rows2, columns))
    if rows1 == 0 or rows2 == 0 or count == 0:
        return Tensor._new_contiguous(shape, x1._dtype)
    if columns == 0:
        return wrap_result(np.zeros(shape, x1._dtype.numpy), x1._dtype)
    if _euclid_by_mm(p, mode, rows1, rows2):
        dist = _euclidean_dist(x1, x2) if count == 1 else _euclidean_dist(flat1, flat2)
        return dist.view(shape)
    return wrap_result(_p_distances(flat1, flat2, p).reshape(shape), x1._dtype)


@ignoring_float_errors(all="ignore")
def _p_distances(x1: Tensor, x2: Tensor, p: float) -> np.ndarray:
    """``run_parallel_cdist``: ``(sum_k |x1[i, k] - x2[j, k]|^p)^(1/p)`` for every pair,
    added up one column ``k`` at a time (``p=0`` counts the differences, ``p=inf`` takes
    the largest)."""
    if x1._dtype not in (float32, float64):
        raise _not_implemented("cdist", x1._dtype)
    if x2._dtype is not x1._dtype:
        raise RuntimeError(
            f"expected scalar type {x1._dtype.scalar_name} but found {x2._dtype.scalar_name}"
        )
    a, b = x1._array, x2._array
    total = np.zeros((a.shape[0], a.shape[1], b.shape[1]), a.dtype)
    for k in range(a.shape[2]):
        diff = np.abs(a[:, :, None, k] - b[:, None, :, k])
        if p == 0:
            total += np.minimum(np.ceil(diff), 1)
        elif p == 1:
            total += diff
        elif p == 2:
            total += diff * diff
        elif np.isinf(p):
            np.maximum(total, diff, out=total)
        else:
            total += diff**p
    if p == 2:
        return np.sqrt(total)
    if p in (0, 1) or np.isinf(p):
        return total
    return total ** (1 / p)


def _cdist_forward_kernel(x1: Tensor, x2: Tensor, p: float, compute_mode) -> Tensor:
    _check_cdist_shapes(x1, x2)
    return _cdist_impl(x1, x2, p, compute_mode)


_cdist_forward = native_function(
    "_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor",
    kernel=_cdist_forward_kernel,
    derivative=Derivative(
        "CdistBackward0",
        save=("x1", "x2", "p", "result"),
        grads={
            "x1": lambda grad, saved: _cdist_backward(
                grad.contiguous(), saved.x1, saved.x2, saved.p, saved.result),
            "x2": lambda grad, saved: _cdist_backward(
                grad.mT.contiguous(), saved.x2, saved.x1, saved.p, saved.result.mT.contiguous()),
        },
    ),
    variants="function",
    python_bindings=False,
)  # fmt: skip
_cdist_forward_op = _cdist_forward.overloads["_cdist_forward"]


@ignoring_float_errors(all="ignore")
def _p_distance_grad(diff: np.ndarray, grad: np.ndarray, dist: np.ndarray, p: float):
    """d dist / d x1 for each pair, one column at a time (``Dist::backward``); a zero
    distance has the subgradient 0."""
    if p == 1:
        return grad * np.sign(diff)
    if np.isinf(p):  # only the largest difference counts
        return grad * np.sign(diff) * (np.abs(diff) == dist)
    if p == 2:
        value = grad * diff / dist
    elif p < 2:
        value = np.sign(diff) * np.abs(diff) ** (p - 1) * grad / dist ** (p - 1)
        if p < 1:
            value = np.where(diff == 0, 0, value)
    else:
        value = diff * np.abs(diff) ** (p - 2) * grad / dist ** (p - 1)
    return np.where(dist == 0, 0, value)


def _cdist_backward_kernel(grad: Tensor, x1: Tensor, x2: Tensor, p: float,
                           cdist: Tensor) -> Tensor:  # fmt: skip
    """``_cdist_backward``: the gradient of ``x1`` (of its broadcast batch shape: the
    engine sums it back), each row's the sum over the rows of ``x2`` it was compared to."""
    (rows1, columns), rows2 = x1._size[-2:], x2._size[-2]
    batch = broadcast_shapes(x1._size[:-2], x2._size[:-2])
    count = numel_of(batch)
    if rows1 == 0 or rows2 == 0 or columns == 0 or count == 0:
        return wrap_result(np.zeros(x1._size, x1._dtype.numpy), x1._dtype)
    x1 = _expand_size(x1, (*batch, rows1, columns))
    x2 = _expand_size(x2, (*batch, rows2, columns))
    a = x1._array.reshape(count, rows1, columns)
    b = x2._array.reshape(count, rows2, columns)
    g = grad._array.reshape(count, rows1, rows2)
    dist = cdist._array.reshape(count, rows1, rows2)
    result = np.zeros(a.shape, a.dtype)
    if p != 0:  # counting differences has a zero gradient
        for k in range(columns):
            diff = a[:, :, None, k] - b[:, None, :, k]
            result[:, :, k] = _p_distance_grad(diff, g, dist, p).sum(-1)
    return wrap_result(result.reshape(x1._size), x1._dtype)


def cdist_backward_shape(x1: Tensor, x2: Tensor) -> tuple:
    """``_cdist_backward``'s result's shape: ``x1``'s, with the batch broadcast against
    ``x2``'s when there is anything to compute."""
    (rows1, columns), rows2 = x1._size[-2:], x2._size[-2]
    batch = broadcast_shapes(x1._size[:-2], x2._size[:-2])
    if not numel_of((rows1, rows2, columns, numel_of(batch))):
        return x1._size
    return (*batch, rows1, columns)


def _cdist_backward_not_implemented(grad, saved):
    raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


_cdist_backward = native_function(
    "_cdist_backward(Tensor grad, Tensor x1, Tensor x2, float p, Tensor cdist) -> Tensor",
    kernel=_cdist_backward_kernel,
    derivative=Derivative(
        "CdistBackwardBackward0",
        grads={name: _cdist_backward_not_implemented for name in ("grad", "x1", "x2", "cdist")},
    ),
    variants="function",
)


def _euclidean_dist_kernel(x1: Tensor, x2: Tensor) -> Tensor:
    """``_euclidean_dist``: ``|a - b|² = |a|² - 2 a·b + |b|²`` for every pair at once, as
    one product of ``[-2a, |a|², 1]`` with ``[b, 1, |b|²]``; rounding may leave a tiny
    negative square, clamped to 0."""
    x1_norm = x1.pow(2).sum(-1, True)
    x2_norm = x2.pow(2).sum(-1, True)
    x1_ = cat([x1.mul(-2), x1_norm, ones_like(x1_norm)], -1)
    x2_ = cat([x2, ones_like(x2_norm), x2_norm], -1)
    return x1_.matmul(x2_.transpose(-2, -1)).clamp_min_(0).sqrt_()


def _euclidean_ratio(grad: Tensor, result: Tensor) -> Tensor:
    """``grad / dist``, with 0 where the distance is 0 (a subgradient there)."""
    return (grad / result).masked_fill_(result == 0, 0)


# ``_euclidean_dist_backward`` (one function for both gradients in PyTorch; here each
# input's formula computes the ratio it reads): d|a - b| / da = (a - b) / |a - b|, summed
# over the rows ``b`` it was compared with.
def _euclidean_x1_grad(grad: Tensor, saved) -> Tensor:
    ratio = _euclidean_ratio(grad, saved.result)
    towards = ratio.matmul(saved.x2)
    return saved.x1 * ratio.sum(-1, True) - towards


def _euclidean_x2_grad(grad: Tensor, saved) -> Tensor:
    ratio = _euclidean_ratio(grad, saved.result)
    towards = ratio.mT.matmul(saved.x1)
    return saved.x2 * ratio.sum(-2, False).unsqueeze(-1) - towards


_euclidean_dist = native_function(
    "_euclidean_dist(Tensor x1, Tensor x2) -> Tensor",
    kernel=_euclidean_dist_kernel,
    derivative=Derivative(
        "EuclideanDistBackward0",
        save=("x1", "x2", "result"),
        grads={"x1": _euclidean_x1_grad, "x2": _euclidean_x2_grad},
    ),
    variants="function",
)

_cdist = native_function(
    "cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None) -> Tensor",
    kernel=_cdist_composite,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
)

_COMPUTE_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                  "donot_use_mm_for_euclid_dist": 2}  # fmt: skip


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """``torch.cdist``: the ``p``-norm distance between each row of ``x1`` and each row of
    ``x2`` (batch dimensions broadcast). ``compute_mode`` says whether ``p=2`` distances
    may come from a matrix product: faster, a little less precise."""
    for name, mode in _COMPUTE_MODES.items():
        if compute_mode == name:
            return _cdist(x1, x2, p, mode)
    raise ValueError(f"{compute_mode} is not a valid value for compute_mode")

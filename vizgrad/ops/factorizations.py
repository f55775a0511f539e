"""Factorizations and what they solve: ``det``, ``slogdet``, ``inv``, ``solve``, ``cholesky``, ``lu_factor``… (``BatchLinearAlgebra.cpp``).

Everything here stands on two factorizations that LAPACK computes, one matrix of the
batch at a time, as PyTorch's CPU kernels call it:

* the **LU factorization with partial pivoting**, ``P A = L U`` (``getrf``): ``det`` is
  the product of ``U``'s diagonal (with the sign of the row swaps), ``solve`` and ``inv``
  are two triangular solves with ``L`` and ``U`` (``getrs``);
* the **Cholesky factorization** of a symmetric (Hermitian) positive-definite matrix,
  ``A = L Lᴴ`` (``potrf``), and what it solves (``potrs``, ``potri``).

As in PyTorch, the user-facing names are thin layers over a few operators that keep
what their backward needs: ``linalg.det`` is ``_linalg_det``, which also returns the LU
factorization its gradient solves with; ``linalg.inv`` and ``linalg.solve`` are
``linalg_inv_ex`` and ``_linalg_solve_ex``, which report failures in an ``info`` tensor
(LAPACK's ``info``) instead of raising, so the ``_ex`` functions can return it.

Results come back in PyTorch's layout: the matrices LAPACK writes are column-major
("Fortran") matrices in a row-major batch (``batched_matrix_contiguous_strides``), and
pivots are LAPACK's: 1-based ``int32`` row numbers.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import blas, lapack

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import FLOATING, float16, int32
from ..grad_mode import is_grad_enabled
from ..promotion import can_cast
from ..shape import broadcast_shapes, contiguous_strides
from ..tensor import Tensor, define_method
from ..user_warnings import warn_at_user_code
from .declaration import native_function
from .iterator import dispatch_dtypes, resize_output
from .joining import cat
from .linalg import matmul
from .logical import where
from .overload_kernels import meta_then_impl, out_wrapper
from .ranges import diag_embed
from .registry import write_to_out

__all__ = [
    "det",
    "logdet",
    "slogdet",
    "inverse",
    "cholesky",
    "cholesky_solve",
    "cholesky_inverse",
    "lu",
    "lu_unpack",
    "lu_solve",
    "triangular_solve",
    "_linalg_solve_ex",
    "_linalg_det",
    "_linalg_slogdet",
    "_lu_with_info",
]


class _LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a matrix the algorithm cannot handle (a singular
    matrix to invert, one that is not positive-definite to factor). A ``RuntimeError``,
    so code that catches those catches it too."""


LinAlgError = _LinAlgError


# --- the checks (LinearAlgebraUtils.h) ------------------------------------------------------


def _check_is_matrix(A: Tensor, f_name: str, arg_name: str = "A") -> None:
    if A.dim() < 2:
        raise RuntimeError(
            f"{f_name}: The input tensor {arg_name} must have at least 2 dimensions."
        )


def _square_check_inputs(A: Tensor, f_name: str) -> None:
    """``squareCheckInputs``: a matrix, or a batch of them, that is square."""
    _check_is_matrix(A, f_name)
    if A._size[-1] != A._size[-2]:
        raise RuntimeError(
            f"{f_name}: A must be batches of square matrices, but they are {A._size[-2]} by "
            f"{A._size[-1]} matrices"
        )


def _check_floating_or_complex(A: Tensor, f_name: str, low_precision: bool = True) -> None:
    """``checkFloatingOrComplex``: LAPACK works on floating and complex numbers only (and
    some callers refuse ``float16`` before LAPACK would)."""
    if A._dtype.category < FLOATING:
        raise RuntimeError(
            f"{f_name}: Expected a floating point or complex tensor as input. Got "
            f"{A._dtype.scalar_name}"
        )
    if not low_precision and A._dtype is float16:
        raise RuntimeError(f"{f_name}: Low precision dtypes not supported. Got Half")


def _check_inputs_solver(A: Tensor, B: Tensor, left: bool, f_name: str) -> None:
    """``checkInputsSolver``: ``A X = B`` (``left``) or ``X A = B`` can be written down."""
    _square_check_inputs(A, f_name)
    _check_is_matrix(B, f_name, "B")
    if (A._size[-2] != B._size[-2]) if left else (A._size[-1] != B._size[-1]):
        raise RuntimeError(
            f"{f_name}: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({A._size[-2]}x{A._size[-1]} and "
            f"{B._size[-2]}x{B._size[-1]})"
        )


def _linear_solve_check_inputs(b: Tensor, A: Tensor, name: str) -> None:
    """``linearSolveCheckInputs``: the older solvers' (``cholesky_solve``,
    ``triangular_solve``) checks of ``b`` against ``A``."""
    if b.device != A.device:
        raise RuntimeError(
            f"Expected b and A to be on the same device, but found b on {b.device} and A on "
            f"{A.device} instead."
        )
    if b._dtype is not A._dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{b._dtype.scalar_name} and A of type {A._dtype.scalar_name} instead."
        )
    if A._size[-1] != A._size[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {A._size[-2]} by "
            f"{A._size[-1]} matrices"
        )
    if A._size[-1] != b._size[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {name}: each A matrix is {A._size[-1]} by "
            f"{A._size[-1]} but each b matrix is {b._size[-2]} by {b._size[-1]}"
        )


def _compatible_out(fn_name: str):
    """``checkLinalgCompatibleDtype``: the older functions' ``out=`` may have another
    dtype, if the result can be cast to it."""

    def check(self: Tensor, *args, out: Tensor, **options) -> None:
        if not can_cast(self._dtype, out._dtype):
            raise RuntimeError(
                f"{fn_name}: Expected result to be safely castable from {self._dtype.scalar_name} "
                f"dtype, but got result with dtype {out._dtype.scalar_name}"
            )

    return check


def _broadcast_batch(first: Tensor, second: Tensor) -> tuple:
    """``_linalg_broadcast_batch_dims``: the batch shape both operands broadcast to."""
    return broadcast_shapes(first._size[:-2], second._size[:-2])


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    """``linalg_solve_is_vector_rhs``: NumPy's rule for ``solve``'s right-hand side. ``B``
    is a vector (or a batch of them) when it is 1-D, or when it has exactly the shape of
    ``A`` without its last dimension."""
    return B.dim() == 1 or (A.dim() - 1 == B.dim() and B._size == A._size[:-1])


def _check_errors(info: np.ndarray, api_name: str, is_matrix: bool) -> None:
    """``_linalg_check_errors``: raise the error LAPACK's ``info`` reports for the first
    matrix of the batch that failed, in the words of the operation.

    A positive ``info`` names a row or column, counted from 1: the zero on ``U``'s
    diagonal that makes the matrix singular, or the leading minor that is not
    positive-definite.
    """
    failed = np.flatnonzero(info)
    if failed.size == 0:
        return
    code = int(info.reshape(-1)[failed[0]])
    prefix = api_name + ("" if is_matrix else f": (Batch element {failed[0]})")
    if "inv" in api_name:
        raise _LinAlgError(
            f"{prefix}: The diagonal element {code} is zero, the inversion could not be "
            "completed because the input matrix is singular."
        )
    if "solve" in api_name:
        raise _LinAlgError(f"{prefix}: The solver failed because the input matrix is singular.")
    if "cholesky" in api_name:
        raise _LinAlgError(
            f"{prefix}: The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {code} is not positive-definite)."
        )
    # ``lu_factor``: a plain RuntimeError (PyTorch's TORCH_CHECK), not a LinAlgError.
    raise RuntimeError(
        f"{prefix}: U[{code},{code}] is zero and using it on lu_solve would result in a "
        "division by zero. If you still want to perform the factorization, consider calling "
        "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
    )


# --- LAPACK on a batch of matrices ------------------------------------------------------------

# ``AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES``: what LAPACK is compiled for (no float16).
_LAPACK_TYPES = frozenset({"float32", "float64", "complex64", "complex128"})


def matrix_strides(size, column_major: bool = True) -> tuple[int, ...]:
    """``batched_matrix_contiguous_strides``: a row-major batch of matrices that are
    column-major (what LAPACK reads and writes) or row-major."""
    strides = list(contiguous_strides(size))
    if column_major and len(size) >= 2:
        strides[-1], strides[-2] = max(size[-2], 1), 1
    return tuple(strides)


def empty_matrices(size, dtype, column_major: bool = True) -> Tensor:
    """``at::empty_strided(size, batched_matrix_contiguous_strides(size))``."""
    size = tuple(size)
    return Tensor._empty_strided(size, matrix_strides(size, column_major), dtype)


def _each_matrix(batch: tuple):
    """The index of each matrix of a batch: a loop over matrices, as PyTorch's
    ``apply_*`` kernels loop over ``batchCount``, each one solved by LAPACK."""
    return np.ndindex(*batch)


def _trans(adjoint: bool, array: np.ndarray) -> int:
    """LAPACK's ``trans``: 0 solves with ``A``, 1 with ``Aᵀ``, 2 with ``Aᴴ``."""
    return (2 if array.dtype.kind == "c" else 1) if adjoint else 0


@dispatch_dtypes("lu_cpu", _LAPACK_TYPES)
def _lu_factor_into(lu: np.ndarray, a: np.ndarray, pivots: np.ndarray, info: np.ndarray):
    """``apply_lu_factor``: ``getrf`` on each matrix; LAPACK's pivots count from 1."""
    (getrf,) = lapack.get_lapack_funcs(("getrf",), (a,))
    for index in _each_matrix(a.shape[:-2]):
        factors, swaps, info[index] = getrf(a[index])
        lu[index] = factors
        pivots[index] = swaps + 1  # (SciPy counts from 0)


def _check_pivots(pivots: np.ndarray, n: int) -> None:
    if pivots.size and pivots.min() < 1:
        raise RuntimeError(
            "Pivots given to lu_solve must all be greater or equal to 1. Did you properly "
            "pass the result of lu_factor?"
        )
    if pivots.size and pivots.max() > n:
        raise RuntimeError(
            "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you "
            "properly pass the result of lu_factor?"
        )


@dispatch_dtypes("linalg.lu_solve_cpu", _LAPACK_TYPES)
def _lu_solve_into(x: np.ndarray, lu: np.ndarray, pivots: np.ndarray, b: np.ndarray,
                   adjoint: bool) -> None:  # fmt: skip
    """``apply_lu_solve``: ``getrs`` solves ``A X = B`` (``Aᴴ X = B`` for ``adjoint``)
    with the factors of ``A``; the factors broadcast over ``B``'s batch."""
    (getrs,) = lapack.get_lapack_funcs(("getrs",), (lu,))
    batch = x.shape[:-2]
    lu = np.broadcast_to(lu, batch + lu.shape[-2:])
    pivots = np.broadcast_to(pivots - 1, batch + pivots.shape[-1:])
    b = np.broadcast_to(b, x.shape)
    trans = _trans(adjoint, lu)
    for index in _each_matrix(batch):
        x[index] = getrs(lu[index], pivots[index], b[index], trans=trans)[0]


def _lu_solve_arrays(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, left: bool,
                     adjoint: bool) -> np.ndarray:  # fmt: skip
    """``X`` in ``op(A) X = B`` (``left``) or ``X op(A) = B``, ``op(A) = A`` or ``Aᴴ``,
    from the factors of ``A``, in a new column-major batch (row-major for ``X A = B``:
    it is the conjugate transpose of the solution of ``op(A)ᴴ Xᴴ = Bᴴ``)."""
    if not left:
        return _lu_solve_arrays(lu, pivots, b.swapaxes(-1, -2).conj(), True,
                                not adjoint).swapaxes(-1, -2).conj()  # fmt: skip
    batch = broadcast_shapes(b.shape[:-2], lu.shape[:-2])
    x = np.empty((*batch, b.shape[-1], b.shape[-2]), dtype=lu.dtype).swapaxes(-1, -2)
    if x.size:
        _check_pivots(pivots, lu.shape[-2])
        _lu_solve_into(x, lu, pivots, b, adjoint)
    return x


def _lu_arrays(a: np.ndarray, pivot: bool):
    """``linalg_lu_factor_ex``'s impl on arrays: the packed factors (column-major), the
    pivots and LAPACK's ``info``. An empty matrix has nothing to factor (and no pivot)."""
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    lu = np.empty((*batch, n, m), dtype=a.dtype).swapaxes(-1, -2)
    pivots = np.empty((*batch, min(m, n)), dtype=np.int32)
    info = np.zeros(batch, dtype=np.int32)
    if a.size:
        if not pivot:
            raise RuntimeError(
                "linalg.lu_factor: LU without pivoting is not implemented on the CPU"
            )
        _lu_factor_into(lu, a, pivots, info)
    return lu, pivots, info


def _permutation_sign(pivots: np.ndarray) -> np.ndarray:
    """``lu_det_P``: the determinant of ``P``, +1 or -1 by the parity of the row swaps
    (each pivot that is not its own row is one swap)."""
    swaps = np.count_nonzero(pivots != np.arange(1, pivots.shape[-1] + 1), axis=-1)
    return 1 - 2 * (swaps % 2)


def _unpack_arrays(lu: np.ndarray, pivots: np.ndarray, unpack_data: bool,
                   unpack_pivots: bool, m: int):  # fmt: skip
    """``lu_unpack``'s impl: ``P``, ``L`` (unit lower, ``m × k``) and ``U`` (upper,
    ``k × n``) from the packed factors; what is not unpacked is an empty ``(0,)``."""
    batch, n = lu.shape[:-2], lu.shape[-1]
    k = min(m, n)
    empty = np.empty((0,), dtype=lu.dtype)
    L = U = P = empty
    if unpack_data:
        L = np.tril(lu[..., :, :k], -1)
        L[..., range(k), range(k)] = 1
        U = np.triu(lu[..., :k, :])
    if unpack_pivots:
        if pivots.size and (pivots.min() < 1 or pivots.max() > m):
            raise RuntimeError(
                "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                "Did you properly pass the result of lu_factor?"
            )
        # Replay LAPACK's row swaps on the identity permutation: row i went to
        # pivots[i] - 1. ``P[perm[j], j] = 1``, so that ``A = P L U``.
        perm = np.broadcast_to(np.arange(m), (*batch, m)).copy()
        rows = np.indices(batch) if batch else ()
        for i in range(pivots.shape[-1]):
            target = pivots[..., i] - 1
            swapped = perm[..., i].copy()
            perm[..., i] = perm[(*rows, target)]
            perm[(*rows, target)] = swapped
        P = np.zeros((*batch, m, m), dtype=lu.dtype)
        np.put_along_axis(P, perm[..., None, :], 1, axis=-2)
    return P, L, U


def _structured(out_overload: str, meta, impl, **out_options) -> dict:
    """The kernels of a structured operator (``structured: True``): the functional
    overload runs ``meta`` (the checks, and each output's shape, dtype and strides) then
    ``impl``; the ``out=`` overload checks the outputs' dtypes and resizes them as ``meta``
    says, runs ``impl`` and copies its results in."""
    options = {"exact_dtype": True, **out_options}
    return {"kernel": meta_then_impl(meta, impl),
            "kernels": {out_overload: out_wrapper(impl, meta=meta, **options)}}  # fmt: skip


def _raising(ex_operator, api_name: str, out_names=("out",)):
    """The functional and ``out=`` kernels of a function that is its ``_ex`` twin then
    the error its ``info`` reports (``linalg.inv`` is ``linalg.inv_ex``, then
    ``_linalg_check_errors``)."""

    def kernel(A: Tensor, *args, **options):
        *results, info = ex_operator(A, *args, **options)
        _check_errors(info._array, api_name, A.dim() == 2)
        return results[0] if len(results) == 1 else tuple(results)

    def out_kernel(A: Tensor, *args, **options):
        outs = tuple(options.pop(name) for name in out_names)
        info = Tensor._new_contiguous((0,), int32)
        ex_operator(A, *args, **options, out=(*outs, info))
        _check_errors(info._array, api_name, A.dim() == 2)
        return outs[0] if len(outs) == 1 else outs

    return kernel, out_kernel


# --- lu_factor, lu_solve, lu_unpack and lu ------------------------------------------------------


def _lu_factor_ex_meta(A: Tensor, *, pivot=True, check_errors=False):
    if A.dim() < 2:
        raise RuntimeError(
            f"vizgrad.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(A._size)} instead"
        )
    m, n = A._size[-2:]
    batch = A._size[:-2]
    return [(A._size, A._dtype, matrix_strides(A._size)), ((*batch, min(m, n)), int32),
            (batch, int32)]  # fmt: skip


def _lu_factor_ex_impl(A: Tensor, *, pivot=True, check_errors=False):
    lu, pivots, info = _lu_arrays(A._array, pivot)
    if check_errors:
        _check_errors(info, "vizgrad.linalg.lu_factor_ex", A.dim() == 2)
    return _from_column_major(lu, A._dtype), _wrap(pivots, int32), _wrap(info, int32)


def _wrap(array: np.ndarray, dtype) -> Tensor:
    return Tensor._from_array(np.asarray(array, dtype=dtype.numpy), dtype)


def _from_column_major(array: np.ndarray, dtype) -> Tensor:
    """A tensor laid out as ``empty_matrices`` lays it out, holding ``array``'s values
    (no copy when ``array`` is already a column-major batch)."""
    result = empty_matrices(array.shape, dtype)
    result._array[...] = array
    return result


def lu_factor_ex_backward(grad: Tensor, LU: Tensor, pivots: Tensor, pivot: bool) -> Tensor:
    """``lu_factor_ex_backward``: the packed factors hold ``L`` below the diagonal and
    ``U`` on and above it; their gradients go through ``linalg_lu_backward``."""
    P, L, U = lu_unpack(LU, pivots, True, pivot)
    k = min(LU._size[-2], LU._size[-1])
    return linalg_lu_backward(grad.narrow(-1, 0, k), grad.narrow(-2, 0, k), P, L, U, pivot)


def linalg_lu_backward(L_grad: Tensor, U_grad: Tensor, P: Tensor, L: Tensor, U: Tensor,
                       pivot: bool) -> Tensor:  # fmt: skip
    """``linalg_lu_backward``: the gradient of ``A = P L U`` (``L`` unit lower, ``U``
    upper), for ``A`` of shape ``m × n``, ``k = min(m, n)``. For a square ``A``::

        A_grad = P L⁻ᴴ [(Lᴴ L_grad) ∘ 1_L + (U_grad Uᴴ) ∘ 1_U] U⁻ᴴ

    (``1_L`` the strictly lower triangle, ``1_U`` the upper one); a wide or tall ``A``
    adds the columns of ``U`` (rows of ``L``) past the square block.
    """
    m, n = L._size[-2], U._size[-1]
    k = min(m, n)
    if m == n:
        A_grad = L.mH.matmul(L_grad).tril(-1) + U_grad.matmul(U.mH).triu()
        A_grad = linalg_solve_triangular(U.mH, A_grad, upper=False, left=False)
        A_grad = linalg_solve_triangular(L.mH, A_grad, upper=True, left=True, unitriangular=True)
    elif m < n:  # wide: U = (U1 | U2), U1 square
        U1, U2_grad = U.narrow(-1, 0, k), U_grad.narrow(-1, k, n - k)
        A_grad = (L.mH.matmul(L_grad) - U_grad.triu().matmul(U.mH)).tril(-1)
        A_grad = linalg_solve_triangular(U1.mH, A_grad, upper=False, left=False)
        A_grad = cat([A_grad + U_grad.narrow(-1, 0, k).triu(), U2_grad], -1)
        A_grad = linalg_solve_triangular(L.mH, A_grad, upper=True, left=True, unitriangular=True)
    else:  # tall: L = (L1 ; L2), L1 square
        L1, L2_grad = L.narrow(-2, 0, k), L_grad.narrow(-2, k, m - k)
        A_grad = (U_grad.matmul(U.mH) - L.mH.matmul(L_grad.tril(-1))).triu()
        A_grad = linalg_solve_triangular(L1.mH, A_grad, upper=True, left=True, unitriangular=True)
        A_grad = cat([A_grad + L_grad.narrow(-2, 0, k).tril(-1), L2_grad], -2)
        A_grad = linalg_solve_triangular(U.mH, A_grad, upper=False, left=False)
    return P.matmul(A_grad) if pivot else A_grad


linalg_lu_factor_ex = native_function(
    "linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> "
    "(Tensor LU, Tensor pivots, Tensor info)",
    "linalg_lu_factor_ex.out(Tensor A, *, bool pivot=True, bool check_errors=False, "
    "Tensor(a!) LU, Tensor(b!) pivots, Tensor(c!) info) -> "
    "(Tensor(a!) LU, Tensor(b!) pivots, Tensor(c!) info)",
    **_structured("linalg_lu_factor_ex.out", _lu_factor_ex_meta, _lu_factor_ex_impl),
    derivative=Derivative(
        "LinalgLuFactorExBackward0",
        complex=True,
        save=("LU", "pivots", "pivot"),
        grads={
            "A": lambda grad, s: lu_factor_ex_backward(grad, s.LU, s.pivots, s.pivot),
        },
        differentiable_outputs=(0,),
    ),
    variants="function",
    doc="""``torch.linalg.lu_factor_ex``: the LU factorization with partial pivoting,
    ``A = P L U``, packed into one matrix (``L``'s unit diagonal is not stored), with
    LAPACK's 1-based ``int32`` pivots and its ``info`` (0, or the first zero on ``U``'s
    diagonal, counted from 1) instead of an error.""",
)


_lu_factor_kernel, _lu_factor_out_kernel = _raising(
    linalg_lu_factor_ex, "vizgrad.linalg.lu_factor", out_names=("LU", "pivots")
)


linalg_lu_factor = native_function(
    "linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)",
    "linalg_lu_factor.out(Tensor A, *, bool pivot=True, Tensor(a!) LU, Tensor(b!) pivots) "
    "-> (Tensor(a!) LU, Tensor(b!) pivots)",
    kernel=_lu_factor_kernel,
    kernels={"linalg_lu_factor.out": _lu_factor_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_lu_factor.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.lu_factor``: ``lu_factor_ex``, raising if ``U`` has a zero on its
    diagonal (then ``lu_solve`` would divide by zero).""",
)


_LU_DEPRECATED = (
    "vizgrad.lu is deprecated in favor of vizgrad.linalg.lu_factor / vizgrad.linalg.lu_factor_ex "
    "and will be removed in a future PyTorch release.\nLU, pivots = vizgrad.lu(A, "
    "compute_pivots)\nshould be replaced with\nLU, pivots = vizgrad.linalg.lu_factor(A, "
    "compute_pivots)\nand\nLU, pivots, info = vizgrad.lu(A, compute_pivots, get_infos=True)\n"
    "should be replaced with\nLU, pivots, info = vizgrad.linalg.lu_factor_ex(A, compute_pivots)"
)


def _lu_with_info_kernel(self: Tensor, pivot=True, check_errors=True):
    """``_lu_with_info``: ``lu_factor_ex``, which never raises (``check_errors`` is not
    used: PyTorch's kernel ignores it too)."""
    warn_at_user_code(_LU_DEPRECATED)
    return tuple(linalg_lu_factor_ex(self, pivot=pivot))


_lu_with_info = native_function(
    "_lu_with_info(Tensor self, bool pivot=True, bool check_errors=True) -> "
    "(Tensor LU, Tensor pivots, Tensor info)",
    kernel=_lu_with_info_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._lu_with_info``: what the deprecated ``torch.lu`` calls.",
)


def lu(A, pivot=True, get_infos=False, out=None):
    """``torch.lu`` (deprecated; a Python function of ``torch/functional.py``): the packed
    LU factors and pivots of ``linalg.lu_factor``, and LAPACK's ``info`` with
    ``get_infos=True``. It never raises for a singular matrix."""
    result = _lu_with_info(A, pivot=pivot, check_errors=not get_infos)
    if out is None:
        return result if get_infos else (result[0], result[1])
    if len(out) - int(get_infos) != 2:
        raise TypeError(f"expected tuple of {2 + int(get_infos)} elements but got {len(out)}")
    if not isinstance(out, tuple | list):
        raise TypeError(f"argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    for target, value in zip(out, result, strict=False):
        target.resize_as_(value).copy_(value)
    return out


define_method("lu", lambda self, pivot=True, get_infos=False: lu(self, pivot, get_infos))


def _lu_solve_meta(LU: Tensor, pivots: Tensor, B: Tensor, *, left=True, adjoint=False):
    _check_floating_or_complex(LU, "vizgrad.linalg.lu_solve")
    if LU._dtype is not B._dtype:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            f"{LU._dtype.scalar_name} and B of type {B._dtype.scalar_name} instead"
        )
    if pivots._dtype is not int32:
        raise RuntimeError(
            "linalg.lu_solve: pivots should be a Tensor of scalar type vizgrad.int32"
        )
    _square_check_inputs(LU, "vizgrad.linalg.lu_solve")
    _check_inputs_solver(LU, B, left, "linalg.lu_solve")
    if LU._size[-1] != pivots.size(-1):
        raise RuntimeError(
            "linalg.lu_solve: Number of pivots per batch should be same as the dimension of "
            "the matrix"
        )
    if pivots._size != LU._size[:-1]:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
            f"pivots with shape {list(pivots._size)} instead"
        )
    shape = (*_broadcast_batch(B, LU), *B._size[-2:])
    return shape, B._dtype, matrix_strides(shape, column_major=left)


def _conjugate_view_if_right(result: Tensor, left: bool) -> Tensor:
    """``X A = B`` is solved as ``op(A)ᴴ Xᴴ = Bᴴ``: PyTorch keeps the ``conj(X)`` LAPACK
    wrote in memory and sets the result's conjugate bit (a complex result of
    ``left=False`` is a conjugate view, ``is_conj()``), rather than conjugating back."""
    if result.is_complex() and not left and result.numel():
        np.conjugate(result._array, out=result._array)
        result._set_conj(True)
    return result


def _lu_solve_kernel(LU: Tensor, pivots: Tensor, B: Tensor, *, left=True, adjoint=False):
    """The functional overload's impl: the ``out=`` one's, as a conjugate view for
    ``left=False`` (run after ``_lu_solve_meta``: ``meta_then_impl``)."""
    return _conjugate_view_if_right(_lu_solve_impl(LU, pivots, B, left=left, adjoint=adjoint), left)


def _lu_solve_impl(LU: Tensor, pivots: Tensor, B: Tensor, *, left=True, adjoint=False):
    x = _lu_solve_arrays(LU._array, pivots._array, B._array, left, adjoint)
    result = empty_matrices(x.shape, B._dtype, column_major=left)
    result._array[...] = x
    return result


def linalg_lu_solve_LU(gX: Tensor, LU: Tensor, pivots: Tensor, X: Tensor, left: bool,
                       adjoint: bool) -> Tensor:  # fmt: skip
    """``linalg_lu_solve_LU``: the gradient of ``lu_solve``'s result with respect to the
    packed factors. With ``A = P L U``, the ``L`` and ``U`` parts of the gradient come from
    two triangular solves and land below and on/above the diagonal of ``LU``."""
    P, L, U = lu_unpack(LU, pivots, True, left == adjoint)
    if left != adjoint:
        # gR = U⁻ᴴ op(-gX) op(X)ᴴ, gL = (L⁻ᴴ gR Uᴴ).tril(-1)
        product = (gX if left else gX.mH).matmul(X.mH if left else X)
        gR = linalg_solve_triangular(U.mH, -product, upper=False)
        gL = linalg_solve_triangular(L.mH, gR.matmul(U.mH), upper=True, left=True,
                                     unitriangular=True).tril(-1)  # fmt: skip
        return gL + gR.triu()
    # gR = -Pᵀ op(X) op(gX)ᴴ P L⁻ᴴ, gU = (Lᴴ gR U⁻ᴴ).triu()
    gR = -P.mT.matmul(X if left else X.mH).matmul(gX.mH if left else gX).matmul(P)
    gR = linalg_solve_triangular(L.mH, gR, upper=True, left=False, unitriangular=True)
    gU = linalg_solve_triangular(U.mH, L.mH.matmul(gR), upper=False, left=False).triu()
    return gR.tril(-1) + gU


linalg_lu_solve = native_function(
    "linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, "
    "bool adjoint=False) -> Tensor",
    "linalg_lu_solve.out(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, "
    "bool adjoint=False, Tensor(a!) out) -> Tensor(a!)",
    kernel=meta_then_impl(_lu_solve_meta, _lu_solve_kernel),
    kernels={
        "linalg_lu_solve.out": out_wrapper(_lu_solve_impl, exact_dtype=True, meta=_lu_solve_meta)
    },
    derivative=Derivative(
        "LinalgLuSolveBackward0",
        complex=True,
        save=("LU", "pivots", "result", "left", "adjoint"),
        grads={
            "LU": lambda grad, s: linalg_lu_solve_LU(
                grad, s.LU, s.pivots, s.result, s.left, s.adjoint
            ),
            "B": lambda grad, s: linalg_lu_solve(
                s.LU, s.pivots, grad, left=s.left, adjoint=not s.adjoint
            ),
        },
    ),  # fmt: skip
    variants="function",
    doc="""``torch.linalg.lu_solve``: solve ``A X = B`` (``X A = B`` with ``left=False``,
    ``Aᴴ`` for ``A`` with ``adjoint=True``) from ``lu_factor``'s factors of ``A``: two
    triangular solves, no new factorization. ``A``'s batch broadcasts over ``B``'s.""",
)


_LU_SOLVE_DEPRECATED = (
    "vizgrad.lu_solve is deprecated in favor of vizgrad.linalg.lu_solveand will be removed in "
    "a future PyTorch release.\nNote that vizgrad.linalg.lu_solve has its arguments "
    "reversed.\nX = vizgrad.lu_solve(B, LU, pivots)\nshould be replaced with\n"
    "X = vizgrad.linalg.lu_solve(LU, pivots, B)"
)


def _lu_solve_deprecated_kernel(self: Tensor, LU_data: Tensor, LU_pivots: Tensor):
    warn_at_user_code(_LU_SOLVE_DEPRECATED)
    return linalg_lu_solve(LU_data, LU_pivots, self)


def _lu_solve_deprecated_out_kernel(self, LU_data, LU_pivots, *, out):
    warn_at_user_code(_LU_SOLVE_DEPRECATED)
    return linalg_lu_solve(LU_data, LU_pivots, self, out=out)


lu_solve = native_function(
    "lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor",
    "lu_solve.out(Tensor self, Tensor LU_data, Tensor LU_pivots, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_lu_solve_deprecated_kernel,
    kernels={"lu_solve.out": _lu_solve_deprecated_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"lu_solve.out": COMPOSITE_IMPLICIT},
    doc="``torch.lu_solve`` (deprecated): ``linalg.lu_solve`` with ``B`` first.",
)


def _lu_unpack_meta(LU_data: Tensor, LU_pivots: Tensor, unpack_data=True, unpack_pivots=True):
    if LU_data.dim() < 2:
        raise RuntimeError(
            f"vizgrad.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(LU_data._size)} instead"
        )
    if unpack_pivots and LU_pivots._dtype is not int32:
        raise RuntimeError(
            "vizgrad.lu_unpack: LU_pivots is expected to be a contiguous tensor of vizgrad.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "vizgrad.linalg.lu_factor"
        )
    return _lu_shapes(LU_data, unpack_data, unpack_pivots)


def _lu_shapes(A: Tensor, with_LU: bool, with_P: bool) -> list:
    """``P`` (``m × m``), ``L`` (``m × k``), ``U`` (``k × n``): row-major; ``(0,)`` for
    what is not computed."""
    *batch, m, n = A._size
    k = min(m, n)
    dtype = A._dtype
    P = ((*batch, m, m) if with_P else (0,), dtype)
    return [P, ((*batch, m, k) if with_LU else (0,), dtype),
            ((*batch, k, n) if with_LU else (0,), dtype)]  # fmt: skip


def _lu_unpack_impl(LU_data: Tensor, LU_pivots: Tensor, unpack_data=True, unpack_pivots=True):
    k = min(LU_data._size[-2:])
    expected = (*LU_data._size[:-2], k)
    if unpack_pivots and LU_pivots._size != expected:
        # (PyTorch reads past the pivots, or crashes: vizgrad says what it expected.)
        raise RuntimeError(
            f"vizgrad.lu_unpack: Expected LU_pivots of shape {list(expected)} for LU_data of "
            f"shape {list(LU_data._size)}, but got {list(LU_pivots._size)}"
        )
    arrays = _unpack_arrays(LU_data._array, LU_pivots._array, unpack_data, unpack_pivots,
                            LU_data._size[-2])  # fmt: skip
    return tuple(_wrap(a, LU_data._dtype) for a in arrays)


def lu_unpack_backward(L_grad: Tensor, U_grad: Tensor) -> Tensor:
    """``lu_unpack_backward``: ``L``'s strict lower triangle and ``U``'s upper one are
    read out of the packed matrix; their gradients go back to the same places."""
    m, n = L_grad._size[-2], U_grad._size[-1]
    k = min(m, n)
    if m == n:
        return L_grad.tril(-1) + U_grad.triu()
    A1_grad = L_grad.narrow(-2, 0, k).tril(-1) + U_grad.narrow(-1, 0, k).triu()
    if m > n:
        return cat([A1_grad, L_grad.narrow(-2, k, m - k)], -2)
    return cat([A1_grad, U_grad.narrow(-1, k, n - k)], -1)


lu_unpack = native_function(
    "lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, "
    "bool unpack_pivots=True) -> (Tensor P, Tensor L, Tensor U)",
    "lu_unpack.out(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, "
    "bool unpack_pivots=True, *, Tensor(a!) P, Tensor(b!) L, Tensor(c!) U) -> "
    "(Tensor(a!) P, Tensor(b!) L, Tensor(c!) U)",
    **_structured("lu_unpack.out", _lu_unpack_meta, _lu_unpack_impl),
    derivative=Derivative(
        "LuUnpackBackward0",
        complex=True,
        grads={"LU_data": lambda grads, s: lu_unpack_backward(grads[1], grads[2])},
        multi_output=True,
        differentiable_outputs=(1, 2),
    ),
    variants="function",
    doc="""``torch.lu_unpack``: ``P``, ``L`` and ``U`` (``A = P L U``) out of
    ``lu_factor``'s packed factors and pivots.""",
)


def _lu_meta(A: Tensor, *, pivot=True):
    if A.dim() < 2:
        raise RuntimeError(
            f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(A._size)} "
            "instead"
        )
    return _lu_shapes(A, True, pivot)


def _lu_impl(A: Tensor, *, pivot=True):
    lu, pivots, _ = _lu_arrays(A._array, pivot)
    arrays = _unpack_arrays(lu, pivots, True, pivot, A._size[-2])
    return tuple(_wrap(a, A._dtype) for a in arrays)


linalg_lu = native_function(
    "linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)",
    "linalg_lu.out(Tensor A, *, bool pivot=True, Tensor(a!) P, Tensor(b!) L, Tensor(c!) U) -> "
    "(Tensor(a!) P, Tensor(b!) L, Tensor(c!) U)",
    **_structured("linalg_lu.out", _lu_meta, _lu_impl),
    derivative=Derivative(
        "LinalgLuBackward0",
        complex=True,
        save=("P", "L", "U", "pivot"),
        grads={
            "A": lambda grads, s: linalg_lu_backward(grads[1], grads[2], s.P, s.L, s.U, s.pivot)
        },
        multi_output=True,
        differentiable_outputs=(1, 2),
    ),  # fmt: skip
    variants="function",
    doc="""``torch.linalg.lu``: ``A = P L U`` with ``P`` a permutation matrix, ``L`` unit
    lower triangular (``m × k``) and ``U`` upper triangular (``k × n``).""",
)


# --- det, slogdet and logdet -----------------------------------------------------------------


def _uses_A_T(A: Tensor) -> bool:
    return A.is_contiguous() and not A.is_complex()


def _det_factors(A: Tensor):
    """The LU factors ``_linalg_det`` and ``_linalg_slogdet`` compute and keep.

    ``det(Aᵀ) = det(A)``, and a row-major ``A`` is a column-major ``Aᵀ``, the layout
    LAPACK reads without a copy: PyTorch factors ``Aᵀ`` then (for real matrices), and
    so does vizgrad, so the saved factors, and the backward that uses them, are the same.
    """
    lu, pivots, _ = _lu_arrays((A.mT if _uses_A_T(A) else A)._array, True)
    return lu, pivots


def _det_meta(A: Tensor, *, name: str = "linalg.det", low_precision: bool = True):
    _square_check_inputs(A, name)
    _check_floating_or_complex(A, name, low_precision)
    return [(A._size[:-2], A._dtype), (A._size, A._dtype, matrix_strides(A._size)),
            (A._size[:-1], int32)]  # fmt: skip


def _det_impl(A: Tensor):
    lu, pivots = _det_factors(A)
    diagonal = np.diagonal(lu, axis1=-2, axis2=-1)
    sign = _permutation_sign(pivots).astype(lu.dtype)
    det = sign * np.prod(diagonal, axis=-1)
    return _wrap(det, A._dtype), _from_column_major(lu, A._dtype), _wrap(pivots, int32)


def linalg_det_backward(grad: Tensor, det: Tensor, A: Tensor, LU: Tensor,
                        pivots: Tensor) -> Tensor:  # fmt: skip
    """``linalg_det_backward``: ``d det(A) = det(A) tr(A⁻¹ dA)``, so the gradient ``G``
    solves ``Aᴴ G = conj(det) grad I``, with the factors the forward kept.

    A singular ``A`` has no inverse, but ``det`` is differentiable there too: a zero on
    ``U``'s diagonal is replaced by ``eps`` (a nearby invertible matrix). For higher
    derivatives (``create_graph=True``) the system is solved anew, so that autograd
    sees how the solution depends on ``A``.
    """
    if A.numel() == 0:
        return None
    d_diag = grad * det.conj()
    # Written column-major, the layout ``lu_solve`` reads.
    d = diag_embed(d_diag.unsqueeze(-1).expand_as(pivots)).mT
    if is_grad_enabled():
        return linalg_solve(A.mH, d)
    eps = np.finfo(LU._dtype.to_real().numpy).eps
    LU_ = LU + diag_embed(where(LU.diagonal(0, -2, -1) == 0.0, eps, 0.0))
    return linalg_lu_solve(LU_, pivots, d, left=True, adjoint=not _uses_A_T(A))


_linalg_det = native_function(
    "_linalg_det(Tensor A) -> (Tensor result, Tensor LU, Tensor pivots)",
    "_linalg_det.result(Tensor A, *, Tensor(a!) result, Tensor(b!) LU, Tensor(c!) pivots) -> "
    "(Tensor(a!) result, Tensor(b!) LU, Tensor(c!) pivots)",
    **_structured("_linalg_det.result", _det_meta, _det_impl),
    derivative=Derivative(
        "LinalgDetBackward0",
        complex=True,
        save=("A", "LU", "pivots", "result"),
        grads={"A": lambda grad, s: linalg_det_backward(grad, s.result, s.A, s.LU, s.pivots)},
        differentiable_outputs=(0,),
    ),
    variants="function",
    doc="""``torch._linalg_det``: the determinant, the product of ``U``'s diagonal times
    the sign of the row swaps (``det(P) det(L) det(U)``), and the LU factors it came from
    (which its gradient solves with).""",
)


def _linalg_det_kernel(A: Tensor) -> Tensor:
    return _linalg_det(A)[0]


def _linalg_det_out_kernel(A: Tensor, *, out: Tensor) -> Tensor:
    LU, pivots = Tensor._new_contiguous((0,), A._dtype), Tensor._new_contiguous((0,), int32)
    return _linalg_det(A, out=(out, LU, pivots))[0]


linalg_det = native_function(
    "linalg_det(Tensor A) -> Tensor",
    "linalg_det.out(Tensor A, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_linalg_det_kernel,
    kernels={"linalg_det.out": _linalg_det_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_det.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.linalg.det``: the determinant of a square matrix (or of each in a batch).",
)
det = native_function(
    "det(Tensor self) -> Tensor",
    kernel=lambda self: linalg_det(self),
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.det``: ``linalg.det``.",
)


def _slogdet_meta(A: Tensor):
    result, LU, pivots = _det_meta(A, name="linalg.slogdet", low_precision=False)
    return [result, (result[0], A._dtype.to_real()), LU, pivots]


def _slogdet_impl(A: Tensor):
    lu, pivots = _det_factors(A)
    diagonal = np.diagonal(lu, axis1=-2, axis2=-1)
    sign = _permutation_sign(pivots).astype(lu.dtype) * np.prod(np.sign(diagonal), axis=-1)
    with np.errstate(divide="ignore"):  # a zero on the diagonal: log 0 = -inf
        logabsdet = np.sum(np.log(np.abs(diagonal)), axis=-1)
    return (_wrap(sign, A._dtype), _wrap(logabsdet, A._dtype.to_real()),
            _from_column_major(lu, A._dtype), _wrap(pivots, int32))  # fmt: skip


def slogdet_backward(grads, A: Tensor, sign: Tensor, LU: Tensor, pivots: Tensor) -> Tensor:
    """``slogdet_backward``: ``d log|det A| = Re tr(A⁻¹ dA)`` and, for complex ``A``,
    ``d sign = i Im tr(A⁻¹ dA) sign``; both gradients are a multiple of ``A⁻ᴴ``, found by
    one solve with the kept factors (or, for higher derivatives, a new solve)."""
    grad_sign, grad_logabsdet = grads[:2]
    g = grad_logabsdet
    if A.is_complex():
        g = g - 1j * (grad_sign.conj() * sign).imag
    d = diag_embed(g.unsqueeze(-1).expand_as(pivots)).mT
    if is_grad_enabled():
        return linalg_solve(A.mH, d)
    return linalg_lu_solve(LU, pivots, d, left=True, adjoint=not _uses_A_T(A))


_linalg_slogdet = native_function(
    "_linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet, Tensor LU, Tensor pivots)",
    "_linalg_slogdet.sign(Tensor A, *, Tensor(a!) sign, Tensor(b!) logabsdet, Tensor(c!) LU, "
    "Tensor(d!) pivots) -> (Tensor(a!) sign, Tensor(b!) logabsdet, Tensor(c!) LU, "
    "Tensor(d!) pivots)",
    **_structured("_linalg_slogdet.sign", _slogdet_meta, _slogdet_impl),
    derivative=Derivative(
        "LinalgSlogdetBackward0",
        complex=True,
        save=("A", "sign", "LU", "pivots"),
        grads={"A": lambda grads, s: slogdet_backward(grads, s.A, s.sign, s.LU, s.pivots)},
        multi_output=True,
        differentiable_outputs=(0, 1),
    ),
    variants="function",
    doc="""``torch._linalg_slogdet``: ``det = sign * exp(logabsdet)``, from the diagonal
    of ``U`` (a sum of logarithms does not overflow where the product would), and the LU
    factors it came from.""",
)


def _slogdet_kernel(A: Tensor):
    return tuple(_linalg_slogdet(A)[:2])


def _slogdet_out_kernel(A: Tensor, *, sign: Tensor, logabsdet: Tensor):
    LU, pivots = Tensor._new_contiguous((0,), A._dtype), Tensor._new_contiguous((0,), int32)
    return tuple(_linalg_slogdet(A, out=(sign, logabsdet, LU, pivots))[:2])


linalg_slogdet = native_function(
    "linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)",
    "linalg_slogdet.out(Tensor A, *, Tensor(a!) sign, Tensor(b!) logabsdet) -> "
    "(Tensor(a!) sign, Tensor(b!) logabsdet)",
    kernel=_slogdet_kernel,
    kernels={"linalg_slogdet.out": _slogdet_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_slogdet.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.linalg.slogdet``: the sign and the log of the absolute value of the determinant.",
)
slogdet = native_function(
    "slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)",
    "slogdet.out(Tensor self, *, Tensor(a!) sign, Tensor(b!) logabsdet) -> "
    "(Tensor(a!) sign, Tensor(b!) logabsdet)",
    kernel=lambda self: tuple(linalg_slogdet(self)),
    kernels={"slogdet.out": lambda self, *, sign, logabsdet: tuple(
        linalg_slogdet(self, out=(sign, logabsdet)))},
    kind=COMPOSITE_IMPLICIT,
    kinds={"slogdet.out": COMPOSITE_IMPLICIT},
    doc="``torch.slogdet``: ``linalg.slogdet``.",
)  # fmt: skip


def _logdet_kernel(self: Tensor) -> Tensor:
    """``logdet``: ``log det``, from ``slogdet``; a negative determinant has no real
    logarithm (``nan``)."""
    _square_check_inputs(self, "logdet")
    _check_floating_or_complex(self, "logdet", low_precision=False)
    sign, logabsdet = linalg_slogdet(self)
    if self.is_complex():
        return sign.log() + logabsdet
    return where(sign == -1.0, float("nan"), logabsdet)


logdet = native_function(
    "logdet(Tensor self) -> Tensor",
    kernel=_logdet_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.logdet``: the logarithm of the determinant (``nan`` if it is negative).",
)


# --- solve and inv ----------------------------------------------------------------------------


def _solve_meta(A: Tensor, B: Tensor, *, left=True, check_errors=False):
    _check_floating_or_complex(A, "linalg.solve")
    if A._dtype is not B._dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{A._dtype.scalar_name} and B of type {B._dtype.scalar_name} instead"
        )
    vector_case = _is_vector_rhs(A, B)
    B_ = B.unsqueeze(-1) if vector_case else B
    _check_inputs_solver(A, B_, left, "linalg.solve")
    shape = (*_broadcast_batch(B_, A), *B_._size[-2:])
    if not left and vector_case:
        raise RuntimeError(
            "linalg.solve: Vector broadcasting of the left hand side is not supported for "
            "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)"
        )
    if vector_case:
        shape = shape[:-1]
    batch = A._size[:-2]
    return [(shape, B._dtype, matrix_strides(shape, column_major=left)),
            (A._size, A._dtype, matrix_strides(A._size)), (A._size[:-1], int32),
            (batch, int32)]  # fmt: skip


def _solve_kernel_ex(A: Tensor, B: Tensor, *, left=True, check_errors=False):
    """The functional overload's impl (after ``_solve_meta``: ``meta_then_impl``)."""
    result, *factors = _solve_impl(A, B, left=left, check_errors=check_errors)
    return (_conjugate_view_if_right(result, left), *factors)


def _solve_impl(A: Tensor, B: Tensor, *, left=True, check_errors=False):
    """``_linalg_solve_ex``: factor ``A`` once (``getrf``), then two triangular solves."""
    lu, pivots, info = _lu_arrays(A._array, True)
    if check_errors:
        _check_errors(info, "vizgrad.linalg.solve_ex", A.dim() == 2)
    vector_case = _is_vector_rhs(A, B)
    b = B._array[..., None] if vector_case else B._array
    x = _lu_solve_arrays(lu, pivots, b, left, False)
    x = x[..., 0] if vector_case else x
    result = empty_matrices(x.shape, B._dtype, column_major=left)
    result._array[...] = x
    return result, _from_column_major(lu, A._dtype), _wrap(pivots, int32), _wrap(info, int32)


def _solve_grad_B(gX: Tensor, s) -> Tensor:
    """``linalg_solve_backward``'s ``gB = A⁻ᴴ gX``, as a matrix (a vector right-hand side
    is a column); both gradients need it, so it is solved once per backward."""
    if "gB_" not in s.__dict__:
        gX_ = gX.unsqueeze(-1) if _is_vector_rhs(s.LU, s.result) else gX
        if is_grad_enabled():  # solved anew, so that autograd sees how it depends on A
            s.gB_ = linalg_solve(s.A.mH, gX_, left=s.left)
        else:
            s.gB_ = linalg_lu_solve(s.LU, s.pivots, gX_, left=s.left, adjoint=True)
    return s.gB_


def _solve_grad_A(gX: Tensor, s) -> Tensor:
    """``gA = -gB Xᴴ`` (``-Xᴴ gB`` for ``X A = B``)."""
    gB_ = _solve_grad_B(gX, s)
    X_ = s.result.unsqueeze(-1) if _is_vector_rhs(s.LU, s.result) else s.result
    return -gB_.matmul(X_.mH) if s.left else -X_.mH.matmul(gB_)


def _solve_grad_B_for_B(gX: Tensor, s) -> Tensor:
    gB_ = _solve_grad_B(gX, s)
    return gB_.squeeze(-1) if _is_vector_rhs(s.LU, s.result) else gB_


_linalg_solve_ex = native_function(
    "_linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> "
    "(Tensor result, Tensor LU, Tensor pivots, Tensor info)",
    "_linalg_solve_ex.result(Tensor A, Tensor B, *, bool left=True, bool check_errors=False, "
    "Tensor(a!) result, Tensor(b!) LU, Tensor(c!) pivots, Tensor(d!) info) -> "
    "(Tensor(a!) result, Tensor(b!) LU, Tensor(c!) pivots, Tensor(d!) info)",
    kernel=meta_then_impl(_solve_meta, _solve_kernel_ex),
    kernels={
        "_linalg_solve_ex.result": out_wrapper(_solve_impl, exact_dtype=True, meta=_solve_meta)
    },
    derivative=Derivative(
        "LinalgSolveExBackward0",
        complex=True,
        save=("A", "LU", "pivots", "result", "left"),
        grads={"A": _solve_grad_A, "B": _solve_grad_B_for_B},
        differentiable_outputs=(0,),
    ),
    variants="function",
    doc="""``torch._linalg_solve_ex``: ``X`` with ``A X = B`` (``X A = B`` for
    ``left=False``), the LU factors of ``A`` (kept for the backward) and LAPACK's
    ``info``. ``B`` may be a vector (or a batch of them); batches broadcast.""",
)


def _solve_ex_kernel(A: Tensor, B: Tensor, *, left=True, check_errors=False):
    result, _, _, info = _linalg_solve_ex(A, B, left=left, check_errors=check_errors)
    return result, info


def _solve_ex_out_kernel(A, B, *, left=True, check_errors=False, result, info):
    LU, pivots = Tensor._new_contiguous((0,), B._dtype), Tensor._new_contiguous((0,), int32)
    outs = (result, LU, pivots, info)
    _linalg_solve_ex(A, B, left=left, check_errors=check_errors, out=outs)
    return result, info


linalg_solve_ex = native_function(
    "linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> "
    "(Tensor result, Tensor info)",
    "linalg_solve_ex.out(Tensor A, Tensor B, *, bool left=True, bool check_errors=False, "
    "Tensor(a!) result, Tensor(b!) info) -> (Tensor(a!) result, Tensor(b!) info)",
    kernel=_solve_ex_kernel,
    kernels={"linalg_solve_ex.out": _solve_ex_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_solve_ex.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.solve_ex``: ``linalg.solve`` that returns LAPACK's ``info`` (0, or
    the first zero on ``U``'s diagonal) instead of raising for a singular ``A``.""",
)


_solve_kernel, _solve_out_kernel = _raising(linalg_solve_ex, "vizgrad.linalg.solve")


linalg_solve = native_function(
    "linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor",
    "linalg_solve.out(Tensor A, Tensor B, *, bool left=True, Tensor(a!) out) -> Tensor(a!)",
    kernel=_solve_kernel,
    kernels={"linalg_solve.out": _solve_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_solve.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.solve``: ``X = A⁻¹ B`` without forming ``A⁻¹``: ``A X = B``
    (``X A = B`` for ``left=False``). ``B`` of ``A``'s shape without its last dim is a
    vector (or a batch of them), as in NumPy; batches broadcast.""",
)


def _inv_ex_meta(A: Tensor, *, check_errors=False):
    _square_check_inputs(A, "linalg.inv")
    _check_floating_or_complex(A, "linalg.inv", low_precision=False)
    return [(A._size, A._dtype, matrix_strides(A._size)), (A._size[:-2], int32)]


def _inv_ex_impl(A: Tensor, *, check_errors=False):
    """``linalg_inv_ex``: solve ``A X = I``."""
    lu, pivots, info = _lu_arrays(A._array, True)
    if check_errors:
        _check_errors(info, "linalg.inv_ex", A.dim() == 2)
    identity = np.broadcast_to(np.eye(A._size[-1], dtype=lu.dtype), A._size)
    inverse = _lu_solve_arrays(lu, pivots, identity, True, False)
    return _from_column_major(inverse, A._dtype), _wrap(info, int32)


linalg_inv_ex = native_function(
    "linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)",
    "linalg_inv_ex.inverse(Tensor A, *, bool check_errors=False, Tensor(a!) inverse, "
    "Tensor(b!) info) -> (Tensor(a!) inverse, Tensor(b!) info)",
    **_structured("linalg_inv_ex.inverse", _inv_ex_meta, _inv_ex_impl),
    # d(A⁻¹) = -A⁻¹ dA A⁻¹, so the gradient is -A⁻ᴴ grad A⁻ᴴ.
    derivative=Derivative(
        "LinalgInvExBackward0",
        complex=True,
        save=("inverse",),
        grads={"A": lambda grad, s: -matmul(s.inverse.mH, matmul(grad, s.inverse.mH))},
        differentiable_outputs=(0,),
    ),
    variants="function",
    doc="""``torch.linalg.inv_ex``: the inverse (``A X = I`` solved with the LU factors of
    ``A``) and LAPACK's ``info`` instead of an error for a singular ``A``.""",
)


_inv_kernel, _inv_out_kernel = _raising(linalg_inv_ex, "linalg.inv")


linalg_inv = native_function(
    "linalg_inv(Tensor A) -> Tensor",
    "linalg_inv.out(Tensor A, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_inv_kernel,
    kernels={"linalg_inv.out": _inv_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_inv.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.inv``: the inverse of a square matrix (or of each in a batch);
    a singular matrix raises ``LinAlgError``.""",
)
inverse = native_function(
    "inverse(Tensor self) -> Tensor",
    "inverse.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=lambda self: linalg_inv(self),
    kernels={"inverse.out": lambda self, *, out: linalg_inv(self, out=out)},
    kind=COMPOSITE_IMPLICIT,
    kinds={"inverse.out": COMPOSITE_IMPLICIT},
    doc="``torch.inverse``: ``linalg.inv``.",
)


# --- cholesky, cholesky_solve and cholesky_inverse ------------------------------------------


@dispatch_dtypes("cholesky_cpu", _LAPACK_TYPES)
def _cholesky_into(L: np.ndarray, a: np.ndarray, info: np.ndarray, upper: bool) -> None:
    """``apply_cholesky``: ``potrf`` on each matrix, reading one triangle of it; the
    other triangle of the result is zero. A matrix that is not positive-definite stops
    at the first leading minor that is not: ``info`` says which, and the factor holds
    what was computed until then."""
    (potrf,) = lapack.get_lapack_funcs(("potrf",), (a,))
    for index in _each_matrix(a.shape[:-2]):
        L[index], info[index] = potrf(a[index], lower=not upper, clean=True)


def _cholesky_arrays(A: Tensor, upper: bool):
    n = A._size[-1]
    L = np.zeros((*A._size[:-2], n, n), dtype=A._dtype.numpy).swapaxes(-1, -2)
    info = np.zeros(A._size[:-2], dtype=np.int32)
    if A.numel():
        _cholesky_into(L, A._array, info, upper)
    return L, info


def _cholesky_ex_meta(A: Tensor, *, upper=False, check_errors=False):
    _square_check_inputs(A, "linalg.cholesky")
    _check_floating_or_complex(A, "linalg.cholesky")
    return [(A._size, A._dtype, matrix_strides(A._size)), (A._size[:-2], int32)]


def _cholesky_ex_impl(A: Tensor, *, upper=False, check_errors=False):
    L, info = _cholesky_arrays(A, upper)
    if check_errors:
        _check_errors(info, "linalg.cholesky_ex", A.dim() == 2)
    return _from_column_major(L, A._dtype), _wrap(info, int32)


def cholesky_backward(gL: Tensor, upper: bool, L: Tensor) -> Tensor:
    """``cholesky_backward``: from ``dL = L Φ(L⁻¹ dA L⁻ᴴ)`` (``Φ`` keeps the lower
    triangle and half the diagonal), the gradient ``L⁻ᴴ Φ*(tril(Lᴴ gL)) L⁻¹`` with
    ``Φ*(X) = (X + Xᴴ - diag X) / 2``: symmetric, as ``A`` is."""
    L_ = L.mH if upper else L
    gL_ = gL.mH if upper else gL
    gA = L_.mH.matmul(gL_).tril()
    gA = 0.5 * (gA + gA.tril(-1).mH)
    gA = linalg_solve_triangular(L_.mH, gA, upper=True, left=True)
    return linalg_solve_triangular(L_, gA, upper=False, left=False)


linalg_cholesky_ex = native_function(
    "linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> "
    "(Tensor L, Tensor info)",
    "linalg_cholesky_ex.L(Tensor self, *, bool upper=False, bool check_errors=False, "
    "Tensor(a!) L, Tensor(b!) info) -> (Tensor(a!) L, Tensor(b!) info)",
    **_structured("linalg_cholesky_ex.L", _cholesky_ex_meta, _cholesky_ex_impl),
    derivative=Derivative(
        "LinalgCholeskyExBackward0",
        complex=True,
        save=("L", "upper"),
        grads={"self": lambda grad, s: cholesky_backward(grad, s.upper, s.L)},
        differentiable_outputs=(0,),
    ),
    variants="function",
    doc="""``torch.linalg.cholesky_ex``: ``A = L Lᴴ`` for a Hermitian positive-definite
    ``A`` (``A = Uᴴ U`` with ``upper=True``), with LAPACK's ``info`` (0, or the order of
    the first leading minor that is not positive-definite) instead of an error.""",
)


_cholesky_kernel, _cholesky_out_kernel = _raising(linalg_cholesky_ex, "linalg.cholesky")


linalg_cholesky = native_function(
    "linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor",
    "linalg_cholesky.out(Tensor self, *, bool upper=False, Tensor(a!) out) -> Tensor(a!)",
    kernel=_cholesky_kernel,
    kernels={"linalg_cholesky.out": _cholesky_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_cholesky.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.cholesky``: the lower-triangular ``L`` with ``A = L Lᴴ`` (the
    upper ``U = Lᴴ`` with ``upper=True``); raises ``LinAlgError`` if ``A`` is not
    positive-definite.""",
)

_CHOLESKY_DEPRECATED = (
    "vizgrad.cholesky is deprecated in favor of vizgrad.linalg.cholesky and will be removed in "
    "a future PyTorch release.\nL = vizgrad.cholesky(A)\nshould be replaced with\n"
    "L = vizgrad.linalg.cholesky(A)\nand\nU = vizgrad.cholesky(A, upper=True)\nshould be "
    "replaced with\nU = vizgrad.linalg.cholesky(A).mH\nThis transform will produce "
    "equivalent results for all valid (symmetric positive definite) inputs."
)


def _cholesky_deprecated_kernel(self: Tensor, upper=False) -> Tensor:
    """``torch.cholesky``: the old ``linalg.cholesky``, with its own checks and errors."""
    warn_at_user_code(_CHOLESKY_DEPRECATED)
    if self.numel() == 0:
        return Tensor._new_contiguous(self._size, self._dtype)
    _square_check_inputs(self, "cholesky")
    L, info = _cholesky_arrays(self, upper)
    _check_errors(info, "cholesky", self.dim() == 2)
    return _from_column_major(L, self._dtype)


cholesky = native_function(
    "cholesky(Tensor self, bool upper=False) -> Tensor",
    "cholesky.out(Tensor self, bool upper=False, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_cholesky_deprecated_kernel,
    kernels={
        "cholesky.out": out_wrapper(
            _cholesky_deprecated_kernel, checks=_compatible_out("cholesky"), check_cast=False
        )
    },
    derivative=Derivative(
        "CholeskyBackward0",
        complex=True,
        save=("result", "upper"),
        grads={"self": lambda grad, s: cholesky_backward(grad, s.upper, s.result)},
    ),
    doc="``torch.cholesky`` (deprecated): ``linalg.cholesky``.",
)


@dispatch_dtypes("cholesky_solve_cpu", _LAPACK_TYPES)
def _cholesky_solve_into(x: np.ndarray, b: np.ndarray, L: np.ndarray, upper: bool) -> None:
    """``apply_cholesky_solve``: ``potrs`` solves ``L Lᴴ X = B`` with the factor."""
    (potrs,) = lapack.get_lapack_funcs(("potrs",), (b,))
    b = np.broadcast_to(b, x.shape)
    L = np.broadcast_to(L, x.shape[:-2] + L.shape[-2:])
    for index in _each_matrix(x.shape[:-2]):
        x[index] = potrs(L[index], b[index], lower=not upper)[0]


def cholesky_solve_shape(self: Tensor, input2: Tensor) -> tuple:
    """``cholesky_solve``'s checks and its result's shape (also its meta function's)."""
    if self.dim() < 2:
        raise RuntimeError(
            f"b should have at least 2 dimensions, but has {self.dim()} dimensions instead"
        )
    if input2.dim() < 2:
        raise RuntimeError(
            f"u should have at least 2 dimensions, but has {input2.dim()} dimensions instead"
        )
    _linear_solve_check_inputs(self, input2, "cholesky_solve")
    return (*_broadcast_batch(self, input2), *self._size[-2:])


def _cholesky_solve_kernel(self: Tensor, input2: Tensor, upper=False) -> Tensor:
    result = empty_matrices(cholesky_solve_shape(self, input2), self._dtype)
    if result.numel():
        _cholesky_solve_into(result._array, self._array, input2._array, upper)
    return result


def cholesky_solve_backward(grad: Tensor, s, wanted: str) -> Tensor:
    """``cholesky_solve_backward``: ``X = A⁻¹ B`` with ``A = L Lᴴ``: ``gB = A⁻¹ gX``, and
    ``L``'s gradient is ``-(gB Xᴴ + X gBᴴ) L`` (``-U (…)`` for ``upper``)."""
    grad_self = grad.cholesky_solve(s.input2, s.upper)
    if wanted == "self":
        return grad_self
    common_term = matmul(grad_self, s.result.mH)
    common_term = common_term + common_term.mH
    return -matmul(s.input2, common_term) if s.upper else -matmul(common_term, s.input2)


cholesky_solve = native_function(
    "cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor",
    "cholesky_solve.out(Tensor self, Tensor input2, bool upper=False, *, Tensor(a!) out) -> "
    "Tensor(a!)",
    kernel=_cholesky_solve_kernel,
    kernels={
        "cholesky_solve.out": out_wrapper(
            _cholesky_solve_kernel, checks=_compatible_out("cholesky_solve"), check_cast=False
        )
    },
    derivative=Derivative(
        "CholeskySolveBackward0",
        complex=True,
        save=("self", "input2", "result", "upper"),
        grads={
            "self": lambda grad, s: cholesky_solve_backward(grad, s, "self"),
            "input2": lambda grad, s: cholesky_solve_backward(grad, s, "input2"),
        },
    ),
    doc="""``torch.cholesky_solve``: ``X = A⁻¹ B`` from the Cholesky factor ``L`` of ``A``
    (``A = L Lᴴ``, or ``Uᴴ U`` with ``upper=True``): two triangular solves.""",
)


@dispatch_dtypes("cholesky_inverse_out_cpu", _LAPACK_TYPES)
def _cholesky_inverse_into(result: np.ndarray, L: np.ndarray, info: np.ndarray,
                           upper: bool) -> None:  # fmt: skip
    """``apply_cholesky_inverse``: ``potri`` writes one triangle of ``A⁻¹`` (it is
    Hermitian); the other is its conjugate transpose."""
    (potri,) = lapack.get_lapack_funcs(("potri",), (L,))
    for index in _each_matrix(L.shape[:-2]):
        inverse, info[index] = potri(L[index], lower=not upper)
        triangle = np.triu(inverse) if upper else np.tril(inverse)
        strict = np.triu(inverse, 1) if upper else np.tril(inverse, -1)
        result[index] = triangle + strict.T.conj()


def _cholesky_inverse_kernel(self: Tensor, upper=False) -> Tensor:
    _square_check_inputs(self, "cholesky_inverse")
    result = empty_matrices(self._size, self._dtype)
    info = np.zeros(self._size[:-2], dtype=np.int32)
    if self.numel():
        _cholesky_inverse_into(result._array, self._array, info, upper)
    _check_errors(info, "cholesky_inverse", self.dim() == 2)
    return result


def cholesky_inverse_out(kernel):
    """``cholesky_inverse.out``'s kernel around the functional ``kernel`` (the CPU one, or
    the Meta one)."""

    def out_kernel(self: Tensor, upper=False, *, out: Tensor) -> Tensor:
        _square_check_inputs(self, "cholesky_inverse")
        _compatible_out("cholesky_inverse")(self, out=out)
        result = kernel(self, upper)
        if out.numel() == 0 and out._dtype is self._dtype:
            # PyTorch computes straight into an empty ``out`` of the input's dtype, laid
            # out column-major as LAPACK writes; any other ``out`` gets a copy of the result.
            resize_output(out, result._size)
            out._set_metadata(result._size, result._stride, out._offset)
        return write_to_out(result, out)

    return out_kernel


_cholesky_inverse_out_kernel = cholesky_inverse_out(_cholesky_inverse_kernel)


def cholesky_inverse_backward(grad: Tensor, L: Tensor, upper: bool, inverse: Tensor) -> Tensor:
    """``cholesky_inverse_backward``: ``A⁻¹ = (L Lᴴ)⁻¹``, so ``L``'s gradient is
    ``-A⁻¹ (G + Gᴴ) A⁻¹ L`` (``-U A⁻¹ (G + Gᴴ) A⁻¹`` for ``upper``)."""
    common_term = grad + grad.mH
    common_term = matmul(inverse, matmul(common_term, inverse))
    return -matmul(L, common_term) if upper else -matmul(common_term, L)


cholesky_inverse = native_function(
    "cholesky_inverse(Tensor self, bool upper=False) -> Tensor",
    "cholesky_inverse.out(Tensor self, bool upper=False, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_cholesky_inverse_kernel,
    kernels={"cholesky_inverse.out": _cholesky_inverse_out_kernel},
    derivative=Derivative(
        "CholeskyInverseBackward0",
        complex=True,
        save=("self", "upper", "result"),
        grads={"self": lambda grad, s: cholesky_inverse_backward(grad, s.self, s.upper, s.result)},
    ),  # fmt: skip
    doc="""``torch.cholesky_inverse``: ``A⁻¹`` from the Cholesky factor ``L`` of ``A``
    (``A = L Lᴴ``, or ``Uᴴ U`` with ``upper=True``).""",
)


# --- solve_triangular and triangular_solve --------------------------------------------------


@dispatch_dtypes("triangular_solve_cpu", _LAPACK_TYPES)
def _triangular_solve_into(x: np.ndarray, a: np.ndarray, b: np.ndarray, upper: bool,
                           left: bool, transpose: bool, unitriangular: bool) -> None:  # fmt: skip
    """``apply_triangular_solve``: BLAS's ``trsm`` solves ``op(A) X = B`` (``X op(A) = B``
    for ``left=False``) reading one triangle of ``A``: a zero on its diagonal gives
    infinities, not an error."""
    (trsm,) = blas.get_blas_funcs(("trsm",), (a,))
    a = np.broadcast_to(a, x.shape[:-2] + a.shape[-2:])
    b = np.broadcast_to(b, x.shape)
    for index in _each_matrix(x.shape[:-2]):
        x[index] = trsm(1.0, a[index], b[index], side=0 if left else 1, lower=not upper,
                        trans_a=1 if transpose else 0, diag=unitriangular)  # fmt: skip


def _solve_triangular_meta(self: Tensor, B: Tensor, *, upper, left=True, unitriangular=False):
    _check_inputs_solver(self, B, left, "linalg.solve_triangular")
    shape = (*_broadcast_batch(B, self), *B._size[-2:])
    return shape, self._dtype, matrix_strides(shape)


def _solve_triangular_impl(self: Tensor, B: Tensor, *, upper, left=True, unitriangular=False):
    # The result has ``A``'s dtype: ``B`` is copied into it first, and solved in place.
    shape = (*_broadcast_batch(B, self), *B._size[-2:])
    result = empty_matrices(shape, self._dtype)
    if result.numel():
        b = B._array.astype(self._dtype.numpy, copy=False)
        _triangular_solve_into(result._array, self._array, b, upper, left, False, unitriangular)
    return result


def _check_same_out_dtype(dtypes, out: Tensor) -> None:
    if out._dtype is not dtypes[0]:
        raise RuntimeError(
            f"expected scalar type {dtypes[0].scalar_name} but found {out._dtype.scalar_name}"
        )


def linalg_solve_triangular_backward(grad: Tensor, s, wanted: str) -> Tensor:
    """``linalg_solve_triangular_backward``: as for any solver, ``gB = A⁻ᴴ gX`` and
    ``gA = -gB Xᴴ``; only ``A``'s triangle was read, so only it gets a gradient."""
    G_B = linalg_solve_triangular(s.self.mH, grad, upper=not s.upper, left=s.left,
                                  unitriangular=s.unitriangular)  # fmt: skip
    if wanted == "B":
        return G_B
    X_H = s.result.mH
    G_A = -matmul(G_B, X_H) if s.left else -matmul(X_H, G_B)
    return G_A.triu(int(s.unitriangular)) if s.upper else G_A.tril(-int(s.unitriangular))


linalg_solve_triangular = native_function(
    "linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, "
    "bool unitriangular=False) -> Tensor",
    "linalg_solve_triangular.out(Tensor self, Tensor B, *, bool upper, bool left=True, "
    "bool unitriangular=False, Tensor(a!) out) -> Tensor(a!)",
    **_structured(
        "linalg_solve_triangular.out",
        _solve_triangular_meta,
        _solve_triangular_impl,
        exact_dtype=False,
        check_dtypes=_check_same_out_dtype,
    ),
    derivative=Derivative(
        "LinalgSolveTriangularBackward0",
        complex=True,
        save=("self", "result", "upper", "left", "unitriangular"),
        grads={
            "self": lambda grad, s: linalg_solve_triangular_backward(grad, s, "self"),
            "B": lambda grad, s: linalg_solve_triangular_backward(grad, s, "B"),
        },
    ),
    variants="function",
    doc="""``torch.linalg.solve_triangular``: ``A X = B`` (``X A = B`` for ``left=False``)
    for a triangular ``A``: one substitution, reading only the triangle ``upper`` names
    (and ones on the diagonal with ``unitriangular=True``).""",
)

_TRIANGULAR_SOLVE_DEPRECATED = (
    "vizgrad.triangular_solve is deprecated in favor of vizgrad.linalg.solve_triangularand "
    "will be removed in a future PyTorch release.\nvizgrad.linalg.solve_triangular has its "
    "arguments reversed and does not return a copy of one of the inputs.\n"
    "X = vizgrad.triangular_solve(B, A).solution\nshould be replaced with\n"
    "X = vizgrad.linalg.solve_triangular(A, B)."
)


def _triangular_solve_meta(self: Tensor, A: Tensor, upper=True, transpose=False,
                           unitriangular=False):  # fmt: skip
    if self.dim() < 2:
        raise RuntimeError(
            "vizgrad.triangular_solve: Expected b to have at least 2 dimensions, but it has "
            f"{self.dim()} dimensions instead"
        )
    if A.dim() < 2:
        raise RuntimeError(
            "vizgrad.triangular_solve: Expected A to have at least 2 dimensions, but it has "
            f"{A.dim()} dimensions instead"
        )
    _linear_solve_check_inputs(self, A, "triangular_solve")
    batch = _broadcast_batch(self, A)
    b_shape, A_shape = (*batch, *self._size[-2:]), (*batch, *A._size[-2:])
    return [(b_shape, self._dtype, matrix_strides(b_shape)),
            (A_shape, A._dtype, matrix_strides(A_shape))]  # fmt: skip


def _triangular_solve_impl(self: Tensor, A: Tensor, upper=True, transpose=False,
                           unitriangular=False):  # fmt: skip
    warn_at_user_code(_TRIANGULAR_SOLVE_DEPRECATED)
    (b_shape, *_), (A_shape, *_) = _triangular_solve_meta(self, A)
    solution, cloned = empty_matrices(b_shape, self._dtype), empty_matrices(A_shape, A._dtype)
    cloned._array[...] = A._array
    if solution.numel():
        _triangular_solve_into(solution._array, A._array, self._array, upper, True, transpose,
                               unitriangular)  # fmt: skip
    return solution, cloned


def triangular_solve_backward(grads, s) -> tuple:
    """``triangular_solve_backward``: ``gb = op(A)⁻ᴴ gX`` and ``gA = -gb Xᴴ`` (for
    ``transpose``, ``-X gbᵀ``) on ``A``'s triangle, plus the gradient of the copy of ``A``."""
    grad_x, grad_m = grads
    grad_b = triangular_solve(grad_x, s.A.conj(), s.upper, not s.transpose, s.unitriangular)[0]
    x = s.solution
    grad_a = -x.conj().matmul(grad_b.mT) if s.transpose else -grad_b.matmul(x.mH)
    grad_a = grad_a.triu(int(s.unitriangular)) if s.upper else grad_a.tril(-int(s.unitriangular))
    return grad_b, grad_a + grad_m


triangular_solve = native_function(
    "triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, "
    "bool unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)",
    "triangular_solve.X(Tensor self, Tensor A, bool upper=True, bool transpose=False, "
    "bool unitriangular=False, *, Tensor(a!) X, Tensor(b!) M) -> "
    "(Tensor(a!) solution, Tensor(b!) cloned_coefficient)",
    **_structured("triangular_solve.X", _triangular_solve_meta, _triangular_solve_impl),
    derivative=Derivative(
        "TriangularSolveBackward0",
        complex=True,
        save=("self", "A", "solution", "upper", "transpose", "unitriangular"),
        grads={
            "self": lambda grads, s: triangular_solve_backward(grads, s)[0],
            "A": lambda grads, s: triangular_solve_backward(grads, s)[1],
        },
        multi_output=True,
    ),
    doc="""``torch.triangular_solve`` (deprecated): ``linalg.solve_triangular`` with ``b``
    first, ``A`` upper by default, and a copy of ``A`` returned beside the solution.""",
)

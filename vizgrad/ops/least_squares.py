"""Least squares and the pseudoinverse: ``linalg.lstsq``, ``linalg.pinv``, ``pinverse``, ``linalg.matrix_rank``.

A system ``A X = B`` with more equations than unknowns (``A`` tall) has, in general, no
solution: **least squares** picks the ``X`` that makes ``‖A X - B‖`` smallest. With
fewer equations (``A`` wide) it has many, and picks the one of smallest norm. Both are
``X = A⁺ B``, with ``A⁺`` the **Moore-Penrose pseudoinverse** of ``A``.

* ``linalg.lstsq`` solves with LAPACK, one matrix of the batch at a time, as PyTorch's
  CPU kernel calls it (``BatchLinearAlgebra.cpp``), with one of four drivers:
  ``gels`` (QR; ``A`` must have full rank), ``gelsy`` (QR with column pivoting, the
  default), ``gelsd`` and ``gelss`` (the SVD: they also return the singular values).
  Its gradient goes through ``linalg.pinv``, as PyTorch's does.
* ``linalg.pinv`` computes ``A⁺`` from the SVD ``A = U diag(S) Vᴴ`` as
  ``V diag(1/S) Uᴴ``, where singular values at most ``max(atol, rtol * S.max())`` count
  as zero (from ``linalg.eigh`` for ``hermitian=True``).
* ``linalg.matrix_rank`` counts the singular values above that same tolerance.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import complex64, complex128, float32, float64, int64
from ..promotion import can_cast
from ..shape import broadcast_shapes
from ..tensor import Tensor
from .arithmetic import maximum
from .creation import full, zeros
from .declaration import native_function
from .decompositions import linalg_eigh, linalg_eigvalsh, linalg_svdvals, svd
from .factorizations import _LAPACK_TYPES, _check_is_matrix, _LinAlgError
from .iterator import resize_output
from .linalg import matmul
from .logical import where
from .registry import write_to_out

__all__ = ["pinverse"]


# --- tolerances (LinearAlgebra.cpp) -----------------------------------------------------------


def _epsilon(A: Tensor) -> float:
    """``_get_epsilon``: the machine epsilon of ``A``'s real dtype, which scales the
    default tolerances (only single and double precision have one here)."""
    real = A._dtype.to_real()
    if real not in (float32, float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    return float(np.finfo(real.numpy).eps)


def _check_not_complex(tol: Tensor, fn_name: str, arg_name: str) -> None:
    """``checkNotComplexTolerance``."""
    if tol._dtype.is_complex:
        raise RuntimeError(
            f"{fn_name}: {arg_name} tensor of complex type is not supported. Got "
            f"{tol._dtype.scalar_name}"
        )


def _default_rtol(A: Tensor, atol_given, atol: Tensor) -> Tensor:
    # Made where ``A`` is (``A.options()``), as PyTorch makes them: a meta ``A`` gets meta
    # tolerances.
    default = full((), _epsilon(A) * max(A.size(-1), A.size(-2)), dtype=float64, device=A.device)
    if not atol_given:
        return default
    return where(atol > 0, zeros((), dtype=float64, device=A.device), default)


def _tolerances(A: Tensor, atol, rtol, fn_name: str):
    """``get_atol_rtol`` for tensor tolerances."""
    atol_given = atol is not None
    atol = zeros((), dtype=float64, device=A.device) if atol is None else atol
    _check_not_complex(atol, fn_name, "atol")
    if rtol is None:
        rtol = _default_rtol(A, atol_given, atol)
    else:
        _check_not_complex(rtol, fn_name, "rtol")
    return atol, rtol


def _float_tolerances(A: Tensor, atol, rtol):
    """``get_atol_rtol`` for float tolerances: the same defaults, as double tensors."""
    if rtol is None:
        default = _epsilon(A) * max(A.size(-1), A.size(-2))
        rtol = 0.0 if atol is not None and atol > 0.0 else default
    atol = 0.0 if atol is None else atol
    return (full((), atol, dtype=float64, device=A.device),
            full((), rtol, dtype=float64, device=A.device))  # fmt: skip


# --- pinv --------------------------------------------------------------------------------------


def _pinv_kernel(self: Tensor, *, atol=None, rtol=None, hermitian=False) -> Tensor:
    """``linalg_pinv``: ``V diag(S⁺) Uᴴ``, ``S⁺`` the reciprocals of the singular values
    above ``max(atol, rtol * S.max())`` and 0 for the others; for a Hermitian matrix,
    its eigenvalues (whose absolute values are its singular values) and eigenvectors."""
    if self._dtype not in (float32, float64, complex64, complex128) or self.dim() < 2:
        raise RuntimeError(
            f"linalg.pinv({self._dtype.scalar_name}{{{list(self._size)}}}): expected a tensor "
            "with 2 or more dimensions of float, double, cfloat or cdouble types"
        )
    atol, rtol = _tolerances(self, atol, rtol, "vizgrad.linalg.pinv")
    if self.numel() == 0:
        U, S, V = svd(self)
        return matmul(V * S.reciprocal().unsqueeze(-2), U.mH)
    if not hermitian:
        U, S, V = svd(self)
        largest = S.narrow(-1, 0, 1)  # the singular values decrease
        tol = maximum(atol.unsqueeze(-1), rtol.unsqueeze(-1) * largest)
        S_pinv = where(tol < S, S.reciprocal(), zeros((), dtype=S._dtype)).to(self._dtype)
        return matmul(V * S_pinv.unsqueeze(-2), U.mH)
    L, Q = linalg_eigh(self)
    L_abs = L.abs()
    tol = maximum(atol.unsqueeze(-1), rtol.unsqueeze(-1) * L_abs.amax(-1, True))
    L_pinv = where(L_abs > tol, L.reciprocal(), zeros((), dtype=L._dtype)).to(self._dtype)
    return matmul(Q * L_pinv.unsqueeze(-2), Q.mH)


def pinv_backward(grad: Tensor, pinvA: Tensor, A: Tensor) -> Tensor:
    """``pinv_backward`` (``FunctionsManual.cpp``): the gradient of ``A⁺``, written so
    that the products are of the smaller of ``m × m`` and ``n × n``."""
    m, n = A._size[-2], A._size[-1]
    pinvAh = pinvA.mH
    gradh = grad.mH
    if m <= n:
        K = gradh.matmul(pinvA)
        KpinvAh = K.matmul(pinvAh)
        return (-(pinvA.matmul(K)).mH + KpinvAh - (A.matmul(pinvA)).matmul(KpinvAh)
                + (pinvAh.matmul(pinvA)).matmul(gradh - K.matmul(A)))  # fmt: skip
    K = pinvA.matmul(gradh)
    pinvAhK = pinvAh.matmul(K)
    return (-(K.matmul(pinvA)).mH + (gradh - A.matmul(K)).matmul(pinvA).matmul(pinvAh)
            + pinvAhK - pinvAhK.matmul(pinvA).matmul(A))  # fmt: skip


def _compatible_out(fn_name: str, expected):
    """``checkLinalgCompatibleDtype``: ``out`` may have another dtype the result casts to."""

    def check(out: Tensor, dtype) -> None:
        if not can_cast(dtype, out._dtype):
            raise RuntimeError(
                f"{fn_name}: Expected result to be safely castable from {dtype.scalar_name} "
                f"dtype, but got result with dtype {out._dtype.scalar_name}"
            )

    def wrap(kernel):
        def out_kernel(self: Tensor, *args, out: Tensor, **options) -> Tensor:
            check(out, expected(self))
            return write_to_out(kernel(self, *args, **options), out)

        return out_kernel

    return wrap


_pinv_out = _compatible_out("linalg.pinv", lambda A: A._dtype)


def _pinv_float_kernel(self: Tensor, *, atol=None, rtol=None, hermitian=False) -> Tensor:
    atol, rtol = _float_tolerances(self, atol, rtol)
    return linalg_pinv(self, atol=atol, rtol=rtol, hermitian=hermitian)


def _pinv_rcond_kernel(self: Tensor, rcond, hermitian=False) -> Tensor:
    """``pinv(A, rcond)``: NumPy's spelling, ``rcond`` the relative tolerance."""
    if isinstance(rcond, Tensor):
        _check_not_complex(rcond, "vizgrad.linalg.pinv", "rcond")
        atol = zeros((), dtype=float64, device=self.device)
        return linalg_pinv(self, atol=atol, rtol=rcond, hermitian=hermitian)
    return linalg_pinv(self, atol=0.0, rtol=rcond, hermitian=hermitian)


linalg_pinv = native_function(
    "linalg_pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, "
    "bool hermitian=False) -> Tensor",
    "linalg_pinv.atol_rtol_tensor_out(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, "
    "bool hermitian=False, Tensor(a!) out) -> Tensor(a!)",
    "linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, "
    "bool hermitian=False) -> Tensor",
    "linalg_pinv.atol_rtol_float_out(Tensor self, *, float? atol=None, float? rtol=None, "
    "bool hermitian=False, Tensor(a!) out) -> Tensor(a!)",
    "linalg_pinv(Tensor self, float rcond, bool hermitian=False) -> Tensor",
    "linalg_pinv.rcond_tensor(Tensor self, Tensor rcond, bool hermitian=False) -> Tensor",
    "linalg_pinv.out(Tensor self, float rcond, bool hermitian=False, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    "linalg_pinv.out_rcond_tensor(Tensor self, Tensor rcond, bool hermitian=False, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "linalg_pinv.atol_rtol_tensor": _pinv_kernel,
        "linalg_pinv.atol_rtol_tensor_out": _pinv_out(_pinv_kernel),
        "linalg_pinv.atol_rtol_float": _pinv_float_kernel,
        "linalg_pinv.atol_rtol_float_out": _pinv_out(_pinv_float_kernel),
        "linalg_pinv": _pinv_rcond_kernel,
        "linalg_pinv.rcond_tensor": _pinv_rcond_kernel,
        "linalg_pinv.out": _pinv_out(_pinv_rcond_kernel),
        "linalg_pinv.out_rcond_tensor": _pinv_out(_pinv_rcond_kernel),
    },
    kinds={
        "linalg_pinv.atol_rtol_float": COMPOSITE_IMPLICIT,
        "linalg_pinv.atol_rtol_float_out": COMPOSITE_IMPLICIT,
        "linalg_pinv": COMPOSITE_IMPLICIT,
        "linalg_pinv.rcond_tensor": COMPOSITE_IMPLICIT,
        "linalg_pinv.out": COMPOSITE_IMPLICIT,
        "linalg_pinv.out_rcond_tensor": COMPOSITE_IMPLICIT,
    },
    derivatives={
        "linalg_pinv.atol_rtol_tensor": Derivative(
            "LinalgPinvBackward0",
            complex=True,
            save=("self", "result"),
            grads={"self": lambda grad, s: pinv_backward(grad, s.result, s.self)},
        ),
    },
    variants="function",
    doc="""``torch.linalg.pinv``: the Moore-Penrose pseudoinverse ``A⁺`` (``n × m`` for an
    ``m × n`` ``A``), singular values at most ``max(atol, rtol * S.max())`` counted as
    zero; ``rcond`` is NumPy's name for ``rtol``.""",
)


def _pinverse_kernel(self: Tensor, rcond=1e-15) -> Tensor:
    return linalg_pinv(self, rcond, False)


pinverse = native_function(
    "pinverse(Tensor self, float rcond=1e-15) -> Tensor",
    kernel=_pinverse_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.pinverse``: ``linalg.pinv(A, rcond)``, with NumPy's old default ``1e-15``.",
)


# --- matrix_rank -------------------------------------------------------------------------------


def _matrix_rank(input: Tensor, atol, rtol, hermitian: bool) -> Tensor:
    """``matrix_rank_impl``: how many singular values (absolute eigenvalues) are above
    ``max(atol, rtol * their largest)``."""
    atol, rtol = _tolerances(input, atol, rtol, "vizgrad.linalg.matrix_rank")
    if input.numel() == 0:
        # No element: no row that is not zero, rank 0 (NumPy raises there).
        return zeros(input._size[:-2], dtype=int64)
    if not hermitian:
        S = linalg_svdvals(input)
        largest = S.narrow(-1, 0, 1)
    else:
        S = linalg_eigvalsh(input).abs()
        largest = S.amax(-1, True)
    tol = maximum(atol.unsqueeze(-1), rtol.unsqueeze(-1) * largest)
    return (tol < S).sum(-1)


def _check_rank_input(input: Tensor) -> None:
    _check_is_matrix(input, "vizgrad.linalg.matrix_rank", "input")


def _rank_kernel(input: Tensor, *, atol=None, rtol=None, hermitian=False) -> Tensor:
    _check_rank_input(input)
    return _matrix_rank(input, atol, rtol, hermitian)


def _rank_float_kernel(self: Tensor, *, atol=None, rtol=None, hermitian=False) -> Tensor:
    _check_rank_input(self)
    atol, rtol = _float_tolerances(self, atol, rtol)
    return _matrix_rank(self, atol, rtol, hermitian)


def _rank_tol_kernel(input: Tensor, tol, hermitian=False) -> Tensor:
    """``matrix_rank(A, tol)``: NumPy's ``tol`` is an absolute tolerance (not scaled)."""
    _check_rank_input(input)
    if isinstance(tol, Tensor):
        return _matrix_rank(input, tol, zeros((), dtype=tol._dtype), hermitian)
    return _matrix_rank(input, full((), tol, dtype=float64), zeros((), dtype=float64), hermitian)


def _rank_out(kernel):
    """``linalg_matrix_rank_out``: an integer ``out`` (any dtype ``int64`` casts to)."""

    def out_kernel(input: Tensor, *args, out: Tensor, **options) -> Tensor:
        _check_rank_input(input)
        resize_output(out, input._size[:-2])
        if not can_cast(int64, out._dtype):
            raise RuntimeError(
                "vizgrad.linalg.matrix_rank: Expected result to be safely castable from Long "
                f"dtype, but got result with dtype {out._dtype.scalar_name}"
            )
        return write_to_out(kernel(input, *args, **options), out)

    return out_kernel


linalg_matrix_rank = native_function(
    "linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, "
    "bool hermitian=False) -> Tensor",
    "linalg_matrix_rank.atol_rtol_tensor_out(Tensor input, *, Tensor? atol=None, "
    "Tensor? rtol=None, bool hermitian=False, Tensor(a!) out) -> Tensor(a!)",
    "linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, "
    "bool hermitian=False) -> Tensor",
    "linalg_matrix_rank.atol_rtol_float_out(Tensor self, *, float? atol=None, float? rtol=None, "
    "bool hermitian=False, Tensor(a!) out) -> Tensor(a!)",
    "linalg_matrix_rank(Tensor self, float tol, bool hermitian=False) -> Tensor",
    "linalg_matrix_rank.out(Tensor self, float tol, bool hermitian=False, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    "linalg_matrix_rank.tol_tensor(Tensor input, Tensor tol, bool hermitian=False) -> Tensor",
    "linalg_matrix_rank.out_tol_tensor(Tensor input, Tensor tol, bool hermitian=False, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "linalg_matrix_rank.atol_rtol_tensor": _rank_kernel,
        "linalg_matrix_rank.atol_rtol_tensor_out": _rank_out(_rank_kernel),
        "linalg_matrix_rank.atol_rtol_float": _rank_float_kernel,
        "linalg_matrix_rank.atol_rtol_float_out": _rank_out(_rank_float_kernel),
        "linalg_matrix_rank": _rank_tol_kernel,
        "linalg_matrix_rank.out": _rank_out(_rank_tol_kernel),
        "linalg_matrix_rank.tol_tensor": _rank_tol_kernel,
        "linalg_matrix_rank.out_tol_tensor": _rank_out(_rank_tol_kernel),
    },
    kind=COMPOSITE_IMPLICIT,
    kinds={
        name: COMPOSITE_IMPLICIT
        for name in (
            "linalg_matrix_rank.atol_rtol_tensor_out",
            "linalg_matrix_rank.atol_rtol_float_out",
            "linalg_matrix_rank.out",
            "linalg_matrix_rank.out_tol_tensor",
        )
    },  # fmt: skip
    variants="function",
    doc="""``torch.linalg.matrix_rank``: how many singular values of ``A`` are above
    ``max(atol, rtol * S.max())`` (``int64``; ``tol`` is NumPy's absolute tolerance).""",
)


# --- lstsq -------------------------------------------------------------------------------------

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    """``linalg_solve_is_vector_rhs``: ``B`` is a vector (or a batch of them) when it is
    1-D, or has exactly the shape of ``A`` without its last dim."""
    return B.dim() == 1 or (A.dim() - 1 == B.dim() and B._size == A._size[:-1])


def _lstsq_check_inputs(A: Tensor, B: Tensor) -> bool:
    """``linalg_lstsq_out``'s checks; returns whether ``B`` is a vector."""
    if A.dim() < 2:
        raise RuntimeError("vizgrad.linalg.lstsq: input must have at least 2 dimensions.")
    if B.dim() < 1:
        raise RuntimeError("vizgrad.linalg.lstsq: other must have at least 1 dimension.")
    if A._dtype is not B._dtype:
        raise RuntimeError(
            "vizgrad.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {A._dtype.scalar_name} and other's dtype {B._dtype.scalar_name}"
        )
    if not 0 <= A.dim() - B.dim() <= 1:
        raise RuntimeError(
            "vizgrad.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1"
        )
    vector_case = _is_vector_rhs(A, B)
    rows = B._size[-1] if vector_case else B._size[-2]
    if A._size[-2] != rows:
        raise RuntimeError(
            "vizgrad.linalg.lstsq: input.size(-2) should match other.size("
            f"{-1 if vector_case else -2})"
        )
    return vector_case


def _driver_name(driver) -> str:
    """``get_default_lstsq_driver``: any case; ``gelsy`` when none is named (on the CPU)."""
    if driver is None:
        return "gelsy"
    name = driver.lower()
    if name not in _DRIVERS:
        raise RuntimeError(
            "vizgrad.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    return name


def _lwork(routine, *args) -> int:
    """LAPACK's workspace query: the optimal size of ``work`` (and ``rwork``, ``iwork``)."""
    *sizes, info = routine(*args)
    sizes = [max(1, int(np.real(s))) for s in sizes]
    return sizes[0] if len(sizes) == 1 else tuple(sizes)


def _solve_one(driver: str, a: np.ndarray, b: np.ndarray, rcond: float):
    """One LAPACK least-squares call: ``b`` (``max(m, n) × nrhs``) holds ``B`` in its
    first ``m`` rows; returns the overwritten ``b``, the rank, the singular values (or
    None) and ``info``."""
    m, n = a.shape
    nrhs = b.shape[1]
    complex_ = a.dtype.kind == "c"
    routine, lwork_query = lapack.get_lapack_funcs((driver, f"{driver}_lwork"), (a,))
    if driver == "gels":
        lwork = _lwork(lwork_query, m, n, nrhs)
        _, x, info = routine(a, b, lwork=lwork)
        return x, None, None, info
    if driver == "gelsy":
        lwork = _lwork(lwork_query, m, n, nrhs, rcond)
        jpvt = np.zeros((n, 1), dtype=np.int32)
        _, x, _, rank, info = routine(a, b, jpvt, rcond, lwork)
        return x, rank, None, info
    if driver == "gelss":
        lwork = _lwork(lwork_query, m, n, nrhs, rcond)
        _, x, s, rank, _, info = routine(a, b, rcond, lwork)
        return x, rank, s, info
    if complex_:
        lwork, rwork, iwork = _lwork(lwork_query, m, n, nrhs, rcond)
        x, s, rank, info = routine(a, b, lwork, rwork, iwork, rcond)
    else:
        lwork, iwork = _lwork(lwork_query, m, n, nrhs, rcond)
        x, s, rank, info = routine(a, b, lwork, iwork, rcond)
    return x, rank, s, info


def _lstsq_compute(A: Tensor, B: Tensor, rcond, driver: str, vector_case: bool):
    """``linalg_lstsq_out_info``: the solution buffer (``max(m, n)`` rows: LAPACK writes
    the residuals' raw data below the solution), the rank, the singular values, whether
    the residuals are defined, and LAPACK's ``info`` per matrix of ``A``."""
    B2 = B.unsqueeze(-1) if vector_case else B
    m, n = A._size[-2:]
    nrhs = B2._size[-1]
    a_batch = A._size[:-2]
    # (``broadcast_batch_size``: B's batch is its first ``A.dim() - 2`` dims.)
    batch = broadcast_shapes(a_batch, B2._size[: A.dim() - 2])
    rows = max(m, n)
    dtype = A._dtype
    if dtype.name not in _LAPACK_TYPES:
        raise NotImplementedError(f"\"linalg_lstsq_cpu\" not implemented for '{dtype.scalar_name}'")
    buffer = np.zeros((*batch, nrhs, rows), dtype=dtype.numpy).swapaxes(-1, -2)
    buffer[..., :m, :] = np.broadcast_to(B2._array, (*batch, m, nrhs))
    rank = np.zeros(a_batch, dtype=np.int64)
    singular_values = np.zeros((*a_batch, min(m, n)), dtype=dtype.to_real().numpy)
    info = np.zeros(a_batch, dtype=np.int32)
    if driver == "gels" and not (m and n):
        buffer[...] = 0  # (gels's quick return zeroes B)
    # LAPACK's quick returns: nothing to do (rank 0) without rows or columns, or for
    # gelsy without a right-hand side.
    if m and n and (nrhs or driver != "gelsy"):
        a_full = np.broadcast_to(A._array, (*batch, m, n))
        # Which matrix of A's batch each matrix of the broadcast batch reads.
        a_index = np.broadcast_to(np.arange(int(np.prod(a_batch))).reshape(a_batch), batch)
        for index in np.ndindex(*batch):
            a = np.asfortranarray(a_full[index])
            # LAPACK wants a right-hand side: none (nrhs == 0) is one column of zeros.
            b = np.asfortranarray(buffer[index] if nrhs else np.zeros((rows, 1), dtype.numpy))
            x, r, s, code = _solve_one(driver, a, b, rcond)
            if nrhs:
                buffer[index] = x
            at = np.unravel_index(a_index[index], a_batch) if a_batch else ()
            if r is not None:
                rank[at] = r
            if s is not None:
                singular_values[at] = s[: min(m, n)]
            if code > 0:
                info[at] = code
    residuals_defined = m > n and driver != "gelsy"
    if residuals_defined and driver in ("gelsd", "gelss"):
        # Only where A has full column rank (for a batch, every matrix of it).
        residuals_defined = bool(np.all(rank == n))
    return buffer, rank, singular_values, residuals_defined, info


def _check_lstsq_errors(info: np.ndarray) -> None:
    """``_linalg_check_errors`` for lstsq: ``gels`` needs ``A`` of full rank."""
    failed = np.flatnonzero(info)
    if failed.size == 0:
        return
    code = int(info.reshape(-1)[failed[0]])
    batch = "" if info.size <= 1 else f": (Batch element {failed[0]})"
    raise _LinAlgError(
        f"vizgrad.linalg.lstsq{batch}: The least squares solution could not be computed "
        f"because the input matrix does not have full rank (error code: {code})."
    )


def _lstsq_results(A: Tensor, B: Tensor, rcond, driver):
    """The four results as new tensors in PyTorch's layout, and the solution's buffer."""
    vector_case = _lstsq_check_inputs(A, B)
    driver = _driver_name(driver)
    if rcond is None:
        rcond = _epsilon(A) * max(A._size[-2], A._size[-1])
    buffer, rank, singular_values, residuals_defined, info = _lstsq_compute(
        A, B, rcond, driver, vector_case
    )
    m, n = A._size[-2:]
    dtype, real = A._dtype, A._dtype.to_real()
    # The solution is the first n rows of the column-major buffer LAPACK wrote (for a
    # vector B, of a row-major batch of vectors).
    if vector_case:
        solution_buffer = Tensor._new_contiguous(buffer.shape[:-1], dtype)
        solution_buffer._array[...] = buffer[..., 0]
        solution = solution_buffer.narrow(-1, 0, n)
    else:
        *batch, rows, nrhs = buffer.shape
        solution_buffer = Tensor._new_contiguous((*batch, nrhs, rows), dtype)
        solution_buffer._array[...] = np.swapaxes(buffer, -1, -2)
        solution = solution_buffer.transpose(-2, -1).narrow(-2, 0, n)
    if residuals_defined:
        raw = buffer[..., n:m, :]
        residuals = _wrap((raw * raw.conj()).real.sum(axis=-2), real)
    else:
        residuals = Tensor._new_contiguous((0,), real)
    rank_tensor = (_wrap(rank, int64) if driver != "gels"
                   else Tensor._new_contiguous((0,), int64))  # fmt: skip
    sv_tensor = (_wrap(singular_values, real) if driver in ("gelsd", "gelss")
                 else Tensor._new_contiguous((0,), real))  # fmt: skip
    return (solution, residuals, rank_tensor, sv_tensor), info, driver, residuals_defined


def _wrap(array: np.ndarray, dtype) -> Tensor:
    return Tensor._from_array(np.array(array, dtype=dtype.numpy, order="C"), dtype)


def _lstsq_kernel(self: Tensor, b: Tensor, rcond=None, *, driver=None):
    results, info, _, _ = _lstsq_results(self, b, rcond, driver)
    _check_lstsq_errors(info)
    return results


def _lstsq_out_kernel(self: Tensor, b: Tensor, rcond=None, *, driver=None, solution,
                      residuals, rank, singular_values):  # fmt: skip
    """``linalg_lstsq.out``: each output may have any dtype its result casts to. With the
    exact dtypes and an empty ``solution``, LAPACK writes into the outputs directly (the
    solution is then a view of the first ``n`` rows of its buffer, and the outputs the
    driver does not compute are left as they are); else each is resized and copied into."""
    _lstsq_check_inputs(self, b)
    real = self._dtype.to_real()
    # (PyTorch names ``residuals`` "solution" in its message.)
    for out, source, name in ((solution, self._dtype, "solution"), (residuals, real, "solution"),
                              (rank, int64, "rank"), (singular_values, real, "singular_values")):  # fmt: skip
        if not can_cast(source, out._dtype):
            raise RuntimeError(
                f"vizgrad.linalg.lstsq: Expected {name} to be safely castable from "
                f"{source.scalar_name} dtype, but got {name} with dtype {out._dtype.scalar_name}"
            )
    (X, L, R, S), info, driver, residuals_defined = _lstsq_results(self, b, rcond, driver)
    direct = (solution._dtype is self._dtype
              and (driver == "gels" or rank._dtype is int64)
              and (driver not in ("gelsd", "gelss") or singular_values._dtype is real))  # fmt: skip
    direct = direct and _fits(rank, R) and _fits(singular_values, S)
    # LAPACK writes straight into an empty solution (a given one is resized and copied into).
    direct = direct and solution.numel() == 0
    if direct:
        # The output becomes LAPACK's buffer, seen as its first n rows.
        solution.resize_(X._storage.nbytes() // X._dtype.itemsize)
        solution._set_metadata(X._size, X._stride, 0)
        solution._array[...] = X._array
        if residuals_defined:
            write_to_out(L, residuals)
        if driver != "gels":
            write_to_out(R, rank)
        if driver in ("gelsd", "gelss"):
            write_to_out(S, singular_values)
    else:
        for result, out in ((X, solution), (L, residuals), (R, rank), (S, singular_values)):
            write_to_out(result, out, check_cast=False)
    _check_lstsq_errors(info)
    return solution, residuals, rank, singular_values


def _fits(out: Tensor, result: Tensor) -> bool:
    """An output PyTorch's kernel writes as it is: empty, or of the result's shape and
    contiguous."""
    return out.numel() == 0 or (out._size == result._size and out.is_contiguous())


def _lstsq_grads(grads, s):
    """``linalg_lstsq_backward``: ``X = A⁺ B``, so ``B``'s gradient is ``A⁺ᴴ gX`` and
    ``A``'s goes through ``pinv_backward``; the residuals ``‖A X - B‖²`` (defined when
    they were computed) add ``2 (A X - B) gL Xᴴ`` and ``-2 (A X - B) gL``."""
    cached = s.__dict__.get("_lstsq_grads")
    if cached is not None:
        return cached
    gX, gL = grads[0], grads[1]
    A, B, X = s.self, s.b, s.solution
    vector_case = _is_vector_rhs(A, B)
    if vector_case:
        gX, B, X = gX.unsqueeze(-1), B.unsqueeze(-1), X.unsqueeze(-1)
    pinvA = linalg_pinv(A)
    A_grad = pinv_backward(gX.matmul(B.mH), pinvA, A)
    B_grad = pinvA.mH.matmul(gX)
    if gL is not None and gL.numel() and (gL.requires_grad or gL._array.any()):
        residual = A.matmul(X) - B
        weighted = residual * gL.unsqueeze(-2)
        A_grad = A_grad + 2 * weighted.matmul(X.mH)
        B_grad = B_grad - 2 * weighted
    if vector_case:
        B_grad = B_grad.squeeze(-1)
    s._lstsq_grads = (A_grad, B_grad)
    return A_grad, B_grad


linalg_lstsq = native_function(
    "linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None) -> "
    "(Tensor solution, Tensor residuals, Tensor rank, Tensor singular_values)",
    "linalg_lstsq.out(Tensor self, Tensor b, float? rcond=None, *, str? driver=None, "
    "Tensor(a!) solution, Tensor(b!) residuals, Tensor(c!) rank, Tensor(d!) singular_values) -> "
    "(Tensor(a!) solution, Tensor(b!) residuals, Tensor(c!) rank, Tensor(d!) singular_values)",
    kernel=_lstsq_kernel,
    kernels={"linalg_lstsq.out": _lstsq_out_kernel},
    derivative=Derivative(
        "LinalgLstsqBackward0",
        complex=True,
        save=("self", "b", "solution"),
        grads={
            "self": lambda grads, s: _lstsq_grads(grads, s)[0],
            "b": lambda grads, s: _lstsq_grads(grads, s)[1],
        },
        differentiable_outputs=(0, 1),
        multi_output=True,
    ),
    variants="function",
    doc="""``torch.linalg.lstsq``: the ``X`` that minimises ``‖A X - B‖`` (of least norm
    when there are many), by LAPACK's ``driver`` (``gelsy`` by default; ``gels`` needs
    full rank). Returns ``(solution, residuals, rank, singular_values)``: the squared
    residuals only for a tall ``A`` of full rank (not with ``gelsy``), the rank only from
    ``gelsy``/``gelsd``/``gelss``, the singular values only from ``gelsd``/``gelss``
    (else empty tensors).""",
)

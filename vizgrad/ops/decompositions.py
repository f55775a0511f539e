"""Matrix decompositions: ``svd``, ``eigh``, ``eig`` and ``qr`` (``BatchLinearAlgebra.cpp``).

Each writes a matrix (or a batch of them) as a product of simpler ones, computed by
LAPACK one matrix of the batch at a time, as PyTorch's CPU kernels call it:

* the **singular value decomposition** ``A = U diag(S) Vᴴ`` (``gesdd``): ``U`` and ``V``
  have orthonormal columns, ``S ≥ 0`` is sorted in decreasing order;
* the **eigendecomposition of a Hermitian matrix** ``A = Q diag(L) Qᴴ`` (``syevd`` /
  ``heevd``), reading one triangle of ``A``: real eigenvalues in increasing order;
* the **eigendecomposition of any square matrix** ``A = V diag(L) V⁻¹`` (``geev``): the
  eigenvalues and eigenvectors are complex, even for a real ``A``;
* the **QR decomposition** ``A = Q R`` (``geqrf`` then ``orgqr``/``ungqr``): ``Q`` with
  orthonormal columns, ``R`` upper triangular.

As in PyTorch, the user-facing names are thin layers over a few operators that keep
what their backward needs: ``linalg.svd`` and ``linalg.svdvals`` are ``_linalg_svd``,
``linalg.eigh`` and ``linalg.eigvalsh`` are ``_linalg_eigh``. ``linalg.svdvals`` and
``linalg.eigvalsh`` compute the vectors anyway when the input requires grad: their
gradient needs them.

The vectors are not unique: each singular vector (eigenvector) may be multiplied by
``-1`` (by any ``e^{iφ}`` for complex ones). A loss that depends on that choice has no
gradient; for complex inputs the backward checks it and says so, as PyTorch does.

Results come back in PyTorch's layout: the matrices LAPACK writes are column-major
matrices in a row-major batch (``factorizations.matrix_strides``).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT, NONDIFFERENTIABLE
from ..dtypes import FLOATING
from ..grad_mode import is_grad_enabled
from ..meta_device import empty_meta
from ..shape import contiguous_strides
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .declaration import native_function
from .factorizations import (
    _LAPACK_TYPES,
    _check_floating_or_complex,
    _check_is_matrix,
    _each_matrix,
    _LinAlgError,
    _square_check_inputs,
    _structured,
    empty_matrices,
    linalg_solve,
    linalg_solve_triangular,
    matrix_strides,
)
from .iterator import dispatch_dtypes, resize_output
from .joining import cat
from .linalg import matmul
from .ranges import eye
from .registry import write_to_out

__all__ = ["svd", "qr", "_linalg_svd", "_linalg_eigh"]


# --- shared steps -------------------------------------------------------------------------------


def _check_errors(info: np.ndarray, api_name: str, is_matrix: bool) -> None:
    """``_linalg_check_errors`` for the decompositions: the first matrix of the batch
    whose ``info`` is not 0, in the words of the operation."""
    failed = np.flatnonzero(info)
    if failed.size == 0:
        return
    code = int(info.reshape(-1)[failed[0]])
    batch = "" if is_matrix else f": (Batch element {failed[0]})"
    if code < 0 and "svd" in api_name:
        # LAPACK 3.10+ (``gesdd``) says -4 for an input with infinities or NaNs.
        raise _LinAlgError(
            f"{api_name}{batch}: The algorithm failed to converge because the input matrix "
            "contained non-finite values."
        )
    what = "singular values" if "svd" in api_name else "eigenvalues"
    raise _LinAlgError(
        f"{api_name}{batch}: The algorithm failed to converge because the input matrix is "
        f"ill-conditioned or has too many repeated {what} (error code: {code})."
    )


def _may_require_grad(A: Tensor) -> bool:
    """``_may_require_fw_or_bw_grad``: the backward will need more than the values."""
    return is_grad_enabled() and A.requires_grad


def _given(grad):
    """An output's gradient, or None when it got none.

    PyTorch passes an undefined tensor for an output the loss did not use, and the
    formulas take a shorter path then (``svdvals``'s gradient needs no division by the
    gaps between singular values, which are 0 for repeated ones). vizgrad's engine
    gives such an output zeros: a gradient that is exactly zero (and is not itself
    being differentiated) is read as "none", which gives the same values. A meta
    gradient has no values to read: it is taken as given (the result's metadata is
    the same either way)."""
    if grad is None:
        return None
    if not grad.is_meta and not grad.requires_grad and not grad._array.any():
        return None
    return grad


def _zeros(shape, like: Tensor) -> Tensor:
    """The gradient when no output got one (PyTorch's undefined gradient, read as zeros)."""
    return like.new_zeros(tuple(shape))


def _gaps(values: Tensor) -> Tensor:
    """``E[j, k] = values[k] - values[j]``, with ones on the diagonal (so that the
    formulas can divide by it: their numerators are zero there)."""
    n = values._size[-1]
    return (
        values.unsqueeze(-2)
        - values.unsqueeze(-1)
        + eye(n, dtype=values.dtype, device=values.device)
    )


def _without_diagonal(X: Tensor) -> Tensor:
    return X - X.diagonal(0, -2, -1).diag_embed()


def _check_gauge(imaginary: np.ndarray, expected: np.ndarray, message: str) -> None:
    """The loss may not depend on the phase ``e^{iφ}`` of complex singular vectors or
    eigenvectors: the imaginary part of the diagonal of ``Vᴴ gV`` (and ``Uᴴ gU``) must
    vanish. Tolerances are lax, as PyTorch's, to avoid false alarms."""
    if not np.allclose(imaginary, expected, rtol=1e-2, atol=1e-2):
        raise RuntimeError(message)


# --- svd, svdvals -------------------------------------------------------------------------------


@dispatch_dtypes("linalg_svd_cpu", _LAPACK_TYPES)
def _svd_into(S: np.ndarray, a: np.ndarray, U, Vh, info: np.ndarray, full_matrices: bool,
              compute_uv: bool) -> None:  # fmt: skip
    """``apply_svd``: ``gesdd`` on each matrix (divide and conquer, PyTorch's default)."""
    (gesdd,) = lapack.get_lapack_funcs(("gesdd",), (a,))
    for index in _each_matrix(a.shape[:-2]):
        # (LAPACK 3.10+ reports a NaN in the input with info = -4.)
        u, s, vt, info[index] = gesdd(a[index], compute_uv=int(compute_uv),
                                      full_matrices=int(full_matrices))  # fmt: skip
        S[index] = s
        if compute_uv:
            U[index] = u
            Vh[index] = vt


def _svd_meta(A: Tensor, full_matrices=False, compute_uv=True, *, driver=None):
    _check_is_matrix(A, "linalg.svd")
    _check_floating_or_complex(A, "linalg.svd")
    *batch, m, n = A._size
    k = min(m, n)
    dtype = A._dtype
    S = ((*batch, k), dtype.to_real())
    if not compute_uv:
        return [((0,), dtype), S, ((0,), dtype)]
    U_shape = (*batch, m, m if full_matrices else k)
    Vh_shape = (*batch, n if full_matrices else k, n)
    return [(U_shape, dtype, matrix_strides(U_shape)), S,
            (Vh_shape, dtype, matrix_strides(Vh_shape))]  # fmt: skip


def _svd_impl(A: Tensor, full_matrices=False, compute_uv=True, *, driver=None):
    (U_shape, *_), (S_shape, S_dtype), (Vh_shape, *_) = _svd_meta(A, full_matrices, compute_uv)
    dtype = A._dtype
    U = empty_matrices(U_shape, dtype)
    S = Tensor._new_contiguous(S_shape, S_dtype)
    Vh = empty_matrices(Vh_shape, dtype)
    if A.numel() == 0:
        # An empty matrix's SVD: with full_matrices, U (m × m) or Vh (n × n) may still
        # have elements, and the identity is a valid choice.
        if compute_uv and full_matrices:
            for T in (U, Vh):
                T._array[...] = np.eye(*T._size[-2:], dtype=dtype.numpy)
        return U, S, Vh
    if driver is not None:
        raise RuntimeError(
            "vizgrad.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
            "with cuSOLVER backend."
        )
    info = np.zeros(A._size[:-2], dtype=np.int32)
    _svd_into(S._array, A._array, U._array, Vh._array, info, full_matrices, compute_uv)
    _check_errors(info, "linalg.svd", A.dim() == 2)
    return U, S, Vh


def svd_backward(gU, gS, gVh, U: Tensor, S: Tensor, Vh: Tensor):
    """``svd_backward`` (``FunctionsManual.cpp``): the gradient of ``A = U diag(S) Vᴴ``
    for ``U`` (``m × k``), ``Vh`` (``k × n``), ``k = min(m, n)``. With
    ``skew(X) = X - Xᴴ`` and ``E[j, k] = S[k]² - S[j]²``::

        gA = U [ (skew(Uᴴ gU) / E) S + S (skew(Vᴴ gV) / E) + diag(gS) ] Vᴴ

    plus, for a tall (wide) ``A``, the part of ``gU`` (``gV``) outside the span of
    ``U`` (``V``), and for a complex ``A`` the diagonal ``Im(diag(Uᴴ gU)) / S``. It
    assumes distinct singular values (``E`` divides by their gaps).
    """
    gU, gS, gVh = _given(gU), _given(gS), _given(gVh)
    m, n = U._size[-2], Vh._size[-1]
    if gU is None and gS is None and gVh is None:
        return _zeros((*U._size[:-1], n), U)
    if gU is None and gVh is None:  # svdvals: gA = U diag(gS) Vh
        return matmul(U, gS.unsqueeze(-1) * Vh) if m >= n else matmul(U * gS.unsqueeze(-2), Vh)
    is_complex = U.is_complex()
    UhgU = _skew(matmul(U.mH, gU)) if gU is not None else None
    VhgV = _skew(matmul(Vh, gVh.mH)) if gVh is not None else None
    if is_complex and not U.is_meta:  # (meta tensors have no values to check: PyTorch skips)
        _check_gauge(_imaginary_diagonal(UhgU, S), -_imaginary_diagonal(VhgV, S), _SVD_GAUGE)
    E = _gaps(S * S)
    if gU is not None and gVh is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif gU is not None:
        gA = (UhgU / E) * S.unsqueeze(-2)
    else:
        gA = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + gS.diag_embed()
    if is_complex and gU is not None and gVh is not None:
        gA = gA + (UhgU.diagonal(0, -2, -1) / (2.0 * S)).diag_embed()
    if m > n and gU is not None:
        # gA = [U gA + (I - U Uᴴ) gU S⁻¹] Vᴴ
        gA = matmul(U, gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - matmul(U, matmul(U.mH, gUSinv))
        return matmul(gA, Vh)
    if m < n and gVh is not None:
        # gA = U [gA Vᴴ + S⁻¹ gVᴴ (I - V Vᴴ)]
        gA = matmul(gA, Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - matmul(matmul(SinvgVh, Vh.mH), Vh)
        return matmul(U, gA)
    return matmul(U, matmul(gA, Vh)) if m >= n else matmul(matmul(U, gA), Vh)


_SVD_GAUGE = (
    "svd_backward: The singular vectors in the complex case are specified up to multiplication "
    "by e^{i phi}. The specified loss function depends on this phase term, making it "
    "ill-defined."
)


def _skew(X: Tensor) -> Tensor:
    return X - X.mH


def _imaginary_diagonal(X, like: Tensor) -> np.ndarray:
    """``Im(diag(X))`` as values to check (zeros where the output got no gradient)."""
    if X is None:
        return np.zeros(like._size, dtype=like._dtype.to_real().numpy)
    return np.imag(np.diagonal(X._resolved_array(), 0, -2, -1))


def _linalg_svd_backward(grads, s):
    """``derivatives.yaml``: with ``full_matrices``, only the first ``k`` columns of
    ``U`` (rows of ``Vh``) take part; the others are any completion to a basis."""
    gU, gS, gVh = grads
    U, S, Vh = s.U, s.S, s.Vh
    if s.full_matrices:
        k = S._size[-1]
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        gU = gU.narrow(-1, 0, k) if gU is not None else None
        gVh = gVh.narrow(-2, 0, k) if gVh is not None else None
    return svd_backward(gU, gS, gVh, U, S, Vh)


_linalg_svd = native_function(
    "_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, "
    "str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)",
    "_linalg_svd.U(Tensor A, bool full_matrices=False, bool compute_uv=True, *, "
    "str? driver=None, Tensor(a!) U, Tensor(b!) S, Tensor(c!) Vh) -> "
    "(Tensor(a!) U, Tensor(b!) S, Tensor(c!) Vh)",
    **_structured("_linalg_svd.U", _svd_meta, _svd_impl),
    derivative=Derivative(
        "LinalgSvdBackward0",
        complex=True,
        save=("full_matrices", "U", "S", "Vh"),
        grads={"A": _linalg_svd_backward},
        multi_output=True,
    ),
    variants="function",
    doc="""``torch._linalg_svd``: the SVD behind ``linalg.svd`` and ``linalg.svdvals``;
    ``U`` and ``Vh`` are empty ``(0,)`` tensors without ``compute_uv``.""",
)


def _linalg_svd_kernel(A: Tensor, full_matrices=True, *, driver=None):
    return tuple(_linalg_svd(A, full_matrices, True, driver=driver))


def _linalg_svd_out_kernel(A: Tensor, full_matrices=True, *, driver=None, U, S, Vh):
    return tuple(_linalg_svd(A, full_matrices, True, driver=driver, out=(U, S, Vh)))


linalg_svd = native_function(
    "linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> "
    "(Tensor U, Tensor S, Tensor Vh)",
    "linalg_svd.U(Tensor A, bool full_matrices=True, *, str? driver=None, Tensor(a!) U, "
    "Tensor(b!) S, Tensor(c!) Vh) -> (Tensor(a!) U, Tensor(b!) S, Tensor(c!) Vh)",
    kernel=_linalg_svd_kernel,
    kernels={"linalg_svd.U": _linalg_svd_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_svd.U": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.svd``: ``A = U diag(S) Vh``, ``S`` real and decreasing; ``U`` is
    ``m × m`` and ``Vh`` ``n × n`` with ``full_matrices`` (the default), else ``m × k``
    and ``k × n``, ``k = min(m, n)``. ``driver=`` is for CUDA only.""",
)


def _svdvals_kernel(A: Tensor, *, driver=None) -> Tensor:
    # The gradient needs U and Vh: compute them when it may be asked for.
    return _linalg_svd(A, False, _may_require_grad(A), driver=driver)[1]


def _svdvals_out_kernel(A: Tensor, *, driver=None, out: Tensor) -> Tensor:
    U, Vh = Tensor._new_contiguous((0,), A._dtype), Tensor._new_contiguous((0,), A._dtype)
    _linalg_svd(A, False, False, driver=driver, out=(U, out, Vh))
    return out


linalg_svdvals = native_function(
    "linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor",
    "linalg_svdvals.out(Tensor A, *, str? driver=None, Tensor(a!) out) -> Tensor(a!)",
    kernel=_svdvals_kernel,
    kernels={"linalg_svdvals.out": _svdvals_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_svdvals.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.svdvals``: the singular values of ``A``, real and decreasing
    (``linalg.svd``'s ``S``, without the vectors unless a gradient will need them).""",
)


def _svd_deprecated_kernel(self: Tensor, some=True, compute_uv=True):
    """``torch.svd``: ``linalg.svd`` with ``some`` for ``not full_matrices``, returning
    ``V = Vhᴴ`` (a transposed, for complex inputs conjugate, view)."""
    if self.dim() < 2:
        raise RuntimeError(
            f"linalg.svd: input should have at least 2 dimensions, but has {self.dim()} "
            "dimensions instead"
        )
    if compute_uv:
        U, S, Vh = linalg_svd(self, full_matrices=not some)
    else:
        # Without the vectors, U and V are zeros of the full shapes (m × m, n × n).
        S = linalg_svdvals(self)
        *batch, m, n = self._size
        U = Tensor._new_contiguous((*batch, m, m), self._dtype)
        Vh = Tensor._new_contiguous((*batch, n, n), self._dtype)
        U._array[...] = 0
        Vh._array[...] = 0
    return U, S, Vh.mH


def _svd_deprecated_out_kernel(self: Tensor, some=True, compute_uv=True, *, U, S, V):
    if compute_uv:
        # linalg.svd writes Vh; V is its conjugate transpose, written in the same memory.
        if V.dim() >= 2:
            V.transpose_(-2, -1)
        linalg_svd(self, full_matrices=not some, out=(U, S, V))
        V.transpose_(-2, -1)
        if V.is_complex():
            V.conj_physical_()
        return U, S, V
    for out in (U, V):
        if out._dtype is not self._dtype:
            raise RuntimeError(
                f"vizgrad.svd: Expected out tensor to have dtype {self._dtype.scalar_name} but "
                f"got {out._dtype.scalar_name} instead"
            )
    linalg_svdvals(self, out=S)
    *batch, m, n = self._size
    resize_output(U, (*batch, m, m))
    U.zero_()
    resize_output(V, (*batch, n, n))
    V.zero_()
    return U, S, V


svd = native_function(
    "svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)",
    "svd.U(Tensor self, bool some=True, bool compute_uv=True, *, Tensor(a!) U, Tensor(b!) S, "
    "Tensor(c!) V) -> (Tensor(a!) U, Tensor(b!) S, Tensor(c!) V)",
    kernel=_svd_deprecated_kernel,
    kernels={"svd.U": _svd_deprecated_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"svd.U": COMPOSITE_IMPLICIT},
    doc="""``torch.svd`` (deprecated): ``A = U diag(S) Vᴴ``, returning ``V`` (not ``Vh``);
    ``some=True`` gives the reduced ``U`` and ``V``.""",
)


# --- eigh, eigvalsh -----------------------------------------------------------------------------


def _check_uplo(UPLO: str) -> None:
    """``checkUplo``: one letter, ``L`` or ``U`` (either case)."""
    if len(UPLO) != 1 or UPLO.upper() not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


@dispatch_dtypes("linalg_eigh_cpu", _LAPACK_TYPES)
def _eigh_into(L: np.ndarray, a: np.ndarray, V, info: np.ndarray, upper: bool,
               compute_v: bool) -> None:  # fmt: skip
    """``apply_lapack_eigh``: ``syevd`` (``heevd``) on each matrix, reading the triangle
    ``UPLO`` names; the eigenvalues come in increasing order."""
    name = "heevd" if a.dtype.kind == "c" else "syevd"
    (syevd,) = lapack.get_lapack_funcs((name,), (a,))
    for index in _each_matrix(a.shape[:-2]):
        w, v, info[index] = syevd(a[index], compute_v=int(compute_v), lower=int(not upper))
        L[index] = w
        if compute_v:
            V[index] = v


def _eigh_meta(A: Tensor, UPLO="L", compute_v=True):
    _square_check_inputs(A, "linalg.eigh")
    _check_uplo(UPLO)
    L = (A._size[:-1], A._dtype.to_real())
    V = (A._size, A._dtype, matrix_strides(A._size)) if compute_v else ((0,), A._dtype)
    return [L, V]


def _eigh_impl(A: Tensor, UPLO="L", compute_v=True):
    L = Tensor._new_contiguous(A._size[:-1], A._dtype.to_real())
    V = empty_matrices(A._size if compute_v else (0,), A._dtype)
    if A.numel() == 0:
        return L, V
    info = np.zeros(A._size[:-2], dtype=np.int32)
    _eigh_into(L._array, A._array, V._array, info, UPLO.upper() == "U", compute_v)
    _check_errors(info, "linalg.eigh", A.dim() == 2)
    return L, V


def linalg_eig_backward(gL, gV, L: Tensor, V: Tensor, is_hermitian: bool):
    """``linalg_eig_backward`` (``FunctionsManual.cpp``): for ``A = V diag(L) V⁻¹`` with
    eigenvectors of norm 1, and ``E[i, j] = L[j] - L[i]``::

        gA = V⁻ᴴ (diag(gL) + (Vᴴ gV - Vᴴ V diag(Re(Vᴴ gV))) / conj(E)) Vᴴ

    For a Hermitian ``A`` (``eigh``), ``V⁻¹ = Vᴴ`` and ``Vᴴ gV`` is projected onto the
    skew-Hermitian matrices. Repeated eigenvalues divide by zero (infinities or NaNs),
    as in PyTorch: the eigenvectors are not differentiable there.
    """
    gL, gV = _given(gL), _given(gV)
    if gL is None and gV is None:
        return _zeros(V._size, V)
    if gV is None:  # eigvals / eigvalsh: V⁻ᴴ diag(gL) Vᴴ
        if is_hermitian:
            return matmul(V * gL.unsqueeze(-2), V.mH)
        return linalg_solve(V.mH, gL.unsqueeze(-1) * V.mH)
    VhgV = matmul(V.mH, gV)
    diagonal = VhgV.diagonal(0, -2, -1)
    if V.is_complex() and not V.is_meta:  # (no values to check on the meta device)
        imaginary = _imaginary_diagonal(VhgV, L)
        _check_gauge(imaginary, np.zeros_like(imaginary),
                     f"{'linalg_eigh_backward' if is_hermitian else 'linalg_eig_backward'}: "
                     "The eigenvectors in the complex case are specified up to multiplication "
                     "by e^{i phi}. The specified loss function depends on this quantity, so it "
                     "is ill-defined.")  # fmt: skip
    if is_hermitian:
        # The tangent space of the unitary matrices at the identity: skew-Hermitian ones.
        VhgV = 0.5 * (VhgV - VhgV.mH)
    else:
        # The tangent space of matrices whose columns have norm 1.
        VhgV = VhgV - matmul(V.mH, V * diagonal.real.unsqueeze(-2))
    gA = VhgV / _gaps(L.conj())
    if gL is not None:
        gA = _without_diagonal(gA) + gL.diag_embed()
    if is_hermitian:
        return matmul(V, matmul(gA, V.mH))
    return linalg_solve(V.mH, matmul(gA, V.mH))


_linalg_eigh = native_function(
    '_linalg_eigh(Tensor A, str UPLO="L", bool compute_v=True) -> '
    "(Tensor eigenvalues, Tensor eigenvectors)",
    '_linalg_eigh.eigenvalues(Tensor A, str UPLO="L", bool compute_v=True, *, '
    "Tensor(a!) eigenvalues, Tensor(b!) eigenvectors) -> "
    "(Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)",
    **_structured("_linalg_eigh.eigenvalues", _eigh_meta, _eigh_impl),
    derivative=Derivative(
        "LinalgEighBackward0",
        complex=True,
        save=("eigenvalues", "eigenvectors"),
        grads={
            "A": lambda grads, s: linalg_eig_backward(
                grads[0], grads[1], s.eigenvalues, s.eigenvectors, is_hermitian=True
            )
        },
        multi_output=True,
    ),
    variants="function",
    doc="""``torch._linalg_eigh``: the Hermitian eigendecomposition behind
    ``linalg.eigh`` and ``linalg.eigvalsh``; the eigenvectors are an empty ``(0,)``
    tensor without ``compute_v``.""",
)


def _eigh_kernel(self: Tensor, UPLO="L"):
    return tuple(_linalg_eigh(self, UPLO, True))


def _eigh_out_kernel(self: Tensor, UPLO="L", *, eigvals, eigvecs):
    return tuple(_linalg_eigh(self, UPLO, True, out=(eigvals, eigvecs)))


linalg_eigh = native_function(
    'linalg_eigh(Tensor self, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)',
    'linalg_eigh.eigvals(Tensor self, str UPLO="L", *, Tensor(a!) eigvals, '
    "Tensor(b!) eigvecs) -> (Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)",
    kernel=_eigh_kernel,
    kernels={"linalg_eigh.eigvals": _eigh_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_eigh.eigvals": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.eigh``: ``A = Q diag(L) Qᴴ`` for a Hermitian (symmetric) ``A``,
    read from its lower (``UPLO='L'``) or upper triangle: real eigenvalues in increasing
    order, orthonormal eigenvectors in the columns of ``Q``.""",
)


def _eigvalsh_kernel(self: Tensor, UPLO="L") -> Tensor:
    return _linalg_eigh(self, UPLO, _may_require_grad(self))[0]


def _eigvalsh_out_kernel(self: Tensor, UPLO="L", *, out: Tensor) -> Tensor:
    V = Tensor._new_contiguous((0,), self._dtype)
    _linalg_eigh(self, UPLO, False, out=(out, V))
    return out


linalg_eigvalsh = native_function(
    'linalg_eigvalsh(Tensor self, str UPLO="L") -> Tensor',
    'linalg_eigvalsh.out(Tensor self, str UPLO="L", *, Tensor(a!) out) -> Tensor(a!)',
    kernel=_eigvalsh_kernel,
    kernels={"linalg_eigvalsh.out": _eigvalsh_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"linalg_eigvalsh.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="""``torch.linalg.eigvalsh``: ``linalg.eigh``'s eigenvalues, without the vectors
    unless a gradient will need them.""",
)


# --- eig, eigvals -------------------------------------------------------------------------------


def _complex_type(A: Tensor):
    """``toComplexType``: what the eigenvalues of ``A`` are."""
    if A._dtype.category < FLOATING:
        raise RuntimeError(f"Unknown Complex ScalarType for {A._dtype.scalar_name}")
    return A._dtype.to_complex()


def _paired_eigenvectors(vr: np.ndarray, wi: np.ndarray) -> np.ndarray:
    """``linalg_eig_make_complex_eigenvectors``: ``geev`` of a real matrix writes a pair
    of conjugate eigenvectors ``x ± iy`` as two real columns ``x, y``."""
    v = vr.astype(np.result_type(vr.dtype, np.complex64))
    j = 0
    while j < len(wi):
        if wi[j] != 0 and j + 1 < len(wi):
            v[:, j] = vr[:, j] + 1j * vr[:, j + 1]
            v[:, j + 1] = vr[:, j] - 1j * vr[:, j + 1]
            j += 1
        j += 1
    return v


@dispatch_dtypes("linalg_eig_out_cpu", _LAPACK_TYPES)
def _eig_into(values: np.ndarray, a: np.ndarray, vectors, info: np.ndarray,
              compute_v: bool) -> None:  # fmt: skip
    """``apply_linalg_eig``: ``geev`` on each matrix (right eigenvectors, of norm 1)."""
    if a.size == 0:
        return
    (geev,) = lapack.get_lapack_funcs(("geev",), (a,))
    for index in _each_matrix(a.shape[:-2]):
        if a.dtype.kind == "c":
            w, _, vr, info[index] = geev(a[index], compute_vl=0, compute_vr=int(compute_v))
        else:
            wr, wi, _, vr, info[index] = geev(a[index], compute_vl=0,
                                              compute_vr=int(compute_v))  # fmt: skip
            w = wr + 1j * wi
            vr = _paired_eigenvectors(vr, wi) if compute_v else vr
        values[index] = w
        if compute_v:
            vectors[index] = vr


def _eig_arrays(A: Tensor, compute_v: bool, api_name: str):
    """The eigenvalues (contiguous) and eigenvectors (column-major) of ``A``, complex.

    For a meta ``A``, only their metadata: then every ``eig`` and ``eigvals`` kernel, its
    checks made before, is its own Meta kernel (``vizgrad.ops.meta_linear_algebra``)."""
    dtype = A._dtype.to_complex()
    if A.is_meta:
        vectors_size = A._size if compute_v else (0,)
        return (empty_meta(A._size[:-1], contiguous_strides(A._size[:-1]), dtype),
                empty_meta(vectors_size, matrix_strides(vectors_size), dtype))  # fmt: skip
    values = Tensor._new_contiguous(A._size[:-1], dtype)
    vectors = empty_matrices(A._size if compute_v else (0,), dtype)
    info = np.zeros(A._size[:-2], dtype=np.int32)
    # The dtype loop runs even for an empty batch (float16 is refused then too).
    _eig_into(values._array, A._array, vectors._array, info, compute_v)
    _check_errors(info, api_name, A.dim() == 2)
    return values, vectors


def _check_finite(A: Tensor, api_name: str) -> None:
    if A.is_meta:  # no values to check (PyTorch checks none)
        return
    if not np.isfinite(A._array).all():
        raise RuntimeError(f"vizgrad.{api_name}: input tensor should not contain infs or NaNs.")


def _check_eig_out_dtype(api_name: str, out: Tensor, expected, what: str) -> None:
    """``checkLinalgCompatibleDtype``: the result may be cast to ``out``'s dtype."""
    from ..promotion import can_cast

    if not can_cast(expected, out._dtype):
        raise RuntimeError(
            f"vizgrad.{api_name}: Expected {what} to be safely castable from "
            f"{expected.scalar_name} dtype, but got {what} with dtype {out._dtype.scalar_name}"
        )


def _write_eig_out(result: Tensor, out: Tensor) -> Tensor:
    """An ``out=`` of the result's dtype that is empty takes the result's layout (the
    kernel writes into it); any other gets a copy, resized as ``resize_output`` does."""
    if out.numel() == 0 and out._dtype is result._dtype:
        out.resize_(result._size)
        out._set_metadata(result._size, result._stride, out._offset)
    return write_to_out(result, out)


def _eig_kernel(self: Tensor):
    _complex_type(self)
    _check_finite(self, "linalg.eig")
    _square_check_inputs(self, "linalg.eig")
    return _eig_arrays(self, True, "vizgrad.linalg.eig")


def _eig_out_kernel(self: Tensor, *, eigenvalues: Tensor, eigenvectors: Tensor):
    _check_finite(self, "linalg.eig")
    _square_check_inputs(self, "linalg.eig")
    expected = _complex_type(self)
    _check_eig_out_dtype("linalg.eig", eigenvalues, expected, "eigenvalues")
    _check_eig_out_dtype("linalg.eig", eigenvectors, expected, "eigenvectors")
    values, vectors = _eig_arrays(self, True, "vizgrad.linalg.eig")
    return _write_eig_out(values, eigenvalues), _write_eig_out(vectors, eigenvectors)


linalg_eig = native_function(
    "linalg_eig(Tensor self) -> (Tensor eigenvalues, Tensor eigenvectors)",
    "linalg_eig.out(Tensor self, *, Tensor(a!) eigenvalues, Tensor(b!) eigenvectors) -> "
    "(Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)",
    kernel=_eig_kernel,
    kernels={"linalg_eig.out": _eig_out_kernel},
    derivative=Derivative(
        "LinalgEigBackward0",
        complex=True,
        save=("eigenvalues", "eigenvectors"),
        grads={
            "self": lambda grads, s: linalg_eig_backward(
                grads[0], grads[1], s.eigenvalues, s.eigenvectors, is_hermitian=False
            )
        },
        multi_output=True,
    ),
    variants="function",
    doc="""``torch.linalg.eig``: ``A = V diag(L) V⁻¹`` for a square ``A``: complex
    eigenvalues and eigenvectors (of norm 1), even for a real ``A``.""",
)


def _eigvals_into(self: Tensor, api_name: str) -> Tensor:
    _square_check_inputs(self, "linalg.eigvals")
    # (PyTorch does not check here, and LAPACK may crash on them: vizgrad says so.)
    _check_finite(self, api_name)
    return _eig_arrays(self, False, "vizgrad.linalg.eigvals")[0]


def _eigvals_impl_kernel(self: Tensor) -> Tensor:
    _complex_type(self)
    return _eigvals_into(self, "linalg.eigvals")


_linalg_eigvals = native_function(
    "_linalg_eigvals(Tensor self) -> Tensor",
    kernel=_eigvals_impl_kernel,
    variants="function",
    doc="``torch._linalg_eigvals``: ``linalg.eigvals`` when no gradient is needed.",
)


def _eigvals_kernel(self: Tensor) -> Tensor:
    if _may_require_grad(self):
        # The gradient needs the eigenvectors: linalg.eig computes and keeps them.
        return linalg_eig(self)[0]
    return _linalg_eigvals(self)


def _eigvals_out_kernel(self: Tensor, *, out: Tensor) -> Tensor:
    expected = _complex_type(self)
    _square_check_inputs(self, "linalg.eigvals")
    _check_eig_out_dtype("linalg.eigvals", out, expected, "eigenvalues")
    return _write_eig_out(_eigvals_into(self, "linalg.eigvals"), out)


linalg_eigvals = native_function(
    "linalg_eigvals(Tensor self) -> Tensor",
    "linalg_eigvals.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_eigvals_kernel,
    kernels={"linalg_eigvals.out": _eigvals_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    # (PyTorch's out= kernel has no derivative, and does not refuse an input that
    # requires grad: it records nothing.)
    kinds={"linalg_eigvals.out": NONDIFFERENTIABLE},
    variants="function",
    doc="""``torch.linalg.eigvals``: ``linalg.eig``'s eigenvalues (complex), without the
    vectors unless a gradient will need them.""",
)


# --- qr -----------------------------------------------------------------------------------------


def _parse_qr_mode(mode: str) -> tuple[bool, bool]:
    """``_parse_qr_mode``: (compute ``Q``, reduced shapes)."""
    if mode == "reduced":
        return True, True
    if mode == "complete":
        return True, False
    if mode == "r":
        return False, True
    raise RuntimeError(
        f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
        "'r', or 'complete'"
    )


@dispatch_dtypes("geqrf_cpu", _LAPACK_TYPES)
def _qr_into(R: np.ndarray, a: np.ndarray, Q, compute_q: bool) -> None:
    """``geqrf`` (Householder reflections, ``R`` on and above the diagonal) then
    ``orgqr`` (``ungqr``) to multiply the reflections out into ``Q``."""
    if a.size == 0:
        # No reflections: Q is (a part of) the identity, R is empty or zeros.
        if compute_q:
            Q[...] = np.eye(*Q.shape[-2:], dtype=a.dtype)
        R[...] = 0
        return
    householder = "ungqr" if a.dtype.kind == "c" else "orgqr"
    geqrf, orgqr = lapack.get_lapack_funcs(("geqrf", householder), (a,))
    m, n = a.shape[-2:]
    q_columns = Q.shape[-1] if compute_q else 0
    for index in _each_matrix(a.shape[:-2]):
        factors, tau, _, _ = geqrf(a[index])
        R[index] = np.triu(factors[: R.shape[-2]])
        if compute_q:
            if q_columns > n:  # complete, m > n: Q is m × m, the reflections fill n columns
                basis = np.zeros((m, m), dtype=a.dtype)
                basis[:, :n] = factors
            else:
                basis = factors[:, :q_columns]
            Q[index] = orgqr(basis, tau)[0]


def _qr_meta(A: Tensor, mode="reduced"):
    _check_is_matrix(A, "linalg.qr")
    _check_floating_or_complex(A, "linalg.qr")
    compute_q, reduced = _parse_qr_mode(mode)
    *batch, m, n = A._size
    k = min(m, n)
    if compute_q:
        Q_shape = (*batch, m, k if reduced else m)
        Q = (Q_shape, A._dtype, matrix_strides(Q_shape))
    else:
        Q = ((0,), A._dtype)
    R_shape = (*batch, k if reduced or not compute_q else m, n)
    return [Q, (R_shape, A._dtype, matrix_strides(R_shape))]


def _qr_impl(A: Tensor, mode="reduced"):
    (Q_shape, *_), (R_shape, *_) = _qr_meta(A, mode)
    compute_q, _ = _parse_qr_mode(mode)
    Q, R = empty_matrices(Q_shape, A._dtype), empty_matrices(R_shape, A._dtype)
    # (The dtype loop runs for an empty matrix too: float16 is refused then as well.)
    _qr_into(R._array, A._array, Q._array, compute_q)
    return Q, R


def linalg_qr_backward(gQ, gR, Q: Tensor, R: Tensor, mode: str):
    """``linalg_qr_backward`` (``FunctionsManual.cpp``). With ``M = gR Rᴴ - Qᴴ gQ``, for
    ``m ≥ n``::

        gA = (gQ + Q syminvadj(triu(M))) R⁻ᴴ,    syminvadj(X) = X + Xᴴ - Re diag(X)

    and for ``m < n`` (``R = (R₁ | R₂)``, ``R₁`` square) ``gA = Q gR`` plus, in the first
    ``m`` columns, ``Q trilImInvAdjSkew(-M) R₁⁻ᴴ``.
    """
    compute_q, reduced = _parse_qr_mode(mode)
    if not compute_q:
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
            "through linalg.qr."
        )
    m, n = Q._size[-2], R._size[-1]
    if not reduced and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    gQ, gR = _given(gQ), _given(gR)
    if gQ is None and gR is None:
        return _zeros((*Q._size[:-1], n), Q)
    if gQ is not None:
        gA = matmul(gR, R.mH) - matmul(Q.mH, gQ) if gR is not None else -matmul(Q.mH, gQ)
    else:
        gA = matmul(gR, R.mH)
    if m >= n:
        X = gA.triu()
        X = X + X.mH
        X = X - 0.5 * X.diagonal(0, -2, -1).diag_embed()  # (that diagonal is real)
        gA = matmul(Q, X)
        if gQ is not None:
            gA = gA + gQ
        return linalg_solve_triangular(R.mH, gA, upper=False, left=False)
    X = -gA
    X = (X - X.mH).tril()
    X = X - 0.5 * X.diagonal(0, -2, -1).diag_embed()  # (that diagonal is imaginary)
    gA = matmul(Q, X)
    gA = linalg_solve_triangular(R.narrow(-1, 0, m).mH, gA, upper=False, left=False)
    gA = cat([gA, gA.new_zeros((*R._size[:-1], n - m))], -1)
    if gR is not None:
        gA = gA + matmul(Q, gR)
    return gA


linalg_qr = native_function(
    "linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)",
    "linalg_qr.out(Tensor A, str mode='reduced', *, Tensor(a!) Q, Tensor(b!) R) -> "
    "(Tensor(a!) Q, Tensor(b!) R)",
    **_structured("linalg_qr.out", _qr_meta, _qr_impl),
    derivative=Derivative(
        "LinalgQrBackward0",
        complex=True,
        save=("Q", "R", "mode"),
        grads={"A": lambda grads, s: linalg_qr_backward(grads[0], grads[1], s.Q, s.R, s.mode)},
        multi_output=True,
    ),
    variants="function",
    doc="""``torch.linalg.qr``: ``A = Q R``, ``Q`` with orthonormal columns, ``R`` upper
    triangular. ``mode='reduced'`` (``Q``: ``m × k``, ``R``: ``k × n``), ``'complete'``
    (``Q``: ``m × m``, ``R``: ``m × n``) or ``'r'`` (``R`` only; ``Q`` is empty).""",
)

_QR_DEPRECATED = (
    "vizgrad.qr is deprecated in favor of vizgrad.linalg.qr and will be removed in a future "
    "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter "
    "'mode'.\nQ, R = vizgrad.qr(A, some)\nshould be replaced with\nQ, R = vizgrad.linalg.qr(A, "
    "'reduced' if some else 'complete')"
)
_warned = {"qr": False}


def _warn_qr_once() -> None:
    """``TORCH_WARN_ONCE``: the first call in the process warns, the others do not."""
    if not _warned["qr"]:
        _warned["qr"] = True
        warn_at_user_code(_QR_DEPRECATED)


def _qr_deprecated_kernel(self: Tensor, some=True):
    _warn_qr_once()
    return tuple(linalg_qr(self, "reduced" if some else "complete"))


def _qr_deprecated_out_kernel(self: Tensor, some=True, *, Q, R):
    _warn_qr_once()
    return tuple(linalg_qr(self, "reduced" if some else "complete", out=(Q, R)))


qr = native_function(
    "qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)",
    "qr.Q(Tensor self, bool some=True, *, Tensor(a!) Q, Tensor(b!) R) -> "
    "(Tensor(a!) Q, Tensor(b!) R)",
    kernel=_qr_deprecated_kernel,
    kernels={"qr.Q": _qr_deprecated_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"qr.Q": COMPOSITE_IMPLICIT},
    doc="""``torch.qr`` (deprecated): ``linalg.qr`` with ``some`` for ``mode='reduced'``
    (``some=False``: ``'complete'``).""",
)

"""The matrix decompositions against PyTorch: ``linalg.svd``, ``linalg.svdvals``, ``svd``,
``linalg.eigh``, ``linalg.eigvalsh``, ``linalg.eig``, ``linalg.eigvals``, ``linalg.qr``
and ``qr``.

Singular vectors and eigenvectors are defined up to a sign (a phase ``e^{iφ}`` for
complex ones), and two LAPACK builds may choose differently, so they are compared as
PyTorch's own tests compare them: the values that do not depend on that choice
(singular values and eigenvalues exactly, the reconstruction of ``A``, orthonormality,
the magnitudes ``|U|``), with PyTorch's shapes, dtypes and strides. ``qr`` (Householder
reflections) is the same in every LAPACK and is compared as it is. Gradients are
compared on losses that do not depend on the choice either, and checked by
``gradcheck`` in float64.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, laid_out

import vizgrad as vg

FLOATS = ["float32", "float64"]
COMPLEXES = ["complex64", "complex128"]
DTYPES = FLOATS + COMPLEXES
TOLERANCE = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-9, "complex128": 1e-9}


# --- inputs -------------------------------------------------------------------------------------


def random_values(shape, dtype: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def matrices(shape, dtype, layout="contiguous", seed=0):
    return laid_out(random_values(shape, dtype, seed), layout)


def degenerate(shape, layout) -> bool:
    """An expanded matrix (not a batch) has equal rows: rank one, so its zero singular
    values (eigenvalues) repeat and their vectors are not unique."""
    return layout == "expanded" and len(shape) == 2 and min(shape) > 1


def quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def run_both(fn, *pairs):
    return quiet(lambda: fn(vg, *[p[0] for p in pairs])), quiet(
        lambda: fn(torch, *[p[1] for p in pairs])
    )


# --- comparing decompositions -------------------------------------------------------------------


def same_layout(v, t):
    """Type, dtype, shape, strides and conjugate bit, not the values."""
    assert isinstance(v, vg.Tensor)
    assert v.dtype.name == str(t.dtype).split(".")[-1], f"dtype {v.dtype} != {t.dtype}"
    assert tuple(v.shape) == tuple(t.shape), f"shape {tuple(v.shape)} != {tuple(t.shape)}"
    assert v.stride() == t.stride(), f"stride {v.stride()} != {t.stride()} ({tuple(t.shape)})"
    assert v.is_conj() == t.is_conj()


def values_of(v) -> np.ndarray:
    return v.detach().resolve_conj().numpy()


def close(actual, expected, dtype, scale=1.0):
    tol = TOLERANCE[dtype] * scale
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


def orthonormal_columns(Q: np.ndarray, dtype: str):
    k = Q.shape[-1]
    close(np.swapaxes(Q, -1, -2).conj() @ Q, np.broadcast_to(np.eye(k), Q.shape[:-2] + (k, k)),
          dtype, 10)  # fmt: skip


def check_svd(v, t, A: np.ndarray, dtype: str, vectors="Vh", unique=True):
    """``(U, S, Vh)`` (``V`` for ``torch.svd``): PyTorch's layout, its singular values,
    ``A = U diag(S) Vh``, orthonormal vectors, and ``|U|``, ``|V|`` equal to PyTorch's
    (random matrices have distinct singular values: each vector is unique up to phase;
    not so for a matrix of equal rows, ``unique=False``)."""
    for v_item, t_item in zip(v, t, strict=True):
        same_layout(v_item, t_item)
    U, S, W = (values_of(x) for x in v)
    tU, tS, tW = (x.detach().resolve_conj().numpy() for x in t)
    close(S, tS, dtype, 10)
    if U.size == 0 or U.shape[-1] == 0 or W.size == 0:
        close(U, tU, dtype)
        close(W, tW, dtype)
        return
    k = S.shape[-1]
    Vh = np.swapaxes(W, -1, -2).conj() if vectors == "V" else W
    close((U[..., :k] * S[..., None, :]) @ Vh[..., :k, :], A, dtype, 20)
    orthonormal_columns(U, dtype)
    orthonormal_columns(np.swapaxes(Vh, -1, -2).conj(), dtype)
    if not unique:
        return
    close(np.abs(U[..., :k]), np.abs(tU[..., :k]), dtype, 50)
    tVh = np.swapaxes(tW, -1, -2).conj() if vectors == "V" else tW
    close(np.abs(Vh[..., :k, :]), np.abs(tVh[..., :k, :]), dtype, 50)


def hermitian_from(A: np.ndarray, uplo: str) -> np.ndarray:
    """The Hermitian matrix ``eigh`` sees: one triangle of ``A`` and its mirror."""
    lower = uplo.upper() == "L"
    T = np.tril(A, -1) if lower else np.triu(A, 1)
    diagonal = np.real(np.diagonal(A, 0, -2, -1))
    n = A.shape[-1]
    return T + np.swapaxes(T, -1, -2).conj() + diagonal[..., None] * np.eye(n)


def check_eigh(v, t, H: np.ndarray, dtype: str):
    for v_item, t_item in zip(v, t, strict=True):
        same_layout(v_item, t_item)
    L, V = values_of(v[0]), values_of(v[1])
    close(L, t[0].numpy(), dtype, 20)
    if V.size:
        close((V * L[..., None, :]) @ np.swapaxes(V, -1, -2).conj(), H, dtype, 50)
        orthonormal_columns(V, dtype)
        close(np.abs(V), np.abs(t[1].detach().numpy()), dtype, 100)


def check_eig(v, t, A: np.ndarray, dtype: str, unique=True):
    """Eigenvalues as PyTorch's (``geev`` orders them the same way), ``A V = V diag(L)``,
    columns of norm 1, and ``|V|`` as PyTorch's."""
    for v_item, t_item in zip(v, t, strict=True):
        same_layout(v_item, t_item)
    L, V = values_of(v[0]), values_of(v[1])
    expected = t[0].numpy()
    if unique:
        close(L, expected, dtype, 50)
    else:  # repeated eigenvalues may come in another order
        close(np.sort_complex(L), np.sort_complex(expected), dtype, 50)
    if V.size:
        close(A @ V, V * L[..., None, :], dtype, 50)
        close(np.linalg.norm(V, axis=-2), np.ones(L.shape), dtype, 10)
        if unique:
            close(np.abs(V), np.abs(t[1].numpy()), dtype, 200)


# --- svd, svdvals -------------------------------------------------------------------------------

SVD_SHAPES = [(3, 3), (4, 3), (3, 5), (2, 4, 3), (2, 1, 3, 4)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SVD_SHAPES)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_linalg_svd(full_matrices, shape, layout, dtype):
    pair = matrices(shape, dtype, layout)
    v, t = run_both(lambda m, a: tuple(m.linalg.svd(a, full_matrices=full_matrices)), pair)
    check_svd(v, t, values_of(pair[0]), dtype, unique=not degenerate(shape, layout))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SVD_SHAPES)
def test_linalg_svdvals(shape, layout, dtype):
    """The singular values are unique: compared as they are."""
    v, t = run_both(lambda m, a: m.linalg.svdvals(a), matrices(shape, dtype, layout))
    assert_same(v, t, rtol=TOLERANCE[dtype] * 10, atol=TOLERANCE[dtype] * 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 3, 5)])
@pytest.mark.parametrize("options", [(True, True), (False, True), (True, False), (False, False)])
def test_deprecated_svd(options, shape, dtype):
    """``torch.svd``: ``V`` (a conjugate view for complex inputs), or zeros without the
    vectors; also the method ``Tensor.svd``."""
    some, compute_uv = options
    pair = matrices(shape, dtype, "transposed")
    for call in (lambda m, a: tuple(m.svd(a, some, compute_uv)),
                 lambda m, a: tuple(a.svd(some=some, compute_uv=compute_uv))):  # fmt: skip
        v, t = run_both(call, pair)
        if compute_uv:
            check_svd(v, t, values_of(pair[0]), dtype, vectors="V")
        else:
            for v_item, t_item in zip(v, t, strict=True):
                same_layout(v_item, t_item)
                close(values_of(v_item), t_item.resolve_conj().numpy(), dtype, 10)


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (2, 0, 0), (0, 2, 3), (2, 3, 0), (1, 1)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_of_empty_matrices(shape, full_matrices):
    """With ``full_matrices``, ``U`` or ``Vh`` of an empty matrix may have elements: the
    identity, as in PyTorch. Compared exactly."""
    pair = matrices(shape, "float64")
    v, t = run_both(lambda m, a: tuple(m.linalg.svd(a, full_matrices=full_matrices)), pair)
    if 0 in shape:
        assert_same(v, t)
    else:
        check_svd(v, t, values_of(pair[0]), "float64")
    assert_same(*run_both(lambda m, a: m.linalg.svdvals(a), pair))
    v, t = run_both(lambda m, a: tuple(m.svd(a, some=not full_matrices)), pair)
    assert_same(v, t) if 0 in shape else check_svd(v, t, values_of(pair[0]), "float64", "V")


def test_singular_values_of_known_matrices():
    """Values not taken from any library: ``diag(3, -2)`` has singular values 3 and 2,
    a rank-one matrix one non-zero singular value."""
    S = vg.linalg.svdvals(vg.tensor([[3.0, 0.0], [0.0, -2.0]]))
    assert S.tolist() == [3.0, 2.0]
    S = vg.linalg.svdvals(vg.ones(3, 4, dtype=vg.float64))
    np.testing.assert_allclose(S.numpy(), [np.sqrt(12.0), 0.0, 0.0], atol=1e-12)


# --- eigh, eigvalsh -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4), (2, 1, 3, 3)])
@pytest.mark.parametrize("uplo", ["L", "U", "u"])
def test_linalg_eigh(uplo, shape, layout, dtype):
    """Not Hermitian inputs: only the triangle ``UPLO`` names is read."""
    pair = matrices(shape, dtype, layout)
    H = hermitian_from(values_of(pair[0]), uplo)
    v, t = run_both(lambda m, a: tuple(m.linalg.eigh(a, UPLO=uplo)), pair)
    check_eigh(v, t, H, dtype)
    v, t = run_both(lambda m, a: m.linalg.eigvalsh(a, uplo), pair)
    assert_same(v, t, rtol=TOLERANCE[dtype] * 20, atol=TOLERANCE[dtype] * 20)


def test_eigenvalues_of_a_known_matrix():
    """``[[2, 1], [1, 2]]`` has eigenvalues 1 and 3 (increasing), eigenvectors
    ``(1, -1)/√2`` and ``(1, 1)/√2``."""
    L, V = vg.linalg.eigh(vg.tensor([[2.0, 1.0], [1.0, 2.0]], dtype=vg.float64))
    np.testing.assert_allclose(L.numpy(), [1.0, 3.0])
    np.testing.assert_allclose(np.abs(V.numpy()), np.full((2, 2), 2**-0.5))
    L = vg.linalg.eigvals(vg.tensor([[0.0, 1.0], [-1.0, 0.0]]))
    assert L.dtype is vg.complex64
    assert sorted(L.tolist(), key=lambda z: z.imag) == [-1j, 1j]


# --- eig, eigvals -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (4, 4), (2, 3, 3), (2, 1, 3, 3)])
def test_linalg_eig(shape, layout, dtype):
    """Complex eigenvalues and eigenvectors, even for real inputs (whose complex ones
    come in conjugate pairs)."""
    pair = matrices(shape, dtype, layout, seed=3)
    v, t = run_both(lambda m, a: tuple(m.linalg.eig(a)), pair)
    unique = not degenerate(shape, layout)
    check_eig(v, t, values_of(pair[0]), dtype, unique)
    v, t = run_both(lambda m, a: m.linalg.eigvals(a), pair)
    if unique:
        assert_same(v, t, rtol=TOLERANCE[dtype] * 50, atol=TOLERANCE[dtype] * 50)
    else:
        same_layout(v, t)
        close(np.sort_complex(values_of(v)), np.sort_complex(t.numpy()), dtype, 50)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_empty_eigendecompositions(shape):
    pair = matrices(shape, "float64")
    for fn in (lambda m, a: tuple(m.linalg.eigh(a)), lambda m, a: m.linalg.eigvalsh(a),
               lambda m, a: tuple(m.linalg.eig(a)), lambda m, a: m.linalg.eigvals(a)):  # fmt: skip
        assert_same(*run_both(fn, pair))


# --- qr -----------------------------------------------------------------------------------------

QR_SHAPES = [(3, 3), (5, 3), (3, 5), (2, 4, 3), (2, 1, 3, 4), (1, 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", QR_SHAPES)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_linalg_qr(mode, shape, layout, dtype):
    """Householder QR is the same in every LAPACK: ``Q`` and ``R`` compared as they are
    (for a matrix of equal rows, whose reflections after the first may be any, as
    ``A = Q R`` with orthonormal ``Q`` and upper triangular ``R``)."""
    pair = matrices(shape, dtype, layout, seed=5)
    v, t = run_both(lambda m, a: tuple(m.linalg.qr(a, mode=mode)), pair)
    tol = TOLERANCE[dtype] * 10
    if not degenerate(shape, layout):
        assert_same(v, t, rtol=tol, atol=tol)
        return
    for v_item, t_item in zip(v, t, strict=True):
        same_layout(v_item, t_item)
    R = values_of(v[1])
    close(R, np.triu(R), dtype)
    if mode != "r":
        Q = values_of(v[0])
        orthonormal_columns(Q, dtype)
        close(Q @ R, values_of(pair[0]), dtype, 10)


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (2, 3, 5)])
@pytest.mark.parametrize("some", [True, False])
def test_deprecated_qr(some, shape):
    pair = matrices(shape, "float64", "transposed", seed=6)
    assert_same(*run_both(lambda m, a: tuple(m.qr(a, some)), pair))
    assert_same(*run_both(lambda m, a: tuple(a.qr(some=some)), pair))


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (2, 0, 0), (0, 2, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_of_empty_matrices(mode, shape):
    """No reflections: ``Q`` is (a part of) the identity."""
    assert_same(*run_both(lambda m, a: tuple(m.linalg.qr(a, mode)), matrices(shape, "float64")))


def test_deprecated_qr_warns_once():
    from vizgrad.ops import decompositions

    decompositions._warned["qr"] = False
    A = vg.eye(2)
    with pytest.warns(UserWarning, match=r"vizgrad\.qr is deprecated"):
        vg.qr(A)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vg.qr(A)


# --- named results ------------------------------------------------------------------------------


def test_named_results():
    A = vg.tensor([[2.0, 1.0], [1.0, 3.0]])
    cases = {
        "linalg_svd": (vg.linalg.svd(A), ("U", "S", "Vh")),
        "svd": (vg.svd(A), ("U", "S", "V")),
        "linalg_eigh": (vg.linalg.eigh(A), ("eigenvalues", "eigenvectors")),
        "linalg_eig": (vg.linalg.eig(A), ("eigenvalues", "eigenvectors")),
        "linalg_qr": (vg.linalg.qr(A), ("Q", "R")),
        "qr": (quiet(lambda: vg.qr(A)), ("Q", "R")),
    }
    for name, (result, fields) in cases.items():
        assert type(result).__name__ == name
        assert type(result)._fields == fields
        assert all(hasattr(getattr(torch.return_types, name), field) for field in fields)
        assert all(getattr(result, field) is result[i] for i, field in enumerate(fields))

    def outs(n=3):
        return tuple(vg.empty(0) for _ in range(n))

    assert type(vg.linalg.svd(A, out=outs())).__name__ == "linalg_svd_out"
    assert type(vg.svd(A, out=outs())).__name__ == "svd_out"
    assert type(vg.linalg.qr(A, out=outs(2))).__name__ == "linalg_qr_out"
    assert type(vg.linalg.eigh(A, out=outs(2))).__name__ == "linalg_eigh_out"
    complex_outs = (vg.empty(0, dtype=vg.complex64), vg.empty(0, dtype=vg.complex64))
    assert type(vg.linalg.eig(A, out=complex_outs)).__name__ == "linalg_eig_out"


# --- errors -------------------------------------------------------------------------------------


def _t(shape=(3, 3), dtype="float32", fill=1.0):
    return np.full(shape, fill, dtype=dtype)


_NAN = float("nan")
BAD_CALLS = {
    "svd 1-D": (lambda m, a: m.linalg.svd(a), _t((3,))),
    "svd 0-D": (lambda m, a: m.linalg.svd(a), _t(())),
    "svd int": (lambda m, a: m.linalg.svd(a), _t(dtype="int64")),
    "svd bool": (lambda m, a: m.linalg.svd(a), _t(dtype="bool")),
    "svd half": (lambda m, a: m.linalg.svd(a), _t(dtype="float16")),
    "svd driver": (lambda m, a: m.linalg.svd(a, driver="gesvd"), _t()),
    "svd nan": (lambda m, a: m.linalg.svd(a), _t(fill=_NAN)),
    "svd nan batch": (lambda m, a: m.linalg.svd(a), np.stack([np.eye(3), _t(fill=_NAN)])),
    "svd inf": (lambda m, a: m.linalg.svd(a, full_matrices=False), _t(fill=float("inf"))),
    "svdvals 1-D": (lambda m, a: m.linalg.svdvals(a), _t((3,))),
    "svdvals int": (lambda m, a: m.linalg.svdvals(a), _t(dtype="int32")),
    "svdvals driver": (lambda m, a: m.linalg.svdvals(a, driver="gesvdj"), _t()),
    "svdvals nan batch": (lambda m, a: m.linalg.svdvals(a), _t((2, 3, 3), fill=_NAN)),
    "old svd 1-D": (lambda m, a: m.svd(a), _t((3,))),
    "old svd 0-D": (lambda m, a: m.svd(a, compute_uv=False), _t(())),
    "old svd int": (lambda m, a: m.svd(a), _t(dtype="int64")),
    "old svd int no uv": (lambda m, a: m.svd(a, compute_uv=False), _t(dtype="int64")),
    "eigh 1-D": (lambda m, a: m.linalg.eigh(a), _t((3,))),
    "eigh not square": (lambda m, a: m.linalg.eigh(a), _t((2, 3))),
    "eigh int": (lambda m, a: m.linalg.eigh(a), _t(dtype="int64")),
    "eigh half": (lambda m, a: m.linalg.eigh(a), _t(dtype="float16")),
    "eigh UPLO": (lambda m, a: m.linalg.eigh(a, UPLO="X"), _t()),
    "eigh UPLO two letters": (lambda m, a: m.linalg.eigh(a, "LU"), _t()),
    "eigh nan": (lambda m, a: m.linalg.eigh(a), _t(fill=_NAN)),
    "eigvalsh not square": (lambda m, a: m.linalg.eigvalsh(a), _t((3, 2))),
    "eigvalsh UPLO": (lambda m, a: m.linalg.eigvalsh(a, UPLO="x"), _t()),
    "eigvalsh int": (lambda m, a: m.linalg.eigvalsh(a), _t(dtype="int32")),
    "eig 1-D": (lambda m, a: m.linalg.eig(a), _t((3,))),
    "eig not square": (lambda m, a: m.linalg.eig(a), _t((2, 3))),
    "eig int": (lambda m, a: m.linalg.eig(a), _t(dtype="int64")),
    "eig bool": (lambda m, a: m.linalg.eig(a), _t(dtype="bool")),
    "eig half": (lambda m, a: m.linalg.eig(a), _t(dtype="float16")),
    "eig nan": (lambda m, a: m.linalg.eig(a), _t(fill=_NAN)),
    "eig inf not square": (lambda m, a: m.linalg.eig(a), _t((2, 3), fill=float("inf"))),
    "eigvals 1-D": (lambda m, a: m.linalg.eigvals(a), _t((3,))),
    "eigvals not square": (lambda m, a: m.linalg.eigvals(a), _t((2, 3))),
    "eigvals int": (lambda m, a: m.linalg.eigvals(a), _t(dtype="int64")),
    "qr 1-D": (lambda m, a: m.linalg.qr(a), _t((3,))),
    "qr int": (lambda m, a: m.linalg.qr(a), _t(dtype="int64")),
    "qr half": (lambda m, a: m.linalg.qr(a), _t(dtype="float16")),
    "qr mode": (lambda m, a: m.linalg.qr(a, mode="full"), _t()),
    "old qr 1-D": (lambda m, a: m.qr(a), _t((3,))),
    "Tensor.svd 1-D": (lambda m, a: a.svd(), _t((3,))),
    # argument types (the parser)
    "svd of a number": (lambda m, a: m.linalg.svd(1), _t()),
    "qr of a list": (lambda m, a: m.linalg.qr([[1.0]]), _t()),
    "eigh UPLO int": (lambda m, a: m.linalg.eigh(a, UPLO=1), _t()),
    "svd full_matrices str": (lambda m, a: m.linalg.svd(a, full_matrices="no"), _t()),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_arguments(name):
    """PyTorch's exception class and message (``LinAlgError`` where PyTorch raises its
    ``_LinAlgError``)."""
    fn, values = BAD_CALLS[name]
    v_in, t_in = laid_out(values, "contiguous")
    vg_error, torch_error = quiet(
        lambda: assert_same_error(lambda: fn(vg, v_in), lambda: fn(torch, t_in))
    )
    expected = str(torch_error).split("\n")[0].split(" (Triggered")[0]
    assert str(vg_error).split("\n")[0] == expected.replace("torch.", "vizgrad.")
    assert isinstance(vg_error, vg.linalg.LinAlgError) == isinstance(
        torch_error, torch.linalg.LinAlgError
    )


def test_eigvals_refuses_non_finite_input():
    """(PyTorch's LAPACK may crash here: vizgrad says what is wrong instead.)"""
    with pytest.raises(RuntimeError, match="should not contain infs or NaNs"):
        vg.linalg.eigvals(vg.full((3, 3), float("nan")))


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0)])
def test_empty_half_inputs(shape):
    """PyTorch returns before LAPACK's dtype loop for an empty matrix in ``svd`` and
    ``eigh``, not in ``qr`` and ``eig``."""
    pair = laid_out(np.zeros(shape, np.float16), "contiguous")
    for fn in (lambda m, a: tuple(m.linalg.svd(a)), lambda m, a: tuple(m.linalg.eigh(a)),
               lambda m, a: m.linalg.svdvals(a), lambda m, a: m.linalg.eigvalsh(a)):  # fmt: skip
        assert_same(*run_both(fn, pair))
    for fn in (lambda m, a: tuple(m.linalg.qr(a)), lambda m, a: tuple(m.linalg.eig(a)),
               lambda m, a: m.linalg.eigvals(a)):  # fmt: skip
        vg_error, torch_error = assert_same_error(
            lambda fn=fn: fn(vg, pair[0]), lambda fn=fn: fn(torch, pair[1])
        )
        assert str(vg_error) == str(torch_error)


# --- out= ---------------------------------------------------------------------------------------

A32 = random_values((2, 4, 3), "float32", seed=7)
SQUARE32 = random_values((2, 3, 3), "float32", seed=8)


def _outs(m, dtypes, shape=(0,)):
    return tuple(m.empty(shape, dtype=getattr(m, d)) for d in dtypes)


OUT_CALLS = {
    # name: (function, input, out dtypes choices {label: dtypes})
    "linalg.svd": (lambda m, a, o: tuple(m.linalg.svd(a, out=o)), A32, 3),
    "linalg.svd reduced": (lambda m, a, o: tuple(m.linalg.svd(a, False, out=o)), A32, 3),
    "linalg.svdvals": (lambda m, a, o: m.linalg.svdvals(a, out=o[1]), A32, 3),
    "svd": (lambda m, a, o: tuple(m.svd(a, out=o)), A32, 3),
    "svd some=False": (lambda m, a, o: tuple(m.svd(a, some=False, out=o)), A32, 3),
    "svd compute_uv=False": (lambda m, a, o: tuple(m.svd(a, compute_uv=False, out=o)), A32, 3),
    "linalg.eigh": (lambda m, a, o: tuple(m.linalg.eigh(a, out=o[1:])), SQUARE32, 3),
    "linalg.eigvalsh": (lambda m, a, o: m.linalg.eigvalsh(a, out=o[1]), SQUARE32, 3),
    "linalg.qr": (lambda m, a, o: tuple(m.linalg.qr(a, out=(o[0], o[2]))), A32, 3),
    "linalg.qr complete": (
        lambda m, a, o: tuple(m.linalg.qr(a, "complete", out=(o[0], o[2]))), A32, 3),
    "qr": (lambda m, a, o: tuple(m.qr(a, out=(o[0], o[2]))), A32, 3),
}  # fmt: skip
# The out= tensors' dtypes: (U or Q, S or eigenvalues, Vh or R or eigenvectors).
OUT_DTYPES = {
    "right": ("float32", "float32", "float32"),
    "double S": ("float32", "float64", "float32"),
    "double U": ("float64", "float32", "float32"),
    "complex": ("complex64", "float32", "complex64"),
    "int": ("int64", "float32", "float32"),
}


def _check_out(name, v, t, A):
    """Layouts as PyTorch's; values up to the vectors' signs."""
    if isinstance(t, torch.Tensor):
        assert_same(v, t, rtol=1e-4, atol=1e-4)
    elif name.startswith("linalg.eigh"):
        check_eigh(v, t, hermitian_from(A, "L"), "float32")
    elif "svd" in name and "compute_uv" not in name:
        check_svd(v, t, A, "float32", vectors="V" if name.startswith("svd") else "Vh")
    else:
        assert_same(v, t, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("out_dtypes", sorted(OUT_DTYPES))
@pytest.mark.parametrize("name", sorted(OUT_CALLS))
def test_out(name, out_dtypes):
    """Empty ``out=`` tensors take PyTorch's layout; an ``out`` of another dtype is
    refused in PyTorch's words."""
    fn, values, _ = OUT_CALLS[name]
    pair = laid_out(values, "contiguous")

    def call(m, a):
        return fn(m, a, _outs(m, OUT_DTYPES[out_dtypes]))

    try:
        expected = quiet(lambda: call(torch, pair[1]))
    except RuntimeError:
        vg_error, torch_error = quiet(
            lambda: assert_same_error(lambda: call(vg, pair[0]), lambda: call(torch, pair[1]))
        )
        assert str(vg_error) == str(torch_error).split(" (Triggered")[0].replace(
            "torch.", "vizgrad."
        )
        return
    _check_out(name, quiet(lambda: call(vg, pair[0])), expected, values)


# The out= tensors of the right shape (row-major), and which of them the call writes.
RIGHT_SHAPES = {
    "linalg.svd reduced": ([(2, 4, 3), (2, 3), (2, 3, 3)], (0, 1, 2)),
    "svd": ([(2, 4, 3), (2, 3), (2, 3, 3)], (0, 1, 2)),
    "linalg.qr": ([(2, 4, 3), (2, 3), (2, 3, 3)], (0, 2)),
    "linalg.eigh": ([(2, 3, 3), (2, 3), (2, 3, 3)], (1, 2)),
}


@pytest.mark.parametrize("name", sorted(RIGHT_SHAPES))
def test_out_of_the_right_shape_keeps_its_strides(name):
    fn, values, _ = OUT_CALLS[name]
    pair = laid_out(values, "contiguous")
    shapes, written = RIGHT_SHAPES[name]

    def call(m, a):
        outs = tuple(m.empty(s) for s in shapes)
        return fn(m, a, outs), [outs[i] for i in written]

    (v, v_outs), (t, _) = quiet(lambda: call(vg, pair[0])), quiet(lambda: call(torch, pair[1]))
    _check_out(name, v, t, values)
    for v_item, v_out in zip(v, v_outs, strict=True):
        assert v_item is v_out


EIG_OUTS = {
    "complex64": ("complex64", "complex64"),
    "complex128 values": ("complex128", "complex64"),
    "complex128 vectors": ("complex64", "complex128"),
    "float values": ("float32", "complex64"),
    "float vectors": ("complex64", "float32"),
    "int": ("int64", "int64"),
}


@pytest.mark.parametrize("out_dtypes", sorted(EIG_OUTS))
@pytest.mark.parametrize("shape", [(0,), (2, 3, 3), (3,)])
def test_eig_out(out_dtypes, shape):
    """``eig``'s results are complex: an ``out`` that may hold them gets them (laid out
    as the kernel writes them when it is empty and of their dtype, copied otherwise)."""
    pair = laid_out(SQUARE32, "contiguous")
    dtypes = EIG_OUTS[out_dtypes]

    def call(m, a):
        values = m.empty(shape[:2] if len(shape) == 3 else shape, dtype=getattr(m, dtypes[0]))
        vectors = m.empty(shape, dtype=getattr(m, dtypes[1]))
        return tuple(m.linalg.eig(a, out=(values, vectors))), m.linalg.eigvals(a, out=values)

    try:
        expected = quiet(lambda: call(torch, pair[1]))
    except RuntimeError:
        vg_error, torch_error = quiet(
            lambda: assert_same_error(lambda: call(vg, pair[0]), lambda: call(torch, pair[1]))
        )
        assert str(vg_error) == str(torch_error).replace("torch.", "vizgrad.")
        return
    (v, v_values), (t, t_values) = quiet(lambda: call(vg, pair[0])), expected
    for v_item, t_item in zip(v, t, strict=True):
        same_layout(v_item, t_item)
    close(values_of(v[0]), t[0].numpy(), "float32", 50)
    close(np.abs(values_of(v[1])), np.abs(t[1].numpy()), "float32", 200)
    assert_same(v_values, t_values, rtol=1e-3, atol=1e-3)


COMPLEX_OUT_CALLS = {
    "linalg.svd": lambda m, a, o: tuple(m.linalg.svd(a, False, out=o)),
    "svd": lambda m, a, o: tuple(m.svd(a, out=o)),
    "linalg.eigh": lambda m, a, o: tuple(m.linalg.eigh(a[..., :3, :], out=o[1:])),
    "linalg.qr": lambda m, a, o: tuple(m.linalg.qr(a, out=(o[0], o[2]))),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_OUT_CALLS))
def test_complex_out(name):
    """Complex vectors, real singular values and eigenvalues; ``svd`` writes ``V`` as the
    conjugate of the ``Vh`` it computed, in the same memory."""
    values = random_values((2, 4, 3), "complex64", seed=9)
    pair = laid_out(values, "contiguous")

    def call(m, a):
        outs = tuple(m.empty(0, dtype=getattr(m, d)) for d in ("complex64", "float32", "complex64"))
        return COMPLEX_OUT_CALLS[name](m, a, outs)

    v, t = quiet(lambda: call(vg, pair[0])), quiet(lambda: call(torch, pair[1]))
    if name == "linalg.eigh":
        check_eigh(v, t, hermitian_from(values[..., :3, :], "L"), "complex64")
    elif name == "linalg.qr":
        assert_same(v, t, rtol=1e-4, atol=1e-4)
    else:
        check_svd(v, t, values, "complex64", vectors="V" if name == "svd" else "Vh")


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("compute_uv", [True, False])
def test_deprecated_svd_nodes(compute_uv, dtype):
    """``V = Vhᴴ``: a transpose (a conjugate view for complex inputs) of ``linalg.svd``'s
    ``Vh``; without the vectors, ``U`` and ``V`` are constants."""
    values = random_values((3, 2), dtype, seed=10)
    v = vg.svd(vg.from_numpy(values.copy()).requires_grad_(), compute_uv=compute_uv)
    t = torch.svd(torch.from_numpy(values.copy()).requires_grad_(), compute_uv=compute_uv)
    for v_item, t_item in zip(v, t, strict=True):
        expected = type(t_item.grad_fn).__name__ if t_item.grad_fn is not None else None
        assert (v_item.grad_fn.name() if v_item.grad_fn is not None else None) == expected


OUT_AUTOGRAD = {
    "linalg.svd": lambda m, a: m.linalg.svd(a, out=_outs(m, ("float32",) * 3)),
    "linalg.eigh": lambda m, a: m.linalg.eigh(a, out=_outs(m, ("float32",) * 2)),
    "linalg.qr": lambda m, a: m.linalg.qr(a, out=_outs(m, ("float32",) * 2)),
    "linalg.eig": lambda m, a: m.linalg.eig(a, out=_outs(m, ("complex64",) * 2)),
}


@pytest.mark.parametrize("name", sorted(OUT_AUTOGRAD))
def test_out_refuses_autograd_in_the_operators_name(name):
    v = vg.eye(3).requires_grad_()
    t = torch.eye(3).requires_grad_()
    vg_error, torch_error = quiet(
        lambda: assert_same_error(
            lambda: OUT_AUTOGRAD[name](vg, v), lambda: OUT_AUTOGRAD[name](torch, t)
        )  # fmt: skip
    )
    assert str(vg_error) == str(torch_error)


def test_eigvals_out_does_not_refuse_autograd():
    """PyTorch's ``linalg.eigvals(out=)`` has no derivative, and does not refuse an input
    that requires grad (its result's node raises in backward; vizgrad's has none)."""
    v = vg.linalg.eigvals(vg.eye(2).requires_grad_(), out=vg.empty(0, dtype=vg.complex64))
    t = torch.linalg.eigvals(
        torch.eye(2).requires_grad_(), out=torch.empty(0, dtype=torch.complex64)
    )
    assert_same(v.detach(), t.detach())


# --- gradients ----------------------------------------------------------------------------------


def _k(a):
    return min(a.shape[-2:])


def _recon(r):
    U, S, Vh = r
    k = S.shape[-1]
    return (U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]


def _herm(a):
    return a + a.mH


# Losses that do not depend on the vectors' signs (phases): the gradient is defined.
GRADIENTS = {
    "svdvals": (lambda m, a: m.linalg.svdvals(a), [(3, 3), (2, 4, 3), (3, 5)]),
    "svd S": (lambda m, a: m.linalg.svd(a)[1], [(3, 4)]),
    "svd reconstruction": (lambda m, a: _recon(m.linalg.svd(a, full_matrices=False)),
                           [(3, 3), (4, 2), (2, 2, 3)]),
    "svd full reconstruction": (lambda m, a: _recon(m.linalg.svd(a)), [(4, 2), (2, 3)]),
    "svd |U|": (lambda m, a: m.linalg.svd(a, full_matrices=False).U.abs(), [(3, 3), (4, 2)]),
    "svd |Vh|": (lambda m, a: m.linalg.svd(a, False).Vh.abs(), [(3, 3), (2, 4)]),
    "svd U Vh": (lambda m, a: (lambda r: r.U @ r.Vh)(m.linalg.svd(a, False)), [(3, 3), (2, 4)]),
    "svd |U| full": (lambda m, a: m.linalg.svd(a).U[..., :_k(a)].abs(), [(4, 2)]),
    "old svd |V|": (lambda m, a: m.svd(a).V.abs(), [(3, 3), (2, 4, 3)]),
    "old svd S": (lambda m, a: m.svd(a, compute_uv=False).S, [(3, 4)]),
    "eigh L": (lambda m, a: m.linalg.eigh(_herm(a))[0], [(3, 3), (2, 3, 3)]),
    "eigh L upper": (lambda m, a: m.linalg.eigh(_herm(a), UPLO="U").eigenvalues, [(3, 3)]),
    "eigh |V|": (lambda m, a: m.linalg.eigh(_herm(a))[1].abs(), [(3, 3), (2, 4, 4)]),
    "eigh V L Vh": (lambda m, a: (lambda r: (r[1] * r[0].unsqueeze(-2)) @ r[1].mH)(
        m.linalg.eigh(_herm(a))), [(3, 3)]),
    "eigvalsh": (lambda m, a: m.linalg.eigvalsh(_herm(a)), [(3, 3), (2, 4, 4)]),
    "eig L": (lambda m, a: m.linalg.eig(a)[0], [(3, 3), (2, 3, 3)]),
    "eig |V|": (lambda m, a: m.linalg.eig(a)[1].abs(), [(3, 3)]),
    "eigvals": (lambda m, a: m.linalg.eigvals(a), [(3, 3), (2, 4, 4)]),
    "qr Q": (lambda m, a: m.linalg.qr(a)[0], [(3, 3), (4, 3), (3, 5)]),
    "qr R": (lambda m, a: m.linalg.qr(a).R, [(3, 3), (2, 4, 3), (3, 5)]),
    "qr Q R": (lambda m, a: (lambda r: r.Q.sum(-1, keepdim=True) * r.R[..., :1, :])(
        m.linalg.qr(a)), [(3, 3), (4, 3), (3, 5)]),
    "qr complete wide": (lambda m, a: m.linalg.qr(a, "complete").Q, [(3, 5)]),
    "old qr": (lambda m, a: m.qr(a)[1], [(4, 3)]),
}  # fmt: skip


def _grads(name, dtype, shape, seed=0):
    fn, _ = GRADIENTS[name]
    values = random_values(shape, dtype, seed)
    v = vg.from_numpy(values.copy()).requires_grad_()
    t = torch.from_numpy(values.copy()).requires_grad_()
    v_out, t_out = quiet(lambda: fn(vg, v)), quiet(lambda: fn(torch, t))
    assert v_out.grad_fn.name() == type(t_out.grad_fn).__name__
    upstream = random_values(tuple(t_out.shape), str(t_out.dtype).split(".")[-1], seed + 1)
    quiet(lambda: v_out.backward(vg.from_numpy(upstream.copy())))
    quiet(lambda: t_out.backward(torch.from_numpy(upstream.copy())))
    return fn, values, v, t


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize(
    "case", [(name, i) for name in sorted(GRADIENTS) for i in range(len(GRADIENTS[name][1]))]
)
def test_gradients(case, dtype):
    """Node names, ``.grad`` against PyTorch's, and ``gradcheck``."""
    name, i = case
    shape = GRADIENTS[name][1][i]
    fn, values, v, t = _grads(name, dtype, shape)
    assert_same(v.grad, t.grad, check_stride=False, rtol=1e-6, atol=1e-6)
    fresh = vg.from_numpy(values.copy()).requires_grad_()
    assert quiet(lambda: vg.autograd.gradcheck(lambda x: fn(vg, x), [fresh]))


def test_gradients_of_layouts():
    """A transposed, batched input: the gradient has its parameter's layout."""
    values = random_values((2, 3, 4), "float64", 2)
    v_pair = laid_out(values, "transposed")
    v, t = v_pair[0].detach().requires_grad_(), v_pair[1].detach().requires_grad_()
    for m, x in ((vg, v), (torch, t)):
        U, S, Vh = m.linalg.svd(x, full_matrices=False)
        Q, R = m.linalg.qr(x)
        (S.sum() + (U @ Vh).sum() + (Q * R.sum(-1).unsqueeze(-2)).sum()).backward()
    assert_same(v.grad, t.grad, rtol=1e-8, atol=1e-8)


REPEATED = {
    "svdvals": lambda m, a: m.linalg.svdvals(a),
    "eigvalsh": lambda m, a: m.linalg.eigvalsh(a),
    "svd S": lambda m, a: m.linalg.svd(a)[1],
    "eigh L": lambda m, a: m.linalg.eigh(a)[0],
    "eigh V": lambda m, a: m.linalg.eigh(a)[1],
    "eig V": lambda m, a: m.linalg.eig(a)[1].abs(),
}


@pytest.mark.parametrize("name", sorted(REPEATED))
def test_repeated_values(name):
    """The values have a gradient where they repeat (the identity); the vectors do not
    (PyTorch's formula divides by the gaps: NaNs)."""
    v = vg.eye(3, dtype=vg.float64).requires_grad_()
    t = torch.eye(3, dtype=torch.float64).requires_grad_()
    REPEATED[name](vg, v).sum().backward()
    REPEATED[name](torch, t).sum().backward()
    assert_same(v.grad, t.grad)


GAUGE = {
    "svd U": lambda m, a: m.linalg.svd(a)[0].real.sum(),
    "svd Vh": lambda m, a: m.linalg.svd(a, False)[2].imag.sum(),
    "svd U and Vh": lambda m, a: (lambda r: r[0].real.sum() + r[2].real.sum())(m.linalg.svd(a)),
    "old svd V": lambda m, a: m.svd(a)[2].real.sum(),
    "eigh": lambda m, a: m.linalg.eigh(_herm(a))[1].real.sum(),
    "eig": lambda m, a: m.linalg.eig(a)[1].real.sum(),
    "eig of a real matrix": lambda m, a: m.linalg.eig(a.real)[1].real.sum(),
    "qr r": lambda m, a: m.linalg.qr(a, mode="r")[1].abs().sum(),
    "qr complete tall": lambda m, a: m.linalg.qr(a[..., :2], mode="complete")[0].abs().sum(),
}


@pytest.mark.parametrize("name", sorted(GAUGE))
def test_ill_defined_gradients_raise(name):
    """A loss that depends on the phases of complex vectors has no gradient; nor does
    ``qr`` without ``Q``, or ``qr`` complete of a tall matrix. PyTorch's words."""
    values = random_values((3, 3), "complex128", 4)
    v = vg.from_numpy(values.copy()).requires_grad_()
    t = torch.from_numpy(values.copy()).requires_grad_()
    vg_error, torch_error = assert_same_error(
        lambda: GAUGE[name](vg, v).backward(), lambda: GAUGE[name](torch, t).backward()
    )
    assert str(vg_error) == str(torch_error)


def test_phase_invariant_complex_losses_pass_the_check():
    """``|U|`` (and ``U Vh``) do not depend on the phases: no error, PyTorch's gradient."""
    fn, values, v, t = _grads("svd U Vh", "complex128", (3, 3), seed=5)
    assert_same(v.grad, t.grad, check_stride=False, rtol=1e-6, atol=1e-6)


SAVED = {
    "linalg.svd": (lambda m, a: m.linalg.svd(a).U, ("U", "S", "Vh", "full_matrices")),
    "linalg.eigh": (lambda m, a: m.linalg.eigh(a)[1], ("eigenvalues", "eigenvectors")),
    "linalg.eig": (lambda m, a: m.linalg.eig(a)[1], ("eigenvalues", "eigenvectors")),
    "linalg.qr": (lambda m, a: m.linalg.qr(a).Q, ("Q", "R", "mode")),
}


@pytest.mark.parametrize("name", sorted(SAVED))
def test_saved_values_are_pytorchs(name):
    fn, saved = SAVED[name]
    values = random_values((3, 3), "float64", 6)
    v = fn(vg, vg.from_numpy(values.copy()).requires_grad_()).grad_fn
    t = fn(torch, torch.from_numpy(values.copy()).requires_grad_()).grad_fn
    for attribute in saved:
        expected = getattr(t, f"_saved_{attribute}")
        got = getattr(v, f"_saved_{attribute}")
        if isinstance(expected, torch.Tensor):
            same_layout(got, expected)
        else:
            assert got == expected


def test_second_derivative_of_svdvals():
    """``create_graph=True``: the backward is recorded and differentiable."""
    values = random_values((3, 3), "float64", 9)
    v = vg.from_numpy(values.copy()).requires_grad_()
    t = torch.from_numpy(values.copy()).requires_grad_()
    (v_grad,) = vg.autograd.grad(vg.linalg.svdvals(v).sum(), [v], create_graph=True)
    (t_grad,) = torch.autograd.grad(torch.linalg.svdvals(t).sum(), [t], create_graph=True)
    (v_second,) = vg.autograd.grad((v_grad * v_grad).sum(), [v])
    (t_second,) = torch.autograd.grad((t_grad * t_grad).sum(), [t])
    assert_same(v_second, t_second, check_stride=False, rtol=1e-7, atol=1e-7)


def test_values_without_grad_compute_no_vectors():
    """``svdvals``/``eigvalsh``/``eigvals`` compute the vectors only when the input
    requires grad (then the node keeps them)."""
    A = vg.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=vg.float64)
    assert vg.linalg.svdvals(A).grad_fn is None
    S = vg.linalg.svdvals(A.requires_grad_())
    assert S.grad_fn.name() == "LinalgSvdBackward0"
    assert S.grad_fn._saved_U.shape == (2, 2)
    with vg.no_grad():
        assert vg.linalg.eigvalsh(A).grad_fn is None
    assert vg.linalg.eigvals(A).grad_fn.name() == "LinalgEigBackward0"

"""The factorizations and what they solve, against PyTorch: ``det``, ``slogdet``,
``logdet``, ``inverse``, ``linalg.inv(_ex)``, ``linalg.solve(_ex)``, ``linalg.cholesky(_ex)``,
``cholesky``, ``cholesky_solve``, ``cholesky_inverse``, ``linalg.lu_factor(_ex)``,
``linalg.lu``, ``lu_unpack``, ``linalg.lu_solve``, ``lu_solve``,
``linalg.solve_triangular`` and ``triangular_solve``.

Values, dtypes, shapes and strides (PyTorch returns most of these column-major) on every
layout, batched, broadcast and empty; the ``_ex`` functions' ``info``; ``out=``; errors
(singular, not positive-definite, not square, wrong dtypes); gradients (node names,
``.grad``, ``gradcheck``, second derivatives).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients
from oracle import LAYOUTS, assert_same, assert_same_error, laid_out

import vizgrad as vg

FLOATS = ["float32", "float64"]
COMPLEXES = ["complex64", "complex128"]
TOLERANCE = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-9, "complex128": 1e-9}


# --- inputs ------------------------------------------------------------------------------------


def random_values(shape, dtype: str, seed: int = 0, same_batch: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    draw_shape = shape[1:] if same_batch and shape else shape
    values = rng.standard_normal(draw_shape)
    if dtype.startswith("complex"):
        values = values + 1j * rng.standard_normal(draw_shape)
    values = values.astype(dtype)
    return np.broadcast_to(values, shape).copy() if same_batch and shape else values


def spd_values(shape, dtype: str, seed: int = 0, same_batch: bool = False) -> np.ndarray:
    """A Hermitian positive-definite matrix (or a batch): ``M Mᴴ + n I``."""
    m = random_values(shape, dtype, seed, same_batch)
    n = shape[-1]
    return (m @ np.swapaxes(m, -1, -2).conj() + n * np.eye(n)).astype(dtype)


def matrices(shape, dtype, layout, seed=0, spd=False):
    """Matrices in ``layout``. An expanded matrix (not a batch) has equal rows: singular,
    and not positive-definite."""
    if layout == "expanded" and len(shape) == 2:
        return laid_out(random_values(shape, dtype, seed, same_batch=True), layout)
    make = spd_values if spd else random_values
    return laid_out(make(shape, dtype, seed, same_batch=layout == "expanded"), layout)


def same(v, t, dtype, check_stride=True):
    """``assert_same`` with the tolerance of ``dtype``; a conjugate view (a complex
    ``left=False`` solve) must be one in both, then its values are compared."""
    if isinstance(t, tuple):
        assert isinstance(v, tuple) and len(v) == len(t)
        for v_item, t_item in zip(v, t, strict=True):
            same(v_item, t_item, dtype, check_stride)
        return
    if isinstance(t, torch.Tensor) and (t.is_conj() or v.is_conj()):
        assert v.is_conj() == t.is_conj()
        assert not check_stride or v.stride() == t.stride()
        v, t = v.resolve_conj(), t.resolve_conj()
    tol = TOLERANCE[dtype]
    assert_same(v, t, rtol=tol, atol=tol, check_stride=check_stride)


def run_both(fn, *pairs):
    """``fn(library, *inputs)`` in vizgrad and in PyTorch, with torch's warnings quiet."""
    v_inputs = [p[0] for p in pairs]
    t_inputs = [p[1] for p in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(vg, *v_inputs), fn(torch, *t_inputs)


def same_outcome(fn, *pairs, dtype="float64"):
    """The same result as PyTorch's, or the same error (an expanded matrix, whose rows are
    all the same, is singular)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = fn(torch, *[p[1] for p in pairs])
        except (RuntimeError, TypeError):
            vg_error, torch_error = assert_same_error(
                lambda: fn(vg, *[p[0] for p in pairs]), lambda: fn(torch, *[p[1] for p in pairs])
            )
            assert str(vg_error) == str(torch_error).replace("torch.", "vizgrad.")
            return
        same(fn(vg, *[p[0] for p in pairs]), expected, dtype)


def _as_tuple(result):
    return tuple(result) if isinstance(result, tuple) else result


# --- square matrices: det, slogdet, inv, cholesky, lu --------------------------------------------

SQUARE_OPS = {
    "det": lambda m, a: m.det(a),
    "Tensor.det": lambda m, a: a.det(),
    "linalg.det": lambda m, a: m.linalg.det(a),
    "slogdet": lambda m, a: _as_tuple(m.slogdet(a)),
    "linalg.slogdet": lambda m, a: _as_tuple(m.linalg.slogdet(a)),
    "logdet": lambda m, a: m.logdet(a),
    "inverse": lambda m, a: m.inverse(a),
    "linalg.inv": lambda m, a: m.linalg.inv(a),
    "linalg.inv_ex": lambda m, a: _as_tuple(m.linalg.inv_ex(a)),
    "linalg.lu_factor": lambda m, a: _as_tuple(m.linalg.lu_factor(a)),
    "linalg.lu_factor_ex": lambda m, a: _as_tuple(m.linalg.lu_factor_ex(a)),
    "linalg.lu": lambda m, a: _as_tuple(m.linalg.lu(a)),
    "lu_unpack": lambda m, a: _as_tuple(m.lu_unpack(*m.linalg.lu_factor(a))),
}
SPD_OPS = {
    "linalg.cholesky": lambda m, a: m.linalg.cholesky(a),
    "linalg.cholesky upper": lambda m, a: m.linalg.cholesky(a, upper=True),
    "linalg.cholesky_ex": lambda m, a: _as_tuple(m.linalg.cholesky_ex(a)),
    "linalg.cholesky_ex upper": lambda m, a: _as_tuple(m.linalg.cholesky_ex(a, upper=True)),
    "cholesky": lambda m, a: m.cholesky(a),
    "Tensor.cholesky upper": lambda m, a: a.cholesky(upper=True),
    "cholesky_inverse": lambda m, a: m.cholesky_inverse(m.linalg.cholesky(a)),
    "cholesky_inverse upper": lambda m, a: m.cholesky_inverse(
        m.linalg.cholesky(a, upper=True), upper=True
    ),
}


@pytest.mark.parametrize("dtype", FLOATS + COMPLEXES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (2, 1, 3, 3)])
@pytest.mark.parametrize("name", sorted(SQUARE_OPS))
def test_square_matrices(name, shape, layout, dtype):
    """Values, dtypes, shapes and strides (column-major LU factors and inverses)."""
    same_outcome(SQUARE_OPS[name], matrices(shape, dtype, layout), dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS + COMPLEXES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
@pytest.mark.parametrize("name", sorted(SPD_OPS))
def test_positive_definite_matrices(name, shape, layout, dtype):
    same_outcome(SPD_OPS[name], matrices(shape, dtype, layout, spd=True), dtype=dtype)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3), (1, 1), (3, 1, 1)])
@pytest.mark.parametrize("name", sorted(SQUARE_OPS) + sorted(SPD_OPS))
def test_empty_and_one_by_one(name, shape):
    spd = name in SPD_OPS
    pair = matrices(shape, "float64", "contiguous", spd=spd)
    v, t = run_both({**SQUARE_OPS, **SPD_OPS}[name], pair)
    same(v, t, "float64")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(3, 2), (2, 3), (2, 4, 3), (2, 3, 5), (3, 0), (0, 3), (2, 3, 0)])
@pytest.mark.parametrize(
    "name", ["linalg.lu_factor", "linalg.lu_factor_ex", "linalg.lu", "lu_unpack", "lu_unpack parts"]
)
def test_rectangular_lu(name, shape, layout):
    fn = {
        **SQUARE_OPS,
        "lu_unpack parts": lambda m, a: (
            *m.lu_unpack(*m.linalg.lu_factor(a), unpack_data=False),
            *m.lu_unpack(*m.linalg.lu_factor(a), unpack_pivots=False),
        ),
    }[name]
    same_outcome(fn, matrices(shape, "float64", layout))


def test_pivots_are_lapacks():
    """1-based ``int32`` row numbers, as ``getrf`` returns them."""
    A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]]
    LU, pivots = vg.linalg.lu_factor(vg.tensor(A))
    expected = torch.linalg.lu_factor(torch.tensor(A))
    assert pivots.dtype is vg.int32
    assert pivots.tolist() == expected.pivots.tolist() == [3, 3, 3]
    assert_same(LU, expected.LU)


def test_named_results():
    A = vg.tensor([[2.0, 1.0], [1.0, 3.0]])
    assert type(vg.linalg.slogdet(A)).__name__ == "linalg_slogdet"
    assert type(vg.slogdet(A)).__name__ == "slogdet"
    assert vg.slogdet(A).sign.item() == 1.0
    assert type(vg.linalg.inv_ex(A)).__name__ == "linalg_inv_ex"
    assert vg.linalg.inv_ex(A).info.item() == 0
    assert vg.linalg.cholesky_ex(A).L.shape == (2, 2)
    assert vg.linalg.lu(A).U.shape == (2, 2)
    assert vg.linalg.lu_factor_ex(A)._fields == ("LU", "pivots", "info")
    assert vg.lu_unpack(*vg.linalg.lu_factor(A))._fields == ("P", "L", "U")
    out = (vg.empty(0), vg.empty(0))
    assert type(vg.linalg.slogdet(A, out=out)).__name__ == "linalg_slogdet_out"
    assert vg.linalg.LinAlgError.__name__ == "_LinAlgError"
    assert issubclass(vg.linalg.LinAlgError, RuntimeError)


# --- solving ----------------------------------------------------------------------------------

# (A's shape, B's shape, left): matrices, vectors (NumPy's rule), broadcast batches.
SOLVE_SHAPES = [
    ((3, 3), (3, 2), True),
    ((3, 3), (3,), True),
    ((2, 3, 3), (3,), True),
    ((2, 3, 3), (2, 3), True),
    ((2, 3, 3), (3, 1), True),
    ((2, 3, 3), (4, 1, 3, 2), True),
    ((1, 3, 3), (2, 3, 4), True),
    ((3, 3), (4, 3), False),
    ((2, 3, 3), (5, 2, 4, 3), False),
    ((0, 0), (0,), True),
    ((0, 3, 3), (3, 2), True),
    ((3, 3), (3, 0), True),
]
SOLVERS = {
    "linalg.solve": lambda m, a, b, left: m.linalg.solve(a, b, left=left),
    "linalg.solve_ex": lambda m, a, b, left: _as_tuple(m.linalg.solve_ex(a, b, left=left)),
}


@pytest.mark.parametrize("dtype", FLOATS + COMPLEXES)
@pytest.mark.parametrize("layouts", [("contiguous", "contiguous"), ("transposed", "stepped"),
                                     ("offset", "transposed"), ("stepped", "offset")])  # fmt: skip
@pytest.mark.parametrize("shapes", SOLVE_SHAPES)
@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_solve(name, shapes, layouts, dtype):
    a_shape, b_shape, left = shapes
    A = matrices(a_shape, dtype, layouts[0], seed=1)
    B = laid_out(random_values(b_shape, dtype, seed=2), layouts[1])
    v, t = run_both(lambda m, a, b: SOLVERS[name](m, a, b, left), A, B)
    same(v, t, dtype)


LU_SOLVE_SHAPES = [
    ((3, 3), (3, 2)),
    ((2, 3, 3), (2, 3, 4)),
    ((3, 3), (2, 3, 2)),
    ((1, 3, 3), (4, 3, 3)),
    ((2, 3, 3), (3, 5)),
    ((0, 0), (0, 2)),
    ((3, 3), (3, 0)),
]


@pytest.mark.parametrize("dtype", FLOATS + COMPLEXES)
@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("b_layout", ["contiguous", "transposed", "offset"])
@pytest.mark.parametrize("shapes", LU_SOLVE_SHAPES)
def test_lu_solve(shapes, b_layout, left, adjoint, dtype):
    a_shape, b_shape = shapes
    if not left:  # X A = B: B's rows are as long as A's
        b_shape = (*b_shape[:-2], b_shape[-1], b_shape[-2])
    A = matrices(a_shape, dtype, "contiguous", seed=3)
    B = laid_out(random_values(b_shape, dtype, seed=4), b_layout)

    def fn(m, a, b):
        return m.linalg.lu_solve(*m.linalg.lu_factor(a), b, left=left, adjoint=adjoint)

    v, t = run_both(fn, A, B)
    same(v, t, dtype)


@pytest.mark.parametrize("shapes", LU_SOLVE_SHAPES[:5])
def test_deprecated_lu_solve(shapes):
    A = matrices(shapes[0], "float64", "contiguous")
    B = laid_out(random_values(shapes[1], "float64", seed=1), "contiguous")
    v, t = run_both(lambda m, a, b: m.lu_solve(b, *m.linalg.lu_factor(a)), A, B)
    same(v, t, "float64")
    v, t = run_both(lambda m, a, b: b.lu_solve(*m.linalg.lu_factor(a)), A, B)
    same(v, t, "float64")


@pytest.mark.parametrize("dtype", FLOATS + COMPLEXES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize(
    "shapes", [((3, 3), (3, 2)), ((2, 3, 3), (3, 4)), ((3, 3), (2, 3, 1)), ((0, 0), (0, 1))]
)
def test_cholesky_solve(shapes, layout, upper, dtype):
    A = matrices(shapes[0], dtype, "contiguous", spd=True)
    B = laid_out(random_values(shapes[1], dtype, seed=5), layout)

    def fn(m, a, b):
        return m.cholesky_solve(b, m.linalg.cholesky(a, upper=upper), upper=upper)

    v, t = run_both(fn, A, B)
    same(v, t, dtype)
    v, t = run_both(lambda m, a, b: b.cholesky_solve(m.linalg.cholesky(a)), A, B)
    same(v, t, dtype)


def _triangular(m, a, upper):
    """A well-conditioned triangular matrix from ``a``: its triangle plus 4 on the diagonal."""
    eye = m.eye(a.shape[-1], dtype=a.dtype)
    return (a.triu() if upper else a.tril()) + 4 * eye


@pytest.mark.parametrize("dtype", FLOATS + COMPLEXES)
@pytest.mark.parametrize("unitriangular", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "offset"])
@pytest.mark.parametrize("shapes", [((3, 3), (3, 2)), ((2, 3, 3), (3, 4)), ((3, 3), (2, 3, 3))])
def test_solve_triangular(shapes, layout, upper, left, unitriangular, dtype):
    a_shape, b_shape = shapes
    if not left:  # X A = B: B's rows are as long as A's
        b_shape = (*b_shape[:-2], b_shape[-1], b_shape[-2])
    A = matrices(a_shape, dtype, "contiguous", seed=6)
    B = laid_out(random_values(b_shape, dtype, seed=7), layout)

    def fn(m, a, b):
        return m.linalg.solve_triangular(
            _triangular(m, a, upper), b, upper=upper, left=left, unitriangular=unitriangular
        )

    v, t = run_both(fn, A, B)
    same(v, t, dtype)


@pytest.mark.parametrize("dtype", FLOATS + COMPLEXES)
@pytest.mark.parametrize("options", [(True, False, False), (False, True, False),
                                     (True, True, True), (False, False, True)])  # fmt: skip
@pytest.mark.parametrize("shapes", [((3, 3), (3, 2)), ((2, 3, 3), (3, 4)), ((3, 3), (2, 3, 1))])
def test_triangular_solve(shapes, options, dtype):
    upper, transpose, unitriangular = options
    A = matrices(shapes[0], dtype, "transposed", seed=8)
    B = laid_out(random_values(shapes[1], dtype, seed=9), "contiguous")

    def fn(m, a, b):
        return _as_tuple(m.triangular_solve(b, _triangular(m, a, upper), upper, transpose,
                                            unitriangular))  # fmt: skip

    v, t = run_both(fn, A, B)
    same(v, t, dtype)


def test_singular_triangular_matrix_gives_infinities():
    """``trsm`` divides by the zero on the diagonal: no error, as in PyTorch."""
    A = [[1.0, 2.0], [0.0, 0.0]]
    B = [[1.0], [1.0]]
    v = vg.linalg.solve_triangular(vg.tensor(A), vg.tensor(B), upper=True)
    t = torch.linalg.solve_triangular(torch.tensor(A), torch.tensor(B), upper=True)
    assert_same(v, t)


# --- singular matrices and the _ex functions ------------------------------------------------

SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]])
NOT_POSITIVE = np.array([[1.0, 2.0], [2.0, 1.0]])
EX_CASES = {
    "linalg.inv_ex": (SINGULAR, lambda m, a: _as_tuple(m.linalg.inv_ex(a))),
    "linalg.solve_ex": (SINGULAR, lambda m, a: _as_tuple(m.linalg.solve_ex(a, a[..., :1]))),
    "linalg.lu_factor_ex": (SINGULAR, lambda m, a: _as_tuple(m.linalg.lu_factor_ex(a))),
    "linalg.cholesky_ex": (NOT_POSITIVE, lambda m, a: _as_tuple(m.linalg.cholesky_ex(a))),
    "linalg.cholesky_ex upper": (
        NOT_POSITIVE,
        lambda m, a: _as_tuple(m.linalg.cholesky_ex(a, upper=True)),
    ),
    "linalg.det": (SINGULAR, lambda m, a: m.linalg.det(a)),
    "linalg.slogdet": (SINGULAR, lambda m, a: _as_tuple(m.linalg.slogdet(a))),
    "logdet": (NOT_POSITIVE, lambda m, a: m.logdet(a)),
    "linalg.lu": (SINGULAR, lambda m, a: _as_tuple(m.linalg.lu(a))),
}


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("name", sorted(EX_CASES))
def test_failures_reported_in_info(name, batched, layout):
    """``info`` (and the values LAPACK leaves) instead of an error; batched, the matrix
    that fails is the second."""
    bad, fn = EX_CASES[name]
    values = np.stack([np.eye(len(bad)), bad]) if batched else bad
    pair = laid_out(values, layout)
    v, t = run_both(fn, pair)
    same(v, t, "float64")


SINGULAR_BATCH = np.stack([np.eye(3), SINGULAR])
NOT_POSITIVE_BATCH = np.stack([np.eye(2), NOT_POSITIVE])
RAISING = {
    "linalg.inv": (SINGULAR, lambda m, a: m.linalg.inv(a)),
    "inverse": (SINGULAR_BATCH, lambda m, a: m.inverse(a)),
    "linalg.inv_ex check_errors": (SINGULAR, lambda m, a: m.linalg.inv_ex(a, check_errors=True)),
    "linalg.inv out": (SINGULAR_BATCH, lambda m, a: m.linalg.inv(a, out=m.empty(0, dtype=a.dtype))),
    "linalg.solve": (SINGULAR, lambda m, a: m.linalg.solve(a, a)),
    "linalg.solve batch": (SINGULAR_BATCH, lambda m, a: m.linalg.solve(a, a[0, 0])),
    "linalg.solve_ex check_errors": (
        SINGULAR_BATCH,
        lambda m, a: m.linalg.solve_ex(a, a, check_errors=True),
    ),
    "linalg.lu_factor": (SINGULAR, lambda m, a: m.linalg.lu_factor(a)),
    "linalg.lu_factor batch": (SINGULAR_BATCH, lambda m, a: m.linalg.lu_factor(a)),
    "linalg.lu_factor_ex check_errors": (
        SINGULAR_BATCH,
        lambda m, a: m.linalg.lu_factor_ex(a, check_errors=True),
    ),
    "linalg.cholesky": (NOT_POSITIVE, lambda m, a: m.linalg.cholesky(a)),
    "linalg.cholesky batch": (NOT_POSITIVE_BATCH, lambda m, a: m.linalg.cholesky(a)),
    "linalg.cholesky out": (
        NOT_POSITIVE,
        lambda m, a: m.linalg.cholesky(a, out=m.empty(0, dtype=a.dtype)),
    ),
    "linalg.cholesky_ex check_errors": (
        NOT_POSITIVE,
        lambda m, a: m.linalg.cholesky_ex(a, check_errors=True),
    ),
    "cholesky": (NOT_POSITIVE_BATCH, lambda m, a: m.cholesky(a)),
    "cholesky_inverse": (np.zeros((3, 3)), lambda m, a: m.cholesky_inverse(a)),
}


@pytest.mark.parametrize("name", sorted(RAISING))
def test_failures_raise(name):
    """PyTorch's words, and ``LinAlgError`` where PyTorch raises its ``_LinAlgError``."""
    bad, fn = RAISING[name]
    v_in, t_in = laid_out(bad, "contiguous")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vg_error, torch_error = assert_same_error(lambda: fn(vg, v_in), lambda: fn(torch, t_in))
    assert str(vg_error) == str(torch_error).split(" (Triggered")[0].replace("torch.", "vizgrad.")
    assert isinstance(vg_error, vg.linalg.LinAlgError) == isinstance(
        torch_error, torch.linalg.LinAlgError
    )


# --- bad arguments --------------------------------------------------------------------------


def _t(shape=(3, 3), dtype="float32", fill=None):
    values = np.eye(*shape[-2:]) if fill is None and len(shape) >= 2 else np.ones(shape)
    values = np.broadcast_to(values, shape).astype(dtype)
    return values


BAD_CALLS = {
    # not a matrix, not square
    "det 1-D": (lambda m, a: m.det(a), [_t((3,))]),
    "det 0-D": (lambda m, a: m.linalg.det(a), [_t(())]),
    "det not square": (lambda m, a: m.det(a), [_t((2, 3))]),
    "slogdet not square": (lambda m, a: m.slogdet(a), [_t((2, 3))]),
    "logdet not square": (lambda m, a: m.logdet(a), [_t((2, 3))]),
    "inv not square": (lambda m, a: m.linalg.inv(a), [_t((2, 3))]),
    "inv_ex 1-D": (lambda m, a: m.linalg.inv_ex(a), [_t((3,))]),
    "inverse not square": (lambda m, a: m.inverse(a), [_t((2, 2, 3))]),
    "cholesky not square": (lambda m, a: m.linalg.cholesky(a), [_t((2, 3))]),
    "cholesky_ex 1-D": (lambda m, a: m.linalg.cholesky_ex(a), [_t((3,))]),
    "old cholesky not square": (lambda m, a: m.cholesky(a), [_t((2, 3))]),
    "cholesky_inverse not square": (lambda m, a: m.cholesky_inverse(a), [_t((2, 3))]),
    "lu_factor 1-D": (lambda m, a: m.linalg.lu_factor(a), [_t((3,))]),
    "lu_factor_ex 0-D": (lambda m, a: m.linalg.lu_factor_ex(a), [_t(())]),
    "lu 1-D": (lambda m, a: m.linalg.lu(a), [_t((3,))]),
    "lu_factor no pivoting": (lambda m, a: m.linalg.lu_factor(a, pivot=False), [_t()]),
    "lu no pivoting": (lambda m, a: m.linalg.lu(a, pivot=False), [_t()]),
    # dtypes
    "det int": (lambda m, a: m.det(a), [_t(dtype="int64")]),
    "det bool": (lambda m, a: m.linalg.det(a), [_t(dtype="bool")]),
    "det half": (lambda m, a: m.det(a), [_t(dtype="float16")]),
    "slogdet half": (lambda m, a: m.linalg.slogdet(a), [_t(dtype="float16")]),
    "logdet int": (lambda m, a: m.logdet(a), [_t(dtype="int32")]),
    "logdet half": (lambda m, a: m.logdet(a), [_t(dtype="float16")]),
    "inv int": (lambda m, a: m.linalg.inv(a), [_t(dtype="int64")]),
    "inv half": (lambda m, a: m.inverse(a), [_t(dtype="float16")]),
    "cholesky int": (lambda m, a: m.linalg.cholesky(a), [_t(dtype="int64")]),
    "cholesky half": (lambda m, a: m.linalg.cholesky(a), [_t(dtype="float16")]),
    "old cholesky int": (lambda m, a: m.cholesky(a), [_t(dtype="int64")]),
    "lu_factor int": (lambda m, a: m.linalg.lu_factor(a), [_t(dtype="int64")]),
    "lu half": (lambda m, a: m.linalg.lu(a), [_t(dtype="float16")]),
    "cholesky_inverse half": (lambda m, a: m.cholesky_inverse(a), [_t(dtype="float16")]),
    # solve
    "solve int": (lambda m, a, b: m.linalg.solve(a, b), [_t(dtype="int64"), _t((3, 2), "int64")]),
    "solve half": (
        lambda m, a, b: m.linalg.solve(a, b),
        [_t(dtype="float16"), _t((3, 2), "float16")],
    ),  # fmt: skip
    "solve dtypes": (lambda m, a, b: m.linalg.solve(a, b), [_t(), _t((3, 2), "float64")]),
    "solve 1-D A": (lambda m, a, b: m.linalg.solve(a, b), [_t((3,)), _t((3, 2))]),
    "solve not square": (lambda m, a, b: m.linalg.solve(a, b), [_t((2, 3)), _t((3, 2))]),
    "solve 0-D B": (lambda m, a, b: m.linalg.solve(a, b), [_t(), _t(())]),
    "solve shapes": (lambda m, a, b: m.linalg.solve(a, b), [_t(), _t((4, 2))]),
    "solve vector shape": (lambda m, a, b: m.linalg.solve(a, b), [_t(), _t((4,))]),
    "solve right shapes": (lambda m, a, b: m.linalg.solve(a, b, left=False), [_t(), _t((2, 4))]),
    "solve right vector": (lambda m, a, b: m.linalg.solve(a, b, left=False), [_t(), _t((3,))]),
    "solve batches": (
        lambda m, a, b: m.linalg.solve_ex(a, b),
        [_t((2, 3, 3)), _t((3, 3, 2))],
    ),  # fmt: skip
    # lu_solve
    "lu_solve int": (
        lambda m, lu, b: m.linalg.lu_solve(lu, m.ones(3, dtype=m.int32), b),
        [_t(dtype="int64"), _t((3, 2), "int64")],
    ),  # fmt: skip
    "lu_solve half": (
        lambda m, lu, b: m.linalg.lu_solve(lu, m.ones(3, dtype=m.int32), b),
        [_t(dtype="float16"), _t((3, 2), "float16")],
    ),  # fmt: skip
    "lu_solve dtypes": (
        lambda m, lu, b: m.linalg.lu_solve(lu, m.ones(3, dtype=m.int32), b),
        [_t(), _t((3, 2), "float64")],
    ),  # fmt: skip
    "lu_solve int64 pivots": (
        lambda m, lu, b: m.linalg.lu_solve(lu, m.ones(3, dtype=m.int64), b),
        [_t(), _t((3, 2))],
    ),  # fmt: skip
    "lu_solve zero pivot": (
        lambda m, lu, b: m.linalg.lu_solve(lu, m.zeros(3, dtype=m.int32), b),
        [_t(), _t((3, 2))],
    ),  # fmt: skip
    "lu_solve big pivot": (
        lambda m, lu, b: m.linalg.lu_solve(lu, m.full((3,), 4, dtype=m.int32), b),
        [_t(), _t((3, 2))],
    ),  # fmt: skip
    "lu_solve pivot count": (
        lambda m, lu, b: m.linalg.lu_solve(lu, m.ones(2, dtype=m.int32), b),
        [_t(), _t((3, 2))],
    ),  # fmt: skip
    "lu_solve pivot batch": (
        lambda m, lu, b: m.linalg.lu_solve(lu, m.ones(2, 3, dtype=m.int32), b),
        [_t(), _t((3, 2))],
    ),  # fmt: skip
    "lu_solve not square": (
        lambda m, lu, b: m.linalg.lu_solve(lu, m.ones(2, dtype=m.int32), b),
        [_t((3, 2)), _t((3, 2))],
    ),  # fmt: skip
    "lu_solve 1-D B": (
        lambda m, lu, b: m.linalg.lu_solve(lu, m.ones(3, dtype=m.int32), b),
        [_t(), _t((3,))],
    ),  # fmt: skip
    "lu_solve right shapes": (
        lambda m, lu, b: m.linalg.lu_solve(lu, m.ones(3, dtype=m.int32), b, left=False),
        [_t(), _t((3, 2))],
    ),  # fmt: skip
    # lu_unpack
    "lu_unpack 1-D": (lambda m, lu: m.lu_unpack(lu, m.ones(3, dtype=m.int32)), [_t((3,))]),
    "lu_unpack int64 pivots": (lambda m, lu: m.lu_unpack(lu, m.ones(3, dtype=m.int64)), [_t()]),
    "lu_unpack zero pivot": (lambda m, lu: m.lu_unpack(lu, m.zeros(3, dtype=m.int32)), [_t()]),
    "lu_unpack big pivot": (
        lambda m, lu: m.lu_unpack(lu, m.full((3,), 9, dtype=m.int32)),
        [_t()],
    ),  # fmt: skip
    # cholesky_solve
    "cholesky_solve int": (
        lambda m, b, u: m.cholesky_solve(b, u),
        [_t((3, 2), "int64"), _t(dtype="int64")],
    ),  # fmt: skip
    "cholesky_solve half": (
        lambda m, b, u: m.cholesky_solve(b, u),
        [_t((3, 2), "float16"), _t(dtype="float16")],
    ),  # fmt: skip
    "cholesky_solve dtypes": (
        lambda m, b, u: m.cholesky_solve(b, u),
        [_t((3, 2), "float64"), _t()],
    ),
    "cholesky_solve 1-D b": (lambda m, b, u: m.cholesky_solve(b, u), [_t((3,)), _t()]),
    "cholesky_solve 1-D u": (lambda m, b, u: m.cholesky_solve(b, u), [_t((3, 2)), _t((3,))]),
    "cholesky_solve not square": (
        lambda m, b, u: m.cholesky_solve(b, u),
        [_t((3, 2)), _t((3, 2))],
    ),  # fmt: skip
    "cholesky_solve shapes": (lambda m, b, u: m.cholesky_solve(b, u), [_t((4, 2)), _t()]),
    # the triangular solvers
    "solve_triangular half": (
        lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True),
        [_t(dtype="float16"), _t((3, 2), "float16")],
    ),  # fmt: skip
    "solve_triangular int": (
        lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True),
        [_t(dtype="int64"), _t((3, 2), "int64")],
    ),  # fmt: skip
    "solve_triangular not square": (
        lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True),
        [_t((3, 2)), _t((3, 2))],
    ),  # fmt: skip
    "solve_triangular 1-D B": (
        lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True),
        [_t(), _t((3,))],
    ),  # fmt: skip
    "solve_triangular shapes": (
        lambda m, a, b: m.linalg.solve_triangular(a, b, upper=False),
        [_t(), _t((4, 2))],
    ),  # fmt: skip
    "solve_triangular no upper": (
        lambda m, a, b: m.linalg.solve_triangular(a, b),
        [_t(), _t((3, 2))],
    ),  # fmt: skip
    "triangular_solve half": (
        lambda m, b, a: m.triangular_solve(b, a),
        [_t((3, 2), "float16"), _t(dtype="float16")],
    ),  # fmt: skip
    "triangular_solve dtypes": (
        lambda m, b, a: m.triangular_solve(b, a),
        [_t((3, 2), "float64"), _t()],
    ),  # fmt: skip
    "triangular_solve 1-D b": (lambda m, b, a: m.triangular_solve(b, a), [_t((3,)), _t()]),
    "triangular_solve 1-D A": (lambda m, b, a: m.triangular_solve(b, a), [_t((3, 2)), _t((3,))]),
    "triangular_solve shapes": (lambda m, b, a: m.triangular_solve(b, a), [_t((4, 2)), _t()]),
    # argument types (the parser)
    "det of a number": (lambda m: m.linalg.det(1), []),
    "inv of a list": (lambda m: m.linalg.inv([[1.0]]), []),
    "solve with a number": (lambda m, a: m.linalg.solve(a, 1), [_t()]),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_arguments(name):
    fn, arrays = BAD_CALLS[name]
    pairs = [laid_out(np.asarray(a), "contiguous") for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vg_error, torch_error = assert_same_error(
            lambda: fn(vg, *[p[0] for p in pairs]), lambda: fn(torch, *[p[1] for p in pairs])
        )
    assert str(vg_error).split("\n")[0] == str(torch_error).split("\n")[0].replace(
        "torch.", "vizgrad."
    )


def test_empty_input_of_a_low_precision_type_has_nothing_to_factor():
    """PyTorch returns before dispatching LAPACK's dtype loop for an empty matrix."""
    v = vg.linalg.lu_factor_ex(vg.empty(0, 0, dtype=vg.float16))
    t = torch.linalg.lu_factor_ex(torch.empty(0, 0, dtype=torch.float16))
    assert_same(tuple(v), tuple(t))


# --- out= --------------------------------------------------------------------------------------

A64 = spd_values((2, 3, 3), "float64")
B64 = random_values((2, 3, 4), "float64", seed=3)


def _outs(m, dtypes, shape=(0,)):
    return tuple(m.empty(shape, dtype=getattr(m, d)) for d in dtypes)


OUT_CALLS = {
    "linalg.det": lambda m, a, b, o: m.linalg.det(a, out=o[0]),
    "linalg.slogdet": lambda m, a, b, o: _as_tuple(m.linalg.slogdet(a, out=o[:2])),
    "slogdet": lambda m, a, b, o: _as_tuple(m.slogdet(a, out=o[:2])),
    "linalg.inv": lambda m, a, b, o: m.linalg.inv(a, out=o[0]),
    "inverse": lambda m, a, b, o: m.inverse(a, out=o[0]),
    "linalg.inv_ex": lambda m, a, b, o: _as_tuple(m.linalg.inv_ex(a, out=(o[0], o[3]))),
    "linalg.solve": lambda m, a, b, o: m.linalg.solve(a, b, out=o[0]),
    "linalg.solve left=False": lambda m, a, b, o: m.linalg.solve(a, b.mT, left=False, out=o[0]),
    "linalg.solve_ex": lambda m, a, b, o: _as_tuple(m.linalg.solve_ex(a, b, out=(o[0], o[3]))),
    "linalg.cholesky": lambda m, a, b, o: m.linalg.cholesky(a, out=o[0]),
    "linalg.cholesky_ex": lambda m, a, b, o: _as_tuple(m.linalg.cholesky_ex(a, out=(o[0], o[3]))),
    "cholesky": lambda m, a, b, o: m.cholesky(a, out=o[0]),
    "linalg.lu_factor": lambda m, a, b, o: _as_tuple(m.linalg.lu_factor(a, out=(o[0], o[3]))),
    "linalg.lu_factor_ex": lambda m, a, b, o: _as_tuple(
        m.linalg.lu_factor_ex(a, out=(o[0], o[3], o[4]))
    ),
    "linalg.lu": lambda m, a, b, o: _as_tuple(m.linalg.lu(a, out=o[:3])),
    "lu_unpack": lambda m, a, b, o: _as_tuple(m.lu_unpack(*m.linalg.lu_factor(a), out=o[:3])),
    "linalg.lu_solve": lambda m, a, b, o: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, out=o[0]),
    "linalg.lu_solve left=False": lambda m, a, b, o: m.linalg.lu_solve(
        *m.linalg.lu_factor(a), b.mT, left=False, out=o[0]
    ),
    "lu_solve": lambda m, a, b, o: m.lu_solve(b, *m.linalg.lu_factor(a), out=o[0]),
    "cholesky_solve": lambda m, a, b, o: m.cholesky_solve(b, a, out=o[0]),
    "cholesky_inverse": lambda m, a, b, o: m.cholesky_inverse(a, out=o[0]),
    "linalg.solve_triangular": lambda m, a, b, o: m.linalg.solve_triangular(
        a, b, upper=True, out=o[0]
    ),
    "triangular_solve": lambda m, a, b, o: _as_tuple(m.triangular_solve(b, a, out=o[:2])),
}
# The out= tensors: float64 ones for the results, int32 ones for pivots and info.
OUT_DTYPES = {
    "right": ("float64", "float64", "float64", "int32", "int32"),
    "float32 result": ("float32", "float32", "float32", "int32", "int32"),
    "int64 info": ("float64", "float64", "float64", "int64", "int64"),
    "complex result": ("complex128", "float64", "float64", "int32", "int32"),
    "int64 result": ("int64", "float64", "float64", "int32", "int32"),
}


@pytest.mark.parametrize("out_dtypes", sorted(OUT_DTYPES))
@pytest.mark.parametrize("name", sorted(OUT_CALLS))
def test_out(name, out_dtypes):
    """Empty ``out=`` tensors are resized to PyTorch's layout; a dtype that cannot be
    written is refused in PyTorch's words (or cast, where PyTorch casts)."""
    A, B = laid_out(A64, "contiguous"), laid_out(B64, "contiguous")

    def call(m, a, b):
        return OUT_CALLS[name](m, a, b, _outs(m, OUT_DTYPES[out_dtypes]))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = call(torch, A[1], B[1])
        except RuntimeError:
            assert_same_error(lambda: call(vg, A[0], B[0]), lambda: call(torch, A[1], B[1]))
            return
        same(call(vg, A[0], B[0]), expected, "float64")


@pytest.mark.parametrize(
    "name", ["linalg.inv", "linalg.solve", "linalg.cholesky", "linalg.lu_solve"]
)
def test_out_of_the_right_shape_keeps_its_strides(name):
    A, B = laid_out(A64, "contiguous"), laid_out(B64, "contiguous")
    shape = (2, 3, 3) if name in ("linalg.inv", "linalg.cholesky") else (2, 3, 4)

    def call(m, a, b):
        outs = _outs(m, OUT_DTYPES["right"], shape)
        return OUT_CALLS[name](m, a, b, outs), outs[0]

    (v, v_out), (t, t_out) = call(vg, A[0], B[0]), call(torch, A[1], B[1])
    same(v, t, "float64")
    assert v is v_out and t is t_out


def test_out_refuses_autograd_in_the_operators_name():
    A = vg.eye(3).requires_grad_()
    vg_error, torch_error = assert_same_error(
        lambda: vg.linalg.inv(A, out=vg.empty(0)),
        lambda: torch.linalg.inv(torch.eye(3).requires_grad_(), out=torch.empty(0)),
    )
    assert str(vg_error) == str(torch_error)


# --- gradients -------------------------------------------------------------------------------


def _eye_like(m, a):
    return m.eye(a.shape[-1], dtype=a.dtype)


GRADIENTS = {
    "det": (lambda m, a: m.det(a), [(3, 3)]),
    "linalg.det batch": (lambda m, a: m.linalg.det(a), [(2, 3, 3)]),
    "linalg.slogdet": (lambda m, a: m.linalg.slogdet(a)[1], [(2, 3, 3)]),
    "slogdet": (lambda m, a: m.slogdet(a).logabsdet, [(3, 3)]),
    "logdet": (lambda m, a: m.logdet(a @ a.mH + _eye_like(m, a)), [(3, 3)]),
    "inverse": (lambda m, a: m.inverse(a), [(3, 3)]),
    "linalg.inv": (lambda m, a: m.linalg.inv(a), [(2, 3, 3)]),
    "linalg.inv_ex": (lambda m, a: m.linalg.inv_ex(a), [(3, 3)]),
    "linalg.solve": (lambda m, a, b: m.linalg.solve(a, b), [(3, 3), (3, 2)]),
    "linalg.solve vector": (lambda m, a, b: m.linalg.solve(a, b), [(2, 3, 3), (3,)]),
    "linalg.solve broadcast": (lambda m, a, b: m.linalg.solve(a, b), [(3, 3), (2, 3, 2)]),
    "linalg.solve left=False": (lambda m, a, b: m.linalg.solve(a, b, left=False),
                                [(3, 3), (2, 3)]),  # fmt: skip
    "linalg.solve_ex": (lambda m, a, b: m.linalg.solve_ex(a, b), [(2, 3, 3), (2, 3, 1)]),
    "linalg.cholesky": (lambda m, a: m.linalg.cholesky(a @ a.mH + _eye_like(m, a)), [(3, 3)]),
    "linalg.cholesky upper": (
        lambda m, a: m.linalg.cholesky(a @ a.mH + _eye_like(m, a), upper=True), [(2, 3, 3)]),
    "linalg.cholesky_ex": (lambda m, a: m.linalg.cholesky_ex(a @ a.mH + _eye_like(m, a)),
                           [(3, 3)]),  # fmt: skip
    "cholesky": (lambda m, a: m.cholesky(a @ a.mH + _eye_like(m, a)), [(3, 3)]),
    "linalg.lu_factor": (lambda m, a: m.linalg.lu_factor(a), [(3, 3)]),
    "linalg.lu_factor wide": (lambda m, a: m.linalg.lu_factor(a), [(2, 3)]),
    "linalg.lu_factor_ex tall": (lambda m, a: m.linalg.lu_factor_ex(a), [(2, 4, 3)]),
    "linalg.lu L": (lambda m, a: m.linalg.lu(a)[1], [(3, 3)]),
    "linalg.lu U wide": (lambda m, a: m.linalg.lu(a).U, [(3, 4)]),
    "linalg.lu L tall": (lambda m, a: m.linalg.lu(a).L, [(2, 4, 3)]),
    "lu_unpack": (lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a))[1], [(3, 3)]),
    "lu_unpack wide": (lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)).U, [(3, 5)]),
    "lu_unpack tall": (lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)).L, [(5, 3)]),
    "linalg.lu_solve": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b),
                        [(3, 3), (3, 2)]),  # fmt: skip
    "linalg.lu_solve adjoint": (
        lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, adjoint=True),
        [(3, 3), (2, 3, 2)]),
    "linalg.lu_solve left=False": (
        lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, left=False),
        [(3, 3), (2, 3)]),
    "linalg.lu_solve left=False adjoint": (
        lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, left=False, adjoint=True),
        [(2, 3, 3), (2, 3)]),
    "cholesky_solve": (
        lambda m, a, b: m.cholesky_solve(b, m.linalg.cholesky(a @ a.mH + _eye_like(m, a))),
        [(3, 3), (3, 2)]),
    "cholesky_solve upper": (
        lambda m, a, b: m.cholesky_solve(
            b, m.linalg.cholesky(a @ a.mH + _eye_like(m, a), upper=True), upper=True),
        [(2, 3, 3), (3, 2)]),
    "cholesky_inverse": (
        lambda m, a: m.cholesky_inverse(m.linalg.cholesky(a @ a.mH + _eye_like(m, a))),
        [(3, 3)]),
    "cholesky_inverse upper": (
        lambda m, a: m.cholesky_inverse(
            m.linalg.cholesky(a @ a.mH + _eye_like(m, a), upper=True), upper=True),
        [(3, 3)]),
    "linalg.solve_triangular": (
        lambda m, a, b: m.linalg.solve_triangular(a + 4 * _eye_like(m, a), b, upper=True),
        [(3, 3), (3, 2)]),
    "linalg.solve_triangular left=False unitriangular": (
        lambda m, a, b: m.linalg.solve_triangular(a + 4 * _eye_like(m, a), b, upper=False,
                                                  left=False, unitriangular=True),
        [(2, 3, 3), (2, 3)]),
    "triangular_solve": (lambda m, a, b: m.triangular_solve(b, a + 4 * _eye_like(m, a)),
                         [(3, 3), (3, 2)]),  # fmt: skip
    "triangular_solve transpose": (
        lambda m, a, b: m.triangular_solve(b, a + 4 * _eye_like(m, a), False, True),
        [(3, 3), (3, 2)]),
    "triangular_solve both outputs": (
        lambda m, a, b: (lambda r: r[0].sum() + r[1].sum())(
            m.triangular_solve(b, a + 4 * _eye_like(m, a))),
        [(3, 3), (3, 2)]),
}  # fmt: skip


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients(name, layout):
    """Node names, ``.grad`` against PyTorch's, and ``gradcheck`` (float64)."""
    fn, shapes = GRADIENTS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_gradients(lambda *xs: fn(vg, *xs), lambda *xs: fn(torch, *xs), shapes,
                        layouts=[layout] * len(shapes), check_output_strides=True,
                        atol=1e-6, rtol=1e-6)  # fmt: skip


SECOND_ORDER = {
    "linalg.det": lambda m, a: m.linalg.det(a),
    "linalg.slogdet": lambda m, a: m.linalg.slogdet(a)[1],
    "linalg.inv": lambda m, a: m.linalg.inv(a),
    "linalg.solve": lambda m, a: m.linalg.solve(a, a[..., :1] + 1),
    "linalg.cholesky": lambda m, a: m.linalg.cholesky(a @ a.mH + _eye_like(m, a)),
    "linalg.lu_solve": lambda m, a: m.linalg.lu_solve(*m.linalg.lu_factor(a), a[..., :2]),
    "linalg.lu": lambda m, a: m.linalg.lu(a).U,
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_derivatives(name):
    """``create_graph=True``: the backward is recorded (PyTorch's nodes) and differentiable."""
    values = random_values((2, 3, 3), "float64", seed=11)
    v = vg.from_numpy(values.copy()).requires_grad_()
    t = torch.from_numpy(values.copy()).requires_grad_()
    (v_grad,) = vg.autograd.grad(SECOND_ORDER[name](vg, v).sum(), [v], create_graph=True)
    (t_grad,) = torch.autograd.grad(SECOND_ORDER[name](torch, t).sum(), [t], create_graph=True)
    assert v_grad.grad_fn.name() == type(t_grad.grad_fn).__name__
    (v_second,) = vg.autograd.grad((v_grad * v_grad).sum(), [v])
    (t_second,) = torch.autograd.grad((t_grad * t_grad).sum(), [t])
    same(v_second, t_second, "float64", check_stride=False)


def test_det_of_a_singular_matrix_has_a_gradient():
    """``det`` is differentiable where ``A`` is singular: the zero pivot is nudged."""
    values = np.array([[1.0, 2.0], [2.0, 4.0]])
    v = vg.from_numpy(values.copy()).requires_grad_()
    t = torch.from_numpy(values.copy()).requires_grad_()
    vg.linalg.det(v).backward()
    torch.linalg.det(t).backward()
    assert_same(v.grad, t.grad, rtol=1e-6, atol=1e-6)


def test_saved_factors_are_pytorchs():
    """``_linalg_det`` keeps the LU factors of ``Aᵀ`` for a row-major real ``A`` (the
    layout LAPACK reads without a copy), as PyTorch does; its backward uses them."""
    values = random_values((3, 3), "float64", seed=12)
    v = vg.linalg.det(vg.from_numpy(values.copy()).requires_grad_()).grad_fn
    t = torch.linalg.det(torch.from_numpy(values.copy()).requires_grad_()).grad_fn
    for name in ("_saved_LU", "_saved_pivots", "_saved_result", "_saved_A"):
        assert_same(getattr(v, name), getattr(t, name))
    v = vg.linalg.solve(
        vg.from_numpy(values.copy()).requires_grad_(), vg.ones(3, dtype=vg.float64)
    ).grad_fn
    t = torch.linalg.solve(torch.from_numpy(values.copy()).requires_grad_(),
                           torch.ones(3, dtype=torch.float64)).grad_fn  # fmt: skip
    assert_same(v._saved_LU, t._saved_LU)
    assert v._saved_left is t._saved_left is True


def test_deprecated_functions_warn():
    A = spd_values((3, 3), "float64")
    v, _ = laid_out(A, "contiguous")
    with pytest.warns(UserWarning, match=r"vizgrad\.cholesky is deprecated"):
        vg.cholesky(v)
    with pytest.warns(UserWarning, match=r"vizgrad\.triangular_solve is deprecated"):
        vg.triangular_solve(v, v)
    with pytest.warns(UserWarning, match=r"vizgrad\.lu_solve is deprecated"):
        vg.lu_solve(v, *vg.linalg.lu_factor(v))


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_complex_gradients(name):
    """Complex inputs: PyTorch's gradients (conjugate Wirtinger calculus), and gradcheck."""
    fn, shapes = GRADIENTS[name]
    arrays = [random_values(shape, "complex128", seed=i) for i, shape in enumerate(shapes)]
    v_in = [vg.from_numpy(a.copy()).requires_grad_() for a in arrays]
    t_in = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v_out, t_out = fn(vg, *v_in), fn(torch, *t_in)
        v_out = v_out[0] if isinstance(v_out, tuple) else v_out
        t_out = t_out[0] if isinstance(t_out, tuple) else t_out
        upstream = np.asarray(random_values(tuple(t_out.shape), str(t_out.dtype)[6:], seed=9))
        v_out.backward(vg.from_numpy(upstream.copy()))
        t_out.backward(torch.from_numpy(upstream.copy()))
        for v, t in zip(v_in, t_in, strict=True):
            same(v.grad, t.grad, "complex128", check_stride=False)
        fresh = [vg.from_numpy(a.copy()).requires_grad_() for a in arrays]
        assert vg.autograd.gradcheck(
            lambda *xs: (lambda r: r[0] if isinstance(r, tuple) else r)(fn(vg, *xs)), fresh
        )


@pytest.mark.parametrize("solver", ["linalg.solve", "linalg.lu_solve"])
def test_complex_solution_from_the_right_is_a_conjugate_view(solver):
    """``X A = B`` is solved as ``Aᴴ Xᴴ = Bᴴ``: the result keeps ``conj(X)`` in memory
    with its conjugate bit set, as PyTorch's does."""
    A = matrices((3, 3), "complex128", "contiguous")
    B = laid_out(random_values((2, 3), "complex128", seed=1), "contiguous")

    def fn(m, a, b):
        if solver == "linalg.solve":
            return m.linalg.solve(a, b, left=False)
        return m.linalg.lu_solve(*m.linalg.lu_factor(a), b, left=False)

    v, t = run_both(fn, A, B)
    assert v.is_conj() and t.is_conj()
    same(v.resolve_conj(), t.resolve_conj(), "complex128")
    assert_same_error(lambda: v.numpy(), lambda: t.numpy())


LU_CALLS = {
    "lu": lambda m, a: _as_tuple(m.lu(a)),
    "lu get_infos": lambda m, a: _as_tuple(m.lu(a, get_infos=True)),
    "Tensor.lu": lambda m, a: _as_tuple(a.lu()),
    "Tensor.lu get_infos": lambda m, a: _as_tuple(a.lu(get_infos=True)),
    "lu out": lambda m, a: _as_tuple(
        m.lu(a, out=(m.empty(0, dtype=a.dtype), m.empty(0, dtype=m.int32)))
    ),
    "lu out get_infos": lambda m, a: _as_tuple(
        m.lu(
            a,
            get_infos=True,
            out=[m.empty(0, dtype=a.dtype), m.empty(0, dtype=m.int32), m.empty(0, dtype=m.int32)],
        )  # fmt: skip
    ),
    "lu out too short": lambda m, a: m.lu(a, out=(m.empty(0, dtype=a.dtype),)),
}


@pytest.mark.parametrize("values", ["random", "singular batch"])
@pytest.mark.parametrize("name", sorted(LU_CALLS))
def test_deprecated_lu(name, values):
    """``torch.lu``: ``lu_factor_ex``'s factors (and ``info``), never an error."""
    array = random_values((2, 3, 3), "float64") if values == "random" else SINGULAR_BATCH
    same_outcome(LU_CALLS[name], laid_out(array, "transposed"))
    v, _ = laid_out(array, "contiguous")
    if name == "lu get_infos":
        with pytest.warns(UserWarning, match=r"vizgrad\.lu is deprecated"):
            assert type(vg.lu(v, get_infos=True)).__name__ == "_lu_with_info"

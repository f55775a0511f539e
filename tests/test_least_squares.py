"""Least squares against PyTorch: ``linalg.lstsq`` (four drivers), ``linalg.pinv``,
``pinverse`` and ``linalg.matrix_rank``.

Values, dtypes, shapes and strides (the solution is a column-major view of LAPACK's
buffer) on every layout, batched, broadcast, vector right-hand sides, empty and
rank-deficient inputs; which results each driver leaves empty; ``out=``; PyTorch's
errors; gradients (nodes, ``.grad`` against PyTorch's, ``gradcheck``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg
import torch
from grad_oracle import check_gradients
from oracle import LAYOUTS, assert_same, make_pair, results_or_same_error

import vizgrad as vg

DRIVERS = ["gels", "gelsy", "gelsd", "gelss"]
TOLERANCE = {"float32": 1e-4, "complex64": 1e-4, "float64": 1e-9, "complex128": 1e-9}


def outcome(fn, *pairs, dtype="float64"):
    """The same result as PyTorch's (within ``dtype``'s tolerance), or the same error."""
    tol = TOLERANCE[dtype]
    results = results_or_same_error(fn, *pairs)
    if results is None:
        return
    result, expected = results
    if isinstance(expected, tuple):
        assert type(result).__name__ == type(expected).__name__  # the named tuple
        fields = ("solution", "residuals", "rank", "singular_values")
        for position, name in enumerate(fields):
            assert getattr(result, name) is result[position]
    assert_same(result, expected, rtol=tol, atol=tol)


def rank_deficient(shape, dtype="float64", layout="contiguous"):
    """Matrices whose last column is zero (rank ``n - 1``, exactly: QR finds a 0 on R's
    diagonal whatever the rounding)."""
    v, t = make_pair(shape, dtype, layout, seed=11)
    v, t = v.clone(), t.clone()
    v[..., -1] = 0
    t[..., -1] = 0
    return v, t


# --- linalg.lstsq -----------------------------------------------------------------------------

SYSTEMS = {
    "tall": ((5, 3), (5, 2)),
    "wide": ((3, 5), (3, 2)),
    "square": ((3, 3), (3, 1)),
    "vector": ((5, 3), (5,)),
    "batch": ((2, 5, 3), (2, 5, 2)),
    "batch of vectors": ((2, 5, 3), (2, 5)),
    "A broadcast": ((1, 5, 3), (2, 5, 2)),
    "B broadcast": ((2, 3, 5), (1, 3, 2)),
    "B's batch from its rows": ((5, 5, 3), (5, 2)),
}


# An expanded 2-D A has equal rows: whether gels's QR gets an exact 0 on R's diagonal
# (its error) is a matter of rounding, so that system is not asked of gels.
LSTSQ_CASES = [(system, driver, layout) for system in sorted(SYSTEMS) for driver in DRIVERS
               for layout in LAYOUTS
               if not (driver == "gels" and layout == "expanded" and len(SYSTEMS[system][0]) == 2)]  # fmt: skip


@pytest.mark.parametrize(("system", "driver", "layout"), LSTSQ_CASES)
def test_lstsq(system, driver, layout):
    """The solution (a column-major view of the first ``n`` rows of LAPACK's buffer), the
    squared residuals (tall ``A`` of full rank, not ``gelsy``), the rank (not ``gels``)
    and the singular values (``gelsd``/``gelss`` only): others are empty."""
    a_shape, b_shape = SYSTEMS[system]
    A = make_pair(a_shape, "float64", layout, seed=1)
    B = make_pair(b_shape, "float64", "contiguous" if layout == "expanded" else layout, seed=2)
    outcome(lambda m, a, b: m.linalg.lstsq(a, b, driver=driver), A, B)


@pytest.mark.parametrize("dtype", ["float32", "complex64", "complex128"])
@pytest.mark.parametrize("driver", [None, *DRIVERS])
def test_lstsq_dtypes(driver, dtype):
    A = make_pair((2, 6, 4), dtype, "transposed", seed=3)
    B = make_pair((2, 6, 3), dtype, seed=4)
    outcome(lambda m, a, b: m.linalg.lstsq(a, b, driver=driver), A, B, dtype=dtype)


@pytest.mark.parametrize("rcond", [None, 0.3, 1e-12])
@pytest.mark.parametrize("driver", DRIVERS)
def test_lstsq_rank_deficient(driver, rcond):
    """``gelsy``/``gelsd``/``gelss`` find the rank (singular values below ``rcond`` times
    the largest count as zero) and then no residuals; ``gels`` needs full rank: PyTorch's
    ``LinAlgError``, naming the matrix of the batch."""
    systems = [(rank_deficient((5, 3)), lambda a: a[..., :2] + 1),
               (rank_deficient((2, 5, 3)), lambda a: a[..., :2] + 1),
               (make_pair((5, 3), "float64", seed=5), lambda a: a[..., :2])]  # fmt: skip
    for pair, rhs in systems:
        if driver == "gelsy":
            # PyTorch hands gelsy an uninitialised pivot array (``jpvt``), which fixes
            # random columns first: where rcond makes A rank-deficient, its rank and
            # solution vary from run to run. Compare with SciPy's gelsy (its pivots start
            # at zero).
            _same_as_scipy_gelsy(pair[0], rhs(pair[0]), rcond)
            continue
        outcome(lambda m, a, rhs=rhs: m.linalg.lstsq(a, rhs(a), rcond, driver=driver), pair)


def _same_as_scipy_gelsy(A, B, rcond):
    result = vg.linalg.lstsq(A, B, rcond, driver="gelsy")
    m, n = A.shape[-2:]
    cond = 2.220446049250313e-16 * max(m, n) if rcond is None else rcond
    solutions = result.solution.numpy().reshape(-1, n, B.shape[-1])
    ranks = result.rank.numpy().reshape(-1)
    for i, (matrix, rhs) in enumerate(zip(A.numpy().reshape(-1, m, n),
                                          B.numpy().reshape(-1, m, B.shape[-1]), strict=True)):  # fmt: skip
        x, _, rank, _ = scipy.linalg.lstsq(matrix, rhs, cond=cond, lapack_driver="gelsy")
        np.testing.assert_allclose(solutions[i], x, atol=1e-9)
        assert ranks[i] == rank


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((0, 3), (0, 2)), ((3, 0), (3, 2)), ((0, 0), (0, 2)), ((2, 0, 3), (2, 0, 1)),
     ((0, 5, 3), (0, 5, 2)), ((5, 3), (5, 0)), ((3, 0), (3,))],
    ids=str,
)  # fmt: skip
@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelss"])
def test_lstsq_empty(a_shape, b_shape, driver):
    """No equation: a zero solution; no unknown: every row is a residual (``gels``'s quick
    return zeroes ``B`` first, so its residuals are 0)."""
    A = make_pair(a_shape, "float64", seed=6)
    B = make_pair(b_shape, "float64", seed=7)
    if b_shape[-1:] == (0,) and driver == "gelss":
        # PyTorch's gelss (and gelsd) crash on a B with no column; gelsy's shapes are the
        # same there, and gelss also gives A's rank and singular values (gelsy's quick
        # return reports rank 0).
        got = vg.linalg.lstsq(A[0], B[0], driver=driver)
        want = torch.linalg.lstsq(A[1], B[1], driver="gelsy")
        assert got.solution.shape == want.solution.shape
        assert got.residuals.shape == want.residuals.shape
        assert int(got.rank) == int(torch.linalg.matrix_rank(A[1]))
        np.testing.assert_allclose(got.singular_values.numpy(),
                                   torch.linalg.svdvals(A[1]).numpy())  # fmt: skip
        return
    outcome(lambda m, a, b: m.linalg.lstsq(a, b, driver=driver), A, B)


@pytest.mark.parametrize(
    "call",
    [
        "m.linalg.lstsq(a, b, driver='GELSD')", "m.linalg.lstsq(a, b, driver='qr')",
        "m.linalg.lstsq(a, b, 0.5, driver='gelsd')", "m.linalg.lstsq(a, b, rcond=0.5)",
        "m.linalg.lstsq(a.long(), b.long())", "m.linalg.lstsq(a.half(), b.half())",
        "m.linalg.lstsq(a.long(), b.long(), rcond=0.1)", "m.linalg.lstsq(a, b.float())",
        "m.linalg.lstsq(a[0], b)", "m.linalg.lstsq(a, b[0, 0])", "m.linalg.lstsq(a, b[:4])",
        "m.linalg.lstsq(a, b[:4, 0])", "m.linalg.lstsq(a, b.expand(2, 2, 5, 2))",
        "m.linalg.lstsq(a.expand(2, 5, 3), b)", "m.linalg.lstsq(a.expand(2, 5, 3), b.expand(3, 5, 2))",
        "m.linalg.lstsq(a.expand(2, 1, 5, 3), b.expand(3, 5, 2))",
        "m.linalg.lstsq(a.expand(2, 5, 3), b[:2].expand(2, 2, 2))",
    ],
)  # fmt: skip
def test_lstsq_arguments_and_errors(call):
    """Driver names in any case; PyTorch's checks, in its order (``rcond``'s default
    needs a float or double epsilon; a given one reaches the dtype dispatch)."""
    A = make_pair((5, 3), "float64", seed=8)
    B = make_pair((5, 2), "float64", seed=9)
    outcome(lambda m, a, b: eval(call, {"m": m, "a": a, "b": b}), A, B)


def _outs(m, dtypes, sizes=None):
    sizes = sizes or [(0,)] * 4
    return tuple(m.zeros(s, dtype=getattr(m, d)) for d, s in zip(dtypes, sizes, strict=True))


EXACT = ("float64", "float64", "int64", "float64")


@pytest.mark.parametrize(
    "driver, dtypes, sizes, vector",
    [
        ("gelsd", EXACT, None, False),
        ("gelsd", EXACT, None, True),
        ("gelss", EXACT, [(0,), (2,), (), (3,)], False),
        ("gelsy", EXACT, [(0,), (0,), (1,), (0,)], False),
        ("gels", EXACT, None, False),
        ("gelsd", ("float32", "float64", "int64", "float64"), None, False),
        ("gelsd", ("complex128", "float64", "int32", "float64"), None, False),
        ("gelsd", ("float64", "float64", "float32", "float64"), None, False),
        ("gelsd", EXACT, [(3, 2), (2,), (), (3,)], False),
        ("gelsd", EXACT, [(5, 2), (0,), (0,), (0,)], False),
        ("gelsd", ("int32", *EXACT[1:]), None, False),
        ("gelsd", ("float64", "int32", "int64", "float64"), None, False),
        ("gelsd", ("float64", "float64", "bool", "float64"), None, False),
        ("gelsd", ("float64", "float64", "int64", "int64"), None, False),
    ],
)  # fmt: skip
def test_lstsq_out(driver, dtypes, sizes, vector):
    """With the exact dtypes and an empty ``solution``, the outputs are LAPACK's buffers
    (the solution keeps their column-major strides); otherwise they are resized and
    copied into (row-major); any dtype a result casts to is accepted (PyTorch names
    ``residuals`` "solution" in its message)."""
    A = make_pair((5, 3), "float64", seed=10)
    B = make_pair((5,) if vector else (5, 2), "float64", seed=11)

    def call(m, a, b):
        outs = _outs(m, dtypes, sizes)
        result = m.linalg.lstsq(a, b, driver=driver, out=outs)
        assert all(r is o for r, o in zip(result, outs, strict=True))
        return result

    outcome(call, A, B)


# --- lstsq's gradient ---------------------------------------------------------------------------


def lstsq_grads(lib, driver, a_values, b_values, weights):
    """Gradients of ``sum(w_X * solution) + sum(w_L * residuals)``; the nodes."""
    a = lib.tensor(a_values, requires_grad=True)
    b = lib.tensor(b_values, requires_grad=True)
    result = lib.linalg.lstsq(a, b, driver=driver)
    names = [r.grad_fn.name() if r.grad_fn is not None else None for r in result]
    loss = (result.solution * lib.tensor(weights[0])).sum()
    if result.residuals.numel():
        loss = loss + (result.residuals * lib.tensor(weights[1])).sum()
    loss.real.backward() if loss.is_complex() else loss.backward()
    return names, a.grad, b.grad


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((5, 3), (5,)), ((2, 5, 3), (2, 5)),
     ((1, 4, 2), (3, 4, 2))],
    ids=str,
)  # fmt: skip
def test_lstsq_gradients(a_shape, b_shape, driver, dtype):
    """``LinalgLstsqBackward0`` on the solution and the residuals (through
    ``linalg.pinv``'s backward, as PyTorch's), none on the rank and singular values."""
    rng = np.random.default_rng(12)

    def draw(shape):
        values = rng.standard_normal(shape)
        return values + 1j * rng.standard_normal(shape) if dtype == "complex128" else values

    a_values, b_values = draw(a_shape), draw(b_shape)
    with torch.no_grad():
        t_result = torch.linalg.lstsq(torch.tensor(a_values), torch.tensor(b_values))
    weights = (draw(tuple(t_result.solution.shape)),
               rng.standard_normal(max(1, t_result.solution.shape[-1])))  # fmt: skip
    v_names, v_ga, v_gb = lstsq_grads(vg, driver, a_values, b_values, weights)
    t_names, t_ga, t_gb = lstsq_grads(torch, driver, a_values, b_values, weights)
    assert v_names == t_names
    assert_same(v_ga, t_ga, atol=1e-8, rtol=1e-7)
    assert_same(v_gb, t_gb, atol=1e-8, rtol=1e-7)
    if driver != "gelsy":  # (one driver is enough for finite differences)
        return
    fresh = [vg.tensor(a_values, requires_grad=True), vg.tensor(b_values, requires_grad=True)]
    assert vg.autograd.gradcheck(lambda a, b: tuple(vg.linalg.lstsq(a, b, driver="gelsd")[:2]),
                                 fresh)  # fmt: skip


# --- linalg.pinv and pinverse ------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)], ids=str)
def test_pinv(shape, dtype, layout):
    pair = make_pair(shape, dtype, layout, seed=13)
    outcome(lambda m, a: m.linalg.pinv(a), pair, dtype=dtype)
    outcome(lambda m, a: m.linalg.pinv(a @ a.mH, hermitian=True), pair, dtype=dtype)


@pytest.mark.parametrize(
    "call",
    [
        "m.linalg.pinv(a, atol=2.0)", "m.linalg.pinv(a, rtol=0.5)", "m.linalg.pinv(a, atol=1.0, rtol=0.5)",
        "m.linalg.pinv(a, atol=m.tensor(2.0))", "m.linalg.pinv(a, rtol=m.tensor([0.1, 0.5, 0.9]))",
        "m.linalg.pinv(a, atol=m.tensor([0.0, 3.0]).reshape(2, 1))", "m.linalg.pinv(a, 0.5)",
        "m.linalg.pinv(a, m.tensor(0.5))", "m.linalg.pinv(a, 0.5, True)",
        "m.linalg.pinv(a @ a.mT, rtol=0.2, hermitian=True)", "m.linalg.pinv(d)", "m.linalg.pinv(d, atol=0.5)",
        "m.linalg.pinv(d.mT @ d, hermitian=True)", "m.pinverse(a)", "a.pinverse()",
        "a.pinverse(rcond=0.5)", "m.pinverse(a, 0.3)", "m.pinverse(d)",
        "m.linalg.pinv(m.zeros(0, 3))", "m.linalg.pinv(m.zeros(2, 0, 3))", "m.linalg.pinv(m.zeros(3, 0))",
        "m.linalg.pinv(a, atol=m.tensor(1j))", "m.linalg.pinv(a, rtol=m.tensor(1j))",
        "m.linalg.pinv(a, m.tensor(1j))", "m.linalg.pinv(a.long())", "m.linalg.pinv(a[0])",
        "m.linalg.pinv(a.half())", "m.linalg.pinv(a, hermitian=True)",
        "m.linalg.pinv(a, out=m.empty(0, dtype=m.float64))", "m.linalg.pinv(a, out=m.empty(0, dtype=m.complex128))",
        "m.linalg.pinv(a, 0.1, out=m.zeros(2, dtype=m.float64))", "m.linalg.pinv(a, atol=0.1, out=m.empty(0, dtype=m.float64))",
        "m.linalg.pinv(a, out=m.empty(0, dtype=m.float32))", "m.linalg.pinv(a, out=m.empty(0, dtype=m.long))",
    ],
)  # fmt: skip
def test_pinv_tolerances_and_errors(call):
    """``atol``/``rtol`` (floats or tensors, which broadcast over the batch), NumPy's
    ``rcond``, ``hermitian``; singular values at most the tolerance count as zero."""
    A = make_pair((5, 3), "float64", seed=14)
    D = rank_deficient((5, 3))
    outcome(lambda m, a, d: eval(call, {"m": m, "a": a, "d": d}), A, D)


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize(
    "name, vg_fn, torch_fn, shape",
    [
        ("tall", vg.linalg.pinv, torch.linalg.pinv, (4, 3)),
        ("wide", vg.linalg.pinv, torch.linalg.pinv, (2, 3, 5)),
        ("hermitian", lambda a: vg.linalg.pinv(a + a.mT, hermitian=True),
         lambda a: torch.linalg.pinv(a + a.mT, hermitian=True), (3, 3)),
        ("pinverse", lambda a: a.pinverse(), lambda a: a.pinverse(), (3, 4)),
        ("rcond", lambda a: vg.linalg.pinv(a, 0.1), lambda a: torch.linalg.pinv(a, 0.1), (3, 4)),
    ],
)  # fmt: skip
def test_pinv_gradients(name, vg_fn, torch_fn, shape, layout):
    check_gradients(vg_fn, torch_fn, [shape], layouts=[layout], check_output_strides=True)


def test_complex_pinv_gradient():
    rng = np.random.default_rng(15)
    values = rng.standard_normal((2, 4, 3)) + 1j * rng.standard_normal((2, 4, 3))
    weights = rng.standard_normal((2, 3, 4))
    v = vg.tensor(values, requires_grad=True)
    t = torch.tensor(values, requires_grad=True)
    (vg.linalg.pinv(v).abs() * vg.tensor(weights)).sum().backward()
    (torch.linalg.pinv(t).abs() * torch.tensor(weights)).sum().backward()
    assert_same(v.grad, t.grad, atol=1e-8, rtol=1e-7)
    assert vg.autograd.gradcheck(vg.linalg.pinv, [vg.tensor(values, requires_grad=True)])


# --- linalg.matrix_rank ------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_matrix_rank(dtype, layout):
    full = make_pair((2, 4, 3), dtype, layout, seed=16)
    outcome(lambda m, a: m.linalg.matrix_rank(a), full, dtype=dtype)
    outcome(lambda m, a: m.linalg.matrix_rank(a.mH @ a, hermitian=True), full, dtype=dtype)
    deficient = rank_deficient((2, 4, 3), dtype, layout)
    outcome(lambda m, a: m.linalg.matrix_rank(a), deficient, dtype=dtype)


@pytest.mark.parametrize(
    "call",
    [
        "m.linalg.matrix_rank(a, 0.5)", "m.linalg.matrix_rank(a, tol=2.0)",
        "m.linalg.matrix_rank(a, m.tensor(2.0))", "m.linalg.matrix_rank(a, atol=2.0, rtol=0.1)",
        "m.linalg.matrix_rank(a, atol=m.tensor([0.1, 1.0, 3.0]).reshape(3, 1))",
        "m.linalg.matrix_rank(a, rtol=0.3)", "m.linalg.matrix_rank(a, rtol=m.tensor(0.3))",
        "m.linalg.matrix_rank(a, atol=0.0)", "m.linalg.matrix_rank(a.expand(2, 5, 3))",
        "m.linalg.matrix_rank(a.mT @ a, 1.0, True)", "m.linalg.matrix_rank(a, hermitian=True)",
        "m.linalg.matrix_rank(a.long())", "m.linalg.matrix_rank(a.half())", "m.linalg.matrix_rank(a[0])",
        "m.linalg.matrix_rank(m.ones(0, 3))", "m.linalg.matrix_rank(m.ones(2, 0, 3))",
        "m.linalg.matrix_rank(a, atol=m.tensor(1j))", "m.linalg.matrix_rank(a, rtol=m.tensor(1j))",
        "m.linalg.matrix_rank(a, out=m.empty(0, dtype=m.long))",
        "m.linalg.matrix_rank(a, out=m.empty(0, dtype=m.float32))",
        "m.linalg.matrix_rank(a, out=m.empty(0, dtype=m.bool))",
        "m.linalg.matrix_rank(a, 0.5, out=m.empty(3, dtype=m.long))",
        "m.linalg.matrix_rank(a, atol=0.5, out=m.empty(0, dtype=m.int32))",
        "m.linalg.matrix_rank(a[0], out=m.empty(0, dtype=m.long))",
    ],
)  # fmt: skip
def test_matrix_rank_tolerances_and_errors(call):
    """``tol`` is NumPy's absolute tolerance; ``atol``/``rtol`` as ``pinv``'s; no element
    means rank 0; the result is ``int64`` (``out`` may be any dtype it casts to)."""
    A = make_pair((5, 3), "float64", seed=17)
    outcome(lambda m, a: eval(call, {"m": m, "a": a}), A)


def test_matrix_rank_is_not_differentiable():
    a = vg.randn(3, 3, dtype=vg.float64, requires_grad=True)
    assert vg.linalg.matrix_rank(a).grad_fn is None
    assert not vg.linalg.matrix_rank(a).requires_grad


def test_lstsq_solution_matches_pinv():
    """The documentation's check: ``lstsq``'s solution is ``pinv(A) @ B``."""
    A = vg.randn(2, 6, 4, dtype=vg.float64)
    B = vg.randn(2, 6, 3, dtype=vg.float64)
    X = vg.linalg.lstsq(A, B, driver="gelsd").solution
    assert math.isclose(vg.dist(X, vg.linalg.pinv(A) @ B).item(), 0.0, abs_tol=1e-10)

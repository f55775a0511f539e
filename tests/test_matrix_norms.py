"""Matrix norms against PyTorch: ``linalg.matrix_norm`` (every order), ``linalg.norm``,
``linalg.vector_norm``'s ``dtype=`` checks, ``torch.norm``/``Tensor.norm`` and
``linalg.cond``.

Values, dtypes, shapes and strides on every layout, batched, with ``dim``/``keepdim``/
``dtype``, empty and 0-dim inputs; ``out=``; PyTorch's errors; gradients (the nodes
PyTorch's composite functions record, ``.grad`` and ``gradcheck``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients
from oracle import (
    LAYOUTS,
    assert_same,
    assert_same_error,
    assert_same_outcome,
    make_pair,
    results_or_same_error,
)

import vizgrad as vg

INF = math.inf
ORDERS = ["fro", "nuc", 1, -1, 2, -2, INF, -INF]
TOLERANCE = {"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10, "complex128": 1e-10}


def outcome(fn, *pairs, dtype="float64"):
    """The same result as PyTorch's (within ``dtype``'s tolerance), or the same error."""
    tol = TOLERANCE.get(dtype, 1e-10)
    results = results_or_same_error(fn, *pairs)
    if results is not None:
        assert_same(*results, rtol=tol, atol=tol)


# --- linalg.matrix_norm -------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("ord", ORDERS, ids=str)
def test_matrix_norm_every_order(ord, dtype, layout):
    pair = make_pair((2, 3, 4), dtype, layout)
    outcome(lambda m, a: m.linalg.matrix_norm(a, ord), pair, dtype=dtype)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [(0, 2), (2, 0), (-1, 1), (1, -3)], ids=str)
@pytest.mark.parametrize("ord", ORDERS, ids=str)
def test_matrix_norm_dim_and_keepdim(ord, dim, keepdim):
    """Any two dims, in either order; ``keepdim`` puts them back where they were (for
    ``2``/``nuc``, as a permuted view: PyTorch's strides)."""
    pair = make_pair((2, 3, 4), "float64", "transposed", seed=1)
    outcome(lambda m, a: m.linalg.matrix_norm(a, ord, dim, keepdim), pair)


@pytest.mark.parametrize(
    "shape", [(0, 3), (3, 0), (0, 0), (2, 0, 3), (1, 1), (4, 1)], ids=str
)  # fmt: skip
@pytest.mark.parametrize("ord", ORDERS, ids=str)
def test_matrix_norm_empty_and_small(ord, shape):
    """Norms of no element are 0, but ``-1``/``-2``/``-inf`` take a smallest value that
    may not exist: PyTorch's ``amin`` error."""
    outcome(lambda m, a: m.linalg.matrix_norm(a, ord), make_pair(shape, "float64"))


@pytest.mark.parametrize(
    "call",
    [
        "m.linalg.matrix_norm(a.double(), 1, dtype=m.float32)",
        "m.linalg.matrix_norm(a, 1, dtype=m.float64)",
        "m.linalg.matrix_norm(a, 2, dtype=m.float64)",
        "m.linalg.matrix_norm(a, 'nuc', dtype=m.float64)",
        "m.linalg.matrix_norm(a, 'fro', dtype=m.float64)",
        "m.linalg.matrix_norm(a, 1, dtype=m.complex128)",
        "m.linalg.matrix_norm(a.cfloat(), 1, dtype=m.float64)",
        "m.linalg.matrix_norm(a.cfloat(), -INF, dtype=m.complex128)",
        "m.linalg.matrix_norm(a, 1, dtype=m.long)",
        "m.linalg.matrix_norm(a, 3)",
        "m.linalg.matrix_norm(a, 0.5)",
        "m.linalg.matrix_norm(a, 1e20)",
        "m.linalg.matrix_norm(a, 'foo')",
        "m.linalg.matrix_norm(a.long(), 1)",
        "m.linalg.matrix_norm(a.long(), 'fro')",
        "m.linalg.matrix_norm(a.half(), 2)",
        "m.linalg.matrix_norm(a.half(), 'nuc')",
        "m.linalg.matrix_norm(a[0, 0], 1)",
        "m.linalg.matrix_norm(a[0, 0, 0], 'fro')",
        "m.linalg.matrix_norm(a, 1, dim=(0,))",
        "m.linalg.matrix_norm(a, 'fro', dim=(0, 1, 2))",
        "m.linalg.matrix_norm(a, 1, dim=(0, -3))",
        "m.linalg.matrix_norm(a, 'nuc', dim=(1, 1))",
        "m.linalg.matrix_norm(a, 1, dim=(0, 5))",
    ],
)
def test_matrix_norm_dtype_and_errors(call):
    pair = make_pair((2, 3, 4), "float32", seed=2)
    outcome(lambda m, a: eval(call, {"m": m, "a": a, "INF": INF}), pair, dtype="float32")


@pytest.mark.parametrize(
    "call",
    [
        "m.linalg.matrix_norm(a, 1, out=m.empty(0, dtype=m.float64))",
        "m.linalg.matrix_norm(a, 'nuc', keepdim=True, out=m.empty(0, dtype=m.float64))",
        "m.linalg.matrix_norm(a, 2, out=m.zeros(5, dtype=m.float64))",
        "m.linalg.matrix_norm(a, -INF, out=m.empty(0, dtype=m.float32))",
        "m.linalg.matrix_norm(a, 'fro', out=m.empty(0, dtype=m.float32))",
        "m.linalg.norm(a, out=m.empty(0, dtype=m.float64))",
        "m.linalg.norm(a, 1, dim=(0, 1), out=m.empty(0, dtype=m.float64))",
        "m.linalg.norm(a, 'nuc', dim=(1, 2), out=m.empty(0, dtype=m.float32))",
        "m.linalg.cond(a, out=m.empty(0, dtype=m.float64))",
        "m.linalg.cond(a, out=m.empty(0, dtype=m.complex128))",
        "m.linalg.cond(a, out=m.empty(0, dtype=m.float32))",
        "m.linalg.cond(a[:, :3], 'fro', out=m.empty(0, dtype=m.long))",
        "m.norm(a, 'nuc', dim=(1, 2), out=m.empty(0, dtype=m.float64))",
    ],
)
def test_out(call):
    """``out=``: a norm's ``out`` must have its dtype exactly; ``cond``'s may be any the
    result casts to."""
    pair = make_pair((2, 3, 4), "float64", seed=3)
    outcome(lambda m, a: eval(call, {"m": m, "a": a, "INF": INF}), pair)


# --- linalg.norm, vector_norm's dtype, torch.norm -----------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        "m.linalg.norm(x)", "m.linalg.norm(x, 1)", "m.linalg.norm(x, 'fro')",
        "m.linalg.norm(x, 'nuc')", "m.linalg.norm(x, 2)", "m.linalg.norm(x, -INF)",
        "m.linalg.norm(x, 3)", "m.linalg.norm(x, 3, dim=1)", "m.linalg.norm(x, dim=(0, 1))",
        "m.linalg.norm(x, keepdim=True)", "m.linalg.norm(x, -2, keepdim=True)",
        "m.linalg.norm(x3)", "m.linalg.norm(x3, 1)", "m.linalg.norm(x3, 'fro')",
        "m.linalg.norm(x3, dim=(0, 1, 2))", "m.linalg.norm(x3, 'fro', dim=(0, 1, 2))",
        "m.linalg.norm(x3, 1, dim=(0, 2))", "m.linalg.norm(x3, 1, dim=0)",
        "m.linalg.norm(x3, 'nuc', dim=0)", "m.linalg.norm(x3, 'nuc', dim=(2, 1), keepdim=True)",
        "m.linalg.norm(v)", "m.linalg.norm(v, 0)", "m.linalg.norm(v, INF)",
        "m.linalg.norm(v, 'fro')", "m.linalg.norm(v, 'nuc')",
        "m.linalg.norm(x.long())", "m.linalg.norm(x.double(), dtype=m.float32)",
        "m.linalg.norm(x, dtype=m.float64)", "m.linalg.norm(x, 2, dtype=m.float64)",
        "m.linalg.norm(m.ones(2, 2, 2, 2), 1)",
        "m.linalg.vector_norm(x.double(), 2, dtype=m.float32)",
        "m.linalg.vector_norm(x, 2, dtype=m.float64)", "m.linalg.vector_norm(x, dtype=m.long)",
        "m.linalg.vector_norm(x, dtype=m.complex64)",
        "m.linalg.vector_norm(x.cfloat(), dtype=m.float32)",
    ],
)  # fmt: skip
def test_linalg_norm(call):
    """A matrix norm when ``ord`` is given with two dims (or for a matrix), else a vector
    norm; PyTorch's errors for the rest."""
    x3, t3 = make_pair((2, 3, 4), "float32", "transposed", seed=4)
    x, t = x3[0], t3[0]
    v, tv = make_pair((5,), "float32", seed=5)
    outcome(
        lambda m, x, x3, v: eval(call, {"m": m, "x": x, "x3": x3, "v": v, "INF": INF}),
        (x, t), (x3, t3), (v, tv), dtype="float32",
    )  # fmt: skip


@pytest.mark.parametrize(
    "call",
    [
        "m.norm(x, 'nuc')", "x.norm('nuc', dim=(1, 0), keepdim=True)", "m.norm(x3, 'nuc')",
        "m.norm(x3, 'nuc', dim=(0, 2))", "x3.norm('fro', dim=(0, 1, 2))", "x3.norm('fro', (0, 2))",
        "x3.norm(p='foo', dim=(0, 1))", "m.norm(x3, 2, dim=(0, 2))", "x.norm(dtype=m.float64)",
        "x3.norm('nuc', (1, 2), dtype=m.float64)",
    ],
)  # fmt: skip
def test_torch_norm(call):
    """``torch.norm``: ``'fro'`` and numbers are vector norms (even over two dims),
    ``'nuc'`` (and any other string, which fails) goes to ``matrix_norm``."""
    x3, t3 = make_pair((2, 3, 4), "float64", "stepped", seed=6)
    outcome(lambda m, x, x3: eval(call, {"m": m, "x": x, "x3": x3}), (x3[1], t3[1]), (x3, t3))


# --- linalg.cond ----------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("p", [None, "fro", "nuc", 1, -1, 2, -2, INF, -INF], ids=str)
def test_cond(p, dtype, layout):
    pair = make_pair((2, 3, 3), dtype, layout, seed=7)
    outcome(lambda m, a: m.linalg.cond(a, p), pair, dtype=dtype)


@pytest.mark.parametrize(
    "call",
    [
        "m.linalg.cond(a)", "m.linalg.cond(a, -2)", "m.linalg.cond(a, 'fro')",
        "m.linalg.cond(a, 1)", "m.linalg.cond(a, 1.0)", "m.linalg.cond(a, -1.0)",
        "m.linalg.cond(a, INF)", "m.linalg.cond(a, -INF)", "m.linalg.cond(a, 'foo')",
        "m.linalg.cond(a, 3)", "m.linalg.cond(a, 2.5)", "m.linalg.cond(a[0, 0])",
        "m.linalg.cond(a.long())", "m.linalg.cond(m.ones(0, 0))", "m.linalg.cond(m.ones(2, 0, 0), 'nuc')",
        "m.linalg.cond(m.ones(0, 3))", "m.linalg.cond(m.ones(0, 3), 1)",
        "m.linalg.cond(m.ones(3, 3), 1)", "m.linalg.cond(m.ones(3, 3), 'fro')",
        "m.linalg.cond(m.ones(3, 0), 'fro')",
    ],
)  # fmt: skip
def test_cond_rectangular_singular_empty_and_errors(call):
    """``±2`` works on any shape; the other orders need square matrices (PyTorch's
    message names the order as C++ prints it); a singular matrix is infinitely badly
    conditioned; empty matrices have condition number 0."""
    pair = make_pair((2, 3, 4), "float64", seed=8)
    outcome(lambda m, a: eval(call, {"m": m, "a": a, "INF": INF}), pair)


# --- gradients ----------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("ord", ORDERS, ids=str)
def test_matrix_norm_gradients(ord, layout):
    """The nodes of PyTorch's composite: ``LinalgVectorNormBackward0`` (``fro``),
    ``SumBackward1`` (``nuc``), ``AmaxBackward0``/``AminBackward0`` (the others)."""
    check_gradients(
        lambda a: vg.linalg.matrix_norm(a, ord, dim=(2, 0)),
        lambda a: torch.linalg.matrix_norm(a, ord, dim=(2, 0)),
        [(3, 2, 4)], layouts=[layout],
    )  # fmt: skip


@pytest.mark.parametrize("ord", ["nuc", 2, -INF, "fro"], ids=str)
def test_complex_matrix_norm_gradients(ord):
    rng = np.random.default_rng(9)
    values = rng.standard_normal((2, 3, 2)) + 1j * rng.standard_normal((2, 3, 2))
    v = vg.tensor(values, requires_grad=True)
    t = torch.tensor(values, requires_grad=True)
    vg.linalg.matrix_norm(v, ord, keepdim=True).sum().backward()
    torch.linalg.matrix_norm(t, ord, keepdim=True).sum().backward()
    assert_same(v.grad, t.grad, check_stride=False)
    fresh = vg.tensor(values, requires_grad=True)
    assert vg.autograd.gradcheck(lambda a: vg.linalg.matrix_norm(a, ord), [fresh])


@pytest.mark.parametrize(
    "name, vg_fn, torch_fn",
    [
        ("linalg.norm 2", lambda a: vg.linalg.norm(a, 2), lambda a: torch.linalg.norm(a, 2)),
        ("linalg.norm", lambda a: vg.linalg.norm(a), lambda a: torch.linalg.norm(a)),
        ("norm nuc", lambda a: vg.norm(a, "nuc"), lambda a: torch.norm(a, "nuc")),
        ("cond", lambda a: vg.linalg.cond(a), lambda a: torch.linalg.cond(a)),
        ("cond -2", lambda a: vg.linalg.cond(a, -2), lambda a: torch.linalg.cond(a, -2)),
        ("cond nuc", lambda a: vg.linalg.cond(a, "nuc"), lambda a: torch.linalg.cond(a, "nuc")),
    ],
)  # fmt: skip
def test_norm_and_cond_gradients(name, vg_fn, torch_fn):
    check_gradients(vg_fn, torch_fn, [(3, 3)])


@pytest.mark.parametrize("p", [1, "fro", INF])
def test_cond_through_the_inverse_cannot_be_differentiated_as_in_torch(p):
    """PyTorch's ``_linalg_cond_helper`` writes ``inf`` into the inverse in place
    (``masked_fill_``) after ``linalg_inv_ex`` saved it: the backward finds it modified."""
    rng = np.random.default_rng(10)
    values = rng.standard_normal((3, 3))
    v = vg.tensor(values, requires_grad=True)
    t = torch.tensor(values, requires_grad=True)
    assert vg.linalg.cond(v, p).grad_fn.name() == torch.linalg.cond(t, p).grad_fn.name()
    assert_same_error(
        lambda: vg.linalg.cond(v, p).backward(), lambda: torch.linalg.cond(t, p).backward()
    )


def test_nuclear_norm_of_a_huge_expand_fails_at_once_as_in_torch():
    """The singular values are allocated before any work: the same out-of-memory error."""
    call = "lib.arange(6.).reshape(2, 3).expand(10**12, 2, 3).norm(p='nuc', dim=(1, 2))"
    assert_same_outcome(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))

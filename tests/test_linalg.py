"""Linear algebra against PyTorch: every matmul rank case, dtypes, layouts, errors, out=."""

from __future__ import annotations

import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg

PRODUCT_DTYPES = ["float32", "float64", "int64", "int32", "complex64", "float16"]


def pairs(*shapes, dtype="float32", layout="contiguous"):
    made = [
        make_pair(shape, dtype, layout, seed=i, low=-3, high=3) for i, shape in enumerate(shapes)
    ]
    return [v for v, _ in made], [t for _, t in made]


def tolerance(dtype):
    return {"float16": 2e-2, "complex64": 1e-4, "float32": 1e-4}.get(dtype, 1e-9)


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3,)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((6, 1, 2, 3), (5, 3, 4)),
    ((1, 2, 3), (5, 3, 4)),
    ((5, 2, 3), (1, 3, 4)),
    ((3, 2, 3), (3, 3, 1)),
    ((2, 0), (0, 4)),
    ((0, 3), (3, 2)),
    ((4, 2, 5, 3), (3,)),
]


@pytest.mark.parametrize(("shape1", "shape2"), MATMUL_SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_matmul_ranks_and_layouts(shape1, shape2, layout):
    (a, b), (ta, tb) = pairs(shape1, shape2, layout=layout)
    assert_same(vg.matmul(a, b), torch.matmul(ta, tb), rtol=1e-4, atol=1e-4)
    assert_same(a @ b, ta @ tb, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", PRODUCT_DTYPES)
@pytest.mark.parametrize(("shape1", "shape2"), MATMUL_SHAPES[:9])
def test_matmul_dtypes(dtype, shape1, shape2):
    (a, b), (ta, tb) = pairs(shape1, shape2, dtype=dtype, layout="transposed")
    tol = tolerance(dtype)
    assert_same(vg.matmul(a, b), torch.matmul(ta, tb), rtol=tol, atol=tol)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", PRODUCT_DTYPES)
def test_dot_mv_mm_bmm(layout, dtype):
    tol = tolerance(dtype)
    (a, b), (ta, tb) = pairs((4,), (4,), dtype=dtype, layout=layout)
    assert_same(vg.dot(a, b), torch.dot(ta, tb), rtol=tol, atol=tol)
    assert_same(a.dot(b), ta.dot(tb), rtol=tol, atol=tol)
    (m, v), (tm, tv) = pairs((3, 4), (4,), dtype=dtype, layout=layout)
    assert_same(vg.mv(m, v), torch.mv(tm, tv), rtol=tol, atol=tol)
    (m1, m2), (tm1, tm2) = pairs((3, 4), (4, 2), dtype=dtype, layout=layout)
    assert_same(vg.mm(m1, m2), torch.mm(tm1, tm2), rtol=tol, atol=tol)
    assert_same(m1.mm(m2), tm1.mm(tm2), rtol=tol, atol=tol)
    (b1, b2), (tb1, tb2) = pairs((5, 3, 4), (5, 4, 2), dtype=dtype, layout=layout)
    assert_same(vg.bmm(b1, b2), torch.bmm(tb1, tb2), rtol=tol, atol=tol)


def test_vdot_conjugates():
    (a, b), (ta, tb) = pairs((4,), (4,), dtype="complex128")
    assert_same(vg.vdot(a, b), torch.vdot(ta, tb))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_outer_and_addmm(layout):
    (a, b), (ta, tb) = pairs((3,), (4,), layout=layout)
    assert_same(vg.outer(a, b), torch.outer(ta, tb))
    assert_same(vg.ger(a, b), torch.ger(ta, tb))
    (i, m1, m2), (ti, tm1, tm2) = pairs((3, 2), (3, 4), (4, 2), layout=layout)
    assert_same(vg.addmm(i, m1, m2), torch.addmm(ti, tm1, tm2), rtol=1e-4, atol=1e-4)
    got = vg.addmm(i, m1, m2, beta=0.5, alpha=2)
    assert_same(got, torch.addmm(ti, tm1, tm2, beta=0.5, alpha=2), rtol=1e-4, atol=1e-4)
    (row,), (trow,) = pairs((2,))
    assert_same(vg.addmm(row, m1, m2), torch.addmm(trow, tm1, tm2), rtol=1e-4, atol=1e-4)


def test_outer_promotes_and_addmm_beta_zero_ignores_nan():
    (a,), (ta,) = pairs((3,), dtype="int64")
    (b,), (tb,) = pairs((2,), dtype="float64")
    assert_same(vg.outer(a, b), torch.outer(ta, tb))
    nan_v, nan_t = vg.full((2, 2), float("nan")), torch.full((2, 2), float("nan"))
    (m1, m2), (tm1, tm2) = pairs((2, 3), (3, 2))
    assert_same(vg.addmm(nan_v, m1, m2, beta=0), torch.addmm(nan_t, tm1, tm2, beta=0), rtol=1e-4)
    (i, n1, n2), (ti, tn1, tn2) = pairs((2, 2), (2, 3), (3, 2), dtype="int64")
    assert_same(vg.addmm(i, n1, n2, alpha=2, beta=3), torch.addmm(ti, tn1, tn2, alpha=2, beta=3))


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii", [(3, 3)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (5, 3, 4)]),
    ("bij,bjk", [(5, 2, 3), (5, 3, 4)]),
    ("i,i", [(3,), (3,)]),
    ("i,j", [(3,), (2,)]),
    ("ji", [(2, 3)]),
    ("ij", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("...,...", [(3,), (2, 3)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("i j , j k -> i k", [(2, 3), (3, 4)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("i...->...", [(2, 3, 4)]),
]


@pytest.mark.parametrize(("equation", "shapes"), EINSUM_CASES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_einsum(equation, shapes, layout):
    vs, ts = pairs(*shapes, layout=layout)
    # A pure broadcast product of non-contiguous operands: PyTorch lays the result out by
    # TensorIterator's rule, which vizgrad's einsum doesn't follow (a known gap): compare
    # values there, strides everywhere else.
    check_stride = not (equation == "...,..." and layout != "contiguous")
    got, expected = vg.einsum(equation, *vs), torch.einsum(equation, *ts)
    assert_same(got, expected, rtol=1e-4, atol=1e-4, check_stride=check_stride)
    shares = expected.data_ptr() == ts[0].data_ptr() and expected.numel() > 1
    assert (got.data_ptr() == vs[0].data_ptr() and got.numel() > 1) == shares


def test_einsum_list_and_ints():
    vs, ts = pairs((2, 3), (3, 4), dtype="int64")
    assert_same(vg.einsum("ij,jk->ik", vs), torch.einsum("ij,jk->ik", ts))
    assert_same(vg.einsum("i->", vs[0][0]), torch.einsum("i->", ts[0][0]))


TENSORDOT_CASES = [
    ((2, 3, 4), (3, 4, 5), 2),
    ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])),
    ((2, 3), (3, 4), 1),
    ((2, 3), (3, 4), 0),
    ((2, 3), (3, 4), ([1], [0])),
    ((2, 3), (2, 3), 2),
    ((2, 3), (3, 2), ([0, 1], [1, 0])),
    ((3, 4), (4, 3), ([-1], [0])),
]


@pytest.mark.parametrize(("shape1", "shape2", "dims"), TENSORDOT_CASES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_tensordot(shape1, shape2, dims, layout):
    (a, b), (ta, tb) = pairs(shape1, shape2, layout=layout)
    got = vg.tensordot(a, b, dims=dims)
    assert_same(got, torch.tensordot(ta, tb, dims=dims), rtol=1e-4, atol=1e-4)


F, D, L, B = "float32", "float64", "int64", "bool"
ERRORS = [
    ("dot", [(3,), (3,)], [F, D]),
    ("dot", [(3,), (3,)], [D, F]),
    ("dot", [(3,), (4,)], [F, F]),
    ("dot", [(3, 3), (3,)], [F, F]),
    ("dot", [(3,), (3, 3)], [F, F]),
    ("dot", [(3,), (3,)], [B, B]),
    ("vdot", [(3,), (3,)], [F, D]),
    ("mv", [(2, 3), (4,)], [F, F]),
    ("mv", [(2, 3), (3,)], [F, D]),
    ("mv", [(2, 3), (3,)], [D, F]),
    ("mv", [(3,), (3,)], [F, F]),
    ("mv", [(2, 3), (3, 1)], [F, F]),
    ("mv", [(2, 3), (3,)], [B, B]),
    ("mm", [(2, 3), (4, 5)], [F, F]),
    ("mm", [(2, 3), (3, 4)], [F, D]),
    ("mm", [(2, 3), (3, 4)], [D, F]),
    ("mm", [(2, 3), (3, 4)], [L, "int32"]),
    ("mm", [(3,), (3, 4)], [F, F]),
    ("mm", [(2, 3), (3,)], [F, F]),
    ("mm", [(2, 3), (3, 4)], [B, B]),
    ("bmm", [(5, 2, 3), (4, 3, 4)], [F, F]),
    ("bmm", [(2, 3), (3, 4)], [F, F]),
    ("bmm", [(5, 2, 3), (5, 4, 4)], [F, F]),
    ("bmm", [(5, 2, 3), (5, 3, 4)], [F, D]),
    ("bmm", [(5, 2, 3), (5, 3, 4)], [B, B]),
    ("bmm", [(5, 2, 3), (5, 3)], [F, F]),
    ("outer", [(2, 2), (3,)], [F, F]),
    ("outer", [(2,), (3, 3)], [F, F]),
]
ERRORS += [
    ("matmul", list(shapes), dtypes) for shapes in MATMUL_SHAPES[:10] for dtypes in ([F, D], [D, F])
]
ERRORS += [
    ("matmul", shapes, [F, F])
    for shapes in [
        [(2, 3), (4,)],
        [(4,), (3, 4)],
        [(5, 2, 3), (4,)],
        [(4,), (5, 3, 4)],
        [(5, 2, 3), (4, 5)],
        [(2, 3), (5, 4, 5)],
        [(5, 2, 3), (5, 4, 5)],
        [(5, 2, 3), (4, 3, 5)],
        [(3,), (4,)],
        [(6, 2, 2, 3), (5, 3, 4)],
        [(), (3,)],
        [(3,), ()],
    ]
]
ERRORS += [("matmul", [(2, 3), (3, 4)], [B, B]), ("matmul", [(3,), (3,)], [B, B])]


@pytest.mark.parametrize(("fn", "shapes", "dtypes"), ERRORS)
def test_errors(fn, shapes, dtypes):
    vs = [vg.ones(s, dtype=getattr(vg, d)) for s, d in zip(shapes, dtypes, strict=True)]
    ts = [torch.ones(s, dtype=getattr(torch, d)) for s, d in zip(shapes, dtypes, strict=True)]
    assert_same_error(lambda: getattr(vg, fn)(*vs), lambda: getattr(torch, fn)(*ts))


@pytest.mark.parametrize(
    "expr",
    [
        "lib.addmm(lib.ones(3, 4), lib.ones(2, 3), lib.ones(3, 4))",
        "lib.addmm(lib.ones(2, 4, dtype=lib.float64), lib.ones(2, 3), lib.ones(3, 4))",
        "lib.einsum('ij,jk->ik', lib.ones(2, 3), lib.ones(4, 4))",
        "lib.einsum('ij,jk->ik', lib.ones(2, 3))",
        "lib.einsum('i,j', lib.ones(2), lib.ones(2), lib.ones(2))",
        "lib.einsum('ij->ik', lib.ones(2, 3))",
        "lib.einsum('ij,jk->ik', lib.ones(2, 3), lib.ones(3, 4, dtype=lib.float64))",
        "lib.einsum('ij', lib.ones(3))",
        "lib.einsum('ijk', lib.ones(3, 3))",
        "lib.tensordot(lib.ones(2, 3), lib.ones(4, 4), 1)",
        "lib.tensordot(lib.ones(2, 3), lib.ones(3, 4, dtype=lib.float64), 1)",
        "lib.tensordot(lib.ones(2, 3), lib.ones(3, 4), -1)",
        "lib.tensordot(lib.ones(2, 3), lib.ones(3, 4), ([1], [0, 1]))",
        "lib.tensordot(lib.ones(2, 3), lib.ones(3, 4), 3)",
        "lib.tensordot(lib.ones(2, 3), lib.ones(3, 4), (1, 0))",
        "lib.matmul(lib.ones(2, 3), [1])",
        "lib.mm([1], lib.ones(2))",
        "lib.dot(lib.ones(3), 2)",
    ],
)
def test_more_errors(expr):
    assert_same_error(lambda: eval(expr, {"lib": vg}), lambda: eval(expr, {"lib": torch}))  # noqa: S307


@pytest.mark.parametrize("fn", ["mm", "matmul"])
def test_out_keeps_out_layout_and_checks_dtype(fn):
    (m1, m2), (tm1, tm2) = pairs((2, 3), (3, 4))
    v_out, t_out = make_pair((2, 4), "float32", "transposed")
    result = getattr(vg, fn)(m1, m2, out=v_out)
    assert result is v_out and v_out._version == 1
    assert_same(result, getattr(torch, fn)(tm1, tm2, out=t_out), rtol=1e-4, atol=1e-4)
    assert_same_error(
        lambda: getattr(vg, fn)(m1, m2, out=vg.empty(2, 4, dtype=vg.float64)),
        lambda: getattr(torch, fn)(tm1, tm2, out=torch.empty(2, 4, dtype=torch.float64)),
    )


def test_dot_out_and_other_outs():
    (a, b), (ta, tb) = pairs((3,), (3,))
    v_out, t_out = vg.empty(()), torch.empty(())
    assert_same(vg.dot(a, b, out=v_out), torch.dot(ta, tb, out=t_out))
    assert_same_error(
        lambda: vg.dot(a, b, out=vg.empty((), dtype=vg.float64)),
        lambda: torch.dot(ta, tb, out=torch.empty((), dtype=torch.float64)),
    )
    (m, v), (tm, tv) = pairs((2, 3), (3,))
    assert_same(vg.mv(m, v, out=vg.empty(2)), torch.mv(tm, tv, out=torch.empty(2)))
    (b1, b2), (tb1, tb2) = pairs((2, 2, 3), (2, 3, 2))
    assert_same(
        vg.bmm(b1, b2, out=vg.empty(2, 2, 2)), torch.bmm(tb1, tb2, out=torch.empty(2, 2, 2))
    )
    (o1, o2), (to1, to2) = pairs((2,), (3,))
    assert_same(vg.outer(o1, o2, out=vg.empty(2, 3)), torch.outer(to1, to2, out=torch.empty(2, 3)))
    (i, m1, m2), (ti, tm1, tm2) = pairs((2, 2), (2, 3), (3, 2))
    got = vg.addmm(i, m1, m2, out=vg.empty(2, 2))
    assert_same(got, torch.addmm(ti, tm1, tm2, out=torch.empty(2, 2)), rtol=1e-4)
    got = vg.tensordot(m1, m2, 1, out=vg.empty(2, 2))
    assert_same(got, torch.tensordot(tm1, tm2, 1, out=torch.empty(2, 2)), rtol=1e-4)


def test_products_are_declared():
    from vizgrad.ops.registry import OPERATORS

    for name in ("dot", "mv", "mm", "bmm", "matmul", "matmul.out", "addmm", "einsum", "tensordot"):
        assert f"aten::{name}" in OPERATORS

"""tril_indices, triu_indices, diag_embed and diagflat against PyTorch: values, dtypes,
strides, gradients and errors."""

from __future__ import annotations

import pytest
import torch
from grad_oracle import check_gradients, leaf_pair
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair
from test_shape_composites import GRAD_LAYOUTS, assert_same_sharing, both, node_chain

import vizgrad as vg

# --- tril_indices / triu_indices -------------------------------------------------------------


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize(("row", "col"), [(3, 3), (4, 2), (2, 5), (0, 3), (3, 0), (1, 1), (6, 4)])
@pytest.mark.parametrize("offset", [0, 1, -1, 2, -3, 10, -10])
def test_triangle_indices(name, row, col, offset):
    assert_same(getattr(vg, name)(row, col, offset), getattr(torch, name)(row, col, offset))


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize(
    "options",
    ["dtype=lib.int32", "dtype=lib.int64", "dtype=None", "device='cpu'", "layout=lib.strided",
     "offset=1, dtype=lib.int32"],
)  # fmt: skip
def test_triangle_indices_options(name, options):
    v_call, t_call = both(f"lib.{name}(4, 3, {options})")
    assert_same(v_call(), t_call())


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize(
    "args",
    ["-1, 3", "3, -1", "-1, -1, dtype=lib.float32", "3, 3, dtype=lib.float32", "3, 3, dtype=lib.int16",
     "3, 3, dtype=lib.bool", "3, 3, requires_grad=True", "3.0, 3", "3", "3, 3, 0, 0",
     "3, 3, out=lib.empty(0)"],
)  # fmt: skip
def test_triangle_indices_errors(name, args):
    assert_same_error(*both(f"lib.{name}({args})"))


def test_triangle_indices_index_their_triangles():
    v_matrix, t_matrix = make_pair((4, 5), "int64")
    for name, triangle in [("tril_indices", "tril"), ("triu_indices", "triu")]:
        v_rows, v_cols = getattr(vg, name)(4, 5, 1)
        t_rows, t_cols = getattr(torch, name)(4, 5, 1)
        assert_same(v_matrix[v_rows, v_cols], t_matrix[t_rows, t_cols])
        assert_same(getattr(v_matrix, triangle)(1)[v_rows, v_cols],
                    getattr(t_matrix, triangle)(1)[t_rows, t_cols])  # fmt: skip


def test_triangle_indices_of_a_large_matrix():
    assert_same(vg.tril_indices(1000, 1000), torch.tril_indices(1000, 1000))


# --- diag_embed ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "offset", "dim1", "dim2"),
    [((3,), 0, -2, -1), ((2, 3), 0, -2, -1), ((2, 3), 1, 0, 2), ((2, 3), -2, -1, 0), ((2, 3, 2), 0, 1, 3),
     ((2, 3), 0, 2, 1), ((0, 3), 1, 0, 1), ((2, 0), 0, -2, -1), ((3,), -1, 1, 0)],
)  # fmt: skip
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
def test_diag_embed(shape, offset, dim1, dim2, layout, dtype):
    v, t = make_pair(shape, dtype, layout)
    v_out, t_out = vg.diag_embed(v, offset, dim1, dim2), torch.diag_embed(t, offset, dim1, dim2)
    assert_same(v_out, t_out)
    assert_same_sharing(v_out, v, t_out, t)
    assert_same(v.diag_embed(offset=offset, dim1=dim1, dim2=dim2),
                t.diag_embed(offset=offset, dim1=dim1, dim2=dim2))  # fmt: skip


@pytest.mark.parametrize(
    "expr",
    ["lib.diag_embed(s)", "lib.diag_embed(x, 0, 0, 0)", "lib.diag_embed(x, 0, 1, -2)",
     "lib.diag_embed(x, 0, 3, 0)", "lib.diag_embed(x, 0.5)", "lib.diag_embed(x, out=x)"],
)  # fmt: skip
def test_diag_embed_errors(expr):
    assert_same_error(*both(expr, x=make_pair((2, 3)), s=make_pair(())))


@pytest.mark.parametrize(("offset", "dim1", "dim2"), [(0, -2, -1), (1, 0, 2), (-1, 2, 0)])
@pytest.mark.parametrize("layout", GRAD_LAYOUTS)
def test_diag_embed_gradient(offset, dim1, dim2, layout):
    check_gradients(lambda x: x.diag_embed(offset, dim1, dim2), lambda x: x.diag_embed(offset, dim1, dim2),
                    [(2, 3)], layouts=[layout])  # fmt: skip


# --- diagflat --------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(3,), (2, 2), (), (0,), (2, 3, 2)])
@pytest.mark.parametrize("offset", [0, 2, -1])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_diagflat(shape, offset, layout, dtype):
    v, t = make_pair(shape, dtype, layout)
    v_out, t_out = vg.diagflat(v, offset), torch.diagflat(t, offset)
    assert_same(v_out, t_out)
    assert_same(v.diagflat(offset=offset), t.diagflat(offset=offset))
    assert_same_sharing(v_out, v, t_out, t)


@pytest.mark.parametrize(
    "expr", ["lib.diagflat(x, 0.5)", "lib.diagflat(3)", "lib.diagflat(x, out=x)"]
)
def test_diagflat_errors(expr):
    assert_same_error(*both(expr, x=make_pair((2, 3))))


@pytest.mark.parametrize("layout", GRAD_LAYOUTS)
@pytest.mark.parametrize("offset", [0, 1, -2])
def test_diagflat_gradient(layout, offset):
    check_gradients(
        lambda x: x.diagflat(offset), lambda x: x.diagflat(offset), [(2, 3)], layouts=[layout]
    )
    v, t = leaf_pair((2, 3), layout)
    assert node_chain(v.diagflat(offset)) == node_chain(t.diagflat(offset))

"""tensor_split, hsplit, vsplit, dsplit and the dim-moving views swapaxes, swapdims and
moveaxis against PyTorch: pieces, strides, views, gradients, errors."""

from __future__ import annotations

import pytest
import torch
from grad_oracle import check_gradients, leaf_pair
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair
from test_shape_composites import GRAD_LAYOUTS, assert_same_sharing, both, node_chain

import vizgrad as vg


def assert_same_pieces(v_pieces, v, t_pieces, t):
    assert type(v_pieces) is type(t_pieces)
    assert_same(v_pieces, t_pieces, check_offset=True)
    for v_piece, t_piece in zip(v_pieces, t_pieces, strict=True):
        assert_same_sharing(v_piece, v, t_piece, t)


# --- tensor_split ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "how",
    [3, 1, 7, [1, 2], [-1, 2], [3, 1], [1, 10], [], (0, 0), "tensor(2)", "tensor([1, 3])",
     "tensor([[0]]).reshape(-1)"],
)  # fmt: skip
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_tensor_split(how, dim, layout):
    v, t = make_pair((5, 4), "float32", layout)

    def arg(lib):
        return eval(f"lib.{how}", {"lib": lib}) if isinstance(how, str) else how  # noqa: S307

    assert_same_pieces(
        vg.tensor_split(v, arg(vg), dim), v, torch.tensor_split(t, arg(torch), dim), t
    )
    assert_same_pieces(v.tensor_split(arg(vg), dim=dim), v, t.tensor_split(arg(torch), dim=dim), t)


def test_tensor_split_of_a_stepped_index_tensor():
    v_indices, t_indices = vg.tensor([1, 9, 3, 9])[::2], torch.tensor([1, 9, 3, 9])[::2]
    v, t = make_pair((5, 2))
    assert_same_pieces(vg.tensor_split(v, v_indices), v, torch.tensor_split(t, t_indices), t)


@pytest.mark.parametrize(
    "expr",
    ["lib.tensor_split(s, 2)", "lib.tensor_split(x, 0)", "lib.tensor_split(x, -1)",
     "lib.tensor_split(x, lib.tensor([1.]))", "lib.tensor_split(x, lib.tensor([[1]]))",
     "lib.tensor_split(x, 2, 5)", "lib.tensor_split(x, [1], -3)", "lib.tensor_split(x, lib.tensor(2), 5)",
     "lib.tensor_split(x, lib.tensor([1.]), 5)", "lib.tensor_split(s, lib.tensor([1.]))",
     "lib.tensor_split(x, 1.5)"],
)  # fmt: skip
def test_tensor_split_errors(expr):
    assert_same_error(*both(expr, x=make_pair((3, 4)), s=make_pair(())))


# --- hsplit, vsplit, dsplit ------------------------------------------------------------------

SPLITS = {
    "hsplit": [(6,), (4, 6), (2, 6, 3)],
    "vsplit": [(6, 2), (6, 3, 2)],
    "dsplit": [(2, 3, 6), (1, 2, 6, 2)],
}


@pytest.mark.parametrize(
    ("name", "shape"), [(name, shape) for name, shapes in SPLITS.items() for shape in shapes]
)
@pytest.mark.parametrize("how", [1, 2, 3, 6, [1, 4], [2], [], [5, 1], [-2, 10]])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_numpy_splits(name, shape, how, layout):
    v, t = make_pair(shape, "int64", layout)
    assert_same_pieces(getattr(vg, name)(v, how), v, getattr(torch, name)(t, how), t)
    assert_same_pieces(getattr(v, name)(how), v, getattr(t, name)(how), t)


TOO_FEW_DIMS = {"hsplit": ["s"], "vsplit": ["s", "v"], "dsplit": ["s", "v", "m"]}
COMMON_ERRORS = ["lib.{name}(c, 4)", "lib.{name}(c, 0)", "lib.{name}(c, -2)", "lib.{name}(c, -3)",
                 "lib.{name}(c, 1.5)", "lib.{name}(c, 'a')", "c.{name}()", "lib.{name}(c, lib.tensor([1]))"]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "expr"),
    [(name, expr) for name in SPLITS for expr in COMMON_ERRORS]
    + [(name, f"lib.{{name}}({x}, {how})") for name, xs in TOO_FEW_DIMS.items() for x in xs
       for how in (1, [1])],
)  # fmt: skip
def test_numpy_splits_errors(name, expr):
    pairs = {
        "s": make_pair(()),
        "v": make_pair((6,)),
        "m": make_pair((3, 6)),
        "c": make_pair((6, 6, 6)),
    }
    assert_same_error(*both(expr.format(name=name), **pairs))


@pytest.mark.parametrize(
    ("name", "shape"), [("hsplit", (2, 4)), ("vsplit", (4, 3)), ("dsplit", (2, 1, 4))]
)
@pytest.mark.parametrize("how", [2, [1, 3]])
@pytest.mark.parametrize("layout", GRAD_LAYOUTS)
def test_numpy_splits_gradient(name, shape, how, layout):
    def run(lib):
        return lambda x: getattr(lib, name)(x, how)[1] * 3

    check_gradients(run(vg), run(torch), [shape], layouts=[layout])
    v, t = leaf_pair(shape)
    assert node_chain(getattr(vg, name)(v, how)[0]) == node_chain(getattr(torch, name)(t, how)[0])


# --- swapaxes, swapdims, moveaxis --------------------------------------------------------------


@pytest.mark.parametrize("name", ["swapaxes", "swapdims"])
@pytest.mark.parametrize(("shape", "dims"), [((2, 3, 4), (0, 2)), ((2, 3), (-1, 0)), ((2, 3), (1, 1)),
                                             ((), (0, -1)), ((0, 3), (0, 1))])  # fmt: skip
@pytest.mark.parametrize("layout", LAYOUTS)
def test_swapping(name, shape, dims, layout):
    v, t = make_pair(shape, "float32", layout)
    v_out, t_out = getattr(vg, name)(v, *dims), getattr(torch, name)(t, *dims)
    assert_same(v_out, t_out, check_offset=True)
    assert_same_sharing(v_out, v, t_out, t)
    assert_same(getattr(v, name)(*dims), getattr(t, name)(*dims), check_offset=True)


@pytest.mark.parametrize("name", ["swapaxes", "swapdims"])
def test_swapping_keywords(name):
    (v, t), keys = make_pair((2, 3)), ("axis0", "axis1") if name == "swapaxes" else ("dim0", "dim1")
    kwargs = dict(zip(keys, (0, 1), strict=True))
    assert_same(getattr(vg, name)(v, **kwargs), getattr(torch, name)(t, **kwargs))
    assert_same_error(*both(f"lib.{name}(x, dim=0, other=1)", x=(v, t)))


@pytest.mark.parametrize("name", ["swapaxes_", "swapdims_"])
def test_swapping_in_place(name):
    def run(lib, x):
        y = x * 1
        result = getattr(y, name)(0, 2)
        assert result is y
        return y

    (v, t) = leaf_pair((2, 3, 4))
    v_out, t_out = run(vg, v), run(torch, t)
    assert_same(v_out, t_out)
    assert v_out._version == t_out._version
    assert node_chain(v_out) == node_chain(t_out)
    v_out.sum().backward()
    t_out.sum().backward()
    assert_same(v.grad, t.grad)


@pytest.mark.parametrize(
    "expr",
    ["lib.swapaxes(x, 0, 2)", "lib.swapdims(x, -3, 0)", "x.swapaxes_(0, 2)", "x.swapdims_(0)",
     "lib.swapaxes(x, 0, 1.0)"],
)  # fmt: skip
def test_swapping_errors(expr):
    assert_same_error(*both(expr, x=make_pair((2, 3))))


@pytest.mark.parametrize(
    ("shape", "source", "destination"),
    [((2, 3, 4), 0, 2), ((2, 3, 4), -1, 0), ((2, 3, 4), [0, 1], [2, 0]), ((2, 3, 4), (), ()),
     ((), 0, -1), ((), [0], [0]), ((2, 3, 4, 5), [3, 0], [0, 3]), ((0, 2), 1, 0)],
)  # fmt: skip
@pytest.mark.parametrize("layout", LAYOUTS)
def test_moveaxis(shape, source, destination, layout):
    v, t = make_pair(shape, "float32", layout)
    v_out, t_out = vg.moveaxis(v, source, destination), torch.moveaxis(t, source, destination)
    assert_same(v_out, t_out, check_offset=True)
    assert_same_sharing(v_out, v, t_out, t)
    assert_same(v.moveaxis(source, destination), t.moveaxis(source, destination))


@pytest.mark.parametrize(
    "expr",
    ["lib.moveaxis(x, [0, 0], [0, 1])", "lib.moveaxis(x, [0, 1], [1, 1])", "lib.moveaxis(x, [0], [0, 1])",
     "lib.moveaxis(x, 3, 0)", "lib.moveaxis(x, 0, -4)", "lib.moveaxis(x, 0)", "lib.moveaxis(x, 0.5, 1)",
     "lib.moveaxis(x, [0], 1)"],
)  # fmt: skip
def test_moveaxis_errors(expr):
    assert_same_error(*both(expr, x=make_pair((2, 3, 4))))


@pytest.mark.parametrize(
    "call",
    [lambda x: x.swapaxes(0, 2), lambda x: x.swapdims(-1, 1), lambda x: x.moveaxis(0, -1),
     lambda x: x.moveaxis([0, 2], [1, 0])],
)  # fmt: skip
@pytest.mark.parametrize("layout", GRAD_LAYOUTS)
def test_dim_moves_gradient(call, layout):
    check_gradients(call, call, [(2, 3, 4)], layouts=[layout])

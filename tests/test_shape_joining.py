"""atleast_1d/2d/3d, the ``*stack`` composites (hstack, vstack, row_stack, dstack,
column_stack) and rot90 against PyTorch: values, strides, views, gradients, errors."""

from __future__ import annotations

import pytest
import torch
from grad_oracle import check_gradients, leaf_pair
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair
from test_shape_composites import GRAD_LAYOUTS, assert_same_sharing, both, node_chain

import vizgrad as vg

SHAPES = [(), (3,), (2, 3), (2, 1, 3), (1, 2, 1, 2), (0,), (2, 0)]
ATLEAST = ["atleast_1d", "atleast_2d", "atleast_3d"]


# --- atleast_1d, atleast_2d, atleast_3d ------------------------------------------------------


@pytest.mark.parametrize("name", ATLEAST)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_atleast_one_tensor(name, shape, layout):
    v, t = make_pair(shape, "float32", layout)
    v_out, t_out = getattr(vg, name)(v), getattr(torch, name)(t)
    assert_same(v_out, t_out, check_offset=True)
    assert_same_sharing(v_out, v, t_out, t)


@pytest.mark.parametrize("name", ATLEAST)
def test_atleast_several_tensors(name):
    pairs = [make_pair(shape, "int64", seed=i) for i, shape in enumerate(SHAPES)]
    vs, ts = [v for v, _ in pairs], [t for _, t in pairs]
    v_fn, t_fn = getattr(vg, name), getattr(torch, name)
    for v_args, t_args in [(vs, ts), ((vs,), (ts,)), ((tuple(vs),), (tuple(ts),)), ((vs[:1],), (ts[:1],)),
                           ((), ())]:  # fmt: skip
        v_out, t_out = v_fn(*v_args), t_fn(*t_args)
        assert type(v_out) is type(t_out)
        assert_same(v_out, t_out)
    for v_o, v, t_o, t in zip(v_fn(*vs), vs, t_fn(*ts), ts, strict=True):
        assert_same_sharing(v_o, v, t_o, t)


@pytest.mark.parametrize("name", ATLEAST)
@pytest.mark.parametrize("expr", ["lib.{name}(3)", "lib.{name}([x, 3])", "lib.{name}(x, [x])",
                                  "lib.{name}(tensors=x)"])  # fmt: skip
def test_atleast_errors(name, expr):
    assert_same_error(*both(expr.format(name=name), x=make_pair((2,))))


@pytest.mark.parametrize("name", ATLEAST)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_atleast_gradient(name, shape):
    def run(lib):
        return lambda x: getattr(lib, name)(x) * 2

    check_gradients(run(vg), run(torch), [shape])
    v, t = leaf_pair(shape)
    assert node_chain(getattr(vg, name)(v)) == node_chain(getattr(torch, name)(t))


# --- hstack, vstack, row_stack, dstack, column_stack -------------------------------------------

STACKS = ["hstack", "vstack", "row_stack", "dstack", "column_stack"]


@pytest.mark.parametrize("name", STACKS)
@pytest.mark.parametrize(
    "shapes",
    [[(3,), (3,)], [(2, 3), (2, 3)], [(), ()], [(2, 3, 2), (2, 3, 2)], [(2,), (2,), (2,)],
     [(0,), (0,)], [(2, 0), (2, 0)]],
)  # fmt: skip
@pytest.mark.parametrize("layout", LAYOUTS)
def test_stacks(name, shapes, layout):
    pairs = [make_pair(s, "float32", layout, seed=i) for i, s in enumerate(shapes)]
    vs, ts = [v for v, _ in pairs], [t for _, t in pairs]
    assert_same(getattr(vg, name)(vs), getattr(torch, name)(ts))
    assert_same(getattr(vg, name)(tensors=tuple(vs)), getattr(torch, name)(tensors=tuple(ts)))


@pytest.mark.parametrize("name", STACKS)
def test_stacks_promote_and_write_out(name):
    (a, ta), (b, tb) = make_pair((2, 3), "int32"), make_pair((2, 3), "float16", "transposed", 1)
    assert_same(getattr(vg, name)([a, b]), getattr(torch, name)([ta, tb]))
    v_out, t_out = vg.empty(0, dtype=vg.float64), torch.empty(0, dtype=torch.float64)
    assert getattr(vg, name)([a, b], out=v_out) is v_out
    getattr(torch, name)([ta, tb], out=t_out)
    assert_same(v_out, t_out)
    assert v_out._version == t_out._version


@pytest.mark.parametrize("name", STACKS)
@pytest.mark.parametrize(
    "expr",
    ["lib.{name}([])", "lib.{name}([x, lib.zeros(5, 5, 5)])", "lib.{name}(x)", "lib.{name}([x, 1])",
     "lib.{name}([x], out=lib.empty(0, dtype=lib.int64))"],
)  # fmt: skip
def test_stacks_errors(name, expr):
    assert_same_error(*both(expr.format(name=name), x=make_pair((2, 3))))


@pytest.mark.parametrize("name", STACKS)
@pytest.mark.parametrize("shapes", [[(3,), (3,)], [(2, 3), (2, 3)], [(), ()]])
def test_stacks_gradient(name, shapes):
    def run(lib):
        return lambda a, b: getattr(lib, name)([a, b])

    check_gradients(run(vg), run(torch), shapes)
    (a, ta), (b, tb) = leaf_pair(shapes[0]), leaf_pair(shapes[1], seed=1)
    assert node_chain(getattr(vg, name)([a, b])) == node_chain(getattr(torch, name)([ta, tb]))


def test_stacks_out_refuses_autograd():
    for name in STACKS:
        assert_same_error(
            *both(f"lib.{name}([x, x], out=lib.empty(0))", x=leaf_pair((2,), dtype="float32"))
        )


def test_column_stack_dispatches_hstack_as_pytorch_does():
    with vg.dispatch_trace() as trace:
        vg.column_stack([vg.zeros(2), vg.zeros(2, 2)])
    assert "aten::hstack" in str(trace) and "aten::atleast_1d.Sequence" in str(trace)


# --- rot90 ---------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [-5, -2, -1, 0, 1, 2, 3, 4, 7])
@pytest.mark.parametrize(("shape", "dims"), [((2, 3), (0, 1)), ((2, 3), (1, 0)), ((2, 3, 4), (0, 2)),
                                             ((2, 3, 4), (-1, -3)), ((0, 3), (0, 1)), ((2, 1, 3), (2, 1))])  # fmt: skip
@pytest.mark.parametrize("layout", LAYOUTS)
def test_rot90(k, shape, dims, layout):
    v, t = make_pair(shape, "float32", layout)
    v_out, t_out = vg.rot90(v, k, dims), torch.rot90(t, k, dims)
    assert_same(v_out, t_out)
    assert v_out._version == t_out._version == 0
    assert_same_sharing(v_out, v, t_out, t)
    assert_same(v.rot90(k, dims), t.rot90(k, dims))


@pytest.mark.parametrize("dtype", ["bool", "int64", "complex64", "float16"])
def test_rot90_dtypes(dtype):
    v, t = make_pair((3, 2), dtype, "transposed")
    assert_same(vg.rot90(v), torch.rot90(t))


@pytest.mark.parametrize(
    "dims",
    [[0], [0, 1, 2], [0, 0], [1, -1], [-1, 1], [0, -2], [2, 2], [5, 3], [0, 4], [4, 0], [-3, -3]],
)
def test_rot90_errors(dims):
    assert_same_error(*both(f"lib.rot90(x, 1, {dims})", x=make_pair((2, 3))))


@pytest.mark.parametrize(
    "expr", ["lib.rot90(s)", "lib.rot90(v)", "lib.rot90(x, 1.5)", "x.rot90(1, 0)"]
)
def test_rot90_bad_calls(expr):
    assert_same_error(*both(expr, x=make_pair((2, 3)), s=make_pair(()), v=make_pair((3,))))


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3])
@pytest.mark.parametrize("layout", GRAD_LAYOUTS)
def test_rot90_gradient(k, layout):
    check_gradients(lambda x: x.rot90(k, (2, 0)), lambda x: x.rot90(k, (2, 0)), [(2, 3, 4)],
                    layouts=[layout])  # fmt: skip
    v, _ = leaf_pair((2, 3))
    node = v.rot90(k).grad_fn
    assert (node._saved_k, tuple(node._saved_dims)) == (k, (0, 1))

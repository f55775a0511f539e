"""Joining and repeating (cat, stack, repeat, tile, repeat_interleave, flip, roll) vs torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg

DTYPES = ["float32", "int64", "bool", "complex64", "uint8", "float16"]


def pairs(*specs):
    """Several ``make_pair`` results, split into a vizgrad list and a torch list."""
    made = [make_pair(*spec, seed=i) for i, spec in enumerate(specs)]
    return [v for v, _ in made], [t for _, t in made]


# --- cat -----------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_cat(layout, dtype, dim):
    other = (3, 4) if dim in (0, -2) else (2, 5)  # sizes differ only along dim
    vs, ts = pairs(((2, 4), dtype, layout), (other, dtype, "transposed"))
    assert_same(vg.cat(vs, dim), torch.cat(ts, dim))
    assert_same(vg.concat(tuple(vs), dim=dim), torch.concat(tuple(ts), dim=dim))
    assert_same(vg.concatenate(vs, axis=dim), torch.concatenate(ts, axis=dim))


@pytest.mark.parametrize(
    "dtypes", [("float32", "int64"), ("bool", "int32"), ("uint8", "int8"), ("float16", "complex64")]
)
def test_cat_promotes_across_inputs(dtypes):
    vs, ts = pairs(((2, 3), dtypes[0], "transposed"), ((1, 3), dtypes[1], "stepped"))
    assert_same(vg.cat(vs), torch.cat(ts))


def test_cat_skips_empty_1d_tensors_but_promotes_them():
    vs, ts = pairs(((2, 2), "float32", "contiguous"), ((0,), "float64", "contiguous"))
    assert_same(vg.cat(vs, 1), torch.cat(ts, 1))
    vs, ts = pairs(((0,), "float32", "contiguous"), ((0,), "int64", "contiguous"))
    assert_same(vg.cat(vs), torch.cat(ts))
    single_v, single_t = make_pair((4, 3), "float32", "transposed")
    assert_same(vg.cat([single_v]), torch.cat([single_t]))
    expanded_v, expanded_t = make_pair((3, 2), "float32", "expanded")
    assert_same(vg.cat([expanded_v]), torch.cat([expanded_t]))


def test_cat_out():
    vs, ts = pairs(((2, 4), "float32", "transposed"), ((1, 4), "int64", "stepped"))
    out_v, out_t = vg.empty(4, 3).t(), torch.empty(4, 3).t()
    assert vg.cat(vs, out=out_v) is out_v
    torch.cat(ts, out=out_t)
    assert_same(out_v, out_t)
    assert out_v._version == out_t._version == 1
    out_v, out_t = vg.empty(3, 4, dtype=vg.float64), torch.empty(3, 4, dtype=torch.float64)
    assert_same(vg.cat(vs, out=out_v), torch.cat(ts, out=out_t))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.cat([lib.zeros(2, 2), lib.zeros(3, 3)], 1),
        lambda lib: lib.cat([lib.zeros(2, 2), lib.zeros(3, 3)], 0),
        lambda lib: lib.cat([]),
        lambda lib: lib.cat([lib.zeros(2, 2), lib.zeros(3)], 0),
        lambda lib: lib.cat([lib.zeros(2, 2), lib.tensor(1.0)]),
        lambda lib: lib.cat([lib.tensor(1.0), lib.zeros(2)]),
        lambda lib: lib.cat([lib.zeros(2, 2), lib.zeros(0, 3)], 1),
        lambda lib: lib.cat([lib.zeros(2, 2)], 2),
        lambda lib: lib.cat(lib.zeros(2, 2)),
        lambda lib: lib.cat([lib.zeros(2), 1]),
        lambda lib: lib.cat([lib.zeros(2, dtype=lib.complex64)], out=lib.zeros(2)),
        lambda lib: lib.cat([lib.zeros(2, dtype=lib.int32)], out=lib.zeros(2, dtype=lib.bool)),
    ],
)
def test_cat_errors(make):
    assert_same_error(lambda: make(vg), lambda: make(torch))


def test_cat_error_messages_in_brief():
    error, _ = assert_same_error(
        lambda: vg.cat([vg.zeros(2, 2), vg.zeros(3, 3)], 1),
        lambda: torch.cat([torch.zeros(2, 2), torch.zeros(3, 3)], 1),
    )
    assert str(error) == (
        "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for "
        "tensor number 1 in the list."
    )
    error, _ = assert_same_error(lambda: vg.cat([]), lambda: torch.cat([]))
    assert str(error) == "vizgrad.cat(): expected a non-empty list of Tensors"


def test_cat_large_runs_at_numpy_speed():
    a = vg.zeros(1000, 1000).t()
    result = vg.cat([a, a, a], 1)
    assert result.shape == (1000, 3000) and result.stride() == (3000, 1)


# --- stack and friends ---------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack(layout, dtype, dim):
    vs, ts = pairs(((3, 4), dtype, layout), ((3, 4), dtype, "transposed"))
    assert_same(vg.stack(vs, dim), torch.stack(ts, dim))


def test_stack_promotes_zero_dim_and_out():
    vs, ts = [vg.tensor(1.0), vg.tensor(2)], [torch.tensor(1.0), torch.tensor(2)]
    assert_same(vg.stack(vs), torch.stack(ts))
    vs, ts = pairs(((3, 4), "float32", "stepped"), ((3, 4), "int64", "offset"))
    out_v, out_t = vg.empty(3, 2, 4), torch.empty(3, 2, 4)
    assert_same(vg.stack(vs, 1, out=out_v), torch.stack(ts, 1, out=out_t))
    assert out_v._version == out_t._version == 1


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.stack([lib.zeros(3, 4), lib.zeros(2, 4)]),
        lambda lib: lib.stack([lib.zeros(3, 4), lib.zeros(4)]),
        lambda lib: lib.stack([]),
        lambda lib: lib.stack([lib.zeros(3, 4)], 3),
        lambda lib: lib.stack([lib.zeros(3)], out=lib.zeros(1, 3, dtype=lib.int64)),
        lambda lib: lib.hstack([]),
        lambda lib: lib.vstack([]),
        lambda lib: lib.dstack([]),
        lambda lib: lib.column_stack([]),
        lambda lib: lib.hstack(lib.zeros(2)),
        lambda lib: lib.vstack([lib.zeros(2), lib.zeros(3)]),
    ],
)
def test_stack_errors(make):
    assert_same_error(lambda: make(vg), lambda: make(torch))


STACK_SHAPES = [
    [(), ()],
    [(2,), (3,)],
    [(2,), (2,)],
    [(2, 3), (2, 1)],
    [(2, 3, 2), (2, 3, 1)],
]


@pytest.mark.parametrize("name", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
@pytest.mark.parametrize("shapes", STACK_SHAPES, ids=repr)
def test_hstack_vstack_dstack_column_stack(name, shapes):
    vs, ts = pairs(*((s, "float32", "transposed") for s in shapes))
    try:
        expected = getattr(torch, name)(ts)
    except RuntimeError:
        assert_same_error(lambda: getattr(vg, name)(vs), lambda: getattr(torch, name)(ts))
        return
    assert_same(getattr(vg, name)(vs), expected)
    assert_same(getattr(vg, name)(tuple(vs)), getattr(torch, name)(tuple(ts)))


def test_hstack_out():
    vs, ts = pairs(((2, 3), "float32", "stepped"), ((2, 1), "float32", "offset"))
    out_v, out_t = vg.empty(2, 4), torch.empty(2, 4)
    assert_same(vg.hstack(vs, out=out_v), torch.hstack(ts, out=out_t))
    assert out_v._version == out_t._version == 1


# --- repeat, tile, repeat_interleave -------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int8", "bool", "complex128"])
@pytest.mark.parametrize("repeats", [(1, 1), (2, 3), (2, 1, 3), (0, 2), (1, 1, 1, 2)])
def test_repeat(layout, dtype, repeats):
    v, t = make_pair((2, 3), dtype, layout)
    assert_same(v.repeat(*repeats), t.repeat(*repeats))
    assert_same(v.repeat(repeats), t.repeat(repeats))
    assert_same(v.repeat(list(repeats)), t.repeat(list(repeats)))


def test_repeat_zero_dim():
    assert_same(vg.tensor(1.5).repeat(2, 3), torch.tensor(1.5).repeat(2, 3))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.zeros(2, 3).repeat(2),
        lambda lib: lib.zeros(2, 3).repeat(-1, 2),
        lambda lib: lib.zeros(2, 3).repeat(),
        lambda lib: lib.tile(lib.zeros(2, 3), (-2, 1)),
    ],
)
def test_repeat_errors(make):
    assert_same_error(lambda: make(vg), lambda: make(torch))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
@pytest.mark.parametrize("dims", [(2,), (2, 1), (1, 2, 2), (), [3]])
def test_tile(layout, dims):
    v, t = make_pair((2, 3), "float32", layout)
    assert_same(vg.tile(v, dims), torch.tile(t, dims))
    assert_same(v.tile(dims), t.tile(dims))
    assert_same(vg.tile(vg.tensor(1.0), (2,)), torch.tile(torch.tensor(1.0), (2,)))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_repeat_interleave_int(layout, dtype, dim):
    v, t = make_pair((3, 4), dtype, layout)
    assert_same(vg.repeat_interleave(v, 2, dim), torch.repeat_interleave(t, 2, dim))
    assert_same(v.repeat_interleave(0, dim=dim), t.repeat_interleave(0, dim=dim))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("repeats_dtype", [np.int64, np.int32])
def test_repeat_interleave_tensor(layout, repeats_dtype):
    v, t = make_pair((3, 4), "float32", layout)
    counts = np.array([1, 0, 3], dtype=repeats_dtype)
    rv, rt = vg.from_numpy(counts.copy()), torch.from_numpy(counts.copy())
    assert_same(vg.repeat_interleave(v, rv, 0), torch.repeat_interleave(t, rt, 0))
    assert_same(vg.repeat_interleave(v, rv[2:], 1), torch.repeat_interleave(t, rt[2:], 1))
    assert_same(vg.repeat_interleave(v, rv[2]), torch.repeat_interleave(t, rt[2]))
    assert_same(vg.repeat_interleave(rv), torch.repeat_interleave(rt))
    assert_same(
        vg.repeat_interleave(v, rv, 0, output_size=4),
        torch.repeat_interleave(t, rt, 0, output_size=4),
    )
    expected = torch.repeat_interleave(torch.tensor(3.0), 2)
    assert_same(vg.repeat_interleave(vg.tensor(3.0), 2), expected)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, x: lib.repeat_interleave(x, lib.tensor([1, 2]), dim=0),
        lambda lib, x: lib.repeat_interleave(x, lib.tensor([[1, 2]]), dim=0),
        lambda lib, x: lib.repeat_interleave(x, lib.tensor([1, -2, 1]), dim=0),
        lambda lib, x: lib.repeat_interleave(x, -1),
        lambda lib, x: lib.repeat_interleave(x, lib.tensor([1.0, 2.0, 1.0]), dim=0),
        lambda lib, x: lib.repeat_interleave(x, lib.tensor([1, 2])),
        lambda lib, x: lib.repeat_interleave(lib.tensor([[1, 2]])),
        lambda lib, x: lib.repeat_interleave(lib.tensor([1, -2])),
        lambda lib, x: lib.repeat_interleave(x, 2, dim=0, output_size=5),
        lambda lib, x: lib.repeat_interleave(x, 2, dim=2),
    ],
)
def test_repeat_interleave_errors(make):
    v, t = make_pair((3, 4), "float32")
    assert_same_error(lambda: make(vg, v), lambda: make(torch, t))


# --- flip, fliplr, flipud, roll ------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int16", "bool", "complex64"])
@pytest.mark.parametrize("dims", [(0,), (1,), (-1, 0), (), [2, 1]])
def test_flip(layout, dtype, dims):
    v, t = make_pair((2, 3, 4), dtype, layout)
    result = vg.flip(v, dims)
    assert_same(result, torch.flip(t, dims))
    assert all(s >= 0 for s in result.stride()) and result._base is None
    assert_same(v.flip(dims), t.flip(dims))
    assert_same(v.fliplr(), t.fliplr())
    assert_same(vg.flipud(v), torch.flipud(t))


def test_flip_zero_dim_and_varargs():
    assert_same(vg.flip(vg.tensor(1.0), (0,)), torch.flip(torch.tensor(1.0), (0,)))
    v, t = make_pair((2, 3), "float32", "transposed")
    assert_same(v.flip(0, 1), t.flip(0, 1))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.flip(lib.zeros(2, 3), (0, 0)),
        lambda lib: lib.flip(lib.zeros(2, 3), (0, -2)),
        lambda lib: lib.flip(lib.zeros(2, 3), 0),
        lambda lib: lib.flip(lib.zeros(2, 3), (2,)),
        lambda lib: lib.fliplr(lib.zeros(2)),
        lambda lib: lib.flipud(lib.tensor(1.0)),
    ],
)
def test_flip_errors(make):
    assert_same_error(lambda: make(vg), lambda: make(torch))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize(
    "shifts, dims",
    [(1, None), (-5, None), ((2,), None), (1, 0), (1, -1), ((1, -1), (0, 1)), ([7, 2], [1, 0]),
     (3, (1,))],
)  # fmt: skip
def test_roll(layout, dtype, shifts, dims):
    v, t = make_pair((3, 4), dtype, layout)
    assert_same(vg.roll(v, shifts, dims), torch.roll(t, shifts, dims))
    assert_same(v.roll(shifts, dims), t.roll(shifts, dims))


def test_roll_zero_dim_and_empty():
    assert_same(vg.roll(vg.tensor(1.0), 1), torch.roll(torch.tensor(1.0), 1))
    assert_same(vg.roll(vg.zeros(0, 3), 1, 1), torch.roll(torch.zeros(0, 3), 1, 1))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.roll(lib.zeros(3, 4), (1, -1), (0,)),
        lambda lib: lib.roll(lib.zeros(3, 4), (1,), (0, 1)),
        lambda lib: lib.roll(lib.zeros(3, 4), (), (0,)),
        lambda lib: lib.roll(lib.zeros(3, 4), (1, 2)),
        lambda lib: lib.roll(lib.zeros(3, 4), 1, 2),
        lambda lib: lib.roll(lib.zeros(3, 4), 1.5),
    ],
)
def test_roll_errors(make):
    assert_same_error(lambda: make(vg), lambda: make(torch))


@pytest.mark.parametrize(
    "call",
    ["lib.cat([y, y], 0, out=lib.empty(0))", "lib.cat([y, y], 1, out=lib.empty(7))",
     "lib.cat([y, z], 0, out=lib.empty(0))", "lib.cat([y, y], 0, out=lib.empty(4, 3, 4, 5))",
     "lib.cat([y, y], 0, out=lib.empty(0, dtype=lib.float64))",
     "lib.cat([lib.ones(0), y], 0, out=lib.empty(0))", "lib.cat([lib.ones(0)], 0, out=lib.empty(3))",
     "lib.cat([y.permute(0, 2, 3, 1), y.permute(0, 2, 3, 1)], 3, out=lib.empty(0))"],
)  # fmt: skip
def test_cat_out_resized_takes_the_inputs_memory_format(call):
    """An ``out=`` that cat resizes is laid out channels-last when every input is (its
    meta function's memory format); one of the right shape keeps its own strides."""

    def run(lib):
        y = lib.arange(120.0).reshape(2, 3, 4, 5).contiguous(memory_format=lib.channels_last)
        z = lib.ones(2, 3, 4, 5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the resize warning is tested elsewhere)
            return eval(call, {"lib": lib, "y": y, "z": z})  # noqa: S307

    assert_same(run(vg), run(torch))

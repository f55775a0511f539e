"""``hypot``: the worked example of docs/adding-an-operator.md (one declaration, its tests)."""

from __future__ import annotations

import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg

SHAPES = [(), (0,), (3,), (2, 3), (2, 1, 4)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_hypot_matches_torch(shape, layout, dtype):
    (a, ta), (b, tb) = make_pair(shape, dtype, layout, seed=1), make_pair(shape, dtype, seed=2)
    assert_same(vg.hypot(a, b), torch.hypot(ta, tb))
    assert_same(a.hypot(b), ta.hypot(tb))
    out, tout = vg.empty(0, dtype=a.dtype), torch.empty(0, dtype=ta.dtype)
    assert_same(vg.hypot(a, b, out=out), torch.hypot(ta, tb, out=tout))
    if layout != "expanded":  # an expanded tensor can't be written in place
        assert_same(a.clone().hypot_(b), ta.clone().hypot_(tb))


def test_hypot_broadcasts_and_promotes_like_torch():
    (a, ta), (b, tb) = make_pair((2, 1), "float32"), make_pair((3,), "int64")
    assert_same(vg.hypot(a, b), torch.hypot(ta, tb))
    (c, tc) = make_pair((3,), "float64")
    assert_same(vg.hypot(a, c), torch.hypot(ta, tc))


def test_hypot_gradient():
    (a, ta), (b, tb) = make_pair((2, 3), "float64", seed=3), make_pair((2, 3), "float64", seed=4)
    a.requires_grad_(), ta.requires_grad_()
    b.requires_grad_(), tb.requires_grad_()
    result, expected = vg.hypot(a, b), torch.hypot(ta, tb)
    assert type(result.grad_fn).__name__ == type(expected.grad_fn).__name__ == "HypotBackward0"
    result.sum().backward()
    expected.sum().backward()
    assert_same(a.grad, ta.grad)
    assert_same(b.grad, tb.grad)
    assert vg.autograd.gradcheck(
        vg.hypot, (a.detach().requires_grad_(), b.detach().requires_grad_())
    )


@pytest.mark.parametrize(
    "call",
    ["lib.hypot(x, 2)", "lib.hypot(x)", "lib.hypot(x, x, x)", "lib.hypot(x, 'a')",
     "lib.hypot(i, i)", "lib.hypot(c, x)", "x.hypot_(x, foo=1)", "lib.hypot(x, x, out=i)",
     "lib.hypot(x, lib.ones(2))"],
)  # fmt: skip
def test_hypot_bad_input_raises_torchs_errors(call):
    def run(lib):
        env = {"lib": lib, "x": lib.ones(3), "i": lib.ones(3, dtype=lib.int64),
               "c": lib.ones(3, dtype=lib.complex64)}  # fmt: skip
        return eval(call, env)

    assert_same_error(lambda: run(vg), lambda: run(torch))

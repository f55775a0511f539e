"""``masked_scatter`` against PyTorch: values, strides, the order of its checks (dtypes,
the mask broadcast to ``self``, the mask's dtype), gradients; and the checked conversion
of the number ``masked_fill`` writes."""

from __future__ import annotations

import warnings

import pytest
import torch
from grad_oracle import check_gradients
from oracle import LAYOUTS, assert_same, assert_same_outcome, make_pair

import vizgrad as vg


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float16", "float64", "complex64"])
@pytest.mark.parametrize("mask_shape", [(3, 4), (4,), (1, 4), (3, 1), ()])
def test_masked_scatter_matches_torch(mask_shape, dtype, layout):
    v, t = make_pair((3, 4), dtype, layout)
    mv, mt = make_pair(mask_shape, "bool", "stepped", seed=9)
    sv, st = make_pair((4, 5), dtype, "transposed", seed=1)
    # Source elements are consumed in the row-major order of self, whatever its layout.
    assert_same(vg.masked_scatter(v, mv, sv), torch.masked_scatter(t, mt, st))
    assert_same(v.masked_scatter(mv, sv), t.masked_scatter(mt, st))
    if layout != "expanded":
        assert v.masked_scatter_(mv, sv) is v
        t.masked_scatter_(mt, st)
        assert_same(v, t)
        assert v._version == t._version == 1


def test_masked_scatter_broadcasts_self_against_the_mask():
    v, t = make_pair((4,), "float32", "stepped")
    mv, mt = make_pair((3, 4), "bool", "transposed", seed=2)
    assert_same(vg.masked_scatter(v, mv, vg.arange(20.0)),
                torch.masked_scatter(t, mt, torch.arange(20.0)))  # fmt: skip


@pytest.mark.parametrize(
    "call",
    [
        "lib.zeros(3, 4).masked_scatter(lib.tensor([True, False, True]), lib.arange(20.))",
        "lib.zeros(3, 4).masked_scatter(lib.tensor([1, 0, 1, 0]), lib.arange(20.))",
        "lib.zeros(3, 4).masked_scatter(lib.tensor([True, False, True, False]), lib.arange(20))",
        "lib.zeros(4).masked_scatter(lib.tensor([[True, False, True, False]] * 3), lib.arange(2.))",
        "lib.zeros(()).masked_scatter(lib.tensor(True), lib.arange(20.))",
        "lib.zeros(()).masked_scatter(lib.tensor(True), lib.tensor(3.))",
        "lib.zeros(3).masked_scatter(lib.tensor(True), lib.ones(2, 2))",
        "lib.zeros(0, 3).masked_scatter(lib.tensor(True), lib.ones(0))",
        "lib.zeros(3).masked_scatter(lib.ones(3), lib.ones(6, dtype=lib.int64))",
        "lib.zeros(3).masked_scatter(lib.ones(2, 4, dtype=lib.bool), lib.ones(6))",
        "lib.zeros(3).masked_scatter(lib.ones(2, 3, dtype=lib.bool), lib.ones(6, dtype=lib.int64))",
        "lib.zeros(3).masked_scatter_(lib.ones(3), lib.ones(6, dtype=lib.int64))",
        "lib.zeros(3).masked_scatter_(lib.ones(2, 3), lib.ones(6))",
        "lib.zeros(1, 3).masked_scatter_(lib.ones(2, 3, dtype=lib.bool), lib.ones(6))",
        "lib.zeros(3).masked_scatter_(lib.ones(3, dtype=lib.bool), lib.ones(6).view(2, 3).t())",
        "lib.zeros(3).masked_scatter_(lib.ones(3, dtype=lib.bool), lib.ones(6)[::2])",
        "lib.zeros(3).masked_scatter_(lib.ones(3, dtype=lib.bool), lib.ones(2))",
        "lib.zeros(1).expand(3).masked_scatter_(lib.ones(3, dtype=lib.bool), lib.ones(6))",
        "lib.zeros(1).expand(3).masked_scatter_(lib.ones(3, dtype=lib.bool), lib.ones(6, dtype=lib.int64))",
        "lib.zeros(1).expand(3, 4).t().masked_scatter(lib.ones(3, dtype=lib.bool), lib.arange(16.))",
    ],
)  # fmt: skip
def test_masked_scatter_edge_cases_and_errors(call):
    assert_same_outcome(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))  # noqa: S307


def test_a_uint8_mask_is_deprecated_then_refused():
    # ``masked_scatter_`` warns about a uint8 mask; its kernel then refuses it.
    for lib in (vg, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError, match="only supports boolean masks.*Byte"):
                lib.zeros(3).masked_scatter(lib.tensor([1, 0, 1], dtype=lib.uint8), lib.ones(3))
        assert [str(w.message).split(" (Triggered")[0] for w in caught] == [
            "masked_scatter_ received a mask with dtype torch.uint8, this behavior is now "
            "deprecated,please use a mask with dtype torch.bool instead."
        ]


@pytest.mark.parametrize("layouts", [None, ["transposed", "stepped"]])
@pytest.mark.parametrize("source_shape", [(12,), (4, 5)])
def test_masked_scatter_gradients(source_shape, layouts):
    mask = [[True, False, True, True], [False, False, True, False], [True, True, False, True]]

    def fn(lib):
        return lambda x, s: lib.masked_scatter(x, lib.tensor(mask), s)

    check_gradients(fn(vg), fn(torch), [(3, 4), source_shape], layouts=layouts,
                    grad_fn_name="MaskedScatterBackward0")  # fmt: skip


@pytest.mark.parametrize(
    "call",
    [
        "lib.zeros(3, dtype=lib.float16).masked_fill(lib.ones(3, dtype=lib.bool), 1e10)",
        "lib.zeros(3, dtype=lib.float16).masked_fill(lib.ones(3, dtype=lib.bool), lib.tensor(1e10))",
        "lib.zeros(3, dtype=lib.float16).masked_fill(lib.ones(3, dtype=lib.bool), float('inf'))",
        "lib.zeros(3).masked_fill(lib.ones(3, dtype=lib.bool), 1e300)",
        "lib.zeros(3, dtype=lib.bool).masked_fill(lib.ones(3, dtype=lib.bool), 2.5)",
        "lib.zeros(3, dtype=lib.uint8).masked_fill(lib.ones(3, dtype=lib.bool), -1)",
        "lib.zeros(3, dtype=lib.complex64).masked_fill(lib.ones(3, dtype=lib.bool), 1e300)",
    ],
)
def test_masked_fill_converts_its_value_as_torch_does(call):
    # c10's checked_convert: a value the dtype cannot hold is an error (inf is fine).
    assert_same_outcome(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))  # noqa: S307


def test_masked_scatter_gradient_of_a_self_broadcast_against_the_mask():
    mask = [[True, False, True, True], [False, False, True, False], [True, True, False, True]]
    check_gradients(lambda x, s: vg.masked_scatter(x, vg.tensor(mask), s),
                    lambda x, s: torch.masked_scatter(x, torch.tensor(mask), s),
                    [(4,), (3, 3)], layouts=["stepped", "transposed"])  # fmt: skip

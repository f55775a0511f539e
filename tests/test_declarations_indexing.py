"""The indexing operators are declared from whole schemas: their overloads and errors."""

from __future__ import annotations

import warnings

import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg
from vizgrad.ops import advanced_indexing, nonzero

DECLARED = {
    vg.index_select: ["index_select", "index_select.out"],
    vg.gather: ["gather", "gather.out"],
    vg.scatter: ["scatter.src", "scatter_.src", "scatter.src_out", "scatter.value",
                 "scatter_.value", "scatter.value_out", "scatter.reduce", "scatter_.reduce",
                 "scatter.reduce_out", "scatter.value_reduce", "scatter_.value_reduce",
                 "scatter.value_reduce_out"],
    vg.scatter_add: ["scatter_add", "scatter_add_", "scatter_add.out"],
    vg.index_add: ["index_add", "index_add_", "index_add.out"],
    vg.index_copy: ["index_copy", "index_copy_", "index_copy.out"],
    vg.index_fill: ["index_fill.int_Scalar", "index_fill_.int_Scalar", "index_fill.int_Tensor",
                    "index_fill_.int_Tensor"],
    vg.index_put: ["index_put", "index_put_"],
    advanced_indexing._index: ["index.Tensor", "index.Tensor_out"],
    vg.masked_fill: ["masked_fill.Scalar", "masked_fill_.Scalar", "masked_fill.Tensor",
                     "masked_fill_.Tensor"],
    vg.masked_select: ["masked_select", "masked_select.out"],
    vg.masked_scatter: ["masked_scatter", "masked_scatter_"],
    vg.take: ["take", "take.out"],
    vg.put: ["put", "put_"],
    nonzero._nonzero: ["nonzero", "nonzero.out"],
    nonzero._nonzero_numpy: ["nonzero_numpy"],
    vg.argwhere: ["argwhere"],
}  # fmt: skip


@pytest.mark.parametrize("function", list(DECLARED), ids=lambda f: f.__name__)
def test_one_declaration_holds_every_overload(function):
    assert sorted(function.overloads) == sorted(DECLARED[function])


def _eval(expr: str, lib):
    x = lib.arange(12.0).reshape(3, 4)
    names = {"lib": lib, "x": x, "i": lib.tensor([0, 2]), "i2": lib.tensor([[0, 1, 2, 0]]),
             "m": x > 4}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scatter's deprecated reduce= with a Tensor src
        return eval(expr, names)  # noqa: S307


BAD_CALLS = [
    "lib.index_select('a', 0, i)",
    "lib.index_select(x, 'a', i)",
    "lib.index_select(x, 0, [0])",
    "lib.index_select(x, 0, i, out=1)",
    "x.index_select(0)",
    "x.index_select(0, i, 1)",
    "x.index_select(0, i, out=x)",
    "lib.gather(x, 0, i2, True)",
    "lib.gather(x, 0, i2, sparse_grad=1)",
    "lib.gather(x, 0.5, i2)",
    "x.gather(0, i2, out=x)",
    "lib.scatter(x, 0, i2)",
    "lib.scatter(x, 0, i2, 'a')",
    "lib.scatter(x, 0, i2, x, reduce=1)",
    "lib.scatter(x, 0, i2, value=x)",
    "lib.scatter(x, 0, i2, src=2)",
    "x.scatter(0, i2, x, out=lib.empty(0))",
    "x.scatter_(0, i2, 'a')",
    "x.clone().scatter_(0, i2, 2.0, reduce='bad')",
    "lib.scatter_add(x, 0, i2, 2.0)",
    "lib.scatter_add(x, 0, i2)",
    "x.clone().scatter_add_(0, i2, 'a')",
    "lib.index_add(x, 0, i, x[:2], alpha='a')",
    "x.clone().index_add_(0, i, x[:2], alpha=2, out=x)",
    "lib.index_copy(x, 0, i, 2.0)",
    "x.clone().index_copy_(0, i, 'a')",
    "lib.index_fill(x, 0, i, 'a')",
    "lib.index_fill(x, 0, i, 1, out=x)",
    "x.clone().index_fill_(0, [0], 1)",
    "lib.index_put(x, i, x[0])",
    "lib.index_put(x, (i,), 1.0)",
    "lib.index_put(x, (i,), x[0, :1], accumulate=2)",
    "lib.index_put(x, (0,), x[0])",
    "lib.index_put(x, (None, i), x[0, :1])",
    "x.clone().index_put_([i], 1)",
    "lib.masked_fill(x, m, 'a')",
    "lib.masked_fill(x, 1, 1)",
    "x.masked_fill(m)",
    "x.clone().masked_fill_(m, [1])",
    "lib.masked_select(x, 1)",
    "lib.masked_select(x, m, lib.empty(0))",
    "lib.masked_scatter(x, m, 1.0)",
    "x.clone().masked_scatter_(m, 1.0)",
    "lib.take(x, 1)",
    "lib.put(x, i, x[0, :2], 1)",
    "lib.put(x, i, x[0, :2], accumulate='a')",
    "lib.put(x, i, x[0, :2], out=x)",
    "x.clone().put_(i, 1.0)",
    "lib.nonzero('a')",
    "lib.nonzero(x, True)",
    "lib.nonzero(x, as_tuple='a')",
    "lib.nonzero(x, as_tuple=True, out=lib.empty(0, dtype=lib.int64))",
    "lib.nonzero(x, out=1)",
    "x.nonzero(out=lib.empty(0, dtype=lib.int64))",
    "x.nonzero(True)",
    "lib.argwhere(x, out=x)",
    "lib.argwhere(1)",
]


@pytest.mark.parametrize("expr", BAD_CALLS)
def test_bad_calls_raise_like_torch(expr):
    assert_same_error(lambda: _eval(expr, vg), lambda: _eval(expr, torch))


GOOD_CALLS = [
    "lib.scatter(x, 0, i2, value=2)",
    "lib.scatter(x, 0, i2, src=x)",
    "lib.scatter(x, 0, i2, 2.0, reduce='add')",
    "lib.scatter(x, 0, i2, x, reduce='multiply', out=lib.empty(3, 4))",
    "x.scatter(0, i2, 2, reduce='add')",
    "lib.index_add(x, 0, i, x[:2], alpha=2, out=lib.empty(0))",
    "lib.index_copy(x, 0, i, x[:2], out=lib.empty(3, 4))",
    "lib.index_fill(x, 0, i, value=1)",
    "lib.index_fill(x, 0, i, lib.tensor(2.0))",
    "lib.index_put(x, [i], x[0, :1])",
    "x.clone().index_put_((i,), x[0, :1], True)",
    "lib.masked_fill(x, mask=m, value=lib.tensor(1.0))",
    "lib.masked_fill(x, m, True)",
    "lib.masked_select(x, m, out=lib.empty(0))",
    "lib.take(x, i, out=lib.empty(0))",
    "x.clone().put_(i, x[0, :2], True)",
    "lib.gather(x, 1, i2[:, :3], sparse_grad=False)",
    "x.nonzero(as_tuple=True)",
    "x.nonzero(as_tuple=False)",
    "lib.nonzero(input=x)",
    "lib.argwhere(x)",
]


@pytest.mark.parametrize("expr", GOOD_CALLS)
def test_good_calls_agree_with_torch(expr):
    got, expected = _eval(expr, vg), _eval(expr, torch)
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            assert_same(g, e)
    else:
        assert_same(got, expected)


def test_argwhere_is_composite_over_nonzero():
    """CompositeImplicitAutograd, as in PyTorch: ``aten::argwhere`` calls ``aten::nonzero``."""
    x = vg.ones(2)
    with vg.dispatch_trace() as trace:
        x.argwhere()
    assert [(s.op, s.key) for s in trace.steps if s.action == "call"] == [
        ("aten::argwhere", "AutogradCPU"), ("aten::nonzero", "AutogradCPU")]  # fmt: skip


def test_nonzero_out_writes_while_an_input_requires_grad():
    x = vg.tensor([0.0, 1.0, 2.0], requires_grad=True)
    out = vg.empty(0, dtype=vg.int64)
    assert vg.nonzero(x, out=out) is out
    assert out.tolist() == [[1], [2]]

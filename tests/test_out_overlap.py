"""``out=`` overloads refuse the memory PyTorch's refuse, in PyTorch's order.

A kernel that writes ``out`` while it reads its inputs gives a wrong answer when they
share memory in the wrong way, so ATen checks (``MemoryOverlap.cpp``): an ``out`` whose
elements share memory (an ``expand``ed one), an ``out`` that is part of an input, an
``out`` that is an input a kernel reads in another order than it writes (``gather``'s
``self``). Each case below is run in vizgrad and in PyTorch: the same error (class and
message, hence which check came first), or the same result. Same-storage views that do
not overlap must be accepted; empty tensors overlap nothing; a tensor is fully its own
overlap.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same_outcome

import vizgrad as vg
from vizgrad.memory_overlap import (
    MemOverlap,
    MemOverlapStatus,
    assert_no_internal_overlap,
    assert_no_overlap,
    assert_no_partial_overlap,
    get_overlap_status,
    has_internal_overlap,
)


def _call(expr: str, lib):
    return eval(expr, {"lib": lib, "np": np})  # noqa: S307 - our own test expressions


def _raises(call) -> bool:
    """Whether ``call`` refuses memory that overlaps (any other error is not expected)."""
    try:
        call()
    except RuntimeError as error:
        assert "single memory location" in str(error), error
        return True
    return False


def check(expr: str) -> None:
    """``expr`` (written with ``lib``) raises what torch raises, or gives what it gives."""
    assert_same_outcome(lambda: _call(expr, vg), lambda: _call(expr, torch))


# --- the three checks, as MemoryOverlap.cpp makes them ----------------------------------

LAYOUTS = {
    "contiguous": "lib.arange(6.).view(2, 3)",
    "transposed": "lib.arange(6.).view(3, 2).t()",
    "stepped": "lib.arange(12.)[::2]",
    "expanded": "lib.zeros(3, 1).expand(3, 4)",
    "expanded size-1 dim": "lib.zeros(1, 3).as_strided((1, 3), (0, 1))",
    "expanded empty": "lib.zeros(3).expand(0, 3)",
    "overlapping windows": "lib.arange(6.).as_strided((2, 3), (1, 1))",
    "0-dim": "lib.tensor(1.)",
    "empty": "lib.zeros(0)",
}
TORCH_INTERNAL = {0: MemOverlap.NO, 1: MemOverlap.YES, 2: MemOverlap.TOO_HARD}


@pytest.mark.parametrize("expr", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_internal_overlap_is_torchs(expr):
    expected = TORCH_INTERNAL[torch._debug_has_internal_overlap(_call(expr, torch))]
    assert has_internal_overlap(_call(expr, vg)) is expected
    refused = expected is MemOverlap.YES
    assert _raises(lambda: assert_no_internal_overlap(_call(expr, vg))) == refused


# Pairs (input, written) of one storage, of one shape: ``take(input, index, out=written)``
# refuses any overlap (``assert_no_overlap``), ``written.add_(input)`` only a partial
# one (``assert_no_partial_overlap``). Which of them torch refuses says the status.
PAIRS = {
    "a tensor and itself": "((x := lib.arange(12.)), x)",
    "a tensor and a view of all of it": "((x := lib.arange(12.)), x[:])",
    "the same transposed view twice": "((x := lib.arange(12.)).view(3, 4).t(), x.view(3, 4).t())",
    "the same bytes, other strides": "((x := lib.arange(12.)).view(3, 4), x.view(4, 3).t())",
    "overlapping slices": "((x := lib.arange(12.))[:6], x[3:9])",
    "one element in common": "((x := lib.arange(12.))[:6], x[5:11])",
    "adjacent slices": "((x := lib.arange(12.))[:6], x[6:])",
    "the same element twice": "((x := lib.arange(12.))[3], x[3])",
    "two elements": "((x := lib.arange(12.))[3], x[4])",
    "interleaved steps": "((x := lib.arange(12.))[::2], x[1::2])",
    "a step inside a slice": "((x := lib.arange(12.))[::2], x[:6])",
    "non-dense rows over dense ones": "((x := lib.arange(12.)).view(2, 6)[:, :3], x[:6].view(2, 3))",
    "an empty tensor and itself": "((x := lib.zeros(0)), x)",
    "two empty views": "((x := lib.arange(12.))[:0], x[:0])",
    "two storages": "(lib.arange(12.), lib.arange(12.))",
}


def _torch_refuses(pair: str, lib) -> tuple[bool, bool]:
    a, b = _call(pair, lib)
    index = lib.zeros(b.shape, dtype=lib.int64)  # ``out`` keeps its shape
    any_overlap = _raises(lambda: lib.take(a, index, out=b))
    a, b = _call(pair, lib)
    partial = _raises(lambda: b.add_(a))
    return any_overlap, partial


@pytest.mark.parametrize("pair", PAIRS.values(), ids=PAIRS.keys())
def test_overlap_status_is_what_torchs_checks_see(pair):
    refused = _torch_refuses(pair, torch)
    assert _torch_refuses(pair, vg) == refused
    a, b = _call(pair, vg)
    status = get_overlap_status(b, a)
    any_overlap, partial = refused
    if partial:
        assert status is MemOverlapStatus.PARTIAL
    elif any_overlap:
        assert status is MemOverlapStatus.FULL
    else:
        assert status in (MemOverlapStatus.NO, MemOverlapStatus.TOO_HARD)
    assert _raises(lambda: assert_no_overlap(b, a)) == any_overlap
    assert _raises(lambda: assert_no_partial_overlap(b, a)) == partial


def test_overlap_is_judged_in_bytes_and_only_for_dense_tensors():
    x = vg.arange(12.0)
    assert get_overlap_status(x[::2], x[1::2]) is MemOverlapStatus.TOO_HARD
    assert get_overlap_status(x[:6], x[6:]) is MemOverlapStatus.NO
    assert get_overlap_status(x[:6], x[5:]) is MemOverlapStatus.PARTIAL
    assert get_overlap_status(x.view(3, 4), x.view(4, 3).t()) is MemOverlapStatus.PARTIAL
    empty = vg.zeros(0)
    assert get_overlap_status(empty, empty) is MemOverlapStatus.FULL
    assert get_overlap_status(empty, empty[:]) is MemOverlapStatus.NO


# --- gather: out may not overlap ``self``, nor part of ``index``; set before checked ---------

GATHER = [
    "lib.gather((x := lib.arange(4.)), 0, lib.tensor([0, 1, 2, 3]), out=x)",
    "lib.gather((x := lib.arange(4.)), 0, lib.tensor([0, 1, 2, 3]), out=x[:])",
    "lib.gather((x := lib.arange(6.))[:3], 0, lib.tensor([0, 1]), out=x[1:3])",
    "lib.gather((x := lib.arange(6.))[:2], 0, lib.tensor([0, 1]), out=x[2:4])",
    "lib.gather((x := lib.arange(8.))[::2], 0, lib.tensor([0, 1, 2, 3]), out=x[1::2])",
    "lib.gather((x := lib.arange(4.).view(2, 2)), 0, lib.tensor([[0, 1], [1, 0]]), out=x.t())",
    "lib.gather((x := lib.tensor(3.)), 0, lib.tensor(0), out=x)",
    "lib.gather(lib.tensor(3.), 0, lib.tensor(0), out=lib.zeros(()))",
    # An out resized into ``self``'s memory overlaps it; an expanded out resized is fine.
    "lib.gather((x := lib.arange(4.)), 0, lib.tensor([0, 1, 2, 3]), out=x[:0])",
    "lib.gather(lib.arange(4.), 0, lib.tensor([0, 1]), out=lib.zeros(1).expand(2))",
    "lib.gather(lib.arange(4.), 0, lib.tensor([0, 1, 2]), out=lib.zeros(1).expand(2))",
    "lib.gather(lib.arange(4.), 0, lib.tensor([], dtype=lib.int64), out=lib.zeros(1).expand(2))",
    # ``index`` may be ``out`` itself, not part of it.
    "lib.gather(lib.arange(4), 0, (i := lib.tensor([0, 1])), out=i)",
    "lib.gather(lib.arange(4), 0, (i := lib.tensor([0, 1, 2]))[:2], out=i[1:])",
    "lib.gather(lib.arange(4), 0, (i := lib.tensor([0, 1, 2, 3]))[:2], out=i[2:])",
    # dtype: out must have self's (torch's message, not a cast error), checked first.
    "lib.gather(lib.ones(3), 0, lib.tensor([0]), out=lib.zeros(1, dtype=lib.int64))",
    "lib.gather(lib.ones(3), 0, lib.tensor([0]), out=lib.zeros(1, dtype=lib.float64))",
    "lib.gather(lib.ones(3), 0, lib.tensor([0, 1]), out=lib.zeros(1, dtype=lib.float64).expand(2))",
    "lib.gather(lib.ones(3), 0, lib.tensor([], dtype=lib.int64), out=lib.zeros(2, dtype=lib.int64))",
    # order: dim, then dtype and overlap, then the index's dtype, dims and values
    "lib.gather((x := lib.arange(4.)), 5, lib.tensor([0]), out=x)",
    "lib.gather((x := lib.arange(4.)), 0, lib.tensor([[0]]), out=x)",
    "lib.gather((x := lib.arange(4.)), 0, lib.tensor([9]), out=x[:1])",
    "lib.gather(lib.arange(4.), 0, lib.tensor([0, 1], dtype=lib.uint8), "
    "out=lib.zeros(1).expand(2))",
    "lib.gather(lib.arange(4.), 0, lib.tensor([0, 1], dtype=lib.uint8), "
    "out=lib.zeros(2, dtype=lib.int64))",
]

# An empty index reads nothing, so its dtype is not checked (a non-empty one must be int).
EMPTY_INDEX_DTYPES = ["uint8", "int8", "int32", "int64", "bool", "float32"]


@pytest.mark.parametrize("expr", GATHER)
def test_gather_out(expr):
    check(expr)


@pytest.mark.parametrize("dtype", EMPTY_INDEX_DTYPES)
@pytest.mark.parametrize("index", ["[]", "[1]"], ids=["empty", "non-empty"])
@pytest.mark.parametrize("expr", [
    "lib.gather(lib.ones(3), 0, lib.tensor({index}, dtype=lib.{dtype}))",
    "lib.gather(lib.ones(3), 0, lib.tensor({index}, dtype=lib.{dtype}), out=lib.zeros(2))",
    "lib.gather(lib.ones(2, 3), 1, lib.tensor({index}, dtype=lib.{dtype}).view(1, -1))",
    "lib.scatter(lib.zeros(3), 0, lib.tensor({index}, dtype=lib.{dtype}), lib.ones(1))",
    "lib.scatter(lib.zeros(3), 0, lib.tensor({index}, dtype=lib.{dtype}), 2.)",
    "lib.zeros(3).scatter_(0, lib.tensor({index}, dtype=lib.{dtype}), lib.ones(1))",
    "lib.zeros(3).scatter_(0, lib.tensor({index}, dtype=lib.{dtype}), lib.ones(1), "
    "reduce='add')",
    "lib.scatter_add(lib.zeros(3), 0, lib.tensor({index}, dtype=lib.{dtype}), lib.ones(1))",
    "lib.zeros(3).scatter_add_(0, lib.tensor({index}, dtype=lib.{dtype}), lib.ones(1))",
    "lib.index_select(lib.ones(3), 0, lib.tensor({index}, dtype=lib.{dtype}))",
    "lib.take(lib.ones(3), lib.tensor({index}, dtype=lib.{dtype}))",
    "lib.index_add(lib.zeros(3), 0, lib.tensor({index}, dtype=lib.{dtype}), "
    "lib.ones(len({index})))",
    "lib.index_copy(lib.zeros(3), 0, lib.tensor({index}, dtype=lib.{dtype}), "
    "lib.ones(len({index})))",
])  # fmt: skip
def test_index_dtypes_of_empty_and_non_empty_indexes(expr, index, dtype):
    check(expr.format(index=index, dtype=dtype))


# --- scatter, scatter_add: out may not overlap index or src; may be self ----------------------

SCATTER = [
    "lib.{op}((x := lib.arange(6.)), 0, lib.tensor([0]), lib.ones(1), out=x)",
    "lib.{op}((x := lib.arange(6.)), 0, lib.tensor([0]), lib.ones(1), out=x[:])",
    "lib.{op}((x := lib.arange(6.))[:3], 0, lib.tensor([0]), lib.ones(1), out=x[1:4])",
    "lib.{op}((x := lib.arange(6.))[:3], 0, lib.tensor([0]), lib.ones(1), out=x[3:])",
    "lib.{op}((x := lib.arange(6.))[:2], 0, lib.tensor([0]), lib.ones(1), out=x[1:1])",
    "lib.{op}((x := lib.zeros(2, 2)), 0, lib.tensor([[0]]), lib.ones(1, 1), out=x.t())",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0]), lib.ones(1), out=lib.zeros(1).expand(2))",
    "lib.{op}(lib.zeros(3), 0, lib.tensor([0]), lib.ones(1), out=lib.zeros(1).expand(2))",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([], dtype=lib.int64), lib.ones(1), "
    "out=lib.zeros(1).expand(2))",
    "lib.{op}(lib.zeros(2, dtype=lib.int64), 0, (i := lib.tensor([0, 1])), "
    "lib.ones(2, dtype=lib.int64), out=i)",
    "lib.{op}(lib.zeros(2, dtype=lib.int64), 0, (i := lib.tensor([0, 1, 0]))[:2], "
    "lib.ones(2, dtype=lib.int64), out=i[1:])",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0, 1]), (s := lib.ones(2)), out=s)",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0, 1]), (s := lib.ones(3))[:2], out=s[1:])",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0]), lib.ones(1), out=lib.zeros(2, dtype=lib.float64))",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0]), lib.ones(1), out=lib.zeros(2, dtype=lib.int64))",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0]), lib.ones(1), "
    "out=lib.zeros(1, dtype=lib.float64).expand(2))",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0], dtype=lib.int8), lib.ones(1), "
    "out=lib.zeros(1).expand(2))",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0]), lib.ones(1, dtype=lib.float64), "
    "out=lib.zeros(1).expand(2))",
    "lib.{op}((x := lib.arange(6.))[:3], 0, lib.tensor([7]), lib.ones(1), out=x[1:4])",
    "lib.{op}((x := lib.arange(6.)), 0, lib.tensor([9]), lib.ones(1), out=x)",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0, 1, 1]), (s := lib.ones(2)), out=s)",
    "lib.{op}(lib.zeros(2), 0, (i := lib.tensor([0, 1])), lib.ones(2), out=i)",
]


@pytest.mark.parametrize("op", ["scatter", "scatter_add"])
@pytest.mark.parametrize("expr", SCATTER)
def test_scatter_out(expr, op):
    check(expr.format(op=op))


@pytest.mark.parametrize("expr", [
    "lib.scatter((x := lib.arange(6.)), 0, lib.tensor([0]), 1., out=x)",
    "lib.scatter((x := lib.arange(6.))[:3], 0, lib.tensor([0]), 1., out=x[1:4])",
    "lib.scatter(lib.zeros(2), 0, lib.tensor([0]), 1., out=lib.zeros(1).expand(2))",
    "lib.scatter(lib.zeros(2), 0, (i := lib.tensor([0, 1])), 1, out=i)",
    "lib.scatter((x := lib.arange(6.)), 0, lib.tensor([0]), lib.ones(1), reduce='add', out=x)",
    "lib.scatter((x := lib.arange(6.))[:3], 0, lib.tensor([0]), lib.ones(1), reduce='add', "
    "out=x[1:4])",
    "lib.scatter(lib.zeros(2), 0, lib.tensor([0, 1]), (s := lib.ones(2)), reduce='multiply', "
    "out=s)",
])  # fmt: skip
def test_scatter_value_and_reduce_out(expr):
    check(expr)


# --- index_add, index_copy: out may not overlap index or source; may be self -------------------

INDEX_ADD_COPY = [
    "lib.{op}((x := lib.arange(6.)), 0, lib.tensor([0]), lib.ones(1), out=x)",
    "lib.{op}((x := lib.arange(6.)), 0, lib.tensor([0]), lib.ones(1), out=x[:])",
    "lib.{op}((x := lib.arange(6.))[:3], 0, lib.tensor([0]), lib.ones(1), out=x[1:4])",
    "lib.{op}((x := lib.arange(6.))[:3], 0, lib.tensor([0]), lib.ones(1), out=x[3:])",
    "lib.{op}((x := lib.arange(6.))[:2], 0, lib.tensor([0]), lib.ones(1), out=x[1:1])",
    "lib.{op}((x := lib.zeros(2, 2)), 0, lib.tensor([0]), lib.ones(1, 2), out=x.t())",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0]), lib.ones(1), out=lib.zeros(1).expand(2))",
    "lib.{op}(lib.zeros(3), 0, lib.tensor([0]), lib.ones(1), out=lib.zeros(1).expand(2))",
    "lib.{op}(lib.zeros(0), 0, lib.tensor([], dtype=lib.int64), lib.ones(0), "
    "out=lib.zeros(1).expand(2))",
    "lib.{op}(lib.zeros(2, dtype=lib.int64), 0, (i := lib.tensor([0, 1])), "
    "lib.ones(2, dtype=lib.int64), out=i)",
    "lib.{op}(lib.zeros(3, dtype=lib.int64), 0, (i := lib.tensor([0, 1, 0]))[:2], "
    "lib.ones(2, dtype=lib.int64), out=i[1:])",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0, 1]), (s := lib.ones(2)), out=s)",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0, 1]), (s := lib.ones(3))[:2], out=s[1:])",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0]), lib.ones(1), out=lib.zeros(2, dtype=lib.float64))",
    "lib.{op}(lib.tensor(1.), 0, lib.tensor([0]), lib.tensor(2.), out=lib.zeros(()))",
    # the order of the argument checks, the dtype and the overlap checks
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0], dtype=lib.int8), lib.ones(1), "
    "out=lib.zeros(1).expand(2))",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([[0]]), lib.ones(1), out=lib.zeros(1).expand(2))",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0]), lib.ones(1, dtype=lib.float64), "
    "out=lib.zeros(1).expand(2))",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0, 1]), lib.ones(1), out=lib.zeros(1).expand(2))",
    "lib.{op}(lib.zeros(2, 3), 0, lib.tensor([0]), lib.ones(1, 2), "
    "out=lib.zeros(1, 1).expand(2, 3))",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0], dtype=lib.int8), lib.ones(1), "
    "out=lib.zeros(2, dtype=lib.float64))",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0]), lib.ones(1, dtype=lib.float64), "
    "out=lib.zeros(2, dtype=lib.float64))",
    "lib.{op}((x := lib.arange(6.))[:3], 0, lib.tensor([0], dtype=lib.int8), lib.ones(1), "
    "out=x[1:4])",
    "lib.{op}((x := lib.arange(6.))[:4].view(2, 2), 0, lib.tensor([0]), lib.ones(1, 3), "
    "out=x[1:5].view(2, 2))",
    "lib.{op}((x := lib.arange(6.))[:3], 0, lib.tensor([7]), lib.ones(1), out=x[1:4])",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([0, 1], dtype=lib.int8), (s := lib.ones(2)), out=s)",
    "lib.{op}((x := lib.arange(6.)), 0, lib.tensor([9]), lib.ones(1), out=x)",
    "lib.{op}(lib.zeros(2), 0, lib.tensor([9]), lib.ones(1), out=lib.zeros(1).expand(2))",
]


@pytest.mark.parametrize("op", ["index_add", "index_copy"])
@pytest.mark.parametrize("expr", INDEX_ADD_COPY)
def test_index_add_and_index_copy_out(expr, op):
    check(expr.format(op=op))


@pytest.mark.parametrize("expr", [
    # index_add: a vector (or a scalar) checks its indices in its own words
    "lib.index_add(lib.arange(6.), 0, lib.tensor([9]), lib.ones(1))",
    "lib.index_add(lib.arange(6.), 0, lib.tensor([-1]), lib.ones(1))",
    "lib.index_add(lib.tensor(1.), 0, lib.tensor([1]), lib.tensor(2.))",
    "lib.index_add(lib.zeros(2, 3), 0, lib.tensor([9]), lib.ones(1, 3))",
    "lib.index_add(lib.zeros(2, 3), 1, lib.tensor([-1]), lib.ones(2, 1))",
    "lib.index_add(lib.zeros(0, 3), 0, lib.tensor([2]), lib.ones(1, 3))",
    # index_copy: its checks, their order and their words
    "lib.index_copy(lib.zeros(2, 3, 4), 0, lib.tensor([0]), lib.ones(1, 3, 5))",
    "lib.index_copy(lib.zeros(2, 3, 4), 1, lib.tensor([0]), lib.ones(2, 1, 5))",
    "lib.index_copy(lib.zeros(2, 3), 0, lib.tensor([0]), lib.ones(1, 3, 1))",
    "lib.index_copy(lib.zeros(2, 3), 0, lib.tensor([0]), lib.ones(3))",
    "lib.index_copy(lib.zeros(2), 0, lib.tensor([0]), lib.ones(1, 2))",
    "lib.index_copy(lib.zeros(3), 0, lib.tensor([0, 1]), lib.tensor(1.))",
    "lib.index_copy(lib.zeros(3), 0, lib.tensor([1]), lib.tensor(5.))",
    "lib.index_copy(lib.tensor(0.), 0, lib.tensor([0]), lib.ones(1))",
    "lib.index_copy(lib.zeros(3), 0, lib.tensor([[0]]), lib.ones(1))",
    "lib.index_copy(lib.zeros(3), 0, lib.tensor([[[0]]]), lib.ones(1))",
    "lib.index_copy(lib.zeros(2, 3), 0, lib.tensor([0, 1]), lib.ones(1, 3))",
    "lib.index_copy(lib.zeros(2, 3), 0, lib.tensor([0], dtype=lib.int32), lib.ones(1, 2))",
    "lib.index_copy(lib.zeros(2, 3), 0, lib.tensor([0]), lib.ones(1, 2, dtype=lib.float64))",
    "lib.index_copy(lib.zeros(2, 3), 0, lib.tensor([5]), lib.ones(1, 3))",
])  # fmt: skip
def test_index_add_and_index_copy_checks(expr):
    check(expr)


# --- index_select, take, masked_select: hand-written out kernels, checked before resizing -----

INDEX_SELECT = [
    "lib.index_select((x := lib.arange(6.)), 0, lib.tensor([0, 1, 2, 3, 4, 5]), out=x)",
    "lib.index_select((x := lib.arange(6.))[:3], 0, lib.tensor([0, 1]), out=x[1:3])",
    "lib.index_select((x := lib.arange(6.))[:3], 0, lib.tensor([0, 1]), out=x[4:])",
    "lib.index_select((x := lib.arange(6.))[:2], 0, lib.tensor([0, 1]), out=x[2:2])",
    "lib.index_select(lib.arange(6.), 0, lib.tensor([0, 1]), out=lib.zeros(1).expand(2))",
    "lib.index_select(lib.arange(6.), 0, lib.tensor([], dtype=lib.int64), "
    "out=lib.zeros(1).expand(2))",
    "lib.index_select(lib.arange(6), 0, (i := lib.tensor([0, 1])), out=i)",
    "lib.index_select(lib.arange(6), 0, (i := lib.tensor([0, 1, 2]))[:2], out=i[1:])",
    "lib.index_select(lib.arange(6.), 0, lib.tensor([0]), out=lib.zeros(1, dtype=lib.int64))",
    "lib.index_select(lib.arange(6.), 0, lib.tensor([0]), out=lib.zeros(1, dtype=lib.float64))",
    "lib.index_select((x := lib.arange(6.)), 0, lib.tensor([[0]]), out=x)",
    "lib.index_select((x := lib.arange(6.)), 0, lib.tensor([0], dtype=lib.uint8), out=x)",
    "lib.index_select((x := lib.arange(6.)), 3, lib.tensor([[0]]), out=x)",
    "lib.index_select((x := lib.arange(6.)), 0, lib.tensor([9]), out=x[:1])",
    "lib.index_select(lib.arange(6.), 0, lib.tensor([0], dtype=lib.uint8), "
    "out=lib.zeros(1, dtype=lib.int64))",
    "lib.index_select(lib.arange(6.), 0, lib.tensor([0]), "
    "out=lib.zeros(1, dtype=lib.int64).expand(2))",
    "lib.index_select(lib.tensor(3.), 0, lib.tensor([0, 0]))",
    "lib.index_select(lib.tensor(3.), 0, lib.tensor([], dtype=lib.int64))",
    "lib.index_select((x := lib.tensor(3.)), 0, lib.tensor([0, 0]), out=x)",
    "lib.index_select(lib.tensor(3.), 0, lib.tensor([0]), out=lib.zeros(()))",
]

TAKE = [
    "lib.take((x := lib.arange(6.)), lib.tensor([0, 1, 2, 3, 4, 5]), out=x)",
    "lib.take((x := lib.arange(6.))[:4], lib.tensor([0, 1]), out=x[1:3])",
    "lib.take((x := lib.arange(6.))[:3], lib.tensor([0, 1]), out=x[4:])",
    "lib.take(lib.arange(6.), lib.tensor([0, 1]), out=lib.zeros(1).expand(2))",
    "lib.take(lib.arange(6.), lib.tensor([], dtype=lib.int64), out=lib.zeros(1).expand(2))",
    "lib.take(lib.arange(6), (i := lib.tensor([0, 1])), out=i)",
    "lib.take(lib.arange(6), (i := lib.tensor([0, 1, 2]))[:2], out=i[1:])",
    "lib.take(lib.arange(6.), lib.tensor([0]), out=lib.zeros(1, dtype=lib.int64))",
    "lib.take(lib.arange(6.), lib.tensor([0]), out=lib.zeros(1, dtype=lib.float64))",
    "lib.take(lib.arange(6.), lib.tensor([0, 1]), out=lib.zeros(1, dtype=lib.int64).expand(2))",
    "lib.take((x := lib.arange(6.)), lib.tensor([0], dtype=lib.int32), out=x)",
    "lib.take((x := lib.arange(6.)), lib.tensor([10]), out=x[:1])",
    "lib.take((x := lib.zeros(0)), lib.tensor([0]), out=x)",
    "lib.take(lib.zeros(0), lib.tensor([0]))",
    "lib.take(lib.zeros(0), lib.tensor([], dtype=lib.int64))",
    "lib.take(lib.tensor(2.), lib.tensor([0, 0]), out=lib.zeros(2))",
]

MASK = "lib.tensor([True, False, True, True, False, True])"
MASKED_SELECT = [
    f"lib.masked_select((x := lib.arange(6.)), {MASK}, out=x)",
    "lib.masked_select((x := lib.arange(6.))[:2], lib.tensor([True, True]), out=x[1:3])",
    "lib.masked_select((x := lib.arange(6.))[:2], lib.tensor([True, True]), out=x[3:5])",
    f"lib.masked_select(lib.arange(6.), {MASK}, out=lib.zeros(1).expand(4))",
    "lib.masked_select(lib.zeros(0), lib.ones(0, dtype=lib.bool), out=lib.zeros(1).expand(2))",
    "lib.masked_select((b := lib.tensor([True, False, True])), b, out=b)",
    "lib.masked_select(lib.ones(2, dtype=lib.bool), (b := lib.tensor([True, False, True]))[:2], "
    "out=b[1:])",
    f"lib.masked_select(lib.arange(6.), {MASK}, out=lib.zeros(4, dtype=lib.int64))",
    f"lib.masked_select(lib.arange(6.), {MASK}, out=lib.zeros(4, dtype=lib.float64))",
    "lib.masked_select((x := lib.arange(6.)), lib.ones(6, dtype=lib.uint8), out=x)",
    "lib.masked_select((x := lib.arange(6.)), lib.ones(4, dtype=lib.bool), out=x)",
    "lib.masked_select(lib.arange(6.), lib.ones(4, dtype=lib.bool), out=lib.zeros(1).expand(2))",
    "lib.masked_select(lib.arange(6.).view(2, 3), lib.tensor([True, False, True]), "
    "out=lib.zeros(4))",
]


@pytest.mark.parametrize("expr", INDEX_SELECT + TAKE + MASKED_SELECT)
def test_index_select_take_masked_select_out(expr):
    check(expr)


# --- kthvalue: values may not overlap self; neither out may overlap itself once resized --------

EMPTY_LONG = "lib.zeros(0, dtype=lib.int64)"
KTHVALUE = [
    f"lib.kthvalue((x := lib.arange(6.)), 2, out=(x, {EMPTY_LONG}))",
    f"lib.kthvalue((x := lib.arange(6.)), 2, out=(x[:], {EMPTY_LONG}))",
    f"lib.kthvalue((x := lib.arange(6.))[:4].view(2, 2), 1, out=(x[3:5], {EMPTY_LONG}))",
    f"lib.kthvalue((x := lib.arange(6.))[:4].view(2, 2), 1, out=(x[4:], {EMPTY_LONG}))",
    f"lib.kthvalue((x := lib.tensor(3.)), 1, out=(x, {EMPTY_LONG}))",
    f"lib.kthvalue(lib.arange(6.).view(2, 3), 1, out=(lib.zeros(1).expand(2), {EMPTY_LONG}))",
    "lib.kthvalue(lib.arange(6.).view(2, 3), 1, "
    "out=(lib.zeros(0), lib.zeros(1, dtype=lib.int64).expand(2)))",
    f"lib.kthvalue(lib.arange(6.).view(2, 3), 1, 1, True, "
    f"out=(lib.zeros(1, 1).expand(2, 1), {EMPTY_LONG}))",
    f"lib.kthvalue(lib.arange(6.).view(2, 3), 1, out=(lib.zeros(1).expand(3), {EMPTY_LONG}))",
    "lib.kthvalue(lib.arange(6.).view(2, 3), 1, "
    "out=(lib.zeros(0), lib.zeros(1, dtype=lib.int64).expand(3)))",
    f"lib.kthvalue((y := lib.arange(6.))[:4].view(2, 2), 1, out=(y[:0], {EMPTY_LONG}))",
    "lib.kthvalue((x := lib.arange(6)), 1, out=(lib.zeros(0, dtype=lib.int64), x))",
    "lib.kthvalue((x := lib.arange(6))[:4].view(2, 2), 1, "
    "out=(lib.zeros(0, dtype=lib.int64), x[1:3]))",
    # the order: arguments, the values' overlap with self, dtypes, then internal overlap
    f"lib.kthvalue((x := lib.arange(6.)), 9, out=(x, {EMPTY_LONG}))",
    "lib.kthvalue((x := lib.arange(6.)), 1, out=(x, lib.zeros(0, dtype=lib.int32)))",
    f"lib.kthvalue(lib.arange(6.), 1, out=(lib.zeros(0, dtype=lib.float64), {EMPTY_LONG}))",
    "lib.kthvalue(lib.arange(6.).view(2, 3), 1, "
    "out=(lib.zeros(0, dtype=lib.float64), lib.zeros(1, dtype=lib.int64).expand(2)))",
    f"lib.kthvalue(lib.zeros(0), 1, out=(lib.zeros(0), {EMPTY_LONG}))",
]


@pytest.mark.parametrize("expr", KTHVALUE)
def test_kthvalue_out(expr):
    check(expr)


# --- bernoulli(out=): resized without a warning, then as the in-place sampler checks ----------

BERNOULLI = [
    "lib.bernoulli((x := lib.zeros(4)), out=x)",
    "lib.bernoulli((x := lib.ones(4)), out=x[:])",
    "lib.bernoulli((x := lib.zeros(4))[:2], out=x[1:3])",
    "lib.bernoulli((x := lib.zeros(4))[:2], out=x[2:])",
    "lib.bernoulli((x := lib.zeros(4))[::2], out=x[:2])",
    "lib.bernoulli((x := lib.zeros(2, 2)), out=x.t())",
    "lib.bernoulli((x := lib.tensor(1.)), out=x)",
    "lib.bernoulli(lib.zeros(2), out=lib.zeros(1).expand(2))",
    "lib.bernoulli(lib.zeros(2, 2), out=lib.zeros(2, 1).expand(2, 2))",
    "lib.bernoulli(lib.ones(3), out=lib.zeros(1).expand(2))",
    "lib.bernoulli(lib.zeros(0), out=lib.zeros(1).expand(2))",
    "lib.bernoulli((x := lib.zeros(4))[1:3], out=x[:0])",
    "lib.bernoulli((x := lib.ones(4))[:2], out=x[:0])",
    "lib.bernoulli(lib.ones(3), out=lib.zeros(3, dtype=lib.int64))",
    "lib.bernoulli(lib.ones(3), out=lib.zeros(3, dtype=lib.bool))",
    "lib.bernoulli(lib.ones(3), out=lib.zeros(3, dtype=lib.float64))",
    "lib.bernoulli(lib.ones(2, 3), out=lib.zeros(3, 2).t())",
    "lib.bernoulli(lib.zeros(2), out=lib.zeros(2, 2))",
    "lib.bernoulli(lib.zeros(3, dtype=lib.int64), out=lib.zeros(3))",
    "lib.bernoulli((x := lib.zeros(4, dtype=lib.int64))[:2], out=x[1:3])",
    "lib.bernoulli(lib.full((3,), 2.), out=lib.zeros(3))",
    "lib.bernoulli(lib.full((3,), 2.), out=lib.zeros(1).expand(3))",
    "lib.bernoulli((x := lib.full((4,), 2.))[:2], out=x[1:3])",
    "lib.bernoulli((x := lib.full((4,), 2.)), out=x)",
    "lib.bernoulli(lib.zeros(3, requires_grad=True), out=lib.zeros(3))",
]


@pytest.mark.parametrize("expr", BERNOULLI)
def test_bernoulli_out(expr):
    check(expr)


# --- cat and stack: out may overlap no input (checked after resizing), nor itself -------------

CAT = [
    "lib.cat([(x := lib.arange(6.)), x], out=x)",
    "lib.cat([(x := lib.arange(6.))], out=x)",
    "lib.cat([(x := lib.arange(6.))[:2], x[2:3]], out=x[1:4])",
    "lib.cat([(x := lib.arange(6.))[:1], x[1:2]], out=x[4:])",
    "lib.cat([(x := lib.arange(6.))[:3]], out=x[:3])",
    "lib.cat([(x := lib.arange(6.))[:2]], out=x[:0])",
    "lib.cat([(x := lib.arange(6.))[:2]], out=x[4:4])",
    "lib.cat([(x := lib.arange(4.).view(2, 2))], out=x.t())",
    "lib.cat([(x := lib.arange(8.))[::2]], out=x[1::2])",
    "lib.cat([lib.ones(1), lib.ones(1)], out=lib.zeros(1).expand(2))",
    "lib.cat([lib.ones(1), lib.ones(2)], out=lib.zeros(1).expand(2))",
    "lib.cat([lib.ones(0), lib.ones(0)], out=lib.zeros(1).expand(2))",
    "lib.cat([lib.ones(2), (x := lib.arange(6.))[:0]], out=x[:2])",
    "lib.cat([lib.ones(2), (x := lib.zeros(0))], out=x)",
    "lib.cat([lib.ones(2)], out=lib.zeros(2, dtype=lib.float64))",
    "lib.cat([lib.ones(2, dtype=lib.int64)], out=lib.zeros(2))",
    # order: zero-dim, dim, cast, sizes, then overlap
    "lib.cat([(x := lib.arange(6.)), x.to(lib.float64)], out=x)",
    "lib.cat([(x := lib.arange(6.)).view(2, 3), lib.ones(2, 2)], dim=0, out=x)",
    "lib.cat([(x := lib.arange(6.)), lib.tensor(1.)], out=x)",
    "lib.cat([lib.ones(2, 3), lib.ones(2, 2)], out=lib.zeros(1).expand(2))",
    "lib.cat([lib.ones(2)], out=lib.zeros(1, dtype=lib.int64).expand(2))",
    "lib.cat([lib.ones(2), lib.tensor(1.)], out=lib.zeros(2, dtype=lib.int64))",
    "lib.cat([lib.ones(2, 3), lib.ones(2, 2)], out=lib.zeros(2, dtype=lib.int64))",
    "lib.cat([lib.ones(2)], dim=3, out=lib.zeros(2, dtype=lib.int64))",
    "lib.cat([lib.ones(0)], dim=3, out=lib.zeros(2, dtype=lib.int64))",
    "lib.cat([lib.ones(0), lib.ones(0)], dim=3, out=lib.zeros(2))",
    "lib.cat([], out=lib.zeros(2))",
    "lib.concat([(x := lib.arange(6.))], out=x)",
    "lib.concatenate([(x := lib.arange(6.))[:2]], out=x[1:3])",
]

STACK = [
    "lib.stack([(x := lib.arange(6.)), x], out=x)",
    "lib.stack([(x := lib.arange(6.))], out=x.unsqueeze(0))",
    "lib.stack([(x := lib.arange(6.))[:1], x[1:2]], out=x[1:3].view(2, 1))",
    "lib.stack([(x := lib.arange(6.))[:1], x[1:2]], out=x[4:].view(2, 1))",
    "lib.stack([(x := lib.arange(6.))[:1], x[1:2]], dim=1, out=x[1:3].view(1, 2))",
    "lib.stack([lib.ones(1), lib.ones(1)], out=lib.zeros(1, 1).expand(2, 1))",
    "lib.stack([lib.ones(1), lib.ones(1)], out=lib.zeros(1).expand(3))",
    "lib.stack([lib.ones(0)], out=lib.zeros(1).expand(2))",
    "lib.stack([(x := lib.arange(6.)), x[:2]], out=x)",
    "lib.stack([lib.ones(2), lib.ones(3)], out=lib.zeros(1).expand(2))",
    "lib.stack([(x := lib.arange(6.)), x], out=x.to(lib.int64))",
    "lib.stack([lib.ones(2), lib.ones(3)], out=lib.zeros(2, dtype=lib.int64))",
    "lib.stack([], out=lib.zeros(2))",
    "lib.stack([lib.ones(2)], dim=3, out=lib.zeros(2))",
    "lib.hstack([(x := lib.arange(6.)), x], out=x)",
    "lib.vstack([(x := lib.arange(6.))], out=x.unsqueeze(0))",
    "lib.dstack([(x := lib.arange(6.))[:1]], out=x[1:2].view(1, 1, 1))",
    "lib.column_stack([(x := lib.arange(6.))], out=x.view(6, 1))",
]


@pytest.mark.parametrize("expr", CAT + STACK)
def test_cat_and_stack_out(expr):
    check(expr)


# --- multinomial.out: declared as PyTorch declares it ---------------------------------------

PROBS = "lib.tensor([0., 1.])"  # draws are certain: the values compare too
MULTINOMIAL = [
    f"lib.multinomial({PROBS}, 3, True, out=lib.zeros(0, dtype=lib.int64))",
    f"lib.multinomial({PROBS}, 3, True, out=lib.zeros(2, dtype=lib.int64))",
    f"lib.multinomial({PROBS}, 1, out=lib.tensor(0))",
    f"lib.multinomial({PROBS}, num_samples=1, replacement=False, out=lib.zeros(1, dtype=lib.int64))",
    f"lib.multinomial({PROBS}, 3, True, out=lib.zeros(3))",
    f"lib.multinomial({PROBS}, 3, True, out=lib.zeros(3, dtype=lib.int32))",
    f"lib.multinomial({PROBS}, 0, True, out=lib.zeros(3))",
    f"lib.multinomial({PROBS}, 3, out=lib.zeros(3, dtype=lib.int64))",
    f"lib.multinomial({PROBS}, 3, True, None, lib.zeros(3, dtype=lib.int64))",
    f"lib.multinomial({PROBS}, 3, True, generator=lib.Generator().manual_seed(0), "
    "out=lib.zeros(3, dtype=lib.int64))",
    "lib.multinomial(lib.tensor([[0., 1.], [1., 0.], [0., 3.]]), 1, "
    "out=lib.zeros(1, 3, dtype=lib.int64).t())",
    "lib.multinomial(lib.tensor([[0., 1.], [1., 0.]]), 4, True, out=lib.zeros(0, dtype=lib.int64))",
    "lib.multinomial(lib.ones(2, dtype=lib.int64), 1, out=lib.zeros(3))",
    "lib.multinomial(lib.ones(1, 1, 2), 1, out=lib.zeros(3))",
    "lib.multinomial(lib.ones(1, 1, 2, dtype=lib.int64), 1)",
    "lib.multinomial(lib.tensor(1.), 1, out=lib.tensor(0))",
    "lib.multinomial(lib.ones(0, 2), 1, out=lib.zeros(3, dtype=lib.int64))",
    "lib.multinomial(-lib.ones(0, 2), 1, out=lib.zeros(3, dtype=lib.int64))",
    "lib.multinomial(lib.tensor([-1., 2.]), 1, out=lib.zeros(3, dtype=lib.int64))",
    "lib.multinomial(lib.tensor([0., 0.]), 1, out=lib.zeros(3, dtype=lib.int64))",
    "lib.multinomial(lib.tensor([0., 1.], requires_grad=True), 1, "
    "out=lib.zeros(3, dtype=lib.int64))",
    f"{PROBS}.multinomial(1, out=lib.zeros(3, dtype=lib.int64))",
]


@pytest.mark.parametrize("expr", MULTINOMIAL)
def test_multinomial_out(expr):
    check(expr)


def test_multinomial_out_is_declared_as_pytorch_declares_it():
    schema = vg.multinomial.overloads["multinomial.out"].schema
    assert schema == (
        "multinomial.out(Tensor self, SymInt num_samples, bool replacement=False, *, "
        "Generator? generator=None, Tensor(a!) out) -> Tensor(a!)"
    )
    out = vg.zeros(5, dtype=vg.int64)
    assert vg.multinomial(vg.ones(4), 5, True, out=out) is out
    assert out._version == 1


def _warnings_of(expr: str, lib) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _call(expr, lib)
    return [str(w.message)[:40] for w in caught]


@pytest.mark.parametrize("expr", [
    "lib.bernoulli(lib.ones(3), out=lib.zeros(2))",
    f"lib.multinomial({PROBS}, 3, True, out=lib.zeros(2, dtype=lib.int64))",
    "lib.gather(lib.ones(3), 0, lib.tensor([0, 1]), out=lib.zeros(3))",
    "lib.cat([lib.ones(2)], out=lib.zeros(3))",
    "lib.take(lib.ones(3), lib.tensor([0, 1]), out=lib.zeros(3))",
    "lib.index_select(lib.ones(3), 0, lib.tensor([0, 1]), out=lib.zeros(3))",
])  # fmt: skip
def test_an_out_of_another_shape_warns_as_in_torch(expr):
    assert _warnings_of(expr, vg) == _warnings_of(expr, torch)

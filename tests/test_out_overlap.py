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

import numpy as np
import pytest
import torch

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

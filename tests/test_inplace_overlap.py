"""In-place indexing kernels refuse the memory PyTorch's refuse, in PyTorch's order.

``index_copy_``, ``index_add_``, ``scatter_``, ``scatter_add_``, ``put_`` and
``index_put_`` read ``source``/``src``/``values`` and ``index`` while they write
``self``: when either shares memory with ``self`` a later write would change what is
read, so ATen refuses it (``at::assert_no_overlap``, ``MemoryOverlap.cpp``);
``index_fill_`` refuses an ``index`` that is ``self``, ``masked_fill_`` a mask that is
part of ``self`` (``at::assert_no_partial_overlap``: the mask may be ``self`` itself).
An expanded ``self`` is refused (``assert_no_internal_overlap``), except by
``index_fill_``, ``masked_fill_`` and ``index_put_``, which warn that it is deprecated
and write. Each case runs in vizgrad and in PyTorch: the same error (class and message,
hence which check came first), or the same result and the same warnings. A view of the
same storage that does not overlap ``self`` is accepted; empty tensors overlap nothing.
"""

from __future__ import annotations

import pytest
import torch
from oracle import assert_same_outcome

import vizgrad as vg


def _call(expr: str, lib):
    """Evaluate ``expr`` with fresh tensors: ``f`` float 0..5, ``i`` int64 0..5, ``b`` bool."""
    names = {
        "lib": lib,
        "f": lib.arange(6.0),
        "i": lib.arange(6),
        "b": lib.tensor([True, False, True, True, False, True]),
        "e": lib.zeros(1).expand(3),
        "ei": lib.zeros(1, dtype=lib.int64).expand(3),
    }
    return eval(expr, names)  # noqa: S307 - our own test expressions


def check(expr: str) -> None:
    """``expr`` raises what torch raises, or gives what it gives with the same warnings."""
    assert_same_outcome(lambda: _call(expr, vg), lambda: _call(expr, torch),
                        compare_warnings=True)  # fmt: skip


SCATTER_LIKE = [
    # index_copy_: source and index must not share memory with self.
    "f.index_copy_(0, lib.tensor([0, 1, 2, 3, 4, 5]), f)",
    "f.index_copy_(0, lib.tensor([3, 4, 5]), f[:3])",
    "f.view(2, 3).index_copy_(1, lib.tensor([0, 1, 2]), f.view(2, 3))",
    "f[:3].index_copy_(0, lib.tensor([2, 1, 0]), f[3:])",
    "i.index_copy_(0, i, lib.arange(6))",
    "i.index_copy_(0, i[:3], lib.arange(3))",
    "i[3:].index_copy_(0, i[:3] % 3, lib.arange(3))",
    # index_add_
    "f.index_add_(0, lib.tensor([0, 1, 2, 3, 4, 5]), f)",
    "f.index_add_(0, lib.tensor([3, 4, 5]), f[:3])",
    "f[:3].index_add_(0, lib.tensor([2, 1, 0]), f[3:])",
    "f.index_add_(0, lib.tensor([0, 1, 2]), f[3:], alpha=2)",
    "i.index_add_(0, i, lib.arange(6))",
    "i.index_add_(0, i[:2], lib.arange(2))",
    # scatter_, its value and reduce forms, scatter_add_, scatter_reduce_
    "f.scatter_(0, lib.tensor([0, 1, 2, 3, 4, 5]), f)",
    "f.scatter_(0, lib.tensor([3, 4, 5]), f[:3])",
    "f[:3].scatter_(0, lib.tensor([2, 1, 0]), f[3:])",
    "i.scatter_(0, i, lib.arange(6))",
    "i.scatter_(0, i, 1)",
    "i.scatter_(0, i[:3], 1)",
    "i.scatter_(0, i, 1, reduce='add')",
    "i.scatter_(0, i[:3], 2, reduce='multiply')",
    "f.scatter_(0, lib.tensor([0, 1, 2]), f[3:], reduce='add')",
    "f.scatter_(0, lib.tensor([0, 1, 2]), f, reduce='multiply')",
    "f.scatter_add_(0, lib.tensor([0, 1, 2, 3, 4, 5]), f)",
    "f.scatter_add_(0, lib.tensor([3, 4, 5]), f[:3])",
    "f[:3].scatter_add_(0, lib.tensor([2, 1, 0]), f[3:])",
    "i.scatter_add_(0, i, lib.arange(6))",
    # put_
    "f.put_(lib.tensor([0, 1, 2, 3, 4, 5]), f)",
    "f.put_(lib.tensor([3, 4, 5]), f[:3])",
    "f[:3].put_(lib.tensor([2, 1, 0]), f[3:])",
    "f.put_(lib.tensor([3, 4, 5]), f[:3], accumulate=True)",
    "i.put_(i, lib.arange(6))",
    "i.put_(i[:2], lib.arange(2))",
    # index_put_ and t[idx] = v (Tensor.__setitem__ is index_put_)
    "f.index_put_((lib.tensor([0, 1, 2, 3, 4, 5]),), f)",
    "f.index_put_((lib.tensor([3, 4, 5]),), f[:3])",
    "f.index_put_((lib.tensor([3, 4, 5]),), f[:3], accumulate=True)",
    "f[:3].index_put_((lib.tensor([2, 1, 0]),), f[3:])",
    "i.index_put_((i,), lib.arange(6))",
    "i.index_put_((i[:3],), lib.arange(3))",
    "i[3:].index_put_((i[:3] % 3,), lib.arange(3))",
    "f.__setitem__(lib.tensor([3, 4, 5]), f[:3])",
    "f.__setitem__(lib.tensor([0, 1, 2, 3, 4, 5]), f)",
    "f[:3].__setitem__(lib.tensor([2, 1, 0]), f[3:])",
    "b.index_put_((b,), lib.tensor(False))",
    "b.index_put_((b,), lib.tensor([False, False, False, False]))",
    # index_fill_: the index must not be self
    "i.index_fill_(0, i, 0)",
    "i.index_fill_(0, i[:3], 0)",
    "i.index_fill_(0, i, lib.tensor(7))",
    "i[3:].index_fill_(0, i[:2], -1)",
    # masked_fill_: the mask may be self, not part of it
    "b.masked_fill_(b, False)",
    "b[:3].masked_fill_(b[1:4], False)",
    "b[:2].masked_fill_(b[2:4], False)",
    "b[:3].masked_fill_(b[1:4], lib.tensor(False))",
    "b.masked_fill_(lib.tensor([True, False, False, False, False, False]), b[2])",
    # masked_scatter_: PyTorch checks only self's internal overlap
    "b.masked_scatter_(b, lib.zeros(6, dtype=lib.bool))",
    "b[:3].masked_scatter_(b[1:4], lib.zeros(3, dtype=lib.bool))",
    "f[:3].masked_scatter_(lib.tensor([True, True, True]), f[1:4])",
]


@pytest.mark.parametrize("expr", SCATTER_LIKE)
def test_in_place_indexing_overlap(expr):
    check(expr)


EXPANDED = [
    # index_fill_, masked_fill_ and index_put_ warn and write; the others refuse.
    "e.index_fill_(0, lib.tensor([0]), 1.0)",
    "e.index_fill_(0, lib.tensor([0]), lib.tensor(1.0))",
    "e.masked_fill_(lib.tensor([True, False, False]), 1.0)",
    "e.masked_fill_(lib.tensor([True, False, False]), lib.tensor(1.0))",
    "e.index_put_((lib.tensor([0]),), lib.ones(1))",
    "e.masked_scatter_(lib.tensor([True, False, False]), lib.ones(3))",
    "e.index_copy_(0, lib.tensor([0]), lib.ones(1))",
    "e.index_add_(0, lib.tensor([0]), lib.ones(1))",
    "e.scatter_(0, lib.tensor([0]), lib.ones(1))",
    "e.scatter_(0, lib.tensor([0]), 1.0)",
    "e.scatter_add_(0, lib.tensor([0]), lib.ones(1))",
    "e.put_(lib.tensor([0]), lib.ones(1))",
    # Which check comes first: the arguments' or self's internal overlap.
    "e.scatter_(0, lib.tensor([0.0]), lib.ones(1))",
    "e.scatter_(0, lib.tensor([0]), lib.ones(1, dtype=lib.float64))",
    "e.scatter_(0, lib.tensor([0.0]), 1.0)",
    "e.scatter_add_(0, lib.tensor([0.0]), lib.ones(1))",
    "e.scatter_add_(0, lib.tensor([0]), lib.ones(1, dtype=lib.float64))",
    "e.index_add_(0, lib.tensor([0.0]), lib.ones(1))",
    "e.index_add_(0, lib.tensor([0]), lib.ones(1, dtype=lib.float64))",
    "e.index_add_(0, lib.tensor([[0]]), lib.ones(1))",
    "e.index_copy_(0, lib.tensor([0.0]), lib.ones(1))",
    "e.index_copy_(0, lib.tensor([0]), lib.ones(1, dtype=lib.float64))",
    "e.index_fill_(0, lib.tensor([0.0]), 1.0)",
    "e.put_(lib.tensor([0.0]), lib.ones(1))",
    "e.put_(lib.tensor([0]), lib.ones(1, dtype=lib.float64))",
    "e.masked_fill_(lib.tensor([1, 0, 0]), 1.0)",
    "e.masked_scatter_(lib.tensor([True, False, False]), lib.ones(3, dtype=lib.float64))",
    "e.index_put_((lib.tensor([0]),), lib.ones(1, dtype=lib.float64))",
    "ei.index_fill_(0, lib.tensor([0]), 2)",
    "ei.index_put_((lib.tensor([0]),), ei[:1])",
]


@pytest.mark.parametrize("expr", EXPANDED)
def test_expanded_self(expr):
    check(expr)


EMPTY = [
    "f[:0].index_copy_(0, lib.tensor([], dtype=lib.int64), f[:0])",
    "f[:0].index_add_(0, lib.tensor([], dtype=lib.int64), f[:0])",
    "f[:0].scatter_(0, lib.tensor([], dtype=lib.int64), f[:0])",
    "f.scatter_(0, lib.tensor([], dtype=lib.int64), f[:0])",
    "f.scatter_add_(0, lib.tensor([], dtype=lib.int64), f[:0])",
    "f.put_(lib.tensor([], dtype=lib.int64), f[:0])",
    "f.index_put_((lib.tensor([], dtype=lib.int64),), f[:0])",
    "i[:0].index_fill_(0, i[:0], 1)",
    "b[:0].masked_fill_(b[:0], True)",
    "lib.zeros(0).expand(3, 0).index_fill_(1, lib.tensor([], dtype=lib.int64), 1.0)",
    "lib.zeros(1, 0).expand(3, 0).scatter_(0, lib.zeros(3, 0, dtype=lib.int64), 1.0)",
]


@pytest.mark.parametrize("expr", EMPTY)
def test_empty(expr):
    check(expr)

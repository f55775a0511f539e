"""``max(dim)``, ``min(dim)``, ``argmax(dim)`` and ``argmin(dim)`` of huge inputs: PyTorch's
answer at once where it has one, and Ctrl-C otherwise.

``expand`` makes six values look like 6 * 10**12. Reduced along the huge dim, the
results are small: PyTorch reads the expanded input in place, for hours, and so does
vizgrad, a slice at a time, so a KeyboardInterrupt stops it. Kept, the huge dim makes
the results huge: PyTorch's meta step cannot allocate them (``max.dim``'s values first,
``argmax``'s indices), and both libraries fail at once with the allocator's error.
Sliced, an index reduction must give what one call gives (the first index of a tie,
the first nan): the slice size is made tiny here to check every way of cutting.
"""

from __future__ import annotations

import math
import signal
import time

import numpy as np
import pytest
import torch
from oracle import assert_same, make_pair

import vizgrad as vg
from vizgrad.ops import reduction_machinery

# (A float32 arange(6) seen as 10**12 batches of a 2x3 matrix.)
HUGE = "lib.arange(6.).reshape(2, 3).expand(10**12, 2, 3)"

# (Huge results of these, ``max(1)``…, fail at once: see test_interruptible_reductions.)

LONG_RUNNING = ["max(0)", "min(0)", "max(0, keepdim=True)", "min(-3)", "argmax(0)",
                "argmin(0, keepdim=True)"]  # fmt: skip


@pytest.mark.parametrize("call", LONG_RUNNING)
def test_a_long_index_reduction_stops_at_ctrl_c(call):
    huge = eval(HUGE, {"lib": vg})

    def interrupt(*_):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    start = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(KeyboardInterrupt):
            eval(f"huge.{call}", {"huge": huge})
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.perf_counter() - start < 5


@pytest.fixture
def tiny_slices(monkeypatch):
    monkeypatch.setattr(reduction_machinery, "CHUNK_ELEMENTS", 5)


# (shape, dim): the reduced dim the largest, a kept dim the largest, one small dim.
CUTS = [((40, 3, 2), 0), ((3, 40, 2), 0), ((2, 3, 40), 2), ((7, 9), 1), ((5, 1, 12), 1),
        ((12,), 0), ((9, 7), -1)]  # fmt: skip


@pytest.mark.usefixtures("tiny_slices")
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
@pytest.mark.parametrize(("shape", "dim"), CUTS)
@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
def test_sliced_index_reductions_are_torchs(name, shape, dim, layout, keepdim):
    # Few distinct values: ties everywhere, across slices; the first index must win.
    v, t = make_pair(shape, "float32", layout, seed=3, low=0, high=3)
    v, t = v.round(), t.round()
    assert_same(getattr(v, name)(dim, keepdim), getattr(t, name)(dim, keepdim))


@pytest.mark.usefixtures("tiny_slices")
@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
def test_sliced_index_reductions_find_the_first_nan(name):
    v, t = make_pair((30, 4), "float64", "contiguous", seed=4)
    for row, col in ((25, 0), (7, 1), (26, 1), (29, 2), (3, 3), (4, 3)):
        v[row, col], t[row, col] = math.nan, math.nan
    assert_same(getattr(v, name)(0), getattr(t, name)(0))
    assert_same(getattr(v, name)(1, True), getattr(t, name)(1, True))


@pytest.mark.usefixtures("tiny_slices")
@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "float16"])
def test_sliced_index_reductions_of_other_dtypes_are_torchs(dtype):
    v, t = make_pair((23, 3), dtype, "transposed", seed=5, low=0, high=4)
    for name in ("max", "min", "argmax", "argmin"):
        if dtype == "bool" and name.startswith("arg"):
            continue  # (refused by both: tested with the operators)
        assert_same(getattr(v, name)(0), getattr(t, name)(0))


def test_sliced_max_out_is_torchs(tiny_slices):
    v, t = make_pair((17, 3), "float32", "contiguous", seed=6)
    got = vg.max(v, 0, out=(vg.empty(0), vg.empty(0, dtype=vg.long)))
    expected = torch.max(t, 0, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
    assert_same(tuple(got), tuple(expected))
    assert np.array_equal(v.argmax(0).numpy(), t.argmax(0).numpy())

"""Reductions of huge inputs: PyTorch's answer at once where it has one, and Ctrl-C
otherwise.

``expand`` makes six values look like 6 * 10**12. PyTorch's full ``max``, ``min`` and
``aminmax`` read ``self.contiguous()``, ``any``/``all`` read a ``bool`` copy and
``nanmean`` an ``isnan`` mask: those copies cannot be allocated, and both libraries
fail at once. ``sum``, ``mean``, ``prod``, ``amax``… read the expanded input in place
and run for hours in both; vizgrad's run in slices (``reduction_machinery.interruptible``),
so a KeyboardInterrupt stops them. Sliced, a reduction must give what one call gives:
the slice size is made tiny here to check every way of cutting.
"""

from __future__ import annotations

import math
import signal
import time

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error, make_pair

import vizgrad as vg
from vizgrad.ops import reduction_machinery

# (A float32 arange(6) seen as 10**12 batches of a 2x3 matrix.)
HUGE = "lib.arange(6.).reshape(2, 3).expand(10**12, 2, 3)"

ANSWERED_AT_ONCE = ["max()", "min()", "aminmax()", "any()", "all()", "nanmean()"]


@pytest.mark.parametrize("call", ANSWERED_AT_ONCE)
def test_what_torch_copies_first_fails_at_once_as_in_torch(call):
    start = time.perf_counter()
    vg_error, _ = assert_same_error(
        lambda: eval(f"{HUGE}.{call}", {"lib": vg}), lambda: eval(f"{HUGE}.{call}", {"lib": torch})
    )
    assert "you tried to allocate" in str(vg_error)
    assert time.perf_counter() - start < 5


LONG_RUNNING = ["sum()", "mean()", "prod()", "nansum()", "amax()", "amin(1)", "sum(0)",
                "aminmax(dim=0)", "bool_any"]  # fmt: skip


@pytest.mark.parametrize("call", LONG_RUNNING)
def test_a_long_reduction_stops_at_ctrl_c(call):
    if call == "bool_any":  # no copy for a bool input: torch loops, and so do we
        huge = vg.tensor([False, False]).expand(10**12, 2)
        run = huge.any
    else:
        huge = eval(HUGE, {"lib": vg})
        run = lambda: eval(f"huge.{call}", {"huge": huge})  # noqa: E731

    def interrupt(*_):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    start = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(KeyboardInterrupt):
            run()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.perf_counter() - start < 5


# (shape, dims): a reduced dim the largest, a kept dim the largest, every dim, 0-dim.
CUTS = [((40, 3, 2), (0,)), ((3, 40, 2), (0, 2)), ((2, 3, 40), None), ((7, 9), (1,)),
        ((5, 1, 12), (1,)), ((), None)]  # fmt: skip


@pytest.fixture
def tiny_slices(monkeypatch):
    monkeypatch.setattr(reduction_machinery, "CHUNK_ELEMENTS", 5)


@pytest.mark.usefixtures("tiny_slices")
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
@pytest.mark.parametrize(("shape", "dims"), CUTS)
@pytest.mark.parametrize("name", ["sum", "nansum", "prod", "mean", "amax", "amin", "any", "all"])
def test_sliced_reductions_are_torchs(name, shape, dims, layout, keepdim):
    dtype = "bool" if name in ("any", "all") else "float64"
    v, t = make_pair(shape, dtype, layout, seed=1, low=0.5, high=1.5)
    if name == "nansum" and v.numel() > 2:
        v, t = v.clone(), t.clone()
        where = (0,) * (v.dim() - 1) + (1,)
        v[where], t[where] = math.nan, math.nan

    def reduce(x):
        if dims is None:
            return getattr(x, name)()
        # (prod takes one dim: the first of the list)
        return getattr(x, name)(dims[0] if name == "prod" else dims, keepdim=keepdim)

    assert_same(reduce(v), reduce(t))


@pytest.mark.usefixtures("tiny_slices")
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_sliced_extremes_and_nan_are_torchs(layout):
    v, t = make_pair((6, 8), "float32", layout, seed=2)
    for call in ("max()", "min()", "aminmax()", "aminmax(dim=1)", "amax((0, 1))"):
        assert_same(eval(f"v.{call}"), eval(f"t.{call}"))
    v, t = v.clone(), t.clone()
    v[4, 5], t[4, 5] = math.nan, math.nan  # a nan in a late slice wins, as in one call
    for call in ("max()", "amax(0)", "sum()", "nansum(1)"):
        assert_same(eval(f"v.{call}"), eval(f"t.{call}"))


def test_a_nan_a_slice_of_nansum_made_is_kept():
    # inf and -inf in one slice sum to nan there; the partial sums are added, not nansummed.
    values = np.array([np.inf, -np.inf] + [1.0] * 10)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reduction_machinery, "CHUNK_ELEMENTS", 2)
        assert math.isnan(vg.from_numpy(values).nansum().item())
    assert math.isnan(torch.from_numpy(values).nansum().item())

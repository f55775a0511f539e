"""Reductions of huge inputs: PyTorch's answer at once where it has one, and Ctrl-C
otherwise.

``expand`` makes six values look like 6 * 10**12. PyTorch's full ``max``, ``min`` and
``aminmax`` read ``self.contiguous()``, ``any``/``all`` read a ``bool`` copy,
``nanmean`` an ``isnan`` mask and ``count_nonzero(dim)`` a ``self != 0`` mask; a
reduction over the small dims has an output of 10**12 elements; a scan's output is as
big as its input: none of those can be allocated, and both libraries fail at once.
``sum``, ``mean``, ``prod``, ``amax``, ``var``, ``norm``, ``logsumexp``'s ``amax``…
read the expanded input in place and run for hours in both; vizgrad's run in slices
(``reduction_machinery.interruptible``), so a KeyboardInterrupt stops them. Sliced, a
reduction must give what one call gives: the slice size is made tiny here to check
every way of cutting.
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

ANSWERED_AT_ONCE = ["max()", "min()", "aminmax()", "any()", "all()", "nanmean()",
                    # an output of 10**12 rows, allocated before any work
                    "sum(1)", "amin(1)", "mean((1, 2))", "prod(2)", "var(1)", "std((1, 2))",
                    "logsumexp(2)", "norm(p='nuc', dim=(1, 2))",
                    # a mask as big as the input
                    "count_nonzero(0)", "count_nonzero((0, 1))",
                    # a scan's output is as big as its input
                    "cumsum(0)", "cumsum(2)", "cumprod(1)",
                    # values and indices kept along a huge dim
                    "max(1)", "min(2)", "max(-1, keepdim=True)", "argmax(1)", "argmin(2)",
                    "argmax()", "argmin(keepdim=True)"]  # fmt: skip


@pytest.mark.parametrize("call", ANSWERED_AT_ONCE)
def test_what_torch_copies_first_fails_at_once_as_in_torch(call):
    start = time.perf_counter()
    vg_error, _ = assert_same_error(
        lambda: eval(f"{HUGE}.{call}", {"lib": vg}), lambda: eval(f"{HUGE}.{call}", {"lib": torch})
    )
    assert "you tried to allocate" in str(vg_error)
    assert time.perf_counter() - start < 5


LONG_RUNNING = ["sum()", "mean()", "prod()", "nansum()", "amax()", "amin(0)", "sum(0)",
                "aminmax(dim=0)", "bool_any", "bool_count_nonzero",
                "var()", "var(0)", "std(correction=0)", "std(0, keepdim=True)",
                "lib.var_mean(huge)", "lib.std_mean(huge, 0)", "complex_var",
                "norm()", "norm(dim=0)", "norm(p=1)", "norm(p=float('inf'))",
                "norm(p=-float('inf'))", "norm(p=0)", "norm(p=0.5)", "norm(p=3, dim=(0, 1))",
                "logsumexp(0)", "logsumexp((0, 1, 2))", "count_nonzero()"]  # fmt: skip


@pytest.mark.parametrize("call", LONG_RUNNING)
def test_a_long_reduction_stops_at_ctrl_c(call):
    if call.startswith("bool_"):  # no copy for a bool input: torch loops, and so do we
        huge = vg.tensor([False, False]).expand(10**12, 2)
        run = getattr(huge, call.removeprefix("bool_"))
    elif call == "complex_var":
        run = vg.arange(6.0).to(vg.complex64).reshape(2, 3).expand(10**12, 2, 3).var
    else:
        huge = eval(HUGE, {"lib": vg})
        expression = call if "(huge" in call else f"huge.{call}"
        run = lambda: eval(expression, {"huge": huge, "lib": vg})  # noqa: E731
    _assert_stops_at_ctrl_c(run)


@pytest.mark.parametrize("call", ["cumsum_(0)", "cumprod_(1)"])
def test_a_scan_in_place_of_an_expanded_tensor_is_refused_as_in_torch(call):
    # One element at many places: PyTorch refuses before allocating or computing anything.
    for tensor in (HUGE, "lib.ones(1, 3).expand(4, 3)"):
        expression = f"{tensor}.{call}"
        assert_same_error(lambda e=expression: eval(e, {"lib": vg}),
                          lambda e=expression: eval(e, {"lib": torch}))  # fmt: skip


def test_a_long_scan_stops_at_ctrl_c():
    # 5 * 10**7 running sums take a while (in both libraries); slice by slice, Ctrl-C
    # stops them. (The output, 200 MB, can be allocated.)
    _assert_stops_at_ctrl_c(vg.ones(1).expand(5 * 10**7).cumsum, 0, after=0.02)


def _assert_stops_at_ctrl_c(run, *args, after=0.3):

    def interrupt(*_):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    start = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, after)
        with pytest.raises(KeyboardInterrupt):
            run(*args)
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


# --- the reductions whose partial results are not of the result's kind --------------------

INF = math.inf

# How each is called on ``x`` over ``dims`` (``None``: every dim), in either library.
SLICED = {
    "var": lambda lib, x, dims, keepdim: x.var(dims, keepdim=keepdim),
    "var_correction_0": lambda lib, x, dims, keepdim: x.var(dims, correction=0, keepdim=keepdim),
    "std_correction_2.5": lambda lib, x, dims, keepdim: x.std(dims, correction=2.5,
                                                              keepdim=keepdim),
    "var_mean": lambda lib, x, dims, keepdim: lib.var_mean(x, dims, keepdim=keepdim),
    "std_mean": lambda lib, x, dims, keepdim: lib.std_mean(x, dims, keepdim=keepdim),
    **{f"norm_{p}": lambda lib, x, dims, keepdim, p=p: x.norm(p, dims, keepdim)
       for p in (2, 1, INF, -INF, 0, 0.5, 3)},
    "logsumexp": lambda lib, x, dims, keepdim: x.logsumexp(
        tuple(range(x.dim())) if dims is None else dims, keepdim
    ),
    "count_nonzero": lambda lib, x, dims, keepdim: x.count_nonzero(dims),
    # a scan runs along one dim: the last one named, or the last one
    "cumsum": lambda lib, x, dims, keepdim: x.cumsum(dims[-1] if dims else -1),
    "cumprod": lambda lib, x, dims, keepdim: x.cumprod(dims[-1] if dims else -1),
}  # fmt: skip


@pytest.mark.usefixtures("tiny_slices")
@pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
@pytest.mark.parametrize(("shape", "dims"), CUTS)
@pytest.mark.parametrize("name", SLICED)
def test_sliced_spreads_norms_and_scans_are_torchs(name, shape, dims, layout, keepdim, dtype):
    v, t = make_pair(shape, dtype, layout, seed=3, low=0.5, high=1.5)
    assert_same(SLICED[name](vg, v, dims, keepdim), SLICED[name](torch, t, dims, keepdim))


@pytest.mark.usefixtures("tiny_slices")
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_sliced_spreads_norms_and_scans_of_nan_inf_and_zeros_are_torchs(dtype):
    v, t = make_pair((9, 6), dtype, "transposed", seed=4)
    v, t = v.clone(), t.clone()
    for where, value in (((1, 2), math.nan), ((5, 3), math.inf), ((7, 0), -math.inf),
                         ((2, 4), 0.0), ((8, 5), 0.0)):  # fmt: skip
        v[where], t[where] = value, value
    for name, call in SLICED.items():
        if name in ("logsumexp", "cumprod") and dtype == "complex64":
            # (a complex logsumexp is not vizgrad's yet; a complex product with an inf is
            # NumPy's, not C++'s, sliced or not)
            continue
        for dims in (None, (0,), (1,)):
            vg_result, torch_result = call(vg, v, dims, False), call(torch, t, dims, False)
            if name.endswith("_mean"):
                # Only the spread: PyTorch's var_mean takes its mean from Welford's running
                # update, which turns an infinite mean into nan when any element follows
                # the inf, in whichever order its threads read; vizgrad's mean is ``mean``'s.
                vg_result, torch_result = vg_result[0], torch_result[0]
            assert_same(vg_result, torch_result)


@pytest.mark.usefixtures("tiny_slices")
def test_a_sliced_variance_keeps_its_digits():
    # A large mean beside a small spread: a sum of squares minus n mean² would lose every
    # digit in float32; merging slices' means and squared deviations keeps them.
    values = (1e4 + np.random.default_rng(5).standard_normal((300, 8))).astype(np.float32)
    v, t = vg.from_numpy(values), torch.from_numpy(values)
    for dims in (None, 0, 1):
        assert_same(v.var(dims), t.var(dims), rtol=1e-4, atol=0)


@pytest.mark.parametrize("chunk", [5, reduction_machinery.CHUNK_ELEMENTS])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_a_float32_scan_runs_on_in_double_as_in_torch(monkeypatch, name, chunk):
    # PyTorch's CPU scan keeps its running value in double: 10**8 + 1 is 10**8 in float32,
    # but ten more ones still count.
    monkeypatch.setattr(reduction_machinery, "CHUNK_ELEMENTS", chunk)
    values = [1e8] + [1.0] * 10 if name == "cumsum" else [1e-30] * 3 + [1e30] * 2
    assert_same(getattr(vg.tensor(values), name)(0), getattr(torch.tensor(values), name)(0))
    x, y = vg.tensor(values), torch.tensor(values)
    getattr(x, f"{name}_")(0), getattr(y, f"{name}_")(0)
    assert_same(x, y)


def test_a_long_float32_scan_carries_its_running_sum_across_slices():
    # 2**24 + 10 ones: more than one slice; a float32 running sum would stop at 2**24.
    v = vg.ones(1).expand(2**24 + 10).cumsum(0)
    assert v[-1].item() == torch.ones(1).expand(2**24 + 10).cumsum(0)[-1].item() == 2**24 + 10

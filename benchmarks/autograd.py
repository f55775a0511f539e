"""Autograd benchmarks (issue "Autograd"): a long chain's forward and backward."""

from __future__ import annotations

import numpy as np

import vizgrad as vg

from .harness import Result, best_time, torch

STEPS = 300  # tanh / mul / add steps


def _chain(lib, x, w):
    y = x
    for _ in range(STEPS // 3):
        y = lib.tanh(y)
        y = y * w
        y = y + x
    return y.sum()


def _leaves(lib):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 8)).astype(np.float32) * 0.1
    w = rng.standard_normal((8, 8)).astype(np.float32) * 0.1
    return (lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True))


def chain_backward():
    """Forward + backward through 300 steps on 8x8: at most 10x PyTorch's time."""
    vx, vw = _leaves(vg)

    def run_vizgrad():
        _chain(vg, vx, vw).backward()

    v = best_time(run_vizgrad, repeat=3)
    t = None
    if torch is not None:
        tx, tw = _leaves(torch)
        t = best_time(lambda: _chain(torch, tx, tw).backward(), repeat=3)
    passed = t is None or v <= 10 * t
    target = "<= 10x torch" if t is not None else "<= 10x torch (torch not installed)"
    return Result("forward+backward, 300-step chain, 8x8", v, None, t, target, passed)


def recording_overhead():
    """The cost autograd's recording adds to the same forward chain."""
    vx, vw = _leaves(vg)
    with vg.no_grad():
        plain = best_time(lambda: _chain(vg, vx, vw), repeat=3)
    recorded = best_time(lambda: _chain(vg, vx, vw), repeat=3)
    t_ratio = None
    if torch is not None:
        tx, tw = _leaves(torch)
        with torch.no_grad():
            t_plain = best_time(lambda: _chain(torch, tx, tw), repeat=3)
        t_recorded = best_time(lambda: _chain(torch, tx, tw), repeat=3)
        t_ratio = t_recorded / t_plain
    ratio = recorded / plain
    note = f"recording costs {ratio:.2f}x the no_grad forward"
    if t_ratio is not None:
        note += f" (torch: {t_ratio:.2f}x)"
    return Result("forward with autograd recording, 300 steps", recorded, None, None, note, True)


CASES = [chain_backward, recording_overhead]

"""Convolution benchmark (issue "The training stack"): Conv2d forward + backward.

A 16x3x16x16 batch through an 8-channel 3x3 convolution (padding 1) and back, against
PyTorch on one thread: the target is at most 4x PyTorch's time.
"""

from __future__ import annotations

import numpy as np

import vizgrad as vg

from .harness import Result, best_time, torch


def _leaves(lib):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 3, 16, 16)).astype(np.float32)
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.2
    b = rng.standard_normal(8).astype(np.float32)
    return tuple(lib.tensor(a, requires_grad=True) for a in (x, w, b))


def conv2d_forward_backward():
    """Conv2d(3, 8, 3, padding=1) forward + backward on 16x3x16x16: at most 4x PyTorch."""
    vx, vw, vb = _leaves(vg)
    v = best_time(lambda: vg.nn.functional.conv2d(vx, vw, vb, padding=1).sum().backward())
    t = None
    if torch is not None:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            tx, tw, tb = _leaves(torch)
            t = best_time(
                lambda: torch.nn.functional.conv2d(tx, tw, tb, padding=1).sum().backward()
            )
        finally:
            torch.set_num_threads(threads)
    passed = t is None or v <= 4 * t
    target = "<= 4x torch (1 thread)" if t is not None else "<= 4x torch (torch not installed)"
    return Result("Conv2d fwd+bwd, 16x3x16x16 -> 8ch 3x3", v, None, t, target, passed)


CASES = [conv2d_forward_backward]

"""Large-op benchmarks (issue "The engine never answers wrong"): contiguous and
non-contiguous unary, binary and reduction ops on 1M+ elements within 1.2x of NumPy
doing the same computation into the same output layout, and no slower than PyTorch on
one thread; a 4x4 add in at most 5 us.
"""

from __future__ import annotations

import numpy as np

import vizgrad as vg

from .harness import absolute_case, numpy_and_torch_case, torch

MAX_RATIO = 1.2


def _operands(shape, seed):
    data = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return vg.from_numpy(data.copy()), data, (torch.from_numpy(data.copy()) if torch else None)


def exp_contiguous():
    """The issue's example: ``exp`` of a contiguous 1000 x 2000 float32 tensor."""
    v, n, t = _operands((1000, 2000), 0)
    out = np.empty_like(n)
    return numpy_and_torch_case(
        "exp, 2M contiguous float32", lambda: vg.exp(v), lambda: np.exp(n, out=out),
        (lambda: torch.exp(t)) if torch else None, MAX_RATIO,
    )  # fmt: skip


def add_contiguous():
    v1, n1, t1 = _operands((1024, 1024), 1)
    v2, n2, t2 = _operands((1024, 1024), 2)
    return numpy_and_torch_case(
        "add, 1M contiguous float32", lambda: vg.add(v1, v2), lambda: np.add(n1, n2),
        (lambda: torch.add(t1, t2)) if torch else None, MAX_RATIO,
    )  # fmt: skip


def fused_expression_transposed():
    """The issue's example: ``(a * 2 + b).sum()`` with ``a`` transposed. NumPy computes
    the same: each intermediate laid out as PyTorch lays it out (like ``a``)."""
    v1, n1, t1 = _operands((1024, 1024), 3)
    v2, n2, t2 = _operands((1024, 1024), 4)
    a, na = v1.t(), n1.T
    ta = t1.t() if torch else None
    return numpy_and_torch_case(
        "(a * 2 + b).sum(), a transposed, 1M float32",
        lambda: (a * 2 + v2).sum(), lambda: (na * np.float32(2) + n2).sum(),
        (lambda: (ta * 2 + t2).sum()) if torch else None, MAX_RATIO,
    )  # fmt: skip


def sum_dim0_contiguous():
    v, n, t = _operands((1024, 1024), 5)
    return numpy_and_torch_case(
        "sum(0), 1M contiguous float32", lambda: v.sum(0), lambda: n.sum(0),
        (lambda: t.sum(0)) if torch else None, MAX_RATIO,
    )  # fmt: skip


def mul_transposed():
    v1, n1, t1 = _operands((1024, 1024), 6)
    v2, n2, t2 = _operands((1024, 1024), 7)
    a, b, na, nb = v1.t(), v2.t(), n1.T, n2.T
    ta, tb = (t1.t(), t2.t()) if torch else (None, None)
    return numpy_and_torch_case(
        "mul, 1M transposed float32", lambda: a * b, lambda: np.multiply(na, nb),
        (lambda: ta * tb) if torch else None, MAX_RATIO,
    )  # fmt: skip


def small_add():
    a, b = vg.ones(4, 4), vg.ones(4, 4)
    na, nb = np.ones((4, 4), np.float32), np.ones((4, 4), np.float32)
    ta, tb = (torch.ones(4, 4), torch.ones(4, 4)) if torch else (None, None)
    return absolute_case(
        "add 4x4 (issue target)", lambda: vg.add(a, b), lambda: np.add(na, nb),
        (lambda: torch.add(ta, tb)) if torch else None, 5e-6,
    )  # fmt: skip


CASES = [
    exp_contiguous,
    add_contiguous,
    fused_expression_transposed,
    sum_dim0_contiguous,
    mul_transposed,
    small_add,
]

"""Engine benchmarks (issue "Engine core"): large strided kernels and per-call overhead."""

from __future__ import annotations

import numpy as np

import vizgrad as vg

from .harness import absolute_case, best_time, ratio_case, torch

N = 1024  # 1024 x 1024 = 1M elements


def _pair(shape, seed):
    data = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return vg.from_numpy(data.copy()), data, (torch.from_numpy(data.copy()) if torch else None)


def elementwise_non_contiguous():
    # Transposed operands: NumPy and vizgrad both read the strided memory in place.
    v1, n1, t1 = _pair((N, N), 0)
    v2, n2, t2 = _pair((N, N), 1)
    a, b = v1.t(), v2.t()
    na, nb = n1.T, n2.T
    ta, tb = (t1.t(), t2.t()) if torch else (None, None)
    return ratio_case(
        "mul, 1M transposed float32 elements",
        lambda: vg.mul(a, b),
        lambda: np.multiply(na, nb),
        (lambda: torch.mul(ta, tb)) if torch else None,
        1.3,
    )


def unary_stepped():
    v, n, t = _pair((N, 2 * N), 2)
    a, na = v[:, ::2], n[:, ::2]
    ta = t[:, ::2] if torch else None
    return ratio_case(
        "exp, 1M stepped ([:, ::2]) float32 elements",
        lambda: vg.exp(a),
        lambda: np.exp(na),
        (lambda: torch.exp(ta)) if torch else None,
        1.3,
    )


def reduction_non_contiguous():
    v, n, t = _pair((N, N), 3)
    a, na = v.t(), n.T
    ta = t.t() if torch else None
    return ratio_case(
        "sum(dim=1), 1M transposed float32 elements",
        lambda: vg.sum(a, dim=1),
        lambda: np.sum(na, axis=1),
        (lambda: torch.sum(ta, dim=1)) if torch else None,
        1.3,
    )


def full_reduction_stepped():
    v, n, t = _pair((N, 2 * N), 4)
    a, na = v[:, ::2], n[:, ::2]
    ta = t[:, ::2] if torch else None
    return ratio_case(
        "mean(), 1M stepped float32 elements",
        lambda: vg.mean(a),
        lambda: np.mean(na),
        (lambda: torch.mean(ta)) if torch else None,
        1.3,
    )


def matmul_512():
    v1, n1, t1 = _pair((512, 512), 5)
    v2, n2, t2 = _pair((512, 512), 6)
    return ratio_case(
        "matmul 512x512 float32",
        lambda: vg.matmul(v1, v2),
        lambda: np.matmul(n1, n2),
        (lambda: torch.matmul(t1, t2)) if torch else None,
        1.1,
    )


def _small_add_fns():
    a, b = vg.ones(4, 4), vg.ones(4, 4)
    na, nb = np.ones((4, 4), np.float32), np.ones((4, 4), np.float32)
    ta, tb = (torch.ones(4, 4), torch.ones(4, 4)) if torch else (None, None)
    return (
        (lambda: vg.add(a, b)),
        (lambda: np.add(na, nb)),
        ((lambda: torch.add(ta, tb)) if torch else None),
    )


def small_add_unlistened():
    v, n, t = _small_add_fns()
    return absolute_case("add 4x4, nobody listening", v, n, t, 8e-6)


def small_add_recorded():
    """With a recorder attached, at most 2x the time with nobody listening."""
    v, n, t = _small_add_fns()
    unlistened = best_time(v)
    with vg.events.Recorder(max_events=10_000):
        result = absolute_case("add 4x4, a recorder attached", v, n, t, 2 * unlistened)
    result.target = f"<= 2x unlistened ({2 * unlistened * 1e6:.1f} us)"
    return result


CASES = [
    elementwise_non_contiguous,
    unary_stepped,
    reduction_non_contiguous,
    full_reduction_stepped,
    matmul_512,
    small_add_unlistened,
    small_add_recorded,
]

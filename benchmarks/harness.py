"""Timing and reporting shared by the benchmark cases."""

from __future__ import annotations

import timeit
from dataclasses import dataclass

try:
    import torch
except ImportError:  # the oracle extra is optional for benchmarks
    torch = None
else:
    # The issues compare with PyTorch on one thread, as vizgrad (NumPy's elementwise
    # loops) runs on one. The benchmark process is ours, so setting it here is safe.
    torch.set_num_threads(1)


def best_time(fn, *, repeat: int = 5, min_seconds: float = 0.2) -> float:
    """Seconds per call: the best of ``repeat`` runs of enough calls to fill ``min_seconds``."""
    fn()  # warm up caches and lazy imports
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(1, int(number * min_seconds / 0.2))
    return min(timer.repeat(repeat=repeat, number=number)) / number


@dataclass
class Result:
    name: str
    vizgrad: float
    numpy: float | None
    torch: float | None
    target: str  # e.g. "<= 1.3x numpy" or "<= 8 us"
    passed: bool

    def row(self) -> str:
        def fmt(seconds):
            if seconds is None:
                return "-"
            return f"{seconds * 1e6:10.1f} us" if seconds < 1e-2 else f"{seconds * 1e3:10.2f} ms"

        ratio_np = f"{self.vizgrad / self.numpy:6.2f}x" if self.numpy else "     -"
        ratio_t = f"{self.vizgrad / self.torch:6.2f}x" if self.torch else "     -"
        verdict = "ok " if self.passed else "MISS"
        return (f"{self.name:<44} {fmt(self.vizgrad)} {fmt(self.numpy)} {fmt(self.torch)}"
                f"  {ratio_np} {ratio_t}  {verdict} {self.target}")  # fmt: skip


HEADER = (f"{'case':<44} {'vizgrad':>13} {'numpy':>13} {'torch':>13}  {'vs np':>7} "
          f"{'vs torch':>7}  target")  # fmt: skip


def ratio_case(name, vizgrad_fn, numpy_fn, torch_fn, max_ratio: float) -> Result:
    """vizgrad must stay within ``max_ratio`` of NumPy doing the same work."""
    v = best_time(vizgrad_fn)
    n = best_time(numpy_fn)
    t = best_time(torch_fn) if torch_fn is not None and torch is not None else None
    return Result(name, v, n, t, f"<= {max_ratio}x numpy", v <= max_ratio * n)


def absolute_case(name, vizgrad_fn, numpy_fn, torch_fn, max_seconds: float) -> Result:
    """vizgrad's call must take at most ``max_seconds``."""
    v = best_time(vizgrad_fn)
    n = best_time(numpy_fn) if numpy_fn is not None else None
    t = best_time(torch_fn) if torch_fn is not None and torch is not None else None
    return Result(name, v, n, t, f"<= {max_seconds * 1e6:g} us", v <= max_seconds)


def numpy_and_torch_case(name, vizgrad_fn, numpy_fn, torch_fn, max_ratio: float) -> Result:
    """Within ``max_ratio`` of NumPy doing the same work, and no slower than PyTorch."""
    v = best_time(vizgrad_fn)
    n = best_time(numpy_fn)
    t = best_time(torch_fn) if torch_fn is not None and torch is not None else None
    passed = v <= max_ratio * n and (t is None or v <= t)
    return Result(name, v, n, t, f"<= {max_ratio}x numpy, <= torch", passed)

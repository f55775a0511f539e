"""``torch.cuda``, as a CPU-only PyTorch build has it: no CUDA device, so
``torch.cuda.is_available()`` is False and code that checks it runs on the CPU."""

from __future__ import annotations

__all__ = ["device_count", "is_available"]


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0

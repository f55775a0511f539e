"""``torch.accelerator``: which accelerator (GPU) the program may use. vizgrad computes on
the CPU only, so there is none, and code written for PyTorch's tutorials
(``device = torch.accelerator.current_accelerator().type if
torch.accelerator.is_available() else "cpu"``) picks the CPU, as PyTorch does on a
machine without one."""

from __future__ import annotations

__all__ = ["current_accelerator", "device_count", "is_available"]


def is_available() -> bool:
    """No accelerator: vizgrad has the CPU backend only."""
    return False


def current_accelerator(check_available: bool = False):
    """``None``: there is no accelerator."""
    return None


def device_count() -> int:
    return 0

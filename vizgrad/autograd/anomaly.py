"""Anomaly detection (``torch.autograd.detect_anomaly``).

With it on, every node remembers the Python stack of the forward call that created
it; when a backward formula fails, the error names that forward operation and shows
where it ran, so a student can find the line that broke the graph.
"""

from __future__ import annotations

import traceback

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "anomaly_state"]


class _AnomalyState:
    __slots__ = ("enabled", "check_nan")

    def __init__(self):
        self.enabled = False
        self.check_nan = True


anomaly_state = _AnomalyState()


def is_anomaly_enabled() -> bool:
    return anomaly_state.enabled


def capture_forward_trace() -> str:
    # Drop the frames inside vizgrad: the student's own line is what matters.
    frames = [
        f for f in traceback.extract_stack() if "/vizgrad/" not in f.filename.replace("\\", "/")
    ]
    return "".join(traceback.format_list(frames))


class detect_anomaly:  # noqa: N801 - the PyTorch name
    """Context manager: record forward stacks and check backward results for NaN."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self) -> None:
        self.prev = (anomaly_state.enabled, anomaly_state.check_nan)
        anomaly_state.enabled, anomaly_state.check_nan = True, self.check_nan

    def __exit__(self, *exc) -> None:
        anomaly_state.enabled, anomaly_state.check_nan = self.prev


class set_detect_anomaly(detect_anomaly):  # noqa: N801 - the PyTorch name
    """``set_detect_anomaly(True)`` turns anomaly detection on now (and back off on exit)."""

    def __init__(self, mode: bool, check_nan: bool = True):
        super().__init__(check_nan)
        self.prev = (anomaly_state.enabled, anomaly_state.check_nan)
        anomaly_state.enabled, anomaly_state.check_nan = bool(mode), check_nan

    def __enter__(self) -> None:
        pass

"""Padding modules (``torch/nn/modules/padding.py``): constant, zero, reflection,
replication and circular padding of the last 1 or 2 dims, through ``F.pad``.

``padding`` is one int for every side or a tuple ``(left, right)`` /
``(left, right, top, bottom)``; it is stored as that tuple.
"""

from __future__ import annotations

from .. import functional as F
from .conv import _pair, _quadruple
from .module import Module

__all__ = [
    "ConstantPad1d",
    "ConstantPad2d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "CircularPad1d",
    "CircularPad2d",
]


class _ConstantPadNd(Module):
    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """``torch.nn.ConstantPad1d``: pad the last dim with a value."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _pair(padding)


class ConstantPad2d(_ConstantPadNd):
    """``torch.nn.ConstantPad2d``: pad the last two dims with a value."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _quadruple(padding)


class ZeroPad1d(ConstantPad1d):
    """``torch.nn.ZeroPad1d``: pad the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """``torch.nn.ZeroPad2d``: pad the last two dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ModePadNd(Module):
    """Padding by a mode of ``F.pad`` (``_ReflectionPadNd``, ``_ReplicationPadNd``…)."""

    mode = ""

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    """``torch.nn.ReflectionPad1d``: mirror the last dim at its edges."""

    mode = "reflect"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)


class ReflectionPad2d(_ModePadNd):
    """``torch.nn.ReflectionPad2d``: mirror the last two dims at their edges."""

    mode = "reflect"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class ReplicationPad1d(_ModePadNd):
    """``torch.nn.ReplicationPad1d``: repeat the edge values of the last dim."""

    mode = "replicate"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)


class ReplicationPad2d(_ModePadNd):
    """``torch.nn.ReplicationPad2d``: repeat the edge values of the last two dims."""

    mode = "replicate"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class CircularPad1d(_ModePadNd):
    """``torch.nn.CircularPad1d``: wrap the last dim around."""

    mode = "circular"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)


class CircularPad2d(_ModePadNd):
    """``torch.nn.CircularPad2d``: wrap the last two dims around."""

    mode = "circular"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)

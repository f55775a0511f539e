"""Scans: ``cumsum``, ``cumprod`` (``ReduceOps.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

"""Comparisons: ``eq``, ``lt``, ``isclose``… always returning bool tensors."""

from __future__ import annotations

__all__: list[str] = []

"""Copies and conversions: ``copy_``, ``clone``, ``contiguous``, ``to`` (``Copy.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

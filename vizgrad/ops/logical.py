"""Logical and bitwise operators, and ``where``."""

from __future__ import annotations

__all__: list[str] = []

"""Unary math: ``abs``, ``exp``, ``sin``, ``floor``, ``clamp``… (``UnaryOps.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

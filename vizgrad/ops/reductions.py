"""Reductions: ``sum``, ``mean``, ``max``, ``var``… over ``dim`` with ``keepdim`` (``ReduceOps.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

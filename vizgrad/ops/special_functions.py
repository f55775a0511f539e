"""Special mathematical functions: gamma, error and Bessel families (``UnaryOps.cpp``, ``Math.h``)."""

from __future__ import annotations

__all__: list[str] = []

"""Ranges and matrices: ``arange``, ``linspace``, ``eye``, ``tril``/``triu`` (``RangeFactories.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

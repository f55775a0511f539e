"""Counting values: ``histc``, ``histogram``, ``bincount`` (``SummaryOps.cpp``, ``Histogram.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

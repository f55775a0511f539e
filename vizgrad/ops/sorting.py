"""Sorting and selection: ``sort``, ``argsort``, ``topk``, ``unique`` (``Sorting.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

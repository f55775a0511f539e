"""Indexing: advanced indexing, ``__setitem__``, ``gather``/``scatter``, masks (``TensorAdvancedIndexing.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

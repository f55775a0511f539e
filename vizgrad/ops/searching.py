"""Searching sorted values: ``searchsorted``, ``bucketize``, ``isin`` (``Bucketization.cpp``, ``TensorCompare.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

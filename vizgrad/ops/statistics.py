"""Statistics over a dim: ``diff``, ``quantile``, ``cov``, ``corrcoef``, ``trapezoid`` (``ReduceOps.cpp``, ``Correlation.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

"""Factorizations and what they solve: ``det``, ``slogdet``, ``inv``, ``solve``, ``cholesky``, ``lu_factor``… (``BatchLinearAlgebra.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

"""Linear algebra: ``dot``, ``mm``, ``matmul``, ``einsum``… (``LinearAlgebra.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

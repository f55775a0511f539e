"""Matrix products and matrix functions built on them: ``addmv``, ``addr``, ``baddbmm``, ``trace``, ``cross``, ``matrix_power``… (``LinearAlgebra.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

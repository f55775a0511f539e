"""Complex numbers as views: ``view_as_real``, ``view_as_complex``, ``real``, ``imag``, the conjugate bit (``TensorConversions.cpp``, ``UnaryOps.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

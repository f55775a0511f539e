"""Matrix decompositions: ``qr``, ``svd``, ``eig``, ``eigh`` and what they give (``pinv``, ``matrix_rank``, ``lstsq``) (``BatchLinearAlgebra.cpp``)."""

from __future__ import annotations

__all__: list[str] = []

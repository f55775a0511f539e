"""Random numbers: ``manual_seed``, ``Generator``, ``rand``, ``randn``… reproducible by seed."""

from __future__ import annotations

__all__: list[str] = []

"""``softmax`` and ``log_softmax``: normalising along one dimension."""

from __future__ import annotations

__all__: list[str] = []

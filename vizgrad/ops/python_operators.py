"""Python's operators on tensors: ``a + b``, ``2 - a``, ``a @ b``, ``a += 1``…"""

from __future__ import annotations

__all__: list[str] = []

"""The ``*_scatter`` operators: a copy of ``self`` with one view of it replaced (``select_scatter``, ``slice_scatter``, ``diagonal_scatter``, ``as_strided_scatter``)."""

from __future__ import annotations

__all__: list[str] = []

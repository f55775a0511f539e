"""Padding: ``pad`` (constant, reflect, replicate, circular)."""

__all__: list[str] = []

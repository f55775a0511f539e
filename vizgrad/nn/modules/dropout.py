"""Dropout modules."""

__all__: list[str] = []

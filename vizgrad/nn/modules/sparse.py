"""Embedding tables."""

__all__: list[str] = []

"""Padding modules."""

__all__: list[str] = []

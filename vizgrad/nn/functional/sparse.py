"""Lookup tables: ``embedding`` and ``one_hot``."""

__all__: list[str] = []

"""Upsampling modules."""

__all__: list[str] = []

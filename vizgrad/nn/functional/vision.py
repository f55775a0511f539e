"""Resampling images: ``interpolate`` (nearest, bilinear)."""

__all__: list[str] = []

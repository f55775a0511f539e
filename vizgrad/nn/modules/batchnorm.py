"""Batch normalisation with running statistics: BatchNorm1d, BatchNorm2d."""

__all__: list[str] = []

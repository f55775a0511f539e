"""Dropout: zeroing elements at random during training, scaling the rest by ``1 / (1 - p)``."""

__all__: list[str] = []

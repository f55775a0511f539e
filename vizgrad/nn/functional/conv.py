"""Convolutions: ``conv1d``, ``conv2d``, ``conv_transpose2d``."""

__all__: list[str] = []

"""Convolution modules: Conv1d, Conv2d, ConvTranspose2d."""

__all__: list[str] = []

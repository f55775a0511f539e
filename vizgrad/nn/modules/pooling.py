"""Pooling modules: MaxPool2d, AvgPool2d, AdaptiveAvgPool2d."""

__all__: list[str] = []

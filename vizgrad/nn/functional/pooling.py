"""Pooling: ``max_pool2d`` (with indices), ``avg_pool2d``, ``adaptive_avg_pool2d``."""

__all__: list[str] = []

"""Distances and normalisation: ``normalize``, ``cosine_similarity``, ``pairwise_distance``."""

__all__: list[str] = []

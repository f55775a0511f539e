"""Distance modules: CosineSimilarity, PairwiseDistance."""

__all__: list[str] = []

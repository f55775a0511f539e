"""Per-sample normalisation: LayerNorm, GroupNorm."""

__all__: list[str] = []

"""Linear maps as modules: Identity, Linear, Bilinear."""

__all__: list[str] = []

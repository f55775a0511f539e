"""Loss modules."""

__all__: list[str] = []

"""``torch.nn.Parameter``: a tensor a module registers as one of its weights."""

__all__: list[str] = []

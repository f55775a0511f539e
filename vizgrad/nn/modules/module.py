"""``torch.nn.Module``: the base class of every layer."""

__all__: list[str] = []

"""Loss functions with PyTorch's reductions and options."""

__all__: list[str] = []

"""Meta kernels of the indexing operators (to be written)."""

KERNELS: dict = {}

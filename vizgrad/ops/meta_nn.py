"""Meta kernels of the nn operators (to be written)."""

KERNELS: dict = {}

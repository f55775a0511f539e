"""Meta kernels of the reductions operators (to be written)."""

KERNELS: dict = {}

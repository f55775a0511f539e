"""Meta kernels of the linear algebra operators (to be written)."""

KERNELS: dict = {}

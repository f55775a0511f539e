"""Linear and bilinear maps: ``linear`` (``addmm``/``matmul``) and ``bilinear``."""

__all__: list[str] = []

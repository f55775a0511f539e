"""Linear and bilinear maps: ``linear`` (``addmm``/``matmul``) and ``bilinear``.

Both are the engine's operators themselves, as ``torch.nn.functional.linear`` is
``torch._C._nn.linear`` and ``bilinear`` is ``torch.bilinear``: composites whose inner
products record the nodes (``AddmmBackward0``, ``TrilinearBackward0``…).
"""

from ...ops import linear as _linear

__all__ = ["linear", "bilinear"]

linear = _linear.linear
bilinear = _linear.bilinear

"""Padding: ``pad`` (constant, reflect, replicate, circular).

``torch.nn.functional.pad`` is the operator ``aten::pad`` (``torch._C._nn.pad``): it
checks the pad's length and calls ``constant_pad_nd``, ``reflection_pad*d``,
``replication_pad*d`` or ``_pad_circular`` (``vizgrad.ops.padding``).
"""

from ...ops import padding as _padding

__all__ = ["pad"]

pad = _padding.pad

"""Functions PyTorch writes in Python (``torch/functional.py``): ``broadcast_shapes``.

They take and return plain Python values (shapes), not tensors, so they are no
operators: nothing is dispatched, nothing recorded.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from .shape import Size

__all__ = ["broadcast_shapes"]


def broadcast_shapes(*shapes) -> Size:
    """``torch.broadcast_shapes``: the shape that tensors of ``shapes`` broadcast to.

    As ``torch._refs._broadcast_shapes``: an int is a 1-D shape, ``None`` is skipped,
    sizes line up from the right and a size 1 takes the other's. Its errors are its
    own, not TensorIterator's: a mismatch names the dim from the right (``-1``) and the
    argument's index; a negative size is a ``ValueError``. No shape gives ``Size([])``.
    """
    shapes = tuple((s,) if isinstance(s, int) else s for s in shapes if s is not None)
    if not shapes:
        return Size(())
    for shape in shapes:
        if not isinstance(shape, Sequence):
            raise RuntimeError(
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, "
                f"got {shape}"
            )
    common = [1] * max(len(shape) for shape in shapes)
    for index, shape in enumerate(shapes):
        for dim in range(-1, -1 - len(shape), -1):
            if shape[dim] == common[dim]:
                continue
            if common[dim] == 1:
                if shape[dim] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[dim] = shape[dim]
            if shape[dim] != 1 and common[dim] != shape[dim]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[dim]} at {dim}! "
                    f"Mismatching argument at index {index} had {shape}; but expected shape "
                    f"should be broadcastable to {common}"
                )
    return Size(_size_items(common))


def _size_items(sizes) -> list[int]:
    # ``torch.Size(...)`` takes only what converts to an int (``__index__``).
    items = []
    for i, size in enumerate(sizes):
        try:
            items.append(operator.index(size))
        except TypeError:
            raise TypeError(
                f"vizgrad.Size() takes an iterable of 'int' (item {i} is '{type(size).__name__}')"
            ) from None
    return items

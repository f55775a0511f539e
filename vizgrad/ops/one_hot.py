"""``one_hot`` (``Onehot.cpp``): class indices as rows of zeros with a single 1.

``one_hot(t, num_classes)[..., c]`` is 1 where ``t[...] == c``: an int64 tensor of
``t``'s shape plus ``num_classes``. With ``num_classes=-1`` the number of classes is
one more than the largest index. Composite, as in PyTorch: ``zeros`` then an in-place
``scatter_`` of 1 along the new last dim; an integer result has no gradient.
"""

from __future__ import annotations

from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import int64
from ..tensor import Tensor
from .creation import empty, zeros
from .declaration import native_function

__all__: list[str] = []  # ``torch._C._nn.one_hot``: not a ``torch`` function


def _one_hot(self: Tensor, num_classes: int = -1) -> Tensor:
    if self._dtype is not int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    shape = list(self._size)
    if self.numel() == 0:
        # An empty tensor could be one-hot, but nothing says how many classes.
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return empty((*shape, num_classes), dtype=int64)
    if int(self._array.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    largest = int(self._array.max())
    if num_classes == -1:
        num_classes = largest + 1
    elif num_classes <= largest:
        raise RuntimeError("Class values must be smaller than num_classes.")
    result = zeros((*shape, num_classes), dtype=int64)
    return result.scatter_(-1, self.unsqueeze(-1), 1)


one_hot = native_function(
    "one_hot(Tensor self, int num_classes=-1) -> Tensor",
    kernel=_one_hot,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.nn.functional.one_hot``: int64 rows with a 1 at each index's class.",
)

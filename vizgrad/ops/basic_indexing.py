"""Basic indexing: ``x[0, 1:3, None, ...]`` as a chain of views (``TensorIndexing.h``).

Python's ``Tensor.__getitem__`` with ints, slices, ``None`` and ``...`` is PyTorch's
``applySlicing``: each entry becomes one view op (``select``, ``slice``, ``unsqueeze``),
so the result shares its input's storage. Any other entry (an index tensor, a list, a
bool, an array) makes it *advanced* indexing, which copies: see
``vizgrad.ops.advanced_indexing``.
"""

from __future__ import annotations

import operator

import numpy as np

from ..dtypes import INTEGRAL
from ..tensor import Tensor, define_method

# advanced_indexing imports this module, so this one holds the module and reads
# ``advanced_index`` from it when called.
from . import advanced_indexing
from .parts import INT64_MAX, _select_op, _slice_op
from .shape_views import _alias_op
from .size_one_dims import _unsqueeze_op

__all__: list[str] = []


# --- basic indexing: x[0, 1:3, None, ...] --------------------------------------------------


def _as_index_int(value):
    """An index entry that acts as an integer (``select``), or None.

    Python ints, NumPy integers, and 0-dim integer tensors count (not bool, and not
    uint8 tensors, which PyTorch reads as masks).
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, Tensor):
        if value.dim() == 0 and value._dtype.category == INTEGRAL and value._dtype.name != "uint8":
            return int(value.item())
        return None
    if isinstance(value, np.ndarray) and not (value.ndim == 0 and value.dtype.kind in "iu"):
        return None
    if hasattr(value, "__index__") and not isinstance(value, type):
        try:
            return operator.index(value)
        except TypeError:
            return None
    return None


def _is_advanced(entry) -> bool:
    """Entries that need ``index.Tensor`` (a gather, a copy) rather than a view."""
    if entry is None or entry is Ellipsis or isinstance(entry, slice):
        return False
    if _as_index_int(entry) is not None:
        return False
    return isinstance(entry, bool | Tensor | list | range | str | np.ndarray)


def _invalid_index(entry) -> IndexError:
    kind = type(entry)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    return IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
        f"valid indices (got {name})"
    )


def _slice_bounds(entry: slice):
    def as_int(value, default):
        if value is None:
            return default
        try:
            return operator.index(value)
        except TypeError:
            raise TypeError(
                "slice indices must be integers or None or have an __index__ method"
            ) from None

    step = as_int(entry.step, 1)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    return as_int(entry.start, 0), as_int(entry.stop, INT64_MAX), step


def _checked_select(result: Tensor, dim: int, index: int, real_dim: int) -> Tensor:
    size = result._size[dim]
    if not -size <= index < size:
        raise IndexError(
            f"index {index} is out of bounds for dimension {real_dim} with size {size}"
        )
    return _select_op(result, dim, index)


def _index_single(tensor: Tensor, entry) -> Tensor:
    """PyTorch's fast paths for a lone index (``x[0]``, ``x[1:]``, ``x[None]``, ``x[...]``)."""
    if entry is None:
        return _unsqueeze_op(tensor, 0)
    if entry is Ellipsis:
        return _alias_op(tensor)
    if isinstance(entry, slice):
        start, stop, step = _slice_bounds(entry)
        return _slice_op(tensor, 0, start, stop, step)
    index = _as_index_int(entry)
    if index is None:
        raise _invalid_index(entry)
    if tensor.dim() == 0:
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    return _checked_select(tensor, 0, index, 0)


def basic_index(tensor: Tensor, index) -> Tensor:
    """``x[index]`` for ints, slices, None and Ellipsis: a view, built from declared ops.

    Walks the index left to right (``applySlicing``): an int ``select``s (the dim
    disappears), a slice ``slice``s (a full ``0:len`` slice is skipped), ``None``
    ``unsqueeze``s, and ``...`` skips the dims no other entry names. If nothing
    changed, the result is an ``alias`` (a new tensor object, still a view).
    """
    if not isinstance(index, tuple):
        return _index_single(tensor, index)
    ndim = tensor.dim()
    specified = 0
    for entry in index:
        if entry is None or entry is Ellipsis:
            continue
        if not isinstance(entry, slice) and _as_index_int(entry) is None:
            raise _invalid_index(entry)
        specified += 1
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")

    result = tensor
    dim = 0  # position in the result
    real_dim = 0  # position as if selected dims were still there (for error messages)
    for entry in index:
        if entry is None:
            result = _unsqueeze_op(result, dim)
            dim += 1
            real_dim += 1
        elif entry is Ellipsis:
            dim += ndim - specified
            real_dim += ndim - specified
        elif isinstance(entry, slice):
            start, stop, step = _slice_bounds(entry)
            if not (start == 0 and stop >= result._size[dim] and step == 1):
                result = _slice_op(result, dim, start, stop, step)
            dim += 1
            real_dim += 1
        else:
            result = _checked_select(result, dim, _as_index_int(entry), real_dim)
            real_dim += 1
    return _alias_op(tensor) if result is tensor else result


def _getitem(self: Tensor, index) -> Tensor:
    """``Tensor.__getitem__``: basic indexing makes a view; anything else is advanced indexing.

    Advanced entries (index tensors, lists, bools, arrays) gather elements into new
    memory, so they go to ``vizgrad.ops.advanced_indexing.advanced_index``. Python glue
    in PyTorch too (``python_variable_indexing.cpp``): it only translates the index
    into calls of declared operators (``select``, ``slice.Tensor``, ``index.Tensor``…).
    """
    entries = index if isinstance(index, tuple) else (index,)
    if any(_is_advanced(entry) for entry in entries):
        return advanced_indexing.advanced_index(self, index)
    return basic_index(self, index)


define_method("__getitem__", _getitem)

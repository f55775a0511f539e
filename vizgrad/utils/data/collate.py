"""``default_collate`` and ``default_convert``: turning a list of samples into a batch.

``default_collate`` works on the structure of the first sample and recurses: a list of
tensors is stacked into one tensor with a new first dimension, NumPy arrays and numbers
become tensors (Python floats as float64, ints as int64, as ``torch.tensor`` of a list
would), strings stay a list, and a sample that is a tuple, list, dict or namedtuple
gives a batch of the same shape whose leaves are batched. ``default_convert`` (used
when the loader does not batch) only turns NumPy arrays into tensors. Both follow
``torch/utils/data/_utils/collate.py``, including ``collate(batch, collate_fn_map=...)``
for extending it by element type.
"""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable

import numpy as np

from ...dtypes import float64
from ...ops.creation import as_tensor, tensor
from ...ops.joining import stack
from ...tensor import Tensor

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

# NumPy dtypes of strings and Python objects, which cannot become tensors.
_STRING_OR_OBJECT_DTYPE = re.compile(r"[SaUO]")

_ERROR_FORMAT = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _is_numpy_value(value) -> bool:
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def _rebuild_mapping(mapping, values: dict):
    # A mapping type may carry more than its items (an OrderedDict subclass, say): update
    # a copy where possible, else rebuild the type, else fall back to a plain dict.
    try:
        if isinstance(mapping, collections.abc.MutableMapping):
            clone = copy.copy(mapping)
            clone.update(values)
            return clone
        return type(mapping)(values)
    except TypeError:
        return values


def _rebuild_sequence(sequence, values: list):
    try:
        if isinstance(sequence, collections.abc.MutableSequence):
            clone = copy.copy(sequence)
            for i, value in enumerate(values):
                clone[i] = value
            return clone
        return type(sequence)(values)
    except TypeError:
        return values


def default_convert(data):
    """Turn every NumPy array (or scalar) inside ``data`` into a tensor; leave the rest."""
    if isinstance(data, Tensor):
        return data
    if _is_numpy_value(data):
        if isinstance(data, np.ndarray) and _STRING_OR_OBJECT_DTYPE.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple keeps its type
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # torch returns a list here, for history
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map: dict | None = None):
    """Batch ``batch`` (a list of samples) by the structure of its first sample; leaves
    are batched by the function ``collate_fn_map`` gives for their type (an exact type
    first, then the first key the element is an instance of)."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        values = {
            key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem
        }
        return _rebuild_mapping(elem, values)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(
            *(
                collate(samples, collate_fn_map=collate_fn_map)
                for samples in zip(*batch, strict=True)
            )
        )
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(sample) == size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [
            collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch, strict=True)
        ]
        if isinstance(elem, tuple):
            return transposed  # a list, as torch returns for tuples
        return _rebuild_sequence(elem, transposed)
    raise TypeError(_ERROR_FORMAT.format(elem_type))


def _collate_tensors(batch, *, collate_fn_map=None):
    return stack(batch, 0)


def _collate_numpy_arrays(batch, *, collate_fn_map=None):
    if _STRING_OR_OBJECT_DTYPE.search(batch[0].dtype.str):
        raise TypeError(_ERROR_FORMAT.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def _collate_numpy_scalars(batch, *, collate_fn_map=None):
    return as_tensor(batch)


def _collate_floats(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=float64)


def _collate_ints(batch, *, collate_fn_map=None):
    return tensor(batch)


def _collate_strings(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: _collate_tensors,
    np.ndarray: _collate_numpy_arrays,
    (np.bool_, np.number, np.object_): _collate_numpy_scalars,
    float: _collate_floats,
    int: _collate_ints,
    str: _collate_strings,
    bytes: _collate_strings,
}


def default_collate(batch):
    """The ``DataLoader``'s default: stack a list of samples into a batch (see the module)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)

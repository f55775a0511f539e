"""``repr`` of tensors in PyTorch's style (``torch/_tensor_str.py``)."""

from __future__ import annotations

import numpy as np

from . import dtypes as dt


def tensor_repr(t) -> str:
    body = np.array2string(t._array, separator=", ", prefix="tensor(")
    suffixes = []
    if t._dtype not in (dt.get_default_dtype(), dt.int64, dt.bool):
        suffixes.append(f"dtype={t._dtype!r}")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return "tensor(" + ", ".join([body, *suffixes]) + ")"

"""``repr`` of tensors in PyTorch's style: a port of ``torch/_tensor_str.py``.

How PyTorch prints a tensor:

1. **One formatter for all elements** (``_Formatter``). It looks at every value once
   (only the edges when the tensor is summarised) and decides: are all floats
   integers (print ``1.``)? is scientific notation needed (the largest and smallest
   non-zero magnitudes differ by more than 1000×, or exceed 1e8, or go below 1e-4)?
   and how wide is the widest value, so that every element is padded to that width
   and the columns line up.
2. **Nested brackets** (``_tensor_str_with_formatter``): a row per last-dim vector,
   wrapped at ``linewidth``; one blank line more between blocks of each higher dim.
3. **Summarising**: above ``threshold`` elements, only ``edgeitems`` at each end of
   every dimension are shown, with ``...`` between.
4. **Suffixes**: ``dtype=`` when the dtype is not the default one for its kind,
   ``size=`` for empty tensors, then ``grad_fn=<…>`` or ``requires_grad=True``.

A sparse COO tensor prints its two parts, each as a tensor, then ``size=``, ``nnz=``,
``dtype=`` and ``layout=`` (``sparse_repr``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math

import numpy as np

from . import dtypes as dt

__all__ = ["tensor_repr", "sparse_repr", "set_printoptions", "get_printoptions", "printoptions"]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None) -> None:  # fmt: skip
    """``torch.set_printoptions``: digits, summarising threshold, edge items, line width.

    ``sci_mode=None`` (the default, and what every call without it restores) lets the
    formatter choose scientific notation by itself.
    """
    if profile is not None:
        for name, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, name, value)
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):  # fmt: skip
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """``torch._tensor_str.get_printoptions``: the current options as keyword arguments."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Change the print options inside a ``with`` block only."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# --- the formatter --------------------------------------------------------------------


class _Formatter:
    """Decides how every element of one tensor is written (PyTorch's ``_Formatter``)."""

    def __init__(self, values: np.ndarray):
        self.floating_dtype = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating_dtype:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return
        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            return
        magnitudes = np.abs(nonzero_finite).astype(np.float64)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = bool(largest / smallest > 1000.0 or largest > 1.0e8
                                 or smallest < 1.0e-4)  # fmt: skip
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        for value in nonzero_finite.tolist():
            self.max_width = max(self.max_width, len(self._digits(value)))

    def _digits(self, value: float) -> str:
        """A value without padding; integers in fixed notation get their ``.`` later."""
        precision = PRINT_OPTS.precision
        if self.sci_mode:
            return f"{value:.{precision}e}"
        if self.int_mode:
            return f"{value:.0f}" + " "  # room for the trailing "."
        return f"{value:.{precision}f}"

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        if self.floating_dtype:
            precision = PRINT_OPTS.precision
            if self.sci_mode:
                text = f"{value:{self.max_width}.{precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{precision}f}"
        else:
            text = f"{value}"
        return (self.max_width - len(text)) * " " + text


def _element_str(value, real_formatter, imag_formatter=None) -> str:
    """One element; a complex one is ``real+imagj`` with each part formatted separately."""
    if imag_formatter is None:
        return real_formatter.format(value)
    real = real_formatter.format(value.real)
    imag = (imag_formatter.format(value.imag) + "j").lstrip()
    return real + imag if imag[0] in "+-" else real + "+" + imag


# --- nesting and summarising -----------------------------------------------------------


def _vector_str(values: np.ndarray, indent: int, summarize: bool, formatters) -> str:
    element_length = formatters[0].width() + 2
    if len(formatters) > 1:
        element_length += formatters[1].width() + 1
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        data = ([_element_str(v, *formatters) for v in values[:edge].tolist()] + [" ..."]
                + [_element_str(v, *formatters) for v in values[-edge:].tolist()])  # fmt: skip
    else:
        data = [_element_str(v, *formatters) for v in values.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(values: np.ndarray, indent: int, summarize: bool, formatters) -> str:
    """Brackets inside brackets; each deeper level is indented by one more space."""
    if values.ndim == 0:
        return _element_str(values.item(), *formatters)
    if values.ndim == 1:
        return _vector_str(values, indent, summarize, formatters)
    edge = PRINT_OPTS.edgeitems
    rows = values.shape[0]
    if summarize and rows > 2 * edge:
        shown = [*range(edge), None, *range(rows - edge, rows)]
    else:
        shown = range(rows)
    slices = ["..." if i is None else _nested_str(values[i], indent + 1, summarize, formatters)
              for i in shown]  # fmt: skip
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(slices) + "]"


def _summarized_data(values: np.ndarray) -> np.ndarray:
    """Only the elements a summarised print shows: what the formatter should measure."""
    edge = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        if values.shape[0] > 2 * edge:
            return np.concatenate((values[:edge], values[-edge:]))
        return values
    if not edge:
        return values[tuple(slice(0, 0) for _ in range(values.ndim))]
    rows = values.shape[0]
    picked = [*range(edge), *range(rows - edge, rows)] if rows > 2 * edge else range(rows)
    return np.stack([_summarized_data(values[i]) for i in picked])


def _tensor_str(values: np.ndarray, indent: int) -> str:
    if values.size == 0:
        return "[]"
    summarize = values.size > PRINT_OPTS.threshold
    measured = _summarized_data(values) if summarize else values
    if values.dtype.kind == "c":
        formatters = (_Formatter(measured.real), _Formatter(measured.imag))
    else:
        formatters = (_Formatter(measured),)
    return _nested_str(values, indent, summarize, formatters)


# --- the whole repr --------------------------------------------------------------------


def _add_suffixes(tensor_str: str, suffixes, indent: int, force_newline: bool = False) -> str:
    """Append ``, dtype=…`` and friends, starting a new line when one would pass linewidth
    (and for the first one when ``force_newline``: a sparse tensor's ``size=``)."""
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _has_default_dtype(dtype) -> bool:
    """No ``dtype=`` suffix for the dtypes Python numbers become: default float and complex,
    int64 and bool."""
    return dtype in (dt.get_default_dtype(), dt.default_complex_dtype(), dt.int64, dt.bool)


def tensor_repr(t) -> str:
    """``repr(tensor)`` exactly as PyTorch writes it, with ``vizgrad.`` for ``torch.``."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t.is_meta:
        # No values to print (``_tensor_str``'s ``self.is_meta`` branch): "...", then where
        # the tensor is, its size always, and its dtype unless it is the default one.
        suffixes += ["device='meta'", "size=" + str(tuple(t._size))]
        if t._dtype is not dt.get_default_dtype():
            suffixes.append(f"dtype={t._dtype!r}")
        suffixes += _autograd_suffixes(t)
        return _add_suffixes(prefix + "...", suffixes, indent)
    if t.numel() == 0:
        if t.dim() != 1:
            suffixes.append("size=" + str(tuple(t._size)))
        if t._dtype is not dt.get_default_dtype():  # empty tensors name every other dtype
            suffixes.append(f"dtype={t._dtype!r}")
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(t._size)))
        if not _has_default_dtype(t._dtype):
            suffixes.append(f"dtype={t._dtype!r}")
        tensor_str = _tensor_str(t._resolved_array(), indent)  # through the math bits
    suffixes += _autograd_suffixes(t)
    return _add_suffixes(prefix + tensor_str, suffixes, indent)


def _autograd_suffixes(t) -> list:
    grad_fn = t.grad_fn
    if grad_fn is not None:
        # ``_tensor_str`` prints the node's class name: its ``name()`` without the C++
        # namespace a hand-written node's name has (``CopyBackwards``).
        return [f"grad_fn=<{grad_fn.name().rpartition('::')[2]}>"]
    if t._requires_grad:
        return ["requires_grad=True"]
    return []


def sparse_repr(t) -> str:
    """``repr`` of a sparse COO tensor: its indices and values, each printed as a tensor
    indented under the other, then its size, ``nnz``, dtype and layout (``_tensor_str``'s
    ``self.layout == torch.sparse_coo`` branch). An empty part also says its size."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes = ["size=" + str(tuple(t._size)), f"nnz={t._nnz()}"]
    if not _has_default_dtype(t._dtype):
        suffixes.append(f"dtype={t._dtype!r}")
    parts = []
    for name, part in (("indices", t._sparse_indices), ("values", t._sparse_values)):
        part_prefix = f"{name}=tensor("
        text = _tensor_str(part._array, indent + len(part_prefix))
        if part.numel() == 0:
            text += ", size=" + str(tuple(part._size))
        parts.append(part_prefix + text + ")")
    suffixes.append(f"layout={t.layout!r}")
    suffixes += _autograd_suffixes(t)
    tensor_str = prefix + (",\n" + " " * indent).join(parts)
    return _add_suffixes(tensor_str, suffixes, indent, force_newline=True)

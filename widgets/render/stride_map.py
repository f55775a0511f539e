"""The stride map, as data: which storage cell each element of each view reads.

A tensor is a storage plus ``(shape, stride, offset)``: element ``[i0, i1, ...]``
lives at storage position ``offset + i0*stride[0] + i1*stride[1] + ...``. This module
turns that geometry (and, for live tensors, the storage's values) into plain JSON-able
data that a widget or a static HTML page draws:

* for each view, its *logical grid* (the last two dims; leading dims are fixed by a
  slice chooser), each cell holding the storage position it reads;
* for each storage, a *strip* of cells in memory order, each listing the views that
  read it and how many of their elements do (more than one: overlap or stride 0);
* notes that make layouts visible at a glance: an offset, gaps between the cells a
  view reads (a step), stride 0 (``expand``), overlap (``as_strided``);
* for a selected element, the arithmetic ``offset + Σ index·stride = position``.

Large tensors are summarised, never sent whole: a grid shows at most ``MAX_SIDE``
rows and columns (the middle elided), a strip at most ``MAX_STORAGE_CELLS`` cells
(beyond that: both ends, the start of each view and the selected cell's
neighbourhood). Names come from the user and are HTML-escaped here, once.

Nothing here imports a widget library: the output is deterministic and testable.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from .escape import escape_html

__all__ = [
    "ViewGeometry",
    "StorageInfo",
    "PALETTE",
    "element_position",
    "arithmetic",
    "shown_indices",
    "stride_map_data",
    "stride_map_html",
]

# Okabe–Ito colours: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999")
MAX_SIDE = 64  # rows (and columns) of a logical grid shown before the middle is elided
MAX_STORAGE_CELLS = 4096  # a storage strip longer than this is shown in windows
STORAGE_EDGE = 256  # cells shown at each end of a long strip, and from each view's offset
SELECTION_WINDOW = 32  # cells shown on each side of the selected element's cell
MAX_COUNTED = 1 << 22  # distinct-position counting stops here (huge as_strided overlaps)


@dataclass(frozen=True)
class ViewGeometry:
    """What the stride map needs of one tensor: ``TensorImpl``'s sizes, strides, offset."""

    name: str  # as the user gave it: escaped when rendered
    storage: Hashable  # equal for views of the same storage
    shape: tuple
    stride: tuple
    offset: int
    dtype: str
    version: int | None = None


@dataclass(frozen=True)
class StorageInfo:
    """One flat buffer: its size, and its values when a live tensor is shown."""

    label: str
    numel: int
    dtype: str
    values: np.ndarray | None = None  # the storage's elements; None in a replay


# --- the arithmetic -------------------------------------------------------------------


def element_position(offset: int, stride: Sequence[int], index: Sequence[int]) -> int:
    """Storage position of element ``index``: ``offset + Σ index[d]·stride[d]``."""
    return offset + sum(i * s for i, s in zip(index, stride, strict=True))


def arithmetic(offset: int, stride: Sequence[int], index: Sequence[int]) -> str:
    """The sum written out, e.g. ``"2 + 1·3 + 0·1 = 5"`` (a 0-d tensor: ``"2 = 2"``)."""
    terms = [str(offset)] + [f"{i}·{s}" for i, s in zip(index, stride, strict=True)]
    return f"{' + '.join(terms)} = {element_position(offset, stride, index)}"


def is_contiguous(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """Row-major and dense (``Tensor.is_contiguous``); dims of size 1 may have any stride."""
    expected = 1
    for n, s in zip(reversed(shape), reversed(stride), strict=True):
        if n == 0:
            return True
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


# --- summarising ----------------------------------------------------------------------


def shown_indices(n: int, limit: int = MAX_SIDE) -> list[int | None]:
    """Indices along one axis; above ``limit`` the middle becomes one ``None`` (an ellipsis)."""
    if n <= limit:
        return list(range(n))
    half = limit // 2
    return list(range(half)) + [None] + list(range(n - half, n))


def _merge(intervals: list[tuple[int, int]]) -> list[list[int]]:
    merged: list[list[int]] = []
    for start, stop in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], stop)
        else:
            merged.append([start, stop])
    return merged


def storage_segments(numel: int, offsets: Sequence[int], selected: int | None = None):
    """Half-open ranges ``[start, stop)`` of storage positions to draw.

    A short storage is drawn whole. A long one keeps both ends, the first cells of
    each view (from its offset) and the selected element's neighbourhood.
    """
    if numel <= MAX_STORAGE_CELLS:
        return [[0, numel]] if numel else []
    wanted = [(0, STORAGE_EDGE), (numel - STORAGE_EDGE, numel)]
    wanted += [(o, min(o + STORAGE_EDGE, numel)) for o in offsets if 0 <= o < numel]
    if selected is not None and 0 <= selected < numel:
        wanted.append(
            (max(selected - SELECTION_WINDOW, 0), min(selected + SELECTION_WINDOW + 1, numel))
        )
    return _merge(wanted)


def format_values(values: np.ndarray) -> list[str]:
    """Short text for each value, as a cell has room for (4 significant digits)."""
    kind = values.dtype.kind
    if kind == "f":
        return [f"{v:.4g}" for v in values.tolist()]
    if kind == "c":
        return [f"{v.real:.3g}{v.imag:+.3g}j" for v in values.tolist()]
    return [str(v) for v in values.tolist()]


# --- what each view reads ---------------------------------------------------------------


@dataclass
class _Reads:
    """The distinct storage positions a view reads, and how many elements read each."""

    positions: np.ndarray  # sorted, distinct
    counts: np.ndarray
    exact: bool  # False: too many elements to count; only the shown cells were counted
    expanded_dims: tuple  # dims with stride 0 and size > 1
    overlap: bool  # some position is read by several elements, not because of stride 0
    gaps: int  # positions between the first and last read that the view skips
    span: int  # last - first + 1


def _reads(view: ViewGeometry, shown_positions: np.ndarray) -> _Reads:
    shape, stride = view.shape, view.stride
    expanded = tuple(
        d for d, (n, s) in enumerate(zip(shape, stride, strict=True)) if s == 0 and n > 1
    )
    if 0 in shape:
        empty = np.zeros(0, dtype=np.int64)
        return _Reads(empty, empty, True, expanded, False, 0, 0)
    # Stride-0 dims repeat the same positions: drop them, multiply the counts instead.
    repeat = int(np.prod([shape[d] for d in expanded], dtype=np.int64)) if expanded else 1
    moving = [(n, s) for n, s in zip(shape, stride, strict=True) if n > 1 and s != 0]
    first, last = view.offset, view.offset + sum((n - 1) * s for n, s in moving)
    span = last - first + 1
    distinct_max = int(np.prod([n for n, _ in moving], dtype=np.int64)) if moving else 1
    if distinct_max <= MAX_COUNTED:
        flat = np.full(1, view.offset, dtype=np.int64)
        for n, s in moving:
            flat = (flat[:, None] + np.arange(n, dtype=np.int64) * s).reshape(-1)
        positions, counts = np.unique(flat, return_counts=True)
        overlap = len(positions) < len(flat)
        return _Reads(positions, counts * repeat, True, expanded, overlap, span - len(positions),
                      span)  # fmt: skip
    positions, counts = np.unique(shown_positions, return_counts=True)
    overlap = not _surely_non_overlapping(moving)
    gaps = max(span - distinct_max, 0) if not overlap else max(span - len(positions), 0)
    return _Reads(positions, counts, False, expanded, overlap, gaps, span)


def _surely_non_overlapping(moving: list[tuple[int, int]]) -> bool:
    """Each stride clears everything the smaller strides reach (``is_non_overlapping``)."""
    reach = 0
    for n, s in sorted(moving, key=lambda ns: ns[1]):
        if s <= reach:
            return False
        reach += (n - 1) * s
    return True


def _notes(view: ViewGeometry, reads: _Reads, contiguous: bool) -> list[str]:
    """What a learner should notice about this layout, in words."""
    notes = ["contiguous" if contiguous else "not contiguous"]
    if view.offset:
        notes.append(f"offset {view.offset}: element 0 is storage[{view.offset}]")
    for d in reads.expanded_dims:
        notes.append(
            f"stride 0 in dim {d}: its {view.shape[d]} indices read the same cells (expanded)"
        )
    if reads.gaps > 0:
        notes.append(f"gaps: skips {reads.gaps} of the {reads.span} cells it spans (a step)")
    if reads.overlap:
        notes.append("overlap: some cells are read by several elements (as_strided)")
    return notes


# --- the grid of one view -----------------------------------------------------------------


def _grid_axes(shape: tuple) -> tuple[list, list]:
    """Rows and columns shown: a 0-d or 1-d tensor is one row."""
    if len(shape) == 0:
        return [0], [0]
    if len(shape) == 1:
        return [0], shown_indices(shape[0])
    return shown_indices(shape[-2]), shown_indices(shape[-1])


def _chosen_slice(shape: tuple, chosen) -> list[int]:
    """Indices of the leading dims (above the last two), clamped into range."""
    lead = shape[:-2]
    chosen = list(chosen or [])[: len(lead)]
    chosen += [0] * (len(lead) - len(chosen))
    return [min(max(int(i), 0), max(n - 1, 0)) for i, n in zip(chosen, lead, strict=True)]


def _grid_positions(view: ViewGeometry, slice_index: list[int], rows: list, cols: list):
    """Storage position of every shown cell (a NumPy matrix; elided rows/cols excluded)."""
    base = view.offset + sum(i * s for i, s in zip(slice_index, view.stride, strict=False))
    row_stride = view.stride[-2] if len(view.shape) >= 2 else 0
    col_stride = view.stride[-1] if len(view.shape) >= 1 else 0
    r = np.array([i for i in rows if i is not None], dtype=np.int64)
    c = np.array([i for i in cols if i is not None], dtype=np.int64)
    return base + r[:, None] * row_stride + c[None, :] * col_stride


def _with_ellipses(matrix: list[list], rows: list, cols: list) -> list[list]:
    """Put ``None`` back where rows/columns were elided, so cells line up with labels."""
    if None not in cols:
        filled = matrix
    else:
        cut = cols.index(None)
        filled = [row[:cut] + [None] + row[cut:] for row in matrix]
    if None in rows:
        cut = rows.index(None)
        filled = filled[:cut] + [[None] * len(cols)] + filled[cut:]
    return filled


# --- everything --------------------------------------------------------------------------


def stride_map_data(
    views: Sequence[ViewGeometry],
    storages: dict[Hashable, StorageInfo],
    slices: Sequence[Sequence[int]] | None = None,
    selection: dict | None = None,
) -> dict:
    """The whole stride map as JSON-able data (see the module docstring).

    ``slices[v]`` picks the leading indices shown for view ``v`` (a tensor above 2-D);
    ``selection`` is ``{"view": v, "index": [...]}``, one element of one view.
    """
    storage_keys = list(dict.fromkeys(v.storage for v in views))
    selected = _selection(views, storages, selection)
    view_rows = []
    reads_by_view = []
    for number, view in enumerate(views):
        chosen = _chosen_slice(
            view.shape, slices[number] if slices and number < len(slices) else None
        )
        if selected is not None and selected["view"] == number:
            chosen = list(selected["index"][: len(chosen)])  # show the selected element's slice
        rows, cols = _grid_axes(view.shape)
        positions = _grid_positions(view, chosen, rows, cols)
        reads = _reads(view, positions.reshape(-1))
        reads_by_view.append(reads)
        values = storages[view.storage].values
        contiguous = is_contiguous(view.shape, view.stride)
        view_rows.append({
            "name": escape_html(view.name),
            "color": PALETTE[number % len(PALETTE)],
            "storage": storage_keys.index(view.storage),
            "shape": list(view.shape),
            "stride": list(view.stride),
            "offset": view.offset,
            "dtype": escape_html(view.dtype),
            "version": view.version,
            "numel": int(np.prod(view.shape, dtype=np.int64)),
            "contiguous": contiguous,
            "flags": {
                "offset": view.offset != 0,
                "expanded": bool(reads.expanded_dims),
                "gaps": reads.gaps > 0,
                "overlap": reads.overlap,
            },
            "notes": _notes(view, reads, contiguous),
            "counts_exact": reads.exact,
            "slice_dims": max(len(view.shape) - 2, 0),
            "slice": chosen,
            "rows": rows,
            "cols": cols,
            "positions": _with_ellipses(positions.tolist(), rows, cols),
            "values": None if values is None else _with_ellipses(
                [format_values(values[row]) for row in positions], rows, cols),
            "elided": None in rows or None in cols,
        })  # fmt: skip
    strips = []
    for key in storage_keys:
        info = storages[key]
        members = [n for n, v in enumerate(views) if v.storage == key]
        pick = selected["position"] if selected and selected["storage"] == len(strips) else None
        strips.append(
            _strip(info, members, [views[n].offset for n in members], reads_by_view, pick)
        )
    return {
        "views": view_rows,
        "storages": strips,
        "selection": selected,
        "limits": {"max_side": MAX_SIDE, "max_storage_cells": MAX_STORAGE_CELLS},
    }


def _strip(info: StorageInfo, members: list[int], offsets: list[int], reads_by_view, pick) -> dict:
    """One storage as a strip of cells, each with the views that read it and how often."""
    segments = storage_segments(info.numel, offsets, pick)
    shown = (np.concatenate([np.arange(a, b, dtype=np.int64) for a, b in segments])
             if segments else np.zeros(0, dtype=np.int64))  # fmt: skip
    readers: list[list[int]] = [[] for _ in range(len(shown))]
    counts: list[list[int]] = [[] for _ in range(len(shown))]
    for number in members:
        reads = reads_by_view[number]
        where = np.searchsorted(reads.positions, shown)
        where = np.minimum(where, max(len(reads.positions) - 1, 0))
        hit = (
            (reads.positions[where] == shown)
            if len(reads.positions)
            else np.zeros(len(shown), bool)
        )
        for cell, count in zip(np.flatnonzero(hit).tolist(), reads.counts[where[hit]].tolist(),
                               strict=True):  # fmt: skip
            readers[cell].append(number)
            counts[cell].append(count)
    values = None
    if info.values is not None:
        values = format_values(info.values[shown]) if len(shown) else []
    return {
        "label": escape_html(info.label),
        "numel": info.numel,
        "dtype": escape_html(info.dtype),
        "views": members,
        "segments": segments,
        "positions": shown.tolist(),
        "values": values,
        "readers": readers,
        "counts": counts,
        "elided": sum(b - a for a, b in segments) < info.numel,
    }


def _selection(views, storages, selection) -> dict | None:
    """The selected element, its storage position and the arithmetic that finds it."""
    if not selection:
        return None
    number = selection.get("view")
    if not isinstance(number, int) or not 0 <= number < len(views):
        return None
    view = views[number]
    index = [int(i) for i in selection.get("index", [])]
    if len(index) != len(view.shape) or not all(
        0 <= i < n for i, n in zip(index, view.shape, strict=True)
    ):
        return None
    position = element_position(view.offset, view.stride, index)
    values = storages[view.storage].values
    storage_number = list(dict.fromkeys(v.storage for v in views)).index(view.storage)
    return {
        "view": number,
        "index": index,
        "storage": storage_number,
        "position": position,
        "arithmetic": arithmetic(view.offset, view.stride, index),
        "value": None if values is None else format_values(values[position : position + 1])[0],
    }


# --- a static rendering (exported pages, ``_repr_html_``) --------------------------------


def stride_map_html(data: dict) -> str:
    """The stride map as an HTML fragment with the widget's CSS classes, no script.

    Every string in ``data`` that came from the user is already escaped.
    """
    parts = ['<div class="vg-stride-map">']
    for number, view in enumerate(data["views"]):
        parts.append(
            f'<div class="vg-stride-view" data-view="{number}" style="--vg-color:{view["color"]}">'
            f'<div class="vg-view-title">{view["name"]}: shape {tuple(view["shape"])}, '
            f"stride {tuple(view['stride'])}, offset {view['offset']}</div>"
            f'<table class="vg-stride-grid">'
        )
        for r, row in zip(view["rows"], view["positions"], strict=True):
            parts.append("<tr>")
            for c, position in zip(view["cols"], row, strict=True):
                if r is None or c is None:
                    parts.append('<td class="vg-ellipsis">…</td>')
                    continue
                index = view["slice"] + ([r] if len(view["shape"]) >= 2 else [])
                index += [c] if view["shape"] else []
                parts.append(
                    f'<td class="vg-stride-cell" data-view="{number}" '
                    f'data-index="{",".join(map(str, index))}" data-pos="{position}">'
                    f"{position}</td>"
                )
            parts.append("</tr>")
        parts.append("</table></div>")
    for strip in data["storages"]:
        parts.append(f'<div class="vg-storage-strip"><div class="vg-view-title">{strip["label"]}'
                     f' ({strip["numel"]} × {strip["dtype"]})</div><div class="vg-storage-cells">')  # fmt: skip
        cells = iter(zip(strip["positions"], strip["readers"], strict=True))
        for number, (start, stop) in enumerate(strip["segments"]):
            if number or start:
                parts.append('<span class="vg-ellipsis">…</span>')
            for _ in range(start, stop):
                position, readers = next(cells)
                parts.append(
                    f'<span class="vg-storage-cell" data-pos="{position}" '
                    f'data-views="{",".join(map(str, readers))}">{position}</span>'
                )
        parts.append("</div></div>")
    parts.append("</div>")
    return "".join(parts)

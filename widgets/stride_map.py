"""``StrideMap``: each tensor's logical grid beside the storage it reads.

``StrideMap(x, x.t(), x[:, ::2], names=["x", "x.t()", "x[:, ::2]"])`` draws every
tensor as a grid of its elements and every storage as a strip of cells in memory
order. Hovering or clicking an element lights the storage cell it reads and writes
out ``offset + Σ index·stride = position``; views of one storage share one strip,
each in its own colour, so sharing, offsets, gaps (steps), stride 0 (``expand``) and
overlap (``as_strided``) show at a glance. The controls build
``vizgrad.as_strided(first_tensor, size, stride, offset)`` and show vizgrad's own
error when the view would read outside the storage. An in-place write into a shown
storage (``x.add_(1)``) redraws the map: the widget listens to the in-place writes of
``vizgrad.events`` until ``close()`` (weakly: a map nobody holds stops listening).

The Timeline drives a replay with ``show_state(state, tensor_ids)``: geometry only,
cells show storage positions instead of values.

Synced traitlets (what the front end reads and writes):

* ``data`` — ``widgets.render.stride_map.stride_map_data``'s output (names escaped);
* ``selection`` — set by a click: ``{"view": v, "index": [...]}``;
* ``slices`` — set by the slice chooser: the leading indices shown for each view;
* ``edit_size``/``edit_stride``/``edit_offset`` — the controls' text;
* ``error`` — why the last edit was refused (vizgrad's message), or why the map could
  not answer the browser (``widgets.browser.BrowserView``), else ``""``;
* ``mode`` — ``"live"`` or ``"replay"``.

The front end sends ``{"type": "as_strided", "size": "2, 3", "stride": "3, 1",
"offset": "0"}`` to build a view and ``{"type": "clear_edit"}`` to drop it (custom
messages, answered by ``answer_message``).

Stable selectors for browser tests: ``.vg-stride-map`` (root), ``.vg-stride-view``
(one per tensor, ``data-view``), ``.vg-stride-grid`` and ``.vg-stride-cell``
(``data-view``, ``data-index`` as ``"i,j"``, ``data-pos``), ``.vg-storage-strip``,
``.vg-storage-cell`` (``data-pos``, ``data-views``; live it shows its value over its
position, ``.vg-pos``; in a replay its position, ``.vg-position-only``), ``.vg-lit`` (the lit storage
cell and the element that lit it), ``.vg-arithmetic``, ``.vg-slice`` (range inputs of
the slice chooser, ``data-view``, ``data-dim``), ``.vg-edit-size``,
``.vg-edit-stride``, ``.vg-edit-offset``, ``.vg-edit-apply``, ``.vg-error``,
``.vg-ellipsis`` (elided cells).
"""

from __future__ import annotations

import contextlib

import traitlets

import vizgrad
from vizgrad import events

from .browser import BrowserView, front_end, stylesheet
from .render.stride_map import StorageInfo, ViewGeometry, stride_map_data, stride_map_html

__all__ = ["StrideMap"]

MAX_REPLAY_VIEWS = 16  # show_state() without ids shows the most recent tensors only


def _strip_key(storage_id: int, storage_dtype: str, view_dtype: str):
    """Which strip draws the storage for a view: a view counts its offset and strides in
    elements of its own dtype, so one that reads the bytes as another dtype than the
    storage's (``x.view(vizgrad.int16)``, ``view_as_real``) gets a strip of its own, the
    same bytes cut into its elements."""
    return storage_id if view_dtype == storage_dtype else (storage_id, view_dtype)


def _strip_label(storage_id: int, storage_dtype: str, view_dtype: str) -> str:
    if view_dtype == storage_dtype:
        return f"storage #{storage_id}"
    return f"storage #{storage_id} read as {view_dtype}"


def _itemsize(dtype_name: str) -> int:
    return getattr(vizgrad, dtype_name).itemsize


def _storage_id(tensor) -> int:
    """The id ``vizgrad.events`` names this tensor's storage by (``InplaceWrite.storage``)."""
    return events.event_id(tensor.untyped_storage())


def _version(tensor) -> int | None:
    try:
        return tensor._version
    except RuntimeError:  # inference tensors keep no version counter
        return None


def _parse_ints(text: str) -> tuple:
    """``"2, 3"`` → ``(2, 3)``; what is not an int stays a string, for vizgrad to refuse."""
    text = str(text).strip().strip("()[]")
    parts = [p.strip() for p in text.split(",") if p.strip()]
    parsed = []
    for part in parts:
        try:
            parsed.append(int(part))
        except ValueError:
            parsed.append(part)
    return tuple(parsed)


def _as_text(values) -> str:
    """What the controls show for a size or stride: ``(2, 3)`` → ``"2, 3"``."""
    if isinstance(values, str):
        return values
    return ", ".join(map(str, values))


def _parse_offset(text: str):
    text = str(text).strip()
    if not text:
        return None  # as_strided's default: the tensor's own offset
    try:
        return int(text)
    except ValueError:
        return text


class StrideMap(BrowserView):
    """``vizgrad.widgets.StrideMap(*tensors, names=None)``: tensors over their storages."""

    BROWSER_ACTIONS = {
        "selection": "lighting the element you clicked",
        "slices": "showing the slice you chose",
        "edit_size": "keeping the size you typed",
        "edit_stride": "keeping the stride you typed",
        "edit_offset": "keeping the offset you typed",
    }
    MESSAGE_ACTIONS = {
        "as_strided": "building the as_strided view",
        "clear_edit": "removing the as_strided view",
    }

    data = traitlets.Dict().tag(sync=True)
    selection = traitlets.Dict().tag(sync=True)
    slices = traitlets.List().tag(sync=True)
    edit_size = traitlets.Unicode("").tag(sync=True)
    edit_stride = traitlets.Unicode("").tag(sync=True)
    edit_offset = traitlets.Unicode("").tag(sync=True)
    mode = traitlets.Unicode("live").tag(sync=True)

    _shown_storages: frozenset = frozenset()  # ids of the storages drawn live

    def __init__(self, *tensors, names=None, **kwargs):
        for position, t in enumerate(tensors, start=1):
            if not isinstance(t, vizgrad.Tensor):
                raise TypeError(
                    f"StrideMap(): argument {position} must be a vizgrad Tensor, not "
                    f"{type(t).__name__}"
                )
            # The map draws a storage's elements: a strided tensor with data.
            if t.is_sparse:
                raise TypeError(
                    f"StrideMap(): argument {position} is a sparse COO tensor, which has no "
                    "strided storage to draw; draw its parts instead: "
                    "StrideMap(s._indices(), s._values())"
                )
            if t.is_meta:
                raise TypeError(
                    f"StrideMap(): argument {position} is on the meta device: it has a shape "
                    f"{tuple(t.shape)} and strides {t.stride()}, but no elements to draw"
                )
        if names is not None and len(names) != len(tensors):
            raise ValueError(f"StrideMap(): {len(tensors)} tensors but {len(names)} names")
        super().__init__(**kwargs)
        self._tensors = list(tensors)
        self._names = [str(n) for n in names] if names is not None else [
            f"tensor {i}" for i in range(len(tensors))]  # fmt: skip
        self._edited = None  # the view the controls built, shown after the others
        self._replay = None  # (TensorState, ids, names) in a replay
        self._listening = False
        if tensors:
            first = tensors[0]
            self.edit_size = _as_text(first.shape)
            self.edit_stride = _as_text(first.stride())
            self.edit_offset = str(first.storage_offset())
            self._listen()
        self.observe(self._on_front_end_change, names=["selection", "slices"])
        self.refresh()

    # --- what is shown --------------------------------------------------------------

    def _live_views(self):
        shown = list(zip(self._tensors, self._names, strict=True))
        if self._edited is not None:
            shown.append((self._edited, "as_strided"))
        return shown

    def _live_geometry(self):
        views, storages = [], {}
        for tensor, name in self._live_views():
            storage = tensor.untyped_storage()
            storage_id, own, read_as = _storage_id(tensor), storage.dtype.name, tensor.dtype.name
            key = _strip_key(storage_id, own, read_as)
            views.append(ViewGeometry(name, key, tuple(tensor.shape), tuple(tensor.stride()),
                                      tensor.storage_offset(), read_as, _version(tensor)))  # fmt: skip
            if key not in storages:
                elements = storage.elements(tensor.dtype)
                storages[key] = StorageInfo(
                    _strip_label(storage_id, own, read_as), len(elements), read_as, elements
                )
        return views, storages

    def _replay_geometry(self):
        state, ids, names = self._replay
        views, storages = [], {}
        for tensor_id, name in zip(ids, names, strict=True):
            if tensor_id not in state.tensors:
                continue  # not created yet at this step of the recording
            record = state.tensor(tensor_id)
            storage_id, read_as = record["storage"], record["dtype"]
            own = state.storages.get(storage_id, {}).get("dtype", read_as)
            key = _strip_key(storage_id, own, read_as)
            views.append(ViewGeometry(name, key, record["shape"], record["stride"],
                                      record["offset"], read_as, record["version"]))  # fmt: skip
            if key not in storages:
                numel = state.storage_numel(storage_id)
                if own != read_as:  # the same bytes, counted in the view's elements
                    numel = numel * _itemsize(own) // _itemsize(read_as)
                storages[key] = StorageInfo(_strip_label(storage_id, own, read_as), numel, read_as)
        return views, storages

    def refresh(self) -> None:
        """Recompute ``data`` from the tensors (live) or the state (replay)."""
        if self._replay is not None:
            views, storages = self._replay_geometry()
        else:
            views, storages = self._live_geometry()
            # What an in-place write redraws: the storages drawn, in any dtype.
            self._shown_storages = frozenset(k[0] if isinstance(k, tuple) else k for k in storages)
        self.data = stride_map_data(views, storages, self.slices, self.selection or None)

    def _on_front_end_change(self, change) -> None:
        self.refresh()

    # --- live updates ---------------------------------------------------------------

    def _listen(self) -> None:
        # In-place writes only, and weakly: a map nobody holds stops listening.
        if not self._listening:
            events.bus.subscribe(self._on_event, {"inplace_write"}, weak=True)
            self._listening = True

    def _stop_listening(self) -> None:
        # getattr: ipywidgets' __del__ calls close() even when __init__ raised early.
        if getattr(self, "_listening", False):
            # The collector may have ended the weak subscription already (a map closed by
            # ipywidgets' __del__ after it became garbage).
            with contextlib.suppress(ValueError):
                events.bus.unsubscribe(self._on_event)
            self._listening = False

    def _on_event(self, event) -> None:
        """Redraw after an in-place write into a shown storage (its version went up)."""
        if event.kind == "inplace_write" and event.storage in self._shown_storages:
            self.refresh()

    def close(self) -> None:
        """Stop listening to ``vizgrad.events`` and close the front end."""
        self._stop_listening()
        super().close()

    # --- the controls: an as_strided view of the first tensor's storage ---------------

    def edit(self, size, stride, offset=None) -> bool:
        """Show ``vizgrad.as_strided(first_tensor, size, stride, offset)``.

        A view vizgrad refuses (out of the storage, negative stride, wrong types…) is
        not shown: ``error`` holds vizgrad's message and the previous view stays.
        """
        self.edit_size, self.edit_stride = _as_text(size), _as_text(stride)
        self.edit_offset = "" if offset is None else str(offset)
        if not self._tensors or self._replay is not None:
            self.error = "as_strided needs a live tensor: this map shows a recording"
            return False
        try:
            view = vizgrad.as_strided(self._tensors[0], size, stride, offset)
        except (RuntimeError, TypeError, ValueError, IndexError) as exc:
            self.error = str(exc)
            return False
        self._edited = view
        self.error = ""
        self.refresh()
        return True

    def clear_edit(self) -> None:
        self._edited = None
        self.error = ""
        self.refresh()

    def answer_message(self, content: dict, buffers) -> None:
        """The editor's buttons: ``as_strided`` (with the fields' text) and ``clear_edit``."""
        if content["type"] == "as_strided":
            self.edit(_parse_ints(content.get("size", self.edit_size)),
                      _parse_ints(content.get("stride", self.edit_stride)),
                      _parse_offset(content.get("offset", self.edit_offset)))  # fmt: skip
        else:
            self.clear_edit()

    # --- replay ----------------------------------------------------------------------

    def show_state(self, state, tensor_ids=None, names=None) -> None:
        """Draw tensors of a ``TensorState`` (a Timeline step): geometry, no values.

        ``tensor_ids`` default to the most recent tensors of the state; tensors the
        state has not seen yet (an early step) are left out.
        """
        self._stop_listening()
        self._tensors, self._names, self._edited = [], [], None
        if tensor_ids is None:
            tensor_ids = list(state.tensors)[-MAX_REPLAY_VIEWS:]
        tensor_ids = list(tensor_ids)
        if names is None:
            names = [f"tensor #{i}" for i in tensor_ids]
        self._replay = (state, tensor_ids, [str(n) for n in names])
        self.mode = "replay"
        self.refresh()

    def to_html(self) -> str:
        """The current map as a static HTML fragment (for exported pages)."""
        return stride_map_html(self.data)

    # static/stride_map.js and .css, after the error box every view shows (widgets/browser.py)
    _css = stylesheet("stride_map.css")
    _esm = front_end("stride_map.js")

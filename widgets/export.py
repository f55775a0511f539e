"""``rec.to_html(path)``: a recording replayed in one self-contained HTML page.

::

    with record() as rec:
        loss = (w * x).sum()
        loss.backward()
    rec.to_html("lesson.html", names={"w": w, "x": x})

The page needs no kernel and no network: it is one file, for slides and course pages.
It holds the *views at every step*, computed here by the same pure layers the widgets
use (``widgets.render``) from the same folding of events as the ``Timeline``, a small
player (``static/export.js``: the Timeline's scrubber, an overview strip of the
recording, one lane per part of the engine) and the recording itself.

**What repeats is stored once** (a 35,000-event training loop is a few MB, not a few GB):

* *the backward graph*: one drawing per graph. A recording of a training loop builds
  one graph per iteration (a *round*: the nodes recorded from the end of one backward
  pass to the end of the next); each round's graph is drawn once, in its own ids
  (``n1``, ``n2``… counted within the round, ``seq`` from the round's first node), so
  the rounds of a loop that rebuilds the same graph share one layout. A step points
  at its round's drawing plus an *overlay* (``dag_dot.backward_overlay``): the nodes
  not recorded yet, and during backward the running, queued and finished nodes, the
  dependency counts and the gradients each edge carried, which the player marks on
  the drawing (graphviz's ``dot`` runs now, at export time; without it the built-in
  layout draws);
* *the dispatch trace*: each top-level call's HTML is rendered once it has returned
  (while it runs, once per step that changes it); a step lists the calls of its window
  (the ``TRACE_CALLS_SHOWN`` most recent) and the call to highlight;
* *the stride map*: rendered once per geometry with the tensors' names left as slots
  the player fills, so every step that shows tensors of the same shapes, strides and
  offsets shares one fragment;
* the engine panel beside the graph: once per distinct panel.

The data (``export_data``) and the recording (``Recorder.to_dicts()``: ids renumbered
from 1) are JSON compressed with zlib and base64-encoded in ``<script
type="application/octet-stream">`` elements (the browser inflates them with its own
``DecompressionStream``); ``read_page`` reads both back, and ``Recording.from_json``
reads the recording. Nothing is dropped unless asked: a recording of more than
``max_frames`` steps keeps that many evenly spaced frames, and one of more than
``MAX_EMBEDDED_EVENTS`` events keeps the views only; the page says so on screen
(``.vg-export-notice``), as it says which earlier calls the trace leaves out and that
the graph shows the current round's graph.

Escaping: everything that came from the user (tensor names, op and hook names,
reprs) is HTML-escaped by the render layers before it reaches the data; the player
inserts only those pre-escaped fragments as HTML, and the words it builds itself
(descriptions, the panel, the overlay's labels) are set as text. The compressed data
is base64, so nothing in it can end its script element.

Selectors (the browser tests use them): ``.vg-export`` (the page's root),
``.vg-scrubber input[type=range]`` (the slider: one position per frame),
``.vg-play``, ``.vg-step-back``, ``.vg-step-forward``, ``.vg-step-description``
(``data-step``: the step shown), ``.vg-export-notice``, ``.vg-overview`` (the
overview strip, a ``canvas``; a click moves to that step), ``.vg-stride-map`` with
``.vg-stride-cell`` / ``.vg-storage-cell`` / ``.vg-lit`` / ``.vg-arithmetic``,
``.vg-dag-canvas svg g.node`` (``vg-running`` is the node running now),
``.vg-dag-panel``, ``.vg-dispatch-trace`` with ``li.vg-trace-call``
(``.vg-trace-current``), ``button.vg-trace-toggle`` and ``pre.vg-trace-text``.
Script elements: ``#vg-export-data`` (the frames and their tables) and
``#vg-recording`` (the events); ``.vg-export[data-ready]`` once the first frame is drawn.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
import zlib
from pathlib import Path

from vizgrad import events

from .dispatch_trace import DispatchTrace
from .graph_view import GraphView, engine_panel
from .names import RecordingNames
from .render.dag_dot import Drawing, backward_overlay, graph_drawing, to_dot
from .render.dag_layout import render_svg
from .render.dispatch_tree import render_call_html, render_call_text, tree_notice_html
from .render.escape import escape_html
from .render.stride_map import StorageInfo, ViewGeometry, stride_map_data, stride_map_html
from .state.dispatch import DispatchState
from .state.graph import GraphState
from .state.rounds import Round, Rounds, round_state
from .state.tensors import TensorState
from .stride_map import StrideMap
from .timeline import Scrubber, describe_event, event_dicts_of, tensors_of_step, view_states

__all__ = [
    "DEFAULT_MAX_FRAMES",
    "MAX_EMBEDDED_EVENTS",
    "EXPORT_FORMAT_VERSION",
    "LANE_ORDER",
    "export_data",
    "export_html",
    "frame_steps",
    "page_html",
    "read_page",
]

EXPORT_FORMAT_VERSION = 2
# Frames of the page's scrubber: each points at the views of one step. Every step of a
# recording up to this long gets one (beyond, they are evenly spaced, and the page says so).
DEFAULT_MAX_FRAMES = 250_000
# Beyond this many events the page keeps the views only, not the raw events.
MAX_EMBEDDED_EVENTS = 250_000
# The dispatch trace of a frame shows this many of the most recent top-level calls.
TRACE_CALLS_SHOWN = 12
# zlib's default: level 9 saves ~3% more of these pages at twice the time.
COMPRESSION_LEVEL = 6
STATIC = Path(__file__).parent / "static"

# The overview's lanes: which kind of event belongs to which part of the engine.
LANES = {
    "storage_created": "tensors",
    "tensor_created": "tensors",
    "view_created": "tensors",
    "inplace_write": "tensors",
    "op_dispatched": "dispatcher",
    "op_returned": "dispatcher",
    "kernel_chosen": "dispatcher",
    "node_created": "autograd graph",
    "backward_started": "backward engine",
    "ready_queue_changed": "backward engine",
    "node_started": "backward engine",
    "node_finished": "backward engine",
    "grad_accumulated": "backward engine",
    "hook_fired": "backward engine",
    "version_checked": "backward engine",
}
LANE_ORDER = ("tensors", "dispatcher", "autograd graph", "backward engine")
_LANE_INDEX = {kind: LANE_ORDER.index(lane) for kind, lane in LANES.items()}
_TENSOR_KINDS = TensorState._HANDLERS.keys()
_GRAPH_KINDS = GraphState._HANDLERS.keys()


# --- which steps become frames ----------------------------------------------------------


def frame_steps(n_steps: int, max_frames: int = DEFAULT_MAX_FRAMES) -> list[int]:
    """The steps the page can show: all of ``0..n_steps``, or ``max_frames`` evenly spaced.

    Step 0 (before the first event) and the last step are always kept.
    """
    if max_frames < 2:
        raise ValueError(f"max_frames must be at least 2, got {max_frames}")
    if n_steps + 1 <= max_frames:
        return list(range(n_steps + 1))
    return sorted({round(i * n_steps / (max_frames - 1)) for i in range(max_frames)})


class _Table:
    """Distinct values in first-seen order; a frame stores an index, not a copy."""

    def __init__(self):
        self.values: list = []
        self._index: dict = {}

    def add(self, value, key=None) -> int:
        """The index of ``value`` (compared by ``key``, by default the value itself)."""
        key = value if key is None else key
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.values)
            self.values.append(value)
        return index


# --- the views, step by step -------------------------------------------------------------


class _Exporter:
    """Folds a recording once, step by step, and keeps each view's distinct renderings."""

    def __init__(self, named: RecordingNames):
        self.named = named
        # The user's names, and the named tensors made before the recording started
        # (their shapes and storages), as the Timeline's states have them.
        states = view_states(named)
        self.tensors, self.graph, self.dispatch = (states["tensors"], states["graph"],
                                                   states["dispatch"])  # fmt: skip
        self.strides, self.stride_names, self.dags = _Table(), _Table(), _Table()
        self.overlays, self.panels, self.calls, self.windows = (_Table(), _Table(), _Table(),
                                                                _Table())  # fmt: skip
        self.notices: list[str] = []
        self.frames: list[dict] = []
        self.rounds = Rounds()
        # Per round, its frames: (frame, nodes recorded by then, backward marks or None
        # when the graph did not change since the frame before).
        self._round_frames: list[tuple[dict, int, dict | None]] = []
        self._closed_calls: dict[int, int] = {}  # returned top-level call -> its fragment
        self._shown: list[int] = []  # the stride map's tensors, kept while a step names none
        self._dirty = {"stride": True, "trace": True, "graph": True}
        self._last: dict = {}

    # --- folding ----------------------------------------------------------------------

    def fold(self, d: dict, step: int) -> None:
        kind = d["kind"]
        ended = self.rounds.before(d, step)
        if ended is not None:
            self._end_round(ended)  # a new forward pass after a finished backward
        self.tensors.apply(d)
        self.dispatch.apply(d)
        self.graph.apply(d)
        if kind in _GRAPH_KINDS:
            self._dirty["graph"] = True
            self.rounds.after(d, self.graph, step)
        if kind in DispatchState.KINDS:
            self._dirty["trace"] = True
        if kind in _TENSOR_KINDS:
            self._dirty["stride"] = True

    # --- a frame --------------------------------------------------------------------------

    def frame(self, step: int, d: dict | None) -> None:
        event = events.event_from_dict(d, check=False) if d is not None else None
        frame = {
            "step": step,
            "lane": _LANE_INDEX.get(d["kind"], 0) if d is not None else -1,
            "description": describe_event(event, self.dispatch),
            "current": self.dispatch.last_call if event is not None else -1,
        }
        frame.update(self._stride(event))
        if self._dirty["trace"]:
            self._last["trace"] = self._trace()
        frame["trace"] = self._last["trace"]
        graph_changed = self._dirty["graph"]
        if graph_changed:
            panel = engine_panel(self.graph)
            self._last["panel"] = self.panels.add(panel, key=json.dumps(panel))
        frame["panel"] = self._last["panel"]
        frame["dag"], frame["overlay"] = -1, -1
        this = self.rounds.at(step)
        if this is not None:
            marks = self._marks(this) if graph_changed else None
            self._round_frames.append((frame, len(this.created), marks))
        self._dirty = {"stride": False, "trace": False, "graph": False}
        self.frames.append(frame)

    def _stride(self, event) -> dict:
        """The stride map's template (shared by every step showing the same geometry) and
        the names that fill its slots."""
        tensors = self.tensors
        ids = tensors_of_step(event, self.dispatch, tensors.tensors) if event is not None else []
        shown = ids or [t for t in self._shown if t in tensors.tensors]
        if shown == self._shown and not self._dirty["stride"] and "stride" in self._last:
            return self._last["stride"]
        self._shown = shown
        storages: dict = {}
        geometry = []
        for tensor_id in shown:
            record = tensors.tensor(tensor_id)
            slot = storages.setdefault(record["storage"], len(storages))
            geometry.append((slot, record["shape"], record["stride"], record["offset"],
                             record["dtype"], record["version"]))  # fmt: skip
        numels = tuple(tensors.storage_numel(key) for key in storages)
        key = (tuple(geometry), numels)
        index = self.strides._index.get(key)
        if index is None:
            index = self.strides.add(_stride_template(geometry, numels), key=key)
        names = [escape_html(self.named.tensor_name(t)) for t in shown]
        names += [f"storage #{key}" for key in storages]
        self._last["stride"] = {"stride": index,
                                "names": self.stride_names.add(names, key=tuple(names))}  # fmt: skip
        return self._last["stride"]

    def _trace(self) -> int:
        """The trace's window at this step: its notice and the fragments of its calls."""
        state = self.dispatch
        roots = state.roots[-TRACE_CALLS_SHOWN:]
        fragments = []
        for index in roots:
            fragment = self._closed_calls.get(index)
            if fragment is None:
                html = render_call_html(state, index)
                fragment = self.calls.add([html, render_call_text(state, index)], key=html)
                if state.calls[index].returned:  # never changes again
                    self._closed_calls[index] = fragment
            fragments.append(fragment)
        notice = tree_notice_html(len(state.roots) - len(roots), len(roots))
        return self.windows.add([notice, fragments], key=(notice, tuple(fragments)))

    def _marks(self, this: Round) -> dict:
        """The backward pass's marks on this round's nodes, in the state's own ids (none
        before the round's backward: the last round's marks are not this graph's)."""
        if not this.backward:
            return {"nodes": [], "edges": []}
        return backward_overlay(self.graph, {node: node for node in this.nodes})

    # --- rounds -------------------------------------------------------------------------

    def _end_round(self, this: Round | None) -> None:
        """Draw the round's graph once, in ids of its own, and point its frames at it."""
        frames, self._round_frames = self._round_frames, []
        if this is None:
            return
        graph = self.graph
        ids = dict.fromkeys(sorted(this.nodes))
        for node in list(ids):  # nodes pointed at but never seen: drawn as "?"
            record = graph.nodes.get(node)
            ids.update((n, None) for n, _ in (record["next"] if record else ()) if n)
        drawn = {node: number for number, node in enumerate(sorted(ids), 1)}
        drawing = _with_status_slots(graph_drawing(round_state(graph, ids, drawn)))
        dot = to_dot(drawing)
        dag = self.dags._index.get(dot)
        if dag is None:
            layout = render_svg(drawing)
            if layout.notice and layout.notice not in self.notices:
                self.notices.append(layout.notice)
            dag = self.dags.add(layout.svg, key=dot)
        marks = {"nodes": [], "edges": []}
        made: dict[tuple, int] = {}  # (marks, nodes recorded) -> overlay
        for frame, recorded, new_marks in frames:
            marks = new_marks or marks  # None: the graph did not change since the last frame
            overlay = made.get((id(marks), recorded))
            if overlay is None:
                moved = {
                    "hide": [drawn[n] for n in this.created[recorded:]],
                    "nodes": [[drawn[n], cls, lines] for n, cls, lines in marks["nodes"]],
                    "edges": [[drawn[n], p, text] for n, p, text in marks["edges"]],
                }
                overlay = self.overlays.add(moved, key=json.dumps(moved))
                made[(id(marks), recorded)] = overlay
            frame["dag"], frame["overlay"] = dag, overlay

    def finish(self) -> None:
        self._end_round(self.rounds.rounds[-1] if self.rounds.rounds else None)
        if len(self.rounds.rounds) > 1:
            self.notices.append(
                f"The recording built {len(self.rounds.rounds):,} backward graphs, one per round of forward "
                "and backward: each step shows the graph of its own round.")  # fmt: skip


# Room in a round's drawing for what backward writes into its nodes (the overlay's words):
# two lines under each node's label, blank (em spaces) until then. (Edge labels are
# placed by the page: graphviz writes nothing for a blank one.)
STATUS_SLOT = "\u2003" * 11


def _with_status_slots(drawing: Drawing) -> Drawing:
    """``drawing`` with the blank lines the page's overlay fills in."""
    nodes = tuple(
        dataclasses.replace(node, lines=(*node.lines, STATUS_SLOT, STATUS_SLOT))
        if "vg-grad-fn" in node.classes or "vg-accumulate" in node.classes else node
        for node in drawing.nodes
    )  # fmt: skip
    return dataclasses.replace(drawing, nodes=nodes)


def _stride_template(geometry: list, numels: tuple) -> dict:
    """A stride map's HTML with ``@@k@@`` slots for names (the views', then the storages'),
    and the geometry the page's hover reads."""
    views = [ViewGeometry(f"@@{i}@@", slot, tuple(shape), tuple(stride), offset, dtype, version)
             for i, (slot, shape, stride, offset, dtype, version) in enumerate(geometry)]  # fmt: skip
    dtypes = {}
    for slot, *_, dtype, _version in geometry:
        dtypes.setdefault(slot, dtype)
    storages = {slot: StorageInfo(f"@@{len(views) + slot}@@", numels[slot], dtypes[slot])
                for slot in range(len(numels))}  # fmt: skip
    data = stride_map_data(views, storages)
    return {
        "html": stride_map_html(data),
        "views": [
            {"storage": v["storage"], "offset": v["offset"], "stride": v["stride"]}
            for v in data["views"]
        ],  # fmt: skip
    }


# --- everything the page shows ------------------------------------------------------------


def export_data(recording, *, names=None, max_frames: int = DEFAULT_MAX_FRAMES) -> dict:
    """The page's data: frames (one per shown step) pointing into tables of distinct views.

    ``recording``: a ``Recording`` (``record()``), an ``events.Recorder`` or a list of
    events / event dicts. ``names``: ``{"w": w}``, the user's names for tensors of a
    recording (shown in the stride map and the DAG; read as everywhere, see
    ``widgets.names``), or the ``RecordingNames`` a Timeline already matched.
    """
    event_list = event_dicts_of(recording)
    if not isinstance(names, RecordingNames):
        names = RecordingNames.of(recording, names, event_list, "to_html()")
    exporter = _Exporter(names)
    steps = frame_steps(len(event_list), max_frames)
    exporter.frame(0, None)
    at = 1
    for step, d in enumerate(event_list, 1):
        if not isinstance(d, dict):
            d = d.to_dict()
        exporter.fold(d, step)
        if at < len(steps) and steps[at] == step:
            exporter.frame(step, d)
            at += 1
    exporter.finish()
    notices = exporter.notices
    if len(steps) < len(event_list) + 1:
        notices.append(f"This page shows {len(steps):,} of the recording's "
                       f"{len(event_list) + 1:,} steps, evenly spaced.")  # fmt: skip
    dropped = getattr(recording, "dropped", 0)
    if dropped:
        notices.insert(0, getattr(recording, "notice", "")
                       or f"The recording dropped its {dropped:,} oldest events.")  # fmt: skip
    return {
        "format": EXPORT_FORMAT_VERSION,
        "n_steps": len(event_list),
        "notices": notices,
        "lanes": list(LANE_ORDER),
        "frames": exporter.frames,
        "stride_maps": exporter.strides.values,
        "stride_names": exporter.stride_names.values,
        "dags": exporter.dags.values,
        "overlays": exporter.overlays.values,
        "panels": exporter.panels.values,
        "calls": exporter.calls.values,
        "traces": exporter.windows.values,
    }


def _recording_data(recording) -> dict | None:
    """The events as ``Recorder.to_json`` writes them, or None when too many to embed."""
    event_list = event_dicts_of(recording)
    if len(event_list) > MAX_EMBEDDED_EVENTS:
        return None
    return {"schema_version": events.SCHEMA_VERSION,
            "dropped": getattr(recording, "dropped", 0),
            "events": [d if isinstance(d, dict) else d.to_dict() for d in event_list]}  # fmt: skip


# --- the page ------------------------------------------------------------------------------


def _packed(data) -> str:
    """JSON, zlib-compressed, base64: text for a script element (``DecompressionStream("deflate")``)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return base64.b64encode(zlib.compress(text.encode("utf-8"), COMPRESSION_LEVEL)).decode("ascii")


def _unpacked(text: str):
    return json.loads(zlib.decompress(base64.b64decode(text)).decode("utf-8"))


_SCRIPT = re.compile(r'<script type="application/octet-stream" id="([\w-]+)">([^<]*)</script>')


def read_page(text: str) -> tuple[dict, dict | None]:
    """``(data, recording)`` from an exported page's text: ``export_data``'s dict, and the
    recording as ``Recorder.to_json`` writes it (None if the page kept the views only)."""
    blocks = {element_id: body.strip() for element_id, body in _SCRIPT.findall(text)}
    missing = {"vg-export-data", "vg-recording"} - blocks.keys()
    if missing:
        raise ValueError(f"not an exported vizgrad page: no {', '.join(sorted(missing))} element")
    recording = blocks["vg-recording"]
    return _unpacked(blocks["vg-export-data"]), (_unpacked(recording) if recording else None)


def _static(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def _widget_css() -> str:
    """The widgets' own stylesheets (the files the widgets load), so the page looks like
    the notebook."""
    css = [_css_of(widget) for widget in (StrideMap, GraphView, DispatchTrace, Scrubber)]
    return "\n".join([*css, _static("dag-overlay.css")])


def _css_of(widget) -> str:
    """A widget's stylesheet, whether a class attribute or a traitlet's default."""
    trait = widget.class_traits().get("_css")
    return trait.default_value if trait is not None else str(widget._css)


def page_html(data: dict, recording_data: dict | None, title: str) -> str:
    """The whole page: styles, the compressed data, the player."""
    player = _static("dag.js") + _static("export.js")
    return _PAGE.format(
        title=escape_html(title),
        widget_css=_widget_css(),
        page_css=_static("export.css"),
        data=_packed(data),
        recording="" if recording_data is None else _packed(recording_data),
        player_js=player.replace("</script", "<\\/script"),
    )


def export_html(
    recording,
    path,
    *,
    names=None,
    title: str = "vizgrad recording",
    max_frames: int = DEFAULT_MAX_FRAMES,
) -> Path:
    """Write ``recording`` as one self-contained HTML page that replays it; returns the path.

    ``names``: ``{"w": w}``, the user's names for recorded tensors (stride maps and DAG);
    ``title``: the page's title and heading; ``max_frames``: at most this many steps
    become frames (evenly spaced, first and last kept). ``Recording.to_html`` forwards
    all three.
    """
    data = export_data(recording, names=names, max_frames=max_frames)
    recording_data = _recording_data(recording)
    if recording_data is None:
        data["notices"].append(
            f"The page keeps the views of the recording's {data['n_steps']:,} events, not "
            f"the events themselves (more than {MAX_EMBEDDED_EVENTS:,}).")  # fmt: skip
    path = Path(path)
    path.write_text(page_html(data, recording_data, title), encoding="utf-8")
    return path


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
{widget_css}
{page_css}
</style>
</head>
<body>
<div class="vg-export">
<h1 class="vg-export-title">{title}</h1>
<div class="vg-export-notice"></div>
<div class="vg-scrubber">
<button type="button" class="vg-play">▶ play</button>
<button type="button" class="vg-step-back" title="step back">◀</button>
<button type="button" class="vg-step-forward" title="step forward">▶</button>
<input type="range" min="0" max="0" value="0" step="1" aria-label="step">
<span class="vg-step-label">loading…</span>
</div>
<div class="vg-step-description" data-step=""></div>
<div class="vg-overview"><canvas width="900" height="64"></canvas><div class="vg-overview-marker"></div></div>
<div class="vg-export-views">
<section class="vg-export-panel"><h2>stride map</h2><div class="vg-stride-host"></div>
<div class="vg-stride-map"><div class="vg-arithmetic"></div></div></section>
<section class="vg-export-panel vg-dag"><h2>backward graph</h2>
<div class="vg-dag-body"><div class="vg-dag-canvas"></div><div class="vg-dag-panel"></div></div>
</section>
</div>
<section class="vg-export-panel vg-dispatch-trace"><h2>dispatch trace</h2>
<div class="vg-trace-bar"><button type="button" class="vg-trace-toggle">show text (dispatch_trace)</button></div>
<div class="vg-trace-body"></div></section>
</div>
<script type="application/octet-stream" id="vg-export-data">{data}</script>
<script type="application/octet-stream" id="vg-recording">{recording}</script>
<script>
{player_js}
</script>
</body>
</html>
"""

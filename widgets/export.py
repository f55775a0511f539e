"""``rec.to_html(path)``: a recording replayed in one self-contained HTML page.

::

    with record() as rec:
        loss = (w * x).sum()
        loss.backward()
    rec.to_html("lesson.html", names={"w": w, "x": x})

The page needs no kernel and no network: it is one file, for slides and course pages.
It holds

* plotly.js, embedded from the installed ``plotly`` package, drawing an overview of
  the recording (one lane per kind of event; click a point to go to its step);
* the *views at every step*, computed here by the same pure layers the widgets use
  (``widgets.render``) from the same replay as the ``Timeline`` (``timeline.Replay``):
  the stride map as an HTML fragment, the backward DAG as SVG (graphviz's ``dot``
  runs now, at export time, so the page needs no JavaScript graphviz; without ``dot``
  the built-in layout draws it), the dispatch trace as an HTML tree and as text;
  identical fragments are stored once and frames point at them by index;
* the recording itself (``Recorder.to_dicts()``: ids renumbered from 1), so the page
  is also a copy of the data: ``Recording.from_json`` reads it back;
* a small player: the Timeline's scrubber (play, pause, step back and forward, a
  slider) that shows every view at the chosen step.

Escaping: everything that came from the user (tensor names, op and hook names,
reprs) is HTML-escaped by the render layers, and all data sits in
``<script type="application/json">`` elements written by ``json_for_script`` (no
``<`` survives inside), so a name like ``<img src=x onerror=alert(1)>`` shows as
text. The player inserts only those pre-escaped fragments as HTML; words it builds
itself are set as text.

Long recordings: at most ``max_frames`` steps become frames (evenly spaced, the first
and last always included; the page says so), and the recording's events are embedded
only up to ``MAX_EMBEDDED_EVENTS``.

Selectors (the browser tests use them): ``.vg-export`` (the page's root),
``.vg-scrubber input[type=range]`` (the slider: one position per frame),
``.vg-play``, ``.vg-step-back``, ``.vg-step-forward``, ``.vg-step-description``
(``data-step``: the step shown), ``.vg-export-notice``, ``.vg-overview`` (the plotly
chart), ``.vg-stride-map`` with ``.vg-stride-cell`` / ``.vg-storage-cell`` /
``.vg-lit`` / ``.vg-arithmetic``, ``.vg-dag-canvas svg g.node`` (``vg-running`` is the
node running now), ``.vg-dag-panel``, ``.vg-dispatch-trace`` with
``li.vg-trace-call`` (``.vg-trace-current``), ``button.vg-trace-toggle`` and
``pre.vg-trace-text``. Script elements: ``#vg-export-data`` (the frames and their
tables) and ``#vg-recording`` (the events).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from vizgrad import events

from .graph_view import GraphView, engine_panel
from .names import RecordingNames
from .render.dag_dot import graph_drawing
from .render.dag_layout import render_svg
from .render.dispatch_tree import render_text, render_tree_html
from .render.escape import escape_html, json_for_script
from .render.stride_map import StorageInfo, ViewGeometry, stride_map_data, stride_map_html
from .stride_map import StrideMap
from .timeline import Replay, describe_event, event_dicts_of, tensors_of_step, view_states

__all__ = [
    "DEFAULT_MAX_FRAMES",
    "MAX_EMBEDDED_EVENTS",
    "EXPORT_FORMAT_VERSION",
    "export_data",
    "export_html",
    "frame_steps",
    "overview_figure",
    "page_html",
]

EXPORT_FORMAT_VERSION = 1
# Frames of the page's scrubber: each holds (indices of) the three views at one step.
DEFAULT_MAX_FRAMES = 1000
# Beyond this many events the page keeps the views only, not the raw events.
MAX_EMBEDDED_EVENTS = 100_000
# The dispatch trace of a frame shows this many of the most recent top-level calls: each
# frame stores its own tree, so the window bounds the page's size (the widget shows 200).
TRACE_CALLS_SHOWN = 12

# The overview's lanes: which kind of event belongs to which part of the engine.
LANES = {
    "storage_created": "tensors",
    "tensor_created": "tensors",
    "view_created": "tensors",
    "inplace_write": "tensors",
    "op_dispatched": "dispatcher",
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
LANE_COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00")


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
        self._index: dict[str, int] = {}

    def add(self, value) -> int:
        key = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.values)
            self.values.append(value)
        return index


# --- the views at one step --------------------------------------------------------------


def _stride_view(tensor_state, tensor_ids: list[int], names: RecordingNames) -> dict:
    """The stride map of ``tensor_ids`` at this step: HTML plus the geometry hovering needs."""
    views, storages = [], {}
    for tensor_id in tensor_ids:
        record = tensor_state.tensor(tensor_id)
        key = record["storage"]
        name = names.tensor_name(tensor_id)
        views.append(ViewGeometry(name, key, tuple(record["shape"]), tuple(record["stride"]),
                                  record["offset"], record["dtype"], record["version"]))  # fmt: skip
        if key not in storages:
            storages[key] = StorageInfo(
                f"storage #{key}", tensor_state.storage_numel(key), record["dtype"]
            )
    data = stride_map_data(views, storages)
    return {
        "html": stride_map_html(data),
        # For the page's hover: which strip a view reads, and its arithmetic.
        "views": [
            {"storage": v["storage"], "offset": v["offset"], "stride": v["stride"]}
            for v in data["views"]
        ],
    }


def _dag_view(graph_state) -> tuple[str, str]:
    """The DAG as SVG (graphviz now, or the built-in layout) and the layout's notice."""
    layout = render_svg(graph_drawing(graph_state))
    return layout.svg, layout.notice


def _trace_view(dispatch_state, current: int) -> list[str]:
    """The dispatch trace: the HTML tree (current call highlighted) and the text view."""
    tree = render_tree_html(dispatch_state, max_calls=TRACE_CALLS_SHOWN, current=current)
    return [tree, render_text(dispatch_state, max_calls=TRACE_CALLS_SHOWN)]


def _lane(event) -> str:
    return LANES.get(event.kind, "tensors") if event is not None else ""


# --- everything the page shows ------------------------------------------------------------


def export_data(recording, *, names=None, max_frames: int = DEFAULT_MAX_FRAMES) -> dict:
    """The page's data: frames (one per shown step) pointing into tables of distinct views.

    ``recording``: a ``Recording`` (``record()``), an ``events.Recorder`` or a list of
    events / event dicts. ``names``: ``{"w": w}``, the user's names for tensors of a
    recording (shown in the stride map and the DAG; read as everywhere, see
    ``widgets.names``).
    """
    event_list = event_dicts_of(recording)
    named = RecordingNames.of(recording, names, event_list, "to_html()")
    replay = Replay(event_list, make_states=functools.partial(view_states, named))
    strides, dags, panels, traces = _Table(), _Table(), _Table(), _Table()
    notices: list[str] = []
    frames = []
    shown: list[int] = []  # the stride map's tensors, kept while a step concerns none
    for step in frame_steps(replay.n_steps, max_frames):
        states = replay.states_at(step)
        event = replay.event_at(step)
        dispatch, tensors = states["dispatch"], states["tensors"]
        ids = tensors_of_step(event, dispatch, tensors.tensors) if event is not None else []
        shown = ids or [t for t in shown if t in tensors.tensors]
        svg, notice = _dag_view(states["graph"])
        if notice and notice not in notices:
            notices.append(notice)
        current = dispatch.last_call if event is not None else -1
        frames.append({
            "step": step,
            "lane": _lane(event),
            "description": describe_event(event, dispatch),
            "stride": strides.add(_stride_view(tensors, shown, named)),
            "dag": dags.add(svg),
            "panel": panels.add(engine_panel(states["graph"])),
            "trace": traces.add(_trace_view(dispatch, current)),
        })  # fmt: skip
    if len(frames) < replay.n_steps + 1:
        notices.append(f"This page shows {len(frames):,} of the recording's "
                       f"{replay.n_steps + 1:,} steps, evenly spaced.")  # fmt: skip
    dropped = getattr(recording, "dropped", 0)
    if dropped:
        notices.insert(0, getattr(recording, "notice", "")
                       or f"The recording dropped its {dropped:,} oldest events.")  # fmt: skip
    return {
        "format": EXPORT_FORMAT_VERSION,
        "n_steps": replay.n_steps,
        "notices": notices,
        "frames": frames,
        "stride_maps": strides.values,
        "dags": dags.values,
        "panels": panels.values,
        "traces": traces.values,
        "overview": overview_figure(frames),
    }


def overview_figure(frames: list[dict]) -> dict:
    """A plotly figure (plain dict): one lane per part of the engine, a point per step.

    Hover text is HTML-escaped (plotly reads a subset of HTML in it); ``customdata``
    is the frame index the page jumps to when a point is clicked.
    """
    traces = []
    for lane, color in zip(LANE_ORDER, LANE_COLORS, strict=True):
        picked = [(i, f) for i, f in enumerate(frames) if f["lane"] == lane]
        traces.append({
            "type": "scatter",
            "mode": "markers",
            "name": lane,
            "x": [f["step"] for _, f in picked],
            "y": [lane] * len(picked),
            "customdata": [i for i, _ in picked],
            "hovertext": [f"step {f['step']}: {escape_html(f['description'])}" for _, f in picked],
            "hoverinfo": "text",
            "marker": {"color": color, "size": 7, "symbol": "line-ns-open", "line": {"width": 2}},
        })  # fmt: skip
    last = frames[-1]["step"] if frames else 0
    return {
        "data": traces,
        "layout": {
            "height": 170,
            "margin": {"l": 110, "r": 10, "t": 10, "b": 30},
            "showlegend": False,
            "xaxis": {"title": {"text": "step"}, "range": [-0.5, last + 0.5], "zeroline": False},
            "yaxis": {
                "categoryorder": "array",
                "categoryarray": list(reversed(LANE_ORDER)),
                "range": [-0.5, len(LANE_ORDER) - 0.5],
            },  # fmt: skip
            "shapes": [
                {
                    "type": "line",
                    "xref": "x",
                    "yref": "paper",
                    "x0": last,
                    "x1": last,
                    "y0": 0,
                    "y1": 1,
                    "line": {"color": "#d00", "width": 2},
                }
            ],  # fmt: skip
        },
    }


def _recording_data(recording) -> dict | None:
    """The events as ``Recording.to_json`` writes them, or None when too many to embed."""
    if isinstance(recording, events.Recorder):
        if len(recording) > MAX_EMBEDDED_EVENTS:
            return None
        return json.loads(recording.to_json())
    event_list = event_dicts_of(recording)
    if len(event_list) > MAX_EMBEDDED_EVENTS:
        return None
    return {"schema_version": events.SCHEMA_VERSION, "dropped": 0,
            "events": [e.to_dict() for e in event_list]}  # fmt: skip


# --- the page ------------------------------------------------------------------------------


def _widget_css() -> str:
    """The widgets' own stylesheets, so the page looks like the notebook."""
    from .dispatch_trace import DispatchTrace

    trace_css = DispatchTrace.class_traits()["_css"].default_value
    return "\n".join((StrideMap._css, GraphView._css, trace_css))


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    # Inside <script>, "</script" would end the element early; "<\/" is the same to JS.
    return get_plotlyjs().replace("</script", "<\\/script")


def page_html(data: dict, recording_data: dict | None, title: str) -> str:
    """The whole page: styles, plotly.js, the data as JSON, the player."""
    recording_json = json_for_script(recording_data) if recording_data is not None else "null"
    return _PAGE.format(
        title=escape_html(title),
        widget_css=_widget_css(),
        page_css=_PAGE_CSS,
        plotly_js=_plotly_js(),
        data_json=json_for_script(data),
        recording_json=recording_json,
        player_js=_PLAYER_JS,
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
    path = Path(path)
    path.write_text(page_html(data, _recording_data(recording), title), encoding="utf-8")
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
<script>
{plotly_js}
</script>
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
<span class="vg-step-label"></span>
</div>
<div class="vg-step-description" data-step="0"></div>
<div class="vg-overview"></div>
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
<script type="application/json" id="vg-export-data">{data_json}</script>
<script type="application/json" id="vg-recording">{recording_json}</script>
<script>
{player_js}
</script>
</body>
</html>
"""

_PAGE_CSS = """
body { font: 13px/1.4 system-ui, sans-serif; margin: 12px 18px; color: #222; }
.vg-export-title { font-size: 18px; margin: 0 0 6px 0; }
.vg-export h2 { font-size: 13px; margin: 0 0 4px 0; color: #555; }
.vg-export-notice { background: #fef3c7; border: 1px solid #f59e0b; padding: 4px 8px;
                    border-radius: 4px; margin-bottom: 6px; }
.vg-export-notice:empty { display: none; }
.vg-scrubber { display: flex; gap: 6px; align-items: center; }
.vg-scrubber input[type=range] { width: 420px; }
.vg-step-description { font-family: ui-monospace, monospace; margin: 4px 0; min-height: 1.4em; }
.vg-export-views { display: flex; gap: 18px; align-items: flex-start; flex-wrap: wrap; }
.vg-export-panel { border-top: 1px solid #ddd; padding-top: 6px; margin-top: 6px; }
.vg-export-views > .vg-export-panel { flex: 1 1 420px; min-width: 0; }
"""

# The player. It only ever inserts HTML that Python rendered and escaped (the tables);
# everything it writes itself goes in as text.
_PLAYER_JS = r"""
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("vg-export-data").textContent);
  const root = document.querySelector(".vg-export");
  const $ = (selector) => root.querySelector(selector);
  const slider = $(".vg-scrubber input[type=range]");
  const play = $(".vg-play");
  const label = $(".vg-step-label");
  const description = $(".vg-step-description");
  const strideHost = $(".vg-stride-host");
  const arithmetic = $(".vg-arithmetic");
  const canvas = $(".vg-dag-canvas");
  const panel = $(".vg-dag-panel");
  const traceBody = $(".vg-trace-body");
  const traceToggle = $(".vg-trace-toggle");
  const overview = $(".vg-overview");
  const last = data.frames.length - 1;
  let frameIndex = -1;
  let shown = { stride: -1, dag: -1, panel: -1, trace: -1 };
  let traceAsText = false;
  let timer = null;

  $(".vg-export-notice").textContent = data.notices.join(" ");
  slider.max = String(last);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function drawPanel(p) {
    panel.replaceChildren(el("div", "vg-dag-phase", p.phase || ""));
    if (p.phase && !p.phase.startsWith("forward")) {
      panel.append(el("div", "vg-dag-running", "running: " + (p.running || "—")));
      panel.append(el("div", "vg-dag-heading", "ready queue (next first)"));
      const queue = el("ol", "vg-dag-queue");
      for (const q of p.queue || []) queue.append(el("li", "", q));
      panel.append(queue);
      panel.append(el("div", "vg-dag-heading", "dependencies"));
      const deps = el("ul", "vg-dag-deps");
      for (const [name, count] of p.dependencies || []) deps.append(el("li", "", name + ": " + count));
      panel.append(deps);
    }
    panel.append(el("div", "vg-dag-last", p.last_step || ""));
  }

  function drawTrace(frame) {
    const [tree, text] = data.traces[frame.trace];
    if (traceAsText) {
      traceBody.replaceChildren(el("pre", "vg-trace-text", text));
    } else {
      traceBody.innerHTML = tree;  // rendered and escaped by Python
      const current = traceBody.querySelector(".vg-trace-current");
      if (current) current.scrollIntoView({ block: "nearest" });
    }
    traceToggle.textContent = traceAsText ? "show tree" : "show text (dispatch_trace)";
  }

  function show(index) {
    index = Math.max(0, Math.min(last, index));
    if (index === frameIndex) return;
    frameIndex = index;
    const frame = data.frames[index];
    slider.value = String(index);
    label.textContent = "step " + frame.step + " / " + data.n_steps;
    description.dataset.step = String(frame.step);
    description.textContent = "step " + frame.step + ": " + frame.description;
    if (shown.stride !== frame.stride) {
      strideHost.innerHTML = data.stride_maps[frame.stride].html;  // escaped by Python
      arithmetic.textContent = "";
      shown.stride = frame.stride;
    }
    if (shown.dag !== frame.dag) {
      canvas.innerHTML = data.dags[frame.dag];  // SVG from graphviz or vizgrad: escaped
      shown.dag = frame.dag;
    }
    if (shown.panel !== frame.panel) {
      drawPanel(data.panels[frame.panel]);
      shown.panel = frame.panel;
    }
    if (shown.trace !== frame.trace) {
      drawTrace(frame);
      shown.trace = frame.trace;
    }
    if (window.Plotly && overview.data) {
      window.Plotly.relayout(overview, { "shapes[0].x0": frame.step, "shapes[0].x1": frame.step });
    }
  }

  function stop() {
    if (timer) { clearInterval(timer); timer = null; }
    play.textContent = "▶ play";
  }

  play.addEventListener("click", () => {
    if (timer) { stop(); return; }
    if (frameIndex >= last) show(0);
    play.textContent = "❚❚ pause";
    timer = setInterval(() => {
      if (frameIndex >= last) { stop(); return; }
      show(frameIndex + 1);
    }, 400);
  });
  $(".vg-step-back").addEventListener("click", () => { stop(); show(frameIndex - 1); });
  $(".vg-step-forward").addEventListener("click", () => { stop(); show(frameIndex + 1); });
  slider.addEventListener("input", () => show(Number(slider.value)));
  slider.addEventListener("change", () => show(Number(slider.value)));
  traceToggle.addEventListener("click", () => {
    traceAsText = !traceAsText;
    drawTrace(data.frames[frameIndex]);
  });

  // Hovering an element lights the storage cell it reads, with the arithmetic.
  strideHost.addEventListener("mouseover", (event) => {
    const cell = event.target.closest(".vg-stride-cell");
    for (const lit of strideHost.querySelectorAll(".vg-lit")) lit.classList.remove("vg-lit");
    if (!cell) return;
    const viewNumber = Number(cell.dataset.view);
    const view = data.stride_maps[shown.stride].views[viewNumber];
    const index = cell.dataset.index ? cell.dataset.index.split(",").map(Number) : [];
    const position = cell.dataset.pos;
    cell.classList.add("vg-lit");
    const strip = strideHost.querySelectorAll(".vg-storage-strip")[view.storage];
    if (strip) {
      for (const s of strip.querySelectorAll(".vg-storage-cell")) {
        if (s.dataset.pos === position) s.classList.add("vg-lit");
      }
    }
    const terms = index.map((i, d) => i + "·" + view.stride[d]);
    arithmetic.textContent = [String(view.offset), ...terms].join(" + ") + " = " + position;
  });

  if (window.Plotly) {
    window.Plotly.newPlot(overview, data.overview.data, data.overview.layout,
                          { displaylogo: false, responsive: true, staticPlot: false });
    overview.on("plotly_click", (event) => {
      const point = event.points && event.points[0];
      if (point && point.customdata !== undefined) { stop(); show(Number(point.customdata)); }
    });
  }
  show(last);
})();
"""

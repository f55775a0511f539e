"""``vizgrad.widgets.Timeline``: one scrubber driving every view through a recording.

::

    with record() as rec:
        y = (x * w).sum()
        y.backward()
    Timeline(rec)        # or rec.show()

Step ``k`` of the scrubber is the moment after the recording's first ``k`` events
(step 0: before the first). At every step the three views — the stride maps
(``StrideMap``), the backward DAG (``GraphView``) and the dispatch trace
(``DispatchTrace``) — show their state *at that moment*, and the step's event is said
in words ("aten::mul.Tensor → CPU kernel float32 [2, 3]").

**Replay.** Each view has a *state* that folds events (``apply``) and can be copied
(``copy``). ``Replay`` folds the recording once, keeping a snapshot of every state
every ``snapshot_every`` events; the state at step ``k`` is the snapshot at or before
``k``, copied, with at most ``snapshot_every - 1`` events folded on top — or, when
stepping forward, the current states with the few events in between. So a step never
re-folds the whole recording, however long (the same idea as a video's keyframes).
The states' tables share their chunks with the snapshots (``state.persistent``), so
the snapshots of a recording cost memory in proportion to its length.

**Rounds.** A training loop builds one graph per iteration; the DAG shows the graph
of the step's *round* (``state.rounds``: the nodes recorded since the last finished
backward pass, and the older nodes they reach), as an exported page does.

Selectors for the browser tests: ``.vg-timeline`` (the whole widget),
``.vg-scrubber`` (the ``Scrubber`` anywidget: ``.vg-scrubber input[type=range]`` is
the slider, ``button.vg-play`` play/pause, ``button.vg-step-back`` /
``button.vg-step-forward`` the step buttons, ``.vg-scrubber-label`` "step k / n",
``.vg-scrubber .vg-error`` why the last step could not be shown),
``.vg-step-description`` (the step's event in words, in a
``.vg-step-description-text[data-step]``), ``.vg-timeline-notice`` (dropped
events), ``.vg-timeline-views`` (the three views).

**Layout.** The views sit in a grid (``.vg-timeline-views``): the stride map and the
DAG side by side when the notebook is wide enough to give each ``VIEW_MIN_WIDTH``,
stacked otherwise, and the dispatch trace across the whole width below them; the DAG
keeps at least ``DAG_MIN_WIDTH`` beside its side panel (the panel moves below it
first) and its SVG scales down to the width it has.
"""

from __future__ import annotations

import functools
from html import escape

import ipywidgets as widgets
import traitlets

from vizgrad import events

from .browser import BrowserView, front_end, stylesheet
from .dispatch_trace import DispatchTrace
from .graph_view import GraphView
from .names import RecordingNames
from .render.dispatch_tree import call_outputs
from .state.dispatch import AUTOGRAD_KEY, INPLACE_OR_VIEW_KEY, DispatchState
from .state.graph import GraphState
from .state.rounds import Rounds, round_state
from .state.tensors import TensorState
from .stride_map import StrideMap

__all__ = ["DEFAULT_SNAPSHOT_EVERY", "MAX_SHOWN_EVENTS", "Replay", "Scrubber", "Timeline", "compact_event",
           "describe_event", "event_dicts_of", "view_states"]  # fmt: skip

# The longest recording a Timeline or an exported page replays: the Recorder's own bound
# (opening one took 75 s and 1.1 GB on a loaded 2-core machine). Longer ones (loaded from a file) are refused at
# once with their size rather than folded for minutes.
MAX_SHOWN_EVENTS = 1_000_000

# Events folded at most per scrubber step: small enough for a step well under 50 ms,
# large enough that snapshots of a 10^6-event recording stay few (2000).
DEFAULT_SNAPSHOT_EVERY = 500

# Top-level calls the timeline's dispatch trace draws: the most recent ones at the step.
TRACE_WINDOW = 50

# How many tensors the stride map shows at once: the step's call's inputs and outputs.
MAX_TENSORS_SHOWN = 4


def view_states(names: RecordingNames | None = None) -> dict:
    """A fresh state per view, by name: what a Timeline folds the events into.

    ``names`` (the user's names in the recording's ids) name tensors in the DAG, and
    describe the named tensors made before the recording started: their geometry to the
    stride maps, their shape to the DAG (otherwise "(shape unknown)").
    """
    states = {"tensors": TensorState(), "graph": GraphState(), "dispatch": DispatchState()}
    if names is not None:
        for made in names.described:
            states["tensors"].apply(made)
            if made["kind"] == "tensor_created":
                states["graph"].describe_tensor(made["tensor"], made["shape"], made["dtype"])
        for tensor_id, name in names.by_id.items():
            states["graph"].name_tensor(tensor_id, name)
    return states


def compact_event(event) -> dict:
    """An event as a replay keeps it: a dict of atoms, tuples of atoms and dicts of ints.

    ``event`` is an ``Event`` or its dict (``to_dicts()``, JSON: sequences as lists).
    The record has the same keys and values, sequences as tuples; it holds no list and
    no cycle, so CPython's cyclic garbage collector stops tracking it (and its tuples)
    after a full pass: a long recording costs the collector little to keep. (CPython
    never untracks a dict that holds a dict: the ``dependencies`` tables of
    ``BackwardStarted``/``ReadyQueueChanged`` keep their event tracked.) A dict that is
    already compact is returned as it is.
    """
    d = event if isinstance(event, dict) else event.to_dict()
    for v in d.values():
        if _has_list(v):
            return compact_in_place(dict(d))
    return d


def compact_in_place(d: dict) -> dict:
    """``compact_event`` for a dict nobody else holds: its lists become tuples."""
    for k, v in d.items():
        if _has_list(v):
            d[k] = _frozen(v)
    return d


def _has_list(value) -> bool:
    if isinstance(value, dict):
        return any(isinstance(v, list | dict) for v in value.values())
    return isinstance(value, list)


def _frozen(value):
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):  # BackwardStarted/ReadyQueueChanged's dependencies
        return {k: _frozen(v) for k, v in value.items()}
    return value


class Replay:
    """Every view's state at any step of a list of events, from periodic snapshots.

    Events are kept as compact dicts (``compact_event``): every state folds them, no
    event is converted again at each step, and the garbage collector need not scan
    them. Snapshots share what never changes (closed calls, tensor records), so a
    snapshot costs a few table copies.
    """

    def __init__(self, event_list, make_states=view_states, snapshot_every=DEFAULT_SNAPSHOT_EVERY):
        if snapshot_every < 1:
            raise ValueError(f"snapshot_every must be at least 1, got {snapshot_every}")
        self.events = [compact_event(e) for e in event_list]
        self.snapshot_every = snapshot_every
        self._snapshots: list[dict] = []  # _snapshots[j]: the states after j * N events
        # The recording's graphs, one per forward-and-backward: the DAG shows the step's.
        self.rounds = Rounds()
        states = make_states()
        graph = states.get("graph")
        for k, event in enumerate(self.events):
            if k % snapshot_every == 0:
                self._snapshots.append(_copy_states(states))
            self.rounds.before(event, k + 1)
            _apply(states, event)
            if graph is not None:
                self.rounds.after(event, graph, k + 1)
        if len(self.events) % snapshot_every == 0:
            self._snapshots.append(_copy_states(states))
        self._step = len(self.events)  # ``states`` is the state at the last step
        self._states = states

    @property
    def n_steps(self) -> int:
        """The last step: after every event."""
        return len(self.events)

    @property
    def step(self) -> int:
        return self._step

    def event_at(self, step: int) -> events.Event | None:
        """The event step ``step`` has just folded (None at step 0)."""
        return events.event_from_dict(self.events[step - 1], check=False) if step > 0 else None

    def states_at(self, step: int) -> dict:
        """The states after the first ``step`` events (shared with the replay: read only)."""
        step = min(max(step, 0), self.n_steps)
        keyframe = step // self.snapshot_every
        from_keyframe = step - keyframe * self.snapshot_every
        if not (self._step <= step and step - self._step <= from_keyframe):
            # Going back, or jumping far ahead: start over from the nearest snapshot.
            self._states = _copy_states(self._snapshots[keyframe])
            self._step = keyframe * self.snapshot_every
        for event in self.events[self._step : step]:
            _apply(self._states, event)
        self._step = step
        return self._states


def kinds_folded_by(state) -> frozenset | None:
    """The event kinds that can change ``state`` (None: unknown, assume every kind)."""
    kinds = getattr(state, "KINDS", None) or getattr(state, "_HANDLERS", None)
    if kinds and all(isinstance(kind, str) for kind in kinds):
        return frozenset(kinds)
    return None


def _copy_states(states: dict) -> dict:
    return {name: state.copy() for name, state in states.items()}


def _apply(states: dict, event) -> None:
    for state in states.values():
        state.apply(event)


# --- the step's event, in words -----------------------------------------------------------


def _dims(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _ids(ids) -> str:
    return ", ".join(f"#{i}" for i in ids)


def _backend_of(call) -> str:
    keys = [k for k in call.keys if k not in (AUTOGRAD_KEY, INPLACE_OR_VIEW_KEY)]
    return keys[-1] if keys else "CPU"


def _in_module(module) -> str:
    """`` in Linear (0)`` for an event recorded in a module's forward, else ``""``."""
    if not module:
        return ""
    name, type_name = module[-1]
    return f" in {type_name} ({name})" if name else f" in {type_name}"


def describe_event(event, dispatch: DispatchState | None = None) -> str:
    """One plain sentence for one event (``dispatch``: the state after folding it)."""
    if event is None:
        return "start: no event yet"
    call = dispatch.current_call() if dispatch is not None else None
    e = event
    if isinstance(e, events.OpDispatched):
        if e.action == "call":
            where = "nested call" if e.depth else "call"
            return (f"{e.op} ({e.variant}): {where}{_in_module(e.module)} enters the "
                    f"dispatcher at {e.key}")  # fmt: skip
        return f"{e.op} → {e.key}"
    if isinstance(e, events.OpReturned):
        if e.error:
            return f"{e.op} raised {e.error}: the call ends without a result"
        return f"{e.op} returned"
    if isinstance(e, events.KernelChosen):
        op = call.op if call is not None else e.op
        backend = _backend_of(call) if call is not None else "CPU"
        return (f"{op} → {backend} kernel {e.dtype} {_dims(e.shape)} ({e.reason}); output "
                f"#{e.output} strides {_dims(e.output_stride)}")  # fmt: skip
    if isinstance(e, events.ViewCreated):
        return (f"{e.op}: tensor #{e.tensor} is a view of #{e.base} — size {_dims(e.shape)}, "
                f"stride {_dims(e.stride)}, offset {e.offset}")  # fmt: skip
    if isinstance(e, events.InplaceWrite):
        return f"{e.op} wrote tensor #{e.tensor} in place: its version is now {e.version}"
    if isinstance(e, events.TensorCreated):
        return (f"tensor #{e.tensor} created: {e.dtype}, size {_dims(e.shape)}, stride "
                f"{_dims(e.stride)}, offset {e.offset}, on storage #{e.storage}")  # fmt: skip
    if isinstance(e, events.StorageCreated):
        return f"storage #{e.storage} allocated: {e.numel} × {e.dtype}"
    if isinstance(e, events.NodeCreated):
        if e.variable:
            parameter = f" (parameter {e.parameter})" if e.parameter else ""
            return (f"autograd: {e.name} (node #{e.node}) created for leaf tensor "
                    f"#{e.variable}{parameter}")  # fmt: skip
        saved = f", saving {_ids(e.saved)}" if e.saved else ""
        return (f"autograd recorded {e.name} (node #{e.node}) for {_ids(e.outputs)}{saved}"
                f"{_in_module(e.module)}")  # fmt: skip
    if isinstance(e, events.BackwardStarted):
        return (f"backward() starts at node {_ids(e.roots)}: dependencies counted for "
                f"{len(e.dependencies)} nodes")  # fmt: skip
    if isinstance(e, events.ReadyQueueChanged):
        return f"ready queue: {_ids(e.queue) or 'empty'}"
    if isinstance(e, events.NodeStarted):
        return f"engine runs {e.name} (node #{e.node})"
    if isinstance(e, events.NodeFinished):
        return f"{e.name} (node #{e.node}) finished: {len(e.grad_outputs)} gradients sent on"
    if isinstance(e, events.GradAccumulated):
        return f"tensor #{e.tensor}.grad accumulated: {e.grad}"
    if isinstance(e, events.HookFired):
        return f"hook fired: {e.hook}"
    if isinstance(e, events.VersionChecked):
        return (f"saved tensor #{e.tensor} checked by node #{e.node}: version "
                f"{e.current_version}, saved at {e.saved_version}")  # fmt: skip
    return e.kind


def tensors_of_step(event, dispatch: DispatchState, known) -> list[int]:
    """The tensors a stride map shows at a step: those of the event, else of its call."""
    ids: list[int] = []
    if isinstance(event, events.ViewCreated):
        ids += [event.base, event.tensor]
    elif isinstance(event, events.TensorCreated | events.InplaceWrite):
        ids.append(event.tensor)
    call = dispatch.current_call()
    if call is not None and not ids:
        ids += list(call.inputs) + call_outputs(call)
    shown = []
    for tensor_id in ids:
        if tensor_id in known and tensor_id not in shown:
            shown.append(tensor_id)
    return shown[:MAX_TENSORS_SHOWN]


# --- the widget ---------------------------------------------------------------------------


def event_dicts_of(recording) -> list:
    """Event dicts, ids renumbered from 1, from a Recording, a Recorder or a list of events
    (a list of dicts is checked: ``ValueError`` naming the event and field that is wrong).

    A recording longer than ``MAX_SHOWN_EVENTS`` is refused with its size."""
    size = len(recording) if hasattr(recording, "__len__") else None
    if size is not None and size > MAX_SHOWN_EVENTS:
        raise ValueError(f"this recording has {size:,} events: too many to show (at most "
                         f"{MAX_SHOWN_EVENTS:,}); record a shorter part of the run")  # fmt: skip
    if hasattr(recording, "event_dicts"):
        return recording.event_dicts()
    if isinstance(recording, events.Recorder):
        return recording.to_dicts()
    # Dicts from elsewhere are checked, and completed with the fields they may omit.
    return [event if isinstance(event, events.Event) else
            events.event_from_dict(event, index).to_dict()
            for index, event in enumerate(recording)]  # fmt: skip


# The DAG inside a Timeline: its canvas takes the width it is given (the SVG scales down
# to it, never below DAG_MIN_WIDTH before the side panel moves under the drawing), so the
# graph is never squeezed beside the panel. A VBox has no stylesheet of its own: these
# rules travel with the Timeline's Scrubber (static/scrubber.css; anywidget adds a
# widget's _css to the page).
DAG_MIN_WIDTH = "360px"

# The stride map and the DAG side by side when each gets a column this wide, else stacked.
VIEW_MIN_WIDTH = "600px"


def _views_grid(stride_map, graph_view, dispatch_trace) -> widgets.VBox:
    """The Timeline's views: the stride map and the DAG share a row (a grid) only when both
    get ``VIEW_MIN_WIDTH`` (a wide notebook), else each has a row of its own; the dispatch
    trace, long and wide, takes the whole width below them."""
    # min_width 0: a wide grid of cells scrolls inside its column instead of widening it.
    stride_map.layout = widgets.Layout(min_width="0", overflow="auto")
    graph_view.layout = widgets.Layout(min_width="0")
    # auto-fit drops the empty columns, so the two views share all the width there is.
    pair = widgets.GridBox(
        [stride_map, graph_view],
        layout=widgets.Layout(
            grid_template_columns=f"repeat(auto-fit, minmax(min(100%, {VIEW_MIN_WIDTH}), 1fr))",
            grid_gap="12px 24px",
            align_items="flex-start",
            width="100%",
        ),
    )
    views = widgets.VBox([pair, dispatch_trace])
    views.add_class("vg-timeline-views")
    return views


class Scrubber(BrowserView):
    """Play, pause, step back and forward, and a slider: ``value`` is the step shown.

    Playing runs in the browser (one step every ``interval`` ms); each step it reaches
    is sent back as a ``value`` change, which the Timeline answers by redrawing (an
    error while redrawing shows in the scrubber: ``BrowserView``).
    """

    BROWSER_ACTIONS = {"value": "showing the step you chose", "playing": "playing the recording"}

    # static/scrubber.js and .css (the Timeline's layout rules too), after the error box
    # every view shows (widgets/browser.py)
    _esm = front_end("scrubber.js")
    _css = stylesheet("scrubber.css")
    value = traitlets.Int(0).tag(sync=True)
    max = traitlets.Int(0).tag(sync=True)
    playing = traitlets.Bool(False).tag(sync=True)
    interval = traitlets.Int(400).tag(sync=True)  # milliseconds per step while playing


class Timeline(widgets.VBox):
    """A recording replayed: play, pause, step back and forward, or drag the slider.

    ``Timeline(rec, names={"w": w})`` (or ``rec.show(names=...)``) names tensors as
    ``GraphView`` and ``rec.to_html`` do (``widgets.names``).
    """

    step = traitlets.Int(0)
    # Its views, as class defaults: a Timeline whose __init__ raised still closes cleanly
    # when ipywidgets' __del__ calls close().
    scrubber = stride_map = graph_view = dispatch_trace = None

    def __init__(self, recording, *, names=None, snapshot_every=DEFAULT_SNAPSHOT_EVERY,
                 interval_ms=400):  # fmt: skip
        self.recording = recording
        event_list = event_dicts_of(recording)
        self.names = RecordingNames.of(recording, names, event_list, "Timeline()")
        self.replay = Replay(event_list, make_states=functools.partial(view_states, self.names),
                             snapshot_every=snapshot_every)  # fmt: skip
        last = self.replay.n_steps
        self.scrubber = Scrubber(value=last, max=last, interval=interval_ms)

        self.description = widgets.HTML()
        self.description.add_class("vg-step-description")
        notice = getattr(recording, "notice", "") or _dropped_notice(recording)
        self.notice = widgets.HTML(f"<b>{escape(notice)}</b>" if notice else "")
        self.notice.add_class("vg-timeline-notice")
        self.notice.layout.display = None if notice else "none"

        self.stride_map = StrideMap()
        self.graph_view = GraphView()
        self.dispatch_trace = DispatchTrace(max_calls=TRACE_WINDOW)
        views = _views_grid(self.stride_map, self.graph_view, self.dispatch_trace)
        self._tensor_ids: list[int] = []
        self._shown_step: int | None = None  # the step the views show now
        self._shown_ids: list[int] | None = None
        self._shown_round = None  # the round whose graph the DAG shows

        super().__init__([self.notice, self.scrubber, self.description, views])
        self.add_class("vg-timeline")
        self.scrubber.observe(self._on_scrubber, "value")
        self.step = last
        if last == 0:
            self._show(0)

    # --- moving -------------------------------------------------------------------------

    def step_by(self, delta: int) -> None:
        """Move ``delta`` steps, as the step buttons do (clamped to the recording)."""
        self.step = min(max(self.step + delta, 0), self.replay.n_steps)

    def _on_scrubber(self, change) -> None:
        self.step = min(max(change["new"], 0), self.replay.n_steps)

    @traitlets.observe("step")
    def _on_step(self, change) -> None:
        self.scrubber.value = change["new"]  # a no-op when the scrubber moved first
        self._show(change["new"])

    def close(self) -> None:
        # getattr: a Timeline whose recording was refused is closed half-built.
        for name in ("scrubber", "stride_map", "graph_view", "dispatch_trace"):
            child = getattr(self, name, None)
            if child is not None:
                child.close()
        super().close()

    # --- showing ------------------------------------------------------------------------

    def states(self) -> dict:
        """Every view's state at the current step (read only)."""
        return self.replay.states_at(self.step)

    def _changed(self, state, step: int) -> bool:
        """Did any event between the shown step and ``step`` change ``state``?"""
        if self._shown_step is None:
            return True
        low, high = sorted((self._shown_step, step))
        kinds = kinds_folded_by(state)
        if kinds is None or high - low > self.replay.snapshot_every:
            return True  # unknown, or a long jump: scanning would cost more than drawing
        return any(e["kind"] in kinds for e in self.replay.events[low:high])

    def _show(self, step: int) -> None:
        states = self.replay.states_at(step)
        event = self.replay.event_at(step)
        dispatch = states["dispatch"]
        known = states["tensors"].tensors
        ids = tensors_of_step(event, dispatch, known) if event is not None else []
        # Keep the previous tensors in view while the step concerns none.
        self._tensor_ids = ids or [t for t in self._tensor_ids if t in known]
        # A view is redrawn only when its state changed: the DAG's layout is the costly one.
        if self._tensor_ids != self._shown_ids or self._changed(states["tensors"], step):
            self.stride_map.show_state(
                states["tensors"],
                self._tensor_ids,
                [self.names.tensor_name(t) for t in self._tensor_ids],
            )
            self._shown_ids = list(self._tensor_ids)
        # The DAG of the step's round: a training loop's graph of this iteration, not all.
        this = self.replay.rounds.at(step)
        if self._changed(states["graph"], step) or this is not self._shown_round:
            graph = states["graph"]
            self.graph_view.show_state(round_state(graph, this.nodes) if this else graph)
            self._shown_round = this
        self.dispatch_trace.show_state(dispatch, dispatch.last_call if event is not None else -1)
        self._shown_step = step
        self.description.value = (
            f'<span class="vg-step-description-text" data-step="{step}">step {step} / '
            f"{self.replay.n_steps}: {escape(describe_event(event, dispatch))}</span>"
        )


def _dropped_notice(recording) -> str:
    dropped = getattr(recording, "dropped", 0)
    if not dropped:
        return ""
    return f"The recording dropped its {dropped:,} oldest events."

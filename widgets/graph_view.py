"""GraphView: the backward DAG, growing with the forward pass and walked by ``backward()``.

Usage (the three ways a lesson opens it)::

    g = GraphView(loss, names={"w": w, "x": x})   # the graph of an existing tensor
    g                                             # shows it; y.backward() then animates

    g = GraphView()                               # an empty view that grows live:
    with g:                                       # every node recorded inside the block
        loss = (w * x + b).sum()                  # appears as the forward runs
    loss.backward()                               # and backward is shown step by step

    g = GraphView(y).follow()                     # draw y's graph and keep growing with
    z = y * 2                                     # whatever is recorded next; unfollow()
                                                  # stops growing

API:

* ``GraphView(tensor=None, names=None, show_saved=False, show_values=False)`` —
  ``names`` maps names to tensors (``{"w": w}``, like ``torchviz.make_dot(params=...)``);
  parameters of the ``nn.Module`` that recorded the graph are named without it
  (``0.weight``), and nodes are boxed by module (``group_modules``; ``collapsed`` lists
  the qualified names of the modules drawn as one node);
  ``show_saved`` draws the tensors each node saved for backward; ``show_values`` adds
  value previews of the tensors the view was given and the gradients nodes received.
* ``follow()`` / ``unfollow()`` / ``with g:`` — grow with every ``NodeCreated`` event.
* ``backward()`` on a graph the view shows is always followed (from construction until
  ``close()``) when it starts in the graph (``loss.backward()`` for a view of ``loss``;
  a pass of another graph that only shares a leaf is not shown): each engine step (``BackwardStarted``, ``ReadyQueueChanged``,
  ``NodeStarted``, ``NodeFinished``, ``GradAccumulated``, ``HookFired``) becomes one
  *frame*; the step slider goes through them (``frame``/``n_frames`` traitlets).
* ``show_state(state)`` — show a ``GraphState`` (a Timeline's replay); the view stops
  following live events.
* ``refresh()`` redraws now; ``close()`` unsubscribes from the event bus.

A view that is not following listens to the start of backward passes, and to the
steps of a pass of its own graph; one that follows (``follow()``, ``with g:``) listens
to every event. So an idle view costs an operator call nothing and a backward pass
one call, and the event bus holds it weakly: a view nobody holds stops listening.
(ipywidgets 8 itself holds every widget until ``close()``.) Live
drawing is throttled (a redraw at most every ~0.2 s, or nine times as long as the last
redraw took, and once at the end of the block, of ``backward()`` and of each notebook
cell), so a long forward pass is not slowed down by graphviz.

Selectors (stable, for the browser tests and for styling):

* ``.vg-dag`` the widget; ``.vg-dag-canvas svg g.node`` the nodes (``id="n3"``), with
  classes ``vg-grad-fn``, ``vg-accumulate``, ``vg-saved`` and during backward
  ``vg-running``, ``vg-queued``, ``vg-waiting``, ``vg-done``, ``vg-accumulated``;
  ``svg g.edge`` the edges (``id="e_n3_0"``: node 3's edge 0), ``vg-carried`` once a
  gradient went along them;
* ``.vg-dag-saved input``, ``.vg-dag-values input`` the two toggles, and
  ``.vg-dag-modules input`` (shown when the graph was recorded in ``nn.Module``s) which
  draws a box per module; clicking a module's box (``svg g.cluster.vg-module``) collapses
  it into one node (``svg g.node.vg-module-collapsed``), clicking that node opens it;
* ``.vg-dag-steps input[type=range]`` the backward step slider, ``.vg-dag-prev``,
  ``.vg-dag-next``, ``.vg-dag-play`` its buttons, ``.vg-dag-step-label`` its text;
* ``.vg-error`` why the last toggle, click or step could not be answered (hidden if none);
* ``.vg-dag-notice`` (e.g. graphviz missing), ``.vg-dag-panel`` the engine's state:
  ``.vg-dag-running``, ``.vg-dag-queue li``, ``.vg-dag-deps li``, ``.vg-dag-last``.
"""

from __future__ import annotations

import contextlib
import time

import numpy as np
import traitlets
from IPython import get_ipython

from vizgrad import events
from vizgrad.autograd import graph_events

from .browser import BrowserView, front_end, stylesheet
from .names import named_tensors
from .render.dag_dot import graph_drawing, to_dot
from .render.dag_layout import render_svg
from .state.graph import GraphState

__all__ = ["GraphView", "engine_panel"]

# What an idle view listens to: the start of each backward pass (is it one of its graph?).
_WAITING = frozenset({"backward_started"})
MAX_FRAMES = 5000  # a backward pass longer than this keeps its last frames
MAX_TENSORS = 100_000  # shapes kept while following; beyond, undrawn ones are forgotten
RENDER_INTERVAL = 0.2  # seconds between live redraws (at least)
# ...and at least this many times the last redraw's own time: drawing a large graph
# (seconds for 3,000 nodes) takes at most a tenth of the time the engine runs.
RENDER_SHARE = 9


def _preview(tensor) -> str:
    """A few values of ``tensor``, summarised like PyTorch's repr for big tensors."""
    array = np.asarray(tensor.numpy(force=True))
    return np.array2string(array, precision=4, threshold=8, edgeitems=2, separator=", ")


class GraphView(BrowserView):
    """``vizgrad.widgets.GraphView``: the autograd graph (``grad_fn`` DAG) and its backward."""

    BROWSER_ACTIONS = {
        "show_saved": "drawing the saved tensors",
        "show_values": "drawing the values",
        "group_modules": "drawing a box per module",
        "collapsed": "opening or closing a module's box",
        "frame": "showing the backward step you chose",
    }

    svg = traitlets.Unicode("").tag(sync=True)
    dot = traitlets.Unicode("").tag(sync=True)
    notice = traitlets.Unicode("").tag(sync=True)
    show_saved = traitlets.Bool(False).tag(sync=True)
    show_values = traitlets.Bool(False).tag(sync=True)
    group_modules = traitlets.Bool(True).tag(sync=True)  # a box per nn.Module
    collapsed = traitlets.List(traitlets.Unicode()).tag(sync=True)  # modules drawn as one node
    has_modules = traitlets.Bool(False).tag(sync=True)  # were any nodes recorded in a module?
    graph_state = traitlets.Dict().tag(sync=True)  # the shown GraphState, as to_json()
    panel = traitlets.Dict().tag(sync=True)  # the engine's state, in words, for the side panel
    frame = traitlets.Int(0).tag(sync=True)  # which step of the last backward is shown
    n_frames = traitlets.Int(0).tag(sync=True)
    following = traitlets.Bool(False).tag(sync=True)

    # Class defaults: a view whose __init__ raised early still closes cleanly when
    # ipywidgets' __del__ calls close().
    _listening = False
    _kinds: frozenset | None = None  # the event kinds subscribed to (None: all)
    _watching_backward = False
    _ipython = None

    def __init__(self, tensor=None, names=None, show_saved: bool = False,
                 show_values: bool = False, **kwargs):  # fmt: skip
        super().__init__(show_saved=show_saved, show_values=show_values, **kwargs)
        self._state = GraphState()
        self._shown = self._state  # what is drawn: the live state, a frame, or show_state's
        self._frames: list[GraphState] = []
        self._watching_backward = False
        self._listening = False
        self._dirty = False
        self._last_render = 0.0
        self._render_seconds = 0.0
        self._ipython = None
        self._note = ""  # the view's own notice; the layout adds its own (graphviz missing)
        self._seed(tensor, names)
        self._listen()
        self.observe(
            self._on_toggle, names=["show_saved", "show_values", "group_modules", "collapsed"]
        )
        self.observe(self._on_frame, names=["frame"])
        self.refresh()

    # --- what the view starts from ------------------------------------------------------

    def _seed(self, tensor, names) -> None:
        if tensor is not None:
            # The graph as the events that built it; the live bus tells the rest.
            for event in graph_events(tensor):
                self._state.apply(event)
            if tensor.grad_fn is None:
                self._note = "this tensor has no grad_fn (a leaf, or no grad needed): no graph"
        named = named_tensors(names, "GraphView()")
        for name, t in named:
            self._state.name_tensor(events.event_id(t), name)
        for t in self._known_tensors(tensor, named):
            self._state.set_value(events.event_id(t), _preview(t))

    @staticmethod
    def _known_tensors(tensor, named) -> list:
        """Tensors this view holds objects for: the one given, its leaves, the named ones."""
        known = [t for _, t in named]
        if tensor is not None:
            known += [tensor, *_leaves(tensor)]
        unique = {events.event_id(t): t for t in known}
        return [unique[k] for k in sorted(unique)]

    # --- listening to the engine ----------------------------------------------------------

    def _listen(self) -> None:
        """Subscribe to what the view needs now: every event while it follows; the
        backward engine's steps while it watches a pass of its graph; else only the start
        of each backward pass. So an idle view costs an operator call nothing (the bus
        builds no event for it) and a backward pass one call. Weakly: a view nobody
        holds stops listening."""
        if self.following:
            kinds = None
        elif self._watching_backward:
            kinds = GraphState.BACKWARD_KINDS
        else:
            kinds = _WAITING
        if self._listening:
            if kinds == self._kinds:
                return
            events.unsubscribe(self._on_event)
        events.subscribe(self._on_event, kinds, weak=True)
        self._listening, self._kinds = True, kinds

    def _stop_listening(self) -> None:
        if self._listening:
            # The collector may have ended the weak subscription already (a view closed
            # by ipywidgets' __del__ after it became garbage).
            with contextlib.suppress(ValueError):
                events.unsubscribe(self._on_event)
            self._listening = False
        self._unhook_ipython()

    def follow(self) -> GraphView:
        """Grow with every node recorded from now on (until ``unfollow()``)."""
        self.following = True
        self._listen()
        return self

    def unfollow(self) -> GraphView:
        self.following = False
        if self._listening:
            self._listen()  # back to the backward steps only
        self.refresh()
        return self

    def __enter__(self) -> GraphView:
        return self.follow()

    def __exit__(self, *exc) -> None:
        self.unfollow()

    def _on_event(self, event) -> None:
        # Called by the engine in the middle of its work: a view must never break it.
        try:
            self._fold(event)
        except Exception as error:  # noqa: BLE001 - reported in the view, not raised
            self._stop_listening()
            self._note = f"GraphView stopped following events: {type(error).__name__}: {error}"
            self.notice = self._note

    def _fold(self, event) -> None:
        kind = event.kind
        if kind == "node_created" and not self.following:
            return
        if kind == "backward_started":
            self._watching_backward = self._starts_in_this_graph(event)
            if self._watching_backward:
                self._frames = []
            self._listen()  # this pass's steps, or only the start of the next pass
        if GraphState.is_backward_event(event):
            if not self._watching_backward:
                return
            self._state.apply(event)
            self._frames.append(self._state.copy())
            if len(self._frames) > MAX_FRAMES:
                del self._frames[0]
        else:
            self._state.apply(event)
            if len(self._state.tensors) > MAX_TENSORS:
                self._state.forget_undrawn_tensors()
            if kind != "node_created":
                return  # nothing drawn changed
        self._shown = self._state
        self._dirty = True
        self._hook_ipython()  # draw what is pending when the cell ends
        if self._state.phase == "done" and kind == "ready_queue_changed":
            self._watching_backward = False
            self._listen()  # the pass is over: wait for the next one
            self._show_last_frame()
        elif time.perf_counter() - self._last_render >= max(
            RENDER_INTERVAL, RENDER_SHARE * self._render_seconds
        ):
            self.refresh()

    def _starts_in_this_graph(self, started) -> bool:
        """Is this backward pass one of this view's graph: does it start at nodes it draws?

        Every node a pass reaches from such roots is drawn too (a graph is drawn down to
        its leaves). Sharing a leaf is not enough: after ``s = w.sin();
        s.sum().backward()``, a view of ``loss = (w * x).sum()`` must not show the sin
        graph's steps, its gradients or its nodes.
        """
        roots = [self._state.known("node", n) for n in started.roots]
        return bool(roots) and all(root in self._state.nodes for root in roots)

    def _show_last_frame(self) -> None:
        self.n_frames = len(self._frames)
        if self.frame == self.n_frames - 1:
            self.refresh()
        else:
            self.frame = self.n_frames - 1  # the observer draws it

    # --- notebook integration: draw what is pending when a cell ends ----------------------

    def _hook_ipython(self) -> None:
        """Ask IPython to call ``_after_cell`` once the running cell ends (only while
        something is left to draw: an idle view costs a cell nothing)."""
        if self._ipython is not None:
            return
        shell = get_ipython()
        if shell is not None:
            shell.events.register("post_run_cell", self._after_cell)
            self._ipython = shell

    def _unhook_ipython(self) -> None:
        if self._ipython is not None:
            with contextlib.suppress(ValueError):  # already unregistered
                self._ipython.events.unregister("post_run_cell", self._after_cell)
            self._ipython = None

    def _after_cell(self, *args) -> None:
        self._unhook_ipython()
        if self._dirty:
            self.n_frames = len(self._frames)
            self.refresh()

    # --- what is shown ------------------------------------------------------------------

    def show_state(self, state: GraphState) -> None:
        """Show ``state`` (e.g. a Timeline's replay at one step); stop following the engine."""
        self._stop_listening()
        self.following = False
        self._frames = []
        self.n_frames = 0
        self._shown = state
        self.refresh()

    def refresh(self) -> None:
        """Draw the shown state now."""
        started = time.perf_counter()
        state = self._shown
        drawing = graph_drawing(
            state,
            show_saved=self.show_saved,
            show_values=self.show_values,
            group_modules=self.group_modules,
            collapsed=self.collapsed,
        )
        layout = render_svg(drawing)
        with self.hold_sync():
            self.svg = layout.svg
            self.dot = to_dot(drawing)
            self.notice = " · ".join(text for text in (self._note, layout.notice) if text)
            self.graph_state = state.to_json(drawn_only=True)
            self.panel = engine_panel(state)
            self.has_modules = any(record.get("module") for record in state.nodes.values())
            self.n_frames = len(self._frames)
        self._dirty = False
        self._last_render = time.perf_counter()
        self._render_seconds = self._last_render - started

    def _on_toggle(self, change) -> None:
        self.refresh()

    def _on_frame(self, change) -> None:
        if 0 <= change["new"] < len(self._frames):
            self._shown = self._frames[change["new"]]
            self.refresh()

    def close(self) -> None:
        """Stop listening to the engine and close the widget."""
        self._stop_listening()
        super().close()

    # --- the front end ------------------------------------------------------------------

    # The front end: static/error_box.js (every view's, widgets/browser.py), static/dag.js
    # (shared with exported pages), then static/graph_view.js; its CSS, then the error box's.
    _esm = front_end("dag.js", "graph_view.js")
    _css = stylesheet("graph_view.css")


def engine_panel(state: GraphState) -> dict:
    """The engine's state in words, for the panel beside the drawing (the ``panel``
    traitlet; exported pages store the same dict per frame): phase, running node, ready
    queue, dependency counts and the last step."""
    if state.phase == "forward":
        phase = f"forward: {len(state.nodes)} nodes recorded"
    elif state.phase == "done":
        phase = "backward done"
    else:
        phase = "backward running"
    queue = [f"{state.node_title(n)} (seq {_seq(state, n)})" for n in state.queue]
    deps = [[state.node_title(n), count] for n, count in sorted(state.dependencies.items())]
    return {
        "phase": phase,
        "running": state.node_title(state.running) if state.running else "",
        "queue": queue,
        "dependencies": deps,
        "last_step": state.last_step,
    }


def _seq(state: GraphState, node: int) -> str:
    if node not in state.nodes:
        return "?"
    # AccumulateGrad has the largest sequence_nr, so it runs as soon as it is ready.
    relative = state.relative_sequence_nr(node)
    return "max" if relative is None else str(relative)


def _leaves(tensor) -> list:
    """The leaf tensors behind ``tensor.grad_fn`` (``AccumulateGrad.variable``)."""
    leaves, seen, stack = [], set(), [tensor.grad_fn] if tensor.grad_fn is not None else []
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        variable = getattr(node, "variable", None)
        if variable is not None:
            leaves.append(variable)
        stack += [n for n, _ in node.next_functions if n is not None]
    return leaves

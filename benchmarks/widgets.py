"""Widget benchmarks (issue "views"): how fast the views follow the engine.

Each case returns a ``harness.Result``; ``CASES`` lists them for ``python -m benchmarks``.
The widget libraries are imported inside the cases, so this module imports without
the ``jupyter`` extra.
"""

from __future__ import annotations

import vizgrad as vg

from .harness import Result, best_time


def stride_map_update_64x64() -> Result:
    """An in-place write into a shown 64×64 tensor, and the StrideMap recomputing its state.

    The widget hears the ``InplaceWrite`` event on ``vizgrad.events.bus`` and rebuilds
    its synced ``data`` (grid, storage strip, values): what a learner waits for after
    ``x.add_(1)`` in a cell.
    """
    from vizgrad.widgets import StrideMap

    x = vg.zeros(64, 64)
    widget = StrideMap(x, names=["x"])
    try:
        seconds = best_time(lambda: x.add_(1), repeat=3)
    finally:
        widget.close()
    target = 0.1
    return Result("stride map update, 64x64 after add_", seconds, None, None,
                  f"<= {target * 1e3:g} ms", seconds <= target)  # fmt: skip


def _dag_of_a_loop(steps: int, *, shared_leaves: bool):
    """A GraphState for an unrolled loop ``y = tanh(y) * w + b``: 3 grad_fn nodes per step.

    With ``shared_leaves`` every step reuses one ``w`` and one ``b`` (a recurrent net):
    their AccumulateGrad nodes get an edge from every step, the long edges that make
    graphviz slow. Otherwise each step has its own leaves (a deep feed-forward net), and
    two AccumulateGrad nodes per step.
    """
    from vizgrad.widgets.state.graph import GraphState, events_for_graph

    x = vg.ones(4, requires_grad=True)
    w, b = vg.ones(4, requires_grad=True), vg.ones(4, requires_grad=True)
    y = x
    for _ in range(steps):
        if not shared_leaves:
            w, b = vg.ones(4, requires_grad=True), vg.ones(4, requires_grad=True)
        y = vg.tanh(y) * w + b
    state = GraphState()
    for event in events_for_graph(y.sum()):
        state.apply(event)
    return state


def _dag_layout_case(name: str, state) -> Result:
    from vizgrad.widgets.render import dag_layout
    from vizgrad.widgets.render.dag_dot import graph_drawing

    def draw():
        dag_layout._cache.clear()  # time the layout, not the cache
        return dag_layout.render_svg(graph_drawing(state))

    engine = draw().engine
    seconds = best_time(draw, repeat=3)
    target = 2.0
    return Result(f"{name} ({len(state.nodes)} nodes, {engine})", seconds, None, None,
                  f"<= {target:g} s", seconds <= target)  # fmt: skip


def dag_layout_500_nodes() -> Result:
    """GraphView's drawing of a 500-node backward DAG: GraphState -> DOT -> SVG.

    What a learner waits for when opening ``GraphView(loss)`` on a deep model: graphviz
    ``dot`` when installed (the built-in layout otherwise).
    """
    return _dag_layout_case("backward DAG layout", _dag_of_a_loop(100, shared_leaves=False))


def dag_layout_500_nodes_shared_leaves() -> Result:
    """The same size with one weight reused by every step (graphviz's worst case)."""
    state = _dag_of_a_loop(166, shared_leaves=True)
    return _dag_layout_case("backward DAG layout, shared leaves", state)


def dropped_views_50() -> Result:
    """``a + 1.0`` after 50 GraphViews and 50 StrideMaps were made and dropped (target:
    within 1.3x of the same call with no view at all).

    A dropped view must stop costing anything: an idle GraphView listens only for the
    start of a backward pass and a StrideMap for in-place writes, so an operator call
    builds no event for them. (Before: 83 us -> 3.7 ms after 50 dropped GraphViews.)
    """
    import weakref

    from vizgrad.widgets import GraphView, StrideMap

    a = vg.ones(3)
    alone = best_time(lambda: a + 1.0)
    w = vg.ones(3, requires_grad=True)
    loss = (w * 3).sum()
    dropped = [weakref.ref(GraphView(loss)) for _ in range(50)]
    dropped += [weakref.ref(StrideMap(a)) for _ in range(50)]
    try:
        seconds = best_time(lambda: a + 1.0)
    finally:  # ipywidgets 8 holds every widget until close(): let the next cases be
        for view in filter(None, (ref() for ref in dropped)):
            view.close()
    target = 1.3
    return Result("a + 1.0 after 100 dropped views", seconds, None, None,
                  f"<= {target:g}x no view ({alone * 1e6:.1f} us)", seconds <= target * alone)  # fmt: skip


CASES = [stride_map_update_64x64, dag_layout_500_nodes, dag_layout_500_nodes_shared_leaves,
         dropped_views_50]  # fmt: skip


def replay_step_100k_events() -> Result:
    """One scrubber step of a Timeline over a 10^5-event recording (target: under 50 ms).

    The recording is a training loop (matmul, tanh, mul, sum, backward). A step is what
    the Timeline does when the slider moves: the states at the new step (from the
    nearest snapshot, at most ``snapshot_every`` events re-folded), the step's event in
    words, and the dispatch trace and stride map redrawn. Steps go forward by one,
    back by one and to random places; the slowest kind's mean is reported. (The DAG's
    graphviz layout is timed by its own case: its cost grows with the graph, not with
    the recording's length.)
    """
    import random
    import warnings

    from vizgrad.widgets import DispatchTrace, StrideMap
    from vizgrad.widgets.recording import record
    from vizgrad.widgets.timeline import TRACE_WINDOW, Replay, describe_event, tensors_of_step

    x, w = vg.randn(8, 8), vg.randn(8, 8, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the bounded buffer's notice
        with record(max_events=100_000) as rec:
            while len(rec) < 100_000:
                (x @ w).tanh().mul(0.5).sum().backward()
                w.grad = None
    replay = Replay(rec.event_dicts())
    trace, stride_map = DispatchTrace(max_calls=TRACE_WINDOW), StrideMap()
    rng = random.Random(0)
    moves = {"forward": lambda k: k + 1, "back": lambda k: k - 1,
             "random": lambda k: rng.randrange(1, replay.n_steps)}  # fmt: skip

    def scrub(move):
        position = [replay.n_steps // 2]

        def step():
            position[0] = move(position[0])
            states = replay.states_at(position[0])
            event, dispatch = replay.event_at(position[0]), states["dispatch"]
            describe_event(event, dispatch)
            trace.show_state(dispatch)
            ids = tensors_of_step(event, dispatch, states["tensors"].tensors)
            stride_map.show_state(states["tensors"], ids)

        return step

    try:
        seconds = max(best_time(scrub(move), repeat=3) for move in moves.values())
    finally:
        trace.close()
        stride_map.close()
    target = 0.05
    return Result("timeline scrubber step, 10^5 events", seconds, None, None,
                  f"<= {target * 1e3:g} ms", seconds <= target)  # fmt: skip


CASES.append(replay_step_100k_events)

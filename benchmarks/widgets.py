"""Widget benchmarks (issues "views" and "the views hold up"): how fast the views follow
the engine, and what long recordings cost.

Each case returns a ``harness.Result``; ``CASES`` lists them for ``python -m benchmarks``.
The recordings measured (issue 10's "Scale"): a lesson recording (lesson 0's) and a
200-iteration training loop (``nn.Linear``, ``optim.SGD``, ``F.mse_loss``), exported
(size and time; first frame in Chromium when Playwright and ``/usr/bin/chromium`` are
there), replayed (time and memory) and scrubbed (time per step); a 250,000-event
Timeline, and a GraphView following a 3,000-node backward pass.
"""

from __future__ import annotations

import random
import resource
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import vizgrad as vg
import vizgrad.nn.functional as F
from vizgrad import nn, optim

from .harness import Result, best_time

try:  # the jupyter extra (and, for the first-frame case, Playwright and Chromium)
    from vizgrad.widgets import DispatchTrace, GraphView, StrideMap
    from vizgrad.widgets.export import export_html
    from vizgrad.widgets.recording import record
    from vizgrad.widgets.render import dag_layout
    from vizgrad.widgets.render.dag_dot import graph_drawing
    from vizgrad.widgets.state.graph import GraphState, events_for_graph
    from vizgrad.widgets.timeline import (
        TRACE_WINDOW,
        Replay,
        Timeline,
        describe_event,
        tensors_of_step,  # fmt: skip
    )
except ImportError:
    record = None
try:
    from playwright.sync_api import sync_playwright
except ImportError:
    sync_playwright = None
CHROMIUM = Path("/usr/bin/chromium")


def stride_map_update_64x64() -> Result:
    """An in-place write into a shown 64×64 tensor, and the StrideMap recomputing its state.

    The widget hears the ``InplaceWrite`` event on ``vizgrad.events.bus`` and rebuilds
    its synced ``data`` (grid, storage strip, values): what a learner waits for after
    ``x.add_(1)`` in a cell.
    """
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


# --- issue 10, "Scale": long recordings ----------------------------------------------------

MB = 1e6


def lesson_recording():
    """Lesson 0's recording: a view, a transpose, a multiply, a sum and its backward."""
    with record() as rec:
        w = vg.arange(6.0, requires_grad=True)
        loss = (w.view(2, 3).t() * 2).sum()
        loss.backward()
    return rec


def training_recording(iterations: int = 200):
    """A linear regression trained for ``iterations`` steps: ``nn.Linear``, ``optim.SGD``,
    ``F.mse_loss`` (about 167 events per iteration)."""
    vg.manual_seed(0)
    x = vg.randn(64, 3)
    y = x @ vg.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    model = nn.Linear(3, 1)
    optimizer = optim.SGD(model.parameters(), lr=0.05)
    with record() as rec:
        for _ in range(iterations):
            optimizer.zero_grad()
            F.mse_loss(model(x), y).backward()
            optimizer.step()
    return rec


def _export_case(name: str, rec, max_seconds: float, max_mb: float, first_frame_s: float):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "page.html"
        started = time.perf_counter()
        export_html(rec, path)
        seconds = time.perf_counter() - started
        size = path.stat().st_size / MB
        first = _first_frame(path)
    shown = f", first frame {first:.1f} s" if first is not None else ""
    passed = seconds <= max_seconds and size <= max_mb and (first is None or first <= first_frame_s)
    return Result(f"export {name} ({len(rec):,} ev): {size:.2f} MB{shown}", seconds, None, None,
                  f"<= {max_seconds:g} s, {max_mb:g} MB, {first_frame_s:g} s", passed)  # fmt: skip


def _first_frame(path: Path) -> float | None:
    """Seconds from opening the page in Chromium to its first frame drawn (None: no browser)."""
    if sync_playwright is None or not CHROMIUM.exists():
        return None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=["--no-sandbox", "--disable-gpu"])  # fmt: skip
        page = browser.new_page()
        started = time.perf_counter()
        page.goto(path.as_uri())
        page.wait_for_selector(".vg-export[data-ready]", timeout=60_000)
        seconds = time.perf_counter() - started
        browser.close()
    return seconds


def export_lesson_recording() -> Result:
    """``rec.to_html`` of lesson 0's recording: the issue's lesson page was 5.5 MB."""
    return _export_case("lesson recording", lesson_recording(), 5.0, 1.0, 3.0)


def export_training_200() -> Result:
    """``rec.to_html`` of 200 training iterations (was 462 s, 797 MB, never drew)."""
    return _export_case("200-iteration training", training_recording(), 30.0, 20.0, 3.0)


def _replay_case(name: str, rec) -> Result:
    """Replay (what a Timeline folds first): time, then the memory it holds (tracemalloc)."""
    dicts = rec.event_dicts()
    started = time.perf_counter()
    Replay(dicts)
    seconds = time.perf_counter() - started
    tracemalloc.start()
    replay = Replay(dicts)
    held = tracemalloc.get_traced_memory()[0] / MB
    tracemalloc.stop()
    del replay
    per_event = held * MB / len(dicts)
    return Result(f"replay {name}: {held:.1f} MB ({per_event:.0f} B/event)", seconds, None,
                  None, "<= 30 s, linear", seconds <= 30)  # fmt: skip


def replay_lesson_recording() -> Result:
    return _replay_case("lesson recording", lesson_recording())


def replay_training_200() -> Result:
    return _replay_case("200-iteration training", training_recording())


def _scrub_case(name: str, rec) -> Result:
    """A Timeline's step (every view redrawn as the slider moves): the slowest of steps
    forward, steps back and random jumps, each the mean of 30."""
    timeline = Timeline(rec)
    n = timeline.replay.n_steps
    rng = random.Random(0)
    worst = 0.0
    for move in (lambda k: k + 1, lambda k: k - 1, lambda k: rng.randrange(0, n + 1)):
        timeline.step = n // 2
        started = time.perf_counter()
        for _ in range(30):
            timeline.step = min(max(move(timeline.step), 0), n)
        worst = max(worst, (time.perf_counter() - started) / 30)
    timeline.close()
    return Result(f"timeline step, {name}", worst, None, None, "<= 100 ms", worst <= 0.1)


def scrub_lesson_recording() -> Result:
    return _scrub_case("lesson recording", lesson_recording())


def scrub_training_3_steps() -> Result:
    """The issue's 770-event case: 3 training steps of a small MLP (was 0.23-1.9 s)."""
    vg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    x, y = vg.randn(16, 4), vg.randn(16, 1)
    with record() as rec:
        for _ in range(3):
            optimizer.zero_grad()
            F.mse_loss(model(x), y).backward()
            optimizer.step()
    return _scrub_case(f"3 MLP training steps ({len(rec)} ev)", rec)


def scrub_training_200() -> Result:
    return _scrub_case("200-iteration training", training_recording())


def timeline_250k_events() -> Result:
    """A Timeline of a 250,000-event recording opens in <= 30 s and <= 800 MB (peak RSS,
    the recording included)."""
    x, w = vg.randn(8, 8), vg.randn(8, 8, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the bounded buffer's notice
        with record(max_events=250_000) as rec:
            while len(rec) < 250_000:
                (x @ w).tanh().mul(0.5).sum().backward()
                w.grad = None
    started = time.perf_counter()
    timeline = Timeline(rec)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3  # kB on Linux
    timeline.close()
    return Result(f"timeline opens, 250,000 events (peak RSS {peak:.0f} MB)", seconds, None,
                  None, "<= 30 s, 800 MB", seconds <= 30 and peak <= 800)  # fmt: skip


def graph_view_follows_3000_nodes() -> Result:
    """GraphView(loss), then loss.backward() of a 3,002-node chain: every engine step a
    frame (the issue: 85 s, 4.9 GB)."""
    x = vg.ones(4, requires_grad=True)
    y = x
    for _ in range(3000):
        y = y * 1.001
    loss = y.sum()
    view = GraphView(loss)
    started = time.perf_counter()
    loss.backward()
    seconds = time.perf_counter() - started
    frames = view.n_frames
    view.close()
    return Result(f"GraphView follows 3,002-node backward ({frames} frames)", seconds, None,
                  None, "<= 10 s", seconds <= 10)  # fmt: skip


CASES += [
    export_lesson_recording,
    export_training_200,
    replay_lesson_recording,
    replay_training_200,
    scrub_lesson_recording,
    scrub_training_3_steps,
    scrub_training_200,
    timeline_250k_events,
    graph_view_follows_3000_nodes,
]

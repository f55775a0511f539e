"""record() and the Timeline: every view shows the state at the scrubber's step.

The reference for "the state at step k" is always the plain fold of the recording's
first k events into a fresh state; the replay (snapshots + re-folding) and the widget
must agree with it, whichever way the scrubber moves. Expected dtypes and shapes in the
step descriptions come from PyTorch.
"""

from __future__ import annotations

import gc
import html
import json
import random
import re
import warnings

import pytest
import torch
from vizgrad.widgets import GraphView, Recording, StrideMap, Timeline, record
from vizgrad.widgets.export import export_data, export_html, read_page
from vizgrad.widgets.render.dispatch_tree import render_tree_html
from vizgrad.widgets.state.dispatch import DispatchState
from vizgrad.widgets.timeline import TRACE_WINDOW, Replay, describe_event, view_states

import vizgrad as vg
from vizgrad import events

XSS = "<img src=x onerror=alert(1)>"


def _program():
    """Forward with a view, an in-place write and a composite op; then backward."""
    x = vg.ones(2, 3, requires_grad=True)
    w = vg.full((3,), 2.0, requires_grad=True)
    y = x * w
    z = y.t().reshape(6)
    buf = vg.zeros(6)
    buf.add_(z.detach())
    (z * buf).sum().backward()


def _recording(max_events=1_000_000) -> Recording:
    with record(max_events=max_events) as rec:
        _program()
    return rec


@pytest.fixture(scope="module")
def rec() -> Recording:
    return _recording()


def folded(event_dicts, k) -> dict:
    """The reference: each view's state after the first ``k`` events, folded directly."""
    states = view_states()
    for d in event_dicts[:k]:
        for state in states.values():
            state.apply(d)
    return states


def as_json(states) -> dict:
    return {name: json.loads(json.dumps(state.to_json())) for name, state in states.items()}


# --- the replay -----------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["forward", "backward", "random"])
@pytest.mark.parametrize("snapshot_every", [1, 7, 500])
def test_replay_state_equals_direct_fold(rec, order, snapshot_every):
    dicts = rec.event_dicts()
    replay = Replay(dicts, snapshot_every=snapshot_every)
    n = replay.n_steps
    steps = list(range(0, n + 1, 3)) + [n]
    if order == "backward":
        steps.reverse()
    elif order == "random":
        random.Random(snapshot_every).shuffle(steps)
    for k in steps:
        assert as_json(replay.states_at(k)) == as_json(folded(dicts, k)), k
    # Snapshots were not disturbed by all that stepping.
    assert as_json(replay.states_at(n)) == as_json(folded(dicts, n))


def test_a_step_refolds_at_most_snapshot_every_events(rec):
    folds = []

    class Counting(DispatchState):
        def apply(self, event):
            folds.append(1)
            super().apply(event)

        def copy(self):
            other = super().copy()
            other.__class__ = Counting
            return other

    replay = Replay(rec.event_dicts(), make_states=lambda: {"dispatch": Counting()},
                    snapshot_every=10)  # fmt: skip
    rng = random.Random(0)
    for k in [rng.randrange(replay.n_steps + 1) for _ in range(40)] + [5, 4, 3, 60, 61]:
        folds.clear()
        replay.states_at(k)
        assert len(folds) <= 9 or len(folds) == 0


def test_replay_rejects_bad_snapshot_interval(rec):
    with pytest.raises(ValueError, match="snapshot_every"):
        Replay(rec.event_dicts(), snapshot_every=0)


# --- the widget -----------------------------------------------------------------------------


def _assert_views_at(timeline, dicts, k):
    reference = folded(dicts, k)
    assert timeline.step == k and timeline.scrubber.value == k
    assert as_json({"d": timeline.dispatch_trace.state}) == as_json({"d": reference["dispatch"]})
    # Its HTML (partly cached from earlier steps) is the fresh state's.
    current = reference["dispatch"].last_call if k else -1
    assert timeline.dispatch_trace.tree_html == render_tree_html(
        reference["dispatch"], max_calls=TRACE_WINDOW, current=current)  # fmt: skip
    fresh_graph = GraphView()
    fresh_graph.show_state(reference["graph"])
    assert timeline.graph_view.dot == fresh_graph.dot
    assert timeline.graph_view.graph_state == fresh_graph.graph_state
    fresh_map = StrideMap()
    fresh_map.show_state(reference["tensors"], timeline._tensor_ids)
    assert timeline.stride_map.data == fresh_map.data
    assert f'data-step="{k}"' in timeline.description.value
    fresh_graph.close()
    fresh_map.close()


def test_scrubber_moves_show_every_view_at_that_step(rec):
    dicts = rec.event_dicts()
    timeline = Timeline(rec, snapshot_every=6)
    n = timeline.replay.n_steps
    assert timeline.step == n == len(dicts)
    _assert_views_at(timeline, dicts, n)

    for k in (0, 17, 16, 40, n - 1, 33):  # the slider, dragged back and forth
        timeline.scrubber.value = k  # what the front end sends
        _assert_views_at(timeline, dicts, k)
    timeline.scrubber.value += 1  # the step-forward button
    _assert_views_at(timeline, dicts, 34)
    timeline.scrubber.value -= 1  # the step-back button, twice
    timeline.scrubber.value -= 1
    _assert_views_at(timeline, dicts, 32)
    timeline.step_by(5)
    _assert_views_at(timeline, dicts, 37)
    timeline.scrubber.playing = True  # play: the browser then sends one step per tick
    for k in (38, 39, 40):
        timeline.scrubber.value = k
        _assert_views_at(timeline, dicts, k)
    timeline.scrubber.playing = False

    timeline.scrubber.value = 0
    timeline.step_by(-1)  # stays at the first step
    assert timeline.step == 0 and "no event yet" in timeline.description.value
    assert timeline.dispatch_trace.n_calls == 0
    timeline.scrubber.value = n + 5  # out of range: clamped
    assert timeline.step == n == timeline.scrubber.value
    timeline.step_by(1)
    assert timeline.step == n
    assert timeline.scrubber.max == n
    timeline.close()


def test_step_description_names_the_kernel(rec):
    dicts = rec.event_dicts()
    k = next(i for i, d in enumerate(dicts, start=1) if d["kind"] == "kernel_chosen")
    expected = torch.ones(2, 3) * torch.full((3,), 2.0)
    timeline = rec.show()
    timeline.scrubber.value = k
    dtype = str(expected.dtype).split(".")[1]
    assert f"aten::mul.Tensor → CPU kernel {dtype} {list(expected.shape)}" in (
        timeline.description.value)  # fmt: skip
    # The dispatch trace highlights the call of the step.
    html = timeline.dispatch_trace.tree_html
    assert re.search(r'vg-trace-current" data-call="\d+" data-op="aten::mul.Tensor"', html)
    assert html.count("vg-trace-current") == 1
    timeline.close()


def test_describe_every_event_kind(rec):
    described = set()
    for d in rec.event_dicts():
        text = describe_event(events.event_from_dict(d))
        assert text and text != d["kind"]
        described.add(d["kind"])
    assert {"op_dispatched", "kernel_chosen", "view_created", "inplace_write", "node_created",
            "backward_started", "node_started", "node_finished"} <= described  # fmt: skip


def test_step_description_is_escaped():
    hostile = [events.OpDispatched(XSS, "AutogradCPU", "call", 0, "functional", ()).to_dict()]
    timeline = Timeline(hostile)
    assert "<img" not in timeline.description.value
    assert "&lt;img src=x onerror=alert(1)&gt;" in timeline.description.value
    assert "<img" not in timeline.dispatch_trace.tree_html
    timeline.close()


# --- bounded recordings and JSON -------------------------------------------------------------


def test_bounded_recording_drops_the_oldest_with_a_notice():
    full = _recording()
    with pytest.warns(UserWarning, match="oldest were dropped"):
        small = _recording(max_events=40)
    assert len(small) == 40
    assert small.dropped == len(full) - 40
    assert f"the {small.dropped:,} oldest were dropped" in small.notice
    assert "dropped" in repr(small)
    # The kept events are the most recent ones.
    assert [d["kind"] for d in small.to_dicts()] == [d["kind"] for d in full.to_dicts()[-40:]]

    timeline = small.show(snapshot_every=8)
    assert "oldest were dropped" in timeline.notice.value
    assert timeline.notice.layout.display is None  # visible
    dicts = small.event_dicts()
    for k in (40, 3, 25):  # a recording that starts mid-call still replays
        timeline.scrubber.value = k
        _assert_views_at(timeline, dicts, k)
    timeline.close()

    quiet = _recording()
    assert quiet.notice == "" and quiet.dropped == 0
    timeline = quiet.show()
    assert timeline.notice.layout.display == "none"
    timeline.close()


def test_record_rejects_an_empty_bound():
    with pytest.raises(ValueError, match="max_events"):
        record(max_events=0)


def test_json_round_trip(rec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        small = _recording(max_events=50)
    for original in (rec, small):
        loaded = Recording.from_json(original.to_json())
        assert isinstance(loaded, Recording)
        assert json.loads(json.dumps(loaded.to_dicts())) == json.loads(
            json.dumps(original.to_dicts())
        )
        assert (loaded.dropped, loaded.max_events) == (original.dropped, original.max_events)
        assert json.loads(loaded.to_json()) == json.loads(original.to_json())
        a, b = Replay(original.event_dicts()), Replay(loaded.event_dicts())
        for k in (0, 10, len(loaded) // 2, len(loaded)):
            assert as_json(a.states_at(k)) == as_json(b.states_at(k))
    data = json.loads(rec.to_json())
    data["schema_version"] = 999
    with pytest.raises(ValueError, match="schema version"):
        Recording.from_json(json.dumps(data))


def test_to_html_is_written_by_the_exporter(rec, tmp_path):
    """``rec.to_html`` is ``export.export_html`` with its options: the same page."""
    names = {"a": vg.ones(1)}
    written = rec.to_html(tmp_path / "named.html", names=names, title="t", max_frames=5)
    assert written == tmp_path / "named.html"
    expected = export_html(rec, tmp_path / "direct.html", names=names, title="t", max_frames=5)
    assert read_page(written.read_text()) == read_page(expected.read_text())
    assert "<title>t</title>" in written.read_text()
    assert len(read_page(written.read_text())[0]["frames"]) == 5


def test_record_is_a_context_manager_that_stops():
    with record() as rec:
        vg.ones(2) + 1
    n = len(rec)
    assert n > 0
    vg.ones(2) + 1
    assert len(rec) == n


def test_a_call_in_progress_is_shown_in_progress_at_every_step_until_it_returns():
    """Lesson 7's graph: at each step inside a call (before its OpReturned) the trace
    says the call is running and what autograd decided, never "nothing recorded"."""
    with record() as recording:
        x = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = vg.tensor([0.5, -1.0, 0.25], requires_grad=True)
        a = x * w
        s = a.exp() + a * 3
        s.sum().backward()
    timeline = Timeline(recording)
    try:
        kinds = [d["kind"] for d in timeline.replay.events]
        add_open = next(i for i, d in enumerate(timeline.replay.events)
                        if d["kind"] == "op_dispatched" and d["op"] == "aten::add.Tensor") + 1  # fmt: skip
        add_closed = add_open + kinds[add_open:].index("op_returned") + 1
        for step in range(add_open, add_closed + 1):
            timeline.step = step
            current = re.search(r'<li class="vg-trace-call[^"]*vg-trace-current.*?</ol>',
                                timeline.dispatch_trace.tree_html, re.S).group(0)  # fmt: skip
            assert 'data-op="aten::add.Tensor"' in current
            assert "nothing recorded" not in current
            running = step < add_closed
            assert ("vg-trace-running" in current.split(">", 1)[0]) == running, step
            assert ("in progress: not returned yet" in current) == running, step
            node_recorded = "node_created" in kinds[add_open - 1 : step]
            if not node_recorded:
                assert "records AddBackward0 once the kernel returns (call in progress)" in current
            else:
                assert "recorded AddBackward0" in current
    finally:
        timeline.close()


# --- names, the same way everywhere -------------------------------------------------------


def _made_before_recording():
    """w and x exist before the recording starts: it names them but never saw them made."""
    w = vg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    x = vg.arange(6.0).view(2, 3)
    with record() as recording:
        loss = (x.t() * 2).sum() + (w * 3).sum()
        loss.backward()
    return recording, w, x


def _dag_labels(svg: str) -> set[str]:
    return {html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)}


def test_show_takes_names_as_to_html_and_graph_view_do():
    recording, w, x = _made_before_recording()
    for names in ({"w": w, "x": x}, {w: "w", x: "x"}):
        timeline = recording.show(names=names)
        try:
            labels = _dag_labels(timeline.graph_view.svg)
            # Made before recording: still drawn with its shape (it was "(shape unknown)").
            assert "w: [3] float32" in labels
            assert not any("shape unknown" in label for label in labels)
            first_call = next(i for i, d in enumerate(timeline.replay.events)
                              if d["kind"] == "op_dispatched") + 1  # fmt: skip
            timeline.step = first_call  # x.t(): the stride map shows x, named, with its geometry
            views = timeline.stride_map.data["views"]
            assert views[0]["name"] == "x"
            assert (views[0]["shape"], views[0]["stride"]) == ([2, 3], [3, 1])
            assert timeline.stride_map.data["storages"][0]["numel"] == 6
        finally:
            timeline.close()
    page = export_data(recording, names={"w": w, "x": x})
    assert "w: [3] float32" in _dag_labels(page["dags"][-1])
    # The page's stride maps as export.js draws them: a shared map with its frame's names.
    drawn = [re.sub(r"@@(\d+)@@", lambda m, f=f: page["stride_names"][f["names"]][int(m[1])],
                    page["stride_maps"][f["stride"]]["html"])
             for f in page["frames"]]  # fmt: skip
    assert any("x</div>" in s or ">x:" in s for s in drawn)


def test_without_names_a_leaf_made_before_recording_still_has_its_shape():
    recording, w, x = _made_before_recording()
    timeline = recording.show()
    try:
        labels = _dag_labels(timeline.graph_view.svg)
        assert "[3] float32" in labels and not any("shape unknown" in t for t in labels)
    finally:
        timeline.close()


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_bad_names_raise_one_clear_error_and_nothing_at_garbage_collection():
    recording, w, _ = _made_before_recording()
    with pytest.raises(TypeError, match=r"Timeline\(\): names must map names to tensors"):
        recording.show(names=["w"])
    with pytest.raises(TypeError, match=r"GraphView\(\): names must map names to tensors"):
        GraphView(names={"w": 3})
    with pytest.raises(TypeError, match=r"to_html\(\): names must map"):
        export_data(recording, names={"w": "x"})
    with pytest.raises(TypeError):
        recording.show(nmaes={"w": w})  # a misspelt option: Python's own error, and no other
    gc.collect()  # a half-built Timeline or GraphView closes without an error of its own


def test_names_need_the_recording_that_saw_the_tensors():
    recording, w, _ = _made_before_recording()
    loaded = Recording.from_json(recording.to_json())
    assert loaded.loaded and not recording.loaded
    with pytest.raises(ValueError, match="loaded from JSON or is a list of events"):
        loaded.show(names={"w": w})
    loaded.show().close()  # without names it replays as before

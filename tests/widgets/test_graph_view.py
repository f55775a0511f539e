"""GraphView: state folded from autograd events, golden DOT, layouts, widget traitlets.

Structure is checked against PyTorch's own graph (``grad_fn.next_functions``), the
backward states against the events the engine emitted and the order PyTorch's engine
runs the same graph in; the golden DOT file pins determinism.
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest
import torch
from vizgrad.widgets import GraphView
from vizgrad.widgets.render import dag_layout
from vizgrad.widgets.render.dag_dot import dag_dot, graph_drawing
from vizgrad.widgets.render.dag_layout import (
    DOT_MISSING_NOTICE,
    builtin_svg,
    longest_path_layers,
    render_svg,
)
from vizgrad.widgets.state.graph import GraphState, events_for_graph

import vizgrad as vg
from vizgrad import events

GOLDEN = Path(__file__).parent / "golden"
XSS = "<img src=x onerror=alert(1)>"


# --- helpers ------------------------------------------------------------------------


def leaves(lib):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
    return a, b


def expression(a, b):
    return (a * b + a).sum()


def recorded(backward: bool = False):
    """The vizgrad expression run under a Recorder: (recording, a, b, y)."""
    with events.Recorder() as rec:
        a, b = leaves(vg)
        y = expression(a, b)
        if backward:
            y.backward()
    return rec, a, b, y


def renumbered(rec) -> list:
    """The recording as it comes back from JSON: ids renumbered from 1."""
    return events.Recorder.from_json(rec.to_json()).events


def fold(event_list) -> GraphState:
    state = GraphState()
    for event in event_list:
        state.apply(event)
    return state


def short(name: str) -> str:
    return name.rsplit("::", 1)[-1]


def torch_structure(fn):
    """``(name, (children...))`` from a torch or vizgrad ``grad_fn``, children in edge order."""
    children = tuple(torch_structure(n) for n, _ in fn.next_functions if n is not None)
    return (short(fn.name()), children)


def state_structure(state: GraphState, node: int):
    record = state.nodes[node]
    children = tuple(state_structure(state, n) for n, _ in record["next"] if n)
    return (short(record["name"]), children)


def state_root(state: GraphState) -> int:
    pointed_at = {edge[2] for edge in state.edges()}
    (root,) = [n for n in state.nodes if n not in pointed_at]
    return root


def svg_classes(svg: str) -> dict[str, set[str]]:
    """SVG ``<g id=... class=...>`` -> set of classes (graphviz writes '-' as '&#45;')."""
    found = {}
    for element_id, classes in re.findall(r'<g id="([^"]+)" class="([^"]+)"', svg):
        found[html.unescape(element_id)] = set(html.unescape(classes).split())
    return found


# --- structure ------------------------------------------------------------------------


def test_structure_matches_torch_next_functions():
    rec, a, b, y = recorded()
    ta, tb = leaves(torch)
    expected = torch_structure(expression(ta, tb).grad_fn)
    for event_list in (rec.events, renumbered(rec), events_for_graph(y)):
        state = fold(event_list)
        assert state_structure(state, state_root(state)) == expected
    assert torch_structure(y.grad_fn) == expected


def test_leaves_and_shapes_come_from_events():
    rec, a, b, y = recorded()
    state = fold(renumbered(rec))
    names = {short(r["name"]) for r in state.nodes.values()}
    assert names == {"AccumulateGrad", "MulBackward0", "AddBackward0", "SumBackward0"}
    leaf_tensors = state.leaves().values()
    assert [state.tensors[t]["shape"] for t in leaf_tensors] == [list(a.shape), list(b.shape)]
    root = state.nodes[state_root(state)]
    assert state.tensors[root["outputs"][0]]["shape"] == list(y.shape)


def test_walked_graph_keeps_input_nr_of_multi_output_nodes():
    x = vg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    tx = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    first, second = x.unbind(0)
    t_first, t_second = tx.unbind(0)
    y, ty = first * second, t_first * t_second
    state = fold(events_for_graph(y))
    mul = state.nodes[state_root(state)]
    assert [nr for _, nr in mul["next"]] == [nr for _, nr in ty.grad_fn.next_functions]


# --- golden DOT -------------------------------------------------------------------------


def named_dot(event_list, a, b, **options) -> str:
    state = GraphState()
    state.name_tensor(a._id, "a")
    state.name_tensor(b._id, "b")
    for event in event_list:
        state.apply(event)
    return dag_dot(state, **options)


@pytest.mark.parametrize("show_saved", [False, True])
def test_golden_dot(show_saved):
    rec, a, b, y = recorded()
    dot = named_dot(rec.events, a, b, show_saved=show_saved)
    golden = GOLDEN / f"mul_add_sum{'_saved' if show_saved else ''}.dot"
    if os.environ.get("VIZGRAD_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(dot)
    assert dot == golden.read_text()
    # The same drawing from a saved recording, and from the graph walked afterwards.
    plain = dag_dot(fold(rec.events), show_saved=show_saved)
    assert dag_dot(fold(renumbered(rec)), show_saved=show_saved) == plain
    assert dag_dot(fold(events_for_graph(y)), show_saved=show_saved) == plain
    assert GraphView(y, names={"a": a, "b": b}, show_saved=show_saved).dot == dot


def test_dot_does_not_depend_on_what_ran_before():
    first = dag_dot(fold(recorded()[0].events))
    for _ in range(3):  # engine ids keep growing; the drawing's ids do not
        vg.tensor([1.0], requires_grad=True).exp().sum()
    assert dag_dot(fold(recorded()[0].events)) == first


def test_saved_tensor_toggle_matches_what_torch_saves():
    rec, a, b, y = recorded()
    state = fold(renumbered(rec))
    ta, tb = leaves(torch)
    t_mul = expression(ta, tb).grad_fn.next_functions[0][0].next_functions[0][0]
    torch_saved = [k for k in dir(t_mul) if k.startswith("_saved_") and not k.endswith("_raw")]
    torch_saved = [k for k in torch_saved if isinstance(getattr(t_mul, k), torch.Tensor)]
    mul = next(n for n, r in state.nodes.items() if r["name"] == "MulBackward0")

    with_saved = svg_classes_from_drawing(graph_drawing(state, show_saved=True))
    without = svg_classes_from_drawing(graph_drawing(state, show_saved=False))
    saved_boxes = sorted(i for i, c in with_saved.items() if "vg-saved" in c)
    assert saved_boxes == [f"n{mul}_s{i}" for i in range(len(torch_saved))]
    assert not any("vg-saved" in c for c in without.values())
    assert "vg-saved-edge" in dag_dot(state, show_saved=True)


def svg_classes_from_drawing(drawing) -> dict[str, set[str]]:
    return {node.id: set(node.classes) for node in drawing.nodes}


# --- backward, step by step -------------------------------------------------------------


def test_backward_states_follow_the_engine_events():
    rec, a, b, y = recorded(backward=True)
    state = GraphState()
    checked = set()
    for event in renumbered(rec):
        state.apply(event)
        if event.kind == "backward_started":
            assert state.dependencies == event.dependencies and state.roots == list(event.roots)
            started = event
        elif event.kind == "ready_queue_changed":
            assert state.queue == list(event.queue)
            # The event says only the counts its step changed; the state keeps them all.
            assert event.dependencies.items() <= dict(state.dependencies).items()
            assert set(state.dependencies.keys()) == set(started.dependencies)
        elif event.kind == "node_started":
            assert state.running == event.node
            assert event.node not in state.queue
        elif event.kind == "node_finished":
            assert state.running == 0 and event.node in state.finished
            for position, summary in enumerate(event.grad_outputs):
                if summary != "None":
                    assert state.edge_grads[(event.node, position)] == summary
        elif event.kind == "grad_accumulated":
            assert state.accumulated[event.tensor] == event.grad
        else:
            continue
        checked.add(event.kind)
    assert checked == {"backward_started", "ready_queue_changed", "node_started",
                       "node_finished", "grad_accumulated"}  # fmt: skip
    assert state.phase == "done"


def test_backward_runs_nodes_in_torch_order():
    rec, *_ = recorded(backward=True)
    ran = [short(e.name) for e in rec.events if e.kind == "node_started"]
    ta, tb = leaves(torch)
    ty = expression(ta, tb)
    torch_ran = []
    stack, seen = [ty.grad_fn], set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        node.register_prehook(lambda grads, node=node: torch_ran.append(short(node.name())))
        stack += [n for n, _ in node.next_functions if n is not None]
    ty.backward()
    assert ran == torch_ran


def test_dot_highlights_the_chosen_step():
    rec, *_ = recorded(backward=True)
    recording = renumbered(rec)
    state = GraphState()
    for event in recording:
        state.apply(event)
        if event.kind == "node_started" and event.name == "MulBackward0":
            break
    mul = event.node
    classes = svg_classes_from_drawing(graph_drawing(state))
    assert "vg-running" in classes[f"n{mul}"]
    assert [n for n, c in classes.items() if "vg-running" in c] == [f"n{mul}"]
    done = {f"n{n}" for n in state.finished}
    assert {n for n, c in classes.items() if "vg-done" in c} == done
    drawing = graph_drawing(state)
    carried = {e.id for e in drawing.edges if "vg-carried" in e.classes}
    assert carried == {f"e_n{n}_{p}" for n, p in state.edge_grads}
    dot = dag_dot(state)
    assert f"dependencies: {state.dependencies[mul]}" in dot


def test_state_snapshots_and_json_round_trip():
    rec, a, b, y = recorded(backward=True)
    state = GraphState()
    state.name_tensor(1, XSS)
    snapshots = []
    for event in renumbered(rec):
        state.apply(event)
        snapshots.append((state.copy(), dag_dot(state, show_values=True)))
    for snapshot, dot in snapshots[::7]:
        assert dag_dot(snapshot, show_values=True) == dot  # later events left it alone
        again = GraphState.from_json(json.loads(json.dumps(snapshot.to_json())))
        assert dag_dot(again, show_values=True) == dot


# --- layout -------------------------------------------------------------------------


@pytest.fixture
def no_dot(monkeypatch):
    monkeypatch.setattr(dag_layout.shutil, "which", lambda name: None)


def test_fallback_layout_draws_the_same_nodes(no_dot):
    rec, *_ = recorded(backward=True)
    state = fold(renumbered(rec))
    drawing = graph_drawing(state, show_saved=True)
    layout = render_svg(drawing)
    assert layout.engine == "builtin"
    assert layout.notice == DOT_MISSING_NOTICE
    assert layout.svg.startswith("<svg") and layout.svg.endswith("</svg>")
    classes = svg_classes(layout.svg)
    for node in drawing.nodes:
        assert classes[node.id] == {"node", *node.classes}
    for edge in drawing.edges:
        assert classes[edge.id] == {"edge", *edge.classes}
    assert builtin_svg(drawing) == layout.svg  # deterministic


def test_dot_and_fallback_give_the_same_ids_and_classes(monkeypatch):
    rec, *_ = recorded(backward=True)
    drawing = graph_drawing(fold(renumbered(rec)), show_saved=True)
    with_dot = render_svg(drawing)
    assert with_dot.engine == "dot" and with_dot.notice == ""
    monkeypatch.setattr(dag_layout.shutil, "which", lambda name: None)
    assert svg_classes(render_svg(drawing).svg) == svg_classes(with_dot.svg)


def test_a_failing_dot_falls_back_with_a_notice(monkeypatch):
    monkeypatch.setattr(dag_layout.shutil, "which", lambda name: "/bin/false")
    rec, *_ = recorded()
    layout = render_svg(graph_drawing(fold(rec.events)))
    assert layout.engine == "builtin" and "graphviz 'dot' failed" in layout.notice


def test_graphs_too_costly_for_dot_use_the_builtin_layout():
    x, w = leaves(vg)
    y = x
    for _ in range(60):  # every step points back at the same two leaves: long edges
        y = vg.tanh(y) * w + x
    drawing = graph_drawing(fold(events_for_graph(y.sum())))
    layout = render_svg(drawing)
    assert layout.engine == "builtin" and "large graph" in layout.notice
    assert len([c for c in svg_classes(layout.svg).values() if "node" in c]) == len(drawing.nodes)


def test_widget_without_graphviz_shows_the_notice(no_dot):
    a, b = leaves(vg)
    view = GraphView(expression(a, b))
    assert view.notice == DOT_MISSING_NOTICE
    assert "vg-dag-notice" in view._esm
    assert len([c for c in svg_classes(view.svg).values() if "node" in c]) == 5
    view.close()


def test_layers_point_every_edge_down():
    ids = [f"n{i}" for i in range(8)]
    edges = [("n0", "n1"), ("n1", "n2"), ("n0", "n2"), ("n2", "n3"), ("n0", "n3"),
             ("n4", "n3"), ("n5", "n6"), ("n6", "n7"), ("n7", "n5")]  # fmt: skip  # a cycle
    layer = longest_path_layers(ids, edges)
    assert [layer[f"n{i}"] for i in range(5)] == [0, 1, 2, 3, 0]
    assert all(layer[s] < layer[t] for s, t in edges[:6])


# --- escaping -------------------------------------------------------------------------


@pytest.mark.parametrize("graphviz", [True, False])
def test_user_names_are_escaped(monkeypatch, graphviz):
    if not graphviz:
        monkeypatch.setattr(dag_layout.shutil, "which", lambda name: None)
    a, b = leaves(vg)
    y = expression(a, b)
    view = GraphView(y, names={XSS: a, 'quote" \\ back': b}, show_saved=True, show_values=True)
    assert XSS not in view.dot and "&lt;img src=x onerror=alert(1)&gt;" in view.dot
    assert "<img" not in view.svg
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", view.svg)]
    assert any(XSS in t for t in texts)  # shown as text
    assert XSS in json.dumps(view.panel) or XSS in json.dumps(view.graph_state)
    view.close()


# --- the widget -----------------------------------------------------------------------


def subscribed(view) -> bool:
    return view._on_event in events.bus.subscribers()


def node_ids(view) -> set[str]:
    return {i for i, c in svg_classes(view.svg).items() if "node" in c}


def test_widget_draws_an_existing_graph_and_closes():
    a, b = leaves(vg)
    view = GraphView(expression(a, b), names={"a": a})
    assert node_ids(view) == {"n1", "n2", "n3", "n4", "n5"}
    assert set(view.graph_state["nodes"]) == {"1", "2", "3", "4", "5"}
    assert view.panel["phase"] == "forward: 5 nodes recorded"
    assert subscribed(view)
    view.close()
    assert not subscribed(view)


def test_widget_grows_live_inside_with_block():
    a, b = leaves(vg)
    a.exp()  # a's AccumulateGrad is made now, before the view: it will be "unseen"
    view = GraphView()
    assert node_ids(view) == set()
    with view:
        assert view.following
        y = expression(a, b)
    assert not view.following
    names = sorted(short(r["name"]) for r in view.graph_state["nodes"].values())
    assert names == ["AccumulateGrad", "AddBackward0", "MulBackward0", "SumBackward0"]
    unseen = [i for i, c in svg_classes(view.svg).items() if "vg-unseen" in c]
    assert len(unseen) == 1 and len(node_ids(view)) == 5
    vg.tensor([1.0], requires_grad=True).exp()  # not following any more
    assert len(view.graph_state["nodes"]) == 4
    view.follow()
    z = y * 2
    view.unfollow()
    assert len(view.graph_state["nodes"]) == 5 and z.grad_fn is not None
    view.close()


def test_widget_steps_through_backward_frames():
    a, b = leaves(vg)
    y = expression(a, b)
    view = GraphView(y, names={"a": a})
    with events.Recorder() as rec:
        y.backward()
    backward_events = [e for e in rec.events if GraphState.is_backward_event(e)]
    assert view.n_frames == len(backward_events)
    assert view.frame == view.n_frames - 1
    assert view.panel["phase"] == "backward done"
    # the front end moves the slider to the step where MulBackward0 starts
    step = next(i for i, e in enumerate(backward_events)
                if e.kind == "node_started" and e.name == "MulBackward0")  # fmt: skip
    view.frame = step
    running = [i for i, c in svg_classes(view.svg).items() if "vg-running" in c]
    assert running == ["n3"] and view.panel["running"] == "MulBackward0"
    queue_step = step - 1  # the queue just before: MulBackward0 alone, ready
    view.frame = queue_step
    assert view.panel["queue"] == ["MulBackward0 (seq 0)"]
    # a gets gradients from AddBackward0 (already run) and MulBackward0 (not yet)
    assert dict(view.panel["dependencies"])["AccumulateGrad(a)"] == 1
    assert backward_events[queue_step].kind == "ready_queue_changed"
    # Sum (the root: no count) and Add ran, Mul is ready: each leaf waits for Mul's gradient.
    assert dict(view.panel["dependencies"]) == {
        "AccumulateGrad(a)": 1, "AccumulateGrad(tensor 2)": 1, "MulBackward0": 0,
        "AddBackward0": 0}  # fmt: skip
    view.close()


def test_widget_toggles_from_the_front_end():
    a, b = leaves(vg)
    view = GraphView(expression(a, b))
    assert not any("vg-saved" in c for c in svg_classes(view.svg).values())
    view.show_saved = True  # what the checkbox does
    assert sum("vg-saved" in c for c in svg_classes(view.svg).values()) == 2
    view.show_values = True
    assert "= [1., 2., 3.]" in html.unescape(view.svg)
    view.close()


def test_show_state_replays_and_stops_listening():
    rec, *_ = recorded(backward=True)
    recording = renumbered(rec)
    view = GraphView()
    state = GraphState()
    for event in recording[: len(recording) // 2]:
        state.apply(event)
    view.show_state(state)
    assert not subscribed(view)
    assert view.dot == dag_dot(state)
    assert view.graph_state == state.to_json(drawn_only=True)
    view.close()


def test_a_failing_view_never_breaks_the_computation(monkeypatch):
    a, b = leaves(vg)
    view = GraphView(expression(a, b)).follow()

    def broken(event):
        raise ValueError("boom")

    monkeypatch.setattr(view._state, "apply", broken)
    y = expression(a, b)  # must not raise
    y.backward()
    assert "GraphView stopped following events: ValueError: boom" in view.notice
    assert not subscribed(view)
    view.close()


def test_backward_of_another_graph_is_not_shown():
    a, b = leaves(vg)
    view = GraphView(expression(a, b))
    other = vg.tensor([1.0], requires_grad=True).exp().sum()
    other.backward()
    assert view.n_frames == 0 and view.panel["phase"].startswith("forward")
    view.close()


def test_following_a_long_backward_keeps_frames_that_share_their_tables():
    """One frame per engine step, each a snapshot: they share every table the step did
    not write (a 3,000-node backward once took 4.9 GB of full copies)."""
    x = vg.ones(4, requires_grad=True)
    y = x
    for _ in range(300):
        y = y * 1.001
    loss = y.sum()
    view = GraphView(loss)
    loss.backward()
    frames = view._frames
    assert len(frames) > 900
    first, last = frames[0], frames[-1]
    assert first.nodes._blocks[0] is last.nodes._blocks[0]  # backward adds no node
    assert set(first.dependencies.values()) == {1}  # counted before anything ran
    assert set(last.dependencies.values()) == {0} and last.phase == "done"
    assert len(last.finished) == 302 and len(first.finished) == 0
    view.close()


def test_a_backward_pass_that_only_shares_a_leaf_is_not_shown():
    """Lesson 6: a view of ``loss``, then ``s = w.sin(); s.sum().backward()`` (same leaf w)."""
    w = vg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    x = vg.tensor([1.0, 2.0, 3.0])
    loss = (w * x).sum()
    view = GraphView(loss, names={"w": w, "x": x})
    drawn = set(view.graph_state["nodes"])
    svg = view.svg
    s = w.sin()
    s.sum().backward()
    assert view.n_frames == 0 and view.panel["phase"] == "forward: 3 nodes recorded"
    assert view.panel["last_step"] == "" and view.svg == svg
    assert set(view.graph_state["nodes"]) == drawn
    (w * w).sum().backward()  # another graph of w: not this one either
    assert view.n_frames == 0
    loss.backward()  # this view's own graph: every step shown, no other node
    assert view.n_frames > 0 and view.panel["phase"] == "backward done"
    assert set(view.graph_state["nodes"]) == drawn
    assert "SinBackward0" not in view.dot
    view.close()


def test_a_backward_pass_from_a_node_inside_the_graph_is_shown():
    a, b = leaves(vg)
    inner = a * b
    view = GraphView((inner + 1).sum())
    drawn = set(view.graph_state["nodes"])
    inner.backward(vg.ones_like(inner))  # starts at MulBackward0, which the view draws
    assert view.n_frames > 0 and view.panel["phase"] == "backward done"
    assert [title for title, _ in view.panel["dependencies"]] == [
        "AccumulateGrad(tensor 1)", "AccumulateGrad(tensor 2)"]  # fmt: skip
    assert set(view.graph_state["nodes"]) == drawn
    view.close()


def test_leaves_made_before_the_view_followed_are_drawn_with_their_shapes():
    w = vg.tensor([[1.0, 2.0, 3.0]], requires_grad=True)  # made before the view exists
    b = vg.zeros(1, requires_grad=True)
    view = GraphView()
    with view:
        (w * 2 + b).sum()
    labels = html.unescape(view.svg)
    assert "(shape unknown)" not in labels
    assert "[1, 3] float32" in labels and "[1] float32" in labels
    view.close()


# --- what a view costs the engine -----------------------------------------------------------


class _CountingView(GraphView):
    """A GraphView that counts the events the bus hands it."""

    heard = 0

    def _on_event(self, event) -> None:
        _CountingView.heard += 1  # (anywidget gives each widget a class of its own)
        super()._on_event(event)


def test_dropped_views_cost_an_operator_call_nothing_and_a_backward_pass_one_call_each():
    w = vg.ones(3, requires_grad=True)
    loss = (w * 3).sum()
    for _ in range(50):
        _CountingView(loss)  # dropped at once (ipywidgets still holds every widget)
    assert not events.bus.active  # so an operator call builds no event at all
    assert events.bus.wanted == {"backward_started"}
    _CountingView.heard = 0
    vg.ones(3) + 1.0
    assert _CountingView.heard == 0
    (vg.ones(3, requires_grad=True) * 2).sum().backward()  # another graph
    assert _CountingView.heard == 50  # BackwardStarted, once per view


def test_a_view_listens_to_the_steps_of_its_own_pass_then_waits_again():
    w = vg.ones(3, requires_grad=True)
    loss = (w * 3).sum()
    view = GraphView(loss)
    during = []

    def note(grad):
        during.append(events.bus.wanted)  # a hook runs in the middle of the pass

    w.register_hook(note)
    loss.backward()
    assert during == [GraphState.BACKWARD_KINDS]
    assert view.n_frames > 0 and events.bus.wanted == {"backward_started"}
    with view:  # following: every event
        assert events.bus.active and "node_created" in events.bus.wanted
        (w * 2).sum()
    assert not events.bus.active
    view.close()
    assert events.bus.wanted == frozenset()

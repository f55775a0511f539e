"""``vizgrad.autograd.graph_events``: a live graph told as the events that built it."""

from __future__ import annotations

import json

import vizgrad as vg
from vizgrad import events
from vizgrad.autograd import graph_events


def _forward():
    a = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = vg.tensor([4.0, 5.0, 6.0], requires_grad=True)
    return a, b, (a * b + a).exp().sum()


def test_nodes_are_the_ones_the_recorder_saw():
    with events.Recorder() as rec:
        a, b, y = _forward()
    recorded = [e for e in rec.events if isinstance(e, events.NodeCreated)]
    described = [e for e in graph_events(y) if isinstance(e, events.NodeCreated)]
    fields = ("node", "name", "sequence_nr", "next_nodes", "next_input_nrs", "saved", "variable")
    assert [[getattr(e, f) for f in fields] for e in described] == [
        [getattr(e, f) for f in fields] for e in recorded]  # fmt: skip
    assert described[-1].outputs == (events.event_id(y),)
    assert [e.node for e in described] == [events.event_id(n) for n in _nodes_of(y)]


def _nodes_of(y):
    seen, stack = [], [y.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.append(node)
            stack += [n for n, _ in node.next_functions]
    return sorted(seen, key=events.event_id)


def test_ids_are_consistent_and_outputs_have_their_shapes():
    a, b, y = _forward()
    stream = graph_events(y)
    storages = {e.storage for e in stream if isinstance(e, events.StorageCreated)}
    tensors = {e.tensor: e for e in stream if isinstance(e, events.TensorCreated)}
    nodes = [e for e in stream if isinstance(e, events.NodeCreated)]
    assert {t.storage for t in tensors.values()} <= storages
    seen = set()
    for node in nodes:  # children before parents, every id described before it is named
        assert set(node.next_nodes) - {0} <= seen
        assert set(node.saved) | set(node.outputs) | ({node.variable} - {0}) <= set(tensors)
        seen.add(node.node)
    inner = {n.name: n.output_meta for n in nodes if not n.variable and not n.outputs}
    assert inner == {"MulBackward0": (((3,), "float32"),), "AddBackward0": (((3,), "float32"),),
                     "ExpBackward0": (((3,), "float32"),)}  # fmt: skip
    assert tensors[events.event_id(a)].requires_grad and tensors[events.event_id(y)].shape == ()


def test_roots_without_a_graph_tell_nothing_and_nodes_are_roots_too():
    a, b, y = _forward()
    assert graph_events(a, vg.ones(2), None) == []
    by_node = graph_events(y.grad_fn)
    assert [e.kind for e in by_node if e.kind == "node_created"] == ["node_created"] * 6
    assert all(e.outputs == () for e in by_node if e.kind == "node_created")


def test_output_meta_survives_json_and_recordings_keep_it():
    a, b, y = _forward()
    node = [e for e in graph_events(y) if e.kind == "node_created"][2]
    assert node.output_meta
    again = events.event_from_dict(json.loads(json.dumps(node.to_dict())))
    assert again == node
    # Recorded nodes leave it empty (their outputs' TensorCreated say it) and still load;
    # an AccumulateGrad tells its leaf's shape and dtype, as graph_events does.
    with events.Recorder() as rec:
        a, b, y = _forward()
    restored = events.Recorder.from_json(rec.to_json())
    assert restored.to_dicts() == rec.to_dicts()
    recorded = [e for e in restored.events if e.kind == "node_created"]
    assert all(e.output_meta == () for e in recorded if not e.variable)
    leaves = [e.output_meta for e in recorded if e.variable]
    assert leaves and all(meta == (((3,), "float32"),) for meta in leaves)
    described = {e.variable: e.output_meta for e in graph_events(y) if e.kind == "node_created"}
    assert described[events.event_id(a)] == (((3,), "float32"),)


def test_a_leaf_made_before_anyone_listened_is_described_by_its_accumulate_grad():
    w = vg.tensor([[1.0, 2.0]], requires_grad=True)  # made while nobody listens
    with events.Recorder() as rec:
        (w * 2).sum()
    (leaf,) = [e for e in rec.events if e.kind == "node_created" and e.variable]
    assert leaf.variable == events.event_id(w)
    assert leaf.output_meta == (((1, 2), "float32"),)
    assert not [e for e in rec.events if e.kind == "tensor_created" and e.tensor == leaf.variable]


def test_a_freed_graph_describes_no_saved_tensors():
    a, b, y = _forward()
    y.backward()
    assert all(e.saved == () for e in graph_events(y) if e.kind == "node_created")

"""Loading a recording checks it: a malformed or crafted file fails at once, saying what.

A recording is data from a file (``Recording.from_json``) or a list of event dicts
(``Timeline(events)``). Before anything folds it, every part is checked against the
event schema (``events.check_recording``, ``events.check_event_dict``): a wrong file
is a ``ValueError`` naming the event, the field and what the field should hold, never
a ``KeyError`` or ``AttributeError`` from inside a view. A recording too long to show
is refused with its size.
"""

from __future__ import annotations

import json

import pytest
from vizgrad.widgets.export import export_data
from vizgrad.widgets.recording import Recording, record
from vizgrad.widgets.timeline import MAX_SHOWN_EVENTS, Timeline

import vizgrad as vg
from vizgrad import events

TENSOR = {"kind": "tensor_created", "seq": 1, "tensor": 1, "storage": 1, "shape": [2, 3],
          "stride": [3, 1], "offset": 0, "dtype": "float32"}  # fmt: skip


def saved(*event_dicts, **top) -> str:
    data = {"schema_version": events.SCHEMA_VERSION, "dropped": 0, "events": list(event_dicts)}
    data.update(top)
    return json.dumps(data)


def changed(**fields) -> dict:
    event = {**TENSOR, **fields}
    return {k: v for k, v in event.items() if v is not ...}


CASES = [
    ("[]", "a recording is a JSON object"),
    (json.dumps({"events": []}), "schema version None"),
    (saved(events={}).replace('"events": []', '"events": {}'), "field 'events' must be a list"),
    (saved(dropped=-1), "field 'dropped' must be an integer >= 0"),
    (saved(max_events=0), "field 'max_events' must be an integer >= 1"),
    (saved(5), "event 0: expected an object"),
    (saved({"kind": "tensor_exploded"}), "event 0: field 'kind' must be one of"),
    (saved(changed(shape=...)), r"event 0 \(tensor_created\): missing field 'shape'"),
    (saved(changed(shape="2x3")), "field 'shape' must be a list of integers; got '2x3'"),
    (saved(changed(shape=[2, "3"])), "field 'shape' must be a list of integers"),
    (saved(changed(tensor=-4)), "field 'tensor' must be an integer >= 0; got -4"),
    (saved(changed(offset=True)), "field 'offset' must be an integer >= 0; got True"),
    (saved(changed(dtype=7)), "field 'dtype' must be a string; got 7"),
    (saved(changed(seq="1")), "field 'seq' must be an integer >= 0"),
    (saved(changed(stride=[1])), "'shape' and 'stride' must have the same length; got 2 and 1"),
    (saved(changed(shape=[-2, 3])), "field 'shape' must hold sizes >= 0"),
    (saved(changed(colour="red")), "unknown field 'colour'"),
    (saved(TENSOR, {"kind": "ready_queue_changed", "seq": 2, "queue": [1],
                    "dependencies": {"one": 1}}),  # fmt: skip
     r"event 1 \(ready_queue_changed\): field 'dependencies' must be an object of node id"),
    (saved({"kind": "op_dispatched", "seq": 1, "op": "aten::add", "key": "CPU",
            "action": "call", "depth": 0, "variant": "functional", "module": [["0"]]}),
     "field 'module' must be a list of \\[qualified name, type name\\] string pairs"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), CASES)
def test_a_malformed_recording_is_refused_naming_the_field(text, message):
    with pytest.raises(ValueError, match=message):
        Recording.from_json(text)


@pytest.mark.parametrize(("text", "message"), [c for c in CASES if '"events"' in c[0]
                                               and "event 0" in c[1] or "event 1" in c[1]])  # fmt: skip
def test_a_timeline_of_malformed_event_dicts_is_refused_before_it_folds_them(text, message):
    with pytest.raises(ValueError, match=message):
        Timeline(json.loads(text)["events"])
    with pytest.raises(ValueError, match=message):
        export_data(json.loads(text)["events"])


def test_a_saved_recording_reads_back_and_shows():
    x = vg.arange(6.0).view(2, 3).requires_grad_()
    with record() as rec:
        (x * 2).sum().backward()
    back = Recording.from_json(rec.to_json())
    assert back.to_dicts() == rec.to_dicts()
    timeline = back.show()
    assert timeline.replay.n_steps == len(rec)
    timeline.close()


class _Huge:
    """Stands for a recording loaded from a file far longer than any view replays."""

    def __len__(self) -> int:
        return MAX_SHOWN_EVENTS + 1

    def __iter__(self):
        raise AssertionError("a recording too long to show must not be read")


def test_a_recording_too_long_to_show_is_refused_with_its_size():
    with pytest.raises(ValueError, match=f"{MAX_SHOWN_EVENTS + 1:,} events: too many to show"):
        Timeline(_Huge())
    with pytest.raises(ValueError, match="too many to show"):
        export_data(_Huge())


def test_crafted_but_well_formed_events_replay_without_errors():
    """Ids that point nowhere, a node that points at itself, a vast storage: the views
    draw what they can (the checks are about form; the views about meaning)."""
    crafted = [
        {**TENSOR, "shape": [100000, 100000], "stride": [100000, 1]},
        {"kind": "storage_created", "seq": 2, "storage": 1, "dtype": "float32",
         "numel": 10**10},
        {"kind": "view_created", "seq": 3, "tensor": 9, "base": 8, "source": 8,
         "op": "aten::view", "shape": [2], "stride": [1], "offset": 0},
        {"kind": "node_created", "seq": 4, "node": 1, "name": "MulBackward0",
         "sequence_nr": 0, "outputs": [1], "next_nodes": [1, 5]},
        {"kind": "op_returned", "seq": 5, "call": 77, "op": "aten::mul.Tensor"},
        {"kind": "backward_started", "seq": 6, "roots": [1], "dependencies": {"1": 0}},
        {"kind": "node_started", "seq": 7, "node": 1, "name": "MulBackward0",
         "grad_inputs": ["[2] float32"]},
        {"kind": "node_finished", "seq": 8, "node": 3, "name": "X", "grad_outputs": ["g"]},
        {"kind": "ready_queue_changed", "seq": 9, "queue": [], "dependencies": {}},
    ]  # fmt: skip
    timeline = Timeline(crafted)
    for step in range(len(crafted) + 1):
        timeline.step = step
    assert "n1" in timeline.graph_view.svg
    timeline.close()
    data = export_data(crafted)
    assert len(data["frames"]) == len(crafted) + 1

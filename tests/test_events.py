"""The event stream: schema, sequence numbers, JSON round trip, bounded recording."""

import json
import subprocess
import sys

import pytest

import vizgrad as vg
from vizgrad import events


def test_nobody_listening_means_bus_inactive_and_no_events_built():
    assert not events.bus.active
    built = []
    original = events.TensorCreated.__init__

    def spy(self, *args, **kwargs):
        built.append(args)
        original(self, *args, **kwargs)

    events.TensorCreated.__init__ = spy
    try:
        vg.add(vg.ones(2), 1)
    finally:
        events.TensorCreated.__init__ = original
    assert built == []


def test_recorder_sees_creation_dispatch_kernel_and_inplace_events_in_order():
    x = vg.ones(2, 3)
    with events.Recorder() as rec:
        y = x + 1
        x.add_(y)
    kinds = [e.kind for e in rec.events]
    assert kinds[:2] == ["op_dispatched", "op_dispatched"]
    assert "kernel_chosen" in kinds and "tensor_created" in kinds
    assert kinds[-2:] == ["inplace_write", "op_returned"]
    seqs = [e.seq for e in rec.events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    write = rec.events[-2]
    assert write.version == x._version == 1


def test_view_event_names_its_base_and_metadata():
    x = vg.ones(4, 4)
    with events.Recorder() as rec:
        v = x.as_strided((2, 2), (4, 1), 5)
    (view,) = [e for e in rec.events if isinstance(e, events.ViewCreated)]
    assert (view.tensor, view.base, view.source) == (v._id, x._id, x._id)
    assert (view.shape, view.stride, view.offset) == ((2, 2), (4, 1), 5)


def test_kernel_event_reports_broadcast_shape_promoted_dtype_and_strides():
    a = vg.ones(3, 1, dtype=vg.int32)
    b = vg.ones(4, dtype=vg.float64)
    with events.Recorder() as rec:
        c = a * b
    (kernel,) = [e for e in rec.events if isinstance(e, events.KernelChosen)]
    assert kernel.shape == (3, 4) == tuple(c.shape)
    assert kernel.dtype == "float64" and kernel.input_dtypes == ("int32", "float64")
    assert kernel.output_stride == c.stride()
    assert "float64" in kernel.reason


def test_recording_is_deterministic_and_survives_json_round_trip():
    def run():
        x = vg.ones(2, 2)
        with events.Recorder() as rec:
            (x + 1).as_strided((2,), (1,))
        return rec

    first, second = run(), run()
    # Engine ids differ between the runs; the recordings' renumbered ids do not.
    assert first.to_dicts() == second.to_dicts()
    text = first.to_json()
    data = json.loads(text)
    assert data["schema_version"] == events.SCHEMA_VERSION
    restored = events.Recorder.from_json(text)
    assert restored.to_dicts() == first.to_dicts()
    assert [type(e) for e in restored.events] == [type(e) for e in first.events]


def test_recorder_is_bounded_and_counts_what_it_dropped():
    x = vg.ones(2)
    with events.Recorder(max_events=10) as rec:
        for _ in range(20):
            x + 1
    assert len(rec) == 10
    assert rec.dropped > 0
    assert rec.events[-1].seq > rec.events[0].seq


def test_unsubscribe_stops_delivery_and_deactivates_bus():
    seen = []
    events.subscribe(seen.append)
    vg.ones(1) + 1
    events.unsubscribe(seen.append)
    count = len(seen)
    vg.ones(1) + 1
    assert len(seen) == count > 0
    assert not events.bus.active


class _Listener:
    """A subscriber that keeps what it hears (weakly subscribed in these tests)."""

    def __init__(self):
        self.kinds = []

    def on_event(self, event):
        self.kinds.append(event.kind)


def test_a_subscriber_hears_only_the_kinds_it_asked_for():
    writes, everything = _Listener(), _Listener()
    events.subscribe(writes.on_event, {"inplace_write"})
    try:
        assert events.bus.active and events.bus.wanted == {"inplace_write"}
        x = vg.ones(3)
        x + 1
        x.add_(1)
        assert writes.kinds == ["inplace_write"]
        with events.Recorder() as rec:  # another subscriber, of every kind
            x.add_(1)
        assert writes.kinds == ["inplace_write"] * 2
        assert "op_dispatched" in {e.kind for e in rec.events}
        events.subscribe(everything.on_event)
        events.unsubscribe(everything.on_event)
        assert events.bus.wanted == {"inplace_write"}
    finally:
        events.unsubscribe(writes.on_event)
    assert not events.bus.active and events.bus.wanted == frozenset()
    with pytest.raises(ValueError, match="unknown event kinds \\['inplace_wirte'\\]"):
        events.subscribe(writes.on_event, {"inplace_wirte"})
    with pytest.raises(ValueError, match="is not subscribed"):
        events.unsubscribe(writes.on_event)


def test_a_backward_only_subscriber_makes_operator_calls_build_no_event():
    listener = _Listener()
    events.subscribe(listener.on_event, {"backward_started"})
    try:
        assert not events.bus.active  # the dispatcher and tensor creation build nothing
        w = vg.ones(3, requires_grad=True)
        loss = (w * 2).sum()
        assert listener.kinds == []
        loss.backward()
        assert listener.kinds == ["backward_started"]  # and no other backward step
    finally:
        events.unsubscribe(listener.on_event)


def test_a_weak_subscription_ends_when_nobody_holds_the_subscriber():
    listener = _Listener()
    events.subscribe(listener.on_event, weak=True)
    vg.ones(1) + 1
    assert listener.kinds and listener.on_event in events.bus.subscribers()
    del listener  # nothing else holds it: the subscription ends with it
    assert events.bus.subscribers() == [] and not events.bus.active
    with pytest.raises(TypeError, match="needs a bound method"):
        events.subscribe(print, weak=True)


def test_a_weakly_subscribed_view_alive_at_exit_prints_nothing():
    """A script that ends with a view still subscribed exits silently (with
    ``weakref.WeakMethod``, CPython printed an ignored AttributeError at exit)."""
    script = (
        "from vizgrad import events\n"
        "class View:\n"
        "    def on_event(self, event): pass\n"
        "view = View()\n"
        "events.subscribe(view.on_event, {'backward_started'}, weak=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_reading_a_recording_of_another_schema_version_is_a_clear_error():
    with pytest.raises(ValueError, match="schema version"):
        events.Recorder.from_json(json.dumps({"schema_version": 999, "events": []}))


# --- call ids: the call tree by construction -----------------------------------------------


def _calls(rec):
    """``call id -> (op, parent)`` from each call's first step."""
    calls = {}
    for e in rec.events:
        if isinstance(e, events.OpDispatched):
            calls.setdefault(e.call, (e.op, e.parent))
    return calls


def test_a_copying_reshape_is_the_parent_of_its_clone_and_unsafe_view():
    x = vg.ones(2, 3).t()  # not viewable as 6 elements: reshape copies
    with events.Recorder() as rec:
        x.reshape(6)
    calls = _calls(rec)
    (reshape,) = [c for c, (op, _) in calls.items() if op == "aten::reshape"]
    assert calls[reshape][1] == 0
    inner = sorted(op for op, parent in calls.values() if parent == reshape)
    assert inner == ["aten::_unsafe_view", "aten::clone"]
    # Every step of one call carries the same id and parent.
    for e in rec.events:
        if isinstance(e, events.OpDispatched):
            assert calls[e.call] == (e.op, e.parent)


@pytest.mark.parametrize("source", ["x + 1", "x.add_(1)", "x.t().reshape(6)", "x.sum(0)",
                                    "x[0]", "vg.matmul(x, x.t())"])  # fmt: skip
def test_every_call_is_closed_by_one_op_returned_after_all_its_events(source):
    x = vg.ones(2, 3, requires_grad=not source.startswith("x.add_"))
    with events.Recorder() as rec:
        eval(source, {"x": x, "vg": vg})  # noqa: S307
    open_calls = []
    returned = []
    for e in rec.events:
        if isinstance(e, events.OpDispatched) and e.action == "call":
            assert e.parent == (open_calls[-1] if open_calls else 0)
            open_calls.append(e.call)
        elif isinstance(e, events.OpReturned):
            assert open_calls[-1] == e.call and e.error == ""  # calls return innermost first
            returned.append(open_calls.pop())
        elif isinstance(e, events.OpDispatched | events.KernelChosen | events.ViewCreated
                        | events.InplaceWrite | events.NodeCreated):  # fmt: skip
            assert e.call == open_calls[-1]  # emitted inside the innermost call
    assert open_calls == [] and len(returned) == len(set(returned)) == len(_calls(rec))


def test_kernel_event_names_the_qualified_overload_of_its_call():
    with events.Recorder() as rec:
        vg.ones(2) + vg.ones(2)
        vg.ones(2).mul_(2)
    kernels = [e for e in rec.events if isinstance(e, events.KernelChosen)]
    calls = _calls(rec)
    # As in PyTorch, a Python number passed to ``mul_`` is wrapped: the Tensor overload.
    assert [k.op for k in kernels] == ["aten::add.Tensor", "aten::mul_.Tensor"]
    assert all(calls[k.call][0] == k.op for k in kernels)


def test_a_call_that_raises_is_closed_with_the_exception_class_name():
    a, b, c = vg.ones(2), vg.ones(3), vg.ones(1)
    with events.Recorder() as rec:
        with pytest.raises(RuntimeError):
            a + b
        c + 1  # the next call is top level again
    returned = [e for e in rec.events if isinstance(e, events.OpReturned)]
    assert [(e.op, e.error) for e in returned] == [("aten::add.Tensor", "RuntimeError"),
                                                   ("aten::add.Tensor", "")]  # fmt: skip
    assert [parent for _, parent in _calls(rec).values()] == [0, 0]


def test_events_outside_any_call_name_call_zero():
    x = vg.ones(2, requires_grad=True)
    y = (x * 2).sum()
    with events.Recorder() as rec:
        y.backward()
    assert rec.events and all(getattr(e, "call", 0) == 0 for e in rec.events
                              if isinstance(e, events.NodeCreated))  # fmt: skip


def test_call_ids_are_renumbered_from_one_and_survive_json():
    vg.ones(1) + 1  # engine call ids are far from 1 by now
    with events.Recorder() as rec:
        vg.ones(2, 3).t().reshape(6)
    dicts = rec.to_dicts()
    ids = [d["call"] for d in dicts if d["kind"] == "op_dispatched"]
    assert sorted(set(ids)) == list(range(1, len(set(ids)) + 1)) and ids[0] == 1
    kernel_calls = [d["call"] for d in dicts if d["kind"] in ("kernel_chosen", "view_created")]
    assert kernel_calls and set(kernel_calls) <= set(ids)
    restored = events.Recorder.from_json(rec.to_json())
    assert restored.to_dicts() == dicts
    assert any(isinstance(e, events.OpReturned) for e in restored.events)


def test_a_version_1_recording_is_refused_with_a_clear_error():
    assert events.SCHEMA_VERSION == 2
    with pytest.raises(ValueError, match="schema version 1, this vizgrad reads version 2"):
        events.Recorder.from_json(json.dumps({"schema_version": 1, "events": []}))

"""The autograd events: enough to replay the engine's algorithm step by step."""

import vizgrad as vg
from vizgrad import events


def _record(fn):
    with events.Recorder() as rec:
        fn()
    return rec.events


def test_forward_announces_every_node_with_its_edges_and_saved_tensors():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    b = vg.tensor([3.0, 4.0], requires_grad=True)
    out = {}
    recorded = _record(lambda: out.setdefault("y", a * b + a))
    nodes = {e.node: e for e in recorded if isinstance(e, events.NodeCreated)}
    y = out["y"]
    add, mul = y.grad_fn, y.grad_fn.next_functions[0][0]
    accumulate_a = mul.next_functions[0][0]
    assert nodes[add._id].name == "AddBackward0" and nodes[add._id].outputs == (y._id,)
    assert nodes[add._id].next_nodes == (mul._id, accumulate_a._id)
    assert nodes[add._id].next_input_nrs == (0, 0)
    assert set(nodes[mul._id].saved) == {a._id, b._id}
    assert nodes[accumulate_a._id].variable == a._id
    # A node is announced before any node that points at it.
    order = [e.node for e in recorded if isinstance(e, events.NodeCreated)]
    assert order.index(accumulate_a._id) < order.index(mul._id) < order.index(add._id)


def test_backward_events_replay_the_dependency_counts_and_ready_queue():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    y = a * 2
    z = (y * y).sum()
    recorded = _record(z.backward)
    started = next(e for e in recorded if isinstance(e, events.BackwardStarted))
    assert started.roots == (z.grad_fn._id,)
    mul2 = z.grad_fn.next_functions[0][0]  # y * y
    mul1 = mul2.next_functions[0][0]  # a * 2
    assert started.dependencies[mul2._id] == 1
    assert started.dependencies[mul1._id] == 2  # y is used twice
    # Replaying the counts from the events reaches zero exactly when each node runs.
    by_id = {n._id: n for n in (z.grad_fn, mul2, mul1)}
    counts = dict(started.dependencies)
    ran = []
    for e in recorded:
        if isinstance(e, events.NodeStarted):
            assert counts.get(e.node, 0) == 0, f"{e.name} ran before its inputs arrived"
            ran.append(e.name)
        elif isinstance(e, events.NodeFinished) and e.node in by_id:
            for next_node, _ in by_id[e.node].next_functions:
                if next_node is not None:
                    counts[next_node._id] -= 1
    assert ran == ["SumBackward0", "MulBackward0", "MulBackward0",
                   "vizgrad::autograd::AccumulateGrad"]  # fmt: skip
    # Each queue change carries the counts its step changed, and they are the counts above.
    folded = dict(started.dependencies)
    for e in recorded:
        if isinstance(e, events.ReadyQueueChanged):
            folded.update(e.dependencies)
    accumulate = mul1.next_functions[0][0]
    assert folded == counts == {mul2._id: 0, mul1._id: 0, accumulate._id: 0}  # not the root
    queues = [e.queue for e in recorded if isinstance(e, events.ReadyQueueChanged)]
    assert queues[0] == (z.grad_fn._id,) and queues[-1] == ()
    (accumulated,) = [e for e in recorded if isinstance(e, events.GradAccumulated)]
    assert accumulated.tensor == a._id and "[2]" in accumulated.grad


def test_saved_tensor_version_checks_and_hooks_are_reported():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    y = a * a
    y.register_hook(lambda g: g)
    recorded = _record(lambda: y.sum().backward())
    checks = [e for e in recorded if isinstance(e, events.VersionChecked)]
    assert checks and all(c.saved_version == c.current_version == 0 for c in checks)
    assert any(isinstance(e, events.HookFired) and e.hook == "tensor" for e in recorded)


def test_in_place_through_a_view_announces_copy_slices_and_the_view_node():
    w = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    holder = {}

    def forward():
        x = w * 1
        x[0:2].mul_(2)
        holder["x"] = x

    recorded = _record(forward)
    names = [e.name for e in recorded if isinstance(e, events.NodeCreated)]
    assert "vizgrad::autograd::CopySlices" in names and "AsStridedBackward0" in names
    assert holder["x"].grad_fn.name() == "vizgrad::autograd::CopySlices"


def test_custom_function_nodes_are_announced():
    class Twice(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    a = vg.tensor([1.0], requires_grad=True)
    recorded = _record(lambda: Twice.apply(a))
    assert "TwiceBackward" in [e.name for e in recorded if isinstance(e, events.NodeCreated)]


def test_recorded_sequence_numbers_are_relative_to_the_recording():
    def run():
        a = vg.tensor([1.0], requires_grad=True)
        with events.Recorder() as rec:
            (a * 2 + 1).sum()
        return [d["sequence_nr"] for d in rec.to_dicts() if d["kind"] == "node_created"]

    first, second = run(), run()
    assert first == second
    assert min(first) == 0


def test_a_long_backward_sends_each_dependency_count_once_per_change():
    """Following a pass costs in proportion to its length: each queue change carries the
    counts that step changed, not the whole table (a chain of N nodes: N * N before)."""
    x = vg.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(300):
        y = y * 1.0
    recorded = _record(y.sum().backward)
    changes = [e for e in recorded if isinstance(e, events.ReadyQueueChanged)]
    assert len(changes) == 303  # the start, then one per node run
    assert sum(len(e.dependencies) for e in changes) == 301  # the edge into each non-root

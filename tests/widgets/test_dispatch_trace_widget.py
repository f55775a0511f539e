"""DispatchTrace: the call tree folded from events, its HTML and text views, the widget.

(Named ``..._widget`` because ``tests/test_dispatch_trace.py`` tests the engine's text
trace: pytest cannot collect two test modules with one basename.)

Expected dtypes, shapes, strides, versions, node names and decompositions come from
PyTorch running the same code.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from oracle import TorchOps, make_pair
from vizgrad.widgets.dispatch_trace import DispatchTrace
from vizgrad.widgets.render.dispatch_tree import (
    kept_calls,
    render_text,
    render_text_html,
    render_tree_html,
    step_decision,
)
from vizgrad.widgets.state.dispatch import DispatchState

import vizgrad as vg
from vizgrad import events

XSS = "<img src=x onerror=alert(1)>"


def trace_of(fn) -> DispatchState:
    """Run ``fn`` with a DispatchState subscribed to the bus."""
    state = DispatchState()
    events.subscribe(state.apply)
    try:
        fn()
    finally:
        events.unsubscribe(state.apply)
    return state


def top_calls(state):
    return [state.calls[i] for i in state.roots]


# --- the call tree ------------------------------------------------------------------------

PAIRS = [("float32", "float32"), ("int64", "float32"), ("int32", "float64"), ("float64", "int16")]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("dtypes", PAIRS)
def test_functional_call_kernel_and_node(dtypes, layout):
    va, ta = make_pair((3, 4), dtypes[0], layout, seed=1)
    vb, tb = make_pair((4,), dtypes[1], "contiguous", seed=2)
    if va.dtype.is_floating_point:
        va.requires_grad_(True)
        ta.requires_grad_(True)
    box = {}
    state = trace_of(lambda: box.setdefault("out", vg.mul(va, vb)))
    expected = torch.mul(ta, tb)

    (call,) = top_calls(state)
    assert call.op == "aten::mul.Tensor"
    assert call.variant == "functional"
    assert call.keys == ["AutogradCPU", "CPU"]
    assert call.inputs == (va._id, vb._id)
    k = call.kernel
    assert k["dtype"] == str(expected.dtype).split(".")[1]
    assert tuple(k["shape"]) == tuple(torch.broadcast_shapes(ta.shape, tb.shape))
    assert tuple(k["output_stride"]) == expected.stride()
    assert k["output"] == box["out"]._id
    assert k["reason"].endswith(str(expected.dtype).split(".")[1])
    recorded = [n for n in call.nodes if not n["variable"]]
    if ta.requires_grad:
        (node,) = recorded
        assert node["name"] == type(expected.grad_fn).__name__
        assert node["outputs"] == (box["out"]._id,)
        # mul keeps only what the needed gradient reads: self's reads other (as torch)
        assert set(node["saved"]) == {vb._id}
        leaves = [n for n in call.nodes if n["variable"]]
        assert [n["variable"] for n in leaves] == [va._id]
    else:
        assert recorded == []

    html = render_tree_html(state)
    assert "fall-through" in html  # ADInplaceOrView is skipped for a functional op
    assert f"broadcast shape {list(expected.shape)}" in html.replace("&#x27;", "'")
    assert f"strides {list(expected.stride())}" in html


@pytest.mark.parametrize("dtype", ["float32", "int64", "float64"])
def test_inplace_call_bumps_version(dtype):
    va, ta = make_pair((2, 3), dtype, "transposed", seed=3)
    vb, tb = make_pair((3,), dtype, "contiguous", seed=4)
    state = trace_of(lambda: (va.add_(vb), va.mul_(2)))
    with TorchOps() as torch_ops:
        ta.add_(tb)
        ta.mul_(2)

    add, mul = top_calls(state)
    assert [add.op, mul.op] == torch_ops.qualnames
    assert add.variant == mul.variant == "inplace"
    assert add.keys == ["AutogradCPU", "ADInplaceOrView", "CPU"]
    assert [w["tensor"] for w in add.writes + mul.writes] == [va._id, va._id]
    assert mul.writes[-1]["version"] == ta._version == va._version
    assert tuple(add.kernel["output_stride"]) == ta.stride()
    assert f"version bump: #{va._id} is now at version {ta._version}" in render_tree_html(state)


@pytest.mark.parametrize(
    "dtypes", [("float32", "float32"), ("int32", "int32"), ("float64", "float64")]
)
def test_out_call(dtypes):
    va, ta = make_pair((2, 3), dtypes[0], "contiguous", seed=5)
    vb, tb = make_pair((2, 3), dtypes[1], "stepped", seed=6)
    vo, to = make_pair((2, 3), dtypes[0], "transposed", seed=7)
    state = trace_of(lambda: vg.mul(va, vb, out=vo))
    torch.mul(ta, tb, out=to)

    (call,) = top_calls(state)
    assert call.op == "aten::mul.out"
    assert call.variant == "out"
    assert call.keys == ["AutogradCPU", "ADInplaceOrView", "CPU"]
    assert call.writes == [{"tensor": vo._id, "storage": vo._storage._id, "op": "aten::mul.out",
                            "version": to._version}]  # fmt: skip
    assert tuple(call.kernel["output_stride"]) == to.stride()
    assert 'data-variant="out"' in render_tree_html(state)


@pytest.mark.parametrize(
    "make_view", [lambda t: t.t(), lambda t: t[1:, ::2], lambda t: t.expand(2, 3, 4)]
)
def test_view_call(make_view):
    va, ta = make_pair((3, 4), "float32", "contiguous", seed=8)
    box = {}
    state = trace_of(lambda: box.setdefault("v", make_view(va)))
    with TorchOps() as torch_ops:
        expected = make_view(ta)

    calls = [c for c, _ in state.walk() if c.views]
    assert [c.name for c in calls] == torch_ops.names  # t[1:, ::2] is two slices
    call = calls[-1]
    assert call.variant == "view"
    assert call.keys == ["AutogradCPU", "ADInplaceOrView", "CPU"]
    (view,) = call.views
    base = va._base if va._base is not None else va  # make_pair's tensors are views too
    assert view["tensor"] == box["v"]._id and view["base"] == base._id
    assert (tuple(view["shape"]), tuple(view["stride"]), view["offset"]) == (
        tuple(expected.shape),
        expected.stride(),
        expected.storage_offset(),
    )
    assert f"shares the storage of base #{base._id}" in render_tree_html(state)


def test_composite_reshape_with_copy_nests_its_calls():
    va, ta = make_pair((2, 3), "float32", "contiguous", seed=9)
    va.requires_grad_(True)
    ta.requires_grad_(True)
    vt, tt = va.t(), ta.t()  # not viewable as [6]: reshape must copy
    state = trace_of(lambda: vt.reshape(6))
    with TorchOps() as torch_ops:
        expected = tt.reshape(6)

    (reshape,) = top_calls(state)
    assert reshape.op == "aten::reshape"
    assert reshape.keys == ["AutogradCPU"]  # composite: no key below autograd of its own
    nested = [state.calls[i] for i in reshape.children]
    assert [c.name for c in nested] == torch_ops.names
    assert all(c.parent == reshape.index for c in nested)
    assert nested[-1].nodes[0]["name"] == type(expected.grad_fn).__name__
    assert [c.keys for c in nested] == [["AutogradCPU", "CPU"]] * 2
    html = render_tree_html(state)
    assert "CompositeImplicitAutograd" in html
    # The nested calls sit inside the reshape's list of steps.
    assert html.index('data-op="aten::reshape"') < html.index('data-op="aten::clone"')


def test_kernel_inner_call_and_backward_calls():
    vo = vg.empty(2, 3)
    x = vg.ones(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # out= resize warning, as torch
        state = trace_of(lambda: (vg.mul(vg.ones(3), 2, out=vo), (x * 2).sum().backward()))
    (resize,) = [c for c, _ in state.walk() if c.op == "aten::resize_"]
    assert state.calls[resize.parent].op == "aten::mul.out"
    assert resize.keys == ["CPU"]
    assert "called from inside a kernel" in render_tree_html(state)
    in_backward = [c for c in top_calls(state) if c.during]
    assert in_backward and {c.during for c in in_backward} >= {"MulBackward0"}


# --- filtering ------------------------------------------------------------------------------


def _sample_program():
    x = vg.ones(2, 3, requires_grad=True)
    y = vg.ones(3)
    o = vg.empty(3)
    z = x * y
    vg.mul(y, y, out=o)
    o.add_(1)
    z.t().reshape(6).sum().backward()


def test_filter_keeps_matches_their_subtrees_and_callers():
    state = trace_of(_sample_program)
    kept, context = kept_calls(state, "MUL")  # case-insensitive
    assert kept and {state.calls[i].name for i in kept - context} == {"mul"}
    assert context == set()
    kept, context = kept_calls(state, "clone")
    assert {state.calls[i].op for i in context} == {"aten::reshape"}
    assert {state.calls[i].op for i in kept - context} == {"aten::clone"}
    html = render_tree_html(state, "clone")
    assert "vg-trace-context" in html and 'data-op="aten::sum"' not in html
    assert render_tree_html(state, "no-such-op").count("vg-trace-call") == 0
    assert "no operator call matches" in render_tree_html(state, "no-such-op")
    text = render_text(state, "mul")
    assert text and all("mul" in line for line in text.splitlines())


def test_long_traces_are_windowed_with_a_notice():
    state = trace_of(lambda: [vg.ones(2) + 1 for _ in range(30)])
    html = render_tree_html(state, "add", max_calls=5)
    assert html.count('data-op="aten::add.Tensor"') == 5
    assert "25 earlier calls not shown" in html


# --- the text view is dispatch_trace's ------------------------------------------------------


def _views_program():
    a = vg.arange(12.0).reshape(3, 4)
    b = a[:, 1:].contiguous()
    a.transpose(0, 1).sum(0, keepdim=True)
    b.mul_(b)


@pytest.mark.parametrize("program", [_sample_program, _views_program])
def test_text_view_equals_dispatch_trace(program):
    state = DispatchState()
    events.subscribe(state.apply)
    try:
        with vg.dispatch_trace() as log:
            program()
    finally:
        events.unsubscribe(state.apply)
    assert render_text(state) == str(log)
    with DispatchTrace() as trace, vg.dispatch_trace() as log2:
        program()
    assert str(trace) == str(log2)
    trace.view = "text"  # the front end's toggle
    assert trace.text == str(log2)


# --- escaping -------------------------------------------------------------------------------


def _hostile_state():
    state = DispatchState()
    state.apply(events.OpDispatched(XSS, "AutogradCPU", "call", 0, "functional", (1,), call=1))
    state.apply(events.OpDispatched(XSS, "CPU", "redispatch", 1, "functional", (1,), call=1))
    state.apply(events.KernelChosen(XSS, "float32", ("float32",), (2,), 2, (1,), XSS, call=1))
    state.apply(events.NodeCreated(1, XSS, 0, (2,), (0,), (), call=1))
    state.apply(events.OpReturned(1, XSS))
    state.apply(events.OpDispatched('"><script>alert(1)</script>', "AutogradCPU", "call", 0,
                                    'view" onmouseover="x', (), call=2))  # fmt: skip
    assert state.calls[0].kernel["reason"] == XSS and state.calls[0].nodes[0]["name"] == XSS
    return state


def test_user_strings_are_escaped_in_html():
    state = _hostile_state()
    for html in (render_tree_html(state), render_text_html(state), DispatchTrace(state).tree_html):
        assert "<img" not in html and "<script" not in html
        assert "&lt;img src=x onerror=alert(1)&gt;" in html
        assert 'onmouseover="x' not in html
    # The plain text keeps the name as written: the front end sets it as textContent.
    assert XSS in render_text(state)


# --- the state: snapshots and plain data ----------------------------------------------------


# --- call ids: the tree by construction -----------------------------------------------------


def test_a_call_that_raises_is_closed_with_its_error_and_the_next_call_is_top_level():
    a, c = vg.ones(2, 3), vg.ones(1)

    def program():
        with pytest.raises(RuntimeError):
            vg.matmul(a, a)  # matmul calls mm, which raises: both calls end
        c + 1

    state = trace_of(program)
    # The ops PyTorch runs: matmul decomposes into mm, which raises the same error class.
    t = torch.ones(2, 3)
    with pytest.raises(RuntimeError), TorchOps() as log:
        torch.matmul(t, t)
    assert log.qualnames == ["aten::mm"]
    assert [(call.op, call.error, call.returned) for call in state.calls] == [
        ("aten::matmul", "RuntimeError", True), ("aten::mm", "RuntimeError", True),
        ("aten::add.Tensor", "", True)]  # fmt: skip
    assert state.roots == [0, 2] and state.calls[0].children == [1]
    assert state._open == [] and state._open_ids == {}
    assert render_tree_html(state).count('<span class="vg-trace-error">raised RuntimeError') == 2


def _step(op, key, action, depth, call, parent=0):
    return events.OpDispatched(op, key, action, depth, "functional", (), call=call, parent=parent)


def test_events_land_on_their_call_when_an_op_is_nested_in_itself():
    # ``add`` called from inside ``add``: matching by operator name cannot tell them apart.
    add = "aten::add.Tensor"
    stream = [
        _step(add, "AutogradCPU", "call", 0, call=7),
        _step(add, "CPU", "redispatch", 1, call=7),
        _step(add, "AutogradCPU", "call", 2, call=8, parent=7),
        _step(add, "CPU", "redispatch", 3, call=8, parent=7),
        events.KernelChosen(add, "float64", ("float64",), (2,), 2, (1,), "inner", call=8),
        events.ViewCreated(3, 2, 2, "add", (2,), (1,), 0, call=8),
        events.OpReturned(8, add),
        events.KernelChosen(add, "float32", ("float32",), (2,), 4, (1,), "outer", call=7),
        events.InplaceWrite(4, 1, add, 1, call=7),
        events.NodeCreated(1, "AddBackward0", 0, (4,), (0,), (), call=7),
        events.OpReturned(7, add),
    ]
    state = DispatchState.from_events(stream)
    outer, inner = state.calls
    assert state.roots == [0] and outer.children == [1] and inner.parent == 0
    assert outer.keys == ["AutogradCPU", "CPU"] and inner.keys == ["AutogradCPU", "CPU"]
    assert (outer.kernel["reason"], inner.kernel["reason"]) == ("outer", "inner")
    assert [v["tensor"] for v in inner.views] == [3] and outer.views == []
    assert [w["tensor"] for w in outer.writes] == [4] and inner.writes == []
    assert [n["name"] for n in outer.nodes] == ["AddBackward0"] and inner.nodes == []
    # The same events as dicts (a recording) build the same tree.
    dicts = DispatchState.from_events([e.to_dict() for e in stream])
    assert dicts.to_json() == state.to_json()


def test_live_nested_calls_have_their_engine_parents():
    x = vg.ones(2, 3).t()
    state = trace_of(lambda: x.reshape(6))
    reshape, clone, unsafe_view = state.calls
    assert reshape.op == "aten::reshape" and reshape.children == [clone.index, unsafe_view.index]
    assert (clone.op, unsafe_view.op) == ("aten::clone", "aten::_unsafe_view")
    assert clone.kernel is None or clone.kernel["op"] == "aten::clone"
    assert all(call.returned and not call.error for call in state.calls)


def _recorded_events(program):
    with events.Recorder() as rec:
        program()
    return rec.events


@pytest.mark.parametrize("cut", [1, 5, 17, 40, 77])
def test_copy_is_an_independent_snapshot(cut):
    stream = _recorded_events(_sample_program)
    cut = min(cut, len(stream) - 1)
    live = DispatchState.from_events(stream[:cut])
    snapshot = live.copy()
    for e in stream[cut:]:
        live.apply(e)  # must not leak into the snapshot
    assert snapshot.to_json() == DispatchState.from_events(stream[:cut]).to_json()
    assert live.to_json() == DispatchState.from_events(stream).to_json()
    for e in stream[cut:]:
        snapshot.apply(e)  # nor the snapshot's writes into the live state
    assert snapshot.to_json() == live.to_json()


def test_json_round_trip():
    import json

    state = trace_of(_sample_program)
    again = DispatchState.from_json(json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()
    assert render_tree_html(again) == render_tree_html(state)
    assert render_text(again) == render_text(state)


# --- the widget -----------------------------------------------------------------------------


def test_widget_records_only_inside_its_block_and_reacts_to_the_front_end():
    with DispatchTrace() as trace:
        _sample_program()
    n = trace.n_calls
    assert n == len(trace.state.calls) > 0
    vg.ones(2) + 1  # after the block: not recorded
    assert len(trace.state.calls) == n
    assert trace.n_shown == n
    assert "aten::mul.Tensor" in trace.operators
    assert trace.view == "tree" and 'class="vg-trace-call' in trace.tree_html

    trace.filter = "add_"  # typed into the filter box
    assert 0 < trace.n_shown < n
    assert 'data-op="aten::sum"' not in trace.tree_html
    trace.view = "text"  # the toggle: the text view, filtered the same way
    assert trace.text.splitlines() and all("add_" in ln for ln in trace.text.splitlines())
    trace.view = "tree"
    trace.filter = ""
    assert trace.n_shown == n

    fresh = DispatchTrace()
    fresh.show_state(trace.state, current=2)
    assert fresh.current == 2 and 'vg-trace-current" data-call="2"' in fresh.tree_html
    assert fresh.tree_html.count("vg-trace-current") == 1


def test_autograd_step_shows_the_dispatchers_decision_while_the_call_runs():
    """Mid-call (before its node is recorded) the step says what autograd will record;
    a call that records nothing says why: both read from the event's note."""
    w = vg.ones(3, requires_grad=True)
    with vg.events.Recorder() as recorder:
        _ = w * 2
        _ = w.detach() + 1
    stream = list(recorder.events)
    first_node = next(i for i, e in enumerate(stream) if isinstance(e, vg.events.NodeCreated))
    running = DispatchState.from_events(stream[:first_node])
    mul = running.calls[0]
    assert step_decision(mul, mul.steps[0]) == (
        "records MulBackward0 once the kernel returns (call in progress)"
    )
    done = DispatchState.from_events(stream)
    assert "recorded MulBackward0" in step_decision(done.calls[0], done.calls[0].steps[0])
    add = next(c for c in done.calls if c.op == "aten::add.Tensor")
    assert step_decision(add, add.steps[0]) == (
        "no input requires grad: records nothing; redispatch below autograd"
    )


def test_a_call_that_raised_after_autograd_decided_says_no_node_was_recorded():
    w, other = vg.ones(3, requires_grad=True), vg.ones(4)
    with vg.events.Recorder() as recorder, pytest.raises(RuntimeError):
        w * other  # the kernel refuses the shapes: MulBackward0 was decided
    state = DispatchState.from_events(recorder.events)
    mul = state.calls[0]
    assert mul.op == "aten::mul.Tensor"
    assert mul.returned and mul.error == "RuntimeError"
    assert [node["name"] for node in mul.nodes] == ["vizgrad::autograd::AccumulateGrad"]
    assert step_decision(mul, mul.steps[0]).endswith(
        "; records MulBackward0 once the kernel returns, but the call raised RuntimeError: "
        "no MulBackward0 recorded"
    )
    html = render_tree_html(state)
    assert "vg-trace-running" not in html and "raised RuntimeError" in html


def test_the_backend_step_says_which_backend_ran_and_why():
    dense = vg.tensor([[0.0, 2.0], [3.0, 0.0]])
    sparse = dense.to_sparse()
    meta = vg.empty(2, 2, device="meta")

    def program():
        dense * 2
        sparse * 2
        with pytest.raises(NotImplementedError):
            vg.cumsum(sparse, 0)
        meta * 2

    state = trace_of(program)
    backends = [[s for s in call.steps if s.key not in ("AutogradCPU", "ADInplaceOrView")][-1]
                for call in top_calls(state)]  # fmt: skip
    assert [s.key for s in backends] == ["CPU", "SparseCPU", "SparseCPU", "Meta"]
    calls = top_calls(state)
    assert step_decision(calls[0], backends[0]).startswith("CPU backend (strided) kernel")
    assert "layout sparse_coo" in step_decision(calls[1], backends[1])
    assert "strided" not in step_decision(calls[1], backends[1])
    assert "no SparseCPU kernel" in step_decision(calls[2], backends[2])
    assert "meta device" in step_decision(calls[3], backends[3])
    html = render_tree_html(state)
    assert 'data-key="SparseCPU"' in html and 'data-key="Meta"' in html
    assert "raised NotImplementedError" in html


def test_a_factory_shows_backend_select_then_its_backend():
    """A factory starts at BackendSelect, which says why it picked the backend; the dtype
    row follows the backend's step only."""
    state = trace_of(lambda: (vg.empty(2, device="meta"), vg.arange(3)))
    meta_call, cpu_call = top_calls(state)
    assert [s.key for s in meta_call.steps] == ["BackendSelect", "Meta"]
    assert [s.key for s in cpu_call.steps] == ["BackendSelect", "CPU"]
    assert step_decision(meta_call, meta_call.steps[0]) == (
        "a factory: its backend comes from device= (meta)"
    )
    meta_step = step_decision(meta_call, meta_call.steps[1])
    assert meta_step.startswith("Meta kernel: device=meta") and "size [2]" in meta_step
    html = render_tree_html(state)
    select_rows = html.count('data-key="BackendSelect"')
    assert select_rows == 2
    assert "output #" not in html.split('data-key="BackendSelect"')[1].split("</li>")[0]

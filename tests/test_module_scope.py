"""Which module ran an operation: node metadata, events, and the GraphView's module boxes."""

from __future__ import annotations

import re

import pytest
from vizgrad.widgets import GraphView
from vizgrad.widgets.render.dag_dot import graph_drawing, to_dot
from vizgrad.widgets.state.graph import GraphState, events_for_graph
from vizgrad.widgets.timeline import describe_event

import vizgrad as vg
from vizgrad import events, module_scope, nn


class Affine(nn.Module):
    """``x @ weight.T + bias``, written with the engine's operators."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(vg.randn(n_out, n_in))
        self.bias = nn.Parameter(vg.zeros(n_out))

    def forward(self, x):
        return vg.addmm(self.bias, x, self.weight.t())


class Act(nn.Module):
    def forward(self, x):
        return x.relu()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(Affine(3, 4), Act())
        self.head = Affine(4, 2)

    def forward(self, x):
        return self.head(self.body(x)) * 2  # the "* 2" runs in Net itself


def nodes_by_name(root) -> dict:
    found, stack = {}, [root]
    while stack:
        node = stack.pop()
        found.setdefault(node.name(), []).append(node)
        stack += [n for n, _ in node.next_functions if n is not None]
    return found


def test_nodes_remember_the_module_path_and_parameter_names():
    net = Net()
    out = net(vg.randn(5, 3)).sum()
    nodes = nodes_by_name(out.grad_fn)
    assert "module" not in out.grad_fn.metadata  # the sum ran outside any module
    assert nodes["MulBackward0"][0].metadata["module"] == (("", "Net"),)
    addmms = sorted(n.metadata["module"] for n in nodes["AddmmBackward0"])
    assert addmms == [
        (("", "Net"), ("body", "Sequential"), ("body.0", "Affine")),
        (("", "Net"), ("head", "Affine")),
    ]
    relu = nodes["ReluBackward0"][0].metadata["module"]
    assert relu[-1] == ("body.1", "Act")
    leaves = {n.metadata["parameter"] for n in nodes["vizgrad::autograd::AccumulateGrad"]}
    assert leaves == {"body.0.weight", "body.0.bias", "head.weight", "head.bias"}
    assert module_scope.current_path() == ()  # nothing left on the stack


def test_scope_is_left_when_forward_raises():
    class Broken(nn.Module):
        def forward(self, x):
            raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        Broken()(vg.ones(1))
    assert module_scope.current_path() == ()
    assert "module" not in (vg.ones(1, requires_grad=True) * 2).grad_fn.metadata


def test_events_say_the_module():
    net = Net()
    x = vg.randn(2, 3)
    with events.Recorder() as rec:
        net(x).sum()
    dispatched = {(e.op, e.module[-1][0] if e.module else None)
                  for e in rec.events if e.kind == "op_dispatched"}  # fmt: skip
    assert ("aten::addmm", "body.0") in dispatched and ("aten::addmm", "head") in dispatched
    assert ("aten::sum", None) in dispatched
    created = [e for e in rec.events if e.kind == "node_created"]
    assert {e.parameter for e in created if e.parameter} == {
        "body.0.weight", "body.0.bias", "head.weight", "head.bias"
    }  # fmt: skip
    # A recording keeps it through JSON.
    again = events.Recorder.from_json(rec.to_json())
    assert [e.module for e in again.events if e.kind == "node_created"] == [
        e.module for e in created
    ]


def graph_of(net, x):
    state = GraphState()
    for event in events_for_graph(net(x).sum()):
        state.apply(event)
    return state


def test_drawing_boxes_nodes_by_module_and_names_parameters():
    state = graph_of(Net(), vg.randn(2, 3))
    drawing = graph_drawing(state)
    groups = {g.id: g for g in drawing.groups}
    assert set(groups) == {"m-", "m-body", "m-body.0", "m-body.1", "m-head"}
    assert groups["m-body.0"].parent == "m-body" and groups["m-"].parent is None
    assert groups["m-head"].label == "Affine (head)"
    titles = {n.id: n.lines for n in drawing.nodes}
    head_members = [titles[m][0] for m in groups["m-head"].members if titles[m]]
    assert any(line.startswith("head.weight: [2, 4]") for line in head_members)
    dot = to_dot(drawing)
    assert 'subgraph "cluster_m-body" {' in dot and 'subgraph "cluster_m-body.0" {' in dot
    assert dot.index('"cluster_m-body"') < dot.index('"cluster_m-body.0"') < dot.index("}")


def test_collapsed_module_is_one_node_with_its_edges():
    state = graph_of(Net(), vg.randn(2, 3))
    full = graph_drawing(state)
    folded = graph_drawing(state, collapsed=["body"])
    stand_in = [n for n in folded.nodes if n.id == "m-body"]
    assert stand_in and "vg-module-collapsed" in stand_in[0].classes
    assert stand_in[0].lines[0] == "5 nodes (click to open)"  # addmm, t, 2 leaves, relu
    inside = {m for g in full.groups if g.id.startswith("m-body") for m in g.members}
    assert not inside & {n.id for n in folded.nodes}
    # The head's addmm now feeds the collapsed body: one edge in, none inside.
    assert any(e.target == "m-body" for e in folded.edges)
    assert all(not (e.source == e.target == "m-body") for e in folded.edges)
    assert {g.id for g in folded.groups} == {"m-", "m-head"}
    ungrouped = graph_drawing(state, group_modules=False)
    assert ungrouped.groups == () and len(ungrouped.nodes) == len(full.nodes)


def test_graph_view_collapses_and_reports_modules():
    net = Net()
    view = GraphView(net(vg.randn(2, 3)).sum())
    try:
        assert view.has_modules
        assert (
            len(re.findall(r'class="cluster vg&#45;module"|class="cluster vg-module"', view.svg))
            == 5
        )
        view.collapsed = ["head"]
        assert "vg&#45;module&#45;collapsed" in view.svg or "vg-module-collapsed" in view.svg
        view.group_modules = False
        assert "vg-module" not in view.svg.replace("&#45;", "-")
    finally:
        view.close()
    plain = GraphView((vg.ones(2, requires_grad=True) * 2).sum())
    try:
        assert not plain.has_modules
    finally:
        plain.close()


def test_the_timeline_says_which_module_ran_a_step():
    net = Net()
    with events.Recorder() as rec:
        net(vg.randn(2, 3))
    sentences = [describe_event(e) for e in rec.events]
    assert any(
        s.startswith("aten::addmm (functional): call in Affine (head) enters") for s in sentences
    )
    assert any("recorded ReluBackward0" in s and s.endswith(" in Act (body.1)") for s in sentences)
    assert any(s.endswith("(parameter head.weight)") for s in sentences)

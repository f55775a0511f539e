"""Lesson 16's checkers: right answers (as torch computes them too) pass, mistakes are explained."""

import warnings

import numpy as np
import pytest
import torch
import torch.fx
from vizgrad.lessons import check
from vizgrad.lessons import lesson16 as L

import vizgrad as vg
from tests.lesson_feedback import assert_wrong

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# --- 16.count_nodes ----------------------------------------------------------------------


def _torch_scale_shift(x):
    h = x * 3 + 1
    if h.sum() > 0:
        h = h.relu()
    return h.mean()


def test_count_nodes_right_as_torch_counts():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(_torch_scale_shift, torch.ones(4))
    count = len([n for n in traced.graph.nodes() if n.kind().startswith("aten::")])
    assert check("16.count_nodes", count).correct
    assert check("16.count_nodes", np.int64(count)).correct


@pytest.mark.parametrize("answer, says", [
    (6, ["comparison", "dead code"]),
    (3, ["leaves out the relu"]),
    (9, ["not the number of aten:: nodes"]),
    ("4", ["whole number"]),
    (True, ["whole number"]),
])  # fmt: skip
def test_count_nodes_wrong(answer, says):
    assert_wrong("16.count_nodes", answer, *says)


# --- 16.other_branch -----------------------------------------------------------------------


def _torch_sign_switch(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


def test_other_branch_right_as_torch_runs_it():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(_torch_sign_switch, torch.ones(3))
    out = traced(torch.tensor(L.OTHER_BRANCH_INPUT))
    assert check("16.other_branch", out).correct
    assert check("16.other_branch", out.tolist()).correct
    assert check("16.other_branch", tuple(out.tolist())).correct
    assert check("16.other_branch", vg.tensor(out.tolist())).correct


@pytest.mark.parametrize("answer, says", [
    ([-2.0, -1.0, -3.0], ["Python function returns", "recorded operators"]),
    ([2.0, 0.0, 4.0], ["not what the traced graph computes"]),
    ([-2.0, 0.0], ["three numbers"]),
    ("[-2, 0, -4]", ["three numbers"]),
])  # fmt: skip
def test_other_branch_wrong(answer, says):
    assert_wrong("16.other_branch", answer, *says)


# --- 16.opcodes ----------------------------------------------------------------------------


class _TorchTinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        h = self.fc(x)
        h = torch.relu(h)
        return h.sum(1)


def test_opcodes_right_as_torch_fx_lists_them():
    ops = [n.op for n in torch.fx.symbolic_trace(_TorchTinyNet()).graph.nodes]
    assert check("16.opcodes", ops).correct
    assert check("16.opcodes", tuple(ops)).correct


@pytest.mark.parametrize("answer, says", [
    (["placeholder", "call_function", "call_function", "call_method", "output"],
     ["node 1", "call_function", "submodule"]),
    (["placeholder", "call_module", "call_method", "call_method", "output"],
     ["node 2", "free function"]),
    (["input", "call_module"], ["node 0", "not an fx opcode"]),
    (["placeholder", "call_module", "call_function", "call_method"], ["more than 4 nodes"]),
    (["placeholder", "call_module", "call_function", "call_method", "output", "output"],
     ["has 5 nodes"]),
    ("placeholder", ["list of strings"]),
])  # fmt: skip
def test_opcodes_wrong(answer, says):
    assert_wrong("16.opcodes", answer, *says)


# --- 16.edit -------------------------------------------------------------------------------


def _edited(target=vg.nn.functional.gelu, erase=True, recompile=True):
    gm = vg.fx.symbolic_trace(L.make_net())
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target is vg.relu:
            with gm.graph.inserting_after(node):
                new = gm.graph.call_function(target, node.args)
            node.replace_all_uses_with(new)
            if erase:
                gm.graph.erase_node(node)
    if recompile:
        gm.recompile()
    return gm


def test_edit_right():
    assert check("16.edit", _edited()).correct


def test_edit_computes_what_torch_computes_with_gelu():
    gm = _edited()
    net = torch.nn.Linear(4, 3)
    with torch.no_grad():
        net.weight.copy_(torch.tensor(gm.fc.weight.detach().numpy()))
        net.bias.copy_(torch.tensor(gm.fc.bias.detach().numpy()))
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    expected = torch.nn.functional.gelu(net(torch.tensor(x))).sum(1)
    np.testing.assert_allclose(gm(vg.tensor(x)).detach().numpy(), expected.detach().numpy(),
                               rtol=1e-5, atol=1e-6)  # fmt: skip


def test_edit_wrong():
    assert_wrong("16.edit", vg.fx.symbolic_trace(L.make_net()), "still has", "vg.relu")
    assert_wrong("16.edit", _edited(target=vg.sigmoid), "no call_function node",
                 "gelu")  # fmt: skip
    assert_wrong("16.edit", _edited(recompile=False), "gm.recompile()")
    assert_wrong("16.edit", "gm", "GraphModule")


# --- 16.which_fails ------------------------------------------------------------------------


def _torch_outcomes():
    """What torch's two tracers do with the same three functions."""
    functions = {
        "plain": lambda x: (x * 2).sigmoid(),
        "branchy": lambda x: x.relu() if x.sum() > 0 else x.neg(),
        "rank_switch": lambda x: x.t() if x.dim() == 2 else x,
    }
    answer = {}
    for name, fn in functions.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.jit.trace(fn, torch.ones(2, 3))
        tracer_warned = any(w.category is torch.jit.TracerWarning for w in caught)
        try:
            torch.fx.symbolic_trace(fn)
            fx = "ok"
        except torch.fx.proxy.TraceError:
            fx = "raises"
        answer[name] = ("warns" if tracer_warned else "ok", fx)
    return answer


def test_which_fails_right_as_torch_does():
    answer = _torch_outcomes()
    assert check("16.which_fails", answer).correct
    assert check("16.which_fails", {k: list(v) for k, v in answer.items()}).correct


RIGHT = {"plain": ("ok", "ok"), "branchy": ("warns", "raises"), "rank_switch": ("ok", "raises")}


@pytest.mark.parametrize("change, says", [
    ({"branchy": ("ok", "raises")}, ["branchy, jit", "TracerWarning"]),
    ({"branchy": ("warns", "warns")}, ["branchy, fx", "TraceError"]),
    ({"rank_switch": ("warns", "raises")}, ["rank_switch, jit", "Python int"]),
    ({"rank_switch": ("ok", "ok")}, ["rank_switch, fx", "call_method"]),
    ({"plain": ("ok", "fails")}, ["plain, fx", "not one of"]),
    ({"plain": "ok"}, ["plain", "pair"]),
])  # fmt: skip
def test_which_fails_wrong(change, says):
    assert_wrong("16.which_fails", {**RIGHT, **change}, *says)


def test_which_fails_bad_types():
    assert_wrong("16.which_fails", [("ok", "ok")], "dict")
    assert_wrong("16.which_fails", {"plain": ("ok", "ok")}, "no entry for 'branchy'")

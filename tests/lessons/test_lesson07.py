"""Lesson 7's checkers: right answers (in several forms) pass, typical mistakes are explained."""

import html
import inspect
import re
from pathlib import Path

import nbformat
import pytest
import torch
from lesson_feedback import assert_wrong as _wrong
from vizgrad.lessons import check
from vizgrad.lessons import lesson07 as L

import vizgrad as vg
from vizgrad.autograd import engine, graph


def _torch_graph():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0, 0.25], requires_grad=True)
    a = x * w
    a.retain_grad()
    loss = (a.exp() + a * 3).sum()
    return a, loss


def test_the_graph_runs_in_torchs_order():
    # torch's engine and vizgrad's agree on the order of the example's nodes.
    a, loss = _torch_graph()
    order = []
    for name, t in (("loss", loss), ("a", a)):
        t.grad_fn.register_prehook(lambda g, name=name: order.append(name))
    s = loss.grad_fn.next_functions[0][0]
    b_node, c_node = (n for n, _ in s.next_functions)
    s.register_prehook(lambda g: order.append("s"))
    b_node.register_prehook(lambda g: order.append("b"))
    c_node.register_prehook(lambda g: order.append("c"))
    loss.backward()
    assert [n for n in L.run_order(L.example_graph()) if n not in "xw"] == order


@pytest.mark.parametrize("answer", [
    {"loss": 0, "s": 1, "b": 1, "c": 1, "a": 2, "x": 1, "w": 1},
    {"w": 1, "x": 1, "a": 2, "c": 1, "b": 1, "s": 1, "loss": 0},
])  # fmt: skip
def test_dependencies_right(answer):
    assert check("07.dependencies", answer).correct


@pytest.mark.parametrize("answer, says", [
    ({"loss": 0, "s": 1, "b": 1, "c": 1, "a": 1, "x": 1, "w": 1}, ["a:", "2", "b's ExpBackward0",
                                                                  "c's MulBackward0"]),
    ({"loss": 1, "s": 1, "b": 1, "c": 1, "a": 2, "x": 1, "w": 1}, ["loss", "root"]),
    ({"loss": 0, "s": 1, "b": 1, "c": 1, "a": 2}, ["no count for x, w"]),
    ([0, 1, 1, 1, 2, 1, 1], ["dict"]),
    ({"loss": 0, "s": 1, "b": 1, "c": 1, "a": "2", "x": 1, "w": 1}, ["a:", "whole number"]),
])  # fmt: skip
def test_dependencies_wrong(answer, says):
    feedback = check("07.dependencies", answer)
    assert feedback.status == "wrong"
    for text in says:
        assert text in feedback.message


@pytest.mark.parametrize("answer", [["loss", "s", "c", "b", "a"], ("loss", "s", "c", "b", "a")])
def test_order_right(answer):
    assert check("07.order", answer).correct


@pytest.mark.parametrize("answer, says", [
    (["loss", "s", "b", "c", "a"], ["position 2", "both ready", "highest sequence number"]),
    (["loss", "s", "c", "a", "b"], ["position 3", "a cannot run yet", "count is 2", "b"]),
    (["loss", "s", "c", "b"], ["exactly once"]),
])  # fmt: skip
def test_order_wrong(answer, says):
    feedback = check("07.order", answer)
    assert feedback.status == "wrong"
    for text in says:
        assert text in feedback.message


def test_meeting_right_in_several_forms():
    a = L.example_graph()["a"]
    torch_a, torch_loss = _torch_graph()
    torch_loss.backward()
    assert check("07.meeting", a.exp() + 3).correct
    assert check("07.meeting", torch_a.grad).correct  # torch's own gradient, a torch tensor
    assert check("07.meeting", torch_a.grad.tolist()).correct


@pytest.mark.parametrize("make, says", [
    (lambda a: a.exp(), "only the path through b"),
    (lambda a: a * 0 + 3, "only the path through c"),
    (lambda a: a.exp() * 3, "added, not multiplied"),
    (lambda a: a.exp() + 2, "differ"),
    (lambda a: (a.exp() + 3).sum(), "shape"),
    (lambda a: "exp(a) + 3", "tensor"),
])  # fmt: skip
def test_meeting_wrong(make, says):
    feedback = check("07.meeting", make(L.example_graph()["a"]))
    assert feedback.status == "wrong" and says in feedback.message


def test_vjp_right():
    A, v = torch.tensor(L.VJP_A), torch.tensor(L.VJP_V)
    assert check("07.vjp", v @ A).correct
    assert check("07.vjp", (A.t() @ v).tolist()).correct


@pytest.mark.parametrize("make, says", [
    (lambda A, v: A.sum(0), "v = [1, 1]"),
    (lambda A, v: A * v[:, None], "Jacobian"),
    (lambda A, v: A.t() @ v.flip(0), "not v @ A"),
    (lambda A, v: v, "x's shape"),
])  # fmt: skip
def test_vjp_wrong(make, says):
    A, v = torch.tensor(L.VJP_A), torch.tensor(L.VJP_V)
    feedback = check("07.vjp", make(A, v))
    assert feedback.status == "wrong" and says in feedback.message


def test_unanswered():
    for key in ("07.vjp", "07.dependencies", "07.order", "07.meeting"):
        assert check(key, ...).status == "not answered yet"


# --- then and now: PyTorch 0.1's engine -------------------------------------------------


def _torch_dependency_counts():
    """Count, from first principles, the edges into each node of torch's own graph."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0, 0.25], requires_grad=True)
    a = x * w
    b = a.exp()
    c = a * 3
    s = b + c
    loss = s.sum()
    names = {s.grad_fn: "s", b.grad_fn: "b", c.grad_fn: "c", a.grad_fn: "a"}
    counts, seen, stack = {}, {loss.grad_fn}, [loss.grad_fn]
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            if next_node not in names:  # an AccumulateGrad: name it by its leaf
                names[next_node] = "x" if next_node.variable is x else "w"
            counts[names[next_node]] = counts.get(names[next_node], 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return counts


def test_the_2016_walk_and_todays_engine_count_what_torch_s_graph_has():
    expected = _torch_dependency_counts()
    assert L.engine_dependency_counts(L.example_graph()) == expected
    tensors = L.example_graph()
    names = L.node_names(tensors)
    waiting = L.old_compute_dependencies(tensors["loss"].grad_fn)
    assert {names[n]: sum(c.values()) for n, c in waiting.items()} == expected
    assert {names[u] for u in waiting[L.node_of(tensors["a"])]} == {"b", "c"}


def test_the_2016_walk_counts_an_input_used_twice_by_one_node_twice():
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    waiting = L.old_compute_dependencies(y.sum().grad_fn)
    assert waiting[L.node_of(x)][y.grad_fn] == 2  # MulBackward0 has two edges into x


def test_the_2016_walk_skips_inputs_that_need_no_gradient():
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    k = vg.tensor([3.0, 4.0])
    y = x * k
    assert list(L.old_compute_dependencies(y.grad_fn)) == [L.node_of(x)]


_THEN_AND_NOW = {
    "Function": "Node",
    "previous_functions": "next_functions",
    "creator": "grad_fn",
    "Leaf": "AccumulateGrad",
    "_do_backward": "apply",
    "retain_variables": "retain_graph",
}


def test_then_and_now_right():
    assert check("07.then_and_now", _THEN_AND_NOW).correct
    spaced = {old: f" {today} " for old, today in reversed(_THEN_AND_NOW.items())}
    assert check("07.then_and_now", spaced).correct


def test_then_and_now_names_today_s_torch_attributes():
    """The names the answer maps to are real in torch today."""
    x = torch.ones(2, requires_grad=True)
    y = (x * 2).sum()
    assert hasattr(y, "grad_fn") and hasattr(y.grad_fn, "next_functions")
    assert type(y.grad_fn.next_functions[0][0].next_functions[0][0]).__name__ == "AccumulateGrad"
    assert "retain_graph" in torch.autograd.backward.__code__.co_varnames


def test_then_and_now_explains_the_first_mistake_only():
    swapped = _THEN_AND_NOW | {"previous_functions": "grad_fn", "creator": "next_functions"}
    message = _wrong("07.then_and_now", swapped, "previous_functions is not today's grad_fn",
                     "edges the engine follows")  # fmt: skip
    assert "creator" not in message and "next_functions" not in message
    feedback = check("07.then_and_now", swapped)
    assert [part.right for part in feedback.parts] == [True, False] and feedback.more == 1


def test_then_and_now_gives_away_no_right_name():
    for old, today in _THEN_AND_NOW.items():
        wrong_name = "apply" if today != "apply" else "Node"
        message = _wrong("07.then_and_now", _THEN_AND_NOW | {old: wrong_name},
                         f"{old} is not today's {wrong_name}:")  # fmt: skip
        why = message.split(":", 1)[1]
        for name in set(_THEN_AND_NOW.values()) - {wrong_name}:
            assert not re.search(rf"\b{name}\b", why), (old, name, message)


def test_then_and_now_explains_bad_forms():
    _wrong("07.then_and_now", list(_THEN_AND_NOW.values()), "dict", "not a list")
    _wrong("07.then_and_now", {"Function": "Node"}, "no entry for previous_functions")
    _wrong("07.then_and_now", _THEN_AND_NOW | {"Variable": "Tensor"}, "Variable: not one of")
    _wrong("07.then_and_now", _THEN_AND_NOW | {"Leaf": "AccumulateGrad()"},
           "not one of the names to choose from")  # fmt: skip
    _wrong("07.then_and_now", _THEN_AND_NOW | {"Leaf": 3}, "Leaf → 3", "not one of the names")


def _table_blocks() -> list:
    """The code blocks of the notebook's side-by-side table, left to right, row by row."""
    path = Path(__file__).resolve().parents[2] / "notebooks" / "07-the-backward-engine.ipynb"
    (table,) = [c.source for c in nbformat.read(path, as_version=4).cells
                if c.cell_type == "markdown" and "<table>" in c.source]  # fmt: skip
    return [html.unescape(block) for block in re.findall(r"<pre[^>]*>(.*?)</pre>", table, re.S)]


def test_the_table_quotes_vizgrad_s_engine_as_it_is():
    blocks = _table_blocks()
    assert len(blocks) == 6
    sources = "\n".join(inspect.getsource(m) for m in (engine, graph))
    lines = {line.strip() for line in sources.splitlines()}
    assert blocks[1].strip() == inspect.getsource(engine._dependencies).strip()
    for block in blocks[1::2]:  # the right-hand column: vizgrad
        for line in block.splitlines():
            if line.strip() and not line.strip().startswith("..."):
                assert line.strip() in lines, line


def test_the_table_quotes_the_2016_names_the_exercise_asks_about():
    old = "\n".join(_table_blocks()[0::2])
    for name in ("previous_functions", "creator", "Leaf(Function)", "_do_backward"):
        assert name in old

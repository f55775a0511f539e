"""Lesson 7's checkers: right answers (in several forms) pass, typical mistakes are explained."""

import pytest
import torch
from vizgrad.lessons import check
from vizgrad.lessons import lesson07 as L


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

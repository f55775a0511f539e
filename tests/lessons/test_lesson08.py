"""Lesson 8's checkers: right answers (in several forms) pass, typical mistakes are explained."""

import math

import pytest
import torch
from vizgrad.lessons import check
from vizgrad.lessons import lesson08 as L

import vizgrad as vg


def _torch_requires_grad():
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        a = x * 2
    b = x.detach()
    c = b * x
    d = a + 1
    return tuple(t.requires_grad for t in (a, b, c, d))


def test_requires_grad_right_as_torch_says():
    assert check("08.requires_grad", _torch_requires_grad()).correct
    assert check("08.requires_grad", list(_torch_requires_grad())).correct


@pytest.mark.parametrize("answer, says", [
    ((True, False, True, False), ["a.requires_grad = True", "it is False", "no_grad"]),
    ((False, True, True, False), ["b.requires_grad = True", "detach"]),
    ((False, False, False, False), ["c.requires_grad = False", "one input that requires grad"]),
    ((False, False, True, True), ["d.requires_grad = True", "none of its inputs requires grad"]),
    ((False, False, True), ["four booleans"]),
    ((0, 0, 1, 0), ["True or False"]),
])  # fmt: skip
def test_requires_grad_wrong(answer, says):
    feedback = check("08.requires_grad", answer)
    assert feedback.status == "wrong"
    for text in says:
        assert text in feedback.message


def test_requires_grad_explains_one_tensor_at_a_time():
    a, b, c, d = _torch_requires_grad()
    feedback = check("08.requires_grad", (not a, not b, not c, d))
    assert [part.right for part in feedback.parts] == [False] and feedback.more == 2
    assert "detach" not in repr(feedback) and "MulBackward0" not in feedback._repr_html_()
    assert "2 more parts to look at" in repr(feedback)
    feedback = check("08.requires_grad", (a, b, not c, 1))
    assert [part.right for part in feedback.parts] == [True, True, False] and feedback.more == 1
    assert "True or False" not in repr(feedback)


def _torch_hook_example():
    x = torch.tensor(L.HOOK_X, requires_grad=True)
    h = x * 3
    return x, h, (h * h).sum()


def test_retain_grad_right():
    x, h, loss = L.hook_example()
    h.retain_grad()
    loss.backward()
    assert check("08.retain_grad", h.grad).correct
    tx, th, tloss = _torch_hook_example()
    th.retain_grad()
    tloss.backward()
    assert check("08.retain_grad", th.grad).correct
    assert check("08.retain_grad", th.grad.tolist()).correct


def test_retain_grad_wrong():
    x, h, loss = L.hook_example()
    loss.backward()
    with pytest.warns(UserWarning):
        missing = h.grad
    assert "retain_grad() was called before backward()" in check("08.retain_grad", missing).message
    assert "that is x.grad" in check("08.retain_grad", x.grad).message
    x, h, loss = L.hook_example()
    h.retain_grad()
    loss.backward(retain_graph=True)
    loss.backward()
    assert "backward ran twice" in check("08.retain_grad", h.grad).message
    assert "tensor" in check("08.retain_grad", "2h").message


def test_clip_hook_right_and_matches_torch():
    def clip(grad):
        return grad.clamp(-L.CLIP, L.CLIP)

    assert check("08.clip_hook", clip).correct
    assert check("08.clip_hook", lambda g: g.clamp(min=-10, max=10)).correct
    # The checker's expectation is what torch does with the same hook.
    tx, th, tloss = _torch_hook_example()
    th.register_hook(clip)
    tloss.backward()
    x, h, loss = L.hook_example()
    h.register_hook(clip)
    loss.backward()
    assert x.grad.tolist() == tx.grad.tolist()


@pytest.mark.parametrize("hook, says", [
    (lambda g: None, "returned None"),
    (lambda g: g.clamp_(-10, 10), "in place"),
    (lambda g: g.clamp(-1, 1), "gives a different x.grad"),
    (lambda g: g.clamp(-100, 100), "x.grad is unchanged"),
    (lambda g: g.clip_to(10), "raised AttributeError"),
    ("clip", "the function itself"),
])  # fmt: skip
def test_clip_hook_wrong(hook, says):
    feedback = check("08.clip_hook", hook)
    assert feedback.status == "wrong" and says in feedback.message


def _torch_second_derivative():
    x = torch.tensor(L.SECOND_DERIVATIVE_AT, requires_grad=True)
    y = x * x.sin()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (gg,) = torch.autograd.grad(g, x)
    return y.item(), g.item(), gg


def test_second_derivative_right():
    y, g, gg = _torch_second_derivative()
    assert check("08.second_derivative", gg).correct
    assert check("08.second_derivative", gg.item()).correct
    assert check("08.second_derivative", 2 * math.cos(1.0) - math.sin(1.0)).correct
    assert check("08.second_derivative", vg.tensor([gg.item()])).correct


def test_second_derivative_wrong():
    y, g, gg = _torch_second_derivative()
    assert "first derivative" in check("08.second_derivative", g).message
    assert "f(x) itself" in check("08.second_derivative", y).message
    assert "not f''(1)" in check("08.second_derivative", 0.5).message
    assert "one number" in check("08.second_derivative", [1.0, 2.0]).message

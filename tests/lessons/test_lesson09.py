"""Lesson 9's checkers: right answers (in several forms) pass, typical mistakes are explained."""

import pytest
import torch
from vizgrad.lessons import check
from vizgrad.lessons import lesson09 as L

import vizgrad as vg


def _torch_versions():
    x = torch.zeros(4)
    x.add_(1)
    v = x[1:3]
    v.mul_(2)
    x[0] = 5
    y = x + 1
    x.zero_()
    return x._version, v._version, y._version


def test_versions_right_as_torch_counts():
    assert check("09.versions", _torch_versions()).correct
    assert check("09.versions", list(_torch_versions())).correct


@pytest.mark.parametrize("answer, says", [
    ((3, 3, 0), ["x._version", "v.mul_(2) -> 2", "x[0] = 5 -> 3"]),
    ((4, 0, 0), ["v._version", "share their base's version counter"]),
    ((4, 4, 4), ["y._version", "out of place"]),
    ((4, 4), ["three ints"]),
])  # fmt: skip
def test_versions_wrong(answer, says):
    feedback = check("09.versions", answer)
    assert feedback.status == "wrong"
    for text in says:
        assert text in feedback.message


def test_leaf_update_right():
    w = vg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with vg.no_grad():
        w.zero_()
    assert check("09.leaf_update", w).correct
    w = vg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w.detach().zero_()  # PyTorch's old w.data.zero_(): same storage, same counter
    assert check("09.leaf_update", w).correct


def test_leaf_update_wrong():
    w = vg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    assert "not a leaf" in check("09.leaf_update", w * 0).message
    assert "does not require grad" in check("09.leaf_update", w.detach() * 0).message
    assert "new tensor" in check("09.leaf_update", vg.zeros(3, requires_grad=True)).message
    assert "not every element" in check("09.leaf_update", w).message
    assert "vizgrad tensor" in check("09.leaf_update", torch.zeros(3)).message


def _torch_breaks(f):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = f(x)
    y.add_(1)
    try:
        y.sum().backward()
    except RuntimeError:
        return True
    return False


def test_breaks_matches_torch_and_right_answer_passes():
    torch_answer = {name for name, (_, f) in L.CANDIDATES.items() if _torch_breaks(f)}
    assert torch_answer == {name for name in L.CANDIDATES if L.breaks_backward(name)}
    assert check("09.breaks", torch_answer).correct
    assert check("09.breaks", sorted(torch_answer)).correct


@pytest.mark.parametrize("answer, says", [
    ({"exp", "sigmoid"}, ["relu is missing", "`result`", "version 1"]),
    ({"exp", "sigmoid", "relu", "sin"}, ["sin does not break", "saved only self"]),
    ({"exp", "sigmoid", "relu", "square"}, ["square does not break", "saved only self"]),
    ({"exp", "sigmoid", "relu", "add"}, ["add does not break", "saved no tensor"]),
    ({"tanh"}, ["not a candidate"]),
    ("exp", ["set of names"]),
])  # fmt: skip
def test_breaks_wrong(answer, says):
    feedback = check("09.breaks", answer)
    assert feedback.status == "wrong"
    for text in says:
        assert text in feedback.message


def _torch_copy_slices():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 2
    y[1:3] = 0
    name = y.grad_fn.name()
    y.sum().backward()
    return name, x.grad


@pytest.mark.parametrize("form", [
    lambda name, grad: (name, grad.tolist()),           # torch's own "torch::autograd::CopySlices"
    lambda name, grad: ("CopySlices", grad),            # a torch tensor
    lambda name, grad: ["CopySlices", tuple(grad.tolist())],
])  # fmt: skip
def test_copyslices_right(form):
    assert check("09.copyslices", form(*_torch_copy_slices())).correct


@pytest.mark.parametrize("answer, says", [
    (("MulBackward0", [2, 0, 0, 2]), "before the write"),
    (("SliceBackward0", [2, 0, 0, 2]), "copies the gradient of the written slices"),
    (("CopySlices", [2, 2, 2, 2]), "no longer depend on x"),
    (("CopySlices", [0, 2, 2, 0]), "element(s) [0, 1, 2, 3]"),
    (("CopySlices", [2, 0, 2]), "4 numbers"),
    ("CopySlices", "tuple (name, gradient)"),
])  # fmt: skip
def test_copyslices_wrong(answer, says):
    feedback = check("09.copyslices", answer)
    assert feedback.status == "wrong" and says in feedback.message

"""Lesson 9's checkers: right answers (in several forms) pass, typical mistakes are explained."""

import pytest
import torch
from lesson_feedback import assert_one_at_a_time as _one_at_a_time
from lesson_feedback import assert_wrong as _wrong
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


def _torch_after(update):
    """What torch says of a leaf after ``update``: (values, is_leaf, requires_grad, version)."""
    w = torch.tensor(L.LEAF_UPDATE_VALUES, requires_grad=True)
    update(w, torch)
    return w.tolist(), w.is_leaf, w.requires_grad, w._version


def _no_grad(w, lib):
    with lib.no_grad():
        w.zero_()


def _detached(w, lib):
    w.detach().zero_()


def _through_data(w, lib):
    w.data.zero_()


def test_leaf_update_routes_behave_as_in_torch():
    zeros = [0.0] * len(L.LEAF_UPDATE_VALUES)
    assert _torch_after(_no_grad) == (zeros, True, True, 1)
    assert _torch_after(_detached) == (zeros, True, True, 1)  # detach shares the counter
    assert _torch_after(_through_data) == (zeros, True, True, 0)  # .data does not
    for update in (_no_grad, _detached, _through_data):
        w, _, _ = L.leaf_update_writes(lambda w, update=update: update(w, vg))
        assert (w.tolist(), w.is_leaf, w.requires_grad, w._version) == _torch_after(update)


def test_leaf_update_explains_the_route_the_student_took():
    right = check("09.leaf_update", lambda w: _no_grad(w, vg))
    assert right.correct and "Under no_grad()" in right.message and "detach" not in right.message
    right = check("09.leaf_update", lambda w: _detached(w, vg))
    assert right.correct and "w.detach() is a second tensor" in right.message
    assert "Under no_grad()" not in right.message and "shares w's version counter" in right.message

    def toggled(w):
        w.requires_grad_(False)
        w.zero_()
        w.requires_grad_(True)

    right = check("09.leaf_update", toggled)
    assert right.correct and "did not require grad" in right.message

    def slice_under_no_grad(w):
        with vg.no_grad():
            w[:] = 0

    assert "Under no_grad()" in check("09.leaf_update", slice_under_no_grad).message


def test_leaf_update_explains_mistakes():
    _wrong("09.leaf_update", lambda w: w.zero_(), "cannot be changed in place", "recording")
    _wrong("09.leaf_update", lambda w: w * 0, "returned a new tensor", "in place")
    _wrong("09.leaf_update", lambda w: _through_data(w, vg), "w.data", "version counter did not")
    _wrong("09.leaf_update", lambda w: None, "not every element")

    def first_only(w):
        with vg.no_grad():
            w[0] = 0

    _wrong("09.leaf_update", first_only, "not every element")

    def stops_requiring_grad(w):
        w.requires_grad_(False)
        w.zero_()

    _wrong("09.leaf_update", stops_requiring_grad, "no longer requires grad")
    _wrong("09.leaf_update", lambda w: w.zero_(1), "raised TypeError")
    _wrong("09.leaf_update", vg.zeros(3, requires_grad=True), "the function itself")
    _wrong("09.leaf_update", torch.zeros(3), "a function of w", "Tensor")


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
    ({"exp", "sigmoid"}, ["relu (y = x.relu()) does not break", "it does break", "`result`",
                          "version 1"]),
    ({"exp", "sigmoid", "relu", "sin"}, ["sin (y = x.sin()) breaks", "it does not break",
                                         "saved only self"]),
    ({"exp", "sigmoid", "relu", "square"}, ["square (y = x ** 2) breaks", "saved only self"]),
    ({"exp", "sigmoid", "relu", "add"}, ["add (y = x + 1) breaks", "saved no tensor"]),
    ({"tanh"}, ["not a candidate"]),
    ("exp", ["set of names"]),
])  # fmt: skip
def test_breaks_wrong(answer, says):
    feedback = check("09.breaks", answer)
    assert feedback.status == "wrong"
    for text in says:
        assert text in feedback.message


def test_breaks_explains_the_first_wrong_candidate_only():
    feedback = _one_at_a_time("09.breaks", {"sin", "add"}, "exp (y = x.exp()) does not break",
                              "it does break", more=4)  # fmt: skip
    assert "sigmoid" not in repr(feedback) and "saved only self" not in feedback._repr_html_()
    _one_at_a_time("09.breaks", {"exp", "sin", "add"}, "sin (y = x.sin()) breaks", right=1,
                   more=3)  # fmt: skip


def test_versions_explain_one_counter_at_a_time():
    x, v, y = _torch_versions()
    feedback = _one_at_a_time("09.versions", (x - 1, 0, 1), f"x._version = {x - 1}",
                              f"it is {x}", more=2)  # fmt: skip
    assert "share their base" not in repr(feedback) and "out of place" not in feedback._repr_html_()
    _one_at_a_time("09.versions", (x, 0, 1), "v._version = 0", "share", right=1, more=1)


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
    (("vizgrad::autograd::CopySlices", [2, 2, 2, 2]), "no longer depend on x"),
    ((" torch::autograd::MulBackward0", [2, 0, 0, 2]), "before the write"),
    (("CopySlices", [2, 0, 2]), "4 numbers"),
    ("CopySlices", "tuple (name, gradient)"),
])  # fmt: skip
def test_copyslices_wrong(answer, says):
    feedback = check("09.copyslices", answer)
    assert feedback.status == "wrong" and says in feedback.message


def test_copyslices_explains_the_name_before_the_gradient():
    feedback = _one_at_a_time("09.copyslices", ("MulBackward0", [2, 2, 2, 2]), "before the write",
                              more=1)  # fmt: skip
    assert "no longer depend" not in repr(feedback)
    feedback = _one_at_a_time("09.copyslices", ("CopySlices", [2, 2, 2, 2]),
                              "no longer depend on x", right=1)  # fmt: skip
    assert str(feedback.parts[0]) == "y.grad_fn: CopySlices"


def test_lessons_6_and_9_accept_the_same_node_name_forms():
    """One normaliser (lesson06.node_name) reads the names in both lessons."""
    torch_name, grad = _torch_copy_slices()
    assert torch_name == "torch::autograd::CopySlices"
    leaf = torch.tensor(1.0, requires_grad=True).view(1).grad_fn.next_functions[0][0]
    for prefix in ("", "torch::autograd::", "vizgrad::autograd::"):
        assert check("09.copyslices", (prefix + "CopySlices", grad)).correct
        assert check("06.next_functions", (prefix + "AccumulateGrad", None)).correct
    assert check("06.next_functions", (leaf.name(), None)).correct
    assert check("06.next_functions", (repr(leaf), None)).correct
    x = vg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 2
    y[1:3] = 0
    assert check("09.copyslices", (y.grad_fn, grad)).correct  # the node itself
    assert check("09.copyslices", (repr(y.grad_fn), grad)).correct

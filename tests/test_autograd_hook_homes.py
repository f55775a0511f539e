"""Where a tensor's hooks live, and what an in-place write does to them (``variable.cpp``).

``Tensor.register_hook`` keeps its hooks in a dict in the tensor's AutogradMeta; the first
hook registers that dict with the tensor's ``grad_fn`` (a leaf's ``AccumulateGrad`` reads
it from the meta). An in-place write gives the tensor a new ``grad_fn``: hooks registered
before it stay with the old node and see the gradient of the old value, later ones go
with the new node, and ``retain_grad()`` moves to the new node
(``update_tensor_hooks_on_new_gradfn``). Each scenario runs on torch and on vizgrad, and
records the same observations.
"""

import pytest
import torch

import vizgrad as vg


def _inplace_on_result(lib, seen):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    x = w * 2
    x.retain_grad()
    x.register_hook(lambda g: seen.append(("before", g.tolist())))
    x.mul_(3)
    x.register_hook(lambda g: seen.append(("after", g.tolist())))
    (x * x).sum().backward()
    seen.append(("x.grad", x.grad.tolist()))
    seen.append(("w.grad", w.grad.tolist()))


def _inplace_twice_with_retain_grad(lib, seen):
    w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    x = w * w
    x.retain_grad()
    x.add_(1)
    x.mul_(3)
    x.sum().backward()
    seen.append(("x.grad", x.grad.tolist()))


def _hooks_on_a_view_whose_base_was_written(lib, seen):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = w * 1
    v = b[0:2]
    v.register_hook(lambda g: seen.append(("v before", g.tolist())))
    b.mul_(2)
    v.register_hook(lambda g: seen.append(("v after, before regeneration", g.tolist())))
    (v * 5).sum().backward()
    seen.append(("w.grad", w.grad.tolist()))


def _hook_on_a_view_after_its_history_was_regenerated(lib, seen):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = w * 1
    v = b[1:]
    b.mul_(2)
    seen.append(("grad_fn", type(v.grad_fn).__name__))  # regenerates the history
    v.register_hook(lambda g: seen.append(("v", g.tolist())))
    (v * 5).sum().backward()
    seen.append(("w.grad", w.grad.tolist()))


def _base_retains_grad_when_written_through_a_view(lib, seen):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = w * 1
    b.retain_grad()
    b.register_hook(lambda g: seen.append(("b before", g.tolist())))
    b[0:1].mul_(4)
    b.register_hook(lambda g: seen.append(("b after", g.tolist())))
    (b * b).sum().backward()
    seen.append(("b.grad", b.grad.tolist()))
    seen.append(("w.grad", w.grad.tolist()))


def _leaf_hooks_and_removal(lib, seen):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    first = w.register_hook(lambda g: seen.append(("first", g.tolist())))
    w.register_hook(lambda g: g * 10)
    w.register_hook(lambda g: seen.append(("third", g.tolist())))
    first.remove()
    (w * 3).sum().backward()
    seen.append(("w.grad", w.grad.tolist()))


def _hooks_of_two_outputs_of_one_node(lib, seen):
    w = lib.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
    values, indices = w.max(1)
    s = lib.var_mean(w, 1)
    values.register_hook(lambda g: seen.append(("values", g.tolist())))
    s[1].register_hook(lambda g: seen.append(("mean", g.tolist())))
    s[0].register_hook(lambda g: seen.append(("var", g.tolist())))
    (values.sum() + s[0].sum() * 2 + s[1].sum() * 3).backward()
    seen.append(("w.grad", w.grad.tolist()))


SCENARIOS = [
    _inplace_on_result,
    _inplace_twice_with_retain_grad,
    _hooks_on_a_view_whose_base_was_written,
    _hook_on_a_view_after_its_history_was_regenerated,
    _base_retains_grad_when_written_through_a_view,
    _leaf_hooks_and_removal,
    _hooks_of_two_outputs_of_one_node,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__.strip("_"))
def test_hooks_see_what_torchs_see(scenario):
    expected, got = [], []
    scenario(torch, expected)
    scenario(vg, got)
    assert got == expected


def test_a_leafs_hooks_live_in_its_autograd_meta():
    w = vg.ones(2, requires_grad=True)
    handle = w.register_hook(lambda g: g * 2)
    assert list(w._autograd_meta.backward_hooks) == [handle.id]
    accumulator = (w * 1).grad_fn.next_functions[0][0]
    assert accumulator.tensor_pre_hooks() == ((0, w._autograd_meta.backward_hooks),)


def test_a_results_hook_dict_is_registered_once_with_its_grad_fn():
    w = vg.ones(2, requires_grad=True)
    y = w * 2
    y.register_hook(lambda g: g)
    y.register_hook(lambda g: g)
    assert y.grad_fn.tensor_pre_hooks() == [(0, y._autograd_meta.backward_hooks)]
    assert len(y._autograd_meta.backward_hooks) == 2


def test_a_retained_gradient_keeps_its_history_under_create_graph():
    """``retain_grad``'s hook stores ``grad.clone(contiguous_format)``: under
    ``create_graph`` it has a ``grad_fn`` and can be differentiated again."""
    seen = []
    for lib in (torch, vg):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        y.retain_grad()
        (y * y).sum().backward(create_graph=True)
        kept = (y.grad.tolist(), type(y.grad.grad_fn).__name__, y.grad.requires_grad)
        y.grad.sum().backward()
        seen.append((kept, x.grad.tolist()))
        t = lib.ones(2, 2, requires_grad=True).t() * 1
        t.retain_grad()
        (t * t).sum().backward()
        seen.append((t.grad.stride(), t.grad.requires_grad))
    assert seen[:2] == seen[2:]

"""View creation meta (PyTorch's ``CreationMeta``) and the in-place-on-view errors it causes.

Each scenario runs the same code with torch and vizgrad; results and error messages must match.
"""

import pytest
import torch

import vizgrad as vg
from tests.oracle import assert_same_error


def _unbind(lib, leaf):
    base = leaf * 1
    a, _, _ = base.unbind(0)
    a.mul_(2)


def _unbind_last_output(lib, leaf):
    base = leaf * 1
    _, _, c = base.unbind(0)
    c.add_(1)


def _split(lib, leaf):
    base = leaf * 1
    a, _ = base.split(2)
    a.mul_(2)


def _split_one_output(lib, leaf):
    base = leaf * 1
    (a,) = base.split(3)
    a.mul_(2)


def _split_with_sizes(lib, leaf):
    base = leaf * 1
    a, _ = base.split([2, 1])
    a.mul_(2)


def _chunk(lib, leaf):
    base = leaf * 1
    _, b = base.chunk(2)
    b.mul_(2)


def _unbind_of_leaf(lib, leaf):
    a, _, _ = leaf.unbind(0)
    a.mul_(2)


def _unbind_base_without_grad(lib, leaf):
    base = lib.ones(3, 4)
    a, _, _ = base.unbind(0)
    a.mul_(leaf[0])


def _view_of_unbind_output(lib, leaf):
    base = leaf * 1
    a, _, _ = base.unbind(0)
    a[1:].mul_(2)


def _transpose_of_split_output(lib, leaf):
    base = leaf * 1
    a, _ = base.split(2)
    a.t().mul_(2)


def _unbind_under_no_grad(lib, leaf):
    base = leaf * 1
    with lib.no_grad():
        a, _, _ = base.unbind(0)
    a.mul_(2)


def _view_under_no_grad(lib, leaf):
    base = leaf * 1
    with lib.no_grad():
        v = base[0]
    v.mul_(2)


def _view_of_leaf_under_no_grad(lib, leaf):
    with lib.no_grad():
        v = leaf[0]
    v.mul_(2)


def _view_of_unbind_output_under_no_grad(lib, leaf):
    base = leaf * 1
    a, _, _ = base.unbind(0)
    with lib.no_grad():
        w = a[1:]
    w.mul_(2)


def _view_under_inference_mode(lib, leaf):
    base = leaf * 1
    with lib.inference_mode():
        v = base[0]
    v.mul_(2)


def _base_written_then_unbind_grad_fn(lib, leaf):
    base = leaf * 1
    x, _, _ = base.unbind()
    base.mul_(2)
    return x.grad_fn


def _base_written_then_no_grad_view_grad_fn(lib, leaf):
    base = leaf * 1
    with lib.no_grad():
        x = base[0]
    base.mul_(2)
    return x.grad_fn


def _unbind_output_written_under_no_grad(lib, leaf):
    base = leaf * 1
    x, _, _ = base.unbind()
    with lib.no_grad():
        x.mul_(2)
    return x.grad_fn


def _split_of_detached(lib, leaf):
    d = (leaf * 1).detach()
    x, _ = d.split(2)
    x.mul_(leaf[:2])


def _detached_split_output_written(lib, leaf):
    x, _ = (leaf * 1).split(2)
    x.detach().mul_(2)  # shares the version counter: x's history is now stale
    return x.grad_fn


def _custom_function_view(lib, leaf):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[0]

        @staticmethod
        def backward(ctx, grad):
            return grad

    F.apply(leaf * 1).mul_(2)


def _custom_function_returns_input(lib, leaf):
    class G(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    G.apply(leaf * 1).mul_(2)


ERROR_CASES = [
    _unbind,
    _unbind_last_output,
    _split,
    _split_one_output,
    _split_with_sizes,
    _chunk,
    _unbind_of_leaf,
    _unbind_base_without_grad,
    _view_of_unbind_output,
    _transpose_of_split_output,
    _unbind_under_no_grad,
    _view_under_no_grad,
    _view_of_leaf_under_no_grad,
    _view_of_unbind_output_under_no_grad,
    _view_under_inference_mode,
    _base_written_then_unbind_grad_fn,
    _base_written_then_no_grad_view_grad_fn,
    _unbind_output_written_under_no_grad,
    _split_of_detached,
    _detached_split_output_written,
    _custom_function_view,
    _custom_function_returns_input,
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c.__name__.strip("_"))
def test_forbidden_inplace_on_view_raises_torch_error(case):
    assert_same_error(
        lambda: case(vg, vg.ones(3, 4, requires_grad=True)),
        lambda: case(torch, torch.ones(3, 4, requires_grad=True)),
    )


def _default_view_write(lib, leaf):
    base = leaf * 1
    base[0].mul_(2)
    base.sum().backward()
    return leaf.grad


def _clone_of_unbind_output(lib, leaf):
    base = leaf * 1
    a = base.unbind(0)[0].clone()
    a.mul_(2)
    (a.sum() + base.sum()).backward()
    return leaf.grad


def _no_grad_view_written_under_no_grad(lib, leaf):
    base = leaf * 1
    with lib.no_grad():
        a, _, _ = base.unbind(0)
        a.mul_(2)
    return base * 1


def _no_grad_view_of_plain_tensor(lib, leaf):
    base = lib.ones(3, 4)
    with lib.no_grad():
        v = base[0]
    v.mul_(2)
    return base


def _multi_output_views_of_plain_tensor(lib, leaf):
    base = lib.ones(3, 4)
    a, _, _ = base.unbind(0)
    a.mul_(2)
    return base


@pytest.mark.parametrize(
    "case",
    [
        _default_view_write,
        _clone_of_unbind_output,
        _no_grad_view_written_under_no_grad,
        _no_grad_view_of_plain_tensor,
        _multi_output_views_of_plain_tensor,
    ],
    ids=lambda c: c.__name__.strip("_"),
)
def test_allowed_inplace_on_view_matches_torch(case):
    got = case(vg, vg.ones(3, 4, requires_grad=True))
    expected = case(torch, torch.ones(3, 4, requires_grad=True))
    assert got.tolist() == expected.tolist()
    assert got.requires_grad == expected.requires_grad


def test_creation_meta_is_recorded_where_views_are_made():
    from vizgrad.autograd.view_history import CreationMeta, creation_meta_of

    base = vg.ones(3, 4, requires_grad=True) * 1
    assert creation_meta_of(base[0]) is CreationMeta.DEFAULT
    assert creation_meta_of(base.unbind(0)[0]) is CreationMeta.MULTI_OUTPUT_NODE
    assert creation_meta_of(base.split(2)[0][0]) is CreationMeta.MULTI_OUTPUT_NODE
    with vg.no_grad():
        assert creation_meta_of(base.unbind(0)[0]) is CreationMeta.NO_GRAD_MODE
    with vg.inference_mode():
        assert creation_meta_of(base[0]) is CreationMeta.INFERENCE_MODE


@pytest.mark.parametrize(
    ("shape", "make_view"),
    [((3,), lambda b: b[:2]), ((3, 3), lambda b: b.view(9)[1:]), ((3, 3), lambda b: b.t())],
)
def test_a_view_follows_its_base_into_a_history_made_after_it(shape, make_view):
    """A view made while its base required no grad still sees the base's history when an
    in-place write gives it one (``VariableHooks::grad_fn`` regenerates it): its
    gradient reaches the write's inputs, as in PyTorch."""
    results = []
    for lib in (torch, vg):
        base = lib.ones(shape)
        view = make_view(base)
        weight = lib.full(shape, 2.0, requires_grad=True)
        base.mul_(weight)
        factor = lib.ones(tuple(view.shape), requires_grad=True)
        (view * factor).sum().backward()
        results.append((type(view.grad_fn).__name__, weight.grad.tolist(), factor.grad.tolist()))
    assert results[0] == results[1]


def test_a_no_grad_view_of_a_base_that_requires_grad_requires_grad_without_a_history():
    """PyTorch's ``DifferentiableViewMeta::requires_grad``: the base's flag counts, but
    such a view has neither a node nor an accumulator, so its gradient goes nowhere."""
    seen = []
    for lib in (torch, vg):
        leaf = lib.ones(3, requires_grad=True)
        with lib.no_grad():
            view = leaf[:2]
        result = view * 2
        result.sum().backward()
        seen.append((view.requires_grad, view.is_leaf, view.grad_fn, result.requires_grad,
                     type(result.grad_fn).__name__, view.grad, leaf.grad))  # fmt: skip
    assert seen[0] == seen[1]

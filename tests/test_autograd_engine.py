"""The backward engine, hooks, grad modes and errors, compared with PyTorch."""

import gc
import re

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg


def leaves(*shapes, seed=0, dtype="float64"):
    """The same leaves requiring grad in both libraries."""
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 2.0, size=s).astype(dtype) for s in shapes]
    v = [vg.tensor(a, requires_grad=True) for a in arrays]
    t = [torch.tensor(a, requires_grad=True) for a in arrays]
    return v, t


def graph_signature(node, seen=None):
    """The graph below ``node``: names and input numbers, with shared nodes marked."""
    if node is None:
        return None
    seen = {} if seen is None else seen
    if id(node) in seen:
        return ("shared", seen[id(node)])
    seen[id(node)] = len(seen)
    return (node.name(), tuple((graph_signature(n, seen), nr) for n, nr in node.next_functions))


def torch_signature(node, seen=None):
    if node is None:
        return None
    seen = {} if seen is None else seen
    if id(node) in seen:
        return ("shared", seen[id(node)])
    seen[id(node)] = len(seen)
    name = node.name().replace("torch::", "vizgrad::")
    return (name, tuple((torch_signature(n, seen), nr) for n, nr in node.next_functions))


EXPRESSIONS = {
    "mul_add": lambda a, b, lib: a * b + a,
    "diamond": lambda a, b, lib: (a * 2) * (a + b),
    "scalars": lambda a, b, lib: 3 - a / 2 + b * 1.5,
    "broadcast": lambda a, b, lib: a[0] * b,
    "sum_chain": lambda a, b, lib: (a * b).sum(),
    "views": lambda a, b, lib: a.t().reshape(-1) * b.view(-1),
}


@pytest.mark.parametrize("name", EXPRESSIONS)
def test_graph_structure_matches_torch(name):
    (va, vb), (ta, tb) = leaves((3, 3), (3, 3))
    v = EXPRESSIONS[name](va, vb, vg)
    t = EXPRESSIONS[name](ta, tb, torch)
    assert graph_signature(v.grad_fn) == torch_signature(t.grad_fn)
    assert v.requires_grad and not v.is_leaf
    assert va.is_leaf and va.grad_fn is None


def test_accumulate_grad_node_is_shared_and_holds_its_leaf():
    (va,), (ta,) = leaves((2,))
    v, t = va * va, ta * ta
    (left, _), (right, _) = v.grad_fn.next_functions
    assert left is right and left.name() == "vizgrad::autograd::AccumulateGrad"
    assert t.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    assert left.variable is va
    assert t.grad_fn.next_functions[0][0] is t.grad_fn.next_functions[1][0]


@pytest.mark.parametrize("name", EXPRESSIONS)
def test_gradients_match_torch(name):
    (va, vb), (ta, tb) = leaves((3, 3), (3, 3), seed=1)
    v = EXPRESSIONS[name](va, vb, vg)
    t = EXPRESSIONS[name](ta, tb, torch)
    upstream = np.random.default_rng(2).standard_normal(tuple(t.shape))
    v.backward(vg.tensor(upstream))
    t.backward(torch.tensor(upstream))
    assert_same(va.grad, ta.grad)
    assert_same(vb.grad, tb.grad)


def test_gradients_accumulate_across_backward_calls_and_zero_grad_resets():
    (va,), (ta,) = leaves((3,))
    for lib_a in (va, ta):
        for _ in range(3):
            (lib_a * lib_a).sum().backward()
    assert_same(va.grad, ta.grad)
    va.grad = None
    (va * 2).sum().backward()
    assert va.grad.tolist() == [2.0, 2.0, 2.0]


def test_gradient_layout_follows_the_parameter_strides():
    base_v = vg.zeros(4, 3, dtype=vg.float64).t().detach().requires_grad_()
    base_t = torch.zeros(4, 3, dtype=torch.float64).t().detach().requires_grad_()
    (base_v * 2).sum().backward()
    (base_t * 2).sum().backward()
    assert base_v.grad.stride() == base_t.grad.stride() == (1, 3)


def _first_grad_shares_memory(lib, keep, graph) -> tuple[bool, ...]:
    """Whether each leaf's new ``.grad`` shares memory with what a hook on the leaf kept
    (``keep(g)``), or with the other leaves' ``.grad`` (``graph(a, b)`` is the loss)."""
    a = lib.ones(3, 2, requires_grad=True)
    b = lib.ones(3, 2, requires_grad=True)
    kept = []
    a.register_hook(lambda g: kept.append(keep(g)) and None)
    graph(a, b).backward()
    return (a.grad.data_ptr() == kept[0].data_ptr(),
            a.grad.data_ptr() == b.grad.data_ptr())  # fmt: skip


@pytest.mark.parametrize(
    "keep",
    [lambda g: g, lambda g: g.view(-1), lambda g: g.detach(), lambda g: g.clone()],
    ids=["the gradient", "a view of it", "a detached alias", "a copy"],
)
@pytest.mark.parametrize(
    "graph",
    [lambda a, b: (a * 2 + b * 3).sum(), lambda a, b: (a + b).sum(), lambda a, b: (a * b).sum()],
    ids=["own gradients", "one gradient for both (add)", "mul"],
)
def test_accumulate_grad_steals_a_gradient_only_when_nobody_else_holds_it(keep, graph):
    """PyTorch makes a leaf's first ``.grad`` the computed gradient itself when no other
    tensor refers to it, and a copy otherwise: a hook that kept the gradient (or a view,
    which refers to its base) must not see ``.grad`` change under it, and two leaves
    handed one gradient (``a + b``) must not share one ``.grad``."""
    assert _first_grad_shares_memory(vg, keep, graph) == _first_grad_shares_memory(
        torch, keep, graph
    )


def test_a_stolen_gradient_is_the_leafs_own():
    """A stolen ``.grad`` is not a view, and the gradient passed to ``backward`` is
    copied (its caller holds it): changing either leaves the other alone."""
    for lib in (vg, torch):
        a = lib.ones(3, requires_grad=True)
        (a * 2).sum().backward()
        assert a.grad._base is None and not a.grad._is_view()
        g = lib.ones(3)
        b = lib.ones(3, requires_grad=True)
        b.backward(g)
        g.add_(1)
        assert b.grad.tolist() == [1.0, 1.0, 1.0], lib.__name__


def test_retain_grad_keeps_a_non_leaf_gradient():
    (va,), (ta,) = leaves((3,))
    vy, ty = va * 3, ta * 3
    vy.retain_grad()
    ty.retain_grad()
    assert vy.retains_grad and ty.retains_grad
    (vy * vy).sum().backward()
    (ty * ty).sum().backward()
    assert_same(vy.grad, ty.grad)


def test_reading_grad_of_a_non_leaf_warns_as_torch():
    (va,), (ta,) = leaves((3,))
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert (va * 2).grad is None
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert (ta * 2).grad is None


def test_second_backward_without_retain_graph_raises_torch_error():
    (va,), (ta,) = leaves((3,))
    v, t = (va * va).sum(), (ta * ta).sum()
    v.backward()
    t.backward()
    assert_same_error(v.backward, t.backward)


def test_retain_graph_allows_a_second_backward():
    (va,), (ta,) = leaves((3,))
    v, t = (va * va).sum(), (ta * ta).sum()
    v.backward(retain_graph=True)
    t.backward(retain_graph=True)
    v.backward()
    t.backward()
    assert_same(va.grad, ta.grad)


def test_saved_tensors_are_freed_after_backward():
    (va,), (ta,) = leaves((3,))
    v, t = va * va, ta * ta
    assert v.grad_fn._saved_self is va
    v.sum().backward()
    t.sum().backward()
    assert_same_error(lambda: v.grad_fn._saved_self, lambda: t.grad_fn._saved_self)


def test_non_scalar_backward_needs_a_gradient():
    (va,), (ta,) = leaves((3,))
    assert_same_error(lambda: (va * 2).backward(), lambda: (ta * 2).backward())


def test_backward_of_a_tensor_that_does_not_require_grad():
    assert_same_error(lambda: vg.ones(1).backward(), lambda: torch.ones(1).backward())


def test_gradient_shape_mismatch():
    (va,), (ta,) = leaves((3,))
    assert_same_error(lambda: (va * 2).backward(vg.ones(2, dtype=vg.float64)),
                      lambda: (ta * 2).backward(torch.ones(2, dtype=torch.float64)))  # fmt: skip


def test_autograd_grad_returns_without_accumulating():
    (va, vb), (ta, tb) = leaves((3,), (3,))
    v, t = (va * vb).sum(), (ta * tb).sum()
    (vga, vgb) = vg.autograd.grad(v, (va, vb))
    (tga, tgb) = torch.autograd.grad(t, (ta, tb))
    assert_same(vga, tga)
    assert_same(vgb, tgb)
    assert va.grad is None and vb.grad is None


def test_autograd_grad_unused_input():
    (va, vb), (ta, tb) = leaves((3,), (3,))
    assert_same_error(lambda: vg.autograd.grad((va * 2).sum(), (va, vb)),
                      lambda: torch.autograd.grad((ta * 2).sum(), (ta, tb)))  # fmt: skip
    grads = vg.autograd.grad((va * 2).sum(), (va, vb), allow_unused=True)
    assert grads[1] is None
    grads = vg.autograd.grad((va * 2).sum(), (va, vb), materialize_grads=True)
    assert grads[1].tolist() == [0.0, 0.0, 0.0]


def test_autograd_grad_of_a_non_leaf_input():
    (va,), (ta,) = leaves((3,))
    vy, ty = va * 2, ta * 2
    (vg_grad,) = vg.autograd.grad((vy * vy).sum(), vy)
    (t_grad,) = torch.autograd.grad((ty * ty).sum(), ty)
    assert_same(vg_grad, t_grad)


def test_backward_inputs_restricts_accumulation():
    (va, vb), (ta, tb) = leaves((3,), (3,))
    (va * vb).sum().backward(inputs=[va])
    (ta * tb).sum().backward(inputs=[ta])
    assert_same(va.grad, ta.grad)
    assert vb.grad is None and tb.grad is None


def test_create_graph_gives_second_derivatives():
    (va,), (ta,) = leaves((3,))
    (vg1,) = vg.autograd.grad((va * va * va).sum(), va, create_graph=True)
    (tg1,) = torch.autograd.grad((ta * ta * ta).sum(), ta, create_graph=True)
    assert_same(vg1.detach(), tg1.detach())
    assert vg1.grad_fn is not None
    (vg2,) = vg.autograd.grad(vg1.sum(), va)
    (tg2,) = torch.autograd.grad(tg1.sum(), ta)
    assert_same(vg2, tg2)  # 6x


def test_execution_order_follows_sequence_numbers_as_torch():
    (va, vb), (ta, tb) = leaves((2,), (2,))

    def run(a, b):
        x = a * b
        y = x + a
        z = x * y
        w = z - b
        order = []
        nodes, stack = set(), [w.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in nodes:
                continue
            nodes.add(node)
            name = node.name().replace("torch::", "vizgrad::")
            node.register_prehook(lambda grads, name=name: order.append(name))
            stack.extend(n for n, _ in node.next_functions)
        w.sum().backward()
        return order

    assert run(va, vb) == run(ta, tb)


def test_tensor_hook_can_replace_the_gradient_and_be_removed():
    (va,), (ta,) = leaves((3,))
    for a in (va, ta):
        y = a * 2
        handle = y.register_hook(lambda g: g * 10)
        (y * 1).sum().backward(retain_graph=True)
        handle.remove()
        (y * 1).sum().backward()
    assert_same(va.grad, ta.grad)


def test_leaf_hook_sees_gradient_before_accumulation():
    seen_v, seen_t = [], []
    (va,), (ta,) = leaves((3,))
    va.register_hook(lambda g: seen_v.append(g.tolist()))
    ta.register_hook(lambda g: seen_t.append(g.tolist()))
    (va * 3).sum().backward()
    (ta * 3).sum().backward()
    assert seen_v == seen_t


def test_post_accumulate_grad_hook_runs_after_grad_is_set():
    (va,), (ta,) = leaves((3,))
    seen_v, seen_t = [], []
    va.register_post_accumulate_grad_hook(lambda p: seen_v.append(p.grad.tolist()))
    ta.register_post_accumulate_grad_hook(lambda p: seen_t.append(p.grad.tolist()))
    (va * 3).sum().backward()
    (ta * 3).sum().backward()
    assert seen_v == seen_t and seen_v
    assert_same_error(lambda: (va * 2).register_post_accumulate_grad_hook(print),
                      lambda: (ta * 2).register_post_accumulate_grad_hook(print))  # fmt: skip


def test_node_hooks_see_inputs_and_outputs():
    (va, vb), (ta, tb) = leaves((2,), (2,))
    record_v, record_t = [], []
    for a, b, record in ((va, vb, record_v), (ta, tb, record_t)):
        y = a * b
        y.grad_fn.register_prehook(lambda grad_outputs, r=record: r.append(
            ("pre", [g.tolist() for g in grad_outputs])))  # fmt: skip
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs, r=record: r.append(
            ("post", [g.tolist() for g in grad_inputs])))  # fmt: skip
        y.sum().backward()
    assert record_v == record_t


def test_hook_on_tensor_that_does_not_require_grad():
    assert_same_error(lambda: vg.ones(2).register_hook(print),
                      lambda: torch.ones(2).register_hook(print))  # fmt: skip


def test_no_grad_enable_grad_and_set_grad_enabled():
    (va,), _ = leaves((2,))
    with vg.no_grad():
        assert not vg.is_grad_enabled()
        assert not (va * 2).requires_grad
        with vg.enable_grad():
            assert (va * 2).requires_grad
    assert vg.is_grad_enabled()

    @vg.no_grad()
    def doubled(x):
        return x * 2

    assert not doubled(va).requires_grad
    vg.set_grad_enabled(False)
    assert not (va * 2).requires_grad
    vg.set_grad_enabled(True)
    with vg.set_grad_enabled(False):
        assert not vg.is_grad_enabled()
    assert vg.is_grad_enabled()


def test_in_place_on_a_leaf_under_no_grad_is_allowed():
    (va,), (ta,) = leaves((2,))
    with vg.no_grad():
        va.mul_(2)
    with torch.no_grad():
        ta.mul_(2)
    assert_same(va.detach(), ta.detach())
    assert va.is_leaf and va.requires_grad


def test_in_place_on_a_leaf_that_requires_grad():
    (va,), (ta,) = leaves((2,))
    assert_same_error(lambda: va.add_(1), lambda: ta.add_(1))


def test_in_place_on_a_non_leaf_rebases_history():
    (va,), (ta,) = leaves((3,))
    vy, ty = va * 2, ta * 2
    vy.add_(1)
    ty.add_(1)
    assert vy.grad_fn.name() == ty.grad_fn.name() == "AddBackward0"
    assert graph_signature(vy.grad_fn) == torch_signature(ty.grad_fn)
    assert vy._version == ty._version == 1
    (vy * vy).sum().backward()
    (ty * ty).sum().backward()
    assert_same(va.grad, ta.grad)


def test_modified_saved_tensor_is_caught_at_backward():
    (va,), (ta,) = leaves((2, 3))
    vy, ty = va * 2, ta * 2
    vz, tz = vy * vy, ty * ty  # saves y
    vy.add_(1)
    ty.add_(1)
    vg_error, torch_error = assert_same_error(lambda: vz.sum().backward(),
                                              lambda: tz.sum().backward(), match_message=False)  # fmt: skip
    assert str(vg_error).split("Hint")[0] == str(torch_error).split("Hint")[0].replace(
        "torch.", "vizgrad."
    )


def test_out_variant_refuses_autograd():
    (va,), (ta,) = leaves((2,))
    assert_same_error(lambda: vg.mul(va, 2, out=vg.empty(2, dtype=vg.float64)),
                      lambda: torch.mul(ta, 2, out=torch.empty(2, dtype=torch.float64)))  # fmt: skip


def test_detach_requires_grad_and_data():
    (va,), (ta,) = leaves((3,))
    vd, td = (va * 2).detach(), (ta * 2).detach()
    assert not vd.requires_grad and vd.is_leaf and vd.grad_fn is None
    assert vd._version == td._version
    assert not va.data.requires_grad and va.data.is_leaf
    y = va * 2
    y.detach_()
    assert y.grad_fn is None and not y.requires_grad
    vy, ty = va * 2, ta * 2
    assert_same_error(lambda: vy.requires_grad_(False), lambda: ty.requires_grad_(False))


def test_inference_mode_makes_inference_tensors():
    with vg.inference_mode():
        assert not vg.is_grad_enabled() and vg.is_inference_mode_enabled()
        v = vg.ones(2)
    with torch.inference_mode():
        t = torch.ones(2)
    assert v.is_inference() == t.is_inference() is True
    assert_same_error(lambda: v._version, lambda: t._version)
    assert_same_error(lambda: v.add_(1), lambda: t.add_(1))
    (wv,), (wt,) = leaves((2,), dtype="float32")
    assert_same_error(lambda: (wv * v).sum().backward(), lambda: (wt * t).sum().backward(),
                      match_message=False)  # fmt: skip


class _VgCube(vg.autograd.Function):
    @staticmethod
    def forward(ctx, x, power):
        ctx.save_for_backward(x)
        ctx.power = power
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x, None


class _TorchCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, power):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x, None


def test_custom_function_records_one_node_named_after_the_class():
    (va,), (ta,) = leaves((3,))
    v, t = _VgCube.apply(va, 3), _TorchCube.apply(ta, 3)
    assert v.grad_fn.name() == "_VgCubeBackward" and t.grad_fn.name() == "_TorchCubeBackward"
    assert v.grad_fn.needs_input_grad == t.grad_fn.needs_input_grad == (True, False)
    assert graph_signature(v.grad_fn)[1] == torch_signature(t.grad_fn)[1]
    v.sum().backward()
    t.sum().backward()
    assert_same(va.grad, ta.grad)


def test_custom_function_mark_dirty_and_non_differentiable():
    class Double(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            mask = x > 2
            ctx.mark_non_differentiable(mask)
            return x, mask

        @staticmethod
        def backward(ctx, grad, grad_mask):
            return grad * 2

    (va,), _ = leaves((3,))
    y = va * 1
    out, mask = Double.apply(y)
    assert out is y and out.grad_fn.name() == "DoubleBackward"
    assert not mask.requires_grad
    out.sum().backward()
    assert va.grad.tolist() == [2.0, 2.0, 2.0]


def test_custom_function_wrong_gradient_count():
    class Bad(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    (va,), _ = leaves((2,))
    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        Bad.apply(va).sum().backward()


def test_gradcheck_passes_for_correct_and_fails_for_wrong_backward():
    (va,), _ = leaves((3,))
    assert vg.autograd.gradcheck(lambda x: _VgCube.apply(x, 3), (va,))
    assert vg.autograd.gradgradcheck(lambda x: x * x * x, (va,))

    class Wrong(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x  # should be 2x

    with pytest.raises(
        RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0"
    ):
        vg.autograd.gradcheck(Wrong.apply, (va,))
    with pytest.raises(
        vg.autograd.GradcheckError, match=r"(?s)numerical:tensor.*analytical:tensor"
    ):
        vg.autograd.gradcheck(Wrong.apply, (va,))
    assert vg.autograd.gradcheck(Wrong.apply, (va,), raise_exception=False) is False


def test_detect_anomaly_names_the_forward_operation():
    class Broken(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("boom")

    (va,), _ = leaves((2,))
    with vg.autograd.detect_anomaly():
        y = Broken.apply(va)
        with pytest.raises(ValueError, match=r"(?s)boom.*Error detected in BrokenBackward.*"
                                             r"test_autograd_engine.py"):  # fmt: skip
            y.sum().backward()


def test_graph_is_collected_when_unreferenced():
    (va,), _ = leaves((2,))
    y = va * 2
    node = y.grad_fn
    import weakref

    ref = weakref.ref(node)
    del y, node
    gc.collect()
    assert ref() is None


def test_grad_with_respect_to_a_non_leaf_does_not_run_or_free_its_node():
    (va,), (ta,) = leaves((3,))
    results = []
    for lib, a in ((vg, va), (torch, ta)):
        h = a * 2
        loss = (h * h).sum()
        (grad_h,) = lib.autograd.grad(loss, h)
        # h's own node was not run, so its graph is still there for a second call.
        (grad_a,) = lib.autograd.grad(h, a, grad_h)
        results.append((grad_h, grad_a))
    assert_same(results[0][0], results[1][0])
    assert_same(results[0][1], results[1][1])


def test_sequence_nr_is_a_method_as_in_torch():
    (va,), (ta,) = leaves((2,))
    v1, v2 = va * 2, va * 3
    t1, t2 = ta * 2, ta * 3
    assert v2.grad_fn._sequence_nr() - v1.grad_fn._sequence_nr() == (
        t2.grad_fn._sequence_nr() - t1.grad_fn._sequence_nr()
    )


def test_node_reprs_read_like_torchs():
    def shape_of(text):
        return re.sub(r"0x[0-9a-f]+", "0xADDR", text).replace("torch.", "vizgrad.")

    class Twice:
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    for lib in (vg, torch):
        w = lib.ones(2, requires_grad=True)
        y = (w * 2).sum()
        fn = type("Twice", (lib.autograd.Function,), dict(vars(Twice)))
        lib_repr = (repr(y.grad_fn), repr(y.grad_fn.next_functions), repr(fn.apply(w).grad_fn))
        if lib is vg:
            mine = lib_repr
        else:
            theirs = lib_repr
    assert [shape_of(r) for r in mine] == [shape_of(r) for r in theirs]


NO_FORMULA_INPUTS = {
    "batch_norm running_mean": lambda L, x: L.nn.functional.batch_norm(
        x, L.zeros(3, requires_grad=True), L.ones(3), training=True
    ),
    "bce weight": lambda L, x: L.nn.functional.binary_cross_entropy(
        x, L.ones(2, 3) * 0.5, weight=L.ones(2, 3, requires_grad=True)
    ),
    "multi_margin weight": lambda L, x: L.nn.functional.multi_margin_loss(
        x, L.tensor([0, 1]), weight=L.ones(3, requires_grad=True)
    ),
    "soft_margin target": lambda L, x: L.nn.functional.soft_margin_loss(
        x, L.ones(2, 3, requires_grad=True)
    ),
    "bce_with_logits weight": lambda L, x: L.nn.functional.binary_cross_entropy_with_logits(
        x, L.ones(2, 3), weight=L.ones(3, requires_grad=True)
    ),
    "bce_with_logits pos_weight": lambda L, x: L.nn.functional.binary_cross_entropy_with_logits(
        x, L.ones(2, 3), pos_weight=L.ones(3, requires_grad=True)
    ),
    "nll_loss weight": lambda L, x: L.nn.functional.nll_loss(
        x, L.tensor([0, 2]), weight=L.ones(3, requires_grad=True)
    ),
    "nll_loss2d weight": lambda L, x: L.nn.functional.nll_loss(
        x.reshape(1, 3, 2, 1), L.tensor([[[0], [2]]]), weight=L.ones(3, requires_grad=True)
    ),
}


@pytest.mark.parametrize("case", NO_FORMULA_INPUTS)
def test_an_input_without_a_formula_may_not_require_grad(case):
    # No edge is made for it (as in torch), so it is refused rather than left gradientless.
    def call(L):
        return NO_FORMULA_INPUTS[case](L, L.full((2, 3), 0.5, requires_grad=True))

    assert_same_error(lambda: call(vg), lambda: call(torch))

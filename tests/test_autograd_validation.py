"""What hooks and custom Functions hand back to the backward engine is checked, as in torch.

PyTorch checks every gradient a hook returns (``check_single_result``,
``check_variable_result`` in ``python_hook.cpp``) and every gradient a node computes
(``validate_outputs`` in ``engine.cpp``): a wrong size, type or count is an error naming
the hook or node, a broadcast shape is summed down and another dtype cast to the
input's. Each scenario runs on torch and on vizgrad; both must raise the same error or
give the same gradients.
"""

import pytest
import torch
from oracle import assert_same_error

import vizgrad as vg


def _non_leaf_hook_changes_size(lib):
    x = lib.ones(3, requires_grad=True)
    a = x * 2

    def resize(grad):
        return lib.ones(2, 3)

    a.register_hook(resize)
    a.sum().backward()


def _leaf_hook_changes_dtype(lib):
    x = lib.ones(3, requires_grad=True)
    x.register_hook(lambda grad: grad.long())
    (x * 2).sum().backward()


def _leaf_hook_changes_to_double(lib):
    x = lib.ones(3, requires_grad=True)
    x.register_hook(lambda grad: grad.double())
    (x * 2).sum().backward()


def _hook_returns_a_string(lib):
    x = lib.ones(3, requires_grad=True)
    a = x * 2
    a.register_hook(lambda grad: "a string")
    a.sum().backward()


def _hook_replaces_a_missing_gradient(lib):
    x = lib.ones(3, requires_grad=True)
    first, second = lib.stack([x, x * 2]).unbind(0)
    first.register_hook(lambda grad: lib.ones(3))
    second.sum().backward()


def _prehook_returns_two_values_for_one(lib):
    a = lib.ones(3, requires_grad=True) * 2
    a.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0], grad_outputs[0]))
    a.sum().backward()


def _prehook_returns_no_tuple(lib):
    a = lib.ones(3, requires_grad=True) * 2
    a.grad_fn.register_prehook(lambda grad_outputs: grad_outputs[0])
    a.sum().backward()


def _prehook_changes_size(lib):
    a = lib.ones(3, requires_grad=True) * 2
    a.grad_fn.register_prehook(lambda grad_outputs: (lib.ones(2),))
    a.sum().backward()


def _posthook_returns_too_few(lib):
    a = lib.ones(3, requires_grad=True) * 2
    a.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (lib.ones(2),))
    a.sum().backward()


def _posthook_fills_a_none(lib):
    a = lib.ones(3, requires_grad=True) * 2
    a.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0], grad_inputs[0]))
    a.sum().backward()


def _function(lib, backward):
    """A custom Function doubling its input, with the given backward."""

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    Double.backward = staticmethod(backward)
    return Double


def _function_returns_0dim_for_a_vector(lib):
    x = lib.ones(3, requires_grad=True)
    _function(lib, lambda ctx, grad: lib.tensor(1.0)).apply(x).sum().backward()


def _function_returns_size_1_for_a_vector(lib):
    x = lib.ones(3, requires_grad=True)
    _function(lib, lambda ctx, grad: lib.ones(1)).apply(x).sum().backward()


def _function_returns_a_string(lib):
    x = lib.ones(3, requires_grad=True)
    _function(lib, lambda ctx, grad: "a string").apply(x).sum().backward()


def _function_returns_too_many(lib):
    x = lib.ones(3, requires_grad=True)
    _function(lib, lambda ctx, grad: (grad, grad)).apply(x).sum().backward()


ERRORS = [
    _non_leaf_hook_changes_size,
    _leaf_hook_changes_dtype,
    _leaf_hook_changes_to_double,
    _hook_returns_a_string,
    _hook_replaces_a_missing_gradient,
    _prehook_returns_two_values_for_one,
    _prehook_returns_no_tuple,
    _prehook_changes_size,
    _posthook_returns_too_few,
    _posthook_fills_a_none,
    _function_returns_0dim_for_a_vector,
    _function_returns_size_1_for_a_vector,
    _function_returns_a_string,
    _function_returns_too_many,
]


@pytest.mark.parametrize("scenario", ERRORS, ids=lambda f: f.__name__.strip("_"))
def test_bad_gradients_raise_torchs_error(scenario):
    assert_same_error(lambda: scenario(vg), lambda: scenario(torch))


def _grads_of(lib, backward, dtype="float32"):
    x = lib.ones(3, dtype=getattr(lib, dtype), requires_grad=True)
    _function(lib, backward).apply(x).sum().backward()
    return x.grad


@pytest.mark.parametrize(
    "backward",
    [
        pytest.param(lambda lib: lambda ctx, grad: lib.ones(3, dtype=lib.int64), id="int64"),
        pytest.param(lambda lib: lambda ctx, grad: lib.ones(3, dtype=lib.float64), id="float64"),
        pytest.param(lambda lib: lambda ctx, grad: lib.ones(2, 3), id="broadcast-shape"),
        pytest.param(lambda lib: lambda ctx, grad: (grad, None, None), id="extra-nones"),
    ],
)
def test_a_functions_gradient_is_fitted_to_its_input(backward):
    got = _grads_of(vg, backward(vg))
    expected = _grads_of(torch, backward(torch))
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert got.tolist() == expected.tolist()


def test_hooks_see_a_missing_gradient_as_none():
    seen = {}
    for lib in (torch, vg):
        x = lib.ones(3, requires_grad=True)
        first, second = lib.stack([x, x * 2]).unbind(0)
        first.register_hook(lambda grad, lib=lib: seen.setdefault(lib.__name__, grad))
        second.sum().backward()
    assert seen == {"torch": None, "vizgrad": None}


@pytest.mark.parametrize(
    "call",
    [
        "lib.add(lib.ones(3), 1, out=lib.zeros(3, requires_grad=True))",
        "lib.sum(lib.ones(3), 0, out=lib.zeros((), requires_grad=True))",
        "lib.mul(lib.ones(2, 2), lib.ones(2), out=lib.zeros(2, 2, requires_grad=True))",
        "lib.cat([lib.ones(2)], out=lib.zeros(2, requires_grad=True))",
    ],
)
def test_an_out_tensor_that_requires_grad_is_refused(call):
    assert_same_error(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))


def test_an_out_tensor_that_requires_grad_may_be_written_without_grad_mode():
    for lib in (torch, vg):
        out = lib.zeros(3, requires_grad=True)
        with lib.no_grad():
            lib.add(lib.ones(3), 1, out=out)
        assert out.tolist() == [2.0, 2.0, 2.0] and out.requires_grad and out.grad_fn is None


# --- the entry points check their arguments as torch/autograd/__init__.py does ------------


def _leaf(lib):
    return lib.ones(2, requires_grad=True)


ENTRY_POINT_CALLS = [
    "(_leaf(lib) * 2).sum().backward(retain_graph='x')",
    "(_leaf(lib) * 2).sum().backward(create_graph=2.5)",
    "(_leaf(lib) * 2).sum().backward(retain_graph=300)",
    "(_leaf(lib) * 2).sum().backward(retain_graph=-1)",
    "(_leaf(lib) * 2).sum().backward(gradient='x')",
    "(_leaf(lib) * 2).sum().backward(gradient=2.0)",
    "(_leaf(lib) * 2).sum().backward(gradient=[1.0])",
    "(_leaf(lib) * 2).sum().backward(inputs='x')",
    "(_leaf(lib) * 2).sum().backward(inputs=[])",
    "(_leaf(lib) * 2).sum().backward(inputs=[3])",
    "(_leaf(lib) * 2).backward(gradient=lib.ones(3))",
    "lib.autograd.backward('x')",
    "lib.autograd.backward([(_leaf(lib) * 2).sum(), (_leaf(lib) * 3).sum()], grad_tensors=[None])",
    "lib.autograd.backward((_leaf(lib) * 2).sum(), grad_tensors='x')",
    "lib.autograd.grad('x', _leaf(lib))",
    "lib.autograd.grad(_leaf(lib).sum(), [])",
    "lib.autograd.grad(_leaf(lib).sum(), 'x')",
    "lib.autograd.grad(_leaf(lib).sum(), _leaf(lib), grad_outputs=2.0)",
    "lib.autograd.grad(_leaf(lib).sum(), _leaf(lib), allow_unused='x')",
    "lib.autograd.grad(_leaf(lib).sum(), _leaf(lib), materialize_grads=True, allow_unused=False)",
    "lib.autograd.grad(_leaf(lib).sum(), _leaf(lib), is_grads_batched=True)",
    "lib.autograd.grad(_leaf(lib) * 2, _leaf(lib), lib.ones(3), is_grads_batched=True)",
    "_leaf(lib).requires_grad_('yes')",
    "_leaf(lib).requires_grad_(None)",
    "setattr(_leaf(lib), 'requires_grad', 1)",
    "setattr(_leaf(lib), 'grad', lib.ones(3))",
    "setattr(_leaf(lib), 'grad', lib.ones(2, dtype=lib.float64))",
    "setattr(_leaf(lib), 'grad', lib.ones(3, dtype=lib.int64))",
]


@pytest.mark.parametrize("call", ENTRY_POINT_CALLS)
def test_bad_arguments_to_autograd_raise_torchs_error(call):
    assert_same_error(
        lambda: eval(call, {"lib": vg, "_leaf": _leaf}),
        lambda: eval(call, {"lib": torch, "_leaf": _leaf}),
    )


def _save_a_number(lib):
    class Keep(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

    Keep.apply(lib.ones(2, requires_grad=True))


def test_save_for_backward_saves_only_tensors():
    assert_same_error(lambda: _save_a_number(vg), lambda: _save_a_number(torch))


def test_grad_with_batched_grad_outputs_is_one_vjp_per_row():
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        unused = lib.ones(2, requires_grad=True)
        rows = lib.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 3.0]])
        return lib.autograd.grad(w * w, {"w": w, "unused": unused}, rows,
                                 is_grads_batched=True, materialize_grads=True)  # fmt: skip

    got, expected = run(vg), run(torch)
    assert list(got) == ["w", "unused"]
    for name in got:
        assert got[name].tolist() == expected[name].tolist()

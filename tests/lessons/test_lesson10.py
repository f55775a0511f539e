"""Lesson 10's checkers: right answers (in several forms) pass, typical mistakes are explained."""

import pytest
import torch
from vizgrad.lessons import check
from vizgrad.lessons import lesson10 as L

import vizgrad as vg


def _cube_right(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * 3 * x * x


def _cube_pow(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * x.pow(2) * 3.0


def test_cube_backward_right_and_same_as_torchs_function():
    assert check("10.cube_backward", _cube_right).correct
    assert check("10.cube_backward", _cube_pow).correct

    class TorchCube(torch.autograd.Function):  # the same backward, run by torch
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        backward = staticmethod(_cube_right)

    x = torch.tensor(L.X_VALUES, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(TorchCube.apply, (x,))
    (torch_grad,) = torch.autograd.grad(TorchCube.apply(x), x, torch.tensor(L.GRAD_OUT).double())
    vx = vg.tensor(L.X_VALUES, dtype=vg.float64, requires_grad=True)
    (vg_grad,) = vg.autograd.grad(L.make_cube(_cube_right).apply(vx), vx,
                                  vg.tensor(L.GRAD_OUT, dtype=vg.float64))  # fmt: skip
    assert vg_grad.tolist() == pytest.approx(torch_grad.tolist())


def _saved_x(body):
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return body(grad, x)

    return backward


@pytest.mark.parametrize("backward, says", [
    (_saved_x(lambda grad, x: 3 * x * x), "multiply by the incoming gradient"),
    (_saved_x(lambda grad, x: grad * x * x), "d(x³)/dx = 3x²"),
    (_saved_x(lambda grad, x: grad * 3 * x), "d(x³)/dx = 3x²"),
    (_saved_x(lambda grad, x: grad * x * x * x), "gradcheck says: Jacobian mismatch"),
    (_saved_x(lambda grad, x: (grad, grad)), "incorrect number of gradients"),
    (_saved_x(lambda grad, x: None), "returned None"),
    (lambda ctx, grad: ctx.saved_tensor, "raised AttributeError"),
    ("grad * 3 * x * x", "the function backward itself"),
])  # fmt: skip
def test_cube_backward_wrong(backward, says):
    feedback = check("10.cube_backward", backward)
    assert feedback.status == "wrong" and says in feedback.message


def _mul_right(ctx, grad):
    x, y = ctx.saved_tensors
    grad_x = grad * y if ctx.needs_input_grad[0] else None
    grad_y = grad * x if ctx.needs_input_grad[1] else None
    return grad_x, grad_y


def test_needs_input_grad_right():
    assert check("10.needs_input_grad", _mul_right).correct


def test_needs_input_grad_flags_are_torchs():
    seen = {}

    for lib, Function in (("torch", torch.autograd.Function), ("vizgrad", vg.autograd.Function)):

        class Probe(Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, grad, lib=lib):
                seen[lib] = tuple(ctx.needs_input_grad)
                return None, None

        module = torch if lib == "torch" else vg
        x = module.tensor([1.0, 2.0], requires_grad=True)
        Probe.apply(x, module.tensor([3.0, 4.0])).sum().backward()
    assert seen["vizgrad"] == seen["torch"] == (True, False)


def _mul_always(ctx, grad):
    x, y = ctx.saved_tensors
    return grad * y, grad * x


def _mul_swapped(ctx, grad):
    x, y = ctx.saved_tensors
    return grad * x, grad * y


def _mul_one(ctx, grad):
    x, y = ctx.saved_tensors
    return grad * y


def _mul_none_for_y(ctx, grad):
    x, y = ctx.saved_tensors
    return grad * y, None


@pytest.mark.parametrize("backward, says", [
    (_mul_always, "(True, False), but backward still computed a gradient for y"),
    (_mul_swapped, "the gradient of x is wrong"),
    (_mul_one, "incorrect number of gradients (expected 2, got 1)"),
    (_mul_none_for_y, "returned None for y"),
])  # fmt: skip
def test_needs_input_grad_wrong(backward, says):
    feedback = check("10.needs_input_grad", backward)
    assert feedback.status == "wrong" and says in feedback.message


def test_overloads_right():
    assert check("10.overloads", ["mul.Tensor", "mul_.Tensor", "mul.out"]).correct
    assert check("10.overloads", ("aten::mul.out", "aten::mul_.Tensor", "aten::mul.Tensor")).correct
    assert check("10.overloads", {op.qualname for op in vg.mul.overloads.values()}).correct


def test_overloads_match_pytorchs_yaml():
    entries = L.pytorch_yaml_entry("native_functions.yaml", "mul.out")
    assert entries.startswith("- func: mul.out(Tensor self, Tensor other, *, Tensor(a!) out)")
    for op in vg.mul.overloads.values():
        name = op.schema.split("(", 1)[0]
        assert L.pytorch_yaml_entry("native_functions.yaml", name).startswith(
            f"- func: {op.schema}"
        )


@pytest.mark.parametrize("answer, says", [
    (["mul.Tensor", "mul.out"], "trailing underscore; it is mul_.Tensor"),
    (["mul.Tensor", "mul_.Tensor"], "overload name is 'out'; it is mul.out"),
    (["mul.Tensor", "mul_.Tensor", "mul.out", "mul.Scalar"], "also listed: mul.Scalar — this "
                                                             "declaration does not register"),
    ("mul.Tensor", "a list of schema names"),
])  # fmt: skip
def test_overloads_wrong(answer, says):
    feedback = check("10.overloads", answer)
    assert feedback.status == "wrong" and says in feedback.message


def test_div_formula_right():
    assert check("10.div_formula", {
        "self": lambda grad, saved: grad / saved.other,
        "other": lambda grad, saved: -grad * saved.self / (saved.other * saved.other),
    }).correct  # fmt: skip
    assert check("10.div_formula", {
        "other": lambda grad, saved: -grad * saved.self / saved.other**2,
        "self": lambda grad, saved: grad * saved.other.reciprocal(),
    }).correct  # fmt: skip


def test_div_formula_is_torchs_derivative():
    a = torch.tensor(L.X_VALUES, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(L.Y_VALUES, dtype=torch.float64, requires_grad=True)
    g = torch.tensor(L.GRAD_OUT, dtype=torch.float64)
    ga, gb = torch.autograd.grad(a / b, (a, b), g)
    assert ga.tolist() == pytest.approx((g / b).tolist())
    assert gb.tolist() == pytest.approx((-g * a / b**2).tolist())


def _div(self_formula, other_formula):
    return {"self": self_formula, "other": other_formula}


@pytest.mark.parametrize("answer, says", [
    (_div(lambda g, s: g / s.other, lambda g, s: g * s.self / s.other**2), "sign is wrong"),
    (_div(lambda g, s: g * s.other, lambda g, s: g * s.self), "looks like mul's"),
    (_div(lambda g, s: g / s.other, lambda g, s: -g / s.other**2), "forgets saved.self"),
    (_div(lambda g, s: g, lambda g, s: g), "does not give the gradient"),
    (_div(lambda g, s: g / s.b, lambda g, s: g), "raised AttributeError"),
    (_div(lambda g, s: (g / s.other).sum(), lambda g, s: g), "the input's shape"),
    ({"self": lambda g, s: g}, "two keys"),
    (_div("grad / other", "x"), "must be functions"),
])  # fmt: skip
def test_div_formula_wrong(answer, says):
    feedback = check("10.div_formula", answer)
    assert feedback.status == "wrong" and says in feedback.message


def test_div_formula_explains_one_formula_at_a_time():
    feedback = check("10.div_formula", _div(lambda g, s: g * s.other, lambda g, s: g * s.self))
    assert feedback.message.startswith("the formula for self — it looks like mul's")
    assert "1/b" in feedback.message and "-a/b²" not in repr(feedback)  # other's is held back
    assert feedback.more == 1 and "1 more part to look at" in feedback._repr_html_()
    feedback = check("10.div_formula", _div(lambda g, s: g / s.other, lambda g, s: g * s.self))
    assert [str(part) for part in feedback.parts[:1]] == ["the formula for self"]
    assert "-a/b²" in feedback.message and feedback.more == 0


def test_overloads_explain_one_missing_overload_at_a_time():
    feedback = check("10.overloads", ["mul"])
    assert feedback.message.startswith("the function/method overload: not in your list")
    assert feedback.more == 3  # the two other overloads, and the unknown "mul"
    assert "mul_.Tensor" not in repr(feedback) and "mul.out" not in feedback._repr_html_()

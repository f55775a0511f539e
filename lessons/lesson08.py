"""Lesson 8 — controlling autograd: ``no_grad``, ``detach``, ``retain_grad``, hooks,
``retain_graph``, ``create_graph`` and second derivatives.

Every expected answer is computed by vizgrad's engine from the same few lines the notebook
shows (``hook_example``, ``grad_mode_example``, ``SECOND_DERIVATIVE_AT``).
"""

from __future__ import annotations

import math

import numpy as np

import vizgrad as vg

from .exercise import Part, Wrong, exercise, require_all
from .lesson07 import numbers_of

__all__ = ["grad_mode_example", "hook_example", "second_derivative_function",
           "SECOND_DERIVATIVE_AT", "CLIP"]  # fmt: skip


# --- exercise 1: which results require grad -------------------------------------------


def grad_mode_example() -> dict:
    """The four tensors of exercise 1, made exactly as the notebook makes them."""
    x = vg.ones(3, requires_grad=True)
    with vg.no_grad():
        a = x * 2
    b = x.detach()
    c = b * x
    d = a + 1
    return {"a": a, "b": b, "c": c, "d": d}


_WHY_REQUIRES_GRAD = {
    "a": "a was computed inside no_grad(): grad mode was off, so no node was recorded and "
    "the result does not require grad",
    "b": "detach() returns a tensor that shares x's storage but has no history: it does not "
    "require grad",
    "c": "b * x has one input that requires grad (x), and grad mode is on: MulBackward0 is "
    "recorded, so c requires grad",
    "d": "a + 1 is computed with grad mode on, but none of its inputs requires grad (a was "
    "made under no_grad), so there is nothing to record",
}


@exercise(
    "08.requires_grad",
    "Predict a.requires_grad, b.requires_grad, c.requires_grad and d.requires_grad, as a "
    "tuple of four booleans.",
    hints=(
        "A result requires grad when grad mode is on AND at least one input requires grad.",
        "no_grad() switches grad mode off inside the block; detach() gives a tensor without "
        "history.",
        "Only one of the four is recorded: the one that uses x itself outside no_grad().",
    ),
    solution="""
answer = (False, False, True, False)
check("08.requires_grad", answer)
""",
    explanation="Recording needs both: grad mode on and an input that requires grad. Only "
    "c = b * x has both.",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != 4:
        raise Wrong("answer with a tuple of four booleans: (a, b, c, d).")
    tensors = grad_mode_example()
    parts = []
    for got, name in zip(answer, "abcd", strict=True):
        expected = tensors[name].requires_grad
        label = f"{name}.requires_grad = {got!r}"
        if not isinstance(got, bool):
            parts.append(Part(label, "use True or False."))
        elif got != expected:
            parts.append(Part(label, f"it is {expected}: {_WHY_REQUIRES_GRAD[name]}."))
        else:
            parts.append(Part(label))
    require_all(parts)


# --- exercises 2 and 3: retain_grad and a clipping hook -------------------------------

HOOK_X = [1.0, -2.0, 3.0]
CLIP = 10.0


def hook_example():
    """``x``, the intermediate ``h = x * 3`` and ``loss = (h * h).sum()``."""
    x = vg.tensor(HOOK_X, requires_grad=True)
    h = x * 3
    loss = (h * h).sum()
    return x, h, loss


@exercise(
    "08.retain_grad",
    "h = x * 3 is not a leaf. Make the engine keep the gradient that arrives at h, run "
    "backward, and answer with h.grad.",
    hints=(
        "After loss.backward(), h.grad is None: only leaves keep their gradient in .grad.",
        "h.retain_grad() asks the engine to keep it; call it before backward().",
        "x, h, loss = L.hook_example(); h.retain_grad(); loss.backward(); answer = h.grad",
    ),
    solution="""
x, h, loss = L.hook_example()
h.retain_grad()
loss.backward()
answer = h.grad
check("08.retain_grad", answer)
""",
    explanation="retain_grad() registers a hook on h's grad_fn that copies the incoming "
    "gradient into h.grad: here 2 * h.",
)
def _(answer):
    if answer is None:
        raise Wrong("h.grad is None: h is not a leaf, so the engine does not keep its gradient "
                    "unless h.retain_grad() was called before backward().")  # fmt: skip
    got = numbers_of(answer)
    if got is None:
        raise Wrong(f"answer with h.grad (a tensor), not a {type(answer).__name__}.")
    x, h, loss = hook_example()
    (expected,) = vg.autograd.grad(loss, h)
    expected = numbers_of(expected)
    if got.shape == expected.shape and np.allclose(got, 2 * expected):
        raise Wrong("that is twice the gradient: backward ran twice and h.grad accumulated. "
                    "Build a fresh graph (L.hook_example()) and run backward once.")  # fmt: skip
    if got.shape == expected.shape and np.allclose(got, 3 * expected):
        raise Wrong("that is x.grad (the gradient after h's MulBackward0 multiplied it by 3), "
                    "not the gradient that arrives at h.")  # fmt: skip
    if got.shape != expected.shape or not np.allclose(got, expected):
        raise Wrong("that is not the gradient of loss with respect to h (for loss = sum(h * h) "
                    "it is 2 * h).")  # fmt: skip


@exercise(
    "08.clip_hook",
    f"Write a tensor hook clip(grad) that limits every element of the gradient to "
    f"[-{CLIP:g}, {CLIP:g}]. Answer with the function itself; the checker registers it on h.",
    hints=(
        "A tensor hook receives the gradient and may return a new one, which replaces it.",
        "Do not change grad in place: return a new tensor. Tensor.clamp(min, max) clips.",
        "def clip(grad): return grad.clamp(-10, 10)",
    ),
    solution="""
def clip(grad):
    return grad.clamp(-10.0, 10.0)

answer = clip
check("08.clip_hook", answer)
""",
    explanation="The engine replaces h's gradient with what the hook returns before h's node "
    "runs, so x.grad = 3 * clip(2h): the clipped elements stay clipped all the way down.",
)
def _(answer):
    if not callable(answer):
        raise Wrong(f"answer with the function itself (answer = clip, without parentheses), "
                    f"not a {type(answer).__name__}.")  # fmt: skip
    probe = vg.tensor([-50.0, 5.0, 50.0])
    before = probe.tolist()
    try:
        answer(probe)
    except Exception as error:  # noqa: BLE001 - the student's code may raise anything
        raise Wrong(f"calling your hook with a gradient raised {type(error).__name__}: "
                    f"{error}") from None  # fmt: skip
    if probe.tolist() != before:
        raise Wrong("your hook changed its argument in place: a hook must not modify the "
                    "gradient it receives (other hooks and the engine may still use it); "
                    "return a new tensor instead.")  # fmt: skip
    x, h, loss = hook_example()
    h.register_hook(answer)
    loss.backward()
    got = numbers_of(x.grad)
    x2, h2, loss2 = hook_example()
    (grad_h,) = vg.autograd.grad(loss2, h2, retain_graph=True)
    (expected,) = vg.autograd.grad(h2, x2, grad_h.clamp(-CLIP, CLIP))  # the rest of the chain
    expected, unclipped = numbers_of(expected), 3 * numbers_of(grad_h)
    if np.allclose(got, expected):
        return
    if answer(vg.tensor([50.0])) is None:
        raise Wrong("your hook returned None, and a hook that returns None leaves the gradient "
                    "unchanged: return the clipped tensor.")  # fmt: skip
    if np.allclose(got, unclipped):
        raise Wrong("x.grad is unchanged: the hook's result did not clip anything; check the "
                    f"bounds -{CLIP:g} and {CLIP:g}.")  # fmt: skip
    raise Wrong(f"with your hook x.grad is {got.tolist()}; clipping the gradient of h "
                f"({numbers_of(grad_h).tolist()}) to [-{CLIP:g}, {CLIP:g}] gives a different "
                "x.grad.")  # fmt: skip


# --- exercise 4: a second derivative ---------------------------------------------------

SECOND_DERIVATIVE_AT = 1.0


def second_derivative_function(x):
    """f(x) = x * sin(x), the function of exercise 4."""
    return x * x.sin()


@exercise(
    "08.second_derivative",
    f"f(x) = x * sin(x). Compute f''(x) at x = {SECOND_DERIVATIVE_AT:g} with autograd.",
    hints=(
        "vg.autograd.grad(y, x) returns dy/dx. To differentiate that result again, it must "
        "have a graph of its own.",
        "create_graph=True makes the engine record the backward formulas as it runs them.",
        "g, = vg.autograd.grad(y, x, create_graph=True); then vg.autograd.grad(g, x).",
    ),
    solution="""
x = vg.tensor(1.0, requires_grad=True)
y = x * x.sin()
(g,) = vg.autograd.grad(y, x, create_graph=True)   # f'(x), with a grad_fn of its own
(gg,) = vg.autograd.grad(g, x)                      # f''(x)
answer = gg
check("08.second_derivative", answer)
""",
    explanation="With create_graph=True the backward pass is itself recorded (g has a "
    "grad_fn), so it can be differentiated again: f''(x) = 2 cos(x) - x sin(x).",
)
def _(answer):
    got = numbers_of(answer)
    if got is None or got.size != 1:
        raise Wrong("answer with one number (a Python float or a one-element tensor).")
    got = float(got.reshape(()))
    x = vg.tensor(SECOND_DERIVATIVE_AT, requires_grad=True)
    y = second_derivative_function(x)
    (first,) = vg.autograd.grad(y, x, create_graph=True)
    (second,) = vg.autograd.grad(first, x)
    if math.isclose(got, second.item(), rel_tol=1e-4, abs_tol=1e-6):
        return
    if math.isclose(got, first.item(), rel_tol=1e-4):
        raise Wrong(f"{got:.4f} is f'(x), the first derivative: differentiate it once more "
                    "(which needs create_graph=True in the first grad call).")  # fmt: skip
    if math.isclose(got, y.item(), rel_tol=1e-4):
        raise Wrong(f"{got:.4f} is f(x) itself, not its second derivative.")
    raise Wrong(f"{got:.4f} is not f''({SECOND_DERIVATIVE_AT:g}); f'(x) = sin(x) + x cos(x), "
                "differentiate that again.")  # fmt: skip

"""Lesson 13's checkers and helpers: the expected answers are what torch.optim computes on the
same parameters and gradients; typical mistakes get their explanation."""

import math

import numpy as np
import pytest
import torch
from vizgrad.lessons import check
from vizgrad.lessons import lesson13 as L

import vizgrad as vg
from tests.lesson_feedback import assert_wrong

TORCH_OPTIMIZERS = {
    "SGD": (torch.optim.SGD, {}),
    "Momentum": (torch.optim.SGD, {"momentum": 0.9}),
    "Nesterov": (torch.optim.SGD, {"momentum": 0.9, "nesterov": True}),
    "Adagrad": (torch.optim.Adagrad, {}),
    "RMSprop": (torch.optim.RMSprop, {}),
    "Adam": (torch.optim.Adam, {}),
    "AdamW": (torch.optim.AdamW, {}),
}


def torch_after_steps(name, value, grads, **hyper):
    """torch.optim's parameter after one step per gradient (what L.after_steps does)."""
    cls, settings = TORCH_OPTIMIZERS[name]
    param = torch.tensor(value, requires_grad=True)
    optimizer = cls([param], **{**settings, **hyper})
    for grad in grads:
        param.grad = torch.tensor(grad)
        optimizer.step()
    return param.detach()


def torch_trajectory(name, surface, steps):
    where = L.SURFACES[surface]
    cls, settings = TORCH_OPTIMIZERS[name]
    point = torch.tensor(list(where.start), requires_grad=True)
    optimizer = cls([point], **{**settings, **where.hyper[name]})
    path = [point.tolist()]
    for _ in range(steps):
        optimizer.zero_grad()
        where.function(point[0], point[1]).backward()
        optimizer.step()
        path.append(point.tolist())
    return np.asarray(path)


# --- the helpers the notebook draws with ------------------------------------------------


@pytest.mark.parametrize("name", list(TORCH_OPTIMIZERS))
def test_after_steps_is_torch(name):
    value, grads = [1.0, -2.0, 0.5], [[0.5, 4.0, -0.1], [0.4, -3.0, 0.2], [0.3, 2.0, 0.0]]
    hyper = {"lr": 0.1, "weight_decay": 0.05}
    ours = L.after_steps(name, value, grads, **hyper)
    assert np.allclose(ours.tolist(), torch_after_steps(name, value, grads, **hyper).tolist(),
                       rtol=1e-6, atol=1e-7)  # fmt: skip


@pytest.mark.parametrize("surface", list(L.SURFACES))
@pytest.mark.parametrize("name", list(TORCH_OPTIMIZERS))
def test_trajectories_are_torch(name, surface):
    ours = L.trajectory(name, 25, surface)
    assert ours.shape == (26, 2)
    assert np.allclose(ours, torch_trajectory(name, surface, 25), rtol=1e-5, atol=1e-5)


def _torch_schedule(scheduler_class, steps, lr, **arguments):
    param = torch.zeros(1, requires_grad=True)
    param.grad = torch.zeros(1)
    optimizer = torch.optim.SGD([param], lr=lr, momentum=0.9)
    scheduler = scheduler_class(optimizer, **arguments)
    rates = []
    for _ in range(steps):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return rates


@pytest.mark.parametrize("name", list(L.SCHEDULES))
def test_schedules_are_torch(name):
    class_name, arguments = L.SCHEDULES[name]
    expected = _torch_schedule(getattr(torch.optim.lr_scheduler, class_name), L.SCHEDULE_STEPS,
                               L.SCHEDULE_BASE_LR, **arguments)  # fmt: skip
    assert np.allclose(L.schedule(name), expected, rtol=1e-9, atol=1e-12)


def test_figures_have_a_trace_per_optimizer_and_frames_with_a_slider():
    overlay = L.trajectory_figure(["SGD", "Adam"], "bowl", steps=5)
    assert [t.type for t in overlay.data] == ["contour", "scatter", "scatter", "scatter"]
    assert [t.name for t in overlay.data[1:3]] == ["SGD", "Adam"]
    assert len(overlay.data[1].x) == 6
    side = L.side_by_side_figure(surface="rosenbrock", steps=5)
    assert len([t for t in side.data if t.type == "contour"]) == len(L.OPTIMIZERS)
    animated = L.animated_figure(["SGD", "Momentum"], "bowl", steps=10)
    assert len(animated.frames) == 11
    assert len(animated.frames[-1].data[1].x) == 11  # the last frame holds the whole path
    assert len(animated.layout.sliders[0].steps) == 11
    assert animated.layout.updatemenus[0].buttons[0].method == "animate"
    long = L.animated_figure(["Adam"], "rosenbrock", steps=300, frames=60)
    assert len(long.frames) <= 61 and long.frames[-1].name == "300"
    schedules = L.schedules_figure()
    assert len(schedules.data) == len(L.SCHEDULES)


# --- exercise 1: momentum ----------------------------------------------------------------


def _torch_momentum():
    return torch_after_steps("Momentum", L.MOMENTUM_P, L.MOMENTUM_GRADS, lr=L.MOMENTUM_LR)


def test_momentum_right():
    expected = _torch_momentum()
    assert check("13.momentum_step", expected).correct
    assert check("13.momentum_step", expected.tolist()).correct
    assert check("13.momentum_step", tuple(expected.tolist())).correct
    assert check("13.momentum_step", vg.tensor(expected.tolist())).correct
    # By first principles: b2 = 0.9 * g1 + g2, p2 = p - lr * g1 - lr * b2.
    g1, g2 = np.array(L.MOMENTUM_GRADS[0]), np.array(L.MOMENTUM_GRADS[1])
    by_hand = np.array(L.MOMENTUM_P) - 0.1 * g1 - 0.1 * (0.9 * g1 + g2)
    assert check("13.momentum_step", by_hand.tolist()).correct


def test_momentum_wrong():
    p, (g1, g2) = np.array(L.MOMENTUM_P), map(np.array, L.MOMENTUM_GRADS)
    assert_wrong("13.momentum_step", (p - 0.1 * g1).tolist(), "first step only")
    assert_wrong("13.momentum_step", (p - 0.1 * (g1 + g2)).tolist(), "plain gradient descent")
    nesterov = torch_after_steps("Nesterov", L.MOMENTUM_P, L.MOMENTUM_GRADS, lr=0.1)
    assert_wrong("13.momentum_step", nesterov, "Nesterov")
    b1 = 0.1 * g1
    b2 = 0.9 * b1 + 0.1 * g2
    assert_wrong("13.momentum_step", (p - 0.1 * b1 - 0.1 * b2).tolist(), "averaged")
    uphill = 2 * p - _torch_momentum().numpy()
    assert_wrong("13.momentum_step", uphill.tolist(), "uphill")
    assert_wrong("13.momentum_step", [0.0, 0.0], "not where two momentum steps end")
    assert_wrong("13.momentum_step", [1.0, 2.0, 3.0], "2 numbers")
    assert_wrong("13.momentum_step", "p2", "a tensor or a list of 2 numbers")


# --- exercise 2: Adam's first step -------------------------------------------------------


def test_adam_first_step_right():
    expected = torch_after_steps("Adam", L.ADAM_P, [L.ADAM_GRAD], lr=L.ADAM_LR)
    assert check("13.adam_first_step", expected).correct
    sign = np.sign(L.ADAM_GRAD)
    assert check("13.adam_first_step", (np.array(L.ADAM_P) - 0.1 * sign).tolist()).correct


def test_adam_first_step_wrong():
    p, g = np.array(L.ADAM_P), np.array(L.ADAM_GRAD)
    assert_wrong("13.adam_first_step", (-0.1 * np.sign(g)).tolist(), "the step")
    assert_wrong("13.adam_first_step", (p + 0.1 * np.sign(g)).tolist(), "uphill")
    assert_wrong("13.adam_first_step", (p - 0.1 * g).tolist(), "plain gradient-descent")
    no_correction = p - 0.1 * (0.1 * g) / (np.sqrt(0.001 * g * g) + 1e-8)
    assert_wrong("13.adam_first_step", no_correction.tolist(), "bias corrections")
    only_m = p - 0.1 * g / np.sqrt(0.001 * g * g)
    assert_wrong("13.adam_first_step", only_m.tolist(), "corrected m but not v")
    only_v = p - 0.1 * (0.1 * g) / np.abs(g)
    assert_wrong("13.adam_first_step", only_v.tolist(), "corrected v but not m")
    assert_wrong("13.adam_first_step", [0.5, 0.5, 0.5], "not p after Adam's first step")
    assert_wrong("13.adam_first_step", None, "3 numbers")


# --- exercise 3: Adagrad ----------------------------------------------------------------


def _torch_adagrad_sizes():
    param = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.Adagrad([param], lr=L.ADAGRAD_LR)
    sizes = []
    for _ in range(L.ADAGRAD_STEPS):
        before = param.item()
        (L.ADAGRAD_GRAD * param).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
        sizes.append(abs(param.item() - before))
    return sizes


def test_adagrad_right():
    sizes = _torch_adagrad_sizes()
    assert check("13.adagrad_steps", sizes).correct
    assert check("13.adagrad_steps", [0.5 / math.sqrt(k) for k in range(1, 5)]).correct
    assert check("13.adagrad_steps", torch.tensor(sizes)).correct


def test_adagrad_wrong():
    assert_wrong("13.adagrad_steps", [0.5] * 4, "grows")
    assert_wrong("13.adagrad_steps", [0.5 / k for k in range(1, 5)], "divided by the step count")
    assert_wrong("13.adagrad_steps", [1 / math.sqrt(k) for k in range(1, 5)], "cancels")
    assert_wrong("13.adagrad_steps", [-0.5 / math.sqrt(k) for k in range(1, 5)], "positive")
    assert_wrong("13.adagrad_steps", [0.5, 0.4, 0.3, 0.2], "not Adagrad's step sizes")
    assert_wrong("13.adagrad_steps", [0.5, 0.35], "4 numbers")


# --- exercise 4: Adam's L2 against AdamW ------------------------------------------------


def _torch_decay():
    hyper = {"lr": L.DECAY_LR, "weight_decay": L.DECAY}
    adam = torch_after_steps("Adam", L.DECAY_P, [L.DECAY_GRAD], **hyper).item()
    adamw = torch_after_steps("AdamW", L.DECAY_P, [L.DECAY_GRAD], **hyper).item()
    return adam, adamw


def test_adamw_right():
    adam, adamw = _torch_decay()
    assert check("13.adamw_decay", (adam, adamw)).correct
    assert check("13.adamw_decay", [1.9, 1.88]).correct  # first principles: 2 - 0.1, 2*0.99 - 0.1
    assert check("13.adamw_decay", (torch.tensor([adam]), vg.tensor(adamw))).correct


def test_adamw_wrong():
    adam, adamw = _torch_decay()
    assert_wrong("13.adamw_decay", (adamw, adam), "swapped")
    assert_wrong("13.adamw_decay", (2 - 0.1 * 0.7, adamw), "Adam:", "SGD step")
    assert_wrong("13.adamw_decay", (adamw, adamw), "Adam:", "added to the gradient")
    assert_wrong("13.adamw_decay", (1.5, adamw), "Adam:", "is not p after one step")
    assert_wrong("13.adamw_decay", (adam, adam), "AdamW:", "shrinks p")
    assert_wrong("13.adamw_decay", (adam, 2 * 0.9 - 0.1), "AdamW:", "not 1 - weight_decay")
    assert_wrong("13.adamw_decay", (adam, 1.5), "AdamW:", "is not p after one step")
    message = assert_wrong("13.adamw_decay", (1.5, 1.5), "Adam:")
    assert "AdamW" not in message  # one mistake at a time
    assert_wrong("13.adamw_decay", 1.9, "tuple of two numbers")
    assert_wrong("13.adamw_decay", ("1.9", "1.88"), "one number")


# --- exercise 5: StepLR ------------------------------------------------------------------


def _torch_step_lr(calls):
    param = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([param], lr=L.STEP_LR_BASE)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, L.STEP_LR_SIZE, L.STEP_LR_GAMMA)
    for _ in range(calls):
        optimizer.step()
        scheduler.step()
    return optimizer.param_groups[0]["lr"]


def test_step_lr_right():
    assert check("13.step_lr", _torch_step_lr(L.STEP_LR_CALLS)).correct
    assert check("13.step_lr", 0.005).correct


def test_step_lr_wrong():
    assert_wrong("13.step_lr", _torch_step_lr(L.STEP_LR_CALLS - 1), "one decay short")
    assert_wrong("13.step_lr", 0.0005, "one decay too many")
    assert_wrong("13.step_lr", 0.5 * 0.1**6, "every call")
    assert_wrong("13.step_lr", 0.5, "has changed")
    assert_wrong("13.step_lr", 0.25, "is not the rate")
    assert_wrong("13.step_lr", "0.005", "one number")

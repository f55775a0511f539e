"""Lesson 13 — optimizers: ``vizgrad.optim`` (``torch.optim``) and its learning-rate schedulers.

An optimizer owns a list of parameters and, in ``step()``, moves each of them using its
``.grad`` and some state of its own (a momentum buffer, running averages of the gradient
and of its square, a step count). The notebook checks each update rule by hand against
``optimizer.step()``, draws the paths the optimizers take on two loss surfaces
(``trajectory``, ``trajectory_figure``, ``side_by_side_figure``, ``animated_figure``) and
the learning rate the schedulers of ``vizgrad.optim.lr_scheduler`` give at each step
(``schedule``, ``schedules_figure``).

Every expected answer is computed by vizgrad's optimizers from the same numbers the
notebook shows (``after_steps``, ``schedule``); the tests compare them with ``torch.optim``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

import vizgrad as vg

from .exercise import Wrong, exercise
from .lesson07 import numbers_of

__all__ = ["OPTIMIZERS", "SURFACES", "SCHEDULES", "make_optimizer", "after_steps",
           "trajectory", "trajectory_figure", "side_by_side_figure", "animated_figure",
           "schedule", "schedules_figure", "MOMENTUM_P", "MOMENTUM_GRADS", "ADAM_P",
           "ADAM_GRAD", "ADAGRAD_GRAD", "DECAY_P", "DECAY_GRAD"]  # fmt: skip


# --- the optimizers -------------------------------------------------------------------

# name -> (class, the settings that make it that optimizer). "Momentum" and "Nesterov" are
# SGD with a momentum buffer, as in PyTorch: there is no separate class for them.
OPTIMIZERS = {
    "SGD": (vg.optim.SGD, {}),
    "Momentum": (vg.optim.SGD, {"momentum": 0.9}),
    "Nesterov": (vg.optim.SGD, {"momentum": 0.9, "nesterov": True}),
    "Adagrad": (vg.optim.Adagrad, {}),
    "RMSprop": (vg.optim.RMSprop, {}),
    "Adam": (vg.optim.Adam, {}),
    "AdamW": (vg.optim.AdamW, {}),
}

# One colour per optimizer, the same in every figure.
COLOURS = {
    "SGD": "#1f77b4",
    "Momentum": "#ff7f0e",
    "Nesterov": "#2ca02c",
    "Adagrad": "#d62728",
    "RMSprop": "#9467bd",
    "Adam": "#8c564b",
    "AdamW": "#e377c2",
}


def make_optimizer(name: str, params, **hyper):
    """The optimizer ``name`` of ``OPTIMIZERS`` over ``params``; ``hyper`` (``lr=...``,
    ``weight_decay=...``) overrides or adds to its settings."""
    try:
        cls, settings = OPTIMIZERS[name]
    except KeyError:
        raise ValueError(f"unknown optimizer {name!r}; choose one of {list(OPTIMIZERS)}") from None
    return cls(params, **{**settings, **hyper})


def after_steps(name: str, value, grads, **hyper) -> vg.Tensor:
    """The parameter after one ``optimizer.step()`` per gradient in ``grads``.

    The parameter starts at ``value``; before each step its ``.grad`` is set to the next
    gradient (as ``loss.backward()`` would), so the optimizer's state carries over from
    step to step exactly as in training.
    """
    param = vg.tensor(_floats(value), requires_grad=True)
    optimizer = make_optimizer(name, [param], **hyper)
    for grad in grads:
        param.grad = vg.tensor(_floats(grad))
        optimizer.step()
    return param.detach().clone()


def _floats(value):
    if isinstance(value, vg.Tensor):
        return value.detach().tolist()
    return value


# --- loss surfaces and trajectories ---------------------------------------------------


def bowl(x, y):
    """An elongated quadratic bowl: 20 times steeper across (y) than along (x)."""
    return 0.1 * x**2 + 2 * y**2


def rosenbrock(x, y):
    """Rosenbrock's banana: a curved, flat-bottomed valley with its minimum at (1, 1)."""
    return (1 - x) ** 2 + 100 * (y - x**2) ** 2


@dataclass(frozen=True)
class Surface:
    """A 2-D loss surface, where the optimizers start on it, and the settings that suit it."""

    title: str
    function: object  # f(x, y), for vizgrad tensors and NumPy arrays alike
    start: tuple
    minimum: tuple
    x_range: tuple
    y_range: tuple
    steps: int
    log_scale: bool  # contour lines of log(1 + f): Rosenbrock's valley spans many decades
    hyper: dict = field(default_factory=dict)  # optimizer name -> its settings here


SURFACES = {
    "bowl": Surface(
        "Elongated bowl  f = 0.1 x² + 2 y²", bowl, start=(-4.5, 1.5), minimum=(0.0, 0.0),
        x_range=(-5.0, 1.5), y_range=(-2.0, 2.0), steps=40, log_scale=False,
        hyper={"SGD": {"lr": 0.45}, "Momentum": {"lr": 0.05}, "Nesterov": {"lr": 0.05},
               "Adagrad": {"lr": 1.0}, "RMSprop": {"lr": 0.1}, "Adam": {"lr": 0.3},
               "AdamW": {"lr": 0.3, "weight_decay": 0.5}},
    ),
    "rosenbrock": Surface(
        "Rosenbrock  f = (1 − x)² + 100 (y − x²)²", rosenbrock, start=(-1.2, 1.0),
        minimum=(1.0, 1.0), x_range=(-2.0, 2.0), y_range=(-1.0, 3.0), steps=300, log_scale=True,
        hyper={"SGD": {"lr": 1.5e-3}, "Momentum": {"lr": 4e-4}, "Nesterov": {"lr": 4e-4},
               "Adagrad": {"lr": 0.3}, "RMSprop": {"lr": 0.02}, "Adam": {"lr": 0.1},
               "AdamW": {"lr": 0.1, "weight_decay": 0.1}},
    ),
}  # fmt: skip


def _surface(surface) -> Surface:
    if isinstance(surface, Surface):
        return surface
    try:
        return SURFACES[surface]
    except KeyError:
        raise ValueError(f"unknown surface {surface!r}; choose one of {list(SURFACES)}") from None


def trajectory(name: str, steps: int | None = None, surface="bowl", start=None,
               **hyper) -> np.ndarray:  # fmt: skip
    """The points optimizer ``name`` visits on ``surface``: an array of ``steps + 1`` rows
    ``(x, y)``, the start first.

    This is the training loop of any model, on a model with one parameter of two
    elements: ``zero_grad()``, compute the loss, ``backward()``, ``step()``.
    """
    where = _surface(surface)
    steps = where.steps if steps is None else steps
    point = vg.tensor(list(where.start if start is None else start), requires_grad=True)
    optimizer = make_optimizer(name, [point], **{**where.hyper.get(name, {}), **hyper})
    path = [point.tolist()]
    for _ in range(steps):
        optimizer.zero_grad()
        loss = where.function(point[0], point[1])
        loss.backward()
        optimizer.step()
        path.append(point.tolist())
    return np.asarray(path)


def _contour(where: Surface, points: int = 100):
    import plotly.graph_objects as go

    # float32 and a coarse grid keep the figure small: it travels to the browser as JSON.
    xs = np.linspace(*where.x_range, points + 1, dtype=np.float32)
    ys = np.linspace(*where.y_range, points * 4 // 5 + 1, dtype=np.float32)
    grid_x, grid_y = np.meshgrid(xs, ys)
    z = where.function(grid_x, grid_y)
    if where.log_scale:
        z = np.log1p(z)
    z = z.astype(np.float32)
    return go.Contour(x=xs, y=ys, z=z, ncontours=25, colorscale="Blues", reversescale=True,
                      showscale=False, opacity=0.55, hoverinfo="skip",
                      contours={"coloring": "fill", "showlines": True},
                      line={"width": 0.5}, name="loss")  # fmt: skip


def _minimum_marker(where: Surface, show_legend: bool = True):
    import plotly.graph_objects as go

    return go.Scatter(x=[where.minimum[0]], y=[where.minimum[1]], mode="markers",
                      marker={"symbol": "star", "size": 14, "color": "gold",
                              "line": {"color": "black", "width": 1}},
                      name="minimum", showlegend=show_legend)  # fmt: skip


def _path_trace(name: str, path: np.ndarray, show_legend: bool = True):
    import plotly.graph_objects as go

    # Plain lists, not arrays: plotly sends arrays as typed binary data, and plotly.js then
    # drops the contour plot when an animation frame carries them.
    return go.Scatter(x=path[:, 0].tolist(), y=path[:, 1].tolist(), mode="lines+markers", name=name,
                      line={"color": COLOURS.get(name, "black"), "width": 2},
                      marker={"size": 4}, legendgroup=name, showlegend=show_legend)  # fmt: skip


def _axes(figure, where: Surface, **where_kwargs) -> None:
    figure.update_xaxes(range=list(where.x_range), title_text="x", **where_kwargs)
    figure.update_yaxes(range=list(where.y_range), title_text="y", **where_kwargs)


def trajectory_figure(names=None, surface="bowl", steps: int | None = None):
    """The optimizers' paths from the same start, overlaid on the contour plot (a
    ``plotly`` ``go.Figure``; click a legend entry to hide or show one path)."""
    import plotly.graph_objects as go

    where = _surface(surface)
    names = list(OPTIMIZERS) if names is None else list(names)
    figure = go.Figure([_contour(where)])
    for name in names:
        figure.add_trace(_path_trace(name, trajectory(name, steps, where)))
    figure.add_trace(_minimum_marker(where))
    figure.update_layout(title=where.title, width=760, height=520,
                         legend={"title": {"text": "optimizer"}})  # fmt: skip
    _axes(figure, where)
    return figure


def side_by_side_figure(names=None, surface="bowl", steps: int | None = None, columns: int = 4):
    """One small contour plot per optimizer, same start and same number of steps."""
    from plotly.subplots import make_subplots

    where = _surface(surface)
    names = list(OPTIMIZERS) if names is None else list(names)
    rows = math.ceil(len(names) / columns)
    figure = make_subplots(rows=rows, cols=columns, subplot_titles=names,
                           horizontal_spacing=0.04, vertical_spacing=0.12)  # fmt: skip
    for i, name in enumerate(names):
        row, col = i // columns + 1, i % columns + 1
        figure.add_trace(_contour(where, points=50), row=row, col=col)
        figure.add_trace(_path_trace(name, trajectory(name, steps, where), False), row=row, col=col)
        figure.add_trace(_minimum_marker(where, False), row=row, col=col)
    figure.update_xaxes(range=list(where.x_range), showticklabels=False)
    figure.update_yaxes(range=list(where.y_range), showticklabels=False)
    figure.update_layout(title=where.title, width=250 * columns, height=240 * rows + 80,
                         showlegend=False, margin={"l": 20, "r": 20, "t": 80, "b": 20})  # fmt: skip
    return figure


def animated_figure(names=None, surface="bowl", steps: int | None = None, frames: int = 60):
    """The paths drawn step by step: a play button and a slider over the steps (plotly
    frames: the frame of step k shows every path up to step k). A long run is shown at
    most ``frames`` times, every few steps, to keep the figure small."""
    import plotly.graph_objects as go

    where = _surface(surface)
    names = list(OPTIMIZERS) if names is None else list(names)
    paths = {name: trajectory(name, steps, where) for name in names}
    count = len(next(iter(paths.values())))
    every = max(1, math.ceil((count - 1) / frames))
    shown = sorted(set(range(0, count, every)) | {count - 1})
    # Trace 0 is the contour and the last is the minimum. Every frame carries the contour
    # again (on a coarse grid, to stay small): plotly.js hides a contour trace that a frame
    # leaves out (plotly.js issue 4491).
    background = _contour(where, points=30)
    paths_at = [_path_trace(n, p[:1]) for n, p in paths.items()]
    figure = go.Figure([background] + paths_at + [_minimum_marker(where)])
    figure.frames = [
        go.Frame(name=str(k), traces=list(range(len(names) + 1)),
                 data=[background] + [_path_trace(n, p[: k + 1]) for n, p in paths.items()])
        for k in shown
    ]  # fmt: skip
    # redraw=True: plotly's quick redraw (False) only moves scatter traces.
    play = {"frame": {"duration": 80, "redraw": True}, "fromcurrent": True,
            "transition": {"duration": 0}}  # fmt: skip
    pause = {"frame": {"duration": 0, "redraw": True}, "mode": "immediate"}
    figure.update_layout(
        title=where.title, width=760, height=560,
        updatemenus=[{"type": "buttons", "showactive": False, "x": 0.0, "y": -0.12,
                      "xanchor": "left", "direction": "left",
                      "buttons": [{"label": "▶ play", "method": "animate", "args": [None, play]},
                                  {"label": "❚❚ pause", "method": "animate",
                                   "args": [[None], pause]}]}],
        sliders=[{"active": 0, "x": 0.2, "len": 0.8, "y": -0.08,
                  "currentvalue": {"prefix": "step ", "xanchor": "right"},
                  "steps": [{"label": str(k), "method": "animate",
                             "args": [[str(k)], {**pause, "transition": {"duration": 0}}]}
                            for k in shown]}],
    )  # fmt: skip
    _axes(figure, where)
    return figure


# --- learning-rate schedules -----------------------------------------------------------

# name -> (scheduler class name in vizgrad.optim.lr_scheduler, its arguments), for 60 steps
# from a base rate of 0.1.
SCHEDULES = {
    "StepLR": ("StepLR", {"step_size": 15, "gamma": 0.5}),
    "ExponentialLR": ("ExponentialLR", {"gamma": 0.95}),
    "CosineAnnealingLR": ("CosineAnnealingLR", {"T_max": 60, "eta_min": 0.005}),
    "OneCycleLR": ("OneCycleLR", {"max_lr": 0.1, "total_steps": 60}),
    "LinearLR (warm-up)": ("LinearLR", {"start_factor": 0.1, "total_iters": 10}),
}
SCHEDULE_BASE_LR = 0.1
SCHEDULE_STEPS = 60


def schedule(name: str, steps: int = SCHEDULE_STEPS, lr: float = SCHEDULE_BASE_LR,
             **arguments) -> list[float]:  # fmt: skip
    """The learning rate used at each of ``steps`` training steps under scheduler ``name``
    (a class of ``vizgrad.optim.lr_scheduler``, or a key of ``SCHEDULES``).

    The loop is the one of any training run: read the rate, ``optimizer.step()``, then
    ``scheduler.step()``. The optimizer is SGD with momentum (``OneCycleLR`` moves the
    momentum too) on one parameter with a zero gradient, so only the rate matters.
    """
    if name in SCHEDULES:
        name, defaults = SCHEDULES[name]
        arguments = {**defaults, **arguments}
    scheduler_class = getattr(vg.optim.lr_scheduler, name)
    param = vg.zeros(1, requires_grad=True)
    param.grad = vg.zeros(1)
    optimizer = vg.optim.SGD([param], lr=lr, momentum=0.9)
    scheduler = scheduler_class(optimizer, **arguments)
    rates = []
    for _ in range(steps):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return rates


def schedules_figure(names=None, steps: int = SCHEDULE_STEPS):
    """One panel per schedule: the learning rate against the step."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    names = list(SCHEDULES) if names is None else list(names)
    columns = 3
    rows = math.ceil(len(names) / columns)
    figure = make_subplots(rows=rows, cols=columns, subplot_titles=names,
                           horizontal_spacing=0.08, vertical_spacing=0.18)  # fmt: skip
    for i, name in enumerate(names):
        figure.add_trace(go.Scatter(x=list(range(steps)), y=schedule(name, steps), name=name,
                                    mode="lines", line={"width": 2, "shape": "hv"}),
                         row=i // columns + 1, col=i % columns + 1)  # fmt: skip
    figure.update_xaxes(title_text="step")
    figure.update_yaxes(title_text="lr", rangemode="tozero")
    figure.update_layout(width=900, height=300 * rows + 40, showlegend=False,
                         title=f"Learning-rate schedules (base lr {SCHEDULE_BASE_LR:g})")  # fmt: skip
    return figure


# --- checking helpers -------------------------------------------------------------------


def _vector(answer, size: int, what: str) -> np.ndarray:
    got = numbers_of(answer)
    if got is None:
        raise Wrong(f"answer with {what}: a tensor or a list of {size} numbers, "
                    f"not a {type(answer).__name__}.")  # fmt: skip
    got = got.reshape(-1) if got.ndim > 1 else got
    if got.shape != (size,):
        raise Wrong(f"answer with {size} numbers ({what}); yours has shape {tuple(got.shape)}.")
    return got


def _number(answer, what: str) -> float:
    got = numbers_of(answer)
    if got is None or got.size != 1:
        raise Wrong(f"answer with one number ({what}).")
    return float(got.reshape(()))


def _close(got, expected, atol: float = 1e-5, rtol: float = 1e-4) -> bool:
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    return got.shape == expected.shape and bool(np.allclose(got, expected, rtol=rtol, atol=atol))


def _momentum_by_hand(p, grads, lr, momentum, *, average=False, nesterov=False, steps=None):
    # The momentum rule in NumPy, with the variations students mix up, to name a mistake:
    # ``average`` is the running average b = m * b + (1 - m) * g from b = 0 (Adam's m).
    p, buf = np.array(p, dtype=float), None
    for g in grads[:steps]:
        g = np.asarray(g, dtype=float)
        if average:
            buf = (1 - momentum) * g if buf is None else momentum * buf + (1 - momentum) * g
        else:
            buf = g.copy() if buf is None else momentum * buf + g
        p = p - lr * (g + momentum * buf if nesterov else buf)
    return p


# --- exercise 1: two momentum steps ---------------------------------------------------

MOMENTUM_P = [1.0, -2.0]
MOMENTUM_GRADS = ([0.5, 1.0], [0.5, -1.0])
MOMENTUM_LR = 0.1
MOMENTUM = 0.9


@exercise(
    "13.momentum_step",
    f"p starts at {MOMENTUM_P}. SGD(lr={MOMENTUM_LR}, momentum={MOMENTUM}) takes two steps, "
    f"with the gradients {MOMENTUM_GRADS[0]} and then {MOMENTUM_GRADS[1]}. Compute p after "
    "the second step by hand.",
    hints=(
        "The buffer b is the velocity: b = momentum * b + g, and p -= lr * b.",
        "PyTorch's first step has no old buffer: b is the gradient itself, so step 1 is plain "
        "gradient descent.",
        "b1 = g1; p1 = p - lr * b1; b2 = 0.9 * b1 + g2; p2 = p1 - lr * b2.",
    ),
    solution="""
p = vg.tensor([1.0, -2.0])
g1, g2 = vg.tensor([0.5, 1.0]), vg.tensor([0.5, -1.0])
lr, momentum = 0.1, 0.9
b = g1.clone()                  # the first step: the buffer is the gradient itself
p = p - lr * b
b = momentum * b + g2           # then: decay the velocity, add the new gradient
p = p - lr * b
answer = p
check("13.momentum_step", answer)
""",
    explanation="The second step moves by lr * (0.9 * g1 + g2): the first gradient still "
    "pushes. Where gradients agree (the first coordinate) the steps grow; where they flip "
    "sign (the second) they cancel — that is how momentum damps a zig-zag.",
)
def _(answer):
    got = _vector(answer, 2, "p after two steps")
    expected = after_steps("Momentum", MOMENTUM_P, MOMENTUM_GRADS, lr=MOMENTUM_LR).tolist()
    if _close(got, expected):
        return
    args = (MOMENTUM_P, MOMENTUM_GRADS, MOMENTUM_LR, MOMENTUM)
    if _close(got, _momentum_by_hand(*args, steps=1)):
        raise Wrong("that is p after the first step only: take the second step too, with the "
                    "buffer updated by the second gradient.")  # fmt: skip
    if _close(got, _momentum_by_hand(*args[:3], 0.0)):
        raise Wrong("that is plain gradient descent (no velocity): the second step must also "
                    "carry 0.9 times the first step's buffer.")  # fmt: skip
    if _close(got, _momentum_by_hand(*args, nesterov=True)):
        raise Wrong(
            "that is Nesterov momentum (each step uses g + momentum * b); this is "
            "SGD(momentum=0.9) without nesterov, which steps by the buffer b itself."
        )
    if _close(got, _momentum_by_hand(*args, average=True)):
        raise Wrong("you averaged (b = 0.9 b + 0.1 g, as Adam's first moment does); PyTorch's "
                    "SGD momentum adds the whole gradient: b = 0.9 b + g.")  # fmt: skip
    twice_wrong_sign = 2 * np.array(MOMENTUM_P) - np.asarray(expected)
    if _close(got, twice_wrong_sign):
        raise Wrong("your p moved uphill: an optimizer subtracts lr * b (it goes against the "
                    "gradient).")  # fmt: skip
    raise Wrong(f"p = {got.tolist()} is not where two momentum steps end. Step 1 uses b = g1; "
                "step 2 uses b = 0.9 * g1 + g2.")  # fmt: skip


# --- exercise 2: Adam's first step -----------------------------------------------------

ADAM_P = [1.0, 1.0, 1.0]
ADAM_GRAD = [0.001, 3.0, -50.0]
ADAM_LR = 0.1


def _adam_first_step_by_hand(correct_m: bool, correct_v: bool) -> np.ndarray:
    # Adam's first step with or without each bias correction (compared loosely: eps matters
    # where v is tiny, and a student may leave it out).
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    g = np.asarray(ADAM_GRAD)
    m, v = (1 - beta1) * g, (1 - beta2) * g * g
    m_hat = m / (1 - beta1) if correct_m else m
    v_hat = v / (1 - beta2) if correct_v else v
    return np.asarray(ADAM_P) - ADAM_LR * m_hat / (np.sqrt(v_hat) + eps)


@exercise(
    "13.adam_first_step",
    f"p = {ADAM_P} gets the gradient {ADAM_GRAD}. Predict p after one step of "
    f"Adam(lr={ADAM_LR}) (betas=(0.9, 0.999), eps=1e-8).",
    hints=(
        "m = 0.1 * g and v = 0.001 * g² after one step; the bias corrections divide them "
        "by 1 - 0.9 = 0.1 and by 1 - 0.999 = 0.001.",
        "So m̂ = g and v̂ = g²: the update is lr * g / (|g| + eps).",
        "g / |g| is the sign of g: every element moves by lr, whatever the size of its gradient.",
    ),
    solution="""
p = vg.tensor([1.0, 1.0, 1.0])
g = vg.tensor([0.001, 3.0, -50.0])
lr = 0.1
m_hat = (0.1 * g) / (1 - 0.9)           # the first moment, bias-corrected: g
v_hat = (0.001 * g * g) / (1 - 0.999)   # the second moment, bias-corrected: g²
answer = p - lr * m_hat / (v_hat.sqrt() + 1e-8)   # ≈ p - lr * sign(g)
check("13.adam_first_step", answer)
""",
    explanation="After the bias corrections m̂ = g and v̂ = g², so the first step is "
    "lr * g / |g| = lr * sign(g): a gradient of 0.001 and one of 50 move their elements by the "
    "same 0.1. Adam's steps are about lr in size, whatever the scale of the loss.",
)
def _(answer):
    got = _vector(answer, 3, "p after one Adam step")
    expected = after_steps("Adam", ADAM_P, [ADAM_GRAD], lr=ADAM_LR).tolist()
    if _close(got, expected, atol=1e-4):
        return
    p = np.asarray(ADAM_P)
    if _close(got, p - np.asarray(expected), atol=1e-4) or _close(
        got, np.asarray(expected) - p, atol=1e-4
    ):
        raise Wrong("that is the step (the change of p), not p after the step: subtract the "
                    "step from p.")  # fmt: skip
    if _close(got, 2 * p - np.asarray(expected), atol=1e-4):
        raise Wrong("p moved uphill: Adam subtracts lr * m̂ / (sqrt(v̂) + eps).")
    if _close(got, p - ADAM_LR * np.asarray(ADAM_GRAD)):
        raise Wrong("that is a plain gradient-descent step (p - lr * g): Adam divides by the "
                    "root of the second moment, so the size of g cancels out.")  # fmt: skip
    if _close(got, _adam_first_step_by_hand(False, False), 1e-3, 1e-3):
        raise Wrong(
            "you left out the bias corrections: m = 0.1 g and v = 0.001 g² are too "
            "small after one step; Adam divides them by 1 - 0.9 and 1 - 0.999."
        )
    if _close(got, _adam_first_step_by_hand(True, False), 1e-3, 1e-3):
        raise Wrong("you corrected m but not v: v̂ = v / (1 - 0.999).")
    if _close(got, _adam_first_step_by_hand(False, True), 1e-3, 1e-3):
        raise Wrong("you corrected v but not m: m̂ = m / (1 - 0.9).")
    raise Wrong(f"p = {got.tolist()} is not p after Adam's first step. Work out m̂ and v̂ "
                "after one step (hint 1).")  # fmt: skip


# --- exercise 3: Adagrad's shrinking steps ----------------------------------------------

ADAGRAD_GRAD = 2.0
ADAGRAD_LR = 0.5
ADAGRAD_STEPS = 4


def adagrad_step_sizes(steps: int = ADAGRAD_STEPS, grad: float = ADAGRAD_GRAD,
                       lr: float = ADAGRAD_LR) -> list[float]:  # fmt: skip
    """The size of each of Adagrad's steps when the gradient is always ``grad``."""
    path = after_steps_path("Adagrad", [0.0], [[grad]] * steps, lr=lr)
    return [abs(b - a) for a, b in zip(path, path[1:], strict=False)]


def after_steps_path(name: str, value, grads, **hyper) -> list[float]:
    """The first element of the parameter before and after each step (see ``after_steps``)."""
    param = vg.tensor(_floats(value), requires_grad=True)
    optimizer = make_optimizer(name, [param], **hyper)
    path = [param.tolist()[0]]
    for grad in grads:
        param.grad = vg.tensor(_floats(grad))
        optimizer.step()
        path.append(param.tolist()[0])
    return path


@exercise(
    "13.adagrad_steps",
    f"The loss is f(x) = {ADAGRAD_GRAD:g} x, so the gradient is always {ADAGRAD_GRAD:g}. "
    f"Adagrad(lr={ADAGRAD_LR}) takes {ADAGRAD_STEPS} steps. Give the size of each step "
    "(|x after - x before|), as a list of four numbers.",
    hints=(
        "Adagrad keeps sum = g1² + g2² + ... and steps by lr * g / (sqrt(sum) + eps).",
        f"After k steps sum = k * {ADAGRAD_GRAD:g}²; the size of the gradient cancels out.",
        "Step k has size lr / sqrt(k).",
    ),
    solution="""
lr, g = 0.5, 2.0
answer = [lr * g / (k * g * g) ** 0.5 for k in range(1, 5)]   # lr / sqrt(k)
check("13.adagrad_steps", answer)
""",
    explanation="The accumulator only grows (sum = k g²), so step k is lr / sqrt(k) even "
    "though the gradient never changes: Adagrad's effective learning rate decays on its own. "
    "That is good for rare features and bad for long training — RMSprop and Adam replace the "
    "sum by a running average, which forgets.",
)
def _(answer):
    got = _vector(answer, ADAGRAD_STEPS, "the four step sizes")
    expected = np.asarray(adagrad_step_sizes())
    if _close(got, expected):
        return
    if _close(got, -expected):
        raise Wrong("a step size is a distance: give the sizes as positive numbers.")
    ks = np.arange(1, ADAGRAD_STEPS + 1)
    if _close(got, np.full(ADAGRAD_STEPS, ADAGRAD_LR)):
        raise Wrong("the steps do not stay the same: Adagrad's sum of squared gradients grows "
                    "at every step, and the step is divided by its square root.")  # fmt: skip
    if _close(got, ADAGRAD_LR / ks):
        raise Wrong("you divided by the step count k; Adagrad divides by the square root of the "
                    "sum of squared gradients, sqrt(k * g²).")  # fmt: skip
    if _close(got, ADAGRAD_GRAD * ADAGRAD_LR / np.sqrt(ks)) or _close(
        got, ADAGRAD_LR / (ADAGRAD_GRAD * np.sqrt(ks))
    ):
        raise Wrong("the gradient's size cancels: g / sqrt(k * g²) = 1 / sqrt(k).")
    raise Wrong(f"{got.tolist()} are not Adagrad's step sizes; write sum after each step and "
                "divide lr * g by its square root.")  # fmt: skip


# --- exercise 4: Adam's L2 penalty against AdamW's decoupled decay -----------------------

DECAY_P = [2.0]
DECAY_GRAD = [0.5]
DECAY_LR = 0.1
DECAY = 0.1


@exercise(
    "13.adamw_decay",
    f"p = {DECAY_P[0]} with gradient {DECAY_GRAD[0]}. Predict p after one step of "
    f"Adam(lr={DECAY_LR}, weight_decay={DECAY}) and after one step of "
    f"AdamW(lr={DECAY_LR}, weight_decay={DECAY}), as a tuple (adam, adamw).",
    hints=(
        "Adam's weight_decay adds weight_decay * p to the gradient (an L2 penalty); "
        "AdamW first multiplies p by 1 - lr * weight_decay, then takes the Adam step on g.",
        "Adam's first step is lr * sign(gradient), whatever the gradient's size (exercise 2).",
        f"Adam: {DECAY_P[0]} - 0.1 * sign(0.5 + 0.2). AdamW: {DECAY_P[0]} * (1 - 0.01) - 0.1.",
    ),
    solution="""
p, g, lr, wd = 2.0, 0.5, 0.1, 0.1
adam = p - lr * 1.0                   # g + wd * p = 0.7 > 0, and the first step is lr * sign
adamw = p * (1 - lr * wd) - lr * 1.0  # decay the weight itself, then the same Adam step on g
answer = (adam, adamw)
check("13.adamw_decay", answer)
""",
    explanation="In Adam the penalty is part of the gradient, so it is divided by sqrt(v̂) "
    "like the rest: here it changed nothing. AdamW shrinks p by lr * weight_decay * p directly, "
    "the same for every parameter, whatever its gradient history.",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        raise Wrong("answer with a tuple of two numbers: (p after Adam, p after AdamW).")
    adam = _number(answer[0], "p after one Adam step")
    adamw = _number(answer[1], "p after one AdamW step")
    hyper = {"lr": DECAY_LR, "weight_decay": DECAY}
    expected_adam = after_steps("Adam", DECAY_P, [DECAY_GRAD], **hyper).item()
    expected_adamw = after_steps("AdamW", DECAY_P, [DECAY_GRAD], **hyper).item()
    p, g = DECAY_P[0], DECAY_GRAD[0]
    if math.isclose(adam, expected_adamw, abs_tol=1e-4) and math.isclose(
        adamw, expected_adam, abs_tol=1e-4
    ):
        raise Wrong("the two are swapped: Adam's weight_decay is the L2 term in the gradient, "
                    "AdamW's shrinks the parameter.")  # fmt: skip
    if not math.isclose(adam, expected_adam, abs_tol=1e-4):
        if math.isclose(adam, p - DECAY_LR * (g + DECAY * p), abs_tol=1e-4):
            raise Wrong(
                "Adam: that is an SGD step on g + weight_decay * p; Adam divides by "
                "sqrt(v̂), so its first step is lr * sign(g + weight_decay * p)."
            )
        if math.isclose(adam, expected_adamw, abs_tol=1e-4):
            raise Wrong(
                "Adam: its weight_decay is not applied to p directly; it is added to "
                "the gradient (g + weight_decay * p), which Adam then normalises."
            )
        raise Wrong(f"Adam: {adam:g} is not p after one step. The gradient Adam sees is "
                    "g + weight_decay * p; what is the size of Adam's first step?")  # fmt: skip
    if not math.isclose(adamw, expected_adamw, abs_tol=1e-4):
        if math.isclose(adamw, expected_adam, abs_tol=1e-4):
            raise Wrong(
                "AdamW: its weight decay is not in the gradient; it shrinks p by the "
                "factor 1 - lr * weight_decay before the Adam step, so p ends lower."
            )
        if math.isclose(adamw, p * (1 - DECAY) - DECAY_LR, abs_tol=1e-4):
            raise Wrong("AdamW: the factor is 1 - lr * weight_decay (the decay is scaled by "
                        "the learning rate), not 1 - weight_decay.")  # fmt: skip
        raise Wrong(f"AdamW: {adamw:g} is not p after one step: p * (1 - lr * weight_decay), "
                    "then the Adam step on g.")  # fmt: skip


# --- exercise 5: the learning rate of a StepLR schedule ----------------------------------

STEP_LR_BASE = 0.5
STEP_LR_SIZE = 3
STEP_LR_GAMMA = 0.1
STEP_LR_CALLS = 6


def step_lr_after(calls: int = STEP_LR_CALLS) -> float:
    """``optimizer.param_groups[0]["lr"]`` after ``calls`` calls of ``scheduler.step()``."""
    rates = schedule("StepLR", calls + 1, lr=STEP_LR_BASE, step_size=STEP_LR_SIZE,
                     gamma=STEP_LR_GAMMA)  # fmt: skip
    return rates[calls]


@exercise(
    "13.step_lr",
    f"optimizer = SGD(params, lr={STEP_LR_BASE}); scheduler = StepLR(optimizer, "
    f"step_size={STEP_LR_SIZE}, gamma={STEP_LR_GAMMA}). After {STEP_LR_CALLS} calls of "
    "scheduler.step() (one per epoch), what is optimizer.param_groups[0]['lr']?",
    hints=(
        "StepLR multiplies the rate by gamma each time its epoch counter reaches a multiple "
        "of step_size.",
        "The counter starts at 0 and each scheduler.step() adds one: lr = base * gamma ** "
        "(epoch // step_size).",
    ),
    solution="""
answer = 0.5 * 0.1 ** (6 // 3)
check("13.step_lr", answer)
""",
    explanation=f"lr = {STEP_LR_BASE} * {STEP_LR_GAMMA} ** ({STEP_LR_CALLS} // {STEP_LR_SIZE}): "
    "the rate dropped at epochs 3 and 6.",
)
def _(answer):
    got = _number(answer, "the learning rate")
    expected = step_lr_after()
    if math.isclose(got, expected, rel_tol=1e-6):
        return
    decays = STEP_LR_CALLS // STEP_LR_SIZE
    if math.isclose(got, STEP_LR_BASE * STEP_LR_GAMMA ** (decays - 1), rel_tol=1e-6):
        raise Wrong(
            "one decay short: the epoch counter is 6 after six calls, and the rate is "
            "multiplied by gamma when it reaches 3 and again when it reaches 6."
        )
    if math.isclose(got, STEP_LR_BASE * STEP_LR_GAMMA ** (decays + 1), rel_tol=1e-6):
        raise Wrong("one decay too many: the rate drops at epochs 3 and 6 only.")
    if math.isclose(got, STEP_LR_BASE * STEP_LR_GAMMA**STEP_LR_CALLS, rel_tol=1e-6):
        raise Wrong("that multiplies by gamma at every call (ExponentialLR); StepLR does it "
                    f"once every step_size = {STEP_LR_SIZE} calls.")  # fmt: skip
    if math.isclose(got, STEP_LR_BASE, rel_tol=1e-6):
        raise Wrong("the rate has changed by then: scheduler.step() writes a new lr into the "
                    "optimizer's param_groups.")  # fmt: skip
    raise Wrong(f"{got:g} is not the rate after {STEP_LR_CALLS} calls: "
                "lr = base * gamma ** (epoch // step_size).")  # fmt: skip

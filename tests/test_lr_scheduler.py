"""vizgrad.optim.lr_scheduler against torch.optim.lr_scheduler.

Each schedule runs for 40 steps beside PyTorch's on an optimizer with two param groups;
the learning rates (and cycled momenta) must be the same floats exactly, since both
compute them with the same Python arithmetic in the same order. Then the state dicts,
``step(epoch)``'s closed forms, the warnings and the errors.
"""

from __future__ import annotations

import math
import warnings

import pytest
import torch
from oracle import assert_same_error

import vizgrad as vg

STEPS = 40


def _optimizers(name="SGD", **kwargs):
    """The same two-group optimizer in both libraries."""
    kwargs = kwargs or ({"momentum": 0.9} if name == "SGD" else {})
    v = getattr(vg.optim, name)(
        [{"params": [vg.ones(2, requires_grad=True)]},
         {"params": [vg.ones(3, requires_grad=True)], "lr": 0.05}],
        lr=0.1, **kwargs,
    )  # fmt: skip
    t = getattr(torch.optim, name)(
        [{"params": [torch.ones(2, requires_grad=True)]},
         {"params": [torch.ones(3, requires_grad=True)], "lr": 0.05}],
        lr=0.1, **kwargs,
    )  # fmt: skip
    return v, t


def _group_values(opt):
    return [
        {k: v for k, v in g.items() if k in ("lr", "momentum", "betas", "initial_lr")}
        for g in opt.param_groups
    ]


def _run(make, name="SGD", opt_kwargs=None, steps=STEPS, metrics=None):
    """Step both schedulers (after their optimizers) and compare every value exactly."""
    v_opt, t_opt = _optimizers(name, **(opt_kwargs or {}))
    v_sched, t_sched = make(vg, v_opt), make(torch, t_opt)
    assert _group_values(v_opt) == _group_values(t_opt)
    assert v_sched.get_last_lr() == t_sched.get_last_lr()
    history = []
    for i in range(steps):
        v_opt.step()
        t_opt.step()
        if metrics is None:
            v_sched.step()
            t_sched.step()
        else:
            v_sched.step(metrics[i])
            t_sched.step(metrics[i])
        assert v_sched.get_last_lr() == t_sched.get_last_lr(), f"step {i}"
        assert _group_values(v_opt) == _group_values(t_opt), f"step {i}"
        history.append(t_sched.get_last_lr()[0])
    assert getattr(v_sched, "last_epoch", None) == getattr(t_sched, "last_epoch", None)
    return v_sched, t_sched, history


SCHEDULES = {
    "StepLR": lambda lib, o: lib.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda lib, o: lib.optim.lr_scheduler.MultiStepLR(o, [2, 5, 5, 20], gamma=0.3),
    "ExponentialLR": lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.93),
    "CosineAnnealingLR": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=7),
    "CosineAnnealingLR-eta_min": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(
        o, T_max=10, eta_min=0.01
    ),
    "CosineAnnealingWarmRestarts": lambda lib, o: (
        lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=5)
    ),
    "CosineAnnealingWarmRestarts-T_mult": lambda lib, o: (
        lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001)
    ),
    "LinearLR": lambda lib, o: lib.optim.lr_scheduler.LinearLR(o),
    "LinearLR-down": lambda lib, o: lib.optim.lr_scheduler.LinearLR(
        o, start_factor=1.0, end_factor=0.1, total_iters=17
    ),
    "ConstantLR": lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=0.4, total_iters=6),
    "LambdaLR": lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, lambda e: 0.9**e + 0.01 * e),
    "LambdaLR-per-group": lambda lib, o: lib.optim.lr_scheduler.LambdaLR(
        o, [lambda e: 1 / (e + 1), lambda e: 0.97**e]
    ),
    "MultiplicativeLR": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(
        o, lambda e: 0.95 if e % 2 else 1.01
    ),
    "PolynomialLR": lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(
        o, total_iters=12, power=2.0
    ),
    "CyclicLR": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=4
    ),
    "CyclicLR-triangular2": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, step_size_down=5, mode="triangular2"
    ),
    "CyclicLR-exp_range": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range", gamma=0.97
    ),
    "OneCycleLR": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=45),
    "OneCycleLR-linear-three-phase": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o,
        max_lr=[0.5, 0.3],
        epochs=5,
        steps_per_epoch=9,
        anneal_strategy="linear",
        three_phase=True,
        pct_start=0.25,
    ),  # fmt: skip
    "OneCycleLR-no-momentum": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o,
        max_lr=0.5,
        total_steps=40,
        cycle_momentum=False,
        div_factor=10.0,
        final_div_factor=100.0,
    ),  # fmt: skip
    "SequentialLR": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o,
        [
            lib.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=5),
            lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
            lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10),
        ],
        milestones=[5, 20],
    ),
    "ChainedScheduler": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [
            lib.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
            lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.95),
            lib.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5),
        ]
    ),
}


@pytest.mark.parametrize("key", list(SCHEDULES))
def test_schedule_matches_torch(key):
    _, _, history = _run(SCHEDULES[key])
    assert len(set(history)) >= 2, "the schedule should change the rate"


@pytest.mark.parametrize("key", ["OneCycleLR", "OneCycleLR-linear-three-phase", "CyclicLR"])
def test_momentum_cycling_of_adams_beta1(key):
    _run(SCHEDULES[key], name="Adam")


def test_cycling_needs_a_momentum():
    v_opt, t_opt = _optimizers("Adagrad")
    assert_same_error(
        lambda: vg.optim.lr_scheduler.OneCycleLR(v_opt, max_lr=0.1, total_steps=10),
        lambda: torch.optim.lr_scheduler.OneCycleLR(t_opt, max_lr=0.1, total_steps=10),
    )


def test_one_cycle_beyond_its_total_steps_is_an_error():
    v_opt, t_opt = _optimizers()
    v = vg.optim.lr_scheduler.OneCycleLR(v_opt, max_lr=0.1, total_steps=3)
    t = torch.optim.lr_scheduler.OneCycleLR(t_opt, max_lr=0.1, total_steps=3)
    for _ in range(3):
        v_opt.step()
        t_opt.step()
        v.step()
        t.step()
    assert_same_error(v.step, t.step)


@pytest.mark.parametrize("key", ["StepLR", "CosineAnnealingLR", "OneCycleLR", "CyclicLR",
                                 "SequentialLR", "ChainedScheduler", "LambdaLR"])  # fmt: skip
def test_state_dict_matches_torch_and_round_trips(key):
    v_sched, t_sched, _ = _run(SCHEDULES[key], steps=7)
    v_sd, t_sd = v_sched.state_dict(), t_sched.state_dict()
    _assert_same_state(v_sd, t_sd)

    # A fresh scheduler loaded with the state continues the schedule as the original.
    v_opt2, t_opt2 = _optimizers()
    v2, t2 = SCHEDULES[key](vg, v_opt2), SCHEDULES[key](torch, t_opt2)
    # Resuming as torch documents it: the scheduler first, then the optimizer.
    v2.load_state_dict(v_sd)
    t2.load_state_dict(t_sd)
    v_opt2.load_state_dict(v_sched.optimizer.state_dict())
    t_opt2.load_state_dict(t_sched.optimizer.state_dict())
    _assert_same_state(v2.state_dict(), t2.state_dict())
    for _ in range(5):
        for o in (v_opt2, t_opt2, v_sched.optimizer, t_sched.optimizer):
            o.step()
        for s in (v2, t2, v_sched, t_sched):
            s.step()
        assert v2.get_last_lr() == t2.get_last_lr() == t_sched.get_last_lr()


def _assert_same_state(v, t):
    if isinstance(t, dict):
        assert list(v) == list(t)
        for k in t:
            _assert_same_state(v[k], t[k])
    elif isinstance(t, list | tuple):
        assert len(v) == len(t)
        for a, b in zip(v, t, strict=True):
            _assert_same_state(a, b)
    elif callable(t):
        assert callable(v)
    else:
        assert type(v) is type(t) and v == t, f"{v!r} != {t!r}"


def test_lambda_state_dict_saves_callable_objects_only():
    class Decay:
        def __init__(self):
            self.rate = 0.9

        def __call__(self, epoch):
            return self.rate**epoch

    v_opt, t_opt = _optimizers()
    v = vg.optim.lr_scheduler.LambdaLR(v_opt, [Decay(), lambda e: 1.0])
    t = torch.optim.lr_scheduler.LambdaLR(t_opt, [Decay(), lambda e: 1.0])
    assert v.state_dict()["lr_lambdas"] == t.state_dict()["lr_lambdas"] == [{"rate": 0.9}, None]
    sd = v.state_dict()
    sd["lr_lambdas"][0]["rate"] = 0.5
    v.load_state_dict(sd)
    assert v.lr_lambdas[0].rate == 0.5


# --- step(epoch): the closed forms ----------------------------------------------------------

CLOSED_FORM = ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR",
               "ConstantLR", "PolynomialLR", "LambdaLR"]  # fmt: skip


@pytest.mark.parametrize("key", CLOSED_FORM)
def test_step_with_an_epoch_uses_the_closed_form(key):
    v_opt, t_opt = _optimizers()
    v, t = SCHEDULES[key](vg, v_opt), SCHEDULES[key](torch, t_opt)
    v_opt.step()
    t_opt.step()
    for epoch in [3, 1, 9, 9, 30, 0, 14]:
        with pytest.warns(UserWarning) as v_caught:
            v.step(epoch)
        with pytest.warns(UserWarning) as t_caught:
            t.step(epoch)
        assert [str(w.message) for w in v_caught] == [str(w.message) for w in t_caught]
        assert v.get_last_lr() == t.get_last_lr()
        assert v.last_epoch == t.last_epoch == epoch


@pytest.mark.parametrize("t_mult", [1, 2, 3])
def test_warm_restarts_at_fractional_epochs(t_mult):
    v_opt, t_opt = _optimizers()
    make = lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(  # noqa: E731
        o, T_0=4, T_mult=t_mult, eta_min=0.001
    )
    v, t = make(vg, v_opt), make(torch, t_opt)
    v_opt.step()
    t_opt.step()
    for i in range(60):
        epoch = i * 0.37
        v.step(epoch)
        t.step(epoch)
        assert v.get_last_lr() == t.get_last_lr(), epoch
        assert (v.T_cur, v.T_i, v.last_epoch) == (t.T_cur, t.T_i, t.last_epoch)
    assert_same_error(lambda: v.step(-1), lambda: t.step(-1))


# --- ReduceLROnPlateau ------------------------------------------------------------------------


def _metrics(kind):
    if kind == "falling-then-flat":
        return [1.0 / (i + 1) if i < 10 else 0.1 for i in range(STEPS)]
    if kind == "noisy":
        return [1.0 + 0.01 * math.sin(i * 1.7) - 0.001 * i for i in range(STEPS)]
    return [float(i % 7) for i in range(STEPS)]  # rising and resetting


@pytest.mark.parametrize("metrics", ["falling-then-flat", "noisy", "sawtooth"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"patience": 2},
        {"mode": "max", "patience": 1, "factor": 0.5},
        {"threshold_mode": "abs", "threshold": 0.01, "patience": 1},
        {"mode": "max", "threshold_mode": "abs", "threshold": 0.5, "patience": 0},
        {"patience": 1, "cooldown": 3, "factor": 0.5},
        {"patience": 0, "min_lr": [0.02, 0.01], "factor": 0.5},
        {"patience": 0, "min_lr": 0.004, "eps": 1e-3},
    ],
)
def test_reduce_on_plateau(kwargs, metrics):
    make = lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, **kwargs)  # noqa: E731
    v, t, _ = _run(make, metrics=_metrics(metrics))
    assert (v.best, v.num_bad_epochs, v.cooldown_counter) == (
        t.best,
        t.num_bad_epochs,
        t.cooldown_counter,
    )
    _assert_same_state(v.state_dict(), t.state_dict())


def test_reduce_on_plateau_takes_a_tensor_metric_and_loads_state():
    v_opt, t_opt = _optimizers()
    v = vg.optim.lr_scheduler.ReduceLROnPlateau(v_opt, patience=0)
    t = torch.optim.lr_scheduler.ReduceLROnPlateau(t_opt, patience=0)
    for value in [3.0, 2.0, 2.5, 2.5]:
        v.step(vg.tensor(value))
        t.step(torch.tensor(value))
    assert v.get_last_lr() == t.get_last_lr()
    v2 = vg.optim.lr_scheduler.ReduceLROnPlateau(_optimizers()[0], mode="max")
    v2.load_state_dict(v.state_dict())
    assert v2.mode == "min" and v2._is_better(1.0, 2.0)


# --- warnings -----------------------------------------------------------------------------------


def _warnings_of(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.category, str(w.message)) for w in caught]


def test_scheduler_step_before_optimizer_step_warns_as_torch():
    v_opt, t_opt = _optimizers()
    v = vg.optim.lr_scheduler.StepLR(v_opt, 2)
    t = torch.optim.lr_scheduler.StepLR(t_opt, 2)
    got, want = _warnings_of(v.step), _warnings_of(t.step)
    assert got == want and len(want) == 1
    assert _warnings_of(v.step) == _warnings_of(t.step) == []


def test_no_warning_in_the_right_order():
    v_opt, _ = _optimizers()
    v = vg.optim.lr_scheduler.ExponentialLR(v_opt, 0.9)
    v_opt.step()
    assert _warnings_of(v.step) == []


def test_overridden_optimizer_step_warns():
    v_opt, t_opt = _optimizers()
    v = vg.optim.lr_scheduler.StepLR(v_opt, 2)
    t = torch.optim.lr_scheduler.StepLR(t_opt, 2)
    v_opt.step = lambda closure=None: None
    t_opt.step = lambda closure=None: None
    got, want = _warnings_of(v.step), _warnings_of(t.step)
    assert got == want and len(want) == 1


def test_get_lr_outside_step_warns():
    v_opt, t_opt = _optimizers()
    v = vg.optim.lr_scheduler.StepLR(v_opt, 2)
    t = torch.optim.lr_scheduler.StepLR(t_opt, 2)
    assert _warnings_of(v.get_lr) == _warnings_of(t.get_lr) != []


# --- resuming and tensor learning rates ------------------------------------------------------


def test_resuming_needs_initial_lr():
    v_opt, t_opt = _optimizers()
    assert_same_error(
        lambda: vg.optim.lr_scheduler.StepLR(v_opt, 2, last_epoch=4),
        lambda: torch.optim.lr_scheduler.StepLR(t_opt, 2, last_epoch=4),
    )


def test_resuming_from_an_epoch():
    v_opt, t_opt = _optimizers()
    for group in v_opt.param_groups + t_opt.param_groups:
        group["initial_lr"] = group["lr"]
    make = lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(  # noqa: E731
        o, T_max=9, last_epoch=3
    )
    v, t = make(vg, v_opt), make(torch, t_opt)
    for _ in range(10):
        v_opt.step()
        t_opt.step()
        v.step()
        t.step()
        assert v.get_last_lr() == t.get_last_lr()


def test_a_tensor_learning_rate_is_updated_in_place():
    v_opt = vg.optim.SGD([vg.ones(2, requires_grad=True)], lr=vg.tensor(0.1))
    t_opt = torch.optim.SGD([torch.ones(2, requires_grad=True)], lr=torch.tensor(0.1))
    v_lr, t_lr = v_opt.param_groups[0]["lr"], t_opt.param_groups[0]["lr"]
    v = vg.optim.lr_scheduler.ExponentialLR(v_opt, 0.5)
    t = torch.optim.lr_scheduler.ExponentialLR(t_opt, 0.5)
    for _ in range(3):
        v_opt.step()
        t_opt.step()
        v.step()
        t.step()
    assert v_opt.param_groups[0]["lr"] is v_lr and t_opt.param_groups[0]["lr"] is t_lr
    assert v_lr.item() == t_lr.item()
    last = v.get_last_lr()[0]
    assert isinstance(last, vg.Tensor) and last is not v_lr and last.item() == t_lr.item()


# --- errors ------------------------------------------------------------------------------------

ERRORS = [
    lambda lib, o: lib.optim.lr_scheduler.StepLR("not an optimizer", 2),
    lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=1.5),
    lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, start_factor=0),
    lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, end_factor=2),
    lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, [lambda e: 1.0]),
    lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(o, [1.0, 2.0]),
    lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2.5),
    lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="x"),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=0),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, epochs=0, steps_per_epoch=3),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, epochs=2, steps_per_epoch=-3),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=9, pct_start=1),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.1, total_steps=9, anneal_strategy="step"
    ),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=[0.1], total_steps=9),
    lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, mode="sawtooth"),
    lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, factor=1.0),
    lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, mode="best"),
    lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, threshold_mode="pct"),
    lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau([1], patience=2),
    lambda lib, o: lib.optim.lr_scheduler.SequentialLR(o, [], milestones=[]),
    lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.StepLR(o, 2)], milestones=[3]
    ),
    lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.ReduceLROnPlateau(o)], milestones=[]
    ),
    lambda lib, o: lib.optim.lr_scheduler.SequentialLR(o, [object()], milestones=[]),
    lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler([]),
    lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.ReduceLROnPlateau(o)]
    ),
]


@pytest.mark.parametrize("make", ERRORS)
def test_constructor_errors(make):
    v_opt, t_opt = _optimizers()
    assert_same_error(lambda: make(vg, v_opt), lambda: make(torch, t_opt))


def test_schedulers_of_another_optimizer_are_refused():
    v_opt, t_opt = _optimizers()
    v_other, t_other = _optimizers()
    assert_same_error(
        lambda: vg.optim.lr_scheduler.SequentialLR(
            v_opt, [vg.optim.lr_scheduler.StepLR(v_other, 2)], milestones=[]
        ),
        lambda: torch.optim.lr_scheduler.SequentialLR(
            t_opt, [torch.optim.lr_scheduler.StepLR(t_other, 2)], milestones=[]
        ),
        match_message=False,  # the message prints the optimizer
    )


def test_exports_match_torch():
    assert set(vg.optim.lr_scheduler.__all__) <= set(torch.optim.lr_scheduler.__all__)
    for name in vg.optim.lr_scheduler.__all__:
        assert hasattr(vg.optim.lr_scheduler, name)

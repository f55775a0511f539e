"""vizgrad.optim against torch.optim: the same model, the same data, step after step.

Each case builds a small model (a tanh layer and a squared loss) with the same weights
in both libraries, runs the optimizer for several steps on gradients from the same
data, and after every step compares the parameters and the optimizer's whole state
(keys, dtypes, shapes, values). Then the state dict: PyTorch's exact format, loaded
back into vizgrad and into PyTorch, and PyTorch's loaded into vizgrad. Then the
base class: param groups, zero_grad, hooks, repr and PyTorch's errors.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same_error
from torch.optim.optimizer import required as torch_required

import vizgrad as vg

STEPS = 6
RTOL = 1e-6
ATOL = 1e-7

# (optimizer, keyword arguments): every option of every optimizer at least once.
CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "maximize": True, "weight_decay": 0.01}),
    ("Adam", {}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.9), "eps": 1e-6}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adam", {"lr": 0.01, "maximize": True, "amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.5, "amsgrad": True, "maximize": True}),
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-6}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "maximize": True}),
    ("Adagrad", {}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05}),
    ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.5, "eps": 1e-6}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-4}),
    ("Adadelta", {"weight_decay": 0.1, "maximize": True}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.01, "betas": (0.5, 0.9), "eps": 1e-4}),
    ("Adamax", {"lr": 0.01, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.01, "momentum_decay": 0.1}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"lr": 0.01, "maximize": True}),
    ("RAdam", {}),
    # beta2 = 0.5 makes rho_t > 5 from the 4th step: both branches of the rectification.
    ("RAdam", {"lr": 0.01, "betas": (0.9, 0.5)}),
    ("RAdam", {"lr": 0.01, "betas": (0.9, 0.5), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01, "maximize": True}),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}" for name, kw in CASES]


def _weights(seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal((4, 3)).astype(dtype),
        rng.standard_normal(3).astype(dtype),
        rng.standard_normal((3, 2)).astype(dtype),
    ]


def _data(seed=1, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((8, 4)).astype(dtype), rng.standard_normal((8, 2)).astype(dtype)


class Pair:
    """The same three parameters and data in vizgrad and in torch."""

    def __init__(self, seed=0, dtype=np.float32):
        weights = _weights(seed, dtype)
        self.vp = [vg.tensor(w, requires_grad=True) for w in weights]
        self.tp = [torch.tensor(w, requires_grad=True) for w in weights]
        x, y = _data(seed + 1, dtype)
        self.vx, self.vy = vg.tensor(x), vg.tensor(y)
        self.tx, self.ty = torch.tensor(x), torch.tensor(y)

    def vg_loss(self):
        w1, b1, w2 = self.vp
        return (((self.vx @ w1 + b1).tanh() @ w2 - self.vy) ** 2).mean()

    def torch_loss(self):
        w1, b1, w2 = self.tp
        return (((self.tx @ w1 + b1).tanh() @ w2 - self.ty) ** 2).mean()

    def backward(self):
        self.vg_loss().backward()
        self.torch_loss().backward()


def _both(name, pair, **kwargs):
    return getattr(vg.optim, name)(pair.vp, **kwargs), getattr(torch.optim, name)(pair.tp, **kwargs)


def _step_both(pair, vo, to):
    vo.zero_grad()
    to.zero_grad()
    pair.backward()
    vo.step()
    to.step()


def _assert_tensor(v, t, where):
    assert isinstance(v, vg.Tensor), f"{where}: {type(v).__name__} is not a tensor"
    assert v.dtype.name == str(t.dtype).split(".")[-1], f"{where}: dtype {v.dtype} != {t.dtype}"
    assert tuple(v.shape) == tuple(t.shape), f"{where}: shape {tuple(v.shape)} != {t.shape}"
    expected = t.detach().numpy()
    # Float32 rounding differs in the last bits (torch's vectorised kernels fuse some
    # multiply-adds): relative to each element, and to the tensor's scale where
    # elements nearly cancel.
    scale = float(np.abs(expected).max()) if expected.size else 0.0
    np.testing.assert_allclose(
        v.detach().numpy(), expected, rtol=RTOL, atol=ATOL + RTOL * scale, err_msg=where
    )


def _assert_state(vo, to, pair):
    """The parameters and each parameter's state, key by key, as torch has them."""
    for i, (v, t) in enumerate(zip(pair.vp, pair.tp, strict=True)):
        _assert_tensor(v, t, f"param {i}")
        vs, ts = vo.state[v], to.state[t]
        assert list(vs) == list(ts), f"param {i}: state keys {list(vs)} != {list(ts)}"
        for key in ts:
            if isinstance(ts[key], torch.Tensor):
                _assert_tensor(vs[key], ts[key], f"param {i} state {key!r}")
            else:
                assert vs[key] == ts[key]


@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=IDS)
def test_steps_match_torch(name, kwargs):
    pair = Pair()
    vo, to = _both(name, pair, **kwargs)
    for _ in range(STEPS):
        _step_both(pair, vo, to)
        _assert_state(vo, to, pair)


def _assert_same_structure(v, t, where="state_dict"):
    """A vizgrad state dict (or part) has torch's keys, value types and values."""
    if isinstance(t, torch.Tensor):
        _assert_tensor(v, t, where)
    elif isinstance(t, dict):
        assert isinstance(v, dict), where
        assert list(v) == list(t), f"{where}: keys {list(v)} != {list(t)}"
        for key in t:
            _assert_same_structure(v[key], t[key], f"{where}[{key!r}]")
    elif isinstance(t, list | tuple):
        assert type(v) is type(t) and len(v) == len(t), f"{where}: {v!r} != {t!r}"
        for i, (vi, ti) in enumerate(zip(v, t, strict=True)):
            _assert_same_structure(vi, ti, f"{where}[{i}]")
    else:
        assert type(v) is type(t) and v == t, f"{where}: {v!r} != {t!r}"


@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=IDS)
def test_state_dict_has_torchs_format(name, kwargs):
    pair = Pair()
    vo, to = _both(name, pair, **kwargs)
    _assert_same_structure(vo.state_dict(), to.state_dict())  # before any step
    for _ in range(2):
        _step_both(pair, vo, to)
    _assert_same_structure(vo.state_dict(), to.state_dict())


def _to_torch(value):
    """A vizgrad state dict converted to torch tensors, structure untouched."""
    if isinstance(value, vg.Tensor):
        return torch.from_numpy(value.detach().numpy().copy())
    if isinstance(value, dict):
        return {k: _to_torch(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_to_torch(v) for v in value)
    return value


def _to_vizgrad(value):
    if isinstance(value, torch.Tensor):
        return vg.tensor(value.detach().numpy().copy())
    if isinstance(value, dict):
        return {k: _to_vizgrad(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_to_vizgrad(v) for v in value)
    return value


@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=IDS)
def test_state_dict_round_trips_through_both_libraries(name, kwargs):
    pair = Pair()
    vo, to = _both(name, pair, **kwargs)
    for _ in range(3):
        _step_both(pair, vo, to)
    saved_vg, saved_torch = copy.deepcopy(vo.state_dict()), copy.deepcopy(to.state_dict())

    # vizgrad's state dict, loaded into a fresh torch optimizer, and torch's into vizgrad:
    # both continue exactly as the originals do.
    fresh = Pair()
    for v, t, vsrc, tsrc in zip(fresh.vp, fresh.tp, pair.vp, pair.tp, strict=True):
        with torch.no_grad(), vg.no_grad():
            v.copy_(vsrc)
            t.copy_(tsrc)
    vo2 = getattr(vg.optim, name)(fresh.vp, **kwargs)
    to2 = getattr(torch.optim, name)(fresh.tp, **kwargs)
    vo2.load_state_dict(_to_vizgrad(saved_torch))
    to2.load_state_dict(_to_torch(saved_vg))
    _assert_state(vo2, to2, fresh)
    _assert_same_structure(vo2.state_dict(), to2.state_dict())
    for _ in range(3):
        _step_both(pair, vo, to)
        _step_both(fresh, vo2, to2)
        _assert_state(vo2, to2, fresh)
        _assert_vg_states_close(vo, vo2, pair.vp, fresh.vp)


def _assert_vg_states_close(vo_a, vo_b, params_a, params_b):
    """Two vizgrad optimizers over two parameter lists hold the same values."""
    for i, (a, b) in enumerate(zip(params_a, params_b, strict=True)):
        _assert_tensor(a, torch.from_numpy(b.detach().numpy()), f"param {i}")
        assert list(vo_a.state[a]) == list(vo_b.state[b])
        for key, value in vo_a.state[a].items():
            _assert_tensor(value, torch.from_numpy(vo_b.state[b][key].numpy()), key)


def test_load_state_dict_round_trip_within_vizgrad_is_exact():
    pair = Pair()
    vo = vg.optim.Adam(pair.vp, lr=0.01, amsgrad=True)
    for _ in range(3):
        vo.zero_grad()
        pair.vg_loss().backward()
        vo.step()
    other = [p.detach().clone().requires_grad_() for p in pair.vp]
    vo2 = vg.optim.Adam(other, lr=0.5)
    vo2.load_state_dict(vo.state_dict())
    assert vo2.param_groups[0]["lr"] == 0.01
    assert vo2.param_groups[0]["params"] == other or all(
        a is b for a, b in zip(vo2.param_groups[0]["params"], other, strict=True)
    )
    for a, b in zip(pair.vp, other, strict=True):
        for key, value in vo.state[a].items():
            np.testing.assert_array_equal(value.numpy(), vo2.state[b][key].numpy())
            # As in torch, a tensor that needs no cast is taken, not copied.
            assert value is vo2.state[b][key]


def test_load_state_dict_casts_state_to_the_params_dtype_but_not_step():
    v64 = [vg.tensor(w, dtype=vg.float64, requires_grad=True) for w in _weights()]
    t64 = [torch.tensor(w, dtype=torch.float64, requires_grad=True) for w in _weights()]
    pair = Pair()
    vo, to = _both("Adam", pair)
    _step_both(pair, vo, to)
    vo64, to64 = vg.optim.Adam(v64), torch.optim.Adam(t64)
    vo64.load_state_dict(vo.state_dict())
    to64.load_state_dict(to.state_dict())
    for v, t in zip(v64, t64, strict=True):
        for key in to64.state[t]:
            _assert_tensor(vo64.state[v][key], to64.state[t][key], key)


@pytest.mark.parametrize("name", ["Adam", "Adadelta", "Adagrad", "Adamax", "RAdam", "RMSprop"])
def test_load_state_dict_fills_in_missing_keys_and_tensor_steps(name):
    # An old state dict (a Python number as step, no 'maximize' key) loads as torch loads it.
    pair = Pair()
    vo, to = _both(name, pair, lr=0.01)
    _step_both(pair, vo, to)
    vsd, tsd = vo.state_dict(), to.state_dict()
    for sd in (vsd, tsd):
        for s in sd["state"].values():
            s["step"] = 1
        for g in sd["param_groups"]:
            del g["maximize"]
    vo.load_state_dict(vsd)
    to.load_state_dict(tsd)
    _assert_same_structure(vo.state_dict(), to.state_dict())


@pytest.mark.parametrize("groups", [2, 0])
def test_load_state_dict_errors(groups):
    pair = Pair()
    vo, to = _both("SGD", pair, lr=0.1)
    if groups:
        vbad = vg.optim.SGD([{"params": pair.vp[:1]}, {"params": pair.vp[1:]}], lr=0.1)
        tbad = torch.optim.SGD([{"params": pair.tp[:1]}, {"params": pair.tp[1:]}], lr=0.1)
    else:
        vbad = vg.optim.SGD(pair.vp[:2], lr=0.1)
        tbad = torch.optim.SGD(pair.tp[:2], lr=0.1)
    assert_same_error(
        lambda: vbad.load_state_dict(vo.state_dict()),
        lambda: tbad.load_state_dict(to.state_dict()),
    )


# --- groups, parameters without gradients, closures -------------------------------------


def test_param_groups_take_their_own_hyperparameters():
    pair = Pair()
    vo = vg.optim.SGD(
        [{"params": pair.vp[:2]}, {"params": pair.vp[2:], "lr": 0.5, "nesterov": True}],
        lr=0.1,
        momentum=0.9,
    )
    to = torch.optim.SGD(
        [{"params": pair.tp[:2]}, {"params": pair.tp[2:], "lr": 0.5, "nesterov": True}],
        lr=0.1,
        momentum=0.9,
    )
    assert repr(vo) == repr(to)
    for _ in range(STEPS):
        _step_both(pair, vo, to)
        _assert_state(vo, to, pair)
    _assert_same_structure(vo.state_dict(), to.state_dict())


def test_add_param_group_later():
    pair = Pair()
    vo = vg.optim.Adagrad(pair.vp[:2], lr=0.1)
    to = torch.optim.Adagrad(pair.tp[:2], lr=0.1)
    vo.add_param_group({"params": pair.vp[2], "lr": 0.01})
    to.add_param_group({"params": pair.tp[2], "lr": 0.01})
    for _ in range(3):
        _step_both(pair, vo, to)
        _assert_state(vo, to, pair)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad", "NAdam"])
def test_parameters_without_a_gradient_are_skipped(name):
    pair = Pair()
    kwargs = {"lr": 0.1, "momentum": 0.9} if name == "SGD" else {}
    vo, to = _both(name, pair, **kwargs)
    for _ in range(3):
        vo.zero_grad()
        to.zero_grad()
        pair.backward()
        pair.vp[1].grad = None
        pair.tp[1].grad = None
        vo.step()
        to.step()
        _assert_state(vo, to, pair)


def test_closure_is_evaluated_with_grad_and_its_loss_returned():
    pair = Pair()
    vo, to = _both("SGD", pair, lr=0.1)

    def vg_closure():
        vo.zero_grad()
        loss = pair.vg_loss()
        assert vg.is_grad_enabled()
        loss.backward()
        return loss

    def torch_closure():
        to.zero_grad()
        loss = pair.torch_loss()
        loss.backward()
        return loss

    for _ in range(3):
        v_loss, t_loss = vo.step(vg_closure), to.step(torch_closure)
        np.testing.assert_allclose(v_loss.item(), t_loss.item(), rtol=RTOL)
        _assert_state(vo, to, pair)


def test_step_runs_without_recording_a_graph():
    pair = Pair()
    vo = vg.optim.Adam(pair.vp)
    pair.vg_loss().backward()
    vo.step()
    for p in pair.vp:
        assert p.grad_fn is None and p.is_leaf
        assert all(not v.requires_grad for v in vo.state[p].values())


@pytest.mark.parametrize("dtype", [np.float64])
@pytest.mark.parametrize("name", ["Adam", "NAdam", "RMSprop", "Adagrad"])
def test_float64_parameters(name, dtype):
    pair = Pair(dtype=dtype)
    vo, to = _both(name, pair)
    for _ in range(3):
        _step_both(pair, vo, to)
        _assert_state(vo, to, pair)


@pytest.mark.parametrize("name", ["Adam", "NAdam", "Adagrad"])
def test_float64_default_dtype_makes_float64_steps(name):
    previous = torch.get_default_dtype()
    vg.set_default_dtype(vg.float64)
    torch.set_default_dtype(torch.float64)
    try:
        pair = Pair()
        vo, to = _both(name, pair)
        _step_both(pair, vo, to)
        _assert_state(vo, to, pair)
    finally:
        vg.set_default_dtype(vg.float32)
        torch.set_default_dtype(previous)


@pytest.mark.parametrize(("name", "kwargs"), [("SGD", {"momentum": 0.9}), ("Adam", {}),
                                              ("RMSprop", {}), ("Adagrad", {})])  # fmt: skip
def test_tensor_learning_rate(name, kwargs):
    pair = Pair()
    vo = getattr(vg.optim, name)(pair.vp, lr=vg.tensor(0.01), **kwargs)
    to = getattr(torch.optim, name)(pair.tp, lr=torch.tensor(0.01), **kwargs)
    for _ in range(3):
        _step_both(pair, vo, to)
        _assert_state(vo, to, pair)


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_and_foreach_flags_give_the_same_steps(name, fused):
    # torch's foreach and fused CPU kernels compute the same formulas as its for-loop;
    # vizgrad runs the for-loop for all three.
    pair = Pair()
    flag = {"fused": True} if fused else {"foreach": True}
    vo, to = _both(name, pair, lr=0.01, **flag)
    for _ in range(3):
        _step_both(pair, vo, to)
        _assert_state(vo, to, pair)
    _assert_same_structure(vo.state_dict(), to.state_dict())


# --- differentiable: the step itself recorded for autograd --------------------------------


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
        ("Adam", {"lr": 0.1}),
        ("Adam", {"lr": 0.1, "amsgrad": True}),
        ("RMSprop", {"lr": 0.1, "centered": True, "momentum": 0.5}),
        ("Adagrad", {"lr": 0.1}),
        ("Adadelta", {"lr": 0.5}),
        ("Adamax", {"lr": 0.1}),
        ("NAdam", {"lr": 0.1}),
        ("RAdam", {"lr": 0.1, "betas": (0.9, 0.5)}),
    ],
)
def test_differentiable_step_records_the_update(name, kwargs):
    # As torch's tests: the parameter is a non-leaf clone, its gradient a leaf; after the
    # steps, backward reaches both through the recorded updates. Where torch's own
    # in-place updates overwrite what its backward needs, vizgrad fails alike.
    rng = np.random.default_rng(3)
    w, g = rng.standard_normal(5), rng.standard_normal(5)

    def run(lib):
        w0 = lib.tensor(w, requires_grad=True)
        g0 = lib.tensor(g, requires_grad=True)
        p = w0.clone()
        opt = getattr(lib.optim, name)([p], differentiable=True, **kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # reading .grad of a non-leaf warns
            for _ in range(4):
                p.grad = g0 * 1.0
                opt.step()
        (p * p).sum().backward()
        return p.detach().numpy(), w0.grad.numpy(), g0.grad.numpy()

    try:
        expected = run(torch)
    except RuntimeError:
        assert_same_error(lambda: run(vg), lambda: run(torch))
        return
    # The 0-dim float32 step takes part in the arithmetic: float32 rounding.
    for v, t in zip(run(vg), expected, strict=True):
        np.testing.assert_allclose(v, t, rtol=1e-6, atol=1e-9)


def test_differentiable_step_on_a_leaf_fails_as_in_torch():
    v, t = vg.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    v.grad, t.grad = vg.ones(3), torch.ones(3)
    vo = vg.optim.SGD([v], lr=0.1, differentiable=True)
    to = torch.optim.SGD([t], lr=0.1, differentiable=True)
    assert_same_error(vo.step, to.step)


# --- zero_grad, hooks, repr ---------------------------------------------------------------


def test_zero_grad_sets_to_none_by_default_or_zeros():
    pair = Pair()
    vo, to = _both("SGD", pair, lr=0.1)
    pair.backward()
    vo.zero_grad(set_to_none=False)
    to.zero_grad(set_to_none=False)
    for v, t in zip(pair.vp, pair.tp, strict=True):
        _assert_tensor(v.grad, t.grad, "zeroed grad")
        assert not v.grad.requires_grad
    vo.zero_grad()
    assert all(p.grad is None for p in pair.vp)


def test_zero_grad_detaches_a_grad_with_history():
    p = vg.ones(2, requires_grad=True)
    q = vg.ones(2, requires_grad=True)
    (p * q).sum().backward(create_graph=True)
    assert p.grad.grad_fn is not None
    vg.optim.SGD([p]).zero_grad(set_to_none=False)
    assert p.grad.grad_fn is None and p.grad.tolist() == [0.0, 0.0]


def test_step_hooks_run_in_order_and_can_replace_arguments():
    pair = Pair()
    vo = vg.optim.SGD(pair.vp, lr=0.1)
    seen = []

    def pre(opt, args, kwargs):
        seen.append(("pre", opt is vo, args[1:], kwargs))
        return args, {"closure": lambda: "from the hook"}

    handle = vo.register_step_pre_hook(pre)
    vo.register_step_post_hook(lambda opt, args, kwargs: seen.append(("post", kwargs)))
    assert vo.step() == "from the hook"
    assert seen[0] == ("pre", True, (), {})
    assert seen[1][0] == "post" and "closure" in seen[1][1]
    handle.remove()
    seen.clear()
    assert vo.step() is None
    assert [s[0] for s in seen] == ["post"]


def test_step_pre_hook_returning_something_else_is_an_error():
    vo = vg.optim.SGD([vg.ones(1, requires_grad=True)])
    to = torch.optim.SGD([torch.ones(1, requires_grad=True)])
    vo.register_step_pre_hook(lambda *a: 3)
    to.register_step_pre_hook(lambda *a: 3)
    v_err, t_err = assert_same_error(vo.step, to.step, match_message=False)
    assert str(v_err).endswith("must return None or a tuple of (new_args, new_kwargs), but got 3.")


def test_state_dict_hooks():
    pair = Pair()
    vo, to = _both("Adam", pair)
    for opt in (vo, to):
        calls = []
        opt.register_state_dict_pre_hook(lambda o, c=calls: c.append("pre"))
        opt.register_state_dict_post_hook(lambda o, sd, c=calls: c.append("post"))
        opt.register_state_dict_post_hook(lambda o, sd, c=calls: c.append("first"), prepend=True)
        opt.register_load_state_dict_pre_hook(lambda o, sd, c=calls: c.append("load-pre"))
        opt.register_load_state_dict_post_hook(lambda o, c=calls: c.append("load-post"))
        opt.load_state_dict(opt.state_dict())
        assert calls == ["pre", "first", "post", "load-pre", "load-post"]


@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=IDS)
def test_repr_matches_torch(name, kwargs):
    pair = Pair()
    vo, to = _both(name, pair, **kwargs)
    assert repr(vo) == repr(to)


def test_defaults_and_export_list_match_torch():
    for name in vg.optim.__all__:
        assert hasattr(torch.optim, name)
        if name[0].isupper() and name != "Optimizer":
            vo = getattr(vg.optim, name)([vg.ones(1, requires_grad=True)])
            to = getattr(torch.optim, name)([torch.ones(1, requires_grad=True)])
            assert vo.defaults == to.defaults


# --- errors -------------------------------------------------------------------------------

INVALID = [
    ("SGD", {"lr": -1}),
    ("SGD", {"lr": 0.1, "momentum": -0.5}),
    ("SGD", {"lr": 0.1, "weight_decay": -1}),
    ("SGD", {"lr": 0.1, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "nesterov": True}),
    ("SGD", {"fused": True, "foreach": True}),
    ("SGD", {"fused": True, "differentiable": True}),
    ("Adam", {"lr": -1e-3}),
    ("Adam", {"eps": -1.0}),
    ("Adam", {"betas": (1.0, 0.999)}),
    ("Adam", {"betas": (0.9, -0.1)}),
    ("Adam", {"betas": (0, 0.9)}),
    ("Adam", {"weight_decay": -0.1}),
    ("Adam", {"fused": True, "foreach": True}),
    ("AdamW", {"lr": -1}),
    ("AdamW", {"betas": (0.9, 1.5)}),
    ("RMSprop", {"lr": -1}),
    ("RMSprop", {"eps": -1}),
    ("RMSprop", {"momentum": -1}),
    ("RMSprop", {"weight_decay": -1}),
    ("RMSprop", {"alpha": -1}),
    ("Adagrad", {"lr": -1}),
    ("Adagrad", {"lr_decay": -1}),
    ("Adagrad", {"weight_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -1}),
    ("Adagrad", {"eps": -1}),
    ("Adadelta", {"lr": -1}),
    ("Adadelta", {"rho": 1.5}),
    ("Adadelta", {"eps": -1}),
    ("Adadelta", {"weight_decay": -1}),
    ("Adamax", {"lr": -1}),
    ("Adamax", {"eps": -1}),
    ("Adamax", {"betas": (0.9, 1.0)}),
    ("Adamax", {"weight_decay": -1}),
    ("NAdam", {"lr": -1}),
    ("NAdam", {"betas": (-0.1, 0.9)}),
    ("NAdam", {"momentum_decay": -1}),
    ("RAdam", {"lr": -1}),
    ("RAdam", {"eps": -1}),
    ("RAdam", {"weight_decay": -1}),
]


@pytest.mark.parametrize(("name", "kwargs"), INVALID, ids=[f"{n}-{k}" for n, k in INVALID])
def test_invalid_hyperparameters(name, kwargs):
    assert_same_error(
        lambda: getattr(vg.optim, name)([vg.ones(2, requires_grad=True)], **kwargs),
        lambda: getattr(torch.optim, name)([torch.ones(2, requires_grad=True)], **kwargs),
    )


def test_tensor_lr_must_have_one_element():
    assert_same_error(
        lambda: vg.optim.SGD([vg.ones(2, requires_grad=True)], lr=vg.ones(2)),
        lambda: torch.optim.SGD([torch.ones(2, requires_grad=True)], lr=torch.ones(2)),
    )


@pytest.mark.parametrize(
    "name", ["Adam", "AdamW", "RMSprop", "Adamax", "NAdam", "RAdam", "Adadelta"]
)
def test_capturable_needs_an_accelerator(name):
    v, t = vg.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    v.grad, t.grad = vg.ones(2), torch.ones(2)
    vo = getattr(vg.optim, name)([v], capturable=True)
    to = getattr(torch.optim, name)([t], capturable=True)
    assert_same_error(vo.step, to.step)


def _params_errors():
    return [
        (lambda lib: lib.ones(2, requires_grad=True)),  # a tensor, not an iterable of them
        (lambda lib: []),
        (lambda lib: [lib.ones(2, requires_grad=True), 3]),
        (lambda lib: [lib.ones(2, requires_grad=True), "w"]),
        (lambda lib: [lib.ones(2, requires_grad=True) * 2]),  # not a leaf
        (lambda lib: [{"params": {lib.ones(2, requires_grad=True)}}]),  # a set
        (lambda lib: [5]),
    ]


@pytest.mark.parametrize("make", _params_errors())
def test_bad_params(make):
    assert_same_error(lambda: vg.optim.SGD(make(vg), lr=0.1),
                      lambda: torch.optim.SGD(make(torch), lr=0.1))  # fmt: skip


def test_a_parameter_in_two_groups_is_an_error():
    v, t = vg.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    assert_same_error(
        lambda: vg.optim.SGD([{"params": [v]}, {"params": [v]}], lr=0.1),
        lambda: torch.optim.SGD([{"params": [t]}, {"params": [t]}], lr=0.1),
    )


def test_duplicate_parameters_in_a_group_warn():
    v, t = vg.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning) as v_caught:
        vg.optim.SGD([v, v], lr=0.1)
    with pytest.warns(UserWarning) as t_caught:
        torch.optim.SGD([t, t], lr=0.1)
    assert [str(w.message) for w in v_caught] == [str(w.message) for w in t_caught]


def test_a_retained_non_leaf_can_be_optimized():
    v = vg.ones(2, requires_grad=True) * 2
    v.retain_grad()
    assert vg.optim.SGD([v], lr=0.1).param_groups[0]["params"][0] is v


def test_required_hyperparameter_and_non_dict_group():
    class NeedsLr(vg.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": vg.optim.optimizer.required})

    class TorchNeedsLr(torch.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": torch_required})

    assert_same_error(lambda: NeedsLr([vg.ones(1, requires_grad=True)]),
                      lambda: TorchNeedsLr([torch.ones(1, requires_grad=True)]))  # fmt: skip
    opt = vg.optim.SGD([vg.ones(1, requires_grad=True)])
    topt = torch.optim.SGD([torch.ones(1, requires_grad=True)])
    assert_same_error(lambda: opt.add_param_group([1]), lambda: topt.add_param_group([1]))


def test_named_parameters_are_kept_as_param_names():
    v = [("w", vg.ones(2, requires_grad=True)), ("b", vg.ones(1, requires_grad=True))]
    t = [("w", torch.ones(2, requires_grad=True)), ("b", torch.ones(1, requires_grad=True))]
    vo, to = vg.optim.SGD(v, lr=0.1), torch.optim.SGD(t, lr=0.1)
    _assert_same_structure(vo.state_dict(), to.state_dict())
    assert_same_error(
        lambda: vo.add_param_group({"params": [vg.ones(1, requires_grad=True)]}),
        lambda: to.add_param_group({"params": [torch.ones(1, requires_grad=True)]}),
    )


def test_complex_parameters_are_refused_where_torch_needs_view_as_real():
    p = vg.ones(2, dtype=vg.complex64, requires_grad=True)
    p.grad = vg.ones(2, dtype=vg.complex64)
    with pytest.raises(NotImplementedError, match="complex"):
        vg.optim.Adam([p]).step()


def test_sgd_steps_complex_parameters_as_torch():
    rng = np.random.default_rng(0)
    w = (rng.standard_normal(3) + 1j * rng.standard_normal(3)).astype(np.complex64)
    g = (rng.standard_normal(3) + 1j * rng.standard_normal(3)).astype(np.complex64)
    v, t = vg.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    vo = vg.optim.SGD([v], lr=0.1, momentum=0.9, weight_decay=0.1)
    to = torch.optim.SGD([t], lr=0.1, momentum=0.9, weight_decay=0.1)
    for _ in range(3):
        v.grad, t.grad = vg.tensor(g), torch.tensor(g)
        vo.step()
        to.step()
    np.testing.assert_allclose(v.detach().numpy(), t.detach().numpy(), rtol=RTOL)


def test_unused_warning_filters_do_not_leak():
    # The duplicate-parameter warning is the only warning a constructor gives.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vg.optim.Adam([vg.ones(2, requires_grad=True)])

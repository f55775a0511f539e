"""nn.Module, nn.Parameter/Buffer, the containers and Flatten/Unflatten against PyTorch.

Each test builds the same module tree in both libraries (``build(lib)`` with ``lib``
either ``vizgrad`` or ``torch``), copies the weights one way, and compares what a
user sees: printed forms, names and order, state dicts, hook calls and errors.
"""

from __future__ import annotations

import copy
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg

LIBS = (vg, torch)


def to_torch(t):
    return torch.from_numpy(np.array(t.detach().numpy()))


def torchify(text: str) -> str:
    return text.replace("torch.", "vizgrad.").replace("torch", "vizgrad")


# --- a small tree of modules, written once for both libraries ----------------------------


def affine_class(lib):
    class Affine(lib.nn.Module):
        """x @ w + b, with a persistent and a non-persistent buffer."""

        def __init__(self, n_in, n_out):
            super().__init__()
            self.w = lib.nn.Parameter(lib.zeros(n_in, n_out))
            self.b = lib.nn.Parameter(lib.zeros(n_out))
            self.register_buffer("count", lib.zeros((), dtype=lib.int64))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)
            self.n_in, self.n_out = n_in, n_out

        def forward(self, x):
            return x @ self.w + self.b

        def extra_repr(self):
            return f"in={self.n_in}, out={self.n_out}"

    return Affine


def build(lib):
    """A tree with nesting, a shared child, a None child and a multi-line extra_repr."""
    affine = affine_class(lib)

    class Two(lib.nn.Module):
        def extra_repr(self):
            return "first line\nsecond line"

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.first = affine(3, 4)
            self.body = lib.nn.Sequential(
                OrderedDict([("flat", lib.nn.Flatten(0)), ("unflat", lib.nn.Unflatten(0, (1, 4)))])
            )
            self.last = affine(4, 2)
            self.shared = self.first
            self.empty = None
            self.two = Two()
            self.scale = lib.nn.Parameter(lib.ones(()))

        def forward(self, x):
            return self.last(self.body(self.first(x))) * self.scale

    return Net()


def build_pair(seed=0):
    """The tree in both libraries with the same (random) weights."""
    v, t = build(vg), build(torch)
    rng = np.random.default_rng(seed)
    with torch.no_grad(), vg.no_grad():
        for (name, pv), (tname, pt) in zip(v.named_parameters(), t.named_parameters(), strict=True):
            assert name == tname
            values = rng.standard_normal(tuple(pv.shape)).astype(np.float32)
            pv.copy_(vg.from_numpy(values))
            pt.copy_(torch.from_numpy(values))
    return v, t


# --- Parameter and Buffer ------------------------------------------------------------------


def test_parameter_repr_and_flags():
    for requires_grad in (True, False):
        data = np.arange(6, dtype=np.float32).reshape(2, 3)
        pv = vg.nn.Parameter(vg.from_numpy(data.copy()), requires_grad=requires_grad)
        pt = torch.nn.Parameter(torch.from_numpy(data.copy()), requires_grad=requires_grad)
        assert repr(pv) == torchify(repr(pt))
        assert str(pv) == torchify(str(pt))
        assert pv.requires_grad is pt.requires_grad and pv.is_leaf and pv.grad_fn is None
        assert isinstance(pv, vg.Tensor) and isinstance(pv, vg.nn.Parameter)


def test_parameter_shares_storage_and_version_with_its_data():
    data = vg.randn(2, 3)
    p = vg.nn.Parameter(data)
    assert p.data_ptr() == data.data_ptr()
    data.add_(1)
    assert p._version == data._version == 1
    assert_same(p.detach(), to_torch(data))
    # An alias of a view keeps the view's geometry.
    base = vg.randn(4, 6)
    q = vg.nn.Parameter(base[1:, ::2])
    assert q.stride() == (6, 2) and q.storage_offset() == 6 and q._base is None


def test_parameter_and_buffer_keep_their_datas_conjugate_bit():
    z = vg.tensor([1j, 2 + 1j]).conj()
    t = torch.tensor([1j, 2 + 1j]).conj()
    for v_made, t_made in ((vg.nn.Parameter(z), torch.nn.Parameter(t)),
                           (vg.nn.Buffer(z), torch.nn.Buffer(t))):  # fmt: skip
        assert v_made.is_conj() == t_made.is_conj()
        assert v_made.tolist() == t_made.tolist()


def test_parameter_requires_grad_even_under_no_grad():
    with vg.no_grad():
        pv = vg.nn.Parameter(vg.zeros(2))
    with torch.no_grad():
        pt = torch.nn.Parameter(torch.zeros(2))
    assert pv.requires_grad is pt.requires_grad is True


def test_parameter_operations_return_plain_tensors():
    p = vg.nn.Parameter(vg.randn(2, 3))
    for result in (p * 2, p.view(6), p.detach(), p.data, p.clone(), p[0], p.t()):
        assert type(result) is vg.Tensor
    y = (p * p).sum()
    y.backward()
    assert_same(p.grad, to_torch(p) * 2)


def test_parameter_default_and_integer_data():
    assert_same(vg.nn.Parameter(), torch.nn.Parameter().detach())
    assert_same_error(
        lambda: vg.nn.Parameter(vg.tensor([1, 2])), lambda: torch.nn.Parameter(torch.tensor([1, 2]))
    )
    p = vg.nn.Parameter(vg.tensor([1, 2]), requires_grad=False)
    assert p.dtype == vg.int64 and not p.requires_grad


def test_parameter_deepcopy_has_its_own_storage():
    p = vg.nn.Parameter(vg.randn(3))
    q = copy.deepcopy(p)
    assert type(q) is vg.nn.Parameter and q.requires_grad
    assert q.data_ptr() != p.data_ptr()
    assert_same(q.detach(), to_torch(p))


def test_buffer_assignment_registers_it():
    for persistent in (True, False):
        mods = []
        for lib in LIBS:
            m = lib.nn.Module()
            m.buf = lib.nn.Buffer(lib.ones(2), persistent=persistent)
            mods.append(m)
        v, t = mods
        assert [n for n, _ in v.named_buffers()] == [n for n, _ in t.named_buffers()] == ["buf"]
        assert list(v.state_dict()) == list(t.state_dict())
        assert v.buf.persistent is t.buf.persistent is persistent


# --- registration, walking and printing ------------------------------------------------------


def test_repr_tree():
    v, t = build_pair()
    assert repr(v) == repr(t)
    assert repr(vg.nn.Module()) == repr(torch.nn.Module()) == "Module()"


@pytest.mark.parametrize("prefix", ["", "root"])
@pytest.mark.parametrize("recurse", [True, False])
@pytest.mark.parametrize("remove_duplicate", [True, False])
def test_named_members(prefix, recurse, remove_duplicate):
    v, t = build_pair()
    for method in ("named_parameters", "named_buffers"):
        got = [n for n, _ in getattr(v, method)(prefix, recurse, remove_duplicate)]
        want = [n for n, _ in getattr(t, method)(prefix, recurse, remove_duplicate)]
        assert got == want
    got = [n for n, _ in v.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)]
    want = [n for n, _ in t.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)]
    assert got == want
    assert [n for n, _ in v.named_children()] == [n for n, _ in t.named_children()]
    assert len(list(v.parameters(recurse))) == len(list(t.parameters(recurse)))
    assert len(list(v.buffers(recurse))) == len(list(t.buffers(recurse)))
    assert len(list(v.modules())) == len(list(t.modules()))
    assert len(list(v.children())) == len(list(t.children()))


def test_parameters_are_the_registered_objects():
    v, _ = build_pair()
    assert next(v.parameters()) is v.scale and next(v.first.parameters()) is v.first.w
    assert v.get_parameter("last.b") is v.last.b
    assert v.get_buffer("first.count") is v.first.count
    assert v.get_submodule("body.flat") is v.body.flat
    assert v.get_submodule("") is v


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.get_submodule("body.nothing"),
        lambda m: m.get_submodule("first.w"),
        lambda m: m.get_parameter("first.count"),
        lambda m: m.get_parameter("first.nothing"),
        lambda m: m.get_buffer("first.w"),
        lambda m: m.get_buffer("missing"),
        lambda m: m.nothing,
        lambda m: m.set_submodule("", m.two),
        lambda m: m.set_submodule("first.w", m.two),
        lambda m: m.set_submodule("two.new", m.two, strict=True),
    ],
)
def test_lookup_errors(call):
    v, t = build_pair()
    assert_same_error(lambda: call(v), lambda: call(t))


def test_set_submodule():
    for lib in LIBS:
        m = build(lib)
        m.set_submodule("body.flat", lib.nn.Unflatten(0, (2, 2)))
        m.set_submodule("two.extra", lib.nn.Flatten())
    v, t = build(vg), build(torch)
    for m, lib in ((v, vg), (t, torch)):
        m.set_submodule("body.flat", lib.nn.Unflatten(0, (2, 2)))
        m.set_submodule("two.extra", lib.nn.Flatten())
    assert repr(v) == repr(t)


def _errors_on(lib, action):
    m = lib.nn.Module()
    m.plain = 1
    m.p = lib.nn.Parameter(lib.zeros(1))
    m.child = lib.nn.Flatten()
    m.register_buffer("buf", lib.zeros(1))
    return action(lib, m)


@pytest.mark.parametrize(
    "action",
    [
        lambda lib, m: setattr(m, "p", lib.zeros(1)),
        lambda lib, m: setattr(m, "child", 3),
        lambda lib, m: setattr(m, "buf", "text"),
        lambda lib, m: m.register_parameter("a.b", None),
        lambda lib, m: m.register_parameter("", None),
        lambda lib, m: m.register_parameter(1, None),
        lambda lib, m: m.register_parameter("plain", None),
        lambda lib, m: m.register_parameter("q", lib.zeros(1)),
        lambda lib, m: m.register_parameter("q", lib.zeros(1, requires_grad=True) * 2),
        lambda lib, m: m.register_buffer("a.b", None),
        lambda lib, m: m.register_buffer("", None),
        lambda lib, m: m.register_buffer(2, None),
        lambda lib, m: m.register_buffer("plain", None),
        lambda lib, m: m.register_buffer("x", [1.0]),
        lambda lib, m: m.add_module("a.b", None),
        lambda lib, m: m.add_module("", None),
        lambda lib, m: m.add_module(3, None),
        lambda lib, m: m.add_module("plain", None),
        lambda lib, m: m.add_module("x", 5),
        lambda lib, m: m.train("yes"),
        lambda lib, m: delattr(m, "nothing"),
        lambda lib, m: m(),
    ],
)
def test_registration_errors(action):
    _, torch_error = assert_same_error(
        lambda: _errors_on(vg, action), lambda: _errors_on(torch, action), match_message=False
    )
    with pytest.raises(type(torch_error)) as caught:
        _errors_on(vg, action)
    want = str(torch_error).replace("torch Tensor", "vizgrad Tensor")
    assert str(caught.value) == torchify(want)


def _early_assignment(lib, what):
    class Early(lib.nn.Module):
        def __init__(self):
            if what == "param":
                self.p = lib.nn.Parameter(lib.zeros(1))
            elif what == "module":
                self.m = lib.nn.Flatten()
            else:
                self.register_buffer("b", lib.zeros(1))

    return Early()


@pytest.mark.parametrize("what", ["param", "module", "buffer"])
def test_assignment_before_init(what):
    assert_same_error(lambda: _early_assignment(vg, what), lambda: _early_assignment(torch, what))


def test_init_arguments_refused():
    assert_same_error(lambda: vg.nn.Module(1), lambda: torch.nn.Module(1))
    assert_same_error(lambda: vg.nn.Module(x=1), lambda: torch.nn.Module(x=1))


def test_reassigning_moves_between_tables_and_delattr():
    results = []
    for lib in LIBS:
        m = lib.nn.Module()
        m.x = lib.nn.Parameter(lib.zeros(1))
        m.x = None  # still a parameter slot, now empty
        state = [list(m._parameters), list(m._modules), list(m._buffers)]
        m.y = lib.nn.Flatten()
        m.y = lib.nn.Parameter(lib.zeros(2))  # the module slot becomes a parameter
        m.register_buffer("z", lib.zeros(1), persistent=False)
        m.z = lib.ones(1)  # stays a non-persistent buffer
        state += [list(m._parameters), list(m._modules), list(m._buffers), list(m.state_dict())]
        del m.y, m.z, m.x
        state += [list(m._parameters), list(m._buffers), sorted(m._non_persistent_buffers_set)]
        results.append(state)
    assert results[0] == results[1]


def test_dir_lists_members():
    v, t = build_pair()
    got, want = set(dir(v)), set(dir(t))
    for name in ("first", "body", "scale", "two", "forward", "state_dict", "training"):
        assert name in got and name in want
    v_seq, t_seq = v.body, t.body
    assert "flat" in dir(v_seq) and "flat" in dir(t_seq)


# --- modes, gradients, conversions -------------------------------------------------------


def test_train_eval_and_requires_grad():
    v, t = build_pair()
    for m in (v, t):
        m.eval()
        m.body.train()
        m.requires_grad_(False)
        m.last.requires_grad_(True)
    assert [x.training for x in v.modules()] == [x.training for x in t.modules()]
    assert [p.requires_grad for p in v.parameters()] == [p.requires_grad for p in t.parameters()]
    assert v.train() is v and v.eval() is v


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    v, t = build_pair()
    xv = vg.randn(1, 3)
    for m, x in ((v, xv), (t, to_torch(xv))):
        m(x).sum().backward()
        m.zero_grad(set_to_none=set_to_none)
    for pv, pt in zip(v.parameters(), t.parameters(), strict=True):
        if set_to_none:
            assert pv.grad is None and pt.grad is None
        else:
            assert_same(pv.grad, pt.grad)


def test_forward_and_backward_match_torch():
    v, t = build_pair(seed=3)
    xv = vg.randn(1, 3)
    yv, yt = v(xv), t(to_torch(xv))
    assert_same(yv, yt, rtol=1e-5, atol=1e-6)
    assert yv.grad_fn.name() == yt.grad_fn.name()
    yv.sum().backward()
    yt.sum().backward()
    for pv, pt in zip(v.parameters(), t.parameters(), strict=True):
        assert_same(pv.grad, pt.grad, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "convert",
    [
        lambda m, lib: m.double(),
        lambda m, lib: m.half(),
        lambda m, lib: m.double().float(),
        lambda m, lib: m.to(lib.float64),
        lambda m, lib: m.to("cpu", lib.float16),
        lambda m, lib: m.to(lib.zeros(1, dtype=lib.float64)),
        lambda m, lib: m.to(dtype=lib.float64),
        lambda m, lib: m.type(lib.float64),
        lambda m, lib: m.cpu(),
    ],
)
def test_conversions_keep_the_parameter_objects(convert):
    v, t = build_pair()
    xv = vg.randn(1, 3)
    v(xv).sum().backward()
    t(to_torch(xv)).sum().backward()
    before = list(v.parameters())
    assert convert(v, vg) is v
    convert(t, torch)
    assert all(a is b for a, b in zip(before, v.parameters(), strict=True))
    for (n, pv), (_, pt) in zip(v.named_parameters(), t.named_parameters(), strict=True):
        assert pv.dtype.name == str(pt.dtype).split(".")[1], n
        assert pv.grad.dtype.name == str(pt.grad.dtype).split(".")[1], n
        assert type(pv) is vg.nn.Parameter and pv.requires_grad
    for (_, bv), (_, bt) in zip(v.named_buffers(), t.named_buffers(), strict=True):
        assert bv.dtype.name == str(bt.dtype).split(".")[1]


def test_to_refuses_integer_dtypes_and_warns_for_complex():
    v, t = build_pair()
    assert_same_error(lambda: v.to(vg.int32), lambda: t.to(torch.int32))
    with pytest.warns(UserWarning, match="Complex modules are a new feature"):
        vg.nn.Module().to(vg.complex64)


def test_apply_visits_children_first():
    names = []
    for lib in LIBS:
        order = []
        build(lib).apply(lambda m, order=order: order.append(type(m).__name__))
        names.append(order)
    assert names[0] == names[1]


# --- state_dict and load_state_dict ----------------------------------------------------------


def test_state_dict_keys_metadata_and_values():
    v, t = build_pair()
    sv, st = v.state_dict(), t.state_dict()
    assert isinstance(sv, OrderedDict)
    assert list(sv) == list(st)
    assert dict(sv._metadata) == dict(st._metadata)
    for key in sv:
        assert_same(sv[key], st[key])
        assert not sv[key].requires_grad and type(sv[key]) is vg.Tensor
    # Detached aliases: the same memory as the parameters.
    assert sv["first.w"].data_ptr() == v.first.w.data_ptr()
    kept = v.state_dict(keep_vars=True)
    assert kept["first.w"] is v.first.w
    assert list(v.state_dict(prefix="net.")) == list(t.state_dict(prefix="net."))


def test_state_dict_positional_arguments_warn():
    v, t = build_pair()
    with pytest.warns(FutureWarning):
        dv = v.state_dict(OrderedDict(), "p.")
    with pytest.warns(FutureWarning):
        dt = t.state_dict(OrderedDict(), "p.")
    assert list(dv) == list(dt)


def test_load_state_dict_from_torch_values():
    v, t = build_pair(seed=1)
    _, t2 = build_pair(seed=2)
    state = {k: vg.from_numpy(val.numpy().copy()) for k, val in t2.state_dict().items()}
    result = v.load_state_dict(state)
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    for key, value in v.state_dict().items():
        assert_same(value, t2.state_dict()[key])
    assert all(p.requires_grad and p.is_leaf for p in v.parameters())


def _broken_state(lib, model, how):
    state = model.state_dict()
    if how == "missing":
        del state["first.w"], state["last.count"]
    elif how == "unexpected":
        state["first.extra"] = lib.zeros(1)
        state["nothing.here"] = lib.zeros(1)
        state["top"] = lib.zeros(1)
    elif how == "size":
        state["last.b"] = lib.zeros(3)
        del state["scale"]
    elif how == "not_a_tensor":
        state["first.b"] = [1.0, 2.0]
    elif how == "scalar_as_one":
        state["scale"] = lib.full((1,), 4.0)
    elif how == "wrong_dtype_is_fine":
        state["first.b"] = state["first.b"].double()
    return state


@pytest.mark.parametrize(
    "how", ["missing", "unexpected", "size", "not_a_tensor", "scalar_as_one", "wrong_dtype_is_fine"]
)
@pytest.mark.parametrize("strict", [True, False])
def test_load_state_dict_mismatches(how, strict):
    v, t = build_pair()
    outcomes = []
    for lib, m in ((vg, v), (torch, t)):
        try:
            result = m.load_state_dict(_broken_state(lib, m, how), strict=strict)
        except RuntimeError as e:
            outcomes.append(("error", torchify(str(e)).replace("<class 'list'>", "list")))
        else:
            outcomes.append(("ok", repr(result)))
    assert outcomes[0] == outcomes[1]
    if outcomes[0][0] == "ok":
        for key, value in v.state_dict().items():
            assert_same(value, t.state_dict()[key])


def test_load_state_dict_refuses_a_non_mapping():
    v, t = build_pair()
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>."):
        v.load_state_dict([])
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>."):
        t.load_state_dict([])


def test_load_state_dict_assign_takes_the_tensors():
    v, _ = build_pair()
    v.last.requires_grad_(False)
    state = {k: val.clone() + 1 for k, val in v.state_dict().items()}
    v.load_state_dict(state, assign=True)
    assert v.last.count is state["last.count"]
    assert type(v.first.w) is vg.nn.Parameter and v.first.w.requires_grad
    assert type(v.last.w) is vg.nn.Parameter
    assert not v.last.w.requires_grad
    assert v.last.w.data_ptr() == state["last.w"].data_ptr()


def test_load_state_dict_copies_without_recording():
    v, _ = build_pair()
    state = {k: val.clone() for k, val in v.state_dict().items()}
    v.load_state_dict(state)
    assert v.first.w.grad_fn is None and v.first.w.is_leaf


def test_state_dict_and_load_hooks():
    logs = []
    for lib in LIBS:
        log = []
        m = build(lib)
        m.first.register_state_dict_pre_hook(lambda mod, prefix, keep, log=log: log.append(prefix))
        m.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta, log=log: log.append(("post", len(sd), prefix, meta))
        )
        m._register_state_dict_hook(lambda mod, sd, prefix, meta: OrderedDict(only=1))
        state = m.state_dict()
        log.append(list(state))
        m.last.register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, meta, strict, missing, unexpected, errors, log=log: log.append(
                (type(mod).__name__, sorted(sd), prefix, strict)
            )
        )

        def post(mod, keys, log=log):
            log.append(list(keys.unexpected_keys))
            keys.unexpected_keys.clear()  # forgiven: a strict load then succeeds

        m.register_load_state_dict_post_hook(post)
        result = m.load_state_dict({**build(lib).state_dict(), "bogus": lib.zeros(1)})
        log.append(repr(result))
        logs.append(log)
    assert logs[0] == logs[1]


def test_state_dict_post_hook_must_return_none():
    for lib in LIBS:
        m = lib.nn.Module()
        m.register_state_dict_post_hook(lambda *a: {})
        with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
            m.state_dict()


def _extra_state_run(lib):
    class WithExtra(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.p = lib.nn.Parameter(lib.zeros(1))
            self.note = "a"

        def get_extra_state(self):
            return {"note": self.note}

        def set_extra_state(self, state):
            self.note = state["note"]

    m = WithExtra()
    state = m.state_dict()
    keys = list(state)
    state["_extra_state"] = {"note": "b"}
    m.load_state_dict(state)
    del state["_extra_state"]
    with pytest.raises(RuntimeError) as caught:
        m.load_state_dict(state)
    return keys, m.note, str(caught.value)


def test_extra_state():
    assert _extra_state_run(vg) == _extra_state_run(torch)


# --- forward hooks ---------------------------------------------------------------------------


def _hooked_run(lib):
    log = []
    m = affine_class(lib)(3, 2)
    with torch.no_grad(), vg.no_grad():
        m.w.fill_(0.5)

    def pre(mod, args):
        log.append(("pre", len(args), tuple(args[0].shape)))

    def pre_kwargs(mod, args, kwargs):
        log.append(("pre_kw", sorted(kwargs)))
        return (args[0] * 2,), kwargs

    def pre_first(mod, args):
        log.append("pre_first")
        return args[0] + 1  # a single value: wrapped into a tuple

    def post(mod, args, out):
        log.append(("post", round(float(out.sum()), 4)))
        return out * 10

    def post_kwargs(mod, args, kwargs, out):
        log.append(("post_kw", round(float(out.sum()), 4)))

    handles = [
        m.register_forward_pre_hook(pre),
        m.register_forward_pre_hook(pre_kwargs, with_kwargs=True),
        m.register_forward_pre_hook(pre_first, prepend=True),
        m.register_forward_hook(post),
        m.register_forward_hook(post_kwargs, with_kwargs=True, prepend=True),
    ]
    y = m(lib.ones(1, 3))
    log.append(round(float(y.sum()), 4))
    handles[1].remove()
    handles[3].remove()
    log.append(round(float(m(lib.ones(1, 3)).sum()), 4))
    return log


def test_forward_hooks_order_arguments_and_results():
    assert _hooked_run(vg) == _hooked_run(torch)


def _always_call_run(lib):
    log = []

    class Failing(lib.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Failing()
    m.register_forward_hook(lambda mod, args, out: log.append("plain"))
    m.register_forward_hook(lambda mod, args, out: log.append(("always", out)), always_call=True)
    with pytest.raises(ValueError, match="boom"):
        m(lib.ones(1))
    return log


def test_forward_hook_always_call_runs_when_forward_raises():
    assert _always_call_run(vg) == _always_call_run(torch) == [("always", None)]


def test_forward_pre_hook_bad_return():
    for lib in LIBS:
        m = lib.nn.Flatten()
        m.register_forward_pre_hook(lambda mod, args, kwargs: 3, with_kwargs=True)
        with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
            m(lib.ones(1))


# --- backward hooks ----------------------------------------------------------------------------


class _Recorder:
    def __init__(self):
        self.log = []

    def full(self, name, replace=None):
        def hook(mod, grad_input, grad_output):
            self.log.append((name, _grads(grad_input), _grads(grad_output)))
            return replace(grad_input) if replace else None

        return hook

    def pre(self, name, replace=None):
        def hook(mod, grad_output):
            self.log.append((name, _grads(grad_output)))
            return replace(grad_output) if replace else None

        return hook


def _grads(grads):
    return tuple(
        None if g is None else np.round(np.array(g.detach().numpy()), 5).tolist() for g in grads
    )


def _backward_hook_run(lib, setup):
    rec = _Recorder()

    class Mix(lib.nn.Module):
        def forward(self, x, scale, y):
            return x * y * scale, y.sum()

    m = Mix()
    setup(m, rec)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([3.0, 4.0], requires_grad=True)
    a, b = m(x, 2.0, y)
    names = (a.grad_fn.name(), b.grad_fn.name())
    (a.sum() + 3 * b).backward()
    return rec.log, names, _grads((x.grad, y.grad))


@pytest.mark.parametrize(
    "setup",
    [
        lambda m, rec: m.register_full_backward_hook(rec.full("full")),
        lambda m, rec: m.register_full_backward_pre_hook(rec.pre("pre")),
        lambda m, rec: (
            m.register_full_backward_hook(rec.full("second")),
            m.register_full_backward_hook(rec.full("first"), prepend=True),
            m.register_full_backward_pre_hook(rec.pre("pre_b")),
            m.register_full_backward_pre_hook(rec.pre("pre_a"), prepend=True),
        ),
        lambda m, rec: m.register_full_backward_hook(
            rec.full("replace", lambda gi: (gi[0] * 10, None, gi[2]))
        ),
        lambda m, rec: m.register_full_backward_pre_hook(
            rec.pre("replace_out", lambda go: (go[0] * 0, go[1]))
        ),
    ],
)
def test_full_backward_hooks(setup):
    assert _backward_hook_run(vg, setup) == _backward_hook_run(torch, setup)


def test_backward_hook_wrong_count_errors():
    for lib in LIBS:
        for register, bad, message in (
            (
                "register_full_backward_hook",
                lambda m, gi, go: (None,) * 5,
                "invalid number of grad_input",
            ),
            ("register_full_backward_pre_hook", lambda m, go: (), "invalid number of grad_output"),
        ):
            m = lib.nn.Flatten()
            getattr(m, register)(bad)
            x = lib.ones(2, 2, requires_grad=True)
            with pytest.raises(RuntimeError, match=message):
                m(x).sum().backward()


def test_backward_hook_fires_on_outputs_when_no_input_requires_grad():
    logs = []
    for lib in LIBS:
        rec = _Recorder()
        m = affine_class(lib)(2, 2)
        m.register_full_backward_hook(rec.full("full"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m(lib.ones(1, 2)).sum().backward()
        logs.append((rec.log, [str(w.message)[:60] for w in caught]))
    assert logs[0] == logs[1]
    assert logs[0][0] == [("full", (None,), ([[1.0, 1.0]],))]


def test_backward_hooks_mixing_with_non_full_is_refused():
    for lib in LIBS:
        m = lib.nn.Flatten()
        m._is_full_backward_hook = False  # what the deprecated register_backward_hook sets
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
            m.register_full_backward_hook(lambda *a: None)


def test_backward_hooks_forbid_in_place_changes_of_inputs():
    for lib in LIBS:

        class InPlace(lib.nn.Module):
            def forward(self, x):
                return x.mul_(2)

        m = InPlace()
        m.register_full_backward_hook(lambda *a: None)
        x = lib.ones(2, requires_grad=True) * 1
        with pytest.raises(RuntimeError):
            m(x)


def test_handles_remove_hooks_and_their_flags():
    m = vg.nn.Flatten()
    h = m.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True)
    assert len(m._forward_hooks_with_kwargs) == len(m._forward_hooks_always_called) == 1
    h.remove()
    assert not m._forward_hooks and not m._forward_hooks_with_kwargs
    assert not m._forward_hooks_always_called
    with m.register_full_backward_hook(lambda *a: None):
        assert m._backward_hooks
    assert not m._backward_hooks


# --- containers -----------------------------------------------------------------------------


def _sequential_ops(lib):
    f = [lib.nn.Flatten(i) for i in range(6)]
    s = lib.nn.Sequential(f[0], f[1], f[2])
    out = [repr(s), len(s), repr(s[1:]), repr(s[-1]), repr(s[::2])]
    s.append(f[3])
    s.insert(1, f[4])
    s.insert(-1, f[5])
    out.append(repr(s))
    s.extend(lib.nn.Sequential(lib.nn.Unflatten(0, (1, -1))))
    popped = s.pop(2)
    out += [repr(popped), repr(s)]
    del s[0]
    del s[1:3]
    out.append(repr(s))
    s[0] = lib.nn.Flatten(2)
    out += [repr(s), [repr(x) for x in s]]
    out.append(repr(s + lib.nn.Sequential(f[0])))
    out.append(repr(s * 2))
    s += lib.nn.Sequential(f[1])
    out.append(repr(s))
    named = lib.nn.Sequential(OrderedDict(a=f[0], b=f[1]))
    out += [repr(named), repr(named[1:])]
    return out


def test_sequential_operations():
    assert _sequential_ops(vg) == _sequential_ops(torch)


def test_sequential_forward():
    xv = vg.randn(2, 3, 4)
    for lib, x in ((vg, xv), (torch, to_torch(xv))):
        s = lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Unflatten(1, (4, 3)), lib.nn.Flatten(0, 1))
        if lib is vg:
            got = s(x)
        else:
            want = s(x)
    assert_same(got, want)


@pytest.mark.parametrize(
    "action",
    [
        lambda lib, s: s[5],
        lambda lib, s: s[-4],
        lambda lib, s: s["a"],
        lambda lib, s: s.insert(7, lib.nn.Flatten()),
        lambda lib, s: s.insert(0, 3),
        lambda lib, s: s + 3,
        lambda lib, s: s * 0,
        lambda lib, s: s * 1.5,
        lambda lib, s: s.append(3),
        lambda lib, s: s.__iadd__([]),
    ],
)
def test_sequential_errors(action):
    def run(lib):
        s = lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Flatten(), lib.nn.Flatten())
        return action(lib, s)

    assert_same_error(lambda: run(vg), lambda: run(torch))


def _module_list_ops(lib):
    f = [lib.nn.Flatten(i) for i in range(5)]
    ml = lib.nn.ModuleList([f[0], f[0], f[1]])
    out = [repr(ml), len(ml), repr(ml[1:]), repr(ml[-1])]
    ml.append(f[2])
    ml.extend([f[3], f[3]])
    ml.insert(1, f[4])
    out.append(repr(ml))
    out.append(repr(ml.pop(0)))
    del ml[1:3]
    ml[0] = lib.nn.Unflatten(0, (1, 1))
    out += [repr(ml), [n for n, _ in ml.named_modules()], repr(ml + lib.nn.ModuleList([f[0]]))]
    ml += [f[1]]
    out.append(repr(ml))
    return out


def test_module_list_operations():
    assert _module_list_ops(vg) == _module_list_ops(torch)


def test_module_list_errors():
    for action in (
        lambda lib, ml: ml[3],
        lambda lib, ml: ml.extend(3),
        lambda lib, ml: ml(),
    ):
        assert_same_error(
            lambda a=action: a(vg, vg.nn.ModuleList([vg.nn.Flatten()])),
            lambda a=action: a(torch, torch.nn.ModuleList([torch.nn.Flatten()])),
        )


def _module_dict_ops(lib):
    md = lib.nn.ModuleDict({"z": lib.nn.Flatten(), "a": lib.nn.Flatten(2)})
    out = [repr(md), list(md.keys()), len(md), "z" in md]
    md["b"] = lib.nn.Unflatten(0, (1, 1))
    md.update([("c", lib.nn.Flatten(3))])
    md.update(OrderedDict(d=lib.nn.Flatten(4)))
    out += [repr(md), [k for k, _ in md.items()], repr(md.pop("a")), list(md)]
    del md["z"]
    out.append(repr(md))
    md.clear()
    out.append(repr(md))
    return out


def test_module_dict_operations():
    assert _module_dict_ops(vg) == _module_dict_ops(torch)


def test_module_dict_errors():
    for action in (
        lambda lib, md: md.update(3),
        lambda lib, md: md.update([3]),
        lambda lib, md: md.update([("a", lib.nn.Flatten(), 1)]),
        lambda lib, md: md["missing"],
    ):
        assert_same_error(
            lambda a=action: a(vg, vg.nn.ModuleDict()),
            lambda a=action: a(torch, torch.nn.ModuleDict()),
        )


def _parameter_containers(lib):
    pl = lib.nn.ParameterList([lib.nn.Parameter(lib.zeros(2, 3)), lib.ones(4, dtype=lib.float64)])
    pl.append("text")
    pl.extend([lib.zeros(1)])
    out = [repr(pl), len(pl), [n for n, _ in pl.named_parameters()], type(pl[1]).__name__]
    out.append(repr(pl[1:]))
    pd = lib.nn.ParameterDict({"b": lib.zeros(2), "a": lib.nn.Parameter(lib.ones(1))})
    pd["c"] = lib.zeros(3, 3)
    pd.update([("d", 5)])
    out += [repr(pd), list(pd), [n for n, _ in pd.named_parameters()], "a" in pd]
    out += [repr(pd.pop("a")), list(pd.keys()), pd.get("zz", 7)]
    out.append(list(pd.copy().keys()))
    pd2 = pd.fromkeys(["x", "y"], lib.zeros(1))
    out.append(repr(pd | pd2))
    return out


def test_parameter_list_and_dict():
    got = _parameter_containers(vg)
    want = _parameter_containers(torch)
    assert got == [torchify(x) if isinstance(x, str) else x for x in want]


def test_parameter_container_errors():
    for action in (
        lambda lib: lib.nn.ParameterList([lib.zeros(1)])(),
        lambda lib: lib.nn.ParameterList([lib.zeros(1)]).extend(lib.zeros(2)),
        lambda lib: lib.nn.ParameterList([lib.zeros(1)])[2],
        lambda lib: lib.nn.ParameterDict()(lib.zeros(1)),
        lambda lib: lib.nn.ParameterDict()[1],
        lambda lib: lib.nn.ParameterDict().update(3),
    ):
        assert_same_error(lambda a=action: a(vg), lambda a=action: a(torch))


def test_parameters_in_containers_are_trained():
    m = vg.nn.Module()
    m.params = vg.nn.ParameterList([vg.ones(2), vg.ones(2)])
    m.table = vg.nn.ParameterDict({"w": vg.ones(2)})
    (m.params[0] * m.params[1] * m.table["w"]).sum().backward()
    assert_same(m.params[0].grad, torch.ones(2))
    assert [n for n, _ in m.named_parameters()] == ["params.0", "params.1", "table.w"]


# --- Flatten and Unflatten ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda lib: lib.nn.Flatten(), (2, 3, 4)),
        (lambda lib: lib.nn.Flatten(0, -1), (2, 3, 4)),
        (lambda lib: lib.nn.Flatten(-2), (2, 3, 4)),
        (lambda lib: lib.nn.Flatten(), (0, 3, 4)),
        (lambda lib: lib.nn.Flatten(0), ()),
        (lambda lib: lib.nn.Unflatten(1, (3, 4)), (2, 12)),
        (lambda lib: lib.nn.Unflatten(-1, [2, -1]), (2, 12)),
        (lambda lib: lib.nn.Unflatten(0, (0, 5)), (0, 3)),
    ],
)
def test_flatten_unflatten(make, shape):
    base = vg.randn(shape).double()
    xv = base.transpose(0, -1).contiguous().transpose(0, -1) if len(shape) > 1 else base
    xv.requires_grad_(True)
    xt = to_torch(xv).as_strided(tuple(xv.shape), xv.stride()).requires_grad_(True)
    mv, mt = make(vg), make(torch)
    assert repr(mv) == repr(mt)
    yv, yt = mv(xv), mt(xt)
    assert_same(yv, yt)
    assert yv.grad_fn.name() == yt.grad_fn.name()
    (yv * yv).sum().backward()
    (yt * yt).sum().backward()
    assert_same(xv.grad, xt.grad)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.nn.Unflatten(1, 3),
        lambda lib: lib.nn.Unflatten(1, (3, 2.0)),
        lambda lib: lib.nn.Unflatten(1, (5, 2))(lib.zeros(2, 12)),
        lambda lib: lib.nn.Flatten(3)(lib.zeros(2, 3)),
    ],
)
def test_flatten_unflatten_errors(call):
    assert_same_error(lambda: call(vg), lambda: call(torch))


# --- copying -------------------------------------------------------------------------------------


def test_deepcopy_gives_an_independent_tree():
    v, t = build_pair()
    cv, ct = copy.deepcopy(v), copy.deepcopy(t)
    assert repr(cv) == repr(ct)
    assert [n for n, _ in cv.named_parameters()] == [n for n, _ in ct.named_parameters()]
    assert cv.shared is cv.first and cv.first is not v.first
    assert type(cv.first.w) is vg.nn.Parameter and cv.first.w.requires_grad
    assert cv.first.w.data_ptr() != v.first.w.data_ptr()
    assert cv.first.count.data_ptr() != v.first.count.data_ptr()
    for key, value in cv.state_dict().items():
        assert_same(value, ct.state_dict()[key])


def test_pickle_round_trip():
    p = vg.nn.Parameter(vg.randn(3), requires_grad=False)
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is vg.nn.Parameter and not q.requires_grad
    assert_same(q, torch.from_numpy(p.numpy().copy()))
    trees = []
    for lib in LIBS:
        tree = lib.nn.Sequential(lib.nn.Flatten(), lib.nn.ModuleList([lib.nn.Unflatten(0, (1, 1))]))
        tree.w = lib.nn.Parameter(lib.full((3, 4), 0.25))
        tree.register_buffer("b", lib.ones(2), persistent=False)
        trees.append(pickle.loads(pickle.dumps(tree)))
    assert repr(trees[0]) == repr(trees[1])
    assert_same(trees[0].w.detach(), trees[1].w.detach())
    assert list(trees[0].state_dict()) == list(trees[1].state_dict()) == ["w"]

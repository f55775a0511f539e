"""``vizgrad.jit.trace`` against ``torch.jit.trace`` on the same functions and modules."""

import re
import warnings

import numpy as np
import pytest
import torch

import vizgrad as vg

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def aten_kinds(graph) -> list[str]:
    return [n.kind() for n in graph.nodes() if n.kind().startswith("aten::")]


def without_source(graph) -> str:
    """torch's graph text without its ``# file.py:line:0`` source comments."""
    return re.sub(r" # .*", "", str(graph))


def both(*shape, seed=0):
    array = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return torch.tensor(array), vg.tensor(array)


def close(v, t):
    np.testing.assert_allclose(v.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)


# Each function is written once and run with ``m`` = torch or vizgrad.
FUNCTIONS = {
    "pointwise_and_sum": lambda m, x, y: (x * 2).relu().sum(1),
    "matmul_sigmoid_mean": lambda m, x, y: (x @ y.t()).sigmoid() + y.mean(),
    "views": lambda m, x, y: x.view(3, 2).t().matmul(y.view(3, 2)),
    "softmaxes": lambda m, x, y: m.softmax(x, dim=1) * m.log_softmax(y, 1),
    "scalars_and_rsub": lambda m, x, y: (x**2 - 1) / (1 - y),
    "cat_unsqueeze_mean": lambda m, x, y: m.cat([x, y], 0).unsqueeze(0).mean(1, keepdim=True),
    "where": lambda m, x, y: m.where(x > 0, x, y).exp().tanh(),
    "reciprocal_clamp": lambda m, x, y: 2 / x + x.clamp(min=0),
    "reshape_flatten": lambda m, x, y: (x.transpose(0, 1).reshape(6) * y.flatten()).sum(),
    "stack_permute": lambda m, x, y: m.stack([x, y]).permute(1, 0, 2).abs().neg(),
    "two_outputs": lambda m, x, y: (x.max(1), y - x),
}


def trace_both(name):
    f = FUNCTIONS[name]
    xt, xv = both(2, 3, seed=1)
    yt, yv = both(2, 3, seed=2)
    traced_torch = torch.jit.trace(lambda x, y: f(torch, x, y), (xt, yt))
    traced_vg = vg.jit.trace(lambda x, y: f(vg, x, y), (xv, yv))
    return traced_torch, traced_vg


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_same_aten_nodes_as_torch(name):
    traced_torch, traced_vg = trace_both(name)
    assert aten_kinds(traced_vg.graph) == aten_kinds(traced_torch.graph)


@pytest.mark.parametrize("name", ["pointwise_and_sum", "views", "scalars_and_rsub", "where"])
def test_the_graph_prints_as_torch_prints_it(name):
    traced_torch, traced_vg = trace_both(name)
    assert str(traced_vg.graph) == without_source(traced_torch.graph)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_traced_function_runs_on_new_inputs(name):
    traced_torch, traced_vg = trace_both(name)
    xt, xv = both(2, 3, seed=7)
    yt, yv = both(2, 3, seed=8)
    out_torch, out_vg = traced_torch(xt, yt), traced_vg(xv, yv)
    flat_t = [out_torch] if isinstance(out_torch, torch.Tensor) else [*out_torch[0], out_torch[1]]
    flat_v = [out_vg] if isinstance(out_vg, vg.Tensor) else [*out_vg[0], out_vg[1]]
    assert len(flat_v) == len(flat_t)
    for v, t in zip(flat_v, flat_t, strict=True):
        close(v, t)


def test_the_rerun_runs_the_recorded_operators_not_the_python_function():
    calls = []

    def f(x):
        calls.append(1)
        return x + 1

    traced = vg.jit.trace(f, vg.zeros(2), check_trace=False)
    assert calls == [1]
    traced(vg.ones(2))
    assert calls == [1]


def branchy(m):
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x - 1

    return f


def test_data_dependent_control_flow_is_baked_in_with_a_tracer_warning():
    with warnings.catch_warnings(record=True) as caught_torch:
        warnings.simplefilter("always")
        traced_torch = torch.jit.trace(branchy(torch), torch.ones(3))
    with warnings.catch_warnings(record=True) as caught_vg:
        warnings.simplefilter("always")
        traced_vg = vg.jit.trace(branchy(vg), vg.ones(3))
    tracer_torch = [w for w in caught_torch if w.category is torch.jit.TracerWarning]
    tracer_vg = [w for w in caught_vg if w.category is vg.jit.TracerWarning]
    assert [str(w.message) for w in tracer_vg] == [str(w.message) for w in tracer_torch]
    assert tracer_vg[0].filename == __file__  # points at the ``if``, not at vizgrad
    # The sum and the comparison only fed a Python bool: dead code, gone from both graphs.
    assert aten_kinds(traced_vg.graph) == aten_kinds(traced_torch.graph) == ["aten::mul"]
    # A negative input takes the other branch in Python, but the trace knows one branch.
    minus = [-1.0, -2.0, -3.0]
    close(traced_vg(vg.tensor(minus)), traced_torch(torch.tensor(minus)))
    assert traced_vg(vg.tensor(minus)).tolist() == [-2.0, -4.0, -6.0]
    assert branchy(vg)(vg.tensor(minus)).tolist() == [-2.0, -3.0, -4.0]


CONVERSIONS = {
    "item": lambda m, x: x * x.sum().item(),
    "int": lambda m, x: x + int(x.sum()),
    "float": lambda m, x: x + float(x.sum()),
    "bool": lambda m, x: x * bool(x.sum() > 0),
    "tolist": lambda m, x: x + len(x.tolist()),
    "iter": lambda m, x: sum(row for row in x),
    "len": lambda m, x: x * len(x),
    "no conversion": lambda m, x: x * x.sum(),
}


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_tracer_warnings_in_the_same_cases_as_torch(name):
    f = CONVERSIONS[name]
    xt, xv = both(3, 2)

    def tracer_messages(module, trace, x):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            trace(lambda x: f(module, x), x, check_trace=False)
        return [str(w.message) for w in caught if issubclass(w.category, Warning)
                and w.category.__name__ == "TracerWarning"]  # fmt: skip

    expected = tracer_messages(torch, torch.jit.trace, xt)
    assert tracer_messages(vg, vg.jit.trace, xv) == expected


def test_no_tracer_warning_outside_a_trace():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bool(vg.ones(1)) and vg.ones(1).item() == 1.0


def test_tracer_warning_is_a_warning():
    assert issubclass(vg.jit.TracerWarning, Warning)
    assert vg.jit.TracerWarning.__name__ == torch.jit.TracerWarning.__name__


def make_models(seed=0):
    torch.manual_seed(seed)
    model_t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    model_v = vg.nn.Sequential(vg.nn.Linear(3, 4), vg.nn.ReLU(), vg.nn.Linear(4, 2))
    with vg.no_grad():
        for pv, pt in zip(model_v.parameters(), model_t.parameters(), strict=True):
            pv.copy_(vg.tensor(pt.detach().numpy()))
    return model_t, model_v


def test_a_traced_module_has_torch_operators_and_parameters_as_attributes():
    model_t, model_v = make_models()
    xt, xv = both(5, 3)
    traced_t = torch.jit.trace(model_t, xt)
    traced_v = vg.jit.trace(model_v, xv)
    assert type(traced_v).__name__ == type(traced_t).__name__ == "TopLevelTracedModule"
    assert isinstance(traced_v, vg.nn.Module)
    assert aten_kinds(traced_v.graph) == aten_kinds(traced_t.inlined_graph)
    # Parameters are read from the module (prim::GetAttr), never baked in as constants.
    # (torch also reads the parameter-less ReLU, to call its forward; vizgrad inlines it.)
    get_attr = sorted(n["name"] for n in traced_v.graph.nodes()
                      if n.kind() == "prim::GetAttr" and not n["name"].isdigit())  # fmt: skip
    get_attr_t = sorted(n.s("name") for n in traced_t.inlined_graph.nodes()
                        if n.kind() == "prim::GetAttr" and not n.s("name").isdigit())  # fmt: skip
    assert get_attr == get_attr_t
    assert not [n for n in traced_v.graph.nodes() if n.kind() == "prim::Constant"]
    assert [n.scope for n in traced_v.graph.nodes() if n.kind().startswith("aten::")] == [
        "__module.0", "__module.1", "__module.2"]  # fmt: skip
    # Shared parameters: the traced module sees a change of the original's weights.
    assert getattr(traced_v, "0").weight is model_v[0].weight
    xt, xv = both(4, 3, seed=3)
    close(traced_v(xv), traced_t(xt))
    with vg.no_grad():
        model_v[2].bias.add_(1.0)
    with torch.no_grad():
        model_t[2].bias.add_(1.0)
    close(traced_v(xv), traced_t(xt))
    assert repr(traced_v).startswith("Sequential(\n  original_name=Sequential\n")


def test_a_traced_function_rerun_under_autograd_gives_torch_gradients():
    def f(m, x, w):
        return (m.tanh(x @ w) * x.sum(1, keepdim=True)).pow(2).mean()

    xt, xv = both(4, 3)
    wt, wv = both(3, 3, seed=5)
    traced_t = torch.jit.trace(lambda x, w: f(torch, x, w), (xt, wt))
    traced_v = vg.jit.trace(lambda x, w: f(vg, x, w), (xv, wv))
    xt, xv = both(4, 3, seed=9)
    wt.requires_grad_(True)
    wv.requires_grad_(True)
    traced_t(xt, wt).backward()
    traced_v(xv, wv).backward()
    close(wv.grad, wt.grad)


def test_in_place_operators_are_recorded_and_rerun():
    traced_t = torch.jit.trace(lambda x: x.add_(1).mul(3), torch.zeros(2))
    traced_v = vg.jit.trace(lambda x: x.add_(1).mul(3), vg.zeros(2))
    assert aten_kinds(traced_v.graph) == aten_kinds(traced_t.graph) == ["aten::add_", "aten::mul"]
    x = vg.ones(2)
    assert traced_v(x).tolist() == [6.0, 6.0] and x.tolist() == [2.0, 2.0]


def test_container_outputs_follow_strict():
    def list_out(x):
        return [x, x * 2]

    def dict_out(x):
        return {"a": x * 2}

    with pytest.warns(vg.jit.TracerWarning, match="Encountering a list at the output"):
        traced = vg.jit.trace(list_out, vg.ones(2))
    assert isinstance(traced(vg.ones(2)), list)
    with pytest.raises(RuntimeError, match="Encountering a dict at the output") as error:
        vg.jit.trace(dict_out, vg.ones(2))
    with pytest.raises(RuntimeError) as error_t:
        torch.jit.trace(dict_out, torch.ones(2))
    assert str(error.value) == str(error_t.value)
    traced = vg.jit.trace(dict_out, vg.ones(2), strict=False)
    assert traced(vg.ones(2))["a"].tolist() == [2.0, 2.0]


def test_check_trace_warns_about_nondeterministic_nodes():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vg.jit.trace(lambda x: x + vg.rand(2), vg.ones(2))
    messages = [str(w.message) for w in caught if w.category is vg.jit.TracerWarning]
    assert messages[0].startswith("Trace had nondeterministic nodes.")
    assert "aten::rand" in messages[0]
    assert messages[1].startswith("Output nr 1. of the traced function does not match")


def test_calls_with_the_wrong_number_of_inputs_are_refused_as_in_torch():
    def f(x):
        return x + 1

    traced_t = torch.jit.trace(f, torch.ones(2))
    traced_v = vg.jit.trace(f, vg.ones(2))
    for args_t, args_v in (((torch.ones(2), torch.ones(2)), (vg.ones(2), vg.ones(2))), ((), ())):
        with pytest.raises(RuntimeError) as error_t:
            traced_t(*args_t)
        with pytest.raises(RuntimeError) as error_v:
            traced_v(*args_v)
        assert str(error_v.value) == str(error_t.value)


def test_code_is_python_like_source():
    traced = vg.jit.trace(lambda x: (x * 2).relu(), vg.ones(2, 3))
    assert traced.code == (
        "def _lambda(x: Tensor) -> Tensor:\n"
        "  _0 = torch.mul(x, 2)\n"
        "  _1 = torch.relu(_0)\n"
        "  return _1\n"
    )
    assert traced.inlined_graph is traced.graph


def test_jit_is_available_after_import_vizgrad():
    assert vg.jit.trace is not None and "trace" in vg.jit.__all__

"""``vizgrad.fx`` against ``torch.fx``: the same modules traced by both give the same
nodes, code, tables and values; graph edits, ``Interpreter``, ``Transformer`` and the
tracing errors behave as PyTorch's."""

import contextlib
import io
import re

import numpy as np
import pytest
import torch
import torch.fx
import torch.nn.functional as TF

import vizgrad as vg
import vizgrad.nn.functional as VF
from vizgrad import relu as vg_relu_imported  # a global the tracer must patch and restore
from vizgrad.fx.proxy import TraceError

# --- the same programs, written once per library ---------------------------------------------


def make_mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))


def make_residual(lib):
    F = TF if lib is torch else VF

    class Residual(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(4, 4)
            self.norm = lib.nn.LayerNorm(4)

        def forward(self, x):
            y = self.linear(x)
            return F.relu(self.norm(y + x))

    return Residual()


def make_param_module(lib):
    class UsesParameter(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.randn(4, 3))
            self.register_buffer("scale", lib.ones(3) * 2)

        def forward(self, x):
            return lib.matmul(x, self.weight) * self.scale + self.weight.sum()

    return UsesParameter()


def make_function(lib):
    def methods_and_operators(x, y):
        z = x.relu() + y * 2
        return lib.tanh(z.view(-1, 2)).sum(dim=1), x.shape[0], -x @ y.t()

    return methods_and_operators


CASES = {
    "mlp": (make_mlp, lambda lib: (lib.randn(3, 4),)),
    "residual": (make_residual, lambda lib: (lib.randn(5, 4),)),
    "parameter": (make_param_module, lambda lib: (lib.randn(2, 4),)),
    "function": (make_function, lambda lib: (lib.randn(4, 4), lib.randn(4, 4))),
}


def to_vg(t):
    return vg.tensor(t.detach().numpy())


def build_pair(case):
    """The torch program and the vizgrad one, with the same weights."""
    make, _ = CASES[case]
    tm, vm = make(torch), make(vg)
    if isinstance(tm, torch.nn.Module):
        vm.load_state_dict({k: to_vg(v) for k, v in tm.state_dict().items()})
    return tm, vm


def inputs_pair(case, seed=0):
    torch.manual_seed(seed)
    t_inputs = CASES[case][1](torch)
    return t_inputs, tuple(to_vg(t) for t in t_inputs)


def assert_same_values(v_out, t_out):
    if isinstance(t_out, tuple):
        assert isinstance(v_out, tuple) and len(v_out) == len(t_out)
        for v, t in zip(v_out, t_out, strict=True):
            assert_same_values(v, t)
    elif isinstance(t_out, (torch.Tensor, vg.Tensor)):
        assert isinstance(v_out, vg.Tensor)
        assert tuple(v_out.shape) == tuple(t_out.shape)
        np.testing.assert_allclose(v_out.detach().numpy(), t_out.detach().numpy(),
                                   rtol=1e-5, atol=1e-6)  # fmt: skip
    else:
        assert v_out == t_out


# Torch's targets named in vizgrad: ``torch.tanh`` is ``vizgrad.tanh``…
def to_vizgrad_text(text: str) -> str:
    text = text.replace("torch._C._nn.", "vizgrad.nn.functional.")
    text = text.replace("torch._assert", "vizgrad.fx._symbolic_trace._assert")
    text = text.replace("torch.nn.Module", "vizgrad.nn.Module")
    return re.sub(r"\btorch\.", "vizgrad.", text)


def target_key(target):
    return target if isinstance(target, str) else target.__name__


def node_rows(gm):
    return [(n.op, n.name, target_key(n.target), str(n.args), str(n.kwargs))
            for n in gm.graph.nodes]  # fmt: skip


def trace_pair(case):
    tm, vm = build_pair(case)
    return torch.fx.symbolic_trace(tm), vg.fx.symbolic_trace(vm), tm, vm


# --- the traced graph ------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_same_nodes_as_torch(case):
    t_gm, v_gm, _, _ = trace_pair(case)
    assert node_rows(v_gm) == node_rows(t_gm)


def test_node_kinds_are_the_ones_torch_records():
    # First principles, whatever torch says: the leaf layers are call_module, the
    # functional call and operators call_function, the parameter a get_attr.
    v_gm = vg.fx.symbolic_trace(make_residual(vg))
    ops = [(n.op, n.target) for n in v_gm.graph.nodes]
    assert ops == [
        ("placeholder", "x"), ("call_module", "linear"), ("call_function", __import__("operator").add),
        ("call_module", "norm"), ("call_function", VF.relu), ("output", "output"),
    ]  # fmt: skip
    p_gm = vg.fx.symbolic_trace(make_param_module(vg))
    assert [n.op for n in p_gm.graph.nodes if n.target in ("weight", "scale")] == ["get_attr"] * 2
    assert [n.target for n in p_gm.graph.nodes if n.op == "call_method"] == ["sum"]


@pytest.mark.parametrize("case", CASES)
def test_same_code_as_torch(case):
    t_gm, v_gm, _, _ = trace_pair(case)
    assert v_gm.code == to_vizgrad_text(t_gm.code)


@pytest.mark.parametrize("case", CASES)
def test_same_graph_str_as_torch(case):
    t_gm, v_gm, _, _ = trace_pair(case)
    assert str(v_gm.graph) == to_vizgrad_text(str(t_gm.graph))


def parse_table(text: str) -> list[list[str]]:
    """Split a ``print_tabular`` table into cells by the widths of its dash line."""
    lines = text.rstrip("\n").split("\n")
    spans, pos = [], 0
    for dashes in lines[1].split("  "):
        spans.append((pos, pos + len(dashes)))
        pos += len(dashes) + 2
    assert [lines[0][a:b].strip() for a, b in spans] == ["opcode", "name", "target", "args",
                                                         "kwargs"]  # fmt: skip
    return [[line[a:b].strip() for a, b in spans] for line in lines[2:]]


@pytest.mark.parametrize("case", CASES)
def test_print_tabular_rows_match_torch(case):
    t_gm, v_gm, _, _ = trace_pair(case)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        v_gm.graph.print_tabular()
    rows = parse_table(out.getvalue())
    t_nodes = list(t_gm.graph.nodes)
    assert len(rows) == len(t_nodes)
    for row, n in zip(rows, t_nodes, strict=True):
        assert [row[0], row[1], row[3], row[4]] == [n.op, n.name, str(n.args), str(n.kwargs)]
        if isinstance(n.target, str):
            assert row[2] == n.target
        else:  # "<function relu at 0x…>" vs torch's "<built-in method relu …>"
            assert re.search(rf"\b{re.escape(n.target.__name__)}\b", row[2])


def test_print_readable_and_str_match_torch():
    t_gm, v_gm, _, _ = trace_pair("residual")
    v_text = v_gm.print_readable(print_output=False)
    assert v_text == to_vizgrad_text(t_gm.print_readable(print_output=False))
    assert v_text.startswith("class Residual(vizgrad.nn.Module):")
    assert str(v_gm).endswith(to_vizgrad_text(str(t_gm)).split("\n", 1)[1].split(")\n", 1)[1])


# --- running the GraphModule ----------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_graph_module_reruns_like_the_original_and_torch(case):
    t_gm, v_gm, tm, vm = trace_pair(case)
    for seed in (1, 2):
        t_in, v_in = inputs_pair(case, seed)
        assert_same_values(v_gm(*v_in), vm(*v_in))
        assert_same_values(v_gm(*v_in), tm(*t_in))
        assert_same_values(v_gm(*v_in), t_gm(*t_in))


def test_graph_module_copies_only_what_the_graph_uses():
    vm = make_residual(vg)
    vm.unused = vg.nn.Linear(2, 2)
    gm = vg.fx.symbolic_trace(vm)
    assert dict(gm.named_children()).keys() == {"linear", "norm"}
    assert gm.linear is vm.linear  # copied by reference, as torch does
    assert type(gm).__name__ == "Residual"


def test_graph_module_from_a_function_keeps_tensor_constants():
    def f(x):
        return x + vg.ones(2) * 3

    def tf(x):
        return x + torch.ones(2) * 3

    v_gm, t_gm = vg.fx.symbolic_trace(f), torch.fx.symbolic_trace(tf)
    assert v_gm.code == t_gm.code
    assert v_gm(vg.zeros(2)).tolist() == [3.0, 3.0]


# --- editing the graph ----------------------------------------------------------------------


def test_replace_relu_by_gelu_and_recompile():
    t_gm, v_gm, _, _ = trace_pair("residual")
    for gm, gelu in ((t_gm, TF.gelu), (v_gm, VF.gelu)):
        (node,) = [n for n in gm.graph.nodes if n.op == "call_function" and n.name == "relu"]
        node.target = gelu
        node.kwargs = {}  # F.gelu takes no ``inplace``
        gm.recompile()
    assert v_gm.code == to_vizgrad_text(t_gm.code)
    assert "vizgrad.nn.functional.gelu(norm)" in v_gm.code
    t_in, v_in = inputs_pair("residual", 3)
    assert_same_values(v_gm(*v_in), t_gm(*t_in))
    # …and gelu, not relu: negative inputs of gelu are not all zero.
    assert (v_gm(*v_in) < 0).any()


def test_insert_a_node_and_rerun():
    t_gm, v_gm, _, _ = trace_pair("mlp")
    for gm, lib in ((t_gm, torch), (v_gm, vg)):
        first_linear = next(n for n in gm.graph.nodes if n.op == "call_module")
        with gm.graph.inserting_after(first_linear):
            neg = gm.graph.call_function(lib.neg, (first_linear,))
        first_linear.replace_all_uses_with(
            neg, delete_user_cb=lambda user, neg=neg: user is not neg
        )
        gm.graph.lint()
        gm.recompile()
    assert v_gm.code == to_vizgrad_text(t_gm.code)
    assert node_rows(v_gm) == node_rows(t_gm)
    t_in, v_in = inputs_pair("mlp", 4)
    assert_same_values(v_gm(*v_in), t_gm(*t_in))


def test_erase_a_node_and_rerun():
    t_gm, v_gm, tm, _ = trace_pair("mlp")
    for gm in (t_gm, v_gm):
        relu = next(n for n in gm.graph.nodes if n.op == "call_module" and n.target == "1")
        relu.replace_all_uses_with(relu.args[0])
        assert len(relu.users) == 0
        gm.graph.erase_node(relu)
        gm.recompile()
    assert v_gm.code == to_vizgrad_text(t_gm.code)
    t_in, v_in = inputs_pair("mlp", 5)
    assert_same_values(v_gm(*v_in), t_gm(*t_in))
    # Without the ReLU, the MLP is the two linear layers composed.
    expected = tm[2](tm[0](t_in[0]))
    assert_same_values(v_gm(*v_in), expected)


def test_erasing_a_node_that_has_users_fails_as_in_torch():
    t_gm, v_gm, _, _ = trace_pair("mlp")
    messages = []
    for gm in (t_gm, v_gm):
        first_linear = next(n for n in gm.graph.nodes if n.op == "call_module")
        with pytest.raises(RuntimeError) as info:
            gm.graph.erase_node(first_linear)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_users_and_args_setter_keep_edges_in_sync():
    gm = vg.fx.symbolic_trace(make_function(vg))
    nodes = {n.name: n for n in gm.graph.nodes}
    x, y, add = nodes["x"], nodes["y"], nodes["add"]
    assert add.all_input_nodes == [nodes["relu"], nodes["mul"]]
    assert add in nodes["relu"].users
    add.args = (x, y)
    assert add.all_input_nodes == [x, y]
    assert add not in nodes["relu"].users and add in x.users and add in y.users
    assert nodes["relu"].users == {}


def test_dead_code_elimination_like_torch():
    t_gm, v_gm, _, _ = trace_pair("function")
    results = []
    for gm, lib in ((t_gm, torch), (v_gm, vg)):
        x = next(iter(gm.graph.nodes))
        with gm.graph.inserting_after(x):
            gm.graph.call_function(lib.exp, (x,))  # nobody reads it
        assert len(gm.graph.nodes) == len(list(gm.graph.nodes))
        results.append((gm.graph.eliminate_dead_code(), gm.graph.eliminate_dead_code()))
        gm.recompile()
    assert results[1] == results[0] == (True, False)
    assert node_rows(v_gm) == node_rows(t_gm)


def test_lint_finds_a_use_before_definition():
    for lib in (torch, vg):
        gm = lib.fx.symbolic_trace(make_mlp(lib))
        nodes = list(gm.graph.nodes)
        nodes[1].prepend(nodes[2])  # the ReLU call now comes before its input
        with pytest.raises(RuntimeError, match="was used before it has been defined"):
            gm.graph.lint()


# --- Interpreter and Transformer --------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_interpreter_gives_the_same_result(case):
    _, v_gm, tm, _ = trace_pair(case)
    t_in, v_in = inputs_pair(case, 6)
    assert_same_values(vg.fx.Interpreter(v_gm).run(*v_in), tm(*t_in))


def test_interpreter_overrides_swap_functions_like_torch_docs():
    # The example of PyTorch's Interpreter docstring: swap neg and sigmoid.
    def make_interpreter(lib):
        class NegSigmSwapInterpreter(lib.fx.Interpreter):
            def call_function(self, target, args, kwargs):
                if target is lib.sigmoid:
                    return lib.neg(*args, **kwargs)
                return super().call_function(target, args, kwargs)

            def call_method(self, target, args, kwargs):
                if target == "neg":
                    call_self, *args_tail = args
                    return call_self.sigmoid(*args_tail, **kwargs)
                return super().call_method(target, args, kwargs)

        return NegSigmSwapInterpreter

    def fn_of(lib):
        def fn(x):
            return lib.sigmoid(x).neg()

        return fn

    t_x = torch.randn(3, 4)
    t_out = make_interpreter(torch)(torch.fx.symbolic_trace(fn_of(torch))).run(t_x)
    v_out = make_interpreter(vg)(vg.fx.symbolic_trace(fn_of(vg))).run(to_vg(t_x))
    assert_same_values(v_out, t_out)
    assert_same_values(v_out, torch.neg(t_x).sigmoid())


def test_interpreter_keeps_every_value_without_garbage_collection():
    gm = vg.fx.symbolic_trace(make_function(vg))
    interp = vg.fx.Interpreter(gm, garbage_collect_values=False)
    x, y = vg.randn(4, 4), vg.randn(4, 4)
    interp.run(x, y)
    env = {n.name: v for n, v in interp.env.items()}
    assert env["getitem"] == 4
    assert env["relu"].tolist() == x.relu().tolist()


def test_transformer_rewrites_like_torch():
    def make_transformer(lib, F):
        class ReluToGelu(lib.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target is F.relu:
                    return F.gelu(args[0])  # an engine call on a proxy: recorded
                return super().call_function(target, args, kwargs)

        return ReluToGelu

    t_gm, v_gm, _, _ = trace_pair("residual")
    t_new = make_transformer(torch, TF)(t_gm).transform()
    v_new = make_transformer(vg, VF)(v_gm).transform()
    assert v_new.code == to_vizgrad_text(t_new.code)
    t_in, v_in = inputs_pair("residual", 7)
    assert_same_values(v_new(*v_in), t_new(*t_in))


# --- where symbolic tracing breaks ----------------------------------------------------------


def branchy_of(lib):
    def branchy(x):
        if x.sum() > 0:
            return x.relu()
        return -x

    return branchy


def test_data_dependent_control_flow_raises_trace_error_like_torch():
    with pytest.raises(torch.fx.proxy.TraceError) as t_info:
        torch.fx.symbolic_trace(branchy_of(torch))
    with pytest.raises(TraceError) as v_info:
        vg.fx.symbolic_trace(branchy_of(vg))
    assert str(v_info.value) == str(t_info.value)
    assert (
        str(v_info.value)
        == "symbolically traced variables cannot be used as inputs to control flow"
    )
    assert isinstance(v_info.value, ValueError)


def test_concrete_args_specialise_like_torch():
    def flagged_of(lib):
        def flagged(x, flag):
            return x.relu() if flag else -x

        return flagged

    t_gm = torch.fx.symbolic_trace(flagged_of(torch), concrete_args={"flag": True})
    v_gm = vg.fx.symbolic_trace(flagged_of(vg), concrete_args={"flag": True})
    assert v_gm.code == to_vizgrad_text(t_gm.code)
    assert node_rows(v_gm) == node_rows(t_gm)
    assert v_gm(vg.tensor([-1.0, 2.0]), True).tolist() == [0.0, 2.0]
    with pytest.raises(AssertionError, match="flag has been specialized to have value True"):
        v_gm(vg.tensor([-1.0, 2.0]), False)


def test_len_and_iteration_errors_like_torch():
    def uses_len(x):
        return len(x)

    def loops(x):
        return [v for v in x]

    for fn, kind in ((uses_len, RuntimeError), (loops, TraceError)):
        with pytest.raises(Exception) as t_info:
            torch.fx.symbolic_trace(fn)
        with pytest.raises(kind) as v_info:
            vg.fx.symbolic_trace(fn)
        assert type(t_info.value).__name__ == type(v_info.value).__name__
        assert str(v_info.value) == str(t_info.value).replace("torch.fx.wrap", "vizgrad.fx.wrap")


def test_unpacking_a_proxy_records_getitems_like_torch():
    def unpack(x):
        a, b = x
        return a * b

    assert vg.fx.symbolic_trace(unpack).code == torch.fx.symbolic_trace(unpack).code


# --- tracing leaves nothing patched ---------------------------------------------------------


def engine_function_objects():
    return (
        {k: v for k, v in vars(vg).items() if callable(v)},
        {k: v for k, v in vars(VF).items() if callable(v)},
        vg.nn.Module.__call__,
        vg.nn.Module.__getattr__,
        globals()["vg_relu_imported"],
    )


def test_tracing_restores_every_patched_function():
    before = engine_function_objects()

    def uses_imported(x):
        return vg_relu_imported(x) + vg.relu(x)  # both recorded while tracing

    gm = vg.fx.symbolic_trace(uses_imported)
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"][:2] == [vg.relu, vg.relu]
    vg.fx.symbolic_trace(make_residual(vg))
    after = engine_function_objects()
    assert after[2] is before[2] and after[3] is before[3] and after[4] is vg.relu
    assert after[0] == before[0] and after[1] == before[1]  # same objects, by identity
    assert all(after[0][k] is v for k, v in before[0].items())


def test_tracing_that_raises_restores_every_patched_function():
    before = engine_function_objects()
    with pytest.raises(TraceError):
        vg.fx.symbolic_trace(branchy_of(vg))

    class Broken(vg.nn.Module):
        def forward(self, x):
            raise KeyError("boom")

    with pytest.raises(KeyError):
        vg.fx.symbolic_trace(Broken())
    after = engine_function_objects()
    assert all(after[0][k] is v for k, v in before[0].items())
    assert all(after[1][k] is v for k, v in before[1].items())
    assert after[2:] == before[2:]
    # The functions work on tensors again, untraced.
    assert vg.relu(vg.tensor([-1.0, 1.0])).tolist() == [0.0, 1.0]


# --- fx.wrap ---------------------------------------------------------------------------------


def scaled_sum(x, k):
    return x.sum() * k


torch.fx.wrap("scaled_sum")
vg.fx.wrap("scaled_sum")


def test_wrapped_function_is_one_node_like_torch():
    def uses_wrapped(x):
        return scaled_sum(x, 3) + 1

    t_gm = torch.fx.symbolic_trace(uses_wrapped)
    v_gm = vg.fx.symbolic_trace(uses_wrapped)
    assert node_rows(v_gm) == node_rows(t_gm)
    assert v_gm.code == to_vizgrad_text(t_gm.code)
    assert v_gm.code.startswith('\nvizgrad.fx._symbolic_trace.wrap("test_fx_scaled_sum")')
    assert v_gm(vg.ones(2)).item() == 7.0

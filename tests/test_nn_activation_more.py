"""More activation functions and modules against PyTorch: threshold, hardsigmoid,
hardswish, hardshrink, softshrink, logsigmoid, tanhshrink, softsign, glu, prelu. What
``test_nn_activation.py``'s shared tests (values on every layout, in-place forms,
gradients, second derivatives, modules) do not cover: edge values, other dtypes, out=
overloads, the functions' homes, meta tensors, glu and prelu (and their modules), and
errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from grad_oracle import check_gradients
from oracle import LAYOUTS, assert_same, assert_same_error, assert_same_outcome, make_pair
from test_nn_activation import _call

import vizgrad as vg
import vizgrad.nn.functional as F

# The pointwise ones, whose options ``test_nn_activation.FUNCTIONS`` holds.
POINTWISE = ["threshold", "hardsigmoid", "hardswish", "hardshrink", "softshrink", "logsigmoid",
             "tanhshrink", "softsign"]  # fmt: skip


def test_values_at_the_edges_and_far_out_match_torch():
    data = np.array([-1000.0, -30.0, -3.0, -1.2, -0.7, -0.5, -1e-8, 0.0, 0.5, 0.7, 1.2, 3.0,
                     25.0, 1000.0, np.inf, -np.inf, np.nan])  # fmt: skip
    for name in POINTWISE:
        for dtype in ("float32", "float64"):
            v = vg.tensor(data, dtype=getattr(vg, dtype))
            t = torch.tensor(data).to(getattr(torch, dtype))
            assert_same(_call(F, name, v), _call(TF, name, t))


def test_logsigmoid_is_stable_for_large_inputs():
    v, t = vg.tensor([-1e4, -100.0, 100.0, 1e4]), torch.tensor([-1e4, -100.0, 100.0, 1e4])
    result = F.logsigmoid(v)
    assert np.isfinite(result.numpy()).all()
    assert_same(result, TF.logsigmoid(t))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64", "bool", "complex64"])
@pytest.mark.parametrize("name", POINTWISE)
def test_other_dtypes_give_torchs_result_or_error(name, dtype):
    v, t = make_pair((2, 3), dtype, seed=1, low=-4, high=4)
    assert_same_outcome(lambda: _call(F, name, v), lambda: _call(TF, name, t))


@pytest.mark.parametrize("dtype", ["uint8", "int64"])
@pytest.mark.parametrize("limits", [(1.9, 7.6), (-1, 3), (2, -5)])
def test_threshold_converts_its_scalars_to_integer_inputs_as_torch(dtype, limits):
    data = np.array([0, 1, 2, 3, 250 if dtype == "uint8" else -7])
    v, t = (
        vg.tensor(data, dtype=getattr(vg, dtype)),
        torch.tensor(data, dtype=getattr(torch, dtype)),
    )
    assert_same(F.threshold(v, *limits), TF.threshold(t, *limits))


def test_threshold_underscore_is_a_torch_function():
    v, t = make_pair((3, 4), "float32", "transposed", seed=2)
    assert F.threshold_(v, 0.1, 7.0) is v
    assert vg.threshold_ is F.threshold_
    TF.threshold_(t, 0.1, 7.0)
    assert_same(v, t)
    assert v._version == 1


@pytest.mark.parametrize("out_dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "call",
    ["threshold(x, 0.5, 3., out=o)", "_nn.hardsigmoid(x, out=o)", "_nn.hardswish(x, out=o)",
     "hardshrink(x, 0.3, out=o)", "_nn.softshrink(x, 0.3, out=o)"],
)  # fmt: skip
def test_out_overloads_match_torch(call, out_dtype):
    def run(lib, nn_namespace):
        v_x = make_pair((3, 4), "float32", "transposed", seed=6)
        x = v_x[0] if lib is vg else v_x[1]
        o = lib.empty(0, dtype=getattr(lib, out_dtype))
        result = eval(call, {"x": x, "o": o, "_nn": nn_namespace, "threshold": lib.threshold,
                             "hardshrink": lib.hardshrink})  # fmt: skip
        assert result is o
        return o

    from vizgrad.ops import activation as nn_ops

    assert_same_outcome(lambda: run(vg, nn_ops), lambda: run(torch, torch._C._nn))


def test_logsigmoid_gradient_is_finite_far_out():
    def run(lib, functional):
        x = lib.tensor([-1000.0, -50.0, 50.0, 1000.0], requires_grad=True)
        functional.logsigmoid(x).sum().backward()
        return x.grad

    assert_same(run(vg, F), run(torch, TF))


@pytest.mark.parametrize(
    "call",
    ["F.softshrink(x, -1.)", "F.softshrink(d, -0.25)", "F.softshrink(h, -2)", "F.softshrink(i)",
     "F.softshrink(i, -1.)", "F.hardshrink(b)", "F.hardshrink(i)", "F.threshold(b, 0, 1)",
     "F.threshold(c, 0, 1)", "F.hardsigmoid(i)", "F.hardswish(c)", "F.logsigmoid(i)",
     "F.logsigmoid(b)", "F.softsign(b)", "F.tanhshrink(b)", "F.threshold(x, 0.)",
     "F.hardsigmoid_(x)" if False else "F.hardsigmoid(x, True, 1)"],
)  # fmt: skip
def test_bad_input_raises_torchs_errors(call):
    def run(lib, functional):
        env = {"F": functional, "x": lib.randn(3), "d": lib.randn(2, dtype=lib.float64),
               "h": lib.randn(2).half(), "i": lib.tensor([1, -2]), "b": lib.tensor([True]),
               "c": lib.ones(2, dtype=lib.complex64)}  # fmt: skip
        return eval(call, env)

    assert_same_error(lambda: run(vg, F), lambda: run(torch, TF))


def test_the_functions_live_where_torch_has_them():
    for name in ("threshold", "threshold_", "hardshrink"):
        assert hasattr(vg, name) and hasattr(torch, name)
    for name in ("hardsigmoid", "hardswish", "softshrink", "log_sigmoid", "hardsigmoid_"):
        assert hasattr(vg, name) == hasattr(torch, name)
    for name in ("threshold", "threshold_", "hardshrink", "softshrink", "hardsigmoid",
                 "hardswish_", "log_sigmoid"):  # fmt: skip
        assert hasattr(vg.Tensor, name) == hasattr(torch.Tensor, name), name


def test_hardshrink_method_matches_torch():
    v, t = make_pair((3, 4), "float64", "stepped", seed=7)
    assert_same(v.hardshrink(1.0), t.hardshrink(1.0))
    assert_same(v.hardshrink(), t.hardshrink())


def test_log_sigmoid_forward_returns_the_buffer_as_torch():
    v, t = make_pair((3, 4), "float32", "transposed", seed=4)
    from vizgrad.ops import activation as nn_ops

    v_result = nn_ops.log_sigmoid_forward(v)
    t_result = torch.ops.aten.log_sigmoid_forward(t)
    assert type(v_result) is tuple and type(t_result) is tuple
    assert_same(v_result, t_result)


def test_meta_tensors_get_torchs_metadata():
    for name in POINTWISE:
        v = _call(F, name, vg.empty(3, 4, device="meta").mT)
        t = _call(TF, name, torch.empty(3, 4, device="meta").mT)
        assert v.device.type == "meta"
        assert (tuple(v.shape), v.stride(), v.dtype.name) == (
            tuple(t.shape),
            t.stride(),
            str(t.dtype).split(".")[-1],
        )


# --- glu ---------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape, dim", [((4,), 0), ((3, 4), -1), ((4, 6), 0), ((2, 0, 4), 2),
                                        ((0, 4), 0), ((4, 0), 0)])  # fmt: skip
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_glu_matches_torch(dtype, shape, dim, layout):
    v, t = make_pair(shape, dtype, layout, seed=3, low=-6, high=6)
    tol = 2e-3 if dtype == "float16" else None
    assert_same(F.glu(v, dim), TF.glu(t, dim), rtol=tol, atol=tol)


def test_glu_far_out_matches_torch():
    data = np.array([[-1000.0, 0.0, 1000.0, np.nan], [1.0, -1000.0, 1000.0, 1.0]])
    for dtype in ("float32", "float64"):
        v, t = (
            vg.tensor(data, dtype=getattr(vg, dtype)),
            torch.tensor(data).to(getattr(torch, dtype)),
        )
        assert_same(F.glu(v, 0), TF.glu(t, 0))


@pytest.mark.parametrize(
    "call",
    ["F.glu(s)", "_nn.glu(s)", "F.glu(x, 0)", "F.glu(y, 5)", "F.glu(i)", "F.glu(b)",
     "F.glu(c)", "F.glu(i3)", "_nn.glu(y, out=o)", "F.glu(y, 1.5)"],
)  # fmt: skip
def test_glu_refuses_what_torch_refuses(call):
    def run(lib, functional, nn_namespace):
        env = {"F": functional, "_nn": nn_namespace, "s": lib.tensor(1.0), "x": lib.randn(3, 4),
               "y": lib.randn(4, 4), "i": lib.tensor([1, 2]), "b": lib.tensor([True, False]),
               "c": lib.ones(2, dtype=lib.complex64), "i3": lib.tensor([1, 2, 3]),
               "o": lib.empty(0, dtype=lib.int64)}  # fmt: skip
        return eval(call, env)

    from vizgrad.ops import activation as nn_ops

    assert_same_error(lambda: run(vg, F, nn_ops), lambda: run(torch, TF, torch._C._nn))


@pytest.mark.parametrize("out_dtype", ["float32", "float64"])
def test_glu_out_matches_torch(out_dtype):
    from vizgrad.ops import activation as nn_ops

    v, t = make_pair((4, 6), "float32", "transposed", seed=2)
    v_out, t_out = (
        vg.empty(0, dtype=getattr(vg, out_dtype)),
        torch.empty(0, dtype=getattr(torch, out_dtype)),
    )
    assert nn_ops.glu(v, 0, out=v_out) is v_out
    torch._C._nn.glu(t, 0, out=t_out)
    # Both compute in float32 (then cast to out's dtype); PyTorch's vectorised exp may
    # differ from NumPy's by an ulp of float32.
    assert_same(v_out, t_out, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_glu_gradients_match_torch_and_finite_differences(dim, layout):
    check_gradients(lambda x: F.glu(x, dim), lambda x: TF.glu(x, dim), [(4, 6)],
                    layouts=[layout], grad_fn_name="GluBackward0", seed=5)  # fmt: skip


def test_glu_second_derivatives_match_torch():
    data = np.random.default_rng(8).uniform(-3, 3, (2, 6))

    def run(lib, functional):
        x = lib.tensor(data, requires_grad=True)
        (g,) = lib.autograd.grad(functional.glu(x).pow(2).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return g, gg

    for v, t in zip(run(vg, F), run(torch, TF), strict=True):
        assert_same(v.detach(), t.detach())


def test_glu_on_meta_tensors_as_torch():
    v = F.glu(vg.empty(4, 6, device="meta").mT, 0)
    t = TF.glu(torch.empty(4, 6, device="meta").mT, 0)
    assert (tuple(v.shape), v.stride()) == (tuple(t.shape), t.stride())


@pytest.mark.parametrize("expr, text", [("GLU()", "GLU(dim=-1)"), ("GLU(0)", "GLU(dim=0)")])
def test_glu_module_prints_computes_and_differentiates_as_torch(expr, text):
    v_module, t_module = eval("vg.nn." + expr), eval("torch.nn." + expr)
    assert repr(v_module) == repr(t_module) == text
    data = np.random.default_rng(2).uniform(-4, 4, (4, 6))
    v, t = vg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    v_out, t_out = v_module(v), t_module(t)
    assert_same(v_out, t_out.detach())
    assert v_out.grad_fn.name() == type(t_out.grad_fn).__name__
    v_out.pow(2).sum().backward()
    t_out.pow(2).sum().backward()
    assert_same(v.grad, t.grad)


# --- prelu -------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape, weights", [((), 1), ((5,), 1), ((3, 4), 1), ((3, 4), 4),
                                            ((2, 3, 4), 3), ((2, 0, 4), 1), ((2, 0, 4), 0),
                                            ((0, 3), 3)])  # fmt: skip
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_prelu_matches_torch(dtype, shape, weights, layout):
    v, t = make_pair(shape, dtype, layout, seed=3, low=-6, high=6)
    v_w, t_w = make_pair((weights,), dtype, seed=4, low=-1, high=1)
    tol = 2e-3 if dtype == "float16" else None
    assert_same(F.prelu(v, v_w), TF.prelu(t, t_w), rtol=tol, atol=tol)
    assert_same(v.prelu(v_w), t.prelu(t_w), rtol=tol, atol=tol)


def test_prelu_takes_a_0_dim_weight_as_torch():
    v, t = make_pair((3, 4), "float64", "transposed", seed=1)
    assert_same(F.prelu(v, vg.tensor(0.3, dtype=vg.float64)),
                TF.prelu(t, torch.tensor(0.3, dtype=torch.float64)))  # fmt: skip


@pytest.mark.parametrize(
    "call",
    ["F.prelu(i, i1)", "F.prelu(b, b1)", "F.prelu(x, w4)", "F.prelu(s, w4)", "F.prelu(x, w11)",
     "F.prelu(x, w31)", "F.prelu(v5, w5)", "F.prelu(x, d1)", "F.prelu(i, w1)", "F.prelu(c, c1)"],
)  # fmt: skip
def test_prelu_refuses_what_torch_refuses(call):
    def run(lib, functional):
        env = {"F": functional, "x": lib.randn(2, 3), "s": lib.tensor(1.0), "v5": lib.randn(5),
               "i": lib.tensor([1, -2]), "i1": lib.tensor([2]), "b": lib.tensor([True]),
               "b1": lib.tensor([True]), "w1": lib.randn(1), "w4": lib.randn(4),
               "w11": lib.randn(1, 1), "w31": lib.randn(3, 1), "w5": lib.randn(5),
               "d1": lib.randn(1, dtype=lib.float64), "c": lib.ones(2, dtype=lib.complex64),
               "c1": lib.ones(1, dtype=lib.complex64)}  # fmt: skip
        return eval(call, env)

    assert_same_error(lambda: run(vg, F), lambda: run(torch, TF))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("shape, weights", [((3, 4), 1), ((2, 3, 4), 3), ((5,), 1)])
def test_prelu_gradients_match_torch_and_finite_differences(shape, weights, layout):
    check_gradients(F.prelu, TF.prelu, [shape, (weights,)], layouts=[layout, "contiguous"],
                    grad_fn_name="PreluKernelBackward0", value_range={"low": -3, "high": 3},
                    seed=2, check_output_strides=True)  # fmt: skip


def test_prelu_records_the_weights_view_as_torch():
    def names(lib, functional):
        x = lib.ones(2, 3, 4, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        node = functional.prelu(x, w).grad_fn
        return [f.name().replace("torch::", "vizgrad::") for f, _ in node.next_functions]

    assert names(vg, F) == names(torch, TF)


def test_prelu_second_derivatives_match_torch():
    x_data = np.random.default_rng(8).uniform(-3, 3, (2, 3))
    w_data = np.array([0.2, -0.4, 0.7])

    def run(lib, functional):
        x = lib.tensor(x_data, requires_grad=True)
        w = lib.tensor(w_data, requires_grad=True)
        gx, gw = lib.autograd.grad(functional.prelu(x, w).pow(2).sum(), (x, w), create_graph=True)
        return (gx, gw, *lib.autograd.grad((gx.sum() + gw.sum()), (x, w)))

    for v, t in zip(run(vg, F), run(torch, TF), strict=True):
        assert_same(v.detach(), t.detach())


def test_prelu_on_meta_tensors_as_torch():
    v = F.prelu(vg.empty(2, 4, 3, device="meta").mT, vg.empty(3, device="meta"))
    t = TF.prelu(torch.empty(2, 4, 3, device="meta").mT, torch.empty(3, device="meta"))
    assert (tuple(v.shape), v.stride()) == (tuple(t.shape), t.stride())


@pytest.mark.parametrize("args, text", [("", "PReLU(num_parameters=1)"),
                                        ("3, 0.1", "PReLU(num_parameters=3)"),
                                        ("num_parameters=3, dtype=DT", "PReLU(num_parameters=3)")])  # fmt: skip
def test_prelu_module_matches_torch(args, text):
    v_module = eval(f"vg.nn.PReLU({args})", {"vg": vg, "DT": vg.float64})
    t_module = eval(f"torch.nn.PReLU({args})", {"torch": torch, "DT": torch.float64})
    assert repr(v_module) == repr(t_module) == text
    (v_weight,), (t_weight,) = list(v_module.parameters()), list(t_module.parameters())
    assert_same(v_weight.detach(), t_weight.detach())
    assert [n for n, _ in v_module.named_parameters()] == ["weight"]
    dtype = str(t_weight.dtype).split(".")[-1]
    data = np.random.default_rng(2).uniform(-4, 4, (2, 3, 4))
    v = vg.tensor(data, dtype=getattr(vg, dtype), requires_grad=True)
    t = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=True)
    v_out, t_out = v_module(v), t_module(t)
    assert_same(v_out, t_out.detach())
    v_out.pow(2).sum().backward()
    t_out.pow(2).sum().backward()
    assert_same(v.grad, t.grad)
    assert_same(v_module.weight.grad, t_module.weight.grad)

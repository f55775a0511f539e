"""Activation functions and modules against PyTorch: values, dtypes, strides, in-place
forms, gradients (torch and finite differences), grad_fn names, reprs and errors."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from grad_oracle import check_gradients
from oracle import LAYOUTS, assert_same, assert_same_error, assert_same_outcome, make_pair

import vizgrad as vg
import vizgrad.nn.functional as F

# name -> (call on a functional module, keyword options); both libraries take the same.
FUNCTIONS = {
    "relu": {},
    "leaky_relu": {"negative_slope": 0.2},
    "elu": {"alpha": 0.7},
    "celu": {"alpha": 1.3},
    "selu": {},
    "gelu": {},
    "gelu_tanh": {"approximate": "tanh"},
    "silu": {},
    "mish": {},
    "softplus": {"beta": 2.0, "threshold": 3.0},
    "hardtanh": {"min_val": -0.5, "max_val": 1.5},
    "relu6": {},
    "sigmoid": {},
    "tanh": {},
    "threshold": {"threshold": 0.5, "value": -2.0},
    "hardsigmoid": {},
    "hardswish": {},
    "hardshrink": {"lambd": 1.2},
    "softshrink": {"lambd": 0.7},
    "logsigmoid": {},
    "tanhshrink": {},
    "softsign": {},
}
INPLACE = ["relu", "leaky_relu", "elu", "celu", "selu", "silu", "mish", "hardtanh", "relu6",
           "threshold", "hardsigmoid", "hardswish"]  # fmt: skip


def _call(lib_functional, name, x, **extra):
    options = dict(FUNCTIONS[name], **extra)
    function = getattr(lib_functional, "gelu" if name == "gelu_tanh" else name)
    return function(x, **options)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 0, 3)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_forward_matches_torch(name, dtype, shape, layout):
    v, t = make_pair(shape, dtype, layout, seed=3, low=-8, high=8)
    rtol = 2e-3 if dtype == "float16" else None
    assert_same(_call(F, name, v), _call(TF, name, t), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
@pytest.mark.parametrize("name", INPLACE)
def test_inplace_forms_write_the_input(name, layout):
    v, t = make_pair((3, 4), "float64", layout, seed=5)
    v_result = _call(F, name, v, inplace=True)
    _call(TF, name, t, inplace=True)
    assert v_result is v
    assert_same(v, t)
    assert v._version == 1


def test_values_far_out_stay_finite_like_torch():
    data = np.array([-1000.0, -30.0, -1e-8, 0.0, 1e-8, 25.0, 1000.0])
    for name in FUNCTIONS:
        for dtype in ("float32", "float64"):
            v, t = (
                vg.tensor(data, dtype=getattr(vg, dtype)),
                torch.tensor(data).to(getattr(torch, dtype)),
            )
            assert_same(_call(F, name, v), _call(TF, name, t))


@pytest.mark.parametrize(
    "name, node",
    [("relu", "ReluBackward0"), ("leaky_relu", "LeakyReluBackward0"), ("elu", "EluBackward0"),
     ("celu", "CeluBackward0"), ("selu", "EluBackward0"), ("gelu", "GeluBackward0"),
     ("gelu_tanh", "GeluBackward0"), ("silu", "SiluBackward0"), ("mish", "MishBackward0"),
     ("softplus", "SoftplusBackward0"), ("hardtanh", "HardtanhBackward0"),
     ("relu6", "HardtanhBackward0"), ("sigmoid", "SigmoidBackward0"), ("tanh", "TanhBackward0"),
     ("threshold", "ThresholdBackward0"), ("hardsigmoid", "HardsigmoidBackward0"),
     ("hardswish", "HardswishBackward0"), ("hardshrink", "HardshrinkBackward0"),
     ("softshrink", "SoftshrinkBackward0"), ("logsigmoid", "LogSigmoidBackward0"),
     ("tanhshrink", "SubBackward0"), ("softsign", "DivBackward0")],
)  # fmt: skip
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_gradients_match_torch_and_finite_differences(name, node, layout):
    # Values away from the kinks, where finite differences are meaningless.
    check_gradients(
        lambda x: _call(F, name, x),
        lambda x: _call(TF, name, x),
        [(3, 4)],
        layouts=[layout],
        grad_fn_name=node,
        value_range={"low": -3, "high": 3},
        seed=11,
    )


@pytest.mark.parametrize(
    "name, node",
    [("relu", "ReluBackward0"), ("leaky_relu", "LeakyReluBackward1"), ("elu", "EluBackward1"),
     ("celu", "CeluBackward1"), ("selu", "EluBackward1"), ("silu", "SiluBackward0"),
     ("mish", "MishBackward0"), ("hardtanh", "HardtanhBackward0"), ("relu6", "HardtanhBackward0"),
     ("threshold", "ThresholdBackward1"), ("hardsigmoid", "HardsigmoidBackward0"),
     ("hardswish", "HardswishBackward0")],
)  # fmt: skip
def test_inplace_gradients_match_torch(name, node):
    def run(lib, functional, data):
        leaf = lib.tensor(data, requires_grad=True)
        out = _call(functional, name, leaf * 1.5, inplace=True)
        (out * lib.arange(12.0, dtype=out.dtype).reshape(3, 4)).sum().backward()
        return out, leaf.grad

    data = np.random.default_rng(4).uniform(-3, 3, (3, 4))
    v_out, v_grad = run(vg, F, data)
    t_out, t_grad = run(torch, TF, data)
    assert v_out.grad_fn.name() == type(t_out.grad_fn).__name__ == node
    assert_same(v_out, t_out.detach())
    assert_same(v_grad, t_grad)


@pytest.mark.parametrize("name", ["gelu", "gelu_tanh", "silu", "mish", "softplus", "elu",
                                  "hardswish", "logsigmoid", "softsign", "tanhshrink"])  # fmt: skip
def test_second_derivatives_match_torch(name):
    data = np.random.default_rng(8).uniform(-2, 2, (6,))

    def run(lib, functional):
        x = lib.tensor(data, requires_grad=True)
        (g,) = lib.autograd.grad(_call(functional, name, x).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return g, gg

    for v, t in zip(run(vg, F), run(torch, TF), strict=True):
        assert_same(v.detach(), t.detach())


def test_softmax_family_matches_torch_with_dim_and_dtype():
    v, t = make_pair((2, 3, 4), "float32", "transposed", seed=2)
    for name in ("softmax", "softmin", "log_softmax"):
        for dim in (0, 1, -1):
            assert_same(getattr(F, name)(v, dim), getattr(TF, name)(t, dim))
        assert_same(
            getattr(F, name)(v, 1, dtype=vg.float64), getattr(TF, name)(t, 1, dtype=torch.float64)
        )
    check_gradients(lambda x: F.softmin(x, 1), lambda x: TF.softmin(x, 1), [(3, 4)],
                    grad_fn_name="SoftmaxBackward0")  # fmt: skip


@pytest.mark.parametrize("shape", [(), (4,), (3, 4), (2, 3, 4), (2, 3, 4, 5)])
@pytest.mark.parametrize("name", ["softmax", "softmin", "log_softmax"])
def test_softmax_without_dim_warns_and_picks_torchs_dim(name, shape):
    v, t = make_pair(shape, "float64", seed=1)
    assert_same_outcome(lambda: getattr(F, name)(v), lambda: getattr(TF, name)(t),
                        compare_warnings=True)  # fmt: skip


def test_softmax_module_warning_comes_from_where_torchs_does():
    # _stacklevel=5 lands in Module.__call__'s machinery, in PyTorch as here.
    def warned(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.Softmax()(lib.ones(2, 3))
        return [(Path(w.filename).name, str(w.message)) for w in caught]

    assert warned(vg) == warned(torch)


@pytest.mark.parametrize(
    "call",
    ["F.leaky_relu(i)", "F.leaky_relu(b)", "F.leaky_relu(c)", "F.elu(i)", "F.celu(i)",
     "F.selu(b)", "F.gelu(i)", "F.gelu(c)", "F.silu(i)", "F.mish(i)", "F.softplus(c)",
     "F.hardtanh(b)", "F.hardtanh(c)", "F.relu6(b)", "F.relu(b)", "F.relu(c)",
     "F.gelu(x, approximate='foo')", "F.gelu(x, 'tanh')", "F.celu(x, alpha=0.)",
     "F.hardtanh(x, 2., 1.)", "F.leaky_relu(x, 'a')", "F.leaky_relu_(x.clone(), 'a')",
     "F.softplus(x, beta='a')", "F.elu_(i.clone())", "F.hardtanh(u, -1, 1)",
     "F.leaky_relu(x, 0.1, True, 1)"],
)  # fmt: skip
def test_bad_input_raises_torchs_errors(call):
    def run(lib, functional):
        env = {"F": functional, "x": lib.randn(3), "i": lib.tensor([1, -2]),
               "b": lib.tensor([True]), "c": lib.ones(2, dtype=lib.complex64),
               "u": lib.tensor([1, 2], dtype=lib.uint8)}  # fmt: skip
        return eval(call, env)

    assert_same_error(lambda: run(vg, F), lambda: run(torch, TF))


def test_integer_inputs_keep_their_dtype_where_torch_does():
    for call in ("F.hardtanh(i)", "F.relu6(i)", "F.relu(i)", "F.hardtanh(i, -1.5, 2.5)"):
        assert_same(eval(call, {"F": F, "i": vg.tensor([-3, 0, 4])}),
                    eval(call, {"F": TF, "i": torch.tensor([-3, 0, 4])}))  # fmt: skip


@pytest.mark.parametrize("function", ["leaky_relu", "elu", "celu"])
def test_inplace_backward_with_a_negative_slope_raises_torchs_error(function):
    def run(lib, functional):
        x = lib.randn(3, requires_grad=True) * 1
        getattr(functional, function)(x, -0.5, inplace=True).sum().backward()

    assert_same_error(lambda: run(vg, F), lambda: run(torch, TF))


def test_silu_takes_complex_inputs_as_torch():
    data = np.array([1 + 1j, -2 + 0.5j])
    assert_same(F.silu(vg.tensor(data)), TF.silu(torch.tensor(data)))


def test_the_inplace_functions_are_not_tensor_methods():
    for name in ("leaky_relu_", "elu_", "hardtanh_", "gelu_", "silu_", "mish_", "relu6_"):
        assert hasattr(vg.Tensor, name) == hasattr(torch.Tensor, name)
    for name in ("celu", "celu_", "selu", "selu_"):
        assert hasattr(vg, name) and hasattr(torch, name)
    for name in ("leaky_relu", "gelu", "hardtanh", "softplus", "mish"):
        assert hasattr(vg, name) == hasattr(torch, name)


# --- modules -----------------------------------------------------------------------------

MODULES = [
    ("ReLU()", "ReLU()"), ("ReLU(inplace=True)", "ReLU(inplace=True)"),
    ("LeakyReLU()", "LeakyReLU(negative_slope=0.01)"),
    ("LeakyReLU(0.2, True)", "LeakyReLU(negative_slope=0.2, inplace=True)"),
    ("ELU()", "ELU(alpha=1.0)"), ("ELU(0.5, inplace=True)", "ELU(alpha=0.5, inplace=True)"),
    ("CELU(2.0)", "CELU(alpha=2.0)"), ("SELU(True)", "SELU(inplace=True)"),
    ("GELU()", "GELU(approximate='none')"), ("GELU('tanh')", "GELU(approximate='tanh')"),
    ("SiLU()", "SiLU()"), ("Mish(inplace=True)", "Mish(inplace=True)"), ("Sigmoid()", "Sigmoid()"),
    ("Tanh()", "Tanh()"), ("Softmax(dim=1)", "Softmax(dim=1)"), ("Softmin(0)", "Softmin(dim=0)"),
    ("LogSoftmax(-1)", "LogSoftmax(dim=-1)"), ("Softplus()", "Softplus(beta=1.0, threshold=20.0)"),
    ("Softplus(2, 5)", "Softplus(beta=2, threshold=5)"),
    ("Hardtanh()", "Hardtanh(min_val=-1.0, max_val=1.0)"),
    ("Hardtanh(-2, 3, True)", "Hardtanh(min_val=-2, max_val=3, inplace=True)"),
    ("ReLU6()", "ReLU6()"), ("ReLU6(True)", "ReLU6(inplace=True)"),
    ("Threshold(0.1, 20)", "Threshold(threshold=0.1, value=20)"),
    ("Threshold(0.5, -1.0, True)", "Threshold(threshold=0.5, value=-1.0, inplace=True)"),
    ("Hardsigmoid()", "Hardsigmoid()"), ("Hardsigmoid(True)", "Hardsigmoid()"),
    ("Hardswish()", "Hardswish()"), ("Hardswish(inplace=True)", "Hardswish()"),
    ("Hardshrink()", "Hardshrink(0.5)"), ("Hardshrink(1)", "Hardshrink(1)"),
    ("Softshrink()", "Softshrink(0.5)"), ("Softshrink(2.0)", "Softshrink(2.0)"),
    ("LogSigmoid()", "LogSigmoid()"), ("Tanhshrink()", "Tanhshrink()"),
    ("Softsign()", "Softsign()"),
]  # fmt: skip


@pytest.mark.parametrize("expr, text", MODULES)
def test_modules_print_and_compute_as_torch(expr, text):
    v_module, t_module = eval("vg.nn." + expr), eval("torch.nn." + expr)
    assert repr(v_module) == repr(t_module) == text
    assert list(v_module.parameters()) == []
    v, t = make_pair((3, 4), "float64", seed=9)
    v_in, t_in = v.clone(), t.clone()
    v_out, t_out = v_module(v_in), t_module(t_in)
    assert_same(v_out, t_out)
    assert (v_out is v_in) == (t_out is t_in)  # an inplace module returns its input


def test_module_gradients_flow_as_in_torch():
    data = np.random.default_rng(2).uniform(-3, 3, (4, 5))
    for expr in ("LeakyReLU(0.3)", "GELU('tanh')", "Softplus(3, 4)", "LogSoftmax(1)", "Mish()",
                 "Threshold(0.2, 1.0)", "Hardsigmoid()", "Hardswish()", "Hardshrink(0.3)",
                 "Softshrink(0.3)", "LogSigmoid()", "Tanhshrink()", "Softsign()"):  # fmt: skip
        v, t = vg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
        v_out, t_out = eval("vg.nn." + expr)(v), eval("torch.nn." + expr)(t)
        assert v_out.grad_fn.name() == type(t_out.grad_fn).__name__
        v_out.pow(2).sum().backward()
        t_out.pow(2).sum().backward()
        assert_same(v.grad, t.grad)


def test_hardtanh_module_checks_its_limits_and_old_keywords():
    assert_same_error(lambda: vg.nn.Hardtanh(1, 1), lambda: torch.nn.Hardtanh(1, 1))
    with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
        module = vg.nn.Hardtanh(min_value=-3)
    assert module.min_val == -3

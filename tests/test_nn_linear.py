"""F.linear, F.bilinear, _trilinear and the Identity/Linear/Bilinear modules against
PyTorch: values, the graph torch records, gradients, default initialisation, reprs and
errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from grad_oracle import check_gradients
from oracle import assert_same, assert_same_error, make_pair

import vizgrad as vg
import vizgrad.nn.functional as F


def graph(node) -> list:
    """Every node name reachable from ``node``, depth first (in next_functions order)."""
    if node is None:
        return [None]
    name = node.name() if hasattr(node, "name") and callable(node.name) else None
    name = name or type(node).__name__
    name = "AccumulateGrad" if "AccumulateGrad" in name else name
    return [name, [graph(child) for child, _ in node.next_functions]]


@pytest.mark.parametrize("shape", [(4,), (2, 4), (2, 3, 4), (2, 3, 5, 4), (0, 4), (2, 0, 4)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_linear_records_torchs_graph_and_gradients(shape, bias, layout):
    shapes = [shape, (5, 4)] + ([(5,)] if bias else [])
    layouts = [layout, "contiguous", "contiguous"][: len(shapes)]

    pairs = [
        make_pair(s, "float64", lay, seed=i)
        for i, (s, lay) in enumerate(zip(shapes, layouts, strict=True))
    ]
    v_in = [v.detach().requires_grad_() for v, _ in pairs]
    t_in = [t.detach().requires_grad_() for _, t in pairs]
    v_out, t_out = F.linear(*v_in), TF.linear(*t_in)
    assert_same(v_out.detach(), t_out.detach())
    assert graph(v_out.grad_fn) == graph(t_out.grad_fn)
    upstream = np.random.default_rng(1).standard_normal(tuple(t_out.shape))
    v_out.backward(vg.tensor(upstream))
    t_out.backward(torch.tensor(upstream))
    for v, t in zip(v_in, t_in, strict=True):
        assert_same(v.grad, t.grad)


def test_linear_gradients_pass_finite_differences():
    for shapes in ([(3, 4), (5, 4), (5,)], [(2, 3, 4), (5, 4), (5,)], [(4,), (5, 4)]):
        check_gradients(F.linear, TF.linear, shapes)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_linear_keeps_the_dtype(dtype):
    (x, tx), (w, tw), (b, tb) = (make_pair(s, dtype, seed=i) for i, s in
                                 enumerate([(3, 4), (2, 4), (2,)]))  # fmt: skip
    assert_same(F.linear(x, w, b), TF.linear(tx, tw, tb), rtol=1e-2, atol=1e-2)


def test_linear_out_writes_like_torch():
    (x, tx), (w, tw), (b, tb) = (make_pair(s, "float64", seed=i) for i, s in
                                 enumerate([(3, 4), (2, 4), (2,)]))  # fmt: skip
    out, t_out = vg.empty(0, dtype=vg.float64), torch.empty(0, dtype=torch.float64)
    assert_same(F.linear(x, w, b, out=out), TF.linear(tx, tw, tb, out=t_out))
    assert_same(out, t_out)
    x3, tx3 = make_pair((2, 3, 4), "float64")
    out, t_out = vg.empty(2, 3, 2, dtype=vg.float64), torch.empty(2, 3, 2, dtype=torch.float64)
    assert_same(F.linear(x3, w, b, out=out), TF.linear(tx3, tw, tb, out=t_out))
    assert_same(out, t_out)


@pytest.mark.parametrize(
    "call",
    ["F.linear(lib.ones(2, 3), lib.ones(5, 4), lib.ones(5))",
     "F.linear(lib.ones(2, 3), lib.ones(5, 4))",
     "F.linear(lib.ones(2, 6, 3), lib.ones(5, 4), lib.ones(5))",
     "F.linear(lib.ones(3), lib.ones(5, 4))",
     "F.linear(lib.tensor(1.), lib.ones(5, 4))",
     "F.linear(lib.ones(2, 4), lib.ones(5, 4, dtype=lib.float64))",
     "F.linear(lib.ones(2, 4), lib.ones(5, 4), lib.ones(3))",
     "F.linear(lib.ones(2, 4), 'w')",
     "F.linear(lib.ones(2, 4))"],
)  # fmt: skip
def test_linear_errors_are_torchs(call):
    assert_same_error(lambda: eval(call, {"F": F, "lib": vg}),
                      lambda: eval(call, {"F": TF, "lib": torch}))  # fmt: skip


@pytest.mark.parametrize("batch", [(3,), (2, 3), (0,), ()])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_matches_torch(batch, bias):
    shapes = [(*batch, 4), (*batch, 5), (3, 4, 5)] + ([(3,)] if bias else [])
    pairs = [make_pair(s, "float64", seed=i) for i, s in enumerate(shapes)]
    v_in = [v.detach().requires_grad_() for v, _ in pairs]
    t_in = [t.detach().requires_grad_() for _, t in pairs]
    v_out, t_out = F.bilinear(*v_in), TF.bilinear(*t_in)
    assert_same(v_out.detach(), t_out.detach())
    assert graph(v_out.grad_fn) == graph(t_out.grad_fn)
    v_out.sum().backward()
    t_out.sum().backward()
    for v, t in zip(v_in, t_in, strict=True):
        assert_same(v.grad, t.grad)


def test_bilinear_and_trilinear_pass_finite_differences():
    check_gradients(F.bilinear, TF.bilinear, [(3, 4), (3, 2), (5, 4, 2), (5,)],
                    grad_fn_name="AddBackward0")  # fmt: skip

    def trilinear(lib):
        return lambda a, b, c: lib._trilinear(a, b, c, [1, 3], [0], [1, 2], [2, 3])

    check_gradients(trilinear(vg.ops.linear), trilinear(torch), [(3, 4), (2, 4, 5), (3, 5)],
                    grad_fn_name="TrilinearBackward0")  # fmt: skip


def test_trilinear_double_backward_matches_torch():
    data = [np.random.default_rng(i).standard_normal(s) for i, s in
            enumerate([(3, 4), (2, 4, 5), (3, 5)])]  # fmt: skip

    def run(lib, trilinear):
        xs = [lib.tensor(d, requires_grad=True) for d in data]
        out = trilinear(*xs, [1, 3], [0], [1, 2], [2, 3])
        grads = lib.autograd.grad(out.pow(2).sum(), xs, create_graph=True)
        return lib.autograd.grad(sum(g.sum() for g in grads), xs)

    for v, t in zip(run(vg, vg.ops.linear._trilinear), run(torch, torch._trilinear), strict=True):
        assert_same(v, t)


@pytest.mark.parametrize(
    "call",
    ["lib.bilinear(lib.ones(2, 4), lib.ones(2, 5, dtype=lib.float64), lib.ones(3, 4, 5))",
     "lib.bilinear(lib.ones(2, 4), lib.ones(2, 5), lib.ones(3, 4, 5), lib.ones(3, dtype=lib.float16))",
     "lib.bilinear(lib.ones(2, 4), lib.ones(5), lib.ones(3, 4, 5))",
     "lib.bilinear(lib.ones(2, 4), lib.ones(3, 5), lib.ones(3, 4, 5))",
     "lib.bilinear(lib.ones(2, 3), lib.ones(2, 5), lib.ones(3, 4, 5))",
     "lib.bilinear(lib.ones(2, 4), lib.ones(2, 6), lib.ones(3, 4, 5))",
     "lib.bilinear(lib.ones(2, 4), lib.ones(2, 5), lib.ones(3, 4, 5), lib.ones(2))"],
)  # fmt: skip
def test_bilinear_errors_are_torchs(call):
    assert_same_error(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))


# --- modules -----------------------------------------------------------------------------


def test_linear_module_prints_registers_and_computes_as_torch():
    v_module, t_module = vg.nn.Linear(4, 3), torch.nn.Linear(4, 3)
    assert repr(v_module) == repr(t_module) == "Linear(in_features=4, out_features=3, bias=True)"
    assert repr(vg.nn.Linear(2, 1, bias=False)) == repr(torch.nn.Linear(2, 1, bias=False))
    assert [n for n, _ in v_module.named_parameters()] == ["weight", "bias"]
    assert vg.nn.Linear(2, 1, bias=False).bias is None
    with torch.no_grad():  # the same weights in both
        t_module.weight.copy_(torch.from_numpy(v_module.weight.detach().numpy()))
        t_module.bias.copy_(torch.from_numpy(v_module.bias.detach().numpy()))
    x, tx = make_pair((2, 5, 4), "float32", seed=4)
    v_out, t_out = v_module(x), t_module(tx)
    assert_same(v_out.detach(), t_out.detach())
    assert v_out.grad_fn.name() == type(t_out.grad_fn).__name__
    v_out.sum().backward()
    t_out.sum().backward()
    assert_same(v_module.weight.grad, t_module.weight.grad)
    assert_same(v_module.bias.grad, t_module.bias.grad)


@pytest.mark.parametrize("in_features, out_features", [(1, 1), (16, 8), (100, 3), (0, 2)])
def test_linear_default_initialisation_is_torchs_distribution(in_features, out_features):
    vg.manual_seed(0)
    module = vg.nn.Linear(in_features, out_features)
    weight, bias = module.weight.detach().numpy(), module.bias.detach().numpy()
    # kaiming_uniform_(a=sqrt(5)): gain sqrt(2 / 6), bound gain * sqrt(3 / fan_in).
    bound = 1 / math.sqrt(in_features) if in_features else 0
    assert weight.shape == (out_features, in_features) and weight.dtype == np.float32
    assert np.all(np.abs(weight) <= bound + 1e-7) and np.all(np.abs(bias) <= bound + 1e-7)
    if in_features >= 16:  # enough draws to see they spread over the bound, not a point
        assert np.abs(weight).max() > 0.8 * bound and weight.std() > 0.4 * bound
    vg.manual_seed(0)
    again = vg.nn.Linear(in_features, out_features)
    np.testing.assert_array_equal(again.weight.detach().numpy(), weight)


def test_linear_uniform_bound_matches_torchs_statistics():
    vg.manual_seed(1)
    torch.manual_seed(1)
    v = vg.nn.Linear(400, 300).weight.detach().numpy()
    t = torch.nn.Linear(400, 300).weight.detach().numpy()
    assert abs(v.std() - t.std()) < 0.02 * t.std()
    assert abs(np.abs(v).max() - np.abs(t).max()) < 1e-3


def test_linear_factory_options_and_reset_parameters():
    module = vg.nn.Linear(3, 2, dtype=vg.float64)
    assert module.weight.dtype == vg.float64 and module.bias.dtype == vg.float64
    before = module.weight.detach().clone()
    module.reset_parameters()
    assert not vg.equal(before, module.weight.detach())
    assert module.weight.requires_grad and module.weight.is_leaf


def test_linear_module_with_wrong_features_raises_torchs_error():
    assert_same_error(lambda: vg.nn.Linear(4, 5)(vg.ones(2, 3)),
                      lambda: torch.nn.Linear(4, 5)(torch.ones(2, 3)))  # fmt: skip


def test_bilinear_module():
    v_module, t_module = vg.nn.Bilinear(3, 4, 2), torch.nn.Bilinear(3, 4, 2)
    assert repr(v_module) == repr(t_module)
    assert repr(vg.nn.Bilinear(1, 2, 3, bias=False)) == repr(torch.nn.Bilinear(1, 2, 3, bias=False))
    bound = 1 / math.sqrt(3)
    assert float(v_module.weight.abs().max()) <= bound and float(v_module.bias.abs().max()) <= bound
    with torch.no_grad():
        t_module.weight.copy_(torch.from_numpy(v_module.weight.detach().numpy()))
        t_module.bias.copy_(torch.from_numpy(v_module.bias.detach().numpy()))
    (a, ta), (b, tb) = make_pair((5, 3), "float32", seed=1), make_pair((5, 4), "float32", seed=2)
    assert_same(v_module(a, b).detach(), t_module(ta, tb).detach())
    assert_same_error(lambda: vg.nn.Bilinear(0, 2, 3), lambda: torch.nn.Bilinear(0, 2, 3))


def test_identity_returns_its_input_and_ignores_arguments():
    module = vg.nn.Identity(54, unused="argument")
    assert repr(module) == repr(torch.nn.Identity(54, unused="argument")) == "Identity()"
    x = vg.ones(2)
    assert module(x) is x

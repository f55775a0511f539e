"""Batch, layer, group and instance normalisation against PyTorch: the operators
(``native_batch_norm``…), the functions (``F.batch_norm``…) and the modules
(``BatchNorm1d``…): values, running statistics, gradients, nodes, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from grad_oracle import check_gradients
from oracle import assert_same, assert_same_error, make_pair

import vizgrad as vg
import vizgrad.nn.functional as F


def vg_copy(t: torch.Tensor) -> vg.Tensor:
    """A vizgrad tensor with a torch tensor's values (a copy)."""
    return vg.from_numpy(t.detach().numpy().copy())


def stats_pair(channels, dtype="float64", seed=7):
    """Running statistics, the same in both libraries (variance positive)."""
    rng = np.random.default_rng(seed)
    mean = rng.standard_normal(channels).astype(dtype)
    var = rng.uniform(0.5, 2.0, channels).astype(dtype)
    return (vg.from_numpy(mean.copy()), vg.from_numpy(var.copy()),
            torch.from_numpy(mean.copy()), torch.from_numpy(var.copy()))  # fmt: skip


def channels_last_pair(shape, dtype="float32", seed=0):
    v, t = make_pair(shape, dtype, seed=seed)
    return v.contiguous(memory_format=vg.channels_last), t.contiguous(
        memory_format=torch.channels_last
    )


# --- batch norm: the operator and F.batch_norm -----------------------------------------------

BATCH_SHAPES = [(4, 3), (5, 3, 4), (2, 3, 4, 5), (2, 3, 2, 2, 3)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("shape", BATCH_SHAPES)
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_values_and_running_stats(shape, layout, dtype, training, affine):
    x, tx = make_pair(shape, dtype, layout, seed=1)
    rm, rv, trm, trv = stats_pair(shape[1], dtype)
    (w, tw), (b, tb) = make_pair((3,), dtype, seed=2), make_pair((3,), dtype, seed=3)
    if not affine:
        w = tw = b = tb = None
    out = F.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3, eps=1e-3)
    expected = TF.batch_norm(tx, trm, trv, tw, tb, training=training, momentum=0.3, eps=1e-3)
    assert_same(out, expected)
    # Training updates the running statistics in place (the unbiased variance), without a
    # version bump; evaluation leaves them.
    assert_same(rm, trm)
    assert_same(rv, trv)
    assert rm._version == trm._version


def test_batch_norm_keeps_channels_last():
    x, tx = channels_last_pair((2, 3, 4, 5))
    assert_same(F.batch_norm(x, None, None, training=True),
                TF.batch_norm(tx, None, None, training=True))  # fmt: skip


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm_returns_the_saved_statistics(training):
    x, tx = make_pair((6, 3, 2), "float64", seed=4)
    rm, rv, trm, trv = stats_pair(3)
    result = vg.native_batch_norm(x, None, None, rm, rv, training, 0.1, 1e-5)
    expected = torch.native_batch_norm(tx, None, None, trm, trv, training, 0.1, 1e-5)
    assert_same(result, expected)


def test_batch_norm_without_running_stats_in_training():
    x, tx = make_pair((6, 3, 2), "float32", seed=4)
    result = vg.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    assert_same(result, torch.native_batch_norm(tx, None, None, None, None, True, 0.1, 1e-5))


def test_batch_norm_half_input_with_float_parameters():
    x, tx = make_pair((6, 3), "float16", seed=4)
    rm, rv, trm, trv = stats_pair(3, "float32")
    result = vg.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)
    expected = torch.native_batch_norm(tx, None, None, trm, trv, True, 0.1, 1e-5)
    assert_same(result, expected, rtol=2e-3, atol=2e-3)


def test_batch_norm_records_torchs_operators():
    x, mean, var = vg.randn(4, 3, requires_grad=True), vg.zeros(3), vg.ones(3)
    with vg.dispatch_trace() as trace:
        out = F.batch_norm(x, mean, var, training=True)
    calls = [line for line in trace.lines() if "[call]" in line]
    assert [line.split("op=[")[1].split("]")[0] for line in calls][:3] == [
        "aten::batch_norm", "aten::_batch_norm_impl_index", "aten::native_batch_norm",
    ]  # fmt: skip
    assert out.grad_fn.name() == "NativeBatchNormBackward0"
    node = out.grad_fn
    assert node._saved_training is True and node._saved_eps == 1e-5
    assert tuple(node._saved_result1.shape) == (3,)


def test_batch_norm_of_an_empty_batch():
    # No statistics to take: a recorded copy, scaled and shifted by the first weight and bias.
    x, tx = make_pair((0, 3), "float32")
    x.requires_grad_(), tx.requires_grad_()
    (w, tw), (b, tb) = make_pair((3,), "float32", seed=1), make_pair((3,), "float32", seed=2)
    out = F.batch_norm(x, None, None, w, b, training=True)
    expected = TF.batch_norm(tx, None, None, tw, tb, training=True)
    assert_same(out, expected)
    assert out.grad_fn.name() == expected.grad_fn.name() == "AddBackward0"
    assert F.batch_norm(x, None, None, training=True).grad_fn.name() == "CloneBackward0"


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 3), (2, 3, 2, 3)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_batch_norm_training_gradients(shape, layout):
    check_gradients(
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        lambda x, w, b: TF.batch_norm(x, None, None, w, b, training=True),
        [shape, (3,), (3,)], layouts=[layout, "contiguous", "contiguous"],
        grad_fn_name="NativeBatchNormBackward0",
    )  # fmt: skip


def test_batch_norm_evaluation_gradients():
    rm, rv, trm, trv = stats_pair(3)
    check_gradients(
        lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=False),
        lambda x, w, b: TF.batch_norm(x, trm, trv, w, b, training=False),
        [(4, 3, 2), (3,), (3,)], grad_fn_name="NativeBatchNormBackward0",
    )  # fmt: skip


def test_batch_norm_gradient_without_affine():
    check_gradients(lambda x: F.batch_norm(x, None, None, training=True),
                    lambda x: TF.batch_norm(x, None, None, training=True), [(4, 3, 2)])  # fmt: skip


def test_batch_norm_gradient_of_weight_only():
    # Only the weight needs a gradient: the input's edge is empty.
    x, tx = make_pair((4, 3), "float64", seed=1)
    w, tw = make_pair((3,), "float64", seed=2)
    w.requires_grad_(), tw.requires_grad_()
    F.batch_norm(x, None, None, w, training=True).pow(2).sum().backward()
    TF.batch_norm(tx, None, None, tw, training=True).pow(2).sum().backward()
    assert_same(w.grad, tw.grad)


BATCH_NORM_ERRORS = [
    ("running_mean must be defined", lambda m, x, s: m.batch_norm(x(4, 3), None, None, None, None, False, 0.1, 1e-5, False)),  # noqa: E501
    ("running_var must be defined", lambda m, x, s: m.batch_norm(x(4, 3), None, None, s(3), None, False, 0.1, 1e-5, False)),  # noqa: E501
    ("running_mean size", lambda m, x, s: m.batch_norm(x(4, 3), None, None, s(2), s(3), True, 0.1, 1e-5, False)),  # noqa: E501
    ("running_var size", lambda m, x, s: m.batch_norm(x(4, 3), None, None, s(3), s(2), True, 0.1, 1e-5, False)),  # noqa: E501
    ("weight size", lambda m, x, s: m.batch_norm(x(4, 3), s(2), None, s(3), s(3), True, 0.1, 1e-5, False)),  # noqa: E501
    ("bias size", lambda m, x, s: m.batch_norm(x(4, 3), None, s(2), s(3), s(3), True, 0.1, 1e-5, False)),  # noqa: E501
    ("integer input", lambda m, x, s: m.batch_norm(x(4, 3).long(), None, None, None, None, True, 0.1, 1e-5, False)),  # noqa: E501
    ("double parameter", lambda m, x, s: m.batch_norm(x(4, 3), None, None, s(3).double(), s(3), True, 0.1, 1e-5, False)),  # noqa: E501
    ("double input", lambda m, x, s: m.batch_norm(x(4, 3).double(), None, None, s(3), s(3), True, 0.1, 1e-5, False)),  # noqa: E501
    ("empty native", lambda m, x, s: m.native_batch_norm(x(0, 3), None, None, None, None, True, 0.1, 1e-5)),  # noqa: E501
]  # fmt: skip


@pytest.mark.parametrize("call", [c for _, c in BATCH_NORM_ERRORS],
                         ids=[i for i, _ in BATCH_NORM_ERRORS])  # fmt: skip
def test_batch_norm_errors(call):
    assert_same_error(
        lambda: call(vg, vg.randn, vg.ones), lambda: call(torch, torch.randn, torch.ones)
    )


@pytest.mark.parametrize(
    "args",
    [
        dict(shape=(1, 3), training=True),
        dict(shape=(1, 3, 1), training=True),
        dict(shape=(4, 3), training=True, eps=0.0),
        dict(shape=(4, 3), training=False, eps=-1.0),
    ],
)
def test_functional_batch_norm_python_checks(args):
    shape, training, eps = args["shape"], args["training"], args.get("eps", 1e-5)
    assert_same_error(
        lambda: F.batch_norm(vg.randn(*shape), vg.zeros(3), vg.ones(3), training=training, eps=eps),
        lambda: TF.batch_norm(torch.randn(*shape), torch.zeros(3), torch.ones(3),
                              training=training, eps=eps),
    )  # fmt: skip


# --- layer norm ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("normalized", [(5,), (4, 5)])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_values(normalized, layout, dtype, affine):
    x, tx = make_pair((3, 4, 5), dtype, layout, seed=1)
    (w, tw), (b, tb) = make_pair(normalized, dtype, seed=2), make_pair(normalized, dtype, seed=3)
    if not affine:
        w = tw = b = tb = None
    assert_same(F.layer_norm(x, normalized, w, b, eps=1e-3),
                TF.layer_norm(tx, normalized, tw, tb, eps=1e-3))  # fmt: skip
    assert_same(vg.native_layer_norm(x, normalized, w, b, 1e-5),
                torch.native_layer_norm(tx, normalized, tw, tb, 1e-5))  # fmt: skip


@pytest.mark.parametrize("shape", [(0, 5), (5,), (2, 3, 0)])
def test_layer_norm_edge_shapes(shape):
    x, tx = make_pair(shape, "float32")
    assert_same(vg.native_layer_norm(x, shape[-1:], None, None, 1e-5)[0].shape,
                torch.native_layer_norm(tx, shape[-1:], None, None, 1e-5)[0].shape)  # fmt: skip
    if 0 not in shape[-1:]:
        assert_same(F.layer_norm(x, shape[-1:]), TF.layer_norm(tx, shape[-1:]))


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("normalized", [(4,), (3, 4)])
def test_layer_norm_gradients(normalized, layout):
    check_gradients(
        lambda x, w, b: F.layer_norm(x, normalized, w, b),
        lambda x, w, b: TF.layer_norm(x, normalized, w, b),
        [(2, 3, 4), normalized, normalized], layouts=[layout, "contiguous", "contiguous"],
        grad_fn_name="NativeLayerNormBackward0",
    )  # fmt: skip


def test_layer_norm_gradient_without_affine_and_saved_names():
    check_gradients(lambda x: F.layer_norm(x, (4,)), lambda x: TF.layer_norm(x, (4,)), [(3, 4)])
    x = vg.randn(3, 4, requires_grad=True)
    node = F.layer_norm(x, (4,)).grad_fn
    assert node._saved_normalized_shape == [4] or tuple(node._saved_normalized_shape) == (4,)
    assert tuple(node._saved_result2.shape) == (3, 1)


LAYER_NORM_ERRORS = [
    lambda m, F: F.layer_norm(m.randn(4, 3, 5), (4,)),
    lambda m, F: F.layer_norm(m.randn(4, 3, 5), (5,), m.ones(4)),
    lambda m, F: F.layer_norm(m.randn(4, 3, 5), (5,), None, m.ones(4)),
    lambda m, F: F.layer_norm(m.randn(4, 3, 5), ()),
    lambda m, F: F.layer_norm(m.randn(4, 3, 5), (1, 4, 3, 5)),
    lambda m, F: F.layer_norm(m.randn(4, 3, 5), 5),
    lambda m, F: F.layer_norm(m.randn(4, 3, 5).int(), (5,)),
    lambda m, F: F.layer_norm(m.randn(4, 3, 5).double(), (5,), m.ones(5)),
    lambda m, F: F.layer_norm(m.randn(4, 3, 5), (5,), m.ones(1, 5)),
]


@pytest.mark.parametrize("call", LAYER_NORM_ERRORS)
def test_layer_norm_errors(call):
    assert_same_error(lambda: call(vg, F), lambda: call(torch, TF))


# --- group norm ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 6), (2, 6, 5), (2, 6, 3, 2)])
@pytest.mark.parametrize("groups", [1, 2, 3, 6])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_values(shape, groups, dtype, affine):
    # One element per group: x - mean is rounding noise, divided by sqrt(eps) ~ 3e-3, so
    # both results are the bias up to that noise, not equal to each other bit for bit.
    degenerate = {"atol": 1e-2, "rtol": 0} if len(shape) == 2 and groups == 6 else {}
    x, tx = make_pair(shape, dtype, "transposed", seed=1)
    (w, tw), (b, tb) = make_pair((6,), dtype, seed=2), make_pair((6,), dtype, seed=3)
    if not affine:
        w = tw = b = tb = None
    assert_same(F.group_norm(x, groups, w, b), TF.group_norm(tx, groups, tw, tb), **degenerate)
    n, c = shape[0], shape[1]
    hxw = int(np.prod(shape[2:]))
    xc, txc = x.contiguous(), tx.contiguous()
    assert_same(vg.native_group_norm(xc, w, b, n, c, hxw, groups, 1e-5),
                torch.native_group_norm(txc, tw, tb, n, c, hxw, groups, 1e-5), **degenerate)  # fmt: skip


def test_group_norm_keeps_channels_last_and_empty_batches():
    x, tx = channels_last_pair((2, 6, 3, 2))
    assert_same(F.group_norm(x, 3), TF.group_norm(tx, 3))
    e, te = make_pair((0, 6, 2, 2), "float32")
    assert_same(F.group_norm(e, 3), TF.group_norm(te, 3))


@pytest.mark.parametrize("shape", [(4, 6), (2, 6, 3), (2, 6, 2, 3)])
def test_group_norm_gradients(shape):
    check_gradients(
        lambda x, w, b: F.group_norm(x, 3, w, b), lambda x, w, b: TF.group_norm(x, 3, w, b),
        [shape, (6,), (6,)], grad_fn_name="NativeGroupNormBackward0",
    )  # fmt: skip


def test_group_norm_gradient_through_channels_last():
    x, tx = channels_last_pair((2, 4, 3, 2), "float64", seed=5)
    x.requires_grad_(), tx.requires_grad_()
    F.group_norm(x, 2).pow(3).sum().backward()
    TF.group_norm(tx, 2).pow(3).sum().backward()
    assert_same(x.grad, tx.grad)


GROUP_NORM_ERRORS = [
    lambda m, F: F.group_norm(m.randn(4, 3, 5), 2),
    lambda m, F: F.group_norm(m.randn(4, 3, 5), 0),
    lambda m, F: F.group_norm(m.randn(4, 3, 5), 3, m.ones(2)),
    lambda m, F: F.group_norm(m.randn(4, 3, 5), 3, None, m.ones(2)),
    lambda m, F: F.group_norm(m.randn(3), 1),
    lambda m, F: F.group_norm(m.randn(1, 3), 3),
    lambda m, F: F.group_norm(m.randn(4, 3, 5).int(), 3),
    lambda m, F: F.group_norm(m.randn(4, 3, 5).double(), 3, m.ones(3)),
    lambda m, F: m.group_norm(m.randn(4, 3, 5), 3, m.ones(3), m.ones(2)),
    lambda m, F: m.group_norm(m.randn(4, 3, 5), 0),
]


@pytest.mark.parametrize("call", GROUP_NORM_ERRORS)
def test_group_norm_errors(call):
    assert_same_error(lambda: call(vg, F), lambda: call(torch, TF))


# --- instance norm ---------------------------------------------------------------------------


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm_values_and_running_stats(use_input_stats):
    x, tx = make_pair((2, 3, 5), "float64", seed=1)
    rm, rv, trm, trv = stats_pair(3)
    (w, tw), (b, tb) = make_pair((3,), "float64", seed=2), make_pair((3,), "float64", seed=3)
    assert_same(F.instance_norm(x, rm, rv, w, b, use_input_stats, 0.2),
                TF.instance_norm(tx, trm, trv, tw, tb, use_input_stats, 0.2))  # fmt: skip
    assert_same(rm, trm)
    assert_same(rv, trv)


def test_instance_norm_gradient_and_errors():
    check_gradients(lambda x: F.instance_norm(x), lambda x: TF.instance_norm(x), [(2, 3, 4)])
    assert_same_error(lambda: F.instance_norm(vg.randn(4, 3, 5), use_input_stats=False),
                      lambda: TF.instance_norm(torch.randn(4, 3, 5), use_input_stats=False))  # fmt: skip
    assert_same_error(lambda: F.instance_norm(vg.randn(4, 3, 1)),
                      lambda: TF.instance_norm(torch.randn(4, 3, 1)))  # fmt: skip


# --- modules ---------------------------------------------------------------------------------


def load_torch_state(module: vg.nn.Module, torch_module: torch.nn.Module) -> None:
    module.load_state_dict({k: vg_copy(v) for k, v in torch_module.state_dict().items()})


BATCH_NORMS = [
    ("BatchNorm1d", (6, 3)),
    ("BatchNorm1d", (6, 3, 4)),
    ("BatchNorm2d", (4, 3, 2, 3)),
    ("BatchNorm3d", (2, 3, 2, 2, 3)),
]


@pytest.mark.parametrize("name,shape", BATCH_NORMS)
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_module_trains_then_evaluates_like_torch(name, shape, momentum):
    torch.manual_seed(0)
    reference = getattr(torch.nn, name)(3, momentum=momentum).double()
    with torch.no_grad():
        reference.weight.uniform_(0.5, 1.5)
        reference.bias.uniform_(-1, 1)
    module = getattr(vg.nn, name)(3, momentum=momentum).double()
    load_torch_state(module, reference)
    for step in range(3):
        x, tx = make_pair(shape, "float64", seed=10 + step)
        x.requires_grad_(), tx.requires_grad_()
        out, expected = module(x), reference(tx)
        assert_same(out, expected)
        assert out.grad_fn.name() == expected.grad_fn.name()
        out.pow(2).sum().backward()
        expected.pow(2).sum().backward()
        assert_same(x.grad, tx.grad)
    assert_same(module.weight.grad, reference.weight.grad)
    assert_same(module.bias.grad, reference.bias.grad)
    for buffer in ("running_mean", "running_var", "num_batches_tracked"):
        assert_same(getattr(module, buffer), getattr(reference, buffer))
    module.eval(), reference.eval()
    x, tx = make_pair(shape, "float64", seed=20)
    assert_same(module(x), reference(tx))
    assert_same(module.num_batches_tracked, reference.num_batches_tracked)


@pytest.mark.parametrize("kwargs", [dict(affine=False), dict(track_running_stats=False),
                                    dict(bias=False), dict(eps=1e-3, momentum=0.5)])  # fmt: skip
def test_batch_norm_module_options(kwargs):
    reference, module = torch.nn.BatchNorm1d(3, **kwargs), vg.nn.BatchNorm1d(3, **kwargs)
    assert repr(module) == repr(reference)
    assert list(module.state_dict()) == list(reference.state_dict())
    assert [n for n, _ in module.named_parameters()] == [n for n, _ in reference.named_parameters()]
    for training in (True, False):
        module.train(training), reference.train(training)
        x, tx = make_pair((5, 3), "float32", seed=3)
        assert_same(module(x), reference(tx))


def test_batch_norm_module_state_and_reset():
    module, reference = vg.nn.BatchNorm2d(4), torch.nn.BatchNorm2d(4)
    assert list(module.state_dict()) == list(reference.state_dict())
    assert module.num_batches_tracked.dtype == vg.int64
    assert_same(module.running_var, reference.running_var)
    assert_same(module.weight.detach(), reference.weight.detach())
    assert_same(module.bias.detach(), reference.bias.detach())
    module(vg.randn(3, 4, 2, 2))
    assert module.num_batches_tracked.item() == 1
    module.reset_running_stats()
    assert module.num_batches_tracked.item() == 0
    assert_same(module.running_mean, reference.running_mean)
    assert_same(module.running_var, reference.running_var)


def test_batch_norm_module_loads_a_version_1_state():
    # A state saved before num_batches_tracked existed keeps the module's counter.
    module = vg.nn.BatchNorm1d(3)
    module.num_batches_tracked.fill_(5)
    state = module.state_dict()
    del state["num_batches_tracked"]
    state._metadata[""]["version"] = 1
    module.load_state_dict(state)
    assert module.num_batches_tracked.item() == 5


@pytest.mark.parametrize("name,bad", [("BatchNorm1d", (2, 3, 4, 5)), ("BatchNorm1d", (3,)),
                                      ("BatchNorm2d", (2, 3, 4)), ("BatchNorm3d", (2, 3, 4, 5))])  # fmt: skip
def test_batch_norm_module_input_dimension_errors(name, bad):
    assert_same_error(lambda: getattr(vg.nn, name)(3)(vg.randn(*bad)),
                      lambda: getattr(torch.nn, name)(3)(torch.randn(*bad)))  # fmt: skip


def test_batch_norm_module_needs_more_than_one_value_per_channel():
    assert_same_error(lambda: vg.nn.BatchNorm1d(3)(vg.randn(1, 3)),
                      lambda: torch.nn.BatchNorm1d(3)(torch.randn(1, 3)))  # fmt: skip
    module = vg.nn.BatchNorm1d(3).eval()
    assert tuple(module(vg.randn(1, 3)).shape) == (1, 3)


@pytest.mark.parametrize("kwargs", [dict(), dict(elementwise_affine=False), dict(bias=False),
                                    dict(eps=1e-3)])  # fmt: skip
@pytest.mark.parametrize("shape", [4, (3, 4)])
def test_layer_norm_module(kwargs, shape):
    torch.manual_seed(0)
    reference, module = (
        torch.nn.LayerNorm(shape, **kwargs).double(),
        vg.nn.LayerNorm(shape, **kwargs).double(),
    )  # noqa: E501
    assert repr(module) == repr(reference)
    assert list(module.state_dict()) == list(reference.state_dict())
    if module.weight is not None:
        with torch.no_grad():
            reference.weight.uniform_(0.5, 1.5)
        load_torch_state(module, reference)
    x, tx = make_pair((2, 3, 4), "float64", seed=1)
    x.requires_grad_(), tx.requires_grad_()
    out, expected = module(x), reference(tx)
    assert_same(out, expected)
    out.pow(2).sum().backward()
    expected.pow(2).sum().backward()
    assert_same(x.grad, tx.grad)
    for (name, p), (_, tp) in zip(module.named_parameters(), reference.named_parameters(),
                                  strict=True):  # fmt: skip
        assert_same(p.grad, tp.grad), name


@pytest.mark.parametrize("kwargs", [dict(), dict(affine=False), dict(bias=False)])
def test_group_norm_module(kwargs):
    reference, module = torch.nn.GroupNorm(2, 4, **kwargs), vg.nn.GroupNorm(2, 4, **kwargs)
    assert repr(module) == repr(reference)
    assert list(module.state_dict()) == list(reference.state_dict())
    x, tx = make_pair((3, 4, 5), "float32", seed=1)
    assert_same(module(x), reference(tx))
    assert_same_error(lambda: vg.nn.GroupNorm(3, 4), lambda: torch.nn.GroupNorm(3, 4))


def test_modules_print_in_a_tree():
    module = vg.nn.Sequential(vg.nn.BatchNorm1d(3, momentum=None), vg.nn.LayerNorm([3]))
    reference = torch.nn.Sequential(torch.nn.BatchNorm1d(3, momentum=None), torch.nn.LayerNorm([3]))  # noqa: E501
    assert repr(module) == repr(reference)

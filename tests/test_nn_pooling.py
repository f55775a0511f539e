"""Pooling against PyTorch: max (with indices), average and adaptive average pooling,
1-d and 2-d, their backward nodes, the modules and the errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from grad_oracle import check_gradients
from oracle import assert_same, assert_same_error, make_pair

import vizgrad as vg
import vizgrad.nn.functional as F

POOL2D = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 1), "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
]


@pytest.mark.parametrize("dilation", [1, (2, 1)])
@pytest.mark.parametrize("kwargs", POOL2D)
def test_max_pool2d_values_indices_gradients(kwargs, dilation):
    kwargs = {**kwargs, "dilation": dilation}
    check_gradients(lambda x: F.max_pool2d(x, return_indices=True, **kwargs),
                    lambda x: TF.max_pool2d(x, return_indices=True, **kwargs),
                    [(2, 3, 9, 8)], check_output_strides=True)  # fmt: skip
    v_x, t_x = make_pair((2, 3, 9, 8), "float64")
    assert_same(F.max_pool2d(v_x, return_indices=True, **kwargs),
                TF.max_pool2d(t_x, return_indices=True, **kwargs))  # fmt: skip


def test_max_pool2d_composite_and_unbatched():
    check_gradients(lambda x: F.max_pool2d(x, 2), lambda x: TF.max_pool2d(x, 2), [(3, 6, 5)])
    x = vg.ones(1, 1, 2, 2, requires_grad=True)
    assert vg.max_pool2d(x, 2).grad_fn.name() == "MaxPool2DWithIndicesBackward0"


@pytest.mark.parametrize("layout", ["transposed", "stepped", "offset"])
def test_max_pool2d_strided_input(layout):
    v_x, t_x = make_pair((2, 3, 6, 6), "float32", layout)
    assert_same(F.max_pool2d(v_x, 3, 2, 1, return_indices=True),
                TF.max_pool2d(t_x, 3, 2, 1, return_indices=True))  # fmt: skip


def test_max_pool2d_ties_nan_and_minus_infinity():
    values = np.array([[[[1.0, 1.0, 2.0], [2.0, np.nan, 0.0], [np.nan, 5.0, -np.inf]]]])
    v = F.max_pool2d(vg.tensor(values), 2, 1, return_indices=True)
    t = TF.max_pool2d(torch.tensor(values), 2, 1, return_indices=True)
    assert_same(v, t)
    minus_inf = np.full((1, 1, 3, 3), -np.inf)
    assert_same(F.max_pool2d(vg.tensor(minus_inf), 2, padding=1, return_indices=True),
                TF.max_pool2d(torch.tensor(minus_inf), 2, padding=1, return_indices=True))  # fmt: skip


@pytest.mark.parametrize("dtype", ["float16", "int64", "int8", "uint8"])
def test_max_pool2d_dtypes(dtype):
    v_x, t_x = make_pair((2, 2, 5, 5), dtype)
    assert_same(F.max_pool2d(v_x, 2, padding=1, return_indices=True),
                TF.max_pool2d(t_x, 2, padding=1, return_indices=True))  # fmt: skip


def test_max_pool2d_double_backward():
    x = vg.tensor(np.random.default_rng(0).standard_normal((1, 2, 4, 4)), requires_grad=True)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    (g,) = vg.autograd.grad(F.max_pool2d(x, 2).pow(2).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(TF.max_pool2d(tx, 2).pow(2).sum(), tx, create_graph=True)
    assert_same(g, tg)
    assert g.grad_fn.name() == tg.grad_fn.name()


@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("divisor_override", [None, 3])
@pytest.mark.parametrize("kwargs", POOL2D)
def test_avg_pool2d(kwargs, count_include_pad, divisor_override):
    options = {**kwargs, "count_include_pad": count_include_pad,
               "divisor_override": divisor_override}  # fmt: skip
    check_gradients(lambda x: F.avg_pool2d(x, **options),
                    lambda x: TF.avg_pool2d(x, **options), [(2, 3, 9, 8)],
                    check_output_strides=True)  # fmt: skip


def test_avg_pool2d_dtypes_and_unbatched():
    v_x, t_x = make_pair((2, 5, 5), "int64", low=-9, high=9)
    assert_same(F.avg_pool2d(v_x, 2), TF.avg_pool2d(t_x, 2))  # C++'s truncating division
    v_x, t_x = make_pair((1, 2, 5, 5), "float16")
    assert_same(F.avg_pool2d(v_x, 3, 1, 1), TF.avg_pool2d(t_x, 3, 1, 1), atol=1e-2, rtol=1e-2)
    v_x, t_x = make_pair((1, 2, 5, 5), "int32")
    assert_same_error(lambda: F.avg_pool2d(v_x, 2), lambda: TF.avg_pool2d(t_x, 2))


def test_avg_pool2d_double_backward():
    x = vg.tensor(np.random.default_rng(1).standard_normal((1, 2, 5, 5)), requires_grad=True)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    (g,) = vg.autograd.grad(F.avg_pool2d(x, 3, 2, 1).pow(2).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(TF.avg_pool2d(tx, 3, 2, 1).pow(2).sum(), tx, create_graph=True)
    assert_same(g, tg)
    assert g.grad_fn.name() == tg.grad_fn.name()
    g.sum().backward()
    tg.sum().backward()
    assert_same(x.grad, tx.grad)


@pytest.mark.parametrize("output_size", [3, (1, 1), 1, (4, 5), (9, 8), (2, 1), (None, 3)])
def test_adaptive_avg_pool2d(output_size):
    check_gradients(lambda x: F.adaptive_avg_pool2d(x, output_size),
                    lambda x: TF.adaptive_avg_pool2d(x, output_size), [(2, 3, 9, 8)],
                    check_output_strides=True)  # fmt: skip


@pytest.mark.parametrize("shape", [(2, 3, 4, 4), (1, 3, 1, 1), (2, 1, 4, 4), (2, 3, 1, 5),
                                   (0, 3, 4, 4)])  # fmt: skip
@pytest.mark.parametrize("output_size", [1, (1, 1)])
def test_adaptive_avg_pool2d_to_one_keeps_channels_last(shape, output_size):
    """PyTorch re-strides the plane's mean of a channels-last input to ``(c, 1, c, c)``
    (in place: its ``grad_fn`` is ``AsStridedBackward1``)."""
    values = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    x = vg.tensor(values).to(memory_format=vg.channels_last).requires_grad_()
    tx = torch.tensor(values).to(memory_format=torch.channels_last).requires_grad_()
    y, ty = F.adaptive_avg_pool2d(x, output_size), TF.adaptive_avg_pool2d(tx, output_size)
    assert_same(y, ty)  # values and strides
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    weights = np.arange(y.numel(), dtype=np.float32).reshape(y.shape)
    (y * vg.tensor(weights)).sum().backward()
    (ty * torch.tensor(weights)).sum().backward()
    assert_same(x.grad, tx.grad)


@pytest.mark.parametrize(
    "vg_fn, torch_fn",
    [
        (lambda x: F.max_pool1d(x, 3, 2, 1), lambda x: TF.max_pool1d(x, 3, 2, 1)),
        (lambda x: F.max_pool1d(x, 2, ceil_mode=True, return_indices=True),
         lambda x: TF.max_pool1d(x, 2, ceil_mode=True, return_indices=True)),
        (lambda x: F.avg_pool1d(x, 3, 2, 1), lambda x: TF.avg_pool1d(x, 3, 2, 1)),
        (lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False),
         lambda x: TF.avg_pool1d(x, 3, 2, 1, count_include_pad=False)),
        (lambda x: F.adaptive_avg_pool1d(x, 4), lambda x: TF.adaptive_avg_pool1d(x, 4)),
        (lambda x: F.adaptive_avg_pool1d(x, 1), lambda x: TF.adaptive_avg_pool1d(x, 1)),
    ],
)  # fmt: skip
def test_pool1d(vg_fn, torch_fn):
    check_gradients(vg_fn, torch_fn, [(2, 3, 9)])
    check_gradients(vg_fn, torch_fn, [(3, 9)])


def test_empty_batch():
    v_x, t_x = make_pair((0, 3, 4, 4))
    assert_same(F.max_pool2d(v_x, 2, return_indices=True),
                TF.max_pool2d(t_x, 2, return_indices=True))  # fmt: skip
    assert_same(F.avg_pool2d(v_x, 2), TF.avg_pool2d(t_x, 2))


ERRORS = [
    lambda F, x: F.max_pool2d(x, 2, padding=2),
    lambda F, x: F.max_pool2d(x, 0),
    lambda F, x: F.max_pool2d(x, 2, stride=0),
    lambda F, x: F.max_pool2d(x, 2, dilation=0),
    lambda F, x: F.max_pool2d(x, (2, 2, 2)),
    lambda F, x: F.max_pool2d(x, 2, stride=[1, 1, 1]),
    lambda F, x: F.max_pool2d(x[0, 0], 2),
    lambda F, x: F.max_pool2d(x[:, :, :1, :1], 2),
    lambda F, x: F.max_pool2d(x[:, :0], 2),
    lambda F, x: F.max_pool2d(x.bool(), 2),
    lambda F, x: F.max_pool1d(x[0], 2, padding=2),
    lambda F, x: F.max_pool1d(x, 2),
    lambda F, x: F.max_pool1d(x[0, :, 0, :1], 2),
    lambda F, x: F.avg_pool2d(x, 2, padding=2),
    lambda F, x: F.avg_pool2d(x, 2, divisor_override=0),
    lambda F, x: F.avg_pool2d(x, 2, stride=[1, 1, 1]),
    lambda F, x: F.avg_pool2d(x[0, 0], 2),
    lambda F, x: F.avg_pool2d(x[:, :, :1, :1], 2),
    lambda F, x: F.avg_pool1d(x, 2),
    lambda F, x: F.avg_pool1d(x[0], 2, padding=2),
    lambda F, x: F.adaptive_avg_pool2d(x, -1),
    lambda F, x: F.adaptive_avg_pool2d(x[0, 0], 2),
    lambda F, x: F.adaptive_avg_pool2d(x, (1, 2, 3)),
    lambda F, x: F.adaptive_avg_pool2d(x[:, :, :0], 2),
    lambda F, x: F.adaptive_avg_pool2d(x.long(), 2),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors(call):
    v_x, t_x = make_pair((1, 3, 8, 8))
    assert_same_error(lambda: call(F, v_x), lambda: call(TF, t_x))


MODULES = [
    "MaxPool2d(2)",
    "MaxPool2d(3, stride=2, padding=1, dilation=1, ceil_mode=True)",
    "MaxPool2d((3, 2), return_indices=True)",
    "MaxPool1d(3, 2, 1)",
    "AvgPool2d(3, 2, 1)",
    "AvgPool2d(2, ceil_mode=True, count_include_pad=False, divisor_override=2)",
    "AvgPool1d(3)",
    "AdaptiveAvgPool2d((None, 3))",
    "AdaptiveAvgPool2d(1)",
    "AdaptiveAvgPool1d(4)",
]


@pytest.mark.parametrize("spec", MODULES)
def test_modules(spec):
    module, torch_module = eval(f"vg.nn.{spec}"), eval(f"torch.nn.{spec}")
    assert repr(module) == repr(torch_module)
    shape = (2, 3, 9) if "1d" in spec else (2, 3, 9, 8)
    check_gradients(module, torch_module, [shape])

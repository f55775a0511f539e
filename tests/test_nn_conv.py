"""Convolutions against PyTorch: ``convolution`` (ConvolutionBackward0) through conv1d,
conv2d and conv_transpose1d/2d, the window view, the modules, and the errors."""

from __future__ import annotations

import ast
import math
import re

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients, leaf_pair
from oracle import assert_same, assert_same_error, make_pair

import vizgrad as vg
from vizgrad.ops.convolution import conv_windows

CONV2D_CASES = [
    ((2, 3, 7, 7), (4, 3, 3, 3), {}),
    ((2, 4, 9, 8), (6, 2, 3, 2), {"stride": 2, "padding": 1, "groups": 2}),
    ((1, 3, 9, 10), (2, 3, 3, 3), {"stride": (2, 1), "padding": (0, 2), "dilation": (2, 1)}),
    ((2, 2, 5, 5), (3, 2, 2, 2), {"padding": "same"}),
    ((2, 2, 6, 5), (3, 2, 3, 3), {"padding": "same", "dilation": 2}),
    ((2, 2, 6, 5), (3, 2, 3, 1), {"padding": "valid"}),
    ((4, 6, 6), (2, 2, 3, 3), {"groups": 2}),  # unbatched
]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("x_shape, w_shape, kwargs", CONV2D_CASES)
def test_conv2d_forward_and_gradients(x_shape, w_shape, kwargs, bias):
    shapes = [x_shape, w_shape] + ([(w_shape[0],)] if bias else [])

    def run(lib, x, w, b=None):
        return lib.nn.functional.conv2d(x, w, b, **kwargs)

    check_gradients(lambda *a: run(vg, *a), lambda *a: run(torch, *a), shapes,
                    check_output_strides=True)  # fmt: skip


@pytest.mark.parametrize("layout", ["transposed", "stepped", "offset"])
def test_conv2d_strided_inputs(layout):
    check_gradients(
        lambda x, w: vg.conv2d(x, w, stride=2, padding=1),
        lambda x, w: torch.conv2d(x, w, stride=2, padding=1),
        [(2, 3, 6, 6), (4, 3, 3, 3)],
        layouts=[layout, layout],
        check_output_strides=True,
    )


@pytest.mark.parametrize(
    "x_shape, w_shape, kwargs",
    [
        ((2, 3, 7), (4, 3, 3), {}),
        ((2, 4, 9), (6, 2, 3), {"stride": 2, "padding": 2, "dilation": 2, "groups": 2}),
        ((3, 8), (2, 3, 4), {"padding": "same"}),
    ],
)
def test_conv1d(x_shape, w_shape, kwargs):
    check_gradients(lambda x, w, b: vg.conv1d(x, w, b, **kwargs),
                    lambda x, w, b: torch.conv1d(x, w, b, **kwargs),
                    [x_shape, w_shape, (w_shape[0],)], check_output_strides=True)  # fmt: skip


@pytest.mark.parametrize(
    "x_shape, w_shape, kwargs",
    [
        ((2, 3, 4, 4), (3, 2, 3, 3), {}),
        ((2, 4, 5, 6), (4, 3, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
        ((1, 4, 5, 6), (4, 3, 3, 2), {"stride": (2, 3), "padding": (2, 1),
                                      "output_padding": (1, 0), "dilation": (3, 1)}),
        ((2, 4, 4), (2, 3, 3, 3), {"output_padding": 1, "dilation": 2}),  # unbatched
    ],
)  # fmt: skip
def test_conv_transpose2d(x_shape, w_shape, kwargs):
    groups = kwargs.get("groups", 1)
    check_gradients(lambda x, w, b: vg.conv_transpose2d(x, w, b, **kwargs),
                    lambda x, w, b: torch.conv_transpose2d(x, w, b, **kwargs),
                    [x_shape, w_shape, (w_shape[1] * groups,)], check_output_strides=True)  # fmt: skip


def test_conv_transpose1d():
    kwargs = {"stride": 2, "padding": 1, "output_padding": 1}
    check_gradients(lambda x, w: vg.conv_transpose1d(x, w, **kwargs),
                    lambda x, w: torch.conv_transpose1d(x, w, **kwargs),
                    [(2, 3, 5), (3, 2, 3)])  # fmt: skip


def test_convolution_operator_and_saved_arguments():
    (x, tx), (w, tw) = leaf_pair((2, 3, 5, 5)), leaf_pair((4, 3, 3, 3), seed=1)
    y = vg.convolution(x, w, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 1)
    ty = torch.convolution(tx, tw, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 1)
    assert_same(y, ty)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    for name in ("stride", "padding", "dilation", "transposed", "output_padding", "groups"):
        assert tuple(np.atleast_1d(getattr(y.grad_fn, f"_saved_{name}"))) == tuple(
            np.atleast_1d(getattr(ty.grad_fn, f"_saved_{name}"))
        )
    assert_same(y.grad_fn._saved_weight, ty.grad_fn._saved_weight)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "int32"])
def test_conv2d_dtypes(dtype):
    v_x, t_x = make_pair((2, 3, 5, 5), dtype, low=-3, high=3)
    v_w, t_w = make_pair((2, 3, 3, 3), dtype, seed=1, low=-3, high=3)
    assert_same(vg.conv2d(v_x, v_w, padding=1), torch.conv2d(t_x, t_w, padding=1),
                rtol=1e-2 if dtype == "float16" else None, atol=1e-2 if dtype == "float16" else None)  # fmt: skip


def test_empty_batch():
    v_x, t_x = make_pair((0, 3, 5, 5))
    v_w, t_w = make_pair((4, 3, 3, 3), seed=1)
    assert_same(vg.conv2d(v_x, v_w), torch.conv2d(t_x, t_w))
    assert_same(vg.conv_transpose2d(v_x, v_w.transpose(0, 1).contiguous()),
                torch.conv_transpose2d(t_x, t_w.transpose(0, 1).contiguous()))  # fmt: skip


def test_same_padding_with_even_kernel_warns_and_pads():
    (x, tx), (w, tw) = leaf_pair((1, 2, 5, 5)), leaf_pair((3, 2, 2, 2), seed=1)
    with pytest.warns(UserWarning, match="padding='same' with even kernel lengths"):
        y = vg.conv2d(x, w, padding="same")
    ty = torch.conv2d(tx, tw, padding="same")
    assert_same(y, ty)
    assert y.grad_fn.next_functions[0][0].name() == "ConstantPadNdBackward0"


def test_conv_windows_is_a_strided_view():
    x = vg.arange(2 * 3 * 5 * 6, dtype=vg.float64).reshape(2, 3, 5, 6)
    windows = conv_windows(x, (3, 2), stride=(2, 1), dilation=(1, 2))
    assert tuple(windows.shape) == (2, 3, 2, 4, 3, 2)
    assert windows.stride() == (90, 30, 12, 1, 6, 2)
    assert windows.data_ptr() == x.data_ptr()  # no copy: the same storage
    t = torch.arange(2 * 3 * 5 * 6, dtype=torch.float64).reshape(2, 3, 5, 6)
    unfolded = t.unfold(2, 3, 2).unfold(3, 3, 1)[..., ::2]  # rows by stride, cols dilated
    assert_same(windows, unfolded, check_stride=False)


CONV_ERRORS = [
    ((16, 4, 16, 16), (8, 3, 3, 3), None, {}),
    ((16, 4, 16, 16), (8, 3, 3, 3), None, {"groups": 2}),
    ((1, 3, 2, 2), (8, 3, 3, 3), None, {}),
    ((1, 3, 5, 5), (8, 3, 3, 3), None, {"dilation": 3}),
    ((1, 3, 5, 5), (8, 3, 3, 3), None, {"padding": -1}),
    ((1, 3, 5, 5), (8, 3, 3, 3), None, {"stride": 0}),
    ((1, 4, 5, 5), (3, 2, 3, 3), None, {"groups": 2}),
    ((1, 3, 5, 5), (0, 3, 3, 3), None, {}),
    ((1, 3, 5, 5), (3, 3, 3, 3), None, {"groups": 0}),
    ((1, 3, 5, 5), (4, 3, 3, 3), (5,), {}),
    ((1, 3, 5, 5), (4, 3, 3, 3), (4, 1), {}),
    ((3, 5), (4, 3, 3, 3), None, {}),
    ((1, 1, 3, 5, 5), (4, 3, 3, 3), None, {}),
    ((1, 3, 5, 5), (4, 3, 3), None, {}),
    ((1, 3, 5, 5), (4, 3, 3, 3), None, {"stride": (1, 1, 1)}),
    ((1, 3, 5, 5), (4, 3, 3, 3), None, {"padding": "same", "stride": 2}),
    ((1, 3, 5, 5), (4, 3, 3, 3), None, {"padding": "foo"}),
]


@pytest.mark.parametrize("x_shape, w_shape, b_shape, kwargs", CONV_ERRORS)
def test_conv2d_errors(x_shape, w_shape, b_shape, kwargs):
    v_x, t_x = make_pair(x_shape)
    v_w, t_w = make_pair(w_shape, seed=1)
    v_b, t_b = make_pair(b_shape, seed=2) if b_shape else (None, None)
    assert_same_error(lambda: vg.conv2d(v_x, v_w, v_b, **kwargs),
                      lambda: torch.conv2d(t_x, t_w, t_b, **kwargs))  # fmt: skip


@pytest.mark.parametrize(
    "x_dtype, w_dtype, b_dtype",
    [("float64", "float32", None), ("float32", "float64", None), ("float32", "float32", "float64"),
     ("float32", "float32", "int64")],
)  # fmt: skip
def test_conv2d_dtype_errors(x_dtype, w_dtype, b_dtype):
    v_x, t_x = make_pair((1, 3, 5, 5), x_dtype)
    v_w, t_w = make_pair((4, 3, 3, 3), w_dtype, seed=1)
    v_b, t_b = make_pair((4,), b_dtype, seed=2) if b_dtype else (None, None)
    assert_same_error(lambda: vg.conv2d(v_x, v_w, v_b), lambda: torch.conv2d(t_x, t_w, t_b))


@pytest.mark.parametrize(
    "x_shape, w_shape, b_shape, kwargs",
    [
        ((2, 5, 8, 8), (3, 4, 3, 3), None, {}),
        ((2, 3, 8, 8), (3, 4, 3, 3), None, {"output_padding": 1}),
        ((2, 3, 8, 8), (3, 4, 3, 3), None, {"stride": 2, "output_padding": 2}),
        ((2, 3, 8, 8), (3, 4, 3, 3), None, {"groups": 2}),
        ((2, 3, 8, 8), (3, 4, 3, 3), (5,), {}),
        ((8, 8), (3, 4, 3, 3), None, {}),
    ],
)
def test_conv_transpose2d_errors(x_shape, w_shape, b_shape, kwargs):
    v_x, t_x = make_pair(x_shape)
    v_w, t_w = make_pair(w_shape, seed=1)
    v_b, t_b = make_pair(b_shape, seed=2) if b_shape else (None, None)
    assert_same_error(lambda: vg.conv_transpose2d(v_x, v_w, v_b, **kwargs),
                      lambda: torch.conv_transpose2d(t_x, t_w, t_b, **kwargs))  # fmt: skip


# --- modules ---------------------------------------------------------------------------

MODULES = [
    "Conv2d(3, 8, 3)",
    "Conv2d(4, 8, (3, 2), stride=2, padding=1, groups=2, bias=False)",
    "Conv2d(3, 4, 3, padding=1, padding_mode='reflect')",
    "Conv2d(3, 4, 3, padding=(1, 2), padding_mode='replicate')",
    "Conv2d(3, 4, 3, padding=1, padding_mode='circular')",
    "Conv2d(3, 4, 3, padding='same', dilation=2, padding_mode='reflect')",
    "Conv2d(3, 4, 3, padding='valid')",
    "Conv1d(3, 4, 3, stride=2, padding=1)",
    "Conv1d(3, 4, 3, padding='same')",
    "ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)",
    "ConvTranspose2d(4, 6, 3, stride=2, output_padding=1, groups=2, dilation=2, bias=False)",
    "ConvTranspose1d(3, 4, 3, stride=2)",
]


def _copy_parameters(module, torch_module):
    for name, parameter in torch_module.named_parameters():
        with torch.no_grad():
            parameter.copy_(torch.from_numpy(getattr(module, name).detach().numpy().copy()))


@pytest.mark.parametrize("spec", MODULES)
def test_module_repr_forward_and_backward(spec):
    module = eval(f"vg.nn.{spec}")
    torch_module = eval(f"torch.nn.{spec}")
    assert repr(module) == repr(torch_module)
    _copy_parameters(module, torch_module)
    dims = 1 if "1d" in spec else 2
    channels = module.in_channels
    v_x, t_x = leaf_pair((2, channels) + (7,) * dims, dtype="float32")
    y, ty = module(v_x), torch_module(t_x)
    assert_same(y, ty, atol=1e-5, rtol=1e-5)
    assert y.grad_fn.name() == ty.grad_fn.name()
    y.sum().backward()
    ty.sum().backward()
    assert_same(v_x.grad, t_x.grad, atol=1e-5, rtol=1e-5)
    for name, parameter in torch_module.named_parameters():
        assert_same(getattr(module, name).grad, parameter.grad, atol=1e-4, rtol=1e-5)


def test_default_initialisation_bounds():
    module = vg.nn.Conv2d(6, 8, (3, 2), groups=2)
    fan_in = 3 * 3 * 2
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) gives the same bound
    for tensor in (module.weight, module.bias):
        values = tensor.detach().numpy()
        assert values.min() >= -bound and values.max() <= bound
        assert values.max() - values.min() > bound  # spread over the range, not constant
    assert module.weight.shape == torch.nn.Conv2d(6, 8, (3, 2), groups=2).weight.shape
    transposed = vg.nn.ConvTranspose2d(4, 6, 3, groups=2)
    assert tuple(transposed.weight.shape) == (4, 3, 3, 3)
    fan_in = 3 * 9  # the weight's dim 1 times the kernel, as PyTorch computes it
    assert np.abs(transposed.bias.detach().numpy()).max() <= 1 / math.sqrt(fan_in)


def test_conv_transpose_output_size():
    module = vg.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    torch_module = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    _copy_parameters(module, torch_module)
    v_x, t_x = make_pair((1, 3, 4, 4))
    for size in ([8, 8], [1, 2, 7, 8]):
        assert_same(module(v_x, output_size=size), torch_module(t_x, output_size=size),
                    atol=1e-5, rtol=1e-5)  # fmt: skip
    for size in ([9, 9], [1, 2, 3]):
        assert_same_error(lambda s=size: module(v_x, output_size=s),
                          lambda s=size: torch_module(t_x, output_size=s))  # fmt: skip


@pytest.mark.parametrize(
    "spec",
    [
        "Conv2d(4, 8, 3, groups=3)",
        "Conv2d(4, 6, 3, groups=4)",
        "Conv2d(4, 8, 3, groups=0)",
        "Conv2d(4, 8, 3, padding='full')",
        "Conv2d(4, 8, 3, stride=2, padding='same')",
        "Conv2d(4, 8, 3, padding_mode='mirror')",
        "ConvTranspose2d(4, 8, 3, padding_mode='reflect')",
    ],
)
def test_module_construction_errors(spec):
    vg_error, torch_error = assert_same_error(
        lambda: eval(f"vg.nn.{spec}"), lambda: eval(f"torch.nn.{spec}"), match_message=False
    )
    # Both messages print a set of the valid modes, whose order depends on string hashing
    # (PYTHONHASHSEED) and on how each set was built: compare the sets as sets.
    assert _sets_sorted(str(vg_error)) == _sets_sorted(str(torch_error))


def _sets_sorted(message: str) -> str:
    return re.sub(r"\{[^{}]*\}", lambda m: str(sorted(ast.literal_eval(m.group()))), message)


def test_module_wrong_input_channels():
    module, torch_module = vg.nn.Conv2d(3, 8, 3), torch.nn.Conv2d(3, 8, 3)
    v_x, t_x = make_pair((16, 4, 16, 16))
    vg_error, _ = assert_same_error(lambda: module(v_x), lambda: torch_module(t_x))
    assert str(vg_error) == (
        "Given groups=1, weight of size [8, 3, 3, 3], expected input[16, 4, 16, 16] to have "
        "3 channels, but got 4 channels instead"
    )

"""Padding against PyTorch: ``F.pad`` in every mode (constant_pad_nd, reflection and
replication pads, the circular composite), their nodes, the modules and the errors."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF
from grad_oracle import check_gradients
from oracle import assert_same, assert_same_error, make_pair

import vizgrad as vg
import vizgrad.nn.functional as F

COPY_SLICES = "vizgrad::autograd::CopySlices"

CASES = [
    ("constant", (2, 3, 5), (1, 2)),
    ("constant", (2, 3, 5, 4), (1, 0, 2, 1)),
    ("constant", (2, 3, 5), (-1, 2)),
    ("constant", (2, 3, 5), (-1, -2)),
    ("constant", (2, 3, 5, 4), (1, 1, 1, 1, 1, 1)),
    ("reflect", (2, 3, 5), (2, 4)),
    ("reflect", (3, 5), (1, 1)),
    ("reflect", (2, 3, 5, 4), (1, 3, 4, 2)),
    ("reflect", (3, 5, 4), (-1, 3, 1, 0)),
    ("reflect", (1, 2, 3, 4, 5), (1, 2, 2, 1, 1, 1)),
    ("replicate", (2, 3, 5), (3, 4)),
    ("replicate", (2, 3, 5, 4), (2, 0, 3, 5)),
    ("replicate", (3, 5, 4), (1, -1, 2, 2)),
    ("circular", (2, 3, 5), (1, 2)),
    ("circular", (3, 5), (2, 2)),
    ("circular", (2, 3, 5, 4), (1, 3, 4, 2)),
    ("circular", (2, 3, 5, 4), (-1, 2, 1, -2)),
]


@pytest.mark.parametrize("mode, shape, pad", CASES)
def test_pad_values_gradients_and_nodes(mode, shape, pad):
    # Circular padding ends with a copy into a slice: torch's CopySlices is vizgrad's own.
    name = COPY_SLICES if mode == "circular" else None
    check_gradients(lambda x: F.pad(x, pad, mode), lambda x: TF.pad(x, pad, mode), [shape],
                    check_output_strides=True, grad_fn_name=name)  # fmt: skip


@pytest.mark.parametrize("layout", ["transposed", "stepped", "expanded", "offset"])
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_strided_inputs(mode, layout):
    v_x, t_x = make_pair((2, 3, 4, 5), "float32", layout)
    assert_same(F.pad(v_x, (1, 2, 2, 1), mode), TF.pad(t_x, (1, 2, 2, 1), mode))


def test_constant_value_and_dtypes():
    v_x, t_x = make_pair((2, 3), "int64")
    assert_same(F.pad(v_x, (1, 1), value=2.5), TF.pad(t_x, (1, 1), value=2.5))
    v_x, t_x = make_pair((2, 3), "bool")
    assert_same(F.pad(v_x, (1, 1), value=2), TF.pad(t_x, (1, 1), value=2))
    v_x, t_x = make_pair((2, 3, 4), "complex64")
    assert_same(F.pad(v_x, (1, 1), "reflect"), TF.pad(t_x, (1, 1), "reflect"))
    v_x, t_x = make_pair((2, 3, 4), "int64")
    assert_same(F.pad(v_x, (2, 1), "replicate"), TF.pad(t_x, (2, 1), "replicate"))
    v_x, t_x = make_pair((), "float32")
    assert_same(F.pad(v_x, ()), TF.pad(t_x, ()))
    v_x, t_x = make_pair((0, 3, 4), "float32")  # an empty batch
    assert_same(F.pad(v_x, (1, 2), "reflect"), TF.pad(t_x, (1, 2), "reflect"))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate"])
def test_double_backward(mode):
    check_gradients(
        lambda x: vg.autograd.grad(F.pad(x, (1, 2), mode).pow(2).sum(), x, create_graph=True)[0],
        lambda x: torch.autograd.grad(TF.pad(x, (1, 2), mode).pow(2).sum(), x,
                                      create_graph=True)[0],
        [(2, 3, 5)],
        gradcheck=False,
    )  # fmt: skip


ERRORS = [
    ((1, 3, 4), (1,), "constant", None),
    ((4,), (1, 1, 1, 1), "constant", None),
    ((1, 3, 4), (1, 1), "foo", None),
    ((1, 3, 4), (4, 1), "reflect", None),
    ((1, 3, 4, 4), (1, 1, 4, 1), "reflect", None),
    ((4,), (1, 1), "reflect", None),
    ((1, 3, 4, 4), (1, 1), "reflect", None),
    ((1, 1, 3, 4, 4), (1, 1, 1, 1), "replicate", None),
    ((1, 3, 0), (1, 1), "replicate", None),
    ((1, 3, 4), (1, 1), "reflect", 2.0),
    ((1, 3, 4), (5, 1), "circular", None),
    ((3,), (1, 1), "circular", None),
    ((1, 3, 3), (-4, 2), "constant", None),
    ((1, 3, 2), (-2, -1), "replicate", None),
    ((1, 3, 2, 2), (-2, -1, -2, -1), "replicate", None),
    ((1, 3, 3), (-2, -1), "reflect", None),
    ((1, 3, 3, 3), (-2, -1, -2, -1), "reflect", None),
]


@pytest.mark.parametrize("shape, pad, mode, value", ERRORS)
def test_errors(shape, pad, mode, value):
    v_x, t_x = make_pair(shape)
    assert_same_error(lambda: F.pad(v_x, pad, mode, value), lambda: TF.pad(t_x, pad, mode, value))


def test_unsupported_dtype_and_short_pad():
    v_x, t_x = make_pair((1, 2, 3), "bool")
    assert_same_error(lambda: F.pad(v_x, (1, 1), "reflect"), lambda: TF.pad(t_x, (1, 1), "reflect"))
    v_x, t_x = make_pair((2,))
    assert_same_error(lambda: vg.constant_pad_nd(v_x, (1, 1, 1)),
                      lambda: torch.constant_pad_nd(t_x, (1, 1, 1)))  # fmt: skip


MODULES = [
    "ZeroPad2d(2)",
    "ZeroPad2d((1, 0, 2, 1))",
    "ZeroPad1d((1, 2))",
    "ConstantPad1d(2, 3.5)",
    "ConstantPad2d((1, 0, 2, 1), -1.0)",
    "ReflectionPad1d(2)",
    "ReflectionPad2d((1, 0, 2, 1))",
    "ReplicationPad1d((3, 1))",
    "ReplicationPad2d(2)",
    "CircularPad1d(1)",
    "CircularPad2d((1, 2, 0, 1))",
]


@pytest.mark.parametrize("spec", MODULES)
def test_modules(spec):
    module, torch_module = eval(f"vg.nn.{spec}"), eval(f"torch.nn.{spec}")
    assert repr(module) == repr(torch_module)
    shape = (2, 3, 5) if "1d" in spec else (2, 3, 5, 4)
    name = COPY_SLICES if "Circular" in spec else None
    check_gradients(module, torch_module, [shape], check_output_strides=True, grad_fn_name=name)

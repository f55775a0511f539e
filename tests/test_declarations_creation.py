"""Creation, ranges, copy and fill, declared from whole schemas: their overloads, and the
errors the generated (or hand-written binding) parsers raise, against PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same_error

import vizgrad as vg


def _same_error(expr: str):
    def call(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return eval(expr, {"lib": lib, "np": np, "x": lib.zeros(2, 3)})  # noqa: S307

    assert_same_error(lambda: call(vg), lambda: call(torch))


@pytest.mark.parametrize(
    ("function", "overloads"),
    [
        (vg.fill, ["fill.Scalar", "fill.Tensor", "fill_.Scalar", "fill_.Tensor"]),
        (vg.zero_, ["zero_"]),
        (vg.zeros, ["zeros", "zeros.out"]),
        (vg.empty, ["empty.memory_format", "empty.out"]),
        (vg.full, ["full", "full.out"]),
        (vg.zeros_like, ["zeros_like"]),
        (
            vg.arange,
            ["arange", "arange.out", "arange.start", "arange.start_out", "arange.start_step"],
        ),
        (
            vg.linspace,
            [
                "linspace",
                "linspace.Scalar_Tensor",
                "linspace.Scalar_Tensor_out",
                "linspace.Tensor_Scalar",
                "linspace.Tensor_Scalar_out",
                "linspace.Tensor_Tensor",
                "linspace.Tensor_Tensor_out",
                "linspace.out",
            ],
        ),
        (vg.eye, ["eye", "eye.m", "eye.m_out", "eye.out"]),
        (vg.tril, ["tril", "tril.out", "tril_"]),
        (vg.diag, ["diag", "diag.out"]),
        (vg.clone, ["clone"]),
        (vg.autograd.tensor_methods.sum_to_size, ["sum_to_size"]),
    ],
)
def test_overloads_come_from_the_declaration(function, overloads):
    assert sorted(function.overloads) == overloads


BAD_CALLS = [
    # fill
    "x.fill_('a')",
    "x.fill_()",
    "x.fill_(1, 2)",
    "lib.fill(x, 'a')",
    "lib.fill(x, lib.ones(2))",
    "lib.fill(x, 1.5, out=x)",
    "lib.zero_([1])",
    "lib.zeros(2, dtype=lib.int32).fill_(2**40)",
    "x.fill_(1j)",
    # factories
    "lib.zeros()",
    "lib.zeros(2, dtype='a')",
    "lib.zeros(2, layout=1)",
    "lib.zeros(2, device=1.5)",
    "lib.zeros(2, foo=1)",
    "lib.zeros(2, 3, out=lib.empty(1, dtype=lib.int64), dtype=lib.float32)",
    "lib.ones((True, 2))",
    "lib.ones((2.5, 3))",
    "lib.empty(2, memory_format=1)",
    "lib.full()",
    "lib.full((2,))",
    "lib.full((2,), 1, 2)",
    "lib.full((2,), 1, requires_grad=True)",
    "lib.scalar_tensor('a')",
    "lib.empty_strided((2,), 1)",
    "lib.zeros_like(1)",
    "lib.zeros_like(lib.ones(2), lib.float32)",
    "lib.zeros_like(lib.ones(2), memory_format=1)",
    "lib.full_like(lib.ones(2))",
    "lib.empty_like(lib.ones(2), foo=1)",
    "x.new_zeros('a')",
    "x.new_zeros(2, dtype='a')",
    "x.new_full(2, 1)",
    "x.new_full((2,), 'a')",
    "x.new_tensor()",
    "x.new_tensor([1], dtype=1)",
    "x.new_ones(2, dtype=lib.int64, requires_grad=True)",
    # constructors from data (hand-written bindings)
    "lib.tensor()",
    "lib.tensor(1, 2)",
    "lib.tensor(1, foo=2)",
    "lib.tensor(1, device=1.5)",
    "lib.as_tensor()",
    "lib.as_tensor(1, lib.float32)",
    "lib.as_tensor(1, dtype='a')",
    # ranges
    "lib.arange()",
    "lib.arange('a')",
    "lib.arange(1, 'a')",
    "lib.arange(1, 2, 3, 4)",
    "lib.arange(lib.tensor([3]))",
    "lib.arange(0, 10**20)",
    "lib.linspace(0, 1)",
    "lib.linspace(0, 1, 3.0)",
    "lib.linspace(0, 'a', 3)",
    "lib.logspace(0, 1, 3, base='a')",
    "lib.logspace(lib.tensor([1., 2.]), 1, 3)",
    "lib.eye()",
    "lib.eye(2, 3, 4)",
    "lib.eye(-1, out=lib.empty(1))",
    "lib.tril()",
    "lib.tril(x, 'a')",
    "lib.tril(x, diagonal=True)",
    "x.tril_(1, 2)",
    "lib.diag()",
    "lib.diag(x, 'a')",
    "lib.diag_embed(lib.ones(2), 'a')",
    "lib.ones(2).diag_embed(0, 0, 0)",
    # copies and conversions (hand-written bindings in torch)
    "x.copy_([1, 2, 3])",
    "x.copy_(src=lib.ones(3))",
    "x.copy_(lib.ones(3), 'a')",
    "x.to(lib.float32, 3.5)",
    "x.to(foo=1)",
    "x.to('cpu', 'a')",
    "x.to(other=x)",
    "x.type('a')",
    "x.type(1)",
    "x.float(1)",
    "x.float(memory_format=1)",
    "x.contiguous(1)",
    "x.contiguous(memory_format=1)",
    "x.clone(1)",
    "x.clone(memory_format=1)",
    "lib.clone(1)",
    # autograd's Tensor methods
    "x.sum_to_size(2)",
    "x.sum_to_size('a')",
    "x.sum_to_size(4, 2, 3)",
]


@pytest.mark.parametrize("expr", BAD_CALLS)
def test_bad_calls_raise_torchs_errors(expr):
    _same_error(expr)


@pytest.mark.parametrize(
    "expr",
    ["lib.ones(2, True)", "lib.zeros(size=(2,), out=None)", "lib.arange(start=1, end=5)",
     "lib.arange(1, end=5)", "lib.arange(1, 5, step=2)", "lib.eye(3, out=lib.empty(3, 3))",
     "x.new_ones(2, 3, requires_grad=True)", "x.new_empty((2,), dtype=lib.int8)",
     "lib.diagonal_copy(x, 1)", "x.diag_embed()", "lib.zero_(x)"],
)  # fmt: skip
def test_good_calls_agree_with_torch(expr):
    def call(lib):
        return eval(expr, {"lib": lib, "x": lib.ones(2, 3)})  # noqa: S307

    v, t = call(vg), call(torch)
    assert tuple(v.shape) == tuple(t.shape) and v.requires_grad == t.requires_grad
    assert v.dtype.name == str(t.dtype).removeprefix("torch.")


def test_factories_dispatch_their_own_overloads():
    x = vg.ones(2)
    with vg.dispatch_trace() as trace:
        vg.arange(5)
        vg.arange(1, 5)
        x.new_zeros(3)
        vg.zeros(2, out=x)
    assert trace.ops == ["aten::arange", "aten::arange.start", "aten::new_zeros", "aten::zeros.out"]


def test_the_copy_bindings_call_the_declared_operators():
    """``Tensor.to`` dispatches the ``aten::to`` overload for what it was given (a
    composite, which calls ``_to_copy`` when something changes); ``Tensor.contiguous``
    calls nothing when the tensor already is contiguous, as ``THPVariable_contiguous``."""
    from vizgrad.ops import copy

    assert sorted(copy._to_overloads) == ["to.device", "to.dtype", "to.dtype_layout", "to.other"]
    assert vg.Tensor.copy_ is copy._copy_method and vg.Tensor.to is copy._to_method
    x = vg.ones(2, 3)
    with vg.dispatch_trace() as trace:
        x.to(vg.float64)
        x.to("cpu", vg.int8)
        x.to(x)
        x.to(memory_format=vg.contiguous_format)
        x.to()
        x.double()
        x.contiguous()
        x.t().contiguous()
        x.copy_(2)
    assert trace.ops == ["aten::to.dtype", "aten::to.device", "aten::to.device",
                         "aten::to.dtype_layout", "aten::to.dtype", "aten::t",
                         "aten::contiguous", "aten::copy_"]  # fmt: skip
    assert x.tolist() == [[2.0] * 3] * 2


def test_copy_from_a_python_float_keeps_double_precision():
    """A number given to ``copy_`` is a double, as PyTorch wraps it (not the default dtype)."""
    v, t = vg.zeros(1, dtype=vg.float64), torch.zeros(1, dtype=torch.float64)
    assert v.copy_(0.1).tolist() == t.copy_(0.1).tolist() == [0.1]

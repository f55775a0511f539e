"""``repr`` of tensors: character for character PyTorch's, with ``vizgrad.`` for ``torch.``."""

from __future__ import annotations

import pytest
import torch
from oracle import make_pair

import vizgrad as vg


def same_repr(expr: str) -> None:
    v = eval(expr, {"lib": vg})  # noqa: S307 - test expressions
    t = eval(expr, {"lib": torch})  # noqa: S307
    assert repr(v) == repr(t).replace("torch.", "vizgrad."), f"\n{v!r}\n{t!r}"
    assert str(v) == str(t).replace("torch.", "vizgrad.")


VALUES = [
    # floats: integer-valued, fixed, scientific, inf/nan, zeros, signs
    "lib.tensor([1., 2., 3.])",
    "lib.tensor([1.5, 2.25, -3.0])",
    "lib.tensor([-1., 1.])",
    "lib.tensor([1e-5, 1.0])",
    "lib.tensor([1e9, 1.0])",
    "lib.tensor([1e3, 1.5])",
    "lib.tensor([1e8, 1e-4])",
    "lib.tensor([123456.789])",
    "lib.tensor([0.1, 100.5])",
    "lib.tensor([float('inf'), float('nan'), 1.5])",
    "lib.tensor([float('inf'), 2.])",
    "lib.tensor([float('-inf'), float('nan')])",
    "lib.tensor([0., 0.])",
    "lib.tensor([0., -0.])",
    "lib.tensor([1e-10, 1.])",
    "lib.tensor([5e-5, 3e-5])",
    "lib.tensor([1e12, 3e12])",
    "lib.tensor([1.5e10, -2.])",
    # zero-dim
    "lib.tensor(3.)",
    "lib.tensor(3)",
    "lib.tensor(True)",
    "lib.tensor(-0.)",
    "lib.tensor(1e-5)",
    "lib.tensor(2.5, dtype=lib.float64)",
    "lib.tensor(7, dtype=lib.int8)",
    "lib.tensor(1+1j)",
    "lib.tensor(float('nan'))",
    # other dtypes
    "lib.tensor([[1, 2], [3, 40]])",
    "lib.tensor([True, False])",
    "lib.tensor([1, 2], dtype=lib.int32)",
    "lib.tensor([1.5], dtype=lib.float64)",
    "lib.tensor([1.5, 2], dtype=lib.float16)",
    "lib.tensor([0.1, 0.25], dtype=lib.float16)",
    "lib.tensor([300, -5], dtype=lib.int16)",
    "lib.tensor([255, 0], dtype=lib.uint8)",
    "lib.tensor([-100, 5], dtype=lib.int8)",
    "lib.tensor([1+2j, -3.5-1j])",
    "lib.tensor([1+2j], dtype=lib.complex128)",
    "lib.tensor([[1.+1j, 2.5-3j], [0., 1e5j]])",
    "lib.tensor([1j, -1j])",
    "lib.zeros(3, 4, 5, dtype=lib.uint8)",
    "lib.ones(2, 2, dtype=lib.bool)",
    # empty
    "lib.zeros(0, 3)",
    "lib.zeros(0)",
    "lib.zeros(0, dtype=lib.int64)",
    "lib.zeros(2, 0, dtype=lib.int32)",
    "lib.zeros(0, dtype=lib.bool)",
    "lib.zeros(0, 2, 0, dtype=lib.float64)",
    # sizes, nesting, wrapping, summarising
    "lib.arange(24).reshape(2, 3, 4)",
    "lib.arange(120.).reshape(2, 3, 4, 5)",
    "lib.arange(100.) / 7",
    "lib.arange(30.).reshape(5, 6) * 1.1",
    "lib.arange(40) * 1000",
    "lib.linspace(0, 1, 30, dtype=lib.float64)",
    "lib.arange(2000)",
    "lib.arange(1001)",
    "lib.arange(1000).reshape(10, 100)",
    "lib.arange(2000.).reshape(40, 50)",
    "lib.arange(5000).reshape(10, 10, 50)",
    "lib.arange(3000.).reshape(3, 1000) / 3",
    "lib.arange(1200, dtype=lib.int32)",
    "lib.arange(2000.).reshape(1000, 2) * 1e-6",
    "lib.linspace(-1e6, 1e6, 50)",
    # suffixes
    "lib.tensor([[1e-10, 1.]], requires_grad=True)",
    "lib.ones(2, 3, requires_grad=True)",
    "lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True)",
    "lib.ones(30, dtype=lib.float64, requires_grad=True)",
    "lib.zeros(0, 3, requires_grad=True)",
    "lib.arange(19, dtype=lib.int32)",
    "lib.arange(2000, dtype=lib.int16)",
]


@pytest.mark.parametrize("expr", VALUES)
def test_repr_matches_torch(expr):
    same_repr(expr)


@pytest.mark.parametrize("layout", ["transposed", "stepped", "expanded", "offset"])
@pytest.mark.parametrize(
    "dtype", ["float32", "float64", "int64", "int32", "bool", "complex64", "float16"]
)
def test_repr_of_non_contiguous(layout, dtype):
    v, t = make_pair((4, 5), dtype, layout)
    assert repr(v) == repr(t).replace("torch.", "vizgrad.")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex128"])
def test_repr_of_random_large(dtype):
    v, t = make_pair((30, 40), dtype, "contiguous", low=-1000, high=1000)
    assert repr(v) == repr(t).replace("torch.", "vizgrad.")


@pytest.mark.parametrize(
    "options",
    [
        {"precision": 2},
        {"precision": 6},
        {"threshold": 5},
        {"edgeitems": 1, "threshold": 10},
        {"linewidth": 40},
        {"sci_mode": True},
        {"sci_mode": False},
        {"profile": "short"},
        {"profile": "full"},
        {"edgeitems": 0, "threshold": 3},
    ],
)
@pytest.mark.parametrize(
    "expr",
    [
        "lib.arange(20.) / 3",
        "lib.arange(12).reshape(3, 4)",
        "lib.tensor([1e-6, 1e6])",
        "lib.arange(2000.).reshape(40, 50)",
        "lib.tensor(2.5)",
        "lib.tensor([1.5 + 2j, 3j])",
    ],
)
def test_set_printoptions(options, expr):
    try:
        vg.set_printoptions(**options)
        torch.set_printoptions(**options)
        same_repr(expr)
        assert vg.get_printoptions()["sci_mode"] == options.get("sci_mode")
    finally:
        vg.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")


def test_printoptions_context_restores():
    with vg.printoptions(precision=1):
        assert repr(vg.tensor([1.25, 2.5])) == "tensor([1.2, 2.5])"
    assert repr(vg.tensor([1.25, 2.5])) == "tensor([1.2500, 2.5000])"


def test_default_dtype_changes_the_dtype_suffix():
    try:
        vg.set_default_dtype(vg.float64)
        torch.set_default_dtype(torch.float64)
        for expr in (
            "lib.tensor([1.5])",
            "lib.tensor([1.5], dtype=lib.float32)",
            "lib.tensor([1j])",
            "lib.zeros(0)",
            "lib.zeros(0, dtype=lib.float32)",
        ):
            same_repr(expr)
    finally:
        vg.set_default_dtype(vg.float32)
        torch.set_default_dtype(torch.float32)


class _Node:
    """Stands in for an autograd node: the printer only asks for its name."""

    def __init__(self, name: str):
        self._name = name

    def name(self) -> str:
        return self._name


@pytest.mark.parametrize("shape", [(3,), (2, 40), ()])
def test_grad_fn_suffix(shape):
    t_leaf = torch.ones(shape, requires_grad=True)
    t = t_leaf + t_leaf
    v = vg.full(shape, 2.0)
    v._grad_fn = _Node(type(t.grad_fn).__name__)
    v._requires_grad = True
    assert repr(v) == repr(t).replace("torch.", "vizgrad.")


def test_grad_fn_is_printed_by_its_class_name_as_torch_prints_it():
    """``_tensor_str`` prints ``type(grad_fn).__name__``: a custom Function's node is
    ``<Name>Backward``, a hand-written C++ node is unqualified."""
    printed = []
    for lib in (torch, vg):

        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        leaf = lib.ones(2, requires_grad=True)
        doubled = Double.apply(leaf)
        copied = lib.zeros(2).copy_(leaf)
        printed.append((repr(doubled), type(doubled.grad_fn).__name__, doubled.grad_fn.name(),
                        repr(copied)))  # fmt: skip
    assert printed[0] == printed[1]

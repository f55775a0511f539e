"""Creation ops against PyTorch: tensor(), as_tensor, from_numpy, zeros/ones/empty/full, *_like."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import DTYPES, LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg


def both(expr: str, **names):
    """Evaluate ``expr`` with ``lib`` bound to vizgrad, then to torch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = eval(expr, {"lib": vg, "np": np, **names})  # noqa: S307 - test expressions
        t = eval(expr, {"lib": torch, "np": np, **names})  # noqa: S307
    return v, t


def same_error(expr: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(
            lambda: eval(expr, {"lib": vg, "np": np}),  # noqa: S307
            lambda: eval(expr, {"lib": torch, "np": np}),
        )  # noqa: S307


# --- tensor(): dtype inference and storing ---------------------------------------------

TENSOR_DATA = [
    "[]",
    "[[], []]",
    "[True, False]",
    "[True, 1]",
    "[1, 2]",
    "[1, 2.5]",
    "[1, 2j]",
    "[[1, 2], [3, 4]]",
    "[[1, 2], (3, 4)]",
    "(1, 2)",
    "range(4)",
    "3",
    "3.5",
    "True",
    "1 + 2j",
    "np.float64(1.5)",
    "np.float32(2.5)",
    "[np.float64(1.5), 2]",
    "[np.int32(1), 2]",
    "[np.int32(1), np.int32(2)]",
    "[np.float16(1), 1]",
    "[np.bool_(True)]",
    "[np.uint8(3), -1]",
    "[1, np.complex64(1)]",
    "[[np.float64(1.5)], [1]]",
    "[lib.tensor(1, dtype=lib.int8), 2]",
    "[lib.tensor(1, dtype=lib.int8), lib.tensor(2, dtype=lib.int8)]",
    "[lib.tensor(1.5, dtype=lib.float64), lib.tensor(2)]",
    "[np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)]",
    "np.array([[1, 2], [3, 4]])",
    "np.array(5.0)",
    "np.arange(6).reshape(2, 3).T",
    "np.arange(12).reshape(3, 4)[:, ::2]",
    "np.zeros((2, 0))",
    "[[[1.5]], [[2.5]]]",
    "[1e300]",
    "[2**63 + 0.0]",
    "[float('inf'), float('nan')]",
]


@pytest.mark.parametrize("data", TENSOR_DATA)
def test_tensor_infers_dtype_and_shape(data):
    v, t = both(f"lib.tensor({data})")
    assert_same(v, t)


@pytest.mark.parametrize(
    ("data", "dtype"),
    [
        ("[1.5, -2.7]", "int32"),
        ("[-1, 255]", "uint8"),
        ("[-255]", "uint8"),
        ("[3.7, 0]", "bool"),
        ("[2, 0]", "bool"),
        ("[True]", "float16"),
        ("[1, 2]", "complex128"),
        ("[[1]]", "complex64"),
        ("[1e40]", "float32"),
        ("1e300", "float16"),
        ("[2**63]", "float32"),
        ("1.5", "int64"),
        ("[[], []]", "int32"),
        ("np.array([300])", "int8"),
        ("np.array([1.5, -2.5])", "int32"),
        ("np.array([1 + 1j])", "float32"),
        ("np.arange(6).reshape(2, 3).T", "float64"),
        ("lib.tensor([1.5])", "int32"),
        ("[np.int8(2)]", "bool"),
    ],
)
def test_tensor_with_dtype(data, dtype):
    v, t = both(f"lib.tensor({data}, dtype=lib.{dtype})")
    assert_same(v, t)


@pytest.mark.parametrize(
    "expr",
    [
        "lib.tensor([[1, 2], [3]])",
        "lib.tensor([[1], [2, 3]])",
        "lib.tensor([[[1, 2]], [[1, 2, 3]]])",
        "lib.tensor([[1, 2], 3])",
        "lib.tensor([1, [2, 3]])",
        "lib.tensor('abc')",
        "lib.tensor(b'ab')",
        "lib.tensor(['a'])",
        "lib.tensor([1, 'a'])",
        "lib.tensor({1: 2})",
        "lib.tensor([None])",
        "lib.tensor(None)",
        "lib.tensor({1, 2})",
        "lib.tensor([{1, 2}])",
        "lib.tensor(x for x in [1])",
        "lib.tensor([300], dtype=lib.uint8)",
        "lib.tensor([-256], dtype=lib.uint8)",
        "lib.tensor(300, dtype=lib.int8)",
        "lib.tensor([2**40], dtype=lib.int32)",
        "lib.tensor([-1.0], dtype=lib.uint8)",
        "lib.tensor([255.5], dtype=lib.uint8)",
        "lib.tensor([float('inf')], dtype=lib.int32)",
        "lib.tensor([1.5, float('nan')], dtype=lib.int64)",
        "lib.tensor([2**63])",
        "lib.tensor([2**70])",
        "lib.tensor([1 + 2j], dtype=lib.float32)",
        "lib.tensor([1j], dtype=lib.int32)",
        "lib.tensor([np.float32(1.5)], dtype=lib.int32)",
        "lib.tensor([np.bool_(True), 2])",
        "lib.tensor([lib.tensor(1.5)], dtype=lib.int64)",
        "lib.tensor([lib.tensor([1, 2]), lib.tensor([3, 4])])",
        "lib.tensor([lib.tensor([1., 2.]), lib.tensor([3., 4.])])",
        "lib.tensor([1, [2]], dtype=lib.float32)",
        "lib.tensor([1, [2]], dtype=lib.complex64)",
        "lib.tensor([1, [2]], dtype=lib.bool)",
        "lib.tensor([np.array(1.5)])",
        "lib.tensor([1, 2], dtype='float')",
        "lib.tensor(np.array(['a']))",
        "lib.tensor(np.arange(6)[::-2])",
        "lib.tensor([[1, 2], [3, 4]], requires_grad=True)",
    ],
)
def test_tensor_errors(expr):
    same_error(expr)


def test_tensor_copies_and_requires_grad():
    array = np.arange(4.0)
    v = vg.tensor(array)
    array[0] = 9
    assert v.tolist()[0] == 0.0
    assert vg.tensor([1.0, 2.0], requires_grad=True).requires_grad
    assert vg.tensor([1j], requires_grad=True).requires_grad
    source = vg.tensor([1, 2])
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        copy = vg.tensor(source)
    assert copy._storage is not source._storage


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tensor_of_a_tensor_keeps_dense_layout(layout):
    v, t = make_pair((3, 4), "float32", layout)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(vg.tensor(v, dtype=vg.float64), torch.tensor(t, dtype=torch.float64))


# --- from_numpy and as_tensor: sharing memory ----------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(12.0).reshape(3, 4),
        lambda: np.arange(12).reshape(3, 4)[:, ::2],
        lambda: np.arange(12).reshape(3, 4).T,
        lambda: np.arange(24, dtype=np.int16).reshape(2, 3, 4)[1:, :, 1::2],
        lambda: np.array(3.0),
        lambda: np.zeros((3, 0)),
        lambda: np.zeros((2, 0, 3)),
        lambda: np.array([True, False]),
        lambda: np.arange(4, dtype=np.complex64),
    ],
)
def test_from_numpy_keeps_strides_and_shares(make):
    array = make()
    v, t = vg.from_numpy(array), torch.from_numpy(array)
    assert_same(v, t)
    if array.size:
        index = (0,) * array.ndim
        array[index] = 1
        assert v.tolist() == t.tolist()
        v._array[index] = 0  # a write through the tensor shows in the array
        assert array[index] == 0


@pytest.mark.parametrize(
    "expr",
    [
        "lib.from_numpy([1])",
        "lib.from_numpy(np.arange(3)[::-1])",
        "lib.from_numpy(np.array(['a']))",
        "lib.as_tensor(np.arange(6)[::-2])",
    ],
)
def test_from_numpy_errors(expr):
    same_error(expr)


def test_as_tensor_sharing_rules():
    array = np.arange(6.0)
    shared = vg.as_tensor(array)
    array[0] = 9
    assert shared.tolist()[0] == 9  # same dtype: shares
    converted = vg.as_tensor(array, dtype=vg.float32)
    array[1] = 9
    assert converted.tolist()[1] == 1  # conversion: a copy
    x = vg.tensor([1.0, 2.0])
    assert vg.as_tensor(x) is x
    assert vg.as_tensor(x, dtype=vg.float32) is x
    assert vg.as_tensor(x, dtype=vg.float64).dtype is vg.float64


@pytest.mark.parametrize(
    "data",
    [
        "[1, 2]",
        "3",
        "[np.float64(1)]",
        "np.float64(3)",
        "np.arange(6).reshape(2, 3).T",
        "lib.tensor([1, 2])",
    ],
)
@pytest.mark.parametrize("dtype", [None, "float32", "int64"])
def test_as_tensor_values(data, dtype):
    suffix = "" if dtype is None else f", dtype=lib.{dtype}"
    v, t = both(f"lib.as_tensor({data}{suffix})")
    assert_same(v, t)


# --- factories ----------------------------------------------------------------------


SIZES = [
    "2, 3",
    "(2, 3)",
    "[2, 3]",
    "lib.Size([2, 3])",
    "()",
    "[]",
    "0",
    "(4, 0, 2)",
    "np.int64(3)",
    "lib.tensor(3)",
    "[lib.tensor(3)]",
    "np.int64(2), 3",
    "size=(2, 3)",
]


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("size", SIZES)
def test_factory_sizes(fn, size):
    v, t = both(f"lib.{fn}({size})")
    if fn == "empty":
        assert (v.dtype.name, tuple(v.shape), v.stride()) == (
            str(t.dtype)[6:],
            tuple(t.shape),
            t.stride(),
        )
    else:
        assert_same(v, t)


@pytest.mark.parametrize("fn", ["zeros", "ones"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_factory_dtypes(fn, dtype):
    v, t = both(f"lib.{fn}(2, 3, dtype=lib.{dtype})")
    assert_same(v, t)


@pytest.mark.parametrize(
    "expr",
    [
        "lib.ones(2, -1)",
        "lib.ones((2, -3))",
        "lib.ones(2.5)",
        "lib.ones((2, 2.5))",
        "lib.ones('a')",
        "lib.ones(2, (3,))",
        "lib.ones(None)",
        "lib.ones(2, None)",
        "lib.ones(True)",
        "lib.ones((True, 2))",
        "lib.ones(lib.tensor(2.))",
        "lib.ones(lib.tensor([2, 3]))",
        "lib.zeros()",
        "lib.empty()",
        "lib.zeros(2, dtype='a')",
        "lib.zeros(2, dtype=lib.int64, requires_grad=True)",
        "lib.zeros(2, dtype=lib.float64, out=lib.empty(2))",
        "lib.full((-1,), 1)",
        "lib.full(2, 3)",
        "lib.full((2,), 'a')",
        "lib.full((2,), None)",
        "lib.full((2,), [1])",
        "lib.full((2,), 300, dtype=lib.uint8)",
        "lib.full((2,), 1j, dtype=lib.float32)",
        "lib.full((2,), float('inf'), dtype=lib.int32)",
        "lib.full((2,), 1e300, dtype=lib.float32)",
        "lib.full((2,), 70000., dtype=lib.float16)",
        "lib.full((2,), -1., dtype=lib.uint8)",
        "lib.full((2,), float('nan'), dtype=lib.int32)",
        "lib.full((2,), 1e300 + 1j, dtype=lib.complex64)",
        "lib.full((2,), 3.5, dtype=lib.float64, out=lib.empty(2, dtype=lib.int32))",
        "lib.empty_strided((2, 3), (1,))",
        "lib.empty_strided((2, -3), (1, 2))",
        "lib.empty_strided((2, 3), (-1, 2))",
        "lib.zeros_like([1, 2])",
        "lib.zeros_like(lib.empty(3), dtype=lib.int32, requires_grad=True)",
        "lib.full_like(lib.empty(3, dtype=lib.int32), 1j)",
    ],
)
def test_factory_errors(expr):
    same_error(expr)


@pytest.mark.parametrize(
    "expr",
    [
        "lib.full((2,), 3)",
        "lib.full((2,), 3.)",
        "lib.full((2,), True)",
        "lib.full((2,), 1j)",
        "lib.full([2, 3], np.float64(1))",
        "lib.full((2,), np.int32(3))",
        "lib.full((2,), lib.tensor(3))",
        "lib.full((2,), lib.tensor(3.5, dtype=lib.float64))",
        "lib.full((2,), 1.5, dtype=lib.int32)",
        "lib.full((2,), 2, dtype=lib.bool)",
        "lib.full((2,), -1, dtype=lib.uint8)",
        "lib.full((2,), -255, dtype=lib.uint8)",
        "lib.full((2,), 1 + 0j, dtype=lib.float32)",
        "lib.full(size=(2,), fill_value=1.)",
        "lib.full((), 7)",
        "lib.scalar_tensor(3)",
        "lib.scalar_tensor(True)",
        "lib.scalar_tensor(2, dtype=lib.int32)",
        "lib.zeros(2, requires_grad=True)",
        "lib.ones(2, dtype=lib.complex64, requires_grad=True)",
    ],
)
def test_full_and_scalar_tensor(expr):
    v, t = both(expr)
    assert v.requires_grad == t.requires_grad
    v._requires_grad = False  # compare the values as plain tensors
    assert_same(v, t.detach())


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
def test_factory_out(fn):
    for out_dtype in ("float32", "int64"):
        v_out, t_out = (
            vg.empty(2, 3, dtype=getattr(vg, out_dtype)),
            torch.empty(2, 3, dtype=getattr(torch, out_dtype)),
        )
        v = getattr(vg, fn)(2, 3, out=v_out)
        t = getattr(torch, fn)(2, 3, out=t_out)
        assert v is v_out and v._version == 1
        if fn == "empty":
            assert v.shape == t.shape and v.dtype.name == str(t.dtype)[6:]
        else:
            assert_same(v, t)


def test_factory_out_keeps_strides_of_transposed_out():
    v_out, t_out = make_pair((2, 3), "float32", "transposed")
    assert_same(vg.zeros(2, 3, out=v_out), torch.zeros(2, 3, out=t_out))
    assert_same(vg.full((2, 3), 3.5, out=v_out), torch.full((2, 3), 3.5, out=t_out))
    v_int, t_int = vg.empty(2, dtype=vg.int32), torch.empty(2, dtype=torch.int32)
    assert_same(vg.full((2,), 3.5, out=v_int), torch.full((2,), 3.5, out=t_int))


def test_factory_out_resizes():
    v_out, t_out = vg.empty(0), torch.empty(0)
    assert_same(vg.zeros(2, 3, out=v_out), torch.zeros(2, 3, out=t_out))


@pytest.mark.parametrize(
    ("size", "stride"),
    [
        ((2, 3), (1, 2)),
        ((2, 3), (3, 1)),
        ((2, 3), (0, 0)),
        ((2, 0), (1, 1)),
        ((), ()),
        ((3, 4), (8, 2)),
    ],
)
def test_empty_strided(size, stride):
    v, t = vg.empty_strided(size, stride), torch.empty_strided(size, stride)
    assert (tuple(v.shape), v.stride(), v.dtype.name) == (tuple(t.shape), t.stride(), "float32")
    assert v.untyped_storage().nbytes() == t.untyped_storage().nbytes()


# --- *_like: preserve_format ----------------------------------------------------------------

LIKE_SHAPES = [(3, 4), (2, 3, 4), (5,), (), (1, 4), (3, 0)]


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like", "full_like"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", LIKE_SHAPES)
def test_like_preserves_layout(fn, layout, shape):
    v_in, t_in = make_pair(shape, "float32", layout)
    args = (2.5,) if fn == "full_like" else ()
    v, t = getattr(vg, fn)(v_in, *args), getattr(torch, fn)(t_in, *args)
    if fn == "empty_like":
        assert (tuple(v.shape), v.stride(), v.dtype.name) == (tuple(t.shape), t.stride(), "float32")
    else:
        assert_same(v, t)


@pytest.mark.parametrize(
    ("shape", "stride"),
    [
        ((3, 4), (1, 3)),
        ((3, 1, 4), (1, 12, 3)),
        ((4, 2, 3), (1, 12, 4)),
        ((2, 2, 3), (1, 6, 2)),
        ((4, 3, 3), (5, 20, 2)),
        ((4, 3), (1, 8)),
        ((3, 5, 4), (4, 0, 1)),
    ],
)
def test_like_of_permuted_and_stepped(shape, stride):
    size_needed = 1 + sum((n - 1) * s for n, s in zip(shape, stride, strict=True))
    v_in, t_in = (
        vg.zeros(size_needed).as_strided(shape, stride),
        torch.zeros(size_needed).as_strided(shape, stride),
    )
    assert_same(vg.zeros_like(v_in), torch.zeros_like(t_in))
    assert_same(vg.ones_like(v_in, dtype=vg.int32), torch.ones_like(t_in, dtype=torch.int32))


@pytest.mark.parametrize("dtype", DTYPES)
def test_like_dtypes_and_fill(dtype):
    v_in, t_in = make_pair((2, 3), dtype, "transposed")
    assert_same(vg.zeros_like(v_in), torch.zeros_like(t_in))
    assert_same(vg.full_like(v_in, 1), torch.full_like(t_in, 1))
    assert_same(vg.ones_like(v_in, dtype=vg.float64), torch.ones_like(t_in, dtype=torch.float64))


def test_like_contiguous_format_and_truncation():
    v_in, t_in = make_pair((3, 4), "float32", "transposed")
    v = vg.zeros_like(v_in, memory_format="contiguous_format")
    assert_same(v, torch.zeros_like(t_in, memory_format=torch.contiguous_format))
    v_int, t_int = make_pair((3,), "int32")
    assert_same(vg.full_like(v_int, 2.7), torch.full_like(t_int, 2.7))
    assert_same(vg.full_like(v_int, vg.tensor(3)), torch.full_like(t_int, torch.tensor(3)))


def test_new_factories():
    v, t = vg.tensor([1, 2], dtype=vg.int32), torch.tensor([1, 2], dtype=torch.int32)
    assert_same(v.new_zeros(2, 3), t.new_zeros(2, 3))
    assert_same(v.new_ones((2,)), t.new_ones((2,)))
    assert_same(v.new_full((2,), 7), t.new_full((2,), 7))
    assert_same(v.new_tensor([1.5]), t.new_tensor([1.5]))
    assert_same(v.new_zeros(2, dtype=vg.float64), t.new_zeros(2, dtype=torch.float64))
    assert v.new_empty(3).shape == (3,)


def test_factories_go_through_the_dispatcher():
    from vizgrad.ops.registry import OPERATORS

    for name in ("zeros", "ones", "full", "empty.memory_format", "zeros_like", "full.out"):
        assert f"aten::{name}" in OPERATORS


# --- ranges: arange, linspace, logspace, eye, tril/triu, diag ----------------------------

RANGE_EXPRS = [
    "lib.arange(5)",
    "lib.arange(5.)",
    "lib.arange(1, 4.0)",
    "lib.arange(0, 1, 0.1)",
    "lib.arange(0, 2.5, dtype=lib.int64)",
    "lib.arange(0.5, 5, dtype=lib.int64)",
    "lib.arange(0, -5, -1.5)",
    "lib.arange(True)",
    "lib.arange(5, dtype=lib.float16)",
    "lib.arange(300, dtype=lib.uint8)",
    "lib.arange(lib.tensor(3))",
    "lib.arange(lib.tensor(3.))",
    "lib.arange(5, 5)",
    "lib.arange(1, 2, 0.3)",
    "lib.arange(-1.5, 1, 0.5)",
    "lib.arange(np.float64(3))",
    "lib.arange(np.int32(3))",
    "lib.arange(start=1, end=5)",
    "lib.arange(10, 0, -3)",
    "lib.arange(0, 10, 3, dtype=lib.float64)",
    "lib.arange(0, 1, 1 / 3)",
    "lib.arange(4, dtype=lib.int8)",
    "lib.linspace(0, 1, 5)",
    "lib.linspace(0, 10, 4, dtype=lib.int64)",
    "lib.linspace(0, 1, 1)",
    "lib.linspace(0, 1, 0)",
    "lib.linspace(0, 1j, 3)",
    "lib.linspace(lib.tensor(0.), lib.tensor(1.), 3)",
    "lib.linspace(-5, 5, 7, dtype=lib.uint8)",
    "lib.linspace(3, -2, 6, dtype=lib.int32)",
    "lib.linspace(np.float64(0), 1, 3)",
    "lib.linspace(-1, 1, 11, dtype=lib.float64)",
    "lib.linspace(0, 1, 7, dtype=lib.float16)",
    "lib.logspace(0, 2, 3)",
    "lib.logspace(0, 2, 3, base=2)",
    "lib.logspace(0, 2, 3, dtype=lib.int64)",
    "lib.logspace(0, 1, 0)",
    "lib.logspace(0, 2, 3, 2)",
    "lib.logspace(-2, 2, 9, dtype=lib.float64)",
    "lib.eye(3)",
    "lib.eye(2, 3)",
    "lib.eye(3, dtype=lib.int32)",
    "lib.eye(0)",
    "lib.eye(3, dtype=lib.bool)",
    "lib.eye(n=2, m=3)",
    "lib.eye(4, 2, dtype=lib.complex64)",
    "lib.diag(lib.arange(3))",
    "lib.diag(lib.arange(3), 1)",
    "lib.diag(lib.arange(3), -2)",
    "lib.diag(lib.arange(12).reshape(3, 4))",
    "lib.diag(lib.arange(12).reshape(3, 4), 2)",
    "lib.diag(lib.arange(12).reshape(3, 4), -5)",
    "lib.diag(lib.arange(12).reshape(3, 4).t())",
    "lib.diag_embed(lib.arange(6).reshape(2, 3))",
    "lib.diag_embed(lib.arange(3), 1)",
    "lib.diag_embed(lib.arange(6).reshape(2, 3), 0, 0, 2)",
    "lib.diag_embed(lib.arange(6).reshape(2, 3), dim1=-1, dim2=0)",
    "lib.diag_embed(lib.arange(6.).reshape(2, 3), -1)",
]


@pytest.mark.parametrize("expr", RANGE_EXPRS)
def test_ranges(expr):
    v, t = both(expr)
    assert_same(v, t)


RANGE_ERRORS = [
    "lib.arange(0, 5, -1)",
    "lib.arange(0, 5, 0)",
    "lib.arange(0, float('inf'))",
    "lib.arange(5, dtype=lib.bool)",
    "lib.arange(5, dtype=lib.complex64)",
    "lib.arange('a')",
    "lib.arange(1j)",
    "lib.arange(0, 10**20)",
    "lib.arange(0, 1, 1e-20)",
    "lib.arange(0, 5, dtype=lib.float64, out=lib.empty(5))",
    "lib.linspace(0, 1, -1)",
    "lib.linspace(lib.tensor([0., 1.]), 1, 3)",
    "lib.linspace(0, 1, 3, dtype=lib.bool)",
    "lib.logspace(0, 1, -2)",
    "lib.eye(-1)",
    "lib.eye(2, -1)",
    "lib.eye(2.5)",
    "lib.tril(lib.ones(3))",
    "lib.triu(lib.ones(()))",
    "lib.ones(3).tril_()",
    "lib.tril([1])",
    "lib.tril(lib.ones(3, 3), 1.5)",
    "lib.tril(lib.ones(3, 3, dtype=lib.int64), out=lib.empty(3, 3))",
    "lib.triu(lib.ones(3, 3), out=lib.empty(3, 3, dtype=lib.int64))",
    "lib.diag(lib.ones(2, 2, 2))",
    "lib.diag(lib.tensor(1))",
    "lib.diag_embed(lib.arange(3), 0, 0, 0)",
    "lib.diag_embed(lib.tensor(1.))",
]


@pytest.mark.parametrize("expr", RANGE_ERRORS)
def test_range_errors(expr):
    same_error(expr)


@pytest.mark.parametrize("fn", ["tril", "triu"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("diagonal", [0, 1, -1, 5, -5])
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3), (4, 1)])
def test_tril_triu(fn, layout, diagonal, shape):
    v, t = make_pair(shape, "float32", layout)
    assert_same(getattr(vg, fn)(v, diagonal), getattr(torch, fn)(t, diagonal))
    assert_same(getattr(v, fn)(diagonal=diagonal), getattr(t, fn)(diagonal=diagonal))
    if layout != "expanded":
        version = v._version
        result = getattr(v, fn + "_")(diagonal)
        assert result is v and v._version == version + 1
        assert_same(v, getattr(t, fn + "_")(diagonal))


@pytest.mark.parametrize("dtype", DTYPES)
def test_tril_dtypes_and_out(dtype):
    v, t = make_pair((3, 3), dtype, "transposed")
    assert_same(vg.tril(v), torch.tril(t))
    v_out, t_out = make_pair((3, 3), dtype, "transposed", seed=1)
    result = vg.triu(v, 1, out=v_out)
    assert result is v_out and v_out._version == 1
    assert_same(result, torch.triu(t, 1, out=t_out))


@pytest.mark.parametrize(
    "expr",
    [
        "lib.arange(0, 5, out=lib.empty(5, dtype=lib.int32))",
        "lib.arange(0., 5, out=lib.empty(5, dtype=lib.int32))",
        "lib.arange(6, out=lib.empty(2, 3))",
        "lib.arange(6., out=lib.empty(3, 2).t())",
        "lib.linspace(0, 1, 6, out=lib.empty(3, 2).t())",
        "lib.logspace(0, 1, 3, out=lib.empty(3))",
        "lib.eye(2, 3, out=lib.empty(3, 2).t())",
        "lib.eye(3, out=lib.empty(3, 3, dtype=lib.int64))",
        "lib.diag(lib.arange(3.), out=lib.empty(3, 3))",
    ],
)
def test_range_out(expr):
    v, t = both(expr)
    assert_same(v, t)
    assert v._version == 1


def test_range_out_resizes():
    with pytest.warns(UserWarning, match="The number of elements in the out tensor"):
        v = vg.arange(0, 5, out=vg.empty(2))
    assert_same(v, torch.arange(0, 5, out=torch.empty(5)))
    assert_same(vg.linspace(0, 1, 3, out=vg.empty(0)), torch.linspace(0, 1, 3))


@pytest.mark.parametrize(
    "call",
    ["lib.empty(2, 3, 2, 2, memory_format=lib.channels_last).stride()",
     "lib.empty((0, 3, 2, 2), memory_format=lib.channels_last).stride()",
     "lib.empty(2, 3, 2, 2, memory_format=lib.contiguous_format).stride()",
     "lib.empty(2, 3, memory_format=lib.channels_last)",
     "lib.empty(2, 3, memory_format=lib.preserve_format)",
     "lib.zeros_like(lib.ones(2, 3), memory_format=lib.channels_last)",
     "lib.zeros_like(lib.ones(2, 3, 2, 2), memory_format=lib.channels_last).stride()",
     "lib.empty_like(lib.ones(2, 3, 2, 2)[:, :, ::2]).stride()",
     "lib.empty_like(lib.ones(2, 3, 4, 4).contiguous(memory_format=lib.channels_last)[:, :, ::2]).stride()",
     "lib.rand_like(lib.ones(2, 3, 2, 2), memory_format=lib.channels_last).stride()",
     "lib.full_like(lib.ones(2, 3, 2, 2), 2, memory_format=lib.channels_last).stride()",
     "lib.ones_like(lib.ones(2, 3, 2, 2).t(), memory_format=lib.contiguous_format).stride()",
     "lib.ones(2, 3, 2, 2).clone(memory_format=lib.channels_last).stride()"],
)  # fmt: skip
def test_a_new_tensor_takes_the_memory_format_it_is_asked_for(call):
    """``empty``'s and ``empty_like``'s memory-format rule, which every new tensor shaped
    after another follows: channels-last strides, PyTorch's errors for a wrong rank."""

    def outcome(lib):
        try:
            return repr(eval(call, {"lib": lib}))  # noqa: S307
        except RuntimeError as error:
            return f"RuntimeError: {error}"

    assert outcome(vg) == outcome(torch)

"""Random numbers: shapes, dtypes and errors as PyTorch; values reproducible by seed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import LAYOUTS, assert_same_error, make_pair

import vizgrad as vg


def meta(x):
    return (
        x.dtype.name if isinstance(x, vg.Tensor) else str(x.dtype)[6:],
        tuple(x.shape),
        x.stride(),
    )


def both(expr: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (eval(expr, {"lib": vg, "np": np}), eval(expr, {"lib": torch, "np": np}))  # noqa: S307


SHAPE_EXPRS = [
    "lib.rand(2, 3)",
    "lib.rand((2, 3))",
    "lib.rand([4])",
    "lib.rand(())",
    "lib.rand(2, 0)",
    "lib.rand(2, dtype=lib.float64)",
    "lib.rand(2, dtype=lib.float16)",
    "lib.rand(2, dtype=lib.complex64)",
    "lib.randn(2, 3)",
    "lib.randn(size=(3,))",
    "lib.randn(2, dtype=lib.complex128)",
    "lib.randint(10, (3,))",
    "lib.randint(3, 10, (3, 2))",
    "lib.randint(10, (3,), dtype=lib.float32)",
    "lib.randint(0, 2, (3,), dtype=lib.bool)",
    "lib.randint(10, size=(2,))",
    "lib.randint(low=2, high=10, size=(2,))",
    "lib.randint(0, 5, (4,), dtype=lib.uint8)",
    "lib.randperm(5)",
    "lib.randperm(0)",
    "lib.randperm(5, dtype=lib.float32)",
    "lib.randperm(256, dtype=lib.uint8)",
    "lib.randperm(3, dtype=lib.float16)",
    "lib.normal(lib.zeros(3), lib.ones(3))",
    "lib.normal(lib.zeros(3), 1.)",
    "lib.normal(0., lib.ones(3))",
    "lib.normal(0., 1., (2, 3))",
    "lib.normal(0., 1., size=(2, 3), dtype=lib.float64)",
    "lib.normal(0, 1, (2,))",
    "lib.normal(lib.zeros(2, 1), lib.ones(3))",
    "lib.normal(lib.zeros(3, dtype=lib.float64), lib.ones(3))",
    "lib.normal(lib.zeros(3), lib.ones(3, dtype=lib.float64))",
    "lib.normal(lib.zeros(3))",
    "lib.bernoulli(lib.full((3,), 0.5))",
    "lib.bernoulli(lib.full((3,), 0.5), 0.2)",
    "lib.bernoulli(lib.ones(3, dtype=lib.int64), 0.5)",
    "lib.bernoulli(lib.ones(4, 3).as_strided((3, 4), (1, 3)))",
    "lib.multinomial(lib.ones(4), 2)",
    "lib.multinomial(lib.ones(2, 4), 5, True)",
    "lib.rand_like(lib.ones(4, 3).as_strided((3, 4), (1, 3)))",
    "lib.randn_like(lib.ones(3), dtype=lib.float64)",
    "lib.randint_like(lib.ones(4, 3).as_strided((3, 4), (1, 3)), 10)",
    "lib.randint_like(lib.ones(3), 3, 10)",
    "lib.randint_like(lib.ones(3, dtype=lib.int32), 10)",
    "lib.randint_like(lib.ones(3), high=10)",
]


@pytest.mark.parametrize("expr", SHAPE_EXPRS)
def test_shapes_dtypes_strides(expr):
    v, t = both(expr)
    assert meta(v) == meta(t)


ERROR_EXPRS = [
    "lib.rand(2, dtype=lib.int64)",
    "lib.rand(2, dtype=lib.bool)",
    "lib.rand(-1)",
    "lib.rand(2, out=lib.empty(2, dtype=lib.int64))",
    "lib.randn(2, dtype=lib.int64)",
    "lib.randint(5, 3, (3,))",
    "lib.randint(3, 3, (3,))",
    "lib.randint(0, 300, (3,), dtype=lib.uint8)",
    "lib.randint(-1, 3, (3,), dtype=lib.uint8)",
    "lib.randint(0, 3, (3,), dtype=lib.bool)",
    "lib.randint(10, 3)",
    "lib.randint(2.5, (3,))",
    "lib.randint(0, 2**63, (3,))",
    "lib.randint(0, 10, (3,), dtype=lib.complex64)",
    "lib.randint(0, 70000, (3,), dtype=lib.float16)",
    "lib.randperm(-1)",
    "lib.randperm(300, dtype=lib.uint8)",
    "lib.randperm(5, dtype=lib.bool)",
    "lib.randperm(3000, dtype=lib.float16)",
    "lib.normal(lib.zeros(3), -1.)",
    "lib.normal(lib.zeros(3), lib.tensor([1., -1, 1]))",
    "lib.normal(0., -1., (2,))",
    "lib.normal(lib.zeros(4), lib.ones(2, 2))",
    "lib.normal(lib.zeros(3, dtype=lib.int64), lib.ones(3))",
    "lib.normal(lib.zeros(3, dtype=lib.int64), 1.)",
    "lib.normal(0., lib.ones(3, dtype=lib.int64))",
    "lib.normal(0., 1., (2,), dtype=lib.int64)",
    "lib.bernoulli(lib.full((3,), 1.5))",
    "lib.bernoulli(lib.full((3,), 0.5), p=1.5)",
    "lib.bernoulli(lib.ones(3, dtype=lib.int64))",
    "lib.bernoulli(lib.ones(3, dtype=lib.bool))",
    "lib.multinomial(lib.ones(2, 4), 5)",
    "lib.multinomial(lib.tensor([1., -1]), 1)",
    "lib.multinomial(lib.zeros(3), 1)",
    "lib.multinomial(lib.ones(3), 0)",
    "lib.multinomial(lib.ones(3, dtype=lib.int64), 1)",
    "lib.multinomial(lib.ones(2, 2, 2), 1)",
    "lib.ones(3).uniform_(2, 1)",
    "lib.ones(3, dtype=lib.int64).uniform_()",
    "lib.ones(3).normal_(0, -1)",
    "lib.ones(3, dtype=lib.int64).normal_()",
    "lib.ones(3).random_(5, 2)",
    "lib.ones(3, dtype=lib.uint8).random_(0, 300)",
    "lib.ones(3).bernoulli_(1.5)",
    "lib.ones(3).exponential_(-1)",
    "lib.ones(3).exponential_(0)",
    "lib.ones(3, dtype=lib.int64).exponential_()",
    "lib.ones(1, 3).expand(2, 3).uniform_()",
    "lib.rand_like(lib.ones(3, dtype=lib.int64))",
    "lib.randint_like(lib.ones(3), 10, 3)",
    "lib.manual_seed(2**64)",
    "lib.manual_seed('a')",
    "lib.Generator().set_state(lib.zeros(3))",
    "lib.Generator().set_state([1])",
]


@pytest.mark.parametrize("expr", ERROR_EXPRS)
def test_errors(expr):
    assert_same_error(lambda: eval(expr, {"lib": vg}), lambda: eval(expr, {"lib": torch}))  # noqa: S307


def test_set_state_of_wrong_size():
    error, _ = assert_same_error(
        lambda: vg.Generator().set_state(vg.zeros(3, dtype=vg.uint8)),
        lambda: torch.Generator().set_state(torch.zeros(3, dtype=torch.uint8)),
        match_message=False,
    )
    assert "found the input RNG state size to be 3" in str(error)


SAMPLERS = [
    lambda g: vg.rand(3, 4, generator=g),
    lambda g: vg.randn(5, generator=g),
    lambda g: vg.randn(3, dtype=vg.complex64, generator=g),
    lambda g: vg.randint(0, 100, (6,), generator=g),
    lambda g: vg.randperm(10, generator=g),
    lambda g: vg.normal(vg.zeros(4), vg.ones(4), generator=g),
    lambda g: vg.normal(0.0, 2.0, (4,), generator=g),
    lambda g: vg.bernoulli(vg.full((8,), 0.5), generator=g),
    lambda g: vg.multinomial(vg.ones(6), 3, generator=g),
    lambda g: vg.rand_like(vg.ones(3), generator=g),
    lambda g: vg.empty(5).uniform_(2, 3, generator=g),
    lambda g: vg.empty(5).normal_(generator=g),
    lambda g: vg.empty(5).random_(0, 50, generator=g),
    lambda g: vg.empty(5).exponential_(generator=g),
    lambda g: vg.empty(5).bernoulli_(generator=g),
]


@pytest.mark.parametrize("sample", SAMPLERS)
def test_reproducible_by_seed(sample):
    first = sample(vg.Generator().manual_seed(7)).tolist()
    again = sample(vg.Generator().manual_seed(7)).tolist()
    other = sample(vg.Generator().manual_seed(8)).tolist()
    assert first == again
    assert first != other


def test_default_generator_and_manual_seed():
    assert isinstance(vg.manual_seed(3), vg.Generator)
    assert vg.initial_seed() == 3
    a = vg.rand(5).tolist()
    vg.manual_seed(3)
    assert vg.rand(5).tolist() == a
    vg.manual_seed(-1)
    assert vg.initial_seed() == torch.manual_seed(-1).initial_seed() == 2**64 - 1
    vg.manual_seed(1.5)
    assert vg.initial_seed() == 1
    new = vg.seed()
    assert isinstance(new, int) and vg.initial_seed() == new


def test_generator_is_independent_of_default():
    g = vg.Generator().manual_seed(5)
    vg.manual_seed(5)
    expected = vg.rand(4).tolist()
    vg.manual_seed(5)
    vg.rand(100, generator=g)  # drawing from g leaves the default stream alone
    assert vg.rand(4).tolist() == expected


def test_get_state_set_state_round_trip():
    g = vg.Generator().manual_seed(11)
    vg.rand(3, generator=g)
    state = g.get_state()
    assert state.dtype is vg.uint8 and state.dim() == 1
    after = vg.randn(6, generator=g).tolist()
    assert g.set_state(state) is g
    assert vg.randn(6, generator=g).tolist() == after
    assert g.initial_seed() == 11
    other = vg.Generator().set_state(state)
    assert vg.randn(6, generator=other).tolist() == after
    vg.set_rng_state(state)
    assert vg.randn(6).tolist() == after
    assert vg.get_rng_state().tolist() == vg.default_generator.get_state().tolist()


def test_generator_defaults_like_torch():
    assert vg.Generator().initial_seed() == torch.Generator().initial_seed()
    assert str(vg.Generator().device) == str(torch.Generator().device)


@pytest.mark.parametrize("layout", LAYOUTS[:3])
def test_inplace_samplers_bump_version_and_keep_layout(layout):
    v, t = make_pair((3, 4), "float32", layout)
    before_stride = v.stride()
    for call in (
        lambda x: x.uniform_(),
        lambda x: x.normal_(),
        lambda x: x.random_(10),
        lambda x: x.bernoulli_(),
        lambda x: x.bernoulli_(vg.full((4,), 0.5)),
        lambda x: x.exponential_(),
    ):
        version = v._version
        assert call(v) is v
        assert v._version == version + 1
    assert v.stride() == before_stride


def test_out_variants_bump_version():
    out = vg.empty(3)
    assert vg.rand(3, out=out) is out and out._version == 1
    out = vg.empty(3, dtype=vg.int32)
    assert vg.randperm(3, out=out) is out and out._version == 1
    assert sorted(out.tolist()) == [0, 1, 2]
    out = vg.empty(2)
    assert vg.randint(0, 10, (2,), out=out) is out and out._version == 1


N = 100_000


def test_distributions_sanity():
    g = vg.Generator().manual_seed(0)
    uniform = vg.rand(N, generator=g).numpy()
    assert uniform.min() >= 0 and uniform.max() < 1 and abs(uniform.mean() - 0.5) < 0.01
    half = vg.rand(N, dtype=vg.float16, generator=g).numpy()
    assert half.max() < 1
    normal = vg.randn(N, generator=g).numpy()
    assert abs(normal.mean()) < 0.02 and abs(normal.std() - 1) < 0.02
    complex_normal = vg.randn(N, dtype=vg.complex64, generator=g).numpy()
    assert abs(np.mean(np.abs(complex_normal) ** 2) - 1) < 0.02
    shifted = vg.normal(3.0, 2.0, (N,), generator=g).numpy()
    assert abs(shifted.mean() - 3) < 0.05 and abs(shifted.std() - 2) < 0.05
    ints = vg.randint(-3, 7, (N,), generator=g).numpy()
    assert ints.min() == -3 and ints.max() == 6 and abs(ints.mean() - 1.5) < 0.05
    coins = vg.bernoulli(vg.full((N,), 0.3), generator=g).numpy()
    assert set(np.unique(coins)) <= {0.0, 1.0} and abs(coins.mean() - 0.3) < 0.01
    exponential = vg.empty(N, dtype=vg.float64).exponential_(2.0, generator=g).numpy()
    assert exponential.min() >= 0 and abs(exponential.mean() - 0.5) < 0.01
    uniform_range = vg.empty(N).uniform_(-2, 4, generator=g).numpy()
    assert (
        uniform_range.min() >= -2
        and uniform_range.max() < 4
        and abs(uniform_range.mean() - 1) < 0.05
    )
    permutation = vg.randperm(1000, generator=g).numpy()
    assert sorted(permutation.tolist()) == list(range(1000))
    draws = vg.multinomial(vg.tensor([0.0, 1.0, 3.0]), N, True, generator=g).numpy()
    assert 0 not in draws and abs((draws == 2).mean() - 0.75) < 0.01
    without = vg.multinomial(vg.ones(2, 5), 5, generator=g).numpy()
    assert all(sorted(row) == [0, 1, 2, 3, 4] for row in without.tolist())


def test_random_defaults_cover_dtype_range():
    g = vg.Generator().manual_seed(1)
    bools = vg.empty(1000, dtype=vg.bool).random_(generator=g).numpy()
    assert set(bools.tolist()) == {False, True}
    bytes_ = vg.empty(5000, dtype=vg.uint8).random_(generator=g).numpy()
    assert bytes_.max() > 250
    floats = vg.empty(1000).random_(generator=g).numpy()
    assert floats.min() >= 0 and floats.max() <= 2**24 and np.all(floats == np.round(floats))


def test_random_ops_are_declared():
    from vizgrad.ops.registry import OPERATORS

    for name in (
        "rand.generator",
        "uniform_",
        "normal_",
        "random_.from",
        "bernoulli_.float",
        "normal.Tensor_Tensor",
        "randint.low_generator_out",
    ):
        assert f"aten::{name}" in OPERATORS

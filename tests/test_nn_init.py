"""nn.init against PyTorch: fan computations and gains exactly, deterministic fills
(eye_, dirac_, constants) exactly, random fills by their distribution's statistics
(vizgrad's random streams differ from PyTorch's, so the same seed gives other numbers)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg
from vizgrad.nn import init as vinit

tinit = torch.nn.init

SHAPES = [(5, 3), (300, 400), (8, 4, 3), (16, 3, 5, 5), (2, 3, 2, 2, 2), (0, 4), (3, 0, 2)]


@pytest.mark.parametrize("shape", SHAPES + [(7,), ()])
def test_fan_in_and_fan_out(shape):
    def vg_call():
        return vinit._calculate_fan_in_and_fan_out(vg.empty(shape))

    def torch_call():
        return tinit._calculate_fan_in_and_fan_out(torch.empty(shape))

    if len(shape) < 2:
        assert_same_error(vg_call, torch_call)
    else:
        assert vg_call() == torch_call()
        for mode in ("fan_in", "fan_out", "FAN_IN"):
            assert vinit._calculate_correct_fan(vg.empty(shape), mode) == (
                tinit._calculate_correct_fan(torch.empty(shape), mode)
            )


def test_correct_fan_refuses_unknown_modes():
    assert_same_error(
        lambda: vinit._calculate_correct_fan(vg.empty(2, 2), "fan_avg"),
        lambda: tinit._calculate_correct_fan(torch.empty(2, 2), "fan_avg"),
    )


@pytest.mark.parametrize(
    "args",
    [
        ("linear",),
        ("conv1d",),
        ("conv2d",),
        ("conv3d",),
        ("conv_transpose1d",),
        ("conv_transpose2d",),
        ("conv_transpose3d",),
        ("sigmoid",),
        ("tanh",),
        ("relu",),
        ("leaky_relu",),
        ("leaky_relu", 0.2),
        ("leaky_relu", 3),
        ("leaky_relu", math.sqrt(5)),
        ("selu",),
        ("leaky_relu", True),
        ("leaky_relu", "0.1"),
        ("softmax",),
    ],
)
def test_calculate_gain(args):
    try:
        want = tinit.calculate_gain(*args)
    except ValueError:
        assert_same_error(lambda: vinit.calculate_gain(*args), lambda: tinit.calculate_gain(*args))
    else:
        got = vinit.calculate_gain(*args)
        assert got == want and type(got) is type(want)


# --- deterministic fills: exactly torch's ------------------------------------------------------


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2), (0, 3)])
def test_eye_(shape):
    assert_same(vinit.eye_(vg.empty(shape)), tinit.eye_(torch.empty(shape)))


@pytest.mark.parametrize(
    "shape, groups",
    [((4, 2, 3), 1), ((6, 4, 3, 3), 2), ((4, 6, 2, 2), 1), ((3, 1, 3, 3, 3), 3), ((2, 3, 4, 4), 1)],
)
def test_dirac_(shape, groups):
    assert_same(vinit.dirac_(vg.empty(shape), groups), tinit.dirac_(torch.empty(shape), groups))


@pytest.mark.parametrize(
    "fill, args",
    [("constant_", (2.5,)), ("ones_", ()), ("zeros_", ()), ("constant_", (-1,))],
)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_constant_fills(fill, args, dtype):
    got = getattr(vinit, fill)(vg.empty(3, 4, dtype=getattr(vg, dtype)), *args)
    want = getattr(tinit, fill)(torch.empty(3, 4, dtype=getattr(torch, dtype)), *args)
    assert_same(got, want)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, init: init.eye_(lib.empty(2, 2, 2)),
        lambda lib, init: init.eye_(lib.empty(2)),
        lambda lib, init: init.dirac_(lib.empty(2, 2)),
        lambda lib, init: init.dirac_(lib.empty(3, 2, 2), groups=2),
        lambda lib, init: init.orthogonal_(lib.empty(4)),
        lambda lib, init: init.sparse_(lib.empty(2, 2, 2), 0.5),
        lambda lib, init: init.xavier_uniform_(lib.empty(3)),
        lambda lib, init: init.kaiming_normal_(lib.empty(3, 3), mode="fan_avg"),
        lambda lib, init: init.kaiming_uniform_(lib.empty(3, 3), nonlinearity="swish"),
        lambda lib, init: init.uniform_(lib.empty(3), 2, 1),
        lambda lib, init: init.normal_(lib.empty(3), 0, -1),
        lambda lib, init: init.orthogonal_(lib.empty(3, 3, dtype=lib.float16)),
        lambda lib, init: init.orthogonal_(lib.empty(3, 3, dtype=lib.int64)),
    ],
)
def test_errors(call):
    assert_same_error(lambda: call(vg, vinit), lambda: call(torch, tinit))


# --- random fills: the same distribution as torch's ---------------------------------------------


def _stats(values: np.ndarray) -> dict:
    values = values.astype(np.float64).ravel()
    return {
        "mean": values.mean(),
        "std": values.std(),
        "min": values.min(),
        "max": values.max(),
        "abs_mean": np.abs(values).mean(),
    }


def _compare_samples(got: np.ndarray, want: np.ndarray, *, bounded: bool):
    """Two large samples of one distribution agree in mean, spread and (when the
    distribution is bounded) range, within a few standard errors."""
    g, w = _stats(got), _stats(want)
    spread = max(w["std"], 1e-12)
    # Six standard errors of the difference of two samples' means (and spreads).
    tolerance = 6 * spread * math.sqrt(2 / got.size)
    assert abs(g["mean"] - w["mean"]) < tolerance, (g, w)
    assert abs(g["std"] - w["std"]) < tolerance, (g, w)
    assert abs(g["abs_mean"] - w["abs_mean"]) < tolerance, (g, w)
    if bounded:
        # The extremes of a bounded distribution are near its bounds in both samples.
        assert abs(g["min"] - w["min"]) < 0.01 * spread and abs(g["max"] - w["max"]) < 0.01 * spread


RANDOM_FILLS = [
    ("uniform_", (), {}, True),
    ("uniform_", (-3.0, 0.5), {}, True),
    ("normal_", (), {}, False),
    ("normal_", (2.0, 0.3), {}, False),
    ("trunc_normal_", (), {}, True),
    ("trunc_normal_", (0.5, 2.0, -1.0, 1.5), {}, True),  # the normal-and-redraw regime
    ("trunc_normal_", (0.0, 1.0, 2.0, 3.0), {}, True),  # little mass: rejection sampling
    ("trunc_normal_", (0.0, 0.02), {"a": -0.04, "b": 0.04}, True),
    ("xavier_uniform_", (), {}, True),
    ("xavier_uniform_", (2.0,), {}, True),
    ("xavier_normal_", (), {"gain": 0.5}, False),
    ("kaiming_uniform_", (math.sqrt(5),), {}, True),
    ("kaiming_uniform_", (), {"mode": "fan_out", "nonlinearity": "relu"}, True),
    ("kaiming_normal_", (), {}, False),
    ("kaiming_normal_", (0.1,), {"mode": "fan_out", "nonlinearity": "leaky_relu"}, False),
]


@pytest.mark.parametrize("fill, args, kwargs, bounded", RANDOM_FILLS)
@pytest.mark.parametrize("shape", [(300, 400), (40, 30, 5, 5)])
def test_random_fills_match_torch_statistics(fill, args, kwargs, bounded, shape):
    torch.manual_seed(0)
    vg.manual_seed(0)
    got = getattr(vinit, fill)(vg.empty(shape), *args, **kwargs)
    want = getattr(tinit, fill)(torch.empty(shape), *args, **kwargs)
    assert got.dtype == vg.float32 and tuple(got.shape) == tuple(want.shape)
    _compare_samples(got.numpy(), want.numpy(), bounded=bounded)


@pytest.mark.parametrize("fill, args, kwargs, bounded", RANDOM_FILLS)
def test_random_fills_respect_their_bounds(fill, args, kwargs, bounded):
    values = getattr(vinit, fill)(vg.empty(200, 100), *args, **kwargs).numpy()
    if fill == "trunc_normal_":
        full = {"mean": 0.0, "std": 1.0, "a": -2.0, "b": 2.0}
        full.update(zip(("mean", "std", "a", "b"), args, strict=False))
        full.update(kwargs)
        assert values.min() >= full["a"] and values.max() <= full["b"]
    elif fill == "uniform_":
        a, b = args or (0.0, 1.0)
        assert values.min() >= a and values.max() < b
    elif fill == "kaiming_uniform_" and not kwargs:
        # Linear's default: a=sqrt(5) makes the bound 1/sqrt(fan_in).
        assert np.abs(values).max() <= 1 / math.sqrt(100)


def test_trunc_normal_warns_when_mean_is_far_from_the_interval():
    messages = []
    for init, lib in ((vinit, vg), (tinit, torch)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            init.trunc_normal_(lib.empty(100), mean=5.0, std=1.0, a=-1.0, b=1.0)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


@pytest.mark.parametrize("fill", ["kaiming_uniform_", "kaiming_normal_"])
def test_kaiming_on_an_empty_tensor_warns_and_does_nothing(fill):
    messages = []
    for init, lib in ((vinit, vg), (tinit, torch)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = getattr(init, fill)(lib.empty(0, 3))
        messages.append([str(w.message) for w in caught])
        assert tuple(out.shape) == (0, 3)
    assert messages[0] == messages[1] == ["Initializing zero-element tensors is a no-op"]


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (6, 2, 3, 3), (0, 3)])
@pytest.mark.parametrize("gain", [1.0, 2.5])
def test_orthogonal_(shape, gain):
    got = vinit.orthogonal_(vg.empty(shape), gain=gain)
    want = tinit.orthogonal_(torch.empty(shape), gain=gain)
    assert tuple(got.shape) == tuple(want.shape)
    if got.numel() == 0:
        return
    rows = shape[0]
    matrix = got.numpy().reshape(rows, -1).astype(np.float64)
    # Semi-orthogonal: the smaller Gram matrix is gain^2 times the identity, as torch's is.
    gram = matrix @ matrix.T if rows <= matrix.shape[1] else matrix.T @ matrix
    torch_matrix = want.numpy().reshape(rows, -1).astype(np.float64)
    torch_gram = (
        torch_matrix @ torch_matrix.T if rows <= matrix.shape[1] else torch_matrix.T @ torch_matrix
    )
    np.testing.assert_allclose(gram, torch_gram, atol=1e-5 * gain**2)
    np.testing.assert_allclose(gram, gain**2 * np.eye(gram.shape[0]), atol=1e-5 * gain**2)


def test_orthogonal_is_haar_distributed():
    # Sign-corrected Q: the diagonal of a Haar-random orthogonal matrix averages to 0
    # (an uncorrected QR would bias it); its entries have variance 1/n.
    n, draws = 6, 400
    diagonals = np.stack([np.diag(vinit.orthogonal_(vg.empty(n, n)).numpy()) for _ in range(draws)])
    assert abs(diagonals.mean()) < 4 * math.sqrt(1 / n / (n * draws))
    assert abs(diagonals.var() - 1 / n) < 0.2 / n


@pytest.mark.parametrize("sparsity", [0.0, 0.1, 0.5, 0.95])
def test_sparse_(sparsity):
    got = vinit.sparse_(vg.empty(40, 30), sparsity, std=0.5)
    want = tinit.sparse_(torch.empty(40, 30), sparsity, std=0.5)
    zeros_per_column = (got.numpy() == 0).sum(axis=0)
    torch_zeros = (want.numpy() == 0).sum(axis=0)
    assert zeros_per_column.tolist() == torch_zeros.tolist() == [math.ceil(sparsity * 40)] * 30
    nonzero = got.numpy()[got.numpy() != 0]
    if nonzero.size > 200:
        assert abs(nonzero.std() - 0.5) < 0.1


# --- the contract of every init function -------------------------------------------------------


INPLACE_FILLS = [
    ("uniform_", ()),
    ("normal_", ()),
    ("trunc_normal_", ()),
    ("constant_", (0.5,)),
    ("ones_", ()),
    ("zeros_", ()),
    ("eye_", ()),
    ("xavier_uniform_", ()),
    ("xavier_normal_", ()),
    ("kaiming_uniform_", ()),
    ("kaiming_normal_", ()),
    ("orthogonal_", ()),
    ("sparse_", (0.3,)),
]


@pytest.mark.parametrize("fill, args", INPLACE_FILLS)
def test_fills_a_parameter_in_place_without_recording(fill, args):
    p = vg.nn.Parameter(vg.zeros(6, 4))
    ptr, version = p.data_ptr(), p._version
    out = getattr(vinit, fill)(p, *args)
    assert out is p
    assert p.data_ptr() == ptr and p._version > version
    assert p.grad_fn is None and p.is_leaf and p.requires_grad
    assert type(p) is vg.nn.Parameter


@pytest.mark.parametrize("fill, args", INPLACE_FILLS)
def test_fills_a_non_contiguous_view(fill, args):
    base = vg.full((8, 6), 7.0)
    view = base[::2, 1:5]
    getattr(vinit, fill)(view, *args)
    untouched = base.numpy().copy()
    untouched[::2, 1:5] = 7.0
    assert (untouched == 7.0).all()
    if fill == "eye_":
        np.testing.assert_array_equal(view.numpy(), np.eye(4, 4))


@pytest.mark.parametrize(
    "fill, args",
    [
        ("uniform_", ()),
        ("normal_", ()),
        ("trunc_normal_", ()),
        ("trunc_normal_", (0.0, 1.0, 2.0, 3.0)),
        ("xavier_uniform_", ()),
        ("xavier_normal_", ()),
        ("kaiming_uniform_", ()),
        ("kaiming_normal_", ()),
        ("orthogonal_", ()),
    ],
)
def test_generator_argument_gives_reproducible_draws(fill, args):
    def draw(seed):
        return getattr(vinit, fill)(
            vg.empty(5, 4), *args, generator=vg.Generator().manual_seed(seed)
        )

    assert_same(draw(3), torch.from_numpy(draw(3).numpy().copy()))
    assert not np.array_equal(draw(3).numpy(), draw(4).numpy())
    # The default generator is not used: reseeding it changes nothing.
    vg.manual_seed(0)
    first = draw(3)
    vg.manual_seed(1)
    assert np.array_equal(first.numpy(), draw(3).numpy())


@pytest.mark.parametrize(
    "old, args", [("uniform", ()), ("normal", ()), ("constant", (1.0,)), ("eye", ()),
                  ("xavier_uniform", ()), ("xavier_normal", ()), ("kaiming_uniform", ()),
                  ("kaiming_normal", ()), ("orthogonal", ()), ("sparse", (0.5,))],
)  # fmt: skip
def test_deprecated_aliases_warn(old, args):
    messages = []
    for init, lib in ((vinit, vg), (tinit, torch)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = getattr(init, old)(lib.empty(4, 4), *args)
        messages.append([(w.category, str(w.message)) for w in caught])
        assert tuple(out.shape) == (4, 4)
    assert messages[0] == messages[1]
    assert messages[0][0][0] is FutureWarning


def test_dirac_deprecated_alias():
    with pytest.warns(FutureWarning, match="nn.init.dirac_"):
        vinit.dirac(vg.empty(2, 2, 3))


def test_float64_and_float16_fills_keep_their_dtype():
    for dtype in (vg.float64, vg.float16):
        for fill in ("uniform_", "normal_", "trunc_normal_", "kaiming_uniform_"):
            out = getattr(vinit, fill)(vg.empty(20, 10, dtype=dtype))
            assert out.dtype == dtype
            assert np.isfinite(out.numpy()).all()

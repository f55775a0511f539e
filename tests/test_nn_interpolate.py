"""``F.interpolate``, the upsampling operators and the Upsample modules against PyTorch:
values and layouts for every mode, size and scale factor, gradients (and the gradient's
gradient), nodes, schemas and errors."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF
from grad_oracle import check_gradients
from oracle import assert_same, assert_same_error, make_pair

import vizgrad as vg
import vizgrad.nn.functional as F
from vizgrad.ops import upsample
from vizgrad.ops.registry import OPERATORS

MODES_BY_RANK = {
    3: ["nearest", "nearest-exact", "linear"],
    4: ["nearest", "nearest-exact", "bilinear", "bicubic"],
    5: ["nearest", "nearest-exact", "trilinear"],
}
SHAPES = {3: (2, 3, 5), 4: (2, 3, 4, 5), 5: (1, 2, 3, 4, 2)}
# Sizes and scale factors up and down, integral and not, per spatial dim.
RESIZES = [
    dict(scale_factor=2),
    dict(scale_factor=1.7),
    dict(scale_factor=0.6),
    dict(scale_factor=3.0, recompute_scale_factor=True),
    dict(scale_factor=1.3, recompute_scale_factor=True),
    dict(size=7),
    dict(size=2),
    dict(size=1),
]
CASES = [(rank, mode, resize) for rank, modes in MODES_BY_RANK.items() for mode in modes
         for resize in RESIZES]  # fmt: skip


def _ids(case):
    rank, mode, resize = case
    return f"{rank}d-{mode}-" + "-".join(f"{k}={v}" for k, v in resize.items())


def _align_options(mode):
    return [None] if mode.startswith("nearest") else [False, True]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_interpolate_matches_torch(case, dtype):
    rank, mode, resize = case
    x, tx = make_pair(SHAPES[rank], dtype, seed=rank)
    for align_corners in _align_options(mode):
        out = F.interpolate(x, mode=mode, align_corners=align_corners, **resize)
        expected = TF.interpolate(tx, mode=mode, align_corners=align_corners, **resize)
        assert_same(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("layout", ["transposed", "stepped", "offset", "channels_last"])
def test_interpolate_layouts(mode, layout):
    if layout == "channels_last":
        x, tx = make_pair((2, 3, 4, 5), "float32", seed=1)
        x = x.contiguous(memory_format=vg.channels_last)
        tx = tx.contiguous(memory_format=torch.channels_last)
    else:
        x, tx = make_pair((2, 3, 4, 5), "float32", layout, seed=1)
    assert_same(F.interpolate(x, size=(6, 3), mode=mode),
                TF.interpolate(tx, size=(6, 3), mode=mode))  # fmt: skip


def test_interpolate_per_dim_sizes_and_scales():
    x, tx = make_pair((1, 2, 4, 6), "float64", seed=2)
    for mode in ("nearest", "bilinear", "bicubic", "nearest-exact"):
        assert_same(F.interpolate(x, size=(3, 9), mode=mode),
                    TF.interpolate(tx, size=(3, 9), mode=mode))  # fmt: skip
        assert_same(F.interpolate(x, scale_factor=(1.5, 0.5), mode=mode),
                    TF.interpolate(tx, scale_factor=(1.5, 0.5), mode=mode))  # fmt: skip


def test_interpolate_empty_batch_and_uint8():
    x, tx = make_pair((0, 3, 4, 5), "float32")
    for mode in ("nearest", "bilinear"):
        assert_same(F.interpolate(x, size=(2, 3), mode=mode),
                    TF.interpolate(tx, size=(2, 3), mode=mode))  # fmt: skip
    b, tb = make_pair((2, 3, 3, 4), "uint8", seed=3)
    assert_same(F.interpolate(b, scale_factor=2), TF.interpolate(tb, scale_factor=2))
    assert_same(F.interpolate(b, size=(5, 7), mode="nearest-exact"),
                TF.interpolate(tb, size=(5, 7), mode="nearest-exact"))  # fmt: skip
    one_d, tone_d = make_pair((2, 3, 4), "uint8", seed=3)
    assert_same(F.interpolate(one_d, size=9), TF.interpolate(tone_d, size=9))


NODES = {
    ("nearest", 3): "UpsampleNearest1DBackward0",
    ("nearest", 4): "UpsampleNearest2DBackward0",
    ("nearest", 5): "UpsampleNearest3DBackward0",
    ("nearest-exact", 4): "UpsampleNearestExact2DBackward0",
    ("linear", 3): "UpsampleLinear1DBackward0",
    ("bilinear", 4): "UpsampleBilinear2DBackward0",
    ("trilinear", 5): "UpsampleTrilinear3DBackward0",
    ("bicubic", 4): "UpsampleBicubic2DBackward0",
}


@pytest.mark.parametrize("mode,rank", list(NODES), ids=lambda v: str(v))
@pytest.mark.parametrize("resize", [dict(scale_factor=2), dict(size=3), dict(scale_factor=1.4)],
                         ids=str)  # fmt: skip
def test_interpolate_gradients(mode, rank, resize):
    shape = {3: (2, 2, 4), 4: (1, 2, 3, 4), 5: (1, 1, 2, 3, 2)}[rank]
    # PyTorch's 1-D and 3-D nearest forward kernels compute an unchanged size's indices
    # (1.4 on 2 reads input 0 twice) while their backward copies it: the gradient, which
    # vizgrad matches, is then not the finite differences' one.
    inconsistent = mode == "nearest" and rank != 4 and resize == dict(scale_factor=1.4)
    for align_corners in _align_options(mode):
        check_gradients(
            lambda x, a=align_corners: F.interpolate(x, mode=mode, align_corners=a, **resize),
            lambda x, a=align_corners: TF.interpolate(x, mode=mode, align_corners=a, **resize),
            [shape], grad_fn_name=NODES[mode, rank], gradcheck=not inconsistent,
        )  # fmt: skip


def test_gradient_through_channels_last():
    x, tx = make_pair((1, 3, 3, 4), "float64", seed=4)
    x = x.contiguous(memory_format=vg.channels_last).detach().requires_grad_()
    tx = tx.contiguous(memory_format=torch.channels_last).detach().requires_grad_()
    F.interpolate(x, size=(5, 7), mode="bilinear").pow(2).sum().backward()
    TF.interpolate(tx, size=(5, 7), mode="bilinear").pow(2).sum().backward()
    assert_same(x.grad, tx.grad, check_stride=False)


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_double_backward_is_the_forward_again(mode):
    x, tx = make_pair((1, 2, 3, 3), "float64", seed=5)
    x.requires_grad_(), tx.requires_grad_()
    g, tg = make_pair((1, 2, 6, 6), "float64", seed=6)
    g.requires_grad_(), tg.requires_grad_()
    (gx,) = vg.autograd.grad(F.interpolate(x, scale_factor=2, mode=mode), x, g, create_graph=True)
    (tgx,) = torch.autograd.grad(TF.interpolate(tx, scale_factor=2, mode=mode), tx, tg,
                                 create_graph=True)  # fmt: skip
    assert_same(gx, tgx)
    assert gx.grad_fn.name() == tgx.grad_fn.name()
    gx.pow(2).sum().backward()
    tgx.pow(2).sum().backward()
    assert_same(g.grad, tg.grad)


def test_saved_values_on_the_node():
    x = vg.randn(1, 1, 2, 3, requires_grad=True)
    node = F.interpolate(x, scale_factor=2).grad_fn
    assert tuple(node._saved_output_size) == (4, 6)
    assert node._saved_scales_h == 2.0 and node._saved_scales_w == 2.0
    assert tuple(node._saved_self_sym_sizes) == (1, 1, 2, 3)
    assert F.interpolate(x, size=3, mode="bilinear").grad_fn._saved_scales_h is None


@pytest.mark.parametrize("name", upsample.__all__)
def test_schemas_are_torchs(name):
    """Every overload declared is the one torch registers, word for word."""
    packet = getattr(torch.ops.aten, name)
    for overload in getattr(upsample, name).overloads:
        base, _, suffix = overload.partition(".")
        torch_schema = str(getattr(packet, suffix or "default")._schema).removeprefix("aten::")
        assert OPERATORS[f"aten::{overload}"].schema == torch_schema
    backward = getattr(torch.ops.aten, name + "_backward")
    for suffix in ("default", "grad_input"):
        text = str(getattr(backward, suffix)._schema).removeprefix("aten::")
        qualified = name + "_backward" + ("" if suffix == "default" else ".grad_input")
        assert OPERATORS[f"aten::{qualified}"].schema == text


def test_operators_called_directly():
    x, tx = make_pair((1, 2, 3, 4), "float32", seed=7)
    assert_same(upsample.upsample_nearest2d(x, [5, 6]), torch._C._nn.upsample_nearest2d(tx, [5, 6]))
    assert_same(upsample.upsample_nearest2d(x, None, [1.5, 2.0]),
                torch._C._nn.upsample_nearest2d(tx, None, [1.5, 2.0]))  # fmt: skip
    assert_same(upsample.upsample_bilinear2d(x, [5, 6], True, None),
                torch._C._nn.upsample_bilinear2d(tx, [5, 6], True, None))  # fmt: skip


INTERPOLATE_ERRORS = [
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), size=(2, 3), scale_factor=2),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5)),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), size=(2,)),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), size=(2.0, 3)),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), scale_factor=(2,)),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), size=3, recompute_scale_factor=True),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), size=3, align_corners=True),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), size=3, mode="foo"),
    lambda m, F: F.interpolate(m.randn(3, 4), size=3),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), size=3, mode="linear"),
    lambda m, F: F.interpolate(m.randn(2, 3, 4), size=3, mode="bilinear"),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5, 6), size=3, mode="bilinear"),
    lambda m, F: F.interpolate(m.randn(2, 3, 4), size=3, mode="trilinear"),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), size=(0, 3)),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), size=(0, 3), mode="bilinear"),
    lambda m, F: F.interpolate(m.randn(2, 3, 4), size=0),
    lambda m, F: F.interpolate(m.randn(1, 1, 2, 3, 4), size=(1, 0, 2)),
    lambda m, F: F.interpolate(m.randn(2, 3, 0, 5), size=(2, 3)),
    lambda m, F: F.interpolate(m.randn(2, 0, 4, 5), size=(2, 3)),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), scale_factor=0.1),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), size=-1),
    lambda m, F: F.interpolate(m.randn(2, 3, 4, 5), size=3, antialias=True),
    lambda m, F: F.interpolate(m.ones(2, 3, 4, 5, dtype=m.int64), size=3),
    lambda m, F: F.interpolate(m.ones(2, 3, 4, 5, dtype=m.int8), size=3, mode="bilinear"),
    lambda m, F: F.interpolate(m.ones(2, 3, 4, 5, dtype=m.int32), size=3, mode="bicubic"),
    lambda m, F: F.interpolate(m.ones(2, 3, 4, dtype=m.uint8), size=3, mode="linear"),
    lambda m, F: F.interpolate(m.ones(2, 3, 4, dtype=m.int16), size=3),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4, 2, dtype=m.uint8), size=3, mode="trilinear"),
]


@pytest.mark.parametrize("call", INTERPOLATE_ERRORS)
def test_interpolate_errors(call):
    assert_same_error(lambda: call(vg, F), lambda: call(torch, TF))


OPERATOR_ERRORS = [
    lambda nn, x: nn.upsample_nearest2d(x, None, None),
    lambda nn, x: nn.upsample_nearest2d(x, [3, 4], [2.0, 2.0]),
    lambda nn, x: nn.upsample_nearest2d(x, [3], None),
    lambda nn, x: nn.upsample_nearest2d(x, None, [2.0]),
    lambda nn, x: nn.upsample_nearest2d(x[0], [3, 4]),
]


@pytest.mark.parametrize("call", OPERATOR_ERRORS)
def test_operator_errors(call):
    x, tx = make_pair((2, 3, 4, 5), "float32")
    assert_same_error(lambda: call(upsample, x), lambda: call(torch._C._nn, tx))


def test_deprecated_spellings_warn_and_resample():
    x, tx = make_pair((1, 2, 3, 3), "float32", seed=8)
    for name, kwargs in [("upsample", dict(scale_factor=2)), ("upsample_nearest", dict(size=5)),
                         ("upsample_bilinear", dict(size=5))]:  # fmt: skip
        with pytest.warns(UserWarning, match="is deprecated"):
            out = getattr(F, name)(x, **kwargs)
        with pytest.warns(UserWarning, match="is deprecated"):
            expected = getattr(TF, name)(tx, **kwargs)
        assert_same(out, expected)


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.Upsample(scale_factor=2),
        lambda nn: nn.Upsample(size=(5, 7), mode="bilinear"),
        lambda nn: nn.Upsample(scale_factor=(1.5, 2), mode="bicubic", align_corners=True),
        lambda nn: nn.Upsample(scale_factor=1.5, recompute_scale_factor=True),
        lambda nn: nn.UpsamplingNearest2d(scale_factor=3),
        lambda nn: nn.UpsamplingBilinear2d(size=6),
    ],
)
def test_upsample_modules(make):
    module, reference = make(vg.nn), make(torch.nn)
    assert repr(module) == repr(reference)
    assert list(module.state_dict()) == []
    x, tx = make_pair((2, 3, 3, 4), "float64", seed=9)
    x.requires_grad_(), tx.requires_grad_()
    out, expected = module(x), reference(tx)
    assert_same(out, expected)
    assert out.grad_fn.name() == expected.grad_fn.name()


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_uint8_smooth_modes_are_refused_not_approximated(mode):
    # PyTorch computes these in fixed point; vizgrad refuses rather than differ by a step.
    with pytest.raises(NotImplementedError, match="uint8"):
        F.interpolate(vg.ones(1, 1, 2, 2, dtype=vg.uint8), size=3, mode=mode)


@pytest.mark.parametrize(
    "shape, options",
    [
        ((2, 3, 7), {"size": 3}),
        ((2, 3, 8, 9), {"size": (3, 4)}),
        ((1, 2, 6, 6), {"scale_factor": 0.5}),
        ((1, 2, 5, 7), {"size": (10, 3)}),
    ],
    ids=str,
)
def test_area_mode_is_adaptive_average_pooling(shape, options):
    v, t = make_pair(shape, "float64", "transposed" if len(shape) == 4 else "contiguous")
    assert_same(F.interpolate(v, mode="area", **options), TF.interpolate(t, mode="area", **options))
    check_gradients(
        lambda x: F.interpolate(x, mode="area", **options),
        lambda x: TF.interpolate(x, mode="area", **options),
        [shape],
    )

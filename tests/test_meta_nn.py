"""The nn operators on the meta device against PyTorch: convolution, pooling, upsampling,
normalization (and their gradients) and the samplers, each overload on contiguous,
channels-last, transposed, empty, 0-dim and expanded inputs of several dtypes, with bad
input refused as PyTorch refuses it; ``out=`` and in-place overloads; autograd through a
small CNN; samplers that draw nothing; mixed devices."""

import pytest
import torch
from meta_checks import (
    assert_meta_same,
    check_op,
    meta_pair,
    metadata,
    outcome,
    raise_,
    torch_cpu,
)
from oracle import assert_same_error

import vizgrad as vg
from vizgrad.ops.meta_kernels import META_OVERLOADS
from vizgrad.ops.registry import OPERATORS

CL = "channels_last"


def aten(lib, qualname: str):
    """One overload, as each library calls it: ``torch.ops.aten.<name>.<overload>``."""
    if lib is vg:
        return OPERATORS[f"aten::{qualname}"]
    name, _, overload = qualname.partition(".")
    return getattr(getattr(torch.ops.aten, name), overload or "default")


def geometry(size, layout=None):
    """``(size, stride)`` of a dense tensor: contiguous, channels-last, or transposed (its
    first two dims swapped in memory)."""
    size = tuple(size)
    base = torch.empty(size)
    if layout == CL:
        base = base.contiguous(memory_format=torch.channels_last)
    elif layout == "cl3d":
        base = base.contiguous(memory_format=torch.channels_last_3d)
    elif layout == "t":
        base = base.transpose(0, 1).contiguous().transpose(0, 1)
    elif layout == "expanded":
        return size, (0,) + base.stride()[1:]
    return size, base.stride()


def pairs(*specs):
    """Meta pairs from ``(size, layout, dtype)`` specs."""
    return [meta_pair(*geometry(size, layout), dtype) for size, layout, dtype in specs]


# --- forward and backward operators: (overload, call, inputs) --------------------------------

X4 = (2, 3, 8, 8)
LAYOUTS = (None, CL, "t")


def _conv(transposed=False, groups=1, stride=(1, 1), padding=(0, 0), dilation=(1, 1),
          output_padding=(0, 0)):  # fmt: skip
    def call(lib, x, w, b=None):
        return aten(lib, "convolution")(x, w, b, list(stride), list(padding), list(dilation),
                                        transposed, list(output_padding), groups)  # fmt: skip

    return call


def _conv_backward(mask, transposed=False, stride=(1, 1), padding=(0, 0), groups=1):
    def call(lib, g, x, w):
        bias = [w.shape[1] * groups if transposed else w.shape[0]]
        return aten(lib, "convolution_backward")(g, x, w, bias, list(stride), list(padding),
                                                 [1] * len(stride), transposed,
                                                 [0] * len(stride), groups, mask)  # fmt: skip

    return call


CASES = {}


def case(name, call, *specs):
    CASES[name] = (call, specs)


for layout in LAYOUTS:
    for dtype in ("float32", "float64"):
        case(f"conv2d-{layout}-{dtype}", _conv(), (X4, layout, dtype), ((4, 3, 3, 3), None, dtype))
        case(f"conv2d-bias-{layout}-{dtype}", _conv(stride=(2, 1), padding=(1, 2)),
             (X4, layout, dtype), ((4, 3, 3, 3), None, dtype), ((4,), None, dtype))  # fmt: skip
    case(
        f"conv2d-weight-{layout}", _conv(), (X4, None, "float32"), ((4, 3, 3, 3), layout, "float32")
    )
    case(f"conv_transpose2d-{layout}", _conv(True, stride=(2, 2), output_padding=(1, 0)),
         (X4, layout, "float32"), ((3, 2, 3, 3), None, "float32"))  # fmt: skip
    case(f"conv2d-groups-{layout}", _conv(groups=3, dilation=(2, 1)), ((2, 6, 9, 9), layout, "float32"),
         ((6, 2, 3, 3), None, "float32"))  # fmt: skip
    case(f"conv2d-bw-{layout}", _conv_backward([True, True, True]), ((2, 4, 6, 6), layout, "float32"),
         (X4, layout, "float32"), ((4, 3, 3, 3), None, "float32"))  # fmt: skip
    case(f"conv_t2d-bw-{layout}", _conv_backward([True, True, True], True, (2, 2)),
         ((2, 2, 17, 17), None, "float32"), (X4, layout, "float32"),
         ((3, 2, 3, 3), None, "float32"))  # fmt: skip
for dtype in ("float32", "float64"):
    case(f"conv3d-cl-{dtype}", _conv(stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1),
                                     output_padding=(0, 0, 0)),
         ((2, 3, 4, 5, 6), "cl3d", dtype), ((4, 3, 2, 2, 2), None, dtype))  # fmt: skip
case("conv1d", _conv(stride=(2,), padding=(1,), dilation=(1,), output_padding=(0,)),
     ((2, 3, 9), None, "float32"), ((4, 3, 3), None, "float32"))  # fmt: skip
case("conv1d-bw", _conv_backward([False, True, False], stride=(1,), padding=(0,)),
     ((2, 4, 7), None, "float32"), ((2, 3, 9), None, "float32"), ((4, 3, 3), None, "float32"))  # fmt: skip
case(
    "conv2d-empty-batch", _conv(), ((0, 3, 8, 8), None, "float32"), ((4, 3, 3, 3), None, "float32")
)
case("conv2d-int", _conv(), (X4, None, "int64"), ((4, 3, 3, 3), None, "int64"))
# Bad input: the checks of check_shape_forward and the dtypes, in their order.
case("conv2d-bad-channels", _conv(), (X4, None, "float32"), ((4, 2, 3, 3), None, "float32"))
case("conv2d-bad-rank", _conv(), ((3, 8, 8), None, "float32"), ((4, 3, 3, 3), None, "float32"))
case(
    "conv2d-kernel-too-big",
    _conv(),
    ((2, 3, 2, 2), None, "float32"),
    ((4, 3, 3, 3), None, "float32"),
)
case("conv2d-bad-bias", _conv(), (X4, None, "float32"), ((4, 3, 3, 3), None, "float32"),
     ((3,), None, "float32"))  # fmt: skip
case("conv2d-negative-padding", _conv(padding=(-1, 0)), (X4, None, "float32"),
     ((4, 3, 3, 3), None, "float32"))  # fmt: skip
case("conv2d-bad-groups", _conv(groups=2), (X4, None, "float32"), ((3, 3, 3, 3), None, "float32"))


def _max_pool(kernel=(2, 2), stride=(), padding=(0, 0), dilation=(1, 1), ceil_mode=False):
    return lambda lib, x: aten(lib, "max_pool2d_with_indices")(
        x, list(kernel), list(stride), list(padding), list(dilation), ceil_mode
    )


def _avg_pool(kernel=(2, 2), stride=(), padding=(0, 0), ceil_mode=False, divisor=None):
    return lambda lib, x: aten(lib, "avg_pool2d")(
        x, list(kernel), list(stride), list(padding), ceil_mode, True, divisor
    )


def _adaptive(size):
    return lambda lib, x: aten(lib, "_adaptive_avg_pool2d")(x, list(size))


for layout in (*LAYOUTS, "expanded"):
    for dtype in ("float32", "float64", "int64"):
        case(f"max_pool2d-{layout}-{dtype}", _max_pool(), (X4, layout, dtype))
        case(
            f"avg_pool2d-{layout}-{dtype}",
            _avg_pool((3, 2), (2, 2), (1, 1), True),
            (X4, layout, dtype),
        )
    case(f"adaptive-{layout}", _adaptive((3, 5)), (X4, layout, "float32"))
for layout in LAYOUTS:  # (PyTorch's CPU max_pool2d_with_indices_backward crashes on expanded)
    case(f"max_pool2d-bw-{layout}", lambda lib, g, x, i: aten(lib, "max_pool2d_with_indices_backward")(
        g, x, [2, 2], [2, 2], [0, 0], [1, 1], False, i), ((2, 3, 4, 4), None, "float32"),
        (X4, layout, "float32"), ((2, 3, 4, 4), None, "int64"))  # fmt: skip
    case(f"avg_pool2d-bw-{layout}", lambda lib, g, x: aten(lib, "avg_pool2d_backward")(
        g, x, [2, 2], [2, 2], [0, 0], False, True, None), ((2, 3, 4, 4), None, "float32"),
        (X4, layout, "float32"))  # fmt: skip
    case(f"adaptive-bw-{layout}", lambda lib, g, x: aten(lib, "_adaptive_avg_pool2d_backward")(g, x),
         ((2, 3, 3, 5), None, "float32"), (X4, layout, "float32"))  # fmt: skip
case("max_pool2d-3d", _max_pool((3, 3), (2, 2), (1, 1), (2, 1), True), ((3, 9, 7), None, "float32"))
case("max_pool2d-empty-batch", _max_pool(), ((0, 3, 8, 8), None, "float32"))
case("max_pool2d-empty-plane", _max_pool(), ((2, 3, 0, 8), None, "float32"))
case("max_pool2d-2d", _max_pool(), ((8, 8), None, "float32"))
case("max_pool2d-bad-pad", _max_pool(padding=(2, 2)), (X4, None, "float32"))
case("max_pool2d-too-small", _max_pool((5, 5), (1, 1), (0, 0)), ((2, 3, 4, 4), None, "float32"))
case("max_pool2d-bad-kernel", _max_pool((2, 2, 2)), (X4, None, "float32"))
case("max_pool2d-bool", _max_pool(), (X4, None, "bool"))
case("avg_pool2d-divisor-0", _avg_pool(divisor=0), (X4, None, "float32"))
case("avg_pool2d-3d", _avg_pool(), ((3, 8, 8), None, "float32"))
case("avg_pool2d-zero-stride", _avg_pool(stride=(0, 1)), (X4, None, "float32"))
case("adaptive-3d", _adaptive((2, 2)), ((3, 8, 8), None, "float32"))
case("adaptive-empty-batch", _adaptive((2, 2)), ((0, 3, 8, 8), None, "float32"))
case("adaptive-empty-plane", _adaptive((2, 2)), ((2, 3, 0, 8), None, "float32"))
case("adaptive-bad-rank", _adaptive((2, 2)), ((8, 8), None, "float32"))
case("adaptive-int", _adaptive((2, 2)), (X4, None, "int64"))


def _batch_norm(training, stats=True, params=True):
    def call(lib, x, *tensors):
        w, b, rm, rv = (
            (*tensors[:2], None, None)
            if not stats
            else ((*tensors, None, None)[:4] if params else (None, None, *tensors))
        )
        return aten(lib, "native_batch_norm")(x, w, b, rm, rv, training, 0.1, 1e-5)

    return call


C3 = ((3,), None, "float32")
for layout in (*LAYOUTS, "expanded"):
    case(
        f"batch_norm-train-{layout}",
        _batch_norm(True, stats=False),
        (X4, layout, "float32"),
        C3,
        C3,
    )
    case(f"batch_norm-eval-{layout}", _batch_norm(False), (X4, layout, "float32"), C3, C3, C3, C3)
    case(f"batch_norm-bw-{layout}", lambda lib, g, x, w, m, s: aten(lib, "native_batch_norm_backward")(
        g, x, w, None, None, m, s, True, 1e-5, [True, True, True]), (X4, layout, "float32"),
        (X4, layout, "float32"), C3, C3, C3)  # fmt: skip
    case(f"group_norm-{layout}", lambda lib, x, w, b: aten(lib, "native_group_norm")(
        x, w, b, 2, 6, 16, 3, 1e-5), ((2, 6, 4, 4), layout, "float32"), ((6,), None, "float32"),
        ((6,), None, "float32"))  # fmt: skip
    case(f"group_norm-bw-{layout}", lambda lib, g, x, m, r, w: aten(lib, "native_group_norm_backward")(
        g, x, m, r, w, 2, 6, 16, 3, [True, True, True]), ((2, 6, 4, 4), layout, "float32"),
        ((2, 6, 4, 4), layout, "float32"), ((2, 3), None, "float32"), ((2, 3), None, "float32"),
        ((6,), None, "float32"))  # fmt: skip
    case(f"layer_norm-{layout}", lambda lib, x, w: aten(lib, "native_layer_norm")(
        x, [8, 8], w, None, 1e-5), (X4, layout, "float32"), ((8, 8), None, "float32"))  # fmt: skip
    case(f"layer_norm-bw-{layout}", lambda lib, g, x, m, r, w: aten(lib, "native_layer_norm_backward")(
        g, x, [8], m, r, w, w, [True, True, True]), (X4, layout, "float32"),
        (X4, layout, "float32"), ((2, 3, 8, 1), None, "float32"), ((2, 3, 8, 1), None, "float32"),
        ((8,), None, "float32"))  # fmt: skip
case("batch_norm-2d", _batch_norm(True, stats=False), ((5, 3), None, "float64"),
     ((3,), None, "float64"), ((3,), None, "float64"))  # fmt: skip
case("batch_norm-half-mixed", _batch_norm(True, stats=False), (X4, None, "float16"), C3, C3)
case("batch_norm-bad-mixed", _batch_norm(True, stats=False), (X4, None, "float64"), C3, C3)
case("batch_norm-int", _batch_norm(True, stats=False), (X4, None, "int64"),
     ((3,), None, "int64"), ((3,), None, "int64"))  # fmt: skip
case("batch_norm-empty-train", _batch_norm(True, stats=False), ((0, 3, 4), None, "float32"), C3, C3)
case("layer_norm-bad-shape", lambda lib, x: aten(lib, "native_layer_norm")(x, [4], None, None, 1e-5),
     (X4, None, "float32"))  # fmt: skip
case("layer_norm-bad-weight", lambda lib, x, w: aten(lib, "native_layer_norm")(x, [8], w, None, 1e-5),
     (X4, None, "float32"), ((4,), None, "float32"))  # fmt: skip
case("layer_norm-0d-stats", lambda lib, x: aten(lib, "native_layer_norm")(x, [5], None, None, 1e-5),
     ((5,), None, "float64"))  # fmt: skip
case("layer_norm-empty", lambda lib, x: aten(lib, "native_layer_norm")(x, [5], None, None, 1e-5),
     ((0, 5), None, "float32"))  # fmt: skip
case("group_norm-bad-groups", lambda lib, x: aten(lib, "native_group_norm")(
    x, None, None, 2, 6, 16, 4, 1e-5), ((2, 6, 4, 4), None, "float32"))  # fmt: skip
case("group_norm-int", lambda lib, x: aten(lib, "native_group_norm")(
    x, None, None, 2, 6, 16, 3, 1e-5), ((2, 6, 4, 4), None, "int64"))  # fmt: skip

# Upsampling: every mode and rank, forward and backward.
UPSAMPLE = {
    # name: (spatial dims, has align_corners, dtypes beyond float32)
    "upsample_nearest1d": (1, False), "_upsample_nearest_exact1d": (1, False),
    "upsample_nearest2d": (2, False), "_upsample_nearest_exact2d": (2, False),
    "upsample_nearest3d": (3, False), "_upsample_nearest_exact3d": (3, False),
    "upsample_linear1d": (1, True), "upsample_bilinear2d": (2, True),
    "upsample_bicubic2d": (2, True), "upsample_trilinear3d": (3, True),
}  # fmt: skip


def _upsample_args(d, align, output_size):
    return [list(output_size), *([False] if align else []), *([None] * d)]


def _upsample(name, d, align, output_size):
    return lambda lib, x: aten(lib, name)(x, *_upsample_args(d, align, output_size))


def _upsample_backward(name, d, align, output_size, input_size):
    args = _upsample_args(d, align, output_size)
    return lambda lib, g: aten(lib, f"{name}_backward")(g, args[0], list(input_size), *args[1:])


for name, (d, align) in UPSAMPLE.items():
    size = (2, 3, *(4, 5, 3)[:d])
    out = (7, 9, 2)[:d]
    layouts = (None, "t", "expanded") + ((CL,) if d == 2 else ())
    for layout in layouts:
        case(f"{name}-{layout}", _upsample(name, d, align, out), (size, layout, "float32"))
        case(f"{name}-bw-{layout}", _upsample_backward(name, d, align, out, size),
             ((2, 3, *out), layout, "float32"))  # fmt: skip
    case(f"{name}-float64", _upsample(name, d, align, out), (size, None, "float64"))
    case(f"{name}-int64", _upsample(name, d, align, out), (size, None, "int64"))
    if name not in ("upsample_bilinear2d", "upsample_bicubic2d"):  # (refused: see upsample)
        case(f"{name}-uint8", _upsample(name, d, align, out), (size, None, "uint8"))
    case(
        f"{name}-empty-batch", _upsample(name, d, align, out), ((0, 3, *size[2:]), None, "float32")
    )
    case(
        f"{name}-empty-channels",
        _upsample(name, d, align, out),
        ((2, 0, *size[2:]), None, "float32"),
    )
    case(f"{name}-bad-rank", _upsample(name, d, align, out), (size[1:], None, "float32"))
    case(
        f"{name}-bad-output-size", _upsample(name, d, align, (0, 3, 3)[:d]), (size, None, "float32")
    )
    case(f"{name}-bw-bad-grad", _upsample_backward(name, d, align, out, size),
         ((2, 3, *(o + 1 for o in out)), None, "float32"))  # fmt: skip
    case(f"{name}-bw-bad-grad-rank", _upsample_backward(name, d, align, out, size),
         ((3, *out), None, "float32"))  # fmt: skip

# Samplers with a fresh result (the CPU kernels' values 1 are valid probabilities and stds).
SAMPLER_DTYPES = ("float32", "float64", "float16", "int64", "bool", "complex64")
for layout, size in ((None, X4), (CL, X4), ("t", (3, 4)), ("expanded", (3, 4)), (None, ()),
                     (None, (0, 3))):  # fmt: skip
    # (PyTorch's meta normal of an empty integral mean answers, or not, by overload)
    for dtype in SAMPLER_DTYPES if 0 not in size else ("float32", "float64"):
        spec = (size, layout, dtype)
        case(
            f"bernoulli-{layout}-{len(size)}-{dtype}",
            lambda lib, x: aten(lib, "bernoulli")(x),
            spec,
        )
        case(f"bernoulli.p-{layout}-{len(size)}-{dtype}",
             lambda lib, x: aten(lib, "bernoulli.p")(x, 0.25), spec)  # fmt: skip
        case(f"normal.Tensor_float-{layout}-{len(size)}-{dtype}",
             lambda lib, x: aten(lib, "normal.Tensor_float")(x, 2.0), spec)  # fmt: skip
        case(f"normal.float_Tensor-{layout}-{len(size)}-{dtype}",
             lambda lib, x: aten(lib, "normal.float_Tensor")(1.0, x), spec)  # fmt: skip
        case(f"normal.Tensor_Tensor-{layout}-{len(size)}-{dtype}",
             lambda lib, x, s: aten(lib, "normal.Tensor_Tensor")(x, s), spec, (size, None, dtype))  # fmt: skip
case("normal.Tensor_Tensor-broadcast", lambda lib, m, s: aten(lib, "normal.Tensor_Tensor")(m, s),
     ((3, 1), None, "float32"), ((4,), None, "float32"))  # fmt: skip
case("normal.Tensor_Tensor-bad-broadcast", lambda lib, m, s: aten(lib, "normal.Tensor_Tensor")(m, s),
     ((3,), None, "float32"), ((4,), None, "float32"))  # fmt: skip
case("normal.Tensor_Tensor-complex-std", lambda lib, m, s: aten(lib, "normal.Tensor_Tensor")(m, s),
     ((3,), None, "float32"), ((3,), None, "complex64"))  # fmt: skip
case("normal.Tensor_float-negative-std", lambda lib, m: aten(lib, "normal.Tensor_float")(m, -1.0),
     ((3,), None, "float32"))  # fmt: skip
for layout, size in ((None, (2, 5)), ("t", (2, 5)), (None, (5,)), ("expanded", (2, 5))):
    for dtype in ("float32", "float64"):
        case(f"multinomial-{layout}-{len(size)}-{dtype}",
             lambda lib, x: aten(lib, "multinomial")(x, 3), (size, layout, dtype))  # fmt: skip
        case(f"multinomial-replacement-{layout}-{len(size)}-{dtype}",
             lambda lib, x: aten(lib, "multinomial")(x, 7, True), (size, layout, dtype))  # fmt: skip
case("multinomial-3d", lambda lib, x: aten(lib, "multinomial")(x, 2), ((2, 2, 5), None, "float32"))
case("multinomial-0d", lambda lib, x: aten(lib, "multinomial")(x, 1), ((), None, "float32"))
case(
    "multinomial-empty-rows",
    lambda lib, x: aten(lib, "multinomial")(x, 2),
    ((0, 5), None, "float32"),
)


# PyTorch 2.13's meta path fails where its CPU kernel answers: its Python meta function of
# nearest upsampling asks ``if`` of an int for an empty batch (``TypeError: cond must be a
# bool``), its ``normal`` of a complex mean compares a complex std (``TypeError``). There
# vizgrad's meta result is compared with PyTorch's CPU result.
TORCH_META_FAILS = {f"{name}-empty-batch" for name in UPSAMPLE if "nearest" in name} | {
    n for n in CASES if n.startswith("normal.Tensor_float-") and n.endswith("complex64")
}


def _check_against_cpu(call, meta_pairs):
    v_meta = call(vg, *[p[0] for p in meta_pairs])
    t_cpu = call(torch, *[torch_cpu(p[1]) for p in meta_pairs])
    assert v_meta.is_meta and metadata(v_meta) == metadata(t_cpu)
    _, t_meta_error = outcome(call, torch, *[p[1] for p in meta_pairs])
    assert isinstance(t_meta_error, TypeError)  # still broken in PyTorch's meta path?


@pytest.mark.parametrize("name", CASES)
def test_meta_matches_pytorch(name):
    """``check_op`` on each output (an operator with several compares them one by one; one
    that ``output_mask`` leaves out is None in both libraries)."""
    call, specs = CASES[name]
    meta_pairs = pairs(*specs)
    if name in TORCH_META_FAILS:
        _check_against_cpu(call, meta_pairs)
        return
    result, _ = outcome(call, torch, *[torch_cpu(p[1]) for p in meta_pairs])
    if not isinstance(result, tuple):
        check_op(call, meta_pairs)
        return
    for i, output in enumerate(result):
        if output is None:
            assert call(vg, *[p[0] for p in meta_pairs])[i] is None
            continue
        check_op(lambda lib, *ts, i=i: call(lib, *ts)[i], meta_pairs)


def test_channels_last_3d_input():
    """A 5-D channels-last input (``channels_last_3d``) keeps its layout through oneDNN's
    float32 convolution, not through the slow float64 one."""
    for dtype in ("float32", "float64"):
        t = torch.empty(2, 3, 4, 5, 6, device="meta", dtype=getattr(torch, dtype))
        t = t.contiguous(memory_format=torch.channels_last_3d)
        pair = [meta_pair(t.shape, t.stride(), dtype), meta_pair((4, 3, 2, 2, 2), None, dtype)]
        check_op(_conv(stride=(1,) * 3, padding=(0,) * 3, dilation=(1,) * 3,
                       output_padding=(0,) * 3), pair)  # fmt: skip


# --- out= overloads ----------------------------------------------------------------------------


def _check_out(call, specs, out_size, out_dtype="float32", out_layout=None):
    """``out=`` on the meta device: refused or resized as PyTorch's CPU kernel does (laid
    out as it lays a resized output out), returning ``out`` itself."""
    vs_ts = pairs(*specs)
    vs, t_cpus = [p[0] for p in vs_ts], [torch_cpu(p[1]) for p in vs_ts]
    size, stride = geometry(out_size, out_layout)
    t_out = torch.empty_strided(size, stride, dtype=getattr(torch, out_dtype))
    v_out = vg.empty_strided(size, stride, dtype=getattr(vg, out_dtype), device="meta")
    _, error = outcome(lambda: call(torch, *t_cpus, out=t_out))
    if error is not None:
        assert_same_error(lambda: call(vg, *vs, out=v_out), lambda: raise_(error))
        return
    assert call(vg, *vs, out=v_out) is v_out
    assert v_out.is_meta and metadata(v_out) == metadata(t_out)


OUT_CASES = {}
for name, (d, align) in UPSAMPLE.items():
    size = (2, 3, *(4, 5, 3)[:d])
    out = (7, 9, 2)[:d]
    OUT_CASES[f"{name}.out"] = (
        lambda lib, x, *, out, n=name, d=d, a=align, o=out: aten(lib, f"{n}.out")(
            x, *_upsample_args(d, a, o), out=out),
        [(size, CL if d == 2 else None, "float32")], (0,), "float32")  # fmt: skip
    OUT_CASES[f"{name}.out-right-size"] = (
        OUT_CASES[f"{name}.out"][0],
        [(size, None, "float32")],
        (2, 3, *out),
        "float32",
    )
    OUT_CASES[f"{name}.out-float64"] = (
        OUT_CASES[f"{name}.out"][0],
        [(size, None, "float32")],
        (0,),
        "float64",
    )
    OUT_CASES[f"{name}_backward.grad_input"] = (
        lambda lib, g, *, out, n=name, d=d, a=align, o=out, s=size: aten(
            lib, f"{n}_backward.grad_input")(g, *_upsample_args(d, a, o)[:1], list(s),
                                             *_upsample_args(d, a, o)[1:], grad_input=out),
        [((2, 3, *out), None, "float32")], (1,), "float32")  # fmt: skip
for dtype in ("float32", "int64"):
    OUT_CASES[f"normal.Tensor_Tensor_out-{dtype}"] = (
        lambda lib, m, s, *, out: aten(lib, "normal.Tensor_Tensor_out")(m, s, out=out),
        [((3, 1), None, "float32"), ((4,), None, "float32")], (2,), dtype)  # fmt: skip
    OUT_CASES[f"normal.Tensor_float_out-{dtype}"] = (
        lambda lib, m, *, out: aten(lib, "normal.Tensor_float_out")(m, 2.0, out=out),
        [((3,), None, "float32")], (2, 3), dtype)  # fmt: skip
    OUT_CASES[f"normal.float_Tensor_out-{dtype}"] = (
        lambda lib, s, *, out: aten(lib, "normal.float_Tensor_out")(1.0, s, out=out),
        [((3, 2), "t", "float32")], (0,), dtype)  # fmt: skip
    OUT_CASES[f"normal.float_float_out-{dtype}"] = (
        lambda lib, *, out: aten(lib, "normal.float_float_out")(0.0, 1.0, [2, 5], out=out),
        [], (3,), dtype)  # fmt: skip
    OUT_CASES[f"multinomial.out-{dtype}"] = (
        lambda lib, x, *, out: aten(lib, "multinomial.out")(x, 3, out=out),
        [((2, 5), None, "float32")], (0,), dtype)  # fmt: skip
    OUT_CASES[f"bernoulli.out-{dtype}"] = (
        lambda lib, x, *, out: aten(lib, "bernoulli.out")(x, out=out),
        [((2, 5), "t", "float32")], (0,), dtype)  # fmt: skip
OUT_CASES["normal.float_float_out-negative-std"] = (
    lambda lib, *, out: aten(lib, "normal.float_float_out")(0.0, -1.0, [2], out=out), [], (2,),
    "float32")  # fmt: skip


@pytest.mark.parametrize("name", OUT_CASES)
def test_out_overloads(name):
    _check_out(*OUT_CASES[name])


# --- in-place samplers: nothing drawn, self kept ------------------------------------------------

INPLACE = {
    "random_": lambda x, **g: x.random_(**g),
    "random_.to": lambda x, **g: x.random_(7, **g),
    "random_.from": lambda x, **g: x.random_(2, 9, **g),
    "random_.from-bad-bounds": lambda x, **g: x.random_(9, 2, **g),  # unchecked on meta
    "bernoulli_.float": lambda x, **g: x.bernoulli_(0.3, **g),
    "bernoulli_.float-bad-p": lambda x, **g: x.bernoulli_(3.0, **g),  # unchecked on meta
    "bernoulli_.Tensor": lambda x, **g: x.bernoulli_(
        vg.empty(3, 1, device="meta")
        if isinstance(x, vg.Tensor)
        else torch.empty(3, 1, device="meta"),
        **g,
    ),  # fmt: skip
    "exponential_": lambda x, **g: x.exponential_(2.0, **g),
    "exponential_-bad-lambda": lambda x, **g: x.exponential_(-1.0, **g),
    "normal_": lambda x, **g: x.normal_(1.0, 2.0, **g),
}


@pytest.mark.parametrize("name", INPLACE)
@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
def test_inplace_samplers_keep_self_and_draw_nothing(name, dtype):
    v, t = meta_pair(*geometry((3, 4), "t"), dtype)
    call = INPLACE[name]
    _, error = outcome(call, t)
    generator = vg.Generator().manual_seed(0)
    state = generator.get_state().tolist()
    if error is not None:
        _, cpu_error = outcome(call, torch_cpu(t))
        refused_like(lambda: call(v, generator=generator), error, cpu_error)
    else:
        before = metadata(v)
        assert call(v, generator=generator) is v and metadata(v) == before
    assert generator.get_state().tolist() == state


def refused_like(v_call, meta_error, cpu_error):
    """Refused as PyTorch's meta path refuses, worded as it or as PyTorch's CPU kernel."""
    errors = [e for e in (cpu_error, meta_error) if e is not None]
    for i, error in enumerate(errors):
        try:
            assert_same_error(v_call, lambda e=error: raise_(e))
            return
        except AssertionError:
            if i == len(errors) - 1:
                raise


def test_samplers_leave_the_default_generator_alone():
    state = vg.get_rng_state().tolist()
    x = vg.empty(4, 5, device="meta")
    vg.bernoulli(x)
    vg.bernoulli(x, 0.5)
    vg.normal(x, x)
    vg.normal(x, 1.0)
    vg.normal(1.0, x)
    vg.normal(0.0, 1.0, (2, 3), device="meta")
    vg.multinomial(x, 2)
    x.random_().bernoulli_(0.5).exponential_().uniform_().normal_()
    assert vg.get_rng_state().tolist() == state


def test_normal_of_a_size_on_the_meta_device():
    for make in (
        lambda lib: lib.normal(2.0, 1.0, (2, 3), device="meta"),
        lambda lib: lib.normal(2.0, 1.0, (4,), dtype=lib.float64, device="meta"),
    ):
        assert_meta_same(make(vg), make(torch))
    for bad in (
        lambda lib, device: lib.normal(2.0, -1.0, (2, 3), device=device),
        lambda lib, device: lib.normal(2.0, 1.0, (2, 3), dtype=lib.int64, device=device),
    ):
        _, meta_error = outcome(bad, torch, "meta")
        _, cpu_error = outcome(bad, torch, "cpu")
        assert meta_error is not None
        refused_like(lambda b=bad: b(vg, "meta"), meta_error, cpu_error)


# --- autograd through a small CNN ----------------------------------------------------------------


def _cnn(lib):
    nn = lib.nn
    lib.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.GroupNorm(2, 8),
        nn.Upsample(scale_factor=2, mode="nearest"),
        nn.Conv2d(8, 4, 3, stride=2),
        nn.AvgPool2d(2, ceil_mode=True),
        nn.Upsample(size=(5, 5), mode="bilinear"),
        nn.AdaptiveAvgPool2d((3, 3)),
        nn.LayerNorm([3, 3]),
        nn.Dropout(0.5),
    )


@pytest.mark.parametrize("how", ["to", "channels_last"])
def test_small_cnn_forward_and_backward(how):
    """Conv2d, BatchNorm2d, ReLU, MaxPool2d, GroupNorm, Upsample, AvgPool2d,
    AdaptiveAvgPool2d, LayerNorm and Dropout on meta tensors: the output's and every
    parameter gradient's metadata as PyTorch's."""
    results = []
    for lib in (vg, torch):
        model = _cnn(lib).to("meta")
        x = lib.empty(2, 3, 16, 16, device="meta", requires_grad=True)
        if how == "channels_last":
            x = lib.empty(2, 3, 16, 16, device="meta").contiguous(memory_format=lib.channels_last)
            x.requires_grad_()
        y = model(x)
        y.sum().backward()
        grads = [x.grad] + [p.grad for p in model.parameters()]
        results.append((y, grads, model[1].running_mean))
    (vy, vgrads, vrunning), (ty, tgrads, trunning) = results
    assert_meta_same(vy, ty)
    assert len(vgrads) == len(tgrads)
    for a, b in zip(vgrads, tgrads, strict=True):
        assert_meta_same(a, b)
    assert_meta_same(vrunning, trunning)


def test_cnn_in_eval_mode():
    outs = []
    for lib in (vg, torch):
        model = _cnn(lib).to("meta").eval()
        outs.append(model(lib.empty(1, 3, 8, 8, device="meta")))
    assert_meta_same(*outs)


def test_functional_composites_on_meta():
    """The composites students call, each made of the operators above (PyTorch's meta
    path lays some results out otherwise than its CPU kernels: ``check_op`` follows these)."""
    F = {vg: vg.nn.functional, torch: torch.nn.functional}
    W = ((4, 3, 3), None, "float32")
    WT = ((3, 2, 3, 3), None, "float32")
    calls = [
        (lambda lib, x, w: F[lib].conv1d(x[:, :, 0], w), [W]),
        (lambda lib, x, w: F[lib].conv_transpose2d(x, w, stride=2), [WT]),
        (lambda lib, x: F[lib].max_pool2d(x, 3, 2, 1, return_indices=True)[1], []),
        (lambda lib, x: F[lib].avg_pool1d(x[:, :, 0], 2), []),
        (lambda lib, x: F[lib].adaptive_avg_pool2d(x, (2, 3)), []),
        (lambda lib, x: F[lib].adaptive_avg_pool2d(x, 1), []),
        (lambda lib, x: F[lib].interpolate(x, scale_factor=1.5, mode="bicubic"), []),
        (lambda lib, x: F[lib].interpolate(x, size=(3, 11), mode="nearest-exact"), []),
        (lambda lib, x: F[lib].batch_norm(x, None, None, training=True), []),
        (lambda lib, x: F[lib].instance_norm(x), []),
        (lambda lib, x: F[lib].layer_norm(x, (8,)), []),
        (lambda lib, x: F[lib].group_norm(x, 3), []),
        (lambda lib, x: F[lib].dropout(x, 0.2), []),
    ]
    for call, others in calls:
        for layout in (None, CL):
            check_op(call, pairs((X4, layout, "float32"), *others))


# --- mixed devices ----------------------------------------------------------------------------------


def test_out_on_another_device_is_refused():
    for call in (
        lambda lib, x, out: lib.normal(x, 1.0, out=out),
        lambda lib, x, out: lib.multinomial(x, 2, out=out),
    ):
        v_out, t_out = vg.empty(0), torch.empty(0, dtype=torch.int64)
        v, t = meta_pair((2, 5))
        _, error = outcome(call, torch, t, t_out)
        assert error is not None
        with pytest.raises(RuntimeError, match="device"):
            call(vg, v, v_out)


# --- coverage ------------------------------------------------------------------------------------

FAMILY = ["_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward", "avg_pool2d", "avg_pool2d_backward", "bernoulli", "bernoulli.p", "bernoulli_.Tensor", "bernoulli_.float", "convolution", "convolution_backward", "exponential_", "max_pool2d_with_indices", "max_pool2d_with_indices_backward", "multinomial", "multinomial.out", "native_batch_norm", "native_batch_norm_backward", "native_group_norm", "native_group_norm_backward", "native_layer_norm", "native_layer_norm_backward", "normal.Tensor_Tensor", "normal.Tensor_Tensor_out", "normal.Tensor_float", "normal.Tensor_float_out", "normal.float_Tensor", "normal.float_Tensor_out", "normal.float_float_out", "random_", "random_.from", "random_.to"] + [
    f"{name}{suffix}" for name in UPSAMPLE
    for suffix in ("", ".out", "_backward", "_backward.grad_input")
]  # fmt: skip


def test_every_nn_overload_has_a_meta_kernel():
    missing = [q for q in FAMILY if f"aten::{q}" not in META_OVERLOADS]
    assert not missing


MIXED = {
    "conv2d-cpu-weight": lambda lib, m, c: lib.nn.functional.conv2d(m(2, 3, 8, 8), c(4, 3, 3, 3)),
    "conv2d-cpu-input": lambda lib, m, c: lib.nn.functional.conv2d(c(2, 3, 8, 8), m(4, 3, 3, 3)),
    "batch_norm-cpu-stats": lambda lib, m, c: lib.nn.functional.batch_norm(
        m(2, 3, 8, 8), c(3), c(3), training=True
    ),
    "batch_norm-cpu-input": lambda lib, m, c: aten(lib, "native_batch_norm")(
        c(2, 3, 4), m(3), None, None, None, True, 0.1, 1e-5
    ),
    "layer_norm-cpu-weight": lambda lib, m, c: lib.nn.functional.layer_norm(m(2, 3, 8), (8,), c(8)),
    "layer_norm_backward-cpu-input": lambda lib, m, c: aten(lib, "native_layer_norm_backward")(
        m(2, 3, 4), c(2, 3, 4), [4], m(2, 3, 1), m(2, 3, 1), None, None, [True, False, False]
    ),
    "group_norm-cpu-weight": lambda lib, m, c: aten(lib, "native_group_norm")(
        m(2, 6, 4), c(6), None, 2, 6, 4, 3, 1e-5
    ),
    "normal-cpu-std": lambda lib, m, c: lib.normal(m(3), c(3)),
    "normal-cpu-mean": lambda lib, m, c: lib.normal(c(3), m(3)),
    "normal-cpu-0d-std": lambda lib, m, c: lib.normal(m(3), c(())),
    "bernoulli_-cpu-p": lambda lib, m, c: m(3).bernoulli_(c(3)),
    "max_pool2d_backward-cpu-self": lambda lib, m, c: aten(lib, "max_pool2d_with_indices_backward")(
        m(2, 3, 4, 4), c(2, 3, 8, 8), [2, 2], [2, 2], [0, 0], [1, 1], False, m(2, 3, 4, 4).long()
    ),
    "upsample.out-cpu-out": lambda lib, m, c: aten(lib, "upsample_nearest2d.out")(
        m(2, 3, 4, 4), [8, 8], None, None, out=c(0)
    ),
    "multinomial.out-cpu-out": lambda lib, m, c: lib.multinomial(m(5), 2, out=c(0).long()),
}


@pytest.mark.parametrize("name", MIXED)
def test_mixed_devices(name):
    """A CPU tensor beside a meta one: refused where PyTorch refuses, in its words."""
    call = MIXED[name]

    def run(lib):
        return call(lib, lambda *s: lib.empty(*s, device="meta"), lambda *s: lib.ones(*s))

    expected, error = outcome(run, torch)
    if error is not None:
        assert_same_error(lambda: run(vg), lambda: raise_(error))
    elif not expected.is_meta:
        # PyTorch runs its CPU kernel when the first tensor is a CPU one, reading a meta
        # tensor's null storage as if it held values; vizgrad has no values to read there
        # and answers on the meta device, with the same metadata.
        result = run(vg)
        assert result.is_meta and metadata(result) == metadata(expected)
    else:
        assert_meta_same(run(vg), expected)


LIKE = {
    "rand_like": lambda lib, x, **g: lib.rand_like(x, **g),
    "rand_like-float64": lambda lib, x, **g: lib.rand_like(x, dtype=lib.float64, **g),
    "rand_like-int64": lambda lib, x, **g: lib.rand_like(x, dtype=lib.int64, **g),
    "randn_like": lambda lib, x, **g: lib.randn_like(x, **g),
    "randn_like-int64": lambda lib, x, **g: lib.randn_like(x, dtype=lib.int64, **g),
    "randn_like-contiguous": lambda lib, x, **g: lib.randn_like(
        x, memory_format=lib.contiguous_format, **g
    ),
    "randint_like": lambda lib, x, **g: lib.randint_like(x, 5, **g),
    "randint_like-low": lambda lib, x, **g: lib.randint_like(x, 2, 5, dtype=lib.int64, **g),
}


@pytest.mark.parametrize("name", LIKE)
@pytest.mark.parametrize("layout", [None, "t", CL])
def test_random_like_factories_on_meta(name, layout):
    """``rand_like`` and friends of a meta tensor: a meta tensor laid out like ``self``,
    refused as PyTorch's meta path refuses, and no generator advanced."""
    v, t = meta_pair(*geometry(X4 if layout == CL else (3, 4), layout))
    call = LIKE[name]
    generator = vg.Generator().manual_seed(0)
    state = generator.get_state().tolist()
    expected, error = outcome(call, torch, t)
    if error is not None:
        _, cpu_error = outcome(call, torch, torch_cpu(t))
        refused_like(lambda: call(vg, v, generator=generator), error, cpu_error)
    else:
        assert_meta_same(call(vg, v, generator=generator), expected)
    assert generator.get_state().tolist() == state


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("device", ["meta", "cpu"])
def test_native_batch_norm_out_sets_its_three_outputs(training, device):
    """``native_batch_norm.out`` sets its outputs from the meta function, then (on the CPU)
    writes them: the shapes and strides of PyTorch's CPU kernel (``out`` resized
    contiguous; in evaluation, empty saved statistics, where PyTorch's meta path departs)."""
    results = []
    for lib in (vg, torch):
        where = device if lib is vg else "cpu"  # PyTorch's CPU kernel: the oracle
        x = lib.ones(2, 3, 4, 5, device=where).to(memory_format=lib.channels_last)
        stats = [lib.zeros(3, device=where), lib.ones(3, device=where)]
        outs = [lib.empty(0, device=where) for _ in range(3)]
        returned = aten(lib, "native_batch_norm.out")(
            x, lib.ones(3, device=where), None, *stats, training, 0.1, 1e-5,
            out=outs[0], save_mean=outs[1], save_invstd=outs[2],
        )  # fmt: skip
        assert all(r is o for r, o in zip(returned, outs, strict=True))
        assert all(str(o.device) == where for o in outs)
        results.append([metadata(o) for o in outs])
        if device == "cpu":
            results[-1].append(round(outs[0].sum().item(), 3))
    assert results[0] == results[1]

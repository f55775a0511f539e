"""The reductions on the meta device, overload by overload, against PyTorch 2.13.

Each overload (functional, in-place, ``out=``) is called through the dispatcher by its
qualified name in both libraries (``torch.ops.aten`` and vizgrad's ``OPERATORS``), on
meta tensors of several layouts and dtypes, and compared with PyTorch's meta result and
CPU result (``meta_checks.check_op``): shape, strides, storage offset, dtype, or the
error's class and message.
"""

# ruff: noqa: B023 - each lambda is called at once, inside its loop iteration
import warnings

import pytest
import torch
from meta_checks import (
    assert_meta_same,
    assert_refused_alike,
    check_op,
    cpu_like,
    meta_pair,
    meta_pairs,
    metadata,
    outcome,
    raise_,
    torch_cpu,
)
from oracle import assert_same_error

import vizgrad as vg
from vizgrad.ops.meta_kernels import META_OVERLOADS
from vizgrad.ops.registry import OPERATORS

FAMILY = [
    "_log_softmax",
    "_log_softmax.out",
    "_log_softmax_backward_data",
    "_softmax",
    "_softmax.out",
    "_softmax_backward_data",
    "all",
    "all.all_out",
    "all.dim",
    "all.dims",
    "all.dims_out",
    "all.out",
    "allclose",
    "amax",
    "amax.out",
    "amin",
    "amin.out",
    "any",
    "any.all_out",
    "any.dim",
    "any.dims",
    "any.dims_out",
    "any.out",
    "argmax",
    "argmax.out",
    "argmin",
    "argmin.out",
    "binary_cross_entropy",
    "binary_cross_entropy.out",
    "binary_cross_entropy_with_logits",
    "count_nonzero",
    "count_nonzero.dim_IntList",
    "cummax",
    "cummax.out",
    "cummin",
    "cummin.out",
    "cumprod",
    "cumprod.out",
    "cumprod_",
    "cumsum",
    "cumsum.out",
    "cumsum_",
    "dist",
    "huber_loss",
    "huber_loss.out",
    "kthvalue",
    "kthvalue.values",
    "linalg_vector_norm",
    "linalg_vector_norm.out",
    "log_softmax.int_out",
    "logcumsumexp",
    "logcumsumexp.out",
    "logsumexp",
    "logsumexp.out",
    "max",
    "max.unary_out",
    "mean",
    "mean.dim",
    "mean.dtype_out",
    "mean.out",
    "median",
    "min",
    "min.unary_out",
    "mode",
    "mode.values",
    "mse_loss",
    "mse_loss.out",
    "multi_margin_loss",
    "multi_margin_loss.out",
    "nanmedian",
    "nansum",
    "nansum.out",
    "nll_loss2d_backward",
    "nll_loss2d_forward",
    "nll_loss2d_forward.output",
    "nll_loss_backward",
    "nll_loss_forward",
    "nll_loss_forward.output",
    "norm.ScalarOpt_dim",
    "prod",
    "prod.dim_int",
    "prod.int_out",
    "smooth_l1_loss",
    "smooth_l1_loss.out",
    "soft_margin_loss",
    "soft_margin_loss.out",
    "softmax.int_out",
    "sort",
    "sort.stable",
    "std.correction",
    "std.correction_out",
    "std_mean.correction",
    "sum",
    "sum.dim_IntList",
    "sum.IntList_out",
    "trace",
    "var.correction",
    "var.correction_out",
    "var_mean.correction",
]


def aten(lib, name: str):
    """One overload by name: ``torch.ops.aten.<op>.<overload>``, or vizgrad's operator."""
    if lib is torch:
        op, _, overload = name.partition(".")
        return getattr(getattr(torch.ops.aten, op), overload or "default")
    return OPERATORS[f"aten::{name}"]


def test_every_overload_of_the_family_has_a_meta_kernel():
    # ``equal`` has none in PyTorch 2.13 either: the same NotImplementedError (below).
    assert [n for n in FAMILY if f"aten::{n}" not in META_OVERLOADS] == []


# --- inputs -----------------------------------------------------------------------------

GEOMETRIES = {
    "contiguous": ((2, 3, 4), None),
    "transposed": ((4, 3, 2), (1, 4, 12)),
    "channels_last": ((2, 3, 4, 5), (60, 1, 15, 3)),
    "zero_dim": ((), None),
    "empty": ((2, 0, 3), None),
    "expanded": ((3, 4), (0, 1)),
}
DTYPES = ("float32", "int64", "bool", "float16", "complex64")


def _check(fn, pairs):
    """``check_op``, but where PyTorch's meta path refuses what its CPU kernel runs,
    vizgrad follows the CPU kernel (``nll_loss_forward`` of one sample)."""
    try:
        check_op(fn, pairs)
    except AssertionError as error:
        if "torch refused" not in str(error):
            raise
        vs, ts = [p[0] for p in pairs], [torch_cpu(p[1]) for p in pairs]
        assert metadata(fn(vg, *vs)) == metadata(fn(torch, *ts))


def _in(lib, value):
    """A dtype argument as ``lib``'s dtype."""
    return getattr(lib, str(value).split(".")[1]) if isinstance(value, torch.dtype) else value


def _unary(name, *args, **kwargs):
    def call(lib, x):
        return aten(lib, name)(x, *[_in(lib, a) for a in args],
                               **{k: _in(lib, v) for k, v in kwargs.items()})  # fmt: skip

    return call


# name -> a call of one input. Several per overload: default and given arguments, a bad dim.
UNARY = {
    "sum": [_unary("sum"), _unary("sum", dtype=torch.float64)],
    "sum.dim_IntList": [_unary("sum.dim_IntList", [0, -1], True), _unary("sum.dim_IntList", None),
                        _unary("sum.dim_IntList", [1, 1]), _unary("sum.dim_IntList", [5])],
    "mean": [_unary("mean"), _unary("mean", dtype=torch.float64)],
    "mean.dim": [_unary("mean.dim", [-1]), _unary("mean.dim", [0], True, dtype=torch.float32)],
    "nansum": [_unary("nansum"), _unary("nansum", [0], True),
               _unary("nansum", dtype=torch.complex64), _unary("nansum", [0], dtype=torch.int32)],
    "prod": [_unary("prod"), _unary("prod", dtype=torch.float32)],
    "prod.dim_int": [_unary("prod.dim_int", 0), _unary("prod.dim_int", -1, True),
                     _unary("prod.dim_int", 3)],
    "logsumexp": [_unary("logsumexp", [0]), _unary("logsumexp", [0, -1], True),
                  _unary("logsumexp", [0, 0])],
    "amax": [_unary("amax"), _unary("amax", [1], True), _unary("amax", [0, 0])],
    "amin": [_unary("amin", [-1]), _unary("amin", [])],
    "argmax": [_unary("argmax"), _unary("argmax", None, True), _unary("argmax", 1),
               _unary("argmax", 0, True)],
    "argmin": [_unary("argmin"), _unary("argmin", -1, True)],
    "max": [_unary("max")],
    "min": [_unary("min")],
    "all": [_unary("all")],
    "all.dim": [_unary("all.dim", 0), _unary("all.dim", -1, True)],
    "all.dims": [_unary("all.dims"), _unary("all.dims", []), _unary("all.dims", [0, -1], True)],
    "any": [_unary("any")],
    "any.dim": [_unary("any.dim", 1, True)],
    "any.dims": [_unary("any.dims", [0])],
    "count_nonzero": [_unary("count_nonzero"), _unary("count_nonzero", 0)],
    "count_nonzero.dim_IntList": [_unary("count_nonzero.dim_IntList", [0, -1]),
                                  _unary("count_nonzero.dim_IntList", [])],
    "cumsum": [_unary("cumsum", 0), _unary("cumsum", -1, dtype=torch.float64),
               _unary("cumsum", 4)],
    "cumprod": [_unary("cumprod", 0), _unary("cumprod", 0, dtype=torch.int32)],
    "cummax": [_unary("cummax", 0), _unary("cummax", -1), _unary("cummax", 3)],
    "cummin": [_unary("cummin", -1)],
    "logcumsumexp": [_unary("logcumsumexp", 0), _unary("logcumsumexp", 5)],
    "var.correction": [_unary("var.correction"), _unary("var.correction", [0], keepdim=True),
                       _unary("var.correction", [-1], correction=0)],
    "std.correction": [_unary("std.correction", None), _unary("std.correction", [0, -1])],
    "var_mean.correction": [_unary("var_mean.correction", [0]),
                            _unary("var_mean.correction", None, keepdim=True)],
    "std_mean.correction": [_unary("std_mean.correction", [-1], correction=2)],
    "linalg_vector_norm": [_unary("linalg_vector_norm"),
                           _unary("linalg_vector_norm", float("inf"), [0], True),
                           _unary("linalg_vector_norm", -1, [1]),
                           _unary("linalg_vector_norm", 2, None, dtype=torch.float64),
                           _unary("linalg_vector_norm", 2, None, dtype=torch.int64)],
    "norm.ScalarOpt_dim": [_unary("norm.ScalarOpt_dim", 2, [0]),
                           _unary("norm.ScalarOpt_dim", None, [-1], True)],
    "trace": [_unary("trace")],
    "_softmax": [_unary("_softmax", 0, False), _unary("_softmax", -1, False),
                 _unary("_softmax", 0, True)],
    "_log_softmax": [_unary("_log_softmax", 0, False)],
    "median": [_unary("median")],
    "nanmedian": [_unary("nanmedian")],
    "mode": [_unary("mode"), _unary("mode", 0, True), _unary("mode", 4)],
    "kthvalue": [_unary("kthvalue", 1), _unary("kthvalue", 2, 0, True), _unary("kthvalue", 9)],
    "sort": [_unary("sort"), _unary("sort", 0, True), _unary("sort", 7)],
    "sort.stable": [_unary("sort.stable", stable=True, dim=0),
                    _unary("sort.stable", stable=None, dim=-1, descending=True)],
}  # fmt: skip

UNARY_CASES = [
    pytest.param(name, fn, geometry_name, id=f"{name}-{i}-{geometry_name}")
    for name, fns in UNARY.items()
    for i, fn in enumerate(fns)
    for geometry_name in GEOMETRIES
]
# Where PyTorch's meta path refuses what its CPU kernel runs (vizgrad follows the CPU):
# ``_log_softmax``'s Python meta function subtracts two bool tensors, which its CPU
# kernel, returning an empty input at once, never does.
META_ONLY_REFUSALS = {("_log_softmax", "empty", "bool")}


@pytest.mark.parametrize("name, fn, geometry_name", UNARY_CASES)
def test_functional(name, fn, geometry_name):
    for dtype in DTYPES:
        pairs = [meta_pair(*GEOMETRIES[geometry_name], dtype)]
        if (name, geometry_name, dtype) in META_ONLY_REFUSALS:
            v, t = pairs[0]
            assert metadata(fn(vg, v)) == metadata(fn(torch, torch_cpu(t)))
            continue
        check_op(fn, pairs)


# --- out= -------------------------------------------------------------------------------

OUTS = {  # name -> (call with out=..., how many outputs)
    "sum.IntList_out": (lambda lib, x, **o: aten(lib, "sum.IntList_out")(x, [0], **o), 1),
    "mean.out": (lambda lib, x, **o: aten(lib, "mean.out")(x, [-1], True, **o), 1),
    "mean.dtype_out": (lambda lib, x, **o: aten(lib, "mean.dtype_out")(x, **o), 1),
    "nansum.out": (lambda lib, x, **o: aten(lib, "nansum.out")(x, [0], **o), 1),
    "prod.int_out": (lambda lib, x, **o: aten(lib, "prod.int_out")(x, 0, True, **o), 1),
    "logsumexp.out": (lambda lib, x, **o: aten(lib, "logsumexp.out")(x, [0], **o), 1),
    "amax.out": (lambda lib, x, **o: aten(lib, "amax.out")(x, [0], **o), 1),
    "amin.out": (lambda lib, x, **o: aten(lib, "amin.out")(x, [], True, **o), 1),
    "argmax.out": (lambda lib, x, **o: aten(lib, "argmax.out")(x, 0, **o), 1),
    "argmin.out": (lambda lib, x, **o: aten(lib, "argmin.out")(x, **o), 1),
    "max.unary_out": (lambda lib, x, **o: aten(lib, "max.unary_out")(x, **o), 1),
    "min.unary_out": (lambda lib, x, **o: aten(lib, "min.unary_out")(x, **o), 1),
    "all.all_out": (lambda lib, x, **o: aten(lib, "all.all_out")(x, **o), 1),
    "all.out": (lambda lib, x, **o: aten(lib, "all.out")(x, 0, **o), 1),
    "all.dims_out": (lambda lib, x, **o: aten(lib, "all.dims_out")(x, [0], True, **o), 1),
    "any.all_out": (lambda lib, x, **o: aten(lib, "any.all_out")(x, **o), 1),
    "any.out": (lambda lib, x, **o: aten(lib, "any.out")(x, -1, True, **o), 1),
    "any.dims_out": (lambda lib, x, **o: aten(lib, "any.dims_out")(x, None, **o), 1),
    "cumsum.out": (lambda lib, x, **o: aten(lib, "cumsum.out")(x, 0, **o), 1),
    "cumprod.out": (lambda lib, x, **o: aten(lib, "cumprod.out")(x, -1, **o), 1),
    "logcumsumexp.out": (lambda lib, x, **o: aten(lib, "logcumsumexp.out")(x, 0, **o), 1),
    "var.correction_out": (lambda lib, x, **o: aten(lib, "var.correction_out")(x, [0], **o), 1),
    "std.correction_out": (lambda lib, x, **o: aten(lib, "std.correction_out")(x, **o), 1),
    "linalg_vector_norm.out": (
        lambda lib, x, **o: aten(lib, "linalg_vector_norm.out")(x, 2, [0], **o), 1),
    "_softmax.out": (lambda lib, x, **o: aten(lib, "_softmax.out")(x, 0, False, **o), 1),
    "_log_softmax.out": (lambda lib, x, **o: aten(lib, "_log_softmax.out")(x, 0, False, **o), 1),
    "softmax.int_out": (lambda lib, x, **o: aten(lib, "softmax.int_out")(x, 0, **o), 1),
    "log_softmax.int_out": (lambda lib, x, **o: aten(lib, "log_softmax.int_out")(x, -1, **o), 1),
    "cummax.out": (lambda lib, x, **o: aten(lib, "cummax.out")(x, 0, **o), 2),
    "cummin.out": (lambda lib, x, **o: aten(lib, "cummin.out")(x, -1, **o), 2),
    "kthvalue.values": (lambda lib, x, **o: aten(lib, "kthvalue.values")(x, 1, 0, **o), 2),
    "mode.values": (lambda lib, x, **o: aten(lib, "mode.values")(x, 0, True, **o), 2),
}  # fmt: skip
_OUT_NAMES = {
    "cummax.out": ("values", "indices"),
    "cummin.out": ("values", "indices"),
    "kthvalue.values": ("values", "indices"),
    "mode.values": ("values", "indices"),
}


def _outs(name, lib, dtypes, device, size=(0,)):
    names = _OUT_NAMES.get(name, ("out",))
    return {n: lib.empty(size, dtype=getattr(lib, d), device=device)
            for n, d in zip(names, dtypes, strict=False)}  # fmt: skip


def _check_out(name, fn, x_pair, out_dtypes, size=(0,)):
    """``out=`` on the meta device: refused as PyTorch's CPU kernel or its meta path
    refuses it (``check_op``'s rule), else resized as PyTorch's CPU kernel resizes it."""
    v, t = x_pair
    t_outs = _outs(name, torch, out_dtypes, "cpu", size)
    v_outs = _outs(name, vg, out_dtypes, "meta", size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, t_cpu_error = outcome(lambda: fn(torch, torch_cpu(t), **t_outs))
        t_meta_outs = _outs(name, torch, out_dtypes, "meta", size)
        _, t_meta_error = outcome(lambda: fn(torch, t, **t_meta_outs))
        result, v_error = outcome(lambda: fn(vg, v, **v_outs))
    if v_error is not None:
        assert_refused_alike(v_error, t_cpu_error, t_meta_error)
        return
    # (Where PyTorch's meta path refuses what its CPU kernel runs, vizgrad follows the CPU.)
    assert t_meta_error is None or t_cpu_error is None, f"torch refused: {t_meta_error!r}"
    results = result if isinstance(result, tuple) else (result,)
    assert len(results) == len(v_outs)
    expected = t_meta_outs if t_cpu_error is not None else t_outs
    for r, v_out, t_out in zip(results, v_outs.values(), expected.values(), strict=True):
        assert r is v_out
        assert v_out.is_meta and metadata(v_out) == metadata(t_out)


OUT_CASES = [
    pytest.param(name, geometry, id=f"{name}-{geometry_name}")
    for name in OUTS
    for geometry_name, geometry in GEOMETRIES.items()
]


@pytest.mark.parametrize("name, geometry", OUT_CASES)
def test_out(name, geometry):
    fn, outputs = OUTS[name]
    for dtype in ("float32", "int64", "bool"):
        for out_dtype in ("float32", "int64", "bool", "float64"):
            out_dtypes = (out_dtype, "int64")[:outputs]
            _check_out(name, fn, meta_pair(*geometry, dtype), out_dtypes)
    # An ``out`` of the right shape keeps its strides; one of another shape is resized.
    _check_out(name, fn, meta_pair(*geometry, "float32"), ("float32", "int64"), size=(2, 3, 4))


@pytest.mark.parametrize(
    "name",
    [
        "sum.IntList_out",
        "argmax.out",
        "cummax.out",
        "_softmax.out",
        "kthvalue.values",
        "mode.values",
        "linalg_vector_norm.out",
    ],
)
def test_out_on_another_device(name):
    """A meta input and a CPU ``out=``: refused as PyTorch refuses it."""
    fn, outputs = OUTS[name]
    v, t = meta_pair((2, 3, 4))
    v_outs = _outs(name, vg, ("float32", "int64")[:outputs], "cpu")
    t_outs = _outs(name, torch, ("float32", "int64")[:outputs], "cpu")
    assert_same_error(lambda: fn(vg, v, **v_outs), lambda: fn(torch, t, **t_outs))


# --- in place ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("geometry", GEOMETRIES.values(), ids=GEOMETRIES.keys())
def test_inplace_keeps_self(name, geometry):
    for dtype in DTYPES:
        for args, kwargs in (((0,), {}), ((-1,), {"dtype": torch.float64}), ((3,), {})):
            v, t = meta_pair(*geometry, dtype)
            v_kwargs = {k: getattr(vg, str(d).split(".")[1]) for k, d in kwargs.items()}
            _, error = outcome(lambda: aten(torch, name)(torch_cpu(t), *args, **kwargs))
            if error is not None:
                assert_same_error(lambda: aten(vg, name)(v, *args, **v_kwargs),
                                  lambda: raise_(error))  # fmt: skip
                continue
            before = metadata(v)
            assert aten(vg, name)(v, *args, **v_kwargs) is v and metadata(v) == before


# --- two or more inputs: losses, softmax backward, dist, allclose --------------------------

F32, I64 = "float32", "int64"
LOSS_INPUTS = [  # (geometry of self and target, dtypes)
    ([((3, 4), None), ((3, 4), None)], (F32, F32)),
    ([((4, 3), (1, 4)), ((4, 3), None)], (F32, F32)),
    ([((2, 3, 4, 5), (60, 1, 15, 3)), ((2, 3, 4, 5), None)], (F32, F32)),
    ([((), None), ((), None)], (F32, F32)),
    ([((0, 4), None), ((0, 4), None)], (F32, F32)),
    ([((3, 4), (0, 1)), ((3, 4), None)], (F32, F32)),
    ([((3, 4), None), ((4,), None)], (F32, F32)),
    ([((3, 4), None), ((2, 4), None)], (F32, F32)),
    ([((3, 4), None), ((3, 4), None)], (F32, "float64")),
    ([((3, 4), None), ((3, 4), None)], (I64, I64)),
]
POINTWISE_LOSSES = {
    "mse_loss": lambda lib, r, x, y: aten(lib, "mse_loss")(x, y, r),
    "smooth_l1_loss": lambda lib, r, x, y: aten(lib, "smooth_l1_loss")(x, y, r, 0.5),
    "huber_loss": lambda lib, r, x, y: aten(lib, "huber_loss")(x, y, r, 2.0),
    "soft_margin_loss": lambda lib, r, x, y: aten(lib, "soft_margin_loss")(x, y, r),
    "binary_cross_entropy": lambda lib, r, x, y: aten(lib, "binary_cross_entropy")(x, y, None, r),
    "binary_cross_entropy_with_logits":
        lambda lib, r, x, y: aten(lib, "binary_cross_entropy_with_logits")(x, y, None, None, r),
    "dist": lambda lib, r, x, y: aten(lib, "dist")(x, y, r + 1),
    "_softmax_backward_data":
        lambda lib, r, x, y: aten(lib, "_softmax_backward_data")(x, y, r - 1, x.dtype),
    "_log_softmax_backward_data":
        lambda lib, r, x, y: aten(lib, "_log_softmax_backward_data")(x, y, 0, x.dtype),
}  # fmt: skip


@pytest.mark.parametrize("name", POINTWISE_LOSSES)
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_pointwise_losses(name, reduction):
    loss = POINTWISE_LOSSES[name]
    for geometry, dtypes in LOSS_INPUTS:
        if name == "_log_softmax_backward_data" and geometry[1][0] == (2, 4):
            continue  # PyTorch's CPU kernel checks no sizes: it reads past ``output``
        check_op(lambda lib, x, y: loss(lib, reduction, x, y), meta_pairs(geometry, dtypes))


@pytest.mark.parametrize(
    "name",
    [
        "mse_loss.out",
        "smooth_l1_loss.out",
        "huber_loss.out",
        "soft_margin_loss.out",
        "binary_cross_entropy.out",
    ],
)
@pytest.mark.parametrize("reduction", [0, 1])
def test_pointwise_loss_outs(name, reduction):
    base = name.removesuffix(".out")
    # (Unreduced, a resized ``out`` is laid out as the inputs: transposed, channels-last.)
    inputs = LOSS_INPUTS[:4]
    if base == "binary_cross_entropy" and not reduction:
        inputs = []  # PyTorch 2.13 leaves its ``out`` unresized (shape (0,)) on the CPU
    for geometry, dtypes in inputs:
        pairs = meta_pairs(geometry, dtypes)
        for out_dtype in ("float32", "int64"):
            t_out = torch.empty(0, dtype=getattr(torch, out_dtype))
            v_out = vg.empty(0, dtype=getattr(vg, out_dtype), device="meta")
            extra = [] if base in ("mse_loss", "soft_margin_loss") else [1.0]

            def call(lib, x, y, out, extra=extra):
                if base == "binary_cross_entropy":
                    return aten(lib, name)(x, y, None, reduction, out=out)
                return aten(lib, name)(x, y, reduction, *extra, out=out)

            t_args = [torch_cpu(p[1]) for p in pairs]
            _, error = outcome(lambda: call(torch, *t_args, t_out))
            if error is not None:
                assert_same_error(lambda: call(vg, *[p[0] for p in pairs], v_out),
                                  lambda: raise_(error))  # fmt: skip
                continue
            assert call(vg, *[p[0] for p in pairs], v_out) is v_out
            assert metadata(v_out) == metadata(t_out)


def test_weighted_binary_cross_entropy():
    for weight in (((4,), None), ((3, 1), None), ((5,), None)):
        pairs = meta_pairs([((3, 4), None), ((3, 4), None), weight], (F32, F32, F32))
        for reduction in (0, 1):
            check_op(lambda lib, x, y, w, r=reduction: aten(lib, "binary_cross_entropy")(x, y, w, r),
                     pairs)  # fmt: skip
            check_op(lambda lib, x, y, w, r=reduction: aten(
                lib, "binary_cross_entropy_with_logits")(x, y, w, w, r), pairs)  # fmt: skip


# nll_loss: (input, target[, weight]) geometries and dtypes.
NLL_INPUTS = [
    ([((3, 5), None), ((3,), None)], (F32, I64)),
    ([((5, 3), (1, 5)), ((5,), None)], (F32, I64)),
    ([((5,), None), ((), None)], (F32, I64)),
    ([((5,), None), ((1,), None)], (F32, I64)),
    ([((0, 5), None), ((0,), None)], (F32, I64)),
    ([((3, 5), None), ((4,), None)], (F32, I64)),
    ([((3, 5), None), ((3,), None)], (F32, "int32")),
    ([((3, 5), None), ((3,), None)], (I64, I64)),
    ([((3, 5, 2), None), ((3,), None)], (F32, I64)),
    ([((3, 5), None), ((3,), None), ((5,), None)], (F32, I64, F32)),
    ([((3, 5), None), ((3,), None), ((4,), None)], (F32, I64, F32)),
    ([((3, 5), None), ((3,), None), ((5,), None)], (F32, I64, "float64")),
]
NLL2D_INPUTS = [
    ([((2, 3, 4, 5), None), ((2, 4, 5), None)], (F32, I64)),
    ([((2, 3, 4, 5), (60, 1, 15, 3)), ((2, 4, 5), None)], (F32, I64)),
    ([((2, 3, 4, 5), None), ((2, 4, 4), None)], (F32, I64)),
    ([((2, 3, 4), None), ((2, 4, 5), None)], (F32, I64)),
    ([((2, 3, 4, 5), None), ((2, 4, 5), None), ((3,), None)], (F32, I64, F32)),
    ([((2, 3, 4, 5), None), ((2, 4, 5), None), ((2,), None)], (F32, I64, F32)),
]


def _with_weight(fn):
    return lambda lib, x, t, w=None: fn(lib, x, t, w)


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize(
    "name, inputs", [("nll_loss_forward", NLL_INPUTS), ("nll_loss2d_forward", NLL2D_INPUTS)]
)
def test_nll_loss_forward(name, inputs, reduction):
    for geometry, dtypes in inputs:
        fn = _with_weight(lambda lib, x, t, w: aten(lib, name)(x, t, w, reduction, -100))
        _check(fn, meta_pairs(geometry, dtypes))


@pytest.mark.parametrize("reduction", [0, 1])
@pytest.mark.parametrize(
    "name, inputs",
    [("nll_loss_forward.output", NLL_INPUTS[:4]), ("nll_loss2d_forward.output", NLL2D_INPUTS[:2])],
)
def test_nll_loss_forward_output(name, inputs, reduction):
    for geometry, dtypes in inputs:
        pairs = meta_pairs(geometry, dtypes)
        for out_dtype in ("float32", "float64"):

            def call(lib, x, t, device, d=out_dtype):
                outs = [lib.empty(0, dtype=getattr(lib, d), device=device) for _ in range(2)]
                result = aten(lib, name)(x, t, None, reduction, -100, output=outs[0],
                                         total_weight=outs[1])  # fmt: skip
                assert all(r is o for r, o in zip(result, outs, strict=True))
                return outs

            _, error = outcome(lambda: call(torch, *[torch_cpu(p[1]) for p in pairs], "cpu"))
            if error is not None:
                assert_same_error(lambda: call(vg, *[p[0] for p in pairs], "meta"),
                                  lambda: raise_(error))  # fmt: skip
                continue
            t_outs = call(torch, *[torch_cpu(p[1]) for p in pairs], "cpu")
            v_outs = call(vg, *[p[0] for p in pairs], "meta")
            assert [metadata(o) for o in v_outs] == [metadata(o) for o in t_outs]


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize(
    "name, inputs", [("nll_loss_backward", NLL_INPUTS), ("nll_loss2d_backward", NLL2D_INPUTS)]
)
def test_nll_loss_backward(name, inputs, reduction):
    for geometry, dtypes in inputs:
        per_sample = reduction == 0 and len(geometry[0][0]) >= 2
        grad_size = geometry[1][0] if per_sample else ()
        grads = [(grad_size, None), ((3,), None)] if per_sample else [(grad_size, None)]
        for grad_geometry in grads:
            for total in (((), None), ((2,), None)):
                all_geometry = [grad_geometry, *geometry[:2], total, *geometry[2:]]
                all_dtypes = [dtypes[0], *dtypes[:2], dtypes[0], *dtypes[2:]]

                def fn(lib, g, x, t, tw, w=None):
                    return aten(lib, name)(g, x, t, w, reduction, -100, tw)

                check_op(fn, meta_pairs(all_geometry, all_dtypes))


MARGIN_INPUTS = [
    ([((3, 5), None), ((3,), None)], (F32, I64)),
    ([((5, 3), (1, 5)), ((5,), None)], (F32, I64)),
    ([((5,), None), ((), None)], (F32, I64)),
    ([((), None), ((), None)], (F32, I64)),
    ([((0, 5), None), ((0,), None)], (F32, I64)),
    ([((3, 0), None), ((3,), None)], (F32, I64)),
    ([((3, 5), None), ((4,), None)], (F32, I64)),
    ([((3, 5), None), ((3,), None)], (F32, "int32")),
    ([((3, 5), None), ((3,), None)], ("float16", I64)),
    ([((3, 5), None), ((3,), None), ((5,), None)], (F32, I64, F32)),
    ([((3, 5), None), ((3,), None), ((4,), None)], (F32, I64, F32)),
]


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_multi_margin_loss(p, reduction):
    for geometry, dtypes in MARGIN_INPUTS:
        if reduction == 0 and geometry[0][0] == ():
            # A 0-dim input's per-sample loss is 0-dim on PyTorch's CPU, (1,) on its meta
            # path; with one class, the CPU kernel refuses the test's target (1).
            continue

        def fn(lib, x, t, w=None):
            return aten(lib, "multi_margin_loss")(x, t, p, 1.0, w, reduction)

        _check(fn, meta_pairs(geometry, dtypes))


def test_multi_margin_loss_out():
    pairs = meta_pairs(MARGIN_INPUTS[0][0], MARGIN_INPUTS[0][1])
    for reduction, out_dtype in ((0, "float32"), (1, "float64"), (1, "int64")):
        t_out = torch.empty(0, dtype=getattr(torch, out_dtype))
        v_out = vg.empty(0, dtype=getattr(vg, out_dtype), device="meta")
        call = aten(torch, "multi_margin_loss.out")
        _, error = outcome(lambda: call(*[torch_cpu(p[1]) for p in pairs], 1, 1.0, None,
                                        reduction, out=t_out))  # fmt: skip
        v_call = aten(vg, "multi_margin_loss.out")
        if error is not None:
            assert_same_error(lambda: v_call(pairs[0][0], pairs[1][0], 1, 1.0, None, reduction,
                                             out=v_out), lambda: raise_(error))  # fmt: skip
            continue
        assert v_call(pairs[0][0], pairs[1][0], 1, 1.0, None, reduction, out=v_out) is v_out
        assert metadata(v_out) == metadata(t_out)


def test_allclose_runs_isclose_then_cannot_read_the_answer():
    for geometry, dtypes in LOSS_INPUTS:
        pairs = meta_pairs(geometry, dtypes)
        t_error = outcome(lambda: torch.allclose(pairs[0][1], pairs[1][1]))[1]
        t_cpu_error = outcome(lambda: torch.allclose(*[torch_cpu(p[1]) for p in pairs]))[1]
        try:  # refused as PyTorch's meta path refuses, or as its CPU kernel (broadcasting)
            assert_same_error(lambda: vg.allclose(pairs[0][0], pairs[1][0]),
                              lambda: raise_(t_error))  # fmt: skip
        except AssertionError:
            assert_same_error(lambda: vg.allclose(pairs[0][0], pairs[1][0]),
                              lambda: raise_(t_cpu_error))  # fmt: skip
    pairs = meta_pairs([((3,), None), ((3,), None)], (F32, F32))
    t_error = outcome(lambda: torch.allclose(pairs[0][1], pairs[1][1], rtol=-1.0))[1]
    assert_same_error(lambda: vg.allclose(pairs[0][0], pairs[1][0], rtol=-1.0),
                      lambda: raise_(t_error))  # fmt: skip


def test_equal_has_no_meta_kernel_as_in_pytorch():
    (v, t), (v2, t2) = meta_pairs([((3,), None), ((3,), None)], (F32, F32))
    assert_same_error(lambda: vg.equal(v, v2), lambda: torch.equal(t, t2))


# --- mixed devices ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mse_loss", "binary_cross_entropy", "dist", "huber_loss"])
def test_a_cpu_and_a_meta_input(name):
    loss = POINTWISE_LOSSES[name]
    (v, t), (v2, t2) = meta_pairs([((3, 4), None), ((3, 4), None)], (F32, F32))
    for first, second in (((v, t), (cpu_like(v2), torch_cpu(t2))),
                          ((cpu_like(v), torch_cpu(t)), (v2, t2))):  # fmt: skip
        t_result, t_error = outcome(lambda: loss(torch, 1, first[1], second[1]))
        if t_error is not None:
            assert_same_error(lambda: loss(vg, 1, first[0], second[0]), lambda: raise_(t_error))
        else:
            assert_meta_same(loss(vg, 1, first[0], second[0]), t_result)


# --- autograd -----------------------------------------------------------------------------

# ``prod``, ``cumprod``, ``max()`` and ``median()`` branch on values on the CPU: on meta
# tensors they take PyTorch's branch-free formulas.
BACKWARDS = {
    "prod": lambda lib, x: x.prod(),
    "prod_dim": lambda lib, x: x.prod(1),
    "max_dim": lambda lib, x: x.max(1).values,
    "max": lambda lib, x: x.max(),
    "median": lambda lib, x: x.median(),
    "cumsum": lambda lib, x: x.cumsum(1),
    "cumprod": lambda lib, x: x.cumprod(0),
    "cummax": lambda lib, x: x.cummax(1).values,
    "std": lambda lib, x: x.std(),
    "var_mean": lambda lib, x: lib.var_mean(x, 0)[0],
    "vector_norm": lambda lib, x: lib.linalg.vector_norm(x, 3, 1),
    "dist": lambda lib, x: lib.dist(x, x.detach()),
    "trace": lambda lib, x: x.trace(),
    "sort": lambda lib, x: x.sort(1).values,
    "kthvalue": lambda lib, x: x.kthvalue(2, 1).values,
    "logcumsumexp": lambda lib, x: x.logcumsumexp(1),
    "nansum": lambda lib, x: x.nansum(1),
    "amin": lambda lib, x: x.amin((0, 1)),
    "mean_dtype": lambda lib, x: x.mean(0, dtype=lib.float64),
    "binary_cross_entropy": lambda lib, x: lib.nn.functional.binary_cross_entropy(x, x.detach()),
    "huber_loss": lambda lib, x: lib.nn.functional.huber_loss(x, x.detach()),
    "soft_margin_loss": lambda lib, x: lib.nn.functional.soft_margin_loss(x, x.detach()),
    "sum": lambda lib, x: x.sum(),
    "mean_dim": lambda lib, x: x.mean(1),
    "amax": lambda lib, x: x.amax(-1),
    "logsumexp": lambda lib, x: x.logsumexp(0),
    "var": lambda lib, x: x.var(0),
    "softmax": lambda lib, x: lib.softmax(x, 1),
    "log_softmax": lambda lib, x: lib.log_softmax(x, 0),
    "mse_loss": lambda lib, x: lib.nn.functional.mse_loss(x, x.detach()),
    "bce_with_logits": lambda lib, x: lib.nn.functional.binary_cross_entropy_with_logits(
        x, x.detach()),
    "nll_loss": lambda lib, x: lib.nn.functional.nll_loss(
        lib.log_softmax(x, 1), lib.empty(3, dtype=lib.int64, device="meta")),
    "smooth_l1_loss": lambda lib, x: lib.nn.functional.smooth_l1_loss(x, x.detach(),
                                                                     reduction="sum"),
}  # fmt: skip


@pytest.mark.parametrize("name", BACKWARDS)
def test_backward_on_meta_tensors(name):
    fn = BACKWARDS[name]
    for size, stride in (((3, 4), None), ((3, 4), (1, 3))):
        v, t = meta_pair(size, stride, requires_grad=True)
        v_result, t_result = fn(vg, v), fn(torch, t)
        assert_meta_same(v_result, t_result)
        v_result.sum().backward()
        t_result.sum().backward()
        assert_meta_same(v.grad, t.grad)

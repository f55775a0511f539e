"""Reductions, scans and sorting are declared from whole schemas: their overloads and errors."""

from __future__ import annotations

import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg
from vizgrad.ops import norms, sorting

DECLARED = {
    vg.sum: ["sum", "sum.dim_IntList", "sum.IntList_out"],
    vg.nansum: ["nansum", "nansum.out"],
    vg.mean: ["mean", "mean.dtype_out", "mean.dim", "mean.out"],
    vg.nanmean: ["nanmean", "nanmean.out"],
    vg.prod: ["prod", "prod.dim_int", "prod.int_out"],
    vg.logsumexp: ["logsumexp", "logsumexp.out"],
    vg.max: ["max", "max.unary_out", "max.other", "max.out", "max.dim", "max.dim_max"],
    vg.min: ["min", "min.unary_out", "min.other", "min.out", "min.dim", "min.dim_min"],
    vg.amax: ["amax", "amax.out"],
    vg.amin: ["amin", "amin.out"],
    vg.argmax: ["argmax", "argmax.out"],
    vg.argmin: ["argmin", "argmin.out"],
    vg.aminmax: ["aminmax", "aminmax.out"],
    vg.var: ["var", "var.dim", "var.correction", "var.out", "var.correction_out"],
    vg.std: ["std", "std.dim", "std.correction", "std.out", "std.correction_out"],
    vg.var_mean: ["var_mean", "var_mean.dim", "var_mean.correction"],
    vg.std_mean: ["std_mean", "std_mean.dim", "std_mean.correction"],
    norms.linalg_vector_norm: ["linalg_vector_norm", "linalg_vector_norm.out"],
    norms.linalg_matrix_norm: [
        "linalg_matrix_norm",
        "linalg_matrix_norm.out",
        "linalg_matrix_norm.str_ord",
        "linalg_matrix_norm.str_ord_out",
    ],
    vg.all: ["all", "all.all_out", "all.dim", "all.out", "all.dims", "all.dims_out"],
    vg.any: ["any", "any.all_out", "any.dim", "any.out", "any.dims", "any.dims_out"],
    vg.count_nonzero: ["count_nonzero", "count_nonzero.dim_IntList"],
    vg.cumsum: ["cumsum", "cumsum_", "cumsum.out"],
    vg.cumprod: ["cumprod", "cumprod_", "cumprod.out"],
    vg.sort: ["sort", "sort.stable", "sort.values", "sort.values_stable"],
    vg.argsort: ["argsort", "argsort.stable", "argsort.stable_out"],
    vg.msort: ["msort", "msort.out"],
    vg.topk: ["topk", "topk.values"],
    vg.kthvalue: ["kthvalue", "kthvalue.values"],
    vg.median: ["median", "median.dim", "median.dim_values"],
    vg.nanmedian: ["nanmedian", "nanmedian.dim", "nanmedian.dim_values"],
    vg.mode: ["mode", "mode.values"],
    sorting._unique2: ["_unique2"],
    sorting._unique_dim: ["unique_dim"],
    sorting._unique_consecutive: ["unique_consecutive"],
}


@pytest.mark.parametrize("function", list(DECLARED), ids=lambda f: f.__name__)
def test_one_declaration_holds_every_overload(function):
    assert sorted(function.overloads) == sorted(DECLARED[function])


BAD_CALLS = [
    "lib.sum(x, 'a')",
    "x.sum(0, 'a')",
    "x.sum(keepdim=True)",
    "lib.sum(x, out=lib.zeros(()))",
    "lib.sum(x, 0, dtype='a')",
    "x.sum((0, 'a'))",
    "lib.nansum(x, 1.5)",
    "lib.mean(x, (0,), 1)",
    "lib.nanmean('x')",
    "lib.prod(x, (0, 1))",
    "lib.prod(x, None)",
    "lib.logsumexp(x)",
    "lib.logsumexp(x, None)",
    "lib.max(x, 'a')",
    "lib.max(x, keepdim=True)",
    "lib.max(x, 1, out=lib.zeros(3))",
    "lib.max(x, 1, out=(lib.zeros(3), 3))",
    "x.max(1.5)",
    "lib.min(x, x, x)",
    "lib.max(x, other=2)",
    "lib.amax(x, 'a')",
    "x.amax(0, 1)",
    "lib.argmax(x, (0,))",
    "lib.aminmax(x, 0)",
    "lib.aminmax(x, dim=0, out=lib.zeros(3))",
    "lib.var_mean(x, 'a')",
    "x.std(unbiased=1)",
    "lib.std_mean(x, out=x)",
    "lib.norm(x, 2, 1, dtype=3)",
    "lib.norm(x, 'fro', dim=(0, 1, 2))",
    "lib.norm(lib.ones(3), 'nuc')",
    "lib.all(x, 'a')",
    "lib.any(x, 1.5)",
    "lib.count_nonzero(x, 'a')",
    "lib.cumsum(x)",
    "x.cumsum_(0.5)",
    "lib.cumprod(x, 0, dtype=1)",
    "lib.sort(x, 'a')",
    "lib.sort(x, out=3)",
    "lib.sort(x, stable=3)",
    "x.argsort(out=x)",
    "lib.argsort(x, 0, out=x)",
    "lib.msort(x, 0)",
    "lib.topk(x, 1.5)",
    "x.kthvalue()",
    "lib.median(x, out=x)",
    "lib.nanmedian(x, 0, 1)",
    "lib.mode(x, 'a')",
    "lib.unique(x, dim='a')",
    "lib.unique_consecutive(x, dim=1.5)",
]


@pytest.mark.parametrize("call", BAD_CALLS)
def test_bad_calls_raise_like_torch(call):
    v, t = vg.ones(3, 4), torch.ones(3, 4)
    assert_same_error(lambda: eval(call, {"lib": vg, "x": v}),
                      lambda: eval(call, {"lib": torch, "x": t}))  # fmt: skip


GOOD_CALLS = [
    "x.all(keepdim=True)",
    "x.amin(None, True)",
    "lib.mean(x, out=lib.zeros(()))",
    "lib.count_nonzero(x, 0)",
    "lib.count_nonzero(x, (0, 1))",
    "lib.any(x, 1, keepdim=True)",
    "lib.all(x, out=lib.zeros((), dtype=lib.bool))",
    "lib.max(x, 1, out=[lib.zeros(3), lib.zeros(3, dtype=lib.int64)])",
    "lib.max(x, other=x)",
    "x.std(None, False)",
    "lib.var_mean(x, 0, False)",
    "lib.sort(x, stable=False)",
    "lib.argsort(x, stable=True, out=lib.zeros(3, 4, dtype=lib.int64))",
    "lib.msort(x, out=lib.zeros(3, 4))",
    "lib.norm(x, None)",
    "lib.norm(x, 'nuc', keepdim=True)",
    "lib.prod(x, 0, True, dtype=lib.float64)",
    "lib.kthvalue(x, 1, 0, True)",
    "x.unique(dim=-1)",
    "x.unique_consecutive(return_inverse=True, dim=-1)",
    "lib.aminmax(x, dim=-1, keepdim=True)",
]


@pytest.mark.parametrize("call", GOOD_CALLS)
def test_good_calls_agree_with_torch(call):
    v, t = vg.arange(12.0).reshape(3, 4), torch.arange(12.0).reshape(3, 4)
    got = eval(call, {"lib": vg, "x": v})
    expected = eval(call, {"lib": torch, "x": t})
    assert type(got).__name__ == type(expected).__name__
    assert_same(got, expected)


@pytest.mark.parametrize(
    ("call", "overload"),
    [
        ("x.sum()", "aten::sum"),
        ("x.sum(dim=None)", "aten::sum.dim_IntList"),
        ("x.var()", "aten::var.correction"),
        ("x.var(0)", "aten::var.dim"),
        ("x.var(False)", "aten::var"),
        ("lib.max(x, x)", "aten::max.other"),
        ("x.max(0)", "aten::max.dim"),
        ("x.all(0)", "aten::all.dim"),
        ("x.all((0,))", "aten::all.dims"),
        ("x.count_nonzero()", "aten::count_nonzero"),
        ("x.sort(stable=False)", "aten::sort.stable"),
        ("lib.mean(x, out=lib.zeros(()))", "aten::mean.dtype_out"),
    ],
)
def test_the_parser_picks_torchs_overload(call, overload):
    x = vg.ones(3, 4)
    with vg.dispatch_trace() as trace:
        eval(call, {"lib": vg, "x": x})
    assert trace.ops[-1] == overload


def test_the_old_spellings_of_var_call_var_correction():
    """``var.dim`` is CompositeImplicitAutograd: it records ``var.correction``'s node, with
    ``unbiased=True`` saved as ``correction=1`` (and an omitted one as None)."""
    v = vg.ones(3, 4, requires_grad=True)
    t = torch.ones(3, 4, requires_grad=True)
    for call in ("x.var(0)", "x.var()", "x.var(False)", "x.std(1, True, True)"):
        v_node = eval(call, {"x": v}).grad_fn
        t_node = eval(call, {"x": t}).grad_fn
        assert v_node.name() == type(t_node).__name__
        assert v_node._saved_correction == t_node._saved_correction


def test_out_of_an_operator_with_several_results():
    """``out=`` is a tuple, one tensor per result, written by the schema's names and
    returned as the ``_out`` named tuple; a tuple of the wrong size is PyTorch's error."""
    v, t = vg.tensor([[1.0, 3.0], [4.0, 2.0]]), torch.tensor([[1.0, 3.0], [4.0, 2.0]])
    values, indices = vg.zeros(2), vg.zeros(2, dtype=vg.int64)
    result = vg.max(v, 1, out=(values, indices))
    assert type(result) is vg.return_types.max_out
    assert result.values is values and result.indices is indices
    assert values._version == 1 and indices._version == 1
    assert vg.max.overloads["max.dim_max"].out_names == ("max", "max_values")
    assert_same_error(lambda: vg.max(v, 1, out=(vg.zeros(2),)),
                      lambda: torch.max(t, 1, out=(torch.zeros(2),)))  # fmt: skip


def test_out_overloads_made_of_other_operators_are_composite():
    """``nanmean.out`` writes ``out`` through ``nansum.out`` and ``div_`` (two version
    bumps, as in PyTorch); other out= overloads record no node."""
    from vizgrad.dispatcher import COMPOSITE_IMPLICIT, EXPLICIT

    assert vg.nanmean.overloads["nanmean.out"].kind is COMPOSITE_IMPLICIT
    assert vg.var.overloads["var.out"].kind is COMPOSITE_IMPLICIT
    out_op = vg.sum.overloads["sum.IntList_out"]
    assert out_op.kind is EXPLICIT and out_op.derivative is None


def test_separate_ints_are_dims_only_for_an_unsized_list():
    v, t = vg.arange(6.0).view(2, 3), torch.arange(6.0).view(2, 3)
    assert v.count_nonzero(0, 1).item() == t.count_nonzero(0, 1).item()
    assert_same_error(lambda: v.var(0, 1), lambda: t.var(0, 1))

"""The ``out=`` overloads of reductions that give values and indices refuse what PyTorch's refuse.

``sort``, ``topk``, ``max.dim``, ``min.dim``, ``median.dim``, ``nanmedian.dim``, ``mode``,
``kthvalue`` and ``aminmax`` write two outputs. Their ATen kernels refuse an output
whose elements share memory (an ``expand``ed one), and most refuse a ``values`` (or
``indices``) that is part of ``self`` (the TensorIterator they write through checks it;
``kthvalue`` refuses even ``self`` itself, ``median`` reads a copy and refuses neither).
Each case is run in vizgrad and in PyTorch: the same error (class and message, hence
which check came first, among the dtype, dim and shape checks), the same resize
warnings, or the same results. Views of one storage that do not overlap are accepted.

An output that is ``self`` with another shape is resized before the kernel reads
``self`` (a structured kernel's meta step; ``median``'s own ``resize_output``), so the
kernel reads ``self`` resized, with ``dim`` as the meta step wrapped it: results of the
resized ``self`` (resized again, with the warning, as the kernel writes them), or an
``IndexError`` for a ``dim`` it no longer has.
"""

from __future__ import annotations

import math
import warnings

import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg

# Distinct values, so every op has one right answer (mode: each value once, the smallest).
DATA = [7.0, 2.0, 9.0, 4.0, 11.0, 0.0, 5.0, 8.0, 3.0, 10.0, 1.0, 6.0]

# Each op as a call of ``x`` into ``(v, i)`` along ``dim``, with its outputs' shape for a
# (3, 4) ``x`` reduced along 0, and the dtype of its second output.
OPS = {
    "sort": ("lib.sort(x, {dim}, out=({v}, {i}))", (3, 4), "lib.long"),
    "sort.stable": ("lib.sort(x, stable=True, dim={dim}, out=({v}, {i}))", (3, 4), "lib.long"),
    "topk": ("lib.topk(x, 2, {dim}, out=({v}, {i}))", (2, 4), "lib.long"),
    "max.dim": ("lib.max(x, {dim}, out=({v}, {i}))", (4,), "lib.long"),
    "min.dim": ("lib.min(x, {dim}, out=({v}, {i}))", (4,), "lib.long"),
    "median.dim": ("lib.median(x, {dim}, out=({v}, {i}))", (4,), "lib.long"),
    "nanmedian.dim": ("lib.nanmedian(x, {dim}, out=({v}, {i}))", (4,), "lib.long"),
    "mode": ("lib.mode(x, {dim}, out=({v}, {i}))", (4,), "lib.long"),
    "kthvalue": ("lib.kthvalue(x, 2, {dim}, out=({v}, {i}))", (4,), "lib.long"),
    "aminmax": ("lib.aminmax(x, dim={dim}, out=({v}, {i}))", (4,), "lib.float"),
}


def _shape(shape) -> str:
    return ", ".join(map(str, shape)) or ""


def _cases(vshape, idt: str) -> dict:
    """Outputs ``(v, i)`` and ``dim`` for ``x``, a (3, 4) view of the storage ``s`` (its
    first 12 elements); ``ls`` is a storage of the indices' dtype."""
    n = math.prod(vshape)
    vs = _shape(vshape)
    ok_v, ok_i = f"lib.empty({vs})", f"lib.empty({vs}, dtype={idt})"
    return {
        "fresh outputs": (ok_v, ok_i, 0),
        "expanded values": (f"lib.zeros(1).expand({vs})", ok_i, 0),
        "expanded indices": (ok_v, f"lib.zeros(1, dtype={idt}).expand({vs})", 0),
        "both expanded": (
            f"lib.zeros(1).expand({vs})",
            f"lib.zeros(1, dtype={idt}).expand({vs})",
            0,
        ),
        "expanded values of another dtype": (
            f"lib.zeros(1, dtype=lib.float64).expand({vs})",
            ok_i,
            0,
        ),
        "expanded values, indices of another dtype": (
            f"lib.zeros(1).expand({vs})",
            f"lib.empty({vs}, dtype=lib.int32)",
            0,
        ),
        "expanded values, dim out of range": (f"lib.zeros(1).expand({vs})", ok_i, 5),
        "expanded values of another shape": ("lib.zeros(1).expand(7)", ok_i, 0),
        "expanded values with no elements": ("lib.zeros(1).expand(0)", ok_i, 0),
        "values is self": ("x", ok_i, 0),
        "values is self, indices expanded": ("x", f"lib.zeros(1, dtype={idt}).expand({vs})", 0),
        "values is the start of self": (f"s[:{n}].view({vs})", ok_i, 0),
        "values is the end of self": (f"s[{12 - n}:12].view({vs})", ok_i, 0),
        "values is the first row of self": ("x[0]" if len(vshape) == 1 else "x[:2]", ok_i, 0),
        "values overlaps the end of self": (f"s[10:{10 + n}].view({vs})", ok_i, 0),
        "values overlaps self, indices of another dtype": (
            f"s[:{n}].view({vs})",
            f"lib.empty({vs}, dtype=lib.int32)",
            0,
        ),
        "values overlaps self, expanded indices": (
            f"s[:{n}].view({vs})",
            f"lib.zeros(1, dtype={idt}).expand({vs})",
            0,
        ),
        "values right after self": (f"s[12:{12 + n}].view({vs})", ok_i, 0),
        "values and indices disjoint views of one storage": (
            f"ls[:{n}].view({vs})",
            f"ls[{n}:{2 * n}].view({vs})",
            0,
        )
        if idt == "lib.float"
        else (f"s[20:{20 + n}].view({vs})", f"ls[20:{20 + n}].view({vs})", 0),
        "values and indices are one tensor": (
            f"ls[:{n}]" + f".view({vs})",
            f"ls[:{n}].view({vs})",
            0,
        )
        if idt == "lib.float"
        else (ok_v, f"ls[:{n}].view({vs})", 0),
        "values and indices overlap": (f"ls[:{n}].view({vs})", f"ls[2:{2 + n}].view({vs})", 0)
        if idt == "lib.float"
        else (ok_v, f"ls[2:{2 + n}].view({vs})", 0),
    }


def _run(expr: str, lib, x: str = "s[:12].view(3, 4)", idt: str = "lib.long"):
    """``expr`` with ``s`` (a storage holding DATA first), ``x`` a view of it and ``ls``."""
    program = (f"(lambda s, ls: (lambda x: {expr})({x}))"
               f"(lib.cat([lib.tensor(DATA), lib.zeros(88)]), lib.zeros(100, dtype={idt}))")  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = eval(program, {"lib": lib, "DATA": DATA})  # noqa: S307 - our own cases
        except Exception as error:  # noqa: BLE001 - compared by the caller
            return error, [str(w.message)[:60] for w in caught]
    return result, [str(w.message)[:60] for w in caught]


def _raise(error: Exception):
    raise error


def check(expr: str, *, results: bool = True, **where) -> None:
    """``expr`` raises in vizgrad what it raises in torch, after the same warnings, or
    gives the same results (the outputs as written, with their strides)."""
    got, got_warnings = _run(expr, vg, **where)
    expected, expected_warnings = _run(expr, torch, **where)
    assert got_warnings == expected_warnings
    if isinstance(expected, Exception):
        assert isinstance(got, Exception), f"vizgrad did not raise; torch raised {expected!r}"
        assert_same_error(lambda: _raise(got), lambda: _raise(expected))
        return
    assert not isinstance(got, Exception), f"vizgrad raised {got!r}; torch did not"
    if results:
        assert_same(tuple(got), tuple(expected))


# Never run: PyTorch 2.13 itself crashes (a segmentation fault) on ``median`` (and
# ``nanmedian``) of an empty ``self`` into ``values=self``, which it resizes to (0,) and
# then reads as if it still had its 4 rows.
NOT_COMPARED = {
    "median.dim-empty columns-values is self",
    "nanmedian.dim-empty columns-values is self",
}


def _marked(cases: list, ids: list) -> list:
    return [pytest.param(*case, id=name) for case, name in zip(cases, ids, strict=True)
            if name not in NOT_COMPARED]  # fmt: skip


CASES = [(op, case, *outs) for op, (call, vshape, idt) in OPS.items()
         for case, outs in _cases(vshape, idt).items()]  # fmt: skip


@pytest.mark.parametrize(("op", "case", "v", "i", "dim"),
                         _marked(CASES, [f"{op}-{case}" for op, case, *_ in CASES]))  # fmt: skip
def test_outputs_of_a_3x4_input(op, case, v, i, dim):
    call, _, idt = OPS[op]
    # Outputs that overlap each other are accepted; what they hold then depends on the
    # order the kernel writes them in, which is PyTorch's own.
    check(call.format(v=v, i=i, dim=dim), idt=idt, results=case != "values and indices overlap")


# --- outputs that are self exactly: a (1, 4) input keeps its shape ----------------------

FULL = {
    "sort": "lib.sort(x, 0, out=(x, lib.empty(1, 4, dtype=lib.long)))",
    "sort into self as indices": "lib.sort(x, 0, out=(lib.empty(1, 4), x))",
    "topk": "lib.topk(x, 1, 0, out=(x, lib.empty(1, 4, dtype=lib.long)))",
    "topk into self as indices": "lib.topk(x, 1, 0, out=(lib.empty(1, 4), x))",
    "max.dim": "lib.max(x, 0, keepdim=True, out=(x, lib.empty(1, 4, dtype=lib.long)))",
    "max.dim into self as indices": "lib.max(x, 0, keepdim=True, out=(lib.empty(1, 4), x))",
    "min.dim": "lib.min(x, 0, keepdim=True, out=(x, lib.empty(1, 4, dtype=lib.long)))",
    "median.dim": "lib.median(x, 0, keepdim=True, out=(x, lib.empty(1, 4, dtype=lib.long)))",
    "nanmedian.dim": "lib.nanmedian(x, 0, True, out=(x, lib.empty(1, 4, dtype=lib.long)))",
    "mode": "lib.mode(x, 0, keepdim=True, out=(x, lib.empty(1, 4, dtype=lib.long)))",
    "mode into self as indices": "lib.mode(x, 0, keepdim=True, out=(lib.empty(1, 4), x))",
    "kthvalue": "lib.kthvalue(x, 1, 0, True, out=(x, lib.empty(1, 4, dtype=lib.long)))",
    "kthvalue into self as indices": "lib.kthvalue(x, 1, 0, True, out=(lib.empty(1, 4), x))",
    "aminmax": "lib.aminmax(x, dim=0, keepdim=True, out=(x, lib.empty(1, 4)))",
    "aminmax max into self": "lib.aminmax(x, dim=0, keepdim=True, out=(lib.empty(1, 4), x))",
    "aminmax both into self": "lib.aminmax(x, dim=0, keepdim=True, out=(x, x))",
    "aminmax of all into self": "lib.aminmax(x, out=(x, lib.empty(())))",
    "aminmax of all, expanded": "lib.aminmax(x, out=(lib.empty(()), lib.zeros(1).expand(())))",
}


@pytest.mark.parametrize("expr", _marked([(e,) for e in FULL.values()], list(FULL)))
def test_outputs_that_are_self(expr):
    index_dtype = "lib.float" if "aminmax" in expr or "as indices" in expr else "lib.long"
    x = "s[:4].view(1, 4)" if "as indices" not in expr else "s[:4].view(1, 4).long()"
    check(expr, x=x, idt=index_dtype)


# --- 0-dim and empty inputs --------------------------------------------------------------

EDGE_INPUTS = {
    "0-dim": "s[3]",
    "empty rows": "s[:0].view(0, 4)",
    "empty columns": "s[:0].view(4, 0)",
}
EDGE_OUTPUTS = {
    "fresh": ("lib.empty(0)", "lib.empty(0, dtype={idt})"),
    "values is self": ("x", "lib.empty(0, dtype={idt})"),
    "values beside self": ("s[4]", "lib.empty(0, dtype={idt})"),
    "values is a 1-element view of self": ("s[3:4]", "lib.empty(0, dtype={idt})"),
    "expanded values": ("lib.zeros(1).expand(4)", "lib.empty(0, dtype={idt})"),
    "expanded indices": ("lib.empty(0)", "lib.zeros(1, dtype={idt}).expand(4)"),
}
EDGE = [(op, inp, out) for op in OPS for inp in EDGE_INPUTS for out in EDGE_OUTPUTS]


@pytest.mark.parametrize(("op", "inp", "out"), _marked(EDGE, [f"{o}-{i}-{u}" for o, i, u in EDGE]))
def test_outputs_of_0dim_and_empty_inputs(op, inp, out):
    call, _, idt = OPS[op]
    v, i = (part.format(idt=idt) for part in EDGE_OUTPUTS[out])
    dim = 1 if inp == "empty rows" else 0
    if op == "topk":
        call = call.replace(
            "lib.topk(x, 2,", "lib.topk(x, 0," if inp != "0-dim" else "lib.topk(x, 1,"
        )
    if op == "kthvalue":
        call = call.replace("lib.kthvalue(x, 2,", "lib.kthvalue(x, 1,")
    check(call.format(v=v, i=i, dim=dim), x=EDGE_INPUTS[inp], idt=idt)


# --- self as an output of another shape, for every dim and keepdim ------------------------

SELF_INPUTS = {
    "3x4": "s[:12].view(3, 4)",
    "1x4": "s[:4].view(1, 4)",
    "4x1": "s[:4].view(4, 1)",
    "transposed": "s[:12].view(3, 4).t()",
    "0-dim": "s[3]",
    "empty rows": "s[:0].view(0, 4)",
}
SELF_CALLS = {
    "max.dim": "lib.max(x, {dim}, {keepdim}, out=(x, lib.empty(0, dtype=lib.long)))",
    "min.dim": "lib.min(x, {dim}, {keepdim}, out=(x, lib.empty(0, dtype=lib.long)))",
    "aminmax min": "lib.aminmax(x, dim={dim}, keepdim={keepdim}, out=(x, lib.empty(0)))",
    "aminmax max": "lib.aminmax(x, dim={dim}, keepdim={keepdim}, out=(lib.empty(0), x))",
    "aminmax of all": "lib.aminmax(x, keepdim={keepdim}, out=(x, lib.empty(0)))",
    "topk": "lib.topk(x, 1, {dim}, out=(x, lib.empty(0, dtype=lib.long)))",
    "sort": "lib.sort(x, {dim}, out=(x, lib.empty(0, dtype=lib.long)))",
    "sort.stable": "lib.sort(x, stable=True, dim={dim}, out=(x, lib.empty(0, dtype=lib.long)))",
    "kthvalue": "lib.kthvalue(x, 1, {dim}, {keepdim}, out=(x, lib.empty(0, dtype=lib.long)))",
    # ``median`` refuses ``self`` resized to (4,) and seen as (1, 4) by its TensorIterator.
    "median.dim": "lib.median(x, {dim}, False, out=(x, lib.empty(0, dtype=lib.long)))",
    "nanmedian.dim": "lib.nanmedian(x, {dim}, False, out=(x, lib.empty(0, dtype=lib.long)))",
}
SELF_CASES = [(call, inp, dim, keepdim) for call in SELF_CALLS for inp in SELF_INPUTS
              for dim in (0, 1, -1) for keepdim in (False, True)
              if not (call.startswith(("topk", "sort", "median", "nanmedian")) and keepdim)]  # fmt: skip


@pytest.mark.parametrize(("call", "inp", "dim", "keepdim"), SELF_CASES)
def test_self_as_an_output_of_another_shape(call, inp, dim, keepdim):
    idt = "lib.float" if call.startswith("aminmax") else "lib.long"
    check(SELF_CALLS[call].format(dim=dim, keepdim=keepdim), x=SELF_INPUTS[inp], idt=idt)


# A resized output takes the meta step's layout: ``sort``'s follow a transposed ``self``.
SORT_LAYOUTS = [
    "lib.sort(x, 0, out=(lib.empty(0), lib.empty(0, dtype=lib.long)))",
    "lib.sort(x, stable=True, dim=1, out=(lib.empty(0), lib.empty(0, dtype=lib.long)))",
    "lib.sort(x, 0, out=(lib.empty(4, 3), lib.empty(0, dtype=lib.long)))",
    "lib.argsort(x, stable=True, dim=0, out=lib.empty(0, dtype=lib.long))",
    "lib.msort(x, out=lib.empty(0))",
]


@pytest.mark.parametrize("expr", SORT_LAYOUTS)
def test_resized_sort_outputs_follow_self(expr):
    check(expr, x="s[:12].view(3, 4).t()")

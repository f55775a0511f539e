"""Scans (cumsum, cumprod) and sorting/selection (sort, topk, median…) compared with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair, pair_from_storage

import vizgrad as vg

SHAPE = (3, 4, 5)
DENSE_LAYOUTS = ["contiguous", "transposed", "stepped", "offset"]  # no repeated elements
DTYPES = ["float32", "float64", "int64", "float16"]


def distinct_pair(shape, dtype, layout, seed=0):
    """Values without ties (a permutation of integers), so that every index is determined."""
    _, t = make_pair(shape, "float64", layout, seed)
    n = t.untyped_storage().nbytes() // 8
    data = (np.random.default_rng(seed).permutation(n) - n // 2).astype(dtype)
    return pair_from_storage(data, tuple(t.shape), t.stride(), t.storage_offset())


def repeating_pair(shape, dtype, layout, seed=0):
    """Small integers (0 to 3) in any dtype: values repeat, so ``unique`` has work to do."""
    _, t = make_pair(shape, "int64", layout, seed, low=0, high=4)
    data = np.frombuffer(bytes(t.untyped_storage()), dtype=np.int64).astype(dtype)
    return pair_from_storage(data, tuple(t.shape), t.stride(), t.storage_offset())


def vg_dtype(d: torch.dtype):
    return getattr(vg, str(d).split(".")[-1])


# --- cumsum, cumprod --------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "bool", "int8"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scans(name, layout, dtype, dim):
    v, t = make_pair(SHAPE, dtype, layout, low=-2, high=3)
    tol = {"rtol": 2e-3, "atol": 2e-3} if dtype == "float16" else {}
    assert_same(getattr(vg, name)(v, dim), getattr(torch, name)(t, dim), **tol)
    assert_same(getattr(v, name)(dim), getattr(t, name)(dim), **tol)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int8])
def test_scan_dtype_argument(name, dtype):
    v, t = make_pair((4, 3), "float32", "transposed", low=-2, high=2)
    assert_same(
        getattr(vg, name)(v, 0, dtype=vg_dtype(dtype)), getattr(torch, name)(t, 0, dtype=dtype)
    )
    vi, ti = make_pair((4, 3), "int32", "stepped", low=-2, high=3)
    assert_same(getattr(vi, name)(1, dtype=vg_dtype(dtype)), getattr(ti, name)(1, dtype=dtype))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_zero_dim_and_empty(name):
    for data in (3, 2.5):
        v, t = vg.tensor(data), torch.tensor(data)
        assert_same(getattr(v, name)(0), getattr(t, name)(0))
        assert_same(getattr(v, name)(-1), getattr(t, name)(-1))
    e, te = vg.zeros(0, 3), torch.zeros(0, 3)
    assert_same(getattr(e, name)(0), getattr(te, name)(0))
    assert_same(getattr(e, name)(1), getattr(te, name)(1))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_out(name):
    v, t = make_pair((3, 4), "float32", "transposed")
    vi, ti = make_pair((3, 4), "int64")
    for out_dtype in (torch.float32, torch.float64, torch.int64):
        vo, to = vg.zeros(3, 4, dtype=vg_dtype(out_dtype)), torch.zeros(3, 4, dtype=out_dtype)
        vr, tr = getattr(vg, name)(v, 1, out=vo), getattr(torch, name)(t, 1, out=to)
        assert vr is vo and vo._version == 1
        assert_same(vr, tr)
        vo, to = vg.zeros(3, 4, dtype=vg_dtype(out_dtype)), torch.zeros(3, 4, dtype=out_dtype)
        assert_same(getattr(vg, name)(vi, 0, out=vo), getattr(torch, name)(ti, 0, out=to))
    assert_same_error(
        lambda: getattr(vg, name)(vi, 0, dtype=vg.float64, out=vg.zeros(3, 4)),
        lambda: getattr(torch, name)(ti, 0, dtype=torch.float64, out=torch.zeros(3, 4)),
    )


@pytest.mark.parametrize("name", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "uint8"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_inplace_scans(name, dtype, layout):
    v, t = make_pair((3, 4), dtype, layout, low=-2, high=3)
    version = v._version
    vr, tr = getattr(v, name)(0), getattr(t, name)(0)
    assert vr is v and v._version == version + 1
    assert_same(vr, tr)
    assert_same(getattr(v, name)(-1, dtype=vg_dtype(t.dtype)), getattr(t, name)(-1, dtype=t.dtype))


def test_scan_errors():
    v, t = make_pair((3, 4), "float32")
    vi, ti = make_pair((3, 4), "int32")
    vb, tb = make_pair((3, 4), "bool")
    assert_same_error(lambda: v.cumsum(2), lambda: t.cumsum(2))
    assert_same_error(lambda: vg.cumprod(v, -3), lambda: torch.cumprod(t, -3))
    assert_same_error(
        lambda: v.cumsum_(0, dtype=vg.float64), lambda: t.cumsum_(0, dtype=torch.float64)
    )
    assert_same_error(
        lambda: vi.cumsum_(0, dtype=vg.int64), lambda: ti.cumsum_(0, dtype=torch.int64)
    )
    assert_same_error(lambda: vb.cumsum_(0), lambda: tb.cumsum_(0))
    assert_same_error(lambda: vg.cumsum(v, (0,)), lambda: torch.cumsum(t, (0,)))


# --- sort, argsort, msort ---------------------------------------------------------------


@pytest.mark.parametrize("layout", DENSE_LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort(layout, dtype, dim, descending):
    v, t = distinct_pair(SHAPE, dtype, layout)
    vr, tr = vg.sort(v, dim, descending), torch.sort(t, dim, descending)
    assert type(vr) is vg.return_types.sort
    assert_same(vr.values, tr.values)
    assert_same(vr.indices, tr.indices)
    assert_same(v.argsort(dim, descending), t.argsort(dim, descending))
    assert_same(
        vg.argsort(v, dim=dim, descending=descending, stable=True),
        torch.argsort(t, dim=dim, descending=descending, stable=True),
    )


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("descending", [False, True])
def test_stable_sort_keeps_ties_in_order_and_nan_is_largest(layout, descending):
    v, t = make_pair((4, 6), "int64", layout, low=0, high=3)
    assert_same(
        tuple(v.sort(stable=True, descending=descending)),
        tuple(t.sort(stable=True, descending=descending)),
    )
    data = [[3.0, 1.0, 2.0, 1.0, float("nan"), 0.0], [5.0, 5.0, 5.0, 1.0, 1.0, 2.0]]
    v, t = vg.tensor(data), torch.tensor(data)
    assert_same(
        tuple(v.sort(descending=descending, stable=True)),
        tuple(t.sort(descending=descending, stable=True)),
    )
    vb, tb = make_pair((5, 7), "bool", layout)
    assert_same(
        tuple(vb.sort(dim=0, descending=descending, stable=True)),
        tuple(tb.sort(dim=0, descending=descending, stable=True)),
    )


def test_sort_zero_dim_empty_and_msort():
    v, t = vg.tensor(2.0), torch.tensor(2.0)
    assert_same(tuple(v.sort()), tuple(t.sort()))
    assert_same(tuple(v.sort(0)), tuple(t.sort(0)))
    e, te = vg.zeros(0, 3), torch.zeros(0, 3)
    assert_same(tuple(e.sort(0)), tuple(te.sort(0)))
    assert_same(tuple(e.sort(1)), tuple(te.sort(1)))
    v, t = distinct_pair((4, 3), "float32", "transposed")
    assert_same(vg.msort(v), torch.msort(t))
    assert_same(vg.msort(v, out=vg.zeros(4, 3)), torch.msort(t, out=torch.zeros(4, 3)))


def test_sort_out_and_errors():
    v, t = distinct_pair((3, 4), "float32", "contiguous")
    vo = (vg.zeros(3, 4), vg.zeros(3, 4, dtype=vg.int64))
    to = (torch.zeros(3, 4), torch.zeros(3, 4, dtype=torch.int64))
    vr, tr = vg.sort(v, 0, out=vo), torch.sort(t, 0, out=to)
    assert type(vr) is vg.return_types.sort_out and vr[0] is vo[0]
    assert_same(tuple(vr), tuple(tr))
    assert_same_error(
        lambda: vg.sort(v, out=(vg.zeros(3, 4, dtype=vg.float64), vg.zeros(3, 4, dtype=vg.int64))),
        lambda: torch.sort(
            t, out=(torch.zeros(3, 4, dtype=torch.float64), torch.zeros(3, 4, dtype=torch.int64))
        ),
    )
    assert_same_error(
        lambda: vg.sort(v, out=(vg.zeros(3, 4), vg.zeros(3, 4, dtype=vg.int32))),
        lambda: torch.sort(t, out=(torch.zeros(3, 4), torch.zeros(3, 4, dtype=torch.int32))),
    )
    assert_same_error(lambda: v.sort(2), lambda: t.sort(2))
    assert_same_error(lambda: v.argsort(-3), lambda: t.argsort(-3))
    vc, tc = vg.tensor([1j, 2]), torch.tensor([1j, 2])
    assert_same_error(lambda: vc.sort(), lambda: tc.sort())


# --- topk, kthvalue, median, mode -------------------------------------------------------


@pytest.mark.parametrize("layout", DENSE_LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [1, 3])
def test_topk(layout, dtype, dim, largest, k):
    v, t = distinct_pair(SHAPE, dtype, layout)
    vr, tr = vg.topk(v, k, dim, largest), torch.topk(t, k, dim, largest)
    assert type(vr) is vg.return_types.topk
    assert_same(tuple(vr), tuple(tr))
    assert_same(tuple(v.topk(k, dim=dim, largest=largest)), tuple(tr))


def test_topk_edges_out_and_errors():
    v, t = distinct_pair((3, 4), "float32", "transposed")
    assert_same(tuple(v.topk(0)), tuple(t.topk(0)))
    assert_same(tuple(v.topk(4)), tuple(t.topk(4)))
    z, tz = vg.tensor(2.0), torch.tensor(2.0)
    assert_same(tuple(z.topk(1)), tuple(tz.topk(1)))
    vo = (vg.zeros(3, 2), vg.zeros(3, 2, dtype=vg.int64))
    to = (torch.zeros(3, 2), torch.zeros(3, 2, dtype=torch.int64))
    assert_same(tuple(vg.topk(v, 2, out=vo)), tuple(torch.topk(t, 2, out=to)))
    assert_same_error(lambda: v.topk(5), lambda: t.topk(5))
    assert_same_error(lambda: v.topk(-1), lambda: t.topk(-1))
    assert_same_error(lambda: v.topk(1, 2), lambda: t.topk(1, 2))
    vb, tb = make_pair((3, 4), "bool")
    assert_same_error(lambda: vb.topk(1), lambda: tb.topk(1))
    assert_same_error(
        lambda: vg.topk(v, 2, out=(vg.zeros(3, 2), vg.zeros(3, 2, dtype=vg.int32))),
        lambda: torch.topk(t, 2, out=(torch.zeros(3, 2), torch.zeros(3, 2, dtype=torch.int32))),
    )


@pytest.mark.parametrize("layout", DENSE_LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue(layout, dtype, dim, keepdim):
    v, t = distinct_pair(SHAPE, dtype, layout)
    for k in (1, 2, 3):
        vr, tr = vg.kthvalue(v, k, dim, keepdim), torch.kthvalue(t, k, dim, keepdim)
        assert type(vr) is vg.return_types.kthvalue
        assert_same(tuple(vr), tuple(tr))


def test_kthvalue_edges_out_and_errors():
    v, t = distinct_pair((3, 4), "float32", "contiguous")
    z, tz = vg.tensor(2.0), torch.tensor(2.0)
    assert_same(tuple(z.kthvalue(1)), tuple(tz.kthvalue(1)))
    data = [[3.0, 1.0, 2.0, float("nan")]]
    vn, tn = vg.tensor(data), torch.tensor(data)
    for k in (3, 4):
        assert_same(tuple(vn.kthvalue(k)), tuple(tn.kthvalue(k)))
    vo = (vg.zeros(3), vg.zeros(3, dtype=vg.int64))
    to = (torch.zeros(3), torch.zeros(3, dtype=torch.int64))
    assert_same(tuple(vg.kthvalue(v, 2, out=vo)), tuple(torch.kthvalue(t, 2, out=to)))
    assert_same_error(lambda: v.kthvalue(5), lambda: t.kthvalue(5))
    assert_same_error(lambda: v.kthvalue(0), lambda: t.kthvalue(0))
    e, te = vg.zeros(0, 3), torch.zeros(0, 3)
    assert_same_error(lambda: e.kthvalue(1, 0), lambda: te.kthvalue(1, 0))
    assert_same_error(
        lambda: vg.kthvalue(v, 1, out=(vg.zeros(3, dtype=vg.float64), vg.zeros(3, dtype=vg.int64))),
        lambda: torch.kthvalue(
            t, 1, out=(torch.zeros(3, dtype=torch.float64), torch.zeros(3, dtype=torch.int64))
        ),
    )
    assert_same_error(
        lambda: vg.kthvalue(v, 1, out=(vg.zeros(3), vg.zeros(3, dtype=vg.int32))),
        lambda: torch.kthvalue(t, 1, out=(torch.zeros(3), torch.zeros(3, dtype=torch.int32))),
    )


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_everything(name, layout, dtype):
    for shape in (SHAPE, (3, 4), (5,)):
        v, t = make_pair(shape, dtype, layout)
        assert_same(getattr(vg, name)(v), getattr(torch, name)(t))
        assert_same(getattr(v, name)(), getattr(t, name)())


@pytest.mark.parametrize("layout", DENSE_LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_with_dim(name, layout, dtype, dim, keepdim):
    v, t = distinct_pair(SHAPE, dtype, layout)
    vr, tr = getattr(vg, name)(v, dim, keepdim), getattr(torch, name)(t, dim, keepdim)
    assert type(vr) is getattr(vg.return_types, name)
    assert_same(tuple(vr), tuple(tr))


def test_median_with_nan_empty_zero_dim_out_and_errors():
    nan = float("nan")
    data = [
        [3.0, 1.0, 2.0, 7.0, nan, 0.0],
        [5.0, 4.0, 6.0, 1.0, 8.0, 2.0],
        [nan, 1.0, nan, 2.0, 3.0, 0.0],
    ]
    v, t = vg.tensor(data), torch.tensor(data)
    for name in ("median", "nanmedian"):
        assert_same(getattr(v, name)(), getattr(t, name)())
        assert_same(tuple(getattr(v, name)(1)), tuple(getattr(t, name)(1)))
    e, te = vg.zeros(0, 3), torch.zeros(0, 3)
    assert_same(e.median(), te.median())
    assert_same(tuple(e.median(1)), tuple(te.median(1)))
    assert_same_error(lambda: e.median(0), lambda: te.median(0))
    z, tz = vg.tensor(2.0), torch.tensor(2.0)
    assert_same(tuple(z.median(0)), tuple(tz.median(0)))
    w, tw = distinct_pair((3, 4), "float32", "transposed")
    vo = (vg.zeros(3), vg.zeros(3, dtype=vg.int64))
    to = (torch.zeros(3), torch.zeros(3, dtype=torch.int64))
    vr, tr = vg.median(w, 1, out=vo), torch.median(tw, 1, out=to)
    assert type(vr) is vg.return_types.median_out and vr.values is vo[0]
    assert_same(tuple(vr), tuple(tr))
    assert_same_error(
        lambda: vg.median(w, 1, out=(vg.zeros(3, dtype=vg.float64), vg.zeros(3, dtype=vg.int64))),
        lambda: torch.median(
            tw, 1, out=(torch.zeros(3, dtype=torch.float64), torch.zeros(3, dtype=torch.int64))
        ),
    )
    assert_same_error(
        lambda: vg.median(w, 1, out=(vg.zeros(3), vg.zeros(3, dtype=vg.int32))),
        lambda: torch.median(tw, 1, out=(torch.zeros(3), torch.zeros(3, dtype=torch.int32))),
    )
    vb, tb = make_pair((3,), "bool")
    assert_same_error(lambda: vb.median(), lambda: tb.median())
    assert_same_error(lambda: vg.median(w, (0,)), lambda: torch.median(tw, (0,)))
    assert_same_error(lambda: w.median(2), lambda: tw.median(2))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["int64", "float32"])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_mode(layout, dtype, dim, keepdim):
    # Small integers repeat; torch returns the smallest most frequent value.
    v, t = make_pair((6, 7), dtype, layout, low=0, high=3)
    vr, tr = vg.mode(v, dim, keepdim), torch.mode(t, dim, keepdim)
    assert type(vr) is vg.return_types.mode
    assert_same(vr.values, tr.values)
    assert_same(vr.indices, tr.indices)


def test_mode_out_and_zero_dim():
    v, t = make_pair((3, 5), "int64", low=0, high=3)
    vo = (vg.zeros(3, dtype=vg.int64), vg.zeros(3, dtype=vg.int64))
    to = (torch.zeros(3, dtype=torch.int64), torch.zeros(3, dtype=torch.int64))
    assert_same(tuple(vg.mode(v, out=vo)), tuple(torch.mode(t, out=to)))
    z, tz = vg.tensor(4), torch.tensor(4)
    assert_same(tuple(z.mode()), tuple(tz.mode()))
    vf, tf = make_pair((3, 5), "float32")
    assert_same_error(
        lambda: vg.mode(vf, 1, out=(vg.zeros(3, dtype=vg.float64), vg.zeros(3, dtype=vg.int64))),
        lambda: torch.mode(
            tf, 1, out=(torch.zeros(3, dtype=torch.float64), torch.zeros(3, dtype=torch.int64))
        ),
    )


# --- unique -----------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool", "float16"])
@pytest.mark.parametrize("return_inverse", [False, True])
@pytest.mark.parametrize("return_counts", [False, True])
def test_unique(layout, dtype, return_inverse, return_counts):
    v, t = repeating_pair((4, 5), dtype, layout)
    kwargs = {"return_inverse": return_inverse, "return_counts": return_counts}
    assert_same(vg.unique(v, **kwargs), torch.unique(t, **kwargs))
    assert_same(v.unique(sorted=False, **kwargs), t.unique(sorted=False, **kwargs))
    for dim in (0, 1, -1):
        assert_same(vg.unique(v, dim=dim, **kwargs), torch.unique(t, dim=dim, **kwargs))
        assert_same(
            vg.unique_consecutive(v, dim=dim, **kwargs),
            torch.unique_consecutive(t, dim=dim, **kwargs),
        )
    assert_same(vg.unique_consecutive(v, **kwargs), torch.unique_consecutive(t, **kwargs))


def test_unique_keeps_nans_apart_and_checks_dim():
    data = [1.0, float("nan"), float("nan"), 0.0, 1.0]
    v, t = vg.tensor(data), torch.tensor(data)
    assert_same(vg.unique(v), torch.unique(t))
    v, t = make_pair((3, 4), "int64")
    assert_same_error(lambda: vg.unique(v, dim=2), lambda: torch.unique(t, dim=2))
    assert_same(vg.unique(vg.zeros(0)), torch.unique(torch.zeros(0)))

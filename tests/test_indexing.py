"""Advanced indexing, index assignment, gather/scatter and masks, compared with PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg

DTYPES = ["float32", "int64", "bool", "complex64", "float64", "uint8"]


def index_pair(values, *, transposed=False, dtype=np.int64):
    """The same index tensor in both libraries; ``transposed`` makes it non-contiguous."""
    array = np.asarray(values, dtype=dtype)
    if transposed:
        array = np.ascontiguousarray(array.T)
        return vg.from_numpy(array.copy()).t(), torch.from_numpy(array.copy()).t()
    return vg.from_numpy(array.copy()), torch.from_numpy(array.copy())


def both(index, which):
    """Turn ``("i", values)`` markers in an index into each library's tensors."""
    if isinstance(index, tuple) and index and index[0] == "i":
        _, values, transposed, dtype = index
        return index_pair(values, transposed=transposed, dtype=dtype)[which]
    if isinstance(index, tuple):
        return tuple(both(item, which) for item in index)
    return index


def ti(*values, transposed=False, dtype=np.int64):
    return ("i", values[0] if len(values) == 1 else list(values), transposed, dtype)


# --- reading: x[advanced] ------------------------------------------------------------------

GETITEM_CASES = [
    [0, 2],
    [-1, 0, -3],
    [[0, 1], [2, 0]],
    [],
    [True, False, True],
    (slice(None), [1, 0]),
    ([0, 1], slice(None), [1, 0]),  # separated: the index dims go to the front
    (slice(None), [0, 1], [1, 0]),  # adjacent: they stay in place
    (Ellipsis, [1, 0]),
    (None, [0, 1]),
    ([0, 1], None, [0, 1]),
    (1, slice(None), [0, 1]),
    (slice(None), [0, 1], 0),
    (slice(1, None), [[0], [1]], slice(None, None, 2)),
    True,
    False,
    (True, 0),
    ti([0, 2, 1]),
    ti([[0, 1], [2, 2]], transposed=True),
    ti([1, 0], dtype=np.int32),
    ti([True, False, True], dtype=bool),
    (slice(None), ti([[True, False], [False, True], [True, True], [False, False]], dtype=bool)),
    ti([[True, False, True, True], [False, True, False, True], [True] * 4], dtype=bool),
    (ti([[0], [1]]), slice(None), ti([0, 1])),
    ti(1),  # a 0-dim integer tensor selects, as an int does
    (ti(True, dtype=bool), 0),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("index", GETITEM_CASES, ids=repr)
def test_getitem_matches_torch(layout, index):
    v, t = make_pair((3, 4, 2), "float32", layout)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # x[[[0, 1], [2, 0]]] warns in both libraries
        expected = t[both(index, 1)]
        result = v[both(index, 0)]
    assert_same(result, expected, check_offset=True)
    if not isinstance(index, tuple) or index[0] != "i" or np.ndim(index[1]):
        assert (result._base is None) == (expected._base is None)


@pytest.mark.parametrize("dtype", DTYPES)
def test_getitem_dtypes(dtype):
    v, t = make_pair((4, 3), dtype, "transposed")
    assert_same(v[[3, 0, 0]], t[[3, 0, 0]])
    assert_same(v[:, [2, 1]], t[:, [2, 1]])


def test_getitem_is_a_copy_named_index():
    v, _ = make_pair((3, 4), "float32")
    result = v[[0, 1]]
    assert result._base is None
    assert vg.ops.registry.OPERATORS["aten::index.Tensor"].name == "index"
    result[0, 0] = 100.0
    assert v[0, 0].item() != 100.0


def test_list_of_slices_is_a_tuple_with_warning():
    v, t = make_pair((3, 4), "float32")
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        result = v[[[0, 1], [1, 2]]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(result, t[[[0, 1], [1, 2]]])


def _errors_for(shape, index):
    v, t = make_pair(shape, "float32")
    assert_same_error(lambda: v[both(index, 0)], lambda: t[both(index, 1)])


@pytest.mark.parametrize(
    "shape, index",
    [
        ((3,), [5]),
        ((3,), [0, -4]),
        ((2, 3), (slice(None), [5])),
        ((2, 3, 4), ([0], [1], [9])),
        ((3,), [True, False]),
        ((2, 3, 4), (slice(None), [True, False])),
        ((2, 3, 4), ti([[True, True], [False, True]], dtype=bool)),
        ((2, 3), ([0, 1], [0, 1, 2])),
        ((2, 3), ti([0.0], dtype=np.float32)),
        ((2, 3), ti([0], dtype=np.int16)),
        ((2, 3), ([0], [0], [0])),
        ((2, 3), 1.5),
        ((2, 3), ([0], 1.5)),
    ],
    ids=repr,
)
def test_getitem_errors(shape, index):
    _errors_for(shape, index)


def test_getitem_mask_error_message_in_brief():
    v, t = make_pair((3,), "float32")
    error, _ = assert_same_error(
        lambda: v[vg.tensor([True, False])], lambda: t[torch.tensor([True, False])]
    )
    assert str(error) == (
        "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor "
        "[3] at index 0"
    )


# --- writing: x[index] = value -------------------------------------------------------------

SETITEM_CASES = [
    0,
    (slice(None), 1),
    slice(1, None),
    Ellipsis,
    None,
    True,
    False,
    [0, 2],
    [2, 2, 0],
    (slice(None), [1, 0]),
    ([0, 1], slice(None), [1, 0]),
    ([True, False, True],),
    ti([[0, 1]], transposed=True),
    ti([[True, False, True, True], [False, True, False, True], [True] * 4], dtype=bool),
    ([], 0),
]


def _set_both(layout, dtype, index, make_value):
    v, t = make_pair((3, 4, 2), dtype, layout)
    tv, tt = make_value(t, index)
    t[both(index, 1)] = tt
    v[both(index, 0)] = tv
    assert_same(v, t)
    assert v._version == t._version


def _scalar_value(t, index):
    return 7, 7


def _tensor_value(t, index):
    shape = tuple(t[both(index, 1)].shape)[1:]  # broadcast over the first result dim
    data = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) + 10
    return vg.tensor(data, dtype=getattr(vg, str(t.dtype)[6:])), torch.tensor(data, dtype=t.dtype)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
@pytest.mark.parametrize("index", SETITEM_CASES, ids=repr)
@pytest.mark.parametrize("make_value", [_scalar_value, _tensor_value], ids=["scalar", "tensor"])
def test_setitem_matches_torch(layout, index, make_value):
    _set_both(layout, "float32", index, make_value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_setitem_dtypes(dtype):
    _set_both("transposed", dtype, [1, 0], _scalar_value)
    _set_both("transposed", dtype, (slice(None), 0), _tensor_value)


@pytest.mark.parametrize(
    "dtype, value",
    [("int64", 2.7), ("uint8", -1), ("bool", 2.5), ("float16", 1e10), ("float32", 2 + 0j),
     ("float32", True), ("complex64", 1.5)],
)  # fmt: skip
@pytest.mark.parametrize("index", [0, [0, 1]], ids=["basic", "advanced"])
def test_setitem_scalar_conversion(dtype, value, index):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v, t = make_pair((3, 4), dtype)
        t[index] = value
        v[index] = value
    assert_same(v, t)


def test_setitem_basic_casts_another_dtype():
    v, t = make_pair((3, 4), "float32", "transposed")
    tv, tt = make_pair((4,), "float64", "stepped", seed=1)
    t[1] = tt
    v[1] = tv
    assert_same(v, t)
    assert v._version == t._version == 1


@pytest.mark.parametrize(
    "dtype, index, value",
    [
        ("int64", 0, 2.7j),
        ("int64", [0], float("nan")),
        ("int32", 0, float("inf")),
        ("int8", [1], 300.0),
        ("uint8", 0, 300),
        ("float32", [0, 1], ("tensor", "float64")),
        ("float32", [0, 1], ("tensor", "int64")),
        ("float32", [0, 1], ("tensor", "complex64")),
        ("float32", [0, 1], ("shape", (3,))),
        ("float32", [0, 5], 1.0),
        ("float32", 0, [1.0, 2.0, 3.0, 4.0]),
        ("float32", 0, None),
        ("float32", 0, "a"),
    ],
    ids=repr,
)
def test_setitem_errors(dtype, index, value):
    v, t = make_pair((3, 4), dtype)
    if isinstance(value, tuple) and value[0] == "tensor":
        tv, tt = make_pair((4,), value[1])
    elif isinstance(value, tuple):
        tv, tt = make_pair(value[1], dtype)
    else:
        tv = tt = value

    def set_torch():
        t[index] = tt

    def set_vg():
        v[index] = tv

    assert_same_error(set_vg, set_torch)


def test_setitem_through_views_reaches_base():
    base_v, base_t = make_pair((3, 4), "float32")
    view_v, view_t = base_v[1:], base_t[1:]
    view_t[[0]] = 1.0
    view_v[[0]] = 1.0
    assert_same(base_v, base_t)
    assert base_v._version == base_t._version == view_v._version == view_t._version == 1
    view_t.mT[[1, 2]] = torch.tensor(5.0)
    view_v.mT[[1, 2]] = vg.tensor(5.0)
    assert_same(base_v, base_t)
    assert base_v._version == base_t._version == 2
    view_t[0] = 2.0
    view_v[0] = 2.0
    assert_same(base_v, base_t)
    assert base_v._version == base_t._version == 3


# --- index_put_ ----------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "offset"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64", "bool"])
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_(layout, dtype, accumulate):
    v, t = make_pair((4, 3), dtype, layout)
    iv, it = index_pair([[1, 1, 0], [3, 1, 1]], transposed=True)  # duplicates
    valv, valt = make_pair((3, 3), dtype, "transposed", seed=3)
    t.index_put_((it,), valt, accumulate=accumulate)
    result = v.index_put_((iv,), valv, accumulate=accumulate)
    assert result is v
    if accumulate or dtype == "bool":
        assert_same(v, t)
    else:  # which duplicate wins is unspecified; compare rows written once
        assert_same(v[2], t[2])
    assert v._version == t._version == 1


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_functional_keeps_layout(accumulate):
    v, t = make_pair((4, 3), "float32", "transposed")
    iv, it = index_pair([0, 0, 2])
    expected = torch.index_put(t, (it,), torch.tensor(1.0), accumulate=accumulate)
    result = vg.index_put(v, (iv,), vg.tensor(1.0), accumulate=accumulate)
    assert_same(result, expected)
    assert_same(v.index_put((iv,), vg.tensor(1.0)), t.index_put((it,), torch.tensor(1.0)))
    assert v._version == 0


def test_index_put_mask_and_multiple_indices():
    v, t = make_pair((3, 4), "float32", "stepped")
    t.index_put_((t > 0,), torch.tensor(0.0))
    v.index_put_((v > 0,), vg.tensor(0.0))
    assert_same(v, t)
    (i0v, i0t), (i1v, i1t) = index_pair([0, 2, 2]), index_pair([1, 3, 3])
    t.index_put_((i0t, i1t), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
    v.index_put_((i0v, i1v), vg.tensor([1.0, 2.0, 3.0]), accumulate=True)
    assert_same(v, t)


def test_index_put_on_expanded_warns():
    v, t = make_pair((3, 4), "float32", "expanded")
    with pytest.warns(UserWarning, match="expanded tensors is deprecated"):
        v.index_put_((vg.tensor([0]),), vg.tensor(1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t.index_put_((torch.tensor([0]),), torch.tensor(1.0))
    assert_same(v, t)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, x: x.index_put_((lib.tensor([0]),), lib.tensor([1.0], dtype=lib.float64)),
        lambda lib, x: x.index_put_(([0],), lib.tensor(1.0)),
        lambda lib, x: x.index_put_((None, lib.tensor([0])), lib.tensor(1.0)),
        lambda lib, x: x.index_put_((lib.tensor([0.0]),), lib.tensor(1.0)),
        lambda lib, x: x.index_put_((lib.tensor([0]),) * 3, lib.tensor(1.0)),
        lambda lib, x: x.index_put_((lib.tensor([5]),), lib.tensor(1.0), accumulate=True),
        lambda lib, x: x.index_put_((lib.tensor([0, 1]),), lib.ones(3)),
    ],
)
def test_index_put_errors(make):
    v, t = make_pair((3, 4), "float32")
    assert_same_error(lambda: make(vg, v), lambda: make(torch, t))


# --- index_select, gather, take ------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(layout, dtype, dim):
    v, t = make_pair((3, 4), dtype, layout)
    iv, it = index_pair([2, 0, 0, 1][: t.shape[dim]])
    assert_same(vg.index_select(v, dim, iv), torch.index_select(t, dim, it))
    assert_same(v.index_select(dim, iv[1:2].int()), t.index_select(dim, it[1:2].int()))
    assert_same(v.index_select(dim, iv[0]), t.index_select(dim, it[0]))


def test_index_select_out_and_zero_dim():
    v, t = make_pair((3, 4), "float32", "transposed")
    iv, it = index_pair([1, 2])
    out_v, out_t = vg.empty(2, 4), torch.empty(2, 4)
    assert vg.index_select(v, 0, iv, out=out_v) is out_v
    torch.index_select(t, 0, it, out=out_t)
    assert_same(out_v, out_t)
    assert out_v._version == out_t._version == 1
    s_v, s_t = make_pair((), "float32")
    expected = torch.index_select(s_t, 0, torch.tensor([0]))
    assert_same(vg.index_select(s_v, 0, vg.tensor([0])), expected)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, x: lib.index_select(x, 0, lib.tensor([[0]])),
        lambda lib, x: lib.index_select(x, 0, lib.tensor([0.0])),
        lambda lib, x: lib.index_select(x, 0, lib.tensor([0], dtype=lib.int16)),
        lambda lib, x: lib.index_select(x, 0, lib.tensor([5])),
        lambda lib, x: lib.index_select(x, 0, lib.tensor([-1])),
        lambda lib, x: lib.index_select(x, 2, lib.tensor([0])),
        lambda lib, x: lib.index_select(x, 0, [0]),
    ],
)
def test_index_select_errors(make):
    v, t = make_pair((3, 4), "float32")
    assert_same_error(lambda: make(vg, v), lambda: make(torch, t))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("transposed_index", [False, True])
def test_gather(layout, dtype, dim, transposed_index):
    v, t = make_pair((3, 4), dtype, layout)
    values = [[0, 2, 1], [2, 1, 1]] if dim == 0 else [[3, 0, 3], [1, 2, 0]]
    iv, it = index_pair(values, transposed=transposed_index)
    assert_same(vg.gather(v, dim, iv), torch.gather(t, dim, it))
    assert_same(v.gather(dim, iv.int()), t.gather(dim, it.int()))


def test_gather_out_and_edge_shapes():
    v, t = make_pair((3, 4), "float64", "stepped")
    iv, it = index_pair([[0, 1], [1, 2]])
    out_v, out_t = vg.empty(2, 2, dtype=vg.float64), torch.empty(2, 2, dtype=torch.float64)
    vg.gather(v, 1, iv, out=out_v)
    torch.gather(t, 1, it, out=out_t)
    assert_same(out_v, out_t)
    assert out_v._version == out_t._version
    assert_same(vg.gather(v, 1, vg.zeros(0, 2, dtype=vg.int64)),
                torch.gather(t, 1, torch.zeros(0, 2, dtype=torch.int64)))  # fmt: skip
    s_v, s_t = make_pair((), "float32")
    assert_same(vg.gather(s_v, 0, vg.tensor(0)), torch.gather(s_t, 0, torch.tensor(0)))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, x: lib.gather(x, 1, lib.tensor([[0]], dtype=lib.int16)),
        lambda lib, x: lib.gather(x, 1, lib.tensor([[0.0]])),
        lambda lib, x: lib.gather(x, 1, lib.tensor(0)),
        lambda lib, x: lib.gather(x, 1, lib.zeros(4, 2, dtype=lib.int64)),
        lambda lib, x: lib.gather(x, 0, lib.zeros(3, 5, dtype=lib.int64)),
        lambda lib, x: lib.gather(x, 1, lib.tensor([[5]])),
        lambda lib, x: lib.gather(x, 1, lib.tensor([[-1]])),
        lambda lib, x: lib.gather(x, 2, lib.tensor([[0]])),
    ],
)
def test_gather_errors(make):
    v, t = make_pair((3, 4), "float32")
    assert_same_error(lambda: make(vg, v), lambda: make(torch, t))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_take(layout, dtype):
    v, t = make_pair((3, 4), dtype, layout)
    iv, it = index_pair([[0, 5], [11, -1], [-12, 3]], transposed=True)
    assert_same(vg.take(v, iv), torch.take(t, it))
    assert_same(v.take(iv[0]), t.take(it[0]))
    out_v, out_t = vg.empty(3, 2, dtype=v.dtype), torch.empty(3, 2, dtype=t.dtype)
    assert_same(vg.take(v, iv, out=out_v), torch.take(t, it, out=out_t))


@pytest.mark.parametrize("index", [[12], [-13], ("int32", [1])], ids=repr)
def test_take_errors(index):
    v, t = make_pair((3, 4), "float32")
    if isinstance(index, tuple):
        iv, it = index_pair(index[1], dtype=np.int32)
    else:
        iv, it = index_pair(index)
    assert_same_error(lambda: vg.take(v, iv), lambda: torch.take(t, it))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("accumulate", [False, True])
def test_put(layout, accumulate):
    v, t = make_pair((3, 4), "float32", layout)
    iv, it = index_pair([0, 5, 0, -1])
    sv, st = make_pair((4,), "float32", "stepped", seed=2)
    if not accumulate:
        iv, it = index_pair([0, 5, 7, -1])
    assert_same(vg.put(v, iv, sv, accumulate), torch.put(t, it, st, accumulate))
    assert v.put_(iv, sv, accumulate=accumulate) is v
    t.put_(it, st, accumulate=accumulate)
    assert_same(v, t)
    assert v._version == t._version == 1


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, x: x.put_(lib.tensor([0, 12]), lib.tensor([9.0, 9.0])),
        lambda lib, x: x.put_(lib.tensor([0, 1]), lib.tensor([9.0, 9.0, 9.0])),
        lambda lib, x: x.put_(lib.tensor([0, 1]), lib.tensor([9, 9])),
        lambda lib, x: x.put_(lib.tensor([0, 1], dtype=lib.int32), lib.tensor([9.0, 9.0])),
    ],
)
def test_put_errors(make):
    v, t = make_pair((3, 4), "float32")
    assert_same_error(lambda: make(vg, v), lambda: make(torch, t))


# --- scatter family ------------------------------------------------------------------------


def _scatter_index(dim):
    return [[0, 2, 1], [2, 1, 0]] if dim in (0, -2) else [[3, 0, 1], [1, 2, 0]]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64", "bool"])
@pytest.mark.parametrize("dim", [0, 1, -2])
def test_scatter_src_and_value(layout, dtype, dim):
    v, t = make_pair((3, 4), dtype, layout)
    iv, it = index_pair(_scatter_index(dim), transposed=True)
    sv, st = make_pair((3, 4), dtype, "transposed", seed=5)
    assert_same(vg.scatter(v, dim, iv, sv), torch.scatter(t, dim, it, st))
    assert_same(vg.scatter(v, dim, iv, value=1), torch.scatter(t, dim, it, value=1))
    assert_same(v.scatter(dim, iv, 1), t.scatter(dim, it, 1))
    assert v.scatter_(dim, iv, sv) is v
    t.scatter_(dim, it, st)
    assert_same(v, t)
    assert v._version == t._version == 1


@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_scatter_reduce_duplicates(reduce, dtype):
    v, t = make_pair((3, 4), dtype, "transposed")
    iv, it = index_pair([[0, 0, 1], [0, 0, 1]])
    sv, st = make_pair((2, 3), dtype, "stepped", seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.scatter(t, 0, it, st, reduce=reduce)
        result = vg.scatter(v, 0, iv, sv, reduce=reduce)
    assert_same(result, expected)
    assert_same(v.scatter_(0, iv, 2, reduce=reduce), t.scatter_(0, it, 2, reduce=reduce))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "offset"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_scatter_add_duplicates(layout, dtype):
    v, t = make_pair((3, 4), dtype, layout)
    iv, it = index_pair([[0, 0, 0, 2], [0, 1, 0, 2]], transposed=True)
    iv, it = iv.t().contiguous()[:2], it.t().contiguous()[:2]
    sv, st = make_pair((2, 4), dtype, "transposed", seed=1)
    assert_same(vg.scatter_add(v, 0, iv, sv), torch.scatter_add(t, 0, it, st))
    out_v, out_t = vg.empty(3, 4, dtype=v.dtype), torch.empty(3, 4, dtype=t.dtype)
    assert_same(vg.scatter_add(v, 0, iv, sv, out=out_v), torch.scatter_add(t, 0, it, st, out=out_t))
    assert out_v._version == out_t._version
    v.scatter_add_(0, iv, sv)
    t.scatter_add_(0, it, st)
    assert_same(v, t)
    assert v._version == t._version == 1


def test_scatter_zero_dim_and_empty_index():
    s_v, s_t = make_pair((), "float32")
    assert_same(vg.scatter(s_v, 0, vg.tensor(0), vg.tensor(5.0)),
                torch.scatter(s_t, 0, torch.tensor(0), torch.tensor(5.0)))  # fmt: skip
    v, t = make_pair((3, 4), "float32", "transposed")
    expected = torch.scatter(t, 0, torch.zeros(0, dtype=torch.int64), torch.tensor(5.0))
    assert_same(vg.scatter(v, 0, vg.zeros(0, dtype=vg.int64), vg.tensor(5.0)), expected)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, x: lib.scatter(x, 0, lib.tensor([[0, 1]]), lib.ones(1, 2, dtype=lib.float64)),
        lambda lib, x: lib.scatter(x, 0, lib.tensor([[0, 1]], dtype=lib.int16), lib.ones(1, 2)),
        lambda lib, x: lib.scatter(x, 0, lib.tensor([[0, 5]]), lib.ones(1, 2)),
        lambda lib, x: lib.scatter(x, 0, lib.tensor([[0, -1]]), lib.ones(1, 2)),
        lambda lib, x: lib.scatter(x, 0, lib.tensor([0, 1]), lib.ones(1, 2)),
        lambda lib, x: lib.scatter(x, 0, lib.zeros(2, 2, dtype=lib.int64), lib.ones(1, 2)),
        lambda lib, x: lib.scatter(x, 0, lib.tensor([[0, 1]]), lib.tensor(5.0)),
        lambda lib, x: lib.scatter(x, 0, lib.tensor([[0, 1]]), 2.0, reduce="sum"),
        lambda lib, x: lib.scatter(x, 0, lib.tensor([[0, 1]]), 2j),
        lambda lib, x: lib.scatter_add(x, 0, lib.tensor([[0, 3]]), lib.ones(1, 2)),
        lambda lib, x: lib.scatter_add(x, 0, lib.tensor([[0, 1]]), 2.0),
        lambda lib, x: lib.zeros(1).expand(3).scatter_(0, lib.tensor([0]), lib.tensor([1.0])),
    ],
)
def test_scatter_errors(make):
    v, t = make_pair((3, 4), "float32")
    assert_same_error(lambda: make(vg, v), lambda: make(torch, t))


# --- index_add, index_copy, index_fill -----------------------------------------------------


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
@pytest.mark.parametrize("dim", [0, -1])
def test_index_add(layout, dtype, dim):
    v, t = make_pair((3, 4), dtype, layout)
    iv, it = index_pair([0, 2, 0])  # a duplicate: both rows add up
    source_shape = (3, 4) if dim == 0 else (3, 3)
    sv, st = make_pair(source_shape, dtype, "transposed", seed=4)
    assert_same(vg.index_add(v, dim, iv, sv), torch.index_add(t, dim, it, st))
    assert_same(vg.index_add(v, dim, iv, sv, alpha=2), torch.index_add(t, dim, it, st, alpha=2))
    v.index_add_(dim, iv.int(), sv, alpha=3)
    t.index_add_(dim, it.int(), st, alpha=3)
    assert_same(v, t)
    assert v._version == t._version == 1


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "offset"])
@pytest.mark.parametrize("dtype", ["float32", "bool", "int16"])
def test_index_copy_and_fill(layout, dtype):
    v, t = make_pair((3, 4), dtype, layout)
    iv, it = index_pair([3, 0])
    sv, st = make_pair((3, 2), dtype, "transposed", seed=4)
    assert_same(vg.index_copy(v, 1, iv, sv), torch.index_copy(t, 1, it, st))
    assert_same(vg.index_fill(v, 1, iv, 1), torch.index_fill(t, 1, it, 1))
    assert_same(v.index_fill(-1, iv, vg.tensor(0)), t.index_fill(-1, it, torch.tensor(0)))
    v.index_copy_(1, iv, sv)
    t.index_copy_(1, it, st)
    v.index_fill_(0, iv[1:], 1)
    t.index_fill_(0, it[1:], 1)
    assert_same(v, t)
    assert v._version == t._version == 2


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, x: lib.index_add(x, 0, lib.tensor([0, 0]), lib.ones(2, 4, dtype=lib.float64)),
        lambda lib, x: lib.index_add(x, 0, lib.tensor([0.0, 0.0]), lib.ones(2, 4)),
        lambda lib, x: lib.index_add(x, 0, lib.tensor([[0, 0]]), lib.ones(2, 4)),
        lambda lib, x: lib.index_add(x, 0, lib.tensor([0, 0, 1]), lib.ones(2, 4)),
        lambda lib, x: lib.index_add(x, 0, lib.tensor([0, 0]), lib.ones(2, 3)),
        lambda lib, x: lib.index_add(x, 0, lib.tensor([0, 5]), lib.ones(2, 4)),
        lambda lib, x: x.index_copy_(0, lib.tensor([0, 2]), lib.ones(2, 4, dtype=lib.float64)),
        lambda lib, x: x.index_copy_(0, lib.tensor([0, 2], dtype=lib.int32), lib.ones(2, 4)),
        lambda lib, x: x.index_copy_(0, lib.tensor([0, 2, 1]), lib.ones(2, 4)),
        lambda lib, x: x.index_copy_(0, lib.tensor([0, 2]), lib.ones(2, 3)),
        lambda lib, x: x.index_copy_(0, lib.tensor([0, 5]), lib.ones(2, 4)),
        lambda lib, x: x.index_fill_(0, lib.tensor([0, 5]), 2.0),
        lambda lib, x: x.index_fill_(0, lib.tensor([0.0]), 2.0),
        lambda lib, x: x.index_fill_(0, lib.tensor([0]), lib.tensor([2.0, 3.0])),
    ],
)
def test_index_add_copy_fill_errors(make):
    v, t = make_pair((3, 4), "float32")
    assert_same_error(lambda: make(vg, v), lambda: make(torch, t))


# --- masks ---------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_fill_and_select(layout, dtype):
    v, t = make_pair((3, 4), dtype, layout)
    mv, mt = make_pair((3, 4), "bool", "transposed", seed=9)
    row_v, row_t = make_pair((4,), "bool", "stepped", seed=2)
    assert_same(vg.masked_fill(v, mv, 1), torch.masked_fill(t, mt, 1))
    assert_same(v.masked_fill(row_v, vg.tensor(0)), t.masked_fill(row_t, torch.tensor(0)))
    assert_same(vg.masked_select(v, mv), torch.masked_select(t, mt))
    assert_same(v.masked_select(row_v), t.masked_select(row_t))
    # the functional form broadcasts self against the mask
    assert_same(vg.masked_fill(v[0], mv, 1), torch.masked_fill(t[0], mt, 1))
    if layout != "expanded":
        assert v.masked_fill_(row_v, 0) is v
        t.masked_fill_(row_t, 0)
        assert_same(v, t)
        assert v._version == t._version == 1


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_masked_scatter(layout):
    v, t = make_pair((3, 4), "float32", layout)
    mv, mt = make_pair((3, 4), "bool", "transposed", seed=9)
    sv, st = make_pair((4, 5), "float32", "transposed", seed=1)
    assert_same(vg.masked_scatter(v, mv, sv), torch.masked_scatter(t, mt, st))
    v.masked_scatter_(mv[0], sv)
    t.masked_scatter_(mt[0], st)
    assert_same(v, t)
    assert v._version == t._version == 1


def test_masked_select_out():
    v, t = make_pair((3, 4), "int64", "transposed")
    n = int((t > 0).sum())
    out_v, out_t = vg.empty(n, dtype=vg.int64), torch.empty(n, dtype=torch.int64)
    assert_same(vg.masked_select(v, v > 0, out=out_v), torch.masked_select(t, t > 0, out=out_t))
    assert out_v._version == out_t._version == 1


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, x: lib.masked_select(x, x),
        lambda lib, x: lib.masked_select(x, (x > 0).to(lib.uint8)),
        lambda lib, x: lib.masked_select(x, lib.tensor([True, False])),
        lambda lib, x: lib.ones(4).masked_fill_(x > 0, 0.0),
        lambda lib, x: x.masked_fill_(x, 0.0),
        lambda lib, x: x.masked_fill_((x > 1).to(lib.uint8), 0.0),
        lambda lib, x: x.masked_fill_(x > 1, lib.tensor([3.0])),
        lambda lib, x: x.masked_fill_(x > 1, 3j),
        lambda lib, x: x.to(lib.uint8).masked_fill_(x > 1, 300),
        lambda lib, x: x.masked_scatter_(x > 0, lib.ones(2)),
        lambda lib, x: x.masked_scatter_(x > 0, lib.ones(20, dtype=lib.int64)),
        lambda lib, x: x.masked_scatter_(x, lib.ones(20)),
    ],
)
def test_mask_errors(make):
    v, t = make_pair((3, 4), "float32", low=0, high=5)
    assert_same_error(lambda: make(vg, v), lambda: make(torch, t))


# --- nonzero, argwhere ---------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "bool", "int8", "complex64"])
def test_nonzero_argwhere(layout, dtype):
    v, t = make_pair((3, 4), dtype, layout, low=-1, high=2)
    assert_same(vg.nonzero(v), torch.nonzero(t))
    assert_same(v.argwhere(), t.argwhere())
    assert_same(vg.nonzero(v, as_tuple=True), torch.nonzero(t, as_tuple=True), check_offset=True)


@pytest.mark.parametrize("value", [0.0, 5.0])
def test_nonzero_zero_dim_and_empty(value):
    v, t = vg.tensor(value), torch.tensor(value)
    assert_same(vg.nonzero(v), torch.nonzero(t))
    assert_same(vg.nonzero(v, as_tuple=True), torch.nonzero(t, as_tuple=True))
    assert_same(vg.argwhere(v), torch.argwhere(t))
    assert_same(vg.nonzero(vg.zeros(3, 4)), torch.nonzero(torch.zeros(3, 4)))


def test_nonzero_out():
    v, t = make_pair((3, 4), "float32", "transposed")
    n = int((t != 0).sum())
    out_v, out_t = vg.empty(n, 2, dtype=vg.int64), torch.empty(n, 2, dtype=torch.int64)
    assert vg.nonzero(v, out=out_v) is out_v
    torch.nonzero(t, out=out_t)
    assert_same(out_v, out_t)
    assert_same_error(lambda: vg.nonzero(v, out=vg.empty(0, dtype=vg.int32)),
                      lambda: torch.nonzero(t, out=torch.empty(0, dtype=torch.int32)))  # fmt: skip


@pytest.mark.parametrize(
    "call",
    ["lib.zeros(3).index_fill_(0, lib.tensor([5]), 1j)",
     "lib.zeros(3).index_fill_(0, lib.tensor([0]), lib.ones(2) * 1j)",
     "lib.zeros(3).index_fill_(5, lib.tensor([0]), 1j)",
     "lib.zeros(3).index_fill_(0, lib.tensor([0.0]), 1j)",
     "lib.zeros(3).index_fill(0, lib.tensor([0]), 1j)",
     "lib.zeros(3).index_fill(5, lib.tensor([0.0]), 1)",
     "lib.zeros(3).index_fill_(0, lib.tensor([0]), lib.tensor(1j))"],
)  # fmt: skip
def test_index_fill_checks_in_torchs_order(call):
    """The index's dtype, a 0-dim value, a complex value for a real tensor, then the dim."""
    assert_same_error(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))  # noqa: S307


def test_index_fill_of_a_complex_tensor_takes_a_complex_value():
    filled = vg.zeros(3, dtype=vg.complex64).index_fill_(0, vg.tensor([0]), 1j)
    assert filled.tolist() == torch.zeros(3, dtype=torch.complex64).index_fill_(
        0, torch.tensor([0]), 1j).tolist()  # fmt: skip


def test_a_range_indexes_like_a_list_as_in_torch():
    # x[range(n), labels]: picking one entry per row (the notes' custom loss).
    v, t = make_pair((4, 3), "float32")
    labels = [0, 2, 1, 2]
    assert_same(v[range(4), vg.tensor(labels)], t[range(4), torch.tensor(labels)])
    assert_same(v[range(1, 3)], t[range(1, 3)])
    assert_same(v[:, range(2)], t[:, range(2)])
    assert_same(v[range(0)], t[range(0)])
    v[range(2), 0] = 7.0
    t[range(2), 0] = 7.0
    assert_same(v, t)

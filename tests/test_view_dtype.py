"""``Tensor.view(dtype)``: the same bytes read as another dtype, as PyTorch's untyped
storages allow: values, sizes, strides, offsets, sharing, errors, checkpoints and memory
overlap against torch."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
import torch
from oracle import DTYPES, LAYOUTS, assert_same, assert_same_error, make_pair, torch_dtype

import vizgrad as vg

# Reading arbitrary bytes as bool is undefined behaviour in C++: bools are read only as bools.
VIEWABLE = [d for d in DTYPES if d != "bool"]


def _assert_same_view(v, t):
    assert_same(v, t, check_offset=True)
    assert v.untyped_storage().nbytes() == t.untyped_storage().nbytes()


@pytest.mark.parametrize("source", VIEWABLE)
@pytest.mark.parametrize("target", VIEWABLE)
def test_every_dtype_as_every_other(source, target):
    v, t = make_pair((3, 16), source, "contiguous")
    _assert_same_view(v.view(getattr(vg, target)), t.view(getattr(torch, target)))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("target", ["int8", "int16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("shape", [(2, 4), (4,), (2, 3, 4), (0, 4), (2, 0)])
def test_layouts_give_torchs_metadata_or_errors(layout, target, shape):
    v, t = make_pair(shape, "float32", layout)
    vd, td = getattr(vg, target), getattr(torch, target)
    try:
        expected = t.view(td)
    except RuntimeError:
        assert_same_error(lambda: v.view(vd), lambda: t.view(td))
        return
    _assert_same_view(v.view(vd), expected)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.zeros(()).view(lib.int8),
        lambda lib: lib.zeros(()).view(lib.float64),
        lambda lib: lib.zeros(()).view(lib.int32),  # same size: fine
        lambda lib: lib.zeros(2, 3).view(lib.float64),
        lambda lib: lib.zeros(3, 2).t().view(lib.int8),
        lambda lib: lib.zeros(5)[1:].view(lib.float64),
        lambda lib: lib.zeros(4, 4)[:, ::2].view(lib.float64),
        lambda lib: lib.zeros(10)[1::2][:4].view(lib.float64),
        lambda lib: lib.zeros(2, 0).view(lib.float64),
        lambda lib: lib.zeros(4, 1).expand(4, 4).view(lib.int8),
        lambda lib: lib.zeros(3, 4, dtype=lib.uint8)[:, 1:].view(lib.int16),
        lambda lib: lib.tensor([1 + 2j]).conj().view(lib.float64),
        lambda lib: lib.tensor([1 + 2j]).conj().view(lib.complex64),
        lambda lib: lib.tensor([1 + 2j]).conj().imag.view(lib.int32),
    ],
    ids=[
        "0-dim-down",
        "0-dim-up",
        "0-dim-same",
        "last-size",
        "last-stride-down",
        "offset",
        "last-stride-up",
        "offset-and-stride",
        "stride-not-divisible",
        "expanded",
        "uint8-to-int16",
        "conj",
        "conj-same-dtype",
        "neg",
    ],  # fmt: skip
)
def test_errors_and_edge_cases_as_torch(make):
    try:
        expected = make(torch)
    except RuntimeError:
        assert_same_error(lambda: make(vg), lambda: make(torch))
        return
    _assert_same_view(make(vg), expected)


def test_view_dtype_is_a_non_differentiable_view_sharing_memory_and_version():
    seen = []
    for lib in (torch, vg):
        x = lib.arange(4.0)
        v = x.view(lib.int32)
        assert v._base is None and not v._is_view()  # ``output_differentiability: [False]``
        assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert v.data_ptr() == x.data_ptr() and x[1:].view(lib.int8).data_ptr() == x.data_ptr() + 4
        v.add_(1)  # one more in the lowest bits: each float moves by one ulp
        assert x._version == v._version == 1
        x.view(lib.int16)[1] = 0x4000  # the high half of x[0]: 2.0's, with the ulp kept
        leaf = lib.ones(2, requires_grad=True)
        assert not leaf.view(lib.float32).requires_grad  # even of the same dtype
        seen.append(x.tolist())
    assert seen[0] == seen[1]


def test_writes_are_seen_both_ways_like_torch():
    v, t = make_pair((2, 4), "float32", "contiguous")
    for x, lib in ((v, vg), (t, torch)):
        x.view(lib.int32)[0, 1] = 0x3F800000  # 1.0
        x.view(lib.uint8)[1, :4] = 0
        x.view(lib.complex64)[1, 1] = 2 - 3j
    assert_same(v, t)


def test_resize_through_a_smaller_dtype_grows_the_storage_by_bytes():
    for lib in (torch, vg):
        x = lib.zeros(4)
        v = x.view(lib.int8)
        v.resize_(21)
        assert x.untyped_storage().nbytes() == 21 and x.untyped_storage() is not None
        assert tuple(v.shape) == (21,) and v.stride() == (1,)


def _round_trip(save, load, obj):
    buffer = io.BytesIO()
    save(obj, buffer)
    buffer.seek(0)
    return load(buffer)


def test_a_view_dtype_tensor_is_saved_as_its_own_dtype_and_torch_reads_it():
    x = vg.arange(6.0)
    view = x.view(vg.int32)[1:4]
    loaded = _round_trip(vg.save, torch.load, view)
    assert loaded.dtype == torch.int32 and loaded.storage_offset() == 1
    np.testing.assert_array_equal(loaded.numpy(), view.numpy())
    back = _round_trip(torch.save, vg.load, loaded)
    assert_same(back, loaded, check_offset=True)


def test_a_complex_tensor_and_its_real_view_round_trip():
    z = vg.tensor([1 + 2j, 3 - 4j, 0.5j], dtype=vg.complex128)
    loaded = _round_trip(vg.save, torch.load, {"z": z, "r": vg.view_as_real(z.clone())[1:]})
    assert loaded["z"].dtype == torch.complex128 and loaded["r"].dtype == torch.float64
    np.testing.assert_array_equal(loaded["z"].numpy(), z.numpy())
    np.testing.assert_array_equal(loaded["r"].numpy(), vg.view_as_real(z)[1:].numpy())
    assert loaded["r"].storage_offset() == 2


@pytest.mark.parametrize("pair", ["dtype", "real"])
def test_two_dtypes_over_one_storage_cannot_be_saved(pair):
    def objects(lib):
        x = lib.tensor([1 + 2j, 3j])
        return [x, x.view(lib.float64) if pair == "dtype" else lib.view_as_real(x)]

    assert_same_error(
        lambda: vg.save(objects(vg), io.BytesIO()), lambda: torch.save(objects(torch), io.BytesIO())
    )


def test_a_complex_tensor_saved_by_torch_loads_as_complex():
    t = torch.tensor([[1 + 2j, 3j], [-1j, 4]], dtype=torch.complex64).t()
    v = _round_trip(torch.save, vg.load, t)
    assert_same(v, t, check_offset=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: lib.add(x.view(lib.int16)[:4], 1, out=x.view(lib.int32)[1:3]),
        lambda lib, x: lib.neg(x.view(lib.int32)[:4], out=x.view(lib.int32)[:4]),
        lambda lib, x: lib.bitwise_not(
            x.view(lib.int16)[:8], out=x.view(lib.int32)[:4].view(lib.int16)
        ),
        lambda lib, x: lib.add(x.view(lib.int16)[:4], 1, out=x.view(lib.int32)[4:6]),
        lambda lib, x: lib.view_as_real(x.view(lib.complex64)).copy_(
            x.view(lib.float32).view(4, 2)
        ),
    ],
    ids=["partial", "full", "full-other-dtype", "apart", "real-view-of-itself"],
)
def test_memory_overlap_is_counted_in_bytes_across_dtypes(call):
    results = []
    for lib in (torch, vg):
        x = lib.arange(8, dtype=lib.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (out= resized)
            try:
                call(lib, x)
                results.append(("ok", str(x.tolist())))  # (as text: nan == nan)
            except RuntimeError as error:
                results.append(("error", str(error).split("\n")[0]))
    assert results[0] == results[1]


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
def test_storage_bytes_and_elements(dtype):
    v, t = make_pair((3, 2), dtype, "contiguous")
    for target in ("uint8", "int16"):
        vv, tv = v.view(getattr(vg, target)), t.view(getattr(torch, target))
        assert vv.untyped_storage().nbytes() == tv.untyped_storage().nbytes()
        assert len(vv.untyped_storage()) == len(tv.untyped_storage())
        assert vv.element_size() == tv.element_size() and vv.nbytes == tv.nbytes
    # The storage remembers the dtype it was made for (the stride map draws it so).
    assert v.view(vg.uint8).untyped_storage().dtype is getattr(vg, dtype)
    assert v.untyped_storage().numel == t.numel()


def test_torch_dtype_helper_is_used():  # the oracle's dtype map covers every view target
    assert all(torch_dtype(getattr(vg, d)) == getattr(torch, d) for d in VIEWABLE)

"""Tensor metadata and storage, compared with PyTorch on the same layouts."""

import numpy as np
import pytest
import torch
from oracle import LAYOUTS, assert_same_error, make_pair

import vizgrad as vg


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "float16", "float64", "complex64"])
def test_metadata_matches_torch(layout, dtype):
    v, t = make_pair((3, 4), dtype, layout)
    assert tuple(v.size()) == tuple(t.size()) and tuple(v.shape) == tuple(t.shape)
    assert v.stride() == t.stride()
    assert v.storage_offset() == t.storage_offset()
    assert v.dim() == t.dim() == v.ndim
    assert v.numel() == t.numel() == v.nelement()
    assert v.element_size() == t.element_size() == v.itemsize
    assert v.nbytes == t.nbytes
    assert v.is_contiguous() == t.is_contiguous()
    assert v.is_floating_point() == t.is_floating_point()
    assert v.is_complex() == t.is_complex()
    assert v.is_signed() == t.is_signed()
    assert v.untyped_storage().nbytes() == t.untyped_storage().nbytes()
    assert len(v.untyped_storage()) == len(t.untyped_storage())
    # data_ptr is the storage's address plus the offset, in bytes.
    assert (v.data_ptr() - v.untyped_storage().data_ptr()
            == t.data_ptr() - t.untyped_storage().data_ptr())  # fmt: skip
    np.testing.assert_array_equal(v.numpy(), t.numpy())
    assert v.tolist() == t.tolist()


@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_size_and_stride_of_one_dimension(dim):
    v, t = make_pair((3, 4), "float32", "transposed")
    assert v.size(dim) == t.size(dim)
    assert v.stride(dim) == t.stride(dim)


def test_dimension_out_of_range_is_index_error_with_torch_message():
    v, t = make_pair((3, 4))
    assert_same_error(lambda: v.size(2), lambda: t.size(2))
    assert_same_error(lambda: v.stride(-3), lambda: t.stride(-3))


@pytest.mark.parametrize(
    "shape,stride",
    [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2, 1, 3), (3, 7, 1)), ((0, 3), (5, 9)),
     ((1,), (5,)), ((3, 2), (2, 0)), ((), ())],
)  # fmt: skip
def test_contiguity_rule_ignores_size_one_dims_and_empty_tensors(shape, stride):
    data = np.arange(40, dtype=np.float32)
    v = vg.from_numpy(data).as_strided(shape, stride)
    t = torch.from_numpy(data).as_strided(shape, stride)
    assert v.is_contiguous() == t.is_contiguous()


def test_size_is_a_tuple_like_torch_size():
    v, t = make_pair((2, 3))
    assert v.shape == (2, 3) and isinstance(v.shape, tuple)
    assert v.shape.numel() == t.shape.numel()
    assert repr(v.shape) == repr(t.shape).replace("torch", "vizgrad")
    assert repr(v.shape[1:]) == repr(t.shape[1:]).replace("torch", "vizgrad")


def test_views_share_storage_and_version_counter():
    base = vg.zeros(6)
    view = base.as_strided((2, 2), (3, 1), 1)
    assert view.untyped_storage() is base.untyped_storage()
    assert view._base is base and base._base is None
    assert view._is_view() and not base._is_view()
    view.add_(1)
    assert base._version == view._version == 1
    np.testing.assert_array_equal(base.numpy(), [0, 1, 1, 0, 1, 1])


def test_view_of_view_points_at_the_original_base():
    base = vg.zeros(6)
    view = base.as_strided((3,), (2,))
    inner = view.as_strided((2,), (1,), 2)
    assert inner._base is base


def test_device_dtype_layout_and_autograd_defaults():
    v = vg.zeros(2)
    assert v.device == vg.device("cpu") and repr(v.device) == "device(type='cpu')"
    assert repr(v.dtype) == "vizgrad.float32" and v.dtype is vg.float
    assert repr(v.layout) == "vizgrad.strided"
    assert v.requires_grad is False and v.grad is None and v.grad_fn is None
    assert v.is_leaf and v._version == 0
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        vg.zeros(2, device="cuda")  # as a PyTorch built without CUDA


@pytest.mark.parametrize("dtype", ["int64", "bool", "uint8"])
def test_only_floating_tensors_can_require_grad(dtype):
    v, t = make_pair((2,), dtype)
    assert_same_error(lambda: v.requires_grad_(), lambda: t.requires_grad_())


def test_scalar_conversions():
    v, t = make_pair((), "float64")
    assert v.item() == t.item() and float(v) == float(t) and int(v) == int(t)
    v, t = make_pair((1, 1), "int64")
    assert v.item() == t.item() and v.__index__() == t.__index__()
    v, t = make_pair((3,), "float32")
    assert_same_error(lambda: v.item(), lambda: t.item())
    assert_same_error(lambda: bool(v), lambda: bool(t))
    assert_same_error(lambda: float(v), lambda: float(t))
    assert_same_error(lambda: len(make_pair(())[0]), lambda: len(make_pair(())[1]))


def test_numpy_shares_memory_and_refuses_requires_grad():
    v = vg.zeros(3)
    v.numpy()[1] = 5
    assert v.tolist() == [0, 5, 0]
    assert np.asarray(v).dtype == np.float32
    w = vg.zeros(2, requires_grad=True)
    t = torch.zeros(2, requires_grad=True)
    assert_same_error(lambda: w.numpy(), lambda: t.numpy())


def test_default_dtype_round_trip_and_rejects_integers():
    assert vg.get_default_dtype() is vg.float32
    vg.set_default_dtype(vg.float64)
    try:
        assert vg.tensor([1.5]).dtype is vg.float64
        assert vg.tensor([1j]).dtype is vg.complex128
    finally:
        vg.set_default_dtype(vg.float32)
    assert_same_error(lambda: vg.set_default_dtype(vg.int64),
                      lambda: torch.set_default_dtype(torch.int64), match_message=False)  # fmt: skip


def test_finfo_and_iinfo_match_torch():
    for name in ["float16", "float32", "float64"]:
        assert vg.finfo(getattr(vg, name)).eps == torch.finfo(getattr(torch, name)).eps
        assert vg.finfo(getattr(vg, name)).max == torch.finfo(getattr(torch, name)).max
    for name in ["uint8", "int8", "int16", "int32", "int64"]:
        assert vg.iinfo(getattr(vg, name)).max == torch.iinfo(getattr(torch, name)).max
        assert vg.iinfo(getattr(vg, name)).min == torch.iinfo(getattr(torch, name)).min


def test_complex_tensors_can_require_grad():
    v, t = vg.zeros(2, dtype=vg.complex64), torch.zeros(2, dtype=torch.complex64)
    assert v.requires_grad_().requires_grad == t.requires_grad_().requires_grad

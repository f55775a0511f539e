"""resize_ growing a storage: the storage swaps its buffer; every tensor over it follows.

No search of the heap: the storage counts its buffers (``generation``) and each tensor
rebuilds its cached NumPy view when the count moved on. Compared with PyTorch.
"""

import gc
import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same

import vizgrad as vg


def _sharing(lib):
    """A tensor and many others over its storage, made before it grows."""
    base = lib.zeros(2, 3)
    return base, [base[0], base[1], base.t(), base.view(6), base.detach(), base[:, 1], base.data]


@pytest.fixture
def no_heap_search(monkeypatch):
    """The garbage collector off, and asking it for referrers an error."""

    def refuse(*objects):
        raise AssertionError("resize_ searched the heap")

    monkeypatch.setattr(gc, "get_referrers", refuse)
    was_enabled = gc.isenabled()
    gc.disable()
    yield
    if was_enabled:
        gc.enable()


def test_growing_a_storage_shared_by_many_tensors_does_not_search_the_heap(no_heap_search):
    base_v, views_v = _sharing(vg)
    base_t, views_t = _sharing(torch)
    storage = base_v.untyped_storage()
    generation = storage.generation
    base_v.resize_(4, 5)
    base_t.resize_(4, 5)
    assert storage.generation == generation + 1
    assert base_v.untyped_storage() is storage
    base_v.copy_(vg.arange(20.0).view(4, 5))
    base_t.copy_(torch.arange(20.0).view(4, 5))
    for v, t in zip(views_v, views_t, strict=True):
        assert_same(v, t)  # made before the resize, they read the values written after it


def test_views_agree_on_data_ptr_after_the_storage_grew():
    base_v, views_v = _sharing(vg)
    base_t, views_t = _sharing(torch)
    base_v.resize_(10)
    base_t.resize_(10)
    for v, t in zip(views_v, views_t, strict=True):
        assert v.untyped_storage().data_ptr() == base_v.untyped_storage().data_ptr()
        assert (v.data_ptr() - base_v.data_ptr()) == (t.data_ptr() - base_t.data_ptr())


def test_a_view_writing_before_and_after_the_growth_is_seen_by_the_grown_tensor():
    base_v, base_t = vg.zeros(3), torch.zeros(3)
    row_v, row_t = base_v[1:], base_t[1:]
    row_v.fill_(7)
    row_t.fill_(7)
    base_v.resize_(8)
    base_t.resize_(8)
    row_v.add_(1)  # through the view's rebuilt array, into the new buffer
    row_t.add_(1)
    assert base_v[:3].tolist() == base_t[:3].tolist()
    assert_same(row_v, row_t)


def test_a_resize_that_fits_keeps_the_buffer():
    v = vg.zeros(6)
    storage = v.untyped_storage()
    generation, pointer = storage.generation, storage.data_ptr()
    v.resize_(2, 3)
    assert storage.generation == generation and storage.data_ptr() == pointer


def test_a_storage_swaps_only_a_flat_buffer_of_its_dtype():
    storage = vg.zeros(4).untyped_storage()
    with pytest.raises(ValueError):
        storage.set_data(vg.zeros(2, 2).numpy())
    with pytest.raises(ValueError):
        storage.set_data(vg.zeros(8, dtype=vg.float64).numpy())


# --- memory borrowed from NumPy is not resizable ---------------------------------------------
# ``from_numpy`` (and ``as_tensor`` of an array) share the array's memory: PyTorch cannot grow
# it, and vizgrad must not swap it for a bigger buffer the array would no longer see.

BORROWING = {
    "from_numpy": lambda lib: lib.from_numpy(np.zeros(4)),
    "as_tensor": lambda lib: lib.as_tensor(np.zeros(4)),
    "empty array": lambda lib: lib.from_numpy(np.zeros(0)),
    "a view of it": lambda lib: lib.from_numpy(np.zeros(4))[1:3],
}

CALLS = {
    "resize_ beyond": lambda lib, t: t.resize_(10),
    "resize_ within": lambda lib, t: t.resize_(1).resize_(t.untyped_storage().nbytes() // 8),
    "resize_as_": lambda lib, t: t.resize_as_(lib.ones(3, 3)),
    "cat out=": lambda lib, t: lib.cat([lib.ones(3, dtype=lib.float64)] * 2, out=t),
    "add out=": lambda lib, t: lib.add(lib.ones(7, dtype=lib.float64), 1, out=t),
    "zero out=": lambda lib, t: lib.add(lib.ones(0, dtype=lib.float64), 1, out=t),
}


@pytest.mark.parametrize("make", BORROWING)
@pytest.mark.parametrize("call", CALLS)
def test_borrowed_memory_grows_nowhere_as_in_torch(make, call):
    t_v, t_t = BORROWING[make](vg), BORROWING[make](torch)
    assert t_v.untyped_storage().resizable() is t_t.untyped_storage().resizable() is False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated resize of a non-empty out=
        try:
            CALLS[call](torch, t_t)
        except RuntimeError as torch_error:
            # torch has set the new sizes before its storage refused them: its tensor
            # now reaches past its memory, so it is neither called nor read again.
            with pytest.raises(RuntimeError) as vg_error:
                CALLS[call](vg, t_v)
            assert str(vg_error.value) == str(torch_error).split("\n")[0]
            assert t_v.untyped_storage().nbytes() == 8 * (0 if make == "empty array" else 4)
            return
        assert_same(CALLS[call](vg, t_v), t_t)


def test_borrowed_memory_keeps_sharing_with_its_array_after_a_refused_growth():
    array = np.zeros(4)
    t = vg.from_numpy(array)
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        t.resize_(10)
    t.fill_(2.0)
    assert array.tolist() == [2.0] * 4


def test_a_copy_of_borrowed_memory_owns_its_storage_and_grows():
    for lib in (vg, torch):
        copy = lib.from_numpy(np.zeros(2)).clone()
        assert copy.untyped_storage().resizable()
        assert copy.resize_(10).shape == (10,)
    assert vg.zeros(2).untyped_storage().resizable()

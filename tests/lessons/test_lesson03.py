"""Lesson 3's checkers: right answers in any reasonable form pass, typical mistakes are explained.

The right answers the tests feed in come from torch (the checkers compute theirs with
vizgrad), so a test also catches a checker that drifted from PyTorch's behaviour.
"""

import pytest
import torch
from lesson_feedback import assert_wrong as _wrong
from lesson_feedback import same_storage as _same_storage
from vizgrad.lessons import check
from vizgrad.lessons import lesson03 as lesson

import vizgrad as vg

# --- 03.permute_stride ----------------------------------------------------------------


def _torch_permute_stride():
    return torch.zeros(*lesson.PERMUTED_SHAPE).permute(*lesson.PERMUTATION).stride()


@pytest.mark.parametrize("form", [tuple, list, torch.Size, vg.Size])
def test_permute_stride_accepts_any_sequence(form):
    assert check("03.permute_stride", form(_torch_permute_stride())).correct


def test_permute_stride_explains_that_strides_move_with_sizes():
    unpermuted = torch.zeros(*lesson.PERMUTED_SHAPE).stride()
    _wrong("03.permute_stride", unpermuted, "x's own stride", "reorders the strides")


def test_permute_stride_names_the_source_dimension():
    first, second, third = _torch_permute_stride()
    message = _wrong("03.permute_stride", (first, third, second), "Element 1", "dim 0 of x",
                     "Element 2", "dim 1 of x")  # fmt: skip
    assert "Element 0" not in message


# --- 03.expand_stride -----------------------------------------------------------------


def _torch_expand_stride():
    return torch.zeros(3, 1).expand(2, 3, 4).stride()


@pytest.mark.parametrize("form", [tuple, list, torch.Size])
def test_expand_stride_right(form):
    assert check("03.expand_stride", form(_torch_expand_stride())).correct


def test_expand_stride_explains_the_new_dimension():
    new, kept, stretched = _torch_expand_stride()
    message = _wrong("03.expand_stride", (1, kept, stretched), "Element 0", "adds in front",
                     "stride 0")  # fmt: skip
    assert "Element 1" not in message and "Element 2" not in message


def test_expand_stride_explains_the_stretched_dimension():
    new, kept, stretched = _torch_expand_stride()
    _wrong("03.expand_stride", (new, kept, 1), "Element 2", "size-1 dim 1", "same element")


def test_expand_stride_contiguous_guess_is_explained_per_element():
    contiguous = torch.zeros(2, 3, 4).stride()
    _wrong("03.expand_stride", contiguous, "Element 0", "Element 1", "keeps c's stride",
           "Element 2")  # fmt: skip


# --- 03.view_or_copy ------------------------------------------------------------------

TORCH_CALLS = {
    "a": lambda x: x.reshape(6),
    "b": lambda x: x.t().reshape(6),
    "c": lambda x: x.t().contiguous(),
    "d": lambda x: x.contiguous(),
    "e": lambda x: x.t().t().view(6),
    "f": lambda x: x[:, :2].reshape(4),
}


def _torch_sharing():
    x = torch.arange(6).view(2, 3)
    return {name for name, build in TORCH_CALLS.items() if _same_storage(build(x), x)}


def test_view_or_copy_calls_match_torch():
    assert set(TORCH_CALLS) == set(lesson.CALLS)


@pytest.mark.parametrize("form", [set, list, tuple])
def test_view_or_copy_right(form):
    assert check("03.view_or_copy", form(sorted(_torch_sharing()))).correct


def test_view_or_copy_explains_why_reshape_copies():
    message = _wrong("03.view_or_copy", _torch_sharing() | {"b", "f"},
                     "b = x.t().reshape(6) is a copy", "x.t().view(6) fails",
                     "f = x[:, :2].reshape(4) is a copy", "stride (3, 1)")  # fmt: skip
    assert "a = " not in message


def test_view_or_copy_explains_that_contiguous_may_return_itself():
    _wrong("03.view_or_copy", _torch_sharing() - {"d"}, "d = x.contiguous() shares",
           "returns x itself")  # fmt: skip


def test_view_or_copy_explains_that_view_can_flatten():
    _wrong("03.view_or_copy", _torch_sharing() - {"e"}, "(3, 1)", "view can flatten")


# --- 03.rolling_windows ---------------------------------------------------------------


def _torch_windows_geometry():
    s = torch.arange(float(lesson.SERIES_LENGTH))
    windows = s.unfold(0, lesson.WINDOW, 1)
    return tuple(windows.shape), windows.stride(), windows.storage_offset()


def test_rolling_windows_right_with_as_strided_and_with_unfold():
    size, stride, offset = _torch_windows_geometry()
    s = vg.arange(float(lesson.SERIES_LENGTH))
    assert check("03.rolling_windows", vg.as_strided(s, size, stride, offset)).correct
    assert check("03.rolling_windows", s.unfold(0, lesson.WINDOW, 1)).correct


def test_rolling_windows_explains_the_count():
    size, stride, offset = _torch_windows_geometry()
    s = vg.arange(float(lesson.SERIES_LENGTH))
    short = (size[0] - 1, size[1])
    _wrong("03.rolling_windows", vg.as_strided(s, short, stride), "8 - 3 + 1 = 6 windows")


def test_rolling_windows_explains_non_overlapping_rows():
    size, stride, offset = _torch_windows_geometry()
    s = vg.arange(float(lesson.SERIES_LENGTH))
    disjoint = vg.as_strided(s, (2, 3), (3, 1))  # reshape-like rows: the wrong size first
    _wrong("03.rolling_windows", disjoint, "The size is (2, 3)")
    still = vg.as_strided(s, size, (0, stride[1]))
    message = _wrong("03.rolling_windows", still, "Element 0", "one element later")
    assert "Element 1" not in message


def test_rolling_windows_refuses_a_copy():
    size, stride, offset = _torch_windows_geometry()
    s = vg.arange(float(lesson.SERIES_LENGTH))
    _wrong("03.rolling_windows", vg.as_strided(s, size, stride).clone(), "it copies")
    _wrong("03.rolling_windows", [[0, 1, 2]], "got a list")


# --- 03.free_memory -------------------------------------------------------------------


def test_free_memory_clone_frees_the_storage_in_torch_too():
    """What the exercise teaches, in torch: a clone has a storage of just its elements."""
    head = torch.zeros(lesson.BIG)[: lesson.KEPT]
    assert head.untyped_storage().nbytes() == lesson.BIG * 4
    assert head.clone().untyped_storage().nbytes() == lesson.KEPT * 4
    assert head.contiguous().untyped_storage().nbytes() == lesson.BIG * 4


def test_free_memory_right():
    head = vg.zeros(lesson.BIG)[: lesson.KEPT]
    assert check("03.free_memory", head.clone()).correct
    assert check("03.free_memory", head.detach().clone()).correct


@pytest.mark.parametrize("make", [lambda h: h, lambda h: h.contiguous(), lambda h: h.reshape(10),
                                  lambda h: h.view(-1)])  # fmt: skip
def test_free_memory_explains_that_views_keep_the_storage(make):
    head = vg.zeros(lesson.BIG)[: lesson.KEPT]
    _wrong(
        "03.free_memory", make(head), "1,000,000 elements", "stays alive", "clone() always copies"
    )


def test_free_memory_wants_head_values():
    big = vg.zeros(lesson.BIG)
    _wrong("03.free_memory", big[:5].clone(), "size (10,)")
    _wrong("03.free_memory", vg.ones(lesson.KEPT), "not head's values")
    _wrong("03.free_memory", [0.0] * lesson.KEPT, "got a list")

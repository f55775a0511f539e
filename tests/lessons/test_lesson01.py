"""Lesson 1's checkers: right answers in any reasonable form pass, typical mistakes are explained.

The right answers the tests feed in come from torch (the checkers compute theirs with
vizgrad), so a test also catches a checker that drifted from PyTorch's behaviour.
"""

import pytest
import torch
from lesson_feedback import assert_one_at_a_time as _one_at_a_time
from lesson_feedback import assert_wrong as _wrong
from lesson_feedback import same_storage as _same_storage
from vizgrad.lessons import check
from vizgrad.lessons import lesson01 as lesson

import vizgrad as vg

# --- 01.literal_dtypes ----------------------------------------------------------------


def _torch_literal_dtypes():
    return tuple(torch.tensor(values).dtype for _, values in lesson.LITERALS)


def test_literal_dtypes_accepts_torch_vizgrad_and_string_dtypes():
    torch_dtypes = _torch_literal_dtypes()
    assert check("01.literal_dtypes", torch_dtypes).correct
    assert check("01.literal_dtypes", [getattr(vg, str(d)[6:]) for d in torch_dtypes]).correct
    assert check("01.literal_dtypes", [str(d) for d in torch_dtypes]).correct
    assert check("01.literal_dtypes", ("long", "float", "bool")).correct  # PyTorch's aliases


def test_literal_dtypes_names_the_wrong_element_and_the_rule():
    ints, floats, bools = _torch_literal_dtypes()
    feedback = _one_at_a_time("01.literal_dtypes", (ints, torch.float64, bools),
                              "vg.tensor([1.0, 2.0]) → float64", "default dtype",
                              "float32", right=1)  # fmt: skip
    assert str(feedback.parts[0]) == "vg.tensor([1, 2, 3]) → int64"
    assert "bool" not in repr(feedback)
    _one_at_a_time("01.literal_dtypes", (torch.int32, floats, bools), "int32", "int64", "Long")


def test_literal_dtypes_explains_one_mistake_and_counts_the_others():
    feedback = _one_at_a_time("01.literal_dtypes", ("int32", "float64", "uint8"), "int32",
                              "Long", more=2)  # fmt: skip
    assert "float32" not in repr(feedback) and "default dtype" not in repr(feedback)
    assert "2 more parts to look at" in repr(feedback)


def test_literal_dtypes_explains_python_types_are_not_dtypes():
    _one_at_a_time("01.literal_dtypes", (int, float, bool), "Python type", "not a dtype",
                   more=2)  # fmt: skip
    _one_at_a_time("01.literal_dtypes", (vg.int64, "float", "boolean"), "'boolean'",
                   "not a dtype", right=2)  # fmt: skip


@pytest.mark.parametrize("answer", ["int64", (vg.int64, vg.float32), 42])
def test_literal_dtypes_wants_three(answer):
    _wrong("01.literal_dtypes", answer, "3 values")


# --- 01.offset_and_storage ------------------------------------------------------------


def _torch_offset_and_storage():
    a = torch.arange(10)
    b = a[3:7]
    return b.storage_offset(), b.untyped_storage().nbytes() // b.element_size()


@pytest.mark.parametrize("form", [tuple, list])
def test_offset_and_storage_right(form):
    assert check("01.offset_and_storage", form(_torch_offset_and_storage())).correct


def test_offset_and_storage_explains_numel_is_not_the_storage():
    offset, _ = _torch_offset_and_storage()
    feedback = _one_at_a_time("01.offset_and_storage", (offset, 4), "b.numel()",
                              "a's whole storage", right=1)  # fmt: skip
    assert str(feedback.parts[0]) == f"offset {offset}"


def test_offset_and_storage_explains_the_offset():
    _, storage = _torch_offset_and_storage()
    _one_at_a_time("01.offset_and_storage", (0, storage), "offset 0", "not the first", "a[3]")
    _one_at_a_time("01.offset_and_storage", (4, storage), "offset 4", "a[3]")


def test_offset_and_storage_holds_back_the_storage_while_the_offset_is_wrong():
    feedback = _one_at_a_time("01.offset_and_storage", (4, 4), "offset 4", "a[3]", more=1)
    assert "numel" not in repr(feedback) and "storage of 4" not in repr(feedback)


# --- 01.write_through_view ------------------------------------------------------------


def _torch_after_write():
    a = torch.arange(6)
    b = a[2:]
    b.mul_(10)
    return a.tolist()


@pytest.mark.parametrize("form", [list, tuple, vg.tensor])
def test_write_through_view_right(form):
    assert check("01.write_through_view", form(_torch_after_write())).correct


def test_write_through_view_explains_that_a_changes():
    _wrong("01.write_through_view", list(range(6)), "not a copy", "a's storage")


def test_write_through_view_explains_the_offset():
    _wrong("01.write_through_view", [10 * v for v in range(6)], "offset 2", "a[0] and a[1]")


def test_write_through_view_explains_that_b_is_not_a():
    _wrong("01.write_through_view", _torch_after_write()[2:], "b's values")


def test_write_through_view_names_the_wrong_element():
    answer = _torch_after_write()
    answer[4] += 1
    _one_at_a_time("01.write_through_view", answer, "a[4] = 41", "b[2]", "multiplied it by 10",
                   right=4)  # fmt: skip


def test_write_through_view_explains_the_first_wrong_element_only():
    answer = _torch_after_write()
    answer[1], answer[3] = 10, 3  # a[1] is before b; a[3] forgot the multiplication
    feedback = _one_at_a_time("01.write_through_view", answer, "a[1] = 10", "before b's first",
                              right=1, more=1)  # fmt: skip
    assert "a[3]" not in repr(feedback) and "a[3]" not in feedback._repr_html_()


# --- 01.who_shares --------------------------------------------------------------------

# The same six tensors, made with torch.
TORCH_CANDIDATES = {
    "p": lambda a: a[2:],
    "q": lambda a: a.clone(),
    "r": lambda a: a.view(2, 3),
    "s": lambda a: a + 0,
    "u": lambda a: a[::2],
    "v": lambda a: a.to(torch.float64),
}


def _torch_sharing():
    a = torch.arange(6.0)
    return {name for name, build in TORCH_CANDIDATES.items() if _same_storage(build(a), a)}


def test_who_shares_candidates_match_torch():
    assert set(TORCH_CANDIDATES) == set(lesson.CANDIDATES)


@pytest.mark.parametrize("form", [set, list, tuple, frozenset])
def test_who_shares_right(form):
    assert check("01.who_shares", form(sorted(_torch_sharing()))).correct


def test_who_shares_explains_missing_and_extra_names():
    answer = _torch_sharing() - {"r"} | {"q"}
    feedback = _one_at_a_time("01.who_shares", answer, "q = a.clone() shares a's storage",
                              "no, it has a storage of its own", "copies", right=1, more=1)  # fmt: skip
    assert str(feedback.parts[0]) == "p = a[2:] shares a's storage"
    assert "r = " not in repr(feedback) and "view(2, 3)" not in feedback._repr_html_()
    _one_at_a_time("01.who_shares", _torch_sharing() - {"r"}, "r = a.view(2, 3) has a storage "
                   "of its own", "no, it shares a's storage", "size and stride", right=2)  # fmt: skip


def test_who_shares_explains_why_conversion_copies():
    _one_at_a_time("01.who_shares", _torch_sharing() | {"v"}, "8 bytes", "new storage", right=5)


def test_who_shares_refuses_unknown_names():
    _wrong("01.who_shares", {"p", "z"}, "z: not one of the names")


def test_unanswered():
    assert check("01.who_shares", ...).status == "not answered yet"

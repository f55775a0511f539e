"""Lesson 4's checkers: right answers in any reasonable form pass, typical mistakes are explained.

The expected values the tests use come from torch (the checkers compute theirs with
vizgrad), so a test also catches a checker that drifted from PyTorch's behaviour.
"""

from pathlib import Path

import nbformat
import pytest
import torch
from lesson_feedback import assert_one_at_a_time as _one_at_a_time
from lesson_feedback import assert_wrong as _wrong
from vizgrad.lessons import check
from vizgrad.lessons import lesson04 as lesson

import vizgrad as vg

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "04-broadcasting-and-promotion.ipynb"


# --- 04.broadcast_shape --------------------------------------------------------------


def _torch_broadcast():
    return tuple(torch.broadcast_shapes(*lesson.BROADCAST_SHAPES))


@pytest.mark.parametrize("form", [tuple, list, torch.Size, vg.Size])
def test_broadcast_shape_accepts_any_sequence(form):
    assert check("04.broadcast_shape", form(_torch_broadcast())).correct


def test_broadcast_shape_names_the_dim_that_did_not_stretch():
    feedback = _one_at_a_time("04.broadcast_shape", (5, 1, 4), "dim 1 (1)", "1 and 3",
                              "stretches", right=1)  # fmt: skip
    assert "dim 2" not in repr(feedback) and feedback.hidden == 1


def test_broadcast_shape_explains_right_alignment():
    _wrong("04.broadcast_shape", (3, 4), "3 dims", "from the right")
    # Aligned from the left by mistake: (5, 1, 4) with (3, 1, _).
    _one_at_a_time("04.broadcast_shape", (5, 3, 1), "dim 2 (1)", "4 and 1", right=2)
    feedback = _one_at_a_time("04.broadcast_shape", (1, 1, 1), "dim 0 (1)", "missing", more=2)
    assert "4 and 1" not in feedback._repr_html_()


@pytest.mark.parametrize("answer", ["5, 3, 4", 534, (5.0, 3.0, 4.0), (True, 3, 4)])
def test_broadcast_shape_asks_for_ints(answer):
    _wrong("04.broadcast_shape", answer, "tuple of ints")


# --- 04.expanded_stride ---------------------------------------------------------------


def _torch_expanded_stride():
    return torch.arange(3.0).view(3, 1).expand(5, 3, 4).stride()


def test_expanded_stride_right():
    assert check("04.expanded_stride", _torch_expanded_stride()).correct
    assert check("04.expanded_stride", list(_torch_expanded_stride())).correct


def test_expanded_stride_explains_new_and_stretched_dims():
    feedback = _one_at_a_time("04.expanded_stride", (1, 1, 1), "element 0 (1)", "new", more=1)
    assert "stretched" not in repr(feedback)
    _one_at_a_time("04.expanded_stride", (0, 1, 1), "element 2 (1)", "stretched", right=2)
    _wrong("04.expanded_stride", (0, 1), "3 entries")


def test_expanded_stride_explains_a_kept_stride():
    _one_at_a_time("04.expanded_stride", (0, 0, 0), "element 1 (0)", "keeps b's stride 1",
                   right=1)  # fmt: skip


# --- 04.promotion ---------------------------------------------------------------------


def _torch_promotion():
    i = torch.tensor([1, 2, 3], dtype=torch.int32)
    h = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float16)
    return (
        (i + 2.5).dtype,
        (i + torch.tensor(7, dtype=torch.int64)).dtype,
        (i + torch.tensor([7], dtype=torch.int64)).dtype,
        (h + torch.tensor(1.0, dtype=torch.float64)).dtype,
        (i + torch.tensor(1.0, dtype=torch.float64)).dtype,
    )


def test_promotion_accepts_torch_vizgrad_and_string_dtypes():
    expected = _torch_promotion()
    assert check("04.promotion", expected).correct
    assert check("04.promotion", [getattr(vg, str(d)[6:]) for d in expected]).correct
    assert check("04.promotion", tuple(str(d) for d in expected)).correct
    aliases = {"float32": "float", "int64": "long", "float16": "half", "float64": "double"}
    assert check("04.promotion", [aliases.get(str(d)[6:], str(d)[6:]) for d in expected]).correct


def test_promotion_explains_the_python_float_default():
    answer = list(_torch_promotion())
    answer[0] = torch.float64  # "2.5 is a double"
    feedback = _one_at_a_time("04.promotion", answer, "1. i + 2.5 → float64",
                              "it is float32, not float64", "default dtype")  # fmt: skip
    assert feedback.hidden == 4 and "the rest is right" in repr(feedback)


def test_promotion_explains_that_zero_dim_tensors_do_not_widen():
    answer = list(_torch_promotion())
    answer[1] = torch.int64
    answer[3] = torch.float64
    feedback = _one_at_a_time("04.promotion", answer, "2. i + vg.tensor(7, dtype=vg.int64) → "
                              "int64", "zero-dim tensor", "not of a higher category", right=1,
                              more=1)  # fmt: skip
    assert "4. " not in repr(feedback) and "float16" not in feedback._repr_html_()
    answer[1] = torch.int32
    _one_at_a_time("04.promotion", answer, "4. ", "zero-dim tensor", "not of a higher category",
                   right=3)  # fmt: skip


def test_promotion_explains_a_raised_category_and_dimensioned_promotion():
    answer = list(_torch_promotion())
    answer[4] = torch.float32
    answer[2] = torch.int32
    feedback = _one_at_a_time("04.promotion", answer, "3. ", "promote_types", right=2, more=1)
    assert "5. " not in repr(feedback)
    answer[2] = torch.int64
    _one_at_a_time("04.promotion", answer, "5. ", "higher category", "float64", right=4)


def test_promotion_asks_for_dtypes():
    _one_at_a_time("04.promotion", (float, 1, 2, 3, 4), "is not a dtype", more=4)
    _wrong("04.promotion", (torch.float32,), "give 5 dtypes", "has 1")
    _wrong("04.promotion", "float32", "tuple of 5 dtypes")


# --- 04.inplace_cast ------------------------------------------------------------------


def _torch_raising():
    raising = set()
    for letter, (call, _, _) in lesson.INPLACE_CALLS.items():
        names = {
            "vg": torch,
            "i": torch.tensor([1, 2, 3], dtype=torch.int32),
            "h": torch.tensor([1.0, 2.0, 3.0], dtype=torch.float16),
            "f": torch.tensor([1.0, 2.0, 3.0]),
        }
        try:
            eval(call, names)
        except RuntimeError:
            raising.add(letter)
    return raising


@pytest.mark.parametrize("form", [set, sorted, "".join, lambda s: ", ".join(sorted(s))])
def test_inplace_cast_accepts_the_letters_in_any_form(form):
    assert check("04.inplace_cast", form(_torch_raising())).correct


def test_inplace_cast_explains_a_missed_division():
    answer = _torch_raising() - {"f"}
    _one_at_a_time("04.inplace_cast", answer, "f. i.div_(2) runs", "no, it raises", "i / 2",
                   "float32", "can_cast(float32, int32)", right=5)  # fmt: skip


def test_inplace_cast_explains_the_first_wrong_call_only():
    feedback = _one_at_a_time("04.inplace_cast", {"a", "b"}, "a. i.add_(1) raises",
                              "no, it runs", more=3)  # fmt: skip
    assert "div" not in repr(feedback) and "out=" not in feedback._repr_html_()


def test_inplace_cast_explains_that_lower_precision_is_allowed():
    answer = _torch_raising() | {"e"}
    _one_at_a_time("04.inplace_cast", answer, "e. h.add_(vg.tensor(1.0, dtype=vg.float64)) "
                   "raises", "no, it runs", "can_cast(float16, float16) is True", right=4)  # fmt: skip


def test_inplace_cast_explains_out():
    _one_at_a_time("04.inplace_cast", _torch_raising() - {"g"}, "g. vg.add(f, 1, out=i) runs",
                   "out=", "Float", "Int", right=6)  # fmt: skip


def test_inplace_cast_rejects_unknown_letters():
    _wrong("04.inplace_cast", "bdz", "z: not one of the calls")


# --- 04.output_strides ----------------------------------------------------------------


def test_output_strides_right():
    p = torch.zeros(2, 3, 4).permute(2, 0, 1)
    assert check("04.output_strides", (p * 2).stride()).correct


def test_output_strides_explains_the_contiguous_guess():
    contiguous = torch.zeros(4, 2, 3).stride()
    message = _wrong("04.output_strides", contiguous, "row-major", "follows its input", "1, 2, 0")
    expected = (torch.zeros(2, 3, 4).permute(2, 0, 1) * 2).stride()
    assert "12" not in message.replace("(1, 12, 4)", "")  # the rule, not the answer
    assert str(expected) not in message.replace("strides (1, 12, 4)", "")


def test_output_strides_explains_other_mistakes():
    _one_at_a_time("04.output_strides", (1, 8, 4), "element 1 (8)", "1, 2, 0",
                   "skips 3 × 4 = 12 elements", right=1)  # fmt: skip
    feedback = _one_at_a_time("04.output_strides", (4, 2, 3), "element 0 (4)", "innermost",
                              "stride 1", more=2)  # fmt: skip
    assert "12" not in repr(feedback).replace("(1, 12, 4)", "")
    _one_at_a_time("04.output_strides", (1, 12, 1), "element 2 (1)", "dim 0 (size 4)",
                   "skips 4 elements", right=2)  # fmt: skip
    _wrong("04.output_strides", (1, 12), "3 dims")


# --- the notebook shows what the checkers check -------------------------------------


def test_the_notebook_lists_the_checked_expressions_and_operands():
    text = "\n".join(cell.source for cell in nbformat.read(NOTEBOOK, as_version=4).cells)
    for left, right in lesson.PROMOTION_CASES:
        assert f"`{left} + {right}`" in text
    for letter, (call, _, _) in lesson.INPLACE_CALLS.items():
        assert f"| {letter} | `{call}` |" in text
    for line in lesson.OPERANDS_SOURCE.splitlines():
        assert line in text
    assert "vg.zeros(5, 1, 4) + vg.zeros(3, 1)" in text
    assert "vg.zeros(2, 3, 4).permute(2, 0, 1)" in text

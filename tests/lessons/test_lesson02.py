"""Lesson 2's checkers: right answers in any reasonable form pass, typical mistakes are explained.

The right answers the tests feed in come from torch (the checkers compute theirs with
vizgrad), so a test also catches a checker that drifted from PyTorch's behaviour.
"""

import numpy as np
import pytest
import torch
from lesson_feedback import assert_one_at_a_time as _one_at_a_time
from lesson_feedback import assert_wrong as _wrong
from vizgrad.lessons import check
from vizgrad.lessons import lesson02 as lesson

import vizgrad as vg

# --- 02.contiguous_stride -------------------------------------------------------------


def _torch_contiguous_stride():
    return torch.zeros(*lesson.SHAPE).stride()


@pytest.mark.parametrize("form", [tuple, list, torch.Size, vg.Size])
def test_contiguous_stride_accepts_any_sequence(form):
    assert check("02.contiguous_stride", form(_torch_contiguous_stride())).correct


def test_contiguous_stride_explains_the_first_wrong_element_and_counts_the_rest():
    reversed_stride = tuple(reversed(_torch_contiguous_stride()))  # the classic mistake
    feedback = _one_at_a_time("02.contiguous_stride", reversed_stride, "Element 0 (1)",
                              "too small", "3 × 4", more=1)  # fmt: skip
    assert "Element 2" not in repr(feedback) and "one element at a time" not in repr(feedback)
    assert "1 more part to look at" in feedback._repr_html_()
    # dim 1 was right all along; with dim 0 fixed, dim 2 is explained
    fixed = (_torch_contiguous_stride()[0], *reversed_stride[1:])
    _one_at_a_time("02.contiguous_stride", fixed, "Element 2 (12)", "too large",
                   "one element at a time", right=2)  # fmt: skip


def test_contiguous_stride_counts_dimensions():
    _wrong("02.contiguous_stride", _torch_contiguous_stride()[1:], "one entry per dimension")


@pytest.mark.parametrize("answer", ["12, 4, 1", (12.0, 4, 1), (True, 4, 1), None])
def test_contiguous_stride_asks_for_ints(answer):
    _wrong("02.contiguous_stride", answer, "tuple of ints")


# --- 02.formula -----------------------------------------------------------------------


def _right(index, stride, offset):
    return offset + sum(i * s for i, s in zip(index, stride, strict=True))


def test_formula_cases_agree_with_torch():
    """The checker's cases, rebuilt in torch: the formula gives where torch reads."""
    base = torch.arange(24)
    for description, view, index in lesson._formula_cases():
        torch_view = torch.as_strided(base, tuple(view.shape), view.stride(),
                                      view.storage_offset())  # fmt: skip
        assert torch_view[index].item() == _right(index, view.stride(), view.storage_offset()), (
            description
        )


def test_formula_right_function_passes():
    assert check("02.formula", _right).correct
    # a dot product is the same formula
    assert check("02.formula", lambda i, s, o: o + int(np.dot(i, s))).correct


def test_formula_explains_a_forgotten_offset():
    def no_offset(index, stride, offset):
        return sum(i * s for i, s in zip(index, stride, strict=True))

    _wrong("02.formula", no_offset, "add the storage offset", "short")


def test_formula_explains_row_major_assumption():
    def assumes_contiguous(index, stride, offset):
        return offset + index[0] * stride[0] + index[1] if len(index) == 2 else offset

    _wrong("02.formula", assumes_contiguous, "x.t()", "its own dimension's stride")


def test_formula_reports_an_exception():
    def two_dims_only(index, stride, offset):
        return offset + index[0] * stride[0] + index[1] * stride[1]

    _wrong("02.formula", two_dims_only, "raised IndexError", "a column")


def test_formula_needs_a_function():
    _wrong("02.formula", 6, "Expected a function")


# --- 02.column_major ------------------------------------------------------------------


def _torch_column_major():
    return torch.empty(3, 4).t().contiguous().t().stride()  # a 3×4 matrix, column by column


@pytest.mark.parametrize("form", [tuple, list, torch.Size])
def test_column_major_right(form):
    assert check("02.column_major", form(_torch_column_major())).correct


def test_column_major_explains_row_major():
    _wrong("02.column_major", torch.empty(3, 4).stride(), "row-major", "first index")


def test_column_major_names_the_wrong_element():
    down, across = _torch_column_major()
    _one_at_a_time("02.column_major", (down, 4), "Element 1 (4)", "whole column, 3 elements",
                   right=1)  # fmt: skip


# --- 02.anti_diagonal -----------------------------------------------------------------


def _torch_anti_diagonal_geometry():
    """The anti-diagonal of torch.arange(12).view(3, 4), found by searching torch's own views."""
    x = torch.arange(12).view(3, 4)
    wanted = [x[0, 3].item(), x[1, 2].item(), x[2, 1].item()]
    for stride in range(1, 12):
        for offset in range(12):
            try:
                view = torch.as_strided(x, (3,), (stride,), offset)
            except RuntimeError:
                continue
            if view.tolist() == wanted:
                return (3,), (stride,), offset
    raise AssertionError("no as_strided view of x is its anti-diagonal")


def test_anti_diagonal_right():
    size, stride, offset = _torch_anti_diagonal_geometry()
    x = vg.arange(12).view(3, 4)
    assert check("02.anti_diagonal", vg.as_strided(x, size, stride, offset)).correct
    assert check("02.anti_diagonal", x.as_strided(list(size), list(stride), offset)).correct


def test_anti_diagonal_explains_the_stride():
    size, _, offset = _torch_anti_diagonal_geometry()
    x = vg.arange(12).view(3, 4)
    feedback = _one_at_a_time("02.anti_diagonal", vg.as_strided(x, size, (4,), offset),
                              "The stride (4,)", "one row down (+4)", "one column left (−1)",
                              "reads [3, 7, 11]")  # fmt: skip
    assert "offset" not in repr(feedback) and feedback.hidden == 1 and feedback.more == 0


def test_anti_diagonal_explains_the_offset():
    size, stride, _ = _torch_anti_diagonal_geometry()
    x = vg.arange(12).view(3, 4)
    _one_at_a_time("02.anti_diagonal", vg.as_strided(x, size, stride, 0), "The offset 0",
                   "x[0, 3]", right=1)  # fmt: skip
    feedback = _one_at_a_time("02.anti_diagonal", vg.as_strided(x, size, (1,), 0),
                              "The stride (1,)", more=1)  # fmt: skip
    assert "x[0, 3] lives" not in repr(feedback)


def test_anti_diagonal_refuses_a_copy_and_a_wrong_size():
    size, stride, offset = _torch_anti_diagonal_geometry()
    x = vg.arange(12).view(3, 4)
    _wrong("02.anti_diagonal", vg.as_strided(x, size, stride, offset).clone(), "a copy")
    _wrong("02.anti_diagonal", vg.as_strided(x, (3, 1), (3, 1), offset), "The size is (3, 1)")
    _wrong("02.anti_diagonal", torch.as_strided(torch.arange(12), size, stride, offset),
           "a torch.Tensor")  # fmt: skip
    _wrong("02.anti_diagonal", [3, 6, 9], "got a list")


# --- 02.squeeze_unsqueeze -------------------------------------------------------------


def _torch_squeeze_answer():
    x = torch.zeros(3, 4).t()
    u = x.unsqueeze(1)
    s = torch.zeros(2, 1, 3, 1).squeeze()
    return u.shape, u.stride(), s.shape, s.stride()


def test_squeeze_example_is_the_notebooks_code_and_matches_torch():
    t = lesson.squeeze_example()
    assert tuple(t["x"].shape) == (4, 3) and t["x"].stride() == torch.zeros(3, 4).t().stride()
    assert (tuple(t["u"].shape), t["u"].stride(), tuple(t["s"].shape), t["s"].stride()) == tuple(
        tuple(value) for value in _torch_squeeze_answer()
    )


@pytest.mark.parametrize("form", [tuple, list])
def test_squeeze_unsqueeze_right(form):
    assert check("02.squeeze_unsqueeze", form(_torch_squeeze_answer())).correct
    assert check("02.squeeze_unsqueeze", [list(v) for v in _torch_squeeze_answer()]).correct


def test_squeeze_unsqueeze_explains_the_new_dims_stride_first():
    u_shape, u_stride, s_shape, s_stride = _torch_squeeze_answer()
    x = torch.zeros(3, 4).t()
    guess = (u_stride[0], x.stride(1), u_stride[2])  # copies the stride of the dim behind it
    feedback = _one_at_a_time("02.squeeze_unsqueeze",
                              (u_shape, guess, (2, 1, 3), tuple(reversed(s_stride))),
                              "u.stride() = (1, 4, 4)", "element 1", "never stepped along",
                              "x.size(1) × x.stride(1) = 3 × 4 = 12", right=1, more=2)  # fmt: skip
    assert "squeeze()" not in repr(feedback) and "z.stride()" not in feedback._repr_html_()


def test_squeeze_unsqueeze_explains_kept_strides_and_squeeze():
    u_shape, u_stride, s_shape, s_stride = _torch_squeeze_answer()
    _one_at_a_time("02.squeeze_unsqueeze", (u_shape, (3, *u_stride[1:]), s_shape, s_stride),
                   "element 0", "keeps x's stride 1", right=1)  # fmt: skip
    _one_at_a_time("02.squeeze_unsqueeze", ((4, 3), u_stride, s_shape, s_stride),
                   "u.shape = (4, 3)", "new dim of size 1")  # fmt: skip
    _one_at_a_time("02.squeeze_unsqueeze", (u_shape, u_stride, (2, 1, 3), s_stride),
                   "s.shape = (2, 1, 3)", "every dim of size 1", "dims 1 and 3", right=2)  # fmt: skip
    _one_at_a_time("02.squeeze_unsqueeze", (u_shape, u_stride, s_shape, (3, 3)),
                   "s.stride() = (3, 3)", "together with its stride", right=3)  # fmt: skip


@pytest.mark.parametrize("answer", [(1, 12, 4), "((4, 1, 3))", None])
def test_squeeze_unsqueeze_wants_four_tuples(answer):
    _wrong("02.squeeze_unsqueeze", answer, "four tuples")


def test_squeeze_unsqueeze_wants_ints():
    u_shape, u_stride, s_shape, s_stride = _torch_squeeze_answer()
    _wrong("02.squeeze_unsqueeze", (u_shape, "1, 12, 4", s_shape, s_stride), "tuple of ints")

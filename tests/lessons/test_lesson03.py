"""Lesson 3's checkers: right answers in any reasonable form pass, typical mistakes are explained.

The right answers the tests feed in come from torch (the checkers compute theirs with
vizgrad), so a test also catches a checker that drifted from PyTorch's behaviour. A
wrong answer is explained one mistake at a time: the tests check that a message names
the first mistake and says nothing of the other parts.
"""

import contextlib
import io
from pathlib import Path

import nbformat
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


def test_permute_stride_names_the_first_wrong_dimension_only():
    first, second, third = _torch_permute_stride()
    message = _wrong("03.permute_stride", (first, third, second), "Element 1", "dim 0 of x")
    assert "Element 0" not in message and "Element 2" not in message
    assert "dim 1 of x" not in message  # the explanation of element 2 is not given away


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


def test_expand_stride_contiguous_guess_is_explained_one_element_at_a_time():
    contiguous = torch.zeros(2, 3, 4).stride()
    message = _wrong("03.expand_stride", contiguous, "Element 0", "adds in front")
    assert "Element 1" not in message and "Element 2" not in message
    new, kept, stretched = _torch_expand_stride()
    message = _wrong("03.expand_stride", (new, *contiguous[1:]), "Element 1", "keeps c's stride")
    assert "Element 2" not in message


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


def test_view_or_copy_explains_why_reshape_copies_one_mistake_at_a_time():
    message = _wrong("03.view_or_copy", _torch_sharing() | {"b", "f"},
                     "b = x.t().reshape(6) shares", "no, it is a copy", "x.t().view(6) fails")  # fmt: skip
    assert "a = " not in message and "f = " not in message
    _wrong("03.view_or_copy", _torch_sharing() | {"f"}, "f = x[:, :2].reshape(4) shares", "no, it is a copy",
           "stride (3, 1)")  # fmt: skip


def test_view_or_copy_names_the_first_mistake_of_either_kind():
    # d is missing (it shares) and c is extra (a copy): c comes first and is the only one named.
    message = _wrong("03.view_or_copy", (_torch_sharing() - {"d"}) | {"c"},
                     "c = x.t().contiguous() shares", "no, it is a copy")  # fmt: skip
    assert "d = " not in message


def test_view_or_copy_explains_that_contiguous_may_return_itself():
    _wrong("03.view_or_copy", _torch_sharing() - {"d"}, "d = x.contiguous() is a copy", "no, it shares",
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
    message = _wrong("03.rolling_windows", vg.as_strided(s, short, stride), "(dim 0)",
                     "8 - 3 + 1 = 6 windows")  # fmt: skip
    assert "dim 1" not in message


@pytest.mark.parametrize("length_change", [-1, 1])
def test_rolling_windows_explains_a_wrong_window_length_as_a_length(length_change):
    """A wrong window length (dim 1) is explained as the length, not as the window count."""
    size, stride, offset = _torch_windows_geometry()
    s = vg.arange(float(lesson.SERIES_LENGTH))
    count = lesson.SERIES_LENGTH - (size[1] + length_change) + 1  # windows that fit, in bounds
    wrong_length = (count, size[1] + length_change)
    message = _wrong("03.rolling_windows", vg.as_strided(s, wrong_length, stride), "dim 1",
                     f"holds {size[1] + length_change} elements", "a window is 3 neighbours")  # fmt: skip
    assert "windows." not in message and "8 - 3 + 1" not in message


def test_rolling_windows_explains_a_wrong_length_before_a_wrong_count():
    size, stride, offset = _torch_windows_geometry()
    s = vg.arange(float(lesson.SERIES_LENGTH))
    message = _wrong("03.rolling_windows", vg.as_strided(s, (2, 2), stride), "holds 2 elements")
    assert "8 - 3 + 1" not in message


def test_rolling_windows_explains_a_missing_dimension():
    s = vg.arange(float(lesson.SERIES_LENGTH))
    _wrong(
        "03.rolling_windows", vg.as_strided(s, (6,), (1,)), "1 dimension(s)", "one row per window"
    )


def test_rolling_windows_explains_non_overlapping_rows():
    size, stride, offset = _torch_windows_geometry()
    s = vg.arange(float(lesson.SERIES_LENGTH))
    disjoint = vg.as_strided(s, (2, 3), (3, 1))  # reshape-like rows: the wrong size first
    _wrong("03.rolling_windows", disjoint, "The size is (2, 3)")
    still = vg.as_strided(s, size, (0, stride[1]))
    message = _wrong("03.rolling_windows", still, "Element 0", "one element later")
    assert "Element 1" not in message
    both = vg.as_strided(s, size, (0, 0))
    message = _wrong("03.rolling_windows", both, "Element 0", "one element later")
    assert "Element 1" not in message and "neighbours" not in message


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


def _proof_cell() -> str:
    """The notebook cell that deletes big and head and reports whether the storage is freed."""
    path = Path(__file__).resolve().parents[2] / "notebooks" / "03-views.ipynb"
    cells = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    (cell,) = [source for source in cells if "big's storage freed" in source]
    return cell


def _run_proof(make_small) -> str:
    """Run the proof cell as the notebook would, with ``small = make_small(head)``."""
    namespace = {"vg": vg}
    exec("import gc\nimport weakref", namespace)
    namespace["big"] = vg.zeros(lesson.BIG)
    namespace["head"] = namespace["big"][: lesson.KEPT]
    namespace["small"] = make_small(namespace["head"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(_proof_cell(), namespace)
    return out.getvalue()


def test_freed_proof_claims_nothing_before_the_exercise_is_answered():
    said = _run_proof(lambda head: ...)
    assert "freed: True" not in said and "Answer 03.free_memory above first" in said


def test_freed_proof_says_false_for_a_view():
    assert "freed: False" in _run_proof(lambda head: head.contiguous())


def test_freed_proof_says_true_for_a_clone():
    assert "freed: True" in _run_proof(lambda head: head.clone())


# --- 03.index_view_or_copy ------------------------------------------------------------

TORCH_INDEXINGS = {
    "a": lambda x: x[1],
    "b": lambda x: x[:, [0, 2]],
    "c": lambda x: x[1:, ::2],
    "d": lambda x: x[x > 5],
    "e": lambda x: x[None, ..., 0],
    "f": lambda x: x[1:2],
    "g": lambda x: x[[1]],
    "h": lambda x: x.index_select(0, torch.tensor([0, 1])),
}


def _torch_index_kinds() -> dict:
    x = torch.arange(12.0).view(3, 4)
    return {name: "view" if _same_storage(build(x), x) else "copy"
            for name, build in TORCH_INDEXINGS.items()}  # fmt: skip


def test_index_view_or_copy_expressions_match_torch():
    assert set(TORCH_INDEXINGS) == set(lesson.INDEXINGS)
    assert lesson.index_results() == _torch_index_kinds()


def test_index_view_or_copy_right_in_any_case():
    assert check("03.index_view_or_copy", _torch_index_kinds()).correct
    shouted = {name: kind.upper() for name, kind in _torch_index_kinds().items()}
    assert check("03.index_view_or_copy", shouted).correct


def test_index_view_or_copy_explains_a_list_index_first_only():
    answer = dict.fromkeys(lesson.INDEXINGS, "view")  # every copy is wrong: b, d, g, h
    message = _wrong("03.index_view_or_copy", answer, "b = x[:, [0, 2]]: 'view'", "it is a copy",
                     "advanced indexing")  # fmt: skip
    for other in ("d = ", "g = ", "h = "):
        assert other not in message
    feedback = check("03.index_view_or_copy", answer)
    assert [part.right for part in feedback.parts] == [True, False]  # a, then the mistake b
    assert feedback.more == 3  # d, g and h are counted, not explained


def test_index_view_or_copy_explains_a_length_one_slice():
    answer = _torch_index_kinds() | {"f": "copy"}
    _wrong("03.index_view_or_copy", answer, "f = x[1:2]: 'copy'", "it is a view", "still a slice")


def test_index_view_or_copy_explains_a_one_element_list_and_index_select():
    _wrong("03.index_view_or_copy", _torch_index_kinds() | {"g": "view"},
           "g = x[[1]]: 'view'", "it is a copy", "even of a single index")  # fmt: skip
    _wrong("03.index_view_or_copy", _torch_index_kinds() | {"h": "view"},
           "index_select always", "x[:2]")  # fmt: skip


def test_index_view_or_copy_explains_bad_forms():
    _wrong("03.index_view_or_copy", ["a", "c"], "Answer a dict", "got a list")
    _wrong("03.index_view_or_copy", {"a": "view"}, "no answer for b, c")
    _wrong("03.index_view_or_copy", _torch_index_kinds() | {"z": "view"}, "z: not one of")
    _wrong(
        "03.index_view_or_copy",
        _torch_index_kinds() | {"c": True},
        "c = x[1:, ::2]: True",
        'answer "view" or "copy"',
    )


# --- 03.index_geometry ------------------------------------------------------------------


def _torch_geometry():
    v = torch.arange(24.0).view(*lesson.GEOMETRY_SHAPE)[1, :, 1::2]
    return v.stride(), v.storage_offset()


@pytest.mark.parametrize("form", [tuple, list])
def test_index_geometry_right(form):
    stride, offset = _torch_geometry()
    assert check("03.index_geometry", form((form(stride), offset))).correct
    assert check("03.index_geometry", (torch.Size(stride), offset)).correct


def test_index_geometry_explains_the_step_only():
    (kept, stepped), offset = _torch_geometry()
    message = _wrong("03.index_geometry", ((kept, stepped // 2), offset), "Element 1",
                     "step 2")  # fmt: skip
    assert "Element 0" not in message and "offset" not in message


def test_index_geometry_explains_the_dropped_dimension():
    stride, offset = _torch_geometry()
    x_stride = torch.zeros(lesson.GEOMETRY_SHAPE).stride()
    _wrong("03.index_geometry", ((x_stride[0], *stride), offset), "removes x's dim 0")


def test_index_geometry_explains_each_part_of_the_offset():
    stride, offset = _torch_geometry()
    x_stride = torch.zeros(lesson.GEOMETRY_SHAPE).stride()
    _wrong("03.index_geometry", (stride, x_stride[0]), "too small", "1::2")
    _wrong("03.index_geometry", (stride, x_stride[2]), "int index 1", "1 * x.stride(0)")
    message = _wrong("03.index_geometry", (stride, offset + 1), "too large", "x[1, 0, 1]")
    assert str(offset) not in message.replace(f"The offset {offset + 1}", "")


def test_index_geometry_explains_bad_forms():
    _wrong("03.index_geometry", (4, 2, 13), "a pair (stride, offset)")
    _wrong("03.index_geometry", "(4, 2), 13", "a pair (stride, offset)")
    stride, offset = _torch_geometry()
    _wrong("03.index_geometry", (stride, "13"), "one int")
    _wrong("03.index_geometry", ("4, 2", offset), "tuple of ints")


# --- 03.gather ------------------------------------------------------------------------


def _torch_gather():
    return torch.tensor(lesson.GATHER_SOURCE).gather(1, torch.tensor(lesson.GATHER_INDEX))


def test_gather_right_in_any_form():
    expected = _torch_gather()
    assert check("03.gather", expected.tolist()).correct
    assert check("03.gather", expected).correct
    assert check("03.gather", vg.tensor(expected.tolist())).correct
    assert check("03.gather", expected.numpy()).correct
    assert check("03.gather", [tuple(row) for row in expected.tolist()]).correct


def test_gather_explains_the_shape():
    y = torch.tensor(lesson.GATHER_SOURCE)
    _wrong("03.gather", y.tolist(), "shape (3, 3)", "idx's shape (3, 2)")
    _wrong("03.gather", [[12, 10], [21]], "rows of different lengths")


def test_gather_explains_gathering_along_the_wrong_dim():
    along_rows = torch.tensor(lesson.GATHER_SOURCE).gather(0, torch.tensor(lesson.GATHER_INDEX))
    _wrong("03.gather", along_rows, "y.gather(0, idx)", "idx picks columns")


def test_gather_explains_using_one_row_of_the_index_for_all():
    y, idx = torch.tensor(lesson.GATHER_SOURCE), torch.tensor(lesson.GATHER_INDEX)
    _wrong("03.gather", y.index_select(1, idx[0]), "row 0", "row by row")


def test_gather_names_the_first_wrong_element_only_without_its_value():
    answer = _torch_gather().tolist()
    right = answer[1][1]
    answer[1][1] += 1
    answer[2][0] += 1
    message = _wrong("03.gather", answer, "Element [1][1]", "y[1][idx[1][1]]")
    assert "[2][0]" not in message and str(right) not in message


def test_gather_explains_bad_types():
    _wrong("03.gather", "[[12, 10]]", "list of lists", "got a str")
    _wrong("03.gather", [12, 10, 21, 21, 30, 32], "list of lists", "got a list")

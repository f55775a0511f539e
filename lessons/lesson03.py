"""Lesson 3, *Views*: the checkers of its exercises.

A view operator computes a new size, stride and offset over the same storage and
copies nothing: ``permute`` reorders strides, ``expand`` sets stride 0, ``unfold``
makes windows that overlap. ``view`` fails when no strides can express the new shape;
``reshape`` then copies. And a small view keeps its whole storage alive. Expected
answers come from running vizgrad, never from hand-written values.
"""

from __future__ import annotations

import vizgrad as vg

from .exercise import Wrong, exercise
from .lesson01 import as_name_set, shares_storage
from .lesson02 import check_per_dim, describe_type

__all__: list[str] = []


# --- 03.permute_stride --------------------------------------------------------------

PERMUTED_SHAPE = (2, 3, 4)
PERMUTATION = (2, 0, 1)


@exercise(
    "03.permute_stride",
    "x = vg.zeros(2, 3, 4). What is x.permute(2, 0, 1).stride()? Answer a tuple.",
    hints=(
        "First write down x.stride(): x is contiguous.",
        "permute copies nothing: it reorders the sizes and the strides the same way.",
        "Dimension d of the result is dimension dims[d] of x, stride included.",
    ),
    solution="""
answer = (1, 12, 4)
check("03.permute_stride", answer)
""",
    explanation="x.stride() is (12, 4, 1); permute(2, 0, 1) takes the strides of dims 2, 0 "
    "and 1 in that order: (1, 12, 4). Same storage, the elements are just walked in another order.",
)
def _permute_stride(answer):
    x = vg.zeros(*PERMUTED_SHAPE)
    expected = x.permute(*PERMUTATION).stride()

    def why(d):
        source = PERMUTATION[d]
        return (f"dim {d} of the result is dim {source} of x, whose stride is "
                f"x.stride({source}) = {x.stride(source)}")  # fmt: skip

    if isinstance(answer, (tuple, list)) and tuple(answer) == x.stride():
        raise Wrong(f"{x.stride()} is x's own stride: permute reorders the strides along with "
                    "the sizes.")  # fmt: skip
    check_per_dim(answer, expected, "the stride", why)


# --- 03.expand_stride ---------------------------------------------------------------


def _expanded():
    c = vg.zeros(3, 1)
    return c, c.expand(2, 3, 4)


@exercise(
    "03.expand_stride",
    "c = vg.zeros(3, 1). What is c.expand(2, 3, 4).stride()? Answer a tuple.",
    hints=(
        "c.stride() is (1, 1). expand adds a new leading dimension and stretches the size-1 one.",
        "expand copies nothing: every repeated element must be the same storage element.",
        "A stride of 0 means: stepping along this dimension stays in place.",
    ),
    solution="""
answer = (0, 1, 0)
check("03.expand_stride", answer)
""",
    explanation="(0, 1, 0): the new leading dim and the stretched size-1 dim get stride 0, "
    "so every step along them reads the same element again; dim 1 keeps c's stride.",
)
def _expand_stride(answer):
    c, expanded = _expanded()
    new_dims = expanded.dim() - c.dim()

    def why(d):
        if d < new_dims:
            return ("a dimension that expand adds in front repeats the whole tensor without "
                    "copying: stride 0")  # fmt: skip
        source = d - new_dims
        if c.size(source) == 1 and expanded.size(d) != 1:
            return (f"dim {d} stretches c's size-1 dim {source} to {expanded.size(d)}: each "
                    "step must reread the same element, stride 0")  # fmt: skip
        return f"dim {d} keeps its size, so it keeps c's stride {c.stride(source)}"

    check_per_dim(answer, expanded.stride(), "the stride", why)


# --- 03.view_or_copy: which results still read x's storage? -------------------------

# name -> (code, how to build it from x = vg.arange(6).view(2, 3), why)
CALLS = {
    "a": ("x.reshape(6)", lambda x: x.reshape(6),
          "x is contiguous, so reshape returns a view, like x.view(6)"),
    "b": ("x.t().reshape(6)", lambda x: x.t().reshape(6),
          "no strides read x.t()'s elements in order as one row (x.t().view(6) fails), so "
          "reshape copies: it is contiguous() followed by view"),
    "c": ("x.t().contiguous()", lambda x: x.t().contiguous(),
          "x.t() is not contiguous, so contiguous() copies its elements into a new row-major "
          "storage"),
    "d": ("x.contiguous()", lambda x: x.contiguous(),
          "x already is contiguous: contiguous() returns x itself"),
    "e": ("x.t().t().view(6)", lambda x: x.t().t().view(6),
          "transposing twice gives back x's strides (3, 1), which view can flatten"),
    "f": ("x[:, :2].reshape(4)", lambda x: x[:, :2].reshape(4),
          "x[:, :2] skips x[0, 2] between its rows (stride (3, 1) for size (2, 2)): no single "
          "stride reads it as 4 elements in a row, so reshape copies"),
}  # fmt: skip


def _sharing_calls() -> set:
    x = vg.arange(6).view(2, 3)
    return {name for name, (_, build, _) in CALLS.items() if shares_storage(build(x), x)}


@exercise(
    "03.view_or_copy",
    "x = vg.arange(6).view(2, 3). Which results share x's storage? a = x.reshape(6), "
    "b = x.t().reshape(6), c = x.t().contiguous(), d = x.contiguous(), "
    "e = x.t().t().view(6), f = x[:, :2].reshape(4). Answer a set of names.",
    hints=(
        "view never copies (it fails instead); contiguous() and reshape copy only when they must.",
        "reshape copies when the tensor's strides cannot describe the new shape. Does "
        "x.t().view(6) work?",
        "Write down the stride of x[:, :2]. Can one stride walk its 4 elements?",
    ),
    solution="""
answer = {"a", "d", "e"}
check("03.view_or_copy", answer)
""",
    explanation="reshape is view when it can and copy when it must; contiguous() copies "
    "only a non-contiguous tensor. Only x.t() and x[:, :2] leave gaps or reorder memory.",
)
def _view_or_copy(answer):
    names = as_name_set(answer, CALLS, "the names of the results that share x's storage")
    expected = _sharing_calls()
    problems = []
    for name in sorted(expected - names):
        code, _, why = CALLS[name]
        problems.append(f"{name} = {code} shares x's storage: {why}.")
    for name in sorted(names - expected):
        code, _, why = CALLS[name]
        problems.append(f"{name} = {code} is a copy: {why}.")
    if problems:
        raise Wrong(" ".join(problems))


# --- 03.rolling_windows: overlapping views with as_strided ---------------------------

SERIES_LENGTH, WINDOW = 8, 3


def _windows():
    s = vg.arange(float(SERIES_LENGTH))
    return s, s.unfold(0, WINDOW, 1)


@exercise(
    "03.rolling_windows",
    "s = vg.arange(8.0). With vg.as_strided(s, size, stride), build every window of 3 "
    "neighbours, one per row: [[0, 1, 2], [1, 2, 3], …, [5, 6, 7]] — without copying.",
    hints=(
        "How many windows of 3 fit in 8 elements? That is the size of dim 0.",
        "Inside a window, neighbours are next to each other in memory: stride 1 along dim 1.",
        "The next window starts one element later: stride 1 along dim 0 as well. Rows overlap!",
    ),
    solution="""
answer = vg.as_strided(s, (6, 3), (1, 1))
check("03.rolling_windows", answer)
""",
    explanation="size (6, 3), stride (1, 1): both dims step one element, so each row "
    "starts where the previous one started plus one. 18 elements read, 8 stored. "
    "s.unfold(0, 3, 1) builds the same view.",
)
def _rolling_windows(answer):
    if not isinstance(answer, vg.Tensor):
        raise Wrong("Expected a vizgrad tensor made by vg.as_strided(s, ...); got "
                    f"{describe_type(answer)}.")  # fmt: skip
    s, target = _windows()
    if answer.untyped_storage().numel != s.untyped_storage().numel:
        raise Wrong(f"Your tensor has a storage of {answer.untyped_storage().numel} elements, "
                    f"not s's {s.numel()}: it copies. The windows must all read s's storage.")  # fmt: skip
    if tuple(answer.shape) != tuple(target.shape):
        raise Wrong(f"The size is {tuple(answer.shape)}; a window of {WINDOW} can start at "
                    f"positions 0 to {SERIES_LENGTH - WINDOW}: {SERIES_LENGTH} - {WINDOW} + 1 = "
                    f"{target.size(0)} windows of {WINDOW}.")  # fmt: skip

    def why(d):
        if d == 0:
            return "the next window starts one element later in s"
        return "inside a window the elements are neighbours in s"

    check_per_dim(answer.stride(), target.stride(), "the stride", why)
    if answer.storage_offset() != target.storage_offset():
        raise Wrong(f"The offset {answer.storage_offset()} skips the start: the first window "
                    "begins at s[0].")  # fmt: skip
    if answer.tolist() != target.tolist():
        raise Wrong(f"It reads {answer.tolist()}: build it from s = vg.arange(8.0), unchanged.")


# --- 03.free_memory: let a big storage go ------------------------------------------

BIG, KEPT = 1_000_000, 10


@exercise(
    "03.free_memory",
    "big = vg.zeros(1_000_000); head = big[:10]. Make `small`: a tensor with head's 10 "
    "values that does not keep big's 4 MB storage alive (del big; del head would then "
    "free it).",
    hints=(
        "head reads big's storage: as long as head lives, all 1,000,000 elements stay.",
        "Only a tensor with a storage of its own lets the big one go. Which method copies?",
        "contiguous() will not do: head already is contiguous, so it returns head itself.",
    ),
    solution="""
small = head.clone()
check("03.free_memory", small)
""",
    explanation="clone() copies the 10 elements into a storage of 10 elements (40 bytes). "
    "Once big and head are gone, nothing refers to the 4 MB storage and it is freed.",
)
def _free_memory(answer):
    if not isinstance(answer, vg.Tensor):
        raise Wrong(f"Expected a vizgrad tensor; got {describe_type(answer)}.")
    big = vg.zeros(BIG)
    head = big[:KEPT]
    if tuple(answer.shape) != tuple(head.shape):
        raise Wrong(f"`small` should hold head's {KEPT} values, size ({KEPT},); "
                    f"yours has size {tuple(answer.shape)}.")  # fmt: skip
    storage = answer.untyped_storage()
    if storage.numel >= BIG:
        raise Wrong(f"`small` still reads a storage of {storage.numel:,} elements "
                    f"({storage.nbytes():,} bytes): it is a view of big's storage, so that "
                    "storage stays alive as long as `small` does. "
                    + _why_still_a_view(answer))  # fmt: skip
    if storage.numel != answer.numel():
        raise Wrong(f"`small` reads a storage of {storage.numel:,} elements for {answer.numel()} "
                    "values: copy exactly head's elements.")  # fmt: skip
    if answer.tolist() != head.tolist():
        raise Wrong(f"`small` holds {answer.tolist()}, not head's values {head.tolist()}.")


def _why_still_a_view(answer: vg.Tensor) -> str:
    if answer.is_contiguous():
        return ("contiguous() and reshape() return a view when they can: head is already "
                "contiguous, so nothing is copied. clone() always copies.")  # fmt: skip
    return "Copy the elements into a storage of their own."

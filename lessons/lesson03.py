"""Lesson 3, *Views*: the checkers of its exercises.

A view operator computes a new size, stride and offset over the same storage and
copies nothing: ``permute`` reorders strides, ``expand`` sets stride 0, ``unfold``
makes windows that overlap. ``view`` fails when no strides can express the new shape;
``reshape`` then copies. Basic indexing (ints, slices, ``None``, ``...``) is a view
too; advanced indexing (integer tensors, lists, boolean masks), ``index_select`` and
``gather`` copy. And a small view keeps its whole storage alive. Expected answers come
from running vizgrad, never from hand-written values.

A wrong answer is explained one mistake at a time: the first one found, without
giving away the other parts of the answer.
"""

from __future__ import annotations

import vizgrad as vg

from .exercise import Part, Wrong, exercise, require_all
from .lesson01 import as_name_set, shares_storage
from .lesson02 import as_int_tuple, check_per_dim, describe_type

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
    parts = []  # one per name, in order: the first mistake is explained, the rest held back
    for name in sorted(CALLS):
        code, _, why = CALLS[name]
        said = "shares x's storage" if name in names else "is a copy"
        if name in expected and name not in names:
            parts.append(Part(f"{name} = {code} {said}", f"no, it shares x's storage: {why}."))
        elif name in names and name not in expected:
            parts.append(Part(f"{name} = {code} {said}", f"no, it is a copy: {why}."))
        else:
            parts.append(Part(f"{name} = {code} {said}"))
    require_all(parts)


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
    _check_window_size(tuple(answer.shape), tuple(target.shape))

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


def _check_window_size(size: tuple, target: tuple) -> None:
    """Explain the first wrong part of the size: the number of dims, the window count
    (dim 0) or the window length (dim 1), each with its own reason."""
    if len(size) != len(target):
        raise Wrong(f"The size is {size}: {len(size)} dimension(s). The windows need "
                    f"{len(target)}: one row per window (dim 0), one column per element of a "
                    "window (dim 1).")  # fmt: skip
    count, length = size
    if length != target[1]:
        raise Wrong(f"The size is {size}: each row (dim 1) holds {length} elements, but a "
                    f"window is {WINDOW} neighbours, so dim 1 has size {WINDOW}.")  # fmt: skip
    if count != target[0]:
        raise Wrong(f"The size is {size}: {count} windows (dim 0). A window of {WINDOW} can "
                    f"start at any position from 0 to {SERIES_LENGTH - WINDOW} and still end "
                    f"inside s: {SERIES_LENGTH} - {WINDOW} + 1 = {target[0]} windows.")  # fmt: skip


# --- indexing: views and copies --------------------------------------------------------


def index_source() -> vg.Tensor:
    """The tensor the indexing section indexes: ``vg.arange(12.0).view(3, 4)``."""
    return vg.arange(12.0).view(3, 4)


# name -> (code, how to build it from x = index_source(), why it is a view or a copy)
INDEXINGS = {
    "a": ("x[1]", lambda x: x[1],
          "an int is basic indexing: it drops dim 0 and moves the offset by 1 * x.stride(0)"),
    "b": ("x[:, [0, 2]]", lambda x: x[:, [0, 2]],
          "a list is an integer index, which is advanced indexing: the chosen columns are "
          "gathered into a new storage"),
    "c": ("x[1:, ::2]", lambda x: x[1:, ::2],
          "slices are basic indexing: the start moves the offset, the step multiplies the "
          "stride"),
    "d": ("x[x > 5]", lambda x: x[x > 5],
          "a boolean mask is advanced indexing: where it holds depends on the values, not on "
          "a stride, so the picked elements are copied"),
    "e": ("x[None, ..., 0]", lambda x: x[None, ..., 0],
          "None, ... and an int are all basic indexing: a new size-1 dim, all the dims in "
          "between, and column 0 by moving the offset"),
    "f": ("x[1:2]", lambda x: x[1:2],
          "a slice of length 1 is still a slice: a view with size 1 along dim 0"),
    "g": ("x[[1]]", lambda x: x[[1]],
          "a list, even of a single index, is advanced indexing, which always copies, "
          "although x[1:2] shows the same values as a view"),
    "h": ("x.index_select(0, vg.tensor([0, 1]))",
          lambda x: x.index_select(0, vg.tensor([0, 1])),
          "index_select always writes its result into a new storage, even when a slice "
          "(here x[:2]) could have described the same rows as a view"),
}  # fmt: skip


def index_results() -> dict:
    """``{name: "view" or "copy"}`` for every expression of ``INDEXINGS``, by storage."""
    x = index_source()
    return {name: "view" if shares_storage(build(x), x) else "copy"
            for name, (_, build, _) in INDEXINGS.items()}  # fmt: skip


@exercise(
    "03.index_view_or_copy",
    "x = vg.arange(12.0).view(3, 4). For each indexing, say whether its result is a "
    '"view" of x or a "copy": '
    + ", ".join(f"{n} = {code}" for n, (code, _, _) in INDEXINGS.items())
    + '. Answer a dict like {"a": "view", "b": "copy", ...}.',
    hints=(
        "Basic indexing is ints, slices, None and ...: each can be expressed as a size, a "
        "stride and an offset over x's storage.",
        "Advanced indexing is an integer tensor, a list or a boolean mask anywhere in the "
        "index: the result is a copy, whatever the indices are.",
        "Operators like index_select and gather always allocate a new result.",
    ),
    solution="""
answer = {"a": "view", "b": "copy", "c": "view", "d": "copy",
          "e": "view", "f": "view", "g": "copy", "h": "copy"}
check("03.index_view_or_copy", answer)
""",
    explanation="Ints, slices, None and ... only change the size, stride and offset: "
    "views. A list, an integer tensor or a mask picks elements no stride can reach, and "
    "index_select and gather build new tensors: copies.",
)
def _index_view_or_copy(answer):
    if not isinstance(answer, dict):
        raise Wrong('Answer a dict like {"a": "view", "b": "copy", ...}; got '
                    f"{describe_type(answer)}.")  # fmt: skip
    unknown = sorted(str(n) for n in answer if n not in INDEXINGS)
    if unknown:
        raise Wrong(f"{', '.join(unknown)}: not one of the names {', '.join(INDEXINGS)}.")
    missing = [n for n in INDEXINGS if n not in answer]
    if missing:
        raise Wrong(f"The dict has no answer for {', '.join(missing)}: say \"view\" or "
                    "\"copy\" for every name.")  # fmt: skip
    expected = index_results()
    parts = []  # one per name, in order: the first mistake is explained, the rest held back
    for name, (code, _, why) in INDEXINGS.items():
        said = answer[name]
        label = f"{name} = {code}: {said!r}"
        if not isinstance(said, str) or said.strip().lower() not in ("view", "copy"):
            parts.append(Part(label, 'answer "view" or "copy".'))
        elif said.strip().lower() != expected[name]:
            kind = ("a view (it reads x's storage)" if expected[name] == "view"
                    else "a copy (it has a storage of its own)")  # fmt: skip
            parts.append(Part(label, f"it is {kind}: {why}."))
        else:
            parts.append(Part(label))
    require_all(parts)


# --- 03.index_geometry: the strides and offset of basic indexing ------------------------

GEOMETRY_SHAPE = (2, 3, 4)


def geometry_view() -> tuple:
    """``x = vg.arange(24.0).view(2, 3, 4)`` and the view ``x[1, :, 1::2]``."""
    x = vg.arange(24.0).view(*GEOMETRY_SHAPE)
    return x, x[1, :, 1::2]


@exercise(
    "03.index_geometry",
    "x = vg.arange(24.0).view(2, 3, 4) and v = x[1, :, 1::2]. What are v.stride() and "
    "v.storage_offset()? Answer a pair (stride, offset), like ((1, 1), 0).",
    hints=(
        "Write down x.stride() first: x is contiguous.",
        "The int 1 removes dim 0 and moves the offset by 1 * x.stride(0). The : keeps dim 1 "
        "as it is.",
        "The slice 1::2 starts at index 1 of dim 2 (the offset moves by 1 * x.stride(2)) and "
        "takes every 2nd element (the stride is multiplied by 2).",
    ),
    solution="""
answer = ((4, 2), 13)
check("03.index_geometry", answer)
""",
    explanation="x.stride() is (12, 4, 1). The int 1 drops dim 0 and adds 1 * 12 to the "
    "offset; : keeps stride 4; 1::2 adds 1 * 1 to the offset and doubles the stride to 2. "
    "v[0, 0] is x[1, 0, 1], storage position 13.",
)
def _index_geometry(answer):
    if (isinstance(answer, (str, bytes)) or not isinstance(answer, (tuple, list))
            or len(answer) != 2):  # fmt: skip
        raise Wrong("Answer a pair (stride, offset): a tuple of ints and an int, like "
                    f"((1, 1), 0); got {answer!r}.")  # fmt: skip
    stride, offset = answer
    x, v = geometry_view()
    given = as_int_tuple(stride, "the stride")
    if len(given) == x.dim():
        raise Wrong(f"Your stride has {x.dim()} entries, one per dim of x. The int index 1 "
                    f"removes x's dim 0: v has {v.dim()} dims.")  # fmt: skip

    def why(d):
        if d == 0:
            return "v's dim 0 is x's dim 1, taken whole by the : so it keeps x.stride(1)"
        return ("v's dim 1 is x's dim 2 with step 2: one step of v skips 2 elements of that "
                "dim, so the stride is 2 * x.stride(2)")  # fmt: skip

    check_per_dim(given, v.stride(), "the stride", why)
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise Wrong(f"The offset is one int, a position in the storage; got {offset!r}.")
    if offset != v.storage_offset():
        int_part = 1 * x.stride(0)  # the int index 1 along dim 0
        start_part = 1 * x.stride(2)  # the slice 1::2 starts at index 1 of dim 2
        if offset == int_part:
            why = ("the slice 1::2 does not start at index 0: its start moves the offset by "
                   "1 * x.stride(2) as well")  # fmt: skip
        elif offset == start_part:
            why = ("the int index 1 picks the second block along dim 0: it moves the offset "
                   "by 1 * x.stride(0)")  # fmt: skip
        else:
            why = ("the offset is the storage position of v[0, 0], which is x[1, 0, 1]: "
                   "1 * x.stride(0) + 0 * x.stride(1) + 1 * x.stride(2)")  # fmt: skip
        direction = "too large" if offset > v.storage_offset() else "too small"
        raise Wrong(f"The offset {offset} is {direction}: {why}.")


# --- 03.gather: one element of the source per element of the index ---------------------

GATHER_SOURCE = [[10, 11, 12], [20, 21, 22], [30, 31, 32]]
GATHER_INDEX = [[2, 0], [1, 1], [0, 2]]


def _as_rows(answer):
    """A 2-d answer (vizgrad or torch tensor, NumPy array, list of lists) as a list of
    lists, or ``None`` if it is none of these."""
    if isinstance(answer, vg.Tensor) or (
        type(answer).__module__.split(".")[0] in ("torch", "numpy") and hasattr(answer, "tolist")
    ):
        answer = answer.tolist()
    if not isinstance(answer, (list, tuple)) or not all(
        isinstance(row, (list, tuple)) for row in answer
    ):
        return None
    rows = [list(row) for row in answer]
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool)
                  for row in rows for v in row)  # fmt: skip
    return rows if numbers else None


@exercise(
    "03.gather",
    f"y = vg.tensor({GATHER_SOURCE}) and idx = vg.tensor({GATHER_INDEX}). What is "
    "y.gather(1, idx)? Answer a list of lists (or a tensor) — predict it, don't run it.",
    hints=(
        "The result has idx's shape, not y's: one element of y for every element of idx.",
        "Along dim 1, out[i][j] = y[i][idx[i][j]]: the row stays i, idx says which column.",
        "Row 0 of idx is [2, 0]: columns 2 and 0 of row 0 of y.",
    ),
    solution="""
answer = [[12, 10], [21, 21], [30, 32]]
check("03.gather", answer)
""",
    explanation="gather(1, idx) reads out[i][j] = y[i][idx[i][j]]: each row picks its own "
    "columns, repeats allowed. It reads y but allocates a new result: a copy, not a view.",
)
def _gather(answer):
    rows = _as_rows(answer)
    if rows is None:
        raise Wrong("Answer a list of lists of numbers like [[1, 2], [3, 4]] (or a tensor); "
                    f"got {describe_type(answer)}.")  # fmt: skip
    y, idx = vg.tensor(GATHER_SOURCE), vg.tensor(GATHER_INDEX)
    expected = y.gather(1, idx).tolist()
    shape = (len(rows), len(rows[0]) if rows else 0)
    if any(len(row) != shape[1] for row in rows) or shape != tuple(idx.shape):
        got = shape if all(len(row) == shape[1] for row in rows) else "rows of different lengths"
        raise Wrong(f"Your answer has shape {got}. gather's result has idx's shape "
                    f"{tuple(idx.shape)}: one element of y for each element of idx.")  # fmt: skip
    if rows == expected:
        return
    if rows == y.gather(0, idx).tolist():
        raise Wrong("That is y.gather(0, idx): idx picked rows, out[i][j] = y[idx[i][j]][j]. "
                    "Along dim 1, idx picks columns and the row stays i.")  # fmt: skip
    if rows == y.index_select(1, idx[0]).tolist():
        raise Wrong("Every row of your answer uses idx's row 0. gather uses idx row by row: "
                    "row i of the result reads row i of y at the columns in idx[i].")  # fmt: skip
    for i, (got_row, want_row) in enumerate(zip(rows, expected, strict=True)):
        for j, (got, want) in enumerate(zip(got_row, want_row, strict=True)):
            if got != want:
                raise Wrong(f"Element [{i}][{j}] ({got}) is off: out[{i}][{j}] = "
                            f"y[{i}][idx[{i}][{j}]], the element of row {i} of y at the column "
                            f"that idx[{i}][{j}] names.")  # fmt: skip


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

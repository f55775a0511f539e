"""Lesson 2, *Strides*: the checkers of its exercises.

The stride of a dimension is how many storage elements one step along it skips, so
the element at ``index`` lives at ``offset + Σ index[d]·stride[d]``. The checkers
compute every expected stride, offset and position with vizgrad itself; a trick makes
positions observable: over ``vg.arange(n)`` each element's *value* is its storage
position, so reading a view's element reads where it lives.
"""

from __future__ import annotations

import vizgrad as vg

from .exercise import Wrong, exercise

__all__ = ["as_int_tuple", "check_per_dim", "describe_type", "positions_tensor"]


# --- helpers shared by the checkers (lesson 3 uses them too) -------------------------


def as_int_tuple(answer, what: str) -> tuple[int, ...]:
    """A size or stride answer (tuple, list, ``vg.Size``, ``torch.Size``) as a tuple of ints."""
    if isinstance(answer, int) and not isinstance(answer, bool):
        answer = (answer,)  # a 1-d answer written without the tuple
    if isinstance(answer, (str, bytes)) or not hasattr(answer, "__iter__"):
        raise Wrong(f"Expected {what} as a tuple of ints like (3, 1); got {answer!r}")
    values = tuple(answer)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise Wrong(f"Expected {what} as a tuple of ints like (3, 1); got {answer!r}")
    return values


def check_per_dim(answer, expected, what: str, why) -> None:
    """Compare a per-dimension answer with the engine's; explain each wrong element.

    ``why(d)`` says how element ``d`` of the expected tuple comes about.
    """
    given = as_int_tuple(answer, what)
    expected = tuple(expected)
    if len(given) != len(expected):
        raise Wrong(f"{what.capitalize()} has one entry per dimension: {len(expected)} here, "
                    f"but your answer has {len(given)}.")  # fmt: skip
    problems = []
    for d, (got, want) in enumerate(zip(given, expected, strict=True)):
        if got != want:
            direction = "too large" if got > want else "too small"
            problems.append(f"Element {d} ({got}) is {direction}: {why(d)}.")
    if problems:
        raise Wrong(" ".join(problems))


def describe_type(value) -> str:
    """``a list``, ``a torch.Tensor``: what a wrong kind of answer is, in words."""
    kind = type(value)
    module = kind.__module__.split(".")[0]
    return f"a {kind.__name__}" if module == "builtins" else f"a {module}.{kind.__name__}"


def positions_tensor(n: int) -> vg.Tensor:
    """``vg.arange(n)``: a storage whose element at position p holds the value p."""
    return vg.arange(n)


# --- 02.contiguous_stride: the strides of a freshly made tensor ----------------------

SHAPE = (2, 3, 4)


@exercise(
    "02.contiguous_stride",
    "x = vg.zeros(2, 3, 4). What is x.stride()? Answer a tuple.",
    hints=(
        "A fresh tensor is contiguous and row-major: the last index moves fastest.",
        "Stepping one along the last dimension moves one element. Stepping one along "
        "dimension 1 skips a whole row of the last dimension.",
        "stride[d] is the product of the sizes after d.",
    ),
    solution="""
answer = (12, 4, 1)
check("02.contiguous_stride", answer)
""",
    explanation="Row-major (C order): stride[d] = product of the sizes after d — "
    "one step in dim 0 skips a 3×4 block, in dim 1 a row of 4, in dim 2 one element.",
)
def _contiguous_stride(answer):
    expected = vg.zeros(*SHAPE).stride()

    def why(d):
        after = SHAPE[d + 1 :]
        if not after:
            return "the last dimension moves one element at a time"
        product = " × ".join(map(str, after))
        return f"one step along dim {d} skips everything to its right, {product} elements"

    check_per_dim(answer, expected, "the stride", why)


# --- 02.formula: index → storage position -------------------------------------------


def _formula_cases():
    """(description, view, index) triples covering offsets, steps, transposes, stride 0."""
    base = positions_tensor(24)
    grid = base.view(4, 6)
    return [
        ("a contiguous 4×6 tensor", grid, (2, 3)),
        ("x.t() (swapped strides)", grid.t(), (4, 1)),
        ("x[1:, 2:] (an offset)", grid[1:, 2:], (1, 2)),
        ("x[::2, 1::3] (steps and an offset)", grid[::2, 1::3], (1, 1)),
        ("x[:, 2] (a column)", grid[:, 2], (3,)),
        ("an expanded tensor (stride 0)", base[5:8].expand(2, 3), (1, 2)),
        ("a 3-d view", base.view(2, 3, 4).permute(2, 0, 1)[1:], (1, 1, 2)),
        ("a 0-d tensor", base[7], ()),
    ]


@exercise(
    "02.formula",
    "Write position(index, stride, offset): the storage position of the element at "
    "`index` of a tensor with these strides and storage offset.",
    hints=(
        "Each index is multiplied by the stride of its dimension.",
        "Add those products up — and do not forget where the tensor starts.",
        "offset + sum(i * s for i, s in zip(index, stride))",
    ),
    solution="""
def position(index, stride, offset):
    return offset + sum(i * s for i, s in zip(index, stride))

check("02.formula", position)
""",
    explanation="position = offset + Σ index[d]·stride[d]: the whole of a strided layout. "
    "PyTorch's TensorAccessor and every CPU kernel compute exactly this.",
)
def _formula(answer):
    if not callable(answer):
        raise Wrong(f"Expected a function position(index, stride, offset); got {answer!r}")
    for description, view, index in _formula_cases():
        stride, offset = view.stride(), view.storage_offset()
        expected = view[index].item()  # over arange, the value is the storage position
        call = f"position({index}, {stride}, {offset})"
        try:
            got = answer(index, stride, offset)
        except Exception as error:  # a student's function may fail in any way
            raise Wrong(
                f"{call} for {description} raised {type(error).__name__}: {error}"
            ) from None
        if got == expected:
            continue
        if offset and got == expected - offset:
            raise Wrong(f"{call} for {description} returned {got!r}, {offset} short of where the "
                        "element lives: add the storage offset, the position of element 0.")  # fmt: skip
        raise Wrong(f"{call} for {description} returned {got!r}, but the engine reads that "
                    f"element at storage position {expected}. Multiply each index by its own "
                    "dimension's stride and add the offset.")  # fmt: skip


# --- 02.column_major: the other order -----------------------------------------------


@exercise(
    "02.column_major",
    "A 3×4 matrix stored column-major (Fortran order: column after column). What are "
    "its strides? Answer a tuple (stride of dim 0, stride of dim 1).",
    hints=(
        "In column-major order the first index moves fastest: the elements of one "
        "column are neighbours in memory.",
        "Moving one column to the right skips a whole column. How long is a column?",
        "It is the transpose of a contiguous 4×3 tensor: vg.zeros(4, 3).t().",
    ),
    solution="""
answer = (1, 3)
check("02.column_major", answer)
""",
    explanation="Column-major: stride (1, 3). Down a column is one element; one column to the "
    "right skips the 3 elements of a column. x.t() of a row-major 4×3 matrix is exactly this.",
)
def _column_major(answer):
    expected = vg.zeros(4, 3).t().stride()  # a 3×4 view that walks memory column by column
    if as_int_tuple(answer, "the stride") == vg.zeros(3, 4).stride():
        raise Wrong("(4, 1) is row-major (C order, PyTorch's default): there the last index "
                    "moves fastest. In column-major order the first index does.")  # fmt: skip

    def why(d):
        if d == 0:
            return "down a column, neighbours in memory: one element apart"
        return "one column to the right skips a whole column, 3 elements (one per row)"

    check_per_dim(answer, expected, "the stride", why)


# --- 02.anti_diagonal: a view no slice can make, built by hand -----------------------


def _anti_diagonal_target():
    """x, and the geometry and values of its anti-diagonal x[0, 3], x[1, 2], x[2, 1]."""
    x = positions_tensor(12).view(3, 4)
    rows, cols = x.shape
    length = min(rows, cols)
    values = [x[i, cols - 1 - i].item() for i in range(length)]
    # one row down and one column left per step; start at the top-right element
    stride = (x.stride(0) - x.stride(1),)
    offset = x.storage_offset() + (cols - 1) * x.stride(1)
    return x, (length,), stride, offset, values


@exercise(
    "02.anti_diagonal",
    "x = vg.arange(12).view(3, 4). With vg.as_strided(x, size, stride, storage_offset), "
    "build the anti-diagonal x[0, 3], x[1, 2], x[2, 1] (values 3, 6, 9) as a view of x's "
    "storage. No slice can make it: slices cannot step backwards.",
    hints=(
        "Three elements: size (3,). Where does each live? (over arange, the value is the position)",
        "From one element to the next you go one row down (+x.stride(0)) and one column "
        "left (−x.stride(1)). The stride is the sum.",
        "The offset is the position of the first element, x[0, 3].",
    ),
    solution="""
answer = vg.as_strided(x, (3,), (3,), 3)
check("02.anti_diagonal", answer)
""",
    explanation="size (3,), stride (3,) = 4 − 1 (a row down, a column left), offset 3 "
    "(where x[0, 3] lives). A stride can be any number of elements, not just a row or a column.",
)
def _anti_diagonal(answer):
    if not isinstance(answer, vg.Tensor):
        raise Wrong("Expected a vizgrad tensor made by vg.as_strided(x, ...); got "
                    f"{describe_type(answer)}.")  # fmt: skip
    x, size, stride, offset, values = _anti_diagonal_target()
    storage_numel = answer.untyped_storage().numel
    if storage_numel != x.untyped_storage().numel:
        raise Wrong(f"Your tensor reads a storage of {storage_numel} elements, not x's "
                    f"{x.untyped_storage().numel}: it is a copy (or not built from x). "
                    "as_strided only chooses how to read x's storage.")  # fmt: skip
    if tuple(answer.shape) != size:
        raise Wrong(f"The size is {tuple(answer.shape)}: the anti-diagonal is 1-d with "
                    f"{size[0]} elements, size {size}.")  # fmt: skip
    problems = []
    if answer.stride() != stride:
        problems.append(f"The stride {answer.stride()} does not walk the anti-diagonal: from "
                        f"x[0, 3] to x[1, 2] is one row down (+{x.stride(0)}) and one column "
                        f"left (−{x.stride(1)}).")  # fmt: skip
    if answer.storage_offset() != offset:
        problems.append(f"The offset {answer.storage_offset()} is not where x[0, 3] lives: "
                        "offset + 0·stride must land on the first element.")  # fmt: skip
    if not problems and answer.tolist() != values:
        problems.append(f"It reads {answer.tolist()}, not {values}: build it from "
                        "x = vg.arange(12).view(3, 4), unchanged.")  # fmt: skip
    if problems:
        raise Wrong(" ".join(problems) + f" (Your view reads {answer.tolist()}.)")

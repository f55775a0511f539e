"""Lesson 2, *Strides*: the checkers of its exercises.

The stride of a dimension is how many storage elements one step along it skips, so
the element at ``index`` lives at ``offset + Σ index[d]·stride[d]``. The checkers
compute every expected stride, offset and position with vizgrad itself; a trick makes
positions observable: over ``vg.arange(n)`` each element's *value* is its storage
position, so reading a view's element reads where it lives.
"""

from __future__ import annotations

import vizgrad as vg

from .exercise import Part, Wrong, exercise, require_all

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
    """Compare a per-dimension answer with the engine's, one element at a time.

    Each element is a ``Part``: the first wrong one is explained by ``why(d)`` (how
    element ``d`` of the expected tuple comes about), the wrong ones after it are only
    counted, so a student fixes one element at a time.
    """
    given = as_int_tuple(answer, what)
    expected = tuple(expected)
    if len(given) != len(expected):
        raise Wrong(f"{what.capitalize()} has one entry per dimension: {len(expected)} here, "
                    f"but your answer has {len(given)}.")  # fmt: skip
    parts = []
    for d, (got, want) in enumerate(zip(given, expected, strict=True)):
        direction = "too large" if got > want else "too small"
        parts.append(
            Part(f"Element {d} ({got})", None if got == want else f"{direction}: {why(d)}.")
        )
    require_all(parts)


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
    reads = f"(Your view reads {answer.tolist()}.)"
    stride_part = Part(f"The stride {answer.stride()}")
    if answer.stride() != stride:
        stride_part = Part(stride_part.label, "does not walk the anti-diagonal: from x[0, 3] to "
                           f"x[1, 2] is one row down (+{x.stride(0)}) and one column left "
                           f"(−{x.stride(1)}). {reads}")  # fmt: skip
    offset_part = Part(f"The offset {answer.storage_offset()}")
    if answer.storage_offset() != offset:
        offset_part = Part(offset_part.label, "is not where x[0, 3] lives: offset + 0·stride "
                           f"must land on the first element. {reads}")  # fmt: skip
    require_all([stride_part, offset_part])
    if answer.tolist() != values:
        raise Wrong(f"It reads {answer.tolist()}, not {values}: build it from "
                    "x = vg.arange(12).view(3, 4), unchanged.")  # fmt: skip


# --- 02.squeeze_unsqueeze: size-1 dims, added and removed ----------------------------

# The notebook runs these lines; the checker runs them again.
SQUEEZE_CODE = """\
x = vg.zeros(3, 4).t()   # shape (4, 3), stride (1, 4): a transposed matrix
u = x.unsqueeze(1)
z = vg.zeros(2, 1, 3, 1)
s = z.squeeze()
"""


def squeeze_example() -> dict:
    """The tensors ``x``, ``u``, ``z`` and ``s`` of ``SQUEEZE_CODE``."""
    namespace = {"vg": vg}
    exec(SQUEEZE_CODE, namespace)  # noqa: S102 - the lesson's own constant code
    return {name: namespace[name] for name in "xuzs"}


def _unsqueeze_stride_mistake(x, dim: int, given: tuple, expected: tuple) -> str:
    """Why ``x.unsqueeze(dim).stride()`` is ``expected``, for the first element ``given`` has wrong."""
    d = next(d for d in range(len(expected)) if given[d] != expected[d])
    if d != dim:
        old = d if d < dim else d - 1
        return (f"element {d} is off: dim {d} of u is dim {old} of x, and unsqueeze copies "
                f"nothing, so it keeps x's stride {x.stride(old)}.")  # fmt: skip
    if dim == x.dim():
        return f"element {d} is off: a new last dim gets stride 1."
    return (f"element {d} is off: the new size-1 dim is never stepped along, so any stride "
            "would read the same elements; PyTorch gives it the stride of one step over the "
            f"whole dim it is put in front of, x.size({dim}) × x.stride({dim}) = "
            f"{x.size(dim)} × {x.stride(dim)} = {expected[d]}.")  # fmt: skip


@exercise(
    "02.squeeze_unsqueeze",
    "x = vg.zeros(3, 4).t() has shape (4, 3) and stride (1, 4); u = x.unsqueeze(1); "
    "z = vg.zeros(2, 1, 3, 1); s = z.squeeze(). Answer a tuple "
    "(u.shape, u.stride(), s.shape, s.stride()).",
    hints=(
        "unsqueeze(1) puts a new dim of size 1 in front of dim 1; squeeze() removes every "
        "dim of size 1. Both are views: nothing is copied, the old dims keep their strides.",
        "A size-1 dim is never stepped along, so its stride does not change which elements "
        "are read. Still, PyTorch computes one: for a new dim in front of dim d, "
        "x.size(d) × x.stride(d).",
        "z is contiguous: z.stride() is (3, 3, 1, 1). squeeze drops dims 1 and 3 with their "
        "strides.",
    ),
    solution="""
answer = ((4, 1, 3), (1, 12, 4), (2, 3), (3, 1))
check("02.squeeze_unsqueeze", answer)
""",
    explanation="unsqueeze and squeeze only edit the metadata: u keeps x's strides 1 and 4 and "
    "gets 3 × 4 = 12 for its new size-1 dim (one step over the whole dim it precedes, as "
    "PyTorch's inferUnsqueezeGeometry computes it); s drops z's size-1 dims with their strides. "
    "A size-1 dim's stride is never used to step, which is why PyTorch may pick any value.",
)
def _squeeze_unsqueeze(answer):
    if isinstance(answer, (str, bytes)) or not hasattr(answer, "__len__") or len(answer) != 4:
        raise Wrong("Expected four tuples: (u.shape, u.stride(), s.shape, s.stride()).")
    names = ("u.shape", "u.stride()", "s.shape", "s.stride()")
    given = [as_int_tuple(value, name) for value, name in zip(answer, names, strict=True)]
    t = squeeze_example()
    x, u, z, s = t["x"], t["u"], t["z"], t["s"]
    expected = [tuple(u.shape), u.stride(), tuple(s.shape), s.stride()]
    dropped = [d for d in range(z.dim()) if z.size(d) == 1]
    why = {
        "u.shape": f"unsqueeze(1) puts a new dim of size 1 in front of dim 1 of x's shape "
        f"{tuple(x.shape)}.",
        "u.stride()": lambda got: _unsqueeze_stride_mistake(x, 1, got, u.stride()),
        "s.shape": f"squeeze() removes every dim of size 1 (here dims {dropped[0]} and "
        f"{dropped[1]}) from z's shape {tuple(z.shape)}, and keeps the others in order.",
        "s.stride()": f"squeeze() copies nothing: it drops each size-1 dim together with its "
        f"stride, and the other dims keep theirs (z.stride() is {z.stride()}).",
    }
    parts = []
    for name, got, want in zip(names, given, expected, strict=True):
        label = f"{name} = {got}"
        if got == want:
            parts.append(Part(label))
        elif len(got) != len(want) and name.endswith("stride()"):
            parts.append(Part(label, f"{name} has one entry per dim of {name[0]}: "
                                     f"{len(want)}, not {len(got)}."))  # fmt: skip
        else:
            reason = why[name]
            parts.append(Part(label, reason(got) if callable(reason) else reason))
    require_all(parts)

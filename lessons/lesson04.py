"""Lesson 4, *Broadcasting and type promotion*: the checkers of its exercises.

Every pointwise operator (``a + b``, ``x.mul_(2)``, ``vg.abs(x, out=o)``) is built on a
TensorIterator, which decides four things before any element is computed: the shape
(broadcasting), the dtype (type promotion), the layout of a new output (its strides
follow the inputs) and whether an in-place or ``out=`` target can hold the result.
The exercises ask the student to predict each decision. The expected answers are
computed by running vizgrad; the explanations apply PyTorch's rules to the same
operands, so they say *which* rule decided.
"""

from __future__ import annotations

import numbers

import vizgrad as vg
from vizgrad.dtypes import BOOL, COMPLEX, FLOATING, INTEGRAL, scalar_dtype
from vizgrad.shape import contiguous_strides

from .exercise import Part, Wrong, exercise, require_all

__all__ = [
    "BROADCAST_SHAPES",
    "PROMOTION_CASES",
    "INPLACE_CALLS",
    "as_dtype",
    "as_int_tuple",
    "explain_broadcast_dim",
    "explain_promotion",
    "make_operands",
]

CATEGORY_NAMES = {BOOL: "bool", INTEGRAL: "integer", FLOATING: "floating point", COMPLEX: "complex"}


# --- reading answers -------------------------------------------------------------------


def as_dtype(value) -> vg.dtype | None:
    """The vizgrad dtype an answer names, or None if it names none.

    Accepts a vizgrad dtype, a torch dtype, or a string such as ``"int64"``,
    ``"torch.long"`` or ``"vg.float32"``; aliases (long, float, double, half…) resolve
    through vizgrad's own names, as in PyTorch (``torch.long is torch.int64``).
    """
    if isinstance(value, vg.dtype):
        return value
    if isinstance(value, type) or (not isinstance(value, str) and type(value).__name__ != "dtype"):
        return None  # Python's float, a number, a tensor…: not a dtype
    text = str(value).strip()
    for prefix in ("torch.", "vizgrad.", "vg."):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    resolved = getattr(vg, text, None)
    return resolved if isinstance(resolved, vg.dtype) else None


def as_int_tuple(answer, what: str) -> tuple[int, ...]:
    """A shape or stride answer (tuple, list, ``vg.Size``, ``torch.Size``) as a tuple of ints."""
    if isinstance(answer, str | bytes) or not hasattr(answer, "__iter__"):
        raise Wrong(f"give {what} as a tuple of ints, like (2, 3); got {answer!r}")
    values = tuple(answer)
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in values):
        raise Wrong(f"give {what} as a tuple of ints, like (2, 3); got {answer!r}")
    return tuple(int(v) for v in values)


def _letters(answer, allowed) -> set[str]:
    """A set-of-letters answer ("bdf", {"b", "d"}, ["b", "d"]) as a set of letters."""
    if isinstance(answer, str):
        answer = [c for c in answer if not c.isspace() and c != ","]
    try:
        letters = {str(a).strip().lower() for a in answer}
    except TypeError:
        raise Wrong(
            f"give the letters as a set or a string, like {{'a', 'c'}}; got {answer!r}"
        ) from None
    unknown = sorted(letters - set(allowed))
    if unknown:
        raise Wrong(f"{', '.join(unknown)}: not one of the calls {', '.join(sorted(allowed))}")
    return letters


# --- 04.broadcast_shape: lining shapes up from the right --------------------------------

BROADCAST_SHAPES = ((5, 1, 4), (3, 1))


def _aligned(shape: tuple, ndim: int) -> tuple:
    """``shape`` padded on the left with None (a missing dim) to ``ndim`` dims."""
    return (None,) * (ndim - len(shape)) + tuple(shape)


def explain_broadcast_dim(shapes, dim: int) -> str:
    """Why dim ``dim`` of the broadcast of ``shapes`` has the size it has (about that dim only)."""
    ndim = max(len(s) for s in shapes)
    sizes = [_aligned(s, ndim)[dim] for s in shapes]
    shown = " and ".join("missing" if s is None else str(s) for s in sizes)
    present = [s for s in sizes if s is not None]
    result = max(present)
    if any(s is None for s in sizes):
        why = "a missing dim counts as size 1"
        if any(s == 1 for s in present):
            why += ", and a size-1 dim stretches"
    elif len(set(present)) == 1:
        why = "equal sizes stay as they are"
    else:
        why = "a size-1 dim stretches to match the other size"
    return f"the sizes lined up from the right are {shown}; {why}, so it is {result}"


@exercise(
    "04.broadcast_shape",
    "What is the shape of vg.zeros(5, 1, 4) + vg.zeros(3, 1)? Answer a tuple of ints.",
    hints=(
        "Write the two shapes one above the other, aligned on the RIGHT.",
        "A dim that is missing on the left counts as size 1; a size-1 dim stretches to the "
        "other size; equal sizes stay. Any other pair is an error.",
        "(5, 1, 4) over (_, 3, 1): column by column, 5 with nothing, 1 with 3, 4 with 1.",
    ),
    solution="""
answer = (5, 3, 4)
check("04.broadcast_shape", answer)
""",
    explanation="shapes are lined up from the right; missing dims count as 1 and size-1 dims "
    "stretch: (5, 1, 4) and (3, 1) broadcast to (5, 3, 4). Nothing is copied: the smaller "
    "operand is read with stride 0 along the stretched dims.",
)
def _broadcast_shape(answer):
    shape = as_int_tuple(answer, "the shape")
    expected = tuple(vg.broadcast_shapes(*BROADCAST_SHAPES))
    if len(shape) != len(expected):
        raise Wrong(
            f"the result has {len(expected)} dims, your shape has {len(shape)}: the result "
            "has as many dims as the operand with the most, because shapes are lined up "
            "from the right and missing leading dims count as size 1"
        )
    require_all(
        Part(f"dim {d} ({shape[d]})",
             None if shape[d] == expected[d] else explain_broadcast_dim(BROADCAST_SHAPES, d) + ".")
        for d in range(len(expected))
    )  # fmt: skip


# --- 04.expanded_stride: how the iterator reads the smaller operand ---------------------

EXPAND_SOURCE = (3, 1)
EXPAND_TARGET = (5, 3, 4)


def _explain_expanded_stride(source: vg.Tensor, target: tuple, dim: int) -> str:
    ndim_new = len(target) - source.dim()
    if dim < ndim_new:
        return (
            f"dim {dim} is new (added on the left to reach {len(target)} dims): every step "
            "along it reads the same elements again, so its stride is 0"
        )
    old = dim - ndim_new
    if source.size(old) == 1 and target[dim] != 1:
        return (
            f"dim {dim} is b's dim {old}, of size 1, stretched to {target[dim]}: all "
            f"{target[dim]} positions read the one element, so its stride is 0"
        )
    return (
        f"dim {dim} is b's dim {old}, whose size {source.size(old)} already matches: it "
        f"keeps b's stride {source.stride(old)}"
    )


@exercise(
    "04.expanded_stride",
    "b = vg.arange(3.0).view(3, 1) is added to a tensor of shape (5, 3, 4). The iterator "
    "reads b as b.expand(5, 3, 4). What is b.expand(5, 3, 4).stride()?",
    hints=(
        "b.stride() is (1, 1). Line b's dims up with (5, 3, 4) from the right.",
        "A dim that is added on the left, or a size-1 dim that is stretched, reads the "
        "same element again and again: which step in storage does that take?",
        "New and stretched dims get stride 0; a dim whose size already matches keeps its stride.",
    ),
    solution="""
answer = (0, 1, 0)
check("04.expanded_stride", answer)
""",
    explanation="broadcasting never copies: the stretched dims get stride 0, so one storage "
    "element is read for every index along them (the StrideMap shows it).",
)
def _expanded_stride(answer):
    stride = as_int_tuple(answer, "the stride")
    b = vg.arange(3.0).view(*EXPAND_SOURCE)
    expected = b.expand(*EXPAND_TARGET).stride()
    if len(stride) != len(expected):
        raise Wrong(
            f"b.expand(5, 3, 4) has {len(expected)} dims, so its stride has {len(expected)} "
            f"entries; your answer has {len(stride)}"
        )
    require_all(
        Part(f"element {d} ({stride[d]})",
             None if stride[d] == expected[d]
             else _explain_expanded_stride(b, EXPAND_TARGET, d) + ".")
        for d in range(len(expected))
    )  # fmt: skip


# --- 04.promotion: which dtype does the result get? --------------------------------------

# The operands every promotion exercise uses (the notebook builds the same).
OPERANDS_SOURCE = """\
i = vg.tensor([1, 2, 3], dtype=vg.int32)
h = vg.tensor([1.0, 2.0, 3.0], dtype=vg.float16)
f = vg.tensor([1.0, 2.0, 3.0])
"""

PROMOTION_CASES = (
    ("i", "2.5"),
    ("i", "vg.tensor(7, dtype=vg.int64)"),
    ("i", "vg.tensor([7], dtype=vg.int64)"),
    ("h", "vg.tensor(1.0, dtype=vg.float64)"),
    ("i", "vg.tensor(1.0, dtype=vg.float64)"),
)


def make_operands() -> dict:
    """A fresh namespace with ``vg`` and the operands ``i``, ``h``, ``f`` of the exercises."""
    namespace = {"vg": vg}
    exec(OPERANDS_SOURCE, namespace)  # noqa: S102 - our own constant source
    return namespace


def _priority_class(operand) -> str:
    if isinstance(operand, vg.Tensor):
        return "tensor with dimensions" if operand.dim() > 0 else "zero-dim tensor"
    return f"Python {type(operand).__name__}"


def _dtype_of(operand) -> vg.dtype:
    if isinstance(operand, vg.Tensor):
        return operand.dtype
    return scalar_dtype(operand)


def _describe(operand) -> str:
    if isinstance(operand, vg.Tensor):
        return f"a {_priority_class(operand)} of dtype {operand.dtype.name}"
    return f"a Python {type(operand).__name__}"


def explain_promotion(left, right) -> str:
    """Why ``left (op) right`` gets the dtype ``vg.result_type(left, right)``: the rule used."""
    result = vg.result_type(left, right)
    ranks = {"tensor with dimensions": 0, "zero-dim tensor": 1}
    if ranks.get(_priority_class(left), 2) > ranks.get(_priority_class(right), 2):
        left, right = right, left  # left is now the operand of higher priority
    same_class = _priority_class(left) == _priority_class(right)
    high, low = _dtype_of(left), _dtype_of(right)
    operands = f"{_describe(left)} and {_describe(right)}"
    if same_class:
        return (
            f"{operands} have the same priority, so promote_types({high.name}, {low.name}) = "
            f"{result.name}: the smallest dtype that holds both"
        )
    if low.category > high.category:
        kind = CATEGORY_NAMES[low.category]
        source = (
            f"its own dtype, {low.name}"
            if isinstance(right, vg.Tensor)
            else f"the default dtype of its kind ({low.name})"
        )
        return (
            f"{operands}: the {_priority_class(right)} has a lower priority, but it is of a "
            f"higher category ({kind} > {CATEGORY_NAMES[high.category]}), so it raises the "
            f"category and brings {source}: {result.name}"
        )
    return (
        f"{operands}: the {_priority_class(right)} has a lower priority and is not of a "
        f"higher category, so it does not change the dtype — the {_priority_class(left)} "
        f"decides: {result.name} (the {_priority_class(right)}'s own precision does not count)"
    )


def _promotion_expected() -> list[tuple[str, vg.dtype, str]]:
    """(expression, dtype vizgrad gives it, why) for each case."""
    rows = []
    for left_src, right_src in PROMOTION_CASES:
        names = make_operands()
        left, right = eval(left_src, names), eval(right_src, names)  # noqa: S307 - constants
        rows.append(
            (f"{left_src} + {right_src}", (left + right).dtype, explain_promotion(left, right))
        )
    return rows


@exercise(
    "04.promotion",
    "With i = int32 [1, 2, 3] and h = float16 [1., 2., 3.], give the dtype of each of the "
    "five sums in the table, as a tuple of five dtypes.",
    hints=(
        "Sort the operands into three priority classes: tensors with dimensions, zero-dim "
        "tensors, Python numbers. The highest class present decides…",
        "…unless a lower class is of a higher CATEGORY (bool < integer < floating < "
        "complex). Only then does it change the result.",
        "A lower class that raises the category brings its own dtype if it is a zero-dim "
        "tensor, or the default dtype of its kind (float32 for a Python float).",
    ),
    solution="""
answer = (vg.float32, vg.int32, vg.int64, vg.float16, vg.float64)
check("04.promotion", answer)
""",
    explanation="tensors with dimensions decide the dtype; zero-dim tensors and Python numbers "
    "only count when they raise the category (int → float). That is why i + 2.5 is float32 "
    "and h + a float64 scalar stays float16: a scalar never widens a tensor of its own kind.",
)
def _promotion(answer):
    rows = _promotion_expected()
    if isinstance(answer, str) or not hasattr(answer, "__len__"):
        raise Wrong(f"give a tuple of {len(rows)} dtypes, one per sum in the table")
    if len(answer) != len(rows):
        raise Wrong(
            f"give {len(rows)} dtypes, one per sum in the table; your answer has {len(answer)}"
        )
    parts = []
    for number, (given, (expression, expected, why)) in enumerate(
        zip(answer, rows, strict=True), start=1
    ):
        dtype = as_dtype(given)
        label = f"{number}. {expression} → {dtype.name if dtype else repr(given)}"
        if dtype is None:
            parts.append(Part(label, f"{given!r} is not a dtype (write e.g. vg.float32)."))
        elif dtype is not expected:
            parts.append(Part(label, f"it is {expected.name}, not {dtype.name}: {why}."))
        else:
            parts.append(Part(label))
    require_all(parts)


# --- 04.inplace_cast: which in-place or out= calls raise? ---------------------------------

# letter: (the call, the same computation as a functional op, the tensor it writes)
INPLACE_CALLS = {
    "a": ("i.add_(1)", "i + 1", "i"),
    "b": ("i.mul_(0.5)", "i * 0.5", "i"),
    "c": ("f.add_(i)", "f + i", "f"),
    "d": ("i.add_(f)", "i + f", "i"),
    "e": ("h.add_(vg.tensor(1.0, dtype=vg.float64))", "h + vg.tensor(1.0, dtype=vg.float64)", "h"),
    "f": ("i.div_(2)", "i / 2", "i"),
    "g": ("vg.add(f, 1, out=i)", "f + 1", "i"),
}


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _raises(call: str) -> bool:
    try:
        eval(call, make_operands())  # noqa: S307 - our own constant calls
    except RuntimeError:
        return True
    return False


def _why_cast(letter: str) -> str:
    call, functional, target_name = INPLACE_CALLS[letter]
    names = make_operands()
    result = eval(functional, names).dtype  # noqa: S307 - our own constant calls
    target = names[target_name].dtype
    if vg.can_cast(result, target):
        return (
            f"{call} computes in {result.name} and writes {target_name} ({target.name}); "
            f"can_cast({result.name}, {target.name}) is True, so it runs"
        )
    return (
        f"{call} computes {functional}, whose dtype is {result.name}, but it must write "
        f"{target_name}, {_article(target.name)} {target.name} tensor: can_cast({result.name}, {target.name}) is "
        f"False ({CATEGORY_NAMES[result.category]} may not go down to "
        f'{CATEGORY_NAMES[target.category]}), so it raises "result type '
        f"{result.scalar_name} can't be cast to the desired output type {target.scalar_name}\""
    )


@exercise(
    "04.inplace_cast",
    "Which of the calls a–g raise RuntimeError (\"result type … can't be cast to the desired "
    "output type …\")? Answer the letters, e.g. {'a', 'c'} or 'ac'.",
    hints=(
        "An in-place op (or out=) first computes the result dtype exactly as the functional "
        "op would; the output's dtype is fixed already.",
        "The result may be cast into the output only if that does not lower the category: "
        "float → int is refused, int → float and float64 → float16 are allowed.",
        "Work out i + f, i * 0.5, i / 2 (true division!) … as functional calls first.",
    ),
    solution="""
answer = {"b", "d", "f", "g"}
check("04.inplace_cast", answer)
""",
    explanation="in-place and out= calls compute the same result dtype as the functional op, "
    "then check can_cast(result, output): a cast may lose precision (float64 → float16) but "
    "never the category (float → int), because that would silently drop the fractions.",
)
def _inplace_cast(answer):
    letters = _letters(answer, INPLACE_CALLS)
    parts = []
    for letter, (call, _, _) in INPLACE_CALLS.items():
        said = "raises" if letter in letters else "runs"
        if _raises(call) == (letter in letters):
            parts.append(Part(f"{letter}. {call} {said}"))
        elif letter in letters:
            parts.append(Part(f"{letter}. {call} {said}", f"no, it runs: {_why_cast(letter)}."))
        else:
            parts.append(Part(f"{letter}. {call} {said}", f"no, it raises: {_why_cast(letter)}."))
    require_all(parts)


# --- 04.output_strides: a new output is laid out like its input ---------------------------


def _permuted_input() -> vg.Tensor:
    return vg.zeros(2, 3, 4).permute(2, 0, 1)


def _memory_order(tensor: vg.Tensor) -> list[int]:
    """``tensor``'s dims in memory order, outermost (largest stride) first."""
    return sorted(range(tensor.dim()), key=lambda d: tensor.stride(d), reverse=True)


def _explain_output_layout(tensor: vg.Tensor) -> str:
    """The TensorIterator's rule for a new output, without the strides it gives."""
    order = ", ".join(str(d) for d in _memory_order(tensor))
    return (
        f"the input has strides {tuple(tensor.stride())}, so in memory its dims go "
        f"(outermost first) {order}. The output is allocated densely in that same order"
    )


def _explain_output_stride(tensor: vg.Tensor, dim: int) -> str:
    """Why dim ``dim`` of a new output laid out like ``tensor`` gets its stride."""
    order = _memory_order(tensor)
    inner = order[order.index(dim) + 1 :]  # the dims laid out inside dim, densely
    if not inner:
        return (f"{_explain_output_layout(tensor)}; dim {dim} is the innermost, so its "
                "elements are neighbours: stride 1")  # fmt: skip
    sizes = [tensor.size(d) for d in inner]
    product = " × ".join(map(str, sizes))
    stride = 1
    for size in sizes:
        stride *= size
    names = ", ".join(f"dim {d} (size {tensor.size(d)})" for d in inner)
    skips = f"{product} = {stride}" if len(sizes) > 1 else f"{stride}"
    return (f"{_explain_output_layout(tensor)}; inside dim {dim} lie {names}, so one step "
            f"along dim {dim} skips {skips} elements")  # fmt: skip


@exercise(
    "04.output_strides",
    "p = vg.zeros(2, 3, 4).permute(2, 0, 1) has shape (4, 2, 3) and strides (1, 12, 4). "
    "What is (p * 2).stride()?",
    hints=(
        "A new output is not always contiguous: the TensorIterator lays it out the way its "
        "inputs are laid out in memory.",
        "Order p's dims by stride, largest first: that is their order in memory.",
        "Give the output dense strides in that order: the dim with the smallest input "
        "stride gets stride 1, the next gets the size of that dim, and so on.",
    ),
    solution="""
answer = (1, 12, 4)
check("04.output_strides", answer)
""",
    explanation="a new output is laid out in its input's memory order: p is dense, so p * 2 "
    "gets p's very strides, and the kernel walks input and output together in storage order. "
    "PyTorch calls this preserving the memory format.",
)
def _output_strides(answer):
    stride = as_int_tuple(answer, "the stride")
    p = _permuted_input()
    expected = tuple((p * 2).stride())
    if stride == expected:
        return
    if stride == contiguous_strides(tuple(p.shape)):
        raise Wrong(
            f"{stride} is the row-major (contiguous) layout of shape {tuple(p.shape)}, which "
            "a fresh vg.empty would get; but an operator's output follows its input: "
            + _explain_output_layout(p)
            + "."
        )
    if len(stride) != len(expected):
        raise Wrong(f"the output has {len(expected)} dims; your stride has {len(stride)} entries")
    require_all(
        Part(f"element {d} ({stride[d]})",
             None if stride[d] == expected[d] else _explain_output_stride(p, d) + ".")
        for d in range(len(expected))
    )  # fmt: skip

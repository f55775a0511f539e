"""Lesson 1, *What a tensor is*: the checkers of its exercises.

A tensor is data plus metadata: a storage (one flat buffer of elements) read through
a size, a stride, a storage offset, a dtype, a device and a layout. These exercises
ask what that metadata is and which tensors share one storage. Every expected answer
is computed by running vizgrad, never written down by hand, so the checkers cannot
disagree with the engine the student is watching.
"""

from __future__ import annotations

import vizgrad as vg

from .exercise import Part, Wrong, exercise, require_all

__all__ = ["as_name_set", "dtype_name", "shares_storage"]


# --- helpers shared by the checkers -------------------------------------------------


def dtype_name(value) -> str | None:
    """The canonical name of a dtype answer (``"int64"``), or None if it names none.

    Accepts a vizgrad dtype, a torch dtype, or a string such as ``"int64"``,
    ``"torch.long"`` or ``"vizgrad.float32"``; aliases (long, float, double…) resolve
    through vizgrad's own names, as in PyTorch (``torch.long is torch.int64``).
    """
    if isinstance(value, vg.dtype):
        return value.name
    if isinstance(value, type):  # a Python type such as int: not a dtype
        return None
    text = str(value).strip()
    for prefix in ("torch.", "vizgrad.", "vg."):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    resolved = getattr(vg, text, None)
    return resolved.name if isinstance(resolved, vg.dtype) else None


def shares_storage(a: vg.Tensor, b: vg.Tensor) -> bool:
    """Do ``a`` and ``b`` read the same storage? (PyTorch: compare ``untyped_storage().data_ptr()``.)"""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _as_sequence(answer, length: int, what: str) -> list:
    if isinstance(answer, (str, bytes)) or not hasattr(answer, "__len__"):
        raise Wrong(f"Expected {what}: a tuple of {length} values, got {answer!r}")
    if len(answer) != length:
        raise Wrong(f"Expected {what}: {length} values, but your answer has {len(answer)}")
    return list(answer)


def as_name_set(answer, allowed, what: str) -> set:
    """A set-of-names answer (a set, list or tuple of strings) as a set, checked."""
    if isinstance(answer, str):
        answer = {answer}
    try:
        names = set(answer)
    except TypeError:
        raise Wrong(
            f"expected {what}, as a set of names like {{'p', 'r'}}; got {answer!r}"
        ) from None
    unknown = sorted(str(n) for n in names - set(allowed))
    if unknown:
        raise Wrong(f"{', '.join(unknown)}: not one of the names {', '.join(sorted(allowed))}")
    return names


# --- 01.literal_dtypes: what dtype does a Python list become? ------------------------

LITERALS = (
    ("vg.tensor([1, 2, 3])", [1, 2, 3]),
    ("vg.tensor([1.0, 2.0])", [1.0, 2.0]),
    ("vg.tensor([True, False])", [True, False]),
)


def _why_dtype(values, dtype: vg.dtype) -> str:
    """Why the engine picked ``dtype`` for a list of these Python values."""
    if dtype.is_floating_point and dtype == vg.get_default_dtype():
        return (f"Python floats become the default dtype, vg.get_default_dtype() = {dtype.name} "
                "(as in PyTorch; NumPy would pick float64)")  # fmt: skip
    if dtype == vg.bool:
        return "Python bools become bool, a dtype of its own (1 byte per element)"
    if dtype == vg.int64:
        return ("Python ints become int64 (PyTorch's Long): a Python int has no fixed width, "
                "so the widest integer dtype is used")  # fmt: skip
    return f"the engine infers {dtype.name} from {values!r}"


@exercise(
    "01.literal_dtypes",
    "Which dtype does each tensor get? vg.tensor([1, 2, 3]), vg.tensor([1.0, 2.0]), "
    "vg.tensor([True, False]). Answer a tuple of three dtypes (vg.int64, vg.float32, …).",
    hints=(
        "The dtype is inferred from the Python values in the list: ints, floats or bools.",
        "Floats do not become float64 as in NumPy: they become vg.get_default_dtype().",
        "Integers become the widest integer dtype, PyTorch's Long.",
    ),
    solution="""
answer = (vg.int64, vg.float32, vg.bool)
check("01.literal_dtypes", answer)
""",
    explanation="ints → int64 (Long), floats → the default dtype float32, bools → bool: "
    "the dtype is part of the tensor's metadata, fixed when the tensor is made.",
)
def _literal_dtypes(answer):
    answers = _as_sequence(answer, len(LITERALS), "three dtypes")
    parts = []
    for (code, values), given in zip(LITERALS, answers, strict=True):
        expected = vg.tensor(values).dtype
        name = dtype_name(given)
        label = f"{code} → {name or repr(given)}"
        if name == expected.name:
            parts.append(Part(label))
        elif isinstance(given, type):
            parts.append(Part(label, "that is a Python type, not a dtype: give the tensor's "
                                     "dtype, e.g. vg.int64."))  # fmt: skip
        elif name is None:
            parts.append(Part(label, "not a dtype: write one as vg.int64 (or 'int64')."))
        else:
            parts.append(Part(label, f"{_why_dtype(values, expected)}."))
    require_all(parts)


# --- 01.offset_and_storage: a slice's offset and the storage it reads -----------------


def _sliced():
    a = vg.arange(10)
    return a, a[3:7]


@exercise(
    "01.offset_and_storage",
    "a = vg.arange(10); b = a[3:7]. What is b.storage_offset(), and how many elements "
    "does the storage behind b hold? Answer a tuple (offset, storage elements).",
    hints=(
        "The offset counts storage elements from the start of the storage to b[0].",
        "Slicing copies nothing: which storage does b read?",
        "b reads a's storage; how many elements did vg.arange(10) allocate?",
    ),
    solution="""
answer = (3, 10)
check("01.offset_and_storage", answer)
""",
    explanation="b[0] is a[3], so b starts 3 elements into the storage; and b has no "
    "storage of its own: it reads all 10 elements of a's (b.untyped_storage().nbytes() is 80).",
)
def _offset_and_storage(answer):
    offset, storage_elements = _as_sequence(answer, 2, "(offset, storage elements)")
    a, b = _sliced()
    offset_part = Part(f"offset {offset!r}")
    if offset != b.storage_offset():
        if offset == 0:
            offset_part = Part(f"offset {offset!r}", "b[0] is not the first element of the "
                                                     "storage: it is a[3].")  # fmt: skip
        else:
            offset_part = Part(f"offset {offset!r}", "the offset is the storage position of "
                               "b[0], which is a[3], counted in elements from the storage's "
                               "start.")  # fmt: skip
    storage_part = Part(f"storage of {storage_elements!r} elements")
    if storage_elements != b.untyped_storage().numel:
        if storage_elements == b.numel():
            storage_part = Part(storage_part.label, f"{b.numel()} is b.numel(), the elements b "
                                "shows. But slicing allocates nothing: b reads a's whole "
                                "storage.")  # fmt: skip
        else:
            storage_part = Part(storage_part.label, "b reads the storage vg.arange(10) "
                                                    "allocated: how many elements is that?")  # fmt: skip
    require_all([offset_part, storage_part])


# --- 01.write_through_view: a[2:] changes a ------------------------------------------


def _after_write() -> list:
    a = vg.arange(6)
    b = a[2:]
    b.mul_(10)
    return a.tolist()


@exercise(
    "01.write_through_view",
    "a = vg.arange(6); b = a[2:]; b.mul_(10). What is a.tolist() now?",
    hints=(
        "b.mul_(10) writes into the storage b reads. Whose storage is that?",
        "b starts at storage offset 2: which elements of a does b cover?",
    ),
    solution="""
answer = [0, 1, 20, 30, 40, 50]
check("01.write_through_view", answer)
""",
    explanation="b is a view: it reads a's storage from offset 2. Writing through b writes "
    "into that storage, so a sees the change at positions 2 to 5 and nowhere else.",
)
def _write_through_view(answer):
    expected = _after_write()
    if not isinstance(answer, (list, tuple)) and hasattr(answer, "tolist"):
        answer = answer.tolist()  # a tensor is a fine answer too
    if isinstance(answer, (list, tuple)) and list(answer) == expected[2:]:
        raise Wrong("those are b's values; the question asks for a, which still has all "
                    f"{len(expected)} elements, b's included.")  # fmt: skip
    answer = _as_sequence(answer, len(expected), f"a's {len(expected)} values")
    if answer == list(range(len(expected))):
        raise Wrong("a did change: b = a[2:] is not a copy, it reads a's storage, so "
                    "b.mul_(10) writes into a's elements too.")  # fmt: skip
    if answer == [10 * v for v in range(len(expected))]:
        raise Wrong("not every element changed: b starts at storage offset 2, so a[0] and "
                    "a[1] are not part of b.")  # fmt: skip
    offset = vg.arange(len(expected))[2:].storage_offset()  # where b = a[2:] starts
    parts = []
    for i, (got, want) in enumerate(zip(answer, expected, strict=True)):
        if got == want:
            parts.append(Part(f"a[{i}] = {got!r}"))
        elif i < offset:
            parts.append(Part(f"a[{i}] = {got!r}", f"a[{i}] comes before b's first element "
                              f"(b = a[2:] starts at storage offset {offset}), so b.mul_(10) "
                              "never writes it."))  # fmt: skip
        else:
            parts.append(Part(f"a[{i}] = {got!r}", f"a[{i}] is b[{i - offset}], the same storage "
                              "element: b.mul_(10) multiplied it by 10 and a reads the "
                              "result."))  # fmt: skip
    require_all(parts)


# --- 01.who_shares: which results read a's storage? ----------------------------------

# name -> (code, how to build it from a, why it shares a's storage or why it cannot)
CANDIDATES = {
    "p": ("a[2:]", lambda a: a[2:], "slicing only moves the offset"),
    "q": ("a.clone()", lambda a: a.clone(), "clone() copies the elements into a new storage"),
    "r": ("a.view(2, 3)", lambda a: a.view(2, 3), "view() only changes size and stride"),
    "s": ("a + 0", lambda a: a + 0, "an operator like + writes its result into a new storage"),
    "u": ("a[::2]", lambda a: a[::2], "a step only changes the stride (to 2)"),
    "v": ("a.to(vg.float64)", lambda a: a.to(vg.float64),
          "a float64 element needs 8 bytes: converting allocates a new storage"),
}  # fmt: skip


def _sharing_names() -> set:
    a = vg.arange(6.0)
    return {name for name, (_, build, _) in CANDIDATES.items() if shares_storage(build(a), a)}


@exercise(
    "01.who_shares",
    "a = vg.arange(6.0). Which of p = a[2:], q = a.clone(), r = a.view(2, 3), s = a + 0, "
    "u = a[::2], v = a.to(vg.float64) share a's storage? Answer a set of names.",
    hints=(
        "Run the cell above and compare x.untyped_storage().data_ptr() with a's.",
        "A view changes only metadata (size, stride, offset); anything that computes new "
        "values or a new dtype needs a new storage.",
    ),
    solution="""
answer = {"p", "r", "u"}
check("01.who_shares", answer)
""",
    explanation="a[2:], a.view(2, 3) and a[::2] are views: new size, stride or offset over "
    "a's storage. clone(), a + 0 and a.to(float64) produce new values in a new storage.",
)
def _who_shares(answer):
    names = as_name_set(answer, CANDIDATES, "the names of the tensors that share a's storage")
    expected = _sharing_names()
    parts = []
    for name, (code, _, why) in CANDIDATES.items():
        said = "shares a's storage" if name in names else "has a storage of its own"
        if (name in names) == (name in expected):
            parts.append(Part(f"{name} = {code} {said}"))
        elif name in expected:
            parts.append(Part(f"{name} = {code} {said}", f"no, it shares a's storage: {why}."))
        else:
            parts.append(Part(f"{name} = {code} {said}", f"no, it has a storage of its own: "
                                                         f"{why}."))  # fmt: skip
    require_all(parts)

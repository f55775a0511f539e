"""Lesson 5, *Dispatch*: the checkers of its exercises.

An operator call reaches its kernel in two dispatches: first on the tensor's device
and layout (a *dispatch key*: ``CPU`` for a strided CPU tensor), then, inside the
kernel, on its dtype (a switch, PyTorch's ``AT_DISPATCH_ALL_TYPES``). Above the
backend sit ``AutogradCPU`` (records the ``grad_fn``) and ``ADInplaceOrView``
(version bumps and view bookkeeping). Each operator comes in variants — functional
``abs``, in-place ``abs_``, ``abs.out`` — that take different paths through those keys.

The expected answers are computed by running the calls under
``vizgrad.dispatch_trace()``, so they are what the dispatcher really did.
"""

from __future__ import annotations

import vizgrad as vg
from vizgrad import events

from .exercise import Part, Wrong, exercise, require_all
from .lesson04 import as_dtype, explain_promotion

__all__ = [
    "KEY_ROLES",
    "keys_visited",
    "overloads_called",
    "versions_after",
    "kernel_dtypes",
    "meta_strides",
]

KEY_ROLES = {
    "AutogradCPU": "autograd, first, so that it can wrap the whole call and record a grad_fn",
    "ADInplaceOrView": "bumps the version counter of what an in-place or out= call writes "
    "(and links views to their base); functional ops fall through it",
    "CPU": "the backend for a strided CPU tensor, chosen by device and layout: the kernel",
}


def _trace(call):
    """Run ``call()`` and return its dispatch trace (``vizgrad.dispatch_trace``)."""
    with vg.dispatch_trace() as trace:
        call()
    return trace


def _fresh():
    return vg.tensor([-1.5, 2.0, -3.0])


# --- 05.abs_overloads: three variants, three operators --------------------------------

ABS_CALLS = ("vg.abs(x)", "x.abs_()", "vg.abs(x, out=o)")


def overloads_called() -> tuple[str, ...]:
    """The operator each call of ``ABS_CALLS`` enters the dispatcher with (``aten::…``)."""
    names = []
    for source in ABS_CALLS:
        namespace = {"vg": vg, "x": _fresh(), "o": vg.empty(3)}
        trace = _trace(lambda source=source, ns=namespace: eval(source, ns))  # noqa: S307
        names.append(trace.ops[-1])
    return tuple(names)


def _operator_name(text) -> str:
    text = str(text).strip()
    return text if text.startswith("aten::") else f"aten::{text}"


def _explain_overload(call: str, given: str, expected: str) -> str:
    if expected.endswith(".out"):
        if given in ("aten::abs_out", "aten::abs"):
            return (
                f"{call} calls {expected}: in the schema language of native_functions.yaml "
                "an overload is written name.overload, and the out= variant is the overload "
                "'out' of abs (abs_out is the name of its C++ kernel function)"
            )
        return f"{call} calls {expected}, the out= overload of abs"
    if expected.endswith("_"):
        return (
            f"{call} calls {expected}: an in-place op is an operator of its own, named with a "
            "trailing underscore (abs_), not an overload of abs"
        )
    return f"{call} calls {expected}, the plain functional operator (no overload name)"


@exercise(
    "05.abs_overloads",
    "Which operator does each call enter the dispatcher with: vg.abs(x), x.abs_(), "
    "vg.abs(x, out=o)? Answer three names such as 'aten::add.Tensor' (the aten:: may be left out).",
    hints=(
        "Run the three calls inside `with vg.dispatch_trace() as trace:` and read the op=[…] "
        "of each [call] line.",
        "The in-place variant is its own operator, with a trailing underscore.",
        "native_functions.yaml writes an overload as name.overload: out= is the overload 'out'.",
    ),
    solution="""
answer = ("aten::abs", "aten::abs_", "aten::abs.out")
check("05.abs_overloads", answer)
""",
    explanation="one function, three operators: abs (allocates its result), abs_ (writes x) "
    "and abs.out (writes o). In PyTorch abs.out does the work and the other two are thin "
    "wrappers around it — registering all three is how an operator is written.",
)
def _abs_overloads(answer):
    expected = overloads_called()
    if isinstance(answer, str) or not hasattr(answer, "__len__") or len(answer) != 3:
        raise Wrong("give a tuple of three operator names, one per call, like ('aten::abs', …)")
    parts = []
    for call, given, want in zip(ABS_CALLS, answer, expected, strict=True):
        name = _operator_name(given)
        label = f"{call} → {name}"
        parts.append(
            Part(label, None if name == want else _explain_overload(call, name, want) + ".")
        )
    require_all(parts)


# --- 05.inplace_keys: the keys x.abs_() visits ---------------------------------------


def keys_visited(call) -> list[str]:
    """The dispatch keys the outermost operator of ``call()`` visits, in order."""
    trace = _trace(call)
    first = trace.steps[0]
    keys = [first.key]
    for step in trace.steps[1:]:
        if step.depth == 0:
            break
        if step.op == first.op and step.depth == len(keys):
            keys.append(step.key)
    return keys


@exercise(
    "05.inplace_keys",
    "Which dispatch keys does x.abs_() visit, in order? Answer a list of key names.",
    hints=(
        "There are three keys in vizgrad: AutogradCPU, ADInplaceOrView and CPU. Which ones "
        "does an in-place call need?",
        "The dispatcher starts at the key of highest priority and walks down; the backend "
        "kernel comes last.",
        "ADInplaceOrView is a fall-through for functional ops — but abs_ writes x, and "
        "someone must bump x._version.",
    ),
    solution="""
answer = ["AutogradCPU", "ADInplaceOrView", "CPU"]
check("05.inplace_keys", answer)
""",
    explanation="AutogradCPU wraps the call (it would record AbsBackward0 if x required grad), "
    "ADInplaceOrView bumps x's version counter because abs_ writes x, and CPU runs the "
    "kernel, which then picks its dtype loop: the second dispatch.",
)
def _inplace_keys(answer):
    x = _fresh()
    expected = keys_visited(x.abs_)
    if isinstance(answer, str) or not hasattr(answer, "__iter__"):
        raise Wrong("give the keys as a list of names, like ['AutogradCPU', …]")
    given = [str(key).strip() for key in answer]
    unknown = [key for key in given if key not in KEY_ROLES]
    if unknown:
        extra = ""
        if any(key.lower() == "autograd" for key in unknown):
            extra = " (the autograd key is per backend: AutogradCPU for a CPU tensor)"
        raise Wrong(
            f"{', '.join(map(repr, unknown))}: not a key a CPU tensor visits{extra}; the keys "
            f"are {', '.join(KEY_ROLES)}"
        )
    missing = [key for key in expected if key not in given]
    if missing:
        raise Wrong("missing " + "; ".join(f"{key}: {KEY_ROLES[key]}" for key in missing))
    if given != expected:
        if sorted(set(given)) == sorted(given) and set(given) == set(expected):
            raise Wrong(
                f"the right keys, in the wrong order: the dispatcher walks them from the "
                f"highest priority down, {' → '.join(expected)} — autograd first so that it "
                "wraps everything below it, the backend kernel last"
            )
        raise Wrong(f"each key is visited once, in the order {' → '.join(expected)}")


# --- 05.versions: who gets written? ------------------------------------------------------

VERSIONS_CODE = """\
x = vg.tensor([-1.5, 2.0, -3.0])
o = vg.empty(3)
y = vg.abs(x)
x.abs_()
vg.abs(y, out=o)
x.abs_()
"""


def versions_after() -> tuple[int, int, int]:
    """``(x._version, y._version, o._version)`` after running ``VERSIONS_CODE``."""
    namespace = {"vg": vg}
    exec(VERSIONS_CODE, namespace)  # noqa: S102 - our own constant source
    return tuple(namespace[name]._version for name in ("x", "y", "o"))


_VERSION_WHY = {
    "x": "x is written in place twice (x.abs_() bumps it each time)",
    "y": "y is the fresh result of the functional vg.abs(x): it is only read afterwards "
    "(as the input of the out= call), and reading does not bump a version",
    "o": "o is written once, by the out= call; creating it with vg.empty does not count",
}


@exercise(
    "05.versions",
    "After the cell's code, what are (x._version, y._version, o._version)?",
    hints=(
        "A version counter counts writes into a tensor, made by in-place and out= calls.",
        "The ADInplaceOrView key bumps the version of the tensor a call writes: the first "
        "argument of an in-place op, the out= argument of an out= op.",
        "Functional calls create a new tensor at version 0 and never write their inputs.",
    ),
    solution="""
answer = (2, 0, 1)
check("05.versions", answer)
""",
    explanation="only writes count: two in-place calls on x, one out= call into o, none into y. "
    "Autograd uses these counters to notice that a tensor it saved was overwritten (lesson 9).",
)
def _versions(answer):
    expected = versions_after()
    if isinstance(answer, str) or not hasattr(answer, "__len__") or len(answer) != 3:
        raise Wrong("give three ints: (x._version, y._version, o._version)")
    require_all(
        Part(f"{name}._version = {given!r}",
             None if given == want else f"it is {want}: {_VERSION_WHY[name]}.")
        for name, given, want in zip("xyo", answer, expected, strict=True)
    )  # fmt: skip


# --- 05.dtype_kernel: the second dispatch picks the loop of the common dtype -------------

KERNEL_CALLS = (
    "vg.tensor([1, 2], dtype=vg.int8) + 0.5",
    "vg.tensor([1, 2], dtype=vg.int8) + vg.tensor([300], dtype=vg.int16)",
)


def kernel_dtypes() -> tuple[vg.dtype, ...]:
    """The dtype loop the CPU kernel of each of ``KERNEL_CALLS`` ran (its ``KernelChosen`` event)."""
    chosen = []
    for source in KERNEL_CALLS:
        trace = _trace(lambda source=source: eval(source, {"vg": vg}))  # noqa: S307
        kernels = [e for e in trace.events if isinstance(e, events.KernelChosen)]
        chosen.append(getattr(vg, kernels[-1].dtype))
    return tuple(chosen)


@exercise(
    "05.dtype_kernel",
    "Which dtype loop does the CPU kernel of add run for each of the two calls? Answer two dtypes.",
    hints=(
        "The dtype dispatch happens inside the kernel, after the TensorIterator of lesson 4 "
        "has computed the common dtype.",
        "The loop runs in the common dtype, not in the dtype of the first input.",
        "A Python float raises an integer tensor to the default float dtype; two "
        "dimensioned integer tensors promote to the wider one.",
    ),
    solution="""
answer = (vg.float32, vg.int16)
check("05.dtype_kernel", answer)
""",
    explanation="the second dispatch switches on the common dtype the iterator computed "
    "(float32, then int16): inputs of other dtypes are cast on the way into the loop, so "
    "one loop per dtype is enough.",
)
def _dtype_kernel(answer):
    expected = kernel_dtypes()
    if isinstance(answer, str) or not hasattr(answer, "__len__") or len(answer) != 2:
        raise Wrong("give two dtypes, one per call, like (vg.int8, vg.int8)")
    parts = []
    for number, (call, given, want) in enumerate(
        zip(KERNEL_CALLS, answer, expected, strict=True), 1
    ):
        dtype = as_dtype(given)
        label = f"{number}. {call} → {dtype.name if dtype else repr(given)}"
        if dtype is None:
            parts.append(Part(label, f"{given!r} is not a dtype (write e.g. vg.float32)."))
        elif dtype is not want:
            left, right = (eval(side, {"vg": vg}) for side in call.split(" + "))  # noqa: S307
            why = explain_promotion(left, right)
            if dtype is vg.int8:
                why = f"int8 is an input's dtype, but the loop runs in the common dtype — {why}"
            parts.append(Part(label, f"it runs the {want.name} loop, not {dtype.name}: {why}."))
        else:
            parts.append(Part(label))
    require_all(parts)


# --- 05.dtype_error: make the dtype dispatch fail ---------------------------------------


@exercise(
    "05.dtype_error",
    "Write a function of no arguments that calls vg.abs so that the call gets past the "
    "argument checks and the device dispatch, and fails in the dtype dispatch "
    '(NotImplementedError: "abs_cpu" not implemented for …).',
    hints=(
        "The dtype switch only has cases for the dtypes the kernel supports; the others "
        "raise NotImplementedError.",
        "abs is defined for integers, floats and complex numbers. Which dtype is left?",
        "A tensor of booleans: vg.tensor([True, False]).",
    ),
    solution="""
answer = lambda: vg.abs(vg.tensor([True, False]))
check("05.dtype_error", answer)
""",
    explanation="abs_cpu's dtype switch has no bool case, so the call passes AutogradCPU and "
    "reaches the CPU kernel, whose dtype dispatch raises NotImplementedError. A wrong "
    "argument type (a list instead of a tensor) would have failed earlier, with a TypeError, "
    "before any dispatch.",
)
def _dtype_error(answer):
    if not callable(answer):
        raise Wrong("give a function, e.g. answer = lambda: vg.abs(...)")
    error = None
    with vg.dispatch_trace() as trace:
        try:
            answer()
        except Exception as caught:  # noqa: BLE001 - we explain whatever the call raised
            error = caught
    abs_keys = [s.key for s in trace.steps if s.op.startswith("aten::abs")]
    if not abs_keys and not isinstance(error, TypeError):
        raise Wrong("your function did not call vg.abs (the trace shows no aten::abs call)")
    if error is None:
        raise Wrong(
            "your call returned a result: the kernel has a loop for that dtype. Find a dtype "
            "abs is not defined for"
        )
    if isinstance(error, TypeError):
        raise Wrong(
            f"TypeError: {error} — that error comes from checking the arguments, before any "
            "dispatch; pass a tensor, of a dtype the kernel has no loop for"
        )
    if not isinstance(error, NotImplementedError):
        raise Wrong(
            f"{type(error).__name__}: {error} — not the dtype dispatch's NotImplementedError"
        )
    if "CPU" not in abs_keys:
        raise Wrong("that NotImplementedError did not come from the CPU kernel of abs")


# --- 05.meta_strides: the Meta backend computes layouts, not numbers ----------------------

META_SETUP = """\
a = vg.empty(2, 3, 4, device="meta").permute(2, 0, 1)  # shape (4, 2, 3), strides (1, 12, 4)
b = vg.empty(4, 2, 3, device="meta")                   # shape (4, 2, 3), strides (6, 3, 1)
"""

META_CALLS = ("a + 1", "a + b", "b + a")


def meta_strides() -> tuple[tuple[int, ...], ...]:
    """The strides of each of ``META_CALLS``' results, computed on the meta device."""
    namespace = {"vg": vg}
    exec(META_SETUP, namespace)  # noqa: S102 - our own constant source
    return tuple(eval(call, namespace).stride() for call in META_CALLS)  # noqa: S307


@exercise(
    "05.meta_strides",
    "a and b are meta tensors: shapes and strides, no data. What are the strides of "
    "a + 1, a + b and b + a? Answer three tuples.",
    hints=(
        "A meta tensor goes to the Meta backend, which runs the same TensorIterator set-up "
        "as the CPU kernel (lesson 4) and skips the loop: the output's layout is the CPU's.",
        "The output is laid out like the inputs, not row-major: a is a permuted tensor, so "
        "a + 1 is laid out as a is.",
        "When the inputs disagree, the first input with a layout of its own decides.",
    ),
    solution="""
answer = ((1, 12, 4), (1, 12, 4), (6, 3, 1))
check("05.meta_strides", answer)
""",
    explanation="the Meta backend computes what the CPU kernel would allocate — shape, dtype and "
    "strides — without touching any data: TensorIterator lays the output out like its inputs, "
    "the first input deciding where they disagree. That is how PyTorch finds the shapes of a "
    "model too big to allocate (torch.device('meta')), and why meta and CPU layouts never differ.",
)
def _meta_strides(answer):
    expected = meta_strides()
    if isinstance(answer, str) or not hasattr(answer, "__len__") or len(answer) != 3:
        raise Wrong("give three tuples of strides, one per call, like ((6, 3, 1), …)")
    parts = []
    for call, given, want in zip(META_CALLS, answer, expected, strict=True):
        given = tuple(given) if hasattr(given, "__iter__") else given
        label = f"{call} → {given}"
        if given == want:
            parts.append(Part(label))
        elif given == (6, 3, 1):
            parts.append(Part(label, f"it is {want}: the output is laid out like its inputs, "
                                     "not row-major — a's permuted layout is kept."))  # fmt: skip
        elif given == (1, 12, 4):
            parts.append(Part(label, f"it is {want}: where the inputs disagree, the first "
                                     "one decides, and here that is b, row-major."))  # fmt: skip
        else:
            parts.append(Part(label, f"it is {want}; run the call and read .stride()."))
    require_all(parts)

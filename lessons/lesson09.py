"""Lesson 9 — in-place operations and version counters.

Every expected answer comes from running vizgrad: the versions are read from the tensors
after the notebook's own lines, "does backward break?" is answered by running backward,
and the name and gradients of a write through a view by building them.
"""

from __future__ import annotations

import numpy as np

import vizgrad as vg
from vizgrad import events

from .exercise import Part, Wrong, exercise, require_all
from .lesson06 import node_name
from .lesson07 import numbers_of

__all__ = ["version_steps", "CANDIDATES", "breaks_backward", "saved_names", "copy_slices_example"]


# --- exercise 1: version counters ------------------------------------------------------


def version_steps() -> tuple[dict, list]:
    """The notebook's lines, run one by one; returns the tensors and x's version after each."""
    log = []
    x = vg.zeros(4)
    x.add_(1)
    log.append(("x.add_(1)", x._version))
    v = x[1:3]
    log.append(("v = x[1:3]", x._version))
    v.mul_(2)
    log.append(("v.mul_(2)", x._version))
    x[0] = 5
    log.append(("x[0] = 5", x._version))
    y = x + 1
    log.append(("y = x + 1", x._version))
    x.zero_()
    log.append(("x.zero_()", x._version))
    return {"x": x, "v": v, "y": y}, log


@exercise(
    "09.versions",
    "After the six lines, what are x._version, v._version and y._version? Answer with a "
    "tuple of three ints.",
    hints=(
        "Every in-place write bumps the version counter of the tensor written to. Creating a "
        "view or computing a new tensor writes nothing.",
        "A view shares its base's version counter: a write through v bumps x's counter too. "
        "x[0] = 5 is an in-place write (a copy into the view x[0]).",
        "Count the writes: add_, mul_ (through v), x[0] = 5, zero_. y is a new tensor.",
    ),
    solution="""
answer = (4, 4, 0)
check("09.versions", answer)
""",
    explanation="x and its view v share one counter, bumped by each of the four in-place "
    "writes; y = x + 1 is a new tensor with a counter of its own.",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != 3:
        raise Wrong("answer with a tuple of three ints: (x._version, v._version, y._version).")
    tensors, log = version_steps()
    steps = ", ".join(f"{line} -> {version}" for line, version in log)
    why = {
        "x": "every in-place write to x's storage, through x or a view, bumps it; "
        f"x._version after each line: {steps}",
        "v": "v is a view of x: views share their base's version counter, so v sees every "
        "write to x too (and x sees v's)",
        "y": "y = x + 1 is out of place: a new tensor with a counter of its own, which later "
        "writes to x do not touch",
    }
    parts = []
    for name, got in zip("xvy", answer, strict=True):
        expected = tensors[name]._version
        mistake = None if got == expected else f"it is {expected}: {why[name]}."
        parts.append(Part(f"{name}._version = {got!r}", mistake))
    require_all(parts)


# --- exercise 2: an in-place update of a leaf ------------------------------------------


LEAF_UPDATE_VALUES = [0.5, -1.0, 2.0]

_WHY_NO_GRAD = (
    "Under no_grad() nothing is recorded, so changing the leaf in place is allowed: w keeps "
    "its identity (and storage), its version goes up, and it still requires grad. Optimizers "
    "update their parameters this way in step()."
)
_WHY_DETACH = (
    "w.detach() is a second tensor over w's storage that autograd does not track, so writing "
    "into it is allowed even while autograd records, and w sees the zeros. It shares w's "
    "version counter, so w's version went up: a graph that saved w would notice the write. "
    "Optimizers use no_grad() instead (it also keeps the update itself out of any graph); "
    "either way w stays the same leaf that requires grad."
)
_WHY_TOGGLED = (
    "w was written in place while it did not require grad, then made to require it again: "
    "that works (the version went up and w is the same leaf), but no_grad() says the same "
    "in one line, and cannot forget to switch requires_grad back on."
)


def leaf_update_writes(update) -> tuple:
    """Run ``update(w)`` on a fresh leaf ``w`` and watch its in-place writes.

    Returns ``(w, what update returned, writes)``; each write is ``(written is w, grad mode
    was on)``, read from the engine's ``InplaceWrite`` events as they are emitted, so the
    checker knows *how* the student wrote w: through w itself under no_grad, or through
    another tensor over w's storage (``w.detach()``).
    """
    w = vg.tensor(LEAF_UPDATE_VALUES, requires_grad=True)
    writes = []

    def on_write(event):
        writes.append((event.tensor == events.event_id(w), vg.is_grad_enabled()))

    events.subscribe(on_write, kinds={"inplace_write"})
    try:
        result = update(w)
    finally:
        events.unsubscribe(on_write)
    return w, result, writes


@exercise(
    "09.leaf_update",
    "Write reset(w): set every element of the leaf w to 0 in place, so that w stays the same "
    "leaf that requires grad and autograd sees the write (its version goes up), as an "
    "optimizer step does. Answer with the function; the checker runs it on a fresh leaf.",
    hints=(
        "w.zero_() alone raises: a leaf that requires grad cannot be changed in place while "
        "autograd is recording.",
        "Switch recording off for the update, as optimizers do.",
        "with vg.no_grad(): w.zero_()",
    ),
    solution="""
def reset(w):
    with vg.no_grad():
        w.zero_()

answer = reset
check("09.leaf_update", answer)
""",
    explanation=_WHY_NO_GRAD,
)
def _(answer):
    if isinstance(answer, vg.Tensor):
        raise Wrong("answer with the function itself (answer = reset, without parentheses): the "
                    "checker runs it on a fresh leaf to see how it writes.")  # fmt: skip
    if not callable(answer):
        raise Wrong(f"answer with a function of w (answer = reset), not a {type(answer).__name__}.")
    try:
        w, result, writes = leaf_update_writes(answer)
    except RuntimeError as error:
        if "leaf Variable that requires grad" in str(error):
            raise Wrong("your function raised: a leaf that requires grad cannot be changed in "
                        "place while autograd is recording (the change would not be in the "
                        "graph). Switch recording off for the update.") from None  # fmt: skip
        raise Wrong(f"your function raised RuntimeError: {error}") from None
    except Exception as error:  # noqa: BLE001 - the student's code may raise anything
        raise Wrong(f"calling your function on a fresh w raised {type(error).__name__}: "
                    f"{error}") from None  # fmt: skip
    if numbers_of(w).any():
        if isinstance(result, vg.Tensor) and result is not w:
            raise Wrong("your function returned a new tensor, but w itself still holds its old "
                        "values: an optimizer holds w, so the zeros must be written into w's "
                        "own storage, in place.")  # fmt: skip
        raise Wrong("not every element of w is 0 after your function ran.")
    if not w.requires_grad:
        raise Wrong("after your function, w no longer requires grad: it must stay a parameter "
                    "that autograd computes gradients for.")  # fmt: skip
    if w._version == 0:
        raise Wrong("w holds zeros, but its version counter did not move: the write went "
                    "through w.data, which shares w's storage but not its version counter. "
                    "Autograd cannot see such a write (a graph that saved w would silently "
                    "use the zeros). Write under no_grad() instead.")  # fmt: skip
    if any(not grad_mode for _, grad_mode in writes):
        return _WHY_NO_GRAD
    if any(wrote_w for wrote_w, _ in writes):
        return _WHY_TOGGLED
    return _WHY_DETACH


# --- exercise 3: which in-place changes break backward ---------------------------------

# name -> (the forward as the notebook shows it, the function)
CANDIDATES = {
    "exp": ("y = x.exp()", lambda x: x.exp()),
    "sin": ("y = x.sin()", lambda x: x.sin()),
    "sigmoid": ("y = x.sigmoid()", lambda x: x.sigmoid()),
    "square": ("y = x ** 2", lambda x: x**2),
    "add": ("y = x + 1", lambda x: x + 1),
    "relu": ("y = x.relu()", lambda x: x.relu()),
}


def saved_names(name: str) -> list[str]:
    """The tensors the node of ``CANDIDATES[name]`` saved: ``result`` (its output) or
    ``self`` (its input), read from the node's ``_saved_*`` attributes as in PyTorch."""
    x = vg.tensor([0.5, 1.0, 2.0], requires_grad=True)
    node = CANDIDATES[name][1](x).grad_fn
    names = [a for a in dir(node) if a.startswith("_saved_")]
    return [a[len("_saved_") :] for a in names if isinstance(getattr(node, a), vg.Tensor)]


def breaks_backward(name: str) -> bool:
    """Run ``y = f(x); y.add_(1); y.sum().backward()``: does the engine refuse?"""
    x = vg.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = CANDIDATES[name][1](x)
    y.add_(1)
    try:
        y.sum().backward()
    except RuntimeError as error:
        if "modified by an inplace operation" in str(error):
            return True
        raise
    return False


@exercise(
    "09.breaks",
    "For which of the candidates does `y.add_(1)` followed by `y.sum().backward()` raise "
    "'modified by an inplace operation'? Answer with a set of names.",
    hints=(
        "Backward breaks only if the node that made y saved y itself (its result) for its formula.",
        "Write down each derivative: is it computed from the input x or from the output y? "
        "d exp(x)/dx = exp(x) = y; d sin(x)/dx = cos(x) needs x.",
        "sigmoid' = y (1 - y) and relu' = (y > 0) are written with the output, too.",
    ),
    solution="""
answer = {"exp", "sigmoid", "relu"}
check("09.breaks", answer)
""",
    explanation="exp, sigmoid and relu save their result (their derivatives are cheapest from "
    "it); sin and x ** 2 save their input x, and x + 1 saves no tensor at all. Changing y "
    "breaks exactly the nodes that saved y.",
)
def _(answer):
    if isinstance(answer, str) or not isinstance(answer, set | frozenset | list | tuple):
        raise Wrong('answer with a set of names, e.g. {"exp"} (or set() for none).')
    unknown = [n for n in answer if n not in CANDIDATES]
    if unknown:
        raise Wrong(f"{', '.join(map(repr, unknown))} is not a candidate; the names are "
                    f"{', '.join(CANDIDATES)}.")  # fmt: skip
    answer = set(answer)
    parts = []
    for name, (forward, _) in CANDIDATES.items():
        label = f"{name} ({forward}) {'breaks' if name in answer else 'does not break'}"
        breaks = breaks_backward(name)
        if breaks == (name in answer):
            parts.append(Part(label))
            continue
        saved = saved_names(name)
        if breaks:
            parts.append(Part(label, f"it does break: its node saved `{', '.join(saved)}`, "
                              "which is y itself, at version 0; y.add_(1) moved y to version "
                              "1, so the saved value is no longer what the formula needs."))  # fmt: skip
        else:
            what = f"saved only {', '.join(saved)} (its input x)" if saved else "saved no tensor"
            parts.append(Part(label, f"it does not break: its node {what}, not the result y; "
                              "changing y leaves everything its formula reads intact."))  # fmt: skip
    require_all(parts)


# --- exercise 4: a write through a view: CopySlices ------------------------------------


def copy_slices_example():
    """``y = x * 2; y[1:3] = 0``: x, y after the write."""
    x = vg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 2
    y[1:3] = 0
    return x, y


@exercise(
    "09.copyslices",
    "x = [1., 2., 3., 4.] requires grad, y = x * 2, then y[1:3] = 0. Predict y.grad_fn's "
    "name and x.grad after y.sum().backward(): a tuple (name, list of 4 numbers).",
    hints=(
        "y[1:3] = 0 writes through a view of y. Autograd must rewrite the history of the base "
        "y: its new grad_fn wraps the write.",
        "The node is named after what it does: it copies the gradient of the slices. "
        "Elements that were overwritten no longer depend on x.",
        "('CopySlices', [2, 0, 0, 2])",
    ),
    solution="""
answer = ("CopySlices", [2.0, 0.0, 0.0, 2.0])
check("09.copyslices", answer)
""",
    explanation="CopySlices passes the gradient of y on to MulBackward0, except in the written "
    "slice, where it runs the write's own node (CopyBackwards: the copied 0 is a constant, so "
    "the old values get gradient 0): x.grad is 2 where y still holds 2 * x, 0 where it holds 0.",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        raise Wrong("answer with a tuple (name, gradient), e.g. ('SomeNode', [1, 1, 1, 1]).")
    name, grad = answer
    x, y = copy_slices_example()
    given_name = node_name(name) if isinstance(name, str) or hasattr(name, "name") else None
    name_part = Part(f"y.grad_fn: {given_name or repr(name)}")
    if given_name != node_name(y.grad_fn):
        if given_name == node_name((x * 2).grad_fn):
            name_part = Part(name_part.label, f"{given_name} was y's grad_fn before the write. "
                             "Writing through the view y[1:3] changed y's values, so autograd "
                             "rewrote y's history with a new node that wraps the write.")  # fmt: skip
        else:
            name_part = Part(name_part.label, "after a write through a view, the base gets a "
                             "node that copies the gradient of the written slices (PyTorch's "
                             "torch/csrc/autograd/functions/tensor.h).")  # fmt: skip
    y.sum().backward()
    expected = numbers_of(x.grad)
    got = numbers_of(grad)
    grad_part = Part(f"x.grad: {got.tolist() if got is not None else repr(grad)}")
    if got is None or got.shape != expected.shape:
        grad_part = Part(grad_part.label, "the gradient has one number per element of x: "
                                          "4 numbers.")  # fmt: skip
    elif np.allclose(got, 2.0):
        grad_part = Part(grad_part.label, "x.grad is not 2 everywhere: y[1] and y[2] were "
                         "overwritten with 0, so they no longer depend on x, and the gradient "
                         "there is 0.")  # fmt: skip
    elif not np.allclose(got, expected):
        wrong = [i for i in range(4) if not np.isclose(got[i], expected[i])]
        grad_part = Part(grad_part.label, f"element(s) {wrong} are off. Where y still holds "
                         "x * 2 the gradient is 2; where the write replaced it, 0.")  # fmt: skip
    require_all([name_part, grad_part])

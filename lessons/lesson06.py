"""Lesson 6, *The autograd graph*: the checkers of its exercises.

While the forward pass runs, the ``AutogradCPU`` key records a graph: each result that
needs a gradient gets a ``grad_fn`` node (``MulBackward0``…), whose ``next_functions``
point to the nodes of its inputs, down to the ``AccumulateGrad`` node of each leaf that
requires grad. Nodes save the tensors their derivative formula needs (``_saved_self``…),
and ``AccumulateGrad`` *adds* into ``.grad``, which is why training loops zero it.

The checkers build the same code in vizgrad and read the graph it recorded.
"""

from __future__ import annotations

import numbers

import numpy as np

import vizgrad as vg

from .exercise import Part, Wrong, exercise, require_all

__all__ = [
    "LEAVES_CODE",
    "CHAIN_CODE",
    "ACCUMULATE_CODE",
    "node_name",
    "first_chain",
    "leaves_of",
]


def node_name(node) -> str | None:
    """The short name of an autograd node (``MulBackward0``, ``AccumulateGrad``), or None.

    ``node`` is a node (``t.grad_fn``, an entry of ``next_functions``), None, or a name in
    any form PyTorch shows one: ``node.name()`` qualifies the nodes written in C++ by hand
    with their namespace (torch prints ``torch::autograd::AccumulateGrad``, vizgrad
    ``vizgrad::autograd::AccumulateGrad``), and a node's repr is
    ``<MulBackward0 object at 0x…>`` (``<torch.autograd.function.ExpBackward object …>`` for
    a custom ``Function``). Every checker that reads a node name (lessons 6
    and 9) goes through here, so all of them accept the same forms.
    """
    if node is None:
        return None
    text = node.name() if callable(getattr(node, "name", None)) else str(node)
    text = text.strip()
    if text.startswith("<"):  # a repr: <MulBackward0 object at 0x...>, maybe with a module path
        text = text[1:].split()[0].rsplit(".", 1)[-1] if text[1:].split() else ""
    return text.rsplit("::", 1)[-1]


def _run(source: str) -> dict:
    namespace = {"vg": vg}
    exec(source, namespace)  # noqa: S102 - the lesson's own constant code
    return namespace


def _names_answer(answer, allowed, what: str) -> set[str]:
    if isinstance(answer, str):
        answer = [n for n in answer.replace(",", " ").split()]
    try:
        names = {str(n).strip() for n in answer}
    except TypeError:
        raise Wrong(f"give {what} as a set of names, like {{'a', 'c'}}; got {answer!r}") from None
    unknown = sorted(names - set(allowed))
    if unknown:
        raise Wrong(f"{', '.join(unknown)}: not one of the tensors {', '.join(sorted(allowed))}")
    return names


# --- 06.leaves: which tensors are leaves? -----------------------------------------------

LEAVES_CODE = """\
a = vg.tensor([1.0, 2.0], requires_grad=True)
b = vg.tensor([3.0, 4.0])
c = a * b
d = b * 2
e = c.sum()
"""
LEAF_NAMES = ("a", "b", "c", "d", "e")


def leaves_of(source: str = LEAVES_CODE, names=LEAF_NAMES) -> set[str]:
    """The names, among ``names``, of the tensors that are leaves after running ``source``."""
    namespace = _run(source)
    return {name for name in names if namespace[name].is_leaf}


def _why_leaf(tensor) -> str:
    """Why ``tensor`` is, or is not, a leaf: about this tensor only."""
    if tensor.grad_fn is not None:
        return (
            "no, it is not a leaf: it was computed from a tensor that requires grad, so "
            f"autograd recorded {node_name(tensor.grad_fn)} as its grad_fn"
        )
    if tensor.requires_grad:
        return (
            "no, it is a leaf: you made it with requires_grad=True; its gradient will be "
            "accumulated into its .grad by an AccumulateGrad node"
        )
    return (
        "no, it is a leaf: no input of the op that made it requires grad, so nothing was "
        "recorded (grad_fn is None, requires_grad False). A tensor is a leaf whenever its "
        "grad_fn is None, however it was computed"
    )


@exercise(
    "06.leaves",
    "Which of the tensors a, b, c, d, e are leaves (t.is_leaf is True)? Answer a set of names.",
    hints=(
        "is_leaf means: grad_fn is None — no node recorded how the tensor was made.",
        "Autograd records a node only when an input of the op requires grad.",
        "b does not require grad: what does that make d = b * 2?",
    ),
    solution="""
answer = {"a", "b", "d"}
check("06.leaves", answer)
""",
    explanation="a leaf is a tensor with no grad_fn: the ones you create (a, b) and the results "
    "of ops whose inputs need no gradient (d). c and e were computed from a, which requires "
    "grad, so they have grad_fns and are not leaves. Only leaves with requires_grad=True "
    "(here a) get a .grad.",
)
def _leaves(answer):
    given = _names_answer(answer, LEAF_NAMES, "the leaves")
    expected = leaves_of()
    namespace = _run(LEAVES_CODE)
    require_all(
        Part(f"{name} {'is a leaf' if name in given else 'is not a leaf'}",
             None if (name in given) == (name in expected) else _why_leaf(namespace[name]) + ".")
        for name in LEAF_NAMES
    )  # fmt: skip


# --- 06.grad_fn_chain: from the loss down to the leaf -------------------------------------

CHAIN_CODE = """\
w = vg.tensor([0.5, -1.0, 2.0], requires_grad=True)
x = vg.tensor([1.0, 2.0, 3.0])
loss = (w * x).exp().mean()
"""


def first_chain(tensor) -> list[str]:
    """Node names from ``tensor.grad_fn``, following the first edge until it ends."""
    names, node = [], tensor.grad_fn
    while node is not None:
        names.append(node_name(node))
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def _chain_answer(answer) -> list[str]:
    if isinstance(answer, str) or not hasattr(answer, "__iter__"):
        raise Wrong("give the node names as a list of strings, like ['SumBackward0', …]")
    return [node_name(a) for a in answer]


@exercise(
    "06.grad_fn_chain",
    "For loss = (w * x).exp().mean(), list the names of the nodes from loss.grad_fn down to "
    "w's node, following the first entry of next_functions each time.",
    hints=(
        "loss.grad_fn is the node of the LAST op of the forward pass.",
        "Each op gets a node named <Op>Backward0; walk the ops backwards.",
        "The chain ends at the node that writes w.grad.",
    ),
    solution="""
answer = ["MeanBackward0", "ExpBackward0", "MulBackward0", "AccumulateGrad"]
check("06.grad_fn_chain", answer)
""",
    explanation="the graph runs backwards: mean was applied last, so its node comes first; "
    "next_functions leads to exp's node, then mul's, and ends at the AccumulateGrad node "
    "that owns w and will write w.grad.",
)
def _grad_fn_chain(answer):
    given = _chain_answer(answer)
    expected = first_chain(_run(CHAIN_CODE)["loss"])
    parts = []
    for position, theirs in enumerate(expected):
        where = f"below {expected[position - 1]} comes" if position else "loss.grad_fn is"
        if position >= len(given):
            why = (", w's node: it writes w.grad, and the chain ends there"
                   if theirs == "AccumulateGrad" else "")  # fmt: skip
            parts.append(Part(f"position {position}: missing",
                              f"the chain is longer: {where} {theirs}{why}."))  # fmt: skip
            continue
        mine = given[position]
        label = f"position {position}: {mine}"
        if mine == theirs:
            parts.append(Part(label))
        elif mine and theirs.startswith(mine):
            parts.append(Part(label, f"the node is called {theirs}: nodes are named after the op "
                              "with 'Backward' and a number (the number tells the op's "
                              "overloads apart)."))  # fmt: skip
        elif mine in expected:
            parts.append(Part(label, f"{mine} is in the chain, but not here: {where} {theirs}. "
                              "The chain lists the ops in reverse: the last op of the forward "
                              "first."))  # fmt: skip
        else:
            parts.append(Part(label, f"{where} {theirs}, not {mine}."))
    if len(given) > len(expected):
        extra = ", ".join(map(str, given[len(expected) :]))
        parts.append(Part(f"after position {len(expected) - 1}: {extra}",
                          f"the chain ends at {expected[-1]}: it has no next_functions, so "
                          "nothing comes after it."))  # fmt: skip
    require_all(parts)


# --- 06.next_functions: one edge per input, None where no gradient flows -----------------


def _mul_next_functions() -> list[str | None]:
    namespace = _run(CHAIN_CODE)
    product = namespace["w"] * namespace["x"]
    return [node_name(node) for node, _ in product.grad_fn.next_functions]


@exercise(
    "06.next_functions",
    "With w (requires_grad=True) and x (not), what does (w * x).grad_fn.next_functions hold? "
    "Answer the node names in order, with None for an empty slot.",
    hints=(
        "next_functions has one entry per input of the op: here two, for w and for x.",
        "An input that is a leaf requiring grad is represented by its AccumulateGrad node.",
        "x needs no gradient: its slot is kept, but it holds no node.",
    ),
    solution="""
answer = ("AccumulateGrad", None)
check("06.next_functions", answer)
""",
    explanation="one edge per input, in argument order: w's gradient goes to its "
    "AccumulateGrad node; x's slot is (None, 0), so the backward of mul does not even "
    "compute a gradient for x.",
)
def _next_functions(answer):
    if isinstance(answer, str) or not hasattr(answer, "__len__"):
        raise Wrong("give a tuple with one entry per input, e.g. ('SomeBackward0', None)")
    given = [
        a[0] if isinstance(a, tuple) and len(a) == 2 else a for a in answer
    ]  # accept next_functions itself: ((node, input_nr), …)
    given = [node_name(a) for a in given]
    given = [None if a == "None" else a for a in given]
    expected = _mul_next_functions()
    if len(given) != len(expected):
        raise Wrong(
            f"next_functions has {len(expected)} entries — one per input of mul (w and x) — "
            f"not {len(given)}; an input that needs no gradient keeps its slot, as None"
        )
    parts = []
    for slot, (mine, theirs, operand) in enumerate(zip(given, expected, "wx", strict=True)):
        label = f"entry {slot} (for {operand}): {mine}"
        if mine == theirs:
            parts.append(Part(label))
        elif theirs is None:
            parts.append(Part(label, f"it is None: {operand} does not require grad, so no node "
                                     "receives its gradient."))  # fmt: skip
        else:
            parts.append(Part(label, f"it is {theirs}: {operand} is a leaf that requires grad, "
                                     "and its gradient is delivered to its AccumulateGrad "
                                     "node."))  # fmt: skip
    require_all(parts)


# --- 06.saved_gradient: what a node saved is what its backward needs ----------------------


@exercise(
    "06.saved_gradient",
    "y = w.sin() records SinBackward0, which saved w as _saved_self. Write a function that "
    "takes that node and returns dy/dw (elementwise), using only what the node saved.",
    hints=(
        "The derivative of sin is cos.",
        "node._saved_self is the input w, as it was when sin ran.",
        "lambda node: node._saved_self.cos()",
    ),
    solution="""
answer = lambda node: node._saved_self.cos()
check("06.saved_gradient", answer)
""",
    explanation="derivatives.yaml says sin: 'self: grad * self.cos()'. The formula needs self, "
    "so the forward saved it: that is what saved tensors are for. y.backward() multiplies "
    "this local derivative by the incoming gradient.",
)
def _saved_gradient(answer):
    if not callable(answer):
        raise Wrong("give a function of the node, e.g. answer = lambda node: ...")
    w = vg.tensor([0.3, -1.2, 2.5, 4.0], requires_grad=True)
    y = w.sin()
    try:
        local = answer(y.grad_fn)
    except Exception as error:  # noqa: BLE001 - explain whatever went wrong
        raise Wrong(
            f"calling your function on the node raised {type(error).__name__}: {error}"
        ) from None
    if not isinstance(local, vg.Tensor):
        raise Wrong(f"your function returned {type(local).__name__}; return a vizgrad tensor")
    y.backward(vg.ones_like(y))
    expected = w.grad.numpy()
    value = local.detach().numpy()
    if value.shape != expected.shape:
        raise Wrong(f"your result has shape {value.shape}; dy/dw has w's shape {expected.shape}")
    if np.allclose(value, expected, rtol=1e-5, atol=1e-6):
        return
    if np.allclose(value, np.sin(w.detach().numpy())):
        raise Wrong("that is sin(w), the forward value; the backward needs the derivative of sin")
    if np.allclose(value, -expected):
        raise Wrong("off by a sign: d/dw sin(w) = +cos(w) (it is cos whose derivative is -sin)")
    raise Wrong(
        "your values differ from the gradient autograd computes for a fresh w (the checker "
        "calls your function on a new graph: use only the node's saved tensors, not the "
        "notebook's w)"
    )


# --- 06.accumulated_grad: .grad adds up ---------------------------------------------------

ACCUMULATE_CODE = """\
w = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
for step in range(3):
    loss = (w * w).sum()
    loss.backward()
"""


def _as_values(answer) -> np.ndarray:
    if isinstance(answer, vg.Tensor):
        return answer.detach().numpy()
    if hasattr(answer, "detach"):  # a torch tensor
        return np.asarray(answer.detach().cpu().numpy())
    if isinstance(answer, str) or not hasattr(answer, "__iter__"):
        raise Wrong("give w.grad's values as a list of numbers, like [1.0, 2.0, 3.0]")
    values = list(answer)
    if not all(isinstance(v, numbers.Real) for v in values):
        raise Wrong("give w.grad's values as a list of numbers, like [1.0, 2.0, 3.0]")
    return np.asarray(values, dtype=float)


@exercise(
    "06.accumulated_grad",
    "After the loop, what is w.grad? Answer a list of three numbers.",
    hints=(
        "d/dw sum(w * w) = 2 * w.",
        "Each loss.backward() does not replace w.grad: AccumulateGrad adds to it.",
        "Three backward calls, each adding 2 * w.",
    ),
    solution="""
answer = [6.0, 12.0, 18.0]
check("06.accumulated_grad", answer)
""",
    explanation="AccumulateGrad adds each new gradient into .grad (so that gradients from "
    "several uses, or several backward calls, sum up). A training loop therefore clears it "
    "before each backward: optimizer.zero_grad(), or w.grad = None.",
)
def _accumulated_grad(answer):
    values = _as_values(answer)
    namespace = _run(ACCUMULATE_CODE)
    w = namespace["w"]
    expected = w.grad.numpy()
    if values.shape != expected.shape:
        raise Wrong(
            f"w.grad has w's shape, {tuple(expected.shape)}; your answer has {values.shape}"
        )
    if np.allclose(values, expected):
        return
    once = 2 * w.detach().numpy()
    for times in (1, 2, 4):
        if np.allclose(values, times * once):
            if times == 1:
                raise Wrong(
                    "that is the gradient of ONE backward (2 * w). .grad is not overwritten: "
                    "AccumulateGrad adds each new gradient to it, and the loop runs backward "
                    "three times — that is why training loops call zero_grad()"
                )
            raise Wrong(f"that is {times} × 2w: count the backward calls of the loop again")
    raise Wrong("d/dw sum(w * w) is 2 * w per backward call; start from there")

"""Lesson 7 — the backward engine step by step (``torch/csrc/autograd/engine.cpp``).

The exercises use one small graph, built by ``example_graph()``::

    a = x * w            # MulBackward0
    b = a.exp()          # ExpBackward0
    c = a * 3            # MulBackward0
    s = b + c            # AddBackward0
    loss = s.sum()       # SumBackward0

Every expected answer is computed by running vizgrad's own engine on that graph: the
dependency counts it starts from, the order its ready queue pops nodes in, and the
gradients it sums where two paths meet.

The lesson ends with PyTorch 0.1's engine (2016, Python, ``torch/autograd/engine.py``):
``old_compute_dependencies`` replays its dependency count on today's graph, and
``07.then_and_now`` maps its names to today's. A wrong answer is explained one mistake
at a time.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

import vizgrad as vg
from vizgrad import events
from vizgrad.autograd.engine import _dependencies
from vizgrad.autograd.graph import gradient_edge

from .exercise import Part, Wrong, exercise, require_all

__all__ = [
    "example_graph",
    "node_of",
    "node_names",
    "sequence_nr",
    "dependency_counts",
    "run_order",
    "narrate",
    "numbers_of",
    "old_compute_dependencies",
    "engine_dependency_counts",
]


# --- helpers the notebook uses too ----------------------------------------------------


def example_graph() -> dict:
    """The lesson's graph, by name: two leaves, a value used twice, a sum at the end."""
    x = vg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = vg.tensor([0.5, -1.0, 0.25], requires_grad=True)
    a = x * w
    b = a.exp()
    c = a * 3
    s = b + c
    loss = s.sum()
    return {"x": x, "w": w, "a": a, "b": b, "c": c, "s": s, "loss": loss}


def node_of(tensor):
    """The node a gradient for ``tensor`` flows into: its ``grad_fn``, or a leaf's
    ``AccumulateGrad`` (PyTorch's ``impl::gradient_edge``)."""
    return gradient_edge(tensor)[0]


def node_names(tensors: dict) -> dict:
    """``{node: name}`` for the tensors of a graph, so nodes can be called by name."""
    return {node_of(t): name for name, t in tensors.items() if t.requires_grad}


def sequence_nr(node) -> int:
    """A node's sequence number: the order in which the forward pass created it
    (``grad_fn._sequence_nr()``, as PyTorch exposes it)."""
    return node._sequence_nr()


def dependency_counts(tensors: dict, root: str = "loss") -> dict:
    """What the engine counts before it starts: per node, how many edges point at it."""
    names = node_names(tensors)
    counts = _dependencies([node_of(tensors[root])])
    return {names[node]: counts.get(node, 0) for node in names}


def run_order(tensors: dict, root: str = "loss") -> list:
    """The names of the nodes in the order the engine runs them during ``backward()``."""
    names = node_names(tensors)
    with events.Recorder() as rec:
        tensors[root].backward(retain_graph=True)
    return [names.get(_node_by_id(names, e.node), "?") for e in rec.events
            if isinstance(e, events.NodeStarted)]  # fmt: skip


def _node_by_id(names: dict, node_id: int):
    for node in names:
        if node._id == node_id:
            return node
    return None


def narrate(recording, tensors: dict) -> str:
    """The engine's steps of a recorded ``backward()``, in words, with the lesson's names."""
    by_id = {node._id: name for node, name in node_names(tensors).items()}

    def name(node_id):
        return by_id.get(node_id, f"node #{node_id}")

    lines = []
    for e in recording.events:
        if isinstance(e, events.BackwardStarted):
            counts = ", ".join(f"{name(n)}: {c}" for n, c in e.dependencies.items())
            lines.append(
                f"start at {', '.join(name(r) for r in e.roots)}; dependencies {{{counts}}}"
            )
        elif isinstance(e, events.ReadyQueueChanged):
            lines.append(f"    ready queue: [{', '.join(name(n) for n in e.queue)}]")
        elif isinstance(e, events.NodeStarted):
            lines.append(f"run {name(e.node)} ({e.name}) with gradient {', '.join(e.grad_inputs)}")
        elif isinstance(e, events.GradAccumulated):
            lines.append(f"    {name(_leaf_node_id(tensors, e.tensor))}.grad += {e.grad}")
    return "\n".join(lines)


def _leaf_node_id(tensors: dict, tensor_id: int):
    for t in tensors.values():
        if t.is_leaf and t.requires_grad and getattr(t, "_id", None) == tensor_id:
            return node_of(t)._id
    return None


def numbers_of(answer) -> np.ndarray | None:
    """An answer as a float array: a vizgrad or torch tensor, a list, a tuple or a number.
    ``None`` if it is none of these."""
    if isinstance(answer, vg.Tensor):
        return np.asarray(answer.detach().tolist(), dtype=float)
    if type(answer).__module__.startswith("torch") and hasattr(answer, "tolist"):
        return np.asarray(answer.detach().tolist(), dtype=float)
    if isinstance(answer, list | tuple | int | float | np.ndarray) and not isinstance(answer, bool):
        try:
            return np.asarray(answer, dtype=float)
        except (TypeError, ValueError):
            return None
    return None


def _same(got: np.ndarray, expected: np.ndarray) -> bool:
    return got.shape == expected.shape and np.allclose(got, expected, rtol=1e-4, atol=1e-5)


# --- exercise 1: dependency counts ----------------------------------------------------

_DEPENDENCY_NAMES = ("loss", "s", "b", "c", "a", "x", "w")


@exercise(
    "07.dependencies",
    "Before running anything, the engine counts for every node how many edges point at it. "
    "Give the counts as a dict {name: count} for loss, s, b, c, a, x and w.",
    hints=(
        "Follow next_functions from loss.grad_fn and count the arrows that arrive at each node.",
        "The root (loss) has nothing pointing at it. A value used by two operations gets two edges.",
        "a is used by b (exp) and by c (a * 3); x and w are each used once, by a's MulBackward0.",
    ),
    solution="""
answer = {"loss": 0, "s": 1, "b": 1, "c": 1, "a": 2, "x": 1, "w": 1}
check("07.dependencies", answer)
""",
    explanation="A node becomes ready only when every edge pointing at it has delivered its "
    "gradient: a waits for both b and c, so its count is 2.",
)
def _(answer):
    if not isinstance(answer, dict):
        raise Wrong(f"answer with a dict {{name: count}}, not a {type(answer).__name__}.")
    tensors = example_graph()
    expected = dependency_counts(tensors)
    missing = [n for n in _DEPENDENCY_NAMES if n not in answer]
    if missing:
        raise Wrong(f"the dict has no count for {', '.join(missing)}: give one for every node.")
    users = _users(tensors)
    for name in _DEPENDENCY_NAMES:
        got = answer[name]
        if isinstance(got, bool) or not isinstance(got, int):
            raise Wrong(f"{name}: a count is a whole number of edges, not {got!r}.")
        if got != expected[name]:
            if expected[name] == 0:
                why = "it is the root: backward starts there and no edge points at it"
            else:
                sources = " and ".join(f"{user}'s {kind}" for user, kind in users[name])
                why = f"{expected[name]} edge(s) point at its node, from {sources}"
            raise Wrong(f"{name}: you said {got}, the engine counts {expected[name]}: {why}.")
    extra = [n for n in answer if n not in _DEPENDENCY_NAMES]
    if extra:
        raise Wrong(f"there is no node called {', '.join(map(str, extra))} in this graph.")


def _users(tensors: dict) -> dict:
    """For every name: (user name, user's node type) for each edge pointing at its node."""
    names = node_names(tensors)
    users: dict = {name: [] for name in tensors}
    for node, name in names.items():
        for next_node, _ in node.next_functions:
            if next_node in names:
                users[names[next_node]].append((name, node.name()))
    return users


# --- exercise 2: the order of the ready queue ----------------------------------------


@exercise(
    "07.order",
    "In which order does the engine run the five grad_fn nodes of loss, s, b, c and a? "
    "Answer with a list of names.",
    hints=(
        "A node runs only when its dependency count has reached 0; loss runs first.",
        "After s's AddBackward0 runs, both b and c are ready. The ready queue pops the node "
        "with the highest sequence number first: the one created last in the forward pass.",
        "c = a * 3 was created after b = a.exp(). And a must wait for both b and c.",
    ),
    solution="""
answer = ["loss", "s", "c", "b", "a"]
check("07.order", answer)
""",
    explanation="The ready queue is ordered by sequence number, newest first, so c runs "
    "before b although b comes first in s's next_functions; a runs only after both.",
)
def _(answer):
    if not isinstance(answer, list | tuple):
        raise Wrong(f"answer with a list of names, not a {type(answer).__name__}.")
    tensors = example_graph()
    order = [n for n in run_order(tensors) if n not in ("x", "w")]
    answer = list(answer)
    if sorted(map(str, answer)) != sorted(order):
        raise Wrong(f"list each of {', '.join(sorted(order))} exactly once (the leaves' "
                    "AccumulateGrad nodes run last and are left out).")  # fmt: skip
    counts = dependency_counts(tensors)
    for position, (got, want) in enumerate(zip(answer, order, strict=True)):
        if got == want:
            continue
        done = set(order[:position])
        waiting_for = [user for user, _ in _users(tensors)[got] if user not in done]
        if waiting_for:
            raise Wrong(f"position {position}: {got} cannot run yet: its count is {counts[got]} "
                        f"and {', '.join(waiting_for)} has not delivered its gradient.")  # fmt: skip
        seq_got, seq_want = (sequence_nr(node_of(tensors[n])) for n in (got, want))
        raise Wrong(f"position {position}: {got} and {want} are both ready, and the queue "
                    f"pops the highest sequence number first: {want}'s node has sequence_nr "
                    f"{seq_want}, {got}'s has {seq_got}.")  # fmt: skip


# --- exercise 3: gradients summed where paths meet -----------------------------------


@exercise(
    "07.meeting",
    "loss = (exp(a) + 3a).sum(). Compute, as a tensor built from a, the gradient the engine "
    "delivers to a's node (dloss/da).",
    hints=(
        "Two paths lead from loss to a: one through b = exp(a), one through c = a * 3.",
        "Along each path, multiply the local derivatives (the chain rule); where the paths "
        "meet, the engine adds what they carry into a's input buffer.",
        "Through b: 1 * exp(a). Through c: 1 * 3.",
    ),
    solution="""
answer = a.exp() + 3
check("07.meeting", answer)
""",
    explanation="Gradients of paths that meet are added: the engine's input buffer for a "
    "receives exp(a) from ExpBackward0 and 3 from MulBackward0 and sums them.",
)
def _(answer):
    got = numbers_of(answer)
    if got is None:
        raise Wrong(f"answer with a tensor (for example built from a), not a "
                    f"{type(answer).__name__}.")  # fmt: skip
    tensors = example_graph()
    (expected,) = vg.autograd.grad(tensors["loss"], tensors["a"])
    expected = numbers_of(expected)
    a = numbers_of(tensors["a"])
    if got.shape != expected.shape:
        raise Wrong(f"the gradient of a has a's shape {tuple(expected.shape)}, yours has shape "
                    f"{tuple(got.shape)}.")  # fmt: skip
    if _same(got, expected):
        return
    if _same(got, np.exp(a)):
        raise Wrong("that is only the path through b = exp(a); the path through c = a * 3 "
                    "also reaches a, and the engine adds the two.")  # fmt: skip
    if _same(got, np.full_like(a, 3.0)):
        raise Wrong("that is only the path through c = a * 3; the path through b = exp(a) "
                    "also reaches a, and the engine adds the two.")  # fmt: skip
    if _same(got, 3 * np.exp(a)):
        raise Wrong("paths that meet are added, not multiplied: multiply along a path, add "
                    "across paths.")  # fmt: skip
    wrong = [i for i in range(len(got)) if not math.isclose(got[i], expected[i], rel_tol=1e-4)]
    raise Wrong(f"element(s) {wrong} differ from the gradient the engine computes; add the "
                "contribution of each path.")  # fmt: skip


# --- exercise 4: a vector-Jacobian product -------------------------------------------

VJP_A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
VJP_X = [1.0, -1.0, 2.0]
VJP_V = [2.0, -1.0]


@exercise(
    "07.vjp",
    "y = A @ x with A of shape (2, 3) and x of shape (3,). The engine never builds the "
    "Jacobian: it computes v^T J. Compute the gradient of x for grad_output v, without "
    "autograd.",
    hints=(
        "The Jacobian of y = A @ x with respect to x is A itself (shape (2, 3)).",
        "A vector-Jacobian product multiplies v (shape (2,)) from the left: v @ J.",
        "v @ A, which is the same as A.t() @ v; the result has x's shape (3,).",
    ),
    solution="""
answer = v @ A
check("07.vjp", answer)
""",
    explanation="Backward applies v^T J without ever forming J: for y = A @ x the node "
    "(MvBackward0) computes A.t() @ grad for x, which is v @ A.",
)
def _(answer):
    got = numbers_of(answer)
    if got is None:
        raise Wrong(f"answer with a tensor, not a {type(answer).__name__}.")
    A = vg.tensor(VJP_A)
    x = vg.tensor(VJP_X, requires_grad=True)
    v = vg.tensor(VJP_V)
    (expected,) = vg.autograd.grad(A @ x, x, v)
    expected = numbers_of(expected)
    if got.shape == (3, 2) or got.shape == (2, 3):
        raise Wrong(f"that is a matrix of shape {got.shape}: the full Jacobian (or v times it "
                    "elementwise). A VJP contracts v with J and has x's shape (3,).")  # fmt: skip
    if got.shape != expected.shape:
        raise Wrong(f"the gradient of x has x's shape (3,), yours has {tuple(got.shape)}.")
    if _same(got, np.asarray(VJP_A).sum(0)):
        raise Wrong("that is the gradient for v = [1, 1]: weight each row of A by its element "
                    "of v.")  # fmt: skip
    if not _same(got, expected):
        raise Wrong("not v @ A: element i of the result is sum_j v[j] * A[j, i], row j of A "
                    "weighted by v[j].")  # fmt: skip


# --- then and now: PyTorch 0.1's engine ------------------------------------------------


def old_compute_dependencies(root) -> dict:
    """PyTorch 0.1's ``ExecutionEngine._compute_dependencies``, run on today's graph.

    The 2016 code (``torch/autograd/engine.py``) walked ``fn.previous_functions`` from
    the root and kept, for every function, a ``Counter`` of the functions whose
    gradients it still waited for; a function was ready when every counter was empty.
    This is the same walk over ``next_functions``, with the one ``Counter`` per node
    (0.1 kept one per output of the node). Returns ``{node: Counter({user: edges})}``.
    """
    dependencies: dict = {}
    seen = {root}
    queue = [root]
    while len(queue) > 0:
        fn = queue.pop()
        for prev_fn, _output_nr in fn.next_functions:  # 0.1: fn.previous_functions
            if prev_fn is None:  # an input that needs no gradient: no edge today
                continue
            dependencies.setdefault(prev_fn, Counter())[fn] += 1
            if prev_fn not in seen:
                queue.append(prev_fn)
                seen.add(prev_fn)
    return dependencies


def engine_dependency_counts(tensors: dict, root: str = "loss") -> dict:
    """``{name: count}`` as today's engine reports it in its ``BackwardStarted`` event."""
    by_id = {node._id: name for node, name in node_names(tensors).items()}
    with events.Recorder() as rec:
        tensors[root].backward(retain_graph=True)
    (started,) = [e for e in rec.events if isinstance(e, events.BackwardStarted)]
    return {by_id[node_id]: count for node_id, count in started.dependencies.items()}


# The names of PyTorch 0.1's autograd (2016) and what they are called today. The
# explanation of each says what the old name did, not the new name.
THEN_AND_NOW = {
    "Function": ("Node", "in 0.1 one Function object per call was both the operation and "
                 "the graph node; today torch.autograd.Function only defines custom "
                 "operations, and the graph's nodes (MulBackward0, ExpBackward0, ...) "
                 "derive from a base class of their own"),
    "previous_functions": ("next_functions", "it is the tuple of (node, index) pairs "
                           "that leads from a node back towards the leaves: the edges the "
                           "engine follows"),
    "creator": ("grad_fn", "it is the attribute of a Variable that names the node that "
                "made it, the one its gradient flows into"),
    "Leaf": ("AccumulateGrad", "a Leaf sat at the end of a leaf variable's edges, and its "
             "_do_backward added the arriving gradient into variable.grad: today's node for "
             "that job has the job in its name"),
    "_do_backward": ("apply", "it is the method the engine calls on a node with the gradients "
                     "of its outputs, and that returns one gradient per next edge"),
    "retain_variables": ("retain_graph", "it is the backward() flag that keeps the tensors the "
                         "nodes saved, so the same graph can be run backward again"),
}  # fmt: skip
TODAY_NAMES = tuple(sorted(today for today, _ in THEN_AND_NOW.values()))


@exercise(
    "07.then_and_now",
    "Map each name of PyTorch 0.1's autograd to today's name: "
    + ", ".join(THEN_AND_NOW)
    + ". Choose from: "
    + ", ".join(TODAY_NAMES)
    + ". Answer a dict {old name: today's name}.",
    hints=(
        "Start with the engine's walk: in 0.1 it followed fn.previous_functions; what does "
        "today's engine follow from loss.grad_fn?",
        "A leaf variable's gradient has to end up in its .grad: which node does that today? "
        "And which attribute of a tensor names the node that made it?",
        "The flag that keeps saved tensors for a second backward() was renamed in 0.2 "
        "(together with creator); the method that runs a node is the one the engine calls.",
    ),
    solution="""
answer = {
    "Function": "Node",
    "previous_functions": "next_functions",
    "creator": "grad_fn",
    "Leaf": "AccumulateGrad",
    "_do_backward": "apply",
    "retain_variables": "retain_graph",
}
check("07.then_and_now", answer)
""",
    explanation="Every piece is still there under a new name: nodes (Function, now Node) "
    "linked by next_functions, a tensor's grad_fn, AccumulateGrad at the leaves, apply to "
    "run a node, retain_graph to keep the saved tensors. What changed is how they run.",
)
def _(answer):
    if not isinstance(answer, dict):
        raise Wrong(f"answer with a dict {{old name: today's name}}, not a "
                    f"{type(answer).__name__}.")  # fmt: skip
    unknown = [str(k) for k in answer if k not in THEN_AND_NOW]
    if unknown:
        raise Wrong(f"{', '.join(unknown)}: not one of the old names "
                    f"({', '.join(THEN_AND_NOW)}).")  # fmt: skip
    missing = [old for old in THEN_AND_NOW if old not in answer]
    if missing:
        raise Wrong(f"the dict has no entry for {', '.join(missing)}: map every old name.")
    parts = []  # one per old name, in order: the first mistake is explained, the rest held back
    for old, (today, why) in THEN_AND_NOW.items():
        given = answer[old]
        label = f"{old} → {given!r}"
        if not isinstance(given, str) or given.strip() not in TODAY_NAMES:
            parts.append(Part(label, f"not one of the names to choose from "
                                     f"({', '.join(TODAY_NAMES)})."))  # fmt: skip
        elif given.strip() != today:
            parts.append(Part(label, f"{old} is not today's {given.strip()}: {why}."))
        else:
            parts.append(Part(label))
    require_all(parts)

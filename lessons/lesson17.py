"""Lesson 17 — the matmul family and einsum: ``dot``, ``mv``, ``mm``, ``bmm``, ``matmul``'s
rules by dimension count, ``einsum`` as the general form, and the backward of each.

The helpers are the lines the notebook runs (``ops_called``, ``product_node``,
``EINSUM_EXAMPLES``…), so a checker rebuilds exactly what the student saw; every expected
answer is computed by vizgrad's engine from those lines, never written down by hand.
"""

from __future__ import annotations

import math

import numpy as np

import vizgrad as vg

from .exercise import Wrong, exercise
from .lesson07 import numbers_of

__all__ = [
    "ops_called",
    "product_node",
    "graph_names",
    "matmul_shape",
    "random_tensor",
    "EINSUM_EXAMPLES",
    "einsum_table",
    "SHAPE_PAIRS",
    "product_examples",
    "scores_operands",
    "SCORES_SHAPES",
    "BROADCAST_SHAPES",
    "broadcast_example",
]

# The backward nodes of the four products; every matmul and einsum ends in one of them.
PRODUCT_NODES = ("DotBackward0", "MvBackward0", "MmBackward0", "BmmBackward0")


# --- helpers the notebook uses ----------------------------------------------------------


def ops_called(fn) -> list[str]:
    """The operators that ``fn()``'s top-level call (``matmul``, ``einsum``…) called itself.

    It is what ``vg.dispatch_trace()`` records one level below the call: for ``matmul``,
    the ``dot``/``mv``/``mm``/``bmm`` it chose and the reshaping around it.
    """
    with vg.dispatch_trace() as trace:
        fn()
    return [s.op.removeprefix("aten::") for s in trace.steps
            if s.depth == 1 and s.action == "call"]  # fmt: skip


def graph_names(tensor) -> list[str]:
    """The names of the backward nodes reachable from ``tensor.grad_fn``, depth first."""
    names, seen = [], set()

    def walk(node):
        if node is None or id(node) in seen:
            return
        seen.add(id(node))
        names.append(node.name().rsplit("::", 1)[-1])
        for next_node, _ in node.next_functions:
            walk(next_node)

    walk(tensor.grad_fn)
    return names


def product_node(tensor) -> str | None:
    """The first of DotBackward0, MvBackward0, MmBackward0, BmmBackward0 in the graph."""
    return next((name for name in graph_names(tensor) if name in PRODUCT_NODES), None)


def matmul_shape(shape_a, shape_b):
    """``(shape of a @ b, None)`` for operands of these shapes, or ``(None, error message)``."""
    try:
        return tuple(vg.matmul(vg.zeros(shape_a), vg.zeros(shape_b)).shape), None
    except RuntimeError as error:
        return None, str(error)


def random_tensor(*shape, seed=0, requires_grad=False, dtype=None):
    """A float32 (or ``dtype``) tensor of standard normal values, the same for the same seed."""
    values = np.random.default_rng(seed).standard_normal(shape)
    return vg.tensor(values, dtype=dtype or vg.float32, requires_grad=requires_grad)


# Each named product as an einsum: (name, equation, operand shapes, the same with the named op).
EINSUM_EXAMPLES = (
    ("dot", "i,i->", [(3,), (3,)], vg.dot),
    ("mv", "ij,j->i", [(2, 3), (3,)], vg.mv),
    ("mm", "ij,jk->ik", [(2, 3), (3, 4)], vg.mm),
    ("bmm", "bij,bjk->bik", [(5, 2, 3), (5, 3, 4)], vg.bmm),
    ("outer", "i,j->ij", [(3,), (4,)], vg.outer),
    ("trace", "ii->", [(3, 3)], lambda a: a.diagonal().sum()),  # torch also has a.trace()
    ("diagonal", "ii->i", [(3, 3)], lambda a: a.diagonal()),
    ("transpose", "ij->ji", [(2, 3)], lambda a: a.t()),
    ("broadcast matmul", "...ij,...jk->...ik", [(5, 1, 2, 3), (4, 3, 4)], vg.matmul),
)


def einsum_table() -> list[tuple]:
    """Each example run both ways: (name, equation, result shape, result stride, agree?)."""
    rows = []
    for seed, (name, equation, shapes, named_op) in enumerate(EINSUM_EXAMPLES):
        operands = [random_tensor(*shape, seed=seed * 10 + k) for k, shape in enumerate(shapes)]
        by_einsum = vg.einsum(equation, *operands)
        by_name = named_op(*operands)
        agree = by_einsum.shape == by_name.shape and bool(
            vg.allclose(by_einsum, by_name, atol=1e-6)
        )
        rows.append((name, equation, tuple(by_einsum.shape), by_einsum.stride(), agree))
    return rows


# --- exercise 1: matmul's output shapes -------------------------------------------------

SHAPE_PAIRS = (
    ((3,), (3, 4)),
    ((5, 2, 3), (3,)),
    ((7, 1, 2, 3), (4, 3, 5)),
    ((2, 3), (6, 3, 4)),
    ((5, 2, 3), (5, 1, 4)),
)
_ERROR_WORDS = ("error", "raises", "fails", "none")


def _as_shape(entry):
    """A shape answer as a tuple of ints, ``None`` for "raises", or ``False`` if unreadable."""
    if entry is None:
        return None
    if isinstance(entry, str):
        return None if entry.strip().lower() in _ERROR_WORDS else False
    if isinstance(entry, int) and not isinstance(entry, bool):
        return (entry,)  # (4) is 4 in Python: read it as the 1-D shape (4,)
    if isinstance(entry, list | tuple) and all(
        isinstance(n, int) and not isinstance(n, bool) for n in entry
    ):
        return tuple(entry)
    return False


def _batch_words(shape) -> str:
    batch = tuple(shape[:-2])
    return str(batch) if batch else "none"


def _explain_shape(label: str, shape_a, shape_b, got, expected) -> str:
    """Why ``got`` is not the shape of ``a @ b`` (only this pair's first mistake)."""
    rows = (shape_a[-2],) if len(shape_a) >= 2 else ()
    cols = (shape_b[-1],) if len(shape_b) >= 2 else ()
    tail = rows + cols
    batch = expected[: len(expected) - len(tail)]
    if len(shape_a) == 1 and got == (*batch, 1, *cols):
        return (f"{label}: a 1-D first operand is treated as a 1×{shape_a[0]} row matrix, and "
                "that added dim of size 1 is removed from the result again.")  # fmt: skip
    if len(shape_b) == 1 and got == (*batch, *rows, 1):
        return (f"{label}: a 1-D second operand is treated as a {shape_b[0]}×1 column matrix, "
                "and that added dim of size 1 is removed from the result again.")  # fmt: skip
    if len(got) < len(tail) or got[len(got) - len(tail) :] != tail:
        return (f"{label}: the last dims of the result are wrong. They are the rows of the "
                "first operand and the columns of the second (a 1-D operand contributes "
                "neither: its added dim is removed).")  # fmt: skip
    return (f"{label}: the batch dims are wrong. Only the dims before the last two are batch "
            f"dims ({_batch_words(shape_a)} and {_batch_words(shape_b)} here; a 1-D operand "
            "has none), and they broadcast like an elementwise op's shapes: aligned from the "
            "right, a 1 or a missing dim stretches to the other's size.")  # fmt: skip


@exercise(
    "17.shapes",
    "For each pair of shapes in L.SHAPE_PAIRS, predict the shape of a @ b. Answer with a tuple "
    "of five entries: a shape tuple for each pair, or None for the pair where matmul raises.",
    hints=(
        "Count dims first: 1-D operands get a dim added (a row in front for the first operand, "
        "a column behind for the second) that is removed again from the result.",
        "The last two dims of each operand are the matrix; everything before is batch. Batch "
        "dims broadcast like elementwise shapes; the matrix dims must fit exactly: (n×m) @ (m×p).",
        "One pair has matching batch dims but an inner size of 1 against 3: broadcasting never "
        "applies to the matrix dims.",
    ),
    solution="""
answer = ((4,), (5, 2), (7, 4, 2, 5), (6, 2, 4), None)
check("17.shapes", answer)
""",
    explanation="matmul adds a dim to a 1-D operand and removes it from the result, broadcasts "
    "the batch dims, and multiplies the last two dims as matrices, which must fit exactly: a 1 "
    "in the inner dim is not stretched, so (5, 2, 3) @ (5, 1, 4) raises.",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != len(SHAPE_PAIRS):
        raise Wrong(f"answer with a tuple of {len(SHAPE_PAIRS)} entries, one per pair: a shape "
                    "such as (2, 3), or None for the pair that raises.")  # fmt: skip
    numbered = enumerate(zip(answer, SHAPE_PAIRS, strict=True), start=1)
    for number, (entry, (shape_a, shape_b)) in numbered:
        label = f"pair {number}, {shape_a} @ {shape_b}"
        got = _as_shape(entry)
        if got is False:
            raise Wrong(f"entry {number} is {entry!r}: write a shape as a tuple of ints, such as "
                        "(2, 3) or (4,), or None if matmul raises for that pair.")  # fmt: skip
        expected, error = matmul_shape(shape_a, shape_b)
        if expected is None and got is not None:
            raise Wrong(f"{label} raises: RuntimeError: {error} The batch dims broadcast, but "
                        "the matrix dims are never broadcast: the columns of the first matrix "
                        "must equal the rows of the second exactly, and a 1 is not "
                        "stretched.")  # fmt: skip
        if expected is not None and got is None:
            inner_a = shape_a[-1]
            inner_b = shape_b[-2] if len(shape_b) >= 2 else shape_b[0]
            raise Wrong(f"{label} works: its batch dims broadcast and its inner sizes agree "
                        f"({inner_a} and {inner_b}).")  # fmt: skip
        if expected is not None and got != expected:
            raise Wrong(_explain_shape(label, shape_a, shape_b, got, expected))


# --- exercise 2: dA for C = A @ B -----------------------------------------------------------

# Two sets of sizes (n, m, p), all different, so a product in the wrong order fails loudly.
_GRAD_SIZES = ((2, 3, 4), (4, 2, 3))


def _grad_case(n, m, p, seed):
    a = random_tensor(n, m, seed=seed, dtype=vg.float64, requires_grad=True)
    b = random_tensor(m, p, seed=seed + 1, dtype=vg.float64, requires_grad=True)
    grad_c = random_tensor(n, p, seed=seed + 2, dtype=vg.float64)
    (a @ b).backward(grad_c)
    return a, b, grad_c


@exercise(
    "17.grad_A",
    "C = A @ B with A (n×m) and B (m×p). Write grad_A(grad_C, A, B) returning dL/dA from "
    "grad_C = dL/dC (n×p), with matrix operations only (no autograd). Answer with the function.",
    hints=(
        "The gradient of A has A's shape, n×m. grad_C is n×p and B is m×p: which product of "
        "them, with one transposed, is n×m?",
        "Element by element: C[i, j] = Σ_k A[i, k] B[k, j], so dL/dA[i, k] = Σ_j grad_C[i, j] "
        "B[k, j].",
        "def grad_A(grad_C, A, B): return grad_C @ B.T",
    ),
    solution="""
def grad_A(grad_C, A, B):
    return grad_C @ B.T      # (n×p) @ (p×m) = n×m, A's shape

answer = grad_A
check("17.grad_A", answer)
""",
    explanation="dA = dC @ Bᵀ (and dB = Aᵀ @ dC): each is the only product of the incoming "
    "gradient and the *other* operand that has the right shape — which is why MmBackward0 saves "
    "both matrices.",
)
def _(answer):
    if not callable(answer):
        raise Wrong(f"answer with the function itself (answer = grad_A, without parentheses), "
                    f"not a {type(answer).__name__}.")  # fmt: skip
    for seed, (n, m, p) in enumerate(_GRAD_SIZES):
        a, b, grad_c = _grad_case(n, m, p, seed=10 * seed)
        shapes = f"grad_C is {n}×{p}, A is {n}×{m}, B is {m}×{p}"
        try:
            result = answer(grad_c, a.detach(), b.detach())
        except Exception as error:  # noqa: BLE001 - the student's code may raise anything
            raise Wrong(f"grad_A raised {type(error).__name__}: {error}. Check the shapes: "
                        f"{shapes}, and dA must be {n}×{m} like A.") from None  # fmt: skip
        got = numbers_of(result)
        if got is None:
            raise Wrong(f"grad_A returned a {type(result).__name__}: return a tensor, the "
                        "gradient of A.")  # fmt: skip
        expected = numbers_of(a.grad)
        grad_b = numbers_of(b.grad)
        if got.shape == expected.shape and np.allclose(got, expected):
            continue
        if got.shape == grad_b.shape and np.allclose(got, grad_b):
            raise Wrong("that is dB = Aᵀ @ grad_C, the gradient of B; dA pairs grad_C with "
                        "the other operand, B.")  # fmt: skip
        if got.shape == expected.T.shape and np.allclose(got, expected.T):
            raise Wrong(f"that is dA transposed ({m}×{n}): transpose it, or swap the product's "
                        "operands and transpose each.")  # fmt: skip
        if got.shape != expected.shape:
            raise Wrong(f"your result has shape {tuple(got.shape)}, but a gradient always has "
                        f"its tensor's shape: A is {n}×{m} ({shapes}).")  # fmt: skip
        raise Wrong("the shape is right but the values are not dL/dA: C[i, j] = Σ_k A[i, k] "
                    "B[k, j], so dL/dA[i, k] = Σ_j grad_C[i, j] B[k, j].")  # fmt: skip


# --- exercise 3: which product does matmul call? ------------------------------------------


def product_examples() -> dict:
    """The four products of the exercise "17.product_node", every operand requiring grad."""

    def operand(*shape):
        return random_tensor(*shape, requires_grad=True)

    return {
        "a": operand(3) @ operand(3, 4),
        "b": operand(5, 2, 3) @ operand(3, 4),
        "c": operand(5, 2, 3) @ operand(5, 3, 4),
        "d": operand(5, 2, 3) @ operand(3),
    }


_WHY_PRODUCT = {
    "a": "A 1-D first operand becomes a 1×3 row (unsqueeze), is multiplied by the matrix with "
    "mm, and the row dim is squeezed away: SqueezeBackward4 → MmBackward0 → UnsqueezeBackward0",
    "b": "The second operand is a plain matrix, so matmul folds the first one's batch into its "
    "rows, (5, 2, 3) → (10, 3), and runs one (10×3) @ (3×4) mm: no batch loop needed",
    "c": "Both operands carry a batch dim of 5, so matmul calls bmm on the two batches of "
    "matrices (after expand and reshape, which change nothing here)",
    "d": "A 1-D second operand: the batch is folded into rows, (5, 2, 3) → (10, 3), and the "
    "vector multiplies them with mv",
}


def _node_key(name: str) -> str:
    key = name.strip().lower().replace(" ", "")
    for suffix in ("backward0", "backward"):
        key = key.removesuffix(suffix)
    return key


@exercise(
    "17.product_node",
    "For the four products of L.product_examples() (all operands require grad), name the backward "
    "node of the product matmul chose: DotBackward0, MvBackward0, MmBackward0 or BmmBackward0. "
    "Answer with a tuple of four names, for a, b, c and d.",
    hints=(
        "matmul has no backward of its own: it calls dot, mv, mm or bmm (plus views), and "
        "autograd records the nodes of those.",
        "Run L.ops_called(lambda: x @ y) for each pair of shapes, or draw the graph of each "
        "result with GraphView.",
        "A batch times a plain matrix does not need bmm: the batch folds into the rows.",
    ),
    solution="""
answer = ("MmBackward0", "MmBackward0", "BmmBackward0", "MvBackward0")
check("17.product_node", answer)
""",
    explanation="1-D @ 2-D is an mm on a 1-row matrix; a batch @ a matrix folds into one mm; two "
    "batches need bmm; a batch @ a vector folds into one mv.",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != 4:
        raise Wrong("answer with a tuple of four node names, one for each of a, b, c and d.")
    results = product_examples()
    for got, label in zip(answer, "abcd", strict=True):
        if not isinstance(got, str):
            raise Wrong(f"the entry for {label} is {got!r}: write the node's name as a string, "
                        "such as \"MmBackward0\".")  # fmt: skip
        expected = product_node(results[label])
        if _node_key(got) not in {_node_key(name) for name in PRODUCT_NODES}:
            raise Wrong(f"{label}: {got!r} is not one of DotBackward0, MvBackward0, MmBackward0 "
                        "and BmmBackward0.")  # fmt: skip
        if _node_key(got) != _node_key(expected):
            raise Wrong(f"{label}: not {got}. {_WHY_PRODUCT[label]}.")


# --- exercise 4: the gradient of a broadcast batch operand --------------------------------

BROADCAST_SHAPES = {"A": (6, 1, 2, 3), "B": (4, 3, 5)}


def broadcast_example():
    """A (6, 1, 2, 3) and B (4, 3, 5) of ones, C = A @ B of shape (6, 4, 2, 5), and C.sum()."""
    a = vg.ones(BROADCAST_SHAPES["A"], requires_grad=True)
    b = vg.ones(BROADCAST_SHAPES["B"], requires_grad=True)
    c = a @ b
    return a, b, c, c.sum()


@exercise(
    "17.broadcast_grad",
    "A = ones(6, 1, 2, 3) and B = ones(4, 3, 5), both requiring grad; C = A @ B; "
    "C.sum().backward(). Predict B.grad.shape and B.grad[0, 0, 0], as a tuple (shape, value).",
    hints=(
        "A gradient always has its tensor's shape, however the tensor was broadcast.",
        "dB = Aᵀ @ dC for each batch: with ones everywhere, each element sums over A's rows. "
        "Then ExpandBackward0 adds up the gradients of every batch that used the same B.",
        "A's 6 batches each use B (stretched from (4, 3, 5) to (6, 4, 3, 5)); each adds 2.",
    ),
    solution="""
answer = ((4, 3, 5), 12.0)
check("17.broadcast_grad", answer)
""",
    explanation="Inside matmul B is expanded to (6, 4, 3, 5): the same B is used by all 6 of "
    "A's batches. ExpandBackward0 sums the gradient over the stretched dim, back to B's shape: "
    "6 batches × 2 rows of ones = 12.",
)
def _(answer):
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        raise Wrong("answer with a tuple of two: (B.grad.shape, B.grad[0, 0, 0]).")
    shape, value = answer
    got_shape = _as_shape(shape)
    if got_shape is None or got_shape is False:
        raise Wrong(f"the first entry is {shape!r}: write B.grad's shape as a tuple of ints.")
    got_value = numbers_of(value)
    if got_value is None or got_value.size != 1:
        raise Wrong(f"the second entry is {value!r}: write B.grad[0, 0, 0] as one number.")
    got_value = float(got_value.reshape(()))
    a, b, c, loss = broadcast_example()
    loss.backward()
    batch = BROADCAST_SHAPES["A"][0]
    rows = BROADCAST_SHAPES["A"][-2]
    if got_shape != tuple(b.grad.shape):
        expanded = tuple(c.shape[:-2]) + tuple(b.shape[-2:])
        if got_shape == expanded:
            raise Wrong(f"{got_shape} is the shape B was expanded to inside matmul. The "
                        "gradient flows back through ExpandBackward0, which sums over the "
                        "stretched dim: a gradient always has its tensor's shape.")  # fmt: skip
        raise Wrong(f"B.grad is not {got_shape}: a gradient always has the shape of its "
                    "tensor.")  # fmt: skip
    expected = b.grad[0, 0, 0].item()
    if math.isclose(got_value, expected):
        return
    if math.isclose(got_value, a.grad[0, 0, 0, 0].item()):
        raise Wrong(f"{got_value:g} is an element of A.grad, not of B.grad.")
    if math.isclose(got_value, rows):
        raise Wrong(f"{got_value:g} is the gradient from one batch of A (Aᵀ @ dC sums over A's "
                    f"{rows} rows). But B is used by all {batch} of A's batches: ExpandBackward0 "
                    "adds their gradients.")  # fmt: skip
    if math.isclose(got_value, batch):
        raise Wrong(f"{got_value:g} counts the {batch} batches that share B, but in each batch "
                    "dB = Aᵀ @ dC also sums over A's rows.")  # fmt: skip
    raise Wrong(f"B.grad[0, 0, 0] is not {got_value:g}: in each batch dB = Aᵀ @ dC sums over A's "
                f"rows, and the batches that share B add up.")  # fmt: skip


# --- exercise 5: an einsum for attention scores ---------------------------------------------

SCORES_SHAPES = {"Q": (2, 3, 4), "K": (2, 5, 4)}  # (batch, queries, d) and (batch, keys, d)


def scores_operands(seed: int = 7):
    """Q (2, 3, 4) and K (2, 5, 4): a batch of 2, 3 queries, 5 keys, 4 features."""
    return (random_tensor(*SCORES_SHAPES["Q"], seed=seed),
            random_tensor(*SCORES_SHAPES["K"], seed=seed + 1))  # fmt: skip


@exercise(
    "17.einsum_scores",
    "Q has shape (2, 3, 4) = (batch, query, feature) and K (2, 5, 4) = (batch, key, feature). "
    "Write the einsum equation for S[b, i, j] = Σ_d Q[b, i, d] · K[b, j, d] (that is "
    "Q @ K.mT), shape (2, 3, 5).",
    hints=(
        "Give each operand one letter per dim. A letter in both operands is multiplied along; a "
        "letter missing from the output (after ->) is summed.",
        "The batch letter appears in Q, K and the output; the feature letter in Q and K only.",
        '"bid,bjd->bij"',
    ),
    solution="""
Q, K = L.scores_operands()
answer = "bid,bjd->bij"      # b kept, d shared and summed, i and j kept in order
check("17.einsum_scores", answer)
""",
    explanation="The batch b is kept, d is shared and left out so it is multiplied and summed, "
    "and i, j are kept in the output order: einsum aligns the operands and calls one bmm.",
)
def _(answer):
    if not isinstance(answer, str):
        raise Wrong(f"answer with the equation as a string, such as \"ij,jk->ik\", not a "
                    f"{type(answer).__name__}.")  # fmt: skip
    q, k = scores_operands()
    expected = q @ k.mT
    try:
        got = vg.einsum(answer, q, k)
    except RuntimeError as error:
        raise Wrong(f"einsum raised: {error}. Q's dims are (batch, query, feature) and K's "
                    "are (batch, key, feature): three letters each, separated by a comma, "
                    "with the same letter wherever the sizes must agree.") from None  # fmt: skip
    shape = tuple(got.shape)
    if shape != tuple(expected.shape) and "->" not in answer:
        raise Wrong(f"the result has shape {shape}, the scores have shape "
                    f"{tuple(expected.shape)}: without ->, the output holds only the letters "
                    "that appear once, in alphabetical order (a shared letter such as the "
                    "batch is summed). Write the output's letters after ->.")  # fmt: skip
    if shape == tuple(expected.mT.shape):
        raise Wrong(f"the result has shape {shape}, keys before queries: list the output "
                    "letters in the order (batch, query, key).")  # fmt: skip
    if shape != tuple(expected.shape):
        raise Wrong(f"the result has shape {shape}, the scores have shape "
                    f"{tuple(expected.shape)}: the letters after -> are the dims that remain, "
                    "in order; a letter left out is summed over.")  # fmt: skip
    if not vg.allclose(got, expected, atol=1e-5):
        raise Wrong("the shape is right but the values are not: a letter shared by Q and K is "
                    "multiplied along. If the feature dim has a different letter in each, each "
                    "operand is summed on its own and the sums are multiplied.")  # fmt: skip

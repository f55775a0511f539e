"""Lesson 16 — from dynamic to static graphs: ``vizgrad.jit.trace`` and ``vizgrad.fx``.

Eager execution records the *backward* graph as it runs and keeps no description of the
forward but the Python code. Two tracers turn a forward into a static graph:
``vizgrad.jit.trace`` (``torch.jit.trace``) runs the code on example tensors and keeps
the ``aten::`` operators it called; ``vizgrad.fx.symbolic_trace`` (``torch.fx``) runs
it on ``Proxy`` objects and keeps the Python-level calls, as an editable graph.

Every expected answer is computed by the tracers themselves from the functions below,
the same ones the notebook traces.
"""

from __future__ import annotations

import warnings

import numpy as np

import vizgrad as vg

from .exercise import Wrong, exercise

__all__ = ["scale_shift", "sign_switch", "TinyNet", "make_net", "aten_kinds", "plain",
           "branchy", "rank_switch", "TRACED_FUNCTIONS", "outcomes", "OTHER_BRANCH_INPUT"]  # fmt: skip


def aten_kinds(graph) -> list[str]:
    """The ``aten::`` operator kinds of a jit graph, in order (constants and lists left out)."""
    return [n.kind() for n in graph.nodes() if n.kind().startswith("aten::")]


# --- exercise 1: how many operators does the trace keep -----------------------------------


def scale_shift(x):
    """Scale and shift, then a ReLU only when the sum is positive."""
    h = x * 3 + 1
    if h.sum() > 0:
        h = h.relu()
    return h.mean()


def _trace_quietly(fn, example):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", vg.jit.TracerWarning)
        return vg.jit.trace(fn, example)


@exercise(
    "16.count_nodes",
    "traced = vg.jit.trace(L.scale_shift, vg.ones(4)). How many aten:: nodes does "
    "traced.graph have? Answer with an int.",
    hints=(
        "Follow the example input: vg.ones(4) * 3 + 1 is all 4s. Which operators run?",
        "h.sum() and the comparison do run, but their result only becomes a Python bool "
        "for the `if`. Does anything in the graph read them?",
        "A node whose output nothing reads is dead code: the tracer drops it, as torch's "
        "dead-code elimination does.",
    ),
    solution="""
answer = 4  # mul, add, relu, mean: sum and gt only fed the `if`
check("16.count_nodes", answer)
""",
    explanation="mul, add, relu and mean. The sum and the comparison ran, but their result "
    "left the graph as a Python bool: no node reads them, so dead-code elimination drops "
    "them. The `if` itself is gone: relu is simply there, because the example took it.",
)
def _(answer):
    if isinstance(answer, bool) or not isinstance(answer, int | np.integer):
        raise Wrong(f"answer with a whole number (an int), not {type(answer).__name__}.")
    kinds = aten_kinds(_trace_quietly(scale_shift, vg.ones(4)).graph)
    expected = len(kinds)
    if answer == expected:
        return
    if answer == expected + 2:
        raise Wrong(
            f"{answer} counts h.sum() and the comparison `> 0`. They ran, but their result "
            "became a Python bool for the `if`: no node of the graph reads it, so the tracer "
            "drops them as dead code."
        )
    if answer == expected - 1:
        raise Wrong(
            f"{answer} leaves out the relu. The example input makes h.sum() positive, so "
            "the `if` took its branch and relu ran: the trace keeps what ran."
        )
    raise Wrong(
        f"{answer} is not the number of aten:: nodes. Count the operators that ran on the "
        "example and whose result the graph uses: x * 3, + 1, and what follows."
    )


# --- exercise 2: the recorded branch on an input that takes the other one -----------------


def sign_switch(x):
    """Double a tensor whose sum is positive; otherwise subtract 1."""
    if x.sum() > 0:
        return x * 2
    return x - 1


OTHER_BRANCH_INPUT = (-1.0, 0.0, -2.0)


def _numbers(answer) -> list | None:
    """A tensor (vizgrad or torch), list or tuple of numbers as a list of floats, else None."""
    if hasattr(answer, "tolist") and callable(answer.tolist):
        answer = answer.tolist()
    if not isinstance(answer, list | tuple):
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in answer):
        return None
    return [float(v) for v in answer]


@exercise(
    "16.other_branch",
    "traced = vg.jit.trace(L.sign_switch, vg.ones(3)). What does "
    "traced(vg.tensor([-1.0, 0.0, -2.0])) return? Answer with a list of three numbers (or "
    "a tensor).",
    hints=(
        "Which branch did the example input vg.ones(3) take?",
        "The traced function does not run sign_switch again: it runs the recorded operators.",
    ),
    solution="""
answer = [-2.0, 0.0, -4.0]  # the recorded branch: x * 2, whatever the sum
check("16.other_branch", answer)
""",
    explanation="The example's sum was positive, so the trace recorded x * 2 and nothing "
    "else. The graph has no `if`: on [-1, 0, -2] it still doubles, giving [-2, 0, -4], "
    "where the Python function would have subtracted 1. The TracerWarning at trace time "
    "said so.",
)
def _(answer):
    got = _numbers(answer)
    if got is None or len(got) != 3:
        raise Wrong("answer with three numbers: a list like [a, b, c], or a tensor.")
    traced = _trace_quietly(sign_switch, vg.ones(3))
    expected = traced(vg.tensor(list(OTHER_BRANCH_INPUT))).tolist()
    if np.allclose(got, expected):
        return
    python = sign_switch(vg.tensor(list(OTHER_BRANCH_INPUT))).tolist()
    if np.allclose(got, python):
        raise Wrong(
            "that is what the Python function returns on this input: its sum is negative, "
            "so sign_switch would take the other branch. But the traced function runs the "
            "recorded operators, and the example input vg.ones(3) recorded only one branch."
        )
    raise Wrong(
        f"{got} is not what the traced graph computes. Look at traced.graph: it has one "
        "aten:: operator, from the branch the example input took."
    )


# --- exercises 3 and 4: an fx graph, read and edited ----------------------------------------


class TinyNet(vg.nn.Module):
    """A Linear layer, a ReLU function and a sum: one call of each fx kind."""

    def __init__(self):
        super().__init__()
        self.fc = vg.nn.Linear(4, 3)

    def forward(self, x):
        h = self.fc(x)
        h = vg.relu(h)
        return h.sum(1)


def make_net() -> TinyNet:
    """The TinyNet of the notebook, with the same weights every time."""
    vg.manual_seed(16)
    return TinyNet()


_OPCODE_MEANING = {
    "placeholder": "an input of forward",
    "get_attr": "a parameter or buffer read directly",
    "call_module": "a call of a submodule (self.fc(...))",
    "call_function": "a call of a free function (vg.relu(...))",
    "call_method": "a method called on a value (h.sum(...))",
    "output": "what forward returns",
}


@exercise(
    "16.opcodes",
    "gm = vg.fx.symbolic_trace(L.make_net()). List the opcodes (node.op) of gm.graph's "
    "nodes, in order, as a list of strings.",
    hints=(
        "fx has six opcodes: placeholder, get_attr, call_module, call_function, call_method, "
        "output.",
        "Read TinyNet.forward line by line: self.fc(x), vg.relu(h), h.sum(1). Which kind of "
        "call is each?",
        "The graph starts with the input and ends with what forward returns.",
    ),
    solution="""
gm = vg.fx.symbolic_trace(L.make_net())
answer = ["placeholder", "call_module", "call_function", "call_method", "output"]
check("16.opcodes", answer)
""",
    explanation="x is a placeholder; self.fc(x) is call_module (fx keeps the Linear as one "
    "node, it does not look inside); vg.relu(h) is call_function; h.sum(1) is call_method; "
    "the return is the output node.",
)
def _(answer):
    if not isinstance(answer, list | tuple) or not all(isinstance(a, str) for a in answer):
        raise Wrong("answer with a list of strings, like ['placeholder', ...].")
    expected = [n.op for n in vg.fx.symbolic_trace(make_net()).graph.nodes]
    for i, (got, want) in enumerate(zip(answer, expected, strict=False)):
        if got != want:
            if got not in _OPCODE_MEANING:
                raise Wrong(f"node {i}: {got!r} is not an fx opcode; the six are "
                            f"{', '.join(_OPCODE_MEANING)}.")  # fmt: skip
            raise Wrong(f"node {i}: you said {got!r} ({_OPCODE_MEANING[got]}), but node {i} "
                        f"is {_OPCODE_MEANING[want]}.")  # fmt: skip
    if len(answer) < len(expected):
        raise Wrong(f"the graph has more than {len(answer)} nodes: go on to the end of forward, "
                    "and what it returns.")  # fmt: skip
    if len(answer) > len(expected):
        raise Wrong(f"the graph has {len(expected)} nodes, not {len(answer)}: one per input, "
                    "one per call in forward, one for the return.")  # fmt: skip


@exercise(
    "16.edit",
    "gm = vg.fx.symbolic_trace(L.make_net()). Edit gm's graph so that it calls "
    "vg.nn.functional.gelu where it called vg.relu, recompile, and answer with gm.",
    hints=(
        "Find the node: n.op == 'call_function' and n.target is vg.relu.",
        "with gm.graph.inserting_after(node): new = gm.graph.call_function("
        "vg.nn.functional.gelu, node.args) — then node.replace_all_uses_with(new) and "
        "gm.graph.erase_node(node).",
        "Editing the graph does not change the code forward runs until gm.recompile().",
    ),
    solution="""
gm = vg.fx.symbolic_trace(L.make_net())
for node in list(gm.graph.nodes):
    if node.op == "call_function" and node.target is vg.relu:
        with gm.graph.inserting_after(node):
            gelu = gm.graph.call_function(vg.nn.functional.gelu, node.args)
        node.replace_all_uses_with(gelu)
        gm.graph.erase_node(node)
gm.recompile()
answer = gm
check("16.edit", answer)
""",
    explanation="A GraphModule's forward is Python code generated from its graph. You "
    "changed the graph (one call_function node for another, every use rewired) and "
    "recompile() generated new code: gm now runs gelu, with the same Linear weights.",
)
def _(answer):
    if not isinstance(answer, vg.fx.GraphModule):
        raise Wrong(f"answer with the edited GraphModule gm, not {type(answer).__name__}.")
    functions = [n.target for n in answer.graph.nodes if n.op == "call_function"]
    if vg.relu in functions:
        raise Wrong("the graph still has a call_function node whose target is vg.relu: "
                    "replace it (and erase it once nothing uses it).")  # fmt: skip
    if vg.nn.functional.gelu not in functions:
        raise Wrong("the graph has no call_function node with target vg.nn.functional.gelu: "
                    "insert one with gm.graph.call_function(vg.nn.functional.gelu, args).")  # fmt: skip
    if "relu" in answer.code and "gelu" not in answer.code:
        raise Wrong("the graph is edited, but gm.code (what forward runs) still calls relu: "
                    "call gm.recompile() after editing the graph.")  # fmt: skip
    if not isinstance(getattr(answer, "fc", None), vg.nn.Linear):
        raise Wrong("gm has no submodule fc: trace L.make_net() and edit that GraphModule.")
    x = vg.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    with vg.no_grad():
        expected = vg.nn.functional.gelu(answer.fc(x)).sum(1)
        got = answer(x)
    if not isinstance(got, vg.Tensor) or got.shape != expected.shape:
        raise Wrong("gm(x) no longer returns one sum per row: keep the fc call and the "
                    "sum; change only relu to gelu.")  # fmt: skip
    if not np.allclose(got.numpy(), expected.numpy(), atol=1e-6):
        raise Wrong("gm(x) is not sum(gelu(fc(x)), 1): is gelu given the fc node's output "
                    "(node.args), and does the sum read the gelu node?")  # fmt: skip


# --- exercise 5: which tracer fails on which function, and how -----------------------------


def plain(x):
    """No control flow at all."""
    return (x * 2).sigmoid()


def branchy(x):
    """Control flow on a tensor's *value*."""
    if x.sum() > 0:
        return x.relu()
    return x.neg()


def rank_switch(x):
    """Control flow on a tensor's *rank*: a Python int in eager mode."""
    if x.dim() == 2:
        return x.t()
    return x


TRACED_FUNCTIONS = {"plain": plain, "branchy": branchy, "rank_switch": rank_switch}


def outcomes(fn) -> tuple[str, str]:
    """``(jit, fx)``: what each tracer does with ``fn``: "ok", "warns" or "raises"."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            vg.jit.trace(fn, vg.ones(2, 3))
            jit = "warns" if any(w.category is vg.jit.TracerWarning for w in caught) else "ok"
        except Exception:  # noqa: BLE001 - any failure of the tracer is the answer "raises"
            jit = "raises"
    try:
        vg.fx.symbolic_trace(fn)
        fx = "ok"
    except Exception:  # noqa: BLE001
        fx = "raises"
    return jit, fx


_WHY = {
    ("plain", "jit"): "plain has no control flow and converts no tensor to a Python value",
    ("plain", "fx"): "plain only calls tensor operations, which Proxies record",
    ("branchy", "jit"): "bool(x.sum() > 0) turns a tensor into a Python bool: jit.trace "
    "bakes in the branch taken and emits a TracerWarning",
    ("branchy", "fx"): "x.sum() > 0 is a Proxy, and `if` asks for its bool: a Proxy has no "
    "value, so symbolic tracing raises TraceError",
    ("rank_switch", "jit"): "x.dim() is a plain Python int on a real tensor: no tensor is "
    "converted, so there is nothing to warn about (the rank is simply fixed)",
    ("rank_switch", "fx"): "on a Proxy, x.dim() is itself a recorded call_method, a Proxy: "
    "`== 2` is another Proxy, and `if` on it raises TraceError",
}


@exercise(
    "16.which_fails",
    "For each of L.plain, L.branchy and L.rank_switch, say what vg.jit.trace(fn, "
    "vg.ones(2, 3)) and vg.fx.symbolic_trace(fn) do: 'ok', 'warns' or 'raises'. Answer "
    "with a dict {'plain': (jit, fx), 'branchy': (jit, fx), 'rank_switch': (jit, fx)}.",
    hints=(
        "jit.trace runs the function on real tensors; fx.symbolic_trace runs it on Proxies, "
        "which have no values at all.",
        "jit.trace warns when a tensor becomes a Python value (bool, item, int…); "
        "symbolic_trace raises TraceError when Python needs a Proxy's value.",
        "On a real tensor, x.dim() is a Python int. On a Proxy, it is a recorded method call.",
    ),
    solution="""
answer = {
    "plain": ("ok", "ok"),
    "branchy": ("warns", "raises"),
    "rank_switch": ("ok", "raises"),
}
check("16.which_fails", answer)
""",
    explanation="jit.trace sees values, so only a tensor-to-Python conversion troubles it, "
    "and it goes on with a warning. fx sees no values at all: any `if` on something "
    "computed from the input, even its rank, stops it with a TraceError.",
)
def _(answer):
    if not isinstance(answer, dict):
        raise Wrong("answer with a dict: {'plain': (jit, fx), 'branchy': (jit, fx), "
                    "'rank_switch': (jit, fx)}.")  # fmt: skip
    for name, fn in TRACED_FUNCTIONS.items():
        if name not in answer:
            raise Wrong(f"the dict has no entry for {name!r}.")
        got = answer[name]
        if not isinstance(got, list | tuple) or len(got) != 2:
            raise Wrong(f"{name}: give a pair (jit, fx), like ('ok', 'raises').")
        expected = outcomes(fn)
        for tracer, g, e in zip(("jit", "fx"), got, expected, strict=True):
            if g not in ("ok", "warns", "raises"):
                raise Wrong(f"{name}, {tracer}: {g!r} is not one of 'ok', 'warns', 'raises'.")
            if g != e:
                raise Wrong(f"{name}, {tracer}: not {g!r}. {_WHY[name, tracer]}.")

"""Lesson 6's checkers: right answers in any reasonable form pass, typical mistakes are explained.

Expected values come from running the lesson's code with torch: ``is_leaf``, the
``grad_fn`` chain, ``next_functions``, the gradient of ``sin`` and accumulated grads.
"""

from pathlib import Path

import nbformat
import pytest
import torch
from lesson_feedback import assert_one_at_a_time as _one_at_a_time
from lesson_feedback import assert_wrong as _wrong
from vizgrad.lessons import check
from vizgrad.lessons import lesson06 as lesson

import vizgrad as vg

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "06-the-autograd-graph.ipynb"


def _torch_run(source):
    namespace = {"vg": torch}
    exec(source, namespace)
    return namespace


# --- 06.leaves ------------------------------------------------------------------------


def _torch_leaves():
    namespace = _torch_run(lesson.LEAVES_CODE)
    return {name for name in lesson.LEAF_NAMES if namespace[name].is_leaf}


@pytest.mark.parametrize("form", [set, sorted, tuple, " ".join, ", ".join])
def test_leaves_right_in_any_form(form):
    assert check("06.leaves", form(sorted(_torch_leaves()))).correct


def test_leaves_explain_a_computed_leaf():
    feedback = _one_at_a_time("06.leaves", _torch_leaves() - {"d"}, "d is not a leaf",
                              "no, it is a leaf", "grad_fn is None", right=3)  # fmt: skip
    assert [str(part) for part in feedback.parts[:3]] == ["a is a leaf", "b is a leaf",
                                                         "c is not a leaf"]  # fmt: skip


def test_leaves_explain_a_recorded_result():
    _one_at_a_time("06.leaves", _torch_leaves() | {"c"}, "c is a leaf", "no, it is not a leaf",
                   "MulBackward0", right=2)  # fmt: skip
    _one_at_a_time("06.leaves", _torch_leaves() | {"e"}, "e is a leaf", "SumBackward0", right=4)
    _one_at_a_time("06.leaves", _torch_leaves() - {"a"}, "a is not a leaf", "requires_grad=True")


def test_leaves_explain_the_first_wrong_tensor_only():
    feedback = _one_at_a_time("06.leaves", {"c", "e"}, "a is not a leaf", "requires_grad=True",
                              more=4)  # fmt: skip
    assert "MulBackward0" not in repr(feedback) and "b is" not in feedback._repr_html_()


def test_leaves_reject_unknown_names():
    _wrong("06.leaves", {"a", "z"}, "z: not one of the tensors")


# --- 06.grad_fn_chain -----------------------------------------------------------------


def _torch_chain():
    node = _torch_run(lesson.CHAIN_CODE)["loss"].grad_fn
    names = []
    while node is not None:
        names.append(node.name().rsplit("::", 1)[-1])
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def test_chain_right_as_names_or_nodes():
    assert check("06.grad_fn_chain", _torch_chain()).correct
    assert check("06.grad_fn_chain", tuple(_torch_chain())).correct
    node, nodes = _torch_run(lesson.CHAIN_CODE)["loss"].grad_fn, []
    while node is not None:
        nodes.append(node)
        node = node.next_functions[0][0] if node.next_functions else None
    assert check("06.grad_fn_chain", nodes).correct


def test_chain_explains_a_missing_accumulate_grad():
    _one_at_a_time("06.grad_fn_chain", _torch_chain()[:-1], "position 3: missing",
                   "AccumulateGrad", "writes w.grad", right=3)  # fmt: skip


def test_chain_explains_the_forward_order_mistake():
    forward_order = [*reversed(_torch_chain()[:-1]), _torch_chain()[-1]]
    feedback = _one_at_a_time("06.grad_fn_chain", forward_order, "position 0: MulBackward0",
                              "in reverse", "MeanBackward0", more=1)  # fmt: skip
    assert "ExpBackward0" not in repr(feedback)  # position 1 is right; position 2 is held back


def test_chain_explains_node_names():
    short = [name.removesuffix("Backward0") for name in _torch_chain()]
    _one_at_a_time("06.grad_fn_chain", short, "position 0: Mean", "MeanBackward0",
                   "'Backward' and a number", more=2)  # fmt: skip


def test_chain_explains_extra_and_unknown_nodes():
    _one_at_a_time("06.grad_fn_chain", [*_torch_chain(), "x"], "after position 3: x",
                   "nothing comes after it", right=4)  # fmt: skip
    _one_at_a_time("06.grad_fn_chain", ["SumBackward0"], "loss.grad_fn is MeanBackward0, not "
                   "SumBackward0", more=3)  # fmt: skip
    _wrong("06.grad_fn_chain", "MeanBackward0", "list of strings")


# --- 06.next_functions ----------------------------------------------------------------


def _torch_next_functions():
    namespace = _torch_run(lesson.CHAIN_CODE)
    return (namespace["w"] * namespace["x"]).grad_fn.next_functions


def test_next_functions_right_as_names_or_as_the_tuple_itself():
    names = tuple(None if n is None else n.name().rsplit("::", 1)[-1]
                  for n, _ in _torch_next_functions())  # fmt: skip
    assert check("06.next_functions", names).correct
    assert check("06.next_functions", list(names)).correct
    assert check("06.next_functions", _torch_next_functions()).correct
    assert check("06.next_functions", ("AccumulateGrad", "None")).correct


def test_next_functions_explain_the_empty_slot():
    _wrong("06.next_functions", ("AccumulateGrad",), "2 entries", "keeps its slot")
    _one_at_a_time("06.next_functions", ("AccumulateGrad", "AccumulateGrad"), "entry 1 (for x)",
                   "it is None", right=1)  # fmt: skip


def test_next_functions_explain_the_leaf_node():
    _one_at_a_time("06.next_functions", ("MulBackward0", None), "entry 0 (for w)", "AccumulateGrad")
    feedback = _one_at_a_time("06.next_functions", ("MulBackward0", "MulBackward0"), "entry 0",
                              more=1)  # fmt: skip
    assert "does not require grad" not in repr(feedback)


# --- node names: every form torch prints is accepted, in lessons 6 and 9 alike ----------


def _torch_accumulate_grad():
    """The AccumulateGrad node of a torch leaf, and what torch shows of it."""
    node = torch.tensor(1.0, requires_grad=True).view(1).grad_fn.next_functions[0][0]
    return node, node.name(), repr(node)


def test_node_name_reads_every_form_torch_and_vizgrad_print():
    node, qualified, shown = _torch_accumulate_grad()
    assert qualified == "torch::autograd::AccumulateGrad"  # the form that needs normalising
    leaf_node = vg.tensor(1.0, requires_grad=True).view(1).grad_fn.next_functions[0][0]
    forms = [
        node,
        qualified,
        shown,
        f"  {qualified} ",
        leaf_node,
        leaf_node.name(),
        "AccumulateGrad",
    ]
    assert {lesson.node_name(form) for form in forms} == {"AccumulateGrad"}
    assert lesson.node_name(None) is None
    mul = (torch.ones(1, requires_grad=True) * 2).grad_fn
    assert lesson.node_name(mul) == lesson.node_name(repr(mul)) == mul.name() == "MulBackward0"

    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.exp()

    custom = Exp.apply(torch.ones(1, requires_grad=True)).grad_fn
    assert repr(custom).startswith("<torch.autograd.function.ExpBackward object")
    assert lesson.node_name(repr(custom)) == lesson.node_name(custom) == "ExpBackward"


def test_chain_and_next_functions_accept_qualified_names():
    _, qualified, shown = _torch_accumulate_grad()
    chain = _torch_chain()
    assert check("06.grad_fn_chain", [*chain[:-1], qualified]).correct
    assert check("06.grad_fn_chain", [*chain[:-1], "vizgrad::autograd::AccumulateGrad"]).correct
    assert check("06.grad_fn_chain", [*chain[:-1], shown]).correct
    assert check("06.next_functions", (qualified, None)).correct
    assert check("06.next_functions", ("vizgrad::autograd::AccumulateGrad", "None")).correct


# --- 06.saved_gradient ----------------------------------------------------------------


def test_saved_gradient_matches_torchs_sin_backward():
    w = torch.tensor([0.3, -1.2], requires_grad=True)
    w.sin().sum().backward()
    assert torch.allclose(w.grad, w.detach().cos())  # the formula the solution uses
    assert check("06.saved_gradient", lambda node: node._saved_self.cos()).correct
    assert check("06.saved_gradient", lambda node: vg.cos(node._saved_self)).correct


def test_saved_gradient_explains_typical_mistakes():
    _wrong("06.saved_gradient", lambda node: node._saved_self.sin(), "forward value")
    _wrong("06.saved_gradient", lambda node: -node._saved_self.cos(), "sign")
    notebook_w = vg.tensor([9.0, 8.0, 7.0, 6.0])
    _wrong("06.saved_gradient", lambda node: notebook_w.cos(), "only the node's saved tensors")
    _wrong("06.saved_gradient", lambda node: node._saved_other, "raised", "_saved_other")
    _wrong("06.saved_gradient", lambda node: 1.0, "return a vizgrad tensor")
    _wrong("06.saved_gradient", "cos", "give a function")


# --- 06.accumulated_grad --------------------------------------------------------------


def _torch_accumulated():
    return _torch_run(lesson.ACCUMULATE_CODE)["w"].grad


@pytest.mark.parametrize(
    "form", [lambda t: t, lambda t: t.tolist(), lambda t: vg.tensor(t.tolist())]
)
def test_accumulated_grad_right(form):
    assert check("06.accumulated_grad", form(_torch_accumulated())).correct


def test_accumulated_grad_explains_accumulation():
    once = (_torch_accumulated() / 3).tolist()
    _wrong("06.accumulated_grad", once, "ONE backward", "adds", "zero_grad")
    _wrong("06.accumulated_grad", [2 * v for v in once], "count the backward calls")
    _wrong("06.accumulated_grad", [1.0, 1.0, 1.0], "2 * w")
    _wrong("06.accumulated_grad", [6.0, 12.0], "w's shape")
    _wrong("06.accumulated_grad", "6, 12, 18", "list of numbers")


# --- the notebook shows what the checkers check -------------------------------------


def test_the_notebook_shows_the_checked_code():
    text = "\n".join(cell.source for cell in nbformat.read(NOTEBOOK, as_version=4).cells)
    for source in (lesson.LEAVES_CODE, lesson.CHAIN_CODE, lesson.ACCUMULATE_CODE):
        assert source.strip() in text

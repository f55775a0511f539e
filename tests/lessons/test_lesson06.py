"""Lesson 6's checkers: right answers in any reasonable form pass, typical mistakes are explained.

Expected values come from running the lesson's code with torch: ``is_leaf``, the
``grad_fn`` chain, ``next_functions``, the gradient of ``sin`` and accumulated grads.
"""

from pathlib import Path

import nbformat
import pytest
import torch
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
    message = _wrong("06.leaves", _torch_leaves() - {"d"}, "d is a leaf", "grad_fn is None")
    assert "a is" not in message and "c is" not in message


def test_leaves_explain_a_recorded_result():
    _wrong("06.leaves", _torch_leaves() | {"c"}, "c is not a leaf", "MulBackward0")
    _wrong("06.leaves", _torch_leaves() | {"e"}, "e is not a leaf", "SumBackward0")
    _wrong("06.leaves", _torch_leaves() - {"a"}, "a is a leaf", "requires_grad=True")


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
    _wrong("06.grad_fn_chain", _torch_chain()[:-1], "AccumulateGrad", "writes w.grad")


def test_chain_explains_the_forward_order_mistake():
    forward_order = [*reversed(_torch_chain()[:-1]), _torch_chain()[-1]]
    _wrong("06.grad_fn_chain", forward_order, "position 0", "in reverse", "MeanBackward0")


def test_chain_explains_node_names():
    short = [name.removesuffix("Backward0") for name in _torch_chain()]
    _wrong("06.grad_fn_chain", short, "position 0", "MeanBackward0", "'Backward' and a number")


def test_chain_explains_extra_and_unknown_nodes():
    _wrong("06.grad_fn_chain", [*_torch_chain(), "x"], "nothing comes after it")
    _wrong("06.grad_fn_chain", ["SumBackward0"], "loss.grad_fn is MeanBackward0, not SumBackward0")
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
    message = _wrong("06.next_functions", ("AccumulateGrad", "AccumulateGrad"), "entry 1", "None")
    assert "entry 0" not in message


def test_next_functions_explain_the_leaf_node():
    _wrong("06.next_functions", ("MulBackward0", None), "entry 0", "AccumulateGrad")


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

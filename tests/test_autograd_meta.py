"""AutogradMeta: a tensor's autograd state lives in one object (``variable.h``).

The Tensor class defines each autograd property once (in ``vizgrad/tensor.py``), and
nothing replaces it later; the state behind them is the tensor's ``_autograd_meta``.
"""

import warnings

import pytest

import vizgrad as vg
from vizgrad.autograd_meta import AutogradMeta, CreationMeta, DifferentiableViewMeta
from vizgrad.tensor import Tensor

DEFINED_IN_TENSOR_PY = ["grad", "grad_fn", "requires_grad", "is_leaf", "retains_grad", "_base",
                        "_grad_fn", "_requires_grad", "requires_grad_", "__hash__"]  # fmt: skip


@pytest.mark.parametrize("name", DEFINED_IN_TENSOR_PY)
def test_autograd_attributes_are_defined_once_in_tensor_py(name):
    attribute = Tensor.__dict__[name]
    function = attribute.fget if isinstance(attribute, property) else attribute
    assert function.__module__ == "vizgrad.tensor"
    assert function.__qualname__.startswith("Tensor.")


def test_a_plain_tensor_has_no_autograd_meta():
    a, b = vg.ones(2, 2), vg.ones(2, 2)
    for t in (a, b, a + b, a.sum(), a.detach()):
        assert t._autograd_meta is None
        assert t.grad is None and t.grad_fn is None and not t.requires_grad and t.is_leaf


def test_tensors_keep_no_autograd_state_outside_their_meta():
    t = vg.ones(2)
    assert not hasattr(t, "__dict__")
    with pytest.raises(AttributeError):
        t._grad_accumulator = None


def test_a_leaf_and_a_result_hold_pytorchs_fields():
    w = vg.ones(2, requires_grad=True)
    y = (w * 2).unbind(0)[1]
    (y * 3).backward()
    leaf, result = w._autograd_meta, y._autograd_meta
    assert type(leaf) is AutogradMeta
    assert leaf.requires_grad and leaf.grad_fn is None and leaf.grad is w.grad
    assert leaf.grad_accumulator.variable is w
    assert leaf.grad_accumulator is (w * 1).grad_fn.next_functions[0][0]  # one per leaf
    assert type(result) is DifferentiableViewMeta and result.base is y._base
    assert result.grad_fn is y.grad_fn and result.grad_fn.name() == "UnbindBackward0"
    assert result.output_nr == 1 and not result.retains_grad


def test_retain_grad_and_post_accumulate_hooks_live_in_the_meta():
    w = vg.ones(2, requires_grad=True)
    seen = []
    w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    assert list(w._autograd_meta.post_acc_grad_hooks.values())
    y = w * 2
    y.retain_grad()
    assert y._autograd_meta.retains_grad and y.retains_grad
    y.sum().backward()
    assert seen == [[2.0, 2.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a retained non-leaf grad does not warn
        assert y.grad.tolist() == [1.0, 1.0]


def test_a_view_meta_records_base_creation_meta_and_version():
    base = vg.zeros(2, 3)
    row = base[0]
    meta = row._autograd_meta
    assert isinstance(meta, DifferentiableViewMeta)
    assert meta.base is base and row._base is base and row._is_view()
    assert meta.creation_meta is CreationMeta.DEFAULT and meta.attr_version == row._version
    with vg.no_grad():
        quiet = base[1]
    assert quiet._autograd_meta.creation_meta is CreationMeta.NO_GRAD_MODE
    assert quiet._autograd_meta.attr_version == quiet._version
    parts = base.unbind(0)
    assert [v._autograd_meta.creation_meta for v in parts] == [CreationMeta.MULTI_OUTPUT_NODE] * 2


def test_a_stale_views_grad_fn_is_regenerated_through_its_meta():
    leaf = vg.ones(2, 3, requires_grad=True)
    base = leaf * 1
    first, second = base[0], base[1]
    assert first._autograd_meta.attr_version == first._version
    second.mul_(2)  # the base's history becomes CopySlices; ``first`` is stale now
    assert first._autograd_meta.attr_version != first._version
    assert first._grad_fn.name() == "SelectBackward0"  # the stored field, not yet regenerated
    assert first.grad_fn.name() == "AsStridedBackward0"
    assert first._autograd_meta.attr_version == first._version
    assert first.grad_fn.next_functions[0][0] is base.grad_fn
    assert base.grad_fn.name() == "vizgrad::autograd::CopySlices"


def test_the_gradient_passed_to_backward_is_left_untouched():
    w = vg.ones(2, 2, requires_grad=True)
    g = vg.ones(2, 2)
    w.backward(g)
    assert g._autograd_meta is None  # no mark left on it: the engine knew it was the caller's
    assert w.grad is not g and w.grad.tolist() == g.tolist()

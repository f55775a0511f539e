"""``AutogradMeta``: a tensor's autograd state, in one object (``torch/csrc/autograd/variable.h``).

PyTorch's ``TensorImpl`` holds a pointer, ``autograd_meta_``, to everything autograd
knows about the tensor; a tensor that autograd never touched has none (a null
pointer), which keeps plain tensor work cheap. vizgrad does the same:
``Tensor._autograd_meta`` is ``None`` until the tensor requires grad, gets a
``grad_fn`` or becomes a view.

This module sits in the core, beside ``tensor`` (as ``grad_mode`` does), because the
tensor holds it; the backward graph that its fields point into is ``vizgrad.autograd``.
"""

from __future__ import annotations

import enum

__all__ = [
    "AutogradMeta",
    "CreationMeta",
    "DifferentiableViewMeta",
    "set_view_history_regenerator",
]


class AutogradMeta:
    """One tensor's autograd state (PyTorch's ``AutogradMeta``, ``variable.h``).

    Each field is PyTorch's, without the trailing underscore:

    * ``requires_grad`` — gradients flow to (a leaf) or through (a non-leaf) this tensor;
    * ``grad`` — a leaf's accumulated gradient, what ``Tensor.grad`` returns (a non-leaf
      keeps one only after ``retain_grad()``);
    * ``grad_fn`` — the node that made this tensor (``MulBackward0``…); None for a leaf;
    * ``output_nr`` — which output of ``grad_fn`` this tensor is (``unbind`` makes many);
    * ``grad_accumulator`` — a leaf's ``AccumulateGrad`` node, the one node every use of
      the leaf sends its gradient to (PyTorch holds it weakly; vizgrad keeps it);
    * ``retains_grad`` — ``retain_grad()`` was called; its hook sits on ``grad_fn``, as
      PyTorch's ``retains_grad_hooks`` do;
    * ``backward_hooks`` — ``Tensor.register_hook``'s hooks, by handle id (PyTorch keeps
      this dict on the Python tensor as ``_backward_hooks``, and in ``hooks_`` for a leaf).
      The engine runs them from the tensor's node: a leaf's ``AccumulateGrad`` reads them
      here; a ``grad_fn`` holds the dict itself, registered when the first hook came
      (``_register_hook_dict``). When an in-place write gives the tensor a new ``grad_fn``,
      the dict stays with the old node (hooks registered before the write see the
      gradient of the old value) and a new one starts empty here;
    * ``post_acc_grad_hooks`` — ``register_post_accumulate_grad_hook``'s hooks, by handle id.
    """

    __slots__ = ("requires_grad", "grad", "grad_fn", "output_nr", "grad_accumulator",
                 "retains_grad", "backward_hooks", "post_acc_grad_hooks")  # fmt: skip

    def __init__(self):
        self.requires_grad = False
        self.grad = None
        self.grad_fn = None
        self.output_nr = 0
        self.grad_accumulator = None
        self.retains_grad = False
        self.backward_hooks = None
        self.post_acc_grad_hooks = None

    def current_grad_fn(self, tensor):
        """``grad_fn`` as ``Tensor.grad_fn`` reports it (a view's may need regenerating first)."""
        return self.grad_fn

    def told_to_require_grad(self) -> bool:
        """The stored flag alone (PyTorch's ``requires_grad_`` field), not a view's rule:
        only such a leaf gets an ``AccumulateGrad`` (``impl::grad_accumulator``)."""
        return _STORED_REQUIRES_GRAD.__get__(self)


_STORED_REQUIRES_GRAD = AutogradMeta.requires_grad  # the slot, under a view's property


class CreationMeta(enum.Enum):
    """How a differentiable view was made (PyTorch's ``CreationMeta``, ``variable.h``).

    Autograd handles an in-place write through a view by rewriting the base's history
    (``CopySlices``). That is only sound for a view made by a single-output view op in
    grad mode (``DEFAULT``); for the others PyTorch refuses the write, because the
    rewritten history would be wrong or ambiguous.
    """

    DEFAULT = "default"
    IN_CUSTOM_FUNCTION = "in custom function"  # its custom backward would be bypassed
    MULTI_OUTPUT_NODE = "multi-output node"  # unbind/split: one node for all the views
    NO_GRAD_MODE = "no_grad mode"  # made where nothing was recorded
    INFERENCE_MODE = "inference mode"


class DifferentiableViewMeta(AutogradMeta):
    """A view's ``AutogradMeta``, plus what makes it a view (PyTorch's ``DifferentiableViewMeta``).

    * ``base`` — the tensor that owns the memory (``Tensor._base``; a view of a view
      points at the root base), PyTorch's ``backward_info_.base_``;
    * ``creation_meta`` — how the view was made (``CreationMeta``);
    * ``attr_version`` — the version counter's value when the view's history was last set.
      When the base (or another view of it) is written in place, the shared counter moves
      on: the view's ``grad_fn`` is stale and is regenerated from the base's new history
      the next time it is asked for (``VariableHooks::grad_fn``), even for a view made
      while its base required no grad, if the write gave the base a history;
    * ``view_fn`` — how to make the view again from the base, when its size, strides and
      offset do not say it all: a view of another dtype (``view_as_real``) or with a math
      bit (``conj()``) somewhere on the way from the base (``ViewInfo::view_fn_``). None:
      ``as_strided`` of the base remakes it.
    """

    __slots__ = ("base", "creation_meta", "attr_version", "view_fn")

    def __init__(self, base, creation_meta=CreationMeta.DEFAULT, version=None, view_fn=None):
        super().__init__()
        self.base = base
        self.creation_meta = creation_meta
        self.attr_version = version
        self.view_fn = view_fn

    @property
    def requires_grad(self) -> bool:
        """A view requires grad when it was told to, has a history, or its base requires
        grad (PyTorch's ``DifferentiableViewMeta::requires_grad``): so a view made before
        its base had a history follows the base into the history an in-place write gives
        it."""
        return self.told_to_require_grad() or self.grad_fn is not None or self.base.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        _STORED_REQUIRES_GRAD.__set__(self, value)

    def current_grad_fn(self, view):
        if self.attr_version != view._version_counter.value:
            if self.grad_fn is None and not self.base.requires_grad:
                return None  # nothing to regenerate from: the base has no history either
            _regenerate_view_grad_fn(view, self)
        return self.grad_fn


def _regenerate_view_grad_fn(view, meta: DifferentiableViewMeta) -> None:
    """Stands until ``vizgrad.autograd`` installs the real one: without autograd, no history."""
    meta.attr_version = view._version_counter.value


def set_view_history_regenerator(regenerate) -> None:
    """Install ``regenerate(view, meta)``, which rebuilds a stale view's ``grad_fn``.

    The tensor core only notices that a view's history is stale; rebuilding it takes
    backward nodes, which ``vizgrad.autograd`` supplies here (as PyTorch's autograd
    library supplies ``VariableHooks::grad_fn`` to the core's ``Tensor::grad_fn``).
    """
    global _regenerate_view_grad_fn
    _regenerate_view_grad_fn = regenerate

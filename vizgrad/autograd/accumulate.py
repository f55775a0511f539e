"""``AccumulateGrad``'s work: adding a gradient into a leaf's ``.grad``.

The first gradient becomes ``.grad`` laid out as the leaf is (PyTorch's "gradient
layout contract", so ``param.grad`` lines up with ``param`` in memory). As in
PyTorch, it is *stolen*, not copied, when nobody else holds it and it already has
that layout: the common case of a training step, which then allocates no second
buffer per parameter. Later gradients are added to it, in place unless a graph of the
gradient itself is being built (``create_graph=True``), because then the old
``.grad`` may be part of that graph.
"""

from __future__ import annotations

import sys

import numpy as np

from .. import events
from ..ops.creation import empty, empty_strided
from ..shape import is_non_overlapping_and_dense
from .grad_mode import state as grad_state

__all__ = ["accumulate_into_leaf", "caller_held_gradients", "summarize"]


class _CallerHeldGradients:
    """The gradients passed to the ``backward()`` in progress, by id: their caller holds them.

    A leaf must not adopt such a gradient's layout as its ``.grad`` (see
    ``_obeys_layout_contract``). PyTorch tells by the tensor's reference count
    (``use_count``); here the engine names them for the length of its run.
    """

    __slots__ = ("ids",)

    def __init__(self):
        self.ids = frozenset()


caller_held_gradients = _CallerHeldGradients()


def summarize(grad) -> str:
    """A short description of a gradient for events: shape, dtype and a norm."""
    if grad is None:
        return "None"
    array = grad._values()._array if grad.is_sparse else grad._array
    norm = float(np.sqrt(np.sum(np.abs(array.astype(np.float64)) ** 2))) if array.size else 0.0
    return f"{list(grad._size)} {grad._dtype.name} |g|={norm:.4g}"


def _obeys_layout_contract(grad, variable) -> bool:
    """``obeys_layout_contract``: same strides as the dense ``variable`` where it matters
    (contiguous, for a variable with gaps or overlaps).

    A size-1 dim's stride never moves to another element, so it may differ (but not be
    0: such a gradient could be a broadcast view).
    """
    if not is_non_overlapping_and_dense(variable._size, variable._stride):
        return grad.is_contiguous()
    for size, grad_stride, stride in zip(grad._size, grad._stride, variable._stride, strict=True):
        if size != 1 and grad_stride != stride:
            return False
        if size == 1 and (grad_stride == 0 or stride == 0):
            return False
    return True


def _in_layout_of(variable, grad, may_keep_layout: bool):
    """A copy of ``grad`` laid out like ``variable`` (or contiguous if it has gaps)."""
    if is_non_overlapping_and_dense(variable._size, variable._stride):
        keep = may_keep_layout and _obeys_layout_contract(grad, variable)
        stride = grad._stride if keep else variable._stride
        result = empty_strided(variable._size, stride, dtype=grad.dtype, device=grad.device)
    else:
        result = empty(variable._size, dtype=grad.dtype, device=grad.device)
    return result.copy_(grad)  # (on ``grad``'s device, as ``grad.options()``: meta stays meta)


# The references to a gradient AccumulateGrad may steal, when nobody else holds it: the
# tuple the engine hands the node (its only one, see engine.py), ``accumulate_into_leaf``'s
# parameter, and ``sys.getrefcount``'s own argument. PyTorch's ``use_count`` test.
_ENGINE_REFERENCES = 3


def _accumulate_sparse(meta, grad, held_elsewhere: bool) -> None:
    """A sparse gradient, or a gradient for a sparse ``.grad`` (``accumulateGrad``'s sparse
    cases): the first is kept as a new sparse tensor over its parts when nobody else holds
    it (which, as ``_sparse_coo_tensor_unsafe``, forgets that it was coalesced unless it
    holds fewer than two elements), else cloned;
    a later one is added out of place, the dense operand first (dense + sparse is dense)."""
    if meta.grad is None:
        if not held_elsewhere and not grad_state.enabled:
            parts = (grad._sparse_indices, grad._sparse_values, grad._size)
            meta.grad = type(grad)(*parts)
        else:
            meta.grad = grad.clone()
    elif meta.grad.is_sparse and not grad.is_sparse:
        meta.grad = grad + meta.grad
    else:
        meta.grad = meta.grad + grad


def accumulate_into_leaf(variable, grad) -> None:
    """``AccumulateGrad::accumulateGrad``: ``variable.grad`` becomes ``grad``, or grows by it."""
    if grad is None:
        return
    held_by_caller = id(grad) in caller_held_gradients.ids
    held_elsewhere = held_by_caller or sys.getrefcount(grad) > _ENGINE_REFERENCES
    meta = variable._autograd_meta
    if not grad_state.enabled:
        grad = grad.detach()
    if grad.is_sparse or (meta.grad is not None and meta.grad.is_sparse):
        _accumulate_sparse(meta, grad, held_elsewhere)
    elif meta.grad is None:
        if not grad_state.enabled and not held_elsewhere and _obeys_layout_contract(grad, variable):
            meta.grad = grad  # stolen: nobody else can see it change
        else:
            meta.grad = _in_layout_of(variable, grad, may_keep_layout=not held_by_caller)
    elif grad_state.enabled:
        meta.grad = meta.grad + grad  # create_graph: keep the sum differentiable
    else:
        meta.grad.add_(grad)
    if "grad_accumulated" in events.bus.wanted:
        events.bus.emit(events.GradAccumulated(variable._id, summarize(meta.grad)))
    for hook in list((meta.post_acc_grad_hooks or {}).values()):
        hook(variable)

"""The autograd methods of ``Tensor``: ``backward``, hooks, ``retain_grad``, ``sum_to_size``.

The autograd *state* they read and write (``grad``, ``grad_fn``…) is the tensor's
``AutogradMeta``, whose properties ``vizgrad/tensor.py`` defines.
"""

from __future__ import annotations

from ..ops.registry import bind_method
from ..tensor import Tensor
from .entry_points import backward
from .graph import RemovableHandle

__all__ = ["sum_to"]


def sum_to(grad: Tensor, shape) -> Tensor:
    """Sum a broadcast gradient back to ``shape`` (``at::sum_to``): the VJP of broadcasting."""
    shape = tuple(shape)
    if grad._size == shape:
        return grad
    leading = len(grad._size) - len(shape)
    dims = list(range(leading))
    dims += [leading + i for i, n in enumerate(shape) if n == 1 and grad._size[leading + i] != 1]
    result = grad.sum(dim=dims, keepdim=True) if dims else grad
    return result.view(shape) if leading else result


def _sum_to_size(self, *size):
    shape = size[0] if len(size) == 1 and isinstance(size[0], tuple | list) else size
    return sum_to(self, shape)


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """``Tensor.backward``: accumulate d(self)/d(leaf) into every leaf's ``.grad``."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _retain_grad(self):
    """Keep this non-leaf's gradient in ``.grad`` after backward."""
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    meta = self._autograd_meta
    if meta.grad_fn is None or meta.retains_grad:
        return
    meta.grad_fn._retain_grad_hooks[meta.output_nr] = self
    meta.retains_grad = True


def _register_hook(self, hook):
    """``hook(grad)`` runs when this tensor's gradient is computed; it may return a new one.

    As ``torch/_tensor.py``'s: the hooks go in the tensor's dict (in its AutogradMeta),
    which the first hook registers with the tensor's ``grad_fn``; a leaf's
    ``AccumulateGrad`` reads the dict from the AutogradMeta itself.
    """
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    meta = self._autograd_meta
    if meta.backward_hooks is None:
        grad_fn = self.grad_fn  # (a view's stale history is regenerated first)
        meta.backward_hooks = {}
        if grad_fn is not None:
            grad_fn._register_hook_dict(meta.backward_hooks, meta.output_nr)
    handle = RemovableHandle(meta.backward_hooks)
    meta.backward_hooks[handle.id] = hook
    return handle


def _register_post_accumulate_grad_hook(self, hook):
    """``hook(tensor)`` runs after a leaf's ``.grad`` was updated."""
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    meta = self._autograd_meta
    if meta.post_acc_grad_hooks is None:
        meta.post_acc_grad_hooks = {}
    handle = RemovableHandle(meta.post_acc_grad_hooks)
    meta.post_acc_grad_hooks[handle.id] = hook
    return handle


def install() -> None:
    bind_method("backward", _backward)
    bind_method("retain_grad", _retain_grad)
    bind_method("register_hook", _register_hook)
    bind_method("register_post_accumulate_grad_hook", _register_post_accumulate_grad_hook)
    bind_method("sum_to_size", _sum_to_size)

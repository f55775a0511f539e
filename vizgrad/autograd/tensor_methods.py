"""The autograd side of ``Tensor``: ``backward``, hooks, ``retain_grad``, ``sum_to_size``."""

from __future__ import annotations

import warnings

from ..ops.registry import bind_method
from ..tensor import Tensor
from .graph import RemovableHandle, gradient_edge
from .view_history import refresh_view_grad_fn

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
    from . import backward

    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _grad_fn(self):
    refresh_view_grad_fn(self)
    return self._grad_fn


def _grad_get(self):
    if self._grad_fn is not None and not self._retains_grad:
        warnings.warn(
            "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
            ".grad attribute won't be populated during autograd.backward(). If you indeed want "
            "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
            "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
            "the leaf Tensor instead.",
            UserWarning,
            stacklevel=2,
        )
    return self._grad


def _grad_set(self, value):
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(
                f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}"
            )
        if value._dtype is not self._dtype:
            raise RuntimeError("assigned grad has data of a different type")
        if value._size != self._size:
            raise RuntimeError("assigned grad has data of a different size")
    self._grad = value


def _retain_grad(self):
    """Keep this non-leaf's gradient in ``.grad`` after backward."""
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None or self._retains_grad:
        return
    node = self._grad_fn
    handle = RemovableHandle(node._retain_grad_hooks)
    node._retain_grad_hooks[handle.id] = (self._output_nr, self)
    self._retains_grad = True


def _register_hook(self, hook):
    """``hook(grad)`` runs when this tensor's gradient is computed; it may return a new one."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    node, output_nr = gradient_edge(self)
    handle = RemovableHandle(node._tensor_pre_hooks)
    node._tensor_pre_hooks[handle.id] = (output_nr, hook)
    return handle


def _register_post_accumulate_grad_hook(self, hook):
    """``hook(tensor)`` runs after a leaf's ``.grad`` was updated."""
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._post_accumulate_hooks is None:
        self._post_accumulate_hooks = {}
    handle = RemovableHandle(self._post_accumulate_hooks)
    self._post_accumulate_hooks[handle.id] = hook
    return handle


def install() -> None:
    bind_method("backward", _backward)
    bind_method("retain_grad", _retain_grad)
    bind_method("register_hook", _register_hook)
    bind_method("register_post_accumulate_grad_hook", _register_post_accumulate_grad_hook)
    bind_method("sum_to_size", _sum_to_size)
    Tensor.grad_fn = property(_grad_fn)
    Tensor.grad = property(_grad_get, _grad_set)
    Tensor.retains_grad = property(lambda self: self._retains_grad)

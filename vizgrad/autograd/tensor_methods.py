"""The autograd methods of ``Tensor``: ``backward``, hooks, ``retain_grad``, ``sum_to_size``.

``backward``, ``register_hook`` and ``register_post_accumulate_grad_hook`` are Python
methods of ``torch.Tensor`` in PyTorch (``torch/_tensor.py``), and ``retain_grad`` a
method its Python binding writes by hand (``python_variable.cpp``): they stay plain
Python methods here, defined on ``Tensor`` once. ``sum_to_size`` is an operator
(``aten::sum_to_size``, CompositeImplicitAutograd), declared from its schema: it is
how autograd sums a broadcast gradient back to its input's shape (``at::sum_to``).

The autograd *state* they read and write (``grad``, ``grad_fn``…) is the tensor's
``AutogradMeta``, whose properties ``vizgrad/tensor.py`` defines.
"""

from __future__ import annotations

from ..dispatcher import COMPOSITE_IMPLICIT
from ..ops.declaration import native_function
from ..tensor import Tensor, define_method
from .entry_points import backward
from .graph import RemovableHandle

__all__ = ["sum_to_size"]


def _sum_to_size_kernel(self: Tensor, size) -> Tensor:
    """``at::sum_to``: sum the dims that were broadcast (leading ones, and size-1 ones).

    Nothing to sum gives the tensor itself; an empty ``size`` is a full ``sum()`` (a new
    tensor, of ``sum``'s dtype, even for a 0-d tensor summed to ``()``).
    """
    size = tuple(size)
    leading = len(self._size) - len(size)
    expandable = leading >= 0 and all(
        n == 1 or n == m for n, m in zip(size, self._size[leading:], strict=True)
    )
    if not expandable:
        raise RuntimeError(
            f"size {{{list(size)}}} is not expandable to size {{{list(self._size)}}}."
        )
    if not size:
        return self.sum()
    if self._size == size:
        return self
    dims = list(range(leading))
    dims += [leading + i for i, n in enumerate(size) if n == 1 and self._size[leading + i] != 1]
    result = self.sum(dim=dims, keepdim=True) if dims else self
    return result.view(size) if leading else result


sum_to_size = native_function(
    "sum_to_size(Tensor self, SymInt[] size) -> Tensor",
    kernel=_sum_to_size_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="method",
    doc="``Tensor.sum_to_size(*size)``: sum this tensor down to ``size`` (which must "
    "expand to this tensor's shape): the gradient of broadcasting.",
)


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """``Tensor.backward``: accumulate d(self)/d(leaf) into every leaf's ``.grad``."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _retain_grad(self):
    """``Tensor.retain_grad``: keep this non-leaf's gradient in ``.grad`` after backward."""
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
    """``Tensor.register_post_accumulate_grad_hook``: ``hook(tensor)`` runs after a leaf's
    ``.grad`` was updated."""
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
    """Define the Python autograd methods on ``Tensor`` (once, when autograd is set up)."""
    define_method("backward", _backward)
    define_method("retain_grad", _retain_grad)
    define_method("register_hook", _register_hook)
    define_method("register_post_accumulate_grad_hook", _register_post_accumulate_grad_hook)

"""Running the user's backward hooks, and checking what they return (``python_hook.cpp``).

A node of the backward graph runs three kinds of hooks (``engine.cpp``'s
``call_function``), each of which may replace gradients:

1. **tensor hooks** (``Tensor.register_hook``), on the gradient of one output of the
   node: each hook gets that gradient (None if the output got none) and may return a
   new one; then ``retain_grad()`` keeps a copy in the tensor's ``.grad``;
2. **pre-hooks** (``Node.register_prehook``), on all of the node's output gradients;
3. **post-hooks** (``Node.register_hook``), after the node, on the gradients it computed
   for its inputs (with its output gradients for reference).

A hook may compute anything, so PyTorch checks each replacement before it goes on
(``check_single_result``, ``check_variable_result``): a tensor, of the same type and
size as the gradient it replaces, where there was a gradient; as many values as it was
given. A wrong value is an error naming the hook, never a silently wrong ``.grad``.
"""

from __future__ import annotations

from .. import events
from ..device import contiguous_format
from ..tensor import Tensor
from .graph import tensor_type_name

__all__ = ["call_tensor_pre_hooks", "call_pre_hooks", "call_post_hooks"]


def _hook_name(hook) -> str:
    return getattr(hook, "__name__", "<unknown>")


def _check_single_result(original, result, hook) -> None:
    """A hook's replacement for one gradient (``check_single_result``)."""
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    if original._dtype is not result._dtype or original.device != result.device:
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has changed the type of value (was "
            f"{tensor_type_name(original)} got {tensor_type_name(result)})"
        )
    if original._size != result._size:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")


def _check_result(previous: tuple, result, hook) -> tuple:
    """A hook's replacement for a tuple of gradients (``check_result``)."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(previous):
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got "
            f"{len(result)}, but expected {len(previous)})"
        )
    for original, value in zip(previous, result, strict=True):
        if value is not None:
            _check_single_result(original, value, hook)
    return result


def call_tensor_pre_hooks(node, buffer: list) -> list:
    """Step 1: the tensor hooks of each output, then ``retain_grad``'s copies."""
    tensor_hooks = node.tensor_pre_hooks()
    if not tensor_hooks and not node._retain_grad_hooks:
        return buffer  # most nodes: nothing to call
    for output_nr, hooks in list(tensor_hooks):
        for hook in list(hooks.values()):
            grad = buffer[output_nr] if output_nr < len(buffer) else None
            new = hook(grad)
            if "hook_fired" in events.bus.wanted:
                events.bus.emit(events.HookFired("tensor", node._id))
            if new is not None:
                _check_single_result(grad, new, hook)
                buffer[output_nr] = new
    for output_nr, retaining in list(node._retain_grad_hooks.items()):
        grad = buffer[output_nr] if output_nr < len(buffer) else None
        if grad is not None:
            meta = retaining._autograd_meta
            # As ``VariableHooks::retain_grad``: a contiguous clone (with its history under
            # ``create_graph``, so a retained gradient can be differentiated again).
            if meta.grad is None:
                meta.grad = grad.clone(memory_format=contiguous_format)
            else:
                meta.grad = meta.grad + grad
    return buffer


def call_pre_hooks(node, buffer: list) -> list:
    """Step 2: the node's pre-hooks, on all its output gradients at once."""
    if not node._pre_hooks:
        return buffer
    for hook in list(node._pre_hooks.values()):
        previous = tuple(buffer)
        new = hook(previous)
        if "hook_fired" in events.bus.wanted:
            events.bus.emit(events.HookFired("node_pre", node._id))
        if new is not None:
            buffer = list(_check_result(previous, new, hook))
    return buffer


def call_post_hooks(node, grad_inputs: tuple, grad_outputs: tuple) -> tuple:
    """Step 3: the node's post-hooks, on the gradients it computed for its inputs."""
    if not node._hooks:
        return grad_inputs
    for hook in list(node._hooks.values()):
        new = hook(grad_inputs, grad_outputs)
        if "hook_fired" in events.bus.wanted:
            events.bus.emit(events.HookFired("node", node._id))
        if new is not None:
            grad_inputs = _check_result(grad_inputs, new, hook)
    return grad_inputs

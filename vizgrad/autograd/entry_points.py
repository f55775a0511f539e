"""Autograd's two entry points: ``torch.autograd.backward`` and ``torch.autograd.grad``.

Both check their arguments and run the engine (``engine.run_backward``): ``backward``
accumulates into the leaves' ``.grad``, ``grad`` returns the gradients instead.
``Tensor.backward`` is ``backward`` with the tensor as the root.
"""

from __future__ import annotations

from ..ops.creation import zeros_like
from ..tensor import Tensor
from .engine import run_backward

__all__ = ["backward", "grad"]


def _as_tensor_tuple(x):
    if x is None:
        return None
    return tuple(x) if isinstance(x, tuple | list) else (x,)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None) -> None:  # fmt: skip
    """``torch.autograd.backward``: accumulate gradients of ``tensors`` into the leaves' ``.grad``."""
    tensors = _as_tensor_tuple(tensors)
    grad_tensors = _as_tensor_tuple(grad_tensors) or (None,) * len(tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(
            "grad can be implicitly created only for scalar outputs"
            if not grad_tensors
            else f"got {len(grad_tensors)} gradients for {len(tensors)} tensors"
        )
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tensor_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    run_backward(tensors, grad_tensors, retain_graph=retain_graph, create_graph=create_graph,
                 inputs=inputs, accumulate=True)  # fmt: skip
    if inputs is not None:
        return None


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):  # fmt: skip
    """``torch.autograd.grad``: the gradients of ``outputs`` w.r.t. ``inputs``, returned, not accumulated."""
    outputs = _as_tensor_tuple(outputs)
    inputs = _as_tensor_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    grad_outputs = _as_tensor_tuple(grad_outputs) or (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"grad(): inputs must be Tensors, not {type(t).__name__}")
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    results = run_backward(outputs, grad_outputs, retain_graph=retain_graph,
                           create_graph=create_graph, inputs=inputs, allow_unused=allow_unused,
                           accumulate=False)  # fmt: skip
    if materialize_grads:
        results = [
            r if r is not None else zeros_like(t) for r, t in zip(results, inputs, strict=True)
        ]
    return tuple(results)

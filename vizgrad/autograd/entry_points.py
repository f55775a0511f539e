"""Autograd's two entry points: ``torch.autograd.backward`` and ``torch.autograd.grad``.

Both are PyTorch's Python code (``torch/autograd/__init__.py``), and so are these: they
turn what the caller passed into tuples (``_tensor_or_tensors_to_tuple``), make the
gradients the backward pass starts from (``_make_grads``: ones for a scalar output,
else the caller's, checked against the output's shape), and run the engine
(``engine.run_backward``, PyTorch's ``_engine_run_backward``): ``backward``
accumulates into the leaves' ``.grad``, ``grad`` returns the gradients instead.
``Tensor.backward`` is ``backward`` with the tensor as the root.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Mapping

from ..ops.creation import ones_like, zeros_like
from ..ops.joining import stack
from ..tensor import Tensor
from .engine import run_backward

__all__ = ["backward", "grad"]


def _tensor_or_tensors_to_tuple(tensors, length: int) -> tuple:
    if tensors is None:
        return (None,) * length
    if isinstance(tensors, Tensor):
        return (tensors,)
    return tuple(tensors)


def _inputs_tuple(inputs, caller: str) -> tuple:
    """``inputs=``: one tensor, a sequence of them, or a dict (whose values are the inputs)."""
    if isinstance(inputs, Tensor):
        return (inputs,)
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(
            f"`inputs` argument to `{caller}()` must be a dict, not {type(inputs).__name__}. "
            "Other Mapping types are not supported."
        )
    return tuple(inputs)


def _make_grads(outputs: tuple, grads: tuple, *, is_grads_batched: bool) -> tuple:
    """The gradient each output starts with: the caller's (checked), or ones for a scalar."""
    made = []
    for index, (out, grad) in enumerate(zip(outputs, grads, strict=False)):
        if not isinstance(out, Tensor):
            raise AssertionError("Expected output to be a vizgrad.Tensor")
        if isinstance(grad, Tensor):
            first = grad[0] if is_grads_batched else grad
            if first._size != out._size:
                if is_grads_batched:
                    raise RuntimeError(
                        "If `is_grads_batched=True`, we interpret the first dimension of each "
                        "grad_output as the batch dimension. The sizes of the remaining "
                        "dimensions are expected to match the shape of corresponding output, "
                        f"but a mismatch was detected: grad_output[{index}] has a shape of "
                        f"{first.shape!r} and output[{index}] has a shape of {out.shape!r}. If "
                        "you only want some tensors in `grad_output` to be considered batched, "
                        "consider using vmap."
                    )
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{index}] has a shape of {grad.shape!r} and "
                    f"output[{index}] has a shape of {out.shape!r}."
                )
            made.append(grad)
        elif grad is None:
            if not out.requires_grad:
                made.append(None)
                continue
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out.is_floating_point():
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"{out.dtype}"
                )
            made.append(ones_like(out))
        else:
            raise TypeError(
                f"gradients can be either Tensors or None, but got {type(grad).__name__}"
            )
    return tuple(made)


def _engine_flag(value) -> bool:
    """A flag handed to the C++ engine (``retain_graph``, ``create_graph``…).

    PyTorch parses these as an unsigned byte (``PyArg_ParseTuple``'s ``b``), so an int
    is a flag, anything else is a TypeError, and the engine never sees ``"yes"``.
    """
    number = operator.index(value)  # TypeError: 'str' object cannot be interpreted as ...
    if number < 0:
        raise OverflowError("unsigned byte integer is less than minimum")
    if number > 255:
        raise OverflowError("unsigned byte integer is greater than maximum")
    return bool(number)


def _engine_inputs(inputs: tuple) -> tuple:
    for value in inputs:
        if not isinstance(value, Tensor):
            raise RuntimeError(
                f"all inputs have to be Tensors or GradientEdges, but got {type(value).__name__}"
            )
    return inputs


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None) -> None:  # fmt: skip
    """``torch.autograd.backward``: accumulate gradients of ``tensors`` into the leaves' ``.grad``."""
    if grad_variables is not None:
        warnings.warn(
            "`grad_variables` is deprecated. Use `grad_tensors` instead.",
            FutureWarning,
            stacklevel=2,
        )
        if grad_tensors is not None:
            raise RuntimeError(
                "`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                "`backward()`. Please only use `grad_tensors`."
            )
        grad_tensors = grad_variables
    inputs_tuple = () if inputs is None else _inputs_tuple(inputs, "backward")
    if inputs is not None and not inputs_tuple:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
    grads = _tensor_or_tensors_to_tuple(grad_tensors, len(tensors))
    grads = _make_grads(tensors, grads, is_grads_batched=False)
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(tensors, grads, retain_graph=_engine_flag(retain_graph),
                 create_graph=_engine_flag(create_graph),
                 inputs=_engine_inputs(inputs_tuple) or None, accumulate=True)  # fmt: skip


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):  # fmt: skip
    """``torch.autograd.grad``: the gradients of ``outputs`` w.r.t. ``inputs``, returned, not accumulated.

    With ``is_grads_batched=True`` the first dimension of each ``grad_outputs`` tensor is a
    batch: PyTorch runs the backward pass under ``vmap``; vizgrad, which has no ``vmap``,
    runs it once per batch element and stacks the results, which is what ``vmap`` means.
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    inputs_tuple = _inputs_tuple(inputs, "grad")
    if not inputs_tuple:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            FutureWarning,
            stacklevel=2,
        )
    grads = _tensor_or_tensors_to_tuple(grad_outputs, len(outputs))
    grads = _make_grads(outputs, grads, is_grads_batched=is_grads_batched)
    if retain_graph is None:
        retain_graph = create_graph
    retain_graph, create_graph = _engine_flag(retain_graph), _engine_flag(create_graph)
    allow_unused = _engine_flag(allow_unused)
    _engine_inputs(inputs_tuple)

    def vjp(grads, retain=retain_graph):
        return run_backward(outputs, grads, retain_graph=retain, create_graph=create_graph,
                            inputs=inputs_tuple, allow_unused=allow_unused,
                            accumulate=False)  # fmt: skip

    result = _batched(vjp, grads, retain_graph) if is_grads_batched else vjp(grads)
    if materialize_grads:
        result = [
            r if r is not None else zeros_like(t, requires_grad=create_graph)
            for r, t in zip(result, inputs_tuple, strict=True)
        ]
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result, strict=True))
    return tuple(result)


def _batched(vjp, grads: tuple, retain_graph: bool) -> list:
    """``vmap(vjp)`` over the first dimension of the gradients: one backward per element.

    The graph must survive every pass but the last (unless the caller retains it).
    """
    for g in grads:
        if g is not None and g.dim() == 0:
            raise ValueError(
                "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that "
                "input is a Tensor of dimensionality 0 so expected in_dim to satisfy "
                "0 <= in_dim < 0."
            )
    size = next(g.shape[0] for g in grads if g is not None)
    per_element = [
        vjp(tuple(None if g is None else g[i] for g in grads), retain=retain_graph or i < size - 1)
        for i in range(size)
    ]
    return [
        None if results[0] is None else stack(list(results))
        for results in zip(*per_element, strict=True)
    ]

"""Custom operators with their own backward (``torch.autograd.Function``).

Subclass ``Function`` with two static methods::

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)        # y.grad_fn is an ExpBackward node

``forward`` runs with grad mode off (what it does is not recorded); ``apply`` records
one node for the whole call, whose ``apply`` is your ``backward``. This is the same
contract as a PyTorch kernel with a formula in ``derivatives.yaml``, written in Python.
"""

from __future__ import annotations

import functools

from ..autograd_meta import CreationMeta
from ..dtypes import FLOATING
from ..ops.creation import zeros
from ..tensor import Tensor
from .anomaly import anomaly_state, capture_forward_trace
from .grad_mode import no_grad
from .grad_mode import state as grad_state
from .graph import (
    FREED_GRAPH_MESSAGE,
    Node,
    SavedTensor,
    announce_node,
    gradient_edge,
    set_grad_fn,
)
from .recording import check_inplace_allowed

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    """What ``forward`` uses to leave notes for ``backward``."""

    def save_for_backward(self, *tensors) -> None:
        """Keep tensors (or None) for backward; they are version-checked when read back."""
        for position, value in enumerate(tensors):
            if not (value is None or isinstance(value, Tensor)):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{position} is of type {type(value).__name__}"
                )
        self._to_save = tensors

    def mark_dirty(self, *tensors) -> None:
        """Declare the inputs that ``forward`` modified in place."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """Declare outputs that never get a gradient (indices, masks…)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """If False, ``backward`` gets None (not zeros) for outputs that got no gradient."""
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node a custom Function records; it is also the ``ctx`` its methods receive."""

    def __init__(self, function_class, next_edges):
        super().__init__(next_edges)
        self._function_class = function_class
        self._to_save = ()
        self._saved = None
        self._dirty = ()
        self._non_differentiable = ()
        self._released = False
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._output_meta = ()

    def name(self) -> str:
        return f"{self._function_class.__name__}Backward"

    def __repr__(self) -> str:
        # PyTorch makes a Python class per Function in torch.autograd.function, so the
        # node prints with that module: ``<torch.autograd.function.MyFnBackward object at 0x…>``.
        return f"<{__name__}.{self.name()} object at {id(self):#x}>"

    @property
    def saved_tensors(self) -> tuple:
        if self._released:
            raise RuntimeError(FREED_GRAPH_MESSAGE)
        if self._saved is None:
            return tuple(self._to_save)
        return tuple(s.unpack() if isinstance(s, SavedTensor) else s for s in self._saved)

    def apply(self, grad_outputs: tuple) -> tuple:
        grads = list(grad_outputs) + [None] * (len(self._output_meta) - len(grad_outputs))
        if self.materialize_grads:
            grads = [
                g
                if g is not None or meta is None
                else zeros(meta[0], dtype=meta[1], device=meta[2])
                for g, meta in zip(grads, self._output_meta, strict=False)
            ]
        result = self._function_class.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self.needs_input_grad)
        if len(result) != expected:
            # PyTorch allows extra trailing Nones; anything else is a mistake.
            if len(result) > expected and all(r is None for r in result[expected:]):
                result = result[:expected]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {expected}, got {len(result)})"
                )
        # Only tensor inputs have edges; drop the gradients of non-tensor arguments.
        grads_by_edge = []
        for value, is_tensor in zip(result, self._input_is_tensor, strict=True):
            if not (value is None or isinstance(value, Tensor)):
                raise RuntimeError(f"expected Variable or None (got {type(value).__name__})")
            if is_tensor:
                grads_by_edge.append(value)
            elif value is not None:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at a "
                    "position where the input is not a Tensor"
                )
        return tuple(grads_by_edge)

    def _release(self) -> None:
        self._released = True


class _FunctionMeta(type):
    """Gives each Function its own node class, ``<Name>Backward`` (``FunctionMeta`` in
    ``torch/autograd/function.py``): what ``type(y.grad_fn).__name__`` says."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(metaclass=_FunctionMeta):
    """Base class of custom differentiable operations; call them with ``.apply``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        tensor_inputs = [a for a in args if isinstance(a, Tensor)]
        edges = [gradient_edge(a) if isinstance(a, Tensor) else None for a in args]
        node = cls._backward_cls(cls, [e for e in edges if e is not None])
        node._input_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        # What each gradient must fit (``validate_outputs`` sums and casts to it).
        node._input_meta = tuple((t._size, t._dtype, t.device) for t in tensor_inputs)
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        record = grad_state.enabled and any(t.requires_grad for t in tensor_inputs)

        uses_setup_context = cls.setup_context is not Function.setup_context
        previous = grad_state.enabled
        grad_state.enabled = False
        try:
            if uses_setup_context:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, outputs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
        finally:
            grad_state.enabled = previous

        is_tuple = isinstance(outputs, tuple)
        results = list(outputs) if is_tuple else [outputs]
        if record:
            results = _set_function_history(node, args, results)
            saved = [v.tensor for v in node._saved if isinstance(v, SavedTensor)]
            announce_node(node, [r for r in results if getattr(r, "_grad_fn", None) is node], saved)
            if anomaly_state.enabled:
                node._anomaly_trace = capture_forward_trace()
        return tuple(results) if is_tuple else results[0]


def _set_function_history(node, args, results):
    dirty = {id(t) for t in node._dirty}
    non_diff = {id(t) for t in node._non_differentiable}
    input_ids = {id(a) for a in args if isinstance(a, Tensor)}
    for t in node._dirty:
        check_inplace_allowed(t)
    out = []
    meta = []
    for i, result in enumerate(results):
        if not isinstance(result, Tensor):
            out.append(result)
            meta.append(None)
            continue
        if id(result) in input_ids and id(result) not in dirty:
            # An input returned as it is: the output is a new alias of it, as in PyTorch.
            result = result.view_as(result)
        if id(result) in non_diff or result._dtype.category < FLOATING:
            meta.append(None)
        else:
            autograd_meta = set_grad_fn(result, node, i)
            if result._base is not None and id(result) not in dirty:
                # Writing it in place would bypass the custom backward: PyTorch forbids it.
                autograd_meta.creation_meta = CreationMeta.IN_CUSTOM_FUNCTION
            meta.append((result._size, result._dtype, result.device))
        out.append(result)
    node._output_meta = tuple(meta)
    node._saved = tuple(
        SavedTensor(t, node, is_output=t._grad_fn is node) if isinstance(t, Tensor) else t
        for t in node._to_save
    )
    return out


def once_differentiable(backward):
    """Decorate ``backward`` when it cannot itself be differentiated (runs it under no_grad)."""

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        with no_grad():
            return backward(ctx, *grads)

    return wrapper

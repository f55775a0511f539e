"""The backward of a reduction: ``sum_backward``, ``mean_backward``… (``FunctionsManual.cpp``).

A reduction's gradient flows from each output element back to the input elements that
were folded into it: added into a sum, spread evenly over a mean, given to the picked
element of a ``max(dim)`` or ``sort``, shared by the ties of a full ``max``. Every
formula here is written with vizgrad operators, so that with ``create_graph=True`` the
backward is itself recorded and can be differentiated again. The ``*_derivative``
helpers wrap the formulas as the declarations of the ``(values, indices)`` ops need
them (PyTorch's ``derivatives.yaml`` entries).
"""

from __future__ import annotations

import math

from ..derivatives import Derivative
from ..tensor import Tensor
from .reduction_args import reduction_dims

__all__: list[str] = []


def unsqueeze_reduced(grad: Tensor, dims, ndim: int, keepdim: bool) -> Tensor:
    """``unsqueeze_multiple``: put back the reduced dims (size 1) that ``keepdim=False``
    dropped, so the gradient broadcasts against the input again."""
    if keepdim or ndim == 0:
        return grad
    for d in sorted(reduction_dims(dims, ndim)):
        grad = grad.unsqueeze(d)
    return grad


def sum_backward(grad: Tensor, sizes, dims, keepdim: bool) -> Tensor:
    """Every input element added into an output element gets that element's gradient:
    the gradient is *expanded* (a stride-0 view, nothing copied) back to the input."""
    return unsqueeze_reduced(grad, dims, len(sizes), keepdim).expand(sizes)


def reduced_count(sizes, dims) -> int:
    """How many input elements each output element of a reduction over ``dims`` folds."""
    return math.prod(sizes[d] for d in reduction_dims(dims, len(sizes))) if sizes else 1


def mean_backward(grad: Tensor, sizes, dims, keepdim: bool) -> Tensor:
    """A mean is a sum divided by the count: its gradient is the sum's, divided too."""
    return sum_backward(grad, sizes, dims, keepdim) / reduced_count(sizes, dims)


def evenly_distribute_backward(grad: Tensor, input: Tensor, value: Tensor) -> Tensor:
    """Full ``max``/``min``/``median``: the gradient goes to the elements equal to the
    answer, split evenly when several are (ties), as PyTorch's formula does. A nan
    answer came from the nans, so they share the gradient."""
    if input.is_meta:  # no value to branch on: PyTorch's branch-free form (for subclasses)
        mask = (input == value).logical_or_(input.isnan().logical_and(value.isnan()))
    else:
        mask = input.isnan() if value.isnan().item() else input == value
    return mask * (grad / mask.sum())


def scale_grad_by_count(grad: Tensor, mask: Tensor, dims) -> Tensor:
    """``amax``/``amin``: each reduced slice's gradient is shared by its tied extremes."""
    return (grad / mask.sum(dims, keepdim=True)) * mask


def extreme_backward(grad: Tensor, input: Tensor, result: Tensor, dims, keepdim: bool):
    """The backward of ``amax``/``amin`` over ``dims``: the elements that equal the result
    of their slice share its gradient."""
    dims = reduction_dims(dims, input.dim())
    grad = unsqueeze_reduced(grad, dims, input.dim(), keepdim)
    result = unsqueeze_reduced(result, dims, input.dim(), keepdim)
    return scale_grad_by_count(grad, result == input, dims)


def value_selecting_reduction_backward(grad: Tensor, dim: int, indices: Tensor, sizes,
                                       keepdim: bool) -> Tensor:  # fmt: skip
    """``max(dim)``, ``sort``, ``topk``, ``median(dim)``…: each output value was *picked*
    from one input position, recorded in ``indices``; its gradient goes back there and
    every other position gets zero (a ``scatter`` into zeros)."""
    if not keepdim and sizes:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    return grad.new_zeros(sizes).scatter(dim, indices, grad)  # ``zeros(sizes, grad.options())``


def _selected_values_backward(keepdim: bool | None = None):
    """The formula of a ``(values, indices)`` op: ``keepdim=None`` reads the call's own
    ``keepdim``; ``sort`` and ``topk`` keep every dim (``True``)."""

    def formula(grad, saved):
        keep = saved.keepdim if keepdim is None else keepdim
        return value_selecting_reduction_backward(grad, saved.dim, saved.indices,
                                                  saved.self_sym_sizes, keep)  # fmt: skip

    return formula


def selecting_derivative(name: str, *, keepdim: bool | None = None) -> Derivative:
    """The derivative of an op returning ``(values, indices)``: only values carry grads."""
    save = ("self_sym_sizes", "dim", "indices") + (("keepdim",) if keepdim is None else ())
    return Derivative(name, save=save, differentiable_outputs=(0,),
                      grads={"self": _selected_values_backward(keepdim)})  # fmt: skip


def evenly_distributed_derivative(name: str) -> Derivative:
    """Full ``max``/``min``/``median``/``nanmedian``: one value, shared by its ties."""
    return Derivative(name, save=("self", "result"), grads={
        "self": lambda grad, saved: evenly_distribute_backward(grad, saved.self, saved.result)})  # fmt: skip

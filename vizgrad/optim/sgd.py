"""``torch.optim.SGD``: stochastic gradient descent, with momentum and Nesterov.

``p -= lr * g``, where ``g`` is the gradient (negated with ``maximize``, plus
``weight_decay * p``), or with momentum the buffer ``b = momentum * b + (1 - dampening) * g``
(the first step's buffer is ``g`` itself), or with Nesterov ``g + momentum * b``.
"""

from __future__ import annotations

from ..tensor import Tensor
from .optimizer import Optimizer, check_fused, to_scalar, use_grad_for_differentiable

__all__ = ["SGD"]


class SGD(Optimizer):
    """``torch.optim.SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
    nesterov=False, *, maximize=False, foreach=None, differentiable=False, fused=None)``."""

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")

        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused(fused, differentiable, foreach)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def _init_group(self, group, params, grads, momentum_buffer_list):
        for p in group["params"]:
            if p.grad is not None:
                params.append(p)
                grads.append(p.grad)
                if group["momentum"] != 0:
                    momentum_buffer_list.append(self.state[p].get("momentum_buffer"))

    @use_grad_for_differentiable
    def step(self, closure=None):
        """One step over every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate_closure(closure)

        for group in self.param_groups:
            params: list[Tensor] = []
            grads: list[Tensor] = []
            momentum_buffer_list: list[Tensor | None] = []
            self._init_group(group, params, grads, momentum_buffer_list)

            _single_tensor_sgd(
                params,
                grads,
                momentum_buffer_list,
                weight_decay=group["weight_decay"],
                momentum=group["momentum"],
                lr=group["lr"],
                dampening=group["dampening"],
                nesterov=group["nesterov"],
                maximize=group["maximize"],
            )

            if group["momentum"] != 0:
                # The first step made the buffers: keep them in the state.
                for p, momentum_buffer in zip(params, momentum_buffer_list, strict=True):
                    self.state[p]["momentum_buffer"] = momentum_buffer

        return loss


def _single_tensor_sgd(
    params, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening, nesterov,
    maximize,
) -> None:  # fmt: skip
    """PyTorch's for-loop SGD (its default on the CPU), operation by operation."""
    lr = to_scalar(lr)

    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]

        if weight_decay != 0:
            if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
                # The differentiable path: the decay term stays in the graph.
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)

        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = grad.detach().clone()
                momentum_buffer_list[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)

            grad = grad.add(buf, alpha=momentum) if nesterov else buf

        if isinstance(lr, Tensor) and lr.requires_grad:
            param.addcmul_(grad, lr, value=-1)
        else:
            param.add_(grad, alpha=-lr)

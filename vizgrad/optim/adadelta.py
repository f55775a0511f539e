"""``torch.optim.Adadelta``: steps whose size is the ratio of two running RMS values.

``v = rho * v + (1 - rho) * g * g`` (the gradients' mean square) and
``delta = sqrt(u + eps) / sqrt(v + eps) * g`` where ``u`` is the same running mean of
past ``delta ** 2``; the parameter moves by ``lr * delta``. The ratio carries the
parameter's units, so ``lr`` defaults to 1.
"""

from __future__ import annotations

from ..ops.creation import zeros_like
from ..tensor import Tensor
from .optimizer import (
    CAPTURABLE_DEVICES_NO_XLA,
    Optimizer,
    check_capturable,
    check_real,
    to_scalar,
    use_grad_for_differentiable,
    zero_step,
)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``torch.optim.Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0,
    foreach=None, *, capturable=False, maximize=False, differentiable=False)``."""

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")

        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            self._steps_as_tensors(group)

    def _init_group(self, group, params, grads, square_avgs, acc_deltas, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = zero_step()
                state["square_avg"] = zeros_like(p)
                state["acc_delta"] = zeros_like(p)
            square_avgs.append(state["square_avg"])
            acc_deltas.append(state["acc_delta"])
            state_steps.append(state["step"])
        check_real(params, type(self).__name__)

    @use_grad_for_differentiable
    def step(self, closure=None):
        """One step over every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate_closure(closure)

        for group in self.param_groups:
            params, grads, square_avgs, acc_deltas, state_steps = [], [], [], [], []
            self._init_group(group, params, grads, square_avgs, acc_deltas, state_steps)
            _single_tensor_adadelta(
                params,
                grads,
                square_avgs,
                acc_deltas,
                state_steps,
                lr=group["lr"],
                rho=group["rho"],
                eps=group["eps"],
                weight_decay=group["weight_decay"],
                maximize=group["maximize"],
                differentiable=group["differentiable"],
                capturable=group["capturable"],
            )

        return loss


def _single_tensor_adadelta(
    params, grads, square_avgs, acc_deltas, state_steps, *, lr, rho, eps, weight_decay, maximize,
    differentiable, capturable,
) -> None:  # fmt: skip
    """PyTorch's for-loop Adadelta (its default on the CPU), operation by operation."""
    if params:
        check_capturable(capturable, CAPTURABLE_DEVICES_NO_XLA)
    lr = to_scalar(lr)

    for param, grad, square_avg, acc_delta, step in zip(
        params, grads, square_avgs, acc_deltas, state_steps, strict=True
    ):
        step += 1
        grad = grad if not maximize else -grad

        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)

        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if differentiable:
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)

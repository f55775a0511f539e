"""``torch.optim.RAdam``: Adam with a rectified warm-up.

Early on, Adam's second moment rests on few gradients and its adaptive step size has
a large variance. RAdam estimates the length of the moving average (``rho_t``) and,
until it exceeds 5, steps by the bias-corrected first moment alone (plain momentum
SGD); afterwards it takes Adam's adaptive step scaled by a rectification factor
``r_t`` that grows towards 1.
"""

from __future__ import annotations

from ..ops.creation import zeros_like
from ..tensor import Tensor
from .optimizer import (
    Optimizer,
    check_capturable,
    check_real,
    get_value,
    to_scalar,
    use_grad_for_differentiable,
    zero_step,
)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """``torch.optim.RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
    differentiable=False)``."""

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")

        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("capturable", False)
            self._steps_as_tensors(group)

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = zero_step()
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            state_steps.append(state["step"])
        check_real(params, type(self).__name__)

    @use_grad_for_differentiable
    def step(self, closure=None):
        """One step over every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate_closure(closure)

        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, state_steps = [], [], [], [], []
            beta1, beta2 = group["betas"]
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, state_steps)
            _single_tensor_radam(
                params,
                grads,
                exp_avgs,
                exp_avg_sqs,
                state_steps,
                beta1=beta1,
                beta2=beta2,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                eps=group["eps"],
                decoupled_weight_decay=group["decoupled_weight_decay"],
                maximize=group["maximize"],
                differentiable=group["differentiable"],
                capturable=group["capturable"],
            )

        return loss


def _single_tensor_radam(
    params, grads, exp_avgs, exp_avg_sqs, state_steps, *, beta1, beta2, lr, weight_decay, eps,
    decoupled_weight_decay, differentiable, maximize, capturable,
) -> None:  # fmt: skip
    """PyTorch's for-loop RAdam (its default on the CPU), operation by operation."""
    lr = to_scalar(lr)

    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_t = state_steps[i]
        check_capturable(capturable)

        step_t += 1
        step = get_value(step_t)

        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)

        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        bias_corrected_exp_avg = exp_avg / bias_correction1

        # The maximum and the current length of the approximated simple moving average.
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2

        if rho_t > 5.0:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            exp_avg_sq_sqrt = exp_avg_sq.sqrt()
            if differentiable:
                exp_avg_sq_sqrt = exp_avg_sq_sqrt.add(eps)
            else:
                exp_avg_sq_sqrt = exp_avg_sq_sqrt.add_(eps)
            adaptive_lr = (bias_correction2**0.5) / exp_avg_sq_sqrt
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)

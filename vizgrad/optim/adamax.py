"""``torch.optim.Adamax``: Adam with the infinity norm in place of the RMS.

The first moment is Adam's, ``m = lerp(m, g, 1 - beta1)``; the second is a decaying
maximum, ``u = max(beta2 * u, |g| + eps)``, which needs no bias correction. The update
is ``lr / (1 - beta1 ** step) * m / u``.
"""

from __future__ import annotations

from ..ops.arithmetic import maximum
from ..ops.creation import zeros_like
from ..ops.joining import cat
from ..ops.min_max import amax
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

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """``torch.optim.Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8,
    weight_decay=0, foreach=None, *, maximize=False, differentiable=False,
    capturable=False)``."""

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
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
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
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

    def _init_group(self, group, params, grads, exp_avgs, exp_infs, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = zero_step()
                state["exp_avg"] = zeros_like(p)
                state["exp_inf"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_infs.append(state["exp_inf"])
            state_steps.append(state["step"])
        check_real(params, type(self).__name__)

    @use_grad_for_differentiable
    def step(self, closure=None):
        """One step over every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate_closure(closure)

        for group in self.param_groups:
            params, grads, exp_avgs, exp_infs, state_steps = [], [], [], [], []
            beta1, beta2 = group["betas"]
            self._init_group(group, params, grads, exp_avgs, exp_infs, state_steps)
            _single_tensor_adamax(
                params,
                grads,
                exp_avgs,
                exp_infs,
                state_steps,
                eps=group["eps"],
                beta1=beta1,
                beta2=beta2,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                maximize=group["maximize"],
                differentiable=group["differentiable"],
                capturable=group["capturable"],
            )

        return loss


def _single_tensor_adamax(
    params, grads, exp_avgs, exp_infs, state_steps, *, eps, beta1, beta2, lr, weight_decay,
    maximize, differentiable, capturable,
) -> None:  # fmt: skip
    """PyTorch's for-loop Adamax (its default on the CPU), operation by operation."""
    lr = to_scalar(lr)

    for i, param in enumerate(params):
        grad = grads[i]
        grad = grad if not maximize else -grad
        exp_avg = exp_avgs[i]
        exp_inf = exp_infs[i]
        step_t = state_steps[i]
        check_capturable(capturable)

        step_t += 1

        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)

        exp_avg.lerp_(grad, 1 - beta1)
        if not differentiable:
            maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        else:
            # out= is not differentiable: the same maximum as a reduction over a stack.
            norm_buf = cat(
                [exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0
            )
            exp_inf.copy_(amax(norm_buf, 0, keepdim=False))

        bias_correction = 1 - beta1 ** get_value(step_t)
        clr = lr / bias_correction
        param.addcdiv_(exp_avg, exp_inf, value=-clr)

"""``torch.optim.Adagrad``: a learning rate per element, shrinking with the gradients seen.

``sum += g * g``; the update is ``lr / (1 + (step - 1) * lr_decay) * g / (sqrt(sum) + eps)``.
Elements with large past gradients take small steps from then on. The sums start at
``initial_accumulator_value`` and, unlike the other optimizers' state, exist from the
constructor on.
"""

from __future__ import annotations

from ..ops.creation import full_like
from ..ops.creation import tensor as _tensor
from ..tensor import Tensor
from .optimizer import (
    Optimizer,
    check_fused,
    check_real,
    get_value,
    scalar_dtype,
    to_scalar,
    use_grad_for_differentiable,
    zero_step,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """``torch.optim.Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0,
    initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
    differentiable=False, fused=None)``."""

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not lr_decay >= 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not initial_accumulator_value >= 0.0:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")

        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        check_fused(fused, differentiable, foreach)

        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(self.state[p], p, group)

    def _init_state(self, state, p, group) -> None:
        state["step"] = zero_step(group["fused"])
        check_real([p], type(self).__name__)
        state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])

    def __setstate__(self, state):
        super().__setstate__(state)
        fused = None
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            fused = group.setdefault("fused", None)
            self._steps_as_tensors(group)
        state_values = list(self.state.values())
        step_is_tensor = len(state_values) != 0 and isinstance(state_values[0]["step"], Tensor)
        if not step_is_tensor:
            for s in state_values:
                s["step"] = _tensor(float(s["step"]), dtype=scalar_dtype(fused))

    def _init_group(self, group, params, grads, state_sums, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:  # a parameter added after construction
                self._init_state(state, p, group)
            state_sums.append(state["sum"])
            state_steps.append(state["step"])

    @use_grad_for_differentiable
    def step(self, closure=None):
        """One step over every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate_closure(closure)

        for group in self.param_groups:
            params, grads, state_sums, state_steps = [], [], [], []
            self._init_group(group, params, grads, state_sums, state_steps)
            _single_tensor_adagrad(
                params,
                grads,
                state_sums,
                state_steps,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                lr_decay=group["lr_decay"],
                eps=group["eps"],
                maximize=group["maximize"],
                differentiable=group["differentiable"],
            )

        return loss


def _single_tensor_adagrad(
    params, grads, state_sums, state_steps, *, lr, weight_decay, lr_decay, eps, maximize,
    differentiable,
) -> None:  # fmt: skip
    """PyTorch's for-loop Adagrad (its default on the CPU), operation by operation."""
    lr = to_scalar(lr)

    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps, strict=True):
        step_t += 1
        step = get_value(step_t)
        grad = grad if not maximize else -grad

        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)

        clr = lr / (1 + (step - 1) * lr_decay)

        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt() + eps if differentiable else state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)

"""``torch.optim.NAdam``: Adam with Nesterov momentum.

Adam's running averages, but the step looks ahead: it mixes the current gradient,
weighted by ``1 - mu_t``, with the first moment, weighted by the *next* step's momentum
``mu_{t+1}``, each divided by the product of all momenta so far (``mu_product``, kept
in the state). The momentum ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``
warms up over the first steps.
"""

from __future__ import annotations

from ..ops.creation import tensor as _tensor
from ..ops.creation import zeros_like
from ..tensor import Tensor
from .optimizer import (
    Optimizer,
    check_capturable,
    check_real,
    get_value,
    scalar_dtype,
    step_from_number,
    to_scalar,
    use_grad_for_differentiable,
    zero_step,
)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """``torch.optim.NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None, maximize=False,
    capturable=False, differentiable=False)``."""

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
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
        if not momentum_decay >= 0.0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")

        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0:
                    if not isinstance(p_state["step"], Tensor):
                        p_state["step"] = step_from_number(p_state["step"])
                    if not isinstance(p_state["mu_product"], Tensor):
                        p_state["mu_product"] = _tensor(p_state["mu_product"], dtype=scalar_dtype())

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, mu_products, steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = zero_step()
                state["mu_product"] = _tensor(1.0, dtype=scalar_dtype())
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            mu_products.append(state["mu_product"])
            steps.append(state["step"])
        check_real(params, type(self).__name__)

    @use_grad_for_differentiable
    def step(self, closure=None):
        """One step over every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate_closure(closure)

        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, mu_products, steps = [], [], [], [], [], []
            beta1, beta2 = group["betas"]
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, mu_products, steps)
            _single_tensor_nadam(
                params,
                grads,
                exp_avgs,
                exp_avg_sqs,
                mu_products,
                steps,
                beta1=beta1,
                beta2=beta2,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                momentum_decay=group["momentum_decay"],
                eps=group["eps"],
                decoupled_weight_decay=group["decoupled_weight_decay"],
                maximize=group["maximize"],
                capturable=group["capturable"],
                differentiable=group["differentiable"],
            )

        return loss


def _single_tensor_nadam(
    params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2, lr,
    weight_decay, momentum_decay, eps, decoupled_weight_decay, maximize, capturable,
    differentiable,
) -> None:  # fmt: skip
    """PyTorch's for-loop NAdam (its default on the CPU), operation by operation."""
    lr = to_scalar(lr)

    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        mu_product = mu_products[i]
        step_t = state_steps[i]
        check_capturable(capturable, what="params, mu_products and state_steps")

        step_t += 1
        step = get_value(step_t)

        bias_correction2 = 1 - beta2**step

        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)

        # This step's and the next step's momentum; their running product is state.
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))

        mu_product *= mu

        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()

        if differentiable:
            # Tensor arithmetic keeps mu_product in the graph.
            denom = denom.add(eps)
            mu_product_next = mu_product * mu_next
            grad = grad * (-lr * (1.0 - mu) / (1.0 - mu_product))
            exp_avg = exp_avg * (-lr * mu_next / (1.0 - mu_product_next))
            param.addcdiv_(grad, denom)
            param.addcdiv_(exp_avg, denom)
        else:
            mu_product_next = get_value(mu_product) * mu_next
            denom.add_(eps)
            param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - get_value(mu_product))))
            param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))

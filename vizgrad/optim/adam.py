"""``torch.optim.Adam``: adaptive moment estimation.

Two running averages per parameter: of the gradient, ``m = lerp(m, g, 1 - beta1)``,
and of its square, ``v = beta2 * v + (1 - beta2) * g * g``. Both start at zero, so
early on they are too small: dividing by ``1 - beta ** step`` (the bias correction)
undoes that. The update is ``p -= lr * m_hat / (sqrt(v_hat) + eps)``. ``amsgrad``
divides by the largest ``v`` seen so far instead; ``decoupled_weight_decay`` shrinks
the parameter directly (AdamW) instead of adding ``weight_decay * p`` to the gradient.
"""

from __future__ import annotations

from ..ops.arithmetic import maximum
from ..ops.creation import zeros_like
from ..tensor import Tensor
from .optimizer import (
    Optimizer,
    check_capturable,
    check_fused,
    check_real,
    get_value,
    to_scalar,
    use_grad_for_differentiable,
    zero_step,
)

__all__ = ["Adam"]


class Adam(Optimizer):
    """``torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    amsgrad=False, *, foreach=None, maximize=False, capturable=False, differentiable=False,
    fused=None, decoupled_weight_decay=False)``."""

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ) -> None:
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError(
                    "lr as a Tensor is not supported for capturable=False and foreach=True"
                )
            if lr.numel() != 1:
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
        if not (
            (isinstance(betas[0], float) and isinstance(betas[1], float))
            or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))
        ):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(
                        f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True"
                    )
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(to_scalar, betas))

        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        check_fused(fused, differentiable, foreach)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)
            self._steps_as_tensors(group)

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:  # the state is made at the first step
                state["step"] = zero_step(group["fused"])
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            if group["differentiable"] and state["step"].requires_grad:
                raise RuntimeError(
                    "`requires_grad` is not supported for `step` in differentiable mode"
                )
            steps.append(state["step"])
        check_real(params, type(self).__name__)

    @use_grad_for_differentiable
    def step(self, closure=None):
        """One step over every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate_closure(closure)

        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps = [], [], [], [], [], []
            beta1, beta2 = group["betas"]
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps)
            _single_tensor_adam(
                params,
                grads,
                exp_avgs,
                exp_avg_sqs,
                max_exp_avg_sqs,
                steps,
                amsgrad=group["amsgrad"],
                beta1=beta1,
                beta2=beta2,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                eps=group["eps"],
                maximize=group["maximize"],
                capturable=group["capturable"],
                differentiable=group["differentiable"],
                decoupled_weight_decay=group["decoupled_weight_decay"],
            )

        return loss


def _single_tensor_adam(
    params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1, beta2,
    lr, weight_decay, eps, maximize, capturable, differentiable, decoupled_weight_decay,
) -> None:  # fmt: skip
    """PyTorch's for-loop Adam (its default on the CPU), operation by operation."""
    lr = to_scalar(lr)
    beta1 = to_scalar(beta1)
    beta2 = to_scalar(beta2)
    # A tensor beta1 is the weight of lerp, which wants the parameter's dtype.
    beta1_by_dtype = {beta1.dtype: beta1} if isinstance(beta1, Tensor) else None

    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_t = state_steps[i]
        check_capturable(capturable)

        step_t += 1

        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            elif differentiable and isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)

        if beta1_by_dtype is not None:
            if param.dtype not in beta1_by_dtype:
                beta1_by_dtype[param.dtype] = beta1.to(dtype=param.dtype)
            device_beta1 = beta1_by_dtype[param.dtype]
        else:
            device_beta1 = beta1

        # The running averages of the gradient and of its square.
        exp_avg.lerp_(grad, 1 - device_beta1)
        if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
            # lerp keeps a tensor beta2 in the graph (addcmul's value must be a number).
            exp_avg_sq.lerp_(grad.square(), 1 - beta2)
        else:
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

        if differentiable:
            # The step stays a tensor, so the bias corrections are graph nodes too.
            step = step_t
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            step_size = lr / bias_correction1
            step_size_neg = step_size.neg()
            bias_correction2_sqrt = bias_correction2.sqrt()
            if amsgrad:
                max_exp_avg_sq = max_exp_avg_sqs[i].clone()
                max_exp_avg_sqs[i].copy_(maximum(max_exp_avg_sq, exp_avg_sq))
                denom = (max_exp_avg_sqs[i].sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(
                    eps / step_size_neg
                )
            else:
                denom = (exp_avg_sq.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(
                    eps / step_size_neg
                )
            param.addcdiv_(exp_avg.clone(), denom)
        else:
            # The bias corrections in double precision, from the step as a Python float.
            step = get_value(step_t)
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2**0.5

            if amsgrad:
                maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
                denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
            else:
                denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)

            param.addcdiv_(exp_avg, denom, value=-step_size)

"""``torch.optim.RMSprop``: divide the gradient by a running root mean square.

``v = alpha * v + (1 - alpha) * g * g``; the update is ``g / (sqrt(v) + eps)``.
``centered`` subtracts the square of a running mean of the gradient first (an
estimate of the variance instead of the raw second moment); ``momentum`` accumulates
the normalised gradient in a buffer and steps by the buffer.
"""

from __future__ import annotations

from ..ops.creation import zeros_like
from ..tensor import Tensor
from .optimizer import (
    Optimizer,
    check_capturable,
    check_real,
    to_scalar,
    use_grad_for_differentiable,
    zero_step,
)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``torch.optim.RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0,
    momentum=0, centered=False, capturable=False, foreach=None, maximize=False,
    differentiable=False)``."""

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not momentum >= 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not alpha >= 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")

        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            self._steps_as_tensors(group)

    def _init_group(self, group, params, grads, square_avgs, momentum_buffers, grad_avgs, steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = zero_step()
                state["square_avg"] = zeros_like(p)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(p)
            square_avgs.append(state["square_avg"])
            steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffers.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])
        check_real(params, type(self).__name__)

    @use_grad_for_differentiable
    def step(self, closure=None):
        """One step over every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate_closure(closure)

        for group in self.param_groups:
            params, grads, square_avgs, grad_avgs, momentum_buffers, steps = [], [], [], [], [], []
            self._init_group(group, params, grads, square_avgs, momentum_buffers, grad_avgs, steps)
            _single_tensor_rmsprop(
                params,
                grads,
                square_avgs,
                grad_avgs,
                momentum_buffers,
                steps,
                lr=group["lr"],
                alpha=group["alpha"],
                eps=group["eps"],
                weight_decay=group["weight_decay"],
                momentum=group["momentum"],
                centered=group["centered"],
                maximize=group["maximize"],
                differentiable=group["differentiable"],
                capturable=group["capturable"],
            )

        return loss


def _single_tensor_rmsprop(
    params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, *, lr, alpha, eps,
    weight_decay, momentum, centered, maximize, differentiable, capturable,
) -> None:  # fmt: skip
    """PyTorch's for-loop RMSprop (its default on the CPU), operation by operation."""
    lr = to_scalar(lr)

    for i, param in enumerate(params):
        step = state_steps[i]
        check_capturable(capturable)

        grad = grads[i]
        grad = grad if not maximize else -grad
        square_avg = square_avgs[i]

        step += 1

        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)

        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)

        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()

        avg = avg.add(eps) if differentiable else avg.add_(eps)

        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)

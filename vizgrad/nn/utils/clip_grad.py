"""Gradient clipping (``torch.nn.utils.clip_grad``): bound the gradients before a step.

``clip_grad_norm_`` scales all gradients together so that their joint norm (the norm
of the per-tensor norms) is at most ``max_norm``; ``clip_grad_value_`` clamps each
element to ``[-clip_value, clip_value]``. Both write the gradients in place, under
``no_grad``, with the engine's operators (``linalg_vector_norm``, ``mul_``, ``clamp_``).

``foreach`` is accepted and ignored: PyTorch's fused ``_foreach_*`` kernels give the
same results as the loop over the tensors that vizgrad always runs.
"""

from __future__ import annotations

import functools
import types
import warnings

from ...grad_mode import no_grad
from ...ops.creation import tensor as make_tensor
from ...ops.joining import stack
from ...ops.logical import logical_or
from ...ops.norms import linalg_vector_norm
from ...ops.unary import clamp
from ...tensor import Tensor

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]


def _no_grad(func):
    """Run ``func`` under ``no_grad``: clipping changes gradients, it is not differentiated."""

    @functools.wraps(func)
    def _no_grad_wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)

    return _no_grad_wrapper


def _by_dtype(tensors: list) -> dict:
    """The tensors grouped by dtype, in order of first appearance (PyTorch groups by
    device and dtype, ``_group_tensors_by_device_and_dtype``; here there is one device)."""
    groups: dict = {}
    for t in tensors:
        groups.setdefault(t.dtype, []).append(t)
    return groups


@_no_grad
def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:  # fmt: skip
    """The norm of the tensors' norms: the norm of all their elements as one vector."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return make_tensor(0.0)
    norms = [
        linalg_vector_norm(g, norm_type) for group in _by_dtype(tensors).values() for g in group
    ]
    total_norm = linalg_vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and logical_or(total_norm.isnan(), total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor,
                          foreach=None) -> None:  # fmt: skip
    """Scale the gradients by ``min(1, max_norm / (total_norm + 1e-6))``."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    # Multiplying by a coefficient clamped to 1 changes nothing, and spares a comparison
    # (on an accelerator, a synchronisation) to decide whether to multiply.
    clip_coef_clamped = clamp(clip_coef, max=1.0)
    for group in _by_dtype(grads).values():
        for g in group:
            g.mul_(clip_coef_clamped)


@_no_grad
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None) -> Tensor:  # fmt: skip
    """Scale the gradients of ``parameters`` together so that their total norm (of order
    ``norm_type``, ``inf`` for the largest element) is at most ``max_norm``. Returns the
    total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)  # a generator would be exhausted by the first pass
        if is_generator and len(parameters) == 0:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=3,
            )
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None) -> Tensor:  # fmt: skip
    """Deprecated: ``clip_grad_norm_``."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element of ``parameters`` to ``[-clip_value, clip_value]``."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for group in _by_dtype(grads).values():
        for grad in group:
            grad.clamp_(min=-clip_value, max=clip_value)

"""vizgrad.autograd: reverse-mode automatic differentiation (``torch.autograd``).

* ``recording`` — the AutogradCPU kernel that records ``grad_fn`` nodes;
* ``graph`` — nodes, edges, ``AccumulateGrad``, saved tensors with version checks;
* ``formula`` — derivative formulas, declared beside each operator;
* ``view_history`` — in-place writes through views (``CopySlices``);
* ``engine`` — the backward pass: dependency counts and a ready queue;
* ``entry_points`` — ``backward`` and ``grad``, the calls that start it;
* ``accumulate`` — what ``AccumulateGrad`` does to a leaf's ``.grad``;
* ``grad_mode``, ``anomaly`` — ``no_grad`` and ``detect_anomaly``;
* ``function`` — custom ``Function``s; ``gradcheck`` — checking gradients numerically;
* ``variable`` — ``Variable``, the pre-0.4 name that now returns a plain tensor;
* ``graph_events`` — a live graph (``tensor_events``: a live tensor) told as the events
  that built it (for the views).
"""

from __future__ import annotations

from ..autograd_meta import set_view_history_regenerator
from . import graph, recording, tensor_methods, view_history
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .entry_points import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph_events import graph_events, tensor_events
from .variable import Variable

__all__ = [
    "backward",
    "grad",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "graph",
    "graph_events",
    "Variable",
    "tensor_events",
]


recording.install()
tensor_methods.install()
set_view_history_regenerator(view_history.regenerate_view_grad_fn)

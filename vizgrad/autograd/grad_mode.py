"""``vizgrad.autograd.no_grad`` and friends: grad mode lives in the core (``vizgrad.grad_mode``).

As in PyTorch, where ``GradMode`` is part of c10 (the core) rather than of autograd:
tensors need to know at creation whether inference mode is on.
"""

from ..grad_mode import (  # noqa: F401 - re-exported
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
    state,
)

"""Grad mode: whether the autograd key records anything (``torch.no_grad`` and friends).

Two switches, as in PyTorch:

* **grad mode** (``no_grad``, ``enable_grad``, ``set_grad_enabled``): when off, the
  autograd key records no ``grad_fn``; results of operations don't require grad.
* **inference mode** (``inference_mode``): grad mode off, and tensors made inside are
  *inference tensors*: they skip the autograd and ADInplaceOrView keys altogether
  (no version counting), and can't be saved for backward later.

Each object works as a context manager and as a decorator.
"""

from __future__ import annotations

import functools

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
]


class _GradState:
    __slots__ = ("enabled", "inference")

    def __init__(self):
        self.enabled = True
        self.inference = False


state = _GradState()


def is_grad_enabled() -> bool:
    """``torch.is_grad_enabled``."""
    return state.enabled


def is_inference_mode_enabled() -> bool:
    """``torch.is_inference_mode_enabled``."""
    return state.inference


class _DecoratorContextManager:
    """A context manager that can also decorate a function (PyTorch's ``_DecoratorContextManager``)."""

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):  # noqa: N801 - the PyTorch name
    """Record nothing for autograd inside this block."""

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev


class enable_grad(_DecoratorContextManager):  # noqa: N801 - the PyTorch name
    """Record for autograd inside this block, even within ``no_grad``."""

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = True

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):  # noqa: N801 - the PyTorch name
    """``set_grad_enabled(False)`` sets grad mode at once; as a context manager, restores it on exit."""

    def __init__(self, mode: bool):
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):  # noqa: N801 - the PyTorch name
    """Grad mode off, and no view or version tracking for tensors made inside."""

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.inference)
        if self.mode:
            state.enabled, state.inference = False, True
        else:
            state.inference = False

    def __exit__(self, *exc) -> None:
        state.enabled, state.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)

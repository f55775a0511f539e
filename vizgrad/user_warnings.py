"""Warnings from inside the engine, shown at the user's line, as PyTorch shows its own.

PyTorch's kernels are C++: a ``TORCH_WARN`` in one reaches Python as a warning raised
by the Python line that called the operator (``x.resize_(5)`` in the user's cell). A
vizgrad kernel is Python, several frames below that line (the binding, the dispatcher,
the kernel's wrappers), and how many depends on the path the call took. A fixed
``stacklevel`` therefore points into vizgrad on some paths; here the level is counted:
the warning is attributed to the first frame outside the ``vizgrad`` package.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["warn_at_user_code"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_at_user_code(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` with the stack level of the nearest caller outside vizgrad."""
    # ``stacklevel=2`` names the frame that called this function; each frame of vizgrad
    # above it is one level more.
    level = 2
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)

"""Floating-point exceptions as PyTorch's kernels treat them: answers, not warnings.

A PyTorch kernel whose float result overflows returns inf, and ``0 / 0`` returns nan,
silently (IEEE 754's default results). NumPy's ufuncs compute the same values but
report each such event as ``np.errstate`` says, a ``RuntimeWarning`` by default. A
kernel that may meet one runs under ``ignoring_float_errors(over="ignore", …)``, which
takes ``np.errstate``'s arguments.

Why not ``np.errstate`` itself: as a decorator it builds NumPy's error state (its
"extobj") anew on every call, half a microsecond, a tenth of a 4x4 ``add``. The state
here is built once for the caller's state, and only set and reset per call.
NumPy offers no public way to set a prebuilt state, so this sets the context variable
that ``np.errstate`` sets (NumPy 2's ``_extobj_contextvar``), the same way it does. A
NumPy without it gets ``np.errstate`` unchanged: the same behaviour, at its cost.
"""

from __future__ import annotations

import functools

import numpy as np

try:  # NumPy >= 2.0 keeps the error state in a context variable
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
except ImportError:  # pragma: no cover - NumPy 1.x
    _extobj_contextvar = _make_extobj = None


def ignoring_float_errors(**how):
    """Decorate a kernel to run under ``np.errstate(**how)`` (``all="ignore"``,
    ``over="ignore", invalid="ignore"``…): the same state, built once per caller's state."""
    if _extobj_contextvar is None:  # pragma: no cover - NumPy 1.x
        return np.errstate(**how)
    get_state, set_state, reset_state = (
        _extobj_contextvar.get,
        _extobj_contextvar.set,
        _extobj_contextvar.reset,
    )

    def decorate(kernel):
        # What ``np.errstate`` would set: the caller's state with ``how`` changed. It is
        # rebuilt only when the caller's state is another one (inside a ``with
        # np.errstate`` block, or after ``np.seterr``); one pair, held as one tuple.
        built = (None, None)  # (the caller's state it was built on, the state to set)

        @functools.wraps(kernel)
        def run_ignoring_float_errors(*args, **kwargs):
            nonlocal built
            callers = get_state()
            built_on, state = built
            if built_on is not callers:
                state = _make_extobj(**how)
                built = (callers, state)
            token = set_state(state)
            try:
                return kernel(*args, **kwargs)
            finally:
                reset_state(token)

        return run_ignoring_float_errors

    return decorate

"""Number theory on integer tensors: ``gcd`` and ``lcm`` (``BinaryOps.cpp``).

Both take integer tensors only (PyTorch compiles them for the integral dtypes:
``"gcd_cpu" not implemented for 'Float'``), broadcast and promote like ``add``, and give
non-negative answers, except where C's integer arithmetic, which ATen's kernels use,
overflows: the absolute value of the most negative integer is itself, and ``lcm``
wraps around when the product does not fit the dtype. Their results are integers, so
they have no gradient.
"""

from __future__ import annotations

import numpy as np

from ..dispatcher import NONDIFFERENTIABLE
from .declaration import native_function
from .elementwise import elementwise
from .float_errors import ignoring_float_errors
from .iterator import INTEGRAL_TYPES, dispatch_dtypes

__all__ = ["gcd", "gcd_", "lcm", "lcm_"]


def _euclid(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ATen's ``calc_gcd``: Euclid's algorithm on ``|a|`` and ``|b|``, with C's remainder
    (which has the dividend's sign), in the dtype itself. So ``|INT_MIN|`` stays
    negative, and ``gcd(-128, 6)`` is -2 in int8, as in PyTorch (NumPy says 2)."""
    a, b = np.broadcast_arrays(np.abs(a), np.abs(b))
    while True:
        going = a != 0
        if not going.any():
            return b
        a, b = np.where(going, np.fmod(b, np.where(going, a, 1)), 0), np.where(going, a, b)


@dispatch_dtypes("gcd_cpu", INTEGRAL_TYPES)
def _gcd_loop(out, a, b):
    np.copyto(out, _euclid(a, b))


@dispatch_dtypes("lcm_cpu", INTEGRAL_TYPES)
@ignoring_float_errors(over="ignore")  # a product too large for the dtype wraps around, as in C
def _lcm_loop(out, a, b):
    """ATen's ``g == 0 ? 0 : abs(a / g * b)``, computed as C computes it: types narrower
    than ``int`` are widened to it first, and the absolute value is taken before the
    result is narrowed back (so it may wrap to a negative number)."""
    g = _euclid(a, b)
    wide = np.promote_types(out.dtype, np.int32)
    a, g, b = (x.astype(wide) for x in (a, g, b))
    quotient = a // np.where(g == 0, 1, g)  # exact: g divides a
    np.copyto(out, np.where(g == 0, 0, np.abs(quotient * b)), casting="unsafe")


gcd = native_function(
    "gcd(Tensor self, Tensor other) -> Tensor",
    "gcd_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "gcd.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_gcd_loop),
    kind=NONDIFFERENTIABLE,
    inplace_variants="function, method",
    doc="``torch.gcd``: the greatest common divisor of integer tensors, elementwise.",
)
gcd_ = gcd.inplace
lcm = native_function(
    "lcm(Tensor self, Tensor other) -> Tensor",
    "lcm_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "lcm.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_lcm_loop),
    kind=NONDIFFERENTIABLE,
    inplace_variants="function, method",
    doc="``torch.lcm``: the least common multiple of integer tensors, elementwise.",
)
lcm_ = lcm.inplace

"""Arithmetic: ``add``, ``sub``, ``mul``… (PyTorch's ``BinaryOps.cpp``).

Each operator is one ``pointwise`` declaration: its schema, its NumPy kernel (which
writes into the output the TensorIterator prepared), and the checks PyTorch makes.
Broadcasting, promotion, output allocation and the in-place/``out=`` variants come
from the shared machinery, never from here.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .registry import pointwise

__all__ = ["add", "sub", "subtract", "mul", "multiply"]


def _check_alpha(fn_name: str):
    def check(input, other, alpha=1):
        if alpha == 1:
            return
        operand_types = [x._dtype for x in (input, other) if isinstance(x, Tensor)]
        if isinstance(alpha, float) and all(d.category < 2 for d in operand_types):
            raise RuntimeError(
                "For integral input tensors, argument alpha must not be a floating point number."
            )
        if isinstance(alpha, bool) is False and all(d.category == 0 for d in operand_types):
            raise RuntimeError("Boolean alpha only supported for Boolean results.")

    return check


def _add_kernel(out, a, b, alpha=1):
    if alpha != 1:
        b = np.multiply(b, np.asarray(alpha, dtype=out.dtype), dtype=out.dtype)
    np.add(a, b, out=out)


def _sub_kernel(out, a, b, alpha=1):
    if alpha != 1:
        b = np.multiply(b, np.asarray(alpha, dtype=out.dtype), dtype=out.dtype)
    np.subtract(a, b, out=out)


def _check_sub(input, other, alpha=1):
    bools = [x for x in (input, other) if isinstance(x, Tensor | bool) and
             (x._dtype.category == 0 if isinstance(x, Tensor) else True)]  # fmt: skip
    if len(bools) == 2:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        )
    if len(bools) == 1 and isinstance(bools[0], Tensor):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    _check_alpha("sub")(input, other, alpha)


add = pointwise(
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    _add_kernel,
    options={"alpha": 1},
    check=_check_alpha("add"),
    doc="``torch.add``: ``input + alpha * other``, broadcast and promoted.",
)

sub = pointwise(
    "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    _sub_kernel,
    options={"alpha": 1},
    check=_check_sub,
    doc="``torch.sub``: ``input - alpha * other``, broadcast and promoted.",
)
subtract = sub

mul = pointwise(
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    lambda out, a, b: np.multiply(a, b, out=out),
    doc="``torch.mul``: elementwise product, broadcast and promoted.",
)
multiply = mul

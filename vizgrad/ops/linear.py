"""Linear layers as operators: ``linear``, ``bilinear`` and ``_trilinear`` (``Linear.cpp``).

``linear(x, W, b) = x @ Wᵀ + b`` is CompositeImplicitAutograd in PyTorch: it has no
node of its own but picks the products that record theirs. A 2-D input with a bias is
one fused ``addmm`` (``AddmmBackward0``); a contiguous N-D input with a bias is
flattened to 2-D, run through ``addmm`` and viewed back (``ViewBackward0`` over
``AddmmBackward0``); anything else is ``matmul`` (``MmBackward0``,
``UnsafeViewBackward0``…) followed by an in-place ``add_`` of the bias.

``bilinear(x1, x2, W, b)[n, o] = sum_ij x1[n, i] W[o, i, j] x2[n, j] + b[o]`` is
composite too, over ``_trilinear``: the product of three tensors, each first unsqueezed
at its ``expand`` dims, summed over ``sumdim``. ``_trilinear``'s backward is three
``_trilinear`` calls with the roles of the dims exchanged (``TrilinearBackward0``).
"""

from __future__ import annotations

import string

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import CPP_TYPE_NAMES
from ..shape import numel_of
from ..tensor import Tensor
from .arithmetic import add
from .declaration import native_function
from .linalg import addmm, matmul
from .shape_views import reshape

__all__ = ["bilinear"]

_addmm = addmm.overloads["addmm"]
_matmul = matmul.overloads["matmul"]
_add = add.overloads["add.Tensor"]
# (Operators called directly, as below, get no defaults filled in: pass every scalar.)


# --- linear ---------------------------------------------------------------------------------


def _flatten_nd_linear(input: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    """Rows of every leading dim at once: ``(…, in)`` -> ``(n, in)``, one ``addmm``, and a
    view back to ``(…, out)`` (sizes, not ``-1``, so an empty batch works)."""
    sizes = input._size
    flattened = reshape(input, (numel_of(sizes[:-1]), sizes[-1]))
    result = _addmm(bias, flattened, weight.t(), beta=1, alpha=1)
    return result.view((*sizes[:-1], result._size[1]))


def _linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    input_dim, weight_dim = input.dim(), weight.dim()
    if input_dim == 0 or weight_dim == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{input_dim}D and {weight_dim}D"
        )
    if input_dim == 2 and bias is not None:  # the fused product, marginally faster
        return _addmm(bias, input, weight.t(), beta=1, alpha=1)
    if bias is not None and input.is_contiguous() and (input_dim == 3 or bias.dim() == 1):
        return _flatten_nd_linear(input, weight, bias)
    output = _matmul(input, weight.t())
    if bias is not None:
        output.add_(bias)
    return output


def _linear_out(input: Tensor, weight: Tensor, bias: Tensor | None = None, *,
                out: Tensor) -> Tensor:  # fmt: skip
    if input.dim() == 2 and bias is not None:
        return addmm(bias, input, weight.t(), out=out)
    matmul(input, weight.t(), out=out)
    if bias is not None:
        out.add_(bias)
    return out


linear = native_function(
    "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
    "linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_linear,
    kernels={"linear.out": _linear_out},
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._C._nn.linear``: ``input @ weight.T + bias``.",
)


# --- _trilinear and bilinear ----------------------------------------------------------------


def _trilinear_subscripts(expands, sumdim, total_dim: int) -> str:
    """The ``einsum`` spelling of a ``_trilinear`` call: each operand names the dims it
    was not unsqueezed at; the result keeps the dims not summed."""
    letters = string.ascii_letters[:total_dim]
    operands = [
        "".join(letters[d] for d in range(total_dim) if d not in expand) for expand in expands
    ]
    result = "".join(letters[d] for d in range(total_dim) if d not in sumdim)
    return ",".join(operands) + "->" + result


def _trilinear_dims(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim):
    """``_trilinear``'s checks: its dims (each operand's ``expand`` dims, and ``sumdim``,
    wrapped) and its dtype."""
    total_dim = i1.dim() + len(expand1)
    if not 0 <= unroll_dim < total_dim:
        raise RuntimeError(f"unroll_dim must be in [0,{total_dim - 1}]")
    expands = [{d % total_dim for d in e} for e in (expand1, expand2, expand3)]
    sums = {d % total_dim for d in sumdim}
    for tensor, expand in zip((i1, i2, i3), expands, strict=True):
        if tensor.dim() + len(expand) != total_dim:
            raise RuntimeError("number of dimensions must match")
    dtype = i1._dtype
    for tensor in (i2, i3):
        if tensor._dtype is not dtype:
            raise RuntimeError(
                f"expected scalar type {dtype.scalar_name} but found {tensor._dtype.scalar_name}"
            )
    return total_dim, expands, sums, dtype


def _check_trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """``_trilinear``'s checks and result: its shape (each dim not summed, of the size the
    operands not unsqueezed there give it) and dtype."""
    total_dim, expands, sums, dtype = _trilinear_dims(i1, i2, i3, expand1, expand2, expand3,
                                                      sumdim, unroll_dim)  # fmt: skip
    shape = []
    for d in range(total_dim):
        if d in sums:
            continue
        sizes = [t._size[d - sum(1 for e in expand if e < d)]
                 for t, expand in zip((i1, i2, i3), expands, strict=True) if d not in expand]  # fmt: skip
        shape.append(max(sizes, default=1))
    return tuple(shape), dtype


def _trilinear_kernel(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    total_dim, expands, sums, dtype = _trilinear_dims(i1, i2, i3, expand1, expand2, expand3,
                                                      sumdim, unroll_dim)  # fmt: skip
    subscripts = _trilinear_subscripts(expands, sums, total_dim)
    with np.errstate(all="ignore"):
        result = np.einsum(subscripts, i1._array, i2._array, i3._array, optimize=True)
    return Tensor._from_array(np.ascontiguousarray(result, dtype=dtype.numpy), dtype)


def _trilinear_grads():
    """``_trilinear_backward``: the gradient of one operand is the ``_trilinear`` of the
    incoming gradient (unsqueezed where the sum removed dims) with the two others, summed
    over the dims that operand was unsqueezed at."""

    def grad_i1(grad, saved):
        return _trilinear(grad, saved.i2, saved.i3, saved.sumdim, saved.expand2,
                          saved.expand3, saved.expand1)  # fmt: skip

    def grad_i2(grad, saved):
        return _trilinear(saved.i1, grad, saved.i3, saved.expand1, saved.sumdim,
                          saved.expand3, saved.expand2)  # fmt: skip

    def grad_i3(grad, saved):
        return _trilinear(saved.i1, saved.i2, grad, saved.expand1, saved.expand2,
                          saved.sumdim, saved.expand3)  # fmt: skip

    return {"i1": grad_i1, "i2": grad_i2, "i3": grad_i3}


_trilinear = native_function(
    "_trilinear(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, int[] expand3, "
    "int[] sumdim, int unroll_dim=1) -> Tensor",
    kernel=_trilinear_kernel,
    derivative=Derivative(
        "TrilinearBackward0",
        save=("i1", "i2", "i3", "expand1", "expand2", "expand3", "sumdim"),
        reads={"i1": ("i2", "i3"), "i2": ("i1", "i3"), "i3": ("i1", "i2")},
        grads=_trilinear_grads(),
    ),
    variants="function",
    doc="``torch._trilinear``: the product of three unsqueezed tensors, summed over ``sumdim``.",
)


def _check_bilinear(input1, input2, weight, bias) -> None:
    tensors = [input1, input2, weight] + ([bias] if bias is not None else [])
    if any(t._dtype is not input1._dtype for t in tensors):
        names = ["input1", "input2", "weight", "bias"]
        listed = ", ".join(
            f"{n}: {CPP_TYPE_NAMES[t._dtype.name]}" for n, t in zip(names, tensors, strict=False)
        )
        raise RuntimeError(f"All tensors must have the same dtype, got {listed}")
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for i in range(input1.dim() - 1):
        if input1._size[i] != input2._size[i]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {i}: got "
                f"{input1._size[i]} and {input2._size[i]}"
            )
    if input1._size[-1] != weight._size[1]:
        raise RuntimeError(
            "bilinear(): input1 size does not match weight size: got "
            f"{input1._size[-1]} but expected {weight._size[1]}"
        )
    if input2._size[-1] != weight._size[2]:
        raise RuntimeError(
            "bilinear(): input2 size does not match weight size: got "
            f"{input2._size[-1]} but expected {weight._size[2]}"
        )
    if bias is not None and bias._size[0] != weight._size[0]:
        raise RuntimeError(
            "bilinear(): bias size does not match weight size: got "
            f"{bias._size[0]} but expected {weight._size[0]}"
        )


def _bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None):
    _check_bilinear(input1, input2, weight, bias)
    output_size = (*input1._size[:-1], weight._size[0])
    flat1 = reshape(input1, (-1, input1._size[-1]))
    flat2 = reshape(input2, (-1, input2._size[-1]))
    # (n, 1, in1, 1) * (1, out, in1, in2) * (n, 1, 1, in2), summed over in1 and in2.
    product = _trilinear.overloads["_trilinear"](flat1, weight, flat2, [1, 3], [0], [1, 2],
                                                 [2, 3], 1)  # fmt: skip
    output = reshape(product, output_size)
    return output if bias is None else _add(output, bias, alpha=1)


bilinear = native_function(
    "bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor",
    kernel=_bilinear,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.bilinear``: ``x1ᵀ W[o] x2 + b[o]`` for every output feature ``o``.",
)

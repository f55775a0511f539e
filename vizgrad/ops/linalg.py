"""Linear algebra: ``dot``, ``mm``, ``matmul``, ``einsum``… (``LinearAlgebra.cpp``).

Unlike elementwise ops, these products do **not** promote types: both operands must
already have the same dtype (``float @ double`` is an error, not a double). Each
kernel calls NumPy once on the operands' strided arrays and wraps the fresh result.

``matmul`` is not a kernel of its own: like PyTorch's ``_matmul_impl`` it picks one
of ``dot`` (1-D · 1-D), ``mv`` (2-D · 1-D), ``mm`` (2-D · 2-D, and N-D · 2-D folded
into one matrix) or ``bmm`` (batched, after broadcasting the batch dimensions), so its
errors are those of the product it chose.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from ..dispatcher import FUNCTIONAL, OUT
from ..dtypes import BOOL
from ..promotion import result_type
from ..shape import broadcast_shapes, is_non_overlapping_and_dense, numel_of, wrap_dim
from ..tensor import Tensor
from .ranges import _CPP_TYPE_NAME
from .registry import bind_method, check_tensor, declare, declare_with_out, write_to_out

__all__ = [
    "dot",
    "vdot",
    "mv",
    "mm",
    "bmm",
    "matmul",
    "outer",
    "ger",
    "addmm",
    "einsum",
    "tensordot",
]


def _not_implemented(kernel_name: str, dtype) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel_name}\" not implemented for '{dtype.scalar_name}'")


def _product(array_fn, *arrays, dtype) -> Tensor:
    """Run one NumPy product and wrap its fresh, contiguous result (no extra copy)."""
    with np.errstate(all="ignore"):
        result = array_fn(*arrays)
    result = np.asarray(result)
    if result.dtype != dtype.numpy:
        result = result.astype(dtype.numpy)
    return Tensor._from_array(result, dtype)


def _check_out_dtype(result_dtype, out: Tensor) -> None:
    """Products write only into an ``out`` of exactly their dtype."""
    if out._dtype is not result_dtype:
        raise RuntimeError(
            f"Expected out tensor to have dtype {_CPP_TYPE_NAME[result_dtype.name]}, but got "
            f"{_CPP_TYPE_NAME[out._dtype.name]} instead"
        )


def _with_out(fn_name: str, functional_op, out_op, args, out, out_position: int):
    if out is None:
        return functional_op(*args)
    check_tensor(fn_name, out, "out", out_position)
    return out_op(*args, out=out)


# --- dot and vdot -----------------------------------------------------------------------


def _check_vectors(self: Tensor, other: Tensor) -> None:
    if self.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
    if self._dtype is not other._dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{self._dtype.scalar_name} and {other._dtype.scalar_name}"
        )
    if self._size[0] != other._size[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{self._size[0]}] and src "
            f"[{other._size[0]}] to have the same number of elements, but got {self._size[0]} "
            f"and {other._size[0]} elements respectively"
        )
    if self._dtype.category == BOOL:
        raise _not_implemented("dot", self._dtype)


def _dot_kernel(self, tensor):
    _check_vectors(self, tensor)
    return _product(np.dot, self._array, tensor._array, dtype=self._dtype)


def _vdot_kernel(self, other):
    _check_vectors(self, other)
    return _product(np.vdot, self._array, other._array, dtype=self._dtype)


def _dot_out_kernel(kernel):
    def out_kernel(self, other, *, out):
        result = kernel(self, other)
        if out._dtype is not result._dtype:
            raise RuntimeError(
                f"result dtype {out._dtype.scalar_name} does not match input dtype "
                f"{result._dtype.scalar_name}"
            )
        return write_to_out(result, out)

    return out_kernel


_dot_op = declare("dot(Tensor self, Tensor tensor) -> Tensor", FUNCTIONAL, _dot_kernel)
_dot_out_op = declare("dot.out(Tensor self, Tensor tensor, *, Tensor(a!) out) -> Tensor(a!)",
                      OUT, _dot_out_kernel(_dot_kernel))  # fmt: skip
_vdot_op = declare("vdot(Tensor self, Tensor other) -> Tensor", FUNCTIONAL, _vdot_kernel)
_vdot_out_op = declare("vdot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                       OUT, _dot_out_kernel(_vdot_kernel))  # fmt: skip


def dot(input, tensor, *, out=None) -> Tensor:
    """``torch.dot``: the inner product of two 1-D tensors of the same dtype (no promotion)."""
    check_tensor("dot", input, "input", 1)
    check_tensor("dot", tensor, "tensor", 2)
    return _with_out("dot", _dot_op, _dot_out_op, (input, tensor), out, 3)


def vdot(input, other, *, out=None) -> Tensor:
    """``torch.vdot``: like ``dot``, conjugating the first vector."""
    check_tensor("vdot", input, "input", 1)
    check_tensor("vdot", other, "other", 2)
    return _with_out("vdot", _vdot_op, _vdot_out_op, (input, other), out, 3)


# --- mv, mm, bmm ---------------------------------------------------------------------------


def _check_mv(mat: Tensor, vec: Tensor, rows_label: int | None = None) -> None:
    if mat.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {mat.dim()}, {vec.dim()}")
    if mat._dtype is not vec._dtype:
        v, m = vec._dtype.scalar_name, mat._dtype.scalar_name
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {v}, {m}, and {v}"
        )
    if mat._size[1] != vec._size[0]:
        rows = mat._size[0]
        raise RuntimeError(
            f"size mismatch, got input ({rows}), mat ({rows}x{mat._size[1]}), vec ({vec._size[0]})"
        )
    if mat._dtype.category == BOOL:
        raise _not_implemented("addmv_impl_cpu", mat._dtype)


def _mv_kernel(self, vec):
    _check_mv(self, vec)
    return _product(np.matmul, self._array, vec._array, dtype=self._dtype)


def _check_mm(mat1: Tensor, mat2: Tensor) -> None:
    if mat1.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if mat1._size[1] != mat2._size[0]:
        (n, m), (k, p) = mat1._size, mat2._size
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{m} and {k}x{p})")
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_CPP_TYPE_NAME[mat1._dtype.name]} != {_CPP_TYPE_NAME[mat2._dtype.name]}"
        )
    if mat1._dtype.category == BOOL:
        raise _not_implemented("addmm_impl_cpu_", mat1._dtype)


def _mm_kernel(self, mat2):
    _check_mm(self, mat2)
    return _product(np.matmul, self._array, mat2._array, dtype=self._dtype)


def _check_bmm(batch1: Tensor, batch2: Tensor) -> None:
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    expected = [batch1._size[0], batch1._size[2]]
    if list(batch2._size[:2]) != expected:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: {expected} but "
            f"got: {list(batch2._size[:2])}."
        )
    if batch1._dtype is not batch2._dtype:
        raise RuntimeError(
            f"expected scalar type {batch1._dtype.scalar_name} but found "
            f"{batch2._dtype.scalar_name}"
        )
    if batch1._dtype.category == BOOL:
        raise _not_implemented("bmm", batch1._dtype)


def _bmm_kernel(self, mat2):
    _check_bmm(self, mat2)
    return _product(np.matmul, self._array, mat2._array, dtype=self._dtype)


def _exact_out(kernel):
    """``out=`` for products: the dtype must match exactly; then resize and copy."""

    def out_kernel(*args, out):
        result = kernel(*args)
        _check_out_dtype(result._dtype, out)
        return write_to_out(result, out)

    return out_kernel


_mv_op = declare("mv(Tensor self, Tensor vec) -> Tensor", FUNCTIONAL, _mv_kernel)
_mv_out_op = declare("mv.out(Tensor self, Tensor vec, *, Tensor(a!) out) -> Tensor(a!)", OUT,
                     _exact_out(_mv_kernel))  # fmt: skip
_mm_op = declare("mm(Tensor self, Tensor mat2) -> Tensor", FUNCTIONAL, _mm_kernel)
_mm_out_op = declare("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)", OUT,
                     _exact_out(_mm_kernel))  # fmt: skip
_bmm_op = declare("bmm(Tensor self, Tensor mat2) -> Tensor", FUNCTIONAL, _bmm_kernel)
_bmm_out_op = declare("bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
                      OUT, _exact_out(_bmm_kernel))  # fmt: skip


def mv(input, vec, *, out=None) -> Tensor:
    """``torch.mv``: matrix (n×m) times vector (m) gives a vector (n)."""
    check_tensor("mv", input, "input", 1)
    check_tensor("mv", vec, "vec", 2)
    return _with_out("mv", _mv_op, _mv_out_op, (input, vec), out, 3)


def mm(input, mat2, *, out=None) -> Tensor:
    """``torch.mm``: (n×m) @ (m×p) = (n×p), no broadcasting, same dtypes only."""
    check_tensor("mm", input, "input", 1)
    check_tensor("mm", mat2, "mat2", 2)
    return _with_out("mm", _mm_op, _mm_out_op, (input, mat2), out, 3)


def bmm(input, mat2, *, out=None) -> Tensor:
    """``torch.bmm``: a batch of matrix products, (b×n×m) @ (b×m×p) = (b×n×p)."""
    check_tensor("bmm", input, "input", 1)
    check_tensor("bmm", mat2, "mat2", 2)
    return _with_out("bmm", _bmm_op, _bmm_out_op, (input, mat2), out, 3)


# --- matmul ------------------------------------------------------------------------------


def _as_shape(t: Tensor, shape) -> _ArrayOperand:
    """``t`` with another shape, as ``reshape`` gives it: a view when the strides allow.

    Only used inside ``matmul`` to fold operands; NumPy copies only when it must.
    """
    return _ArrayOperand(t._array.reshape(shape), t._dtype)


class _ArrayOperand:
    """A bare (array, dtype) pair standing in for a tensor between matmul's steps."""

    __slots__ = ("_array", "_dtype", "_size")

    def __init__(self, array, dtype):
        self._array, self._dtype, self._size = array, dtype, array.shape

    def dim(self) -> int:
        return len(self._size)


def _matmul_kernel(self, other):
    """``_matmul_impl``: choose dot, mv, mm or bmm by the operands' ranks."""
    dim1, dim2 = self.dim(), other.dim()
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D"
        )
    if dim1 == 1 and dim2 == 1:
        return _dot_kernel(self, other)
    if dim1 == 2 and dim2 == 1:
        return _mv_kernel(self, other)
    if dim1 == 2 and dim2 == 2:
        return _mm_kernel(self, other)
    if dim1 == 1 and dim2 == 2:  # a row vector times a matrix, then drop the row
        result = _mm_kernel(_as_shape(self, (1, self._size[0])), other)
        return Tensor._from_array(result._array.reshape(other._size[1]), result._dtype)
    if dim1 >= 3 and dim2 <= 2:
        # Fold the batch dims of the left operand into rows: one mm (or mv) does it all.
        rows = numel_of(self._size[:-1])
        folded = _as_shape(self, (rows, self._size[-1]))
        product = _mv_kernel(folded, other) if dim2 == 1 else _mm_kernel(folded, other)
        shape = self._size[:-1] + (() if dim2 == 1 else (other._size[-1],))
        return Tensor._from_array(product._array.reshape(shape), product._dtype)
    return _batched_matmul(self, other)


def _batched_matmul(self, other) -> Tensor:
    """Broadcast the batch dims, then one ``bmm`` over all batches."""
    dim1, dim2 = self.dim(), other.dim()
    n = self._size[-2] if dim1 > 1 else 1
    m1 = self._size[-1]
    m2 = other._size[-2] if dim2 > 1 else other._size[-1]
    p = other._size[-1] if dim2 > 1 else 1
    batch1 = self._size[:-2] if dim1 > 1 else ()
    batch2 = other._size[:-2] if dim2 > 1 else ()
    batch = broadcast_shapes(batch1, batch2)
    count = numel_of(batch)
    left = np.broadcast_to(self._array.reshape((*batch1, n, m1)), (*batch, n, m1))
    right = np.broadcast_to(other._array.reshape((*batch2, m2, p)), (*batch, m2, p))
    left = _ArrayOperand(left.reshape(count, n, m1), self._dtype)
    right = _ArrayOperand(right.reshape(count, m2, p), other._dtype)
    product = _bmm_kernel(left, right)
    shape = (*batch, *((n,) if dim1 > 1 else ()), *((p,) if dim2 > 1 else ()))
    return Tensor._from_array(product._array.reshape(shape), product._dtype)


_matmul_op = declare("matmul(Tensor self, Tensor other) -> Tensor", FUNCTIONAL, _matmul_kernel)
_matmul_out_op = declare("matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                         OUT, _exact_out(_matmul_kernel))  # fmt: skip


def matmul(input, other, *, out=None) -> Tensor:
    """``torch.matmul`` (``a @ b``): the product for every rank combination.

    1-D · 1-D is a dot product; a 1-D operand on the left is a row, on the right a
    column (and that dimension is dropped from the result); with more than two
    dimensions the leading ones are batch dimensions and broadcast.
    """
    check_tensor("matmul", input, "input", 1)
    check_tensor("matmul", other, "other", 2)
    return _with_out("matmul", _matmul_op, _matmul_out_op, (input, other), out, 3)


# --- outer and addmm ---------------------------------------------------------------------


def _outer_kernel(self, vec2):
    for t, name in ((self, "self"), (vec2, "vec2")):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    dtype = result_type(self, vec2)  # outer is a broadcast multiply: it promotes
    a = self._array.astype(dtype.numpy, copy=False)
    b = vec2._array.astype(dtype.numpy, copy=False)
    return _product(np.multiply.outer, a, b, dtype=dtype)


_outer_op, _outer_out_op = declare_with_out("outer(Tensor self, Tensor vec2) -> Tensor",
                                            _outer_kernel)  # fmt: skip


def outer(input, vec2, *, out=None) -> Tensor:
    """``torch.outer``: ``result[i, j] = input[i] * vec2[j]`` (types promote, as in ``mul``)."""
    check_tensor("outer", input, "input", 1)
    check_tensor("outer", vec2, "vec2", 2)
    return _with_out("outer", _outer_op, _outer_out_op, (input, vec2), out, 3)


def ger(input, vec2, *, out=None) -> Tensor:
    """``torch.ger``: the old name of ``outer``."""
    return outer(input, vec2, out=out)


def _addmm_kernel(self, mat1, mat2, *, beta=1, alpha=1):
    target = (mat1._size[0], mat2._size[1]) if mat1.dim() == 2 and mat2.dim() == 2 else None
    _check_mm(mat1, mat2)
    if self._dtype is not mat2._dtype:
        raise RuntimeError(
            "self and mat2 must have the same dtype, but got "
            f"{self._dtype.scalar_name} and {mat2._dtype.scalar_name}"
        )
    _check_expandable(self._size, target)
    dtype = mat1._dtype
    with np.errstate(all="ignore"):
        product = np.matmul(mat1._array, mat2._array)
        if alpha != 1:
            product = product * alpha
        if beta != 0:  # beta == 0 ignores input entirely (even its nan and inf)
            product = product + (self._array * beta if beta != 1 else self._array)
    return Tensor._from_array(np.ascontiguousarray(product, dtype=dtype.numpy), dtype)


def _check_expandable(size, target) -> None:
    """``expand``'s error when ``input`` can't broadcast to the product's shape."""
    offset = len(target) - len(size)
    for i, s in enumerate(size):
        if s != 1 and s != target[offset + i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[offset + i]}) must match the existing "
                f"size ({s}) at non-singleton dimension {offset + i}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(size)}"
            )


_addmm_op = declare(
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    FUNCTIONAL,
    _addmm_kernel,
)
_addmm_out_op = declare(
    "addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)",
    OUT,
    lambda self, mat1, mat2, *, beta=1, alpha=1, out: write_to_out(
        _checked_out(_addmm_kernel(self, mat1, mat2, beta=beta, alpha=alpha), out), out
    ),
)


def _checked_out(result: Tensor, out: Tensor) -> Tensor:
    _check_out_dtype(result._dtype, out)
    return result


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) -> Tensor:
    """``torch.addmm``: ``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts."""
    check_tensor("addmm", input, "input", 1)
    check_tensor("addmm", mat1, "mat1", 2)
    check_tensor("addmm", mat2, "mat2", 3)
    if out is None:
        return _addmm_op(input, mat1, mat2, beta=beta, alpha=alpha)
    check_tensor("addmm", out, "out", 4)
    return _addmm_out_op(input, mat1, mat2, beta=beta, alpha=alpha, out=out)


# --- einsum ------------------------------------------------------------------------------


def _parse_einsum(equation: str, operands) -> tuple[list[str], str]:
    """Split ``"ij,jk->ik"`` into input and output subscripts; check them against operands."""
    equation = equation.replace(" ", "")
    inputs_part, arrow, output = equation.partition("->")
    inputs = inputs_part.split(",")
    if len(inputs) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(inputs) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    sizes: dict[str, int] = {}
    for index, (subscripts, t) in enumerate(zip(inputs, operands, strict=True)):
        letters = subscripts.replace("...", "")
        has_ellipsis = "..." in subscripts
        if (len(letters) != t.dim() and not has_ellipsis) or len(letters) > t.dim():
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(letters)}) does not "
                f"match the number of dimensions ({t.dim()}) for operand {index}"
                + ("" if has_ellipsis else " and no ellipsis was given")
            )
        dims = _letter_dims(subscripts, t.dim())
        for letter, dim in dims:
            size = t._size[dim]
            seen = sizes.get(letter)
            if seen is not None and size != seen and 1 not in (size, seen):
                raise RuntimeError(
                    f"einsum(): subscript {letter} has size {size} for operand {index} which "
                    f"does not broadcast with previously seen size {seen}"
                )
            sizes[letter] = size if seen in (None, 1) else seen
    if arrow:
        for letter in output.replace("...", ""):
            if letter not in sizes:
                raise RuntimeError(
                    f"einsum(): output subscript {letter} does not appear in the equation for "
                    "any input operand"
                )
    return inputs, (output if arrow else None)


def _letter_dims(subscripts: str, ndim: int):
    """Pairs (letter, dim) of one operand, with the ellipsis standing for the middle dims."""
    before, _, after = subscripts.partition("...")
    pairs = [(letter, i) for i, letter in enumerate(before)]
    pairs += [(letter, ndim - len(after) + i) for i, letter in enumerate(after)]
    return pairs


def _einsum_kernel(equation, tensors):
    tensors = list(tensors)
    inputs, output = _parse_einsum(equation, tensors)
    dtype = tensors[0]._dtype
    for t in tensors[1:]:
        if t._dtype is not dtype:
            raise RuntimeError(
                f"expected scalar type {dtype.scalar_name} but found {t._dtype.scalar_name}"
            )
    numpy_equation = ",".join(inputs) + ("" if output is None else "->" + output)
    arrays = [t._array for t in tensors]
    with np.errstate(all="ignore"):
        result = np.asarray(np.einsum(numpy_equation, *arrays))
    is_view = any(np.shares_memory(result, array) for array in arrays)
    return _einsum_result(result, dtype, is_view)


def _einsum_result(result: np.ndarray, dtype, is_view: bool) -> Tensor:
    """A fresh contiguous tensor; when the equation only permutes one operand (NumPy and
    PyTorch then return a view), the copy keeps that permuted dense layout."""
    if result.dtype != dtype.numpy:
        result = result.astype(dtype.numpy)
    stride = tuple(s // result.itemsize for s in result.strides)
    if not is_view or not is_non_overlapping_and_dense(result.shape, stride):
        return Tensor._from_array(np.array(result, order="C"), dtype)
    out = Tensor._empty_strided(result.shape, stride, dtype)
    out._array[...] = result
    return out


_einsum_op = declare("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor",
                     FUNCTIONAL, _einsum_kernel)  # fmt: skip


def einsum(equation, *operands) -> Tensor:
    """``torch.einsum``: a sum of products named by subscripts (``"ij,jk->ik"`` is ``mm``).

    Without ``->`` the output holds the subscripts that appear once, in alphabetical
    order; ``...`` stands for broadcast dimensions.
    """
    if not isinstance(equation, str):
        raise TypeError(
            f"einsum(): argument 'equation' (position 1) must be str, not {type(equation).__name__}"
        )
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    for position, t in enumerate(operands):
        check_tensor("einsum", t, "tensors", position + 2)
    permutation = _pure_permutation(equation, operands)
    if permutation is not None:
        return operands[0].permute(permutation)  # PyTorch returns a view here too
    return _einsum_op(equation, list(operands))


def _pure_permutation(equation: str, operands):
    """The dims order when ``equation`` only reorders one operand's dims (``"ij->ji"``)."""
    equation = equation.replace(" ", "")
    subscripts, arrow, output = equation.partition("->")
    if len(operands) != 1 or "," in subscripts or "." in equation:
        return None
    if len(set(subscripts)) != len(subscripts) or len(subscripts) != operands[0].dim():
        return None
    output = output if arrow else "".join(sorted(subscripts))
    if sorted(output) != sorted(subscripts):
        return None
    return tuple(subscripts.index(letter) for letter in output)


# --- tensordot -----------------------------------------------------------------------------


def _tensordot_dims(a: Tensor, b: Tensor, dims):
    if isinstance(dims, numbers.Integral) and not isinstance(dims, bool):
        dims = operator.index(dims)
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    dims_a, dims_b = dims
    for value, name, position in ((dims_a, "dims_self", 3), (dims_b, "dims_other", 4)):
        if not isinstance(value, list | tuple):
            raise TypeError(
                f"tensordot(): argument '{name}' (position {position}) must be tuple of ints, "
                f"not {type(value).__name__}"
            )
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    return list(dims_a), list(dims_b)


def _tensordot_kernel(self, other, dims_self, dims_other):
    if self._dtype is not other._dtype:
        raise RuntimeError("both inputs should have same dtype")
    for da, db in zip(dims_self, dims_other, strict=True):
        size_a = self._size[wrap_dim(da, self.dim())]
        size_b = other._size[wrap_dim(db, other.dim())]
        if size_a != size_b:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {size_a} in dim {da} "
                f"and second has size {size_b} in dim {db}"
            )
    axes = ([wrap_dim(d, self.dim()) for d in dims_self],
            [wrap_dim(d, other.dim()) for d in dims_other])  # fmt: skip
    return _product(lambda x, y: np.tensordot(x, y, axes=axes), self._array, other._array,
                    dtype=self._dtype)  # fmt: skip


_tensordot_op = declare(
    "tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor",
    FUNCTIONAL,
    _tensordot_kernel,
)
_tensordot_out_op = declare(
    "tensordot.out(Tensor self, Tensor other, int[] dims_self, int[] dims_other, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    OUT,
    _exact_out(_tensordot_kernel),
)


def tensordot(a, b, dims=2, out=None) -> Tensor:
    """``torch.tensordot``: contract ``dims`` dimensions of ``a`` with ``b``.

    ``dims=k`` pairs the last ``k`` dims of ``a`` with the first ``k`` of ``b``; a pair
    of lists names the dims to pair explicitly.
    """
    check_tensor("tensordot", a, "a", 1)
    check_tensor("tensordot", b, "b", 2)
    dims_a, dims_b = _tensordot_dims(a, b, dims)
    return _with_out("tensordot", _tensordot_op, _tensordot_out_op, (a, b, dims_a, dims_b),
                     out, 5)  # fmt: skip


_METHODS = {"dot": dot, "vdot": vdot, "mv": mv, "mm": mm, "bmm": bmm, "matmul": matmul,
            "outer": outer, "ger": ger, "addmm": addmm}  # fmt: skip
for _name, _fn in _METHODS.items():
    bind_method(_name, (lambda fn: lambda self, *args, **kwargs: fn(self, *args, **kwargs))(_fn))

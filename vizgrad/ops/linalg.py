"""Linear algebra: ``dot``, ``mm``, ``matmul``, ``tensordot``… (``LinearAlgebra.cpp``).

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

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT, INPLACE, OUT
from ..dtypes import BOOL, CPP_TYPE_NAMES
from ..meta_device import check_same_device
from ..promotion import result_type
from ..shape import broadcast_shapes, numel_of, wrap_dim
from ..tensor import Tensor
from .declaration import native_function
from .float_errors import ignoring_float_errors
from .overload_kernels import StructuredKernel, meta_then_impl, out_wrapper
from .registry import write_to_out
from .shape_views import _unsafe_view_op, reshape
from .size_one_dims import unsqueeze

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
    "tensordot",
]


def _not_implemented(kernel_name: str, dtype) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel_name}\" not implemented for '{dtype.scalar_name}'")


def _product(array_fn, *arrays, dtype) -> Tensor:
    """Run one NumPy product and wrap its fresh, contiguous result (no extra copy)."""
    result = np.asarray(_quietly(array_fn, arrays))
    if result.dtype != dtype.numpy:
        result = result.astype(dtype.numpy)
    return Tensor._from_array(result, dtype)


@ignoring_float_errors(all="ignore")
def _quietly(array_fn, arrays):
    return array_fn(*arrays)


def check_inplace(self: Tensor, shape: tuple, dtype) -> None:
    """``check_inplace``: an in-place structured kernel writes ``self`` as it is."""
    if self._dtype is not dtype:
        raise RuntimeError(
            f"Bad in-place call: input tensor dtype {CPP_TYPE_NAMES[self._dtype.name]} and "
            f"output tensor dtype {CPP_TYPE_NAMES[dtype.name]} should match"
        )
    if self._size != tuple(shape):
        raise RuntimeError(
            f"Bad in-place call: input tensor size {list(self._size)} and output tensor size "
            f"{list(shape)} should match"
        )


class structured_product(StructuredKernel):  # noqa: N801 - reads as a wrapper in declarations
    """A product PyTorch writes as a structured kernel (``addmm``, ``addmv``, ``baddbmm``,
    ``linalg_cross``): ``meta`` checks the arguments and gives the output's shape and
    dtype, ``impl`` computes the values as a new tensor.

    The functional overload returns it; the in-place one first checks that ``self`` is
    that output already (``check_inplace``), then copies into it; the ``out=`` one
    checks that ``out`` has the output's dtype, resizes it and copies.
    """

    def __init__(self, meta, impl):
        self.meta, self.impl = meta, impl

    def for_overload(self, schema, variant):
        meta, impl = self.meta, self.impl
        if variant is OUT:
            return out_wrapper(impl, exact_dtype=True, meta=meta).for_overload(schema, variant)
        if variant is not INPLACE:
            return meta_then_impl(meta, impl)

        def inplace_kernel(self, *args, **options):
            shape, dtype = meta(self, *args, **options)
            check_inplace(self, shape, dtype)
            np.copyto(self._array, impl(self, *args, **options)._array)
            return self

        def inplace_meta_kernel(self, *args, **options):
            """On the meta device: the same checks, and ``self`` as it is."""
            shape, dtype = meta(self, *args, **options)
            check_inplace(self, shape, dtype)
            return self

        # Registered as its Meta kernel (``vizgrad.ops.meta_kernels``).
        inplace_kernel.meta_kernel = inplace_meta_kernel
        return inplace_kernel


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


def dot_meta(self: Tensor, other: Tensor):
    """``dot``'s and ``vdot``'s checks and result: a 0-dim tensor of their dtype. (A bool
    vector is refused by the CPU loop's dtype dispatch, not here: on the meta device
    PyTorch's ``dot`` of bool vectors runs.)"""
    _check_vectors(self, other)
    return (), self._dtype


def _dot_kernel(self, tensor):
    _check_vectors(self, tensor)
    if self._dtype.category == BOOL:
        raise _not_implemented("dot", self._dtype)
    return _product(np.dot, self._array, tensor._array, dtype=self._dtype)


def _vdot_kernel(self, other):
    _check_vectors(self, other)
    if self._dtype.category == BOOL:
        raise _not_implemented("dot", self._dtype)
    return _product(np.vdot, self._array, other._array, dtype=self._dtype)


def dot_out_kernel(kernel):
    """``dot.out``'s: ``out`` must already have the result's dtype, in ``dot``'s words."""

    def out_kernel(self, other, *, out):
        result = kernel(self, other)
        if out._dtype is not result._dtype:
            raise RuntimeError(
                f"result dtype {out._dtype.scalar_name} does not match input dtype "
                f"{result._dtype.scalar_name}"
            )
        return write_to_out(result, out)

    return out_kernel


# d(a·b)/da = b, d(a·b)/db = a (scaled by the incoming scalar gradient).
dot = native_function(
    "dot(Tensor self, Tensor tensor) -> Tensor",
    "dot.out(Tensor self, Tensor tensor, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_dot_kernel,
    kernels={"dot.out": dot_out_kernel(_dot_kernel)},
    derivative=Derivative(
        "DotBackward0",
        save=("self", "tensor"),
        reads={"self": ("tensor",), "tensor": ("self",)},
        grads={
            "self": lambda grad, saved: grad * saved.tensor.conj(),
            "tensor": lambda grad, saved: grad * saved.self.conj(),
        },
        complex=True,
    ),
    doc="``torch.dot``: the inner product of two 1-D tensors of the same dtype (no promotion).",
)
# vdot(a, b) = sum(conj(a) * b): d/da (conjugate Wirtinger) is conj(grad) * b.
vdot = native_function(
    "vdot(Tensor self, Tensor other) -> Tensor",
    "vdot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_vdot_kernel,
    kernels={"vdot.out": dot_out_kernel(_vdot_kernel)},
    derivative=Derivative(
        "VdotBackward0",
        save=("self", "other"),
        reads={"self": ("other",), "other": ("self",)},
        grads={
            "self": lambda grad, saved: grad.conj() * saved.other,
            "other": lambda grad, saved: grad * saved.self,
        },
        complex=True,
    ),
    doc="``torch.vdot``: like ``dot``, conjugating the first vector.",
)
_dot_op = dot.overloads["dot"]


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


def _mv_meta(self: Tensor, vec: Tensor):
    # On the meta device PyTorch runs ``mv``'s Python reference: one device first (a CPU
    # and a meta operand can only meet there).
    check_same_device((self, vec))
    _check_mv(self, vec)
    return (self._size[0],), self._dtype


def _mv_impl(self, vec):
    if self._dtype.category == BOOL:
        raise _not_implemented("addmv_impl_cpu", self._dtype)
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
            f"{CPP_TYPE_NAMES[mat1._dtype.name]} != {CPP_TYPE_NAMES[mat2._dtype.name]}"
        )


def _mm_meta(self: Tensor, mat2: Tensor):
    _check_mm(self, mat2)
    return (self._size[0], mat2._size[1]), self._dtype


def _mm_impl(self, mat2):
    if self._dtype.category == BOOL:
        raise _not_implemented("addmm_impl_cpu_", self._dtype)
    return _product(np.matmul, self._array, mat2._array, dtype=self._dtype)


def check_bmm_shapes(batch1: Tensor, batch2: Tensor) -> None:
    """``common_checks_baddbmm_bmm``: two batches of matrices that can be multiplied
    (shared by ``bmm`` and ``baddbmm``)."""
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


def _check_bmm(batch1: Tensor, batch2: Tensor) -> None:
    check_bmm_shapes(batch1, batch2)
    if batch1._dtype is not batch2._dtype:
        raise RuntimeError(
            f"expected scalar type {batch1._dtype.scalar_name} but found "
            f"{batch2._dtype.scalar_name}"
        )


def _bmm_meta(self: Tensor, mat2: Tensor):
    _check_bmm(self, mat2)
    return (self._size[0], self._size[1], mat2._size[2]), self._dtype


def _bmm_impl(self, mat2):
    if self._dtype.category == BOOL:
        raise _not_implemented("bmm", self._dtype)
    return _product(np.matmul, self._array, mat2._array, dtype=self._dtype)


# y = A v: dA = grad ⊗ v (an outer product), dv = Aᵀ grad.
mv = native_function(
    "mv(Tensor self, Tensor vec) -> Tensor",
    "mv.out(Tensor self, Tensor vec, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=meta_then_impl(_mv_meta, _mv_impl),
    kernels={"mv.out": out_wrapper(_mv_impl, exact_dtype=True, meta=_mv_meta)},
    derivative=Derivative(
        "MvBackward0",
        save=("self", "vec"),
        reads={"self": ("vec",), "vec": ("self",)},
        grads={
            "self": lambda grad, saved: outer(grad, saved.vec.conj()),
            "vec": lambda grad, saved: saved.self.conj().t().mv(grad),
        },
        complex=True,
    ),
    doc="``torch.mv``: matrix (n×m) times vector (m) gives a vector (n).",
)
_mv_op = mv.overloads["mv"]


def _is_column_major(t: Tensor) -> bool:
    return t._stride[0] == 1 and t._stride[1] == t._size[0]


def mm_mat1_backward(grad: Tensor, mat2: Tensor, mat1: Tensor, alpha=1) -> Tensor:
    """``mm_mat1_backward``: d(mat1 @ mat2)/d(mat1) applied to ``grad`` is ``grad @ mat2ᵀ``.

    When ``mat1`` was column-major (a transposed matrix), PyTorch computes the same
    product as ``(mat2 @ gradᵀ)ᵀ`` so the gradient comes out column-major as well.
    """
    column_major = _is_column_major(mat1)
    result = mat2.conj().mm(grad.t()).t() if column_major else grad.mm(mat2.t().conj())
    return result if alpha == 1 else result * alpha.conjugate()


def mm_mat2_backward(grad: Tensor, mat1: Tensor, mat2: Tensor, alpha=1) -> Tensor:
    """``mm_mat2_backward``: ``mat1ᵀ @ grad`` (or ``(gradᵀ @ mat1)ᵀ`` for column-major)."""
    column_major = _is_column_major(mat2)
    result = grad.t().mm(mat1.conj()).t() if column_major else mat1.t().conj().mm(grad)
    return result if alpha == 1 else result * alpha.conjugate()


mm = native_function(
    "mm(Tensor self, Tensor mat2) -> Tensor",
    "mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=meta_then_impl(_mm_meta, _mm_impl),
    kernels={"mm.out": out_wrapper(_mm_impl, exact_dtype=True, meta=_mm_meta)},
    derivative=Derivative(
        "MmBackward0",
        save=(
            "self",
            "mat2",
            "self_sym_sizes",
            "self_sym_strides",
            "mat2_sym_sizes",
            "mat2_sym_strides",
        ),
        # Each gradient reads the other matrix, and only the layout of its own.
        reads={"self": ("mat2", "self_sym_strides"), "mat2": ("self", "mat2_sym_strides")},
        grads={
            "self": lambda grad, saved: mm_mat1_backward(grad, saved.mat2, saved.layout("self")),
            "mat2": lambda grad, saved: mm_mat2_backward(grad, saved.self, saved.layout("mat2")),
        },
        complex=True,
    ),
    doc="``torch.mm``: (n×m) @ (m×p) = (n×p), no broadcasting, same dtypes only.",
)
_mm_op = mm.overloads["mm"]
# mm's rule, batch by batch: transpose the last two dims of the other operand.
bmm = native_function(
    "bmm(Tensor self, Tensor mat2) -> Tensor",
    "bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=meta_then_impl(_bmm_meta, _bmm_impl),
    kernels={"bmm.out": out_wrapper(_bmm_impl, exact_dtype=True, meta=_bmm_meta)},
    derivative=Derivative(
        "BmmBackward0",
        save=("self", "mat2"),
        reads={"self": ("mat2",), "mat2": ("self",)},
        grads={
            "self": lambda grad, saved: grad.bmm(saved.mat2.transpose(1, 2).conj()),
            "mat2": lambda grad, saved: saved.self.transpose(1, 2).conj().bmm(grad),
        },
        complex=True,
    ),
    doc="``torch.bmm``: a batch of matrix products, (b×n×m) @ (b×m×p) = (b×n×p).",
)
_bmm_op = bmm.overloads["bmm"]


# --- matmul ------------------------------------------------------------------------------


def _should_fold(tensor1: Tensor, tensor2: Tensor, has_out: bool) -> bool:
    """``should_fold``: can the batch dims of the bigger operand fold into matrix rows?

    Then one ``mm`` (or ``mv``) replaces a ``bmm`` over a broadcast copy of the smaller
    operand. Under autograd PyTorch folds whenever the smaller operand requires grad,
    even at the cost of a copy, so its gradient is not a big broadcast tensor.
    """
    larger_first = tensor1.dim() >= tensor2.dim()
    t1 = tensor1 if larger_first else tensor2.mT
    dim_t2 = tensor2.dim() if larger_first else tensor1.dim()
    if not (t1.dim() >= 3 and dim_t2 <= 2):
        return False
    smaller = tensor2 if larger_first else tensor1
    if smaller.requires_grad and not has_out:
        return True
    if tensor1.dim() == 2:  # folding would need a transpose and a copy of the result
        return False
    if t1.numel() == 0:
        return True
    # Folding is free when the batch dims and the rows form one stride chain.
    size, stride = t1._size, t1._stride
    return all(stride[i] == stride[i + 1] * size[i + 1] for i in range(t1.dim() - 2))


def _folded_matmul(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    """N-D @ 1-D or 2-D (or the mirror case): fold the batch dims into rows, one mm/mv."""
    transpose = tensor2.dim() > tensor1.dim()
    t1 = tensor2.mT if transpose else tensor1
    # The smaller operand, transposed to match (a 1-D one needs no transposing).
    t2 = (tensor1.t() if tensor1.dim() == 2 else tensor1) if transpose else tensor2
    output_shape = list(t1._size[:-1])
    folded = reshape(t1, (numel_of(output_shape), t1._size[-1]))
    if t2.dim() == 2:
        output_shape.append(t2._size[1])
        output = _unsafe_view_op(_mm_op(folded, t2), output_shape)
        return output.mT.contiguous() if transpose else output
    return _unsafe_view_op(_mv_op(folded, t2), output_shape)


def _batched_matmul(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    """Broadcast the batch dims, flatten them into one, and run one ``bmm``."""
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    n = tensor1._size[-2] if dim1 > 1 else 1
    m1 = tensor1._size[-1]
    m2 = tensor2._size[-2] if dim2 > 1 else tensor2._size[-1]
    p = tensor2._size[-1] if dim2 > 1 else 1
    batch1, batch2 = tensor1._size[:-2], tensor2._size[:-2]
    batch = broadcast_shapes(batch1, batch2)
    count = numel_of(batch)
    left = reshape(tensor1.expand((*batch, n, m1)), (count, n, m1))
    vector_rhs = dim2 == 1
    if vector_rhs:
        right = unsqueeze(reshape(tensor2.expand((*batch, m2)), (count, m2)), 2)
    else:
        right = reshape(tensor2.expand((*batch, m2, p)), (count, m2, p))
    output_shape = (*batch, *((n,) if dim1 > 1 else ()), *((p,) if dim2 > 1 else ()))
    product = _bmm_op(left, right)
    return _unsafe_view_op(product.squeeze(-1) if vector_rhs else product, output_shape)


def _matmul_impl(tensor1: Tensor, tensor2: Tensor, has_out: bool = False) -> Tensor:
    """``_matmul_impl``: choose dot, mv, mm or bmm by the operands' ranks.

    Built only from other operators (CompositeImplicitAutograd), so autograd records
    *their* nodes: ``MmBackward0`` for 2-D @ 2-D, ``UnsafeViewBackward0`` over
    ``BmmBackward0`` for batches, exactly as PyTorch does.
    """
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D"
        )
    if dim1 == 1 and dim2 == 1:
        return _dot_op(tensor1, tensor2)
    if dim1 == 2 and dim2 == 1:
        return _mv_op(tensor1, tensor2)
    if dim1 == 1 and dim2 == 2:  # a row vector times a matrix, then drop the row
        return _mm_op(unsqueeze(tensor1, 0), tensor2).squeeze_(0)
    if dim1 == 2 and dim2 == 2:
        return _mm_op(tensor1, tensor2)
    if _should_fold(tensor1, tensor2, has_out):
        return _folded_matmul(tensor1, tensor2)
    if dim1 == 3 and dim2 == 3 and tensor1._size[0] != tensor2._size[0]:
        # A batch of one that requires grad is squeezed, to take the folding path.
        if tensor1._size[0] == 1 and tensor1.requires_grad:
            return _matmul_impl(tensor1.squeeze(0), tensor2, has_out)
        if tensor2._size[0] == 1 and tensor2.requires_grad:
            return _matmul_impl(tensor1, tensor2.squeeze(0), has_out)
    return _batched_matmul(tensor1, tensor2)


matmul = native_function(
    "matmul(Tensor self, Tensor other) -> Tensor",
    "matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_matmul_impl,
    kernels={
        "matmul.out": out_wrapper(
            lambda self, other: _matmul_impl(self, other, has_out=True), exact_dtype=True
        )
    },
    kind=COMPOSITE_IMPLICIT,
    doc="""``torch.matmul`` (``a @ b``): the product for every rank combination.

    1-D · 1-D is a dot product; a 1-D operand on the left is a row, on the right a
    column (and that dimension is dropped from the result); with more than two
    dimensions the leading ones are batch dimensions and broadcast.
    """,
)


# --- outer and addmm ---------------------------------------------------------------------


def check_1d(t: Tensor, arg: str, fn: str) -> None:
    """``check_1d``: argument ``arg`` of ``fn`` must be a vector (``outer``, ``addr``)."""
    if t.dim() != 1:
        raise RuntimeError(f"{fn}: Expected 1-D argument {arg}, but got {t.dim()}-D")


def _check_outer(self, vec2) -> None:
    check_1d(self, "self", "outer")
    check_1d(vec2, "vec2", "outer")


def _outer_composite(self, vec2):
    """``outer`` is a broadcast multiply of a column by a row (so it promotes, like mul).

    CompositeImplicitAutograd: autograd sees ``reshape`` then ``mul``.
    """
    _check_outer(self, vec2)
    return reshape(self, (self._size[0], 1)) * vec2


def _outer_out_kernel(self, vec2, *, out):
    _check_outer(self, vec2)
    dtype = result_type(self, vec2)
    a = self._array.astype(dtype.numpy, copy=False)
    b = vec2._array.astype(dtype.numpy, copy=False)
    return write_to_out(_product(np.multiply.outer, a, b, dtype=dtype), out)


outer = native_function(
    "outer(Tensor self, Tensor vec2) -> Tensor",
    "outer.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_outer_composite,
    kernels={"outer.out": _outer_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.outer``: ``result[i, j] = input[i] * vec2[j]`` (types promote, as in ``mul``).",
)


def _ger_kernel(self, vec2):
    return outer.overloads["outer"](self, vec2)


def _ger_out_kernel(self, vec2, *, out):
    return outer.overloads["outer.out"](self, vec2, out=out)


# ``ger`` is the old name of ``outer``, and PyTorch's kernels just call it.
ger = native_function(
    "ger(Tensor self, Tensor vec2) -> Tensor",
    "ger.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_ger_kernel,
    kernels={"ger.out": _ger_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.ger``: the old name of ``outer``.",
)


def _addmm_meta(self, mat1, mat2, *, beta=1, alpha=1):
    """``addmm``'s meta function (``addmm_meta``: two matrices of one dtype, ``self``'s
    too, that can be multiplied), then ``self`` broadcast to the product's shape, as the
    CPU kernel expands it before computing; the result is contiguous, in ``mat1``'s dtype.

    PyTorch's meta path first checks that ``self`` is where ``mat1`` is (not ``mat2``)."""
    check_same_device((mat1, self))
    for t, name in ((mat1, "mat1"), (mat2, "mat2")):
        if t.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t.dim()}-D tensor")
    for first, name in ((self, "self"), (mat1, "mat1")):
        if first._dtype is not mat2._dtype:
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got "
                f"{first._dtype.scalar_name} and {mat2._dtype.scalar_name}"
            )
    if mat1._size[1] != mat2._size[0]:
        (n, m), (k, p) = mat1._size, mat2._size
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{m} and {k}x{p})")
    target = (mat1._size[0], mat2._size[1])
    if self._size != target:
        self.expand(target)  # ``expand_size``: its errors, if ``self`` does not broadcast
    return target, mat1._dtype


def _addmm_impl(self, mat1, mat2, *, beta=1, alpha=1):
    dtype = mat1._dtype
    if dtype.category == BOOL:
        raise _not_implemented("addmm_impl_cpu_", dtype)
    product = _addmm_loop(self._array, mat1._array, mat2._array, beta, alpha)
    return Tensor._from_array(np.ascontiguousarray(product, dtype=dtype.numpy), dtype)


@ignoring_float_errors(all="ignore")
def _addmm_loop(input, mat1, mat2, beta, alpha) -> np.ndarray:
    product = np.matmul(mat1, mat2)
    if alpha != 1:
        product = product * alpha
    if beta != 0:  # beta == 0 ignores input entirely (even its nan and inf)
        product = product + (input * beta if beta != 1 else input)
    return product


addmm = native_function(
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) "
    "-> Tensor(a!)",
    "addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=structured_product(_addmm_meta, _addmm_impl),
    # beta * self + alpha * mat1 @ mat2: mm's rules scaled by alpha; self's by beta
    # (the engine sums a broadcast ``self``'s gradient back to its shape).
    derivative=Derivative(
        "AddmmBackward0",
        save=("mat1", "mat2", "alpha", "beta", "mat1_sym_sizes", "mat1_sym_strides",
              "mat2_sym_sizes", "mat2_sym_strides"),
        reads={"mat1": ("mat2", "mat1_sym_strides"), "mat2": ("mat1", "mat2_sym_strides")},
        grads={
            "self": lambda grad, saved: grad if saved.beta == 1 else grad * saved.beta,
            "mat1": lambda grad, saved: mm_mat1_backward(grad, saved.mat2,
                                                         saved.layout("mat1"), saved.alpha),
            "mat2": lambda grad, saved: mm_mat2_backward(grad, saved.mat1,
                                                         saved.layout("mat2"), saved.alpha),
        },
    ),
    doc="``torch.addmm``: ``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts.",
)  # fmt: skip


# --- tensordot -----------------------------------------------------------------------------


def _tensordot_dims(a: Tensor, b: Tensor, dims):
    """The two dim lists that ``dims`` names (``torch/functional.py``'s ``tensordot``)."""
    if not isinstance(dims, tuple | list | Tensor | numbers.Integral):
        raise RuntimeError(
            "tensordot expects dims to be int or tuple[list[int], list[int]] or "
            f"list[list[int]] containing two lists, but got dims={dims}"
        )
    if isinstance(dims, tuple | list):
        return dims
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            return dims[0].tolist(), dims[1].tolist()
        count = int(dims.item())
        if count < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        return list(range(-count, 0)), list(range(count))
    if dims < 0:
        raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
    if dims > min(a.dim(), b.dim()):
        raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
    return list(range(-dims, 0)), list(range(dims))


def _tensordot_composite(self, other, dims_self, dims_other):
    """``tensordot`` as PyTorch builds it: permute, reshape to matrices, one ``mm``, reshape.

    The contracted dims of ``self`` go last and those of ``other`` first, so the
    contraction is a single matrix product. A contracted dim of size 1 on one side
    broadcasts: the other side's dim is summed right away.
    """
    if len(dims_self) != len(dims_other):
        raise RuntimeError("both dimension lists should have same length")
    if self._dtype is not other._dtype:
        raise RuntimeError("both inputs should have same dtype")
    t1, t2, contracted = self, other, 1
    for da, db in zip(dims_self, dims_other, strict=True):
        size_a = self._size[wrap_dim(da, self.dim())]
        size_b = other._size[wrap_dim(db, other.dim())]
        if size_b == 1:
            t1 = t1.sum(da, keepdim=True)
        elif size_a == 1:
            t2 = t2.sum(db, keepdim=True)
        elif size_a != size_b:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {size_a} in dim {da} "
                f"and second has size {size_b} in dim {db}"
            )
        else:
            contracted *= size_a
    kept1 = _kept_dims(dims_self, self.dim())
    kept2 = _kept_dims(dims_other, other.dim())
    result_sizes = [t1._size[d] for d in kept1] + [t2._size[d] for d in kept2]
    left = reshape(
        t1.permute(kept1 + list(dims_self)), (numel_of([t1._size[d] for d in kept1]), contracted)
    )
    right = reshape(t2.permute(list(dims_other) + kept2),
                    (contracted, numel_of([t2._size[d] for d in kept2])))  # fmt: skip
    return reshape(_mm_op(left, right), result_sizes)


def _kept_dims(contracted, ndim: int) -> list[int]:
    """The dims not contracted, in order (``dim_list_to_bitset`` rejects repeats)."""
    seen = set()
    for d in contracted:
        d = wrap_dim(d, ndim)
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return [d for d in range(ndim) if d not in seen]


# The operator: two explicit lists of dims. ``vizgrad.tensordot`` (below) is the
# Python function of ``torch/functional.py`` that turns ``dims`` into those lists.
_tensordot = native_function(
    "tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor",
    "tensordot.out(Tensor self, Tensor other, int[] dims_self, int[] dims_other, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_tensordot_composite,
    kernels={"tensordot.out": out_wrapper(_tensordot_composite, exact_dtype=True)},
    kind=COMPOSITE_IMPLICIT,
    variants="function",
)


def tensordot(a, b, dims=2, out=None) -> Tensor:
    """``torch.tensordot``: contract ``dims`` dimensions of ``a`` with ``b``.

    ``dims=k`` pairs the last ``k`` dims of ``a`` with the first ``k`` of ``b``; a pair
    of lists names the dims to pair explicitly.
    """
    dims_a, dims_b = _tensordot_dims(a, b, dims)
    if out is None:
        return _tensordot(a, b, dims_a, dims_b)
    return _tensordot(a, b, dims_a, dims_b, out=out)

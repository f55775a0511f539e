"""Shapes built from other operators: ``broadcast_to``, ``meshgrid``, ``kron``… (``TensorShape.cpp``).

Most of these are CompositeImplicitAutograd in PyTorch: no kernel and no backward of
their own, only calls to other operators, each dispatched and differentiated by
itself. So ``broadcast_to`` records the ``ExpandBackward0`` of the ``expand`` it is,
``meshgrid`` a ``view`` then an ``expand`` per grid, ``kron`` a ``mul`` between two
views, and ``combinations`` a ``masked_select`` of each grid. Their graphs are the
graphs of what they are made of.

Two have kernels and nodes of their own (CompositeExplicitAutograd): ``block_diag``
(``BlockDiagBackward0``) and ``narrow_copy`` (``NarrowCopyBackward0``).

``broadcast_tensors``, ``meshgrid``, ``block_diag`` and ``cartesian_prod`` take their
tensors one by one (``torch.meshgrid(x, y)``): PyTorch writes that in Python
(``torch/functional.py``) around an operator that takes one list, and so does this
module.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import BOOL, COMPLEX, get_default_dtype, int64
from ..dtypes import bool as bool_dtype
from ..promotion import promote_types, result_type
from ..shape import broadcast_shapes, contiguous_strides, wrap_dim
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .arithmetic import mul
from .comparison import le, lt
from .creation import empty, full
from .declaration import native_function
from .iterator import resize_output
from .joining import flip, stack
from .masked import masked_select
from .overload_kernels import meta_then_impl, out_wrapper
from .parts import _select_op, _slice_op, zeros_with_grad_in_view
from .ranges import arange
from .scan import cumprod
from .shape_views import _expand_op, _unsafe_view_op, _view_op, flatten

__all__ = [
    "broadcast_to",
    "broadcast_tensors",
    "meshgrid",
    "ravel",
    "narrow_copy",
    "block_diag",
    "kron",
    "vander",
    "cartesian_prod",
    "combinations",
]


# --- broadcasting: views with stride 0 -------------------------------------------------------


broadcast_to = native_function(
    "broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    kernel=lambda self, size: _expand_op(self, size),
    kind=COMPOSITE_IMPLICIT,
    doc="""``torch.broadcast_to``: ``input.expand(size)``, a view (grown dims get stride 0).

    Its node is ``expand``'s ``ExpandBackward0``, which sums the gradient of the copies.
    """,
)


def _broadcast_tensors_kernel(tensors) -> tuple[Tensor, ...]:
    """``expand_outplace``: each tensor expanded to the common shape; one that already
    has it is returned as it is (the same tensor, not a view)."""
    shape = broadcast_shapes(*(t._size for t in tensors))
    return tuple(t if t._size == shape else _expand_op(t, shape) for t in tensors)


_broadcast_tensors = native_function(
    "broadcast_tensors(Tensor[] tensors) -> Tensor[]",
    kernel=_broadcast_tensors_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
)


def broadcast_tensors(*tensors) -> tuple[Tensor, ...]:
    """``torch.broadcast_tensors``: views of all the tensors at their common shape.

    The tensors broadcast as elementwise operators broadcast them (size-1 dims grow,
    missing leading dims are added); each view reads its tensor's elements with stride
    0 where it grew, so several of its elements share one memory location.
    """
    return _broadcast_tensors(tensors)


# --- meshgrid ---------------------------------------------------------------------------------


def _meshgrid_kernel(tensors, *, indexing: str) -> tuple[Tensor, ...]:
    """Grid ``i`` is tensor ``i`` viewed along dim ``i`` (``view`` with -1 there, 1
    elsewhere) and expanded to the grid's shape. ``"xy"`` swaps the first two tensors'
    roles (and the first two grids back): NumPy's Cartesian indexing."""
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for first, second in zip(tensors, tensors[1:], strict=False):
        if first._dtype is not second._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    ordered = list(tensors)
    swapped = False
    if indexing == "xy":
        swapped = len(ordered) >= 2
        if swapped:
            ordered[0], ordered[1] = ordered[1], ordered[0]
    elif indexing != "ij":
        raise RuntimeError(
            f'vizgrad.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for t in ordered:
        if t.dim() > 1:
            raise RuntimeError(
                "vizgrad.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                + _cpp_tensor_text(t)
            )
    shape = [t.numel() for t in ordered]  # a 0-d tensor counts as one element
    grids = []
    for i, t in enumerate(ordered):
        along_i = [1] * len(ordered)
        along_i[i] = -1
        grids.append(_expand_op(_view_op(t, along_i), shape))
    if swapped:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _meshgrid_without_indexing(tensors) -> tuple[Tensor, ...]:
    # PyTorch warns once per process (``TORCH_WARN_ONCE``); Python's warning filters
    # show this once per calling line, with no state kept here.
    warn_at_user_code(
        "vizgrad.meshgrid: in an upcoming release, it will be required to pass the indexing "
        "argument.",
        UserWarning,
    )
    return _meshgrid_kernel(tensors, indexing="ij")


_meshgrid = native_function(
    "meshgrid(Tensor[] tensors) -> Tensor[]",
    "meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]",
    kernels={"meshgrid": _meshgrid_without_indexing, "meshgrid.indexing": _meshgrid_kernel},
    kind=COMPOSITE_IMPLICIT,
    variants="function",
)
_meshgrid_op = _meshgrid.overloads["meshgrid.indexing"]


def meshgrid(*tensors, indexing: str | None = None) -> tuple[Tensor, ...]:
    """``torch.meshgrid``: coordinate grids from 1-D tensors (0-d ones count as 1-D).

    With ``N`` tensors of sizes ``S_0 … S_{N-1}``, grid ``i`` has shape ``(S_0, …,
    S_{N-1})`` and holds tensor ``i``'s values along dim ``i``: an ``expand`` (a view)
    of it. ``indexing="ij"`` keeps that order, ``"xy"`` swaps the first two dims
    (NumPy's default); leaving it out means ``"ij"``, with a warning that it will be
    required. The tensors may also come as one list.
    """
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tensors[0]  # the old interface: one list of tensors
    return _meshgrid(tensors) if indexing is None else _meshgrid(tensors, indexing=indexing)


# How ATen's C++ ``operator<<`` names a tensor's type, where PyTorch's error messages
# print a tensor: the legacy tensor-type names, or ``CPU<Scalar>Type`` for the dtypes
# that have none.
def _cpp_type_name(t: Tensor) -> str:
    if t._dtype.category in (BOOL, COMPLEX):
        return f"CPU{t._dtype.scalar_name}Type"
    return f"vizgrad.{t._dtype.scalar_name}Tensor"


def _cpp_tensor_text(t: Tensor) -> str:
    """A tensor of 2 or more dims as ATen prints it in a message (``Formatting.cpp``).

    Values as doubles, one matrix per index of the leading dims (``(1,2,.,.) = ``, the
    first index varying fastest), cut into blocks of columns that fit 80 characters,
    then the type and sizes: ``[ vizgrad.FloatTensor{3,4} ]``.
    """
    values = t._array.real.astype(np.float64) if t.numel() else None
    blocks = []
    if values is not None:
        leading = np.ndindex(*reversed(values.shape[:-2]))
        for index in (tuple(reversed(i)) for i in leading):
            matrix = values[index]
            if not index:
                blocks.append(_cpp_matrix_text(matrix, indent=0))
            else:
                label = "".join(f"{i + 1}," for i in index)
                blocks.append(f"({label}.,.) = \n" + _cpp_matrix_text(matrix, indent=1))
    sizes = ",".join(str(s) for s in t._size)
    return "\n".join(blocks) + f"[ {_cpp_type_name(t)}{{{sizes}}} ]"


def _cpp_matrix_text(matrix: np.ndarray, indent: int) -> str:
    """``__printMatrix``: the columns in blocks of as many as fit the line, each block
    with its rows; a common power of ten is printed once above (``0.001 *``)."""
    scale, width, spec = _cpp_format(matrix)
    per_line = (80 - indent) // (width + 1)
    rows, columns = matrix.shape
    pad = " " * indent
    text = []
    first = 0
    while first < columns:
        last = min(first + per_line, columns) - 1
        if per_line < columns:
            text.append(("\n" if first else "") + f"Columns {first + 1} to {last + 1}" + pad)
        if scale != 1:
            text.append(f"{scale:.4g} *\n" + pad)
        lines = [" ".join(format(v / scale, f">{width}{spec}") for v in matrix[r, first : last + 1])
                 for r in range(rows)]  # fmt: skip
        text.append(("\n" + pad + (" " if scale != 1 else "")).join(lines) + "\n")
        first = last + 1
    return "".join(text)


def _cpp_format(values: np.ndarray) -> tuple[float, int, str]:
    """``__printFormat``: the scale, the width and the format of the numbers.

    Whole numbers print as C++'s default (``%g``), the others with 4 decimals, fixed or
    scientific by how many powers of ten lie between the smallest and the largest
    magnitude. (The largest is the first finite value's magnitude or a larger
    *positive* value, as PyTorch computes it.)
    """
    finite = values[np.isfinite(values)]
    whole = bool(np.all(finite == np.ceil(finite)))
    if finite.size:
        smallest, largest = np.abs(finite).min(), max(abs(finite[0]), finite.max())
        exp_min = np.floor(np.log10(smallest)) + 1 if smallest else 1
        exp_max = np.floor(np.log10(largest)) + 1 if largest else 1
    else:
        exp_min = exp_max = 1
    if whole:
        return (1.0, 11, ".4e") if exp_max > 9 else (1.0, int(exp_max) + 1, "g")
    if exp_max - exp_min > 4:
        return 1.0, 12 if abs(exp_max) > 99 or abs(exp_min) > 99 else 11, ".4e"
    if exp_max > 5 or exp_max < 0:
        return float(10 ** (exp_max - 1)), 7, ".4f"
    return 1.0, 7 if exp_max == 0 else int(exp_max) + 6, ".4f"


# --- ravel and narrow_copy: flat and partial copies -------------------------------------------


ravel = native_function(
    "ravel(Tensor(a) self) -> Tensor(a)",
    kernel=lambda self: _view_op(self.contiguous(), (-1,)),
    kind=COMPOSITE_IMPLICIT,
    doc="""``torch.ravel``: the elements as one dim, in row-major order.

    ``input.contiguous().view(-1)``: a view of a contiguous input, a view of a
    contiguous copy otherwise (``ViewBackward0`` after ``CloneBackward0``).
    """,
)


def _failed_check(condition: str) -> RuntimeError:
    """The message of a ``TORCH_CHECK(condition)`` given no message of its own."""
    return RuntimeError(
        f"Expected {condition} to be true, but got false.  (Could this error message be "
        "improved?  If so, please report an enhancement request to PyTorch.)"
    )


def _check_has_dims(self: Tensor) -> None:
    if not self._size:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")


def _narrowed_range(self: Tensor, dim: int, start: int, length: int) -> tuple[int, int]:
    """``narrow_copy``'s checks (``narrow_copy_dense_cpu_out``); the wrapped dim and start."""
    _check_has_dims(self)
    if dim >= len(self._size):  # only a negative dim is wrapped (and range-checked) there
        raise _failed_check("dim < static_cast<int64_t>(self_sizes.size())")
    dim = wrap_dim(dim, len(self._size))
    size = self._size[dim]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    start = start + size if start < 0 else start
    if length < 0 or start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return dim, start


def _narrow_copy_meta(self: Tensor, dim: int, start: int, length: int) -> tuple:
    """``narrow_copy``'s result: ``self`` with ``length`` along ``dim``, row-major."""
    dim, start = _narrowed_range(self, dim, start, length)
    size = list(self._size)
    size[dim] = length
    return tuple(size), self._dtype


def _narrow_copy_kernel(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    dim, start = _narrowed_range(self, dim, start, length)
    part = self._array[(slice(None),) * dim + (slice(start, start + length),)]
    return Tensor._from_array(np.ascontiguousarray(part), self._dtype)


def _check_narrow_copy_out(self: Tensor, dim, start, length, *, out: Tensor) -> None:
    _check_has_dims(self)
    if out._dtype is not self._dtype:
        raise _failed_check("self.dtype() == output.dtype()")


def _narrow_copy_backward(grad: Tensor, saved) -> Tensor:
    """The gradient goes into the narrowed part of zeros (``slice_backward``).

    The start is wrapped first: PyTorch's formula slices from the start as given, so a
    negative one gives it a wrong (zero) gradient or an error; this is the right one.
    """
    sizes = saved.self_sym_sizes
    dim = wrap_dim(saved.dim, len(sizes))
    start = saved.start + sizes[dim] if saved.start < 0 else saved.start
    return zeros_with_grad_in_view(
        grad, sizes, lambda t: _slice_op(t, dim, start, start + saved.length, 1)
    )


narrow_copy = native_function(
    "narrow_copy(Tensor self, int dim, SymInt start, SymInt length) -> Tensor",
    "narrow_copy.out(Tensor self, int dim, SymInt start, SymInt length, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernels={
        "narrow_copy": meta_then_impl(_narrow_copy_meta, _narrow_copy_kernel),
        # ``out`` must have ``self``'s dtype, and is resized without a warning.
        "narrow_copy.out": out_wrapper(
            _narrow_copy_kernel, check_cast=False, checks=_check_narrow_copy_out,
            meta=_narrow_copy_meta,
            warn_resize=False,
        ),
    },
    derivative=Derivative(
        "NarrowCopyBackward0",
        save=("self_sym_sizes", "dim", "start", "length"),
        grads={"self": _narrow_copy_backward},
        complex=True,
    ),
    doc="""``torch.narrow_copy``: ``narrow``'s elements (``length`` from ``start`` along
    ``dim``) copied into a new contiguous tensor, not a view.""",
)  # fmt: skip


# --- block_diag, kron, vander: matrices made of other tensors --------------------------------


def _block_shape(t: Tensor) -> tuple[int, int]:
    """The block a tensor makes: a matrix itself, a vector one row, a number 1 × 1."""
    return t._size if len(t._size) == 2 else (1, t.numel())


def _block_diag_meta(tensors) -> tuple:
    """``block_diag``'s checks and result: one row-major matrix of the blocks' sizes
    summed (no tensor: a ``(1, 0)`` matrix of the default dtype)."""
    if not tensors:
        return (1, 0), get_default_dtype()
    _check_block_dims(tensors)
    shapes = [_block_shape(t) for t in tensors]
    size = (sum(rows for rows, _ in shapes), sum(columns for _, columns in shapes))
    return size, result_type(*tensors)


def _check_block_dims(tensors) -> None:
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(
                "vizgrad.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {t.dim()} dimensions"
            )


def _block_diag_kernel(tensors) -> Tensor:
    """Zeros, with each tensor copied into its block along the diagonal."""
    if not tensors:
        return Tensor._empty_strided((1, 0), contiguous_strides((1, 0)), get_default_dtype())
    _check_block_dims(tensors)
    dtype = result_type(*tensors)
    shapes = [_block_shape(t) for t in tensors]
    size = (sum(rows for rows, _ in shapes), sum(columns for _, columns in shapes))
    result = np.zeros(size, dtype=dtype.numpy)
    row = column = 0
    for t, (rows, columns) in zip(tensors, shapes, strict=True):
        block = result[row : row + rows, column : column + columns]
        np.copyto(block, t._array.reshape(rows, columns), casting="unsafe")
        row, column = row + rows, column + columns
    return Tensor._from_array(result, dtype)


def _block_diag_backward(grad: Tensor, saved) -> list[Tensor]:
    """``block_diag_backward``: each input's gradient is its block of ``grad``, in the
    input's shape. (A ``(0,)`` input made a row of no columns: PyTorch's formula forgets
    that row, shifting the blocks after it; here they are read where they are.)"""
    grads, row, column = [], 0, 0
    for size in saved.tensors_args_sizes:
        rows, columns = size if len(size) == 2 else (1, 1 if not size else size[0])
        block = _slice_op(_slice_op(grad, 0, row, row + rows, 1), 1, column, column + columns, 1)
        grads.append(block if len(size) == 2 else block.reshape(size))
        row, column = row + rows, column + columns
    return grads


_block_diag = native_function(
    "block_diag(Tensor[] tensors) -> Tensor",
    kernel=meta_then_impl(_block_diag_meta, _block_diag_kernel),
    derivative=Derivative(
        "BlockDiagBackward0",
        save=("tensors_args_sizes",),
        grads={"tensors": _block_diag_backward},
        complex=True,
    ),
    variants="function",
)


def block_diag(*tensors) -> Tensor:
    """``torch.block_diag``: the tensors as blocks along a diagonal of zeros.

    Each tensor (a matrix; a vector is one row, a number one element) takes the rows
    and columns after the previous one's; the dtype is the tensors' promoted dtype.
    """
    return _block_diag(tensors)


def _kron_views(self: Tensor, other: Tensor):
    """``KronImpl``: dims paired up, ``self``'s ``(a_i, 1)`` against ``other``'s
    ``(1, b_i)`` (views that insert size-1 dims), whose broadcast product holds every
    ``a * b``; merging each pair gives the result's ``a_i * b_i``."""
    ndim = max(self.dim(), other.dim())
    self_sizes = (1,) * (ndim - self.dim()) + self._size
    other_sizes = (1,) * (ndim - other.dim()) + other._size
    self_shape = [s for a in self_sizes for s in (a, 1)]
    other_shape = [s for b in other_sizes for s in (1, b)]
    product_shape = [s for a, b in zip(self_sizes, other_sizes, strict=True) for s in (a, b)]
    result_shape = [a * b for a, b in zip(self_sizes, other_sizes, strict=True)]
    views = _unsafe_view_op(self, self_shape), _unsafe_view_op(other, other_shape)
    return views, product_shape, result_shape


def _kron_kernel(self: Tensor, other: Tensor) -> Tensor:
    (a, b), _, result_shape = _kron_views(self, other)
    return _unsafe_view_op(mul(a, b), result_shape)


def _kron_out_kernel(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    (a, b), product_shape, result_shape = _kron_views(self, other)
    resize_output(out, result_shape)
    mul(a, b, out=_unsafe_view_op(out, product_shape))
    return out


kron = native_function(
    "kron(Tensor self, Tensor other) -> Tensor",
    "kron.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={"kron": _kron_kernel, "kron.out": _kron_out_kernel},
    kinds={"kron": COMPOSITE_IMPLICIT, "kron.out": COMPOSITE_IMPLICIT},
    doc="""``torch.kron``: the Kronecker product, every element of ``input`` times all of
    ``other``, block by block.

    A ``mul`` of two views that pair up the dims (the fewer-dimensional tensor gets
    leading 1s), merged by a view: its nodes are ``UnsafeViewBackward0`` and
    ``MulBackward0``.
    """,
)


def _vander_kernel(x: Tensor, N=None, increasing: bool = False) -> Tensor:
    """Column ``j`` is ``x ** j``: ones, then ``x`` copied into the other columns and
    turned into powers by a ``cumprod`` along them; flipped for decreasing powers.

    As PyTorch builds it, with in-place writes into slices of the result (so its graph
    has ``CopySlices`` nodes). The ``cumprod``'s input is such a slice, written again
    afterwards: a backward through it reports the modified tensor, as PyTorch's does.
    """
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._size[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    # An integer (or bool) x gives int64: cumprod promotes integers to int64.
    result = empty((x._size[0], n), dtype=promote_types(x._dtype, int64))
    if n > 0:
        _select_op(result, 1, 0).fill_(1)
        if n > 1:
            _slice_op(result, 1, 1).copy_(x.unsqueeze(1))
            _slice_op(result, 1, 1).copy_(cumprod(_slice_op(result, 1, 1), 1))
    return result if increasing else flip(result, (1,))


vander = native_function(
    "vander(Tensor x, int? N=None, bool increasing=False) -> Tensor",
    kernel=_vander_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="""``torch.vander``: the Vandermonde matrix of ``x``, its columns powers of ``x``.

    ``N`` columns (default ``len(x)``), powers decreasing from ``N - 1`` to 0, or
    increasing with ``increasing=True``.
    """,
)


# --- cartesian_prod, combinations: tuples of elements ----------------------------------------


def _check_vector(t: Tensor) -> None:
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._size)}")


def _cartesian_prod_kernel(tensors) -> Tensor:
    """The ``"ij"`` grids, each flattened, stacked as columns (one tensor is itself)."""
    for t in tensors:
        _check_vector(t)
    if len(tensors) == 1:
        return tensors[0]
    return stack([flatten(grid) for grid in _meshgrid_op(tensors, indexing="ij")], 1)


_cartesian_prod = native_function(
    "cartesian_prod(Tensor[] tensors) -> Tensor",
    kernel=_cartesian_prod_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
)


def cartesian_prod(*tensors) -> Tensor:
    """``torch.cartesian_prod``: every tuple of one element from each 1-D tensor, as
    rows, in ``itertools.product``'s order."""
    return _cartesian_prod(tensors)


def _increasing_mask(n: int, r: int, with_replacement: bool) -> Tensor:
    """``_triu_mask``: True at the ``r``-dim grid positions ``i < j < k …`` (``<=`` with
    replacement), from ``"ij"`` grids of ``arange(n)``."""
    indices = _meshgrid_op([arange(n, dtype=int64)] * r, indexing="ij")
    mask = full(indices[0]._size, True, dtype=bool_dtype)
    in_order = le if with_replacement else lt
    for first, second in zip(indices, indices[1:], strict=False):
        mask.mul_(in_order(first, second))
    return mask


def _combinations_kernel(self: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The ``r``-dim grids of ``self``, each masked to its increasing positions."""
    _check_vector(self)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty(0, dtype=self._dtype)
    grids = _meshgrid_op([self] * r, indexing="ij")
    mask = _increasing_mask(self.numel(), r, with_replacement)
    return stack([masked_select(grid, mask) for grid in grids], 1)


combinations = native_function(
    "combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor",
    kernel=_combinations_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="""``torch.combinations``: the ``r``-element combinations of a 1-D tensor, as rows,
    in ``itertools.combinations``' order (``combinations_with_replacement``'s with
    ``with_replacement=True``).""",
)

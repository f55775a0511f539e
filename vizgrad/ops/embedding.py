"""Lookup tables: ``embedding`` and ``embedding_renorm_`` (``Embedding.cpp``).

``embedding(weight, indices)`` picks rows of a ``(num_embeddings, embedding_dim)`` table:
the result has the indices' shape plus ``embedding_dim``. It is an operator with its own
node, ``EmbeddingBackward0``, whose gradient scatters the incoming rows back into a zero
table (rows picked twice add up), skipping ``padding_idx`` and, with
``scale_grad_by_freq``, dividing each row by how often its index appeared in the batch.

``embedding_renorm_`` rescales, in place, the rows about to be looked up whose
``norm_type``-norm exceeds ``max_norm``. It has no derivative (PyTorch's
``not_implemented``): ``F.embedding`` calls it on the detached weight, under no_grad.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dtypes import int32, int64
from ..sparse_tensor import SparseCooTensor
from ..tensor import Tensor
from .creation import tensor as _as_tensor
from .declaration import native_function
from .overload_kernels import meta_then_impl

__all__ = ["embedding", "embedding_renorm_"]


def _check_index_dtype(function: str, indices: Tensor, position: int) -> None:
    """``checkScalarTypes``: indices are Long or Int, named as PyTorch's legacy types."""
    if indices._dtype not in (int64, int32):
        raise RuntimeError(
            f"Expected tensor for argument #{position} 'indices' to have one of the following "
            f"scalar types: Long, Int; but got vizgrad.{indices._dtype.scalar_name}Tensor "
            f"instead (while checking arguments for {function})"
        )


def _embedding_meta(weight: Tensor, indices: Tensor, padding_idx=-1,
                    scale_grad_by_freq=False, sparse=False) -> tuple:  # fmt: skip
    """``embedding``'s checks and result: a row of ``weight`` per index, row-major."""
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_index_dtype("embedding", indices, 1)
    return (*indices._size, weight._size[1]), weight._dtype


def _embedding_kernel(weight: Tensor, indices: Tensor, padding_idx=-1,
                      scale_grad_by_freq=False, sparse=False) -> Tensor:  # fmt: skip
    positions = indices._array.reshape(-1)
    rows = weight._size[0]
    if positions.size and (positions.min() < 0 or positions.max() >= rows):
        raise IndexError("index out of range in self")
    picked = np.take(weight._array, positions, axis=0)
    result = picked.reshape((*indices._size, weight._size[1]))
    return Tensor._from_array(np.ascontiguousarray(result), weight._dtype)


def embedding_dense_backward(grad: Tensor, indices: Tensor, num_weights: int, padding_idx: int,
                             scale_grad_by_freq: bool) -> Tensor:  # fmt: skip
    """``embedding_dense_backward``: each incoming row added to the row of the table its
    index picked (``index_add``), built from operators so it can be differentiated again."""
    positions = indices.reshape(-1)
    rows = grad.reshape((-1, grad._size[-1]))
    # Only a padding row or the counts read the indices' values (none on the meta device).
    flat = indices._array.reshape(-1) if padding_idx >= 0 or scale_grad_by_freq else None
    keep = None
    if padding_idx >= 0:  # the padding row gets no gradient: it stays what it was set to
        keep = flat != padding_idx
    if scale_grad_by_freq:
        # Each row divided by how often its index appears in this batch.
        counts = np.bincount(flat, minlength=num_weights)[flat] if flat.size else flat
        scale = 1.0 / np.maximum(counts, 1)
        keep = scale if keep is None else scale * keep
    if keep is not None:
        weights = _as_tensor(np.asarray(keep, dtype=grad._dtype.numpy), dtype=grad.dtype)
        rows = rows * weights.unsqueeze(1)
    table = grad.new_zeros((num_weights, grad._size[-1]))  # on grad's device
    return table.index_add(0, positions, rows)


def embedding_sparse_backward(grad: Tensor, indices: Tensor, num_weights: int,
                              padding_idx: int, scale_grad_by_freq: bool) -> Tensor:  # fmt: skip
    """``embedding_sparse_backward``: the gradient as a sparse COO table that stores one row
    per looked-up index (repeats kept: they add up), without the padding row's."""
    if scale_grad_by_freq:
        raise RuntimeError(
            "embedding_backward: scale_grad_by_freq not supported with sparse gradients"
        )
    flat = indices._array.reshape(-1).astype(np.int64)
    rows = grad.detach()._resolved_array().reshape(-1, grad._size[-1])
    if padding_idx != -1:
        rows, flat = rows[flat != padding_idx], flat[flat != padding_idx]
    coordinates = Tensor._from_array(flat.reshape(1, -1).copy(), int64)
    values = Tensor._from_array(np.ascontiguousarray(rows), grad._dtype)
    return SparseCooTensor(coordinates, values, (num_weights, grad._size[-1]))


def _embedding_grad(grad: Tensor, saved) -> Tensor:
    if saved.sparse:
        return embedding_sparse_backward(grad, saved.indices, saved.weight_sym_sizes[0],
                                         saved.padding_idx, saved.scale_grad_by_freq)  # fmt: skip
    return embedding_dense_backward(grad, saved.indices, saved.weight_sym_sizes[0],
                                    saved.padding_idx, saved.scale_grad_by_freq)  # fmt: skip


embedding = native_function(
    "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, "
    "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor",
    kernel=meta_then_impl(_embedding_meta, _embedding_kernel),
    derivative=Derivative(
        "EmbeddingBackward0",
        save=("indices", "weight_sym_sizes", "padding_idx", "scale_grad_by_freq", "sparse"),
        grads={"weight": _embedding_grad},
    ),
    variants="function",
    doc="``torch.embedding``: the rows of ``weight`` that ``indices`` name.",
)


def _check_embedding_renorm(self: Tensor, indices: Tensor, max_norm: float,
                            norm_type: float) -> Tensor:  # fmt: skip
    """``embedding_renorm_``'s checks before it reads the indices; returns ``self`` (on
    the meta device, all there is to it)."""
    if self.dim() != 2:
        raise RuntimeError(
            f"Expected 2-dimensional tensor, but got {self.dim()}-dimensional tensor for "
            "argument #1 'self' (while checking arguments for embedding_renorm_)"
        )
    _check_index_dtype("embedding_renorm_", indices, 2)
    return self


def _embedding_renorm_kernel(self: Tensor, indices: Tensor, max_norm: float,
                             norm_type: float) -> Tensor:  # fmt: skip
    _check_embedding_renorm(self, indices, max_norm, norm_type)
    unique = np.unique(indices._array.reshape(-1))  # sorted, each row once
    for position in unique:
        if not -self._size[0] <= position < self._size[0]:
            raise IndexError(
                f"select(): index {position} out of range for tensor of size "
                f"{list(self._size)} at dimension 0"
            )
    if unique.size == 0:
        return self
    array = self._array
    rows = array[unique]
    with np.errstate(all="ignore"):
        norms = np.linalg.norm(rows.astype(np.float64), ord=norm_type, axis=1)
        too_long = norms > max_norm
        scale = max_norm / (norms[too_long] + 1e-7)
        rows[too_long] = rows[too_long] * scale[:, None].astype(rows.dtype)
    array[unique] = rows
    return self


_embedding_renorm_kernel.meta_kernel = _check_embedding_renorm  # for ``meta_kernels``


def _not_implemented_grad(grad, saved):
    raise NotImplementedError("the derivative for 'embedding_renorm' is not implemented.")


embedding_renorm_ = native_function(
    "embedding_renorm_(Tensor(a!) self, Tensor indices, float max_norm, float norm_type) "
    "-> Tensor(a!)",
    kernel=_embedding_renorm_kernel,
    # derivatives.yaml: ``not_implemented("embedding_renorm")``: a node that refuses.
    derivative=Derivative("EmbeddingRenormBackward0", grads={"self": _not_implemented_grad}),
    python_bindings=False,
    doc="``torch.embedding_renorm_``: rows of ``self`` that ``indices`` name rescaled, in "
    "place, to a ``norm_type``-norm of at most ``max_norm``.",
)

"""``torch.sparse``: the functions of the sparse COO layout that have a namespace of their
own. The layout itself (``SparseCooTensor``) is ``vizgrad.sparse_tensor``; its operators
and SparseCPU kernels are ``vizgrad.ops.sparse_coo``."""

from __future__ import annotations

from .ops.sparse_coo import _sparse_mm

__all__ = ["mm"]


def mm(mat1, mat2, reduce=None):
    """``torch.sparse.mm``: a sparse COO matrix times a dense one, whose gradient for the
    sparse matrix is sparse too (``SparseAddmmBackward0``), where ``torch.mm``'s is dense.

    ``reduce`` works on sparse CSR matrices in PyTorch, a layout vizgrad does not have.
    """
    if reduce is not None:
        raise NotImplementedError("vizgrad: torch.sparse.mm's reduce= needs the sparse CSR layout")
    return _sparse_mm(mat1, mat2)

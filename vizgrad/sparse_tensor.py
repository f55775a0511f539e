"""The sparse COO tensor: coordinates and values instead of a storage (``SparseTensorImpl``).

A sparse COO ("coordinate") tensor of size ``(d0, d1, …)`` stores only some of its
elements. Its first ``sparse_dim`` dimensions are *sparse*: ``indices`` is an int64
tensor of shape ``(sparse_dim, nnz)`` whose column ``k`` is the coordinate of the
``k``-th stored element. The remaining ``dense_dim`` dimensions are *dense*: ``values``
has shape ``(nnz, *size[sparse_dim:])``, so each stored "element" may itself be a dense
block (a *hybrid* tensor). Everything not stored is zero::

    indices = [[0, 1, 1],      values = [3., 4., 5.]     size = (2, 3)
               [2, 0, 2]]
    dense:  [[0., 0., 3.],
             [4., 0., 5.]]

The same coordinate may appear more than once; its values then add up. A tensor is
*coalesced* when its coordinates are unique and sorted (row-major), which
``coalesce()`` makes true; ``is_coalesced()`` is a flag the operators keep, not a
check: PyTorch trusts it, and so does vizgrad.

A sparse tensor has no storage, so nothing that reads one works: ``data_ptr()``,
``storage()``, ``numpy()``, ``view``… fail as in PyTorch, and its strides are zeros
(what PyTorch 2.13 reports). The dispatcher sends every operator call with a sparse
argument to the ``SparseCPU`` backend (``vizgrad.ops.sparse_coo``), which the
``SPARSE_BIT`` in ``_key_set`` asks for.

PyTorch has one ``torch.Tensor`` class over different ``TensorImpl``\\ s; vizgrad's
``Tensor`` is its strided ``TensorImpl``, so the sparse one is a subclass.
"""

from __future__ import annotations

from .device import sparse_coo
from .grad_mode import state as _grad_state
from .printing import sparse_repr
from .tensor import SPARSE_BIT, Tensor, VersionCounter, _tensor_ids

__all__ = ["SparseCooTensor", "NO_STORAGE"]

# What PyTorch says when something reads the memory of a tensor that has none.
NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"


class SparseCooTensor(Tensor):
    """A tensor of layout ``sparse_coo``: ``(indices, values, size)``, as ``SparseTensorImpl``.

    Made by ``vizgrad.sparse_coo_tensor``, ``Tensor.to_sparse()`` and the SparseCPU
    kernels; read with ``_indices()``, ``_values()``, ``_nnz()``, ``sparse_dim()``,
    ``dense_dim()``, ``is_coalesced()``.
    """

    __slots__ = ("_sparse_indices", "_sparse_values", "_sparse_dim", "_dense_dim", "_coalesced")

    is_sparse = True

    def __init__(self, indices: Tensor, values: Tensor, size, coalesced: bool | None = None):
        # Kernels build these from checked parts (``vizgrad.ops.sparse_coo``): the
        # invariants are theirs to keep, as ``_sparse_coo_tensor_unsafe``'s callers' are.
        size = tuple(size)
        self._sparse_indices = indices
        self._sparse_values = values
        self._sparse_dim = indices._size[0]
        self._dense_dim = values.dim() - 1
        # Unless told (``_coalesced_``), a tensor of fewer than two elements is coalesced
        # (``set_indices_and_values_unsafe``).
        self._coalesced = values._size[0] < 2 if coalesced is None else coalesced
        # The fields of a strided tensor that a sparse one has too.
        self._storage = None
        self._size = size
        self._stride = (0,) * len(size)  # ``stride()`` of a sparse tensor in PyTorch 2.13
        self._offset = 0
        self._dtype = values._dtype
        self._cached_array = None
        self._array_generation = -1
        self._contiguous = False
        self._inference = _grad_state.inference
        self._id = next(_tensor_ids)
        self._version_counter = VersionCounter()
        self._autograd_meta = None
        self._key_set = SPARSE_BIT

    @property
    def layout(self):
        return sparse_coo

    @property
    def device(self):
        """Where its values are (it has no storage of its own)."""
        return self._sparse_values.device

    # --- what a tensor without storage cannot do ------------------------------------

    @property
    def _array(self):
        raise RuntimeError(NO_STORAGE)

    def data_ptr(self) -> int:
        raise RuntimeError(NO_STORAGE)

    def untyped_storage(self):
        raise NotImplementedError("Cannot access storage of SparseTensorImpl")

    storage = untyped_storage

    def tolist(self):
        raise RuntimeError(NO_STORAGE)

    def numpy(self, *, force: bool = False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def is_contiguous(self, memory_format=None) -> bool:
        return False

    def item(self):
        """The one value of a one-element sparse tensor: the sum of what is stored (0 if
        nothing is), as its dense form has it."""
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        return self.to_dense().item()

    def __repr__(self) -> str:
        return sparse_repr(self)

    __str__ = __repr__

"""``detach`` and ``.data``: aliases that autograd does not follow (``VariableTypeManual.cpp``).

Both return a tensor over the same storage with the same metadata, but cut from the
autograd graph. ``detach`` shares the version counter (in-place writes are still
noticed); ``.data`` does not (PyTorch's ``variable_data()``).
"""

from __future__ import annotations

from ..dispatcher import NON_DIFFERENTIABLE_VIEW, NONDIFFERENTIABLE
from ..tensor import META_BIT, SPARSE_BIT, Tensor, define_method
from .declaration import native_function

__all__ = [
    "detach",
    "detach_",
]


# --- detach and .data: aliases that autograd does not follow -----------------------------


def _detach_inplace_kernel(self: Tensor) -> Tensor:
    if self._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using "
            "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
            "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
            "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
            "function in torch/optim/optimizer.py as the solution."
        )
    meta = self._autograd_meta
    if meta is not None:
        meta.requires_grad, meta.grad_fn, meta.output_nr = False, None, 0
    return self


# Neither overload is a view autograd follows, and neither writes data: ``detach``
# shares the storage and the version counter but leaves ``_base`` None, and
# ``detach_`` changes only autograd metadata, so PyTorch does not bump the version.
# Autograd records nothing for them: their whole point is to leave the graph.
detach = native_function(
    "detach(Tensor(a) self) -> Tensor(a)",
    "detach_(Tensor(a!) self) -> Tensor(a!)",
    kernels={
        "detach": lambda self: self._alias(self._size, self._stride, self._offset),
        "detach_": _detach_inplace_kernel,
    },
    kind=NONDIFFERENTIABLE,
    variant_of={"detach": NON_DIFFERENTIABLE_VIEW, "detach_": NON_DIFFERENTIABLE_VIEW},
    inplace_variants="function, method",
    doc="""``torch.detach``: the same memory, cut from the autograd graph.

    It shares the storage *and the version counter* (so an in-place change of either is
    still noticed), but it is not a view: ``_base`` is None and ``_is_view()`` is False.
    ``Tensor.detach_`` makes the tensor itself a leaf that does not require grad.
    """,
)
# ``torch.detach_(x)`` is ``x.detach_()`` (the in-place overload's function variant).
detach_ = detach.inplace


def _get_data(self: Tensor) -> Tensor:
    """``Tensor.data``: a detached alias with its *own* version counter.

    Unlike ``detach()``, writes through ``.data`` are invisible to autograd's version
    checks: that is why ``.data`` is discouraged. (``variable_data()`` in PyTorch: a
    metadata copy, not an operator call.)
    """
    return self._alias(self._size, self._stride, self._offset)


def has_compatible_shallow_copy_type(self: Tensor, other: Tensor) -> bool:
    """``torch._has_compatible_shallow_copy_type``: whether ``self`` can take ``other``'s
    data in place, the same kind of tensor (dense CPU, sparse, or meta)."""
    return not (self._key_set ^ other._key_set) & (SPARSE_BIT | META_BIT)


def _set_data(self: Tensor, new_data) -> None:
    """``x.data = y``: ``x`` now reads ``y``'s storage with ``y``'s metadata and dtype."""
    if not isinstance(new_data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(new_data).__name__}")
    if not has_compatible_shallow_copy_type(self, new_data):
        raise RuntimeError(
            "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
            "incompatible tensor type."
        )
    self._storage = new_data._storage
    self._dtype = new_data._dtype
    self._key_set = new_data._key_set
    self._set_metadata(new_data._size, new_data._stride, new_data._offset)


define_method("data", property(_get_data, _set_data))

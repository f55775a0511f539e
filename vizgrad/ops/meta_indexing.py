"""Meta kernels of the indexing operators: what is not a meta step of the CPU kernel.

Most indexing operators get their Meta kernel from their CPU kernel's own meta step
(``vizgrad.ops.meta_kernels``), so CPU and meta share one rule:

* the structured ones (``gather``, ``index_select``, ``take``, ``cat``, ``flip``,
  ``roll``, ``rot90``, ``repeat``, ``tril``, ``diag_embed``, the pads, ``isin``,
  ``searchsorted``…): ``meta_then_impl`` and ``out_wrapper(meta=...)``;
* the writes PyTorch writes once, in place (``scatter``, ``index_add``, ``index_fill``,
  ``masked_fill``, ``put``, ``index_put``…): ``from_inplace(meta_checks=...)``, the
  checks the write makes before it reads data;
* a few kernels that say on the meta device what PyTorch's meta kernel says
  (``histc``, ``nonzero``, ``repeat_interleave`` of counts, ``embedding_renorm_``,
  ``tril_``): their ``meta_kernel``.

What is left is here:

* **Kernels that read no data** run as they are: the in-place views (``t_``,
  ``transpose_``, ``squeeze_``, ``unsqueeze_``, ``as_strided_``) and ``resize_as_``
  change ``self``'s metadata, and ``unsafe_split`` makes views; ``stack`` is ``cat`` (which
  has a Meta kernel) and a view; ``bucketize.Tensor_out`` is ``searchsorted.Tensor_out``
  (structured); the ``*_scatter`` operators copy ``self``'s storage (on the meta device:
  make one as big), take the view of the copy and check ``src`` against it, copying nothing.
* **``cat``**: its meta function (``_cat_meta``), after the device check of PyTorch's
  meta ``cat`` (a CPU tensor beside a meta one is refused, as elementwise operators
  refuse it: ``check_same_device``).
* **``index.Tensor``**: the plan of ``x[i, :, j]`` (``AdvancedIndex``) is the meta
  function, with TensorIterator's strides; a meta bool mask cannot become indices, and
  PyTorch's meta ``nonzero`` error says so.

``masked_select``, ``unique`` (``_unique2``, ``unique_dim``, ``unique_consecutive``),
``bincount`` and ``histogram`` have no Meta kernel, as in PyTorch 2.13: their result's
size is in the values, and the dispatcher's ``meta_missing`` says what PyTorch says.
"""

from __future__ import annotations

from ..meta_device import check_same_device, empty_meta
from .advanced_indexing import _index_meta
from .joining import _cat_meta
from .registry import OPERATORS

# Kernels that change metadata only, or are made of operators that have a Meta kernel.
_RUN_AS_ON_CPU = (
    "aten::t_", "aten::transpose_", "aten::squeeze_", "aten::squeeze_.dim", "aten::squeeze_.dims",
    "aten::unsqueeze_", "aten::as_strided_", "aten::resize_as_", "aten::stack",
    "aten::select_scatter", "aten::slice_scatter", "aten::diagonal_scatter",
    "aten::as_strided_scatter", "aten::unsafe_split.Tensor", "aten::unsafe_split_with_sizes",
    "aten::bucketize.Tensor_out",
)  # fmt: skip


def _cat(tensors, dim=0):
    """``cat``'s meta function, after PyTorch's meta ``cat`` refused mixed devices."""
    check_same_device(tensors)
    size, dtype, strides = _cat_meta(tensors, dim)
    return empty_meta(size, strides, dtype)


def _index(self, indices):
    size, dtype, strides = _index_meta(self, indices).specs
    return empty_meta(size, strides, dtype)


KERNELS: dict = {
    **{qualname: OPERATORS[qualname].kernel for qualname in _RUN_AS_ON_CPU},
    "aten::index.Tensor": _index,
    "aten::cat": _cat,
}

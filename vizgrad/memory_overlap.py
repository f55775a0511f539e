"""Memory overlap: may a write reach memory that is read, or written twice? (``MemoryOverlap.cpp``)

A kernel that writes ``out`` while it reads ``input`` gives a wrong answer if the two
share memory in the wrong way: an element written before it is read is read changed.
PyTorch refuses such calls with three checks, made by the operators that need them
(and by TensorIterator for every elementwise one):

* ``assert_no_internal_overlap(out)``: no two elements of ``out`` are one memory
  location (an ``expand``ed ``out``, stride 0 over a size > 1);
* ``assert_no_partial_overlap(out, input)``: ``out`` is exactly ``input`` (same bytes,
  same strides: an elementwise kernel may read and write it in place) or shares
  nothing with it;
* ``assert_no_overlap(out, input)``: ``out`` shares no memory with ``input`` at all (a
  kernel such as ``gather`` reads ``input`` in another order than it writes ``out``).

They are cheap, so they are not exact: two tensors are compared by the byte ranges
they span, and only when both are non-overlapping and dense; anything else is "too
hard" and let through, as in PyTorch. Bytes, not elements: two tensors over one storage
may read it as different dtypes (``x.view(torch.int32)``, ``view_as_real(z)``), each
counting its offset in elements of its own dtype. The same bytes with the same strides
(in elements) are a ``FULL`` overlap, whatever the dtypes, as PyTorch compares them.
"""

from __future__ import annotations

from enum import Enum

from .shape import is_non_overlapping_and_dense
from .tensor import Tensor
from .user_warnings import warn_at_user_code

__all__ = [
    "MemOverlap",
    "MemOverlapStatus",
    "has_internal_overlap",
    "get_overlap_status",
    "assert_no_internal_overlap",
    "assert_no_partial_overlap",
    "assert_no_overlap",
    "warn_if_expanded",
]


class MemOverlap(Enum):
    """Whether a tensor's elements overlap each other (``at::MemOverlap``)."""

    NO = "No"
    YES = "Yes"
    TOO_HARD = "TooHard"  # they might: finding out would cost too much


class MemOverlapStatus(Enum):
    """How two tensors' memory overlaps (``at::MemOverlapStatus``)."""

    FULL = "Full"  # the same elements, in the same layout
    PARTIAL = "Partial"  # some memory in common, laid out differently
    NO = "No"
    TOO_HARD = "TooHard"


INTERNAL_OVERLAP_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
OVERLAP_MESSAGE = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation."
)


def has_internal_overlap(t: Tensor) -> MemOverlap:
    """``at::has_internal_overlap``: a dense tensor has none; a stride 0 over more than
    one element surely has some; anything else is too hard to tell. A tensor with no
    elements is contiguous, so it has none (``zeros(1, 2).expand(3, 0, 2).add_(1)``
    writes nothing and is allowed)."""
    if 0 in t._size or is_non_overlapping_and_dense(t._size, t._stride):
        return MemOverlap.NO
    if any(stride == 0 and size > 1 for size, stride in zip(t._size, t._stride, strict=True)):
        return MemOverlap.YES
    return MemOverlap.TOO_HARD


def assert_no_internal_overlap(t: Tensor) -> None:
    """``at::assert_no_internal_overlap``: refuse to write a tensor whose elements share memory."""
    if has_internal_overlap(t) is MemOverlap.YES:
        raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)


def get_overlap_status(a: Tensor, b: Tensor) -> MemOverlapStatus:
    """``at::get_overlap_status``: how the memory of ``a`` and ``b`` overlaps.

    A tensor is fully its own overlap (even empty); otherwise an empty tensor overlaps
    nothing, and two dense tensors over one storage are compared by the bytes they
    span: the same span with the same strides is ``FULL``, any other shared byte
    ``PARTIAL``. Two tensors that are not both dense are ``TOO_HARD``.
    """
    if a is b:
        return MemOverlapStatus.FULL
    if a.numel() == 0 or b.numel() == 0:
        return MemOverlapStatus.NO
    if not (is_non_overlapping_and_dense(a._size, a._stride)
            and is_non_overlapping_and_dense(b._size, b._stride)):  # fmt: skip
        return MemOverlapStatus.TOO_HARD
    # Storage identity, not pointer arithmetic, as PyTorch's ``is_alias_of``.
    if a._storage is b._storage:
        a_begin = a._offset * a._dtype.itemsize
        a_end = a_begin + a.numel() * a._dtype.itemsize
        b_begin = b._offset * b._dtype.itemsize
        b_end = b_begin + b.numel() * b._dtype.itemsize
        if (a_begin, a_end) == (b_begin, b_end):
            return MemOverlapStatus.FULL if a._stride == b._stride else MemOverlapStatus.PARTIAL
        if a_begin < b_end and b_begin < a_end:
            return MemOverlapStatus.PARTIAL
    return MemOverlapStatus.NO


def assert_no_partial_overlap(a: Tensor, b: Tensor) -> None:
    """``at::assert_no_partial_overlap``: ``a`` may be exactly ``b``, or apart from it."""
    if get_overlap_status(a, b) is MemOverlapStatus.PARTIAL:
        raise RuntimeError(OVERLAP_MESSAGE)


def assert_no_overlap(a: Tensor, b: Tensor) -> None:
    """``at::assert_no_overlap``: ``a`` and ``b`` share no memory at all."""
    if get_overlap_status(a, b) in (MemOverlapStatus.FULL, MemOverlapStatus.PARTIAL):
        raise RuntimeError(OVERLAP_MESSAGE)


def warn_if_expanded(t: Tensor, op_name: str) -> None:
    """Warn that writing an expanded tensor is deprecated, and let the write happen.

    ``index_fill_``, ``masked_fill_`` and ``index_put_`` predate the internal-overlap
    check: where other kernels refuse (``assert_no_internal_overlap``), they
    ``TORCH_WARN`` (``TensorAdvancedIndexing.cpp``) and write each memory location once
    per element that refers to it.
    """
    if has_internal_overlap(t) is MemOverlap.YES:
        example = "tensor[indices] = tensor" if op_name == "index_put_" else "tensor[mask] = scalar"
        warn_at_user_code(
            f"Use of {op_name} on expanded tensors is deprecated. Please clone() the tensor "
            f"before performing this operation. This also applies to advanced indexing e.g. "
            f"{example}",
            UserWarning,
        )

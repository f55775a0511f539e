"""View geometry: the arithmetic behind ``view`` and ``reshape`` (``infer_size``, ``computeStride``).

Pure functions on sizes and strides, no tensors: which shape a ``-1`` stands for
(PyTorch's ``infer_size``), and which strides let a new shape read the same memory
without a copy (``at::detail::computeStride``, in ``TensorUtils.cpp``). The view
operators in ``vizgrad.ops.shape_views`` call them; when no strides exist, ``view`` fails
and ``reshape`` copies.
"""

from __future__ import annotations

from ..shape import numel_of

__all__: list[str] = []


def infer_size(shape, numel: int) -> tuple[int, ...]:
    """``at::infer_size``: fill in the one ``-1`` so that the shape holds ``numel`` elements."""
    known = 1
    inferred_dim = None
    for i, size in enumerate(shape):
        if size == -1:
            if inferred_dim is not None:
                raise RuntimeError("only one dimension can be inferred")
            inferred_dim = i
        elif size >= 0:
            known *= size
        else:
            raise RuntimeError(
                f"invalid shape dimension {size} at index {i} of shape {list(shape)}"
            )
    if numel == known or (inferred_dim is not None and known > 0 and numel % known == 0):
        if inferred_dim is None:
            return tuple(shape)
        if known == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        result = list(shape)
        result[inferred_dim] = numel // known
        return tuple(result)
    raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")


def view_copy_free_stride(old_size, old_stride, new_size):
    """``at::detail::computeStride``: strides that read ``old`` as ``new_size``, or None.

    Walk the old dims from the right, grouping them into *chunks* that are contiguous
    with each other (each dim's stride is the next one's stride times its size). A
    view can split or merge dims only inside one chunk: the new dims must tile each
    chunk exactly. A new dim that would span two chunks has no single stride, which
    is why ``x.t().view(-1)`` fails and ``x.t().reshape(-1)`` has to copy.
    """
    if not old_size:
        return (1,) * len(new_size)
    numel = numel_of(old_size)
    if numel == 0:
        if tuple(old_size) == tuple(new_size):
            return tuple(old_stride)
        stride, step = [], 1
        for size in reversed(new_size):
            stride.append(step)
            step *= max(size, 1)
        return tuple(reversed(stride))

    new_stride = [0] * len(new_size)
    view_d = len(new_size) - 1
    chunk_base_stride = old_stride[-1]  # stride of the innermost dim of the current chunk
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_size) - 1, -1, -1):
        tensor_numel *= old_size[tensor_d]
        chunk_ends = tensor_d == 0 or (
            old_size[tensor_d - 1] != 1
            and old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride
        )
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or new_size[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_size[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)

"""``einsum``: a sum of products named by subscripts (``Linear.cpp``).

``torch.einsum("ij,jk->ik", a, b)`` names each operand's dims with letters: a letter
shared by two operands is multiplied along, a letter left out of the output is summed
over, and ``...`` stands for broadcast dims. PyTorch has no einsum kernel: it is a
CompositeImplicitAutograd op that aligns the operands with ``diagonal``,
``unsqueeze`` and ``permute``, then combines them pairwise with ``bmm``
(``sumproduct_pair``), so autograd records those ops' nodes and a dispatch trace shows
each step.
"""

from __future__ import annotations

from ..dispatcher import COMPOSITE_IMPLICIT
from ..tensor import Tensor
from .declaration import native_function
from .linalg import _bmm_op
from .shape_views import reshape
from .size_one_dims import unsqueeze

__all__ = ["einsum"]


_ELLIPSIS = "..."


def _einsum_labels(lhs: str, num_ops: int) -> list[list[str]]:
    """Each operand's labels (letters, and ``...`` for an ellipsis), in order."""
    labels: list[list[str]] = [[]]
    ellipsis_seen = False
    i = 0
    while i < len(lhs):
        char = lhs[i]
        if char == ".":
            if ellipsis_seen:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {len(labels) - 1} for which an ellipsis "
                    "was already found"
                )
            if lhs[i : i + 3] != "...":
                raise RuntimeError(
                    f"einsum(): found '.' for operand {len(labels) - 1} that is not part of any "
                    "ellipsis"
                )
            labels[-1].append(_ELLIPSIS)
            ellipsis_seen = True
            i += 2
        elif char == ",":
            labels.append([])
            if len(labels) > num_ops:
                raise RuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation"
                )
            ellipsis_seen = False
        elif char != " ":
            if not char.isalpha():
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {i} in the equation string, "
                    "subscripts must be in [a-zA-Z]"
                )
            labels[-1].append(char)
        i += 1
    if len(labels) != num_ops:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


def _einsum_output(rhs, counts: dict, lhs_length: int):
    """The output's labels in order (``...`` where the ellipsis goes).

    Without ``->`` it is the ellipsis, then the labels seen once, uppercase before
    lowercase (PyTorch's label order).
    """
    if rhs is None:
        once = sorted((label for label, n in counts.items() if n == 1), key=_label_order)
        return [_ELLIPSIS, *once]
    output: list[str] = []
    i = 0
    while i < len(rhs):
        char = rhs[i]
        if char == ".":
            if _ELLIPSIS in output:
                raise RuntimeError(
                    "einsum(): found '.' for output but an ellipsis (...) was already found"
                )
            if rhs[i : i + 3] != "...":
                raise RuntimeError(
                    "einsum(): found '.' for output that is not part of any ellipsis (...)"
                )
            output.append(_ELLIPSIS)
            i += 2
        elif char != " ":
            if not char.isalpha():
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {lhs_length + 2 + i} in the "
                    "equation string, subscripts must be in [a-zA-Z]"
                )
            if counts.get(char, 0) == 0 or char in output:
                problem = (
                    "appears more than once in the output"
                    if char in output
                    else "does not appear in the equation for any input operand"
                )
                raise RuntimeError(f"einsum(): output subscript {char} {problem}")
            output.append(char)
        i += 1
    return output


def _label_order(label: str) -> int:
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + 26


def _einsum_impl(equation, tensors, path=None):
    """``einsum`` as PyTorch computes it (CompositeImplicitAutograd, ``Linear.cpp``).

    1. Every operand is aligned to the same dims: output labels first, then the
       contracted ones. Repeated labels take a ``diagonal``, missing labels an
       ``unsqueeze``, and a ``permute`` puts the dims in that order.
    2. Operands are combined pairwise, left to right (``sumproduct_pair``): a dim that
       no later operand needs is summed as part of a ``bmm``.
    3. The contracted dims, now of size 1, are dropped with a ``view`` (or, for one
       operand, summed).

    Each step is a vizgrad operator, so autograd records PyTorch's nodes.
    """
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("einsum(): must provide at least one operand")
    lhs, arrow, rhs = equation.partition("->")
    labels = _einsum_labels(lhs, len(tensors))

    counts: dict[str, int] = {}
    ellipsis_dims = 0  # the most dims any ellipsis covers
    for index, (op_labels, t) in enumerate(zip(labels, tensors, strict=True)):
        letters = [label for label in op_labels if label != _ELLIPSIS]
        for label in letters:
            counts[label] = counts.get(label, 0) + 1
        has_ellipsis = len(letters) != len(op_labels)
        if has_ellipsis:
            ellipsis_dims = max(ellipsis_dims, t.dim() - len(letters))
        if (len(letters) > t.dim()) if has_ellipsis else (len(letters) != t.dim()):
            relation = "is more than" if has_ellipsis else "does not match"
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(letters)}) {relation} "
                f"the number of dimensions ({t.dim()}) for operand {index}"
                + ("" if has_ellipsis else " and no ellipsis was given")
            )

    # Where each label (and the ellipsis) sits in the aligned shape.
    position: dict[str, int] = {}
    cursor = 0
    ellipsis_start = None
    for label in _einsum_output(rhs if arrow else None, counts, len(lhs)):
        if label == _ELLIPSIS:
            ellipsis_start, cursor = cursor, cursor + ellipsis_dims
        else:
            position[label], cursor = cursor, cursor + 1
    out_dims = cursor
    if ellipsis_start is None:  # an ellipsis left out of the output is contracted
        ellipsis_start, cursor = cursor, cursor + ellipsis_dims
    for label in sorted(counts, key=_label_order):
        if label not in position:
            position[label], cursor = cursor, cursor + 1
    total_dims = cursor

    label_size: dict[str, int] = {}
    ellipsis_sizes = [1] * ellipsis_dims
    dim_counts = [0] * total_dims  # operands with a non-1 size in each aligned dim
    ops = []
    for index, (op_labels, op) in enumerate(zip(labels, tensors, strict=True)):
        permutation = [-1] * total_dims
        dim = 0
        for label in op_labels:
            if label == _ELLIPSIS:
                covered = op.dim() - (len(op_labels) - 1)
                for j in range(ellipsis_dims - covered, ellipsis_dims):
                    size = op._size[dim]
                    if size != 1:
                        if ellipsis_sizes[j] not in (1, size):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand "
                                f"{index}has size {size} which does not broadcast with "
                                f"previously seen ellipsis with size {ellipsis_sizes[j]} for "
                                "the respective dimension"
                            )
                        ellipsis_sizes[j] = size
                        dim_counts[ellipsis_start + j] += 1
                    permutation[ellipsis_start + j] = dim
                    dim += 1
            elif permutation[position[label]] == -1:
                size = op._size[dim]
                if size != 1:
                    seen = label_size.get(label, 1)
                    if seen not in (1, size):
                        raise RuntimeError(
                            f"einsum(): subscript {label} has size {size} for operand {index} "
                            f"which does not broadcast with previously seen size {seen}"
                        )
                    label_size[label] = size
                    dim_counts[position[label]] += 1
                permutation[position[label]] = dim
                dim += 1
            else:  # a repeated label: take the diagonal of the two dims
                previous = permutation[position[label]]
                if op._size[dim] != op._size[previous]:
                    raise RuntimeError(
                        f"einsum(): subscript {label} is repeated for operand {index} but the "
                        f"sizes don't match, {op._size[dim]} != {op._size[previous]}"
                    )
                op = op.diagonal(0, previous, dim).movedim(-1, previous)
        for k, value in enumerate(permutation):
            if value == -1:  # a label this operand lacks: a size-1 dim to broadcast
                op = unsqueeze(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(op.permute(permutation))

    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sums, b_sums = [], [], []
        for dim in range(out_dims, total_dims):
            if a._size[dim] != 1 and b._size[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a._size[dim] != 1:
                    a_sums.append(dim)
                    dim_counts[dim] = 0
                elif b._size[dim] != 1:
                    b_sums.append(dim)
                    dim_counts[dim] = 0
        if a_sums:
            a = a.sum(a_sums, keepdim=True)
        if b_sums:
            b = b.sum(b_sums, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))

    result = ops[0]
    if total_dims > out_dims:
        if len(tensors) > 1:
            return result.view(result._size[:out_dims])
        return result.sum(list(range(out_dims, total_dims)))
    return result


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list[int]) -> Tensor:
    """``(left * right).sum(sum_dims, keepdim=True)``, computed as one ``bmm``.

    Dims are sorted into: in both and kept (batch), only left, summed, only right;
    permuting and reshaping puts each operand in ``bmm``'s (batch, rows, inner) form.
    """
    if not sum_dims:
        return left * right
    ndim = left.dim()
    both, left_only, right_only = [], [], []
    both_size = left_size = right_size = summed_size = 1
    for i in range(ndim):
        in_left, in_right = left._size[i] != 1, right._size[i] != 1
        if i in sum_dims:
            if in_left and in_right:
                if left._size[i] != right._size[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                summed_size *= left._size[i]
            elif in_left:  # only one side has it: sum it right away
                left = left.sum(i, keepdim=True)
            elif in_right:
                right = right.sum(i, keepdim=True)
        elif in_left and in_right:
            if left._size[i] != right._size[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            both.append(i)
            both_size *= left._size[i]
        elif in_left:
            left_only.append(i)
            left_size *= left._size[i]
        else:
            right_only.append(i)
            right_size *= right._size[i]
    out_size = ([left._size[d] for d in both] + [left._size[d] for d in left_only]
                + [1] * len(sum_dims) + [right._size[d] for d in right_only])  # fmt: skip
    order = both + left_only + sum_dims + right_only
    left = reshape(
        left.permute(both + left_only + sum_dims + right_only), (both_size, left_size, summed_size)
    )
    right = reshape(right.permute(both + sum_dims + right_only + left_only),
                    (both_size, summed_size, right_size))  # fmt: skip
    inverse = [0] * ndim
    for i, d in enumerate(order):
        inverse[d] = i
    return _bmm_op(left, right).view(out_size).permute(inverse)


# The operator takes the operands as one list; ``vizgrad.einsum`` (below) is the Python
# function of ``torch/functional.py`` that gathers them.
_einsum = native_function(
    "einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor",
    kernel=_einsum_impl,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
)


def einsum(*args) -> Tensor:
    """``torch.einsum``: a sum of products named by subscripts (``"ij,jk->ik"`` is ``mm``).

    Without ``->`` the output holds the subscripts that appear once, in alphabetical
    order; ``...`` stands for broadcast dimensions. The operands may come one by one
    or as one list.
    """
    if len(args) < 2:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least "
            "one operand and its subscripts list"
        )
    equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    return _einsum(equation, operands)

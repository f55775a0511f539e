"""What indexing ops share: new results, clones, checked scalars (``TensorAdvancedIndexing.cpp``).

Every indexing op copies or writes, so each needs the same few things: wrapping a
NumPy result as a new tensor (``_fresh``), the ``clone`` a functional form starts from
(``_clone_keeping_layout``, ``_clone_row_major``), a Python number converted to a
dtype the way c10's ``checked_convert`` does (``fill_value``), and the kernels of an
operator written once as its in-place write (``from_inplace``).
"""

from __future__ import annotations

import math

import numpy as np

from ..dispatcher import INPLACE, OUT
from ..dtypes import C_TYPE_NAMES, COMPLEX, INTEGRAL, uint8
from ..meta_device import empty_meta
from ..shape import contiguous_strides, is_non_overlapping_and_dense
from ..tensor import Tensor
from .overload_kernels import StructuredKernel, out_wrapper, run_checks

__all__: list[str] = []


# --- small shared pieces ---------------------------------------------------------------

# PyTorch 2.13's meta ``nonzero`` (and so indexing with a meta bool mask): the number of
# non-zero elements, the result's first size, depends on the values a meta tensor lacks.
# PyTorch's message goes on to name a ``torch.fx`` option that makes its meta kernel assume
# every element is non-zero; vizgrad has no such option, so its message says what to do.
NONZERO_ON_META = (
    "The register_meta function for vizgrad.nonzero() raises unimplemented by default, as a "
    "correct data-independent implementation does not exist: the number of non-zero "
    "elements, the result's first size, depends on values a meta tensor does not hold. "
    "Call it on a CPU tensor (PyTorch's option to assume all elements are non-zero is not "
    "in vizgrad)."
)


def _fresh(array: np.ndarray, dtype) -> Tensor:
    """A new row-major tensor holding ``array`` (cast to ``dtype``).

    The array becomes the storage as it is only if it owns its memory; a view (of an
    input, or a read-only broadcast) is copied, so the result never aliases anything.
    """
    if array.dtype != dtype.numpy:
        array = array.astype(dtype.numpy)
    if not (array.flags.owndata and array.flags.c_contiguous and array.flags.writeable):
        array = np.array(array, order="C")
    return Tensor._from_array(array, dtype)


def _clone_keeping_layout(t: Tensor, *_call) -> Tensor:
    """``t.clone()`` (``MemoryFormat::Preserve``): a dense input keeps its strides.

    The functional forms of ``index_fill``, ``put`` and ``index_put`` start from it (as
    a ``from_inplace`` start, it is also handed the call's other arguments: unused).
    On the meta device: an empty tensor of the strides the copy would have.
    """
    if is_non_overlapping_and_dense(t._size, t._stride):
        if t.is_meta:
            return empty_meta(t._size, t._stride, t._dtype)
        result = Tensor._empty_strided(t._size, t._stride, t._dtype)
        result._array[...] = t._array
        return result
    return _clone_row_major(t)


def _clone_row_major(t: Tensor, *_call) -> Tensor:
    """A row-major copy of ``t``: the output a structured kernel (``index_add``,
    ``scatter``) allocates and fills with ``self`` before writing into it."""
    if t.is_meta:
        return empty_meta(t._size, contiguous_strides(t._size), t._dtype)
    result = Tensor._empty_strided(t._size, contiguous_strides(t._size), t._dtype)
    result._array[...] = t._array
    return result


def _like_self(self: Tensor, *_args, **_options) -> tuple:
    """What the meta function of a structured kernel that starts from ``self``
    (``scatter``, ``index_add``, ``index_copy``) sets its output to: ``self``'s shape and
    dtype (``out_wrapper``'s ``meta``)."""
    return self._size, self._dtype


def fill_value(value, dtype) -> np.ndarray:
    """A Python number as a 0-dim array of ``dtype``: c10's ``checked_convert``.

    A value the dtype cannot hold is an error (``300`` into uint8, ``nan`` into int64,
    ``2j`` into float32); floats are truncated towards zero into integer dtypes, and
    negative ints wrap into uint8, as in PyTorch.
    """
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    category = dtype.category
    overflow = False
    if isinstance(value, complex) and category != COMPLEX:
        overflow = value.imag != 0
        value = value.real
    if category == INTEGRAL and not isinstance(value, bool):
        info = np.iinfo(dtype.numpy)
        if isinstance(value, float):
            overflow = overflow or not math.isfinite(value) or not info.min <= value <= info.max
        elif dtype is uint8:
            overflow = value > info.max or -value > info.max  # -1 wraps to 255, as in C
        else:
            overflow = not info.min <= value <= info.max
    if overflow:
        raise RuntimeError(
            f"value cannot be converted to type {C_TYPE_NAMES[dtype.name]} without overflow"
        )
    with np.errstate(over="ignore", invalid="ignore"):  # 1e10 into float16 is inf
        return np.array(value).astype(dtype.numpy)


def _nonempty_size(t: Tensor, dim: int) -> int:
    return t._size[dim] if t._size else 1


def _check_index_in_range(index: Tensor, size: int, dim: int) -> None:
    values = index._array
    if values.size == 0:
        return
    bad = (values < 0) | (values >= size)
    if bad.any():
        value = values[np.unravel_index(int(np.argmax(bad)), values.shape)]
        raise RuntimeError(
            f"index {int(value)} is out of bounds for dimension {dim} with size {size}"
        )


class from_inplace(StructuredKernel):  # noqa: N801 - reads as a wrapper in declarations
    """The kernels of an operator PyTorch writes once, as its in-place write.

    ``index_fill``, ``put``, ``masked_fill``… are written as the in-place kernel
    (``index_fill_``); the functional overload runs it on a copy of ``self``
    (``self.clone().index_fill_(...)``, CompositeExplicitAutograd) and the ``out=``
    overload copies that result into ``out`` (``out_wrapper``). A structured kernel
    (``index_add``, ``scatter``) does the same: its output starts as a copy of ``self``.

    ``write(self, *args, **options)`` checks its arguments and writes into ``self``;
    ``start(self, *args)`` makes the copy the functional overload writes into;
    ``out_options`` are the ``out_wrapper`` options of the ``out=`` overload (the checks
    of its ATen kernel). ``inplace_checks`` are the in-place overload's own, run before
    ``write`` in its ATen kernel's order: steps as ``out_wrapper``'s ``checks``, each an
    ``Overlap`` (the memory ``self`` must not share: an in-place write reads ``index``
    and ``source`` while it writes) or a function called as ``write`` is. The
    functional overload writes a fresh copy, which overlaps nothing.

    ``meta_checks(self, *args, **options)`` are the checks ``write`` makes before it
    reads any data: on the meta device they are all that runs of it (after the in-place
    checks, or on the meta tensor ``start`` makes), as PyTorch's meta function of the
    operator checks its arguments and writes nothing. The ``out=`` overload's Meta kernel
    is its ``out_wrapper``'s (given ``meta``).
    """

    def __init__(self, write, *, start, inplace_checks=(), meta_checks=None, **out_options):
        self.write = write
        self.meta_checks = meta_checks
        self.start = start
        self.inplace_checks = (
            tuple(inplace_checks) if isinstance(inplace_checks, list | tuple) else (inplace_checks,)
        )
        self.out_options = out_options

    def for_overload(self, schema, variant):
        write, start, checks = self.write, self.start, self.inplace_checks
        meta_checks = self.meta_checks
        if variant is INPLACE:

            def inplace_kernel(self, *args, **options):
                run_checks(checks, schema, self, args, options)
                write(self, *args, **options)
                return self

            def inplace_meta_kernel(self, *args, **options):
                run_checks(checks, schema, self, args, options)
                meta_checks(self, *args, **options)
                return self

            if meta_checks is not None:  # ``vizgrad.ops.meta_kernels`` registers it
                inplace_kernel.meta_kernel = inplace_meta_kernel
            return inplace_kernel

        def functional_kernel(self, *args, **options):
            result = start(self, *args)
            write(result, *args, **options)
            return result

        def functional_meta_kernel(self, *args, **options):
            result = start(self, *args)  # a meta tensor of the copy's geometry
            meta_checks(result, *args, **options)
            return result

        if variant is OUT:
            return out_wrapper(functional_kernel, **self.out_options).for_overload(schema, variant)
        if meta_checks is not None:
            functional_kernel.meta_kernel = functional_meta_kernel
        return functional_kernel

"""Searching sorted values: ``searchsorted``, ``bucketize``, ``isin`` (``Bucketization.cpp``, ``TensorCompare.cpp``).

``searchsorted(sorted_sequence, values)`` answers, for each value, *where it would be
inserted* to keep the sequence sorted: the number of elements smaller than it (``side
='left'``), or not greater (``'right'``). PyTorch finds it by bisection, and so does
this module, for every value at once: each NumPy pass halves every value's remaining
range, so ``n`` values in a sequence of ``m`` take ``log2(m)`` passes over ``n``. The
comparisons are PyTorch's (``!(boundary >= value)``), so a nan is inserted after every
boundary, as PyTorch does (NumPy's ``searchsorted`` orders nan last *among* equals).
A batch of sequences (one per row) searches each row of values in its own row; a
``sorter`` gives the order of an unsorted sequence. ``bucketize(values, boundaries)``
is the same search with the arguments the other way round.

``isin(elements, test_elements)`` is membership: each element equal to some test
element. Neither returns anything differentiable (indices and booleans).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..dispatcher import NONDIFFERENTIABLE
from ..promotion import result_type
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .declaration import native_function
from .iterator import ALL_TYPES, dispatch_dtypes
from .overload_kernels import meta_then_impl, out_wrapper
from .reduction_machinery import wrap_result

__all__ = ["searchsorted", "bucketize", "isin"]


# --- the bisection ---------------------------------------------------------------------------


def insertion_points(boundaries: np.ndarray, values: np.ndarray, sorter, right: bool):
    """``cus_lower_bound``/``cus_upper_bound`` of PyTorch, for all values at once.

    ``boundaries`` is ``(rows, m)``: row ``r`` is the sorted sequence of the values in
    row ``r`` of ``values`` (one row for a 1-D sequence). Every value keeps a range
    ``[start, end)`` of candidate positions; each pass compares it with the middle
    boundary and keeps one half. A comparison with nan is false: a nan goes right of
    every boundary, and a nan boundary is never ``>=`` a value.
    """
    rows, m = boundaries.shape
    row = np.arange(rows).reshape(-1, 1)
    start = np.zeros(values.shape, np.int64)
    end = np.full(values.shape, m, np.int64)
    for _ in range(m.bit_length()):  # each pass at least halves every range
        active = start < end
        mid = start + ((end - start) >> 1)
        position = np.minimum(mid, m - 1)  # (a finished range may point past the end)
        if sorter is not None:
            position = sorter[row, position]
        middle = boundaries[row, position]
        goes_right = ~(middle > values) if right else ~(middle >= values)
        start = np.where(active & goes_right, mid + 1, start)
        end = np.where(active & ~goes_right, mid, end)
    return start


@dispatch_dtypes("searchsorted_out_cpu", ALL_TYPES)
def _search(_no_out, values: np.ndarray, boundaries: np.ndarray, sorter, right: bool):
    """The search in the common dtype (its dtype dispatch: no bool, no complex)."""
    if boundaries.ndim == 1:  # one sequence for every value
        flat_sorter = None if sorter is None else sorter.reshape(1, -1)
        found = insertion_points(boundaries.reshape(1, -1), values.reshape(1, -1), flat_sorter,
                                 right)  # fmt: skip
        return found.reshape(values.shape)
    m = boundaries.shape[-1]
    if m == 0:  # empty sequences: every value goes first (and a 0-wide batch won't reshape)
        return np.zeros(values.shape, np.int64)
    flat_sorter = None if sorter is None else sorter.reshape(-1, m)
    found = insertion_points(boundaries.reshape(-1, m),
                             values.reshape(-1, values.shape[-1] if values.ndim else 1),
                             flat_sorter, right)  # fmt: skip
    return found.reshape(values.shape)


# --- searchsorted, bucketize ------------------------------------------------------------------


def _check_searchsorted(sorted_sequence: Tensor, self, *, out_int32=False, right=False,
                        side=None, sorter=None, out=None) -> None:  # fmt: skip
    """``searchsorted_pre_check``: the arguments, then the output's dtype (``out``'s, or
    the one the functional overload makes)."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"vizgrad.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side != "right":
            raise RuntimeError(
                "vizgrad.searchsorted(): side and right can't be set to opposites, got side of "
                f"{side} while right was True"
            )
    boundaries_shape = list(sorted_sequence.shape)
    if sorter is not None:
        if sorter.shape != sorted_sequence.shape:
            raise RuntimeError(
                "vizgrad.searchsorted(): boundary and sorter must have the same size, but got "
                f"boundary tensor {boundaries_shape}and got sorter tensor {list(sorter.shape)}"
            )
        if sorter.dtype is not dt.int64:
            raise RuntimeError(
                "vizgrad.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                f"{sorter.dtype.scalar_name}"
            )
        order = None if sorter.is_meta else sorter._array  # no indices to check on meta
        if (
            order is not None
            and order.size
            and (order.max() >= sorter.shape[-1] or order.min() < 0)
        ):
            raise RuntimeError("vizgrad.searchsorted(): sorter index out of range")
    value_dim = self.dim() if isinstance(self, Tensor) else 0
    value_numel = self.numel() if isinstance(self, Tensor) else 1
    if value_dim == 0 and not (value_numel == 1 and sorted_sequence.dim() == 1):
        raise RuntimeError(
            "vizgrad.searchsorted(): input value can be a scalar only when boundaries tensor "
            f"dimension is 1, but we got boundaries tensor dim({sorted_sequence.dim()}) and input "
            f"value's dim({value_dim}) numel({value_numel})"
        )
    if sorted_sequence.dim() == 0:
        raise RuntimeError(
            "vizgrad.searchsorted(): boundaries tensor should have positive dimension, but got "
            "0 dimension"
        )
    if sorted_sequence.dim() != 1 and (
        sorted_sequence.dim() != value_dim or sorted_sequence.shape[:-1] != self.shape[:-1]
    ):
        raise RuntimeError(
            "vizgrad.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {boundaries_shape} and input value tensor {list(self.shape)}"
        )
    output_dtype = dt.int32 if out_int32 else dt.int64
    if out is not None and out.dtype is not output_dtype:
        raise RuntimeError(
            "vizgrad.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) "
            "or Long(int64) depending on whether out_int32 flag is True, but we got output "
            f"tensor's dtype {out.dtype.scalar_name} and out_int32 flag is {out_int32}"
        )


def _searchsorted_meta(sorted_sequence: Tensor, self, **_options):
    """``searchsorted_out_cpu`` resizes ``out`` to the values' shape before searching."""
    return (tuple(self.shape) if isinstance(self, Tensor) else (), None)


def _searchsorted_result(sorted_sequence: Tensor, self, *, out_int32=False, right=False,
                         side=None, sorter=None) -> tuple:  # fmt: skip
    """The functional overload's meta function: the checks, then an int64 (or, with
    ``out_int32``, int32) result of the values' shape, row-major."""
    _check_searchsorted(sorted_sequence, self, out_int32=out_int32, right=right, side=side,
                        sorter=sorter)  # fmt: skip
    return _searchsorted_meta(sorted_sequence, self)[0], dt.int32 if out_int32 else dt.int64


def _warn_if_copied(tensor: Tensor | None, what: str) -> None:
    """PyTorch's CPU search reads contiguous memory: a strided argument is copied first,
    and it says so (``TORCH_WARN_ONCE``; Python's filter shows it once per line)."""
    if isinstance(tensor, Tensor) and not tensor.is_contiguous():
        warn_at_user_code(
            f"vizgrad.searchsorted(): {what} tensor is non-contiguous, this will lower the "
            "performance due to extra data copy when converting non-contiguous tensor to "
            f"contiguous, please use contiguous {what} tensor if possible. This message will "
            "only appear once per program."
        )


def _searchsorted_impl(sorted_sequence: Tensor, self, *, out_int32=False, right=False,
                       side=None, sorter=None) -> Tensor:  # fmt: skip
    """``searchsorted_cpu_contiguous``: values and boundaries in their common dtype (a
    Python number counts as a wrapped number, as in arithmetic)."""
    output_dtype = dt.int32 if out_int32 else dt.int64
    is_tensor = isinstance(self, Tensor)
    shape = tuple(self.shape) if is_tensor else ()
    if is_tensor and not self.numel():
        return wrap_result(np.empty(shape, np.int64), output_dtype)
    _warn_if_copied(self, "input value")
    _warn_if_copied(sorted_sequence, "boundary")
    _warn_if_copied(sorter, "sorter")
    common = result_type(sorted_sequence, self).numpy
    values = self._array if is_tensor else np.array(self)
    found = _search(None, values.astype(common, copy=False),
                    sorted_sequence._array.astype(common, copy=False),
                    None if sorter is None else sorter._array, side == "right" or right)  # fmt: skip
    return wrap_result(found, output_dtype)


def _searchsorted_kernel(sorted_sequence: Tensor, self, **options) -> Tensor:
    _check_searchsorted(sorted_sequence, self, **options)
    return _searchsorted_impl(sorted_sequence, self, **options)


_searchsorted_out = out_wrapper(_searchsorted_kernel, checks=_check_searchsorted,
                                check_cast=False, meta=_searchsorted_meta,
                                impl=_searchsorted_impl)  # fmt: skip

searchsorted = native_function(
    "searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
    "searchsorted.Tensor_out(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None, Tensor(a!) out) -> Tensor(a!)",
    "searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
    "searchsorted.Scalar_out(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None, Tensor(a!) out) -> Tensor(a!)",
    kernel=meta_then_impl(_searchsorted_result, _searchsorted_impl),
    kernels={
        "searchsorted.Tensor_out": _searchsorted_out,
        "searchsorted.Scalar_out": _searchsorted_out,
    },  # fmt: skip
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.searchsorted``: where each value would be inserted into the sorted last "
    "dimension of ``sorted_sequence`` (``side='left'``: before its equals).",
)


def _check_bucketize(self, boundaries: Tensor, **_options) -> None:
    if boundaries.dim() != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})"
        )


def _bucketize_meta(self, boundaries: Tensor, *, out_int32=False, right=False) -> tuple:
    _check_bucketize(self, boundaries)
    return _searchsorted_result(boundaries, self, out_int32=out_int32, right=right)


def _bucketize_kernel(self, boundaries: Tensor, *, out_int32=False, right=False) -> Tensor:
    """``bucketize_cpu``: ``searchsorted`` of one 1-D sequence of boundaries."""
    _check_bucketize(self, boundaries)
    return _searchsorted_kernel(boundaries, self, out_int32=out_int32, right=right)


def _bucketize_out_kernel(self: Tensor, boundaries: Tensor, *, out_int32=False, right=False,
                          out: Tensor) -> Tensor:  # fmt: skip
    _check_bucketize(self, boundaries)
    return searchsorted.overloads["searchsorted.Tensor_out"](
        boundaries, self, out_int32=out_int32, right=right, out=out
    )


bucketize = native_function(
    "bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) "
    "-> Tensor",
    "bucketize.Tensor_out(Tensor self, Tensor boundaries, *, bool out_int32=False, "
    "bool right=False, Tensor(a!) out) -> Tensor(a!)",
    "bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False) "
    "-> Tensor",
    kernel=meta_then_impl(_bucketize_meta, _bucketize_kernel),
    kernels={"bucketize.Tensor_out": _bucketize_out_kernel},
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.bucketize``: the index of the bucket of ``boundaries`` each value falls in.",
)


# --- isin -------------------------------------------------------------------------------------


def _check_isin_dtype(value) -> None:
    """``check_for_unsupported_isin_dtype``: PyTorch's sorting path has no bool or complex
    (a Python number has its own type here: ``True`` is Bool, ``1j`` ComplexDouble)."""
    if isinstance(value, Tensor):
        dtype = value.dtype
    elif isinstance(value, complex):
        dtype = dt.complex128
    else:
        dtype = dt.scalar_dtype(value)
    if dtype is dt.bool or dtype.category == dt.COMPLEX:
        raise RuntimeError(f"Unsupported input type encountered for isin(): {dtype.scalar_name}")


def _isin_meta(elements, test_elements, **_options):
    """``TORCH_META_FUNC2(isin, ...)``: both dtypes checked, a bool output of the
    elements' shape."""
    _check_isin_dtype(elements)
    _check_isin_dtype(test_elements)
    return (tuple(elements.shape) if isinstance(elements, Tensor) else (), dt.bool)


def _sorted_membership(elements: np.ndarray, tests: np.ndarray, invert: bool) -> np.ndarray:
    """``isin_sorting`` with ``assume_unique``: sort elements and test elements together
    (stably: an element before an equal test element); an element is in if its right
    neighbour equals it. With repeated elements that guess is wrong, as it is in
    PyTorch (and NumPy): ``assume_unique`` promises there are none."""
    together = np.concatenate([elements.reshape(-1), tests.reshape(-1)])
    order = np.argsort(together, kind="stable")
    ordered = together[order]
    same_as_next = ordered[1:] != ordered[:-1] if invert else ordered[1:] == ordered[:-1]
    flags = np.empty(together.size, bool)
    flags[order] = np.append(same_as_next, invert)
    return flags[: elements.size].reshape(elements.shape)


def _isin_kernel(elements, test_elements, *, assume_unique=False, invert=False) -> Tensor:
    """Membership in the common dtype. PyTorch compares each element with every test
    element when there are few (fewer than ``10 * numel ** 0.145``), else sorts; both
    give plain membership (nan is in nothing), unless ``assume_unique`` is promised."""
    _isin_meta(elements, test_elements)
    common = result_type(elements, test_elements).numpy
    as_array = lambda v: (v._array if isinstance(v, Tensor) else np.array(v)).astype(common)  # noqa: E731
    values, tests = as_array(elements), as_array(test_elements)
    if values.size and assume_unique and tests.size >= 10.0 * values.size**0.145:
        return wrap_result(_sorted_membership(values, tests, invert), dt.bool)
    return wrap_result(np.isin(values, tests, invert=invert), dt.bool)


isin = native_function(
    "isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, "
    "bool invert=False) -> Tensor",
    "isin.Tensor_Tensor_out(Tensor elements, Tensor test_elements, *, bool assume_unique=False, "
    "bool invert=False, Tensor(a!) out) -> Tensor(a!)",
    "isin.Tensor_Scalar(Tensor elements, Scalar test_element, *, bool assume_unique=False, "
    "bool invert=False) -> Tensor",
    "isin.Tensor_Scalar_out(Tensor elements, Scalar test_element, *, bool assume_unique=False, "
    "bool invert=False, Tensor(a!) out) -> Tensor(a!)",
    "isin.Scalar_Tensor(Scalar element, Tensor test_elements, *, bool assume_unique=False, "
    "bool invert=False) -> Tensor",
    "isin.Scalar_Tensor_out(Scalar element, Tensor test_elements, *, bool assume_unique=False, "
    "bool invert=False, Tensor(a!) out) -> Tensor(a!)",
    kernel=meta_then_impl(_isin_meta, _isin_kernel),
    kernels={
        name: out_wrapper(_isin_kernel, exact_dtype=True, meta=_isin_meta)
        for name in ("isin.Tensor_Tensor_out", "isin.Tensor_Scalar_out", "isin.Scalar_Tensor_out")
    },
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.isin``: whether each element is one of ``test_elements``.",
)

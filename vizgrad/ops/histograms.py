"""Counting values: ``histc``, ``histogram``, ``bincount`` (``SummaryOps.cpp``, ``Histogram.cpp``).

A *histogram* counts how many values fall into each bin of a range. The bins are given
by their edges: ``bins + 1`` increasing numbers; a value ``v`` belongs to bin ``i`` when
``edges[i] <= v < edges[i + 1]``, except that the last bin also holds its right edge.
Values outside the edges, and nan, are not counted. With ``weight``, each value adds its
weight instead of 1; with ``density``, the counts are divided by their total and by the
bins' widths, so that the histogram integrates to 1.

PyTorch finds a value's bin in one of three ways (``HistogramKernel.cpp``), and so does
vizgrad, because near an edge they can disagree by one bin:

* ``histc`` divides: ``int((v - left) * bins / (right - left))``, in the input's dtype;
* ``histogram`` with a bin *count* divides the same way, then looks at the edges next to
  that guess (the "local search"), so a value and the ``bin_edges`` it returns agree;
* ``histogram`` with bin *edges* given searches them (``upper_bound``).

``bincount`` counts non-negative integers: ``result[i]`` is how many times ``i`` occurs
(or the sum of their ``weights``).

None of them has a derivative: ``histc`` is not differentiable, while ``histogram`` and
``bincount`` record a node whose backward raises (PyTorch's ``NotImplemented``).
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from ..dispatcher import COMPOSITE_IMPLICIT, NONDIFFERENTIABLE
from ..dtypes import COMPLEX, CPP_TYPE_NAMES, INTEGRAL, float16, float32, float64, int64
from ..meta_device import META, check_copy_device, empty_meta
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .declaration import native_function
from .iterator import resize_output
from .min_max import _check_not_complex, aminmax
from .ranges import _linspace_values

__all__ = ["histc", "histogram", "histogramdd", "bincount"]

# The built-in ``range``, for the functions whose ``range`` argument (PyTorch's name) hides it.
builtins_range = range

# ``AT_DISPATCH_FLOATING_TYPES_AND2(kBFloat16, kHalf, ..., "histogram_cpu")``.
_HISTOGRAM_TYPES = (float16, float32, float64)


def _cpp_double(value: float) -> str:
    """A double as C++ streams it into a message: ``%g``, and nan with its sign bit."""
    if np.isnan(value):
        return "-nan" if np.signbit(value) else "nan"
    return f"{value:g}"


def _scalar_to_double(value) -> float:
    """``Scalar::to<double>()``: a complex number converts only without an imaginary part."""
    if isinstance(value, complex):
        if value.imag != 0:
            raise RuntimeError("value cannot be converted to type double without overflow")
        value = value.real
    return float(value)


def _not_implemented(kernel_name: str, t: Tensor) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel_name}\" not implemented for '{t._dtype.scalar_name}'")


def _check_floating(kernel_name: str, t: Tensor, allowed=_HISTOGRAM_TYPES) -> None:
    if t._dtype not in allowed:
        raise _not_implemented(kernel_name, t)


def _flat(t: Tensor) -> np.ndarray:
    """The elements of ``t`` in row-major order, as one NumPy row (``reshape({numel})``)."""
    return np.asarray(t._array).reshape(-1)


def _prepare_out(self: Tensor, bin_ct: int, hist: Tensor, bin_edges: Tensor) -> None:
    """``histogramdd_prepare_out``: the outputs' dtypes, a positive bin count, then both
    outputs resized (``bin_edges`` has one more element than ``hist``)."""
    if hist._dtype is not self._dtype:
        raise RuntimeError(
            "vizgrad.histogram: input tensor and hist tensor should have the same dtype, but got "
            f"input {CPP_TYPE_NAMES[self._dtype.name]} and hist {CPP_TYPE_NAMES[hist._dtype.name]}"
        )
    if bin_edges._dtype is not self._dtype:
        raise RuntimeError(
            "vizgrad.histogram: input tensor and bin_edges tensor should have the same dtype, but "
            f"got input {CPP_TYPE_NAMES[self._dtype.name]} and bin_edges "
            f"{CPP_TYPE_NAMES[bin_edges._dtype.name]} for dimension 0"
        )
    if bin_ct <= 0:
        raise RuntimeError(
            f"vizgrad.histogram(): bins must be > 0, but got {bin_ct} for dimension 0"
        )
    resize_output(bin_edges, (bin_ct + 1,))
    resize_output(hist, (bin_ct,))


def _check_inputs(self: Tensor, bins: Tensor, weight) -> None:
    """``histogramdd_check_inputs`` for one dimension: edges of the input's dtype, 1-D and
    not empty; a weight per value, of the input's dtype."""
    if bins._dtype is not self._dtype:
        raise RuntimeError(
            "vizgrad.histogramdd: input tensor and bins tensors should have the same dtype, but "
            f"got input with dtype {CPP_TYPE_NAMES[self._dtype.name]} and bins for dimension 0 "
            f"with dtype {CPP_TYPE_NAMES[bins._dtype.name]}"
        )
    if bins.dim() != 1:
        raise RuntimeError(
            "vizgrad.histogramdd: bins tensor should have one dimension, but got "
            f"{bins.dim()} dimensions in the bins tensor for dimension 0"
        )
    if bins.numel() == 0:
        raise RuntimeError(
            "vizgrad.histogramdd: bins tensor should have at least 1 element, but got 0 elements "
            "in the bins tensor for dimension 0"
        )
    if weight is None:
        return
    if weight._dtype is not self._dtype:
        raise RuntimeError(
            "vizgrad.histogramdd: if weight tensor is provided, input tensor and weight tensor "
            f"should have the same dtype, but got input({CPP_TYPE_NAMES[self._dtype.name]}), "
            f"and weight({CPP_TYPE_NAMES[weight._dtype.name]})"
        )
    if weight.numel() != self.numel():
        raise RuntimeError(
            "vizgrad.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"[{self.numel()}, 1] and weight with shape [{weight.numel()}]"
        )


# --- where each value goes --------------------------------------------------------------------


def _bin_positions(values: np.ndarray, edges: np.ndarray, method: str) -> np.ndarray:
    """The bin of each value (all within the edges): ``method`` is ``"linear"`` (histc),
    ``"local"`` (histogram with a bin count) or ``"search"`` (histogram with edges)."""
    n_edges = edges.size
    if method == "search":
        pos = np.searchsorted(edges, values, side="right") - 1
    else:
        left, right = edges[0], edges[-1]
        scalar = values.dtype.type
        with np.errstate(all="ignore"):
            # In the input's dtype, one rounding per step, as the C++ loop computes it.
            guess = (values - left) * scalar(n_edges - 1) / (right - left)
        pos = guess.astype(np.int64)
        if method == "local":
            pos = _local_search(values, edges, pos)
    # The last bin holds its right edge too.
    pos[pos == n_edges - 1] -= 1
    return np.clip(pos, 0, n_edges - 2)


def _local_search(values: np.ndarray, edges: np.ndarray, guess: np.ndarray) -> np.ndarray:
    """``upper_bound`` over the edges ``guess - 1 .. guess + 1``: the division's guess,
    corrected by one bin where rounding put a value on the wrong side of an edge."""
    n_edges = edges.size
    low = np.maximum(guess - 1, 0)
    at_or_below = np.zeros(guess.shape, dtype=np.int64)
    for offset in (-1, 0, 1):
        k = guess + offset
        inside = (k >= low) & (k < np.minimum(guess + 2, n_edges))
        edge = edges[np.clip(k, 0, n_edges - 1)]
        at_or_below += inside & (edge <= values)
    return low + at_or_below - 1


def _count(values: np.ndarray, edges: np.ndarray, weights, method: str, density: bool,
           dtype) -> np.ndarray:  # fmt: skip
    """The histogram of ``values`` over ``edges`` in ``dtype`` (the input's), accumulated
    value by value as PyTorch's loop adds them."""
    hist = np.zeros(edges.size - 1, dtype=dtype.numpy)
    if values.size and hist.size:
        with np.errstate(invalid="ignore"):
            inside = (values >= edges[0]) & (values <= edges[-1])  # nan is outside
        positions = _bin_positions(values[inside], edges, method)
        added = np.ones(positions.size, hist.dtype) if weights is None else weights[inside]
        np.add.at(hist, positions, added)
    if density:
        with np.errstate(all="ignore"):
            hist = hist / hist.dtype.type(hist.sum(dtype=np.float64))
            hist = hist / np.diff(edges)
    return hist


def _new(array: np.ndarray, dtype) -> Tensor:
    return Tensor._from_array(np.ascontiguousarray(array, dtype=dtype.numpy), dtype)


def _write(out: Tensor, array: np.ndarray) -> Tensor:
    np.copyto(out._array, array.reshape(out._size), casting="unsafe")
    return out


# --- histc ---------------------------------------------------------------------------------------


def _histc_range(self: Tensor, min, max) -> tuple[float, float]:
    """``histc_select_outer_bin_edges``: ``[min, max]``, or the data's range when they are
    equal (the default 0, 0), widened by 1 each way if it is a single point."""
    left, right = _scalar_to_double(min), _scalar_to_double(max)
    if left == right and self.numel() > 0:
        smallest, largest = aminmax(self)
        left, right = float(smallest.item()), float(largest.item())
        # A nan extreme is the CPU's default nan, whose sign bit is set.
        left, right = (-abs(v) if np.isnan(v) else v for v in (left, right))
    if left == right:
        left, right = left - 1, right + 1
    _check_histc_range(left, right)
    return left, right


def _check_histc_range(left: float, right: float) -> None:
    if not (np.isfinite(left) and np.isfinite(right)):
        raise RuntimeError(
            f"vizgrad.histc: range of [{_cpp_double(left)}, {_cpp_double(right)}] is not finite"
        )
    if not left < right:
        raise RuntimeError("vizgrad.histc: max must be larger than min")


def _histc_into(self: Tensor, bins: int, min, max, hist: Tensor) -> Tensor:
    """``histogram_histc_out``: the histogram PyTorch's oldest function computes, by
    division (``LINEAR_INTERPOLATION``), into ``hist``."""
    edges_holder = Tensor._from_array(np.empty(0, dtype=self._dtype.numpy), self._dtype)
    _prepare_out(self, bins, hist, edges_holder)
    left, right = _histc_range(self, min, max)
    edges = _linspace_values(left, right, bins + 1, self._dtype)
    _check_floating("histogram_cpu", self)
    return _write(hist, _count(_flat(self), edges, None, "linear", False, self._dtype))


def _histc_kernel(self: Tensor, bins: int = 100, min=0, max=0) -> Tensor:
    hist = Tensor._from_array(np.empty(0, dtype=self._dtype.numpy), self._dtype)
    return _histc_into(self, bins, min, max, hist)


def _histc_out_kernel(self: Tensor, bins: int = 100, min=0, max=0, *, out: Tensor) -> Tensor:
    return _histc_into(self, bins, min, max, out)


def _histc_meta(self: Tensor, bins: int = 100, min=0, max=0, *, out: Tensor | None = None):
    """``histc`` on the meta device: ``_histc_into``'s checks that read no data (the
    outputs, the bins, a range given or the dtype ``aminmax`` would find it in, the
    dtype), ``hist`` resized to ``bins``. A range left to the data (``min == max``)
    cannot be checked: there is none."""
    hist = empty_meta((0,), (1,), self._dtype) if out is None else out
    check_copy_device(META, hist)
    _prepare_out(self, bins, hist, empty_meta((0,), (1,), self._dtype))
    left, right = _scalar_to_double(min), _scalar_to_double(max)
    if left != right:
        _check_histc_range(left, right)
    elif self.numel():  # the data's range would be asked of ``aminmax``, which orders values
        _check_not_complex("aminmax_cpu", self)
    _linspace_values(left, right, 0, self._dtype)  # the edges' dtype check; no edge computed
    _check_floating("histogram_cpu", self)
    return hist


# ``vizgrad.ops.meta_kernels`` registers them.
_histc_kernel.meta_kernel = _histc_out_kernel.meta_kernel = _histc_meta


histc = native_function(
    "histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor",
    "histc.out(Tensor self, int bins=100, Scalar min=0, Scalar max=0, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernels={"histc": _histc_kernel, "histc.out": _histc_out_kernel},
    kind=NONDIFFERENTIABLE,
    doc="``torch.histc``: counts of the values in ``bins`` equal bins over ``[min, max]`` (the "
    "data's range when both are 0); floating inputs only.",
)


# --- histogram -------------------------------------------------------------------------------------


def _histogram_range(self: Tensor, range) -> tuple[float, float]:
    """``select_outer_bin_edges``: ``range``, or the data's (``[0, 1]`` for no data), widened
    by 0.5 each way if it is a single point."""
    left, right = 0.0, 1.0
    if range is not None:
        if len(range) != 2:
            raise RuntimeError(
                "vizgrad.histogramdd: for a 1-dimensional histogram range should have 2 "
                f"elements, but got {len(range)}"
            )
        left, right = float(range[0]), float(range[1])
    elif self.numel() > 0:
        _check_floating("histogramdd", self, (float32, float64))
        smallest, largest = aminmax(self)
        left, right = float(smallest.item()), float(largest.item())
    if not (np.isfinite(left) and np.isfinite(right)):
        raise RuntimeError(
            f"vizgrad.histogramdd: dimension 0's range [{_cpp_double(left)}, "
            f"{_cpp_double(right)}] is not finite"
        )
    if left > right:
        raise RuntimeError(
            f"vizgrad.histogramdd: min should not exceed max, but got min {_cpp_double(left)} "
            f"max {_cpp_double(right)} for dimension 0"
        )
    if left == right:
        left, right = left - 0.5, right + 0.5
    return left, right


def _histogram_count_into(self: Tensor, bins: int, range, weight, density: bool, hist: Tensor,
                          bin_edges: Tensor):  # fmt: skip
    """``histogram_out`` with a bin count: equal bins over the range, found by division and
    a local search, so that ``hist`` agrees with the ``bin_edges`` returned."""
    _prepare_out(self, bins, hist, bin_edges)
    left, right = _histogram_range(self, range)
    edges = _linspace_values(left, right, bins + 1, bin_edges._dtype)
    _write(bin_edges, edges)
    _check_inputs(self, bin_edges, weight)
    _check_floating("histogram_cpu", self)
    weights = None if weight is None else _flat(weight)
    edges = _flat(bin_edges)  # as written (and read back) in ``bin_edges``' dtype
    _write(hist, _count(_flat(self), edges, weights, "local", density, self._dtype))
    return hist, bin_edges


def _histogram_edges_into(self: Tensor, bins: Tensor, weight, density: bool, hist: Tensor,
                          bin_edges: Tensor):  # fmt: skip
    """``histogram_out`` with the edges given: each value's bin by binary search."""
    _check_inputs(self, bins, weight)
    _prepare_out(self, bins.numel() - 1, hist, bin_edges)
    _write(bin_edges, _flat(bins))
    _check_floating("histogram_cpu", self)
    weights = None if weight is None else _flat(weight)
    _write(hist, _count(_flat(self), _flat(bins), weights, "search", density, self._dtype))
    return hist, bin_edges


def _empty_like_dtype(t: Tensor) -> Tensor:
    return Tensor._from_array(np.empty(0, dtype=t._dtype.numpy), t._dtype)


def _histogram_count_kernel(self: Tensor, bins: int = 100, *, range=None, weight=None,
                            density: bool = False):  # fmt: skip
    hist, bin_edges = _empty_like_dtype(self), _empty_like_dtype(self)
    return _histogram_count_into(self, bins, range, weight, density, hist, bin_edges)


def _histogram_count_out(self: Tensor, bins: int = 100, *, range=None, weight=None,
                         density: bool = False, hist: Tensor, bin_edges: Tensor):  # fmt: skip
    return _histogram_count_into(self, bins, range, weight, density, hist, bin_edges)


def _histogram_edges_kernel(self: Tensor, bins: Tensor, *, weight=None, density: bool = False):
    hist, bin_edges = _empty_like_dtype(self), _empty_like_dtype(bins)
    return _histogram_edges_into(self, bins, weight, density, hist, bin_edges)


def _histogram_edges_out(self: Tensor, bins: Tensor, *, weight=None, density: bool = False,
                         hist: Tensor, bin_edges: Tensor):  # fmt: skip
    return _histogram_edges_into(self, bins, weight, density, hist, bin_edges)


histogram = native_function(
    "histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, "
    "bool density=False) -> (Tensor hist, Tensor bin_edges)",
    "histogram.bins_tensor_out(Tensor self, Tensor bins, *, Tensor? weight=None, "
    "bool density=False, Tensor(a!) hist, Tensor(b!) bin_edges) "
    "-> (Tensor(a!) hist, Tensor(b!) bin_edges)",
    "histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, "
    "bool density=False) -> (Tensor hist, Tensor bin_edges)",
    "histogram.bin_ct_out(Tensor self, int bins=100, *, float[]? range=None, "
    "Tensor? weight=None, bool density=False, Tensor(a!) hist, Tensor(b!) bin_edges) "
    "-> (Tensor(a!) hist, Tensor(b!) bin_edges)",
    kernels={
        "histogram.bins_tensor": _histogram_edges_kernel,
        "histogram.bins_tensor_out": _histogram_edges_out,
        "histogram.bin_ct": _histogram_count_kernel,
        "histogram.bin_ct_out": _histogram_count_out,
    },
    # No derivative: PyTorch records a ``NotImplemented`` node, whose backward raises.
    doc="``torch.histogram``: the counts (or summed ``weight``, or ``density``) of the values "
    "in ``bins`` bins, or between the edges ``bins``, with the edges used.",
)


# --- histogramdd -----------------------------------------------------------------------------------
# ``input`` of shape (..., N) holds points in N dimensions; the histogram has one axis per
# dimension, each with its own bins. PyTorch's ``histogram`` is the N = 1 case of these
# kernels; ``histogramdd`` calls the operators below (CompositeImplicitAutograd).


def _shape_text(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _as_points(self: Tensor) -> np.ndarray:
    """``self.reshape({M, N})``: the points, one per row."""
    n = self._size[-1]
    return np.asarray(self._array).reshape(-1, n)


def _check_at_least_2d(self: Tensor) -> None:
    if self.dim() < 2:
        raise RuntimeError("vizgrad.histogramdd: input tensor should have at least 2 dimensions")


def _dd_check_inputs(self: Tensor, bins, weight) -> None:
    """``histogramdd_check_inputs``: a 1-D, non-empty sequence of edges of the input's
    dtype per dimension; a weight per point, of the input's dtype."""
    if self.dim() < 2:
        raise RuntimeError(
            "vizgrad.histogramdd: input tensor should have at least 2 dimensions, but got "
            f"{self.dim()}"
        )
    n = self._size[-1]
    if len(bins) != n:
        raise RuntimeError(
            f"vizgrad.histogramdd: expected {n} sequences of bin edges for a {n}-dimensional "
            f"histogram but got {len(bins)}"
        )
    input_type = CPP_TYPE_NAMES[self._dtype.name]
    for d, edges in enumerate(bins):
        if edges._dtype is not self._dtype:
            raise RuntimeError(
                "vizgrad.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {input_type} and bins for dimension {d} with dtype "
                f"{CPP_TYPE_NAMES[edges._dtype.name]}"
            )
        if edges.dim() != 1:
            raise RuntimeError(
                "vizgrad.histogramdd: bins tensor should have one dimension, but got "
                f"{edges.dim()} dimensions in the bins tensor for dimension {d}"
            )
        if edges.numel() == 0:
            raise RuntimeError(
                "vizgrad.histogramdd: bins tensor should have at least 1 element, but got 0 "
                f"elements in the bins tensor for dimension {d}"
            )
    if weight is None:
        return
    if weight._dtype is not self._dtype:
        raise RuntimeError(
            "vizgrad.histogramdd: if weight tensor is provided, input tensor and weight tensor "
            f"should have the same dtype, but got input({input_type}), and "
            f"weight({CPP_TYPE_NAMES[weight._dtype.name]})"
        )
    if tuple(self._size[:-1]) != (tuple(weight._size) or (1,)):
        raise RuntimeError(
            "vizgrad.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"{_shape_text(self._size)} and weight with shape {_shape_text(weight._size)}"
        )


def _dd_check_counts(self: Tensor, counts) -> None:
    """``histogramdd_prepare_out``'s check: a positive bin count per dimension."""
    for d, count in enumerate(counts):
        if count <= 0:
            raise RuntimeError(
                f"vizgrad.histogram(): bins must be > 0, but got {count} for dimension {d}"
            )


def _dd_outer_edges(self: Tensor, range) -> list[tuple[float, float]]:
    """``select_outer_bin_edges`` for each dimension: ``range`` (two numbers a dimension),
    or the points' extent (``[0, 1]`` without points), widened by 0.5 if a single point."""
    n = self._size[-1]
    bounds = [(0.0, 1.0)] * n
    if range is not None:
        if len(range) != 2 * n:
            raise RuntimeError(
                f"vizgrad.histogramdd: for a {n}-dimensional histogram range should have "
                f"{2 * n} elements, but got {len(range)}"
            )
        bounds = [(float(range[2 * d]), float(range[2 * d + 1])) for d in builtins_range(n)]
    elif self.numel() > 0:
        _check_floating("histogramdd", self, (float32, float64))
        points = _as_points(self)
        bounds = list(zip(points.min(axis=0).tolist(), points.max(axis=0).tolist(), strict=True))
    result = []
    for d, (left, right) in enumerate(bounds):
        if not (np.isfinite(left) and np.isfinite(right)):
            raise RuntimeError(
                f"vizgrad.histogramdd: dimension {d}'s range [{_cpp_double(left)}, "
                f"{_cpp_double(right)}] is not finite"
            )
        if left > right:
            raise RuntimeError(
                "vizgrad.histogramdd: min should not exceed max, but got min "
                f"{_cpp_double(left)} max {_cpp_double(right)} for dimension {d}"
            )
        result.append((left - 0.5, right + 0.5) if left == right else (left, right))
    return result


def _dd_edges(self: Tensor, bins, range) -> list[Tensor]:
    """``histogramdd_bin_edges_cpu``: equal bins over each dimension's range."""
    _check_at_least_2d(self)
    bounds = _dd_outer_edges(self, range)
    return [_new(_linspace_values(left, right, count + 1, self._dtype), self._dtype)
            for (left, right), count in zip(bounds, bins, strict=True)]  # fmt: skip


def _dd_count(self: Tensor, edges: list[Tensor], weight, density: bool, method: str) -> Tensor:
    """The N-dimensional histogram: each point goes to the bin of each of its coordinates
    (found as ``method`` says), unless one of them is outside its edges (or nan)."""
    _check_floating("histogram_cpu", self)
    rows = [_flat(e) for e in edges]
    shape = tuple(e.size - 1 for e in rows)
    hist = np.zeros(shape, dtype=self._dtype.numpy)
    points = _as_points(self)
    if points.shape[0] and points.shape[1] and hist.size:
        with np.errstate(invalid="ignore"):
            inside = np.ones(points.shape[0], dtype=bool)
            for d, e in enumerate(rows):
                inside &= (points[:, d] >= e[0]) & (points[:, d] <= e[-1])
        positions = [_bin_positions(points[inside, d], e, method) for d, e in enumerate(rows)]
        flat = np.ravel_multi_index(positions, shape)
        added = np.ones(flat.size, hist.dtype) if weight is None else _flat(weight)[inside]
        np.add.at(hist.reshape(-1), flat, added)
    if density:
        with np.errstate(all="ignore"):
            hist = hist / hist.dtype.type(hist.sum(dtype=np.float64))
            for d, e in enumerate(rows):
                widths = np.diff(e).reshape(
                    [-1 if i == d else 1 for i in builtins_range(len(rows))]
                )
                hist = hist / widths
    return _new(hist, self._dtype)


def _histogramdd_bin_edges_kernel(self: Tensor, bins, *, range=None, weight=None,
                                  density: bool = False) -> list:  # fmt: skip
    return _dd_edges(self, bins, range)


def _histogramdd_from_bin_cts_kernel(self: Tensor, bins, *, range=None, weight=None,
                                     density: bool = False) -> Tensor:  # fmt: skip
    edges = _dd_edges(self, bins, range)
    _dd_check_inputs(self, edges, weight)
    _dd_check_counts(self, bins)
    return _dd_count(self, edges, weight, density, "local")


def _histogramdd_from_bin_tensors_kernel(self: Tensor, bins, *, weight=None,
                                         density: bool = False) -> Tensor:  # fmt: skip
    _dd_check_inputs(self, bins, weight)
    _dd_check_counts(self, [e.numel() - 1 for e in bins])
    return _dd_count(self, bins, weight, density, "search")


_histogramdd_bin_edges = native_function(
    "_histogramdd_bin_edges(Tensor self, int[] bins, *, float[]? range=None, "
    "Tensor? weight=None, bool density=False) -> Tensor[]",
    kernel=_histogramdd_bin_edges_kernel,
    variants="function",
)
_histogramdd_from_bin_cts = native_function(
    "_histogramdd_from_bin_cts(Tensor self, int[] bins, *, float[]? range=None, "
    "Tensor? weight=None, bool density=False) -> Tensor",
    kernel=_histogramdd_from_bin_cts_kernel,
    variants="function",
)
_histogramdd_from_bin_tensors = native_function(
    "_histogramdd_from_bin_tensors(Tensor self, Tensor[] bins, *, Tensor? weight=None, "
    "bool density=False) -> Tensor",
    kernel=_histogramdd_from_bin_tensors_kernel,
    variants="function",
)


def _histogramdd_counts(self: Tensor, bins, range=None, weight=None, density: bool = False):
    if len(bins) != self.size(-1):
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    edges = _histogramdd_bin_edges(self, bins, range=range, weight=weight, density=density)
    hist = _histogramdd_from_bin_cts(self, bins, range=range, weight=weight, density=density)
    return hist, tuple(edges)


def _histogramdd_int(self: Tensor, bins: int, range=None, weight=None, density: bool = False):
    return _histogramdd_counts(self, [bins] * self.size(-1), range, weight, density)


def _histogramdd_tensors(self: Tensor, bins, range=None, weight=None, density: bool = False):
    # ``range`` is ignored: the edges say where the bins are. The edges returned are the
    # tensors given.
    hist = _histogramdd_from_bin_tensors(self, bins, weight=weight, density=density)
    return hist, tuple(bins)


_DD_TAIL = "float[]? range=None, Tensor? weight=None, bool density=False"
histogramdd = native_function(
    f"histogramdd(Tensor self, int[] bins, {_DD_TAIL}) -> (Tensor hist, Tensor[] bin_edges)",
    f"histogramdd.int_bins(Tensor self, int bins, {_DD_TAIL}) -> (Tensor hist, Tensor[] bin_edges)",
    f"histogramdd.TensorList_bins(Tensor self, Tensor[] bins, {_DD_TAIL}) "
    "-> (Tensor hist, Tensor[] bin_edges)",
    kernels={
        "histogramdd": _histogramdd_counts,
        "histogramdd.int_bins": _histogramdd_int,
        "histogramdd.TensorList_bins": _histogramdd_tensors,
    },
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.histogramdd``: the histogram of points in N dimensions (the last dim of "
    "``input``), with ``bins`` bins (or bin edges) per dimension; the edges used.",
)


# --- bincount --------------------------------------------------------------------------------------


def _bincount_kernel(self: Tensor, weights=None, minlength=0) -> Tensor:
    """``_bincount_cpu``: how often each non-negative integer occurs in the 1-D ``self``
    (the sum of its ``weights``); at least ``minlength`` counts. Float32 weights sum in
    float32, any others in double, one after the other."""
    if self._dtype.category != INTEGRAL:
        raise _not_implemented("bincount_cpu", self)
    minlength = operator.index(minlength)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if self.dim() == 1 and self.numel() == 0:
        return _new(np.zeros(minlength), int64)  # int64 even with weights, as PyTorch
    values = _flat(self)
    if self.dim() != 1 or values.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights._size[0] != self._size[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    length = max(int(values.max()) + 1, minlength)
    if weights is None:
        return _new(np.bincount(values.astype(np.int64), minlength=length), int64)
    dtype = float32 if weights._dtype is float32 else float64
    added = _flat(weights)
    if weights._dtype.category == COMPLEX:
        warn_at_user_code("Casting complex values to real discards the imaginary part", UserWarning)
        added = added.real
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        added = added.astype(dtype.numpy)
    counts = np.zeros(length, dtype=dtype.numpy)
    np.add.at(counts, values.astype(np.int64), added)
    return _new(counts, dtype)


bincount = native_function(
    "bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor",
    kernel=_bincount_kernel,
    # No derivative: with ``weights`` that require grad, PyTorch records ``NotImplemented``.
    doc="``torch.bincount``: the number of times each value ``0, 1, …, max`` occurs in a 1-D "
    "tensor of non-negative integers (or the sum of their ``weights``).",
)

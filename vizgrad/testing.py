"""``torch.testing``: ``assert_close``, comparing tensors with tolerances chosen by dtype.

Two floating-point computations of the same thing rarely agree to the last bit, so tests
compare them as "close": ``|actual - expected| <= atol + rtol * |expected|`` elementwise,
with ``rtol`` and ``atol`` read from the dtype when not given (``float32``: 1.3e-6 and
1e-5). Before the values, the attributes must agree: shape always, and dtype, device,
layout (and, if asked, strides) unless told otherwise. Sequences and mappings are compared
item by item; the first mismatch raises, naming where it was (``item [1]['w']``).

The rules and the messages are PyTorch's (``torch/testing/_comparison.py``), written as one
recursive comparison: a mismatch is a ``_Mismatch`` carrying the exception class and the
message, which ``assert_close`` raises as that class.
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
import math

import numpy as np

from . import dtypes
from .ops.creation import as_tensor
from .promotion import promote_types
from .tensor import Tensor

__all__ = ["assert_close", "default_tolerances"]

# ``{dtype: (rtol, atol)}``: the default tolerances; other dtypes (integers, bool) compare
# exactly.
_DTYPE_PRECISIONS = {
    dtypes.float16: (0.001, 1e-5),
    dtypes.float32: (1.3e-6, 1e-5),
    dtypes.float64: (1e-7, 1e-7),
    dtypes.complex64: (1.3e-6, 1e-5),
    dtypes.complex128: (1e-7, 1e-7),
}
# A Python number compares as the dtype a tensor of it would have in double precision.
_NUMBER_DTYPES = {int: dtypes.int64, float: dtypes.float64, complex: dtypes.complex128}


class _Mismatch(Exception):
    """A failed comparison: the exception class to raise, its message, and where."""

    def __init__(self, error_type: type[Exception], message: str, where: tuple = ()):
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.where = where

    def to_error(self, msg=None) -> Exception:
        if isinstance(msg, str):
            return self.error_type(msg)
        message = self.message
        if self.where:
            message += (
                f"\n\nThe failure occurred for item {''.join(f'[{k!r}]' for k in self.where)}"
            )
        return self.error_type(msg(message) if callable(msg) else message)


class _Unsupported(Exception):
    """These two inputs are not of a kind this comparison handles."""


def default_tolerances(*inputs) -> tuple[float, float]:
    """The loosest default ``(rtol, atol)`` of the inputs' dtypes (tensors or dtypes)."""
    rtols, atols = [0.0], [0.0]
    for item in inputs:
        if isinstance(item, Tensor):
            item = item.dtype
        elif not isinstance(item, dtypes.dtype):
            raise TypeError(
                f"Expected a vizgrad.Tensor or a vizgrad.dtype, but got {type(item)} instead."
            )
        rtol, atol = _DTYPE_PRECISIONS.get(item, (0.0, 0.0))
        rtols.append(rtol)
        atols.append(atol)
    return max(rtols), max(atols)


def _tolerances(*inputs, rtol, atol, where) -> tuple[float, float]:
    # Both or neither: ``atol=0`` alone would still let ``rtol``'s default pass values.
    if (rtol is None) != (atol is None):
        raise _Mismatch(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, "
            f"but got no {'rtol' if rtol is None else 'atol'}.",
            where,
        )
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _mismatch_message(identifier, *, extra, abs_diff, abs_index, atol, rel_diff, rel_index,
                      rtol) -> str:  # fmt: skip
    """``Tensor-likes are not close!`` with the greatest differences and where they are."""
    equality = rtol == 0 and atol == 0

    def difference(kind, diff, index, tol):
        line = (f"{kind.title()} difference: {diff}" if index is None
                else f"Greatest {kind} difference: {diff} at index {index}")  # fmt: skip
        return line + ("" if equality else f" (up to {tol} allowed)") + "\n"

    message = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        message += f"{extra.strip()}\n"
    message += difference("absolute", abs_diff, abs_index, atol)
    message += difference("relative", rel_diff, rel_index, rtol)
    return message.strip()


def _scalar_message(actual, expected, *, rtol, atol) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = math.inf if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message("Scalars", extra=f"Expected {expected} but got {actual}.",
                             abs_diff=abs_diff, abs_index=None, atol=atol,
                             rel_diff=rel_diff, rel_index=None, rtol=rtol)  # fmt: skip


def _tensor_message(actual: np.ndarray, expected: np.ndarray, matches: np.ndarray, *, rtol,
                    atol) -> str:  # fmt: skip
    total = matches.size
    mismatched = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    quotient_dtype = None
    if actual.dtype.kind not in "fc":
        # Integers and bools differ in int64; their quotient is a true division, which
        # gives the default float dtype (as torch's ``abs_diff / expected.abs()`` does).
        actual, expected = actual.astype(np.int64), expected.astype(np.int64)
        quotient_dtype = dtypes.get_default_dtype().numpy
    mismatches = ~matches.ravel()
    with np.errstate(all="ignore"):
        abs_diff = np.where(mismatches, np.abs(actual - expected).ravel(), 0)
        rel_diff = np.true_divide(abs_diff, np.abs(expected).ravel(), dtype=quotient_dtype)
    rel_diff[~mismatches] = 0
    # torch.max's index: the first greatest, where a nan is the greatest.
    abs_at, rel_at = (int(np.argmax(d)) for d in (abs_diff, rel_diff))

    def index(flat: int) -> tuple[int, ...]:
        return tuple(int(i) for i in np.unravel_index(flat, matches.shape))

    return _mismatch_message(
        "Tensor-likes", extra=extra,
        abs_diff=abs_diff[abs_at].item(), abs_index=index(abs_at), atol=atol,
        rel_diff=rel_diff[rel_at].item(), rel_index=index(rel_at), rtol=rtol,
    )  # fmt: skip


# --- one pair of inputs -------------------------------------------------------------------


def _compare_none(actual, expected, where, **options) -> None:
    if actual is not None and expected is not None:
        raise _Unsupported
    if not (actual is None and expected is None):
        raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}", where)


def _compare_bools(actual, expected, where, **options) -> None:
    if not all(isinstance(x, bool | np.bool_) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = bool(actual), bool(expected)
    if actual is not expected:
        raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}", where)


def _compare_numbers(actual, expected, where, *, rtol, atol, equal_nan, check_dtype,
                     **options) -> None:  # fmt: skip
    numbers = (int, float, complex, np.number)
    if not all(isinstance(x, numbers) and not isinstance(x, bool) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    rtol, atol = _tolerances(*(_NUMBER_DTYPES[type(x)] for x in (actual, expected)),
                             rtol=rtol, atol=atol, where=where)  # fmt: skip
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(
            AssertionError,
            f"The (d)types do not match: {type(actual)} != {type(expected)}.",
            where,
        )
    if actual == expected or (equal_nan and cmath.isnan(actual) and cmath.isnan(expected)):
        return
    difference = abs(actual - expected)
    if cmath.isfinite(difference) and difference <= atol + rtol * abs(expected):
        return
    raise _Mismatch(AssertionError, _scalar_message(actual, expected, rtol=rtol, atol=atol), where)


def _as_tensor(value) -> Tensor:
    if isinstance(value, Tensor):
        return value
    try:
        return as_tensor(value)
    except Exception as error:
        raise _Unsupported from error


def _compare_tensors(actual, expected, where, *, rtol, atol, equal_nan, check_dtype,
                     check_device, check_layout, check_stride, allow_subclasses,
                     **options) -> None:  # fmt: skip
    # Tensor-likes (tensors, NumPy arrays) of related types: a tensor is not compared with
    # an array, nor (with allow_subclasses=False) a Parameter with a Tensor.
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not allow_subclasses and type(actual) is not type(expected):
        raise _Unsupported
    actual, expected = _as_tensor(actual), _as_tensor(expected)
    rtol, atol = _tolerances(actual, expected, rtol=rtol, atol=atol, where=where)

    def differ(attribute, actual_value, expected_value):
        raise _Mismatch(
            AssertionError,
            f"The values for attribute '{attribute}' do not match: {actual_value} != "
            f"{expected_value}.",
            where,
        )

    if actual.shape != expected.shape:
        differ("shape", actual.shape, expected.shape)
    if check_layout and actual.layout != expected.layout:
        differ("layout", actual.layout, expected.layout)
    if check_stride and actual.stride() != expected.stride():
        differ("stride()", actual.stride(), expected.stride())
    if check_device and actual.device != expected.device:
        differ("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        differ("dtype", actual.dtype, expected.dtype)
    _compare_values(actual, expected, where, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _compare_values(actual: Tensor, expected: Tensor, where, *, rtol, atol, equal_nan):
    """Elementwise closeness, after promoting both to one dtype."""
    common = promote_types(actual.dtype, expected.dtype)
    actual_values = actual.detach().resolve_conj().to(common).numpy()
    expected_values = expected.detach().resolve_conj().to(common).numpy()
    matches = _isclose(actual_values, expected_values, rtol, atol, equal_nan)
    if matches.all():
        return
    if actual_values.ndim == 0:
        message = _scalar_message(actual_values.item(), expected_values.item(), rtol=rtol,
                                  atol=atol)  # fmt: skip
    else:
        message = _tensor_message(actual_values, expected_values, matches, rtol=rtol, atol=atol)
    raise _Mismatch(AssertionError, message, where)


def _isclose(actual: np.ndarray, expected: np.ndarray, rtol, atol, equal_nan) -> np.ndarray:
    """``torch.isclose``: equal, or finite and within ``atol + rtol * |expected|``."""
    with np.errstate(all="ignore"):
        close = actual == expected
        if actual.dtype.kind in "fc":
            if equal_nan:
                close |= np.isnan(actual) & np.isnan(expected)
            difference = np.abs(actual - expected)
            close |= np.isfinite(difference) & (difference <= atol + rtol * np.abs(expected))
    return close


_PAIR_KINDS = (_compare_none, _compare_bools, _compare_numbers, _compare_tensors)


def _compare(actual, expected, where: tuple, options: dict) -> None:
    """Compare two inputs, recursing into sequences and mappings; raise the first mismatch."""
    sequence, mapping = collections.abc.Sequence, collections.abc.Mapping
    if (isinstance(actual, sequence) and not isinstance(actual, str)
            and isinstance(expected, sequence) and not isinstance(expected, str)):  # fmt: skip
        if len(actual) != len(expected):
            raise _Mismatch(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                where,
            )
        for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
            _compare(a, e, (*where, index), options)
        return
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        actual_keys, expected_keys = set(actual), set(expected)
        if actual_keys != expected_keys:
            raise _Mismatch(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}",
                where,
            )
        keys = list(actual_keys)
        with contextlib.suppress(TypeError):  # sorted when the keys can be: a stable order
            keys = sorted(keys)
        for key in keys:
            _compare(actual[key], expected[key], (*where, key), options)
        return
    for compare_pair in _PAIR_KINDS:
        try:
            return compare_pair(actual, expected, where, **options)
        except _Unsupported:
            continue
    raise _Mismatch(
        TypeError,
        f"No comparison pair was able to handle inputs of type {type(actual)} and "
        f"{type(expected)}.",
        where,
    )


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol=None, atol=None,
                 equal_nan: bool = False, check_device: bool = True, check_dtype: bool = True,
                 check_layout: bool = True, check_stride: bool = False, msg=None) -> None:  # fmt: skip
    """``torch.testing.assert_close``: raise ``AssertionError`` unless ``actual`` and
    ``expected`` are close.

    Tensors (and NumPy arrays) must have the same shape, and by default the same dtype,
    device and layout; their values must satisfy ``|actual - expected| <= atol + rtol *
    |expected|`` elementwise, with both tolerances given or both read from the dtypes
    (``default_tolerances``). ``nan`` equals ``nan`` only with ``equal_nan=True``. Python
    numbers compare as numbers (their types too with ``check_dtype=True``), bools and
    ``None`` by identity, sequences and mappings item by item. ``msg`` replaces the
    message, or, if callable, is given it to return a new one.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this one
    options = {
        "allow_subclasses": allow_subclasses, "rtol": rtol, "atol": atol,
        "equal_nan": equal_nan, "check_device": check_device, "check_dtype": check_dtype,
        "check_layout": check_layout, "check_stride": check_stride,
    }  # fmt: skip
    try:
        _compare(actual, expected, (), options)
    except _Mismatch as mismatch:
        raise mismatch.to_error(msg) from None

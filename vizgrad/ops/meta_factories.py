"""Meta kernels of the factories: ``arange``, ``linspace``, ``eye``, ``rand``… on the meta device.

A factory has no tensor argument to say where it runs: PyTorch's BackendSelect key reads
its ``device=`` and redispatches to that backend (``dispatcher._backend_select``), so
``vg.arange(5, device="meta")`` arrives here, and so does an ``out=`` overload given a
meta ``out``.

Each meta kernel makes the checks its CPU kernel makes before it computes a value (the
length of a range, the sizes and their byte count, the bounds) and returns an empty meta
tensor of that size. Nothing is computed and no generator advances: a sampler's meta
kernel allocates, then calls the in-place sampler (``uniform_``, ``normal_``,
``random_``) through the dispatcher, whose own Meta kernel checks what PyTorch's meta
sampler checks. An ``out=`` overload resizes ``out`` as the CPU kernel does and writes
nothing. (The ``*_like`` samplers follow ``self``'s device, not BackendSelect: their CPU
kernels make a meta result for a meta ``self``, ``vizgrad.ops.sampling``.)

PyTorch's meta factories check no dtype that has no loop (``arange(5, dtype=torch.bool,
device="meta")`` is allowed, as ``rand`` of int64 is): those checks live in the CPU
loops, which do not run here.
"""

from __future__ import annotations

from ..dtypes import default_complex_dtype, get_default_dtype
from ..dtypes import int64 as INT64
from ..meta_device import empty_contiguous_meta
from ..shape import check_numel
from ..tensor import Tensor
from .creation import check_nonnegative, checked_scalar
from .iterator import resize_output
from .ranges import (
    _allocatable_length,
    _arange_dtype,
    _check_eye_size,
    _check_space_arguments,
    _range_bound,
    _resize_1d_out,
)
from .registry import OPERATORS
from .sampling import _int64, _long_unless, check_from_less_than_to

__all__ = ["KERNELS"]


def _new(size: tuple, dtype) -> Tensor:
    """``at::empty(size, dtype, device=meta)``: its checks of the sizes (``empty_meta``
    counts the bytes), then no bytes."""
    check_nonnegative(size)
    return empty_contiguous_meta(size, dtype)


# --- ranges ---------------------------------------------------------------------------------------


def _arange(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None):
    start, end, step = _range_bound(start), _range_bound(end), _range_bound(step)
    dtype = _arange_dtype(start, end, step, dtype)
    return _new((_allocatable_length(start, end, step, dtype),), dtype)


def _arange_out(start, end, step=1, *, out):
    start, end, step = _range_bound(start), _range_bound(end), _range_bound(step)
    _resize_1d_out(out, _allocatable_length(start, end, step, out._dtype))
    return out


def _space_default_dtype(start, end):
    """Without ``dtype=``: complex if a bound is, else the default float dtype. A meta
    tensor bound has no value to read, only its dtype."""

    def is_complex(value):
        return value.is_complex() if isinstance(value, Tensor) else isinstance(value, complex)

    return default_complex_dtype() if is_complex(start) or is_complex(end) else get_default_dtype()


def _space(fn_name: str):
    """``linspace``/``logspace``: ``steps`` values (``base`` changes none of the metadata)."""

    def kernel(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None,
               pin_memory=None):  # fmt: skip
        steps = _check_space_arguments(fn_name, start, end, steps)
        return _new((steps,), dtype or _space_default_dtype(start, end))

    def out_kernel(start, end, steps, base=10.0, *, out):
        steps = _check_space_arguments(fn_name, start, end, steps)
        if out.numel() != steps:
            out.resize_((steps,))
        return out

    return kernel, out_kernel


_linspace, _linspace_out = _space("linspace")
_logspace, _logspace_out = _space("logspace")


def _eye(n, m=None, *, dtype=None, layout=None, device=None, pin_memory=None):
    m = n if m is None else m
    _check_eye_size(n, m)
    check_numel((n, m))
    return _new((n, m), dtype or get_default_dtype())


def _eye_out(n, m=None, *, out):
    m = n if m is None else m
    _check_eye_size(n, m)
    resize_output(out, (n, m))
    return out


def _tril_size(row: int, col: int, offset: int) -> int:
    """How many elements of a ``row × col`` matrix ``tril`` keeps: ATen's ``get_tril_size``,
    a trapezoid and a rectangle counted in closed form (no matrix is made)."""
    if row == 0 or col == 0:
        return 0
    first_row = min(col, 1 + offset) if offset > 0 else int(row + offset > 0)
    last_row = max(0, min(col, row + offset))
    all_rows = max(0, min(row, row + offset))
    trapezoid_rows = last_row - first_row + 1
    size = (first_row + last_row) * trapezoid_rows >> 1
    if all_rows > trapezoid_rows:
        size += (all_rows - trapezoid_rows) * col
    return size


def _triangle_indices(fn_name: str, lower: bool):
    def kernel(row, col, offset=0, *, dtype=None, layout=None, device=None, pin_memory=None):
        if row < 0:
            raise RuntimeError(f"row must be non-negative, got{row}")  # (sic: no space)
        if col < 0:
            raise RuntimeError(f"col must be non-negative, got{col}")
        dtype = INT64 if dtype is None else dtype
        if dtype.name not in ("int32", "int64"):
            # PyTorch's meta function words it with the Python name of the dtype.
            raise RuntimeError(f"\"{fn_name}\" not implemented for '{dtype}'")
        if lower:
            size = _tril_size(row, col, offset)
        else:
            size = row * col - _tril_size(row, col, offset - 1)
        return _new((2, size), dtype)

    return kernel


def _scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None):
    dtype = dtype or get_default_dtype()
    checked_scalar(s, dtype)
    return _new((), dtype)


# --- samplers: allocate, then the in-place sampler's own meta kernel ---------------------------------


def _rand(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    return _new(tuple(size), dtype or get_default_dtype()).uniform_(generator=generator)


def _randn(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    return _new(tuple(size), dtype or get_default_dtype()).normal_(generator=generator)


def _rand_out(size, *, generator=None, out):
    resize_output(out, tuple(size))
    return out.uniform_(generator=generator)


def _randn_out(size, *, generator=None, out):
    resize_output(out, tuple(size))
    return out.normal_(generator=generator)


def _randint(low, high, size=None, *, generator=None, dtype=None, layout=None, device=None,
             pin_memory=None):  # fmt: skip
    if size is None:  # ``randint(high, size)``
        low, high, size = 0, low, high
    check_from_less_than_to(_int64(low), _int64(high))
    result = _new(tuple(size), _long_unless(dtype))
    return result.random_(low, high, generator=generator)


def _randint_out(low, high, size=None, *, generator=None, out):
    if size is None:
        low, high, size = 0, low, high
    check_from_less_than_to(_int64(low), _int64(high))
    resize_output(out, tuple(size))
    return out.random_(low, high, generator=generator)


def _randperm(n, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    return _new((_int64(n),), _long_unless(dtype))


def _randperm_out(n, *, generator=None, out):
    n = _int64(n)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")  # sic: PyTorch's words
    resize_output(out, (n,))
    return out


def _overloads(kernel, *names: str) -> dict:
    return {f"aten::{name}": kernel for name in names}


KERNELS = {
    "aten::arange": lambda end, **options: _arange(0, end, **options),
    "aten::arange.start": _arange,
    "aten::arange.start_step": _arange,
    "aten::arange.out": lambda end, *, out: _arange_out(0, end, out=out),
    "aten::arange.start_out": _arange_out,
    **_overloads(_linspace, "linspace", "linspace.Tensor_Tensor", "linspace.Tensor_Scalar",
                 "linspace.Scalar_Tensor"),
    **_overloads(_linspace_out, "linspace.out", "linspace.Tensor_Tensor_out",
                 "linspace.Tensor_Scalar_out", "linspace.Scalar_Tensor_out"),
    **_overloads(_logspace, "logspace", "logspace.Tensor_Tensor", "logspace.Tensor_Scalar",
                 "logspace.Scalar_Tensor"),
    **_overloads(_logspace_out, "logspace.out", "logspace.Tensor_Tensor_out",
                 "logspace.Tensor_Scalar_out", "logspace.Scalar_Tensor_out"),
    **_overloads(_eye, "eye", "eye.m"),
    **_overloads(_eye_out, "eye.out", "eye.m_out"),
    "aten::tril_indices": _triangle_indices("tril_indices", lower=True),
    "aten::triu_indices": _triangle_indices("triu_indices", lower=False),
    "aten::scalar_tensor": _scalar_tensor,
    # ``normal(mean, std, size)``'s CPU kernel makes the meta result itself (it draws after).
    "aten::normal.float_float": OPERATORS["aten::normal.float_float"].kernel,
    **_overloads(_rand, "rand", "rand.generator"),
    **_overloads(_rand_out, "rand.out", "rand.generator_out"),
    **_overloads(_randn, "randn", "randn.generator"),
    **_overloads(_randn_out, "randn.out", "randn.generator_out"),
    **_overloads(_randint, "randint", "randint.generator", "randint.low", "randint.low_generator"),
    **_overloads(_randint_out, "randint.out", "randint.generator_out", "randint.low_out",
                 "randint.low_generator_out"),
    **_overloads(_randperm, "randperm", "randperm.generator"),
    **_overloads(_randperm_out, "randperm.out", "randperm.generator_out"),
}  # fmt: skip

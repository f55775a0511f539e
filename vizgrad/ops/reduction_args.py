"""Reduction arguments: which dims, and PyTorch's errors for the rest (``ReduceOpsUtils.h``).

Step 1 of every reduction (see ``reduction_machinery``): ``dim`` may be ``None`` (all
of them), an int, or a tuple of ints; negative dims count from the end; naming a dim
twice is an error (PyTorch's ``make_dim_mask``). A call that fits no overload gets the
message of PyTorch's Python argument parser (``invalid_arguments``), and ``out=`` of an
op with several results must be a tuple of tensors (``check_out_tensors``).
"""

from __future__ import annotations

import builtins
import math
import numbers
import operator

from .. import dtypes as dt
from ..dtypes import dtype as DType
from ..shape import wrap_dim, wrap_dims
from ..tensor import Tensor
from .registry import check_tensor

__all__: list[str] = []


def _python_type_name(value) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def invalid_arguments(fn_name: str, args: tuple, kwargs: dict, signatures: list[str]) -> TypeError:
    """PyTorch's argument parser error when no overload of ``fn_name`` fits the call."""
    got = [_python_type_name(a) for a in args]
    got += [f"{k}={_python_type_name(v)}" for k, v in kwargs.items()]
    options = "\n".join(f" * ({s})" for s in signatures)
    return TypeError(
        f"{fn_name}() received an invalid combination of arguments - got ({', '.join(got)}), "
        f"but expected one of:\n{options}\n"
    )


def is_int(value) -> bool:
    """An int for a ``dim`` argument (Python bools are ints to PyTorch's parser too)."""
    return isinstance(value, numbers.Integral) or (
        isinstance(value, Tensor) and value._dtype.category == dt.INTEGRAL and not value._size
    )


def is_int_sequence(value) -> bool:
    return isinstance(value, tuple | list) and builtins.all(is_int(v) for v in value)


def check_dtype_argument(fn_name: str, dtype) -> None:
    if dtype is not None and not isinstance(dtype, DType):
        raise TypeError(
            f"{fn_name}(): argument 'dtype' must be vizgrad.dtype, not {type(dtype).__name__}"
        )


def check_int_dim(fn_name: str, dim, position: int = 2) -> None:
    """Ops whose ``dim`` is one int (``argmax``, ``sort``…) reject tuples, as PyTorch does."""
    if not is_int(dim):
        raise TypeError(
            f"{fn_name}(): argument 'dim' (position {position}) must be int, not "
            f"{type(dim).__name__}"
        )


def reduction_dims(dim, ndim: int, *, empty_means_all: bool = True) -> tuple[int, ...]:
    """``dim`` (None, an int, or a sequence of ints) as a tuple of wrapped dimensions.

    ``None`` reduces every dimension. An empty list also means every dimension for the
    ``sum`` family (PyTorch's historic ``dim=[]``), but no dimension for ``all``/``any``.
    A zero-dim tensor accepts dim ``0`` and ``-1``, as PyTorch does.
    """
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, tuple | list):
        dims = wrap_dims([operator.index(d) for d in dim], ndim)
        return tuple(range(ndim)) if not dims and empty_means_all else dims
    return (wrap_dim(dim, ndim),)


def given_dims(dim, ndim: int) -> tuple[int, ...] | None:
    """``dim`` as an operator receives it: ints wrapped into a tuple, but ``None`` and an
    empty list kept as they are (both mean every dimension, resolved by ``reduction_dims``
    in the kernel and the formula). Keeping the caller's form lets ``grad_fn._saved_dim``
    show what PyTorch's shows."""
    if dim is None:
        return None
    if isinstance(dim, tuple | list):
        return tuple(wrap_dims([operator.index(d) for d in dim], ndim))
    return (wrap_dim(dim, ndim),)


def numpy_axes(t: Tensor, dims: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy's ``axis=``: a zero-dim tensor's "dim 0" is no axis at all to NumPy."""
    return dims if t._size else ()


def reduced_shape(size: tuple, dims: tuple[int, ...], keepdim: bool) -> tuple[int, ...]:
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(size))
    return tuple(s for i, s in enumerate(size) if i not in dims)


def reduction_factor(t: Tensor, dims: tuple[int, ...]) -> int:
    """How many input elements fold into each output element."""
    return math.prod(t._size[d] for d in dims) if t._size else 1


def check_out_tensors(fn_name: str, out, count: int) -> None:
    """``out=`` of an op with ``count`` results must be a tuple of that many tensors."""
    if count == 1:
        check_tensor(fn_name, out, "out", 2)
        return
    if not (isinstance(out, tuple | list) and len(out) == count):
        raise TypeError(
            f"{fn_name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
        )
    for t in out:
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{fn_name}(): argument 'out' must be tuple of Tensors, not {type(t).__name__}"
            )


def parse_dims(fn_name: str, input, dim, keepdim, signatures, **kwargs):
    """Validate ``dim``/``keepdim`` of a sum-like reduction; return the wrapped dims."""
    if not (dim is None or is_int(dim) or is_int_sequence(dim)) or not isinstance(keepdim, bool):
        raise invalid_arguments(fn_name, (input, dim), {"keepdim": keepdim, **kwargs}, signatures)
    return given_dims(dim, input.dim())

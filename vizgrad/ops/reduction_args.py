"""Which dimensions a reduction folds, and whether it can (``ReduceOpsUtils.h``).

Step 1 of every reduction (see ``reduction_machinery``): ``dim`` may be ``None`` (all
of them), an int, or a tuple of ints; negative dims count from the end; naming a dim
twice is an error (PyTorch's ``make_dim_mask``). The argument parser has already
checked the *types* (an ``int[1]? dim`` is None or a tuple of ints); what the values
mean is checked here, in the kernels, as PyTorch's reduction kernels do.
"""

from __future__ import annotations

import math

from ..shape import wrap_dim, wrap_dims
from ..tensor import Tensor

__all__: list[str] = []


def reduction_dims(dim, ndim: int, *, empty_means_all: bool = True) -> tuple[int, ...]:
    """``dim`` (None, an int, or a sequence of ints) as a tuple of wrapped dimensions.

    ``None`` reduces every dimension. An empty list also means every dimension for the
    ``sum`` family (PyTorch's historic ``dim=[]``), but no dimension for ``all``/``any``.
    A zero-dim tensor accepts dim ``0`` and ``-1``, as PyTorch does.
    """
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, tuple | list):
        dims = wrap_dims(list(dim), ndim)
        return tuple(range(ndim)) if not dims and empty_means_all else dims
    return (wrap_dim(dim, ndim),)


def reduced_shape(size: tuple, dims: tuple[int, ...], keepdim: bool) -> tuple:
    """The shape of a reduction's result: ``size`` without the reduced ``dims`` (size 1
    at each with ``keepdim``); a zero-dim input's is ``()``. What the CPU kernels' NumPy
    reductions return, and so what a meta function says (``vizgrad.ops.meta_reductions``)."""
    if keepdim:
        return tuple(1 if d in dims else s for d, s in enumerate(size))
    return tuple(s for d, s in enumerate(size) if d not in dims)


def numpy_axes(t: Tensor, dims: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy's ``axis=``: a zero-dim tensor's "dim 0" is no axis at all to NumPy."""
    return dims if t._size else ()


def reduction_factor(t: Tensor, dims: tuple[int, ...]) -> int:
    """How many input elements fold into each output element."""
    return math.prod(t._size[d] for d in dims) if t._size else 1


def check_reducible(fn_name: str, input: Tensor, dims, *, full: bool, index_error=False,
                    separator="(): ") -> None:  # fmt: skip
    """``zero_numel_check_dims``: an operator without an identity (``max``, ``kthvalue``…)
    cannot reduce no elements, so an empty reduced dim is an error, not a value."""
    if input.numel() != 0:
        return
    if full:
        message = (f"{fn_name}(): Expected reduction dim to be specified for input.numel() == 0."
                   + ("" if index_error else
                      " Specify the reduction dim with the 'dim' argument."))  # fmt: skip
        raise (IndexError if index_error else RuntimeError)(message)
    for d in dims:
        if input._size and input._size[d] == 0:
            raise IndexError(
                f"{fn_name}{separator}Expected reduction dim {d} to have non-zero size."
            )

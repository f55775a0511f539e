"""The operator registry: every declared overload, by name (``native_functions.yaml``).

PyTorch declares an operator once and generates its Python function
(``torch.add``), its method (``Tensor.add``), its in-place method (``Tensor.add_``)
and its ``out=`` form from that declaration; ``ops.declaration.native_function`` does
the same here and registers each overload in ``OPERATORS``, which is what
``dispatch_trace`` and the views name.
"""

from __future__ import annotations

import numpy as np

from ..dispatcher import Operator
from ..dtypes import CPP_TYPE_NAMES
from ..dtypes import dtype as DType
from ..meta_device import check_copy_device
from ..promotion import check_can_cast
from ..tensor import META_BIT, Tensor
from .iterator import resize_output

__all__ = ["OPERATORS", "check_out_dtype", "write_to_out"]

OPERATORS: dict[str, Operator] = {}


def check_out_dtype(out: Tensor, expected: DType) -> None:
    """An ``out=`` tensor that must already have the ``expected`` dtype: no cast allowed
    (``argmax``'s indices, ``sort``'s values, a ``sum`` given both ``dtype=`` and ``out=``)."""
    if out._dtype is not expected:
        raise RuntimeError(
            f"Expected out tensor to have dtype {CPP_TYPE_NAMES[expected.name]}, but got "
            f"{CPP_TYPE_NAMES[out._dtype.name]} instead"
        )


def write_to_out(result: Tensor, out: Tensor, *, check_cast: bool = True) -> Tensor:
    """The ``out=`` contract for an op that computed a fresh ``result``.

    Check that the result's dtype may be cast to ``out``'s, resize ``out`` (warning if
    it had elements of another shape), then copy. Ops whose kernels write straight
    into the output use ``TensorIterator`` instead, which makes the same checks.
    """

    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if check_cast:
        check_can_cast(result._dtype, out._dtype)
    # (No internal-overlap check: PyTorch's reductions write into an expanded out= too.)
    resize_output(out, result._size)
    if (result._key_set | out._key_set) & META_BIT:  # no data to copy: only the devices
        check_copy_device(result.device, out)  # must agree (PyTorch's ``_safe_copy_out``)
        return out
    np.copyto(out._array, result._array, casting="unsafe")
    return out

"""The operator registry: every declared overload, by name (``native_functions.yaml``).

PyTorch declares an operator once and generates its Python function
(``torch.add``), its method (``Tensor.add``), its in-place method (``Tensor.add_``)
and its ``out=`` form from that declaration; ``ops.declaration.native_function`` does
the same here and registers each overload in ``OPERATORS``. Families not yet
declared that way register their ``Operator`` objects directly with ``declare``.
"""

from __future__ import annotations

import numpy as np

from ..dispatcher import FUNCTIONAL, OUT, Operator
from ..dtypes import CPP_TYPE_NAMES
from ..dtypes import dtype as DType
from ..tensor import Tensor

__all__ = [
    "OPERATORS",
    "declare",
    "declare_with_out",
    "check_out_dtype",
    "write_to_out",
    "bind_method",
    "check_tensor",
    "parse_params",
]

OPERATORS: dict[str, Operator] = {}


def declare(schema: str, variant: str, kernel, derivative=None) -> Operator:
    """Register one overload by its schema; the registry is what ``dispatch_trace`` names."""
    op = Operator(schema, variant, kernel, derivative)
    if op.qualname in OPERATORS:
        raise RuntimeError(f"operator {op.qualname} declared twice")
    OPERATORS[op.qualname] = op
    return op


def bind_method(name: str, method) -> None:
    """Make ``method`` available as ``Tensor.<name>``.

    Legacy: families not yet declared with ``native_function`` bind their hand-written
    methods here, replacing what a partial declaration made. It goes when they do.
    """
    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    setattr(Tensor, name, method)


def parse_params(schema: str) -> list[str]:
    """The positional parameter names of a schema: ``add.Tensor(Tensor self, ...)`` -> ``[self, other]``."""
    params = schema.split("(", 1)[1].rsplit(") ->", 1)[0]
    names = []
    for param in params.split(","):
        param = param.strip()
        if param == "*":
            break
        if param:
            names.append(param.split("=")[0].split()[-1])
    return names


def check_tensor(fn_name: str, value, name: str, position: int) -> None:
    """PyTorch's argument-parser error for a non-tensor where a tensor is expected."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{fn_name}(): argument '{name}' (position {position}) must be Tensor, "
            f"not {type(value).__name__}"
        )


def _inplace_schema(schema: str) -> str:
    name, rest = schema.split("(", 1)
    base, _, overload = name.partition(".")
    params, _ = rest.rsplit(") ->", 1)
    params = params.replace("Tensor self", "Tensor(a!) self", 1)
    return f"{base}_{'.' + overload if overload else ''}({params}) -> Tensor(a!)"


def _out_schema(schema: str) -> str:
    name, rest = schema.split("(", 1)
    base, _, overload = name.partition(".")
    params, _ = rest.rsplit(") ->", 1)
    out_overload = "out" if overload in ("", "Tensor") else f"{overload}_out"
    separator = ", " if "*" in params else ", *, "
    return f"{base}.{out_overload}({params}{separator}Tensor(a!) out) -> Tensor(a!)"


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
    from ..promotion import check_can_cast
    from .iterator import resize_output

    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if check_cast:
        check_can_cast(result._dtype, out._dtype)
    # (No internal-overlap check: PyTorch's reductions write into an expanded out= too.)
    resize_output(out, result._size)
    np.copyto(out._array, result._array, casting="unsafe")
    return out


def declare_with_out(schema: str, kernel, derivative=None, *, check_cast: bool = True):
    """Declare a functional overload and its ``out=`` twin around one kernel.

    Returns ``(functional_op, out_op)``; call ``out_op(*args, out=t, **kwargs)``.
    """
    functional_op = declare(schema, FUNCTIONAL, kernel, derivative)

    def out_kernel(*args, out, **kwargs):
        return write_to_out(kernel(*args, **kwargs), out, check_cast=check_cast)

    return functional_op, declare(_out_schema(schema), OUT, out_kernel)

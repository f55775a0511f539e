"""The operator registry: one declaration, every variant (``native_functions.yaml``).

PyTorch declares an operator once and generates its Python function
(``torch.add``), its method (``Tensor.add``), its in-place method (``Tensor.add_``)
and its ``out=`` form from that declaration. ``pointwise`` does the same for
elementwise ops: it builds the three ``Operator`` overloads (functional, in-place,
out) around one NumPy kernel and one ``TensorIterator`` set-up, and binds the
variants. Other families declare their ``Operator`` objects directly with ``declare``.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..dispatcher import FUNCTIONAL, INPLACE, OUT, Operator
from ..tensor import Tensor
from .iterator import TensorIterator

__all__ = [
    "OPERATORS",
    "declare",
    "declare_with_out",
    "write_to_out",
    "bind_method",
    "pointwise",
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
    """Make ``method`` available as ``Tensor.<name>``."""
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


_OPERAND_TYPES = (Tensor, numbers.Number)


def _check_operand(fn_name: str, value, name: str, position: int) -> None:
    # A Tensor or a Python number (bools are numbers too); anything else is a TypeError.
    if not isinstance(value, _OPERAND_TYPES):
        raise TypeError(
            f"{fn_name}(): argument '{name}' (position {position}) must be Tensor or Number, "
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


def pointwise(
    schema: str,
    kernel,
    *,
    options: dict | None = None,
    promote_integer_inputs_to_float: bool = False,
    result_dtype=None,
    compute_dtype=None,
    inplace: bool = True,
    out: bool = True,
    method: bool = True,
    check=None,
    derivative=None,
    doc: str = "",
):
    """Declare an elementwise operator and bind its variants; return the function.

    ``kernel(out_array, *input_arrays, **options)`` computes with NumPy.
    ``options`` are keyword-only arguments with defaults (``{"alpha": 1}``).
    ``check(*operands, **options)`` may reject bad input before any work.
    """
    defaults = options or {}
    names = parse_params(schema)
    fn_name = schema.split("(", 1)[0].split(".")[0]
    config = {
        "promote_integer_inputs_to_float": promote_integer_inputs_to_float,
        "result_dtype": result_dtype,
        "compute_dtype": compute_dtype,
    }

    def prepare(operands, opts):
        if len(operands) != len(names):
            raise TypeError(
                f"{fn_name}() takes {len(names)} positional arguments but {len(operands)} were given"
            )
        check_tensor(fn_name, operands[0], "input", 1)
        for position in range(1, len(operands)):
            _check_operand(fn_name, operands[position], names[position], position + 1)
        merged = defaults
        if opts:
            unknown = set(opts) - set(defaults)
            if unknown:
                raise TypeError(f"{fn_name}() got an unexpected keyword argument '{unknown.pop()}'")
            merged = {**defaults, **opts}
        if check is not None:  # checks run on every call, with or without options
            check(*operands, **merged)
        return merged

    def iterator_config(opts):
        # ``div(a, b, rounding_mode=None)`` promotes integers to float; the rounded modes
        # don't: the option may be a function of the call's options.
        promote = config["promote_integer_inputs_to_float"]
        if callable(promote):
            return {**config, "promote_integer_inputs_to_float": promote(**opts)}
        return config

    def functional_kernel(*operands, **opts):
        return TensorIterator(fn_name, operands, **iterator_config(opts)).run(kernel, **opts)

    def inplace_kernel(*operands, **opts):
        it = TensorIterator(fn_name + "_", operands, out=operands[0], inplace=True,
                            **iterator_config(opts))  # fmt: skip
        return it.run(kernel, **opts)

    def out_kernel(*operands, out, **opts):
        it = TensorIterator(fn_name, operands, out=out, **iterator_config(opts))
        return it.run(kernel, **opts)

    functional_op = declare(schema, FUNCTIONAL, functional_kernel, derivative)
    # In-place variants share the formula (and the node name) of the functional op.
    inplace_op = (
        declare(_inplace_schema(schema), INPLACE, inplace_kernel, derivative) if inplace else None
    )
    out_op = declare(_out_schema(schema), OUT, out_kernel) if out else None

    def function(*operands, out=None, **opts):
        opts = prepare(operands, opts)
        if out is None:
            return functional_op(*operands, **opts)
        if out_op is None:
            raise TypeError(f"{fn_name}() got an unexpected keyword argument 'out'")
        check_tensor(fn_name, out, "out", len(names) + 1)
        return out_op(*operands, out=out, **opts)

    function.__name__ = function.__qualname__ = fn_name
    function.__doc__ = doc or f"``torch.{fn_name}``: ``{schema}``"
    function.overloads = {"functional": functional_op, "inplace": inplace_op, "out": out_op}

    if method:

        def tensor_method(self, *others, **opts):
            return function(self, *others, **opts)

        tensor_method.__doc__ = function.__doc__
        bind_method(fn_name, tensor_method)
    if inplace_op is not None:

        def tensor_inplace_method(self, *others, **opts):
            opts = prepare((self, *others), opts)
            return inplace_op(self, *others, **opts)

        tensor_inplace_method.__doc__ = f"In-place ``{fn_name}``: ``{inplace_op.schema}``"
        bind_method(fn_name + "_", tensor_inplace_method)
        function.inplace = tensor_inplace_method  # for ops whose public method picks an overload
    return function


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

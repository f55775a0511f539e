"""Dtype questions as operators: ``promote_types``, ``can_cast``, ``result_type``
(``TypeProperties.cpp``).

They take dtypes and return a dtype or a bool, touching no tensor; declared from their
schemas, their arguments are parsed as any operator's, so a wrong argument is PyTorch's
``TypeError`` (``promote_types(): argument 'type2' (position 2) must be torch.dtype, not
str``). The rules themselves live below the operators, in ``vizgrad.promotion``.
"""

from __future__ import annotations

from .. import promotion
from ..dispatcher import NONDIFFERENTIABLE
from .declaration import native_function

__all__ = ["promote_types", "can_cast", "result_type"]


promote_types = native_function(
    "promote_types(ScalarType type1, ScalarType type2) -> ScalarType",
    kernel=promotion.promote_types,
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.promote_types``: the smallest dtype that holds both dtypes' values.",
)

can_cast = native_function(
    "can_cast(ScalarType from_, ScalarType to) -> bool",
    kernel=promotion.can_cast,
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.can_cast``: may a value of dtype ``from_`` be cast to ``to`` by type "
    "promotion (no category goes down: float to int is refused)?",
)

# Four overloads, of two operands each: ``torch.result_type`` takes no more (three
# operands are PyTorch's ``TypeError`` listing these), by position or by their names.
result_type = native_function(
    "result_type.Tensor(Tensor tensor, Tensor other) -> ScalarType",
    "result_type.Scalar(Tensor tensor, Scalar other) -> ScalarType",
    "result_type.Scalar_Tensor(Scalar scalar, Tensor tensor) -> ScalarType",
    "result_type.Scalar_Scalar(Scalar scalar1, Scalar scalar2) -> ScalarType",
    kernels={
        "result_type.Tensor": lambda tensor, other: promotion.result_type(tensor, other),
        "result_type.Scalar": lambda tensor, other: promotion.result_type(tensor, other),
        "result_type.Scalar_Tensor": lambda scalar, tensor: promotion.result_type(scalar, tensor),
        "result_type.Scalar_Scalar": lambda scalar1, scalar2: promotion.result_type(
            scalar1, scalar2
        ),
    },  # fmt: skip
    kind=NONDIFFERENTIABLE,
    variants="function",
    doc="``torch.result_type``: the dtype an arithmetic operation on two operands (tensors "
    "or numbers) gives, by the priorities of ``vizgrad.promotion``.",
)

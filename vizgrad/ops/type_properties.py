"""Dtype questions as operators: ``promote_types``, ``can_cast`` (``TypeProperties.cpp``).

They take dtypes and return a dtype or a bool, touching no tensor; declared from their
schemas, their arguments are parsed as any operator's, so a wrong argument is PyTorch's
``TypeError`` (``promote_types(): argument 'type2' (position 2) must be torch.dtype, not
str``). The rules themselves live below the operators, in ``vizgrad.promotion``.
"""

from __future__ import annotations

from .. import promotion
from ..dispatcher import NONDIFFERENTIABLE
from .declaration import native_function

__all__ = ["promote_types", "can_cast"]


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

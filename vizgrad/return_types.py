"""Named-tuple results of operators that return several tensors (``torch.return_types``).

``vizgrad.max(t, dim=1)`` returns both the largest values and where they are. PyTorch
returns them as a *structseq*: a tuple (so ``values, indices = t.max(1)`` unpacks it)
whose fields also have names (``result.values``, ``result.indices``). Each operator has
its own type, named after it (``torch.return_types.max``), and an ``_out`` twin for
its ``out=`` form (``torch.return_types.max_out``).
"""

from __future__ import annotations

__all__ = [
    "aminmax",
    "aminmax_out",
    "cummax",
    "cummax_out",
    "cummin",
    "cummin_out",
    "frexp",
    "frexp_out",
    "histogram",
    "histogram_out",
    "kthvalue",
    "kthvalue_out",
    "max",
    "max_out",
    "median",
    "median_out",
    "min",
    "min_out",
    "mode",
    "mode_out",
    "nanmedian",
    "nanmedian_out",
    "sort",
    "sort_out",
    "topk",
    "topk_out",
]


class _StructSeq(tuple):
    """A tuple whose items also have names: the base of every return type.

    Built from one sequence, as PyTorch's are: ``return_types.max((values, indices))``.
    """

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __new__(cls, sequence):
        items = tuple(sequence)
        if len(items) != len(cls._fields):
            raise TypeError(
                f"vizgrad.return_types.{cls.__name__}() takes a {len(cls._fields)}-sequence "
                f"({len(items)}-sequence given)"
            )
        return super().__new__(cls, items)

    def __repr__(self) -> str:
        fields = zip(self._fields, self, strict=True)
        body = ",\n".join(f"{name}={value!r}" for name, value in fields)
        return f"vizgrad.return_types.{type(self).__name__}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _return_type(name: str, fields: tuple[str, ...]) -> type:
    """A new structseq type ``name`` whose items are called ``fields``."""
    namespace = {"__slots__": (), "_fields": fields, "__module__": __name__,
                 "n_fields": len(fields), "n_sequence_fields": len(fields)}  # fmt: skip
    for position, field in enumerate(fields):
        namespace[field] = property(lambda self, i=position: self[i], doc=f"Item {position}.")
    cls = type(name, (_StructSeq,), namespace)
    cls.__qualname__ = name
    return cls


_VALUES_INDICES = ("values", "indices")

max = _return_type("max", _VALUES_INDICES)  # noqa: A001 - PyTorch's name
max_out = _return_type("max_out", _VALUES_INDICES)
min = _return_type("min", _VALUES_INDICES)  # noqa: A001 - PyTorch's name
min_out = _return_type("min_out", _VALUES_INDICES)
sort = _return_type("sort", _VALUES_INDICES)
sort_out = _return_type("sort_out", _VALUES_INDICES)
topk = _return_type("topk", _VALUES_INDICES)
topk_out = _return_type("topk_out", _VALUES_INDICES)
median = _return_type("median", _VALUES_INDICES)
median_out = _return_type("median_out", _VALUES_INDICES)
nanmedian = _return_type("nanmedian", _VALUES_INDICES)
nanmedian_out = _return_type("nanmedian_out", _VALUES_INDICES)
kthvalue = _return_type("kthvalue", _VALUES_INDICES)
kthvalue_out = _return_type("kthvalue_out", _VALUES_INDICES)
mode = _return_type("mode", _VALUES_INDICES)
mode_out = _return_type("mode_out", _VALUES_INDICES)
aminmax = _return_type("aminmax", ("min", "max"))
aminmax_out = _return_type("aminmax_out", ("min", "max"))
frexp = _return_type("frexp", ("mantissa", "exponent"))
frexp_out = _return_type("frexp_out", ("mantissa", "exponent"))
cummax = _return_type("cummax", _VALUES_INDICES)
cummax_out = _return_type("cummax_out", _VALUES_INDICES)
cummin = _return_type("cummin", _VALUES_INDICES)
cummin_out = _return_type("cummin_out", _VALUES_INDICES)
histogram = _return_type("histogram", ("hist", "bin_edges"))
histogram_out = _return_type("histogram_out", ("hist", "bin_edges"))
# ``nll_loss_forward`` names its results too; PyTorch binds it to no Python function, so
# only the declaration meets these types (``torch.return_types`` has none).
nll_loss_forward = _return_type("nll_loss_forward", ("output", "total_weight"))
nll_loss2d_forward = _return_type("nll_loss2d_forward", ("output", "total_weight"))

"""Named-tuple results of operators that return several tensors (``torch.return_types``).

``vizgrad.max(t, dim=1)`` returns both the largest values and where they are. PyTorch
returns them as a *structseq*: a tuple (so ``values, indices = t.max(1)`` unpacks it)
whose fields also have names (``result.values``, ``result.indices``). Each operator has
its own type, named after it (``torch.return_types.max``), and an ``_out`` twin for
its ``out=`` form (``torch.return_types.max_out``).
"""

from __future__ import annotations

__all__ = [
    "_linalg_det",
    "_linalg_det_out",
    "_linalg_eigh",
    "_linalg_eigh_out",
    "_linalg_slogdet",
    "_linalg_slogdet_out",
    "_linalg_solve_ex",
    "_linalg_solve_ex_out",
    "_linalg_svd",
    "_linalg_svd_out",
    "_lu_with_info",
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
    "histogramdd",
    "kthvalue",
    "kthvalue_out",
    "linalg_cholesky_ex",
    "linalg_cholesky_ex_out",
    "linalg_eig",
    "linalg_eig_out",
    "linalg_eigh",
    "linalg_eigh_out",
    "linalg_inv_ex",
    "linalg_inv_ex_out",
    "linalg_lstsq",
    "linalg_lstsq_out",
    "linalg_lu",
    "linalg_lu_factor",
    "linalg_lu_factor_ex",
    "linalg_lu_factor_ex_out",
    "linalg_lu_factor_out",
    "linalg_lu_out",
    "linalg_qr",
    "linalg_qr_out",
    "linalg_slogdet",
    "linalg_slogdet_out",
    "linalg_solve_ex",
    "linalg_solve_ex_out",
    "linalg_svd",
    "linalg_svd_out",
    "lu_unpack",
    "lu_unpack_out",
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
    "qr",
    "qr_out",
    "slogdet",
    "slogdet_out",
    "sort",
    "sort_out",
    "svd",
    "svd_out",
    "topk",
    "topk_out",
    "triangular_solve",
    "triangular_solve_out",
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
histogramdd = _return_type("histogramdd", ("hist", "bin_edges"))
# The factorizations (``torch.linalg``'s and the operators under them).
_linalg_det = _return_type("_linalg_det", ("result", "LU", "pivots"))
_linalg_det_out = _return_type("_linalg_det_out", ("result", "LU", "pivots"))
_linalg_slogdet = _return_type("_linalg_slogdet", ("sign", "logabsdet", "LU", "pivots"))
_linalg_slogdet_out = _return_type("_linalg_slogdet_out", ("sign", "logabsdet", "LU", "pivots"))
_linalg_solve_ex = _return_type("_linalg_solve_ex", ("result", "LU", "pivots", "info"))
_lu_with_info = _return_type("_lu_with_info", ("LU", "pivots", "info"))
_linalg_solve_ex_out = _return_type("_linalg_solve_ex_out", ("result", "LU", "pivots", "info"))
linalg_cholesky_ex = _return_type("linalg_cholesky_ex", ("L", "info"))
linalg_cholesky_ex_out = _return_type("linalg_cholesky_ex_out", ("L", "info"))
linalg_inv_ex = _return_type("linalg_inv_ex", ("inverse", "info"))
linalg_inv_ex_out = _return_type("linalg_inv_ex_out", ("inverse", "info"))
linalg_lu = _return_type("linalg_lu", ("P", "L", "U"))
linalg_lu_out = _return_type("linalg_lu_out", ("P", "L", "U"))
linalg_lu_factor = _return_type("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_out = _return_type("linalg_lu_factor_out", ("LU", "pivots"))
linalg_lu_factor_ex = _return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_lu_factor_ex_out = _return_type("linalg_lu_factor_ex_out", ("LU", "pivots", "info"))
linalg_slogdet = _return_type("linalg_slogdet", ("sign", "logabsdet"))
linalg_slogdet_out = _return_type("linalg_slogdet_out", ("sign", "logabsdet"))
linalg_solve_ex = _return_type("linalg_solve_ex", ("result", "info"))
linalg_solve_ex_out = _return_type("linalg_solve_ex_out", ("result", "info"))
lu_unpack = _return_type("lu_unpack", ("P", "L", "U"))
lu_unpack_out = _return_type("lu_unpack_out", ("P", "L", "U"))
slogdet = _return_type("slogdet", ("sign", "logabsdet"))
slogdet_out = _return_type("slogdet_out", ("sign", "logabsdet"))
triangular_solve = _return_type("triangular_solve", ("solution", "cloned_coefficient"))
triangular_solve_out = _return_type("triangular_solve_out", ("solution", "cloned_coefficient"))
# The decompositions (``vizgrad/ops/decompositions.py``).
_linalg_svd = _return_type("_linalg_svd", ("U", "S", "Vh"))
_linalg_svd_out = _return_type("_linalg_svd_out", ("U", "S", "Vh"))
linalg_svd = _return_type("linalg_svd", ("U", "S", "Vh"))
linalg_svd_out = _return_type("linalg_svd_out", ("U", "S", "Vh"))
svd = _return_type("svd", ("U", "S", "V"))
svd_out = _return_type("svd_out", ("U", "S", "V"))
_linalg_eigh = _return_type("_linalg_eigh", ("eigenvalues", "eigenvectors"))
_linalg_eigh_out = _return_type("_linalg_eigh_out", ("eigenvalues", "eigenvectors"))
linalg_eigh = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_eigh_out = _return_type("linalg_eigh_out", ("eigenvalues", "eigenvectors"))
linalg_eig = _return_type("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_eig_out = _return_type("linalg_eig_out", ("eigenvalues", "eigenvectors"))
linalg_qr = _return_type("linalg_qr", ("Q", "R"))
linalg_qr_out = _return_type("linalg_qr_out", ("Q", "R"))
qr = _return_type("qr", ("Q", "R"))
qr_out = _return_type("qr_out", ("Q", "R"))
# Least squares (``vizgrad/ops/least_squares.py``).
_LSTSQ = ("solution", "residuals", "rank", "singular_values")
linalg_lstsq = _return_type("linalg_lstsq", _LSTSQ)
linalg_lstsq_out = _return_type("linalg_lstsq_out", _LSTSQ)
# ``nll_loss_forward`` names its results too; PyTorch binds it to no Python function, so
# only the declaration meets these types (``torch.return_types`` has none).
nll_loss_forward = _return_type("nll_loss_forward", ("output", "total_weight"))
nll_loss2d_forward = _return_type("nll_loss2d_forward", ("output", "total_weight"))

"""``torch.linalg``: linear algebra under PyTorch's NumPy-like names (``linalg.det``,
``linalg.svd``…). Each name is an operator declared in ``vizgrad/ops`` as ATen names it
(``linalg_det``); this module only gives it its ``torch.linalg`` name."""

from __future__ import annotations

from .ops.decompositions import linalg_eig as eig  # noqa: F401
from .ops.decompositions import linalg_eigh as eigh  # noqa: F401
from .ops.decompositions import linalg_eigvals as eigvals  # noqa: F401
from .ops.decompositions import linalg_eigvalsh as eigvalsh  # noqa: F401
from .ops.decompositions import linalg_qr as qr  # noqa: F401
from .ops.decompositions import linalg_svd as svd  # noqa: F401
from .ops.decompositions import linalg_svdvals as svdvals  # noqa: F401
from .ops.factorizations import LinAlgError  # noqa: F401
from .ops.factorizations import linalg_cholesky as cholesky  # noqa: F401
from .ops.factorizations import linalg_cholesky_ex as cholesky_ex  # noqa: F401
from .ops.factorizations import linalg_det as det  # noqa: F401
from .ops.factorizations import linalg_inv as inv  # noqa: F401
from .ops.factorizations import linalg_inv_ex as inv_ex  # noqa: F401
from .ops.factorizations import linalg_lu as lu  # noqa: F401
from .ops.factorizations import linalg_lu_factor as lu_factor  # noqa: F401
from .ops.factorizations import linalg_lu_factor_ex as lu_factor_ex  # noqa: F401
from .ops.factorizations import linalg_lu_solve as lu_solve  # noqa: F401
from .ops.factorizations import linalg_slogdet as slogdet  # noqa: F401
from .ops.factorizations import linalg_solve as solve  # noqa: F401
from .ops.factorizations import linalg_solve_ex as solve_ex  # noqa: F401
from .ops.factorizations import linalg_solve_triangular as solve_triangular  # noqa: F401
from .ops.least_squares import linalg_lstsq as lstsq  # noqa: F401
from .ops.least_squares import linalg_matrix_rank as matrix_rank  # noqa: F401
from .ops.least_squares import linalg_pinv as pinv  # noqa: F401
from .ops.matrix_products import linalg_cross as cross  # noqa: F401
from .ops.matrix_products import linalg_matrix_exp as matrix_exp  # noqa: F401
from .ops.matrix_products import linalg_matrix_power as matrix_power  # noqa: F401
from .ops.matrix_products import linalg_multi_dot as multi_dot  # noqa: F401
from .ops.matrix_products import linalg_vecdot as vecdot  # noqa: F401
from .ops.norms import linalg_cond as cond  # noqa: F401
from .ops.norms import linalg_matrix_norm as matrix_norm  # noqa: F401
from .ops.norms import linalg_norm as norm  # noqa: F401
from .ops.norms import linalg_vector_norm as vector_norm  # noqa: F401

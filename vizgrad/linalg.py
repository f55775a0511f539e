"""``torch.linalg``: linear algebra under PyTorch's NumPy-like names (``linalg.det``,
``linalg.svd``…). Each name is an operator declared in ``vizgrad/ops`` as ATen names it
(``linalg_det``); this module only gives it its ``torch.linalg`` name."""

from __future__ import annotations

# --- products and norms (vizgrad/ops/matrix_products.py, vizgrad/ops/norms.py) ---
from .ops.matrix_products import linalg_cross as cross  # noqa: E402, F401
from .ops.matrix_products import linalg_matrix_exp as matrix_exp  # noqa: E402, F401
from .ops.matrix_products import linalg_matrix_power as matrix_power  # noqa: E402, F401
from .ops.matrix_products import linalg_multi_dot as multi_dot  # noqa: E402, F401
from .ops.matrix_products import linalg_vecdot as vecdot  # noqa: E402, F401

# --- end products and norms ---

# --- factorizations (vizgrad/ops/factorizations.py) ---
# isort: split
from .ops.factorizations import LinAlgError  # noqa: E402, F401
from .ops.factorizations import linalg_cholesky as cholesky  # noqa: E402, F401
from .ops.factorizations import linalg_cholesky_ex as cholesky_ex  # noqa: E402, F401
from .ops.factorizations import linalg_det as det  # noqa: E402, F401
from .ops.factorizations import linalg_inv as inv  # noqa: E402, F401
from .ops.factorizations import linalg_inv_ex as inv_ex  # noqa: E402, F401
from .ops.factorizations import linalg_lu as lu  # noqa: E402, F401
from .ops.factorizations import linalg_lu_factor as lu_factor  # noqa: E402, F401
from .ops.factorizations import linalg_lu_factor_ex as lu_factor_ex  # noqa: E402, F401
from .ops.factorizations import linalg_lu_solve as lu_solve  # noqa: E402, F401
from .ops.factorizations import linalg_slogdet as slogdet  # noqa: E402, F401
from .ops.factorizations import linalg_solve as solve  # noqa: E402, F401
from .ops.factorizations import linalg_solve_ex as solve_ex  # noqa: E402, F401
from .ops.factorizations import linalg_solve_triangular as solve_triangular  # noqa: E402, F401
# isort: split
# --- end factorizations ---

# --- decompositions (vizgrad/ops/decompositions.py) ---
# --- end decompositions ---

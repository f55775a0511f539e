"""``torch.linalg``: linear algebra under PyTorch's NumPy-like names (``linalg.det``,
``linalg.svd``…). Each name is an operator declared in ``vizgrad/ops`` as ATen names it
(``linalg_det``); this module only gives it its ``torch.linalg`` name."""

from __future__ import annotations

# --- products and norms (vizgrad/ops/matrix_products.py, vizgrad/ops/norms.py) ---
# --- end products and norms ---

# --- factorizations (vizgrad/ops/factorizations.py) ---
# --- end factorizations ---

# --- decompositions (vizgrad/ops/decompositions.py) ---
# --- end decompositions ---

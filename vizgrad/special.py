"""``torch.special``: special functions under SciPy's names (``special.expit``,
``special.gammaln``…), each an operator declared in ``vizgrad/ops``."""

from __future__ import annotations

"""``torch.special``: special functions under SciPy's names (``special.expit``,
``special.gammaln``…), each an operator declared in ``vizgrad/ops``.

The operators are named as ATen names them (``special_expit``, which the dispatch trace
shows calling ``sigmoid``); this module only gives them their short names.
"""

from __future__ import annotations

from .ops.special_functions import special_digamma as digamma
from .ops.special_functions import special_entr as entr
from .ops.special_functions import special_erf as erf
from .ops.special_functions import special_erfc as erfc
from .ops.special_functions import special_erfcx as erfcx
from .ops.special_functions import special_erfinv as erfinv
from .ops.special_functions import special_exp2 as exp2
from .ops.special_functions import special_expit as expit
from .ops.special_functions import special_expm1 as expm1
from .ops.special_functions import special_gammainc as gammainc
from .ops.special_functions import special_gammaincc as gammaincc
from .ops.special_functions import special_gammaln as gammaln
from .ops.special_functions import special_i0 as i0
from .ops.special_functions import special_i0e as i0e
from .ops.special_functions import special_i1 as i1
from .ops.special_functions import special_i1e as i1e
from .ops.special_functions import special_log1p as log1p
from .ops.special_functions import special_log_ndtr as log_ndtr
from .ops.special_functions import special_log_softmax as log_softmax
from .ops.special_functions import special_logit as logit
from .ops.special_functions import special_logsumexp as logsumexp
from .ops.special_functions import special_multigammaln as multigammaln
from .ops.special_functions import special_ndtr as ndtr
from .ops.special_functions import special_ndtri as ndtri
from .ops.special_functions import special_polygamma as polygamma
from .ops.special_functions import special_psi as psi
from .ops.special_functions import special_round as round  # noqa: A004 - PyTorch's name
from .ops.special_functions import special_sinc as sinc
from .ops.special_functions import special_softmax as softmax
from .ops.special_functions import special_xlog1py as xlog1py
from .ops.special_functions import special_xlogy as xlogy
from .ops.special_functions import special_zeta as zeta

__all__ = [
    "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
    "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr",
    "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi",
    "round", "sinc", "softmax", "xlog1py", "xlogy", "zeta",
]  # fmt: skip

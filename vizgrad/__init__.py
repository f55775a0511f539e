"""vizgrad: a strided tensor and autograd engine in Python on NumPy, built to be watched.

The names follow PyTorch: ``vizgrad.tensor``, ``vizgrad.float32``, ``Tensor.stride()``…
The engine emits events (``vizgrad.events``) that the views in ``vizgrad.widgets``
draw; it never imports Jupyter itself.
"""

# The constants ``import torch`` gives (``torch.inf``, ``torch.nan``, ``torch.pi``, ``torch.e``).
from math import e, inf, nan, pi

from . import accelerator, autograd, backends, cuda, events, return_types
from .device import device, get_default_device, layout, set_default_device, sparse_coo, strided
from .dispatch_trace_log import dispatch_trace
from .dtypes import ALIASES as _ALIASES
from .dtypes import (
    bool,
    complex64,
    complex128,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from .functional import broadcast_shapes
from .generator import *  # noqa: F403
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .legacy_constructors import *  # noqa: F403
from .ops import apply_map as _apply_map  # binds Tensor.apply_, map_ and map2_
from .ops import python_operators as _python_operators  # binds a + b, a @ b… onto Tensor
from .ops.activation import *  # noqa: F403
from .ops.advanced_indexing import *  # noqa: F403
from .ops.arithmetic import *  # noqa: F403
from .ops.basic_indexing import *  # noqa: F403
from .ops.comparison import *  # noqa: F403
from .ops.complex_views import *  # noqa: F403
from .ops.convolution import *  # noqa: F403
from .ops.copy import *  # noqa: F403
from .ops.creation import *  # noqa: F403
from .ops.decompositions import *  # noqa: F403
from .ops.detach import *  # noqa: F403
from .ops.distance import *  # noqa: F403
from .ops.dropout import *  # noqa: F403
from .ops.einsum import *  # noqa: F403
from .ops.embedding import *  # noqa: F403
from .ops.factorizations import *  # noqa: F403
from .ops.fill import *  # noqa: F403
from .ops.flat_indexing import *  # noqa: F403
from .ops.float_bits import *  # noqa: F403
from .ops.histograms import *  # noqa: F403
from .ops.index_ops import *  # noqa: F403
from .ops.indexing_common import *  # noqa: F403
from .ops.integer_math import *  # noqa: F403
from .ops.joining import *  # noqa: F403
from .ops.least_squares import *  # noqa: F403
from .ops.linalg import *  # noqa: F403
from .ops.linear import *  # noqa: F403
from .ops.logical import *  # noqa: F403
from .ops.logical_reductions import *  # noqa: F403
from .ops.loss import *  # noqa: F403
from .ops.masked import *  # noqa: F403
from .ops.matrix_products import *  # noqa: F403
from .ops.min_max import *  # noqa: F403
from .ops.nonzero import *  # noqa: F403
from .ops.normalization import *  # noqa: F403
from .ops.norms import *  # noqa: F403
from .ops.padding import *  # noqa: F403
from .ops.parts import *  # noqa: F403
from .ops.permutations import *  # noqa: F403
from .ops.pooling import *  # noqa: F403
from .ops.ranges import *  # noqa: F403
from .ops.reduction_machinery import *  # noqa: F403
from .ops.reductions import *  # noqa: F403
from .ops.resize import *  # noqa: F403
from .ops.rnn import *  # noqa: F403
from .ops.sampling import *  # noqa: F403
from .ops.scan import *  # noqa: F403
from .ops.scatter_gather import *  # noqa: F403
from .ops.scatter_views import *  # noqa: F403
from .ops.searching import *  # noqa: F403
from .ops.shape_composites import *  # noqa: F403
from .ops.shape_views import *  # noqa: F403
from .ops.size_one_dims import *  # noqa: F403
from .ops.sorting import *  # noqa: F403
from .ops.sparse_coo import *  # noqa: F403
from .ops.special_functions import *  # noqa: F403
from .ops.spectral import *  # noqa: F403
from .ops.splitting import *  # noqa: F403
from .ops.statistics import *  # noqa: F403
from .ops.tensor_queries import *  # noqa: F403
from .ops.type_properties import *  # noqa: F403
from .ops.unary import *  # noqa: F403
from .ops.variance import *  # noqa: F403
from .printing import get_printoptions, printoptions, set_printoptions
from .shape import Size
from .storage import Storage
from .tensor import Tensor
from .typed_storage import *  # noqa: F403  (TypedStorage, UntypedStorage, FloatStorage…)

# The layers above the engine, as ``import torch`` makes ``torch.nn`` and ``torch.optim``.
from . import datasets, nn, optim, utils  # isort: skip
from . import fft, linalg, sparse, special, testing  # isort: skip  (namespaces of operators)
from . import jit  # isort: skip  (traces record nn modules' forwards)
from . import fx  # isort: skip  (traces nn modules: after nn)
from .serialization import load, save  # isort: skip  (rebuilds nn.Parameter)

# Every operator is declared (``nn.functional`` declares a few): give the ones that run on
# the meta device their Meta kernels.
from .ops import meta_kernels as _meta_kernels  # isort: skip

globals().update(_ALIASES)  # vizgrad.float, vizgrad.long, vizgrad.double…

__version__ = "0.1.0"

# ``x[:, torch.newaxis]`` is NumPy's spelling of ``x[:, None]``.
newaxis = None

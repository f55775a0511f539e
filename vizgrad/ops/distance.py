"""Distances between vectors: ``dist``, ``cosine_similarity`` and ``pairwise_distance`` (``Distance.cpp``).

``dist(x1, x2, p)`` is the ``p``-norm of ``x1 - x2`` over all elements (after
broadcasting), one number; it has its own node, ``DistBackward0``, whose gradient is the
norm's, with opposite signs for the two inputs.

The other two are CompositeImplicitAutograd in PyTorch, built from other operators:

* ``cosine_similarity(x1, x2, dim)`` is ``sum((x1 / |x1|) * (x2 / |x2|), dim)`` after
  broadcasting the two. Each vector is divided by its norm *before* the product, which
  keeps the result within [-1, 1]; a norm is clamped to ``eps`` (under no_grad, on a
  clone) so a zero vector gives 0 rather than 0/0.
* ``pairwise_distance(x1, x2, p)`` is ``norm(x1 - x2 + eps, p)`` over the last dim; the
  ``eps`` keeps the gradient of a zero distance finite. It calls ``aten::norm``, whose
  node is ``NormBackward1``: declared here, as the overload PyTorch calls
  (``norm.ScalarOpt_dim``), computing with ``linalg_vector_norm``'s kernel.
"""

from __future__ import annotations

from .. import grad_mode
from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import FLOATING
from ..promotion import result_type
from ..shape import broadcast_shapes
from ..tensor import Tensor
from . import norms
from .declaration import native_function
from .shape_views import sum_to

__all__ = ["dist", "cosine_similarity", "pairwise_distance"]

_vector_norm = norms.linalg_vector_norm.overloads["linalg_vector_norm"]


def _norm_kernel(self: Tensor, p=None, dim=(), keepdim=False) -> Tensor:
    if self._dtype.category < FLOATING:
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. "
            f"Got {self._dtype.scalar_name} instead."
        )
    return _vector_norm(self, 2 if p is None else p, dim, keepdim)


# ``aten::norm`` (a vector norm over ``dim``); ``torch.norm`` is a Python function that
# reaches ``linalg_vector_norm`` instead, so this overload is only called from C++ code.
_norm = native_function(
    "norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor",
    kernel=_norm_kernel,
    derivative=Derivative(
        "NormBackward1",
        save=("self", "p", "dim", "keepdim", "result"),
        grads={
            "self": lambda grad, saved: norms.norm_backward(
                grad,
                saved.self,
                2 if saved.p is None else saved.p,
                saved.result,
                saved.dim,
                saved.keepdim,
            )
        },
    ),
    variants="function",
    python_bindings=False,
    doc="``aten::norm.ScalarOpt_dim``: the ``p``-norm of ``self`` over ``dim``.",
)
_norm_op = _norm.overloads["norm.ScalarOpt_dim"]


def _dist_kernel(self: Tensor, other: Tensor, p=2) -> Tensor:
    # Promoted as a subtraction is (a float tensor's distance to an int one is a float).
    return _norm_kernel(self - other, p, None)


def _dist_grad(grad: Tensor, saved, sign: int, size) -> Tensor:
    """``norm_backward(grad, self - other, p, result)``, summed back to an input's size
    when that input was broadcast."""
    gradient = norms.norm_backward(
        grad, saved.self - saved.other, saved.p, saved.result, None, False
    )
    if gradient is None:  # p = 0 counts the nonzero differences: no gradient
        return None
    return sum_to(gradient if sign > 0 else -gradient, size)


dist = native_function(
    "dist(Tensor self, Tensor other, Scalar p=2) -> Tensor",
    kernel=_dist_kernel,
    derivative=Derivative(
        "DistBackward0",
        save=("self", "other", "p", "result"),
        complex=True,
        grads={
            "self": lambda grad, saved: _dist_grad(grad, saved, +1, saved.self.shape),
            "other": lambda grad, saved: _dist_grad(grad, saved, -1, saved.other.shape),
        },
    ),
    doc="``torch.dist``: the ``p``-norm of ``self - other`` (broadcast), a 0-dim tensor.",
)


def _cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    common = result_type(x1, x2)
    if common.category != FLOATING:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is {common.scalar_name}"
        )
    # vector_norm refuses integers (and bools), which cosine_similarity accepts.
    if x1._dtype.category < FLOATING:
        x1 = x1.to(common)
    if x2._dtype.category < FLOATING:
        x2 = x2.to(common)
    if x1._size != x2._size:  # ``expand_outplace``: both expanded, unless already alike
        shape = broadcast_shapes(x1._size, x2._size)
        x1, x2 = x1.expand(shape), x2.expand(shape)
    # Clones, so the in-place clamp below changes no tensor autograd saved.
    x1_norm = _vector_norm(x1, 2, [dim], True).clone()
    x2_norm = _vector_norm(x2, 2, [dim], True).clone()
    with grad_mode.no_grad():
        x1_norm.clamp_min_(eps)
        x2_norm.clamp_min_(eps)
    return ((x1 / x1_norm) * (x2 / x2_norm)).sum(dim)


cosine_similarity = native_function(
    "cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor",
    kernel=_cosine_similarity,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.cosine_similarity``: ``x1 · x2 / (|x1| |x2|)`` along ``dim``, broadcast.",
)


def _pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2, eps: float = 1e-6,
                       keepdim: bool = False) -> Tensor:  # fmt: skip
    # Either input may broadcast against the other: the last dim of the larger one.
    innermost_dim = max(x1.dim(), x2.dim()) - 1
    return _norm_op(x1 - x2 + eps, p, [innermost_dim], keepdim)


pairwise_distance = native_function(
    "pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, bool keepdim=False) "
    "-> Tensor",
    kernel=_pairwise_distance,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.pairwise_distance``: ``||x1 - x2 + eps||_p`` over the last dim.",
)

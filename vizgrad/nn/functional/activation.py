"""Activation functions (``torch.nn.functional``): relu, leaky_relu, elu, celu, selu,
gelu, silu, mish, softplus, hardtanh, relu6, threshold, hardsigmoid, hardswish,
hardshrink, softshrink, logsigmoid, tanhshrink, softsign, glu, prelu, sigmoid, tanh,
softmax, softmin, log_softmax.

As in PyTorch, some of these are the operators themselves (``gelu``, ``softplus`` are
``torch._C._nn`` functions) and the others are small Python functions that pick the
in-place or out-of-place operator by ``inplace``. Every one ends in an engine operator,
which dispatches, records its node (``LeakyReluBackward0``…) and emits its events.
"""

from __future__ import annotations

import warnings

from ...ops import activation as _activation
from ...ops import unary as _unary
from ...tensor import Tensor

__all__ = [
    "relu", "relu_", "leaky_relu", "leaky_relu_", "elu", "elu_", "celu", "celu_", "selu",
    "selu_", "gelu", "silu", "mish", "softplus", "hardtanh", "hardtanh_", "relu6", "sigmoid",
    "tanh", "softmax", "softmin", "log_softmax", "threshold", "threshold_", "hardsigmoid",
    "hardswish", "hardshrink", "softshrink", "logsigmoid", "tanhshrink", "softsign", "glu", "prelu",
]  # fmt: skip

# The operators PyTorch's functional module binds as they are.
relu_ = _unary.relu_
leaky_relu_ = _activation.leaky_relu_
elu_ = _activation.elu_
celu_ = _activation.celu_
selu_ = _activation.selu_
hardtanh_ = _activation.hardtanh_
gelu = _activation.gelu
softplus = _activation.softplus
threshold_ = _activation.threshold_
hardshrink = _activation.hardshrink
softshrink = _activation.softshrink
logsigmoid = _activation.log_sigmoid
prelu = _activation.prelu


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.relu``: ``max(x, 0)``, in place when asked (``ReluBackward0`` either way)."""
    return _unary.relu_(input) if inplace else _unary.relu(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``F.leaky_relu``: ``x`` where positive, else ``negative_slope * x``."""
    if inplace:
        return _activation.leaky_relu_(input, negative_slope)
    return _activation.leaky_relu(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``F.elu``: ``x`` where positive, else ``alpha * (exp(x) - 1)``."""
    return _activation.elu_(input, alpha) if inplace else _activation.elu(input, alpha)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``F.celu``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    return _activation.celu_(input, alpha) if inplace else _activation.celu(input, alpha)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.selu``: ``elu`` scaled by the self-normalising constants."""
    return _activation.selu_(input) if inplace else _activation.selu(input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.silu``: ``x * sigmoid(x)``."""
    return _activation.silu_(input) if inplace else _activation.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.mish``: ``x * tanh(softplus(x))``."""
    return _activation.mish_(input) if inplace else _activation.mish(input)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:  # fmt: skip
    """``F.hardtanh``: ``x`` clamped to ``[min_val, max_val]``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _activation.hardtanh_(input, min_val, max_val)
    return _activation.hardtanh(input, min_val, max_val)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.relu6``: ``min(max(0, x), 6)``, which is ``hardtanh(x, 0, 6)``."""
    return _activation.relu6_(input) if inplace else _activation.relu6(input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``F.threshold``: ``value`` where ``x <= threshold``, else ``x``."""
    if inplace:
        return _activation.threshold_(input, threshold, value)
    return _activation.threshold(input, threshold, value)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.hardsigmoid``: ``min(max(x + 3, 0), 6) / 6``."""
    return _activation.hardsigmoid_(input) if inplace else _activation.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``F.hardswish``: ``x * hardsigmoid(x)``."""
    return _activation.hardswish_(input) if inplace else _activation.hardswish(input)


def tanhshrink(input: Tensor) -> Tensor:
    """``F.tanhshrink``: ``x - tanh(x)``, a Python composite (``SubBackward0``)."""
    return input - input.tanh()


def softsign(input: Tensor) -> Tensor:
    """``F.softsign``: ``x / (1 + |x|)``, a Python composite (``DivBackward0``)."""
    return input / (input.abs() + 1)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """``F.glu``: the first half of ``dim`` times the sigmoid of the second half."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _activation.glu(input, dim)


def sigmoid(input: Tensor) -> Tensor:
    """``F.sigmoid``: ``input.sigmoid()``."""
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    """``F.tanh``: ``input.tanh()``."""
    return input.tanh()


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """The dimension an old call without ``dim`` meant: 0 for 0-, 1- and 3-D inputs (a
    3-D input was taken as unbatched), else 1; PyTorch warns that the choice is
    deprecated."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``F.softmax``: ``exp(x) / sum(exp(x))`` along ``dim``."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``F.softmin``: ``softmax(-x)`` along ``dim``."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype=None) -> Tensor:  # fmt: skip
    """``F.log_softmax``: ``log(softmax(x))`` along ``dim``, computed without underflow."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)

"""Activation modules: ReLU, LeakyReLU, ELU, CELU, SELU, GELU, SiLU, Mish, Sigmoid, Tanh,
Softmax, Softmin, LogSoftmax, Softplus, Hardtanh, ReLU6, Threshold, Hardsigmoid,
Hardswish, Hardshrink, Softshrink, LogSigmoid, Tanhshrink, Softsign, GLU, PReLU (the
one with a parameter: its weights).

Each holds its options and calls its ``torch.nn.functional`` counterpart, so the
module records exactly the node the function records; ``extra_repr`` prints the
options as PyTorch's modules do (``inplace=True`` only when set).
"""

from __future__ import annotations

import warnings

from ...ops import unary as _unary
from ...ops.creation import empty
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = [
    "ReLU", "LeakyReLU", "ELU", "CELU", "SELU", "GELU", "SiLU", "Mish", "Sigmoid", "Tanh",
    "Softmax", "Softmin", "LogSoftmax", "Softplus", "Hardtanh", "ReLU6", "Threshold", "Hardsigmoid", "Hardswish", "Hardshrink",
    "Softshrink", "LogSigmoid", "Tanhshrink", "Softsign", "GLU", "PReLU",
]  # fmt: skip


def _inplace_alone(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


def _inplace_after(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class ReLU(Module):
    """``torch.nn.ReLU``: ``max(x, 0)``."""

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_alone(self.inplace)


class LeakyReLU(Module):
    """``torch.nn.LeakyReLU``: ``x`` where positive, else ``negative_slope * x``."""

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_after(self.inplace)}"


class ELU(Module):
    """``torch.nn.ELU``: ``x`` where positive, else ``alpha * (exp(x) - 1)``."""

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_after(self.inplace)}"


class CELU(Module):
    """``torch.nn.CELU``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_after(self.inplace)}"


class SELU(Module):
    """``torch.nn.SELU``: the self-normalising ``elu``."""

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_alone(self.inplace)


class GELU(Module):
    """``torch.nn.GELU``: ``x * Phi(x)``, or its tanh approximation."""

    __constants__ = ["approximate"]

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """``torch.nn.SiLU``: ``x * sigmoid(x)``."""

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_alone(self.inplace)


class Mish(Module):
    """``torch.nn.Mish``: ``x * tanh(softplus(x))``."""

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_alone(self.inplace)


class Sigmoid(Module):
    """``torch.nn.Sigmoid``: ``1 / (1 + exp(-x))``."""

    def forward(self, input: Tensor) -> Tensor:
        return _unary.sigmoid(input)


class Tanh(Module):
    """``torch.nn.Tanh``: the hyperbolic tangent."""

    def forward(self, input: Tensor) -> Tensor:
        return _unary.tanh(input)


class _SoftmaxFamily(Module):
    """The options of Softmax, Softmin and LogSoftmax: one ``dim`` (None warns, as the
    functions do, and picks the old implicit dim)."""

    __constants__ = ["dim"]

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):  # pickled before ``dim`` existed
            self.dim = None

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxFamily):
    """``torch.nn.Softmax``: ``exp(x) / sum(exp(x))`` along ``dim``."""

    def forward(self, input: Tensor) -> Tensor:
        # _stacklevel=5: the warning points at the line that called the module.
        return F.softmax(input, self.dim, _stacklevel=5)


class Softmin(_SoftmaxFamily):
    """``torch.nn.Softmin``: ``softmax(-x)`` along ``dim``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)


class LogSoftmax(_SoftmaxFamily):
    """``torch.nn.LogSoftmax``: ``log(softmax(x))`` along ``dim``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softplus(Module):
    """``torch.nn.Softplus``: ``log(1 + exp(beta * x)) / beta``, linear past ``threshold``."""

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """``torch.nn.Hardtanh``: ``x`` clamped to ``[min_val, max_val]``."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:  # fmt: skip
        super().__init__()
        if min_value is not None:
            warnings.warn(
                "keyword argument `min_value` is deprecated and renamed to `min_val`",
                FutureWarning,
                stacklevel=2,
            )
            min_val = min_value
        if max_value is not None:
            warnings.warn(
                "keyword argument `max_value` is deprecated and renamed to `max_val`",
                FutureWarning,
                stacklevel=2,
            )
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})"
            )

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_after(self.inplace)}"


class ReLU6(Hardtanh):
    """``torch.nn.ReLU6``: ``Hardtanh(0, 6)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_alone(self.inplace)


class Threshold(Module):
    """``torch.nn.Threshold``: ``value`` where ``x <= threshold``, else ``x``."""

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_after(self.inplace)}"


class Hardsigmoid(Module):
    """``torch.nn.Hardsigmoid``: ``min(max(x + 3, 0), 6) / 6``; its repr never shows
    ``inplace`` (PyTorch's has no ``extra_repr``)."""

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class Hardswish(Module):
    """``torch.nn.Hardswish``: ``x * hardsigmoid(x)``; no ``extra_repr``, as PyTorch's."""

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class Hardshrink(Module):
    """``torch.nn.Hardshrink``: 0 where ``|x| <= lambd``, else ``x``."""

    __constants__ = ["lambd"]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Module):
    """``torch.nn.Softshrink``: ``x`` moved towards 0 by ``lambd``, 0 within ``lambd``."""

    __constants__ = ["lambd"]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class LogSigmoid(Module):
    """``torch.nn.LogSigmoid``: ``log(sigmoid(x))``, stable for large ``|x|``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Tanhshrink(Module):
    """``torch.nn.Tanhshrink``: ``x - tanh(x)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class Softsign(Module):
    """``torch.nn.Softsign``: ``x / (1 + |x|)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class GLU(Module):
    """``torch.nn.GLU``: the first half of ``dim`` times the sigmoid of the second half."""

    __constants__ = ["dim"]

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """``torch.nn.PReLU``: ``x`` where positive, else ``weight * x``; ``weight`` is a
    parameter of ``num_parameters`` values (1, or one per channel), all ``init``."""

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None,
                 dtype=None) -> None:  # fmt: skip
        factory_kwargs = {"device": device, "dtype": dtype}
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, **factory_kwargs))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"

"""Activation functions: softmax and log-softmax (``SoftMax.cpp``), and the pointwise
nonlinearities of ``torch.nn`` (``Activation.cpp``): leaky_relu, elu, celu, selu, gelu,
silu, softplus, hardtanh, relu6, mish, threshold, hardsigmoid, hardswish, hardshrink,
softshrink, glu, prelu (``_prelu_kernel``) and log_sigmoid (``log_sigmoid_forward``,
which also returns the buffer ``exp(-|x|)`` its CPU kernel fills).

``softmax(x)[i] = exp(x[i]) / sum_j exp(x[j])`` along one dimension. Computed as
written it overflows for large inputs, so the kernel subtracts the maximum first
(``exp(x - max)``), which changes nothing mathematically and keeps every ``exp`` at
most 1. ``log_softmax`` is ``x - max - log(sum(exp(x - max)))``, never the log of a
softmax that may have underflowed to 0.

As in PyTorch, ``softmax`` is CompositeImplicitAutograd: it wraps ``dim``, converts
the input to ``dtype`` if one is given (a recorded copy, so gradients flow back
through the cast) and calls ``_softmax``, the operator with the kernel and the
derivative (``SoftmaxBackward0``). Likewise ``log_softmax`` and ``_log_softmax``.

The pointwise nonlinearities are structured kernels over one NumPy loop each, with the
derivative ``derivatives.yaml`` gives them (``LeakyReluBackward0``, ``GeluBackward0``…),
written with vizgrad operators so that a second backward works too. Most of them live
in PyTorch's ``torch._C._nn`` namespace, not in ``torch``: they are declared as functions
only (no ``Tensor`` method) and only ``celu`` and ``selu``, which ``torch`` has, are
exported (and ``threshold``, ``threshold_``, ``hardshrink``, ``prelu``, ``_prelu_kernel``,
which ``torch`` has too; ``hardshrink`` and ``prelu`` are also ``Tensor`` methods). Their
in-place forms (``leaky_relu_``…) are functions of ``torch._C._nn`` but not ``Tensor``
methods, so each is declared apart from its functional twin, bound without a method
(``python_bindings=False``). Half-precision inputs compute in float32,
as PyTorch's CPU kernels compute in their ``opmath`` type.
"""

from __future__ import annotations

import math

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import BOOL, float16, float32
from ..shape import contiguous_strides, wrap_dim
from ..tensor import Tensor
from . import unary
from .creation import checked_scalar, empty_like
from .declaration import native_function
from .elementwise import elementwise, structured
from .float_errors import ignoring_float_errors
from .iterator import ALL_TYPES, COMPLEX_TYPES, FLOATING_TYPES, TensorIterator, dispatch_dtypes
from .logical import where
from .overload_kernels import out_wrapper
from .shape_views import sum_to

__all__ = ["softmax", "log_softmax", "celu", "celu_", "selu", "selu_", "threshold", "threshold_",
           "hardshrink", "prelu", "_prelu_kernel"]  # fmt: skip


def _not_implemented(kernel: str, input: Tensor, dim: int, dtype=None) -> None:
    # PyTorch compiles two kernels, one for the innermost dimension, one for the others.
    last = input.dim() == 0 or wrap_dim(dim, input.dim()) == input.dim() - 1
    name = f"{kernel}_lastdim_kernel_impl" if last else f"{kernel}_kernel_impl"
    dtype = dtype or input._dtype
    raise NotImplementedError(f"\"{name}\" not implemented for '{dtype.scalar_name}'")


def check_softmax(kernel: str, input: Tensor, dim: int, half_to_float: bool) -> None:
    """``host_softmax``'s checks: no half-to-float on CPU, floating dtypes only (an input
    without elements returns before the dtype dispatch)."""
    if half_to_float:
        raise RuntimeError(f"{kernel} with half to float conversion is not supported on CPU")
    if input.numel() and input._dtype.name not in FLOATING_TYPES:
        _not_implemented(kernel, input, dim)


def softmax_backward_dtype(kernel: str, grad_output: Tensor, output: Tensor, dim: int,
                           input_dtype):  # fmt: skip
    """``_softmax_backward_data``'s checks and the dtype of its result."""
    dim = wrap_dim(dim, grad_output.dim())
    if kernel == "softmax_backward" and grad_output._size != output._size:
        raise RuntimeError(
            f"Expected tensor for argument #1 'grad' to have same size as tensor for argument "
            f"#2 'output'; but {list(grad_output._size)} does not equal {list(output._size)} "
            f"(while checking arguments for {kernel})"
        )
    if grad_output._dtype.name not in FLOATING_TYPES:
        _not_implemented(kernel, grad_output, dim)
    if output._dtype is not grad_output._dtype:  # read as ``grad_output``'s type
        raise RuntimeError(
            f"expected scalar type {grad_output._dtype.scalar_name} but found "
            f"{output._dtype.scalar_name}"
        )
    if grad_output._dtype is float32 and input_dtype is float16:  # the half_to_float forward's
        return float16
    return grad_output._dtype


def _softmax_out_meta(input: Tensor, dim: int, half_to_float: bool, **_outs):
    """``_softmax.out``'s output: ``input``'s shape and dtype, set (and ``out``'s dtype
    checked) before the kernel's own checks."""
    return (input._size, input._dtype)


def _softmax_out(kernel: str):
    """``_softmax.out``: ``out`` set first, then the kernel's checks, then its loop."""

    def checks(input: Tensor, dim: int, half_to_float: bool, **_outs) -> None:
        check_softmax(kernel, input, dim, half_to_float)

    return out_wrapper(_softmax_family_kernel(kernel, log=kernel == "log_softmax"),
                       exact_dtype=True, meta=_softmax_out_meta,
                       resized_checks=checks)  # fmt: skip


def _softmax_family_kernel(kernel: str, log: bool):
    def compute(input: Tensor, dim: int, half_to_float: bool) -> Tensor:
        check_softmax(kernel, input, dim, half_to_float)
        # host_softmax works on ``input.contiguous()``: the result is contiguous too.
        size = input._size
        result = Tensor._empty_strided(size, contiguous_strides(size), input._dtype)
        if input.numel() == 0:
            return result
        x = input._array.reshape(1) if input.dim() == 0 else input._array
        axis = 0 if input.dim() == 0 else dim
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            shifted = x - np.max(x, axis=axis, keepdims=True)
            exps = np.exp(shifted)
            total = np.sum(exps, axis=axis, keepdims=True)
            values = shifted - np.log(total) if log else exps / total
        np.copyto(result._array, values.reshape(input._size), casting="unsafe")
        return result

    return compute


def _softmax_backward_kernel(kernel: str, log: bool):
    """``_softmax_backward_data`` / ``_log_softmax_backward_data``: the vector-Jacobian
    products along ``dim``, from the forward's output ``y`` alone. With ``s = softmax(x)``,
    ``ds_i/dx_j = s_i (δij - s_j)``, so softmax's is ``s * (g - sum(g * s))``; and
    ``d log s_i/dx_j = δij - s_j``, so log_softmax's is ``g - exp(y) * sum(g)``."""

    def compute(grad_output: Tensor, output: Tensor, dim: int, input_dtype) -> Tensor:
        dtype = softmax_backward_dtype(kernel, grad_output, output, dim, input_dtype)
        dim = wrap_dim(dim, grad_output.dim())
        size = grad_output._size
        result = Tensor._empty_strided(size, contiguous_strides(size), dtype)
        if grad_output.numel() == 0:
            return result
        g = grad_output._array.reshape(1) if not size else grad_output._array
        y = output._array.reshape(1) if not size else output._array
        axis = 0 if not size else dim
        with np.errstate(over="ignore", invalid="ignore"):
            if log:
                values = g - np.exp(y) * np.sum(g, axis=axis, keepdims=True)
            else:
                values = y * (g - np.sum(g * y, axis=axis, keepdims=True))
        np.copyto(result._array, values.reshape(size), casting="unsafe")
        return result

    return compute


def _softmax_double_backward(grad, saved):
    """``softmax_double_backward``: the derivative of ``s * (g - sum(g * s))`` in ``s``."""
    g, s, dim = saved.grad_output, saved.output, saved.dim
    grad = grad.to(s.dtype)
    return (g * grad - (s * g).sum(dim, keepdim=True) * grad
            - g * (s * grad).sum(dim, keepdim=True))  # fmt: skip


_softmax_backward_data = native_function(
    "_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) "
    "-> Tensor",
    kernel=_softmax_backward_kernel("softmax_backward", log=False),
    derivative=Derivative(
        "SoftmaxBackwardDataBackward0",
        save=("grad_output", "output", "dim", "input_dtype"),
        grads={
            "grad_output": lambda grad, saved: _softmax_backward_data(
                grad.to(saved.output.dtype), saved.output, saved.dim, saved.input_dtype
            ),
            "output": _softmax_double_backward,
        },
    ),
    variants="function",
    doc="``_softmax_backward_data``: softmax's vector-Jacobian product (``SoftmaxBackward0``).",
)

_log_softmax_backward_data = native_function(
    "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, "
    "ScalarType input_dtype) -> Tensor",
    kernel=_softmax_backward_kernel("log_softmax_backward", log=True),
    derivative=Derivative(
        "LogSoftmaxBackwardDataBackward0",
        save=("grad_output", "output", "dim"),
        grads={
            "grad_output": lambda grad, saved: (
                grad.to(saved.output.dtype)
                - (grad.to(saved.output.dtype) * saved.output.exp()).sum(saved.dim, keepdim=True)
            ),
            "output": lambda grad, saved: (
                -saved.grad_output.sum(saved.dim, keepdim=True)
                * saved.output.exp()
                * grad.to(saved.output.dtype)
            ).to(saved.output.dtype),
        },
    ),
    variants="function",
    doc="``_log_softmax_backward_data``: log_softmax's vector-Jacobian product "
    "(``LogSoftmaxBackward0``).",
)


def _softmax_grad(grad, saved):
    return _softmax_backward_data(grad, saved.result, saved.dim, saved.result.dtype)


def _log_softmax_grad(grad, saved):
    return _log_softmax_backward_data(grad, saved.result, saved.dim, saved.result.dtype)


# Both derivatives are written with the output, which the forward has anyway.
_softmax = native_function(
    "_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
    "_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_softmax_family_kernel("softmax", log=False),
    kernels={"_softmax.out": _softmax_out("softmax")},
    derivative=Derivative(
        "SoftmaxBackward0", save=("dim", "result"), grads={"self": _softmax_grad}
    ),
    variants="function",
)
_log_softmax = native_function(
    "_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
    "_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_softmax_family_kernel("log_softmax", log=True),
    kernels={"_log_softmax.out": _softmax_out("log_softmax")},
    derivative=Derivative(
        "LogSoftmaxBackward0", save=("dim", "result"), grads={"self": _log_softmax_grad}
    ),
    variants="function",
)


def _converted_meta(self: Tensor, dim: int, dtype=None, **_outs):
    """``softmax.int_out``'s output: ``self``'s shape, in ``dtype`` if given."""
    wrap_dim(dim, self.dim())
    return (self._size, dtype or self._dtype)


def _converted_out(kernel: str, operator):
    """``softmax.int_out``: ``out`` set first, then ``_softmax``'s dtype dispatch on
    ``self`` converted to ``dtype``, then the conversion and ``_softmax``."""

    def checks(self: Tensor, dim: int, dtype=None, **_outs) -> None:
        dtype = dtype or self._dtype
        if self.numel() and dtype.name not in FLOATING_TYPES:
            _not_implemented(kernel, self, dim, dtype)

    return out_wrapper(_converted_then(operator), exact_dtype=True, meta=_converted_meta,
                       resized_checks=checks)  # fmt: skip


def _converted_then(operator):
    """softmax.int's body: wrap ``dim``, convert to ``dtype``, call ``_softmax``."""

    def composite(self, dim, dtype=None):
        dim = wrap_dim(dim, self.dim())
        if dtype is not None and dtype is not self._dtype:
            self = self.to(dtype)
        return operator(self, dim, False)

    return composite


softmax = native_function(
    "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=_converted_then(_softmax.overloads["_softmax"]),
    kernels={"softmax.int_out": _converted_out("softmax", _softmax.overloads["_softmax"])},
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.softmax``: exponentials normalised to sum to 1 along ``dim``.",
)
log_softmax = native_function(
    "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "log_softmax.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=_converted_then(_log_softmax.overloads["_log_softmax"]),
    kernels={
        "log_softmax.int_out": _converted_out("log_softmax", _log_softmax.overloads["_log_softmax"])
    },
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.log_softmax``: the logarithm of ``softmax``, computed without underflow.",
)


# --- the pointwise nonlinearities (``Activation.cpp``) ----------------------------------


def _opmath(x: np.ndarray) -> np.ndarray:
    """Half precision computes in float32, as PyTorch's ``opmath_type<Half>`` does."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _pointwise(kernel_name: str, function, supported=FLOATING_TYPES,
               check_all_same_dtype: bool = False) -> elementwise:  # fmt: skip
    """A structured loop ``out = function(x, **options)`` for the dtypes PyTorch compiles.

    Unlike ``exp``, these keep integer inputs as they are, so an integer tensor meets
    the kernel's dtype dispatch: ``"elu_cpu" not implemented for 'Long'``.
    """

    @dispatch_dtypes(kernel_name, supported)
    @ignoring_float_errors(all="ignore")  # exp overflows to inf: the formulas expect it
    def compute(out, x, **options):
        np.copyto(out, function(_opmath(x), **options), casting="unsafe")

    return elementwise(compute, check_all_same_dtype=check_all_same_dtype)


# leaky_relu: x where x > 0, else negative_slope * x.


def _leaky_relu(x, negative_slope=0.01):
    return np.where(x > 0, x, x * negative_slope)


_LEAKY_RELU_NEGATIVE_INPLACE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is "
    "not supported. This is caused by calling in-place forward function with a negative "
    "slope, please call out-of-place version instead. File an issue at "
    "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
    "backward calculation with negative slope"
)


def _leaky_relu_backward(self_is_result: bool):
    """``leaky_relu_backward``: the slope is 1 where the input (or, in place, the output,
    which has the same sign for a positive slope) is positive, else ``negative_slope``."""

    def grad_fn(grad, saved):
        slope = saved.negative_slope
        if self_is_result and slope < 0:  # a negative slope flips the sign: x is lost
            raise RuntimeError(_LEAKY_RELU_NEGATIVE_INPLACE)
        x = saved.result if self_is_result else saved.self
        return where(x > 0, grad, grad * slope)

    return grad_fn


_leaky_relu_kernel = _pointwise("leaky_relu_cpu", _leaky_relu)
leaky_relu = native_function(
    "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    "leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_leaky_relu_kernel,
    derivative=Derivative("LeakyReluBackward0", save=("self", "negative_slope"),
                          grads={"self": _leaky_relu_backward(False)}),
    variants="function",
    doc="``torch._C._nn.leaky_relu``: ``x`` where positive, else ``negative_slope * x``.",
)  # fmt: skip
# derivatives.yaml gives the in-place form its own formula, in terms of the output.
leaky_relu_ = native_function(
    "leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)",
    kernel=_leaky_relu_kernel,
    derivative=Derivative("LeakyReluBackward1", save=("result", "negative_slope"),
                          grads={"self": _leaky_relu_backward(True)}),
    python_bindings=False,
    doc="``torch._C._nn.leaky_relu_``: ``leaky_relu`` in place.",
)  # fmt: skip


# elu: scale * x where x > 0, else alpha * scale * (exp(input_scale * x) - 1).


def _elu(x, alpha=1, scale=1, input_scale=1):
    return np.where(x > 0, x * scale, np.expm1(x * input_scale) * (alpha * scale))


_ELU_NEGATIVE_INPLACE = (
    "In-place elu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead."
)


def elu_backward(grad, alpha, scale, input_scale, is_result: bool, self_or_result):
    """``elu_backward``: ``scale`` where positive; on the other side the slope is
    ``input_scale * alpha * scale * exp(input_scale * x)``, which is also
    ``input_scale * (result + alpha * scale)`` when only the output is kept."""
    if is_result and alpha < 0:  # the output no longer tells the input's sign
        raise RuntimeError(_ELU_NEGATIVE_INPLACE)
    negative_coefficient = alpha * scale
    if is_result:
        negative = (self_or_result + negative_coefficient) * input_scale
    else:
        negative = (self_or_result * input_scale).exp() * (input_scale * negative_coefficient)
    return grad * where(self_or_result <= 0, negative, scale)


def _elu_grad(is_result: bool, scales=None):
    """The formula of ``elu``/``elu_`` (``scales`` None) or of ``celu``/``celu_``, which
    is elu's with ``scale`` 1 and ``input_scale`` ``1 / alpha``."""

    def grad_fn(grad, saved):
        if scales is None:
            alpha, scale, input_scale = saved.alpha, saved.scale, saved.input_scale
        else:
            # derivatives.yaml writes ``1.0/alpha.toFloat()``: alpha rounded to float32.
            alpha, scale, input_scale = saved.alpha, 1, 1.0 / float(np.float32(saved.alpha))
        kept = saved.result if is_result else saved.self
        return elu_backward(grad, alpha, scale, input_scale, is_result, kept)

    return grad_fn


_ELU_SCALARS = ("alpha", "scale", "input_scale")
_elu_kernel = _pointwise("elu_cpu", _elu)
elu = native_function(
    "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
    "elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=_elu_kernel,
    derivative=Derivative("EluBackward0", save=("self", *_ELU_SCALARS),
                          grads={"self": _elu_grad(False)}),
    variants="function",
    doc="``torch._C._nn.elu``: ``scale * x`` where positive, else "
    "``alpha * scale * (exp(input_scale * x) - 1)``.",
)  # fmt: skip
elu_ = native_function(
    "elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)",
    kernel=_elu_kernel,
    derivative=Derivative("EluBackward1", save=("result", *_ELU_SCALARS),
                          grads={"self": _elu_grad(True)}),
    python_bindings=False,
    doc="``torch._C._nn.elu_``: ``elu`` in place.",
)  # fmt: skip


# celu is elu with input_scale 1 / alpha (CompositeExplicitAutograd: its own node).


def _check_celu(input, alpha=1.0, out=None):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")


def _celu(x, alpha=1.0):
    return _elu(x, alpha, 1, 1.0 / alpha)


_celu_kernel = _pointwise("elu_cpu", _celu)
celu = native_function(
    "celu(Tensor self, Scalar alpha=1.0) -> Tensor",
    kernel=_celu_kernel,
    check=_check_celu,
    derivative=Derivative("CeluBackward0", save=("self", "alpha"),
                          grads={"self": _elu_grad(False, scales="celu")}),
    variants="function",
    doc="``torch.celu``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.",
)  # fmt: skip
celu_ = native_function(
    "celu_(Tensor(a!) self, Scalar alpha=1.0) -> Tensor(a!)",
    kernel=_celu_kernel,
    check=_check_celu,
    derivative=Derivative("CeluBackward1", save=("result", "alpha"),
                          grads={"self": _elu_grad(True, scales="celu")}),
    python_bindings=False,
    doc="``torch.celu_``: ``celu`` in place.",
)  # fmt: skip


# selu is elu with the self-normalising constants (CompositeImplicitAutograd: EluBackward).
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946

selu = native_function(
    "selu(Tensor self) -> Tensor",
    kernel=lambda self: elu.overloads["elu"](self, _SELU_ALPHA, _SELU_SCALE, 1),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.selu``: ``elu`` with alpha 1.6733 and scale 1.0507.",
)
selu_ = native_function(
    "selu_(Tensor(a!) self) -> Tensor(a!)",
    kernel=lambda self: elu_.overloads["elu_"](self, _SELU_ALPHA, _SELU_SCALE, 1),
    kind=COMPOSITE_IMPLICIT,
    python_bindings=False,
    doc="``torch.selu_``: ``selu`` in place.",
)


# gelu: x * Phi(x), Phi the standard normal's distribution function (or its tanh fit).

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_KAPPA = 0.044715
_ONE_OVER_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _check_gelu(input, *, approximate="none", out=None):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def _gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (x + _KAPPA * x * x * x)))
    # NumPy has no erf: vizgrad's own (float64), as ``torch.erf`` computes it.
    return (x * 0.5 * (1 + unary._erf(x * math.sqrt(0.5)))).astype(x.dtype, copy=False)


def gelu_backward(grad, self, approximate="none"):
    """``gelu_backward``: ``Phi(x) + x * phi(x)``; with ``tanh`` the derivative of
    ``0.5 x (1 + tanh(u))``, ``u = sqrt(2/pi) (x + 0.044715 x^3)``."""
    if approximate == "tanh":
        inner = (self + self.pow(3) * _KAPPA) * _SQRT_2_OVER_PI
        tanh_inner = inner.tanh()
        left_derivative = (tanh_inner + 1) * 0.5
        inner_derivative = (self * self * (3 * _KAPPA) + 1) * _SQRT_2_OVER_PI
        right_derivative = self * 0.5 * (1 - tanh_inner * tanh_inner) * inner_derivative
        return grad * (left_derivative + right_derivative)
    cdf = ((self * math.sqrt(0.5)).erf() + 1) * 0.5
    pdf = (self * self * -0.5).exp() * _ONE_OVER_SQRT_2PI
    return grad * (cdf + self * pdf)


_gelu_kernel = _pointwise("GeluKernelImpl", _gelu)
_GELU_DERIVATIVE = Derivative(
    "GeluBackward0",
    save=("self", "approximate"),
    grads={"self": lambda grad, saved: gelu_backward(grad, saved.self, saved.approximate)},
)
gelu = native_function(
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    "gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> Tensor(a!)",
    kernel=_gelu_kernel,
    check=_check_gelu,
    derivative=_GELU_DERIVATIVE,
    variants="function",
    doc="``torch._C._nn.gelu``: ``x * Phi(x)``; ``approximate='tanh'`` uses the tanh fit.",
)
gelu_ = native_function(
    "gelu_(Tensor(a!) self, *, str approximate='none') -> Tensor(a!)",
    kernel=_gelu_kernel,
    check=_check_gelu,
    derivative=_GELU_DERIVATIVE,
    python_bindings=False,
    doc="``torch._C._nn.gelu_``: ``gelu`` in place.",
)


# silu (swish): x * sigmoid(x).


def _silu(x):
    return x / (1 + np.exp(-x))


def _silu_backward(grad, saved):
    """``infinitely_differentiable_silu_backward``: ``s (1 + x (1 - s))``, ``s = sigmoid(x)``."""
    s = saved.self.sigmoid()
    return grad * s * (saved.self * (1 - s) + 1)


_silu_kernel = _pointwise("silu_cpu", _silu, FLOATING_TYPES | COMPLEX_TYPES)
_SILU_DERIVATIVE = Derivative("SiluBackward0", save=("self",), grads={"self": _silu_backward})
silu = native_function(
    "silu(Tensor self) -> Tensor",
    "silu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_silu_kernel,
    derivative=_SILU_DERIVATIVE,
    variants="function",
    doc="``torch._C._nn.silu``: ``x * sigmoid(x)``, the sigmoid-weighted linear unit.",
)
silu_ = native_function(
    "silu_(Tensor(a!) self) -> Tensor(a!)",
    kernel=_silu_kernel,
    derivative=_SILU_DERIVATIVE,
    python_bindings=False,
    doc="``torch._C._nn.silu_``: ``silu`` in place.",
)


# softplus: log(1 + exp(beta * x)) / beta, and x itself once beta * x > threshold.


def _softplus(x, beta=1, threshold=20):
    scaled = x * beta
    return np.where(scaled > threshold, x, np.log1p(np.exp(scaled)) / beta)


def _softplus_backward(grad, saved):
    """``softplus_backward``: ``sigmoid(beta x)``, and 1 where the forward was linear."""
    scaled = saved.self * saved.beta
    return where(scaled > saved.threshold, grad, grad * scaled.sigmoid())


softplus = native_function(
    "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
    "softplus.out(Tensor self, Scalar beta=1, Scalar threshold=20, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=_pointwise("softplus_cpu", _softplus),
    derivative=Derivative("SoftplusBackward0", save=("self", "beta", "threshold"),
                          grads={"self": _softplus_backward}),
    variants="function",
    doc="``torch._C._nn.softplus``: a smooth ``relu``, ``log(1 + exp(beta * x)) / beta``.",
)  # fmt: skip


# hardtanh: x clamped to [min_val, max_val] (PyTorch runs clamp's kernel).


def _check_hardtanh(input, min_val=-1, max_val=1, out=None):
    if input._dtype.category == BOOL:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input._dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    if input._dtype.name == "uint8" and (int(min_val) < 0 or int(max_val) < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")


@dispatch_dtypes("clamp_scalar_cpu", ALL_TYPES)
def _hardtanh_kernel(out, x, min_val=-1, max_val=1):
    if x.dtype.kind in "iu":  # integer bounds: the limits don't promote the input
        min_val, max_val = int(min_val), int(max_val)
    # max then min, as clamp: min_val > max_val gives max_val everywhere; NaN stays NaN.
    np.minimum(np.maximum(x, min_val), max_val, out=out, casting="unsafe")


def _hardtanh_backward(grad, saved):
    """``hardtanh_backward``: the slope is 1 strictly inside the limits, 0 outside."""
    inside = (saved.self > saved.min_val).logical_and(saved.self < saved.max_val)
    return where(inside, grad, 0.0)


_HARDTANH_DERIVATIVE = Derivative(
    "HardtanhBackward0", save=("self", "min_val", "max_val"), grads={"self": _hardtanh_backward}
)
_hardtanh_structured = elementwise(_hardtanh_kernel, check_all_same_dtype=True)


def _hardtanh_functional(self: Tensor, min_val=-1, max_val=1) -> Tensor:
    """``hardtanh`` writes into ``empty_like(self)`` (as ``hardtanh_out``), which keeps the
    input's strides even where TensorIterator would not (an empty, stepped input)."""
    out = empty_like(self)
    iterator = TensorIterator("hardtanh", (self,), out=out)
    return iterator.run(_hardtanh_kernel, min_val=min_val, max_val=max_val)


hardtanh = native_function(
    "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    "hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernel=_hardtanh_structured,
    kernels={"hardtanh": _hardtanh_functional},
    check=_check_hardtanh,
    derivative=_HARDTANH_DERIVATIVE,
    variants="function",
    doc="``torch._C._nn.hardtanh``: ``x`` clamped to ``[min_val, max_val]``; keeps the dtype.",
)
hardtanh_ = native_function(
    "hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)",
    kernel=_hardtanh_structured,
    check=_check_hardtanh,
    derivative=_HARDTANH_DERIVATIVE,
    python_bindings=False,
    doc="``torch._C._nn.hardtanh_``: ``hardtanh`` in place.",
)


def _relu6(hardtanh_overload):
    """relu6 is hardtanh(x, 0, 6) (CompositeImplicitAutograd: HardtanhBackward0); the
    overload is called directly, so hardtanh's checks are made here."""

    def composite(self):
        _check_hardtanh(self, 0, 6)
        return hardtanh_overload(self, 0, 6)

    return composite


relu6 = native_function(
    "relu6(Tensor self) -> Tensor",
    kernel=_relu6(hardtanh.overloads["hardtanh"]),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._C._nn.relu6``: ``min(max(0, x), 6)``.",
)
relu6_ = native_function(
    "relu6_(Tensor(a!) self) -> Tensor(a!)",
    kernel=_relu6(hardtanh_.overloads["hardtanh_"]),
    kind=COMPOSITE_IMPLICIT,
    python_bindings=False,
    doc="``torch._C._nn.relu6_``: ``relu6`` in place.",
)


# mish: x * tanh(softplus(x)).


def _mish(x):
    return x * np.tanh(np.log1p(np.exp(x)))


def _mish_backward(grad, saved):
    """``infinitely_differentiable_mish_backward``: with ``t = tanh(softplus(x))``,
    the slope is ``t + x sigmoid(x) (1 - t^2)``."""
    x = saved.self
    t = softplus(x).tanh()
    return grad * (t + x * x.sigmoid() * (1 - t * t))


_mish_kernel = _pointwise("mish_cpu", _mish)
_MISH_DERIVATIVE = Derivative("MishBackward0", save=("self",), grads={"self": _mish_backward})
mish = native_function(
    "mish(Tensor self) -> Tensor",
    "mish.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_mish_kernel,
    derivative=_MISH_DERIVATIVE,
    variants="function",
    doc="``torch._C._nn.mish``: ``x * tanh(softplus(x))``.",
)
mish_ = native_function(
    "mish_(Tensor(a!) self) -> Tensor(a!)",
    kernel=_mish_kernel,
    derivative=_MISH_DERIVATIVE,
    python_bindings=False,
    doc="``torch._C._nn.mish_``: ``mish`` in place.",
)


# threshold: ``value`` where ``x <= threshold``, else x (both limits in the input's type).


def _scalar_as(x: np.ndarray, scalar):
    """``Scalar.to<scalar_t>()`` once checked (``_check_threshold``): an integer input
    truncates the scalar, an unsigned one wraps a negative integer."""
    if x.dtype.kind in "iu":
        return np.asarray(int(scalar)).astype(x.dtype)
    return np.asarray(scalar).astype(x.dtype)


def _check_threshold(self, threshold, value, out=None):
    """``threshold_kernel``: its dtype dispatch, then ``threshold`` and ``value``
    converted to the input's type (an overflow is an error), even without elements."""
    if self._dtype.name not in ALL_TYPES:
        raise NotImplementedError(
            f"\"threshold_cpu\" not implemented for '{self._dtype.scalar_name}'"
        )
    checked_scalar(threshold, self._dtype)
    checked_scalar(value, self._dtype)


@dispatch_dtypes("threshold_cpu", ALL_TYPES)
def _threshold_kernel(out, x, threshold, value):
    limit, replacement = _scalar_as(x, threshold), _scalar_as(x, value)
    np.copyto(out, np.where(x <= limit, replacement, x), casting="unsafe")


def _threshold_grad(grad, saved):
    """``threshold_backward(grad, self, threshold)``: the gradient passes where kept."""
    return unary.threshold_backward(grad, saved.self, saved.threshold)


def _threshold_impl(operands, out, inplace):
    self, threshold, value = operands
    # The limits are the loop's parameters, outside type promotion.
    iterator = TensorIterator("threshold", (self,), out=out, inplace=inplace)
    return iterator.run(_threshold_kernel, threshold=threshold, value=value)


_threshold_structured = structured(_threshold_impl)
threshold = native_function(
    "threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor",
    "threshold.out(Tensor self, Scalar threshold, Scalar value, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_threshold_structured,
    check=_check_threshold,
    derivative=Derivative("ThresholdBackward0", save=("self", "threshold"),
                          grads={"self": _threshold_grad}),
    variants="function",
    doc="``torch.threshold``: ``value`` where ``x <= threshold``, else ``x``.",
)  # fmt: skip
threshold_ = native_function(
    "threshold_(Tensor(a!) self, Scalar threshold, Scalar value) -> Tensor(a!)",
    kernel=_threshold_structured,
    check=_check_threshold,
    derivative=Derivative("ThresholdBackward1", save=("self", "threshold"),
                          grads={"self": _threshold_grad}),
    python_bindings=False,  # ``torch.threshold_``, no ``Tensor.threshold_``
    doc="``torch.threshold_``: ``threshold`` in place.",
)  # fmt: skip


# hardsigmoid: relu6(x + 3) / 6; hardswish: x * hardsigmoid(x).


def _hardsigmoid(x):
    return np.minimum(np.maximum(x + 3, 0), 6) / 6


def _hardswish(x):
    return x * np.minimum(np.maximum(x + 3, 0), 6) / 6


# The CPU kernel's ``one_sixth(1.0f / 6.0f)``: 1/6 rounded to float32, for every dtype.
_ONE_SIXTH = float(np.float32(1.0) / np.float32(6.0))


def hardsigmoid_backward(grad, self):
    """``hardsigmoid_backward``: ``1/6`` strictly inside ``(-3, 3)``, else 0."""
    inside = (self > -3.0).logical_and(self < 3.0)
    return where(inside, grad * _ONE_SIXTH, 0.0)


def hardswish_backward(grad, self):
    """``hardswish_backward``: 0 below -3, ``x / 3 + 1/2`` up to 3, 1 above."""
    middle = where(self <= 3.0, grad * (self / 3.0 + 0.5), grad)
    return where(self < -3.0, 0.0, middle)


_hardsigmoid_kernel = _pointwise("hardsigmoid_cpu", _hardsigmoid, check_all_same_dtype=True)
_HARDSIGMOID_DERIVATIVE = Derivative(
    "HardsigmoidBackward0",
    save=("self",),
    grads={"self": lambda grad, saved: hardsigmoid_backward(grad, saved.self)},
)
hardsigmoid = native_function(
    "hardsigmoid(Tensor self) -> Tensor",
    "hardsigmoid.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_hardsigmoid_kernel,
    derivative=_HARDSIGMOID_DERIVATIVE,
    variants="function",
    doc="``torch._C._nn.hardsigmoid``: ``min(max(x + 3, 0), 6) / 6``.",
)
hardsigmoid_ = native_function(
    "hardsigmoid_(Tensor(a!) self) -> Tensor(a!)",
    kernel=_hardsigmoid_kernel,
    derivative=_HARDSIGMOID_DERIVATIVE,
    python_bindings=False,
    doc="``torch._C._nn.hardsigmoid_``: ``hardsigmoid`` in place.",
)

_hardswish_kernel = _pointwise("hardswish_cpu", _hardswish, check_all_same_dtype=True)
_HARDSWISH_DERIVATIVE = Derivative(
    "HardswishBackward0",
    save=("self",),
    grads={"self": lambda grad, saved: hardswish_backward(grad, saved.self)},
)
hardswish = native_function(
    "hardswish(Tensor self) -> Tensor",
    "hardswish.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_hardswish_kernel,
    derivative=_HARDSWISH_DERIVATIVE,
    variants="function",
    doc="``torch._C._nn.hardswish``: ``x * min(max(x + 3, 0), 6) / 6``.",
)
hardswish_ = native_function(
    "hardswish_(Tensor(a!) self) -> Tensor(a!)",
    kernel=_hardswish_kernel,
    derivative=_HARDSWISH_DERIVATIVE,
    python_bindings=False,
    doc="``torch._C._nn.hardswish_``: ``hardswish`` in place.",
)


# hardshrink: 0 inside [-lambd, lambd], else x; softshrink also moves x towards 0 by lambd.


def _hardshrink(x, lambd=0.5):
    lambd = _scalar_as(x, lambd)
    return np.where((x >= -lambd) & (x <= lambd), x * 0, x)


def _softshrink(x, lambd=0.5):
    lambd = _scalar_as(x, lambd)
    return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x * 0))


def _shrink_grad(grad, saved):
    """``hardshrink_backward`` / ``softshrink_backward``: the gradient passes outside
    ``[-lambd, lambd]``, 0 inside."""
    x, lambd = saved.self, saved.lambd
    return where((x > lambd).logical_or(x < -lambd), grad, 0.0)


def _check_softshrink(input, lambd=0.5, out=None):
    """``softshrink_check``: a dtype dispatch over floating types, then ``lambd`` in
    ``[0, max]`` of the input's type."""
    if input._dtype.name not in FLOATING_TYPES:
        raise NotImplementedError(
            f"\"softshrink_check\" not implemented for '{input._dtype.scalar_name}'"
        )
    if lambd < 0:
        largest = float(np.finfo(input._dtype.numpy).max)  # C++ prints it as ``%g``
        raise RuntimeError(
            f"lambda must be in range [0, {largest:g}] for input dtype "
            f"{input._dtype.scalar_name}, but found {float(lambd):g}"
        )


hardshrink = native_function(
    "hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor",
    "hardshrink.out(Tensor self, Scalar lambd=0.5, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_pointwise("hardshrink_cpu", _hardshrink,
                      check_all_same_dtype=True),
    derivative=Derivative("HardshrinkBackward0", save=("self", "lambd"),
                          grads={"self": _shrink_grad}),
    doc="``torch.hardshrink``: 0 where ``|x| <= lambd``, else ``x``.",
)  # fmt: skip
softshrink = native_function(
    "softshrink(Tensor self, Scalar lambd=0.5) -> Tensor",
    "softshrink.out(Tensor self, Scalar lambd=0.5, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_pointwise("softshrink_cpu", _softshrink,
                      check_all_same_dtype=True),
    check=_check_softshrink,
    derivative=Derivative("SoftshrinkBackward0", save=("self", "lambd"),
                          grads={"self": _shrink_grad}),
    variants="function",
    doc="``torch._C._nn.softshrink``: ``x - lambd`` above ``lambd``, ``x + lambd`` below "
    "``-lambd``, 0 between.",
)  # fmt: skip


# log_sigmoid: log(1 / (1 + exp(-x))) = min(x, 0) - log1p(exp(-|x|)), which never overflows.


def _check_log_sigmoid(self: Tensor) -> None:
    if self._dtype.name not in FLOATING_TYPES:
        raise NotImplementedError(
            f"\"log_sigmoid_cpu\" not implemented for '{self._dtype.scalar_name}'"
        )


def _log_sigmoid_forward_kernel(self: Tensor):
    """``log_sigmoid_forward``'s CPU kernel: the output and the buffer ``exp(-|x|)``, both
    contiguous (``empty_like(input, contiguous)``)."""
    _check_log_sigmoid(self)
    strides = contiguous_strides(self._size)
    output = Tensor._empty_strided(self._size, strides, self._dtype)
    buffer = Tensor._empty_strided(self._size, strides, self._dtype)
    if self.numel():
        x = _opmath(self._array)
        with np.errstate(over="ignore", under="ignore"):
            z = np.exp(-np.abs(x))
            values = np.minimum(x, 0) - np.log1p(z)
        np.copyto(output._array, values, casting="unsafe")
        np.copyto(buffer._array, z, casting="unsafe")
    return output, buffer


def log_sigmoid_forward_meta(self: Tensor):
    """The meta kernel (``meta_reductions``): the checks, then two tensors laid out like
    the input, as PyTorch's meta function (``empty_like``) lays them out, unlike its CPU
    kernel."""
    _check_log_sigmoid(self)
    return empty_like(self), empty_like(self)


def log_sigmoid_backward(grad, self):
    """``log_sigmoid_backward``: ``sigmoid(-x)``, written as the CPU kernel writes it with
    ``z = exp(-|x|)``: ``1 / (1 + z)`` for a negative ``x``, else ``z / (1 + z)``."""
    z = (-self.abs()).exp()
    return grad * where(self < 0, 1 / (1 + z), z / (1 + z))


log_sigmoid_forward = native_function(
    "log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)",
    kernel=_log_sigmoid_forward_kernel,
    derivative=Derivative(
        "LogSigmoidBackward0",
        save=("self",),
        grads={"self": lambda grad, saved: log_sigmoid_backward(grad, saved.self)},
        differentiable_outputs=(0,),
    ),
    variants="function",
    doc="``torch._C._nn.log_sigmoid_forward``: ``log_sigmoid`` and its buffer.",
)
log_sigmoid = native_function(
    "log_sigmoid(Tensor self) -> Tensor",
    kernel=lambda self: log_sigmoid_forward.overloads["log_sigmoid_forward"](self)[0],
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._C._nn.log_sigmoid``: ``log(sigmoid(x))``, stable for large ``|x|``.",
)


# glu: the first half of ``dim`` times the sigmoid of the second half.


def _glu_halves(self: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    """``glu``'s meta function: a scalar or an odd ``dim`` is refused; else the halves.
    (``F.glu`` refuses a scalar first, with another message.)"""
    if self.dim() == 0:
        raise RuntimeError("glu does not support 0-dimensional tensors")
    dim = wrap_dim(dim, self.dim())
    size = self._size[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    half = size // 2
    return self.narrow(dim, 0, half), self.narrow(dim, half, half)


@dispatch_dtypes("glu_cpu", FLOATING_TYPES)
@ignoring_float_errors(all="ignore")  # exp(-b) overflows to inf: the sigmoid is then 0
def _glu_kernel(out, a, b):
    a, b = _opmath(a), _opmath(b)
    np.copyto(out, a * (1 / (1 + np.exp(-b))), casting="unsafe")


def _glu_impl(operands, out, inplace):
    self, dim = operands
    first, second = _glu_halves(self, dim)
    # ``build_borrowing_binary_op(out, first_half, second_half)``: laid out like the halves.
    iterator = TensorIterator("glu", (first, second), out=out, inplace=inplace)
    return iterator.run(_glu_kernel)


def glu_backward(grad, self, dim):
    """``glu_backward``: with ``s = sigmoid(b)``, ``grad * s`` for the first half and
    ``grad * a * s * (1 - s)`` for the second, joined along ``dim`` (contiguous)."""
    from .joining import cat

    first, second = _glu_halves(self, dim)
    s = second.sigmoid()
    grad_first = grad * s
    return cat([grad_first, grad_first * first * (1 - s)], wrap_dim(dim, self.dim()))


glu = native_function(
    "glu(Tensor self, int dim=-1) -> Tensor",
    "glu.out(Tensor self, int dim=-1, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=structured(_glu_impl),
    derivative=Derivative(
        "GluBackward0",
        save=("self", "dim"),
        grads={"self": lambda grad, saved: glu_backward(grad, saved.self, saved.dim)},
    ),
    variants="function",
    doc="``torch._C._nn.glu``: ``a * sigmoid(b)``, ``a`` and ``b`` the halves of ``dim``.",
)


# prelu: x where positive, else weight * x, with one weight per channel (dim 1).


@dispatch_dtypes("prelu_cpu", FLOATING_TYPES)
def _prelu_loop(out, x, weight):
    x, weight = _opmath(x), _opmath(weight)
    np.copyto(out, np.where(x > 0, x, weight * x), casting="unsafe")


def _prelu_kernel_impl(operands, out, inplace):
    """``_prelu_kernel`` writes into ``empty_like(self)``, which keeps the input's strides
    even where TensorIterator would not (an empty, stepped or expanded input)."""
    self, weight = operands
    if out is None:
        out = empty_like(self)
    iterator = TensorIterator("_prelu_kernel", (self, weight), out=out, inplace=inplace)
    return iterator.run(_prelu_loop)


def _prelu_self_grad(grad, saved):
    """``_prelu_kernel_backward``'s first result: ``grad`` where positive, else
    ``weight * grad``."""
    return where(saved.self > 0, grad, saved.weight * grad)


def _prelu_weight_grad(grad, saved):
    """Its second: ``self * grad`` where not positive, summed to ``weight``'s shape."""
    return sum_to(where(saved.self > 0, 0.0, saved.self * grad), saved.weight.shape)


_prelu_kernel = native_function(
    "_prelu_kernel(Tensor self, Tensor weight) -> Tensor",
    kernel=structured(_prelu_kernel_impl),
    derivative=Derivative(
        "PreluKernelBackward0",
        save=("self", "weight"),
        grads={"self": _prelu_self_grad, "weight": _prelu_weight_grad},
    ),
    variants="function",
    doc="``torch._prelu_kernel``: ``self`` where positive, else ``weight * self`` (the "
    "weight already broadcast to ``self``).",
)


def _prelu(self: Tensor, weight: Tensor) -> Tensor:
    """``at::prelu`` (CompositeImplicitAutograd): the checks, then ``weight`` reshaped to
    broadcast along dim 1 (a view: ``ViewBackward0``), then ``_prelu_kernel``."""
    if self._dtype is not weight._dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {self._dtype.scalar_name} and "
            f"{weight._dtype.scalar_name}"
        )
    if weight.numel() != 1:
        if self.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = self._size[1] if self.dim() > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = {channels}."
            )
    if weight.dim() > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}"
        )
    if self.dim() != weight.dim():
        shape = [1] * self.dim()
        if self.dim() > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return _prelu_kernel.overloads["_prelu_kernel"](self, weight)


prelu = native_function(
    "prelu(Tensor self, Tensor weight) -> Tensor",
    kernel=_prelu,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.prelu``: ``x`` where positive, else ``weight * x``, one weight per channel.",
)

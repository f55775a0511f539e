"""Unary math: ``abs``, ``exp``, ``sin``, ``floor``, ``clamp``… (``UnaryOps.cpp``).

Two families, as in PyTorch:

* **floating functions** (``exp``, ``sqrt``, ``sin``…): an integer or bool input is
  first promoted to the default float dtype, so ``sqrt(int_tensor)`` is float32 and
  ``int_tensor.sqrt_()`` fails its cast check;
* **dtype-keeping functions** (``abs``, ``neg``, ``sign``, ``floor``, ``round``…):
  the result has the input's dtype (and so must an ``out=`` tensor); ``floor`` of an
  integer is a copy.

Each is one ``native_function`` declaration: the functional, in-place and ``out=``
overloads, and the function ``vizgrad.exp_`` where PyTorch has ``torch.exp_``. The
aliases PyTorch declares as operators of their own (``arcsin``, ``absolute``, ``fix``,
``clip``…) are CompositeImplicitAutograd, calling the main operator's overloads.
"""

from __future__ import annotations

import math

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT, NONDIFFERENTIABLE
from ..dtypes import BOOL, COMPLEX, CPP_TYPE_NAMES, INTEGRAL, get_default_dtype
from ..dtypes import bool as bool_dtype
from ..promotion import can_cast, result_type
from .arithmetic import check_scalar_fits, composite_outs, opmath, pow
from .creation import empty_like, zeros_like
from .declaration import alias_kernels, native_function
from .elementwise import check_same_dtype, elementwise, structured
from .float_errors import ignoring_float_errors
from .iterator import (
    ALL_TYPES,
    ALL_TYPES_AND_COMPLEX,
    COMPLEX_TYPES,
    FLOATING_TYPES,
    TensorIterator,
    dispatch_dtypes,
    resize_output,
)
from .logical import where

__all__ = [
    # floating functions
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
    "sin", "cos", "tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh",
    "sigmoid", "erf", "deg2rad", "rad2deg",
    # dtype-keeping functions
    "abs", "absolute", "neg", "negative", "positive", "sign", "sgn", "square", "relu",
    "floor", "ceil", "trunc", "fix", "round", "frac",
    "clamp", "clip", "clamp_min", "clamp_max", "nan_to_num",
    # tests of values
    "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit",
    # the in-place functions (``torch.exp_``)
    "exp_", "exp2_", "expm1_", "log_", "log2_", "log10_", "log1p_", "sqrt_", "rsqrt_",
    "reciprocal_", "sin_", "cos_", "tan_", "asin_", "acos_", "atan_", "arcsin_", "arccos_",
    "arctan_", "sinh_", "cosh_", "tanh_", "asinh_", "acosh_", "atanh_", "arcsinh_",
    "arccosh_", "arctanh_", "sigmoid_", "erf_", "deg2rad_", "rad2deg_", "abs_", "neg_",
    "negative_", "square_", "relu_", "floor_", "ceil_", "trunc_", "fix_", "round_", "frac_",
    "clamp_", "clip_", "clamp_min_", "clamp_max_", "nan_to_num_",
]  # fmt: skip

_FLOATING_AND_COMPLEX = FLOATING_TYPES | COMPLEX_TYPES


# --- derivative formulas (``derivatives.yaml``) ---------------------------------------
# A unary formula reads either its input (``self``) or its output (``result``), which
# PyTorch saves when the derivative is cheaper in terms of it: d exp(x) = exp(x).


def _from_self(node_name: str, slope, complex: bool = False):
    """``grad`` times a slope computed from the input: ``slope(grad, self)``. ``complex``:
    the formula holds for complex numbers too (its slope conjugated, as PyTorch's)."""
    return Derivative(node_name, save=("self",), complex=complex,
                      grads={"self": lambda grad, saved: slope(grad, saved.self)})  # fmt: skip


def _from_result(node_name: str, slope, complex: bool = False):
    """``grad`` times a slope computed from the output: ``slope(grad, result)``."""
    return Derivative(node_name, save=("result",), complex=complex,
                      grads={"self": lambda grad, saved: slope(grad, saved.result)})  # fmt: skip


def _zero_gradient(node_name: str):
    """Step functions (``floor``, ``sign``…) are flat almost everywhere: gradient 0."""
    return Derivative(node_name, grads={"self": lambda grad, saved: zeros_like(grad)})


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# --- floating functions --------------------------------------------------------------


def _erf(x: np.ndarray) -> np.ndarray:
    """The error function (NumPy has none): a series near 0, else via ``erfc``.

    ``erfc`` is the Chebyshev fit of *Numerical Recipes* (3rd ed., ``Erf::erfccheb``),
    accurate to double precision; the series keeps small arguments' relative accuracy.
    """
    z = np.abs(x.astype(np.float64))
    t = 2.0 / (2.0 + z)
    ty = 4.0 * t - 2.0
    d = dd = 0.0
    for coefficient in _ERFC_COEFFICIENTS[:0:-1]:
        d, dd = ty * d - dd + coefficient, d
    erfc = t * np.exp(-z * z + 0.5 * (_ERFC_COEFFICIENTS[0] + ty * d) - dd)
    small = np.minimum(z, 0.5)
    term = small.copy()
    series = small.copy()
    for n in range(1, 14):  # Maclaurin series, 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        term = -term * small * small / n
        series = series + term / (2 * n + 1)
    magnitude = np.where(z < 0.5, series * (2.0 / math.sqrt(math.pi)), 1.0 - erfc)
    return np.copysign(magnitude, x)


_ERFC_COEFFICIENTS = (
    -1.3026537197817094, 6.4196979235649026e-1, 1.9476473204185836e-2, -9.561514786808631e-3,
    -9.46595344482036e-4, 3.66839497852761e-4, 4.2523324806907e-5, -2.0278578112534e-5,
    -1.624290004647e-6, 1.303655835580e-6, 1.5626441722e-8, -8.5238095915e-8,
    6.529054439e-9, 5.059343495e-9, -9.91364156e-10, -2.27365122e-10, 9.6467911e-11,
    2.394038e-12, -6.886027e-12, 8.94487e-13, 3.13092e-13, -1.12708e-13, 3.81e-16,
    7.106e-15, -1.523e-15, -9.4e-17, 1.21e-16, -2.8e-17,
)  # fmt: skip


def _sigmoid(x):
    return np.reciprocal(1 + np.exp(-x))


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def floating_loop(kernel_name: str, numpy_function, supported=_FLOATING_AND_COMPLEX) -> elementwise:
    """A floating function's loop: integer inputs compute in the default float dtype."""

    if isinstance(numpy_function, np.ufunc):
        # A ufunc writes straight into the output (casting as the copy would), without
        # a temporary result to copy from.
        @dispatch_dtypes(kernel_name, supported)
        @ignoring_float_errors(all="ignore")  # log(0) = -inf and sqrt(-1) = nan are answers
        def compute(out, x):
            numpy_function(x, out=out, casting="unsafe")
    else:

        @dispatch_dtypes(kernel_name, supported)
        @ignoring_float_errors(all="ignore")
        def compute(out, x):
            np.copyto(out, numpy_function(x), casting="unsafe")

    return elementwise(compute, promote_integer_inputs_to_float=True)


exp = native_function(
    "exp(Tensor self) -> Tensor",
    "exp_(Tensor(a!) self) -> Tensor(a!)",
    "exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("exp_vml_cpu", np.exp),
    derivative=_from_result("ExpBackward0", lambda grad, y: grad * y.conj(), complex=True),
    inplace_variants="function, method",
    doc="``torch.exp``: ``e ** x``; integer inputs compute in the default float dtype.",
)
exp_ = exp.inplace
exp2 = native_function(
    "exp2(Tensor self) -> Tensor",
    "exp2_(Tensor(a!) self) -> Tensor(a!)",
    "exp2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("exp2_vml_cpu", np.exp2),
    derivative=_from_result("Exp2Backward0", lambda grad, y: grad * y * _LN2),
    inplace_variants="function, method",
    doc="``torch.exp2``: ``2 ** x``; integer inputs compute in the default float dtype.",
)
exp2_ = exp2.inplace
expm1 = native_function(
    "expm1(Tensor self) -> Tensor",
    "expm1_(Tensor(a!) self) -> Tensor(a!)",
    "expm1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("expm1_vml_cpu", np.expm1),
    derivative=_from_result("Expm1Backward0", lambda grad, y: grad * (y + 1)),
    inplace_variants="function, method",
    doc="``torch.expm1``: ``e ** x - 1``, exact near 0; integer inputs compute in the default float dtype.",
)
expm1_ = expm1.inplace
log = native_function(
    "log(Tensor self) -> Tensor",
    "log_(Tensor(a!) self) -> Tensor(a!)",
    "log.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("log_vml_cpu", np.log),
    derivative=_from_self("LogBackward0", lambda grad, x: grad / x.conj(), complex=True),
    inplace_variants="function, method",
    doc="``torch.log``: the natural logarithm; integer inputs compute in the default float dtype.",
)
log_ = log.inplace
log2 = native_function(
    "log2(Tensor self) -> Tensor",
    "log2_(Tensor(a!) self) -> Tensor(a!)",
    "log2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("log2_vml_cpu", np.log2),
    derivative=_from_self("Log2Backward0", lambda grad, x: grad / (x * _LN2)),
    inplace_variants="function, method",
    doc="``torch.log2``: the base-2 logarithm; integer inputs compute in the default float dtype.",
)
log2_ = log2.inplace
log10 = native_function(
    "log10(Tensor self) -> Tensor",
    "log10_(Tensor(a!) self) -> Tensor(a!)",
    "log10.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("log10_vml_cpu", np.log10),
    derivative=_from_self("Log10Backward0", lambda grad, x: grad / (x * _LN10)),
    inplace_variants="function, method",
    doc="``torch.log10``: the base-10 logarithm; integer inputs compute in the default float dtype.",
)
log10_ = log10.inplace
log1p = native_function(
    "log1p(Tensor self) -> Tensor",
    "log1p_(Tensor(a!) self) -> Tensor(a!)",
    "log1p.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("log1p_vml_cpu", np.log1p),
    derivative=_from_self("Log1PBackward0", lambda grad, x: grad / (x + 1)),
    inplace_variants="function, method",
    doc="``torch.log1p``: ``log(1 + x)``, exact near 0; integer inputs compute in the default float dtype.",
)
log1p_ = log1p.inplace
sqrt = native_function(
    "sqrt(Tensor self) -> Tensor",
    "sqrt_(Tensor(a!) self) -> Tensor(a!)",
    "sqrt.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("sqrt_vml_cpu", np.sqrt),
    derivative=_from_result("SqrtBackward0", lambda grad, y: grad / (2 * y.conj()), complex=True),
    inplace_variants="function, method",
    doc="``torch.sqrt``: the square root; integer inputs compute in the default float dtype.",
)
sqrt_ = sqrt.inplace
# d x**-1/2 = -1/2 x**-3/2 = -1/2 rsqrt(x)**3
rsqrt = native_function(
    "rsqrt(Tensor self) -> Tensor",
    "rsqrt_(Tensor(a!) self) -> Tensor(a!)",
    "rsqrt.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("rsqrt_vml_cpu", _rsqrt),
    derivative=_from_result("RsqrtBackward0", lambda grad, y: -0.5 * grad * y.pow(3)),
    inplace_variants="function, method",
    doc="``torch.rsqrt``: ``1 / sqrt(x)``; integer inputs compute in the default float dtype.",
)
rsqrt_ = rsqrt.inplace
reciprocal = native_function(
    "reciprocal(Tensor self) -> Tensor",
    "reciprocal_(Tensor(a!) self) -> Tensor(a!)",
    "reciprocal.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("reciprocal_vml_cpu", np.reciprocal),
    derivative=_from_result(
        "ReciprocalBackward0", lambda grad, y: -grad * (y * y).conj(), complex=True
    ),
    inplace_variants="function, method",
    doc="``torch.reciprocal``: ``1 / x``; integer inputs compute in the default float dtype.",
)
reciprocal_ = reciprocal.inplace
sin = native_function(
    "sin(Tensor self) -> Tensor",
    "sin_(Tensor(a!) self) -> Tensor(a!)",
    "sin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("sin_vml_cpu", np.sin),
    derivative=_from_self("SinBackward0", lambda grad, x: grad * x.cos().conj(), complex=True),
    inplace_variants="function, method",
    doc="``torch.sin``: the sine; integer inputs compute in the default float dtype.",
)
sin_ = sin.inplace
cos = native_function(
    "cos(Tensor self) -> Tensor",
    "cos_(Tensor(a!) self) -> Tensor(a!)",
    "cos.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("cos_vml_cpu", np.cos),
    derivative=_from_self("CosBackward0", lambda grad, x: grad * -x.sin().conj(), complex=True),
    inplace_variants="function, method",
    doc="``torch.cos``: the cosine; integer inputs compute in the default float dtype.",
)
cos_ = cos.inplace
# d tan(x) = 1 + tan(x)**2
tan = native_function(
    "tan(Tensor self) -> Tensor",
    "tan_(Tensor(a!) self) -> Tensor(a!)",
    "tan.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("tan_vml_cpu", np.tan),
    derivative=_from_result("TanBackward0", lambda grad, y: grad * (1 + y.pow(2))),
    inplace_variants="function, method",
    doc="``torch.tan``: the tangent; integer inputs compute in the default float dtype.",
)
tan_ = tan.inplace
# d asin(x) = 1 / sqrt(1 - x**2); d acos(x) is its negative.
asin = native_function(
    "asin(Tensor self) -> Tensor",
    "asin_(Tensor(a!) self) -> Tensor(a!)",
    "asin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("asin_vml_cpu", np.arcsin),
    derivative=_from_self("AsinBackward0", lambda grad, x: grad * (-x * x + 1).rsqrt()),
    inplace_variants="function, method",
    doc="``torch.asin``: the inverse sine; integer inputs compute in the default float dtype.",
)
asin_ = asin.inplace
acos = native_function(
    "acos(Tensor self) -> Tensor",
    "acos_(Tensor(a!) self) -> Tensor(a!)",
    "acos.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("acos_vml_cpu", np.arccos),
    derivative=_from_self("AcosBackward0", lambda grad, x: grad * -((-x * x + 1).rsqrt())),
    inplace_variants="function, method",
    doc="``torch.acos``: the inverse cosine; integer inputs compute in the default float dtype.",
)
acos_ = acos.inplace
atan = native_function(
    "atan(Tensor self) -> Tensor",
    "atan_(Tensor(a!) self) -> Tensor(a!)",
    "atan.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("atan_vml_cpu", np.arctan),
    derivative=_from_self("AtanBackward0", lambda grad, x: grad / (x * x + 1)),
    inplace_variants="function, method",
    doc="``torch.atan``: the inverse tangent; integer inputs compute in the default float dtype.",
)
atan_ = atan.inplace
sinh = native_function(
    "sinh(Tensor self) -> Tensor",
    "sinh_(Tensor(a!) self) -> Tensor(a!)",
    "sinh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("sinh_vml_cpu", np.sinh),
    derivative=_from_self("SinhBackward0", lambda grad, x: grad * x.cosh()),
    inplace_variants="function, method",
    doc="``torch.sinh``: the hyperbolic sine; integer inputs compute in the default float dtype.",
)
sinh_ = sinh.inplace
cosh = native_function(
    "cosh(Tensor self) -> Tensor",
    "cosh_(Tensor(a!) self) -> Tensor(a!)",
    "cosh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("cosh_vml_cpu", np.cosh),
    derivative=_from_self("CoshBackward0", lambda grad, x: grad * x.sinh()),
    inplace_variants="function, method",
    doc="``torch.cosh``: the hyperbolic cosine; integer inputs compute in the default float dtype.",
)
cosh_ = cosh.inplace
# ``tanh_backward``: 1 - tanh(x)**2
tanh = native_function(
    "tanh(Tensor self) -> Tensor",
    "tanh_(Tensor(a!) self) -> Tensor(a!)",
    "tanh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("tanh_vml_cpu", np.tanh),
    derivative=_from_result(
        "TanhBackward0", lambda grad, y: grad * (1 - y * y).conj(), complex=True
    ),
    inplace_variants="function, method",
    doc="``torch.tanh``: the hyperbolic tangent; integer inputs compute in the default float dtype.",
)
tanh_ = tanh.inplace
# ``sigmoid_backward``: s(x) * (1 - s(x))
sigmoid = native_function(
    "sigmoid(Tensor self) -> Tensor",
    "sigmoid_(Tensor(a!) self) -> Tensor(a!)",
    "sigmoid.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("sigmoid_vml_cpu", _sigmoid),
    derivative=_from_result(
        "SigmoidBackward0", lambda grad, y: grad * (1 - y).conj() * y.conj(), complex=True
    ),
    inplace_variants="function, method",
    doc="``torch.sigmoid``: the logistic function ``1 / (1 + e ** -x)``; integer inputs compute in the default float dtype.",
)
sigmoid_ = sigmoid.inplace
# d erf(x) = 2 / sqrt(pi) * exp(-x**2)
erf = native_function(
    "erf(Tensor self) -> Tensor",
    "erf_(Tensor(a!) self) -> Tensor(a!)",
    "erf.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("erf_vml_cpu", _erf, supported=FLOATING_TYPES),
    derivative=_from_self(
        "ErfBackward0", lambda grad, x: _TWO_OVER_SQRT_PI * (-(x.pow(2))).exp() * grad
    ),
    inplace_variants="function, method",
    doc="``torch.erf``: the Gauss error function; integer inputs compute in the default float dtype.",
)
erf_ = erf.inplace


# --- inverse hyperbolic functions ---------------------------------------------------


def _inplace_not_implemented(node_name: str, function_name: str) -> Derivative:
    """``derivatives.yaml``'s ``not_implemented("inplace version of acosh")``: PyTorch
    records a node for ``x.acosh_()``, and it is its backward that refuses."""

    def refuse(grad, saved):
        raise NotImplementedError(
            f"the derivative for 'inplace version of {function_name}' is not implemented."
        )

    return Derivative(node_name, grads={"self": refuse}, complex=True)


def _acosh_slope(grad, x):
    # d acosh(x) = 1 / sqrt(x**2 - 1). For real x PyTorch saves an rsqrt: sqrt(x*x - 1)
    # is sqrt(x + 1) * sqrt(x - 1) there, but not across a complex branch cut.
    if x.is_complex():
        return grad * ((x + 1).rsqrt() * (x - 1).rsqrt()).conj()
    return grad * (x * x - 1).rsqrt()


acosh = native_function(
    "acosh(Tensor self) -> Tensor",
    "acosh_(Tensor(a!) self) -> Tensor(a!)",
    "acosh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("acosh_cpu", np.arccosh),
    derivatives={
        "acosh": _from_self("AcoshBackward0", _acosh_slope, complex=True),
        "acosh_": _inplace_not_implemented("AcoshBackward1", "acosh"),
    },
    inplace_variants="function, method",
    doc="``torch.acosh``: the inverse hyperbolic cosine (NaN below 1); integer inputs "
    "compute in the default float dtype.",
)
acosh_ = acosh.inplace
# d asinh(x) = 1 / sqrt(x**2 + 1)
asinh = native_function(
    "asinh(Tensor self) -> Tensor",
    "asinh_(Tensor(a!) self) -> Tensor(a!)",
    "asinh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("asinh_cpu", np.arcsinh),
    derivatives={
        "asinh": _from_self(
            "AsinhBackward0", lambda grad, x: grad * (x.pow(2) + 1).rsqrt().conj(), complex=True
        ),
        "asinh_": _inplace_not_implemented("AsinhBackward1", "asinh"),
    },
    inplace_variants="function, method",
    doc="``torch.asinh``: the inverse hyperbolic sine; integer inputs compute in the default "
    "float dtype.",
)
asinh_ = asinh.inplace
# d atanh(x) = 1 / (1 - x**2)
atanh = native_function(
    "atanh(Tensor self) -> Tensor",
    "atanh_(Tensor(a!) self) -> Tensor(a!)",
    "atanh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("atanh_cpu", np.arctanh),
    derivatives={
        "atanh": _from_self(
            "AtanhBackward0", lambda grad, x: grad / (1 - x.pow(2)).conj(), complex=True
        ),
        "atanh_": _inplace_not_implemented("AtanhBackward1", "atanh"),
    },
    inplace_variants="function, method",
    doc="``torch.atanh``: the inverse hyperbolic tangent (±inf at ±1, NaN beyond); integer "
    "inputs compute in the default float dtype.",
)
atanh_ = atanh.inplace


# --- NumPy's names, operators of their own (CompositeImplicitAutograd) ------------------

arcsin = native_function(
    "arcsin(Tensor self) -> Tensor",
    "arcsin_(Tensor(a!) self) -> Tensor(a!)",
    "arcsin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(asin, "arcsin"),
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("arcsin.out"),
    inplace_variants="function, method",
    doc="``torch.arcsin``: NumPy's name for ``asin``.",
)
arcsin_ = arcsin.inplace
arccos = native_function(
    "arccos(Tensor self) -> Tensor",
    "arccos_(Tensor(a!) self) -> Tensor(a!)",
    "arccos.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(acos, "arccos"),
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("arccos.out"),
    inplace_variants="function, method",
    doc="``torch.arccos``: NumPy's name for ``acos``.",
)
arccos_ = arccos.inplace
arctan = native_function(
    "arctan(Tensor self) -> Tensor",
    "arctan_(Tensor(a!) self) -> Tensor(a!)",
    "arctan.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(atan, "arctan"),
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("arctan.out"),
    inplace_variants="function, method",
    doc="``torch.arctan``: NumPy's name for ``atan``.",
)
arctan_ = arctan.inplace
arccosh = native_function(
    "arccosh(Tensor self) -> Tensor",
    "arccosh_(Tensor(a!) self) -> Tensor(a!)",
    "arccosh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(acosh, "arccosh"),
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("arccosh.out"),
    inplace_variants="function, method",
    doc="``torch.arccosh``: NumPy's name for ``acosh``.",
)
arccosh_ = arccosh.inplace
arcsinh = native_function(
    "arcsinh(Tensor self) -> Tensor",
    "arcsinh_(Tensor(a!) self) -> Tensor(a!)",
    "arcsinh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(asinh, "arcsinh"),
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("arcsinh.out"),
    inplace_variants="function, method",
    doc="``torch.arcsinh``: NumPy's name for ``asinh``.",
)
arcsinh_ = arcsinh.inplace
arctanh = native_function(
    "arctanh(Tensor self) -> Tensor",
    "arctanh_(Tensor(a!) self) -> Tensor(a!)",
    "arctanh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(atanh, "arctanh"),
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("arctanh.out"),
    inplace_variants="function, method",
    doc="``torch.arctanh``: NumPy's name for ``atanh``.",
)
arctanh_ = arctanh.inplace


# --- angles: deg2rad, rad2deg -----------------------------------------------------------


def _angle_conversion(fn_name: str, factor: float, node_name: str):
    """``deg2rad``/``rad2deg``, CompositeExplicitAutograd in ATen: ``mul_out(result, self,
    factor)`` (a product with a wrapped number, which keeps float precision for float16)
    into ``result = empty_like(self)`` of the default float dtype for an integer (or bool)
    input. ``empty_like`` keeps the input's strides whenever they are dense (an empty
    stepped tensor's too), where TensorIterator would lay out its own output."""

    def refuse_complex(input, out=None):
        if input._dtype.category == COMPLEX:
            raise RuntimeError(f"{fn_name} is not supported for complex tensors.")

    @ignoring_float_errors(over="ignore")
    def compute(out, x):
        x = opmath(x)
        np.multiply(x, x.dtype.type(factor), out=out, casting="unsafe")

    def impl(operands, out, inplace):
        (self,) = operands
        if out is None and not inplace:
            dtype = get_default_dtype() if self._dtype.category <= INTEGRAL else self._dtype
            out = empty_like(self, dtype=dtype)
        # In place, an integer tensor fails the cast check, as the product would.
        iterator = TensorIterator(fn_name, operands, out=out, inplace=inplace,
                                  promote_integer_inputs_to_float=True)  # fmt: skip
        return iterator.run(compute)

    return native_function(
        f"{fn_name}(Tensor self) -> Tensor",
        f"{fn_name}_(Tensor(a!) self) -> Tensor(a!)",
        f"{fn_name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        kernel=structured(impl),
        check=refuse_complex,
        derivative=Derivative(node_name, grads={"self": lambda grad, saved: grad * factor}),
        inplace_variants="function, method",
        doc=f"``torch.{fn_name}``: ``input * {factor!r}``; integer inputs convert to the "
        "default float dtype.",
    )


# The constants of ATen's UnaryOps.cpp (M_PI_180 and M_180_PI), to double precision.
deg2rad = _angle_conversion("deg2rad", math.pi / 180, "Deg2RadBackward0")
deg2rad_ = deg2rad.inplace
rad2deg = _angle_conversion("rad2deg", 180 / math.pi, "Rad2DegBackward0")
rad2deg_ = rad2deg.inplace


# --- dtype-keeping functions ---------------------------------------------------------


def _keeping(kernel_name: str, compute, supported=ALL_TYPES_AND_COMPLEX) -> elementwise:
    """A dtype-keeping loop: the result, and an ``out=`` tensor, have the input's dtype."""
    return elementwise(dispatch_dtypes(kernel_name, supported)(compute), check_all_same_dtype=True)


def _reject_bool(message: str):
    def check(input, out=None):
        if input._dtype.category == BOOL:
            raise RuntimeError(message)

    return check


def _reject_complex(message: str):
    def check(input, out=None):
        if input._dtype.category == COMPLEX:
            raise NotImplementedError(message)

    return check


@dispatch_dtypes("abs_cpu", ALL_TYPES_AND_COMPLEX)
def _abs_kernel(out, x):
    np.absolute(x, out=out, casting="unsafe")


def _abs(operands, out, inplace):
    """The magnitude of a complex number is real: complex64 -> float32."""
    (self,) = operands
    is_complex = self._dtype.category == COMPLEX
    if is_complex and inplace:
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    if not is_complex:
        check_same_dtype(out, self._dtype)
    result_dtype = self._dtype.to_real() if is_complex and out is None else None
    it = TensorIterator("abs", (self,), out=out, inplace=inplace, result_dtype=result_dtype)
    return it.run(_abs_kernel)


# |x| has slope sign(x) (0 at x = 0, a choice: the kink has no slope).
abs = native_function(
    "abs(Tensor self) -> Tensor",
    "abs_(Tensor(a!) self) -> Tensor(a!)",
    "abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=structured(_abs),
    derivative=_from_self("AbsBackward0", lambda grad, x: grad * x.sgn(), complex=True),
    inplace_variants="function, method",
    doc="``torch.abs``: the magnitude; a complex tensor's is real (complex64 -> float32).",
)
abs_ = abs.inplace
absolute = native_function(
    "absolute(Tensor self) -> Tensor",
    "absolute_(Tensor(a!) self) -> Tensor(a!)",
    "absolute.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(abs, "absolute"),
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("absolute.out"),
    doc="``torch.absolute``: an alias of ``abs``.",
)

_NEGATING_BOOLS = (
    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)
neg = native_function(
    "neg(Tensor self) -> Tensor",
    "neg_(Tensor(a!) self) -> Tensor(a!)",
    "neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_keeping("neg_cpu", lambda out, x: np.negative(x, out=out)),
    check=_reject_bool(_NEGATING_BOOLS),
    derivative=Derivative("NegBackward0", grads={"self": lambda grad, saved: -grad}, complex=True),
    inplace_variants="function, method",
    doc="``torch.neg``: ``-x`` (unsigned integers wrap around); the result keeps the input's dtype.",
)
neg_ = neg.inplace
negative = native_function(
    "negative(Tensor self) -> Tensor",
    "negative_(Tensor(a!) self) -> Tensor(a!)",
    "negative.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(neg, "negative"),
    check=_reject_bool(_NEGATING_BOOLS),
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("negative.out"),
    inplace_variants="function, method",
    doc="``torch.negative``: an alias of ``neg``.",
)
negative_ = negative.inplace


def _positive_kernel(self):
    if self._dtype.category == BOOL:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


# ``+x``: the tensor itself, not a copy or a view (so no node is recorded either).
positive = native_function(
    "positive(Tensor(a) self) -> Tensor(a)",
    kernel=_positive_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.positive``: ``input`` itself (``+input``); a bool tensor is refused.",
)


def _sign_kernel(out, x):
    # (x > 0) - (x < 0): the sign of NaN is 0, as PyTorch computes it (NumPy gives NaN).
    if x.dtype == np.bool_:
        np.copyto(out, x)
        return
    np.subtract((x > 0).astype(out.dtype), (x < 0).astype(out.dtype), out=out)


def _sgn_kernel(out, x):
    if x.dtype.kind != "c":
        _sign_kernel(out, x)
        return
    magnitude = np.absolute(x)
    with np.errstate(all="ignore"):
        np.copyto(out, np.where(magnitude == 0, 0, x / np.where(magnitude == 0, 1, magnitude)))


sign = native_function(
    "sign(Tensor self) -> Tensor",
    "sign_(Tensor(a!) self) -> Tensor(a!)",
    "sign.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_keeping("sign_cpu", _sign_kernel, ALL_TYPES_AND_COMPLEX | {"bool"}),
    check=_reject_complex(
        "Unlike NumPy, vizgrad.sign is not intended to support complex numbers. Please use "
        "vizgrad.sgn instead."
    ),
    derivative=_zero_gradient("SignBackward0"),
    doc="``torch.sign``: -1, 0 or 1 (0 for NaN); the result keeps the input's dtype.",
)


def _sgn_backward(grad, saved):
    """``sgn_backward``: a real sign is a step function (zero gradient); ``z / |z|``
    moves only along the circle: ``(grad - sgn**2 * conj(grad)) / (2 |z|)``, 0 at 0."""
    self, sgn = saved.self, saved.result
    if not self.is_complex():
        return zeros_like(grad)
    magnitude = self.abs()
    return ((grad - (sgn * sgn) * grad.conj()) / (2.0 * magnitude)).masked_fill_(
        magnitude == 0.0, 0.0
    )


# The sign of a number, and of a complex ``z``, ``z / |z|``.
sgn = native_function(
    "sgn(Tensor self) -> Tensor",
    "sgn_(Tensor(a!) self) -> Tensor(a!)",
    "sgn.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_keeping("sgn_cpu", _sgn_kernel, ALL_TYPES_AND_COMPLEX | {"bool"}),
    derivative=Derivative(
        "SgnBackward0", save=("self", "result"), grads={"self": _sgn_backward}, complex=True
    ),
    doc="``torch.sgn``: the sign; ``z / |z|`` for a complex ``z``.",
)


def _relu_kernel(out, x):
    np.maximum(x, 0, out=out, casting="unsafe")


def _check_relu(input):
    _reject_bool("Boolean inputs not supported for relu")(input)
    _reject_complex("clamp is not supported for complex types")(input)


# ``threshold_backward(grad, result, 0)``: the gradient passes where the output is positive.
@dispatch_dtypes("threshold_cpu", ALL_TYPES)
def _threshold_backward_loop(out, x, grad_output, threshold):
    np.copyto(out, np.where(x <= threshold, 0, grad_output), casting="unsafe")


def _threshold_backward(operands, out, inplace):
    grad_output, x, threshold = operands
    # PyTorch's iterator takes ``self`` first (the result is laid out like it), and the
    # threshold is the loop's scalar, outside type promotion.
    iterator = TensorIterator("threshold_backward", (x, grad_output), out=out, inplace=inplace)
    return iterator.run(_threshold_backward_loop, threshold=threshold)


# ReLU's derivative as PyTorch writes it: one operator, not a comparison and a where.
threshold_backward = native_function(
    "threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
    kernel=structured(_threshold_backward),
    derivative=Derivative(
        "ThresholdBackwardBackward0",
        save=("self", "threshold"),
        grads={
            "grad_output": lambda grad, saved: threshold_backward(
                grad, saved.self, saved.threshold
            ),
            "self": lambda grad, saved: zeros_like(grad),
        },
    ),
    variants="function",
    doc="``torch.ops.aten.threshold_backward``: ``grad_output`` where ``self > threshold``, "
    "else 0: the gradient of ``relu`` and ``threshold``.",
)


relu = native_function(
    "relu(Tensor self) -> Tensor",
    "relu_(Tensor(a!) self) -> Tensor(a!)",
    kernel=_keeping("relu_cpu", _relu_kernel),
    check=_check_relu,
    derivative=_from_result("ReluBackward0", lambda grad, y: threshold_backward(grad, y, 0)),
    inplace_variants="function, method",
    doc="``torch.relu``: ``max(x, 0)``; the result keeps the input's dtype.",
)
relu_ = relu.inplace


def _whole(numpy_function):
    """A rounding loop: an integer is already whole."""

    def compute(out, x):
        if x.dtype.kind in "iu":
            np.copyto(out, x)
        else:
            numpy_function(x, out=out)

    return compute


floor = native_function(
    "floor(Tensor self) -> Tensor",
    "floor_(Tensor(a!) self) -> Tensor(a!)",
    "floor.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_keeping("floor_vml_cpu", _whole(np.floor), ALL_TYPES),
    check=_reject_complex("floor is not supported for complex inputs"),
    derivative=_zero_gradient("FloorBackward0"),
    inplace_variants="function, method",
    doc="``torch.floor``: the largest whole number not above ``x``; the result keeps the input's dtype.",
)
floor_ = floor.inplace
ceil = native_function(
    "ceil(Tensor self) -> Tensor",
    "ceil_(Tensor(a!) self) -> Tensor(a!)",
    "ceil.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_keeping("ceil_vml_cpu", _whole(np.ceil), ALL_TYPES),
    check=_reject_complex("ceil is not supported for complex inputs"),
    derivative=_zero_gradient("CeilBackward0"),
    inplace_variants="function, method",
    doc="``torch.ceil``: the smallest whole number not below ``x``; the result keeps the input's dtype.",
)
ceil_ = ceil.inplace
trunc = native_function(
    "trunc(Tensor self) -> Tensor",
    "trunc_(Tensor(a!) self) -> Tensor(a!)",
    "trunc.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_keeping("trunc_vml_cpu", _whole(np.trunc), ALL_TYPES),
    check=_reject_complex("trunc is not supported for complex inputs"),
    derivative=_zero_gradient("TruncBackward0"),
    inplace_variants="function, method",
    doc="``torch.trunc``: ``x`` rounded toward zero; the result keeps the input's dtype.",
)
trunc_ = trunc.inplace
fix = native_function(
    "fix(Tensor self) -> Tensor",
    "fix_(Tensor(a!) self) -> Tensor(a!)",
    "fix.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels=alias_kernels(trunc, "fix"),
    check=_reject_complex("trunc is not supported for complex inputs"),
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("fix.out"),
    inplace_variants="function, method",
    doc="``torch.fix``: an alias of ``trunc``.",
)
fix_ = fix.inplace


@dispatch_dtypes("frac_cpu", FLOATING_TYPES)
@ignoring_float_errors(invalid="ignore")  # inf - trunc(inf) is nan, PyTorch's answer
def _frac_kernel(out, x):
    np.subtract(x, np.trunc(x), out=out)


# x - trunc(x): trunc is flat, so the slope is 1.
frac = native_function(
    "frac(Tensor self) -> Tensor",
    "frac_(Tensor(a!) self) -> Tensor(a!)",
    "frac.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_frac_kernel, check_all_same_dtype=True),
    derivative=Derivative("FracBackward0", grads={"self": lambda grad, saved: grad}),
    inplace_variants="function, method",
    doc="``torch.frac``: ``x - trunc(x)``, the fractional part with the sign of ``x``.",
)
frac_ = frac.inplace


def _check_nan_to_num(input, nan=None, posinf=None, neginf=None, out=None):
    if out is not None and out._dtype is not input._dtype:
        raise RuntimeError(
            f"nan_to_num: dtype of out: {out._dtype.scalar_name} should be same as input: "
            f"{input._dtype.scalar_name}"
        )


@ignoring_float_errors(
    over="ignore"
)  # a replacement too large for the dtype becomes inf, as in C++
def _replaced_non_finite(x: np.ndarray, nan, posinf, neginf) -> np.ndarray:
    """A real array with NaN, +inf and -inf replaced (by default: 0 and the dtype's
    largest and lowest finite values)."""
    info = np.finfo(x.dtype)
    nan, posinf, neginf = (np.asarray(info.dtype.type(value)) for value in (
        0.0 if nan is None else nan,
        info.max if posinf is None else posinf,
        info.min if neginf is None else neginf,
    ))  # fmt: skip
    finite = np.where(np.isnan(x), nan, x)
    return np.where(x == np.inf, posinf, np.where(x == -np.inf, neginf, finite))


@ignoring_float_errors(invalid="ignore")  # (comparisons with NaN)
def _nan_to_num_loop(out, x, nan=None, posinf=None, neginf=None):
    if x.dtype.kind == "c":  # the real and imaginary parts, each on its own
        out.real = _replaced_non_finite(x.real, nan, posinf, neginf)
        out.imag = _replaced_non_finite(x.imag, nan, posinf, neginf)
    else:
        np.copyto(out, _replaced_non_finite(x, nan, posinf, neginf))


def _nan_to_num(operands, out, inplace):
    """ATen's CompositeExplicitAutograd ``nan_to_num``: the result is ``empty_like(input)``
    (the input's strides, when dense), and an integer tensor, which has no NaN or
    infinity, is only copied (in place, not even that)."""
    self, *replacements = operands
    if inplace:
        out = self
    elif out is None:
        out = empty_like(self)
    if self._dtype.category <= INTEGRAL:
        if out is not self:
            resize_output(out, self._size)
            out.copy_(self)
        return out
    iterator = TensorIterator("nan_to_num", (self,), out=out, inplace=inplace)
    return iterator.run(_nan_to_num_loop, *replacements)


nan_to_num = native_function(
    "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
    "nan_to_num_(Tensor(a!) self, float? nan=None, float? posinf=None, float? neginf=None) "
    "-> Tensor(a!)",
    "nan_to_num.out(Tensor self, float? nan=None, float? posinf=None, float? neginf=None, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernel=structured(_nan_to_num),
    check=_check_nan_to_num,
    # The replaced elements are constants: their gradient is 0.
    derivative=_from_self("NanToNumBackward0", lambda grad, x: grad * x.isfinite()),
    inplace_variants="function, method",
    doc="``torch.nan_to_num``: NaN, +inf and -inf replaced by ``nan`` (0), ``posinf`` and "
    "``neginf`` (the dtype's largest and lowest values); integer tensors are copied.",
)
nan_to_num_ = nan_to_num.inplace


def _round_decimals_kernel(out, x, decimals):
    if decimals == 0:
        dispatch_dtypes("round_vml_cpu", FLOATING_TYPES)(_round_half_even)(out, x)
    else:
        dispatch_dtypes("round_cpu", FLOATING_TYPES)(_round_to_decimals)(out, x, decimals)


@dispatch_dtypes("round_vml_cpu", ALL_TYPES)
def _round_half_even(out, x):
    if x.dtype.kind in "iu":
        np.copyto(out, x)
    else:
        np.rint(x, out=out)  # halves go to the even neighbour: round(2.5) == 2


def _round_to_decimals(out, x, decimals):
    # PyTorch scales by 10**decimals, rounds, and scales back (dividing for decimals < 0).
    with np.errstate(over="ignore", invalid="ignore"):
        if decimals > 0:
            scale = np.asarray(10.0**decimals, dtype=x.dtype)
            np.divide(np.rint(x * scale), scale, out=out)
        else:
            scale = np.asarray(10.0 ** (-decimals), dtype=x.dtype)
            np.multiply(np.rint(x / scale), scale, out=out)


# Two overloads, two nodes: ``round(x)`` is RoundBackward0, ``round(x, decimals=1)``
# RoundBackward1 (both flat almost everywhere).
round = native_function(  # noqa: A001 - PyTorch's name
    "round(Tensor self) -> Tensor",
    "round_(Tensor(a!) self) -> Tensor(a!)",
    "round.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "round.decimals(Tensor self, *, int decimals) -> Tensor",
    "round_.decimals(Tensor(a!) self, *, int decimals) -> Tensor(a!)",
    "round.decimals_out(Tensor self, *, int decimals, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "round": elementwise(_round_half_even, check_all_same_dtype=True),
        "round.decimals": elementwise(_round_decimals_kernel, check_all_same_dtype=True),
    },
    derivatives={
        "round": _zero_gradient("RoundBackward0"),
        "round.decimals": _zero_gradient("RoundBackward1"),
    },
    inplace_variants="function, method",
    doc="``torch.round``: half to even; with ``decimals``, to that many decimal places.",
)
round_ = round.inplace

# ``pow(input, 2)``, so a bool tensor squares to int64 as in PyTorch.
square = native_function(
    "square(Tensor self) -> Tensor",
    "square_(Tensor(a!) self) -> Tensor(a!)",
    "square.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "square": lambda self: pow.overloads["pow.Tensor_Scalar"](self, 2),
        "square_": lambda self: pow.overloads["pow_.Scalar"](self, 2),
        "square.out": lambda self, *, out: pow.overloads["pow.Tensor_Scalar_out"](self, 2, out=out),
    },
    kind=COMPOSITE_IMPLICIT,
    inplace_variants="function, method",
    doc="``torch.square``: ``pow(input, 2)``.",
)
square_ = square.inplace


# --- clamp ---------------------------------------------------------------------------


def _clamp_kernel(out, x, *bounds, has_min, has_max):
    lower = bounds[0] if has_min else None
    upper = bounds[-1] if has_max else None
    # max then min, as PyTorch: when min > max every element becomes max; NaN propagates.
    if lower is not None:
        x = np.maximum(x, lower)
    if upper is not None:
        x = np.minimum(x, upper)
    np.copyto(out, x, casting="unsafe")


def _clamp_kernel_for(scalar_bounds: bool, has_min: bool, has_max: bool):
    """The CPU kernel PyTorch reaches: a one-sided clamp is ``clamp_min``/``clamp_max``,
    and with a tensor bound that is ``maximum``/``minimum`` (which accept bools)."""
    if has_min and has_max:
        name = "clamp_scalar_cpu" if scalar_bounds else "clamp_cpu"
        return dispatch_dtypes(name, ALL_TYPES)(_clamp_kernel)
    if scalar_bounds:
        name = "clamp_min_scalar_cpu" if has_min else "clamp_max_scalar_cpu"
        return dispatch_dtypes(name, ALL_TYPES)(_clamp_kernel)
    name = "maximum_cpu" if has_min else "minimum_cpu"
    return dispatch_dtypes(name, ALL_TYPES | {"bool"})(_clamp_kernel)


def _clamping(fn_name: str, *, scalar_bounds: bool, bound: str | None = None) -> structured:
    """The set-up of ``clamp`` (``bound=None``: operands ``self, min, max``) or of
    ``clamp_min``/``clamp_max`` (operands ``self`` and the one ``bound``): a missing
    bound clamps nothing and takes no part in promotion."""

    def impl(operands, out, inplace):
        if bound is None:
            self, lower, upper = operands
            if lower is None and upper is None:
                raise RuntimeError("vizgrad.clamp: At least one of 'min' or 'max' must not be None")
        elif bound == "min":
            (self, lower), upper = operands, None
        else:
            (self, upper), lower = operands, None
        has_min, has_max = lower is not None, upper is not None
        # torch.clamp refuses complex itself; clamp_min/clamp_max with a tensor bound
        # leave it to maximum/minimum, which name their own kernel.
        if self._dtype.category == COMPLEX and (scalar_bounds or bound is None):
            raise NotImplementedError("clamp is not supported for complex types")
        bounds = tuple(b for b in (lower, upper) if b is not None)
        if scalar_bounds:
            _check_scalar_clamp_output(self, bounds, out, inplace)
        it = TensorIterator(fn_name, (self, *bounds), out=out, inplace=inplace,
                            scalar_parameters=scalar_bounds)  # fmt: skip
        kernel = _clamp_kernel_for(scalar_bounds, has_min, has_max)
        return it.run(kernel, has_min=has_min, has_max=has_max)

    return structured(impl)


def _check_scalar_clamp_output(self, bounds, out, inplace) -> None:
    # The Scalar overloads check their output with other words than TensorIterator's.
    result = result_type(self, *bounds)
    for bound in bounds:
        check_scalar_fits("clamp", bound, result)
    if inplace and not can_cast(result, self._dtype):
        raise RuntimeError(
            f"result type {result.scalar_name} can't be cast to the desired output type "
            f"{CPP_TYPE_NAMES[self._dtype.name]}"
        )
    if not inplace:
        check_same_dtype(out, result)


# --- clamp's derivatives (``clamp_backward``, ``clamp_backward_min_max``) ---------------
# The output follows ``self`` where it lies inside the bounds and follows a bound where
# that bound was applied. A bound that is None, or that the overload does not have
# (``clamp_min`` has no ``max``), clamps nothing.


def _bounds(saved):
    return getattr(saved, "min", None), getattr(saved, "max", None)


def _clamp_self_grad(grad, saved):
    lower, upper = _bounds(saved)
    inside = None
    if lower is not None:
        inside = saved.self >= lower
    if upper is not None:
        below_upper = saved.self <= upper
        inside = below_upper if inside is None else inside.logical_and(below_upper)
    return grad if inside is None else where(inside, grad, 0.0)


def _clamp_min_grad(grad, saved):
    # ``min`` wins where self is below it, unless ``max`` overrides it (min > max).
    lower, upper = _bounds(saved)
    applied = saved.self < lower
    if upper is not None:
        applied = applied.logical_and(lower < upper)
    return where(applied, grad, 0.0)


def _clamp_max_grad(grad, saved):
    # ``max`` wins where self is above it, and everywhere when min > max.
    lower, upper = _bounds(saved)
    applied = saved.self > upper
    if lower is not None:
        applied = applied.logical_or(upper < lower)
    return where(applied, grad, 0.0)


_BOUND_GRADS = {"min": _clamp_min_grad, "max": _clamp_max_grad}


def _clamp_derivative(node_name: str, *bounds: str, tensor_bounds: bool) -> Derivative:
    """Tensor bounds receive the gradient where they were applied; numbers have none."""
    grads = {"self": _clamp_self_grad}
    if tensor_bounds:
        grads.update({name: _BOUND_GRADS[name] for name in bounds})
    return Derivative(node_name, save=("self", *bounds), grads=grads)


clamp = native_function(
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    "clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
    "clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)",
    "clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)",
    "clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernels={
        "clamp": _clamping("clamp", scalar_bounds=True),
        "clamp.Tensor": _clamping("clamp", scalar_bounds=False),
    },
    derivatives={
        "clamp": _clamp_derivative("ClampBackward1", "min", "max", tensor_bounds=False),
        "clamp.Tensor": _clamp_derivative("ClampBackward0", "min", "max", tensor_bounds=True),
    },
    inplace_variants="function, method",
    doc="``torch.clamp``: every element limited to ``[min, max]`` (numbers or tensors).",
)
clamp_ = clamp.inplace
clip = native_function(
    "clip(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "clip.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    "clip_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
    "clip_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)",
    "clip.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)",
    "clip.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) "
    "-> Tensor(a!)",
    kernels=alias_kernels(clamp, "clip"),
    kind=COMPOSITE_IMPLICIT,
    kinds=composite_outs("clip.out", "clip.Tensor_out"),
    inplace_variants="function, method",
    doc="``torch.clip``: an alias of ``clamp``.",
)
clip_ = clip.inplace
clamp_min = native_function(
    "clamp_min(Tensor self, Scalar min) -> Tensor",
    "clamp_min.Tensor(Tensor self, Tensor min) -> Tensor",
    "clamp_min_(Tensor(a!) self, Scalar min) -> Tensor(a!)",
    "clamp_min_.Tensor(Tensor(a!) self, Tensor min) -> Tensor(a!)",
    "clamp_min.out(Tensor self, Scalar min, *, Tensor(a!) out) -> Tensor(a!)",
    "clamp_min.Tensor_out(Tensor self, Tensor min, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "clamp_min": _clamping("clamp_min", scalar_bounds=True, bound="min"),
        "clamp_min.Tensor": _clamping("clamp_min", scalar_bounds=False, bound="min"),
    },
    derivatives={
        "clamp_min": _clamp_derivative("ClampMinBackward0", "min", tensor_bounds=False),
        "clamp_min.Tensor": _clamp_derivative("ClampMinBackward1", "min", tensor_bounds=True),
    },
    inplace_variants="function, method",
    doc="``torch.clamp_min``: every element at least ``min``.",
)
clamp_min_ = clamp_min.inplace
clamp_max = native_function(
    "clamp_max(Tensor self, Scalar max) -> Tensor",
    "clamp_max.Tensor(Tensor self, Tensor max) -> Tensor",
    "clamp_max_(Tensor(a!) self, Scalar max) -> Tensor(a!)",
    "clamp_max_.Tensor(Tensor(a!) self, Tensor max) -> Tensor(a!)",
    "clamp_max.out(Tensor self, Scalar max, *, Tensor(a!) out) -> Tensor(a!)",
    "clamp_max.Tensor_out(Tensor self, Tensor max, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "clamp_max": _clamping("clamp_max", scalar_bounds=True, bound="max"),
        "clamp_max.Tensor": _clamping("clamp_max", scalar_bounds=False, bound="max"),
    },
    derivatives={
        "clamp_max": _clamp_derivative("ClampMaxBackward0", "max", tensor_bounds=False),
        "clamp_max.Tensor": _clamp_derivative("ClampMaxBackward1", "max", tensor_bounds=True),
    },
    inplace_variants="function, method",
    doc="``torch.clamp_max``: every element at most ``max``.",
)
clamp_max_ = clamp_max.inplace


# --- tests of values: the result is bool, and has no gradient ------------------------


def _bool_test(numpy_test) -> elementwise:
    return elementwise(lambda out, x: np.copyto(out, numpy_test(x)), result_dtype=bool_dtype)


def _real_bool_test(name: str, message: str, error=RuntimeError):
    """The meta function of ``isposinf``…: no complex input, and only a bool ``out=``."""

    def check(input, out=None):
        if input._dtype.category == COMPLEX:
            raise error(message)
        if out is not None and out._dtype is not bool_dtype:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")

    return check


def _is_real_and(x, test):
    return test(x) if x.dtype.kind in "fc" else np.zeros(x.shape, dtype=bool)


isnan = native_function(
    "isnan(Tensor self) -> Tensor",
    kernel=_bool_test(lambda x: _is_real_and(x, np.isnan)),
    kind=NONDIFFERENTIABLE,
    doc="``torch.isnan``: is it NaN, elementwise, as a bool tensor.",
)
isinf = native_function(
    "isinf(Tensor self) -> Tensor",
    kernel=_bool_test(lambda x: _is_real_and(x, np.isinf)),
    kind=NONDIFFERENTIABLE,
    doc="``torch.isinf``: is it infinite, elementwise, as a bool tensor.",
)
isfinite = native_function(
    "isfinite(Tensor self) -> Tensor",
    kernel=_bool_test(
        lambda x: np.isfinite(x) if x.dtype.kind in "fc" else np.ones(x.shape, dtype=bool)
    ),
    kind=NONDIFFERENTIABLE,
    doc="``torch.isfinite``: is it finite, elementwise, as a bool tensor.",
)
isposinf = native_function(
    "isposinf(Tensor self) -> Tensor",
    "isposinf.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_bool_test(lambda x: _is_real_and(x, np.isposinf)),
    check=_real_bool_test("isposinf", "isposinf does not support complex inputs."),
    kind=NONDIFFERENTIABLE,
    doc="``torch.isposinf``: is it +inf, elementwise, as a bool tensor.",
)
isneginf = native_function(
    "isneginf(Tensor self) -> Tensor",
    "isneginf.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_bool_test(lambda x: _is_real_and(x, np.isneginf)),
    check=_real_bool_test("isneginf", "isneginf does not support complex inputs."),
    kind=NONDIFFERENTIABLE,
    doc="``torch.isneginf``: is it -inf, elementwise, as a bool tensor.",
)
signbit = native_function(
    "signbit(Tensor self) -> Tensor",
    "signbit.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=_bool_test(lambda x: np.signbit(x) if x.dtype.kind == "f" else x < 0),
    check=_real_bool_test(
        "signbit", "signbit is not implemented for complex tensors.", NotImplementedError
    ),  # fmt: skip
    kind=NONDIFFERENTIABLE,
    doc="``torch.signbit``: is its sign bit set (true for -0.0), elementwise, as a bool tensor.",
)

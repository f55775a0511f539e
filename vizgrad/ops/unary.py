"""Unary math: ``abs``, ``exp``, ``sin``, ``floor``, ``clamp``… (``UnaryOps.cpp``).

Two families, as in PyTorch:

* **floating functions** (``exp``, ``sqrt``, ``sin``…): an integer or bool input is
  first promoted to the default float dtype, so ``sqrt(int_tensor)`` is float32 and
  ``int_tensor.sqrt_()`` fails its cast check;
* **dtype-keeping functions** (``abs``, ``neg``, ``sign``, ``floor``, ``round``…):
  the result has the input's dtype; ``floor`` of an integer is a copy.

Every function also exists in place (``x.exp_()``, ``vizgrad.exp_(x)``) and with
``out=``, from one ``pointwise`` declaration.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..derivatives import NON_DIFFERENTIABLE, Derivative
from ..dispatcher import FUNCTIONAL, INPLACE, OUT
from ..dtypes import BOOL, COMPLEX, CPP_TYPE_NAMES
from ..dtypes import bool as bool_dtype
from ..promotion import can_cast, result_type
from ..tensor import Tensor
from .arithmetic import check_scalar_fits, pow
from .creation import zeros_like
from .iterator import (
    ALL_TYPES,
    ALL_TYPES_AND_COMPLEX,
    COMPLEX_TYPES,
    FLOATING_TYPES,
    TensorIterator,
    dispatch_dtypes,
)
from .logical import where
from .registry import _inplace_schema, _out_schema, bind_method, check_tensor, declare, pointwise

__all__ = [
    # floating functions
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
    "sin", "cos", "tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan",
    "sinh", "cosh", "tanh", "sigmoid", "erf",
    # dtype-keeping functions
    "abs", "absolute", "neg", "negative", "sign", "sgn", "square", "relu",
    "floor", "ceil", "trunc", "fix", "round", "frac",
    "clamp", "clip", "clamp_min", "clamp_max",
    # tests of values
    "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit",
]  # fmt: skip

_FLOATING_AND_COMPLEX = FLOATING_TYPES | COMPLEX_TYPES


def _export_inplace_function(name: str) -> None:
    """``vizgrad.exp_(x)`` is ``x.exp_()``, as ``torch.exp_`` is."""
    globals()[name + "_"] = getattr(Tensor, name + "_")
    __all__.append(name + "_")


def _alias_methods(alias: str, name: str) -> None:
    """``Tensor.arcsin`` is ``Tensor.asin``; ``arcsin_`` (and ``vizgrad.arcsin_``) is ``asin_``."""
    bind_method(alias, getattr(Tensor, name))
    if hasattr(Tensor, name + "_"):
        globals()[alias + "_"] = getattr(Tensor, name + "_")
        __all__.append(alias + "_")
    if hasattr(Tensor, name + "_"):
        bind_method(alias + "_", getattr(Tensor, name + "_"))


# --- derivative formulas (``derivatives.yaml``) ---------------------------------------
# A unary formula reads either its input (``self``) or its output (``result``), which
# PyTorch saves when the derivative is cheaper in terms of it: d exp(x) = exp(x).


def _from_self(node_name: str, slope):
    """``grad`` times a slope computed from the input: ``slope(grad, self)``."""
    return Derivative(node_name, save=("self",),
                      grads={"self": lambda grad, saved: slope(grad, saved.self)})  # fmt: skip


def _from_result(node_name: str, slope):
    """``grad`` times a slope computed from the output: ``slope(grad, result)``."""
    return Derivative(node_name, save=("result",),
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


def require_out_dtype(out, expected) -> None:
    """Kernels that keep their input's dtype insist on exactly that dtype for ``out=``."""
    if out is not None and out._dtype is not expected:
        raise RuntimeError(
            f"Found dtype {out._dtype.scalar_name} but expected {expected.scalar_name}"
        )


def exact_out_dtype(function, result_dtype_of):
    """Dtype-keeping kernels (``abs``, ``floor``…) accept no other ``out=`` dtype.

    (Floating functions such as ``sqrt`` cast into any ``out`` dtype the result may be
    cast to, as binary ops do.)
    """

    def checked(input, *, out=None) -> Tensor:
        if isinstance(input, Tensor) and isinstance(out, Tensor):
            require_out_dtype(out, result_dtype_of(input._dtype))
        return function(input) if out is None else function(input, out=out)

    checked.__name__ = checked.__qualname__ = function.__name__
    checked.__doc__ = function.__doc__
    checked.overloads = function.overloads
    return checked


def _floating_function(name: str, numpy_function, doc: str, derivative, kernel_name=None,
                       supported=_FLOATING_AND_COMPLEX):  # fmt: skip
    def compute(out, x):
        with np.errstate(all="ignore"):  # log(0) = -inf and sqrt(-1) = nan are answers
            np.copyto(out, numpy_function(x), casting="unsafe")

    kernel = dispatch_dtypes(kernel_name or f"{name}_vml_cpu", supported)(compute)
    function = pointwise(
        f"{name}(Tensor self) -> Tensor",
        kernel,
        promote_integer_inputs_to_float=True,
        derivative=derivative,
        doc=f"``torch.{name}``: {doc}; integer inputs compute in the default float dtype.",
    )
    _export_inplace_function(name)
    return function


exp = _floating_function(
    "exp", np.exp, "``e ** x``", _from_result("ExpBackward0", lambda grad, y: grad * y)
)
exp2 = _floating_function(
    "exp2", np.exp2, "``2 ** x``", _from_result("Exp2Backward0", lambda grad, y: grad * y * _LN2)
)
expm1 = _floating_function(
    "expm1",
    np.expm1,
    "``e ** x - 1``, exact near 0",
    _from_result("Expm1Backward0", lambda grad, y: grad * (y + 1)),
)
log = _floating_function(
    "log", np.log, "the natural logarithm", _from_self("LogBackward0", lambda grad, x: grad / x)
)
log2 = _floating_function(
    "log2",
    np.log2,
    "the base-2 logarithm",
    _from_self("Log2Backward0", lambda grad, x: grad / (x * _LN2)),
)
log10 = _floating_function(
    "log10",
    np.log10,
    "the base-10 logarithm",
    _from_self("Log10Backward0", lambda grad, x: grad / (x * _LN10)),
)
log1p = _floating_function(
    "log1p",
    np.log1p,
    "``log(1 + x)``, exact near 0",
    _from_self("Log1PBackward0", lambda grad, x: grad / (x + 1)),
)
sqrt = _floating_function(
    "sqrt",
    np.sqrt,
    "the square root",
    _from_result("SqrtBackward0", lambda grad, y: grad / (2 * y)),
)
# d x**-1/2 = -1/2 x**-3/2 = -1/2 rsqrt(x)**3
rsqrt = _floating_function(
    "rsqrt",
    _rsqrt,
    "``1 / sqrt(x)``",
    _from_result("RsqrtBackward0", lambda grad, y: -0.5 * grad * y.pow(3)),
)
reciprocal = _floating_function(
    "reciprocal",
    np.reciprocal,
    "``1 / x``",
    _from_result("ReciprocalBackward0", lambda grad, y: -grad * (y * y)),
)
sin = _floating_function(
    "sin", np.sin, "the sine", _from_self("SinBackward0", lambda grad, x: grad * x.cos())
)
cos = _floating_function(
    "cos", np.cos, "the cosine", _from_self("CosBackward0", lambda grad, x: grad * -x.sin())
)
# d tan(x) = 1 + tan(x)**2
tan = _floating_function(
    "tan",
    np.tan,
    "the tangent",
    _from_result("TanBackward0", lambda grad, y: grad * (1 + y.pow(2))),
)
# d asin(x) = 1 / sqrt(1 - x**2); d acos(x) is its negative.
asin = _floating_function(
    "asin",
    np.arcsin,
    "the inverse sine",
    _from_self("AsinBackward0", lambda grad, x: grad * (-x * x + 1).rsqrt()),
)
acos = _floating_function(
    "acos",
    np.arccos,
    "the inverse cosine",
    _from_self("AcosBackward0", lambda grad, x: grad * -((-x * x + 1).rsqrt())),
)
atan = _floating_function(
    "atan",
    np.arctan,
    "the inverse tangent",
    _from_self("AtanBackward0", lambda grad, x: grad / (x * x + 1)),
)
sinh = _floating_function(
    "sinh",
    np.sinh,
    "the hyperbolic sine",
    _from_self("SinhBackward0", lambda grad, x: grad * x.cosh()),
)
cosh = _floating_function(
    "cosh",
    np.cosh,
    "the hyperbolic cosine",
    _from_self("CoshBackward0", lambda grad, x: grad * x.sinh()),
)
# ``tanh_backward``: 1 - tanh(x)**2
tanh = _floating_function(
    "tanh",
    np.tanh,
    "the hyperbolic tangent",
    _from_result("TanhBackward0", lambda grad, y: grad * (1 - y * y)),
)
# ``sigmoid_backward``: s(x) * (1 - s(x))
sigmoid = _floating_function(
    "sigmoid",
    _sigmoid,
    "the logistic function ``1 / (1 + e ** -x)``",
    _from_result("SigmoidBackward0", lambda grad, y: grad * (1 - y) * y),
)
# d erf(x) = 2 / sqrt(pi) * exp(-x**2)
erf = _floating_function(
    "erf", _erf, "the Gauss error function",
    _from_self("ErfBackward0", lambda grad, x: _TWO_OVER_SQRT_PI * (-(x.pow(2))).exp() * grad),
    supported=FLOATING_TYPES,
)  # fmt: skip
arcsin, arccos, arctan = asin, acos, atan
for _alias, _name in (("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan")):
    _alias_methods(_alias, _name)


# --- dtype-keeping functions ---------------------------------------------------------


def _declare_iterated(schema: str, iterate, *, inplace=True, out=True, derivative=None):
    """Functional, in-place and ``out=`` overloads whose TensorIterator set-up depends on
    the call (``abs`` of a complex tensor is real; ``clamp`` skips a missing bound).

    ``iterate(operands, out_tensor, is_inplace, **options)`` builds and runs the iterator.
    """
    functional = declare(
        schema, FUNCTIONAL, lambda *args, **kw: iterate(args, None, False, **kw), derivative
    )
    inplace_op = out_op = None
    if inplace:
        inplace_op = declare(
            _inplace_schema(schema),
            INPLACE,
            lambda *args, **kw: iterate(args, args[0], True, **kw),
            derivative,
        )
    if out:
        # ``clamp.Tensor`` writes through ``clamp.Tensor_out``, beside ``clamp.out``.
        out_schema = _out_schema(schema).replace(
            ".out(", ".Tensor_out(" if ".Tensor(" in schema else ".out("
        )
        out_op = declare(out_schema, OUT, lambda *args, out, **kw: iterate(args, out, False, **kw))
    return functional, inplace_op, out_op


@dispatch_dtypes("abs_cpu", ALL_TYPES_AND_COMPLEX)
def _abs_kernel(out, x):
    np.absolute(x, out=out, casting="unsafe")


def _iterate_abs(operands, out, inplace):
    (self,) = operands
    is_complex = self._dtype.category == COMPLEX
    if is_complex and inplace:
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    if not is_complex:
        require_out_dtype(out, self._dtype)
    # The magnitude of a complex number is real: complex64 -> float32.
    result_dtype = self._dtype.to_real() if is_complex and out is None else None
    it = TensorIterator("abs", (self,), out=out, inplace=inplace, result_dtype=result_dtype)
    return it.run(_abs_kernel)


_abs_functional, _abs_inplace, _abs_out = _declare_iterated(
    "abs(Tensor self) -> Tensor",
    _iterate_abs,
    # |x| has slope sign(x) (0 at x = 0, a choice: the kink has no slope).
    derivative=_from_self("AbsBackward0", lambda grad, x: grad * x.sgn()),
)


def abs(input, *, out=None) -> Tensor:  # noqa: A001 - PyTorch's name
    """``torch.abs``: the magnitude; a complex tensor's is real (complex64 -> float32)."""
    check_tensor("abs", input, "input", 1)
    if out is None:
        return _abs_functional(input)
    check_tensor("abs", out, "out", 2)
    return _abs_out(input, out=out)


bind_method("abs", lambda self: abs(self))
bind_method("abs_", lambda self: _abs_inplace(self))
_export_inplace_function("abs")


def _reject_bool(message: str, error=RuntimeError):
    def check(input, **options):
        if input._dtype.category == BOOL:
            raise error(message)

    return check


def _reject_complex(message: str):
    def check(input, **options):
        if input._dtype.category == COMPLEX:
            raise NotImplementedError(message)

    return check


def _dtype_keeping(name: str, compute, doc: str, derivative, *, check=None, kernel_name=None,
                   supported=ALL_TYPES_AND_COMPLEX, options=None, out=True):  # fmt: skip
    kernel = dispatch_dtypes(kernel_name or f"{name}_cpu", supported)(compute)
    function = pointwise(
        f"{name}(Tensor self) -> Tensor",
        kernel,
        check=check,
        options=options,
        out=out,
        derivative=derivative,
        doc=f"``torch.{name}``: {doc}; the result keeps the input's dtype.",
    )
    _export_inplace_function(name)
    return exact_out_dtype(function, lambda dtype: dtype)


neg = _dtype_keeping(
    "neg",
    lambda out, x: np.negative(x, out=out),
    "``-x`` (unsigned integers wrap around)",
    Derivative("NegBackward0", grads={"self": lambda grad, saved: -grad}),
    check=_reject_bool(
        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
        "invert a mask, use the `~` or `logical_not()` operator instead."
    ),
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


sign = _dtype_keeping(
    "sign",
    _sign_kernel,
    "-1, 0 or 1 (0 for NaN)",
    _zero_gradient("SignBackward0"),
    supported=ALL_TYPES_AND_COMPLEX | {"bool"},
    check=_reject_complex(
        "Unlike NumPy, vizgrad.sign is not intended to support complex numbers. Please use "
        "vizgrad.sgn instead."
    ),
)
sgn = _dtype_keeping(
    "sgn",
    _sgn_kernel,
    "the sign; ``z / |z|`` for a complex ``z``",
    # ``sgn_backward``: a real sign is a step function (zero gradient); PyTorch saves
    # ``self`` and ``result`` for the complex case, ``z / |z|``.
    Derivative(
        "SgnBackward0",
        save=("self", "result"),
        grads={"self": lambda grad, saved: zeros_like(grad)},
    ),
    supported=ALL_TYPES_AND_COMPLEX | {"bool"},
)


def _relu_kernel(out, x):
    np.maximum(x, 0, out=out, casting="unsafe")


def _check_relu(input):
    _reject_bool("Boolean inputs not supported for relu")(input)
    _reject_complex("clamp is not supported for complex types")(input)


# ``threshold_backward(grad, result, 0)``: the gradient passes where the output is positive.
relu = _dtype_keeping(
    "relu",
    _relu_kernel,
    "``max(x, 0)``",
    _from_result("ReluBackward0", lambda grad, y: where(y <= 0, 0.0, grad)),
    check=_check_relu,
    out=False,
)


def _rounding(name: str, numpy_function, doc: str):
    def compute(out, x):
        if x.dtype.kind in "iu":
            np.copyto(out, x)  # an integer is already whole
        else:
            numpy_function(x, out=out)

    return _dtype_keeping(
        name,
        compute,
        doc,
        _zero_gradient(f"{name.capitalize()}Backward0"),
        check=_reject_complex(f"{name} is not supported for complex inputs"),
        kernel_name=f"{name}_vml_cpu",
        supported=ALL_TYPES,
    )


floor = _rounding("floor", np.floor, "the largest whole number not above ``x``")
ceil = _rounding("ceil", np.ceil, "the smallest whole number not below ``x``")
trunc = _rounding("trunc", np.trunc, "``x`` rounded toward zero")
fix = trunc
_alias_methods("fix", "trunc")


@dispatch_dtypes("frac_cpu", FLOATING_TYPES)
def _frac_kernel(out, x):
    np.subtract(x, np.trunc(x), out=out)


frac = exact_out_dtype(
    pointwise(
        "frac(Tensor self) -> Tensor",
        _frac_kernel,
        # x - trunc(x): trunc is flat, so the slope is 1.
        derivative=Derivative("FracBackward0", grads={"self": lambda grad, saved: grad}),
        doc="``torch.frac``: ``x - trunc(x)``, the fractional part with the sign of ``x``.",
    ),
    lambda dtype: dtype,
)
_export_inplace_function("frac")


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
_round = pointwise(
    "round(Tensor self) -> Tensor",
    _round_half_even,
    method=False,
    derivative=_zero_gradient("RoundBackward0"),
)
_round_decimals = pointwise(
    "round.decimals(Tensor self, *, int decimals) -> Tensor",
    _round_decimals_kernel,
    options={"decimals": 0},
    method=False,
    derivative=_zero_gradient("RoundBackward1"),
)


def round(input, *, decimals=None, out=None) -> Tensor:  # noqa: A001 - PyTorch's name
    """``torch.round``: half to even; with ``decimals``, to that many decimal places."""
    check_tensor("round", input, "input", 1)
    if isinstance(out, Tensor):
        require_out_dtype(out, input._dtype)
    if decimals is not None:
        return _round_decimals(input, decimals=decimals, out=out)
    return _round(input, out=out)


bind_method("round", lambda self, *, decimals=None: round(self, decimals=decimals))
bind_method(
    "round_",
    lambda self, *, decimals=None: (
        _round.inplace(self)
        if decimals is None
        else _round_decimals.inplace(self, decimals=decimals)
    ),
)
_export_inplace_function("round")


def square(input, *, out=None) -> Tensor:
    """``torch.square``: ``pow(input, 2)``, so a bool tensor squares to int64 as in PyTorch."""
    check_tensor("square", input, "input", 1)
    return pow(input, 2, out=out)


bind_method("square", lambda self: square(self))
bind_method("square_", lambda self: self.pow_(2))
_export_inplace_function("square")


absolute, negative = abs, neg
_alias_methods("absolute", "abs")
_alias_methods("negative", "neg")


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


def _clamp_iterator(fn_name: str, scalar_bounds: bool):
    def iterate(operands, out, inplace, **unused):
        self, lower, upper = operands
        has_min, has_max = lower is not None, upper is not None
        # torch.clamp refuses complex itself; clamp_min/clamp_max with a tensor bound
        # leave it to maximum/minimum, which name their own kernel.
        if self._dtype.category == COMPLEX and (scalar_bounds or fn_name == "clamp"):
            raise NotImplementedError("clamp is not supported for complex types")
        bounds = tuple(b for b in (lower, upper) if b is not None)
        if scalar_bounds:
            _check_scalar_clamp_output(self, bounds, out, inplace)
        it = TensorIterator(fn_name, (self, *bounds), out=out, inplace=inplace)
        kernel = _clamp_kernel_for(scalar_bounds, has_min, has_max)
        return it.run(kernel, has_min=has_min, has_max=has_max)

    return iterate


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
        require_out_dtype(out, result)


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


def _clamp_derivative(fn_name: str, scalar: bool) -> Derivative:
    """ClampBackward1 (number bounds), ClampBackward0 (tensor bounds), ClampMinBackward0…"""
    bounds = {"clamp": ("min", "max"), "clamp_min": ("min",), "clamp_max": ("max",)}[fn_name]
    grads = {"self": _clamp_self_grad}
    if not scalar:  # tensor bounds receive the gradient where they were applied
        bound_grads = {"min": _clamp_min_grad, "max": _clamp_max_grad}
        grads.update({name: bound_grads[name] for name in bounds})
    if fn_name == "clamp":
        node_name = "ClampBackward1" if scalar else "ClampBackward0"
    else:  # clamp_min: ClampMinBackward0 for a number, ClampMinBackward1 for a tensor
        camel = "".join(part.capitalize() for part in fn_name.split("_"))
        node_name = f"{camel}Backward{0 if scalar else 1}"
    return Derivative(node_name, save=("self", *bounds), grads=grads)


def _clamp_overloads(fn_name: str, params: str, scalar: bool):
    overload = "" if scalar else ".Tensor"
    schema = f"{fn_name}{overload}(Tensor self, {params}) -> Tensor"
    iterate = _clamp_iterator(fn_name, scalar)
    derivative = _clamp_derivative(fn_name, scalar)
    if fn_name == "clamp":
        return _declare_iterated(schema, iterate, derivative=derivative)
    # clamp_min/clamp_max have one bound; reuse clamp's iterate with the other missing.
    if fn_name == "clamp_min":
        adapt = lambda operands, out, inplace: iterate((*operands, None), out, inplace)  # noqa: E731
    else:
        adapt = lambda operands, out, inplace: iterate(  # noqa: E731
            (operands[0], None, operands[1]), out, inplace
        )
    return _declare_iterated(schema, adapt, derivative=derivative)


_CLAMP_OPS = {
    ("clamp", True): _clamp_overloads("clamp", "Scalar? min=None, Scalar? max=None", True),
    ("clamp", False): _clamp_overloads("clamp", "Tensor? min=None, Tensor? max=None", False),
    ("clamp_min", True): _clamp_overloads("clamp_min", "Scalar min", True),
    ("clamp_min", False): _clamp_overloads("clamp_min", "Tensor min", False),
    ("clamp_max", True): _clamp_overloads("clamp_max", "Scalar max", True),
    ("clamp_max", False): _clamp_overloads("clamp_max", "Tensor max", False),
}


def _clamp_bounds_kind(fn_name: str, input, bounds) -> bool:
    """True for Python-number bounds, False for tensors; mixing them is a TypeError."""
    given = [b for b in bounds if b is not None]
    if all(isinstance(b, numbers.Number) and not isinstance(b, Tensor) for b in given):
        return True
    if all(isinstance(b, Tensor) for b in given):
        return False
    kinds = ", ".join(type(x).__name__ for x in (input, *bounds) if x is not None)
    raise TypeError(
        f"{fn_name}() received an invalid combination of arguments - got ({kinds}), but "
        "expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor "
        "out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out "
        "= None)"
    )


def _call_clamp(fn_name: str, variant: int, input, bounds, out=None):
    check_tensor(fn_name, input, "input", 1)
    if fn_name == "clamp" and bounds[0] is None and bounds[1] is None:
        raise RuntimeError("vizgrad.clamp: At least one of 'min' or 'max' must not be None")
    scalar = _clamp_bounds_kind(fn_name, input, bounds)
    op = _CLAMP_OPS[fn_name, scalar][variant]
    if variant == 2:
        check_tensor(fn_name, out, "out", len(bounds) + 2)
        return op(input, *bounds, out=out)
    return op(input, *bounds)


def clamp(input, min=None, max=None, *, out=None) -> Tensor:  # noqa: A002 - PyTorch's names
    """``torch.clamp``: every element limited to ``[min, max]`` (numbers or tensors)."""
    return _call_clamp("clamp", 0 if out is None else 2, input, (min, max), out)


def clamp_min(input, min, *, out=None) -> Tensor:  # noqa: A002
    """``torch.clamp_min``: every element at least ``min``."""
    return _call_clamp("clamp_min", 0 if out is None else 2, input, (min,), out)


def clamp_max(input, max, *, out=None) -> Tensor:  # noqa: A002
    """``torch.clamp_max``: every element at most ``max``."""
    return _call_clamp("clamp_max", 0 if out is None else 2, input, (max,), out)


clip = clamp
for _name in ("clamp", "clip"):
    bind_method(_name, lambda self, min=None, max=None: clamp(self, min, max))  # noqa: A006
    bind_method(_name + "_", lambda self, min=None, max=None: _call_clamp(  # noqa: A006
        "clamp", 1, self, (min, max)))  # fmt: skip
    _export_inplace_function(_name)
bind_method("clamp_min", lambda self, min: clamp_min(self, min))  # noqa: A006
bind_method("clamp_max", lambda self, max: clamp_max(self, max))  # noqa: A006
bind_method("clamp_min_", lambda self, min: _call_clamp("clamp_min", 1, self, (min,)))  # noqa: A006
bind_method("clamp_max_", lambda self, max: _call_clamp("clamp_max", 1, self, (max,)))  # noqa: A006
_export_inplace_function("clamp_min")
_export_inplace_function("clamp_max")


# --- tests of values: the result is bool -------------------------------------------


def _value_test(name: str, compute, doc: str, *, complex_message=None, out=False):
    check = None
    if complex_message is not None:

        def check(input):
            if input._dtype.category == COMPLEX:
                error = NotImplementedError if "implemented" in complex_message else RuntimeError
                raise error(complex_message)

    function = pointwise(
        f"{name}(Tensor self) -> Tensor",
        lambda out, x: np.copyto(out, compute(x)),
        result_dtype=bool_dtype,
        inplace=False,
        out=out,
        check=check,
        derivative=NON_DIFFERENTIABLE,  # a bool answer has no gradient
        doc=f"``torch.{name}``: {doc}, elementwise, as a bool tensor.",
    )
    if not out:
        return function

    def with_bool_out(input, *, out=None) -> Tensor:
        check_tensor(name, input, "input", 1)
        if out is not None and isinstance(out, Tensor) and out._dtype is not bool_dtype:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
        return function(input, out=out)

    with_bool_out.__name__ = name
    with_bool_out.__doc__ = function.__doc__
    return with_bool_out


def _is_real_and(x, test):
    return test(x) if x.dtype.kind in "fc" else np.zeros(x.shape, dtype=bool)


isnan = _value_test("isnan", lambda x: _is_real_and(x, np.isnan), "is it NaN")
isinf = _value_test("isinf", lambda x: _is_real_and(x, np.isinf), "is it infinite")
isfinite = _value_test(
    "isfinite",
    lambda x: np.isfinite(x) if x.dtype.kind in "fc" else np.ones(x.shape, dtype=bool),
    "is it finite",
)
isposinf = _value_test(
    "isposinf",
    lambda x: _is_real_and(x, np.isposinf),
    "is it +inf",
    complex_message="isposinf does not support complex inputs.",
    out=True,
)
isneginf = _value_test(
    "isneginf",
    lambda x: _is_real_and(x, np.isneginf),
    "is it -inf",
    complex_message="isneginf does not support complex inputs.",
    out=True,
)
signbit = _value_test(
    "signbit",
    lambda x: np.signbit(x) if x.dtype.kind == "f" else x < 0,
    "is its sign bit set (true for -0.0)",
    complex_message="signbit is not implemented for complex tensors.",
    out=True,
)

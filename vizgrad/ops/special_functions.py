"""Special mathematical functions: gamma, error and Bessel families (``UnaryOps.cpp``, ``Math.h``).

``lgamma``, ``digamma``, ``polygamma``, ``erfc``, ``erfinv``, ``logit``, ``sinc``, ``i0``…
are floating functions: an integer input computes in the default float dtype, as for
``exp``. Their values come from SciPy (``scipy.special``, which computes a float32 input
in double and rounds once), except where PyTorch's own algorithm gives other numbers:
``digamma``, ``trigamma`` (``polygamma(1, x)``) and the Hurwitz ``zeta`` (and so
``polygamma(n, x)``) follow ATen's ``Math.h`` step by step, in float32 where it computes
in float32; and the edges ATen checks first are its own (``lgamma(-inf)``,
``igamma(nan, 0)``).

The second half declares ``torch.special``'s operators (``special_expit``,
``special_gammaln``…): most are aliases of an operator declared elsewhere
(CompositeImplicitAutograd, so the dispatch trace shows ``aten::special_expit`` calling
``aten::sigmoid``), a few compute something of their own (``special_entr``,
``special_ndtri``, ``special_i1``…). ``vizgrad.special`` gives them their short names.
"""

from __future__ import annotations

import math

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT, OUT
from ..dtypes import BOOL, COMPLEX, INTEGRAL, get_default_dtype
from ..grad_mode import is_grad_enabled
from ..promotion import can_cast, check_can_cast
from .activation import log_softmax, softmax
from .arithmetic import add_scalar, composite_outs, mul_scalar, opmath, xlogy
from .creation import full
from .declaration import native_function
from .elementwise import elementwise, structured
from .float_errors import ignoring_float_errors
from .iterator import FLOATING_TYPES, TensorIterator, dispatch_dtypes, resize_output
from .logical import where
from .ranges import arange
from .reductions import logsumexp
from .unary import erf, exp2, expm1, floating_loop, log1p, round, sigmoid

__all__ = [
    "lgamma", "digamma", "polygamma", "mvlgamma", "erfc", "erfc_", "erfinv", "logit", "logit_",
    "sinc", "sinc_", "i0", "i0_", "igamma", "igammac",
]  # fmt: skip

# float32 and float64 only: PyTorch compiles these without float16 (``AT_DISPATCH_FLOATING_TYPES``).
_SINGLE_AND_DOUBLE = FLOATING_TYPES - {"float16"}


def _scipy():
    """``scipy.special``, imported on first use: importing it costs more than half a
    second, which ``import vizgrad`` should not pay for functions it may never call."""
    from scipy import special

    return special


def _libm(function, x: np.ndarray) -> np.ndarray:
    """``function`` (``np.log``, ``np.sin``…) as C's ``logf``/``sinf`` compute it on
    float32: correctly rounded, which NumPy's own float32 loops are not always. (Computed
    in double and rounded once; float64 is NumPy's.)"""
    if x.dtype == np.float32:
        return function(x.astype(np.float64)).astype(np.float32)
    return function(x)


def _scalar_like(x, value):
    """``at::full({}, value, x.options())``: a 0-dim tensor of ``x``'s dtype, which
    ``where`` broadcasts (the formulas' "0 there", "NaN there")."""
    return full((), value, dtype=x._dtype)


def _refuse(node_name: str, what: str, save=(), grads=None) -> Derivative:
    """``not_implemented(what)`` for some inputs: the node is recorded, and its backward
    refuses if one of them needs a gradient."""

    def refuse(grad, saved):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")

    return Derivative(node_name, save=save, grads={"self": refuse, **(grads or {})})


# --- the gamma family ------------------------------------------------------------------


def _lgamma(x):
    # log|Γ(x)|; Γ(-inf) has no sign but its log magnitude is +inf in C++ (SciPy: -inf).
    return np.where(x == -np.inf, np.inf, _scipy().gammaln(x))


lgamma = native_function(
    "lgamma(Tensor self) -> Tensor",
    "lgamma_(Tensor(a!) self) -> Tensor(a!)",
    "lgamma.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("lgamma_vml_cpu", _lgamma, supported=FLOATING_TYPES),
    # d log Γ(x) = ψ(x)
    derivative=Derivative(
        "LgammaBackward0", save=("self",), grads={"self": lambda grad, s: grad * digamma(s.self)}
    ),
    doc="``torch.lgamma``: ``log |Γ(x)|``; integer inputs compute in the default float dtype.",
)

# ATen's ``calc_digamma`` constants (Cephes): ψ(10), and the asymptotic series in 1/x².
_PSI_10 = 2.25175258906672110764
_DIGAMMA_SERIES = (8.33333333333333333333e-2, -2.10927960927960927961e-2,
                   7.57575757575757575758e-3, -4.16666666666666666667e-3,
                   3.96825396825396825397e-3, -8.33333333333333333333e-3,
                   8.33333333333333333333e-2)  # fmt: skip


def _digamma(x: np.ndarray) -> np.ndarray:
    """ψ(x) as ATen's ``calc_digamma`` computes it, in the input's precision.

    ψ(x) = ψ(x + 1) - 1/x moves x up to 10 or more, where an asymptotic series in 1/x²
    is accurate; a negative x reflects first: ψ(x) = ψ(1 - x) - π / tan(π frac(x)), that
    last term computed in double. ψ(±0) = ∓inf; ψ of a negative integer is NaN.
    """
    x = opmath(x)
    real = x.dtype.type
    negative = x < 0
    reflection = np.zeros_like(x)
    if negative.any():
        fraction = np.modf(x[negative].astype(np.float64))[0]
        reflection[negative] = math.pi / np.tan(math.pi * fraction)
    z = np.where(negative, 1 - x, x)
    result = np.zeros_like(x)
    for _ in range(10):  # every z > 0 reaches 10 in at most 10 steps
        below = z < 10
        if not below.any():
            break
        result = np.where(below, result - 1 / np.where(below, z, 1), result)
        z = np.where(below, z + 1, z)
    inverse_square = 1 / (z * z)
    series = np.zeros_like(x)
    for coefficient in _DIGAMMA_SERIES:
        series = series * inverse_square + real(coefficient)
    series = np.where(z < real(1e17), inverse_square * series, 0)
    value = np.where(
        z == 10, result + real(_PSI_10), result + _libm(np.log, z) - real(0.5) / z - series
    )
    value = value - reflection
    value = np.where(negative & (x == np.trunc(x)), np.nan, value)
    return np.where(x == 0, np.copysign(np.inf, -x), value)


digamma = native_function(
    "digamma(Tensor self) -> Tensor",
    "digamma_(Tensor(a!) self) -> Tensor(a!)",
    "digamma.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("digamma", _digamma, supported=FLOATING_TYPES),
    # d ψ(x) = ψ'(x), the trigamma function
    derivative=Derivative(
        "DigammaBackward0",
        save=("self",),
        grads={"self": lambda grad, s: grad * polygamma(1, s.self)},
    ),
    doc="``torch.digamma``: ψ(x), the derivative of ``lgamma``; integer inputs compute in "
    "the default float dtype.",
)


def _trigamma(x: np.ndarray) -> np.ndarray:
    """ψ'(x) as ATen's ``trigamma`` computes it, in the input's precision: reflected
    below 1/2 (ψ'(x) = π²/sin²(πx) - ψ'(1 - x)), six steps of ψ'(x) = ψ'(x + 1) + 1/x²,
    then an asymptotic series. (At a negative integer sin(πx) is not exactly 0: the
    answer is huge rather than infinite, as in PyTorch.)"""
    x = opmath(x)
    real = x.dtype.type
    pi = real(math.pi)
    reflected = x < real(0.5)
    sin_pi_x = _libm(np.sin, pi * x)
    result = np.where(reflected, -(pi * pi) / (sin_pi_x * sin_pi_x), 0).astype(x.dtype)
    x = np.where(reflected, 1 - x, x)
    for _ in range(6):
        result += 1 / (x * x)
        x = x + 1
    one = real(1)
    ixx = 1 / (x * x)
    series = one + 1 / (2 * x) + ixx * (one / 6 - ixx * (one / 30 - ixx * (one / 42)))
    result += series / x
    return np.where(reflected, -result, result)


def _polygamma_loop(n: int):
    """The kernel ``polygamma(n, ·)`` reaches: ``digamma`` and ``trigamma`` for n = 0 and
    1, else ``(-1)**(n+1) n! ζ(n + 1, x)`` (the Hurwitz zeta function, computed in
    double)."""
    if n == 0:
        return "digamma", _digamma
    if n == 1:
        return "trigamma", _trigamma

    def higher(x):
        x = opmath(x)
        sign = 1 if n % 2 else -1
        # n! as ATen gets it: exp(lgamma(n + 1)), each rounded to the input's precision
        # (C's expf is correctly rounded; NumPy's float32 exp is not always).
        real = x.dtype.type
        factorial = real(math.exp(real(math.lgamma(n + 1))))
        return sign * factorial * _zeta(n + 1, x).astype(x.dtype)

    return "polygamma", higher


def _polygamma(operands, out, inplace):
    # ``polygamma(n, self)`` takes n first; its in-place twin ``self.polygamma_(n)`` last.
    self, n = operands if inplace else operands[::-1]
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    kernel_name, compute = _polygamma_loop(n)

    @dispatch_dtypes(kernel_name, FLOATING_TYPES)
    @ignoring_float_errors(all="ignore")
    def loop(result, x):
        np.copyto(result, compute(x), casting="unsafe")

    iterator = TensorIterator("polygamma", (self,), out=out, inplace=inplace,
                              promote_integer_inputs_to_float=True)  # fmt: skip
    return iterator.run(loop)


def _polygamma_grad(grad, saved):
    # d ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁺¹⁾(x)
    return grad * polygamma(saved.n + 1, saved.self)


polygamma = native_function(
    "polygamma(int n, Tensor self) -> Tensor",
    "polygamma_(Tensor(a!) self, int n) -> Tensor(a!)",
    "polygamma.out(int n, Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=structured(_polygamma),
    derivatives={
        "polygamma": Derivative(
            "PolygammaBackward0", save=("n", "self"), grads={"self": _polygamma_grad}
        ),
        "polygamma_": Derivative(
            "PolygammaBackward1", save=("n", "self"), grads={"self": _polygamma_grad}
        ),
    },
    doc="``torch.polygamma``: ψ⁽ⁿ⁾(x), the n-th derivative of ``digamma`` (note the order: "
    "``polygamma(n, input)``, ``input.polygamma(n)``).",
)


def _check_mvlgamma(input, p):
    # In the kernels, not the binding: ``special.multigammaln`` reaches them directly.
    if input._dtype.category == BOOL:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if input._dtype.category == COMPLEX:  # ATen's arange refuses the complex dtype first
        raise NotImplementedError(
            f"\"arange_cpu\" not implemented for '{input._dtype.scalar_name}'"
        )


def _mvlgamma_terms(self, p: int, dtype):
    """``x - (i - 1)/2`` for i = 1..p, along a new last dim (ATen builds them so)."""
    offsets = arange(-p / 2.0 + 0.5, 0.5, 0.5, dtype=dtype, device=self.device)  # self.options()
    return offsets.add(self.unsqueeze(-1))


def _mvlgamma_kernel(self, p):
    # log Γ_p(x) = p(p-1)/4 log π + Σ_i log Γ(x - (i-1)/2)
    _check_mvlgamma(self, p)
    dtype = get_default_dtype() if self._dtype.category <= INTEGRAL else self._dtype
    constant = p * (p - 1) * math.log(math.pi) * 0.25
    return _mvlgamma_terms(self, p, dtype).lgamma_().sum(-1).add_(constant)


def _mvlgamma_out_kernel(self, p, *, out):
    # In place too (``out`` is ``self``): computed apart, then copied in.
    result = _mvlgamma_kernel(self, p)
    if not can_cast(result._dtype, out._dtype):
        # (ATen's message names the two dtypes the other way round; so does this one.)
        raise RuntimeError(
            f"mvlgamma: result type {self._dtype.scalar_name} can't be cast to the desired "
            f"output type {result._dtype.scalar_name}"
        )
    resize_output(out, result._size)
    return out.copy_(result)


def _mvlgamma_grad(grad, saved):
    terms = _mvlgamma_terms(saved.self, saved.p, saved.self._dtype)
    return grad * terms.digamma_().sum(-1)


mvlgamma = native_function(
    "mvlgamma(Tensor self, int p) -> Tensor",
    "mvlgamma_(Tensor(a!) self, int p) -> Tensor(a!)",
    "mvlgamma.out(Tensor self, int p, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={
        "mvlgamma": _mvlgamma_kernel,
        "mvlgamma_": lambda self, p: _mvlgamma_out_kernel(self, p, out=self),
        "mvlgamma.out": _mvlgamma_out_kernel,
    },
    derivative=Derivative("MvlgammaBackward0", save=("self", "p"), grads={"self": _mvlgamma_grad}),
    doc="``torch.mvlgamma``: the multivariate log-gamma function of dimension ``p``.",
)


# --- the error-function family -----------------------------------------------------------

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

erfc = native_function(
    "erfc(Tensor self) -> Tensor",
    "erfc_(Tensor(a!) self) -> Tensor(a!)",
    "erfc.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("erfc_vml_cpu", lambda x: _scipy().erfc(x), supported=FLOATING_TYPES),
    # d erfc(x) = -2/sqrt(pi) exp(-x²)
    derivative=Derivative(
        "ErfcBackward0",
        save=("self",),
        grads={"self": lambda grad, s: -_TWO_OVER_SQRT_PI * (-(s.self.pow(2))).exp() * grad},
    ),
    inplace_variants="function, method",
    doc="``torch.erfc``: ``1 - erf(x)``, exact in the tail; integer inputs compute in the "
    "default float dtype.",
)
erfc_ = erfc.inplace

erfinv = native_function(
    "erfinv(Tensor self) -> Tensor",
    "erfinv_(Tensor(a!) self) -> Tensor(a!)",
    "erfinv.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("erfinv_vml_cpu", lambda x: _scipy().erfinv(x), supported=FLOATING_TYPES),
    # d erfinv(y) = sqrt(pi)/2 exp(erfinv(y)²)
    derivative=Derivative(
        "ErfinvBackward0",
        save=("self",),
        grads={
            "self": lambda grad, s: 0.5 * math.sqrt(math.pi) * s.self.erfinv().pow(2).exp() * grad
        },
    ),
    doc="``torch.erfinv``: the inverse of ``erf`` on (-1, 1) (±inf at ±1, NaN beyond); "
    "integer inputs compute in the default float dtype.",
)


# --- logit: log(p / (1 - p)), with p optionally clamped to [eps, 1 - eps] -----------------


def _clamped_to_eps(x: np.ndarray, eps) -> np.ndarray:
    """``x`` clamped to ``[eps, 1 - eps]`` in its own dtype (NaN stays NaN); unchanged
    when ``eps`` is None."""
    if eps is None:
        return x
    low = x.dtype.type(eps)
    high = 1 - low
    return np.where(x < low, low, np.where(x > high, high, x))


# ATen's logit kernels compute in the tensor's own dtype (float16 rounded after every
# step, as NumPy's float16 arithmetic does too) with ``eps`` converted to it.


@dispatch_dtypes("logit_cpu", FLOATING_TYPES)
@ignoring_float_errors(all="ignore")  # log(0) = -inf, and p outside [0, 1] gives NaN: answers
def _logit_loop(out, x, eps=None):
    z = _clamped_to_eps(x, eps)
    np.copyto(out, _libm(np.log, z / (1 - z)), casting="unsafe")


@dispatch_dtypes("logit_backward_cpu", FLOATING_TYPES)
@ignoring_float_errors(all="ignore")
def _logit_backward_loop(out, grad_output, x, eps=None):
    slope = grad_output / (x * (1 - x))
    if eps is None or eps < 0:  # NaN outside [0, 1], where logit is not defined
        outside = (x < 0) | (x > 1)
        np.copyto(out, np.where(outside, np.nan, slope), casting="unsafe")
    else:  # 0 where the input was clamped, so the output did not move with it
        low = x.dtype.type(eps)
        np.copyto(out, np.where((x < low) | (x > 1 - low), 0, slope), casting="unsafe")


# ``logit``'s derivative when no graph of it is wanted: one operator, as in PyTorch.
logit_backward = native_function(
    "logit_backward(Tensor grad_output, Tensor self, float? eps=None) -> Tensor",
    "logit_backward.grad_input(Tensor grad_output, Tensor self, float? eps=None, *, "
    "Tensor(a!) grad_input) -> Tensor(a!)",
    kernel=elementwise(_logit_backward_loop),
    variants="function",
    doc="``torch.ops.aten.logit_backward``: ``grad_output / (x (1 - x))``, 0 where ``x`` was "
    "clamped to ``[eps, 1 - eps]`` (NaN outside [0, 1] without ``eps``).",
)


def _logit_grad(grad, saved):
    """``GradMode::is_enabled() ? infinitely_differentiable_logit_backward : logit_backward``:
    a backward pass that builds a graph (``create_graph=True``) composes operators that
    have derivatives; otherwise the one ``logit_backward`` operator computes it."""
    x, eps = saved.self, saved.eps
    if not is_grad_enabled():
        return logit_backward(grad, x, eps)
    slope = grad / (x * (1.0 - x))
    if eps is None:
        inside = (x >= 0.0).logical_and(x <= 1.0)
        return where(inside, slope, _scalar_like(x, math.nan))
    inside = (x >= eps).logical_and(x <= 1.0 - eps)
    return where(inside, slope, _scalar_like(x, 0.0))


logit = native_function(
    "logit(Tensor self, float? eps=None) -> Tensor",
    "logit_(Tensor(a!) self, float? eps=None) -> Tensor(a!)",
    "logit.out(Tensor self, float? eps=None, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_logit_loop, promote_integer_inputs_to_float=True),
    derivative=Derivative("LogitBackward0", save=("self", "eps"), grads={"self": _logit_grad}),
    inplace_variants="function, method",
    doc="``torch.logit``: ``log(p / (1 - p))``, the inverse of ``sigmoid``; with ``eps``, "
    "``p`` is first clamped to ``[eps, 1 - eps]``.",
)
logit_ = logit.inplace


# --- sinc --------------------------------------------------------------------------------


def _sinc(x: np.ndarray) -> np.ndarray:
    # sin(πx) / (πx), and 1 at 0 (ATen: ``a == 0 ? 1 : sin(pi * a) / (pi * a)``).
    x = opmath(x)
    product = x.real.dtype.type(math.pi) * x
    return np.where(x == 0, 1, _libm(np.sin, product) / product)


def _sinc_grad(grad, saved):
    # ``sinc_backward``: d sinc(x) = (πx cos(πx) - sin(πx)) / (πx²), 0 at x = 0.
    x = saved.self
    x_pi = x * math.pi
    x_squared_pi = x * x * math.pi
    slope = grad * ((x_pi * x_pi.cos() - x_pi.sin()) / x_squared_pi).conj()
    return where(x_squared_pi == 0.0, _scalar_like(grad, 0.0), slope)


sinc = native_function(
    "sinc(Tensor self) -> Tensor",
    "sinc_(Tensor(a!) self) -> Tensor(a!)",
    "sinc.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("sinc_cpu", _sinc),
    derivative=Derivative(
        "SincBackward0", save=("self",), grads={"self": _sinc_grad}, complex=True
    ),
    inplace_variants="function, method",
    doc="``torch.sinc``: the normalized sinc function ``sin(πx) / (πx)`` (1 at 0); integer "
    "inputs compute in the default float dtype.",
)
sinc_ = sinc.inplace


# --- modified Bessel functions of the first kind ----------------------------------------

i0 = native_function(
    "i0(Tensor self) -> Tensor",
    "i0_(Tensor(a!) self) -> Tensor(a!)",
    "i0.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("i0_vml_cpu", lambda x: _scipy().i0(x), supported=FLOATING_TYPES),
    # d I₀(x) = I₁(x)
    derivative=Derivative(
        "I0Backward0", save=("self",), grads={"self": lambda grad, s: grad * special_i1(s.self)}
    ),
    inplace_variants="function, method",
    doc="``torch.i0``: the modified Bessel function of the first kind of order 0; integer "
    "inputs compute in the default float dtype.",
)
i0_ = i0.inplace


def _bessel_grad(scaled: bool):
    """``i1_backward``/``i1e_backward``: I₁'(x) = I₀(x) - I₁(x)/x, whose two terms cancel
    at 0, where PyTorch puts the limit 1/2 instead (below the dtype's epsilon)."""

    def grad_of(grad, saved):
        x, result = saved.self, saved.result
        epsilon = np.finfo(x._dtype.numpy).eps
        not_tiny = x.abs() > epsilon
        safe = where(not_tiny, x, _scalar_like(x, epsilon))
        if scaled:  # d (e^-|x| I₁(x)) = e^-|x| I₀(x) - i1e(x) (sgn(x) + 1/x)
            slope = special_i0e(safe) - result * (safe.sgn() + safe.reciprocal())
        else:
            slope = safe.i0() - result * safe.reciprocal()
        return grad * where(not_tiny, slope, _scalar_like(x, 0.5))

    return grad_of


special_i0e = native_function(
    "special_i0e(Tensor self) -> Tensor",
    "special_i0e.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("i0e_cpu", lambda x: _scipy().i0e(x), supported=FLOATING_TYPES),
    # d (e^-|x| I₀(x)) = e^-|x| I₁(x) - sgn(x) i0e(x)
    derivative=Derivative(
        "SpecialI0EBackward0",
        save=("self", "result"),
        grads={"self": lambda grad, s: grad * (special_i1e(s.self) - s.self.sgn() * s.result)},
    ),
    variants="function",
    doc="``torch.special.i0e``: ``exp(-|x|) * i0(x)``, the exponentially scaled ``i0``.",
)
special_i1 = native_function(
    "special_i1(Tensor self) -> Tensor",
    "special_i1.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("i1_cpu", lambda x: _scipy().i1(x), supported=FLOATING_TYPES),
    derivative=Derivative(
        "SpecialI1Backward0", save=("self", "result"), grads={"self": _bessel_grad(False)}
    ),
    variants="function",
    doc="``torch.special.i1``: the modified Bessel function of the first kind of order 1.",
)
special_i1e = native_function(
    "special_i1e(Tensor self) -> Tensor",
    "special_i1e.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("i1e_cpu", lambda x: _scipy().i1e(x), supported=FLOATING_TYPES),
    derivative=Derivative(
        "SpecialI1EBackward0", save=("self", "result"), grads={"self": _bessel_grad(True)}
    ),
    variants="function",
    doc="``torch.special.i1e``: ``exp(-|x|) * i1(x)``, the exponentially scaled ``i1``.",
)


# --- two-argument functions: incomplete gamma, Hurwitz zeta, xlog1py -------------------


# Cephes's constants for ζ: the Euler-Maclaurin coefficients (2k)! / B_2k, and the
# double-precision epsilon its sums stop at.
_ZETA_EULER_MACLAURIN = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0,
                         -1.8924375803183791606e9, 7.47242496e10, -2.950130727918164224e12,
                         1.1646782814350067249e14, -4.5979787224074726105e15,
                         1.8152105401943546773e17, -7.1661652561756670113e18)  # fmt: skip
_MACHEP = 1.11022302462515654042e-16
# A q this far below 0 needs more than 10⁴ terms added one by one: SciPy adds them.
_ZETA_DIRECT_TERMS = 10_000


def _zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """ζ(x, q) = Σ_k (k + q)^-x, the Hurwitz zeta function, as ATen's ``zeta`` (after
    Cephes) computes it, in double: the first terms one by one (at least nine, and
    until k + q > 9), then the Euler-Maclaurin tail, each stopping early once the next
    term no longer changes the sum. Its edges are ATen's: inf at x = 1 and at q a
    non-positive integer, NaN for x < 1 and where the terms underflow but the tail's
    coefficients overflow (q = inf)."""
    # The first term is ``pow(q, -x)`` in the inputs' own precision; the rest in double.
    total = np.power(q, -np.asarray(x, q.dtype)).astype(np.float64)
    x, q = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(q, np.float64))
    total = np.broadcast_to(total, q.shape)
    a, term = q.copy(), np.zeros_like(total)
    done = np.zeros(total.shape, dtype=bool)
    far = q < -_ZETA_DIRECT_TERMS
    steps = 0
    while True:
        going = ~done & ~far & ((steps < 9) | (a <= 9))
        if not going.any():
            break
        a = np.where(going, a + 1, a)
        term = np.where(going, np.power(a, -x), term)
        total = np.where(going, total + term, total)
        done |= going & (-_MACHEP * total < term) & (term < _MACHEP * total)
        steps += 1
    going = ~done
    total = np.where(going, total + term * a / (x - 1) - 0.5 * term, total)
    w, factor, k = a, np.ones_like(total), 0.0
    for coefficient in _ZETA_EULER_MACLAURIN:
        factor = factor * (x + k)
        term = term / w
        correction = factor * term / coefficient
        summed = total + correction
        total = np.where(going, summed, total)
        going &= ~(np.abs(correction / summed) < _MACHEP)
        factor, term, k = factor * (x + k + 1), term / w, k + 2
    if far.any():
        total = np.where(far, _scipy().zeta(x, q), total)
    integer_q = (q <= 0) & (q == np.floor(q))
    return np.select(
        [x == 1, x < 1, integer_q, (q <= 0) & (x != np.floor(x))],
        [np.inf, np.nan, np.inf, np.nan],
        total,
    )


@dispatch_dtypes("zeta_cpu", _SINGLE_AND_DOUBLE)
@ignoring_float_errors(all="ignore")
def _zeta_loop(out, x, q):
    # Computed in double for float32 too (ATen's ``acc_type``), rounded once.
    np.copyto(out, _zeta(x, q), casting="unsafe")


def _zeta_other_grad(grad, saved):
    # d ζ(x, q) / dq = -x ζ(x + 1, q)
    return grad * -saved.self * special_zeta(saved.self + 1.0, saved.other)


special_zeta = native_function(
    "special_zeta(Tensor self, Tensor other) -> Tensor",
    "special_zeta.self_scalar(Scalar self, Tensor other) -> Tensor",
    "special_zeta.other_scalar(Tensor self, Scalar other) -> Tensor",
    "special_zeta.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "special_zeta.self_scalar_out(Scalar self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "special_zeta.other_scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_zeta_loop, promote_integer_inputs_to_float=True),
    derivatives={
        "special_zeta": _refuse(
            "SpecialZetaBackward0",
            "zeta",
            save=("self", "other"),
            grads={"other": _zeta_other_grad},
        ),  # fmt: skip
        "special_zeta.self_scalar": Derivative(
            "SpecialZetaBackward1", save=("self", "other"), grads={"other": _zeta_other_grad}
        ),
        "special_zeta.other_scalar": _refuse("SpecialZetaBackward2", "zeta"),
    },
    variants="function",
    doc="``torch.special.zeta``: the Hurwitz zeta function ζ(x, q) = Σ_k (k + q)^-x.",
)


def _igamma_other_grad(sign: int):
    # d P(a, x) / dx = x^(a-1) e^-x / Γ(a); Q = 1 - P has the opposite slope.
    def grad_of(grad, saved):
        a, x = saved.self, saved.other
        density = ((a - 1) * x.log() - x - a.lgamma()).exp()
        return grad * density if sign > 0 else -grad * density

    return grad_of


def _incomplete_gamma(name: str, scipy_name: str, node_name: str, lower: bool, doc: str):
    """``igamma``/``igammac``: SciPy's ``gammainc``/``gammaincc``, which ATen's follow,
    with ATen's checks of the edges made first, in its order (so ``igamma(nan, 0)`` is 0,
    where SciPy says NaN). PyTorch compiles them for floating dtypes only."""

    @dispatch_dtypes(f"{name}_cpu", FLOATING_TYPES)
    @ignoring_float_errors(all="ignore")
    def loop(out, a, x):
        a, x = opmath(a), opmath(x)
        value = getattr(_scipy(), scipy_name)(a, x)
        full, empty = (1.0, 0.0) if lower else (0.0, 1.0)  # the values at x = inf and x = 0
        edges = [(x < 0) | (a < 0), a == 0, x == 0, np.isinf(a), np.isinf(x)]
        answers = [np.nan, np.where(x > 0, full, np.nan), empty,
                   np.where(np.isinf(x), np.nan, empty), full]  # fmt: skip
        np.copyto(out, np.select(edges, answers, value), casting="unsafe")

    return native_function(
        f"{name}(Tensor self, Tensor other) -> Tensor",
        f"{name}_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
        f"{name}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
        kernel=elementwise(loop),
        derivative=_refuse(
            node_name,
            f"{name}: input",
            save=("self", "other"),
            grads={"other": _igamma_other_grad(+1 if lower else -1)},
        ),  # fmt: skip
        doc=doc,
    )


igamma = _incomplete_gamma(
    "igamma", "gammainc", "IgammaBackward0", True,
    "``torch.igamma``: the regularized lower incomplete gamma function P(a, x).",
)  # fmt: skip
igammac = _incomplete_gamma(
    "igammac", "gammaincc", "IgammacBackward0", False,
    "``torch.igammac``: the regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).",
)  # fmt: skip


@dispatch_dtypes("xlog1py_cpu", FLOATING_TYPES)
@ignoring_float_errors(divide="ignore", invalid="ignore")
def _xlog1py_loop(out, x, y):
    # ``x * log1p(y)``, but 0 where x is 0 (even for y = -1), unless y is NaN.
    zero = (x == 0) & ~np.isnan(y)  # before ``out``, which may be ``x`` itself, is written
    np.multiply(x, np.log1p(y), out=out)
    np.copyto(out, 0, where=zero)


def _xlog1py_self_grad(grad, saved):
    # d(x log1p(y))/dx = log1p(y), except where x = 0 and y <= -1 (the 0 the forward chose)
    return special_xlog1py(grad, saved.other).masked_fill(
        (saved.self == 0.0).logical_and(saved.other <= -1.0), 0.0
    )


def _xlog1py_scalar_other_grad(grad, saved):
    slope = special_xlog1py(grad, saved.other)
    return slope if saved.other > -1 else slope.masked_fill(saved.self == 0.0, 0.0)


def _xlog1py_other_grad(grad, saved):
    return grad * saved.self / (saved.other + 1)


special_xlog1py = native_function(
    "special_xlog1py(Tensor self, Tensor other) -> Tensor",
    "special_xlog1py.self_scalar(Scalar self, Tensor other) -> Tensor",
    "special_xlog1py.other_scalar(Tensor self, Scalar other) -> Tensor",
    "special_xlog1py.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "special_xlog1py.self_scalar_out(Scalar self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "special_xlog1py.other_scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=elementwise(_xlog1py_loop, promote_integer_inputs_to_float=True),
    derivatives={
        "special_xlog1py": Derivative(
            "SpecialXlog1PyBackward0",
            save=("self", "other"),
            grads={"self": _xlog1py_self_grad, "other": _xlog1py_other_grad},
        ),
        "special_xlog1py.self_scalar": Derivative(
            "SpecialXlog1PyBackward1", save=("self", "other"), grads={"other": _xlog1py_other_grad}
        ),
        "special_xlog1py.other_scalar": Derivative(
            "SpecialXlog1PyBackward2",
            save=("self", "other"),
            grads={"self": _xlog1py_scalar_other_grad},
        ),
    },
    variants="function",
    doc="``torch.special.xlog1py``: ``input * log1p(other)``, 0 where ``input`` is 0 (unless "
    "``other`` is NaN).",
)


# --- torch.special's functions of their own ---------------------------------------------


def _entr(x: np.ndarray) -> np.ndarray:
    # -x log(x) for x > 0, 0 at 0, -inf below, NaN for NaN. In the input's own dtype:
    # for float16 ATen rounds the log to float16 before the product, as NumPy does.
    positive = np.where(x > 0, x, 1)
    value = np.where(x > 0, -x * _libm(np.log, positive), np.where(x == 0, 0, -np.inf))
    return np.where(np.isnan(x), x, value)


special_entr = native_function(
    "special_entr(Tensor self) -> Tensor",
    "special_entr.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("entr_cpu", _entr, supported=FLOATING_TYPES),
    # d(-x log x) = -(1 + log x)
    derivative=Derivative(
        "SpecialEntrBackward0",
        save=("self",),
        grads={"self": lambda grad, s: grad * (-(1 + s.self.log()))},
    ),
    variants="function",
    doc="``torch.special.entr``: the elementwise entropy ``-x log(x)`` (0 at 0, -inf below).",
)

_SQRT_2PI = math.sqrt(2 * math.pi)

special_ndtri = native_function(
    "special_ndtri(Tensor self) -> Tensor",
    "special_ndtri.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("ndtri_cpu", lambda x: _scipy().ndtri(x), supported=_SINGLE_AND_DOUBLE),
    # the inverse of the normal CDF: its slope is 1 / density(result)
    derivative=Derivative(
        "SpecialNdtriBackward0",
        save=("result",),
        grads={"self": lambda grad, s: grad * _SQRT_2PI * (s.result.square() / 2).exp()},
    ),
    variants="function",
    doc="``torch.special.ndtri``: the inverse of the standard normal CDF (the quantile).",
)


def _log_ndtr(x: np.ndarray) -> np.ndarray:
    """log Φ(x) as ATen's ``calc_log_ndtr`` computes it, t = x/√2: ``log(erfcx(-t)/2) - t²``
    below -1 (exact far in the left tail, where Φ underflows), ``log1p(-erfc(t)/2)``
    above; erfc and erfcx in double, rounded once (SciPy's own ``log_ndtr`` differs from
    it by up to a few hundred float32 ulps in the right tail)."""
    special = _scipy()
    t = x * x.dtype.type(math.sqrt(0.5))
    wide = t.astype(np.float64)
    left = np.log(special.erfcx(-wide) / 2).astype(x.dtype) - t * t
    right = np.log1p(-special.erfc(wide) / 2).astype(x.dtype)
    return np.where(x < -1, left, right)


special_log_ndtr = native_function(
    "special_log_ndtr(Tensor self) -> Tensor",
    "special_log_ndtr.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("log_ndtr_cpu", _log_ndtr, supported=_SINGLE_AND_DOUBLE),
    # d log Φ(x) = φ(x) / Φ(x) = exp(-x²/2 - log Φ(x)) / sqrt(2π)
    derivative=Derivative(
        "SpecialLogNdtrBackward0",
        save=("self", "result"),
        grads={
            "self": lambda grad, s: grad / _SQRT_2PI * (s.result + s.self.pow(2) / 2).neg().exp()
        },
    ),
    variants="function",
    doc="``torch.special.log_ndtr``: the log of the standard normal CDF, exact in the tail.",
)
special_erfcx = native_function(
    "special_erfcx(Tensor self) -> Tensor",
    "special_erfcx.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernel=floating_loop("erfcx_cpu", lambda x: _scipy().erfcx(x), supported=_SINGLE_AND_DOUBLE),
    # d (e^{x²} erfc(x)) = 2x erfcx(x) - 2/sqrt(pi)
    derivative=Derivative(
        "SpecialErfcxBackward0",
        save=("self", "result"),
        grads={"self": lambda grad, s: (2.0 * s.self * s.result - _TWO_OVER_SQRT_PI) * grad},
    ),
    variants="function",
    doc="``torch.special.erfcx``: the scaled complementary error function ``exp(x²) erfc(x)``.",
)


def _ndtr_kernel(self):
    # ATen's ``(1 + at::erf(self * M_SQRT1_2)) * 0.5``: Scalar overloads, as C++ calls them.
    return mul_scalar(add_scalar(erf(mul_scalar(self, math.sqrt(0.5))), 1), 0.5)


def _ndtr_out_kernel(self, *, out):
    result = _ndtr_kernel(self)
    check_can_cast(result._dtype, out._dtype)
    resize_output(out, result._size)
    return out.copy_(result)


special_ndtr = native_function(
    "special_ndtr(Tensor self) -> Tensor",
    "special_ndtr.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    kernels={"special_ndtr": _ndtr_kernel, "special_ndtr.out": _ndtr_out_kernel},
    kind=COMPOSITE_IMPLICIT,
    kinds={"special_ndtr.out": COMPOSITE_IMPLICIT},
    variants="function",
    doc="``torch.special.ndtr``: the standard normal CDF, ``(1 + erf(x / sqrt(2))) / 2``.",
)


# --- torch.special's aliases of operators declared elsewhere ------------------------------


def _alias(doc: str, *overloads: tuple[str, object]):
    """A ``special_*`` operator whose overloads each call an overload of the main
    operator (CompositeImplicitAutograd: the main operator records the node)."""
    kernels = {schema.partition("(")[0]: target for schema, target in overloads}
    outs = [name for name, target in kernels.items() if target.variant is OUT]
    return native_function(
        *(schema for schema, _ in overloads),
        kernels=kernels,
        kind=COMPOSITE_IMPLICIT,
        kinds=composite_outs(*outs),
        variants="function",
        doc=doc,
    )


def _unary_alias(name: str, operator):
    """``special_<name>(input)`` and its out= form, for the main operator's."""
    main = operator.__name__
    return _alias(
        f"``torch.special.{name}``: ``torch.{main}``.",
        (f"special_{name}(Tensor self) -> Tensor", operator.overloads[main]),
        (f"special_{name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
         operator.overloads[f"{main}.out"]),
    )  # fmt: skip


special_expit = _unary_alias("expit", sigmoid)
special_exp2 = _unary_alias("exp2", exp2)
special_expm1 = _unary_alias("expm1", expm1)
special_log1p = _unary_alias("log1p", log1p)
special_erf = _unary_alias("erf", erf)
special_erfc = _unary_alias("erfc", erfc)
special_erfinv = _unary_alias("erfinv", erfinv)
special_gammaln = _unary_alias("gammaln", lgamma)
special_digamma = _unary_alias("digamma", digamma)
special_psi = _unary_alias("psi", digamma)
special_i0 = _unary_alias("i0", i0)
special_sinc = _unary_alias("sinc", sinc)
special_round = _alias(
    "``torch.special.round``: ``torch.round`` (to ``decimals`` places).",
    ("special_round(Tensor self, *, int decimals=0) -> Tensor", round.overloads["round.decimals"]),
    ("special_round.out(Tensor self, *, int decimals=0, Tensor(a!) out) -> Tensor(a!)",
     round.overloads["round.decimals_out"]),
)  # fmt: skip
special_logit = _alias(
    "``torch.special.logit``: ``torch.logit``.",
    ("special_logit(Tensor self, float? eps=None) -> Tensor", logit.overloads["logit"]),
    ("special_logit.out(Tensor self, float? eps=None, *, Tensor(a!) out) -> Tensor(a!)",
     logit.overloads["logit.out"]),
)  # fmt: skip
special_polygamma = _alias(
    "``torch.special.polygamma``: ``torch.polygamma``.",
    ("special_polygamma(int n, Tensor self) -> Tensor", polygamma.overloads["polygamma"]),
    ("special_polygamma.out(int n, Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
     polygamma.overloads["polygamma.out"]),
)  # fmt: skip
special_multigammaln = _alias(
    "``torch.special.multigammaln``: ``torch.mvlgamma``.",
    ("special_multigammaln(Tensor self, int p) -> Tensor", mvlgamma.overloads["mvlgamma"]),
    ("special_multigammaln.out(Tensor self, int p, *, Tensor(a!) out) -> Tensor(a!)",
     mvlgamma.overloads["mvlgamma.out"]),
)  # fmt: skip
special_gammainc = _alias(
    "``torch.special.gammainc``: ``torch.igamma``.",
    ("special_gammainc(Tensor self, Tensor other) -> Tensor", igamma.overloads["igamma"]),
    ("special_gammainc.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
     igamma.overloads["igamma.out"]),
)  # fmt: skip
special_gammaincc = _alias(
    "``torch.special.gammaincc``: ``torch.igammac``.",
    ("special_gammaincc(Tensor self, Tensor other) -> Tensor", igammac.overloads["igammac"]),
    ("special_gammaincc.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
     igammac.overloads["igammac.out"]),
)  # fmt: skip
special_xlogy = _alias(
    "``torch.special.xlogy``: ``torch.xlogy``.",
    ("special_xlogy(Tensor self, Tensor other) -> Tensor", xlogy.overloads["xlogy.Tensor"]),
    ("special_xlogy.self_scalar(Scalar self, Tensor other) -> Tensor",
     xlogy.overloads["xlogy.Scalar_Self"]),
    ("special_xlogy.other_scalar(Tensor self, Scalar other) -> Tensor",
     xlogy.overloads["xlogy.Scalar_Other"]),
    ("special_xlogy.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
     xlogy.overloads["xlogy.OutTensor"]),
    ("special_xlogy.self_scalar_out(Scalar self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
     xlogy.overloads["xlogy.OutScalar_Self"]),
    ("special_xlogy.other_scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
     xlogy.overloads["xlogy.OutScalar_Other"]),
)  # fmt: skip
special_logsumexp = _alias(
    "``torch.special.logsumexp``: ``torch.logsumexp``.",
    ("special_logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
     logsumexp.overloads["logsumexp"]),
    ("special_logsumexp.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) out) "
     "-> Tensor(a!)", logsumexp.overloads["logsumexp.out"]),
)  # fmt: skip
special_softmax = _alias(
    "``torch.special.softmax``: ``torch.softmax``.",
    ("special_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
     softmax.overloads["softmax.int"]),
)  # fmt: skip
special_log_softmax = _alias(
    "``torch.special.log_softmax``: ``torch.log_softmax``.",
    ("special_log_softmax(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
     log_softmax.overloads["log_softmax.int"]),
)  # fmt: skip

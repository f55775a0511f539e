"""Statistics over a dim: ``diff``, ``quantile``, ``cov``, ``corrcoef``, ``trapezoid`` (``ReduceOps.cpp``, ``Correlation.cpp``).

None of these has a kernel or a derivative of its own in PyTorch: each is
CompositeImplicitAutograd, a short program of other operators (``narrow`` and ``sub``,
``sort`` and ``gather`` and ``lerp``, ``mm``, ``sum``, ``cumsum``), so autograd records
*their* nodes and ``quantile``'s ``grad_fn`` is the ``SqueezeBackward4`` of its last
step. The programs here are PyTorch's, step for step (``ReduceOps.cpp``'s ``diff``,
``Sorting.cpp``'s ``quantile_compute``, ``Correlation.cpp``, ``Integration.cpp``), so the
recorded graph, the dtypes and the strides are PyTorch's too.

* ``diff``: the n-th forward difference along a dim, ``x[i+1] - x[i]`` (``logical_xor``
  for bool), after gluing ``prepend``/``append`` on.
* ``quantile``/``nanquantile``: sort, turn ``q`` into a fractional rank, read the values
  on both sides and interpolate (``linear``, ``lower``, ``higher``, ``nearest``,
  ``midpoint``: NumPy's methods).
* ``cov``/``corrcoef``: rows are variables, columns observations, optionally weighted
  by integer frequencies (``fweights``) and real importances (``aweights``).
* ``trapezoid`` (``trapz``) and ``cumulative_trapezoid``: the trapezoid rule,
  ``sum dx * (y[i] + y[i+1]) / 2``, with sample points ``x`` or a constant spacing ``dx``.
"""

from __future__ import annotations

from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import FLOATING, INTEGRAL, float32, float64, int64
from ..dtypes import bool as bool_
from ..shape import wrap_dim
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .arithmetic import div_scalar, mul_scalar, sub
from .complex_views import complex as _complex
from .creation import full_like, scalar_tensor, zeros, zeros_like
from .declaration import native_function
from .iterator import resize_output
from .joining import cat
from .logical import logical_xor
from .parts import _slice_op
from .shape_composites import broadcast_tensors

__all__ = [
    "diff",
    "quantile",
    "nanquantile",
    "cov",
    "corrcoef",
    "trapezoid",
    "trapz",
    "cumulative_trapezoid",
]


def _composite(*names: str) -> dict:
    """Every overload named runs its kernel at the autograd key (CompositeImplicitAutograd)."""
    return dict.fromkeys(names, COMPOSITE_IMPLICIT)


def _cpp_double(value: float) -> str:
    """A double as C++'s ``operator<<`` writes it into PyTorch's messages (``%g``: six
    significant digits, ``1.5``, ``1e-07``, ``inf``)."""
    return f"{value:g}"


# --- diff ----------------------------------------------------------------------------------


def _diff_check_compatible_shape(self: Tensor, other, dim: int) -> None:
    """``prepend``/``append`` must have ``self``'s shape except along ``dim``."""
    if other is None:
        return
    wrapped = wrap_dim(dim, self.dim(), wrap_scalar=False)
    if other.dim() != self.dim():
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i in range(other.dim()):
        if i != wrapped and other._size[i] != self._size[i]:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of input "
                f"except along the differencing dimension; input.size({i}) = {self._size[i]}, "
                f"but got tensor.size({i}) = {other._size[i]}"
            )


def _diff_check(self: Tensor, n: int, dim: int, prepend, append) -> None:
    if self.dim() < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    _diff_check_compatible_shape(self, prepend, dim)
    _diff_check_compatible_shape(self, append, dim)


def _prepend_append_on_dim(self: Tensor, prepend, append, dim: int) -> Tensor:
    """``self`` with ``prepend`` before it and ``append`` after it along ``dim`` (``cat``)."""
    parts = [t for t in (prepend, self, append) if t is not None]
    return cat(parts, dim)


def _difference(t: Tensor, dim: int, out_len: int, out=None) -> Tensor:
    """One forward difference: ``t[1:] - t[:-1]`` along ``dim`` (``out_len`` long), or
    ``logical_xor`` for bool, where ``-`` is refused."""
    after, before = t.narrow(dim, 1, out_len), t.narrow(dim, 0, out_len)
    if t._dtype is bool_:
        return logical_xor(after, before) if out is None else logical_xor(after, before, out=out)
    return after - before if out is None else sub(after, before, out=out)


def _diff_helper(self: Tensor, n: int, dim: int) -> Tensor:
    """``n`` differences one after the other; an order beyond the length stops at an empty
    result. Order 0 is a copy (``zeros_like`` then ``copy_``, as PyTorch makes it)."""
    if n == 0:
        result = zeros_like(self)
        result.copy_(self)
        return result
    out_len = self.size(dim) - 1
    result = self
    for _ in range(min(n, self.size(dim))):
        result = _difference(result, dim, out_len)
        out_len -= 1
    return result


def _diff_kernel(self: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    _diff_check(self, n, dim, prepend, append)
    if (prepend is None and append is None) or n == 0:
        return _diff_helper(self, n, dim)
    return _diff_helper(_prepend_append_on_dim(self, prepend, append, dim), n, dim)


def _diff_out_helper(self: Tensor, n: int, dim: int, out: Tensor) -> Tensor:
    """The last difference is written by ``sub.out`` (``logical_xor.out``), which refuses
    inputs that require grad, as PyTorch's ``diff.out`` does."""
    if n == 0:
        resize_output(out, self._size)
        if out._dtype is not self._dtype:
            # ``check_scalar_type_device_layout_equal``: no cast for a plain copy.
            raise RuntimeError(
                f"expected scalar_type {self._dtype.scalar_name} but found {out._dtype.scalar_name}"
            )
        return out.copy_(self)
    n = min(n, self.size(dim))
    out_len = self.size(dim) - n
    previous = _diff_helper(self, n - 1, dim) if n > 1 else self
    return _difference(previous, dim, out_len, out=out)


def _diff_out_kernel(self: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None, *,
                     out: Tensor) -> Tensor:  # fmt: skip
    _diff_check(self, n, dim, prepend, append)
    if (prepend is None and append is None) or n == 0:
        return _diff_out_helper(self, n, dim, out)
    return _diff_out_helper(_prepend_append_on_dim(self, prepend, append, dim), n, dim, out)


diff = native_function(
    "diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor",
    "diff.out(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    kernels={"diff": _diff_kernel, "diff.out": _diff_out_kernel},
    kinds=_composite("diff", "diff.out"),
    doc="``torch.diff``: the ``n``-th forward difference along ``dim`` (``x[i+1] - x[i]``), "
    "after ``prepend`` and ``append`` are joined on.",
)


# --- quantile, nanquantile ----------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_interpolation(interpolation: str) -> None:
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )


def _quantile_checks(self: Tensor, q: Tensor) -> None:
    if self.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if self._dtype not in (float32, float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q._dtype is not self._dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")


def _quantile_output_shape(original_dim, self: Tensor, q: Tensor, keepdim: bool,
                           wrapped_dim: int) -> list[int]:  # fmt: skip
    """The reduced shape, with ``q``'s length in front when ``q`` is 1-D."""
    shape: list[int] = []
    if original_dim is not None and self.dim() > 0:
        shape = list(self._size)
        if keepdim:
            shape[wrapped_dim] = 1
        else:
            del shape[wrapped_dim]
    elif keepdim:
        shape = [1] * self.dim()
    if q.dim() > 0:
        shape.insert(0, q.numel())
    return shape


def _quantile_compute(self: Tensor, q: Tensor, original_dim, interpolation: str,
                      ignore_nan: bool, wrapped_dim: int, out_shape: list) -> Tensor:  # fmt: skip
    """``quantile_compute``: sort, rank, gather, interpolate, with PyTorch's operators."""
    if not bool((q >= 0).logical_and_(q <= 1).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    # Sort so that the k-th value is read at position k, along the last dim.
    if original_dim is None:
        values = self.flatten().sort()[0]
    elif wrapped_dim == self.dim() - 1:
        values = self.sort()[0]
    else:
        values = self.unsqueeze(-1).transpose(wrapped_dim, -1).sort()[0]
    # q as a 1-D tensor from here on: the reduced shape, then the sorted dim.
    if q.dim() == 0:
        out_shape = [q.numel(), *out_shape]
    in_shape = [*out_shape[1:], values.size(-1)]
    values = values.view(in_shape)
    if values.size(-1) > 2**24:  # ranks are computed in floating point
        raise RuntimeError("quantile() input tensor is too large")

    # q in [0, 1] becomes a fractional rank in [0, n - 1].
    if ignore_nan:
        # Only the values that are not nan count; all nan gives rank 0, whose value is nan.
        ranks = q * (values.isnan().logical_not_().sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
    else:
        # Any nan (sorted last) makes the quantile nan: rank it last.
        last_index = values.size(-1) - 1
        scaled, has_nan = broadcast_tensors(q * last_index, values.isnan().any(-1, True))
        ranks = scaled.masked_fill(has_nan, last_index)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()

    ranks_below = ranks.to(int64)
    values_below = values.gather(-1, ranks_below)
    if interpolation in ("linear", "midpoint"):
        weights = full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - ranks_below
        ranks_above = ranks.ceil_().to(int64)
        values_above = values.gather(-1, ranks_above)
        values_below.lerp_(values_above, weights)

    if q.dim() == 0:
        values_below.squeeze_(-1)
    else:
        # The quantiles move to the front, where the output shape has them.
        values_below.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values_below


def _quantile_kernel(ignore_nan: bool):
    def kernel(self: Tensor, q: Tensor, dim=None, keepdim: bool = False, *,
               interpolation: str = "linear") -> Tensor:  # fmt: skip
        _check_interpolation(interpolation)
        _quantile_checks(self, q)
        wrapped = wrap_dim(0 if dim is None else dim, self.dim())
        shape = _quantile_output_shape(dim, self, q, keepdim, wrapped)
        return _quantile_compute(self, q, dim, interpolation, ignore_nan, wrapped, shape)

    return kernel


def _quantile_out_kernel(ignore_nan: bool):
    """``quantile.out``: the same checks, ``out`` of the input's dtype, resized first, then
    the result copied in (``copy_``: autograd records ``CopyBackwards`` on ``out``)."""

    def kernel(self: Tensor, q: Tensor, dim=None, keepdim: bool = False, *,
               interpolation: str = "linear", out: Tensor) -> Tensor:  # fmt: skip
        _check_interpolation(interpolation)
        _quantile_checks(self, q)
        if out._dtype is not self._dtype:
            raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
        wrapped = wrap_dim(0 if dim is None else dim, self.dim())
        shape = _quantile_output_shape(dim, self, q, keepdim, wrapped)
        resize_output(out, shape)
        result = _quantile_compute(self, q, dim, interpolation, ignore_nan, wrapped, shape)
        return out.copy_(result)

    return kernel


def _check_scalar_q(q: float) -> None:
    if not 0 <= q <= 1:  # a nan fails too
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {_cpp_double(q)}")


def _scalar_q_kernels(tensor_kernel, tensor_out_kernel) -> tuple:
    """The ``float q`` overloads: ``q`` checked, then made a 0-dim tensor of the input's
    dtype (``scalar_tensor(q, self.options())``) for the tensor kernels."""

    def kernel(self: Tensor, q: float, dim=None, keepdim: bool = False, *,
               interpolation: str = "linear") -> Tensor:  # fmt: skip
        _check_scalar_q(q)
        q_tensor = scalar_tensor(q, dtype=self._dtype)
        return tensor_kernel(self, q_tensor, dim, keepdim, interpolation=interpolation)

    def out_kernel(self: Tensor, q: float, dim=None, keepdim: bool = False, *,
                   interpolation: str = "linear", out: Tensor) -> Tensor:  # fmt: skip
        _check_scalar_q(q)
        q_tensor = scalar_tensor(q, dtype=self._dtype)
        return tensor_out_kernel(self, q_tensor, dim, keepdim, interpolation=interpolation,
                                 out=out)  # fmt: skip

    return kernel, out_kernel


def _declare_quantile(name: str, ignore_nan: bool, doc: str):
    tensor_kernel, tensor_out = _quantile_kernel(ignore_nan), _quantile_out_kernel(ignore_nan)
    scalar_kernel, scalar_out = _scalar_q_kernels(tensor_kernel, tensor_out)
    tail = "int? dim=None, bool keepdim=False, *, str interpolation='linear'"
    return native_function(
        f"{name}(Tensor self, Tensor q, {tail}) -> Tensor",
        f"{name}.out(Tensor self, Tensor q, {tail}, Tensor(a!) out) -> Tensor(a!)",
        f"{name}.scalar(Tensor self, float q, {tail}) -> Tensor",
        f"{name}.scalar_out(Tensor self, float q, {tail}, Tensor(a!) out) -> Tensor(a!)",
        kernels={
            name: tensor_kernel,
            f"{name}.out": tensor_out,
            f"{name}.scalar": scalar_kernel,
            f"{name}.scalar_out": scalar_out,
        },
        kinds=_composite(name, f"{name}.out", f"{name}.scalar", f"{name}.scalar_out"),
        doc=doc,
    )


quantile = _declare_quantile(
    "quantile",
    False,
    "``torch.quantile``: the ``q``-th quantiles along ``dim`` (of all values without "
    "``dim``), interpolated between the sorted values as ``interpolation`` says; any nan "
    "gives nan.",
)
nanquantile = _declare_quantile(
    "nanquantile",
    True,
    "``torch.nanquantile``: ``quantile`` of the values that are not nan (nan if all are).",
)


# --- cov, corrcoef ------------------------------------------------------------------------------


def _check_weights(w: Tensor, name: str, kind: str, dtype_ok: bool, observations: int) -> None:
    if w.dim() > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{w.dim()} dimensions"
        )
    if not dtype_ok:
        raise RuntimeError(
            f"cov(): expected {name} to have {kind} dtype but got {name} with "
            f"{w._dtype.scalar_name} dtype"
        )
    if w.numel() != observations:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {w.numel()} != {observations}"
        )
    if observations != 0 and not bool(w.min().ge(0)):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def _cov_kernel(self: Tensor, *, correction: int = 1, fweights=None, aweights=None) -> Tensor:
    """``Correlation.cpp``'s ``cov``: the weighted mean of each row (variable) over the
    columns (observations), the centred rows' products, over the corrected weight sum."""
    if self.dim() > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{self.dim()} dimensions"
        )
    if self._dtype is bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    rows = self.view(1, -1) if self.dim() < 2 else self
    observations = rows.size(1)

    w = None  # the product of the frequencies and the weights
    if fweights is not None:
        integral = fweights._dtype.category == INTEGRAL
        _check_weights(fweights, "fweights", "integral", integral, observations)
        w = fweights
    if aweights is not None:
        floating = aweights._dtype.category == FLOATING
        _check_weights(aweights, "aweights", "floating point", floating, observations)
        w = aweights if w is None else w * aweights

    w_sum = w.sum() if w is not None else scalar_tensor(observations, dtype=int64)
    if w is not None and not bool(w_sum.ne(0)):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (rows * w if w is not None else rows).sum(1) / w_sum

    # The divisor: N - correction, or its weighted counterpart (NumPy's).
    if w is None:
        norm_factor = scalar_tensor(observations - correction, dtype=int64)
    elif correction == 0:
        norm_factor = w_sum
    elif aweights is None:
        norm_factor = w_sum - correction
    elif fweights is None and observations == 1 and correction == 1:
        norm_factor = scalar_tensor(0, dtype=int64)  # PyTorch's rounding corner case
    else:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    if bool(norm_factor.le(0)):
        warn_at_user_code(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
        )
        norm_factor.zero_()

    if observations == 1 and (fweights is None) != (aweights is None):
        # One observation weighted once: its mean is itself. PyTorch zeroes the input
        # itself here (``in.zero_()``), and an integer input then becomes float.
        rows.zero_()
        if rows._dtype.category < FLOATING:
            rows = rows.to(float32)
    else:
        rows = rows - avg.unsqueeze(1)
    c = rows.mm((rows * w if w is not None else rows).t().conj())
    if c.is_complex() and 1 in rows._size:
        # One variable or one observation: each entry is a number times its own conjugate,
        # real; PyTorch drops the rounding left in the imaginary part (0/0 must be nan).
        real = c.real
        c = _complex(real, zeros_like(real))
    return c.true_divide(norm_factor).squeeze()


cov = native_function(
    "cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) -> Tensor",
    kernel=_cov_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.cov``: the covariance matrix of the rows (variables) of ``input`` over its "
    "columns (observations), with ``correction`` and optional ``fweights``/``aweights``.",
)


def _corrcoef_kernel(self: Tensor) -> Tensor:
    """The covariance over the product of the standard deviations, clipped to [-1, 1]
    (rounding may step outside, as NumPy clips too)."""
    if self.dim() > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{self.dim()} dimensions"
        )
    c = cov(self)
    if c.dim() == 0:
        return c / c  # one variable: 1, or nan when its variance is 0, inf or nan
    d = c.diagonal()
    stddev = (d.real if d.is_complex() else d).sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    if c.is_complex():
        return _complex(c.real.clip(-1, 1), c.imag.clip(-1, 1))
    return c.clip(-1, 1)


corrcoef = native_function(
    "corrcoef(Tensor self) -> Tensor",
    kernel=_corrcoef_kernel,
    kind=COMPOSITE_IMPLICIT,
    doc="``torch.corrcoef``: Pearson's correlation coefficients of the rows of ``input``.",
)


# --- trapezoid, trapz, cumulative_trapezoid ------------------------------------------------------


def _zeros_like_except(y: Tensor, dim: int) -> Tensor:
    """The integral over no samples: zeros of ``y``'s shape without ``dim`` (NumPy's 0)."""
    sizes = list(y._size)
    del sizes[wrap_dim(dim, y.dim())]
    return zeros(sizes, dtype=y._dtype)


def _pad_shape(shape, ndim: int) -> list[int]:
    """``shape`` with 1s in front up to ``ndim`` dims: ``x`` lined up with ``y``."""
    return [1] * max(ndim - len(shape), 0) + list(shape)


def _spacings(name: str, y: Tensor, x: Tensor, dim: int) -> Tensor:
    """``x[i+1] - x[i]`` along ``dim``, shaped to broadcast against ``y``'s differences. A
    1-D ``x`` lies along ``dim``; a shorter one lines up with ``y``'s last dims."""
    if x.dim() == 1:
        if x.size(0) != y.size(dim):
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        sizes = [1] * y.dim()
        sizes[dim] = x.size(0)
        x = x.view(sizes)
    elif x.dim() < y.dim():
        x = x.view(_pad_shape(x._size, y.dim()))
    return _slice_op(x, dim, 1, None, 1) - _slice_op(x, dim, 0, -1, 1)


def _check_dx(name: str, dx) -> None:
    if isinstance(dx, bool | complex):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")


def _trapezoid_x_kernel(y: Tensor, x: Tensor, *, dim: int = -1) -> Tensor:
    dim = wrap_dim(dim, y.dim())
    if y.size(dim) == 0:
        return _zeros_like_except(y, dim)
    if y._dtype is bool_ or x._dtype is bool_:
        raise RuntimeError(
            "trapezoid: received a bool input for `x` or `y`, but bool is not supported"
        )
    dx = _spacings("trapezoid", y, x, dim)
    left, right = _slice_op(y, dim, 0, -1, 1), _slice_op(y, dim, 1, None, 1)
    return div_scalar(((left + right) * dx).sum(dim), 2.0)


def _trapezoid_dx_kernel(y: Tensor, *, dx=1, dim: int = -1) -> Tensor:
    if y.size(dim) == 0:
        return _zeros_like_except(y, dim)
    if y._dtype is bool_:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    _check_dx("trapezoid", dx)
    # A constant spacing: dx * (the sum of all samples - half the two ends).
    # (C++'s ``tensor * double`` is mul.Scalar: MulBackward1.)
    ends = mul_scalar(y.select(dim, 0) + y.select(dim, -1), 0.5)
    return mul_scalar(y.sum(dim) - ends, float(dx))


def _trapz_dx_kernel(y: Tensor, *, dx: float = 1.0, dim: int = -1) -> Tensor:
    # ``float dx``: the parser took a bool as a number, which ``trapezoid``'s Scalar refuses.
    return _trapezoid_dx_kernel(y, dx=float(dx), dim=dim)


trapezoid = native_function(
    "trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor",
    "trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor",
    kernels={"trapezoid.x": _trapezoid_x_kernel, "trapezoid.dx": _trapezoid_dx_kernel},
    kinds=_composite("trapezoid.x", "trapezoid.dx"),
    variants="function",
    doc="``torch.trapezoid``: the trapezoid rule along ``dim``, at sample points ``x`` or "
    "spaced ``dx`` apart.",
)
trapz = native_function(
    "trapz.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor",
    "trapz.dx(Tensor y, *, float dx=1, int dim=-1) -> Tensor",
    kernels={"trapz.x": _trapezoid_x_kernel, "trapz.dx": _trapz_dx_kernel},
    kinds=_composite("trapz.x", "trapz.dx"),
    variants="function",
    doc="``torch.trapz``: the older name of ``trapezoid``.",
)


def _cumulative_trapezoid_x_kernel(y: Tensor, x: Tensor, *, dim: int = -1) -> Tensor:
    dim = wrap_dim(dim, y.dim())
    if y._dtype is bool_ or x._dtype is bool_:
        raise RuntimeError(
            "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported"
        )
    dx = _spacings("cumulative_trapezoid", y, x, dim)
    left, right = _slice_op(y, dim, 0, -1, 1), _slice_op(y, dim, 1, None, 1)
    return div_scalar(((left + right) * dx).cumsum(dim), 2.0)


def _cumulative_trapezoid_dx_kernel(y: Tensor, *, dx=1, dim: int = -1) -> Tensor:
    if y._dtype is bool_:
        raise RuntimeError(
            "cumulative_trapezoid: received a bool input for `y`, but bool is not supported"
        )
    _check_dx("cumulative_trapezoid", dx)
    left, right = _slice_op(y, dim, 0, -1, 1), _slice_op(y, dim, 1, None, 1)
    return mul_scalar(left + right, float(dx) / 2.0).cumsum(dim)


cumulative_trapezoid = native_function(
    "cumulative_trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor",
    "cumulative_trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor",
    kernels={
        "cumulative_trapezoid.x": _cumulative_trapezoid_x_kernel,
        "cumulative_trapezoid.dx": _cumulative_trapezoid_dx_kernel,
    },
    kinds=_composite("cumulative_trapezoid.x", "cumulative_trapezoid.dx"),
    variants="function",
    doc="``torch.cumulative_trapezoid``: the running trapezoid rule along ``dim`` (one "
    "value fewer than the samples).",
)

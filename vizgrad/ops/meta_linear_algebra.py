"""Meta kernels of the linear algebra operators that are not structured kernels.

Most products and solvers get their Meta kernel from their meta function
(``meta_then_impl``, ``out_wrapper(meta=...)``: ``mm``, ``bmm``, ``mv``, ``addmm``,
``addmv``, ``baddbmm``, ``linalg_lu_solve``, ``_linalg_solve_ex``…), as PyTorch's
structured kernels do. The ones here are written from their CPU module's own checks and
layout rules, which those modules factor out of their kernels for this (``dot_meta``,
``check_addbmm``, ``cdist_shape``, ``c2c_layout``…), so a meta result has the CPU
result's shape, dtype and strides:

* ``dot`` and ``vdot`` (0-dim), ``addbmm`` (its three overloads resize like the CPU
  kernel, which computes into ``self`` or ``out``), ``outer.out``, ``_trilinear``;
* the distances ``_cdist_forward``, ``_cdist_backward`` and ``_euclidean_dist`` (the last
  is made of operators with Meta kernels but for ``cat``, whose result is laid out here);
* ``linalg_matrix_exp``, the deprecated ``cholesky``, ``cholesky_inverse`` and
  ``cholesky_solve`` (column-major results, as LAPACK writes them);
* the FFT primitives ``_fft_c2c``, ``_fft_r2c`` and ``_fft_c2r``, with MKL's strides.

Some CPU kernels read no data before their last step, or only through operators that
have Meta kernels: they run on meta tensors as they are (``_RUN_AS_ON_CPU``): the
``out=`` overloads of composite operators (``matmul.out``, ``linear.out``…),
``linalg_eig`` and ``linalg_eigvals`` (whose ``_eig_arrays`` gives meta results for a
meta input) and ``linalg_pinv`` with tensor tolerances.

``linalg_lstsq`` has no meta kernel in PyTorch 2.13 either: both overloads raise the
``NotImplementedError`` PyTorch raises (naming ``linalg_lstsq.out``, which its
functional overload calls).
"""

from __future__ import annotations

from ..dispatcher import OUT, meta_missing
from ..meta_device import (
    META,
    check_copy_device,
    check_same_device,
    empty_contiguous_meta,
    empty_meta,
)
from ..promotion import result_type
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .copy import clone
from .decompositions import _linalg_eigvals, linalg_eig, linalg_eigvals
from .factorizations import (
    _CHOLESKY_DEPRECATED,
    _check_floating_or_complex,
    _compatible_out,
    _square_check_inputs,
    cholesky_inverse_out,
    cholesky_solve_shape,
    matrix_strides,
)
from .iterator import resize_output
from .least_squares import linalg_lstsq, linalg_pinv
from .linalg import _check_outer, _tensordot, dot_meta, dot_out_kernel, ger, matmul
from .linear import _check_trilinear, linear
from .matrix_products import (
    _check_cdist_shapes,
    _matrix_exp_kernel,
    cdist_backward_shape,
    cdist_shape,
    check_addbmm,
)
from .overload_kernels import out_wrapper
from .registry import OPERATORS, write_to_out
from .spectral import c2c_layout, c2r_layout, r2c_layout

__all__ = ["KERNELS"]


def _matrices(size, dtype) -> Tensor:
    """A batch of column-major matrices, as LAPACK writes them (``empty_matrices``)."""
    return empty_meta(size, matrix_strides(tuple(size)), dtype)


def _default_out(qualname: str, functional, **options):
    """The ``out=`` kernel ``native_function`` makes for a functional kernel (and these
    ``out_wrapper`` options), around the functional Meta kernel: its checks, ``out``
    resized, and no data to copy but that ``out`` is on the meta device."""
    return out_wrapper(functional, **options).for_overload(OPERATORS[qualname].function_schema,
                                                           OUT)  # fmt: skip


# --- products ---------------------------------------------------------------------------------


def _dot(self: Tensor, other: Tensor) -> Tensor:
    """PyTorch runs ``dot`` on meta tensors through its Python reference, which first
    checks that both vectors are on one device (``check_same_device``)."""
    check_same_device((self, other))
    return empty_contiguous_meta(*dot_meta(self, other))


def _addbmm_out(self: Tensor, batch1: Tensor, batch2: Tensor, beta, alpha,
                result: Tensor) -> Tensor:  # fmt: skip
    """``addbmm_out``: ``result`` resized to the product's shape, without a warning."""
    shape = check_addbmm(self, batch1, batch2, result._dtype)._size
    resize_output(result, shape, warn=False)
    return result


def _addbmm(self, batch1, batch2, *, beta=1, alpha=1) -> Tensor:
    return _addbmm_out(self, batch1, batch2, beta, alpha, empty_contiguous_meta((0,), self._dtype))


def _addbmm_(self, batch1, batch2, *, beta=1, alpha=1) -> Tensor:
    return _addbmm_out(self, batch1, batch2, beta, alpha, self)


def _addbmm_out_kernel(self, batch1, batch2, *, beta=1, alpha=1, out) -> Tensor:
    _addbmm_out(self, batch1, batch2, beta, alpha, out)
    check_copy_device(META, out)
    return out


def _outer_out(self: Tensor, vec2: Tensor, *, out: Tensor) -> Tensor:
    """``outer.out`` promotes like ``mul``: a ``(n, m)`` result of the promoted dtype."""
    _check_outer(self, vec2)
    result = empty_contiguous_meta((self._size[0], vec2._size[0]), result_type(self, vec2))
    return write_to_out(result, out)


def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1) -> Tensor:
    shape, dtype = _check_trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim)
    return empty_contiguous_meta(shape, dtype)


# --- distances --------------------------------------------------------------------------------


def _cdist_forward(x1: Tensor, x2: Tensor, p: float, compute_mode) -> Tensor:
    _check_cdist_shapes(x1, x2)
    return empty_contiguous_meta(cdist_shape(x1, x2, p, compute_mode), x1._dtype)


def _cdist_backward(grad: Tensor, x1: Tensor, x2: Tensor, p: float, cdist: Tensor) -> Tensor:
    return empty_contiguous_meta(cdist_backward_shape(x1, x2), x1._dtype)


def _euclidean_dist(x1: Tensor, x2: Tensor) -> Tensor:
    """``_euclidean_dist``'s steps on meta tensors: ``[-2a, |a|², 1]`` and ``[b, 1, |b|²]``
    (``cat``'s results, one column longer by two) multiplied with ``matmul``, whose checks
    and broadcasting give the result."""
    x1_ = empty_contiguous_meta((*x1._size[:-1], x1._size[-1] + 2), x1._dtype)
    x2_ = empty_contiguous_meta((*x2._size[:-1], x2._size[-1] + 2), x2._dtype)
    return x1_.matmul(x2_.transpose(-2, -1)).clamp_min_(0).sqrt_()


# --- matrix functions and solvers -------------------------------------------------------------


def _matrix_exp(self: Tensor) -> Tensor:
    """A matrix of order 0 or 1 is the CPU kernel's ``clone`` or ``exp``, which run on
    meta tensors; any other result is contiguous."""
    _square_check_inputs(self, "linalg.matrix_exp")
    _check_floating_or_complex(self, "linalg.matrix_exp")
    if self._size[-1] <= 1:
        return _matrix_exp_kernel(self)
    return empty_contiguous_meta(self._size, self._dtype)


def _cholesky(self: Tensor, upper=False) -> Tensor:
    warn_at_user_code(_CHOLESKY_DEPRECATED)
    if self.numel() == 0:
        return empty_contiguous_meta(self._size, self._dtype)
    _square_check_inputs(self, "cholesky")
    return _matrices(self._size, self._dtype)


def _cholesky_inverse(self: Tensor, upper=False) -> Tensor:
    _square_check_inputs(self, "cholesky_inverse")
    return _matrices(self._size, self._dtype)


def _cholesky_solve(self: Tensor, input2: Tensor, upper=False) -> Tensor:
    return _matrices(cholesky_solve_shape(self, input2), self._dtype)


def _lstsq(*args, **kwargs):
    """PyTorch 2.13 has no meta kernel for ``linalg_lstsq.out``, which its functional
    overload calls: the error names it."""
    message = str(meta_missing(linalg_lstsq.overloads["linalg_lstsq.out"]))
    raise NotImplementedError(message.replace("aten::linalg_lstsq:", "aten::linalg_lstsq.out:", 1))


# --- FFT ----------------------------------------------------------------------------------------


def _fft_c2c(self: Tensor, dim, normalization: int, forward: bool) -> Tensor:
    dim, strides = c2c_layout(self, dim)
    if strides is None:  # nothing to transform: a copy
        return clone(self)
    return empty_meta(self._size, strides, self._dtype)


def _fft_r2c(self: Tensor, dim, normalization: int, onesided: bool) -> Tensor:
    _, size, dtype, strides = r2c_layout(self, dim, onesided)
    return empty_meta(size, strides, dtype)


def _fft_c2r(self: Tensor, dim, normalization: int, last_dim_size: int) -> Tensor:
    _, size, dtype, strides = c2r_layout(self, dim, last_dim_size)
    return empty_meta(size, strides, dtype)


# Kernels that read no data on meta tensors, or only through operators with Meta kernels:
# composite ``out=`` overloads (their products write ``out`` through ``out=`` overloads
# that have Meta kernels), ``eig`` (``_eig_arrays``) and ``pinv`` (``svd``, ``matmul``…).
_RUN_AS_ON_CPU = (
    matmul.overloads["matmul.out"],
    _tensordot.overloads["tensordot.out"],
    ger.overloads["ger.out"],
    linear.overloads["linear.out"],
    linalg_eig.overloads["linalg_eig"],
    linalg_eig.overloads["linalg_eig.out"],
    linalg_eigvals.overloads["linalg_eigvals.out"],
    linalg_pinv.overloads["linalg_pinv.atol_rtol_tensor"],
    linalg_pinv.overloads["linalg_pinv.atol_rtol_tensor_out"],
    _linalg_eigvals.overloads["_linalg_eigvals"],
)


def _kernels() -> dict:
    kernels = {op.qualname: op.kernel for op in _RUN_AS_ON_CPU}
    kernels.update({
        "aten::dot": _dot,
        "aten::dot.out": dot_out_kernel(_dot),
        "aten::vdot": _dot,
        "aten::vdot.out": dot_out_kernel(_dot),
        "aten::addbmm": _addbmm,
        "aten::addbmm_": _addbmm_,
        "aten::addbmm.out": _addbmm_out_kernel,
        "aten::outer.out": _outer_out,
        "aten::_trilinear": _trilinear,
        "aten::_cdist_forward": _cdist_forward,
        "aten::_cdist_backward": _cdist_backward,
        "aten::_euclidean_dist": _euclidean_dist,
        "aten::linalg_matrix_exp": _matrix_exp,
        "aten::cholesky": _cholesky,
        "aten::cholesky.out": _default_out("aten::cholesky.out", _cholesky,
                                           checks=_compatible_out("cholesky"), check_cast=False),
        "aten::cholesky_inverse": _cholesky_inverse,
        "aten::cholesky_inverse.out": cholesky_inverse_out(_cholesky_inverse),
        "aten::cholesky_solve": _cholesky_solve,
        "aten::cholesky_solve.out": _default_out(
            "aten::cholesky_solve.out", _cholesky_solve,
            checks=_compatible_out("cholesky_solve"), check_cast=False),
        "aten::linalg_lstsq": _lstsq,
        "aten::linalg_lstsq.out": _lstsq,
        "aten::_fft_c2c": _fft_c2c,
        "aten::_fft_c2c.out": _default_out("aten::_fft_c2c.out", _fft_c2c),
        "aten::_fft_r2c": _fft_r2c,
        "aten::_fft_r2c.out": _default_out("aten::_fft_r2c.out", _fft_r2c),
        "aten::_fft_c2r": _fft_c2r,
        "aten::_fft_c2r.out": _default_out("aten::_fft_c2r.out", _fft_c2r),
    })  # fmt: skip
    return kernels


# Meta kernels by qualified overload name (``vizgrad.ops.meta_kernels`` registers them).
KERNELS: dict = _kernels()

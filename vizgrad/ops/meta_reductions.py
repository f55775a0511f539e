"""Meta kernels of the reductions: ``sum``, ``prod``, ``amax``, ``argmax``, ``all``, the
scans, ``var``/``std``, the vector norms, ``softmax``, the losses, ``median``, ``mode``….

A reduction's CPU kernel takes its result's shape from NumPy, so its meta function is
written here: the CPU module's own checks (``extreme_dims``, ``check_whole``,
``nansum_dtype``, ``mode_dim``, ``check_nll_loss_backward``…, factored out of the
kernels so that both run them), the same dims and dtype rules (``reduction_dims``,
``sum_dtype``, ``_mean_dtype``), and an empty result of that shape, contiguous as the CPU
kernels' results are (``wrap_result``). PyTorch's reductions are structured kernels whose
``TORCH_META_FUNC`` does the same: checks, then ``set_output`` of the reduced shape.

The ``out=`` overloads are the CPU module's own ``out=`` wrappers (``computed_in_out_dtype``,
``same_dtype_out``, ``logical_out``, ``out_wrapper``…) around the meta function: the same
dtype checks and resize of ``out``, and ``write_to_out`` copies nothing to a meta ``out``
(and refuses one on another device, as PyTorch's ``_safe_copy_out`` does).

Some kernels need no meta function of their own: those made of other operators
(``norm.ScalarOpt_dim``, ``dist``) or of a ``TensorIterator`` and reductions (``mse_loss``,
``huber_loss``, ``smooth_l1_loss``, ``soft_margin_loss``, ``binary_cross_entropy``) run on
meta tensors as they are. Those made structured in their own module (``argmax``,
``linalg_vector_norm``, ``cummax``, ``logcumsumexp``, ``nll_loss_forward``, ``sort``, ``kthvalue``,
``_softmax.out``, ``softmax.int_out``, ``max.dim``, ``topk``, ``median.dim``) get theirs
from ``meta_kernels``: their meta function is the one their CPU kernel runs first.

Not here: ``equal``, which PyTorch 2.13 has no Meta kernel for either (the dispatcher's
``NotImplementedError``, as torch's); ``allclose`` runs ``isclose`` on the meta tensors,
then fails where torch's does, reading the answer (``Tensor.item()``).
"""

from __future__ import annotations

from .. import dtypes as dt
from ..meta_device import empty_contiguous_meta
from ..shape import wrap_dim
from ..tensor import Tensor
from .activation import check_softmax, log_sigmoid_forward_meta, softmax_backward_dtype
from .comparison import _check_isclose, isclose
from .declaration import _named_results, _returning
from .logical_reductions import logical_dims, logical_dtype, logical_out
from .loss import (
    MEAN,
    NONE,
    _check_nll_dtypes,
    _check_nll_loss2d_inputs,
    bce_with_logits,
    check_log_sigmoid,
    check_margin_out,
    check_multi_margin_dtypes,
    check_nll2d_out,
    check_nll_loss2d_backward,
    check_nll_loss_backward,
    multi_margin_loss_checks,
)
from .matrix_products import _not_implemented as _trace_not_implemented
from .min_max import (
    check_unary_out,
    check_whole,
    check_whole_unary_out,
    extreme_dims,
    same_dtype_out,
)
from .overload_kernels import out_wrapper
from .reduction_args import reduced_shape, reduction_dims
from .reduction_dtypes import computed_in_out_dtype, sum_dtype
from .reductions import (
    _logsumexp_input_dtype,
    _mean_dtype,
    logsumexp_out,
    mean_dtype_out,
    nansum_dtype,
    nansum_out,
)
from .registry import OPERATORS
from .scan import (
    check_inplace_scan,
)
from .sorting import check_median_input, mode_dim, mode_out
from .variance import _var_dtype

__all__ = ["KERNELS"]


def _reduced(self: Tensor, dims: tuple, keepdim: bool, dtype) -> Tensor:
    return empty_contiguous_meta(reduced_shape(self._size, dims, keepdim), dtype)


def _out(qualname: str, meta, **options):
    """``qualname``'s ``out=`` kernel as its CPU module declares it (``out_wrapper`` with
    these options), around the meta function."""
    op = OPERATORS[qualname]
    return out_wrapper(meta, **options).for_overload(op.function_schema, op.variant)


# --- sum, mean, nansum, prod, logsumexp -----------------------------------------------------


def _sum(self: Tensor, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    return _reduced(self, reduction_dims(dim, self.dim()), keepdim, dtype or sum_dtype(self._dtype))


def _mean(self: Tensor, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    return _reduced(self, reduction_dims(dim, self.dim()), keepdim, _mean_dtype(self, dtype))


# A product's dims and dtype are a sum's (integers multiply in int64).
_prod = _sum


def _nansum(self: Tensor, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    dtype = nansum_dtype(self, dtype)
    return _reduced(self, reduction_dims(dim, self.dim()), keepdim, dtype)


def _logsumexp(self: Tensor, dim, keepdim=False, *, dtype=None) -> Tensor:
    dims = reduction_dims(dim, self.dim())
    return _reduced(self, dims, keepdim, dtype or _logsumexp_input_dtype(self))


# --- amax, amin, max(), min() ------------------------------------------------------------


def _extreme(fn_name: str):
    def meta(self: Tensor, dim=(), keepdim=False) -> Tensor:
        return _reduced(self, extreme_dims(fn_name, self, dim), keepdim, self._dtype)

    return meta


def _whole(fn_name: str, *, unary_out: bool = False):
    def meta(self: Tensor) -> Tensor:
        if unary_out:
            check_whole_unary_out(fn_name, self)  # an empty input is no error
        else:
            check_whole(fn_name, self)
        return empty_contiguous_meta((), self._dtype)

    return meta


# --- all, any, count_nonzero --------------------------------------------------------------


def _logical(self: Tensor, dim=None, keepdim=False) -> Tensor:
    return _reduced(self, logical_dims(self, dim), keepdim, logical_dtype(self))


def _count_nonzero(self: Tensor, dim=None) -> Tensor:
    return _reduced(self, reduction_dims(dim, self.dim()), False, dt.int64)


# --- scans --------------------------------------------------------------------------------


def _cumulative(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    wrap_dim(dim, self.dim())
    return empty_contiguous_meta(self._size, dtype or sum_dtype(self._dtype))


def _inplace_scan(fn_name: str):
    def meta(self: Tensor, dim: int, *, dtype=None) -> Tensor:
        check_inplace_scan(fn_name, self, dim, dtype)
        return self

    return meta


# --- var, std, var_mean, std_mean ---------------------------------------------------------


def _variance(name: str):
    def meta(self: Tensor, dim=None, *, correction=None, keepdim=False, dtype=None) -> Tensor:
        result_dtype = dtype or _var_dtype(self)
        return _reduced(self, reduction_dims(dim, self.dim()), keepdim, result_dtype)

    meta.__name__ = f"_{name}_meta"
    return meta


def _with_mean(name: str):
    def meta(self: Tensor, dim=None, *, correction=None, keepdim=False):
        dims = reduction_dims(dim, self.dim())
        spread = _reduced(self, dims, keepdim, _var_dtype(self, name=name))
        return spread, _reduced(self, dims, keepdim, _mean_dtype(self, None))

    return meta


# --- trace -------------------------------------------------------------------------------


def _trace(self: Tensor) -> Tensor:
    """``trace``'s checks (``matrix_products._trace_kernel``): a matrix, not of bools."""
    if self._dtype.category == dt.BOOL:
        raise _trace_not_implemented("trace", self._dtype)
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    return empty_contiguous_meta((), sum_dtype(self._dtype))


# --- softmax ------------------------------------------------------------------------------


def _softmax_family(kernel: str):
    def meta(input: Tensor, dim: int, half_to_float: bool) -> Tensor:
        check_softmax(kernel, input, dim, half_to_float)
        return empty_contiguous_meta(input._size, input._dtype)

    return meta


def _softmax_backward(kernel: str):
    def meta(grad_output: Tensor, output: Tensor, dim: int, input_dtype) -> Tensor:
        dtype = softmax_backward_dtype(kernel, grad_output, output, dim, input_dtype)
        return empty_contiguous_meta(grad_output._size, dtype)

    return meta


# --- losses -------------------------------------------------------------------------------


def _bce_with_logits(self: Tensor, target: Tensor, weight=None, pos_weight=None,
                     reduction: int = MEAN) -> Tensor:  # fmt: skip
    check_log_sigmoid(self)
    return bce_with_logits(self, target, weight, pos_weight, reduction,
                           empty_contiguous_meta(self._size, self._dtype))  # fmt: skip


def _multi_margin_loss(self, target, p=1, margin=1, weight=None, reduction=MEAN) -> Tensor:
    _, _, shape = multi_margin_loss_checks(self, target, p, weight, reduction)
    if self.numel():
        check_multi_margin_dtypes(self, target)
    return empty_contiguous_meta(shape, self._dtype)


def _nll_loss2d_forward(self, target, weight, reduction, ignore_index):
    _check_nll_loss2d_inputs(self, target, weight)
    _check_nll_dtypes(self, target, weight)
    n, _, h, w = self.shape
    shape = (n, h, w) if reduction == NONE else ()
    return empty_contiguous_meta(shape, self._dtype), empty_contiguous_meta((), self._dtype)


def _nll_backward(check):
    def meta(grad_output, self, target, weight, reduction, ignore_index, total_weight):
        check(grad_output, self, target, weight, reduction, total_weight)
        return empty_contiguous_meta(self._size, self._dtype)

    return meta


# --- median, mode, allclose ---------------------------------------------------------------


def _median_all(self: Tensor) -> Tensor:
    if self.numel():
        check_median_input("median_cpu", self)
    return empty_contiguous_meta((), self._dtype)


def _mode(self: Tensor, dim: int = -1, keepdim=False):
    dim = mode_dim(self, dim)
    shape = reduced_shape(self._size, (dim,), keepdim)
    return empty_contiguous_meta(shape, self._dtype), empty_contiguous_meta(shape, dt.int64)


def _allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """``allclose`` is ``isclose(...).all().item()`` in PyTorch: on meta tensors the
    ``isclose`` runs (its checks, its broadcast), and reading the answer fails."""
    _check_isclose(self, other, rtol, atol, equal_nan)
    isclose.overloads["isclose"](self, other, rtol, atol, equal_nan)
    raise RuntimeError("Tensor.item() cannot be called on meta tensors")


def _named(kernels: dict) -> dict:
    """Each kernel whose overload returns named results (``cummax``'s ``values`` and
    ``indices``), made to return them as the CPU kernel does."""
    named = {}
    for qualname, kernel in kernels.items():
        result_type = _named_results(OPERATORS[qualname].function_schema)
        if result_type is None:
            named[qualname] = kernel
        else:
            named[qualname] = _returning(result_type, kernel)
    return named


def _as_on_cpu(*qualnames: str) -> dict:
    """Kernels made of operators and TensorIterators only: they run on meta tensors."""
    return {q: OPERATORS[q].kernel for q in qualnames}


_var, _std = _variance("var"), _variance("std")
_amax, _amin = _extreme("amax"), _extreme("amin")
_max, _min = _whole("max"), _whole("min")
_softmax, _log_softmax = _softmax_family("softmax"), _softmax_family("log_softmax")
_mode_values = mode_out(_mode)
_LOGICAL = {
    f"aten::{name}{suffix}": kernel
    for name in ("all", "any")
    for suffix, kernel in (
        ("", _logical), (".dim", _logical), (".dims", _logical),
        (".all_out", logical_out(name, _logical)),
        (".out", logical_out(name, _logical)),
        (".dims_out", logical_out(name, _logical)),
    )
}  # fmt: skip

KERNELS: dict = _named({
    "aten::sum": _sum,
    "aten::sum.dim_IntList": _sum,
    "aten::sum.IntList_out": computed_in_out_dtype(_sum),
    "aten::mean": _mean,
    "aten::mean.dim": _mean,
    "aten::mean.out": computed_in_out_dtype(_mean, _mean_dtype),
    "aten::mean.dtype_out": mean_dtype_out(_mean),
    "aten::nansum": _nansum,
    "aten::nansum.out": nansum_out(_nansum),
    "aten::prod": _prod,
    "aten::prod.dim_int": _prod,
    "aten::prod.int_out": computed_in_out_dtype(_prod),
    "aten::logsumexp": _logsumexp,
    "aten::logsumexp.out": logsumexp_out(_logsumexp),
    "aten::amax": _amax,
    "aten::amax.out": same_dtype_out(_amax),
    "aten::amin": _amin,
    "aten::amin.out": same_dtype_out(_amin),
    "aten::max": _max,
    "aten::max.unary_out": _out("aten::max.unary_out", _whole("max", unary_out=True),
                                check_dtypes=check_unary_out),
    "aten::min": _min,
    "aten::min.unary_out": _out("aten::min.unary_out", _whole("min", unary_out=True),
                                check_dtypes=check_unary_out),
    **_LOGICAL,
    "aten::count_nonzero": _count_nonzero,
    "aten::count_nonzero.dim_IntList": _count_nonzero,
    "aten::cumsum": _cumulative,
    "aten::cumsum_": _inplace_scan("cumsum"),
    "aten::cumsum.out": computed_in_out_dtype(_cumulative),
    "aten::cumprod": _cumulative,
    "aten::cumprod_": _inplace_scan("cumprod"),
    "aten::cumprod.out": computed_in_out_dtype(_cumulative),
    "aten::var.correction": _var,
    "aten::var.correction_out": computed_in_out_dtype(_var, _var_dtype),
    "aten::std.correction": _std,
    "aten::std.correction_out": computed_in_out_dtype(_std, _var_dtype),
    "aten::var_mean.correction": _with_mean("var_mean"),
    "aten::std_mean.correction": _with_mean("std_mean"),
    "aten::trace": _trace,
    "aten::_softmax": _softmax,
    "aten::_log_softmax": _log_softmax,
    "aten::_softmax_backward_data": _softmax_backward("softmax_backward"),
    "aten::_log_softmax_backward_data": _softmax_backward("log_softmax_backward"),
    "aten::log_sigmoid_forward": log_sigmoid_forward_meta,
    "aten::binary_cross_entropy_with_logits": _bce_with_logits,
    "aten::multi_margin_loss": _multi_margin_loss,
    "aten::multi_margin_loss.out": _out("aten::multi_margin_loss.out", _multi_margin_loss,
                                        check_dtypes=check_margin_out),  # fmt: skip
    "aten::nll_loss2d_forward": _nll_loss2d_forward,
    "aten::nll_loss2d_forward.output": _out("aten::nll_loss2d_forward.output",
                                            _nll_loss2d_forward, check_dtypes=check_nll2d_out),  # fmt: skip
    "aten::nll_loss_backward": _nll_backward(check_nll_loss_backward),
    "aten::nll_loss2d_backward": _nll_backward(check_nll_loss2d_backward),
    "aten::median": _median_all,
    "aten::nanmedian": _median_all,
    "aten::mode": _mode,
    "aten::mode.values": _mode_values.for_overload(
        OPERATORS["aten::mode.values"].function_schema, OPERATORS["aten::mode.values"].variant
    ),
    "aten::allclose": _allclose,
    **_as_on_cpu(
        "aten::mse_loss", "aten::mse_loss.out",
        "aten::smooth_l1_loss", "aten::smooth_l1_loss.out",
        "aten::huber_loss", "aten::huber_loss.out",
        "aten::soft_margin_loss", "aten::soft_margin_loss.out",
        "aten::binary_cross_entropy", "aten::binary_cross_entropy.out",
        "aten::norm.ScalarOpt_dim", "aten::dist",
    ),
})  # fmt: skip

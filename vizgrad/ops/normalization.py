"""Batch, layer, group and instance normalisation (``Normalization.cpp``, ``layer_norm.cpp``,
``group_norm.cpp``).

Each normalisation subtracts a mean and divides by a standard deviation, then applies an
optional per-channel (or per-element) affine ``weight * x̂ + bias``. They differ in *which*
elements share one mean:

* batch norm: every element of one channel, across the batch and the spatial dims
  (``(N, C, *)`` reduces over all dims but 1); in training it also keeps running
  averages of the statistics, which evaluation mode uses instead;
* layer norm: the last ``len(normalized_shape)`` dims of each sample;
* group norm: the channels of one group of each sample, with their spatial dims;
* instance norm: one channel of one sample (a batch norm over a ``(1, N*C, *)`` view).

As in PyTorch, the ``native_*`` operators hold the kernels and the derivatives
(``NativeBatchNormBackward0``…), each computed by a ``native_*_backward`` operator that
gives all three gradients (input, weight, bias) in one call; ``batch_norm``,
``layer_norm``, ``group_norm`` and ``instance_norm`` are CompositeImplicitAutograd: they
check their arguments and call the native operator (``batch_norm`` through
``_batch_norm_impl_index``, which picks the CPU implementation, index 0).
"""

from __future__ import annotations

import math

import numpy as np

from ..derivatives import Derivative
from ..device import channels_last
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import float32, uint8
from ..shape import channels_last_strides, contiguous_strides, is_channels_last_strides
from ..tensor import Tensor
from .creation import empty, suggested_format
from .declaration import native_function
from .iterator import FLOATING_TYPES
from .overload_kernels import out_wrapper

__all__ = [
    "native_batch_norm",
    "batch_norm",
    "_batch_norm_impl_index",
    "native_layer_norm",
    "layer_norm",
    "native_group_norm",
    "group_norm",
    "instance_norm",
]


# --- shared steps ---------------------------------------------------------------------------


def _shape_text(size) -> str:
    return "[" + ", ".join(str(s) for s in size) + "]"


def _check_mixed_dtypes(input: Tensor, *params) -> bool:
    """``mixed_data_type.h``: may the parameters' dtype differ from the input's?

    On CPU a half input may come with float32 parameters (the "mixed" case); otherwise
    every parameter has the input's dtype. Returns whether the call is mixed.
    """
    defined = [p for p in params if p is not None]
    mixed = bool(defined) and defined[0]._dtype is not input._dtype
    if mixed:
        if any(p._dtype is not float32 for p in defined):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input._dtype.name != "float16":
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    else:
        for p in defined:
            if p._dtype is not input._dtype:
                raise RuntimeError(
                    f"expected scalar type {input._dtype.scalar_name} but found "
                    f"{p._dtype.scalar_name}"
                )
    return mixed


def _check_floating(kernel_name: str, input: Tensor) -> None:
    # AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half, ...): the kernels compile for no other.
    if input._dtype.name not in FLOATING_TYPES:
        raise NotImplementedError(
            f"\"{kernel_name}\" not implemented for '{input._dtype.scalar_name}'"
        )


def _opmath(input: Tensor):
    """The dtype the kernels compute in: float32 for half (``opmath_type``), else the input's."""
    return np.float64 if input._dtype.name == "float64" else np.float32


def _new(values: np.ndarray, size, dtype, strides=None) -> Tensor:
    """A fresh tensor holding ``values`` (cast to ``dtype``), laid out by ``strides``."""
    size = tuple(size)
    result = Tensor._empty_strided(size, strides or contiguous_strides(size), dtype)
    if result.numel():
        np.copyto(result._array, np.asarray(values).reshape(size), casting="unsafe")
    return result


def _suggested_strides(input: Tensor) -> tuple:
    """``empty_like(input, input.suggest_memory_format())``: channels-last stays so."""
    if is_channels_last_strides(input._size, input._stride):
        return channels_last_strides(input._size)
    return contiguous_strides(input._size)


def _invstd(var: np.ndarray, eps: float) -> np.ndarray:
    """``InvStd``: ``1 / sqrt(var + eps)``, but 0 where both are 0 (not inf)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        result = 1 / np.sqrt(var + eps)
    if eps == 0:
        result = np.where(var == 0, 0, result).astype(var.dtype)
    return result


def _per_channel(values: np.ndarray, ndim: int) -> np.ndarray:
    """A ``(C,)`` array shaped to broadcast against an ``(N, C, *)`` input."""
    return values.reshape((1, -1) + (1,) * (ndim - 2))


def _gradient_formulas(backward, count: int) -> dict:
    """The formulas of one derivatives.yaml entry that names several inputs
    (``input, weight, bias: native_batch_norm_backward(...)``): one call of the backward
    operator gives every gradient, and each input's formula takes its own.

    The call is made once per node application: its results are kept on that
    application's ``saved`` (a fresh object each time the node runs).
    """

    def formula_for(index: int):
        def formula(grad, saved):
            results = saved.__dict__.get("_gradients")
            if results is None:
                results = saved._gradients = backward(grad, saved)
            return results[index]

        return formula

    return [formula_for(i) for i in range(count)]


# --- batch norm -----------------------------------------------------------------------------


def _spec(size, dtype, strides=None) -> tuple:
    """An output's ``(shape, dtype, strides)``: contiguous unless told."""
    size = tuple(size)
    return size, dtype, strides or contiguous_strides(size)


def _from_spec(values: np.ndarray, spec) -> Tensor | None:
    """A fresh tensor of ``spec`` holding ``values``; None for an output not asked for."""
    return None if spec is None else _new(values, *spec)


def native_batch_norm_meta(input, weight, bias, running_mean, running_var, training,
                           momentum, eps):  # fmt: skip
    """``native_batch_norm``'s checks, in its CPU kernel's order, and its outputs'
    ``(shape, dtype, strides)``: the output laid out as the input suggests, the saved
    statistics one per channel in training and empty in evaluation (as ``batch_norm_cpu``
    makes them; PyTorch's meta function gives them a channel each)."""
    mixed = _check_mixed_dtypes(input, weight, bias, running_mean, running_var)
    _check_floating("batch_norm", input)
    param_dtype = float32 if mixed else input._dtype
    channels = input._size[1] if input.dim() > 1 else 0
    if training:
        if input.numel() == 0:
            raise RuntimeError(
                "input tensor must have at least one element, but got input_sizes = "
                f"{_shape_text(input._size)}"
            )
    elif running_mean is None or running_var is None:
        missing = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{missing} must be defined in evaluation mode")
    stats = (channels,) if training else (0,)
    return (
        _spec(input._size, input._dtype, _suggested_strides(input)),
        _spec(stats, param_dtype),
        _spec(stats, param_dtype),
    )


def _native_batch_norm_out_meta(*args, **kwargs):
    """``batch_norm_cpu_out`` resizes its outputs (contiguous, whatever the input's layout):
    the meta function's shapes and dtypes, without its strides."""
    return [spec[:2] for spec in native_batch_norm_meta(*args, **kwargs)]


def native_batch_norm_backward_meta(grad_out, input, weight, running_mean, running_var,
                                    save_mean, save_invstd, train, eps, output_mask):  # fmt: skip
    """``native_batch_norm_backward``'s outputs, None where ``output_mask`` (or a missing
    weight) leaves one out."""
    _check_floating("batch_norm_backward_cpu", input)
    return (
        _spec(input._size, input._dtype, _suggested_strides(input)) if output_mask[0] else None,
        _spec(weight._size, weight._dtype) if output_mask[1] and weight is not None else None,
        _spec((input._size[1],), weight._dtype if weight is not None else input._dtype)
        if output_mask[2] else None,
    )  # fmt: skip


def _native_batch_norm_kernel(input, weight, bias, running_mean, running_var, training,
                              momentum, eps):  # fmt: skip
    """``batch_norm_cpu``: normalise each channel; in training, with the batch's statistics
    (and update the running ones in place), in evaluation with the running ones."""
    specs = native_batch_norm_meta(input, weight, bias, running_mean, running_var, training,
                                   momentum, eps)  # fmt: skip
    ndim = input.dim()
    channels = input._size[1] if ndim > 1 else 0
    compute = _opmath(input)
    x = input._array.astype(compute, copy=False)
    if training:
        axes = (0, *range(2, ndim))
        n = input.numel() // channels
        mean = x.mean(axis=axes)
        var_sum = np.square(x - _per_channel(mean, ndim)).sum(axis=axes)
        invstd = _invstd(var_sum / n, eps)
        with np.errstate(divide="ignore", invalid="ignore"):
            # The running variance is the unbiased one (n - 1): a sample estimate of the
            # population's. Written in place, without a version bump, as the C++ kernel does.
            if running_mean is not None:
                updated = momentum * mean + (1 - momentum) * running_mean._array
                np.copyto(running_mean._array, updated, casting="unsafe")
            if running_var is not None:
                updated = momentum * (var_sum / (n - 1)) + (1 - momentum) * running_var._array
                np.copyto(running_var._array, updated, casting="unsafe")
        save_mean = _from_spec(mean, specs[1])
        save_invstd = _from_spec(invstd, specs[2])
    else:
        mean = running_mean._array.astype(compute)
        invstd = _invstd(running_var._array.astype(compute), eps)
        save_mean = _from_spec(np.empty(0), specs[1])
        save_invstd = _from_spec(np.empty(0), specs[2])
    scale = invstd if weight is None else invstd * weight._array.astype(compute)
    shift = -mean * scale
    if bias is not None:
        shift = shift + bias._array.astype(compute)
    out = x * _per_channel(scale, ndim) + _per_channel(shift, ndim)
    return _from_spec(out, specs[0]), save_mean, save_invstd


def _native_batch_norm_backward_kernel(grad_out, input, weight, running_mean, running_var,
                                       save_mean, save_invstd, train, eps, output_mask):  # fmt: skip
    """``batch_norm_backward_cpu``: the three gradients of a batch norm.

    With ``x̂ = (x - mean) * invstd`` and ``y = w x̂ + b``: ``dL/db = Σ g``,
    ``dL/dw = Σ g x̂``, and in training (the statistics depend on ``x``)
    ``dL/dx = w invstd (g - mean(g) - x̂ mean(g x̂))``; in evaluation ``w invstd g``.
    """
    specs = native_batch_norm_backward_meta(grad_out, input, weight, running_mean, running_var,
                                            save_mean, save_invstd, train, eps, output_mask)  # fmt: skip
    ndim = input.dim()
    compute = _opmath(input)
    x = input._array.astype(compute, copy=False)
    g = grad_out._array.astype(compute, copy=False)
    axes = (0, *range(2, ndim))
    if train:
        mean = save_mean._array.astype(compute)
        invstd = save_invstd._array.astype(compute)
    else:
        mean = running_mean._array.astype(compute)
        invstd = _invstd(running_var._array.astype(compute), eps)
    centered = x - _per_channel(mean, ndim)
    grad_sum = g.sum(axis=axes)
    dot = (centered * g).sum(axis=axes)
    w = np.ones_like(invstd) if weight is None else weight._array.astype(compute)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        if train:
            n = input.numel() // input._size[1]
            k = dot * invstd * invstd / n
            values = g - _per_channel(grad_sum / n, ndim) - centered * _per_channel(k, ndim)
            values = values * _per_channel(invstd * w, ndim)
        else:
            values = g * _per_channel(invstd * w, ndim)
        grad_input = _from_spec(values, specs[0])
    if output_mask[1] and weight is not None:
        grad_weight = _from_spec(dot * invstd, specs[1])
    if output_mask[2]:
        grad_bias = _from_spec(grad_sum, specs[2])
    return grad_input, grad_weight, grad_bias


native_batch_norm_backward = native_function(
    "native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, "
    "Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, "
    "bool train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
    kernel=_native_batch_norm_backward_kernel,
    variants="function",
    doc="``aten::native_batch_norm_backward``: batch norm's gradients for input, weight, bias.",
)


def _batch_norm_backward(grad, saved):
    # grad_input_mask: the bias's gradient is one sum, cheaper than asking which need it.
    return native_batch_norm_backward(
        grad, saved.input, saved.weight, saved.running_mean, saved.running_var,
        saved.result1, saved.result2, saved.training, saved.eps,
        [True, saved.weight is not None, True],
    )  # fmt: skip


_BATCH_NORM_INPUT, _BATCH_NORM_WEIGHT, _BATCH_NORM_BIAS = _gradient_formulas(
    _batch_norm_backward, 3
)

native_batch_norm = native_function(
    "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    "native_batch_norm.out(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps, *, Tensor(a!) out, "
    "Tensor(b!) save_mean, Tensor(c!) save_invstd) -> (Tensor(a!), Tensor(b!), Tensor(c!))",
    kernel=_native_batch_norm_kernel,
    # Its out= overload sets its outputs from the meta function first (so runs on meta).
    kernels={
        "native_batch_norm.out": out_wrapper(
            _native_batch_norm_kernel,
            "out",
            "save_mean",
            "save_invstd",
            meta=_native_batch_norm_out_meta,
        )
    },
    derivative=Derivative(
        "NativeBatchNormBackward0",
        save=(
            "input",
            "weight",
            "running_mean",
            "running_var",
            "result1",
            "result2",
            "training",
            "eps",
        ),
        grads={"input": _BATCH_NORM_INPUT, "weight": _BATCH_NORM_WEIGHT, "bias": _BATCH_NORM_BIAS},
        differentiable_outputs=(0,),
    ),  # fmt: skip
    variants="function",
    doc="``torch.native_batch_norm``: ``(output, save_mean, save_invstd)`` of a batch norm.",
)


def _check_features(name: str, expected: int, tensor: Tensor) -> None:
    if tensor.numel() != expected:
        raise RuntimeError(f"{name} should contain {expected} elements not {tensor.numel()}")


def _batch_norm_impl_index_kernel(input, weight, bias, running_mean, running_var, training,
                                  momentum, eps, cudnn_enabled):  # fmt: skip
    """``_batch_norm_impl_index``: check the per-channel tensors, then pick the
    implementation (on CPU always ``native_batch_norm``, index 0)."""
    num_features = input._size[1] if input.dim() > 1 else 0
    if running_mean is not None:
        _check_features("running_mean", num_features, running_mean)
    elif not training:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if running_var is not None:
        _check_features("running_var", num_features, running_var)
    elif not training:
        raise RuntimeError("running_var must be defined in evaluation mode")
    if weight is not None:
        _check_features("weight", num_features, weight)
    if bias is not None:
        _check_features("bias", num_features, bias)
    output, save_mean, save_invstd = _NATIVE_BATCH_NORM(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )
    # The reserve buffer cuDNN would fill: bytes (``kByte``), empty on CPU.
    reserve = empty(0, dtype=uint8)
    return output, save_mean, save_invstd, reserve, 0


_batch_norm_impl_index = native_function(
    "_batch_norm_impl_index(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) "
    "-> (Tensor, Tensor, Tensor, Tensor, int)",
    kernel=_batch_norm_impl_index_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._batch_norm_impl_index``: which batch norm implementation ran, and its results.",
)
_NATIVE_BATCH_NORM = native_batch_norm.overloads["native_batch_norm"]
_BATCH_NORM_IMPL_INDEX = _batch_norm_impl_index.overloads["_batch_norm_impl_index"]


def _batch_norm_kernel(input, weight, bias, running_mean, running_var, training, momentum,
                       eps, cudnn_enabled):  # fmt: skip
    """``at::batch_norm``: ``_batch_norm_impl_index``'s output, or for an empty input a
    recorded copy (neither a view of the input nor a fresh tensor, either of which would
    cut the gradient's path), scaled by the first weight and shifted by the first bias."""
    if input.numel() == 0:
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    return _BATCH_NORM_IMPL_INDEX(input, weight, bias, running_mean, running_var, training,
                                  momentum, eps, cudnn_enabled)[0]  # fmt: skip


batch_norm = native_function(
    "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) "
    "-> Tensor",
    kernel=_batch_norm_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.batch_norm``: normalise each channel ``(x - mean) / sqrt(var + eps)``, "
    "then ``* weight + bias``.",
)

_BATCH_NORM_OP = batch_norm.overloads["batch_norm"]


# --- layer norm -----------------------------------------------------------------------------


def _check_layer_norm_inputs(input, normalized_shape, weight, bias) -> None:
    """``_check_layer_norm_inputs`` (``layer_norm.h``)."""
    normalized_shape = tuple(normalized_shape)
    ndim = len(normalized_shape)
    if ndim < 1:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
            f"least one element, but got normalized_shape = {_shape_text(normalized_shape)}"
        )
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and tuple(param._size) != normalized_shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {_shape_text(param._size)} and normalized_shape = "
                f"{_shape_text(normalized_shape)}"
            )
    size = tuple(input._size)
    if len(size) < ndim or size[len(size) - ndim :] != normalized_shape:
        expected = ", ".join(["*", *(str(s) for s in normalized_shape)])
        raise RuntimeError(
            f"Given normalized_shape={_shape_text(normalized_shape)}, expected input with "
            f"shape [{expected}], but got input of size{_shape_text(size)}"
        )


def _rows(tensor: Tensor, rows: int, normalized_shape, compute) -> np.ndarray:
    """The tensor's values as a ``(rows, N)`` array in the compute dtype."""
    return tensor._array.astype(compute, copy=False).reshape(rows, math.prod(normalized_shape))


def native_layer_norm_meta(input, normalized_shape, weight, bias, eps):
    """``native_layer_norm``'s checks and its outputs' ``(shape, dtype, strides)``: a
    contiguous output, and a mean and rstd per row, with size 1 in the normalised dims."""
    _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    mixed = _check_mixed_dtypes(input, weight, bias)
    _check_floating("LayerNormKernelImpl", input)
    param_dtype = float32 if mixed else input._dtype
    axis = input.dim() - len(normalized_shape)
    stats_size = (*input._size[:axis], *([1] * len(normalized_shape)))
    return (
        _spec(input._size, input._dtype),
        _spec(stats_size, param_dtype),
        _spec(stats_size, param_dtype),
    )


def native_layer_norm_backward_meta(grad_out, input, normalized_shape, mean, rstd, weight,
                                    bias, output_mask):  # fmt: skip
    """``native_layer_norm_backward``'s outputs, None where ``output_mask`` (or a missing
    weight or bias) leaves one out."""
    _check_floating("LayerNormBackwardKernelImpl", input)
    return (
        _spec(input._size, input._dtype) if output_mask[0] else None,
        _spec(weight._size, weight._dtype) if output_mask[1] and weight is not None else None,
        _spec(bias._size, bias._dtype) if output_mask[2] and bias is not None else None,
    )


def _native_layer_norm_kernel(input, normalized_shape, weight, bias, eps):
    """``layer_norm_cpu``: each sample's last ``len(normalized_shape)`` dims normalised
    together (a ``(M, N)`` view: M rows of N elements), then ``* weight + bias``."""
    specs = native_layer_norm_meta(input, normalized_shape, weight, bias, eps)
    axis = input.dim() - len(normalized_shape)
    rows = math.prod(input._size[:axis])
    compute = _opmath(input)
    x = _rows(input, rows, normalized_shape, compute)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x.mean(axis=1, keepdims=True) if x.shape[1] else np.full((rows, 1), np.nan)
        var = np.square(x - mean).mean(axis=1, keepdims=True) if x.shape[1] else mean
        rstd = 1 / np.sqrt(np.maximum(var, 0) + eps)
    out = (x - mean) * rstd
    if weight is not None:
        out = out * weight._array.astype(compute).reshape(1, -1)
    if bias is not None:
        out = out + bias._array.astype(compute).reshape(1, -1)
    return (
        _from_spec(out, specs[0]),
        _from_spec(mean.astype(compute), specs[1]),
        _from_spec(rstd.astype(compute), specs[2]),
    )


def _native_layer_norm_backward_kernel(grad_out, input, normalized_shape, mean, rstd, weight,
                                       bias, output_mask):  # fmt: skip
    """``layer_norm_backward_cpu``: with ``x̂ = (x - mean) * rstd`` over each row and
    ``ĝ = g * weight``: ``dx = rstd (ĝ - mean(ĝ) - x̂ mean(ĝ x̂))``, ``dw = Σ_rows g x̂``,
    ``db = Σ_rows g``."""
    specs = native_layer_norm_backward_meta(grad_out, input, normalized_shape, mean, rstd,
                                            weight, bias, output_mask)  # fmt: skip
    axis = input.dim() - len(normalized_shape)
    rows = math.prod(input._size[:axis])
    compute = _opmath(input)
    x = _rows(input, rows, normalized_shape, compute)
    g = _rows(grad_out, rows, normalized_shape, compute)
    mu = mean._array.astype(compute).reshape(rows, 1)
    r = rstd._array.astype(compute).reshape(rows, 1)
    x_hat = (x - mu) * r
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        scaled = g if weight is None else g * weight._array.astype(compute).reshape(1, -1)
        n = x.shape[1]
        values = r * (scaled - scaled.sum(axis=1, keepdims=True) / n
                      - x_hat * (scaled * x_hat).sum(axis=1, keepdims=True) / n)  # fmt: skip
        grad_input = _from_spec(values, specs[0])
    if output_mask[1] and weight is not None:
        grad_weight = _from_spec((g * x_hat).sum(axis=0), specs[1])
    if output_mask[2] and bias is not None:
        grad_bias = _from_spec(g.sum(axis=0), specs[2])
    return grad_input, grad_weight, grad_bias


native_layer_norm_backward = native_function(
    "native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, "
    "Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) "
    "-> (Tensor, Tensor, Tensor)",
    kernel=_native_layer_norm_backward_kernel,
    variants="function",
    doc="``aten::native_layer_norm_backward``: layer norm's gradients for input, weight, bias.",
)


def _layer_norm_backward(grad, saved):
    return native_layer_norm_backward(
        grad, saved.input, saved.normalized_shape, saved.result1, saved.result2, saved.weight,
        saved.bias, [True, saved.weight is not None, saved.bias is not None],
    )  # fmt: skip


_LAYER_NORM_INPUT, _LAYER_NORM_WEIGHT, _LAYER_NORM_BIAS = _gradient_formulas(
    _layer_norm_backward, 3
)

native_layer_norm = native_function(
    "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, "
    "float eps) -> (Tensor, Tensor, Tensor)",
    kernel=_native_layer_norm_kernel,
    derivative=Derivative(
        "NativeLayerNormBackward0",
        save=("input", "normalized_shape", "weight", "bias", "result1", "result2"),
        grads={"input": _LAYER_NORM_INPUT, "weight": _LAYER_NORM_WEIGHT, "bias": _LAYER_NORM_BIAS},
        differentiable_outputs=(0,),
    ),  # fmt: skip
    variants="function",
    doc="``torch.native_layer_norm``: ``(output, mean, rstd)`` of a layer norm.",
)
_NATIVE_LAYER_NORM = native_layer_norm.overloads["native_layer_norm"]


def _layer_norm_kernel(input, normalized_shape, weight=None, bias=None, eps=1e-5,
                       cudnn_enable=True):  # fmt: skip
    return _NATIVE_LAYER_NORM(input, normalized_shape, weight, bias, eps)[0]


layer_norm = native_function(
    "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
    "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor",
    kernel=_layer_norm_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.layer_norm``: normalise the last dims of each sample, then ``* weight + bias``.",
)


# --- group norm -----------------------------------------------------------------------------


def _check_group_norm_inputs(input, weight, bias, channels: int, groups: int) -> None:
    """``check_group_norm_inputs`` (``group_norm.cpp``)."""
    if groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {groups}")
    if channels % groups != 0:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {_shape_text(input._size)} and num_groups={groups}"
        )
    # PyTorch's message for a bad bias prints the *weight's* shape ([0] when there is none):
    # its check reads ``weight.sizes()`` for both.
    weight_shape = _shape_text(weight._size) if weight is not None else "[0]"
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and (param.dim() != 1 or param.numel() != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {weight_shape} and input of shape "
                f"{_shape_text(input._size)}"
            )


def native_group_norm_meta(input, weight, bias, N, C, HxW, group, eps):
    """``native_group_norm``'s checks and its outputs' ``(shape, dtype, strides)``: the
    output laid out as the input suggests, a mean and rstd per sample and group."""
    # The CPU kernel walks the input's memory in the order its layout suggests.
    if not input.is_contiguous(memory_format=suggested_format(input)):
        raise RuntimeError(
            "Expected X.is_contiguous(memory_format) to be true, but got false.  (Could this "
            "error message be improved?  If so, please report an enhancement request to "
            "PyTorch.)"
        )
    _check_group_norm_inputs(input, weight, bias, C, group)
    mixed = _check_mixed_dtypes(input, weight, bias)
    _check_floating("GroupNormKernelImpl", input)
    param_dtype = float32 if mixed else input._dtype
    return (
        _spec(input._size, input._dtype, _suggested_strides(input)),
        _spec((N, group), param_dtype),
        _spec((N, group), param_dtype),
    )


def native_group_norm_backward_meta(grad_out, input, mean, rstd, weight, N, C, HxW, group,
                                    output_mask):  # fmt: skip
    """``native_group_norm_backward``'s outputs, None where ``output_mask`` (or a missing
    weight) leaves one out."""
    _check_floating("GroupNormBackwardKernelImpl", input)
    return (
        _spec(input._size, input._dtype, _suggested_strides(input)) if output_mask[0] else None,
        _spec(weight._size, weight._dtype) if output_mask[1] and weight is not None else None,
        _spec((C,), weight._dtype if weight is not None else input._dtype)
        if output_mask[2] else None,
    )  # fmt: skip


def _native_group_norm_kernel(input, weight, bias, N, C, HxW, group, eps):
    """``native_group_norm``: each sample's channels split into ``group`` groups, each
    group (with its spatial elements) normalised together, then ``* weight + bias`` per
    channel."""
    specs = native_group_norm_meta(input, weight, bias, N, C, HxW, group, eps)
    compute = _opmath(input)
    x = input._array.astype(compute, copy=False).reshape(N, group, C // group * HxW)
    with np.errstate(invalid="ignore", divide="ignore"):
        if x.shape[2]:
            mean = x.mean(axis=2)
            var = np.square(x - mean[..., None]).mean(axis=2)
        else:
            mean = var = np.zeros((N, group), compute)
        rstd = 1 / np.sqrt(np.maximum(var, 0) + eps)
    out = ((x - mean[..., None]) * rstd[..., None]).reshape(N, C, HxW)
    if weight is not None:
        out = out * weight._array.astype(compute).reshape(1, C, 1)
    if bias is not None:
        out = out + bias._array.astype(compute).reshape(1, C, 1)
    return _from_spec(out, specs[0]), _from_spec(mean, specs[1]), _from_spec(rstd, specs[2])


def _native_group_norm_backward_kernel(grad_out, input, mean, rstd, weight, N, C, HxW, group,
                                       output_mask):  # fmt: skip
    """``native_group_norm_backward``: layer norm's gradient within each group, with
    ``ĝ = g * weight[c]``; ``dw[c] = Σ_{n,hw} g x̂`` and ``db[c] = Σ_{n,hw} g``."""
    specs = native_group_norm_backward_meta(grad_out, input, mean, rstd, weight, N, C, HxW,
                                            group, output_mask)  # fmt: skip
    compute = _opmath(input)
    x = input._array.astype(compute, copy=False).reshape(N, C, HxW)
    g = grad_out._array.astype(compute, copy=False).reshape(N, C, HxW)
    per_channel = C // group
    mu = np.repeat(mean._array.astype(compute).reshape(N, group), per_channel, axis=1)
    r = np.repeat(rstd._array.astype(compute).reshape(N, group), per_channel, axis=1)
    x_hat = (x - mu[..., None]) * r[..., None]
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        scaled = g if weight is None else g * weight._array.astype(compute).reshape(1, C, 1)
        count = per_channel * x.shape[2]
        in_group = (N, group, per_channel * HxW)
        mean_scaled = scaled.reshape(in_group).sum(axis=2, keepdims=True) / max(count, 1)
        mean_dot = (scaled * x_hat).reshape(in_group).sum(axis=2, keepdims=True) / max(count, 1)
        values = (scaled.reshape(in_group) - mean_scaled
                  - x_hat.reshape(in_group) * mean_dot) * rstd._array.astype(compute)[..., None]  # fmt: skip
        grad_input = _from_spec(values, specs[0])
    if output_mask[1] and weight is not None:
        grad_weight = _from_spec((g * x_hat).sum(axis=(0, 2)), specs[1])
    if output_mask[2]:
        grad_bias = _from_spec(g.sum(axis=(0, 2)), specs[2])
    return grad_input, grad_weight, grad_bias


native_group_norm_backward = native_function(
    "native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, "
    "Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) "
    "-> (Tensor, Tensor, Tensor)",
    kernel=_native_group_norm_backward_kernel,
    variants="function",
    doc="``aten::native_group_norm_backward``: group norm's gradients for input, weight, bias.",
)


def _group_norm_backward(grad, saved):
    return native_group_norm_backward(
        grad, saved.input, saved.result1, saved.result2, saved.weight, saved.N, saved.C,
        saved.HxW, saved.group, [True, saved.weight is not None, True],
    )  # fmt: skip


_GROUP_NORM_INPUT, _GROUP_NORM_WEIGHT, _GROUP_NORM_BIAS = _gradient_formulas(
    _group_norm_backward, 3
)

native_group_norm = native_function(
    "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, "
    "SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)",
    kernel=_native_group_norm_kernel,
    derivative=Derivative(
        "NativeGroupNormBackward0",
        save=("input", "weight", "N", "C", "HxW", "group", "eps", "result1", "result2"),
        grads={"input": _GROUP_NORM_INPUT, "weight": _GROUP_NORM_WEIGHT, "bias": _GROUP_NORM_BIAS},
        differentiable_outputs=(0,),
    ),  # fmt: skip
    variants="function",
    doc="``torch.native_group_norm``: ``(output, mean, rstd)`` of a group norm.",
)
_NATIVE_GROUP_NORM = native_group_norm.overloads["native_group_norm"]


def _group_norm_kernel(input, num_groups, weight=None, bias=None, eps=1e-5,
                       cudnn_enabled=True):  # fmt: skip
    """``at::group_norm``: check, lay the input out as it suggests (channels-last stays),
    and call ``native_group_norm`` with the input's ``N``, ``C`` and ``H*W...``."""
    n, channels = input._size[0], input._size[1]
    _check_group_norm_inputs(input, weight, bias, channels, num_groups)
    hxw = math.prod(input._size[2:])
    last = input.dim() == 4 and is_channels_last_strides(input._size, input._stride)
    x = input.contiguous(memory_format=channels_last) if last else input.contiguous()
    gamma = weight.contiguous() if weight is not None else None
    beta = bias.contiguous() if bias is not None else None
    return _NATIVE_GROUP_NORM(x, gamma, beta, n, channels, hxw, num_groups, eps)[0]


group_norm = native_function(
    "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, "
    "float eps=1e-05, bool cudnn_enabled=True) -> Tensor",
    kernel=_group_norm_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.group_norm``: normalise groups of channels of each sample, then "
    "``* weight + bias`` per channel.",
)


# --- instance norm --------------------------------------------------------------------------


def _instance_norm_kernel(input, weight, bias, running_mean, running_var, use_input_stats,
                          momentum, eps, cudnn_enabled):  # fmt: skip
    """``at::instance_norm``: a batch norm of the ``(1, N*C, *)`` view, each (sample,
    channel) pair its own channel; running statistics are averaged over the batch."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    b, c = input._size[0], input._size[1]
    shape = [1, b * c, *input._size[2:]]

    def repeated(t):
        return t.repeat(b) if t is not None else None

    running_mean_, running_var_ = repeated(running_mean), repeated(running_var)
    out = _BATCH_NORM_OP(input.contiguous().view(shape), repeated(weight), repeated(bias),
                         running_mean_, running_var_, use_input_stats, momentum, eps,
                         cudnn_enabled)  # fmt: skip
    # The running statistics are inputs PyTorch writes through an alias: in place.
    if running_mean is not None:
        running_mean.copy_(running_mean_.view(b, c).mean(0, False))
    if running_var is not None:
        running_var.copy_(running_var_.view(b, c).mean(0, False))
    return out.view(input._size)


instance_norm = native_function(
    "instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool use_input_stats, float momentum, float eps, "
    "bool cudnn_enabled) -> Tensor",
    kernel=_instance_norm_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.instance_norm``: normalise each channel of each sample on its own.",
)

"""Resampling the spatial dims of ``(N, C, *)`` tensors (``UpSample.h``, ``UpSampleKernel.cpp``).

Every mode is *separable*: along each spatial dim, output position ``o`` reads a few
input positions ("taps") with weights, and the dims are resampled one after another.
Where the taps are is PyTorch's index arithmetic, computed in the kernel's ``opmath``
type (float32 for float32 and half, float64 for double) so the positions round alike:

* ``area_pixel_compute_scale``: the step between source positions, ``in / out`` (or
  ``1 / scale_factor`` when one was given), or ``(in - 1) / (out - 1)`` with
  ``align_corners`` (the corner pixels' centres line up);
* ``area_pixel_compute_source_index``: where output ``o`` falls in the input,
  ``scale * (o + 0.5) - 0.5`` (pixel centres), or ``scale * o`` with ``align_corners``;
* nearest: ``floor(o * scale)`` (OpenCV's old rule, kept for compatibility);
  nearest-exact: ``floor((o + 0.5) * scale)`` (Pillow's and scikit-image's);
* linear: the two neighbours, weighted by distance; cubic: four neighbours, with the
  Keys kernel (``A = -0.75``), clamped at the borders.

Each mode is an operator with its own backward node (``UpsampleNearest2DBackward0``…),
whose gradient is another operator (``upsample_nearest2d_backward``: every tap sends
its weight times the output's gradient back to the input position it read), whose own
gradient is the forward again: resampling is linear. The ``.vec`` overloads (what
``F.interpolate`` calls) are CompositeImplicitAutograd: they turn ``scale_factors``
into an output size and call the main overload.

PyTorch binds these operators in ``torch._C._nn``, not as ``torch.<name>``; so does
vizgrad: ``vizgrad.nn.functional.interpolate`` calls them from here.
"""

from __future__ import annotations

import math

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..shape import channels_last_strides, contiguous_strides, is_channels_last_strides
from ..tensor import Tensor
from .declaration import native_function
from .iterator import FLOATING_TYPES
from .overload_kernels import meta_then_impl, out_wrapper
from .registry import OPERATORS

__all__ = [
    "upsample_nearest1d",
    "upsample_nearest2d",
    "upsample_nearest3d",
    "_upsample_nearest_exact1d",
    "_upsample_nearest_exact2d",
    "_upsample_nearest_exact3d",
    "upsample_linear1d",
    "upsample_bilinear2d",
    "upsample_trilinear3d",
    "upsample_bicubic2d",
]

_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"),
                3: ("scales_d", "scales_h", "scales_w")}  # fmt: skip
_DIM_LETTERS = {1: "W", 2: "HW", 3: "DHW"}


# --- where each output position reads -------------------------------------------------------


def _compute_scales_value(scale, input_size: int, output_size: int, opmath):
    """``compute_scales_value``: ``1 / scale_factor`` if one was given (and positive),
    else ``input_size / output_size``."""
    if scale is not None and scale > 0:
        return opmath(1.0 / scale)
    return opmath(input_size) / opmath(output_size)


def _area_pixel_compute_scale(input_size, output_size, align_corners, scale, opmath):
    if align_corners:
        return opmath(input_size - 1) / opmath(output_size - 1) if output_size > 1 else opmath(0)
    return _compute_scales_value(scale, input_size, output_size, opmath)


def _source_index(scale, output_size: int, align_corners: bool, cubic: bool, opmath):
    """``area_pixel_compute_source_index`` for every output position at once."""
    o = np.arange(output_size).astype(opmath)
    if align_corners:
        return scale * o
    real = scale * (o + opmath(0.5)) - opmath(0.5)
    return real if cubic else np.maximum(real, opmath(0))


def _guard_index_and_lambda(real, input_size: int, opmath):
    """``guard_index_and_lambda``: the tap below and the distance past it, both kept inside
    the input."""
    index = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), input_size - 1)
    lam = np.clip(real - index.astype(opmath), opmath(0), opmath(1)).astype(opmath)
    return index, lam


def _nearest_taps(input_size, output_size, scale, exact: bool, shortcuts: bool):
    """``nearest_idx`` / ``nearest_exact_idx``: one tap per output position, weight 1.

    ``nearest_idx`` copies an unchanged size and halves a doubled one without float
    arithmetic. PyTorch's 2-D forward kernel and every backward kernel use it; its 1-D and
    3-D forward kernels always compute, so a scale factor of 1.4 on a size of 2 reads
    input 0 twice there (while the gradient still goes to inputs 0 and 1, as in PyTorch).
    """
    o = np.arange(output_size)
    if shortcuts and output_size == input_size:
        index = o
    elif shortcuts and output_size == 2 * input_size:
        index = o >> 1  # exact halves: no float rounding
    else:
        step = _compute_scales_value(scale, input_size, output_size, np.float32)
        if exact:  # ``(o + 0.5) * scale`` is a double product, then floorf's float
            position = ((o + 0.5) * np.float64(step)).astype(np.float32)
        else:
            position = o.astype(np.float32) * step
        index = np.minimum(np.floor(position).astype(np.int64), input_size - 1)
    return [(index, None)]


def _linear_taps(input_size, output_size, scale, opmath, align_corners):
    """``compute_source_index_and_lambda``: two taps, weighted ``1 - λ`` and ``λ``."""
    o = np.arange(output_size)
    if output_size == input_size:
        return [(o, np.ones(output_size, opmath)), (o, np.zeros(output_size, opmath))]
    step = _area_pixel_compute_scale(input_size, output_size, align_corners, scale, opmath)
    real = _source_index(step, output_size, align_corners, False, opmath)
    index0, lambda1 = _guard_index_and_lambda(real, input_size, opmath)
    index1 = index0 + (index0 < input_size - 1)
    return [(index0, (opmath(1) - lambda1).astype(opmath)), (index1, lambda1)]


def _cubic_taps(input_size, output_size, scale, opmath, align_corners):
    """``get_cubic_upsample_coefficients``: four taps around the source position, the Keys
    cubic convolution kernel with ``A = -0.75``; taps past the border read the border."""
    a = opmath(-0.75)
    step = _area_pixel_compute_scale(input_size, output_size, align_corners, scale, opmath)
    real = _source_index(step, output_size, align_corners, True, opmath)
    index, t = _guard_index_and_lambda(real, input_size, opmath)
    one = opmath(1)

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + one

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    coefficients = [far(t + one), near(t), near(one - t), far(one - t + one)]
    return [(np.clip(index - 1 + j, 0, input_size - 1), coefficients[j].astype(opmath))
            for j in range(4)]  # fmt: skip


def _taps(mode: str, shortcuts: bool, input_size, output_size, scale, opmath, align_corners):
    if mode == "nearest":
        return _nearest_taps(input_size, output_size, scale, exact=False, shortcuts=shortcuts)
    if mode == "nearest_exact":
        return _nearest_taps(input_size, output_size, scale, exact=True, shortcuts=False)
    if mode == "linear":
        return _linear_taps(input_size, output_size, scale, opmath, align_corners)
    return _cubic_taps(input_size, output_size, scale, opmath, align_corners)


def _along(weights: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    """Per-position weights shaped to broadcast along ``axis``."""
    shape = [1] * ndim
    shape[axis] = weights.shape[0]
    return weights.reshape(shape)


# --- checks ---------------------------------------------------------------------------------


def _common_check(d: int, input_size, output_size) -> None:
    """``upsample_{1,2,3}d_common_check``: ``d`` output sizes, ``d + 2`` input sizes, all
    of the spatial ones positive."""
    output_size, input_size = tuple(output_size), tuple(input_size)
    if len(output_size) != d:
        raise RuntimeError(
            f"It is expected output_size equals to {d}, but got size {len(output_size)}"
        )
    if len(input_size) != d + 2:
        raise RuntimeError(
            f"It is expected input_size equals to {d + 2}, but got size {len(input_size)}"
        )
    spatial = input_size[2:]
    if any(s <= 0 for s in (*spatial, *output_size)):
        letters = _DIM_LETTERS[d]
        given = ", ".join(f"{c}: {s}" for c, s in zip(letters, spatial, strict=True))
        wanted = ", ".join(f"{c}: {s}" for c, s in zip(letters, output_size, strict=True))
        joint = " and output" if d == 1 else " output"
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({given}){joint} "
            f"({wanted})"
        )


def _check_sizes(d: int, input: Tensor, output_size) -> None:
    """The forward meta function's checks: the common ones and a non-empty input."""
    _common_check(d, input._size, output_size)
    if input.numel() == 0 and math.prod(input._size[1:]) == 0:
        sizes = "[" + ", ".join(str(s) for s in input._size) + "]"
        raise RuntimeError(
            f"Non-empty {d + 2}D data tensor expected but got a tensor with sizes {sizes}"
        )


# The dtypes each CPU kernel compiles for beyond the floating ones, and the kernel name its
# "not implemented" error gives (the one PyTorch reaches first for that mode and rank).
# PyTorch also resamples uint8 images bilinearly and bicubically, with fixed-point
# arithmetic of its own that vizgrad does not reproduce: refused rather than answered
# differently.
_UINT8_TOO = {"nearest1d", "nearest2d", "nearest3d", "nearest_exact1d", "nearest_exact2d",
              "nearest_exact3d"}  # fmt: skip
_UINT8_UNSUPPORTED = {"bilinear2d", "bicubic2d"}
_KERNEL_NAMES = {
    "nearest1d": "compute_indices_weights_nearest",
    "nearest_exact1d": "compute_indices_weights_nearest",
    "nearest2d": "upsample_nearest2d_channels_last",
    "nearest_exact2d": "upsample_nearest2d_channels_last",
    "nearest3d": "compute_indices_weights_nearest",
    "nearest_exact3d": "compute_indices_weights_nearest",
    "linear1d": "compute_indices_weights_linear",
    "bilinear2d": "upsample_bilinear2d_channels_last",
    "trilinear3d": "compute_indices_weights_linear",
    "bicubic2d": "compute_indices_weights_cubic",
}


def _check_dtype(key: str, input: Tensor) -> None:
    name = input._dtype.name
    if name in FLOATING_TYPES or (name == "uint8" and key in _UINT8_TOO):
        return
    if name == "uint8" and key in _UINT8_UNSUPPORTED:
        raise NotImplementedError(
            f"upsample_{key} of uint8 (PyTorch's fixed-point kernel) is not supported by "
            "vizgrad: convert the input to a floating dtype"
        )
    raise NotImplementedError(
        f"\"{_KERNEL_NAMES[key]}\" not implemented for '{input._dtype.scalar_name}'"
    )


def _opmath(dtype_name: str):
    return np.float64 if dtype_name == "float64" else np.float32


def _laid_out_like(input_size, input_stride, size) -> tuple:
    """``suggest_memory_format``: a channels-last input gives a channels-last result."""
    if is_channels_last_strides(input_size, input_stride):
        return channels_last_strides(size)
    return contiguous_strides(size)


# --- kernels --------------------------------------------------------------------------------


def _resample(values: np.ndarray, mode, output_size, scales, align_corners, opmath):
    """Resample each spatial dim in turn: gather each tap's positions, weight, and sum."""
    ndim = values.ndim
    for i, out_size in enumerate(output_size):
        axis = 2 + i
        taps = _taps(mode, len(output_size) == 2, values.shape[axis], out_size, scales[i], opmath,
                     align_corners)  # fmt: skip
        index, weight = taps[0]
        if weight is None:  # nearest: a gather, exact for every dtype
            values = np.take(values, index, axis=axis)
            continue
        total = np.take(values, index, axis=axis) * _along(weight, axis, ndim)
        for index, weight in taps[1:]:
            total += np.take(values, index, axis=axis) * _along(weight, axis, ndim)
        values = total
    return values


def _resample_backward(grad: np.ndarray, mode, output_size, input_size, scales, align_corners,
                       opmath):  # fmt: skip
    """The adjoint of ``_resample``: each tap adds its weight times the gradient of the
    output position back to the input position it read (dims in reverse order)."""
    for i in reversed(range(len(output_size))):
        axis = 2 + i
        in_size = input_size[axis]
        taps = _taps(mode, True, in_size, output_size[i], scales[i], opmath,
                     align_corners)  # fmt: skip
        moved = np.moveaxis(grad, axis, 0)
        summed = np.zeros((in_size, *moved.shape[1:]), dtype=moved.dtype)
        for index, weight in taps:
            contribution = moved if weight is None else moved * _along(weight, 0, moved.ndim)
            np.add.at(summed, index, contribution)
        grad = np.moveaxis(summed, 0, axis)
    return grad


def _forward_meta(d: int):
    """The structured kernel's meta function (``TORCH_META_FUNC(upsample_*)``): its
    checks, and a result of the output size, laid out as the input suggests."""

    def meta(self: Tensor, output_size, *args):
        _check_sizes(d, self, output_size)
        size = (*self._size[:2], *output_size)
        return size, self._dtype, _laid_out_like(self._size, self._stride, size)

    return meta


def _forward_kernel(key: str, mode: str, d: int, has_align: bool):
    """The structured kernel's impl: the dtypes it compiles for, then the resampling."""

    def kernel(self: Tensor, output_size, *args):
        align_corners = args[0] if has_align else False
        scales = args[1:] if has_align else args
        scales = tuple(scales) + (None,) * (d - len(scales))
        _check_dtype(key, self)
        output_size = tuple(output_size)
        size = (*self._size[:2], *output_size)
        result = Tensor._empty_strided(size, _laid_out_like(self._size, self._stride, size),
                                       self._dtype)  # fmt: skip
        if result.numel() == 0:
            return result
        opmath = _opmath(self._dtype.name)
        values = self._array
        if mode != "nearest" and mode != "nearest_exact":
            values = values.astype(opmath, copy=False)
        values = _resample(values, mode, output_size, scales, align_corners, opmath)
        np.copyto(result._array, values, casting="unsafe")
        return result

    return kernel


def _backward_meta(d: int, suggested: bool):
    """``TORCH_META_FUNC(upsample_*_backward)``: the common checks on the sizes, a
    ``grad_output`` of the forward output's shape (``check_dim_size``), and a result of
    ``input_size``, laid out as ``grad_output`` suggests (bicubic's: contiguous)."""

    def meta(grad_output: Tensor, output_size, input_size, *args):
        _common_check(d, input_size, output_size)
        full = (*input_size[:2], *output_size)
        if d > 1:  # the 2-D and 3-D meta functions word it their own way
            if grad_output.dim() != d + 2:
                raise RuntimeError(
                    f"Expected grad_output to be a tensor of dimension {d + 2} but got: "
                    f"dimension {grad_output.dim()}"
                )
            for i, size in enumerate(full):
                if grad_output._size[i] != size:
                    raise RuntimeError(
                        "Expected grad_output to have the same shape as output; "
                        f"output.size({i}) = {size} but got grad_output.size({i}) = "
                        f"{grad_output._size[i]}"
                    )
        for i, size in enumerate(full):  # 1-D: ``check_dim_size``
            if grad_output.dim() != d + 2 or grad_output._size[i] != size:
                raise RuntimeError(
                    f"Expected a tensor of dimension {d + 2} and tensor.size[{i}] == {size} but "
                    f"got: dimension {grad_output.dim()} and tensor.size[{i}] = "
                    f"{grad_output._size[i]}"
                )
        input_size = tuple(input_size)
        if suggested:
            strides = _laid_out_like(grad_output._size, grad_output._stride, input_size)
        else:
            strides = contiguous_strides(input_size)
        return input_size, grad_output._dtype, strides

    return meta


def _backward_kernel(mode: str, d: int, has_align: bool, suggested: bool):
    def kernel(grad_output: Tensor, output_size, input_size, *args):
        align_corners = args[0] if has_align else False
        scales = args[1:] if has_align else args
        scales = tuple(scales) + (None,) * (d - len(scales))
        input_size = tuple(input_size)
        if suggested:
            strides = _laid_out_like(grad_output._size, grad_output._stride, input_size)
        else:
            strides = contiguous_strides(input_size)
        result = Tensor._empty_strided(input_size, strides, grad_output._dtype)
        if result.numel() == 0:
            return result
        opmath = _opmath(grad_output._dtype.name)
        grad = grad_output._array.astype(opmath, copy=False)
        values = _resample_backward(grad, mode, tuple(output_size), input_size, scales,
                                    align_corners, opmath)  # fmt: skip
        np.copyto(result._array, values, casting="unsafe")
        return result

    return kernel


# --- declarations ---------------------------------------------------------------------------


def _vec_kernel(name: str, d: int, has_align: bool):
    """The ``.vec`` overload: ``compute_output_size`` (an output size, or each input size
    times its scale factor, truncated), then the main overload with the scale factors as
    its ``scales_*``."""

    def vec(input: Tensor, output_size, *args):
        operator = OPERATORS[f"aten::{name}"]  # declared together with this overload
        align = args[:1] if has_align else ()
        scale_factors = args[-1]
        spatial = input.dim() - 2
        if (output_size is None) == (scale_factors is None):
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        if output_size is not None:
            _expect(len(output_size) == spatial, "output_size")
            return operator(input, list(output_size), *align, *([None] * d))
        _expect(len(scale_factors) == spatial, "scale_factors")
        size = [int(float(input._size[i + 2]) * scale_factors[i]) for i in range(spatial)]
        return operator(input, size, *align, *scale_factors)

    return vec


def _expect(condition: bool, name: str) -> None:
    if not condition:
        raise RuntimeError(
            f"Expected static_cast<int64_t>({name}->size()) == spatial_dimensions to be true, "
            "but got false.  (Could this error message be improved?  If so, please report an "
            "enhancement request to PyTorch.)"
        )


def _declare(name: str, node: str, mode: str, d: int, key: str):
    """One upsampling operator (functional, out= and ``.vec`` overloads) and its backward
    operator, with torch's schemas and derivatives (``derivatives.yaml``)."""
    has_align = mode in ("linear", "cubic")
    scale_names = _SCALE_NAMES[d]
    scales = ", ".join(f"float? {s}=None" for s in scale_names)
    align = "bool align_corners, " if has_align else ""
    arguments = f"SymInt[{d}] output_size, {align}{scales}"
    backward_arguments = f"SymInt[{d}] output_size, SymInt[{d + 2}] input_size, {align}{scales}"
    extra = (("align_corners",) if has_align else ()) + scale_names

    # Structured kernels: the functional and out= overloads share one meta function, which
    # is also their Meta kernel (``vizgrad.ops.meta_kernels``).
    backward_meta = _backward_meta(d, suggested=mode != "cubic")
    backward_impl = _backward_kernel(mode, d, has_align, suggested=mode != "cubic")
    backward = native_function(
        f"{name}_backward(Tensor grad_output, {backward_arguments}) -> Tensor",
        f"{name}_backward.grad_input(Tensor grad_output, {backward_arguments}, *, "
        "Tensor(a!) grad_input) -> Tensor(a!)",
        kernel=meta_then_impl(backward_meta, backward_impl),
        kernels={
            f"{name}_backward.grad_input": out_wrapper(
                backward_impl, meta=backward_meta, exact_dtype=True
            )
        },
        # Resampling is linear: the gradient of its gradient is the resampling itself.
        derivative=Derivative(
            node.replace("Backward0", "BackwardBackward0"),
            save=("output_size", *extra),
            grads={
                "grad_output": lambda grad, saved: forward_op(
                    grad, saved.output_size, *(getattr(saved, n) for n in extra)
                )
            },
        ),  # fmt: skip
        variants="function",
        doc=f"``aten::{name}_backward``: the gradient of ``{name}``.",
    )
    backward_op = backward.overloads[f"{name}_backward"]
    forward_meta, forward_impl = _forward_meta(d), _forward_kernel(key, mode, d, has_align)

    def gradient(grad, saved):
        return backward_op(grad, saved.output_size, saved.self_sym_sizes,
                           *(getattr(saved, n) for n in extra))  # fmt: skip

    forward = native_function(
        f"{name}(Tensor self, {arguments}) -> Tensor",
        f"{name}.out(Tensor self, {arguments}, *, Tensor(a!) out) -> Tensor(a!)",
        f"{name}.vec(Tensor input, SymInt[]? output_size, {align}float[]? scale_factors) -> Tensor",
        kernels={
            name: meta_then_impl(forward_meta, forward_impl),
            # A structured kernel's ``set_output`` wants ``out`` of the result's dtype.
            f"{name}.out": out_wrapper(forward_impl, meta=forward_meta, exact_dtype=True),
            f"{name}.vec": _vec_kernel(name, d, has_align),
        },
        derivatives={
            name: Derivative(
                node, save=("self_sym_sizes", "output_size", *extra), grads={"self": gradient}
            )  # fmt: skip
        },
        kinds={f"{name}.vec": COMPOSITE_IMPLICIT},
        variants="function",
        doc=f"``torch._C._nn.{name}``: {mode.replace('_', '-')} resampling of "
        f"{d} spatial dim{'s' if d > 1 else ''}.",
    )
    forward_op = forward.overloads[name]
    return forward


upsample_nearest1d = _declare("upsample_nearest1d", "UpsampleNearest1DBackward0", "nearest", 1,
                              "nearest1d")  # fmt: skip
upsample_nearest2d = _declare("upsample_nearest2d", "UpsampleNearest2DBackward0", "nearest", 2,
                              "nearest2d")  # fmt: skip
upsample_nearest3d = _declare("upsample_nearest3d", "UpsampleNearest3DBackward0", "nearest", 3,
                              "nearest3d")  # fmt: skip
_upsample_nearest_exact1d = _declare("_upsample_nearest_exact1d",
                                     "UpsampleNearestExact1DBackward0", "nearest_exact", 1,
                                     "nearest_exact1d")  # fmt: skip
_upsample_nearest_exact2d = _declare("_upsample_nearest_exact2d",
                                     "UpsampleNearestExact2DBackward0", "nearest_exact", 2,
                                     "nearest_exact2d")  # fmt: skip
_upsample_nearest_exact3d = _declare("_upsample_nearest_exact3d",
                                     "UpsampleNearestExact3DBackward0", "nearest_exact", 3,
                                     "nearest_exact3d")  # fmt: skip
upsample_linear1d = _declare("upsample_linear1d", "UpsampleLinear1DBackward0", "linear", 1,
                             "linear1d")  # fmt: skip
upsample_bilinear2d = _declare("upsample_bilinear2d", "UpsampleBilinear2DBackward0", "linear",
                               2, "bilinear2d")  # fmt: skip
upsample_trilinear3d = _declare("upsample_trilinear3d", "UpsampleTrilinear3DBackward0",
                                "linear", 3, "trilinear3d")  # fmt: skip
upsample_bicubic2d = _declare("upsample_bicubic2d", "UpsampleBicubic2DBackward0", "cubic", 2,
                              "bicubic2d")  # fmt: skip

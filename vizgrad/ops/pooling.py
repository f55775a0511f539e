"""Pooling: max, average and adaptive average pooling (``Pooling.cpp``, ``MaxPooling.cpp``,
``AveragePool2d.cpp``, ``AdaptiveAveragePooling.cpp``).

Pooling summarises every window of a feature map by one number: its maximum or its
mean. The windows are the convolution's (``convolution.conv_windows``, an
``as_strided`` view of the padded input), but each channel is pooled on its own, so
there is no weight and no matmul: a reduction over the window dims does it.

* ``max_pool2d_with_indices`` returns the maxima and, for the backward, where each came
  from: the flat index ``h * W + w`` inside its input plane. The backward
  (``MaxPool2DWithIndicesBackward0``) sends each gradient to that one element. Padding
  is ``-inf``, so it never wins; ties go to the first element, NaN to the last, as in
  PyTorch's loop. ``max_pool2d`` is CompositeImplicitAutograd over it.
* ``avg_pool2d`` divides each window's sum by its size: counting the zero padding or
  not (``count_include_pad``), or by ``divisor_override``. Its backward
  (``AvgPool2DBackward0``) spreads each gradient evenly back over its window.
* ``_adaptive_avg_pool2d`` picks the windows from the output size instead:
  output ``i`` of ``n`` averages input rows ``floor(i*H/n)`` to ``ceil((i+1)*H/n)``.
  Every output is a weighted sum of inputs, so it is two small matrix products
  (rows, then columns). ``adaptive_avg_pool2d`` to ``1x1`` is a plain ``mean``.

The 1-d versions are composites: ``unsqueeze(-2)``, the 2-d operator with a kernel of
height 1, ``squeeze(-2)``, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import int64
from ..grad_mode import is_grad_enabled
from ..shape import channels_last_strides, contiguous_strides, is_channels_last_strides
from ..tensor import Tensor
from .convolution import _scatter_windows, conv_windows
from .creation import zeros_like
from .declaration import native_function
from .iterator import ALL_TYPES, FLOATING_TYPES
from .padding import constant_pad_nd

__all__ = [
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "avg_pool1d",
    "adaptive_avg_pool1d",
    "_adaptive_avg_pool2d",
]


# --- the output size and PyTorch's checks (Pool.h) ---------------------------------------


def pooling_output_shape(size: int, kernel: int, pad: int, stride: int, dilation: int,
                         ceil_mode: bool) -> int:  # fmt: skip
    """``pooling_output_shape``: how many windows fit; with ``ceil_mode`` a partial last
    window counts too, if it starts inside the input (or its left padding)."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((kernel - 1) * dilation + 1) // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, "
            f"kernel_size={kernel} and dilation={dilation}"
        )
    span = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1  # div_rtn: rounds towards -inf
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _pair(values, name: str, op: str, allow_empty: bool = False) -> list:
    """``kernel_size``/``stride``/``padding``/``dilation``: one int for both dims, or two."""
    values = [values] if isinstance(values, int) else list(values)
    if allow_empty and not values:
        return values
    if len(values) not in (1, 2):
        if name == "stride":
            message = f"{op}: stride must either be omitted, a single int, or a tuple of two ints"
        elif name == "dilation":
            message = f"{op}: dilation must be either a single int, or a tuple of two ints"
        else:
            message = f"{op}: {name} must either be a single int, or a tuple of two ints"
        raise RuntimeError(message)
    return values * 2 if len(values) == 1 else values


def _pool_geometry(op: str, input: Tensor, kernel_size, stride, padding, dilation, ceil_mode):
    """The checks of ``max_pool2d_with_indices``/``avg_pool2d``'s meta functions, in order;
    returns ``(kernel, stride, padding, dilation, output size)``."""
    kernel = _pair(kernel_size, "kernel_size", op)
    stride = _pair(stride, "stride", op, allow_empty=True) or list(kernel)
    padding = _pair(padding, "padding", op)
    dilation = _pair(dilation, "dilation", op)
    if op == "max_pool2d" and input.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    size = input._size
    if len(size) < 3:  # PyTorch reads ``size(-3)``
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-len(size)}, "
            f"{len(size) - 1}], but got -3)"
        )
    plane = size[-3]
    out = [
        pooling_output_shape(size[-2 + i], kernel[i], padding[i], stride[i], dilation[i],
                             ceil_mode)
        for i in range(2)
    ]  # fmt: skip
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}"
        )
    if stride[0] <= 0 or stride[1] <= 0:
        raise RuntimeError(
            f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}"
        )
    if dilation[0] <= 0 or dilation[1] <= 0:
        raise RuntimeError(
            "dilation should be greater than zero, but got dilationH: "
            f"{dilation[0]} dilationW: {dilation[1]}"
        )
    valid = size[1] != 0 and size[2] != 0
    if not ((input.dim() == 3 and size[0] != 0 and valid)
            or (input.dim() == 4 and valid and size[3] != 0)):  # fmt: skip
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{list(size)}"
        )
    if kernel[1] // 2 < padding[1] or kernel[0] // 2 < padding[0]:
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, kH = {kernel[0]}"
        )
    if out[0] < 1 or out[1] < 1:
        raise RuntimeError(
            f"Given input size: ({plane}x{size[-2]}x{size[-1]}). Calculated output size: "
            f"({plane}x{out[0]}x{out[1]}). Output size is too small"
        )
    return kernel, stride, padding, dilation, out


def _pooled_spec(input: Tensor, size, dtype=None) -> tuple:
    """A pooling result's ``(shape, dtype, strides)``: laid out as the input suggests
    (``suggest_memory_format``: a 4-D channels-last input gives a channels-last result)."""
    size = tuple(size)
    if is_channels_last_strides(input._size, input._stride):
        strides = channels_last_strides(size)
    else:
        strides = contiguous_strides(size)
    return size, dtype or input._dtype, strides


def _laid_out(values: np.ndarray, spec) -> Tensor:
    """A fresh tensor of ``spec`` (``_pooled_spec``) holding ``values``."""
    size, dtype, strides = spec
    result = Tensor._empty_strided(size, strides, dtype)
    if result.numel():
        np.copyto(result._array, np.asarray(values).reshape(size), casting="unsafe")
    return result


def _batched(input: Tensor) -> Tensor:
    """A 3-d ``(C, H, W)`` input as a batch of one (a view, at kernel level)."""
    return input if input.dim() == 4 else input.unsqueeze(0)


def _windows(input: Tensor, kernel, stride, padding, dilation, out, fill) -> Tensor:
    """The pooling windows: ``(N, C, out_h, out_w, k_h, k_w)`` over the input padded with
    ``fill``, with room on the right/bottom for ``ceil_mode``'s partial last window."""
    pad = []
    for i in (1, 0):
        needed = (out[i] - 1) * stride[i] + (kernel[i] - 1) * dilation[i] + 1
        right = max(0, needed - input._size[2 + i] - padding[i])
        pad += [padding[i], right]
    padded = constant_pad_nd(input, pad, fill) if any(pad) else input
    return conv_windows(padded, kernel, stride, dilation)


def _dispatch(kernel_name: str, input: Tensor, supported) -> None:
    if input._dtype.name not in supported:
        raise NotImplementedError(
            f"\"{kernel_name}\" not implemented for '{input._dtype.scalar_name}'"
        )


# --- max pooling -------------------------------------------------------------------------


def _lowest(dtype: np.dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def max_pool2d_with_indices_meta(self: Tensor, kernel_size, stride=(), padding=0, dilation=1,
                                 ceil_mode=False):  # fmt: skip
    """``max_pool2d_with_indices``'s meta function: its checks, and its values' and
    indices' ``(shape, dtype, strides)``."""
    out = _pool_geometry("max_pool2d", self, kernel_size, stride, padding, dilation,
                         ceil_mode)[-1]  # fmt: skip
    shape = self._size[:-2] + tuple(out)
    return _pooled_spec(self, shape), _pooled_spec(self, shape, int64)


def _max_pool2d_with_indices_kernel(self: Tensor, kernel_size, stride=(), padding=0,
                                    dilation=1, ceil_mode=False):  # fmt: skip
    specs = max_pool2d_with_indices_meta(self, kernel_size, stride, padding, dilation, ceil_mode)
    kernel, stride, padding, dilation, out = _pool_geometry(
        "max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode
    )
    _dispatch("max_pool2d", self, ALL_TYPES)
    x = _batched(self)
    n, c, height, width = x._size
    lowest = _lowest(x._dtype.numpy)
    windows = _windows(x, kernel, stride, padding, dilation, out, lowest)._array
    flat = windows.reshape(n, c, out[0], out[1], kernel[0] * kernel[1])
    local = np.argmax(flat, axis=-1)
    if x._dtype.numpy.kind == "f":
        nan = np.isnan(flat)
        if nan.any():  # PyTorch's loop lets every NaN win: the last one stays
            last = flat.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
            local = np.where(nan.any(axis=-1), last, local)
    values = np.take_along_axis(flat, local[..., None], axis=-1)[..., 0]
    # Input coordinates of the winners: window start plus kernel offset times dilation.
    rows = np.arange(out[0])[:, None] * stride[0] - padding[0] + (local // kernel[1]) * dilation[0]
    cols = np.arange(out[1]) * stride[1] - padding[1] + (local % kernel[1]) * dilation[1]
    # A window of only the lowest value keeps PyTorch's first candidate: its first
    # element inside the input, never a padded one.
    empty = values == lowest
    if empty.any():
        first_row = np.arange(out[0])[:, None] * stride[0] - padding[0]
        first_row = first_row + (-(first_row // dilation[0]) * dilation[0]).clip(min=0)
        first_col = np.arange(out[1]) * stride[1] - padding[1]
        first_col = first_col + (-(first_col // dilation[1]) * dilation[1]).clip(min=0)
        rows = np.where(empty, first_row, rows)
        cols = np.where(empty, first_col, cols)
    indices = (rows * width + cols).astype(np.int64)
    return _laid_out(values, specs[0]), _laid_out(indices, specs[1])


def pooling_backward_meta(grad_output: Tensor, self: Tensor, *args) -> tuple:
    """A pooling gradient's ``(shape, dtype, strides)``: ``self``'s, laid out as it suggests."""
    return _pooled_spec(self, self._size)


def _max_pool2d_backward_kernel(grad_output: Tensor, self: Tensor, kernel_size, stride,
                                padding, dilation, ceil_mode, indices: Tensor) -> Tensor:  # fmt: skip
    """Each output gradient goes to the one input element its maximum came from."""
    planes = int(np.prod(self._size[:-2]))
    area = self._size[-2] * self._size[-1]
    grad = grad_output._array.reshape(planes, -1)
    targets = indices._array.reshape(planes, -1) + np.arange(planes)[:, None] * area
    summed = np.bincount(targets.ravel(), weights=grad.ravel(), minlength=planes * area)
    return _laid_out(summed, pooling_backward_meta(grad_output, self))


def _max_pool_double_backward(grad, s):
    """``max_pool_double_backward``: the gradient read back at each maximum's index."""
    flat = grad.flatten(-2)
    return flat.gather(-1, s.indices.flatten(-2)).view(s.indices.shape)


max_pool2d_with_indices_backward = native_function(
    "max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, "
    "int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor",
    kernel=_max_pool2d_backward_kernel,
    derivative=Derivative(
        "MaxPool2DWithIndicesBackwardBackward0",
        save=("self", "indices"),
        grads={
            "grad_output": _max_pool_double_backward,
            "self": lambda grad, s: zeros_like(s.self),
        },  # fmt: skip
    ),
    variants="function",
    doc="``torch._C._nn.max_pool2d_with_indices_backward``: scatter by the indices.",
)
_max_pool2d_backward_op = max_pool2d_with_indices_backward.overloads[
    "max_pool2d_with_indices_backward"
]

max_pool2d_with_indices = native_function(
    "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], "
    "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
    kernel=_max_pool2d_with_indices_kernel,
    derivative=Derivative(
        "MaxPool2DWithIndicesBackward0",
        save=("self", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "result1"),
        grads={
            "self": lambda grad, s: _max_pool2d_backward_op(
                grad,
                s.self,
                s.kernel_size,
                s.stride,
                s.padding,
                s.dilation,
                s.ceil_mode,
                s.result1,
            )
        },
        differentiable_outputs=(0,),
    ),
    variants="function",
    doc="``torch._C._nn.max_pool2d_with_indices``: window maxima and where they came from.",
)
_max_pool2d_with_indices_op = max_pool2d_with_indices.overloads["max_pool2d_with_indices"]

max_pool2d = native_function(
    "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
    kernel=lambda self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False: (
        _max_pool2d_with_indices_op(self, kernel_size, stride, padding, dilation, ceil_mode)[0]
    ),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.max_pool2d``: the maximum of every window (``max_pool2d_with_indices[0]``).",
)


def _check1d(op: str, name: str, values) -> list:
    values = [values] if isinstance(values, int) else list(values)
    if len(values) != 1:
        raise RuntimeError(f"{op}() argument '{name}' should contain one int (got {len(values)})")
    return values


def _check_dim_range(op: str, input: Tensor) -> None:
    """``checkDimRange(op, self, 2, 4)``: a 2-d or 3-d input."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument "
            f"#1 'self' (while checking arguments for {op})"
        )


def _max_pool1d_with_indices_kernel(self, kernel_size, stride=(), padding=0, dilation=1,
                                    ceil_mode=False):  # fmt: skip
    stride = stride or kernel_size
    _check_dim_range("max_pool1d", self)
    kernel_size, stride, padding, dilation = (
        _check1d("max_pool1d", name, value)
        for name, value in (("kernel_size", kernel_size), ("stride", stride),
                            ("padding", padding), ("dilation", dilation))
    )  # fmt: skip
    values, indices = _max_pool2d_with_indices_op(
        self.unsqueeze(-2), [1, kernel_size[0]], [1, stride[0]], [0, padding[0]],
        [1, dilation[0]], ceil_mode,
    )  # fmt: skip
    return values.squeeze(-2), indices.squeeze(-2)


def _check_max_pool1d(self: Tensor, kernel_size, stride, padding, dilation, ceil_mode) -> None:
    """``check_max_pool1d``: the checks of the path without gradients."""
    if self.dim() not in (2, 3):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{list(self._size)}"
        )
    kernel_size, padding, dilation = (
        [v] if isinstance(v, int) else list(v) for v in (kernel_size, padding, dilation)
    )
    stride = ([stride] if isinstance(stride, int) else list(stride)) or kernel_size
    for name, values, what in (("kernel_size", kernel_size, "an int, list of ints or tuple of ints"),
                               ("stride", stride, "None, an int, list of ints, or tuple of ints"),
                               ("padding", padding, "an int, list of ints, or tuple of ints"),
                               ("dilation", dilation, "an int, list of ints or tuple of ints")):  # fmt: skip
        if len(values) != 1:
            raise RuntimeError(
                f"max_pool1d() {name} must be {what} of size 1 but got size {len(values)}"
            )
    if kernel_size[0] <= 0:
        raise RuntimeError(
            f"max_pool1d() kernel_size must be greater than zero, but got {kernel_size[0]}"
        )
    if stride[0] <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {stride[0]}")
    if padding[0] < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding[0]}")
    if padding[0] > kernel_size[0] // 2:
        raise RuntimeError(
            "max_pool1d() padding should be at most half of kernel size, but got "
            f"padding={padding[0]} and kernel_size={kernel_size[0]}"
        )
    if dilation[0] <= 0:
        raise RuntimeError(
            f"max_pool1d() dilation must be greater than zero, but got {dilation[0]}"
        )
    out = pooling_output_shape(self._size[-1], kernel_size[0], padding[0], stride[0],
                               dilation[0], ceil_mode)  # fmt: skip
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


max_pool1d_with_indices = native_function(
    "max_pool1d_with_indices(Tensor self, int[1] kernel_size, int[1] stride=[], "
    "int[1] padding=0, int[1] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
    kernel=_max_pool1d_with_indices_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.max_pool1d_with_indices``: 1-d maxima and indices, through the 2-d operator.",
)


def _max_pool1d_kernel(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    # Without gradients PyTorch runs a 1-d kernel with checks of its own; with them, the
    # indices are needed, so the with-indices operator runs (and checks).
    if not (is_grad_enabled() and self.requires_grad):
        _check_max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode)
    return _max_pool1d_with_indices_kernel(self, kernel_size, stride, padding, dilation,
                                           ceil_mode)[0]  # fmt: skip


max_pool1d = native_function(
    "max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, "
    "int[1] dilation=1, bool ceil_mode=False) -> Tensor",
    kernel=_max_pool1d_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.max_pool1d``: the maximum of every window along the last dim.",
)


# --- average pooling ---------------------------------------------------------------------


def _divisors(size: int, out: int, kernel: int, stride: int, pad: int):
    """Per output position along one dim: the window's length counting padding (up to
    the padded end) and counting only input elements."""
    start = np.arange(out) * stride - pad
    end = np.minimum(start + kernel, size + pad)
    with_pad = end - start
    inside = np.minimum(end, size) - np.maximum(start, 0)
    return with_pad, inside


def _avg_geometry(self, kernel_size, stride, padding, ceil_mode, divisor_override):
    op = "avg_pool2d"
    kernel = _pair(kernel_size, "kernel_size", op)
    stride = _pair(stride, "stride", op, allow_empty=True) or list(kernel)
    padding = _pair(padding, "padding", op)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return _pool_geometry(op, self, kernel, stride, padding, [1, 1], ceil_mode)


def _avg_divisor(self: Tensor, kernel, stride, padding, out, count_include_pad,
                 divisor_override) -> np.ndarray:  # fmt: skip
    rows_pad, rows_in = _divisors(self._size[-2], out[0], kernel[0], stride[0], padding[0])
    cols_pad, cols_in = _divisors(self._size[-1], out[1], kernel[1], stride[1], padding[1])
    if divisor_override is not None:
        return np.full((out[0], out[1]), divisor_override)
    if count_include_pad:
        return rows_pad[:, None] * cols_pad[None, :]
    # A window entirely outside the input (ceil_mode) is 0, whatever it is divided by.
    return np.maximum(rows_in[:, None] * cols_in[None, :], 1)


_AVG_TYPES = FLOATING_TYPES | {"int64"}


def avg_pool2d_meta(self: Tensor, kernel_size, stride=(), padding=0, ceil_mode=False,
                    count_include_pad=True, divisor_override=None) -> tuple:  # fmt: skip
    """``avg_pool2d``'s meta function: its checks and its result's ``(shape, dtype, strides)``."""
    out = _avg_geometry(self, kernel_size, stride, padding, ceil_mode, divisor_override)[-1]
    return _pooled_spec(self, self._size[:-2] + tuple(out))


def avg_pool2d_backward_meta(grad_output: Tensor, self: Tensor, kernel_size, stride, padding,
                             ceil_mode, count_include_pad, divisor_override) -> tuple:  # fmt: skip
    """``avg_pool2d_backward``'s checks (the forward's geometry) and its result's spec."""
    _avg_geometry(self, kernel_size, stride, padding, ceil_mode, divisor_override)
    return pooling_backward_meta(grad_output, self)


def _avg_pool2d_kernel(self: Tensor, kernel_size, stride=(), padding=0, ceil_mode=False,
                       count_include_pad=True, divisor_override=None) -> Tensor:  # fmt: skip
    spec = avg_pool2d_meta(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override)  # fmt: skip
    kernel, stride, padding, _, out = _avg_geometry(
        self, kernel_size, stride, padding, ceil_mode, divisor_override
    )
    _dispatch("avg_pool2d", self, _AVG_TYPES)
    x = _batched(self)
    windows = _windows(x, kernel, stride, padding, [1, 1], out, 0)._array
    divisor = _avg_divisor(x, kernel, stride, padding, out, count_include_pad, divisor_override)
    if x._dtype.numpy.kind == "f":
        accumulate = np.float32 if x._dtype.numpy == np.float16 else x._dtype.numpy
        values = windows.sum(axis=(-2, -1), dtype=accumulate) / divisor
    else:  # integer division truncates, as C++'s does
        totals = windows.sum(axis=(-2, -1), dtype=np.int64)
        values = np.sign(totals) * (np.abs(totals) // divisor)
    return _laid_out(values, spec)


def _avg_pool2d_backward_kernel(grad_output: Tensor, self: Tensor, kernel_size, stride,
                                padding, ceil_mode, count_include_pad,
                                divisor_override) -> Tensor:  # fmt: skip
    """Each output gradient, divided like its value was, added over its window."""
    spec = avg_pool2d_backward_meta(grad_output, self, kernel_size, stride, padding, ceil_mode,
                                    count_include_pad, divisor_override)  # fmt: skip
    kernel, stride, padding, _, out = _avg_geometry(
        self, kernel_size, stride, padding, ceil_mode, divisor_override
    )
    x = _batched(self)
    n, c, height, width = x._size
    divisor = _avg_divisor(x, kernel, stride, padding, out, count_include_pad, divisor_override)
    share = grad_output._array.reshape(n, c, out[0], out[1]) / divisor
    columns = np.broadcast_to(share[:, :, None, None], (n, c, *kernel, *out))
    spatial = [
        max(height + 2 * padding[0], (out[0] - 1) * stride[0] + kernel[0]),
        max(width + 2 * padding[1], (out[1] - 1) * stride[1] + kernel[1]),
    ]
    scattered = _scatter_windows(columns, c, kernel, out, spatial, stride, [1, 1])
    grad = scattered[:, :, padding[0] : padding[0] + height, padding[1] : padding[1] + width]
    return _laid_out(grad, spec)


avg_pool2d_backward = native_function(
    "avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, "
    "int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
    kernel=_avg_pool2d_backward_kernel,
    derivative=Derivative(
        "AvgPool2DBackwardBackward0",
        save=(
            "self",
            "kernel_size",
            "stride",
            "padding",
            "ceil_mode",
            "count_include_pad",
            "divisor_override",
        ),  # fmt: skip
        grads={
            "grad_output": lambda grad, s: avg_pool2d(
                grad,
                s.kernel_size,
                s.stride,
                s.padding,
                s.ceil_mode,
                s.count_include_pad,
                s.divisor_override,
            ),
            "self": lambda grad, s: zeros_like(s.self),
        },
    ),
    variants="function",
    doc="``torch._C._nn.avg_pool2d_backward``: the gradient of ``avg_pool2d``.",
)
_avg_pool2d_backward_op = avg_pool2d_backward.overloads["avg_pool2d_backward"]

avg_pool2d = native_function(
    "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
    kernel=_avg_pool2d_kernel,
    derivative=Derivative(
        "AvgPool2DBackward0",
        save=(
            "self",
            "kernel_size",
            "stride",
            "padding",
            "ceil_mode",
            "count_include_pad",
            "divisor_override",
        ),  # fmt: skip
        grads={
            "self": lambda grad, s: _avg_pool2d_backward_op(
                grad,
                s.self,
                s.kernel_size,
                s.stride,
                s.padding,
                s.ceil_mode,
                s.count_include_pad,
                s.divisor_override,
            )
        },
    ),
    variants="function",
    doc="``torch._C._nn.avg_pool2d``: the mean of every window.",
)
_avg_pool2d_op = avg_pool2d.overloads["avg_pool2d"]


def _avg_pool1d_kernel(self, kernel_size, stride=(), padding=0, ceil_mode=False,
                       count_include_pad=True):  # fmt: skip
    stride = stride or kernel_size
    _check_dim_range("avg_pool1d", self)
    kernel_size, stride, padding = (
        _check1d("avg_pool1d", name, value)
        for name, value in (("kernel_size", kernel_size), ("stride", stride),
                            ("padding", padding))
    )  # fmt: skip
    output = _avg_pool2d_op(self.unsqueeze(-2), [1, kernel_size[0]], [1, stride[0]],
                            [0, padding[0]], ceil_mode, count_include_pad, None)  # fmt: skip
    return output.squeeze(-2)


avg_pool1d = native_function(
    "avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True) -> Tensor",
    kernel=_avg_pool1d_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.avg_pool1d``: the mean of every window along the last dim.",
)


# --- adaptive average pooling ------------------------------------------------------------


def _averaging_matrix(size: int, out: int, dtype) -> np.ndarray:
    """``(out, size)``: row ``i`` averages inputs ``floor(i*size/out)`` to ``ceil((i+1)*size/out)``."""
    matrix = np.zeros((out, size), dtype=dtype)
    for i in range(out):
        start = (i * size) // out
        end = -((-(i + 1) * size) // out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


def _check_adaptive(input: Tensor, output_size) -> None:
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    ndim = input.dim()
    if ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input._size)}"
        )
    for i in (-2, -1):
        if input._size[i] <= 0:
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(input._size)} with dimension {i + ndim} "
                "being empty"
            )


def _adaptive_matrices(input: Tensor, output_size):
    dtype = np.float32 if input._dtype.numpy == np.float16 else input._dtype.numpy
    return (
        _averaging_matrix(input._size[-2], output_size[0], dtype),
        _averaging_matrix(input._size[-1], output_size[1], dtype),
    )


def adaptive_avg_pool2d_meta(self: Tensor, output_size) -> tuple:
    """``_adaptive_avg_pool2d``'s checks and its result's ``(shape, dtype, strides)``."""
    _check_adaptive(self, output_size)
    return _pooled_spec(self, self._size[:-2] + tuple(output_size))


def _adaptive_avg_pool2d_kernel(self: Tensor, output_size) -> Tensor:
    spec = adaptive_avg_pool2d_meta(self, output_size)
    _dispatch("adaptive_avg_pool2d", self, FLOATING_TYPES)
    rows, cols = _adaptive_matrices(self, output_size)
    values = rows @ self._array.astype(rows.dtype, copy=False) @ cols.T
    return _laid_out(values, spec)


def _adaptive_avg_pool2d_backward_kernel(grad_output: Tensor, self: Tensor) -> Tensor:
    rows, cols = _adaptive_matrices(self, grad_output._size[-2:])
    grad = rows.T @ grad_output._array.astype(rows.dtype, copy=False) @ cols
    return _laid_out(grad, pooling_backward_meta(grad_output, self))


_adaptive_avg_pool2d_backward = native_function(
    "_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor",
    kernel=_adaptive_avg_pool2d_backward_kernel,
    derivative=Derivative(
        "AdaptiveAvgPool2DBackwardBackward0",
        save=("self",),
        grads={
            "grad_output": lambda grad, s: _adaptive_avg_pool2d(grad, list(grad.shape[-2:])),
            "self": lambda grad, s: zeros_like(s.self),
        },
    ),
    variants="function",
    doc="``torch._C._nn._adaptive_avg_pool2d_backward``: the gradient of adaptive pooling.",
)

_adaptive_avg_pool2d = native_function(
    "_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
    kernel=_adaptive_avg_pool2d_kernel,
    derivative=Derivative(
        "AdaptiveAvgPool2DBackward0",
        save=("self",),
        grads={"self": lambda grad, s: _adaptive_avg_pool2d_backward(grad, s.self)},
    ),
    variants="function",
    doc="``torch._adaptive_avg_pool2d``: average pooling to a given output size.",
)


def _adaptive_avg_pool2d_composite(self: Tensor, output_size) -> Tensor:
    """``adaptive_avg_pool2d``: to ``1x1`` it is the mean over the plane (``MeanBackward1``).

    The mean of a channels-last input is re-strided in place to the channels-last
    strides of ``(n, c, 1, 1)``, ``(c, 1, c, c)``, as PyTorch's composite does (so its
    ``grad_fn`` is ``AsStridedBackward1``): the reduction alone gives ``(c, 1, 1, 1)``.
    """
    output_size = [output_size] * 2 if isinstance(output_size, int) else list(output_size)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if output_size[0] < 0 or output_size[1] < 0:
        raise RuntimeError(
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
            f"but received {{{output_size[0]}, {output_size[1]}}}"
        )
    if output_size == [1, 1]:
        mean = self.mean((-1, -2), keepdim=True)
        if len(self._size) == 4 and is_channels_last_strides(self._size, self._stride):
            n, c = self._size[:2]
            mean.as_strided_((n, c, 1, 1), (c, 1, c, c))
        return mean
    return _adaptive_avg_pool2d(self, output_size)


adaptive_avg_pool2d = native_function(
    "adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
    kernel=_adaptive_avg_pool2d_composite,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._C._nn.adaptive_avg_pool2d``: average pooling to a given output size.",
)


def _adaptive_avg_pool1d_kernel(self: Tensor, output_size) -> Tensor:
    _check_dim_range("adaptive_avg_pool1d", self)
    output_size = _check1d("adaptive_avg_pool1d", "output_size", output_size)
    return adaptive_avg_pool2d(self.unsqueeze(-2), [1, output_size[0]]).squeeze(-2)


adaptive_avg_pool1d = native_function(
    "adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor",
    kernel=_adaptive_avg_pool1d_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.adaptive_avg_pool1d``: average pooling of the last dim to a given size.",
)

"""Convolution: ``convolution``, its backward, and ``conv1d``/``conv2d``/``conv_transpose*`` (``Convolution.cpp``).

A convolution slides a small kernel over the input and, at every position, takes the
dot product of the kernel with the patch under it (PyTorch's "convolution" is a
cross-correlation: the kernel is not flipped). Two steps make it here, both visible:

1. **Windows by strides.** ``conv_windows`` views the (padded) input as every patch at
   once, without copying: an ``as_strided`` view of shape
   ``(N, C, out_h, out_w, k_h, k_w)`` whose strides are the input's own, multiplied by
   the convolution's ``stride`` for the output positions and by its ``dilation`` for
   the kernel offsets. Window ``[n, c, y, x]`` starts at input row ``y * stride`` and
   reads every ``dilation``-th row from there.
2. **A matmul.** The output is the windows contracted with the weight over
   ``(C, k_h, k_w)``: ``out[n, o, y, x] = sum windows[n, c, y, x, i, j] * w[o, c, i, j]``,
   one ``tensordot`` (a matrix product of the patches, "im2col", with the flattened
   weight). With ``groups`` the channels are split into independent convolutions.

The backward (``convolution_backward``) uses the same two ideas: the weight's gradient
is the windows contracted with the output gradient over the batch and the positions;
the input's gradient sends each output gradient back through the weight into the
patch it came from, adding where patches overlap ("col2im", ``_scatter_windows``).
A transposed convolution is exactly that scatter run forward, so ``transposed=True``
shares it: its forward is the input gradient of an ordinary convolution, and its
input gradient an ordinary convolution.

As in PyTorch, ``conv1d``, ``conv2d`` and ``conv_transpose1d/2d`` are
CompositeImplicitAutograd: they check the input's rank, add a batch dim to an
unbatched input, and call ``convolution``, whose node is ``ConvolutionBackward0``.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..dtypes import TYPEMETA_NAMES
from ..shape import channels_last_strides, contiguous_strides, is_channels_last_strides
from ..tensor import Tensor
from ..user_warnings import warn_at_user_code
from .declaration import native_function
from .iterator import ALL_TYPES_AND_COMPLEX
from .padding import constant_pad_nd
from .shape_views import as_strided

__all__ = [
    "convolution",
    "conv1d",
    "conv2d",
    "conv_transpose1d",
    "conv_transpose2d",
]


# --- the windows: an as_strided view of every patch -------------------------------------


def _as_list(value, dims: int) -> list:
    return [value] * dims if isinstance(value, int) else list(value)


def conv_windows(input: Tensor, kernel_size, stride=1, dilation=1) -> Tensor:
    """Every patch a kernel of ``kernel_size`` visits, as one view of ``input``.

    ``input`` is ``(N, C, *spatial)`` (already padded); the result is
    ``(N, C, *out, *kernel_size)``, made by ``as_strided`` over ``input``'s storage:
    nothing is copied. The output-position dims step ``stride`` elements of ``input``
    at a time, the kernel-offset dims ``dilation`` elements, so
    ``windows[n, c, y, x, i, j] == input[n, c, y*stride + i*dilation, x*stride + j*dilation]``.
    Print ``.stride()`` of the result to see the trick: patches overlap in memory.
    """
    dims = input.dim() - 2
    kernel_size = _as_list(kernel_size, dims)
    stride = _as_list(stride, dims)
    dilation = _as_list(dilation, dims)
    spatial = input._size[2:]
    steps = input._stride[2:]
    out = [
        (spatial[i] - dilation[i] * (kernel_size[i] - 1) - 1) // stride[i] + 1 for i in range(dims)
    ]
    size = (*input._size[:2], *out, *kernel_size)
    strides = (
        *input._stride[:2],
        *(steps[i] * stride[i] for i in range(dims)),
        *(steps[i] * dilation[i] for i in range(dims)),
    )
    return as_strided(input, size, strides, input._offset)


def _columns(windows: np.ndarray, groups: int, dtype) -> np.ndarray:
    """The patches as matrices ("im2col"): ``(N, groups, C/groups * prod(k), positions)``.

    One copy of the windows view, ordered so that each column is one patch (its
    channels and kernel offsets) and the positions run along the rows' memory: the
    copy reads the input row by row, and the result feeds a batched matmul directly.
    """
    dims = (windows.ndim - 2) // 2
    n, c = windows.shape[:2]
    order = (0, 1, *range(2 + dims, 2 + 2 * dims), *range(2, 2 + dims))
    patches = np.ascontiguousarray(windows.transpose(order), dtype=dtype)
    per_column = c // groups * int(np.prod(windows.shape[2 + dims :]))
    return patches.reshape(n, groups, per_column, int(np.prod(windows.shape[2 : 2 + dims])))


def _by_group(weight: np.ndarray, groups: int) -> np.ndarray:
    """The weight as one matrix per group: ``(groups, rows / groups, everything else)``."""
    return weight.reshape(groups, weight.shape[0] // groups, int(np.prod(weight.shape[1:])))


def _contract(weight: np.ndarray, columns: np.ndarray, groups: int) -> np.ndarray:
    """Each group's weight matrix times each patch column: ``(N, groups, rows, positions)``."""
    return np.matmul(_by_group(weight, groups), columns)


def _spread(weight: np.ndarray, values: np.ndarray, groups: int) -> np.ndarray:
    """The transposed product: what each patch entry contributed to ``values``
    ``(N, C, *positions)`` through the weight, ``(N, groups, C_patch * prod(k), positions)``."""
    n = values.shape[0]
    positions = int(np.prod(values.shape[2:]))
    rows = values.reshape(n, groups, weight.shape[0] // groups, positions)
    return np.matmul(_by_group(weight, groups).swapaxes(-1, -2), rows)


def _weight_grad(values: np.ndarray, columns: np.ndarray, groups: int, shape) -> np.ndarray:
    """``sum_n values[n] @ columns[n]^T`` per group: the weight's gradient, in ``shape``."""
    n, positions = values.shape[0], int(np.prod(values.shape[2:]))
    rows = values.reshape(n, groups, values.shape[1] // groups, positions)
    return np.matmul(rows, columns.swapaxes(-1, -2)).sum(axis=0).reshape(shape)


def _scatter_windows(columns: np.ndarray, channels: int, kernel, positions, spatial, stride,
                     dilation) -> np.ndarray:  # fmt: skip
    """The opposite of the windows ("col2im"): add each patch entry back where it was read.

    ``columns`` holds ``(N, channels, *kernel, *positions)`` values; the result
    ``(N, channels, *spatial)`` holds at every element the sum of the entries that read
    it. One strided ``+=`` per kernel offset: that offset of every patch lands on a grid
    ``stride`` apart, shifted by ``offset * dilation``.
    """
    dims = len(spatial)
    n = columns.shape[0]
    cols = columns.reshape(n, channels, *kernel, *positions)
    result = np.zeros((n, channels, *spatial), dtype=columns.dtype)
    for offset in itertools.product(*(range(k) for k in kernel)):
        target = tuple(
            slice(offset[i] * dilation[i], offset[i] * dilation[i] + stride[i] * (positions[i] - 1) + 1,
                  stride[i])
            for i in range(dims)
        )  # fmt: skip
        result[(slice(None), slice(None), *target)] += cols[(slice(None), slice(None), *offset)]
    return result


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    # NumPy's float16 matmul is slow and rounds every step: accumulate in float32, as
    # PyTorch's CPU kernels do for Half.
    return np.dtype(np.float32) if dtype == np.float16 else dtype


# --- checks (check_shape_forward and friends) --------------------------------------------


def _expand_param(values, name: str, dims: int) -> list:
    """``expand_param_if_needed``: one value for every spatial dim, or exactly ``dims``."""
    values = [values] if isinstance(values, int) else list(values)
    if len(values) == 1:
        return values * dims
    if len(values) != dims:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dims} values to "
            f"match the convolution dimensions, but got {name}={values}"
        )
    return values


def _params(weight: Tensor, stride, padding, dilation, output_padding, groups):
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dims = weight.dim() - 2
    return (
        _expand_param(stride, "stride", dims),
        _expand_param(padding, "padding", dims),
        _expand_param(dilation, "dilation", dims),
        _expand_param(output_padding, "output_padding", dims),
    )


def _check_shape_forward(input, weight, bias, stride, padding, dilation, transposed,
                         output_padding, groups) -> None:  # fmt: skip
    """``check_shape_forward``: PyTorch's checks and messages, in its order."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    w = list(weight._size)
    if weight.dim() != input.dim():
        raise RuntimeError(
            f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
            f"{w}, but got {input.dim()}-dimensional input of size {list(input._size)} instead"
        )
    if w[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {w} instead"
        )
    if w[0] % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at "
            f"dimension 0, but got weight of size [{w}] instead"
        )
    if not transposed:
        if input._size[1] != w[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {w}, expected input"
                f"{list(input._size)} to have {w[1] * groups} channels, but got "
                f"{input._size[1]} channels instead"
            )
        if bias is not None and (bias.dim() != 1 or bias._size[0] != w[0]):
            raise RuntimeError(
                f"Given weight of size {w}, expected bias to be 1-dimensional with {w[0]} "
                f"elements, but got bias of size {list(bias._size)} instead"
            )
        padded = [input._size[2 + i] + 2 * padding[i] for i in range(len(padding))]
        kernel = [dilation[i] * (w[2 + i] - 1) + 1 for i in range(len(padding))]
        if any(p < k for p, k in zip(padded, kernel, strict=True)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                f"Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater "
                "than actual input size"
            )
    else:
        if input._size[1] != w[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {w}, expected input{list(input._size)} "
                f"to have {w[0]} channels, but got {input._size[1]} channels instead"
            )
        if bias is not None and (bias.dim() != 1 or bias._size[0] != w[1] * groups):
            raise RuntimeError(
                f"Given transposed=1, weight of size {w}, expected bias to be 1-dimensional "
                f"with {w[1] * groups} elements, but got bias of size {list(bias._size)} "
                "instead"
            )
        for i in range(len(stride)):
            if output_padding[i] >= stride[i] and output_padding[i] >= dilation[i]:
                names = ("height", "width") if len(stride) == 2 else ("width",) * len(stride)
                got = " ".join(
                    f"output_padding_{n}: {p}" for n, p in zip(names, output_padding, strict=False)
                )
                steps = " ".join(f"stride_{n}: {s}" for n, s in zip(names, stride, strict=False))
                dils = " ".join(f"dilation_{n}: {d}" for n, d in zip(names, dilation, strict=False))
                raise RuntimeError(
                    "output padding must be smaller than either stride or dilation, but got "
                    f"{got} {steps} {dils}"
                )


def _check_types(input: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(
            f"Input type ({TYPEMETA_NAMES[input._dtype.name]}) and bias type "
            f"({TYPEMETA_NAMES[bias._dtype.name]}) should be the same"
        )
    if weight._dtype is not input._dtype:
        raise RuntimeError(
            f"expected scalar type {input._dtype.scalar_name} but found {weight._dtype.scalar_name}"
        )
    if input._dtype.name not in ALL_TYPES_AND_COMPLEX:
        dims = weight.dim() - 2
        raise NotImplementedError(
            f"\"slow_conv{dims}d_cpu\" not implemented for '{input._dtype.scalar_name}'"
        )


# --- the operator ------------------------------------------------------------------------


def _padded(input: Tensor, padding) -> Tensor:
    """The input with zeros around its spatial dims (``constant_pad_nd``, at kernel level)."""
    if not any(padding):
        return input
    pad = []
    for p in reversed(padding):
        pad += [p, p]
    return constant_pad_nd(input, pad, 0)


def _result(values: np.ndarray, like: Tensor, strides=None) -> Tensor:
    """A tensor of ``like``'s dtype holding ``values``, laid out by ``strides`` (contiguous
    if not given)."""
    if strides is None:
        return Tensor._from_array(np.ascontiguousarray(values, dtype=like._dtype.numpy),
                                  like._dtype)  # fmt: skip
    result = Tensor._empty_strided(values.shape, strides, like._dtype)
    np.copyto(result._array, values, casting="unsafe")
    return result


def _output_strides(input: Tensor, weight: Tensor, size) -> tuple:
    """The layout PyTorch's CPU convolutions give their outputs and input and weight
    gradients (``determine_backend_memory_format``): channels-last when the input or the
    weight suggests it, for 4-D tensors (``thnn_conv_use_channels_last``, and oneDNN's
    rule alike); for 5-D ones only oneDNN's float32 and bfloat16 kernels keep it
    (``mkldnn_conv_use_channels_last``), the slow 3-D kernels are contiguous."""
    keeps = len(size) == 4 or (len(size) == 5 and input._dtype.name in ("float32", "bfloat16"))
    if keeps and any(is_channels_last_strides(t._size, t._stride) for t in (input, weight)):
        return channels_last_strides(size)
    return contiguous_strides(size)


def convolution_meta(input, weight, bias, stride, padding, dilation, transposed,
                     output_padding, groups):  # fmt: skip
    """``convolution``'s checks, in its order, and its output's ``(shape, dtype,
    strides)``: the CPU kernel's first step and its Meta kernel (``meta_nn``)."""
    stride, padding, dilation, output_padding = _params(
        weight, stride, padding, dilation, output_padding, groups
    )
    _check_shape_forward(input, weight, bias, stride, padding, dilation, transposed,
                         output_padding, groups)  # fmt: skip
    _check_types(input, weight, bias)
    kernel = weight._size[2:]
    if not transposed:
        spatial = [
            (input._size[2 + i] + 2 * padding[i] - dilation[i] * (k - 1) - 1) // stride[i] + 1
            for i, k in enumerate(kernel)
        ]  # fmt: skip
        channels = weight._size[0]
    else:
        full = _full_size(input, kernel, stride, dilation, output_padding)
        spatial = [full[i] - 2 * padding[i] for i in range(len(kernel))]
        channels = weight._size[1] * groups
    size = (input._size[0], channels, *spatial)
    return size, input._dtype, _output_strides(input, weight, size)


def convolution_backward_meta(grad_output, input, weight, bias_sizes, stride, padding,
                              dilation, transposed, output_padding, groups, output_mask):  # fmt: skip
    """``convolution_backward``'s outputs, ``(shape, dtype, strides)`` or None for each
    gradient ``output_mask`` leaves out: the input's and weight's laid out as the forward
    output is, the bias's a vector of ``bias_sizes``."""
    _params(weight, stride, padding, dilation, output_padding, groups)
    specs = [None, None, None]
    for i, t in ((0, input), (1, weight)):
        if output_mask[i]:
            specs[i] = (t._size, t._dtype, _output_strides(input, weight, t._size))
    if output_mask[2]:
        size = (grad_output._size[1],) if bias_sizes is None else tuple(bias_sizes)
        specs[2] = (size, grad_output._dtype, contiguous_strides(size))
    return tuple(specs)


def _full_size(input: Tensor, kernel, stride, dilation, output_padding) -> list:
    """The size a transposed convolution scatters into, before its padding is cropped."""
    return [
        (input._size[2 + i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
        + output_padding[i]
        for i in range(len(kernel))
    ]  # fmt: skip


def _convolution_kernel(input, weight, bias, stride, padding, dilation, transposed,
                        output_padding, groups) -> Tensor:  # fmt: skip
    size, _, strides = convolution_meta(input, weight, bias, stride, padding, dilation,
                                        transposed, output_padding, groups)  # fmt: skip
    stride, padding, dilation, output_padding = _params(
        weight, stride, padding, dilation, output_padding, groups
    )
    dims = weight.dim() - 2
    kernel = weight._size[2:]
    dtype = _compute_dtype(input._dtype.numpy)
    w = weight._array.astype(dtype, copy=False)
    n = input._size[0]
    if not transposed:
        windows = conv_windows(_padded(input, padding), kernel, stride, dilation)
        out = _contract(w, _columns(windows._array, groups, dtype), groups)
        out = out.reshape(n, weight._size[0], *windows._size[2 : 2 + dims])
    else:
        # The input gradient of the ordinary convolution whose output has this input's
        # shape: the weight ``(C_in, C_out / groups, *k)`` spreads each input element
        # over a patch, and the patches are added into place.
        x = input._array.astype(dtype, copy=False)
        full = _full_size(input, kernel, stride, dilation, output_padding)
        scattered = _scatter_windows(_spread(w, x, groups), weight._size[1] * groups, kernel,
                                     input._size[2:], full, stride, dilation)  # fmt: skip
        crop = tuple(slice(padding[i], full[i] - padding[i]) for i in range(dims))
        out = scattered[(slice(None), slice(None), *crop)]
    if bias is not None:
        out = out + bias._array.astype(dtype, copy=False).reshape((-1,) + (1,) * dims)
    return _result(out.reshape(size), input, strides)


def _convolution_backward_kernel(grad_output, input, weight, bias_sizes, stride, padding,
                                 dilation, transposed, output_padding, groups, output_mask):  # fmt: skip
    """Gradients of ``convolution`` for input, weight and bias, those ``output_mask`` asks for."""
    specs = convolution_backward_meta(grad_output, input, weight, bias_sizes, stride, padding,
                                      dilation, transposed, output_padding, groups,
                                      output_mask)  # fmt: skip
    stride, padding, dilation, output_padding = _params(
        weight, stride, padding, dilation, output_padding, groups
    )
    dims = weight.dim() - 2
    kernel = weight._size[2:]
    dtype = _compute_dtype(input._dtype.numpy)
    grad = grad_output._array.astype(dtype, copy=False)
    w = weight._array.astype(dtype, copy=False)
    grad_input = grad_weight = grad_bias = None
    if not transposed:
        if output_mask[0]:
            spatial = [input._size[2 + i] + 2 * padding[i] for i in range(dims)]
            scattered = _scatter_windows(_spread(w, grad, groups), input._size[1], kernel,
                                         grad.shape[2:], spatial, stride, dilation)  # fmt: skip
            crop = tuple(slice(padding[i], padding[i] + input._size[2 + i]) for i in range(dims))
            grad_input = _result(scattered[(slice(None), slice(None), *crop)], input,
                                 specs[0][2])  # fmt: skip
        if output_mask[1]:
            windows = conv_windows(_padded(input, padding), kernel, stride, dilation)
            columns = _columns(windows._array, groups, dtype)
            grad_weight = _result(_weight_grad(grad, columns, groups, weight._size), weight,
                                  specs[1][2])  # fmt: skip
    else:
        # The forward scattered the input's patches into the output: read them back with
        # the windows of the output gradient, padded back to the full scattered size.
        full = _full_size(input, kernel, stride, dilation, output_padding)
        pad = []
        for i in reversed(range(dims)):
            pad += [padding[i], full[i] - padding[i] - grad_output._size[2 + i]]
        windows = conv_windows(constant_pad_nd(grad_output, pad, 0), kernel, stride, dilation)
        # Only the windows that an input element scattered into (with ``output_padding``
        # there may be one more row of them).
        used = tuple(slice(0, s) for s in input._size[2:])
        columns = _columns(windows._array[(slice(None), slice(None), *used)], groups, dtype)
        if output_mask[0]:
            grad_input = _contract(w, columns, groups).reshape(input._size)
            grad_input = _result(grad_input, input, specs[0][2])
        if output_mask[1]:
            x = input._array.astype(dtype, copy=False)
            grad_weight = _result(_weight_grad(x, columns, groups, weight._size), weight,
                                  specs[1][2])  # fmt: skip
    if output_mask[2]:
        grad_bias = _result(grad.sum(axis=(0, *range(2, 2 + dims))), grad_output)
    return grad_input, grad_weight, grad_bias


convolution_backward = native_function(
    "convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? "
    "bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, "
    "SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
    kernel=_convolution_backward_kernel,
    variants="function",
    doc="``aten::convolution_backward``: the gradients of ``convolution`` in ``output_mask``.",
)
_convolution_backward_op = convolution_backward.overloads["convolution_backward"]


def _part_of_backward(which: int):
    """One of ``convolution_backward``'s three results: each input's formula asks for its own."""

    def formula(grad, s):
        mask = [i == which for i in range(3)]
        bias_sizes = [s.weight._size[1 if s.transposed else 0] * (s.groups if s.transposed else 1)]
        return _convolution_backward_op(grad, s.input, s.weight, bias_sizes, s.stride, s.padding,
                                    s.dilation, s.transposed, s.output_padding, s.groups,
                                    mask)[which]  # fmt: skip

    return formula


convolution = native_function(
    "convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
    "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor",
    kernel=_convolution_kernel,
    derivative=Derivative(
        "ConvolutionBackward0",
        save=(
            "input",
            "weight",
            "stride",
            "padding",
            "dilation",
            "transposed",
            "output_padding",
            "groups",
        ),  # fmt: skip
        grads={
            "input": _part_of_backward(0),
            "weight": _part_of_backward(1),
            "bias": _part_of_backward(2),
        },  # fmt: skip
    ),
    variants="function",
    doc="``torch.convolution``: an N-d (transposed) convolution, as windows and a matmul.",
)
_convolution_op = convolution.overloads["convolution"]


# --- the composites: conv1d, conv2d, conv_transpose1d/2d ---------------------------------


def _batchify(input: Tensor, spatial_dims: int, name: str) -> tuple[Tensor, bool]:
    """``batchify``: an unbatched input gets a batch dim of 1 (removed from the result)."""
    unbatched = spatial_dims + 1
    batched = input.dim() == unbatched + 1
    if input.dim() != unbatched and not batched:
        raise RuntimeError(
            f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to {name}, "
            f"but got input of size: {list(input._size)}"
        )
    return (input if batched else input.unsqueeze(0)), batched


def _check_bias_type(input: Tensor, bias: Tensor | None) -> None:
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(
            f"Input type ({TYPEMETA_NAMES[input._dtype.name]}) and bias type "
            f"({TYPEMETA_NAMES[bias._dtype.name]}) should be the same"
        )


def _conv_composite(spatial_dims: int):
    name = f"conv{spatial_dims}d"

    def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        _check_bias_type(input, bias)
        batch, batched = _batchify(input, spatial_dims, name)
        # The schema's defaults (``stride=1``) as the lists a call's ints become.
        stride, dilation = _as_list(stride, spatial_dims), _as_list(dilation, spatial_dims)
        if isinstance(padding, str):
            output = _convolution_mode(batch, weight, bias, stride, padding, dilation, groups)
        else:
            zeros = [0] * spatial_dims
            padding = _as_list(padding, spatial_dims)
            output = _convolution_op(batch, weight, bias, stride, padding, dilation, False,
                                     zeros, groups)  # fmt: skip
        return output if batched else output.squeeze(0)

    return conv


def _same_padding(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """``pooling_same_mode_padding_lr``: the (left, right) padding that keeps the size."""
    total = dilation * (kernel - 1)
    if stride > 2 and total % 2 == 1 and size % stride - 1 > 0:
        total -= 1
    return total // 2, total - total // 2


def _convolution_mode(input, weight, bias, stride, padding: str, dilation, groups):
    """``_convolution_mode``: ``padding="valid"`` (none) or ``"same"`` (output size = input's)."""
    if padding == "valid":
        return _convolution_op(input, weight, bias, stride, [0], dilation, False, [0], groups)
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    # convolution_same
    k = weight.dim()
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dims = k - 2
    if k != input.dim():
        raise RuntimeError(
            f"Expected {k}-dimensional input for {k}-dimensional weight{list(weight._size)}, "
            f"but got {input.dim()}-dimensional input of size {list(input._size)} instead"
        )
    if len(stride) not in (1, dims):
        raise RuntimeError(f"stride cannot broadcast to {dims} dimensions")
    if len(dilation) not in (1, dims):
        raise RuntimeError(f"dilation cannot broadcast to {dims} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left, right = [], []
    for i in range(dims):
        s = stride[0] if len(stride) == 1 else stride[i]
        d = dilation[0] if len(dilation) == 1 else dilation[i]
        lo, hi = _same_padding(input._size[i + 2], weight._size[i + 2], s, d)
        left.append(lo)
        right.append(hi)
    if left == right:
        return _convolution_op(input, weight, bias, stride, left, dilation, False,
                               [0] * dims, groups)  # fmt: skip
    warn_at_user_code(
        "Using padding='same' with even kernel lengths and odd dilation may require a "
        "zero-padded copy of the input be created",
        UserWarning,
    )
    pad = [0] * (2 * dims)
    for i in range(dims):
        delta = right[i] - left[i]
        index = 2 * (dims - 1 - i)  # constant_pad_nd names the last dim first
        if delta > 0:
            pad[index + 1] = delta
        else:
            pad[index] = delta
            left[i] = right[i]
    padded = constant_pad_nd(input, pad, 0)
    return _convolution_op(padded, weight, bias, stride, left, dilation, False, [0] * dims,
                           groups)  # fmt: skip


def _conv_transpose_composite(spatial_dims: int):
    name = f"conv_transpose{spatial_dims}d"

    def conv_transpose(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                       groups=1, dilation=1):  # fmt: skip
        batch, batched = _batchify(input, spatial_dims, name)
        stride, padding, output_padding, dilation = (
            _as_list(v, spatial_dims) for v in (stride, padding, output_padding, dilation)
        )
        output = _convolution_op(batch, weight, bias, stride, padding, dilation, True,
                                 output_padding, groups)  # fmt: skip
        return output if batched else output.squeeze(0)

    return conv_transpose


conv1d = native_function(
    "conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, "
    "SymInt[1] padding=0, SymInt[1] dilation=1, SymInt groups=1) -> Tensor",
    "conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, "
    'str padding="valid", SymInt[1] dilation=1, SymInt groups=1) -> Tensor',
    kernel=_conv_composite(1),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.conv1d``: a 1-d convolution over ``(N, C, L)`` (or ``(C, L)``).",
)
conv2d = native_function(
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
    "SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
    "conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
    'str padding="valid", SymInt[2] dilation=1, SymInt groups=1) -> Tensor',
    kernel=_conv_composite(2),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.conv2d``: a 2-d convolution over ``(N, C, H, W)`` (or ``(C, H, W)``).",
)
conv_transpose1d = native_function(
    "conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, "
    "SymInt[1] padding=0, SymInt[1] output_padding=0, SymInt groups=1, SymInt[1] dilation=1) "
    "-> Tensor",
    kernel=_conv_transpose_composite(1),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.conv_transpose1d``: the 1-d transposed convolution (the gradient of conv1d).",
)
conv_transpose2d = native_function(
    "conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
    "SymInt[2] padding=0, SymInt[2] output_padding=0, SymInt groups=1, SymInt[2] dilation=1) "
    "-> Tensor",
    kernel=_conv_transpose_composite(2),
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.conv_transpose2d``: the 2-d transposed convolution (the gradient of conv2d).",
)

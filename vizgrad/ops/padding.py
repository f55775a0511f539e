"""Padding: ``constant_pad_nd``, reflection and replication padding, and ``pad`` (``PadNd.cpp``).

Padding grows the last dims of a tensor by ``pad = (left, right, top, bottom, ...)``:
the pairs name the last dim first. What goes into the new border is the *mode*:

* ``constant`` (``constant_pad_nd``): a fixed value. A negative pad crops instead.
  Its backward crops the gradient back (``constant_pad_nd`` with the pads negated).
* ``reflect`` (``reflection_pad1d/2d/3d``): the input mirrored at its edge, without
  repeating the edge (``[a b c]`` padded by 2 on the left is ``[c b a b c]``).
* ``replicate`` (``replication_pad1d/2d/3d``): the edge repeated (``[a a a b c]``).
* ``circular`` (``_pad_circular``): the input wrapped around, as on a torus. PyTorch
  builds it from other operators (an empty tensor, slices, ``copy_``), so its graph
  is a chain of ``CopySlices`` nodes.

Reflection and replication are a gather along each padded dim: every output position
reads one input position (``_reflect_positions``, ``_replicate_positions``). Their
backward adds each output gradient back into the position it read, so an edge that was
copied several times collects several gradients; here that sum is a product with the
0/1 matrix of the gather, one padded dim at a time.

``pad`` (``torch.nn.functional.pad``) picks the operator from the mode and the number
of padded dims, with PyTorch's checks and errors.
"""

from __future__ import annotations

import numpy as np

from ..derivatives import Derivative
from ..dispatcher import COMPOSITE_IMPLICIT
from ..shape import channels_last_strides, contiguous_strides, is_channels_last_strides
from ..tensor import Tensor
from .creation import checked_scalar, strides_like, zeros_like
from .declaration import native_function
from .iterator import ALL_TYPES_AND_COMPLEX
from .overload_kernels import meta_then_impl, out_wrapper
from .parts import _slice_op
from .registry import check_out_dtype

__all__ = ["constant_pad_nd"]


# --- constant_pad_nd --------------------------------------------------------------------


def _narrow_for_pad(array: np.ndarray, axis: int, start: int, length: int) -> np.ndarray:
    """``narrow`` as ``constant_pad_nd`` calls it for a negative pad (a crop), with its error."""
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    index = [slice(None)] * array.ndim
    index[axis] = slice(start, start + length)
    return array[tuple(index)]


def _laid_out_like(input: Tensor, size) -> tuple:
    """``at::empty(size, input.suggest_memory_format())``: a channels-last input (4-D or
    5-D) gives a channels-last result, any other a row-major one."""
    if is_channels_last_strides(input._size, input._stride):
        return channels_last_strides(size)
    return contiguous_strides(size)


def _constant_pad_nd_meta(self: Tensor, pad, value=0) -> tuple:
    """``constant_pad_nd``'s checks and result. Only crops: a ``clone`` of the cropped
    view (its layout preserved); else the padded size, laid out as ``self`` suggests."""
    if len(pad) % 2 != 0:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    dims = self.dim()
    pairs = len(pad) // 2
    if dims < pairs:
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the "
            f"input. Pad length is {len(pad)}while the input has {dims}dimensions."
        )
    first = dims - pairs
    cropped, offset = list(self._size), self._offset
    all_non_positive = True
    for axis in range(first, dims):
        left, right = pad[2 * (dims - axis - 1)], pad[2 * (dims - axis - 1) + 1]
        if left < 0:
            _check_crop(cropped[axis] + left)
            cropped[axis] += left
            offset -= left * self._stride[axis]
        elif left:
            all_non_positive = False
        if right < 0:
            _check_crop(cropped[axis] + right)
            cropped[axis] += right
        elif right:
            all_non_positive = False
    if all_non_positive:
        view = self._alias(tuple(cropped), self._stride, offset)
        return view._size, self._dtype, strides_like(view)
    size = list(self._size)
    for axis in range(first, dims):
        left, right = pad[2 * (dims - axis - 1)], pad[2 * (dims - axis - 1) + 1]
        size[axis] = self._size[axis] + left + right
        if size[axis] < 0:
            raise RuntimeError(
                f"The input size {self._size[axis]}, plus negative padding {left} and {right} "
                "resulted in a negative output size, which is invalid. Check dimension "
                f"{axis} of your input."
            )
    return tuple(size), self._dtype, _laid_out_like(self, size)


def _check_crop(length: int) -> None:
    if length < 0:  # ``narrow``'s, as ``constant_pad_nd`` calls it for a negative pad
        raise RuntimeError("narrow(): length must be non-negative.")


def _constant_pad_nd_kernel(self: Tensor, pad, value=0) -> Tensor:
    """Crop for the negative pads, then copy into a tensor filled with ``value``."""
    size, dtype, strides = _constant_pad_nd_meta(self, pad, value)
    dims = self.dim()
    first = dims - len(pad) // 2
    source = self._array
    for axis in range(first, dims):
        left, right = pad[2 * (dims - axis - 1)], pad[2 * (dims - axis - 1) + 1]
        if left < 0:
            source = _narrow_for_pad(source, axis, -left, source.shape[axis] + left)
        if right < 0:
            source = _narrow_for_pad(source, axis, 0, source.shape[axis] + right)
    result = Tensor._empty_strided(size, strides, dtype)
    if all(p <= 0 for p in pad):  # only crops: a copy of the cropped input
        result._array[...] = source
        return result
    result._array[...] = checked_scalar(value, self._dtype)
    inside = [slice(None)] * dims
    for axis in range(first, dims):
        left, right = pad[2 * (dims - axis - 1)], pad[2 * (dims - axis - 1) + 1]
        inside[axis] = slice(max(left, 0), size[axis] - max(right, 0))
    result._array[tuple(inside)] = source
    return result


constant_pad_nd = native_function(
    "constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
    kernel=meta_then_impl(_constant_pad_nd_meta, _constant_pad_nd_kernel),
    # ``constant_pad_nd_backward``: the gradient cropped back, i.e. padded by -pad.
    derivative=Derivative(
        "ConstantPadNdBackward0",
        save=("pad",),
        complex=True,
        grads={"self": lambda grad, s: constant_pad_nd(grad, [-p for p in s.pad], 0)},
    ),
    variants="function",
    doc="``torch.constant_pad_nd``: pad the last dims with ``value`` (a negative pad crops).",
)


# --- reflection and replication: a gather along each padded dim -------------------------


def _reflect_positions(length: int, left: int, right: int) -> np.ndarray:
    """The input position each output position reads: mirrored at both edges."""
    positions = np.abs(np.arange(-left, length + right))
    return np.where(positions >= length, 2 * (length - 1) - positions, positions)


def _replicate_positions(length: int, left: int, right: int) -> np.ndarray:
    """The input position each output position reads: the nearest edge outside."""
    return np.clip(np.arange(-left, length + right), 0, length - 1)


def _check_valid_input(input: Tensor, padding, dims: int) -> None:
    """``padding::check_valid_input``: (dims+1)-D, or (dims+2)-D with a possibly empty batch."""
    if len(padding) != 2 * dims:
        raise RuntimeError(f"padding size is expected to be {2 * dims}, but got: {len(padding)}")
    size = input._size
    batch_mode = len(size) == dims + 2
    non_empty = size[1:] if batch_mode else size
    if not (len(size) in (dims + 1, dims + 2) and 0 not in non_empty):
        raise RuntimeError(
            f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 batch "
            "size and other non-zero dimensions for input, but got: "
            f"{list(size)}"
        )


_AXES = ("W", "H", "D")  # the padded dims, last first, as PyTorch's messages name them


def _check_reflection(input: Tensor, padding, dims: int) -> None:
    _check_valid_input(input, padding, dims)
    ndim = input.dim()
    for i in range(dims):  # Argument #4 is the width's pads, #6 the height's, #8 the depth's
        left, right = padding[2 * i], padding[2 * i + 1]
        length = input._size[ndim - 1 - i]
        if not (left < length and right < length):
            raise RuntimeError(
                f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding "
                f"input dimension, but got: padding ({left}, {right}) at dimension "
                f"{ndim - 1 - i} of input {list(input._size)}"
            )
    _check_output_size(input, padding, dims, replicate=False)


def _check_output_size(input: Tensor, padding, dims: int, replicate: bool) -> None:
    ndim = input.dim()
    inputs = [input._size[ndim - 1 - i] for i in range(dims)]
    outputs = [inputs[i] + padding[2 * i] + padding[2 * i + 1] for i in range(dims)]
    if dims == 1:
        if outputs[0] < 1:
            raise RuntimeError(
                f"input (W: {inputs[0]}) is too small. Calculated output W: {outputs[0]}"
            )
        return
    # PyTorch's 2-d and 3-d kernels refuse only when every output dim is empty.
    if all(o < 1 for o in outputs):
        names = _AXES[:dims][::-1]
        sizes = ", ".join(f"{n}: {s}" for n, s in zip(names, inputs[::-1], strict=True))
        computed = " ".join(f"{n}: {s}" for n, s in zip(names, outputs[::-1], strict=True))
        gap = " " if replicate else ""
        raise RuntimeError(f"input ({sizes}{gap}) is too small. Calculated output {computed}")


def _check_replication(input: Tensor, padding, dims: int) -> None:
    if len(padding) != 2 * dims:
        raise RuntimeError(f"padding size is expected to be {2 * dims}")
    _check_valid_input(input, padding, dims)
    _check_output_size(input, padding, dims, replicate=True)


def _gather_matrices(input: Tensor, padding, dims: int, positions):
    """Per padded dim (last first): its axis and the input position of each output one."""
    ndim = input.dim()
    return [
        (ndim - 1 - i, positions(input._size[ndim - 1 - i], padding[2 * i], padding[2 * i + 1]))
        for i in range(dims)
    ]


def _index_pad_meta(name: str, dims: int, check):
    """The meta function of ``reflection_pad{dims}d`` / ``replication_pad{dims}d``: the
    checks, then the last ``dims`` dims grown by their pads, laid out as ``self``
    suggests (PyTorch's CPU kernels keep channels-last)."""

    def meta(self: Tensor, padding) -> tuple:
        check(self, padding, dims)
        if self._dtype.name not in ALL_TYPES_AND_COMPLEX:
            raise NotImplementedError(f"\"{name}\" not implemented for '{self._dtype.scalar_name}'")
        size = list(self._size)
        for i in range(dims):
            size[-1 - i] += padding[2 * i] + padding[2 * i + 1]
        return tuple(size), self._dtype, _laid_out_like(self, size)

    return meta


def _index_pad_kernel(dims: int, positions, meta):
    """The forward of ``reflection_pad{dims}d`` / ``replication_pad{dims}d``: a gather."""

    def kernel(self: Tensor, padding) -> Tensor:
        size, dtype, strides = meta(self, padding)
        values = self._array
        for axis, index in _gather_matrices(self, padding, dims, positions):
            values = np.take(values, index, axis=axis)
        result = Tensor._empty_strided(size, strides, dtype)
        result._array[...] = values
        return result

    return kernel


def _index_pad_backward_meta(grad_output: Tensor, self: Tensor, padding) -> tuple:
    """``*_pad*d_backward``'s result: ``self``'s shape, laid out as ``self`` suggests."""
    return self._size, self._dtype, _laid_out_like(self, self._size)


def _index_pad_backward_kernel(dims: int, positions):
    """``*_pad*d_backward``: each output gradient added into the input position it read."""

    def kernel(grad_output: Tensor, self: Tensor, padding) -> Tensor:
        grad = grad_output._array
        for axis, index in _gather_matrices(self, padding, dims, positions):
            # One-hot rows: ``gather[o, i] = 1`` where output ``o`` read input ``i``.
            gather = np.zeros((index.size, self._size[axis]), dtype=grad.dtype)
            gather[np.arange(index.size), index] = 1
            grad = np.moveaxis(np.tensordot(grad, gather, axes=([axis], [0])), -1, axis)
        size, dtype, strides = _index_pad_backward_meta(grad_output, self, padding)
        result = Tensor._empty_strided(size, strides, dtype)
        result._array[...] = grad
        return result

    return kernel


# The kernels PyTorch has not made structured check ``out``'s dtype in the words of
# ``TensorBase::data_ptr``; the structured ones, in ``set_output``'s.
_LEGACY_OUT = {"reflection_pad2d", "reflection_pad2d_backward", "replication_pad2d_backward",
               "replication_pad3d_backward"}  # fmt: skip


def _check_out_dtype(name: str):
    def check(dtypes, out) -> None:
        if name not in _LEGACY_OUT:
            check_out_dtype(out, dtypes[0])
        elif out._dtype is not dtypes[0]:
            raise RuntimeError(
                f"expected scalar type {dtypes[0].scalar_name} but found {out._dtype.scalar_name}"
            )

    return check


def _restride_out(self: Tensor, padding, *, out: Tensor) -> None:
    """``out.resize_(size, self.suggest_memory_format())``: the 2-d and 3-d pad kernels
    lay ``out`` out as their input suggests, resized or not (the 1-d ones, structured,
    keep an ``out`` of the right shape as it is)."""
    out._set_metadata(out._size, _laid_out_like(self, out._size), out._offset)


def _restride_grad_input(grad_output: Tensor, self: Tensor, padding, *,
                         grad_input: Tensor) -> None:  # fmt: skip
    _restride_out(self, padding, out=grad_input)


def _index_pad_family(kind: str, dims: int, positions, check):
    """Declare ``{kind}_pad{dims}d`` and its backward, with PyTorch's nodes."""
    name = f"{kind}_pad{dims}d"
    node = f"{kind.capitalize()}Pad{dims}D"
    size = 2 * dims
    meta = _index_pad_meta(name, dims, check)
    forward_kernel = _index_pad_kernel(dims, positions, meta)
    backward_kernel = _index_pad_backward_kernel(dims, positions)
    backward = native_function(
        f"{name}_backward(Tensor grad_output, Tensor self, SymInt[{size}] padding) -> Tensor",
        f"{name}_backward.grad_input(Tensor grad_output, Tensor self, SymInt[{size}] padding, "
        "*, Tensor(a!) grad_input) -> Tensor(a!)",
        kernels={
            f"{name}_backward": meta_then_impl(_index_pad_backward_meta, backward_kernel),
            f"{name}_backward.grad_input": out_wrapper(
                backward_kernel,
                meta=_index_pad_backward_meta,
                check_dtypes=_check_out_dtype(f"{name}_backward"),
                resized_checks=_restride_grad_input if dims > 1 else (),
            ),
        },
        # Linear in grad_output: its own backward is the forward padding again.
        derivative=Derivative(
            f"{node}BackwardBackward0",
            save=("self", "padding"),
            grads={
                "grad_output": lambda grad, s: forward(grad, s.padding),
                "self": lambda grad, s: zeros_like(s.self),
            },
        ),
        variants="function",
        doc=f"``torch._C._nn.{name}_backward``: the gradient of ``{name}``.",
    )
    forward = native_function(
        f"{name}(Tensor self, SymInt[{size}] padding) -> Tensor",
        f"{name}.out(Tensor self, SymInt[{size}] padding, *, Tensor(a!) out) -> Tensor(a!)",
        kernels={
            name: meta_then_impl(meta, forward_kernel),
            f"{name}.out": out_wrapper(
                forward_kernel,
                meta=meta,
                check_dtypes=_check_out_dtype(name),
                resized_checks=_restride_out if dims > 1 else (),
            ),
        },
        derivative=Derivative(
            f"{node}Backward0",
            save=("self", "padding"),
            grads={"self": lambda grad, s: backward(grad, s.self, s.padding)},
        ),
        variants="function",
        doc=f"``torch._C._nn.{name}``: pad the last {dims} dim(s) by {kind}.",
    )
    return forward, backward


reflection_pad1d, reflection_pad1d_backward = _index_pad_family(
    "reflection", 1, _reflect_positions, _check_reflection
)
reflection_pad2d, reflection_pad2d_backward = _index_pad_family(
    "reflection", 2, _reflect_positions, _check_reflection
)
reflection_pad3d, reflection_pad3d_backward = _index_pad_family(
    "reflection", 3, _reflect_positions, _check_reflection
)
replication_pad1d, replication_pad1d_backward = _index_pad_family(
    "replication", 1, _replicate_positions, _check_replication
)
replication_pad2d, replication_pad2d_backward = _index_pad_family(
    "replication", 2, _replicate_positions, _check_replication
)
replication_pad3d, replication_pad3d_backward = _index_pad_family(
    "replication", 3, _replicate_positions, _check_replication
)


# --- circular: built from slices and copies, as PyTorch builds it -----------------------


def _pad_circular_kernel(self: Tensor, pad) -> Tensor:
    """``_pad_circular``: the input copied into the middle, then each border copied from
    the other side of the *output* (so corners wrap in both dims)."""
    dims = len(pad) // 2
    in_shape = self._size
    first = len(in_shape) - dims
    out_shape = list(in_shape)
    for i in range(dims):
        left, right = pad[2 * (dims - i - 1)], pad[2 * (dims - i - 1) + 1]
        length = in_shape[first + i]
        out_shape[first + i] = length + left + right
        if not (left <= length and right <= length):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[first + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = self.new_empty(out_shape)
    out_slice, in_slice = out, self
    for i in range(dims):
        dim = len(in_shape) - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        out_slice = _slice_op(out_slice, dim, max(left, 0), out_shape[dim] - max(right, 0), 1)
        in_slice = _slice_op(in_slice, dim, max(-left, 0), in_shape[dim] - max(-right, 0), 1)
    out_slice.copy_(in_slice)
    for i in range(dims):
        dim = len(in_shape) - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        if left > 0:
            end = out_shape[dim] - max(right, 0)
            _slice_op(out, dim, 0, left, 1).copy_(_slice_op(out, dim, end - left, end, 1))
        if right > 0:
            start = max(left, 0)
            _slice_op(out, dim, out_shape[dim] - right, out_shape[dim], 1).copy_(
                _slice_op(out, dim, start, start + right, 1)
            )
    return out


_pad_circular = native_function(
    "_pad_circular(Tensor self, SymInt[] pad) -> Tensor",
    kernel=_pad_circular_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch._C._nn._pad_circular``: pad the last dims by wrapping around.",
)


# --- pad: the mode and the padded dims choose the operator ------------------------------

_MODES = ("constant", "reflect", "replicate", "circular")
_BY_MODE = {
    "reflect": (reflection_pad1d, reflection_pad2d, reflection_pad3d),
    "replicate": (replication_pad1d, replication_pad2d, replication_pad3d),
    "circular": (_pad_circular, _pad_circular, _pad_circular),
}


def _pad_kernel(self: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """``pad_symint`` and ``_pad_enum_symint``: check, then call the mode's operator."""
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    dims = self.dim()
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > dims * 2:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension "
            f"but got padding length {len(pad)} and input of dimension {dims}"
        )
    if mode == "constant":
        return constant_pad_nd(self, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    padded = len(pad) // 2
    if padded in (1, 2, 3) and dims in (padded + 1, padded + 2):
        return _BY_MODE[mode][padded - 1](self, pad)
    raise NotImplementedError(
        f"Padding size {len(pad)} is not supported for {dims}D input tensor.\n"
        "Supported combinations for non-constant padding:\n"
        "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
        "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
        "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
    )


pad = native_function(
    'pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor',
    kernel=_pad_kernel,
    kind=COMPOSITE_IMPLICIT,
    variants="function",
    doc="``torch.nn.functional.pad``: pad the last dims in the given mode.",
)

"""Meta kernels of the nn operators: convolution, pooling, normalization and the samplers.

A convolution, a pooling or a normalization on meta tensors runs the *meta function* its
CPU kernel starts with (``convolution_meta``, ``max_pool2d_with_indices_meta``,
``native_batch_norm_meta``…: the argument checks, in the CPU kernel's order, and each
output's ``(shape, dtype, strides)``), then allocates empty meta outputs of those specs,
as PyTorch's ``TORCH_META_FUNC`` and ``set_output`` do. The CPU kernel lays out its
results from the same specs, so a meta result has the CPU result's metadata by
construction; where PyTorch's own meta path departs from its CPU kernel (its meta
``convolution`` ignores a channels-last input, its meta ``native_batch_norm`` in
evaluation gives statistics of one element per channel where the CPU kernel gives empty
ones), this follows the CPU kernel. The upsampling operators are structured kernels
(``meta_then_impl`` in ``vizgrad.ops.upsample``): their Meta kernels come from there.

The samplers (``bernoulli``, ``exponential_``, ``random_``, ``normal``,
``multinomial``) draw nothing on the meta device, so no generator advances. Their
results are laid out as the CPU kernels allocate them, and they check what PyTorch
2.13's meta kernels check, which is less than the CPU kernels do: nothing about
``random_``'s bounds or ``bernoulli_``'s probability, and no check that reads values
(a probability tensor in ``[0, 1]``, a ``std`` tensor ``>= 0``, finite weights). Where
PyTorch's meta path answers what its CPU kernel refuses and vizgrad's CPU kernel would
allocate otherwise (``normal`` of a complex ``std``, or of an integral mean, for which
it picks another dtype; ``multinomial(out=)`` of a float ``out``), the CPU kernel's
check refuses it, in its words.

The random ``*_like`` factories (``rand_like``, ``randn_like``, ``randint_like``) run
their CPU kernels, which make a meta result, drawing nothing, where ``self`` is a meta
tensor (as ``empty_like`` does).

Mixed devices: the normalizations and ``normal`` refuse a CPU tensor beside a meta one
as PyTorch's meta path (a Python reference) does (``check_same_device``); convolution
and pooling take it, as PyTorch does.
"""

from __future__ import annotations

import inspect

from ..dtypes import int64 as INT64
from ..meta_device import (
    META,
    check_copy_device,
    check_same_device,
    empty_contiguous_meta,
)
from ..shape import broadcast_shapes
from ..tensor import Tensor
from .convolution import convolution_backward_meta, convolution_meta
from .creation import check_nonnegative
from .iterator import resize_output
from .normalization import (
    native_batch_norm_backward_meta,
    native_batch_norm_meta,
    native_group_norm_backward_meta,
    native_group_norm_meta,
    native_layer_norm_backward_meta,
    native_layer_norm_meta,
)
from .overload_kernels import meta_outputs
from .pooling import (
    adaptive_avg_pool2d_meta,
    avg_pool2d_backward_meta,
    avg_pool2d_meta,
    max_pool2d_with_indices_meta,
    pooling_backward_meta,
)
from .registry import OPERATORS
from .sampling import (
    _check_exponential,
    _check_floating,
    _check_multinomial_dim,
    _check_multinomial_out,
    _check_std,
    _check_std_real,
    _int64,
)

__all__ = ["KERNELS"]


def _outputs(meta, single: bool, same_device: tuple = ()):
    """The Meta kernel of a CPU kernel that starts with ``meta`` (``meta_outputs``).

    ``same_device`` names the tensor arguments that PyTorch's meta path (a Python
    reference) requires on one device, the first one's (``check_same_device``): the
    normalizations refuse a CPU weight beside a meta input, where a convolution or a
    pooling gradient takes it."""
    outputs = meta_outputs(meta, single)
    if not same_device:
        return outputs
    signature = inspect.signature(meta)

    def kernel(*args, **kwargs):
        arguments = signature.bind(*args, **kwargs).arguments
        check_same_device([arguments.get(name) for name in same_device])
        return outputs(*args, **kwargs)

    kernel.__name__ = outputs.__name__
    return kernel


# --- the samplers: nothing drawn ----------------------------------------------------------


def _unchecked_(self: Tensor, *args, generator=None) -> Tensor:
    """``random_`` (any overload) and ``bernoulli_``: PyTorch's meta kernels check neither
    the bounds nor the probability (a number or a tensor, nor whether it broadcasts)."""
    return self


def _exponential_(self: Tensor, lambd=1.0, *, generator=None) -> Tensor:
    _check_exponential(self._dtype, float(lambd), dtype_first=True)  # the meta kernel's order
    return self


def _bernoulli(self: Tensor, *, generator=None) -> Tensor:
    return empty_contiguous_meta(self._size, self._dtype)


def _bernoulli_p(self: Tensor, p, *, generator=None) -> Tensor:
    return empty_contiguous_meta(self._size, self._dtype)


def _normal(size, dtype) -> Tensor:
    """A ``normal`` result: of a floating or complex dtype (``normal_``'s check; PyTorch's
    meta path also refuses an integral one, in other words)."""
    _check_floating("normal_kernel_cpu", dtype)
    return empty_contiguous_meta(size, dtype)


def _normal_out(out: Tensor, size) -> Tensor:
    """``out`` (already checked to be on the meta device) resized to the result's shape,
    then ``normal_``'s dtype check."""
    resize_output(out, tuple(size))
    _check_floating("normal_kernel_cpu", out._dtype)
    return out


# A ``std`` tensor's values are not there to check; its dtype is (a complex one is refused:
# PyTorch's meta path would answer with a complex result its CPU kernel never makes).


def _normal_tensor_tensor(mean: Tensor, std: Tensor, *, generator=None) -> Tensor:
    check_same_device([std, mean])  # PyTorch's meta ``normal`` expects std's device
    _check_std_real(std)
    return _normal(broadcast_shapes(mean._size, std._size), mean._dtype)


def _normal_tensor_float(mean: Tensor, std=1.0, *, generator=None) -> Tensor:
    _check_std(float(std))
    return _normal(mean._size, mean._dtype)


def _normal_float_tensor(mean, std: Tensor, *, generator=None) -> Tensor:
    _check_std_real(std)
    return _normal(std._size, std._dtype)


def _normal_tensor_tensor_out(mean, std, *, generator=None, out):
    check_same_device([std, mean])
    check_copy_device(META, out)
    _check_std_real(std)
    return _normal_out(out, broadcast_shapes(mean._size, std._size))


def _normal_tensor_float_out(mean, std=1.0, *, generator=None, out):
    check_copy_device(META, out)
    _check_std(float(std))
    # As the CPU kernel: ``out``'s own shape takes part in the broadcast.
    return _normal_out(out, broadcast_shapes(mean._size, out._size))


def _normal_float_tensor_out(mean, std, *, generator=None, out):
    check_copy_device(META, out)
    _check_std_real(std)
    return _normal_out(out, std._size)


def _normal_float_float_out(mean, std, size, *, generator=None, out):
    check_copy_device(META, out)
    _check_std(float(std))
    return _normal_out(out, size)


def _multinomial_size(self: Tensor, num_samples) -> tuple:
    """PyTorch's meta ``multinomial`` checks the rank only (in the CPU kernel's words
    here), then allocates ``(*rows, num_samples)``: a negative count is a negative size."""
    num_samples = _int64(num_samples)
    _check_multinomial_dim(self)
    size = (*self._size[:-1], num_samples)
    check_nonnegative(size)
    return size


def _multinomial(self, num_samples, replacement=False, *, generator=None) -> Tensor:
    return empty_contiguous_meta(_multinomial_size(self, num_samples), INT64)


def _multinomial_out(self, num_samples, replacement=False, *, generator=None, out):
    check_copy_device(META, out)
    size = _multinomial_size(self, num_samples)
    _check_multinomial_out(out)  # PyTorch's meta path accepts any dtype; its CPU kernel not
    resize_output(out, size, warn=False)
    return out


# The random ``*_like`` factories read only ``self``'s metadata and draw nothing on the
# meta device: their CPU kernels make a meta result where ``self`` is a meta tensor.
_LIKE = {
    f"aten::{name}": OPERATORS[f"aten::{name}"].kernel
    for name in ("rand_like", "rand_like.generator", "randn_like", "randn_like.generator",
                 "randint_like", "randint_like.generator", "randint_like.low_dtype",
                 "randint_like.low_generator_dtype", "randint_like.Tensor",
                 "randint_like.Tensor_generator")
}  # fmt: skip

KERNELS: dict = {
    **_LIKE,
    "aten::convolution": _outputs(convolution_meta, True),
    "aten::convolution_backward": _outputs(convolution_backward_meta, False),
    "aten::max_pool2d_with_indices": _outputs(max_pool2d_with_indices_meta, False),
    "aten::max_pool2d_with_indices_backward": _outputs(pooling_backward_meta, True),
    "aten::avg_pool2d": _outputs(avg_pool2d_meta, True),
    "aten::avg_pool2d_backward": _outputs(avg_pool2d_backward_meta, True),
    "aten::_adaptive_avg_pool2d": _outputs(adaptive_avg_pool2d_meta, True),
    "aten::_adaptive_avg_pool2d_backward": _outputs(pooling_backward_meta, True),
    "aten::native_batch_norm": _outputs(
        native_batch_norm_meta,
        False,
        ("input", "weight", "bias", "running_mean", "running_var"),
    ),
    "aten::native_batch_norm_backward": _outputs(
        native_batch_norm_backward_meta,
        False,
        ("input", "grad_out", "weight", "running_mean", "running_var", "save_mean", "save_invstd"),
    ),
    "aten::native_layer_norm": _outputs(native_layer_norm_meta, False, ("input", "weight", "bias")),
    "aten::native_layer_norm_backward": _outputs(
        native_layer_norm_backward_meta,
        False,
        ("input", "grad_out", "mean", "rstd", "weight", "bias"),
    ),
    "aten::native_group_norm": _outputs(native_group_norm_meta, False, ("input", "weight", "bias")),
    "aten::native_group_norm_backward": _outputs(
        native_group_norm_backward_meta, False, ("input", "grad_out", "mean", "rstd", "weight")
    ),
    "aten::random_": _unchecked_,
    "aten::random_.from": _unchecked_,
    "aten::random_.to": _unchecked_,
    "aten::bernoulli_.float": _unchecked_,
    "aten::bernoulli_.Tensor": _unchecked_,
    "aten::exponential_": _exponential_,
    "aten::bernoulli": _bernoulli,
    "aten::bernoulli.p": _bernoulli_p,
    "aten::normal.Tensor_Tensor": _normal_tensor_tensor,
    "aten::normal.Tensor_float": _normal_tensor_float,
    "aten::normal.float_Tensor": _normal_float_tensor,
    "aten::normal.Tensor_Tensor_out": _normal_tensor_tensor_out,
    "aten::normal.Tensor_float_out": _normal_tensor_float_out,
    "aten::normal.float_Tensor_out": _normal_float_tensor_out,
    "aten::normal.float_float_out": _normal_float_float_out,
    "aten::multinomial": _multinomial,
    "aten::multinomial.out": _multinomial_out,
}

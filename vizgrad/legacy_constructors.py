"""PyTorch's legacy tensor constructors: ``torch.Tensor(...)``, ``torch.LongTensor(...)``…

Older code (the study notes among it) builds tensors by calling the tensor types:
``torch.Tensor(2, 3)`` allocates an uninitialised float tensor of that size (as
``empty``), ``torch.Tensor([1, 2])`` copies data into the default dtype (as ``tensor``),
``torch.LongTensor([[1, 2]])`` the same in int64. PyTorch parses these calls in
``legacy_tensor_generic_ctor_new`` (``torch/csrc/utils/tensor_new.cpp``): sizes are
integers or one ``torch.Size``; a tuple or list is data. ``torch.Tensor(other)``, an
alias of ``other`` (``AliasBackward0``), is refused: vizgrad has no ``aten::alias``.

The typed names are ``tensortype`` objects as in PyTorch: calling one constructs, and
``isinstance(t, torch.LongTensor)`` asks whether ``t`` is an int64 CPU tensor.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from . import dtypes
from .device import NO_CUDA
from .device import device as Device
from .ops import creation
from .shape import Size
from .tensor import Tensor, set_legacy_constructor

__all__ = [
    "FloatTensor", "DoubleTensor", "HalfTensor", "ByteTensor", "CharTensor", "ShortTensor",
    "IntTensor", "LongTensor", "BoolTensor",
]  # fmt: skip


# Legacy constructors ignore ``set_default_device``, as PyTorch's do: their tensors are CPU.
_CPU = Device("cpu")


def _is_size_element(value) -> bool:
    return isinstance(value, (Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def construct(args: tuple, dtype, device):
    """A legacy constructor's call: ``dtype`` None for ``torch.Tensor`` (the default dtype)."""
    if device is not None and Device(device).type != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                           f"{Device(device).type} was passed")  # fmt: skip
    dtype = dtype or creation.get_default_dtype()
    if not args:
        return creation.empty(0, dtype=dtype, device=_CPU)
    if len(args) == 1:
        (arg,) = args
        if isinstance(arg, Size) or _is_size_element(arg):
            return creation.empty(arg, dtype=dtype, device=_CPU)
        if isinstance(arg, Tensor):
            raise TypeError(
                "vizgrad.Tensor(other) would alias other (PyTorch's AliasBackward0), which "
                "vizgrad does not implement; use other.detach() or other.view_as(other)"
            )
        if isinstance(arg, str):
            raise TypeError("new(): invalid data type 'str'")
        if not isinstance(arg, (list, tuple, np.ndarray)):
            raise TypeError(f"new(): data must be a sequence (got {type(arg).__name__})")
        return creation.tensor(arg, dtype=dtype, device=_CPU)
    for position, value in enumerate(args, start=1):
        if not _is_size_element(value):
            raise TypeError(
                f"new(): argument 'size' failed to unpack the object at pos {position} with "
                f'error "type must be tuple of ints,but got {type(value).__name__}"'
            )
    return creation.empty(args, dtype=dtype, device=_CPU)


class tensortype(type):  # noqa: N801 - PyTorch's name
    """The type of ``torch.LongTensor`` and its kin: a dtype's legacy constructor on one
    device type (``torch.cuda.LongTensor`` is CUDA's, which vizgrad does not have)."""

    def __call__(cls, *args, device=None):
        if cls.device_type != "cpu":
            raise TypeError(f"type {cls.__module__}.{cls.__name__} not available. {NO_CUDA}.")
        return construct(args, cls.dtype, device)

    def __instancecheck__(cls, instance) -> bool:
        return (
            isinstance(instance, Tensor)
            and instance.dtype is cls.dtype
            and instance.device.type == cls.device_type
        )

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def typed_constructor(dtype: dtypes.dtype, device_type: str = "cpu") -> tensortype:
    """The legacy constructor of ``dtype`` tensors on ``device_type``: ``vizgrad.LongTensor``
    for the CPU, ``vizgrad.cuda.LongTensor`` for CUDA."""
    name = f"{dtype.scalar_name}Tensor"
    module = "vizgrad" if device_type == "cpu" else f"vizgrad.{device_type}"
    namespace = {"dtype": dtype, "device_type": device_type, "__module__": module,
                 "__qualname__": name}  # fmt: skip
    return tensortype(name, (), namespace)


FloatTensor = typed_constructor(dtypes.float32)
DoubleTensor = typed_constructor(dtypes.float64)
HalfTensor = typed_constructor(dtypes.float16)
ByteTensor = typed_constructor(dtypes.uint8)
CharTensor = typed_constructor(dtypes.int8)
ShortTensor = typed_constructor(dtypes.int16)
IntTensor = typed_constructor(dtypes.int32)
LongTensor = typed_constructor(dtypes.int64)
BoolTensor = typed_constructor(dtypes.bool)


def legacy_tensor(*args, device=None) -> Tensor:
    """``torch.Tensor(*args, device=None)``."""
    return construct(args, None, device)


set_legacy_constructor(legacy_tensor)

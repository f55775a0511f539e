"""Devices, layouts and memory formats (``c10::Device``, ``c10::Layout``, ``c10::MemoryFormat``).

vizgrad has one device with data, the CPU, plus the meta device (shapes, dtypes and
strides without data: ``vizgrad.meta_device``), and two layouts: strided (a storage read through
strides) and sparse COO (coordinates and values of the elements that are stored). They
are real values: a tensor's layout decides which backend kernel the dispatcher runs.
A memory format says in which order a new strided tensor lays out its dimensions.
"""

from __future__ import annotations

__all__ = ["device", "check_backend", "get_default_device", "set_default_device", "layout", "strided", "sparse_coo", "memory_format", "contiguous_format",
           "preserve_format", "channels_last"]  # fmt: skip


# The device types ``torch.device`` knows, in the order its error message lists them.
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")  # fmt: skip

# What a CPU-only PyTorch says when a tensor is put on a CUDA device (``torch/cuda/__init__.py``'s
# ``_lazy_init``); ``vizgrad.cuda`` says it too.
NO_CUDA = "Torch not compiled with CUDA enabled"


class device:  # noqa: N801 - the PyTorch name
    """``torch.device``: a device type and an optional index (``device('cuda:1')``).

    A device is only a name: any type PyTorch knows can be named and compared, as in
    PyTorch, whose ``torch.device('cuda')`` works on a machine without a GPU. What fails is
    putting a tensor there (``check_backend``): vizgrad has one backend, the CPU.
    """

    __slots__ = ("type", "index")

    def __init__(self, type: str | device | int, index: int | None = None):  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            # ``torch.device(0)`` means "accelerator 0", and there is none.
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif not isinstance(type, str):
            raise TypeError(
                "device() received an invalid combination of arguments - got "
                f"({_type_name(type)}), but expected one of:\n * (vizgrad.device device)\n"
                " * (str type, int index = -1)"
            )
        else:
            type, parsed_index = _parse(type)
            if parsed_index is not None:
                if index is not None:
                    raise RuntimeError(
                        "type (string) must not include an index because index was passed "
                        "explicitly: " + str(type)
                    )
                index = parsed_index
        if index is not None:
            if not isinstance(index, int) or isinstance(index, bool):
                raise TypeError(
                    f"device(): argument 'index' (position 2) must be int, not {_type_name(index)}"
                )
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        self.type = type
        self.index = index

    def __eq__(self, other) -> bool:
        # A device equals only a device (``torch.device('cpu') == 'cpu'`` is False).
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


def _type_name(value) -> str:
    return "None" if value is None else type(value).__name__


def _parse(text: str) -> tuple[str, int | None]:
    """``'cuda:1'`` -> ``('cuda', 1)``, with ``c10::Device``'s checks of the string."""
    name, colon, number = text.partition(":")
    if name not in DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: "
            f"{text}"
        )
    if not colon:
        return name, None
    # One index of digits, without a leading zero (``cuda:01`` and ``cuda:0:1`` are refused).
    if not number.isdigit() or not number.isascii() or (len(number) > 1 and number[0] == "0"):
        raise RuntimeError(f"Invalid device string: '{text}'")
    return name, int(number)


# ``torch.set_default_device``'s choice: where factories put tensors given no ``device=``
# (None: the CPU). Only the user sets it.
_default_device: device | None = None


def set_default_device(where) -> None:
    """``torch.set_default_device``: the device factory functions (``zeros``, ``arange``,
    ``randn``…) use when they are given none; ``None`` goes back to the CPU."""
    global _default_device
    _default_device = None if where is None else device(where)


def get_default_device() -> device:
    """``torch.get_default_device``: the device a factory function uses by default."""
    return device("cpu") if _default_device is None else _default_device


def check_backend(where, *, meta: bool = False) -> device:
    """The device a tensor is asked to live on, which must be the CPU (or, for a caller
    that can make a meta tensor, the meta device: ``meta=True``).

    PyTorch would dispatch to that device's backend here; vizgrad has only the CPU, so it
    fails as a PyTorch build without that backend does: CUDA with ``AssertionError: Torch
    not compiled with CUDA enabled``, the others with ``NotImplementedError``.
    """
    where = get_default_device() if where is None else device(where)
    if where.type == "cpu" or (meta and where.type == "meta"):
        return where
    if where.type == "cuda":
        raise AssertionError(NO_CUDA)
    if where.type == "meta":  # factories reach Meta through BackendSelect; not this caller
        raise NotImplementedError(
            "vizgrad's meta device holds strided tensors only: a sparse tensor there "
            "(PyTorch's SparseMeta backend) is not supported."
        )
    raise NotImplementedError(
        f"Could not run this operator with arguments from the '{where.type.upper()}' backend: "
        "vizgrad has only the CPU backend ('cpu')."
    )


class layout:  # noqa: N801 - the PyTorch name
    """``torch.layout``: how elements are laid out: ``strided`` (every element in a storage,
    found through strides) or ``sparse_coo`` (only some elements, as a list of their
    coordinates and a tensor of their values: ``vizgrad.sparse_tensor``)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"vizgrad.{self.name}"


strided = layout("strided")
sparse_coo = layout("sparse_coo")


class memory_format:  # noqa: N801 - the PyTorch name
    """``torch.memory_format``: which stride order a new tensor gets.

    ``contiguous_format`` is row-major; ``preserve_format`` keeps the source's order
    when the source is dense; ``channels_last`` puts the channel dim (dim 1 of an
    NCHW tensor) innermost.
    """

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"vizgrad.{self.name}"


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")

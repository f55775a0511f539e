"""``torch.cuda``, as a PyTorch built without CUDA has it.

vizgrad computes on the CPU only. Code written for a GPU asks this module first
(``torch.cuda.is_available()``, ``device_count()``), and then runs on the CPU; the calls
such code makes on the way (seeding every GPU, emptying the cache, reading memory counters)
do what they do in a CPU-only PyTorch: nothing, or zero. What needs a GPU to answer
(``current_device()``, ``synchronize()``, a tensor on ``'cuda'``) fails with that build's
``AssertionError: Torch not compiled with CUDA enabled``.
"""

from __future__ import annotations

from . import dtypes
from .device import NO_CUDA
from .device import device as _device
from .legacy_constructors import typed_constructor

__all__ = [
    "is_available", "device_count", "is_initialized", "init", "manual_seed", "manual_seed_all",
    "seed", "seed_all", "initial_seed", "empty_cache", "synchronize", "current_device",
    "set_device", "get_device_name", "get_device_capability", "get_device_properties",
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
    "is_bf16_supported", "device",
    "FloatTensor", "DoubleTensor", "HalfTensor", "ByteTensor", "CharTensor", "ShortTensor",
    "IntTensor", "LongTensor", "BoolTensor",
]  # fmt: skip


def _no_cuda():
    raise AssertionError(NO_CUDA)


# --- what a program asks before choosing a device ------------------------------------------


def is_available() -> bool:
    """False: there is no CUDA device, so tutorial code chooses ``'cpu'``."""
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


# --- calls that do nothing without a GPU ---------------------------------------------------


def manual_seed(seed) -> None:
    """Seeds the current GPU's generator: there is none (``vizgrad.manual_seed`` seeds the
    CPU's). As in PyTorch, the seed must still be a number."""
    int(seed)


def manual_seed_all(seed) -> None:
    """Seeds every GPU's generator: there are none (``vizgrad.manual_seed`` seeds the CPU's)."""
    int(seed)


def seed() -> None:
    """Seeds the current GPU's generator at random: there is none."""


def seed_all() -> None:
    """Seeds every GPU's generator at random: there are none."""


def empty_cache() -> None:
    """Frees the GPU memory PyTorch's caching allocator holds: there is none."""


def memory_allocated(device=None) -> int:
    """Bytes of GPU memory tensors occupy: 0."""
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    """Bytes of GPU memory the caching allocator holds: 0."""
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


# --- calls that need a GPU -----------------------------------------------------------------


def init() -> None:
    _no_cuda()


def initial_seed() -> int:
    _no_cuda()


def synchronize(device=None) -> None:
    _no_cuda()


def current_device() -> int:
    _no_cuda()


def set_device(device) -> None:
    _no_cuda()


def get_device_name(device=None) -> str:
    _no_cuda()


def get_device_capability(device=None) -> tuple:
    _no_cuda()


def get_device_properties(device=None):
    _no_cuda()


class device:  # noqa: N801 - PyTorch's name
    """``torch.cuda.device(i)``: a context manager that makes GPU ``i`` current. It can be
    made, as in PyTorch; entering it needs a GPU."""

    def __init__(self, device):
        self.idx = _device(device).index if isinstance(device, str | _device) else device

    def __enter__(self):
        raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc_info):
        return False


# ``torch.cuda.FloatTensor`` and its kin: they name CUDA tensors, so no CPU tensor is one,
# and calling one says CUDA is not there.
FloatTensor = typed_constructor(dtypes.float32, "cuda")
DoubleTensor = typed_constructor(dtypes.float64, "cuda")
HalfTensor = typed_constructor(dtypes.float16, "cuda")
ByteTensor = typed_constructor(dtypes.uint8, "cuda")
CharTensor = typed_constructor(dtypes.int8, "cuda")
ShortTensor = typed_constructor(dtypes.int16, "cuda")
IntTensor = typed_constructor(dtypes.int32, "cuda")
LongTensor = typed_constructor(dtypes.int64, "cuda")
BoolTensor = typed_constructor(dtypes.bool, "cuda")

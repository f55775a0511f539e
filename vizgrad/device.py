"""Devices, layouts and memory formats (``c10::Device``, ``c10::Layout``, ``c10::MemoryFormat``).

vizgrad has one device, the CPU, and one layout, strided. They are still real values
that the dispatcher reads, because that is where PyTorch would branch to CUDA or sparse.
A memory format says in which order a new strided tensor lays out its dimensions.
"""

from __future__ import annotations

__all__ = ["device", "layout", "strided", "memory_format", "contiguous_format",
           "preserve_format", "channels_last"]  # fmt: skip


class device:  # noqa: N801 - the PyTorch name
    """``torch.device``: a device type and an index (``device('cpu')``)."""

    __slots__ = ("type", "index")

    def __init__(self, type: str | device = "cpu", index: int | None = None):  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        name, _, idx = str(type).partition(":")
        if idx:
            index = int(idx)
        if name != "cpu":
            raise RuntimeError(
                f"vizgrad runs on the CPU only; device '{type}' is not available "
                "(PyTorch would dispatch to another backend here)"
            )
        self.type = name
        self.index = index

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


class layout:  # noqa: N801 - the PyTorch name
    """``torch.layout``: how elements are laid out; vizgrad has ``strided``."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"vizgrad.{self.name}"


strided = layout("strided")


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

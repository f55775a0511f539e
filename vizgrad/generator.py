"""The random number generator: ``Generator``, ``manual_seed``… (``CPUGeneratorImpl.cpp``).

PyTorch draws every random number from a *generator* (``torch.Generator``): a seeded
stream whose state can be saved and restored. Every sampling function takes
``generator=``; without one it uses the default generator, which ``manual_seed``
reseeds. vizgrad's generator wraps NumPy's PCG64 bit generator, so the *values* differ
from PyTorch's (which uses a Mersenne Twister), but the rules are the same: same seed,
same numbers. The sampling operators that draw from it live in ``sampling``.
"""

from __future__ import annotations

import os

import numpy as np

from .device import device as Device
from .dtypes import uint8 as UINT8
from .tensor import Tensor

__all__ = [
    "Generator",
    "default_generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
]

_UINT64 = 2**64


class Generator:
    """``torch.Generator``: a seeded stream of random bits and its saved state.

    The state is plain data, never pickled: ``get_state()`` returns a uint8 tensor of
    45 bytes (PCG64's 128-bit state and increment, its buffered 32-bit half-word, and
    the initial seed), and ``set_state`` reads the same layout back.
    """

    STATE_SIZE = 45

    def __init__(self, device="cpu"):

        self.device = Device(device)
        self.manual_seed(67280421310721)  # PyTorch's default seed for a new Generator

    def manual_seed(self, seed) -> Generator:
        """Restart the stream from ``seed`` (any int; negatives wrap as uint64 does)."""
        seed = int(seed)
        if not -(2**63) <= seed < _UINT64:
            raise ValueError("Overflow when unpacking long long")
        self._initial_seed = seed % _UINT64
        self._numpy = np.random.Generator(np.random.PCG64(self._initial_seed))
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy and return the new seed."""
        new_seed = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(new_seed)
        return new_seed

    def initial_seed(self) -> int:
        return self._initial_seed

    def get_state(self) -> Tensor:
        """The full state as a uint8 tensor (``torch.ByteTensor``)."""
        state = self._numpy.bit_generator.state
        data = (
            state["state"]["state"].to_bytes(16, "little")
            + state["state"]["inc"].to_bytes(16, "little")
            + bytes([state["has_uint32"]])
            + state["uinteger"].to_bytes(4, "little")
            + self._initial_seed.to_bytes(8, "little")
        )
        return Tensor._from_array(np.frombuffer(data, dtype=np.uint8).copy(), UINT8)

    def set_state(self, new_state) -> Generator:
        """Restore a state saved by ``get_state``: the stream continues from there."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a vizgrad.ByteTensor, but got {type(new_state).__name__}")
        if new_state._dtype is not UINT8:
            raise TypeError("RNG state must be a vizgrad.ByteTensor")
        if new_state.numel() != self.STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {self.STATE_SIZE} but found the "
                f"input RNG state size to be {new_state.numel()}"
            )
        data = bytes(np.ascontiguousarray(new_state._array).reshape(-1))
        bit_generator = np.random.PCG64()
        bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {
                "state": int.from_bytes(data[0:16], "little"),
                "inc": int.from_bytes(data[16:32], "little"),
            },
            "has_uint32": data[32],
            "uinteger": int.from_bytes(data[33:37], "little"),
        }
        self._numpy = np.random.Generator(bit_generator)
        self._initial_seed = int.from_bytes(data[37:45], "little")
        return self

    def __repr__(self) -> str:
        return f"<vizgrad.Generator object, initial_seed={self._initial_seed}>"


default_generator = Generator()
default_generator.seed()  # like PyTorch, a fresh process starts from a nondeterministic seed


def manual_seed(seed) -> Generator:
    """``torch.manual_seed``: reseed the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """``torch.seed``: reseed the default generator nondeterministically; return the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """``torch.initial_seed``: the seed the default generator started from."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """``torch.get_rng_state``: the default generator's state."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """``torch.set_rng_state``: restore the default generator's state."""
    default_generator.set_state(new_state)


def _numpy_generator(generator) -> np.random.Generator:
    """The NumPy generator a sampling kernel draws from: the ``generator=`` argument's
    (whose type the argument parser checked), or the default one."""
    return default_generator._numpy if generator is None else generator._numpy

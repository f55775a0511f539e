"""The 8x8 handwritten digits: a real dataset small enough to train on in seconds.

1,797 grey-scale images of the digits 0-9 (the UCI "Optical Recognition of Handwritten
Digits" test set, CC BY 4.0: see ``data/DIGITS_LICENSE.txt``), each pixel a count
0..16. It is read from the file shipped with the package: no network.

``load_digits()`` gives the whole set as two tensors; ``Digits(train=...)`` is a
``Dataset`` in the manner of torchvision's ``MNIST``, with a fixed split into 1,438
training and 359 held-out images (every fifth image is held out, so both halves have
every writer and every digit in about the same proportions).
"""

from __future__ import annotations

import gzip
from importlib import resources

import numpy as np

from ..dtypes import float32, int64
from ..ops.creation import tensor
from ..tensor import Tensor
from ..utils.data import Dataset

__all__ = ["Digits", "load_digits"]

_PIXELS = 64
_MAX_COUNT = 16.0
_HELD_OUT_EVERY = 5


def _read_table() -> np.ndarray:
    with resources.files(__package__).joinpath("data/digits.csv.gz").open("rb") as packed:
        text = gzip.decompress(packed.read()).decode("ascii")
    return np.loadtxt(text.splitlines(), delimiter=",", dtype=np.int64)


def load_digits(*, images: bool = False) -> tuple[Tensor, Tensor]:
    """All 1,797 digits: ``(data, target)``.

    ``data`` is float32 of shape ``(1797, 64)`` (or ``(1797, 8, 8)`` with
    ``images=True``) holding the raw counts 0..16; ``target`` is int64, the digit.
    """
    table = _read_table()
    pixels = table[:, :_PIXELS].astype(np.float32)
    if images:
        pixels = pixels.reshape(-1, 8, 8)
    return tensor(pixels, dtype=float32), tensor(table[:, _PIXELS], dtype=int64)


class Digits(Dataset):
    """The digits as a ``Dataset`` of ``(image, label)``.

    ``image`` is a float32 tensor of shape ``(1, 8, 8)`` (one channel, as a ``Conv2d``
    expects), scaled to ``[0, 1]``; ``label`` is an int. ``train=True`` gives the 1,438
    training images, ``train=False`` the 359 held-out ones. ``transform`` and
    ``target_transform`` are applied to each sample, as torchvision's datasets do.
    """

    def __init__(self, train: bool = True, transform=None, target_transform=None) -> None:
        table = _read_table()
        held_out = np.arange(len(table)) % _HELD_OUT_EVERY == _HELD_OUT_EVERY - 1
        rows = table[~held_out] if train else table[held_out]
        self.train = train
        self.data = tensor((rows[:, :_PIXELS] / _MAX_COUNT).reshape(-1, 1, 8, 8), dtype=float32)
        self.targets = tensor(rows[:, _PIXELS], dtype=int64)
        self.classes = [str(digit) for digit in range(10)]
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self) -> int:
        return self.targets.shape[0]

    def __getitem__(self, index: int):
        image, label = self.data[index], int(self.targets[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label

    def __repr__(self) -> str:
        split = "Train" if self.train else "Test"
        return f"Dataset Digits\n    Number of datapoints: {len(self)}\n    Split: {split}"

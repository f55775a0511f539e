"""Train a small convolutional network on the 8x8 handwritten digits.

    python examples/digits_cnn.py

Two 3x3 convolutions with ReLU and 2x2 max pooling, then a linear layer: the shape of
LeNet, scaled to 8x8 images. Each convolution runs as an ``as_strided`` window view of
its input and a matrix product (see ``vizgrad.ops.convolution``).
"""

from __future__ import annotations

import sys

from _training import run

import vizgrad as vg
from vizgrad import nn, optim


def main() -> int:
    vg.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),  # 16 x 4 x 4
        nn.Conv2d(16, 32, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),  # 32 x 2 x 2
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 10),
    )
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    return run(model, optimizer, epochs=15, batch_size=32, min_accuracy=0.95)


if __name__ == "__main__":
    sys.exit(main())

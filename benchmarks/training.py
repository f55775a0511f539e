"""Training benchmarks (issue "The training stack"): one epoch of an MLP on the digits.

Both libraries train the same model (the weights copied from vizgrad's into torch's) on
the same batches, in the same order, with Adam; PyTorch runs single-threaded.
"""

from __future__ import annotations

import vizgrad as vg
from vizgrad import nn, optim
from vizgrad.datasets import Digits

from .harness import Result, best_time, torch

BATCH = 32
MAX_RATIO = 3.0


def _mlp(lib):
    return lib.nn.Sequential(
        lib.nn.Flatten(),
        lib.nn.Linear(64, 128),
        lib.nn.ReLU(),
        lib.nn.Linear(128, 64),
        lib.nn.ReLU(),
        lib.nn.Linear(64, 10),
    )


def _batches(lib, images, labels):
    return [
        (lib.tensor(images[i : i + BATCH]), lib.tensor(labels[i : i + BATCH]))
        for i in range(0, len(images), BATCH)
    ]


def _epoch(model, optimizer, loss_fn, batches):
    for x, y in batches:
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def mlp_epoch():
    """One epoch (45 batches of 32) of the digits MLP: within 3x of PyTorch."""
    data = Digits(train=True)
    images, labels = data.data.numpy(), data.targets.numpy()
    model = _mlp(vg)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    batches = _batches(vg, images, labels)
    v = best_time(lambda: _epoch(model, optimizer, nn.CrossEntropyLoss(), batches), repeat=3)
    t = None
    if torch is not None:
        reference = _mlp(torch)
        reference.load_state_dict(
            {k: torch.tensor(p.numpy()) for k, p in model.state_dict().items()}
        )
        t_optimizer = torch.optim.Adam(reference.parameters(), lr=1e-3)
        t_batches = _batches(torch, images, labels)
        t = best_time(
            lambda: _epoch(reference, t_optimizer, torch.nn.CrossEntropyLoss(), t_batches),
            repeat=3,
        )
    passed = t is None or v <= MAX_RATIO * t
    return Result(
        "MLP epoch on the digits (45 x 32)", v, None, t, f"<= {MAX_RATIO:g}x torch", passed
    )


CASES = [mlp_epoch]

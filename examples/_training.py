"""The training loop both digit examples share: epochs of mini-batches with a progress
bar, then the held-out accuracy. Written the way PyTorch's tutorials write it, with
``vizgrad`` in ``torch``'s place."""

from __future__ import annotations

import sys
import time

import vizgrad as vg
from vizgrad import nn
from vizgrad.datasets import Digits
from vizgrad.utils.data import DataLoader

BAR_WIDTH = 30


def progress(epoch: int, epochs: int, done: int, total: int, loss: float) -> None:
    """One line, redrawn in place: ``epoch 3/15 [#########.....] loss 0.1234`` (in a log
    that is not a terminal, only each epoch's finished line)."""
    if done < total and not sys.stdout.isatty():
        return
    filled = BAR_WIDTH * done // total
    bar = "#" * filled + "." * (BAR_WIDTH - filled)
    end = "\n" if done == total else ""
    print(f"\repoch {epoch:>2}/{epochs} [{bar}] loss {loss:.4f}", end=end, flush=True)


def train_epoch(model, loader, loss_fn, optimizer, epoch: int, epochs: int) -> float:
    model.train()
    total = 0.0
    for batch, (images, labels) in enumerate(loader, start=1):
        loss = loss_fn(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        progress(epoch, epochs, batch, len(loader), total / batch)
    return total / len(loader)


def accuracy(model, loader) -> float:
    model.eval()
    correct = 0
    with vg.no_grad():
        for images, labels in loader:
            correct += (model(images).argmax(1) == labels).sum().item()
    return correct / len(loader.dataset)


def run(model, optimizer, *, epochs: int, batch_size: int, min_accuracy: float) -> int:
    """Train ``model`` on the digits, print the held-out accuracy; exit status 1 below
    ``min_accuracy`` (CI runs the examples)."""
    train = DataLoader(Digits(train=True), batch_size=batch_size, shuffle=True)
    test = DataLoader(Digits(train=False), batch_size=256)
    loss_fn = nn.CrossEntropyLoss()
    print(model)
    started = time.perf_counter()
    for epoch in range(1, epochs + 1):
        train_epoch(model, train, loss_fn, optimizer, epoch, epochs)
    seconds = time.perf_counter() - started
    score = accuracy(model, test)
    print(f"held-out accuracy {score:.1%} on {len(test.dataset)} digits, "
          f"trained in {seconds:.1f} s")  # fmt: skip
    if score < min_accuracy:
        print(f"below the expected {min_accuracy:.0%}", file=sys.stderr)
        return 1
    return 0

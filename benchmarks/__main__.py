"""Run every benchmark and print vizgrad, NumPy and PyTorch side by side."""

from __future__ import annotations

import sys

from . import autograd, engine, large_ops, nn_conv, training, widgets
from .harness import HEADER, torch


def main() -> int:
    print(HEADER)
    print("-" * len(HEADER))
    misses = 0
    cases = (
        engine.CASES
        + large_ops.CASES
        + autograd.CASES
        + training.CASES
        + nn_conv.CASES
        + widgets.CASES
    )
    for case in cases:
        result = case()
        print(result.row(), flush=True)
        misses += not result.passed
    if torch is None:
        print("\n(PyTorch is not installed: install the 'oracle' extra for its column.)")
    print(f"\n{len(cases) - misses} of {len(cases)} targets reached.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Run every benchmark and print vizgrad, NumPy and PyTorch side by side."""

from __future__ import annotations

import sys

from . import engine
from .harness import HEADER, torch


def main() -> int:
    print(HEADER)
    print("-" * len(HEADER))
    misses = 0
    for case in engine.CASES:
        result = case()
        print(result.row(), flush=True)
        misses += not result.passed
    if torch is None:
        print("\n(PyTorch is not installed: install the 'oracle' extra for its column.)")
    print(f"\n{len(engine.CASES) - misses} of {len(engine.CASES)} targets reached.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

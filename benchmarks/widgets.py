"""Widget benchmarks (issue "views"): how fast the views follow the engine.

Each case returns a ``harness.Result``; ``CASES`` lists them for ``python -m benchmarks``.
The widget libraries are imported inside the cases, so this module imports without
the ``jupyter`` extra.
"""

from __future__ import annotations

import vizgrad as vg

from .harness import Result, best_time


def stride_map_update_64x64() -> Result:
    """An in-place write into a shown 64×64 tensor, and the StrideMap recomputing its state.

    The widget hears the ``InplaceWrite`` event on ``vizgrad.events.bus`` and rebuilds
    its synced ``data`` (grid, storage strip, values): what a learner waits for after
    ``x.add_(1)`` in a cell.
    """
    from vizgrad.widgets import StrideMap

    x = vg.zeros(64, 64)
    widget = StrideMap(x, names=["x"])
    try:
        seconds = best_time(lambda: x.add_(1), repeat=3)
    finally:
        widget.close()
    target = 0.1
    return Result("stride map update, 64x64 after add_", seconds, None, None,
                  f"<= {target * 1e3:g} ms", seconds <= target)  # fmt: skip


CASES = [stride_map_update_64x64]

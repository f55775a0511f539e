"""A buffer too large to allocate is PyTorch's RuntimeError, not NumPy's MemoryError.

The sizes here (a petabyte and more) are beyond any machine's address space, so the
allocation fails at once on every machine, for torch and for vizgrad alike.
"""

import pytest
import torch
from oracle import assert_same_error

import vizgrad as vg

HUGE = 2**48  # elements: 1 PiB of float32

CALLS = [
    f"lib.zeros({HUGE})",
    f"lib.empty({HUGE})",
    f"lib.ones({HUGE}, dtype=lib.float64)",
    f"lib.full(({HUGE},), 1.0)",
    f"lib.arange({HUGE}.0)",
    f"lib.randn({HUGE})",
    f"lib.zeros(3).expand({HUGE}, 3).contiguous()",
    f"lib.zeros(3).expand({HUGE}, 3).exp()",
    f"lib.zeros(3).expand({HUGE}, 3) + 1",
]


@pytest.mark.parametrize("call", CALLS)
def test_an_impossible_allocation_is_torchs_runtime_error(call):
    vg_error, _ = assert_same_error(
        lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch})
    )
    assert "you tried to allocate" in str(vg_error)

"""Device queries answer as a CPU-only PyTorch does, so tutorial code picks the CPU."""

import pytest
import torch

import vizgrad as vg


@pytest.mark.parametrize(
    "query",
    [
        lambda m: m.accelerator.is_available(),
        lambda m: m.accelerator.current_accelerator(),
        lambda m: m.accelerator.device_count(),
        lambda m: m.cuda.is_available(),
        lambda m: m.cuda.device_count(),
        lambda m: m.backends.mps.is_available(),
        lambda m: m.backends.mps.is_built(),
    ],
)
def test_queries_match_a_cpu_build(query):
    assert query(vg) == query(torch)


def test_tutorial_device_line_picks_the_cpu():
    for lib in (vg, torch):
        accelerator = lib.accelerator.current_accelerator()
        device = accelerator.type if lib.accelerator.is_available() else "cpu"
        assert device == "cpu"
        assert str(lib.ones(2).to(device).device) == "cpu"

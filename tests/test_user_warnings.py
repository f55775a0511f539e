"""A warning from inside the engine is shown at the user's line, as PyTorch's are.

PyTorch's kernels warn from C++, so Python attributes each warning to the line that
called the operator. vizgrad's kernels are Python, frames below that line: each warning
must still point at the caller's file and line (``vizgrad/user_warnings.py``), whichever
way the operator was reached (function, method, operator, in place, out=).
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import vizgrad as vg

CALLS = {
    "out= resized": lambda lib: lib.add(lib.ones(3), 1, out=lib.ones(2)),
    "cat out= resized": lambda lib: lib.cat([lib.ones(2), lib.ones(1)], out=lib.ones(2)),
    "range out= resized": lambda lib: lib.arange(5, out=lib.zeros(2)),
    "complex to real copy_": lambda lib: lib.zeros(2).copy_(lib.ones(2, dtype=lib.complex64)),
    "x.T of a 3-d tensor": lambda lib: lib.ones(2, 2, 2).T,
    "x.mT of a 0-d tensor": lambda lib: lib.tensor(1.0).T,
    "uint8 mask": lambda lib: lib.ones(3)[lib.tensor([1, 0, 1], dtype=lib.uint8)],
    "list as an index tuple": lambda lib: lib.ones(2, 2)[[0, slice(None)]],
    "scatter reduce with a tensor": lambda lib: lib.zeros(3).scatter_(
        0, lib.tensor([0]), lib.ones(1), reduce="add"
    ),
    "tensor of a tensor": lambda lib: lib.tensor(lib.ones(2)),
    "grad of a non-leaf": lambda lib: (lib.ones(2, requires_grad=True) * 2).grad,
    "masked_fill_ of an expanded tensor": lambda lib: (
        lib.zeros(1).expand(3).masked_fill_(lib.tensor([True, False, True]), 1.0)
    ),
    "var with no degree of freedom": lambda lib: lib.ones(1).var(),
    "std_mean with no degree of freedom": lambda lib: lib.std_mean(lib.ones(2, 1), 1),
    "var_mean with no degree of freedom": lambda lib: lib.var_mean(lib.ones(0)),
    "padding='same', even kernel": lambda lib: lib.nn.functional.conv1d(
        lib.ones(1, 1, 5), lib.ones(1, 1, 2), padding="same"
    ),
}


def _warnings_of(call, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        call(lib)
    # (torch's messages end by naming the C++ file that warned)
    return [(str(w.message).split(" (Triggered internally at ")[0], w.filename, w.lineno)
            for w in caught], line  # fmt: skip


@pytest.fixture(scope="module")
def torch_warnings():
    """What torch warns for each call, each made first in a fresh process: several of its
    warnings are ``TORCH_WARN_ONCE``, silent after an earlier test made the same call."""
    script = (
        "import json, sys, torch\n"
        f"sys.path.insert(0, {os.path.dirname(__file__)!r})\n"
        "from test_user_warnings import CALLS, _warnings_of\n"
        "print(json.dumps({name: _warnings_of(call, torch)[0] for name, call in CALLS.items()}))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=120)  # fmt: skip
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", CALLS)
def test_an_engine_warning_points_at_the_line_that_called_the_operator(name, torch_warnings):
    got, _ = _warnings_of(CALLS[name], vg)
    expected = torch_warnings[name]
    assert len(got) == len(expected) >= 1
    for (message, filename, _), (torch_message, torch_filename, _) in zip(
        got, expected, strict=True
    ):
        assert message.replace("vizgrad", "torch") == torch_message.replace("vizgrad", "torch")
        assert torch_filename == __file__  # the test's premise: torch points here too
        assert filename == __file__, f"{name}: the warning points at {filename}"


def test_a_warning_raised_outside_any_call_of_vizgrad_is_not_moved():
    # Only vizgrad's own frames are skipped: a warning from the caller stays where it is.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.ones(1) / np.zeros(1)
    assert caught and caught[0].filename == __file__

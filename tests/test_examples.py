"""The training examples run as a user runs them and reach their accuracy (CI runs them)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("script", ["digits_mlp.py", "digits_cnn.py"])
def test_example_trains_to_95_percent(script):
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=EXAMPLES.parent,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    found = re.search(
        r"held-out accuracy ([\d.]+)% on 359 digits, trained in ([\d.]+) s", done.stdout
    )
    assert found, done.stdout[-2000:]
    assert float(found.group(1)) >= 95.0
    assert "epoch  1/" in done.stdout and "] loss " in done.stdout  # the progress display

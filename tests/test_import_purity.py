"""The one rule of the architecture: the engine never imports Jupyter (docs/architecture.md)."""

import subprocess
import sys

JUPYTER_MODULES = ("IPython", "ipywidgets", "traitlets", "graphviz", "anywidget",
                   "ipykernel", "jupyterlab")  # fmt: skip


def test_import_vizgrad_pulls_in_no_jupyter_package():
    code = (
        "import sys, vizgrad\n"
        f"bad = [m for m in {JUPYTER_MODULES!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "", f"import vizgrad imported: {result.stdout.strip()}"


def test_import_vizgrad_does_not_import_torch():
    # torch is only the tests' oracle; the engine must stand on NumPy alone.
    code = "import sys, vizgrad\nprint('torch' in sys.modules)\n"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"

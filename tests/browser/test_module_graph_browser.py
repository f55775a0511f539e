"""GraphView's module boxes in JupyterLab, in Chromium: click a module to collapse it,
click the collapsed node to open it, untick "modules" to draw the plain graph."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from test_lab import cell_output, open_notebook, run_all_cells, write_notebook

DONE = "VG-MODULES-DONE"

CELLS = [
    """\
import vizgrad as vg
from vizgrad import nn
from vizgrad.widgets import GraphView


class Affine(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(vg.randn(n_out, n_in))
        self.bias = nn.Parameter(vg.zeros(n_out))

    def forward(self, x):
        return vg.addmm(self.bias, x, self.weight.t())


class Act(nn.Module):
    def forward(self, x):
        return x.relu()


model = nn.Sequential(Affine(3, 4), Act(), Affine(4, 2))
loss = model(vg.randn(5, 3)).sum()""",
    "view = GraphView(loss)\nview",
    f"print({DONE!r})",
]


def test_module_boxes_collapse_and_open(jupyter_lab, page, artifacts_dir):
    write_notebook(jupyter_lab.root_dir / "modules.ipynb", CELLS)
    open_notebook(page, jupyter_lab, "modules.ipynb")
    run_all_cells(page)
    try:
        page.wait_for_selector(f".jp-OutputArea-output:has-text('{DONE}')", timeout=60_000)
    except PlaywrightTimeout:
        pytest.fail(f"the notebook did not finish; server log:\n{jupyter_lab.log_tail()}")
    view = cell_output(page, 1).locator(".vg-dag")
    view.locator("svg g.cluster.vg-module").first.wait_for(timeout=30_000)
    # The Sequential around everything, and one box per layer.
    assert view.locator("svg g.cluster.vg-module").count() == 4
    assert "Affine (0)" in view.locator("svg").text_content()
    assert view.locator("svg g.node").filter(has_text="0.weight").count() == 1
    page.screenshot(path=str(artifacts_dir / "modules-open.png"), full_page=True)

    # Clicking the first Affine's box collapses it into one node...
    view.locator('svg g.cluster.vg-module[id="m-0"] text').first.click()
    collapsed = view.locator('svg g.node.vg-module-collapsed[id="m-0"]')
    collapsed.wait_for(timeout=20_000)
    assert view.locator("svg g.cluster.vg-module").count() == 3
    assert view.locator("svg g.node").filter(has_text="0.weight").count() == 0
    assert "4 nodes (click to open)" in collapsed.text_content()
    page.screenshot(path=str(artifacts_dir / "modules-collapsed.png"), full_page=True)

    # ...and clicking that node opens it again.
    collapsed.click()
    view.locator('svg g.cluster.vg-module[id="m-0"]').wait_for(timeout=20_000)
    assert view.locator("svg g.node.vg-module-collapsed").count() == 0

    # The "modules" toggle draws the graph without boxes.
    toggle = view.locator(".vg-dag-modules input")
    assert toggle.is_visible() and toggle.is_checked()
    toggle.uncheck()
    page.wait_for_function(
        "root => root.querySelectorAll('svg g.cluster').length === 0",
        arg=view.element_handle(),
        timeout=20_000,
    )
    assert view.locator("svg g.node").count() == 10  # 2 addmm, 2 t, relu, 4 leaves, the sum
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert not [t for t in errors.all_inner_texts() if "Error" in t]


@pytest.fixture(autouse=True)
def _no_leftover_notebooks(jupyter_lab):
    yield
    for leftover in jupyter_lab.root_dir.glob("*.ipynb"):
        leftover.unlink()

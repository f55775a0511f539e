"""The widgets in a real JupyterLab, in Chromium: run a notebook, check what was drawn.

The notebook uses exactly the public face a lesson uses (``vizgrad.widgets``):
StrideMap, DispatchTrace, GraphView and a Timeline of a recording. The test opens it
in JupyterLab, runs all cells from the Run menu, and asserts that each front end drew
its elements (stride cells, trace rows, DAG SVG nodes), that moving the Timeline's
scrubber changes the highlighted (running) node of the DAG, and that a user name
stays text. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import time

import nbformat
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

XSS = "<img src=x onerror=alert(1)>"
DONE = "VG-NOTEBOOK-DONE"
TIME_LIMIT_S = 90

CELLS = [
    # 0: the engine and the widgets, as a lesson imports them
    f"""\
import json
import vizgrad as vg
import vizgrad.widgets as vw
from vizgrad.widgets.timeline import Replay

x = vg.arange(12.0).view(3, 4)
XSS = {XSS!r}""",
    # 1: a stride map of three views of one storage
    """vw.StrideMap(x, x.t(), x[:, ::2], names=[XSS, "x.t()", "x[:, ::2]"])""",
    # 2: a dispatch trace
    """\
with vw.DispatchTrace() as trace:
    y = x * 2 + 1.5
trace""",
    # 3: the backward DAG of a tensor
    """\
w = vg.ones(4, requires_grad=True)
loss = (x * w).sum()
vw.GraphView(loss, names={"w": w})""",
    # 4: a recording replayed on one timeline
    """\
with vw.record() as rec:
    a = vg.arange(6.0).view(2, 3).requires_grad_()
    b = vg.ones(3, requires_grad=True)
    (a * b).t().sum().backward()
timeline = vw.Timeline(rec)
timeline""",
    # 5: two steps where different backward nodes run, for the scrubber test
    """\
replay = Replay(timeline.replay.events)
running = {}
for step in range(replay.n_steps + 1):
    node = replay.states_at(step)["graph"].running
    if node and node not in running:
        running[node] = step
print("VG-RUNNING-STEPS", json.dumps(sorted(running.values())))
print("VG-NOTEBOOK-DONE")""",
]


def write_notebook(path, cells) -> None:
    """A notebook of ``cells`` (code sources) for the session's Python kernel, at ``path``."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nbformat.write(notebook, path)


def wait_for_idle_kernel(page) -> None:
    """Wait until the status bar says the notebook's kernel is connected and idle."""
    page.wait_for_selector("#jp-main-statusbar :text-matches('\\| Idle')", timeout=60_000)


def open_notebook(page, jupyter_lab, notebook: str) -> None:
    """Open ``notebook`` in JupyterLab connected to a kernel that is already running.

    Widgets need the page's widget manager to meet a live kernel: a notebook opened
    while its kernel is still starting can stay at "Loading widget..." for good
    (ipywidgets #3970), and a websocket opened too early can be refused. So the kernel
    session is created first, and once the page has seen it idle, the page is
    reloaded: the fresh page connects straight to the running kernel.
    """
    jupyter_lab.start_kernel_for(notebook)
    page.goto(jupyter_lab.lab_url(notebook))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    wait_for_idle_kernel(page)
    page.reload()
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    wait_for_idle_kernel(page)


def run_all_cells(page, attempts: int = 3) -> None:
    """Run > Run All Cells, once the kernel is up; again if no cell started.

    A notebook "runs" cells without a kernel by doing nothing, so the click waits for
    the status bar to say the kernel is idle, then checks that a cell did start.
    """
    for _ in range(attempts):
        wait_for_idle_kernel(page)
        page.click("li.lm-MenuBar-item:has-text('Run')")
        page.click("li.lm-Menu-item[data-command='runmenu:run-all']")
        try:
            page.wait_for_function(
                "() => [...document.querySelectorAll('.jp-Notebook .jp-InputPrompt')]"
                ".some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))",
                timeout=15_000,
            )
            return
        except PlaywrightTimeout:
            continue
    pytest.fail(f"Run All Cells started no cell in {attempts} attempts")


def cell_output(page, index: int):
    """The output area of the notebook's ``index``-th cell."""
    return page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea")


def running_node_id(timeline) -> str | None:
    node = timeline.locator(".vg-dag svg g.node.vg-running")
    return node.first.get_attribute("id") if node.count() else None


def wait_for_step(page, timeline, step: int) -> None:
    """Wait until the Timeline's description says it shows ``step`` (the kernel redrew)."""
    page.wait_for_function(
        "([root, step]) => { const d = root.querySelector('.vg-step-description [data-step]');"
        " return d !== null && Number(d.dataset.step) === step; }",
        arg=[timeline.element_handle(), step],
        timeout=20_000,
    )


def move_timeline_to(page, timeline, step: int) -> None:
    """Drag the Timeline's slider to ``step``: the range's value, then its input event."""
    timeline.locator(".vg-scrubber input[type=range]").evaluate(
        "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', {bubbles: true})); }",
        step,
    )
    wait_for_step(page, timeline, step)


def test_widgets_render_and_the_scrubber_moves_in_jupyterlab(jupyter_lab, page, artifacts_dir):
    started = time.monotonic()
    write_notebook(jupyter_lab.root_dir / "widgets.ipynb", CELLS)
    problems: list[str] = []

    def on_dialog(dialog):
        if dialog.type == "beforeunload":  # "leave with unsaved changes?" on reload: yes
            dialog.accept()
            return
        problems.append(f"{dialog.type}: {dialog.message}")  # alert(1) would land here
        dialog.dismiss()

    page.on("dialog", on_dialog)

    open_notebook(page, jupyter_lab, "widgets.ipynb")
    run_all_cells(page)
    try:
        page.wait_for_selector(f".jp-OutputArea-output:has-text('{DONE}')", timeout=60_000)
    except PlaywrightTimeout:
        pytest.fail(f"the notebook did not finish; server log:\n{jupyter_lab.log_tail()}")
    finally:
        page.screenshot(path=str(artifacts_dir / "lab-after-run.png"), full_page=True)
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    tracebacks = [t for t in errors.all_inner_texts() if "Traceback" in t or "Error" in t]
    assert not tracebacks, tracebacks

    # StrideMap: three grids (12 + 12 + 6 elements) over one 12-cell storage strip.
    stride_map = cell_output(page, 1)
    stride_map.locator(".vg-stride-map .vg-stride-cell").first.wait_for(timeout=30_000)
    assert stride_map.locator(".vg-stride-cell").count() == 12 + 12 + 6
    assert stride_map.locator(".vg-storage-cell").count() == 12
    stride_map.locator(".vg-stride-cell").nth(5).hover()
    stride_map.locator(".vg-storage-cell.vg-lit").first.wait_for(timeout=10_000)

    # DispatchTrace: one row per operator call.
    trace = cell_output(page, 2)
    trace.locator(".vg-dispatch-trace li.vg-trace-call").first.wait_for(timeout=30_000)
    ops = trace.locator("li.vg-trace-call").evaluate_all("els => els.map(e => e.dataset.op)")
    assert "aten::mul.Tensor" in ops and "aten::add.Tensor" in ops

    # GraphView: SVG nodes of the DAG (MulBackward0, SumBackward0, AccumulateGrad).
    graph = cell_output(page, 3)
    graph.locator(".vg-dag svg g.node").first.wait_for(timeout=30_000)
    assert graph.locator(".vg-dag svg g.node").count() >= 3
    page.screenshot(path=str(artifacts_dir / "lab-widgets.png"), full_page=True)

    # Timeline: moving the scrubber changes the highlighted node of the DAG.
    timeline = cell_output(page, 4).locator(".vg-timeline")
    timeline.locator(".vg-dag svg g.node").first.wait_for(timeout=30_000)
    assert timeline.locator(".vg-stride-cell").count() > 0
    printed = cell_output(page, 5).inner_text()
    steps = json.loads(printed.split("VG-RUNNING-STEPS", 1)[1].splitlines()[0])
    assert len(steps) >= 2, printed
    move_timeline_to(page, timeline, steps[0])
    timeline.locator(".vg-dag svg g.node.vg-running").first.wait_for(timeout=20_000)
    first = running_node_id(timeline)
    page.screenshot(path=str(artifacts_dir / "lab-timeline-step-a.png"), full_page=True)
    move_timeline_to(page, timeline, steps[1])
    page.wait_for_function(
        "([root, before]) => { const n = root.querySelector('.vg-dag svg g.node.vg-running');"
        " return n && n.id !== before; }",
        arg=[timeline.element_handle(), first],
        timeout=20_000,
    )
    second = running_node_id(timeline)
    assert first and second and first != second
    page.screenshot(path=str(artifacts_dir / "lab-timeline-step-b.png"), full_page=True)

    # The step buttons move one step.
    timeline.locator("button.vg-step-back").click()
    wait_for_step(page, timeline, steps[1] - 1)
    timeline.locator("button.vg-step-forward").click()
    wait_for_step(page, timeline, steps[1])

    # A user name is text in the widget: no element made from it, no script run.
    assert XSS in stride_map.inner_text()
    assert page.locator(".jp-OutputArea img").count() == 0
    assert not problems, problems
    assert time.monotonic() - started < TIME_LIMIT_S, "the JupyterLab test took too long"


@pytest.fixture(autouse=True)
def _no_leftover_notebooks(jupyter_lab):
    yield
    for leftover in jupyter_lab.root_dir.glob("*.ipynb"):
        leftover.unlink()

"""The lessons in a real JupyterLab, in Chromium: every lesson runs and its views draw.

Each test copies a lesson notebook, exactly as stored in ``notebooks/``, into the
session JupyterLab's root directory, opens it, runs all cells from the Run menu and
waits until every code cell has an execution count. Then it asserts what a student
would see: no cell raised, the exercise cells show their feedback box ("Not answered
yet" for a notebook as stored), the views drew (StrideMap grids and storage strips,
the Timeline's DAG) and answer to the mouse (hovering an element lights a cell), and
the start page links to all ten lessons; the start page's Timeline gives its DAG room
(full size, stacked under the stride map or beside it in a wide notebook). Every other
lesson runs the same way: every widget drew (none left "Loading widget..." or "Error
displaying widget") and no view's error box shows an error the lesson did not make on
purpose.
Screenshots go to ``test-artifacts/``.

The JupyterLab plumbing (opening a notebook on a running kernel, Run All with
retries) is ``test_lab``'s; this module only adds what lessons need.
"""

from __future__ import annotations

import shutil
import time
import urllib.parse
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from test_lab import cell_output, open_notebook, run_all_cells
from vizgrad.lessons.catalog import LESSONS

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
START_PAGE = "00-start-here.ipynb"
STRIDES = "02-strides.ipynb"
TIME_LIMIT_S = 90
# Every code cell numbered, or a traceback shown (Run All stops at the first error).
ALL_CELLS_RAN_JS = """(expected) => {
  const errors = [...document.querySelectorAll(
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')];
  if (errors.some(e => e.textContent.includes('Traceback'))) return true;
  const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
  return prompts.length === expected && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
}"""


def code_cell_indices(notebook: nbformat.NotebookNode, exercises: bool = False) -> list[int]:
    """Positions (among all cells, as the page numbers them) of the code / exercise cells."""
    return [
        i
        for i, cell in enumerate(notebook.cells)
        if cell.cell_type == "code"
        and (not exercises or "exercise" in cell.metadata.get("tags", []))
    ]


def file_name(href: str) -> str:
    """The file a link points at (JupyterLab rewrites ``02-x.ipynb`` to ``/files/02-x.ipynb?_xsrf=``)."""
    return urllib.parse.unquote(urllib.parse.urlsplit(href).path).rsplit("/", 1)[-1]


def tracebacks_on(page) -> list[str]:
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    return [text for text in errors.all_inner_texts() if "Traceback" in text]


def run_lesson(page, jupyter_lab, artifacts_dir, name: str) -> nbformat.NotebookNode:
    """Open the stored lesson ``name`` in JupyterLab, run all its cells, check none failed."""
    shutil.copy(NOTEBOOKS / name, jupyter_lab.root_dir / name)
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    open_notebook(page, jupyter_lab, name)
    run_all_cells(page)
    shot = artifacts_dir / f"lab-lesson-{name.removesuffix('.ipynb')}.png"
    try:
        page.wait_for_function(
            ALL_CELLS_RAN_JS, arg=len(code_cell_indices(notebook)), timeout=60_000
        )
    except PlaywrightTimeout:
        pytest.fail(f"{name} did not finish running; server log:\n{jupyter_lab.log_tail()}")
    finally:
        page.screenshot(path=str(shot), full_page=True)
    tracebacks = tracebacks_on(page)
    assert not tracebacks, f"{name} raised:\n" + "\n\n".join(tracebacks)
    return notebook


def assert_stride_map_reacts_to_hover(stride_map, n_elements: int, n_storage: int) -> None:
    """The StrideMap drew its grids and strip; hovering an element lights a storage cell."""
    stride_map.locator(".vg-stride-map .vg-stride-cell").first.wait_for(timeout=30_000)
    assert stride_map.locator(".vg-stride-cell").count() == n_elements
    assert stride_map.locator(".vg-storage-cell").count() == n_storage
    assert stride_map.locator(".vg-lit").count() == 0
    # Hovering lights the element and its storage cell in one handler; both are read in
    # one evaluation. Outputs of later cells still rendering can move the element from
    # under the pointer (a mouseleave that rightly unlights it), so the hover is retried.
    both_lit = stride_map.locator(".vg-stride-map")
    for _ in range(3):
        stride_map.locator(".vg-stride-cell").nth(1).hover()
        lit = both_lit.evaluate(
            "root => !!root.querySelector('.vg-stride-cell.vg-lit')"
            " && !!root.querySelector('.vg-storage-cell.vg-lit')"
        )
        if lit:
            break
        time.sleep(0.5)
    assert lit, "hovering an element lit no storage cell"


def dag_scale(timeline) -> float:
    """How much the Timeline's DAG is shrunk: drawn width / the SVG's own width (1: full size)."""
    return timeline.locator(".vg-dag-canvas svg").evaluate(
        "svg => svg.getBoundingClientRect().width / svg.width.baseVal.value"
    )


def assert_timeline_layout(page, timeline, artifacts_dir) -> None:
    """The Timeline gives its DAG room: full size in a notebook of ordinary width (views
    stacked), and stride map and DAG side by side in a wide one."""
    timeline.locator(".vg-dag").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "lab-timeline-layout.png"))
    canvas = timeline.locator(".vg-dag-canvas").bounding_box()
    assert canvas["width"] >= 360, canvas  # DAG_MIN_WIDTH in widgets/timeline.py
    assert dag_scale(timeline) > 0.99, "the Timeline's DAG is squeezed"

    page.set_viewport_size({"width": 2400, "height": 1000})
    page.wait_for_function(
        "root => { const [s, d] = ['.vg-stride-map', '.vg-dag'].map("
        "  c => root.querySelector(c).getBoundingClientRect());"
        " return Math.abs(s.top - d.top) < 2 && s.right <= d.left; }",
        arg=timeline.element_handle(),
        timeout=10_000,
    )
    timeline.locator(".vg-scrubber").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "lab-timeline-layout-wide.png"))
    assert dag_scale(timeline) > 0.99, "the Timeline's DAG is squeezed in a wide notebook"
    page.set_viewport_size({"width": 1400, "height": 1000})


@pytest.fixture
def dialogs(page):
    """Unexpected dialogs (an alert would mean a name ran as script) are collected."""
    seen: list[str] = []

    def on_dialog(dialog):
        if dialog.type == "beforeunload":  # "leave with unsaved changes?" on reload: yes
            dialog.accept()
            return
        seen.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    return seen


def test_start_page_runs_links_every_lesson_and_draws(jupyter_lab, page, dialogs, artifacts_dir):
    started = time.monotonic()
    notebook = run_lesson(page, jupyter_lab, artifacts_dir, START_PAGE)

    # The lesson table: one link per lesson of the catalog, to its notebook file.
    links = page.locator(".jp-Notebook .jp-MarkdownOutput a").evaluate_all(
        "els => els.map(a => [a.textContent.trim(), a.getAttribute('href') || ''])"
    )
    linked = {file_name(href): text for text, href in links}
    for lesson in LESSONS:
        assert linked.get(lesson.notebook) == lesson.title, (lesson, links)
    assert len(LESSONS) == 17

    # The exercise demo cell shows a feedback box.
    demo = cell_output(page, code_cell_indices(notebook)[0])
    demo.locator(".vg-feedback").wait_for(timeout=30_000)

    # x and x.t() over one 6-element storage, answering to the mouse.
    stride_cell = next(i for i in code_cell_indices(notebook)
                       if "StrideMap(" in notebook.cells[i].source)  # fmt: skip
    assert_stride_map_reacts_to_hover(cell_output(page, stride_cell), 6 + 6, 6)

    # The teachers' replay: rec.show() draws a Timeline with its DAG.
    timeline_cell = next(i for i in code_cell_indices(notebook)
                         if "rec.show()" in notebook.cells[i].source)  # fmt: skip
    timeline = cell_output(page, timeline_cell).locator(".vg-timeline")
    timeline.locator(".vg-dag svg g.node").first.wait_for(timeout=30_000)
    assert_timeline_layout(page, timeline, artifacts_dir)
    assert_every_view_drew_without_an_error(page, START_PAGE)
    assert not tracebacks_on(page)
    assert not dialogs, dialogs
    assert time.monotonic() - started < TIME_LIMIT_S, "the start page took too long"


def test_strides_lesson_runs_with_feedback_and_stride_maps(
    jupyter_lab, page, dialogs, artifacts_dir
):
    started = time.monotonic()
    notebook = run_lesson(page, jupyter_lab, artifacts_dir, STRIDES)

    # Every exercise, unanswered as stored, says so in its feedback box.
    exercises = code_cell_indices(notebook, exercises=True)
    assert len(exercises) >= 3
    for index in exercises:
        feedback = cell_output(page, index).locator(".vg-feedback")
        feedback.wait_for(timeout=30_000)
        # text_content: JupyterLab skips the layout of cells out of view, so innerText is "".
        text = feedback.text_content()
        assert "Not answered yet" in text, (index, text)

    # x, x.t() and x[:, ::2] of a 3×4 tensor over one 12-cell storage, plus the 2×2 view the
    # next cell builds with the editor (stride_map.edit((2, 2), (4, 1), 5)): the map is live.
    stride_cell = next(i for i in code_cell_indices(notebook)
                       if "StrideMap(" in notebook.cells[i].source)  # fmt: skip
    stride_map = cell_output(page, stride_cell)
    assert_stride_map_reacts_to_hover(stride_map, 12 + 12 + 6 + 2 * 2, 12)
    page.screenshot(path=str(artifacts_dir / "lab-lesson-02-strides-hover.png"), full_page=True)
    # The lesson shows the editor refusing a view outside the storage, on purpose.
    assert_every_view_drew_without_an_error(
        page, STRIDES, shows=("out of bounds for storage of size 96",)
    )
    assert not tracebacks_on(page)
    assert not dialogs, dialogs
    assert time.monotonic() - started < TIME_LIMIT_S, "lesson 2 took too long"


WIDGET_OUTPUTS = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.widget-view+json']"
# Every widget output drew something, and none is still loading or failed to display.
WIDGETS_DREW_JS = """(selector) => [...document.querySelectorAll(selector)].every(
  o => o.querySelector('*') !== null
       && !/Loading widget|Error displaying widget/.test(o.textContent))"""


def assert_every_view_drew_without_an_error(page, name: str, shows: tuple = ()) -> None:
    """Each widget of the lesson drew, and no view shows an error in its error box but
    the ones the lesson makes on purpose (``shows``: a piece of each one's text)."""
    try:
        page.wait_for_function(WIDGETS_DREW_JS, arg=WIDGET_OUTPUTS, timeout=60_000)
    except PlaywrightTimeout:
        stuck = [t[:200] for t in page.locator(WIDGET_OUTPUTS).all_text_contents()
                 if "Loading widget" in t or "Error displaying widget" in t]  # fmt: skip
        pytest.fail(f"{name}: a widget did not draw: {stuck}")
    shown = [t for t in page.locator(".vg-error").all_text_contents() if t.strip()]
    unexpected = [t for t in shown if not any(piece in t for piece in shows)]
    assert not unexpected, f"{name}: a view shows an error: {unexpected}"
    assert len(shown) == len(shows), (name, shown, shows)


# A plotly chart drew: its root holds plotly's SVG with at least one trace (lines, markers,
# a contour, a heatmap) - not an empty frame, not plotly's "loading" placeholder.
PLOTLY_CHARTS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(chart =>
  chart.querySelectorAll('.main-svg .trace, .main-svg .contour, .main-svg .hm, '
                         + '.main-svg image').length)"""


def assert_plotly_charts_drew(page, name: str, artifacts_dir) -> None:
    """A lesson that uses plotly shows its charts, each with something drawn in it."""
    try:
        page.wait_for_function(f"() => ({PLOTLY_CHARTS_JS})().length > 0", timeout=60_000)
    except PlaywrightTimeout:
        pytest.fail(f"{name}: no plotly chart drew")
    traces = page.evaluate(PLOTLY_CHARTS_JS)
    page.screenshot(path=str(artifacts_dir / f"lab-{name}-plotly.png"), full_page=True)
    assert all(count > 0 for count in traces), f"{name}: an empty plotly chart: {traces}"


OTHER_LESSONS = [lesson.notebook for lesson in LESSONS if lesson.notebook != STRIDES]


@pytest.mark.parametrize("name", OTHER_LESSONS)
def test_every_lesson_runs_and_its_views_draw_without_an_error(
    jupyter_lab, page, dialogs, artifacts_dir, name
):
    """Lessons 1 and 3 to 10 as a student runs them: Run All, every cell ran, no
    traceback, every widget drew, no view shows an error, no dialog."""
    started = time.monotonic()
    notebook = run_lesson(page, jupyter_lab, artifacts_dir, name)
    assert code_cell_indices(notebook)
    assert_every_view_drew_without_an_error(page, name)
    if any("plotly" in cell.source for cell in notebook.cells):
        assert_plotly_charts_drew(page, name, artifacts_dir)
    assert not dialogs, dialogs
    assert time.monotonic() - started < TIME_LIMIT_S, f"{name} took too long"


@pytest.fixture(autouse=True)
def _fresh_root(jupyter_lab):
    """Each test leaves no notebook and no kernel behind for the next."""
    yield
    for session in jupyter_lab.api("GET", "sessions"):
        if session["path"] in (START_PAGE, STRIDES, *OTHER_LESSONS):
            jupyter_lab.api("DELETE", f"sessions/{session['id']}")
    for leftover in jupyter_lab.root_dir.glob("*.ipynb"):
        leftover.unlink()

"""The views' controls in JupyterLab, in Chromium, as a student uses them.

One notebook, run from the Run menu; then the test clicks and checks what is drawn:

* the StrideMap's as_strided editor builds a view of the storage, "remove view" drops
  it, a view vizgrad refuses shows vizgrad's message, and an error raised while the
  map answers a click shows in the map itself (not only in the kernel's log);
* a GraphView does not animate a backward pass of another graph that shares a leaf
  with its own (lesson 6), and does animate its own;
* the Timeline's dispatch trace shows a call that has not returned as in progress
  (lesson 7), with what autograd decided, not "nothing recorded";
* ``rec.show(names=...)`` draws a named tensor made before the recording with its shape;
* the storage strips' positions are readable (full size in a replay), hints wrap
  between words and solutions keep their lines;
* the StrideMap's slice slider moves a 3-D tensor's grid to another slice, and a click
  selects an element, which stays lit with its arithmetic when the mouse leaves;
* the DispatchTrace's filter keeps one operator's calls, and its toggle shows the
  text view and the tree again;
* the GraphView's "saved tensors" and "values" toggles add and remove what they
  name, and its backward-step controls (◀, ▶, slider, play/pause) move the drawing;
* the Timeline's play button plays, pauses where it is, and stops at the last step;
* the DispatchTrace of a dense, a sparse and a meta call shows each call's backend key
  (CPU, SparseCPU, Meta) with what the dispatcher decided.

(The exported page's controls are ``test_export_browser``'s.)

Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from test_lab import (
    cell_output,
    move_timeline_to,
    open_notebook,
    run_all_cells,
    wait_for_step,
    write_notebook,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
DONE = "VG-CONTROLS-DONE"
NOTEBOOK = "controls.ipynb"

CELLS = [
    # 0: where the kernel imports the views from (the tests check it is this checkout)
    """\
import vizgrad as vg
import vizgrad.widgets as vw
print("VG-WIDGETS-FILE", vw.__file__)
x = vg.arange(12.0)""",
    # 1: the stride map with its editor
    """vw.StrideMap(x, names=["x"])""",
    # 2: a map whose "remove view" fails, as a bug in the view would
    """\
class BrokenMap(vw.StrideMap):
    def clear_edit(self):
        raise KeyError("storage #9")

BrokenMap(x, names=["x"])""",
    # 3, 4: lesson 6: a view of loss, then a backward pass of another graph of the same w
    """\
w = vg.tensor([0.5, -1.0, 2.0], requires_grad=True)
loss = (w * vg.tensor([1.0, 2.0, 3.0])).sum()
vw.GraphView(loss, names={"w": w})""",
    """\
s = w.sin()
s.sum().backward()""",
    # 5, 6: and a view whose own graph runs backward
    """\
w2 = vg.tensor([0.5, -1.0, 2.0], requires_grad=True)
loss2 = (w2 * w2).sum()
vw.GraphView(loss2, names={"w2": w2})""",
    "loss2.backward()",
    # 7, 8: lesson 7's replay, and the step inside its add call (after the CPU key)
    """\
from vizgrad.lessons import lesson07 as L7
with vw.record() as rec7:
    t7 = L7.example_graph()
    t7["loss"].backward()
rec7.show()""",
    """\
add_call = next(i for i, d in enumerate(rec7.event_dicts())
                if d["kind"] == "op_dispatched" and d["op"] == "aten::add.Tensor")
print("VG-ADD-STEP", add_call + 2)""",
    # 9: a replay with names, of a tensor made before the recording started
    """\
w9 = vg.tensor([0.5, -1.0, 2.0], requires_grad=True)
with vw.record() as rec9:
    (w9 * 3).sum().backward()
rec9.show(names={"w": w9})""",
    # 10, 11: a hint (prose) and a solution (code), as a lesson shows them
    """\
from vizgrad.lessons import hint, solution
hint("02.column_major")""",
    """solution("02.formula")""",
    # 12: a 3-D tensor: the map shows one 2-D slice, chosen with a slider
    """\
x3 = vg.arange(24.0).view(2, 3, 4)
vw.StrideMap(x3, names=["x3"])""",
    # 13: a dispatch trace of several calls, to filter and to read as text
    """\
with vw.DispatchTrace() as trace13:
    y13 = (x * 2 + 1).sum()
    z13 = x.mul(3)
trace13""",
    # 14, 15: a GraphView with saved tensors, then its own backward pass, to step through
    """\
w14 = vg.tensor([0.5, -1.0, 2.0], requires_grad=True)
loss14 = (w14.exp() * w14).sum()
vw.GraphView(loss14, names={"w": w14})""",
    "loss14.backward()",
    # 16: a replay to play and pause
    """\
with vw.record() as rec16:
    w16 = vg.tensor([1.0, 2.0], requires_grad=True)
    (w16 * w16 + w16).sum().backward()
rec16.show()""",
    # 17: a float32 matrix and its bytes read as int16: each reading has its own strip
    """\
x17 = vg.arange(6.0).reshape(2, 3)
vw.StrideMap(x17, x17.view(vg.int16), names=["x17", "as int16"])""",
    # 18: the first dispatch choosing among three backends (lesson 5)
    """\
d18 = vg.tensor([[0.0, 2.0], [3.0, 0.0]])
with vw.DispatchTrace() as trace18:
    d18 * 2
    d18.to_sparse() * 2
    vg.empty(2, 2, device="meta") * 2
trace18""",
    f"print({DONE!r})",
]


def edit(stride_map, size: str, stride: str, offset: str) -> None:
    """Type into the editor's fields and press its as_strided button."""
    stride_map.locator(".vg-edit-size").fill(size)
    stride_map.locator(".vg-edit-stride").fill(stride)
    stride_map.locator(".vg-edit-offset").fill(offset)
    stride_map.locator("button.vg-edit-apply").click()


@pytest.fixture(scope="module")
def notebook_page(jupyter_lab, browser):
    """The notebook, run once, in a page of its own that every test of this module uses
    (each test clicks in its own cells). The session's notebook and kernel go after."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.on("dialog", lambda dialog: dialog.accept() if dialog.type == "beforeunload"
            else dialog.dismiss())  # fmt: skip
    try:
        write_notebook(jupyter_lab.root_dir / NOTEBOOK, CELLS)
        open_notebook(page, jupyter_lab, NOTEBOOK)
        run_all_cells(page)
        try:
            page.wait_for_selector(f".jp-OutputArea-output:has-text('{DONE}')",
                                   timeout=90_000)  # fmt: skip
        except PlaywrightTimeout:
            pytest.fail(f"the notebook did not finish; server log:\n{jupyter_lab.log_tail()}")
        printed = cell_output(page, 0).text_content()
        widgets_file = printed.split("VG-WIDGETS-FILE", 1)[1].split()[0]
        assert Path(widgets_file).resolve().is_relative_to(REPO_ROOT.resolve()), (
            f"the kernel imports the views from {widgets_file}, not from this checkout "
            f"({REPO_ROOT}): run with PYTHONPATH={REPO_ROOT}"
        )
        errors = page.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
        )
        assert not [t for t in errors.all_text_contents() if "Traceback" in t]
        yield page
    finally:
        context.close()
        for session in jupyter_lab.api("GET", "sessions"):
            if session["path"] == NOTEBOOK:
                jupyter_lab.api("DELETE", f"sessions/{session['id']}")
        (jupyter_lab.root_dir / NOTEBOOK).unlink(missing_ok=True)


def test_the_stride_maps_editor_and_remove_view_work(notebook_page, artifacts_dir):
    page = notebook_page
    stride_map = cell_output(page, 1).locator(".vg-stride-map")
    stride_map.locator(".vg-stride-cell").first.wait_for(timeout=30_000)
    assert stride_map.locator(".vg-stride-view").count() == 1

    edit(stride_map, "3, 3", "2, 1", "1")
    added = stride_map.locator(".vg-stride-view").nth(1)
    added.wait_for(timeout=20_000)
    assert "as_strided" in added.locator(".vg-view-title").inner_text()
    assert "shape (3, 3) stride (2, 1) offset 1" in added.locator(".vg-view-meta").inner_text()
    assert added.locator(".vg-stride-cell").count() == 9
    assert not stride_map.locator(".vg-error").is_visible()
    page.screenshot(path=str(artifacts_dir / "controls-as-strided.png"), full_page=True)

    stride_map.locator("button.vg-edit-clear").click()
    page.wait_for_function(
        "root => root.querySelectorAll('.vg-stride-view').length === 1",
        arg=stride_map.element_handle(), timeout=20_000,
    )  # fmt: skip

    # A view outside the storage: vizgrad's message, and the map as it was.
    edit(stride_map, "13", "1", "0")
    error = stride_map.locator(".vg-error")
    error.wait_for(state="visible", timeout=20_000)
    assert "out of bounds for storage of size 48" in error.inner_text()
    assert stride_map.locator(".vg-stride-view").count() == 1

    # An error while answering a click shows in the map, in words.
    broken = cell_output(page, 2).locator(".vg-stride-map")
    broken.locator(".vg-stride-cell").first.wait_for(timeout=30_000)
    broken.locator("button.vg-edit-clear").click()
    shown = broken.locator(".vg-error")
    shown.wait_for(state="visible", timeout=20_000)
    text = shown.inner_text()
    assert text.startswith("Could not finish removing the as_strided view: KeyError:"), text
    assert "Run the cell that made this view again" in text
    shown.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "controls-error-in-view.png"), full_page=True)


def test_a_graph_view_animates_only_its_own_backward_pass(notebook_page, artifacts_dir):
    page = notebook_page
    # text_content, not inner_text: JupyterLab does not lay out cells out of view.
    other = cell_output(page, 3).locator(".vg-dag")
    other.locator("svg g.node").first.wait_for(timeout=30_000)
    other.scroll_into_view_if_needed()
    steps = other.locator(".vg-dag-steps").evaluate("e => e.style.display")
    assert steps == "none"  # no backward step to show
    assert other.locator(".vg-dag-phase").text_content() == "forward: 3 nodes recorded"
    assert other.locator("svg g.node.vg-done, svg g.node.vg-running").count() == 0
    assert "SinBackward0" not in other.locator("svg").text_content()

    own = cell_output(page, 5).locator(".vg-dag")
    own.locator(".vg-dag-steps").wait_for(state="attached", timeout=30_000)
    own.scroll_into_view_if_needed()
    page.wait_for_function(
        "root => root.querySelector('.vg-dag-steps').style.display === ''",
        arg=own.element_handle(), timeout=30_000,
    )  # fmt: skip
    label = own.locator(".vg-dag-step-label").text_content()
    assert label.startswith("backward step ") and label.split("/")[0].split()[-1] == (
        label.split("/")[1].strip())  # the last step shown  # fmt: skip
    assert own.locator(".vg-dag-phase").text_content() == "backward done"
    page.screenshot(path=str(artifacts_dir / "controls-own-backward.png"), full_page=True)


def test_the_timeline_shows_a_running_call_as_in_progress(notebook_page, artifacts_dir):
    page = notebook_page
    timeline = cell_output(page, 7).locator(".vg-timeline")
    timeline.locator(".vg-dag svg g.node").first.wait_for(timeout=30_000)
    step = int(cell_output(page, 8).text_content().split("VG-ADD-STEP", 1)[1].split()[0])
    move_timeline_to(page, timeline, step)
    current = timeline.locator("li.vg-trace-call.vg-trace-current")
    current.wait_for(timeout=20_000)
    assert current.get_attribute("data-op") == "aten::add.Tensor"
    text = current.inner_text()
    assert "in progress: not returned yet" in text, text
    assert "records AddBackward0 once the kernel returns (call in progress)" in text, text
    assert "nothing recorded" not in text
    current.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "controls-call-in-progress.png"), full_page=True)

    # Once it returned: what autograd recorded, and no "in progress".
    returned = step + next(
        k for k in range(1, 12)
        if "returned" in _description_after(page, timeline, step + k)
    )  # fmt: skip
    text = timeline.locator("li.vg-trace-call.vg-trace-current").inner_text()
    assert "recorded AddBackward0" in text and "in progress" not in text, (returned, text)


def test_show_with_names_draws_a_tensor_made_before_recording(notebook_page, artifacts_dir):
    page = notebook_page
    output = cell_output(page, 9)
    timeline = output.locator(".vg-timeline")
    timeline.locator(".vg-dag svg g.node").first.wait_for(timeout=30_000)
    drawn = timeline.locator(".vg-dag svg").text_content()
    assert "w: [3] float32" in drawn and "shape unknown" not in drawn, drawn
    assert output.locator("[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
    timeline.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "controls-show-names.png"), full_page=True)


def font_px(locator) -> float:
    return float(locator.evaluate("e => getComputedStyle(e).fontSize").removesuffix("px"))


def test_storage_positions_are_readable_and_hints_wrap_between_words(notebook_page,
                                                                    artifacts_dir):  # fmt: skip
    page = notebook_page
    # A replay has no values: each storage cell's text is its position, at full size.
    replayed = cell_output(page, 9).locator(".vg-timeline .vg-storage-cell")
    replayed.first.wait_for(timeout=30_000)
    for k in range(replayed.count()):
        cell = replayed.nth(k)
        assert cell.text_content() == cell.get_attribute("data-pos")
        assert font_px(cell) >= 12
    replayed.first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "controls-replay-strip.png"))
    # Live, the position sits under the value, still readable.
    live = cell_output(page, 1).locator(".vg-storage-cell").nth(5)
    assert live.locator(".vg-pos").text_content() == "5"
    assert font_px(live.locator(".vg-pos")) >= 10

    # Prose wraps between words in a narrow notebook; code keeps its lines.
    page.set_viewport_size({"width": 700, "height": 1000})
    shown = cell_output(page, 10).locator(".vg-lesson-hint")
    shown.wait_for(timeout=20_000)
    style = shown.evaluate("e => [e.tagName, getComputedStyle(e).wordBreak, "
                           "getComputedStyle(e).whiteSpace]")  # fmt: skip
    assert style == ["DIV", "normal", "pre-line"], style
    # Every word is on one line: a word broken in the middle would need two line boxes.
    broken = shown.evaluate(
        """e => { const words = [], text = e.firstChild, re = /\\S+/g; let m;
           while ((m = re.exec(text.data))) {
             const r = document.createRange(); r.setStart(text, m.index);
             r.setEnd(text, m.index + m[0].length);
             if (r.getClientRects().length > 1) words.push(m[0]); }
           return words; }"""
    )
    assert broken == [], broken
    code = cell_output(page, 11).locator("pre.vg-lesson-solution")
    assert code.evaluate("e => getComputedStyle(e).whiteSpace") == "pre"
    shown.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "controls-hint-narrow.png"), full_page=True)
    page.set_viewport_size({"width": 1400, "height": 1000})


def _description_after(page, timeline, step: int) -> str:
    move_timeline_to(page, timeline, step)
    return timeline.locator(".vg-step-description").inner_text()


def test_the_stride_maps_slice_slider_and_click_selection(notebook_page, artifacts_dir):
    page = notebook_page
    stride_map = cell_output(page, 12).locator(".vg-stride-map")
    stride_map.locator(".vg-stride-cell").first.wait_for(timeout=30_000)
    stride_map.scroll_into_view_if_needed()
    indexes = "root => [...root.querySelectorAll('.vg-stride-cell')].map(c => c.dataset.index)"
    # x3 is (2, 3, 4): the grid is the 3 x 4 slice x3[0], over the 24-cell storage.
    shown = stride_map.evaluate(indexes)
    assert len(shown) == 12 and all(i.startswith("0,") for i in shown), shown
    assert stride_map.locator(".vg-storage-cell").count() == 24

    # The slider of dim 0 moves the grid to x3[1], whose elements sit at 12 .. 23.
    stride_map.locator("input.vg-slice").evaluate(
        "el => { el.value = '1'; el.dispatchEvent(new Event('input'));"
        " el.dispatchEvent(new Event('change')); }"
    )
    page.wait_for_function(
        "root => root.querySelector('.vg-stride-cell').dataset.index.startsWith('1,')",
        arg=stride_map.element_handle(), timeout=20_000,
    )  # fmt: skip
    assert stride_map.locator(".vg-slice-value").inner_text() == "1"
    positions = stride_map.locator(".vg-stride-cell").evaluate_all(
        "cells => cells.map(c => c.dataset.pos).map(Number)"
    )
    assert positions == list(range(12, 24)), positions

    # A click selects an element: it stays lit, with its arithmetic, once the mouse leaves.
    cell = stride_map.locator(".vg-stride-cell[data-index='1,2,3']")
    cell.click()
    page.wait_for_function(
        "root => root.querySelector('.vg-arithmetic').textContent.includes('[1, 2, 3]')",
        arg=stride_map.element_handle(), timeout=20_000,
    )  # fmt: skip
    stride_map.locator(".vg-view-title").first.hover()
    assert "vg-lit" in (cell.get_attribute("class") or "")
    assert stride_map.locator(".vg-storage-cell.vg-lit").get_attribute("data-pos") == "23"
    arithmetic = stride_map.locator(".vg-arithmetic").inner_text()
    assert "[1, 2, 3]" in arithmetic and "23" in arithmetic, arithmetic
    page.screenshot(path=str(artifacts_dir / "controls-slice-and-selection.png"))


def test_the_dispatch_traces_filter_and_text_view(notebook_page, artifacts_dir):
    page = notebook_page
    trace = cell_output(page, 13).locator(".vg-dispatch-trace")
    trace.locator("li.vg-trace-call").first.wait_for(timeout=30_000)
    trace.scroll_into_view_if_needed()
    every_op = "els => els.map(e => e.dataset.op)"
    ops = trace.locator("li.vg-trace-call").evaluate_all(every_op)
    # (x * 2 + 1).sum() and x.mul(3): four calls.
    assert ops == ["aten::mul.Tensor", "aten::add.Tensor", "aten::sum", "aten::mul.Tensor"]
    assert trace.locator(".vg-trace-count").inner_text() == "4 calls"

    # Typing in the filter keeps the calls of that operator.
    trace.locator("input.vg-trace-filter").fill("mul")
    trace.locator(".vg-trace-count:has-text('2 of 4 calls')").wait_for(timeout=20_000)
    kept = trace.locator("li.vg-trace-call").evaluate_all(every_op)
    assert kept and all("mul" in op for op in kept), kept
    page.screenshot(path=str(artifacts_dir / "controls-trace-filtered.png"))
    trace.locator("input.vg-trace-filter").fill("")
    trace.locator(".vg-trace-count:has-text('4 calls')").wait_for(timeout=20_000)

    # The text view: torch's dispatch-trace lines, then back to the tree.
    toggle = trace.locator("button.vg-trace-toggle")
    assert toggle.inner_text() == "show text (dispatch_trace)"
    toggle.click()
    text = trace.locator("pre.vg-trace-text")
    text.wait_for(timeout=20_000)
    assert "aten::sum" in text.inner_text() and toggle.inner_text() == "show tree"
    toggle.click()
    trace.locator("li.vg-trace-call").first.wait_for(timeout=20_000)
    assert trace.locator("pre.vg-trace-text").count() == 0


def test_the_graph_views_toggles_and_backward_steps(notebook_page, artifacts_dir):
    page = notebook_page
    view = cell_output(page, 14).locator(".vg-dag")
    view.locator("svg g.node").first.wait_for(timeout=30_000)
    view.scroll_into_view_if_needed()
    drawn = lambda: view.locator(".vg-dag-canvas svg").text_content()  # noqa: E731
    nodes = lambda: view.locator(".vg-dag-canvas svg g.node").count()  # noqa: E731
    before = nodes()
    assert "saved" not in drawn() and "= [" not in drawn()

    # "saved tensors": one dashed box per tensor saved for backward (exp: its result;
    # mul: both factors), each tied to its node.
    view.locator(".vg-dag-saved input").check()
    page.wait_for_function(
        "([root, n]) => root.querySelectorAll('.vg-dag-canvas svg g.node').length === n",
        arg=[view.element_handle(), before + 3], timeout=20_000,
    )  # fmt: skip
    assert drawn().count("saved") == 3
    # "values": each tensor's values under its name.
    view.locator(".vg-dag-values input").check()
    page.wait_for_function(
        "root => root.querySelector('.vg-dag-canvas svg').textContent.includes('= [')",
        arg=view.element_handle(), timeout=20_000,
    )  # fmt: skip
    page.screenshot(path=str(artifacts_dir / "controls-graph-saved-values.png"))
    view.locator(".vg-dag-saved input").uncheck()
    page.wait_for_function(
        "([root, n]) => root.querySelectorAll('.vg-dag-canvas svg g.node').length === n",
        arg=[view.element_handle(), before], timeout=20_000,
    )  # fmt: skip
    assert "= [" in drawn()
    view.locator(".vg-dag-values input").uncheck()

    # The backward steps (cell 15 ran loss14.backward()): shown at the last step.
    label = view.locator(".vg-dag-step-label")
    label.wait_for(timeout=30_000)
    total = int(label.inner_text().split("/")[1])

    def wait_for_step(k: int) -> None:
        view.locator(f".vg-dag-step-label:text-is('backward step {k} / {total}')").wait_for(
            timeout=20_000
        )

    wait_for_step(total)
    view.locator("button.vg-dag-prev").click()
    wait_for_step(total - 1)
    view.locator(".vg-dag-steps input[type=range]").evaluate(
        "el => { el.value = '0'; el.dispatchEvent(new Event('input')); }"
    )
    wait_for_step(1)
    # The drawing follows the label: at step 1 no node has run; by the last, all have.
    done = "([root, n]) => root.querySelectorAll('svg g.node.vg-done').length === n"
    page.wait_for_function(done, arg=[view.element_handle(), 0], timeout=20_000)
    view.locator("button.vg-dag-next").click()
    wait_for_step(2)
    # Play runs on by itself to the end, then stops; pause stops it where it is.
    play = view.locator("button.vg-dag-play")
    play.click()
    assert play.inner_text() == "❚❚ pause"
    wait_for_step(4)
    play.click()
    assert play.inner_text() == "▶ play"
    paused = label.inner_text()
    page.wait_for_timeout(1500)
    assert label.inner_text() == paused
    view.locator("button.vg-dag-prev").click()  # nothing left of a timer that moves it
    view.locator(".vg-dag-steps input[type=range]").evaluate(
        f"el => {{ el.value = '{total - 3}'; el.dispatchEvent(new Event('input')); }}"
    )
    wait_for_step(total - 2)
    play.click()
    wait_for_step(total)
    view.locator("button.vg-dag-play:text-is('▶ play')").wait_for(timeout=10_000)
    assert view.locator(".vg-dag-phase").text_content() == "backward done"
    page.wait_for_function(done, arg=[view.element_handle(), before], timeout=20_000)
    page.screenshot(path=str(artifacts_dir / "controls-graph-steps.png"))


def test_the_timelines_play_and_pause(notebook_page, artifacts_dir):
    page = notebook_page
    timeline = cell_output(page, 16).locator(".vg-timeline")
    timeline.locator(".vg-dag svg g.node").first.wait_for(timeout=30_000)
    timeline.scroll_into_view_if_needed()
    play = timeline.locator(".vg-scrubber button.vg-play")
    last = int(timeline.locator(".vg-scrubber input[type=range]").get_attribute("max"))
    move_timeline_to(page, timeline, 0)
    play.click()
    assert play.inner_text() == "❚❚ pause"
    wait_for_step(page, timeline, 3)
    play.click()
    timeline.locator(".vg-scrubber button.vg-play:text-is('▶ play')").wait_for(timeout=10_000)
    paused = shown_step(timeline)
    page.wait_for_timeout(1500)
    assert shown_step(timeline) == paused < last
    # Played from the last step, it starts again from step 0 and stops at the end.
    move_timeline_to(page, timeline, last - 2)
    play.click()
    wait_for_step(page, timeline, last)
    timeline.locator(".vg-scrubber button.vg-play:text-is('▶ play')").wait_for(timeout=10_000)
    assert timeline.locator(".vg-scrubber-label").inner_text() == f"step {last} / {last}"
    page.screenshot(path=str(artifacts_dir / "controls-timeline-played.png"))


def shown_step(timeline) -> int:
    return int(timeline.locator(".vg-step-description [data-step]").get_attribute("data-step"))


def test_a_view_of_another_dtype_lights_a_cell_of_its_own_strip(notebook_page, artifacts_dir):
    page = notebook_page
    stride_map = cell_output(page, 17).locator(".vg-stride-map")
    stride_map.locator(".vg-stride-cell").first.wait_for(timeout=30_000)
    stride_map.scroll_into_view_if_needed()
    strips = stride_map.locator(".vg-storage-strip")
    assert strips.count() == 2
    titles = strips.locator(".vg-view-title").all_text_contents()
    assert "float32" in titles[0] and "read as int16" in titles[1], titles
    # 6 float32 elements are 12 int16 ones: x17.view(int16) is (2, 6), strides (6, 1).
    assert strips.nth(1).locator(".vg-storage-cell").count() == 12
    cell = stride_map.locator(".vg-stride-cell[data-view='1'][data-index='1,5']")
    cell.click()
    page.wait_for_function(
        "root => root.querySelector('.vg-arithmetic').textContent.includes('[1, 5]')",
        arg=stride_map.element_handle(), timeout=20_000,
    )  # fmt: skip
    lit = strips.nth(1).locator(".vg-storage-cell.vg-lit")
    assert lit.get_attribute("data-pos") == "11"
    assert strips.nth(0).locator(".vg-storage-cell.vg-lit").count() == 0
    arithmetic = stride_map.locator(".vg-arithmetic").inner_text()
    assert "1·6" in arithmetic and "= 11" in arithmetic, arithmetic
    page.screenshot(path=str(artifacts_dir / "controls-dtype-view.png"))


def test_the_dispatch_trace_shows_the_backend_each_call_chose(notebook_page, artifacts_dir):
    page = notebook_page
    trace = cell_output(page, 18).locator(".vg-dispatch-trace")
    trace.locator("li.vg-trace-call").first.wait_for(timeout=30_000)
    trace.scroll_into_view_if_needed()
    calls = trace.locator("li.vg-trace-call[data-op='aten::mul.Tensor']")
    assert calls.count() == 3
    backend_of = (
        "els => els.map(e => e.dataset.key).filter(k => !k.startsWith('A') && k !== 'dtype')"
    )
    keys = [calls.nth(i).locator("li.vg-trace-step").evaluate_all(backend_of) for i in range(3)]
    assert keys == [["CPU"], ["SparseCPU"], ["Meta"]], keys
    sparse_step = calls.nth(1).locator("li.vg-trace-step[data-key='SparseCPU']").inner_text()
    assert "layout sparse_coo" in sparse_step, sparse_step
    meta_step = calls.nth(2).locator("li.vg-trace-step[data-key='Meta']").inner_text()
    assert "meta device" in meta_step, meta_step
    # The factory of the meta tensor starts at BackendSelect, which reads device=.
    factory = trace.locator("li.vg-trace-call[data-op='aten::empty.memory_format']")
    steps = factory.locator("li.vg-trace-step").evaluate_all("els => els.map(e => e.dataset.key)")
    assert steps == ["BackendSelect", "Meta"], steps
    assert "device= (meta)" in factory.locator("li[data-key='BackendSelect']").inner_text()
    page.screenshot(path=str(artifacts_dir / "controls-trace-backends.png"))

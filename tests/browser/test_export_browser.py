"""An exported page (``rec.to_html``) played in Chromium from a file:// URL, offline.

Checks what only a browser can: the player draws every view, the scrubber (keyboard,
slider, buttons, play) changes what is shown, the DAG's highlighted node follows the
backward pass, user names stay text (no element, no script run), and the page asks
the network for nothing.
"""

from __future__ import annotations

import time

import pytest
from vizgrad.widgets.export import export_data, export_html
from vizgrad.widgets.recording import record

import vizgrad as vg
import vizgrad.nn.functional as F
from vizgrad import nn, optim

XSS = "<img src=x onerror=alert(1)>"
SLIDER = ".vg-scrubber input[type=range]"
RUNNING_NODE = ".vg-dag-canvas svg g.node.vg-running"
TIME_LIMIT_S = 90


def running_node(data: dict, frame: dict) -> str | None:
    """The node a frame marks as running (its overlay on its round's drawing)."""
    if frame["overlay"] < 0:
        return None
    marks = data["overlays"][frame["overlay"]]["nodes"]
    return next((f"n{node}" for node, classes, _ in marks if "vg-running" in classes), None)


@pytest.fixture
def exported(tmp_path):
    with record() as rec:
        x = vg.arange(6.0).view(2, 3).requires_grad_()
        w = vg.ones(3, requires_grad=True)
        loss = (x * w).t().sum()
        loss.backward()
    names = {XSS: x, "w": w}
    path = export_html(rec, tmp_path / "recording.html", names=names, title="browser test")
    return path, export_data(rec, names=names)


def move_slider(page, frame: int) -> None:
    """Drag the slider to ``frame`` the way the browser reports it: value, then input."""
    page.eval_on_selector(
        SLIDER,
        "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', {bubbles: true})); }",
        frame,
    )


def shown_step(page) -> int:
    return int(page.get_attribute(".vg-step-description", "data-step"))


def test_exported_page_replays_offline_in_chromium(page, exported, artifacts_dir):
    started = time.monotonic()
    path, data = exported
    frames = data["frames"]
    problems: list[str] = []
    requests: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("dialog", lambda dialog: (problems.append(f"dialog: {dialog.message}"),
                                      dialog.dismiss()))  # fmt: skip

    def only_files(route):
        requests.append(route.request.url)
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            route.abort()

    page.route("**/*", only_files)
    page.goto(path.as_uri())

    # Every view is drawn, at the last step.
    page.wait_for_selector(".vg-export[data-ready]", timeout=20_000)
    page.wait_for_selector(".vg-dag-canvas svg g.node", timeout=20_000)
    assert page.locator(".vg-stride-map .vg-stride-cell").count() > 0
    assert page.locator(".vg-stride-map .vg-storage-cell").count() > 0
    assert page.locator(".vg-dispatch-trace li.vg-trace-call").count() > 0
    assert shown_step(page) == data["n_steps"]
    assert int(page.get_attribute(SLIDER, "max")) == len(frames) - 1
    page.screenshot(path=str(artifacts_dir / "export-last-step.png"), full_page=True)

    # The slider: two backward frames with different running nodes highlight each.
    running = [(i, running_node(data, f)) for i, f in enumerate(frames)]
    running = [(i, node) for i, node in running if node]
    (first, first_node), (second, second_node) = (
        running[0],
        next((i, n) for i, n in running if n != running[0][1]),
    )
    move_slider(page, first)
    assert shown_step(page) == frames[first]["step"]
    assert page.get_attribute(RUNNING_NODE, "id") == first_node
    trace_before = page.inner_html(".vg-trace-body")
    page.screenshot(path=str(artifacts_dir / "export-backward-1.png"), full_page=True)
    move_slider(page, second)
    assert shown_step(page) == frames[second]["step"]
    assert page.get_attribute(RUNNING_NODE, "id") == second_node != first_node
    assert page.inner_html(".vg-trace-body") != trace_before
    page.screenshot(path=str(artifacts_dir / "export-backward-2.png"), full_page=True)

    # Step buttons and the keyboard move one frame.
    page.click(".vg-step-back")
    assert shown_step(page) == frames[second - 1]["step"]
    page.click(".vg-step-forward")
    assert shown_step(page) == frames[second]["step"]
    page.focus(SLIDER)
    page.keyboard.press("ArrowLeft")
    assert shown_step(page) == frames[second - 1]["step"]

    # Step 0 shows no graph yet; play moves on by itself; pause stops it.
    move_slider(page, 0)
    assert shown_step(page) == 0
    assert page.locator(".vg-dag-canvas svg g.node").count() == 0
    page.click(".vg-play")
    page.wait_for_function(
        "() => Number(document.querySelector('.vg-step-description').dataset.step) >= 2",
        timeout=10_000,
    )
    page.click(".vg-play")
    paused_at = shown_step(page)
    page.wait_for_timeout(1000)
    assert shown_step(page) == paused_at

    # A click on the overview strip moves to the step under the pointer.
    box = page.locator(".vg-overview").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.56, box["y"] + box["height"] / 2)
    # The strip's first 12% names the lanes: 56% of the width is the middle frame.
    middle = frames[round(0.5 * (len(frames) - 1))]["step"]
    assert abs(shown_step(page) - middle) <= 1

    # Hovering an element lights its storage cell and writes the arithmetic.
    move_slider(page, len(frames) - 1)
    page.hover(".vg-stride-map .vg-stride-cell >> nth=1")
    assert page.locator(".vg-storage-cell.vg-lit").count() >= 1
    assert "=" in page.inner_text(".vg-arithmetic")

    # The text view of the trace is one click away.
    page.click(".vg-trace-toggle")
    assert "[call] op=[" in page.inner_text("pre.vg-trace-text")

    # User names are text: shown literally, never an element, never run.
    move_slider(page, first)
    assert page.locator("img").count() == 0
    assert XSS in page.inner_text(".vg-export")
    assert not problems, problems
    assert all(url.startswith("file:") for url in requests), requests
    page.screenshot(path=str(artifacts_dir / "export-end.png"), full_page=True)
    assert time.monotonic() - started < TIME_LIMIT_S


def test_a_training_loop_page_draws_fast_and_says_what_it_elides(page, tmp_path, artifacts_dir):
    """Twenty rounds of a linear model (``nn.Linear``, ``optim.SGD``, ``F.mse_loss``),
    exported with its frames sampled: the page draws at once, says what it left out, and
    scrubbing through the rounds marks each backward pass on the round's one drawing."""
    vg.manual_seed(0)
    model = nn.Linear(3, 1)
    opt = optim.SGD(model.parameters(), lr=0.05)
    x, y = vg.randn(16, 3), vg.randn(16, 1)
    with record() as rec:
        for _ in range(20):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
    path = export_html(rec, tmp_path / "loop.html", max_frames=len(rec) // 2)
    data = export_data(rec, max_frames=len(rec) // 2)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    started = time.monotonic()
    page.goto(path.as_uri())
    page.wait_for_selector(".vg-export[data-ready]", timeout=10_000)
    assert time.monotonic() - started < 3.0
    notice = page.inner_text(".vg-export-notice")
    assert "evenly spaced" in notice and "20 backward graphs" in notice
    page.screenshot(path=str(artifacts_dir / "export-loop-last.png"), full_page=True)
    # Scrub to a backward frame of a middle round: the drawing is marked, not re-laid out.
    middle = [i for i, f in enumerate(data["frames"]) if running_node(data, f)]
    frame = middle[len(middle) // 2]
    timings = []
    for target in (frame, 0, frame):
        began = time.monotonic()
        move_slider(page, target)
        timings.append(time.monotonic() - began)
    assert page.get_attribute(RUNNING_NODE, "id") == running_node(data, data["frames"][frame])
    assert page.locator(".vg-dag-canvas text.vg-dag-status").count() > 0
    assert max(timings) < 1.0, timings
    page.screenshot(path=str(artifacts_dir / "export-loop-backward.png"), full_page=True)
    assert not problems, problems

"""``vizgrad export`` pages, opened in Chromium from a file:// URL with the network cut.

The lesson's views must be drawn by their own front ends from the saved widget state,
its recordings must replay in their players, its plotly charts must draw, and the page
must ask the network for nothing.
"""

from __future__ import annotations

import pytest
from vizgrad.classroom.export import export_lesson


def _open_offline(page, path):
    problems, requests = [], []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))

    def only_files(route):
        requests.append(route.request.url)
        if route.request.url.startswith(("file:", "blob:", "data:")):
            route.continue_()
        else:
            route.abort()

    page.route("**/*", only_files)
    page.goto(path.as_uri())
    return problems, requests


@pytest.fixture(scope="module")
def lesson07_page(tmp_path_factory):
    return export_lesson("7", tmp_path_factory.mktemp("export") / "lesson07.html")


def test_exported_lesson_draws_its_views_and_replays_its_recording(page, lesson07_page,
                                                                   artifacts_dir):  # fmt: skip
    problems, requests = _open_offline(page, lesson07_page)
    # The GraphViews: drawn by the view's own ES module, from the saved state.
    page.wait_for_selector(".vg-offline-widget svg g.node", timeout=30_000)
    widgets = page.locator(".vg-offline-widget")
    assert widgets.count() >= 1
    assert "could not be drawn" not in " ".join(widgets.all_text_contents())
    # A view's control in a page without a kernel: clicking it breaks nothing.
    graph = page.locator(".vg-offline-widget").filter(has=page.locator("svg g.node")).first
    graph.locator("input[type=checkbox]").first.click()
    assert graph.locator("svg g.node").count() > 0
    # The recording shown with rec.show(): the replay player, framed, with its scrubber.
    frame = page.frame_locator("iframe.vg-lesson-recording").first
    frame.locator(".vg-export[data-ready]").wait_for(timeout=30_000)
    frame.locator(".vg-dag-canvas svg g.node").first.wait_for(timeout=30_000)
    last = frame.locator(".vg-step-description").get_attribute("data-step")
    frame.locator(".vg-step-back").click()
    frame.locator(".vg-step-back").click()
    assert frame.locator(".vg-step-description").get_attribute("data-step") != last
    # Run with the reference answers: every exercise says it is correct.
    feedback = page.locator(".vg-feedback").all_text_contents()
    assert feedback and all("Correct" in text for text in feedback), feedback
    page.screenshot(path=str(artifacts_dir / "exported-lesson-07.png"), full_page=False)
    assert not problems, problems
    assert all(url.startswith(("file:", "blob:", "data:")) for url in requests), requests


def test_exported_lesson_draws_its_plotly_charts_and_live_charts(page, tmp_path, artifacts_dir):
    """Lesson 15: static figures (the confusion matrix) and live FigureWidgets, which must
    show the curves training drew, not the empty chart their saved state starts with."""
    path = export_lesson("15", tmp_path / "lesson15.html")
    problems, requests = _open_offline(page, path)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    traces = page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')].map(
        chart => chart.querySelectorAll('.main-svg .trace, .main-svg .hm, .main-svg image').length)""")
    assert len(traces) >= 4 and all(count > 0 for count in traces), traces
    # Each live chart's loss curve has a point per logged batch group: a long path.
    curves = page.evaluate("""() => [...document.querySelectorAll(
        '.vg-offline-widget .js-plotly-plot')].map(chart => Math.max(0, ...[...chart
        .querySelectorAll('.scatterlayer path.js-line')].map(p => (p.getAttribute('d') || '')
        .split(/[ML]/).length)))""")
    assert len(curves) >= 2 and all(points > 10 for points in curves), curves
    page.screenshot(path=str(artifacts_dir / "exported-lesson-15.png"), full_page=False)
    assert not problems, problems
    assert all(url.startswith(("file:", "blob:", "data:")) for url in requests), requests

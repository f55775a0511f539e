"""Every view shows in itself an error raised while it answers its browser front end.

ipywidgets catches what a widget raises while handling a message from the browser and
prints it to the kernel's log, where a student never looks. Each view here is made to
fail (a subclass whose redraw raises, as a bug would) and driven through its comm
exactly as a click drives it; the view's ``error`` trait, which its front end shows in
a ``.vg-error`` box, must say what could not be done, and the next answer that works
clears it. Python code a student runs still gets its exception.
"""

from __future__ import annotations

import pytest
from browser_messages import set_from_browser
from vizgrad.widgets import DispatchTrace, GraphView, StrideMap, Timeline, record
from vizgrad.widgets.browser import ERROR_BOX_JS, BrowserView, explain
from vizgrad.widgets.timeline import Scrubber

import vizgrad as vg


class _Failing:
    """Mixin: the view's redraw raises while ``failing`` is set."""

    failing = False

    def refresh(self, *args, **kwargs):
        if self.failing:
            raise ZeroDivisionError("division by zero in the view")
        return super().refresh(*args, **kwargs)


class _FailingGraph(_Failing, GraphView):
    pass


class _FailingTrace(_Failing, DispatchTrace):
    pass


class _FailingTimeline(Timeline):
    failing = False

    def _show(self, step: int) -> None:
        if self.failing:
            raise MemoryError()
        super()._show(step)


def _graph():
    w = vg.ones(3, requires_grad=True)
    return (w * 2).sum()


def test_explain_says_what_failed_and_what_to_do():
    text = explain(RuntimeError("size mismatch"), "building the as_strided view")
    assert text.startswith("Could not finish building the as_strided view: RuntimeError: "
                           "size mismatch.")  # fmt: skip
    assert "Change what you entered" in text
    assert "show it to your teacher" in explain(KeyError(3), "showing the step you chose")
    assert "not enough memory" in explain(MemoryError(), "showing the step you chose")


def test_graph_view_toggle_error_shows_in_the_view():
    view = _FailingGraph(_graph())
    try:
        view.failing = True
        set_from_browser(view, show_saved=True)
        assert view.error.startswith("Could not finish drawing the saved tensors: "
                                     "ZeroDivisionError: division by zero in the view.")  # fmt: skip
        view.failing = False
        set_from_browser(view, show_saved=False)
        assert view.error == ""
    finally:
        view.close()


def test_dispatch_trace_filter_error_shows_in_the_view():
    with _FailingTrace() as trace:
        vg.ones(2) * 3
    try:
        trace.failing = True
        set_from_browser(trace, filter="mul")
        assert trace.error.startswith("Could not finish filtering the calls by operator:")
    finally:
        trace.close()


def test_timeline_step_error_shows_in_its_scrubber():
    with record() as rec:
        _graph().backward()
    timeline = _FailingTimeline(rec)
    try:
        timeline.failing = True
        set_from_browser(timeline.scrubber, value=3)
        assert timeline.scrubber.error.startswith(
            "Could not finish showing the step you chose: MemoryError."
        )
        assert "not enough memory" in timeline.scrubber.error
        timeline.failing = False
        set_from_browser(timeline.scrubber, value=2)
        assert timeline.scrubber.error == "" and timeline.step == 2
    finally:
        timeline.close()


def test_python_code_that_sets_a_trait_still_gets_the_exception():
    view = _FailingGraph(_graph())
    try:
        view.failing = True
        with pytest.raises(ZeroDivisionError):
            view.show_values = True
        assert view.error == ""
    finally:
        view.close()


@pytest.mark.parametrize("view_class", [StrideMap, GraphView, DispatchTrace, Scrubber])
def test_every_view_is_a_browser_view_with_an_error_box(view_class):
    assert issubclass(view_class, BrowserView)
    esm = view_class._esm
    esm = esm if isinstance(esm, str) else view_class.class_traits()["_esm"].default_value
    assert esm.startswith(ERROR_BOX_JS) and "vgErrorBox(model)" in esm

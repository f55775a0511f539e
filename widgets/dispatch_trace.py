"""``vizgrad.widgets.DispatchTrace``: every operator call as a tree of its dispatch steps.

::

    with DispatchTrace() as trace:
        y = (x * w).sum()
    trace            # displays the tree; a filter box; one click to the text view

While the ``with`` block runs, the widget's ``DispatchState`` is subscribed to the
event bus; when it ends the tree is rendered (by the pure ``render.dispatch_tree``)
into the synced traitlets the browser draws. A Timeline drives the same widget with
``show_state(state)``.

Front end (anywidget) and the selectors the browser tests use:

* ``.vg-dispatch-trace`` — the widget's root element;
* ``input.vg-trace-filter`` — the filter box (sets the ``filter`` traitlet);
* ``button.vg-trace-toggle`` — switches ``view`` between ``"tree"`` and ``"text"``;
* ``.vg-trace-count`` — "N calls" (and how many the filter keeps);
* ``.vg-error`` — why the last filter or toggle could not be answered (hidden if none);
* ``.vg-trace-body`` — holds the tree: ``li.vg-trace-call[data-op][data-variant]``
  (``.vg-trace-current`` is the call of the timeline's step, ``.vg-trace-context`` a
  caller kept only for context, ``.vg-trace-running`` a call not returned yet, its head
  saying so in ``.vg-trace-running-note``) > ``.vg-trace-head`` > ``.vg-trace-op``,
  ``.vg-trace-variant``; ``ol.vg-trace-steps`` > ``li.vg-trace-step[data-key]``
  (``.vg-trace-fallthrough``, ``.vg-trace-kernel``) > ``.vg-trace-key``,
  ``.vg-trace-decision``; or, in the text view, ``pre.vg-trace-text``.
"""

from __future__ import annotations

import traitlets

from vizgrad import events

from .browser import BrowserView, front_end, stylesheet
from .render.dispatch_tree import DEFAULT_MAX_CALLS, kept_calls, render_text, render_tree_html
from .state.dispatch import DispatchState

__all__ = ["DispatchTrace"]


class DispatchTrace(BrowserView):
    """The dispatch steps of every operator call made inside ``with DispatchTrace()``.

    The teaching counterpart of running PyTorch with ``TORCH_SHOW_DISPATCH_TRACE=1``:
    each call is shown with the keys it visited and what each one decided.
    """

    BROWSER_ACTIONS = {
        "filter": "filtering the calls by operator",
        "view": "switching between the tree and the text",
    }

    # static/dispatch_trace.js and .css, after the error box every view shows (browser.py)
    _esm = front_end("dispatch_trace.js")
    _css = stylesheet("dispatch_trace.css")

    filter = traitlets.Unicode("").tag(sync=True)  # set by the front end's filter box
    view = traitlets.Enum(("tree", "text"), "tree").tag(sync=True)
    tree_html = traitlets.Unicode("").tag(sync=True)
    text = traitlets.Unicode("").tag(sync=True)
    n_calls = traitlets.Int(0).tag(sync=True)
    n_shown = traitlets.Int(0).tag(sync=True)
    operators = traitlets.List(traitlets.Unicode()).tag(sync=True)
    current = traitlets.Int(-1).tag(sync=True)  # the highlighted call (a timeline's step)
    max_calls = traitlets.Int(DEFAULT_MAX_CALLS).tag(sync=True)

    def __init__(self, state: DispatchState | None = None, **kwargs):
        # Set before traitlets' __init__, whose observers (filter=...) render the state.
        self.state = state if state is not None else DispatchState()
        self._recording = False
        super().__init__(**kwargs)
        self.refresh()

    # --- recording ----------------------------------------------------------------------

    def __enter__(self) -> DispatchTrace:
        if not self._recording:
            events.subscribe(self.state.apply)
            self._recording = True
        return self

    def __exit__(self, *exc) -> None:
        if self._recording:
            events.unsubscribe(self.state.apply)
            self._recording = False
        self.refresh()

    # --- what the front end shows ---------------------------------------------------------

    def show_state(self, state: DispatchState, current: int | None = None) -> None:
        """Show ``state`` (a Timeline's state at its step), highlighting ``current``."""
        self.state = state
        self.refresh(state.last_call if current is None else current)

    def refresh(self, current: int | None = None) -> None:
        """Render the state into the synced traitlets (one message to the front end)."""
        if current is not None:
            self.current = current
        state = self.state
        kept, _ = kept_calls(state, self.filter)
        with self.hold_sync():
            self.tree_html = render_tree_html(
                state, self.filter, max_calls=self.max_calls, current=self.current
            )
            # The text view is rendered only while it is the one shown.
            if self.view == "text":
                self.text = render_text(state, self.filter, max_calls=self.max_calls)
            if self.n_calls != len(state.calls) or not self.operators:
                self.operators = state.operator_names()
            self.n_calls = len(state.calls)
            self.n_shown = len(kept)

    @traitlets.observe("filter", "max_calls", "view")
    def _on_filter(self, change) -> None:
        self.refresh()

    def __str__(self) -> str:
        """The text view, as ``str(vizgrad.dispatch_trace())`` prints it."""
        return render_text(self.state)

    def __repr__(self) -> str:
        return f"<DispatchTrace: {len(self.state.calls)} calls>"

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

from .browser import ERROR_BOX_JS, ERROR_CSS, BrowserView
from .render.dispatch_tree import DEFAULT_MAX_CALLS, kept_calls, render_text, render_tree_html
from .state.dispatch import DispatchState

__all__ = ["DispatchTrace"]

_ESM = (
    ERROR_BOX_JS
    + r"""
function render({ model, el }) {
  el.classList.add("vg-dispatch-trace");
  const bar = document.createElement("div");
  bar.className = "vg-trace-bar";
  const filter = document.createElement("input");
  filter.type = "search";
  filter.className = "vg-trace-filter";
  filter.placeholder = "filter by operator (e.g. mul)";
  filter.setAttribute("aria-label", "filter by operator");
  const toggle = document.createElement("button");
  toggle.className = "vg-trace-toggle";
  const count = document.createElement("span");
  count.className = "vg-trace-count";
  bar.append(filter, toggle, count);
  const body = document.createElement("div");
  body.className = "vg-trace-body";
  el.replaceChildren(bar, vgErrorBox(model), body);

  function draw() {
    if (document.activeElement !== filter && filter.value !== model.get("filter")) {
      filter.value = model.get("filter");
    }
    const asText = model.get("view") === "text";
    toggle.textContent = asText ? "show tree" : "show text (dispatch_trace)";
    const shown = model.get("n_shown"), total = model.get("n_calls");
    count.textContent = shown === total ? `${total} calls` : `${shown} of ${total} calls`;
    if (asText) {
      const pre = document.createElement("pre");
      pre.className = "vg-trace-text";
      pre.textContent = model.get("text");  // text, never markup
      body.replaceChildren(pre);
    } else {
      body.innerHTML = model.get("tree_html");  // rendered and escaped by Python
      const current = body.querySelector(".vg-trace-current");
      if (current) current.scrollIntoView({ block: "nearest" });
    }
  }
  filter.addEventListener("input", () => {
    model.set("filter", filter.value);
    model.save_changes();
  });
  toggle.addEventListener("click", () => {
    model.set("view", model.get("view") === "text" ? "tree" : "text");
    model.save_changes();
  });
  for (const name of ["tree_html", "text", "view", "filter", "n_shown"]) {
    model.on(`change:${name}`, draw);
  }
  draw();
}
export default { render };
"""
)

_CSS = (
    r"""
.vg-dispatch-trace { font: 13px/1.4 system-ui, sans-serif; }
.vg-dispatch-trace .vg-trace-bar { display: flex; gap: 8px; align-items: center; margin-bottom: 6px; }
.vg-dispatch-trace .vg-trace-filter { flex: 0 1 16em; }
.vg-dispatch-trace .vg-trace-count { color: #666; }
.vg-dispatch-trace .vg-trace-body { max-height: 32em; overflow: auto; }
.vg-dispatch-trace ul.vg-trace-tree, .vg-dispatch-trace ol.vg-trace-steps {
  list-style: none; margin: 0; padding-left: 1.2em; }
.vg-dispatch-trace .vg-trace-call { margin: 2px 0; border-left: 2px solid #ccd; padding-left: 4px; }
.vg-dispatch-trace .vg-trace-current { background: #fff4c2; border-left-color: #e0a800; }
.vg-dispatch-trace .vg-trace-context > .vg-trace-head { opacity: 0.55; }
.vg-dispatch-trace .vg-trace-op { font-family: ui-monospace, monospace; font-weight: 600; }
.vg-dispatch-trace .vg-trace-variant { border-radius: 3px; padding: 0 4px; font-size: 11px;
  background: #e8eef8; }
.vg-dispatch-trace .vg-variant-inplace, .vg-dispatch-trace .vg-variant-out { background: #fde2e1; }
.vg-dispatch-trace .vg-variant-view { background: #e1f5e4; }
.vg-dispatch-trace .vg-trace-io, .vg-dispatch-trace .vg-trace-during { color: #666; }
.vg-dispatch-trace .vg-trace-key { font-family: ui-monospace, monospace; color: #3557a0; }
.vg-dispatch-trace .vg-trace-fallthrough { color: #888; }
.vg-dispatch-trace .vg-trace-error { color: #b91c1c; font-weight: bold; margin-left: 0.5em; }
.vg-dispatch-trace .vg-trace-running-note { color: #1d4ed8; font-style: italic; margin-left: 0.5em; }
.vg-dispatch-trace .vg-trace-running { border-left-style: dashed; }
.vg-dispatch-trace .vg-trace-kernel .vg-trace-key { color: #8a4b00; }
.vg-dispatch-trace .vg-trace-notice { color: #8a4b00; margin-bottom: 4px; }
.vg-dispatch-trace pre.vg-trace-text { margin: 0; font-size: 12px; }
"""
    + ERROR_CSS
)


class DispatchTrace(BrowserView):
    """The dispatch steps of every operator call made inside ``with DispatchTrace()``.

    The teaching counterpart of running PyTorch with ``TORCH_SHOW_DISPATCH_TRACE=1``:
    each call is shown with the keys it visited and what each one decided.
    """

    BROWSER_ACTIONS = {
        "filter": "filtering the calls by operator",
        "view": "switching between the tree and the text",
    }

    _esm = traitlets.Unicode(_ESM).tag(sync=True)
    _css = traitlets.Unicode(_CSS).tag(sync=True)

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

"""A view answering its browser front end, and showing in itself what went wrong.

The front end of a view talks to Python in two ways (ipywidgets' protocol): it sets
synced traits (a click sets the stride map's ``selection``, the scrubber's slider its
``value``) and it sends custom messages (``model.send(...)``: the stride map's
as_strided editor). Python answers inside the kernel. When the answer raises,
ipywidgets prints the traceback to the kernel's log (JupyterLab's log console, which
students do not open): the click seems to do nothing.

``BrowserView`` is the base of every view. It answers both ways through one place,
``answering_browser``, which turns an error into a sentence in the view's synced
``error`` trait; every view's front end shows that trait in a ``.vg-error`` box. A view
declares what each trait and each message *does*, in words (``BROWSER_ACTIONS``,
``MESSAGE_ACTIONS``), so the sentence says what could not be done. Errors raised by
Python code a student runs (``view.step = 5`` in a cell) are not caught: they reach
the cell as usual.

Custom messages are received the documented way, with ``on_msg(callback)``: the
callback gets ``(widget, content, buffers)``. (Overriding ipywidgets'
``_handle_custom_msg`` with another signature broke the stride map's editor: its
handler raised a ``TypeError`` nobody saw.)
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import ClassVar

import anywidget
import traitlets

__all__ = [
    "BrowserView",
    "ERROR_BOX_JS",
    "ERROR_CSS",
    "STATIC",
    "explain",
    "front_end",
    "stylesheet",
]

# Error classes whose message already says what was wrong with the input (vizgrad's own
# errors use PyTorch's words): shown as they are, with what to do next.
_INPUT_ERRORS = (ValueError, TypeError, IndexError, RuntimeError)


def explain(error: BaseException, doing: str) -> str:
    """What a student reads when ``doing`` (``"removing the as_strided view"``) raised ``error``."""
    what = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if isinstance(error, MemoryError):
        advice = ("There is not enough memory for this: show smaller tensors or a shorter "
                  "recording.")  # fmt: skip
    elif isinstance(error, _INPUT_ERRORS):
        advice = ("The view still shows what it showed before. Change what you entered and "
                  "try again; if nothing you entered is wrong, run the cell that made this "
                  "view again.")  # fmt: skip
    else:
        advice = ("The view still shows what it showed before. Run the cell that made this "
                  "view again; if the message comes back, show it to your teacher.")  # fmt: skip
    return f"Could not finish {doing}: {what}. {advice}"


class BrowserView(anywidget.AnyWidget):
    """An anywidget whose answers to its front end show their errors in the view."""

    # Why the last action from the browser failed ("" when it did not): every view's front
    # end draws it in a ``.vg-error`` box. A view may also set it itself (the stride map
    # puts vizgrad's refusal of an as_strided view here).
    error = traitlets.Unicode("").tag(sync=True)

    # What setting each synced trait from the browser does, in words ("showing the step
    # you chose"); and what each custom message (by its "type") does.
    BROWSER_ACTIONS: ClassVar[dict[str, str]] = {}
    MESSAGE_ACTIONS: ClassVar[dict[str, str]] = {}

    # The error text this class put in ``error`` (so the next good answer clears it, but
    # leaves an error the view set itself). A class attribute: a view whose __init__
    # raised early still has it when ipywidgets' __del__ closes it.
    _browser_error = ""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.on_msg(self._on_custom_message)

    @contextlib.contextmanager
    def answering_browser(self, doing: str):
        """Run the body as an answer to the browser: an error becomes ``error``'s text."""
        if self._browser_error and self.error == self._browser_error:
            self.error = ""  # the last failure is over: this answer starts afresh
        self._browser_error = ""
        try:
            yield
        except Exception as error:  # noqa: BLE001 - shown in the view: the browser has no traceback
            self._browser_error = explain(error, doing)
            self.error = self._browser_error

    def set_state(self, sync_data) -> None:
        """Traits set by the browser (ipywidgets calls this for the front end's updates)."""
        names = [name for name in sync_data if name in self.keys]
        doing = " and ".join(dict.fromkeys(
            self.BROWSER_ACTIONS.get(name, f"updating {name}") for name in names
        )) or "updating the view"  # fmt: skip
        with self.answering_browser(doing):
            super().set_state(sync_data)

    def _on_custom_message(self, widget, content, buffers) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        doing = self.MESSAGE_ACTIONS.get(kind, "answering the view's message")
        with self.answering_browser(doing):
            if kind not in self.MESSAGE_ACTIONS:
                raise ValueError(f"this view does not know the message {content!r}")
            self.answer_message(content, buffers)

    def answer_message(self, content: dict, buffers) -> None:
        """Do what a custom message from the front end asks (``content["type"]`` is one
        of ``MESSAGE_ACTIONS``). Views that send messages override it."""
        raise NotImplementedError(f"{type(self).__name__} answers no messages")


# The front end's half, in static/ like every view's JavaScript and CSS: error_box.js
# (``vgErrorBox(model)``: a box that shows the ``error`` trait as text, hidden while it is
# empty) comes before each view's ES module, and error_box.css after its stylesheet.
STATIC = Path(__file__).parent / "static"  # the views' JavaScript and CSS
ERROR_BOX_JS = (STATIC / "error_box.js").read_text(encoding="utf-8")
ERROR_CSS = (STATIC / "error_box.css").read_text(encoding="utf-8")


def front_end(*scripts: str) -> str:
    """A view's ES module: the error box, then its static ``scripts`` in order."""
    return ERROR_BOX_JS + "".join((STATIC / name).read_text(encoding="utf-8") for name in scripts)


def stylesheet(*sheets: str) -> str:
    """A view's stylesheet: its static ``sheets``, then the error box's."""
    return "".join((STATIC / name).read_text(encoding="utf-8") for name in sheets) + ERROR_CSS

"""Exercises that check themselves: an answer in, feedback that explains out.

A lesson declares its exercises with ``exercise(...)``; a notebook cell answers one::

    answer = ...              # replace ... with your answer
    check("02.row_stride", answer)

``check`` returns a ``Feedback`` that Jupyter shows as a coloured box: *not answered
yet* while the answer is still ``...``, *correct* (with a short why), or *not yet*
with an explanation of what is wrong, computed from the engine's own behaviour
where possible (for example: which element of the stride tuple is off, and why).
``hint(key)`` shows the next hint; ``solution(key)`` reveals the reference answer.

The reference solution of each exercise is the full text of its answer cell, so the
tests can run every notebook with the solutions filled in.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

__all__ = [
    "Exercise",
    "Feedback",
    "Wrong",
    "exercise",
    "check",
    "hint",
    "solution",
    "results",
    "EXERCISES",
]

NOT_ANSWERED = "not answered yet"
CORRECT = "correct"
WRONG = "wrong"


class Wrong(Exception):  # noqa: N818 - reads as "raise Wrong('...')" in a checker
    """Raised by a checker with the explanation a student should read."""


@dataclass
class Feedback:
    """What ``check`` says about one answer."""

    key: str
    status: str  # NOT_ANSWERED, CORRECT or WRONG
    message: str

    @property
    def correct(self) -> bool:
        return self.status == CORRECT

    def __repr__(self) -> str:
        mark = {CORRECT: "✓ correct", WRONG: "✗ not yet", NOT_ANSWERED: "… not answered yet"}
        return f"[{self.key}] {mark[self.status]}: {self.message}"

    def _repr_html_(self) -> str:
        colour = {CORRECT: "#e6f4ea", WRONG: "#fdecea", NOT_ANSWERED: "#f1f3f4"}[self.status]
        title = {CORRECT: "✓ Correct", WRONG: "✗ Not yet", NOT_ANSWERED: "… Not answered yet"}
        return (
            f'<div class="vg-feedback vg-feedback-{self.status.replace(" ", "-")}" '
            f'style="background:{colour};padding:6px 10px;border-radius:4px">'
            f"<b>{title[self.status]}</b> <small>({html.escape(self.key)})</small><br>"
            f"{html.escape(self.message)}</div>"
        )


@dataclass
class Exercise:
    """One exercise: its checker, hints, reference solution and explanation."""

    key: str  # "<lesson number>.<name>", e.g. "02.row_stride"
    prompt: str
    checker: object  # callable(answer) -> None (correct) or raises Wrong(explanation)
    hints: tuple = ()
    solution: str = ""  # the full source of a correct answer cell
    explanation: str = ""  # shown when the answer is correct: why it is right
    _hints_shown: int = field(default=0, repr=False)

    def check(self, answer) -> Feedback:
        if answer is Ellipsis:
            return self._record(
                NOT_ANSWERED, "replace the ... with your answer and run the cell again."
            )
        try:
            self.checker(answer)
        except Wrong as wrong:
            return self._record(WRONG, str(wrong))
        return self._record(CORRECT, self.explanation or "well done.")

    def _record(self, status: str, message: str) -> Feedback:
        _results[self.key] = status
        return Feedback(self.key, status, message)

    def next_hint(self) -> str:
        if not self.hints:
            return "No hints for this one: try the solution."
        text = self.hints[min(self._hints_shown, len(self.hints) - 1)]
        self._hints_shown += 1
        number = min(self._hints_shown, len(self.hints))
        return f"Hint {number} of {len(self.hints)}: {text}"


EXERCISES: dict[str, Exercise] = {}
_results: dict[str, str] = {}


def exercise(key: str, prompt: str, *, hints=(), solution: str, explanation: str = ""):
    """Decorator: declare the function below as the checker of exercise ``key``."""

    def declare(checker):
        if key in EXERCISES:
            raise ValueError(f"exercise {key} is declared twice")
        EXERCISES[key] = Exercise(key, prompt, checker, tuple(hints), solution.strip() + "\n",
                                  explanation)  # fmt: skip
        return checker

    return declare


def _get(key: str) -> Exercise:
    _load_lessons()
    try:
        return EXERCISES[key]
    except KeyError:
        raise KeyError(
            f"no exercise named {key!r}; known: {', '.join(sorted(EXERCISES))}"
        ) from None


def check(key: str, answer) -> Feedback:
    """Check ``answer`` for exercise ``key``; the result explains what is right or wrong."""
    return _get(key).check(answer)


# How each kind of text is laid out in a notebook. A hint is prose: it wraps between
# words (never inside one: JupyterLab's output styles may break words anywhere) and keeps
# its line breaks. A solution is code: its lines stay whole (a long one scrolls) so it
# can be pasted as it reads.
_STYLES = {
    "hint": ("div", "white-space: pre-line; word-break: normal; overflow-wrap: break-word; "
                    "font-family: inherit; margin: 4px 0"),
    "solution": ("pre", "white-space: pre; word-break: normal; overflow-wrap: normal; "
                        "overflow-x: auto; margin: 4px 0"),
}  # fmt: skip


class _Text:
    """Text shown as it is in a notebook (a plain ``str`` would show its quotes)."""

    def __init__(self, text: str, kind: str):
        self.text = text
        self.kind = kind  # "hint" or "solution", see _STYLES

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        tag, style = _STYLES[self.kind]
        return (f'<{tag} class="vg-lesson-text vg-lesson-{self.kind}" style="{style}">'
                f"{html.escape(self.text)}</{tag}>")  # fmt: skip


def hint(key: str) -> _Text:
    """The next hint for exercise ``key``."""
    return _Text(_get(key).next_hint(), "hint")


def solution(key: str) -> _Text:
    """The reference answer of exercise ``key``: paste it into the cell to see it checked."""
    return _Text(_get(key).solution, "solution")


def results() -> dict[str, str]:
    """The last status of every exercise checked in this session, by key."""
    return dict(_results)


def _load_lessons() -> None:
    # Exercises are declared in the lesson modules; importing them registers them.
    from . import catalog

    catalog.load_all()

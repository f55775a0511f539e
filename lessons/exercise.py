"""Exercises that check themselves: an answer in, feedback that explains out.

A lesson declares its exercises with ``exercise(...)``; a notebook cell answers one::

    answer = ...              # replace ... with your answer
    check("02.row_stride", answer)

``check`` returns a ``Feedback`` that Jupyter shows as a coloured box: *not answered
yet* while the answer is still ``...``, *correct* (with a short why), or *not yet*
with an explanation of what is wrong, computed from the engine's own behaviour
where possible (for example: which element of the stride tuple is off, and why).
``hint(key)`` shows the next hint; ``solution(key)`` reveals the reference answer.

Feedback explains one mistake at a time. An answer of several parts (a stride tuple,
a set of names) is checked part by part: the box lists the parts in order up to the
first wrong one, which is explained, and only counts the wrong parts after it::

    ✗ Not yet (02.contiguous_stride)
      ✓ Element 0 (12)
      ✗ Element 1 (3) — too small: one step along dim 1 skips everything to its right…
      … and 1 more part to look at once this one is fixed

so a student fixes one thing, reruns, and is never handed the other parts' answers.

The reference solution of each exercise is the full text of its answer cell, so the
tests can run every notebook with the solutions filled in.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field

__all__ = [
    "Exercise",
    "Feedback",
    "Part",
    "Wrong",
    "require_all",
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


@dataclass(frozen=True)
class Part:
    """One part of a multi-part answer: an element of a tuple, a name of a set…

    ``label`` names the part and what the student gave for it (``"Element 1 (3)"``,
    ``"x._version = 3"``); ``mistake`` says what is wrong with it and why, or is None
    when the part is right. A mistake must explain its own part only: it is shown while
    the parts after it are still hidden.
    """

    label: str
    mistake: str | None = None

    @property
    def right(self) -> bool:
        return self.mistake is None

    def __str__(self) -> str:
        return self.label if self.right else f"{self.label} — {self.mistake}"


class Wrong(Exception):  # noqa: N818 - reads as "raise Wrong('...')" in a checker
    """Raised by a checker with the explanation a student should read.

    ``Wrong("why")`` explains an answer of one part. ``Wrong(parts=[Part(...), ...])``
    judges an answer of several parts, in order, right ones included (``require_all``
    raises it when a part is wrong): the feedback then explains the first wrong part and
    holds the others back.
    """

    def __init__(self, message: str = "", *, parts=()):
        self.parts = tuple(parts)
        if self.parts:
            first = next((part for part in self.parts if not part.right), None)
            if first is None:
                raise ValueError("Wrong(parts=...) needs a part that is wrong")
            message = str(first)
        super().__init__(message)


def require_all(parts) -> None:
    """Raise ``Wrong(parts=parts)`` unless every ``Part`` of the answer is right."""
    parts = tuple(parts)
    if not all(part.right for part in parts):
        raise Wrong(parts=parts)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


@dataclass
class Feedback:
    """What ``check`` says about one answer.

    For a multi-part answer, ``message`` explains its first wrong part; ``parts`` are the
    parts shown, in order: the right ones before it, then it. ``more`` counts the wrong
    parts after it (not explained yet) among the ``hidden`` parts after it.
    """

    key: str
    status: str  # NOT_ANSWERED, CORRECT or WRONG
    message: str
    parts: tuple[Part, ...] = ()
    more: int = 0
    hidden: int = 0

    @property
    def correct(self) -> bool:
        return self.status == CORRECT

    def _rest(self) -> str | None:
        """What the list says about the parts after the first mistake, if there are any."""
        if self.more:
            return f"… and {_plural(self.more, 'more part')} to look at once this one is fixed"
        if self.hidden:
            return "✓ the rest is right: fix this one and you are done"
        return None

    def __repr__(self) -> str:
        mark = {CORRECT: "✓ correct", WRONG: "✗ not yet", NOT_ANSWERED: "… not answered yet"}
        if not self.parts:
            return f"[{self.key}] {mark[self.status]}: {self.message}"
        lines = [f"{'✓' if part.right else '✗'} {part}" for part in self.parts]
        lines += [rest] if (rest := self._rest()) else []
        return f"[{self.key}] {mark[self.status]}, part by part:\n" + "\n".join(
            "  " + line for line in lines
        )

    def _repr_html_(self) -> str:
        colour = {CORRECT: "#e6f4ea", WRONG: "#fdecea", NOT_ANSWERED: "#f1f3f4"}[self.status]
        title = {CORRECT: "✓ Correct", WRONG: "✗ Not yet", NOT_ANSWERED: "… Not answered yet"}
        head = (
            f'<div class="vg-feedback vg-feedback-{self.status.replace(" ", "-")}" '
            f'style="background:{colour};padding:6px 10px;border-radius:4px">'
            f"<b>{title[self.status]}</b> <small>({html.escape(self.key)})</small>"
        )
        if not self.parts:
            return f"{head}<br>{html.escape(self.message)}</div>"
        return f"{head}{self._parts_html()}</div>"

    def _parts_html(self) -> str:
        """The parts as a list: ✓ for a right one, ✗ and the explanation for the mistake."""
        items = []
        for part in self.parts:
            if part.right:
                items.append('<li class="vg-part vg-part-right">'
                             f'<span style="color:#137333">✓</span> {html.escape(part.label)}</li>')  # fmt: skip
            else:
                items.append('<li class="vg-part vg-part-wrong">'
                             f'<b><span style="color:#c5221f">✗</span> {html.escape(part.label)}'
                             f"</b> — {html.escape(part.mistake)}</li>")  # fmt: skip
        rest = self._rest()
        if rest:
            kind = "more" if self.more else "rest"
            items.append(f'<li class="vg-part vg-part-{kind}" style="color:#5f6368">'
                         f"{html.escape(rest)}</li>")  # fmt: skip
        return ('<ul class="vg-feedback-parts" style="list-style:none;margin:4px 0 0;'
                f'padding-left:0">{"".join(items)}</ul>')  # fmt: skip


@dataclass
class Exercise:
    """One exercise: its checker, hints, reference solution and explanation."""

    key: str  # "<lesson number>.<name>", e.g. "02.row_stride"
    prompt: str
    # callable(answer): returns for a right answer (None, or a str explaining this right
    # answer in particular, which replaces ``explanation``), raises Wrong for a wrong one
    checker: object
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
            why_right = self.checker(answer)
        except Wrong as wrong:
            return self._record(WRONG, str(wrong), wrong.parts)
        return self._record(CORRECT, why_right or self.explanation or "well done.")

    def _record(self, status: str, message: str, parts: tuple = ()) -> Feedback:
        _results[self.key] = status
        if not parts:
            return Feedback(self.key, status, message)
        first = next(i for i, part in enumerate(parts) if not part.right)
        after = parts[first + 1 :]
        return Feedback(self.key, status, message, parts[: first + 1],
                        more=sum(not part.right for part in after), hidden=len(after))  # fmt: skip

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


# Set on the students' servers of a graded course (docs/teaching.md): the reference
# answers ship in this package, so ``solution`` is what would give them away.
HIDE_SOLUTIONS = "VIZGRAD_HIDE_SOLUTIONS"


def solution(key: str) -> _Text:
    """The reference answer of exercise ``key``: paste it into the cell to see it checked.

    When the environment sets ``VIZGRAD_HIDE_SOLUTIONS=1`` (a graded course), it says so
    instead; hints still work.
    """
    exercise = _get(key)
    if os.environ.get(HIDE_SOLUTIONS, "") not in ("", "0"):
        return _Text(f"Solutions are hidden for this course ({HIDE_SOLUTIONS} is set): "
                     f'try hint("{key}") instead.', "hint")  # fmt: skip
    return _Text(exercise.solution, "solution")


def results() -> dict[str, str]:
    """The last status of every exercise checked in this session, by key."""
    return dict(_results)


def _load_lessons() -> None:
    # Exercises are declared in the lesson modules; importing them registers them.
    from . import catalog

    catalog.load_all()

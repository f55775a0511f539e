"""``grade(key, answer)``: an exercise's checker as an autograded test (nbgrader's kind).

nbgrader gives a test cell its points when the cell runs without an error and none
when it raises. ``grade`` turns the lesson's checker into exactly that: it returns
quietly for a right answer and raises ``AssertionError`` with the checker's own
explanation otherwise, so the feedback nbgrader hands back says what was wrong.
"""

from __future__ import annotations

from vizgrad.lessons import check

__all__ = ["grade"]


def grade(key: str, answer) -> None:
    """Pass (return ``None``) when ``answer`` is right for exercise ``key``; else raise
    ``AssertionError`` explaining why, in the words ``check`` uses."""
    feedback = check(key, answer)
    if not feedback.correct:
        raise AssertionError(f"exercise {key}: {feedback.status}: {feedback.message}")

"""vizgrad.lessons: exercise checkers and helpers used by the notebooks in ``notebooks/``.

Installed as ``vizgrad.lessons`` from ``lessons/``; it uses the engine and the widgets,
and neither of them imports it. In a notebook::

    from vizgrad.lessons import check, hint, solution
"""

from .catalog import LESSONS
from .exercise import EXERCISES, Feedback, check, hint, results, solution

__all__ = ["LESSONS", "EXERCISES", "Feedback", "check", "hint", "results", "solution"]

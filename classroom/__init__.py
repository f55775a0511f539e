"""vizgrad.classroom: what a teacher runs around the lessons.

The ``vizgrad`` command (``cli``) lists the lessons, opens them in JupyterLab, hands
out copies without solutions (``student_copy``), checks a class's notebooks
(``checking``), exports a lesson with its recordings as one page (``export``) and
writes an nbgrader course whose autograded cells call the lessons' own checkers
(``course``). It sits above the engine, the views and the lessons; none of them
imports it.
"""

from .grading import grade

__all__ = ["grade"]

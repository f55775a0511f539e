"""``vizgrad course init DIR``: the lessons as an nbgrader course.

nbgrader (the grading tool JupyterHub classes use) reads a course directory::

    DIR/nbgrader_config.py
    DIR/source/<assignment>/<notebook>.ipynb      one assignment per lesson

Its source notebooks carry nbgrader's cell metadata, so the standard workflow works
unchanged: ``nbgrader generate_assignment``, ``release_assignment``, ``collect``,
``autograde``, ``generate_feedback``. Each exercise becomes two cells:

* the **answer cell** (``solution: true``): the lesson's template (``answer = ...``),
  then the reference answer between nbgrader's ``### BEGIN SOLUTION`` and ``### END
  SOLUTION`` (``generate_assignment`` replaces it with a one-line prompt), then the
  ``check(...)`` line, so a student still gets the lesson's feedback while working;
* an **autograded test cell** (``grade: true``, one point, locked) that calls
  ``vizgrad.classroom.grade(key, answer)``: the lesson's own checker, which raises
  with its explanation when the answer is wrong, so nbgrader's feedback says why.

The ``solution(key)`` lines of the hint cells are left out.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from vizgrad.lessons import EXERCISES
from vizgrad.lessons.catalog import LESSONS
from vizgrad.lessons.exercise import _load_lessons

from .catalogue import notebooks_dir
from .cells import exercise_key, is_check_line, without_solution_calls

__all__ = ["POINTS_PER_EXERCISE", "assignment_name", "course_notebook", "init_course"]

POINTS_PER_EXERCISE = 1
CODE_STUB = "# YOUR ANSWER: write it in the lines above, in place of each ..."

_CONFIG = """\
# nbgrader's configuration for the vizgrad course (written by `vizgrad course init`).
# Run nbgrader's commands from this folder: nbgrader generate_assignment 08-controlling-autograd
c = get_config()  # noqa: F821 - nbgrader provides it

c.CourseDirectory.course_id = {course_id!r}
# What `generate_assignment` leaves where the reference answer was.
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
# Lessons train small models: give a notebook time when it is autograded.
c.ExecutePreprocessor.timeout = 600
# On JupyterHub, the exchange is a folder every user can reach (see docs/teaching.md):
# c.Exchange.root = "/srv/nbgrader/exchange"
"""


def assignment_name(lesson) -> str:
    """The assignment of a lesson: its notebook's name (``08-controlling-autograd``)."""
    return lesson.notebook.removesuffix(".ipynb")


def _nbgrader(cell, grade_id: str, *, solution: bool, grade: bool) -> None:
    cell.metadata["nbgrader"] = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": grade,
        "schema_version": 3,
        "solution": solution,
        "task": False,
        **({"points": POINTS_PER_EXERCISE} if grade else {}),
    }


def _grade_id(key: str) -> str:
    """nbgrader's id for an exercise's cells: letters, digits, ``_`` and ``-`` only
    (``08.retain_grad`` → ``08-retain_grad``)."""
    return key.replace(".", "-")


def _answer_cell(cell, key: str):
    """The exercise cell with the reference answer in a solution region."""
    template = cell.source.splitlines()
    checks = [line for line in template if is_check_line(line)]
    before = [line for line in template if not is_check_line(line)]
    reference = [line for line in EXERCISES[key].solution.splitlines() if not is_check_line(line)]
    answer = nbformat.v4.new_code_cell("\n".join([*before, "### BEGIN SOLUTION", *reference,
                                                  "### END SOLUTION", *checks]))  # fmt: skip
    answer.metadata["vizgrad"] = {"exercise": key}
    _nbgrader(answer, f"{_grade_id(key)}-answer", solution=True, grade=False)
    return answer


def _test_cell(key: str):
    test = nbformat.v4.new_code_cell(
        f"# Autograded ({POINTS_PER_EXERCISE} point): the lesson's checker must accept the "
        f"answer of exercise {key}.\n"
        "from vizgrad.classroom import grade\n\n"
        f"grade({key!r}, answer)"
    )
    _nbgrader(test, f"{_grade_id(key)}-test", solution=False, grade=True)
    return test


def course_notebook(source: Path):
    """A lesson notebook with nbgrader's cells: an answer cell and a test cell per exercise."""
    _load_lessons()
    nb = nbformat.read(source, as_version=4)
    cells = []
    for cell in nb.cells:
        key = exercise_key(cell)
        if key:
            cells += [_answer_cell(cell, key), _test_cell(key)]
            continue
        if cell.cell_type == "code":
            cell.source = without_solution_calls(cell.source)
        cells.append(cell)
    nb.cells = cells
    return nb


def init_course(directory, *, course_id: str = "vizgrad", lessons=None) -> Path:
    """Write an nbgrader course for ``lessons`` (all by default) into ``directory``."""
    directory = Path(directory)
    source_dir = directory / "source"
    if source_dir.exists() and any(source_dir.iterdir()):
        raise FileExistsError(f"{source_dir} is not empty: choose a new folder for the course")
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "nbgrader_config.py").write_text(
        _CONFIG.format(course_id=course_id, stub=CODE_STUB), encoding="utf-8")  # fmt: skip
    notebooks = notebooks_dir()
    for lesson in lessons or LESSONS:
        assignment = source_dir / assignment_name(lesson)
        assignment.mkdir(parents=True)
        nbformat.write(course_notebook(notebooks / lesson.notebook), assignment / lesson.notebook)
    return directory

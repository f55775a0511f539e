"""The nbgrader course runs through the real nbgrader, end to end, as a class would use it.

Teacher: ``vizgrad course init`` → ``nbgrader generate_assignment`` → ``release_assignment``.
Two students ``fetch_assignment`` and ``submit`` (one with every answer, one with none).
Teacher: ``collect`` → ``autograde`` → ``generate_feedback``; the gradebook must give full
marks to the first and nothing to the second, and the feedback must carry the checker's
explanation.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from vizgrad.classroom.catalogue import find_lesson, notebooks_dir
from vizgrad.classroom.course import CODE_STUB, assignment_name, course_notebook, init_course
from vizgrad.lessons import EXERCISES
from vizgrad.lessons.catalog import LESSONS
from vizgrad.lessons.exercise import _load_lessons

LESSON = find_lesson("8")
ASSIGNMENT = assignment_name(LESSON)
BIN = Path(sys.executable).parent  # nbgrader runs `alembic` from the environment's bin
_load_lessons()


def _nbgrader(*args, cwd, exchange):
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [str(BIN / "nbgrader"), *args, f"--Exchange.root={exchange}",
               "--CourseDirectory.course_id=vizgrad"]  # fmt: skip
    run = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{run.stdout}\n{run.stderr}"
    return run


def _answer(notebook: Path) -> None:
    """Fill every answer cell of a fetched notebook the way a student who knows would."""
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        key = cell.metadata.get("vizgrad", {}).get("exercise")
        if key and cell.metadata.get("nbgrader", {}).get("solution"):
            reference = [line for line in EXERCISES[key].solution.splitlines()
                         if not line.startswith("check(")]  # fmt: skip
            cell.source = cell.source.replace(CODE_STUB, "\n".join(reference))
    nbformat.write(nb, notebook)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    course, exchange = root / "course", root / "exchange"
    exchange.mkdir()
    os.chmod(exchange, 0o777)
    init_course(course, lessons=[LESSON])
    _nbgrader("generate_assignment", ASSIGNMENT, cwd=course, exchange=exchange)
    _nbgrader("release_assignment", ASSIGNMENT, cwd=course, exchange=exchange)
    for student, fill in (("alice", True), ("bob", False)):
        home = root / student
        home.mkdir()
        _nbgrader("fetch_assignment", ASSIGNMENT, cwd=home, exchange=exchange)
        if fill:
            _answer(home / ASSIGNMENT / LESSON.notebook)
        # One machine plays both students: each names itself, as JupyterHub's login would.
        _nbgrader("submit", ASSIGNMENT, f"--student={student}", cwd=home, exchange=exchange)
    _nbgrader("collect", ASSIGNMENT, cwd=course, exchange=exchange)
    _nbgrader("autograde", ASSIGNMENT, "--create", cwd=course, exchange=exchange)
    _nbgrader("generate_feedback", ASSIGNMENT, cwd=course, exchange=exchange)
    return course


def test_the_gradebook_gives_full_marks_for_right_answers_and_none_for_none(graded):
    keys = [k for k in EXERCISES if k.startswith(f"{LESSON.number:02d}.")]
    with Gradebook(f"sqlite:///{graded / 'gradebook.db'}") as gradebook:
        alice = gradebook.find_submission(ASSIGNMENT, "alice")
        bob = gradebook.find_submission(ASSIGNMENT, "bob")
        assert alice.max_score == len(keys)
        assert alice.score == len(keys)
        assert bob.score == 0


def test_feedback_carries_the_checkers_explanation(graded):
    feedback = graded / "feedback" / "bob" / ASSIGNMENT / LESSON.notebook.replace(".ipynb", ".html")
    text = feedback.read_text()
    assert "not answered yet" in text and "AssertionError" in text


def test_released_notebooks_hold_no_reference_answers(graded):
    released = nbformat.read(graded / "release" / ASSIGNMENT / LESSON.notebook, as_version=4)
    source = "\n".join(cell.source for cell in released.cells)
    assert "BEGIN SOLUTION" not in source and "solution(" not in source
    for cell in released.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            key = cell.metadata["vizgrad"]["exercise"]
            assert CODE_STUB in cell.source and "answer = ..." in cell.source
            source_cell = next(c for c in nbformat.read(
                graded / "source" / ASSIGNMENT / LESSON.notebook, as_version=4).cells
                if c.metadata.get("nbgrader", {}).get("grade_id") ==
                cell.metadata["nbgrader"]["grade_id"])  # fmt: skip
            region = source_cell.source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
            assert region.strip() and region not in cell.source, f"{key}'s answer is released"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.notebook)
def test_every_lesson_becomes_an_assignment_with_a_test_per_exercise(lesson):
    nb = course_notebook(notebooks_dir() / lesson.notebook)
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert len(answers) == len(tests) >= 3
    for answer, test in zip(answers, tests, strict=True):
        key = answer.metadata["vizgrad"]["exercise"]
        assert answer.source.count("### BEGIN SOLUTION") == 1
        assert f"grade({key!r}, answer)" in test.source
        assert test.metadata["nbgrader"]["points"] == 1 and test.metadata["nbgrader"]["locked"]

"""Every lesson notebook runs top to bottom: unanswered, and with the reference solutions.

Exercise cells carry the tag ``exercise`` and the exercise key in their metadata
(``"vizgrad": {"exercise": "02.row_stride"}``). Unanswered, every exercise must say
"not answered yet" without failing the run; with each exercise cell replaced by its
reference solution, every exercise must pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from vizgrad.lessons import EXERCISES, LESSONS
from vizgrad.lessons.exercise import _load_lessons

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
REPORT = (
    "import json\n"
    "from vizgrad.lessons import results\n"
    "print('VG_RESULTS=' + json.dumps(results()))\n"
)


def _exercise_key(cell) -> str | None:
    return cell.get("metadata", {}).get("vizgrad", {}).get("exercise")


def _run(nb) -> dict:
    nb.cells.append(nbformat.v4.new_code_cell(REPORT))
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={
        "metadata": {"path": str(NOTEBOOKS)}}).execute()  # fmt: skip
    for output in nb.cells[-1].outputs:
        for line in output.get("text", "").splitlines():
            if line.startswith("VG_RESULTS="):
                return json.loads(line[len("VG_RESULTS=") :])
    raise AssertionError("the notebook did not report its exercise results")


def _lessons_present():
    return [lesson for lesson in LESSONS if (NOTEBOOKS / lesson.notebook).exists()]


@pytest.fixture(scope="module", autouse=True)
def _exercises_loaded():
    _load_lessons()


@pytest.mark.parametrize("lesson", _lessons_present(), ids=lambda lesson: lesson.notebook)
def test_notebook_runs_unanswered_and_says_so(lesson):
    nb = nbformat.read(NOTEBOOKS / lesson.notebook, as_version=4)
    keys = [_exercise_key(c) for c in nb.cells if _exercise_key(c)]
    assert len(keys) >= 3, f"{lesson.notebook} has {len(keys)} exercises; lessons need at least 3"
    assert all(key in EXERCISES for key in keys), "an exercise cell names an unknown exercise"
    results = _run(nb)
    assert {k: results.get(k) for k in keys} == {k: "not answered yet" for k in keys}


@pytest.mark.parametrize("lesson", _lessons_present(), ids=lambda lesson: lesson.notebook)
def test_notebook_passes_with_the_reference_solutions(lesson):
    nb = nbformat.read(NOTEBOOKS / lesson.notebook, as_version=4)
    keys = []
    for cell in nb.cells:
        key = _exercise_key(cell)
        if key:
            cell.source = EXERCISES[key].solution
            keys.append(key)
    results = _run(nb)
    assert {k: results.get(k) for k in keys} == {k: "correct" for k in keys}


def test_every_lesson_has_a_notebook_and_the_start_page_lists_them():
    start = (NOTEBOOKS / "00-start-here.ipynb").read_text()
    for lesson in LESSONS:
        assert (NOTEBOOKS / lesson.notebook).exists(), f"missing {lesson.notebook}"
        assert lesson.notebook in start, f"the start page does not link {lesson.notebook}"


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_are_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, (
                f"{path.name} is stored with outputs: clear them before committing"
            )


def test_exercise_keys_are_unique_across_notebooks():
    seen = {}
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            key = _exercise_key(cell)
            if key:
                assert key not in seen, f"{key} appears in {seen[key]} and {path.name}"
                seen[key] = path.name

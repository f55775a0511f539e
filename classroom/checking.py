"""``vizgrad check NOTEBOOK...``: run students' notebooks and say what passed.

Each notebook runs top to bottom in a fresh kernel, as "Restart Kernel and Run All
Cells" would (a cell that raises does not stop the rest, so one broken exercise does
not hide the others). A last cell asks the lessons which exercises were checked and
how (``vizgrad.lessons.results()``). The report has one row per student and one
column per exercise: ``correct``, ``wrong``, ``not answered yet``, ``error`` (the
exercise's cell raised: its exception's name is kept) or ``not run``.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from .cells import exercise_key

__all__ = ["NotebookResult", "check_notebooks", "write_csv", "format_table"]

_MARK = "VG_RESULTS="
_REPORT = (
    f"import json\nfrom vizgrad.lessons import results\nprint({_MARK!r} + json.dumps(results()))\n"
)
NOT_RUN = "not run"


@dataclass
class NotebookResult:
    """What one student's notebook gave for each of its exercises."""

    student: str
    notebook: Path
    statuses: dict = field(default_factory=dict)  # exercise key -> status
    problem: str = ""  # why the notebook could not be run at all, if it could not

    @property
    def passed(self) -> int:
        return sum(status == "correct" for status in self.statuses.values())


def _student_names(paths: list[Path]) -> list[str]:
    """Name each notebook's student: the folder it was handed in from when those differ
    (``submitted/alice/08.ipynb`` → ``alice``), else the file's name."""
    parents = [p.resolve().parent.name for p in paths]
    if len(set(parents)) == len(paths):
        return parents
    return [p.stem for p in paths]


def _run(path: Path, timeout: int) -> tuple[dict, str]:
    """Run one notebook: its exercises' statuses, and why it could not run (``""`` if it
    ran)."""
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as error:  # not JSON, not a notebook: say so for this student
        return {}, f"cannot read the notebook: {type(error).__name__}: {error}"
    keys = [exercise_key(c) for c in nb.cells if exercise_key(c)]
    nb.cells.append(nbformat.v4.new_code_cell(_REPORT))
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(path.resolve().parent)}})  # fmt: skip
    try:
        client.execute()
    except Exception as error:  # the kernel died or a cell ran past the timeout
        return {k: NOT_RUN for k in keys}, f"{type(error).__name__}: {error}"
    errors = {}
    for cell in nb.cells:
        key = exercise_key(cell)
        for output in cell.get("outputs", []) if key else []:
            if output.get("output_type") == "error":
                errors[key] = f"error ({output.get('ename', 'Exception')})"
    reported = {}
    for output in nb.cells[-1].get("outputs", []):
        for line in output.get("text", "").splitlines():
            if line.startswith(_MARK):
                reported = json.loads(line[len(_MARK) :])
    statuses = {key: errors.get(key) or reported.get(key, NOT_RUN) for key in keys}
    return statuses, ""


def check_notebooks(paths, *, timeout: int = 300) -> list[NotebookResult]:
    """Run every notebook in ``paths`` and collect what each exercise gave."""
    paths = [Path(p) for p in paths]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"no such notebook: {', '.join(missing)}")
    results = []
    for student, path in zip(_student_names(paths), paths, strict=True):
        statuses, problem = _run(path, timeout)
        results.append(NotebookResult(student, path, statuses, problem))
    return results


def _exercise_columns(results) -> list[str]:
    columns = []
    for result in results:
        columns += [key for key in result.statuses if key not in columns]
    return columns


_SHORT = {"correct": "✓", "wrong": "✗", "not answered yet": "…", NOT_RUN: "-"}


def format_table(results) -> str:
    """A plain-text table: a row per student, a column per exercise, and a total."""
    columns = _exercise_columns(results)
    header = ["student", *columns, "passed"]
    rows = []
    for result in results:
        cells = [_SHORT.get(result.statuses.get(key, NOT_RUN), "E") for key in columns]
        total = f"{result.passed}/{len(result.statuses)}"
        rows.append(
            [result.student, *cells, total + (f"  ({result.problem})" if result.problem else "")]
        )
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header) - 1)]
    lines = ["  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=False))
             + "  " + str(row[-1]) for row in [header, *rows]]  # fmt: skip
    legend = "✓ correct   ✗ wrong   … not answered yet   E the cell raised   - not run"
    return "\n".join([*lines, "", legend])


def write_csv(results, path) -> Path:
    """One row per student and exercise: student, notebook, exercise, status."""
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "notebook", "exercise", "status"])
        for result in results:
            if result.problem and not result.statuses:
                writer.writerow([result.student, os.fspath(result.notebook), "", result.problem])
            for key, status in result.statuses.items():
                writer.writerow([result.student, os.fspath(result.notebook), key, status])
    return path

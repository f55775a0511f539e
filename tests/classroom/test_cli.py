"""The ``vizgrad`` command, run as a teacher runs it: each subcommand end to end."""

from __future__ import annotations

import csv
import json
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from vizgrad.classroom.catalogue import find_lesson, notebooks_dir
from vizgrad.classroom.cli import main
from vizgrad.lessons import EXERCISES
from vizgrad.lessons.catalog import LESSONS
from vizgrad.lessons.exercise import _load_lessons

_load_lessons()

BIN = Path(sys.executable).parent
LESSON = find_lesson("8")


def test_the_console_script_is_installed_and_lists_every_lesson():
    run = subprocess.run([str(BIN / "vizgrad"), "lessons"], capture_output=True, text=True,
                         timeout=60)  # fmt: skip
    assert run.returncode == 0, run.stderr
    for lesson in LESSONS:
        assert re.search(rf"^\s*{lesson.number}\s+{re.escape(lesson.title)}\s+\d+\s+"
                         rf"{re.escape(lesson.notebook)}$", run.stdout, re.M), lesson  # fmt: skip


@pytest.mark.parametrize("name", ["8", "08", "08-controlling-autograd",
                                  "notebooks/08-controlling-autograd.ipynb", "lesson08"])  # fmt: skip
def test_a_lesson_is_found_by_any_of_its_names(name):
    assert find_lesson(name) == LESSON


def test_an_unknown_lesson_is_one_line_and_exit_status_2(capsys, tmp_path):
    assert main(["export", "99", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vizgrad export: no lesson named '99'") and "1 (01-" in err


def test_student_copy_has_every_notebook_and_no_solution(tmp_path, capsys):
    assert main(["student-copy", str(tmp_path / "class")]) == 0
    written = sorted(p.name for p in (tmp_path / "class").glob("*.ipynb"))
    assert written == sorted(p.name for p in notebooks_dir().glob("*.ipynb"))
    for path in (tmp_path / "class").glob("*.ipynb"):
        original = nbformat.read(notebooks_dir() / path.name, as_version=4)
        copy = nbformat.read(path, as_version=4)
        code = "\n".join(c.source for c in copy.cells if c.cell_type == "code")
        assert not re.search(r"^\s*#?\s*solution\(", code, re.M), path.name
        exercises = [(c.metadata, c.source) for c in original.cells
                     if c.metadata.get("vizgrad", {}).get("exercise")]  # fmt: skip
        assert exercises == [(c.metadata, c.source) for c in copy.cells
                             if c.metadata.get("vizgrad", {}).get("exercise")]  # fmt: skip
    # A second copy over the first would overwrite a student's work: refused, unless asked.
    assert main(["student-copy", str(tmp_path / "class")]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["student-copy", str(tmp_path / "class"), "--overwrite"]) == 0


def _hand_in(folder: Path, answers: dict) -> Path:
    """Lesson 8 as a student hands it in: ``answers`` maps an exercise to its cell's source."""
    nb = nbformat.read(notebooks_dir() / LESSON.notebook, as_version=4)
    for cell in nb.cells:
        key = cell.metadata.get("vizgrad", {}).get("exercise")
        if key in answers:
            cell.source = answers[key]
    folder.mkdir(parents=True)
    path = folder / LESSON.notebook
    nbformat.write(nb, path)
    return path


def test_check_reports_each_student_and_exercise_as_a_table_and_csv(tmp_path, capsys):
    keys = [k for k in EXERCISES if k.startswith("08.")]
    right = {key: EXERCISES[key].solution for key in keys}
    alice = _hand_in(tmp_path / "alice", right)
    bob = _hand_in(tmp_path / "bob", {})
    carol = _hand_in(
        tmp_path / "carol",
        {
            keys[0]: 'answer = (True, True, True, True)\ncheck("08.requires_grad", answer)',
            keys[1]: "raise ZeroDivisionError('a slip')",
            **{key: right[key] for key in keys[2:]},
        },
    )
    broken = tmp_path / "dave" / LESSON.notebook
    broken.parent.mkdir()
    broken.write_text("not a notebook")
    report = tmp_path / "report.csv"
    assert main(["check", str(alice), str(bob), str(carol), str(broken), "--csv", str(report)]) == 0
    table = capsys.readouterr().out
    assert re.search(rf"^alice\s.*\s{len(keys)}/{len(keys)}$", table, re.M), table
    assert re.search(rf"^bob\s.*\s0/{len(keys)}$", table, re.M), table
    assert re.search(rf"^carol\s+✗\s+E\s.*\s{len(keys) - 2}/{len(keys)}$", table, re.M), table
    assert re.search(r"^dave\s.*cannot read the notebook", table, re.M), table
    rows = list(csv.DictReader(report.open()))
    status = {(r["student"], r["exercise"]): r["status"] for r in rows}
    assert all(status["alice", key] == "correct" for key in keys)
    assert all(status["bob", key] == "not answered yet" for key in keys)
    assert status["carol", keys[0]] == "wrong"
    assert status["carol", keys[1]] == "error (ZeroDivisionError)"
    assert status["dave", ""].startswith("cannot read the notebook")


def test_check_of_a_missing_notebook_says_which(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.ipynb")]) == 2
    assert "no such notebook" in capsys.readouterr().err


def test_course_init_writes_an_nbgrader_course(tmp_path, capsys):
    assert main(["course", "init", str(tmp_path / "course"), "--lessons", "3", "8"]) == 0
    config = (tmp_path / "course" / "nbgrader_config.py").read_text()
    assert "c.CourseDirectory.course_id = 'vizgrad'" in config
    sources = sorted(p.relative_to(tmp_path / "course").as_posix()
                     for p in (tmp_path / "course" / "source").rglob("*.ipynb"))  # fmt: skip
    assert sources == [f"source/{find_lesson(n).notebook[:-6]}/{find_lesson(n).notebook}"
                       for n in ("3", "8")]  # fmt: skip
    assert main(["course", "init", str(tmp_path / "course")]) == 2  # not over a course


def test_export_writes_one_page_with_the_views_and_the_recordings(tmp_path):
    out = tmp_path / "lesson07.html"
    assert main(["export", "7", str(out)]) == 0
    page = out.read_text()
    state = json.loads(re.search(r'<script type="application/json" id="vg-widget-state">(.*?)'
                                 r"</script>", page, re.S).group(1))  # fmt: skip
    placeholders = re.findall(r'class="vg-offline-widget" data-model-id="(\w+)"', page)
    assert placeholders and all(model_id in state for model_id in placeholders)
    assert any("_esm" in entry["state"] for entry in state.values())
    assert 'class="vg-lesson-recording"' in page and "vg-export" in page  # the replay player
    assert "application/vnd.jupyter.widget-view+json" not in page
    assert "https://" not in re.sub(r"<a [^>]*>", "", page).split("<script")[0]
    assert "correct" in page  # run with the reference answers


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_lab_serves_the_start_page(tmp_path):
    port = _free_port()
    env_home = {"JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "PATH": str(BIN)}
    process = subprocess.Popen(
        [str(BIN / "vizgrad"), "lab", "--no-browser", f"--port={port}", "--ServerApp.token=",
         "--ServerApp.ip=127.0.0.1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, env={**__import__("os").environ, **env_home})  # fmt: skip
    try:
        import urllib.request

        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/"
                                            "00-start-here.ipynb?content=0") as response:  # fmt: skip
                    assert json.load(response)["name"] == "00-start-here.ipynb"
                break
            except OSError:
                assert process.poll() is None, process.stdout.read()
                assert time.monotonic() < deadline, "JupyterLab did not start in 60 s"
                time.sleep(0.5)
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert shutil.which("jupyter", path=str(BIN))

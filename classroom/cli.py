"""The ``vizgrad`` command: the lessons for a teacher's and a student's shell.

::

    vizgrad lessons                       the catalogue
    vizgrad lab                           JupyterLab on the start page
    vizgrad student-copy OUTDIR           the notebooks without solutions
    vizgrad check NOTEBOOK... [--csv F]   run students' notebooks: what passed, per exercise
    vizgrad export LESSON OUT.html        a lesson with its recordings as one page
    vizgrad course init DIR               an nbgrader course of the lessons

Errors a person can fix (a missing notebook, an unknown lesson, a folder in use) are
printed as one line, with exit status 2; everything else is a bug and shows its
traceback.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import nbformat
from vizgrad.lessons.catalog import LESSONS

from .catalogue import START_PAGE, find_lesson, notebooks_dir
from .cells import exercise_key

__all__ = ["main"]


def _lessons(args) -> int:
    folder = notebooks_dir()
    print(f"{'#':>3}  {'lesson':<42}{'exercises':>9}  notebook")
    for lesson in LESSONS:
        cells = nbformat.read(folder / lesson.notebook, as_version=4).cells
        count = sum(1 for cell in cells if exercise_key(cell))
        print(f"{lesson.number:>3}  {lesson.title:<42}{count:>9}  {lesson.notebook}")
    print(f"\nThe notebooks are in {folder}; `vizgrad lab` opens {START_PAGE}.")
    return 0


def _lab(args) -> int:
    command = [sys.executable, "-m", "jupyter", "lab", str(notebooks_dir() / START_PAGE)]
    if hasattr(os, "getuid") and os.getuid() == 0:
        command.append("--allow-root")  # as root (a container), JupyterLab asks for it
    command += args.jupyter_args
    return subprocess.call(command)


def _student_copy(args) -> int:
    from .student_copy import write_student_copy

    written = write_student_copy(args.outdir, overwrite=args.overwrite)
    print(f"wrote {len(written)} notebooks without solutions to {args.outdir}")
    return 0


def _check(args) -> int:
    from .checking import check_notebooks, format_table, write_csv

    results = check_notebooks(args.notebooks, timeout=args.timeout)
    print(format_table(results))
    if args.csv:
        print(f"\nwrote {write_csv(results, args.csv)}")
    return 0


def _export(args) -> int:
    from .export import export_lesson

    path = export_lesson(find_lesson(args.lesson), args.out, timeout=args.timeout)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


def _course_init(args) -> int:
    from .course import init_course

    lessons = [find_lesson(name) for name in args.lessons] if args.lessons else None
    directory = init_course(args.dir, course_id=args.course_id, lessons=lessons)
    print(f"wrote the nbgrader course {args.course_id!r} to {directory}: one assignment per "
          f"lesson in {directory / 'source'}.\nNext, from that folder: nbgrader "
          "generate_assignment <assignment> (see docs/teaching.md)")  # fmt: skip
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vizgrad", description="vizgrad's lessons: open, hand out, check, export, grade."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    commands.add_parser("lessons", help="list the lessons").set_defaults(run=_lessons)

    lab = commands.add_parser("lab", help="open the lessons in JupyterLab")
    lab.set_defaults(run=_lab)  # other options go on to jupyter lab (--no-browser, --port)

    copy = commands.add_parser("student-copy", help="write the notebooks without solutions")
    copy.add_argument("outdir")
    copy.add_argument(
        "--overwrite", action="store_true", help="replace notebooks already in OUTDIR"
    )
    copy.set_defaults(run=_student_copy)

    check = commands.add_parser(
        "check", help="run students' notebooks and report, per student and exercise, what passed"
    )
    check.add_argument("notebooks", nargs="+", metavar="NOTEBOOK")
    check.add_argument("--csv", metavar="FILE", help="also write the report as CSV")
    check.add_argument("--timeout", type=int, default=300, help="seconds a cell may run")
    check.set_defaults(run=_check)

    export = commands.add_parser("export", help="write a lesson, run, as one HTML page")
    export.add_argument("lesson", help="its number (8) or notebook (08-controlling-autograd)")
    export.add_argument("out", metavar="OUT.html")
    export.add_argument("--timeout", type=int, default=600, help="seconds a cell may run")
    export.set_defaults(run=_export)

    course = commands.add_parser("course", help="an nbgrader course of the lessons")
    course_commands = course.add_subparsers(dest="course_command", required=True,
                                            metavar="COMMAND")  # fmt: skip
    init = course_commands.add_parser("init", help="write the course into DIR")
    init.add_argument("dir", metavar="DIR")
    init.add_argument("--course-id", default="vizgrad")
    init.add_argument(
        "--lessons",
        nargs="+",
        metavar="LESSON",
        help="only these lessons (numbers or notebook names); all by default",
    )
    init.set_defaults(run=_course_init)
    return parser


def main(argv=None) -> int:
    """Run the ``vizgrad`` command with ``argv`` (``sys.argv[1:]`` by default)."""
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown and args.command != "lab":
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    args.jupyter_args = unknown
    try:
        return args.run(args)
    except (FileNotFoundError, FileExistsError, ValueError) as error:
        print(f"vizgrad {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

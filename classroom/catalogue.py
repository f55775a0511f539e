"""Where the lesson notebooks are, and which lesson a name on the command line means."""

from __future__ import annotations

from pathlib import Path

from vizgrad.lessons.catalog import LESSONS, Lesson

from vizgrad import lessons

__all__ = ["START_PAGE", "notebooks_dir", "find_lesson"]

START_PAGE = "00-start-here.ipynb"


def notebooks_dir() -> Path:
    """The folder of the lesson notebooks: ``notebooks/`` beside ``lessons/`` in the checkout.

    vizgrad is installed editable from a clone (the README's ``make lab``), so the
    notebooks are read where the teacher edits them, never from a stale copy.
    """
    folder = Path(lessons.__file__).resolve().parent.parent / "notebooks"
    if not (folder / START_PAGE).exists():
        raise FileNotFoundError(
            f"the lesson notebooks are not at {folder}: the vizgrad command works from a clone "
            "of the vizgrad repository, installed with 'make lab' (pip install -e .)")  # fmt: skip
    return folder


def find_lesson(name: str) -> Lesson:
    """The lesson ``name`` means: its number (``8``, ``08``), its notebook's file name
    (``08-controlling-autograd.ipynb``, with or without ``.ipynb`` or a folder), or its
    module (``lesson08``)."""
    text = str(name).strip()
    stem = Path(text).name.removesuffix(".ipynb")
    for lesson in LESSONS:
        names = {str(lesson.number), f"{lesson.number:02d}", lesson.notebook.removesuffix(".ipynb"),
                 lesson.module}  # fmt: skip
        if stem in names:
            return lesson
    known = ", ".join(f"{lesson.number} ({lesson.notebook})" for lesson in LESSONS)
    raise ValueError(f"no lesson named {name!r}; the lessons are {known}")

"""``vizgrad student-copy OUTDIR``: the lessons as students receive them.

The notebooks in the repository are already unanswered (every exercise reads
``answer = ...``); a student copy also drops the cells' ``solution(key)`` lines, so
the reference answers are not one uncommented line away. (The answers still ship in
the ``vizgrad.lessons`` package a student has installed: for marked work, use the
nbgrader course, ``vizgrad course init``, and set ``VIZGRAD_HIDE_SOLUTIONS=1`` on the
students' servers.)
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from .catalogue import notebooks_dir
from .cells import without_solution_calls

__all__ = ["write_student_copy"]


def write_student_copy(out_dir, *, overwrite: bool = False) -> list[Path]:
    """Write every lesson notebook (and the start page) without solutions into ``out_dir``.

    Returns the paths written. Refuses to overwrite existing notebooks unless
    ``overwrite`` (a student's work may be in them).
    """
    out_dir = Path(out_dir)
    sources = sorted(notebooks_dir().glob("*.ipynb"))
    existing = [out_dir / s.name for s in sources if (out_dir / s.name).exists()]
    if existing and not overwrite:
        raise FileExistsError(
            f"{out_dir} already holds {len(existing)} of the notebooks ({existing[0].name}, …); "
            "choose an empty folder, or pass --overwrite to replace them")  # fmt: skip
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for source in sources:
        nb = nbformat.read(source, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.source = without_solution_calls(cell.source)
        path = out_dir / source.name
        nbformat.write(nb, path)
        written.append(path)
    return written

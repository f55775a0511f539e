"""What the classroom tools need to know about a lesson notebook's cells.

An exercise cell carries its key in its metadata (``{"vizgrad": {"exercise":
"08.retain_grad"}}``) and ends with the line that checks the answer
(``check("08.retain_grad", answer)``); the cell after it offers ``hint(key)`` and
``solution(key)`` as comments.
"""

from __future__ import annotations

import re

__all__ = ["exercise_key", "is_check_line", "without_solution_calls"]

_CHECK_LINE = re.compile(r"^\s*check\(")
_SOLUTION_CALL = re.compile(r"^\s*#?\s*solution\(")


def exercise_key(cell) -> str | None:
    """The exercise a cell answers, or ``None`` for any other cell."""
    return cell.get("metadata", {}).get("vizgrad", {}).get("exercise")


def is_check_line(line: str) -> bool:
    """Is this the line that checks an answer (``check("02.row_stride", answer)``)?"""
    return bool(_CHECK_LINE.match(line))


def without_solution_calls(source: str) -> str:
    """``source`` without its lines that reveal a solution (``# solution("08.x")``)."""
    return "\n".join(line for line in source.splitlines() if not _SOLUTION_CALL.match(line))

"""Every example in the README runs, and says what it does.

A README line ``x.stride()  # (3, 1)`` is checked: the expression's ``repr`` must be
``(3, 1)`` (a trailing ``...]`` allows more elements), and ``# RuntimeError: view
size...`` means the line must raise that error with that message. Comment lines right
after a ``print(...)`` are output it must print. Shell examples must name commands that
exist: ``make`` targets and ``vizgrad`` subcommands the command line accepts.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
from vizgrad.classroom.cli import _parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
TEACHING = (ROOT / "docs" / "teaching.md").read_text(encoding="utf-8")
_EXPECTED_VALUE = re.compile(r"^(\(|\[|tensor\(|True$|False$|-?\d|'|[A-Z]\w*Error: )")


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def _trailing_comment(line: str) -> str | None:
    tokens = line.split("  # ", 1)
    return tokens[1].strip() if len(tokens) == 2 else None


def _check_value(value, expected: str, source: str) -> None:
    shown = repr(value)
    if expected.endswith("...]"):
        assert shown.startswith(expected[:-4]), f"{source}: {shown} does not start as {expected}"
    else:
        assert shown == expected, f"{source}: README says {expected}, it gives {shown}"


def _run_block(code: str, namespace: dict) -> None:
    lines = code.splitlines()
    statements = ast.parse(code).body
    for index, statement in enumerate(statements):
        source = ast.get_source_segment(code, statement)
        comment = _trailing_comment(lines[statement.end_lineno - 1])
        expects = comment is not None and _EXPECTED_VALUE.match(comment)
        if isinstance(statement, ast.Expr) and expects:
            error = re.match(r"^([A-Z]\w*Error): (.*)$", comment)
            if error:
                with pytest.raises(Exception) as raised:
                    eval(compile(ast.Expression(statement.value), "README", "eval"), namespace)
                assert type(raised.value).__name__ == error.group(1), source
                assert str(raised.value).startswith(error.group(2)), (source, str(raised.value))
            else:
                value = eval(compile(ast.Expression(statement.value), "README", "eval"), namespace)
                _check_value(value, comment, source)
            continue
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            exec(compile(ast.Module([statement], []), "README", "exec"), namespace)
        # Comment lines right after a print are what it prints.
        following = statements[index + 1].lineno - 1 if index + 1 < len(statements) else len(lines)
        shown = [line[1:] for line in lines[statement.end_lineno:following]
                 if line.startswith("#")]  # fmt: skip
        if shown and source.startswith("print("):
            for line in shown:
                assert line.strip() in output.getvalue(), (source, line, output.getvalue())


@pytest.mark.parametrize("index", range(len(_blocks(README, "python"))))
def test_readme_python_example_runs_as_it_says(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples write files (digits.pt, step.html)
    _run_block(_blocks(README, "python")[index], {"__name__": "readme"})


def test_readme_has_examples():
    assert len(_blocks(README, "python")) >= 4 and _blocks(README, "sh")


@pytest.mark.parametrize("text", [README, TEACHING], ids=["README", "teaching"])
def test_shell_examples_name_commands_that_exist(text):
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))
    commands = re.findall(r"`((?:make|vizgrad) [^`]*)`", text)
    for block in _blocks(text, "sh"):
        commands += [line.split("#")[0].strip() for line in block.splitlines()]
    checked = 0
    for command in commands:
        words = shlex.split(re.sub(r"\[[^]]*\]", "", command))  # optional parts: [--csv F]
        if not words or words[0] not in ("make", "vizgrad"):
            continue
        checked += 1
        if words[0] == "make":
            assert words[1] in targets, command
        else:
            try:
                args, unknown = _parser().parse_known_args(words[1:])
            except SystemExit:
                pytest.fail(f"the README's `{command}` is not a command vizgrad accepts")
            assert not unknown or args.command == "lab", command
    assert checked >= 5


def test_nothing_points_outside_the_repository():
    """No relative link or path in the README or docs leads out of the repository."""
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        targets = re.findall(r"\]\(([^)#\s]+)", text) + re.findall(r"`(\.\./[^`\s]*)`", text)
        for target in targets:
            if re.match(r"[a-z]+:", target):
                continue  # a web address, not a path
            resolved = (path.parent / target).resolve()
            assert resolved.is_relative_to(ROOT), f"{path.name} points outside: {target}"

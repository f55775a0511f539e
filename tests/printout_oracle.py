"""Run a PyTorch program twice, with ``import torch`` giving PyTorch and then vizgrad.

The mapping lives in the program's own ``__import__`` (nothing is patched process-wide);
the two printouts must be the same text with the same numbers up to float rounding.
While it runs, the program's namespace is importable as the module ``tutorial`` so that
pickle finds the classes it defines (``torch.save(model)`` of a class written in the
program), as it would in a script run as ``__main__``.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import re
import sys
import types
import warnings

import numpy as np
import torch

import vizgrad as vg

NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:e[+-]?\d+)?")
ADDRESS = re.compile(r"0x[0-9a-f]+")
PROGRAM = "tutorial"


@contextlib.contextmanager
def _importable(module: types.ModuleType):
    sys.modules[module.__name__] = module
    try:
        yield
    finally:
        del sys.modules[module.__name__]


def run_as(library, code: str, env: dict, *, catch: bool = False, warns: bool = False) -> str:
    """Run ``code`` with ``import torch`` importing ``library``; return what it printed.

    With ``catch``, an exception ending the program is part of the printout (its class and
    message on a last line), as a notebook cell shows it; otherwise it propagates. With
    ``warns``, the warnings it raised follow, one line each (class and message).
    """
    real_import = builtins.__import__

    def import_(name, globals=None, locals=None, fromlist=(), level=0):
        if library is vg and (name == "torch" or name.startswith("torch.")):
            name = "vizgrad" + name[len("torch") :]
        return real_import(name, globals, locals, fromlist, level)

    module = types.ModuleType(PROGRAM)
    namespace = module.__dict__
    namespace["__builtins__"] = {**vars(builtins), "__import__": import_}
    namespace.update(env)
    out = io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        _importable(module),
        warnings.catch_warnings(record=True) as raised,
    ):
        warnings.simplefilter("always" if warns else "ignore")
        try:
            exec(compile(code, f"<{PROGRAM}>", "exec"), namespace)
        except Exception as error:
            if not catch:
                raise
            print(f"{type(error).__name__}: {error}")
    warned = "".join(f"{w.category.__name__}: {w.message}\n" for w in raised)
    return out.getvalue() + warned


def normalised(text: str, *, loose: bool = False) -> tuple[str, list[float]]:
    """The text with numbers as ``#`` and runs of whitespace as one space, and the numbers.

    ``loose`` drops the whitespace entirely: the padding of a printed tensor depends on its
    values (a column of negative numbers is one character wider), so text around random
    values can only be compared without it.
    """
    text = ADDRESS.sub("0xADDR", text.replace("vizgrad", "torch"))
    numbers = [float(n) for n in NUMBER.findall(text)]
    skeleton = ("" if loose else " ").join(NUMBER.sub("#", text).split())
    return skeleton, numbers


def assert_same_printout(
    code: str,
    *,
    random_values: bool = False,
    env=None,
    catch: bool = False,
    warns: bool = False,
    rtol: float = 2e-4,
    atol: float = 2e-5,
) -> str:
    """Both runs print the same text and numbers; return vizgrad's printout.

    ``random_values`` compares only the text around the numbers and their count (values
    drawn from the libraries' different random streams); ``catch`` compares an exception
    ending the program like printed text, ``warns`` the warnings it raised; ``env`` maps "torch"/"vizgrad" to the names each
    run starts with.
    """
    env = env or {}
    theirs = run_as(torch, code, env.get("torch", {}), catch=catch, warns=warns)
    mine = run_as(vg, code, env.get("vizgrad", {}), catch=catch, warns=warns)
    their_text, their_numbers = normalised(theirs, loose=random_values)
    my_text, my_numbers = normalised(mine, loose=random_values)
    assert my_text == their_text, f"vizgrad printed:\n{mine}\ntorch printed:\n{theirs}"
    assert len(my_numbers) == len(their_numbers)
    if not random_values:
        np.testing.assert_allclose(
            my_numbers, their_numbers, rtol=rtol, atol=atol, err_msg=f"{mine}\n---\n{theirs}"
        )
    return mine

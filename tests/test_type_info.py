"""``vizgrad.finfo`` and ``vizgrad.iinfo``: every attribute, the printed form, equality and
the errors, as ``torch.finfo``/``torch.iinfo`` (``torch/csrc/TypeInfo.cpp``)."""

from __future__ import annotations

import pytest
import torch

import vizgrad as vg

FLOATING = ["float16", "float32", "float64", "complex64", "complex128"]
INTEGER = ["uint8", "int8", "int16", "int32", "int64"]


def outcome(lib, code: str):
    try:
        return repr(eval(code, {"lib": lib})).replace("torch.", "vizgrad.")
    except Exception as error:  # noqa: BLE001 - compared with torch's
        return type(error).__name__, str(error).replace("torch.", "vizgrad.")


@pytest.mark.parametrize("name", FLOATING)
def test_finfo_matches_torch(name):
    mine, theirs = vg.finfo(getattr(vg, name)), torch.finfo(getattr(torch, name))
    for attribute in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(mine, attribute) == getattr(theirs, attribute), attribute
        assert type(getattr(mine, attribute)) is type(getattr(theirs, attribute)), attribute
    assert mine.dtype == theirs.dtype
    assert repr(mine) == repr(theirs) and str(mine) == str(theirs)


@pytest.mark.parametrize("name", INTEGER)
def test_iinfo_matches_torch(name):
    mine, theirs = vg.iinfo(getattr(vg, name)), torch.iinfo(getattr(torch, name))
    for attribute in ("bits", "max", "min", "dtype"):
        assert getattr(mine, attribute) == getattr(theirs, attribute), attribute
    assert repr(mine) == repr(theirs)


@pytest.mark.parametrize(
    "code",
    ["lib.finfo()", "lib.finfo(lib.int32)", "lib.finfo(lib.bool)", "lib.finfo('float32')",
     "lib.iinfo(lib.bool)", "lib.iinfo(lib.float32)", "lib.iinfo(lib.complex64)", "lib.iinfo(3)",
     "lib.finfo(lib.float32) == lib.finfo(lib.float32)",
     "lib.finfo(lib.float32) == lib.finfo(lib.complex64)",
     "lib.finfo(lib.float32) == lib.finfo(lib.float64)",
     "lib.iinfo(lib.int8) == lib.iinfo(lib.int8)", "lib.iinfo(lib.int8) == lib.iinfo(lib.uint8)"],
)  # fmt: skip
def test_type_info_calls_match_torch(code):
    assert outcome(vg, code) == outcome(torch, code)


def test_finfo_follows_the_default_dtype():
    try:
        for lib in (vg, torch):
            lib.set_default_dtype(lib.float64)
        assert repr(vg.finfo()) == repr(torch.finfo())
    finally:
        for lib in (vg, torch):
            lib.set_default_dtype(lib.float32)

"""Creation, ranges, copy and fill, declared from whole schemas: their overloads, and the
errors the generated (or hand-written binding) parsers raise, against PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same_error

import vizgrad as vg


def _same_error(expr: str):
    def call(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return eval(expr, {"lib": lib, "np": np, "x": lib.zeros(2, 3)})  # noqa: S307

    assert_same_error(lambda: call(vg), lambda: call(torch))


@pytest.mark.parametrize(
    ("function", "overloads"),
    [
        (vg.fill, ["fill.Scalar", "fill.Tensor", "fill_.Scalar", "fill_.Tensor"]),
        (vg.zero_, ["zero_"]),
    ],
)
def test_overloads_come_from_the_declaration(function, overloads):
    assert sorted(function.overloads) == overloads


BAD_CALLS = [
    # fill
    "x.fill_('a')",
    "x.fill_()",
    "x.fill_(1, 2)",
    "lib.fill(x, 'a')",
    "lib.fill(x, lib.ones(2))",
    "lib.fill(x, 1.5, out=x)",
    "lib.zero_([1])",
    "lib.zeros(2, dtype=lib.int32).fill_(2**40)",
    "x.fill_(1j)",
]


@pytest.mark.parametrize("expr", BAD_CALLS)
def test_bad_calls_raise_torchs_errors(expr):
    _same_error(expr)

"""``masked_fill`` with a Tensor value refuses what PyTorch refuses, first what it checks first.

Several things wrong at once (a value that is not 0-dim, a mask that is not bool, shapes
that do not broadcast, a mask that broadcasts beyond an in-place ``self``, an expanded
``self``, a value of another dtype) raise the error of the check PyTorch makes first:
the functional form broadcasts ``mask`` against ``self`` (``expand_outplace(mask,
self)``: the mask is tensor "a"), then ``masked_fill_`` checks the value's dim before
the mask's dtype. Each call is compared with PyTorch: the error (class and message) and
warnings, or the result.
"""

from __future__ import annotations

import itertools
import warnings

import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg

SELVES = {
    "float": "lib.zeros(2, 3)",
    "long": "lib.zeros(2, 3, dtype=lib.int64)",
    "expanded": "lib.zeros(3).expand(2, 3)",
    "smaller than the mask": "lib.zeros(3)",
}
MASKS = {
    "bool": "lib.tensor([True, False, True])",
    "uint8": "lib.tensor([1, 0, 1], dtype=lib.uint8)",
    "float": "lib.tensor([1., 0., 1.])",
    "not broadcastable": "lib.tensor([True, False])",
    "bigger than self": "lib.ones(4, 2, 3, dtype=lib.bool)",
    "self as bool": None,
}
VALUES = {
    "0-dim float": "lib.tensor(2.5)",
    "1-dim": "lib.tensor([2.5])",
    "2 elements": "lib.tensor([1., 2.])",
    "0-dim complex": "lib.tensor(1j)",
    "0-dim long": "lib.tensor(7)",
    "0-dim bool": "lib.tensor(True)",
}
CASES = list(itertools.product(["masked_fill_", "masked_fill"], SELVES, MASKS, VALUES))


def _call(lib, form: str, self_: str, mask: str, value: str):
    names = {"lib": lib}
    s = eval(SELVES[self_], names)  # noqa: S307 - our own cases
    m = s.bool() if MASKS[mask] is None else eval(MASKS[mask], names)  # noqa: S307
    v = eval(VALUES[value], names)  # noqa: S307
    return s.masked_fill_(m, v) if form == "masked_fill_" else lib.masked_fill(s, m, v)


def _outcome(lib, *case):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = _call(lib, *case)
        except Exception as error:  # noqa: BLE001 - compared below
            result = error
    return result, [str(w.message)[:60] for w in caught]


@pytest.mark.parametrize(("form", "self_", "mask", "value"), CASES)
def test_masked_fill_with_a_tensor_value_checks_in_torchs_order(form, self_, mask, value):
    got, got_warnings = _outcome(vg, form, self_, mask, value)
    expected, expected_warnings = _outcome(torch, form, self_, mask, value)
    assert got_warnings == expected_warnings
    if isinstance(expected, Exception):
        assert isinstance(got, Exception), f"vizgrad did not raise; torch raised {expected!r}"

        def raise_(error):
            raise error

        assert_same_error(lambda: raise_(got), lambda: raise_(expected))
        return
    assert not isinstance(got, Exception), f"vizgrad raised {got!r}; torch did not"
    assert_same(got, expected)

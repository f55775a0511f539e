"""Kernels meet floating-point exceptions as PyTorch's do: the values, never a warning.

``ignoring_float_errors`` sets the error state ``np.errstate`` would set, from a state
built once per caller's state; these tests hold it to ``np.errstate`` itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same

import vizgrad as vg
from vizgrad.ops.float_errors import ignoring_float_errors

HOWS = [{"all": "ignore"}, {"over": "ignore", "invalid": "ignore"}, {"divide": "ignore"},
        {"over": "ignore"}, {"all": "ignore", "under": "warn"}]  # fmt: skip
CALLER_STATES = [{}, {"all": "raise"}, {"divide": "ignore", "over": "raise"},
                 {"all": "warn", "under": "raise"}, {}]  # fmt: skip


def _expected(caller: dict, how: dict) -> dict:
    with np.errstate(**caller), np.errstate(**how):
        return np.geterr()


@pytest.mark.parametrize("how", HOWS, ids=str)
def test_a_kernel_runs_under_the_state_np_errstate_would_set(how):
    """One decorated kernel, called under one caller's state after another (and twice
    under each: the second call reuses the state built for the first)."""
    seen = []

    @ignoring_float_errors(**how)
    def kernel(value):
        seen.append(np.geterr())
        return value

    for caller in CALLER_STATES:
        with np.errstate(**caller):
            before = np.geterr()
            assert kernel(1) == 1 and kernel(2) == 2
            assert np.geterr() == before  # restored
        assert seen[-2:] == [_expected(caller, how)] * 2


def test_the_state_is_restored_when_the_kernel_raises():
    @ignoring_float_errors(all="ignore")
    def kernel():
        raise ValueError("inside")

    before = np.geterr()
    with pytest.raises(ValueError, match="inside"):
        kernel()
    assert np.geterr() == before


def test_nested_kernels_keep_what_the_outer_one_ignores():
    """An inner kernel that names only ``over`` leaves ``divide`` as the outer one set it."""

    @ignoring_float_errors(over="ignore")
    def inner():
        return np.float64(1.0) / np.float64(0.0)

    @ignoring_float_errors(divide="ignore")
    def outer():
        return inner()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert outer() == np.inf
        with pytest.raises(RuntimeWarning, match="divide by zero"):
            inner()


@pytest.mark.parametrize("state", [{}, {"all": "raise"}, {"all": "warn"}], ids=str)
def test_operators_answer_as_torch_whatever_numpy_error_state(state):
    values = np.array([3e38, -3e38, 0.0, 1.0], np.float32)
    v, t = vg.tensor(values), torch.tensor(values)
    with np.errstate(**state), warnings.catch_warnings():
        warnings.simplefilter("error")
        for call in (lambda x: x * 10, lambda x: x + x, lambda x: x - (-x), lambda x: x / 0,
                     lambda x: x.exp(), lambda x: (x * 10) - (x * 10)):  # fmt: skip
            assert_same(call(v), call(t))

"""``vizgrad.testing.assert_close`` passes and fails where ``torch.testing.assert_close``
does, with the same exception class and the same message (``torch.`` read as ``vizgrad.``)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import vizgrad as vg


def outcome(lib, code: str):
    """``None`` if the call passes, else ``(exception class name, message)``."""
    try:
        eval(code, {"lib": lib, "np": np, "nan": float("nan"), "inf": float("inf")})
    except Exception as error:  # noqa: BLE001 - compared with torch's
        return type(error).__name__, str(error).replace("torch.", "vizgrad.")
    return None


CASES = [
    # tensors: values
    "lib.testing.assert_close(lib.tensor([1., 2., 3.]), lib.tensor([1., 2., 3.]))",
    "lib.testing.assert_close(lib.tensor([1., 2., 3.]), lib.tensor([1., 4., 5.]))",
    "lib.testing.assert_close(lib.tensor([1., 2.]), lib.tensor([1. + 1e-6, 2.]))",
    "lib.testing.assert_close(lib.tensor([1., 2.]), lib.tensor([1. + 1e-4, 2.]))",
    "lib.testing.assert_close(lib.tensor([1., 2.], dtype=lib.float64), lib.tensor([1. + 1e-6, 2.], dtype=lib.float64))",
    "lib.testing.assert_close(lib.tensor([1., 2.], dtype=lib.float16), lib.tensor([1.001, 2.], dtype=lib.float16))",
    "lib.testing.assert_close(lib.tensor([1., 2.]), lib.tensor([1.05, 2.]), rtol=0.1, atol=0.)",
    "lib.testing.assert_close(lib.tensor([1., 2.]), lib.tensor([1.05, 2.]), rtol=0., atol=0.)",
    "lib.testing.assert_close(lib.tensor([1., 2.]), lib.tensor([1.05, 2.]), rtol=0.1)",
    "lib.testing.assert_close(lib.tensor([1., 2.]), lib.tensor([1.05, 2.]), atol=0.1)",
    "lib.testing.assert_close(lib.tensor([1, 2]), lib.tensor([1, 3]))",
    "lib.testing.assert_close(lib.tensor([[1, 2], [0, 0]]), lib.tensor([[1, 3], [0, 1]]))",
    "lib.testing.assert_close(lib.tensor([True, False]), lib.tensor([True, True]))",
    "lib.testing.assert_close(lib.tensor([1 + 1j, 2j]), lib.tensor([1 + 1j, 2.5j]))",
    "lib.testing.assert_close(lib.arange(6.).view(2, 3).t(), lib.arange(6.).view(2, 3).t().contiguous())",
    "lib.testing.assert_close(lib.ones(0, 3), lib.ones(0, 3))",
    "lib.testing.assert_close(lib.ones(3).expand(2, 3), lib.ones(2, 3))",
    # nan and inf
    "lib.testing.assert_close(lib.tensor(nan), lib.tensor(nan))",
    "lib.testing.assert_close(lib.tensor(nan), lib.tensor(nan), equal_nan=True)",
    "lib.testing.assert_close(lib.tensor([1., nan]), lib.tensor([1., 2.]))",
    "lib.testing.assert_close(lib.tensor([inf, 1.]), lib.tensor([inf, 1.]))",
    "lib.testing.assert_close(lib.tensor([inf, 1.]), lib.tensor([-inf, 1.]))",
    "lib.testing.assert_close(lib.tensor(3.), lib.tensor(4.))",
    # attributes
    "lib.testing.assert_close(lib.ones(2, 3), lib.ones(3, 2))",
    "lib.testing.assert_close(lib.ones(2), lib.ones(2, dtype=lib.float64))",
    "lib.testing.assert_close(lib.ones(2), lib.ones(2, dtype=lib.float64), check_dtype=False)",
    "lib.testing.assert_close(lib.ones(2, dtype=lib.int32), lib.ones(2, dtype=lib.uint8), check_dtype=False)",
    "lib.testing.assert_close(lib.ones(2, 3).t(), lib.ones(3, 2), check_stride=True)",
    "lib.testing.assert_close(lib.ones(2, 3).t(), lib.ones(3, 2))",
    "lib.testing.assert_close(lib.nn.Parameter(lib.ones(2)), lib.ones(2))",
    "lib.testing.assert_close(lib.nn.Parameter(lib.ones(2)), lib.ones(2), allow_subclasses=False)",
    # numbers, bools, None
    "lib.testing.assert_close(1.0, 1.0)",
    "lib.testing.assert_close(1.0, 1)",
    "lib.testing.assert_close(1.0, 1, check_dtype=False)",
    "lib.testing.assert_close(1.0, 1.1)",
    "lib.testing.assert_close(1, 2)",
    "lib.testing.assert_close(0.0, 1e-6)",
    "lib.testing.assert_close(nan, nan)",
    "lib.testing.assert_close(nan, nan, equal_nan=True)",
    "lib.testing.assert_close(1 + 1j, 1 + 2j)",
    "lib.testing.assert_close(np.float32(1), 1.0)",
    "lib.testing.assert_close(True, True)",
    "lib.testing.assert_close(True, np.bool_(False))",
    "lib.testing.assert_close(None, None)",
    "lib.testing.assert_close(None, 1)",
    # containers
    "lib.testing.assert_close([lib.ones(2), lib.zeros(1)], [lib.ones(2), lib.zeros(1)])",
    "lib.testing.assert_close([lib.ones(2), {'a': lib.ones(3)}], [lib.ones(2), {'a': lib.zeros(3)}])",
    "lib.testing.assert_close((1, 2), [1, 2])",
    "lib.testing.assert_close([1, 2], [1, 2, 3])",
    "lib.testing.assert_close({'a': 1, 'b': 2}, {'a': 1, 'c': 2})",
    "lib.testing.assert_close({'w': lib.ones(2)}, {'w': lib.ones(2)})",
    # arrays and what no pair handles
    "lib.testing.assert_close(np.ones(2), np.ones(2))",
    "lib.testing.assert_close(np.ones(2), np.zeros(2))",
    "lib.testing.assert_close(np.ones(2), lib.ones(2))",
    "lib.testing.assert_close('a', 'a')",
    "lib.testing.assert_close(lib.ones(2), 1.0)",
    # msg
    "lib.testing.assert_close(lib.tensor([1., 2., 3.]), lib.tensor([1., 4., 5.]), msg='Argh!')",
    "lib.testing.assert_close(lib.tensor([1., 2., 3.]), lib.tensor([1., 4., 5.]), msg=lambda m: f'Header\\n\\n{m}\\n\\nFooter')",
    "lib.testing.assert_close([lib.ones(1), lib.ones(1)], [lib.ones(1), lib.zeros(1)], msg=lambda m: m.upper())",
]  # fmt: skip


@pytest.mark.parametrize("code", CASES)
def test_assert_close_matches_torch(code):
    assert outcome(vg, code) == outcome(torch, code)


def test_default_tolerances():
    cases = [(vg.float16, torch.float16), (vg.float32, torch.float32), (vg.float64, torch.float64),
             (vg.complex64, torch.complex64), (vg.int64, torch.int64), (vg.bool, torch.bool)]  # fmt: skip
    from torch.testing._comparison import default_tolerances

    for mine, theirs in cases:
        assert vg.testing.default_tolerances(mine) == default_tolerances(theirs)
    assert vg.testing.default_tolerances(vg.ones(1), vg.float16) == default_tolerances(
        torch.ones(1), torch.float16
    )

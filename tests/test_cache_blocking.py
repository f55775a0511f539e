"""Elementwise loops over operands laid out against each other run tile by tile
(``vizgrad/ops/cache_blocking.py``): the values, dtype and strides must be PyTorch's, on
every shape the tiles cut (remainders along either dim, batch dims, broadcast inputs,
numbers) and for every way the iterator is used (functional, in place, ``out=``, three
inputs, promotion, a fixed bool result).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from oracle import assert_same, pair_from_storage

import vizgrad as vg
from vizgrad.ops import cache_blocking


def _pair(shape, permutation, dtype="float64", seed=0):
    """A tensor of ``shape`` whose memory runs in the order ``permutation`` gives."""
    rng = np.random.default_rng(seed)
    memory_shape = [shape[k] for k in permutation]
    data = rng.uniform(-3, 3, size=memory_shape).astype(dtype)
    v = vg.from_numpy(data).permute(*np.argsort(permutation))
    t = torch.from_numpy(data.copy()).permute(*np.argsort(permutation).tolist())
    return v, t


SHAPES = [
    ((256, 256), (1, 0)),  # whole tiles
    ((250, 263), (1, 0)),  # remainders along both dims
    ((40, 3, 700), (2, 1, 0)),  # a batch dim between the two
    ((3, 300, 260), (0, 2, 1)),  # a batch dim outside, batched transposes
]


@pytest.mark.parametrize(("shape", "permutation"), SHAPES)
@pytest.mark.parametrize("op", ["add", "mul_number", "sub_alpha", "lt", "where", "addcmul"])
def test_a_loop_across_layouts_gives_torchs_values_and_strides(shape, permutation, op):
    a, ta = _pair(shape, tuple(range(len(shape))), seed=1)
    b, tb = _pair(shape, permutation, seed=2)
    c, tc = _pair(shape, permutation, dtype="float32", seed=3)
    calls = {
        "add": lambda lib, x, y, z: lib.add(x, y),
        "mul_number": lambda lib, x, y, z: y * 1.5 * x,
        "sub_alpha": lambda lib, x, y, z: lib.sub(y, x, alpha=2),
        "lt": lambda lib, x, y, z: x < y,
        "where": lambda lib, x, y, z: lib.where(x > 0, y, z),
        "addcmul": lambda lib, x, y, z: lib.addcmul(x, y, z, value=0.5),
    }
    # The case tiles: otherwise this test would not test what it is named for.
    assert cache_blocking.blocked_calls(a._array, [b._array]) is not None
    assert_same(calls[op](vg, a, b, c), calls[op](torch, ta, tb, tc))


@pytest.mark.parametrize(("shape", "permutation"), SHAPES[:2])
def test_in_place_and_out_write_the_tiles_into_the_given_memory(shape, permutation):
    a, ta = _pair(shape, tuple(range(len(shape))), seed=1)
    b, tb = _pair(shape, permutation, seed=2)
    assert_same(a.mul_(b), ta.mul_(tb))
    out, t_out = _pair(shape, permutation, seed=4)
    assert_same(vg.add(a, b, alpha=3, out=out), torch.add(ta, tb, alpha=3, out=t_out))
    assert_same(out, t_out)


def test_a_broadcast_row_and_a_promoted_integer_input():
    a, ta = _pair((300, 280), (1, 0), seed=1)
    row_v, row_t = pair_from_storage(np.arange(280, dtype=np.int32), (280,), (1,))
    ints = np.arange(300 * 280, dtype=np.int64).reshape(280, 300)
    iv, it = vg.from_numpy(ints).t(), torch.from_numpy(ints.copy()).t()
    assert_same(a + row_v, ta + row_t)
    assert_same(vg.sub(iv.contiguous(), iv), torch.sub(it.contiguous(), it))
    assert_same(a.contiguous() * iv, ta.contiguous() * it)


def test_small_or_agreeing_loops_run_in_one_call():
    small = np.ones((64, 64))
    assert cache_blocking.blocked_calls(small, [small.T]) is None
    big = np.ones((512, 512))
    assert cache_blocking.blocked_calls(big, [big, np.float64(2)]) is None  # same layout
    assert cache_blocking.blocked_calls(big, [np.ones(512)]) is None  # a broadcast row
    assert cache_blocking.blocked_calls(big, [big.T]) is not None

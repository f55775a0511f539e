"""``torch.dist``: the ``p``-norm of the difference of two tensors, against PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients
from oracle import assert_same_outcome, make_pair

import vizgrad as vg

ORDERS = [2, 1, 3, 0.5, 0, math.inf, -math.inf]


@pytest.mark.parametrize("p", ORDERS)
@pytest.mark.parametrize(
    ("shape_a", "shape_b", "layout"),
    [
        ((3, 4), (3, 4), "contiguous"),
        ((3, 4), (3, 4), "transposed"),
        ((2, 3), (2, 3), "stepped"),
        ((3, 4), (4,), "expanded"),
        ((2, 3), (2, 3), "offset"),
        ((), (), "contiguous"),
        ((0, 3), (3,), "contiguous"),
    ],
)
def test_values_match_torch(p, shape_a, shape_b, layout):
    va, ta = make_pair(shape_a, "float32", layout, seed=1)
    vb, tb = make_pair(shape_b, "float32", "contiguous", seed=2)
    assert_same_outcome(lambda: vg.dist(va, vb, p), lambda: torch.dist(ta, tb, p))
    assert_same_outcome(lambda: va.dist(vb, p), lambda: ta.dist(tb, p))


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, math.inf])
@pytest.mark.parametrize(
    ("shapes", "layouts"),
    [
        ([(3, 4), (3, 4)], ["contiguous", "transposed"]),
        ([(3, 4), (4,)], ["stepped", "contiguous"]),  # other is broadcast: grad summed
        ([(), (2, 2)], ["contiguous", "offset"]),
    ],
)
def test_gradients_match_torch_and_finite_differences(p, shapes, layouts):
    check_gradients(
        lambda a, b: vg.dist(a, b, p),
        lambda a, b: torch.dist(a, b, p),
        shapes,
        layouts=layouts,
        grad_fn_name="DistBackward0",
    )


def test_p_zero_has_no_gradient():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    vg.dist(a, vg.zeros(2), 0).backward()
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.dist(t, torch.zeros(2), 0).backward()
    assert t.grad is None
    assert a.grad is None


def test_complex_inputs_and_their_gradient():
    values = [[1 + 2j, -0.5j], [3.0, 1 - 1j]]
    v = vg.tensor(values, dtype=vg.complex128, requires_grad=True)
    t = torch.tensor(values, dtype=torch.complex128, requires_grad=True)
    vd, td = (
        vg.dist(v, vg.zeros(2, dtype=vg.complex128)),
        torch.dist(t, torch.zeros(2, dtype=torch.complex128)),
    )
    assert vd.dtype == vg.float64 and vd.item() == pytest.approx(td.item())
    vd.backward()
    td.backward()
    np.testing.assert_allclose(v.grad.numpy(), t.grad.numpy())
    assert vg.autograd.gradcheck(
        lambda x: vg.dist(x, vg.ones(2, dtype=vg.complex128), 3), [v.detach().requires_grad_()]
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (lambda lib: lib.tensor([1, 2]), lambda lib: lib.tensor([1, 2])),  # integers
        (lambda lib: lib.ones(2), lambda lib: lib.ones(3)),  # shapes do not broadcast
    ],
)
def test_bad_input_raises_as_torch(a, b):
    assert_same_outcome(lambda: vg.dist(a(vg), b(vg)), lambda: torch.dist(a(torch), b(torch)))


def test_mixed_dtypes_promote_as_subtraction():
    assert_same_outcome(
        lambda: vg.dist(vg.tensor([1.0, 2.0], dtype=vg.float64), vg.tensor([3, 1])),
        lambda: torch.dist(torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([3, 1])),
    )

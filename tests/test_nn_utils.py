"""nn.utils against PyTorch: gradient clipping and parameters as one vector."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg

SHAPES = [(3, 4), (5,), (), (2, 1, 3)]


def param_pairs(shapes=SHAPES, *, seed=0, scale=1.0, dtypes=None, with_grad=None):
    """Parameters with the same values and gradients in both libraries."""
    rng = np.random.default_rng(seed)
    pairs = []
    for i, shape in enumerate(shapes):
        dtype = (dtypes or ["float32"] * len(shapes))[i]
        value = np.asarray(rng.standard_normal(shape), dtype=dtype)
        grad = np.asarray(rng.standard_normal(shape) * scale, dtype=dtype)
        pv = vg.nn.Parameter(vg.from_numpy(value.copy()))
        pt = torch.nn.Parameter(torch.from_numpy(value.copy()))
        if with_grad is None or with_grad[i]:
            pv.grad = vg.from_numpy(grad.copy())
            pt.grad = torch.from_numpy(grad.copy())
        pairs.append((pv, pt))
    return [v for v, _ in pairs], [t for _, t in pairs]


@pytest.mark.parametrize("norm_type", [2, 2.0, 1, 3.5, 0.5, math.inf, -math.inf, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm_(norm_type, max_norm):
    pv, pt = param_pairs()
    got = vg.nn.utils.clip_grad_norm_(pv, max_norm, norm_type=norm_type)
    want = torch.nn.utils.clip_grad_norm_(pt, max_norm, norm_type=norm_type)
    assert_same(got, want, rtol=1e-5, atol=1e-6)
    for a, b in zip(pv, pt, strict=True):
        assert_same(a.grad, b.grad, rtol=1e-5, atol=1e-6)
        assert a.grad.grad_fn is None


def test_clip_grad_norm_scales_to_max_norm():
    pv, _ = param_pairs(scale=10.0)
    vg.nn.utils.clip_grad_norm_(pv, 2.0)
    after = math.sqrt(sum(float((p.grad * p.grad).sum()) for p in pv))
    assert abs(after - 2.0) < 1e-4


def test_clip_grad_norm_skips_parameters_without_grad_and_takes_a_generator():
    pv, pt = param_pairs(with_grad=[True, False, True, False])
    got = vg.nn.utils.clip_grad_norm_((p for p in pv), 0.1)
    want = torch.nn.utils.clip_grad_norm_((p for p in pt), 0.1)
    assert_same(got, want, rtol=1e-5)
    assert pv[1].grad is None
    assert_same(pv[0].grad, pt[0].grad, rtol=1e-5)


def test_clip_grad_norm_of_one_tensor_and_of_nothing():
    pv, pt = param_pairs()
    assert_same(
        vg.nn.utils.clip_grad_norm_(pv[0], 0.3),
        torch.nn.utils.clip_grad_norm_(pt[0], 0.3),
        rtol=1e-5,
    )
    assert_same(vg.nn.utils.clip_grad_norm_([], 1.0), torch.nn.utils.clip_grad_norm_([], 1.0))
    messages = []
    for lib in (vg, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and messages[0]


def test_clip_grad_norm_of_mixed_dtypes():
    pv, pt = param_pairs(dtypes=["float64", "float32", "float64", "float32"])
    got = vg.nn.utils.clip_grad_norm_(pv, 0.2)
    want = torch.nn.utils.clip_grad_norm_(pt, 0.2)
    assert_same(got, want, rtol=1e-5)
    for a, b in zip(pv, pt, strict=True):
        assert_same(a.grad, b.grad, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
@pytest.mark.parametrize("error_if_nonfinite", [True, False])
def test_clip_grad_norm_nonfinite(bad, error_if_nonfinite):
    pv, pt = param_pairs()
    pv[1].grad[2] = bad
    pt[1].grad[2] = bad

    def vg_call():
        return vg.nn.utils.clip_grad_norm_(pv, 1.0, error_if_nonfinite=error_if_nonfinite)

    def torch_call():
        return torch.nn.utils.clip_grad_norm_(pt, 1.0, error_if_nonfinite=error_if_nonfinite)

    if error_if_nonfinite:
        vg_error, torch_error = assert_same_error(vg_call, torch_call)
        assert str(vg_error) == str(torch_error)
    else:
        assert_same(vg_call(), torch_call())
        for a, b in zip(pv, pt, strict=True):
            assert_same(a.grad, b.grad, rtol=1e-5)


@pytest.mark.parametrize("foreach", [True, False, None])
def test_clip_grad_norm_foreach(foreach):
    pv, pt = param_pairs(dtypes=["float64", "float32", "float64", "float32"])
    assert_same(
        vg.nn.utils.clip_grad_norm_(pv, 1.0, foreach=foreach),
        torch.nn.utils.clip_grad_norm_(pt, 1.0, foreach=foreach),
        rtol=1e-5,
    )
    for a, b in zip(pv, pt, strict=True):
        assert_same(a.grad, b.grad, rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_deprecated_alias():
    pv, pt = param_pairs()
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        got = vg.nn.utils.clip_grad_norm(pv, 1.0)
    with pytest.warns(FutureWarning):
        want = torch.nn.utils.clip_grad_norm(pt, 1.0)
    assert_same(got, want, rtol=1e-5)


def test_get_total_norm_and_clip_grads_with_norm_():
    pv, pt = param_pairs()
    got = vg.nn.utils.get_total_norm([p.grad for p in pv], 3.0)
    want = torch.nn.utils.get_total_norm([p.grad for p in pt], 3.0)
    assert_same(got, want, rtol=1e-5)
    vg.nn.utils.clip_grads_with_norm_(pv, 0.5, got)
    torch.nn.utils.clip_grads_with_norm_(pt, 0.5, want)
    for a, b in zip(pv, pt, strict=True):
        assert_same(a.grad, b.grad, rtol=1e-5, atol=1e-7)


def test_clipping_records_nothing_even_when_grad_mode_is_on():
    pv, _ = param_pairs()
    pv[0].grad.requires_grad_(True)
    total = vg.nn.utils.clip_grad_norm_(pv, 0.1)
    assert total.grad_fn is None and not total.requires_grad


@pytest.mark.parametrize("clip_value", [0.3, 1, 10.0])
def test_clip_grad_value_(clip_value):
    pv, pt = param_pairs(with_grad=[True, True, False, True])
    assert vg.nn.utils.clip_grad_value_(pv, clip_value) is None
    torch.nn.utils.clip_grad_value_(pt, clip_value)
    for a, b in zip(pv, pt, strict=True):
        if b.grad is None:
            assert a.grad is None
        else:
            assert_same(a.grad, b.grad)
    vg.nn.utils.clip_grad_value_(pv[0], 0.01)
    torch.nn.utils.clip_grad_value_(pt[0], 0.01)
    assert_same(pv[0].grad, pt[0].grad)


def test_clip_grad_value_foreach():
    pv, pt = param_pairs()
    vg.nn.utils.clip_grad_value_(pv, 0.5, foreach=True)
    torch.nn.utils.clip_grad_value_(pt, 0.5, foreach=True)
    for a, b in zip(pv, pt, strict=True):
        assert_same(a.grad, b.grad)


def test_parameters_to_vector():
    pv, pt = param_pairs()
    got = vg.nn.utils.parameters_to_vector(pv)
    want = torch.nn.utils.parameters_to_vector(pt)
    assert_same(got, want)
    assert got.grad_fn.name() == want.grad_fn.name()
    got.sum().backward()
    want.sum().backward()
    for a, b in zip(pv, pt, strict=True):
        assert_same(a.grad, b.grad)


def test_parameters_to_vector_of_a_non_contiguous_parameter_fails_as_in_torch():
    base_v, base_t = vg.zeros(4, 6), torch.zeros(4, 6)
    assert_same_error(
        lambda: vg.nn.utils.parameters_to_vector([vg.nn.Parameter(base_v.t())]),
        lambda: torch.nn.utils.parameters_to_vector([torch.nn.Parameter(base_t.t())]),
    )


def test_vector_to_parameters():
    pv, pt = param_pairs()
    n = sum(p.numel() for p in pv)
    values = np.arange(n + 3, dtype=np.float32)
    vec_v, vec_t = vg.from_numpy(values.copy()), torch.from_numpy(values.copy())
    assert vg.nn.utils.vector_to_parameters(vec_v, pv) is None
    torch.nn.utils.vector_to_parameters(vec_t, pt)
    for a, b in zip(pv, pt, strict=True):
        assert_same(a.detach(), b.detach(), check_offset=True)
        assert type(a) is vg.nn.Parameter and a.requires_grad
    # The parameters now read the vector's memory, as in PyTorch.
    vec_v.add_(1)
    vec_t.add_(1)
    assert_same(pv[1].detach(), pt[1].detach())


def test_vector_to_parameters_errors():
    pv, pt = param_pairs()
    assert_same_error(
        lambda: vg.nn.utils.vector_to_parameters([1.0], pv),
        lambda: torch.nn.utils.vector_to_parameters([1.0], pt),
    )
    assert_same_error(
        lambda: vg.nn.utils.vector_to_parameters(vg.zeros(3), pv),
        lambda: torch.nn.utils.vector_to_parameters(torch.zeros(3), pt),
    )


def test_round_trip_through_a_module():
    m = vg.nn.Sequential(vg.nn.Flatten(), vg.nn.Flatten())
    m.w = vg.nn.Parameter(vg.randn(3, 2))
    m.b = vg.nn.Parameter(vg.randn(2))
    vec = vg.nn.utils.parameters_to_vector(m.parameters()).detach().clone()
    vg.nn.utils.vector_to_parameters(vec * 2, m.parameters())
    np.testing.assert_allclose(
        vg.nn.utils.parameters_to_vector(m.parameters()).detach().numpy(), vec.numpy() * 2
    )

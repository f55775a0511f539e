"""resize_ and the out= resizing contract, compared with PyTorch."""

import warnings

import pytest
import torch
from oracle import assert_same, assert_same_error, make_pair

import vizgrad as vg


@pytest.mark.parametrize("new_shape", [(2, 2), (3, 4), (6,), (0,), (1, 7)])
def test_resize_gives_contiguous_strides_and_keeps_old_values(new_shape):
    values = [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]
    v, t = vg.tensor(values), torch.tensor(values)  # own storages: resizable in torch
    v.resize_(*new_shape)
    t.resize_(*new_shape)
    assert tuple(v.shape) == tuple(t.shape) and v.stride() == t.stride()
    assert v._version == t._version
    n = min(6, v.numel())
    assert v.reshape(-1)[:n].tolist() == t.reshape(-1)[:n].tolist()


def test_growing_a_shared_storage_is_seen_by_every_tensor_over_it():
    base_v, base_t = vg.zeros(2, 3), torch.zeros(2, 3)
    row_v, row_t = base_v[0], base_t[0]
    row_v.resize_(5)
    row_t.resize_(5)
    row_v.fill_(1)
    row_t.fill_(1)
    assert_same(base_v, base_t)
    assert base_v.untyped_storage().nbytes() == base_t.untyped_storage().nbytes()


def test_resize_errors_match_torch():
    assert_same_error(lambda: vg.ones(2, requires_grad=True).resize_(3),
                      lambda: torch.ones(2, requires_grad=True).resize_(3))  # fmt: skip
    assert_same_error(lambda: vg.ones(2).resize_(-1), lambda: torch.ones(2).resize_(-1),
                      match_message=False)  # fmt: skip


def test_out_of_the_wrong_shape_is_resized_with_torch_warning():
    v_out, t_out = vg.empty(5), torch.empty(5)
    a_v, a_t = make_pair((2, 3))
    with warnings.catch_warnings(record=True) as v_warn:
        warnings.simplefilter("always")
        vg.add(a_v, 1, out=v_out)
    with warnings.catch_warnings(record=True) as t_warn:
        warnings.simplefilter("always")
        torch.add(a_t, 1, out=t_out)
    assert_same(v_out, t_out)
    assert [str(w.message)[:60] for w in v_warn] == [str(w.message)[:60] for w in t_warn]


def test_empty_out_is_resized_silently():
    v_out, t_out = vg.empty(0), torch.empty(0)
    a_v, a_t = make_pair((2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vg.sum(a_v, dim=0, out=v_out)
        torch.sum(a_t, dim=0, out=t_out)
    assert_same(v_out, t_out)


def test_resize_as_matches_torch():
    v, t = make_pair((2, 3))
    assert_same(v.resize_as_(vg.ones(3)), t.resize_as_(torch.ones(3)))


@pytest.mark.parametrize(
    "call",
    [lambda lib, x, out: lib.abs(x, out=out), lambda lib, x, out: lib.add(x, 1, out=out)],
)  # fmt: skip
def test_out_into_an_expanded_tensor_is_refused_as_in_torch(call):
    v_out, t_out = vg.zeros(3).expand(3, 3), torch.zeros(3).expand(3, 3)
    v, t = make_pair((3, 3))
    assert_same_error(lambda: call(vg, v, v_out), lambda: call(torch, t, t_out))

"""fill_, zero_ and fill, compared with PyTorch."""

import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg


@pytest.mark.parametrize("layout", [lay for lay in LAYOUTS if lay != "expanded"])
@pytest.mark.parametrize("dtype,value", [("float32", 2.5), ("int64", 3), ("bool", True),
                                         ("float64", -1), ("complex64", 1 + 2j)])  # fmt: skip
def test_fill_writes_through_strides(layout, dtype, value):
    v, t = make_pair((3, 4), dtype, layout)
    assert v.fill_(value) is v
    t.fill_(value)
    assert_same(v, t)
    assert v._version == t._version
    # The rest of the storage (gaps of a stepped view, the offset) is untouched.
    assert_same(v._base if v._base is not None else v, t._base if t._base is not None else t)


@pytest.mark.parametrize("layout", [lay for lay in LAYOUTS if lay != "expanded"])
def test_zero_and_fill_with_zero_dim_tensor(layout):
    v, t = make_pair((2, 3), "float32", layout)
    assert_same(v.zero_(), t.zero_())
    assert_same(v.fill_(vg.tensor(7.0)), t.fill_(torch.tensor(7.0)))
    assert_same(vg.fill(v, 1.5), torch.fill(t, 1.5))


def test_filling_an_expanded_tensor_is_allowed_as_in_torch():
    v, t = make_pair((2, 3), "float32", "expanded")
    assert_same(v.fill_(1), t.fill_(1), check_stride=True)
    assert_same(v.zero_(), t.zero_())


def test_fill_errors_match_torch():
    v, t = make_pair((2, 3))
    assert_same_error(lambda: v.fill_(vg.ones(2)), lambda: t.fill_(torch.ones(2)))
    assert_same_error(lambda: v.fill_("a"), lambda: t.fill_("a"), match_message=False)

"""PyTorch's legacy constructors and ``Variable`` against torch: ``torch.Tensor(2, 3)``,
``torch.Tensor([1, 2])``, ``torch.LongTensor(...)``, ``torch.autograd.Variable(t)``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg

DATA_CALLS = [
    ("Tensor", ()),
    ("Tensor", ([1, 2],)),
    ("Tensor", ((1, 2),)),
    ("Tensor", ([],)),
    ("Tensor", ([[1.5, 2], [3, 4]],)),
    ("Tensor", (np.arange(6).reshape(2, 3),)),
    ("LongTensor", ([[1, 2, 4, 5], [4, 3, 2, 9]],)),
    ("LongTensor", ([1.7, -2.2],)),
    ("LongTensor", ()),
    ("DoubleTensor", ([1, 2],)),
    ("IntTensor", ([3],)),
    ("BoolTensor", ([1, 0],)),
    ("ByteTensor", ([255, 1],)),
    ("HalfTensor", ([0.5],)),
]


@pytest.mark.parametrize("name, args", DATA_CALLS, ids=str)
def test_legacy_constructors_from_data_like_torch(name, args):
    assert_same(getattr(vg, name)(*args), getattr(torch, name)(*args))


@pytest.mark.parametrize(
    "name, args",
    [("Tensor", (2, 3)), ("Tensor", (0,)), ("Tensor", (3,)), ("LongTensor", (2, 1)),
     ("FloatTensor", (4,))],
    ids=str,
)  # fmt: skip
def test_legacy_constructors_from_sizes_allocate_like_torch(name, args):
    mine, theirs = getattr(vg, name)(*args), getattr(torch, name)(*args)
    assert tuple(mine.shape) == tuple(theirs.shape) and mine.stride() == theirs.stride()
    assert str(mine.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert tuple(vg.Tensor(vg.Size([2, 3])).shape) == tuple(torch.Tensor(torch.Size([2, 3])).shape)
    assert tuple(vg.Tensor(2, 3, device="cpu").shape) == (2, 3)


def test_legacy_constructor_then_fill_as_the_notes_label_smoothing():
    assert_same(vg.Tensor(3, 1).fill_(0.9), torch.Tensor(3, 1).fill_(0.9))


@pytest.mark.parametrize(
    "args", [(2, 3.5), (3.5,), ("a",), (-1,), ([[1, 2], [3]],), (2, "x")], ids=str
)
def test_legacy_constructor_errors_like_torch(args):
    assert_same_error(lambda: vg.Tensor(*args), lambda: torch.Tensor(*args))
    assert_same_error(lambda: vg.LongTensor(*args), lambda: torch.LongTensor(*args))


def test_typed_constructors_are_dtype_checks_for_isinstance():
    for name in ("LongTensor", "FloatTensor", "BoolTensor"):
        for value in ([1, 0], [1.5]):
            for dtype in ("int64", "float32", "bool"):
                mine = isinstance(vg.tensor(value).to(getattr(vg, dtype)), getattr(vg, name))
                theirs = isinstance(torch.tensor(value).to(getattr(torch, dtype)),
                                    getattr(torch, name))  # fmt: skip
                assert mine == theirs
    assert repr(vg.LongTensor) == "<class 'vizgrad.LongTensor'>"
    assert isinstance(vg.Tensor([1]), vg.Tensor) and type(vg.Tensor([1])) is vg.Tensor


def test_the_internal_constructor_and_subclasses_are_unaffected():
    t = vg.ones(2, 3)
    assert isinstance(vg.nn.Parameter(t), vg.nn.Parameter)
    assert tuple(t.t().shape) == (3, 2)


def test_tensor_of_a_tensor_is_refused_rather_than_copied():
    # torch returns an alias (AliasBackward0), an operator vizgrad does not have.
    with pytest.raises(TypeError, match="would alias other"):
        vg.Tensor(vg.ones(2))


@pytest.mark.parametrize("requires_grad", [False, True])
def test_variable_returns_a_detached_tensor_sharing_storage(requires_grad):
    base = vg.ones(2, 3, requires_grad=True) * 2
    tbase = torch.ones(2, 3, requires_grad=True) * 2
    mine = vg.autograd.Variable(base, requires_grad=requires_grad)
    theirs = torch.autograd.Variable(tbase, requires_grad=requires_grad)
    assert_same(mine, theirs)
    assert mine.grad_fn is None and theirs.grad_fn is None
    assert mine.is_leaf and mine.requires_grad == requires_grad
    assert mine.data_ptr() == base.data_ptr() and mine is not base
    assert type(mine) is vg.Tensor and isinstance(vg.zeros(1), vg.autograd.Variable)
    assert repr(type(mine)).replace("vizgrad", "torch") == repr(type(theirs))
    assert not isinstance(1.0, vg.autograd.Variable)
    assert_same(vg.autograd.Variable(), torch.autograd.Variable())


def test_variable_errors_and_volatile_warning_like_torch():
    assert_same_error(lambda: vg.autograd.Variable([1.0]), lambda: torch.autograd.Variable([1.0]))
    assert_same_error(
        lambda: vg.autograd.Variable(vg.ones(2, dtype=vg.long), requires_grad=True),
        lambda: torch.autograd.Variable(torch.ones(2, dtype=torch.long), requires_grad=True),
    )
    messages = []
    for library in (vg, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            library.autograd.Variable(library.ones(2), volatile=True)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1

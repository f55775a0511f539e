"""``index_reduce`` against PyTorch (values, dtypes, strides, gradients, errors, its beta
warning), and the checks it shares with ``index_add``, ``index_copy`` and ``index_fill``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients
from oracle import assert_same, assert_same_outcome, make_pair

import vizgrad as vg

REDUCES = ["prod", "mean", "amax", "amin"]
BETA = "index_reduce() is in beta and the API may change at any time."


@pytest.fixture(autouse=True)
def _quiet_beta_warning():
    # PyTorch warns once per process; the tests that look for the warning record it.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"index_reduce\(\) is in beta")
        yield


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("dim", [0, -1])
def test_index_reduce_matches_torch(reduce, include_self, layout, dim):
    v, t = make_pair((3, 4), "float32", layout)
    index = [0, 2, 0, 2] if dim == 0 else [3, 0, 3]  # repeats; one slice untouched
    source_shape = (4, 4) if dim == 0 else (3, 3)
    sv, st = make_pair(source_shape, "float32", "transposed", seed=1)
    iv, it = vg.tensor(index), torch.tensor(index)
    kwargs = {"include_self": include_self}
    assert_same(vg.index_reduce(v, dim, iv, sv, reduce, **kwargs),
                torch.index_reduce(t, dim, it, st, reduce, **kwargs))  # fmt: skip
    assert_same(v.index_reduce(dim, iv, sv, reduce=reduce, **kwargs),
                t.index_reduce(dim, it, st, reduce=reduce, **kwargs))  # fmt: skip
    out_v, out_t = vg.empty(0), torch.empty(0)
    assert_same(vg.index_reduce(v, dim, iv, sv, reduce, **kwargs, out=out_v),
                torch.index_reduce(t, dim, it, st, reduce, **kwargs, out=out_t))  # fmt: skip
    assert v.index_reduce_(dim, iv.int(), sv, reduce, **kwargs) is v
    t.index_reduce_(dim, it.int(), st, reduce, **kwargs)
    assert_same(v, t)
    assert v._version == t._version == 1


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "float16",
                                   "float64", "complex64"])  # fmt: skip
@pytest.mark.parametrize("shape", [(3, 4), (3,)])
def test_index_reduce_dtypes(shape, dtype, reduce, include_self):
    # Integer means floor; slices (2-D) and elements (1-D) are reduced by different
    # kernels, compiled for different dtypes.
    v, t = make_pair(shape, dtype, "transposed", low=-9, high=9)
    sv, st = make_pair((4, *shape[1:]), dtype, seed=3, low=-9, high=9)
    iv, it = vg.tensor([0, 2, 0, 2]), torch.tensor([0, 2, 0, 2])
    assert_same_outcome(
        lambda: vg.index_reduce(v, 0, iv, sv, reduce, include_self=include_self),
        lambda: torch.index_reduce(t, 0, it, st, reduce, include_self=include_self),
    )


@pytest.mark.parametrize(
    "call",
    [
        "lib.arange(3.).index_reduce(0, lib.tensor([0, 0, 2]), lib.tensor([5., nan, 7]), 'amin')",
        "lib.tensor([nan, 1., 2.]).index_reduce(0, lib.tensor([0, 1]), lib.tensor([5., nan]), 'amax')",
        "lib.tensor([[nan, 1.]]).index_reduce(0, lib.tensor([0, 0]), lib.tensor([[5., nan], [1., 2.]]), 'amax')",
        "lib.arange(3.).index_reduce(0, lib.tensor(2), lib.tensor(5.), 'amax')",
        "lib.arange(3.).index_reduce(0, lib.tensor([2]), lib.tensor(5.), 'amax')",
        "lib.tensor(3.).index_reduce(0, lib.tensor([0]), lib.tensor(5.), 'prod')",
        "lib.tensor(3.).index_reduce(0, lib.tensor(0), lib.tensor(5.), 'mean')",
        "lib.tensor(3.).index_reduce(-1, lib.tensor(0), lib.tensor(5.), 'amin', include_self=False)",
        "lib.tensor(3.).index_reduce(0, lib.tensor([0, 0]), lib.tensor(5.), 'prod')",
        "lib.tensor(3.).index_reduce(0, lib.tensor([0]), lib.tensor([5.]), 'prod')",
        "lib.zeros(3, 0).index_reduce(0, lib.tensor([0, 5]), lib.ones(2, 0), 'amax')",
        "lib.zeros(0, 4).index_reduce(0, lib.tensor([0, 0]), lib.ones(2, 4), 'amax')",
        "lib.zeros(3, 4).index_reduce(0, lib.tensor([], dtype=lib.long), lib.ones(0, 4), 'prod')",
        "lib.zeros(3, dtype=lib.complex64).index_reduce(0, lib.tensor([], dtype=lib.long), lib.ones(0, dtype=lib.complex64), 'prod')",
        "lib.zeros(3, 4, dtype=lib.complex64).index_reduce(0, lib.tensor([5, 1, 2]), lib.ones(3, 4, dtype=lib.complex64), 'amax')",
        "lib.zeros(3, 4, dtype=lib.complex64).index_reduce(0, lib.tensor([0, 5, 2]), lib.ones(3, 4, dtype=lib.complex64), 'amin')",
        "lib.full((3, 4), 1e30).index_reduce(0, lib.tensor([0, 0]), lib.full((2, 4), 1e30), 'prod')",
        "lib.arange(12).view(3, 4).index_reduce(0, lib.tensor([0, 0, 2, 2]), lib.arange(16).view(4, 4) - 5, 'mean')",
        "lib.arange(12.).view(3, 4).t().index_reduce(1, lib.tensor([0, 2]), lib.arange(8.).view(4, 2), 'prod')",
    ],
)  # fmt: skip
def test_index_reduce_edge_cases(call):
    env = {"nan": float("nan")}
    with np.errstate(invalid="ignore"):
        assert_same_outcome(lambda: eval(call, {**env, "lib": vg}),  # noqa: S307
                            lambda: eval(call, {**env, "lib": torch}))  # noqa: S307  # fmt: skip


@pytest.mark.parametrize(
    "call",
    [
        "x.index_reduce(0, i, s, 'sum')",
        "x.index_reduce(5, i, s, 'sum')",
        "x.index_reduce(5, i, s, 'prod')",
        "x.index_reduce(1, i, lib.ones(3), 'prod')",
        "x.index_reduce(0, i.float(), s, 'amax')",
        "x.index_reduce(0, i[None], s, 'amax')",
        "x.index_reduce(0, i, s.double(), 'amax')",
        "x.index_reduce(0, i[:1], s, 'amax')",
        "x.index_reduce(0, i, s[:, :3], 'amax')",
        "x.index_reduce(0, i, lib.ones(2, 4, 1), 'amax')",
        "x.index_reduce(0, i + 3, s, 'amax')",
        "x.index_reduce(0, i - 1, s, 'amax')",
        "x.index_reduce(0, i + 3, s, 'amax', include_self=False)",
        "x.index_reduce(0, i - 1, s, 'amax', include_self=False)",
        "x.index_reduce(0, i, s, 'prod', True)",
        "x.index_reduce(0, i, s)",
        "lib.index_reduce(x, 0, i, s, 'prod', out=lib.empty(3, 4, dtype=lib.long))",
        "lib.index_reduce(x, 0, i, s, 'sum', out=lib.empty(3, 4))",
        "lib.index_reduce(x, 0, i, s, 'mean', out=s)",
        "lib.index_reduce(x, 0, i, s, 'mean', out=x[:2])",
        "lib.index_reduce(x, 0, i, s, 'mean', out=x)",
        "lib.index_reduce(x, 0, i, s, 'amin', out=lib.empty(4, 3).t())",
        "x.index_reduce_(0, i, s, 'foo')",
        "x.index_reduce_(0, i, x[:2], 'prod')",
        "lib.zeros(1, 4).expand(3, 4).index_reduce_(0, i, s, 'prod')",
        "lib.ones(3).index_reduce_(0, lib.tensor([0]), lib.ones(1), 'prod', include_self=False)",
    ],
)
def test_index_reduce_bad_input_raises_torchs_errors(call):
    def env(lib):
        return {"lib": lib, "x": lib.zeros(3, 4), "i": lib.tensor([0, 2]), "s": lib.ones(2, 4)}

    assert_same_outcome(lambda: eval(call, env(vg)), lambda: eval(call, env(torch)))  # noqa: S307


def test_index_reduce_warns_that_it_is_in_beta():
    # PyTorch's warning comes once per process (TORCH_WARN_ONCE); vizgrad's with each
    # call, which Python's default filter shows once per line.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vg.zeros(3).index_reduce(0, vg.tensor([0]), vg.ones(1), "prod")
    assert [(w.category, str(w.message)) for w in caught] == [(UserWarning, BETA)]
    assert caught[0].filename == __file__
    with warnings.catch_warnings(record=True) as caught:  # the checks come first
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError):
            vg.zeros(3).index_reduce(0, vg.tensor([0]), vg.ones(1), "sum")
    assert caught == []


# --- gradients -------------------------------------------------------------------------------


@pytest.mark.parametrize("layouts", [None, ["transposed", "stepped"]])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("dim, shapes", [(0, [(3, 4), (4, 4)]), (1, [(4, 3), (4, 4)]),
                                         (0, [(3,), (4,)])])  # fmt: skip
def test_index_reduce_gradients(dim, shapes, reduce, include_self, layouts):
    def fn(lib):
        return lambda x, s: lib.index_reduce(x, dim, lib.tensor([0, 2, 0, 2]), s, reduce,
                                             include_self=include_self)  # fmt: skip

    check_gradients(fn(vg), fn(torch), shapes, layouts=layouts,
                    grad_fn_name="IndexReduceBackward0")  # fmt: skip


def test_index_reduce_saves_what_torch_saves():
    x, s = vg.zeros(3, requires_grad=True), vg.ones(2, requires_grad=True)
    node = x.index_reduce(0, vg.tensor([0, 0]), s, "amin", include_self=False).grad_fn
    assert node.name() == "IndexReduceBackward0"
    assert (node._saved_dim, node._saved_reduce, node._saved_include_self) == (0, "amin", False)
    assert node._saved_result.tolist() == [1.0, 0.0, 0.0]
    assert node._saved_source.tolist() == [1.0, 1.0]


def test_index_reduce_without_self_needs_an_int64_index_in_backward():
    # PyTorch's backward clears the written slices with ``index_fill``, which takes int64.
    errors = []
    for lib in (vg, torch):
        x = lib.zeros(3, requires_grad=True)
        index = lib.tensor([0, 0], dtype=lib.int32)
        result = x.index_reduce(0, index, lib.ones(2), "amax", include_self=False)
        with pytest.raises(IndexError) as error:
            result.sum().backward()
        errors.append(str(error.value))
    assert errors[0] == errors[1]


# --- index_add, index_copy, index_fill: index_func_meta_impl's checks, empty slices ----------


@pytest.mark.parametrize(
    "call",
    [
        "lib.index_add(lib.zeros(3, 4), 1, lib.tensor([0, 1, 2]), lib.ones(3))",
        "lib.index_add(lib.zeros(3), 0, lib.tensor([0, 1]), lib.tensor(1.))",
        "lib.index_add(lib.zeros(()), 0, lib.tensor([0, 1]), lib.tensor(1.))",
        "lib.index_add(lib.zeros(()), 0, lib.tensor([0]), lib.tensor([1.]))",
        "lib.index_add(lib.zeros(()), 0, lib.tensor([0]), lib.tensor(1.))",
        "lib.index_add(lib.zeros(3), 0, lib.tensor([0]), lib.tensor(1.))",
        "lib.index_add(lib.zeros(3), 0, lib.tensor(0), lib.tensor(1.))",
        "lib.index_add(lib.zeros(3), 0, lib.tensor([0]), lib.ones(1, 1))",
        "lib.index_add(lib.zeros(3, 4), 0, lib.tensor([0]), lib.ones(1, 4, 1))",
        "lib.index_copy(lib.zeros(3, 0), 0, lib.tensor([5]), lib.ones(1, 0))",
        "lib.index_copy(lib.zeros(3, 4), 0, lib.tensor([0, 0]), lib.arange(8.).view(2, 4))",
        "lib.zeros(3, 4).t().index_copy(0, lib.tensor([0, 3]), lib.arange(6.).view(2, 3))",
        "lib.zeros(3, 0).index_fill(0, lib.tensor([5]), 1)",
        "lib.zeros(3, 4).index_fill(0, lib.tensor([[1]]), 2)",
        "lib.zeros(3, 4).index_fill(5, lib.tensor([[0]]), 1)",
        "lib.zeros(3, 4).index_fill(0, lib.tensor([0.]), lib.ones(2))",
        "lib.zeros(3, 4).index_fill_(0, lib.tensor([0.]), lib.ones(2))",
        "lib.zeros(3, 4, dtype=lib.float16).index_fill(1, lib.tensor(2), 1e10)",
        "lib.zeros(3, 4, dtype=lib.float16).index_fill(1, lib.tensor(2), lib.tensor(1e10))",
        "lib.zeros(3, 4, dtype=lib.float16).index_fill(1, lib.tensor(2), float('inf'))",
        "lib.zeros(3, 4, dtype=lib.int64).index_fill(1, lib.tensor(2), lib.tensor(5.5))",
        "lib.zeros(3, 4).index_fill(1, lib.tensor(2), lib.tensor(True))",
    ],
)
def test_index_add_copy_fill_edge_cases(call):
    assert_same_outcome(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))  # noqa: S307


def test_index_copy_saves_source_as_torch_does():
    # ``source`` is saved (for ``expand_as``): changing it in place breaks the backward.
    errors = []
    for lib in (vg, torch):
        x = lib.zeros(3, 2, requires_grad=True)
        source = lib.ones(1, 2, requires_grad=True).clone()
        result = x.index_copy(0, lib.tensor([1]), source)
        source.add_(1)
        with pytest.raises(RuntimeError) as error:
            result.sum().backward()
        errors.append(str(error.value).split(";")[0].split(" is at version")[0])
    assert errors[0].replace("vizgrad", "torch") == errors[1]


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda lib, x, s: x.index_copy(0, lib.tensor([0]), s), [(), ()]),
        (lambda lib, x, s: x.index_copy(0, lib.tensor(2), s), [(3,), (1,)]),
        (lambda lib, x, s: x.index_copy(-1, lib.tensor([3, 0]), s), [(2, 4), (2, 2)]),
        (lambda lib, x, s: x.index_add(0, lib.tensor([0]), s, alpha=-2), [(), ()]),
        (lambda lib, x, v: x.index_fill(0, lib.tensor([0, 0]), v), [(), ()]),
        (lambda lib, x, v: x.index_fill(-1, lib.tensor([2, 0, 2]), v), [(2, 3), ()]),
    ],
)
def test_index_copy_add_fill_gradients_of_scalars_and_repeats(fn, shapes):
    check_gradients(lambda x, s: fn(vg, x, s), lambda x, s: fn(torch, x, s), shapes)

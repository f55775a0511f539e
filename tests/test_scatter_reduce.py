"""``scatter_reduce`` and ``take_along_dim`` against PyTorch (values, dtypes, strides,
gradients, errors), and ``gather``/``scatter`` with a 0-dim index or ``self``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients
from oracle import assert_same, assert_same_outcome, make_pair

import vizgrad as vg

REDUCES = ["sum", "prod", "mean", "amax", "amin"]
# Repeated positions, one left untouched (2, 1), an index smaller than self and src.
INDEX = [[0, 0, 1], [1, 0, 0], [2, 2, 2]]


def _index_pair(values, layout="contiguous"):
    array = np.array(values, dtype=np.int64)
    if layout == "transposed":  # the same values, column-major
        return vg.tensor(array.T.copy()).t(), torch.tensor(array.T.copy()).t()
    return vg.tensor(array), torch.tensor(array)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("dim", [0, -1])
def test_scatter_reduce_matches_torch(reduce, include_self, layout, dim):
    v, t = make_pair((3, 4), "float32", layout)
    sv, st = make_pair((4, 4), "float32", "transposed", seed=1)
    iv, it = _index_pair(INDEX, "transposed")
    assert_same(vg.scatter_reduce(v, dim, iv, sv, reduce, include_self=include_self),
                torch.scatter_reduce(t, dim, it, st, reduce, include_self=include_self))  # fmt: skip
    assert_same(v.scatter_reduce(dim, iv, sv, reduce=reduce, include_self=include_self),
                t.scatter_reduce(dim, it, st, reduce=reduce, include_self=include_self))  # fmt: skip
    out_v, out_t = vg.empty(0), torch.empty(0)
    assert_same(vg.scatter_reduce(v, dim, iv, sv, reduce, include_self=include_self, out=out_v),
                torch.scatter_reduce(t, dim, it, st, reduce, include_self=include_self, out=out_t))  # fmt: skip
    assert v.scatter_reduce_(dim, iv, sv, reduce, include_self=include_self) is v
    t.scatter_reduce_(dim, it, st, reduce, include_self=include_self)
    assert_same(v, t)
    assert v._version == t._version == 1


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", [*REDUCES, "max", "min"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "float16",
                                   "float64", "complex64", "complex128"])  # fmt: skip
def test_scatter_reduce_dtypes(dtype, reduce, include_self):
    # Integer means floor; a boolean mean and a complex maximum are not compiled.
    v, t = make_pair((3, 4), dtype, "transposed", low=-9, high=9)
    sv, st = make_pair((3, 3), dtype, seed=3, low=-9, high=9)
    iv, it = _index_pair(INDEX)
    assert_same_outcome(
        lambda: vg.scatter_reduce(v, 0, iv, sv, reduce, include_self=include_self),
        lambda: torch.scatter_reduce(t, 0, it, st, reduce, include_self=include_self),
    )


def test_scatter_reduce_nan_and_infinities():
    # A NaN wins a maximum and a minimum; infinities are what an empty position starts at.
    x = [1.0, float("nan"), 3.0, -float("inf")]
    src = [float("nan"), 2.0, 5.0, 1.0, float("inf")]
    index = [0, 0, 1, 2, 3]
    for reduce in REDUCES:
        for include_self in (True, False):
            with np.errstate(invalid="ignore"):
                assert_same(vg.scatter_reduce(vg.tensor(x), 0, vg.tensor(index), vg.tensor(src),
                                              reduce, include_self=include_self),
                            torch.scatter_reduce(torch.tensor(x), 0, torch.tensor(index),
                                                 torch.tensor(src), reduce,
                                                 include_self=include_self))  # fmt: skip


@pytest.mark.parametrize(
    "call",
    [
        "lib.scatter_reduce(lib.tensor(2.), 0, lib.tensor(0), lib.tensor(3.), 'sum')",
        "lib.scatter_reduce(lib.tensor(2.), 0, lib.tensor([0, 0]), lib.tensor([3., 4]), 'prod')",
        "lib.scatter_reduce(lib.tensor(2.), 0, lib.tensor([0, 0]), lib.tensor([3., 4]), 'mean', include_self=False)",
        "lib.scatter_reduce(lib.zeros(3), 0, lib.tensor(1), lib.tensor([5., 6]), 'amax')",
        "lib.scatter_reduce(lib.ones(2, 3), 0, lib.zeros(0, dtype=lib.long), lib.ones(2, 3), 'prod', include_self=False)",
        "lib.scatter_reduce(lib.ones(2, 3), 0, lib.zeros(0, 3), lib.ones(2, 3), 'prod', include_self=False)",
        "lib.scatter_reduce(lib.zeros(0, 3), 1, lib.zeros(0, 2, dtype=lib.long), lib.ones(1, 3), 'mean')",
        "lib.scatter_reduce(lib.full((2, 3), 1e30), 0, lib.tensor([[0, 0, 1], [0, 0, 0]]), lib.full((2, 3), 1e30), 'prod')",
        "lib.scatter_reduce(lib.full((2, 3), 100, dtype=lib.int8), 0, lib.tensor([[0, 0, 1], [0, 0, 0]]), lib.full((2, 3), 100, dtype=lib.int8), 'sum')",
        "lib.scatter_reduce(lib.ones(2, 3), 0, lib.tensor([[0, 1]], dtype=lib.int32), lib.ones(2, 3), 'sum')",
        "lib.ones(2, 3).scatter_reduce(0, lib.tensor([[0, 1]]), lib.ones(2, 3), 'sum', False)",
    ],
)  # fmt: skip
def test_scatter_reduce_edge_cases(call):
    assert_same_outcome(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))  # noqa: S307


@pytest.mark.parametrize(
    "call",
    [
        "lib.scatter_reduce(x, 0, i, s, 'foo')",
        "lib.scatter_reduce(x, 0, i.float(), s, 'foo')",
        "lib.scatter_reduce(x, 0, i.float(), s, 'sum')",
        "lib.scatter_reduce(x, 0, i, s.double(), 'sum')",
        "lib.scatter_reduce(x, 0, i + 3, s, 'sum')",
        "lib.scatter_reduce(x, 0, i - 3, s, 'prod', include_self=False)",
        "lib.scatter_reduce(x, 2, i, s, 'sum')",
        "lib.scatter_reduce(x, 0, i[0], s, 'sum')",
        "lib.scatter_reduce(x, 0, i, s[:1, :2], 'amin')",
        "lib.scatter_reduce(x, 1, lib.zeros(3, 3, dtype=lib.long), lib.ones(3, 3), 'amin')",
        "lib.scatter_reduce(x, 0, i, s)",
        "lib.scatter_reduce(x, 0, i, s, 5)",
        "lib.scatter_reduce(x, 0, i, s, 'sum', out=lib.empty(3, 4, dtype=lib.long))",
        "lib.scatter_reduce(x, 0, i, s, 'foo', out=lib.empty(3, 4))",
        "lib.scatter_reduce(x, 0, i, s, 'sum', out=i)",
        "lib.scatter_reduce(x, 0, i, s, 'sum', out=x)",
        "lib.scatter_reduce(x, 0, i, s, 'sum', out=s)",
        "lib.scatter_reduce(x, 0, i, s, 'mean', out=lib.empty(4, 3).t())",
        "x.scatter_reduce_(0, i, s, 'foo')",
        "x.scatter_reduce_(0, i, x, 'sum')",
        "lib.zeros(1, 4).expand(3, 4).scatter_reduce_(0, i, s, 'sum')",
        "lib.scatter_reduce(x.bool(), 0, i + 5, s.bool(), 'mean')",
        "lib.scatter_reduce(x.bool(), 0, i + 5, s.bool(), 'mean', include_self=False)",
    ],
)
def test_scatter_reduce_bad_input_raises_torchs_errors(call):
    def env(lib):
        return {"lib": lib, "x": lib.zeros(3, 4), "i": lib.tensor([[0, 1, 2], [2, 1, 0]]),
                "s": lib.ones(2, 3)}  # fmt: skip

    assert_same_outcome(lambda: eval(call, env(vg)), lambda: eval(call, env(torch)))  # noqa: S307


def test_scatter_reduce_gives_no_deprecation_warning():
    # Only ``scatter``'s ``reduce=`` with a Tensor src is deprecated.
    for lib in (vg, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.scatter_reduce(lib.zeros(3), 0, lib.tensor([0, 0]), lib.ones(2), "sum")


# --- gradients -------------------------------------------------------------------------------


@pytest.mark.parametrize("layouts", [None, ["transposed", "stepped"]])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_gradients(reduce, include_self, layouts):
    def fn(lib):
        return lambda x, s: lib.scatter_reduce(x, 0, lib.tensor(INDEX), s, reduce,
                                               include_self=include_self)  # fmt: skip

    check_gradients(fn(vg), fn(torch), [(3, 4), (3, 3)], layouts=layouts,
                    grad_fn_name="ScatterReduceBackward0")  # fmt: skip


def test_a_src_bigger_than_index_gets_torchs_invalid_gradient_error():
    # ``src``'s gradient has the index's shape, which PyTorch's engine refuses too.
    errors = []
    for lib in (vg, torch):
        x = lib.zeros(3, 4, dtype=lib.float64, requires_grad=True)
        s = lib.ones(4, 3, dtype=lib.float64, requires_grad=True)
        result = lib.scatter_reduce(x, 0, lib.tensor(INDEX), s, "sum")
        with pytest.raises(RuntimeError) as error:
            result.sum().backward()
        errors.append(str(error.value))
    assert errors[0] == errors[1]


# scatter_reduce and index_reduce share one backward formula (1-D, they are the same).
REDUCE_INTO = {
    "scatter_reduce": lambda x, index, src, reduce, include_self: x.scatter_reduce(
        0, index, src, reduce, include_self=include_self
    ),
    "index_reduce": lambda x, index, src, reduce, include_self: x.index_reduce(
        0, index, src, reduce, include_self=include_self
    ),
}


@pytest.mark.parametrize("op", list(REDUCE_INTO))
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize(
    "reduce, x, src, index",
    [
        # prod: zeros in self, a lone zero and two zeros sent to one position
        ("prod", [0.0, 2, 3, 0], [0.0, 5, 0, 0, 7, 1], [0, 0, 1, 2, 2, 3]),
        ("prod", [1.0, 0, 3, 2], [4.0, 5, 0, 6, 7, 0], [0, 1, 1, 2, 3, 3]),
        # ties: the gradient is shared evenly among the values equal to the result
        ("amax", [5.0, 2, 3, 0], [5.0, 5, 3, 1, 7, 0], [0, 0, 2, 2, 1, 3]),
        ("amin", [5.0, 2, 3, 0], [5.0, 5, 3, 1, 7, 0], [0, 0, 2, 2, 1, 3]),
        ("mean", [5.0, 2, 3, 0], [5.0, 5, 3, 1, 7, 0], [0, 0, 2, 2, 1, 1]),
    ],
)
def test_reduction_gradients_at_zeros_and_ties(op, reduce, x, src, index, include_self):
    grads = []
    for lib in (vg, torch):
        xt = lib.tensor(x, dtype=lib.float64, requires_grad=True)
        st = lib.tensor(src, dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # index_reduce's beta warning
            result = REDUCE_INTO[op](xt, lib.tensor(index), st, reduce, include_self)
        result.backward(lib.tensor([1.0, 2, 3, 4], dtype=lib.float64))
        grads.append((result.tolist(), xt.grad.tolist(), st.grad.tolist()))
    assert grads[0] == grads[1]


def test_scatter_reduce_saves_what_torch_saves():
    x, s = vg.zeros(3, requires_grad=True), vg.ones(2, requires_grad=True)
    node = vg.scatter_reduce(x, 0, vg.tensor([0, 0]), s, "amax", include_self=False).grad_fn
    assert node.name() == "ScatterReduceBackward0"
    assert (node._saved_dim, node._saved_reduce, node._saved_include_self) == (0, "amax", False)
    assert node._saved_result.tolist() == [1.0, 0.0, 0.0]
    assert node._saved_self.tolist() == [0.0, 0.0, 0.0]


def test_scatter_reduce_backward_refuses_max_as_torch_does():
    # The forward takes "max" for "amax"; PyTorch's backward only knows "amax".
    errors = []
    for lib in (vg, torch):
        x = lib.zeros(3, requires_grad=True)
        result = lib.scatter_reduce(x, 0, lib.tensor([0, 0]), lib.ones(2), "max")
        with pytest.raises(RuntimeError) as error:
            result.sum().backward()
        errors.append(str(error.value))
    assert errors[0] == errors[1]


def test_scatter_reduce_refuses_complex_autograd_as_torch_does():
    errors = []
    for lib in (vg, torch):
        x = lib.zeros(3, dtype=lib.complex128, requires_grad=True)
        with pytest.raises(RuntimeError) as error:
            lib.scatter_reduce(x, 0, lib.tensor([0]), lib.ones(1, dtype=lib.complex128), "sum")
        errors.append(type(error.value))
    assert errors[0] == errors[1]


# --- take_along_dim --------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "expanded", "offset"])
@pytest.mark.parametrize(
    "shape, indices, dim",
    [
        ((2, 3), [[0], [2]], 1),
        ((2, 3), [[0, 2, 1, 1]], 1),  # broadcast along dim 0
        ((2, 3), [[1], [0], [1]], 0),
        ((2, 3, 4), [[[0, 2]]], 2),
        ((2, 3, 4), [[[0], [2]]], 1),
        ((2, 3, 4), [[[0, 3, 3]]], -1),
        ((2, 3), [[0, 5, 1]], None),
        ((3,), [2, 0, 2, 1], 0),
        ((2, 3), [[0], [1]], -2),
        ((2, 0), [[0], [1]], 0),
    ],
)
def test_take_along_dim_matches_torch(shape, indices, dim, layout):
    v, t = make_pair(shape, "float32", layout)
    iv, it = _index_pair(indices)
    kwargs = {} if dim is None else {"dim": dim}
    assert_same_outcome(lambda: vg.take_along_dim(v, iv, **kwargs),
                        lambda: torch.take_along_dim(t, it, **kwargs))  # fmt: skip
    assert_same_outcome(lambda: v.take_along_dim(iv, **kwargs),
                        lambda: t.take_along_dim(it, **kwargs))  # fmt: skip
    out_v, out_t = vg.empty(0), torch.empty(0)
    assert_same_outcome(lambda: vg.take_along_dim(v, iv, **kwargs, out=out_v),
                        lambda: torch.take_along_dim(t, it, **kwargs, out=out_t))  # fmt: skip


@pytest.mark.parametrize(
    "call",
    [
        "lib.take_along_dim(x, lib.tensor([[0], [2]]).int(), 1)",
        "lib.take_along_dim(x, lib.tensor([[0], [2]]).float(), 1)",
        "lib.take_along_dim(x, lib.tensor([[0], [2]]).int())",
        "lib.take_along_dim(x, lib.tensor([0, 2]), 1)",
        "lib.take_along_dim(x, lib.tensor([[0, 2, 1, 1]]), 0)",
        "lib.take_along_dim(x, lib.tensor([[0, 2, 1, 1]] * 3), 1)",
        "lib.take_along_dim(x, lib.tensor([[0, 6]]))",
        "lib.take_along_dim(x, lib.tensor([[0, 1]]), 2)",
        "lib.take_along_dim(x.t(), lib.tensor([[0], [2]]))",
        "lib.take_along_dim(lib.tensor(5.), lib.tensor(0), 0)",
        "lib.take_along_dim(lib.tensor(5.), lib.tensor(0))",
        "lib.take_along_dim(lib.tensor(5.), lib.tensor([0, 0]))",
        "lib.take_along_dim(lib.tensor(5.), lib.tensor([0, 0]), 0)",
        "lib.take_along_dim(x, lib.tensor([[0], [2]]), 1, out=lib.empty(2, 1, dtype=lib.long))",
        "lib.take_along_dim(x, lib.tensor([[0], [2]]), 1.5)",
        "lib.take_along_dim(x.long(), lib.tensor([[0], [2]]), 1)",
        "lib.take_along_dim(x > 2, lib.tensor([[0], [2]]), 1)",
    ],
)
def test_take_along_dim_edge_cases_and_errors(call):
    def env(lib):
        return {"lib": lib, "x": lib.arange(6.0).view(2, 3)}

    assert_same_outcome(lambda: eval(call, env(vg)), lambda: eval(call, env(torch)))  # noqa: S307


@pytest.mark.parametrize("dim", [1, None])
def test_take_along_dim_gradient(dim):
    # CompositeImplicitAutograd: the graph is gather's, after expand (or view).
    check_gradients(lambda x: vg.take_along_dim(x, vg.tensor([[0, 2, 2, 0]]), dim),
                    lambda x: torch.take_along_dim(x, torch.tensor([[0, 2, 2, 0]]), dim),
                    [(3, 3)], grad_fn_name="GatherBackward0")  # fmt: skip
    x = vg.ones(3, 3, requires_grad=True)
    t = torch.ones(3, 3, requires_grad=True)
    node = vg.take_along_dim(x, vg.tensor([[0, 2, 2, 0]]), dim).grad_fn
    expected = torch.take_along_dim(t, torch.tensor([[0, 2, 2, 0]]), dim).grad_fn
    assert [f[0].name() for f in node.next_functions] == [
        type(f[0]).__name__ for f in expected.next_functions
    ]


def test_take_along_dim_checks_its_indices():
    """PyTorch's ``take_along_dim`` reads out of bounds without an error (garbage, or
    another row's values) where ``gather`` refuses; vizgrad's is ``gather``'s."""
    x = vg.arange(6.0).view(2, 3)
    for indices, dim in [([[0], [3]], 1), ([[0], [-1]], 1), ([[0], [2]], 0)]:
        with pytest.raises(RuntimeError, match="out of bounds for dimension"):
            vg.take_along_dim(x, vg.tensor(indices), dim)
        with pytest.raises(RuntimeError, match="out of bounds for dimension"):
            torch.gather(torch.arange(6.0).view(2, 3), dim, torch.tensor(indices).expand(2, 1))


def test_take_along_dim_out_refuses_autograd_in_gathers_name():
    errors = []
    for lib in (vg, torch):
        x = lib.ones(3, 3, requires_grad=True)
        with pytest.raises(RuntimeError) as error:
            lib.take_along_dim(x, lib.zeros(3, 3, dtype=lib.long), 1, out=lib.empty(3, 3))
        errors.append(str(error.value))
    assert errors[0] == errors[1]


# --- gather and scatter with a 0-dim index or self -------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        "lib.gather(lib.arange(3.), 0, lib.tensor(1))",
        "lib.gather(lib.tensor(2.), 0, lib.tensor([0, 0]))",
        "lib.gather(lib.tensor(2.), 0, lib.tensor(0))",
        "lib.scatter(lib.zeros(3), 0, lib.tensor(1), lib.tensor(5.))",
        "lib.scatter(lib.zeros(3), 0, lib.tensor(1), lib.tensor([5., 6]))",
        "lib.scatter(lib.zeros(3), 0, lib.tensor(1), 7.)",
        "lib.scatter(lib.tensor(2.), 0, lib.tensor([0, 0]), lib.tensor([3., 4]))",
        "lib.scatter_add(lib.tensor(2.), 0, lib.tensor([0, 0]), lib.tensor([3., 4]))",
        "lib.scatter(lib.tensor(1.), 0, lib.tensor([[0]]), 2.)",
        "lib.scatter(lib.zeros(3, dtype=lib.float16), 0, lib.tensor([1]), 1e10)",
        "lib.scatter(lib.zeros(3, dtype=lib.float16), 0, lib.tensor([1]), 65504.)",
        "lib.scatter(lib.zeros(3, dtype=lib.uint8), 0, lib.tensor([1]), -1)",
        "lib.scatter(lib.zeros(3), 0, lib.tensor([1]), 2 + 1j)",
        "lib.scatter(lib.zeros(3, 4), 0, lib.zeros(1, 4).long(), 2., reduce='foo')",
        "lib.scatter(lib.zeros(3, 4), 0, lib.zeros(1, 4), 2., reduce='foo')",
        "lib.scatter(lib.zeros(3, 4), 0, lib.zeros(1, 4) + 7, 2., reduce='multiply')",
    ],
)
def test_gather_and_scatter_edge_cases(call):
    assert_same_outcome(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))  # noqa: S307


def test_scatter_reduce_argument_warns_before_checking():
    # ``scatter.reduce``'s meta function warns first, then checks the arguments (PyTorch
    # warns once per process: only its error can be compared here).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_same_outcome(
            lambda: vg.scatter(vg.zeros(3), 0, vg.zeros(1), vg.ones(1), reduce="foo"),
            lambda: torch.scatter(torch.zeros(3), 0, torch.zeros(1), torch.ones(1), reduce="foo"),
        )
    # (PyTorch's C++ warnings end with where they were triggered.)
    vizgrad_warnings = [w for w in caught if "Triggered internally" not in str(w.message)]
    assert [str(w.message).startswith("The reduce argument") for w in vizgrad_warnings] == [True]

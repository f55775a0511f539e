"""``select_scatter``, ``slice_scatter``, ``diagonal_scatter``, ``as_strided_scatter``
against PyTorch: values, dtypes, strides and storage offsets (the copy keeps ``self``'s),
gradients, and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients
from oracle import LAYOUTS, assert_same, assert_same_outcome, make_pair

import vizgrad as vg
from vizgrad.ops import scatter_views

# (name, self's shape, src's shape, the arguments after src)
CASES = [
    ("select_scatter", (3, 4), (4,), (0, 1)),
    ("select_scatter", (3, 4), (3,), (-1, -2)),
    ("select_scatter", (2, 3, 4), (2, 4), (1, 2)),
    ("select_scatter", (3,), (), (0, -1)),
    ("select_scatter", (3, 0), (0,), (0, 2)),
    ("slice_scatter", (3, 4), (3, 4), ()),
    ("slice_scatter", (3, 4), (1, 4), (0, 2)),
    ("slice_scatter", (3, 4), (3, 2), (1, 1, None, 2)),
    ("slice_scatter", (3, 4), (3, 2), (-1, -2)),
    ("slice_scatter", (3, 4), (0, 4), (0, 5)),
    ("slice_scatter", (3, 4), (2, 4), (0, -10, 2)),
    ("slice_scatter", (2, 6, 3), (2, 2, 3), (1, 1, 5, 3)),
    ("diagonal_scatter", (3, 4), (3,), ()),
    ("diagonal_scatter", (3, 4), (3,), (1,)),
    ("diagonal_scatter", (3, 4), (2,), (-1,)),
    ("diagonal_scatter", (3, 4), (0,), (5,)),
    ("diagonal_scatter", (3, 4), (3,), (0, -1, -2)),
    ("diagonal_scatter", (2, 3, 4), (2, 3), (0, 1, 2)),
    ("diagonal_scatter", (2, 3, 4), (3, 2), (-1, 2, 0)),
    ("as_strided_scatter", (3, 4), (2, 2), ((2, 2), (4, 1), 1)),
    ("as_strided_scatter", (3, 4), (3,), ((3,), (5,))),
    ("as_strided_scatter", (3, 4), (12,), ((12,), (1,), 0)),
    ("as_strided_scatter", (3, 4), (), ((), (), 7)),
]


def _call(lib, name, x, src, args, **kwargs):
    return getattr(lib, name)(x, src, *args, **kwargs)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}{c[1]}{c[3]}")
def test_values_strides_and_offset_match_torch(case, layout):
    name, shape, src_shape, args = case
    v, t = make_pair(shape, "float32", layout)
    sv, st = make_pair(src_shape, "float32", "transposed", seed=1)
    # The copy has self's strides and storage offset (the whole storage is copied).
    assert_same(_call(vg, name, v, sv, args), _call(torch, name, t, st, args), check_offset=True)
    assert_same(getattr(v, name)(sv, *args), getattr(t, name)(st, *args), check_offset=True)
    assert v._version == t._version == 0  # self is left alone


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float16", "float64", "complex64"])
@pytest.mark.parametrize("src_dtype", ["int32", "float32", "complex128"])
def test_src_is_converted_as_copy_converts_it(dtype, src_dtype):
    v, t = make_pair((3, 4), dtype, "transposed")
    sv, st = make_pair((4,), src_dtype, seed=2, low=0, high=3)
    with warnings.catch_warnings():  # complex into real: the imaginary part is dropped
        warnings.simplefilter("ignore")
        expected = torch.select_scatter(t, st, 0, 2)
        result = vg.select_scatter(v, sv, 0, 2)
    assert_same(result, expected)


def test_an_expanded_self_is_cloned_row_major():
    # Its elements share memory: its strides cannot be kept (``clone_preserve_strides``).
    v, t = make_pair((3, 4), "float32", "expanded")
    assert_same(vg.slice_scatter(v, vg.ones(1, 4), 0, 1, 2),
                torch.slice_scatter(t, torch.ones(1, 4), 0, 1, 2), check_offset=True)  # fmt: skip


def test_as_strided_scatter_reaches_outside_a_view():
    # ``as_strided`` reads the storage, not the view: the copy of the whole storage too.
    base_v, base_t = vg.arange(20.0), torch.arange(20.0)
    v, t = base_v[5:17].view(3, 4), base_t[5:17].view(3, 4)
    for args in [((2, 2), (4, 1)), ((2, 2), (4, 1), 0), ((3,), (1,), 17)]:
        assert_same(vg.as_strided_scatter(v, vg.ones(args[0]), *args),
                    torch.as_strided_scatter(t, torch.ones(args[0]), *args), check_offset=True)  # fmt: skip


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
def test_slice_scatter_out(layout):
    v, t = make_pair((4, 3), "float64", layout)
    sv, st = make_pair((2, 3), "float64", seed=1)
    for out_v, out_t in [(vg.empty(4, 3), torch.empty(4, 3)),
                         (vg.empty(3, 4).t(), torch.empty(3, 4).t()),
                         (vg.empty(0), torch.empty(0))]:  # fmt: skip
        out_v, out_t = out_v.double(), out_t.double()
        result = vg.slice_scatter(v, sv, 0, 1, 3, out=out_v)
        assert result is out_v
        assert_same(result, torch.slice_scatter(t, st, 0, 1, 3, out=out_t))
        assert out_v._version == out_t._version == 1


@pytest.mark.parametrize(
    "call",
    [
        "lib.select_scatter(x, lib.ones(3), 0, 1)",
        "lib.select_scatter(x, lib.ones(1, 4), 0, 1)",
        "lib.select_scatter(x, lib.ones(4), 0, 5)",
        "lib.select_scatter(x, lib.ones(4), 0, -4)",
        "lib.select_scatter(x, lib.ones(4), 2, 1)",
        "lib.select_scatter(lib.zeros(()), lib.ones(()), 0, 0)",
        "lib.select_scatter(x, 1.0, 0, 1)",
        "lib.select_scatter(x, lib.ones(4), 0)",
        "lib.select_scatter(x, lib.ones(4), 0, 1, out=x)",
        "lib.slice_scatter(x, lib.ones(1, 4), 0, 0, 2)",
        "lib.slice_scatter(x, lib.ones(1, 4), 0, 0, 2, 0)",
        "lib.slice_scatter(x, lib.ones(1, 4), 0, 0, 2, -1)",
        "lib.slice_scatter(x, lib.ones(1, 4), 3)",
        "lib.slice_scatter(lib.zeros(()), lib.ones(()))",
        "lib.slice_scatter(x, x, out=lib.empty(3, 4, dtype=lib.int64))",
        "lib.slice_scatter(x, x, 0, 0.5)",
        "lib.diagonal_scatter(x, lib.ones(4))",
        "lib.diagonal_scatter(x, lib.ones(3), 0, 0, 0)",
        "lib.diagonal_scatter(x, lib.ones(3), 0, 0, 2)",
        "lib.diagonal_scatter(lib.zeros(3), lib.ones(3))",
        "lib.as_strided_scatter(x, lib.ones(4), (3,), (1,))",
        "lib.as_strided_scatter(x, lib.ones(3), (3,), (1,), 20)",
        "lib.as_strided_scatter(x, lib.ones(3), (3,), (-1,), 0)",
        "lib.as_strided_scatter(x, lib.ones(3), (3,), (1,), -1)",
        "lib.as_strided_scatter(x, lib.ones(3), 3, 1)",
        "lib.as_strided_scatter(x, lib.ones(2), (2,), (1,), out=x)",
    ],
)
def test_bad_input_raises_torchs_errors(call):
    assert_same_outcome(lambda: eval(call, {"lib": vg, "x": vg.zeros(3, 4)}),  # noqa: S307
                        lambda: eval(call, {"lib": torch, "x": torch.zeros(3, 4)}))  # noqa: S307  # fmt: skip


def test_as_strided_scatter_refuses_a_non_contiguous_self_that_requires_grad():
    # PyTorch's backward assumes a contiguous self (an internal assert says so).
    results = []
    for lib in (vg, torch):
        x = lib.zeros(4, 3, dtype=lib.float64).t().requires_grad_()
        with pytest.raises(RuntimeError) as error:
            lib.as_strided_scatter(x, lib.ones(2, dtype=lib.float64), (2,), (1,))
        results.append(str(error.value).split(" INTERNAL ASSERT")[0])
    assert results[0] == results[1]


# --- gradients -------------------------------------------------------------------------------

GRADIENT_CASES = [
    ("select_scatter", (0, 1), [(3, 4), (4,)]),
    ("select_scatter", (-1, -2), [(3, 4), (3,)]),
    ("select_scatter", (0, 0), [(3,), ()]),
    ("slice_scatter", (1, 1, None, 2), [(3, 4), (3, 2)]),
    ("slice_scatter", (), [(3, 4), (3, 4)]),
    ("diagonal_scatter", (1,), [(3, 4), (3,)]),
    ("diagonal_scatter", (-1, 1, 0), [(3, 4), (3,)]),
    ("diagonal_scatter", (0, 0, 2), [(2, 3, 4), (3, 2)]),
]


@pytest.mark.parametrize("layouts", [None, ["transposed", "stepped"], ["offset", "transposed"]])
@pytest.mark.parametrize("case", GRADIENT_CASES, ids=lambda c: f"{c[0]}{c[1]}")
def test_gradients_match_torch(case, layouts):
    name, args, shapes = case
    if layouts is not None:
        layouts = [
            layout if len(s) > 1 else "stepped" for layout, s in zip(layouts, shapes, strict=True)
        ]
    check_gradients(lambda x, s: getattr(vg, name)(x, s, *args),
                    lambda x, s: getattr(torch, name)(x, s, *args), shapes, layouts=layouts,
                    grad_fn_name="".join(p.title() for p in name.split("_")) + "Backward0")  # fmt: skip


def test_gradient_nodes_save_what_torchs_save():
    x, s = vg.zeros(3, 4, requires_grad=True), vg.ones(3, requires_grad=True)
    node = vg.slice_scatter(x, s[:, None], 1, 2, 3).grad_fn
    assert (node._saved_dim, node._saved_start, node._saved_end, node._saved_step) == (1, 2, 3, 1)
    node = vg.select_scatter(x, s, -1, 1).grad_fn
    assert (node._saved_dim, node._saved_index) == (-1, 1)
    node = vg.diagonal_scatter(x, s, 0, 0, 1).grad_fn
    assert (node._saved_offset, node._saved_dim1, node._saved_dim2) == (0, 0, 1)
    t = torch.zeros(3, 4, requires_grad=True)
    assert [type(f[0]).__name__ for f in node.next_functions] == [
        type(f[0]).__name__
        for f in torch.diagonal_scatter(t, torch.ones(3, requires_grad=True)).grad_fn.next_functions
    ]


def test_double_backward_matches_torch():
    # create_graph: the backward is made of *_scatter and views, differentiable again.
    results = []
    for lib in (vg, torch):
        x = lib.arange(12.0, dtype=lib.float64).view(3, 4).requires_grad_()
        s = lib.ones(4, dtype=lib.float64, requires_grad=True)
        y = lib.select_scatter(x * x, s * s, 0, 1)
        gx, gs = lib.autograd.grad((y * y).sum(), (x, s), create_graph=True)
        (gx.sum() + gs.sum()).backward()
        results.append([t.detach().numpy() for t in (gx, gs, x.grad, s.grad)])
    for r, e in zip(*results, strict=True):
        np.testing.assert_allclose(r, e)


def test_as_strided_scatter_gradient_is_torchs():
    """PyTorch's ``as_strided_scatter_backward`` gives ``self`` the gradient of the
    scattered part instead of the rest (a PyTorch bug): vizgrad gives the same values,
    which finite differences do not confirm; ``src``'s gradient is right."""
    shapes = [(3, 4), (2, 2)]
    check_gradients(lambda x, s: vg.as_strided_scatter(x, s, (2, 2), (4, 1), 1),
                    lambda x, s: torch.as_strided_scatter(x, s, (2, 2), (4, 1), 1), shapes,
                    grad_fn_name="AsStridedScatterBackward0", gradcheck=False)  # fmt: skip
    x = vg.zeros(3, 4, dtype=vg.float64, requires_grad=True)
    s = vg.zeros(2, 2, dtype=vg.float64, requires_grad=True)
    assert vg.autograd.gradcheck(lambda s: vg.as_strided_scatter(x.detach(), s, (2, 2), (4, 1)), s)
    with pytest.raises(vg.autograd.GradcheckError, match="Jacobian mismatch"):
        vg.autograd.gradcheck(lambda x: vg.as_strided_scatter(x, s.detach(), (2, 2), (4, 1)), x)


@pytest.mark.parametrize("name", ["select_scatter", "slice_scatter", "diagonal_scatter",
                                  "as_strided_scatter"])  # fmt: skip
def test_exported_and_bound_as_in_torch(name):
    assert name in scatter_views.__all__ and getattr(vg, name) is getattr(scatter_views, name)
    assert hasattr(vg.Tensor, name) == hasattr(torch.Tensor, name)
    assert hasattr(vg.Tensor, name + "_") == hasattr(torch.Tensor, name + "_")


# PyTorch differentiates these for complex numbers (its GRADIENT_IMPLEMENTED_FOR_COMPLEX),
# and refuses select_scatter, slice_scatter, scatter_reduce and index_reduce.
COMPLEX_CASES = {
    "select_scatter": lambda lib, x, s: lib.select_scatter(x, s, 0, 0),
    "slice_scatter": lambda lib, x, s: lib.slice_scatter(x, s[None], 0, 0, 1),
    "diagonal_scatter": lambda lib, x, s: lib.diagonal_scatter(x, s),
    "as_strided_scatter": lambda lib, x, s: lib.as_strided_scatter(x, s, (3,), (1,)),
    "scatter_reduce": lambda lib, x, s: x.scatter_reduce(
        0, lib.tensor([[0, 2, 0]]), s[None], "sum"
    ),
    "index_reduce": lambda lib, x, s: x.index_reduce(0, lib.tensor([1]), s[None], "prod"),
    "gather": lambda lib, x, s: x.gather(0, lib.tensor([[0, 2, 0]])) * s,
    "take_along_dim": lambda lib, x, s: lib.take_along_dim(x, lib.tensor([[2], [0], [1]]), 1),
    "scatter": lambda lib, x, s: x.scatter(0, lib.tensor([[0, 2, 0]]), s[None]),
    "scatter_value": lambda lib, x, s: x.scatter(0, lib.tensor([[0, 2, 0]]), 2.0),
    "scatter_add": lambda lib, x, s: x.scatter_add(0, lib.tensor([[0, 2, 0]]), s[None]),
    "index_select": lambda lib, x, s: x.index_select(1, lib.tensor([2, 2])),
    "index_add": lambda lib, x, s: x.index_add(0, lib.tensor([1]), s[None], alpha=2),
    "index_copy": lambda lib, x, s: x.index_copy(0, lib.tensor([1]), s[None]),
    "index_fill": lambda lib, x, s: x.index_fill(1, lib.tensor([0, 0]), 2.0),
    "index_fill_tensor": lambda lib, x, s: x.index_fill(1, lib.tensor([0, 0]), s[1]),
    "masked_fill": lambda lib, x, s: x.masked_fill(lib.tensor([True, False, True]), 2.0),
    "masked_fill_tensor": lambda lib, x, s: x.masked_fill(lib.tensor([True, False, True]), s[0]),
    "masked_select": lambda lib, x, s: x.masked_select(lib.tensor([True, False, True])),
    "masked_scatter": lambda lib, x, s: x.masked_scatter(lib.tensor([True, False, True]), s),
}


@pytest.mark.parametrize("name", list(COMPLEX_CASES))
def test_complex_autograd_as_in_torch(name):
    outcomes = []
    for lib in (vg, torch):
        values = vg.tensor if lib is vg else torch.tensor
        x = values([[1 + 2j, 3 - 1j, 0.5j], [2, -1j, 1 + 1j], [4j, 1, -2 + 1j]],
                   dtype=lib.complex128, requires_grad=True)  # fmt: skip
        s = values([1 - 1j, 2j, 3], dtype=lib.complex128, requires_grad=True)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # index_reduce's beta warning
                y = COMPLEX_CASES[name](lib, x, s)
            (y * y.conj()).real.sum().backward()
        except RuntimeError as error:
            outcomes.append(("error", str(error)))
            continue
        outcomes.append(("ok", x.grad.tolist(), None if s.grad is None else s.grad.tolist()))
    assert outcomes[0][0] == outcomes[1][0], outcomes
    if outcomes[0][0] == "ok":
        for got, expected in zip(outcomes[0][1:], outcomes[1][1:], strict=True):
            np.testing.assert_allclose(
                np.array(got, dtype=complex), np.array(expected, dtype=complex)
            )
    else:
        assert outcomes[0][1] == outcomes[1][1]

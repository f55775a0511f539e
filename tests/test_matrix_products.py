"""Matrix products and matrix functions against PyTorch: ``trace``, ``addmv``, ``addr``,
``addbmm``, ``baddbmm``, ``chain_matmul``, ``linalg.multi_dot``, ``cross``,
``linalg.cross``, ``linalg.vecdot``, ``matrix_power``, ``matrix_exp`` and ``cdist``.

Values, dtypes, shapes and strides on every layout, 0-dim, empty, batched and broadcast
inputs; the in-place and ``out=`` forms; ``beta``/``alpha``; the recorded graph (node
names, and for products the shapes each ``mm`` saved: the order ``multi_dot`` chose);
gradients (``.grad`` against torch's, ``gradcheck``); errors and warnings.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients
from oracle import (
    LAYOUTS,
    TorchOps,
    assert_same,
    assert_same_error,
    assert_same_outcome,
    make_pair,
)
from torch_doc_examples import assert_same_outcome as assert_same_example
from torch_doc_examples import run_both

import vizgrad as vg
from vizgrad import events

DTYPES = ["float32", "float64", "int64"]
TOLERANCE = {"float32": 1e-4, "complex64": 1e-4, "float16": 2e-2}


def pairs(*shapes, dtype="float32", layout="contiguous", **value_range):
    """The same values in both libraries, one tensor per shape, laid out as ``layout``."""
    value_range = value_range or {"low": -3, "high": 3}
    made = [make_pair(shape, dtype, layout, seed=i, **value_range)
            for i, shape in enumerate(shapes)]  # fmt: skip
    return [v for v, _ in made], [t for _, t in made]


def same(got, expected, dtype="float32", **options):
    tol = TOLERANCE.get(dtype, 1e-9)
    assert_same(got, expected, rtol=tol, atol=tol, **options)


def compare(vg_call, torch_call, *shapes, dtype="float32", layout="contiguous", **options):
    """``vg_call(vizgrad, *tensors)`` against ``torch_call(torch, *tensors)``."""
    vs, ts = pairs(*shapes, dtype=dtype, layout=layout)
    same(vg_call(vg, *vs), torch_call(torch, *ts), dtype, **options)


def both(call, *shapes, **options):
    """One call written once for both libraries (``m`` is the module)."""
    compare(call, call, *shapes, **options)


def errors_alike(call, *shapes, dtypes=None, layout="contiguous", **options):
    """The call raises in torch, and vizgrad raises alike (class and message)."""
    dtypes = dtypes or ["float32"] * len(shapes)
    made = [make_pair(s, d, layout, seed=i)
            for i, (s, d) in enumerate(zip(shapes, dtypes, strict=True))]  # fmt: skip
    vs, ts = [v for v, _ in made], [t for _, t in made]
    assert_same_error(lambda: call(vg, *vs), lambda: call(torch, *ts), **options)


def outs(shape, dtype="float32", layout="contiguous"):
    """An ``out=`` tensor in each library, zeros of its own (resizable) storage; laid out
    column-major with ``layout="transposed"``."""
    if layout == "transposed":
        swapped = (*shape[:-2], shape[-1], shape[-2])
        return (
            vg.zeros(swapped, dtype=getattr(vg, dtype)).transpose(-1, -2),
            torch.zeros(swapped, dtype=getattr(torch, dtype)).transpose(-1, -2),
        )
    return vg.zeros(shape, dtype=getattr(vg, dtype)), torch.zeros(
        shape, dtype=getattr(torch, dtype)
    )


def graph(y) -> list:
    """The backward graph from ``y``, depth first: node names (without a namespace) and,
    for each node, the shapes of the tensors it saved under ``_saved_self``/``_saved_mat2``
    (which tell one ``mm`` from another)."""
    nodes, stack, seen = [], [y.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        shapes = tuple(tuple(getattr(node, f"_saved_{name}").shape)
                       for name in ("self", "mat2") if hasattr(node, f"_saved_{name}"))  # fmt: skip
        nodes.append((node.name().split("::")[-1], shapes))
        stack.extend(next_node for next_node, _ in node.next_functions)
    return nodes


def same_graph(call, *shapes):
    """The call records the same graph in both libraries, and gives the same values."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    vs = [vg.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    got, expected = call(vg, *vs), call(torch, *ts)
    same(got.detach(), expected.detach(), "float64", check_stride=False)
    assert graph(got) == graph(expected)


@pytest.fixture
def torch_warns_always():
    """PyTorch's deprecation warnings are ``TORCH_WARN_ONCE``: made to warn every time."""
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    yield
    torch.set_warn_always(before)


def warned(call) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message).split(" (Triggered internally")[0].replace("torch.", "vizgrad.")
            for w in caught if issubclass(w.category, UserWarning)]  # fmt: skip


# --- trace ------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [*DTYPES, "int32", "uint8", "float16", "complex64"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (1, 1), (0, 3), (3, 0)])
def test_trace(shape, dtype, layout):
    both(lambda m, x: m.trace(x), shape, dtype=dtype, layout=layout)
    both(lambda m, x: x.trace(), shape, dtype=dtype, layout=layout)


@pytest.mark.parametrize(("shape", "dtype"), [((3,), "float32"), ((), "float32"),
                                              ((2, 2, 2), "float32"), ((3, 3), "bool"),
                                              ((3,), "bool")])  # fmt: skip
def test_trace_errors(shape, dtype):
    errors_alike(lambda m, x: m.trace(x), shape, dtypes=[dtype])


@pytest.mark.parametrize("shape", [(3, 4), (5, 2), (2, 5), (1, 1)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_trace_gradient(shape, layout):
    check_gradients(vg.trace, torch.trace, [shape], layouts=[layout])


# --- addmv ------------------------------------------------------------------------------------


ADDMV_SCALARS = [{}, {"beta": 0.5, "alpha": 2}, {"beta": 0}, {"beta": 2, "alpha": -1},
                 {"beta": 2.5, "alpha": 1.5}]  # fmt: skip


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("self_shape", [(3,), (1,), ()])
@pytest.mark.parametrize("scalars", ADDMV_SCALARS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_addmv(layout, self_shape, scalars, dtype):
    shapes = (self_shape, (3, 4), (4,))
    both(lambda m, s, a, v: m.addmv(s, a, v, **scalars), *shapes, dtype=dtype, layout=layout)
    both(lambda m, s, a, v: s.addmv(a, v, **scalars), *shapes, dtype=dtype, layout=layout)


# (An expanded ``self`` is written in place by PyTorch without an overlap check, in an
# order that decides what is left: no layout to compare there.)
@pytest.mark.parametrize("layout", [layout for layout in LAYOUTS if layout != "expanded"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_addmv_in_place(layout, dtype):
    shapes = ((3,), (3, 4), (4,))
    both(lambda m, s, a, v: s.addmv_(a, v, beta=2, alpha=3), *shapes, dtype=dtype,
         layout=layout, check_offset=True)  # fmt: skip
    both(lambda m, s, a, v: m.addmv_(s, a, v), *shapes, dtype=dtype, layout=layout)


@pytest.mark.parametrize("shapes", [((3,), (3, 0), (0,)), ((1,), (3, 0), (0,)),
                                    ((), (3, 0), (0,)), ((0,), (0, 4), (4,)),
                                    ((1,), (0, 4), (4,))])  # fmt: skip
@pytest.mark.parametrize("beta", [1, 0, 2])
def test_addmv_empty(shapes, beta):
    """An empty matrix gives ``beta * input``, with ``input``'s own shape (PyTorch's shortcut)."""
    both(lambda m, s, a, v: m.addmv(s, a, v, beta=beta), *shapes)
    both(lambda m, s, a, v: m.addmv(s, a, v, beta=beta), *shapes, dtype="bool")


def test_beta_zero_ignores_nan_and_inf():
    for make in (lambda m: m.full((3,), float("nan")), lambda m: m.full((3,), float("inf"))):
        for mat_shape, vec_shape in (((3, 2), (2,)), ((3, 0), (0,))):
            (a, v), (ta, tv) = pairs(mat_shape, vec_shape)
            same(vg.addmv(make(vg), a, v, beta=0), torch.addmv(make(torch), ta, tv, beta=0))
    for m_shape, b_shape in (((1, 2, 3), (1, 3, 2)), ((1, 2, 0), (1, 0, 2))):
        (b1, b2), (t1, t2) = pairs(m_shape, b_shape)
        nan_v, nan_t = vg.full((1, 2, 2), float("nan")), torch.full((1, 2, 2), float("nan"))
        same(vg.baddbmm(nan_v, b1, b2, beta=0), torch.baddbmm(nan_t, t1, t2, beta=0))
        same(vg.addbmm(nan_v[0], b1, b2, beta=0), torch.addbmm(nan_t[0], t1, t2, beta=0))
    (v1, v2), (t1, t2) = pairs((3,), (2,))
    same(vg.addr(vg.full((3, 2), float("nan")), v1, v2, beta=0),
         torch.addr(torch.full((3, 2), float("nan")), t1, t2, beta=0))  # fmt: skip


@pytest.mark.parametrize("out_shape", [(3,), (0,), (2,), (6,)])
@pytest.mark.parametrize("out_dtype", ["float32", "float64"])
def test_addmv_out(out_shape, out_dtype):
    (s, a, v), (ts, ta, tv) = pairs((3,), (3, 4), (4,))
    out_v, out_t = outs(out_shape, out_dtype)
    if out_shape == (6,):  # a stepped out= of the right shape is written as it is
        out_v, out_t = out_v[::2], out_t[::2]
    assert_same_outcome(lambda: vg.addmv(s, a, v, out=out_v),
                        lambda: torch.addmv(ts, ta, tv, out=out_t), compare_warnings=True)  # fmt: skip
    if out_dtype == "float32":
        same(out_v, out_t)


ADDMV_ERRORS = [
    (((2,), (3, 4), (4,)), None),
    (((), (3, 4), (5,)), None),
    (((3, 1), (3, 4), (4,)), None),
    (((3,), (4,), (4,)), None),
    (((3,), (3, 4), (4, 1)), None),
    (((3,), (3, 4), (5,)), None),
    (((3,), (3, 4), (4,)), ["float64", "float32", "float32"]),
    (((3,), (3, 4), (4,)), ["float32", "float32", "float64"]),
    (((3,), (3, 4), (4,)), ["float32", "float64", "float32"]),
    (((3,), (3, 4), (4,)), ["bool", "bool", "bool"]),
    (((3,), (3, 4), (4,)), ["bool", "bool", "float32"]),
]


@pytest.mark.parametrize(("shapes", "dtypes"), ADDMV_ERRORS)
def test_addmv_errors(shapes, dtypes):
    errors_alike(lambda m, s, a, v: m.addmv(s, a, v), *shapes, dtypes=dtypes)


def test_addmv_in_place_and_out_errors():
    errors_alike(lambda m, s, a, v: s.addmv_(a, v), (1,), (3, 4), (4,))
    errors_alike(lambda m, s, a, v: s.addmv_(a, v), (), (1, 4), (4,))
    errors_alike(lambda m, s, a, v: s.addmv_(a, v), (3,), (3, 4), (4,),
                 dtypes=["int64", "float32", "float32"])  # fmt: skip
    errors_alike(lambda m, s, a, v: m.addmv(s, a, v, out=m.empty(3, dtype=m.float64)),
                 (3,), (3, 4), (4,))  # fmt: skip
    errors_alike(lambda m, s, a, v: m.addmv(s, a, v, beta=1j), (3,), (3, 2), (2,))


@pytest.mark.parametrize("scalars", [{}, {"beta": 0.5, "alpha": 2}])
@pytest.mark.parametrize(("self_shape", "layout"), [((3,), "contiguous"), ((1,), "transposed"),
                                                    ((), "stepped")])  # fmt: skip
def test_addmv_gradient(scalars, self_shape, layout):
    check_gradients(lambda s, a, v: vg.addmv(s, a, v, **scalars),
                    lambda s, a, v: torch.addmv(s, a, v, **scalars),
                    [self_shape, (3, 4), (4,)], layouts=["contiguous", layout, "stepped"])  # fmt: skip


# --- addr -------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("self_shape", [(3, 4), (4,), (1, 4), (3, 1), ()])
@pytest.mark.parametrize("scalars", [{}, {"beta": 0.5, "alpha": 2}, {"beta": 0}])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_addr(layout, self_shape, scalars, dtype):
    shapes = (self_shape, (3,), (4,))
    both(lambda m, s, a, b: m.addr(s, a, b, **scalars), *shapes, dtype=dtype, layout=layout)
    both(lambda m, s, a, b: s.addr(a, b, **scalars), *shapes, dtype=dtype, layout=layout)


@pytest.mark.parametrize(("dtypes", "scalars"), [
    (["int64"] * 3, {"beta": 2, "alpha": 3}),
    (["int64"] * 3, {"beta": 0}),
    (["bool"] * 3, {}),
    (["bool"] * 3, {"beta": False, "alpha": True}),
    (["bool"] * 3, {"beta": 2, "alpha": 0}),
    (["float64", "float32", "int64"], {}),
    (["int64", "float32", "float32"], {"beta": 2.5}),
    (["int32", "uint8", "int64"], {}),
    (["complex64", "float32", "float32"], {"alpha": 1j}),
])  # fmt: skip
def test_addr_promotes(dtypes, scalars):
    made = [make_pair(s, d, seed=i) for i, (s, d) in enumerate(zip(((3, 4), (3,), (4,)), dtypes,
                                                                    strict=True))]  # fmt: skip
    vs, ts = [v for v, _ in made], [t for _, t in made]
    assert_same_outcome(lambda: vg.addr(*vs, **scalars), lambda: torch.addr(*ts, **scalars))


@pytest.mark.parametrize("layout", LAYOUTS[:3])
def test_addr_in_place_and_out(layout):
    both(lambda m, s, a, b: s.addr_(a, b, beta=2, alpha=0.5), (3, 4), (3,), (4,), layout=layout,
         check_offset=True)  # fmt: skip
    both(lambda m, s, a, b: s.addr_(a, b), (3, 4), (3,), (4,), dtype="float64", layout=layout)
    for out_shape, out_layout in (((3, 4), "contiguous"), ((0,), "contiguous"),
                                  ((3, 4), "transposed")):  # fmt: skip
        out_v, out_t = outs(out_shape, "float64", out_layout)
        (s, a, b), (ts, ta, tb) = pairs((3, 4), (3,), (4,), layout=layout)
        got = vg.addr(s, a, b, out=out_v)
        assert got is out_v
        same(out_v, torch.addr(ts, ta, tb, out=out_t))


ADDR_ERRORS = [
    ((3, 4), (3, 1), (4,), {}, None),
    ((3, 4), (3,), (4, 1), {}, None),
    ((2, 4), (3,), (4,), {}, None),
    ((1, 3, 4), (3,), (4,), {}, None),
    ((3, 4), (3,), (4,), {"beta": 2.0}, ["int64"] * 3),
    ((3, 4), (3,), (4,), {"alpha": 0.5}, ["int64"] * 3),
    ((3, 4), (3,), (4,), {"beta": True}, None),
    ((3, 4), (3,), (4,), {"alpha": 1.5}, ["bool"] * 3),
    ((3, 4), (3,), (4,), {"beta": 1j}, None),
]


@pytest.mark.parametrize(("s", "v1", "v2", "scalars", "dtypes"), ADDR_ERRORS)
def test_addr_errors(s, v1, v2, scalars, dtypes):
    errors_alike(lambda m, *t: m.addr(*t, **scalars), s, v1, v2, dtypes=dtypes)


def test_addr_in_place_errors():
    errors_alike(lambda m, s, a, b: s.addr_(a, b), (4,), (3,), (4,))
    errors_alike(lambda m, s, a, b: s.addr_(a, b), (1, 4), (3,), (4,))
    errors_alike(lambda m, s, a, b: s.addr_(a, b), (3, 4), (3,), (4,),
                 dtypes=["int64", "float32", "float32"])  # fmt: skip
    errors_alike(lambda m, s, a, b: m.addr(s, a, b, out=m.empty(3, 4, dtype=m.int64)),
                 (3, 4), (3,), (4,))  # fmt: skip
    assert not hasattr(vg, "addr_") and not hasattr(torch, "addr_")


@pytest.mark.parametrize("scalars", [{}, {"beta": 0.5, "alpha": 2}])
@pytest.mark.parametrize("self_shape", [(3, 4), (4,), ()])
def test_addr_gradient(scalars, self_shape):
    check_gradients(lambda s, a, b: vg.addr(s, a, b, **scalars),
                    lambda s, a, b: torch.addr(s, a, b, **scalars),
                    [self_shape, (3,), (4,)], layouts=["contiguous", "stepped", "contiguous"])  # fmt: skip


# --- baddbmm and addbmm -----------------------------------------------------------------------


BATCHED_SELF_SHAPES = {
    "baddbmm": [(2, 3, 5), (5,), (1, 3, 1), ()],
    "addbmm": [(3, 5), (5,), (3, 1), ()],
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(("op", "self_shape"), [(op, shape) for op, shapes in BATCHED_SELF_SHAPES.items()
                                                for shape in shapes])  # fmt: skip
@pytest.mark.parametrize("scalars", [{}, {"beta": 0.5, "alpha": 2}, {"beta": 0},
                                     {"beta": 2.5, "alpha": 1.5}])  # fmt: skip
@pytest.mark.parametrize("dtype", DTYPES)
def test_batched(layout, op, self_shape, scalars, dtype):
    shapes = (self_shape, (2, 3, 4), (2, 4, 5))
    both(lambda m, s, a, b: getattr(m, op)(s, a, b, **scalars), *shapes, dtype=dtype, layout=layout)
    both(lambda m, s, a, b: getattr(s, op)(a, b, **scalars), *shapes, dtype=dtype, layout=layout)


@pytest.mark.parametrize("op", ["baddbmm", "addbmm"])
@pytest.mark.parametrize("layout", LAYOUTS[:3])
def test_batched_in_place(op, layout):
    self_shape = (2, 3, 5) if op == "baddbmm" else (3, 5)
    both(lambda m, s, a, b: getattr(s, op + "_")(a, b, beta=2, alpha=3), self_shape, (2, 3, 4),
         (2, 4, 5), layout=layout, check_offset=True)  # fmt: skip
    assert not hasattr(vg, op + "_") and not hasattr(torch, op + "_")


IN_PLACE = [
    ("addmv_", [(3,), (3, 4), (4,)]),
    ("addr_", [(3, 4), (3,), (4,)]),
    ("baddbmm_", [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    ("addbmm_", [(3, 5), (2, 3, 4), (2, 4, 5)]),
]


@pytest.mark.parametrize(("name", "shapes"), IN_PLACE)
def test_in_place_gradient_and_version(name, shapes):
    """In place on a non-leaf: one version bump, the node of the functional form, and the
    gradients of all three inputs (``self``'s through the clone)."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    results = []
    for m in (vg, torch):
        inputs = [m.tensor(a, requires_grad=True) for a in arrays]
        target = inputs[0].clone()
        version = target._version
        out = getattr(target, name)(*inputs[1:], beta=0.5, alpha=2)
        assert out is target and target._version == version + 1
        out.sum().backward()
        results.append((out.grad_fn.name(), [t.grad for t in inputs], out.detach()))
    (v_name, v_grads, v_out), (t_name, t_grads, t_out) = results
    assert v_name == t_name
    same(v_out, t_out, "float64")
    for got, expected in zip(v_grads, t_grads, strict=True):
        same(got, expected, "float64")


def test_addbmm_in_place_grows_a_broadcast_self():
    """``addbmm_`` resizes ``self`` to the product's shape (``resize_as_``), as PyTorch does."""
    s, t = vg.arange(5.0), torch.arange(5.0)
    (a, b), (ta, tb) = pairs((2, 3, 4), (2, 4, 5))
    same(s.addbmm_(a, b), t.addbmm_(ta, tb))
    same(s, t)


@pytest.mark.parametrize("op", ["baddbmm", "addbmm"])
@pytest.mark.parametrize("out_shape", ["right", (0,), (3,), "transposed"])
def test_batched_out(op, out_shape):
    shape = (2, 3, 5) if op == "baddbmm" else (3, 5)
    (s, a, b), (ts, ta, tb) = pairs(shape, (2, 3, 4), (2, 4, 5))
    if out_shape == "transposed":
        out_v, out_t = outs(shape, layout="transposed")
    else:
        out_v, out_t = outs(shape if out_shape == "right" else out_shape)
    assert_same_outcome(lambda: getattr(vg, op)(s, a, b, out=out_v),
                        lambda: getattr(torch, op)(ts, ta, tb, out=out_t), compare_warnings=True)  # fmt: skip
    same(out_v, out_t)


@pytest.mark.parametrize("op", ["baddbmm", "addbmm"])
@pytest.mark.parametrize("shapes", [((2, 3, 0), (2, 0, 5)), ((0, 3, 4), (0, 4, 5)),
                                    ((2, 0, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 0))])  # fmt: skip
@pytest.mark.parametrize("beta", [1, 0, 2])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_batched_empty(op, shapes, beta, dtype):
    """An empty contraction gives ``beta * input`` (a ``bool`` result refuses the
    integer ``beta``, in ``mul_``, as in PyTorch)."""
    rows, cols = shapes[0][1], shapes[1][2]
    self_shape = (shapes[0][0], rows, cols) if op == "baddbmm" else (rows, cols)
    made = [make_pair(s, dtype, seed=i) for i, s in enumerate((self_shape, *shapes))]
    vs, ts = [v for v, _ in made], [t for _, t in made]
    assert_same_outcome(lambda: getattr(vg, op)(*vs, beta=beta),
                        lambda: getattr(torch, op)(*ts, beta=beta))  # fmt: skip


BADDBMM_ERRORS = [
    (((2, 3), (2, 3, 4), (2, 4, 5)), None),
    (((1, 2, 3, 5), (2, 3, 4), (2, 4, 5)), None),
    (((2, 3, 5), (3, 4), (2, 4, 5)), None),
    (((2, 3, 5), (2, 3, 4), (4, 5)), None),
    (((2, 3, 5), (2, 3), (2, 3, 5)), None),
    (((2, 3, 5), (2, 3, 4), (3, 4, 5)), None),
    (((2, 3, 5), (2, 3, 4), (2, 3, 5)), None),
    (((2, 3, 5), (2, 3, 4), (2, 4, 5)), ["float64", "float32", "float32"]),
    (((2, 3, 5), (2, 3, 4), (2, 4, 5)), ["float32", "float64", "float32"]),
    (((2, 3, 5), (2, 3, 4), (2, 4, 5)), ["float32", "float32", "float64"]),
    (((2, 30, 50), (2, 30, 40), (2, 40, 50)), ["float32", "float32", "float64"]),
    (((2, 3, 5), (2, 3, 4), (2, 4, 5)), ["bool"] * 3),
    (((2, 30, 50), (2, 30, 40), (2, 40, 50)), ["bool"] * 3),
]


@pytest.mark.parametrize(("shapes", "dtypes"), BADDBMM_ERRORS)
def test_baddbmm_errors(shapes, dtypes):
    errors_alike(lambda m, *t: m.baddbmm(*t), *shapes, dtypes=dtypes)


ADDBMM_ERRORS = [
    (((2, 5), (2, 3, 4), (2, 4, 5)), None),
    (((1, 3, 5), (2, 3, 4), (2, 4, 5)), None),
    (((3, 5), (3, 4), (2, 4, 5)), None),
    (((3, 5), (2, 3, 4), (4, 5)), None),
    (((3, 5), (2, 3, 4), (3, 4, 5)), None),
    (((3, 5), (2, 3, 4), (2, 3, 5)), None),
    (((3, 5), (2, 3, 4), (2, 4, 5)), ["float64", "float32", "float32"]),
    (((3, 5), (2, 3, 4), (2, 4, 5)), ["float32", "float64", "float32"]),
    (((3, 5), (2, 3, 4), (2, 4, 5)), ["float32", "float32", "float64"]),
    (((3, 5), (2, 3, 4), (2, 4, 5)), ["bool"] * 3),
]


@pytest.mark.parametrize(("shapes", "dtypes"), ADDBMM_ERRORS)
def test_addbmm_errors(shapes, dtypes):
    errors_alike(lambda m, *t: m.addbmm(*t), *shapes, dtypes=dtypes)


def test_batched_in_place_and_out_errors():
    shapes = ((2, 3, 4), (2, 4, 5))
    errors_alike(lambda m, s, a, b: s.baddbmm_(a, b), (5,), *shapes)
    errors_alike(lambda m, s, a, b: s.baddbmm_(a, b), (1, 3, 5), *shapes)
    errors_alike(lambda m, s, a, b: s.baddbmm_(a, b), (2, 3, 5), *shapes,
                 dtypes=["float32", "float32", "float64"])  # fmt: skip
    errors_alike(lambda m, s, a, b: m.baddbmm(s, a, b, out=m.empty(0, dtype=m.float64)),
                 (2, 3, 5), *shapes)  # fmt: skip
    errors_alike(lambda m, s, a, b: m.baddbmm(s, a, b, beta=1j), (2, 3, 5), *shapes)
    errors_alike(lambda m, s, a, b: m.addbmm(s, a, b, out=m.empty(0, dtype=m.int64)),
                 (3, 5), *shapes)  # fmt: skip
    errors_alike(lambda m, s, a, b: m.addbmm(s, a, b, beta=1j), (3, 5), *shapes)


def test_addbmm_out_takes_its_own_dtype():
    """``addbmm`` writes into ``out`` batch by batch: its dtype, not ``input``'s, is
    checked against the batches'."""
    (s, a, b), (ts, ta, tb) = pairs((3, 5), (2, 3, 4), (2, 4, 5))
    s, ts = s.double(), ts.double()
    same(vg.addbmm(s, a, b, out=vg.empty(0)), torch.addbmm(ts, ta, tb, out=torch.empty(0)))


@pytest.mark.parametrize("scalars", [{}, {"beta": 0.5, "alpha": 2}])
@pytest.mark.parametrize("self_shape", [(2, 3, 5), (5,)])
def test_baddbmm_gradient(scalars, self_shape):
    check_gradients(lambda s, a, b: vg.baddbmm(s, a, b, **scalars),
                    lambda s, a, b: torch.baddbmm(s, a, b, **scalars),
                    [self_shape, (2, 3, 4), (2, 4, 5)],
                    layouts=["contiguous", "transposed", "stepped"])  # fmt: skip


@pytest.mark.parametrize("scalars", [{}, {"beta": 0.5, "alpha": 2}])
@pytest.mark.parametrize("self_shape", [(3, 5), (5,), ()])
def test_addbmm_gradient(scalars, self_shape):
    check_gradients(lambda s, a, b: vg.addbmm(s, a, b, **scalars),
                    lambda s, a, b: torch.addbmm(s, a, b, **scalars),
                    [self_shape, (2, 3, 4), (2, 4, 5)],
                    layouts=["contiguous", "transposed", "stepped"])  # fmt: skip


def test_complex_products_and_gradients():
    """The formulas hold for complex numbers (``derivatives.yaml``'s ``.conj()``s)."""
    rng = np.random.default_rng(3)

    def complex_pair(*shape):
        a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        return vg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)

    calls = [
        (lambda m, s, a, b: m.addmv(s, a, b, beta=0.5j, alpha=2), [(3,), (3, 4), (4,)]),
        (lambda m, s, a, b: m.addr(s, a, b, alpha=1 - 1j), [(3, 4), (3,), (4,)]),
        (lambda m, s, a, b: m.baddbmm(s, a, b, beta=2j), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
        (lambda m, s, a, b: m.addbmm(s, a, b, alpha=1j), [(3, 5), (2, 3, 4), (2, 4, 5)]),
        (lambda m, a, b: m.linalg.cross(a, b), [(2, 3), (2, 3)]),
        (lambda m, a, b: m.linalg.vecdot(a, b), [(2, 3), (2, 3)]),
        (lambda m, a: m.trace(a), [(3, 3)]),
        (lambda m, a: m.linalg.matrix_exp(a), [(3, 3)]),
    ]
    for call, shapes in calls:
        made = [complex_pair(*s) for s in shapes]
        vs, ts = [v for v, _ in made], [t for _, t in made]
        got, expected = call(vg, *vs), call(torch, *ts)
        same(got.detach(), expected.detach(), "complex128")
        got.abs().sum().backward()
        expected.abs().sum().backward()
        for v, t in zip(vs, ts, strict=True):  # (a grad may be a conjugate view, in both)
            assert v.grad.is_conj() == t.grad.is_conj()
            same(v.grad.resolve_conj(), t.grad, "complex128", check_stride=False)


# --- chain_matmul and linalg.multi_dot --------------------------------------------------------


MULTI_DOT_SHAPES = [
    [(2, 3), (3, 4)],
    [(3,), (3,)],
    [(3,), (3, 4)],
    [(2, 3), (3,)],
    [(3,), (3, 4), (4,)],
    [(2, 30), (30, 4), (4, 5)],
    [(20, 3), (3, 40), (40, 5)],
    [(3,), (3, 40), (40, 5), (5,)],
    [(2, 30), (30, 4), (4, 50), (50, 3), (3, 7)],
    [(10, 2), (2, 10), (10, 2), (2, 10), (10, 2), (2, 1)],
    [(2, 0), (0, 4), (4, 5)],
    [(0, 3), (3, 4), (4, 0), (0, 2)],
]


@pytest.mark.parametrize("shapes", MULTI_DOT_SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS[:3])
def test_multi_dot(shapes, layout):
    both(lambda m, *t: m.linalg.multi_dot(list(t)), *shapes, layout=layout)
    both(lambda m, *t: m.linalg.multi_dot(tuple(t)), *shapes, dtype="int64", layout=layout)


@pytest.mark.parametrize("shapes", [s for s in MULTI_DOT_SHAPES if 0 not in sum(s, ())])
def test_multi_dot_order_and_gradient(shapes):
    """The same ``mm``s in the same order (the shapes each one saved), and the gradients."""
    same_graph(lambda m, *t: m.linalg.multi_dot(list(t)), *shapes)
    check_gradients(lambda *t: vg.linalg.multi_dot(list(t)),
                    lambda *t: torch.linalg.multi_dot(list(t)), shapes)  # fmt: skip


@pytest.mark.parametrize("out_shape", [(0,), (2, 5), (5, 2), (3,)])
def test_multi_dot_out(out_shape):
    (a, b, c), (ta, tb, tc) = pairs((2, 3), (3, 4), (4, 5))
    # column-major, of the right shape: kept as it is
    out_v, out_t = outs((2, 5), layout="transposed") if out_shape == (5, 2) else outs(out_shape)
    assert_same_outcome(lambda: vg.linalg.multi_dot([a, b, c], out=out_v),
                        lambda: torch.linalg.multi_dot([ta, tb, tc], out=out_t),
                        compare_warnings=True)  # fmt: skip
    same(out_v, out_t)
    (v1, m, v2), (t1, tm, t2) = pairs((3,), (3, 4), (4,))
    got = vg.linalg.multi_dot([v1, m, v2], out=vg.empty(0))
    same(got, torch.linalg.multi_dot([t1, tm, t2], out=torch.empty(0)))


MULTI_DOT_ERRORS = [
    ([(2, 3)], None),
    ([], None),
    ([(1, 2, 3), (3, 4)], None),
    ([(2, 3), (1, 3, 4)], None),
    ([(), (3, 4)], None),
    ([(2, 3), (3,), (3, 4)], None),
    ([(2, 3), (4, 4)], None),
    ([(3,), (4, 4)], None),
    ([(2, 3), (3, 4)], ["float32", "float64"]),
    ([(2, 3), (3, 4)], ["bool", "bool"]),
]


@pytest.mark.parametrize(("shapes", "dtypes"), MULTI_DOT_ERRORS)
def test_multi_dot_errors(shapes, dtypes):
    errors_alike(lambda m, *t: m.linalg.multi_dot(list(t)), *shapes, dtypes=dtypes)


def test_multi_dot_out_errors():
    errors_alike(lambda m, a, b: m.linalg.multi_dot([a, b], out=m.empty(0, dtype=m.float64)),
                 (2, 3), (3, 4))  # fmt: skip


def test_multi_dot_documentation_example():
    """PyTorch's own example, which imports ``multi_dot`` from the module (the doc example
    harness runs that import as torch's, so it is checked here)."""
    from vizgrad.linalg import multi_dot

    def run(m, fn):
        return [
            fn([m.tensor([1, 2]), m.tensor([2, 3])]),
            fn([m.tensor([[1, 2]]), m.tensor([2, 3])]),
            fn([m.tensor([[1, 2]]), m.tensor([[2], [3]])]),
            fn((m.arange(6).view(2, 3), m.arange(6).view(3, 2), m.arange(4).view(2, 2))),
        ]

    for got, expected in zip(run(vg, multi_dot), run(torch, torch.linalg.multi_dot), strict=True):
        same(got, expected, "int64")


@pytest.mark.parametrize("name", ["linalg.matrix_power", "linalg.matrix_exp"])
def test_documentation_examples_of_other_linalg_names(name):
    """The examples of the ``linalg`` names that ``test_torch_doc_examples`` does not list."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcomes = run_both(name)
    assert outcomes
    for source, torch_outcome, vizgrad_outcome in outcomes:
        assert_same_example(source, torch_outcome, vizgrad_outcome, values=True)


@pytest.mark.parametrize("shapes", [[(2, 3)], [(2, 3), (3, 4)], [(2, 3), (3, 4), (4, 5)],
                                    [(2, 30), (30, 4), (4, 50), (50, 3)]])  # fmt: skip
def test_chain_matmul(shapes, torch_warns_always):
    vs, ts = pairs(*shapes)
    got, expected = [], []
    got_warnings = warned(lambda: got.append(vg.chain_matmul(*vs)))
    expected_warnings = warned(lambda: expected.append(torch.chain_matmul(*ts)))
    same(got[0], expected[0])
    assert got_warnings == expected_warnings and len(got_warnings) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(vg.chain_matmul(*vs, out=vg.empty(0)), torch.chain_matmul(*ts, out=torch.empty(0)))
        same_graph(lambda m, *t: m.chain_matmul(*t), *shapes)


@pytest.mark.parametrize("shapes", [[], [(3,), (3, 4)], [(2, 3), (1, 3, 4)], [(2, 3), (4, 4)]])
def test_chain_matmul_errors(shapes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        errors_alike(lambda m, *t: m.chain_matmul(*t), *shapes)
        errors_alike(lambda m, *t: m.chain_matmul(list(t)), *shapes)


# --- cross and linalg.cross -------------------------------------------------------------------


CROSS_SHAPES = [((3,), (3,), -1), ((4, 3), (4, 3), -1), ((2, 3), (1, 3), 1), ((1, 3), (4, 3), -1),
                ((3, 4), (3, 4), 0), ((2, 3, 5), (2, 3, 5), 1), ((0, 3), (0, 3), -1),
                ((3, 3), (3, 3), 0)]  # fmt: skip


@pytest.mark.parametrize(("shape1", "shape2", "dim"), CROSS_SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cross(shape1, shape2, dim, layout, dtype):
    both(lambda m, a, b: m.linalg.cross(a, b, dim=dim), shape1, shape2, dtype=dtype,
         layout=layout)  # fmt: skip
    both(lambda m, a, b: m.cross(a, b, dim=dim), shape1, shape2, dtype=dtype, layout=layout)
    both(lambda m, a, b: a.cross(b, dim), shape1, shape2, dtype=dtype, layout=layout)


@pytest.mark.parametrize(("shape1", "shape2"), [((4, 3), (4, 3)), ((3, 4), (3, 4)),
                                                ((2, 3, 3), (2, 3, 3)), ((0, 3), (0, 3))])  # fmt: skip
def test_cross_without_dim_warns_and_takes_the_first_dim_of_size_3(shape1, shape2,
                                                                   torch_warns_always):  # fmt: skip
    (a, b), (ta, tb) = pairs(shape1, shape2)
    got, expected = [], []
    got_warnings = warned(lambda: got.append(vg.cross(a, b)))
    expected_warnings = warned(lambda: expected.append(torch.cross(ta, tb)))
    same(got[0], expected[0])
    assert got_warnings == expected_warnings and len(got_warnings) == 1
    assert not warned(lambda: vg.linalg.cross(a, b) if shape1[-1] == 3 else None)


CROSS_ERRORS = [
    ((2, 4), (2, 4), None, None),
    ((2, 4), (2, 4), 1, None),
    ((2, 3), (3,), None, None),
    ((2, 3), (3,), 0, None),
    ((3, 3), (4, 3), None, None),
    ((2, 3), (4, 3), -1, None),
    ((2, 3), (2, 3), 2, None),
    ((), (), -1, None),
    ((2, 3), (2, 3), -1, ["float32", "float64"]),
    ((2, 3), (2, 3), -1, ["float64", "float32"]),
    ((2, 3), (2, 3), -1, ["bool", "bool"]),
    ((2, 3), (2, 3), -1, ["float32", "bool"]),
]


@pytest.mark.parametrize(("shape1", "shape2", "dim", "dtypes"), CROSS_ERRORS)
def test_cross_errors(shape1, shape2, dim, dtypes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        errors_alike(lambda m, a, b: m.cross(a, b, dim=dim), shape1, shape2, dtypes=dtypes)
        if dim is not None:
            errors_alike(lambda m, a, b: m.linalg.cross(a, b, dim=dim), shape1, shape2,
                         dtypes=dtypes)  # fmt: skip


def test_cross_out():
    (a, b), (ta, tb) = pairs((4, 3), (1, 3))
    for out_shape in ((4, 3), (0,), (2,)):
        out_v, out_t = outs(out_shape)
        assert_same_outcome(lambda out=out_v: vg.linalg.cross(a, b, out=out),
                            lambda out=out_t: torch.linalg.cross(ta, tb, out=out),
                            compare_warnings=True)  # fmt: skip
        same(out_v, out_t)
        out_v, out_t = outs(out_shape)
        same(vg.cross(a, b, dim=1, out=out_v), torch.cross(ta, tb, dim=1, out=out_t))
    errors_alike(lambda m, a, b: m.linalg.cross(a, b, out=m.empty(0, dtype=m.float64)),
                 (4, 3), (4, 3))  # fmt: skip
    errors_alike(lambda m, a, b: m.linalg.cross(a, b, -1), (4, 3), (4, 3))  # dim is keyword-only


@pytest.mark.parametrize(("shape1", "shape2", "dim"), [((3,), (3,), -1), ((2, 3), (1, 3), -1),
                                                       ((3, 4), (3, 4), 0)])  # fmt: skip
def test_cross_gradient(shape1, shape2, dim):
    check_gradients(lambda a, b: vg.linalg.cross(a, b, dim=dim),
                    lambda a, b: torch.linalg.cross(a, b, dim=dim), [shape1, shape2],
                    layouts=["transposed", "stepped"])  # fmt: skip
    check_gradients(lambda a, b: vg.cross(a, b, dim=dim), lambda a, b: torch.cross(a, b, dim=dim),
                    [shape1, shape2])  # fmt: skip


# --- linalg.vecdot ----------------------------------------------------------------------------


VECDOT_SHAPES = [((3,), (3,), -1), ((2, 3), (2, 3), -1), ((2, 3), (3,), -1), ((3,), (2, 3), -1),
                 ((2, 1, 3), (4, 3), -1), ((3, 2), (3, 2), 0), ((3,), (3,), 5), ((), (), -1),
                 ((2, 0), (2, 0), -1), ((0, 3), (0, 3), 0)]  # fmt: skip


@pytest.mark.parametrize(("shape1", "shape2", "dim"), VECDOT_SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_vecdot(shape1, shape2, dim, layout, dtype):
    both(lambda m, a, b: m.linalg.vecdot(a, b, dim=dim), shape1, shape2, dtype=dtype,
         layout=layout)  # fmt: skip


@pytest.mark.parametrize(("shape1", "shape2"), [((2, 3), (2, 3)), ((3,), (3,))])
def test_vecdot_out(shape1, shape2):
    (a, b), (ta, tb) = pairs(shape1, shape2)
    for out_shape in ((0,), (2,), ()):
        out_v, out_t = outs(out_shape)
        same(vg.linalg.vecdot(a, b, out=out_v), torch.linalg.vecdot(ta, tb, out=out_t))
        same(out_v, out_t)
    for dtype in ("float64", "int64"):
        errors_alike(lambda m, a, b, d=dtype: m.linalg.vecdot(a, b, out=m.empty(0, dtype=getattr(m, d))),
                     shape1, shape2)  # fmt: skip


@pytest.mark.parametrize(("shape1", "shape2", "dtypes"), [
    ((3,), (4,), None), ((2, 3), (2, 4), None), ((2, 3), (3, 3), None),
    ((3,), (3,), ["float32", "float64"]), ((3,), (3,), ["int64", "int64"]),
    ((3,), (3,), ["int64", "float32"]), ((3,), (3,), ["bool", "bool"]),
])  # fmt: skip
def test_vecdot_errors(shape1, shape2, dtypes):
    errors_alike(lambda m, a, b: m.linalg.vecdot(a, b), shape1, shape2, dtypes=dtypes)
    errors_alike(lambda m, a, b: m.linalg.vecdot(a, b, 0), shape1, shape2, dtypes=dtypes)


@pytest.mark.parametrize(("shape1", "shape2", "dim"), [((3,), (3,), -1), ((2, 3), (3,), -1),
                                                       ((3, 2), (3, 2), 0)])  # fmt: skip
def test_vecdot_gradient(shape1, shape2, dim):
    check_gradients(lambda a, b: vg.linalg.vecdot(a, b, dim=dim),
                    lambda a, b: torch.linalg.vecdot(a, b, dim=dim), [shape1, shape2],
                    layouts=["transposed", "contiguous"])  # fmt: skip
    same_graph(lambda m, a, b: m.linalg.vecdot(a, b, dim=dim), shape1, shape2)


# --- matrix_power -----------------------------------------------------------------------------


POWERS = [-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 13]


@pytest.mark.parametrize("n", POWERS)
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3), (1, 1), (0, 3, 3), (2, 0, 0)])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_matrix_power(n, shape, layout):
    # Diagonally dominant, so that inverses and powers stay well scaled.
    vs, ts = pairs(shape, dtype="float64", layout=layout, low=-0.3, high=0.3)
    a = vs[0] + vg.eye(shape[-1], dtype=vg.float64)
    ta = ts[0] + torch.eye(shape[-1], dtype=torch.float64)
    same(vg.linalg.matrix_power(a, n), torch.linalg.matrix_power(ta, n), "float64")
    same(vg.matrix_power(a, n), torch.matrix_power(ta, n), "float64")
    same(a.matrix_power(n), ta.matrix_power(n), "float64")


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("dtype", ["float32", "int64", "int32", "bool"])
def test_matrix_power_dtypes(n, dtype):
    vs, ts = pairs((3, 3), dtype=dtype, low=-2, high=2)
    assert_same_outcome(lambda: vg.linalg.matrix_power(vs[0], n),
                        lambda: torch.linalg.matrix_power(ts[0], n))  # fmt: skip


@pytest.mark.parametrize("n", POWERS)
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_matrix_power_graph_and_gradient(n, shape):
    same_graph(lambda m, a: m.linalg.matrix_power(a + 3 * m.eye(3, dtype=a.dtype), n), shape)
    # (``check_gradients`` compares ``name()`` with torch's class name, and ``name()`` of a
    # hand-written node is qualified: ``vizgrad::autograd::CopyBackwards`` as torch's is
    # ``torch::autograd::CopyBackwards``; the graph above compares them unqualified.)
    name = "vizgrad::autograd::CopyBackwards" if n == 0 else None
    check_gradients(lambda a: vg.linalg.matrix_power(a, n), lambda a: torch.linalg.matrix_power(a, n),
                    [shape], layouts=["transposed"], value_range={"low": 1, "high": 2},
                    grad_fn_name=name)  # fmt: skip


@pytest.mark.parametrize("n", [-2, -1, 0, 1, 3, 4, 5])
@pytest.mark.parametrize("out", [((0,), "float32"), ((3, 3), "float64"), ((3,), "float32"),
                                 ((3, 3), "transposed"), ((0,), "int64"), ((0,), "float64")])  # fmt: skip
def test_matrix_power_out(n, out):
    vs, ts = pairs((3, 3), low=1, high=2)
    shape, kind = out
    if kind == "transposed":
        out_v, out_t = outs(shape, layout="transposed")
    else:
        out_v, out_t = outs(shape, kind)
    try:
        expected_warnings = warned(lambda: torch.linalg.matrix_power(ts[0], n, out=out_t))
    except RuntimeError:  # (``out`` was resized, then left unwritten)
        assert_same_error(lambda: vg.linalg.matrix_power(vs[0], n, out=out_v),
                          lambda: torch.linalg.matrix_power(ts[0], n, out=out_t))  # fmt: skip
        return
    assert warned(lambda: vg.linalg.matrix_power(vs[0], n, out=out_v)) == expected_warnings
    same(out_v, out_t)  # (computed in float32, whatever out's dtype)


@pytest.mark.parametrize(("shape", "n", "dtype"), [
    ((), 2, "float32"), ((3,), 2, "float32"), ((3, 2), 2, "float32"), ((2, 3, 2), 0, "float32"),
    ((3, 3), -1, "int64"), ((3, 3), -2, "int64"), ((3, 3), 2, "bool"),
])  # fmt: skip
def test_matrix_power_errors(shape, n, dtype):
    errors_alike(lambda m, a: m.linalg.matrix_power(a, n), shape, dtypes=[dtype])
    errors_alike(lambda m, a: m.matrix_power(a, n), shape, dtypes=[dtype])


def test_matrix_power_of_a_singular_matrix_and_bad_exponents():
    for n in (-1, -2):
        assert_same_error(lambda n=n: vg.linalg.matrix_power(vg.zeros(3, 3), n),
                          lambda n=n: torch.linalg.matrix_power(torch.zeros(3, 3), n))  # fmt: skip
    errors_alike(lambda m, a: m.matrix_power(a, 2.0), (3, 3))
    errors_alike(lambda m, a: m.linalg.matrix_power(a, n=None), (3, 3))


# --- matrix_exp -------------------------------------------------------------------------------

# The Taylor degree depends on the matrix's 1-norm: these scales reach each degree (1, 2,
# 4, 8, 12, 18) in float32 and float64, and the scaling and squaring beyond.
SCALES = [1e-17, 1e-9, 1e-5, 1e-3, 0.02, 0.2, 0.5, 1.0, 2.0, 8.0, 50.0]


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_matrix_exp_degrees(scale, dtype):
    vs, ts = pairs((4, 4), dtype=dtype, low=-1, high=1)
    got = vg.linalg.matrix_exp(vs[0] * scale)
    expected = torch.linalg.matrix_exp(ts[0] * scale)
    single = dtype in ("float32", "complex64")
    assert_same(got, expected, rtol=1e-4 if single else 1e-10, atol=1e-6 if single else 1e-12)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3), (2, 2, 4, 4), (2, 1, 1), (1, 1), (2, 0, 0),
                                   (0, 3, 3)])  # fmt: skip
@pytest.mark.parametrize("layout", LAYOUTS)
def test_matrix_exp(shape, layout):
    if layout == "expanded" and len(shape) > 3 and shape[-1] > 1:
        # PyTorch flattens the batch dimensions with ``view``: not possible here, so
        # both raise ``view``'s error.
        errors_alike(lambda m, a: m.linalg.matrix_exp(a), shape, layout=layout)
        return
    both(lambda m, a: m.linalg.matrix_exp(a), shape, dtype="float64", layout=layout)
    both(lambda m, a: m.matrix_exp(a * 3), shape, dtype="float64", layout=layout)
    both(lambda m, a: a.matrix_exp(), shape, dtype="float32", layout=layout)


def test_matrix_exp_of_nan_inf_and_large_values():
    for values in ([[float("nan"), 0.0], [0.0, 1.0]], [[float("inf"), 0.0], [0.0, 1.0]],
                   [[100.0, 0.0], [0.0, 1.0]], [[1e30, 1.0], [0.0, 1.0]]):  # fmt: skip
        same(vg.matrix_exp(vg.tensor(values)), torch.matrix_exp(torch.tensor(values)))
    batch = [[[1.0, 2.0], [0.0, 1.0]], [[float("nan"), 0.0], [0.0, 1.0]]]
    same(vg.matrix_exp(vg.tensor(batch)), torch.matrix_exp(torch.tensor(batch)))


@pytest.mark.parametrize(("shape", "dtype"), [((), "float32"), ((3,), "float32"), ((3, 2), "float32"),
                                              ((1, 2, 1), "float32"), ((3, 3), "int64"),
                                              ((3, 3), "bool")])  # fmt: skip
def test_matrix_exp_errors(shape, dtype):
    errors_alike(lambda m, a: m.linalg.matrix_exp(a), shape, dtypes=[dtype])
    errors_alike(lambda m, a: m.matrix_exp(a), shape, dtypes=[dtype])


def test_matrix_exp_has_no_out():
    errors_alike(lambda m, a: m.linalg.matrix_exp(a, out=a), (3, 3))
    errors_alike(lambda m, a: m.matrix_exp(a, out=a), (3, 3))


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3), (1, 1), (2, 0, 0)])
@pytest.mark.parametrize("scale", [0.1, 2.0])
def test_matrix_exp_gradient(shape, scale):
    check_gradients(lambda a: vg.linalg.matrix_exp(a * scale),
                    lambda a: torch.linalg.matrix_exp(a * scale), [shape],
                    layouts=["transposed" if len(shape) > 2 else "contiguous"],
                    gradcheck=0 not in shape)  # fmt: skip


def test_matrix_exp_second_derivative():
    a_v, a_t = make_pair((3, 3), "float64", low=-0.5, high=0.5)
    a_v, a_t = a_v.requires_grad_(), a_t.requires_grad_()
    (g_v,) = vg.autograd.grad(vg.matrix_exp(a_v).sum(), a_v, create_graph=True)
    (g_t,) = torch.autograd.grad(torch.matrix_exp(a_t).sum(), a_t, create_graph=True)
    same(g_v.detach(), g_t.detach(), "float64", check_stride=False)
    (gg_v,) = vg.autograd.grad((g_v * g_v).sum(), a_v)
    (gg_t,) = torch.autograd.grad((g_t * g_t).sum(), a_t)
    same(gg_v, gg_t, "float64", check_stride=False)


# --- cdist ------------------------------------------------------------------------------------


PS = [0, 0.5, 1, 1.5, 2, 3, float("inf")]
CDIST_SHAPES = [((4, 3), (5, 3)), ((30, 3), (5, 3)), ((2, 4, 3), (5, 3)), ((2, 30, 3), (2, 5, 3)),
                ((2, 1, 30, 3), (3, 5, 3)), ((1, 30, 3), (5, 3)), ((1, 3), (1, 3))]  # fmt: skip
MODES = ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
         "donot_use_mm_for_euclid_dist"]  # fmt: skip


@pytest.mark.parametrize(("shape1", "shape2"), CDIST_SHAPES)
@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cdist(shape1, shape2, p, mode, dtype):
    both(lambda m, a, b: m.cdist(a, b, p=p, compute_mode=mode), shape1, shape2, dtype=dtype)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("p", [1, 2])
def test_cdist_layouts(layout, p):
    both(lambda m, a, b: m.cdist(a, b, p), (3, 4, 5), (3, 6, 5), layout=layout)
    both(lambda m, a, b: m.cdist(a, b, p), (3, 30, 5), (3, 6, 5), layout=layout)


@pytest.mark.parametrize(("shape1", "shape2"), [((0, 3), (5, 3)), ((4, 3), (0, 3)),
                                                ((4, 0), (5, 0)), ((0, 4, 3), (5, 3)),
                                                ((4, 0), (30, 0))])  # fmt: skip
def test_cdist_empty(shape1, shape2):
    both(lambda m, a, b: m.cdist(a, b), shape1, shape2, check_stride=False)
    same_graph(lambda m, a, b: m.cdist(a, b), shape1, shape2)


def test_cdist_of_equal_rows_has_a_zero_subgradient():
    rows = [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    for p, mode in [(2, MODES[0]), (2, MODES[1]), (1, MODES[0]), (0.5, MODES[0]), (3, MODES[0]),
                    (float("inf"), MODES[0])]:  # fmt: skip
        a_v, a_t = vg.tensor(rows, requires_grad=True), torch.tensor(rows, requires_grad=True)
        vg.cdist(a_v, a_v, p, compute_mode=mode).sum().backward()
        torch.cdist(a_t, a_t, p, compute_mode=mode).sum().backward()
        same(a_v.grad, a_t.grad)


@pytest.mark.parametrize(("shape1", "shape2"), CDIST_SHAPES)
@pytest.mark.parametrize("p", PS)
def test_cdist_graph_and_gradient(shape1, shape2, p):
    """``CdistBackward0``, or for ``p=2`` on more than 25 rows the matrix-product path
    (``EuclideanDistBackward0`` under the expands and views), as PyTorch chooses."""
    same_graph(lambda m, a, b: m.cdist(a, b, p), shape1, shape2)
    check_gradients(lambda a, b: vg.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p),
                    [shape1, shape2], gradcheck=p != 0.5 and numel(shape1) < 100)  # fmt: skip


def numel(shape) -> int:
    return int(np.prod(shape))


def test_cdist_forced_modes_graph():
    for mode in MODES:
        for rows in (4, 30):
            same_graph(
                lambda m, a, b, mode=mode: m.cdist(a, b, compute_mode=mode), (rows, 3), (5, 3)
            )


@pytest.mark.parametrize(("shape1", "shape2", "dtypes", "options"), [
    ((3,), (4, 3), None, {}),
    ((4, 3), (3,), None, {}),
    ((4, 3), (4, 2), None, {}),
    ((4, 3), (4, 3), ["int64", "int64"], {}),
    ((4, 3), (4, 3), ["float32", "int64"], {}),
    ((4, 3), (4, 3), ["complex64", "complex64"], {}),
    ((4, 3), (4, 3), ["float32", "float64"], {}),
    ((40, 3), (4, 3), ["float32", "float64"], {}),
    ((4, 3), (4, 3), ["float16", "float16"], {}),
    ((4, 3), (4, 3), None, {"p": -1}),
    ((4, 3), (4, 3), None, {"compute_mode": "x"}),
    ((2, 4, 3), (3, 4, 3), None, {}),
])  # fmt: skip
def test_cdist_errors(shape1, shape2, dtypes, options):
    errors_alike(lambda m, a, b: m.cdist(a, b, **options), shape1, shape2, dtypes=dtypes)


def test_cdist_backward_has_no_derivative():
    a_v, a_t = make_pair((4, 3), "float64")
    b_v, b_t = make_pair((5, 3), "float64", seed=1)
    a_v, a_t = a_v.requires_grad_(), a_t.requires_grad_()
    (g_v,) = vg.autograd.grad(vg.cdist(a_v, b_v, 3).sum(), a_v, create_graph=True)
    (g_t,) = torch.autograd.grad(torch.cdist(a_t, b_t, 3).sum(), a_t, create_graph=True)
    assert g_v.grad_fn.name() == g_t.grad_fn.name() == "CdistBackwardBackward0"
    assert_same_error(lambda: g_v.sum().backward(), lambda: g_t.sum().backward())


# --- what runs: the operators each call dispatches ----------------------------------------


@pytest.mark.parametrize(("call", "shapes"), [
    (lambda m, a, b: m.linalg.vecdot(a, b), [(2, 3), (2, 3)]),
    (lambda m, a, b: m.linalg.vecdot(a, b), [(3,), (3,)]),
    (lambda m, a: m.linalg.matrix_power(a, 0), [(3, 3)]),
    (lambda m, a: m.linalg.matrix_power(a, 7), [(2, 3, 3)]),
    (lambda m, a, b, c: m.linalg.multi_dot([a, b, c]), [(3,), (3, 4), (4,)]),
    (lambda m, a, b: m.cross(a, b, dim=1), [(2, 3), (2, 3)]),
    (lambda m, a, b: m.cdist(a, b), [(4, 3), (5, 3)]),
    (lambda m, a, b: m.cdist(a, b), [(2, 30, 3), (5, 3)]),
    (lambda m, a, b: m.cdist(a, b, 1.5).sum().backward(), [(4, 3), (5, 3)]),
    (lambda m, a, b, c: m.addr(a, b, c), [(3, 4), (3,), (4,)]),
    (lambda m, a: m.matrix_exp(a), [(3, 3)]),
])  # fmt: skip
def test_dispatched_operators_are_torchs(call, shapes):
    """Below the composite functions, the operators PyTorch dispatches, in its order
    (but for the ``detach`` of saved outputs, which PyTorch and vizgrad make at other
    moments)."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    vs = [vg.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    with events.Recorder() as recording:
        call(vg, *vs)
    with TorchOps() as ops:
        call(torch, *ts)
    # Each call's first key: AutogradCPU, or BackendSelect for a factory given no tensor.
    called = [e.op for e in recording.events
              if e.kind == "op_dispatched" and e.key in ("AutogradCPU", "BackendSelect")
              and e.action == "call" and e.op != "aten::detach"
              and not (e.note or "").startswith("CompositeImplicitAutograd")]  # fmt: skip
    assert called == [op for op in ops.qualnames if op != "aten::detach"]


@pytest.mark.parametrize("call", [
    lambda m, a: m.linalg.multi_dot([a, a], out=m.empty(0)),
    lambda m, a: m.chain_matmul(a, a, out=m.empty(0)),
    lambda m, a: m.linalg.matrix_power(a, 3, out=m.empty(0)),
    lambda m, a: m.linalg.matrix_power(a, 0, out=m.empty(0)),
    lambda m, a: m.cross(a, a, dim=1, out=m.empty(0)),
    lambda m, a: m.linalg.cross(a, a, out=m.empty(0)),
    lambda m, a: m.linalg.vecdot(a, a, out=m.empty(0)),
    lambda m, a: m.addmv(a[0], a, a[0], out=m.empty(0)),
    lambda m, a: m.addr(a, a[0], a[0], out=m.empty(0)),
    lambda m, a: m.addbmm(a, a[None], a[None], out=m.empty(0)),
    lambda m, a: m.baddbmm(a[None], a[None], a[None], out=m.empty(0)),
])  # fmt: skip
def test_out_refuses_autograd(call):
    """An ``out=`` call records nothing: refused when an input requires grad, in the
    name of the operator that refuses (the composite's inner ``out=`` one, as PyTorch's;
    ``matrix_power(A, 0)`` only copies the identity into ``out``: no error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_outcome(lambda: call(vg, vg.ones(3, 3, requires_grad=True)),
                            lambda: call(torch, torch.ones(3, 3, requires_grad=True)))  # fmt: skip

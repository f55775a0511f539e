"""Shapes built from other operators (broadcast_to, meshgrid, ravel, narrow_copy, block_diag,
kron, vander, cartesian_prod, combinations) against PyTorch: values, dtypes, strides, what
is a view of what, gradients and their nodes, and errors."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest
import torch
from grad_oracle import check_gradients, leaf_pair
from oracle import LAYOUTS, assert_same, assert_same_error, assert_same_outcome, make_pair

import vizgrad as vg

DTYPES = ["float32", "int64", "bool", "complex64", "uint8", "float16"]
# Layouts a leaf can have for gradcheck ("expanded" repeats elements).
GRAD_LAYOUTS = ["contiguous", "transposed", "stepped", "offset"]


def assert_same_sharing(v_out, v_in, t_out, t_in):
    """The result relates to its input as torch's does: the input itself, a view of it
    (``_base``), or sharing its memory at all."""
    assert (v_out is v_in) == (t_out is t_in)
    t_root = t_in if t_in._base is None else t_in._base
    v_root = v_in if v_in._base is None else v_in._base
    assert (t_out._base is t_root) == (v_out._base is v_root)
    assert (t_out._base is None) == (v_out._base is None)
    if t_in.untyped_storage().nbytes():
        t_shares = t_out.untyped_storage().data_ptr() == t_in.untyped_storage().data_ptr()
        assert (v_out.untyped_storage() is v_in.untyped_storage()) == t_shares


def both(expr: str, **names):
    """``expr`` evaluated with ``lib`` as vizgrad then as torch; ``names`` are pairs."""
    v_names = {k: v for k, (v, _) in names.items()}
    t_names = {k: t for k, (_, t) in names.items()}
    return (
        lambda: eval(expr, {"lib": vg, **v_names}),  # noqa: S307 - test expressions
        lambda: eval(expr, {"lib": torch, **t_names}),  # noqa: S307
    )


def node_chain(t) -> list[str]:
    """The names of a grad_fn and of its first parents, down to the leaves."""
    names, node = [], t.grad_fn
    while node is not None:
        names.append(node.name().split("::")[-1])  # (torch::autograd::AccumulateGrad)
        parents = [n for n, _ in node.next_functions if n is not None]
        node = parents[0] if parents else None
    return names


# --- broadcast_to --------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    ("shape", "size"),
    [((2, 1, 3), (2, 4, 3)), ((2, 3), (4, 2, 3)), ((), (2, 3)), ((1,), (0,)), ((3,), (2, -1)),
     ((0, 3), (2, 0, 3)), ((2, 3), (2, 3))],
)  # fmt: skip
def test_broadcast_to(layout, shape, size):
    v, t = make_pair(shape, "float32", layout)
    v_out, t_out = vg.broadcast_to(v, size), torch.broadcast_to(t, size)
    assert_same(v_out, t_out, check_offset=True)
    assert_same_sharing(v_out, v, t_out, t)
    assert_same(v.broadcast_to(size), t.broadcast_to(size))


@pytest.mark.parametrize(
    "expr",
    ["lib.broadcast_to(x, (4,))", "lib.broadcast_to(x, (3, 3))", "lib.broadcast_to(x, (-1, 2, 3))",
     "lib.broadcast_to(x, 3)", "lib.broadcast_to(x, (2, 'a'))", "x.broadcast_to()"],
)  # fmt: skip
def test_broadcast_to_errors(expr):
    assert_same_error(*both(expr, x=make_pair((2, 3))))


@pytest.mark.parametrize("layout", GRAD_LAYOUTS)
def test_broadcast_to_gradient(layout):
    check_gradients(lambda x: vg.broadcast_to(x, (4, 2, 3)),
                    lambda x: torch.broadcast_to(x, (4, 2, 3)),
                    [(2, 1)], layouts=[layout], grad_fn_name="ExpandBackward0")  # fmt: skip


# --- broadcast_tensors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "shapes",
    [[(3,), (2, 1)], [(2, 3), (2, 3)], [(), (2, 3)], [(4,)], [(1, 0), (3, 1)],
     [(2, 1, 4), (3, 1), (1,)], []],
)  # fmt: skip
@pytest.mark.parametrize("layout", LAYOUTS)
def test_broadcast_tensors(shapes, layout):
    pairs = [make_pair(s, "float32", layout, seed=i) for i, s in enumerate(shapes)]
    vs, ts = [v for v, _ in pairs], [t for _, t in pairs]
    v_out, t_out = vg.broadcast_tensors(*vs), torch.broadcast_tensors(*ts)
    assert type(v_out) is type(t_out)
    assert_same(v_out, t_out)
    for v_o, v, t_o, t in zip(v_out, vs, t_out, ts, strict=True):
        assert_same_sharing(v_o, v, t_o, t)


def test_broadcast_tensors_promotes_nothing():
    v_out = vg.broadcast_tensors(vg.ones(2, dtype=vg.int32), vg.zeros(3, 1))
    t_out = torch.broadcast_tensors(torch.ones(2, dtype=torch.int32), torch.zeros(3, 1))
    assert_same(v_out, t_out)


@pytest.mark.parametrize(
    "expr",
    ["lib.broadcast_tensors(x, lib.zeros(3, 3))", "lib.broadcast_tensors(x, lib.zeros(2), lib.zeros(5))",
     "lib.broadcast_tensors([x, x])", "lib.broadcast_tensors(x, 3)"],
)  # fmt: skip
def test_broadcast_tensors_errors(expr):
    assert_same_error(*both(expr, x=make_pair((2, 3))))


@pytest.mark.parametrize("layout", GRAD_LAYOUTS)
def test_broadcast_tensors_gradient(layout):
    def run(lib):
        return lambda a, b: lib.broadcast_tensors(a, b)[0] * lib.broadcast_tensors(a, b)[1]

    check_gradients(run(vg), run(torch), [(3,), (2, 1)], layouts=[layout, layout])


# --- meshgrid --------------------------------------------------------------------------------


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize(
    "shapes", [[(3,), (4,)], [(2,), (), (3,)], [(4,)], [(0,), (2,)], [(2,), (3,), (4,), (1,)], [()]]
)
@pytest.mark.parametrize("layout", ["contiguous", "stepped", "offset", "expanded"])
def test_meshgrid(indexing, shapes, layout):
    pairs = [make_pair(s, "int64", layout, seed=i) for i, s in enumerate(shapes)]
    vs, ts = [v for v, _ in pairs], [t for _, t in pairs]
    v_out = vg.meshgrid(*vs, indexing=indexing)
    t_out = torch.meshgrid(*ts, indexing=indexing)
    assert type(v_out) is type(t_out)
    assert_same(v_out, t_out, check_offset=True)
    assert_same(vg.meshgrid(vs, indexing=indexing), torch.meshgrid(ts, indexing=indexing))
    for v_o, v, t_o, t in zip(v_out, vs, t_out, ts, strict=True):
        assert_same_sharing(v_o, v, t_o, t)


def test_meshgrid_grids_are_views_of_their_tensors():
    (a, ta), (b, tb) = make_pair((3,), seed=0), make_pair((2,), seed=1)
    v_x, v_y = vg.meshgrid(a, b, indexing="xy")
    t_x, t_y = torch.meshgrid(ta, tb, indexing="xy")
    assert_same_sharing(v_x, a, t_x, ta)
    assert_same_sharing(v_y, b, t_y, tb)


def _torch_meshgrid_warnings() -> list[str]:
    # PyTorch warns once per process, so ask a fresh one.
    code = (
        "import torch, warnings\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    torch.meshgrid(torch.arange(2), torch.arange(3))\n"
        "print('\\n'.join(f'{x.category.__name__}: {x.message}' for x in w))\n"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout  # fmt: skip
    return output.strip().replace("torch.", "vizgrad.").split("\n")


def test_meshgrid_without_indexing_warns_and_means_ij():
    expected = [line.split(" (Triggered internally")[0] for line in _torch_meshgrid_warnings()]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grids = vg.meshgrid(vg.arange(2), vg.arange(3))
    assert [f"{w.category.__name__}: {w.message}" for w in caught] == expected
    assert caught[0].filename == __file__  # the user's line, as PyTorch's C++ warning is
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(grids, torch.meshgrid(torch.arange(2), torch.arange(3)))


@pytest.mark.parametrize(
    "expr",
    ["lib.meshgrid(indexing='ij')", "lib.meshgrid([], indexing='ij')",
     "lib.meshgrid(a, lib.arange(3.), indexing='ij')", "lib.meshgrid(a, a, indexing='ab')",
     "lib.meshgrid(a, 3, indexing='ij')", "lib.meshgrid(a, a, indexing=1)",
     "lib.meshgrid(a, m, indexing='xy')", "lib.meshgrid(m, a, indexing='ij')"],
)  # fmt: skip
def test_meshgrid_errors(expr):
    a = (vg.arange(3), torch.arange(3))
    m = make_pair((2, 3), "int64")
    assert_same_error(*both(expr, a=a, m=m))


@pytest.mark.parametrize(
    "make",
    [lambda lib: lib.arange(30.0).reshape(2, 15) * 1.5,
     lambda lib: lib.arange(24).reshape(2, 3, 4),
     lambda lib: lib.tensor([[1e6, 2.5e6], [3e6, 4.5]]),
     lambda lib: lib.tensor([[[1e-3, 2.5e-3], [3e-3, 4.5e-3]]]),
     lambda lib: lib.arange(24.0).reshape(1, 2, 12) * 1e6 + 0.5,
     lambda lib: lib.arange(40.0).reshape(2, 20) * 1e-3,
     lambda lib: lib.tensor([[float("nan"), float("inf")], [-3.0, 4.5]]),
     lambda lib: lib.tensor([[True, False]]),
     lambda lib: lib.zeros(2, 0),
     lambda lib: lib.tensor([[-123456.5, 2]]),
     lambda lib: lib.tensor([[1234567, 2]]),
     lambda lib: lib.tensor([[1e300, 1e-300]], dtype=lib.float64),
     lambda lib: lib.tensor([[1.5e7, 2.5e7]]),
     lambda lib: lib.tensor([[3, -7]], dtype=lib.int8),
     lambda lib: lib.tensor([[1.5]], dtype=lib.float16),
     lambda lib: lib.zeros(2, 2, 2, 2),
     lambda lib: lib.tensor([[0.5, -0.25]])],
)  # fmt: skip
def test_meshgrid_error_prints_the_tensor_as_pytorch_does(make):
    # PyTorch's message holds the tensor, printed by ATen's C++ ``operator<<``.
    error, torch_error = assert_same_error(lambda: vg.meshgrid(make(vg), indexing="ij"),
                                           lambda: torch.meshgrid(make(torch), indexing="ij"))  # fmt: skip
    assert str(error) == str(torch_error).replace("torch.", "vizgrad.")


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_gradient(indexing):
    def run(lib):
        def grids(a, b, c):
            x, y, z = lib.meshgrid(a, b, c, indexing=indexing)
            return x * y + z

        return grids

    check_gradients(run(vg), run(torch), [(3,), (2,), ()])
    v, t = leaf_pair((3,))
    assert node_chain(vg.meshgrid(v, v, indexing=indexing)[1]) == node_chain(
        torch.meshgrid(t, t, indexing=indexing)[1]
    )


# --- ravel -----------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (), (0, 3), (5,)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_ravel(layout, shape, dtype):
    v, t = make_pair(shape, dtype, layout)
    v_out, t_out = vg.ravel(v), torch.ravel(t)
    assert_same(v_out, t_out)
    assert_same(v.ravel(), t.ravel())
    assert_same_sharing(v_out, v, t_out, t)


@pytest.mark.parametrize("layout", GRAD_LAYOUTS)
def test_ravel_gradient(layout):
    check_gradients(lambda x: x.ravel(), lambda x: x.ravel(), [(2, 3)], layouts=[layout])
    v, t = leaf_pair((2, 3), layout)
    assert node_chain(v.ravel()) == node_chain(t.ravel())


def test_ravel_errors():
    assert_same_error(lambda: vg.ravel(3), lambda: torch.ravel(3))
    assert_same_error(lambda: vg.ravel(vg.zeros(2), 0), lambda: torch.ravel(torch.zeros(2), 0))


# --- narrow_copy -----------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    ("dim", "start", "length"),
    [(0, 0, 2), (1, 1, 2), (-1, 0, 4), (0, -1, 1), (1, -4, 2), (0, 3, 0)],
)
@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
def test_narrow_copy(layout, dim, start, length, dtype):
    v, t = make_pair((3, 4), dtype, layout)
    v_out, t_out = vg.narrow_copy(v, dim, start, length), torch.narrow_copy(t, dim, start, length)
    assert_same(v_out, t_out)
    assert_same(v.narrow_copy(dim, start, length), t.narrow_copy(dim, start, length))
    assert_same_sharing(v_out, v, t_out, t)


@pytest.mark.parametrize(
    "expr",
    ["lib.narrow_copy(s, 0, 0, 1)", "lib.narrow_copy(x, 0, 2, 2)", "lib.narrow_copy(x, 0, 0, -1)",
     "lib.narrow_copy(x, 0, -4, 1)", "lib.narrow_copy(x, 0, 4, 0)", "lib.narrow_copy(x, 2, 0, 1)",
     "lib.narrow_copy(x, -3, 0, 1)", "lib.narrow_copy(x, 0, 0, 1, out=lib.empty(0, dtype=lib.float64))",
     "lib.narrow_copy(s, 0, 0, 1, out=lib.empty(0))", "x.narrow_copy(0, 0)"],
)  # fmt: skip
def test_narrow_copy_errors(expr):
    assert_same_error(*both(expr, x=make_pair((3, 4)), s=make_pair(())))


@pytest.mark.parametrize("out_shape", [(0,), (5, 5), (8,), (2, 4)])
def test_narrow_copy_out_is_resized_without_a_warning(out_shape):
    v, t = make_pair((3, 4), layout="transposed")
    v_out, t_out = vg.empty(out_shape), torch.empty(out_shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert vg.narrow_copy(v, 0, 1, 2, out=v_out) is v_out
        torch.narrow_copy(t, 0, 1, 2, out=t_out)
    assert_same(v_out, t_out)
    assert v_out._version == t_out._version


def test_narrow_copy_out_of_the_right_shape_keeps_its_strides():
    v, t = make_pair((3, 4), layout="transposed")
    v_out, t_out = vg.empty(4, 2).t(), torch.empty(4, 2).t()
    vg.narrow_copy(v, 0, 1, 2, out=v_out)
    torch.narrow_copy(t, 0, 1, 2, out=t_out)
    assert v_out.stride() == t_out.stride()
    # PyTorch copies its bytes as if ``out`` were contiguous, scrambling the values; the
    # values written here are those of the functional call.
    assert_same(v_out, torch.narrow_copy(t, 0, 1, 2), check_stride=False)


@pytest.mark.parametrize("layout", GRAD_LAYOUTS)
@pytest.mark.parametrize(("dim", "start", "length"), [(0, 1, 2), (1, 0, 3), (-1, 2, 2)])
def test_narrow_copy_gradient(layout, dim, start, length):
    check_gradients(lambda x: x.narrow_copy(dim, start, length),
                    lambda x: x.narrow_copy(dim, start, length),
                    [(3, 4)], layouts=[layout])  # fmt: skip
    v, _ = leaf_pair((3, 4))
    node = v.narrow_copy(dim, start, length).grad_fn
    assert (node._saved_dim, node._saved_start, node._saved_length) == (dim, start, length)
    assert node._saved_self_sym_sizes == (3, 4)


def test_narrow_copy_gradient_of_a_negative_start():
    # PyTorch's formula slices from the start as given, so its gradient of a negative
    # start is zeros; the gradient is that of ``narrow``'s same elements.
    check_gradients(lambda x: x.narrow_copy(1, -3, 2), lambda x: x.narrow(1, -3, 2),
                    [(3, 4)], grad_fn_name="NarrowCopyBackward0")  # fmt: skip


def test_narrow_copy_out_refuses_autograd():
    assert_same_error(*both("lib.narrow_copy(x, 0, 0, 1, out=lib.empty(1, 4))",
                            x=leaf_pair((3, 4), dtype="float32")))  # fmt: skip


# --- block_diag ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "specs",
    [[((2, 2), "int64"), ((2, 3), "int64"), ((), "int64"), ((3,), "int64"), ((3, 1), "int64")],
     [((2, 3), "float32"), ((), "float64")], [((2, 3), "int32"), ((), "float32")],
     [((2, 2), "float32"), ((1, 2), "complex64")], [((0, 3), "float32"), ((2, 0), "float32")],
     [((0,), "float32"), ((2, 2), "float32"), ((0,), "float64")], [((3, 2), "bool")]],
)  # fmt: skip
@pytest.mark.parametrize("layout", LAYOUTS)
def test_block_diag(specs, layout):
    pairs = [make_pair(s, d, layout, seed=i) for i, (s, d) in enumerate(specs)]
    assert_same(vg.block_diag(*[v for v, _ in pairs]), torch.block_diag(*[t for _, t in pairs]))


def test_block_diag_of_nothing():
    assert_same(vg.block_diag(), torch.block_diag())


@pytest.mark.parametrize(
    "expr",
    ["lib.block_diag(x, lib.zeros(2, 2, 2))", "lib.block_diag([x, x])", "lib.block_diag(x, 1)"],
)
def test_block_diag_errors(expr):
    assert_same_error(*both(expr, x=make_pair((2, 3))))


@pytest.mark.parametrize("layout", GRAD_LAYOUTS)
def test_block_diag_gradient(layout):
    check_gradients(lambda *xs: vg.block_diag(*xs), lambda *xs: torch.block_diag(*xs),
                    [(2, 3), (), (4,), (1, 2)], layouts=[layout] * 4)  # fmt: skip


def test_block_diag_gradient_past_an_empty_vector():
    # An empty vector takes a row of no columns. PyTorch's backward forgets that row and
    # reads the next blocks one row too high; the decomposition in torch._refs does not.
    def reference(*xs):
        return torch._refs.block_diag(*xs)

    check_gradients(lambda *xs: vg.block_diag(*xs), reference, [(2,), (0,), (2, 2)],
                    grad_fn_name="BlockDiagBackward0")  # fmt: skip


def test_block_diag_gradient_of_mixed_real_and_complex():
    def run(lib):
        def call(a, b):
            return lib.block_diag(a, b * (1 + 2j)).abs()

        return call

    check_gradients(run(vg), run(torch), [(2, 2), (3,)], gradcheck=False)


# --- kron ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((2, 3), (2, 2)), ((3,), (2, 2)), ((2, 1, 3), (4,)), ((), (2, 3)), ((2, 3), ()), ((0, 2), (3, 1)),
     ((2, 3), (2, 0))],
)  # fmt: skip
@pytest.mark.parametrize("layouts", [("contiguous", "contiguous"), ("transposed", "contiguous"),
                                     ("contiguous", "transposed"), ("transposed", "transposed"),
                                     ("stepped", "offset"), ("expanded", "contiguous")])  # fmt: skip
def test_kron(a_shape, b_shape, layouts):
    (a, ta), (b, tb) = (
        make_pair(a_shape, layout=layouts[0]),
        make_pair(b_shape, "int64", layouts[1], 1),
    )
    # Some layouts make PyTorch's merging view impossible (it raises): so must vizgrad.
    assert_same_outcome(lambda: vg.kron(a, b), lambda: torch.kron(ta, tb))
    assert_same_outcome(lambda: a.kron(b), lambda: ta.kron(tb))


@pytest.mark.parametrize(
    "make_out",
    [lambda lib: lib.empty(4, 6), lambda lib: lib.empty(6, 4).t(), lambda lib: lib.empty(3),
     lambda lib: lib.empty(4, 6, dtype=lib.float64), lambda lib: lib.empty(4, 6, dtype=lib.int64),
     lambda lib: lib.empty(4, 12)[:, ::2]],
)  # fmt: skip
def test_kron_out(make_out):
    (a, ta), (b, tb) = make_pair((2, 3)), make_pair((2, 2), seed=1)

    def call(lib, x, y):
        out = make_out(lib)
        assert lib.kron(x, y, out=out) is out
        return out

    assert_same_outcome(lambda: call(vg, a, b), lambda: call(torch, ta, tb), compare_warnings=True)


@pytest.mark.parametrize(
    "shapes", [[(2, 3), (2, 2)], [(3,), (2, 2)], [(), (2, 3)], [(2, 1, 2), (3, 2)]]
)
def test_kron_gradient(shapes):
    check_gradients(lambda a, b: vg.kron(a, b), lambda a, b: torch.kron(a, b), shapes)
    (a, ta), (b, tb) = leaf_pair(shapes[0]), leaf_pair(shapes[1], seed=1)
    assert node_chain(vg.kron(a, b)) == node_chain(torch.kron(ta, tb))


def test_kron_errors():
    assert_same_error(*both("lib.kron(x, 3)", x=make_pair((2, 3))))
    assert_same_error(*both("lib.kron(x, x, out=lib.empty(0))", x=leaf_pair((2, 2))))


# --- vander ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "uint8", "bool", "float16",
                                   "complex64"])  # fmt: skip
@pytest.mark.parametrize(("N", "increasing"), [(None, False), (None, True), (5, False), (1, True),
                                               (0, False), (2, True)])  # fmt: skip
@pytest.mark.parametrize("layout", ["contiguous", "stepped", "offset"])
def test_vander(dtype, N, increasing, layout):
    v, t = make_pair((4,), dtype, layout, low=-3, high=3)
    assert_same(vg.vander(v, N, increasing), torch.vander(t, N, increasing))
    assert_same(
        vg.vander(x=v, N=N, increasing=increasing), torch.vander(x=t, N=N, increasing=increasing)
    )


def test_vander_of_an_empty_vector():
    assert_same(vg.vander(vg.zeros(0)), torch.vander(torch.zeros(0)))
    assert_same(vg.vander(vg.zeros(0), 3), torch.vander(torch.zeros(0), 3))


@pytest.mark.parametrize("expr", ["lib.vander(m)", "lib.vander(s)", "lib.vander(v, -1)",
                                  "lib.vander(v, 1.5)", "v.vander()"])  # fmt: skip
def test_vander_errors(expr):
    assert_same_error(*both(expr, m=make_pair((2, 3)), s=make_pair(()), v=make_pair((3,))))


@pytest.mark.parametrize(("N", "increasing"), [(None, False), (1, True), (2, False), (0, True)])
def test_vander_gradient_is_pytorchs(N, increasing):
    # PyTorch writes the cumprod's input again after it: its backward refuses, and so
    # does this one; with fewer than two columns there is nothing to refuse.
    def run(lib, x):
        result = lib.vander(x, N, increasing)
        (result * result).sum().backward()
        return x.grad

    v, t = leaf_pair((3,))
    assert_same_outcome(lambda: run(vg, v), lambda: run(torch, t))
    v, t = leaf_pair((3,))
    assert node_chain(vg.vander(v, N, increasing)) == node_chain(torch.vander(t, N, increasing))


# --- cartesian_prod, combinations -------------------------------------------------------------


@pytest.mark.parametrize(
    "shapes", [[(3,), (2,)], [(2,), (3,), (2,)], [(4,)], [(0,), (3,)], [(1,), (1,)]]
)
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
@pytest.mark.parametrize("layout", ["contiguous", "stepped", "offset", "expanded"])
def test_cartesian_prod(shapes, dtype, layout):
    pairs = [make_pair(s, dtype, layout, seed=i) for i, s in enumerate(shapes)]
    vs, ts = [v for v, _ in pairs], [t for _, t in pairs]
    v_out, t_out = vg.cartesian_prod(*vs), torch.cartesian_prod(*ts)
    assert_same(v_out, t_out)
    assert_same_sharing(v_out, vs[0], t_out, ts[0])


@pytest.mark.parametrize(
    "expr",
    ["lib.cartesian_prod()", "lib.cartesian_prod(m, v)", "lib.cartesian_prod(lib.tensor(1))",
     "lib.cartesian_prod(v, lib.arange(3))", "lib.cartesian_prod([v, v])"],
)  # fmt: skip
def test_cartesian_prod_errors(expr):
    assert_same_error(*both(expr, m=make_pair((2, 3)), v=make_pair((3,))))


def test_cartesian_prod_gradient():
    def run(lib):
        return lambda a, b: lib.cartesian_prod(a, b)

    check_gradients(run(vg), run(torch), [(3,), (2,)])
    (a, ta), (b, tb) = leaf_pair((3,)), leaf_pair((2,))
    assert node_chain(vg.cartesian_prod(a, b)) == node_chain(torch.cartesian_prod(ta, tb))


@pytest.mark.parametrize("r", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("with_replacement", [False, True])
@pytest.mark.parametrize(("shape", "dtype", "layout"), [((4,), "int64", "contiguous"),
                                                        ((4,), "float32", "stepped"),
                                                        ((3,), "bool", "offset"),
                                                        ((0,), "float32", "contiguous")])  # fmt: skip
def test_combinations(r, with_replacement, shape, dtype, layout):
    v, t = make_pair(shape, dtype, layout)
    assert_same(vg.combinations(v, r, with_replacement),
                torch.combinations(t, r, with_replacement))  # fmt: skip
    assert_same(vg.combinations(v, r=r, with_replacement=with_replacement),
                torch.combinations(t, r=r, with_replacement=with_replacement))  # fmt: skip


@pytest.mark.parametrize("expr", ["lib.combinations(m)", "lib.combinations(s)", "lib.combinations(v, -1)",
                                  "lib.combinations(v, 1.5)", "v.combinations()"])  # fmt: skip
def test_combinations_errors(expr):
    assert_same_error(*both(expr, m=make_pair((2, 3)), s=make_pair(()), v=make_pair((3,))))


@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations_gradient(with_replacement):
    check_gradients(lambda x: vg.combinations(x, 2, with_replacement),
                    lambda x: torch.combinations(x, 2, with_replacement), [(4,)])  # fmt: skip
    v, t = leaf_pair((4,))
    assert node_chain(vg.combinations(v)) == node_chain(torch.combinations(t))


def test_composites_are_fast_on_big_inputs():
    # NumPy does the work: a million-element grid and a 1000 × 1000 Kronecker block.
    x, y = vg.meshgrid(vg.arange(1000), vg.arange(1000), indexing="ij")
    assert x.stride() == (1, 0) and vg.cartesian_prod(vg.arange(1000), vg.arange(1000)).shape == (
        1_000_000,
        2,
    )
    assert vg.kron(vg.ones(100, 100), vg.ones(10, 10)).shape == (1000, 1000)


@pytest.mark.parametrize(
    "call",
    [lambda lib, x: x.rot90(1), lambda lib, x: x.narrow_copy(1, 1, 2), lambda lib, x: x.diag_embed(1),
     lambda lib, x: lib.block_diag(x, x[0]), lambda lib, x: lib.kron(x, x),
     lambda lib, x: lib.meshgrid(x[0], x[1], indexing="xy")[0], lambda lib, x: lib.broadcast_to(x, (2, 2, 3)),
     lambda lib, x: lib.combinations(x[0]), lambda lib, x: lib.cartesian_prod(x[0], x[1]),
     lambda lib, x: x.ravel()],
)  # fmt: skip
def test_complex_gradients(call):
    def run(lib, x):
        weights = lib.arange(1.0, call(lib, x).numel() + 1).reshape(call(lib, x).shape)
        (call(lib, x) * (weights + 1j)).real.sum().backward()
        return x.grad

    v, t = leaf_pair((2, 3), dtype="complex128")
    assert_same(run(vg, v), run(torch, t))

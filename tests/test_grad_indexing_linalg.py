"""Derivatives of indexing, joining, linear algebra, ranges and sampling ops vs torch.

Every case is written once as ``case(lib, *inputs)`` and run with ``lib=vg`` and
``lib=torch``: values, grad_fn names, gradients (values and strides) and finite
differences are compared by ``check_gradients``.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients, leaf_pair

import vizgrad as vg

NON_CONTIGUOUS = ["transposed", "stepped", "offset"]
LAYOUTS = ["contiguous", *NON_CONTIGUOUS]


def _pair(case):
    return functools.partial(case, vg), functools.partial(case, torch)


def run(case, shapes, layouts=None, **kwargs):
    vg_fn, torch_fn = _pair(case)
    check_gradients(vg_fn, torch_fn, shapes, layouts=layouts, **kwargs)


def _index(lib, values, *, step=1):
    """An int64 index tensor; with ``step`` > 1 a non-contiguous view of a longer one."""
    if step == 1:
        return lib.tensor(values)
    padded = [v for value in values for v in [value] + [0] * (step - 1)]
    return lib.tensor(padded)[::step]


def _mask(lib, shape, seed=3):
    return lib.tensor(np.random.default_rng(seed).random(shape) > 0.4)


# --- indexing ------------------------------------------------------------------------------

INDEX_CASES = {
    # Duplicated rows: their gradients must add up (index_put with accumulate).
    "rows_with_duplicates": lambda lib, x: x[[0, 2, 0]],
    "noncontiguous_index": lambda lib, x: x[:, _index(lib, [3, 1, 3], step=2)],
    "mask": lambda lib, x: x[_mask(lib, (3, 4))],
    "row_mask": lambda lib, x: x[lib.tensor([True, False, True])],
    "two_index_tensors": lambda lib, x: x[_index(lib, [[0, 2], [2, 2]]), _index(lib, [1, 1])],
    "slice_then_index": lambda lib, x: x[1:, [0, 0, 3]],
    "separated_indices": lambda lib, x: x[[0, 0], :, [1, 0]],
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(INDEX_CASES))
def test_advanced_index(name, layout):
    shape = (2, 3, 4) if name == "separated_indices" else (3, 4)
    run(INDEX_CASES[name], [shape], [layout])


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("layouts", [["contiguous"] * 2, ["transposed", "offset"]])
def test_index_put(accumulate, layouts):
    # Duplicates only with accumulate: overwriting twice keeps one write (no gradient rule).
    rows = [2, 0, 2] if accumulate else [2, 0, 1]

    def case(lib, x, v):
        return lib.index_put(x, (_index(lib, rows, step=2),), v, accumulate=accumulate)

    run(case, [(3, 4), (3, 4)], layouts)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_inplace_on_a_clone(accumulate):
    def case(lib, x, v):
        return x.clone().index_put_((lib.tensor([1, 0]), lib.tensor([3, 3])), v, accumulate)

    run(case, [(3, 4), (2,)], ["transposed", "contiguous"])


def test_index_put_values_broadcast():
    run(lambda lib, x, v: lib.index_put(x, (lib.tensor([0, 2]),), v), [(3, 4), (4,)])


SETITEM_CASES = {
    "index_list": lambda lib, z, v: z.__setitem__([0, 2], v[:2]),
    "mask": lambda lib, z, v: z.__setitem__(z.detach() > 0, 0.0),
    "basic_row": lambda lib, z, v: z.__setitem__(1, v[0]),
    "basic_slice": lambda lib, z, v: z.__setitem__((slice(None), 1), v[:, 0]),
    "slice_then_index": lambda lib, z, v: z.__setitem__((slice(1, None), [0, 3]), v[:2, :2]),
}


@pytest.mark.parametrize("name", list(SETITEM_CASES))
def test_setitem_records_torch_nodes(name):
    # Basic-index assignment is a copy_ into a view (CopySlices); advanced is index_put_.
    def case(lib, x, v):
        z = x * 1
        SETITEM_CASES[name](lib, z, v)
        return z

    # C++-only nodes are named by their namespace (torch::autograd::CopySlices).
    torch_node = case(torch, *(torch.ones(3, 4, requires_grad=True) for _ in range(2))).grad_fn
    expected = torch_node.name().replace("torch::", "vizgrad::")
    run(case, [(3, 4), (3, 4)], ["contiguous", "transposed"], grad_fn_name=expected)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_select(layout):
    run(lambda lib, x: x.index_select(1, _index(lib, [3, 0, 3], step=2)), [(3, 4)], [layout])
    run(lambda lib, x: lib.index_select(x, 0, lib.tensor([2, 2, 1, 2])), [(3, 4)], [layout])


def test_index_select_zero_dim():
    run(lambda lib, x: lib.index_select(x, 0, lib.tensor([0])), [()])


GATHER_INDEX = [[0, 2, 2, 1], [2, 2, 0, 0]]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gather_duplicates_accumulate(layout):
    def case(lib, x):
        return x.gather(0, lib.tensor(GATHER_INDEX))

    run(case, [(3, 4)], [layout])
    run(lambda lib, x: lib.gather(x, 1, lib.tensor(GATHER_INDEX).t()), [(4, 3)], [layout])


SCATTER_INDEX = [[2, 0, 1, 1], [0, 2, 2, 0]]  # no position written twice


@pytest.mark.parametrize("layouts", [["contiguous"] * 2, ["transposed", "stepped"]])
def test_scatter_src_and_value(layouts):
    run(lambda lib, x, s: x.scatter(0, lib.tensor(SCATTER_INDEX), s), [(3, 4), (2, 4)], layouts)
    run(lambda lib, x: lib.scatter(x, 1, lib.tensor(SCATTER_INDEX).t(), 2.5), [(4, 3)],
        layouts[:1])  # fmt: skip


@pytest.mark.parametrize("layouts", [["contiguous"] * 2, ["offset", "transposed"]])
def test_scatter_add_and_index_add(layouts):
    dup = [[2, 0, 2, 2], [2, 2, 0, 2]]
    run(lambda lib, x, s: x.scatter_add(0, lib.tensor(dup), s), [(3, 4), (2, 4)], layouts)
    run(lambda lib, x, s: x.index_add(1, lib.tensor([3, 3, 0]), s, alpha=2.0),
        [(3, 4), (3, 3)], layouts)  # fmt: skip
    run(lambda lib, x, s: lib.index_add(x, 0, lib.tensor([1, 1]), s), [(3, 4), (2, 4)], layouts)


@pytest.mark.parametrize("layouts", [["contiguous"] * 2, ["stepped", "transposed"]])
def test_index_copy_and_index_fill(layouts):
    run(lambda lib, x, s: x.index_copy(0, lib.tensor([2, 0]), s), [(3, 4), (2, 4)], layouts)
    run(lambda lib, x: x.index_fill(1, lib.tensor([1, 3, 1]), -1.0), [(3, 4)], layouts[:1])
    run(lambda lib, x, v: x.index_fill(1, lib.tensor([1, 3, 1]), v), [(3, 4), ()], layouts)


@pytest.mark.parametrize("layouts", [["contiguous"] * 2, ["transposed", "contiguous"]])
def test_masked_ops(layouts):
    run(lambda lib, x: x.masked_fill(_mask(lib, (3, 4)), 0.5), [(3, 4)], layouts[:1])
    run(lambda lib, x, v: x.masked_fill(_mask(lib, (4,)), v), [(3, 4), ()], layouts)
    run(lambda lib, x: x.masked_select(_mask(lib, (3, 4))), [(3, 4)], layouts[:1])
    # A broadcast mask: self's gradient is summed over the broadcast dim.
    run(lambda lib, x: lib.masked_select(x, _mask(lib, (2, 3, 4))), [(3, 4)], layouts[:1])
    run(lambda lib, x, s: x.masked_scatter(_mask(lib, (3, 4)), s), [(3, 4), (4, 4)], layouts)


@pytest.mark.parametrize("layouts", [["contiguous"] * 2, ["transposed", "stepped"]])
def test_take_and_put(layouts):
    run(lambda lib, x: x.take(_index(lib, [[0, 5], [5, 11]])), [(3, 4)], layouts[:1])
    run(lambda lib, x, s: x.put(lib.tensor([1, 1, 7]), s[0, :3], accumulate=True),
        [(3, 4), (2, 3)], layouts)  # fmt: skip
    run(lambda lib, x, s: lib.put(x, lib.tensor([1, 4, 7]), s[0, :3]), [(3, 4), (2, 3)], layouts)


INPLACE_INDEXING = {
    "index_put_": lambda lib, y, s: y.index_put_((lib.tensor([0, 2]),), s[:2]),
    "scatter_": lambda lib, y, s: y.scatter_(0, lib.tensor(SCATTER_INDEX), s[:2]),
    "scatter_value": lambda lib, y, s: y.scatter_(0, lib.tensor(SCATTER_INDEX), 1.5),
    "scatter_add_": lambda lib, y, s: y.scatter_add_(0, lib.tensor(SCATTER_INDEX), s[:2]),
    "index_add_": lambda lib, y, s: y.index_add_(0, lib.tensor([1, 1]), s[:2]),
    "index_copy_": lambda lib, y, s: y.index_copy_(0, lib.tensor([2, 0]), s[:2]),
    "index_fill_": lambda lib, y, s: y.index_fill_(1, lib.tensor([0]), 3.0),
    "masked_fill_": lambda lib, y, s: y.masked_fill_(_mask(lib, (3, 4)), 3.0),
    "masked_fill_tensor": lambda lib, y, s: y.masked_fill_(_mask(lib, (3, 4)), s[0, 0]),
    "masked_scatter_": lambda lib, y, s: y.masked_scatter_(_mask(lib, (3, 4)), s),
    "put_": lambda lib, y, s: y.put_(lib.tensor([0, 5]), s[0, :2]),
    "tril_": lambda lib, y, s: y.tril_(-1),
    "triu_": lambda lib, y, s: y.triu_(1),
}


@pytest.mark.parametrize("name", list(INPLACE_INDEXING))
def test_inplace_variants(name):
    def case(lib, x, s):
        y = x.clone()
        INPLACE_INDEXING[name](lib, y, s)
        return y

    run(case, [(3, 4), (3, 4)])


def test_scatter_reduce_has_no_derivative_like_torch():
    results = []
    for lib in (vg, torch):
        x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        out = x.scatter(0, lib.tensor([[0, 1, 0, 1]]), 2.0, reduce="add")
        with pytest.raises(RuntimeError) as error:
            out.sum().backward()
        results.append((out.grad_fn.name() if lib is vg else type(out.grad_fn).__name__,
                        str(error.value)))  # fmt: skip
    assert results[0] == results[1]


# --- joining --------------------------------------------------------------------------------

JOIN_CASES = {
    "cat0": (lambda lib, a, b: lib.cat([a, b]), [(2, 3), (4, 3)]),
    "cat1": (lambda lib, a, b: lib.cat([a, b, a], dim=-1), [(2, 3), (2, 1)]),
    "cat_skips_empty": (lambda lib, a, b: lib.cat([a, b[:0], a]), [(2, 3), (4,)]),
    "stack": (lambda lib, a, b: lib.stack([a, b], dim=1), [(2, 3), (2, 3)]),
    "stack_last": (lambda lib, a, b: lib.stack([a, b, a], dim=-1), [(2, 3), (2, 3)]),
    "hstack": (lambda lib, a, b: lib.hstack([a, b]), [(2, 3), (2, 1)]),
    "hstack_1d": (lambda lib, a, b: lib.hstack([a[0], b[0], a[0, 0]]), [(2, 3), (2, 3)]),
    "vstack": (lambda lib, a, b: lib.vstack([a, b]), [(2, 3), (1, 3)]),
    "vstack_1d": (lambda lib, a, b: lib.vstack([a[0], b[0]]), [(2, 3), (2, 3)]),
    "dstack": (lambda lib, a, b: lib.dstack([a, b]), [(2, 3), (2, 3)]),
    "dstack_1d": (lambda lib, a, b: lib.dstack([a[0], b[0]]), [(2, 3), (2, 3)]),
    "column_stack": (lambda lib, a, b: lib.column_stack([a[0], b]), [(2, 3), (3, 2)]),
    "repeat": (lambda lib, a: a.repeat(2, 1, 3), [(2, 3)]),
    "repeat_zero": (lambda lib, a: a.repeat(2, 0), [(2, 3)]),
    "tile": (lambda lib, a: lib.tile(a, (2,)), [(2, 3)]),
    "repeat_interleave": (lambda lib, a: a.repeat_interleave(2, dim=1), [(2, 3)]),
    "repeat_interleave_flat": (lambda lib, a: lib.repeat_interleave(a, 3), [(2, 3)]),
    "repeat_interleave_tensor": (
        lambda lib, a: a.repeat_interleave(lib.tensor([2, 0, 1]), dim=1), [(2, 3)]),
    "repeat_interleave_one_count": (
        lambda lib, a: lib.repeat_interleave(a, lib.tensor([2]), dim=0), [(2, 3)]),
    "flip": (lambda lib, a: a.flip(0, -1), [(2, 3)]),
    "fliplr": (lambda lib, a: lib.fliplr(a), [(2, 3)]),
    "flipud": (lambda lib, a: a.flipud(), [(2, 3)]),
    "roll": (lambda lib, a: a.roll((1, -2), (0, 1)), [(2, 3)]),
    "roll_flat": (lambda lib, a: lib.roll(a, 4), [(2, 3)]),
}  # fmt: skip


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(JOIN_CASES))
def test_joining(name, layout):
    case, shapes = JOIN_CASES[name]
    run(case, shapes, [layout] * len(shapes))


def test_cat_of_mixed_dtypes_casts_gradients():
    def case(lib, a, b):
        return lib.cat([a.float(), b])

    run(case, [(2, 3), (2, 3)], atol=1e-5, rtol=1e-5, gradcheck=False)


# --- linear algebra -------------------------------------------------------------------------

LINALG_CASES = {
    "dot": (lambda lib, a, b: lib.dot(a, b), [(5,), (5,)]),
    "vdot": (lambda lib, a, b: lib.vdot(a, b), [(5,), (5,)]),
    "mv": (lambda lib, a, b: a.mv(b), [(3, 4), (4,)]),
    "mm": (lambda lib, a, b: lib.mm(a, b), [(3, 4), (4, 2)]),
    "bmm": (lambda lib, a, b: lib.bmm(a, b), [(2, 3, 4), (2, 4, 2)]),
    "outer": (lambda lib, a, b: lib.outer(a, b), [(3,), (4,)]),
    "ger": (lambda lib, a, b: a.ger(b), [(3,), (4,)]),
    "addmm": (lambda lib, s, a, b: lib.addmm(s, a, b), [(3, 2), (3, 4), (4, 2)]),
    "addmm_scaled_broadcast": (
        lambda lib, s, a, b: lib.addmm(s, a, b, beta=0.5, alpha=-2), [(2,), (3, 4), (4, 2)]),
    "tensordot": (lambda lib, a, b: lib.tensordot(a, b, dims=1), [(2, 3), (3, 4)]),
    "tensordot_lists": (lambda lib, a, b: lib.tensordot(a, b, dims=([1, 0], [0, 2])),
                        [(2, 3, 4), (3, 4, 2)]),
    "tensordot_broadcast_one": (lambda lib, a, b: lib.tensordot(a, b, dims=([1], [0])),
                                [(2, 1), (3, 2)]),
    "tril": (lambda lib, a: lib.tril(a, -1), [(3, 4)]),
    "triu": (lambda lib, a: a.triu(1), [(2, 3, 4)]),
    "diag_vector": (lambda lib, a: lib.diag(a, 1), [(3,)]),
    "diag_matrix": (lambda lib, a: lib.diag(a, -1), [(3, 4)]),
    "diag_embed": (lambda lib, a: lib.diag_embed(a, 1, 0, 2), [(2, 3)]),
}  # fmt: skip


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(LINALG_CASES))
def test_linalg(name, layout):
    case, shapes = LINALG_CASES[name]
    run(case, shapes, [layout] * len(shapes))


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3,)),
    ((5, 2, 3), (3, 4)),
    ((3,), (5, 3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((5, 2, 3), (1, 3, 4)),
    ((1, 2, 3), (5, 3, 4)),
    ((2, 5, 2, 3), (5, 3, 4)),
    ((5, 2, 3), (2, 1, 3, 4)),
    ((2, 5, 2, 3), (3,)),
    ((3,), (2, 5, 3, 4)),
]


def graph_names(t) -> list[str]:
    """Every node reachable from ``t.grad_fn``, breadth first (AccumulateGrad excluded)."""
    names, seen, todo = [], set(), [t.grad_fn]
    while todo:
        node = todo.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        name = node.name() if hasattr(node, "name") else type(node).__name__
        if "AccumulateGrad" not in name:
            names.append(name)
        todo.extend(n for n, _ in node.next_functions)
    return names


@pytest.mark.parametrize("requires", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_graph_matches_torch(shapes, requires):
    """``matmul`` is composite: the nodes it records depend on ranks and on requires_grad."""
    v_in, t_in = [], []
    for i, (shape, req) in enumerate(zip(shapes, requires, strict=True)):
        v, t = leaf_pair(shape, seed=i)
        v_in.append(v.requires_grad_(req))
        t_in.append(t.requires_grad_(req))
    v_out, t_out = vg.matmul(*v_in), torch.matmul(*t_in)
    assert graph_names(v_out) == graph_names(t_out)
    check_gradients(lambda a, b: a @ b, lambda a, b: a @ b, list(shapes))


@pytest.mark.parametrize("shapes", MATMUL_SHAPES[4:9], ids=str)
def test_matmul_non_contiguous(shapes):
    run(lambda lib, a, b: lib.matmul(a, b), list(shapes), ["transposed", "offset"])


def test_matmul_out_refuses_autograd_like_torch():
    for lib in (vg, torch):
        a = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="matmul\\(\\): functions with out="):
            lib.matmul(a, a.t(), out=lib.empty(2, 2, dtype=lib.float64))


@pytest.mark.parametrize("transposed", [(True, False), (False, True), (True, True)])
def test_mm_gradient_layouts_follow_torch(transposed):
    # mm_mat1/mat2_backward compute a column-major input's gradient column-major.
    strides = []
    for lib in (vg, torch):
        a = lib.ones(4, 3, dtype=lib.float64, requires_grad=True)
        b = lib.ones(2, 4, dtype=lib.float64, requires_grad=True)
        mat1 = a.t() if transposed[0] else a.t().contiguous()
        mat2 = b.t() if transposed[1] else b.t().contiguous()
        grads = lib.autograd.grad(lib.mm(mat1, mat2).sum(), [mat1, mat2])
        strides.append([g.stride() for g in grads])
    assert strides[0] == strides[1]


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("i,i", [(3,), (3,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->i", [(3,), (3,)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
]


@pytest.mark.parametrize(("equation", "shapes"), EINSUM_CASES)
def test_einsum_graph_and_gradients(equation, shapes):
    """einsum is composite: diagonal/unsqueeze/permute per operand, then bmm pairs."""
    pairs = [leaf_pair(s, seed=i) for i, s in enumerate(shapes)]
    v_out = vg.einsum(equation, *(v for v, _ in pairs))
    t_out = torch.einsum(equation, *(t for _, t in pairs))
    assert graph_names(v_out) == graph_names(t_out)
    layouts = ["transposed" if len(s) > 1 else "stepped" for s in shapes]
    run(lambda lib, *xs: lib.einsum(equation, *xs), shapes, layouts)


@pytest.mark.parametrize("dims", [1, ([1, 0], [0, 2])])
def test_tensordot_graph(dims):
    shapes = [(2, 3), (3, 4)] if dims == 1 else [(2, 3, 4), (3, 4, 2)]
    pairs = [leaf_pair(s, seed=i) for i, s in enumerate(shapes)]
    v_out = vg.tensordot(*(v for v, _ in pairs), dims=dims)
    t_out = torch.tensordot(*(t for _, t in pairs), dims=dims)
    assert graph_names(v_out) == graph_names(t_out)


# --- double backward ------------------------------------------------------------------------

GRADGRAD_CASES = {
    "mm": (lambda a, b: vg.mm(a, b), [(2, 3), (3, 2)]),
    "matmul_batched": (lambda a, b: vg.matmul(a, b), [(2, 2, 3), (3, 2)]),
    "matmul_bmm": (lambda a, b: vg.matmul(a, b), [(2, 2, 3), (2, 3, 2)]),
    "cat": (lambda a, b: vg.cat([a, b * b], dim=1), [(2, 3), (2, 2)]),
    "stack": (lambda a, b: vg.stack([a * b, a]), [(2, 3), (2, 3)]),
    "index": (lambda a, b: (a * b)[[0, 0, 1]], [(2, 3), (2, 3)]),
    "index_put": (lambda a, b: vg.index_put(a, (vg.tensor([1, 1]),), b[0, :2] ** 2, True),
                  [(3,), (2, 3)]),
    "gather": (lambda a, b: (a * b).gather(1, vg.tensor([[0, 0], [2, 1]])), [(2, 3), (2, 3)]),
    "take": (lambda a, b: (a * b).take(vg.tensor([0, 0, 4])), [(2, 3), (2, 3)]),
    "masked_select": (lambda a, b: (a * b).masked_select(a.detach() > 0), [(2, 3), (2, 3)]),
    "einsum": (lambda a, b: vg.einsum("ij,kj->ik", a * a, b), [(2, 3), (2, 3)]),
    "repeat": (lambda a, b: (a * b).repeat(2, 1), [(2, 3), (2, 3)]),
}  # fmt: skip


@pytest.mark.parametrize("name", list(GRADGRAD_CASES))
def test_gradgradcheck(name):
    fn, shapes = GRADGRAD_CASES[name]
    inputs = tuple(leaf_pair(s, "contiguous", seed=i)[0] for i, s in enumerate(shapes))
    assert vg.autograd.gradgradcheck(fn, inputs)


# --- node chains, saved attributes ----------------------------------------------------------

CHAIN_CASES = {
    "x[[0, 2]]": lambda lib, x: x[[0, 2]],
    "x[mask]": lambda lib, x: x[x.detach() > 0],
    "x[idx] = v": lambda lib, x: _assigned(lib, x),
    "x[0] = v": lambda lib, x: _assigned(lib, x, basic=True),
}


def _assigned(lib, x, basic=False):
    z = x.clone()
    if basic:
        z[0] = x[1] * 2
    else:
        z[lib.tensor([0, 2])] = x[:2] * 2
    return z


def chain(t) -> list[str]:
    names, node = [], t.grad_fn
    while node is not None:
        names.append(node.name() if hasattr(node, "name") else type(node).__name__)
        node = next((n for n, _ in node.next_functions if n is not None), None)
    return [n.split("::")[-1] for n in names]


@pytest.mark.parametrize("name", list(CHAIN_CASES))
def test_node_chains(name):
    v, t = leaf_pair((3, 4))
    assert chain(CHAIN_CASES[name](vg, v)) == chain(CHAIN_CASES[name](torch, t))


SAVED_CASES = {
    "index": (lambda lib, x: x[lib.tensor([0, 2])], ["self_sym_sizes"]),
    "index_put": (lambda lib, x: lib.index_put(x, (lib.tensor([1]),), x[0], True),
                  ["accumulate"]),
    "cat": (lambda lib, x: lib.cat([x, x], 1), ["dim"]),
    "stack": (lambda lib, x: lib.stack([x, x], 1), ["dim"]),
    "repeat": (lambda lib, x: x.repeat(2, 1, 1), ["repeats", "self_sym_sizes"]),
    "flip": (lambda lib, x: x.flip(1), ["dims"]),
    "roll": (lambda lib, x: x.roll(1, 0), ["shifts", "dims"]),
    "gather": (lambda lib, x: x.gather(1, lib.tensor([[0], [1], [2]])), ["dim", "sparse_grad"]),
    "index_select": (lambda lib, x: x.index_select(1, lib.tensor([0])), ["dim", "self_sym_sizes"]),
    "tril": (lambda lib, x: x.tril(1), ["diagonal"]),
    "diag_embed": (lambda lib, x: lib.diag_embed(x, 1, 0, 2), ["offset", "dim1", "dim2"]),
    "addmm": (lambda lib, x: lib.addmm(x, x, x.t(), beta=2), ["alpha", "beta"]),
    "index_add": (lambda lib, x: x.index_add(0, lib.tensor([1]), x[:1], alpha=3), ["alpha", "dim"]),
}  # fmt: skip


@pytest.mark.parametrize("name", list(SAVED_CASES))
def test_saved_attributes(name):
    case, attributes = SAVED_CASES[name]
    v, t = leaf_pair((3, 3))
    v_node, t_node = case(vg, v).grad_fn, case(torch, t).grad_fn
    assert v_node.name() == type(t_node).__name__
    for attribute in attributes:
        expected = getattr(t_node, f"_saved_{attribute}")
        got = getattr(v_node, f"_saved_{attribute}")
        assert tuple(got) == tuple(expected) if isinstance(expected, tuple) else got == expected


def test_saved_tensors_are_version_checked():
    for lib in (vg, torch):
        a = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        b = lib.ones(3, 2, dtype=lib.float64)
        out = lib.mm(a, b)
        b.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


# --- outputs that never require grad; sampling ----------------------------------------------

NO_GRAD_CASES = {
    "nonzero": lambda lib, x: lib.nonzero(x),
    "argwhere": lambda lib, x: lib.argwhere(x),
    "nonzero_tuple": lambda lib, x: lib.nonzero(x, as_tuple=True)[0],
    "zeros_like": lambda lib, x: lib.zeros_like(x),
    "ones_like": lambda lib, x: lib.ones_like(x),
    "empty_like": lambda lib, x: lib.empty_like(x),
    "full_like": lambda lib, x: lib.full_like(x, 2.0),
    "rand_like": lambda lib, x: lib.rand_like(x),
    "randn_like": lambda lib, x: lib.randn_like(x),
    "randint_like": lambda lib, x: lib.randint_like(x, 5),
    "new_zeros": lambda lib, x: x.new_zeros(2),
    "new_full": lambda lib, x: x.new_full((2,), 1.0),
    "multinomial": lambda lib, x: lib.multinomial(x.abs().detach().requires_grad_(), 2),
    "repeat_interleave_counts": lambda lib, x: lib.repeat_interleave(lib.tensor([1, 2])),
}


@pytest.mark.parametrize("name", list(NO_GRAD_CASES))
def test_outputs_that_do_not_require_grad(name):
    v, t = leaf_pair((3, 4))
    v_out, t_out = NO_GRAD_CASES[name](vg, v), NO_GRAD_CASES[name](torch, t)
    assert t_out.requires_grad is False
    assert v_out.requires_grad is False and v_out.grad_fn is None


def test_nonzero_out_with_an_input_requiring_grad():
    for lib in (vg, torch):
        out = lib.empty(0, dtype=lib.int64)
        lib.nonzero(lib.ones(2, 2, requires_grad=True), out=out)
        assert tuple(out.shape) == (4, 2)


SAMPLING_CASES = {
    "normal_tensor_float": lambda lib, m, s: lib.normal(m, 2.0),
    "normal_float_tensor": lambda lib, m, s: lib.normal(1.0, s.abs() + 0.1),
    "normal_tensor_tensor": lambda lib, m, s: lib.normal(m, s.abs() + 0.1),
    "bernoulli": lambda lib, m, s: lib.bernoulli(m.sigmoid()),
    "uniform_": lambda lib, m, s: (m * 1).uniform_(),
    "normal_": lambda lib, m, s: (m * 1).normal_(),
    "exponential_": lambda lib, m, s: (m * 1).exponential_(),
    "bernoulli_float": lambda lib, m, s: (m * 1).bernoulli_(0.3),
    "bernoulli_tensor": lambda lib, m, s: (m * 1).bernoulli_(s.sigmoid()),
    "random_": lambda lib, m, s: (m * 1).random_(),
    "random_to": lambda lib, m, s: (m * 1).random_(5),
    "random_from": lambda lib, m, s: (m * 1).random_(1, 5),
}


@pytest.mark.parametrize("name", list(SAMPLING_CASES))
def test_sampling_nodes_and_zero_gradients(name):
    """Samples are not reparameterized: torch's nodes pass zero gradients."""
    grads = []
    for lib in (vg, torch):
        m = lib.zeros(2, 3, dtype=lib.float64, requires_grad=True)
        s = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        out = SAMPLING_CASES[name](lib, m, s)
        grads.append(chain(out))
        out.sum().backward()
        grads.append([None if x.grad is None else x.grad.tolist() for x in (m, s)])
    assert grads[0] == grads[2]
    assert grads[1] == grads[3]


def test_bernoulli_with_p_has_no_derivative_like_torch():
    messages = []
    for lib in (vg, torch):
        out = lib.ones(3, requires_grad=True).bernoulli(0.5)
        with pytest.raises(RuntimeError) as error:
            out.sum().backward()
        messages.append(str(error.value))
    assert messages[0] == messages[1]

"""Derivatives of view, copy and conversion operators, compared with PyTorch.

Most view ops have the same method spelling in both libraries, so one lambda drives
both: ``check_gradients`` runs it on the same float64 leaves (in several memory
layouts), compares values, the ``grad_fn`` name, every leaf's ``.grad``, and runs
``gradcheck``. Then: node names and ``_saved_*`` attributes, the node chains of basic
indexing and composite ops, in-place view ops (``t_``…), and in-place writes through
views (``CopySlices``), with PyTorch's errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients, leaf_pair
from oracle import assert_same, assert_same_error

import vizgrad as vg

# The layouts a leaf can have and still be perturbed element by element by gradcheck
# ("expanded" repeats elements, so finite differences there are meaningless).
LAYOUTS = ["contiguous", "transposed", "stepped", "offset"]

# name -> (function of one tensor, usable with both libraries; input shape)
VIEW_OPS = {
    "view": (lambda x: x.view(2, 1, 3), (2, 3)),
    "view_infer": (lambda x: x.view(-1, 3), (2, 3)),
    "alias": (lambda x: x[...], (2, 3)),
    "t": (lambda x: x.t(), (2, 3)),
    "t_1d": (lambda x: x.t(), (3,)),
    "transpose": (lambda x: x.transpose(0, 2), (2, 3, 4)),
    "transpose_neg": (lambda x: x.transpose(-1, 0), (2, 3)),
    "permute": (lambda x: x.permute(2, 0, 1), (2, 3, 4)),
    "permute_neg": (lambda x: x.permute(-1, 0, 1), (2, 3, 4)),
    "expand": (lambda x: x.expand(2, 4, 3), (2, 1, 3)),
    "expand_new_dims": (lambda x: x.expand(4, 2, 3), (2, 3)),
    "expand_scalar": (lambda x: x.expand(2, 3), ()),
    "squeeze": (lambda x: x.squeeze(), (2, 1, 3, 1)),
    "squeeze_dim": (lambda x: x.squeeze(1), (2, 1, 3)),
    "squeeze_dim_not_one": (lambda x: x.squeeze(0), (2, 1, 3)),
    "squeeze_dims": (lambda x: x.squeeze((1, -1)), (2, 1, 3, 1)),
    "unsqueeze": (lambda x: x.unsqueeze(1), (2, 3)),
    "unsqueeze_neg": (lambda x: x.unsqueeze(-1), (2, 3)),
    "slice": (lambda x: x[:, 1:], (2, 3)),
    "slice_step": (lambda x: x[::2], (5, 3)),
    "slice_dim1_step": (lambda x: x[:, 1:4:2], (2, 5)),
    "select": (lambda x: x[1], (2, 3)),
    "select_neg": (lambda x: x.select(1, -1), (2, 3)),
    "diagonal": (lambda x: x.diagonal(), (3, 3)),
    "diagonal_offset": (lambda x: x.diagonal(1), (3, 4)),
    "diagonal_neg_offset": (lambda x: x.diagonal(-1, 0, 1), (3, 4)),
    "diagonal_3d": (lambda x: x.diagonal(0, 2, 0), (3, 2, 3)),
    "unfold_overlapping": (lambda x: x.unfold(1, 2, 1), (2, 4)),
    "unfold_gaps": (lambda x: x.unfold(0, 2, 3), (6, 2)),
    "unbind_first": (lambda x: x.unbind(1)[0], (2, 3)),
    "unbind_last": (lambda x: x.unbind(0)[-1], (3, 2)),
    "split": (lambda x: x.split(2, 1)[1], (2, 5)),
    "split_with_sizes": (lambda x: x.split([1, 3], 1)[1], (2, 4)),
    "chunk": (lambda x: x.chunk(2)[0], (4, 2)),
    "as_strided": (lambda x: x.as_strided((2, 2), (1, 2)), (2, 3)),
    "clone": (lambda x: x.clone(), (2, 3)),
    "contiguous": (lambda x: x.t().contiguous(), (2, 3)),
    "to_float32": (lambda x: x.to(_float32(x)), (2, 3)),
    "float": (lambda x: x.float(), (2, 3)),
    # composite ops: their grad_fn is the primitive they are made of
    "reshape_view": (lambda x: x.reshape(6), (2, 3)),
    "reshape_copy": (lambda x: x.t().reshape(6), (2, 3)),
    "flatten": (lambda x: x.flatten(1), (2, 3, 2)),
    "unflatten": (lambda x: x.unflatten(1, (3, 1)), (2, 3)),
    "narrow": (lambda x: x.narrow(1, 1, 2), (2, 3)),
    "movedim": (lambda x: x.movedim(0, 2), (2, 3, 4)),
    "movedim_1d": (lambda x: x.movedim(0, 0), (3,)),
    "swapaxes": (lambda x: x.swapaxes(0, 1), (2, 3)),
    "T": (lambda x: x.T, (2, 3)),
    "mT": (lambda x: x.mT, (2, 2, 3)),
    "tensor_split": (lambda x: x.tensor_split(2, 1)[1], (2, 3)),
}


def _float32(x):
    return torch.float32 if isinstance(x, torch.Tensor) else vg.float32


# Conversions to float32: finite differences in single precision are too coarse for
# gradcheck (PyTorch's refuses them too); values and gradients are still compared.
SINGLE_PRECISION_RESULTS = {"to_float32", "float"}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(VIEW_OPS))
def test_view_op_gradients(name, layout):
    fn, shape = VIEW_OPS[name]
    check_gradients(fn, fn, [shape], layouts=[layout],
                    gradcheck=name not in SINGLE_PRECISION_RESULTS)  # fmt: skip


def test_unbind_all_outputs_used():
    # Every piece carries a different gradient back to its own row.
    fn = lambda x: x.unbind(0)[0] * 2 + x.unbind(0)[2]  # noqa: E731
    check_gradients(fn, fn, [(3, 4)], layouts=["transposed"])


@pytest.mark.parametrize("split", [lambda x: x.split(1), lambda x: x.split([2, 1]),
                                   lambda x: x.unbind(0)])  # fmt: skip
def test_multi_output_pieces_without_gradient_count_as_zeros(split):
    # Only the last piece reaches the loss: the others get zeros, not an error.
    v, t = leaf_pair((3, 2))
    split(v)[-1].backward(vg.ones(2, dtype=vg.float64) if split(v)[-1].dim() == 1
                          else vg.ones(1, 2, dtype=vg.float64))  # fmt: skip
    split(t)[-1].backward(torch.ones_like(split(t)[-1]))
    assert_same(v.grad, t.grad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_to_copy_gradient_comes_back_in_input_dtype(dtype):
    v, t = leaf_pair((2, 3), dtype=dtype)
    target_v, target_t = (
        (vg.float64, torch.float64) if dtype == "float32" else (vg.float32, torch.float32)
    )
    v.to(target_v).backward(vg.ones(2, 3, dtype=target_v))
    t.to(target_t).backward(torch.ones(2, 3, dtype=target_t))
    assert_same(v.grad, t.grad)


def test_as_strided_overlapping_view_sums_gradients():
    fn = lambda x: x.as_strided((3, 2), (1, 1))  # noqa: E731 - elements read twice
    check_gradients(fn, fn, [(2, 3)])
    fn_offset = lambda x: x.as_strided((2, 2), (3, 1), 1)  # noqa: E731
    check_gradients(fn_offset, fn_offset, [(2, 3)], layouts=["offset"])


# --- copy_ -----------------------------------------------------------------------------------


@pytest.mark.parametrize("src_shape,src_dtype", [((2, 3), "float64"), ((3,), "float64"),
                                                 ((3,), "float32"), ((1, 3), "float32")])  # fmt: skip
def test_copy_gradients(src_shape, src_dtype):
    """``copy_``: the old values of ``self`` get zeros; ``src`` gets grad summed and cast."""
    xv, xt = leaf_pair((2, 3), "transposed")
    wv, wt = leaf_pair(src_shape, "contiguous", seed=1, dtype=src_dtype)
    yv = xv.clone()
    yt = xt.clone()
    yv.copy_(wv)
    yt.copy_(wt)
    assert yv.grad_fn.name() == yt.grad_fn.name().replace("torch::", "vizgrad::")
    assert graph(yv.grad_fn) == graph(yt.grad_fn)
    upstream = np.random.default_rng(3).standard_normal((2, 3))
    (yv * 2).backward(vg.tensor(upstream))
    (yt * 2).backward(torch.tensor(upstream))
    assert_same(xv.grad, xt.grad, check_stride=False)
    assert_same(wv.grad, wt.grad, check_stride=False)


def test_copy_into_tensor_not_requiring_grad():
    wv, wt = leaf_pair((3,))
    yv, yt = vg.zeros(2, 3, dtype=vg.float64), torch.zeros(2, 3, dtype=torch.float64)
    yv.copy_(wv)
    yt.copy_(wt)
    assert graph(yv.grad_fn) == graph(yt.grad_fn)
    yv.backward(vg.ones(2, 3, dtype=vg.float64))
    yt.backward(torch.ones(2, 3, dtype=torch.float64))
    assert_same(wv.grad, wt.grad)


# --- double backward --------------------------------------------------------------------------

GRADGRAD_OPS = ["view", "t", "transpose", "permute", "squeeze_dim", "unsqueeze", "slice",
                "slice_step", "select", "diagonal_offset", "alias", "clone", "reshape_copy",
                "narrow", "expand_new_dims", "unfold_gaps"]  # fmt: skip


@pytest.mark.parametrize("name", GRADGRAD_OPS)
def test_double_backward(name):
    fn, shape = VIEW_OPS[name]
    (x, _) = leaf_pair(shape)
    assert vg.autograd.gradgradcheck(fn, (x,))


# --- node names and saved attributes ------------------------------------------------------------

# Calls whose node PyTorch names and whose saved values it exposes.
NODE_CALLS = {
    "view": lambda x: x.view(6),
    "t": lambda x: x.t(),
    "transpose": lambda x: x.transpose(-1, 0),
    "permute": lambda x: x.permute(1, 0),
    "expand": lambda x: x.unsqueeze(1).expand(2, 4, 3),
    "squeeze": lambda x: x.squeeze(),
    "squeeze_dim": lambda x: x.squeeze(1),
    "squeeze_dims": lambda x: x.squeeze((0, 1)),
    "unsqueeze": lambda x: x.unsqueeze(-1),
    "slice": lambda x: x[:, 1:],
    "slice_step": lambda x: x[:, ::2],
    "narrow": lambda x: x.narrow(1, 0, 2),
    "select": lambda x: x[1],
    "diagonal": lambda x: x.diagonal(1),
    "unfold": lambda x: x.unfold(1, 2, 1),
    "unbind": lambda x: x.unbind(1)[0],
    "split": lambda x: x.split(2, 1)[0],
    "split_with_sizes": lambda x: x.split([1, 2], 1)[0],
    "as_strided": lambda x: x.as_strided((2, 2), (1, 1)),
    "as_strided_offset": lambda x: x.as_strided((2, 2), (1, 1), 1),
    "clone": lambda x: x.clone(),
    "to": lambda x: x.float(),
    "alias": lambda x: x[...],
}


def _as_signed(value):
    # PyTorch's Python binding shows a saved negative int as unsigned 64-bit
    # (-1 -> 2**64 - 1); vizgrad keeps the value as it was passed.
    if isinstance(value, int) and value >= 2**63:
        return value - 2**64
    if isinstance(value, list | tuple):
        return tuple(_as_signed(v) for v in value)
    return value


def saved_attributes(node, names=None) -> dict:
    """``{"_saved_dim": 1, ...}``: what a node saved (``names``: only those)."""
    names = names or [name for name in dir(node) if name.startswith("_saved_")]
    return {name: _as_signed(getattr(node, name)) for name in names}


def assert_same_saved(v_node, t_node):
    """vizgrad saved at least what PyTorch saved, with the same values."""
    expected = saved_attributes(t_node)
    assert saved_attributes(v_node, list(expected)) == expected


@pytest.mark.parametrize("name", list(NODE_CALLS))
def test_node_name_and_saved_values(name):
    v, t = leaf_pair((2, 3))
    v_node, t_node = NODE_CALLS[name](v).grad_fn, NODE_CALLS[name](t).grad_fn
    assert v_node.name() == t_node.name()
    assert_same_saved(v_node, t_node)


def test_negative_saved_ints_stay_negative():
    v, t = leaf_pair((2, 3))
    assert v.select(1, -1).grad_fn._saved_index == -1
    assert t.select(1, -1).grad_fn._saved_index == 2**64 - 1  # PyTorch's binding artefact
    assert "_saved_index" in dir(v.select(1, -1).grad_fn)


def graph(node, depth: int = 4):
    """A node's name and its next functions' names, ``depth`` levels down.

    PyTorch's C++-only nodes are named ``torch::autograd::…``; vizgrad's ``vizgrad::…``.
    """
    if node is None:
        return None
    name = node.name().replace("torch::", "vizgrad::")
    if depth == 0:
        return name
    return (name, tuple((graph(n, depth - 1), nr) for n, nr in node.next_functions))


# --- node chains of indexing and composite ops ----------------------------------------------------

CHAINS = {
    "x[0]": lambda x: x[0],
    "x[:, 1:]": lambda x: x[:, 1:],
    "x[1:]": lambda x: x[1:],
    "x[:]": lambda x: x[:],
    "x[:, :]": lambda x: x[:, :],
    "x[None]": lambda x: x[None],
    "x[..., 0]": lambda x: x[..., 0],
    "x[...]": lambda x: x[...],
    "x[0, 1:]": lambda x: x[0, 1:],
    "x[:, None, 1]": lambda x: x[:, None, 1],
    "x[None, ..., ::2]": lambda x: x[None, ..., ::2],
    "reshape view": lambda x: x.reshape(6),
    "reshape copy": lambda x: x.t().reshape(6),
    "reshape_as copy": lambda x: x.t().reshape_as(x.t().flatten()),
    "flatten": lambda x: x.flatten(),
    "flatten contiguous copy": lambda x: x.t().flatten(),
    "view_as": lambda x: x.view_as(x.reshape(3, 2)),
    "expand_as": lambda x: x[0].expand_as(x),
    "narrow": lambda x: x.narrow(1, 0, 2),
    "chunk": lambda x: x.chunk(2, 1)[1],
    "movedim": lambda x: x.movedim(1, 0),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "swapdims": lambda x: x.swapdims(0, 1),
    "T": lambda x: x.T,
    "mT": lambda x: x.mT,
    "mH": lambda x: x.mH,
    "H": lambda x: x.H,
    "adjoint": lambda x: x.adjoint(),
    "contiguous copy": lambda x: x.t().contiguous(),
    "type": lambda x: x.t().type(x.float().dtype),
    "tensor_split": lambda x: x.tensor_split([1], 1)[1],
    "unflatten": lambda x: x.unflatten(1, (1, 3)),
}


@pytest.mark.parametrize("name", list(CHAINS))
def test_node_chain(name):
    v, t = leaf_pair((2, 3))
    assert graph(CHAINS[name](v).grad_fn) == graph(CHAINS[name](t).grad_fn)


@pytest.mark.parametrize("name", ["contiguous", "to same dtype", "flatten 1-d", "double"])
def test_no_op_conversions_return_the_input(name):
    fn = {
        "contiguous": lambda x: x.contiguous(),
        "to same dtype": lambda x: x.to(x.dtype),
        "flatten 1-d": lambda x: x.flatten(),
        "double": lambda x: x.double(),
    }[name]
    v, t = leaf_pair((3,))
    assert (fn(v) is v) == (fn(t) is t)


def test_detach_records_nothing():
    v, t = leaf_pair((2, 3))
    yv, yt = v.clone(), t.clone()
    assert yv.detach_() is yv and yt.detach_() is yt
    assert (yv.grad_fn, yv.requires_grad) == (yt.grad_fn, yt.requires_grad) == (None, False)
    assert v.detach().requires_grad == t.detach().requires_grad


# --- in-place view ops: t_, transpose_, squeeze_, unsqueeze_, as_strided_ -------------------------

INPLACE_VIEW_OPS = {
    "t_": (lambda y: y.t_(), (2, 3)),
    "transpose_": (lambda y: y.transpose_(0, -1), (2, 3)),
    "squeeze_": (lambda y: y.squeeze_(), (2, 1, 3)),
    "squeeze_dim": (lambda y: y.squeeze_(1), (2, 1, 3)),
    "squeeze_dims": (lambda y: y.squeeze_((1,)), (2, 1, 3)),
    "unsqueeze_": (lambda y: y.unsqueeze_(1), (2, 3)),
    "as_strided_": (lambda y: y.as_strided_((3, 2), (1, 3)), (2, 3)),
}


@pytest.mark.parametrize("name", list(INPLACE_VIEW_OPS))
def test_inplace_view_op_on_non_leaf(name):
    fn, shape = INPLACE_VIEW_OPS[name]
    v, t = leaf_pair(shape, "transposed")
    yv, yt = v.clone(), t.clone()
    assert fn(yv) is yv and fn(yt) is yt
    assert graph(yv.grad_fn) == graph(yt.grad_fn)
    assert yv._version == yt._version
    assert_same_saved(yv.grad_fn, yt.grad_fn)
    upstream = np.random.default_rng(5).standard_normal(tuple(yt.shape))
    yv.backward(vg.tensor(upstream))
    yt.backward(torch.tensor(upstream))
    assert_same(v.grad, t.grad, check_stride=False)


@pytest.mark.parametrize("name", list(INPLACE_VIEW_OPS))
def test_inplace_view_op_on_a_view_keeps_the_base_history(name):
    """Only metadata changes: the base keeps its grad_fn (no CopySlices)."""
    fn, shape = INPLACE_VIEW_OPS[name]
    v, t = leaf_pair(shape)
    bv, bt = v.clone(), t.clone()
    wv, wt = bv.view(shape), bt.view(shape)
    fn(wv)
    fn(wt)
    assert graph(wv.grad_fn) == graph(wt.grad_fn)
    assert graph(bv.grad_fn) == graph(bt.grad_fn)
    upstream = np.random.default_rng(6).standard_normal(tuple(wt.shape))
    wv.backward(vg.tensor(upstream))
    wt.backward(torch.tensor(upstream))
    assert_same(v.grad, t.grad, check_stride=False)


@pytest.mark.parametrize("name", list(INPLACE_VIEW_OPS))
def test_inplace_view_op_on_leaf_errors(name):
    fn, shape = INPLACE_VIEW_OPS[name]
    v, t = leaf_pair(shape)
    assert_same_error(lambda: fn(v), lambda: fn(t))
    assert_same_error(lambda: fn(v[...]), lambda: fn(t[...]))


def test_resize_of_tensor_requiring_grad_errors():
    v, t = leaf_pair((2, 3))
    assert_same_error(lambda: v.resize_(6), lambda: t.resize_(6))
    assert_same_error(lambda: v.clone().resize_(6), lambda: t.clone().resize_(6))
    assert_same_error(lambda: v.resize_as_(vg.zeros(6)), lambda: t.resize_as_(torch.zeros(6)))
    with vg.no_grad(), torch.no_grad():
        assert_same_error(lambda: v.resize_(6), lambda: t.resize_(6))
    # A tensor that does not require grad may take its shape from one that does.
    assert vg.zeros(3).resize_as_(v).shape == torch.zeros(3).resize_as_(t).shape


# --- in-place writes through views: CopySlices ---------------------------------------------------


WRITES = {
    # name -> (w's shape, write(y, w) -> the view written)
    "slice.mul_": ((2, 3), lambda y, w: y[0:2].mul_(w)),
    "select.add_": ((3,), lambda y, w: y.select(0, 1).add_(w)),
    "t.mul_": (None, lambda y, w: y.t().mul_(2)),
    "diagonal.copy_": ((3,), lambda y, w: y.diagonal().copy_(w)),
    "unsqueeze.sub_": ((1, 3), lambda y, w: y[2].unsqueeze(0).sub_(w)),
}


@pytest.mark.parametrize("name", list(WRITES))
def test_inplace_write_through_view(name):
    """The base gets CopySlices, the view AsStridedBackward0; gradients as PyTorch's."""
    w_shape, write = WRITES[name]
    xv, xt = leaf_pair((4, 3), "transposed")
    wv, wt = leaf_pair(w_shape, seed=1) if w_shape else (None, None)
    results = []
    for x, w in ((xv, wv), (xt, wt)):
        y = x.clone()
        before = y[1:]  # a second view, made before the write
        view = write(y, w)
        results.append((y, view, before))
    (yv, view_v, before_v), (yt, view_t, before_t) = results
    assert graph(yv.grad_fn) == graph(yt.grad_fn)
    assert graph(view_v.grad_fn) == graph(view_t.grad_fn)
    # The earlier view sees the write: its grad_fn is regenerated from the base.
    assert graph(before_v.grad_fn) == graph(before_t.grad_fn)
    assert_same_saved(view_v.grad_fn, view_t.grad_fn)

    rng = np.random.default_rng(7)
    up_base = rng.standard_normal((4, 3))
    up_before = rng.standard_normal((3, 3))
    vg.autograd.backward([yv, before_v], [vg.tensor(up_base), vg.tensor(up_before)])
    torch.autograd.backward([yt, before_t], [torch.tensor(up_base), torch.tensor(up_before)])
    assert_same(xv.grad, xt.grad, check_stride=False)
    if wv is not None:
        assert_same(wv.grad, wt.grad, check_stride=False)


def test_stale_view_used_in_a_new_op_reads_the_regenerated_history():
    """A view made before a write through another view must carry the write's gradient."""
    results = []
    xv, xt = leaf_pair((4, 3))
    wv, wt = leaf_pair((2, 3), seed=1)
    for x, w in ((xv, wv), (xt, wt)):
        y = x.clone()
        first_row = y[0]
        y[0:2].mul_(w)
        results.append(first_row * 3)
    assert graph(results[0].grad_fn) == graph(results[1].grad_fn)
    results[0].backward(vg.ones(3, dtype=vg.float64))
    results[1].backward(torch.ones(3, dtype=torch.float64))
    assert_same(xv.grad, xt.grad)
    assert_same(wv.grad, wt.grad)


def test_inplace_on_leaf_and_view_of_leaf_errors():
    v, t = leaf_pair((2, 3), dtype="float32")
    assert_same_error(lambda: v.mul_(2), lambda: t.mul_(2))
    assert_same_error(lambda: v[0].mul_(2), lambda: t[0].mul_(2))
    assert_same_error(lambda: v.t().mul_(2), lambda: t.t().mul_(2))
    assert_same_error(lambda: v.copy_(vg.ones(2, 3)), lambda: t.copy_(torch.ones(2, 3)))
    assert_same_error(lambda: v[:, 1:].copy_(vg.ones(3)), lambda: t[:, 1:].copy_(torch.ones(3)))


def _torch_message(error: Exception) -> str:
    return str(error).replace("torch.", "vizgrad.")


@pytest.mark.parametrize("case", ["view modified through base", "input modified",
                                  "output modified", "modified by t_"])  # fmt: skip
def test_saved_tensor_modified_in_place_error(case):
    def run(lib, x):
        y = x.clone()
        if case == "view modified through base":
            saved = y.t()
            product = saved * saved
            y.mul_(2)
        elif case == "input modified":
            product = y * y
            y.add_(1)
        elif case == "output modified":
            product = y.exp()
            product.mul_(3)
        else:
            product = y * y
            y.t_()
        product.backward(lib.ones_like(product))

    v, t = leaf_pair((2, 3), dtype="float32")
    with pytest.raises(RuntimeError) as torch_error:
        run(torch, t)
    with pytest.raises(RuntimeError) as vg_error:
        run(vg, v)
    assert str(vg_error.value) == _torch_message(torch_error.value)

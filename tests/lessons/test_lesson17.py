"""Lesson 17's checkers: right answers (as torch computes them) pass, typical mistakes are
explained, bad types get a message. The lesson's claims about matmul and einsum are checked
against torch on the same calls."""

import numpy as np
import pytest
import torch
from vizgrad.lessons import check
from vizgrad.lessons import lesson17 as L

import vizgrad as vg
from tests.lesson_feedback import assert_wrong


def _torch_ops_called(fn):
    """The operators torch's last top-level call in ``fn()`` called itself (the profiler's).

    (A TorchDispatchMode would not do: while one is active, matmul treats its operands as
    tensor subclasses and folds more often, so it would change what it observes.)
    """
    with torch.autograd.profiler.profile() as profile:
        fn()
    events = profile.function_events
    top = [e for e in events if e.cpu_parent is None][-1]  # the product, after any creation
    return [e.name.removeprefix("aten::") for e in events if e.cpu_parent is top]


def _without_overload(ops):
    return [op.split(".")[0] for op in ops]


# --- the lesson's claims, against torch ------------------------------------------------------

MATMUL_CASES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                ((5, 2, 3), (3, 4)), ((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)),
                ((5, 2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 4)), ((5, 2, 3), (1, 3, 4)),
                ((1, 2, 3), (5, 3, 4)), ((3, 1, 2, 3), (2, 3, 2))]  # fmt: skip


@pytest.mark.parametrize("shape_a, shape_b", MATMUL_CASES)
@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True)])
def test_matmul_matches_torch(shape_a, shape_b, grads):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(shape_a), rng.standard_normal(shape_b)
    ta, tb = (torch.tensor(x, requires_grad=g) for x, g in zip((a, b), grads, strict=True))
    va, vb = (vg.tensor(x, requires_grad=g) for x, g in zip((a, b), grads, strict=True))
    tc, vc = ta @ tb, va @ vb
    assert tuple(vc.shape) == tuple(tc.shape) and vc.stride() == tc.stride()
    assert np.allclose(vc.tolist(), tc.tolist())
    assert L.graph_names(vc) == L.graph_names(tc)
    grad = rng.standard_normal(tuple(tc.shape))
    tc.backward(torch.tensor(grad))
    vc.backward(vg.tensor(grad))
    for t, v in ((ta, va), (tb, vb)):
        if t.requires_grad:
            assert tuple(v.grad.shape) == tuple(t.grad.shape)
            assert v.grad.stride() == t.grad.stride()
            assert np.allclose(v.grad.tolist(), t.grad.tolist())


@pytest.mark.parametrize("shape_a, shape_b", MATMUL_CASES)
@pytest.mark.parametrize("requires_grad", [False, True])
def test_ops_called_are_torchs(shape_a, shape_b, requires_grad):
    ta = torch.ones(shape_a, requires_grad=requires_grad)
    tb = torch.ones(shape_b, requires_grad=requires_grad)
    va = vg.ones(shape_a, requires_grad=requires_grad)
    vb = vg.ones(shape_b, requires_grad=requires_grad)
    ours = _without_overload(L.ops_called(lambda: va @ vb))
    assert ours == _torch_ops_called(lambda: ta @ tb)


def test_the_one_d_times_two_d_calls_are_torchs():
    assert _torch_ops_called(lambda: torch.ones(3) @ torch.ones(3, 4)) == [
        "unsqueeze", "mm", "squeeze_"]  # fmt: skip
    assert L.ops_called(lambda: vg.ones(3) @ vg.ones(3, 4)) == ["unsqueeze", "mm", "squeeze_.dim"]


@pytest.mark.parametrize("equation, shapes", [("ij,jk->ik", [(2, 3), (3, 4)]),
                                              ("i,j->ij", [(3,), (4,)])])  # fmt: skip
def test_einsum_ops_called_are_torchs(equation, shapes):
    torch_ops = _torch_ops_called(lambda: torch.einsum(equation, *[torch.ones(s) for s in shapes]))
    ours = L.ops_called(lambda: vg.einsum(equation, *[vg.ones(s) for s in shapes]))
    assert _without_overload(ours) == torch_ops


@pytest.mark.parametrize("name, equation, shapes, named_op", L.EINSUM_EXAMPLES,
                         ids=[example[0] for example in L.EINSUM_EXAMPLES])  # fmt: skip
def test_einsum_examples_match_torch(name, equation, shapes, named_op):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(shape) for shape in shapes]
    tops = [torch.tensor(x, requires_grad=True) for x in arrays]
    vops = [vg.tensor(x, requires_grad=True) for x in arrays]
    tc, vc = torch.einsum(equation, *tops), vg.einsum(equation, *vops)
    assert tuple(vc.shape) == tuple(tc.shape) and vc.stride() == tc.stride()
    assert np.allclose(vc.tolist(), tc.tolist())
    assert np.allclose(named_op(*[vg.tensor(x) for x in arrays]).tolist(), tc.tolist())
    assert L.graph_names(vc) == L.graph_names(tc)
    grad = rng.standard_normal(tuple(tc.shape))
    tc.backward(torch.tensor(grad))
    vc.backward(vg.tensor(grad))
    for t, v in zip(tops, vops, strict=True):
        assert np.allclose(v.grad.tolist(), t.grad.tolist())


def test_einsum_table_agrees_everywhere():
    assert all(row[-1] for row in L.einsum_table())


def test_column_major_gradient_keeps_its_layout_as_in_torch():
    t = torch.arange(6.0).reshape(3, 2).t().detach().requires_grad_()
    (t @ torch.ones(3, 4)).sum().backward()
    v = vg.arange(6.0).reshape(3, 2).t().detach().requires_grad_()
    (v @ vg.ones(3, 4)).sum().backward()
    assert v.grad.stride() == t.grad.stride() == (1, 2)


@pytest.mark.parametrize("shape_a, shape_b", [((5, 2, 3), (5, 1, 4)), ((5, 2, 3), (4, 3, 2)),
                                              ((3,), (4, 5)), ((2, 3), (4,))])  # fmt: skip
def test_matmul_errors_are_torchs(shape_a, shape_b):
    with pytest.raises(RuntimeError) as expected:
        torch.ones(shape_a) @ torch.ones(shape_b)
    assert L.matmul_shape(shape_a, shape_b) == (None, str(expected.value))


# --- exercise 1: shapes ------------------------------------------------------------------------


def _torch_shapes():
    shapes = []
    for shape_a, shape_b in L.SHAPE_PAIRS:
        try:
            shapes.append(torch.matmul(torch.zeros(shape_a), torch.zeros(shape_b)).shape)
        except RuntimeError:
            shapes.append(None)
    return shapes


def test_shapes_right_as_torch_says():
    shapes = _torch_shapes()
    assert shapes[-1] is None and all(s is not None for s in shapes[:-1])
    assert check("17.shapes", tuple(shapes)).correct  # torch.Size entries
    assert check("17.shapes", [tuple(s) if s else None for s in shapes]).correct
    assert check("17.shapes", [list(s) if s else "error" for s in shapes]).correct
    assert check("17.shapes", (4, (5, 2), (7, 4, 2, 5), (6, 2, 4), None)).correct  # (4) for (4,)


def _with(index, value):
    shapes = [tuple(s) if s else None for s in _torch_shapes()]
    shapes[index] = value
    return tuple(shapes)


@pytest.mark.parametrize("answer, says", [
    (_with(0, (1, 4)), ["pair 1", "1×3 row", "removed"]),
    (_with(1, (5, 2, 1)), ["pair 2", "3×1 column", "removed"]),
    (_with(2, (7, 1, 2, 5)), ["pair 3", "batch dims are wrong", "(7, 1) and (4,)"]),
    (_with(2, (7, 4, 3, 5)), ["pair 3", "last dims", "rows of the first"]),
    (_with(3, (2, 4)), ["pair 4", "batch dims are wrong", "none and (6,)"]),
    (_with(4, (5, 2, 4)), ["pair 5", "raises", "never broadcast", "[5, 3] but got: [5, 1]"]),
    (_with(2, None), ["pair 3", "works", "(3 and 3)"]),
    (_with(1, "(5, 2)"), ["entry 2", "tuple of ints"]),
    (_with(1, 5.0), ["entry 2", "tuple of ints"]),
    (((4,), (5, 2)), ["tuple of 5 entries"]),
    ("(4,)", ["tuple of 5 entries"]),
])  # fmt: skip
def test_shapes_wrong(answer, says):
    assert_wrong("17.shapes", answer, *says)


def test_shapes_explains_the_first_mistake_only():
    answer = ((1, 4), (5, 2), (7, 1, 2, 5), (2, 4), (5, 2, 4))
    message = assert_wrong("17.shapes", answer, "pair 1")
    assert "pair 3" not in message and "pair 5" not in message
    assert "(7, 4, 2, 5)" not in message and "(6, 2, 4)" not in message


# --- exercise 2: the product node ----------------------------------------------------------------


def _torch_product_nodes():
    torch.manual_seed(0)

    def r(*shape):
        return torch.randn(*shape, requires_grad=True)

    results = [r(3) @ r(3, 4), r(5, 2, 3) @ r(3, 4), r(5, 2, 3) @ r(5, 3, 4), r(5, 2, 3) @ r(3)]
    products = ("DotBackward0", "MvBackward0", "MmBackward0", "BmmBackward0")
    return tuple(next(n for n in L.graph_names(t) if n in products) for t in results)


def test_product_node_right_as_torch_says():
    names = _torch_product_nodes()
    assert names == ("MmBackward0", "MmBackward0", "BmmBackward0", "MvBackward0")
    assert check("17.product_node", names).correct
    assert check("17.product_node", ["mm", "Mm", "BMM", "MvBackward"]).correct


@pytest.mark.parametrize("answer, says", [
    (("DotBackward0", "MmBackward0", "BmmBackward0", "MvBackward0"), ["a:", "1×3 row"]),
    (("MmBackward0", "BmmBackward0", "BmmBackward0", "MvBackward0"), ["b:", "folds"]),
    (("MmBackward0", "MmBackward0", "MmBackward0", "MvBackward0"), ["c:", "calls bmm"]),
    (("MmBackward0", "MmBackward0", "BmmBackward0", "MmBackward0"), ["d:", "with mv"]),
    (("MatmulBackward0", "MmBackward0", "BmmBackward0", "MvBackward0"), ["a:", "is not one of"]),
    (("MmBackward0", 2, "BmmBackward0", "MvBackward0"), ["b is 2", "as a string"]),
    (("MmBackward0",), ["tuple of four"]),
])  # fmt: skip
def test_product_node_wrong(answer, says):
    assert_wrong("17.product_node", answer, *says)


# --- exercise 3: dA -------------------------------------------------------------------------------


def _torch_autograd_grad_a(grad_c, a, b):
    """dA as torch's autograd computes it for the same numbers (a torch tensor)."""
    ta = torch.tensor(a.tolist(), dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b.tolist(), dtype=torch.float64)
    (ta @ tb).backward(torch.tensor(grad_c.tolist(), dtype=torch.float64))
    return ta.grad


@pytest.mark.parametrize("grad_a", [
    lambda g, a, b: g @ b.T,
    lambda g, a, b: g.mm(b.t()),
    lambda g, a, b: vg.einsum("ij,kj->ik", g, b),
    lambda g, a, b: (b @ g.T).T,
    _torch_autograd_grad_a,
])  # fmt: skip
def test_grad_a_right(grad_a):
    assert check("17.grad_A", grad_a).correct


@pytest.mark.parametrize("grad_a, says", [
    (lambda g, a, b: a.T @ g, ["that is dB"]),
    (lambda g, a, b: (g @ b.T).T, ["dA transposed"]),
    (lambda g, a, b: g @ b, ["raised RuntimeError", "mat1 and mat2 shapes", "2×3 like A"]),
    (lambda g, a, b: 2 * (g @ b.T), ["values are not"]),
    (lambda g, a, b: g.sum() * vg.ones(2, 2), ["shape (2, 2)", "its tensor's shape"]),
    (lambda g, a, b: None, ["returned a NoneType"]),
    ("g @ B.T", ["the function itself"]),
])  # fmt: skip
def test_grad_a_wrong(grad_a, says):
    assert_wrong("17.grad_A", grad_a, *says)


def test_grad_a_catches_an_answer_that_fits_one_size_only():
    # Right for the first set of sizes only: the second set (4, 2, 3) must catch it.
    def first_sizes_only(g, a, b):
        return g @ b.T if a.shape[0] == 2 else vg.zeros(a.shape)

    assert_wrong("17.grad_A", first_sizes_only, "values are not")


# --- exercise 4: einsum for attention scores ----------------------------------------------------


def _torch_scores_ok(equation):
    """Does torch's einsum with this equation give Q @ K.mT on the lesson's operands?"""
    q, k = (torch.tensor(t.tolist()) for t in L.scores_operands())
    try:
        result = torch.einsum(equation, q, k)
    except RuntimeError:
        return False
    expected = q @ k.mT
    return result.shape == expected.shape and torch.allclose(result, expected, atol=1e-5)


@pytest.mark.parametrize("equation", ["bid,bjd->bij", "bqd,bkd->bqk", "...qd,...kd->...qk",
                                      " bid , bjd -> bij ", "bij,bkj->bik"])  # fmt: skip
def test_einsum_scores_right_as_torch_says(equation):
    assert _torch_scores_ok(equation)
    assert check("17.einsum_scores", equation).correct


@pytest.mark.parametrize("equation, says", [
    ("bid,bjd->bji", ["keys before queries", "(batch, query, key)"]),
    ("bid,bjd", ["without ->", "alphabetical"]),
    ("bqd,bkd", ["without ->", "alphabetical"]),
    ("bid,bjd->bid", ["shape (2, 3, 4)", "letters after ->"]),
    ("bid,bje->bij", ["values are not", "different letter"]),
    ("bij,bjk->bik", ["einsum raised", "subscript j has size 5", "same letter"]),
    ("bid->bi", ["einsum raised", "more operands"]),
    (42, ["as a string"]),
])  # fmt: skip
def test_einsum_scores_wrong(equation, says):
    if isinstance(equation, str):
        assert not _torch_scores_ok(equation)
    assert_wrong("17.einsum_scores", equation, *says)


# --- exercise 5: the gradient of a broadcast batch -------------------------------------------


def _torch_broadcast_grads():
    a = torch.ones(L.BROADCAST_SHAPES["A"], requires_grad=True)
    b = torch.ones(L.BROADCAST_SHAPES["B"], requires_grad=True)
    (a @ b).sum().backward()
    return a.grad, b.grad


def test_broadcast_grad_right_as_torch_says():
    _, b_grad = _torch_broadcast_grads()
    assert check("17.broadcast_grad", (b_grad.shape, b_grad[0, 0, 0].item())).correct
    assert check("17.broadcast_grad", [list(b_grad.shape), b_grad[0, 0, 0]]).correct
    assert check("17.broadcast_grad", ((4, 3, 5), 12)).correct


@pytest.mark.parametrize("answer, says", [
    (((6, 4, 3, 5), 12.0), ["expanded", "ExpandBackward0", "sums"]),
    (((6, 1, 3, 5), 12.0), ["not (6, 1, 3, 5)", "shape of its tensor"]),
    (((4, 3, 5), 2.0), ["one batch of A", "all 6", "adds"]),
    (((4, 3, 5), 6.0), ["counts the 6 batches", "A's rows"]),
    (((4, 3, 5), 20.0), ["A.grad"]),
    (((4, 3, 5), 7.0), ["not 7"]),
    (("(4, 3, 5)", 12.0), ["tuple of ints"]),
    (((4, 3, 5), "12"), ["one number"]),
    (((4, 3, 5), [12.0, 12.0]), ["one number"]),
    (((4, 3, 5),), ["tuple of two"]),
])  # fmt: skip
def test_broadcast_grad_wrong(answer, says):
    assert_wrong("17.broadcast_grad", answer, *says)


def test_broadcast_grad_distractors_are_torchs_numbers():
    a_grad, b_grad = _torch_broadcast_grads()
    assert a_grad[0, 0, 0, 0].item() == 20.0  # the "that is A.grad" distractor
    assert b_grad[0, 0, 0].item() == 6 * 2  # 6 batches of A, 2 rows each

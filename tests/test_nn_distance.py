"""F.normalize, F.cosine_similarity, F.pairwise_distance and the CosineSimilarity and
PairwiseDistance modules against PyTorch: values, broadcasting, gradients (torch and
finite differences), the graph torch records, errors and reprs."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from grad_oracle import check_gradients
from oracle import assert_same, assert_same_outcome, make_pair

import vizgrad as vg
import vizgrad.nn.functional as F


def names(node) -> list:
    """The node names of a graph, depth first, AccumulateGrad and absent edges included."""
    if node is None:
        return [None]
    name = node.name() if callable(getattr(node, "name", None)) else type(node).__name__
    name = "AccumulateGrad" if "AccumulateGrad" in name else name
    return [name, [names(child) for child, _ in node.next_functions]]


def _same_everything(v_fn, t_fn, shapes, *, layouts=None, dtype="float64", graph=True):
    layouts = layouts or ["contiguous"] * len(shapes)
    pairs = [make_pair(s, dtype, lay, seed=i)
             for i, (s, lay) in enumerate(zip(shapes, layouts, strict=True))]  # fmt: skip
    v_in = [v.detach().requires_grad_() for v, _ in pairs]
    t_in = [t.detach().requires_grad_() for _, t in pairs]
    v_out, t_out = v_fn(*v_in), t_fn(*t_in)
    assert_same(v_out.detach(), t_out.detach())
    if graph:
        assert names(v_out.grad_fn) == names(t_out.grad_fn)
    upstream = np.random.default_rng(7).standard_normal(tuple(t_out.shape))
    v_out.backward(vg.tensor(upstream, dtype=v_out.dtype))
    t_out.backward(torch.tensor(upstream, dtype=t_out.dtype))
    for v, t in zip(v_in, t_in, strict=True):
        assert_same(v.grad, t.grad)


# --- cosine_similarity ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "shapes, dim",
    [([(3, 4), (3, 4)], 1), ([(3, 4), (4,)], 1), ([(3, 4), (4,)], -1), ([(2, 3, 4), (2, 1, 4)], 2),
     ([(5,), (5,)], 0), ([(3, 4), (3, 4)], 0), ([(0, 4), (0, 4)], 1), ([(3, 1), (1, 4)], 0)],
)  # fmt: skip
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_cosine_similarity_matches_torch(shapes, dim, layout):
    _same_everything(lambda a, b: F.cosine_similarity(a, b, dim),
                     lambda a, b: TF.cosine_similarity(a, b, dim), shapes,
                     layouts=[layout, "contiguous"])  # fmt: skip


def test_cosine_similarity_passes_finite_differences():
    check_gradients(F.cosine_similarity, TF.cosine_similarity, [(3, 4), (3, 4)],
                    grad_fn_name="SumBackward1")  # fmt: skip
    check_gradients(lambda a, b: F.cosine_similarity(a, b, 0, 1e-3),
                    lambda a, b: TF.cosine_similarity(a, b, 0, 1e-3), [(4, 2), (4, 1)])  # fmt: skip


@pytest.mark.parametrize(
    "call",
    ["F.cosine_similarity(lib.zeros(2, 3), lib.zeros(2, 3))",
     "F.cosine_similarity(lib.ones(2, 3) * 1e-10, lib.ones(2, 3), eps=1e-8)",
     "F.cosine_similarity(lib.tensor([[1, 2]]), lib.tensor([[1., 2]]))",
     "F.cosine_similarity(lib.tensor([[1, 2]]), lib.tensor([[True, False]], dtype=lib.float64))",
     "F.cosine_similarity(lib.ones(2, 3, dtype=lib.float64), lib.ones(2, 3))",
     "F.cosine_similarity(lib.ones(2, 3, dtype=lib.float16), lib.ones(2, 3, dtype=lib.float16))",
     "F.cosine_similarity(lib.tensor([[1, 2]]), lib.tensor([[1, 2]]))",
     "F.cosine_similarity(lib.ones(2, 3), lib.ones(2, 4))",
     "F.cosine_similarity(lib.ones(3), lib.ones(3))",
     "F.cosine_similarity(lib.ones(3), lib.ones(3), dim=0, eps='a')",
     "F.cosine_similarity(lib.ones(2, 3, dtype=lib.complex64), lib.ones(2, 3))"],
)  # fmt: skip
def test_cosine_similarity_edge_cases_and_errors_match_torch(call):
    assert_same_outcome(lambda: eval(call, {"F": F, "lib": vg}),
                        lambda: eval(call, {"F": TF, "lib": torch}))  # fmt: skip


# --- pairwise_distance ----------------------------------------------------------------------


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 0.5, math.inf, 0.0])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shapes", [[(3, 4), (3, 4)], [(3, 4), (4,)], [(4,), (4,)],
                                    [(2, 3, 4), (3, 4)], [(0, 4), (0, 4)], [(), ()]])  # fmt: skip
def test_pairwise_distance_matches_torch(shapes, p, keepdim):
    def run(functional):
        return lambda a, b: functional.pairwise_distance(a, b, p, 1e-6, keepdim)

    if p == 0:
        # The 0-"norm" counts non-zeros and has no gradient: PyTorch's backward passes an
        # undefined gradient down the graph, which vizgrad's engine does not (a formula
        # after it receives None), so only the values are compared.
        pairs = [make_pair(s, "float64", seed=i) for i, s in enumerate(shapes)]
        assert_same(run(F)(*(v for v, _ in pairs)), run(TF)(*(t for _, t in pairs)))
        return
    # vizgrad has no add.Scalar overload: x1 - x2 + eps records AddBackward0 where
    # PyTorch's C++ records AddBackward1. The node on top is NormBackward1 in both.
    _same_everything(run(F), run(TF), shapes, graph=False)
    v_out = run(F)(*(vg.ones(s, requires_grad=True) for s in shapes))
    assert v_out.grad_fn.name() == "NormBackward1"
    assert v_out.grad_fn.next_functions[0][0].next_functions[0][0].name() == "SubBackward0"


def test_pairwise_distance_passes_finite_differences():
    for p in (1.5, 2.0, 3.0):
        check_gradients(lambda a, b, p=p: F.pairwise_distance(a, b, p),
                        lambda a, b, p=p: TF.pairwise_distance(a, b, p), [(3, 4), (3, 4)],
                        grad_fn_name="NormBackward1")  # fmt: skip


@pytest.mark.parametrize(
    "call",
    ["F.pairwise_distance(lib.tensor([[1, 2]]), lib.tensor([[3, 4]]))",
     "F.pairwise_distance(lib.ones(2, 3), lib.ones(2, 3))",
     "F.pairwise_distance(lib.ones(2, 3), lib.ones(2, 4))",
     "F.pairwise_distance(lib.ones(2, 3, dtype=lib.float64), lib.ones(3))",
     "F.pairwise_distance(lib.ones(2, 3), lib.ones(2, 3), eps=0.0)",
     "F.pairwise_distance(lib.ones(2, 3), lib.ones(2, 3), p='a')",
     "lib.pairwise_distance(lib.ones(2, 3), lib.ones(2, 3), 2, 1e-6, True)"],
)  # fmt: skip
def test_pairwise_distance_edge_cases_and_errors_match_torch(call):
    assert_same_outcome(lambda: eval(call, {"F": F, "lib": vg}),
                        lambda: eval(call, {"F": TF, "lib": torch}))  # fmt: skip


def test_zero_distance_has_a_finite_gradient_thanks_to_eps():
    for lib, functional in ((vg, F), (torch, TF)):
        x = lib.ones(2, 3, requires_grad=True)
        functional.pairwise_distance(x, lib.ones(2, 3)).sum().backward()
        assert np.all(np.isfinite(x.grad.numpy()))


# --- normalize ------------------------------------------------------------------------------


@pytest.mark.parametrize("p, dim", [(2.0, 1), (1.0, 0), (3.0, -1), (math.inf, 1), (2.0, 2)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_normalize_matches_torch(p, dim, layout):
    _same_everything(lambda x: F.normalize(x, p, dim), lambda x: TF.normalize(x, p, dim),
                     [(2, 3, 4)], layouts=[layout])  # fmt: skip


def test_normalize_passes_finite_differences_and_clamps_zero_vectors():
    check_gradients(F.normalize, TF.normalize, [(3, 4)], grad_fn_name="DivBackward0")
    assert_same(F.normalize(vg.zeros(2, 3)), TF.normalize(torch.zeros(2, 3)))
    assert_same(F.normalize(vg.ones(3), dim=0), TF.normalize(torch.ones(3), dim=0))


def test_normalize_out_writes_like_torch():
    (x, tx) = make_pair((3, 4), "float32", seed=2)
    out, t_out = vg.empty(0), torch.empty(0)
    assert_same(F.normalize(x, out=out), TF.normalize(tx, out=t_out))
    assert_same(out, t_out)


@pytest.mark.parametrize(
    "call",
    ["F.normalize(lib.tensor([[1, 2]]))", "F.normalize(lib.ones(3))",
     "F.normalize(lib.ones(2, 3), dim=2)", "F.normalize(lib.zeros(0, 3))",
     "F.normalize(lib.ones(2, 3, requires_grad=True), out=lib.empty(2, 3))"],
)  # fmt: skip
def test_normalize_edge_cases_and_errors_match_torch(call):
    assert_same_outcome(lambda: eval(call, {"F": F, "lib": vg}),
                        lambda: eval(call, {"F": TF, "lib": torch}))  # fmt: skip


# --- modules --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr, call",
    [("CosineSimilarity()", "m(a, b)"), ("CosineSimilarity(dim=0, eps=0.1)", "m(a, b)"),
     ("PairwiseDistance()", "m(a, b)"), ("PairwiseDistance(p=1.0, keepdim=True)", "m(a, b)"),
     ("PairwiseDistance(3, 1e-3)", "m(a, b)")],
)  # fmt: skip
def test_distance_modules_print_and_compute_as_torch(expr, call):
    v_module, t_module = eval("vg.nn." + expr), eval("torch.nn." + expr)
    assert repr(v_module) == repr(t_module)
    assert list(v_module.parameters()) == []
    (a, ta), (b, tb) = make_pair((3, 4), "float64", seed=1), make_pair((3, 4), "float64", seed=2)
    assert_same(eval(call, {"m": v_module, "a": a, "b": b}),
                eval(call, {"m": t_module, "a": ta, "b": tb}))  # fmt: skip

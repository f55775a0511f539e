"""Special functions against PyTorch: ``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``,
``erfc``, ``erfinv``, ``logit``, ``sinc``, ``i0``, ``igamma``/``igammac``, and the
``vizgrad.special`` namespace (``special.expit``, ``special.gammaln``, ``special.zeta``…)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients, leaf_pair
from oracle import DTYPES, LAYOUTS, assert_same, assert_same_error
from test_pointwise_math import pair, same_outcome, values
from torch_doc_examples import assert_same_outcome as same_documented_outcome
from torch_doc_examples import examples, run_both

import vizgrad as vg

# name -> (call taking the library and the input, range of random inputs)
UNARY = {
    "lgamma": (lambda lib, x: lib.lgamma(x), (-6, 6)),
    "digamma": (lambda lib, x: lib.digamma(x), (-6, 6)),
    "polygamma0": (lambda lib, x: lib.polygamma(0, x), (-6, 6)),
    "polygamma1": (lambda lib, x: lib.polygamma(1, x), (-6, 6)),
    "polygamma2": (lambda lib, x: lib.polygamma(2, x), (-6, 6)),
    "polygamma5": (lambda lib, x: lib.polygamma(5, x), (0.5, 6)),
    "mvlgamma": (lambda lib, x: lib.mvlgamma(x, 3), (1.5, 6)),
    "erfc": (lambda lib, x: lib.erfc(x), (-4, 4)),
    "erfinv": (lambda lib, x: lib.erfinv(x), (-1, 1)),
    "logit": (lambda lib, x: lib.logit(x), (0, 1)),
    "logit_eps": (lambda lib, x: lib.logit(x, 0.25), (-0.5, 1.5)),
    "sinc": (lambda lib, x: lib.sinc(x), (-4, 4)),
    "i0": (lambda lib, x: lib.i0(x), (-10, 10)),
}  # fmt: skip
SPECIAL_UNARY = {
    "expit": (-5, 5), "logit": (0, 1), "erf": (-3, 3), "erfc": (-3, 3), "erfinv": (-1, 1),
    "gammaln": (-6, 6), "digamma": (-6, 6), "psi": (-6, 6), "i0": (-10, 10), "sinc": (-4, 4),
    "entr": (-1, 3), "expm1": (-3, 3), "exp2": (-3, 3), "log1p": (-0.9, 3), "round": (-5, 5),
    "ndtr": (-5, 5), "ndtri": (0, 1), "log_ndtr": (-10, 10), "i0e": (-10, 10),
    "i1": (-10, 10), "i1e": (-10, 10), "erfcx": (-3, 10),
}  # fmt: skip
for _name, _bounds in SPECIAL_UNARY.items():
    UNARY[f"special.{_name}"] = (lambda lib, x, n=_name: getattr(lib.special, n)(x), _bounds)
UNARY["special.polygamma"] = (lambda lib, x: lib.special.polygamma(3, x), (0.5, 6))
UNARY["special.multigammaln"] = (lambda lib, x: lib.special.multigammaln(x, 2), (1, 6))
UNARY["special.round_decimals"] = (lambda lib, x: lib.special.round(x, decimals=1), (-5, 5))
UNARY["special.softmax"] = (lambda lib, x: lib.special.softmax(x, 0), (-5, 5))
UNARY["special.log_softmax"] = (lambda lib, x: lib.special.log_softmax(x, -1), (-5, 5))
UNARY["special.logsumexp"] = (lambda lib, x: lib.special.logsumexp(x, (0,)), (-5, 5))
# ``logsumexp`` itself (reductions.py, which special.logsumexp calls) gives some complex
# sums an imaginary part 2π away from PyTorch's: a known gap of that operator.
KNOWN_GAPS = {("special.logsumexp", "complex64"), ("special.logsumexp", "complex128")}

# name -> (call taking the library and two inputs, ranges of the two inputs)
BINARY = {
    "igamma": (lambda lib, a, x: lib.igamma(a, x), ((0, 5), (0, 8))),
    "igammac": (lambda lib, a, x: lib.igammac(a, x), ((0, 5), (0, 8))),
    "special.gammainc": (lambda lib, a, x: lib.special.gammainc(a, x), ((0, 5), (0, 8))),
    "special.gammaincc": (lambda lib, a, x: lib.special.gammaincc(a, x), ((0, 5), (0, 8))),
    "special.xlogy": (lambda lib, a, x: lib.special.xlogy(a, x), ((-2, 2), (0, 3))),
    "special.xlog1py": (lambda lib, a, x: lib.special.xlog1py(a, x), ((-2, 2), (-1, 3))),
    "special.zeta": (lambda lib, a, x: lib.special.zeta(a, x), ((1, 6), (-3, 5))),
}  # fmt: skip
SPECIAL_VALUES = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, -2.5, 1e-8, 1e-30, 1e30, 30.0,
                  math.inf, -math.inf, math.nan, 0.9999999, 1.0000001]  # fmt: skip
SHAPES = [(), (0,), (4,), (2, 0, 3), (2, 3, 4)]


def tolerance(dtype):
    """float16 results are float32 ones rounded once: one half-precision step apart at most."""
    return {"rtol": 2e-3, "atol": 2e-3} if dtype == "float16" else {}


# --- values --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, dtype",
    [pytest.param(name, dtype, marks=[pytest.mark.xfail(strict=True)] * ((name, dtype) in KNOWN_GAPS))
     for name in UNARY for dtype in DTYPES],
)  # fmt: skip
def test_unary_dtypes(name, dtype):
    call, bounds = UNARY[name]
    v, t = pair((3, 4), dtype, bounds)
    same_outcome(lambda: call(vg, v), lambda: call(torch, t), **tolerance(dtype))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_layouts_and_shapes(name, layout, shape):
    call, bounds = UNARY[name]
    v, t = pair(shape, "float64", bounds, layout, seed=1)
    same_outcome(lambda: call(vg, v), lambda: call(torch, t))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_special_values(name, dtype):
    call, _ = UNARY[name]
    v, t = values(dtype, SPECIAL_VALUES)
    same_outcome(lambda: call(vg, v), lambda: call(torch, t), **tolerance(dtype))


SWEPT = ["lgamma", "digamma", "polygamma1", "polygamma2", "polygamma5", "erfc", "erfinv",
         "sinc", "i0", "special.i0e", "special.i1", "special.i1e", "special.ndtri",
         "special.log_ndtr", "special.erfcx", "special.entr", "special.ndtr"]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", SWEPT)
def test_dense_sweep_matches_torchs_precision(name, dtype):
    """Thousands of points, including near the poles of the gamma family and the roots
    of digamma, agree to a few units in the last place: float32 values are computed as
    PyTorch computes them (in float32 where it does), not just approximately."""
    call, (low, high) = UNARY[name]
    grid = np.linspace(low, high, 4001)
    grid = np.concatenate([grid, np.linspace(1.4, 1.5, 200), np.linspace(-3.5, -2.5, 200)])
    v, t = values(dtype, grid)
    rtol = 4e-6 if dtype == "float32" else 1e-12
    # ndtr is 1 + erf(...) halved: near 0 it keeps erf's rounding error near -1, whose
    # float32 PyTorch computes with its own vectorized approximation.
    atol = 1.2e-7 if (name, dtype) == ("special.ndtr", "float32") else 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = call(torch, t)
    actual = call(vg, v)
    # Relative agreement, and absolute agreement around a function's roots.
    finite = expected.numpy()[np.isfinite(expected.numpy())]
    atol = max(atol, rtol * np.abs(finite).max() / 1e3)
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=rtol, atol=atol,
                               equal_nan=True)  # fmt: skip


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float64"),
                                    ("float16", "float16"), ("int64", "float32"),
                                    ("int32", "int64"), ("bool", "float64"),
                                    ("complex64", "complex64"), ("float32", "float64")],
                         ids=repr)  # fmt: skip
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_dtypes(name, dtypes):
    call, bounds = BINARY[name]
    (a, ta), (x, tx) = (
        pair((3, 4), d, b, seed=i) for i, (d, b) in enumerate(zip(dtypes, bounds, strict=True))
    )
    same_outcome(lambda: call(vg, a, x), lambda: call(torch, ta, tx), **tolerance(dtypes[0]))


@pytest.mark.parametrize("shapes", [((2, 1, 4), (3, 1)), ((), (2, 3)), ((0, 3), (1, 3))],
                         ids=repr)  # fmt: skip
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_layouts(name, layout, shapes):
    call, bounds = BINARY[name]
    (a, ta), (x, tx) = (pair(s, "float64", b, lay, seed=i)
                        for i, (s, b, lay) in enumerate(zip(shapes, bounds, (layout, "offset"), strict=True)))  # fmt: skip
    same_outcome(lambda: call(vg, a, x), lambda: call(torch, ta, tx))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_special_values(name, dtype):
    call, _ = BINARY[name]
    grid = np.meshgrid(SPECIAL_VALUES, SPECIAL_VALUES)
    (a, ta), (x, tx) = values(dtype, grid[0]), values(dtype, grid[1])
    close = INCOMPLETE_GAMMA.get(name, {}) if dtype == "float64" else {}
    same_outcome(lambda: call(vg, a, x), lambda: call(torch, ta, tx), **close)


# ATen's incomplete gamma still takes Cephes's asymptotic series where a and x are large
# and close (igamma(30, 30)); SciPy's (whose values vizgrad uses) is Boost's: they agree
# to about 2e-9, relatively, in double.
INCOMPLETE_GAMMA = dict.fromkeys(
    ["igamma", "igammac", "special.gammainc", "special.gammaincc"], {"rtol": 1e-8, "atol": 1e-10}
)


@pytest.mark.parametrize(
    "call",
    ["lib.special.xlogy(2, x)", "lib.special.xlogy(x, 3)", "lib.special.xlog1py(0, x)",
     "lib.special.xlog1py(x, -1)", "lib.special.xlog1py(2, i)", "lib.special.zeta(2, x)",
     "lib.special.zeta(x + 2, 1)", "lib.special.zeta(3, i)", "lib.special.zeta(x, 0.5)",
     "lib.special.xlog1py(x, 2, out=x.clone())", "lib.special.zeta(2, x, out=x.double())",
     "lib.special.xlogy(1.5, x, out=x.clone())", "lib.special.xlog1py(i, 2)",
     "x.abs().igamma_(x.abs() + 1)", "x.abs().igammac_(x.abs() + 1)", "x.abs().igamma(x)",
     "lib.igammac(x.abs(), x.abs(), out=x.clone())", "i.clone().igamma_(x)",
     "x.abs().igamma(x.abs().double())", "x.abs().clone().igamma_(x.abs().double())"],
)  # fmt: skip
def test_number_operands(call):
    def run(lib):
        env = {"lib": lib, "x": lib.tensor([-2.0, -0.0, 0.5, 3.0]), "i": lib.tensor([-2, 0, 1, 3])}
        return eval(call, env)

    same_outcome(lambda: run(vg), lambda: run(torch))


@pytest.mark.parametrize(
    "name", ["lgamma", "digamma", "erfc", "erfinv", "logit", "sinc", "i0", "polygamma", "mvlgamma"]
)
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
def test_inplace(name, dtype, layout):
    """``x.lgamma_()`` (and ``torch.erfc_(x)``…): in place, or torch's error."""
    v, t = pair((3, 4), dtype, (1.1, 3) if name == "mvlgamma" else (0.05, 0.95), layout)
    arguments = {"polygamma": (2,), "mvlgamma": (2,)}.get(name, ())

    def run(lib, x, function):
        x = x.clone() if layout != "expanded" else x
        if function:
            result = getattr(lib, name + "_")(x, *arguments)
        else:
            result = getattr(x, name + "_")(*arguments)
        assert result is x
        return x

    same_outcome(lambda: run(vg, v, False), lambda: run(torch, t, False))
    if hasattr(torch, name + "_"):
        same_outcome(lambda: run(vg, v, True), lambda: run(torch, t, True))


OUT_CALLS = {
    "lgamma": lambda lib, x, out: lib.lgamma(x, out=out),
    "digamma": lambda lib, x, out: lib.digamma(x, out=out),
    "polygamma": lambda lib, x, out: lib.polygamma(3, x, out=out),
    "mvlgamma": lambda lib, x, out: lib.mvlgamma(x + 2, 2, out=out),
    "erfc": lambda lib, x, out: lib.erfc(x, out=out),
    "erfinv": lambda lib, x, out: lib.erfinv(x, out=out),
    "logit": lambda lib, x, out: lib.logit(x, 0.1, out=out),
    "sinc": lambda lib, x, out: lib.sinc(x, out=out),
    "i0": lambda lib, x, out: lib.i0(x, out=out),
    "igamma": lambda lib, x, out: lib.igamma(x, x, out=out),
    "special.expit": lambda lib, x, out: lib.special.expit(x, out=out),
    "special.round": lambda lib, x, out: lib.special.round(x, decimals=1, out=out),
    "special.polygamma": lambda lib, x, out: lib.special.polygamma(2, x, out=out),
    "special.ndtr": lambda lib, x, out: lib.special.ndtr(x, out=out),
    "special.ndtri": lambda lib, x, out: lib.special.ndtri(x, out=out),
    "special.entr": lambda lib, x, out: lib.special.entr(x, out=out),
    "special.i1e": lambda lib, x, out: lib.special.i1e(x, out=out),
    "special.logsumexp": lambda lib, x, out: lib.special.logsumexp(x, 0, out=out),
    "special.multigammaln": lambda lib, x, out: lib.special.multigammaln(x + 2, 2, out=out),
    "special.gammaincc": lambda lib, x, out: lib.special.gammaincc(x, x, out=out),
}  # fmt: skip


@pytest.mark.parametrize("out_dtype", ["int64", "float32", "float64"])
@pytest.mark.parametrize("out_shape", [(0,), (2, 3), (5,)], ids=repr)
@pytest.mark.parametrize("in_dtype", ["int32", "float32"])
@pytest.mark.parametrize("name", list(OUT_CALLS))
def test_out(name, in_dtype, out_shape, out_dtype):
    v, t = pair((2, 3), in_dtype, (0.1, 0.9))

    def run(lib, x):
        out = lib.zeros(out_shape, dtype=getattr(lib, out_dtype))
        assert OUT_CALLS[name](lib, x, out) is out
        return out

    # (float32 values written to a float64 out= keep float32's precision)
    same_outcome(lambda: run(vg, v), lambda: run(torch, t), rtol=1e-6, atol=1e-6)


def test_polygamma_argument_order():
    """``polygamma(n, input)`` but ``input.polygamma(n)`` and ``input.polygamma_(n)``."""
    v, t = pair((5,), "float64", (0.5, 4))
    assert_same(v.polygamma(2), t.polygamma(2))
    assert_same(vg.polygamma(2, v), torch.polygamma(2, t))
    assert_same(vg.polygamma(n=1, input=v), torch.polygamma(n=1, input=t))
    assert_same(v.clone().polygamma_(3), t.clone().polygamma_(3))


# --- torch.special's names -------------------------------------------------------------------


def test_special_namespace_has_torchs_everyday_names():
    everyday = ["expit", "logit", "erf", "erfc", "erfinv", "xlogy", "log_softmax", "softmax",
                "logsumexp", "gammaln", "digamma", "psi", "i0", "sinc", "entr", "expm1", "exp2",
                "log1p", "round", "ndtr", "ndtri", "log_ndtr", "i0e", "i1", "i1e", "xlog1py",
                "multigammaln", "polygamma", "erfcx", "zeta", "gammainc", "gammaincc"]  # fmt: skip
    for name in everyday:
        assert name in torch.special.__all__ and name in vg.special.__all__
        assert callable(getattr(vg.special, name))
    assert not hasattr(vg, "special_expit") and not hasattr(vg.Tensor, "special_expit")


@pytest.mark.parametrize(
    "name, inner",
    [("expit", "aten::sigmoid"), ("gammaln", "aten::lgamma"), ("psi", "aten::digamma"),
     ("erfinv", "aten::erfinv"), ("sinc", "aten::sinc"), ("log1p", "aten::log1p"),
     ("round", "aten::round.decimals"), ("i0", "aten::i0")],
)  # fmt: skip
def test_aliases_dispatch_under_their_aten_names(name, inner):
    """The dispatch trace names ``aten::special_expit``, which calls ``aten::sigmoid``."""
    x = vg.tensor([0.2, 0.7], requires_grad=True)
    with vg.dispatch_trace() as trace:
        y = getattr(vg.special, name)(x)
    assert trace.ops == [f"aten::special_{name}"]
    assert inner in [step.op for step in trace.steps if step.depth > 0]
    expected = type(
        getattr(torch.special, name)(torch.tensor([0.2, 0.7], requires_grad=True)).grad_fn
    )
    assert y.grad_fn.name() == expected.__name__


def test_ndtr_records_the_nodes_of_its_cpp_composite():
    """``special.ndtr`` is ``(1 + erf(x * M_SQRT1_2)) * 0.5`` with Scalar overloads:
    MulBackward1 <- AddBackward1 <- ErfBackward0 <- MulBackward1, as in PyTorch."""

    def chain(y):
        names = []
        node = y.grad_fn
        while node is not None and type(node).__name__ != "AccumulateGrad":
            names.append(type(node).__name__)
            node = node.next_functions[0][0]
        return names

    v, t = leaf_pair((3,))
    assert chain(vg.special.ndtr(v)) == chain(torch.special.ndtr(t))
    with vg.dispatch_trace() as trace:
        vg.special.ndtr(v)
    inner = [step.op for step in trace.steps if step.depth == 1 and step.key == "AutogradCPU"]
    assert inner == ["aten::mul.Scalar", "aten::erf", "aten::add.Scalar", "aten::mul.Scalar"]


# --- gradients ------------------------------------------------------------------------------

GRADIENTS = {
    # name: (vizgrad call, torch call, input shapes, value range)
    "lgamma": (vg.lgamma, torch.lgamma, [(2, 3)], (0.5, 4)),
    "digamma": (vg.digamma, torch.digamma, [(2, 3)], (0.5, 4)),
    "polygamma": (lambda x: vg.polygamma(2, x), lambda x: torch.polygamma(2, x), [(2, 3)], (0.5, 4)),
    "polygamma_method": (lambda x: x.polygamma(1), lambda x: x.polygamma(1), [(2, 3)], (0.5, 4)),
    "mvlgamma": (lambda x: vg.mvlgamma(x, 3), lambda x: torch.mvlgamma(x, 3), [(2, 3)], (1.5, 4)),
    "erfc": (vg.erfc, torch.erfc, [(2, 3)], (-2, 2)),
    "erfinv": (vg.erfinv, torch.erfinv, [(2, 3)], (-0.9, 0.9)),
    "logit": (vg.logit, torch.logit, [(2, 3)], (0.05, 0.95)),
    "logit_eps": (lambda x: vg.logit(x, 0.2), lambda x: torch.logit(x, 0.2), [(2, 3)], (0.25, 0.75)),
    "sinc": (vg.sinc, torch.sinc, [(2, 3)], (-2, 2)),
    "i0": (vg.i0, torch.i0, [(2, 3)], (-3, 3)),
    "igamma": (lambda x: vg.igamma(vg.full_like(x, 2.5), x),
               lambda x: torch.igamma(torch.full_like(x, 2.5), x), [(2, 3)], (0.5, 4)),
    "igammac": (lambda x: vg.igammac(vg.full_like(x, 1.5), x),
                lambda x: torch.igammac(torch.full_like(x, 1.5), x), [(2, 3)], (0.5, 4)),
    "special.entr": (vg.special.entr, torch.special.entr, [(2, 3)], (0.1, 3)),
    "special.ndtri": (vg.special.ndtri, torch.special.ndtri, [(2, 3)], (0.05, 0.95)),
    "special.log_ndtr": (vg.special.log_ndtr, torch.special.log_ndtr, [(2, 3)], (-4, 4)),
    "special.ndtr": (vg.special.ndtr, torch.special.ndtr, [(2, 3)], (-3, 3)),
    "special.erfcx": (vg.special.erfcx, torch.special.erfcx, [(2, 3)], (-2, 4)),
    "special.i0e": (vg.special.i0e, torch.special.i0e, [(2, 3)], (-3, 3)),
    "special.i1": (vg.special.i1, torch.special.i1, [(2, 3)], (-3, 3)),
    "special.i1e": (vg.special.i1e, torch.special.i1e, [(2, 3)], (-3, 3)),
    "special.expit": (vg.special.expit, torch.special.expit, [(2, 3)], (-3, 3)),
    "special.gammaln": (vg.special.gammaln, torch.special.gammaln, [(2, 3)], (0.5, 4)),
    "special.psi": (vg.special.psi, torch.special.psi, [(2, 3)], (0.5, 4)),
    "special.multigammaln": (lambda x: vg.special.multigammaln(x, 2),
                             lambda x: torch.special.multigammaln(x, 2), [(2, 3)], (1, 4)),
    "special.xlog1py": (vg.special.xlog1py, torch.special.xlog1py, [(2, 3), (3,)], (0.5, 3)),
    "special.xlog1py.self_scalar": (lambda y: vg.special.xlog1py(2.0, y),
                                    lambda y: torch.special.xlog1py(2.0, y), [(2, 3)], (0.5, 3)),
    "special.xlog1py.other_scalar": (lambda x: vg.special.xlog1py(x, 1.5),
                                     lambda x: torch.special.xlog1py(x, 1.5), [(2, 3)], (0.5, 3)),
    "special.xlogy": (vg.special.xlogy, torch.special.xlogy, [(2, 3), (3,)], (0.5, 3)),
    "special.zeta.self_scalar": (lambda q: vg.special.zeta(3.0, q),
                                 lambda q: torch.special.zeta(3.0, q), [(2, 3)], (0.5, 3)),
    "special.round": (vg.special.round, torch.special.round, [(2, 3)], (-3, 3)),
    "special.softmax": (lambda x: vg.special.softmax(x, 1), lambda x: torch.special.softmax(x, 1),
                        [(2, 3)], (-3, 3)),
}  # fmt: skip
NO_GRADCHECK = {"special.round"}  # a step function: finite differences see its jumps


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradients(name, layout):
    """The node's name, ``.grad`` against torch's, and gradcheck (float64)."""
    vg_fn, torch_fn, shapes, (low, high) = GRADIENTS[name]
    check_gradients(vg_fn, torch_fn, shapes, layouts=[layout] * len(shapes),
                    value_range={"low": low, "high": high},
                    gradcheck=name not in NO_GRADCHECK)  # fmt: skip


@pytest.mark.parametrize(
    "name", ["lgamma", "digamma", "polygamma", "mvlgamma", "erfinv", "logit", "logit_eps", "sinc",
             "i0", "special.i1", "special.i1e", "special.entr", "special.log_ndtr",
             "special.xlog1py", "igamma"],
)  # fmt: skip
def test_second_order(name):
    """Gradients of gradients, against torch's and against finite differences: the
    formulas are recorded with create_graph=True (``logit``'s then composes operators,
    ``infinitely_differentiable_logit_backward``, instead of its one backward operator)."""
    vg_fn, torch_fn, shapes, (low, high) = GRADIENTS[name]
    pairs = [leaf_pair(s, seed=i, low=low, high=high) for i, s in enumerate(shapes)]
    v_in, t_in = [p[0] for p in pairs], [p[1] for p in pairs]
    v_grads = vg.autograd.grad(vg_fn(*v_in).sum(), v_in, create_graph=True)
    t_grads = torch.autograd.grad(torch_fn(*t_in).sum(), t_in, create_graph=True)
    for v, t in zip(v_grads, t_grads, strict=True):
        assert_same(v, t, check_stride=False)
    v_second = vg.autograd.grad(sum(g.sum() for g in v_grads), v_in)
    t_second = torch.autograd.grad(sum(g.sum() for g in t_grads), t_in)
    for v, t in zip(v_second, t_second, strict=True):
        assert_same(v, t, check_stride=False, rtol=1e-6, atol=1e-8)
    fresh = [p[0].detach().requires_grad_() for p in pairs]
    assert vg.autograd.gradgradcheck(vg_fn, fresh)


def test_logit_gradient_outside_the_clamp():
    """With ``eps`` the input is clamped: no gradient where it was (0, not NaN); without,
    NaN outside [0, 1]. In a plain backward pass ``logit_backward`` computes it."""
    data = [-0.5, 0.0, 0.1, 0.5, 0.95, 1.0, 1.5]
    for eps in (None, 0.2, -0.1):  # (a negative eps is no eps, to logit_backward)
        v = vg.tensor(data, dtype=vg.float64, requires_grad=True)
        t = torch.tensor(data, dtype=torch.float64, requires_grad=True)
        with vg.dispatch_trace() as trace:
            vg.logit(v, eps).sum().backward()
        torch.logit(t, eps).sum().backward()
        assert_same(v.grad, t.grad)
        assert "aten::logit_backward" in [step.op for step in trace.steps]


def test_polygamma_inplace_records_its_own_node():
    v, t = leaf_pair((4,), low=0.5, high=3)
    vy, ty = v.clone().polygamma_(1), t.clone().polygamma_(1)
    assert vy.grad_fn.name() == type(ty.grad_fn).__name__ == "PolygammaBackward1"
    vy.sum().backward()
    ty.sum().backward()
    assert_same(v.grad, t.grad)


@pytest.mark.parametrize(
    "make",
    ["lib.special.zeta(x, x.detach())", "lib.special.zeta(x, 2.0)", "lib.igamma(x, x.detach())",
     "lib.igammac(x, x.detach())"],
)  # fmt: skip
def test_gradients_not_implemented_for_some_inputs(make):
    """zeta's and igamma's first argument: the node is recorded; its backward refuses."""

    def run(lib):
        x = lib.tensor([1.5, 2.5], dtype=lib.float64, requires_grad=True)
        y = eval(make, {"lib": lib, "x": x})
        assert y.grad_fn is not None
        y.sum().backward()

    assert_same_error(lambda: run(vg), lambda: run(torch))


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    ["lib.lgamma(c)", "lib.digamma(c)", "lib.polygamma(1, c)", "lib.polygamma(3, c)",
     "lib.polygamma(-1, x)", "lib.polygamma(1.5, x)", "lib.polygamma(x, 1)", "x.polygamma_(-2)",
     "lib.polygamma(1, x, x)", "lib.mvlgamma(x, 0)", "lib.mvlgamma(b, 2)", "lib.mvlgamma(c, 2)",
     "lib.mvlgamma(x)", "i.mvlgamma_(1)", "lib.mvlgamma(x, 2, out=i)", "lib.erfc(c)",
     "lib.erfinv(c)", "lib.logit(c)", "lib.logit(x, 'a')", "i.logit_()", "lib.sinc(x, x)",
     "lib.i0(c)", "lib.igamma(i, i)", "lib.igamma(x, 2)", "lib.igamma(c, c)",
     "lib.special.expit(1)", "lib.special.gammaln(x, x)", "lib.special.ndtri(h)",
     "lib.special.log_ndtr(h)", "lib.special.erfcx(h)", "lib.special.zeta(h, h)",
     "lib.special.zeta(c, c)", "lib.special.entr(c)", "lib.special.i1(c)",
     "lib.special.round(i)", "lib.special.round(x, 1)", "lib.special.multigammaln(b, 2)",
     "lib.special.multigammaln(x, 0)", "lib.special.polygamma(-1, x)", "lib.special.xlogy(c, c)",
     "lib.special.xlog1py(c, c)", "lib.special.softmax(x)", "lib.special.logsumexp(x)",
     "lib.special.log_softmax(x, 0, lib.float64)", "lib.special.expit(x, out=i)",
     "lib.special.ndtr(x, out=i)", "lib.special.zeta(x, x, out=i)"],
)  # fmt: skip
def test_bad_input_raises_torchs_errors(call):
    def run(lib):
        env = {"lib": lib, "x": lib.ones(3), "i": lib.ones(3, dtype=lib.int64),
               "c": lib.ones(3, dtype=lib.complex64), "b": lib.ones(3, dtype=lib.bool),
               "h": lib.ones(3, dtype=lib.float16)}  # fmt: skip
        return eval(call, env)

    assert_same_error(lambda: run(vg), lambda: run(torch))


@pytest.mark.parametrize("name", ["sinc", "special.sinc", "special.expit"])
def test_complex_gradients(name):
    """``sinc`` (and ``special.expit``, which is ``sigmoid``) have complex formulas."""
    z = np.array([0.3 + 0.4j, -1.2 + 0.5j, 2.0 - 0.7j, 0j])
    upstream = np.array([1 + 0.5j, -0.3 + 2j, 0.7 - 0.1j, 1 - 1j])

    def run(lib):
        a = lib.tensor(z, requires_grad=True)
        function = lib.special if name.startswith("special.") else lib
        result = getattr(function, name.rpartition(".")[2])(a)
        result.backward(lib.tensor(upstream))
        return type(result.grad_fn).__name__, result.detach(), a.grad

    (v_node, *v_values), (t_node, *t_values) = run(vg), run(torch)
    assert v_node == t_node
    for v, t in zip(v_values, t_values, strict=True):
        assert_same(v, t, check_stride=False)


@pytest.mark.parametrize("call", ["lib.lgamma(z)", "lib.special.entr(z)", "lib.logit(z)"])
def test_complex_inputs_are_refused_before_autograd(call):
    def run(lib):
        return eval(call, {"lib": lib, "z": lib.tensor([1 + 2j], requires_grad=True)})

    assert_same_error(lambda: run(vg), lambda: run(torch))


# --- PyTorch's documentation examples of the names tests/test_torch_doc_examples.py does not list

MORE_DOCUMENTED = ["special.zeta", "special.polygamma", "special.ndtr", "special.ndtri",
                   "special.log_ndtr", "special.i0e", "special.i1", "special.i1e",
                   "special.xlog1py", "special.erfcx", "special.gammainc", "special.gammaincc",
                   "special.expm1", "special.exp2"]  # fmt: skip


@pytest.mark.parametrize("name", MORE_DOCUMENTED)
def test_more_documentation_examples(name):
    assert examples(name)
    for source, torch_outcome, vizgrad_outcome in run_both(name):
        same_documented_outcome(source, torch_outcome, vizgrad_outcome)

"""Derivatives of elementwise operators vs PyTorch (and finite differences).

Every differentiable pointwise op and overload: node names, gradients of every input
on contiguous, non-contiguous and broadcast inputs, in-place twins, saved attributes,
double backward on a subset; non-differentiable ops leave outputs without grad.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients, leaf_pair
from oracle import TorchOps, assert_same, assert_same_error, make_pair

import vizgrad as vg
from vizgrad import events
from vizgrad.ops import activation, unary

NON_CONTIGUOUS = ["transposed", "stepped", "offset"]
POSITIVE = {"low": 0.5, "high": 3.0}
UNIT = {"low": -0.9, "high": 0.9}
SMALL = {"low": -1.2, "high": 1.2}

# name, value range: every unary math op with a derivative.
UNARY = [
    ("exp", None), ("exp2", None), ("expm1", None), ("log", POSITIVE), ("log2", POSITIVE),
    ("log10", POSITIVE), ("log1p", POSITIVE), ("sqrt", POSITIVE), ("rsqrt", POSITIVE),
    ("reciprocal", POSITIVE), ("sin", None), ("cos", None), ("tan", SMALL), ("asin", UNIT),
    ("acos", UNIT), ("atan", None), ("arcsin", UNIT), ("arccos", UNIT), ("arctan", None),
    ("sinh", None), ("cosh", None), ("tanh", None), ("sigmoid", None), ("erf", None),
    ("abs", None), ("absolute", None), ("neg", None), ("negative", None), ("sign", None),
    ("sgn", None), ("relu", None), ("floor", None), ("ceil", None), ("trunc", None),
    ("fix", None), ("round", None), ("frac", None), ("square", None),
]  # fmt: skip
UNARY_IDS = [name for name, _ in UNARY]


def call(library, name):
    return lambda *xs, **kw: getattr(library, name)(*xs, **kw)


def method(name, *args, **kwargs):
    return lambda x, *xs: getattr(x, name)(*xs, *args, **kwargs)


def dense_grads(torch_fn):
    """PyTorch returns sgn's zero gradient as a lazy ZeroTensor; a leaf hook makes it a
    plain tensor that can be compared."""

    def run(*xs):
        for x in xs:
            x.register_hook(lambda grad: grad.clone())
        return torch_fn(*xs)

    return run


def inplace_on_clone(name, *args, **kwargs):
    """``x.clone().op_(...)``: leaves can't be written in place; their clones can."""
    return lambda x, *xs: getattr(x.clone(), name + "_")(*xs, *args, **kwargs)


# --- unary ops -----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "value_range"), UNARY, ids=UNARY_IDS)
@pytest.mark.parametrize("layout", ["contiguous", *NON_CONTIGUOUS])
def test_unary_gradients(name, value_range, layout):
    check_gradients(call(vg, name), dense_grads(call(torch, name)), [(2, 3)], layouts=[layout],
                    value_range=value_range, gradcheck=layout == "contiguous")  # fmt: skip


@pytest.mark.parametrize(("name", "value_range"), UNARY, ids=UNARY_IDS)
def test_unary_inplace_gradients_and_node_names(name, value_range):
    check_gradients(inplace_on_clone(name), dense_grads(inplace_on_clone(name)), [(2, 3)],
                    layouts=["transposed"], value_range=value_range)  # fmt: skip


@pytest.mark.parametrize("name", ["exp", "sqrt", "sigmoid", "abs", "relu", "tanh", "floor"])
def test_unary_gradients_in_float32(name):
    value_range = POSITIVE if name == "sqrt" else {}
    v, t = leaf_pair((3, 4), "stepped", seed=3, dtype="float32", **value_range)
    upstream = np.random.default_rng(5).standard_normal((3, 4)).astype(np.float32)
    getattr(vg, name)(v).backward(vg.tensor(upstream))
    getattr(torch, name)(t).backward(torch.tensor(upstream))
    assert_same(v.grad, t.grad, check_stride=False, atol=1e-6, rtol=1e-5)


def test_integer_valued_and_kinked_ops_at_their_special_points():
    values = [-2.0, -0.5, 0.0, 0.0, 0.5, 2.0]
    for name in ["abs", "relu", "sign", "sgn", "floor", "round", "frac", "sqrt"]:
        v = vg.tensor(values, dtype=vg.float64, requires_grad=True)
        t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        getattr(vg, name)(v).backward(vg.ones(6, dtype=vg.float64))
        dense_grads(getattr(torch, name))(t).backward(torch.ones(6, dtype=torch.float64))
        assert_same(v.grad, t.grad)


def test_round_with_decimals_is_its_own_node():
    check_gradients(lambda x: vg.round(x, decimals=1), lambda x: torch.round(x, decimals=1),
                    [(2, 3)])  # fmt: skip
    check_gradients(inplace_on_clone("round", decimals=2),
                    inplace_on_clone("round", decimals=2), [(2, 3)])  # fmt: skip


# --- binary and ternary arithmetic -----------------------------------------------------

BINARY = {
    "rsub": (lambda m: lambda a, b: m.rsub(a, b, alpha=2), None),
    "div_trunc": (lambda m: lambda a, b: m.div(a, b, rounding_mode="trunc"), None),
    "div_floor": (lambda m: lambda a, b: m.div(a, b, rounding_mode="floor"), None),
    # An explicit None is div.Tensor_mode too: the true quotient, recorded as DivBackward2.
    "div_none_given": (lambda m: lambda a, b: m.div(a, b, rounding_mode=None), None),
    "remainder": (lambda m: lambda a, b: m.remainder(a, b), None),
    "fmod": (lambda m: lambda a, b: m.fmod(a, b), None),
    "pow": (lambda m: lambda a, b: m.pow(a, b), POSITIVE),
    "atan2": (lambda m: lambda a, b: m.atan2(a, b), None),
    "maximum": (lambda m: lambda a, b: m.maximum(a, b), None),
    "minimum": (lambda m: lambda a, b: m.minimum(a, b), None),
    "fmax": (lambda m: lambda a, b: m.fmax(a, b), None),
    "fmin": (lambda m: lambda a, b: m.fmin(a, b), None),
    "lerp_scalar": (lambda m: lambda a, b: m.lerp(a, b, 0.3), None),
    "clamp_min_tensor": (lambda m: lambda a, b: m.clamp_min(a, b), None),
    "clamp_max_tensor": (lambda m: lambda a, b: m.clamp_max(a, b), None),
    "clamp_tensor_min_only": (lambda m: lambda a, b: m.clamp(a, min=b), None),
    "where": (lambda m: lambda a, b: m.where(a > 0, a, b), None),
}
TERNARY = {
    "lerp_tensor": (lambda m: lambda a, b, w: m.lerp(a, b, w), None),
    "addcmul": (lambda m: lambda a, b, c: m.addcmul(a, b, c, value=2), None),
    "addcdiv": (lambda m: lambda a, b, c: m.addcdiv(a, b, c, value=-1.5), POSITIVE),
    "clamp_tensor": (lambda m: lambda a, lo, hi: m.clamp(a, lo, hi), None),
    "where": (lambda m: lambda a, b, c: m.where(a > b, b, c), None),
}


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize(
    ("shapes", "layouts"),
    [
        ([(2, 3), (2, 3)], ["contiguous", "contiguous"]),
        ([(2, 3), (2, 3)], ["transposed", "offset"]),
        ([(2, 3), (3,)], ["stepped", "contiguous"]),
        ([(3,), (2, 3)], ["offset", "transposed"]),
    ],
    ids=["same", "non_contiguous", "broadcast_other", "broadcast_self"],
)
def test_binary_gradients(name, shapes, layouts):
    make, value_range = BINARY[name]
    check_gradients(make(vg), make(torch), shapes, layouts=layouts, value_range=value_range,
                    gradcheck=layouts[0] == "contiguous")  # fmt: skip


@pytest.mark.parametrize("name", list(TERNARY))
@pytest.mark.parametrize(
    ("shapes", "layouts"),
    [
        ([(2, 3)] * 3, ["contiguous"] * 3),
        ([(2, 3), (3,), (2, 1)], ["transposed", "stepped", "offset"]),
    ],
    ids=["same", "broadcast_non_contiguous"],
)
def test_ternary_gradients(name, shapes, layouts):
    make, value_range = TERNARY[name]
    check_gradients(make(vg), make(torch), shapes, layouts=layouts, value_range=value_range)


SCALAR_OPERAND = {
    "rsub_scalar": lambda m: lambda a: m.rsub(a, 2, alpha=3),
    "remainder_scalar": lambda m: lambda a: m.remainder(a, 1.5),
    "fmod_scalar": lambda m: lambda a: m.fmod(a, 1.5),
    "div_floor_scalar": lambda m: lambda a: m.div(a, 2, rounding_mode="floor"),
    "pow_tensor_scalar": lambda m: lambda a: m.pow(a, 3),
    "pow_fractional": lambda m: lambda a: m.pow(a.abs() + 0.5, 2.5),
    "pow_zero": lambda m: lambda a: m.pow(a, 0),
    "pow_one": lambda m: lambda a: m.pow(a, 1),
    "pow_negative": lambda m: lambda a: m.pow(a.abs() + 0.5, -2),
    "pow_scalar_base": lambda m: lambda a: m.pow(2.5, a),
    "pow_one_base": lambda m: lambda a: m.pow(1, a),
    "pow_negative_base": lambda m: lambda a: m.pow(-2, a.round()),
    "clamp": lambda m: lambda a: m.clamp(a, -1.0, 2),
    "clamp_min_only": lambda m: lambda a: m.clamp(a, min=-1),
    "clamp_max_only": lambda m: lambda a: m.clamp(a, max=1.5),
    "clip": lambda m: lambda a: m.clip(a, -2, 2),
    "clamp_crossed_bounds": lambda m: lambda a: m.clamp(a, 1.0, -1.0),
    "clamp_min": lambda m: lambda a: m.clamp_min(a, 0.5),
    "clamp_max": lambda m: lambda a: m.clamp_max(a, 0.5),
    "where_scalar_other": lambda m: lambda a: m.where(a > 0, a, 2.0),
    "where_scalar_self": lambda m: lambda a: m.where(a > 0, -1.0, a),
    "lerp_weight_above_half": lambda m: lambda a: m.lerp(a, a * 2, 0.8),
}


@pytest.mark.parametrize("name", list(SCALAR_OPERAND))
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_overloads_with_a_number(name, layout):
    make = SCALAR_OPERAND[name]
    # pow(-2, round(a)) has no real slope in the exponent: NaN in both, no finite differences.
    gradcheck = layout == "contiguous" and name not in ("pow_negative_base",)
    check_gradients(make(vg), make(torch), [(2, 3)], layouts=[layout], gradcheck=gradcheck)


INPLACE_BINARY = [
    ("sub", (), {"alpha": 2}), ("mul", (), {}), ("div", (), {}),
    ("div", (), {"rounding_mode": "floor"}), ("div", (), {"rounding_mode": None}),
    ("remainder", (), {}), ("fmod", (), {}),
    ("atan2", (), {}), ("pow", (), {}), ("lerp", (0.25,), {}), ("clamp_min", (), {}),
    ("clamp_max", (), {}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "args", "kwargs"), INPLACE_BINARY)
def test_inplace_binary_gradients_and_node_names(name, args, kwargs):
    value_range = POSITIVE if name == "pow" else None
    check_gradients(inplace_on_clone(name, *args, **kwargs),
                    inplace_on_clone(name, *args, **kwargs), [(2, 3), (3,)],
                    layouts=["transposed", "stepped"], value_range=value_range)  # fmt: skip


@pytest.mark.parametrize(
    ("name", "args"),
    [("pow", (2,)), ("pow", (0.5,)), ("remainder", (0.7,)), ("fmod", (0.7,)),
     ("clamp", (-1, 1)), ("clamp_min", (0.5,)), ("clamp_max", (0.5,)), ("square", ())],
)  # fmt: skip
def test_inplace_overloads_with_numbers(name, args):
    value_range = POSITIVE if args == (0.5,) and name == "pow" else None
    check_gradients(inplace_on_clone(name, *args), inplace_on_clone(name, *args), [(2, 3)],
                    layouts=["stepped"], value_range=value_range)  # fmt: skip


@pytest.mark.parametrize("name", ["addcmul", "addcdiv", "lerp"])
def test_inplace_ternary_gradients(name):
    def fn(x, y, z):
        options = {} if name == "lerp" else {"value": 0.5}
        return getattr(x.clone(), name + "_")(y, z, **options)

    value_range = POSITIVE if name == "addcdiv" else None
    check_gradients(fn, fn, [(2, 3), (3,), (2, 1)], layouts=["offset", "contiguous", "stepped"],
                    value_range=value_range)  # fmt: skip


def test_pow_at_zero_base_and_zero_exponent_matches_torch():
    base = [0.0, 0.0, 0.0, 2.0, -1.5, 0.0]
    exponent = [0.0, 2.0, -1.0, 0.0, 3.0, 0.5]

    def run(lib, fn):
        b = lib.tensor(base, dtype=lib.float64, requires_grad=True)
        e = lib.tensor(exponent, dtype=lib.float64, requires_grad=True)
        fn(lib, b, e).backward(lib.ones(6, dtype=lib.float64))
        return b.grad, e.grad

    for fn in [lambda lib, b, e: lib.pow(b, e), lambda lib, b, e: lib.pow(b, 2) * lib.pow(b, 0),
               lambda lib, b, e: lib.pow(0, e), lambda lib, b, e: lib.pow(0.0, e) + e]:  # fmt: skip
        (vb, ve), (tb, te) = run(vg, fn), run(torch, fn)
        for v, t in ((vb, tb), (ve, te)):
            assert (v is None) == (t is None)
            if t is not None:
                assert_same(v, t, check_stride=False)


def test_pow_of_integer_base_to_float_exponent():
    base = vg.tensor([1, 2, 0, 3])
    tbase = torch.tensor([1, 2, 0, 3])
    v = vg.tensor([0.5, -1.0, 2.0, 1.5], dtype=vg.float64, requires_grad=True)
    t = torch.tensor([0.5, -1.0, 2.0, 1.5], dtype=torch.float64, requires_grad=True)
    vg.pow(base, v).backward(vg.ones(4, dtype=vg.float64))
    torch.pow(tbase, t).backward(torch.ones(4, dtype=torch.float64))
    assert_same(v.grad, t.grad)


def test_ties_split_or_pick_as_torch():
    a = [1.0, 2.0, 3.0, float("nan"), 5.0, float("nan")]
    b = [1.0, 3.0, 2.0, 1.0, float("nan"), float("nan")]
    for name in ["maximum", "minimum", "fmax", "fmin"]:
        va, vb = (vg.tensor(x, dtype=vg.float64, requires_grad=True) for x in (a, b))
        ta, tb = (torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in (a, b))
        getattr(vg, name)(va, vb).backward(vg.ones(6, dtype=vg.float64))
        getattr(torch, name)(ta, tb).backward(torch.ones(6, dtype=torch.float64))
        assert_same(va.grad, ta.grad)
        assert_same(vb.grad, tb.grad)


def test_clamp_at_its_bounds_and_with_crossed_tensor_bounds():
    x = [-1.0, 0.0, 1.0, 2.0, 0.5, 3.0]
    low = [-1.0, 1.0, 0.0, 3.0, 1.0, 0.0]
    high = [1.0, 0.5, 1.0, 1.0, 0.0, 3.0]

    def run(lib):
        leaves = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in (x, low, high)]
        lib.clamp(*leaves).backward(lib.ones(6, dtype=lib.float64))
        lib.clamp(leaves[0], leaves[1], None).backward(lib.ones(6, dtype=lib.float64))
        lib.clamp(leaves[0], 0.0, 1.0).backward(lib.ones(6, dtype=lib.float64))
        return [leaf.grad for leaf in leaves]

    for v, t in zip(run(vg), run(torch), strict=True):
        assert_same(v, t)


# --- softmax, where, fill --------------------------------------------------------------


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize(("shape", "dim", "layout"),
                         [((2, 3), 1, "contiguous"), ((2, 3), 0, "transposed"),
                          ((2, 3, 2), 1, "stepped"), ((4,), 0, "offset"), ((), 0, "contiguous")])  # fmt: skip
def test_softmax_family_gradients(name, shape, dim, layout):
    check_gradients(lambda x: getattr(vg, name)(x, dim), lambda x: getattr(torch, name)(x, dim),
                    [shape], layouts=[layout])  # fmt: skip


@pytest.mark.parametrize("name", ["_softmax_backward_data", "_log_softmax_backward_data"])
@pytest.mark.parametrize(("shape", "dim", "layouts"),
                         [((2, 3), 1, ["contiguous", "contiguous"]),
                          ((2, 3), 0, ["transposed", "stepped"]),
                          ((2, 3, 2), -2, ["offset", "contiguous"]),
                          ((), 0, ["contiguous", "contiguous"])])  # fmt: skip
def test_softmax_backward_operators_and_their_derivatives(name, shape, dim, layouts):
    """The operators softmax's and log_softmax's nodes call (as PyTorch's do), with their
    own derivatives (``*BackwardDataBackward0``) for a second backward, by finite
    differences and against torch. The output operand stands for a softmax's output."""
    check_gradients(
        lambda g, y: getattr(activation, name)(g, y, dim, vg.float64),
        lambda g, y: getattr(torch.ops.aten, name)(g, y, dim, torch.float64),
        [shape, shape],
        layouts=layouts,
        check_output_strides=True,
    )


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_backward_calls_one_operator_as_torch(name):
    v, t = leaf_pair((3, 4), seed=2)
    vy, ty = getattr(v, name)(1), getattr(t, name)(1)
    with events.Recorder() as rec:
        vy.sum().backward()
    with TorchOps() as ops:
        ty.sum().backward()
    called = [e.op for e in rec.events if e.kind == "op_dispatched" and e.key == "AutogradCPU"]
    # PyTorch also calls detach when it unpacks the saved output; vizgrad does not.
    torch_called = [op for op in ops.qualnames if op != "aten::detach"]
    assert [op for op in called if op != "aten::detach"] == torch_called, (called, ops.qualnames)
    assert f"aten::_{name}_backward_data" in torch_called
    assert_same(v.grad, t.grad)


def test_softmax_backward_of_an_empty_tensor_and_an_integer_one():
    for name in ["_softmax_backward_data", "_log_softmax_backward_data"]:
        assert_same(
            getattr(activation, name)(vg.ones(0, 3), vg.ones(0, 3), 1, vg.float32),
            getattr(torch.ops.aten, name)(torch.ones(0, 3), torch.ones(0, 3), 1, torch.float32),
        )
        assert_same_error(
            lambda n=name: getattr(activation, n)(vg.ones(2, dtype=vg.int64),
                                                  vg.ones(2, dtype=vg.int64), 0, vg.int64),
            lambda n=name: getattr(torch.ops.aten, n)(torch.ones(2, dtype=torch.int64),
                                                      torch.ones(2, dtype=torch.int64), 0,
                                                      torch.int64),
        )  # fmt: skip


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_dtype_casts_first_through_a_recorded_copy(name):
    v, t = leaf_pair((2, 3), seed=1)
    out_v = getattr(v, name)(1, dtype=vg.float32)
    out_t = getattr(t, name)(1, dtype=torch.float32)
    assert out_v.grad_fn.name() == type(out_t.grad_fn).__name__
    assert out_v.dtype is vg.float32
    ((next_v, _),) = out_v.grad_fn.next_functions
    assert next_v is not None and next_v is not v.grad_fn  # the cast is a node of its own


def test_fill_and_zero_gradients():
    check_gradients(lambda x: vg.fill(x, 2.5), lambda x: torch.fill(x, 2.5), [(2, 3)])
    check_gradients(inplace_on_clone("fill", 2.5), inplace_on_clone("fill", 2.5), [(2, 3)],
                    layouts=["transposed"])  # fmt: skip
    check_gradients(inplace_on_clone("zero"), inplace_on_clone("zero"), [(2, 3)])
    # A 0-dim tensor value goes into every element: it collects the sum of the gradients.
    check_gradients(lambda x, v: vg.fill(x, v), lambda x, v: torch.fill(x, v), [(2, 3), ()],
                    gradcheck=False)  # fmt: skip
    check_gradients(lambda x, v: x.clone().fill_(v), lambda x, v: x.clone().fill_(v),
                    [(2, 3), ()], layouts=["stepped", "contiguous"], gradcheck=False)  # fmt: skip


def test_fill_with_a_tensor_value_into_a_tensor_without_history():
    values = []
    for lib in (vg, torch):
        value = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        out = lib.zeros(2, 3, dtype=lib.float64).fill_(value)
        out.backward(lib.ones(2, 3, dtype=lib.float64))
        values.append((out.grad_fn, value.grad))
    (v_node, v_grad), (t_node, t_grad) = values
    assert v_node.name() == type(t_node).__name__ == "FillBackward3"
    assert v_node.next_functions[0][0] is None
    assert_same(v_grad, t_grad)


# --- Python operators ------------------------------------------------------------------

OPERATORS = {
    "x + 2": lambda x: x + 2, "2 + x": lambda x: 2 + x, "x - 2": lambda x: x - 2,
    "2 - x": lambda x: 2 - x, "x * 2": lambda x: x * 2, "x / 2": lambda x: x / 2,
    "2 / x": lambda x: 2 / x, "x ** 2": lambda x: x**2, "2 ** x": lambda x: 2**x,
    "x ** 0.5": lambda x: abs(x) ** 0.5, "-x": lambda x: -x, "abs(x)": lambda x: abs(x),
    "x % 2": lambda x: x % 2, "+x": lambda x: +x * 3,
}  # fmt: skip


@pytest.mark.parametrize("expression", list(OPERATORS))
def test_python_operators_record_torch_nodes(expression):
    fn = OPERATORS[expression]
    check_gradients(fn, fn, [(2, 3)], layouts=["transposed"])


@pytest.mark.parametrize("expression", ["x - y", "x / y", "x ** y", "x % y", "x * y"])
def test_python_operators_between_tensors(expression):
    fn = eval(f"lambda x, y: {expression}")  # noqa: S307 - a fixed expression from this file
    value_range = POSITIVE if "**" in expression else None
    check_gradients(fn, fn, [(2, 3), (3,)], value_range=value_range)


def test_augmented_assignment_records_inplace_nodes():
    def fn(x, y):
        z = x.clone()
        z += y
        z *= y
        z -= 2
        z /= y
        z **= 2
        return z

    check_gradients(fn, fn, [(2, 3), (2, 3)], value_range=POSITIVE)


@pytest.mark.parametrize(
    "expression",
    ["torch.floor_divide(x, y)", "x // y", "x // 2", "2 % x", "x.clone().floor_divide_(y)"],
)
def test_ops_without_derivative_fail_at_backward_as_torch(expression):
    results = {}
    for lib in (vg, torch):
        x, y = (lib.tensor([[1.5, -2.5], [3.0, 4.5]], dtype=lib.float64, requires_grad=True)
                for _ in range(2))  # fmt: skip
        results[lib] = eval(expression.replace("torch.", "lib."))  # noqa: S307
    v, t = results[vg], results[torch]
    assert v.grad_fn.name() == type(t.grad_fn).__name__ == "NotImplemented"
    assert_same_error(lambda: v.backward(vg.ones_like(v)),
                      lambda: t.backward(torch.ones_like(t)))  # fmt: skip


# --- saved attributes ---------------------------------------------------------------------

SAVED = {
    "pow_tensor_scalar": (lambda m, x, y: m.pow(x, 3), ["self", "exponent"]),
    "pow_tensor_tensor": (lambda m, x, y: m.pow(x.abs(), y), ["self", "exponent", "result"]),
    "pow_scalar": (lambda m, x, y: m.pow(2, y), ["self", "exponent", "result"]),
    "rsub_scalar": (lambda m, x, y: 2 - x, ["alpha"]),
    "rsub": (lambda m, x, y: m.rsub(x, y, alpha=3), ["alpha"]),
    "div_floor": (
        lambda m, x, y: m.div(x, y, rounding_mode="floor"),
        ["self", "other", "rounding_mode"],
    ),
    "remainder": (lambda m, x, y: m.remainder(x, y), ["self", "other"]),
    "atan2": (lambda m, x, y: m.atan2(x, y), ["self", "other"]),
    "maximum": (lambda m, x, y: m.maximum(x, y), ["self", "other"]),
    "lerp_scalar": (lambda m, x, y: m.lerp(x, y, 0.25), ["weight"]),
    "lerp_tensor": (lambda m, x, y: m.lerp(x, y, y), ["self", "end", "weight"]),
    "addcdiv": (lambda m, x, y: m.addcdiv(x, x, y, value=2), ["tensor1", "tensor2", "value"]),
    "clamp_scalar": (lambda m, x, y: m.clamp(x, min=-0.5), ["self", "min", "max"]),
    "clamp_tensor": (lambda m, x, y: m.clamp(x, max=y), ["self", "min", "max"]),
    "clamp_min": (lambda m, x, y: m.clamp_min(x, 0.25), ["self", "min"]),
    "clamp_max_tensor": (lambda m, x, y: m.clamp_max(x, y), ["self", "max"]),
    "where": (lambda m, x, y: m.where(x > y, x, y), ["condition"]),
    "softmax": (lambda m, x, y: m.softmax(x, 1), ["dim", "result"]),
    "log_softmax": (lambda m, x, y: m.log_softmax(x, 0), ["dim", "result"]),
    "exp": (lambda m, x, y: m.exp(x), ["result"]),
    "sin": (lambda m, x, y: m.sin(x), ["self"]),
    "abs": (lambda m, x, y: m.abs(x), ["self"]),
    "sgn": (lambda m, x, y: m.sgn(x), ["self", "result"]),
    "relu": (lambda m, x, y: m.relu(x), ["result"]),
    "exp_inplace": (lambda m, x, y: x.clone().exp_(), ["result"]),
    "sin_inplace": (lambda m, x, y: x.clone().sin_(), ["self"]),
}


def _same_saved(v, t):
    if isinstance(t, torch.Tensor):
        assert_same(v, t)
    else:
        assert v == t, f"{v!r} != {t!r}"


@pytest.mark.parametrize("name", list(SAVED))
def test_saved_attributes_match_torch(name):
    fn, attributes = SAVED[name]
    (vx, tx), (vy, ty) = leaf_pair((2, 3), seed=1), leaf_pair((2, 3), seed=2)
    v_node, t_node = fn(vg, vx, vy).grad_fn, fn(torch, tx, ty).grad_fn
    assert v_node.name() == type(t_node).__name__
    torch_saved = sorted(a[len("_saved_") :] for a in dir(t_node) if a.startswith("_saved_"))
    assert torch_saved == sorted(attributes)
    for attribute in attributes:
        _same_saved(getattr(v_node, f"_saved_{attribute}"), getattr(t_node, f"_saved_{attribute}"))


def test_inplace_change_of_a_saved_input_is_caught_as_torch():
    def run(lib):
        x = lib.tensor([0.5, 1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = x.clone()
        z = y.sin()
        y.mul_(2)
        return lambda: z.backward(lib.ones(3, dtype=lib.float64))

    assert_same_error(run(vg), run(torch))


# --- double backward ------------------------------------------------------------------

DOUBLE_BACKWARD = {
    "exp": (lambda x, y: x.exp(), None),
    "log": (lambda x, y: x.log(), POSITIVE),
    "sqrt": (lambda x, y: x.sqrt(), POSITIVE),
    "rsqrt": (lambda x, y: x.rsqrt(), POSITIVE),
    "reciprocal": (lambda x, y: x.reciprocal(), POSITIVE),
    "sin": (lambda x, y: x.sin(), None),
    "tan": (lambda x, y: x.tan(), SMALL),
    "asin": (lambda x, y: x.asin(), UNIT),
    "tanh": (lambda x, y: x.tanh(), None),
    "sigmoid": (lambda x, y: x.sigmoid(), None),
    "erf": (lambda x, y: x.erf(), None),
    "abs": (lambda x, y: x.abs() * y, None),
    "pow_scalar_exponent": (lambda x, y: x.pow(3), None),
    "pow_tensor_tensor": (lambda x, y: x.pow(y), POSITIVE),
    "pow_scalar_base": (lambda x, y: vg.pow(1.5, y), None),
    "atan2": (lambda x, y: vg.atan2(x, y), None),
    "maximum": (lambda x, y: vg.maximum(x, y) * x, None),
    "lerp": (lambda x, y: vg.lerp(x, y, y), None),
    "addcdiv": (lambda x, y: vg.addcdiv(x, x, y, value=0.5), POSITIVE),
    "clamp": (lambda x, y: vg.clamp(x * x, max=y), None),
    "where": (lambda x, y: vg.where(x > y, x * x, y * x), None),
    "remainder": (lambda x, y: vg.remainder(x * y, y), POSITIVE),
    "rsub": (lambda x, y: 2 - x * y, None),
    "softmax": (lambda x, y: vg.softmax(x * y, 1), None),
    "log_softmax": (lambda x, y: vg.log_softmax(x, 0) * y, None),
    "fill": (lambda x, y: vg.fill(x, 2.0) * x + y.clone().zero_() * y, None),
}


@pytest.mark.parametrize("name", list(DOUBLE_BACKWARD))
def test_double_backward(name):
    fn, value_range = DOUBLE_BACKWARD[name]
    x = leaf_pair((2, 3), seed=1, **(value_range or {}))[0]
    y = leaf_pair((2, 3), seed=2, **(value_range or {}))[0]
    assert vg.autograd.gradgradcheck(fn, (x, y))


# --- non-differentiable ops --------------------------------------------------------------

BINARY_PREDICATES = ["eq", "ne", "lt", "le", "gt", "ge", "isclose", "logical_and", "logical_or",
                     "logical_xor", "greater", "less_equal", "not_equal"]  # fmt: skip
UNARY_PREDICATES = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit",
                    "logical_not"]  # fmt: skip
OPERATOR_PREDICATES = {
    "eq_scalar": lambda m, x, y: m.eq(x, 1.0),
    "lt_operator": lambda m, x, y: x < y,
    "ge_operator_scalar": lambda m, x, y: x >= 0,
}


def _predicate(name):
    if name in OPERATOR_PREDICATES:
        return OPERATOR_PREDICATES[name]
    if name in UNARY_PREDICATES:
        return lambda m, x, y: getattr(m, name)(x)
    return lambda m, x, y: getattr(m, name)(x, y)


@pytest.mark.parametrize("name", BINARY_PREDICATES + UNARY_PREDICATES + list(OPERATOR_PREDICATES))
def test_non_differentiable_outputs_do_not_require_grad(name):
    fn = _predicate(name)
    (vx, tx), (vy, ty) = leaf_pair((2, 3), seed=1), leaf_pair((2, 3), seed=2)
    v, t = fn(vg, vx, vy), fn(torch, tx, ty)
    assert_same(v, t)
    assert v.requires_grad is t.requires_grad is False
    assert v.grad_fn is None and t.grad_fn is None


def test_equal_gives_a_python_bool_with_grad_inputs():
    (vx, tx) = leaf_pair((2, 3), seed=1)
    assert vg.equal(vx, vx) is torch.equal(tx, tx) is True


@pytest.mark.parametrize(
    "name", ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
             "bitwise_right_shift"],
)  # fmt: skip
def test_bitwise_ops_refuse_float_inputs_that_require_grad(name):
    (vx, tx), (vy, ty) = leaf_pair((2, 3), seed=1), leaf_pair((2, 3), seed=2)
    assert_same_error(lambda: getattr(vg, name)(vx, vy), lambda: getattr(torch, name)(tx, ty))
    assert_same_error(lambda: ~vx, lambda: ~tx)


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("other", ["tensor", "number"])
def test_inplace_comparisons_record_a_zero_gradient_node(name, other):
    def fn(x, y):
        return getattr(x.clone(), name + "_")(y if other == "tensor" else 0.25)

    check_gradients(fn, fn, [(2, 3), (3,)], layouts=["transposed", "contiguous"])


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_inplace_logical_ops_keep_the_previous_history(name):
    results = []
    for lib in (vg, torch):
        x = lib.tensor([0.0, 1.5, -2.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([1.0, 0.0, -1.0], dtype=lib.float64)
        z = getattr(x.clone(), name + "_")(y)
        results.append(z)
    v, t = results
    assert v.grad_fn.name() == type(t.grad_fn).__name__ == "CloneBackward0"
    assert v._version == t._version == 1
    assert_same(v.detach(), t.detach())


def test_nan_and_inf_upstream_gradients_flow_as_in_torch():
    # A masked formula (where) drops a NaN where it masks; a product keeps it.
    for name in ["relu", "abs", "floor"]:
        v = vg.tensor([-1.0, 0.0, 2.0], dtype=vg.float64, requires_grad=True)
        t = torch.tensor([-1.0, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
        up = [math.nan, 1.0, math.inf]
        getattr(vg, name)(v).backward(vg.tensor(up, dtype=vg.float64))
        getattr(torch, name)(t).backward(torch.tensor(up, dtype=torch.float64))
        assert_same(v.grad, t.grad)


# --- threshold_backward: ReLU's derivative as one operator ---------------------------------


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "expanded"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_threshold_backward_is_torchs(layout, dtype):
    vg_grad, t_grad = make_pair((3, 4), dtype, layout, seed=1)
    vg_x, t_x = make_pair((3, 4), dtype, "transposed", seed=2)
    for threshold in (0, 0.5, -2):
        assert_same(
            unary.threshold_backward(vg_grad, vg_x, threshold),
            torch.ops.aten.threshold_backward(t_grad, t_x, threshold),
        )
    # Broadcast, 0-dim and empty operands.
    for g_shape, x_shape in [((3, 4), (4,)), ((), ()), ((0, 4), (4,))]:
        vg_g, t_g = make_pair(g_shape, dtype, "contiguous", seed=3)
        vg_s, t_s = make_pair(x_shape, dtype, "contiguous", seed=4)
        assert_same(
            unary.threshold_backward(vg_g, vg_s, 0),
            torch.ops.aten.threshold_backward(t_g, t_s, 0),
        )


def test_threshold_backward_keeps_nan_where_it_does_not_mask_and_refuses_bool():
    g = [math.nan, 1.0, math.nan, 4.0]
    x = [-1.0, math.nan, 2.0, 0.0]
    assert_same(
        unary.threshold_backward(vg.tensor(g), vg.tensor(x), 0),
        torch.ops.aten.threshold_backward(torch.tensor(g), torch.tensor(x), 0),
    )
    assert_same_error(
        lambda: unary.threshold_backward(vg.tensor([True]), vg.tensor([True]), 0),
        lambda: torch.ops.aten.threshold_backward(torch.tensor([True]), torch.tensor([True]), 0),
    )


def test_relu_backward_calls_threshold_backward_and_differentiates_again():
    """``ReluBackward0`` runs PyTorch's one operator; its gradient, with create_graph,
    hangs off a ``ThresholdBackwardBackward0`` node and has torch's second derivative."""
    v = vg.tensor([1.0, -2.0, 3.0, 0.0], dtype=vg.float64, requires_grad=True)
    t = torch.tensor([1.0, -2.0, 3.0, 0.0], dtype=torch.float64, requires_grad=True)
    vy, ty = (v * v - 2).relu(), (t * t - 2).relu()
    with events.Recorder() as rec:
        (vg_grad,) = vg.autograd.grad(vy.sum(), v, create_graph=True)
    with TorchOps() as ops:
        (t_grad,) = torch.autograd.grad(ty.sum(), t, create_graph=True)
    called = [e.op for e in rec.events if e.kind == "op_dispatched" and e.key == "AutogradCPU"]
    assert "aten::threshold_backward" in called and "aten::where.self" not in called
    assert "aten::threshold_backward" in ops.qualnames
    assert_same(vg_grad, t_grad)
    relu_grad = vg_grad.grad_fn.next_functions[0][0].next_functions[0][0]
    t_relu_grad = t_grad.grad_fn.next_functions[0][0].next_functions[0][0]
    assert relu_grad.name() == type(t_relu_grad).__name__ == "ThresholdBackwardBackward0"
    (vg_second,) = vg.autograd.grad(vg_grad.sum(), v)
    (t_second,) = torch.autograd.grad(t_grad.sum(), t)
    assert_same(vg_second, t_second)

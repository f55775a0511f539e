"""The pointwise operators are declared from whole schemas: their overloads, variants and
the argument parser's choices and errors, against PyTorch."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg
from vizgrad.ops import activation
from vizgrad.ops.registry import OPERATORS

# Every Python name of the family, with the overloads its one declaration holds.
DECLARED = {
    "add": ["add.Tensor", "add_.Tensor", "add.out"],
    "sub": ["sub.Tensor", "sub_.Tensor", "sub.out"],
    "subtract": ["subtract.Tensor", "subtract_.Tensor", "subtract.out", "subtract.Scalar",
                 "subtract_.Scalar"],
    "mul": ["mul.Tensor", "mul_.Tensor", "mul.out"],
    "multiply": ["multiply.Tensor", "multiply_.Tensor", "multiply.out", "multiply.Scalar",
                 "multiply_.Scalar"],
    "div": ["div.Tensor", "div_.Tensor", "div.out", "div.Tensor_mode", "div_.Tensor_mode",
            "div.out_mode", "div.Scalar_mode", "div_.Scalar_mode"],
    "divide": ["divide.Tensor", "divide_.Tensor", "divide.out", "divide.Tensor_mode",
               "divide_.Tensor_mode", "divide.out_mode", "divide.Scalar", "divide_.Scalar",
               "divide.Scalar_mode", "divide_.Scalar_mode"],
    "true_divide": ["true_divide.Tensor", "true_divide_.Tensor", "true_divide.out",
                    "true_divide.Scalar", "true_divide_.Scalar"],
    "floor_divide": ["floor_divide", "floor_divide_.Tensor", "floor_divide.out",
                     "floor_divide.Scalar", "floor_divide_.Scalar"],
    "remainder": ["remainder.Tensor", "remainder_.Tensor", "remainder.Tensor_out",
                  "remainder.Scalar_Tensor", "remainder.Scalar", "remainder_.Scalar",
                  "remainder.Scalar_out"],
    "fmod": ["fmod.Tensor", "fmod_.Tensor", "fmod.Tensor_out", "fmod.Scalar", "fmod_.Scalar",
             "fmod.Scalar_out"],
    "pow": ["pow.Tensor_Tensor", "pow_.Tensor", "pow.Tensor_Tensor_out", "pow.Scalar",
            "pow.Scalar_out", "pow.Tensor_Scalar", "pow_.Scalar", "pow.Tensor_Scalar_out"],
    "rsub": ["rsub.Tensor", "rsub.Scalar"],
    "atan2": ["atan2", "atan2_", "atan2.out"],
    "arctan2": ["arctan2", "arctan2_", "arctan2.out"],
    "lerp": ["lerp.Tensor", "lerp_.Tensor", "lerp.Tensor_out", "lerp.Scalar", "lerp_.Scalar",
             "lerp.Scalar_out"],
    "addcmul": ["addcmul", "addcmul_", "addcmul.out"],
    "maximum": ["maximum", "maximum.out"],
    "eq": ["eq.Tensor", "eq_.Tensor", "eq.Tensor_out", "eq.Scalar", "eq_.Scalar",
           "eq.Scalar_out"],
    "greater_equal": ["greater_equal.Tensor", "greater_equal_.Tensor",
                      "greater_equal.Tensor_out", "greater_equal.Scalar",
                      "greater_equal_.Scalar", "greater_equal.Scalar_out"],
    "isclose": ["isclose"],
    "allclose": ["allclose"],
    "equal": ["equal"],
    "logical_and": ["logical_and", "logical_and_", "logical_and.out"],
    "bitwise_and": ["bitwise_and.Tensor", "bitwise_and_.Tensor", "bitwise_and.Tensor_out",
                    "bitwise_and.Scalar_Tensor", "bitwise_and.Scalar", "bitwise_and_.Scalar",
                    "bitwise_and.Scalar_out"],
    "bitwise_left_shift": ["bitwise_left_shift.Tensor", "bitwise_left_shift_.Tensor",
                           "bitwise_left_shift.Tensor_out", "bitwise_left_shift.Scalar_Tensor",
                           "bitwise_left_shift.Tensor_Scalar",
                           "bitwise_left_shift_.Tensor_Scalar",
                           "bitwise_left_shift.Tensor_Scalar_out"],
    "where": ["where", "where.self", "where.self_out", "where.ScalarSelf", "where.ScalarOther",
              "where.Scalar"],
    "exp": ["exp", "exp_", "exp.out"],
    "arcsin": ["arcsin", "arcsin_", "arcsin.out"],
    "abs": ["abs", "abs_", "abs.out"],
    "relu": ["relu", "relu_"],
    "round": ["round", "round_", "round.out", "round.decimals", "round_.decimals",
              "round.decimals_out"],
    "square": ["square", "square_", "square.out"],
    "clamp": ["clamp", "clamp.Tensor", "clamp_", "clamp_.Tensor", "clamp.out",
              "clamp.Tensor_out"],
    "clip": ["clip", "clip.Tensor", "clip_", "clip_.Tensor", "clip.out", "clip.Tensor_out"],
    "clamp_min": ["clamp_min", "clamp_min.Tensor", "clamp_min_", "clamp_min_.Tensor",
                  "clamp_min.out", "clamp_min.Tensor_out"],
    "isnan": ["isnan"],
    "signbit": ["signbit", "signbit.out"],
    "softmax": ["softmax.int", "softmax.int_out"],
}  # fmt: skip


@pytest.mark.parametrize("name", list(DECLARED))
def test_one_declaration_holds_every_overload(name):
    assert sorted(getattr(vg, name).overloads) == sorted(DECLARED[name])


def _native_functions_yaml() -> str:
    spec = importlib.util.find_spec("torchgen")
    root = Path(next(iter(spec.submodule_search_locations)))
    return (root / "packaged" / "ATen" / "native" / "native_functions.yaml").read_text()


def _native_functions() -> set[str]:
    text = _native_functions_yaml()
    return {line[len("- func: ") :] for line in text.splitlines() if line.startswith("- func: ")}


def _autogenerated_overloads() -> set[str]:
    """The overloads torchgen generates from another's schema (``autogen: a.out, b.out``)."""
    text = _native_functions_yaml()
    return {name.strip() for line in text.splitlines() if line.strip().startswith("autogen:")
            for name in line.split(":", 1)[1].split(",")}  # fmt: skip


FAMILY = [
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "remainder", "fmod", "pow", "rsub", "atan2", "arctan2", "maximum", "minimum", "fmax", "fmin",
    "lerp", "addcmul", "addcdiv", "hypot", "eq", "ne", "lt", "le", "gt", "ge", "not_equal",
    "less", "less_equal", "greater", "greater_equal", "isclose", "allclose", "equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "where",
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
    "sin", "cos", "tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "tanh", "sigmoid", "erf", "abs", "absolute", "neg", "negative", "sign", "sgn", "square",
    "relu", "floor", "ceil", "trunc", "fix", "round", "frac", "clamp", "clip", "clamp_min",
    "clamp_max", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "softmax",
    "log_softmax",
]  # fmt: skip


def test_every_schema_is_written_as_native_functions_yaml_writes_it():
    known = _native_functions()
    functions = [getattr(vg, name) for name in FAMILY] + [activation._softmax,
                                                          activation._log_softmax]  # fmt: skip
    for function in functions:
        for op in function.overloads.values():
            assert op.schema in known, op.schema


def test_every_declared_overload_of_every_family_is_pytorchs():
    """The registry holds each overload under PyTorch's whole schema, character for
    character (so ``grep "sum.dim_IntList("`` finds its declaration)."""
    known = _native_functions()
    assert len(OPERATORS) > 700
    # ``autogen:`` overloads (``slice_scatter.out``) have no schema line: their names count.
    generated = _autogenerated_overloads()
    assert [op.schema for op in OPERATORS.values()
            if op.schema not in known and op.schema.split("(")[0] not in generated] == []  # fmt: skip


UNARY = [name for name in FAMILY[FAMILY.index("exp") : FAMILY.index("isnan")]]


@pytest.mark.parametrize("name", UNARY)
def test_inplace_functions_exist_where_torch_has_them(name):
    assert hasattr(vg, name + "_") == hasattr(torch, name + "_")


class _Unknown:
    """An argument no signature accepts."""


_CALLS = [(_Unknown(),), (_Unknown(), _Unknown()), ("x", _Unknown()),
          ("x", "x", "x", _Unknown()), (_Unknown(),) * 6]  # fmt: skip
# PyTorch keeps deprecated signatures of these (``addcmul(input, value, tensor1, tensor2)``),
# hidden from its messages but not from its choice of message: vizgrad has none.
_DEPRECATED_SIGNATURES = {"add", "sub", "addcmul", "addcdiv"}


def _message(call) -> str:
    try:
        call()
    except Exception as error:  # noqa: BLE001 - whatever is raised, both must raise it
        return f"{type(error).__name__}: {error}".replace("torch.", "vizgrad.")
    return "no error"


@pytest.mark.parametrize("name", [n for n in FAMILY if n not in _DEPRECATED_SIGNATURES])
@pytest.mark.parametrize("variant", ["function", "method", "inplace function", "inplace method"])
def test_the_parser_lists_torchs_signatures_in_torchs_order(name, variant):
    suffix = "_" if variant.startswith("inplace") else ""
    owner_v, owner_t = (vg, torch) if "function" in variant else (vg.ones(2), torch.ones(2))
    if not hasattr(owner_t, name + suffix):
        assert not hasattr(owner_v, name + suffix)
        return
    function_v, function_t = getattr(owner_v, name + suffix), getattr(owner_t, name + suffix)
    skip = 0 if "function" in variant else 1  # a method is called on the first argument
    for arguments in _CALLS:
        v_args = [vg.ones(2) if a == "x" else a for a in arguments[skip:]]
        t_args = [torch.ones(2) if a == "x" else a for a in arguments[skip:]]
        expected = _message(lambda: function_t(*t_args))  # noqa: B023
        if "TensorBase." in expected:  # a method of no arguments: vizgrad's class is Tensor
            expected = expected.replace("TensorBase.", "Tensor.")
        assert _message(lambda: function_v(*v_args)) == expected  # noqa: B023


BAD_CALLS = [
    "lib.atan2(x, 2)",
    "lib.arctan2(x, 2)",
    "lib.logical_and(x, 1)",
    "lib.maximum(x, 2)",
    "lib.lerp(x, x, 'a')",
    "lib.pow(2, 'a')",
    "lib.pow(2, x, 3)",
    "lib.remainder(2, x, out=x)",
    "lib.bitwise_and(2, x, out=x)",
    "lib.rsub(x, x, out=x)",
    "lib.div(x, x, rounding_mode=3)",
    "lib.div(x, x, rounding_mode='round')",
    "x.div(2, out=x)",
    "lib.exp_(2)",
    "lib.relu(x, out=x)",
    "lib.isnan(x, out=x)",
    "lib.round(x, decimals=None)",
    "lib.clamp(x)",
    "lib.clamp(x, x, 1)",
    "lib.clamp(x, min='a')",
    "x.where(x > 0, 'a')",
    "lib.where(x > 0, x, 2.0, out=x)",
    "lib.square(2)",
    "lib.softmax(x)",
    "lib.equal(x, 1)",
    "lib.isclose(x, x, -1.0)",
]


@pytest.mark.parametrize("call", BAD_CALLS)
def test_bad_calls_raise_torchs_errors(call):
    v, t = vg.ones(2, 3), torch.ones(2, 3)
    assert_same_error(lambda: eval(call, {"lib": vg, "x": v}),  # noqa: S307
                      lambda: eval(call, {"lib": torch, "x": t}))  # noqa: S307  # fmt: skip


GOOD_CALLS = [
    "lib.pow(self=2, exponent=x)",
    "lib.pow(x, exponent=2)",
    "lib.rsub(x, 2, 3)",
    "lib.subtract(x, 2, 3)",
    "lib.isclose(x, x * 1.01, 0.1, 0.0)",
    "lib.where(x > 1, 1, 2.5)",
    "x.where(x > 1, 2)",
    "lib.clamp_(x.clone(), 0.5, 2)",
    "lib.clamp_min_(x.clone(), x)",
    "lib.round_(x.clone(), decimals=1)",
    "lib.floor_divide(7, x)",
    "lib.div(x, 2, rounding_mode=None)",
    "x.softmax(0, dtype=lib.float64)",
]


@pytest.mark.parametrize("call", GOOD_CALLS)
def test_good_calls_agree_with_torch(call):
    v, t = vg.arange(1.0, 7.0).view(2, 3), torch.arange(1.0, 7.0).view(2, 3)
    assert_same(eval(call, {"lib": vg, "x": v}), eval(call, {"lib": torch, "x": t}))  # noqa: S307


@pytest.mark.parametrize(
    ("call", "overload"),
    [
        ("lib.div(x, 2)", "aten::div.Tensor"),
        ("lib.div(x, 2, rounding_mode=None)", "aten::div.Tensor_mode"),
        ("x.pow_(2)", "aten::pow_.Scalar"),
        ("x.pow_(x)", "aten::pow_.Tensor"),
        ("lib.pow(2, x)", "aten::pow.Scalar"),
        ("lib.remainder(2, x)", "aten::remainder.Scalar_Tensor"),
        ("lib.remainder(x, 2)", "aten::remainder.Scalar"),
        ("lib.eq(x, 2)", "aten::eq.Scalar"),
        ("lib.bitwise_and(x.long(), 2)", "aten::bitwise_and.Scalar"),
        ("lib.clamp(x, 0, 1)", "aten::clamp"),
        ("lib.clamp(x, x)", "aten::clamp.Tensor"),
        ("lib.where(x > 1, 2, x)", "aten::where.ScalarSelf"),
        ("lib.subtract(x, x)", "aten::subtract.Tensor"),
        ("lib.softmax(x, 0)", "aten::softmax.int"),
    ],
)
def test_the_parser_chooses_torchs_overload(call, overload):
    x = vg.arange(1.0, 7.0).view(2, 3)
    with vg.dispatch_trace() as trace:
        eval(call, {"lib": vg, "x": x})  # noqa: S307
    assert trace.ops[-1] == overload or overload in trace.ops


def test_aliases_record_the_main_operators_node():
    x = vg.ones(3, requires_grad=True)
    for alias, node in [(vg.subtract, "SubBackward0"), (vg.multiply, "MulBackward0"),
                        (vg.divide, "DivBackward0"), (vg.true_divide, "DivBackward0"),
                        (vg.arctan2, "Atan2Backward0")]:  # fmt: skip
        assert alias(x, x).grad_fn.name() == node
    for alias, node in [(vg.arcsin, "AsinBackward0"), (vg.absolute, "AbsBackward0"),
                        (vg.negative, "NegBackward0"), (vg.fix, "TruncBackward0"),
                        (vg.square, "PowBackward0"), (vg.softmax, "SoftmaxBackward0")]:  # fmt: skip
        result = alias(x, 0) if alias is vg.softmax else alias(x)
        assert result.grad_fn.name() == node
    assert vg.clip(x, 0, 1).grad_fn.name() == "ClampBackward1"

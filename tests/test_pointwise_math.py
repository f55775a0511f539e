"""Pointwise math against PyTorch: inverse hyperbolic functions, angles, ``nan_to_num``,
``positive``, the parts of floats (``copysign``, ``nextafter``, ``ldexp``, ``frexp``),
``logaddexp``, ``float_power``, ``heaviside``, ``gcd``/``lcm``, and the existing
``xlogy``, ``hypot``, ``true_divide``, ``signbit``, ``clamp_min``/``clamp_max``."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients, leaf_pair
from oracle import DTYPES, LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg

# name -> the range random inputs are drawn from (inside the function's domain, mostly).
UNARY = {
    "acosh": (1.0, 4.0), "asinh": (-3.0, 3.0), "atanh": (-0.9, 0.9),
    "arccosh": (1.0, 4.0), "arcsinh": (-3.0, 3.0), "arctanh": (-0.9, 0.9),
    "deg2rad": (-360.0, 360.0), "rad2deg": (-4.0, 4.0), "nan_to_num": (-3.0, 3.0),
    "positive": (-3.0, 3.0), "signbit": (-3.0, 3.0),
}  # fmt: skip
INPLACE_UNARY = ["acosh", "asinh", "atanh", "arccosh", "arcsinh", "arctanh", "deg2rad",
                 "rad2deg", "nan_to_num"]  # fmt: skip
# The values at the edges: signed zeros, infinities, NaN, the ends of the domains.
SPECIAL_VALUES = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 1e-8, 1e30, math.inf, -math.inf,
                  math.nan, 0.9999999, -1.0000001]  # fmt: skip
SHAPES = [(), (0,), (3,), (2, 0, 3), (2, 3, 4)]


def pair(shape, dtype, bounds, layout="contiguous", seed=0):
    """Random inputs drawn from ``bounds`` (integers and bools from the nearest range)."""
    low, high = bounds
    if dtype[0] in "ub":  # unsigned and bool: non-negative draws
        low, high = 0, max(int(high), 2)
    elif dtype.startswith("int"):
        low, high = int(math.floor(low)), int(math.ceil(high)) + 1
    return make_pair(shape, dtype, layout, seed, low=low, high=high)


def values(dtype, data=SPECIAL_VALUES):
    """The same values in both libraries (by default the edges), as ``dtype``."""
    with np.errstate(over="ignore"):  # (1e30 is inf in float16)
        array = np.array(data, dtype=np.float64).astype(dtype)
    return vg.from_numpy(array.copy()), torch.from_numpy(array.copy())


def both(call, v_args, t_args, **tolerance):
    """``call(lib, *args)`` in both libraries: the same result, or the same error."""
    same_outcome(lambda: call(vg, *v_args), lambda: call(torch, *t_args), **tolerance)


def same_outcome(vg_call, torch_call, **tolerance):
    """The same error, or the same result after the same warnings. (PyTorch repeats the
    resize warning of an out= that also needs a cast: each warning is counted once.)"""
    try:
        with warnings.catch_warnings(record=True) as expected_warnings:
            warnings.simplefilter("always")
            expected = torch_call()
    except Exception:  # noqa: BLE001 - whatever torch raises, vizgrad must raise alike
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (warnings before the error were recorded above)
            assert_same_error(vg_call, torch_call)
        return
    with warnings.catch_warnings(record=True) as got_warnings:
        warnings.simplefilter("always")
        got = vg_call()
    assert_same(got, expected, **tolerance)
    assert _messages(got_warnings) == _messages(expected_warnings)


def _messages(caught) -> set:
    return {(w.category, str(w.message).split(" (Triggered internally")[0]) for w in caught}


# --- unary functions ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_dtypes(name, dtype):
    v, t = pair((3, 4), dtype, UNARY[name])
    both(lambda lib, x: getattr(lib, name)(x), (v,), (t,))
    both(lambda lib, x: getattr(x, name)(), (v,), (t,))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_layouts_and_shapes(name, layout, shape):
    v, t = pair(shape, "float32", UNARY[name], layout, seed=1)
    assert_same(getattr(vg, name)(v), getattr(torch, name)(t))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_special_values(name, dtype):
    v, t = values(dtype)
    both(lambda lib, x: getattr(lib, name)(x), (v,), (t,))


@pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
@pytest.mark.parametrize("name", INPLACE_UNARY)
def test_unary_inplace(name, layout, dtype):
    """``x.acosh_()`` and ``torch.acosh_(x)``: written in place, or torch's error (an
    integer tensor cannot hold the float result; an expanded one overlaps itself)."""
    v, t = pair((3, 4), dtype, UNARY[name], layout)

    def run(lib, x, function):
        x = x.clone() if layout != "expanded" else x
        result = getattr(lib, name + "_")(x) if function else getattr(x, name + "_")()
        assert result is x
        return x

    both(lambda lib, x: run(lib, x, False), (v,), (t,))
    both(lambda lib, x: run(lib, x, True), (v,), (t,))


@pytest.mark.parametrize("out_dtype", ["int64", "float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("in_dtype", ["int32", "float32", "float64"])
@pytest.mark.parametrize("name", INPLACE_UNARY)
def test_unary_out(name, in_dtype, out_dtype):
    v, t = pair((2, 3), in_dtype, UNARY[name])

    def run(lib, x):
        out = lib.empty(0, dtype=getattr(lib, out_dtype))
        assert getattr(lib, name)(x, out=out) is out
        return out

    # Computed in the input's float dtype, then cast: a float32 result keeps float32's
    # last-bit differences between libraries (SLEEF vs NumPy) in a float64 ``out``.
    computed_in_float32 = in_dtype in ("int32", "float32")
    both(run, (v,), (t,), **({"rtol": 1e-6, "atol": 1e-6} if computed_in_float32 else {}))


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"nan": 1.5}, {"posinf": 7.0}, {"neginf": -7.0}, {"nan": 2, "posinf": 3, "neginf": -3},
     {"nan": 1e300, "posinf": -1e300}, {"nan": True}],
    ids=repr,
)  # fmt: skip
@pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32", "float64", "complex64"])
def test_nan_to_num_replacements(dtype, kwargs):
    with np.errstate(all="ignore"):  # (the values that don't fit float16 are inf there)
        data = np.array(SPECIAL_VALUES, dtype=np.float64)
        if dtype.startswith("complex"):
            data = data + 1j * data[::-1]
        data = data.astype(dtype) if dtype[0] in "fc" else np.nan_to_num(data).astype(dtype)
    v, t = vg.from_numpy(data.copy()), torch.from_numpy(data.copy())
    assert_same(vg.nan_to_num(v, **kwargs), torch.nan_to_num(t, **kwargs))
    assert_same(v.clone().nan_to_num_(**kwargs), t.clone().nan_to_num_(**kwargs))
    positional = tuple(kwargs.get(k) for k in ("nan", "posinf", "neginf"))
    assert_same(v.nan_to_num(*positional), t.nan_to_num(*positional))


def test_positive_is_its_input():
    x = vg.arange(3.0, requires_grad=True)
    assert vg.positive(x) is x and x.positive() is x and (+x) is x
    assert_same_error(lambda: vg.positive(vg.tensor([True])),
                      lambda: torch.positive(torch.tensor([True])))  # fmt: skip
    assert_same_error(lambda: +vg.tensor([True]), lambda: +torch.tensor([True]))


# --- binary functions -------------------------------------------------------------------

BINARY = {
    "logaddexp": ((-5, 5), (-5, 5)), "logaddexp2": ((-5, 5), (-5, 5)),
    "copysign": ((-3, 3), (-3, 3)), "nextafter": ((-3, 3), (-3, 3)),
    "ldexp": ((-3, 3), (-4, 4)), "float_power": ((0.5, 3), (-2, 2)),
    "heaviside": ((-2, 2), (-2, 2)), "gcd": ((-20, 20), (-20, 20)),
    "lcm": ((-20, 20), (-20, 20)), "xlogy": ((-2, 3), (0, 3)), "hypot": ((-3, 3), (-3, 3)),
    "true_divide": ((-3, 3), (1, 3)),
}  # fmt: skip
# The in-place methods (``x.copysign_(y)``), and the in-place functions torch has too.
INPLACE_BINARY = ["copysign", "nextafter", "ldexp", "float_power", "heaviside", "gcd", "lcm",
                  "xlogy", "hypot", "true_divide"]  # fmt: skip
INPLACE_BINARY_FUNCTIONS = ["ldexp", "gcd", "lcm", "xlogy"]
MIXED_DTYPES = [("int64", "float32"), ("float16", "float64"), ("bool", "int8"),
                ("uint8", "int8"), ("int32", "complex64"), ("float32", "complex128"),
                ("bool", "bool"), ("int16", "int64")]  # fmt: skip


def binary_pairs(name, shapes, dtypes, layouts=("contiguous", "contiguous")):
    return [pair(shape, dtype, bounds, layout, seed=i)
            for i, (shape, dtype, bounds, layout)
            in enumerate(zip(shapes, dtypes, BINARY[name], layouts, strict=True))]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_dtypes(name, dtype):
    (a, ta), (b, tb) = binary_pairs(name, [(3, 4), (3, 4)], [dtype, dtype])
    both(lambda lib, x, y: getattr(lib, name)(x, y), (a, b), (ta, tb))
    both(lambda lib, x, y: getattr(x, name)(y), (a, b), (ta, tb))


@pytest.mark.parametrize("dtypes", MIXED_DTYPES, ids=repr)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_promotion(name, dtypes):
    (a, ta), (b, tb) = binary_pairs(name, [(2, 3), (2, 3)], dtypes)
    both(lambda lib, x, y: getattr(lib, name)(x, y), (a, b), (ta, tb))
    # A 0-dim operand takes part in promotion as a lower category only.
    (c, tc), (d, td) = binary_pairs(name, [(2, 3), ()], dtypes)
    both(lambda lib, x, y: getattr(lib, name)(x, y), (c, d), (tc, td))


@pytest.mark.parametrize("shapes", [((2, 1, 4), (3, 1)), ((), (2, 3)), ((0, 3), (1, 3)),
                                    ((2, 3), (2, 3))], ids=repr)  # fmt: skip
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_broadcasting_and_layouts(name, layout, shapes):
    dtype = "int64" if name in ("gcd", "lcm") else "float32"
    (a, ta), (b, tb) = binary_pairs(name, shapes, [dtype, dtype], (layout, "contiguous"))
    assert_same(getattr(vg, name)(a, b), getattr(torch, name)(ta, tb))
    assert_same(getattr(vg, name)(b, a), getattr(torch, name)(tb, ta))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_special_values(name, dtype):
    with np.errstate(over="ignore"):
        grid = np.array(np.meshgrid(SPECIAL_VALUES, SPECIAL_VALUES)).astype(dtype)
    v = [vg.from_numpy(g.copy()) for g in grid]
    t = [torch.from_numpy(g.copy()) for g in grid]
    both(lambda lib, x, y: getattr(lib, name)(x, y), v, t)


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int64", "int64"),
                                    ("float32", "float64"), ("float64", "int32"),
                                    ("bool", "bool"), ("complex64", "complex64")], ids=repr)  # fmt: skip
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
@pytest.mark.parametrize("name", INPLACE_BINARY)
def test_binary_inplace(name, layout, dtypes):
    (a, ta), (b, tb) = binary_pairs(name, [(3, 4), (4,)], dtypes, (layout, "contiguous"))

    def run(lib, x, y, function):
        x = x.clone() if layout != "expanded" else x
        result = getattr(lib, name + "_")(x, y) if function else getattr(x, name + "_")(y)
        assert result is x
        return x

    both(lambda lib, x, y: run(lib, x, y, False), (a, b), (ta, tb))
    if name in INPLACE_BINARY_FUNCTIONS:
        both(lambda lib, x, y: run(lib, x, y, True), (a, b), (ta, tb))


@pytest.mark.parametrize("out_dtype", ["bool", "int64", "float32", "float64", "complex128"])
@pytest.mark.parametrize("out_shape", [(0,), (2, 3), (5,)], ids=repr)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_out(name, out_shape, out_dtype):
    dtype = "int32" if name in ("gcd", "lcm") else "float32"
    (a, ta), (b, tb) = binary_pairs(name, [(2, 3), (3,)], [dtype, dtype])

    def run(lib, x, y):
        out = lib.zeros(out_shape, dtype=getattr(lib, out_dtype))
        assert getattr(lib, name)(x, y, out=out) is out
        return out

    # An out= of another shape with elements is resized with a warning. A float32 result
    # written to a float64 out= keeps float32's precision.
    both(run, (a, b), (ta, tb), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "call",
    ["lib.copysign(x, -1.0)", "lib.copysign(i, 2)", "x.copysign(-0.0)", "i.copysign(-1)",
     "lib.copysign(x, True)", "x.clone().copysign_(-2)", "lib.copysign(i, -1.5, out=x.clone())",
     "lib.float_power(x, 2)", "lib.float_power(2, x)", "lib.float_power(i, 3)",
     "lib.float_power(x, 2j)", "lib.float_power(1.5, i)", "lib.float_power(2j, x)",
     "lib.float_power(i, -2)", "d.clone().float_power_(2)", "d.clone().float_power_(i)",
     "lib.float_power(x, i, out=d.clone())", "lib.float_power(2, i, out=d.clone())",
     "lib.xlogy(2, x)", "lib.xlogy(x, 3)", "lib.xlogy(0, x)", "lib.xlogy(x, 0)",
     "x.xlogy(-1)", "x.clone().xlogy_(2)", "lib.xlogy(2, i, out=x.clone())",
     "lib.true_divide(i, 2)", "i.true_divide(2)", "x.clone().true_divide_(3)",
     "lib.clamp_min(i, 1)", "lib.clamp_max(x, 0.5)", "lib.clamp_min(x, x.flip(0))",
     "lib.clamp_max(i, x)", "i.clamp_min(-1)", "x.clone().clamp_max_(0.2)",
     "lib.clamp_min(i, 1.5)", "lib.clamp_max(b, True)", "lib.clamp_min(x, 1, out=x.clone())"],
)  # fmt: skip
def test_scalar_overloads(call):
    def run(lib):
        env = {"lib": lib, "x": lib.tensor([-2.0, -0.0, 0.5, 3.0]), "i": lib.tensor([-2, 0, 1, 3]),
               "d": lib.tensor([-2.0, 0.0, 1.5, 3.0], dtype=lib.float64),
               "b": lib.tensor([True, False, True, False])}  # fmt: skip
        return eval(call, env)

    same_outcome(lambda: run(vg), lambda: run(torch))


# --- frexp --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_frexp_dtypes(dtype):
    v, t = pair((3, 4), dtype, (-100, 100))
    both(lambda lib, x: lib.frexp(x), (v,), (t,))
    both(lambda lib, x: x.frexp(), (v,), (t,))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_frexp_layouts_and_values(layout, shape):
    v, t = pair(shape, "float64", (-1e5, 1e5), layout)
    result, expected = vg.frexp(v), torch.frexp(t)
    assert_same(result, expected)
    assert type(result).__name__ == "frexp" and result._fields == ("mantissa", "exponent")
    assert_same(result.mantissa, expected.mantissa)
    assert_same(result.exponent, expected.exponent)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_frexp_special_values(dtype):
    v, t = values(dtype)
    assert_same(vg.frexp(v), torch.frexp(t))


@pytest.mark.parametrize(
    "dtypes", [("float32", "int32"), ("float64", "int32"), ("float32", "int64"),
               ("float16", "int32")], ids=repr,
)  # fmt: skip
@pytest.mark.parametrize("out_shape", [(0,), (2, 3), (3,)], ids=repr)
def test_frexp_out(dtypes, out_shape):
    v, t = pair((2, 3), "float32", (-9, 9))

    def run(lib, x):
        mantissa = lib.zeros(out_shape, dtype=getattr(lib, dtypes[0]))
        exponent = lib.zeros(out_shape, dtype=getattr(lib, dtypes[1]))
        result = lib.frexp(x, out=(mantissa, exponent))
        assert result[0] is mantissa and result[1] is exponent
        assert type(result).__name__ == "frexp_out"
        return result

    both(run, (v,), (t,))


@pytest.mark.parametrize("out_shape", [(0,), (2, 3), (5,)], ids=repr)
def test_frexp_out_resized_is_laid_out_like_the_input(out_shape):
    """A resized ``out`` takes the input's layout (TensorIterator's), one of the right shape
    keeps its own."""
    for size, stride in (((3, 2), (1, 3)), ((2, 3, 4, 5), (60, 1, 15, 3))):
        v, t = vg.empty_strided(size, stride).fill_(3.0), torch.empty_strided(size, stride).fill_(3)
        outs = {}
        for lib, x in ((vg, v), (torch, t)):
            mantissa, exponent = lib.zeros(out_shape), lib.zeros(out_shape, dtype=lib.int32)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lib.frexp(x, out=(mantissa, exponent))
            outs[lib] = (mantissa.stride(), exponent.stride(), mantissa.tolist())
        assert outs[vg] == outs[torch]


def test_frexp_and_ldexp_invert_each_other():
    v, t = pair((50,), "float64", (-1e6, 1e6))
    mantissa, exponent = vg.frexp(v)
    assert_same(vg.ldexp(mantissa, exponent), torch.ldexp(*torch.frexp(t)))
    assert vg.equal(vg.ldexp(mantissa, exponent), v)


# --- the edges of integer arithmetic --------------------------------------------------------


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_gcd_lcm_extremes(name, dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.max, info.min, 0, 0, -12 % (info.max + 1), 100, info.max],
                 dtype=dtype)  # fmt: skip
    b = np.array([0, info.max, -1 if info.min else 1, 0, 7, 18, 120, 2], dtype=dtype)
    v = [vg.from_numpy(a.copy()), vg.from_numpy(b.copy())]
    t = [torch.from_numpy(a.copy()), torch.from_numpy(b.copy())]
    assert_same(getattr(vg, name)(*v), getattr(torch, name)(*t))


@pytest.mark.parametrize("values", [(0.0, 0.5), (-0.0, 0.5), (math.nan, 0.5), (0.0, math.nan),
                                    (-1.0, 7.0), (2.0, 7.0)], ids=repr)  # fmt: skip
def test_heaviside_cases(values):
    x, value = values
    assert_same(vg.heaviside(vg.tensor([x]), vg.tensor([value])),
                torch.heaviside(torch.tensor([x]), torch.tensor([value])))  # fmt: skip


# --- gradients ------------------------------------------------------------------------------

GRADIENTS = {
    # name: (vizgrad call, torch call, input shapes, value range)
    "acosh": (vg.acosh, torch.acosh, [(2, 3)], (1.5, 4)),
    "arccosh": (vg.arccosh, torch.arccosh, [(2, 3)], (1.5, 4)),
    "asinh": (vg.asinh, torch.asinh, [(2, 3)], (-3, 3)),
    "atanh": (vg.atanh, torch.atanh, [(2, 3)], (-0.9, 0.9)),
    "deg2rad": (vg.deg2rad, torch.deg2rad, [(2, 3)], (-90, 90)),
    "rad2deg": (vg.rad2deg, torch.rad2deg, [(2, 3)], (-3, 3)),
    "nan_to_num": (vg.nan_to_num, torch.nan_to_num, [(2, 3)], (-3, 3)),
    "logaddexp": (vg.logaddexp, torch.logaddexp, [(2, 3), (3,)], (-3, 3)),
    "logaddexp2": (vg.logaddexp2, torch.logaddexp2, [(2, 3), (3,)], (-3, 3)),
    "copysign": (vg.copysign, torch.copysign, [(2, 3), (2, 3)], (-3, 3)),
    "copysign.Scalar": (lambda x: vg.copysign(x, -1.0), lambda x: torch.copysign(x, -1.0),
                        [(2, 3)], (-3, 3)),
    "nextafter": (vg.nextafter, torch.nextafter, [(2, 3), (2, 3)], (-3, 3)),
    "ldexp": (vg.ldexp, torch.ldexp, [(2, 3), (3,)], (-3, 3)),
    "frexp": (vg.frexp, torch.frexp, [(2, 3)], (-30, 30)),
    "float_power": (vg.float_power, torch.float_power, [(2, 3), (2, 3)], (0.5, 2)),
    "float_power.Tensor_Scalar": (lambda x: vg.float_power(x, 2.5),
                                  lambda x: torch.float_power(x, 2.5), [(2, 3)], (0.5, 2)),
    "float_power.Scalar": (lambda x: vg.float_power(1.5, x), lambda x: torch.float_power(1.5, x),
                           [(2, 3)], (-2, 2)),
    "xlogy": (vg.xlogy, torch.xlogy, [(2, 3), (2, 3)], (0.5, 3)),
    "hypot": (vg.hypot, torch.hypot, [(2, 3), (3,)], (0.5, 3)),
    "true_divide": (vg.true_divide, torch.true_divide, [(2, 3), (3,)], (0.5, 3)),
    "clamp_min": (vg.clamp_min, torch.clamp_min, [(2, 3), (3,)], (-3, 3)),
    "clamp_max": (lambda x: vg.clamp_max(x, 0.5), lambda x: torch.clamp_max(x, 0.5), [(2, 3)],
                  (-3, 3)),
}  # fmt: skip


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradients(name, layout):
    """The node's name, ``.grad`` against torch's, and gradcheck (float64)."""
    vg_fn, torch_fn, shapes, (low, high) = GRADIENTS[name]
    check_gradients(vg_fn, torch_fn, shapes, layouts=[layout] * len(shapes),
                    value_range={"low": low, "high": high})  # fmt: skip


@pytest.mark.parametrize("name", ["atanh", "acosh", "logaddexp", "logaddexp2", "ldexp",
                                  "copysign", "float_power"])  # fmt: skip
def test_second_order(name):
    """Gradients of gradients: the formulas are recorded with create_graph=True."""
    vg_fn, torch_fn, shapes, (low, high) = GRADIENTS[name]
    pairs = [leaf_pair(s, seed=i, low=low, high=high) for i, s in enumerate(shapes)]
    v_in, t_in = [p[0] for p in pairs], [p[1] for p in pairs]
    v_grads = vg.autograd.grad(vg_fn(*v_in).sum(), v_in, create_graph=True)
    t_grads = torch.autograd.grad(torch_fn(*t_in).sum(), t_in, create_graph=True)
    for v, t in zip(v_grads, t_grads, strict=True):
        assert_same(v, t, check_stride=False)
    v_second = vg.autograd.grad(sum(g.sum() for g in v_grads), v_in, allow_unused=True)
    t_second = torch.autograd.grad(sum(g.sum() for g in t_grads), t_in, allow_unused=True)
    for v, t in zip(v_second, t_second, strict=True):
        assert (v is None) == (t is None)
        if t is not None:
            assert_same(v, t, check_stride=False)
    fresh = [p[0].detach().requires_grad_() for p in pairs]
    assert vg.autograd.gradgradcheck(vg_fn, fresh)


@pytest.mark.parametrize("name", ["acosh", "asinh", "atanh"])
def test_inplace_inverse_hyperbolic_records_a_node_that_refuses(name):
    """``x.acosh_()`` records AcoshBackward1, whose backward is not implemented."""
    results = []
    for lib in (vg, torch):
        x = lib.tensor([1.5, 2.0], requires_grad=True)
        y = getattr(x.clone(), name + "_")()
        results.append(type(y.grad_fn).__name__)
    assert results[0] == results[1] == f"{name.capitalize()}Backward1"
    assert_same_error(
        lambda: getattr(vg.tensor([1.5], requires_grad=True).clone(), name + "_")().backward(),
        lambda: getattr(torch.tensor([1.5], requires_grad=True).clone(), name + "_")().backward(),
    )


@pytest.mark.parametrize("name", ["copysign", "nextafter", "ldexp", "logaddexp", "deg2rad",
                                  "nan_to_num", "hypot", "xlogy"])  # fmt: skip
def test_inplace_gradients(name):
    """The in-place forms record the functional form's node (``x.copysign_(y)``:
    CopysignBackward0), with the same gradients."""

    def run(lib):
        x = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([-1.0, 2.0, 0.25], dtype=lib.float64, requires_grad=True)
        z = x.clone()
        method = getattr(z, name + "_", None)
        if method is None:  # logaddexp has no in-place form
            z = getattr(lib, name)(z, y)
        else:
            z = method(y) if name not in ("deg2rad", "nan_to_num") else method()
        z.backward(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64))
        return type(z.grad_fn).__name__, x.grad, y.grad

    (v_node, *v_grads), (t_node, *t_grads) = run(vg), run(torch)
    assert v_node == t_node
    for v, t in zip(v_grads, t_grads, strict=True):
        assert (v is None) == (t is None)
        if t is not None:
            assert_same(v, t)


def test_heaviside_records_a_node_that_refuses():
    for lib in (vg, torch):
        x = lib.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        assert lib.heaviside(x, x).grad_fn.name().endswith("NotImplemented")
    assert_same_error(
        lambda: vg.heaviside(vg.ones(2, requires_grad=True), vg.ones(2)).sum().backward(),
        lambda: torch.heaviside(torch.ones(2, requires_grad=True), torch.ones(2)).sum().backward(),
    )


def test_frexp_gradient_flows_through_the_mantissa_only():
    v, t = leaf_pair((2, 3), low=-30, high=30)
    (vm, ve), (tm, te) = vg.frexp(v), torch.frexp(t)
    assert not ve.requires_grad and not te.requires_grad
    assert vm.grad_fn.name() == type(tm.grad_fn).__name__ == "FrexpBackward0"
    (vm * vm).sum().backward()
    (tm * tm).sum().backward()
    assert_same(v.grad, t.grad)


def test_float_power_graph_converts_first():
    """float_power is pow in double: the graph is ``pow`` after a conversion."""
    v, t = leaf_pair((3,), dtype="float32", low=0.5, high=2)
    vr, tr = vg.float_power(v, 2), torch.float_power(t, 2)
    assert vr.grad_fn.name() == type(tr.grad_fn).__name__ == "PowBackward0"
    v_next = [type(n).__name__ for n, _ in vr.grad_fn.next_functions]
    t_next = [type(n).__name__ for n, _ in tr.grad_fn.next_functions]
    assert v_next == t_next == ["ToCopyBackward0"]


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    ["lib.acosh(x, x)", "lib.acosh('a')", "lib.atanh_(i)", "lib.deg2rad(c)",
     "c.rad2deg_()", "lib.nan_to_num(x, nan='a')", "lib.nan_to_num(x, out=i)",
     "lib.nan_to_num(x, 1, 2, 3, 4)", "lib.positive(b)",
     "lib.logaddexp(x, 2)", "lib.logaddexp(i, i)", "lib.logaddexp2(c, c)",
     "lib.copysign(c, x)", "lib.copysign(x, 1j)", "lib.copysign(x, 'a')",
     "lib.nextafter(i, i)", "lib.nextafter(x, 1.0)",
     "lib.ldexp(x, 2)", "lib.ldexp(x, i, out=i)", "i.clone().ldexp_(i)",
     "lib.frexp(i)", "lib.frexp(c)", "lib.frexp(x, out=(x, x))", "lib.frexp(x, out=(x,))",
     "lib.frexp(x, out=(x.double(), i.int()))", "lib.frexp(x, out=(x.clone(), i))",
     "lib.frexp(m, out=(m[0], m.int()))", "lib.frexp(x, out=(x[:1].expand(3), i.int()))",
     "lib.float_power(x, i, out=x)", "x.clone().float_power_(2)", "x.clone().float_power_(i)",
     "lib.float_power(x.double(), 2j, out=x.double())", "d.clone().float_power_(2j)",
     "lib.float_power(x, 'a')", "lib.heaviside(x, i)", "lib.heaviside(c, c)",
     "lib.heaviside(x, x, out=d)", "lib.heaviside(x, 0.5)", "lib.gcd(x, x)", "lib.gcd(b, b)",
     "lib.lcm(i, 2)", "lib.lcm(c, c)", "lib.gcd(i, x)",
     "i.clone().gcd_(x.long().double())", "lib.hypot(i, i)", "lib.xlogy(c, c)",
     "lib.true_divide(x, 'a')", "lib.clamp_min(c, 1)", "lib.clamp_max(x)",
     "lib.signbit(c)", "lib.signbit(x, out=x)", "lib.logaddexp(x, lib.ones(2))"],
)  # fmt: skip
def test_bad_input_raises_torchs_errors(call):
    def run(lib):
        env = {"lib": lib, "x": lib.ones(3), "i": lib.ones(3, dtype=lib.int64),
               "c": lib.ones(3, dtype=lib.complex64), "b": lib.ones(3, dtype=lib.bool),
               "d": lib.ones(3, dtype=lib.float64), "m": lib.ones(2, 2)}  # fmt: skip
        return eval(call, env)

    assert_same_error(lambda: run(vg), lambda: run(torch))


# --- complex gradients ---------------------------------------------------------------------

COMPLEX_GRADIENTS = {
    # name: (call, whether the second operand is real)
    "acosh": (lambda lib, z, w: lib.acosh(z), False),
    "asinh": (lambda lib, z, w: lib.asinh(z), False),
    "atanh": (lambda lib, z, w: lib.atanh(z), False),
    "logaddexp": (lambda lib, z, w: lib.logaddexp(z, w), False),
    "ldexp": (lambda lib, z, w: lib.ldexp(z, w), False),
    "float_power": (lambda lib, z, w: lib.float_power(z, w), False),
    "float_power.real_exponent": (lambda lib, z, w: lib.float_power(z, w), True),
}


@pytest.mark.parametrize("name", list(COMPLEX_GRADIENTS))
def test_complex_gradients(name):
    """The conjugate Wirtinger gradients PyTorch computes (its formulas' ``.conj()``); a
    real input gets the real part of its gradient."""
    call, real_second = COMPLEX_GRADIENTS[name]
    z = np.array([0.3 + 0.4j, -1.2 + 0.5j, 2.0 - 0.7j])
    w = np.array([0.1 - 0.2j, 0.5 + 1.5j, -0.3 - 0.4j])
    w = w.real if real_second else w
    upstream = np.array([1 + 0.5j, -0.3 + 2j, 0.7 - 0.1j])

    def run(lib):
        a = lib.tensor(z, requires_grad=True)
        b = lib.tensor(w, requires_grad=True)
        result = call(lib, a, b)
        result.backward(lib.tensor(upstream, dtype=result.dtype))
        return type(result.grad_fn).__name__, result.detach(), a.grad, b.grad

    (v_node, *v_values), (t_node, *t_values) = run(vg), run(torch)
    assert v_node == t_node
    for v, t in zip(v_values, t_values, strict=True):
        assert (v is None) == (t is None)
        if t is not None:
            assert_same(v, t, check_stride=False)


def test_complex_autograd_refused_where_torch_refuses():
    """``nan_to_num`` has no complex formula in PyTorch: a complex input that requires
    grad is refused."""

    def run(lib):
        return lib.nan_to_num(lib.tensor([1 + 2j, 3 - 1j], requires_grad=True))

    assert_same_error(lambda: run(vg), lambda: run(torch))


@pytest.mark.parametrize(
    "call",
    ["lib.arcsin(x, out=o)", "lib.arccosh(x + 1, out=o)", "lib.absolute(x, out=o)",
     "lib.negative(x, out=o)", "lib.fix(x, out=o)", "lib.clip(x, 0, 1, out=o)",
     "lib.clip(x, y, out=o)", "lib.true_divide(x, y, out=o)", "lib.divide(x, y, out=o)",
     "lib.divide(x, y, rounding_mode='floor', out=o)", "lib.subtract(x, y, out=o)",
     "lib.multiply(x, y, out=o)", "lib.arctan2(x, y, out=o)", "lib.ldexp(x, y, out=o)",
     "lib.float_power(x.double(), 2, out=o.double())", "lib.frexp(x, out=(o, o.int()))",
     "lib.logaddexp(x, y, out=o)", "lib.nan_to_num(x, out=o)", "lib.copysign(x, -1, out=o)"],
)  # fmt: skip
def test_out_refuses_autograd_in_the_main_operators_name(call):
    """An alias's out= overload is made of the main operator's, which refuses autograd in
    its own name: ``arcsin(x, out=o)`` says ``asin()``."""

    def run(lib):
        env = {"lib": lib, "x": lib.tensor([0.3, 0.6], requires_grad=True),
               "y": lib.tensor([0.5, 0.2]), "o": lib.empty(2)}  # fmt: skip
        return eval(call, env)

    assert_same_error(lambda: run(vg), lambda: run(torch))

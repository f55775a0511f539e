"""Searching sorted values (``searchsorted``, ``bucketize``) and membership (``isin``) against PyTorch.

Positions on every layout and dtype, batched sequences, ``right``/``side``, ``sorter``,
``out_int32``, Python numbers for values, nan and inf, ``out=``, PyTorch's errors and
warnings; ``isin`` both ways round, ``invert``, ``assume_unique`` (whose promise, when
broken, gives PyTorch's own wrong answers); none of them records a gradient.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair, pair_from_storage

import vizgrad as vg

INF, NAN = float("inf"), float("nan")
DTYPES = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8"]


def _pair(values, dtype="float32"):
    data = np.array(values, dtype=dtype)
    return pair_from_storage(data, data.shape, vg.shape.contiguous_strides(data.shape))


def sorted_pair(shape, dtype, layout="contiguous", seed=0):
    """Rows sorted along the last dim, with repeats (so ``side`` matters)."""
    v, t = make_pair(shape, dtype, layout, seed, low=0, high=6)
    sorted_t = torch.sort(t, dim=-1).values if t.dim() else t
    data = sorted_t.contiguous().numpy()
    if layout == "contiguous":
        return _pair(data, dtype)
    vs, ts = make_pair(shape, dtype, layout, seed)  # same layout, our sorted values
    vs.copy_(vg.from_numpy(data)), ts.copy_(torch.from_numpy(data))
    return vs, ts


def quietly(call):
    """PyTorch warns about a strided argument (once per program); the tests compare values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", [{}, {"right": True}, {"side": "right"}, {"side": "left"},
                                     {"out_int32": True, "right": True}])  # fmt: skip
def test_searchsorted_one_sequence(layout, dtype, options):
    sequence, tsequence = sorted_pair((9,), dtype)
    values, tvalues = make_pair((3, 4, 5), dtype, layout, seed=1, low=-1, high=7)
    assert_same(quietly(lambda: vg.searchsorted(sequence, values, **options)),
                quietly(lambda: torch.searchsorted(tsequence, tvalues, **options)))  # fmt: skip


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_a_batch_of_sequences(layout, dtype, right):
    sequence, tsequence = sorted_pair((3, 4, 7), dtype, layout)
    values, tvalues = make_pair((3, 4, 5), dtype, layout, seed=2, low=-1, high=7)
    assert_same(quietly(lambda: vg.searchsorted(sequence, values, right=right)),
                quietly(lambda: torch.searchsorted(tsequence, tvalues, right=right)))  # fmt: skip


def test_searchsorted_sorter_unsorted_sequences_and_numbers():
    rng = np.random.default_rng(0)
    data = rng.integers(0, 6, (3, 8)).astype("float64")
    sequence, tsequence = _pair(data, "float64")
    order = np.argsort(data, axis=-1, kind="stable")
    sorter, tsorter = _pair(order, "int64")
    values, tvalues = make_pair((3, 5), "float64", seed=3, low=-1, high=7)
    for side in ("left", "right"):
        assert_same(vg.searchsorted(sequence, values, side=side, sorter=sorter),
                    torch.searchsorted(tsequence, tvalues, side=side, sorter=tsorter))  # fmt: skip
    one, tone = _pair(data[0], "float64")
    assert_same(vg.searchsorted(one, values, sorter=sorter[0]),
                torch.searchsorted(tone, tvalues, sorter=tsorter[0]))  # fmt: skip
    # without a sorter, an unsorted sequence gives what the bisection finds, as in torch
    assert_same(vg.searchsorted(sequence, values), torch.searchsorted(tsequence, tvalues))
    # a Python number is searched as a wrapped number (promoted as in arithmetic)
    ints, tints = _pair([1, 3, 3, 5, 8], "int64")
    for number in (3, 4.5, -2, 2**62, True, 3.0):
        for right in (False, True):
            assert_same(vg.searchsorted(ints, number, right=right),
                        torch.searchsorted(tints, number, right=right))  # fmt: skip
            assert_same(vg.bucketize(number, ints, right=right),
                        torch.bucketize(number, tints, right=right))  # fmt: skip
    assert_same(
        vg.searchsorted(ints, 4, out_int32=True), torch.searchsorted(tints, 4, out_int32=True)
    )
    # a number beyond 64 bits is no Scalar: refused while parsing, as torch does
    assert_same_error(
        lambda: vg.searchsorted(ints, 10**20), lambda: torch.searchsorted(tints, 10**20)
    )


def test_searchsorted_nan_inf_mixed_dtypes_zero_dim_and_empty():
    sequence, tsequence = _pair([1.0, 2.0, 2.0, INF, NAN])
    values, tvalues = _pair([NAN, 1.5, INF, -INF, 2.0, 3.0])
    for side in ("left", "right"):
        assert_same(vg.searchsorted(sequence, values, side=side),
                    torch.searchsorted(tsequence, tvalues, side=side))  # fmt: skip
    mixed = [
        ("uint8", "float32"),
        ("int64", "float64"),
        ("float32", "int32"),
        ("float16", "float64"),
    ]
    for sequence_dtype, values_dtype in mixed:
        s, ts = _pair([0, 1, 2, 4], sequence_dtype)
        v, tv = _pair([1.5, 2, 3.9, -1], values_dtype)
        assert_same(vg.searchsorted(s, v), torch.searchsorted(ts, tv))
        assert_same(vg.bucketize(v, s, right=True), torch.bucketize(tv, ts, right=True))
        assert_same(vg.isin(v, s), torch.isin(tv, ts))
    s, ts = _pair([1.0, 3.0])
    assert_same(vg.searchsorted(s, vg.tensor(2.0)), torch.searchsorted(ts, torch.tensor(2.0)))
    assert_same(vg.bucketize(vg.tensor(4.0), s), torch.bucketize(torch.tensor(4.0), ts))
    for sequence_shape, values_shape in (
        ((0,), (3,)),
        ((2,), (0,)),
        ((2, 0), (2, 3)),
        ((2, 3), (2, 0)),
    ):
        s, ts = vg.zeros(sequence_shape), torch.zeros(sequence_shape)
        v, tv = vg.ones(values_shape), torch.ones(values_shape)
        assert_same(vg.searchsorted(s, v), torch.searchsorted(ts, tv))


def test_searchsorted_and_bucketize_out():
    sequence, tsequence = sorted_pair((7,), "float32")
    values, tvalues = make_pair((2, 3), "float32", seed=4, low=-1, high=7)
    for out_int32, shape in ((False, (2, 3)), (True, (0,)), (False, (5,))):
        dtype = vg.int32 if out_int32 else vg.int64
        out, tout = (
            vg.zeros(shape, dtype=dtype),
            torch.zeros(shape, dtype=getattr(torch, dtype.name)),
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = vg.searchsorted(sequence, values, out_int32=out_int32, out=out)
            expected = torch.searchsorted(tsequence, tvalues, out_int32=out_int32, out=tout)
        assert result is out
        assert_same(result, expected)
        assert len(caught) == (2 if shape == (5,) else 0)  # the resize warning, in both
        out, tout = (
            vg.zeros(shape, dtype=dtype),
            torch.zeros(shape, dtype=getattr(torch, dtype.name)),
        )
        assert vg.bucketize(values, sequence, out_int32=out_int32, out=out) is out
        assert_same(out, torch.bucketize(tvalues, tsequence, out_int32=out_int32, out=tout))
    out, tout = vg.zeros((), dtype=vg.int64), torch.zeros((), dtype=torch.long)
    assert_same(
        vg.searchsorted(sequence, 2.5, out=out), torch.searchsorted(tsequence, 2.5, out=tout)
    )
    for out_dtype, out_int32 in (("int32", False), ("int64", True), ("float32", False)):
        assert_same_error(
            lambda d=out_dtype, o=out_int32: vg.searchsorted(
                sequence, values, out_int32=o, out=vg.zeros(2, 3, dtype=getattr(vg, d))),
            lambda d=out_dtype, o=out_int32: torch.searchsorted(
                tsequence, tvalues, out_int32=o, out=torch.zeros(2, 3, dtype=getattr(torch, d))),
        )  # fmt: skip


def test_searchsorted_and_bucketize_errors():
    s, ts = _pair([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    v, tv = _pair([[1.0], [5.0]])
    cases = [
        ({"side": "middle"}, None), ({"side": "left", "right": True}, None),
        ({"sorter": vg.tensor([[0, 1], [1, 0]])}, {"sorter": torch.tensor([[0, 1], [1, 0]])}),
        ({"sorter": vg.tensor([[0, 1, 2]] * 2, dtype=vg.int32)},
         {"sorter": torch.tensor([[0, 1, 2]] * 2, dtype=torch.int32)}),
        ({"sorter": vg.tensor([[0, 1, 3]] * 2)}, {"sorter": torch.tensor([[0, 1, 3]] * 2)}),
        ({"sorter": vg.tensor([[0, -1, 2]] * 2)}, {"sorter": torch.tensor([[0, -1, 2]] * 2)}),
    ]  # fmt: skip
    for options, toptions in cases:
        assert_same_error(lambda o=options: vg.searchsorted(s, v, **o),
                          lambda o=toptions or options: torch.searchsorted(ts, tv, **o))  # fmt: skip
    bad_shapes = [(s, vg.tensor(1.0)), (s, vg.ones(3, 1)), (s, vg.ones(2)), (vg.tensor(1.0), vg.ones(2)),
                  (s.t(), v)]  # fmt: skip
    for sequence, values in bad_shapes:
        tsequence = torch.from_numpy(sequence.numpy()).as_strided(
            tuple(sequence.shape), sequence.stride()
        )
        tvalues = torch.from_numpy(values.numpy())
        assert_same_error(lambda a=sequence, b=values: quietly(lambda: vg.searchsorted(a, b)),
                          lambda a=tsequence, b=tvalues: quietly(lambda: torch.searchsorted(a, b)))  # fmt: skip
    assert_same_error(lambda: vg.searchsorted(s, 2.0), lambda: torch.searchsorted(ts, 2.0))
    for dtype in ("bool", "complex64"):
        a, ta = make_pair((3,), dtype)
        assert_same_error(lambda a=a: vg.searchsorted(a, a), lambda a=ta: torch.searchsorted(a, a))
        assert_same_error(lambda a=a: vg.bucketize(a, a), lambda a=ta: torch.bucketize(a, a))
    assert_same_error(lambda: vg.searchsorted(s[0], 1j), lambda: torch.searchsorted(ts[0], 1j))
    assert_same_error(lambda: vg.bucketize(v, s), lambda: torch.bucketize(tv, ts))
    assert_same_error(lambda: vg.bucketize(2, s, out=vg.zeros((), dtype=vg.int64)),
                      lambda: torch.bucketize(2, ts, out=torch.zeros((), dtype=torch.long)))  # fmt: skip
    assert not hasattr(vg.Tensor, "searchsorted") and not hasattr(vg.Tensor, "bucketize")
    assert not hasattr(vg.Tensor, "isin")


def test_searchsorted_warns_about_strided_arguments_as_torch():
    s, ts = make_pair((6,), "float32", "stepped")
    v, tv = make_pair((2, 3), "float32", "transposed")
    for vg_call, torch_call in ((lambda: vg.searchsorted(s, v.contiguous()),
                                 lambda: torch.searchsorted(ts, tv.contiguous())),
                                (lambda: vg.bucketize(v, s.contiguous()),
                                 lambda: torch.bucketize(tv, ts.contiguous()))):  # fmt: skip
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            vg_call()
        (warning,) = caught
        assert "non-contiguous" in str(warning.message)
        assert warning.filename == __file__  # the user's line, not vizgrad's
        assert_same(quietly(vg_call), quietly(torch_call))


# --- isin -------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("test_size", [3, 40])  # few test elements: compared; many: sorted
@pytest.mark.parametrize("invert", [False, True])
def test_isin(layout, dtype, test_size, invert):
    elements, telements = make_pair((3, 4, 5), dtype, layout, low=-4, high=5)
    tests, ttests = make_pair((test_size,), dtype, "stepped", seed=1, low=-4, high=5)
    for assume_unique in (False, True):
        assert_same(vg.isin(elements, tests, invert=invert, assume_unique=assume_unique),
                    torch.isin(telements, ttests, invert=invert, assume_unique=assume_unique))  # fmt: skip


def test_isin_numbers_nan_zero_dim_empty_and_out():
    elements, telements = _pair([[1.0, NAN, -0.0], [INF, 2.5, 3.0]])
    tests, ttests = _pair([NAN, 0.0, INF, 3])
    assert_same(vg.isin(elements, tests), torch.isin(telements, ttests))
    for number in (3, 2.5, -0.0, INF, NAN):
        assert_same(vg.isin(elements, number), torch.isin(telements, number))
        assert_same(vg.isin(number, tests, invert=True), torch.isin(number, ttests, invert=True))
        assert_same(
            vg.isin(elements, test_element=number), torch.isin(telements, test_element=number)
        )
        assert_same(vg.isin(element=number, test_elements=tests),
                    torch.isin(element=number, test_elements=ttests))  # fmt: skip
    assert_same(vg.isin(vg.tensor(3.0), tests), torch.isin(torch.tensor(3.0), ttests))
    assert_same(vg.isin(vg.zeros(0, 2), tests), torch.isin(torch.zeros(0, 2), ttests))
    assert_same(vg.isin(elements, vg.zeros(0)), torch.isin(telements, torch.zeros(0)))
    assert_same(
        vg.isin(vg.ones(2).expand(3, 2), tests), torch.isin(torch.ones(2).expand(3, 2), ttests)
    )
    for shape in ((2, 3), (0,), (6,)):
        out, tout = vg.ones(shape, dtype=vg.bool), torch.ones(shape, dtype=torch.bool)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert vg.isin(elements, tests, out=out) is out
            assert_same(out, torch.isin(telements, ttests, out=tout))
            assert vg.isin(elements, 3.0, out=out) is out
            assert_same(out, torch.isin(telements, 3.0, out=tout))
            assert vg.isin(3.0, tests, invert=True, out=out) is out
            assert_same(out, torch.isin(3.0, ttests, invert=True, out=tout))


def test_isin_errors():
    elements, telements = _pair([1.0, 2.0])
    for dtype in ("bool", "complex64", "complex128"):
        a, ta = make_pair((3,), dtype)
        assert_same_error(lambda a=a: vg.isin(a, elements), lambda a=ta: torch.isin(a, telements))
        assert_same_error(lambda a=a: vg.isin(elements, a), lambda a=ta: torch.isin(telements, a))
    for number in (True, 1j):
        assert_same_error(
            lambda n=number: vg.isin(elements, n), lambda n=number: torch.isin(telements, n)
        )
        assert_same_error(
            lambda n=number: vg.isin(n, elements), lambda n=number: torch.isin(n, telements)
        )
    assert_same_error(lambda: vg.isin(1, 2), lambda: torch.isin(1, 2))
    assert_same_error(lambda: vg.isin(elements, elements, out=vg.zeros(2, dtype=vg.int64)),
                      lambda: torch.isin(telements, telements, out=torch.zeros(2, dtype=torch.long)))  # fmt: skip


@pytest.mark.parametrize("call", [
    lambda lib, a, b: lib.searchsorted(a, b), lambda lib, a, b: lib.bucketize(b, a),
    lambda lib, a, b: lib.isin(b, a), lambda lib, a, b: lib.searchsorted(a, 0.5),
])  # fmt: skip
def test_nothing_is_differentiable(call):
    a, ta = (
        vg.tensor([0.0, 1.0, 2.0], requires_grad=True),
        torch.tensor([0.0, 1.0, 2.0], requires_grad=True),
    )
    b, tb = vg.tensor([0.5, 2.0], requires_grad=True), torch.tensor([0.5, 2.0], requires_grad=True)
    result, expected = call(vg, a, b), call(torch, ta, tb)
    assert_same(result, expected)
    assert result.grad_fn is None and not result.requires_grad and not expected.requires_grad
    out, tout = vg.empty(0, dtype=result.dtype), torch.empty(0, dtype=expected.dtype)
    assert_same(vg.searchsorted(a, b, out=out.long()), torch.searchsorted(ta, tb, out=tout.long()))

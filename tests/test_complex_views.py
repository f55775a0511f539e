"""Complex numbers as views and from parts: ``view_as_real``, ``view_as_complex``, ``real``,
``imag`` (readable and writable), ``complex``, ``polar``, ``angle`` and the ``is_*``
questions, against torch: values, dtypes, strides, offsets, sharing and errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, assert_same_outcome, make_pair

import vizgrad as vg

COMPLEX = ["complex64", "complex128"]
REAL = ["float32", "float64"]
SHAPES = [(), (3,), (2, 3), (0, 2), (2, 1, 3)]


def _same_view(v, t, v_base, t_base):
    """Values, metadata, and the view relation (storage, ``_base``, version counter)."""
    assert_same(v, t, check_offset=True)
    assert v.untyped_storage() is v_base.untyped_storage()
    assert (v._base is None) == (t._base is None)
    assert v._version == v_base._version


# --- view_as_real / view_as_complex -------------------------------------------------------


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_view_as_real(dtype, layout, shape):
    v, t = make_pair(shape, dtype, layout)
    _same_view(vg.view_as_real(v), torch.view_as_real(t), v, t)


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(2,), (3, 2), (2, 3, 2), (0, 2), (3, 4)])
def test_view_as_complex_or_its_error(dtype, layout, shape):
    v, t = make_pair(shape, dtype, layout)
    try:
        expected = torch.view_as_complex(t)
    except RuntimeError:
        assert_same_error(lambda: vg.view_as_complex(v), lambda: torch.view_as_complex(t))
        return
    _same_view(vg.view_as_complex(v), expected, v, t)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.view_as_complex(lib.zeros(3)),
        lambda lib: lib.view_as_complex(lib.zeros(())),
        lambda lib: lib.view_as_complex(lib.zeros(3, 2).t()),
        lambda lib: lib.view_as_complex(lib.zeros(5)[1:].view(2, 2)),
        lambda lib: lib.view_as_complex(lib.zeros(3, 3)[:, :2]),
        lambda lib: lib.view_as_complex(lib.zeros(3, 4)[:, :2]),
        lambda lib: lib.view_as_complex(lib.zeros(3, 2, dtype=lib.int32)),
        lambda lib: lib.view_as_complex(lib.zeros(2, 2).expand(3, 2, 2)),
        lambda lib: lib.view_as_complex(lib.zeros(2, 2)[:, None].expand(2, 3, 2)),
        lambda lib: lib.view_as_real(lib.zeros(3)),
        lambda lib: lib.view_as_real(lib.tensor([1 + 2j]).conj()),
        lambda lib: lib.view_as_real(lib.tensor([1 + 2j])._neg_view()),
        lambda lib: lib.view_as_complex(lib.tensor([1 + 2j]).conj().imag.expand(2)),
        lambda lib: lib.view_as_complex(lib.tensor([[1.0, 2.0]])._neg_view()),
    ],
)
def test_view_as_real_and_complex_edge_cases(make):
    try:
        expected = make(torch)
    except RuntimeError:
        assert_same_error(lambda: make(vg), lambda: make(torch))
        return
    got = make(vg)
    assert (got.is_conj(), got.is_neg()) == (expected.is_conj(), expected.is_neg())
    assert got.stride() == expected.stride()
    assert got.storage_offset() == expected.storage_offset()
    assert_same(got.resolve_neg(), expected.resolve_neg())


def test_view_as_complex_of_half_needs_complex32():
    # torch makes a ComplexHalf (complex32) tensor; vizgrad has no such dtype and says so.
    with pytest.raises(RuntimeError, match="ComplexHalf"):
        vg.view_as_complex(vg.zeros(2, dtype=vg.float16))


def test_writes_through_real_and_complex_views_are_seen_both_ways():
    for lib in (torch, vg):
        z = lib.tensor([1 + 2j, 3 - 4j])
        r = lib.view_as_real(z)
        r[0, 1] = 7.0
        assert z.tolist() == [1 + 7j, 3 - 4j] and z._version == r._version == 1
        back = lib.view_as_complex(r)
        back[1] = 5j
        assert r.tolist() == [[1.0, 7.0], [0.0, 5.0]] and back._base is z
        assert z._version == 2


# --- real and imag --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("part", ["real", "imag"])
def test_real_and_imag_are_views(dtype, layout, shape, part):
    v, t = make_pair(shape, dtype, layout)
    _same_view(getattr(v, part), getattr(t, part), v, t)
    _same_view(getattr(vg, part)(v), getattr(torch, part)(t), v, t)


def test_real_of_a_real_tensor_is_itself_and_imag_is_an_error():
    for lib in (torch, vg):
        x = lib.ones(2)
        assert x.real is x and lib.real(x) is x
    assert_same_error(lambda: vg.ones(2).imag, lambda: torch.ones(2).imag)
    assert_same_error(lambda: vg.imag(vg.ones(2)), lambda: torch.imag(torch.ones(2)))


@pytest.mark.parametrize(
    "write",
    [
        lambda lib, z: setattr(z, "real", lib.tensor([9.0, 8.0])),
        lambda lib, z: setattr(z, "imag", lib.tensor([9.0, 8.0])),
        lambda lib, z: setattr(z, "real", 5),
        lambda lib, z: setattr(z, "imag", 0.5),
        lambda lib, z: setattr(z, "imag", lib.tensor(1.5)),
        lambda lib, z: z.imag.zero_(),
        lambda lib, z: z.real.mul_(2),
        lambda lib, z: setattr(z, "real", lib.ones(3)),
        lambda lib, z: setattr(z, "imag", "x"),
    ],
    ids=[
        "real=tensor",
        "imag=tensor",
        "real=int",
        "imag=float",
        "imag=0-dim",
        "imag.zero_",
        "real.mul_",
        "wrong-shape",
        "not-a-number",
    ],  # fmt: skip
)
def test_assigning_parts_writes_the_complex_tensor(write):
    def run(lib):
        z = lib.tensor([1 + 2j, 3 - 4j])
        write(lib, z)
        return z

    assert_same_outcome(lambda: run(vg), lambda: run(torch))


def test_assigning_the_real_part_of_a_real_tensor_writes_it():
    for lib in (torch, vg):
        x = lib.ones(2)
        x.real = lib.tensor([3.0, 4.0])
        assert x.tolist() == [3.0, 4.0]


def test_parts_of_a_leaf_that_requires_grad_cannot_be_written():
    def write(lib):
        z = lib.tensor([1j], requires_grad=True)
        z.real = lib.tensor([1.0])

    assert_same_error(lambda: write(vg), lambda: write(torch))


# --- complex and polar ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["complex", "polar"])
def test_from_parts_values_and_layouts(dtype, layout, name):
    a, ta = make_pair((2, 3), dtype, layout, seed=1)
    b, tb = make_pair((2, 3), dtype, layout, seed=2)
    assert_same(getattr(vg, name)(a, b), getattr(torch, name)(ta, tb))


@pytest.mark.parametrize("name", ["complex", "polar"])
def test_from_parts_broadcast_and_special_values(name):
    values = [0.0, -0.0, 1.5, -2.0, math.inf, -math.inf, math.nan]
    a = np.array(values).reshape(-1, 1)
    b = np.array(values).reshape(1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = getattr(vg, name)(vg.tensor(a), vg.tensor(b))
        expected = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
    assert_same(got, expected)
    # The signs of zeros too (a NaN's sign means nothing).
    numbers = ~np.isnan(expected.numpy().imag)
    np.testing.assert_array_equal(np.signbit(got.numpy().imag)[numbers],
                                  np.signbit(expected.numpy().imag)[numbers])  # fmt: skip


@pytest.mark.parametrize("name", ["complex", "polar"])
@pytest.mark.parametrize(
    "args",
    [
        lambda lib: (lib.tensor([1]), lib.tensor([2])),
        lambda lib: (lib.tensor([1.0]), lib.tensor([2.0], dtype=lib.float64)),
        lambda lib: (lib.tensor([1.0]), lib.tensor([True])),
        lambda lib: (lib.tensor([1j]), lib.tensor([2.0])),
        lambda lib: (lib.ones(2), lib.ones(3)),
        lambda lib: (lib.tensor([1.0]), 2.0),
    ],
    ids=["int", "mixed", "bool", "complex", "shapes", "number"],
)
def test_from_parts_errors(name, args):
    assert_same_error(
        lambda: getattr(vg, name)(*args(vg)), lambda: getattr(torch, name)(*args(torch))
    )


@pytest.mark.parametrize("name", ["complex", "polar"])
@pytest.mark.parametrize("out_dtype", ["complex64", "complex128", "float32"])
@pytest.mark.parametrize("out_shape", [(3,), (0,), (2, 3)])
def test_from_parts_out(name, out_dtype, out_shape):
    def run(lib):
        out = lib.zeros(out_shape, dtype=getattr(lib, out_dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (out= resized)
            result = getattr(lib, name)(lib.tensor([1.0, 2, 3]), lib.tensor([0.5, 0, -1]), out=out)
        assert result is out
        return out

    assert_same_outcome(lambda: run(vg), lambda: run(torch))


def test_from_parts_with_a_zero_dim_part():
    for name in ("complex", "polar"):
        assert_same(getattr(vg, name)(vg.tensor(1.0), vg.tensor([2.0, 3.0])),
                    getattr(torch, name)(torch.tensor(1.0), torch.tensor([2.0, 3.0])))  # fmt: skip


def test_half_parts_would_make_complex32():
    with pytest.raises(RuntimeError, match="ComplexHalf"):
        vg.complex(vg.ones(1, dtype=vg.float16), vg.ones(1, dtype=vg.float16))


# --- angle --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float32",
                                   "float64", "complex64", "complex128"])  # fmt: skip
@pytest.mark.parametrize("layout", LAYOUTS)
def test_angle_dtypes_and_layouts(dtype, layout):
    v, t = make_pair((2, 3), dtype, layout)
    assert_same(vg.angle(v), torch.angle(t))
    assert_same(v.angle(), t.angle())


def test_angle_special_values():
    reals = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]
    assert_same(vg.angle(vg.tensor(reals)), torch.angle(torch.tensor(reals)))
    complexes = [complex(r, i) for r in reals for i in reals]
    assert_same(vg.angle(vg.tensor(complexes)), torch.angle(torch.tensor(complexes)))


@pytest.mark.parametrize("source", ["int64", "float32", "complex64", "complex128"])
@pytest.mark.parametrize("out_dtype", ["int64", "float16", "float32", "float64", "complex64"])
def test_angle_out(source, out_dtype):
    def run(lib):
        x = lib.tensor([-1.0, 2.0]).to(getattr(lib, source)) * (
            1 + 1j if "complex" in source else 1
        )
        out = lib.empty(0, dtype=getattr(lib, out_dtype))
        assert lib.angle(x, out=out) is out
        return out

    if source in ("int64", "float32", "complex64") and out_dtype == "float64":
        # computed in single precision, then cast: float32's last-bit differences remain
        vg_out, torch_out = run(vg), run(torch)
        assert vg_out.dtype == vg.float64 and torch_out.dtype == torch.float64
        np.testing.assert_allclose(vg_out.numpy(), torch_out.numpy(), rtol=1e-6)
        return
    assert_same_outcome(lambda: run(vg), lambda: run(torch))


def test_angle_has_no_inplace_method():
    assert hasattr(torch.Tensor, "angle_") == hasattr(vg.Tensor, "angle_")


# --- the questions -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["is_complex", "is_conj", "is_neg"])
def test_questions_as_functions(name):
    for make in (lambda lib: lib.ones(2), lambda lib: lib.tensor([1j]),
                 lambda lib: lib.tensor([1j]).conj(), lambda lib: lib.tensor([1j]).conj().imag):  # fmt: skip
        assert getattr(vg, name)(make(vg)) == getattr(torch, name)(make(torch))
        assert getattr(make(vg), name)() == getattr(make(torch), name)()
    assert_same_error(lambda: getattr(vg, name)(3), lambda: getattr(torch, name)(3))

"""Copies and conversions (``copy_``, ``clone``, ``contiguous``, ``to``, ``type``, ``float()``…)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
from oracle import DTYPES, LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg

WRITABLE_LAYOUTS = [layout for layout in LAYOUTS if layout != "expanded"]


def _quiet(fn):
    """Run ``fn`` with PyTorch's complex-to-real warning silenced (tested on its own)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn()


# --- copy_ ---------------------------------------------------------------------------------


@pytest.mark.parametrize("src_dtype", DTYPES)
@pytest.mark.parametrize("dst_dtype", DTYPES)
def test_copy_between_dtypes(dst_dtype, src_dtype):
    v_dst, t_dst = make_pair((2, 3), dst_dtype, "transposed", seed=1)
    # Negative floats into unsigned ints are undefined in C++ (and differ): values >= 0.
    v_src, t_src = make_pair((2, 3), src_dtype, "stepped", seed=2, low=0, high=9)
    v_out = _quiet(lambda: v_dst.copy_(v_src))
    t_out = _quiet(lambda: t_dst.copy_(t_src))
    assert v_out is v_dst and t_out is t_dst
    assert_same(v_dst, t_dst, check_offset=True)
    assert v_dst._version == t_dst._version


@pytest.mark.parametrize("src_layout", LAYOUTS)
@pytest.mark.parametrize("dst_layout", WRITABLE_LAYOUTS)
@pytest.mark.parametrize("src_shape", [(2, 3, 4), (3, 4), (1, 4), (4,), ()])
def test_copy_broadcasts_source(dst_layout, src_layout, src_shape):
    v_dst, t_dst = make_pair((2, 3, 4), "float64", dst_layout, seed=3)
    v_src, t_src = make_pair(src_shape, "int32", src_layout, seed=4)
    v_dst.copy_(v_src)
    t_dst.copy_(t_src)
    assert_same(v_dst, t_dst)
    # the write went through the strides into the very storage the base reads
    np.testing.assert_array_equal(v_dst._base.numpy(), t_dst._base.numpy())


def test_copy_into_view_changes_base():
    vb, tb = vg.zeros(3, 4), torch.zeros(3, 4)
    for index in [(slice(None), 1), (slice(1, None), slice(None, None, 2)), (0,)]:
        vb[index].copy_(vg.tensor(5.0))
        tb[index].copy_(torch.tensor(5.0))
        assert_same(vb, tb)
    vb.t().diagonal().copy_(vg.tensor([1.0, 2.0, 3.0]))
    tb.t().diagonal().copy_(torch.tensor([1.0, 2.0, 3.0]))
    assert_same(vb, tb)
    assert vb._version == tb._version


@pytest.mark.parametrize("value", [5, 2.5, True, 1 + 2j])
def test_copy_from_python_number(value):
    v, t = vg.zeros(3), torch.zeros(3)
    _quiet(lambda: v.copy_(value))
    _quiet(lambda: t.copy_(value))
    assert_same(v, t)


def test_copy_self_and_non_blocking():
    v, t = make_pair((2, 3), "float32", "contiguous")
    v.copy_(v)
    t.copy_(t)
    assert v._version == t._version
    assert_same(v.copy_(vg.ones(3), True), t.copy_(torch.ones(3), True))


def test_copy_complex_to_real_warns():
    # PyTorch warns once per process, so ask a fresh interpreter for its message.
    code = "import torch; torch.zeros(2).copy_(torch.tensor([1 + 2j, 3j]))"
    stderr = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True,
                            text=True, check=True).stderr  # fmt: skip
    torch_message = stderr.split("UserWarning: ")[1].split(" (Triggered")[0]
    with pytest.warns(UserWarning) as record:
        v = vg.zeros(2).copy_(vg.tensor([1 + 2j, 3j]))
    assert str(record[0].message) == torch_message
    assert_same(v, _quiet(lambda: torch.zeros(2).copy_(torch.tensor([1 + 2j, 3j]))))
    # complex -> bool looks at both parts, without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = vg.zeros(3, dtype=vg.bool).copy_(vg.tensor([1j, 0, 2]))
        t = torch.zeros(3, dtype=torch.bool).copy_(torch.tensor([1j, 0, 2]))
    assert_same(v, t)


COPY_ERRORS = [
    "lib.zeros(2, 3).copy_(lib.ones(4))",
    "lib.zeros(3).copy_(lib.ones(2, 3))",
    "lib.zeros(1, 3).expand(2, 3).copy_(lib.ones(2, 3))",
    "lib.zeros(3).copy_([1, 2, 3])",
    "a.copy_(a.t())",
    "b[1:].copy_(b[:3])",
]


@pytest.mark.parametrize("expr", COPY_ERRORS)
def test_copy_errors(expr):
    def call(lib):
        env = {"lib": lib, "a": lib.zeros(2, 2), "b": lib.zeros(4)}
        return eval(expr, env)  # noqa: S307

    assert_same_error(lambda: call(vg), lambda: call(torch))


# --- clone, contiguous --------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int16", "bool", "complex128"])
@pytest.mark.parametrize("fmt", [None, "preserve_format", "contiguous_format"])
def test_clone(layout, dtype, fmt):
    v, t = make_pair((2, 3, 4), dtype, layout, seed=5)
    kwargs_v = {} if fmt is None else {"memory_format": getattr(vg, fmt)}
    kwargs_t = {} if fmt is None else {"memory_format": getattr(torch, fmt)}
    vc, tc = v.clone(**kwargs_v), t.clone(**kwargs_t)
    assert_same(vc, tc, check_offset=True)
    assert vc._base is None and tc._base is None
    assert vc.data_ptr() != v.data_ptr()
    assert_same(vg.clone(v, **kwargs_v), torch.clone(t, **kwargs_t))


@pytest.mark.parametrize(
    "make",
    [lambda lib: lib.zeros(2, 3, 4, 5).permute(0, 2, 3, 1),
     lambda lib: lib.zeros(2, 3, 4, 5),
     lambda lib: lib.zeros(2, 3, 4, 5)[:, ::2],
     lambda lib: lib.zeros(1, 3, 1, 5).expand(2, 3, 4, 5)],
)  # fmt: skip
def test_channels_last(make):
    v, t = make(vg), make(torch)
    assert_same(v.clone(memory_format=vg.channels_last),
                t.clone(memory_format=torch.channels_last))  # fmt: skip
    assert_same(v.clone(), t.clone())
    vc = v.contiguous(memory_format=vg.channels_last)
    tc = t.contiguous(memory_format=torch.channels_last)
    assert_same(vc, tc)
    assert (vc is v) == (tc is t)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_contiguous(layout):
    v, t = make_pair((2, 3, 4), "float32", layout, seed=6)
    vc, tc = v.contiguous(), t.contiguous()
    assert (vc is v) == (tc is t)
    assert_same(vc, tc, check_offset=True)
    assert vc.is_contiguous()
    assert (vc._base is None) == (tc._base is None)


def test_memory_format_constants():
    assert repr(vg.contiguous_format) == repr(torch.contiguous_format).replace("torch", "vizgrad")
    assert repr(vg.preserve_format) == repr(torch.preserve_format).replace("torch", "vizgrad")
    assert isinstance(vg.contiguous_format, vg.memory_format)


CLONE_ERRORS = [
    "lib.zeros(2, 3).clone(memory_format=lib.channels_last)",
    "lib.zeros(2, 3).t().contiguous(memory_format=lib.preserve_format)",
    "lib.zeros(2, 3).contiguous(lib.contiguous_format)",
]


@pytest.mark.parametrize("expr", CLONE_ERRORS)
def test_clone_errors(expr):
    assert_same_error(lambda: eval(expr, {"lib": vg}), lambda: eval(expr, {"lib": torch}))  # noqa: S307


# --- to, type, float()… --------------------------------------------------------------------------

TO_CASES = [
    "x.to(lib.float32)", "x.to(lib.int32)", "x.to(lib.float64)", "x.to('cpu')",
    "x.to(lib.device('cpu'))", "x.to(lib.zeros(1, dtype=lib.int64))", "x.to(lib.zeros(1))",
    "x.to(lib.float32, copy=True)", "x.to(lib.float32, False, True)", "x.to('cpu', lib.int8)",
    "x.to(dtype=lib.int8)", "x.to(device='cpu', dtype=lib.int16)", "x.to()",
    "x.to(lib.float32, True)", "x.to(memory_format=lib.contiguous_format)",
    "x.to(lib.complex64)", "x.to(lib.bool)", "x.to(lib.float16)",
    "x.type(lib.int32)", "x.type(lib.float32)", "x.type('torch.DoubleTensor')",
    "x.float()", "x.double()", "x.half()", "x.int()", "x.long()", "x.short()", "x.char()",
    "x.byte()", "x.bool()", "x.cfloat()", "x.cdouble()",
    "x.float(memory_format=lib.contiguous_format)", "x.int(memory_format=lib.contiguous_format)",
]  # fmt: skip


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("expr", TO_CASES)
def test_to_and_conversions(expr, layout):
    v, t = make_pair((2, 3, 4), "float32", layout, seed=7, low=0, high=9)
    expected = eval(expr, {"x": t, "lib": torch})  # noqa: S307
    actual = eval(expr, {"x": v, "lib": vg})  # noqa: S307
    assert_same(actual, expected, check_offset=True)
    assert (actual is v) == (expected is t)
    assert (actual._base is None) == (expected._base is None)


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("method", ["float", "double", "half", "int", "long", "short", "char",
                                    "byte", "bool", "cfloat", "cdouble"])  # fmt: skip
def test_conversion_methods_all_dtypes(src, method):
    v, t = make_pair((3, 4), src, "transposed", seed=8, low=0, high=9)
    actual = _quiet(lambda: getattr(v, method)())
    expected = _quiet(lambda: getattr(t, method)())
    assert_same(actual, expected)
    assert (actual is v) == (expected is t)


def test_type_name():
    for dtype in DTYPES:
        v, t = vg.zeros(2, dtype=getattr(vg, dtype)), torch.zeros(2, dtype=getattr(torch, dtype))
        assert v.type() == t.type().replace("torch.", "vizgrad.")


TO_ERRORS = ["x.type('torch.Foo')", "x.to(lib.float32, 3.5)", "x.to(foo=1)"]


@pytest.mark.parametrize("expr", TO_ERRORS)
def test_to_errors(expr):
    def call(lib):
        return eval(expr, {"x": lib.zeros(2), "lib": lib})  # noqa: S307

    assert_same_error(lambda: call(vg), lambda: call(torch), match_message=False)


def test_copy_s_node_is_named_as_torchs_hand_written_one():
    """``CopyBackwards`` is written by hand in C++: its class is ``CopyBackwards``, its
    ``name()`` the qualified ``torch::autograd::CopyBackwards``."""
    names = []
    for lib in (torch, vg):
        result = lib.zeros(2).copy_(lib.ones(2, requires_grad=True))
        names.append((type(result.grad_fn).__name__, result.grad_fn.name().split("::", 1)[1]))
    assert names[0] == names[1]

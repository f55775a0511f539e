"""Factories on the meta device against PyTorch's: BackendSelect picks the Meta backend from
``device=`` (the dispatch trace shows it), each factory gives PyTorch's shape, strides and
dtype, or its error, and draws nothing; an ``out=`` overload resizes a meta ``out``."""

import pytest
import torch
from meta_checks import assert_meta_same, metadata, outcome, raise_
from oracle import assert_same_error

import vizgrad as vg

FACTORIES = {
    "arange": lambda lib, d: lib.arange(5, device=d),
    "arange_float": lambda lib, d: lib.arange(0, 1, 0.3, device=d),
    "arange_negative_step": lambda lib, d: lib.arange(5, -3, -2, device=d),
    "arange_int32": lambda lib, d: lib.arange(5, dtype=lib.int32, device=d),
    "arange_bool": lambda lib, d: lib.arange(5, dtype=lib.bool, device=d),
    "arange_complex": lambda lib, d: lib.arange(5, dtype=lib.complex64, device=d),
    "arange_empty": lambda lib, d: lib.arange(3, 3, device=d),
    "arange_step_zero": lambda lib, d: lib.arange(0, 1, 0, device=d),
    "arange_wrong_sign": lambda lib, d: lib.arange(0, -1, 1, device=d),
    "arange_nan": lambda lib, d: lib.arange(0, float("nan"), device=d),
    "arange_inf": lambda lib, d: lib.arange(0, float("inf"), device=d),
    "arange_huge": lambda lib, d: lib.arange(0, 2**62, device=d),
    "linspace": lambda lib, d: lib.linspace(0, 1, 5, device=d),
    "linspace_int": lambda lib, d: lib.linspace(0, 10, 3, dtype=lib.int64, device=d),
    "linspace_complex": lambda lib, d: lib.linspace(0, 1j, 4, device=d),
    "linspace_zero_steps": lambda lib, d: lib.linspace(0, 1, 0, device=d),
    "linspace_negative_steps": lambda lib, d: lib.linspace(0, 1, -1, device=d),
    "linspace_bool": lambda lib, d: lib.linspace(0, 1, 5, dtype=lib.bool, device=d),
    "linspace_tensor_bound": lambda lib, d: lib.linspace(lib.tensor(0.0), 1, 5, device=d),
    "linspace_meta_bound": lambda lib, d: lib.linspace(lib.zeros((), device=d), 1, 5),
    "linspace_meta_complex_bound": lambda lib, d: lib.linspace(
        lib.zeros((), dtype=lib.complex64, device=d), 1, 3
    ),
    "linspace_2d_bound": lambda lib, d: lib.linspace(lib.zeros(2, device=d), 1, 5, device=d),
    "logspace": lambda lib, d: lib.logspace(0, 1, 5, device=d),
    "logspace_base": lambda lib, d: lib.logspace(0, 3, 4, base=2, dtype=lib.float64, device=d),
    "logspace_negative_steps": lambda lib, d: lib.logspace(0, 1, -2, device=d),
    "eye": lambda lib, d: lib.eye(3, device=d),
    "eye_m": lambda lib, d: lib.eye(3, 4, dtype=lib.int64, device=d),
    "eye_zero": lambda lib, d: lib.eye(0, 2, device=d),
    "eye_negative": lambda lib, d: lib.eye(-1, device=d),
    "eye_negative_m": lambda lib, d: lib.eye(2, -1, device=d),
    "eye_huge": lambda lib, d: lib.eye(2**40, device=d),
    "scalar_tensor": lambda lib, d: lib.scalar_tensor(3, device=d),
    "scalar_tensor_bool": lambda lib, d: lib.scalar_tensor(True, device=d),
    "scalar_tensor_int": lambda lib, d: lib.scalar_tensor(3, dtype=lib.int32, device=d),
    "rand": lambda lib, d: lib.rand(2, 3, device=d),
    "rand_tuple": lambda lib, d: lib.rand((4,), dtype=lib.float64, device=d),
    "rand_int64": lambda lib, d: lib.rand(2, dtype=lib.int64, device=d),
    "rand_negative": lambda lib, d: lib.rand(-2, device=d),
    "rand_generator": lambda lib, d: lib.rand(2, generator=lib.Generator(), device=d),
    "randn": lambda lib, d: lib.randn(3, 2, device=d),
    "randn_complex": lambda lib, d: lib.randn(2, dtype=lib.complex64, device=d),
    "randn_int64": lambda lib, d: lib.randn(2, dtype=lib.int64, device=d),
    "randint": lambda lib, d: lib.randint(0, 5, (2, 3), device=d),
    "randint_high": lambda lib, d: lib.randint(5, (4,), device=d),
    "randint_dtype": lambda lib, d: lib.randint(0, 5, (2,), dtype=lib.int16, device=d),
    "randint_bad_bounds": lambda lib, d: lib.randint(5, 2, (2,), device=d),
    "randperm": lambda lib, d: lib.randperm(5, device=d),
    "randperm_float": lambda lib, d: lib.randperm(4, dtype=lib.float32, device=d),
    "randperm_negative": lambda lib, d: lib.randperm(-1, device=d),
    "tril_indices": lambda lib, d: lib.tril_indices(3, 4, 1, device=d),
    "triu_indices": lambda lib, d: lib.triu_indices(3, 3, device=d),
    "tril_indices_float": lambda lib, d: lib.tril_indices(3, 3, dtype=lib.float32, device=d),
    "tril_indices_negative_row": lambda lib, d: lib.tril_indices(-1, 3, device=d),
    "triu_indices_negative_col": lambda lib, d: lib.triu_indices(3, -1, device=d),
    "fftfreq": lambda lib, d: lib.fft.fftfreq(5, device=d),
    "rfftfreq": lambda lib, d: lib.fft.rfftfreq(5, dtype=lib.float64, device=d),
    "fftfreq_int": lambda lib, d: lib.fft.fftfreq(5, dtype=lib.int64, device=d),
    "zeros_huge": lambda lib, d: lib.zeros(2**62, device=d),
    "full_huge": lambda lib, d: lib.full((2**62,), 1.0, device=d),
    "device_object": lambda lib, d: lib.arange(3, device=lib.device(d)),
    "rand_like": lambda lib, d: lib.rand_like(lib.empty(2, 3, device=d).t()),
    "randn_like_double": lambda lib, d: lib.randn_like(lib.empty(2, device=d), dtype=lib.float64),
    "randn_like_int": lambda lib, d: lib.randn_like(lib.empty(2, dtype=lib.int64, device=d)),
    "randint_like": lambda lib, d: lib.randint_like(lib.empty(2, device=d), 5),
    "randint_like_low": lambda lib, d: lib.randint_like(lib.empty(2, 2, device=d), 1, 5),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_factories_match_pytorch_meta(name):
    """Where PyTorch's meta function departs from its CPU kernel, vizgrad's one rule follows
    the CPU kernel: its error's words (``tril_indices(-1, 3)``: "got-1", sic) and its dtype
    (``linspace`` of a complex 0-dim tensor is complex)."""
    v, v_error = outcome(FACTORIES[name], vg, "meta")
    t, t_error = outcome(FACTORIES[name], torch, "meta")
    if t_error is not None:
        _, t_cpu_error = outcome(FACTORIES[name], torch, "cpu")
        assert v_error is not None, f"no error: {v!r}"
        try:
            assert_same_error(lambda: raise_(v_error), lambda: raise_(t_cpu_error or t_error))
        except AssertionError:
            assert_same_error(lambda: raise_(v_error), lambda: raise_(t_error))
        return
    assert v_error is None, f"vizgrad refused: {v_error!r}"
    t_cpu, _ = outcome(FACTORIES[name], torch, "cpu")
    if t_cpu is not None and metadata(t_cpu) != metadata(t):  # a complex meta bound: float32
        assert metadata(v) == metadata(t_cpu) and v.is_meta
    else:
        assert_meta_same(v, t)


OUTS = {
    "arange": lambda lib, out: lib.arange(5, out=out),
    "arange_start": lambda lib, out: lib.arange(1, 2, 0.25, out=out),
    "linspace": lambda lib, out: lib.linspace(0, 1, 4, out=out),
    "logspace": lambda lib, out: lib.logspace(0, 1, 3, out=out),
    "eye": lambda lib, out: lib.eye(3, out=out),
    "eye_m": lambda lib, out: lib.eye(2, 3, out=out),
    "rand": lambda lib, out: lib.rand(2, 3, out=out),
    "randn": lambda lib, out: lib.randn(3, out=out),
    "randint": lambda lib, out: lib.randint(0, 4, (2, 2), out=out),
    "randperm": lambda lib, out: lib.randperm(4, out=out),
    "zeros": lambda lib, out: lib.zeros(2, 3, out=out),
    "ones": lambda lib, out: lib.ones(4, out=out),
    "empty": lambda lib, out: lib.empty(1, 2, out=out),
    "full": lambda lib, out: lib.full((2,), 7, out=out),
    "fftfreq": lambda lib, out: lib.fft.fftfreq(4, out=out),
}


@pytest.mark.parametrize("name", OUTS)
@pytest.mark.parametrize("out_shape", [(0,), (2, 3)])
def test_out_overloads_resize_a_meta_out(name, out_shape):
    outs = {lib: lib.empty(out_shape, dtype=lib.float64, device="meta") for lib in (vg, torch)}
    v, v_error = outcome(OUTS[name], vg, outs[vg])
    t, t_error = outcome(OUTS[name], torch, outs[torch])
    if t_error is not None:
        assert_same_error(lambda: raise_(v_error or AssertionError("no error")),
                          lambda: raise_(t_error))  # fmt: skip
        return
    assert v_error is None, f"vizgrad refused: {v_error!r}"
    assert v is outs[vg]
    assert_meta_same(v, t)


def test_tril_and_triu_sizes_are_counted_as_the_cpu_kernel_finds_them():
    """The meta kernel counts the kept elements in closed form; the CPU kernel lists them."""
    for row in range(5):
        for col in range(5):
            for offset in range(-6, 7):
                for fn in (vg.tril_indices, vg.triu_indices):
                    meta = fn(row, col, offset, device="meta")
                    assert meta.shape == fn(row, col, offset).shape, (fn, row, col, offset)


def test_samplers_on_meta_draw_nothing():
    vg.manual_seed(0)
    expected = vg.rand(3)
    vg.manual_seed(0)
    vg.rand(1000, device="meta")
    vg.randn(10, device="meta")
    vg.randint(0, 9, (7,), device="meta")
    vg.randperm(9, device="meta")
    vg.rand_like(vg.empty(4, device="meta"))
    assert vg.rand(3).tolist() == expected.tolist()


def test_backend_select_step_in_the_dispatch_trace():
    """A factory has no tensor to dispatch on: the walk starts at BackendSelect, which picks
    the backend from ``device=`` (PyTorch's generated BackendSelect kernels)."""
    with vg.dispatch_trace() as trace:
        vg.empty(2, device="meta")
        vg.arange(3)
    steps = [(s.op, s.key, s.action) for s in trace.steps]
    assert steps == [
        ("aten::empty.memory_format", "BackendSelect", "call"),
        ("aten::empty.memory_format", "Meta", "redispatch"),
        ("aten::arange", "BackendSelect", "call"),
        ("aten::arange", "CPU", "redispatch"),
    ]
    notes = [s.note for s in trace.steps if s.key == "BackendSelect"]
    assert notes == [
        "a factory: its backend comes from device= (meta)",
        "a factory: its backend comes from device= (cpu)",
    ]


def test_backend_select_reads_the_default_device():
    vg.set_default_device("meta")
    try:
        made = vg.arange(4)
    finally:
        vg.set_default_device("cpu")
    assert made.is_meta and made.shape == (4,)
    assert vg.arange(4).is_cpu


def test_a_factory_given_a_tensor_dispatches_on_it_too():
    """``linspace`` of a tensor bound: its autograd key, then BackendSelect."""
    with vg.dispatch_trace() as trace:
        vg.linspace(vg.zeros((), device="meta"), 1, 3)
    steps = [s.key for s in trace.steps if s.op == "aten::linspace.Tensor_Scalar"]
    assert steps == ["AutogradCPU", "BackendSelect", "Meta"]

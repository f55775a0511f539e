"""Running extremes and log-sum-exps (``cummax``, ``cummin``, ``logcumsumexp``) against PyTorch.

Values, indices (the last of equal values, the nan that stays), dtypes and strides on
every layout; zero-dim, empty and batched inputs; ``out=``; PyTorch's errors; the
gradients (``CummaxBackward0``, ``LogcumsumexpBackward0``) and ``gradcheck``; and long
scans, run in slices that give one call's answer and stop at Ctrl-C.
"""

from __future__ import annotations

import signal
import time
import warnings

import numpy as np
import pytest
import torch
from grad_oracle import check_gradients
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair, pair_from_storage

import vizgrad as vg
from vizgrad.ops import reduction_machinery

EXTREMES = ["cummax", "cummin"]
SHAPE = (3, 4, 5)
INF, NAN = float("inf"), float("nan")


def assert_same_logcumsumexp(v, t, **tol):
    """``assert_same``, but a complex log is defined up to ``2 pi i``: PyTorch's sequential
    loop and vizgrad's doubling combine the terms in another order, and may land on
    other branches. The real parts and the angles must agree."""
    if not t.is_complex():
        return assert_same(v, t, **tol)
    assert v.dtype.name == str(t.dtype).split(".")[-1]
    assert tuple(v.shape) == tuple(t.shape) and v.stride() == t.stride()
    actual, expected = v.numpy(), t.numpy()
    np.testing.assert_allclose(actual.real, expected.real, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    turn = np.angle(np.exp(1j * (actual.imag - expected.imag)))
    np.testing.assert_allclose(turn[~np.isnan(turn)], 0, atol=1e-4)


def _scan_pair(values, dtype="float32"):
    data = np.array(values, dtype=dtype)
    return pair_from_storage(data, data.shape, vg.shape.contiguous_strides(data.shape))


# --- cummax, cummin ------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "uint8",
                                   "bool"])  # fmt: skip
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("name", EXTREMES)
def test_extreme_scans_with_ties(name, layout, dtype, dim):
    # Small integers repeat: the index of equal values is the one PyTorch picks (the last).
    v, t = make_pair(SHAPE, dtype, layout, low=-2, high=3)
    result, expected = getattr(vg, name)(v, dim), getattr(torch, name)(t, dim)
    assert type(result).__name__ == name and result._fields == ("values", "indices")
    assert_same(result, expected)
    assert_same(getattr(v, name)(dim=dim), getattr(t, name)(dim=dim))


@pytest.mark.parametrize("name", EXTREMES)
def test_extreme_scans_of_nan_and_inf(name):
    values = [[1.0, NAN, 3.0, NAN, -INF], [INF, 2.0, INF, -INF, 0.0], [-0.0, 0.0, NAN, NAN, 1.0]]
    for dtype in ("float32", "float64", "float16"):
        v, t = _scan_pair(values, dtype)
        assert_same(getattr(vg, name)(v, 1), getattr(torch, name)(t, 1))
        assert_same(getattr(vg, name)(v, 0), getattr(torch, name)(t, 0))


@pytest.mark.parametrize("name", EXTREMES)
def test_extreme_scans_zero_dim_empty_and_dims(name):
    for dim in (0, -1):
        v, t = vg.tensor(2.5), torch.tensor(2.5)
        assert_same(getattr(vg, name)(v, dim), getattr(torch, name)(t, dim))
    for shape in ((0,), (0, 3), (2, 0, 3)):
        v, t = vg.zeros(shape), torch.zeros(shape)
        for dim in (0, -1, 5):  # an empty tensor is never read: its dim is not checked
            assert_same(getattr(vg, name)(v, dim), getattr(torch, name)(t, dim))
    v, t = make_pair((2, 3), "int32")
    for dim in (2, -3):
        assert_same_error(lambda d=dim: getattr(vg, name)(v, d),
                          lambda d=dim: getattr(torch, name)(t, d))  # fmt: skip
    for dim in (1, -2, 7):
        assert_same_error(lambda d=dim: getattr(vg, name)(vg.tensor(1.0), d),
                          lambda d=dim: getattr(torch, name)(torch.tensor(1.0), d))  # fmt: skip


@pytest.mark.parametrize("name", EXTREMES)
def test_extreme_scans_refuse_complex_and_bad_arguments(name):
    v, t = make_pair((3,), "complex64")
    assert_same_error(lambda: getattr(vg, name)(v, 0), lambda: getattr(torch, name)(t, 0))
    r, tr = make_pair((3,), "float32")
    assert_same_error(lambda: getattr(vg, name)(r), lambda: getattr(torch, name)(tr))
    assert_same_error(lambda: getattr(vg, name)(r, 0.5), lambda: getattr(torch, name)(tr, 0.5))
    assert_same_error(lambda: getattr(r, name)(0, 1), lambda: getattr(tr, name)(0, 1))


@pytest.mark.parametrize("name", EXTREMES)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_extreme_scans_out(name, dtype):
    v, t = make_pair((3, 4), dtype, "transposed", low=-2, high=3)
    torch_dtype = getattr(torch, dtype)
    for shape in ((3, 4), (0,), (2,)):
        values, indices = vg.zeros(shape, dtype=v.dtype), vg.zeros(shape, dtype=vg.int64)
        tvalues, tindices = torch.zeros(shape, dtype=torch_dtype), torch.zeros(shape,
                                                                              dtype=torch.long)  # fmt: skip
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = getattr(vg, name)(v, 1, out=(values, indices))
            expected = getattr(torch, name)(t, 1, out=(tvalues, tindices))
        # a resize warning for each non-empty output of another shape, in both
        assert len(caught) == (4 if shape == (2,) else 0)
        assert type(result).__name__ == f"{name}_out"
        assert result.values is values and result.indices is indices
        assert_same(result, expected)
    wrong_values = (vg.zeros(3, 4, dtype=vg.float64), vg.zeros(3, 4, dtype=vg.int64))
    wrong_indices = (vg.zeros(3, 4, dtype=v.dtype), vg.zeros(3, 4, dtype=vg.int32))
    for outs in (wrong_values, wrong_indices):
        touts = tuple(torch.zeros(3, 4, dtype=getattr(torch, o.dtype.name)) for o in outs)
        assert_same_error(lambda o=outs: getattr(vg, name)(v, 1, out=o),
                          lambda o=touts: getattr(torch, name)(t, 1, out=o))  # fmt: skip
    # the outputs' dtypes are checked before the dim
    outs = (vg.zeros(()), vg.zeros((), dtype=vg.int64))
    assert_same_error(lambda: getattr(vg, name)(vg.tensor(1.0), 3, out=outs),
                      lambda: getattr(torch, name)(torch.tensor(1.0), 3, out=(
                          torch.zeros(()), torch.zeros((), dtype=torch.long))))  # fmt: skip
    assert_same_error(lambda: getattr(vg, name)(vg.tensor(1), 3, out=outs),
                      lambda: getattr(torch, name)(torch.tensor(1), 3, out=(
                          torch.zeros(()), torch.zeros((), dtype=torch.long))))  # fmt: skip


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("name", EXTREMES)
def test_extreme_scan_gradients(name, layout, dim):
    node = {"cummax": "CummaxBackward0", "cummin": "CumminBackward0"}[name]
    check_gradients(lambda x: getattr(vg, name)(x, dim).values,
                    lambda x: getattr(torch, name)(x, dim).values,
                    [(4, 5)], layouts=[layout], grad_fn_name=node)  # fmt: skip


@pytest.mark.parametrize("name", EXTREMES)
def test_extreme_scan_gradient_goes_to_the_index_of_ties_zero_dim_and_empty(name):
    for values in ([3.0, 1.0, 3.0, 3.0, 0.5, 7.0], [1.0, NAN, 2.0, NAN]):
        v, t = _scan_pair(values, "float64")
        v.requires_grad_(), t.requires_grad_()
        getattr(v, name)(0).values.backward(vg.arange(1.0, len(values) + 1, dtype=vg.float64))
        getattr(t, name)(0).values.backward(torch.arange(1.0, len(values) + 1,
                                                         dtype=torch.float64))  # fmt: skip
        assert_same(v.grad, t.grad)
    for shape in ((), (0, 3)):
        v, t = vg.ones(shape, requires_grad=True), torch.ones(shape, requires_grad=True)
        vr, tr = getattr(v, name)(0), getattr(t, name)(0)
        assert vr.values.grad_fn.name() == type(tr.values.grad_fn).__name__
        assert vr.indices.grad_fn is None and not vr.indices.requires_grad
        vr.values.sum().backward(), tr.values.sum().backward()
        assert_same(v.grad, t.grad)
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    node = getattr(x, name)(0).values.grad_fn
    assert node._saved_dim == 0 and node._saved_self is not None
    assert node._saved_indices.dtype == vg.int64


# --- logcumsumexp ----------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64", "complex128"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logcumsumexp(layout, dtype, dim):
    v, t = make_pair(SHAPE, dtype, layout)
    tol = {"rtol": 2e-3, "atol": 2e-3} if dtype == "float16" else {}
    assert_same_logcumsumexp(vg.logcumsumexp(v, dim), torch.logcumsumexp(t, dim), **tol)
    assert_same_logcumsumexp(v.logcumsumexp(dim=dim), t.logcumsumexp(dim=dim), **tol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_logcumsumexp_is_stable_and_keeps_inf_and_nan(dtype):
    rows = [[1000.0, 1000.0, -1000.0, 0.0, 88.0], [-INF, -INF, 1.0, INF, 2.0],
            [-INF, INF, INF, -INF, NAN], [-1e30, -1e30, 1e-30, 1e30, -INF],
            [NAN, 1.0, -INF, -INF, -INF]]  # fmt: skip
    v, t = _scan_pair(rows, dtype)
    assert_same_logcumsumexp(vg.logcumsumexp(v, 1), torch.logcumsumexp(t, 1))
    assert_same_logcumsumexp(vg.logcumsumexp(v, 0), torch.logcumsumexp(t, 0))
    if dtype.startswith("complex"):  # infinite and nan imaginary parts, and the angles
        v, t = _scan_pair([[1 + 3j, -INF + 1j, INF - 2j, 0j], [complex(1, NAN), 2j, -1j, 5 - 5j],
                           [-INF + 0j, -INF + 2j, 1 + 1j, INF + 0j]], dtype)  # fmt: skip
        assert_same_logcumsumexp(vg.logcumsumexp(v, 1), torch.logcumsumexp(t, 1))


def test_logcumsumexp_zero_dim_empty_and_errors():
    for dim in (0, -1):
        assert_same(
            vg.logcumsumexp(vg.tensor(2.5), dim), torch.logcumsumexp(torch.tensor(2.5), dim)
        )
    for shape, dim in (((0,), 0), ((0, 3), 1), ((2, 0), -1)):
        assert_same(vg.zeros(shape).logcumsumexp(dim), torch.zeros(shape).logcumsumexp(dim))
    for dtype in ("int64", "int32", "uint8", "bool"):
        v, t = make_pair((3,), dtype)
        assert_same_error(lambda v=v: vg.logcumsumexp(v, 0), lambda t=t: torch.logcumsumexp(t, 0))
    for tensor, dim in ((vg.tensor(1.0), 1), (vg.zeros(0, 3), 2), (vg.zeros(2, 3), -3)):
        ttensor = torch.from_numpy(tensor.numpy())
        assert_same_error(lambda x=tensor, d=dim: x.logcumsumexp(d),
                          lambda x=ttensor, d=dim: x.logcumsumexp(d))  # fmt: skip
    assert_same_error(
        lambda: vg.logcumsumexp(vg.ones(2)), lambda: torch.logcumsumexp(torch.ones(2))
    )


def test_logcumsumexp_out():
    v, t = make_pair((3, 4), "float64", "transposed")
    for shape in ((3, 4), (0,)):
        out, tout = vg.zeros(shape, dtype=vg.float64), torch.zeros(shape, dtype=torch.float64)
        result = vg.logcumsumexp(v, 0, out=out)
        assert result is out and out._version == 1
        assert_same(result, torch.logcumsumexp(t, 0, out=tout))
    # ``out`` must have the input's dtype exactly; then the dim; then the dtype dispatch.
    vi, ti = make_pair((3,), "int64")
    cases = [(v, 0, vg.zeros(3, 4)), (vi, 0, vg.zeros(3)), (v, 2, vg.zeros(3, 4, dtype=vg.float64)),
             (vi, 0, vg.zeros(5, dtype=vg.int64))]  # fmt: skip
    for x, dim, out in cases:
        tx = t if x is v else ti
        tout = torch.zeros(tuple(out.shape), dtype=getattr(torch, out.dtype.name))
        assert_same_error(lambda x=x, d=dim, o=out: vg.logcumsumexp(x, d, out=o),
                          lambda x=tx, d=dim, o=tout: torch.logcumsumexp(x, d, out=o))  # fmt: skip
        assert tuple(out.shape) == tuple(tout.shape)  # nothing resized before the error


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logcumsumexp_gradients(layout, dim):
    check_gradients(lambda x: vg.logcumsumexp(x, dim), lambda x: torch.logcumsumexp(x, dim),
                    [(3, 4, 5)], layouts=[layout], grad_fn_name="LogcumsumexpBackward0")  # fmt: skip


def test_logcumsumexp_gradient_of_zeros_signs_and_infinities():
    inputs = [[1.0, 2.0, -INF, 0.5], [1000.0, -1000.0, 3.0, 3.0]]
    upstream = [[0.0, -1.0, 2.0, 0.0], [1.0, -2.0, 0.0, 3.0]]
    v, t = _scan_pair(inputs, "float64")
    v.requires_grad_(), t.requires_grad_()
    vr, tr = vg.logcumsumexp(v, 1), torch.logcumsumexp(t, 1)
    node = vr.grad_fn
    assert node._saved_dim == 1
    assert_same(node._saved_result, tr.grad_fn._saved_result)
    vr.backward(vg.tensor(upstream, dtype=vg.float64))
    tr.backward(torch.tensor(upstream, dtype=torch.float64))
    assert_same(v.grad, t.grad)
    for shape in ((), (0, 2)):
        v, t = vg.ones(shape, requires_grad=True), torch.ones(shape, requires_grad=True)
        v.logcumsumexp(0).sum().backward(), t.logcumsumexp(0).sum().backward()
        assert_same(v.grad, t.grad)


def test_out_forms_record_no_gradient():
    x, tx = vg.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    assert_same_error(lambda: vg.logcumsumexp(x, 0, out=vg.zeros(3)),
                      lambda: torch.logcumsumexp(tx, 0, out=torch.zeros(3)))  # fmt: skip
    assert_same_error(
        lambda: vg.cummax(x, 0, out=(vg.zeros(3), vg.zeros(3, dtype=vg.int64))),
        lambda: torch.cummax(tx, 0, out=(torch.zeros(3), torch.zeros(3, dtype=torch.long))),
    )


# --- long scans: in slices, one call's answer, and Ctrl-C -----------------------------------

SLICED = {
    "cummax": lambda lib, x, dim: lib.cummax(x, dim),
    "cummin": lambda lib, x, dim: lib.cummin(x, dim),
    "logcumsumexp": lambda lib, x, dim: lib.logcumsumexp(x, dim),
}


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
@pytest.mark.parametrize(("shape", "dim"), [((40, 3, 2), 0), ((3, 40, 2), 0), ((2, 3, 40), 2),
                                            ((7, 9), 1), ((5, 1, 12), 1)])  # fmt: skip
@pytest.mark.parametrize("dtype", ["float32", "int16", "complex64"])
@pytest.mark.parametrize("name", list(SLICED))
def test_sliced_scans_give_one_calls_answer(monkeypatch, name, dtype, shape, dim, layout):
    if (name == "logcumsumexp") == (dtype == "int16"):
        dtype = "float64" if name == "logcumsumexp" else "int16"
    if name != "logcumsumexp" and dtype == "complex64":
        dtype = "bool"
    monkeypatch.setattr(reduction_machinery, "CHUNK_ELEMENTS", 5)
    v, t = make_pair(shape, dtype, layout, low=-3, high=3)
    if name == "logcumsumexp":
        assert_same_logcumsumexp(SLICED[name](vg, v, dim), SLICED[name](torch, t, dim))
    else:
        assert_same(SLICED[name](vg, v, dim), SLICED[name](torch, t, dim))


def test_a_sliced_float32_logcumsumexp_runs_on_in_double(monkeypatch):
    # 2**25 terms of log(1): a float32 running value would stop growing long before.
    monkeypatch.setattr(reduction_machinery, "CHUNK_ELEMENTS", 3)
    v, t = _scan_pair([1e-8, 0.0, -30.0, 5.0, 5.0, 5.0, -5.0])
    assert_same(vg.logcumsumexp(v, 0), torch.logcumsumexp(t, 0))
    # the nan a slice met stays in the next ones, as the index of the last one does
    v, t = _scan_pair([1.0, NAN, 2.0, 3.0, NAN, 4.0, 0.0])
    assert_same(vg.cummax(v, 0), torch.cummax(t, 0))
    assert_same(vg.logcumsumexp(v, 0), torch.logcumsumexp(t, 0))


def test_a_huge_scan_fails_at_once_as_in_torch():
    # The output is as big as the input: neither library can allocate it.
    huge = "lib.arange(6.).reshape(2, 3).expand(10**12, 2, 3)"
    for call in ("cummax(0)", "cummin(2)", "logcumsumexp(1)"):
        start = time.perf_counter()
        vg_error, _ = assert_same_error(lambda c=call: eval(f"{huge}.{c}", {"lib": vg}),
                                        lambda c=call: eval(f"{huge}.{c}", {"lib": torch}))  # fmt: skip
        assert "you tried to allocate" in str(vg_error)
        assert time.perf_counter() - start < 5


@pytest.mark.parametrize("name", list(SLICED))
def test_a_long_scan_stops_at_ctrl_c(name):
    long = vg.ones(1).expand(5 * 10**7)

    def interrupt(*_):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    start = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.02)
        with pytest.raises(KeyboardInterrupt):
            SLICED[name](vg, long, 0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.perf_counter() - start < 5

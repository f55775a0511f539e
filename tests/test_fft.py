"""``torch.fft`` against PyTorch: ``fft``, ``ifft``, ``rfft``, ``irfft``, ``hfft``,
``ihfft``, ``fft2``, ``ifft2``, ``rfft2``, ``irfft2``, ``fftn``, ``ifftn``, ``rfftn``,
``irfftn``, ``fftfreq``, ``rfftfreq``, ``fftshift``, ``ifftshift``, and the three ATen
operators under them (``_fft_r2c``, ``_fft_c2r``, ``_fft_c2c``).

Values, dtypes, shapes, strides (they follow the input's layout, as MKL lays out its
results) and conjugate bits on every layout, batched, with ``n``/``s`` padding and
trimming and every ``norm``; ``out=``; the graph's nodes, gradients against PyTorch's
and ``gradcheck`` (real and complex inputs); errors.
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair, pair_from_storage

import vizgrad as vg

TOLERANCE = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}
NORMS = [None, "backward", "ortho", "forward"]


def same(v, t, tol=None):
    """Same dtype, shape, strides, conjugate bit and (within the precision) values."""
    assert v.is_conj() == t.is_conj(), f"is_conj {v.is_conj()} != {t.is_conj()}"
    tol = tol or TOLERANCE.get(str(t.dtype).split(".")[-1], 1e-10)
    assert_same(v.resolve_conj(), t.resolve_conj(), rtol=tol, atol=tol)
    assert v.stride() == t.stride(), f"stride {v.stride()} != {t.stride()}"


def both(call, *pairs, tol=None):
    """``call(lib, *inputs)`` in both libraries, compared."""
    v = call(vg, *[p[0] for p in pairs])
    t = call(torch, *[p[1] for p in pairs])
    same(v, t, tol)
    return v, t


def fft_call(name: str, *args, real: bool = False, **kwargs):
    """``m.fft.<name>(x, *args, **kwargs)`` (of ``x.real`` if ``real``), as a function
    of the library ``m`` and the input, its arguments bound now."""

    def call(m, x):
        return getattr(m.fft, name)(x.real if real else x, *args, **kwargs)

    return call


def aten_call(name: str, *args):
    """``m.<name>(a, *args)``: one of the ATen operators, its arguments bound now."""
    return lambda m, a: getattr(m, name)(a, *args)


def both_or_error(call, *pairs):
    """``both``, or the same error when PyTorch raises (a signal of no points)."""
    try:
        call(torch, *[p[1] for p in pairs])
    except RuntimeError:
        assert_same_error(lambda: call(vg, *[p[0] for p in pairs]),
                          lambda: call(torch, *[p[1] for p in pairs]))  # fmt: skip
        return
    both(call, *pairs)


# --- one-dimensional transforms --------------------------------------------------------------

ONE_DIM = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
# The dtype each transform reads (a complex input to rfft/ihfft is an error, tested below).
ONE_DIM_INPUT = {"fft": "complex64", "ifft": "complex128", "rfft": "float32",
                 "irfft": "complex64", "hfft": "complex128", "ihfft": "float64"}  # fmt: skip


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dim_transforms_on_every_layout(name, layout):
    pair = make_pair((3, 2, 5), ONE_DIM_INPUT[name], layout, seed=1)
    for dim in (-1, 0, 1):
        both(fft_call(name, dim=dim), pair)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dim_norms_and_lengths(name, norm):
    pair = make_pair((2, 6), ONE_DIM_INPUT[name], "transposed", seed=2)
    for n in (None, 1, 3, 4, 6, 9):
        both(fft_call(name, n=n, norm=norm), pair)
    both(fft_call(name, 5, 0, norm), pair)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool"])
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft", "irfft", "hfft"])
def test_real_and_integer_inputs_are_promoted(name, dtype):
    """Integers become the default float dtype; real inputs of c2c/c2r transforms
    become complex (float32 → complex64): ``fft`` of a real signal is ``r2c``, ``ifft``
    of one is its conjugate (a conjugate view)."""
    pair = make_pair((4, 5), dtype, "contiguous", seed=3)
    both(fft_call(name), pair)


def test_default_dtype_decides_the_promotion_of_integers():
    pair = make_pair((5,), "int32", seed=4)
    previous = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        vg.set_default_dtype(vg.float64)
        both(lambda m, x: m.fft.fft(x), pair)
        both(lambda m, x: m.fft.irfft(x), pair)
    finally:
        torch.set_default_dtype(previous)
        vg.set_default_dtype(vg.float32)


@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dim_batched_and_strided(name):
    """Batch dimensions of any layout: the result's strides put them in the input's
    memory order, as MKL's batched transform writes them."""
    dtype = ONE_DIM_INPUT[name]
    rng = np.random.default_rng(5)
    data = rng.standard_normal(200)
    if dtype.startswith("complex"):
        data = data + 1j * rng.standard_normal(200)
    data = data.astype(dtype)
    for size, stride, offset in [((3, 4, 5), (1, 15, 3), 0), ((2, 3, 4), (24, 2, 6), 1),
                                 ((4, 1, 3), (3, 7, 1), 2), ((5, 1), (1, 1), 0),
                                 ((1, 4, 1), (4, 1, 1), 0), ((2, 2, 3), (0, 3, 1), 0)]:  # fmt: skip
        pair = pair_from_storage(data, size, stride, offset)
        for dim in range(len(size)):
            for n in (None, 2, 7):
                both_or_error(fft_call(name, n=n, dim=dim), pair)


def test_one_dim_of_a_vector_and_of_size_one():
    for name in ONE_DIM:
        pair = make_pair((7,), ONE_DIM_INPUT[name], seed=6)
        both(fft_call(name), pair)
    both(lambda m, x: m.fft.fft(x), make_pair((1,), "float32"))
    both(lambda m, x: m.fft.irfft(x, n=1), make_pair((3, 1), "complex64"))
    both(lambda m, x: m.fft.fft(x, n=3), make_pair((4, 0), "float32"))


def test_known_values():
    """Tests that do not need PyTorch: an impulse has a flat spectrum, a constant one
    peak; ``irfft(rfft(x)) == x``."""
    x = vg.tensor([1.0, 0.0, 0.0, 0.0])
    assert vg.fft.fft(x).tolist() == [1, 1, 1, 1]
    assert vg.fft.fft(vg.ones(4)).tolist() == [4, 0, 0, 0]
    assert vg.fft.ifft(vg.ones(4), norm="forward").tolist() == [4, 0, 0, 0]
    assert vg.fft.fft(vg.ones(4), norm="ortho").tolist() == [2, 0, 0, 0]
    y = vg.tensor([0.5, -1.0, 2.0, 3.0, 0.25], dtype=vg.float64)
    np.testing.assert_allclose(vg.fft.irfft(vg.fft.rfft(y), n=5).numpy(), y.numpy())
    np.testing.assert_allclose(vg.fft.ihfft(vg.fft.hfft(vg.fft.ihfft(y), n=5)).resolve_conj().numpy(),
                               vg.fft.ihfft(y).resolve_conj().numpy())  # fmt: skip


# --- n-dimensional transforms ------------------------------------------------------------------

N_DIM = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn",
         "irfftn", "hfftn", "ihfftn"]  # fmt: skip
N_DIM_INPUT = {"fft2": "complex64", "ifft2": "float64", "rfft2": "float32",
               "irfft2": "complex128", "fftn": "float32", "ifftn": "complex128",
               "rfftn": "float64", "irfftn": "complex64", "hfft2": "complex64",
               "ihfft2": "float64", "hfftn": "complex128", "ihfftn": "int64"}  # fmt: skip


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", N_DIM)
def test_n_dim_transforms_on_every_layout(name, layout):
    pair = make_pair((2, 3, 4), N_DIM_INPUT[name], layout, seed=7)
    fn = getattr(vg.fft, name)
    both(fft_call(name), pair)
    both(fft_call(name, dim=(0, 2)), pair)
    both(fft_call(name, dim=(2, 0)), pair)
    both(fft_call(name, dim=(-1,)), pair)
    assert fn.__name__ == f"fft_{name}"


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", N_DIM)
def test_n_dim_shapes_and_norms(name, norm):
    pair = make_pair((3, 4, 5), N_DIM_INPUT[name], "transposed", seed=8)
    for s in [None, (2, 6), (-1, 3), (4, -1), (1, 1)]:
        both(fft_call(name, s=s, norm=norm), pair)
    both(fft_call(name, s=(3, 2), dim=(2, 0), norm=norm), pair)
    if name.endswith("n"):
        both(fft_call(name, s=(2, 3, 7), norm=norm), pair)
        both(fft_call(name, s=(5,), norm=norm), pair)
        both(fft_call(name, None, (1,), norm), pair)


def test_n_dim_permuted_and_expanded_inputs():
    rng = np.random.default_rng(9)
    data = (rng.standard_normal(120) + 1j * rng.standard_normal(120)).astype("complex64")
    for size, stride in [((5, 3, 4), (1, 20, 5)), ((2, 3, 4), (0, 4, 1)),
                         ((3, 1, 4), (1, 1, 3)), ((4, 2, 3), (6, 24, 2))]:  # fmt: skip
        pair = pair_from_storage(data, size, stride)
        for dim in [(0,), (1,), (0, 2), (2, 0), (1, 2), (2, 1, 0), ()]:
            both(fft_call("fftn", dim=dim), pair)
            both(fft_call("fftn", dim=dim, real=True), pair)
            if dim:
                both_or_error(fft_call("irfftn", dim=dim), pair)
                both(fft_call("rfftn", dim=dim, real=True), pair)


def test_n_dim_of_a_zero_dim_tensor():
    for dtype in ("float32", "complex128"):
        pair = make_pair((), dtype, seed=10)
        both(lambda m, x: m.fft.fftn(x), pair)
        both(lambda m, x: m.fft.ifftn(x), pair)
        both(lambda m, x: m.fft.fftn(x, dim=()), pair)


# --- out= ----------------------------------------------------------------------------------------

OUT_CASES = {
    "fft": ("float32", "complex64"), "fft into complex128": ("float32", "complex128"),
    "ifft": ("float64", "complex128"), "ifft complex": ("complex64", "complex64"),
    "rfft": ("float32", "complex64"), "irfft": ("complex64", "float32"),
    "irfft into float64": ("complex64", "float64"), "hfft": ("complex128", "float64"),
    "ihfft": ("float32", "complex64"), "fft2": ("complex64", "complex64"),
    "ifft2": ("float32", "complex64"), "rfft2": ("float64", "complex128"),
    "irfft2": ("complex128", "float64"), "fftn": ("float32", "complex64"),
    "ifftn": ("complex64", "complex128"), "rfftn": ("float32", "complex64"),
    "irfftn": ("complex64", "float32"), "hfft2": ("complex64", "float32"),
    "hfftn": ("complex128", "float64"), "ihfft2": ("float32", "complex64"),
    "ihfftn": ("float64", "complex128"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(OUT_CASES))
def test_out(case):
    name = case.split()[0]
    dtype, out_dtype = OUT_CASES[case]
    pair = make_pair((3, 4), dtype, "transposed", seed=11)
    for out_shape in [(0,), (3, 4)]:
        both(_into_out(name, out_shape, out_dtype), pair, tol=TOLERANCE[dtype])


def _into_out(name: str, out_shape, out_dtype: str):
    """``m.fft.<name>(x, norm="ortho", out=out)``, ``out`` a new tensor of that shape
    (resized, with PyTorch's warning, if it is not the result's)."""

    def call(m, x):
        out = m.empty(out_shape, dtype=getattr(m, out_dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = getattr(m.fft, name)(x, norm="ortho", out=out)
        assert result is out
        return out

    return call


def test_ihfftn_of_one_dim_leaves_out_as_torch_does():
    """PyTorch 2.13 swaps ``conj_physical_out``'s arguments there: ``out`` is returned as
    it was given (its own result is what is resized)."""
    pair = make_pair((4,), "float32", seed=17)
    for out_shape in [(0,), (2,)]:

        def call(m, x, out_shape=out_shape):
            out = m.full(out_shape, 1 + 2j, dtype=m.complex64)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert m.fft.ihfftn(x, out=out) is out
            return out

        v, t = both(call, pair)
        assert tuple(t.shape) == out_shape


def test_out_of_the_wrong_kind_is_refused():
    x = make_pair((3, 4), "float32")
    z = make_pair((3, 4), "complex64")
    cases = [("fft", x, "float32"), ("ifft", z, "float64"), ("rfft", x, "float32"),
             ("ihfft", x, "float64"), ("irfft", z, "complex64"), ("hfft", z, "int64"),
             ("fftn", x, "float32"), ("ifft2", z, "float32"), ("rfftn", x, "float64"),
             ("rfft2", x, "float32"), ("irfftn", z, "complex64"), ("irfft2", z, "complex128"),
             ("hfftn", z, "complex64"), ("hfft2", x, "int32"), ("ihfft2", x, "float32"),
             ("ihfftn", x, "float64")]  # fmt: skip
    for name, pair, out_dtype in cases:
        call = _into_out(name, (0,), out_dtype)
        assert_same_error(partial(call, vg, pair[0]), partial(call, torch, pair[1]))


def test_out_refuses_autograd():
    def call(m):
        x = m.ones(4, requires_grad=True)
        return m.fft.rfft(x, out=m.empty(0, dtype=m.complex64))

    assert_same_error(lambda: call(vg), lambda: call(torch))


# --- the ATen operators -----------------------------------------------------------------------


def test_the_aten_operators():
    x = make_pair((3, 4, 5), "float64", "transposed", seed=12)
    z = make_pair((3, 4, 5), "complex128", "stepped", seed=13)
    for norm in (0, 1, 2):
        for dims in ([2], [0, 2], [2, 0], [1, 2, 0]):
            both(aten_call("_fft_r2c", dims, norm, True), x)
            both(aten_call("_fft_r2c", dims, norm, False), x)
            both(aten_call("_fft_c2c", dims, norm, True), z)
            both(aten_call("_fft_c2c", dims, norm, False), z)
            both(aten_call("_fft_c2r", dims, norm, 2 * (3, 4, 5)[dims[-1]] - 1), z)
    both(lambda m, a: m._fft_c2c(a, [], 0, True), z)
    out = (vg.empty(0, dtype=vg.complex128), torch.empty(0, dtype=torch.complex128))
    both(lambda m, a: m._fft_r2c(a, [1], 0, False, out=out[m is torch]), x)


def test_aten_operators_refuse_other_dtypes():
    x, z = make_pair((3, 4), "float32"), make_pair((3, 4), "complex64")
    h = make_pair((3, 4), "float16")
    assert_same_error(lambda: vg._fft_r2c(z[0], [1], 0, True),
                      lambda: torch._fft_r2c(z[1], [1], 0, True))  # fmt: skip
    assert_same_error(lambda: vg._fft_r2c(h[0], [1], 0, True),
                      lambda: torch._fft_r2c(h[1], [1], 0, True))  # fmt: skip
    assert_same_error(lambda: vg._fft_c2c(x[0], [1], 0, True),
                      lambda: torch._fft_c2c(x[1], [1], 0, True))  # fmt: skip
    assert_same_error(lambda: vg._fft_c2r(x[0], [1], 0, 6),
                      lambda: torch._fft_c2r(x[1], [1], 0, 6))  # fmt: skip


# --- gradients ---------------------------------------------------------------------------------

GRADIENTS = {
    "fft": (lambda m, x: m.fft.fft(x), "r"),
    "fft complex": (lambda m, x: m.fft.fft(x, norm="ortho"), "c"),
    "fft padded": (lambda m, x: m.fft.fft(x, n=7, dim=0), "r"),
    "ifft": (lambda m, x: m.fft.ifft(x), "r"),
    "ifft complex trimmed": (lambda m, x: m.fft.ifft(x, n=3), "c"),
    "rfft": (lambda m, x: m.fft.rfft(x), "r"),
    "rfft odd": (lambda m, x: m.fft.rfft(x, n=5, norm="forward"), "r"),
    "irfft": (lambda m, x: m.fft.irfft(x), "c"),
    "irfft odd": (lambda m, x: m.fft.irfft(x, n=7, dim=0, norm="ortho"), "c"),
    "irfft real input": (lambda m, x: m.fft.irfft(x), "r"),
    "hfft": (lambda m, x: m.fft.hfft(x), "c"),
    "hfft odd": (lambda m, x: m.fft.hfft(x, n=5), "c"),
    "ihfft": (lambda m, x: m.fft.ihfft(x), "r"),
    "fft2": (lambda m, x: m.fft.fft2(x), "c"),
    "fft2 real": (lambda m, x: m.fft.fft2(x, s=(3, 5)), "r"),
    "ifft2": (lambda m, x: m.fft.ifft2(x, norm="forward"), "c"),
    "rfft2": (lambda m, x: m.fft.rfft2(x), "r"),
    "irfft2": (lambda m, x: m.fft.irfft2(x), "c"),
    "irfft2 odd": (lambda m, x: m.fft.irfft2(x, s=(3, 5)), "c"),
    "fftn": (lambda m, x: m.fft.fftn(x, dim=(1, 0)), "c"),
    "ifftn": (lambda m, x: m.fft.ifftn(x), "r"),
    "rfftn": (lambda m, x: m.fft.rfftn(x, dim=(1, 0), norm="ortho"), "r"),
    "irfftn": (lambda m, x: m.fft.irfftn(x, dim=(1, 0)), "c"),
    "hfft2": (lambda m, x: m.fft.hfft2(x), "c"),
    "hfftn odd": (lambda m, x: m.fft.hfftn(x, s=(2, 5), norm="ortho"), "c"),
    "ihfft2": (lambda m, x: m.fft.ihfft2(x), "r"),
    "ihfftn": (lambda m, x: m.fft.ihfftn(x, dim=(0,), norm="forward"), "r"),
    "fftshift": (lambda m, x: m.fft.fftshift(x), "c"),
    "ifftshift": (lambda m, x: m.fft.ifftshift(x, dim=0), "r"),
}  # fmt: skip


def _chain(t):
    """The node names from the output down to the leaf."""
    names, node = [], t.grad_fn
    while node is not None:
        names.append(node.name().split("::")[-1])
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def _leaf(lib, values: np.ndarray, transposed: bool):
    """A leaf holding ``values``, row-major or laid out as a transposed matrix."""
    if transposed:
        return lib.from_numpy(values.T.copy()).t().detach().requires_grad_()
    return lib.from_numpy(values.copy()).requires_grad_()


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_match_torch(name, transposed):
    """The graph's nodes, ``.grad`` against PyTorch's (conjugate bit included) and
    ``gradcheck`` (real or complex input, float64)."""
    fn, kind = GRADIENTS[name]
    rng = np.random.default_rng(14)
    values = rng.standard_normal((4, 3))
    if kind == "c":
        values = values + 1j * rng.standard_normal((4, 3))
    v, t = _leaf(vg, values, transposed), _leaf(torch, values, transposed)
    v_out, t_out = fn(vg, v), fn(torch, t)
    same(v_out.detach(), t_out.detach())
    assert _chain(v_out) == _chain(t_out)
    upstream = rng.standard_normal(tuple(t_out.shape))
    if t_out.is_complex():
        upstream = upstream + 1j * rng.standard_normal(tuple(t_out.shape))
    v_out.backward(vg.from_numpy(upstream.copy()))
    t_out.backward(torch.from_numpy(upstream.copy()))
    assert v.grad.is_conj() == t.grad.is_conj()
    assert v.grad.stride() == t.grad.stride()
    assert_same(v.grad.resolve_conj(), t.grad.resolve_conj(), rtol=1e-9, atol=1e-9)
    fresh = _leaf(vg, values, transposed)
    assert vg.autograd.gradcheck(lambda x: fn(vg, x), (fresh,))


@pytest.mark.parametrize("name", ["irfft odd", "rfft2", "fft complex", "hfft"])
def test_second_derivatives(name):
    fn, kind = GRADIENTS[name]
    rng = np.random.default_rng(15)
    values = rng.standard_normal((4, 3))
    if kind == "c":
        values = values + 1j * rng.standard_normal((4, 3))
    results = []
    for lib in (vg, torch):
        x = lib.from_numpy(values.copy()).requires_grad_()
        y = fn(lib, x)
        (g,) = lib.autograd.grad((y * y.conj()).real.sum(), [x], create_graph=True)
        (g2,) = lib.autograd.grad((g * g.conj()).real.sum(), [x])
        results.append(g2)
    assert results[0].is_conj() == results[1].is_conj()
    assert_same(results[0].resolve_conj(), results[1].resolve_conj(), rtol=1e-9, atol=1e-9)
    fresh = vg.from_numpy(values.copy()).requires_grad_()
    assert vg.autograd.gradgradcheck(lambda x: fn(vg, x), (fresh,))


def test_the_backward_nodes_save_what_torchs_save():
    for lib in (vg, torch):
        x = lib.randn(3, 4, dtype=lib.float64, requires_grad=True)
        node = lib.fft.rfft(x, dim=0, norm="ortho").grad_fn
        assert node._saved_dim == (0,) or list(node._saved_dim) == [0]
        assert node._saved_normalization == 1
        assert node._saved_onesided is True


# --- fftfreq, rfftfreq, fftshift, ifftshift -----------------------------------------------------


def test_rfftfreq_of_a_negative_n_divides_as_cpp():
    for n in (-1, -2, -3):
        assert_same(vg.fft.rfftfreq(n), torch.fft.rfftfreq(n))
    assert_same_error(lambda: vg.fft.rfftfreq(-4), lambda: torch.fft.rfftfreq(-4))


@pytest.mark.parametrize("n", [0, 1, 4, 5, 8])
def test_fftfreq_and_rfftfreq(n):
    for name in ("fftfreq", "rfftfreq"):
        v, t = getattr(vg.fft, name), getattr(torch.fft, name)
        assert_same(v(n), t(n), rtol=1e-6, atol=1e-7)
        assert_same(v(n, 0.3, dtype=vg.float64), t(n, 0.3, dtype=torch.float64))
        assert_same(v(n, d=2), t(n, d=2), rtol=1e-6, atol=1e-7)
        assert_same(v(n, d=0), t(n, d=0))
        r = v(n, requires_grad=True)
        assert r.requires_grad and r.is_leaf
        for out_dtype, size in (("float32", 0), ("float64", 2)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                vo = vg.empty(size, dtype=getattr(vg, out_dtype))
                to = torch.empty(size, dtype=getattr(torch, out_dtype))
                assert v(n, 0.5, out=vo) is vo
                t(n, 0.5, out=to)
            assert_same(vo, to)


def test_fftfreq_errors():
    calls = ["{f}(-5)", "{f}(4, dtype=m.int64)", "{f}(4, dtype=m.complex64)",
             "{f}(4, out=m.empty(0, dtype=m.int32))", "{f}(2.5)", "{f}(4, d='a')"]  # fmt: skip
    for name in ("m.fft.fftfreq", "m.fft.rfftfreq"):
        for call in calls:
            code = call.format(f=name)
            assert_same_error(lambda: eval(code, {"m": vg}), lambda: eval(code, {"m": torch}))  # noqa: B023 - called at once


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fftshift_and_ifftshift(layout):
    pair = make_pair((3, 4, 5), "float32", layout, seed=16)
    for name in ("fftshift", "ifftshift"):
        for dim in (None, 0, -1, (0, 2), (1, 1)):
            both(fft_call(name, dim=dim), pair)
            both(fft_call(name, dim), pair)
    freq = vg.fft.fftshift(vg.fft.fftfreq(5))
    np.testing.assert_allclose(freq.numpy(), [-0.4, -0.2, 0.0, 0.2, 0.4], rtol=1e-6)
    assert vg.fft.ifftshift(vg.fft.fftshift(vg.arange(7))).tolist() == list(range(7))


# --- errors ------------------------------------------------------------------------------------

ERRORS = [
    "m.fft.fft(x, norm='bad')", "m.fft.fft(x, norm='Forward')", "m.fft.rfftn(x, norm='')",
    "m.fft.fft(x, n=0)", "m.fft.ifft(z, n=-2)", "m.fft.irfft(z, n=0)", "m.fft.rfft(x, 0)",
    "m.fft.irfft(m.ones(3, 1, dtype=m.complex64))", "m.fft.fft(x, dim=2)",
    "m.fft.rfft(x, dim=-3)", "m.fft.fft(m.tensor(1.0))", "m.fft.irfft(m.tensor(1j))",
    "m.fft.fft(x.half())", "m.fft.fftn(x.half())", "m.fft.rfft(z)", "m.fft.ihfft(z)",
    "m.fft.rfftn(z)", "m.fft.rfft2(z)", "m.fft.fftn(x, dim=(0, 0))", "m.fft.fftn(x, dim=(0, -2))",
    "m.fft.fftn(x, s=(2, 3, 4))", "m.fft.fftn(x, s=(2, 3), dim=(0,))", "m.fft.fftn(x, s=(0, 3))",
    "m.fft.fft2(m.ones(3))", "m.fft.fftn(x, dim=(0, 5))", "m.fft.rfftn(x, dim=())",
    "m.fft.irfftn(z, dim=())", "m.fft.hfftn(z, dim=())", "m.fft.ihfftn(x, dim=())",
    "m.fft.ihfftn(z)", "m.fft.hfft2(m.ones(3, 1))", "m.fft.ihfft2(x.half())", "m.fft.rfftn(m.tensor(1.0))", "m.fft.fftn(m.tensor(1.0), s=(1,))",
    "m.fft.irfftn(z, s=(3, 0))", "m.fft.fft(x, 3.5)", "m.fft.fft(x, dim=(0, 1))",
    "m.fft.fft(5)", "m.fft.fft(x, norm=3)", "m.fft.fftn(x, s=2.5)", "m.fft.fftshift(m.tensor(1.0))",
    "m.fft.fftshift(x, dim=3)", "m.fft.fft(m.ones(0, 4))", "m.fft.rfft(m.ones(0, 4))",
    "m.fft.irfft(m.ones(2, 0, 3, dtype=m.complex64))", "m.fft.fft(m.ones(4, 0))",
]  # fmt: skip


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_torchs(call):
    def run(m):
        x = m.ones(3, 4)
        z = m.ones(3, 4, dtype=m.complex64)
        return eval(call, {"m": m, "x": x, "z": z})

    vg_error, torch_error = assert_same_error(lambda: run(vg), lambda: run(torch))
    assert str(vg_error) == str(torch_error).split("\n")[0].replace("torch.", "vizgrad.")

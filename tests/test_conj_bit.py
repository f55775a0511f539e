"""The conjugate and negative bits: ``conj()`` and ``conj().imag`` are lazy views, kept by
views, resolved by the dispatcher's Conjugate and Negative keys before any other kernel
(and written through on in-place and out= calls), as in PyTorch."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg


def _lazy(lib, kind="conj"):
    """A complex tensor, and a lazy view of it: its conjugate, or ``conj().imag``."""
    z = lib.tensor([[1 + 2j, 3 - 4j, -0.5j], [2.0 + 0j, -1 - 1j, 4j]])
    return z, (z.conj() if kind == "conj" else z.conj().imag)


def _bits(t) -> tuple:
    return t.is_conj(), t.is_neg()


def _assert_same_lazy(v, t, **kwargs):
    """Same bits, same metadata and the same values (read through the bits)."""
    assert _bits(v) == _bits(t)
    assert_same(v.resolve_conj().resolve_neg(), t.resolve_conj().resolve_neg(), **kwargs)


# --- the views and their bits ----------------------------------------------------------------


def test_conj_is_a_view_with_the_bit():
    for lib in (torch, vg):
        z, c = _lazy(lib)
        assert c.is_conj() and not z.is_conj() and c._base is z
        assert c.untyped_storage().data_ptr() == z.untyped_storage().data_ptr()
        assert not c.conj().is_conj() and c.conj()._base is z
        assert lib.is_conj(c) and not lib.is_neg(c)
        real = lib.ones(2)
        assert real.conj() is real and not real.conj().is_conj()
        assert z.resolve_conj() is z and c.resolve_neg() is c


@pytest.mark.parametrize(
    "view",
    [
        lambda c: c.t(),
        lambda c: c[1],
        lambda c: c[:, ::2],
        lambda c: c.view(3, 2),
        lambda c: c.reshape(6),
        lambda c: c.unsqueeze(0),
        lambda c: c.expand(2, 2, 3),
        lambda c: c.permute(1, 0),
        lambda c: c.detach(),
        lambda c: c.diagonal(),
        lambda c: c.unbind(1)[0],
        lambda c: c.split(1)[1],
        lambda c: c.contiguous(),
        lambda c: c.transpose(0, 1).contiguous(),
        lambda c: c.clone(),
        lambda c: c.resolve_conj(),
        lambda c: c.conj_physical(),
        lambda c: c.to(c.dtype),
        lambda c: c.to(torch.complex128 if isinstance(c, torch.Tensor) else vg.complex128),
        lambda c: c.flip(0),
        lambda c: c + 1,
        lambda c: -c,
        lambda c: c * c,
        lambda c: c.sum(0),
        lambda c: c @ c.t(),
        lambda c: c.abs(),
        lambda c: c.exp(),
        lambda c: c.real,
        lambda c: c.imag,
        lambda c: c.imag.t(),
        lambda c: c.imag * 2,
        lambda c: c.imag.clone(),
        lambda c: c.imag.resolve_neg(),
        lambda c: c.angle(),
        lambda c: c[[0, 1, 1]],
        lambda c: c[c.real > 0],
        lambda c: c == c.resolve_conj(),
    ],
)
@pytest.mark.parametrize("kind", ["conj", "neg"])
def test_bits_propagate_through_views_and_are_resolved_elsewhere(view, kind):
    # (With ``neg``, the same operations on a real tensor with the negative bit.)
    try:
        expected = view(_lazy(torch, kind)[1])
    except RuntimeError:
        assert_same_error(lambda: view(_lazy(vg, kind)[1]), lambda: view(_lazy(torch, kind)[1]))
        return
    got = view(_lazy(vg, kind)[1])
    if isinstance(expected, torch.Tensor):
        _assert_same_lazy(got, expected, check_offset=True)
    else:
        assert got == expected


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_operators_on_conjugate_inputs_give_conjugated_results(layout, dtype):
    v, t = make_pair((2, 3), dtype, layout)
    w, s = make_pair((2, 3), dtype, "contiguous", seed=1)
    for f in (lambda a, b: a + b, lambda a, b: a * b.conj(), lambda a, b: a.conj() / b,
              lambda a, b: (a.conj() * b).sum(1), lambda a, b: a.conj().exp(),
              lambda a, b: a.conj() @ b.t(), lambda a, b: a.conj().sqrt().abs()):  # fmt: skip
        got, expected = f(v, w), f(t, s)
        _assert_same_lazy(got, expected)


# --- writes into a lazy view -----------------------------------------------------------------


@pytest.mark.parametrize(
    "write",
    [
        lambda lib, c: c.add_(1),
        lambda lib, c: c.mul_(2),
        lambda lib, c: c.zero_(),
        lambda lib, c: c.fill_(3),
        lambda lib, c: c.copy_(lib.ones(c.shape)),
        lambda lib, c: c.copy_(c.clone()),
        lambda lib, c: lib.add(lib.ones(c.shape, dtype=c.dtype), 1, out=c),
        lambda lib, c: lib.mul(c, 2, out=c),
        lambda lib, c: c.__setitem__((0, 1), 7),
        lambda lib, c: c[1].sub_(c[0]),
        lambda lib, c: c.t().add_(1),
        lambda lib, c: c.masked_fill_(lib.tensor([True, False, True]), 0),
        lambda lib, c: c.conj_physical_(),
        lambda lib, c: c.neg_(),
        lambda lib, c: c.resize_(2, 3),
    ],
)
@pytest.mark.parametrize("kind", ["conj", "neg"])
def test_writes_go_through_the_bit_into_the_base(write, kind):
    def run(lib):
        z, lazy = _lazy(lib, kind)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (complex written into a real view)
            result = write(lib, lazy)
        if isinstance(result, lib.Tensor) and result.shape == lazy.shape:
            assert result is lazy  # the written tensor itself, not the fallback's clone
        return z, lazy

    try:
        expected = run(torch)
    except RuntimeError:
        assert_same_error(lambda: run(vg), lambda: run(torch))
        return
    got = run(vg)
    assert_same(got[0], expected[0])  # the base's bytes
    _assert_same_lazy(got[1], expected[1])
    assert got[0]._version == expected[0]._version


def test_the_fallback_refuses_two_written_tensors_with_the_bit():
    def run(lib):
        n1, n2 = _lazy(lib, "neg")[1][0], _lazy(lib, "neg")[1][1]
        return lib.aminmax(lib.tensor([[1.0, 5.0, 3.0], [0.0, 2, 1]]), dim=0,
                           out=(n1, n2))  # fmt: skip

    assert_same_error(lambda: run(vg), lambda: run(torch))


def test_a_multi_output_out_with_the_bit_on_one_output():
    def run(lib):
        z, n = _lazy(lib, "neg")
        indices = lib.zeros(3, dtype=lib.int64)
        result = lib.max(lib.tensor([[1.0, 5.0, 3.0], [0.0, 2, 1]]), 0, out=(n[0], indices))
        assert result[0] is n[0] or result.values._base is z
        return z, indices

    got, expected = run(vg), run(torch)
    assert_same(got[0], expected[0])
    assert_same(got[1], expected[1])


# --- reading a lazy view ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["conj", "neg"])
def test_numpy_refuses_a_lazy_view_and_python_values_read_through_it(kind):
    _, v = _lazy(vg, kind)
    _, t = _lazy(torch, kind)
    assert_same_error(lambda: v.numpy(), lambda: t.numpy())
    assert_same_error(lambda: np.asarray(v), lambda: np.asarray(t))
    assert v.tolist() == t.tolist()
    assert v[0, 1].item() == t[0, 1].item()
    np.testing.assert_array_equal(v.numpy(force=True), t.numpy(force=True))
    assert bool(v[0, 0]) == bool(t[0, 0])


@pytest.mark.parametrize("kind", ["conj", "neg"])
def test_printing_shows_the_values(kind):
    _, v = _lazy(vg, kind)
    _, t = _lazy(torch, kind)
    assert repr(v) == repr(t)
    assert repr(v[1:, :1]) == repr(t[1:, :1])


def test_view_as_real_of_a_conjugate_view_is_an_error():
    assert_same_error(
        lambda: vg.view_as_real(_lazy(vg)[1]), lambda: torch.view_as_real(_lazy(torch)[1])
    )


def test_conj_physical():
    for lib in (torch, vg):
        z, c = _lazy(lib)
        p = z.conj_physical()
        assert not p.is_conj() and p._base is None and p.tolist() == c.tolist()
        assert c.conj_physical().tolist() == z.tolist() and not c.conj_physical().is_conj()
        real = lib.ones(2)
        assert real.conj_physical() is real and lib.conj_physical_(real) is real
    assert_same(vg.conj_physical(vg.tensor([1 + 1j]), out=vg.zeros(3, dtype=vg.complex64)[:1]),
                torch.conj_physical(torch.tensor([1 + 1j]), out=torch.zeros(3, dtype=torch.complex64)[:1]))  # fmt: skip
    for dtype in ("bool", "int64", "float32"):  # a real number is its own conjugate
        assert_same(
            vg.conj_physical(vg.ones(2, dtype=getattr(vg, dtype)), out=vg.empty(0, dtype=getattr(vg, dtype))),
            torch.conj_physical(torch.ones(2, dtype=getattr(torch, dtype)),
                                out=torch.empty(0, dtype=getattr(torch, dtype))),
        )  # fmt: skip
    for bad in (lambda lib: lib.conj_physical(lib.tensor([1 + 1j]), out=lib.zeros(1)),
                lambda lib: lib.conj_physical(lib.tensor([1.0]), out=lib.zeros(1, dtype=lib.float64)),
                lambda lib: lib.tensor([1 + 1j]).expand(3).conj_physical_()):  # fmt: skip
        assert_same_error(lambda bad=bad: bad(vg), lambda bad=bad: bad(torch))


# --- the keys in the dispatch trace ------------------------------------------------------------


def test_the_conjugate_key_resolves_inputs_in_the_trace():
    _, c = _lazy(vg)
    with vg.dispatch_trace() as trace:
        c + 1
    lines = trace.lines()
    assert lines[0] == " [call] op=[aten::add.Tensor], key=[AutogradCPU]"
    assert lines[1] == "  [redispatch] op=[aten::add.Tensor], key=[Conjugate]"
    assert "   [call] op=[aten::clone], key=[CPU]" in lines
    assert lines[-1] == "   [redispatch] op=[aten::add.Tensor], key=[CPU]"  # below the fallback
    assert "Conjugate" in trace.explain()


def test_views_in_the_fallthrough_lists_skip_the_key():
    _, c = _lazy(vg)
    with vg.dispatch_trace() as trace:
        c.t()
        c.clone()
    assert not any("Conjugate" in line for line in trace.lines())
    with vg.dispatch_trace() as trace:
        c[0:1]  # slice is not on PyTorch's lists: the fallback lets the view through
    assert any("aten::slice.Tensor], key=[Conjugate]" in line for line in trace.lines())


def test_the_negative_key_comes_before_the_conjugate_key():
    z, n = _lazy(vg, "neg")
    both = vg.tensor([1 + 2j]).conj()._neg_view()
    assert _bits(both) == _bits(torch.tensor([1 + 2j]).conj()._neg_view()) == (True, True)
    with vg.dispatch_trace() as trace:
        both * 2
    keys = [s.key for s in trace.steps if s.op == "aten::mul.Tensor"]
    assert keys == ["AutogradCPU", "Negative", "CPU"]  # the clone resolved both bits
    assert (both * 2).tolist() == (torch.tensor([1 + 2j]).conj()._neg_view() * 2).tolist()
    with vg.dispatch_trace() as trace:
        n + 1
    assert [s.key for s in trace.steps if s.op == "aten::add.Tensor"] == [
        "AutogradCPU", "Negative", "CPU"]  # fmt: skip


# --- checkpoints and gradients keep the bits ----------------------------------------------------


@pytest.mark.parametrize("kind", ["conj", "neg"])
def test_checkpoints_keep_the_bits_both_ways(kind):
    buffer = io.BytesIO()
    vg.save(_lazy(vg, kind)[1], buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    expected = _lazy(torch, kind)[1]
    assert _bits(loaded) == _bits(expected) and loaded.tolist() == expected.tolist()
    buffer = io.BytesIO()
    torch.save(expected, buffer)
    buffer.seek(0)
    _assert_same_lazy(vg.load(buffer), expected)


def test_gradients_carry_the_bit_as_torchs_do():
    results = []
    for lib in (torch, vg):
        x = lib.tensor([1 + 2j, 3j], requires_grad=True)
        y = lib.tensor([1 + 2j, 3j], requires_grad=True)
        (x.conj() * y).sum().abs().backward()
        g = x.conj() * 2
        g.retain_grad()
        w = lib.tensor([1 + 2j, 3j], requires_grad=True)
        w.conj().backward(lib.tensor([1 + 1j, 2 - 1j]))
        results.append((_bits(x.grad), _bits(y.grad), _bits(w.grad), w.grad.tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize("attribute", ["mH", "H", "adjoint"])
def test_the_conjugate_transpose_is_a_lazy_view(attribute):
    def make(lib):
        z = lib.tensor([[1 + 2j, 3j], [1.0, 2 - 1j]], requires_grad=True)
        return getattr(z, attribute)() if attribute == "adjoint" else getattr(z, attribute)

    v, t = make(vg), make(torch)
    _assert_same_lazy(v.detach(), t.detach(), check_offset=True)
    assert type(v.grad_fn).__name__ == type(t.grad_fn).__name__ == "ConjBackward0"

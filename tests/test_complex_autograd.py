"""Complex autograd as PyTorch does it: formulas declared ``complex=True`` differentiate
complex inputs and outputs (conjugate Wirtinger derivatives); every other operator is
refused with PyTorch's ``throw_error_for_complex_autograd`` message."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg


def _leaf(lib, values=(1 + 2j, -3 + 0.5j, 0.25 - 1j)):
    return lib.tensor(list(values), dtype=lib.complex128, requires_grad=True)


# --- where complex autograd is refused ---------------------------------------------------


def test_a_complex_tensor_may_require_grad():
    for lib in (torch, vg):
        x = lib.tensor([1j]).requires_grad_()
        assert x.requires_grad and x.is_leaf
        y = lib.tensor([1j])
        y.requires_grad = True
        assert y.requires_grad


def test_an_operator_not_declared_for_complex_outputs_is_refused_with_torchs_message():
    # PyTorch's silu is not in GRADIENT_IMPLEMENTED_FOR_COMPLEX: both refuse.
    assert_same_error(
        lambda: vg.nn.functional.silu(_leaf(vg)), lambda: torch.nn.functional.silu(_leaf(torch))
    )


def test_the_refusal_names_the_operator_as_torchs_codegen_does():
    x = vg.tensor([1j, 2j], requires_grad=True)
    with pytest.raises(RuntimeError, match="^silu does not support automatic differentiation "
                       "for outputs with complex dtype.$"):  # fmt: skip
        vg.nn.functional.silu(x)


def test_a_formula_not_declared_for_complex_inputs_is_refused_too():
    # PyTorch trusts its real-valued formulas of complex inputs; vizgrad refuses the ones
    # it has not declared right for complex numbers rather than risk a wrong gradient.
    with pytest.raises(RuntimeError, match="^var does not support automatic differentiation "
                       "for inputs with complex dtype.$"):  # fmt: skip
        vg.var(_leaf(vg))


def test_without_grad_complex_results_still_compute():
    w = vg.ones(2, requires_grad=True)
    with vg.no_grad():
        assert (w * (1 + 1j)).tolist() == [1 + 1j, 1 + 1j]
    assert (w.detach() * 1j).tolist() == [1j, 1j]


def _complex_gradient_for_real_input(lib):
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * (1 + 1j)

    x = lib.ones(2, requires_grad=True)
    Twice.apply(x).sum().backward()


def test_the_engine_refuses_a_complex_gradient_for_a_real_input():
    assert_same_error(
        lambda: _complex_gradient_for_real_input(vg),
        lambda: _complex_gradient_for_real_input(torch),
    )


# --- the formulas declared for complex numbers, against torch and finite differences -----


def _c(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _r(rng, shape):
    return rng.standard_normal(shape)


def _lib(t):
    return torch if isinstance(t, torch.Tensor) else vg


def _imag_written_in_place(a):
    b = a.clone()
    b.imag.mul_(2)
    return b


def _conj_real_written_in_place(a):
    b = a.clone()
    b.conj().real.add_(b.imag)
    return b


# name: (function of the inputs, the inputs' kinds and shapes: "c" complex, "r" real)
CASES = {
    "add": (lambda a, b: a + b, [("c", 3), ("c", 3)]),
    "add_alpha": (lambda a, b: a.add(b, alpha=2 - 1j), [("c", 3), ("c", 3)]),
    "add_broadcast": (lambda a, b: a + b, [("c", (2, 3)), ("c", 3)]),
    "sub": (lambda a, b: a - b, [("c", 3), ("c", 3)]),
    "rsub": (lambda a: 2 - a, [("c", 3)]),
    "mul": (lambda a, b: a * b, [("c", 3), ("c", 3)]),
    "mul_real_complex": (lambda a, b: a * b, [("r", 3), ("c", 3)]),
    "mul_number": (lambda a: a * (1 - 2j), [("r", 3)]),
    "div": (lambda a, b: a / b, [("c", 3), ("c", 3)]),
    "div_real_complex": (lambda a, b: a / b, [("r", 3), ("c", 3)]),
    "neg": (lambda a: -a, [("c", 3)]),
    "sum": (lambda a: a.sum(), [("c", (2, 3))]),
    "sum_dim": (lambda a: a.sum(1), [("c", (2, 3))]),
    "mean": (lambda a: a.mean(), [("c", (2, 3))]),
    "mean_dim": (lambda a: a.mean(0, keepdim=True), [("c", (2, 3))]),
    "abs": (lambda a: a.abs(), [("c", 3)]),
    "exp": (lambda a: a.exp(), [("c", 3)]),
    "log": (lambda a: a.log(), [("c", 3)]),
    "sqrt": (lambda a: a.sqrt(), [("c", 3)]),
    "pow_int": (lambda a: a.pow(3), [("c", 3)]),
    "pow_complex_number": (lambda a: a.pow(1.5 - 0.5j), [("c", 3)]),
    "pow_real_to_complex_number": (lambda a: (a * a).pow(0.5 + 1j), [("r", 3)]),
    "pow_tensors": (lambda a, b: a.pow(b), [("c", 3), ("c", 3)]),
    "pow_real_base": (lambda a, b: (a * a).pow(b), [("r", 3), ("c", 3)]),
    "pow_number_base": (lambda b: 2**b, [("c", 3)]),
    "square": (lambda a: a.square(), [("c", 3)]),
    "reciprocal": (lambda a: a.reciprocal(), [("c", 3)]),
    "sin": (lambda a: a.sin(), [("c", 3)]),
    "cos": (lambda a: a.cos(), [("c", 3)]),
    "tanh": (lambda a: a.tanh(), [("c", 3)]),
    "sigmoid": (lambda a: a.sigmoid(), [("c", 3)]),
    "sgn": (lambda a: a.sgn(), [("c", 3)]),
    "matmul": (lambda a, b: a @ b, [("c", (2, 3)), ("c", (3, 4))]),
    "matmul_batched": (lambda a, b: a @ b, [("c", (2, 2, 3)), ("c", (3,))]),
    "mm_column_major": (lambda a, b: a.t().mm(b.t()), [("c", (3, 2)), ("c", (4, 3))]),
    "bmm": (lambda a, b: a.bmm(b), [("c", (2, 2, 3)), ("c", (2, 3, 2))]),
    "mv": (lambda a, b: a.mv(b), [("c", (2, 3)), ("c", 3)]),
    "dot": (lambda a, b: a.dot(b), [("c", 3), ("c", 3)]),
    "vdot": (lambda a, b: a.vdot(b), [("c", 3), ("c", 3)]),
    "real": (lambda a: a.real, [("c", 3)]),
    "imag": (lambda a: a.imag, [("c", 3)]),
    "conj": (lambda a: a.conj(), [("c", 3)]),
    "conj_imag": (lambda a: a.conj().imag, [("c", 3)]),
    "conj_physical": (lambda a: a.conj_physical(), [("c", 3)]),
    "conj_physical_": (lambda a: a.clone().conj_physical_(), [("c", 3)]),
    "resolve_conj": (lambda a: a.conj().resolve_conj(), [("c", 3)]),
    "angle": (lambda a: a.angle(), [("c", 3)]),
    "angle_real": (lambda a: a.angle(), [("r", 3)]),
    "view_as_real": (lambda a: _lib(a).view_as_real(a), [("c", 3)]),
    "view_as_complex": (lambda a: _lib(a).view_as_complex(a), [("r", (3, 2))]),
    "complex": (lambda a, b: _lib(a).complex(a, b), [("r", 3), ("r", 3)]),
    "polar": (lambda a, b: _lib(a).polar(a.exp(), b), [("r", 3), ("r", 3)]),
    "view": (lambda a: a.view(3, 2), [("c", (2, 3))]),
    "reshape_copy": (lambda a: a.t().reshape(6), [("c", (2, 3))]),
    "transpose": (lambda a: a.transpose(0, 1), [("c", (2, 3))]),
    "permute": (lambda a: a.permute(1, 0), [("c", (2, 3))]),
    "select_slice": (lambda a: a[1, ::2], [("c", (2, 3))]),
    "index": (lambda a: a[[0, 0, 2]], [("c", 3)]),
    "squeeze_unsqueeze": (lambda a: a.unsqueeze(0).squeeze(), [("c", 3)]),
    "expand": (lambda a: a.expand(2, 3), [("c", 3)]),
    "cat": (lambda a, b: _lib(a).cat([a, b]), [("c", 3), ("c", 2)]),
    "stack": (lambda a, b: _lib(a).stack([a, b]), [("c", 3), ("c", 3)]),
    "clone": (lambda a: a.clone(), [("c", 3)]),
    "contiguous": (lambda a: a.t().contiguous(), [("c", (2, 3))]),
    "to_complex128": (lambda a: a.to(_lib(a).complex64).to(_lib(a).complex128), [("c", 3)]),
    "real_to_complex": (lambda a: a.to(_lib(a).complex128), [("r", 3)]),
    "complex_to_real": (lambda a: a.to(_lib(a).float64), [("c", 3)]),
    "copy_": (lambda a: _lib(a).zeros(3, dtype=_lib(a).complex128).copy_(a), [("c", 3)]),
    "conj_times": (lambda a, b: a.conj() * b, [("c", 3), ("c", 3)]),
    "imag_written_in_place": (_imag_written_in_place, [("c", 3)]),
    "conj_real_written_in_place": (_conj_real_written_in_place, [("c", 3)]),
    "squared_magnitude": (lambda a: (a * a.conj()).real, [("c", 3)]),
}
# Through complex64 the finite differences are too coarse for gradcheck.
NO_GRADCHECK = {"to_complex128"}


def _inputs(lib, kinds, seed):
    rng = np.random.default_rng(seed)
    arrays = [(_c if kind == "c" else _r)(rng, shape) for kind, shape in kinds]
    return [lib.tensor(a, requires_grad=True) for a in arrays]


def _bits(t):
    return t.is_conj(), t.is_neg()


# ``complex_to_real`` warns in both libraries, as it should.
@pytest.mark.filterwarnings("ignore:Casting complex values to real")
@pytest.mark.parametrize("name", list(CASES))
def test_gradients_match_torch(name):
    f, kinds = CASES[name]
    t_in, v_in = _inputs(torch, kinds, 0), _inputs(vg, kinds, 0)
    t_out, v_out = f(*t_in), f(*v_in)
    assert type(v_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    assert v_out.dtype.name == str(t_out.dtype).split(".")[-1]
    rng = np.random.default_rng(1)
    upstream = (_c if t_out.is_complex() else _r)(rng, tuple(t_out.shape))
    t_out.backward(torch.tensor(upstream, dtype=t_out.dtype))
    v_out.backward(vg.tensor(upstream, dtype=v_out.dtype))
    for v, t in zip(v_in, t_in, strict=True):
        assert _bits(v.grad) == _bits(t.grad)
        assert_same(v.grad.resolve_conj(), t.grad.resolve_conj(), check_stride=False,
                    rtol=1e-7, atol=1e-9)  # fmt: skip


@pytest.mark.filterwarnings("ignore:Casting complex values to real")
@pytest.mark.parametrize("name", sorted(set(CASES) - NO_GRADCHECK))
def test_gradcheck_on_complex_inputs(name):
    f, kinds = CASES[name]
    assert vg.autograd.gradcheck(f, _inputs(vg, kinds, 2))


@pytest.mark.parametrize("name", ["mul", "exp", "div", "abs", "matmul", "conj_times", "polar"])
def test_second_derivatives(name):
    f, kinds = CASES[name]
    assert vg.autograd.gradgradcheck(f, _inputs(vg, kinds, 3))


def test_the_graph_of_an_imaginary_part_of_a_conjugate():
    names = []
    for lib in (torch, vg):
        x = lib.tensor([1 + 2j], requires_grad=True)
        node, chain = x.conj().imag.grad_fn, []
        while node is not None and type(node).__name__ != "AccumulateGrad":
            chain.append(type(node).__name__)
            node = node.next_functions[0][0]
        names.append(chain)
    # ``imag`` of a conjugate view undoes the bit (``_conj``) before ``view_as_real``.
    assert names[0] == names[1] == ["SelectBackward0", "NegViewBackward0", "ViewAsRealBackward0",
                                    "ConjBackward0", "ConjBackward0"]  # fmt: skip


def test_a_written_complex_view_regenerates_its_history_as_torch():
    chains = []
    for lib in (torch, vg):
        a = lib.tensor([1 + 2j, 3j], requires_grad=True)
        b = a.clone()
        v = b.imag
        v.mul_(2)
        chains.append((type(b.grad_fn).__name__, type(v.grad_fn).__name__,
                       type(v.grad_fn.next_functions[0][0]).__name__))  # fmt: skip
    assert chains[0] == chains[1] == ("CopySlices", "AsStridedBackward0", "ViewAsRealBackward0")


def _wrong_complex_backward(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, grad):
            (z,) = ctx.saved_tensors
            return grad * 2 * z  # forgets the conjugate: wrong for complex z

    return Square.apply


def test_gradcheck_catches_a_missing_conjugate_as_torchs_does():
    for lib in (torch, vg):
        z = lib.tensor([1 + 2j, -0.5 + 1j], dtype=lib.complex128, requires_grad=True)
        with pytest.raises(RuntimeError, match="Jacobian mismatch"):
            lib.autograd.gradcheck(_wrong_complex_backward(lib), (z,))
        assert lib.autograd.gradcheck(lambda t: t * t, (z,))

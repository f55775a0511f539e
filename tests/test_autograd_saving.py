"""Recording saves only what the gradients that will be computed read (PyTorch's codegen).

``(a * b).grad_fn._saved_self`` is None when ``b`` doesn't require grad: only ``b``'s
gradient reads ``self``. Each case compares which ``_saved_<name>`` is None with torch,
for every choice of inputs that require grad, and that backward still gives torch's grads.
"""

import numpy as np
import pytest
import torch

import vizgrad as vg

# name: (function of the inputs, input shapes, saved names to compare)
CASES = {
    "mul": (lambda L, a, b: a * b, [(2, 3), (2, 3)], ["self", "other"]),
    "mul_broadcast": (lambda L, a, b: a * b, [(2, 3), (3,)], ["self", "other"]),
    "div": (lambda L, a, b: a / b, [(2, 3), (2, 3)], ["self", "other"]),
    "remainder": (lambda L, a, b: L.remainder(a, b), [(2, 3), (2, 3)], ["self", "other"]),
    "fmod": (lambda L, a, b: L.fmod(a, b), [(2, 3), (2, 3)], ["self", "other"]),
    "pow": (lambda L, a, b: L.pow(a, b), [(2, 3), (2, 3)], ["self", "exponent", "result"]),
    "atan2": (lambda L, a, b: L.atan2(a, b), [(2, 3), (2, 3)], ["self", "other"]),
    "maximum": (lambda L, a, b: L.maximum(a, b), [(2, 3), (2, 3)], ["self", "other"]),
    "minimum": (lambda L, a, b: L.minimum(a, b), [(2, 3), (2, 3)], ["self", "other"]),
    "lerp": (
        lambda L, a, b, w: L.lerp(a, b, w),
        [(2, 3), (2, 3), (2, 3)],
        ["self", "end", "weight"],
    ),
    "addcmul": (
        lambda L, c, a, b: L.addcmul(c, a, b, value=0.5),
        [(2, 3), (2, 3), (2, 3)],
        ["tensor1", "tensor2", "value"],
    ),
    "addcdiv": (
        lambda L, c, a, b: L.addcdiv(c, a, b, value=0.5),
        [(2, 3), (2, 3), (2, 3)],
        ["tensor1", "tensor2", "value"],
    ),
    "mm": (
        lambda L, a, b: L.mm(a, b),
        [(2, 3), (3, 4)],
        [
            "self",
            "mat2",
            "self_sym_sizes",
            "self_sym_strides",
            "mat2_sym_sizes",
            "mat2_sym_strides",
        ],
    ),
    "mm_transposed": (
        lambda L, a, b: L.mm(a.t(), b.t()),
        [(3, 2), (4, 3)],
        ["self", "mat2", "self_sym_strides", "mat2_sym_strides"],
    ),
    "bmm": (lambda L, a, b: L.bmm(a, b), [(2, 2, 3), (2, 3, 4)], ["self", "mat2"]),
    "mv": (lambda L, a, b: L.mv(a, b), [(2, 3), (3,)], ["self", "vec"]),
    "dot": (lambda L, a, b: L.dot(a, b), [(3,), (3,)], ["self", "tensor"]),
    "vdot": (lambda L, a, b: L.vdot(a, b), [(3,), (3,)], ["self", "other"]),
    "addmm": (
        lambda L, c, a, b: L.addmm(c, a, b, beta=0.5, alpha=2),
        [(2, 4), (2, 3), (3, 4)],
        ["mat1", "mat2", "alpha", "beta", "mat1_sym_strides", "mat2_sym_strides"],
    ),
    # matmul records its pieces' nodes (MmBackward0 for 2-D, the view of a BmmBackward0...)
    "matmul_2d": (lambda L, a, b: L.matmul(a, b), [(2, 3), (3, 4)], ["self", "mat2"]),
    "matmul_1d": (lambda L, a, b: L.matmul(a, b), [(3,), (3,)], ["self", "tensor"]),
    "matmul_2d_1d": (lambda L, a, b: L.matmul(a, b), [(2, 3), (3,)], ["self", "vec"]),
}


def _requires_grad_patterns(count):
    # Every non-empty choice of inputs that require grad.
    return [tuple(bool(m >> i & 1) for i in range(count)) for m in range(1, 2**count)]


PARAMS = [
    pytest.param(name, pattern, id=f"{name}-{''.join('g' if p else '_' for p in pattern)}")
    for name, (_, shapes, _) in CASES.items()
    for pattern in _requires_grad_patterns(len(shapes))
]


def _inputs(lib, shapes, pattern):
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(0.5, 2.0, size=shape) for shape in shapes]
    return [
        lib.tensor(a, dtype=lib.float64, requires_grad=p)
        for a, p in zip(arrays, pattern, strict=True)
    ]


def _describe(value):
    if value is None:
        return None
    if isinstance(value, torch.Tensor | vg.Tensor):
        return ("tensor", tuple(value.shape), value.tolist())
    return value


@pytest.mark.parametrize(("name", "pattern"), PARAMS)
def test_saved_values_match_torch(name, pattern):
    fn, shapes, saved_names = CASES[name]
    t_inputs = _inputs(torch, shapes, pattern)
    v_inputs = _inputs(vg, shapes, pattern)
    t_out = fn(torch, *t_inputs)
    v_out = fn(vg, *v_inputs)
    assert type(v_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    for saved in saved_names:
        attr = f"_saved_{saved}"
        if not hasattr(t_out.grad_fn, attr):  # matmul's pieces: another node
            continue
        expected = _describe(getattr(t_out.grad_fn, attr))
        assert _describe(getattr(v_out.grad_fn, attr)) == expected, attr
    # Only the needed values were kept, and backward still gives torch's gradients.
    t_out.sum().backward()
    v_out.sum().backward()
    for v, t in zip(v_inputs, t_inputs, strict=True):
        if t.grad is None:
            assert v.grad is None
        else:
            np.testing.assert_allclose(v.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_inplace_mul_saves_only_what_is_read():
    # ``x.mul_(y)`` with only ``y`` requiring grad keeps x's original values (``self``).
    x_t, x_v = torch.ones(3) * 2, vg.ones(3) * 2
    y_t, y_v = torch.ones(3, requires_grad=True), vg.ones(3, requires_grad=True)
    out_t, out_v = x_t.mul_(y_t), x_v.mul_(y_v)
    assert out_v.grad_fn._saved_other is None and out_t.grad_fn._saved_other is None
    assert out_v.grad_fn._saved_self.tolist() == out_t.grad_fn._saved_self.tolist()


def test_derivative_without_reads_saves_everything():
    from vizgrad.autograd.formula import Derivative

    everything = Derivative("XBackward0", grads={}, save=("self", "other"))
    assert everything.unneeded_saves({"self"}) == set()
    selective = Derivative(
        "YBackward0", grads={}, save=("self", "other", "alpha"),
        reads={"self": ("other",), "other": ("self",)},
    )  # fmt: skip
    assert selective.unneeded_saves({"self"}) == {"self"}
    assert selective.unneeded_saves({"self", "other"}) == set()

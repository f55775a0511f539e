"""The engine's fast paths give what its general paths give (and what PyTorch gives).

The common calls of a training loop (same-dtype contiguous operands, Python numbers,
in-place updates, positional arguments) take shortcuts through TensorIterator, the
argument parser and autograd. Each shortcut must fall back to the general path
wherever the result, an error or a warning could differ: these tests call both sides
of every boundary and compare with torch.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error, assert_same_outcome, make_pair

import vizgrad as vg

# --- TensorIterator: Python numbers at the edges of each dtype ------------------------------

NUMBER_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                 "float64", "complex64"]  # fmt: skip
NUMBERS = [0, 1, -3, 127, 128, 255, 256, -129, 2**31, 2**63 - 1, -(2**63), 65504,
           65505, 70000, 1.5, -2.5, 65504.0, 1e5, 3.4e38, 3.5e38, 1e300, float("inf"),
           float("nan"), True]  # fmt: skip


def _pair(dtype_name, shape=(2, 3), seed=0):
    return make_pair(shape, dtype_name, "contiguous", seed=seed, low=0, high=3)


@pytest.mark.parametrize("dtype_name", NUMBER_DTYPES)
@pytest.mark.parametrize("number", NUMBERS, ids=repr)
def test_functional_with_a_number(dtype_name, number):
    v, t = _pair(dtype_name)
    assert_same_outcome(lambda: vg.add(v, number), lambda: torch.add(t, number),
                        compare_warnings=True)  # fmt: skip


@pytest.mark.parametrize("dtype_name", NUMBER_DTYPES)
@pytest.mark.parametrize("number", NUMBERS, ids=repr)
def test_inplace_with_a_number(dtype_name, number):
    v, t = _pair(dtype_name)

    def torch_call():
        return t.add_(number)

    def vg_call():
        return v.add_(number)

    assert_same_outcome(vg_call, torch_call, compare_warnings=True)
    assert_same(v, t)


@pytest.mark.parametrize("dtype_name", ["int64", "float32", "float16"])
@pytest.mark.parametrize("number", [2, 0.5, 70000, 1e39], ids=repr)
def test_out_with_a_number(dtype_name, number):
    v, t = _pair(dtype_name)
    vo, to = _pair(dtype_name, seed=1)
    assert_same_outcome(lambda: vg.add(v, number, out=vo), lambda: torch.add(t, number, out=to),
                        compare_warnings=True)  # fmt: skip
    assert_same(vo, to)


def test_number_first_operand():
    v, t = _pair("float32")
    assert_same(vg.pow(2, v), torch.pow(2, t))
    assert_same(vg.rsub(v, 3), torch.rsub(t, 3))
    assert_same(2.5 - v, 2.5 - t)


# --- TensorIterator: outputs that alias inputs ------------------------------------------------


def _aranges():
    return vg.arange(10.0), torch.arange(10.0)


def test_inplace_reading_itself():
    v, t = _pair("float32")
    assert_same(v.add_(v), t.add_(t))
    assert_same(v.mul_(v[:]), t.mul_(t[:]))  # another tensor over the same memory


def test_inplace_partial_overlap_is_refused():
    v, t = _aranges()
    assert_same_error(lambda: v[0:5].add_(v[1:6]), lambda: t[0:5].add_(t[1:6]))


def test_out_partial_overlap_is_refused():
    v, t = _aranges()
    assert_same_error(
        lambda: vg.add(v[1:6], 1, out=v[0:5]), lambda: torch.add(t[1:6], 1, out=t[0:5])
    )


def test_out_same_memory_is_allowed():
    v, t = _aranges()
    assert_same(vg.add(v[0:5], 1, out=v[0:5]), torch.add(t[0:5], 1, out=t[0:5]))
    assert_same(v, t)


@pytest.mark.parametrize("out_dtype", ["float64", "int64", "float16"])
def test_out_of_another_dtype(out_dtype):
    v, t = _pair("float32")
    vo, to = _pair(out_dtype, seed=1)
    assert_same_outcome(lambda: vg.add(v, v, out=vo), lambda: torch.add(t, t, out=to))
    assert_same(vo, to)


def test_out_of_another_shape_is_resized():
    v, t = _pair("float32")
    vo, to = vg.empty(0), torch.empty(0)
    assert_same(vg.mul(v, v, out=vo), torch.mul(t, t, out=to))


def test_out_non_contiguous():
    v, t = _pair("float32")
    vo, to = make_pair((2, 3), "float32", "transposed", seed=2)
    assert_same(vg.sub(v, 1.5, out=vo), torch.sub(t, 1.5, out=to))


def test_inplace_integer_to_float_is_refused():
    v, t = _pair("int64")
    assert_same_error(lambda: v.sqrt_(), lambda: t.sqrt_())
    assert_same_error(lambda: v.div_(v), lambda: t.div_(t))


def test_inplace_comparison_casts_back():
    v, t = _pair("float32")
    w, u = _pair("float32", seed=3)
    assert_same(v.lt_(w), t.lt_(u))


@pytest.mark.parametrize("dtype_name", ["uint8", "int32", "float16", "float64"])
def test_integer_inputs_promoted_to_float(dtype_name):
    v, t = _pair(dtype_name)
    assert_same(v.sqrt(), t.sqrt())
    assert_same(v / 2, t / 2)


def test_mixed_dtypes_and_shapes_take_the_general_path():
    v, t = _pair("float32")
    w, u = _pair("float64", seed=1)
    assert_same(v + w, t + u)
    r, s = make_pair((3,), "float32", seed=2)
    assert_same(v * r, t * s)
    z, y = make_pair((), "float64", seed=3)
    assert_same(v * z, t * y)


def test_empty_and_zero_dim():
    v, t = make_pair((0, 3), "float32")
    assert_same(v.mul_(2.0), t.mul_(2.0))
    v, t = make_pair((), "float32")
    assert_same(v.add_(1), t.add_(1))
    assert_same(vg.lerp(v, v, 0.25), torch.lerp(t, t, 0.25))


def test_version_counter_bumps_once_per_write():
    v = vg.ones(3)
    t = torch.ones(3)
    v.add_(1.0)
    t.add_(1.0)
    vg.add(v, 1, out=v)
    torch.add(t, 1, out=t)
    assert v._version == t._version


def test_adam_like_updates_match_torch():
    """lerp_, mul_, addcmul_, sqrt, div, add_ and addcdiv_ with numbers, as Adam does them."""
    rng = np.random.default_rng(0)
    values = [rng.standard_normal((4, 5)).astype(np.float32) for _ in range(4)]
    p, g, m, s = (vg.tensor(a) for a in values)
    tp, tg, tm, ts = (torch.tensor(a) for a in values)
    s.abs_()
    ts.abs_()
    for lib, (param, grad, avg, sq) in ((vg, (p, g, m, s)), (torch, (tp, tg, tm, ts))):
        avg.lerp_(grad, 1 - 0.9)
        sq.mul_(0.999).addcmul_(grad, grad, value=1 - 0.999)
        denom = (sq.sqrt() / 0.7).add_(1e-8)
        param.addcdiv_(avg, denom, value=-0.001)
        assert lib is vg or isinstance(param, torch.Tensor)
    for a, b in ((p, tp), (m, tm), (s, ts)):
        assert_same(a, b)


# --- TensorIterator: the layout of an output when a dim is empty or of size 1 -------------

# Tensors that are contiguous by PyTorch's rule (which ignores the strides of size-1 dims,
# and all strides of an empty tensor) without having row-major strides.
ODD_CONTIGUOUS = [((3, 0), (1, 3)), ((3, 1), (1, 5)), ((2, 0, 3), (1, 2, 2)),
                  ((2, 1, 3), (3, 7, 1)), ((1, 4), (9, 1)), ((0,), (5,)), ((1, 1), (0, 0)),
                  ((0, 2, 1), (1, 0, 4))]  # fmt: skip
LAYOUT_CALLS = ["x + 1", "x * 2.5", "1 - x", "x.exp()", "x + y", "lib.add(x, 1)",
                "x.add(y, alpha=2)", "x + lib.tensor(1.0)", "x.mul(2)", "x > 0", "x.neg()",
                "lib.where(x > 0, x, 0.0)", "x.clamp(min=0)", "x.pow(2)"]  # fmt: skip


@pytest.mark.parametrize("call", LAYOUT_CALLS)
@pytest.mark.parametrize(("size", "stride"), ODD_CONTIGUOUS)
def test_output_strides_of_odd_contiguous_inputs_follow_torch(size, stride, call):
    """Operands of one shape take TensorIterator's fast set-up (a contiguous output);
    a Python number is an operand of another shape, so its output follows the input's
    strides instead, as PyTorch's does."""

    def strides(lib):
        x = lib.empty_strided(size, stride).fill_(1.0)
        y = lib.empty_strided(size, stride).fill_(2.0)
        return eval(call, {"lib": lib, "x": x, "y": y}).stride()  # noqa: S307

    assert strides(vg) == strides(torch)


# --- The dispatcher: a call no key above the backend has work for goes straight to it --------


def _torch_like(fn_vg, fn_torch):
    """Run the call as vizgrad with nobody listening (it may skip the walk), as vizgrad with
    a recorder attached (the walk, key by key) and as torch; the three must agree."""
    quiet = fn_vg()
    with vg.events.Recorder():
        walked = fn_vg()
    expected = fn_torch()
    for got in (quiet, walked):
        assert_same(got, expected.detach())
        assert got.requires_grad == expected.requires_grad
        assert type(got.grad_fn).__name__ == type(expected.grad_fn).__name__
        assert got.is_leaf == expected.is_leaf
        assert got.is_inference() == expected.is_inference()
        assert got.is_conj() == expected.is_conj() and got.is_neg() == expected.is_neg()


def _leaves(requires_grad=True, seed=3):
    values = np.random.default_rng(seed).standard_normal((2, 3)).astype(np.float32)
    return (vg.tensor(values, requires_grad=requires_grad),
            torch.tensor(values, requires_grad=requires_grad))  # fmt: skip


def test_plain_tensors_go_straight_to_the_kernel():
    (v, t), (w, u) = _leaves(requires_grad=False), _leaves(requires_grad=False, seed=4)
    _torch_like(lambda: v + w, lambda: t + u)
    _torch_like(lambda: vg.mul(v, 2.5), lambda: torch.mul(t, 2.5))
    _torch_like(lambda: v.exp(), lambda: t.exp())


def test_inputs_that_require_grad_are_recorded():
    (v, t), (w, u) = _leaves(), _leaves(requires_grad=False, seed=4)
    _torch_like(lambda: v + w, lambda: t + u)
    _torch_like(lambda: w * v, lambda: u * t)


def test_grad_mode_off_records_nothing_even_for_inputs_that_require_grad():
    (v, t), (w, u) = _leaves(), _leaves(seed=4)
    with vg.no_grad(), torch.no_grad():
        _torch_like(lambda: v + w, lambda: t + u)
        _torch_like(lambda: v.sigmoid(), lambda: t.sigmoid())
    with vg.inference_mode(), torch.inference_mode():
        _torch_like(lambda: v * 2, lambda: t * 2)


def test_a_tensor_autograd_knew_but_that_no_longer_requires_grad():
    v, t = _leaves()
    v.requires_grad_(False)
    t.requires_grad_(False)
    _torch_like(lambda: v * 2, lambda: t * 2)
    # A result of a recorded call, detached: autograd knows it, nothing requires grad.
    (a, ta), (b, tb) = _leaves(), _leaves(requires_grad=False, seed=4)
    _torch_like(lambda: (a * 3).detach() + b, lambda: (ta * 3).detach() + tb)


def test_a_view_made_under_no_grad_of_a_tensor_that_requires_grad():
    v, t = _leaves()
    with vg.no_grad(), torch.no_grad():
        view, tview = v[0], t[0]
    _torch_like(lambda: view * 2, lambda: tview * 2)
    _torch_like(lambda: vg.add(view, view), lambda: torch.add(tview, tview))


def test_math_bits_are_resolved_before_the_kernel():
    z, tz = make_pair((2, 3), "complex64", "contiguous", seed=4)
    w, tw = make_pair((2, 3), "complex64", "contiguous", seed=5)
    _torch_like(lambda: z.conj() + w, lambda: tz.conj() + tw)
    _torch_like(lambda: z.conj().imag * 2, lambda: tz.conj().imag * 2)
    _torch_like(lambda: vg.mul(w, z.conj()), lambda: torch.mul(tw, tz.conj()))
    # Detached, they keep their bits and autograd knows nothing of them.
    conj, tconj = z.conj().detach(), tz.conj().detach()
    neg, tneg = z.conj().imag.detach(), tz.conj().imag.detach()
    assert conj._autograd_meta is None and neg._autograd_meta is None
    _torch_like(lambda: conj + w, lambda: tconj + tw)
    _torch_like(lambda: neg * 2, lambda: tneg * 2)
    _torch_like(lambda: vg.mul(neg, neg), lambda: torch.mul(tneg, tneg))


def test_meta_and_sparse_arguments_reach_their_backends():
    for lib in (vg, torch):
        got = lib.ones(2, 3, device="meta") + lib.ones(2, 3, device="meta")
        assert got.device.type == "meta" and tuple(got.shape) == (2, 3)
    dense = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], np.float32)
    v, t = vg.tensor(dense).to_sparse(), torch.tensor(dense).to_sparse()
    got, expected = vg.add(v, v), torch.add(t, t)
    assert got.layout == vg.sparse_coo and expected.layout == torch.sparse_coo
    assert_same(got.to_dense(), expected.to_dense())


def test_a_call_that_skips_the_walk_still_shows_both_steps_in_the_trace():
    x, y = vg.ones(2), vg.ones(2)
    with vg.events.Recorder() as rec:
        vg.add(x, y)
    steps = [
        (e.key, e.action, e.depth) for e in rec.events if isinstance(e, vg.events.OpDispatched)
    ]
    assert steps == [("AutogradCPU", "call", 0), ("CPU", "redispatch", 1)]


# --- TensorIterator: the common case without the iterator object ------------------------------

COMMON_CASE_CALLS = ["x + y", "x * 2", "x - 1.5", "x.exp()", "x > y", "x.add_(y)", "x.mul_(0.5)",
                     "lib.add(x, y, out=o)", "lib.mul(x, 2, out=o)", "x / y", "x + y[0]",
                     "lib.sqrt(n)", "n + 1", "n + 1.5", "x.t() + y", "x + lib.tensor(1.0)"]  # fmt: skip


@pytest.mark.parametrize("call", COMMON_CASE_CALLS)
def test_the_common_case_gives_the_iterator_result_and_its_kernel_event(call):
    """The same values, layout and ``KernelChosen`` with nobody listening (the common case
    runs without building a ``TensorIterator``) and with a recorder attached."""

    def run(lib, record):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        y = lib.tensor([[0.5, -1.0], [2.0, 8.0]])
        o = lib.empty(2, 2)
        n = lib.tensor([[1, 2], [3, 4]])
        scope = {"lib": lib, "x": x, "y": y, "o": o, "n": n}
        if not record:
            return eval(call, scope), []  # noqa: S307
        with vg.events.Recorder() as rec:
            result = eval(call, scope)  # noqa: S307
        return result, [e for e in rec.events if isinstance(e, vg.events.KernelChosen)]

    quiet, _ = run(vg, False)
    recorded, kernels = run(vg, True)
    expected, _ = run(torch, False)
    assert_same(quiet, expected)
    assert_same(recorded, expected)
    (kernel,) = kernels
    assert kernel.output == vg.events.event_id(recorded)
    assert kernel.shape == tuple(recorded.shape) and kernel.output_stride == recorded.stride()


def test_kernel_chosen_describes_python_numbers_by_the_default_dtype():
    x = vg.tensor([1, 2])
    described = []
    for default in (vg.float32, vg.float64, vg.float32):
        vg.set_default_dtype(default)
        try:
            with vg.events.Recorder() as rec:
                x + 1.5
        finally:
            vg.set_default_dtype(vg.float32)
        (kernel,) = [e for e in rec.events if isinstance(e, vg.events.KernelChosen)]
        described.append((kernel.input_dtypes, kernel.reason))
    assert described == [
        (("int64", "float32"), "int64 tensor and Python float promote to float32"),
        (("int64", "float64"), "int64 tensor and Python float promote to float64"),
        (("int64", "float32"), "int64 tensor and Python float promote to float32"),
    ]
    with vg.events.Recorder() as rec:
        vg.tensor(2.0, dtype=vg.float16) + vg.tensor([1, 2], dtype=vg.int8)
    (kernel,) = [e for e in rec.events if isinstance(e, vg.events.KernelChosen)]
    assert kernel.reason == "float16 zero-dim tensor and int8 tensor promote to float16"


# Operands of one layout that is not row-major: dense ones take the common case, whose
# output copies their strides; the others (and mixed layouts) take the general path.
SAME_LAYOUT = {
    "transposed": lambda lib, base: base.reshape(3, 4).t(),
    "channels-last": lambda lib, base: base.reshape(1, 3, 2, 2).to(memory_format=lib.channels_last),
    "permuted": lambda lib, base: base.reshape(2, 3, 2).permute(2, 0, 1),
    "stepped": lambda lib, base: base.reshape(3, 4)[:, ::2],
    "expanded": lambda lib, base: base[:4].expand(3, 4),
    "size-1 transposed": lambda lib, base: base.reshape(1, 12).t(),
}
SAME_LAYOUT_CALLS = ["x * y", "x + 1", "x * 2.5", "x.exp()", "x > y", "x.add_(y)", "x.mul_(3)",
                     "lib.add(x, y, out=like)", "lib.add(x, y, out=contiguous)", "x + y.contiguous()",
                     "x / y", "n + 1", "n / 2"]  # fmt: skip


@pytest.mark.parametrize("call", SAME_LAYOUT_CALLS)
@pytest.mark.parametrize("layout", list(SAME_LAYOUT))
def test_operands_of_one_layout_give_torchs_output_layout(layout, call):
    def run(lib):
        make = SAME_LAYOUT[layout]
        x, y = make(lib, lib.arange(12.0) + 1), make(lib, lib.arange(12.0) * 0.5 - 2)
        n = make(lib, lib.arange(12))
        scope = {"lib": lib, "x": x, "y": y, "n": n, "like": lib.empty_like(x),
                 "contiguous": lib.empty(tuple(x.shape))}  # fmt: skip
        return eval(call, scope)  # noqa: S307

    # Values, dtype, shape and strides, or the same error (an expanded tensor written in
    # place).
    assert_same_outcome(lambda: run(vg), lambda: run(torch))

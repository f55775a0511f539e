"""What tutorials write before any math: devices, ``torch.cuda`` on a CPU-only machine,
``Tensor.cpu()``/``cuda()``/``type()``, ``apply_``/``map_``, and the ``is_*`` questions.

Each line of such code must behave as it does in a PyTorch built without CUDA: the same
results, the same exception classes and messages.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error, assert_same_outcome

import vizgrad as vg


def both(code: str, **names):
    """``code`` run with ``lib`` bound to vizgrad, then to torch."""
    return (
        lambda: eval(code, {"lib": vg, "np": np, **names}),
        lambda: eval(code, {"lib": torch, "np": np, **names}),
    )


# --- devices --------------------------------------------------------------------------------

DEVICE_NAMES = ["lib.device('cuda')", "lib.device('cuda:1')", "lib.device('cuda', 2)",
                "lib.device('meta')", "lib.device('mps')", "lib.device('cpu', 0)",
                "lib.device('cpu:3')", "lib.device(type='xla', index=1)",
                "lib.device(lib.device('cuda:1'))"]  # fmt: skip


@pytest.mark.parametrize("code", DEVICE_NAMES)
def test_any_known_device_can_be_named(code):
    made, expected = (call() for call in both(code))
    assert (repr(made), str(made), made.type, made.index) == (
        repr(expected),
        str(expected),
        expected.type,
        expected.index,
    )


@pytest.mark.parametrize(
    "code",
    ["lib.device('cuda') == lib.device('cuda:0')", "lib.device('cuda:0') == lib.device('cuda', 0)",
     "lib.device('cpu') == 'cpu'", "lib.device('cuda') == lib.device('cuda')",
     "lib.device('cpu') == lib.device('cpu', 0)",
     "hash(lib.device('cuda:1')) == hash(lib.device('cuda', 1))",
     "{lib.device('cpu'): 1}[lib.device('cpu')]"],
)  # fmt: skip
def test_devices_compare_as_in_torch(code):
    made, expected = (call() for call in both(code))
    assert made == expected


@pytest.mark.parametrize(
    "code",
    ["lib.device('foo')", "lib.device('CUDA')", "lib.device('cuda:x')", "lib.device('cuda:01')",
     "lib.device('cuda:0:1')", "lib.device('cuda', -1)", "lib.device('cuda', '0')",
     "lib.device(0)", "lib.device('cuda:1', 1)", "lib.device(None)"],
)  # fmt: skip
def test_bad_device_names_raise_torchs_errors(code):
    assert_same_error(*both(code))


@pytest.mark.parametrize(
    "code",
    ["lib.ones(2, device='cuda')", "lib.zeros(2, 3, device=lib.device('cuda:1'))",
     "lib.tensor([1.0], device='cuda')", "lib.arange(3, device='cuda')",
     "lib.randn(2, device='cuda')", "lib.empty(2, device='cuda')",
     "lib.ones(2).to('cuda')", "lib.ones(2).to('cuda', lib.float64)",
     "lib.ones(2).to(lib.device('cuda'))", "lib.ones(2).to(0)", "lib.ones(2).cuda()",
     "lib.ones(2).cuda(non_blocking=True)", "lib.ones(2).cuda('cuda:1')", "lib.ones(2).cuda(0)",
     "lib.ones(2).cuda('cpu')", "lib.ones(2).new_ones(2, device='cuda')",
     "lib.ones_like(lib.ones(2), device='cuda')", "lib.ones(2).new_tensor([1], device='cuda')",
     "lib.ones(2).type('torch.cuda.FloatTensor')", "lib.ones(2).type(lib.cuda.FloatTensor)",
     "lib.cuda.FloatTensor([1])", "lib.cuda.LongTensor(2)", "lib.FloatTensor([1], device='cuda')"],
)  # fmt: skip
def test_a_tensor_on_cuda_fails_as_in_a_cpu_only_torch(code):
    """vizgrad's messages say what a student can do about it; the first words are torch's."""
    vg_error, torch_error = assert_same_error(*both(code), match_message=False)
    first_words = re.split(r"\. |: ", str(torch_error).replace("torch.", "vizgrad."))[0]
    assert first_words in str(vg_error)


@pytest.mark.parametrize(
    "code",
    ["lib.ones(2, device='cpu')", "lib.ones(2, device='cpu:0')", "lib.ones(2).to('cpu')",
     "lib.ones(2).to(lib.device('cpu', 1))", "lib.ones(2, 3).cpu()",
     "lib.ones(2, 3).t().cpu(memory_format=lib.contiguous_format)",
     "lib.ones(2).cpu(memory_format=lib.channels_last)", "lib.ones(2).cpu(1)",
     "lib.ones(2).type(lib.DoubleTensor)", "lib.ones(2).type(lib.LongTensor)",
     "lib.ones(2).type('torch.IntTensor')"],
)  # fmt: skip
def test_cpu_calls_match_torch(code):
    assert_same_outcome(*both(code))


def test_cpu_returns_the_tensor_itself():
    x = vg.ones(2, 3)
    assert x.cpu() is x and x.cpu().device == vg.device("cpu")
    assert not isinstance(x, vg.cuda.FloatTensor) and isinstance(x, vg.FloatTensor)


def test_default_device():
    assert vg.get_default_device() == vg.device("cpu")
    try:
        for lib in (vg, torch):
            lib.set_default_device("cpu:1")
        assert repr(vg.get_default_device()) == repr(torch.get_default_device())
        assert vg.ones(2).device == vg.device("cpu")
        for lib in (vg, torch):
            lib.set_default_device("cuda")
        # Factories now go to CUDA, which is not there; legacy constructors and new_*
        # (which follow their tensor) stay on the CPU.
        assert_same_error(*both("lib.ones(2)"), match_message=False)
        assert_same_error(*both("lib.arange(3)"), match_message=False)
        assert_same_error(*both("lib.tensor([1.0])"), match_message=False)
        assert_same_outcome(*both("lib.Tensor([1.0])"))
        assert_same_error(*both("lib.set_default_device('foo')"))
        assert_same_error(*both("lib.set_default_device(3)"))
    finally:
        vg.set_default_device(None)
        torch.set_default_device(None)
    assert vg.get_default_device() == vg.device("cpu")
    assert vg.ones(2).device == vg.device("cpu")


# --- torch.cuda and torch.accelerator on a CPU-only machine ---------------------------------

CUDA_QUERIES = ["is_available()", "device_count()", "is_initialized()", "is_bf16_supported()",
                "manual_seed(0)", "manual_seed_all(3)", "seed()", "seed_all()", "empty_cache()",
                "memory_allocated()", "max_memory_allocated()", "memory_reserved()",
                "max_memory_reserved()", "memory_allocated(0)", "current_device()",
                "synchronize()", "get_device_name()", "get_device_name(0)",
                "get_device_capability()", "get_device_properties(0)", "init()",
                "initial_seed()", "manual_seed('x')", "manual_seed_all(None)"]  # fmt: skip


@pytest.mark.parametrize("call", CUDA_QUERIES)
def test_cuda_module_answers_as_a_cpu_only_torch(call):
    assert_same_outcome(*both(f"lib.cuda.{call}"))


def test_cuda_device_context_can_be_made_but_not_entered():
    made = vg.cuda.device(0)
    assert made.idx == torch.cuda.device(0).idx
    with pytest.raises(RuntimeError, match="compiled without CUDA"), made:
        pass


def test_tutorial_device_selection_runs_on_the_cpu():
    """The first lines of PyTorch's quickstart, with vizgrad as torch."""
    for lib in (vg, torch):
        device = "cuda" if lib.cuda.is_available() else "cpu"
        lib.manual_seed(0)
        lib.cuda.manual_seed_all(0)
        x = lib.ones(2, 3).to(device)
        assert str(x.device) == "cpu" and x.device.type == "cpu"


# --- apply_, map_, map2_ -------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    ["lib.arange(6.).view(2, 3).apply_(lambda v: v * 2 + 1)",
     "lib.arange(6.).view(2, 3).t().apply_(lambda v: v * 10)",
     "lib.arange(4).apply_(lambda v: v / 3)",
     "lib.arange(4).apply_(lambda v: 2.7)",
     "lib.tensor([True, False]).apply_(lambda v: not v)",
     "lib.ones(1).expand(3).apply_(lambda v: v + 1)",
     "lib.tensor(5.).apply_(lambda v: -v)",
     "lib.ones(0, 3).apply_(lambda v: v)",
     "lib.tensor([1 + 2j]).apply_(lambda v: v.conjugate())",
     "lib.ones(2).apply_(lambda v: 'a')", "lib.ones(2).apply_(lambda v: None)",
     "lib.ones(2).apply_(3)", "lib.ones(2, requires_grad=True).apply_(lambda v: v)",
     "lib.ones(2).apply_(lambda v: 1 / 0)",
     "lib.ones(2, 3).map_(lib.arange(3.), lambda a, b: a + b)",
     "lib.ones(2, 3).t().map_(lib.arange(2.), lambda a, b: a * b)",
     "lib.ones(2, 3).map_(lib.ones(2), lambda a, b: a + b)",
     "lib.ones(2).map_(lib.ones(2, dtype=lib.int64), lambda a, b: a + b)",
     "lib.ones(2).map_(lib.ones(2, requires_grad=True), lambda a, b: a)",
     "lib.ones(2).map2_(lib.ones(2), lib.arange(2.), lambda a, b, c: a + b + c)",
     "lib.ones(2).map2_(lib.ones(2), lib.arange(2), lambda a, b, c: a)",
     "lib.ones(2).map2_(lib.arange(2), lib.ones(2), lambda a, b, c: a)",
     "lib.ones(2).map_(3, lambda a, b: a)", "lib.ones(2).map2_(3, lib.ones(2), lambda a, b, c: a)"],
)  # fmt: skip
def test_apply_and_map_match_torch(code):
    assert_same_outcome(*both(code))


def test_apply_writes_in_place_without_a_version_bump():
    for lib in (vg, torch):
        x = lib.arange(3.0)
        view = x[1:]
        version = x._version
        x.apply_(lambda v: v + 1)
        assert view.tolist() == [2.0, 3.0] and x._version == version


# --- is_tensor, numel and the other questions ----------------------------------------------


@pytest.mark.parametrize(
    "code",
    ["lib.is_tensor(lib.ones(2))", "lib.is_tensor(3)", "lib.is_tensor([1])",
     "lib.is_tensor(lib.nn.Parameter(lib.ones(1)))", "lib.is_storage(lib.ones(2).untyped_storage())",
     "lib.is_storage(lib.ones(2))", "lib.numel(lib.ones(2, 3))", "lib.numel(lib.ones(0, 3))",
     "lib.numel(lib.tensor(1.))", "lib.numel(3)", "lib.is_floating_point(lib.ones(2))",
     "lib.is_floating_point(lib.ones(2, dtype=lib.int64))", "lib.is_floating_point(3)",
     "lib.is_signed(lib.ones(2, dtype=lib.uint8))", "lib.is_signed(lib.ones(2))",
     "lib.is_nonzero(lib.tensor([0.]))", "lib.is_nonzero(lib.tensor(float('nan')))",
     "lib.is_nonzero(lib.tensor(1 + 0j))", "lib.is_nonzero(lib.tensor([]))",
     "lib.is_nonzero(lib.tensor([1, 2]))", "lib.tensor([3]).is_nonzero()",
     "lib.is_same_size(lib.ones(2), lib.ones(2, 1))", "lib.ones(2).is_same_size(lib.ones(2))",
     "lib.is_inference(lib.ones(1))"],
)  # fmt: skip
def test_tensor_questions_match_torch(code):
    assert_same_outcome(*both(code))


def test_legacy_type_names_convert():
    for name, dtype in [("DoubleTensor", torch.float64), ("LongTensor", torch.int64)]:
        made = vg.arange(3).type(getattr(vg, name))
        assert_same(made, torch.arange(3).type(dtype))

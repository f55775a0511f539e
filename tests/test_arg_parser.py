"""The Python argument parser generated from schemas: PyTorch's choices and errors."""

from __future__ import annotations

import pytest
import torch
from oracle import assert_same_error

import vizgrad as vg
from vizgrad import events
from vizgrad.ops.registry import OPERATORS
from vizgrad.schema import FunctionSchema


def test_every_declared_schema_parses_back_to_its_name():
    for qualname, op in OPERATORS.items():
        schema = FunctionSchema.parse(op.schema)
        assert f"aten::{schema.qualified_name}" == qualname
        assert str(schema) == op.schema


def test_schema_parts():
    schema = FunctionSchema.parse(
        "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, "
        "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)"
    )
    assert (schema.name, schema.overload_name) == ("sum", "IntList_out")
    assert [a.name for a in schema.arguments] == ["self", "dim", "keepdim", "dtype", "out"]
    dim = schema.arguments[1]
    assert (dim.base_type, dim.list_size, dim.optional, dim.has_default) == ("int", 1, True, False)
    assert schema.arguments[2].default is False
    assert schema.is_out and not schema.is_inplace
    assert [a.name for a in schema.out_arguments] == ["out"]
    inplace = FunctionSchema.parse("add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)")
    assert inplace.is_inplace and inplace.base_name == "add"


def test_add_overloads_come_from_the_declaration():
    assert sorted(vg.add.overloads) == ["add.Tensor", "add.out", "add_.Tensor"]
    assert {op.variant for op in vg.add.overloads.values()} == {"functional", "inplace", "out"}
    assert vg.add.overloads["add_.Tensor"].derivative.name == "AddBackward0"
    assert vg.add.overloads["add.out"].derivative is None


BAD_CALLS = [
    "lib.add(x, 'a')",
    "lib.add(x, x, 1)",
    "lib.add(x, x, foo=1)",
    "lib.add(x, x, other=x)",
    "x.add(x, other=x)",
    "lib.add(x, x, alpha='a')",
    "lib.mul(x, x, out='a')",
    "lib.exp('x')",
    "lib.exp(x, x)",
    "lib.exp(x, out=1)",
    "lib.exp(input=x, foo=2)",
    "x.mul_(x, x)",
    "x.sub(foo=x)",
    "lib.add(x, (1, 2))",
]


@pytest.mark.parametrize("call", BAD_CALLS)
def test_bad_calls_raise_torchs_errors(call):
    v, t = vg.ones(2, 3), torch.ones(2, 3)
    assert_same_error(lambda: eval(call, {"lib": vg, "x": v}),
                      lambda: eval(call, {"lib": torch, "x": t}))  # fmt: skip


@pytest.mark.parametrize(
    "call", ["lib.add(x, 2)", "lib.add(x, x, alpha=2)", "x.add(2, alpha=3)", "lib.mul(2, x)",
             "lib.add(input=x, other=x)", "lib.sub(x, 1.5)", "lib.add(x, x, out=None)"],
)  # fmt: skip
def test_good_calls_agree_with_torch(call):
    v, t = vg.arange(6.0).view(2, 3), torch.arange(6.0).view(2, 3)
    got, expected = eval(call, {"lib": vg, "x": v}), eval(call, {"lib": torch, "x": t})
    assert got.tolist() == expected.tolist()
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]


def _notes(fn):
    with events.Recorder() as recorder:
        fn()
    return [(e.key, e.note) for e in recorder.events if isinstance(e, events.OpDispatched)]


def test_each_dispatch_key_says_what_it_decided():
    x = vg.ones(3)
    w = vg.ones(3, requires_grad=True)
    assert _notes(lambda: x + 1)[0] == ("AutogradCPU", "no input requires grad: records nothing")
    assert _notes(lambda: w * 2)[0] == ("AutogradCPU", "records MulBackward0")
    with vg.no_grad():
        assert _notes(lambda: w * 2)[0] == ("AutogradCPU", "grad mode is off: records nothing")
    assert _notes(lambda: w > 0)[0] == ("AutogradCPU", "not differentiable: records nothing")
    assert _notes(lambda: w.reshape(3))[0][1].startswith("CompositeImplicitAutograd")
    add_ = _notes(lambda: x.add_(1))
    assert add_[1][0] == "ADInplaceOrView" and "version counter of self" in add_[1][1]
    assert add_[-1][0] == "CPU" and add_[-1][1]
    assert _notes(lambda: x.t())[1][1].startswith("view:")


def _python_signature(schema: str):
    from vizgrad.arg_parser import PythonParameter, PythonSignature

    parsed = FunctionSchema.parse(schema)
    params = [PythonParameter(a, "input" if a.name == "self" else a.name) for a in parsed.arguments]
    return PythonSignature(parsed.name, params, schema)


def test_overloads_are_tried_in_torchgens_order():
    from vizgrad.ops.declaration import sort_overloads

    scalar = _python_signature("eq.Scalar(Tensor self, Scalar other) -> Tensor")
    tensor = _python_signature("eq.Tensor(Tensor self, Tensor other) -> Tensor")
    unrelated = _python_signature("eq.int(Tensor self, int a, int b) -> Tensor")
    # A Scalar overload goes after its Tensor twin, whatever order they are declared in.
    assert [s.overload for s in sort_overloads([scalar, unrelated, tensor])] == [
        unrelated.overload, tensor.overload, scalar.overload]  # fmt: skip
    assert sort_overloads([tensor, scalar]) == [tensor, scalar]


# --- hand-written bindings: a parser from Python signature strings --------------------------

_TO_SIGNATURES = (
    "to(Device device=None, ScalarType dtype=None, bool non_blocking=False, bool copy=False, *, "
    "MemoryFormat? memory_format=None)",
    "to(ScalarType dtype, bool non_blocking=False, bool copy=False, *, "
    "MemoryFormat? memory_format=None)",
    "to(Tensor tensor, bool non_blocking=False, bool copy=False, *, "
    "MemoryFormat? memory_format=None)",
)


@pytest.mark.parametrize(
    ("call", "index"),
    [("(lib.float64,)", 1), ("('cpu',)", 0), ("()", 0), ("(x,)", 2), ("('cpu', lib.int8)", 0),
     ("(lib.device('cpu'),)", 0), ("(lib.int8, True)", 1), ("(1.5,)", 2)],
)  # fmt: skip
def test_a_binding_parser_chooses_the_signature_torch_does(call, index):
    """``Tensor.to``'s three forms, told apart as ``THPVariable_to``'s parser does."""
    from vizgrad.arg_parser import python_binding

    parser = python_binding(*_TO_SIGNATURES, numbers_as_tensors=True)
    args = eval(call, {"lib": vg, "x": vg.ones(2)})  # noqa: S307
    assert parser.parse(args, {})[0].overload == index


_CUDA_SIGNATURE = (
    "cuda(Device? device=None, bool non_blocking=False, *, MemoryFormat? memory_format=None)",
)
_TENSOR_SIGNATURE = (
    "tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None, "
    "bool pin_memory=False, bool requires_grad=False)",
)


@pytest.mark.parametrize(
    ("signatures", "args", "kwargs", "torch_call"),
    [(_TO_SIGNATURES, (vg.float32, 3.5), {}, lambda x: x.to(torch.float32, 3.5)),
     (_TO_SIGNATURES, (), {"foo": 1}, lambda x: x.to(foo=1)),
     (_TO_SIGNATURES, ("cpu", "a"), {}, lambda x: x.to("cpu", "a")),
     (_CUDA_SIGNATURE, (), {"device": 1.5}, lambda x: x.cuda(device=1.5)),
     (_CUDA_SIGNATURE, (), {"memory_format": 1}, lambda x: x.cuda(memory_format=1)),
     (_CUDA_SIGNATURE, (True,), {}, lambda x: x.cuda(True)),
     (("float(*, MemoryFormat? memory_format=None)",), (1,), {}, lambda x: x.float(1)),
     (_TENSOR_SIGNATURE, (1, 2), {}, lambda x: torch.tensor(1, 2)),
     (_TENSOR_SIGNATURE, (1,), {"dtype": "float"}, lambda x: torch.tensor(1, dtype="float"))],
)  # fmt: skip
def test_a_binding_parser_raises_torchs_errors(signatures, args, kwargs, torch_call):
    """Device, dtype and memory-format arguments are checked as PyTorch checks them."""
    from vizgrad.arg_parser import python_binding

    parser = python_binding(*signatures, numbers_as_tensors=True)
    assert_same_error(lambda: parser.parse(args, kwargs), lambda: torch_call(torch.ones(2)))


@pytest.mark.parametrize(
    "call", ["lib.rand((True, 2))", "lib.rand((2.5, 3))", "lib.rand((lib.tensor(1.),))",
             "lib.rand([2, 'a'])"],
)  # fmt: skip
def test_an_int_list_refused_for_its_first_element_names_it(call):
    assert_same_error(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))  # noqa: S307


@pytest.mark.parametrize("call", ["lib.rand(2, True)", "lib.rand(size=(2, True))"])
def test_bools_after_the_first_element_unpack_as_indices(call):
    """PyTorch checks only an int list's first element; the others are unpacked as
    indices (``THPUtils_unpackIndex``), and ``True`` is 1."""
    v, t = eval(call, {"lib": vg}), eval(call, {"lib": torch})  # noqa: S307
    assert tuple(v.shape) == tuple(t.shape) == (2, 1)


def test_a_factorys_signature_lists_out_then_its_tensor_options_as_torch_prints_them():
    """torchgen's order: the schema's arguments, ``out``, then dtype, layout, device,
    ``pin_memory = False`` and the binding's ``requires_grad``."""
    from vizgrad.ops.declaration import _signature

    ops = vg.rand.overloads
    signature = _signature("rand", ops["rand"], ops["rand.out"], method=False,
                           numbers_as_tensors=False)  # fmt: skip
    with pytest.raises(TypeError) as error:
        torch.rand()
    listed = [line.removeprefix(" * ").replace("torch.", "vizgrad.")
              for line in str(error.value).splitlines()]  # fmt: skip
    assert str(signature) in listed


def test_the_short_paths_bind_as_the_full_one_does():
    """``rand(2, 3)`` (plain ints, no keywords) and a refused all-positional call skip the
    full binding; they must agree with it."""
    from vizgrad.ops.declaration import _signature

    ops = vg.rand.overloads
    rand = _signature("rand", ops["rand"], ops["rand.out"], method=False,
                      numbers_as_tensors=False)  # fmt: skip
    short, full = rand.bind_call((2, 3), {}, False), rand.bind_call((2, 3), {"dtype": None}, False)
    assert short[0] == full[0] == ((2, 3),)
    assert {k: v for k, v in full[1].items() if k not in ("out", "requires_grad")} == short[1]
    # Trailing positional arguments left out take their defaults, on either path.
    diag_embed, x = vg.diag_embed.parser.signatures[0], vg.ones(2)
    assert diag_embed.bind_call((x,), {}, False) == ((x, 0, -2, -1), {})
    assert diag_embed.bind_call((x,), {"offset": 0}, False) == ((x, 0, -2, -1), {})
    fill_tensor = next(s for s in vg.fill.parser.signatures if s.params[1].type_name == "Tensor")
    assert fill_tensor.bind_call((vg.ones(2), 1.5), {}, False) is None
    assert fill_tensor.bind((vg.ones(2), 1.5), {}, False) is None

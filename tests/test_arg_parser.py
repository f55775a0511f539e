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


def test_numpy_names_are_accepted_as_keywords():
    # PyTorch's numpy_compatibility_arg_names: ``axis`` for ``dim``, ``x`` for ``input``...
    signature = _python_signature("cat(Tensor[] tensors, int dim=0) -> Tensor")
    tensors = [vg.ones(2)]
    assert signature.bind_call((tensors,), {"axis": 1}, True) == ((tensors, 1), {})
    assert signature.bind_call((tensors,), {"dim": 1}, True) == ((tensors, 1), {})
    flatten = _python_signature("flatten(Tensor self, int start_dim=0) -> Tensor")
    assert flatten.bind_call((), {"x": tensors[0]}, True) == ((tensors[0], 0), {})
    # With another keyword unknown, the error names the NumPy name first, as PyTorch's.
    with pytest.raises(TypeError, match="cat\\(\\) got an unexpected keyword argument 'axis'"):
        signature.bind_call((tensors,), {"axis": 1, "foo": 2}, True)


def test_an_empty_list_default_is_none_to_python():
    # torchgen writes ``int[1] dims=[]`` as ``dims=None``; None means the default.
    signature = _python_signature("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor")
    assert str(signature) == "(Tensor input, tuple of ints shifts, tuple of ints dims = None)"
    x = vg.ones(2)
    assert signature.bind_call((x, 1, None), {}, True) == ((x, (1,), ()), {})
    assert signature.bind_call((x, 1), {"dims": None}, True) == ((x, (1,), ()), {})


def test_plain_calls_go_to_the_signature_the_parser_would_choose():
    from vizgrad.arg_parser import PythonArgParser

    tensor_start = _python_signature("narrow.Tensor(Tensor self, int dim, Tensor start) -> Tensor")
    int_start = _python_signature("narrow(Tensor self, int dim, SymInt start) -> Tensor")
    # An int start is refused by ``narrow.Tensor``: a call of plain types reaches either.
    parser = PythonArgParser("narrow", [tensor_start, int_start])
    assert parser.plain_signatures == [tensor_start, int_start]
    # A float parameter takes ints too: the int overload after it is never reached by them.
    as_float = _python_signature("f.float(Tensor self, float a) -> Tensor")
    as_int = _python_signature("f.int(Tensor self, int a) -> Tensor")
    assert PythonArgParser("f", [as_float, as_int]).plain_signatures == [as_float]
    assert PythonArgParser("f", [as_int, as_float]).plain_signatures == [as_int, as_float]

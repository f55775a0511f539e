"""The Python argument parser generated from schemas: PyTorch's choices and errors."""

from __future__ import annotations

import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg
from vizgrad import events
from vizgrad.arg_parser import PythonArgParser
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
    "x.add(x, out=x)",
    "x.mul_(2, out=x)",
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


def _python_signature(schema: str, *, method: bool = False):
    """The Python signature of one overload: of ``torch.<name>``, or of the method."""
    from vizgrad.arg_parser import PythonParameter, PythonSignature

    parsed = FunctionSchema.parse(schema)
    params = [PythonParameter(a, "input" if a.name == "self" else a.name)
              for a in parsed.arguments if not (method and a.name == "self")]  # fmt: skip
    return PythonSignature(parsed.name, params, schema)


def test_overloads_are_tried_in_torchgens_order():
    from vizgrad.ops.declaration import sort_overloads

    scalar = _python_signature("eq.Scalar(Tensor self, Scalar other) -> Tensor")
    tensor = _python_signature("eq.Tensor(Tensor self, Tensor other) -> Tensor")
    unrelated = _python_signature("eq.int(Tensor self, int a, int b) -> Tensor")
    # Sorted by their C++-typed text ("Scalar" < "Tensor" < "int64_t"), then a Scalar
    # overload goes after its Tensor twin, whatever order they are declared in.
    assert [s.overload for s in sort_overloads([scalar, unrelated, tensor])] == [
        tensor.overload, unrelated.overload, scalar.overload]  # fmt: skip
    assert sort_overloads([tensor, scalar]) == [tensor, scalar]


@pytest.mark.parametrize("call", ["x.add(x, out=x)", "x.mul(2, out=x)", "x.hypot(x, out=x)"])
def test_methods_take_no_out(call):
    """``out=`` belongs to the function: PyTorch's Tensor methods have no such keyword."""
    v, t = vg.ones(2, 3), torch.ones(2, 3)
    assert_same_error(lambda: eval(call, {"x": v}), lambda: eval(call, {"x": t}))


def test_optional_tensor_list_refuses_none_from_python():
    """``Tensor?[]`` may hold None for C++ callers, but PyTorch's Python parser says no."""
    signature = _python_signature(
        "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor"
    )
    v, t = vg.ones(2, 3), torch.ones(2, 3)
    assert_same_error(
        lambda: signature.bind((v, (None, vg.tensor([0])), v), {}, True),
        lambda: torch.index_put(t, (None, torch.tensor([0])), t),
    )


NONZERO = PythonArgParser.from_signatures(
    "nonzero(Tensor input, *, bool as_tuple=False, Tensor out=None)"
)
NONZERO_METHOD = PythonArgParser.from_signatures("nonzero()", "nonzero(*, bool as_tuple)")


@pytest.mark.parametrize(
    "args, kwargs",
    [((1,), {"as_tuple": "a"}), ((1,), {"out": 1}), (("x",), {}), ((1,), {"foo": 1}),
     ((1, True), {})],
)  # fmt: skip
def test_a_hand_written_binding_parses_as_torchs(args, kwargs):
    """``PythonArgParser.from_signatures``: the parser of a binding PyTorch writes by hand."""
    v, t = (vg.ones(2), torch.ones(2)) if args[0] == 1 else (args[0], args[0])
    assert_same_error(lambda: NONZERO.parse((v, *args[1:]), kwargs),
                      lambda: torch.nonzero(t, *args[1:], **kwargs))  # fmt: skip


@pytest.mark.parametrize("args, kwargs", [((True,), {}), ((), {"out": 1}), ((), {"as_tuple": 1})])
def test_a_hand_written_method_binding_parses_as_torchs(args, kwargs):
    assert_same_error(lambda: NONZERO_METHOD.parse(args, kwargs),
                      lambda: torch.ones(2).nonzero(*args, **kwargs))  # fmt: skip


def test_a_hand_written_binding_says_which_signature_matched():
    signature, args, keywords = NONZERO_METHOD.parse((), {"as_tuple": True})
    assert (signature.overload, args, keywords) == (1, (), {"as_tuple": True})
    assert NONZERO.parse((vg.ones(2),), {})[2] == {"as_tuple": False}


def test_the_positional_fast_path_refuses_what_bind_refuses():
    """An all-positional call that fails the short path fails ``bind`` too: the parser
    moves on to the next signature without binding again, and raises only when asked."""
    signature = _python_signature(
        "masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor"
    )
    x = vg.ones(2)
    assert signature.bind_call((x, x, 0.0), {}, False) is None
    assert signature.bind((x, x, 0.0), {}, False) is None
    with pytest.raises(TypeError, match=r"'value' \(position 3\) must be Tensor, not float"):
        signature.bind_call((x, x, 0.0), {}, True)


def test_an_empty_list_default_is_none_to_python():
    """torchgen writes ``int[1] dim=[]`` as ``dim=None`` in the Python signature, so None
    given for it means the empty list, as ``torch.amax(x, None)`` does."""
    amax = _python_signature("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
    x = vg.ones(2, 3)
    assert str(amax) == "(Tensor input, tuple of ints dim = None, bool keepdim = False)"
    assert amax.bind_call((x, None), {}, False) == ((x, (), False), {})
    assert amax.bind((x,), {"dim": None}, False) == {"input": x, "dim": (), "keepdim": False}


def test_separate_ints_make_a_list_only_where_one_int_is_not_one():
    """``x.count_nonzero(0, 1)`` passes dims (0, 1) (``int[] dim``), but ``x.var(0, 1)`` is
    refused: one int already fits ``int[1]? dim``, so the 1 is one argument too many."""
    count = _python_signature("count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor",
                              method=True)  # fmt: skip
    var = _python_signature(
        "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
        "bool keepdim=False) -> Tensor",
        method=True,
    )
    assert count.bind((0, 1), {}, False) == {"dim": (0, 1)}
    assert var.bind((0, 1), {}, False) is None
    assert var.bind((0,), {}, False) == {"dim": (0,), "correction": None, "keepdim": False}
    with pytest.raises(TypeError, match=r"takes from 0 to 1 positional arguments but 2 were given"):
        var.bind((0, 1), {}, True)


SHORT_PATH_SCHEMAS = {
    "add": "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "sum": "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "sum_dim": "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    "amax": "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "var_dim": "var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) "
    "-> Tensor",
    "max_other": "max.other(Tensor self, Tensor other) -> Tensor",
    "sort_stable": "sort.stable(Tensor self, *, bool? stable, int dim=-1, "
    "bool descending=False) -> (Tensor values, Tensor indices)",
    "view": "view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
}
_x = vg.ones(2, 3)
SHORT_PATH_CALLS = [(), (_x,), (_x, 0), (_x, (0, 1), True), (_x, None), (_x, "a"), (_x, [1]),
                    (_x, _x), (_x, 0, False, 3), (_x, 2.5), (0,), (2, 3)]  # fmt: skip


@pytest.mark.parametrize("schema", list(SHORT_PATH_SCHEMAS))
@pytest.mark.parametrize("method", [False, True])
def test_the_short_path_binds_as_bind_does(schema, method):
    """A call without keywords skips ``bind``: it must take exactly what ``bind`` takes."""
    signature = _python_signature(SHORT_PATH_SCHEMAS[schema], method=method)
    for args in SHORT_PATH_CALLS:
        call = signature.bind_call(args, {}, False)
        bound = signature.bind(args, {}, False)
        if bound is None:
            assert call is None, args
            continue
        names = [p.schema_name for p in signature.params]
        values = list(bound.values())
        positional = signature.max_pos_args
        assert call[0] == tuple(values[:positional]), args
        keywords = dict(zip(names[positional:], values[positional:], strict=True))
        assert call[1] == {k: v for k, v in keywords.items() if k != "out"}, args


def test_one_argument_too_many_was_given():
    """PyTorch's message says "1 was given" and "2 were given"."""
    aminmax = _python_signature(
        "aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
        method=True,
    )
    with pytest.raises(
        TypeError, match=r"^aminmax\(\) takes 0 positional arguments but 1 was given$"
    ):
        aminmax.bind((0,), {}, True)
    with pytest.raises(TypeError, match=r"but 2 were given$"):
        aminmax.bind((0, 1), {}, True)


def test_an_inplace_overload_pairs_with_the_functional_one_of_the_same_arguments():
    from vizgrad.ops.declaration import _twin

    plain = [FunctionSchema.parse(s) for s in (
        "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
        "pow.Scalar(Scalar self, Tensor exponent) -> Tensor",
        "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    )]  # fmt: skip
    inplace_scalar = FunctionSchema.parse(
        "pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)"
    )
    inplace_tensor = FunctionSchema.parse(
        "pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)"
    )
    out = FunctionSchema.parse(
        "pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)"
    )
    assert _twin(inplace_scalar, plain).qualified_name == "pow.Tensor_Scalar"
    assert _twin(inplace_tensor, plain).qualified_name == "pow.Tensor_Tensor"
    assert _twin(out, plain).qualified_name == "pow.Scalar"


def test_a_structured_kernel_named_for_one_overload_also_makes_its_twins():
    from vizgrad.dispatcher import INPLACE, OUT
    from vizgrad.ops.declaration import _kernel_for
    from vizgrad.ops.overload_kernels import StructuredKernel

    class Recorded(StructuredKernel):
        def for_overload(self, schema, variant):
            return (schema.qualified_name, variant)

    plain = [FunctionSchema.parse("floor_divide(Tensor self, Tensor other) -> Tensor")]
    kernels = {"floor_divide": Recorded()}
    inplace = FunctionSchema.parse(
        "floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"
    )
    out = FunctionSchema.parse(
        "floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"
    )
    assert _kernel_for(inplace, INPLACE, None, kernels, plain) == ("floor_divide_.Tensor", INPLACE)
    assert _kernel_for(out, OUT, None, kernels, plain) == ("floor_divide.out", OUT)


def test_python_signatures_name_a_tensor_self_input_and_make_methods_of_it_only():
    from vizgrad.dispatcher import FUNCTIONAL, Operator
    from vizgrad.ops.declaration import _is_method, _self_position, _signature

    def op(schema):
        return Operator(schema, FUNCTIONAL, None)

    scalar_base = op("pow.Scalar(Scalar self, Tensor exponent) -> Tensor")
    tensor_base = op("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor")
    signature = _signature("pow", scalar_base, None, method=False, numbers_as_tensors=False)
    assert str(signature) == "(Number self, Tensor exponent)"
    signature = _signature("pow", tensor_base, None, method=False, numbers_as_tensors=False)
    assert str(signature) == "(Tensor input, Number exponent)"
    assert not _is_method(scalar_base) and _is_method(tensor_base)
    # ``Tensor.where(condition, other)``: the tensor goes between the two arguments.
    where = op("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor")
    method = _signature("where", where, None, method=True, numbers_as_tensors=False)
    assert str(method) == "(Tensor condition, Tensor other)"
    assert _self_position(method) == 1


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

    parser = PythonArgParser.from_signatures(*_TO_SIGNATURES, numbers_as_tensors=True)
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

    parser = PythonArgParser.from_signatures(*signatures, numbers_as_tensors=True)
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


def test_an_empty_list_default_given_as_none_is_that_default():
    # torchgen writes ``int[1] dims=[]`` as ``dims=None``; None means the default.
    signature = _python_signature("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor")
    assert str(signature) == "(Tensor input, tuple of ints shifts, tuple of ints dims = None)"
    x = vg.ones(2)
    assert signature.bind_call((x, 1, None), {}, True) == ((x, (1,), ()), {})
    assert signature.bind_call((x, 1), {"dims": None}, True) == ((x, (1,), ()), {})


class _Unknown:
    """A keyword no signature takes: the parser lists every signature it tried."""


def _listed_signatures(function) -> list[str]:
    with pytest.raises(TypeError) as error:
        function(_unknown_keyword=_Unknown())
    return [line.strip()[2:].replace("torch.", "").replace("vizgrad.", "")
            for line in str(error.value).splitlines() if line.strip().startswith("* ")]  # fmt: skip


def _overloaded_names():
    functions = [name for name in sorted(set(dir(vg)) & set(dir(torch)))
                 if len(getattr(getattr(vg, name), "parser", None).signatures
                        if hasattr(getattr(vg, name), "parser") else ()) > 1]  # fmt: skip
    return functions


@pytest.mark.parametrize("name", _overloaded_names())
def test_a_function_tries_its_signatures_in_torchgens_order(name):
    """torchgen sorts a function's signatures by their C++-typed text, then puts the
    "smaller" ones later: the "expected one of" list shows that order."""
    assert _listed_signatures(getattr(vg, name)) == _listed_signatures(getattr(torch, name))


@pytest.mark.parametrize("name", ["view", "sum", "max", "min", "std", "var", "transpose",
                                  "index_add", "scatter", "pow", "div", "clamp", "where"])  # fmt: skip
def test_a_method_tries_its_signatures_in_torchgens_order(name):
    v, t = vg.ones(2), torch.ones(2)
    assert _listed_signatures(getattr(v, name)) == _listed_signatures(getattr(t, name))


@pytest.mark.parametrize(
    "call", ["lib.rand(2, generator=5)", "lib.ones(2).uniform_(generator=5)",
             "lib.normal(lib.ones(2), 1.0, generator='a')", "lib.randperm(3, generator=1.5)"],
)  # fmt: skip
def test_a_generator_argument_must_be_a_generator(call):
    assert_same_error(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))  # noqa: S307


@pytest.mark.parametrize(
    "call",
    ["x.view((2, 3), 1)", "x.reshape([2, 3], 1)", "x.repeat([2], 1)", "x.permute([0], 1)",
     "x.flip([0], 0)", "x.tile([2], 1)", "x.view(lib.tensor(6)).shape",
     "x.view(6, lib.tensor(1)).shape", "x.narrow(0, 0, lib.tensor(1)).shape",
     "[t.shape for t in x.chunk(lib.tensor(2))]", "x.view(2, 3).tril(lib.tensor(1)).shape",
     "x.view(2, 3).unfold(1, lib.tensor(2), 1).shape", "x.sum(lib.tensor(0))",
     "x.view(2, 3).transpose(lib.tensor(0), 1).stride()", "x.view(2, 3).select(0, lib.tensor(1.0))"],
)  # fmt: skip
def test_an_int_argument_takes_what_torch_takes_and_nothing_after_a_whole_list(call):
    """A 0-dim integer tensor given for an ``int`` reaches the kernel as its value; a list
    given whole for a lone int list takes no further positional argument."""

    def outcome(lib):
        try:
            result = eval(call, {"lib": lib, "x": lib.zeros(6)})  # noqa: S307
        except TypeError:
            return "TypeError"
        return str(result.tolist() if isinstance(result, lib.Tensor) else result)

    if outcome(torch) == "TypeError":
        assert_same_error(lambda: eval(call, {"lib": vg, "x": vg.zeros(6)}),  # noqa: S307
                          lambda: eval(call, {"lib": torch, "x": torch.zeros(6)}))  # noqa: S307  # fmt: skip
    else:
        assert outcome(vg).replace("vizgrad", "torch") == outcome(torch)


@pytest.mark.parametrize(
    "call",
    ["lib.add(lib.tensor([1, 3]), 10**20)", "lib.add(lib.tensor([1, 3]), -(10**20))",
     "lib.tensor([1.0, 2.0]) + 2**64", "lib.tensor([1.0]).mul(-(2**63) - 1)",
     "lib.full((2,), 10**30)", "lib.searchsorted(lib.tensor([1, 3]), 10**20)",
     "lib.tensor([1.0]).clamp(min=10**20)", "lib.tensor([1.0]).add(1, alpha=10**20)"],
)  # fmt: skip
def test_a_python_int_beyond_64_bits_is_refused_where_a_scalar_is_read(call):
    """A ``Scalar`` holds 64 bits: PyTorch's parser raises OverflowError (signed below,
    unsigned above) before any kernel sees the number."""
    assert_same_error(lambda: eval(call, {"lib": vg}), lambda: eval(call, {"lib": torch}))  # noqa: S307


# Each call twice: leaving its keyword-only options to their defaults, and giving them. A
# binding passes on only the keywords given (and the defaults of its Python signature that
# the operator's schema lacks), so each kernel must take the schema's defaults as its own.
_DEFAULTED_CALLS = {
    "add": (lambda m, x, y: m.add(x, y), lambda m, x, y: m.add(x, y, alpha=1)),
    "sub": (lambda m, x, y: m.sub(x, y), lambda m, x, y: m.sub(x, y, alpha=1)),
    "add_": (lambda m, x, y: x.clone().add_(y), lambda m, x, y: x.clone().add_(y, alpha=1)),
    "round": (lambda m, x, y: m.round(x * 7), lambda m, x, y: m.round(x * 7, decimals=0)),
    "special.round": (lambda m, x, y: m.special.round(x * 7),
                      lambda m, x, y: m.special.round(x * 7, decimals=0)),
    "sum": (lambda m, x, y: m.sum(x, 0), lambda m, x, y: m.sum(x, 0, dtype=None)),
    "cumsum": (lambda m, x, y: m.cumsum(x, 1), lambda m, x, y: m.cumsum(x, 1, dtype=None)),
    "addmm": (lambda m, x, y: m.addmm(x, x, y), lambda m, x, y: m.addmm(x, x, y, beta=1, alpha=1)),
    "addcmul": (lambda m, x, y: m.addcmul(x, x, y), lambda m, x, y: m.addcmul(x, x, y, value=1)),
    "div": (lambda m, x, y: m.div(x, y), lambda m, x, y: m.div(x, y, rounding_mode=None)),
    "std": (lambda m, x, y: m.std(x, 1), lambda m, x, y: m.std(x, 1, correction=None)),
    "clone": (lambda m, x, y: x.t().clone(),
              lambda m, x, y: x.t().clone(memory_format=m.preserve_format)),
}  # fmt: skip


@pytest.mark.parametrize("name", _DEFAULTED_CALLS)
def test_keyword_options_left_out_take_the_schemas_defaults(name):
    x, y = torch.randn(3, 3, dtype=torch.float64), torch.randn(3, 3, dtype=torch.float64) + 3
    vx, vy = vg.tensor(x.numpy()), vg.tensor(y.numpy())
    for call in _DEFAULTED_CALLS[name]:
        assert_same(call(vg, vx, vy), call(torch, x, y), rtol=1e-12, atol=1e-12)

"""Products and random sampling are declared from whole schemas: their overloads and errors."""

from __future__ import annotations

import pytest
import torch
from oracle import assert_same_error

import vizgrad as vg
from vizgrad.dispatcher import COMPOSITE_IMPLICIT
from vizgrad.ops import einsum as einsum_module
from vizgrad.ops import linalg, sampling
from vizgrad.ops.registry import OPERATORS

DECLARED = {
    vg.dot: ["dot", "dot.out"],
    vg.vdot: ["vdot", "vdot.out"],
    vg.mv: ["mv", "mv.out"],
    vg.mm: ["mm", "mm.out"],
    vg.bmm: ["bmm", "bmm.out"],
    vg.matmul: ["matmul", "matmul.out"],
    vg.outer: ["outer", "outer.out"],
    vg.ger: ["ger", "ger.out"],
    vg.addmm: ["addmm", "addmm.out", "addmm_"],
    linalg._tensordot: ["tensordot", "tensordot.out"],
    einsum_module._einsum: ["einsum"],
    sampling._uniform: ["uniform_"],
    sampling._exponential: ["exponential_"],
    sampling._random: ["random_", "random_.from", "random_.to"],
    vg.rand: ["rand", "rand.generator", "rand.out", "rand.generator_out"],
    vg.randn: ["randn", "randn.generator", "randn.out", "randn.generator_out"],
    vg.randint: ["randint", "randint.generator", "randint.low", "randint.low_generator",
                 "randint.out", "randint.generator_out", "randint.low_out",
                 "randint.low_generator_out"],
    vg.randperm: ["randperm", "randperm.generator", "randperm.out", "randperm.generator_out"],
    vg.normal: ["normal.Tensor_Tensor", "normal.Tensor_float", "normal.float_Tensor",
                "normal.float_float", "normal.Tensor_Tensor_out", "normal.Tensor_float_out",
                "normal.float_Tensor_out", "normal.float_float_out", "normal_"],
    vg.bernoulli: ["bernoulli", "bernoulli.out", "bernoulli_.Tensor", "bernoulli_.float",
                   "bernoulli.p"],
    vg.multinomial: ["multinomial", "multinomial.out"],
    vg.rand_like: ["rand_like", "rand_like.generator"],
    vg.randn_like: ["randn_like", "randn_like.generator"],
    vg.randint_like: ["randint_like.low_dtype", "randint_like.low_generator_dtype",
                      "randint_like.Tensor", "randint_like.Tensor_generator", "randint_like",
                      "randint_like.generator"],
}  # fmt: skip


@pytest.mark.parametrize("function", list(DECLARED), ids=lambda f: f.__name__)
def test_one_declaration_holds_every_overload(function):
    assert sorted(function.overloads) == sorted(DECLARED[function])


BAD_CALLS = [
    "lib.mm(lib.ones(2, 2), 'a')",
    "lib.ones(2, 2).mm('a')",
    "lib.dot(lib.ones(2))",
    "lib.mv(lib.ones(2, 2), lib.ones(2), lib.ones(2))",
    "lib.bmm(lib.ones(1, 2, 2), mat3=lib.ones(1, 2, 2))",
    "lib.matmul(lib.ones(2, 2), lib.ones(2, 2), out=3)",
    "lib.outer(lib.ones(2), 2)",
    "lib.ger(lib.ones(2), 'x')",
    "lib.ones(2).outer([1])",
    "lib.addmm(lib.ones(2, 2), lib.ones(2, 2), 1)",
    "lib.tensordot(lib.ones(2, 3), lib.ones(3, 4), 'ab')",
    "lib.tensordot(lib.ones(2, 3), lib.ones(3, 4), ([1], 0))",
    "lib.einsum(5, lib.ones(2))",
    "lib.einsum('i')",
    "lib.rand()",
    "lib.rand('a')",
    "lib.rand(2, foo=1)",
    "lib.rand(2, dtype='x')",
    "lib.rand(2, 3, size=(2,))",
    "lib.rand(2, out=lib.empty(2), dtype=lib.float64)",
    "lib.randn(2, 'a')",
    "lib.randint(10)",
    "lib.randint(5, size=(2,), low=1)",
    "lib.randint(2, (3,), dtype=lib.float32, out=lib.empty(3, dtype=lib.float64))",
    "lib.randperm(3.5)",
    "lib.randperm(2**63)",
    "lib.normal(0., 1.)",
    "lib.normal('a')",
    "lib.normal(lib.ones(2), 'a')",
    "lib.normal(0., 1., (2,), out=lib.empty(2), dtype=lib.float64)",
    "lib.bernoulli(lib.ones(2), 0.5, out=lib.empty(2))",
    "lib.bernoulli(lib.ones(2), p=None)",
    "lib.ones(2).bernoulli(lib.ones(2))",
    "lib.multinomial('a')",
    "lib.multinomial(lib.ones(3), 2**63)",
    "lib.rand_like(3)",
    "lib.randint_like(lib.ones(3), 2.5)",
    "lib.randint_like(lib.ones(3), lib.tensor([5]))",
    "lib.ones(3).uniform_('a')",
    "lib.ones(3).normal_(0, 1, 2)",
    "lib.ones(3).exponential_('a')",
    "lib.ones(3).bernoulli_('a')",
    "lib.ones(3).random_(1.5)",
    "lib.ones(3).random_(None, 4)",
    "lib.ones(3).random_(2**63)",
]


@pytest.mark.parametrize("expr", BAD_CALLS)
def test_bad_calls_raise_like_torch(expr):
    assert_same_error(lambda: eval(expr, {"lib": vg}), lambda: eval(expr, {"lib": torch}))  # noqa: S307


GOOD_CALLS = [
    "lib.ones(3).random_(2, None)",
    "lib.ones(3).uniform_(to=5.)",
    "lib.ones(3).uniform_(lib.tensor(2.), 3)",
    "lib.randint(high=5, size=(2,))",
    "lib.randint(3, (2,), dtype=lib.float32, out=lib.empty(2))",
    "lib.normal(mean=lib.ones(2), std=1.)",
    "lib.normal(lib.ones(2), 1., out=lib.empty(2))",
    "lib.ones(2).bernoulli(0.5)",
    "lib.ones(3).multinomial(2)",
    "lib.tensordot(lib.ones(2, 3), lib.ones(3, 4), lib.tensor(1))",
    "lib.einsum('i,i', (lib.ones(2), lib.ones(2)))",
]


@pytest.mark.parametrize("expr", GOOD_CALLS)
def test_good_calls_give_torch_shapes_and_dtypes(expr):
    got, expected = eval(expr, {"lib": vg}), eval(expr, {"lib": torch})  # noqa: S307
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.dtype.name == str(expected.dtype)[6:]


def test_requires_grad_is_set_on_the_result_and_on_out():
    assert vg.rand(2, requires_grad=True).requires_grad
    out = vg.empty(2)
    assert vg.rand(2, out=out, requires_grad=True) is out and out.requires_grad
    assert vg.rand_like(vg.ones(2), requires_grad=True).requires_grad
    # A complex leaf may require grad, as in torch (the factory sets the flag itself).
    assert vg.rand(2, dtype=vg.complex64, requires_grad=True).requires_grad
    assert torch.rand(2, dtype=torch.complex64, requires_grad=True).requires_grad
    assert_same_error(
        lambda: vg.randint(3, (2,), requires_grad=True),
        lambda: torch.randint(3, (2,), requires_grad=True),
    )


def test_required_generator_picks_the_generator_overload():
    g = vg.Generator().manual_seed(3)
    with vg.dispatch_trace() as trace:
        vg.randperm(4, generator=g)
        vg.randperm(4)
    assert trace.ops == ["aten::randperm.generator", "aten::randperm"]


def test_an_out_overload_shares_its_twins_kind():
    """The out= overload of an operator without gradients has none either (autograd lets
    it write while an input requires grad, as ``nonzero(x, out=o)``); that of a
    differentiable one records nothing, so autograd refuses it then."""
    from vizgrad.dispatcher import EXPLICIT, NONDIFFERENTIABLE
    from vizgrad.ops.declaration import native_function

    probe = native_function(
        "_out_kind_probe(Tensor self) -> Tensor",
        "_out_kind_probe.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        kernel=lambda self: self.detach().clone(),
        kind=NONDIFFERENTIABLE,
        variants="function",
    )
    try:
        assert probe.overloads["_out_kind_probe.out"].kind is NONDIFFERENTIABLE
        out = vg.empty(2)
        assert probe(vg.ones(2, requires_grad=True), out=out) is out
    finally:
        for name in probe.overloads:
            del OPERATORS[f"aten::{name}"]
    mm_out = vg.mm.overloads["mm.out"]
    assert mm_out.kind is EXPLICIT and mm_out.derivative is None
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        vg.mm(vg.ones(2, 2, requires_grad=True), vg.ones(2, 2), out=vg.empty(2, 2))


def test_an_operator_of_inplace_overloads_only_is_called_by_its_inplace_name():
    """``uniform_`` has no functional overload: its Python function is ``uniform_``
    (as ``torch.zero_`` is), with ``input`` as the written tensor."""
    uniform_ = sampling._uniform
    assert uniform_.__name__ == "uniform_"
    assert sorted(uniform_.overloads) == ["uniform_"]
    x = vg.zeros(3)
    assert uniform_(x, 2, 3) is x and all(2 <= v < 3 for v in x.tolist())
    with pytest.raises(TypeError, match=r"uniform_\(\): argument 'input' \(position 1\) must be"):
        uniform_([1.0])


def test_a_structured_kernel_named_for_an_overload_makes_its_inplace_twin():
    from vizgrad.dispatcher import INPLACE
    from vizgrad.ops.declaration import _kernel_for
    from vizgrad.ops.overload_kernels import StructuredKernel
    from vizgrad.schema import FunctionSchema

    class Made(StructuredKernel):
        def for_overload(self, schema, variant):
            return (schema.name, variant)

    plain = FunctionSchema.parse("f.dim(Tensor(a) self, int dim) -> Tensor(a)")
    inplace = FunctionSchema.parse("f_.dim(Tensor(a!) self, int dim) -> Tensor(a!)")
    kernels = {"f.dim": Made()}
    assert _kernel_for(inplace, INPLACE, None, kernels, [plain]) == ("f_", INPLACE)


def test_an_out_overload_is_composite_only_when_declared_so(monkeypatch):
    from vizgrad.dispatcher import EXPLICIT
    from vizgrad.ops import declaration
    from vizgrad.ops.declaration import _Overloads

    monkeypatch.setattr(declaration, "OPERATORS", {})  # these probes stay out of the registry

    schemas = ("vizgrad_test_join(Tensor[] tensors) -> Tensor",
               "vizgrad_test_join.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)")  # fmt: skip
    kinds = {"vizgrad_test_join": COMPOSITE_IMPLICIT, "vizgrad_test_join.out": COMPOSITE_IMPLICIT}
    named = _Overloads(schemas, lambda tensors, out=None: out, {}, None, {}, EXPLICIT, kinds,
                       {}).operators  # fmt: skip
    assert named["vizgrad_test_join.out"].kind is COMPOSITE_IMPLICIT
    # By default an out= overload records no node, so autograd refuses it.
    schemas = tuple(s.replace("join", "join2") for s in schemas)
    default = _Overloads(schemas, lambda tensors, out=None: out, {}, None, {}, COMPOSITE_IMPLICIT,
                         {}, {}).operators  # fmt: skip
    assert default["vizgrad_test_join2"].kind is COMPOSITE_IMPLICIT
    assert default["vizgrad_test_join2.out"].kind is EXPLICIT


def test_a_resize_bumps_the_version_only_when_the_size_changes():
    from vizgrad.dispatcher import RESIZE, Operator

    def kernel(self, size):
        self._set_metadata(size, (1,), self._offset)
        return self

    op = Operator("vizgrad_test_resize_(Tensor(a!) self, SymInt[] size) -> Tensor(a!)", RESIZE,
                  kernel)  # fmt: skip
    x = vg.zeros(4)
    op(x, (4,))
    assert x._version == 0
    op(x, (2,))
    assert x._version == 1

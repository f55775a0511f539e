"""Views, shape and joining are declared from whole schemas: their overloads, their bindings
and the parser's errors, compared with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error

import vizgrad as vg
from vizgrad.ops import joining, parts, permutations, shape_views, splitting
from vizgrad.ops.registry import OPERATORS

DECLARED = {
    vg.as_strided: ["as_strided", "as_strided_"],
    shape_views._view: ["view", "view.dtype"],
    vg.reshape: ["reshape"],
    vg.flatten: ["flatten.using_ints"],
    vg.unflatten: ["unflatten.int"],
    shape_views._expand: ["expand"],
    vg.t: ["t", "t_"],
    vg.transpose: ["transpose.int", "transpose_"],
    vg.permute: ["permute"],
    vg.swapaxes: ["swapaxes", "swapaxes_"],
    vg.swapdims: ["swapdims", "swapdims_"],
    vg.adjoint: ["adjoint"],
    vg.movedim: ["movedim.intlist", "movedim.int"],
    vg.moveaxis: ["moveaxis.intlist", "moveaxis.int"],
    vg.squeeze: ["squeeze", "squeeze.dim", "squeeze.dims", "squeeze_", "squeeze_.dim",
                 "squeeze_.dims"],
    vg.unsqueeze: ["unsqueeze", "unsqueeze_"],
    vg.select: ["select.int"],
    vg.narrow: ["narrow", "narrow.Tensor"],
    vg.diagonal: ["diagonal"],
    vg.unbind: ["unbind.int"],
    splitting._split: ["split.Tensor", "split.sizes"],
    vg.split_with_sizes: ["split_with_sizes"],
    vg.chunk: ["chunk"],
    vg.tensor_split: ["tensor_split.sections", "tensor_split.indices",
                      "tensor_split.tensor_indices_or_sections"],
    vg.detach: ["detach", "detach_"],
    vg.cat: ["cat", "cat.out"],
    vg.concat: ["concat", "concat.out"],
    vg.concatenate: ["concatenate", "concatenate.out"],
    vg.stack: ["stack", "stack.out"],
    vg.hstack: ["hstack", "hstack.out"],
    vg.vstack: ["vstack", "vstack.out"],
    vg.row_stack: ["row_stack", "row_stack.out"],
    vg.dstack: ["dstack", "dstack.out"],
    vg.column_stack: ["column_stack", "column_stack.out"],
    vg.tile: ["tile"],
    vg.repeat_interleave: ["repeat_interleave.Tensor", "repeat_interleave.self_Tensor",
                           "repeat_interleave.self_int"],
    vg.flip: ["flip"],
    vg.fliplr: ["fliplr"],
    vg.flipud: ["flipud"],
    vg.roll: ["roll"],
}  # fmt: skip

# Operators that PyTorch gives no Python binding: they exist only to be dispatched.
UNBOUND = ["_unsafe_view", "_reshape_alias", "alias", "slice.Tensor", "numpy_T", "mT", "mH",
           "matrix_H", "view_as", "reshape_as", "expand_as", "unfold", "repeat", "resize_",
           "resize_as_"]  # fmt: skip


@pytest.mark.parametrize("function", list(DECLARED), ids=lambda f: f.__name__)
def test_one_declaration_holds_every_overload(function):
    assert sorted(function.overloads) == sorted(DECLARED[function])


@pytest.mark.parametrize("name", UNBOUND)
def test_operators_without_python_binding_are_registered(name):
    assert OPERATORS[f"aten::{name}"].schema.startswith(name + "(")


def test_methods_and_functions_exist_as_in_torch():
    for name in ["view", "view_as", "reshape_as", "expand", "expand_as", "unfold", "repeat",
                 "resize_", "resize_as_", "t_", "transpose_", "swapaxes_", "swapdims_",
                 "squeeze_", "unsqueeze_", "as_strided_", "detach_", "split", "tile"]:  # fmt: skip
        assert hasattr(vg.Tensor, name) and hasattr(torch.Tensor, name), name
    for name in ["numpy_T", "matrix_H", "alias", "slice", "resize", "swapaxes__"]:
        assert not hasattr(vg.Tensor, name), name
    for name in ["expand", "view", "unfold", "repeat", "alias"]:
        assert not hasattr(vg, name) and not hasattr(torch, name), name


# Calls the parser must refuse in PyTorch's words (the overload choice, the types).
BAD_CALLS = [
    "x.view()", "x.view(2, 3.0)", "x.view(2, 'a')", "x.view_as(3)", "lib.reshape(x, 2, 3)",
    "x.reshape_as(1)", "x.flatten(0.5)", "x.unflatten(0.5, (1, 2))", "x.expand(2, 3, implicit=1)",
    "x.transpose('a', 1)", "lib.permute(x, 1, 0)", "x.permute(0, 'a')", "lib.swapaxes(x, 0)",
    "x.movedim(0, (1,))", "lib.movedim(x, 0, 1.5)", "x.squeeze(0.5)", "x.squeeze(dim=None)",
    "lib.squeeze(x, 'a')", "x.unsqueeze()", "lib.select(x, 0)", "x.narrow(0, 1.5, 1)",
    "lib.narrow(x, 0, 'a', 1)", "x.diagonal('a')", "x.unfold(0, 1)", "x.unbind(dim='a')",
    "x.split('a')", "lib.split(3, 2)", "lib.chunk(x, 2.0)", "lib.tensor_split(x, 1.5)",
    "x.tensor_split(lib.tensor([1.0]))", "x.tensor_split(lib.tensor([[1]]))",
    "x.as_strided((2,), 1)", "x.resize_('a')", "lib.cat(x)", "lib.cat([x, 1])",
    "lib.cat([x], axs=1)", "lib.cat([x], axis=1, foo=2)", "lib.stack([x], dim='a')",
    "lib.hstack([x], out=3)", "lib.hstack(x)", "x.repeat()", "x.repeat_interleave()",
    "lib.tile(x, 'a')", "lib.tile(x, 2)", "x.flip()", "lib.flip(x, 0)", "lib.roll(x, 'a')",
    "lib.roll(x, 1, 'a')", "lib.roll(x, 1.5)",
]  # fmt: skip


@pytest.mark.parametrize("expr", BAD_CALLS)
def test_bad_calls_raise_like_torch(expr):
    def call(lib):
        return eval(expr, {"lib": lib, "x": lib.zeros(2, 3)})  # noqa: S307

    assert_same_error(lambda: call(vg), lambda: call(torch))


# Calls the parser must accept, some through the short path (plain types), some not.
GOOD_CALLS = [
    "x.view(6)", "x.view(np.int64(6))", "x.view((3, 2))", "x.view([-1])", "x.view(size=(6,))",
    "x.reshape(shape=(3, 2))", "lib.reshape(x, (6,))", "x.expand(2, 2, 3)",
    "x.expand((2, 2, 3), implicit=True)", "x.transpose(np.int64(0), 1)", "x.transpose(0, -1)",
    "x.permute(1, 0)", "x.permute((1, 0))", "lib.permute(x, [1, 0])", "x.movedim((0, 1), (1, 0))",
    "x.movedim(0, 1)", "lib.moveaxis(x, 0, 1)", "x.squeeze()", "x.squeeze(0)", "x.squeeze((0, 1))",
    "x.narrow(1, 1, 2)", "x.narrow(1, lib.tensor(1), 2)", "lib.narrow(x, 1, np.int64(1), 2)",
    "x.select(1, -1)", "x.diagonal()", "x.diagonal(dim1=1, dim2=0)", "x.unbind(1)",
    "x.split(2, 1)", "x.split([1, 2], 1)", "x.split(lib.tensor(2), 1)", "lib.split(x, 1)",
    "lib.split_with_sizes(x, [1, 1])", "x.chunk(2)", "x.tensor_split(2, 1)",
    "x.tensor_split([1], 1)", "x.tensor_split(lib.tensor(2), 1)", "x.tensor_split(lib.tensor([1]))",
    "lib.cat([x, x])", "lib.cat((x, x), 1)", "lib.cat([x], dim=-1)", "lib.cat([x, x], axis=1)",
    "lib.concatenate([x, x], axis=1)", "lib.concat([x, x], 1)", "lib.stack([x, x], -1)",
    "lib.hstack([x, x])", "lib.row_stack((x, x))", "lib.column_stack([x])", "lib.dstack([x])",
    "x.repeat(2, 1)", "x.repeat([1, 2])", "x.tile(2)", "lib.tile(x, (2, 1))", "x.flip(0, 1)",
    "lib.flip(x, (1,))", "x.fliplr()", "lib.roll(x, 1)", "lib.roll(x, 1, None)",
    "lib.roll(x, (1, 2), (0, 1))", "x.roll(1, 0)", "lib.repeat_interleave(x, 2)",
    "x.repeat_interleave(2, dim=1)", "lib.repeat_interleave(lib.tensor([1, 2]))",
    "lib.adjoint(x)", "x.swapdims(0, 1)", "lib.detach(x)",
]  # fmt: skip


@pytest.mark.parametrize("expr", GOOD_CALLS)
def test_good_calls_agree_with_torch(expr):
    def call(lib):
        return eval(expr, {"lib": lib, "x": lib.arange(6.0).reshape(2, 3), "np": np})  # noqa: S307

    actual, expected = call(vg), call(torch)
    if isinstance(expected, tuple | list):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            assert_same(a, e)
    else:
        assert_same(actual, expected)


@pytest.mark.parametrize("name", ["swapaxes_", "swapdims_"])
def test_swapping_in_place_is_transpose_in_place(name):
    v, t = vg.zeros(2, 3), torch.zeros(2, 3)
    assert getattr(v, name)(0, 1) is v and getattr(t, name)(0, 1) is t
    assert_same(v, t)
    assert v._version == t._version


def test_view_of_a_dtype_is_chosen_by_the_parser():
    # The parser picks ``view.dtype`` as PyTorch's does (tests/test_view_dtype.py tests it).
    assert vg.zeros(2).view(vg.int32).dtype is vg.int32


def test_split_with_a_non_tensor_is_torchs_attribute_error():
    # ``torch.split`` is Python (torch/functional.py): it asks the argument for ``.split``.
    assert_same_error(lambda: vg.split([1, 2], 1), lambda: torch.split([1, 2], 1))


def test_helpers_other_modules_use_are_operators():
    assert shape_views._unsafe_view_op.qualname == "aten::_unsafe_view"
    assert shape_views._alias_op.qualname == "aten::alias"
    assert parts._slice_op.qualname == "aten::slice.Tensor"
    assert parts._select_op.qualname == "aten::select.int"
    assert permutations._transpose_op.qualname == "aten::transpose.int"
    assert joining._cat_op.qualname == "aten::cat"


def test_numpy_names_and_empty_list_defaults_reach_the_kernels():
    vs, ts = [vg.ones(2, 3), vg.zeros(2, 3)], [torch.ones(2, 3), torch.zeros(2, 3)]
    assert_same(vg.cat(vs, axis=1), torch.cat(ts, axis=1))
    assert_same(vg.roll(vs[0], 1, None), torch.roll(ts[0], 1, None))


def test_squeeze_in_place_is_made_from_the_view_kernel():
    x = vg.zeros(2, 1, 3)
    assert x.squeeze_(1) is x and tuple(x.shape) == (2, 3)


def test_the_out_overload_of_a_stacking_composite_is_composite():
    # ``hstack.out`` calls ``cat.out``, which refuses autograd in its own name, as in torch.
    def call(lib):
        a = lib.ones(2, requires_grad=True)
        return lib.hstack([a, a], out=lib.empty(4))

    assert_same_error(lambda: call(vg), lambda: call(torch))
    out = vg.empty(4)
    vg.hstack([vg.ones(2), vg.ones(2)], out=out)
    assert out._version == 1


def test_resize_bumps_the_version_only_when_the_size_changes():
    x = vg.zeros(2, 3)
    with vg.dispatch_trace() as trace:
        x.resize_(2, 3)
    assert x._version == 0 and trace.ops == ["aten::resize_"]
    assert [s.key for s in trace.steps] == ["AutogradCPU", "ADInplaceOrView", "CPU"]
    x.resize_(6)
    assert x._version == 1
    assert not hasattr(vg.Tensor, "resize")  # in-place overloads only: no ``Tensor.resize``

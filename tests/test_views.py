"""View operators and basic indexing, compared with PyTorch.

For every view: shape, strides, storage offset, contiguity, values, whether it is a
view (``_is_view``) of *the same base* as in PyTorch, whether it shares memory with
its input, and that a write through it lands in the base, in both libraries.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair

import vizgrad as vg
from vizgrad import events
from vizgrad.dispatcher import COMPOSITE_IMPLICIT
from vizgrad.ops.basic_indexing import basic_index
from vizgrad.ops.registry import OPERATORS

DTYPES = ["float32", "int64", "bool", "complex64"]


def root(x):
    return x._base if x._base is not None else x


def lib_of(x):
    return vg if isinstance(x, vg.Tensor) else torch


def assert_same_view(v, t, v_source, t_source):
    """``v = op(v_source)`` behaves as ``t = op(t_source)``: metadata, values, aliasing."""
    if isinstance(t, tuple | list):
        assert isinstance(v, tuple) and len(v) == len(t)
        for vi, ti in zip(v, t, strict=True):
            assert_same_view(vi, ti, v_source, t_source)
        return
    assert_same(v, t, check_offset=True)
    assert v._is_view() == t._is_view()
    assert (v._base is None) == (t._base is None)
    if t._base is not None:  # a view of a view points at the root base, in both
        assert (t._base is root(t_source)) == (v._base is root(v_source))
        assert v._base is root(v_source)
    assert (v is v_source) == (t is t_source)
    shares = t.untyped_storage().data_ptr() == t_source.untyped_storage().data_ptr()
    assert (v.untyped_storage().data_ptr() == v_source.untyped_storage().data_ptr()) == shares
    if shares and t.numel():  # PyTorch reports data_ptr() 0 for an empty tensor
        delta_t = t.data_ptr() - t_source.data_ptr()
        delta_v = v.data_ptr() - v_source.data_ptr()
        assert delta_v == delta_t


def run_both(fn, v, t):
    """Call ``fn`` on both; if torch raises, vizgrad must raise the same; else compare."""
    try:
        expected = fn(t)
    except Exception:  # noqa: BLE001 - we compare whatever torch raises
        assert_same_error(lambda: fn(v), lambda: fn(t))
        return None
    actual = fn(v)
    assert_same_view(actual, expected, v, t)
    return actual, expected


VIEW_CASES = {
    "view_flat": lambda x: x.view(-1),
    "view_split": lambda x: x.view(2, 3, 2, 2),
    "view_merge_last": lambda x: x.view(2, 12),
    "view_merge_first": lambda x: x.view(6, 4),
    "view_list": lambda x: x.view([4, -1]),
    "view_ones": lambda x: x.view(1, 2, 1, 3, 4, 1),
    "view_as": lambda x: x.view_as(lib_of(x).zeros(3, 8)),
    "reshape_flat": lambda x: x.reshape(-1),
    "reshape_tuple": lambda x: x.reshape((4, 6)),
    "reshape_same": lambda x: x.reshape(2, 3, 4),
    "reshape_merge_last": lambda x: x.reshape(2, 12),
    "reshape_as": lambda x: x.reshape_as(lib_of(x).zeros(6, 4)),
    "flatten": lambda x: x.flatten(),
    "flatten_1": lambda x: x.flatten(1),
    "flatten_0_1": lambda x: x.flatten(0, 1),
    "flatten_same": lambda x: x.flatten(1, 1),
    "unflatten": lambda x: x.unflatten(2, (2, -1)),
    "unflatten_neg": lambda x: x.unflatten(-3, (1, 2)),
    "t_matrix": lambda x: x[0].t(),
    "t_vector": lambda x: x[0, 0].t(),
    "T_matrix": lambda x: x[0].T,
    "mT": lambda x: x.mT,
    "transpose": lambda x: x.transpose(0, 2),
    "transpose_neg": lambda x: x.transpose(-1, 0),
    "transpose_same": lambda x: x.transpose(1, 1),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "swapdims": lambda x: lib_of(x).swapdims(x, 2, 1),
    "permute": lambda x: x.permute(2, 0, 1),
    "permute_tuple": lambda x: x.permute((1, 2, 0)),
    "permute_fn": lambda x: lib_of(x).permute(x, (-1, 0, 1)),
    "movedim": lambda x: x.movedim(0, 2),
    "movedim_seq": lambda x: x.movedim((0, 1), (2, 0)),
    "moveaxis": lambda x: lib_of(x).moveaxis(x, -1, 0),
    "expand": lambda x: x[:, :1].expand(2, 5, 4),
    "expand_new_dims": lambda x: x.expand(3, -1, -1, -1),
    "expand_leading_one": lambda x: x.expand(1, 1, 2, 3, 4),
    "expand_as": lambda x: x[0].expand_as(x),
    "squeeze_all": lambda x: x[:, :1, None].squeeze(),
    "squeeze_dim": lambda x: x[:, :1].squeeze(1),
    "squeeze_dim_not_one": lambda x: x.squeeze(0),
    "squeeze_dims": lambda x: x[:1, :1].squeeze((0, 1, 2)),
    "unsqueeze_0": lambda x: x.unsqueeze(0),
    "unsqueeze_mid": lambda x: x.unsqueeze(2),
    "unsqueeze_end": lambda x: x.unsqueeze(-1),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "narrow_neg": lambda x: x.narrow(-1, -3, 2),
    "narrow_empty": lambda x: x.narrow(2, 4, 0),
    "narrow_tensor_start": lambda x: x.narrow(0, lib_of(x).tensor(1), 1),
    "select": lambda x: x.select(1, 2),
    "select_neg": lambda x: x.select(-1, -4),
    "diagonal": lambda x: x.diagonal(),
    "diagonal_offset": lambda x: x.diagonal(1, 1, 2),
    "diagonal_neg_offset": lambda x: x.diagonal(-1, 2, 1),
    "diagonal_off_end": lambda x: x.diagonal(7, 0, 2),
    "diagonal_fn": lambda x: lib_of(x).diagonal(x, 0, -1, 0),
    "unfold": lambda x: x.unfold(2, 2, 1),
    "unfold_step": lambda x: x.unfold(1, 2, 2),
    "unfold_empty": lambda x: x.unfold(0, 0, 1),
    "unbind": lambda x: x.unbind(1),
    "unbind_fn": lambda x: lib_of(x).unbind(x),
    "split": lambda x: x.split(2, 2),
    "split_big": lambda x: x.split(10),
    "split_sizes": lambda x: x.split([1, 3], -1),
    "split_fn": lambda x: lib_of(x).split(x, [1, 0, 2], 1),
    "split_with_sizes": lambda x: lib_of(x).split_with_sizes(x, [2, 2], 2),
    "chunk": lambda x: x.chunk(2, 1),
    "chunk_more": lambda x: x.chunk(3, 2),
    "chunk_fn": lambda x: lib_of(x).chunk(x, 5, 0),
    "tensor_split": lambda x: x.tensor_split(3, 2),
    "tensor_split_idx": lambda x: x.tensor_split([1, 3], 1),
    "as_strided": lambda x: x.as_strided((2, 2), (1, 2), 1),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_view_ops(name, layout):
    v, t = make_pair((2, 3, 4), "float32", layout, seed=1)
    run_both(VIEW_CASES[name], v, t)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["view_flat", "reshape_flat", "transpose", "diagonal",
                                  "unfold", "split", "expand_new_dims", "select"])  # fmt: skip
def test_view_ops_dtypes(name, dtype):
    v, t = make_pair((2, 3, 4), dtype, "transposed", seed=2)
    run_both(VIEW_CASES[name], v, t)


WRITABLE_LAYOUTS = [layout for layout in LAYOUTS if layout != "expanded"]


@pytest.mark.parametrize("layout", WRITABLE_LAYOUTS)
@pytest.mark.parametrize(
    "name",
    ["view_flat", "reshape_flat", "transpose", "permute", "narrow", "select", "diagonal",
     "unfold_step", "squeeze_dim", "unsqueeze_mid", "split", "unbind", "flatten_0_1"],
)  # fmt: skip
def test_write_through_view_changes_base(name, layout):
    """A write into a view is a write into the base's storage (and bumps the shared version)."""
    v, t = make_pair((2, 3, 4), "float32", layout, seed=3)
    try:
        t_view = VIEW_CASES[name](t)
    except RuntimeError:
        return  # e.g. view() of a non-contiguous layout: covered by test_view_ops
    v_view = VIEW_CASES[name](v)
    if isinstance(t_view, tuple):
        t_view, v_view = t_view[-1], v_view[-1]
    t_view.copy_(torch.full(t_view.shape, 7.0))
    v_view.copy_(vg.tensor(7.0).expand(*v_view.shape))
    assert_same(v, t)
    np.testing.assert_array_equal(root(v).numpy(), root(t).numpy())
    assert v._version == t._version
    assert v_view._version == t_view._version


def test_reshape_view_or_copy():
    """The classic: ``view`` fails where ``reshape`` silently copies."""
    v, t = make_pair((2, 3), "float32", "contiguous")
    vt, tt = v.t(), t.t()
    assert_same_error(lambda: vt.view(-1), lambda: tt.view(-1))
    assert_same_view(vt.reshape(-1), tt.reshape(-1), vt, tt)
    assert vt.reshape(-1)._base is None
    assert v.reshape(-1)._base is v._base
    copy = vt.reshape(-1)
    copy.copy_(vg.zeros(6))
    assert vt.numpy().any() == tt.numpy().any()  # the copy did not write into v


INDEX_CASES = [
    "x[0]", "x[-1]", "x[1, 2]", "x[1, -1, 3]", "x[:, 1]", "x[..., 1]", "x[1:]", "x[:2]", "x[:]",
    "x[::2]", "x[1::2, ::3]", "x[-2:]", "x[-10:]", "x[:-10]", "x[10:]", "x[3:1]", "x[0:100]",
    "x[None]", "x[None, 0]", "x[..., None]", "x[:, None, 1:3]", "x[0, ..., None, 1]",
    "x[...]", "x[()]", "x[:, :]", "x[0:2, 0:3, :]", "x[..., 0, ...]", "x[None, ..., None]",
    "x[0,]", "x[(0, 1)]", "x[x.new_tensor(1, dtype=lib.int64)]",
    "x[:, x.new_tensor(-1, dtype=lib.int32)]", "x[0:x.new_tensor(1, dtype=lib.int64)]",
    "x[np.int64(1)]", "x[1:2, 1:3:2, None]", "x[-1, :, -1]",
]  # fmt: skip

INDEX_ERRORS = [
    "x[5]", "x[-3]", "x[0, 5]", "x[None, 0, 7]", "x[0, ..., 9]", "x[1, 2, 3, 4]", "x[::-1]",
    "x[::0]", "x[:, ::-2]", "x[1.5]", "x[object()]", "x[{}]", "x[0:1.5]",
    "x[x.new_tensor(5, dtype=lib.int64)]", "x[np.bool_(True)]",
    "s[0]", "s[:]", "s[0,]", "s[..., 0]", "s[None, 0]",
]  # fmt: skip

SCALAR_INDEX_CASES = ["s[...]", "s[None]", "s[()]", "s[None, ..., None]"]


def _eval(expr, x, s, lib):
    return eval(expr, {"x": x, "s": s, "lib": lib, "np": np})  # noqa: S307


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("expr", INDEX_CASES + SCALAR_INDEX_CASES)
def test_basic_indexing(expr, layout):
    v, t = make_pair((2, 3, 4), "float32", layout, seed=4)
    vs, ts = vg.tensor(2.5), torch.tensor(2.5)
    expected = _eval(expr, t, ts, torch)
    actual = _eval(expr, v, vs, vg)
    source_v, source_t = (vs, ts) if expr.startswith("s") else (v, t)
    assert_same_view(actual, expected, source_v, source_t)


@pytest.mark.parametrize("expr", INDEX_ERRORS)
def test_basic_indexing_errors(expr):
    v, t = make_pair((2, 3, 4), "float32", "contiguous")
    vs, ts = vg.tensor(2.5), torch.tensor(2.5)
    assert_same_error(lambda: _eval(expr, v, vs, vg), lambda: _eval(expr, t, ts, torch))


class _TorchOps(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func).replace("aten.", "aten::").removesuffix(".default"))
        return func(*args, **(kwargs or {}))


def vg_primitive_ops(fn):
    """The ops ``fn`` dispatches, seen as TorchDispatchMode sees PyTorch's.

    TorchDispatchMode sits below CompositeImplicitAutograd ops (``reshape``,
    ``flatten``…), so it sees what they decompose into. Here: every call that is not
    itself composite and is not made from inside another non-composite op's kernel.
    """
    with events.Recorder() as recorder:
        fn()
    ops, open_calls = [], []  # open_calls: (depth, is_composite) of enclosing calls
    for e in recorder.events:
        if not (isinstance(e, events.OpDispatched) and e.action == "call"):
            continue
        while open_calls and open_calls[-1][0] >= e.depth:
            open_calls.pop()
        is_composite = OPERATORS[e.op].kind is COMPOSITE_IMPLICIT
        if not is_composite and all(composite for _, composite in open_calls):
            ops.append(e.op)
        open_calls.append((e.depth, is_composite))
    return ops


def vg_top_level_ops(fn):
    with events.Recorder() as recorder:
        fn()
    calls = [e for e in recorder.events if isinstance(e, events.OpDispatched)]
    return [e.op for e in calls if e.action == "call" and e.depth == 0]


@pytest.mark.parametrize(
    "expr",
    ["x[0]", "x[1:]", "x[:, 1]", "x[None, 0]", "x[...]", "x[:, :]", "x[0:2, 1:]", "x[::2, -1]",
     "x[..., None, 0]", "x[0, 1:2, None, ...]", "x[x.new_tensor(1, dtype=lib.int64)]",
     "x.reshape(-1)", "x.t().reshape(-1)", "x.flatten()", "x.narrow(1, 0, 2)", "x.chunk(2)",
     "x.T", "x.mT", "x.movedim(0, 1)", "x.expand_as(x)", "x.unflatten(1, (3, 1))",
     "x.squeeze((0, 1))", "x.contiguous()", "x.t().contiguous()", "x.to(lib.float32)",
     "x.to(lib.int32)", "x.double()", "x.detach()", "x.tensor_split(2)", "x.split([1, 1])"],
)  # fmt: skip
def test_dispatch_trace_matches_torch(expr):
    """``x[1:, 0]`` is ``slice`` then ``select`` in both libraries (students read these traces)."""
    v, t = make_pair((2, 3), "float32", "contiguous")
    with _TorchOps() as mode:
        _eval(expr, t, None, torch)
    # Reading a 0-dim index tensor as an int is a dispatched op in PyTorch, not in vizgrad.
    hidden = ("aten::lift_fresh", "aten::_local_scalar_dense")
    expected = [op for op in mode.ops if op not in hidden]
    assert vg_primitive_ops(lambda: _eval(expr, v, None, vg)) == expected


@pytest.mark.parametrize(
    ("expr", "top_level"),
    [("x.reshape(-1)", ["aten::reshape"]), ("x.t().reshape(-1)", ["aten::t", "aten::reshape"]),
     ("x.flatten()", ["aten::flatten.using_ints"]), ("x.narrow(1, 0, 2)", ["aten::narrow"]),
     ("x.chunk(2)", ["aten::chunk"]), ("x.T", ["aten::numpy_T"]), ("x.mT", ["aten::mT"]),
     ("x.movedim(0, 1)", ["aten::movedim.int"]), ("x.swapaxes(0, 1)", ["aten::swapaxes"])],
)  # fmt: skip
def test_composite_ops_are_dispatched_by_name(expr, top_level):
    """As in PyTorch's dispatcher, ``aten::reshape`` is entered, then calls ``aten::view``."""
    v = vg.zeros(2, 3)
    assert vg_top_level_ops(lambda: _eval(expr, v, None, vg)) == top_level


def test_basic_index_function_returns_views():
    v, t = make_pair((2, 3, 4), "float32", "transposed")
    for index in [(0, slice(1, None)), (None, Ellipsis, 1), (slice(None), slice(None, None, 2))]:
        assert_same_view(basic_index(v, index), t[index], v, t)


def test_getitem_sends_advanced_indices_to_indexing(monkeypatch):
    import vizgrad.ops.advanced_indexing as indexing

    calls = []
    monkeypatch.setattr(indexing, "advanced_index", lambda x, i: calls.append(i) or "adv",
                        raising=False)  # fmt: skip
    x = vg.zeros(2, 3)
    for index in ([0, 1], True, (0, [1]), vg.tensor([1]), np.array([0]),
                  vg.tensor(1, dtype=vg.uint8), (slice(None), vg.tensor(True))):  # fmt: skip
        assert x[index] == "adv"
    assert len(calls) == 7


# --- errors ------------------------------------------------------------------------------

ERROR_CASES = [
    "x.view(5)", "x.view(-1, -1)", "x.view(-2, 6)", "x.view(0, -1)", "e.view(-1, 0)",
    "x.view(2, 3.0)", "x.view()", "x.t().view(-1)", "x.reshape(5)", "x.reshape(-1, -1)",
    "x3.t()", "x3.t_()", "v1.mT", "x3.H", "x.transpose(0, 2)", "x.permute(0)",
    "x.permute(0, 0)", "x.permute(0, 2)", "x3.permute(0, 0, 5)", "x.movedim(0, 2)",
    "x.movedim((0, 1), (1,))", "x.movedim((0, 0), (1, 0))", "x.movedim((0, 1), (1, 1))",
    "x.expand(2, 4)", "x[0].expand(2, 4)", "x.expand(3)", "x.expand(-1, 2, 3)",
    "x.expand(2, 3, 3)", "x.squeeze(2)", "x.squeeze((0, 0))", "x.unsqueeze(3)",
    "x.unsqueeze(-4)", "x.narrow(0, 0, 3)", "x.narrow(0, 3, 0)", "x.narrow(0, -3, 1)",
    "x.narrow(0, 1, -1)", "s.narrow(0, 0, 1)", "x.narrow(0, lib.tensor(0.5), 1)",
    "x.select(0, 5)", "x.select(0, -3)", "s.select(0, 0)", "x.select(2, 0)",
    "x.diagonal(0, 0, 0)", "s.diagonal()", "v1.diagonal()", "x.unfold(1, 4, 1)",
    "x.unfold(1, 2, 0)", "x.unfold(1, -1, 1)", "s.unfold(0, 2, 1)", "x.unfold(2, 1, 1)",
    "x.split(0)", "x.split(-1)", "x.split([1, -1, 3], 1)", "x.split([1, 1], 1)",
    "x.chunk(0)", "x.chunk(-1)", "s.chunk(1)", "s.split(1)", "s.unbind()", "x.unbind(2)",
    "x.unflatten(1, (2, 2))", "x.unflatten(1, ())", "x.flatten(1, 0)", "x.flatten(5)",
    "x.view_as(3)", "x.tensor_split(0)", "s.unsqueeze(1)", "x.as_strided((7,), (1,))",
    "x.as_strided((2,), (-1,))", "x.as_strided((2, 2), (1,))", "x[0].detach_()",
]  # fmt: skip


@pytest.mark.parametrize("expr", ERROR_CASES)
def test_view_errors(expr):
    def call(lib):
        x = lib.arange(6.0).reshape(2, 3)
        env = {"x": x, "x3": lib.zeros(2, 3, 4), "v1": lib.zeros(3), "s": lib.tensor(1.0),
               "e": lib.zeros(0, 3), "lib": lib}  # fmt: skip
        return eval(expr, env)  # noqa: S307

    assert_same_error(lambda: call(vg), lambda: call(torch))


# --- T warnings, 0-dim, in-place view ops -----------------------------------------------------


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_T_warns_like_torch(shape):
    v, t = make_pair(shape, "float32", "contiguous")
    with warnings.catch_warnings(record=True) as vg_warnings:
        warnings.simplefilter("always")
        actual = v.T
    with warnings.catch_warnings(record=True) as torch_warnings:
        warnings.simplefilter("always")
        expected = t.T
    assert_same_view(actual, expected, v, t)
    # PyTorch warns once per process (TORCH_WARN_ONCE); vizgrad leaves that to Python's filters.
    assert len(vg_warnings) == (len(shape) != 2)
    for w_vg, w_t in zip(vg_warnings, torch_warnings, strict=False):
        assert str(w_vg.message)[:40] == str(w_t.message)[:40]


@pytest.mark.parametrize("attribute", ["mT", "mH", "H"])
def test_matrix_attributes_on_0_dim_are_identity(attribute):
    vs, ts = vg.tensor(1.5), torch.tensor(1.5)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert getattr(vs, attribute) is vs
        assert getattr(ts, attribute) is ts
    # torch warns once per process (TORCH_WARN_ONCE): ask a fresh interpreter for its text.
    torch_message = _torch_warning_in_fresh_process(f"torch.tensor(1.5).{attribute}")
    vg_message = str(record[0].message)  # vizgrad's attribute was read first
    assert torch_message.startswith(vg_message)


def _torch_warning_in_fresh_process(expression: str) -> str:
    import subprocess
    import sys

    code = (
        "import warnings, torch\n"
        "with warnings.catch_warnings(record=True) as r:\n"
        "    warnings.simplefilter('always')\n"
        f"    {expression}\n"
        "print(str(r[0].message))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


@pytest.mark.parametrize("shape", [(2, 3), (2, 2, 3)])
def test_mH_H_on_real(shape):
    v, t = make_pair(shape, "float32", "transposed")
    assert_same_view(v.mH, t.mH, v, t)
    assert_same_view(vg.adjoint(v), torch.adjoint(t), v, t)
    if len(shape) == 2:
        assert_same_view(v.H, t.H, v, t)


@pytest.mark.parametrize(
    "call",
    [lambda x: x.t_(), lambda x: x.transpose_(0, 1), lambda x: x.squeeze_(),
     lambda x: x.squeeze_(0), lambda x: x.squeeze_((0, 1)), lambda x: x.unsqueeze_(1),
     lambda x: x.unsqueeze_(-1), lambda x: x.as_strided_((2,), (1,), 1)],
)  # fmt: skip
@pytest.mark.parametrize("of_view", [False, True])
def test_inplace_view_ops(call, of_view):
    """``t_``, ``squeeze_``…: same object, new metadata, and (as in PyTorch) version + 1."""
    v, t = make_pair((1, 3), "float32", "contiguous")
    if not of_view:
        v, t = v.clone(), t.clone()
    version = (v._version, t._version)
    v_out, t_out = call(v), call(t)
    assert v_out is v and t_out is t
    assert_same(v, t, check_offset=True)
    assert (v._version - version[0]) == (t._version - version[1])
    assert (v._base is None) == (t._base is None)


def test_detach_and_data():
    v, t = make_pair((2, 3), "float32", "contiguous")
    for name in ("detach", "data"):
        vd = v.detach() if name == "detach" else v.data
        td = t.detach() if name == "detach" else t.data
        assert_same(vd, td, check_offset=True)
        assert vd._base is None and td._base is None
        assert vd._is_view() == td._is_view()
        assert vd.data_ptr() == v.data_ptr() and td.data_ptr() == t.data_ptr()
        before = (v._version, t._version)
        vd.copy_(vg.ones(2, 3))
        td.copy_(torch.ones(2, 3))
        assert_same(v, t)  # shares memory
        # detach shares the version counter; .data has its own
        assert v._version - before[0] == t._version - before[1]
        assert vd._version == td._version
    vl, tl = vg.zeros(3), torch.zeros(3)
    assert vl.detach_() is vl and tl.detach_() is tl
    assert vl._version == tl._version == 0
    vg.detach(vl), torch.detach(tl)


def test_data_setter():
    va, ta = vg.ones(2), torch.ones(2)
    va.copy_(vg.ones(2)), ta.copy_(torch.ones(2))
    vy, ty = vg.tensor([1, 2, 3], dtype=vg.int32), torch.tensor([1, 2, 3], dtype=torch.int32)
    va.data = vy
    ta.data = ty
    assert_same(va, ta)
    assert va._version == ta._version
    assert va.data_ptr() == vy.data_ptr()
    assert_same_error(lambda: setattr(va, "data", 3), lambda: setattr(ta, "data", 3))


def test_views_share_version_counter():
    v, t = make_pair((2, 3), "float32", "contiguous")
    vv, tv = v[0], t[0]
    vv.copy_(vg.zeros(3))
    tv.copy_(torch.zeros(3))
    assert v._version == t._version == vv._version == tv._version
    assert_same(v, t)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0, 2)])
def test_views_of_empty_tensors(shape):
    v, t = make_pair(shape, "float32", "contiguous")
    for fn in (lambda x: x.view(-1), lambda x: x.reshape(shape[::-1]), lambda x: x.flatten(),
               lambda x: x.transpose(0, 1), lambda x: x.unsqueeze(1), lambda x: x.chunk(2),
               lambda x: x.split(0, 0), lambda x: x[1:], lambda x: x.unfold(0, 0, 1)):  # fmt: skip
        run_both(fn, v, t)

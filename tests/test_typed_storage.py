"""``Tensor.storage()`` and ``TypedStorage`` against PyTorch: the typed view of a tensor's
bytes (shared memory, whole-storage length, element reads and writes, conversions,
printing), the legacy ``FloatStorage`` names, the errors, and the deprecation warning
(once per process, at the user's line, always after ``_set_always_warn_...``).
"""

from __future__ import annotations

import copy
import sys
import warnings

import numpy as np
import pytest
import torch
import torch.storage as torch_storage
from oracle import DTYPES, LAYOUTS, make_pair

import vizgrad as vg
from vizgrad import typed_storage as vg_storage
from vizgrad.typename import typename

HERE = __file__


@pytest.fixture(autouse=True)
def _quiet_and_fresh():
    """Each test starts as a fresh process would (nobody has warned yet), and the
    deprecation warning, tested on its own below, does not clutter the others."""
    torch_storage._reset_warn_typed_storage_removal()
    vg_storage._reset_warn_typed_storage_removal()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="TypedStorage is deprecated")
        yield
    torch_storage._set_always_warn_typed_storage_removal(False)
    vg_storage._set_always_warn_typed_storage_removal(False)
    torch_storage._reset_warn_typed_storage_removal()
    vg_storage._reset_warn_typed_storage_removal()


def vizgrad_words(message: str) -> str:
    """PyTorch's message with vizgrad's names for its classes and module."""
    return (
        message.replace("torch.storage.TypedStorage", "vizgrad.typed_storage.TypedStorage")
        .replace("torch.storage.UntypedStorage", "vizgrad.storage.Storage")
        .replace("torch.Storage", "vizgrad.Storage")
        .replace("torch.Tensor", "vizgrad.Tensor")
        .replace("torch.", "vizgrad.")
        .replace("module 'torch'", "module 'vizgrad'")
    )


def same_error(vg_call, torch_call):
    """Both raise, the same builtin exception class, and the same message in vizgrad's words."""
    with pytest.raises(Exception) as t_info:  # noqa: PT011 - whatever torch raises
        torch_call()
    with pytest.raises(Exception) as v_info:  # noqa: PT011
        vg_call()
    t_class = t_info.type
    while t_class.__module__ != "builtins":
        t_class = t_class.__mro__[1]
    assert isinstance(v_info.value, t_class), f"{v_info.type.__name__}: {v_info.value}"
    # KeyError's str() quotes; compare the argument.
    assert str(v_info.value.args[0]) == vizgrad_words(str(t_info.value.args[0]))


def pair(values, dtype: str):
    data = np.array(values, dtype=dtype)
    return vg.from_numpy(data.copy()), torch.from_numpy(data.copy())


def same_elements(v_list, t_list):
    assert len(v_list) == len(t_list)
    for a, b in zip(v_list, t_list, strict=True):
        assert type(a) is type(b), (a, b)
        assert a == b or (a != a and b != b), (a, b)  # NaN equals NaN here


# --- the same bytes -----------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex128", "float16"])
def test_storage_is_the_whole_storage_read_as_the_dtype(layout, dtype):
    v, t = make_pair((2, 3), dtype, layout)
    vs, ts = v.storage(), t.storage()
    assert type(vs) is vg.TypedStorage
    assert vs.dtype.name == str(ts.dtype).split(".")[-1]
    assert str(vs.device) == str(ts.device) == "cpu"
    assert (len(vs), vs.size(), vs.nbytes(), vs.element_size()) == (
        len(ts), ts.size(), ts.nbytes(), ts.element_size()
    )  # fmt: skip
    same_elements(vs.tolist(), ts.tolist())
    same_elements(list(vs), list(ts))
    assert vs.data_ptr() == v.untyped_storage().data_ptr()
    assert vs.untyped() is v.untyped_storage()
    assert vs._untyped_storage is v.untyped_storage()


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "offset"])
def test_writes_through_the_storage_are_the_tensors(layout):
    v, t = make_pair((2, 3), "float32", layout)
    vs, ts = v.storage(), t.storage()
    for s in (vs, ts):
        s[0] = 10.5
        s[-1] = -2
        s[1:3] = 7
    np.testing.assert_array_equal(v.numpy(), t.numpy())
    same_elements(vs.tolist(), ts.tolist())
    # …and the tensor's writes are the storage's.
    v.mul_(2)
    t.mul_(2)
    same_elements(vs.tolist(), ts.tolist())
    # A view's storage is its base's: the same bytes, seen through both.
    assert v.t().storage().data_ptr() == vs.data_ptr()
    v.t().storage()[0] = 99
    assert vs[0] == 99.0


def test_views_of_other_dtypes_read_the_same_bytes_as_their_own_dtype():
    v, t = pair([1, 2, 3], "int32")
    vs, ts = v.view(vg.float32).storage(), t.view(torch.float32).storage()
    assert vs.dtype is vg.float32
    same_elements(vs.tolist(), ts.tolist())
    # Complex as pairs of reals: twice the elements over the same memory.
    vz, tz = pair([1 + 2j, 3 - 4j], "complex64")
    same_elements(vg.view_as_real(vz).storage().tolist(), torch.view_as_real(tz).storage().tolist())
    # Trailing bytes that make no whole element are not counted.
    vb, tb = pair([1, 2, 3], "uint8")
    vs16 = vg.TypedStorage(wrap_storage=vb.untyped_storage(), dtype=vg.int16, _internal=True)
    ts16 = torch.TypedStorage(wrap_storage=tb.untyped_storage(), dtype=torch.int16, _internal=True)
    assert (vs16.size(), vs16.nbytes()) == (ts16.size(), ts16.nbytes()) == (1, 3)
    same_elements(vs16.tolist(), ts16.tolist())


@pytest.mark.parametrize("make", [lambda m: m.tensor(5.0), lambda m: m.tensor([]),
                                  lambda m: m.zeros(0, 3), lambda m: m.ones(2, 0, dtype=m.int32)])  # fmt: skip
def test_zero_dim_and_empty(make):
    vs, ts = make(vg).storage(), make(torch).storage()
    assert (vs.size(), vs.nbytes()) == (ts.size(), ts.nbytes())
    same_elements(vs.tolist(), ts.tolist())
    assert repr(vs) == vizgrad_words(repr(ts))


def test_expanded_tensor_storage_is_its_unexpanded_memory():
    vs, ts = (
        vg.tensor([1.0, 2.0]).expand(3, 2).storage(),
        torch.tensor([1.0, 2.0]).expand(3, 2).storage(),
    )
    assert vs.size() == ts.size() == 2


# --- printing -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        ([1.0, 2.0], "float32"),
        ([0.1, 1e10, float("nan"), -0.0, float("inf")], "float32"),
        ([0.1, -3.5], "float64"),
        ([0.1, 65504], "float16"),
        ([True, False], "bool"),
        ([1 + 2j, -0.5j], "complex64"),
        ([1, -7], "int8"),
        ([255, 0], "uint8"),
        ([2**40, -1], "int64"),
    ],
)
def test_repr_and_str_as_pytorch(values, dtype):
    v, t = pair(values, dtype)
    assert repr(v.storage()) == vizgrad_words(repr(t.storage()))
    assert str(v.storage()) == vizgrad_words(str(t.storage()))


def test_repr_names():
    s = vg.tensor([1.0, 2.0]).storage()
    assert repr(s) == " 1.0\n 2.0\n[vizgrad.typed_storage.TypedStorage(dtype=vizgrad.float32, device=cpu) of size 2]"  # fmt: skip
    assert typename(s) == "vizgrad.typed_storage.TypedStorage"
    assert typename(vg.FloatStorage) == "vizgrad.FloatStorage" == vizgrad_words(torch.typename(torch.FloatStorage))  # fmt: skip


# --- elements -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "index",
    [0, 2, -1, -3, 3, -4, 2**70, slice(0, 2), 1.0, True, None, np.int64(1), "a"],
    ids=repr,
)
def test_getitem(index):
    v, t = pair([1.5, 2.5, 3.5], "float32")
    try:
        expected = t.storage()[index]
    except Exception:  # noqa: BLE001 - then vizgrad must raise alike
        same_error(lambda: v.storage()[index], lambda: t.storage()[index])
    else:
        same_elements([v.storage()[index]], [expected])


def test_getitem_with_a_tensor_index_is_refused():
    same_error(lambda: vg.tensor([1, 2]).storage()[vg.tensor(0)],
               lambda: torch.tensor([1, 2]).storage()[torch.tensor(0)])  # fmt: skip


@pytest.mark.parametrize(
    ("index", "value"),
    [
        (0, 9),
        (-1, 2.7),
        (slice(None), 4),
        (slice(0, 3, 2), -1),
        (slice(1, None), 5.5),
        (True, 3),
        (-4, 5),
        (5, 1),
        (1.0, 1),
        (None, 1),
        ((0,), 1),
        ([0, 1], 1),
        (np.int64(1), 1),
        (0, "a"),
        (slice(0, 2), [7, 8]),
    ],
    ids=repr,
)
def test_setitem(index, value):
    v, t = pair([1, 2, 3], "int64")
    try:
        t.storage()[index] = value
    except Exception:  # noqa: BLE001

        def vg_set():
            v.storage()[index] = value

        def torch_set():
            t.storage()[index] = value

        same_error(vg_set, torch_set)
    else:
        v.storage()[index] = value
        np.testing.assert_array_equal(v.numpy(), t.numpy())


def test_setitem_with_a_tensor_value_and_a_storage_value():
    v, t = pair([1.0, 2.0, 3.0], "float32")
    v.storage()[0:2] = vg.tensor([4.0, 5.0])
    t.storage()[0:2] = torch.tensor([4.0, 5.0])
    v.storage()[2] = vg.tensor(9)
    t.storage()[2] = torch.tensor(9)
    np.testing.assert_array_equal(v.numpy(), t.numpy())

    def vg_set():
        v.storage()[0] = v.storage()

    def torch_set():
        t.storage()[0] = t.storage()

    same_error(vg_set, torch_set)
    with pytest.raises(RuntimeError):  # shapes that do not broadcast (messages differ: see report)
        v.storage()[0:2] = vg.tensor([1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    ("values", "dtype", "fill"),
    [
        ([1, 2, 3], "int64", 2.5),
        ([True], "bool", 2.5),
        ([1, 2, 3], "uint8", -1),
        ([1, 2, 3], "uint8", 300),
        ([1.0], "float32", 1j),
        ([], "float32", 2),
        ([1.0, 2.0], "float64", float("nan")),
    ],
    ids=repr,
)
def test_fill_(values, dtype, fill):
    v, t = pair(values, dtype)
    try:
        returned = t.storage().fill_(fill)
    except Exception:  # noqa: BLE001
        same_error(lambda: v.storage().fill_(fill), lambda: t.storage().fill_(fill))
        return
    vs = v.storage()
    assert vs.fill_(fill) is vs
    np.testing.assert_array_equal(v.numpy(), t.numpy())
    same_elements(vs.tolist(), returned.tolist())


def test_fill_with_a_tensor():
    v, t = pair([1.0], "float32")
    v.storage().fill_(vg.tensor(3.0))
    t.storage().fill_(torch.tensor(3.0))
    np.testing.assert_array_equal(v.numpy(), t.numpy())
    with pytest.raises(RuntimeError):  # (vizgrad's ``x[:] = y`` words it otherwise: see report)
        v.storage().fill_(vg.tensor([1.0, 2.0]))


# --- copies -------------------------------------------------------------------------


def test_copy_copies_bytes_not_values():
    v, t = pair([1.0, 2.0, 3.0], "float32")
    vi, ti = pair([5, 6, 7], "int32")
    assert v.storage().copy_(vi.storage()).dtype is vg.float32
    t.storage().copy_(ti.storage())
    np.testing.assert_array_equal(v.numpy(), t.numpy())  # the ints' bit patterns
    v.storage().copy_(vg.tensor([5.0, 6.0, 7.0]).untyped_storage())
    t.storage().copy_(torch.tensor([5.0, 6.0, 7.0]).untyped_storage())
    np.testing.assert_array_equal(v.numpy(), t.numpy())


@pytest.mark.parametrize("source", ["shorter", "longer", "tensor"])
def test_copy_errors(source):
    def make(m):
        if source == "tensor":
            return m.tensor([1.0, 2.0, 3.0])
        return m.tensor([1.0, 2.0] if source == "shorter" else [1.0, 2.0, 3.0, 4.0]).storage()

    same_error(lambda: vg.tensor([1.0, 2.0, 3.0]).storage().copy_(make(vg)),
               lambda: torch.tensor([1.0, 2.0, 3.0]).storage().copy_(make(torch)))  # fmt: skip


@pytest.mark.parametrize("how", ["clone", "copy", "deepcopy"])
def test_clones_are_new_memory(how):
    v, t = pair([1.5, 2.5], "float32")
    vs, ts = v.storage(), t.storage()
    make = {"clone": lambda s: s.clone(), "copy": copy.copy, "deepcopy": copy.deepcopy}[how]
    vc, tc = make(vs), make(ts)
    assert type(vc) is vg.TypedStorage and vc.dtype is vg.float32
    assert (vc.data_ptr() == vs.data_ptr()) == (tc.data_ptr() == ts.data_ptr()) is False
    vc[0], tc[0] = 100, 100
    same_elements(vs.tolist(), ts.tolist())
    same_elements(vc.tolist(), tc.tolist())


def test_deepcopy_keeps_two_wrappers_of_one_storage_sharing():
    x = vg.tensor([1.0, 2.0])
    a, b = copy.deepcopy([x.storage(), x.view(vg.int32).storage()])
    assert a.data_ptr() == b.data_ptr() != x.data_ptr()


def test_cpu_and_to_wrap_the_same_bytes():
    v, t = pair([1.0], "float32")
    for vs2, ts2 in [(v.storage().cpu(), t.storage().cpu()),
                     (v.storage().to(device="cpu"), t.storage().to(device="cpu"))]:  # fmt: skip
        assert (vs2.data_ptr() == v.data_ptr()) and (ts2.data_ptr() == t.data_ptr())
        assert vs2 is not v.storage() and type(vs2) is vg.TypedStorage
    same_error(
        lambda: vg.TypedStorage(2, device="cuda"), lambda: torch.TypedStorage(2, device="cuda")
    )


CONVERSIONS = ["double", "float", "half", "long", "int", "short", "char", "byte", "bool",
               "complex_double", "complex_float"]  # fmt: skip


@pytest.mark.parametrize("method", CONVERSIONS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64", "bool"])
def test_conversions(method, dtype):
    values = {"bool": [True, False, True]}.get(dtype, [1.5, -2.0, 0.0])
    if dtype == "int64":
        values = [3, -2, 0]
    if dtype == "complex64":
        values = [1 + 2j, -2.5j, 3]
    v, t = pair(values, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex to real discards the imaginary part
        vc, tc = getattr(v.storage(), method)(), getattr(t.storage(), method)()
    assert type(vc) is vg.TypedStorage
    assert vc.dtype.name == str(tc.dtype).split(".")[-1]
    same_elements(vc.tolist(), tc.tolist())
    # Always new memory, even to its own dtype.
    assert vc.data_ptr() != v.data_ptr()
    vc[0] = 0
    np.testing.assert_array_equal(v.numpy(), t.numpy())


def test_to_needs_a_dtype():
    same_error(lambda: vg.tensor([1.0]).storage()._to("float"),
               lambda: torch.tensor([1.0]).storage()._to("float"))  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES)
def test_type_names_the_legacy_class(dtype):
    vs = vg.zeros(1, dtype=getattr(vg, dtype)).storage()
    ts = torch.zeros(1, dtype=getattr(torch, dtype)).storage()
    assert vs.type() == vizgrad_words(ts.type())
    assert vs.pickle_storage_type() == ts.pickle_storage_type()
    legacy = getattr(vg, ts.pickle_storage_type())
    assert isinstance(vs, legacy) and isinstance(ts, getattr(torch, ts.pickle_storage_type()))
    assert not isinstance(vs, vg.FloatStorage if dtype != "float32" else vg.DoubleStorage)


@pytest.mark.parametrize(
    ("dtype", "target"),
    [
        ("float32", "UntypedStorage"),
        ("uint8", "ByteStorage"),
        ("uint8", "CharStorage"),
        ("float32", "ByteStorage"),
        ("float32", "FloatStorage"),
        ("float32", "DoubleStorage"),
        ("uint8", "Nope"),
        ("uint8", 3),
    ],
    ids=repr,
)
def test_type_with_a_target(dtype, target):
    def call(m):
        s = m.tensor([1, 2], dtype=getattr(m, dtype)).storage()
        return s.type(f"{m.__name__}.{target}" if isinstance(target, str) else target)

    try:
        expected = call(torch)
    except Exception:  # noqa: BLE001
        same_error(lambda: call(vg), lambda: call(torch))
        return
    got = call(vg)
    if isinstance(expected, torch.UntypedStorage):
        assert got is not None and isinstance(got, vg.UntypedStorage)
        assert got.nbytes() == expected.nbytes()
        return
    assert got.dtype.name == str(expected.dtype).split(".")[-1]
    same_elements(got.tolist(), expected.tolist())


# --- what it is ---------------------------------------------------------------------


def test_queries():
    vs, ts = vg.tensor([1.0, 2.0]).storage(), torch.tensor([1.0, 2.0]).storage()
    for name in ["is_shared", "resizable", "get_device", "is_pinned"]:
        assert getattr(vs, name)() == getattr(ts, name)(), name
    for name in ["is_cuda", "is_hpu", "is_sparse", "filename"]:
        assert getattr(vs, name) == getattr(ts, name), name
    assert vg.is_storage(vs) and torch.is_storage(ts)
    assert vg.is_storage(vs.untyped())
    assert not vg.is_storage(vg.tensor([1.0]))
    assert sys.getsizeof(vs) - sys.getsizeof(vg.tensor([]).storage()) == 8  # + its bytes


def test_no_equality_of_its_own():
    """PyTorch defines no ``==``: two wrappers of one storage are different objects."""
    x, tx = vg.tensor([1.0]), torch.tensor([1.0])
    assert (x.storage() == x.storage()) is (tx.storage() == tx.storage()) is False
    s, ts = x.storage(), tx.storage()
    assert (s == s) is (ts == ts) is True
    assert (s != x.storage()) is (ts != tx.storage()) is True
    assert hash(s) == hash(s)


def test_resize_grows_the_bytes_every_tensor_reads():
    v, t = vg.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])
    assert v.storage().resize_(4) is None and t.storage().resize_(4) is None
    assert v.untyped_storage().nbytes() == t.untyped_storage().nbytes() == 16
    assert v.storage().size() == 4
    np.testing.assert_array_equal(v.numpy(), t.numpy())  # the tensor keeps its elements
    v.storage()[3] = 5
    assert v.storage()[3] == 5.0
    with pytest.raises(RuntimeError, match="cannot shrink"):
        v.storage().resize_(1)
    # Memory borrowed from NumPy cannot grow.
    v, t = pair([1.0, 2.0], "float32")
    same_error(lambda: v.storage().resize_(8), lambda: t.storage().resize_(8))


# --- constructors -------------------------------------------------------------------


def _ctor_cases(m):
    x = m.tensor([1.0, 2.0, 3.0])
    return {
        "none": lambda: m.TypedStorage(),
        "size": lambda: m.TypedStorage(3),
        "size-int32": lambda: m.TypedStorage(2, dtype=m.int32, device="cpu"),
        "data": lambda: m.TypedStorage([1, 2], dtype=m.int64),
        "tuple": lambda: m.TypedStorage((1.5, 2)),
        "wrap": lambda: m.TypedStorage(wrap_storage=x.untyped_storage(), dtype=m.int32),
        "two-args": lambda: m.TypedStorage(1, 2),
        "float-arg": lambda: m.TypedStorage(1.5),
        "str-arg": lambda: m.TypedStorage("ab"),
        "dtype-str": lambda: m.TypedStorage(2, dtype="float"),
        "wrap-no-dtype": lambda: m.TypedStorage(wrap_storage=x.untyped_storage()),
        "wrap-dtype-str": lambda: m.TypedStorage(wrap_storage=x.untyped_storage(), dtype="float"),
        "wrap-typed": lambda: m.TypedStorage(wrap_storage=x.storage(), dtype=m.float32),
        "wrap-and-args": lambda: m.TypedStorage(
            1, wrap_storage=x.untyped_storage(), dtype=m.float32
        ),
        "wrap-and-device": lambda: m.TypedStorage(
            wrap_storage=x.untyped_storage(), dtype=m.float32, device="cpu"
        ),  # fmt: skip
        "legacy-data": lambda: m.FloatStorage([1, 2]),
        "legacy-size": lambda: m.IntStorage(2),
        "legacy-none": lambda: m.BoolStorage(),
        "legacy-wrap": lambda: m.FloatStorage(wrap_storage=x.untyped_storage()),
        "legacy-two-args": lambda: m.FloatStorage(1, 2),
        "legacy-float-arg": lambda: m.FloatStorage(1.5),
        "legacy-dtype": lambda: m.FloatStorage(dtype=m.float32),
        "legacy-device": lambda: m.FloatStorage(device="cpu"),
        "legacy-wrap-typed": lambda: m.FloatStorage(wrap_storage=x.storage()),
        "legacy-wrap-and-args": lambda: m.FloatStorage(1, wrap_storage=x.untyped_storage()),
        "legacy-base": lambda: (
            m.typed_storage._LegacyStorage() if m is vg else torch_storage._LegacyStorage()
        ),  # fmt: skip
    }


@pytest.mark.parametrize("case", list(_ctor_cases(torch)))
def test_constructors(case):
    t_call, v_call = _ctor_cases(torch)[case], _ctor_cases(vg)[case]
    try:
        expected = t_call()
    except Exception:  # noqa: BLE001
        same_error(v_call, t_call)
        return
    got = v_call()
    assert type(got) is vg.TypedStorage  # even from a legacy class, as in PyTorch
    assert got.dtype.name == str(expected.dtype).split(".")[-1]
    assert got.size() == expected.size()
    if case not in ("size", "size-int32", "legacy-size"):  # uninitialised memory
        same_elements(got.tolist(), expected.tolist())


def test_the_legacy_classes():
    assert vg.FloatStorage.dtype is vg.float32 and vg.ComplexDoubleStorage.dtype is vg.complex128
    assert repr(vg.FloatStorage) == vizgrad_words(repr(torch.FloatStorage))
    assert issubclass(vg.FloatStorage, vg.TypedStorage)
    assert not isinstance(vg.tensor([1.0]).untyped_storage(), vg.FloatStorage)
    assert vg.UntypedStorage is vg.Storage


# --- the deprecation warning --------------------------------------------------------


def _deprecations(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if "TypedStorage is deprecated" in str(w.message)]


def test_the_warning_once_per_process_at_the_users_line():
    v, t = vg.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])
    v_first = _deprecations(lambda: v.storage())
    t_first = _deprecations(lambda: t.storage())
    assert len(v_first) == len(t_first) == 1
    assert str(v_first[0].message) == str(t_first[0].message)
    assert v_first[0].category is t_first[0].category is UserWarning
    assert v_first[0].filename == t_first[0].filename == HERE
    assert v_first[0].lineno == t_first[0].lineno - 1
    # Already warned: no more, whatever is used.
    assert _deprecations(lambda: (v.storage(), v.storage().tolist(), repr(v.storage()))) == []
    # Reset, as a new process: warns again, at the line that used the storage's method.
    vg_storage._reset_warn_typed_storage_removal()
    s = vg_storage.typed_storage(v)  # Tensor._typed_storage in PyTorch: no warning
    again = _deprecations(lambda: s.size())
    assert len(again) == 1 and again[0].filename == HERE


@pytest.mark.parametrize(
    "use",
    [
        "storage",
        "len",
        "size",
        "tolist",
        "repr",
        "getitem",
        "setitem",
        "fill_",
        "clone",
        "float",
        "copy_",
        "type",
        "untyped",
        "dtype",
        "internal",
        "legacy",
        "iter",
        "device",
    ],
)
def test_the_warning_counts_when_always_on(use):
    """With ``_set_always_warn_typed_storage_removal(True)`` each public call warns, and
    calls that make others (``repr`` reads each element) warn for each, as in PyTorch."""
    calls = {
        "storage": lambda m, x, s: x.storage(),
        "len": lambda m, x, s: len(s),
        "size": lambda m, x, s: s.size(),
        "tolist": lambda m, x, s: s.tolist(),
        "repr": lambda m, x, s: repr(s),
        "getitem": lambda m, x, s: s[1],
        "setitem": lambda m, x, s: s.__setitem__(0, 3),
        "fill_": lambda m, x, s: s.fill_(1),
        "clone": lambda m, x, s: s.clone(),
        "float": lambda m, x, s: s.float(),
        "copy_": lambda m, x, s: s.copy_(s),
        "type": lambda m, x, s: s.type(),
        "untyped": lambda m, x, s: s.untyped(),
        "dtype": lambda m, x, s: s.dtype,
        "internal": lambda m, x, s: s._size(),
        "legacy": lambda m, x, s: m.FloatStorage([1.0]),
        "iter": lambda m, x, s: list(s),
        "device": lambda m, x, s: s.device,
    }
    counts = []
    for m, module in [(torch, torch_storage), (vg, vg_storage)]:
        x = m.tensor([1.0, 2.0, 3.0])
        s = x.storage()
        module._set_always_warn_typed_storage_removal(True)
        counts.append(len(_deprecations(lambda m=m, x=x, s=s: calls[use](m, x, s))))
    assert counts[1] == counts[0]


def test_always_warn_takes_a_bool():
    same_error(lambda: vg_storage._set_always_warn_typed_storage_removal(1),
               lambda: torch_storage._set_always_warn_typed_storage_removal(1))  # fmt: skip


def test_a_conjugate_views_storage_is_the_bytes_unconjugated():
    v, t = pair([1 + 2j, 3 - 4j], "complex64")
    same_elements(v.conj().storage().tolist(), t.conj().storage().tolist())
    same_elements(v.conj().imag.storage().tolist(), t.conj().imag.storage().tolist())

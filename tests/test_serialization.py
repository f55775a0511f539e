"""vizgrad.save / vizgrad.load against torch.save / torch.load(weights_only=True).

Three kinds of checks:

* the file: ``vizgrad.save`` of vizgrad tensors writes, byte for byte, the file
  ``torch.save`` writes for the same torch tensors (zip layout, pickle, serialization id);
* round trips both ways: what one library saves the other loads with the same keys,
  dtypes, shapes, strides, offsets, values and storage sharing;
* refusals: crafted files (code in a ``__reduce__``, unknown globals, damaged archives,
  pickle bombs) raise a clear error, the class PyTorch raises, and run nothing.
"""

from __future__ import annotations

import io
import os
import pickle
import struct
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest
import torch
from oracle import DTYPES, LAYOUTS, assert_same_error, make_pair

import vizgrad as vg

# --- converting objects between the libraries, storages shared as they were ----------


def vg_like(obj, _seen=None):
    """The vizgrad twin of a torch object: same storages (shared alike), same metadata.

    ``_seen`` remembers the tensors (by id) and storages (by address) already converted,
    so one tensor twice stays one tensor, and views stay views of one storage (known
    by ``_cdata``, as torch.save knows it: empty storages all have address 0).
    """
    seen = ({}, {}) if _seen is None else _seen
    if not isinstance(obj, torch.Tensor):
        return _map_container(obj, lambda o: vg_like(o, seen), _scalar_to_vg)
    tensors, storages = seen
    if id(obj) not in tensors:
        pointer = obj.untyped_storage()._cdata
        if pointer not in storages:
            raw = bytes(obj.untyped_storage())
            storages[pointer] = vg.from_numpy(
                np.frombuffer(raw, dtype=obj.numpy(force=True).dtype).copy()
            )
        plain = storages[pointer].as_strided(obj.shape, obj.stride(), obj.storage_offset())
        plain = plain.detach()
        if isinstance(obj, torch.nn.Parameter):
            tensors[id(obj)] = vg.nn.Parameter(plain, obj.requires_grad)
        else:
            tensors[id(obj)] = plain.requires_grad_(obj.requires_grad)
    return tensors[id(obj)]


def torch_like(obj, _seen=None):
    """The torch twin of a vizgrad object."""
    seen = ({}, {}) if _seen is None else _seen
    if not isinstance(obj, vg.Tensor):
        return _map_container(obj, lambda o: torch_like(o, seen), _scalar_to_torch)
    tensors, storages = seen
    if id(obj) not in tensors:
        storage = obj.untyped_storage()
        if id(storage) not in storages:
            storages[id(storage)] = (storage, torch.from_numpy(storage.data.copy()))
        base = storages[id(storage)][1]
        plain = base.as_strided(tuple(obj.shape), obj.stride(), obj.storage_offset()).detach()
        if isinstance(obj, vg.nn.Parameter):
            tensors[id(obj)] = torch.nn.Parameter(plain, obj.requires_grad)
        else:
            tensors[id(obj)] = plain.requires_grad_(obj.requires_grad)
    return tensors[id(obj)]


def _map_container(obj, convert, scalar):
    if isinstance(obj, OrderedDict):
        result = OrderedDict((convert(k), convert(v)) for k, v in obj.items())
        if hasattr(obj, "_metadata"):
            result._metadata = convert(obj._metadata)
        return result
    if type(obj) is dict:
        return {convert(k): convert(v) for k, v in obj.items()}
    if type(obj) in (list, tuple):
        return type(obj)(convert(v) for v in obj)
    return scalar(obj)


def _scalar_to_vg(obj):
    if isinstance(obj, torch.dtype):
        return getattr(vg, str(obj).split(".")[1])
    if isinstance(obj, torch.Size):
        return vg.Size(obj)
    if isinstance(obj, torch.device):
        return vg.device(str(obj))
    return obj


def _scalar_to_torch(obj):
    if isinstance(obj, vg.dtype):
        return getattr(torch, obj.name)
    if isinstance(obj, vg.Size):
        return torch.Size(obj)
    if isinstance(obj, vg.device):
        return torch.device(str(obj))
    return obj


def assert_same_checkpoint(v, t, _shared=None):
    """``v`` (loaded by vizgrad) and ``t`` (torch) hold the same values, the same way.

    Tensors: class, dtype, shape, strides, offset, values, requires_grad; and the same
    pattern of storage sharing (the n-th distinct storage of one is the n-th of the other).
    """
    shared = ({}, {}) if _shared is None else _shared
    if isinstance(t, torch.Tensor):
        assert isinstance(v, vg.Tensor), f"expected a tensor, got {type(v).__name__}"
        assert isinstance(v, vg.nn.Parameter) == isinstance(t, torch.nn.Parameter)
        assert v.dtype.name == str(t.dtype).split(".")[1]
        assert tuple(v.shape) == tuple(t.shape)
        assert v.stride() == t.stride()
        assert v.storage_offset() == t.storage_offset()
        assert v.requires_grad == t.requires_grad
        np.testing.assert_array_equal(v.detach().numpy(), t.detach().numpy())
        v_index = shared[0].setdefault(id(v.untyped_storage()), len(shared[0]))
        t_index = shared[1].setdefault(t.untyped_storage().data_ptr(), len(shared[1]))
        assert v_index == t_index, "the storages are shared differently"
        return
    if isinstance(t, torch.dtype):
        assert isinstance(v, vg.dtype) and v.name == str(t).split(".")[1]
        return
    if isinstance(t, torch.Size):
        assert type(v) is vg.Size and tuple(v) == tuple(t)
        return
    if isinstance(t, torch.device):
        assert isinstance(v, vg.device) and str(v) == str(t)
        return
    assert type(v) is type(t), f"{type(v).__name__} != {type(t).__name__}"
    if isinstance(t, dict):
        assert list(v.keys()) == list(t.keys())
        for key in t:
            assert_same_checkpoint(v[key], t[key], shared)
        assert hasattr(v, "_metadata") == hasattr(t, "_metadata")
        if hasattr(t, "_metadata"):
            assert v._metadata == t._metadata
    elif isinstance(t, list | tuple):
        assert len(v) == len(t)
        for vi, ti in zip(v, t, strict=True):
            assert_same_checkpoint(vi, ti, shared)
    else:
        assert v == t


def vg_bytes(obj) -> bytes:
    buffer = io.BytesIO()
    vg.save(obj, buffer)
    return buffer.getvalue()


def torch_bytes(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def torch_load(data: bytes):
    return torch.load(io.BytesIO(data), weights_only=True)


def vg_load(data: bytes, **kwargs):
    return vg.load(io.BytesIO(data), **kwargs)


# --- objects to save ------------------------------------------------------------------


def torch_state_dict():
    """A real state dict: parameters, BatchNorm's buffers (an int64 0-dim counter)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3), torch.nn.Conv2d(2, 2, 3)
    )
    model[1](torch.randn(5, 3))  # training mode: running statistics and the counter move
    return model, model.state_dict()


def torch_optimizer_state():
    model, _ = torch_state_dict()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.8, 0.99))
    model[0](torch.randn(2, 4)).sum().backward()
    optimizer.step()
    return optimizer.state_dict()


def torch_views():
    base = torch.arange(24.0).reshape(4, 6)
    return {
        "base": base,
        "row": base[1],
        "column": base[:, 2],
        "transposed": base.t(),
        "stepped": base[::2, 1::3],
        "offset": base.view(-1)[5:9],
        "expanded": torch.ones(3).expand(4, 3),
        "zero_dim": torch.tensor(2.5),
        "empty": torch.empty(0, 3),
        "empty_view": base[:, 6:],
        "same_twice": [base, base],
    }


def torch_plain_values():
    return {
        "epoch": 3,
        "big": 2**40,
        "negative": -7,
        "loss": 0.125,
        "huge": 1e300,
        "ok": True,
        "nothing": None,
        "name": "run-é",
        "pair": (1, 2.0),
        "nested": {"a": [1, [2, [3]]], "b": ()},
        "set": {1, 2},
        "complex": 1 + 2j,
        "bytes": b"\x00\xffab",
        "no_bytes": b"",
        "bytearray": bytearray(b"xy"),
        "counter": Counter("aab"),
        "dtypes": [torch.float32, torch.int64, torch.bool, torch.complex128, torch.float16],
        "size": torch.Size([2, 3]),
        "device": torch.device("cpu"),
    }


# --- the file itself ------------------------------------------------------------------

BYTE_IDENTICAL_CASES = {
    "state_dict": lambda: torch_state_dict()[1],
    "optimizer": torch_optimizer_state,
    "checkpoint": lambda: {
        "model": torch_state_dict()[1],
        "optimizer": torch_optimizer_state(),
        "epoch": 3,
    },
    "views": torch_views,
    "parameter": lambda: torch.nn.Parameter(torch.arange(6.0).reshape(2, 3)),
    "frozen_parameter": lambda: torch.nn.Parameter(torch.ones(2), requires_grad=False),
    "requires_grad": lambda: torch.ones(2, requires_grad=True),
    "plain": lambda: {k: v for k, v in torch_plain_values().items() if k != "no_bytes"},
    "tensor": lambda: torch.arange(5),
    "vectors": lambda: [torch.ones(3), torch.arange(2.0), torch.zeros(3)],
    "empty_dict": dict,
}


@pytest.mark.parametrize("case", BYTE_IDENTICAL_CASES)
def test_save_writes_the_bytes_torch_writes(case):
    t = BYTE_IDENTICAL_CASES[case]()
    assert vg_bytes(vg_like(t)) == torch_bytes(t)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_dtype_and_layout_byte_for_byte(dtype, layout):
    v, t = make_pair((3, 4), dtype, layout)
    assert vg_bytes({"x": v, "scalar": v[0, 0]}) == torch_bytes({"x": t, "scalar": t[0, 0]})


@pytest.mark.parametrize("count", [0, 1, 8, 12, 13, 14, 29, 30, 60, 130, 300])
def test_serialization_id_as_torch_computes_it(count):
    # The record-name hash is combined in the order of a std::unordered_set, whose table
    # grows at 13, 29, 59, 127, 257 records: every size crossing a growth step is here.
    tensors = {str(i): torch.full((i % 3,), float(i)) for i in range(count)}
    data = vg_bytes(vg_like(tensors))
    assert data == torch_bytes(tensors)
    ident = zipfile.ZipFile(io.BytesIO(data)).read("archive/.data/serialization_id")
    assert len(ident) == 40 and ident.isdigit()


def test_path_names_the_archive_folder(tmp_path):
    path = tmp_path / "model.v2.pt"
    vg.save({"w": vg.ones(2)}, path)
    torch_path = tmp_path / "torch" / "model.v2.pt"
    torch_path.parent.mkdir()
    torch.save({"w": torch.ones(2)}, torch_path)
    assert path.read_bytes() == torch_path.read_bytes()
    names = zipfile.ZipFile(path).namelist()
    assert names == [
        "model.v2/data.pkl",
        "model.v2/.format_version",
        "model.v2/.storage_alignment",
        "model.v2/byteorder",
        "model.v2/data/0",
        "model.v2/version",
        "model.v2/.data/serialization_id",
    ]
    vg.save(vg.ones(1), str(path))  # a str path too
    assert zipfile.ZipFile(path).namelist()[0] == "model.v2/data.pkl"


def test_records_are_stored_and_64_byte_aligned():
    data = vg_bytes(vg_like(torch_views()))
    archive = zipfile.ZipFile(io.BytesIO(data))
    for info in archive.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        name_length, extra_length = struct.unpack_from("<HH", data, info.header_offset + 26)
        start = info.header_offset + 30 + name_length + extra_length
        assert start % 64 == 0, info.filename
        assert data[start : start + info.file_size] == archive.read(info)
    assert archive.read("archive/byteorder") == b"little"
    assert archive.read("archive/version") == b"3\n"
    assert archive.read("archive/.format_version") == b"1"
    assert archive.read("archive/.storage_alignment") == b"64"
    # One record per storage: the base and its views share "0"; expanded, 0-dim, empty
    # tensors have their own.
    assert sorted(n for n in archive.namelist() if "/data/" in n) == [
        f"archive/data/{i}" for i in range(4)
    ]


def test_save_to_a_file_object_appends_at_its_position(tmp_path):
    with open(tmp_path / "f.bin", "wb") as f:
        f.write(b"head")
        vg.save(vg.ones(2), f)
    assert (tmp_path / "f.bin").read_bytes()[4:] == torch_bytes(torch.ones(2))


def test_save_refuses_what_a_weights_only_load_cannot_read():
    class Model(vg.nn.Module):
        pass

    with pytest.raises(pickle.PicklingError, match="cannot write a .*Model.*state_dict"):
        vg_bytes({"model": Model()})
    with pytest.raises(pickle.PicklingError, match="cannot write a builtins.function"):
        vg_bytes([lambda: 0])
    with pytest.raises(pickle.PicklingError, match="frozenset"):
        vg_bytes(frozenset([1]))


def test_save_errors_for_f():
    with pytest.raises(AttributeError, match="file-like object with a 'write' attribute"):
        vg.save(vg.ones(1), 3)
    with pytest.raises(AttributeError, match="file-like object with a 'write' attribute"):
        torch.save(torch.ones(1), 3)
    with pytest.raises(RuntimeError, match="Parent directory /no/such/dir does not exist"):
        vg.save(vg.ones(1), "/no/such/dir/x.pt")


# --- vizgrad -> torch ------------------------------------------------------------------


class Net(vg.nn.Module):
    """A module of parameters and buffers, as nn.Linear + BatchNorm keep them."""

    def __init__(self):
        super().__init__()
        self.weight = vg.nn.Parameter(vg.arange(6.0).reshape(2, 3))
        self.bias = vg.nn.Parameter(vg.zeros(2))
        self.register_buffer("running_mean", vg.ones(2))
        self.register_buffer("num_batches_tracked", vg.tensor(0))


def test_torch_loads_a_vizgrad_module_state_dict():
    state = Net().state_dict()
    loaded = torch_load(vg_bytes(state))
    assert type(loaded) is OrderedDict
    assert list(loaded) == ["weight", "bias", "running_mean", "num_batches_tracked"]
    assert loaded._metadata == OrderedDict({"": {"version": 1}}) == state._metadata
    assert_same_checkpoint(state, loaded)
    assert loaded["num_batches_tracked"].dtype == torch.int64 and loaded["weight"].stride() == (
        3,
        1,
    )


def test_torch_loads_a_checkpoint_dict_with_shared_storages():
    v = vg_like({"model": torch_state_dict()[1], "optimizer": torch_optimizer_state(), "epoch": 3})
    v["views"] = vg_like(torch_views())
    loaded = torch_load(vg_bytes(v))
    assert_same_checkpoint(v, loaded)
    views = loaded["views"]
    pointer = views["base"].untyped_storage().data_ptr()
    for name in ("row", "column", "transposed", "stepped", "offset", "empty_view"):
        assert views[name].untyped_storage().data_ptr() == pointer, name
    assert views["same_twice"][0] is views["same_twice"][1] is views["base"]
    assert loaded["epoch"] == 3
    state = loaded["optimizer"]["state"][0]
    assert state["step"].dim() == 0 and state["step"].dtype == torch.float32
    assert loaded["optimizer"]["param_groups"][0]["betas"] == (0.8, 0.99)


def test_torch_loads_plain_values():
    values = vg_like(torch_plain_values())
    loaded = torch_load(vg_bytes(values))
    assert_same_checkpoint(values, loaded)
    assert loaded["no_bytes"] == b""


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_loads_every_dtype(dtype):
    v, _ = make_pair((2, 3), dtype, "stepped")
    loaded = torch_load(vg_bytes({"t": v, "z": v[1, 2]}))
    assert_same_checkpoint({"t": v, "z": v[1, 2]}, loaded)


def test_torch_loads_a_vizgrad_parameter():
    p = vg.nn.Parameter(vg.ones(2, 2).t())
    loaded = torch_load(vg_bytes([p, p]))
    assert type(loaded[0]) is torch.nn.Parameter and loaded[0].requires_grad
    assert loaded[0] is loaded[1]
    assert loaded[0].stride() == (1, 2)


# --- torch -> vizgrad ------------------------------------------------------------------


@pytest.mark.parametrize("case", BYTE_IDENTICAL_CASES)
def test_load_reads_what_torch_saves(case):
    t = BYTE_IDENTICAL_CASES[case]()
    loaded = vg_load(torch_bytes(t))
    assert_same_checkpoint(loaded, t)


def test_load_reads_plain_values_and_empty_bytes():
    t = torch_plain_values()
    del t["no_bytes"]  # torch writes b"" as builtins.bytes(), which neither load allows
    assert_same_checkpoint(vg_load(torch_bytes(t)), t)
    with pytest.raises(pickle.UnpicklingError, match="builtins.bytes"):
        vg_load(torch_bytes(b""))
    assert vg_load(vg_bytes(b"")) == b""


def test_loaded_views_share_one_vizgrad_storage():
    loaded = vg_load(torch_bytes(torch_views()))
    storage = loaded["base"].untyped_storage()
    for name in ("row", "column", "transposed", "stepped", "offset", "empty_view"):
        assert loaded[name].untyped_storage() is storage, name
    loaded["row"].add_(100)  # a write through one view shows through the others
    assert loaded["base"][1, 0].item() == 106.0
    assert loaded["transposed"][0, 1].item() == 106.0
    assert loaded["same_twice"][0] is loaded["same_twice"][1] is loaded["base"]


def test_loaded_state_dict_fills_a_module():
    _, state = torch_state_dict()
    loaded = vg_load(torch_bytes({"weight": state["0.weight"], "bias": state["0.bias"]}))
    net = Net()
    del net.running_mean, net.num_batches_tracked
    net.weight = vg.nn.Parameter(vg.zeros(3, 4))
    net.bias = vg.nn.Parameter(vg.zeros(3))
    net.load_state_dict(loaded)
    np.testing.assert_array_equal(net.weight.detach().numpy(), state["0.weight"].numpy())
    assert net.weight.requires_grad and net.weight.is_leaf


def test_loaded_parameter_is_a_vizgrad_parameter():
    loaded = vg_load(torch_bytes(torch.nn.Parameter(torch.ones(2))))
    assert type(loaded) is vg.nn.Parameter and loaded.requires_grad and loaded.is_leaf
    loaded.sum().backward()
    np.testing.assert_array_equal(loaded.grad.numpy(), [1.0, 1.0])


def test_lazy_conjugate_and_negative_bits_are_kept():
    z = torch.tensor([1 + 2j, 3 - 4j])
    for lazy in (z.conj(), z.conj().imag):
        loaded = vg_load(torch_bytes(lazy))
        assert (loaded.is_conj(), loaded.is_neg()) == (lazy.is_conj(), lazy.is_neg())
        assert loaded.tolist() == lazy.tolist()


@pytest.mark.parametrize("dtype", DTYPES)
def test_vizgrad_round_trip_every_dtype(dtype):
    v, _ = make_pair((2, 3), dtype, "transposed")
    loaded = vg_load(vg_bytes({"t": v, "view": v[1]}))
    assert loaded["t"].dtype == v.dtype and loaded["t"].stride() == v.stride()
    np.testing.assert_array_equal(loaded["t"].numpy(), v.numpy())
    assert loaded["view"].untyped_storage() is loaded["t"].untyped_storage()


def test_round_trip_through_a_path(tmp_path):
    net = Net()
    vg.save({"model": net.state_dict(), "epoch": 3}, tmp_path / "ckpt.pt")
    loaded = vg.load(tmp_path / "ckpt.pt")
    assert loaded["epoch"] == 3 and loaded["model"]._metadata == net.state_dict()._metadata
    fresh = Net()
    fresh.load_state_dict(loaded["model"])
    np.testing.assert_array_equal(fresh.weight.detach().numpy(), net.weight.detach().numpy())
    assert vg.load(str(tmp_path / "ckpt.pt"))["epoch"] == 3


def test_big_endian_records_are_swapped():
    data = rewrite(
        torch_bytes({"x": torch.tensor([1.0, 2.0], dtype=torch.float64)}),
        lambda name, record: (
            b"big"
            if name.endswith("byteorder")
            else np.array([1.0, 2.0], ">f8").tobytes()
            if name.endswith("data/0")
            else record
        ),
    )
    np.testing.assert_array_equal(vg_load(data)["x"].numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(torch_load(data)["x"].numpy(), [1.0, 2.0])


def test_map_location():
    data = torch_bytes({"x": torch.ones(2)})
    for where in (None, "cpu", vg.device("cpu"), {"cpu": "cpu"}):
        assert vg_load(data, map_location=where)["x"].tolist() == [1.0, 1.0]
    seen = []
    vg_load(data, map_location=lambda storage, location: seen.append(location))
    assert seen == ["cpu"]
    with pytest.raises(RuntimeError, match="deserialize object on a CUDA device"):
        vg_load(data, map_location="cuda")
    with pytest.raises(RuntimeError, match="storage on 'mps'.*map_location='cpu'"):
        vg_load(data, map_location="mps")


def test_a_storage_saved_on_cuda_needs_map_location():
    data = rewrite(
        torch_bytes(torch.ones(2)),
        pickle_edit=lambda p: p.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0"),
    )
    assert_same_error(lambda: vg_load(data), lambda: torch_load(data))
    assert vg_load(data, map_location="cpu").tolist() == [1.0, 1.0]
    assert vg_load(data, map_location={"cuda:0": "cpu"}).tolist() == [1.0, 1.0]


def test_weights_only_false_is_refused():
    data = vg_bytes(vg.ones(1))
    with pytest.raises(RuntimeError, match="no weights_only=False.*run the file's code"):
        vg_load(data, weights_only=False)
    assert vg_load(data, weights_only=True).tolist() == [1.0]
    assert vg_load(data, weights_only=None).tolist() == [1.0]


# --- crafted files -----------------------------------------------------------------------


def checkpoint(pickle_bytes: bytes, records: dict | None = None, version=b"3\n") -> bytes:
    """A zip checkpoint around ``pickle_bytes``, as an attacker would write one."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("archive/data.pkl", pickle_bytes)
        archive.writestr("archive/byteorder", b"little")
        for name, data in (records or {}).items():
            archive.writestr(f"archive/{name}", data)
        if version is not None:
            archive.writestr("archive/version", version)
    return out.getvalue()


def rewrite(data: bytes, edit=None, pickle_edit=None) -> bytes:
    """``data``'s records, each passed through ``edit(name, bytes)`` (None drops it)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name in source.namelist():
            record = source.read(name)
            if pickle_edit is not None and name.endswith("data.pkl"):
                record = pickle_edit(record)
            if edit is not None:
                record = edit(name, record)
            if record is not None:
                archive.writestr(name, record)
    return out.getvalue()


@pytest.fixture
def sentinel(tmp_path):
    """A file the attack would create: it must still not exist after every load."""
    path = tmp_path / "PWNED"
    yield path
    assert not path.exists(), "the crafted checkpoint ran code"


class RunsCommand:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


class Evaluates:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (eval, (f"open({str(self.path)!r}, 'w')",))


def assert_both_refuse(data, vg_match, torch_error=pickle.UnpicklingError):
    """vizgrad and torch both refuse ``data``, with the same class of error."""
    with pytest.raises(torch_error):
        torch_load(data)
    with pytest.raises(torch_error, match=vg_match) as info:
        vg_load(data)
    return str(info.value)


def test_reduce_calling_os_system_runs_nothing(sentinel):
    data = torch_bytes({"weight": torch.ones(1), "x": RunsCommand(sentinel)})
    message = assert_both_refuse(data, "posix.system")
    assert message.startswith("Weights only load failed")
    assert "could run commands or code" in message and "refused before anything ran" in message


def test_reduce_calling_eval_runs_nothing(sentinel):
    data = torch_bytes([Evaluates(sentinel)])
    message = assert_both_refuse(data, r"builtins\.eval, a function that could run commands")
    assert "refused before anything ran" in message


def test_a_whole_torch_module_is_refused_by_name(sentinel):
    data = torch_bytes(torch.nn.Linear(2, 2))
    assert_both_refuse(data, r"torch\.nn\.modules\.linear\.Linear")


def test_unknown_global_is_refused(sentinel):
    data = checkpoint(b"\x80\x02ccollections\ndeque\nq\x00)R.")
    assert_both_refuse(data, r"collections\.deque")


def test_reduce_of_a_value_that_is_not_a_function(sentinel):
    # GLOBAL torch.float32 is allowed as a value; calling it is not.
    # (torch lets the call happen and fails with a TypeError.)
    data = checkpoint(b"\x80\x02ctorch\nfloat32\n)R.")
    with pytest.raises(pickle.UnpicklingError, match="call vizgrad.float32, which is not a func"):
        vg_load(data)


def test_build_on_anything_but_metadata_is_refused(sentinel):
    # An OrderedDict whose BUILD would replace its ``keys`` method.
    data = checkpoint(b"\x80\x02ccollections\nOrderedDict\n)R}X\x04\x00\x00\x00keysK\x01sb.")
    with pytest.raises(pickle.UnpicklingError, match="sets the attribute 'keys'"):
        vg_load(data)
    data = checkpoint(b"\x80\x02]}b.")
    with pytest.raises(pickle.UnpicklingError, match="sets the state of a list"):
        vg_load(data)


def test_newobj_is_refused(sentinel):
    data = checkpoint(b"\x80\x02ccollections\nOrderedDict\n)\x81.")
    with pytest.raises(pickle.UnpicklingError, match="creates an object .* directly"):
        vg_load(data)


def test_arguments_from_the_file_are_checked(sentinel):
    # bytearray(10**12) would ask for a terabyte; only bytes are accepted.
    data = checkpoint(b"\x80\x02c__builtin__\nbytearray\n\x8a\x06\x00\x10\xa5\xd4\xe8\x00\x85R.")
    with pytest.raises(pickle.UnpicklingError, match="bytearray is built from a int"):
        vg_load(data)
    data = checkpoint(b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n)R.")
    with pytest.raises(pickle.UnpicklingError, match="calls _rebuild_tensor_v2 wrongly"):
        vg_load(data)


def test_protocol_above_2_and_unknown_instructions(sentinel):
    data = checkpoint(pickle.dumps({"a": 1}, protocol=4))
    with pytest.raises(pickle.UnpicklingError, match="protocol 4"):
        vg_load(data)
    data = checkpoint(b"\x80\x02K\x01K\x020.")  # POP
    with pytest.raises(pickle.UnpicklingError, match="instruction POP"):
        vg_load(data)


def test_malformed_pickles(sentinel):
    for payload, match in [
        (b"\x80\x02a.", "malformed"),  # APPEND on an empty stack
        (b"\x80\x02h\x05.", "malformed"),  # a memo slot never written
        (b"\x80\x02K\x01K\x02.", "unfinished values"),
        (b"\x80\x02X\xff\x00\x00\x00ab", "truncated"),
        (b"\x80\x02]", "ends before its STOP"),
        (b"\x80\x02K\x01(X\x01\x00\x00\x00aK\x02u.", "sets an item of a int"),
        (b"\x80\x02}(X\x01\x00\x00\x00au.", "a key without a value"),
    ]:
        with pytest.raises(pickle.UnpicklingError, match=match):
            vg_load(checkpoint(payload))


@pytest.mark.parametrize(
    "bomb",
    [
        b"\x80\x02)" + b"\x85" * 20_000 + b".",  # ((((),),),)… by TUPLE1
        b"\x80\x02" + b"(" * 20_000 + b"t" * 20_000 + b".",  # MARK inside MARK
        b"\x80\x02" + b"]" * 20_000 + b"a" * 19_999 + b".",  # [[[…]]] by APPEND
    ],
    ids=["tuple1", "mark", "append"],
)
def test_pickle_bomb_of_deep_nesting(bomb, sentinel):
    with pytest.raises(pickle.UnpicklingError, match="nest more than 256 levels"):
        vg_load(checkpoint(bomb))


def test_shared_references_are_not_a_bomb():
    # 60 levels of (x, x): 2**60 leaves if unfolded, 60 objects in memory: allowed.
    payload = b"\x80\x02]q\x00" + b"h\x00\x86q\x00" * 60 + b"."
    loaded = vg_load(checkpoint(payload))
    assert loaded[0] is loaded[1]
    cycle = vg_load(checkpoint(b"\x80\x02]q\x00h\x00a."))  # a list holding itself
    assert cycle[0] is cycle


def test_storage_smaller_than_its_tensor():
    data = torch_bytes(torch.arange(4.0))
    small = rewrite(data, pickle_edit=lambda p: p.replace(b"K\x04\x85", b"K\x09\x85", 1))
    assert_both_refuse(small, r"sizes \[9\], strides \[1\], storage offset 0, and itemsize 4 "
                       r"requiring a storage size of 36 are out of bounds for storage of size 16",
                       RuntimeError)  # fmt: skip


def test_record_shorter_than_its_storage():
    data = rewrite(
        torch_bytes(torch.arange(6.0)), lambda n, r: r[:8] if n.endswith("data/0") else r
    )
    assert_both_refuse(data, r"record size \(8 bytes\) does not match expected size \(24 bytes",
                       RuntimeError)  # fmt: skip


def test_missing_records():
    data = torch_bytes(torch.ones(2))
    no_data = rewrite(data, lambda n, r: None if n.endswith("data/0") else r)
    assert_both_refuse(no_data, "the record data/0 is missing.*damaged", RuntimeError)
    no_pickle = rewrite(data, lambda n, r: None if n.endswith("data.pkl") else r)
    assert_both_refuse(no_pickle, "the record data.pkl is missing", RuntimeError)
    no_version = rewrite(data, lambda n, r: None if n.endswith("/version") else r)
    assert_both_refuse(no_version, "the record version is missing", RuntimeError)


@pytest.mark.parametrize("version", [b"0\n", b"11\n", b"x\n"])
def test_bad_version(version):
    data = rewrite(
        torch_bytes(torch.ones(2)), lambda n, r: version if n.endswith("/version") else r
    )
    assert_both_refuse(data, "Attempted to read a PyTorch file with version", RuntimeError)


def test_bad_byteorder():
    data = rewrite(
        torch_bytes(torch.ones(2)), lambda n, r: b"middle" if n.endswith("byteorder") else r
    )
    assert_both_refuse(data, "Unknown endianness type: middle", ValueError)


def test_truncated_archive():
    data = torch_bytes({"x": torch.ones(100)})
    for cut in (len(data) // 2, len(data) - 10):
        assert_both_refuse(data[:cut], "failed reading the zip archive.*damaged", RuntimeError)


def test_corrupted_record_is_caught_by_its_crc():
    data = bytearray(torch_bytes(torch.ones(4)))
    at = data.index(np.ones(4, np.float32).tobytes())
    data[at + 1] ^= 0xFF
    # torch reads the altered bytes without noticing (miniz skips the CRC check);
    # vizgrad checks each record's CRC-32.
    torch_load(bytes(data))
    with pytest.raises(RuntimeError, match="record data/0 cannot be read.*CRC"):
        vg_load(bytes(data))


def test_compressed_record_is_refused():
    out = io.BytesIO()
    source = zipfile.ZipFile(io.BytesIO(torch_bytes(torch.zeros(1000))))
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in source.namelist():
            archive.writestr(name, source.read(name))
    with pytest.raises(RuntimeError, match="compressed, which torch.save never does"):
        vg_load(out.getvalue())


def test_not_a_zip_file():
    with pytest.raises(RuntimeError, match=r"not a checkpoint.*starts with b'hello wo'"):
        vg_load(b"hello world, not a checkpoint")
    with pytest.raises(RuntimeError, match="not a checkpoint"):
        vg_load(b"")
    with pytest.raises(RuntimeError, match="not a checkpoint"):
        vg_load(pickle.dumps({"a": 1}, protocol=2))


def test_legacy_format_is_refused_with_advice():
    buffer = io.BytesIO()
    torch.save(torch.ones(2), buffer, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="legacy format.*save it again with torch.save"):
        vg_load(buffer.getvalue())


@pytest.mark.parametrize(
    ("tensor", "name"),
    [
        (torch.ones(2, dtype=torch.bfloat16), "BFloat16Storage"),
        (torch.ones(2, dtype=torch.uint16), "rebuild_tensor_v3"),
    ],
)
def test_dtypes_vizgrad_lacks_are_named(tensor, name):
    with pytest.raises(pickle.UnpicklingError, match=f"needs torch.*{name}"):
        vg_load(torch_bytes(tensor))

"""The oracle: build the same tensors in vizgrad and PyTorch, and compare results.

Every engine test compares vizgrad with real PyTorch (the ``oracle`` extra) on the
same calls: values, dtype, shape, strides, storage offset and errors.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import vizgrad as vg

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
          "float64", "complex64", "complex128"]  # fmt: skip
LAYOUTS = ["contiguous", "transposed", "stepped", "expanded", "offset"]


def torch_dtype(d: vg.dtype) -> torch.dtype:
    return getattr(torch, d.name)


def vg_dtype(d: torch.dtype) -> vg.dtype:
    return getattr(vg, str(d).split(".")[-1])


def random_array(shape, dtype_name: str, rng: np.random.Generator, low=-5, high=5) -> np.ndarray:
    """Random values that are fair for ``dtype_name`` (no zeros for integer division tests)."""
    if dtype_name == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype_name == "uint8":
        return rng.integers(0, 10, size=shape).astype(np.uint8)
    if dtype_name.startswith("int"):
        return rng.integers(low, high, size=shape).astype(dtype_name)
    if dtype_name.startswith("complex"):
        return (
            rng.uniform(low, high, size=shape) + 1j * rng.uniform(low, high, size=shape)
        ).astype(dtype_name)
    return rng.uniform(low, high, size=shape).astype(dtype_name)


def pair_from_storage(data: np.ndarray, size, stride, offset=0):
    """A vizgrad and a torch tensor over equal storages with identical metadata."""
    vg_base = vg.from_numpy(data.copy())
    v = vg_base.as_strided(size, stride, offset)
    t = torch.from_numpy(data.copy()).as_strided(size, stride, offset)
    return v, t


def make_pair(shape, dtype_name="float32", layout="contiguous", seed=0, **value_range):
    """The same values in both libraries, laid out as ``layout`` says.

    * contiguous — row-major;
    * transposed — the last two dims swapped in memory (a ``.mT`` of a contiguous tensor);
    * stepped — every other element of a bigger storage (``[..., ::2]``);
    * expanded — dim 0 broadcast with stride 0 (read-only use);
    * offset — starts 3 elements into its storage.
    """
    rng = np.random.default_rng(seed)
    shape = tuple(shape)
    n = int(np.prod(shape)) if shape else 1
    if layout == "contiguous" or not shape:
        data = random_array((max(n, 1),), dtype_name, rng, **value_range)[: n or 0]
        data = data if n else random_array((0,), dtype_name, rng)
        stride = vg.shape.contiguous_strides(shape) if shape else ()
        return pair_from_storage(data, shape, stride, 0)
    if layout == "transposed":
        if len(shape) < 2:
            return make_pair(shape, dtype_name, "stepped", seed, **value_range)
        swapped = (*shape[:-2], shape[-1], shape[-2])
        stride = list(vg.shape.contiguous_strides(swapped))
        stride[-1], stride[-2] = stride[-2], stride[-1]
        data = random_array((max(n, 1),), dtype_name, rng, **value_range)
        return pair_from_storage(data, shape, tuple(stride), 0)
    if layout == "stepped":
        stride = tuple(2 * s for s in vg.shape.contiguous_strides(shape))
        data = random_array((2 * max(n, 1),), dtype_name, rng, **value_range)
        return pair_from_storage(data, shape, stride, 0)
    if layout == "expanded":
        inner = shape[1:]
        m = int(np.prod(inner)) if inner else 1
        stride = (0, *vg.shape.contiguous_strides(inner))
        data = random_array((max(m, 1),), dtype_name, rng, **value_range)
        return pair_from_storage(data, shape, stride, 0)
    if layout == "offset":
        data = random_array((n + 3,), dtype_name, rng, **value_range)
        return pair_from_storage(data, shape, vg.shape.contiguous_strides(shape), 3)
    raise ValueError(layout)


def assert_same(v, t, *, check_stride=True, check_offset=False, rtol=None, atol=None,
                equal_nan=True):  # fmt: skip
    """vizgrad's result ``v`` matches torch's ``t``: type, dtype, shape, strides, values."""
    if isinstance(t, tuple | list):
        assert isinstance(v, tuple | list), f"expected a sequence, got {type(v).__name__}"
        assert len(v) == len(t)
        for vi, ti in zip(v, t, strict=True):
            assert_same(vi, ti, check_stride=check_stride, check_offset=check_offset, rtol=rtol,
                        atol=atol)  # fmt: skip
        return
    if not isinstance(t, torch.Tensor):
        assert not isinstance(v, vg.Tensor), f"expected a Python value {t!r}, got a tensor"
        if isinstance(t, float) and np.isnan(t):
            assert np.isnan(v)
        else:
            assert v == t or np.isclose(v, t), f"{v!r} != {t!r}"
        return
    assert isinstance(v, vg.Tensor), f"expected a tensor, got {type(v).__name__}: {v!r}"
    assert v.dtype.name == str(t.dtype).split(".")[-1], f"dtype {v.dtype} != {t.dtype}"
    assert tuple(v.shape) == tuple(t.shape), f"shape {tuple(v.shape)} != {tuple(t.shape)}"
    if check_stride:
        assert v.stride() == t.stride(), (
            f"stride {v.stride()} != {t.stride()} (shape {tuple(t.shape)})"
        )
        assert v.is_contiguous() == t.is_contiguous()
    if check_offset:
        assert v.storage_offset() == t.storage_offset()
    expected = t.detach().resolve_conj().numpy()
    actual = np.asarray(v.detach().numpy() if hasattr(v, "detach") else v.numpy())
    if t.dtype.is_floating_point or t.dtype.is_complex:
        tol = {"float16": 1e-3, "float32": 1e-5, "complex64": 1e-5}.get(v.dtype.name, 1e-10)
        np.testing.assert_allclose(actual, expected, rtol=rtol if rtol is not None else tol,
                                   atol=atol if atol is not None else tol, equal_nan=equal_nan)  # fmt: skip
    else:
        np.testing.assert_array_equal(actual, expected)


def assert_same_error(vg_call, torch_call, *, match_message=True):
    """Both calls raise; same exception class; vizgrad's message says what PyTorch's says."""
    try:
        torch_call()
    except Exception as e:  # noqa: BLE001 - we compare whatever torch raises
        torch_error = e
    else:
        raise AssertionError("torch did not raise; the test is wrong")
    try:
        vg_call()
    except Exception as e:  # noqa: BLE001
        vg_error = e
    else:
        raise AssertionError(f"vizgrad did not raise; torch raised {torch_error!r}")
    torch_class = type(torch_error)
    # torch raises its own subclasses (torch.AcceleratorError…); compare the builtin base.
    while torch_class.__module__ != "builtins":
        torch_class = torch_class.__mro__[1]
    assert isinstance(vg_error, torch_class), (
        f"{type(vg_error).__name__} is not {torch_class.__name__}: {vg_error}"
    )
    if match_message:
        t_msg = str(torch_error).split("\n")[0].replace("torch.", "vizgrad.")
        assert _core(t_msg) in str(vg_error) or _core(str(vg_error)) in t_msg, (
            f"messages differ:\n  vizgrad: {vg_error}\n  torch:   {torch_error}"
        )
    return vg_error, torch_error


def assert_same_outcome(vg_call, torch_call, *, compare_warnings=False, message_lines=1):
    """Both calls raise alike (``assert_same_error``), or both give the same result
    (``assert_same``); with ``compare_warnings``, a result comes after the same warnings
    (category and message). ``message_lines`` of two errors' messages are compared
    exactly (PyTorch's messages that say more on a later line)."""
    try:
        expected, expected_warnings = _warned(torch_call)
    except Exception:  # noqa: BLE001 - whatever torch raises, vizgrad must raise alike
        vg_error, torch_error = assert_same_error(vg_call, torch_call)
        if message_lines > 1:
            want = str(torch_error).replace("torch.", "vizgrad.").split("\n")[:message_lines]
            assert str(vg_error).split("\n")[:message_lines] == want
        return
    got, got_warnings = _warned(vg_call)
    assert_same(got, expected)
    if compare_warnings:
        assert got_warnings == expected_warnings


def _warned(call) -> tuple:
    """``call()``'s result and the warnings it gave, as ``(category, message)`` (without
    the "Triggered internally at" PyTorch's C++ warnings end with)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [
        (w.category, re.sub(r" \(Triggered internally at .*\)$", "", str(w.message)))
        for w in caught
    ]


def _core(message: str) -> str:
    # PyTorch prefixes some messages with the op name or a location; compare the gist.
    return message.strip().rstrip(".")[:60]


class TorchOps(TorchDispatchMode):
    """The aten ops PyTorch dispatches below its composite (CompositeImplicit) layer."""

    def __init__(self):
        super().__init__()
        self.names = []  # base names: "clone"
        self.qualnames = []  # as vizgrad writes them: "aten::add_.Tensor", "aten::clone"

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(func._schema.name.split("::")[1])
        overload = func._overloadname
        suffix = "" if overload == "default" else f".{overload}"
        self.qualnames.append(func._schema.name + suffix)
        return func(*args, **(kwargs or {}))


def same_for_pairs(fn, *pairs, compare_warnings=False):
    """``fn(library, *inputs)`` gives the same result (or error) in vizgrad and PyTorch,
    each input a ``(vizgrad, torch)`` pair (``assert_same_outcome``)."""
    assert_same_outcome(
        lambda: fn(vg, *[p[0] for p in pairs]),
        lambda: fn(torch, *[p[1] for p in pairs]),
        compare_warnings=compare_warnings,
    )


def error_for_pairs(fn, *pairs):
    """``fn(library, *inputs)`` raises alike in both (it must fail in PyTorch)."""
    assert_same_error(
        lambda: fn(vg, *[p[0] for p in pairs]), lambda: fn(torch, *[p[1] for p in pairs])
    )


def pair_of_values(array, dtype=None):
    """A contiguous pair holding exactly ``array``."""
    array = np.asarray(array, dtype=dtype)
    return pair_from_storage(array.ravel().copy(), array.shape,
                             vg.shape.contiguous_strides(array.shape))  # fmt: skip


def laid_out(values: np.ndarray, layout: str):
    """Exactly ``values`` in both libraries, laid out in memory as ``layout`` says (the
    layouts of ``make_pair``); ``expanded`` reads ``values[0]`` all along dim 0."""
    shape = values.shape
    contiguous = vg.shape.contiguous_strides
    if layout == "contiguous" or values.ndim < 2 or values.size == 0:
        return pair_from_storage(values.ravel().copy(), shape, contiguous(shape))
    if layout == "transposed":
        swapped = np.ascontiguousarray(np.swapaxes(values, -1, -2))
        stride = list(contiguous(swapped.shape))
        stride[-1], stride[-2] = stride[-2], stride[-1]
        return pair_from_storage(swapped.ravel(), shape, tuple(stride))
    if layout == "stepped":
        data = np.zeros(2 * values.size, dtype=values.dtype)
        data[::2] = values.ravel()
        return pair_from_storage(data, shape, tuple(2 * s for s in contiguous(shape)))
    if layout == "expanded":
        return pair_from_storage(values[0].ravel().copy(), shape, (0, *contiguous(shape[1:])))
    data = np.concatenate([np.full(3, 7, dtype=values.dtype), values.ravel()])  # offset
    return pair_from_storage(data, shape, contiguous(shape), 3)


def results_or_same_error(fn, *pairs):
    """``(vizgrad's, torch's)`` results of ``fn(library, *inputs)`` (warnings silenced);
    None when torch raises, after checking vizgrad raises the same class and message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = fn(torch, *[p[1] for p in pairs])
        except Exception:  # noqa: BLE001 - vizgrad must raise alike
            vg_error, torch_error = assert_same_error(
                lambda: fn(vg, *[p[0] for p in pairs]), lambda: fn(torch, *[p[1] for p in pairs])
            )
            assert str(vg_error) == str(torch_error).replace("torch.", "vizgrad.")
            return None
        return fn(vg, *[p[0] for p in pairs]), expected

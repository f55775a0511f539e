"""Checks shared by the meta-device tests: the same meta tensor in vizgrad and PyTorch,
and one operator's meta result against PyTorch's meta and CPU results and vizgrad's CPU
result (``check_op``)."""

import torch
from oracle import assert_same_error

import vizgrad as vg


def meta_pair(size, stride=None, dtype="float32", requires_grad=False):
    """The same meta tensor in both libraries: ``empty_strided`` of that geometry."""
    size = tuple(size)
    if stride is None:
        stride = torch.empty(size).stride()
    v = vg.empty_strided(size, stride, dtype=getattr(vg, dtype), device="meta")
    t = torch.empty_strided(size, stride, dtype=getattr(torch, dtype), device="meta")
    if requires_grad:
        v.requires_grad_()
        t.requires_grad_()
    return v, t


def cpu_like(v):
    """A CPU tensor of ``v``'s geometry and dtype, with values every tested op accepts."""
    c = vg.empty_strided(v.shape, v.stride(), dtype=v.dtype)
    c.fill_(True if v.dtype is vg.bool else 1)
    return c


def metadata(x):
    """Shape, strides, storage offset and dtype (of each result, for several)."""
    if isinstance(x, tuple | list):
        return tuple(metadata(e) for e in x)
    return (tuple(x.shape), x.stride(), x.storage_offset(), str(x.dtype).split(".")[1])


def assert_meta_same(v, t):
    """Two meta results: one shape, stride, storage offset, dtype and device."""
    if isinstance(t, tuple | list):
        assert len(v) == len(t)
        for a, b in zip(v, t, strict=True):
            assert_meta_same(a, b)
        return
    assert v.is_meta and t.is_meta
    assert str(v.device) == str(t.device) == "meta"
    assert metadata(v) == metadata(t)


def meta_pairs(geometry, dtypes):
    return [
        meta_pair(size, stride, dtype)
        for (size, stride), dtype in zip(geometry, dtypes, strict=True)
    ]


def outcome(fn, *args):
    try:
        return fn(*args), None
    except Exception as error:  # noqa: BLE001 - compared below
        return None, error


def raise_(error):
    raise error


def torch_cpu(t):
    """A CPU tensor of a torch meta tensor's geometry, with values every tested op accepts."""
    c = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype)
    return c.fill_(True if t.dtype is torch.bool else 1)


def assert_refused_alike(v_error, t_cpu_error, t_meta_error) -> None:
    """vizgrad's error is one PyTorch raised: worded as its CPU kernel words it, or else as
    its meta path does."""
    torch_errors = [e for e in (t_cpu_error, t_meta_error) if e is not None]
    assert torch_errors, f"vizgrad refused: {v_error!r}"
    for i, torch_error in enumerate(torch_errors):
        try:
            assert_same_error(lambda: raise_(v_error), lambda e=torch_error: raise_(e))
            return
        except AssertionError:
            if i == len(torch_errors) - 1:
                raise


def check_op(fn, pairs):
    """vizgrad's meta result against PyTorch's, and against vizgrad's CPU result.

    vizgrad's meta result comes from its CPU kernel's own set-up, so it is the CPU result's
    metadata. PyTorch 2.13 runs most elementwise operators on meta tensors through Python
    references (``torch/_refs``), which now and then depart from its CPU kernels: where
    they do, vizgrad follows the CPU kernels.
    """
    vs = [p[0] for p in pairs]
    ts = [p[1] for p in pairs]
    t_cpu, t_cpu_error = outcome(fn, torch, *[torch_cpu(t) for t in ts])
    t_meta, t_meta_error = outcome(fn, torch, *ts)
    v_meta, v_meta_error = outcome(fn, vg, *vs)
    v_cpu, v_cpu_error = outcome(fn, vg, *[cpu_like(v) for v in vs])
    if t_cpu_error is not None:
        assert_same_error(lambda: raise_(v_cpu_error or AssertionError("no error")),
                          lambda: raise_(t_cpu_error))  # fmt: skip
    else:
        assert metadata(v_cpu) == metadata(t_cpu)
    if v_meta_error is not None:
        # Refused as PyTorch's meta path refuses, or as its CPU kernel does, before the loop.
        assert_refused_alike(v_meta_error, t_cpu_error, t_meta_error)
        return
    if v_cpu_error is None:  # one set-up: meta and CPU agree whenever both run
        assert metadata(v_meta) == metadata(v_cpu)
    assert t_meta_error is None, f"torch refused: {t_meta_error!r}"
    if t_cpu_error is None and metadata(t_meta) != metadata(t_cpu):
        assert metadata(v_meta) == metadata(t_cpu)  # torch's meta departs from its CPU
        for result in v_meta if isinstance(v_meta, tuple | list) else [v_meta]:
            assert str(result.device) == "meta"
    else:
        assert_meta_same(v_meta, t_meta)

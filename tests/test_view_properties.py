"""Property tests: random chains of view operations behave as in PyTorch, step by step.

Each example builds the same tensor in both libraries (in one of the oracle layouts),
then applies a random chain of views (transpose, permute, narrow, select, stepped
slices, unsqueeze, squeeze, expand, diagonal, unfold, view/reshape). After every step
shape, strides, storage offset, contiguity, values and ``_base`` must agree; when
PyTorch raises, vizgrad must raise the same error. ``view`` is tried next to every
``reshape``: where the strides cannot express the shape, ``view`` must fail and
``reshape`` must copy, in both libraries.
"""

from __future__ import annotations

import math
import os

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from oracle import LAYOUTS, assert_same, assert_same_error, make_pair

SETTINGS = settings(max_examples=int(os.environ.get("VIEW_EXAMPLES", 250)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])  # fmt: skip


def _dim(data, ndim: int, *, extra: int = 0) -> int:
    """A dim index, mostly valid, sometimes one past the end (to compare errors)."""
    rank = max(ndim, 1) + extra
    return data.draw(st.integers(-rank, rank), label="dim")


def _target_shapes(shape) -> list[tuple[int, ...]]:
    """Shapes with the same number of elements (plus one that has not), for view/reshape."""
    numel = math.prod(shape)
    targets = [(-1,), tuple(shape), (*shape, 1), (1, *shape), (numel + 1,)]
    for i in range(len(shape) - 1):  # merge two neighbours
        targets.append((*shape[:i], shape[i] * shape[i + 1], *shape[i + 2 :]))
    for i, size in enumerate(shape):  # split one dim
        for factor in (2, 3):
            if size and size % factor == 0:
                targets.append((*shape[:i], factor, size // factor, *shape[i + 1 :]))
        targets.append((*shape[:i], -1, *shape[i + 1 :]))
    if len(shape) >= 2:
        targets.append((shape[0], -1))
    return targets


def draw_step(data, shape):
    """One random view op for a tensor of ``shape``: ``(name, fn)``, ``fn`` works in both libs."""
    ndim = len(shape)
    kind = data.draw(st.sampled_from([
        "transpose", "permute", "narrow", "select", "slice", "unsqueeze", "squeeze",
        "expand", "diagonal", "unfold", "view", "reshape", "flatten", "T", "split",
    ]), label="op")  # fmt: skip
    if kind == "transpose":
        d0, d1 = _dim(data, ndim), _dim(data, ndim)
        return f"transpose({d0}, {d1})", lambda x: x.transpose(d0, d1)
    if kind == "permute":
        order = data.draw(st.permutations(range(ndim)), label="order")
        return f"permute({order})", lambda x: x.permute(*order)
    if kind == "narrow":
        dim = _dim(data, ndim)
        start = data.draw(st.integers(-5, 5), label="start")
        length = data.draw(st.integers(0, 4), label="length")
        return f"narrow({dim}, {start}, {length})", lambda x: x.narrow(dim, start, length)
    if kind == "select":
        dim, index = _dim(data, ndim), data.draw(st.integers(-4, 4), label="index")
        return f"select({dim}, {index})", lambda x: x.select(dim, index)
    if kind == "slice":
        bound = st.none() | st.integers(-5, 5)
        entries = data.draw(st.integers(0, ndim), label="entries")
        index = tuple(
            slice(data.draw(bound), data.draw(bound), data.draw(st.sampled_from([None, 1, 2, 3])))
            for _ in range(entries)
        )
        if data.draw(st.booleans(), label="with None"):
            index = (None, *index)
        return f"getitem({index})", lambda x: x[index]
    if kind == "unsqueeze":
        dim = _dim(data, ndim, extra=1)
        return f"unsqueeze({dim})", lambda x: x.unsqueeze(dim)
    if kind == "squeeze":
        if data.draw(st.booleans(), label="all"):
            return "squeeze()", lambda x: x.squeeze()
        dim = _dim(data, ndim)
        return f"squeeze({dim})", lambda x: x.squeeze(dim)
    if kind == "expand":
        lead = data.draw(st.integers(0, 2), label="new dims")
        sizes = [data.draw(st.integers(1, 3)) for _ in range(lead)]
        # a size-1 dim may grow; others keep their size (-1 or spelled out)
        sizes += [data.draw(st.sampled_from([-1, 3 if s == 1 else s])) for s in shape]
        return f"expand({sizes})", lambda x: x.expand(*sizes)
    if kind == "diagonal":
        offset = data.draw(st.integers(-3, 3), label="offset")
        d1, d2 = _dim(data, ndim), _dim(data, ndim)
        return f"diagonal({offset}, {d1}, {d2})", lambda x: x.diagonal(offset, d1, d2)
    if kind == "unfold":
        dim = _dim(data, ndim)
        size, step = data.draw(st.integers(0, 3), label="size"), data.draw(st.integers(1, 3))
        return f"unfold({dim}, {size}, {step})", lambda x: x.unfold(dim, size, step)
    if kind in ("view", "reshape"):
        target = data.draw(st.sampled_from(_target_shapes(shape)), label="shape")
        return f"{kind}({target})", lambda x: getattr(x, kind)(target)
    if kind == "flatten":
        start, end = _dim(data, ndim), _dim(data, ndim)
        return f"flatten({start}, {end})", lambda x: x.flatten(start, end)
    if kind == "T":
        return "mT", lambda x: x.mT
    size = data.draw(st.integers(1, 3), label="split size")
    dim = _dim(data, ndim)
    return f"split({size}, {dim})[-1]", lambda x: x.split(size, dim)[-1]


def root(x):
    return x._base if x._base is not None else x


def assert_same_step(v, t, v_prev, t_prev):
    assert_same(v, t, check_offset=True)
    assert v.is_contiguous() == t.is_contiguous()
    assert (v._base is None) == (t._base is None)
    if t._base is not None:
        assert (v._base is root(v_prev)) == (t._base is root(t_prev))
    shares = t.untyped_storage().data_ptr() == t_prev.untyped_storage().data_ptr()
    assert (v.untyped_storage().data_ptr() == v_prev.untyped_storage().data_ptr()) == shares


@pytest.mark.filterwarnings("ignore:Tensor.mT is deprecated on 0-D tensors")
@SETTINGS
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=4),
    layout=st.sampled_from(LAYOUTS),
    data=st.data(),
)
def test_random_view_chains(shape, layout, data):
    v, t = make_pair(tuple(shape), "float32", layout, seed=len(shape))
    for _ in range(data.draw(st.integers(1, 6), label="steps")):
        name, fn = draw_step(data, tuple(t.shape))
        try:
            t_next = fn(t)
        except Exception:  # noqa: BLE001 - whatever torch raises, vizgrad must raise
            assert_same_error(lambda fn=fn, v=v: fn(v), lambda fn=fn, t=t: fn(t))
            continue
        v_next = fn(v)
        assert_same_step(v_next, t_next, v, t)
        v, t = v_next, t_next


@SETTINGS
@given(
    shape=st.lists(st.integers(0, 4), min_size=0, max_size=4),
    layout=st.sampled_from(LAYOUTS),
    prefix=st.lists(st.sampled_from(["t", "permute", "slice", "expand", "none"]), max_size=2),
    data=st.data(),
)
def test_view_fails_exactly_where_reshape_copies(shape, layout, prefix, data):
    """``view`` succeeds iff PyTorch's does; ``reshape`` is then a view, else a copy."""
    v, t = make_pair(tuple(shape), "float32", layout, seed=1)
    for step in prefix:  # make the layout more interesting
        if step == "t" and t.dim() >= 2:
            v, t = v.transpose(0, -1), t.transpose(0, -1)
        elif step == "permute" and t.dim() >= 2:
            order = data.draw(st.permutations(range(t.dim())))
            v, t = v.permute(*order), t.permute(*order)
        elif step == "slice" and t.dim() >= 1:
            v, t = v[..., ::2], t[..., ::2]
        elif step == "expand":
            v, t = v.unsqueeze(0).expand(2, *v.shape), t.unsqueeze(0).expand(2, *t.shape)
    target = data.draw(st.sampled_from(_target_shapes(tuple(t.shape))))
    try:
        t_view = t.view(target)
    except RuntimeError:
        assert_same_error(lambda: v.view(target), lambda: t.view(target))
    else:
        assert_same_step(v.view(target), t_view, v, t)
    try:
        t_reshaped = t.reshape(target)
    except RuntimeError:
        assert_same_error(lambda: v.reshape(target), lambda: t.reshape(target))
        return
    v_reshaped = v.reshape(target)
    assert_same_step(v_reshaped, t_reshaped, v, t)
    assert (v_reshaped._base is None) == (t_reshaped._base is None)
    np.testing.assert_array_equal(v_reshaped.numpy(), t_reshaped.numpy())

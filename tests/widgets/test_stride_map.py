"""StrideMap, headless: the widget's synced state after construction and after the
front end's messages, checked against PyTorch's geometry for the same tensors.

Expected storage positions come from torch's ``stride()`` and ``storage_offset()``
(``offset + Σ index·stride``), expected values from torch tensors; never from the
widget's own output.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import torch
from browser_messages import send_message, set_from_browser
from oracle import LAYOUTS, make_pair
from vizgrad.widgets import StrideMap
from vizgrad.widgets.render.stride_map import (
    MAX_SIDE,
    MAX_STORAGE_CELLS,
    arithmetic,
    shown_indices,
    storage_segments,
)
from vizgrad.widgets.state import TensorState

import vizgrad as vg
from vizgrad import events

EVIL = "<img src=x onerror=alert(1)>"


# --- expectations from torch --------------------------------------------------------------


def torch_positions(t: torch.Tensor) -> np.ndarray:
    """Storage position of every element of ``t``, by PyTorch's own metadata."""
    grids = np.indices(tuple(t.shape), dtype=np.int64)
    stride = np.array(t.stride(), dtype=np.int64).reshape((-1,) + (1,) * t.dim())
    return (
        t.storage_offset() + (grids * stride).sum(axis=0)
        if t.dim()
        else np.array(t.storage_offset())
    )


def torch_storage_numel(t: torch.Tensor) -> int:
    return t.untyped_storage().nbytes() // t.element_size()


def expected_arithmetic(t: torch.Tensor, index) -> str:
    """The formula written out with torch's offset and strides."""
    offset, stride = t.storage_offset(), t.stride()
    position = offset + sum(i * s for i, s in zip(index, stride, strict=True))
    return " + ".join([str(offset)] + [f"{i}·{s}" for i, s in zip(index, stride, strict=True)]) + (
        f" = {position}"
    )


def shown_cells(view):
    """(row, col, position, value) for every cell the grid shows (ellipses skipped)."""
    for ri, r in enumerate(view["rows"]):
        for ci, c in enumerate(view["cols"]):
            if r is not None and c is not None:
                values = view["values"]
                yield r, c, view["positions"][ri][ci], None if values is None else values[ri][ci]


def check_grid_against_torch(view, t: torch.Tensor) -> None:
    expected = torch_positions(t)
    lead = tuple(view["slice"])
    for r, c, position, value in shown_cells(view):
        index = lead + ((r, c) if t.dim() >= 2 else (c,) if t.dim() == 1 else ())
        assert position == int(expected[index]), index
        if value is not None:
            want = t[index].item()
            if isinstance(want, bool):
                assert value == str(want)
            elif isinstance(want, complex):
                assert complex(value.replace("j", "") + "j") == pytest.approx(want, rel=1e-2)
            else:
                assert float(value) == pytest.approx(want, rel=1e-3, abs=1e-3)


def check_strip_against_torch(strip, views_torch: dict[int, torch.Tensor]) -> None:
    """Each shown storage cell lists exactly the views reading it, with torch's counts."""
    counts = {
        n: np.bincount(torch_positions(t).reshape(-1), minlength=strip["numel"])
        for n, t in views_torch.items()
    }
    for position, readers, reads in zip(strip["positions"], strip["readers"], strip["counts"],
                                        strict=True):  # fmt: skip
        want = {n: int(c[position]) for n, c in counts.items() if c[position]}
        assert dict(zip(readers, reads, strict=True)) == want, position


@pytest.fixture(autouse=True)
def no_listeners_left():
    """Every test closes its widgets: the bus is quiet again afterwards."""
    yield
    assert not events.bus.active


# --- construction, one tensor per layout ------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
def test_layouts_match_torch_geometry(layout, dtype):
    v, t = make_pair((3, 4), dtype, layout, seed=1)
    w = StrideMap(v, names=["x"])
    try:
        (view,) = w.data["views"]
        assert view["shape"] == list(t.shape)
        assert view["stride"] == list(t.stride())
        assert view["offset"] == t.storage_offset()
        assert view["contiguous"] == t.is_contiguous()
        assert view["flags"]["offset"] == (t.storage_offset() != 0)
        assert view["flags"]["expanded"] == (0 in t.stride())
        assert view["flags"]["gaps"] == (layout == "stepped")
        assert view["flags"]["overlap"] is False
        check_grid_against_torch(view, t)
        (strip,) = w.data["storages"]
        assert strip["numel"] == torch_storage_numel(t)
        check_strip_against_torch(strip, {0: t})
        assert json.loads(json.dumps(w.data)) == w.data  # plain JSON, as traitlets sync it
    finally:
        w.close()


def test_several_views_share_one_strip_each_in_its_colour():
    base_np = np.arange(12, dtype=np.float32)
    x, tx = vg.from_numpy(base_np.copy()).view(3, 4), torch.from_numpy(base_np.copy()).view(3, 4)
    ops = [
        lambda a: a,
        lambda a: a.t(),
        lambda a: a[:, ::2],
        lambda a: a[1:],
        lambda a: a[0].expand(2, 4),
    ]
    w = StrideMap(*[op(x) for op in ops], names=["x", "x.t()", "x[:, ::2]", "x[1:]", "expand"])
    try:
        views = w.data["views"]
        assert len(w.data["storages"]) == 1
        assert {v["storage"] for v in views} == {0}
        assert len({v["color"] for v in views}) == len(views)
        torch_views = {n: op(tx) for n, op in enumerate(ops)}
        for n, view in enumerate(views):
            check_grid_against_torch(view, torch_views[n])
        check_strip_against_torch(w.data["storages"][0], torch_views)
        assert views[3]["flags"]["offset"] and views[3]["offset"] == torch_views[3].storage_offset()
        assert views[4]["flags"]["expanded"]
    finally:
        w.close()


def test_tensors_on_different_storages_get_their_own_strips():
    a, b = vg.zeros(2, 3), vg.ones(4)
    w = StrideMap(a, b)
    try:
        assert [v["storage"] for v in w.data["views"]] == [0, 1]
        assert [s["numel"] for s in w.data["storages"]] == [6, 4]
        assert w.data["storages"][0]["views"] == [0] and w.data["storages"][1]["views"] == [1]
    finally:
        w.close()


@pytest.mark.parametrize(
    "size, stride, offset",
    [((3, 3), (1, 1), 0), ((4, 2), (2, 1), 1), ((2, 2, 2), (1, 1, 1), 0), ((3, 4), (0, 1), 2)],
)
def test_overlapping_as_strided(size, stride, offset):
    data = np.arange(12, dtype=np.float64)
    v = vg.as_strided(vg.from_numpy(data.copy()), size, stride, offset)
    t = torch.as_strided(torch.from_numpy(data.copy()), size, stride, offset)
    w = StrideMap(v)
    try:
        view = w.data["views"][0]
        positions = torch_positions(t).reshape(-1)
        moving = [(n, s) for n, s in zip(size, stride, strict=True) if s and n > 1]
        distinct_positions = {int(p) for p in torch_positions(t.as_strided(
            [n for n, _ in moving], [s for _, s in moving], offset)).reshape(-1)}  # fmt: skip
        assert view["flags"]["overlap"] == (
            len(distinct_positions) < np.prod([n for n, _ in moving])
        )
        assert view["flags"]["expanded"] == (0 in stride)
        check_grid_against_torch(view, t)
        check_strip_against_torch(w.data["storages"][0], {0: t})
        assert (
            max(max(c) for c in w.data["storages"][0]["counts"] if c)
            == np.bincount(positions).max()
        )
    finally:
        w.close()


def test_zero_dim_and_empty_tensors():
    s = vg.tensor(3.5)
    e = vg.zeros(0, 3)
    w = StrideMap(s, e)
    try:
        scalar, empty = w.data["views"]
        assert scalar["positions"] == [[0]] and float(scalar["values"][0][0]) == 3.5
        assert empty["rows"] == [] and empty["numel"] == 0
        w.selection = {"view": 0, "index": []}
        assert w.data["selection"]["arithmetic"] == "0 = 0"
    finally:
        w.close()


# --- slices of tensors above 2-D ----------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda lib: lib.arange(24.0).reshape(2, 3, 4),
    lambda lib: lib.arange(120.0).reshape(2, 3, 4, 5).permute(3, 1, 0, 2),
])  # fmt: skip
def test_slice_chooser_for_tensors_above_2d(make):
    v, t = make(vg), make(torch)
    w = StrideMap(v)
    try:
        view = w.data["views"][0]
        assert view["slice_dims"] == t.dim() - 2
        assert view["slice"] == [0] * (t.dim() - 2)
        check_grid_against_torch(view, t)
        for lead in itertools.product(*(range(n) for n in t.shape[:-2])):
            w.slices = [list(lead)]  # what the front end's chooser sets
            view = w.data["views"][0]
            assert view["slice"] == list(lead)
            check_grid_against_torch(view, t)
        w.slices = [[99] * (t.dim() - 2)]  # out of range: clamped, never an error
        assert w.data["views"][0]["slice"] == [n - 1 for n in t.shape[:-2]]
    finally:
        w.close()


# --- large tensors are summarised ----------------------------------------------------------


@pytest.mark.parametrize("shape", [(1000, 1000), (5000,), (70, 70), (3, 200, 300)])
def test_large_tensors_are_summarised(shape):
    v = vg.zeros(*shape)
    t = torch.zeros(*shape)
    w = StrideMap(v, v.t() if len(shape) == 2 else v)
    try:
        payload = len(json.dumps(w.data))
        assert payload < 500_000, payload
        for view in w.data["views"]:
            assert len(view["rows"]) <= MAX_SIDE + 1 and len(view["cols"]) <= MAX_SIDE + 1
            assert view["elided"] == (max(shape[-2:]) > MAX_SIDE)
        check_grid_against_torch(w.data["views"][0], t)
        strip = w.data["storages"][0]
        assert len(strip["positions"]) <= MAX_STORAGE_CELLS
        assert strip["elided"] == (t.numel() > MAX_STORAGE_CELLS)
        # Selecting an element deep inside still shows its storage cell.
        index = [n // 2 for n in shape]
        w.selection = {"view": 0, "index": index}
        position = int(torch_positions(t)[tuple(index)])
        assert w.data["selection"]["position"] == position
        assert position in strip["positions"] or position in w.data["storages"][0]["positions"]
    finally:
        w.close()


def test_huge_overlapping_view_is_not_enumerated():
    # 10^8 elements over 10 storage cells: counted from the shown cells only, still fast.
    v = vg.as_strided(vg.zeros(10), (10_000, 10), (0, 1))
    big = vg.as_strided(vg.zeros(20_000), (10_000, 10_000), (1, 1))
    w = StrideMap(v, big)
    try:
        assert len(json.dumps(w.data)) < 500_000
        assert w.data["views"][0]["flags"]["expanded"]
        assert w.data["views"][1]["flags"]["overlap"]
        assert w.data["views"][1]["counts_exact"] is False
    finally:
        w.close()


# --- selection: the arithmetic ------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_selection_position_and_arithmetic(layout):
    v, t = make_pair((3, 4), "float32", layout, seed=2)
    w = StrideMap(v)
    try:
        for index in [(0, 0), (2, 3), (1, 2)]:
            w.selection = {"view": 0, "index": list(index)}
            sel = w.data["selection"]
            expected = t.storage_offset() + sum(
                i * s for i, s in zip(index, t.stride(), strict=True)
            )
            assert sel["position"] == expected
            assert sel["arithmetic"] == expected_arithmetic(t, index)
            lhs = sel["arithmetic"].split("=")[0].replace("·", "*")
            assert eval(lhs) == expected  # the written sum adds up
            assert float(sel["value"]) == pytest.approx(t[index].item(), rel=1e-3)
        w.selection = {"view": 0, "index": [3, 0]}  # out of range: no selection, no error
        assert w.data["selection"] is None
    finally:
        w.close()


def test_selection_of_3d_element_shows_its_slice():
    v, t = (
        vg.arange(24).reshape(2, 3, 4).transpose(0, 2),
        torch.arange(24).reshape(2, 3, 4).transpose(0, 2),
    )
    w = StrideMap(v)
    try:
        w.selection = {"view": 0, "index": [3, 1, 1]}  # shape (4, 3, 2)
        assert w.data["selection"]["arithmetic"] == expected_arithmetic(t, (3, 1, 1))
        assert w.data["views"][0]["slice"] == [3]
        check_grid_against_torch(w.data["views"][0], t)
    finally:
        w.close()


def test_arithmetic_helper_matches_formula():
    for offset, stride, index in [(0, (), ()), (5, (3, 1), (1, 2)), (2, (0, 7, 1), (4, 1, 0))]:
        position = offset + sum(i * s for i, s in zip(index, stride, strict=True))
        assert arithmetic(offset, stride, index).endswith(f"= {position}")
        assert eval(arithmetic(offset, stride, index).split("=")[0].replace("·", "*")) == position


def test_summarising_helpers():
    assert shown_indices(5) == [0, 1, 2, 3, 4]
    long = shown_indices(1000)
    assert long[:2] == [0, 1] and long[-1] == 999 and long.count(None) == 1
    assert len(long) == MAX_SIDE + 1
    assert storage_segments(10, [0]) == [[0, 10]]
    segments = storage_segments(10**6, [500_000], selected=900_000)
    assert sum(b - a for a, b in segments) <= MAX_STORAGE_CELLS
    assert any(a <= 500_000 < b for a, b in segments)
    assert any(a <= 900_000 < b for a, b in segments)


# --- editing size, stride and offset ------------------------------------------------------


def test_edit_builds_an_as_strided_view_of_the_first_tensor():
    data = np.arange(12, dtype=np.float32)
    x, tx = vg.from_numpy(data.copy()), torch.from_numpy(data.copy())
    w = StrideMap(x, names=["x"])
    try:
        assert (w.edit_size, w.edit_stride, w.edit_offset) == ("12", "1", "0")
        send_message(w, {"type": "as_strided", "size": "3, 3", "stride": "2, 1", "offset": "1"})
        assert w.error == ""
        assert (w.edit_size, w.edit_stride, w.edit_offset) == ("3, 3", "2, 1", "1")
        edited = w.data["views"][1]
        expected = torch.as_strided(tx, (3, 3), (2, 1), 1)
        assert edited["shape"] == list(expected.shape)
        assert edited["stride"] == list(expected.stride())
        assert edited["offset"] == expected.storage_offset()
        assert edited["storage"] == w.data["views"][0]["storage"]
        assert edited["flags"]["overlap"]
        check_grid_against_torch(edited, expected)
        check_strip_against_torch(w.data["storages"][0], {0: tx, 1: expected})
    finally:
        w.close()


@pytest.mark.parametrize(
    "size, stride, offset, same_as_torch",
    [("4, 4", "4, 1", "0", True), ("3", "1", "10", True), ("2, 2", "-1, 1", "0", True),
     ("2, x", "1, 1", "", False),  # torch's Python binding words type errors its own way
     ("2, 2", "1", "0", False)],  # vizgrad adds "1 strides for a 2-dimensional size"
)  # fmt: skip
def test_invalid_edit_shows_vizgrads_error_and_keeps_the_old_view(size, stride, offset,
                                                                  same_as_torch):  # fmt: skip
    x = vg.arange(12.0)
    w = StrideMap(x[:10], names=["x"])
    try:
        assert w.edit((2, 2), (1, 2), 0)
        before = json.dumps(w.data)
        send_message(w, {"type": "as_strided", "size": size, "stride": stride, "offset": offset})

        def parse(text):
            return tuple(int(p) if p.strip().lstrip("-").isdigit() else p.strip()
                         for p in text.split(",") if p.strip())  # fmt: skip

        with pytest.raises((RuntimeError, TypeError)) as raised:
            vg.as_strided(x[:10], parse(size), parse(stride), int(offset) if offset else None)
        assert w.error == str(raised.value)
        assert w.error
        assert json.dumps(w.data) == before  # the previous as_strided view is still shown
        if same_as_torch:  # out of the storage, negative stride: vizgrad's message is PyTorch's
            t = torch.arange(12.0)[:10]
            with pytest.raises(RuntimeError) as from_torch:
                torch.as_strided(t, parse(size), parse(stride), int(offset) if offset else None)
            assert w.error == str(from_torch.value)
    finally:
        w.close()


def test_clear_edit_and_error_cleared_by_a_valid_edit():
    w = StrideMap(vg.arange(6.0))
    try:
        assert not w.edit((7,), (1,), 0)
        assert w.error
        assert w.edit((2, 3), (3, 1), 0)
        assert w.error == "" and len(w.data["views"]) == 2
        send_message(w, {"type": "clear_edit"})
        assert len(w.data["views"]) == 1
    finally:
        w.close()


class _BrokenClear(StrideMap):
    """A map whose "remove view" fails, as a bug in the view would."""

    def clear_edit(self) -> None:
        raise KeyError("storage #9")


def test_an_error_while_answering_the_browser_shows_in_the_map_and_the_next_answer_clears_it():
    w = _BrokenClear(vg.arange(6.0), names=["x"])
    try:
        send_message(w, {"type": "clear_edit"})  # ipywidgets would only log the traceback
        assert w.error.startswith("Could not finish removing the as_strided view: KeyError:")
        assert "'storage #9'" in w.error and "Run the cell that made this view again" in w.error
        set_from_browser(w, selection={"view": 0, "index": [2]})  # the next click works
        assert w.error == "" and w.data["selection"]["position"] == 2
        send_message(w, {"type": "no such button"})
        assert "does not know the message" in w.error
    finally:
        w.close()


def test_a_refused_edit_stays_shown_while_the_student_clicks_elements():
    w = StrideMap(vg.arange(6.0), names=["x"])
    try:
        send_message(w, {"type": "as_strided", "size": "7", "stride": "1", "offset": "0"})
        refused = w.error
        assert "out of bounds" in refused
        set_from_browser(w, selection={"view": 0, "index": [1]})
        assert w.error == refused  # vizgrad's refusal is the map's own error, kept
    finally:
        w.close()


# --- live updates -------------------------------------------------------------------------


def test_live_update_after_inplace_write():
    data = np.arange(6, dtype=np.float32)
    x, tx = vg.from_numpy(data.copy()).view(2, 3), torch.from_numpy(data.copy()).view(2, 3)
    w = StrideMap(x, x.t(), names=["x", "x.t()"])
    try:
        assert w.data["views"][0]["version"] == tx._version == 0
        x.add_(1)
        tx.add_(1)
        check_grid_against_torch(w.data["views"][0], tx)
        check_grid_against_torch(w.data["views"][1], tx.t())
        assert [v["version"] for v in w.data["views"]] == [tx._version, tx.t()._version]
        assert [float(s) for s in w.data["storages"][0]["values"]] == tx.reshape(-1).tolist()
        x.t().mul_(2)  # a write through another view of the same storage
        tx.t().mul_(2)
        check_grid_against_torch(w.data["views"][0], tx)
        assert w.data["views"][0]["version"] == tx._version
    finally:
        w.close()
    before = json.dumps(w.data)
    x.add_(1)
    assert json.dumps(w.data) == before  # closed: no longer listening


def test_unrelated_writes_do_not_redraw():
    x, other = vg.zeros(3), vg.zeros(3)
    w = StrideMap(x)
    try:
        seen = []
        w.observe(lambda change: seen.append(change), names=["data"])
        other.add_(1)
        assert seen == []
        x.add_(1)
        assert len(seen) == 1
    finally:
        w.close()


def test_inplace_metadata_change_redraws_geometry():
    x, tx = vg.arange(6.0).view(2, 3), torch.arange(6.0).view(2, 3)
    w = StrideMap(x)
    try:
        x.t_()
        tx.t_()
        view = w.data["views"][0]
        assert view["shape"] == list(tx.shape) and view["stride"] == list(tx.stride())
        check_grid_against_torch(view, tx)
    finally:
        w.close()


# --- escaping ------------------------------------------------------------------------------


def test_names_are_escaped():
    w = StrideMap(vg.zeros(2, 2), names=[EVIL])
    try:
        text = json.dumps(w.data)
        assert "<img" not in text
        assert "&lt;img src=x onerror=alert(1)&gt;" in text
        assert "<img" not in w.to_html()
        assert "&lt;img" in w.to_html()
    finally:
        w.close()


# --- replay from a recording --------------------------------------------------------------


def record_views():
    with events.Recorder() as rec:
        x = vg.arange(12.0).view(3, 4)
        y = x.t()
        z = x[1:, ::2]
        x.add_(1)
    tx = torch.arange(12.0).view(3, 4)
    return rec, (x, y, z), (tx, tx.t(), tx[1:, ::2])


@pytest.mark.parametrize("as_dicts", [True, False])
def test_show_state_replays_geometry(as_dicts):
    rec, _, torch_views = record_views()
    state = TensorState()
    for event in rec.to_dicts() if as_dicts else rec.events:
        state.apply(event)
    created = [tid for tid, r in state.tensors.items() if r["shape"] in {(3, 4), (4, 3), (2, 2)}]
    ids = created[-3:]  # x's view(3, 4), its t(), the stepped slice
    w = StrideMap()
    try:
        w.show_state(state, ids, names=["x", "x.t()", EVIL])
        assert w.mode == "replay"
        assert "<img" not in json.dumps(w.data)
        views = w.data["views"]
        assert len(views) == 3 and len(w.data["storages"]) == 1
        for view, t in zip(views, torch_views, strict=True):
            assert view["values"] is None  # geometry only: the cells show positions
            assert view["shape"] == list(t.shape) and view["stride"] == list(t.stride())
            assert view["version"] == t._version + 1  # the recording ends after x.add_(1)
            check_grid_against_torch(view, t)
        check_strip_against_torch(w.data["storages"][0], dict(enumerate(torch_views)))
        assert w.data["storages"][0]["values"] is None
        w.selection = {"view": 1, "index": [3, 2]}
        assert w.data["selection"]["arithmetic"] == expected_arithmetic(torch_views[1], (3, 2))
        assert not w.edit((2,), (1,))  # no live tensor to build a view of
        assert w.error
    finally:
        w.close()


def test_show_state_early_step_leaves_out_unseen_tensors():
    state = TensorState()
    w = StrideMap()
    try:
        w.show_state(state, [1, 2])
        assert w.data["views"] == [] and w.data["storages"] == []
    finally:
        w.close()


def test_tensor_state_snapshots_and_json_round_trip():
    rec, _, _ = record_views()
    dicts = rec.to_dicts()
    state = TensorState()
    half = len(dicts) // 2
    for d in dicts[:half]:
        state.apply(d)
    snapshot = state.copy()
    for d in dicts[half:]:
        state.apply(d)
    replayed = TensorState()
    for d in dicts[:half]:
        replayed.apply(d)
    assert snapshot.to_json() == replayed.to_json()  # the snapshot did not move on
    again = TensorState.from_json(json.dumps(state.to_json()))
    assert again.to_json() == state.to_json()
    assert again.tensors == state.tensors
    written = state.last_write
    assert written["op"].startswith("aten::add_") and written["version"] == 1
    assert state.storages[written["storage"]]["writes"] == 1


def test_constructor_checks_its_arguments():
    with pytest.raises(TypeError, match="must be a vizgrad Tensor"):
        StrideMap(np.zeros(3))
    with pytest.raises(ValueError, match="names"):
        StrideMap(vg.zeros(3), names=["a", "b"])
    # Tensors without a strided storage to draw say so, and what to draw instead.
    sparse = vg.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse()
    with pytest.raises(TypeError, match=r"argument 2 is a sparse COO tensor.*_values\(\)"):
        StrideMap(vg.zeros(3), sparse)
    with pytest.raises(
        TypeError, match=r"meta device: it has a shape \(2, 3\) and strides \(3, 1\)"
    ):
        StrideMap(vg.empty(2, 3, device="meta"))
    parts = StrideMap(sparse._indices(), sparse._values(), names=["indices", "values"])
    try:
        assert [v["shape"] for v in parts.data["views"]] == [[2, 2], [2]]
    finally:
        parts.close()


def test_a_map_listens_to_in_place_writes_only():
    x = vg.arange(6.0)
    w = StrideMap(x, names=["x"])
    try:
        assert events.bus.wanted == {"inplace_write"}
        before = w.data["views"][0]["version"]
        vg.ones(2).add_(1)  # another storage: nothing to redraw
        x.add_(1)
        assert w.data["views"][0]["version"] == before + 1
    finally:
        w.close()
    assert not events.bus.active


# --- views that read the bytes as another dtype -------------------------------------------


def dtype_views(lib):
    """A float32 matrix, its bytes read as int16, and a complex vector read as floats."""
    x = lib.arange(6.0).reshape(2, 3)
    z = lib.tensor([1 + 2j, 3 - 1j, -0.5j])
    return x, x.view(lib.int16), z, lib.view_as_real(z), x[:, 1:].view(lib.int16)


def test_a_view_of_another_dtype_gets_its_own_strip_of_the_same_bytes():
    """Offsets and strides count elements of the view's dtype: the storage is drawn again,
    cut into those elements, with the values torch reads there."""
    tviews, vviews = dtype_views(torch), dtype_views(vg)
    w = StrideMap(*vviews, names=["x", "x.view(int16)", "z", "view_as_real(z)", "part"])
    try:
        views, strips = w.data["views"], w.data["storages"]
        assert [v["storage"] for v in views] == [0, 1, 2, 3, 1]
        assert [(s["numel"], s["dtype"]) for s in strips] == [
            (torch_storage_numel(t), str(t.dtype).removeprefix("torch."))
            for t in (tviews[0], tviews[1], tviews[2], tviews[3])
        ]
        assert strips[1]["label"].endswith("read as int16")
        assert strips[3]["label"].endswith("read as float32")
        for view, t in zip(views, tviews, strict=True):
            assert view["stride"] == list(t.stride()) and view["offset"] == t.storage_offset()
            check_grid_against_torch(view, t)
        check_strip_against_torch(strips[1], {1: tviews[1], 4: tviews[4]})
        check_strip_against_torch(strips[3], {3: tviews[3]})
        assert "storage #" in w.to_html() and "read as int16" in w.to_html()
        # A write through the float32 view redraws the strip of its bytes read as int16.
        vviews[0].add_(1)
        tviews[0].add_(1)
        check_grid_against_torch(w.data["views"][1], tviews[1])
    finally:
        w.close()


def test_a_replayed_view_of_another_dtype_counts_the_bytes_in_its_elements():
    with events.Recorder() as rec:
        x = vg.arange(6.0).reshape(2, 3)
        y = x.view(vg.int16)
    state = TensorState()
    for event in rec.events:
        state.apply(event)
    ids = [events.event_id(x), events.event_id(y)]
    tx = torch.arange(6.0).reshape(2, 3)
    w = StrideMap()
    try:
        w.show_state(state, ids, names=["x", "x.view(int16)"])
        strips = w.data["storages"]
        assert [(s["numel"], s["dtype"]) for s in strips] == [(6, "float32"), (12, "int16")]
        check_grid_against_torch(w.data["views"][1], tx.view(torch.int16))
        check_strip_against_torch(strips[1], {1: tx.view(torch.int16)})
    finally:
        w.close()

"""A Timeline has no process-wide side effects: replay data is compact, graphs are freed.

``rec.show()`` once froze the garbage collector (``freeze``), which moved every
object alive at that moment - the user's autograd graphs included - out of the
collector's reach for good: 30 rounds of record-and-show with a 4 MB tensor kept
~250 MB. The replay now keeps its events as records the collector need not scan, and
never touches ``gc``.
"""

from __future__ import annotations

import gc
import re
import weakref
from pathlib import Path

import pytest
from vizgrad.widgets import GraphView, record
from vizgrad.widgets.state.persistent import ChunkedList, ChunkedMap
from vizgrad.widgets.timeline import Replay, compact_event

import vizgrad as vg
from vizgrad import events

WIDGETS = Path(__file__).parents[2] / "widgets"


def test_record_and_show_rounds_free_their_graphs_and_freeze_nothing():
    frozen, enabled = gc.get_freeze_count(), gc.isenabled()
    storages = []
    for _ in range(30):
        x = vg.randn(1024 * 1024, requires_grad=True)  # 4 MB of float32
        with record() as rec:
            loss = (x * x + x).sum()  # x <-> its AccumulateGrad: a reference cycle
            loss.backward()
        timeline = rec.show()
        timeline.close()
        storages.append(weakref.ref(x.untyped_storage()))
        del x, loss, rec, timeline
    gc.collect()
    assert sum(ref() is not None for ref in storages) == 0, "a recorded graph stayed alive"
    assert gc.get_freeze_count() == frozen and gc.isenabled() == enabled


def test_replay_records_are_not_scanned_by_the_collector():
    w = vg.tensor([1.0, 2.0], requires_grad=True)
    with record() as rec:
        for _ in range(3):
            (w * w + w).sum().backward()
    replay = Replay(rec.event_dicts())
    gc.collect()
    gc.collect()  # nested tuples are untracked from the inside out, one pass per level
    tracked = {e["kind"] for e in replay.events if gc.is_tracked(e)}
    # CPython never untracks a dict holding a dict: the engine's dependency tables stay.
    assert tracked <= {"backward_started", "ready_queue_changed"}
    assert len(replay.events) > 50 and not gc.is_tracked(replay.events[0])


def test_compact_event_keeps_values_and_leaves_its_input_alone():
    d = {"kind": "node_created", "outputs": [1, 2], "dependencies": {3: 1},
         "output_meta": [[[2, 3], "float32"]], "seq": 4}  # fmt: skip
    compact = compact_event(d)
    assert compact == {"kind": "node_created", "outputs": (1, 2), "dependencies": {3: 1},
                       "output_meta": (((2, 3), "float32"),), "seq": 4}  # fmt: skip
    assert d["outputs"] == [1, 2]  # the caller's dict is not changed
    assert compact_event(compact) is compact  # already compact: kept as it is
    event = events.OpReturned(1, "aten::add.Tensor")
    assert compact_event(event) == event.to_dict()


def test_widgets_touch_no_gc_and_no_private_engine_ids():
    """Views know the engine through its public API and its events (DESIGN.md)."""
    for path in sorted(WIDGETS.rglob("*.py")):
        source = path.read_text()
        assert not re.search(r"^\s*import gc|\bgc\.", source, re.M), path
        assert not re.search(r"\._id\b|\._input_meta|\._output_meta|\._sequence_nr\b", source), path


def test_live_graph_view_names_tensors_through_event_ids():
    a = vg.tensor([1.0, 2.0], requires_grad=True)
    y = (a * a).sum()
    view = GraphView(y, names={"a": a})
    assert "a: [2] float32" in view.dot
    view.close()


# --- snapshots share what did not change ---------------------------------------------------


def test_chunked_map_copies_share_chunks_and_write_their_own():
    table = ChunkedMap((i, str(i)) for i in range(1, 300))
    snapshot = table.copy()
    table[5] = "five"
    table[1000] = "new"
    del table[7]
    assert snapshot[5] == "5" and 7 in snapshot and 1000 not in snapshot
    assert table[5] == "five" and 7 not in table and table.get(1000) == "new"
    assert list(snapshot) == list(range(1, 300))  # key order: insertion order for ids
    assert len(table) == 299 and len(snapshot) == 299
    assert table == {**{i: str(i) for i in range(1, 300) if i != 7}, 5: "five", 1000: "new"}
    # Only the chunks written were copied: the rest are the same objects.
    chunks = [(c, t) for block in snapshot._blocks.values() for c, t in block.items()]
    mine = {c: t for block in table._blocks.values() for c, t in block.items()}
    shared = [c for c, t in chunks if mine.get(c) is t]
    assert len(shared) == len(chunks) - 1  # 5 and 7 are in chunk 0, 1000 in a new one
    edges = ChunkedMap({(3, 0): "g", (3, 1): "h"})
    assert edges[(3, 1)] == "h" and (4, 0) not in edges


def test_chunked_list_copies_share_chunks_and_write_their_own():
    items = ChunkedList(range(200))
    snapshot = items.copy()
    items[3] = -3
    items.append(200)
    assert snapshot[3] == 3 and len(snapshot) == 200 and snapshot[-1] == 199
    assert items[3] == -3 and items[-1] == 200 and items[-3:] == [198, 199, 200]
    assert list(reversed(items))[:2] == [200, 199]
    assert items == [*range(3), -3, *range(4, 201)]
    with pytest.raises(IndexError):
        items[201]


def test_replay_snapshots_grow_with_the_recording_not_its_square():
    """Snapshots every 50 events of a loop: the references they hold per event stay flat
    as the recording gets 4x longer (a whole-table copy per snapshot made them grow 4x)."""
    w = vg.tensor([1.0, 2.0], requires_grad=True)

    def references_per_event(rounds: int) -> float:
        with record() as rec:
            for _ in range(rounds):
                (w * w + w).sum().backward()
        replay = Replay(rec.event_dicts(), snapshot_every=50)
        held = 0
        for snapshot in replay._snapshots:
            held += len(snapshot["dispatch"].calls._blocks)
            held += sum(len(t._blocks) for t in (snapshot["tensors"].tensors,
                                                 snapshot["graph"].nodes))  # fmt: skip
        return held / len(replay.events)

    short, long = references_per_event(10), references_per_event(40)
    assert long < 2 * short, (short, long)

"""The user's names for tensors, read the same way by every view.

``names`` maps names to tensors, ``{"w": w, "x": x}`` (the order of torchviz's
``make_dot(params=...)``), or tensors to names, ``{w: "w"}``. ``GraphView(names=...)``,
the Timeline (``rec.show(names=...)``) and the exported page
(``rec.to_html(path, names=...)``) all read it with ``named_tensors``.

A recording names tensors by its own ids (renumbered from 1 by ``Recorder.to_dicts``),
so a live tensor's name is matched through that renumbering (``RecordingNames``). A
named tensor made before the recording started was never seen created: the recording
knows its id, not its shape. The live tensor still tells it
(``vizgrad.autograd.tensor_events``), so the views draw it with its shape and storage
(as they are now) instead of "(shape unknown)".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from vizgrad import Tensor, events
from vizgrad.autograd import tensor_events

__all__ = ["RecordingNames", "named_tensors"]

_EXPECTED = "names must map names to tensors, as {'w': w} (or tensors to names, {w: 'w'})"


def named_tensors(names, where: str) -> list[tuple[str, Tensor]]:
    """``(name, tensor)`` pairs from ``{"w": w}`` or ``{w: "w"}``; ``where`` is the call
    a ``TypeError`` names (``"GraphView()"``)."""
    if names is None:
        return []
    if not isinstance(names, Mapping):
        raise TypeError(f"{where}: {_EXPECTED}; got a {type(names).__name__}")
    pairs = []
    for key, value in names.items():
        name, tensor = (value, key) if isinstance(value, str) else (key, value)
        if not isinstance(name, str) or not isinstance(tensor, Tensor):
            raise TypeError(f"{where}: {_EXPECTED}; got a {type(key).__name__} key with a "
                            f"{type(value).__name__} value")  # fmt: skip
        pairs.append((name, tensor))
    return pairs


@dataclass(frozen=True)
class RecordingNames:
    """The user's names in a recording's ids, and what the recording never saw of them.

    * ``by_id`` — the recording's tensor id -> the user's name;
    * ``described`` — for named tensors made before the recording started, the events
      that made them and their storages (as dicts, in the recording's ids): a replay
      folds them before the recording's first event.
    """

    by_id: dict[int, str] = field(default_factory=dict)
    described: tuple[dict, ...] = ()

    @classmethod
    def of(cls, recording, names, event_dicts, where: str) -> RecordingNames:
        """Match ``names`` to ``recording``, whose events renumbered are ``event_dicts``."""
        pairs = named_tensors(names, where)
        if not pairs:
            return cls()
        if not isinstance(recording, events.Recorder) or getattr(recording, "loaded", False):
            raise ValueError(
                f"{where}: names are matched to live tensors through the recording that saw "
                "them; this one was loaded from JSON or is a list of events, so no live "
                "tensor is in it (give names with the Recording that record() returned)"
            )
        ids = _renumbering(recording, event_dicts)
        created_tensors = {d["tensor"] for d in event_dicts if d["kind"] == "tensor_created"}
        created_storages = {d["storage"] for d in event_dicts if d["kind"] == "storage_created"}
        fresh_storage = max(ids["storage"].values(), default=0)
        by_id, described = {}, []
        for name, tensor in pairs:
            local = ids["tensor"].get(events.event_id(tensor))
            if not local:
                continue  # the recording never mentions it: nothing to name
            by_id[local] = name
            if local in created_tensors:
                continue
            storage_made, tensor_made = (e.to_dict() for e in tensor_events(tensor))
            storage = ids["storage"].get(storage_made["storage"])
            if storage is None:  # a storage the recording never mentions: a new id
                fresh_storage += 1
                storage = ids["storage"][storage_made["storage"]] = fresh_storage
            if storage not in created_storages:
                created_storages.add(storage)
                described.append({**storage_made, "storage": storage, "seq": 0})
            described.append({**tensor_made, "tensor": local, "storage": storage, "seq": 0})
        return cls(by_id, tuple(described))

    def tensor_name(self, tensor_id: int) -> str:
        """What a view calls the recording's tensor ``tensor_id``."""
        return self.by_id.get(tensor_id, f"tensor #{tensor_id}")


def _renumbering(recording, event_dicts) -> dict[str, dict[int, int]]:
    """Engine id -> the recording's id, for tensors and storages: read off the events
    and their renumbered dicts side by side (the rule is ``Recorder.to_dicts``'s own)."""
    tables: dict[str, dict[int, int]] = {"tensor": {}, "storage": {}}
    for raw, plain in zip(recording.events, event_dicts, strict=True):
        for name, space in raw.id_fields.items():
            table = tables.get(space)
            if table is None:
                continue
            engine, local = getattr(raw, name), plain[name]
            if isinstance(engine, tuple | list):
                table.update((e, r) for e, r in zip(engine, local, strict=True) if e)
            elif engine:
                table[engine] = local
    return tables

"""TensorState: the geometry of every tensor seen in the event stream.

It folds ``StorageCreated``, ``TensorCreated``, ``ViewCreated`` and ``InplaceWrite``
into, for each tensor id, what PyTorch's ``TensorImpl`` holds: the storage it reads,
its shape, stride and storage offset, its dtype, its ``_base`` and its ``_version``.
That is all a stride map needs to draw a tensor in a replay, when the live tensor is
long gone.

Records are never changed in place (a change makes a new dict), and the tables are
``ChunkedMap``s whose chunks copies share: ``copy()`` costs a few references per 64
tensors, so a Timeline's snapshots grow with the recording, not with its square.
"""

from __future__ import annotations

import json

from .persistent import ChunkedMap

__all__ = ["TensorState"]


def _as_dict(event) -> dict:
    """Events arrive as ``Event`` objects (live) or as their dicts (from a recording)."""
    return event if isinstance(event, dict) else event.to_dict()


class TensorState:
    """Tensors and storages by id, as the events describe them.

    * ``storages[id]`` — ``{"dtype", "numel", "writes"}``: ``writes`` counts in-place
      writes into the storage, so a view can tell that its values changed.
    * ``tensors[id]`` — ``{"storage", "shape", "stride", "offset", "dtype", "base"}``;
      ``base`` is the id of the tensor owning the memory (0 for a tensor that is not a
      view), as ``Tensor._base``.
    * ``versions[root]`` — the version counter shared by a base and all its views,
      keyed by the base's id (views share their base's counter, as in PyTorch).
    """

    def __init__(self):
        self.storages: ChunkedMap = ChunkedMap()
        self.tensors: ChunkedMap = ChunkedMap()
        self.versions: ChunkedMap = ChunkedMap()
        # For storages whose creation was not recorded: the least numel their tensors read.
        self.extents: ChunkedMap = ChunkedMap()
        self.last_write: dict | None = None  # the latest InplaceWrite, as a dict

    # --- folding events ---------------------------------------------------------------

    def apply(self, event) -> None:
        """Fold one event; events this state does not follow are ignored."""
        d = _as_dict(event)
        handler = self._HANDLERS.get(d["kind"])
        if handler is not None:
            handler(self, d)

    def _storage_created(self, d: dict) -> None:
        self.storages[d["storage"]] = {"dtype": d["dtype"], "numel": d["numel"], "writes": 0}

    def _tensor_created(self, d: dict) -> None:
        self.tensors[d["tensor"]] = {
            "storage": d["storage"],
            "shape": tuple(d["shape"]),
            "stride": tuple(d["stride"]),
            "offset": d["offset"],
            "dtype": d["dtype"],
            "base": 0,
        }
        self._reads_up_to(self.tensors[d["tensor"]])

    def _reads_up_to(self, record: dict) -> None:
        """Grow the extent of an unrecorded storage to cover what ``record`` reads."""
        if record["storage"] in self.storages or 0 in record["shape"]:
            return
        last = record["offset"] + sum(
            (n - 1) * s for n, s in zip(record["shape"], record["stride"], strict=True)
        )
        if last + 1 > self.extents.get(record["storage"], 0):
            self.extents[record["storage"]] = last + 1

    def _view_created(self, d: dict) -> None:
        record = self.tensors.get(d["tensor"])
        if record is None:  # the recording started after the tensor was made
            return
        self.tensors[d["tensor"]] = {
            **record,
            "base": d["base"],
            "shape": tuple(d["shape"]),
            "stride": tuple(d["stride"]),
            "offset": d["offset"],
        }
        self._reads_up_to(self.tensors[d["tensor"]])

    def _inplace_write(self, d: dict) -> None:
        self.versions[self.root(d["tensor"])] = d["version"]
        storage = self.storages.get(d["storage"])
        if storage is not None:
            self.storages[d["storage"]] = {**storage, "writes": storage["writes"] + 1}
        self.last_write = {key: d[key] for key in ("tensor", "storage", "op", "version")}

    _HANDLERS = {
        "storage_created": _storage_created,
        "tensor_created": _tensor_created,
        "view_created": _view_created,
        "inplace_write": _inplace_write,
    }

    # --- reading ----------------------------------------------------------------------

    def root(self, tensor_id: int) -> int:
        """The tensor whose version counter ``tensor_id`` shares: its base, or itself."""
        record = self.tensors.get(tensor_id)
        return record["base"] if record is not None and record["base"] else tensor_id

    def version(self, tensor_id: int) -> int:
        return self.versions.get(self.root(tensor_id), 0)

    def tensor(self, tensor_id: int) -> dict:
        """Everything known about one tensor, its version included (KeyError if unseen)."""
        return {**self.tensors[tensor_id], "version": self.version(tensor_id)}

    def storage_numel(self, storage_id: int) -> int:
        """Elements in a storage; if its creation was not recorded, the least its tensors read."""
        storage = self.storages.get(storage_id)
        if storage is not None:
            return storage["numel"]
        return self.extents.get(storage_id, 0)  # kept up to date as tensors arrive

    def views_of_storage(self, storage_id: int) -> list[int]:
        """Ids of the tensors reading ``storage_id``, in creation order."""
        return [tid for tid, r in self.tensors.items() if r["storage"] == storage_id]

    # --- snapshots and export ---------------------------------------------------------

    def copy(self) -> TensorState:
        """A snapshot: the tables are copied, the (never mutated) records are shared."""
        snapshot = TensorState()
        snapshot.storages = self.storages.copy()
        snapshot.tensors = self.tensors.copy()
        snapshot.versions = self.versions.copy()
        snapshot.extents = self.extents.copy()
        snapshot.last_write = self.last_write
        return snapshot

    def to_json(self) -> dict:
        """Plain JSON-able data (ids become string keys, as JSON objects require)."""

        def table(rows: dict) -> dict:
            return {str(k): {n: list(v) if isinstance(v, tuple) else v for n, v in r.items()}
                    for k, r in rows.items()}  # fmt: skip

        return {
            "storages": table(self.storages),
            "tensors": table(self.tensors),
            "versions": {str(k): v for k, v in self.versions.items()},
            "last_write": self.last_write,
        }

    @classmethod
    def from_json(cls, data) -> TensorState:
        """Rebuild from ``to_json()``'s data (or its JSON text)."""
        if isinstance(data, str):
            data = json.loads(data)
        state = cls()
        state.storages = ChunkedMap((int(k), dict(v)) for k, v in data["storages"].items())
        state.tensors = ChunkedMap(
            (int(k), {**v, "shape": tuple(v["shape"]), "stride": tuple(v["stride"])})
            for k, v in data["tensors"].items()
        )
        state.versions = ChunkedMap((int(k), v) for k, v in data["versions"].items())
        state.last_write = data.get("last_write")
        for record in state.tensors.values():
            state._reads_up_to(record)
        return state

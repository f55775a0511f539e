"""Tables a replay can snapshot in time proportional to what changed, not to their size.

A ``Timeline`` keeps a snapshot of every view's state every few hundred events, and a
``GraphView`` one per backward step. Copying a whole ``dict`` of every tensor or
operator call each time made a replay's memory grow with the *square* of the
recording's length (a 96,000-event recording: 257 MB of snapshots; 384,000: 3.3 GB).

These two containers are the classic answer, *structural sharing* (as in Clojure's
vectors or a file system's copy-on-write blocks): entries live in small chunks of
``CHUNK`` slots; ``copy()`` copies only the list of chunks, and whichever copy writes
into a shared chunk copies that one chunk first. A snapshot then costs ``n / CHUNK``
references plus the chunks written since the last one.

* ``ChunkedMap`` — a ``dict`` for integer keys (ids; ``(node, position)`` pairs are
  chunked by their first element). Iteration is in key order chunk by chunk, and in
  insertion order within a chunk: for ids handed out in increasing order (every id a
  recording holds), that is insertion order, as a ``dict``'s.
* ``ChunkedList`` — a ``list`` that grows at its end and whose items may be replaced.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence

__all__ = ["CHUNK", "ChunkedList", "ChunkedMap"]

CHUNK = 64  # slots per chunk: a write copies at most this many references
_SHIFT = 6


def _chunk_of(key) -> int:
    if isinstance(key, tuple):
        key = key[0]
    return key >> _SHIFT if isinstance(key, int) else hash(key) >> _SHIFT


class ChunkedMap(MutableMapping):
    """A mapping whose ``copy()`` shares its chunks (copy-on-write, chunk by chunk)."""

    __slots__ = ("_chunks", "_owned", "_len")

    def __init__(self, items=()):
        self._chunks: dict[int, dict] = {}
        self._owned: set[int] = set()  # chunks no other copy holds: written in place
        self._len = 0
        for key, value in dict(items).items():
            self[key] = value

    def copy(self) -> ChunkedMap:
        other = ChunkedMap.__new__(ChunkedMap)
        other._chunks = dict(self._chunks)
        other._owned = set()
        other._len = self._len
        self._owned = set()  # both now share every chunk
        return other

    def _writable(self, chunk: int) -> dict:
        table = self._chunks.get(chunk)
        if table is None:
            table = self._chunks[chunk] = {}
            self._owned.add(chunk)
        elif chunk not in self._owned:
            table = self._chunks[chunk] = dict(table)
            self._owned.add(chunk)
        return table

    def __getitem__(self, key):
        table = self._chunks.get(_chunk_of(key))
        if table is None:
            raise KeyError(key)
        return table[key]

    def get(self, key, default=None):
        table = self._chunks.get(_chunk_of(key))
        return default if table is None else table.get(key, default)

    def __contains__(self, key) -> bool:
        table = self._chunks.get(_chunk_of(key))
        return table is not None and key in table

    def __setitem__(self, key, value) -> None:
        table = self._writable(_chunk_of(key))
        if key not in table:
            self._len += 1
        table[key] = value

    def __delitem__(self, key) -> None:
        chunk = _chunk_of(key)
        if key not in self._chunks.get(chunk, ()):
            raise KeyError(key)
        table = self._writable(chunk)
        del table[key]
        self._len -= 1
        if not table:
            del self._chunks[chunk]
            self._owned.discard(chunk)

    def __iter__(self):
        for chunk in sorted(self._chunks):
            yield from self._chunks[chunk]

    def __len__(self) -> int:
        return self._len

    # Faster than the mixins' (a lookup per key): chunk by chunk.
    def keys(self):
        return iter(self)

    def items(self):
        for chunk in sorted(self._chunks):
            yield from self._chunks[chunk].items()

    def values(self):
        for chunk in sorted(self._chunks):
            yield from self._chunks[chunk].values()

    def __eq__(self, other) -> bool:
        if isinstance(other, MutableMapping | dict):
            return len(self) == len(other) and dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # mutable, as a dict

    def __repr__(self) -> str:
        return f"ChunkedMap({dict(self.items())!r})"


class ChunkedList(Sequence):
    """A list that grows at its end, whose ``copy()`` shares its chunks (copy-on-write)."""

    __slots__ = ("_chunks", "_owned", "_len")

    def __init__(self, items=()):
        self._chunks: list[list] = []
        self._owned: set[int] = set()
        self._len = 0
        for item in items:
            self.append(item)

    def copy(self) -> ChunkedList:
        other = ChunkedList.__new__(ChunkedList)
        other._chunks = list(self._chunks)
        other._owned = set()
        other._len = self._len
        self._owned = set()
        return other

    def _writable(self, chunk: int) -> list:
        if chunk not in self._owned:
            self._chunks[chunk] = list(self._chunks[chunk])
            self._owned.add(chunk)
        return self._chunks[chunk]

    def append(self, item) -> None:
        chunk = self._len >> _SHIFT
        if chunk == len(self._chunks):
            self._chunks.append([])
            self._owned.add(chunk)
        self._writable(chunk).append(item)
        self._len += 1

    def extend(self, items) -> None:
        for item in items:
            self.append(item)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("ChunkedList index out of range")
        return self._chunks[index >> _SHIFT][index & (CHUNK - 1)]

    def __setitem__(self, index: int, item) -> None:
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("ChunkedList assignment index out of range")
        self._writable(index >> _SHIFT)[index & (CHUNK - 1)] = item

    def __iter__(self):
        for chunk in self._chunks:
            yield from chunk

    def __len__(self) -> int:
        return self._len

    def __eq__(self, other) -> bool:
        if isinstance(other, Sequence):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        return f"ChunkedList({list(self)!r})"

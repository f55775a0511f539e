"""Tables a replay can snapshot in time proportional to what changed, not to their size.

A ``Timeline`` keeps a snapshot of every view's state every few hundred events, and a
``GraphView`` one per backward step. Copying a whole ``dict`` of every tensor or
operator call each time made a replay's memory grow with the *square* of the
recording's length (a 96,000-event recording: 257 MB of snapshots; 384,000: 3.3 GB).

These two containers are the classic answer, *structural sharing* (as in Clojure's
vectors or a file system's copy-on-write blocks): entries live in small chunks of
``CHUNK`` slots, grouped in blocks of 64 chunks; ``copy()`` copies only the table of
blocks, and whichever copy writes into a shared block or chunk copies that one first.
A snapshot then costs ``n / 4096`` references plus what was written since the last
one: for any recording a Recorder can hold (a million events) that is linear in
practice.

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
# Chunks per block: a copy holds one reference per block (n / 4096 of them), so the
# snapshots of a million-event recording still cost a few megabytes, not gigabytes.
_BLOCK_SHIFT = 6


def _chunk_of(key) -> int:
    if isinstance(key, tuple):
        key = key[0]
    return key >> _SHIFT if isinstance(key, int) else hash(key) >> _SHIFT


class ChunkedMap(MutableMapping):
    """A mapping whose ``copy()`` shares its chunks (copy-on-write, chunk by chunk).

    Two levels: blocks of chunks of entries. A copy copies the table of blocks; a write
    copies the block and the chunk it lands in, unless this map already owns them.
    """

    __slots__ = ("_blocks", "_owned_blocks", "_owned_chunks", "_len")

    def __init__(self, items=()):
        self._blocks: dict[int, dict[int, dict]] = {}
        self._owned_blocks: set[int] = set()  # written since the last copy: in place
        self._owned_chunks: set[int] = set()
        self._len = 0
        for key, value in dict(items).items():
            self[key] = value

    def copy(self) -> ChunkedMap:
        other = ChunkedMap.__new__(ChunkedMap)
        other._blocks = dict(self._blocks)
        other._owned_blocks, other._owned_chunks = set(), set()
        other._len = self._len
        self._owned_blocks, self._owned_chunks = set(), set()  # both share everything now
        return other

    def _chunk(self, chunk: int) -> dict | None:
        block = self._blocks.get(chunk >> _BLOCK_SHIFT)
        return None if block is None else block.get(chunk)

    def _writable(self, chunk: int) -> dict:
        index = chunk >> _BLOCK_SHIFT
        block = self._blocks.get(index)
        if block is None:
            block = self._blocks[index] = {}
            self._owned_blocks.add(index)
        elif index not in self._owned_blocks:
            block = self._blocks[index] = dict(block)
            self._owned_blocks.add(index)
        table = block.get(chunk)
        if table is None:
            table = block[chunk] = {}
            self._owned_chunks.add(chunk)
        elif chunk not in self._owned_chunks:
            table = block[chunk] = dict(table)
            self._owned_chunks.add(chunk)
        return table

    # Reads are the hot path (renumbering every id of every event): inlined lookups.
    def __getitem__(self, key):
        chunk = key >> _SHIFT if type(key) is int else _chunk_of(key)
        block = self._blocks.get(chunk >> _BLOCK_SHIFT)
        table = None if block is None else block.get(chunk)
        if table is None:
            raise KeyError(key)
        return table[key]

    def get(self, key, default=None):
        chunk = key >> _SHIFT if type(key) is int else _chunk_of(key)
        block = self._blocks.get(chunk >> _BLOCK_SHIFT)
        table = None if block is None else block.get(chunk)
        return default if table is None else table.get(key, default)

    def __contains__(self, key) -> bool:
        chunk = key >> _SHIFT if type(key) is int else _chunk_of(key)
        block = self._blocks.get(chunk >> _BLOCK_SHIFT)
        table = None if block is None else block.get(chunk)
        return table is not None and key in table

    def __setitem__(self, key, value) -> None:
        table = self._writable(_chunk_of(key))
        if key not in table:
            self._len += 1
        table[key] = value

    def __delitem__(self, key) -> None:
        chunk = _chunk_of(key)
        if key not in (self._chunk(chunk) or ()):
            raise KeyError(key)
        del self._writable(chunk)[key]
        self._len -= 1

    def _tables(self):
        for index in sorted(self._blocks):
            block = self._blocks[index]
            for chunk in sorted(block):
                yield block[chunk]

    def __iter__(self):
        for table in self._tables():
            yield from table

    def __len__(self) -> int:
        return self._len

    # Faster than the mixins' (a lookup per key): chunk by chunk.
    def keys(self):
        return iter(self)

    def items(self):
        for table in self._tables():
            yield from table.items()

    def values(self):
        for table in self._tables():
            yield from table.values()

    def __eq__(self, other) -> bool:
        if isinstance(other, MutableMapping | dict):
            return len(self) == len(other) and dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # mutable, as a dict

    def __repr__(self) -> str:
        return f"ChunkedMap({dict(self.items())!r})"


class ChunkedList(Sequence):
    """A list that grows at its end, whose ``copy()`` shares its chunks (copy-on-write;
    blocks of chunks, as ``ChunkedMap``)."""

    __slots__ = ("_blocks", "_owned_blocks", "_owned_chunks", "_len")

    def __init__(self, items=()):
        self._blocks: list[list[list]] = []
        self._owned_blocks: set[int] = set()
        self._owned_chunks: set[int] = set()
        self._len = 0
        for item in items:
            self.append(item)

    def copy(self) -> ChunkedList:
        other = ChunkedList.__new__(ChunkedList)
        other._blocks = list(self._blocks)
        other._owned_blocks, other._owned_chunks = set(), set()
        other._len = self._len
        self._owned_blocks, self._owned_chunks = set(), set()
        return other

    def _writable(self, chunk: int) -> list:
        index = chunk >> _BLOCK_SHIFT
        if index == len(self._blocks):
            self._blocks.append([])
            self._owned_blocks.add(index)
        elif index not in self._owned_blocks:
            self._blocks[index] = list(self._blocks[index])
            self._owned_blocks.add(index)
        block = self._blocks[index]
        at = chunk & ((1 << _BLOCK_SHIFT) - 1)
        if at == len(block):
            block.append([])
            self._owned_chunks.add(chunk)
        elif chunk not in self._owned_chunks:
            block[at] = list(block[at])
            self._owned_chunks.add(chunk)
        return block[at]

    def append(self, item) -> None:
        self._writable(self._len >> _SHIFT).append(item)
        self._len += 1

    def extend(self, items) -> None:
        for item in items:
            self.append(item)

    def _at(self, index: int) -> int:
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("ChunkedList index out of range")
        return index

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        index = self._at(index)
        chunk = index >> _SHIFT
        return self._blocks[chunk >> _BLOCK_SHIFT][chunk & ((1 << _BLOCK_SHIFT) - 1)][
            index & (CHUNK - 1)
        ]

    def __setitem__(self, index: int, item) -> None:
        index = self._at(index)
        self._writable(index >> _SHIFT)[index & (CHUNK - 1)] = item

    def __iter__(self):
        for block in self._blocks:
            for chunk in block:
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

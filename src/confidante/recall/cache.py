"""The decrypted partition cache: bounded in bytes, least recently used evicted first.

A server that has touched every user would otherwise hold every user's plaintext for as long
as it runs (measured at 1,000,000 facts: 4-5 KB of memory per loaded fact). Evicted indexes
are dropped whole, so their decrypted text is released with them (and the stemmer's memo of
words is emptied); loading a partition again costs one query and its decryption (a few ms
for a hundred facts).
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Iterator

import numpy as np

from .analysis import forget_words
from .index import IndexedFact, PartitionIndex

# Python objects around each fact that the arrays below do not count (the Fact and
# IndexedFact objects, datetimes, ids, dict and list slots), measured with tracemalloc on
# chat-like text: ~1.2-1.4 KB a fact (the estimate is checked against tracemalloc: within
# ~10% with the default embedder).
PER_FACT_OVERHEAD = 1_300


def index_bytes(index: PartitionIndex) -> int:
    """An estimate of the memory an index holds (text, vectors, postings, rankers' data)."""
    total = _facts_bytes(index.facts) + _extras_bytes(index)
    for arr in (index.lengths, index.created, index.expires, index.conversation):
        total += arr.nbytes
    for term, (rows, counts) in index.postings.items():
        total += sys.getsizeof(term) + rows.nbytes + counts.nbytes + 250
    return total


def grown_bytes(before: int, old: PartitionIndex, new: PartitionIndex) -> int:
    """`index_bytes(new)` for an index that is `old` with rows appended, from `old`'s size
    (`before`) and the new rows alone: catching up must not cost a pass over every fact."""
    added = new.facts[len(old.facts) :]
    terms = len(new.postings) - len(old.postings)
    per_row = 4 * 4 + 8  # lengths, asks, created, expires, conversation
    return (
        before
        + _facts_bytes(added)
        + _extras_bytes(new)
        - _extras_bytes(old)
        + len(added) * per_row
        + terms * 300
        + sum(len(f.fact.text) for f in added) * 8  # their terms' postings entries
    )


def _facts_bytes(facts: list[IndexedFact]) -> int:
    total = 0
    for f in facts:
        total += PER_FACT_OVERHEAD + sys.getsizeof(f.fact.text)
        if f.vector is not None:
            total += f.vector.nbytes
    return total


def _extras_bytes(index: PartitionIndex) -> int:
    total = 0
    for extra in index.extras.values():  # arrays, or rankers' holders of arrays
        size = getattr(extra, "nbytes", None)
        if isinstance(size, int | np.integer):
            total += int(size)
    return total


class PartitionCache:
    """Partition id -> decrypted index, within `max_bytes` (the newest entry always stays,
    even alone over the budget, so one huge partition can still be searched)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, tuple[PartitionIndex, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, pid: str, version: int) -> PartitionIndex | None:
        """The index of this partition at this version (None if absent or stale)."""
        with self._lock:
            item = self._items.get(pid)
            if item is None or item[0].version != version:
                return None
            self._items.move_to_end(pid)
            return item[0]

    def peek(self, pid: str) -> PartitionIndex | None:
        """Whatever version is cached (a new one may reuse what it read), or None."""
        with self._lock:
            item = self._items.get(pid)
            return None if item is None else item[0]

    def put(self, index: PartitionIndex, size: int | None = None) -> None:
        """Keep `index` (its size estimated here unless the caller knows it)."""
        size = index_bytes(index) if size is None else size
        pid = index.ref.id
        with self._lock:
            self._drop(pid)
            self._items[pid] = (index, size)
            self._bytes += size
            while self._bytes > self.max_bytes and len(self._items) > 1:
                self._drop(next(iter(self._items)))

    def size(self, pid: str) -> int | None:
        """The size counted for the cached index of `pid`, if one is cached."""
        with self._lock:
            item = self._items.get(pid)
            return None if item is None else item[1]

    def pop(self, pid: str) -> None:
        with self._lock:
            self._drop(pid)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0
            forget_words()

    def _drop(self, pid: str) -> None:
        item = self._items.pop(pid, None)
        if item is not None:
            self._bytes -= item[1]
            forget_words()  # the stemmer's memo holds words of the text let go

    @property
    def nbytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, pid: object) -> bool:
        return pid in self._items

    def indexes(self) -> Iterator[PartitionIndex]:
        with self._lock:
            items = [index for index, _ in self._items.values()]
        return iter(items)

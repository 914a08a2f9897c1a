"""Bounded memory (issue 11, item 5): the decrypted partition cache holds at most its byte
budget, least recently used partitions go first, and what it dropped is not kept anywhere
else in the process."""

from __future__ import annotations

import gc
from pathlib import Path

from confidante import Context, Memory
from confidante.config import Settings
from confidante.model import Fact
from confidante.recall.cache import index_bytes
from confidante.recall.index import PartitionIndex

from conftest import OWNER

USERS = [f"discord:{600 + i}" for i in range(30)]


def _fill(m: Memory) -> None:
    for i, u in enumerate(USERS):
        m.remember_many(
            Context.dm(u),
            [
                f"user{i} line {j}: we talked about the allotment and the tomatoes"
                for j in range(40)
            ],
        )


def test_the_cache_stays_within_its_budget_and_forgets_whole(
    backend: str, key: bytes, tmp_path: Path
) -> None:
    budget_mb = 0.25
    s = Settings(cache_mb=budget_mb, embedder="default")
    with Memory.open(backend, owner_ids=[OWNER], master_key=key, settings=s) as m:
        _fill(m)
        m.invalidate()
        for i, u in enumerate(USERS):
            hits = m.recall(Context.dm(u), "tomatoes")
            assert hits and all(f"user{i} " in h.fact.text for h in hits)
            assert m.cache.nbytes <= budget_mb * 2**20 or len(m.cache) == 1
        assert 1 <= len(m.cache) < len(USERS)  # older partitions were evicted
        cached = {ix.ref.id for ix in m.cache.indexes()}
        # The most recent users are the ones kept.
        last = m.recall(Context.dm(USERS[-1]), "allotment")
        assert last and {ix.ref.id for ix in m.cache.indexes()} == cached

        # Nothing else holds an evicted partition's index, nor its decrypted facts.
        gc.collect()
        alive = [o for o in gc.get_objects() if isinstance(o, PartitionIndex)]
        assert {ix.ref.id for ix in alive} <= cached
        texts = {o.text for o in gc.get_objects() if isinstance(o, Fact)}
        assert not any(t.startswith("user0 ") for t in texts)

        # An evicted partition comes back, correct, when asked again.
        again = m.recall(Context.dm(USERS[0]), "tomatoes", k=50)
        assert len(again) == 40 and all(h.fact.text.startswith("user0 ") for h in again)


def test_the_estimate_is_close_to_what_python_allocates(db_path: Path, key: bytes) -> None:
    """The budget is in bytes of memory, so the estimate must be near the real allocation
    (measured with tracemalloc; within a factor of 1.6 either way)."""
    import tracemalloc

    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        _fill(m)
        m.invalidate()
        m.recall(Context.dm(USERS[0]), "warm up the embedder and the stemmer")
        m.invalidate()
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for u in USERS:
            m.recall(Context.dm(u), "tomatoes")
        gc.collect()
        allocated = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        estimated = sum(index_bytes(ix) for ix in m.cache.indexes())
        assert len(m.cache) == len(USERS)
        assert 1 / 1.6 < estimated / allocated < 1.6, (estimated, allocated)

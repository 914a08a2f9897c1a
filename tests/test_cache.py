"""Bounded memory (issue 11, item 5): the decrypted partition cache holds at most its byte
budget, least recently used partitions go first, and what it dropped, or what was forgotten
or overwritten, is not kept anywhere else in the process.

"Anywhere" is checked by walking the object graph: every string reachable from a live object
(what the garbage collector tracks, and every tuple, dict or list they hold, tracked or not).
`gc.get_objects()` alone lists containers only, never a string.
"""

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
# Built at run time, so no code object holds it as a constant.
WORD = "".join(["zebu", "lonish"])
OTHER = "".join(["quimper", "lade"])


def holders_of(needle: str) -> list[str]:
    """The types of the live objects that hold a string containing `needle` (besides the
    needle itself): walks every referent of every gc-tracked object."""
    found = []
    seen: set[int] = set()
    stack = gc.get_objects()
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        for ref in gc.get_referents(obj):
            if type(ref) is str:
                if ref is not needle and needle in ref:
                    found.append(type(obj).__name__)
            elif id(ref) not in seen and not gc.is_tracked(ref):
                stack.append(ref)  # an untracked tuple or dict: its strings count too
    return found


def _gone(needle: str) -> list[str]:
    gc.collect()
    return holders_of(needle)


def _fill(m: Memory) -> None:
    m.remember(Context.dm(USERS[0]), f"user0 said {WORD} grows the best tomatoes")
    m.recall(Context.dm(USERS[0]), f"what about {WORD}")
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

        # Nothing else holds an evicted partition's index, nor any of its text.
        gc.collect()
        alive = [o for o in gc.get_objects() if isinstance(o, PartitionIndex)]
        assert {ix.ref.id for ix in alive} <= cached
        texts = {o.text for o in gc.get_objects() if isinstance(o, Fact)}
        assert not any(t.startswith("user0 ") for t in texts)
        assert _gone(WORD) == []

        # An evicted partition comes back, correct, when asked again.
        again = m.recall(Context.dm(USERS[0]), "tomatoes", k=50)
        assert len(again) == 41 and all(h.fact.text.startswith("user0 ") for h in again)


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


def _canary(m: Memory) -> str:
    """Alice's fact with WORD in it, loaded into the cache and asked for; its id."""
    ctx = Context.dm(USERS[0])
    m.remember_many(ctx, [f"line {i} about the allotment" for i in range(10)])
    fid = m.remember(ctx, f"my cousin {WORD} lives by the harbour").id
    hits = m.recall(ctx, f"where does {WORD} live")
    assert any(WORD in h.fact.text for h in hits)
    del hits
    return fid


def test_nothing_keeps_the_text_of_a_forgotten_fact(backend: str, key: bytes) -> None:
    """After `forget`, the process holds no string with the forgotten fact's words: not the
    stale cached index, not the stemmer's memo, not the semantic ranker's last query."""
    s = Settings(embedder="default")
    with Memory.open(backend, owner_ids=[OWNER], master_key=key, settings=s) as m:
        fid = _canary(m)
        assert _gone(WORD) != []  # (it is there while the partition is cached)
        m.forget(Context.dm(USERS[0]), fid)
        assert _gone(WORD) == []
        assert len(m.recall(Context.dm(USERS[0]), "allotment", k=50)) == 10


def test_nothing_keeps_the_old_text_of_an_updated_fact(backend: str, key: bytes) -> None:
    s = Settings(embedder="default")
    with Memory.open(backend, owner_ids=[OWNER], master_key=key, settings=s) as m:
        fid = _canary(m)
        m.update(Context.dm(USERS[0]), fid, f"my cousin {OTHER} lives by the harbour")
        assert _gone(WORD) == []
        assert OTHER in m.get(Context.dm(USERS[0]), fid).text


def test_nothing_keeps_the_text_of_a_forgotten_person(backend: str, key: bytes) -> None:
    s = Settings(embedder="default")
    with Memory.open(backend, owner_ids=[OWNER], master_key=key, settings=s) as m:
        _canary(m)
        m.forget_subject(Context.dm(OWNER), USERS[0])
        assert _gone(WORD) == []


def test_a_forget_in_another_process_leaves_no_text_here_once_stale_indexes_drop(
    backend: str, key: bytes
) -> None:
    """Two memories on one database stand for a server and the CLI: the CLI forgets what the
    server has cached. `drop_stale` (which `serve` runs every few seconds) lets it go."""
    s = Settings(embedder="default")
    with (
        Memory.open(backend, owner_ids=[OWNER], master_key=key, settings=s) as server,
        Memory.open(backend, owner_ids=[OWNER], master_key=key, settings=s) as cli,
    ):
        fid = _canary(server)
        other = cli.remember(Context.dm(USERS[1]), "someone else's line").id
        server.recall(Context.dm(USERS[1]), "line")
        cli.forget(Context.dm(USERS[0]), fid)
        cli.invalidate()
        assert _gone(WORD) != []  # the server's cached index still has it
        assert server.drop_stale() == 1
        assert _gone(WORD) == []
        assert server.get(Context.dm(USERS[1]), other).text == "someone else's line"

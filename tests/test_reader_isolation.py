"""What a reader may not see never shapes what they get, nor what it costs them.

Ranking reads only the reader's visible rows in every pass (the coarse meaning scan and its
exact re-score, the blend, BM25's statistics, neighbours, supersession), with the large-
partition shortcuts forced on. And a cached partition catches up on rows written since
(`PartitionIndex.extended`) instead of being read again, so a guild member's recall after
someone's private DM reuses everything it had read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from confidante import Context, Memory
from confidante.recall import semantic
from test_large_partitions import QUESTIONS, SESSIONS

from conftest import ALICE, BOB, CAROL, OWNER, Clock

GUILD = "g1"


def _guild_reader() -> Context:
    return Context.guild(BOB, GUILD, channel="c", participants=[ALICE])


def _scores(mem: Memory, ctx: Context, questions: list[str]) -> list[dict[str, float]]:
    return [{h.fact.text: round(h.score, 6) for h in mem.recall(ctx, q, k=20)} for q in questions]


def _fill(db: Path, key: bytes, clock: Clock, hidden: list[list[str]]) -> None:
    """Alice's lines in guild g1 (the same in every database), then her DM and another
    guild's lines (`hidden` from a g1 reader), in the same partition."""
    with Memory.open(db, owner_ids=[OWNER], master_key=key, clock=clock) as mem:
        for i, (when, turns) in enumerate(SESSIONS[:24]):
            # a time of its own per session: lines written at one time are read in the order
            # of their (random) ids, which would differ between the databases compared
            clock.now = when + timedelta(hours=i)
            mem.remember_many(Context.guild(ALICE, GUILD, channel="c"), turns, "me")
        for i, turns in enumerate(hidden):
            clock.now = SESSIONS[24][0] + timedelta(hours=i)
            where = Context.dm(ALICE) if i % 2 else Context.guild(ALICE, "g2", channel="c")
            mem.remember_many(where, turns, "me")


@pytest.mark.parametrize("shortcuts", [False, True])
def test_hidden_rows_move_no_visible_score(
    tmp_path: Path, key: bytes, monkeypatch: pytest.MonkeyPatch, shortcuts: bool
) -> None:
    """Two databases hold the same g1 lines of Alice's and different private lines (other
    topics, other amounts): a g1 member's recall gives the same hits with the same scores,
    with the coarse scan, the exact re-score and the context depth forced on."""
    if shortcuts:
        monkeypatch.setattr(semantic, "_COARSE_FROM", 50)
        monkeypatch.setattr(semantic, "_EXACT_MIN", 30)
        monkeypatch.setattr(semantic, "_BLEND_TOP", 15)
    clock = Clock(datetime(2024, 1, 1, tzinfo=UTC))
    later = [turns for _, turns in SESSIONS[24:]]
    variants = {"a": later[: len(later) // 2], "b": later[len(later) // 2 :] * 2, "none": []}
    got = {}
    questions = [q for q in QUESTIONS if q.isascii()][:40] + [q for q in QUESTIONS][-20:]
    for name, hidden in variants.items():
        db = tmp_path / f"{name}.db"
        _fill(db, key, clock, hidden)
        clock.now = SESSIONS[-1][0] + timedelta(days=2)
        with Memory.open(db, owner_ids=[OWNER], master_key=key, clock=clock) as mem:
            if shortcuts:
                mem.pipeline.context_depth = 25
            got[name] = _scores(mem, _guild_reader(), questions)
            if shortcuts and hidden:
                vectors = [ix.extras["vectors"] for ix in mem.cache.indexes()]
                assert any(v.english.lead is not None for v in vectors)  # shortcut taken
    assert sum(bool(s) for s in got["a"]) > 20  # the guild's lines are found
    assert got["a"] == got["none"]
    assert got["b"] == got["none"]


def test_a_private_write_costs_a_guild_reader_no_rebuild(backend: str, key: bytes) -> None:
    """After Alice writes in her DM, a g1 member's recall reuses every fact of her
    partition it had read (the cached index is extended, not read again), and finds the
    same as a reader who opens the database fresh."""
    with Memory.open(backend, owner_ids=[OWNER], master_key=key) as mem:
        for _, turns in SESSIONS[:6]:
            mem.remember_many(Context.guild(ALICE, GUILD, channel="c"), turns, "me")
        for _, turns in SESSIONS[6:16]:
            mem.remember_many(Context.dm(ALICE), turns)
        reader = _guild_reader()
        before = _scores(mem, reader, QUESTIONS[:30])
        (pid,) = [ix.ref.id for ix in mem.cache.indexes() if ix.ref.scope.value == "user"]
        old = mem.cache.peek(pid)
        mem.remember(Context.dm(ALICE), "I told nobody that I am thinking of moving to Lisbon")
        after = _scores(mem, reader, QUESTIONS[:30])
        new = mem.cache.peek(pid)
        assert new is not old and new.version > old.version
        assert len(new.facts) == len(old.facts) + 1
        assert all(a is b for a, b in zip(old.facts, new.facts, strict=False))  # not re-read
        assert after == before
        # a guild write is caught up the same way, and is found
        mem.remember(Context.guild(ALICE, GUILD, channel="c"), "I moved to Lisbon", "me")
        assert "I moved to Lisbon" in _scores(mem, reader, ["Lisbon"])[0]
        grown = mem.cache.peek(pid)
        assert all(a is b for a, b in zip(old.facts, grown.facts, strict=False))
        last = _scores(mem, reader, QUESTIONS[:30])
    with Memory.open(backend, owner_ids=[OWNER], master_key=key) as fresh:
        assert _scores(fresh, reader, QUESTIONS[:30]) == last
        assert "I moved to Lisbon" in _scores(fresh, reader, ["Lisbon"])[0]


def test_catching_up_matches_a_fresh_read(backend: str, key: bytes) -> None:
    """Writes in many contexts from two open memories (another process's writes are caught
    up too), recalls between them: every reader gets what a fresh reader gets. A forget or
    a rewrite reads the partition again: the old text is gone from the cached index."""
    with (
        Memory.open(backend, owner_ids=[OWNER], master_key=key) as a,
        Memory.open(backend, owner_ids=[OWNER], master_key=key) as b,
    ):
        readers = [
            Context.dm(OWNER),
            Context.dm(ALICE),
            _guild_reader(),
            Context.guild(CAROL, "g2", channel="c", participants=[ALICE]),
        ]
        writers = [
            Context.dm(ALICE),
            Context.guild(ALICE, GUILD, channel="c"),
            Context.guild(ALICE, "g2", channel="c"),
        ]
        questions = QUESTIONS[:12]
        for i, (_, turns) in enumerate(SESSIONS[:12]):
            mem = (a, b)[i % 2]
            mem.remember_many(writers[i % 3], turns, "me")
            for r in readers:  # both memories keep a cached index and catch up
                assert _scores(a, r, questions) == _scores(b, r, questions)
        gone = a.remember(Context.dm(ALICE), "my secret hobby is competitive origami", "me")
        assert gone.text in _scores(b, Context.dm(ALICE), ["origami"])[0]
        a.forget(Context.dm(ALICE), gone.id)
        for mem in (a, b):
            assert gone.text not in _scores(mem, Context.dm(ALICE), ["origami"])[0]
            assert all("origami" not in f.fact.text for ix in mem.cache.indexes() for f in ix.facts)
        with Memory.open(backend, owner_ids=[OWNER], master_key=key) as fresh:
            for r in readers:
                assert _scores(fresh, r, questions) == _scores(a, r, questions)

"""The app's own metadata on facts, filters that only narrow, one fact per sentence said,
and a fact's history."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from confidante import (
    AccessDenied,
    Context,
    InvalidFilter,
    InvalidInput,
    Memory,
    NotFound,
    PrivateDataRefused,
)
from confidante.engine import same_sentence

from conftest import ALICE, BOB, OWNER, Clock


def test_metadata_is_sealed_returned_and_guarded(mem: Memory) -> None:
    alice = Context.dm(ALICE)
    f = mem.remember(alice, "I like sushi", metadata={"category": "food", "stars": 5})
    assert f.metadata == {"category": "food", "stars": 5}
    assert mem.get(alice, f.id).metadata == {"category": "food", "stars": 5}
    with pytest.raises(PrivateDataRefused) as e:
        mem.remember(alice, "my router", metadata={"note": "the password is hunter2-Secret!"})
    assert "hunter2" not in str(e.value)
    with pytest.raises(PrivateDataRefused):
        mem.remember(alice, "my contact", metadata={"jane.doe@example.org": "email"})
    for bad in (
        {"x": float("nan")},
        {"x": {"y": {"z": {"w": {"v": {"u": 1}}}}}},
        {"": 1},
        {"x": "y" * 5000},
        ["not", "an", "object"],
        {"x": object()},
    ):
        with pytest.raises(InvalidInput):
            mem.remember(alice, "something else", metadata=bad)  # type: ignore[arg-type]
    assert [x.text for x in mem.list(alice)] == ["I like sushi"]  # nothing refused was kept


def test_public_metadata_holds_no_identifiers(mem: Memory) -> None:
    owner = Context.dm(OWNER)
    with pytest.raises(PrivateDataRefused):
        mem.remember(owner, "Standup is short", "global", metadata={"by": "Jane Doe"})


def test_filters_narrow_and_never_widen(mem: Memory) -> None:
    alice, bob = Context.dm(ALICE), Context.dm(BOB)
    mem.remember(alice, "I like sushi", metadata={"category": "food"})
    mem.remember(alice, "I play chess on Sundays", metadata={"category": "hobby"})
    mem.remember(alice, "Ramen on Fridays", kind="habit", metadata={"category": "food"})
    mem.remember(bob, "I like sushi too", metadata={"category": "food"})
    food = {"category": "food"}
    assert {f.text for f in mem.list(alice, filters=food)} == {"I like sushi", "Ramen on Fridays"}
    assert {h.fact.text for h in mem.recall(alice, "sushi ramen", filters=food)} <= {
        "I like sushi",
        "Ramen on Fridays",
    }
    assert [f.text for f in mem.list(alice, filters={"kind": "habit"})] == ["Ramen on Fridays"]
    got = mem.list(alice, filters={"metadata.category": {"$in": ["hobby", "other"]}})
    assert [f.text for f in got] == ["I play chess on Sundays"]
    got = mem.list(alice, filters={"$or": [{"kind": "habit"}, {"category": "hobby"}]})
    assert {f.text for f in got} == {"Ramen on Fridays", "I play chess on Sundays"}
    # a filter naming someone else's things finds nothing of theirs
    assert "I like sushi too" not in {f.text for f in mem.list(alice, filters=food)}
    assert mem.list(alice, filters={"category": "food", "user_id": BOB}) == []
    later = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    assert mem.list(alice, filters={"created_at": {"$gte": later}}) == []
    assert len(mem.list(alice, filters={"created_at": {"$lt": later}})) == 3
    for bad in (
        {"category": {"$regex": ".*"}},
        {"created_at": "yesterday"},
        {"$or": []},
        {"category": {"$in": "food"}},
        {"category": [1, 2]},
    ):
        with pytest.raises(InvalidFilter):
            mem.list(alice, filters=bad)
    with pytest.raises(InvalidFilter):
        mem.recall(alice, "sushi", filters={"category": {"$where": "1"}})


def test_the_same_sentence_again_refreshes_the_fact(db_path, key: bytes) -> None:
    clock = Clock(datetime(2026, 1, 1, tzinfo=UTC))
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key, clock=clock) as mem:
        alice = Context.dm(ALICE)
        first = mem.remember(alice, "I like sushi", metadata={"category": "food"})
        assert not first.refreshed
        clock.advance(days=10)
        again = [
            mem.remember(alice, t) for t in ("I like sushi", "i like  sushi.", "I like sushi!")
        ]
        assert all(a.id == first.id and a.refreshed for a in again)
        assert again[-1].expires_at > first.expires_at  # pushed on
        assert again[-1].metadata == {"category": "food"}  # kept
        merged = mem.remember(alice, "I like sushi", metadata={"since": 2020})
        assert merged.metadata == {"category": "food", "since": 2020}
        assert mem.get(alice, first.id).metadata == {"category": "food", "since": 2020}
        assert [f.text for f in mem.list(alice)] == ["I like sushi"]
        # a batch with repeats stores each sentence once
        batch = mem.remember_many(alice, ["We adopted a cat", "we adopted a cat", "I like sushi"])
        assert batch[0].id == batch[1].id and batch[2].id == first.id
        assert len(mem.list(alice)) == 2
        # another place, another writer or another conversation is another fact
        assert mem.remember(alice, "I like sushi more than ramen").id != first.id
        assert mem.remember(Context.dm(BOB), "I like sushi").id != first.id
        g = Context.guild(ALICE, "g1", channel="c")
        assert mem.remember(g, "I like sushi", "me").id != first.id
        assert same_sentence("Ｉ LIKE\tsushi。") == same_sentence("i like sushi")


def test_history_of_updates_and_supersession(mem: Memory) -> None:
    alice = Context.dm(ALICE)
    paris = mem.remember(alice, "I live in Paris")
    mem.update(alice, paris.id, "I live in Paris, in the 11th")
    berlin = mem.remember(alice, "I moved to Berlin")
    mem.update(alice, berlin.id, "I moved to Berlin last spring", metadata={"city": "Berlin"})
    steps = [(v.event, v.fact_id, v.text, v.previous) for v in mem.history(alice, berlin.id)]
    assert steps == [
        ("add", paris.id, "I live in Paris", None),
        ("update", paris.id, "I live in Paris, in the 11th", "I live in Paris"),
        ("supersede", berlin.id, "I moved to Berlin", "I live in Paris, in the 11th"),
        ("update", berlin.id, "I moved to Berlin last spring", "I moved to Berlin"),
    ]
    assert mem.get(alice, berlin.id).metadata == {"city": "Berlin"}
    # history is read like get: invisible elsewhere, gone with the fact
    with pytest.raises(NotFound):
        mem.history(Context.dm(BOB), berlin.id)
    with pytest.raises((NotFound, AccessDenied)):
        mem.history(Context.guild(BOB, "g1"), paris.id)
    mem.forget(alice, paris.id)
    assert [v.fact_id for v in mem.history(alice, berlin.id)] == [berlin.id, berlin.id]


def test_text_keys_follow_the_partition_key(backend: str, tmp_path) -> None:
    """The digest that finds a repeated sentence is keyed by the partition's data key: a
    re-key (PostgreSQL completes an erasure so) makes it anew, and repeats are still found;
    what a forgotten fact's digest could be tested against goes with the old key."""
    from confidante.config import Settings

    settings = Settings(key_file=tmp_path / "keys" / "master.key")
    mem = Memory.open(backend, owner_ids=[OWNER], settings=settings, create_key=True)
    alice = Context.dm(ALICE)
    gone = mem.remember(alice, "I used to smoke")
    kept = mem.remember(alice, "I like sushi")
    before = mem.store.get_fact(kept.id).text_key
    mem.forget(alice, gone.id)
    mem.complete_erasure()
    after = mem.store.get_fact(kept.id).text_key
    if not mem.store.erases_physically:  # PostgreSQL: the partition was re-keyed
        assert after != before
    assert mem.erasure_pending() == 0
    again = mem.remember(alice, "i like sushi.")
    assert again.id == kept.id and again.refreshed
    assert mem.remember(alice, "I used to smoke").id != gone.id
    mem.close()

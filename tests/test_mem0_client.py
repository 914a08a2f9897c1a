"""The Mem0-shaped client, for the calls Mem0 users rely on: metadata kept whole, filters
that narrow (and identity inside them that never widens), one memory per sentence said,
history, hash, `infer=False`, and the async twin. On both engines."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from confidante import Context, InvalidContext, InvalidFilter, InvalidInput, Memory, NotFound
from confidante.integrations.mem0 import AsyncMem0Memory, Mem0Memory

from conftest import ALICE, BOB


@pytest.fixture
def m(mem: Memory) -> Mem0Memory:
    return Mem0Memory(mem, platform="discord")


def test_metadata_is_kept_whole_and_filters_narrow(m: Mem0Memory, mem: Memory) -> None:
    meta = {"category": "health", "source": "intake", "severity": 3, "tags": ["food"]}
    added = m.add("I'm allergic to peanuts", user_id="42", metadata=meta)["results"]
    assert [(r["memory"], r["event"]) for r in added] == [("I'm allergic to peanuts", "ADD")]
    m.add("I love hiking", user_id="42", metadata={"category": "hobby", "severity": 1})
    m.add("I keep bees", user_id="43", metadata={"category": "hobby"})
    got = m.get(added[0]["id"], user_id="42")
    assert got["metadata"] == meta
    assert got["hash"] == hashlib.md5(b"I'm allergic to peanuts").hexdigest()
    assert mem.get(Context.dm(ALICE), added[0]["id"]).metadata == meta

    def texts(result: dict) -> list[str]:
        return sorted(r["memory"] for r in result["results"])

    assert texts(m.get_all(user_id="42", filters={"category": "hobby"})) == ["I love hiking"]
    assert texts(m.get_all(user_id="43", filters={"category": "hobby"})) == ["I keep bees"]
    assert texts(m.get_all(user_id="42", filters={"severity": {"gte": 2}})) == [
        "I'm allergic to peanuts"
    ]
    assert texts(m.get_all(user_id="42", filters={"category": {"in": ["health", "x"]}})) == [
        "I'm allergic to peanuts"
    ]
    assert texts(
        m.get_all(user_id="42", filters={"OR": [{"category": "hobby"}, {"source": "intake"}]})
    ) == ["I love hiking", "I'm allergic to peanuts"]
    assert texts(m.search("hiking peanuts", user_id="42", filters={"category": "health"})) == [
        "I'm allergic to peanuts"
    ]
    assert m.search("bees", user_id="42", filters={"category": "hobby"})["results"] == []
    with pytest.raises(InvalidFilter):  # an operator it does not know is an error, not ignored
        m.get_all(user_id="42", filters={"category": {"$regex": "h.*"}})
    with pytest.raises(InvalidInput):
        m.add("I like tea", user_id="42", metadata="health")  # type: ignore[arg-type]


def test_identity_in_filters_is_the_calls_own(m: Mem0Memory) -> None:
    m.add("I'm allergic to peanuts", user_id="42")
    m.add("I keep bees", user_id="43")
    m.add("booked the venue", user_id="42", run_id="r1")
    # Mem0 v1 lets the identity ride in filters: it is the call's identity, never a filter
    assert [r["memory"] for r in m.get_all(filters={"user_id": "42"})["results"]] == [
        "I'm allergic to peanuts"
    ]
    assert [r["memory"] for r in m.search("bees", filters={"user_id": "43"})["results"]] == [
        "I keep bees"
    ]
    assert [
        r["memory"]
        for r in m.get_all(user_id="42", filters={"user_id": "42", "run_id": "r1"})["results"]
    ] == ["booked the venue"]
    for call in (
        lambda: m.get_all(user_id="42", filters={"user_id": "43"}),  # someone else's: refused
        lambda: m.search("bees", user_id="42", filters={"user_id": "*"}),
        lambda: m.get_all(filters={"user_id": "*"}),
        lambda: m.get_all(filters={"user_id": {"in": ["42", "43"]}}),
        lambda: m.get_all(user_id="42", run_id="r1", filters={"run_id": "r2"}),
        lambda: m.get_all(user_id="42", filters={"OR": [{"user_id": "43"}, {"x": 1}]}),
        lambda: m.get_all(filters={"category": "hobby"}),  # nobody named at all
    ):
        with pytest.raises(InvalidContext):
            call()


def test_the_same_sentence_is_one_memory(m: Mem0Memory) -> None:
    events = [m.add("I like sushi", user_id="42")["results"][0] for _ in range(4)]
    assert [e["event"] for e in events] == ["ADD", "NONE", "NONE", "NONE"]
    assert len({e["id"] for e in events}) == 1
    assert [r["memory"] for r in m.get_all(user_id="42")["results"]] == ["I like sushi"]
    again = m.add(
        [{"role": "user", "content": "i like sushi!"}, {"role": "user", "content": "I like ramen"}],
        user_id="42",
    )["results"]
    assert [(r["memory"], r["event"]) for r in again] == [
        ("I like sushi", "NONE"),
        ("I like ramen", "ADD"),
    ]
    assert m.add("I like sushi", user_id="43")["results"][0]["event"] == "ADD"  # Bob's own


def test_infer_false_stores_the_messages_as_given(m: Mem0Memory) -> None:
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Book a table for Friday"},
        {"role": "assistant", "content": "Booked for Friday at 7pm"},
    ]
    inferred = m.add(messages, user_id="42")["results"]
    assert [r["memory"] for r in inferred] == ["Book a table for Friday"]
    as_given = m.add(messages, user_id="43", infer=False, metadata={"app": "diner"})["results"]
    assert [(r["memory"], r["role"], r["event"]) for r in as_given] == [
        ("Book a table for Friday", "user", "ADD"),
        ("Booked for Friday at 7pm", "assistant", "ADD"),
    ]
    stored = {r["memory"]: r for r in m.get_all(user_id="43")["results"]}
    assert stored["Booked for Friday at 7pm"]["metadata"] == {"app": "diner", "role": "assistant"}
    assert stored["Booked for Friday at 7pm"]["role"] == "assistant"


def test_update_and_history(m: Mem0Memory, mem: Memory) -> None:
    mid = m.add("I live in Paris", user_id="42", metadata={"category": "home"})["results"][0]["id"]
    m.update(mid, "I live in Lyon", user_id="42")
    m.update(mid, "I live in Nice", user_id="42", metadata={"category": "home", "since": 2024})
    got = m.get(mid, user_id="42")
    assert got["memory"] == "I live in Nice"
    assert got["metadata"] == {"category": "home", "since": 2024}
    assert got["hash"] == hashlib.md5(b"I live in Nice").hexdigest()
    history = m.history(mid, user_id="42")
    assert [(h["event"], h["old_memory"], h["new_memory"]) for h in history] == [
        ("ADD", None, "I live in Paris"),
        ("UPDATE", "I live in Paris", "I live in Lyon"),
        ("UPDATE", "I live in Lyon", "I live in Nice"),
    ]
    for h in history:
        assert set(h) == {
            "id",
            "memory_id",
            "old_memory",
            "new_memory",
            "event",
            "created_at",
            "updated_at",
            "is_deleted",
        }
        assert h["memory_id"] == mid and h["is_deleted"] is False and h["created_at"]
    assert history[0]["updated_at"] is None and history[2]["updated_at"]
    assert len({h["id"] for h in history}) == 3
    assert m.history(mid, user_id="42") == history  # the same rows, the same ids
    assert m.history(mid, user_id="43") == []  # not Bob's: nothing, as for an unknown id
    with pytest.raises(InvalidContext):
        m.history(mid)
    with pytest.raises(NotFound):
        m.update(mid, "I live on the moon", user_id="43")
    # a newer sentence that replaces this one's value is part of its story too
    newer = m.add("I moved to Berlin", user_id="42")["results"][0]["id"]
    story = m.history(newer, user_id="42")
    assert [(h["memory_id"], h["event"], h["old_memory"], h["new_memory"]) for h in story] == [
        *[(mid, h["event"], h["old_memory"], h["new_memory"]) for h in history],
        (newer, "UPDATE", "I live in Nice", "I moved to Berlin"),
    ]
    m.delete(mid, user_id="42")
    assert m.history(mid, user_id="42") == []
    assert mem.list(Context.dm(BOB)) == []


def test_reset_is_refused(m: Mem0Memory) -> None:
    m.add("I keep bees", user_id="43")
    with pytest.raises(InvalidInput):
        m.reset()
    assert len(m.get_all(user_id="43")["results"]) == 1


def test_the_async_twin(mem: Memory) -> None:
    am = AsyncMem0Memory(mem, platform="discord")

    async def main() -> None:
        added = await asyncio.gather(
            am.add("I'm allergic to peanuts", user_id="42", metadata={"category": "health"}),
            am.add("I keep bees", user_id="43"),
        )
        mid = added[0]["results"][0]["id"]
        found = await am.search("peanuts", user_id="42", filters={"category": "health"})
        assert [r["memory"] for r in found["results"]] == ["I'm allergic to peanuts"]
        assert (await am.search("peanuts", user_id="43"))["results"] == []
        assert (await am.get(mid, user_id="42"))["metadata"] == {"category": "health"}
        assert await am.get(mid, user_id="43") is None
        await am.update(mid, "I'm allergic to tree nuts", user_id="42")
        assert [h["event"] for h in await am.history(mid, user_id="42")] == ["ADD", "UPDATE"]
        assert len((await am.get_all(user_id="42"))["results"]) == 1
        await am.delete(mid, user_id="42")
        await am.delete_all(user_id="43")
        assert (await am.get_all(user_id="43"))["results"] == []
        with pytest.raises(InvalidContext):
            await am.get_all()
        with pytest.raises(InvalidInput):
            await am.reset()

    asyncio.run(main())

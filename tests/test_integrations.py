"""The framework adapters: a LangGraph store bound to a Context (tested the way LangGraph's
own store tests drive a store, sync and async, and inside a compiled graph) and the
Mem0-shaped client. Neither can see or widen past its context."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from confidante import AccessDenied, Context, InvalidContext, InvalidInput, Memory, NotFound
from confidante.integrations.mem0 import Mem0Memory

from conftest import ALICE, BOB, OWNER, Clock

langgraph = pytest.importorskip("langgraph.store.base")
from confidante.integrations.langgraph import ConfidanteStore  # noqa: E402


@pytest.fixture
def lmem(tmp_path: Path, key: bytes):
    m = Memory.open(tmp_path / "m.db", owner_ids=[OWNER], master_key=key)
    yield m
    m.close()


def test_store_put_get_search_delete(lmem: Memory) -> None:
    alice = ConfidanteStore(lmem, Context.dm(ALICE))
    bob = ConfidanteStore(lmem, Context.dm(BOB))
    key = str(uuid.uuid4())
    alice.put(("me", "prefs"), key, {"text": "allergic to peanuts", "level": 3})
    alice.put(("me", "prefs"), "music", {"text": "loves modal jazz", "level": 1})
    alice.put(("me", "trips"), "next", {"text": "Lisbon in May"})
    item = alice.get(("me", "prefs"), key)
    assert item is not None and item.value == {"text": "allergic to peanuts", "level": 3}
    assert item.namespace == ("me", "prefs") and item.key == key
    assert bob.get(("me", "prefs"), key) is None  # Bob's store never sees Alice's silo
    assert bob.search(("me",)) == []

    found = alice.search(("me",), query="peanut allergy")
    assert found[0].key == key and found[0].score is not None
    assert {i.key for i in alice.search(("me", "prefs"))} == {key, "music"}
    assert [i.key for i in alice.search(("me",), filter={"level": {"$gt": 2}})] == [key]
    assert [i.key for i in alice.search(("me",), filter={"text": "Lisbon in May"})] == ["next"]
    assert len(alice.search(("me",), limit=1)) == 1

    alice.put(("me", "prefs"), "music", {"text": "now into bossa nova", "level": 2})
    assert alice.get(("me", "prefs"), "music").value["text"] == "now into bossa nova"
    assert len(alice.search(("me", "prefs"))) == 2  # replaced, not duplicated
    assert alice.list_namespaces() == [("me", "prefs"), ("me", "trips")]
    assert alice.list_namespaces(suffix=("trips",)) == [("me", "trips")]
    assert alice.list_namespaces(prefix=("me", "*"), max_depth=1) == [("me",)]
    alice.delete(("me", "prefs"), key)
    assert alice.get(("me", "prefs"), key) is None


def test_store_scopes_are_the_policys(lmem: Memory) -> None:
    alice = ConfidanteStore(lmem, Context.dm(ALICE))
    with pytest.raises(AccessDenied) as e:
        alice.put(("owner", "notes"), "x", {"text": "I am the owner now"})
    assert e.value.code == "owner_required"
    with pytest.raises(AccessDenied):
        alice.put(("user", BOB), "x", {"text": "Bob is lying"})
    owner = ConfidanteStore(lmem, Context.dm(OWNER))
    owner.put(("owner", "plans"), "dentist", {"text": "Dentist moved to Thursday"})
    assert alice.search(("owner",)) == [] and alice.get(("owner", "plans"), "dentist") is None
    guild = ConfidanteStore(lmem, Context.guild(BOB, "g1"))
    guild.put(("guild", "books"), "now", {"text": "We read Dune"})
    assert ConfidanteStore(lmem, Context.guild(BOB, "g2")).search(("guild",)) == []
    from confidante import PrivateDataRefused

    with pytest.raises(PrivateDataRefused):
        alice.put(("me",), "contact", {"text": "mail me at alice@example.org"})


def test_store_me_is_each_persons_own(lmem: Memory) -> None:
    """In a guild Alice and Bob both say `("me", "prefs")`: two places. Bob neither reads
    Alice's item as his nor half-replaces it; where he may read hers (the same guild), it
    is shown under her name. A replacement someone may not make changes nothing."""
    alice = ConfidanteStore(lmem, Context.guild(ALICE, "g1", participants=[BOB]))
    bob = ConfidanteStore(lmem, Context.guild(BOB, "g1", participants=[ALICE]))
    alice.put(("me", "prefs"), "food", {"text": "alice likes sushi"})
    assert bob.get(("me", "prefs"), "food") is None
    bob.put(("me", "prefs"), "food", {"text": "bob likes pizza"})  # no error: his own place
    assert bob.get(("me", "prefs"), "food").value == {"text": "bob likes pizza"}
    assert alice.get(("me", "prefs"), "food").value == {"text": "alice likes sushi"}
    assert [i.value["text"] for i in bob.search(("me",))] == ["bob likes pizza"]
    assert {(i.namespace, i.value["text"]) for i in bob.search(())} == {
        (("me", "prefs"), "bob likes pizza"),
        (("user", ALICE, "prefs"), "alice likes sushi"),
    }
    assert bob.get(("user", ALICE, "prefs"), "food").value == {"text": "alice likes sushi"}
    assert alice.get(("user", ALICE, "prefs"), "food").value == {"text": "alice likes sushi"}
    owner = ConfidanteStore(lmem, Context.local(OWNER))
    assert owner.get(("me", "prefs"), "food") is None
    assert owner.list_namespaces() == [("user", ALICE, "prefs"), ("user", BOB, "prefs")]

    alice.put(("guild", "books"), "now", {"text": "We read Dune"})
    before = {f.id for f in lmem.list(Context.local(OWNER))}
    with pytest.raises(AccessDenied) as e:
        bob.put(("guild", "books"), "now", {"text": "We read Emma"})
    assert e.value.code == "not_author"
    assert {f.id for f in lmem.list(Context.local(OWNER))} == before  # nothing half-done
    with pytest.raises(AccessDenied):
        bob.delete(("guild", "books"), "now")
    assert bob.get(("guild", "books"), "now").value == {"text": "We read Dune"}
    assert ("not_author", "guild_text") in [
        (d.code, d.surface) for d in lmem.denials(Context.local(OWNER))
    ]
    # items written before places were matched (the whole namespace in `ns`) still read
    old = '{"key": "tea", "ns": ["self", "drinks"], "value": {"text": "oolong"}}'
    lmem.remember(Context.dm(ALICE), old, "me", kind="langgraph")
    assert ConfidanteStore(lmem, Context.dm(ALICE)).get(("me", "drinks"), "tea").value == {
        "text": "oolong"
    }


def test_store_ttl_is_expiry(tmp_path: Path, key: bytes) -> None:
    from datetime import UTC, datetime

    clock = Clock(datetime(2026, 6, 1, tzinfo=UTC))
    with Memory.open(tmp_path / "t.db", owner_ids=[OWNER], master_key=key, clock=clock) as m:
        store = ConfidanteStore(m, Context.dm(ALICE))
        store.put(("me",), "short", {"text": "parking spot 12 today"}, ttl=60)
        store.put(("me",), "long", {"text": "likes tea"})
        clock.advance(minutes=61)
        assert store.get(("me",), "short") is None
        assert store.get(("me",), "long") is not None


def test_store_async_methods(lmem: Memory) -> None:
    store = ConfidanteStore(lmem, Context.dm(ALICE))

    async def main() -> None:
        await store.aput(("me", "a"), "k", {"text": "runs marathons"})
        got = await store.aget(("me", "a"), "k")
        assert got is not None and got.value["text"] == "runs marathons"
        hits = await store.asearch(("me",), query="marathon")
        assert [h.key for h in hits] == ["k"]
        assert await store.alist_namespaces() == [("me", "a")]
        await store.adelete(("me", "a"), "k")
        assert await store.aget(("me", "a"), "k") is None

    asyncio.run(main())


def test_store_in_a_compiled_graph(lmem: Memory) -> None:
    graph_mod = pytest.importorskip("langgraph.graph")
    from typing import TypedDict

    from langgraph.store.base import BaseStore

    class State(TypedDict):
        question: str
        answer: str

    def remember_and_recall(state: State, *, store: BaseStore) -> dict:
        store.put(("me", "facts"), "diet", {"text": "vegetarian since 2019"})
        hits = store.search(("me",), query=state["question"])
        return {"answer": hits[0].value["text"] if hits else ""}

    builder = graph_mod.StateGraph(State)
    builder.add_node("node", remember_and_recall)
    builder.add_edge(graph_mod.START, "node")
    graph = builder.compile(store=ConfidanteStore(lmem, Context.dm(ALICE)))
    assert graph.invoke({"question": "is she vegetarian?"})["answer"] == "vegetarian since 2019"


# --- Mem0 ---------------------------------------------------------------------------------


def test_mem0_shapes_and_isolation(lmem: Memory) -> None:
    m = Mem0Memory(lmem, platform="discord")
    added = m.add(
        [
            {"role": "user", "content": "I'm allergic to peanuts"},
            {"role": "assistant", "content": "Noted!"},
        ],
        user_id="42",
        metadata={"category": "health"},
    )
    assert [r["memory"] for r in added["results"]] == ["I'm allergic to peanuts"]
    assert added["results"][0]["event"] == "ADD"
    m.add("I keep bees", user_id="43")
    found = m.search("peanuts", user_id="42", limit=5)["results"]
    assert [r["memory"] for r in found] == ["I'm allergic to peanuts"] and "score" in found[0]
    assert m.search("peanuts", user_id="43")["results"] == []
    assert [r["memory"] for r in m.get_all(user_id="43")["results"]] == ["I keep bees"]
    mid = added["results"][0]["id"]
    assert m.get(mid, user_id="42")["memory"] == "I'm allergic to peanuts"
    assert m.get(mid, user_id="43") is None  # invisible to anyone else
    for bad in ({}, {"user_id": "*"}, {"user_id": ""}, {"user_id": None}):
        with pytest.raises(InvalidContext):
            m.search("peanuts", **bad)
        with pytest.raises(InvalidContext):
            m.get_all(**bad)
    with pytest.raises(InvalidContext):
        m.get(mid)
    m.update(mid, "I'm allergic to tree nuts", user_id="42")
    assert m.get(mid, user_id="42")["memory"] == "I'm allergic to tree nuts"
    with pytest.raises(NotFound):  # not Bob's to delete: to him it does not exist
        m.delete(mid, user_id="43")
    m.add("booked the venue", user_id="42", run_id="r1")
    assert [r["memory"] for r in m.get_all(user_id="42", run_id="r1")["results"]] == [
        "booked the venue"
    ]
    assert m.get_all(user_id="42", run_id="r2")["results"] == []
    m.delete_all(user_id="42", run_id="r1")
    assert m.get_all(user_id="42", run_id="r1")["results"] == []
    m.delete(mid, user_id="42")
    assert m.get_all(user_id="42")["results"] == []
    m.delete_all(user_id="43")
    assert m.get_all(user_id="43")["results"] == []
    assert lmem.list(Context.dm(ALICE)) == []  # her silo and her runs: all gone


def test_mem0_user_ids_never_reach_the_owner_or_anyone_else(lmem: Memory) -> None:
    """A user_id is one person on the client's platform: `discord:1` passed as a user_id is
    not the owner `discord:1`, and an id that resolves to the owner is refused unless the
    client was told which id is the owner's; even then it answers about the owner alone."""
    alice_id = lmem.remember(Context.dm(ALICE), "Alice: pregnant, nobody knows yet").id
    lmem.remember(Context.guild(BOB, "g9"), "Bob's guild secret", namespace="me")
    lmem.remember(Context.dm(OWNER), "my divorce lawyer is Smith", namespace=f"user:{OWNER}")
    lmem.remember(Context.dm(OWNER), "owner plan: sell the boat", namespace="owner")
    query = "secret pregnant lawyer boat plan"

    apps = Mem0Memory(lmem)  # platform mem0: "discord:1" is mem0:discord:1, nobody here
    for uid in (OWNER, "discord:42", "silo:0123456789abcdef"):
        assert apps.get_all(user_id=uid)["results"] == []
        assert apps.search(query, user_id=uid)["results"] == []
        assert apps.get(alice_id, user_id=uid) is None

    discord = Mem0Memory(lmem, platform="discord")
    for call in (
        lambda: discord.get_all(user_id="1"),
        lambda: discord.search(query, user_id="1"),
        lambda: discord.add("I am the owner now", user_id="1"),
        lambda: Mem0Memory(lmem, user_map={"boss": OWNER}).get_all(user_id="boss"),
    ):
        with pytest.raises(InvalidContext):
            call()
    for bad in (
        lambda: Mem0Memory(lmem, platform="silo"),
        lambda: Mem0Memory(lmem, user_map={"x": "silo:0123456789abcdef"}),
        lambda: Mem0Memory(lmem, platform="discord", owner_user_id="42"),  # not an owner
    ):
        with pytest.raises(InvalidInput):
            bad()

    own = Mem0Memory(lmem, platform="discord", owner_user_id="1")
    assert [r["memory"] for r in own.get_all(user_id="1")["results"]] == [
        "my divorce lawyer is Smith"
    ]
    assert [r["memory"] for r in own.search(query, user_id="1")["results"]] == [
        "my divorce lawyer is Smith"
    ]
    assert own.get(alice_id, user_id="1") is None
    with pytest.raises(NotFound):
        own.delete(alice_id, user_id="1")
    with pytest.raises(NotFound):
        own.update(alice_id, "rewritten", user_id="1")
    assert lmem.get(Context.dm(ALICE), alice_id).text == "Alice: pregnant, nobody knows yet"
    assert [r["memory"] for r in own.get_all(user_id="42")["results"]] == [
        "Alice: pregnant, nobody knows yet"
    ]  # other ids on the platform are still just those people

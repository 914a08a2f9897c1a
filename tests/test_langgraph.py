"""The LangGraph store as LangGraph apps use it: built once, compiled once, each call's
speaker read from the graph's `configurable` by the app's adapter; `("memories", user_id)`
namespaces that are the speaker's own; short queries that find what they should. On both
engines, sync and async, and through the example app."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, TypedDict

import pytest

from confidante import AccessDenied, Context, InvalidContext, InvalidInput, Memory

from conftest import ALICE, BOB, CAROL, OWNER

pytest.importorskip("langgraph.graph")
from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.store.base import BaseStore

from confidante.integrations.langgraph import (
    ConfidanteStore,
    graph_thread_session,
)

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "examples" / "langgraph" / "app.py"


def by_user(configurable: dict[str, Any]) -> Context:
    """An app's adapter: the platform user id the app put in `configurable`."""
    actor = f"discord:{configurable['user_id']}"
    return Context.dm(actor, session=graph_thread_session(actor, configurable))


class State(TypedDict, total=False):
    say: str
    heard: list[str]


def _graph(store: ConfidanteStore, namespace_of=lambda uid: ("memories", uid)):
    def node(state: State, config: RunnableConfig, *, store: BaseStore) -> State:
        ns = namespace_of(config["configurable"]["user_id"])
        if state["say"].startswith("+"):
            store.put(ns, str(uuid.uuid4()), {"text": state["say"][1:]})
            return {"heard": []}
        return {"heard": [h.value["text"] for h in store.search(ns, query=state["say"])]}

    builder = StateGraph(State)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    return builder.compile(store=store)


def _as(uid: str, thread: str = "t1") -> RunnableConfig:
    return {"configurable": {"user_id": uid, "thread_id": thread}}


def test_one_graph_serves_every_user(mem: Memory) -> None:
    graph = _graph(ConfidanteStore(mem, context=by_user))  # compiled once, at start-up
    graph.invoke({"say": "+allergic to peanuts"}, config=_as("42"))
    graph.invoke({"say": "+keeps three beehives"}, config=_as("43"))
    graph.invoke({"say": "+allergic to shellfish"}, config=_as("44"))
    assert graph.invoke({"say": "allergies"}, config=_as("42"))["heard"] == ["allergic to peanuts"]
    assert graph.invoke({"say": "allergies"}, config=_as("44"))["heard"] == [
        "allergic to shellfish"
    ]
    # Bob and Alice each hear only their own memories, however the query reads
    assert graph.invoke({"say": "allergies"}, config=_as("43"))["heard"] in (
        [],
        ["keeps three beehives"],
    )
    assert graph.invoke({"say": "beehives"}, config=_as("42"))["heard"] in (
        [],
        ["allergic to peanuts"],
    )
    # each item is a fact in its speaker's own silo, its text the words it is found by
    assert [(f.subject, f.text) for f in mem.list(Context.dm(ALICE))] == [
        (ALICE, "allergic to peanuts")
    ]
    assert [f.text for f in mem.list(Context.dm(BOB))] == ["keeps three beehives"]


def test_the_readme_example_finds_its_item(mem: Memory) -> None:
    store = ConfidanteStore(mem, Context.dm(ALICE))
    store.put(("me", "preferences"), "food", {"text": "allergic to peanuts"})
    found = store.search(("me",), query="allergies")
    assert [(i.namespace, i.key, i.value) for i in found] == [
        (("me", "preferences"), "food", {"text": "allergic to peanuts"})
    ]
    idiom = ConfidanteStore(mem, context=lambda cfg: Context.dm(ALICE)).with_context(
        Context.dm(ALICE)
    )
    idiom.put(("memories", "42"), "diet", {"text": "vegetarian since 2019"})
    assert [i.key for i in idiom.search(("memories", "42"), query="vegetarian")] == ["diet"]
    assert [i.key for i in idiom.search(("memories", ALICE), query="vegetarian")] == ["diet"]
    assert idiom.get(("memories", ALICE), "diet").value == {"text": "vegetarian since 2019"}
    assert idiom.list_namespaces() == [("me", "preferences"), ("memories", "42")]


def test_naming_someone_else_is_refused_unless_owner_in_private(mem: Memory) -> None:
    store = ConfidanteStore(mem, context=by_user)
    alice = store.with_context(Context.dm(ALICE))
    alice.put(("memories", "42", "prefs"), "food", {"text": "loves sushi"})
    for call in (
        lambda: alice.put(("memories", "43"), "x", {"text": "Bob is lying"}),
        lambda: alice.get(("memories", "43"), "x"),
        lambda: alice.search(("memories", "43")),
        lambda: alice.search(("memories", BOB), query="sushi"),
        lambda: alice.delete(("memories", "43"), "x"),
    ):
        with pytest.raises(AccessDenied) as e:
            call()
        assert e.value.code == "forbidden_subject"
    assert mem.list(Context.dm(BOB)) == []
    assert "forbidden_subject" in [d.code for d in mem.denials(Context.local(OWNER))]
    # Bob in a server with Alice: her items under an app label are not his to name or list
    bob = store.with_context(Context.guild(BOB, "g1", participants=[ALICE]))
    assert bob.search(("memories",)) == []
    # the owner, in private, may read and write about anyone
    owner = store.with_context(Context.local(OWNER))
    assert owner.get(("memories", "42", "prefs"), "food").value == {"text": "loves sushi"}
    owner.put(("memories", "43"), "note", {"text": "prefers mornings"})
    assert owner.get(("memories", "43"), "note").value == {"text": "prefers mornings"}
    assert mem.list(Context.dm(BOB)) == []  # what the owner notes in private stays there
    assert sorted(owner.list_namespaces()) == [("memories", "42", "prefs"), ("memories", "43")]
    # ...but not from a guild: there the owner is one more member
    owner_in_guild = store.with_context(Context.guild(OWNER, "g1"))
    with pytest.raises(AccessDenied):
        owner_in_guild.get(("memories", "42", "prefs"), "food")


def test_labels_mapped_once_name_places(mem: Memory) -> None:
    store = ConfidanteStore(
        mem,
        context=by_user,
        namespaces={"memories": "me", "team": "guild", "scratch": "session"},
    )
    in_g1 = store.with_context(Context.guild(ALICE, "g1", participants=[BOB]))
    in_g1.put(("team", "books"), "now", {"text": "the club reads Dune"})
    bob_g1 = store.with_context(Context.guild(BOB, "g1"))
    assert bob_g1.get(("team", "books"), "now").value == {"text": "the club reads Dune"}
    assert [i.key for i in bob_g1.search(("team",), query="Dune")] == ["now"]
    assert store.with_context(Context.guild(BOB, "g2")).search(("team",)) == []
    assert store.with_context(Context.dm(ALICE)).search(("team",)) == []
    with pytest.raises(AccessDenied) as e:  # the policy still decides: a DM has no guild
        store.with_context(Context.dm(ALICE)).put(("team",), "x", {"text": "hi"})
    assert e.value.code == "guild_context_required"
    with pytest.raises(InvalidInput):  # a label mapped to `me` names its person second
        in_g1.put(("memories",), "x", {"text": "hi"})
    for bad in ({"me": "guild"}, {"x": "user:discord:1"}, {"x": "everyone"}, {"shared": "me"}):
        with pytest.raises(InvalidInput):
            ConfidanteStore(mem, context=by_user, namespaces=bad)


def test_a_label_for_a_shared_space(mem: Memory) -> None:
    mem.create_space(Context.local(OWNER), "home", members=[ALICE, BOB])
    store = ConfidanteStore(mem, context=by_user, namespaces={"household": "shared:home"})
    alice = store.with_context(Context.dm(ALICE))
    alice.put(("household", "chores"), "bins", {"text": "the bins go out on Tuesday night"})
    bob = store.with_context(Context.dm(BOB))
    assert bob.get(("household", "chores"), "bins").value == {
        "text": "the bins go out on Tuesday night"
    }
    assert [i.key for i in bob.search(("household",), query="bins")] == ["bins"]
    assert bob.list_namespaces() == [("household", "chores")]
    assert alice.search(("shared", "home")) == []  # another label names other items
    carol = store.with_context(Context.dm(CAROL))
    assert carol.search(("household",)) == []
    with pytest.raises(AccessDenied) as e:
        carol.put(("household",), "x", {"text": "hello"})
    assert e.value.code == "not_a_member"


def test_threads_are_sessions_of_their_own(mem: Memory) -> None:
    graph = _graph(ConfidanteStore(mem, context=by_user), lambda uid: ("session", "scratch"))
    graph.invoke({"say": "+the venue is booked"}, config=_as("42", "t1"))
    assert graph.invoke({"say": "venue"}, config=_as("42", "t1"))["heard"] == [
        "the venue is booked"
    ]
    assert graph.invoke({"say": "venue"}, config=_as("42", "t2"))["heard"] == []
    assert graph.invoke({"say": "venue"}, config=_as("43", "t1"))["heard"] == []


def test_async_graphs_and_abatch(mem: Memory) -> None:
    store = ConfidanteStore(mem, context=by_user)

    async def node(state: State, config: RunnableConfig, *, store: BaseStore) -> State:
        ns = ("memories", config["configurable"]["user_id"])
        if state["say"].startswith("+"):
            await store.aput(ns, "k", {"text": state["say"][1:]})
            return {"heard": []}
        return {"heard": [h.value["text"] for h in await store.asearch(ns, query=state["say"])]}

    builder = StateGraph(State)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    graph = builder.compile(store=store)

    async def main() -> None:
        await asyncio.gather(
            graph.ainvoke({"say": "+runs marathons"}, config=_as("42")),
            graph.ainvoke({"say": "+swims in the sea"}, config=_as("43")),
            graph.ainvoke({"say": "+climbs on weekends"}, config=_as("44")),
        )
        heard = await asyncio.gather(
            *(graph.ainvoke({"say": "marathons"}, config=_as(u)) for u in ("42", "43", "44"))
        )
        own = ["runs marathons", "swims in the sea", "climbs on weekends"]
        assert heard[0]["heard"] == ["runs marathons"]
        for mine, h in zip(own, heard, strict=True):
            assert set(h["heard"]) <= {mine}  # each hears only their own
        carol = store.with_context(Context.dm(CAROL))
        assert (await carol.aget(("memories", "44"), "k")).value == {"text": "climbs on weekends"}
        assert await carol.alist_namespaces() == [("memories", "44")]

    asyncio.run(main())


def test_items_keep_their_identity(mem: Memory) -> None:
    store = ConfidanteStore(mem, Context.dm(ALICE))
    # the same words under two keys are two items (one sentence per place is the core's rule)
    store.put(("me", "answers"), "q1", {"text": "yes"})
    store.put(("me", "answers"), "q2", {"text": "yes"})
    assert {i.key for i in store.search(("me", "answers"))} == {"q1", "q2"}
    store.delete(("me", "answers"), "q1")
    assert store.get(("me", "answers"), "q2").value == {"text": "yes"}
    # replacing an item with the same words and a new value keeps one item, the new value
    store.put(("me",), "food", {"text": "allergic to peanuts", "level": 1})
    store.put(("me",), "food", {"text": "allergic to peanuts", "level": 3})
    assert [i.value["level"] for i in store.search(("me",), filter={"text": {"$ne": "yes"}})] == [3]
    # what an item is found by: its strings with their fields, or the fields `index` names
    store.put(("me",), "pet", {"name": "Rex", "kind": "dog", "age": 4})
    store.put(("me",), "book", {"title": "Dune", "notes": "slow start"}, index=["title"])
    store.put(("me",), "hidden", {"text": "a quiet note about gardening"}, index=False)
    store.put(("me",), "levels", {"level": 7})
    texts = {f.text for f in mem.list(Context.dm(ALICE))}
    assert {"name: Rex; kind: dog", "Dune", '{"level": 7}'} <= texts
    assert [i.key for i in store.search(("me",), query="dog")] == ["pet"]
    assert store.search(("me",), query="gardening") == []
    assert store.get(("me",), "hidden").value == {"text": "a quiet note about gardening"}
    # a value too large to ride in metadata is kept as JSON text, and still reads back
    big = {"text": "a long story about sailing " * 200}
    store.put(("me", "stories"), "long", big)
    assert store.get(("me", "stories"), "long").value == big
    assert [i.key for i in store.search(("me", "stories"), query="sailing")] == ["long"]


def test_items_written_before_read_on(mem: Memory) -> None:
    """Items stored as JSON text (every earlier version) are read, found and replaced."""
    ctx = Context.dm(ALICE)
    mem.remember(ctx, '{"key": "tea", "ns": ["self", "drinks"], "value": {"text": "oolong"}}',
                 "me", kind="langgraph")  # fmt: skip
    mem.remember(
        ctx,
        json.dumps({"key": "food", "path": ["prefs"], "value": {"text": "allergic to peanuts"}}),
        "me",
        kind="langgraph",
    )
    store = ConfidanteStore(mem, ctx)
    assert store.get(("me", "drinks"), "tea").value == {"text": "oolong"}
    assert store.get(("me", "prefs"), "food").value == {"text": "allergic to peanuts"}
    store.put(("me", "prefs"), "food", {"text": "allergic to tree nuts"})
    assert [i.value for i in store.search(("me", "prefs"))] == [{"text": "allergic to tree nuts"}]
    assert [i.key for i in store.search(("me",), query="allergies")] == ["food"]


def test_the_context_comes_from_the_app_adapter_only(mem: Memory) -> None:
    store = ConfidanteStore(mem, context=by_user)
    with pytest.raises(InvalidContext):  # outside a graph there is no config to read
        store.get(("memories", "42"), "x")
    with pytest.raises(InvalidContext):
        ConfidanteStore(mem, context="discord:42")  # type: ignore[arg-type]

    def node(state: State, *, store: BaseStore) -> State:
        store.search(("memories",))
        return {}

    for adapter in (by_user, lambda cfg: "discord:42"):
        builder = StateGraph(State)
        builder.add_node("node", node)
        builder.add_edge(START, "node")
        graph = builder.compile(store=ConfidanteStore(mem, context=adapter))
        with pytest.raises(InvalidContext):  # no user_id in configurable / not a Context
            graph.invoke({"say": "x"}, config={"configurable": {"thread_id": "t"}})


def test_the_example_app(mem: Memory) -> None:
    spec = importlib.util.spec_from_file_location("langgraph_example", APP)
    assert spec is not None and spec.loader is not None
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    turns = app.run(app.build(mem))
    recalled = {(uid, said): got for uid, said, got in turns}
    assert recalled[("42", "what am I allergic to?")] == ["I'm allergic to peanuts"]
    assert recalled[("43", "what am I allergic to?")] == []
    assert recalled[("43", "how many beehives do I keep?")] == ["I keep three beehives"]
    assert recalled[("42", "how many beehives do I keep?")] == []


def test_the_example_runs_as_a_script(tmp_path: Path) -> None:
    p = subprocess.run(
        [sys.executable, str(APP), str(tmp_path / "app.db")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "42: 'what am I allergic to?' -> [\"I'm allergic to peanuts\"]" in p.stdout
    assert "43: 'what am I allergic to?' -> []" in p.stdout


def test_the_how_to_example_runs(tmp_path: Path) -> None:
    """docs/howto/langgraph-and-mem0.md: its example runs and prints what the page says."""
    page = (ROOT / "docs" / "howto" / "langgraph-and-mem0.md").read_text()
    script = page.split("<!-- langgraph-and-mem0:example -->\n```python\n", 1)[1]
    script = script.split("```", 1)[0]
    printed = page.split("It prints:\n\n```text\n", 1)[1].split("```", 1)[0]
    (tmp_path / "example.py").write_text(script)
    p = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout == printed

"""One LangGraph app serving many people, with confidante as its store.

The store is built once at start-up and the graph compiled once. Each call says who is
speaking in `config={"configurable": {...}}`: the app's chat adapter puts there the user id
the platform authenticated, and `context_of` (the app's adapter, given to the store) turns
it into a confidante `Context`. The node reads and writes `("memories", user_id)`, the usual
LangGraph namespace; confidante makes sure it is the speaker's own (naming someone else is
refused), so people never see each other's memories. No language model is needed to show
it: the node remembers what follows "remember", and recalls what the message asks about.

Run it: `python examples/langgraph/app.py [DATABASE]` (a SQLite path or a postgresql://
URL; a temporary file by default) prints each turn and what it recalled.
"""

from __future__ import annotations

import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from confidante import Context, Memory
from confidante.integrations.langgraph import ConfidanteStore, graph_thread_session

PLATFORM = "discord"
OWNER = "discord:1"


class State(TypedDict, total=False):
    message: str
    recalled: list[str]


def context_of(configurable: dict[str, Any]) -> Context:
    """The app's adapter: the speaker is the platform user id the app authenticated and
    put in `configurable` itself (never the message, never a model's choice). Each graph
    thread is a conversation of its own (its `session` namespace)."""
    actor = f"{PLATFORM}:{configurable['user_id']}"
    return Context.dm(actor, session=graph_thread_session(actor, configurable))


def remember_and_recall(state: State, config: RunnableConfig, *, store: BaseStore) -> State:
    """Remember what follows "remember ", then recall what the message is about."""
    user_id = config["configurable"]["user_id"]
    memories = ("memories", user_id)
    message = state["message"]
    if message.lower().startswith("remember "):
        store.put(memories, str(uuid.uuid4()), {"text": message[len("remember ") :]})
        return {"recalled": []}
    hits = store.search(memories, query=message, limit=3)
    return {"recalled": [h.value["text"] for h in hits]}


def build(mem: Memory) -> CompiledStateGraph:
    """The graph, compiled once, with one store for everyone."""
    store = ConfidanteStore(mem, context=context_of, platform=PLATFORM)
    builder = StateGraph(State)
    builder.add_node("memory", remember_and_recall)
    builder.add_edge(START, "memory")
    return builder.compile(store=store)


SCRIPT = [  # (the authenticated user id, what they said)
    ("42", "remember I'm allergic to peanuts"),
    ("43", "remember I keep three beehives"),
    ("42", "what am I allergic to?"),
    ("43", "what am I allergic to?"),
    ("43", "how many beehives do I keep?"),
    ("42", "how many beehives do I keep?"),
]


def run(graph: CompiledStateGraph) -> list[tuple[str, str, list[str]]]:
    turns = []
    for user_id, message in SCRIPT:
        config: RunnableConfig = {"configurable": {"user_id": user_id, "thread_id": "t1"}}
        out = graph.invoke({"message": message}, config=config)
        turns.append((user_id, message, out.get("recalled", [])))
    return turns


def main(database: str | None = None) -> None:
    with (
        tempfile.TemporaryDirectory() as d,
        Memory.open(database or Path(d) / "memory.db", owner_ids=[OWNER]) as mem,
    ):
        for user_id, message, recalled in run(build(mem)):
            print(f"{user_id}: {message!r} -> {recalled}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

"""A drop-in for Mem0 users: Mem0's OSS call shapes (`add`, `search`, `get_all`, `get`,
`update`, `delete`, `delete_all`, `history` with `user_id` / `agent_id` / `run_id`; results
as `{"results": [...]}`), backed by confidante, with an async twin (`AsyncMem0Memory`).

    from confidante import Memory
    from confidante.integrations.mem0 import Mem0Memory

    m = Mem0Memory(Memory.open("memory.db"), platform="discord")
    m.add("I'm allergic to peanuts", user_id="42", metadata={"category": "health"})
    m.search("allergies", user_id="42", filters={"category": "health"})
    # {"results": [{"id", "memory", "hash", "metadata", "score", ...}]}

Each `user_id` is one person: `user_map[user_id]` when the map names it, else
`<platform>:<user_id>` (a `user_id` that looks like an actor, `discord:1`, is still just an
id on this client's platform). Every call acts as that person in their own DM and answers
only with memories about them (their silo; with `run_id`, that conversation), so it never
sees more than their own. A call without a `user_id`, or with `*`, is an error: nothing
here can widen the scope. `user_id` / `agent_id` / `run_id` inside `filters` (Mem0 v1) are
the same identity, never a filter: they must equal the call's own (`split_identity`). A
`user_id` that resolves to an owner's id is refused unless `owner_user_id=` names it: the
owner's DM may read everyone, and an end user whose id happens to be the owner's must not.
Even then, the client answers with the owner's own memories only.

There is no LLM here: `add` stores what the user said (each user message), as written,
through the privacy guard; with `infer=False`, every message but the system's, as given,
with its `role` in the metadata (Mem0's own `infer=False`). The same sentence added again
is one memory: the add reports it as Mem0 reports a fact it already had (`NONE`). `agent_id`
is accepted and does not narrow: a person's memories are theirs whichever agent asks."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from ..errors import ConfidanteError, InvalidContext, InvalidInput, NotFound
from ..memory import Memory
from ..model import Context, Fact, Scope, normalize_actor, parse_actor, session_key
from ..policy import SILO_PLATFORM, is_owner
from .mem0_shapes import MessagesT, history_rows, memory_item, split_identity, turns

MAX_RESULTS = 1000


class Mem0Memory:
    """Mem0's `Memory` methods over a confidante `Memory`."""

    def __init__(
        self,
        memory: Memory,
        *,
        platform: str = "mem0",
        user_map: dict[str, str] | None = None,
        owner_user_id: str | None = None,
    ) -> None:
        """`platform`: the platform of plain user ids (`mem0`, the default, is where the
        Mem0 importer puts users it has no mapping for). `user_map`: user ids that are
        someone else (`{"alice": "discord:42"}`). `owner_user_id`: the one user id that
        may speak as the owner (their own memories only); without it, none may."""
        self.memory = memory
        self.platform = _platform(platform)
        self.user_map = {str(k): _speakable(v) for k, v in (user_map or {}).items()}
        self.owner_user_id: str | None = None
        if owner_user_id is not None:
            if not is_owner(self._resolve(owner_user_id), memory.owners):
                raise InvalidInput("owner_user_id must resolve to a configured owner id")
            self.owner_user_id = str(owner_user_id).strip()

    # -- ids to contexts -----------------------------------------------------------------
    def _resolve(self, user_id: object) -> str:
        if not isinstance(user_id, str | int) or isinstance(user_id, bool):
            raise InvalidContext("user_id is required: confidante never widens the scope")
        uid = str(user_id).strip()
        if not uid or "*" in uid:
            raise InvalidContext("user_id must name one person (no wildcard)")
        if uid in self.user_map:
            return self.user_map[uid]
        return normalize_actor(f"{self.platform}:{uid}")

    def actor(self, user_id: object) -> str:
        """The person a `user_id` names; an owner only through `owner_user_id`."""
        actor = self._resolve(user_id)
        if is_owner(actor, self.memory.owners) and str(user_id).strip() != self.owner_user_id:
            raise InvalidContext(
                "this user_id is an owner's id: pass owner_user_id= to reach the owner's "
                "own memories through this client"
            )
        return actor

    def context(self, user_id: object, run_id: object = None) -> Context:
        actor = self.actor(user_id)
        if run_id is None:
            return Context.dm(actor)
        run = str(run_id).strip()
        if not run or "*" in run:
            raise InvalidContext("run_id must name one run (no wildcard)")
        return Context.dm(actor, session=session_key("mem0-run", actor, run))

    def _asking(
        self, filters: Mapping[str, Any] | None, user_id: object, agent_id: object, run_id: object
    ) -> tuple[Context, str, object, object, dict[str, Any] | None]:
        """(context, actor, user_id, run_id, the filters left for the core) of a read."""
        rest, ids = split_identity(
            filters, {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}
        )
        ctx = self.context(ids["user_id"], ids["run_id"])
        assert ctx.actor is not None
        return ctx, ctx.actor, ids["user_id"], ids["run_id"], rest

    # -- Mem0's methods --------------------------------------------------------------------
    def add(
        self,
        messages: MessagesT,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        infer: bool = True,
        **_: Any,
    ) -> dict[str, Any]:
        """Store what the user said (each user message; a plain string is one), or with
        `infer=False` every message but the system's. With a `run_id` it goes to that run's
        conversation, else to the person's silo. `metadata` is kept whole with each memory
        (its `category`, if any, is also the memory's kind)."""
        ctx = self.context(user_id, run_id)
        said = turns(messages, every_role=not infer)
        if not said:
            return {"results": []}
        if metadata is not None and not isinstance(metadata, Mapping):
            raise InvalidInput("metadata must be a JSON object")
        base = dict(metadata or {})
        category = base.get("category")
        facts = self.memory.remember_many(
            ctx,
            [text for _, text in said],
            "session" if run_id is not None else "me",
            kind=category if isinstance(category, str) and category.strip() else "fact",
            metadata=[base if infer else {**base, "role": role} for role, _ in said],
        )
        results, seen = [], set()
        for f, (role, _) in zip(facts, said, strict=True):
            if f.id in seen:  # said twice in one add: one memory
                continue
            seen.add(f.id)
            result = {"id": f.id, "memory": f.text, "event": "NONE" if f.refreshed else "ADD"}
            if not infer:
                result["role"] = role
            results.append(result)
        return {"results": results}

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int = 100,
        filters: dict[str, Any] | None = None,
        threshold: float | None = None,
        **_: Any,
    ) -> dict[str, Any]:
        """The person's memories (or the run's) best first, narrowed by `filters`."""
        ctx, actor, user_id, run_id, rest = self._asking(filters, user_id, agent_id, run_id)
        hits = self.memory.recall(ctx, query, k=MAX_RESULTS, min_score=threshold, filters=rest)
        mine = [h for h in hits if _in_view(h.fact, actor, run_id)]
        return {
            "results": [
                memory_item(h.fact, user_id, run_id, score=h.score) for h in mine[: _limit(limit)]
            ]
        }

    def get_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int = 100,
        filters: dict[str, Any] | None = None,
        **_: Any,
    ) -> dict[str, Any]:
        """The person's memories (or the run's), newest first, narrowed by `filters`."""
        ctx, actor, user_id, run_id, rest = self._asking(filters, user_id, agent_id, run_id)
        facts = [f for f in self.memory.list(ctx, filters=rest) if _in_view(f, actor, run_id)]
        return {"results": [memory_item(f, user_id, run_id) for f in facts[: max(0, int(limit))]]}

    def _fact(self, memory_id: str, user_id: object) -> Fact:
        """A memory about this person (their silo or a conversation of theirs), else
        NotFound: what their context could see about someone else is not theirs here."""
        fact = self.memory.get(self.context(user_id), memory_id)
        actor = self.actor(user_id)
        if not (_in_view(fact, actor, None) or fact.scope is Scope.SESSION):
            raise NotFound("no such fact")
        return fact

    def get(self, memory_id: str, *, user_id: str | None = None, **_: Any) -> dict[str, Any] | None:
        """One memory, if it is about this person (else None, like Mem0)."""
        fact = self._found(memory_id, user_id)
        return None if fact is None else memory_item(fact, user_id, None)

    def _found(self, memory_id: str, user_id: object) -> Fact | None:
        self.actor(user_id)  # no user_id, a wildcard or the owner's id: an error, not None
        try:
            return self._fact(memory_id, user_id)
        except ConfidanteError as e:
            if e.code == "not_found":
                return None
            raise

    def update(
        self,
        memory_id: str,
        data: str,
        *,
        user_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        **_: Any,
    ) -> dict[str, Any]:
        """Replace a memory's text (and, given `metadata`, its metadata); the text it had is
        kept for `history`."""
        fact = self._fact(memory_id, user_id)
        self.memory.update(self.context(user_id), fact.id, data, metadata=metadata)
        return {"message": "Memory updated successfully!"}

    def history(self, memory_id: str, *, user_id: str | None = None, **_: Any) -> list[dict]:
        """The versions a memory went through, oldest first, in Mem0's shape (`[]` for a
        memory that is not this person's, like Mem0 for an unknown id)."""
        fact = self._found(memory_id, user_id)
        if fact is None:
            return []
        return history_rows(self.memory.history(self.context(user_id), fact.id))

    def delete(self, memory_id: str, *, user_id: str | None = None, **_: Any) -> dict[str, Any]:
        fact = self._fact(memory_id, user_id)
        self.memory.forget(self.context(user_id), fact.id)
        return {"message": "Memory deleted successfully!"}

    def delete_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        **_: Any,
    ) -> dict[str, Any]:
        """A run's conversation, or everything about the person ("forget me": their silo,
        their conversations and keys)."""
        ctx = self.context(user_id, run_id)
        if run_id is None:
            self.memory.forget_subject(ctx, self.actor(user_id))
        else:
            for f in self.memory.list(ctx):
                if f.scope is Scope.SESSION:
                    self.memory.forget(ctx, f.id)
        return {"message": "Memories deleted successfully!"}

    def reset(self) -> None:
        raise InvalidInput("reset is not offered: erase people with delete_all(user_id=...)")


class AsyncMem0Memory:
    """Mem0's `AsyncMemory`: the same calls as `Mem0Memory`, awaited (each runs in a worker
    thread, so the event loop never waits on the database)."""

    def __init__(self, memory: Memory, **options: Any) -> None:
        self.sync = Mem0Memory(memory, **options)

    async def add(self, messages: MessagesT, **kw: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.add, messages, **kw)

    async def search(self, query: str, **kw: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.search, query, **kw)

    async def get_all(self, **kw: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.get_all, **kw)

    async def get(self, memory_id: str, **kw: Any) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.sync.get, memory_id, **kw)

    async def update(self, memory_id: str, data: str, **kw: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.update, memory_id, data, **kw)

    async def history(self, memory_id: str, **kw: Any) -> list[dict]:
        return await asyncio.to_thread(self.sync.history, memory_id, **kw)

    async def delete(self, memory_id: str, **kw: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.delete, memory_id, **kw)

    async def delete_all(self, **kw: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.delete_all, **kw)

    async def reset(self) -> None:
        self.sync.reset()


def _in_view(f: Fact, actor: str, run_id: object) -> bool:
    """What a call answers with: the person's own silo, or (with `run_id`) that run's
    conversation (the context sees only its own session)."""
    if run_id is not None:
        return f.scope is Scope.SESSION
    return f.scope is Scope.USER and f.subject == actor


def _limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise InvalidInput("limit must be an integer")
    return max(1, min(limit, MAX_RESULTS))


def _platform(name: str) -> str:
    platform = parse_actor(f"{name}:x")[0]
    if platform == SILO_PLATFORM:
        raise InvalidInput("the silo platform is the importers' placeholder for unknown people")
    return platform


def _speakable(actor: str) -> str:
    actor = normalize_actor(actor)
    if parse_actor(actor)[0] == SILO_PLATFORM:
        raise InvalidInput("the silo platform is the importers' placeholder for unknown people")
    return actor


__all__ = ["AsyncMem0Memory", "Mem0Memory"]

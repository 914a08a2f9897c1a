"""A drop-in for Mem0 users: Mem0's OSS call shapes (`add`, `search`, `get_all`, `get`,
`update`, `delete`, `delete_all` with `user_id` / `agent_id` / `run_id`; results as
`{"results": [...]}`), backed by confidante.

    from confidante import Memory
    from confidante.integrations.mem0 import Mem0Memory

    m = Mem0Memory(Memory.open("memory.db"), platform="discord")
    m.add("I'm allergic to peanuts", user_id="42")        # Alice's silo, as her DM
    m.search("allergies", user_id="42")                    # {"results": [{"id", "memory", ...}]}

Each `user_id` is a person (`platform:user_id`, or an actor given as is) and every call
acts as that person in their own DM, so it sees exactly what their DM may see. A call
without a `user_id`, or with `*`, is an error: nothing here can widen the scope. A
`run_id` is a conversation (its own session). There is no LLM here: `add` stores what the
user said (each user message), as written, through the privacy guard."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ConfidanteError, InvalidContext, InvalidInput
from ..memory import Memory
from ..model import Context, Fact, Scope, normalize_actor

MessagesT = str | dict[str, Any] | Sequence[dict[str, Any]]


class Mem0Memory:
    """Mem0's `Memory` methods over a confidante `Memory`."""

    def __init__(
        self,
        memory: Memory,
        *,
        platform: str = "mem0",
        user_map: dict[str, str] | None = None,
    ) -> None:
        self.memory = memory
        self.platform = platform
        self.user_map = {k: normalize_actor(v) for k, v in (user_map or {}).items()}

    # -- ids to contexts -----------------------------------------------------------------
    def actor(self, user_id: object) -> str:
        if not isinstance(user_id, str | int) or isinstance(user_id, bool):
            raise InvalidContext("user_id is required: confidante never widens the scope")
        uid = str(user_id).strip()
        if not uid or "*" in uid:
            raise InvalidContext("user_id must name one person (no wildcard)")
        if uid in self.user_map:
            return self.user_map[uid]
        return normalize_actor(uid if ":" in uid else f"{self.platform}:{uid}")

    def context(self, user_id: object, run_id: object = None) -> Context:
        actor = self.actor(user_id)
        if run_id is None:
            return Context.dm(actor)
        run = str(run_id).strip()
        if not run or "*" in run:
            raise InvalidContext("run_id must name one run (no wildcard)")
        return Context.dm(actor, session=f"mem0-run:{actor}:{run}")

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
        """Store what the user said (each user message; a plain string is one). With a
        `run_id` it goes to that run's conversation, else to the person's silo."""
        ctx = self.context(user_id, run_id)
        texts = _user_texts(messages)
        if not texts:
            return {"results": []}
        kind = metadata.get("category") if isinstance(metadata, dict) else None
        facts = self.memory.remember_many(
            ctx,
            texts,
            "session" if run_id is not None else "me",
            kind=kind if isinstance(kind, str) and kind.strip() else "fact",
        )
        return {"results": [{"id": f.id, "memory": f.text, "event": "ADD"} for f in facts]}

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
        ctx = self.context(user_id, run_id)
        hits = self.memory.recall(ctx, query, k=max(1, min(int(limit), 1000)), min_score=threshold)
        wanted = _scopes(run_id)
        return {
            "results": [
                _item(h.fact, user_id, run_id, score=h.score)
                for h in hits
                if h.fact.scope in wanted
            ]
        }

    def get_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int = 100,
        **_: Any,
    ) -> dict[str, Any]:
        ctx = self.context(user_id, run_id)
        wanted = _scopes(run_id)
        facts = [f for f in self.memory.list(ctx) if f.scope in wanted][: max(0, int(limit))]
        return {"results": [_item(f, user_id, run_id) for f in facts]}

    def get(self, memory_id: str, *, user_id: str | None = None, **_: Any) -> dict[str, Any] | None:
        """One memory, if this person may see it (else None, like Mem0)."""
        try:
            fact = self.memory.get(self.context(user_id), memory_id)
        except InvalidContext:
            raise
        except ConfidanteError as e:
            if e.code == "not_found":
                return None
            raise
        return _item(fact, user_id, None)

    def update(
        self, memory_id: str, data: str, *, user_id: str | None = None, **_: Any
    ) -> dict[str, Any]:
        self.memory.update(self.context(user_id), memory_id, data)
        return {"message": "Memory updated successfully!"}

    def delete(self, memory_id: str, *, user_id: str | None = None, **_: Any) -> dict[str, Any]:
        self.memory.forget(self.context(user_id), memory_id)
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


def _scopes(run_id: object) -> frozenset[Scope]:
    return frozenset({Scope.SESSION}) if run_id is not None else frozenset({Scope.USER})


def _user_texts(messages: MessagesT) -> list[str]:
    if isinstance(messages, str):
        return [messages] if messages.strip() else []
    if isinstance(messages, dict):
        messages = [messages]
    out = []
    for m in messages:
        if not isinstance(m, dict):
            raise InvalidInput("messages must be a string or a list of {role, content}")
        content = m.get("content")
        if m.get("role", "user") == "user" and isinstance(content, str) and content.strip():
            out.append(content)
    return out


def _item(
    f: Fact, user_id: object, run_id: object, *, score: float | None = None
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": f.id,
        "memory": f.text,
        "hash": None,
        "metadata": {"scope": f.scope.value, "kind": f.kind},
        "created_at": f.created_at.isoformat() if f.created_at else None,
        "updated_at": f.updated_at.isoformat() if f.updated_at else None,
        "user_id": str(user_id),
    }
    if run_id is not None:
        item["run_id"] = str(run_id)
    if score is not None:
        item["score"] = score
    return item


__all__ = ["Mem0Memory"]

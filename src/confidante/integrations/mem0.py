"""A drop-in for Mem0 users: Mem0's OSS call shapes (`add`, `search`, `get_all`, `get`,
`update`, `delete`, `delete_all` with `user_id` / `agent_id` / `run_id`; results as
`{"results": [...]}`), backed by confidante.

    from confidante import Memory
    from confidante.integrations.mem0 import Mem0Memory

    m = Mem0Memory(Memory.open("memory.db"), platform="discord")
    m.add("I'm allergic to peanuts", user_id="42")        # Alice's silo, as her DM
    m.search("allergies", user_id="42")                    # {"results": [{"id", "memory", ...}]}

Each `user_id` is one person: `user_map[user_id]` when the map names it, else
`<platform>:<user_id>` (a `user_id` that looks like an actor, `discord:1`, is still just an
id on this client's platform). Every call acts as that person in their own DM and answers
only with memories about them (their silo; with `run_id`, that conversation), so it never
sees more than their own. A call without a `user_id`, or with `*`, is an error: nothing
here can widen the scope. A `user_id` that resolves to an owner's id is refused unless
`owner_user_id=` names it: the owner's DM may read everyone, and an end user whose id
happens to be the owner's must not. Even then, the client answers with the owner's own
memories only. There is no LLM here: `add` stores what the user said (each user message),
as written, through the privacy guard."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ConfidanteError, InvalidContext, InvalidInput, NotFound
from ..memory import Memory
from ..model import Context, Fact, Scope, normalize_actor, parse_actor, session_key
from ..policy import SILO_PLATFORM, is_owner

MessagesT = str | dict[str, Any] | Sequence[dict[str, Any]]


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
        actor = self.actor(user_id)
        hits = self.memory.recall(ctx, query, k=1000, min_score=threshold)
        mine = [h for h in hits if _in_view(h.fact, actor, run_id)]
        return {
            "results": [
                _item(h.fact, user_id, run_id, score=h.score)
                for h in mine[: max(1, min(int(limit), 1000))]
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
        actor = self.actor(user_id)
        facts = [f for f in self.memory.list(ctx) if _in_view(f, actor, run_id)]
        return {"results": [_item(f, user_id, run_id) for f in facts[: max(0, int(limit))]]}

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
        try:
            fact = self._fact(memory_id, user_id)
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
        fact = self._fact(memory_id, user_id)
        self.memory.update(self.context(user_id), fact.id, data)
        return {"message": "Memory updated successfully!"}

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


def _in_view(f: Fact, actor: str, run_id: object) -> bool:
    """What a call answers with: the person's own silo, or (with `run_id`) that run's
    conversation (the context sees only its own session)."""
    if run_id is not None:
        return f.scope is Scope.SESSION
    return f.scope is Scope.USER and f.subject == actor


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

"""The shapes of Mem0's answers and arguments, for the Mem0-shaped client (`mem0.py`):
messages in, memories and history rows out, and the identity Mem0 lets a caller put
inside `filters`, taken out of them before they reach the core."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ..errors import InvalidContext, InvalidFilter, InvalidInput
from ..model import Fact
from ..services.history import Version

MessagesT = str | Mapping[str, Any] | Sequence[Mapping[str, Any]]
IDENTITY = ("user_id", "agent_id", "run_id")
_HISTORY_IDS = uuid.UUID("9f1d4c3e-5a0b-4c1e-8d2f-6b7a3e0c9d11")  # uuid5 namespace


def turns(messages: MessagesT, *, every_role: bool) -> list[tuple[str, str]]:
    """(role, text) of the messages to store: the user's (what they said), or with
    `every_role` (Mem0's `infer=False`) every message but the system's, as given."""
    if isinstance(messages, str):
        return [("user", messages)] if messages.strip() else []
    if isinstance(messages, Mapping):
        messages = [messages]
    out = []
    for m in messages:
        if not isinstance(m, Mapping):
            raise InvalidInput("messages must be a string or a list of {role, content}")
        role, content = m.get("role", "user"), m.get("content")
        if not isinstance(content, str) or not content.strip() or role == "system":
            continue
        if role == "user" or every_role:
            out.append((str(role), content))
    return out


def split_identity(
    filters: Mapping[str, Any] | None, ids: dict[str, Any]
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """(the filters for the core, the call's identity). `user_id`, `agent_id` and `run_id`
    inside `filters` (as Mem0 v1 allows) say who is asking, never what to match: each must
    equal the call's own argument, or stands for it when the call gave none. Anywhere
    deeper (inside `AND`/`OR`) they are refused, so they can never widen a query."""
    if filters is None:
        return None, ids
    if not isinstance(filters, Mapping):
        raise InvalidFilter("filters must be a JSON object")
    ids = dict(ids)
    rest: dict[str, Any] = {}
    for key, value in filters.items():
        if key not in IDENTITY:
            _no_identity_inside(value)
            rest[str(key)] = value
            continue
        if isinstance(value, Mapping | list | tuple):
            raise InvalidContext(f"{key} in filters names one id, the call's own")
        if ids.get(key) is None:
            ids[key] = value
        elif str(value).strip() != str(ids[key]).strip():
            raise InvalidContext(f"{key} in filters must be the call's own {key}")
    return rest or None, ids


def _no_identity_inside(value: Any) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            if k in IDENTITY:
                raise InvalidContext(
                    "user_id, agent_id and run_id say who is asking: give them at the top "
                    "level of filters, never inside AND/OR"
                )
            _no_identity_inside(v)
    elif isinstance(value, list | tuple):
        for v in value:
            _no_identity_inside(v)


def memory_hash(text: str) -> str:
    """Mem0's `hash`: the MD5 hex digest of the memory's text (a change marker, not a
    secret)."""
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


def memory_item(
    f: Fact, user_id: object, run_id: object, *, score: float | None = None
) -> dict[str, Any]:
    """One memory as Mem0 shows it."""
    item: dict[str, Any] = {
        "id": f.id,
        "memory": f.text,
        "hash": memory_hash(f.text),
        "metadata": dict(f.metadata),
        "created_at": _iso(f.created_at),
        "updated_at": _iso(f.updated_at),
        "user_id": str(user_id),
    }
    role = f.metadata.get("role")
    if isinstance(role, str):
        item["role"] = role
    if run_id is not None:
        item["run_id"] = str(run_id)
    if score is not None:
        item["score"] = score
    return item


def history_rows(versions: Sequence[Version]) -> list[dict[str, Any]]:
    """`Memory.history` in Mem0's shape: `{id, memory_id, old_memory, new_memory, event,
    created_at, updated_at, is_deleted}`, oldest first. A first text is `ADD`; an update,
    and a newer fact that replaced an older one's value, are `UPDATE` (each row names the
    fact it belongs to). Forgotten facts are gone, with their history: no `DELETE` rows."""
    born: dict[str, datetime | None] = {}
    count: dict[str, int] = {}
    rows = []
    for v in versions:
        born.setdefault(v.fact_id, v.at)
        n = count[v.fact_id] = count.get(v.fact_id, -1) + 1
        rows.append(
            {
                "id": str(uuid.uuid5(_HISTORY_IDS, f"{v.fact_id}:{n}")),
                "memory_id": v.fact_id,
                "old_memory": v.previous,
                "new_memory": v.text,
                "event": "ADD" if v.event == "add" else "UPDATE",
                "created_at": _iso(born[v.fact_id]),
                "updated_at": None if v.event == "add" else _iso(v.at),
                "is_deleted": False,
            }
        )
    return rows


def _iso(t: datetime | None) -> str | None:
    return t.isoformat() if t else None


__all__ = [
    "IDENTITY",
    "MessagesT",
    "history_rows",
    "memory_hash",
    "memory_item",
    "split_identity",
    "turns",
]

"""A Mem0 export: the JSON of `get_all` (`{"results": [{id, memory, user_id, created_at,
...}]}`; a bare list, as older versions returned, too). Each `user_id` becomes an actor
(`user_map`, else `mem0:<user_id>`) and its memories that person's silo, as said in their
DM; memories with no `user_id` are the agent's own, so the owner's."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InvalidActor, InvalidInput
from ..model import Context, normalize_actor
from ..policy import MEM0_PLATFORM
from .actors import read_text
from .entries import Entry, Item, Skip, parse_time
from .files import DEFAULT_LIMITS, ReadLimits

_TEXT_KEYS = ("memory", "text", "data", "content")


def read_mem0(
    path: Path,
    owner_ctx: Context,
    user_map: dict[str, str] | None = None,
    limits: ReadLimits = DEFAULT_LIMITS,
) -> list[Item]:
    try:
        data = json.loads(read_text(path, limits))
    except (json.JSONDecodeError, RecursionError):
        raise InvalidInput("the Mem0 export is not JSON") from None
    results = data.get("results", data.get("memories")) if isinstance(data, dict) else data
    if not isinstance(results, list):
        raise InvalidInput('a Mem0 export is {"results": [...]}')
    user_map = user_map or {}
    items: list[Item] = []
    for i, m in enumerate(results):
        pos = f"results[{i}]"
        if not isinstance(m, dict):
            items.append(Skip(pos, "invalid"))
            continue
        text = next((m[k] for k in _TEXT_KEYS if isinstance(m.get(k), str) and m[k].strip()), None)
        if text is None:
            items.append(Skip(pos, "empty"))
            continue
        uid = m.get("user_id")
        if uid is None or (isinstance(uid, str) and not uid.strip()):
            where = (owner_ctx, "owner")
        else:
            uid = str(uid).strip()
            try:
                actor = user_map.get(uid) or normalize_actor(f"{MEM0_PLATFORM}:{uid}")
            except InvalidActor:
                items.append(Skip(pos, "invalid_user_id"))
                continue
            where = (owner_ctx if actor == owner_ctx.actor else Context.dm(actor), "me")
        meta = m.get("metadata") if isinstance(m.get("metadata"), dict) else {}
        kind = meta.get("category") if isinstance(meta.get("category"), str) else "fact"
        items.append(
            Entry(
                text.strip(),
                where[0],
                where[1],
                pos,
                created_at=parse_time(m.get("created_at")),
                kind=kind or "fact",
            )
        )
    return items

"""Pages of what a context may see: lists and searches with opaque cursors.

Visibility is the engine's (`list`, `recall`); this only slices its answers. A list cursor
names the last fact of the page by (creation time, id), so a page stays stable while new
facts arrive; a search cursor is an offset into the ranking of one query. A cursor holds
nothing the reader could not already see, and a forged one only moves within what the
context may see.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import InvalidCursor, InvalidInput
from ..model import Context, Fact, Hit, Scope, normalize_actor

if TYPE_CHECKING:
    from ..engine import Engine

MAX_PAGE = 1000
MAX_SEARCH_DEPTH = 1000  # recall ranks at most this many hits for one query


@dataclass(frozen=True, slots=True)
class Page:
    """One page of facts, newest first. `total` counts every match of the filters (all
    pages); `next_cursor` is None on the last page."""

    facts: list[Fact]
    total: int
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class HitPage:
    """One page of hits, best first. With `count=True`, `matches` is how many hits the
    ranking found, up to `MAX_SEARCH_DEPTH` (`capped` says when there may be more)."""

    hits: list[Hit]
    matches: int | None
    capped: bool
    next_cursor: str | None


def _encode(payload: list[Any]) -> str:
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str, kind: str) -> list[Any]:
    if not isinstance(cursor, str) or len(cursor) > 400:
        raise InvalidCursor("this cursor is not one this API returned")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        payload = json.loads(raw)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise InvalidCursor("this cursor is not one this API returned") from None
    if not isinstance(payload, list) or not payload or payload[0] != kind:
        raise InvalidCursor("this cursor belongs to another kind of request")
    return payload


def _limit(limit: int) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_PAGE:
        raise InvalidInput(f"limit must be an integer between 1 and {MAX_PAGE}")
    return limit


def _matches(fact: Fact, subject: str | None, community: str | None) -> bool:
    """One person (an actor) and/or one community: `discord:g1`, or just `g1` on any platform."""
    if subject is not None and fact.subject != subject:
        return False
    if community is not None:
        named = fact.community or ""
        if named != community and named.partition(":")[2] != community:
            return False
    return True


def _sort_key(fact: Fact) -> tuple[str, str]:
    created = fact.created_at.isoformat() if fact.created_at else ""
    return created, fact.id


def list_page(
    mem: Engine,
    ctx: Context,
    *,
    limit: int = 50,
    cursor: str | None = None,
    scope: Scope | str | None = None,
    subject: str | None = None,
    community: str | None = None,
    offset: int = 0,
    filters: Mapping[str, Any] | None = None,
    space: str | None = None,
) -> Page:
    """A page of `mem.list(ctx, filters=filters)`, optionally only one scope, one person
    (`subject`, an actor), one community (as facts name it, e.g. `discord:g1`) or one shared
    space (by name). Pages
    follow a cursor, or start at `offset` (numbered pages for a person at a screen)."""
    limit = _limit(limit)
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise InvalidInput("offset must be a non-negative integer")
    wanted_scope = Scope(scope) if scope is not None else None
    wanted_subject = normalize_actor(subject) if subject else None
    facts = [
        f
        for f in mem.list(ctx, filters=filters)
        if (wanted_scope is None or f.scope is wanted_scope)
        and _matches(f, wanted_subject, community or None)
        and (space is None or f.space == space)
    ]
    start = offset
    if cursor is not None:
        _, created, fid = ([*_decode(cursor, "list"), None, None])[:3]
        if not isinstance(created, str) or not isinstance(fid, str):
            raise InvalidCursor("this cursor is not one this API returned")
        after = (created, fid)
        # facts are newest first: skip every fact at or above the cursor's position
        start = next((i for i, f in enumerate(facts) if _sort_key(f) < after), len(facts))
    chunk = facts[start : start + limit]
    more = start + limit < len(facts)
    nxt = _encode(["list", *_sort_key(chunk[-1])]) if chunk and more else None
    return Page(chunk, len(facts), nxt)


def _query_tag(query: str) -> str:
    return hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def search_page(
    mem: Engine,
    ctx: Context,
    query: str,
    *,
    limit: int = 10,
    cursor: str | None = None,
    scope: Scope | str | None = None,
    count: bool = False,
    start: int = 0,
    subject: str | None = None,
    community: str | None = None,
    **recall: Any,
) -> HitPage:
    """A page of `mem.recall(ctx, query)`, with the number of hits the ranking found (when
    `count`). Pages follow a cursor, or start at `start`."""
    limit = _limit(limit)
    if not isinstance(start, int) or isinstance(start, bool) or start < 0:
        raise InvalidInput("start must be a non-negative integer")
    offset = start
    if cursor is not None:
        _, offset, tag = ([*_decode(cursor, "search"), None, None])[:3]
        if not isinstance(offset, int) or offset < 0 or tag != _query_tag(query):
            raise InvalidCursor("this cursor belongs to another query")
    wanted = Scope(scope) if scope is not None else None
    wanted_subject = normalize_actor(subject) if subject else None
    full = count or wanted is not None or bool(wanted_subject or community)
    depth = MAX_SEARCH_DEPTH if full else min(MAX_SEARCH_DEPTH, offset + limit + 1)
    if offset >= depth:
        return HitPage([], 0 if full else None, False, None)
    hits = mem.recall(ctx, query, depth, **recall)
    capped = full and len(hits) >= MAX_SEARCH_DEPTH
    hits = [
        h
        for h in hits
        if (wanted is None or h.fact.scope is wanted)
        and _matches(h.fact, wanted_subject, community or None)
    ]
    chunk = hits[offset : offset + limit]
    more = offset + limit < len(hits)
    nxt = _encode(["search", offset + limit, _query_tag(query)]) if more else None
    return HitPage(chunk, len(hits) if full else None, capped, nxt)


def iso(value: datetime | int | None) -> str | None:
    """ISO 8601 (UTC) for a datetime or epoch milliseconds: how every surface shows time."""
    from datetime import UTC

    if value is None:
        return None
    if isinstance(value, int):
        value = datetime.fromtimestamp(value / 1000, UTC)
    return value.astimezone(UTC).isoformat(timespec="seconds")

"""What an importer reads out of a foreign layout, before anything is written: entries
(text, the context and namespace it belongs to, its dates), public stats, and what was
skipped. Positions name a file and line, a row or an index: never the value."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from ..errors import InvalidContext
from ..model import Context, Surface, guild_session, session_key


@dataclass(frozen=True, slots=True)
class Entry:
    """One fact to write through `Memory.remember_many`, as `ctx` would have written it."""

    text: str
    ctx: Context
    namespace: str
    position: str
    created_at: datetime | None = None  # when it was first said (None: now)
    expires_at: datetime | None = None  # its own expiry, when the source kept one
    kind: str = "fact"
    source_skill: str | None = None
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class SkillUses:
    """T1 public stats for one skill."""

    position: str
    skill: str
    calls: int
    successes: int
    last_used: datetime | None = None


@dataclass(frozen=True, slots=True)
class PatternSeen:
    """A T1 public pattern: a trigger and the skills it led to."""

    position: str
    trigger: str
    skills: tuple[str, ...]
    count: int = 1
    last_seen: datetime | None = None


@dataclass(frozen=True, slots=True)
class Skip:
    """Something read but not imported, and why (a stable reason word)."""

    position: str
    reason: str


Item = Entry | SkillUses | PatternSeen | Skip

_EPOCH_MS = 10**11  # a number above this is milliseconds, below it seconds
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def parse_time(value: object) -> datetime | None:
    """A timestamp as the old layouts wrote them: ISO 8601 (with `Z`, an offset, or none:
    UTC), a bare date (noon UTC, so it stays the same day in every time zone), or epoch
    seconds / milliseconds. None when absent or unreadable. Times before 1970 (a zero
    date, `0001-01-01`) are read as 1970-01-01 UTC: history starts there."""
    parsed = _parse_time(value)
    return None if parsed is None else max(parsed, EPOCH)


def _parse_time(value: object) -> datetime | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime.combine(value, time(12), UTC)
    if isinstance(value, int | float):
        seconds = value / 1000 if abs(value) > _EPOCH_MS else value
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if re.fullmatch(r"-?\d+(\.\d+)?", text):
        return _parse_time(float(text))
    if _DATE_ONLY.match(text):
        try:
            return datetime.combine(date.fromisoformat(text), time(12), UTC)
        except ValueError:
            return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T", 1))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def community_context(actor: str, community: str, *, group: bool = False) -> Context:
    """The context of someone speaking in a community (`platform:id`), as a chat adapter
    would build it. A member from another platform (the owner's id on one platform
    vouching for a community on another) gets the context built field by field."""
    try:
        if group:
            return Context.group_dm(actor, community)
        return Context.guild(actor, community)
    except InvalidContext:
        surface = Surface.GROUP_DM if group else Surface.GUILD_TEXT
        session = session_key("group", community) if group else guild_session(community, None)
        return Context(surface, actor, community=community, session=session)


def place(
    scope: str,
    *,
    subject: str | None,
    community: str | None,
    origin: str | None,
    author: str | None,
    owner_ctx: Context,
) -> tuple[Context, str]:
    """Where an exported fact goes back: the context and namespace that write it into the
    same partition with the same origin. What cannot be reproduced exactly is written by
    the owner in private, which only ever narrows who may read it."""
    kind, _, raw = (origin or "").partition(":")
    if scope == "user" and subject:
        if kind == "dm" and raw == subject:
            return Context.dm(subject), "me"
        if kind in ("guild", "group") and raw and author == subject:
            return community_context(subject, raw, group=kind == "group"), "me"
        return owner_ctx, f"user:{subject}"
    if scope == "guild" and community:
        actor = author or owner_ctx.actor
        assert actor is not None
        return community_context(actor, community, group=kind == "group"), "guild"
    if scope in ("owner", "global", "session"):
        return owner_ctx, scope
    raise InvalidContext("unknown scope")

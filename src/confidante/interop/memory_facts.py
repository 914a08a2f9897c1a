"""A Discord bot's `memory_facts` SQLite table (columns `scope, guild_id, channel_id,
user_id, subject, fact, fact_type, evidence_text, source_message_id, confidence,
is_active, created_at`).

Owner rows (`scope='owner'`, `subject='__owner__'`) become owner memory; user rows go to
the person's silo, written as that person said it: in the guild the row names (so the
fact stays visible there, and to them) or else in their DM; guild rows become that
community's memory. Inactive rows are skipped. Raw ids become actors on `platform`.
`evidence_text` and `source_message_id` are not imported: a quoted message can hold more
than the fact drawn from it. Reads are bounded as every import's are (`files.ReadLimits`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from ..errors import InvalidActor, InvalidInput
from ..model import Context, normalize_actor
from .entries import Entry, Item, Skip, community_context, parse_time
from .files import DEFAULT_LIMITS, ReadLimits

COLUMNS = (
    "scope",
    "guild_id",
    "channel_id",
    "user_id",
    "subject",
    "fact",
    "fact_type",
    "confidence",
    "is_active",
    "created_at",
)


def _rows(path: Path, limits: ReadLimits) -> list[dict[str, Any] | Skip]:
    """The table's rows, bounded like every import's reads: a row with a value longer than
    `limits.file_bytes` is `too_large` (its values never leave SQLite), and the rows past
    `limits.import_bytes` of values in all are one `import_limit`."""
    if not path.is_file():
        raise InvalidInput("no such file")
    with path.open("rb") as f:
        if f.read(16) != b"SQLite format 3\x00":
            raise InvalidInput("not a SQLite database")
    con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        present = {r[1] for r in con.execute("PRAGMA table_info(memory_facts)")}
        if "fact" not in present:
            raise InvalidInput("no memory_facts table (with a fact column) in this database")
        cols = [c for c in COLUMNS if c in present]
        cap = int(limits.file_bytes)
        too_long = " OR ".join(f"coalesce(length({c}) > {cap}, 0)" for c in cols)
        values = ", ".join(f"CASE WHEN length({c}) > {cap} THEN NULL ELSE {c} END" for c in cols)
        # the column names come from COLUMNS (fixed here), never from the database
        cur = con.execute(f"SELECT rowid, {too_long}, {values} FROM memory_facts ORDER BY rowid")
        rows: list[dict[str, Any] | Skip] = []
        spent = 0
        for r in cur:
            if r[1]:
                rows.append(Skip(f"row {r[0]}", "too_large"))
                continue
            spent += sum(len(v) for v in r[2:] if isinstance(v, str | bytes))
            if spent > limits.import_bytes:
                rows.append(Skip(f"row {r[0]}", "import_limit"))  # and every row after it
                break
            rows.append({"rowid": r[0], **dict(zip(cols, r[2:], strict=True))})
        return rows
    except sqlite3.DatabaseError:
        raise InvalidInput("not a readable SQLite database") from None
    finally:
        con.close()


def _actor(raw: object, platform: str) -> str | None:
    if raw is None or isinstance(raw, bool):
        return None
    text = str(raw).strip()
    if not text or (text.startswith("__") and text.endswith("__")):
        return None  # markers such as __owner__ or __lore__ name nobody
    try:
        return normalize_actor(text if ":" in text else f"{platform}:{text}")
    except InvalidActor:
        return None


def read_memory_facts(
    path: Path,
    owner_ctx: Context,
    *,
    platform: str = "discord",
    limits: ReadLimits = DEFAULT_LIMITS,
) -> list[Item]:
    owner_actor = owner_ctx.actor
    assert owner_actor is not None
    items: list[Item] = []
    for row in _rows(path, limits):
        if isinstance(row, Skip):
            items.append(row)
            continue
        pos = f"row {row['rowid']}"
        text = row.get("fact")
        if not isinstance(text, str) or not text.strip():
            items.append(Skip(pos, "empty"))
            continue
        active = row.get("is_active", 1)
        if active is not None and str(active).strip().lower() in ("0", "false", "f", "no"):
            items.append(Skip(pos, "inactive"))
            continue
        scope = str(row.get("scope") or "").strip().lower()
        subject = str(row.get("subject") or "").strip()
        guild = str(row.get("guild_id") or "").strip()
        user = _actor(row.get("user_id"), platform)
        if not scope:  # older rows: the subject and ids tell
            scope = "owner" if subject == "__owner__" else "user" if user else "guild"
        community = f"{platform}:{guild}" if guild and ":" not in guild else guild or None
        where: tuple[Context, str]
        if scope == "owner":
            where = (owner_ctx, "owner")
        elif scope == "user":
            person = user or _actor(subject, platform)
            if person is None:
                items.append(Skip(pos, "no_subject"))
                continue
            where = (
                community_context(person, community) if community else Context.dm(person),
                "me",
            )
        elif scope in ("guild", "community", "server"):
            if community is None:
                items.append(Skip(pos, "no_guild"))
                continue
            where = (community_context(user or owner_actor, community), "guild")
        elif scope == "global":
            where = (owner_ctx, "global")
        else:
            items.append(Skip(pos, "unknown_scope"))
            continue
        kind = str(row.get("fact_type") or "fact").strip()[:64] or "fact"
        conf = row.get("confidence")
        confidence = min(1.0, max(0.0, float(conf))) if isinstance(conf, int | float) else 1.0
        items.append(
            Entry(
                text.strip(),
                where[0],
                where[1],
                pos,
                created_at=parse_time(row.get("created_at")),
                kind=kind,
                confidence=confidence,
            )
        )
    return items

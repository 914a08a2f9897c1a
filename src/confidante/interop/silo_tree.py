"""The per-user silo tree of a personal agent.

`<base>/MEMORY.md` is the owner's memory; `<base>/users/<hash>/MEMORY.md` are other
people's silos, each directory named by the first 16 hex chars of SHA-256 of the sender's
id (a silo matches an actor when its name is the hash of the raw id or of the whole
`platform:id`); `<base>/YYYY-MM-DD.md` daily notes become global notes (through the T1
guard: no identifiers); `<base>/sessions/*.json` become conversation history.

A silo no known sender matches becomes its own subject, `silo:<hash>`, recorded (sealed
under the master key) so that a later import with a mapping merges it into the person.
confidante's own exports add `guilds/` and `groups/` folders for community memory."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import ConfidanteError, InvalidInput
from ..model import Context
from .actors import UNMAPPED_PLATFORM, SenderMap, read_text, silo_hash
from .entries import Entry, Item, Skip, community_context, parse_time, place
from .markdown import Block, parse_daily_note, parse_memory_md

SENDER_IDS_FILE = "sender-ids.txt"  # written by `export_silo_tree`, read when no map is given
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
_SILO = re.compile(r"^[0-9a-f]{16,64}$")


@dataclass
class SiloTree:
    items: list[Item] = field(default_factory=list)
    unmapped: list[str] = field(default_factory=list)  # silo hashes no sender matched
    notes: list[str] = field(default_factory=list)  # for the report: positions, never values


def read_silo_tree(
    base: Path,
    owner_ctx: Context,
    senders: SenderMap,
    owners: Collection[str] = (),
) -> SiloTree:
    """`owners`: every owner id (the owner's lines in a conversation are the owner's, on
    whichever platform); `owner_ctx.actor` is one of them."""
    if not base.is_dir():
        raise InvalidInput("the silo tree must be a folder")
    tree = SiloTree()
    owner_md = base / "MEMORY.md"
    if owner_md.is_file():
        tree.items += _memory_file(owner_md, base, owner_ctx, (owner_ctx, "owner"))
    users = base / "users"
    for silo in sorted(p for p in users.iterdir() if p.is_dir()) if users.is_dir() else []:
        name = silo.name.lower()
        md = silo / "MEMORY.md"
        if not _SILO.match(name):
            tree.items.append(Skip(_rel(silo, base), "not_a_silo"))
            continue
        if not md.is_file():
            continue
        actor = senders.for_hash(name)
        if actor is None:
            actor = f"{UNMAPPED_PLATFORM}:{name[:16]}"
            tree.unmapped.append(name[:16])
        tree.items += _memory_file(md, base, owner_ctx, (Context.dm(actor), "me"))
    for kind in ("guilds", "groups"):
        for md in sorted((base / kind).glob("*/*/MEMORY.md")):
            community = f"{md.parent.parent.name}:{md.parent.name}"
            where = _community_default(owner_ctx, community, kind == "groups")
            tree.items += _memory_file(md, base, owner_ctx, where)
    for note in sorted(p for p in base.iterdir() if p.is_file() and _DAY.match(p.name)):
        tree.items += _daily_note(note, base, owner_ctx)
    owner_ids = frozenset(owners) | {owner_ctx.actor}
    for session in sorted((base / "sessions").glob("*.json")):
        tree.items += _session(session, base, owner_ctx, senders, owner_ids, tree.notes)
    return tree


def _rel(p: Path, base: Path) -> str:
    return p.relative_to(base).as_posix()


def _community_default(owner_ctx: Context, community: str, group: bool) -> tuple[Context, str]:
    assert owner_ctx.actor is not None
    return community_context(owner_ctx.actor, community, group=group), "guild"


def _read(path: Path, base: Path) -> str | Skip:
    try:
        return read_text(path)
    except InvalidInput:
        return Skip(_rel(path, base), "not_utf8")


def _memory_file(
    path: Path, base: Path, owner_ctx: Context, where: tuple[Context, str]
) -> list[Item]:
    text = _read(path, base)
    if isinstance(text, Skip):
        return [text]
    return [
        _entry(b, f"{_rel(path, base)}:{b.line}", owner_ctx, where) for b in parse_memory_md(text)
    ]


def _daily_note(path: Path, base: Path, owner_ctx: Context) -> list[Item]:
    text = _read(path, base)
    if isinstance(text, Skip):
        return [text]
    day = parse_time(path.stem)
    return [
        _entry(b, f"{_rel(path, base)}:{b.line}", owner_ctx, (owner_ctx, "global"), day)
        for b in parse_daily_note(text)
    ]


def _entry(
    block: Block,
    position: str,
    owner_ctx: Context,
    where: tuple[Context, str],
    created: datetime | None = None,
) -> Item:
    """A block as an entry; confidante's own comment restores dates and origin."""
    if block.problem is not None:
        return Skip(position, block.problem)
    meta: dict[str, Any] = block.meta or {}
    ctx, namespace = where
    if meta.get("scope"):
        try:
            ctx, namespace = place(
                str(meta["scope"]),
                subject=_str(meta.get("subject")) or _subject_of(ctx),
                community=_str(meta.get("community")) or ctx.community,
                origin=_str(meta.get("origin")),
                author=_str(meta.get("author")),
                owner_ctx=owner_ctx,
            )
        except ConfidanteError:
            return Skip(position, "invalid")
    confidence = meta.get("confidence", 1.0)
    return Entry(
        block.text(),
        ctx,
        namespace,
        position,
        created_at=parse_time(meta.get("created_at")) or created,
        expires_at=parse_time(meta.get("expires_at")),
        kind=_str(meta.get("kind")) or "fact",
        source_skill=_str(meta.get("source_skill")),
        confidence=float(confidence) if isinstance(confidence, int | float) else 1.0,
    )


def _subject_of(ctx: Context) -> str | None:
    """The silo a file stands for: the actor of its DM (mapped, or `silo:<hash>`)."""
    return ctx.actor


def _str(v: object) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


# --- sessions ----------------------------------------------------------------------------

_TEXT_KEYS = ("content", "text", "message", "body")
_TIME_KEYS = ("timestamp", "created_at", "time", "ts", "date")
_SENDER_KEYS = ("sender_id", "sender", "user_id", "from", "author", "user")


def _session(
    path: Path,
    base: Path,
    owner_ctx: Context,
    senders: SenderMap,
    owners: Collection[str | None],
    notes: list[str],
) -> list[Item]:
    """A conversation goes to one person's DM history only when that person is the only
    one who spoke in it (each message's own sender, else the file's). Anything else (the
    owner spoke, several people did, or nobody is named) is nobody's DM: it is kept as the
    owner's private history, which only the owner reads."""
    where = _rel(path, base)
    raw = _read(path, base)
    if isinstance(raw, Skip):
        return [raw]
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        return [Skip(where, "invalid")]
    messages = data.get("messages") if isinstance(data, dict) else data
    if not isinstance(messages, list):
        return [Skip(where, "invalid")]
    top = data if isinstance(data, dict) else {}
    default = _sender(top)
    speakers: set[str | None] = set()
    for m in messages:
        if isinstance(m, str) or (isinstance(m, dict) and m.get("role", "user") == "user"):
            sender = (_sender(m) if isinstance(m, dict) else None) or default
            speakers.add(
                None
                if sender is None
                else senders.resolve(sender) or f"{UNMAPPED_PLATFORM}:{silo_hash(sender)}"
            )
    ctx = owner_ctx
    if len(speakers) == 1 and (actor := next(iter(speakers))) is not None and actor not in owners:
        ctx = Context.dm(actor)
    elif len(speakers) > 1:
        notes.append(f"{where}: {len(speakers)} senders: kept as the owner's private history")
    out: list[Item] = []
    for i, m in enumerate(messages):
        pos = f"{where}: messages[{i}]"
        text = _message_text(m)
        if text is None:
            out.append(Skip(pos, "invalid" if not isinstance(m, dict) else "empty"))
            continue
        role = m.get("role") if isinstance(m, dict) else None
        kind = "reply" if role == "assistant" else "message"
        when = next((parse_time(m.get(k)) for k in _TIME_KEYS if m.get(k) is not None), None)
        out.append(Entry(text, ctx, "session", pos, created_at=when, kind=kind))
    return out


def _sender(d: dict[str, Any]) -> str | None:
    for k in _SENDER_KEYS:
        v = d.get(k)
        if isinstance(v, int | str) and not isinstance(v, bool) and str(v).strip():
            return str(v).strip()
    return None


def _message_text(m: object) -> str | None:
    if isinstance(m, str):
        return m.strip() or None
    if not isinstance(m, dict) or m.get("role") in ("system", "tool"):
        return None
    for k in _TEXT_KEYS:
        v = m.get(k)
        if isinstance(v, str) and v.strip():
            return v.strip()
        if isinstance(v, list):  # [{"type": "text", "text": ...}, ...]
            parts = [p.get("text") for p in v if isinstance(p, dict)]
            joined = "\n".join(p for p in parts if isinstance(p, str) and p.strip())
            if joined:
                return joined
    return None

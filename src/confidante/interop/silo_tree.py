"""The per-user silo tree of a personal agent.

`<base>/MEMORY.md` is the owner's memory; `<base>/users/<hash>/MEMORY.md` are other
people's silos, each directory named by the first 16 hex chars of SHA-256 of the sender's
id (a silo matches an actor when its name is the hash of the raw id or of the whole
`platform:id`); `<base>/YYYY-MM-DD.md` daily notes become global notes (through the T1
guard: no identifiers); `<base>/sessions/*.json` become conversation history.

A silo no known sender matches becomes its own subject, `silo:<hash>`, recorded (sealed
under the master key) so that a later import with a mapping merges it into the person.
confidante's own exports add `guilds/` and `groups/` folders for community memory (and a
member's own facts learned there).

A file's place in the tree decides the widest audience its entries reach; confidante's
comment in it can only narrow that (`narrowing`). No symlink inside the tree is followed,
and every read is bounded (`files`): each is reported by position, never by content."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..model import Context
from .actors import UNMAPPED_PLATFORM, SenderMap, silo_hash
from .entries import Entry, Item, Skip, parse_time
from .files import Tree
from .markdown import Block, parse_daily_note, parse_memory_md
from .narrowing import FilePlace, decide

SENDER_IDS_FILE = "sender-ids.txt"  # written by `export_silo_tree`, read when no map is given
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
_SILO = re.compile(r"^[0-9a-f]{16,64}$")
_MEMORY = "MEMORY.md"


@dataclass
class SiloTree:
    items: list[Item] = field(default_factory=list)
    unmapped: list[str] = field(default_factory=list)  # silo hashes no sender matched
    notes: list[str] = field(default_factory=list)  # for the report: positions, never values
    narrowed: list[str] = field(default_factory=list)  # entries placed narrower than asked
    senders: SenderMap = field(default_factory=SenderMap)


def read_silo_tree(
    tree: Tree,
    owner_ctx: Context,
    senders: SenderMap | None = None,
    owners: Collection[str] = (),
) -> SiloTree:
    """`senders`: who the silos are (None: the tree's own `sender-ids.txt`, if any).
    `owners`: every owner id (the owner's lines in a conversation are the owner's, on
    whichever platform); `owner_ctx.actor` is one of them."""
    out = SiloTree()
    reader = _Reader(tree, owner_ctx, frozenset(owners) | {owner_ctx.actor}, out)
    out.senders = senders if senders is not None else reader.bundled_senders()
    reader.memory_file((_MEMORY,), FilePlace.owner())
    for silo in reader.names("users", want="folder"):
        name = silo.lower()
        if not _SILO.match(name):
            out.items.append(tree.skip("not_a_silo", "users", silo))
            continue
        actor = out.senders.for_hash(name)
        mapped = actor is not None
        place = FilePlace.silo(actor or f"{UNMAPPED_PLATFORM}:{name[:16]}", name, mapped=mapped)
        if reader.memory_file(("users", silo, _MEMORY), place) and not mapped:
            out.unmapped.append(name[:16])
    for kind in ("guilds", "groups"):
        for platform in reader.names(kind, want="folder"):
            for community in reader.names(kind, platform, want="folder"):
                place = FilePlace.community_folder(platform, community, group=kind == "groups")
                reader.memory_file((kind, platform, community, _MEMORY), place)
    for note in reader.names(want="file", match=_DAY.match):
        reader.daily_note(note)
    for session in reader.names("sessions", want="file", match=lambda n: n.endswith(".json")):
        reader.session(session, out.senders)
    out.items += tree.limit_skips
    return out


class _Reader:
    """Turns the tree's files into items, each at the place its folder gives it; a link is
    reported (by position) wherever it is, and never followed."""

    def __init__(
        self, tree: Tree, owner_ctx: Context, owners: frozenset[str | None], out: SiloTree
    ) -> None:
        self.tree, self.owner_ctx, self.owners, self.out = tree, owner_ctx, owners, out

    def names(self, *parts: str, want: str, match: Callable[[str], object] = bool) -> list[str]:
        found, links = self.tree.contents(*parts, want=want, match=match)
        self.out.items += links
        return found

    def bundled_senders(self) -> SenderMap:
        """The tree's own `sender-ids.txt` (written by `export_silo_tree`)."""
        text = self.text((SENDER_IDS_FILE,))  # a link is reported here, not followed
        return SenderMap.from_text(text) if text is not None else SenderMap()

    def text(self, parts: tuple[str, ...]) -> str | None:
        text = self.tree.read(*parts)  # opened without following a link: a Skip if one is
        if isinstance(text, Skip):
            self.out.items.append(text)
            return None
        return text

    def memory_file(self, parts: tuple[str, ...], place: FilePlace) -> bool:
        """The file's entries, at its place; False when there is none or it was not read."""
        text = self.text(parts)
        if text is None:
            return False
        where = self.tree.position(*parts)
        for b in parse_memory_md(text):
            self.out.items.append(self.entry(b, f"{where}:{b.line}", place))
        return True

    def daily_note(self, name: str) -> None:
        text = self.text((name,))
        if text is None:
            return
        day = parse_time(name[: -len(".md")])
        where = self.tree.position(name)
        for b in parse_daily_note(text):
            self.out.items.append(self.entry(b, f"{where}:{b.line}", FilePlace.daily(), day))

    def entry(
        self, block: Block, position: str, place: FilePlace, created: datetime | None = None
    ) -> Item:
        """A block as an entry at its file's place; confidante's own comment restores dates
        and kind, and may narrow (never widen) where it goes."""
        if block.problem is not None:
            return Skip(position, block.problem)
        meta: dict[str, Any] = block.meta or {}
        placed = decide(place, meta, self.owner_ctx, self.owners)
        if isinstance(placed, str):
            return Skip(position, placed)
        if placed.narrowed:
            self.out.narrowed.append(position)
        confidence = meta.get("confidence", 1.0)
        return Entry(
            block.text(),
            placed.ctx,
            placed.namespace,
            position,
            created_at=parse_time(meta.get("created_at")) or created,
            expires_at=parse_time(meta.get("expires_at")),
            kind=_str(meta.get("kind")) or "fact",
            source_skill=_str(meta.get("source_skill")),
            confidence=float(confidence)
            if isinstance(confidence, int | float) and not isinstance(confidence, bool)
            else 1.0,
        )

    def session(self, name: str, senders: SenderMap) -> None:
        parts = ("sessions", name)
        raw = self.text(parts)
        if raw is None:
            return
        where = self.tree.position(*parts)
        self.out.items += _session(raw, where, self.owner_ctx, senders, self.owners, self.out.notes)


def _str(v: object) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


# --- sessions ----------------------------------------------------------------------------

_TEXT_KEYS = ("content", "text", "message", "body")
_TIME_KEYS = ("timestamp", "created_at", "time", "ts", "date")
_SENDER_KEYS = ("sender_id", "sender", "user_id", "from", "author", "user")


def _session(
    raw: str,
    where: str,
    owner_ctx: Context,
    senders: SenderMap,
    owners: Collection[str | None],
    notes: list[str],
) -> list[Item]:
    """A conversation goes to one person's DM history only when that person is the only
    one who spoke in it (each message's own sender, else the file's). Anything else (the
    owner spoke, several people did, or nobody is named) is nobody's DM: it is kept as the
    owner's private history, which only the owner reads."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
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

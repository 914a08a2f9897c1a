"""JSON Lines: one fact a line. A line is a string, `{"text": ...}` (written where the
importing context writes, with `created_at` kept when the owner imports), or a full line
as `export_jsonl` writes it (`scope`, `subject`, `community`, `origin`, `author`, dates,
`kind`, ...), which goes back to the same scope, subject and origin; full lines need the
owner, in private."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfidanteError
from ..model import Context
from .actors import read_text
from .entries import Entry, Item, Skip, parse_time, place
from .files import DEFAULT_LIMITS, ReadLimits


@dataclass
class JsonlLines:
    items: list[Item] = field(default_factory=list)
    exported: int = 0  # lines with a scope (as `export` writes them): the owner's to import


def read_jsonl(
    path: Path,
    ctx: Context,
    namespace: str | None,
    *,
    owner_private: bool,
    limits: ReadLimits = DEFAULT_LIMITS,
) -> JsonlLines:
    """Every line as an entry. Whether `ctx` may import what it read is the caller's to ask
    (`policy.import_denial`, with `exported`)."""
    out = JsonlLines()
    items = out.items
    for n, line in enumerate(read_text(path, limits).splitlines(), 1):
        pos = f"line {n}"
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            items.append(Skip(pos, "invalid_json"))
            continue
        if isinstance(obj, str):
            obj = {"text": obj}
        text = obj.get("text") if isinstance(obj, dict) else None
        if not isinstance(text, str) or not text.strip():
            items.append(Skip(pos, "no_text"))
            continue
        where: tuple[Context, str | None] = (ctx, namespace)
        if obj.get("scope"):
            out.exported += 1
            try:
                where = place(
                    str(obj["scope"]),
                    subject=_s(obj.get("subject")),
                    community=_s(obj.get("community")),
                    origin=_s(obj.get("origin")),
                    author=_s(obj.get("author")),
                    owner_ctx=ctx,
                )
            except ConfidanteError as e:
                items.append(Skip(pos, e.code))
                continue
        confidence = obj.get("confidence", 1.0)
        kind = obj.get("kind")
        items.append(
            Entry(
                text,
                where[0],
                where[1] or "",
                pos,
                created_at=parse_time(obj.get("created_at")) if owner_private else None,
                expires_at=parse_time(obj.get("expires_at")) if owner_private else None,
                kind=kind if isinstance(kind, str) and kind.strip() else "fact",
                source_skill=_s(obj.get("source_skill")),
                confidence=float(confidence)
                if isinstance(confidence, int | float) and not isinstance(confidence, bool)
                else 1.0,
            )
        )
    return out


def _s(v: object) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None

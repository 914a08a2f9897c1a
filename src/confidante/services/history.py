"""A fact's history: the texts it went through, by its own updates and by supersession.

An update keeps the text it replaced, sealed with the fact (`Engine.update`), so the history
is forgotten with the fact. A newer fact that replaced this one's value ("I moved to
Berlin" after "I live in Paris", `recall.supersession`) is part of the story too, as far as
the asking context may see both: the facts this one superseded come first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

import numpy as np

from .. import policy
from ..engine import partition_ref
from ..model import Context, Fact
from ..vault.records import from_ms

if TYPE_CHECKING:
    from ..engine import Engine

Event = Literal["add", "update", "supersede"]


@dataclass(frozen=True, slots=True)
class Version:
    """One step of a fact's story: `text` as it read from `at`; `previous` what it replaced
    (None for the first)."""

    fact_id: str
    event: Event
    text: str
    previous: str | None
    at: datetime | None

    def to_dict(self) -> dict[str, object]:
        return {
            "fact_id": self.fact_id,
            "event": self.event,
            "text": self.text,
            "previous": self.previous,
            "at": self.at.isoformat() if self.at else None,
        }


def history(mem: Engine, ctx: Context, fact_id: str) -> list[Version]:
    """The versions of a fact this context may see, oldest first: the facts it superseded
    (each with its own updates), then its own text as first said and every update since.
    NotFound exactly where `get` raises it."""
    record, pid = mem.get_record(ctx, fact_id)
    fact = record.fact
    chain = _superseded_chain(mem, ctx, pid, fact.id)
    out: list[Version] = []
    previous: str | None = None
    for older in [*chain, None]:
        if older is None:
            f, steps = fact, record.history
        else:
            opened, _ = mem.get_record(ctx, older.id)
            f, steps = opened.fact, opened.history
        texts = [text for _, text in steps] + [f.text]
        event: Event = "add" if previous is None else "supersede"
        out.append(Version(f.id, event, texts[0], previous, f.created_at))
        for (at, _), text, before in zip(steps, texts[1:], texts[:-1], strict=True):
            out.append(Version(f.id, "update", text, before, from_ms(at)))
        previous = f.text
    return out


def _superseded_chain(mem: Engine, ctx: Context, pid: str, fact_id: str) -> list[Fact]:
    """The visible facts that `fact_id` replaced, directly or through others, oldest first."""
    v = mem.viewer(ctx)
    cands = mem.candidates(v, policy.Pool(frozenset({partition_ref(pid)})))
    if not cands:
        return []
    index, mask = cands[0].index, cands[0].mask
    rows = {f.fact.id: i for i, f in enumerate(index.facts)}
    sup = index.superseded(mask)
    if sup is None or fact_id not in rows:
        return []
    chain: list[Fact] = []
    newer = {rows[fact_id]}
    seen = set(newer)
    while newer:
        older = {int(r) for r in np.flatnonzero(np.isin(sup, sorted(newer)))} - seen
        seen |= older
        chain += [index.facts[r].fact for r in older]
        newer = older
    return sorted(chain, key=lambda f: (f.created_at or datetime.min, f.id))


__all__ = ["Version", "history"]

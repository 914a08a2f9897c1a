"""Writing what an importer read, through the same path as `remember`: the policy decides
where each entry may go, the privacy guard checks every text, the engine encrypts.

Entries are written in batches (one transaction each); a batch that is refused is retried
one entry at a time, so one refused entry is reported by position and never stops the
rest. Entries already present in the same place (same scope, subject, community and text)
are skipped, so running an import twice adds nothing."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from .. import policy
from ..engine import MAX_TTL
from ..errors import ConfidanteError, IntegrityError, StoreError
from ..errors import PrivateDataRefused as _Refused
from ..model import Context, Fact
from .entries import Entry, Item, PatternSeen, SkillUses, Skip
from .report import ImportReport, Refusal

if TYPE_CHECKING:
    from ..memory import Memory

BATCH = 256
PlaceKey = tuple[str, str | None, str | None, str]
Progress = Callable[[int], None]


def place_key(mem: Memory, ctx: Context, namespace: str, text: str) -> PlaceKey | None:
    """Where a text would land, as the policy decides it; None when it may not be written."""
    try:
        target = policy.resolve_write(ctx, mem.owners, namespace)
    except ConfidanteError:
        return None
    return (target.scope.value, target.subject, target.community, " ".join(text.split()))


def existing_places(facts: Iterable[Fact]) -> set[PlaceKey]:
    return {(f.scope.value, f.subject, f.community, " ".join(f.text.split())) for f in facts}


def write(
    mem: Memory,
    items: Sequence[Item],
    report: ImportReport,
    *,
    authority: Context,
    existing: set[PlaceKey],
    ttl: timedelta | None = None,
    progress: Progress | None = None,
    reader: Memory | None = None,
) -> None:
    """Write `items` into `mem`, recording every outcome in `report`. Duplicates are looked
    up in `existing` and, for conversation history (which only its own session sees), in
    `reader` (the real memory when `mem` is a dry run's scratch copy)."""
    batch: list[Entry] = []
    sessions: dict[Context, set[PlaceKey]] = {}
    counted = _counted(reader or mem)
    for item in items:
        if isinstance(item, Entry):
            key = place_key(mem, item.ctx, item.namespace, item.text)
            if key is not None and key[0] == "session":
                if item.ctx not in sessions:
                    seen = (reader or mem).list(item.ctx)
                    sessions[item.ctx] = existing_places(
                        f for f in seen if f.scope.value == "session"
                    )
                known = sessions[item.ctx]
            else:
                known = existing
            if key is not None and key in known:
                report.skipped.append((item.position, "duplicate"))
                _tick(progress)
                continue
            if key is not None:
                known.add(key)
            if batch and (_group(batch[0]) != _group(item) or len(batch) >= BATCH):
                _flush(mem, batch, report, authority, ttl, progress)
                batch = []
            batch.append(item)
            continue
        _flush(mem, batch, report, authority, ttl, progress)
        batch = []
        if isinstance(item, Skip):
            report.skipped.append((item.position, item.reason))
        elif isinstance(item, SkillUses | PatternSeen):
            _count(mem, item, report, counted)
        _tick(progress)
    _flush(mem, batch, report, authority, ttl, progress)
    if reader is None or reader is mem:  # a dry run's scratch copy keeps nothing
        _save_counted(mem, counted)


# Public stats an import already counted, by source position and name: a repeat adds only
# what grew since (sealed meta: what an import read is nobody's business but the owner's).
_COUNTED = "interop.counted_stats"


def _counted(mem: Memory) -> dict[str, list[int]]:
    raw = mem.sealed_meta(_COUNTED)
    return dict(json.loads(raw)) if raw else {}


def _save_counted(mem: Memory, counted: dict[str, list[int]]) -> None:
    if counted != _counted(mem):
        mem.set_sealed_meta(_COUNTED, json.dumps(counted, sort_keys=True).encode())


def _count(
    mem: Memory,
    item: SkillUses | PatternSeen,
    report: ImportReport,
    counted: dict[str, list[int]],
) -> None:
    """Record a source's stats, less what an earlier import of the same source counted."""
    if isinstance(item, SkillUses):
        name, totals, counter = item.skill, [item.calls, item.successes], "skills"
    else:
        name = f"{item.trigger}\x00{','.join(item.skills)}"
        totals, counter = [item.count, 0], "patterns"
    fp = hashlib.sha256(f"{counter}\x00{item.position}\x00{name}".encode()).hexdigest()[:32]
    had = counted.get(fp, [0, 0])
    new = [max(t - h, 0) for t, h in zip(totals, had, strict=True)]
    if not new[0]:
        report.skipped.append((item.position, "duplicate"))
        return
    if isinstance(item, SkillUses):
        grown = SkillUses(item.position, item.skill, new[0], min(new[1], new[0]), item.last_used)
        ok = _record(report, item.position, lambda: _skill(mem, grown), counter)
    else:
        grown_p = PatternSeen(item.position, item.trigger, item.skills, new[0], item.last_seen)
        ok = _record(report, item.position, lambda: _pattern(mem, grown_p), counter)
    if ok:
        counted[fp] = [max(t, h) for t, h in zip(totals, had, strict=True)]


def _tick(progress: Progress | None, n: int = 1) -> None:
    if progress is not None:
        progress(n)


def _group(e: Entry) -> tuple[object, ...]:
    # entries that kept their own expiry are written apart: the others' lifetime counts
    # from the import
    return (e.ctx, e.namespace, e.kind, e.source_skill, e.confidence, e.expires_at is None)


def _lifetime(e: Entry, ttl: timedelta | None) -> timedelta | None:
    """The entry's own expiry when its source kept one, else the import's `ttl`."""
    if e.expires_at is None:
        return ttl
    born = e.created_at or e.expires_at
    # an expiry at or before the creation time: gone already, archived at once; a "never"
    # written as a far-future date: the longest lifetime there is
    return min(max(e.expires_at - born, timedelta(milliseconds=1)), MAX_TTL)


def _flush(
    mem: Memory,
    batch: list[Entry],
    report: ImportReport,
    authority: Context,
    ttl: timedelta | None,
    progress: Progress | None,
) -> None:
    if not batch:
        return
    try:
        facts = _remember(mem, batch, authority, ttl)
    except (IntegrityError, StoreError):
        raise  # the database itself is in trouble: stop, nothing half-reported
    except ConfidanteError as e:
        if len(batch) > 1:
            for one in batch:
                _flush(mem, [one], report, authority, ttl, progress)
            return
        report.refused.append(Refusal(batch[0].position, e.code, _categories(e)))
        _tick(progress)
        return
    now = mem.now()
    for e, f in zip(batch, facts, strict=True):
        if f.expires_at is not None and f.expires_at <= now:
            report.archived.append(e.position)
        else:
            report.imported += 1
    _tick(progress, len(batch))


def _remember(
    mem: Memory, batch: list[Entry], authority: Context, ttl: timedelta | None
) -> list[Fact]:
    first = batch[0]
    dated = any(e.created_at is not None for e in batch)
    now = mem.now()
    created: list[datetime] | None = (
        [_not_ahead(e.created_at, now) for e in batch] if dated else None
    )
    return mem.remember_many(
        first.ctx,
        [e.text for e in batch],
        first.namespace,
        kind=first.kind,
        source_skill=first.source_skill,
        confidence=first.confidence,
        ttl=[_lifetime(e, ttl) for e in batch],
        created_at=created,
        authority=authority if dated else None,
        # an entry without an expiry of its own lives from the import, however old it is
        ttl_from_now=first.expires_at is None,
    )


def _not_ahead(when: datetime | None, now: datetime) -> datetime:
    """An entry's date, at most now: a bare date is read as noon UTC, and "today" is ahead
    of now somewhere until noon; anything more than a day ahead is still refused."""
    if when is None:
        return now
    return now if now < when <= now + timedelta(days=1) else when


def _categories(e: ConfidanteError) -> tuple[str, ...]:
    return tuple(e.categories) if isinstance(e, _Refused) else ()


def _record(report: ImportReport, position: str, fn: Callable[[], None], counter: str) -> bool:
    try:
        fn()
    except (IntegrityError, StoreError):
        raise
    except ConfidanteError as e:
        report.refused.append(Refusal(position, e.code, _categories(e)))
        return False
    report.stats[counter] += 1
    return True


def _skill(mem: Memory, s: SkillUses) -> None:
    if s.successes:
        mem.record_skill_use(s.skill, True, count=s.successes, at=s.last_used)
    if s.calls - s.successes:
        mem.record_skill_use(s.skill, False, count=s.calls - s.successes, at=s.last_used)


def _pattern(mem: Memory, p: PatternSeen) -> None:
    mem.record_pattern(p.trigger, list(p.skills), count=p.count, at=p.last_seen)


__all__ = ["existing_places", "place_key", "write"]

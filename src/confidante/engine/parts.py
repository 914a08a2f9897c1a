"""The engine's own helpers: limits, input checks, what counts as the same sentence, and
rows to and from what recall indexes."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from .. import policy
from ..config import MAX_TTL_DAYS, Settings
from ..errors import (
    EmptyText,
    IntegrityError,
    InvalidContext,
    InvalidInput,
)
from ..model import Context, Fact, OriginKind
from ..policy import PartitionRef, Viewer
from ..recall.index import IndexedFact
from ..recall.ranking import BM25, Candidates, Ranker
from ..store import FactRow
from ..vault.records import Opened, open_record, scope_of, seal_fact, to_ms

Clock = Callable[[], datetime]


ID_PREFIX = re.compile(r"^[0-9a-f]{4,31}$")


"""A shortened fact id (tables show 12 characters): at least 4 hex digits."""


MAX_PREFIX_MATCHES = 1000


OWNERS_META = "owners"


MAX_TEXT_CHARS = 20_000


HISTORY_KEPT = 20  # earlier texts of an updated fact, sealed with it (`Memory.history`)


NAME_KIND = "display-name"  # a directory fact: the name a person was seen with


NAMES_REFRESH = timedelta(days=1)  # a name seen again is written again at most this often


_NAMES_KEY = "names"  # a directory index's name matcher, in its extras


WRITE_RETRIES = 8  # a write whose partition key changed under it (forget, re-key) starts over


MAX_TTL = timedelta(days=MAX_TTL_DAYS)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


"""History starts here: an earlier `created_at` is refused (far-past times with an offset
cannot even be converted to UTC)."""


_MIN_MS = to_ms(datetime.min.replace(tzinfo=UTC))


_MAX_MS = to_ms(datetime.max.replace(tzinfo=UTC))


def _utcnow() -> datetime:
    return datetime.now(UTC)


def partition_ref(pid: str) -> PartitionRef:
    """The partition a stored id names. Scope comes from the id (bound into every fact's
    associated data), never from a row's separate scope column."""
    _, _, key = pid.partition(":")
    return PartitionRef(scope_of(pid), key)


def default_rankers(settings: Settings) -> list[Ranker]:
    """Keyword ranking always; semantic ranking with the configured offline embedder."""
    from ..recall.embedding import load_embedder
    from ..recall.semantic import Semantic

    name = None if settings.embedder == "default" else settings.embedder
    try:
        embedder = load_embedder(name)
    except ValueError:
        raise InvalidInput(
            "unknown embedder (see confidante.recall.embedding.EMBEDDER_NAMES)"
        ) from None
    return [BM25()] if embedder is None else [BM25(), Semantic(embedder)]


def _indexed(opened: Opened, row: FactRow) -> IndexedFact:
    """What recall indexes: the opened fact plus its keyed metadata."""
    return IndexedFact(
        fact=opened.fact,
        origin_kind=OriginKind(row.origin_kind),
        origin_key=row.origin_key,
        author_key=row.author_key,
        subject_key=row.subject_key,
        created_ms=row.created_at,
        expires_ms=row.expires_at,
        vector=opened.vector,
        embedder=opened.embedder,
        rev=row.rev,
    )


def _seal(dk: bytes, row: FactRow, o: Opened) -> FactRow:
    """`row` with the opened fact sealed under `dk`, everything it carries included."""
    return seal_fact(
        dk,
        row,
        o.fact,
        o.vector,
        embedder=o.embedder,
        context=o.context,
        dependents=o.dependents,
        history=o.history,
    )


def _seal_all(dk: bytes, items: Sequence[tuple[FactRow, Opened]]) -> list[FactRow]:
    return [_seal(dk, r, o) for r, o in items]


def _quiet(fn: Callable[[FactRow], Opened | None], row: FactRow) -> Opened | None:
    try:
        return fn(row)
    except IntegrityError:
        return None


def _shown(v: Viewer, fact: Fact) -> Fact:
    """The fact as this viewer may see it: without its provenance where policy hides it."""
    if policy.shows_provenance(v, fact.scope):
        return fact
    return replace(fact, author=None, origin=fact.scope.value, community=None)


def _clamp_ms(ms: Any) -> Any:
    return ms if ms is None else min(max(ms, _MIN_MS), _MAX_MS)


def _open(dk: bytes, row: FactRow) -> tuple[Opened, FactRow]:
    """Open a stored row. Times outside what a datetime can hold (a row written before
    dates were checked) are read as the nearest representable one: one odd row must not
    make a whole partition unreadable. Times are not authenticated data, so the ciphertext
    still opens. Returns the row as read, with its times in range."""
    if any(
        t is not None and not _MIN_MS <= t <= _MAX_MS
        for t in (row.created_at, row.updated_at, row.expires_at)
    ):
        row = replace(
            row,
            created_at=_clamp_ms(row.created_at),
            updated_at=_clamp_ms(row.updated_at),
            expires_at=_clamp_ms(row.expires_at),
        )
    return open_record(dk, row), row


def _day(ms: int) -> str:
    return datetime.fromtimestamp(_clamp_ms(ms) / 1000, UTC).date().isoformat()


def _newest(cands: Sequence[Candidates]) -> list[tuple[IndexedFact, str | None]]:
    """Every visible fact, newest first, with the id of the fact that superseded it."""
    items = []
    for c in cands:
        sup = c.index.superseded(c.mask)
        for i in c.mask.nonzero()[0]:
            newer = None if sup is None or sup[i] < 0 else c.index.facts[sup[i]].fact.id
            items.append((c.index.facts[i], newer))
    items.sort(key=lambda x: (x[0].created_ms, x[0].fact.id), reverse=True)
    return items


_CLOSING = " \t\r\n.!?\u3002"  # NFKC has made full-width ones (and an ellipsis) ASCII


def same_sentence(text: str) -> str:
    """What counts as saying the same thing again: the text in Unicode NFKC form, case
    folded, runs of white space as one space, without closing punctuation. "I like sushi",
    "i like  sushi." and "I like sushi!" are the same sentence; "I like sushi a lot" is
    not (near-duplicates are supersession's and cleanup's)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.split()).rstrip(_CLOSING)


# Letters that render as nothing (Hangul fillers, the Braille blank): with format and
# control characters, a text made only of these says nothing.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _blank(c: str) -> bool:
    return c.isspace() or c in _BLANK_LETTERS or unicodedata.category(c) in ("Cf", "Cc")


def _check_context(ctx: object) -> None:
    if not isinstance(ctx, Context):
        raise InvalidContext("a Context is required (use Context.dm(...), Context.guild(...))")


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise InvalidInput("text must be a string")
    stripped = text.strip()
    if all(_blank(c) for c in stripped):  # also "" and zero-width-only text
        raise EmptyText("text is empty (nothing visible in it)")
    if len(stripped) > MAX_TEXT_CHARS:
        raise InvalidInput(f"text is longer than {MAX_TEXT_CHARS} characters")
    if "\x00" in stripped:
        raise InvalidInput("text contains a NUL character")
    try:
        stripped.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("text is not valid Unicode (lone surrogate)") from None
    return stripped


def _check_label_text(value: object, what: str, limit: int = 64) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise InvalidInput(f"{what} must be a non-empty string of at most {limit} characters")
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in value.strip()):
        raise InvalidInput(f"{what} must be one line of visible text (no control characters)")
    if all(_blank(c) for c in value.strip()):
        raise InvalidInput(f"{what} must have something visible in it")
    return value.strip()


def _per_text(value: Any, n: int, what: str) -> list[Any]:
    """One value for every text, or a sequence with one per text."""
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        if len(value) != n:
            raise InvalidInput(f"{what} must be one value, or one per text")
        return list(value)
    return [value] * n


def _check_count(count: object) -> int:
    if isinstance(count, bool) or not isinstance(count, int) or not (1 <= count <= 10**9):
        raise InvalidInput("count must be a positive integer")
    return count


def _check_ttl(ttl: object) -> None:
    if ttl is not None and (not isinstance(ttl, timedelta) or not timedelta(0) < ttl <= MAX_TTL):
        raise InvalidInput(f"ttl must be a positive timedelta of at most {MAX_TTL.days} days")


def _check_meta(kind: object, source_skill: object, confidence: object, ttl: object) -> None:
    _check_label_text(kind, "kind")
    if source_skill is not None:
        _check_label_text(source_skill, "source_skill", 128)
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not (0.0 <= float(confidence) <= 1.0)
    ):
        raise InvalidInput("confidence must be a number between 0 and 1")
    _check_ttl(ttl)

"""The in-memory partition index: decrypted facts plus keyword postings, per partition.

Built once per partition and cached. A write anywhere (this process or another sharing the
database) bumps the partition's version; the next read catches up on the rows written since
(`extended`: new rows appended, the rest kept as it was), so its cost follows what is new,
not the partition's size, and a reader who may not see the new rows pays no rebuild for
them. A forgotten or rewritten fact makes the whole partition be read again, so nothing of
its old text stays in memory. Nothing here is ever written to disk.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import InitVar, dataclass, field

import numpy as np

from ..model import Fact, OriginKind
from ..policy import Grant, PartitionRef
from .analysis import stem, terms
from .reading import Reading, read
from .supersession import Claim, claim, superseded

__all__ = ["IndexedFact", "Lines", "PartitionIndex", "stem", "tokenize"]


def tokenize(text: str) -> list[str]:
    """The keyword terms of a text, in any language (see `analysis`)."""
    return terms(text)


@dataclass(frozen=True, slots=True)
class IndexedFact:
    """A decrypted fact with the keyed metadata the read rule needs."""

    fact: Fact
    origin_kind: OriginKind
    origin_key: str | None
    author_key: str | None
    subject_key: str | None
    created_ms: int
    expires_ms: int | None
    vector: np.ndarray | None = None  # float16 embedding, when a semantic ranker made one
    embedder: str | None = None  # the name of the embedder that made `vector`
    rev: int = 0  # the partition version its row was last written at (`FactRow.rev`)


_NEVER = np.iinfo(np.int64).max

# Facts written this close together, in one partition, with the same origin and author, read
# as lines of one conversation: each line's keywords are read with the line before it.
CONVERSATION_GAP_MS = 30 * 60 * 1000


ConversationIds = dict[tuple[OriginKind, str | None, str | None], int]


def conversation_keys(facts: list[IndexedFact], keys: ConversationIds | None = None) -> np.ndarray:
    """One small integer per (origin, author): facts that may form one conversation. Same
    origin means the same visibility under every grant. `keys` (extended in place) carries
    the numbering on from an earlier call."""
    keys = {} if keys is None else keys
    return np.fromiter(
        (keys.setdefault((f.origin_kind, f.origin_key, f.author_key), len(keys)) for f in facts),
        np.int64,
        len(facts),
    )


@dataclass(frozen=True, slots=True)
class Lines:
    """One reader's view of the conversations in a partition (see `PartitionIndex.lines`)."""

    prev: np.ndarray  # row of the line before, or -1
    next: np.ndarray  # row of the line after, or -1
    before: np.ndarray  # term count of the line before (0 if none)
    after: np.ndarray  # term count of the line after (0 if none)
    segment: np.ndarray  # which run of linked lines (one conversation) each row is in, or -1
    # A term's rows and counts with its neighbours' counts added, by (term, weights): the
    # same for every query of this reader until the partition changes.
    with_context: dict[tuple[str, float, float], tuple[np.ndarray, np.ndarray]] = field(
        default_factory=dict
    )


_UNREAD = object()  # a claim not read yet (a fact sealed without its reading)


@dataclass
class _Read:
    """What the index reads out of a run of facts (rows `first`, `first + 1`, ...): from the
    reading sealed with each fact (`recall.reading`), or from its text when it has none."""

    lengths: np.ndarray
    asks: np.ndarray
    created: np.ndarray
    expires: np.ndarray
    postings: dict[str, tuple[np.ndarray, np.ndarray]]
    spoken_by: dict[str, np.ndarray]
    claims: list[object]  # Claim | None per fact, or _UNREAD where its text was read now

    @classmethod
    def of(
        cls,
        facts: Sequence[IndexedFact],
        first: int = 0,
        readings: Sequence[Reading | None] | None = None,
    ) -> _Read:
        n = len(facts)
        asks = np.zeros(n, dtype=np.float32)
        claims: list[object] = [_UNREAD] * n
        # every (term, count) of every fact, flat: postings are cut out of it by sorting
        words: list[str] = []
        counts: list[int] = []
        per_fact = np.zeros(n, dtype=np.int64)
        spoken: dict[str, list[int]] = {}
        for i, f in enumerate(facts):
            r = None if readings is None else readings[i]
            if r is None:  # sealed before readings were kept: its claim is read when asked
                r = read(f.fact.text, claims=False)
            else:
                claims[i] = r.claim
            w = r.terms
            words.extend(w)
            counts.extend(w.values())
            per_fact[i] = len(w)
            if r.asks:
                asks[i] = r.asks
            for term in r.spoken:
                spoken.setdefault(term, []).append(first + i)
        rows = np.repeat(np.arange(first, first + n, dtype=np.int32), per_fact)
        tf = np.asarray(counts, dtype=np.float32)
        lengths = np.bincount(rows - first, weights=tf, minlength=n).astype(np.float32)
        return cls(
            lengths=lengths,
            asks=asks,
            created=np.fromiter((f.created_ms for f in facts), np.int64, n),
            expires=np.fromiter(
                (f.expires_ms if f.expires_ms is not None else _NEVER for f in facts), np.int64, n
            ),
            postings=_postings(words, rows, tf),
            spoken_by={t: np.asarray(r, dtype=np.int64) for t, r in spoken.items()},
            claims=claims,
        )


def _postings(
    words: list[str], rows: np.ndarray, tf: np.ndarray
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """term -> (its rows ascending, its counts there), from flat (term, row, count) triples
    in row order."""
    ids: dict[str, int] = {}
    code = np.fromiter((ids.setdefault(w, len(ids)) for w in words), np.int64, len(words))
    order = np.argsort(code, kind="stable")  # stable: rows stay ascending within a term
    bounds = np.searchsorted(code[order], np.arange(len(ids) + 1))
    rows, tf = rows[order], tf[order]
    return {
        w: (rows[bounds[k] : bounds[k + 1]], tf[bounds[k] : bounds[k + 1]]) for w, k in ids.items()
    }


def _joined_postings(
    old: dict[str, tuple[np.ndarray, np.ndarray]], new: dict[str, tuple[np.ndarray, np.ndarray]]
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The old postings with the new rows' appended (rows stay in ascending order)."""
    out = dict(old)
    for term, (rows, counts) in new.items():
        had = out.get(term)
        out[term] = (
            (rows, counts)
            if had is None
            else (np.concatenate((had[0], rows)), np.concatenate((had[1], counts)))
        )
    return out


@dataclass
class PartitionIndex:
    ref: PartitionRef
    version: int
    facts: list[IndexedFact]
    # which data key the facts were opened under (a digest, never the key): a cached index
    # may catch up on new rows only while the partition's key is the same
    key_id: bytes | None = None
    lengths: np.ndarray = field(init=False)
    postings: dict[str, tuple[np.ndarray, np.ndarray]] = field(init=False)
    created: np.ndarray = field(init=False)
    expires: np.ndarray = field(init=False)
    conversation: np.ndarray = field(init=False)  # conversation_keys, per fact
    # Transcript lines ("Caroline: ..."): each term of a speaker's name -> the rows they said.
    spoken_by: dict[str, np.ndarray] = field(init=False)
    asks: np.ndarray = field(init=False)  # share of each fact's text that is a question
    _by_conversation: np.ndarray = field(init=False)  # rows by conversation, then written order
    _conversation_ids: ConversationIds = field(init=False, default_factory=dict)
    _lines: dict[bytes, Lines | None] = field(init=False, default_factory=dict)
    # each fact's claim, or _UNREAD (sealed without its reading: read when first asked for)
    _claims: list[object] = field(init=False, default_factory=list)
    _has_claim: np.ndarray = field(init=False, default_factory=lambda: np.zeros(0, bool))
    _unread: list[int] | None = field(init=False, default=None)  # rows of _UNREAD, once found
    _row_of: dict[str, int] | None = field(init=False, default=None)  # fact id -> row, lazily
    _author_keys: list[str | None] = field(init=False, default_factory=list)
    _inherited: dict[str, Claim | None] = field(init=False, default_factory=dict)
    # The older version this index replaces, while rankers prepare it (`inherit`): they may
    # keep work it did for facts still here with the same text. Let go once prepared.
    previous: PartitionIndex | None = field(init=False, default=None, repr=False)
    _superseded: dict[bytes, np.ndarray | None] = field(init=False, default_factory=dict)
    _lines_lock: threading.Lock = field(init=False, default_factory=threading.Lock)
    _masks: dict[Grant, np.ndarray] = field(init=False, default_factory=dict)
    extras: dict[str, object] = field(init=False, default_factory=dict)  # other rankers' data
    # The readings sealed with the facts (`recall.reading`), None where a fact has none:
    # read once, here, and not kept.
    readings: InitVar[Sequence[Reading | None] | None] = None

    def __post_init__(self, readings: Sequence[Reading | None] | None) -> None:
        read = _Read.of(self.facts, 0, readings)
        self._claims = read.claims
        self._has_claim = _has_claim(read.claims)
        self.lengths, self.asks = read.lengths, read.asks
        self.created, self.expires = read.created, read.expires
        self.postings, self.spoken_by = read.postings, read.spoken_by
        self.conversation = conversation_keys(self.facts, self._conversation_ids)
        self._by_conversation = np.lexsort((np.arange(len(self.facts)), self.conversation))

    def extended(
        self,
        version: int,
        added: list[IndexedFact],
        readings: Sequence[Reading | None] | None = None,
    ) -> PartitionIndex:
        """This index with `added` appended (rows written since): what was read of the facts
        already here is kept, so catching up costs what is new. The other readers' masks
        are extended too; per-reader views (`lines`, `superseded`) are made again when
        asked. Rankers extend their own data (`extend`), with `previous` set to this."""
        if not added:
            raise ValueError("nothing to add")
        first = len(self.facts)
        read = _Read.of(added, first, readings)
        grown = PartitionIndex.__new__(PartitionIndex)
        grown.ref, grown.version, grown.key_id = self.ref, version, self.key_id
        grown.facts = [*self.facts, *added]
        grown.lengths = np.concatenate((self.lengths, read.lengths))
        grown.asks = np.concatenate((self.asks, read.asks))
        grown.created = np.concatenate((self.created, read.created))
        grown.expires = np.concatenate((self.expires, read.expires))
        grown.postings = _joined_postings(self.postings, read.postings)
        grown.spoken_by = {t: rows for t, rows in self.spoken_by.items()}
        for t, rows in read.spoken_by.items():
            had = grown.spoken_by.get(t)
            grown.spoken_by[t] = rows if had is None else np.concatenate((had, rows))
        grown._conversation_ids = dict(self._conversation_ids)
        grown.conversation = np.concatenate(
            (self.conversation, conversation_keys(added, grown._conversation_ids))
        )
        grown._by_conversation = np.lexsort((np.arange(len(grown.facts)), grown.conversation))
        grown._lines, grown._superseded, grown.extras = {}, {}, {}
        grown._lines_lock = threading.Lock()
        # never changed in place, so sharing what `self` read with `grown` is safe
        grown._claims = [*self._claims, *read.claims]
        grown._has_claim = np.concatenate((self._has_claim, _has_claim(read.claims)))
        grown._unread = None
        grown._row_of = None
        grown._author_keys = self._author_keys
        grown._inherited = self._inherited
        grown._masks = {
            g: np.concatenate((m, _admits(g, added))) for g, m in list(self._masks.items())
        }
        grown.previous = self
        return grown

    def lines(self, visible: np.ndarray) -> Lines | None:
        """Among the `visible` facts only, each one's previous and next line in its
        conversation; None when no two visible facts are lines of one conversation. Computed
        per reader, so a fact they may not see (or that expired) neither lends context nor
        breaks a link: it is as if it had never been. Cached for a few readers' views."""
        key = np.packbits(visible).tobytes()
        if key in self._lines:
            return self._lines[key]
        rows = self._by_conversation[visible[self._by_conversation]]
        found = None
        if len(rows) > 1:
            a, b = rows[:-1], rows[1:]
            same = (self.conversation[a] == self.conversation[b]) & (
                self.created[b] - self.created[a] <= CONVERSATION_GAP_MS
            )
            if same.any():
                prev = np.full(len(self.facts), -1, dtype=np.int64)
                nxt = np.full(len(self.facts), -1, dtype=np.int64)
                prev[b[same]] = a[same]
                nxt[a[same]] = b[same]
                before = np.zeros(len(self.facts), dtype=np.float32)
                before[b[same]] = self.lengths[a[same]]
                after = np.zeros(len(self.facts), dtype=np.float32)
                after[a[same]] = self.lengths[b[same]]
                # a new segment starts at every row not linked to the one before it
                segment = np.full(len(self.facts), -1, dtype=np.int64)
                segment[rows] = np.cumsum(np.concatenate(([True], ~same)))
                found = Lines(prev, nxt, before, after, segment)
        with self._lines_lock:
            if len(self._lines) >= 8:
                self._lines.pop(next(iter(self._lines)))
            self._lines[key] = found
        return found

    def inherit(self, previous: PartitionIndex) -> None:
        """Reuse what an older version of this partition's index already read (the claims of
        facts whose text is unchanged), so a write does not make every fact be read again."""
        self.previous = previous
        if _UNREAD in self._claims:
            # Only facts still here with the same text: nothing of a forgotten or rewritten
            # fact lives on in the new index.
            here = {f.fact.id: f.fact.text for f in self.facts}
            self._inherited = {
                f.fact.id: c
                for f, c in zip(previous.facts, previous._claims, strict=False)
                if c is not _UNREAD and here.get(f.fact.id) == f.fact.text
            }

    def superseded(self, visible: np.ndarray) -> np.ndarray | None:
        """Among the `visible` facts only, each one's current version: the row of the newest
        fact of the same author stating the same attribute of the same holder with another
        value (`recall.supersession`), or -1; None when nothing is superseded. Computed per
        reader, like `lines`, so a fact they may not see (or that expired) never marks,
        hides or reorders one they can. Cached for a few readers' views."""
        key = np.packbits(visible).tobytes()
        if key in self._superseded:
            return self._superseded[key]
        claims = self._read_claims()
        order = np.lexsort((np.arange(len(self.facts)), self.created))  # oldest first
        links = superseded(
            claims,
            self._authors(),
            order[visible[order] & self._has_claim[order]].tolist(),
        )
        found = None
        if links:
            found = np.full(len(self.facts), -1, dtype=np.int64)
            for old, new in links.items():
                found[old] = new
        with self._lines_lock:
            if len(self._superseded) >= 8:
                self._superseded.pop(next(iter(self._superseded)))
            self._superseded[key] = found
        return found

    def _read_claims(self) -> list[Claim | None]:
        """Every fact's claim (`recall.supersession.claim`): sealed with it, or, for a fact
        sealed without its reading, read from its text once, when first asked for (or kept
        from an older version of this index that read the same text)."""
        if self._unread is None:
            self._unread = [i for i, c in enumerate(self._claims) if c is _UNREAD]
        if self._unread:
            known = self._inherited
            claims = list(self._claims)
            for i in self._unread:
                f = self.facts[i].fact
                claims[i] = known[f.id] if f.id in known else claim(f.text)
            self._claims, self._has_claim = claims, _has_claim(claims)
            self._unread, self._inherited = [], {}
        return self._claims  # type: ignore[return-value]

    def _authors(self) -> list[str | None]:
        if len(self._author_keys) < len(self.facts):
            had = len(self._author_keys)
            self._author_keys = [*self._author_keys, *(f.author_key for f in self.facts[had:])]
        return self._author_keys

    def extend_expiry(self, ids: set[str], expires_ms: int) -> None:
        """Refresh-on-read: push cached expiries forward like the store just did. Every
        recall refreshes what it returned: the rows are found by id (`_row_of`, made once
        per index), not by a pass over every fact."""
        if self._row_of is None:
            self._row_of = {f.fact.id: i for i, f in enumerate(self.facts)}
        for fid in ids:
            i = self._row_of.get(fid)
            if i is not None and self.facts[i].expires_ms is not None:
                self.expires[i] = max(int(self.expires[i]), expires_ms)

    def __len__(self) -> int:
        return len(self.facts)

    def mask(self, grant: Grant, now_ms: int) -> np.ndarray:
        """Which facts the grant admits and have not expired."""
        m = self._masks.get(grant)
        if m is None:
            m = _admits(grant, self.facts)
            self._masks[grant] = m
        return m & (self.expires > now_ms)


def _has_claim(claims: Sequence[object]) -> np.ndarray:
    return np.fromiter((c is not None and c is not _UNREAD for c in claims), bool, len(claims))


def _admits(grant: Grant, facts: list[IndexedFact]) -> np.ndarray:
    if grant.origins is None:
        return np.ones(len(facts), dtype=bool)
    return np.fromiter((grant.admits(f.origin_kind, f.origin_key) for f in facts), bool, len(facts))

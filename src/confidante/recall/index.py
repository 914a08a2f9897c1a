"""The in-memory partition index: decrypted facts plus keyword postings, per partition.

Built once per partition version and cached; a write anywhere (this process or another
sharing the database) bumps the version and the next read rebuilds that partition only.
Nothing here is ever written to disk.
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from ..model import Fact, OriginKind
from ..policy import Grant, PartitionRef
from .analysis import asking, speaker, stem, terms
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


_NEVER = np.iinfo(np.int64).max

# Facts written this close together, in one partition, with the same origin and author, read
# as lines of one conversation: each line's keywords are read with the line before it.
CONVERSATION_GAP_MS = 30 * 60 * 1000


def conversation_keys(facts: list[IndexedFact]) -> np.ndarray:
    """One small integer per (origin, author): facts that may form one conversation. Same
    origin means the same visibility under every grant."""
    keys: dict[tuple[OriginKind, str | None, str | None], int] = {}
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


@dataclass
class PartitionIndex:
    ref: PartitionRef
    version: int
    facts: list[IndexedFact]
    lengths: np.ndarray = field(init=False)
    postings: dict[str, tuple[np.ndarray, np.ndarray]] = field(init=False)
    created: np.ndarray = field(init=False)
    expires: np.ndarray = field(init=False)
    conversation: np.ndarray = field(init=False)  # conversation_keys, per fact
    # Transcript lines ("Caroline: ..."): each term of a speaker's name -> the rows they said.
    spoken_by: dict[str, np.ndarray] = field(init=False)
    asks: np.ndarray = field(init=False)  # share of each fact's text that is a question
    _by_conversation: np.ndarray = field(init=False)  # rows by conversation, then written order
    _lines: dict[bytes, Lines | None] = field(init=False, default_factory=dict)
    _claims: list[Claim | None] | None = field(init=False, default=None)
    _inherited: dict[str, Claim | None] = field(init=False, default_factory=dict)
    # The older version this index replaces, while rankers prepare it (`inherit`): they may
    # keep work it did for facts still here with the same text. Let go once prepared.
    previous: PartitionIndex | None = field(init=False, default=None, repr=False)
    _superseded: dict[bytes, np.ndarray | None] = field(init=False, default_factory=dict)
    _lines_lock: threading.Lock = field(init=False, default_factory=threading.Lock)
    _masks: dict[Grant, np.ndarray] = field(init=False, default_factory=dict)
    extras: dict[str, object] = field(init=False, default_factory=dict)  # other rankers' data

    def __post_init__(self) -> None:
        lengths = np.zeros(len(self.facts), dtype=np.float32)
        post: dict[str, list[tuple[int, int]]] = defaultdict(list)
        spoken: dict[str, list[int]] = defaultdict(list)
        asks = np.zeros(len(self.facts), dtype=np.float32)
        for i, f in enumerate(self.facts):
            line = speaker(f.fact.text)
            if line is not None:
                for term in set(tokenize(line[0])):
                    spoken[term].append(i)
            asks[i] = asking(f.fact.text if line is None else line[1])
            terms = Counter(tokenize(f.fact.text))
            lengths[i] = sum(terms.values())
            for term, tf in terms.items():
                post[term].append((i, tf))
        self.lengths = lengths
        self.asks = asks
        self.spoken_by = {t: np.asarray(rows, dtype=np.int64) for t, rows in spoken.items()}
        self.postings = {
            t: (
                np.fromiter((i for i, _ in p), np.int32, len(p)),
                np.fromiter((c for _, c in p), np.float32, len(p)),
            )
            for t, p in post.items()
        }
        self.created = np.fromiter((f.created_ms for f in self.facts), np.int64, len(self.facts))
        self.expires = np.fromiter(
            (f.expires_ms if f.expires_ms is not None else _NEVER for f in self.facts),
            np.int64,
            len(self.facts),
        )
        self.conversation = conversation_keys(self.facts)
        self._by_conversation = np.lexsort((np.arange(len(self.facts)), self.conversation))

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
        if previous._claims is not None:
            # Only facts still here with the same text: nothing of a forgotten or rewritten
            # fact lives on in the new index.
            here = {f.fact.id: f.fact.text for f in self.facts}
            self._inherited = {
                f.fact.id: c
                for f, c in zip(previous.facts, previous._claims, strict=True)
                if here.get(f.fact.id) == f.fact.text
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
        if self._claims is None:
            known = self._inherited
            self._claims = [
                known[f.fact.id] if f.fact.id in known else claim(f.fact.text) for f in self.facts
            ]
            self._inherited = {}
        order = np.lexsort((np.arange(len(self.facts)), self.created))  # oldest first
        links = superseded(
            self._claims,
            [f.author_key for f in self.facts],
            [int(r) for r in order if visible[r] and self._claims[r] is not None],
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

    def extend_expiry(self, ids: set[str], expires_ms: int) -> None:
        """Refresh-on-read: push cached expiries forward like the store just did."""
        for i, f in enumerate(self.facts):
            if f.fact.id in ids and f.expires_ms is not None and self.expires[i] < expires_ms:
                self.expires[i] = expires_ms

    def __len__(self) -> int:
        return len(self.facts)

    def mask(self, grant: Grant, now_ms: int) -> np.ndarray:
        """Which facts the grant admits and have not expired."""
        m = self._masks.get(grant)
        if m is None:
            if grant.origins is None:
                m = np.ones(len(self.facts), dtype=bool)
            else:
                m = np.fromiter(
                    (grant.admits(f.origin_kind, f.origin_key) for f in self.facts),
                    bool,
                    len(self.facts),
                )
            self._masks[grant] = m
        return m & (self.expires > now_ms)

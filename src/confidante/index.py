"""The in-memory partition index: decrypted facts plus keyword postings, per partition.

Built once per partition version and cached; a write anywhere (this process or another
sharing the database) bumps the version and the next read rebuilds that partition only.
Nothing here is ever written to disk.
"""

from __future__ import annotations

import re
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import snowballstemmer

from .model import Fact, OriginKind
from .policy import Grant, PartitionRef

_WORD = re.compile(r"\w+", re.UNICODE)
_ENGLISH = snowballstemmer.stemmer("english")
_STEMMER_LOCK = threading.Lock()
STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "you",
        "your",
    }
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English (Porter2) stem, so "parties" finds "party" and "volunteering"
    finds "volunteer". Measured on LoCoMo against the light suffix stripper it replaced:
    hybrid turn recall_all@10 0.592 -> 0.602 (benchmarks/locomo.py). Cached: chat
    vocabularies are small (PyStemmer's C build is ~0.3 us a word, the pure-Python one ~75)."""
    with _STEMMER_LOCK:  # a Snowball stemmer object keeps state between calls
        return _ENGLISH.stemWord(word)


def tokenize(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(text.lower()):
        if w in STOPWORDS:
            continue
        out.append(stem(w))
    return out


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


_NEVER = np.iinfo(np.int64).max

# Facts written this close together, in one partition, with the same origin and author, read
# as lines of one conversation: each line's keywords are read with the line before it.
CONVERSATION_GAP_MS = 30 * 60 * 1000


def previous_lines(facts: list[IndexedFact]) -> np.ndarray:
    """For each fact (in written order), the row of the line before it in the same
    conversation, or -1. Same origin and author means the same visibility under every grant,
    so a line's context can never come from a fact its reader may not see."""
    prev = np.full(len(facts), -1, dtype=np.int64)
    last: dict[tuple[OriginKind, str | None, str | None], int] = {}
    for i, f in enumerate(facts):
        key = (f.origin_kind, f.origin_key, f.author_key)
        j = last.get(key)
        if j is not None and 0 <= f.created_ms - facts[j].created_ms <= CONVERSATION_GAP_MS:
            prev[i] = j
        last[key] = i
    return prev


@dataclass
class PartitionIndex:
    ref: PartitionRef
    version: int
    facts: list[IndexedFact]
    lengths: np.ndarray = field(init=False)
    postings: dict[str, tuple[np.ndarray, np.ndarray]] = field(init=False)
    created: np.ndarray = field(init=False)
    expires: np.ndarray = field(init=False)
    prev: np.ndarray = field(init=False)  # the line before, in the same conversation, or -1
    next: np.ndarray = field(init=False)  # the line after, or -1
    _masks: dict[Grant, np.ndarray] = field(init=False, default_factory=dict)
    extras: dict[str, object] = field(init=False, default_factory=dict)  # other rankers' data

    def __post_init__(self) -> None:
        lengths = np.zeros(len(self.facts), dtype=np.float32)
        post: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, f in enumerate(self.facts):
            terms = Counter(tokenize(f.fact.text))
            lengths[i] = sum(terms.values())
            for term, tf in terms.items():
                post[term].append((i, tf))
        self.lengths = lengths
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
        self.prev = previous_lines(self.facts)
        self.next = np.full(len(self.facts), -1, dtype=np.int64)
        linked = np.flatnonzero(self.prev >= 0)
        self.next[self.prev[linked]] = linked

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

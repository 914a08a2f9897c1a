"""Shared pieces of the benchmarks: synthetic chat sentences, timing helpers, and the
plaintext, no-policy baseline (plain SQLite rows + the same BM25, no crypto, no policy)."""

from __future__ import annotations

import random
import sqlite3
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from confidante.model import Fact, OriginKind, Scope
from confidante.policy import Grant, PartitionRef
from confidante.recall.index import IndexedFact, PartitionIndex
from confidante.recall.ranking import BM25, Candidates, Pipeline

WORDS = (
    "tea coffee hiking paris berlin guitar piano dog cat birthday party dentist meeting "
    "project deadline garden tomatoes marathon bicycle novel poetry chess football recipe "
    "pasta sushi allergy peanuts vacation beach mountain train ticket concert jazz rock "
    "painting museum photography camera laptop python rust database server family sister "
    "brother mother father wedding anniversary gift flowers moving apartment rent job "
    "interview promotion salary course exam library podcast movie series book club raid"
).split()


def sentences(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(
            [
                rng.choice(["I", "We", "She", "He"]),
                rng.choice(["like", "planned", "love"]),
                *rng.choices(WORDS, k=rng.randint(4, 12)),
            ]
        )
        for _ in range(n)
    ]


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))]


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


class Baseline:
    """Plaintext SQLite rows and the same BM25 over all of them: no policy, no crypto."""

    def __init__(self, path: Path) -> None:
        self.con = sqlite3.connect(path, isolation_level=None)
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.execute("PRAGMA synchronous=NORMAL")
        self.con.execute(
            "CREATE TABLE facts (id TEXT PRIMARY KEY, text TEXT NOT NULL, created INTEGER)"
        )
        self.index: PartitionIndex | None = None
        self.version = 0
        self.pipeline = Pipeline([BM25()])

    def add(self, texts: list[str]) -> None:
        now = int(time.time() * 1000)
        self.con.execute("BEGIN")
        self.con.executemany(
            "INSERT INTO facts VALUES (?, ?, ?)", [(uuid.uuid4().hex, t, now) for t in texts]
        )
        self.con.execute("COMMIT")
        self.version += 1

    def recall(self, query: str, k: int = 10) -> list[str]:
        if self.index is None or self.index.version != self.version:
            rows = self.con.execute("SELECT id, text, created FROM facts").fetchall()
            facts = [
                IndexedFact(Fact(i, Scope.USER, t), OriginKind.DM, None, None, None, c, None)
                for i, t, c in rows
            ]
            self.index = PartitionIndex(PartitionRef(Scope.USER, "x"), self.version, facts)
        idx = self.index
        grant = Grant(idx.ref)
        ranked = self.pipeline.rank(query, [Candidates(idx, idx.mask(grant, 0))], k)
        return [idx.facts[r.row].fact.text for r in ranked]


@dataclass
class Clock:
    """The benchmarks' injected clock: facts are remembered at their conversation's date."""

    now: datetime = field(default_factory=lambda: datetime(2023, 1, 1, tzinfo=UTC))

    def __call__(self) -> datetime:
        return self.now


def session_of(turn: str) -> str:
    """ "D3:7" or "3:7" -> the session "D3" or "3"."""
    return turn.split(":")[0]


@dataclass
class RetrievalScore:
    """Retrieval metrics summed over questions, from the recalled turns (best first) and the
    gold ones. LongMemEval's (Wu et al., ICLR 2025, `evaluate_retrieval_turn2session`):
    turn-level recall_all@10, every evidence turn among the first 10 facts; session-level
    recall_any@5, an evidence session among the first 5 *distinct* sessions the ranked turns
    belong to. `first5_any`, an evidence session among the sessions of the first 5 facts
    (stricter: repeats count against it; with few sessions, as on the dev set, the only
    session measure that tells rankings apart). `turn_any@k`, an evidence turn in the first
    k; `mrr`, the mean reciprocal rank of the first evidence turn."""

    COLUMNS = (
        "session_any@5",
        "first5_any",
        "turn_any@1",
        "turn_any@5",
        "turn_all@10",
        "mrr",
    )
    n: int = 0
    sums: list[float] = field(default_factory=lambda: [0.0] * 6)

    def add(self, got: list[str], evidence: set[str]) -> None:
        """`got`: the recalled turns, best first (deep enough for 10 distinct sessions)."""
        sessions = {session_of(e) for e in evidence}
        distinct = list(dict.fromkeys(session_of(g) for g in got))
        rank = next((i for i, g in enumerate(got, start=1) if g in evidence), None)
        hit = (
            bool(set(distinct[:5]) & sessions),
            bool({session_of(g) for g in got[:5]} & sessions),
            bool(set(got[:1]) & evidence),
            bool(set(got[:5]) & evidence),
            evidence <= set(got[:10]),
            1.0 / rank if rank else 0.0,
        )
        self.n += 1
        self.sums = [s + h for s, h in zip(self.sums, hit, strict=True)]

    def values(self) -> list[float]:
        return [s / self.n if self.n else 0.0 for s in self.sums]

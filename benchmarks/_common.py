"""Shared pieces of the benchmarks: synthetic chat sentences, timing helpers, and the
plaintext, no-policy baseline (plain SQLite rows + the same BM25, no crypto, no policy)."""

from __future__ import annotations

import random
import sqlite3
import time
import uuid
from collections.abc import Callable
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

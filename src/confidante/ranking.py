"""Ranking as a pipeline: each ranker scores the visible facts of every partition in the
pool; the pipeline fuses the rankers, then breaks ties by recency. A semantic ranker joins
by implementing `Ranker`; the keyword ranker (BM25) is always there."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .index import PartitionIndex, tokenize


@dataclass(frozen=True, slots=True)
class Candidates:
    """The visible facts of one partition: its index and a boolean mask over it."""

    index: PartitionIndex
    mask: np.ndarray


class Ranker(Protocol):
    name: str

    def scores(self, query: str, pool: Sequence[Candidates]) -> list[np.ndarray]:
        """One float array per partition, aligned to its facts; 0 or below = no match."""
        ...


class BM25:
    """Okapi BM25 with corpus statistics over the *visible* facts only, so what a context
    may not see cannot even shift the scores of what it may."""

    name = "bm25"

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b

    def scores(self, query: str, pool: Sequence[Candidates]) -> list[np.ndarray]:
        terms = list(dict.fromkeys(tokenize(query)))
        out = [np.zeros(len(c.index), dtype=np.float32) for c in pool]
        n_docs = sum(int(c.mask.sum()) for c in pool)
        if not terms or not n_docs:
            return out
        total_len = sum(float(c.index.lengths[c.mask].sum()) for c in pool)
        avgdl = max(total_len / n_docs, 1e-9)
        df = dict.fromkeys(terms, 0)
        for c in pool:
            for t in terms:
                p = c.index.postings.get(t)
                if p is not None:
                    df[t] += int(c.mask[p[0]].sum())
        k1, b = self.k1, self.b
        for c, acc in zip(pool, out, strict=True):
            for t in terms:
                p = c.index.postings.get(t)
                if p is None or not df[t]:
                    continue
                idf = math.log(1.0 + (n_docs - df[t] + 0.5) / (df[t] + 0.5))
                idx, tf = p
                norm = k1 * (1.0 - b + b * c.index.lengths[idx] / avgdl)
                np.add.at(acc, idx, idf * tf * (k1 + 1.0) / (tf + norm))
            acc[~c.mask] = 0.0
        return out


@dataclass(frozen=True, slots=True)
class Ranked:
    partition: int  # position in the pool
    row: int  # position in that partition's index
    score: float
    parts: dict[str, float]


class Pipeline:
    """Fuse rankers (reciprocal rank fusion when there are several), then order by score
    with recency as the tie-breaker, and trim to k."""

    def __init__(self, rankers: Sequence[Ranker], rrf_k: float = 60.0) -> None:
        if not rankers:
            raise ValueError("a pipeline needs at least one ranker")
        self.rankers = list(rankers)
        self.rrf_k = rrf_k

    def rank(self, query: str, pool: Sequence[Candidates], k: int) -> list[Ranked]:
        per_ranker = {r.name: r.scores(query, pool) for r in self.rankers}
        # Whatever a ranker returns, a fact outside the mask can never score.
        flat: dict[str, np.ndarray] = {
            name: np.concatenate(
                [np.where(c.mask, a, 0.0) for c, a in zip(pool, arrs, strict=True)]
            )
            if arrs
            else np.zeros(0, np.float32)
            for name, arrs in per_ranker.items()
        }
        offsets = np.cumsum([0] + [len(c.index) for c in pool])
        if len(self.rankers) == 1:
            fused = next(iter(flat.values())).astype(np.float64)
        else:
            fused = np.zeros(int(offsets[-1]), dtype=np.float64)
            for scores in flat.values():
                order = np.argsort(-scores, kind="stable")
                ranks = np.empty_like(order)
                ranks[order] = np.arange(len(order))
                fused += np.where(scores > 0, 1.0 / (self.rrf_k + ranks + 1), 0.0)
        hits = np.flatnonzero(fused > 0)
        if not len(hits):
            return []
        created = np.concatenate([c.index.created for c in pool])
        # Sort by score, then newest first among equals.
        order = np.lexsort((-created[hits], -fused[hits]))[:k]
        out = []
        for h in hits[order]:
            p = int(np.searchsorted(offsets, h, side="right") - 1)
            out.append(
                Ranked(
                    p,
                    int(h - offsets[p]),
                    float(fused[h]),
                    {name: float(s[h]) for name, s in flat.items()},
                )
            )
        return out

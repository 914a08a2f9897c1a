"""Ranking as a pipeline: each ranker scores the visible facts of every partition in the
pool; the pipeline fuses the rankers, then breaks ties by recency. A semantic ranker joins
by implementing `Ranker`; the keyword ranker (BM25) is always there."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np

from .index import Lines, PartitionIndex, tokenize
from .when import windows

_DAY_MS = 86_400_000


@dataclass(frozen=True, slots=True)
class Candidates:
    """The visible facts of one partition: its index and a boolean mask over it."""

    index: PartitionIndex
    mask: np.ndarray


class Ranker(Protocol):
    name: str
    weight: float  # share in the fused score
    floor: float  # scores at or below this are "not relevant"

    def scores(self, query: str, pool: Sequence[Candidates]) -> list[np.ndarray]:
        """One float array per partition, aligned to its facts; 0 or below = no match."""
        ...


class BM25:
    """Okapi BM25 with corpus statistics over the *visible* facts only, so what a context
    may not see cannot even shift the scores of what it may.

    A line of a conversation is read with its neighbours (`PartitionIndex.lines`, over the
    facts this reader may see): the line before's terms count at `context_weight` of their
    frequency, so a reply ("yes, we roasted marshmallows!") is found by the question it
    answers, and the line after's at `reply_weight`, so a question is found by its answer.
    Context only re-ranks: a fact must match a query term itself to score. Chosen on LoCoMo
    halves (tuned on conversations 0-4, checked on 5-9 and the other way round, both halves
    preferring the same values) and the bilingual dev set: (0.3, 0, k1 1.2) -> (0.5, 0.3,
    k1 1.5) moves session any@5 / turn all@10 from 0.936/0.655 to 0.937/0.672 on 0-4 and
    from 0.919/0.620 to 0.930/0.656 on 5-9. Larger weights (1.0, 0.5) gain another point on
    LoCoMo's dialogues but cost 5 points of Chinese MRR on the dev set's monologues."""

    name = "bm25"
    floor = 0.0  # any keyword match is relevant
    max_terms = 64  # a query's first 64 distinct terms; more only costs time

    def __init__(
        self,
        k1: float = 1.5,
        b: float = 0.75,
        weight: float = 0.5,
        context_weight: float = 0.5,
        reply_weight: float = 0.3,
    ) -> None:
        self.k1, self.b, self.weight, self.context_weight = k1, b, weight, context_weight
        self.reply_weight = reply_weight  # the line after, read the same way

    def scores(self, query: str, pool: Sequence[Candidates]) -> list[np.ndarray]:
        terms = list(dict.fromkeys(tokenize(query)))[: self.max_terms]
        out = [np.zeros(len(c.index), dtype=np.float32) for c in pool]
        n_docs = sum(int(c.mask.sum()) for c in pool)
        if not terms or not n_docs:
            return out
        w, wr = self.context_weight, self.reply_weight
        views = [c.index.lines(c.mask) if w or wr else None for c in pool]
        lengths = [
            c.index.lengths if v is None else c.index.lengths + w * v.before + wr * v.after
            for c, v in zip(pool, views, strict=True)
        ]
        total_len = sum(float(ln[c.mask].sum()) for c, ln in zip(pool, lengths, strict=True))
        avgdl = max(total_len / n_docs, 1e-9)
        df = dict.fromkeys(terms, 0)
        for c in pool:
            for t in terms:
                p = c.index.postings.get(t)
                if p is not None:
                    df[t] += int(c.mask[p[0]].sum())
        k1, b = self.k1, self.b
        for c, acc, view, ln in zip(pool, out, views, lengths, strict=True):
            n = len(c.index)
            matched = np.zeros(n, dtype=bool)
            for t in terms:
                p = c.index.postings.get(t)
                if p is None or not df[t]:
                    continue
                idf = math.log(1.0 + (n_docs - df[t] + 0.5) / (df[t] + 0.5))
                idx, tf = p
                matched[idx] = True
                rows, freq = idx, tf
                if view is not None:  # + w x this term's count in the line before (after)
                    rows, freq = _term_in_context(view, t, idx, tf, w, wr)
                norm = k1 * (1.0 - b + b * ln[rows] / avgdl)
                acc[rows] += idf * freq * (k1 + 1.0) / (freq + norm)  # rows are distinct
            acc[~(c.mask & matched)] = 0.0
        return out


def _term_in_context(
    view: Lines, term: str, idx: np.ndarray, tf: np.ndarray, w: float, wr: float
) -> tuple[np.ndarray, np.ndarray]:
    """A term's rows and counts, plus w x its count in the line before each row and wr x in
    the line after; cached in the reader's view (a few thousand terms)."""
    key = (term, w, wr)
    found = view.with_context.get(key)
    if found is not None:
        return found
    near = []
    for links, share in ((view.next, w), (view.prev, wr)):
        ctx = links[idx]
        has = ctx >= 0
        if share and has.any():
            near.append((ctx[has], share * tf[has]))
    found = _with_context(len(view.prev), idx, tf, near) if near else (idx, tf)
    if len(view.with_context) < 4096:
        view.with_context[key] = found
    return found


def _with_context(
    n: int, rows: np.ndarray, counts: np.ndarray, near: list[tuple[np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, np.ndarray]:
    """Sum sparse count vectors over n facts (each with distinct rows): a dense pass for
    common terms, a sorted merge for rare ones."""
    if 8 * (len(rows) + sum(len(r) for r, _ in near)) > n:
        dense = np.zeros(n, dtype=np.float32)
        dense[rows] = counts
        for r, c in near:
            dense[r] += c
        out = np.flatnonzero(dense)
        return out, dense[out]
    out = np.union1d(rows, np.concatenate([r for r, _ in near]))
    merged = np.zeros(len(out), dtype=np.float32)
    merged[np.searchsorted(out, rows)] = counts
    for r, c in near:
        merged[np.searchsorted(out, r)] += c
    return out, merged


def _best_neighbour(
    pool: Sequence[Candidates], offsets: np.ndarray, hits: np.ndarray, fused: np.ndarray
) -> np.ndarray:
    """For each hit, the fused score of the better of its two neighbouring lines in its
    conversation (`PartitionIndex.lines`, over what this reader may see), 0 when neither is
    a hit. A line whose question or answer is also relevant is likelier the one sought: with
    0.3 of it, LoCoMo turn all@10 0.688 -> 0.701 on conversations 0-4 and 0.673 -> 0.692 on
    5-9 (0.2 was best on 0-4, 0.4 on 5-9; session any@5 +0.3 on both); neutral on the dev
    set."""
    lift = np.zeros(len(hits), dtype=np.float64)
    for p, c in enumerate(pool):
        lo, hi = int(offsets[p]), int(offsets[p + 1])
        here = (hits >= lo) & (hits < hi)
        if not here.any():
            continue
        view = c.index.lines(c.mask)
        if view is None:
            continue
        rows = hits[here] - lo
        best = np.zeros(len(rows), dtype=np.float64)
        for links in (view.prev, view.next):
            near = links[rows]
            has = near >= 0
            best[has] = np.maximum(best[has], fused[near[has] + lo])
        lift[here] = best
    return lift


def _segment_support(
    pool: Sequence[Candidates],
    offsets: np.ndarray,
    hits: np.ndarray,
    fused: np.ndarray,
    limit: int = 2048,
) -> np.ndarray:
    """For each hit, how well its conversation matches the query: the sum of the fused
    scores of the two best hits of its segment (its run of linked lines, `Lines.segment`,
    over what this reader may see), over the best such sum; a line outside any conversation
    counts its own score. A line of a conversation that keeps to the query's topic is
    likelier the one sought than an equal match in passing (passage evidence read with its
    document's, as in passage retrieval). Two lines, not all: a sum over every hit favours
    long chats that share one common word (turn all@10 -2 points on LoCoMo); one line only
    echoes the line's own score. Only the best `limit` hits are read together (the rest
    count their own score), so a query that matches most of 100k facts costs no more."""
    scored = fused[hits]
    support = scored.copy()
    best = np.arange(len(hits))
    if len(hits) > limit:
        best = np.argpartition(-scored, limit)[:limit]
    support[best] = _top2_of_segment(pool, offsets, hits[best], scored[best])
    top = float(support.max()) if len(support) else 0.0
    return support / top if top > 0 else support


def _top2_of_segment(
    pool: Sequence[Candidates], offsets: np.ndarray, hits: np.ndarray, scored: np.ndarray
) -> np.ndarray:
    """Per hit (flat positions, with their scores), the sum of the two best scores among
    the given hits of its segment; its own score when its partition has no conversation."""
    out = scored.copy()
    for p, c in enumerate(pool):
        lo, hi = int(offsets[p]), int(offsets[p + 1])
        here = (hits >= lo) & (hits < hi)
        if not here.any():
            continue
        view = c.index.lines(c.mask)
        if view is None:  # no conversations here: each line is its own
            continue
        seg = view.segment[hits[here] - lo]
        score = scored[here]
        order = np.lexsort((-score, seg))  # by segment, best first within each
        seg_sorted = seg[order]
        starts = np.flatnonzero(np.r_[True, seg_sorted[1:] != seg_sorted[:-1]])
        rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
        best2 = rank < 2
        total = np.zeros(int(seg.max()) + 1, dtype=np.float64)
        np.add.at(total, seg_sorted[best2], score[order][best2])
        out[here] = total[seg]
    return out


def _current_versions(pool: Sequence[Candidates], offsets: np.ndarray) -> np.ndarray | None:
    """For every fact of the pool (flat), the flat position of the visible fact that
    superseded it, or -1; None when nothing in the pool is superseded."""
    sups = [c.index.superseded(c.mask) for c in pool]
    if all(sup is None for sup in sups):
        return None
    return np.concatenate(
        [
            np.full(len(c.index), -1, np.int64)
            if sup is None
            else np.where(sup >= 0, sup + off, -1)
            for c, sup, off in zip(pool, sups, offsets, strict=False)
        ]
    )


def _newest_truth_first(hits: np.ndarray, fused: np.ndarray, current: np.ndarray) -> np.ndarray:
    """The newest truth first: when a superseded fact is a hit, the fact that replaced it is
    one too, scored at least as high (and ranked before it on a tie, even when the replaced
    fact is newer: "I used to live in Paris" said after the move). "Where do I live?" matches
    "I live in Paris" by its words; "I moved to Berlin" answers it."""
    newer = current[hits]
    old = hits[newer >= 0]
    if not len(old):
        return hits
    np.maximum.at(fused, current[old], fused[old])
    return np.union1d(hits, current[old])


def _joined(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """One pool-wide array (read only): a single partition's own array, not a copy of it."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


@dataclass(frozen=True, slots=True)
class Ranked:
    partition: int  # position in the pool
    row: int  # position in that partition's index
    score: float
    parts: dict[str, float]
    superseded_by: int | None = None  # row (same partition) of the fact that replaced it


class Pipeline:
    """Fuse the rankers, then order by score with recency as the tie-breaker, and trim to k.

    A fact is a hit when any ranker finds it relevant (a score above that ranker's `floor`:
    any keyword match, or a cosine above the embedder's noise level), so a query about
    nothing known returns nothing rather than the least unrelated facts. Hits are ordered by
    a weighted sum of each ranker's scores, min-max normalised over the hits (from the
    ranker's floor at most); the weights
    come from each ranker's `weight` (0.5 each: best of 0.3-0.6 on LoCoMo with stemmed BM25).

    When the query names a date ("on 3 June, 2023", "in July 2023", "上周三", "yesterday"),
    facts remembered inside that window (one day of slack either side, for time zones) gain
    `date_weight`, and are hits even when no word matches: "what did I do on 5月6号?" asks
    for that day. Only visible facts are ever hits. Scores are divided by the weights in play, so
    they stay within 0..1 for `min_score`.

    Lines of a conversation are then read with their context: a line gains
    `neighbour_weight` of its better neighbour's score (`_best_neighbour`) and
    `session_weight` of how well its conversation matches (`_segment_support`); last, a
    question loses `question_penalty` of its score in proportion to the share of it that
    asks (`analysis.asking`): "What did you paint?" shares the query's words but states
    nothing, and on LoCoMo such lines are 7.5% of the first ten recalled but 0.7% of the
    evidence. Its answer has already taken its part through the neighbour lift. Tuned on
    LoCoMo halves (session 0.2-0.5, question 0.2-0.6; 0-4 preferred 0.3/0.3, 5-9 0.4/0.4):
    session any@5 / turn all@10 0.937/0.701 -> 0.939/0.722 on conversations 0-4 and
    0.929/0.692 -> 0.934/0.706 on 5-9."""

    def __init__(
        self,
        rankers: Sequence[Ranker],
        *,
        date_weight: float = 0.7,
        speaker_weight: float = 0.3,
        neighbour_weight: float = 0.3,
        session_weight: float = 0.3,
        question_penalty: float = 0.4,
        context_depth: int = 1024,
    ) -> None:
        if not rankers:
            raise ValueError("a pipeline needs at least one ranker")
        self.rankers = list(rankers)
        self.date_weight = date_weight
        self.speaker_weight = speaker_weight
        self.neighbour_weight = neighbour_weight
        self.session_weight = session_weight
        self.question_penalty = question_penalty
        # Only this many of the best hits by their own score are read with their context:
        # a question naming a speaker matches half of a transcript by the name alone, and at
        # 100k facts reading 50k hits' neighbours and conversations cost more than the
        # ranking. With meaning, every line above the cosine floor is a hit too (~3,700 of
        # 10k LoCoMo turns against ~1,400 by keywords), and reading them with their context
        # was most of what meaning added to a recall. 1,024 of 4,096: on 300 LoCoMo questions
        # over 10k turns in one partition the first ten are 99.9% the same (99.0% of the
        # lists identical); no partition of LoCoMo or the bilingual sets has that many hits.
        self.context_depth = context_depth

    def rank(
        self, query: str, pool: Sequence[Candidates], k: int, now: datetime | None = None
    ) -> list[Ranked]:
        """The best `k` of the pool's visible facts for `query`; `now` is when it is asked
        (for "yesterday", "上周三", "on 3 June")."""
        if not pool:
            return []
        flat: dict[str, np.ndarray] = {}
        spoken = self._spoken_by_named(query, pool)
        visible = _joined([c.mask for c in pool])
        for r in self.rankers:
            # Whatever a ranker returns, a fact outside the mask can never score.
            scored = _joined(r.scores(query, pool))
            flat[r.name] = np.where(visible, scored, 0.0).astype(np.float64, copy=False)
            if spoken is not None:
                flat[r.name][spoken] *= 1.0 + self.speaker_weight
        created = _joined([c.index.created for c in pool])
        relevant = np.zeros(len(visible), dtype=bool)
        for r in self.rankers:
            relevant |= flat[r.name] > r.floor
        # A named day makes the facts remembered that day hits ("what did I do on 5月6号?"
        # names nothing else); only among the visible ones.
        inside = self._inside_dates(query, created, now)
        if inside is not None:
            relevant |= (inside > 0) & visible
        hits = np.flatnonzero(relevant)
        if not len(hits):
            return []
        fused = np.zeros(len(visible), dtype=np.float64)
        for r in self.rankers:  # min-max over this query's hits, so the weights mean shares
            s = flat[r.name][hits]
            # ...from the ranker's floor at most: four near-identical notes whose cosines are
            # 0.39-0.45 differ by little, not by the ranker's whole weight (which let a day's
            # note lose to its neighbour's on a named day). Neutral on LoCoMo and the dev set.
            lo, hi = min(float(s.min()), r.floor), float(s.max())
            if hi > lo:
                fused[hits] += r.weight * (s - lo) / (hi - lo)
            elif hi > r.floor:  # every hit scored the same, and it counts: all full marks
                fused[hits] += r.weight
        total = sum(r.weight for r in self.rankers)
        if inside is not None:
            fused[hits] += self.date_weight * inside[hits]
            total += self.date_weight
        fused[hits] /= max(total, 1e-12)
        offsets = np.cumsum([0] + [len(c.index) for c in pool])
        depth = max(self.context_depth, 4 * k)
        if len(hits) > depth:  # the rest keep their own score: they lend it as neighbours
            hits = np.sort(hits[np.argpartition(-fused[hits], depth)[:depth]])
        if self.neighbour_weight:
            lift = _best_neighbour(pool, offsets, hits, fused)
            fused[hits] = (fused[hits] + self.neighbour_weight * lift) / (1 + self.neighbour_weight)
        if self.session_weight:
            sup = _segment_support(pool, offsets, hits, fused, max(2048, 4 * k))
            fused[hits] = (fused[hits] + self.session_weight * sup) / (1 + self.session_weight)
        if self.question_penalty:  # last: a question still lends its score to its answer
            asks = _joined([c.index.asks for c in pool])
            fused[hits] *= 1.0 - self.question_penalty * asks[hits]
        current = _current_versions(pool, offsets)
        if current is not None:
            hits = _newest_truth_first(hits, fused, current)
        if len(hits) > 4 * k:  # only the best k (and whatever ties the k-th) need sorting
            scored = fused[hits]
            kth = np.partition(scored, len(scored) - k)[len(scored) - k]
            hits = hits[scored >= kth]
        # score, then what is current before what it replaced, then newest first
        stale = np.zeros(len(hits), dtype=bool) if current is None else current[hits] >= 0
        order = np.lexsort((-created[hits], stale, -fused[hits]))[:k]
        out = []
        for h in hits[order]:
            p = int(np.searchsorted(offsets, h, side="right") - 1)
            parts = {name: float(s[h]) for name, s in flat.items()}
            newer = int(current[h]) - int(offsets[p]) if current is not None else -1
            out.append(
                Ranked(
                    p, int(h - offsets[p]), float(fused[h]), parts, newer if newer >= 0 else None
                )
            )
        return out

    def _spoken_by_named(self, query: str, pool: Sequence[Candidates]) -> np.ndarray | None:
        """The pool's transcript lines ("Melanie: ...") said by someone the query names ("What
        did Melanie paint?"), as a flat mask; None when there are none. Their scores count
        `speaker_weight` more: on LoCoMo 96% of the evidence for a question naming one of the
        two speakers is that speaker's own lines, while the name alone matches as many lines
        that only address them ("Thanks, Melanie!"). Tuned on conversations 0-4 (0.3 of
        0.1-1.0): turn all@10 0.672 -> 0.690 there, 0.656 -> 0.673 on 5-9, session any@5
        0.3-0.5 points lower on both."""
        if not self.speaker_weight or not any(c.index.spoken_by for c in pool):
            return None
        terms = set(tokenize(query))
        found: np.ndarray | None = None
        offset = 0
        for c in pool:
            for t in terms & c.index.spoken_by.keys():
                if found is None:  # a mask, not np.unique: a speaker may have said half of 100k
                    found = np.zeros(sum(len(c.index) for c in pool), dtype=bool)
                found[c.index.spoken_by[t] + offset] = True
            offset += len(c.index)
        return found

    def _inside_dates(
        self, query: str, created_ms: np.ndarray, now: datetime | None
    ) -> np.ndarray | None:
        """How well each fact's time fits a date the query names: 1 inside the window, 0.5
        within a day of it (time zones), 0 elsewhere; None when the query names none."""
        if not self.date_weight:
            return None
        spans = windows(query, now)
        if not spans:
            return None
        fit = np.zeros(len(created_ms), dtype=np.float64)
        for start, end in spans:
            lo, hi = int(start.timestamp() * 1000), int(end.timestamp() * 1000)
            near = (created_ms >= lo - _DAY_MS) & (created_ms < hi + _DAY_MS)
            fit = np.maximum(fit, np.where((created_ms >= lo) & (created_ms < hi), 1.0, 0.5 * near))
        return fit if fit.any() else None

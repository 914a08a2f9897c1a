"""Large partitions take two shortcuts in recall (`recall.semantic._Rows`, the pipeline's
`context_depth`): meaning is scanned coarse, then exact for the best rows, and only the best
hits are read with their conversations. Both must give what a full scan gives where it
matters (the first hits), on real text, and never show what the reader may not see.

The size thresholds are lowered here so that a partition of the bilingual dev set's few
hundred lines takes the shortcuts; benchmarks/latency.py measures them at 100k facts."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from confidante import Context, Memory
from confidante.recall import semantic
from confidante.recall.embedding.static import StaticEmbedder

from conftest import ALICE, BOB, Clock

DEV = Path(__file__).resolve().parents[1] / "benchmarks/data/dev"


def _dev_set() -> tuple[list[tuple[datetime, list[str]]], list[str]]:
    """Every session of the dev set (its date, its English and Chinese lines) and every
    question in both languages."""
    sessions, questions = [], []
    for path in sorted(DEV.glob("c*.json")):
        conv = json.loads(path.read_text())
        for s in conv["sessions"]:
            when = datetime.fromisoformat(s["date"].replace("Z", "+00:00"))
            for lang in ("en", "zh"):
                sessions.append((when, [t[lang] for t in s["turns"] if lang in t]))
        questions += [q[lang] for q in conv["questions"] for lang in ("en", "zh") if lang in q]
    return sessions, questions


SESSIONS, QUESTIONS = _dev_set()


def test_the_coarse_scan_keeps_every_dot_product_and_the_best_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    embedder = StaticEmbedder()
    texts = [t for _, turns in SESSIONS for t in turns]
    rows = embedder.embed(texts)
    queries = embedder.embed([q for q in QUESTIONS if q.isascii()])
    monkeypatch.setattr(semantic, "_COARSE_FROM", 100)
    monkeypatch.setattr(semantic, "_EXACT_MIN", 40)
    held = semantic._Rows.of(rows, embedder.coarse_basis)
    assert held.lead is not None and held.basis is not None  # the shortcut is taken
    # an orthogonal turn: every row keeps its length and every dot product its value
    assert np.allclose(held.basis.T @ held.basis, np.eye(rows.shape[1]), atol=1e-4)
    overlap = []
    for q in queries:
        exact = rows @ q
        got, read_whole = held.cosines(held.query(q), np.ones(len(rows), dtype=bool))
        assert read_whole is not None and len(read_whole) >= 40
        assert np.allclose(got[read_whole], exact[read_whole], atol=1e-5)
        top = set(np.argsort(-exact)[:10].tolist())
        overlap.append(len(top & set(np.argsort(-got)[:10].tolist())) / 10)
    # the best rows by the full scan are the best by the shortcut
    assert np.mean(overlap) >= 0.95, np.mean(overlap)


def test_a_small_partition_is_scanned_whole() -> None:
    embedder = StaticEmbedder()
    rows = embedder.embed(["I moved to Berlin", "We adopted a beagle"])
    held = semantic._Rows.of(rows, embedder.coarse_basis)
    assert held.basis is None and held.lead is None
    got, read_whole = held.cosines(rows[0], np.ones(2, dtype=bool))
    assert read_whole is None and np.allclose(got, rows @ rows[0])


def _fill(mem: Memory, clock: Clock, actor: str) -> None:
    for when, turns in SESSIONS:
        clock.now = when
        mem.remember_many(Context.dm(actor), turns)


def _recalled(db: Path, key: bytes, clock: Clock, ctx: Context) -> list[list[str]]:
    with Memory.open(db, master_key=key, clock=clock) as mem:
        return [[h.fact.id for h in mem.recall(ctx, q, k=5)] for q in QUESTIONS]


def test_shortcuts_recall_what_the_full_pipeline_recalls(
    tmp_path: Path, key: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One silo of the dev set's lines (with Bob's silo beside it, holding the same lines):
    with both shortcuts taken, the first hit is the full pipeline's, and the first five
    nearly always are; Bob's facts never appear for Alice either way."""
    db = tmp_path / "large.db"
    clock = Clock(datetime(2024, 1, 1, tzinfo=UTC))
    with Memory.open(db, master_key=key, clock=clock) as mem:
        _fill(mem, clock, ALICE)
        _fill(mem, clock, BOB)
        bob = {f.id for f in mem.list(Context.dm(BOB), limit=10_000)}
    clock.now = SESSIONS[-1][0] + timedelta(days=1)
    alice = Context.dm(ALICE)
    full = _recalled(db, key, clock, alice)
    monkeypatch.setattr(semantic, "_COARSE_FROM", 100)
    monkeypatch.setattr(semantic, "_EXACT_MIN", 60)
    with Memory.open(db, master_key=key, clock=clock) as mem:
        mem.pipeline.context_depth = 60
        short = [[h.fact.id for h in mem.recall(alice, q, k=5)] for q in QUESTIONS]
        vectors = [ix.extras["vectors"] for ix in mem.cache.indexes() if "vectors" in ix.extras]
    assert vectors and all(v.english.lead is not None for v in vectors)  # shortcut taken
    assert not bob & {i for ids in full + short for i in ids}
    answered = [(f, s) for f, s in zip(full, short, strict=True) if f]
    assert len(answered) > 100
    same_first = sum(f[0] == s[0] for f, s in answered) / len(answered)
    overlap = np.mean([len(set(f) & set(s)) / len(f) for f, s in answered])
    assert same_first >= 0.95 and overlap >= 0.9, (same_first, overlap)

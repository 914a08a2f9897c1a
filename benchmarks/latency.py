"""Recall latency and ingest throughput of the default (hybrid, encrypted) memory, beside
the plaintext, no-policy baseline of the core benchmark, in the same run.

Recall p50/p95/p99 with 1k, 10k and 100k visible facts (warm, query embedding included),
the cold load of a 10k-fact partition, and `remember` throughput single and bulk.

    python benchmarks/latency.py [--sizes 1000,10000,100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from _common import WORDS, Baseline, pct, sentences, timed
from confidante import Context, Memory
from confidante.config import Settings
from confidante.vault.crypto import new_key

ALICE = Context.dm("discord:42")


def percentiles(xs: list[float]) -> tuple[float, float, float]:
    return pct(xs, 50), pct(xs, 95), pct(xs, 99)


def fill(mem: Memory, texts: list[str], batch: int = 1000) -> float:
    t0 = time.perf_counter()
    for i in range(0, len(texts), batch):
        mem.remember_many(ALICE, texts[i : i + batch])
    return len(texts) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--single", type=int, default=300)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    queries = [
        f"what did she say about {' '.join(random.Random(i).choices(WORDS, k=2))}?"
        for i in range(args.queries)
    ]
    settings = Settings(default_ttl_days=3650)
    rows: list[tuple[str, float, float]] = []

    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            texts = sentences(n, seed=n)
            base = Baseline(Path(tmp) / f"plain{n}.db")
            b_rate = len(texts) / timed(
                lambda texts=texts, base=base: [
                    base.add(texts[i : i + 1000]) for i in range(0, len(texts), 1000)
                ]
            )
            db = Path(tmp) / f"conf{n}.db"
            key = new_key()
            with Memory.open(db, owner_ids=["discord:1"], master_key=key, settings=settings) as m:
                rate = fill(m, texts)
                m.recall(ALICE, "warm up")
                b_lat = [timed(lambda q=q, b=base: b.recall(q)) * 1e3 for q in queries]
                c_lat = [timed(lambda q=q, m=m: m.recall(ALICE, q)) * 1e3 for q in queries]
            for label, b, c in zip(
                ("p50", "p95", "p99"), percentiles(b_lat), percentiles(c_lat), strict=True
            ):
                rows.append((f"recall {label} at {n:,} facts (ms)", b, c))
            if n == 10_000 or n == sizes[0]:
                rows.append((f"bulk remember, {n:,} facts (facts/s)", b_rate, rate))
                base.recall("x")
                base.index = None
                b_cold = timed(lambda base=base: base.recall("cold"))
                with Memory.open(db, master_key=key, settings=settings) as m:
                    c_cold = timed(lambda m=m: m.recall(ALICE, "cold"))
                rows.append(
                    (f"cold load of a {n:,}-fact partition (ms)", b_cold * 1e3, c_cold * 1e3)
                )
        single = sentences(args.single, seed=99)
        base = Baseline(Path(tmp) / "single.db")
        b_single = len(single) / timed(lambda: [base.add([t]) for t in single])
        with Memory.open(Path(tmp) / "single.db.c", master_key=new_key(), settings=settings) as m:
            c_single = len(single) / timed(lambda m=m: [m.remember(ALICE, t) for t in single])
        rows.append(("remember, one per call (facts/s)", b_single, c_single))

    print(
        "confidante latency: default hybrid recall (BM25 + offline embedder), encrypted, "
        f"policy-checked; {args.queries} queries, warm"
    )
    print(f"{'measure':<44}{'baseline':>12}{'confidante':>12}{'ratio':>9}")
    for name, b, c in rows:
        print(f"{name:<44}{b:>12.2f}{c:>12.2f}{c / b:>8.2f}x")
    print("baseline = plaintext SQLite + the same BM25 code, no policy, no encryption, no vectors")
    print(
        "targets: warm recall p95 <= 5 ms at 10k facts, <= 10 ms at 100k; "
        "bulk ingest >= 1,000 facts/s"
    )


if __name__ == "__main__":
    main()

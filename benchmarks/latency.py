"""Recall latency and ingest throughput of the default (hybrid, encrypted) memory, beside
the plaintext, no-policy baseline of the core benchmark, in the same run.

Recall p50/p95/p99 with 1k, 10k and 100k visible facts (warm, query embedding included),
the cold load of a 10k-fact partition, and `remember` throughput single and bulk. The
embedders are loaded first (once per process, ~1 s), so no figure counts their loading.

Text: LoCoMo's chat turns (from the shared data folder; never shipped), written session by
session at their sessions' dates, so lines form conversations as real chat does; a size
above the 5,882 turns reads them again, each pass a year later. The queries are LoCoMo's
questions. `--text synthetic` uses the word-salad sentences of earlier runs (and is the
fallback when the data is absent): they match fewer facts per query than LoCoMo's questions,
which mostly name a speaker and so match half of a transcript by the name alone.

    python benchmarks/latency.py [--sizes 1000,10000,100000] [--queries 200]
                                 [--text locomo|synthetic]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from _common import WORDS, Baseline, Clock, pct, sentences, timed
from confidante import Context, Memory
from confidante.config import Settings
from confidante.vault.crypto import new_key
from locomo import DEFAULT_DATA, line, load, sessions

ALICE = Context.dm("discord:42")


def percentiles(xs: list[float]) -> tuple[float, float, float]:
    return pct(xs, 50), pct(xs, 95), pct(xs, 99)


Batch = tuple[datetime, list[str]]  # when, and what was said then


def locomo_sessions() -> list[Batch]:
    """Every LoCoMo session as (its date, its turns as transcript lines)."""
    return [
        (when, [line(t) for t in turns])
        for sample in load(DEFAULT_DATA)
        for when, turns in sessions(sample)
    ]


def corpus(n: int, sessions: list[Batch] | None) -> list[Batch]:
    """n facts as batches: LoCoMo sessions (read again, a year later each pass, past 5,882
    turns), or synthetic sentences 1,000 at a time. A turn read again ends with its pass's
    number ("... (#2)"): the same sentence said again in the same place is one fact
    (`remember_many`), and the partition must hold n."""
    if sessions is None:
        texts = sentences(n, seed=n)
        now = datetime(2023, 1, 1, tzinfo=UTC)
        return [(now, texts[i : i + 1000]) for i in range(0, n, 1000)]
    out: list[Batch] = []
    left, year = n, 0
    while left > 0:
        for when, turns in sessions:
            if left <= 0:
                break
            said = turns[:left] if not year else [f"{t} (#{year + 1})" for t in turns[:left]]
            out.append((when + timedelta(days=366 * year), said))
            left -= len(out[-1][1])
        year += 1
    return out


def fill(mem: Memory, clock: Clock, batches: list[Batch]) -> float:
    t0 = time.perf_counter()
    for when, texts in batches:
        clock.now = when
        mem.remember_many(ALICE, texts)
    return sum(len(t) for _, t in batches) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--single", type=int, default=300)
    ap.add_argument("--text", choices=("locomo", "synthetic"), default="locomo")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    sessions = None
    if args.text == "locomo" and DEFAULT_DATA.exists():
        sessions = locomo_sessions()
        asked = [qa["question"] for sample in load(DEFAULT_DATA) for qa in sample["qa"]]
        queries = random.Random(7).sample(asked, args.queries)
    else:
        queries = [
            f"what did she say about {' '.join(random.Random(i).choices(WORDS, k=2))}?"
            for i in range(args.queries)
        ]
    settings = Settings(default_ttl_days=36500)
    rows: list[tuple[str, float, float]] = []

    with tempfile.TemporaryDirectory() as tmp:
        # the embedders load once per process (~1 s): not part of any size's ingest rate
        with Memory.open(Path(tmp) / "warm.db", master_key=new_key(), settings=settings) as m:
            m.remember_many(ALICE, ["warm the models up", "and their tokenizers"])
        for n in sizes:
            batches = corpus(n, sessions)
            base = Baseline(Path(tmp) / f"plain{n}.db")
            b_rate = n / timed(lambda batches=batches, base=base: [base.add(t) for _, t in batches])
            db = Path(tmp) / f"conf{n}.db"
            key = new_key()
            clock = Clock()
            with Memory.open(
                db, owner_ids=["discord:1"], master_key=key, settings=settings, clock=clock
            ) as m:
                rate = fill(m, clock, batches)
                m.recall(ALICE, "warm up")
                base.recall("warm up")  # both indexes built before timing
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
                with Memory.open(db, master_key=key, settings=settings, clock=clock) as m:
                    c_cold = timed(lambda m=m: m.recall(ALICE, "cold"))
                rows.append(
                    (f"cold load of a {n:,}-fact partition (ms)", b_cold * 1e3, c_cold * 1e3)
                )
        single = (
            sentences(args.single, seed=99)
            if sessions is None
            else [t for _, turns in sessions[-40:] for t in turns][: args.single]
        )
        base = Baseline(Path(tmp) / "single.db")
        b_single = len(single) / timed(lambda: [base.add([t]) for t in single])
        with Memory.open(Path(tmp) / "single.db.c", master_key=new_key(), settings=settings) as m:
            c_single = len(single) / timed(lambda m=m: [m.remember(ALICE, t) for t in single])
        rows.append(("remember, one per call (facts/s)", b_single, c_single))

    print(
        "confidante latency: default hybrid recall (BM25 + offline embedder), encrypted, "
        f"policy-checked; {args.queries} queries, warm; text: "
        + ("LoCoMo turns and questions" if sessions else "synthetic sentences")
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

"""Where one write, one recall and one cold load spend their time: LoCoMo's turns (as
`latency.py` writes them) in one partition, then a cProfile of each.

- ``recall``: 200 of LoCoMo's questions, warm; p50/p95, then the profile of the same questions.
- ``write``: `--single` LoCoMo turns remembered one per call into that partition.
- ``load``: the partition's index read cold (`--loads` times: cache dropped before each).

    python benchmarks/profile_recall.py [--facts 100000] [--what recall,write,load]
                                        [--sort tottime] [--lines 40] [--embedder default]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import tempfile
import time
from pathlib import Path

from _common import Clock, pct
from confidante import Memory
from confidante.config import Settings
from confidante.vault.crypto import new_key
from latency import ALICE, corpus, fill, locomo_sessions
from locomo import DEFAULT_DATA, load


def _print(prof: cProfile.Profile, title: str, sort: str, lines: int) -> None:
    print(f"\n=== {title} ===")
    pstats.Stats(prof).sort_stats(sort).print_stats(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--what", default="recall", help="recall, write and/or load, comma-separated")
    ap.add_argument("--single", type=int, default=300, help="one-by-one writes profiled")
    ap.add_argument("--loads", type=int, default=5, help="cold loads profiled")
    ap.add_argument("--embedder", default="default", help="e.g. none: keyword-only")
    ap.add_argument("--sort", default="tottime")
    ap.add_argument("--lines", type=int, default=40)
    args = ap.parse_args()
    what = set(args.what.split(","))
    asked = [qa["question"] for sample in load(DEFAULT_DATA) for qa in sample["qa"]]
    queries = random.Random(7).sample(asked, 200)
    sessions = locomo_sessions()
    single = [t for _, turns in sessions[-40:] for t in turns][: args.single]
    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock()
        settings = Settings(default_ttl_days=36500, embedder=args.embedder)
        with Memory.open(
            Path(tmp) / "p.db", master_key=new_key(), settings=settings, clock=clock
        ) as m:
            rate = fill(m, clock, corpus(args.facts, sessions))
            m.recall(ALICE, "warm up")
            lat = []
            for q in queries:
                t0 = time.perf_counter()
                m.recall(ALICE, q)
                lat.append((time.perf_counter() - t0) * 1e3)
            print(
                f"{args.facts:,} facts, ingest {rate:.0f}/s; recall p50 {pct(lat, 50):.2f} ms, "
                f"p95 {pct(lat, 95):.2f} ms; embedder {args.embedder}"
            )
            if "recall" in what:
                prof = cProfile.Profile()
                prof.enable()
                for q in queries:
                    m.recall(ALICE, q)
                prof.disable()
                _print(prof, f"recall: {len(queries)} questions, warm", args.sort, args.lines)
            if "load" in what:
                prof = cProfile.Profile()
                took = []
                for _ in range(args.loads):
                    m.invalidate()
                    t0 = time.perf_counter()
                    prof.enable()
                    m.recall(ALICE, "cold")
                    prof.disable()
                    took.append((time.perf_counter() - t0) * 1e3)
                print(f"cold load (recall after the cache was dropped): {min(took):.1f} ms best")
                _print(prof, f"load: {args.loads} cold loads", args.sort, args.lines)
            if "write" in what:
                prof = cProfile.Profile()
                t0 = time.perf_counter()
                prof.enable()
                for t in single:
                    m.remember(ALICE, t)
                prof.disable()
                took = time.perf_counter() - t0
                print(f"one-by-one writes: {len(single) / took:.0f} facts/s (profiled)")
                _print(prof, f"write: {len(single)} facts, one per call", args.sort, args.lines)


if __name__ == "__main__":
    main()

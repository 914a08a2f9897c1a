"""Where one recall spends its time: LoCoMo's turns (as `latency.py` writes them) in one
partition, 200 of LoCoMo's questions, p50/p95, then a cProfile of the same questions.

    python benchmarks/profile_recall.py [--facts 100000] [--sort tottime] [--lines 40]
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--sort", default="tottime")
    ap.add_argument("--lines", type=int, default=40)
    args = ap.parse_args()
    asked = [qa["question"] for sample in load(DEFAULT_DATA) for qa in sample["qa"]]
    queries = random.Random(7).sample(asked, 200)
    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock()
        settings = Settings(default_ttl_days=36500)
        with Memory.open(
            Path(tmp) / "p.db", master_key=new_key(), settings=settings, clock=clock
        ) as m:
            rate = fill(m, clock, corpus(args.facts, locomo_sessions()))
            m.recall(ALICE, "warm up")
            lat = []
            for q in queries:
                t0 = time.perf_counter()
                m.recall(ALICE, q)
                lat.append((time.perf_counter() - t0) * 1e3)
            print(
                f"{args.facts:,} facts, ingest {rate:.0f}/s; recall p50 {pct(lat, 50):.2f} ms, "
                f"p95 {pct(lat, 95):.2f} ms"
            )
            prof = cProfile.Profile()
            prof.enable()
            for q in queries:
                m.recall(ALICE, q)
            prof.disable()
    pstats.Stats(prof).sort_stats(args.sort).print_stats(args.lines)


if __name__ == "__main__":
    main()

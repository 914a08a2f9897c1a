"""Scale: a million facts over ten thousand users, on SQLite and PostgreSQL.

Fills the memory in bulk (each user's facts in `remember_many` batches, the default hybrid
embedder on), then measures, per engine:
- ingest rate (facts/s), beside a plaintext SQLite bulk insert of the same texts (baseline);
- recall latency p50/p95 for users not in the cache (cold: their partition is read and
  decrypted) and for the same users again (warm), the ratio cold/warm;
- process RSS before and after every user has been recalled once, with the partition cache
  bounded (`--cache-mb`), and what an unbounded cache would have held (the sum of the
  partitions' estimated sizes).

The text is LoCoMo's conversation turns (CC BY-NC; read from the shared data folder, never
shipped), each user given a different slice; the queries are LoCoMo's questions.

    python benchmarks/scale.py                       # 1,000,000 facts, 10,000 users, both
    python benchmarks/scale.py --facts 20000 --users 200 --engines sqlite
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

from _common import Baseline, pct
from confidante import Context, Memory
from confidante.config import Settings
from confidante.privacy import guard
from confidante.recall.cache import index_bytes
from confidante.vault.crypto import new_key

DEFAULT_DATA = next(
    (
        parent / "shared/data/locomo/locomo10.json"
        for parent in Path(__file__).resolve().parents
        if (parent / "shared/data/locomo/locomo10.json").exists()
    ),
    Path("shared/data/locomo/locomo10.json"),
)
PG_DSN = os.environ.get("CONFIDANTE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def load_text(path: Path) -> tuple[list[str], list[str]]:
    """LoCoMo turns that the privacy guard accepts, and LoCoMo questions."""
    data = json.loads(path.read_text())
    turns, questions = [], []
    for sample in data:
        conv = sample["conversation"]
        n = 1
        while f"session_{n}" in conv:
            turns += [f"{t['speaker']}: {t['text']}" for t in conv[f"session_{n}"]]
            n += 1
        questions += [q["question"] for q in sample["qa"] if q.get("question")]
    turns = [t for t in dict.fromkeys(turns) if not guard.t3_categories(t)]
    return turns, questions


def user_texts(turns: list[str], user: int, n: int) -> list[str]:
    start = (user * 7919) % len(turns)
    return [turns[(start + i) % len(turns)] for i in range(n)]


def run_engine(
    name: str, target: str, args: argparse.Namespace, turns: list[str], questions: list[str]
) -> dict[str, float]:
    per_user = max(1, args.facts // args.users)
    users = [f"discord:{10_000 + u}" for u in range(args.users)]
    settings = Settings(default_ttl_days=3650, cache_mb=args.cache_mb)
    key = new_key()
    out: dict[str, float] = {}
    with Memory.open(target, owner_ids=["discord:1"], master_key=key, settings=settings) as m:
        t0 = time.perf_counter()
        done = 0
        for u, actor in enumerate(users):
            texts = user_texts(turns, u, per_user)
            for i in range(0, len(texts), args.batch):
                m.remember_many(Context.dm(actor), texts[i : i + args.batch])
            done += len(texts)
            if args.progress and (u + 1) % max(1, len(users) // 20) == 0:
                rate = done / (time.perf_counter() - t0)
                print(f"  {name}: {done:,} facts ({rate:,.0f}/s)", flush=True)
        out["ingest facts/s"] = done / (time.perf_counter() - t0)
        out["facts"] = done

    # A fresh process view: reopen, so nothing is cached.
    with Memory.open(target, owner_ids=["discord:1"], master_key=key, settings=settings) as m:
        rng = random.Random(11)
        m.recall(Context.dm(users[0]), "warm up the embedder")
        sample = rng.sample(users[1:], min(args.queries, len(users) - 1))
        qs = [rng.choice(questions) for _ in sample]
        cold, warm = [], []
        for actor, q in zip(sample, qs, strict=True):
            # cold: the user's partition is read and decrypted; warm: the next query of the
            # same conversation, served from the cache
            t = time.perf_counter()
            m.recall(Context.dm(actor), q)
            cold.append((time.perf_counter() - t) * 1e3)
            t = time.perf_counter()
            m.recall(Context.dm(actor), rng.choice(questions))
            warm.append((time.perf_counter() - t) * 1e3)
        out.update(
            {
                "cold recall p50 ms": pct(cold, 50),
                "cold recall p95 ms": pct(cold, 95),
                "warm recall p50 ms": pct(warm, 50),
                "warm recall p95 ms": pct(warm, 95),
            }
        )
        m.invalidate()
        rss_before = rss_mb()
        unbounded = 0
        t = time.perf_counter()
        for actor in users:
            m.recall(Context.dm(actor), "what did we talk about last week?")
            unbounded += index_bytes(list(m.cache.indexes())[-1])  # the one just loaded
        out["recall every user once, s"] = time.perf_counter() - t
        out["RSS before touching users MB"] = rss_before
        out["RSS after touching every user MB"] = rss_mb()
        out["cache held MB"] = m.cache.nbytes / 2**20
        out["cache partitions"] = len(m.cache)
        out["unbounded cache would hold MB"] = unbounded / 2**20
    return out


def baseline_ingest(turns: list[str], n: int, folder: Path) -> float:
    base = Baseline(folder / "plain.db")
    texts = user_texts(turns, 0, n)
    t = time.perf_counter()
    for i in range(0, len(texts), 1000):
        base.add(texts[i : i + 1000])
    return n / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--engines", default="sqlite,postgres")
    ap.add_argument("--cache-mb", type=float, default=256.0)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--dir", type=Path, default=None, help="where the SQLite file goes")
    ap.add_argument("--pg", default=PG_DSN)
    ap.add_argument("--progress", action="store_true")
    args = ap.parse_args()
    turns, questions = load_text(args.data)
    print(f"uptime: {os.popen('uptime').read().strip()}")
    print(
        f"scale: {args.facts:,} facts over {args.users:,} users; {len(turns):,} distinct LoCoMo "
        f"turns; cache bound {args.cache_mb:g} MB"
    )
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        folder = Path(tmp)
        base_rate = baseline_ingest(turns, min(args.facts, 100_000), folder)
        for engine in args.engines.split(","):
            if engine == "sqlite":
                results["sqlite"] = run_engine(
                    "sqlite", str(folder / "scale.db"), args, turns, questions
                )
            elif engine == "postgres":
                import psycopg

                schema = f"confidante_scale_{uuid.uuid4().hex[:8]}"
                admin = psycopg.connect(args.pg, autocommit=True)
                admin.execute(f"CREATE SCHEMA {schema}")
                sep = "&" if "?" in args.pg else "?"
                url = f"{args.pg}{sep}options={quote(f'-csearch_path={schema}')}"
                try:
                    results["postgres"] = run_engine("postgres", url, args, turns, questions)
                finally:
                    admin.execute(f"DROP SCHEMA {schema} CASCADE")
                    admin.close()
    print(f"uptime: {os.popen('uptime').read().strip()}")
    names = list(next(iter(results.values())))
    print(f"{'measure':<36}" + "".join(f"{e:>14}" for e in results))
    for n in names:
        print(f"{n:<36}" + "".join(f"{results[e][n]:>14,.2f}" for e in results))
    print(f"{'baseline ingest facts/s':<36}{base_rate:>14,.0f}  (plaintext SQLite, no policy)")
    for e, r in results.items():
        grew = r["RSS after touching every user MB"] - r["RSS before touching users MB"]
        print(
            f"{e}: ingest {r['ingest facts/s'] / base_rate:.3f}x the baseline's rate; "
            f"cold/warm recall p95 {r['cold recall p95 ms'] / r['warm recall p95 ms']:.1f}x; "
            f"RSS grew {grew:,.0f} MB for {r['cache held MB']:,.0f} MB cached "
            f"(bound {args.cache_mb:g}), {r['unbounded cache would hold MB']:,.0f} MB unbounded"
        )


if __name__ == "__main__":
    main()

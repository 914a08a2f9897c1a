"""What meaning costs: the default embedder against keyword-only recall
(``CONFIDANTE_EMBEDDER=none``), in one run, on LoCoMo's turns, on SQLite and PostgreSQL.

For each backend and each embedder (one child process each, so every model is loaded once
and RSS is the configuration's own; the two embedders run one after the other, twice in
turn with `--rounds 2`, best of the rounds):

- one-by-one writes: `--single` turns remembered one per call (facts/s);
- bulk writes: 10,000 turns in one person's partition, session by session (facts/s);
- recall p50/p95 at 10k facts (`--queries` LoCoMo questions, warm), and at 100k (the
  partition grown to 100,000 by writing LoCoMo's turns again, a year later each pass);
- cold load per 1,000 facts: a recall right after the partition cache was dropped, less a
  warm recall, per 1,000 facts; of the 10k partition written in bulk and of the partition
  written one fact at a time;
- RSS after the 10k recalls.

The embedders are loaded before any timing. Prints each figure and default / keyword-only.
`--before SRC` also runs every configuration with the package at SRC (another checkout's
``src``, put first on PYTHONPATH), each one beside its own, so a change is compared under
the same load.

    python benchmarks/meaning_cost.py [--backends sqlite,postgres] [--sizes 10000,100000]
                                      [--single 1000] [--queries 200] [--rounds 1]
                                      [--before ../old/src]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

from _common import Clock, pct

PG_DSN = os.environ.get("CONFIDANTE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
EMBEDDERS = ("default", "none")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _cold_per_1k(m: object, ctx: object, n: int, warm_ms: float, loads: int = 3) -> float:
    """A recall after the cache was dropped, less a warm one, per 1,000 facts (best of
    `loads`: the first may also read pages the OS had not cached)."""
    took = []
    for _ in range(loads):
        m.invalidate()  # type: ignore[attr-defined]
        t0 = time.perf_counter()
        m.recall(ctx, "what did she paint last summer?")  # type: ignore[attr-defined]
        took.append((time.perf_counter() - t0) * 1e3)
    return max(min(took) - warm_ms, 0.0) / (n / 1000)


def child(backend: str, embedder: str, args: argparse.Namespace) -> dict[str, float]:
    """One configuration's figures (run in its own process)."""
    from confidante import Context, Memory
    from confidante.config import Settings
    from confidante.vault.crypto import new_key
    from latency import ALICE, corpus, locomo_sessions
    from locomo import DEFAULT_DATA, load

    sessions = locomo_sessions()
    asked = [qa["question"] for sample in load(DEFAULT_DATA) for qa in sample["qa"]]
    queries = random.Random(7).sample(asked, args.queries)
    sizes = [int(s) for s in args.sizes.split(",")]
    single = [t for _, turns in sessions[-60:] for t in turns][: args.single]
    settings = Settings(default_ttl_days=36500, embedder=embedder)
    out: dict[str, float] = {}

    def recalls(m: Memory, ctx: Context) -> list[float]:
        lat = []
        for q in queries:
            t0 = time.perf_counter()
            m.recall(ctx, q)
            lat.append((time.perf_counter() - t0) * 1e3)
        return lat

    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or str(Path(tmp) / "m.db")
        clock = Clock()
        with Memory.open(
            url, owner_ids=["discord:1"], master_key=new_key(), settings=settings, clock=clock
        ) as m:
            bob = Context.dm("discord:77")
            m.remember_many(bob, ["warm the models up", "and their tokenizers"])
            m.recall(bob, "warm up")
            # one by one, into a partition of its own
            t0 = time.perf_counter()
            for t in single:
                m.remember(bob, t)
            out["one-by-one writes (facts/s)"] = len(single) / (time.perf_counter() - t0)
            warm = statistics.median(recalls(m, bob)[:50])
            out["cold load per 1k, written one by one (ms)"] = _cold_per_1k(
                m, bob, len(single) + 2, warm
            )
            written = 0
            for n in sizes:
                batches = corpus(n, sessions)
                # the partition grows from the last size to this one: write what is new
                todo, skip = [], written
                for when, texts in batches:
                    if skip >= len(texts):
                        skip -= len(texts)
                        continue
                    todo.append((when, texts[skip:]))
                    skip = 0
                t0 = time.perf_counter()
                for when, texts in todo:
                    clock.now = when
                    m.remember_many(ALICE, texts)
                took = time.perf_counter() - t0
                if written == 0:
                    out[f"bulk writes, {n:,} facts (facts/s)"] = (n - written) / took
                written = n
                m.recall(ALICE, "warm up")
                lat = recalls(m, ALICE)
                out[f"recall p50 at {n:,} (ms)"] = pct(lat, 50)
                out[f"recall p95 at {n:,} (ms)"] = pct(lat, 95)
                if n == sizes[0]:
                    out[f"RSS at {n:,} facts (MB)"] = rss_mb()
                    out["cold load per 1k, written in bulk (ms)"] = _cold_per_1k(
                        m, ALICE, n, pct(lat, 50)
                    )
    return out


def _run_child(
    backend: str, embedder: str, args: argparse.Namespace, src: str = ""
) -> dict[str, float]:
    url = ""
    admin = schema = None
    if backend == "postgres":
        import psycopg

        schema = f"confidante_cost_{uuid.uuid4().hex[:8]}"
        admin = psycopg.connect(args.pg, autocommit=True)
        admin.execute(f"CREATE SCHEMA {schema}")
        sep = "&" if "?" in args.pg else "?"
        url = f"{args.pg}{sep}options={quote(f'-csearch_path={schema}')}"
    cmd = [sys.executable, __file__, "--child", backend, embedder, "--url", url]
    for flag in ("sizes", "single", "queries"):
        cmd += [f"--{flag}", str(getattr(args, flag))]
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (src, env.get("PYTHONPATH"))))
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    except subprocess.CalledProcessError as e:
        sys.stderr.write(e.stderr)
        raise
    finally:
        if admin is not None:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")
            admin.close()
    return json.loads(done.stdout.strip().splitlines()[-1])


def _better(name: str, a: float, b: float) -> float:
    return max(a, b) if "facts/s" in name else min(a, b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backends", default="sqlite,postgres")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--single", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--pg", default=PG_DSN)
    ap.add_argument("--before", default="", help="another checkout's src, run beside this one")
    ap.add_argument("--child", nargs=2, metavar=("BACKEND", "EMBEDDER"), help=argparse.SUPPRESS)
    ap.add_argument("--url", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], args)))
        return
    print(f"uptime: {os.popen('uptime').read().strip()}")
    results: dict[str, dict[str, dict[str, float]]] = {}
    runs = [("", e) for e in EMBEDDERS]
    if args.before:
        runs += [(args.before, e) for e in EMBEDDERS]
    for backend in args.backends.split(","):
        got: dict[str, dict[str, float]] = {}
        for _ in range(args.rounds):
            for src, embedder in runs:
                r = _run_child(backend, embedder, args, src)
                name = f"{'before:' if src else ''}{embedder}"
                had = got.get(name)
                got[name] = r if had is None else {k: _better(k, had[k], r[k]) for k in r}
        results[backend] = got
    print(f"uptime: {os.popen('uptime').read().strip()}")
    print(
        f"meaning's cost: LoCoMo turns in one partition, {args.queries} LoCoMo questions warm; "
        f"best of {args.rounds} round(s)"
    )
    for backend, got in results.items():
        head = f"\n{backend:<46}{'default':>11}{'keyword':>11}{'ratio':>9}"
        if args.before:
            head += f"{'before: default':>17}{'keyword':>11}{'ratio':>9}"
        print(head)
        for name in got["default"]:
            line = f"{name:<46}"
            for prefix in ("", "before:") if args.before else ("",):
                d, k = got[f"{prefix}default"][name], got[f"{prefix}none"][name]
                width = 17 if prefix else 11
                line += f"{d:>{width}.2f}{k:>11.2f}{(d / k if k else float('nan')):>8.2f}x"
            print(line)
    print(
        "\ntargets: writes (one by one, bulk) >= 0.8x the keyword rate; recall p95 <= 1.5x at "
        "10k, <= 1.3x at 100k; cold load per 1k 3x cheaper than before"
    )


if __name__ == "__main__":
    main()

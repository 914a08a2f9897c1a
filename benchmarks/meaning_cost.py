"""What meaning costs: the default embedder against keyword-only recall
(``CONFIDANTE_EMBEDDER=none``), in one run, on LoCoMo's turns, on SQLite and PostgreSQL.

Both are measured side by side in one process, each operation on one and then on the other
(the order alternating), so a burst of load on a shared machine falls on both alike and the
ratios hold even when the absolute figures do not. Per backend:

- one-by-one writes: `--single` turns remembered one per call (facts/s);
- bulk writes: the first size's turns in one person's partition, session by session;
- recall p50/p95 at each size (`--queries` LoCoMo questions, warm; the partition grown to
  the next size by writing LoCoMo's turns again, a year later each pass);
- cold load per 1,000 facts: a recall right after the partition cache was dropped, less a
  warm recall, per 1,000 facts (best of 3), of the partition written in bulk and of the
  one written one fact at a time;
- RSS at the first size, each embedder in a process of its own (SQLite only).

The embedders are loaded before any timing. `--before SRC` also runs everything with the
package at SRC (another checkout's ``src``, first on PYTHONPATH), each backend beside this
one, to compare a change.

    python benchmarks/meaning_cost.py [--backends sqlite,postgres] [--sizes 10000,100000]
                                      [--single 500] [--queries 200] [--before ../old/src]
"""

from __future__ import annotations

import argparse
import json
import os
import random
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


def _timed(fn: object) -> float:
    t0 = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - t0


def child(urls: list[str], args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """Every figure for both embedders, side by side (run in a process of its own)."""
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
    bob = Context.dm("discord:77")
    clock = Clock()
    mems = {
        e: Memory.open(
            url,
            owner_ids=["discord:1"],
            master_key=new_key(),
            settings=Settings(default_ttl_days=36500, embedder=e),
            clock=clock,
        )
        for e, url in zip(EMBEDDERS, urls, strict=True)
    }
    out: dict[str, dict[str, float]] = {e: {} for e in EMBEDDERS}
    flip = [0]

    def both(op: object) -> dict[str, float]:
        """Time `op(memory)` on each, the order alternating from call to call."""
        order = EMBEDDERS if flip[0] % 2 == 0 else EMBEDDERS[::-1]
        flip[0] += 1
        return {e: _timed(lambda e=e: op(mems[e])) for e in order}  # type: ignore[operator]

    def cold(ctx: Context, n: int, name: str) -> None:
        warm = {e: [] for e in EMBEDDERS}  # type: ignore[var-annotated]
        for q in queries[:30]:
            for e, s in both(lambda m, q=q: m.recall(ctx, q)).items():
                warm[e].append(s)
        took = {e: [] for e in EMBEDDERS}  # type: ignore[var-annotated]
        for _ in range(3):
            for e, s in both(
                lambda m: (m.invalidate(), m.recall(ctx, "what did she paint?"))
            ).items():
                took[e].append(s)
        for e in EMBEDDERS:
            load_ms = max(min(took[e]) - pct(warm[e], 50), 0.0) * 1e3
            out[e][f"cold load per 1k, {name} (ms)"] = load_ms / (n / 1000)

    try:
        for m in mems.values():
            m.remember_many(bob, ["warm the models up", "and their tokenizers"])
            m.recall(bob, "warm up")
        spent = dict.fromkeys(EMBEDDERS, 0.0)
        for t in single:
            for e, s in both(lambda m, t=t: m.remember(bob, t)).items():
                spent[e] += s
        for e in EMBEDDERS:
            out[e]["one-by-one writes (facts/s)"] = len(single) / spent[e]
        cold(bob, len(single) + 2, "written one by one")
        written = 0
        for n in sizes:
            todo, skip = [], written
            for when, texts in corpus(n, sessions):
                if skip >= len(texts):
                    skip -= len(texts)
                    continue
                todo.append((when, texts[skip:]))
                skip = 0
            spent = dict.fromkeys(EMBEDDERS, 0.0)
            for when, texts in todo:
                clock.now = when
                for e, s in both(lambda m, texts=texts: m.remember_many(ALICE, texts)).items():
                    spent[e] += s
            if written == 0:
                for e in EMBEDDERS:
                    out[e][f"bulk writes, {n:,} facts (facts/s)"] = n / spent[e]
            written = n
            for m in mems.values():
                m.recall(ALICE, "warm up")
            lat = {e: [] for e in EMBEDDERS}  # type: ignore[var-annotated]
            for q in queries:
                for e, s in both(lambda m, q=q: m.recall(ALICE, q)).items():
                    lat[e].append(s * 1e3)
            for e in EMBEDDERS:
                out[e][f"recall p50 at {n:,} (ms)"] = pct(lat[e], 50)
                out[e][f"recall p95 at {n:,} (ms)"] = pct(lat[e], 95)
            if n == sizes[0]:
                cold(ALICE, n, "written in bulk")
    finally:
        for m in mems.values():
            m.close()
    return out


def rss_child(embedder: str, args: argparse.Namespace) -> float:
    """RSS of a process holding one partition of the first size, with one embedder."""
    from confidante import Memory
    from confidante.config import Settings
    from confidante.vault.crypto import new_key
    from latency import ALICE, corpus, fill, locomo_sessions

    n = int(args.sizes.split(",")[0])
    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(default_ttl_days=36500, embedder=embedder)
        with Memory.open(
            Path(tmp) / "r.db", master_key=new_key(), settings=settings, clock=clock
        ) as m:
            fill(m, clock, corpus(n, locomo_sessions()))
            m.recall(ALICE, "what did she paint?")
            return rss_mb()


def _run(cmd: list[str], src: str) -> str:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (src, env.get("PYTHONPATH"))))
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    except subprocess.CalledProcessError as e:
        sys.stderr.write(e.stderr)
        raise
    return done.stdout.strip().splitlines()[-1]


def _figures(backend: str, args: argparse.Namespace, src: str) -> dict[str, dict[str, float]]:
    urls: list[str] = []
    admin = None
    schemas: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        if backend == "postgres":
            import psycopg

            admin = psycopg.connect(args.pg, autocommit=True)
            sep = "&" if "?" in args.pg else "?"
            for _ in EMBEDDERS:
                schema = f"confidante_cost_{uuid.uuid4().hex[:8]}"
                admin.execute(f"CREATE SCHEMA {schema}")
                schemas.append(schema)
                urls.append(f"{args.pg}{sep}options={quote(f'-csearch_path={schema}')}")
        else:
            urls = [str(Path(tmp) / f"{e}.db") for e in EMBEDDERS]
        cmd = [sys.executable, __file__, "--child", *urls]
        for flag in ("sizes", "single", "queries"):
            cmd += [f"--{flag}", str(getattr(args, flag))]
        try:
            got = json.loads(_run(cmd, src))
        finally:
            if admin is not None:
                for schema in schemas:
                    admin.execute(f"DROP SCHEMA {schema} CASCADE")
                admin.close()
    if backend == "sqlite":
        n = int(args.sizes.split(",")[0])
        for e in EMBEDDERS:
            cmd = [sys.executable, __file__, "--rss", e, "--sizes", args.sizes]
            got[e][f"RSS at {n:,} facts (MB)"] = float(_run(cmd, src))
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backends", default="sqlite,postgres")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--single", type=int, default=500)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--pg", default=PG_DSN)
    ap.add_argument("--before", default="", help="another checkout's src, run beside this one")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--rss", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args)))
        return
    if args.rss:
        print(rss_child(args.rss, args))
        return
    print(f"uptime: {os.popen('uptime').read().strip()}")
    results: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for backend in args.backends.split(","):
        results[backend] = {"": _figures(backend, args, "")}
        if args.before:
            results[backend]["before"] = _figures(backend, args, args.before)
    print(f"uptime: {os.popen('uptime').read().strip()}")
    print(
        f"meaning's cost: LoCoMo turns in one partition, {args.queries} LoCoMo questions warm; "
        "default and keyword-only side by side in one process"
    )
    for backend, runs in results.items():
        head = f"\n{backend:<46}{'default':>11}{'keyword':>11}{'ratio':>9}"
        if args.before:
            head += f"{'before: default':>17}{'keyword':>11}{'ratio':>9}"
        print(head)
        for name in runs[""]["default"]:
            line = f"{name:<46}"
            for label, got in runs.items():
                d, k = got["default"].get(name, 0.0), got["none"].get(name, 0.0)
                width = 17 if label else 11
                line += f"{d:>{width}.2f}{k:>11.2f}{(d / k if k else float('nan')):>8.2f}x"
            print(line)
    print(
        "\ntargets: writes (one by one, bulk) >= 0.8x the keyword rate; recall p95 <= 1.5x at "
        "10k, <= 1.3x at 100k; cold load per 1k 3x cheaper than before"
    )


if __name__ == "__main__":
    main()

"""Load: several `confidante serve` processes on one PostgreSQL database, no proxy between.

Concurrent clients (asyncio + httpx) each pick a server, a user and an operation: remember
(in the user's DM, or in one of a few guilds), recall, or forget one of their own facts and
check it is gone *through the other server* at once. Every response is checked against what
that client's context may see: a hit from another user's silo or another guild is a leak.
Prints throughput and p50/p95/p99 per route, errors and leaks (both must be 0), beside a
baseline route measured in the same run (`GET /v1/stats`: authentication and one small read,
no policy and no decryption), so the figures travel between machines.

    python benchmarks/load.py                             # 60 s, 50 clients, 1,000 users
    python benchmarks/load.py --seconds 5 --clients 10 --users 100
    python benchmarks/load.py --url http://a:8765 --url http://b:8765 --token cf_...

Without --url it creates a fresh PostgreSQL schema, a key file and an agent key, starts two
servers on it, and removes everything afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

PG_DSN = os.environ.get("CONFIDANTE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
GUILDS = [f"g{i}" for i in range(5)]
_MARK = re.compile(r"\[(u\d+|g\d+)\]")


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    checked_hits: int = 0
    forgets_checked: int = 0


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))] if xs else float("nan")


async def _call(
    client: httpx.AsyncClient, stats: Stats, route: str, method: str, url: str, **kw: Any
) -> httpx.Response | None:
    t = time.perf_counter()
    try:
        r = await client.request(method, url, **kw)
    except httpx.HTTPError as e:
        stats.errors.append(f"{route}: {type(e).__name__}")
        return None
    stats.latencies[route].append((time.perf_counter() - t) * 1e3)
    return r


async def client_loop(
    n: int, urls: list[str], token: str, users: int, until: float, stats: Stats, seed: int
) -> None:
    rng = random.Random(seed * 7919 + n)
    headers = {"Authorization": f"Bearer {token}"}
    mine: list[tuple[int, str]] = []  # (user, fact id) this client wrote in DMs
    async with httpx.AsyncClient(headers=headers, timeout=60) as client:
        i = 0
        while time.monotonic() < until:
            i += 1
            url = urls[(n + i) % len(urls)]
            other = urls[(n + i + 1) % len(urls)]
            user = rng.randrange(users)
            actor = f"discord:{100_000 + user}"
            roll = rng.random()
            if roll < 0.35:  # remember, in the user's DM
                text = f"[u{user}] note {n}-{i} about {rng.choice(TOPICS)}"
                ctx = {"actor": actor, "surface": "dm"}
                r = await _call(
                    client,
                    stats,
                    "remember",
                    "POST",
                    f"{url}/v1/memories",
                    json={"context": ctx, "text": text},
                )
                if r is not None and r.status_code == 201:
                    mine.append((user, r.json()["id"]))
                elif r is not None:
                    stats.errors.append(f"remember {r.status_code}")
            elif roll < 0.45:  # remember, in a guild
                g = rng.randrange(len(GUILDS))
                text = f"[g{g}] club note {n}-{i} about {rng.choice(TOPICS)}"
                ctx = {"actor": actor, "surface": "guild_text", "guild": GUILDS[g]}
                r = await _call(
                    client,
                    stats,
                    "remember",
                    "POST",
                    f"{url}/v1/memories",
                    json={"context": ctx, "text": text},
                )
                if r is not None and r.status_code != 201:
                    stats.errors.append(f"remember {r.status_code}")
            elif roll < 0.85:  # recall, in a DM or a guild, checked for leaks
                in_guild = rng.random() < 0.3
                g = rng.randrange(len(GUILDS))
                ctx = (
                    {"actor": actor, "surface": "guild_text", "guild": GUILDS[g]}
                    if in_guild
                    else {"actor": actor, "surface": "dm"}
                )
                allowed = {f"g{g}"} if in_guild else {f"u{user}"}
                r = await _call(
                    client,
                    stats,
                    "recall",
                    "POST",
                    f"{url}/v1/memories/search",
                    json={"context": ctx, "query": f"note about {rng.choice(TOPICS)}", "k": 10},
                )
                if r is None:
                    continue
                if r.status_code != 200:
                    stats.errors.append(f"recall {r.status_code}")
                    continue
                for hit in r.json()["hits"]:
                    stats.checked_hits += 1
                    marks = set(_MARK.findall(hit["text"]))
                    if not marks or not marks <= allowed:
                        stats.leaks.append(f"{sorted(allowed)} saw {sorted(marks)}")
            elif roll < 0.95 and mine:  # forget one of ours; gone through the other server
                user, fid = mine.pop(rng.randrange(len(mine)))
                ctx = {"actor": f"discord:{100_000 + user}", "surface": "dm"}
                r = await _call(
                    client,
                    stats,
                    "forget",
                    "POST",
                    f"{url}/v1/memories/{fid}/forget",
                    json={"context": ctx},
                )
                if r is None or r.status_code != 200:
                    stats.errors.append(f"forget {getattr(r, 'status_code', None)}")
                    continue
                g = await _call(
                    client,
                    stats,
                    "get",
                    "POST",
                    f"{other}/v1/memories/{fid}/get",
                    json={"context": ctx},
                )
                if g is not None and g.status_code != 404:
                    stats.leaks.append(f"forgotten fact still served ({g.status_code})")
                stats.forgets_checked += 1
            else:  # the baseline route: authentication and a small read, no policy
                r = await _call(client, stats, "stats (baseline)", "GET", f"{url}/v1/stats")
                if r is not None and r.status_code != 200:
                    stats.errors.append(f"stats {r.status_code}")


TOPICS = (
    "the garden, the trip to Lisbon, the new bike, the cello lessons, the dog's vet visit, "
    "the job interview, the birthday party, the book club, the marathon, the recipe"
).split(", ")


async def run(urls: list[str], token: str, clients: int, seconds: float, users: int) -> Stats:
    stats = Stats()
    until = time.monotonic() + seconds
    await asyncio.gather(
        *(client_loop(n, urls, token, users, until, stats, 1) for n in range(clients))
    )
    return stats


def report(stats: Stats, seconds: float) -> dict[str, Any]:
    routes = {
        route: {
            "requests": len(xs),
            "per_s": len(xs) / seconds,
            "p50_ms": pct(xs, 50),
            "p95_ms": pct(xs, 95),
            "p99_ms": pct(xs, 99),
        }
        for route, xs in sorted(stats.latencies.items())
    }
    return {
        "seconds": seconds,
        "requests": sum(len(x) for x in stats.latencies.values()),
        "throughput_per_s": sum(len(x) for x in stats.latencies.values()) / seconds,
        "routes": routes,
        "errors": len(stats.errors),
        "error_samples": stats.errors[:10],
        "leaks": len(stats.leaks),
        "leak_samples": stats.leaks[:10],
        "hits_checked": stats.checked_hits,
        "forgets_checked": stats.forgets_checked,
    }


# --- starting servers of our own ---------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def own_servers(count: int, pg: str):
    """A fresh schema, a shared key file and an agent key; `count` servers on it."""
    import psycopg

    schema = f"confidante_load_{uuid.uuid4().hex[:8]}"
    admin = psycopg.connect(pg, autocommit=True)
    admin.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in pg else "?"
    url = f"{pg}{sep}options={quote(f'-csearch_path={schema}')}"
    procs: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory() as tmp:
        key_file = Path(tmp) / "master.key"
        env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")}
        env.update(
            CONFIDANTE_DB=url,
            CONFIDANTE_KEY_FILE=str(key_file),
            CONFIDANTE_OWNER_IDS="discord:1",
            CONFIDANTE_CONFIG=str(Path(tmp) / "none.toml"),
        )
        from confidante.vault.crypto import new_key, write_key_file

        write_key_file(key_file, new_key())
        cli = [sys.executable, "-m", "confidante"]
        out = subprocess.run(
            [*cli, "keys", "add-agent", "load", "--json"], env=env, capture_output=True, check=True
        )
        token = json.loads(out.stdout)["token"]
        urls = []
        try:
            for _ in range(count):
                port = _free_port()
                procs.append(
                    subprocess.Popen(
                        [*cli, "serve", "--port", str(port), "--cleanup-days", "0"],
                        env=env,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )
                urls.append(f"http://127.0.0.1:{port}")
            for u in urls:
                deadline = time.monotonic() + 60
                while True:
                    try:
                        if httpx.get(f"{u}/v1/stats", timeout=2).status_code == 401:
                            break
                    except httpx.HTTPError:
                        pass
                    if time.monotonic() > deadline:
                        raise RuntimeError("a server did not start")
                    time.sleep(0.1)
            yield urls, token
        finally:
            for p in procs:
                p.send_signal(signal.SIGINT)
            for p in procs:
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
            admin.execute(f"DROP SCHEMA {schema} CASCADE")
            admin.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", action="append", help="a running server (repeat); default: own")
    ap.add_argument("--token", help="an agent key for --url servers")
    ap.add_argument("--servers", type=int, default=2)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--pg", default=PG_DSN)
    ap.add_argument("--json", action="store_true", help="print the report as JSON only")
    args = ap.parse_args()

    def go(urls: list[str], token: str) -> dict[str, Any]:
        stats = asyncio.run(run(urls, token, args.clients, args.seconds, args.users))
        return report(stats, args.seconds)

    load_before = os.getloadavg()
    if args.url:
        if not args.token:
            ap.error("--url needs --token")
        result = go(args.url, args.token)
    else:
        with own_servers(args.servers, args.pg) as (urls, token):
            result = go(urls, token)
    result["loadavg_before"] = load_before
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"load: {args.clients} clients, {args.seconds:g} s, {args.users} users, "
        f"{len(args.url or []) or args.servers} servers on one PostgreSQL (load average before: "
        f"{load_before[0]:.2f})"
    )
    print(f"{'route':<20}{'requests':>10}{'per s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    base = result["routes"].get("stats (baseline)", {}).get("p50_ms")
    for route, r in result["routes"].items():
        ratio = f"  ({r['p50_ms'] / base:.1f}x baseline p50)" if base else ""
        print(
            f"{route:<20}{r['requests']:>10}{r['per_s']:>9.1f}{r['p50_ms']:>9.1f}"
            f"{r['p95_ms']:>9.1f}{r['p99_ms']:>9.1f}{ratio}"
        )
    print(
        f"total {result['requests']} requests, {result['throughput_per_s']:.1f}/s; "
        f"errors {result['errors']}, leaks {result['leaks']} "
        f"({result['hits_checked']} hits and {result['forgets_checked']} forgets checked)"
    )
    for e in result["error_samples"] + result["leak_samples"]:
        print("  ", e)


if __name__ == "__main__":
    main()

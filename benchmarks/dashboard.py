"""Dashboard pages at scale: how long People, a deep page, a person filter and a search take
with N facts (default 5,000 over 1,000 people and 4 communities), against the API's list of
the same page measured in the same run (the baseline: same data, same process, no HTML).

    python benchmarks/dashboard.py [--facts 5000] [--rounds 20]

Prints milliseconds (p50/p95) and each page's ratio to the baseline. In-process (Starlette's
test client), so the figures are the server's work, not the network's.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from confidante import Context, Memory
from confidante.config import ServerSettings
from confidante.server import create_app
from confidante.services.credentials import AgentKeys, set_password

OWNER = "discord:1"
PASSWORD = "benchmark passphrase"
HOBBIES = ["sourdough baking", "trail running", "chess openings", "birdwatching", "jazz piano"]


def seed(mem: Memory, facts: int) -> None:
    people = max(1, facts * 3 // 5 // 3)
    for i in range(people):
        h = HOBBIES[i % len(HOBBIES)]
        mem.remember_many(
            Context.dm(f"discord:{10_000 + i}"),
            [f"I spend weekends on {h}", f"I want to get better at {h}", "I prefer tea"],
        )
    left = facts - people * 3
    for g in range(4):
        mem.remember_many(
            Context.guild(f"discord:{10_000 + g}", f"club{g}"),
            [f"the meetup {j} moved to the library" for j in range(left // 4)],
            "guild",
        )


def timings(client: TestClient, method: str, url: str, rounds: int, **kw: object) -> list[float]:
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        r = client.request(method, url, **kw)  # type: ignore[arg-type]
        out.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 200, (url, r.status_code)
        assert "/login" not in str(r.url), "not logged in: the figures would be the login page"
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(Path(tmp) / "m.db", owner_ids=[OWNER])
        t = time.perf_counter()
        seed(mem, args.facts)
        print(f"seeded {mem.store.count_facts()} facts in {time.perf_counter() - t:.1f} s")
        set_password(mem, PASSWORD)
        token = AgentKeys(mem).add("bench")
        app = create_app(mem, ServerSettings(cleanup_days=0))
        with TestClient(app, base_url="https://testserver") as client:
            login = client.get("/dashboard/login")
            csrf = re.search(r'name="csrf" value="([^"]+)"', login.text).group(1)  # type: ignore[union-attr]
            client.post("/dashboard/login", data={"password": PASSWORD, "csrf": csrf})
            body = {"context": {"surface": "dm", "actor": "discord:10001"}, "limit": 50}
            headers = {"Authorization": f"Bearer {token}"}
            base = timings(
                client, "POST", "/v1/memories/list", args.rounds, json=body, headers=headers
            )
            pages = {
                "people, page 1": "/dashboard/people",
                "people, page 30": "/dashboard/people?page=30",
                "people, one person": "/dashboard/people?person=discord:10001",
                "community, one community": "/dashboard/community?community=club2",
                "people, search 'birdwatching'": "/dashboard/people?q=birdwatching",
                "people, search 'tea' (capped)": "/dashboard/people?q=tea",
            }
            b50 = statistics.median(base)
            print(f"baseline: API list of one person's page: p50 {b50:.1f} ms")
            print(f"{'page':32} {'p50 ms':>8} {'p95 ms':>8} {'x baseline':>11}")
            for name, url in pages.items():
                xs = sorted(timings(client, "GET", url, args.rounds))
                p50, p95 = statistics.median(xs), xs[int(0.95 * (len(xs) - 1))]
                print(f"{name:32} {p50:8.1f} {p95:8.1f} {p50 / b50:11.1f}")
        mem.close()


if __name__ == "__main__":
    main()

"""Several servers on PostgreSQL (issue 11, item 4): two real `confidante serve` processes on
one database, no proxy between them. A write through one is visible through the other at
once, a forget through one is invisible through the other at once, and concurrent traffic
through both has no error and no leak, while a key rotation from the CLI happens in the
middle of it.

The traffic is bounded by count, not by time: every client makes its share of requests and
goes on until the rotation has finished and it has made more after it, however long a busy
machine takes. Throughput and latency are `benchmarks/load.py`'s to measure."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from confidante.vault.crypto import new_key, read_key_file, write_key_file
from process_helpers import Server, base_env, cli, serve

from conftest import ALICE, BOB, OWNER

CLIENTS = 8
REQUESTS = 30  # each client's share, before the rotation's end counts
AFTER_ROTATION = 5  # each client's requests once the rotation has finished
USERS_PER_CLIENT = 3
GUILDS = ["g0", "g1", "g2"]
ROTATE_AFTER = CLIENTS * REQUESTS // 3  # requests made in all, before the rotation starts
TOPICS = ["the garden", "the trip to Lisbon", "the cello lessons", "the book club"]
_MARK = re.compile(r"\[(u\d+|g\d+)\]")


@dataclass
class Tally:
    """What the clients saw, together (under `lock`)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    requests: int = 0
    errors: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    hits_checked: int = 0
    forgets_checked: int = 0
    routes: set[str] = field(default_factory=set)
    enough_for_rotation: threading.Event = field(default_factory=threading.Event)

    def count(self, route: str) -> None:
        with self.lock:
            self.requests += 1
            self.routes.add(route)
            if self.requests >= ROTATE_AFTER:
                self.enough_for_rotation.set()


def client(n: int, servers: tuple[Server, Server], token: str, tally: Tally,
           rotated: threading.Event) -> None:  # fmt: skip
    """One client's requests, through both servers in turn: remember (in a DM, marked with
    the user, or in a guild, marked with it), recall (every hit checked against the marks the
    context may see), forget one of its own facts and get it through the other server (404
    at once), and the baseline `/v1/stats`."""
    users = [n * USERS_PER_CLIENT + u for u in range(USERS_PER_CLIENT)]
    mine: list[tuple[int, str]] = []
    made = after = 0
    with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=300) as http:
        while made < REQUESTS or not rotated.is_set() or after < AFTER_ROTATION:
            if rotated.is_set():
                after += 1
            made += 1
            here, there = servers[made % 2].url, servers[(made + 1) % 2].url
            user = users[made % len(users)]
            actor = {"actor": f"discord:{100_000 + user}", "surface": "dm"}
            topic = TOPICS[made % len(TOPICS)]
            step = made % 10
            try:
                if step in (0, 1, 2, 3):
                    text = f"[u{user}] note {n}-{made} about {topic}"
                    r = http.post(f"{here}/v1/memories", json={"context": actor, "text": text})
                    tally.count("remember")
                    if r.status_code != 201:
                        tally.errors.append(f"remember {r.status_code}")
                    else:
                        mine.append((user, r.json()["id"]))
                elif step == 4:
                    g = GUILDS[made % len(GUILDS)]
                    ctx = {"actor": actor["actor"], "surface": "guild_text", "guild": g}
                    text = f"[{g}] club note {n}-{made} about {topic}"
                    r = http.post(f"{here}/v1/memories", json={"context": ctx, "text": text})
                    tally.count("remember")
                    if r.status_code != 201:
                        tally.errors.append(f"remember in a guild {r.status_code}")
                elif step in (5, 6, 7):
                    if step == 7:
                        g = GUILDS[made % len(GUILDS)]
                        ctx = {"actor": actor["actor"], "surface": "guild_text", "guild": g}
                        allowed = {g}
                    else:
                        ctx, allowed = actor, {f"u{user}"}
                    body = {"context": ctx, "query": f"note about {topic}", "k": 10}
                    r = http.post(f"{here}/v1/memories/search", json=body)
                    tally.count("recall")
                    if r.status_code != 200:
                        tally.errors.append(f"recall {r.status_code}")
                        continue
                    for hit in r.json()["hits"]:
                        marks = set(_MARK.findall(hit["text"]))
                        with tally.lock:
                            tally.hits_checked += 1
                            if not marks or not marks <= allowed:
                                tally.leaks.append(f"{sorted(allowed)} saw {sorted(marks)}")
                elif step == 8 and mine:
                    owner, fid = mine.pop(0)
                    ctx = {"actor": f"discord:{100_000 + owner}", "surface": "dm"}
                    r = http.post(f"{here}/v1/memories/{fid}/forget", json={"context": ctx})
                    tally.count("forget")
                    if r.status_code != 200:
                        tally.errors.append(f"forget {r.status_code}")
                        continue
                    g = http.post(f"{there}/v1/memories/{fid}/get", json={"context": ctx})
                    tally.count("get")
                    with tally.lock:
                        tally.forgets_checked += 1
                        if g.status_code != 404:
                            tally.leaks.append(f"forgotten fact still served ({g.status_code})")
                else:
                    r = http.get(f"{here}/v1/stats")
                    tally.count("stats")
                    if r.status_code != 200:
                        tally.errors.append(f"stats {r.status_code}")
            except httpx.HTTPError as e:  # a dropped connection is an error too
                tally.errors.append(type(e).__name__)


def test_two_servers_on_one_postgres(pg_url: str, tmp_path: Path) -> None:
    key_file = tmp_path / "keys" / "master.key"
    first_key = new_key()
    write_key_file(key_file, first_key)
    # Pending erasure is completed by the servers themselves every 3 s here (60 min by
    # default): re-keys and master-key rotations happen under the load below, too.
    env = base_env(
        tmp_path,
        CONFIDANTE_DB=pg_url,
        CONFIDANTE_KEY_FILE=str(key_file),
        CONFIDANTE_ERASURE_INTERVAL_MINUTES="0.05",
    )
    token = cli(env, "keys", "add-agent", "bot", "--json").json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    a = serve(env, tmp_path / "a.log", "--cleanup-days", "0")
    b = serve(env, tmp_path / "b.log", "--cleanup-days", "0")
    try:
        alice = {"actor": ALICE, "surface": "dm"}

        def post(server, path: str, **body):
            return server.client.post(path, json=body, headers=headers)

        # B has Alice's partition cached before A writes to it.
        assert post(b, "/v1/memories/search", context=alice, query="kayak").json()["hits"] == []
        wrote = post(a, "/v1/memories", context=alice, text="Alice bought a red kayak")
        assert wrote.status_code == 201
        fid = wrote.json()["id"]
        hits = post(b, "/v1/memories/search", context=alice, query="kayak").json()["hits"]
        assert [h["id"] for h in hits] == [fid]  # visible through the other server, at once
        assert post(b, f"/v1/memories/{fid}/get", context=alice).status_code == 200

        assert post(b, f"/v1/memories/{fid}/forget", context=alice).status_code == 200
        assert post(a, f"/v1/memories/{fid}/get", context=alice).status_code == 404
        assert post(a, "/v1/memories/search", context=alice, query="kayak").json()["hits"] == []
        # The forgotten kayak's erasure completes on the servers' schedule: a new master key.
        deadline = time.monotonic() + 600  # a guard against a hang, not a measure
        while read_key_file(key_file) == first_key:
            assert time.monotonic() < deadline, "no erasure round ran"
            time.sleep(0.2)
        second_key = read_key_file(key_file)
        assert post(a, "/v1/memories/search", context=alice, query="kayak").status_code == 200

        bob = {"actor": BOB, "surface": "dm"}
        kept = post(a, "/v1/memories", context=bob, text="Bob rows on Sundays").json()["id"]
        post(b, "/v1/memories/search", context=bob, query="rows")  # B caches Bob's silo
        owner = {"actor": OWNER, "surface": "dm"}
        assert post(a, "/v1/subjects/forget", context=owner, actor=BOB).status_code == 200
        assert post(b, f"/v1/memories/{kept}/get", context=bob).status_code == 404
        assert post(b, "/v1/memories/search", context=bob, query="rows").json()["hits"] == []
        # forget_subject on PostgreSQL ended in a master-key rotation; both servers follow it
        assert read_key_file(key_file) not in (first_key, second_key)

        # Traffic through both servers, with a key rotation from the CLI in the middle of it.
        tally, rotated, rotation = Tally(), threading.Event(), []

        def rotate_in_the_middle() -> None:
            try:
                tally.enough_for_rotation.wait()
                rotation.append(cli(env, "keys", "rotate", "--json").code)
            finally:
                rotated.set()  # the clients finish either way

        threads = [threading.Thread(target=rotate_in_the_middle)] + [
            threading.Thread(target=client, args=(n, (a, b), token, tally, rotated))
            for n in range(CLIENTS)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert rotation == [0]
        assert tally.errors == [], tally.errors[:10]
        assert tally.leaks == [], tally.leaks[:10]
        assert tally.requests >= CLIENTS * REQUESTS
        assert tally.hits_checked > 0 and tally.forgets_checked >= CLIENTS
        assert {"remember", "recall", "forget", "get", "stats"} <= tally.routes
    finally:
        codes = (a.stop(), b.stop())
    assert codes == (0, 0)
    for log in (a.output(), b.output()):
        assert "Traceback" not in log and "ERROR" not in log, log[-2000:]

"""Many processes on one SQLite file (issue 11, item 1): a real `confidante serve`, every
CLI command, `confidante mcp` over stdio and the demo against the same database at once, as
people run it. Every acknowledged write must be present afterwards, seen from the server
and from the CLI, and the server must never answer 500 (on the API or on /mcp) meanwhile.

Traffic is bounded by count: each writer makes its share of requests and goes on until the
commands beside it are done, however long a busy machine takes. The waits below are for
conditions; their limits (`HANG`) only stop a test that hangs.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from confidante import Context, Memory
from erasure_helpers import canary_of, fragments_found, read_all
from process_helpers import Done, Holder, Server, base_env, cli, serve

from conftest import OWNER

DM = ["--as", "discord:300", "--dm"]
HANG = 600  # seconds: a wait that long is a hang, not a slow machine


def _mcp_roundtrip(url: str, token: str, n: int) -> list[str]:
    """Write and search over /mcp with a pinned key; the ids it acknowledged."""

    async def main() -> list[str]:
        ids = []
        with anyio.fail_after(HANG):
            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
                streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, *_),
                ClientSession(read, write) as s,
            ):
                await s.initialize()
                for i in range(n):
                    r = await s.call_tool("memory_write", {"text": f"mcp line {i} about otters"})
                    assert not r.is_error, r
                    ids.append(r.structured_content["id"])
                    found = await s.call_tool("memory_search", {"query": "otters"})
                    assert not found.is_error, found
        return ids

    return anyio.run(main)


def _mcp_stdio(env: dict[str, str], n: int) -> Done:
    """A `confidante mcp` over stdio (as a desktop MCP client runs it) on the same file,
    pinned to one identity: writes and searches; the ids it acknowledged, as JSON."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "confidante", "mcp", "--as", "discord:401", "--dm"],
        env=env,
    )

    async def main() -> list[str]:
        ids = []
        with anyio.fail_after(HANG):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                for i in range(n):
                    r = await s.call_tool("memory_write", {"text": f"stdio line {i} on puffins"})
                    assert not r.is_error, r
                    ids.append(r.structured_content["id"])
                    found = await s.call_tool("memory_search", {"query": "puffins"})
                    assert not found.is_error, found
        return ids

    return Done(0, json.dumps(anyio.run(main)), "")


class ApiWriter(threading.Thread):
    """Writes (and searches) through the server's API: `at_least` writes, and on until
    stopped; every acknowledged id kept."""

    def __init__(self, server: Server, token: str, at_least: int = 20) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.headers = {"Authorization": f"Bearer {token}"}
        self.at_least = at_least
        self.acked: list[tuple[str, str]] = []  # (actor, id)
        self.failures: list[str] = []
        self.stop_flag = threading.Event()

    def finish(self) -> None:
        """Stop once `at_least` writes are made; wait for it."""
        self.stop_flag.set()
        self.join(HANG)
        assert not self.is_alive(), "the API writer hangs"

    def run(self) -> None:
        i = 0
        while i < self.at_least or not self.stop_flag.is_set():
            actor = f"discord:{500 + i % 7}"
            ctx = {"actor": actor, "surface": "dm"}
            try:
                r = self.server.client.post(
                    "/v1/memories",
                    json={"context": ctx, "text": f"api line {i} about herons"},
                    headers=self.headers,
                )
                if r.status_code == 201:
                    self.acked.append((actor, r.json()["id"]))
                else:
                    self.failures.append(f"write {r.status_code} {r.text[:200]}")
                s = self.server.client.post(
                    "/v1/memories/search",
                    json={"context": ctx, "query": "herons"},
                    headers=self.headers,
                )
                if s.status_code != 200:
                    self.failures.append(f"search {s.status_code} {s.text[:200]}")
            except Exception as e:  # a dropped connection is a failure too
                self.failures.append(f"{type(e).__name__}")
            i += 1


def test_serve_and_every_cli_command_on_one_file(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    env = base_env(tmp_path, CONFIDANTE_DB=str(db))
    assert cli(env, "init", "--json").code == 0
    token = cli(env, "keys", "add-agent", "bot", "--json").json()["token"]
    mcp_token = cli(env, "keys", "add-agent", "mcp-bot", "--as", "discord:400", "--dm", "--json")
    mcp_token = mcp_token.json()["token"]
    assert (
        cli(env, "dashboard", "set-password", "--password-stdin", stdin="x" * 12 + "\n").code == 0
    )
    seed = cli(env, "remember", "seed fact about kestrels", *DM, "--json").json()["id"]
    backup = tmp_path / "backup.db"
    jsonl = tmp_path / "lines.jsonl"
    jsonl.write_text("\n".join(json.dumps({"text": f"imported line {i}"}) for i in range(30)))

    server = serve(env, tmp_path / "serve.log")  # runs cleanup at start, like a real one
    writer = ApiWriter(server, token)
    writer.start()
    mcp_ids: list[str] = []
    mcp_thread = threading.Thread(
        target=lambda: mcp_ids.extend(_mcp_roundtrip(server.url, mcp_token, 25)), daemon=True
    )
    mcp_thread.start()

    cli_acked: list[str] = []
    forgotten: list[str] = []

    def remember(i: int) -> Done:
        d = cli(env, "remember", f"cli line {i} about wrens", *DM, "--json")
        if d.code == 0:
            cli_acked.append(d.json()["id"])
        return d

    def forget_one() -> Done:
        gone = cli(env, "remember", "to be forgotten soon", *DM, "--json").json()["id"]
        d = cli(env, "forget", gone, *DM, "--json")
        if d.code == 0:
            forgotten.append(gone)
        return d

    def server_audit() -> Done:
        # The audit reads the files; in the server's own process it once dropped the server's
        # SQLite locks, and the next CLI command deleted the WAL under it.
        r = server.client.post(
            "/v1/audit",
            json={"context": {"actor": OWNER, "surface": "dm"}},
            headers={"Authorization": f"Bearer {token}"},
        )
        return Done(0 if r.status_code == 200 else r.status_code, r.text, "")

    commands: list[tuple[str, Any]] = [
        ("server audit", server_audit),
        *[(f"remember {i}", lambda i=i: remember(i)) for i in range(6)],
        ("recall", lambda: cli(env, "recall", "wrens", *DM, "--json")),
        ("get", lambda: cli(env, "get", seed, *DM, "--json")),
        ("list", lambda: cli(env, "list", "--dashboard", "--json")),
        ("update", lambda: cli(env, "update", seed, "seed fact about falcons", *DM, "--json")),
        ("forget", forget_one),
        ("context", lambda: cli(env, "context", "wrens", *DM, "--json")),
        ("import", lambda: cli(env, "import", str(jsonl), "--as", "discord:301", "--dm")),
        (
            "forget-subject",
            lambda: cli(env, "forget-subject", "discord:999", "--as", OWNER, "--dm", "--json"),
        ),
        ("forget-guild", lambda: cli(env, "forget-guild", "g9", "--as", OWNER, "--dm", "--json")),
        ("log", lambda: cli(env, "log", "--as", OWNER, "--local", "--json")),
        ("stats", lambda: cli(env, "stats", "--json")),
        ("audit", lambda: cli(env, "audit", "--json")),
        ("cleanup", lambda: cli(env, "cleanup", "--json")),
        ("cleanup --history", lambda: cli(env, "cleanup", "--history", "--json")),
        ("keys rotate", lambda: cli(env, "keys", "rotate", "--json")),
        ("keys list-agents", lambda: cli(env, "keys", "list-agents", "--json")),
        ("keys add-agent", lambda: cli(env, "keys", "add-agent", "temp", "--json")),
        ("backup", lambda: cli(env, "backup", str(backup), "--json")),
        ("init again", lambda: cli(env, "init", "--json")),
        ("version", lambda: cli(env, "version")),
        ("config --show", lambda: cli(env, "config", "--show", "--json")),
        (
            "export",
            lambda: cli(
                env, "export", str(tmp_path / "out.jsonl"), "--as", OWNER, "--local", "--json"
            ),
        ),
        # plants canaries in every kind of partition, reads them from every context, scans
        # the files (from a child process) and erases them, all beside the running server
        ("selftest", lambda: cli(env, "selftest", "--json")),
        ("mcp over stdio", lambda: _mcp_stdio(env, 15)),
        ("demo", lambda: cli(env, "demo", "--json")),  # its own temporary database, meanwhile
    ]
    try:
        with ThreadPoolExecutor(max_workers=3) as pool:
            results = {name: f.result() for name, f in [(n, pool.submit(c)) for n, c in commands]}
        # Replacing the database under a running server is refused, with a code, and harmless.
        refused = cli(env, "restore", str(backup), "--force", "--json")
        revoked = cli(env, "keys", "revoke-agent", "temp", "--json")
        rotated_again = cli(env, "keys", "rotate", "--json")
        mcp_thread.join(HANG)
        assert not mcp_thread.is_alive(), "the MCP client hangs"
    finally:
        writer.finish()

    for name, done in results.items():
        assert done.code == 0, (name, done.out, done.err)
    assert refused.code != 0 and refused.json()["error"]["code"] == "database_in_use"
    assert revoked.code == 0 and rotated_again.code == 0
    assert not writer.failures, writer.failures[:5]
    assert len(writer.acked) >= writer.at_least and len(mcp_ids) == 25 and len(cli_acked) == 6

    headers = {"Authorization": f"Bearer {token}"}

    def server_sees(actor: str, fid: str) -> bool:
        r = server.client.post(
            f"/v1/memories/{fid}/get",
            json={"context": {"actor": actor, "surface": "dm"}},
            headers=headers,
        )
        return r.status_code == 200

    # Every acknowledged write, seen from the running server ...
    for actor, fid in writer.acked:
        assert server_sees(actor, fid)
    for fid in mcp_ids:
        assert server_sees("discord:400", fid)
    for fid in cli_acked:
        assert server_sees("discord:300", fid)
    stdio_ids = results["mcp over stdio"].json()
    assert len(stdio_ids) == 15
    for fid in stdio_ids:
        assert server_sees("discord:401", fid)
    for fid in forgotten:
        assert not server_sees("discord:300", fid)
    r = server.client.post(
        f"/v1/memories/{seed}/get",
        json={"context": {"actor": "discord:300", "surface": "dm"}},
        headers=headers,
    )
    assert r.json()["text"] == "seed fact about falcons"
    # ... and from the CLI, in another process, while the server still runs.
    listed = cli(env, "list", "--dashboard", "--json").json()["facts"]
    ids = {f["id"] for f in listed}
    assert {fid for _, fid in writer.acked} <= ids
    assert set(mcp_ids) <= ids and set(cli_acked) <= ids and not set(forgotten) & ids
    assert set(stdio_ids) <= ids
    assert sum(1 for f in listed if f["text"].startswith("imported line")) == 30

    assert server.stop() == 0
    assert "Traceback" not in server.output(), server.output()[-3000:]
    # After the server stopped: still all there, and the file is sound.
    listed = cli(env, "list", "--dashboard", "--json").json()["facts"]
    assert {fid for _, fid in writer.acked} <= {f["id"] for f in listed}
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    # The failed logins of that run are in the owner's log, counted, never a token.
    events = cli(env, "log", "--as", OWNER, "--local", "--json").json()["events"]
    assert any(e["code"] == "unauthenticated" for e in events)


def _until(done: Callable[[], bool], seconds: float = HANG) -> bool:
    """Wait for a condition; False if it never came (a hang)."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def _copied(db: Path, dest: Path) -> dict[str, bytes]:
    """The database's files as `cp`, another process, copies them."""
    dest.mkdir()
    found = [str(p) for p in db.parent.iterdir() if p.name.startswith(db.name)]
    subprocess.run(["cp", *found, str(dest)], check=True)
    return read_all(dest.iterdir())


def test_a_reader_holding_the_wal_stalls_neither_the_server_nor_the_cli(tmp_path: Path) -> None:
    """Another program holds a read snapshot (a backup script, the `sqlite3` shell) while the
    CLI forgets a fact and a running server keeps taking writes. The WAL cannot be truncated
    while the snapshot is held: the forget returns at once (pending, audited), the server
    never fails a request, and once the reader lets go the server's timer completes the
    erasure with nobody writing."""
    db = tmp_path / "memory.db"
    env = base_env(tmp_path, CONFIDANTE_DB=str(db), CONFIDANTE_EMBEDDER="none")
    assert cli(env, "init", "--json").code == 0
    token = cli(env, "keys", "add-agent", "bot", "--json").json()["token"]
    with Memory.open(db, owner_ids=[OWNER]) as m:
        fact = m.remember(Context.dm("discord:300"), "CANARY-stall quokka fiddle, to forget")
        canary = canary_of(m.store, fact.id)
        m.remember_many(Context.dm("discord:300"), [f"filler line {i}" for i in range(20)])
    server = serve(env, tmp_path / "serve.log")
    writer = ApiWriter(server, token)
    writer.start()
    holder = None
    try:
        assert _until(lambda: len(writer.acked) >= 3)
        holder = Holder(db, "read")
        forgot = cli(env, "forget", fact.id, *DM, "--json")
        assert forgot.code == 0, forgot.err
        during = len(writer.acked)
        assert _until(lambda: len(writer.acked) >= during + 10)  # the server goes on writing
        audit = cli(env, "audit", "--json").json()
        assert audit["erasure_pending"] >= 1 and not audit["ok"]
    finally:
        writer.finish()
    assert not writer.failures, writer.failures[:5]
    holder.release()
    copies = iter(range(1000))
    # Nobody writes now: the server's own timer truncates the WAL.
    assert _until(
        lambda: fragments_found(_copied(db, tmp_path / f"copy{next(copies)}"), canary) == []
    ), "the forgotten fact is still in the files"
    assert server.stop() == 0
    assert "Traceback" not in server.output()
    assert cli(env, "audit", "--json").json()["erasure_pending"] == 0


def test_a_write_lock_held_too_long_is_database_busy_never_a_500(tmp_path: Path) -> None:
    """Another program holds SQLite's write lock past the busy timeout: the server answers
    503 `database_busy` (nothing written, try again), the CLI exits with the same code, and
    both work again once it lets go."""
    db = tmp_path / "memory.db"
    env = base_env(
        tmp_path,
        CONFIDANTE_DB=str(db),
        CONFIDANTE_EMBEDDER="none",
        CONFIDANTE_BUSY_TIMEOUT_MS="300",
    )
    assert cli(env, "init", "--json").code == 0
    token = cli(env, "keys", "add-agent", "bot", "--json").json()["token"]
    server = serve(env, tmp_path / "serve.log")
    headers = {"Authorization": f"Bearer {token}"}
    body = {"context": {"actor": "discord:300", "surface": "dm"}, "text": "a line"}
    holder = Holder(db, "write")
    try:
        busy = server.client.post("/v1/memories", json=body, headers=headers)
        assert busy.status_code == 503, busy.text
        assert busy.json()["error"]["code"] == "database_busy"
        refused = cli(env, "remember", "a line", *DM, "--json")
        assert refused.code != 0 and refused.json()["error"]["code"] == "database_busy"
    finally:
        holder.release()
    assert server.client.post("/v1/memories", json=body, headers=headers).status_code == 201
    assert cli(env, "remember", "a line", *DM, "--json").code == 0
    assert server.stop() == 0
    assert "Traceback" not in server.output()

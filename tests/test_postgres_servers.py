"""Several servers on PostgreSQL (issue 11, item 4): two real `confidante serve` processes on
one database, no proxy between them. A write through one is visible through the other at
once, a forget through one is invisible through the other at once, and a short load run
(the full one is `benchmarks/load.py`) has no error and no leak, while a key rotation from
the CLI happens in the middle of it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from confidante.vault.crypto import new_key, read_key_file, write_key_file
from process_helpers import base_env, cli, serve

from conftest import ALICE, BOB, OWNER

LOAD = Path(__file__).resolve().parents[1] / "benchmarks" / "load.py"


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
        deadline = time.monotonic() + 30
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

        # A short load through both servers, with a key rotation from the CLI in the middle.
        rotation: list[int] = []

        def rotate_later() -> None:
            time.sleep(1.5)
            rotation.append(cli(env, "keys", "rotate", "--json").code)

        rotator = threading.Thread(target=rotate_later)
        rotator.start()
        run = subprocess.run(
            [sys.executable, str(LOAD), "--url", a.url, "--url", b.url, "--token", token,
             "--clients", "10", "--seconds", "6", "--users", "100", "--json"],
            capture_output=True, text=True, timeout=180,
        )  # fmt: skip
        rotator.join(timeout=120)
        assert run.returncode == 0, run.stderr
        result = json.loads(run.stdout)
        assert rotation == [0]
        assert result["errors"] == 0, result["error_samples"]
        assert result["leaks"] == 0, result["leak_samples"]
        # Enough traffic to mean something even on a busy 2-core machine.
        assert result["hits_checked"] > 20 and result["forgets_checked"] > 2
        assert {"remember", "recall", "forget", "get"} <= set(result["routes"])
    finally:
        codes = (a.stop(), b.stop())
    assert codes == (0, 0)
    for log in (a.output(), b.output()):
        assert "Traceback" not in log and "ERROR" not in log, log[-2000:]

"""`confidante selftest`: passes on a sound deployment (SQLite, PostgreSQL, a running server),
fails on a database where a canary sits in the wrong partition, and leaves nothing behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from confidante import Context, Memory, policy
from confidante.model import Scope
from confidante.services.credentials import AgentKeys
from confidante.services.selftest import MARKER, HttpTarget, LibraryTarget, run_selftest
from confidante.vault.records import seal_fact
from surfaces_helpers import live_server

from conftest import ALICE, OWNER


def test_selftest_passes_and_cleans_up(mem: Memory) -> None:
    mem.remember(Context.dm(ALICE), "Alice keeps bees")  # a deployment with data in it
    before = mem.store.count_facts()
    report = run_selftest(LibraryTarget(mem))
    assert report.ok, (report.leaks, report.faults)
    names = {(r["probe"], r["operation"]) for r in report.rows}
    assert ("a stranger, in a DM", "prompt context") in names
    assert ("general dashboard", "list") in names and len(names) == 50
    assert mem.store.count_facts() == before  # every canary is gone
    assert not [f for f in mem.list(Context.local(OWNER)) if MARKER in f.text]
    assert report.removed["still_there"] == []
    if hasattr(mem.store, "path"):  # SQLite: the files were scanned (from a child process)
        assert report.files == {"ok": True, "checked": True, "files": {}}
    else:
        assert report.files["checked"] is False


def _plant_in_wrong_partition(mem: Memory, audience: str) -> None:
    """A canary written for `audience`, sealed with the right keys into the global partition
    (which every context reads): what a bug in the write path would do."""
    fact = mem.remember(Context.dm(OWNER), f"{MARKER} {audience} zorunbefa wrongly placed", "owner")
    row = mem.store.get_fact(fact.id)
    assert row is not None
    opened = mem.decrypt(row)
    assert opened is not None
    mem.store.delete_facts([fact.id])
    global_pid = policy.write_partition(policy.WriteTarget(Scope.GLOBAL), mem.keys.key).id
    found = mem.keys.current(global_pid, "global", create=True)
    assert found is not None
    wrapped, dk = found
    moved = replace(row, partition_id=global_pid, scope="global", subject_key=None)
    sealed = seal_fact(dk, moved, replace(opened.fact, scope=Scope.GLOBAL))
    mem.store.insert_facts([sealed], {global_pid: wrapped})
    mem.invalidate()


def test_selftest_fails_on_a_canary_in_the_wrong_partition(mem: Memory) -> None:
    _plant_in_wrong_partition(mem, "ownerpart")
    report = run_selftest(LibraryTarget(mem))
    assert not report.ok
    leaked_to = {leak["probe"] for leak in report.leaks}
    assert {"a stranger, in a DM", "member of community A", "a background task"} <= leaked_to
    assert all(leak["canary"] == "ownerpart" for leak in report.leaks)


def test_selftest_against_a_running_server(db_path: Path, key: bytes) -> None:
    mem = Memory.open(db_path, owner_ids=[OWNER], master_key=key)
    with live_server(mem) as live:
        token = AgentKeys(mem).add("selftest")
        report = run_selftest(HttpTarget(live.url, token, OWNER))
        assert report.ok, (report.leaks, report.faults)
        # agents speak only from chat contexts: no dashboard or local probes over HTTP
        assert {r["probe"] for r in report.rows}.isdisjoint({"general dashboard"})
        assert report.files["checked"] is False
        _plant_in_wrong_partition(mem, "silopart")
        bad = run_selftest(HttpTarget(live.url, token, OWNER))
        assert not bad.ok and {leak["canary"] for leak in bad.leaks} == {"silopart"}
    mem.close()


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "confidante", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_selftest_cli_exit_codes(tmp_path: Path, key: bytes) -> None:
    db = tmp_path / "memory.db"
    mem = Memory.open(db, owner_ids=[OWNER])
    mem.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")}
    env |= {"CONFIDANTE_DB": str(db), "CONFIDANTE_OWNER_IDS": OWNER}
    ok = _cli(env, "selftest", "--json")
    assert ok.returncode == 0, ok.stderr + ok.stdout
    assert json.loads(ok.stdout)["ok"] is True
    with Memory.open(db, owner_ids=[OWNER]) as mem:
        _plant_in_wrong_partition(mem, "alphapart")
    bad = _cli(env, "selftest")
    assert bad.returncode == 1
    assert "LEAK" in bad.stdout and "selftest FAILED" in bad.stdout

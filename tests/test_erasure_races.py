"""Erasure racing a master-key rotation in another process (PostgreSQL).

A rotation reads every live wrapped key, re-wraps it under the new master key and writes it
back. A `forget_subject` in another process that destroys one of those keys in between must
stay destroyed: a rotation that wrote the old key back, re-wrapped under the *current* master
key, would make every dead tuple of the forgotten partition readable again, and the erasure
would be reported complete.

Checked the way an attacker would: the schema's files and the WAL written during the test are
copied, every 61-byte blob in them is tried as a wrapping of a forgotten partition's key under
the current master key, and every copy of the canary found is tried with what opened.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psycopg
import pytest

from confidante import Context, Memory
from confidante.config import Settings
from confidante.vault.crypto import new_key, read_key_file, write_key_file
from erasure_helpers import canary_of, cluster_files, copies_found, opens, wrappings_opening

from conftest import ALICE, OWNER

SECRET = "CANARY-race-71c0 quince marimba"
HANG = 600  # seconds: a wait that long is a hang, not a slow machine


@pytest.fixture
def pg(pg_url: str, tmp_path: Path):
    """(url, settings with a shared key file, admin connection, schema)."""
    con = psycopg.connect(pg_url, autocommit=True)
    data = Path(con.execute("SHOW data_directory").fetchone()[0])
    if not os.access(data / "pg_wal", os.R_OK):
        con.close()
        pytest.skip("the PostgreSQL data directory is not readable here")
    schema = con.execute("SELECT current_schema()").fetchone()[0]
    key_file = tmp_path / "keys" / "master.key"
    write_key_file(key_file, new_key())
    yield pg_url, Settings(key_file=key_file, embedder="none"), con, schema
    con.close()


def _argv(url: str, key_file: Path, body: str) -> list[str]:
    """A second process opening the same database with the same key file."""
    code = textwrap.dedent(
        f"""
        import sys, time, json
        from pathlib import Path
        from confidante import Context, Memory, policy
        from confidante.config import Settings
        m = Memory.open({url!r}, owner_ids=[{OWNER!r}],
                        settings=Settings(key_file=Path({str(key_file)!r}), embedder="none"))
        """
    ) + textwrap.dedent(body)
    return [sys.executable, "-c", code]


def _child(url: str, key_file: Path, body: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*_argv(url, key_file, body), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _assert_erased(con, schema: str, since: float, key_file: Path, pids, canaries=()) -> None:
    files = cluster_files(con, schema, since)
    master = read_key_file(key_file)
    keys = wrappings_opening(files, master, pids)
    assert keys == [], f"{len(keys)} destroyed data keys open under the current master key"
    for c in canaries:
        assert copies_found(files, c), "the dead tuple should still be on disk"
        assert not opens(copies_found(files, c), keys, c.aad)


def test_a_rotation_in_progress_does_not_bring_a_destroyed_key_back(pg) -> None:
    """Forced interleaving: this process's rotation has read the partitions (and holds the
    key-change lock) when another process erases Alice; the rotation then writes back."""
    url, s, con, schema = pg
    since = time.time()
    m = Memory.open(url, owner_ids=[OWNER], settings=s)
    try:
        canary = canary_of(m.store, m.remember(Context.dm(ALICE), SECRET).id)
        m.remember(Context.dm("discord:77"), "someone else's line")
        space = m.store._space  # type: ignore[attr-defined]
        reached, resume = threading.Event(), threading.Event()
        rewrap = m.store.rewrap

        def paused_rewrap(*a, **kw):
            reached.set()
            assert resume.wait(HANG)
            return rewrap(*a, **kw)

        m.store.rewrap = paused_rewrap  # type: ignore[method-assign]
        other = _child(
            url,
            s.key_file,
            f"""
            m.list(Context.dm({OWNER!r}))
            print("open", flush=True)
            sys.stdin.readline()
            print(json.dumps(m.forget_subject(Context.dm({OWNER!r}), {ALICE!r})), flush=True)
            m.close()
            """,
        )
        assert other.stdout.readline() == "open\n"
        rotation = threading.Thread(target=m.rotate_master_key)
        rotation.start()
        assert reached.wait(HANG)
        other.stdin.write("go\n")
        other.stdin.flush()
        # Let the other process run its erasure, or wait for a lock the rotation holds; then
        # let the rotation finish.
        deadline = time.monotonic() + HANG
        while other.poll() is None and time.monotonic() < deadline:
            (waiting,) = con.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                "AND objid::int = %s",
                (space,),
            ).fetchone()
            if waiting:
                break
            time.sleep(0.05)
        resume.set()
        rotation.join(HANG)
        assert not rotation.is_alive(), "the rotation hangs"
        _, err = other.communicate(timeout=HANG)
        assert other.returncode == 0, err[-2000:]
        m.store.rewrap = rewrap  # type: ignore[method-assign]

        (part,) = m.store.get_partitions([canary.partition_id])
        assert part.wrapped_key is None, "the destroyed key was written back"
        assert m.erasure_pending() == 0
        assert m.list(Context.dm(ALICE)) == []
        assert [f.text for f in m.list(Context.dm("discord:77"))] == ["someone else's line"]
    finally:
        m.close()
    _assert_erased(con, schema, since, s.key_file, [canary.partition_id], [canary])


# Each of the two processes does its count of work, then goes on until the other has done
# its own: they overlap however the machine schedules them, and both stop by count. A file
# in the shared folder (argv[2]) says "mine is done" (argv[3]) to the other (argv[4]).
_OVERLAP = """
folder, me, other = Path(sys.argv[2]), sys.argv[3], sys.argv[4]
def more(done, count):
    if done == count:
        (folder / me).touch()
    return done < count or not (folder / other).exists()
"""

ROTATOR = (
    _OVERLAP
    + """
n = 0
while more(n, int(sys.argv[1])):
    m.rotate_master_key()
    n += 1
print(n, flush=True)
m.close()
"""
)

FORGETTER = (
    _OVERLAP
    + """
pids = []
while more(len(pids), int(sys.argv[1])):
    actor = f"discord:{5000 + len(pids)}"
    m.remember(Context.dm(actor), "canary line of " + actor)
    m.forget_subject(Context.dm("discord:1"), actor)
    pids.append(policy.user_partition(actor, m.keys.key).id)
print(json.dumps(pids), flush=True)
m.close()
"""
)

ROTATIONS, ERASURES = 3, 10


def test_rotations_and_erasures_in_two_processes(pg, tmp_path: Path) -> None:
    """No forced interleaving: one process rotates the master key in a loop (as `keys rotate`
    and the servers' erasure rounds do) on a database with a few hundred partitions, while
    another forgets one person after another. Every destroyed key stays destroyed."""
    url, s, con, schema = pg
    since = time.time()
    with Memory.open(url, owner_ids=[OWNER], settings=s) as m:
        for i in range(300):  # partitions make each rotation take a while
            m.remember(Context.dm(f"discord:{9000 + i}"), f"filler line {i}")

    done = str(tmp_path)
    rotator = _child(url, s.key_file, ROTATOR, str(ROTATIONS), done, "rotator", "forgetter")
    forgetter = _child(url, s.key_file, FORGETTER, str(ERASURES), done, "forgetter", "rotator")
    r_out, r_err = rotator.communicate(timeout=HANG)
    f_out, f_err = forgetter.communicate(timeout=HANG)
    assert rotator.returncode == 0, r_err[-2000:]
    assert forgetter.returncode == 0, f_err[-2000:]
    pids = json.loads(f_out)
    assert int(r_out) >= ROTATIONS and len(pids) >= ERASURES  # both did their share
    with Memory.open(url, owner_ids=[OWNER], settings=s) as m:
        alive = [p.id for p in m.store.get_partitions(pids) if p.wrapped_key is not None]
        assert alive == [], f"{len(alive)} of {len(pids)} destroyed keys are live again"
        assert m.erasure_pending() == 0
        assert len(m.list(Context.dashboard())) == 300
    _assert_erased(con, schema, since, s.key_file, pids)

"""Erasure against a copy of every file (issue 11, item 2).

The attacker later obtains every file (the database, `-wal`, `-shm`, the key file, backups
taken after the erasure; for PostgreSQL the cluster's data directory and `pg_wal`) *and the
current master key*. A forgotten, overwritten or purged fact must not come back: its
ciphertext is looked for in every file, and every copy found is tried with every key the
attacker can still obtain.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from confidante import Context, Memory
from confidante.config import Settings
from confidante.services.lifecycle import complete_erasure, erasure_pending
from confidante.store.sqlite import RETRY_SECONDS
from confidante.vault.crypto import key_file_for, new_key, read_key_file, write_key_file
from erasure_helpers import (
    Canary,
    canary_of,
    cluster_files,
    copies_found,
    fragments_found,
    opens,
    read_all,
    unwrap_all,
    wrappings_opening,
)

from conftest import ALICE, BOB, CAROL, OWNER, Clock

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SECRET = "CANARY-erase-3f9c1 periwinkle harmonica"

# A second process that reads the database as a server would (its own memory, with the
# canary decrypted in its cache), and as an outside tool does: a read transaction held open
# on a plain SQLite connection (a backup script, the `sqlite3` shell), which keeps the WAL
# from being truncated while it lasts.
READER = textwrap.dedent(
    """
    import sqlite3, sys
    from confidante import Context, Memory
    m = Memory.open(sys.argv[1], owner_ids=["discord:1"])
    raw = sqlite3.connect(sys.argv[1], isolation_level=None)
    print("ready", flush=True)
    for line in sys.stdin:
        if line == "read\\n":
            m.recall(Context.dm("discord:42"), "harmonica")
            m.list(Context.dashboard())
        elif line == "hold\\n":
            raw.execute("BEGIN")
            raw.execute("SELECT count(*) FROM memory_facts").fetchall()
        elif line == "holding?\\n":
            print("yes" if raw.in_transaction else "no", flush=True)
            continue
        elif line == "release\\n":
            raw.execute("COMMIT")
        print("ok", flush=True)
    raw.close()
    m.close()
    """
)


class Reader:
    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", READER, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "CONFIDANTE_EMBEDDER": "none"},
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline() == "ready\n"

    def _say(self, line: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def read(self) -> None:
        assert self._say("read") == "ok"

    def hold(self) -> None:
        """Begin a read transaction and keep it open (an older snapshot, once others write)."""
        assert self._say("hold") == "ok"

    def holding(self) -> bool:
        return self._say("holding?") == "yes"

    def release(self) -> None:
        assert self._say("release") == "ok"

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=30) == 0


def copy_out(folder: Path, dest: Path) -> dict[str, bytes]:
    """Every file under `folder`, as an attacker copies them: by another process (`cp`), never
    opened here, where open SQLite connections would lose their locks on the originals."""
    subprocess.run(["cp", "-a", str(folder), str(dest)], check=True)
    return read_all(p for p in dest.rglob("*"))


_copies = iter(range(1_000_000))


def _assert_gone(folder: Path, canaries: list[Canary], m: Memory, extra_keys=()) -> None:
    """Nothing of the canaries in any file; nothing found opens with any key left (the master
    key in the copied key file, and every data key it unwraps)."""
    dest = folder.parent / f"{folder.name}-copy{next(_copies)}"
    files = copy_out(folder, dest)
    assert files, "no files to inspect"
    key_file = key_file_for(m.store.path)  # type: ignore[attr-defined]
    master = read_key_file(dest / key_file.relative_to(folder))
    live = [(p.id, p.wrapped_key) for p in m.store.partitions() if p.wrapped_key]
    keys = unwrap_all(master, live) + list(extra_keys)
    for c in canaries:
        assert fragments_found(files, c) == []
        assert not opens(copies_found(files, c), keys, c.aad)
    for blob in files.values():
        assert SECRET.encode() not in blob
        assert b"periwinkle" not in blob


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def sqlite_mem(tmp_path: Path, clock: Clock):
    db = tmp_path / "data" / "memory.db"
    s = Settings(archive_grace_days=1)
    m = Memory.open(db, owner_ids=[OWNER], clock=clock, settings=s)  # key file beside it
    yield m
    m.close()


def _fill(m: Memory, n: int = 40) -> None:
    m.remember_many(Context.dm(ALICE), [f"alice note {i} about the garden" for i in range(n)])
    m.remember_many(Context.dm(BOB), [f"bob note {i} about trains" for i in range(n)])


def test_sqlite_forget_and_update_leave_no_copy(sqlite_mem: Memory, tmp_path: Path) -> None:
    m = sqlite_mem
    db = m.store.path  # type: ignore[attr-defined]
    _fill(m)
    forgotten = m.remember(Context.dm(ALICE), SECRET)
    rewritten = m.remember(Context.dm(ALICE), SECRET + " (to be rewritten)")
    before = [canary_of(m.store, forgotten.id), canary_of(m.store, rewritten.id)]
    reader = Reader(db)
    try:
        reader.read()  # the other process has the canary decrypted in its cache
        m.forget(Context.dm(ALICE), forgotten.id)
        reader.read()
        m.update(Context.dm(ALICE), rewritten.id, "now about tulips")
        reader.read()
        m.backup(tmp_path / "data" / "backup-after.db")
        _assert_gone(tmp_path, before, m)  # copied while both processes still run
    finally:
        reader.stop()
    assert m.get(Context.dm(ALICE), rewritten.id).text == "now about tulips"
    assert len(m.list(Context.dm(ALICE))) == 41


def _reopen(db: Path) -> None:
    """Another process opens the database (and does nothing else)."""
    code = f"from confidante import Memory; Memory.open({str(db)!r}, owner_ids=['discord:1'])"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize(
    "completed_by", ["a later write", "complete_erasure", "another process opening", "close"]
)
def test_sqlite_a_reader_holding_the_wal_delays_erasure_but_never_loses_it(
    sqlite_mem: Memory, tmp_path: Path, clock: Clock, completed_by: str
) -> None:
    """A reader in another process holds a snapshot from before the forget, so the WAL cannot
    be truncated: the old page images stay. The forget still returns (it does not wait for
    the reader), the erasure is reported pending (and fails the audit) for as long as the
    reader holds on, and it completes after: no copy of the files has the fact."""
    m = sqlite_mem
    db = m.store.path  # type: ignore[attr-defined]
    _fill(m)
    forgotten = m.remember(Context.dm(ALICE), SECRET)
    canary = canary_of(m.store, forgotten.id)
    reader = Reader(db)
    try:
        reader.hold()
        m.remember(Context.dm(BOB), "a line written after the reader's snapshot")
        m.forget(Context.dm(ALICE), forgotten.id)
        assert reader.holding()  # the forget returned while the reader held on
        assert m.erasure_pending() >= 1
        audit = m.audit()
        assert not audit["ok"] and audit["erasure_pending"] >= 1
        assert {c["name"]: c["ok"] for c in audit["checks"]}["erasure"] is False
        assert m.complete_erasure()["erasure_pending"] >= 1  # still held: still pending
        reader.release()
    finally:
        reader.stop()
    if completed_by == "a later write":
        time.sleep(RETRY_SECONDS + 0.2)  # (not every write retries: at most once a second)
        m.remember(Context.dm(BOB), "an ordinary line, later")
    elif completed_by == "complete_erasure":
        assert m.complete_erasure() == {}
    elif completed_by == "another process opening":
        _reopen(db)
    else:
        m.close()
    if completed_by != "close":
        assert m.erasure_pending() == 0 and m.audit()["ok"]
    with Memory.open(db, owner_ids=[OWNER], clock=clock) as again:
        _assert_gone(tmp_path, [canary], again)
        assert again.erasure_pending() == 0
        assert len(again.list(Context.dm(ALICE))) == 40


def test_sqlite_forget_subject_leaves_no_copy(sqlite_mem: Memory, tmp_path: Path) -> None:
    m = sqlite_mem
    _fill(m)
    mine = [
        m.remember(Context.dm(ALICE), SECRET),
        m.remember(Context.dm(ALICE), SECRET + " in session", "session"),
        m.remember(Context.dm(OWNER), SECRET + " (owner's note)", f"user:{ALICE}"),
    ]
    community = m.remember(Context.guild(ALICE, "g1"), "the g1 picnic moved to the lake")
    before = [canary_of(m.store, f.id) for f in [*mine, community]]  # its old one named her
    old_wrapped = [(p.id, p.wrapped_key) for p in m.store.partitions() if p.wrapped_key]
    old_keys = unwrap_all(read_key_file(key_file_for(m.store.path)), old_wrapped)
    m.forget_subject(Context.dm(ALICE), ALICE)
    m.backup(tmp_path / "data" / "backup-after.db")
    # The partition keys that sealed her rows are destroyed; only the community's remains,
    # and its fact was sealed again (without her) under it.
    _assert_gone(tmp_path, before, m)
    live = {p.id for p in m.store.partitions() if p.wrapped_key}
    assert {c.partition_id for c in before[:3]}.isdisjoint(live)
    assert old_keys  # (they existed before)
    kept = m.get(Context.guild(BOB, "g1"), community.id)
    assert kept.author is None and kept.text == "the g1 picnic moved to the lake"


def test_sqlite_cleanup_purge_leaves_no_copy(
    sqlite_mem: Memory, tmp_path: Path, clock: Clock
) -> None:
    m = sqlite_mem
    _fill(m)
    short = m.remember(Context.dm(ALICE), SECRET, ttl=timedelta(hours=1))
    canary = canary_of(m.store, short.id)
    clock.advance(hours=2)
    assert m.cleanup()["archived"] == 1  # encrypted archive for the grace period
    clock.advance(days=2)
    assert m.cleanup()["purged"] == 1
    m.backup(tmp_path / "data" / "backup-after.db")
    _assert_gone(tmp_path, [canary], m)


# --- PostgreSQL: the cluster's own files -------------------------------------------------------


@pytest.fixture
def pg_admin(pg_url: str):
    con = psycopg.connect(pg_url, autocommit=True)
    try:
        data = Path(con.execute("SHOW data_directory").fetchone()[0])
        if not os.access(data / "pg_wal", os.R_OK):
            pytest.skip("the PostgreSQL data directory is not readable here")
    except psycopg.Error:
        pytest.skip("cannot inspect the PostgreSQL data directory")
    yield con
    con.close()


def test_postgres_erasure_ends_in_key_destruction(
    pg_url: str, pg_admin: psycopg.Connection, tmp_path: Path
) -> None:
    """PostgreSQL keeps the old tuples and WAL: the canary's ciphertext is still on disk after
    the erasure. What must hold is that nothing can open it: its partition's data key was
    replaced and the master key rotated, so the old data key exists only wrapped under a
    master key that is stored nowhere any more. The keys tried are the attacker's: every
    wrapping in the cluster's files (live rows, dead tuples, WAL) that the current master key
    opens, for every partition named there."""
    since = time.time()
    schema = pg_admin.execute("SELECT current_schema()").fetchone()[0]
    key_file = tmp_path / "keys" / "master.key"
    old_master = new_key()
    write_key_file(key_file, old_master)
    clock = Clock(datetime.now(UTC))
    s = Settings(key_file=key_file, archive_grace_days=1)
    m = Memory.open(pg_url, owner_ids=[OWNER], settings=s, clock=clock)
    # A copy taken before any vacuum: autovacuum (on its own schedule, sooner on a busy
    # cluster) would compact the old tuples away and leave this test proving nothing.
    for (table,) in pg_admin.execute(
        "SELECT relname FROM pg_class WHERE relnamespace = %s::regnamespace AND relkind = 'r'",
        (schema,),
    ).fetchall():
        pg_admin.execute(
            psycopg.sql.SQL(
                "ALTER TABLE {} SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)"
            ).format(psycopg.sql.Identifier(schema, table))
        )
    try:
        m.remember_many(Context.dm(ALICE), [f"alice note {i}" for i in range(20)])
        forgotten = m.remember(Context.dm(ALICE), SECRET)
        rewritten = m.remember(Context.dm(ALICE), SECRET + " (rewritten)")
        subject = m.remember(Context.dm(BOB), SECRET + " bob's")
        expiring = m.remember(Context.dm(CAROL), SECRET + " carol's", ttl=timedelta(hours=1))
        m.remember(Context.dm(CAROL), "carol stays")
        canaries = [canary_of(m.store, f.id) for f in (forgotten, rewritten, subject, expiring)]

        m.forget(Context.dm(ALICE), forgotten.id)
        m.update(Context.dm(ALICE), rewritten.id, "about tulips now")
        assert erasure_pending(m) == 1  # not yet: a copy of the files would still give it up
        report = complete_erasure(m)  # what `serve` runs on its schedule
        assert report == {"partitions_rekeyed": 1, "master_key_rotated": 1}
        m.forget_subject(Context.dm(BOB), BOB)  # completes its erasure at once
        assert erasure_pending(m) == 0
        clock.advance(hours=2)
        assert m.cleanup()["archived"] == 1
        clock.advance(days=2)
        purge = m.cleanup()  # purges, then completes the erasure it caused
        assert purge["purged"] == 1 and purge["master_key_rotated"] == 1
        assert erasure_pending(m) == 0
        pids = [p.id for p in m.store.partitions()]  # (their ids are plaintext in the files)

        files = cluster_files(pg_admin, schema, since)
        current = read_key_file(key_file)
        assert current != old_master
        assert not (key_file.parent / "master.key.new").exists()
        for blob in read_all(key_file.parent.iterdir()).values():
            assert base64.b64encode(old_master) not in blob
        keys = wrappings_opening(files, current, pids)
        assert keys, "the live partitions' wrappings should open (else the scan proves nothing)"
        found = 0
        for c in canaries:
            copies = copies_found(files, c)
            found += len(copies)
            assert not opens(copies, keys, c.aad)
        assert found, "the old tuples should still be on disk (else this test proves nothing)"
        # the data keys that sealed them are in the files, under the retired key only (so the
        # scan does find such wrappings: it would have found them under the current key)
        old_keys = wrappings_opening(files, old_master, pids)
        assert any(opens(copies_found(files, c), old_keys, c.aad) for c in canaries)
        assert m.get(Context.dm(ALICE), rewritten.id).text == "about tulips now"
        assert len(m.list(Context.dm(ALICE))) == 21
        assert [f.text for f in m.list(Context.dm(CAROL))] == ["carol stays"]
    finally:
        m.close()
    with Memory.open(pg_url, owner_ids=[OWNER], settings=s, clock=clock) as again:
        assert len(again.list(Context.dm(ALICE))) == 21


def test_postgres_with_a_given_key_reports_pending_erasure(pg_url: str, key: bytes) -> None:
    """A master key given in the environment cannot be rotated for every server from here:
    the erasure is reported pending (and audited), never claimed."""
    with Memory.open(pg_url, owner_ids=[OWNER], master_key=key) as m:
        f = m.remember(Context.dm(ALICE), SECRET)
        m.forget(Context.dm(ALICE), f.id)
        report = m.forget_subject(Context.dm(OWNER), ALICE)
        assert report["erasure_pending"] >= 1
        audit = m.audit()
        assert audit["erasure_pending"] >= 1 and not audit["ok"]


def test_postgres_erasure_that_cannot_rotate_stays_pending(pg_url: str, tmp_path: Path) -> None:
    """If the key file cannot be replaced (here its lock file is blocked), the person is still
    forgotten, the call still succeeds, and the erasure is reported pending, not claimed."""
    key_file = tmp_path / "keys" / "master.key"
    write_key_file(key_file, new_key())
    (key_file.parent / "master.key.lock").mkdir()  # cannot be opened as the lock file
    with Memory.open(pg_url, owner_ids=[OWNER], settings=Settings(key_file=key_file)) as m:
        f = m.remember(Context.dm(ALICE), SECRET)
        report = m.forget_subject(Context.dm(OWNER), ALICE)
        assert report["erasure_pending"] >= 1 and "master_key_rotated" not in report
        assert m.store.get_fact(f.id) is None and m.erasure_pending() >= 1
        (key_file.parent / "master.key.lock").rmdir()
        assert m.complete_erasure()["master_key_rotated"] == 1  # the next round completes it
        assert m.erasure_pending() == 0

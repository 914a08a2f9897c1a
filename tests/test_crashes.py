"""Crashes (issue 11, item 6): a process SIGKILLed in the middle of a write burst, a key
rotation, a cleanup or a person's erasure, on SQLite and PostgreSQL.

Each victim is a real child process (forked, so it starts in milliseconds) that opens the
memory itself and is killed with SIGKILL: asynchronously in the middle of a burst, and at
chosen points inside the other operations (the Nth SQL statement, or just before the key
file is renamed), where a crash hurts most. Afterwards the database must open with a key
that works, hold every acknowledged write, and no person may be half forgotten.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sqlite3
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from confidante import Context, Memory
from confidante.config import Settings
from confidante.store.sql import SqlStore
from confidante.store.sqlite import SQLiteStore
from confidante.vault.crypto import new_key, write_key_file
from confidante.vault.keyfile import KeyFile
from erasure_helpers import canary_of, fragments_found, read_all

from conftest import ALICE, BOB, OWNER

FORK = mp.get_context("fork")
T0 = datetime(2026, 5, 1, 8, 0, tzinfo=UTC)
HANG = 600  # seconds: a child that takes this long hangs; it is no measure


@pytest.fixture
def target(backend: str, tmp_path: Path) -> tuple[str, Settings]:
    """The database and settings every process (victim and survivor) opens it with: the
    master key comes from a key file, as a deployment that rotates keys has it."""
    if backend.startswith("postgresql"):
        key_file = tmp_path / "master.key"
        write_key_file(key_file, new_key())
        return backend, Settings(key_file=key_file, embedder="none")
    return backend, Settings(embedder="none")  # key file beside the database


def _open(t: tuple[str, Settings], **kw: Any) -> Memory:
    return Memory.open(t[0], owner_ids=[OWNER], settings=t[1], **kw)


# Where to die: the Nth SQL statement from now, or the Nth statement containing a piece of
# SQL (so the point keeps its meaning when the statements around it change).
KillPoint = int | tuple[str, int] | None


def _kill_at(statement: KillPoint, before_rename: bool, before_truncate: bool = False) -> None:
    """In the child: SIGKILL itself at a statement, just before the key file rename that ends
    a rotation, or just before the WAL truncate that follows an erasing commit (SQLite)."""
    me = os.getpid()
    count = [0]
    real_q = SqlStore._q

    def q(self: SqlStore, sql: str, params: Any = ()) -> Any:
        if isinstance(statement, tuple):
            count[0] += statement[0] in " ".join(sql.split())
            if count[0] == statement[1]:
                os.kill(me, signal.SIGKILL)
        elif statement is not None:
            count[0] += 1
            if count[0] == statement:
                os.kill(me, signal.SIGKILL)
        return real_q(self, sql, params)

    SqlStore._q = q  # type: ignore[method-assign]
    if before_rename:
        KeyFile.commit = lambda self, key: os.kill(me, signal.SIGKILL)  # type: ignore[method-assign]
    if before_truncate:
        SQLiteStore.checkpoint = lambda self: os.kill(me, signal.SIGKILL)  # type: ignore[method-assign]


def _victim(
    t: tuple[str, Settings],
    op: Callable[[Memory, Any], None],
    statement: KillPoint,
    before_rename: bool,
    out: Any,
    now: datetime | None = None,
    before_truncate: bool = False,
) -> None:
    m = _open(t, clock=(lambda: now) if now else None)
    _kill_at(statement, before_rename, before_truncate)
    out.send("start")
    op(m, out)
    out.send("done")
    os._exit(0)


def _run(
    t: tuple[str, Settings],
    op: Callable[[Memory, Any], None],
    *,
    statement: KillPoint = None,
    before_rename: bool = False,
    before_truncate: bool = False,
    now: datetime | None = None,
) -> list[Any]:
    """Run `op` in a child process killed as asked; what it sent before dying."""
    recv, send = FORK.Pipe(duplex=False)
    p = FORK.Process(
        target=_victim, args=(t, op, statement, before_rename, send, now, before_truncate)
    )
    p.start()
    send.close()
    got = []
    try:
        while True:
            got.append(recv.recv())
    except EOFError:
        pass
    p.join(HANG)
    assert p.exitcode in (0, -signal.SIGKILL), p.exitcode
    return got


def _integrity(t: tuple[str, Settings]) -> None:
    if not t[0].startswith("postgresql"):
        con = sqlite3.connect(t[0])
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        con.close()


def _files(t: tuple[str, Settings], dest: Path) -> dict[str, bytes]:
    """Copies of the SQLite database's files, made by another process (`cp`) while this one
    may hold a connection to them."""
    dest.mkdir()
    db = Path(t[0])
    found = [str(p) for p in db.parent.iterdir() if p.name.startswith(db.name)]
    subprocess.run(["cp", *found, str(dest)], check=True)
    return read_all(dest.iterdir())


# --- a burst of writes ---------------------------------------------------------------------------


def _burst(m: Memory, out: Any) -> None:
    for i in range(100_000):
        facts = m.remember_many(
            Context.dm(f"discord:{700 + i % 9}"), [f"burst {i} a", f"burst {i} b"]
        )
        out.send([f.id for f in facts])


def test_sigkill_in_the_middle_of_a_burst(target: tuple[str, Settings]) -> None:
    _open(target).close()
    recv, send = FORK.Pipe(duplex=False)
    p = FORK.Process(target=_victim, args=(target, _burst, None, False, send))
    p.start()
    send.close()
    acked: list[str] = []
    assert recv.recv() == "start"
    while len(acked) < 120:
        acked += recv.recv()
    os.kill(p.pid, signal.SIGKILL)  # whatever it was doing
    p.join(HANG)
    assert p.exitcode == -signal.SIGKILL
    with _open(target) as m:
        stored = {f.id for f in m.list(Context.dashboard())}
        assert set(acked) <= stored
        assert m.audit()["unreadable_rows"] == 0
    _integrity(target)


# --- a key rotation ------------------------------------------------------------------------------


def _seed(m: Memory) -> dict[str, str]:
    facts = {}
    for i in range(12):
        actor = f"discord:{800 + i}"
        facts[m.remember(Context.dm(actor), f"fact of {actor}").id] = actor
    m.set_sealed_meta("adapter", b"sealed setting")
    return facts


def _rotate(m: Memory, out: Any) -> None:
    m.rotate_master_key()


@pytest.mark.parametrize("where", ["mid-rewrap", "before-rename"])
def test_sigkill_during_key_rotation(target: tuple[str, Settings], where: str) -> None:
    with _open(target) as m:
        facts = _seed(m)
    # statement 8: inside the re-wrap transaction, the new key already in `<key>.new`
    kill = {"statement": 8} if where == "mid-rewrap" else {"before_rename": True}
    got = _run(target, _rotate, **kill)
    assert got == ["start"]  # it died in the middle
    with _open(target) as m:  # opens with a key that works (finishing or undoing the rotation)
        for fid, actor in facts.items():
            assert m.get(Context.dm(actor), fid).text == f"fact of {actor}"
        assert m.sealed_meta("adapter") == b"sealed setting"
        m.remember(Context.dm(ALICE), "after the crash")  # and wraps under the right key
        m.rotate_master_key()  # a later rotation completes
    with _open(target) as m:
        assert len(m.list(Context.dashboard())) == len(facts) + 1


# --- a cleanup -----------------------------------------------------------------------------------


def _cleanup(m: Memory, out: Any) -> None:
    m.cleanup()


@pytest.mark.parametrize("statement", [4, 12])
def test_sigkill_during_cleanup(target: tuple[str, Settings], statement: int) -> None:
    with _open(target, clock=lambda: T0) as m:
        expiring = {
            m.remember(Context.dm(f"discord:{900 + i}"), f"short {i}", ttl=timedelta(days=1)).id
            for i in range(8)
        }
        lasting = {
            m.remember(Context.dm(f"discord:{900 + i}"), f"long {i}", ttl=timedelta(days=365)).id
            for i in range(8)
        }
    later = T0 + timedelta(days=60)
    assert _run(target, _cleanup, statement=statement, now=later) == ["start"]
    with _open(target, clock=lambda: T0 + timedelta(days=60)) as m:
        assert {f.id for f in m.list(Context.dashboard())} == lasting
        live = {r.id for r in m.store.facts_where()}
        archived = m.store.count_archive()
        # an expired fact is live (not yet archived) or archived, never lost half-way
        assert len(live & expiring) + archived == len(expiring)
        report = m.cleanup()  # and the next cleanup finishes the job
        assert report["unreadable_rows"] == 0
        assert not {r.id for r in m.store.facts_where()} & expiring
    _integrity(target)


# --- erasing a person ----------------------------------------------------------------------------


def _forget_alice(m: Memory, out: Any) -> None:
    m.forget_subject(Context.dm(OWNER), ALICE)


FORGET_SUBJECT_KILLS = {
    # before the second partition's key is destroyed (the transaction rolls back)
    "between two destructions": (("SET wrapped_key = NULL", 2), {}),
    # the last statement of the erasing transaction (re-sealing the community fact she wrote)
    "end of the erasing transaction": (("UPDATE partitions SET version = version + 1", 1), {}),
}
SQLITE_KILLS = {
    # committed, and the WAL still holds the old page images
    "between the commit and the WAL truncate": (None, {"before_truncate": True}),
}
POSTGRES_KILLS = {
    # the erasure round that follows: inside the re-key of the community partition, inside
    # the master-key rotation, and between its commit and the key file's rename
    "inside the re-key": (("UPDATE partitions SET wrapped_key = ?, version", 1), {}),
    "inside the rotation": (("UPDATE partitions SET wrapped_key = ? WHERE", 2), {}),
    "before the key file rename": (None, {"before_rename": True}),
}


@pytest.fixture
def sqlite_target(db_path: Path) -> tuple[str, Settings]:
    return str(db_path), Settings(embedder="none")


@pytest.fixture
def postgres_target(pg_url: str, tmp_path: Path) -> tuple[str, Settings]:
    key_file = tmp_path / "master.key"
    write_key_file(key_file, new_key())
    return pg_url, Settings(key_file=key_file, embedder="none")


@pytest.mark.parametrize("where", list(FORGET_SUBJECT_KILLS))
def test_sigkill_during_forget_subject(
    target: tuple[str, Settings], where: str, tmp_path: Path
) -> None:
    _forget_subject_killed(target, *FORGET_SUBJECT_KILLS[where], tmp_path)


@pytest.mark.parametrize("where", list(SQLITE_KILLS))
def test_sigkill_during_forget_subject_sqlite(
    sqlite_target: tuple[str, Settings], where: str, tmp_path: Path
) -> None:
    _forget_subject_killed(sqlite_target, *SQLITE_KILLS[where], tmp_path)


@pytest.mark.parametrize("where", list(POSTGRES_KILLS))
def test_sigkill_during_forget_subject_postgres(
    postgres_target: tuple[str, Settings], where: str, tmp_path: Path
) -> None:
    _forget_subject_killed(postgres_target, *POSTGRES_KILLS[where], tmp_path)


def _forget_subject_killed(
    target: tuple[str, Settings], statement: KillPoint, flags: dict[str, bool], tmp_path: Path
) -> None:
    postgres = target[0].startswith("postgresql")
    with _open(target) as m:
        about = [
            m.remember(Context.dm(ALICE), "alice one"),
            m.remember(Context.dm(ALICE), "alice session", "session"),
            m.remember(Context.guild(ALICE, "g1"), "alice in g1", "me"),
            m.remember(Context.dm(OWNER), "owner's note on alice", f"user:{ALICE}"),
        ]
        canaries = [canary_of(m.store, f.id) for f in about]
        community = m.remember(Context.guild(ALICE, "g1"), "g1 meets on fridays")
        bob = m.remember(Context.dm(BOB), "bob stays")
    assert _run(target, _forget_alice, statement=statement, **flags) == ["start"], "no kill"
    with _open(target) as m:
        left = [f for f in about if f.id in {r.id for r in m.store.facts_where()}]
        assert left in ([], about), "a half-forgotten person"
        authored = m.get(Context.guild(BOB, "g1"), community.id).author
        assert (authored is None) == (left == [])
        assert m.get(Context.dm(BOB), bob.id).text == "bob stays"
        if not postgres and not left:
            # Opening finished the truncate the dead process left pending: no copy of the
            # files holds what was erased.
            assert m.erasure_pending() == 0
            files = _files(target, tmp_path / "copy")
            assert all(fragments_found(files, c) == [] for c in canaries)
        m.forget_subject(Context.dm(OWNER), ALICE)  # finishing it works
        assert m.recall(Context.dm(OWNER), "alice", subjects=[ALICE]) == []
        assert m.audit()["unreadable_rows"] == 0
        assert m.erasure_pending() == 0
    _integrity(target)


def test_sigkill_between_a_forget_commit_and_the_wal_truncate(
    sqlite_target: tuple[str, Settings], tmp_path: Path
) -> None:
    """SQLite: `forget` committed, then the process died before truncating the WAL, which
    still holds the old page with the fact. The next process to open the database truncates
    it (the erasure was recorded as pending in the same commit)."""
    target = sqlite_target
    with _open(target) as m:
        fact = m.remember(Context.dm(ALICE), "the canary alice will forget")
        canary = canary_of(m.store, fact.id)
        m.remember_many(Context.dm(ALICE), [f"alice line {i}" for i in range(20)])

    def forget(m: Memory, out: Any) -> None:
        m.forget(Context.dm(ALICE), fact.id)

    assert _run(target, forget, before_truncate=True) == ["start"]
    with _open(target) as m:  # a server starting, say
        assert m.store.get_fact(fact.id) is None
        assert m.erasure_pending() == 0
        m.remember(Context.dm(BOB), "an ordinary write")
        files = _files(target, tmp_path / "copy")
        assert fragments_found(files, canary) == []
    _integrity(target)

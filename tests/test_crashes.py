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
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from confidante import Context, Memory
from confidante.config import Settings
from confidante.store.sql import SqlStore
from confidante.vault.crypto import new_key, write_key_file
from confidante.vault.keyfile import KeyFile

from conftest import ALICE, BOB, OWNER

FORK = mp.get_context("fork")
T0 = datetime(2026, 5, 1, 8, 0, tzinfo=UTC)


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


def _kill_at(statement: int | None, before_rename: bool) -> None:
    """In the child: SIGKILL itself at its Nth SQL statement from now, or just before the
    key file rename that ends a rotation."""
    me = os.getpid()
    count = [0]
    real_q = SqlStore._q

    def q(self: SqlStore, sql: str, params: Any = ()) -> Any:
        count[0] += 1
        if statement is not None and count[0] == statement:
            os.kill(me, signal.SIGKILL)
        return real_q(self, sql, params)

    SqlStore._q = q  # type: ignore[method-assign]
    if before_rename:
        KeyFile.commit = lambda self, key: os.kill(me, signal.SIGKILL)  # type: ignore[method-assign]


def _victim(
    t: tuple[str, Settings],
    op: Callable[[Memory, Any], None],
    statement: int | None,
    before_rename: bool,
    out: Any,
    now: datetime | None = None,
) -> None:
    m = _open(t, clock=(lambda: now) if now else None)
    _kill_at(statement, before_rename)
    out.send("start")
    op(m, out)
    out.send("done")
    os._exit(0)


def _run(
    t: tuple[str, Settings],
    op: Callable[[Memory, Any], None],
    *,
    statement: int | None = None,
    before_rename: bool = False,
    now: datetime | None = None,
) -> list[Any]:
    """Run `op` in a child process killed as asked; what it sent before dying."""
    recv, send = FORK.Pipe(duplex=False)
    p = FORK.Process(target=_victim, args=(t, op, statement, before_rename, send, now))
    p.start()
    send.close()
    got = []
    try:
        while True:
            got.append(recv.recv())
    except EOFError:
        pass
    p.join(timeout=120)
    assert p.exitcode in (0, -signal.SIGKILL), p.exitcode
    return got


def _integrity(t: tuple[str, Settings]) -> None:
    if not t[0].startswith("postgresql"):
        con = sqlite3.connect(t[0])
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        con.close()


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
    p.join(timeout=60)
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


# 8: between two partitions' destruction; 15: the last write of the erasing transaction;
# 23 and 31 (PostgreSQL): inside the re-key, inside the master-key rotation that follow.
@pytest.mark.parametrize("statement", [8, 15, 23, 31])
def test_sigkill_during_forget_subject(target: tuple[str, Settings], statement: int) -> None:
    with _open(target) as m:
        about = [
            m.remember(Context.dm(ALICE), "alice one"),
            m.remember(Context.dm(ALICE), "alice session", "session"),
            m.remember(Context.guild(ALICE, "g1"), "alice in g1", "me"),
            m.remember(Context.dm(OWNER), "owner's note on alice", f"user:{ALICE}"),
        ]
        community = m.remember(Context.guild(ALICE, "g1"), "g1 meets on fridays")
        bob = m.remember(Context.dm(BOB), "bob stays")
    _run(target, _forget_alice, statement=statement)
    with _open(target) as m:
        left = [f for f in about if f.id in {r.id for r in m.store.facts_where()}]
        assert left in ([], about), "a half-forgotten person"
        authored = m.get(Context.guild(BOB, "g1"), community.id).author
        assert (authored is None) == (left == [])
        assert m.get(Context.dm(BOB), bob.id).text == "bob stays"
        m.forget_subject(Context.dm(OWNER), ALICE)  # finishing it works
        assert m.recall(Context.dm(OWNER), "alice", subjects=[ALICE]) == []
        assert m.audit()["unreadable_rows"] == 0
    _integrity(target)

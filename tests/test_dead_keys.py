"""No write under a dead key (issue 11, item 3).

Two memories on one database stand for two processes. The interleavings are forced: the
writer has read the partition's key and is about to insert when the other erases the person.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from confidante import Context, Memory
from confidante.vault.crypto import new_key, seal

from conftest import ALICE, BOB, OWNER


@pytest.fixture
def pair(backend: str, key: bytes):
    a = Memory.open(backend, owner_ids=[OWNER], master_key=key)
    b = Memory.open(backend, owner_ids=[OWNER], master_key=key)
    yield a, b
    a.close()
    b.close()


def _everything_reads(m: Memory) -> None:
    """What used to fail with integrity_error once a row sat under a dead key."""
    for p in m.store.partitions():  # (cleanup would delete such rows: look first)
        if p.wrapped_key is None:
            assert m.store.facts_in(p.id) == [], "a row was stored under a destroyed key"
    m.recall(Context.dm(ALICE), "silo")
    m.list(Context.dm(OWNER))
    m.list(Context.dashboard())
    m.cleanup()
    assert m.audit()["unreadable_rows"] == 0


def test_key_destroyed_between_read_and_insert(pair, monkeypatch) -> None:
    a, b = pair
    a.remember(Context.dm(ALICE), "my old silo had this")
    real = a.keys.current
    raced: list[bool] = []

    def read_key_then_erase(pid: str, scope: str, *, create: bool):
        found = real(pid, scope, create=create)
        if not raced:  # A holds Alice's key; now B forgets her and destroys it
            raced.append(True)
            b.forget_subject(Context.dm(OWNER), ALICE)
        return found

    monkeypatch.setattr(a.keys, "current", read_key_then_erase)
    fact = a.remember(Context.dm(ALICE), "written while her silo was erased")
    assert raced == [True]
    # The write landed after the erasure: in a fresh silo, under a fresh key, readable by both.
    for m in (a, b):
        assert [f.text for f in m.list(Context.dm(ALICE))] == [fact.text]
        assert m.get(Context.dm(ALICE), fact.id).text == fact.text
        _everything_reads(m)


def test_key_replaced_by_a_rekey_between_read_and_insert(pair, monkeypatch) -> None:
    """Same race with a re-key (erasure on PostgreSQL replaces a partition's data key)."""
    from confidante.services.lifecycle import _rekey

    a, b = pair
    gone = a.remember(Context.dm(ALICE), "to be forgotten")
    a.remember(Context.dm(ALICE), "stays in my silo")
    a.forget(Context.dm(ALICE), gone.id)
    real = a.keys.current
    raced: list[bool] = []

    def read_key_then_rekey(pid: str, scope: str, *, create: bool):
        found = real(pid, scope, create=create)
        if not raced:
            raced.append(True)
            assert _rekey(b, pid) == 1
        return found

    monkeypatch.setattr(a.keys, "current", read_key_then_rekey)
    fact = a.remember(Context.dm(ALICE), "written during the re-key")
    assert raced == [True]
    for m in (a, b):
        assert {f.text for f in m.list(Context.dm(ALICE))} == {fact.text, "stays in my silo"}
        _everything_reads(m)


def test_insert_committed_before_the_erasure_is_erased(pg_url: str, key: bytes, monkeypatch):
    """The other order: the erasure has read what to erase, a write commits, then the erasure
    destroys the partition. The write is erased with it, never left under a dead key.
    (PostgreSQL only: on SQLite the erasure's transaction excludes every other writer.)"""
    a = Memory.open(pg_url, owner_ids=[OWNER], master_key=key)
    b = Memory.open(pg_url, owner_ids=[OWNER], master_key=key)
    try:
        a.remember(Context.dm(ALICE), "before")
        real = b.store.facts_where
        raced: list[bool] = []

        def read_then_let_a_write(**kw):
            rows = real(**kw)
            if not raced:
                raced.append(True)
                a.remember(Context.dm(ALICE), "slipped in during the erasure")
            return rows

        monkeypatch.setattr(b.store, "facts_where", read_then_let_a_write)
        b.forget_subject(Context.dm(OWNER), ALICE)
        assert raced == [True]
        for m in (a, b):
            assert m.list(Context.dm(ALICE)) == []
            _everything_reads(m)
    finally:
        a.close()
        b.close()


def test_an_unreadable_row_is_skipped_counted_and_reported(db_path: Path, key: bytes) -> None:
    """A row that cannot be opened (here: sealed under a key that is not its partition's,
    as the race used to leave) never crashes recall, list, the dashboard's lists or cleanup."""
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        good = m.remember(Context.dm(ALICE), "alice keeps bees")
        m.remember(Context.dm(BOB), "bob keeps goats")
    con = sqlite3.connect(db_path)
    con.execute(
        "UPDATE memory_facts SET ciphertext = ? WHERE id = ?",
        (seal(new_key(), b"{}", b"x"), good.id),
    )
    con.commit()
    con.close()
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        assert m.recall(Context.dm(ALICE), "bees") == []
        assert [f.text for f in m.list(Context.dashboard())] == ["bob keeps goats"]
        assert m.list(Context.dm(OWNER))
        report = m.cleanup()
        assert report["unreadable_rows"] == 1
        audit = m.audit()
        assert audit["unreadable_rows"] == 1 and not audit["ok"]
        assert any(f["check"] == "decryptable" and f["id"] == good.id for f in audit["findings"])


def test_a_writer_in_another_thread_during_the_drop(pair, monkeypatch) -> None:
    """Real concurrency: as soon as the erasure starts destroying Alice's partition, another
    connection writes to it. Whichever way the race goes (blocked until the erasure commits,
    then a fresh silo; or before it, then erased with it), no row is left under a dead key."""
    import threading

    a, b = pair
    a.remember(Context.dm(ALICE), "before")
    store = type(b.store)
    real_q = store._q
    results: list[object] = []
    writer: list[threading.Thread] = []

    def write() -> None:
        try:
            results.append(a.remember(Context.dm(ALICE), "written during the drop"))
        except Exception as e:  # reported below
            results.append(e)

    def q(self, sql: str, params=()):
        out = real_q(self, sql, params)
        if self is b.store and not writer and "partition_id = ?" in sql and "DELETE" in sql:
            t = threading.Thread(target=write)
            writer.append(t)
            t.start()
            t.join(timeout=1.0)  # let it run as far as it can while the erasure is open
        return out

    monkeypatch.setattr(store, "_q", q)
    b.forget_subject(Context.dm(OWNER), ALICE)
    monkeypatch.undo()
    writer[0].join(timeout=60)
    assert len(results) == 1 and not isinstance(results[0], Exception), results
    for m in (a, b):
        texts = [f.text for f in m.list(Context.dm(ALICE))]
        assert texts in ([], ["written during the drop"])
        _everything_reads(m)


def _rekey_after_first(a: Memory, b: Memory, monkeypatch, attr: str, pid: str) -> list[bool]:
    """After A's store has answered `attr` once, B re-keys that partition (what an erasure
    round on another server does): A holds rows sealed under a key that is no longer stored."""
    from confidante.services.lifecycle import _rekey

    real = getattr(a.store, attr)
    raced: list[bool] = []

    def read_then_rekey(*args, **kw):
        rows = real(*args, **kw)
        if not raced:
            raced.append(True)
            assert _rekey(b, pid) == 1
        return rows

    monkeypatch.setattr(a.store, attr, read_then_rekey)
    return raced


@pytest.mark.parametrize("op", ["get", "forget", "update"])
def test_a_rekey_between_reading_a_row_and_opening_it(pair, monkeypatch, op: str) -> None:
    """get, forget and update read the row, then the partition's key: a re-key by another
    process in between is read again, never an integrity_error (it was a 500 under load)."""
    a, b = pair
    gone = a.remember(Context.dm(ALICE), "to be forgotten")
    kept = a.remember(Context.dm(ALICE), "my kayak is red")
    a.forget(Context.dm(ALICE), gone.id)  # the partition now waits for a re-key
    pid = a.store.get_fact(kept.id).partition_id
    raced = _rekey_after_first(a, b, monkeypatch, "get_fact", pid)
    if op == "get":
        assert a.get(Context.dm(ALICE), kept.id).text == "my kayak is red"
    elif op == "forget":
        a.forget(Context.dm(ALICE), kept.id)
    else:
        a.update(Context.dm(ALICE), kept.id, "my kayak is blue")
    assert raced == [True]
    monkeypatch.undo()
    want = {"get": ["my kayak is red"], "forget": [], "update": ["my kayak is blue"]}[op]
    for m in (a, b):
        assert [f.text for f in m.list(Context.dm(ALICE))] == want
        _everything_reads(m)


def test_a_rekey_between_reading_the_key_and_the_rows_keeps_recall_whole(pair, monkeypatch) -> None:
    """Recall reads a partition's key, then its rows; rows re-keyed in between are read
    again under the new key, not skipped (a search would have missed them)."""
    a, b = pair
    gone = a.remember(Context.dm(ALICE), "to be forgotten")
    kept = a.remember(Context.dm(ALICE), "my kayak is red")
    a.forget(Context.dm(ALICE), gone.id)
    a.cache.clear()
    pid = a.store.get_fact(kept.id).partition_id
    raced = _rekey_after_first(a, b, monkeypatch, "get_partitions", pid)
    hits = a.recall(Context.dm(ALICE), "kayak")
    assert raced == [True]
    assert [h.fact.id for h in hits] == [kept.id]


@pytest.mark.parametrize("op", ["remember", "recall"])
def test_a_wrapping_read_before_a_rotation_another_thread_followed(
    backend: str, tmp_path: Path, monkeypatch, op: str
) -> None:
    """A reads Alice's wrapped key; B rotates the master key; another of A's threads adopts
    the new key before this one opens the wrapping it read under the old one. The wrapping
    is read again (it was an integrity_error: a 500 on a write under load)."""
    from confidante.config import Settings
    from confidante.vault.crypto import write_key_file

    key_file = tmp_path / "keys" / "master.key"
    write_key_file(key_file, new_key())
    settings = Settings(key_file=key_file)
    a = Memory.open(backend, owner_ids=[OWNER], settings=settings)
    b = Memory.open(backend, owner_ids=[OWNER], settings=settings)
    try:
        a.remember(Context.dm(ALICE), "my kayak is red")
        a.cache.clear()
        real = a.store.get_partitions
        raced: list[bool] = []

        def read_then_rotate(ids):
            rows = real(ids)
            if not raced and rows and rows[0].wrapped_key is not None:
                raced.append(True)
                b.rotate_master_key()
                a.keys.check_master()  # what A's other thread does on its next write
            return rows

        monkeypatch.setattr(a.store, "get_partitions", read_then_rotate)
        if op == "remember":
            a.remember(Context.dm(ALICE), "my canoe is green")
        else:
            assert [h.fact.text for h in a.recall(Context.dm(ALICE), "kayak")] == [
                "my kayak is red"
            ]
        assert raced == [True]
        monkeypatch.undo()
        for m in (a, b):
            assert len(m.list(Context.dm(ALICE))) == (2 if op == "remember" else 1)
            _everything_reads(m)
    finally:
        a.close()
        b.close()


def test_following_a_rotation_never_deadlocks_two_threads(
    backend: str, tmp_path: Path, monkeypatch
):
    """One thread follows another process's rotation while a second thread, inside a store
    transaction, checks the master key too. The keyring never calls the store while holding
    its own lock, so neither waits for the other forever (a frozen server under load)."""
    import threading
    import time

    import confidante.vault.keyring as keyring
    from confidante.config import Settings
    from confidante.vault.crypto import write_key_file

    key_file = tmp_path / "keys" / "master.key"
    write_key_file(key_file, new_key())
    settings = Settings(key_file=key_file)
    a = Memory.open(backend, owner_ids=[OWNER], settings=settings)
    b = Memory.open(backend, owner_ids=[OWNER], settings=settings)
    b.rotate_master_key()  # A still holds the old key
    in_transaction = threading.Event()
    real = keyring._opens

    def opens(key: bytes, check: bytes | None) -> bool:
        if threading.current_thread().name == "follower":
            in_transaction.wait(5)  # let the writer take the store meanwhile
        return real(key, check)

    monkeypatch.setattr(keyring, "_opens", opens)
    done: list[str] = []

    def follow() -> None:
        a.keys.check_master()
        done.append("follower")

    def write() -> None:
        with a.store.transaction():
            in_transaction.set()
            time.sleep(0.2)  # the follower now wants the store
            a.keys.check_master()
        done.append("writer")

    follower = threading.Thread(target=follow, name="follower", daemon=True)
    follower.start()
    time.sleep(0.2)
    writer = threading.Thread(target=write, name="writer", daemon=True)
    writer.start()
    writer.join(120)  # a deadlock never ends; a busy machine only takes longer
    follower.join(120)
    assert sorted(done) == ["follower", "writer"], "the two threads deadlocked"
    monkeypatch.undo()
    assert a.remember(Context.dm(ALICE), "after the rotation").text == "after the rotation"
    a.close()
    b.close()

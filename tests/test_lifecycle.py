"""Issue 5: expiry with an injected clock, the cleanup protocol, real forgetting, key
rotation (with crashes), the access log, backup and restore."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from confidante import (
    AccessDenied,
    Context,
    DatabaseInUse,
    IntegrityError,
    Memory,
    NotFound,
    WrongMasterKey,
)
from confidante.config import Settings
from confidante.services.lifecycle import restore, rotate_key_file
from confidante.vault.crypto import key_file_for, new_key, open_sealed, read_key_file
from confidante.vault.keyfile import pending_key_file
from confidante.vault.keyring import fact_aad

from conftest import ALICE, BOB, OWNER, Clock

T0 = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def tmem(backend: str, key: bytes, clock: Clock):
    settings = Settings(archive_grace_days=10, ttl_days_by_scope={"owner": 730})
    m = Memory.open(backend, owner_ids=[OWNER], master_key=key, clock=clock, settings=settings)
    yield m
    m.close()


# --- expiry -------------------------------------------------------------------------------------


def test_every_fact_expires_by_default(tmem: Memory, clock: Clock) -> None:
    """Long-term memory by default: a year for people, owners, communities and global notes,
    30 days for conversation history; every fact still expires."""
    f = tmem.remember(Context.dm(ALICE), "alice likes kites")
    assert f.expires_at == T0 + timedelta(days=365)
    s = tmem.remember(Context.dm(ALICE), "we were talking about kites", "session")
    assert s.expires_at == T0 + timedelta(days=30)
    g = tmem.remember(Context.guild(ALICE, "g1"), "the club flies kites on Sundays")
    assert g.expires_at == T0 + timedelta(days=365)
    o = tmem.remember(Context.dm(OWNER), "owner plan", "owner")
    assert o.expires_at == T0 + timedelta(days=730)  # configured per scope
    short = tmem.remember(Context.dm(ALICE), "alice is in town today", ttl=timedelta(hours=6))
    assert short.expires_at == T0 + timedelta(hours=6)


def test_expired_facts_are_never_recalled_even_before_cleanup(tmem: Memory, clock: Clock) -> None:
    short = tmem.remember(Context.dm(ALICE), "alice is visiting the zoo", ttl=timedelta(hours=1))
    long = tmem.remember(Context.dm(ALICE), "alice loves the zoo")
    assert {h.fact.id for h in tmem.recall(Context.dm(ALICE), "zoo")} == {short.id, long.id}
    clock.advance(hours=2)
    assert {h.fact.id for h in tmem.recall(Context.dm(ALICE), "zoo")} == {long.id}
    assert short.id not in {f.id for f in tmem.list(Context.dm(ALICE))}
    with pytest.raises(NotFound):
        tmem.get(Context.dm(ALICE), short.id)


def test_refresh_on_read(backend: str, key: bytes, clock: Clock) -> None:
    s = Settings(refresh_on_read=True, default_ttl_days=10)
    with Memory.open(backend, owner_ids=[OWNER], master_key=key, clock=clock, settings=s) as m:
        f = m.remember(Context.dm(ALICE), "alice reads sci-fi")
        clock.advance(days=8)
        assert m.recall(Context.dm(ALICE), "sci-fi")  # read: expiry moves to day 18
        clock.advance(days=5)
        assert m.get(Context.dm(ALICE), f.id).expires_at == T0 + timedelta(days=18)
        assert m.recall(Context.dm(ALICE), "sci-fi")


# --- cleanup protocol -----------------------------------------------------------------------------


def test_cleanup_archives_then_purges_after_grace(tmem: Memory, clock: Clock) -> None:
    gone = tmem.remember(Context.dm(ALICE), "temporary note", ttl=timedelta(days=1))
    tmem.remember(Context.dm(ALICE), "lasting note")
    clock.advance(days=2)
    report = tmem.cleanup()
    assert report["archived"] == 1 and report["purged"] == 0
    assert report["line"] == "[2026-01-12] Memory cleanup: 1 archived, 0 deleted, 0 merged"
    assert tmem.store.count_archive() == 1
    assert tmem.store.get_fact(gone.id) is None
    clock.advance(days=11)  # past the 10-day grace
    report = tmem.cleanup()
    assert report["purged"] == 1
    assert report["line"] == "[2026-01-23] Memory cleanup: 0 archived, 1 deleted, 0 merged"
    assert tmem.store.count_archive() == 0
    assert tmem.cleanup_history() == [
        "[2026-01-23] Memory cleanup: 0 archived, 1 deleted, 0 merged",
        "[2026-01-12] Memory cleanup: 1 archived, 0 deleted, 0 merged",
    ]
    assert tmem.cleanup_history(Context.dm(OWNER))
    with pytest.raises(AccessDenied):
        tmem.cleanup_history(Context.dm(ALICE))


def test_cleanup_dry_run_changes_nothing(tmem: Memory, clock: Clock) -> None:
    tmem.remember(Context.dm(ALICE), "soon gone", ttl=timedelta(days=1))
    # the same sentence is never stored twice (Memory.remember); these differ by a comma
    tmem.remember_many(Context.dm(ALICE), ["I like jazz music", "I like jazz, music"])
    clock.advance(days=2)
    report = tmem.cleanup(dry_run=True)
    assert (report["archived"], report["merged"]) == (1, 1)
    assert tmem.store.count_facts() == 3 and tmem.cleanup_history() == []


def test_cleanup_merges_duplicates_keeping_newest_and_longest(tmem: Memory, clock: Clock) -> None:
    a = Context.dm(ALICE)
    old = tmem.remember(a, "Alice likes green tea.", ttl=timedelta(days=90))
    clock.advance(minutes=1)
    new = tmem.remember(a, "alice likes green-tea", ttl=timedelta(days=5))
    clock.advance(minutes=1)
    near = tmem.remember(a, "Alice likes green tea and jasmine tea very much today")
    near2 = tmem.remember(a, "Alice likes green tea and jasmine tea very much, today!!")
    other = tmem.remember(Context.guild(ALICE, "g1"), "alice likes green tea", "me")
    report = tmem.cleanup()
    assert report["merged"] == 2
    left = {f.id for f in tmem.list(Context.dm(OWNER))}
    assert old.id not in left and new.id in left and other.id in left  # other origin kept
    assert len({near.id, near2.id} & left) == 1
    assert tmem.get(a, new.id).expires_at == old.expires_at  # the longest expiry wins


def test_cleanup_rescans_with_todays_detectors(tmem: Memory, monkeypatch) -> None:
    import confidante.privacy.guard as guard

    monkeypatch.setattr(guard, "classify", lambda *a, **k: [])  # yesterday's weaker detectors
    leaked = tmem.remember(Context.dm(ALICE), "my password is hunter2-correct-horse")
    kept = tmem.remember(Context.dm(ALICE), "I like sailing")
    monkeypatch.undo()
    report = tmem.cleanup()
    assert report["rescanned_deleted"] == 1
    assert tmem.store.get_fact(leaked.id) is None
    assert tmem.get(Context.dm(ALICE), kept.id)


def test_cleanup_drops_stale_patterns(tmem: Memory, clock: Clock) -> None:
    tmem.record_pattern("morning briefing", ["weather", "calendar"])
    clock.advance(days=100)
    tmem.record_pattern("evening summary", ["calendar"])
    report = tmem.cleanup()
    assert report["patterns_dropped"] == 1
    assert [p["trigger"] for p in tmem.public_stats()["patterns_observed"]] == ["evening summary"]


# --- forgetting a subject --------------------------------------------------------------------------

CANARY = "CANARY-forget-me-5c1e dandelion"


def test_forget_subject_leaves_no_trace(db_path: Path, key: bytes) -> None:
    m = Memory.open(db_path, owner_ids=[OWNER], master_key=key)
    mine = [
        m.remember(Context.dm(ALICE), f"{CANARY} one"),
        m.remember(Context.dm(ALICE), f"{CANARY} session", "session"),
        m.remember(Context.guild(ALICE, "g1"), f"{CANARY} about me in g1", "me"),
        m.remember(Context.dm(OWNER), f"{CANARY} owner's note about alice", f"user:{ALICE}"),
    ]
    community = m.remember(Context.guild(ALICE, "g1"), "the g1 picnic is on sunday")
    bob = m.remember(Context.dm(BOB), "bob's own fact")
    con = sqlite3.connect(db_path)
    stolen = {
        fid: (pid, bytes(ct), ok, okey)
        for fid, pid, ct, ok, okey in con.execute(
            "SELECT id, partition_id, ciphertext, origin_kind, origin_key FROM memory_facts"
        )
        if fid in {f.id for f in mine}
    }
    con.close()
    assert len(stolen) == 4

    with pytest.raises(AccessDenied):
        m.forget_subject(Context.dm(BOB), ALICE)
    with pytest.raises(AccessDenied):
        m.forget_subject(Context.guild(OWNER, "g1"), ALICE)
    report = m.forget_subject(Context.dm(ALICE), ALICE)  # "forget me", in her own DM
    assert report == {"forgotten": 1}  # no counts: they would reveal the owner's notes

    assert m.recall(Context.dm(OWNER), "dandelion", subjects=[ALICE]) == []
    assert m.recall(Context.dm(ALICE), "dandelion") == []
    kept = m.get(Context.guild(BOB, "g1"), community.id)  # community fact stays, without author
    assert kept.author is None and kept.text == "the g1 picnic is on sunday"
    assert m.get(Context.dm(BOB), bob.id)
    m.close()

    blobs = [p.read_bytes() for p in db_path.parent.iterdir() if p.is_file()]
    for blob in blobs:
        assert CANARY.encode() not in blob
        assert ALICE.encode() not in blob
        for _, ct, _, _ in stolen.values():
            assert ct[13:45] not in blob  # the ciphertext itself is gone from the files

    # The rows copied before the forget cannot be opened with any key material left.
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m2:
        remaining = [k for p in m2.store.partitions() if (k := m2.keys.unwrap(p))]
        for fid, (pid, ct, ok, okey) in stolen.items():
            (tombstone,) = m2.store.get_partitions([pid])
            assert tombstone.wrapped_key is None  # the data key is destroyed
            for dk in remaining:
                with pytest.raises(IntegrityError):
                    open_sealed(dk, ct, fact_aad(pid, fid, ok, okey))
        # She can come back later: a fresh silo with a fresh key.
        again = m2.remember(Context.dm(ALICE), "hello again")
        assert m2.get(Context.dm(ALICE), again.id).text == "hello again"


def test_owner_forgets_a_subject_and_a_guild(mem: Memory) -> None:
    mem.remember(Context.dm(BOB), "bob likes rowing")
    g = mem.remember(Context.guild(ALICE, "g1"), "g1 rule: be kind")
    learned = mem.remember(Context.guild(BOB, "g1"), "bob moderates g1", "me")
    elsewhere = mem.remember(Context.guild(BOB, "g2"), "bob moderates g2", "me")
    mem.forget_subject(Context.dm(OWNER), BOB)
    assert mem.recall(Context.dm(OWNER), "rowing", subjects=[BOB]) == []
    mem2 = mem.remember(Context.guild(ALICE, "g1"), "g1 rule: no spam")
    with pytest.raises(AccessDenied):
        mem.forget_guild(Context.guild(OWNER, "g1"), "g1")
    report = mem.forget_guild(Context.dm(OWNER), "g1")
    assert report["keys_destroyed"] >= 1
    for fid in (g.id, mem2.id, learned.id):
        with pytest.raises(NotFound):
            mem.get(Context.dm(OWNER), fid)
    with pytest.raises(NotFound):  # Bob was forgotten before
        mem.get(Context.dm(OWNER), elsewhere.id)


def test_forget_seen_by_another_process(db_path: Path, key: bytes) -> None:
    """Process B cached Alice's partition; A forgets her and she writes again. B must not
    serve the forgotten fact, and B's own later writes must stay readable by A."""
    a = Memory.open(db_path, owner_ids=[OWNER], master_key=key)
    b = Memory.open(db_path, owner_ids=[OWNER], master_key=key)
    try:
        a.remember(Context.dm(ALICE), "my secret crush is Bob")
        assert b.recall(Context.dm(ALICE), "crush")  # B now caches index and key
        a.forget_subject(Context.dm(ALICE), ALICE)
        a.remember(Context.dm(ALICE), "hello again")
        assert b.recall(Context.dm(ALICE), "crush") == []
        assert [f.text for f in b.list(Context.dm(ALICE))] == ["hello again"]
        b.remember(Context.dm(ALICE), "written by the other process")
        assert {f.text for f in a.list(Context.dm(ALICE))} == {
            "hello again",
            "written by the other process",
        }
    finally:
        a.close()
        b.close()


# --- keys -------------------------------------------------------------------------------------------


def test_rotate_rewraps_and_old_key_stops_working(db_path: Path) -> None:
    with Memory.open(db_path, owner_ids=[OWNER]) as m:
        f = m.remember(Context.dm(OWNER), "rotating secrets", "owner")
        old = read_key_file(key_file_for(db_path))
        con = sqlite3.connect(db_path)
        before = con.execute("SELECT ciphertext FROM memory_facts").fetchall()
        con.close()
        m.set_sealed_meta("adapter", b"sealed value")
        new = rotate_key_file(m, key_file_for(db_path))
        assert m.get(Context.dm(OWNER), f.id).text == "rotating secrets"
    assert read_key_file(key_file_for(db_path)) == new != old
    assert not pending_key_file(key_file_for(db_path)).exists()
    con = sqlite3.connect(db_path)
    assert con.execute("SELECT ciphertext FROM memory_facts").fetchall() == before  # untouched
    con.close()
    with pytest.raises(WrongMasterKey):
        Memory.open(db_path, master_key=old)
    with Memory.open(db_path, owner_ids=[OWNER]) as m:
        assert m.get(Context.dm(OWNER), f.id).text == "rotating secrets"
        assert m.sealed_meta("adapter") == b"sealed value"


def test_rotation_crash_mid_transaction_loses_nothing(db_path: Path, monkeypatch) -> None:
    with Memory.open(db_path, owner_ids=[OWNER]) as m:
        for i in range(5):
            m.remember(Context.dm(f"discord:{100 + i}"), f"fact {i}")
        old = read_key_file(key_file_for(db_path))
        calls = {"n": 0}
        real = type(m.store)._q

        def crash_half_way(self, sql, params=()):
            if sql.startswith("UPDATE partitions SET wrapped_key"):
                calls["n"] += 1
                if calls["n"] == 3:
                    raise KeyboardInterrupt("power cut")
            return real(self, sql, params)

        monkeypatch.setattr(type(m.store), "_q", crash_half_way)
        with pytest.raises(KeyboardInterrupt):
            rotate_key_file(m, key_file_for(db_path))
        monkeypatch.undo()
    assert calls["n"] == 3
    # the pending file exists, the database still opens with the old key, nothing lost
    assert pending_key_file(key_file_for(db_path)).exists()
    with Memory.open(db_path, owner_ids=[OWNER]) as m:
        assert read_key_file(key_file_for(db_path)) == old
        assert not pending_key_file(key_file_for(db_path)).exists()
        assert len(m.list(Context.dashboard())) == 5


def test_rotation_seen_by_another_process(db_path: Path) -> None:
    """Processes sharing the key file follow a rotation made by another one: they re-read
    the file and never wrap anything under the retired key."""
    a = Memory.open(db_path, owner_ids=[OWNER])
    b = Memory.open(db_path, owner_ids=[OWNER])
    try:
        a.remember(Context.dm(ALICE), "before rotation")
        assert b.recall(Context.dm(ALICE), "rotation")  # B caches Alice's key
        new = rotate_key_file(a, key_file_for(db_path))
        b.remember(Context.dm(BOB), "a new partition after the rotation")
        b.set_sealed_meta("x", b"y")
        assert b.keys.current_master() == new
        assert len(a.list(Context.dashboard())) == 2
        assert a.sealed_meta("x") == b"y"
    finally:
        a.close()
        b.close()
    with Memory.open(db_path, owner_ids=[OWNER]) as m:
        assert sorted(f.text for f in m.list(Context.dashboard())) == [
            "a new partition after the rotation",
            "before rotation",
        ]


def test_rotation_with_a_given_key_needs_the_database_alone(db_path: Path, key: bytes) -> None:
    """A key given as an argument (or in the environment) cannot reach other processes, so
    rotating it while another has the database open is refused, not half-done."""
    a = Memory.open(db_path, owner_ids=[OWNER], master_key=key)
    b = Memory.open(db_path, owner_ids=[OWNER], master_key=key)
    try:
        a.remember(Context.dm(ALICE), "before rotation")
        with pytest.raises(DatabaseInUse) as e:
            a.rotate_master_key(new_key())
        assert e.value.code == "database_in_use"
        assert b.list(Context.dashboard())  # both still work with the old key
        b.close()
        new = a.rotate_master_key(new_key())
        a.remember(Context.dm(BOB), "after")
    finally:
        a.close()
    with pytest.raises(WrongMasterKey):
        Memory.open(db_path, master_key=key)
    with Memory.open(db_path, owner_ids=[OWNER], master_key=new) as m:
        assert len(m.list(Context.dashboard())) == 2


def test_rotation_crash_after_commit_recovers_new_key(db_path: Path) -> None:
    with Memory.open(db_path, owner_ids=[OWNER]) as m:
        f = m.remember(Context.dm(ALICE), "survives the crash")
        new = new_key()
        from confidante.vault.crypto import write_key_file

        write_key_file(pending_key_file(key_file_for(db_path)), new)
        m.rotate_master_key(new)  # committed, then the process dies before the rename
    with Memory.open(db_path, owner_ids=[OWNER]) as m:
        assert m.get(Context.dm(ALICE), f.id).text == "survives the crash"
    assert read_key_file(key_file_for(db_path)) == new


# --- logs -------------------------------------------------------------------------------------------


def test_access_log_is_the_owners_alone(mem: Memory) -> None:
    o = mem.remember(Context.dm(OWNER), "owner diary entry", "owner")
    with pytest.raises(AccessDenied):
        mem.remember(Context.dm(ALICE), "x", "owner")
    mem.get(Context.dm(OWNER), o.id)
    mem.recall(Context.local(OWNER), "diary")
    events = mem.access_log(Context.dm(OWNER))
    kinds = [(e.kind, e.code) for e in events]
    assert ("owner_read", "get") in kinds and ("owner_read", "recall") in kinds
    assert ("denial", "owner_required") in kinds
    for e in events:
        assert "diary" not in repr(e) and ALICE not in repr(e)
    for ctx in (Context.dm(ALICE), Context.guild(OWNER, "g1"), Context.dashboard()):
        with pytest.raises(AccessDenied):
            mem.access_log(ctx)


# --- backup and restore -------------------------------------------------------------------------------


def test_backup_restore_round_trip(db_path: Path, key: bytes, tmp_path: Path) -> None:
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        f = m.remember(Context.dm(OWNER), "backed up thought", "owner")
        copy = m.backup(tmp_path / "backups" / "b1.db")
        m.remember(Context.dm(OWNER), "written after the backup", "owner")
    assert b"backed up thought" not in copy.read_bytes()
    with pytest.raises(WrongMasterKey):
        restore(copy, tmp_path / "other.db", new_key())
    with pytest.raises(Exception, match="exists"):
        restore(copy, db_path, key)
    restore(copy, db_path, key, force=True)
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        assert [x.text for x in m.list(Context.dm(OWNER))] == ["backed up thought"]
        assert m.get(Context.dm(OWNER), f.id).text == "backed up thought"

"""Invariant 8: files hold no plaintext text or raw actor id; ciphertext is bound to its
partition and row; a wrong key is a clear error."""

from __future__ import annotations

import base64
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from confidante import (
    Context,
    IntegrityError,
    InvalidMasterKey,
    MasterKeyMissing,
    Memory,
    NotFound,
    WrongMasterKey,
)
from confidante.vault.crypto import key_file_for, new_key

from conftest import ALICE, BOB, OWNER

CANARIES = [
    "CANARY-owner-7f3a9 tangerine submarine",
    "CANARY-alice-91bc2 marmalade lighthouse",
    "CANARY-guild-44d0e velvet accordion",
    "CANARY-session-0aa1 sapphire kettle",
]
ACTORS = [OWNER, ALICE, BOB, "telegram:555000111", "slack:U0CANARY", "discord:guild-g1-canary"]


def files_beside(path: Path) -> list[Path]:
    return [p for p in path.parent.iterdir() if p.is_file()]


def assert_no_plaintext(path: Path, needles: list[str]) -> None:
    found = []
    for f in files_beside(path):
        blob = f.read_bytes()
        for n in needles:
            for variant in (n.encode(), n.encode("utf-16-le"), n.lower().encode()):
                if variant in blob:
                    found.append((f.name, n))
    assert not found, found


def plant(mem: Memory) -> None:
    mem.remember(Context.dm(OWNER), CANARIES[0], "owner")
    mem.remember(Context.dm(ALICE), CANARIES[1])
    g = Context.guild(ALICE, "guild-g1-canary", channel="chan-canary", participants=[BOB])
    mem.remember(g, CANARIES[2])
    mem.remember(Context.dm("telegram:555000111"), CANARIES[3], "session")
    mem.remember(Context.dm("slack:U0CANARY"), "an ordinary fact")
    mem.remember(Context.dm(OWNER), "about bob", f"user:{BOB}")
    mem.recall(Context.dm(ALICE), "marmalade")  # reads must not write plaintext either


def test_no_canary_or_actor_id_in_any_file(db_path: Path, key: bytes) -> None:
    mem = Memory.open(db_path, owner_ids=[OWNER], master_key=key)
    plant(mem)
    # while open, the WAL holds the recent pages
    assert any(p.name.endswith("-wal") for p in files_beside(db_path))
    assert_no_plaintext(db_path, CANARIES + ACTORS + ["guild-g1-canary", "chan-canary"])
    mem.close()
    assert_no_plaintext(db_path, CANARIES + ACTORS + ["guild-g1-canary", "chan-canary"])
    # and the canaries do come back with the key
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        assert m.recall(Context.dm(OWNER), "tangerine submarine")[0].fact.text == CANARIES[0]


def test_key_file_is_created_0600_and_reused(db_path: Path) -> None:
    with Memory.open(db_path, owner_ids=[OWNER]) as m:
        f = m.remember(Context.dm(OWNER), "kept with the key file", "owner")
        for p in db_path.parent.iterdir():  # the database, its WAL and shared memory too
            assert stat.S_IMODE(os.stat(p).st_mode) == 0o600, p.name
    kf = key_file_for(db_path)
    assert stat.S_IMODE(os.stat(kf).st_mode) == 0o600
    with Memory.open(db_path, owner_ids=[OWNER]) as m:
        assert m.get(Context.dm(OWNER), f.id).text == "kept with the key file"
    # the key file's content is never in the database
    raw = base64.b64decode(kf.read_text().strip())
    assert raw not in db_path.read_bytes()


def test_a_file_that_is_not_a_database_is_a_clear_error(db_path: Path, key: bytes) -> None:
    from confidante import StoreError

    db_path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError) as e:
        Memory.open(db_path, master_key=key)
    assert e.value.code == "store_error"


def test_existing_database_without_key_is_an_error(db_path: Path, key: bytes) -> None:
    Memory.open(db_path, master_key=key).close()
    with pytest.raises(MasterKeyMissing) as e:
        Memory.open(db_path)
    assert e.value.code == "master_key_missing"


def test_wrong_key_is_a_clear_error(db_path: Path, key: bytes) -> None:
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        m.remember(Context.dm(OWNER), "only for the right key", "owner")
    with pytest.raises(WrongMasterKey) as e:
        Memory.open(db_path, owner_ids=[OWNER], master_key=new_key())
    assert e.value.code == "wrong_master_key"


@pytest.mark.parametrize("bad", [b"short", "not base64 !!", base64.b64encode(b"x" * 16), ""])
def test_malformed_key_is_refused(db_path: Path, bad: bytes | str) -> None:
    with pytest.raises(InvalidMasterKey) as e:
        Memory.open(db_path, master_key=bad)
    assert e.value.code == "invalid_master_key"
    assert not db_path.exists()


def test_env_master_key(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = new_key()
    monkeypatch.setenv("CONFIDANTE_MASTER_KEY", base64.b64encode(key).decode())
    monkeypatch.setenv("CONFIDANTE_OWNER_IDS", f"{OWNER}, telegram:7")
    with Memory.open(db_path) as m:
        assert m.owners == {OWNER, "telegram:7"}
        f = m.remember(Context.dm("telegram:7"), "env key works", "owner")
    assert not key_file_for(db_path).exists()
    with Memory.open(db_path, master_key=key) as m:
        assert m.get(Context.dm(OWNER), f.id).text == "env key works"


def _swap_ciphertext(db: Path, src_id: str, dst_id: str) -> None:
    con = sqlite3.connect(db)
    (blob,) = con.execute("SELECT ciphertext FROM memory_facts WHERE id = ?", (src_id,)).fetchone()
    con.execute("UPDATE memory_facts SET ciphertext = ? WHERE id = ?", (blob, dst_id))
    con.commit()
    con.close()


def test_ciphertext_moved_between_partitions_fails(db_path: Path, key: bytes) -> None:
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        secret = m.remember(Context.dm(OWNER), "owner secret to smuggle", "owner")
        decoy = m.remember(Context.dm(ALICE), "alice decoy")
    _swap_ciphertext(db_path, secret.id, decoy.id)
    with (
        Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m,
        pytest.raises(IntegrityError),
    ):
        m.get(Context.dm(ALICE), decoy.id)


def test_ciphertext_moved_between_rows_of_one_partition_fails(db_path: Path, key: bytes) -> None:
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        a = m.remember(Context.dm(ALICE), "first fact")
        b = m.remember(Context.dm(ALICE), "second fact")
    _swap_ciphertext(db_path, a.id, b.id)
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        assert m.get(Context.dm(ALICE), a.id).text == "first fact"
        with pytest.raises(IntegrityError):
            m.get(Context.dm(ALICE), b.id)


def test_row_moved_to_another_partition_is_not_readable(db_path: Path, key: bytes) -> None:
    # Re-labelling a row's partition (to smuggle owner data into Alice's silo) fails closed.
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        secret = m.remember(Context.dm(OWNER), "owner secret relabelled", "owner")
        mine = m.remember(Context.dm(ALICE), "alice own")
    con = sqlite3.connect(db_path)
    pid, scope, sk, ok, okind = con.execute(
        "SELECT partition_id, scope, subject_key, origin_key, origin_kind FROM memory_facts "
        "WHERE id = ?",
        (mine.id,),
    ).fetchone()
    con.execute(
        "UPDATE memory_facts SET partition_id = ?, scope = ?, subject_key = ?, origin_key = ?, "
        "origin_kind = ? WHERE id = ?",
        (pid, scope, sk, ok, okind, secret.id),
    )
    con.commit()
    con.close()
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        with pytest.raises((IntegrityError, NotFound)):
            m.get(Context.dm(ALICE), secret.id)
        # Never shown, and never a crash: the row is skipped, and the audit reports it.
        assert m.recall(Context.dm(ALICE), "secret relabelled") == []
        assert [f.text for f in m.list(Context.dm(ALICE))] == ["alice own"]
        assert m.audit()["unreadable_rows"] == 1

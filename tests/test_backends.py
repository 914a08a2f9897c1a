"""Both backends: shared databases between processes, and nothing readable at rest in
PostgreSQL either."""

from __future__ import annotations

import psycopg
import pytest

from confidante import Context, IntegrityError, Memory, NotFound

from conftest import ALICE, OWNER


def test_two_instances_share_one_database(backend: str, key: bytes) -> None:
    """A write through one instance is seen by another: the partition version moved, so the
    other's cached index of that partition is rebuilt (and only that one)."""
    a = Memory.open(backend, owner_ids=[OWNER], master_key=key)
    b = Memory.open(backend, owner_ids=[OWNER], master_key=key)
    try:
        a.remember(Context.dm(ALICE), "first: a lighthouse keeper")
        assert [h.fact.text for h in b.recall(Context.dm(ALICE), "lighthouse")] == [
            "first: a lighthouse keeper"
        ]
        second = a.remember(Context.dm(ALICE), "second: a lighthouse painting")
        assert len(b.recall(Context.dm(ALICE), "lighthouse")) == 2
        b.forget(Context.dm(ALICE), second.id)
        assert len(a.recall(Context.dm(ALICE), "lighthouse")) == 1
    finally:
        a.close()
        b.close()


def _dump(url: str) -> str:
    """Every value of every table in the test schema, as text."""
    with psycopg.connect(url) as con:
        tables = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            )
        ]
        out = []
        for t in tables:
            for row in con.execute(f'SELECT * FROM "{t}"'):
                for v in row:
                    out.append(
                        bytes(v).decode("latin-1") if isinstance(v, bytes | memoryview) else str(v)
                    )
        return "\n".join(out)


def test_postgres_holds_no_plaintext(pg_url: str, key: bytes) -> None:
    with Memory.open(pg_url, owner_ids=[OWNER], master_key=key) as m:
        m.remember(Context.dm(OWNER), "CANARY-pg-owner quince", "owner")
        m.remember(Context.dm(ALICE), "CANARY-pg-alice medlar")
        m.remember(Context.guild(ALICE, "guild-canary-77"), "CANARY-pg-guild loquat")
        assert m.recall(Context.dm(ALICE), "medlar")
    dump = _dump(pg_url)
    assert len(dump) > 1000
    for needle in ["CANARY", "quince", "medlar", "loquat", OWNER, ALICE, "guild-canary-77"]:
        assert needle not in dump


def test_postgres_binds_ciphertext_to_its_row(pg_url: str, key: bytes) -> None:
    with Memory.open(pg_url, owner_ids=[OWNER], master_key=key) as m:
        secret = m.remember(Context.dm(OWNER), "owner secret", "owner")
        decoy = m.remember(Context.dm(ALICE), "decoy")
    with psycopg.connect(pg_url, autocommit=True) as con:
        con.execute(
            "UPDATE memory_facts SET ciphertext = "
            "(SELECT ciphertext FROM memory_facts WHERE id = %s) WHERE id = %s",
            (secret.id, decoy.id),
        )
    with Memory.open(pg_url, owner_ids=[OWNER], master_key=key) as m:
        with pytest.raises(IntegrityError):
            m.get(Context.dm(ALICE), decoy.id)
        with pytest.raises(NotFound):
            m.get(Context.dm(ALICE), secret.id)


def test_postgres_needs_a_given_key(pg_url: str) -> None:
    from confidante import MasterKeyMissing

    with pytest.raises(MasterKeyMissing):
        Memory.open(pg_url)

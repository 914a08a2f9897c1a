"""Portable SQL for the store interface. Backends supply a connection and a dialect.

Statements are written once, with `?` placeholders and `{blob}`/`{bigint}`/`{id_pk}`
type slots, so SQLite and PostgreSQL run the same schema and queries.
"""

from __future__ import annotations

import threading
import time
from abc import abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import SchemaTooNew
from .base import DenialRow, FactRow, PartitionRow, Store


@dataclass(frozen=True)
class Dialect:
    placeholder: str
    blob: str
    bigint: str
    id_pk: str  # auto-increment integer primary key


# Each migration is a list of statements; a database records the last one applied.
MIGRATIONS: list[list[str]] = [
    [
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value {blob} NOT NULL)",
        """CREATE TABLE IF NOT EXISTS partitions (
            id TEXT PRIMARY KEY,
            scope TEXT NOT NULL,
            version {bigint} NOT NULL DEFAULT 0,
            wrapped_key {blob},
            created_at {bigint} NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS partitions_scope ON partitions (scope)",
        """CREATE TABLE IF NOT EXISTS memory_facts (
            id TEXT PRIMARY KEY,
            partition_id TEXT NOT NULL REFERENCES partitions (id),
            scope TEXT NOT NULL,
            community_key TEXT,
            subject_key TEXT,
            author_key TEXT,
            origin_kind TEXT NOT NULL,
            origin_key TEXT,
            tier TEXT NOT NULL,
            kind TEXT NOT NULL,
            source_skill TEXT,
            created_at {bigint} NOT NULL,
            updated_at {bigint} NOT NULL,
            expires_at {bigint},
            confidence REAL NOT NULL,
            ciphertext {blob} NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS facts_partition ON memory_facts (partition_id)",
        "CREATE INDEX IF NOT EXISTS facts_subject ON memory_facts (subject_key)",
        "CREATE INDEX IF NOT EXISTS facts_expires ON memory_facts (expires_at)",
        """CREATE TABLE IF NOT EXISTS denials (
            id {id_pk},
            at {bigint} NOT NULL,
            code TEXT NOT NULL,
            scope TEXT,
            surface TEXT NOT NULL
        )""",
    ],
]
SCHEMA_VERSION = len(MIGRATIONS)

_FACT_COLUMNS = (
    "id, partition_id, scope, community_key, subject_key, author_key, origin_kind, "
    "origin_key, tier, kind, source_skill, created_at, updated_at, expires_at, confidence, "
    "ciphertext"
)


def _fact(row: Sequence[Any]) -> FactRow:
    values = list(row)
    values[15] = bytes(values[15])
    return FactRow(*values)


def _partition(row: Sequence[Any]) -> PartitionRow:
    pid, scope, version, wrapped = row
    return PartitionRow(pid, scope, int(version), bytes(wrapped) if wrapped is not None else None)


class SqlStore(Store):
    dialect: Dialect

    def __init__(self) -> None:
        self._lock = threading.RLock()

    # -- backend plumbing ------------------------------------------------------------------
    @abstractmethod
    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement inside the current transaction; return fetched rows."""

    @abstractmethod
    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    @abstractmethod
    @contextmanager
    def _transaction(self) -> Iterator[None]: ...

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock, self._transaction():
            yield

    def _sql(self, sql: str) -> str:
        d = self.dialect
        sql = sql.format(blob=d.blob, bigint=d.bigint, id_pk=d.id_pk)
        return sql.replace("?", d.placeholder) if d.placeholder != "?" else sql

    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._execute(self._sql(sql), params)

    # -- schema -----------------------------------------------------------------------------
    def migrate(self) -> None:
        with self.transaction():
            self._q("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value {blob} NOT NULL)")
            current = self._schema_version()
            if current > SCHEMA_VERSION:
                raise SchemaTooNew(
                    f"database schema {current} is newer than this confidante ({SCHEMA_VERSION})"
                )
            for version in range(current + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[version - 1]:
                    self._q(statement)
                self._set_meta_unlocked("schema_version", str(version).encode())

    def _schema_version(self) -> int:
        rows = self._q("SELECT value FROM meta WHERE key = ?", ("schema_version",))
        return int(bytes(rows[0][0]).decode()) if rows else 0

    def schema_version(self) -> int:
        with self.transaction():
            return self._schema_version()

    # -- meta -------------------------------------------------------------------------------
    def get_meta(self, key: str) -> bytes | None:
        with self.transaction():
            rows = self._q("SELECT value FROM meta WHERE key = ?", (key,))
        return bytes(rows[0][0]) if rows else None

    def _set_meta_unlocked(self, key: str, value: bytes) -> None:
        self._q("DELETE FROM meta WHERE key = ?", (key,))
        self._q("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))

    def set_meta(self, key: str, value: bytes) -> None:
        with self.transaction():
            self._set_meta_unlocked(key, value)

    # -- partitions -------------------------------------------------------------------------
    def ensure_partition(self, pid: str, scope: str, wrapped_key: bytes) -> PartitionRow:
        with self.transaction():
            rows = self._q(
                "SELECT id, scope, version, wrapped_key FROM partitions WHERE id = ?", (pid,)
            )
            if rows:
                return _partition(rows[0])
            self._q(
                "INSERT INTO partitions (id, scope, version, wrapped_key, created_at) "
                "VALUES (?, ?, 0, ?, ?)",
                (pid, scope, wrapped_key, int(time.time() * 1000)),
            )
        return PartitionRow(pid, scope, 0, wrapped_key)

    def get_partition(self, pid: str) -> PartitionRow | None:
        with self.transaction():
            rows = self._q(
                "SELECT id, scope, version, wrapped_key FROM partitions WHERE id = ?", (pid,)
            )
        return _partition(rows[0]) if rows else None

    def partitions(self, scopes: Iterable[str]) -> list[PartitionRow]:
        scopes = list(scopes)
        if not scopes:
            return []
        marks = ", ".join("?" for _ in scopes)
        with self.transaction():
            rows = self._q(
                f"SELECT id, scope, version, wrapped_key FROM partitions WHERE scope IN ({marks})",
                scopes,
            )
        return [_partition(r) for r in rows]

    def get_partitions(self, pids: Sequence[str]) -> list[PartitionRow]:
        out: list[PartitionRow] = []
        pids = list(pids)
        with self.transaction():
            for start in range(0, len(pids), 500):
                chunk = pids[start : start + 500]
                marks = ", ".join("?" for _ in chunk)
                out.extend(
                    _partition(r)
                    for r in self._q(
                        "SELECT id, scope, version, wrapped_key FROM partitions "
                        f"WHERE id IN ({marks})",
                        chunk,
                    )
                )
        return out

    def _bump(self, pids: Iterable[str]) -> None:
        for pid in set(pids):
            self._q("UPDATE partitions SET version = version + 1 WHERE id = ?", (pid,))

    # -- facts ------------------------------------------------------------------------------
    def insert_facts(self, rows: Sequence[FactRow]) -> None:
        if not rows:
            return
        marks = ", ".join("?" for _ in range(16))
        with self.transaction():
            self._executemany(
                self._sql(f"INSERT INTO memory_facts ({_FACT_COLUMNS}) VALUES ({marks})"),
                [
                    (
                        r.id,
                        r.partition_id,
                        r.scope,
                        r.community_key,
                        r.subject_key,
                        r.author_key,
                        r.origin_kind,
                        r.origin_key,
                        r.tier,
                        r.kind,
                        r.source_skill,
                        r.created_at,
                        r.updated_at,
                        r.expires_at,
                        r.confidence,
                        r.ciphertext,
                    )
                    for r in rows
                ],
            )
            self._bump(r.partition_id for r in rows)

    def get_fact(self, fid: str) -> FactRow | None:
        with self.transaction():
            rows = self._q(f"SELECT {_FACT_COLUMNS} FROM memory_facts WHERE id = ?", (fid,))
        return _fact(rows[0]) if rows else None

    def facts_in(self, pid: str) -> list[FactRow]:
        with self.transaction():
            rows = self._q(
                f"SELECT {_FACT_COLUMNS} FROM memory_facts WHERE partition_id = ? "
                "ORDER BY created_at, id",
                (pid,),
            )
        return [_fact(r) for r in rows]

    def delete_fact(self, fid: str) -> bool:
        with self.transaction():
            rows = self._q("SELECT partition_id FROM memory_facts WHERE id = ?", (fid,))
            if not rows:
                return False
            self._q("DELETE FROM memory_facts WHERE id = ?", (fid,))
            self._bump([rows[0][0]])
        return True

    def count_facts(self) -> int:
        with self.transaction():
            return int(self._q("SELECT COUNT(*) FROM memory_facts")[0][0])

    # -- denials ----------------------------------------------------------------------------
    def record_denial(self, row: DenialRow) -> None:
        with self.transaction():
            self._q(
                "INSERT INTO denials (at, code, scope, surface) VALUES (?, ?, ?, ?)",
                (row.at, row.code, row.scope, row.surface),
            )

    def denials(self, limit: int = 100) -> list[DenialRow]:
        with self.transaction():
            rows = self._q(
                "SELECT at, code, scope, surface FROM denials ORDER BY id DESC LIMIT ?",
                (int(limit),),
            )
        return [DenialRow(int(a), c, s, f) for a, c, s, f in rows]

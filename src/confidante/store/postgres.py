"""PostgreSQL backend: the same portable SQL, for several processes on several machines.

Partition versions live in the database, so every process sharing it sees a write by any
other and rebuilds just that partition's in-memory index.

PostgreSQL does not erase physically: an updated or deleted row stays in the table's files
as a dead tuple until VACUUM reuses its space (and VACUUM guarantees nothing about when), and
`pg_wal` keeps old page images. So `erases_physically` is False and erasure ends in key
destruction (`services.lifecycle.complete_erasure`).

Cross-process coordination uses advisory locks, keyed by the schema, so two memories in two
schemas of one database never wait on each other:
- every connection holds the "open" lock shared for its lifetime; `exclusive` takes it
  exclusively, which succeeds only when no other process has the database open;
- writes that wrap something under the master key hold the "keys" lock shared for their
  transaction, a rotation holds it exclusively;
- a whole rotation (transaction and key file rename) holds the "rotation" lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..errors import DatabaseInUse, StoreError
from .sql import Dialect, SqlStore


def _psycopg() -> Any:
    """The driver, imported when a PostgreSQL store is opened (a SQLite process never pays
    for it); None without the extra (pip install 'confidante[postgres]')."""
    try:
        import psycopg
        import psycopg.sql
    except ImportError:  # pragma: no cover - exercised only without the extra
        return None
    return psycopg


_MIGRATION_LOCK = 0x636F6E66  # "conf": serialises schema migrations across processes
# Advisory lock classes (the two-int key space, apart from the bigint one above); the
# second int is the schema's hash.
_OPEN_LOCK = 0x636F706E  # "copn"
_IDLE = 0  # psycopg.pq.TransactionStatus.IDLE: no transaction open on the connection
_KEYS_LOCK = 0x636B6579  # "ckey"
_ROTATION_LOCK = 0x63726F74  # "crot"


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


class PostgresStore(SqlStore):
    dialect = Dialect(
        placeholder="%s",
        blob="BYTEA",
        bigint="BIGINT",
        id_pk="BIGSERIAL PRIMARY KEY",
        for_update=" FOR UPDATE",
    )
    erases_physically = False

    def __init__(self, dsn: str, *, schema: str | None = None) -> None:
        super().__init__()
        self._rotation_mutex = threading.RLock()
        psycopg = _psycopg()
        if psycopg is None:
            raise StoreError("PostgreSQL needs the extra: pip install 'confidante[postgres]'")
        try:
            self._conn = psycopg.connect(dsn, autocommit=True)
        except psycopg.Error as e:
            # Never echo the DSN: it may carry a password.
            raise StoreError(f"cannot connect to PostgreSQL ({e.__class__.__name__})") from None
        if schema:
            self._conn.execute(
                psycopg.sql.SQL("SET search_path TO {}").format(psycopg.sql.Identifier(schema))
            )
        self._space = int(self._conn.execute("SELECT hashtext(current_schema())").fetchone()[0])
        self._conn.execute("SELECT pg_advisory_lock_shared(%s, %s)", (_OPEN_LOCK, self._space))
        self.migrate()

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cur = self._conn.execute(sql, tuple(params))  # type: ignore[arg-type]
        return cur.fetchall() if cur.description else []

    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._conn.cursor() as cur:
            cur.executemany(sql, rows)  # type: ignore[arg-type]

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with self._conn.transaction():
            yield

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._lock:
            if self._conn.info.transaction_status == _IDLE:
                yield  # autocommit: the one statement is its own transaction
            else:
                with self._transaction():
                    yield

    def _renewal_only(self) -> None:
        self._conn.execute("SET LOCAL synchronous_commit TO OFF")

    def _lock_keys(self, *, exclusive: bool) -> None:
        fn = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
        self._conn.execute(f"SELECT {fn}(%s, %s)", (_KEYS_LOCK, self._space))

    @contextmanager
    def rotation_lock(self) -> Iterator[None]:
        # The advisory lock belongs to the session, which this process's threads share: a
        # thread mutex keeps them apart, and the connection is free for other work meanwhile.
        with self._rotation_mutex:
            with self._lock:
                self._conn.execute("SELECT pg_advisory_lock(%s, %s)", (_ROTATION_LOCK, self._space))
            try:
                yield
            finally:
                with self._lock:
                    self._conn.execute(
                        "SELECT pg_advisory_unlock(%s, %s)", (_ROTATION_LOCK, self._space)
                    )

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._lock:
            (alone,) = self._conn.execute(
                "SELECT pg_try_advisory_lock(%s, %s)", (_OPEN_LOCK, self._space)
            ).fetchone()
            if not alone:
                raise DatabaseInUse("another process has this database open; stop it first")
            try:
                yield
            finally:
                self._conn.execute("SELECT pg_advisory_unlock(%s, %s)", (_OPEN_LOCK, self._space))

    def migrate(self) -> None:
        with self.transaction():
            self._execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            super().migrate()

    def compact(self) -> None:
        with self._lock:
            for table in ("memory_facts", "memory_archive", "partitions", "events"):
                self._conn.execute(f"VACUUM {table}")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

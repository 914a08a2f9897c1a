"""PostgreSQL backend: the same portable SQL, for several processes on several machines.

Partition versions live in the database, so every process sharing it sees a write by any
other and rebuilds just that partition's in-memory index.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..errors import StoreError
from .sql import Dialect, SqlStore

try:  # optional dependency: pip install 'confidante[postgres]'
    import psycopg
except ImportError:  # pragma: no cover - exercised only without the extra
    psycopg = None  # type: ignore[assignment]

_MIGRATION_LOCK = 0x636F6E66  # "conf": serialises schema migrations across processes


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


class PostgresStore(SqlStore):
    dialect = Dialect(
        placeholder="%s", blob="BYTEA", bigint="BIGINT", id_pk="BIGSERIAL PRIMARY KEY"
    )

    def __init__(self, dsn: str, *, schema: str | None = None) -> None:
        super().__init__()
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
